/* SPDX-License-Identifier: MIT */
/* mio_export_gguf.c — mio-export-gguf: re-emit a GGUF file through libmodelio's
 * quantizer (mio_quantize): verbatim, transcoding the matrix weights to one type
 * (--dtype, the conservative seed policy), or with a llama.cpp preset (--preset,
 * byte-identical to llama-quantize). The policy lives in the library; this
 * parses flags and prints (qcli.c). Verbatim output is byte-identical to a v3
 * input whose padding is zero. --adapters merges a LoRA adapter (mio_lora_merge)
 * or, with --lora-gguf, converts it to a llama.cpp adapter (mio_lora_to_gguf).
 * --ptqtp[=K] replaces the weight matrices by K ternary trit-planes
 * (mio_ptqtp_export, docs/PTQTP.md). */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>
#include <modelio_inspect.h>

#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "qcli.h"

#define PROG "mio-export-gguf"

static void usage(FILE *o) {
    fprintf(o, "usage: " PROG " --from-gguf IN --out OUT [--dtype MODE | --preset NAME] [flags]\n"
               "       " PROG " --from-gguf BASE --out OUT --adapters PATH [--alpha F] [--lora-gguf]\n"
               "       " PROG " --from-gguf IN --out OUT --ptqtp[=K] [--ptqtp-tie] [--ptqtp-include SUB,...]\n"
               "                       [--ptqtp-exclude SUB,...] [--threads N] [--dry-run]\n"
               "       " PROG " --version\n"
               "  Re-emit the GGUF file IN as OUT through libmodelio's quantizer. Metadata is copied\n"
               "  verbatim (exact wire types); tensors are streamed a chunk of rows at a time. The\n"
               "  output is written atomically: nothing is left behind on failure or interruption\n"
               "  (SIGINT, SIGTERM: exit 130/143). OUT may not be an input file, a device, a FIFO or\n"
               "  a directory; '-' (or /dev/stdout) streams the file to standard output instead,\n"
               "  which must not be a terminal. IN may be the first part of a split model\n"
               "  (name-00001-of-0000N.gguf): all parts are read and OUT is one file.\n"
               "  --dtype MODE   verbatim (default: every tensor as is; byte-identical to a v3 input\n"
               "                 whose padding is zero — otherwise a note says where it differs),\n"
               "                 f32, f16, bf16, or a block type by name (q4_0 q4_1 q5_0 q5_1 q8_0 q2_k\n"
               "                 q3_k q4_k q5_k q6_k iq4_nl iq4_xs ... — any type libmodelio can encode).\n"
               "                 Only matrix weights are converted: n_dims >= 2, name ending '.weight',\n"
               "                 no 'norm' in the name, source f32/f16/bf16 (a quantized source is an\n"
               "                 error); a row length that is not a whole number of the target's blocks\n"
               "                 keeps the source type; everything else keeps its type. When any tensor\n"
               "                 is converted, general.file_type is set to llama.cpp's llama_ftype for MODE.\n"
               "  --preset NAME  a llama-quantize type (Q4_K_M, q8_0, iq4_xs, ...): llama.cpp's rules,\n"
               "                 tensor order and metadata; the file is byte-identical to llama-quantize's\n"
               "  --threads N    encode with N threads (0 = one per core, the default with --preset;\n"
               "                 1 otherwise); the output is identical for any N\n"
               "  --dry-run      print the per-tensor plan and exit without writing\n"
               "  --quiet        no progress bar and no summary\n"
               "  llama-quantize flags (see mio-quantize --help): --imatrix F, --include-weights N,\n"
               "  --exclude-weights N, --output-tensor-type T, --token-embedding-type T,\n"
               "  --tensor-type REGEX=T, --tensor-type-file F, --leave-output-tensor, --allow-requantize,\n"
               "  --pure, --override-kv KEY=TYPE:VALUE, --prune-layers L,..., --keep-split,\n"
               "  --experts-dtype T\n"
               "  LoRA adapters (docs/LORA.md):\n"
               "  --adapters PATH  merge a LoRA adapter into BASE: W + s*B*A folded into every targeted\n"
               "                 weight (f32/f16/bf16 bases; f16/bf16 computed in f32 and rounded once),\n"
               "                 everything else byte-verbatim. PATH: a Hugging Face PEFT adapter (a\n"
               "                 directory with adapter_config.json and adapter_model.safetensors, or that\n"
               "                 file) or a Fucina checkpoint (adapters.safetensors, or its directory).\n"
               "                 Cannot be combined with --dtype, --preset, --experts-dtype or other\n"
               "                 quantizer flags: merge on a float base, then quantize in a second pass\n"
               "  --alpha F      LoRA alpha (s = F/r); required for Fucina adapters, which store none;\n"
               "                 for PEFT it replaces lora_alpha and every alpha_pattern entry\n"
               "  --lora-gguf    write OUT as a llama.cpp LoRA adapter GGUF for BASE instead of merging\n"
               "                 (load it with llama-cli --lora OUT); any BASE tensor types\n");
    fprintf(o, "  PTQTP trit-planes (docs/PTQTP.md):\n"
               "  --ptqtp[=K]    replace each eligible weight NAME by K ternary planes NAME.ptqtp0 ..\n"
               "                 NAME.ptqtp{K-1} (TQ2_0, NAME's shape; K = 1, 2 or 3, default 2) whose sum\n"
               "                 approximates it, solved without calibration data (PTQTP), in the layout\n"
               "                 Fucina loads (fucina.ptqtp.version = 1 is added). Eligible: 2-D matrices\n"
               "                 and 3-D *_exps expert stacks (solved expert by expert) named *.weight,\n"
               "                 no 'norm', rows a multiple of 256, any decodable non-ternary type (quantized\n"
               "                 sources are decoded first); token_embd and output.weight are kept unless\n"
               "                 --ptqtp-include names them. Everything else is copied byte-verbatim.\n"
               "                 Cannot be combined with --dtype, --preset, --experts-dtype, --adapters\n"
               "                 or other quantizer flags\n"
               "  --ptqtp-planes K  the same as --ptqtp=K\n"
               "  --ptqtp-tie    lock the plane scales to the ratio 3 ([3s, s], [9s, 3s, s]): one uniform\n"
               "                 3^K-level quantizer per group; needs K >= 2; adds fucina.ptqtp.tie_scales = 1\n"
               "  --ptqtp-include SUB[,SUB]  convert only eligible tensors whose name contains a SUB\n"
               "                 (replaces the token_embd / output.weight rule); repeatable\n"
               "  --ptqtp-exclude SUB[,SUB]  keep tensors whose name contains a SUB; repeatable\n"
               "                 With --ptqtp, --threads defaults to 0 (one per core) and --dry-run prints\n"
               "                 the per-tensor plan (shape, source -> planes, bytes before/after); a run\n"
               "                 prints each converted tensor's relative error as it goes\n"
               "exit status: 0 ok, 1 failure (library message on stderr), 2 usage error\n");
}

