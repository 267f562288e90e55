/* mio_export_gguf.c — mio-export-gguf: re-emit a GGUF file through the streaming
 * writer, verbatim or transcoding the matrix weights to another type. Metadata
 * is copied with its exact wire types (general.file_type updated when
 * transcoding); tensors are streamed one at a time, so memory holds at most one
 * tensor's f32 buffer and its encoded form. Verbatim output is byte-identical to
 * a v3 input. */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define PROG "mio-export-gguf"

/* llama.cpp's llama_ftype for a file whose matrix weights are all of one type. */
static int ftype_of(int type) {
    switch (type) {
    case MIO_TYPE_F32: return 0;     case MIO_TYPE_F16: return 1;     case MIO_TYPE_Q4_0: return 2;
    case MIO_TYPE_Q4_1: return 3;    case MIO_TYPE_Q8_0: return 7;    case MIO_TYPE_Q5_0: return 8;
    case MIO_TYPE_Q5_1: return 9;    case MIO_TYPE_Q2_K: return 10;   case MIO_TYPE_Q3_K: return 11; /* Q3_K_S */
    case MIO_TYPE_Q4_K: return 14; /* Q4_K_S */ case MIO_TYPE_Q5_K: return 16; /* Q5_K_S */
    case MIO_TYPE_Q6_K: return 18;   case MIO_TYPE_IQ2_XXS: return 19; case MIO_TYPE_IQ2_XS: return 20;
    case MIO_TYPE_IQ3_XXS: return 23; case MIO_TYPE_IQ1_S: return 24; case MIO_TYPE_IQ4_NL: return 25;
    case MIO_TYPE_IQ3_S: return 26;  case MIO_TYPE_IQ2_S: return 28;  case MIO_TYPE_IQ4_XS: return 30;
    case MIO_TYPE_IQ1_M: return 31;  case MIO_TYPE_BF16: return 32;   case MIO_TYPE_TQ1_0: return 36;
    case MIO_TYPE_TQ2_0: return 37;  case MIO_TYPE_MXFP4: return 38;  case MIO_TYPE_NVFP4: return 39;
    case MIO_TYPE_Q1_0: return 40;   case MIO_TYPE_Q2_0: return 41;
    default: return -1; /* q8_1, q8_K: activation formats, not weight types */
    }
}

static void usage(FILE *o) {
    fprintf(o,
            "usage: " PROG " --from-gguf IN --out OUT [--dtype MODE] [--threads N] [--dry-run] [--quiet]\n"
            "  Re-emit the GGUF file IN as OUT through libmodelio's streaming writer. Metadata is\n"
            "  copied verbatim (exact wire types); tensors are streamed one at a time. The output\n"
            "  is written atomically: nothing is left behind on failure or interruption (SIGINT,\n"
            "  SIGTERM: exit 130/143). OUT may not be a device, FIFO or directory; '-' (or\n"
            "  /dev/stdout) streams the file to standard output instead, which must not be a\n"
            "  terminal. IN may be the first part of a split model (name-00001-of-0000N.gguf):\n"
            "  all parts are read and OUT is one file without the split.* keys.\n"
            "  --dtype MODE   verbatim (default: every tensor as is; byte-identical to a v3 input\n"
            "                 whose padding is zero — otherwise a note says where it differs),\n"
            "                 f32, f16, bf16, or a block type by name (q4_0 q4_1 q5_0 q5_1 q8_0 q2_k\n"
            "                 q3_k q4_k q5_k q6_k iq4_nl iq4_xs ... — any type libmodelio can encode).\n"
            "                 Only matrix weights are converted: n_dims >= 2, name ending '.weight',\n"
            "                 no 'norm' in the name, source f32/f16/bf16 (a quantized source is an\n"
            "                 error); a row length that is not a whole number of the target's blocks\n"
            "                 keeps the source type; everything else keeps its type. When any tensor\n"
            "                 is converted, general.file_type is set to llama.cpp's llama_ftype for MODE.\n"
            "  --threads N    encode each tensor with N threads (0 = one per core; output identical)\n"
            "  --dry-run      print the per-tensor plan and exit without writing\n"
            "  --quiet        no progress bar and no summary\n"
            "exit status: 0 ok, 1 failure (library message on stderr), 2 usage error\n");
}