static int usage_error(const char *msg) {
    fprintf(stderr, PROG ": %s\n", msg);
    usage(stderr);
    return CLI_EXIT_USAGE;
}

/* --adapters: the LoRA merge or the llama.cpp adapter conversion. */
typedef struct lora_tally {
    int64_t n, rank_min, rank_max, folded, permuted;
    double scale_min, scale_max;
    float gguf_alpha;
} lora_tally;

static void lora_plan(void *user, const mio_lora_module *m) {
    lora_tally *t = user;
    if (t->n == 0 || m->rank < t->rank_min) t->rank_min = m->rank;
    if (t->n == 0 || m->rank > t->rank_max) t->rank_max = m->rank;
    if (t->n == 0 || m->scale < t->scale_min) t->scale_min = m->scale;
    if (t->n == 0 || m->scale > t->scale_max) t->scale_max = m->scale;
    t->folded += m->b_factor != 1.0;
    t->permuted += m->permuted != 0;
    t->gguf_alpha = m->gguf_alpha;
    t->n++;
}

static int run_lora(const char *in, const char *out, const char *adapters, const char *alpha_s, int lora_gguf,
                    const char *conflict, int quiet) {
    char msg[256];
    if (!adapters || !*adapters)
        return usage_error(alpha_s ? "--alpha needs --adapters PATH" : "--lora-gguf needs --adapters PATH");
    if (conflict) {
        snprintf(msg, sizeof msg,
                 "--adapters cannot be combined with %.100s in one run: merge on a float base, then "
                 "quantize the merged file in a second pass",
                 conflict);
        return usage_error(msg);
    }
    if (!out || !*out) return usage_error("--out OUT is required");
    mio_lora_params p;
    mio_lora_default_params(&p);
    p.adapters = adapters;
    if (alpha_s) {
        char *end = NULL;
        double a = strtod(alpha_s, &end);
        if (!*alpha_s || *end || !isfinite(a)) {
            snprintf(msg, sizeof msg, "--alpha takes a finite number, not '%.100s'", alpha_s);
            return usage_error(msg);
        }
        p.alpha_set = 1;
        p.alpha = a;
    }
    lora_tally t = {0};
    p.plan = lora_plan;
    p.plan_user = &t;
    int to_stdout = cli_is_stdout(out);
    if (to_stdout && !cli_stdout_usable(PROG)) return CLI_EXIT_USAGE;
    cli_install_signals(PROG);
    mio_status st = lora_gguf ? (to_stdout ? mio_lora_to_gguf_fd(in, STDOUT_FILENO, &p) : mio_lora_to_gguf(in, out, &p))
                              : (to_stdout ? mio_lora_merge_fd(in, STDOUT_FILENO, &p) : mio_lora_merge(in, out, &p));
    if (st) {
        fputs(PROG ": ", stderr); /* library messages name the base or the adapter path themselves */
        cli_esc_str(stderr, mio_last_error());
        fputc('\n', stderr);
        return st == MIO_ERR_INVALID_ARG && strstr(mio_last_error(), "one of the input files") ? CLI_EXIT_USAGE
                                                                                               : CLI_EXIT_FAIL;
    }
    if (!quiet) {
        char r[64], sc[96];
        if (t.rank_min == t.rank_max)
            snprintf(r, sizeof r, "rank %lld", (long long)t.rank_min);
        else
            snprintf(r, sizeof r, "ranks %lld..%lld", (long long)t.rank_min, (long long)t.rank_max);
        if (t.scale_min == t.scale_max)
            snprintf(sc, sizeof sc, "scale %g", t.scale_min);
        else
            snprintf(sc, sizeof sc, "scales %g..%g", t.scale_min, t.scale_max);
        fprintf(stderr, PROG ": wrote ");
        cli_esc_str(stderr, to_stdout ? "standard output" : out);
        if (lora_gguf)
            fprintf(stderr, ": llama.cpp LoRA adapter, %lld %s (%s, %s), adapter.lora.alpha = %g%s", (long long)t.n,
                    cli_plural((uint64_t)t.n, "module", "modules"), r, sc, (double)t.gguf_alpha,
                    t.folded ? "; other scales folded into lora_b" : "");
        else
            fprintf(stderr, ": merged %lld LoRA %s (%s, %s)", (long long)t.n,
                    cli_plural((uint64_t)t.n, "module", "modules"), r, sc);
        if (t.permuted) fprintf(stderr, "; q/k rows permuted in %lld", (long long)t.permuted);
        fputc('\n', stderr);
    }
    return CLI_EXIT_OK;
}

/* --ptqtp: PTQTP trit-planes (mio_ptqtp_export). */
typedef struct px_row {
    char *name;
    size_t name_len;
    uint32_t n_dims;
    int64_t ne[4];
    int type, planes;
    uint64_t in_bytes, out_bytes, work_bytes;
    int64_t experts;
    const char *why;
} px_row;

typedef struct px_ctx {
    px_row *rows;
    size_t n, cap;
    int oom, log;
    int64_t n_conv;
    double err_sq, norm_sq;
    uint64_t nonfinite;
} px_ctx;

static void px_shape(FILE *o, uint32_t n_dims, const int64_t *ne) {
    fputc('[', o);
    for (uint32_t k = n_dims; k-- > 0;) fprintf(o, "%lld%s", (long long)ne[k], k ? ", " : "");
    fputc(']', o);
}

static void px_plan(void *user, const mio_ptqtp_tensor *t) {
    px_ctx *c = user;
    if (c->oom) return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        px_row *nr = realloc(c->rows, cap * sizeof *nr);
        if (!nr) {
            c->oom = 1;
            return;
        }
        c->rows = nr;
        c->cap = cap;
    }
    px_row *r = &c->rows[c->n];
    memset(r, 0, sizeof *r);
    r->name = malloc(t->name.len + 1);
    if (!r->name) {
        c->oom = 1;
        return;
    }
    memcpy(r->name, t->name.ptr, t->name.len);
    r->name[t->name.len] = '\0';
    r->name_len = t->name.len;
    r->n_dims = t->n_dims;
    memcpy(r->ne, t->ne, sizeof r->ne);
    r->type = t->type;
    r->planes = t->planes;
    r->in_bytes = t->in_bytes;
    r->out_bytes = t->out_bytes;
    r->work_bytes = t->work_bytes;
    r->experts = t->experts;
    r->why = t->why; /* a string constant of the library */
    c->n++;
    if (t->planes) c->n_conv++;
}