static int usage_error(const char *msg) {
    fprintf(stderr, PROG ": %s\n", msg);
    usage(stderr);
    return CLI_EXIT_USAGE;
}


enum { KEEP, CONVERT };

typedef struct plan {
    int action;
    int out_type;
    const char *why; /* reason for KEEP (NULL when converting) */
    uint64_t out_bytes;
} plan;

static int has_suffix(mio_str s, const char *suf) {
    size_t n = strlen(suf);
    return s.len >= n && memcmp(s.ptr + s.len - n, suf, n) == 0;
}
static int contains(mio_str s, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= s.len; i++)
        if (memcmp(s.ptr + i, needle, n) == 0) return 1;
    return 0;
}

/* Decide what happens to tensor t under target type `target` (-1 = verbatim).
 * Returns 0, or 1 with a message printed when the tensor makes the run fail. */
static int make_plan(const char *in, const mio_gguf_tensor *t, int target, plan *p) {
    p->action = KEEP;
    p->out_type = t->type;
    p->out_bytes = t->nbytes;
    p->why = "verbatim";
    if (target < 0) return 0;
    if (t->n_dims < 2) { p->why = "1-D"; return 0; }
    if (!has_suffix(t->name, ".weight")) { p->why = "not a .weight"; return 0; }
    if (contains(t->name, "norm")) { p->why = "norm"; return 0; }
    if (t->type != MIO_TYPE_F32 && t->type != MIO_TYPE_F16 && t->type != MIO_TYPE_BF16) {
        fprintf(stderr, PROG ": ");
        cli_esc_str(stderr, in);
        fprintf(stderr, ": tensor '");
        cli_esc(stderr, t->name.ptr, t->name.len);
        fprintf(stderr, "' is %s: only f32/f16/bf16 sources can be transcoded (re-quantizing a quantized tensor would "
                        "compound its error); convert from the unquantized model\n", mio_type_name(t->type));
        return 1;
    }
    if (t->ne[0] % mio_type_block_size(target) != 0) { p->why = "row not a whole number of blocks"; return 0; }
    /* keep in sync with the reasons counted in main's "converted nothing" note */
    uint64_t nb;
    if (mio_tensor_nbytes(target, t->n_dims, t->ne, &nb) != MIO_OK) { p->why = "size"; return 0; }
    p->action = CONVERT;
    p->out_type = target;
    p->out_bytes = nb;
    p->why = NULL;
    return 0;
}

static uint64_t elements(const mio_gguf_tensor *t) {
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->n_dims; d++) n *= (uint64_t)t->ne[d];
    return n;
}

/* "mio-export-gguf: IN: tensor 'NAME': " on stderr, escaped; after a progress line, on a new line. */
static void tensor_prefix(int after_progress, const char *in, const mio_gguf_tensor *t) {
    fprintf(stderr, "%s" PROG ": ", after_progress ? "\n" : "");
    cli_esc_str(stderr, in);
    fputs(": tensor '", stderr);
    cli_esc(stderr, t->name.ptr, t->name.len);
    fputs("': ", stderr);
}

static void print_shape(FILE *o, const mio_gguf_tensor *t) {
    fputc('[', o);
    for (uint32_t d = t->n_dims; d-- > 0;) fprintf(o, "%" PRId64 "%s", t->ne[d], d ? ", " : "");
    fputc(']', o);
}