/* One line per converted tensor, as it is written. */
static void px_done(void *user, const mio_ptqtp_tensor *t, const mio_ptqtp_stats *s) {
    px_ctx *c = user;
    c->err_sq += s->err_sq;
    c->norm_sq += s->norm_sq;
    c->nonfinite += s->nonfinite;
    if (!c->log) return;
    fputs(PROG ": ", stderr);
    cli_esc(stderr, t->name.ptr, t->name.len);
    fputc(' ', stderr);
    px_shape(stderr, t->n_dims, t->ne);
    fprintf(stderr, " %s -> %d x tq2_0: rel err %.4f", mio_type_name(t->type), t->planes, s->rel_err);
    if (t->experts > 0)
        fprintf(stderr, " (%lld experts: mean %.4f, max %.4f)", (long long)t->experts, t->rel_err_mean, t->rel_err_max);
    fprintf(stderr, ", %.1f iterations/group, %llu of %llu %s unconverged",
            s->groups ? (double)s->iterations / (double)s->groups : 0.0, (unsigned long long)s->unconverged,
            (unsigned long long)s->groups, cli_plural(s->groups, "group", "groups"));
    if (s->nonfinite)
        fprintf(stderr, ", %llu non-finite %s (trit 0)", (unsigned long long)s->nonfinite,
                cli_plural(s->nonfinite, "weight", "weights"));
    fputc('\n', stderr);
}

static uint64_t px_elements(const px_row *r) {
    uint64_t n = 1;
    for (uint32_t k = 0; k < r->n_dims; k++) n *= (uint64_t)r->ne[k];
    return n;
}