static void progress(int64_t done, int64_t total, const mio_gguf_tensor *t, uint64_t bytes, uint64_t total_bytes,
                     double secs) {
    char a[32], b[32];
    int width = 24, fill = total_bytes ? (int)((double)bytes / (double)total_bytes * width) : width;
    char bar[32];
    for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r[%s] %3d%% %" PRId64 "/%" PRId64 " %s/%s %.0f MB/s ", bar,
            total_bytes ? (int)(100.0 * (double)bytes / (double)total_bytes) : 100, done, total,
            cli_human_size(a, sizeof a, bytes), cli_human_size(b, sizeof b, total_bytes),
            secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
    size_t shown = t ? cli_print_escaped(stderr, t->name.ptr, t->name.len, 40, 0) : 0;
    fprintf(stderr, "%*s", (int)(40 - shown), "");
    fflush(stderr);
}

/* Index of the first NaN/inf among n floats, or -1 (for the cast targets, which
 * the library does not check). */
static int64_t first_bad(const float *x, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, x + i, 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return (int64_t)i;
    }
    return -1;
}

int main(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *dtype = "verbatim", *threads_s = "1";
    int quiet = 0, dry = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--from-gguf", &in)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--out", &out)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--dtype", &dtype)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--threads", &threads_s)) != 0) {
            if (r < 0) {
                char msg[128];
                snprintf(msg, sizeof msg, "option '%s' needs a value", a);
                return usage_error(msg);
            }
        } else if (cli_is(a, "--quiet") || cli_is(a, "-q")) {
            quiet = 1;
        } else if (cli_is(a, "--dry-run")) {
            dry = 1;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unexpected argument '%.200s'", a);
            return usage_error(msg);
        }
    }
    if (!in || !*in) return usage_error("--from-gguf IN is required");
    if (!dry && (!out || !*out)) return usage_error("--out OUT is required");
    char *end = NULL;
    long nthreads = strtol(threads_s, &end, 10);
    if (!*threads_s || *end || nthreads < 0 || nthreads > 256) return usage_error("--threads takes a number from 0 to 256");
    int target = -1;
    if (!cli_is(dtype, "verbatim")) {
        target = mio_type_from_name(dtype);
        if (target < 0 || target >= MIO_TYPE_GGML_COUNT || !mio_type_can_encode(target) || ftype_of(target) < 0) {
            fprintf(stderr, PROG ": --dtype %s: not a target type; use verbatim, f32, f16, bf16 or one of:", dtype);
            for (int t = 2; t < MIO_TYPE_GGML_COUNT; t++)
                if (t != MIO_TYPE_BF16 && mio_type_can_encode(t) && ftype_of(t) >= 0) fprintf(stderr, " %s", mio_type_name(t));
            if (target >= 0 && !mio_type_can_encode(target)) {
                mio_status st = mio_encode_f32(target, NULL, 0, NULL, 0);
                if (st == MIO_ERR_ENCODER_UNAVAILABLE) fprintf(stderr, "\n  (%s)", mio_last_error());
            }
            fputc('\n', stderr);
            return CLI_EXIT_USAGE;
        }
    }
    int to_stdout = !dry && cli_is_stdout(out);
    if (to_stdout && !cli_stdout_usable(PROG)) return CLI_EXIT_USAGE;
    if (out && !to_stdout && strcmp(in, out) == 0) {
        fprintf(stderr, PROG ": --out ");
        cli_esc_str(stderr, out);
        fprintf(stderr, " is the input file; refusing to overwrite it\n");
        return CLI_EXIT_USAGE;
    }
    cli_install_signals(PROG);

    double t0 = cli_now();
    int show_progress = !quiet && !dry && isatty(STDERR_FILENO);
    mio_gguf_file *f = NULL;
    mio_writer *w = NULL;
    plan *plans = NULL;
    float *fbuf = NULL;
    void *ebuf = NULL;
    const char *where = in;
    int rc = CLI_EXIT_FAIL;
    /* A split model is read whole (all parts), never cut to its first part. */
    mio_status st = mio_gguf_open(in, MIO_OPEN_MMAP | MIO_OPEN_SPLITS, &f);
    if (st != MIO_OK) goto fail;
    uint32_t parts = mio_gguf_part_count(f);
    uint64_t split_count = 0;
    int64_t ksc = mio_gguf_find_key(f, "split.count");
    if (ksc >= 0 && mio_gguf_kv_u64(f, ksc, &split_count) == MIO_OK && split_count > 1 && parts == 1) {
        fprintf(stderr, PROG ": ");
        cli_esc_str(stderr, in);
        fprintf(stderr, ": this file is one part of a model split into %" PRIu64 " files (split.count), but its name "
                        "does not follow the name-0000K-of-%05" PRIu64 ".gguf pattern that locates the others; refusing "
                        "to convert part of a model — rename the parts\n", split_count, split_count);
        goto out_plain;
    }
    if (out && !to_stdout && mio_gguf_uses_file(f, out)) {
        fprintf(stderr, PROG ": --out ");
        cli_esc_str(stderr, out);
        fprintf(stderr, " is one of the input files; refusing to overwrite it\n");
        rc = CLI_EXIT_USAGE;
        goto out_plain;
    }

    int64_t nt = mio_gguf_tensor_count(f);
    plans = calloc((size_t)(nt ? nt : 1), sizeof *plans);
    if (!plans) { fprintf(stderr, PROG ": out of memory\n"); goto out_plain; }
    uint64_t total_in = 0, total_out = 0, max_f32 = 0, max_enc = 0;
    int64_t n_conv = 0, n_rows = 0, n_1d = 0, n_other = 0;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK) goto fail;
        if (make_plan(in, &t, target, &plans[i])) goto out_plain;
        total_in += t.nbytes;
        total_out += plans[i].out_bytes;
        if (plans[i].action == CONVERT) {
            n_conv++;
            if (elements(&t) * 4 > max_f32) max_f32 = elements(&t) * 4;
            if (plans[i].out_bytes > max_enc) max_enc = plans[i].out_bytes;
        } else if (target >= 0) {
            if (strcmp(plans[i].why, "row not a whole number of blocks") == 0) n_rows++;
            else if (strcmp(plans[i].why, "1-D") == 0) n_1d++;
            else n_other++;
        }
    }
    if (dry) {
        printf("plan for ");
        cli_esc_str(stdout, in);
        printf(" -> ");
        if (out) cli_esc_str(stdout, out); else printf("(dry run)");
        printf(" (--dtype %s): %" PRId64 " of %" PRId64 " %s converted\n", dtype, n_conv, nt,
               cli_plural((uint64_t)nt, "tensor", "tensors"));
        if (parts > 1) printf("input: %" PRIu32 " split parts, merged into one output file\n", parts);
        for (int64_t i = 0; i < nt; i++) {
            mio_gguf_tensor t;
            mio_gguf_tensor_info(f, i, &t);
            printf("  ");
            size_t shown = cli_print_escaped(stdout, t.name.ptr, t.name.len, SIZE_MAX, 0);
            printf("%*s ", shown < 40 ? (int)(40 - shown) : 0, "");
            print_shape(stdout, &t);
            printf("  %s -> %s  %" PRIu64 " -> %" PRIu64 " bytes%s%s%s\n", mio_type_name(t.type),
                   mio_type_name(plans[i].out_type), t.nbytes, plans[i].out_bytes, plans[i].why ? "  (kept: " : "",
                   plans[i].why ? plans[i].why : "", plans[i].why ? ")" : "");
        }
        char a[32], b[32], c[32];
        printf("bytes: %s in, %s out; peak working set per tensor: %s\n", cli_human_size(a, sizeof a, total_in),
               cli_human_size(b, sizeof b, total_out), cli_human_size(c, sizeof c, max_f32 + max_enc));
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, PROG ": error writing the plan to standard output\n");
            goto out_plain;
        }
        rc = CLI_EXIT_OK;
        goto out_plain;
    }

    /* gguf-py ends a tensor-less file right after the header; ggml pads it. */
    uint32_t wflags = (nt == 0 && parts == 1 && mio_gguf_file_size(f) == mio_gguf_header_size(f))
                          ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT;
    where = out;
    if ((st = mio_writer_new(wflags, &w)) != MIO_OK) goto fail;
    /* One output file: the split bookkeeping of the parts does not describe it. */
    static const char *const split_keys[] = {"split.no", "split.count", "split.tensors.count"};
    if ((st = mio_writer_copy_all_kv(w, f, split_keys, parts > 1 ? 3 : 0)) != MIO_OK) goto fail;
    /* general.file_type describes the weights: only claim the target when some were converted. */
    if (n_conv > 0 && (st = mio_writer_set_u32(w, "general.file_type", (uint32_t)ftype_of(target))) != MIO_OK) goto fail;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        char name[256];
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK) goto fail;
        if (t.name.len >= sizeof name || memchr(t.name.ptr, '\0', t.name.len)) {
            fprintf(stderr, PROG ": ");
            cli_esc_str(stderr, in);
            fprintf(stderr, ": tensor %" PRId64 ": name cannot be copied (NUL byte or too long)\n", i);
            goto out_plain;
        }
        memcpy(name, t.name.ptr, t.name.len);
        name[t.name.len] = '\0';
        if ((st = mio_writer_declare_tensor(w, name, plans[i].out_type, t.n_dims, t.ne)) != MIO_OK) goto fail;
    }
    if (n_conv) {
        fbuf = malloc((size_t)max_f32);
        ebuf = malloc((size_t)(max_enc ? max_enc : 1));
        if (!fbuf || !ebuf) {
            fprintf(stderr, PROG ": cannot allocate %" PRIu64 " bytes of working memory\n", max_f32 + max_enc);
            goto out_plain;
        }
    }

    if ((st = to_stdout ? mio_writer_begin_fd(w, STDOUT_FILENO) : mio_writer_begin_file(w, out)) != MIO_OK) goto fail;
    cli_set_progress_line(show_progress);
    double last = 0.0;
    uint64_t done_in = 0;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK) goto fail;
        if (t.nbytes > SIZE_MAX) {
            fprintf(stderr, PROG ": ");
            cli_esc_str(stderr, in);
            fprintf(stderr, ": tensor %" PRId64 " is larger than the address space\n", i);
            goto out_plain;
        }
        mio_prefetch(f, t.data, (size_t)t.nbytes);
        if (plans[i].action == KEEP) {
            st = mio_writer_write_tensor(w, t.data, (size_t)t.nbytes);
        } else {
            size_t n = (size_t)elements(&t);
            st = mio_decode_f32_mt(t.type, t.data, (size_t)t.nbytes, fbuf, n, (int)nthreads);
            if (st == MIO_OK) {
                int64_t bad = first_bad(fbuf, n);
                if (bad >= 0) {
                    tensor_prefix(show_progress, in, &t);
                    fprintf(stderr, "element %" PRId64 " is %s; refusing to convert non-finite weights\n", bad,
                            fbuf[bad] != fbuf[bad] ? "NaN" : "infinite");
                    goto out_plain;
                }
                st = mio_encode_f32_mt(plans[i].out_type, fbuf, n, ebuf, (size_t)plans[i].out_bytes, (int)nthreads);
            }
            if (st != MIO_OK) {
                tensor_prefix(show_progress, in, &t);
                cli_esc_str(stderr, mio_last_error());
                fputc('\n', stderr);
                goto out_plain;
            }
            st = mio_writer_write_tensor(w, ebuf, (size_t)plans[i].out_bytes);
        }
        mio_release(f, t.data, (size_t)t.nbytes);
        if (st != MIO_OK) goto fail;
        done_in += t.nbytes;
        if (show_progress) {
            double now = cli_now();
            if (now - last >= 0.1 || i + 1 == nt) {
                progress(i + 1, nt, &t, done_in, total_in, now - t0);
                last = now;
            }
        }
    }
    if ((st = mio_writer_finish(w)) != MIO_OK) goto fail;
    cli_set_progress_line(0);
    if (show_progress && nt > 0) fputc('\n', stderr);

    /* Converting nothing gives a copy: say so even with --quiet, and why. */
    if (target >= 0 && n_conv == 0) {
        fprintf(stderr, PROG ": warning: --dtype %s converted no tensor; the output holds the same tensors as the input",
                mio_type_name(target));
        if (n_rows)
            fprintf(stderr, "; %" PRId64 " matrix %s a row length that is not a multiple of %" PRId64, n_rows,
                    cli_plural((uint64_t)n_rows, "weight has", "weights have"), mio_type_block_size(target));
        if (n_1d || n_other)
            fprintf(stderr, "; %" PRId64 " %s not a matrix weight", n_1d + n_other,
                    cli_plural((uint64_t)(n_1d + n_other), "tensor is", "tensors are"));
        fputs(" (--dry-run shows the plan)\n", stderr);
    }
    int64_t nkv = mio_writer_kv_count(w);
    uint64_t in_size = mio_gguf_file_size(f);
    uint32_t in_version = mio_gguf_version(f);
    struct stat so;
    uint64_t out_size = 0;
    if (to_stdout ? fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) : stat(out, &so) == 0)
        out_size = (uint64_t)so.st_size;
    if (!quiet) {
        double secs = cli_now() - t0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        char a[32], b[32], c[32];
        fprintf(stderr, PROG ": wrote ");
        if (to_stdout) fputs("standard output", stderr); else cli_esc_str(stderr, out);
        fprintf(stderr, ": %" PRId64 " %s", nt, cli_plural((uint64_t)nt, "tensor", "tensors"));
        if (target >= 0) fprintf(stderr, " (%" PRId64 " converted to %s, %" PRId64 " kept)", n_conv, mio_type_name(target),
                                 nt - n_conv);
        else fputs(" (verbatim)", stderr);
        fprintf(stderr, ", %" PRId64 " %s", nkv, cli_plural((uint64_t)nkv, "key", "keys"));
        if (parts > 1) fprintf(stderr, " (from %" PRIu32 " split parts, split.* keys dropped)", parts);
        fprintf(stderr, "; %s in, %s out", cli_human_size(a, sizeof a, total_in), cli_human_size(b, sizeof b, total_out));
        if (out_size) fprintf(stderr, " (%" PRIu64 " bytes)", out_size);
        fprintf(stderr, "; %.3f s, %.1f MB/s; peak RSS %s\n", secs, secs > 0 ? (double)total_in / 1e6 / secs : 0.0,
                cli_human_size(c, sizeof c, (uint64_t)ru.ru_maxrss * 1024));
        if (target < 0 && parts == 1) {
            uint32_t pp;
            uint64_t at;
            if (in_version != 3 || (out_size && out_size != in_size))
                fprintf(stderr, PROG ": note: input was GGUF v%" PRIu32 " of %" PRIu64 " bytes; the output is v3 "
                                "of %" PRIu64 " bytes (re-emitted, not byte-identical)\n",
                        in_version, in_size, out_size);
            else if (mio_gguf_find_nonzero_padding(f, &pp, &at) == MIO_OK)
                fprintf(stderr, PROG ": note: the input has a non-zero padding byte at offset %" PRIu64 " (outside the "
                                "header and tensor data); the output pads with zeros, so it is not byte-identical\n",
                        at);
        }
    }
    rc = CLI_EXIT_OK;
    goto out_plain;

fail:
    cli_set_progress_line(0);
    if (show_progress) fputc('\n', stderr);
    cli_report(PROG, where ? where : in, mio_last_error());
out_plain:
    mio_writer_free(w); /* removes the temp file of an unfinished stream */
    mio_gguf_close(f);
    free(plans);
    free(fbuf);
    free(ebuf);
    return rc;
}