static int run_ptqtp(const char *in, const char *out, const mio_ptqtp_params *pin, int quiet) {
    mio_ptqtp_params pp = *pin;
    mio_ptqtp_params *p = &pp;
    int to_stdout = out && !p->dry_run && cli_is_stdout(out);
    if (to_stdout && !cli_stdout_usable(PROG)) return CLI_EXIT_USAGE;
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(in, MIO_OPEN_SPLITS, &f) != MIO_OK) {
        cli_report(PROG, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    uint32_t parts = mio_gguf_part_count(f);
    int clobber = out && !to_stdout && !p->dry_run && mio_gguf_uses_file(f, out);
    mio_gguf_close(f);
    if (clobber) {
        fputs(PROG ": output ", stderr);
        cli_esc_str(stderr, out);
        fputs(" is one of the input files; refusing to overwrite it\n", stderr);
        return CLI_EXIT_USAGE;
    }
    px_ctx c;
    memset(&c, 0, sizeof c);
    c.log = !quiet && !p->dry_run;
    p->plan = px_plan;
    p->plan_user = &c;
    p->done = px_done;
    p->done_user = &c;
    double t0 = cli_now();
    if (!p->dry_run) cli_install_signals(PROG);
    mio_status st = to_stdout ? mio_ptqtp_export_fd(in, STDOUT_FILENO, p) : mio_ptqtp_export(in, out, p);
    int rc = CLI_EXIT_OK;
    if (c.oom) {
        fputs(PROG ": out of memory\n", stderr);
        rc = CLI_EXIT_FAIL;
        goto done;
    }
    if (st != MIO_OK) {
        cli_report(PROG, (st == MIO_ERR_IO || st == MIO_ERR_CANCELLED) && out && !to_stdout ? out : in,
                   mio_last_error());
        rc = st == MIO_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
        goto done;
    }
    uint64_t total_in = 0, total_out = 0, elems = 0, work = 0;
    for (size_t k = 0; k < c.n; k++) {
        total_in += c.rows[k].in_bytes;
        total_out += c.rows[k].out_bytes;
        elems += px_elements(&c.rows[k]);
        if (c.rows[k].work_bytes > work) work = c.rows[k].work_bytes;
    }
    char a[32], b[32], h[32];
    if (p->dry_run) {
        printf("plan for ");
        cli_esc_str(stdout, in);
        printf(" -> ");
        if (out)
            cli_esc_str(stdout, out);
        else
            printf("(dry run)");
        printf(" (--ptqtp=%d%s): %lld of %zu %s to %d %s each\n", p->planes, p->tie_scales ? " --ptqtp-tie" : "",
               (long long)c.n_conv, c.n, cli_plural(c.n, "tensor", "tensors"), p->planes,
               cli_plural((uint64_t)p->planes, "plane", "planes"));
        if (parts > 1) printf("input: %u split parts, merged into one output file\n", parts);
        for (size_t k = 0; k < c.n; k++) {
            const px_row *r = &c.rows[k];
            printf("  ");
            size_t shown = cli_print_escaped(stdout, r->name, r->name_len, SIZE_MAX, 0);
            printf("%*s ", shown < 40 ? (int)(40 - shown) : 0, "");
            px_shape(stdout, r->n_dims, r->ne);
            if (r->planes)
                printf("  %s -> %d x tq2_0  %llu -> %llu bytes", mio_type_name(r->type), r->planes,
                       (unsigned long long)r->in_bytes, (unsigned long long)r->out_bytes);
            else
                printf("  %s -> %s  %llu -> %llu bytes", mio_type_name(r->type), mio_type_name(r->type),
                       (unsigned long long)r->in_bytes, (unsigned long long)r->out_bytes);
            if (r->planes && r->experts)
                printf("  (expert stack: %lld experts)", (long long)r->experts);
            else if (r->planes && strcmp(r->why, "ptqtp") != 0)
                printf("  (%s)", r->why);
            else if (!r->planes)
                printf("  (kept: %s)", r->why);
            putchar('\n');
        }
        printf("bytes: %s in, %s out", mio_format_size(a, sizeof a, total_in), mio_format_size(b, sizeof b, total_out));
        if (elems) printf(" (%.2f bits/weight)", (double)total_out * 8.0 / (double)elems);
        printf("; peak working set per tensor: %s\n", mio_format_size(h, sizeof h, work));
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fputs(PROG ": error writing the plan to standard output\n", stderr);
            rc = CLI_EXIT_FAIL;
        }
        goto done;
    }
    if (c.n_conv == 0)
        fputs(PROG ": warning: --ptqtp converted no tensor; the output holds the same tensors as the input and no "
                   "fucina.ptqtp.version key (--dry-run shows the plan)\n",
              stderr);
    if (!quiet) {
        uint64_t out_size;
        int64_t nkv;
        cli_written_gguf(out, to_stdout, &out_size, &nkv);
        double secs = cli_now() - t0;
        fputs(PROG ": wrote ", stderr);
        if (to_stdout)
            fputs("standard output", stderr);
        else
            cli_esc_str(stderr, out);
        fprintf(stderr, ": %zu %s (%lld to %d PTQTP %s each, %lld kept), %lld plane %s", c.n,
                cli_plural(c.n, "tensor", "tensors"), (long long)c.n_conv, p->planes,
                cli_plural((uint64_t)p->planes, "plane", "planes"), (long long)c.n - c.n_conv,
                (long long)c.n_conv * p->planes,
                cli_plural((uint64_t)c.n_conv * (uint64_t)p->planes, "tensor", "tensors"));
        if (nkv >= 0) fprintf(stderr, ", %lld %s", (long long)nkv, cli_plural((uint64_t)nkv, "key", "keys"));
        if (parts > 1) fprintf(stderr, " (from %u split parts, split.* keys dropped)", parts);
        fprintf(stderr, "; %s in, %s out", mio_format_size(a, sizeof a, total_in),
                mio_format_size(b, sizeof b, total_out));
        if (out_size) fprintf(stderr, " (%llu bytes)", (unsigned long long)out_size);
        if (elems) fprintf(stderr, ", %.2f bits/weight", (double)total_out * 8.0 / (double)elems);
        if (c.n_conv)
            fprintf(stderr, "; rel err %.4f over the converted weights",
                    c.norm_sq > 0 ? sqrt(c.err_sq / c.norm_sq) : 0.0);
        fprintf(stderr, "; %.3f s, %.1f MB/s; peak RSS %s\n", secs, secs > 0 ? (double)total_in / 1e6 / secs : 0.0,
                mio_format_size(h, sizeof h, cli_peak_rss()));
    }
done:
    for (size_t k = 0; k < c.n; k++) free(c.rows[k].name);
    free(c.rows);
    return rc;
}

/* Append the comma-separated substrings of v (empty ones skipped) to l, which
 * owns copies of them. -1 when out of memory. */
typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;
static int strlist_add(strlist *l, const char *v) {
    const char *s = v;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len) {
            if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 8;
                char **nv = realloc(l->v, cap * sizeof *nv);
                if (!nv) return -1;
                l->v = nv;
                l->cap = cap;
            }
            char *c = malloc(len + 1);
            if (!c) return -1;
            memcpy(c, s, len);
            c[len] = '\0';
            l->v[l->n++] = c;
        }
        if (!e) return 0;
        s = e + 1;
    }
}
/* --ptqtp-include / --ptqtp-exclude: r as cli_opt_value returned it. */
static int list_opt(int r, const char *opt, strlist *l, const char *v, const char **flag) {
    if (r < 0 || !v) {
        char msg[128];
        snprintf(msg, sizeof msg, "option '%s' needs a value", opt);
        return usage_error(msg);
    }
    if (!*flag) *flag = opt;
    if (strlist_add(l, v) != 0) {
        fputs(PROG ": out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}
static void strlist_free(strlist *l) {
    for (size_t k = 0; k < l->n; k++) free(l->v[k]);
    free(l->v);
}

int main(int argc, char **argv) {
    if (argc == 2 && cli_is(argv[1], "--version")) return cli_version(PROG);
    const char *in = NULL, *out = NULL, *dtype = NULL, *preset = NULL, *threads_s = NULL;
    const char *adapters = NULL, *alpha_s = NULL, *qflag = NULL;
    const char *ptqtp_flag = NULL, *planes_s = NULL, *qflag_other = NULL, *sub = NULL;
    int quiet = 0, lora_gguf = 0, tie = 0;
    strlist incl = {0}, excl = {0};
    qcli q;
    qcli_init(&q);
    int rc = CLI_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--from-gguf", &in)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--out", &out)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--dtype", &dtype)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--preset", &preset)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--threads", &threads_s)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--adapters", &adapters)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--alpha", &alpha_s)) != 0) {
            if (r < 0) {
                char msg[128];
                snprintf(msg, sizeof msg, "option '%s' needs a value", a);
                rc = usage_error(msg);
                goto done;
            }
        } else if (cli_is(a, "--ptqtp") || strncmp(a, "--ptqtp=", 8) == 0) {
            if (!ptqtp_flag) ptqtp_flag = "--ptqtp";
            if (a[7] == '=') planes_s = a + 8;
        } else if (cli_is(a, "--ptqtp-tie")) {
            if (!ptqtp_flag) ptqtp_flag = "--ptqtp-tie";
            tie = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--ptqtp-planes", &planes_s)) != 0) {
            if (r < 0) {
                rc = usage_error("option '--ptqtp-planes' needs a value");
                goto done;
            }
            if (!ptqtp_flag) ptqtp_flag = "--ptqtp-planes";
        } else if ((r = cli_opt_value(argc, argv, &i, "--ptqtp-include", &sub)) != 0) {
            int lr = list_opt(r, "--ptqtp-include", &incl, sub, &ptqtp_flag);
            if (lr != CLI_EXIT_OK) {
                rc = lr;
                goto done;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "--ptqtp-exclude", &sub)) != 0) {
            int lr = list_opt(r, "--ptqtp-exclude", &excl, sub, &ptqtp_flag);
            if (lr != CLI_EXIT_OK) {
                rc = lr;
                goto done;
            }
        } else if (cli_is(a, "--quiet") || cli_is(a, "-q")) {
            quiet = 1;
        } else if (cli_is(a, "--lora-gguf")) {
            lora_gguf = 1;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            usage(stdout);
            rc = CLI_EXIT_OK;
            goto done;
        } else if ((r = qcli_flag(&q, PROG, argc, argv, &i)) != 0) {
            if (r < 0) goto done;
            if (!qflag) qflag = a;
            if (!qflag_other && !cli_is(a, "--dry-run")) qflag_other = a;
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unexpected argument '%.200s'", a);
            rc = usage_error(msg);
            goto done;
        }
    }
    if (!in || !*in) {
        rc = usage_error("--from-gguf IN is required");
        goto done;
    }
    if (ptqtp_flag) {
        const char *conflict = dtype       ? "--dtype"
                               : preset    ? "--preset"
                               : adapters  ? "--adapters"
                               : alpha_s   ? "--alpha"
                               : lora_gguf ? "--lora-gguf"
                                           : qflag_other;
        char msg[256];
        if (conflict) {
            snprintf(msg, sizeof msg,
                     "%s cannot be combined with %.100s: PTQTP is its own mode (convert in a separate "
                     "pass)",
                     ptqtp_flag, conflict);
            rc = usage_error(msg);
            goto done;
        }
        int planes = 2;
        if (planes_s) {
            if (planes_s[0] < '1' || planes_s[0] > '3' || planes_s[1]) {
                snprintf(msg, sizeof msg, "--ptqtp takes 1, 2 or 3 planes, not '%.100s'", planes_s);
                rc = usage_error(msg);
                goto done;
            }
            planes = planes_s[0] - '0';
        }
        if (tie && planes < 2) {
            rc = usage_error("--ptqtp-tie locks the plane scales to the ratio 3, so it needs at least 2 planes");
            goto done;
        }
        if (!q.p.dry_run && (!out || !*out)) {
            rc = usage_error("--out OUT is required");
            goto done;
        }
        mio_ptqtp_params pp;
        mio_ptqtp_default_params(&pp);
        pp.planes = planes;
        pp.tie_scales = tie;
        pp.dry_run = q.p.dry_run;
        if (threads_s) {
            char *end = NULL;
            long n = strtol(threads_s, &end, 10);
            if (!*threads_s || *end || n < 0 || n > 256) {
                rc = usage_error("--threads takes a number from 0 to 256");
                goto done;
            }
            pp.n_threads = (int)n;
        }
        pp.include = (const char *const *)incl.v;
        pp.n_include = incl.n;
        pp.exclude = (const char *const *)excl.v;
        pp.n_exclude = excl.n;
        rc = run_ptqtp(in, out, &pp, quiet);
        goto done;
    }
    if (adapters || alpha_s || lora_gguf) {
        rc = run_lora(in, out, adapters, alpha_s, lora_gguf,
                      dtype       ? "--dtype"
                      : preset    ? "--preset"
                      : threads_s ? "--threads"
                                  : qflag,
                      quiet);
        goto done;
    }
    if (!q.p.dry_run && (!out || !*out)) {
        rc = usage_error("--out OUT is required");
        goto done;
    }
    if (dtype && preset) {
        rc = usage_error("--dtype and --preset cannot be used together");
        goto done;
    }
    if (threads_s) {
        char *end = NULL;
        long n = strtol(threads_s, &end, 10);
        if (!*threads_s || *end || n < 0 || n > 256) {
            rc = usage_error("--threads takes a number from 0 to 256");
            goto done;
        }
        q.p.n_threads = (int)n;
    } else if (!preset) {
        q.p.n_threads = 1;
    }
    char mode[96], label[64];
    snprintf(mode, sizeof mode, "--dtype verbatim");
    snprintf(label, sizeof label, "-");
    if (preset) {
        q.p.preset = mio_preset_from_name(preset);
        if (q.p.preset == MIO_PRESET_NONE) {
            qcli_unknown_preset(PROG, preset);
            goto done;
        }
        snprintf(mode, sizeof mode, "--preset %s", mio_preset_name(q.p.preset));
        snprintf(label, sizeof label, "%s", mio_preset_name(q.p.preset));
    } else if (dtype && !cli_is(dtype, "verbatim")) {
        int target = mio_type_from_name(dtype);
        if (target < 0 || target >= MIO_TYPE_GGML_COUNT || !mio_type_can_encode(target) ||
            mio_type_file_type(target) < 0) {
            fprintf(stderr, PROG ": --dtype %s: not a target type; use verbatim, f32, f16, bf16 or one of:", dtype);
            for (int t = 2; t < MIO_TYPE_GGML_COUNT; t++)
                if (t != MIO_TYPE_BF16 && mio_type_can_encode(t) && mio_type_file_type(t) >= 0)
                    fprintf(stderr, " %s", mio_type_name(t));
            if (target >= 0 && target < MIO_TYPE_GGML_COUNT && !mio_type_can_encode(target) &&
                mio_encode_f32(target, NULL, 0, NULL, 0) == MIO_ERR_ENCODER_UNAVAILABLE)
                fprintf(stderr, "\n  (%s)", mio_last_error());
            fputc('\n', stderr);
            goto done;
        }
        q.p.dtype = target;
        snprintf(mode, sizeof mode, "--dtype %s", dtype);
        snprintf(label, sizeof label, "%s", mio_type_name(target));
    }
    char prefix[4096];
    if (q.p.keep_split && out && cli_ends_with(out, ".gguf") && strlen(out) < sizeof prefix) {
        /* --keep-split: OUT names the prefix of the parts (OUT-0000K-of-0000N.gguf) */
        snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(out) - 5), out);
        out = prefix;
    }
    cli_install_signals(PROG);
    rc = qcli_run(&q, PROG, in, out, mode, label, quiet);
done:
    strlist_free(&incl);
    strlist_free(&excl);
    qcli_free(&q);
    return rc;
}
