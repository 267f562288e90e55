/* SPDX-License-Identifier: MIT */
/* mio_convert_hf.c — mio-convert-hf: a Hugging Face checkpoint directory to
 * GGUF over libmodelio's mio_hf_convert, with convert_hf_to_gguf.py's own
 * arguments and defaults (scripts swap the command and nothing else), plus
 * --outtype with any llama-quantize preset (one pass, the quantizer flags of
 * mio-quantize), --pre, --threads, a progress bar and a summary line. This file
 * parses and prints only. */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>
#include <modelio_inspect.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "qcli.h"

#define PROG "mio-convert-hf"

static void usage(FILE *o) {
    fprintf(o, "usage: " PROG
               " [--help] [--version] [--list-architectures] [--outfile PATH] [--outtype TYPE] [--vocab-only]\n"
               "       [--split-max-tensors N] [--split-max-size N[K|M|G]] [--no-tensor-first-split] [--dry-run]\n"
               "       [--model-name NAME] [--pre NAME] [--threads N] [--quiet] [quantizer flags]\n"
               "       [--remote] [--stream] MODEL_DIR | hf://ORG/REPO[@REV]\n"
               "\n"
               "  Convert a Hugging Face checkpoint directory (config.json, model.safetensors or sharded\n"
               "  model-*.safetensors + model.safetensors.index.json, tokenizer files) to GGUF: the same file\n"
               "  as llama.cpp's convert_hf_to_gguf.py with the same arguments (docs/HF_CONVERT.md).\n"
               "  hf://ORG/REPO[@REV] (or --remote ORG/REPO) converts a checkpoint on the Hugging Face Hub:\n"
               "  only the files the conversion reads are fetched, into huggingface_hub's cache (resumable,\n"
               "  verified, reused); general.name is the repo id; the default file is ./ORG-REPO-{ftype}.gguf\n"
               "  (docs/HUB.md).\n"
               "\n"
               "  --list-architectures    the model classes (config.json \"architectures\") converted, each with\n"
               "                          the general.architecture it becomes; then exit\n"
               "  --outfile PATH          output file ({ftype} is replaced by the type), or a directory for\n"
               "                          the default name; default: the default name in MODEL_DIR\n"
               "  --outtype TYPE          f32, f16, bf16, q8_0, tq1_0, tq2_0, auto (default: bf16 or f16 by\n"
               "                          the weights), or a llama-quantize preset (Q4_K_M, IQ4_XS, ...): the\n"
               "                          file --outtype auto + llama-quantize would give, in one command\n"
               "  --vocab-only            write the metadata and tokenizer only\n"
               "  --split-max-tensors N   at most N tensors a file (NAME-0000K-of-0000N.gguf)\n"
               "  --split-max-size N      at most N bytes of tensors a file (suffix K, M, G: powers of 1000)\n"
               "  --no-tensor-first-split the first file holds the metadata only\n"
               "  --dry-run               print the files and tensors that would be written, write nothing\n"
               "  --model-name NAME       general.name\n"
               "  --pre NAME              tokenizer.ggml.pre to write instead of the detected one\n"
               "  --threads N             worker threads (default: one per core)\n"
               "  --quiet                 no progress bar and no summary\n"
               "  --remote                MODEL is a Hub repo id, ORG/REPO (convert_hf_to_gguf.py's flag)\n"
               "  --stream                a Hub checkpoint's safetensors are read with range requests and not\n"
               "                          stored (default: pulled into the cache first)\n"
               "  quantizer flags (with a preset): --imatrix F, --include-weights N, --exclude-weights N,\n"
               "  --output-tensor-type T, --token-embedding-type T, --tensor-type REGEX=T, --tensor-type-file F,\n"
               "  --leave-output-tensor, --allow-requantize, --pure, --override-kv KEY=TYPE:VALUE,\n"
               "  --prune-layers L,..., --experts-dtype T (as mio-quantize)\n"
               "  accepted and ignored (convert_hf_to_gguf.py's memory knobs): --use-temp-file, --no-lazy, --verbose\n"
               "\n"
               "exit status: 0 ok, 1 failure, 2 usage error\n");
}

/* convert_hf_to_gguf.py's split_str_to_n_bytes: digits, optionally K/M/G (x1000). */
static int parse_size(const char *s, uint64_t *out) {
    size_t n = strlen(s);
    uint64_t mul = 1;
    if (n && (s[n - 1] == 'K' || s[n - 1] == 'M' || s[n - 1] == 'G')) {
        mul = s[n - 1] == 'K' ? 1000u : s[n - 1] == 'M' ? 1000000u : 1000000000u;
        n--;
    }
    if (n == 0 || n > 19) return -1;
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9') return -1;
        v = v * 10 + (uint64_t)(s[k] - '0');
    }
    if (v > UINT64_MAX / mul) return -1;
    *out = v * mul;
    return 0;
}

static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

typedef struct run {
    int quiet, dry_run, bar;
    double t0, last;
    uint64_t bytes_total;
    uint64_t bytes_in; /* the source tensors' bytes: what the conversion reads */
    int64_t n_tensors;
    int n_files;
    char **paths; /* each output file (the summary adds their sizes) */
} run;

static void on_file(void *user, const mio_hf_file *f) {
    run *r = user;
    if (!r->paths && f->count) r->paths = calloc(f->count, sizeof *r->paths);
    if (r->paths && f->index < f->count && !r->paths[f->index]) r->paths[f->index] = strdup(f->path);
    r->n_files = (int)f->count;
    if (r->dry_run) {
        /* as the reference: the file names on standard output */
        cli_esc_str(stdout, f->path);
        printf("\n");
        char h[32];
        fprintf(stderr, "%s: n_tensors = %lld, total_size = %s\n", f->path, (long long)f->n_tensors,
                mio_format_size(h, sizeof h, f->tensor_bytes));
    }
}

static void on_tensor(void *user, const mio_hf_tensor *t) {
    run *r = user;
    r->bytes_total += t->nbytes;
    if (*t->source) {
        uint64_t n = 1;
        for (uint32_t k = 0; k < t->n_dims; k++) n *= (uint64_t)t->ne[k];
        r->bytes_in += n * mio_st_dtype_bits(t->source_dtype) / 8;
    }
    r->n_tensors++;
    if (!r->dry_run) return;
    fprintf(stderr, "%-32s %-5s --> %-6s {", t->name, *t->source ? mio_st_dtype_name(t->source_dtype) : "-",
            mio_type_name(t->type));
    for (uint32_t k = 0; k < t->n_dims; k++) fprintf(stderr, "%s%lld", k ? ", " : "", (long long)t->ne[k]);
    fprintf(stderr, "}%s\n", t->permuted ? " (q/k rows permuted)" : "");
}

static int on_progress(void *user, int64_t done, int64_t total, uint64_t bytes, uint64_t bytes_total) {
    run *r = user;
    if (r->bar) cli_progress_line(&r->last, r->t0, done, total, bytes, bytes_total, NULL, 0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && cli_is(argv[1], "--version")) return cli_version(PROG);
    qcli q;
    qcli_init(&q);
    mio_hf_params p;
    mio_hf_default_params(&p);
    run r = {0};
    const char *outfile = NULL, *model = NULL, *v;
    const char *type_arg = "auto";
    int remote = 0, stream = 0;
    char *hub_uri = NULL;
    int rc = CLI_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long n;
        int k;
        if (cli_is(a, "--help") || cli_is(a, "-h")) {
            usage(stdout);
            rc = CLI_EXIT_OK;
            goto done;
        } else if (cli_is(a, "--list-architectures")) {
            const char *g;
            int width = 0; /* one column of class names, as wide as the longest */
            for (int j = 0; mio_hf_architecture(j, NULL); j++)
                if ((int)strlen(mio_hf_architecture(j, NULL)) > width)
                    width = (int)strlen(mio_hf_architecture(j, NULL));
            for (int j = 0; mio_hf_architecture(j, &g); j++)
                printf("%-*s  %s\n", width, mio_hf_architecture(j, NULL), g);
            rc = CLI_EXIT_OK;
            goto done;
        } else if (cli_is(a, "--quiet")) {
            r.quiet = 1;
        } else if (cli_is(a, "--vocab-only")) {
            p.vocab_only = 1;
        } else if (cli_is(a, "--no-tensor-first-split")) {
            p.no_tensor_first_split = 1;
        } else if (cli_is(a, "--dry-run")) {
            p.dry_run = 1;
        } else if (cli_is(a, "--use-temp-file") || cli_is(a, "--no-lazy") || cli_is(a, "--verbose")) {
            /* the reference's memory and logging knobs: this converter streams anyway */
        } else if (cli_is(a, "--remote")) {
            remote = 1;
        } else if (cli_is(a, "--stream")) {
            stream = 1;
        } else if (cli_is(a, "--bigendian") || cli_is(a, "--mmproj") || cli_is(a, "--mistral-format") ||
                   cli_is(a, "--metadata")) {
            fprintf(stderr, PROG ": %s is not supported (docs/HF_CONVERT.md lists what is)\n", a);
            goto done;
        } else if ((k = cli_opt_value(argc, argv, &i, "--outfile", &v))) {
            if (k < 0) goto missing;
            outfile = v;
        } else if ((k = cli_opt_value(argc, argv, &i, "--outtype", &v))) {
            if (k < 0) goto missing;
            type_arg = v;
        } else if ((k = cli_opt_value(argc, argv, &i, "--split-max-tensors", &v))) {
            if (k < 0) goto missing;
            if (parse_int(v, 0, INT32_MAX, &n)) {
                fprintf(stderr, PROG ": invalid --split-max-tensors '%s' (a count)\n", v);
                goto done;
            }
            p.split_max_tensors = n;
        } else if ((k = cli_opt_value(argc, argv, &i, "--split-max-size", &v))) {
            if (k < 0) goto missing;
            if (parse_size(v, &p.split_max_bytes)) {
                fprintf(stderr, PROG ": invalid split size '%s', must be a number, optionally followed by K, M, or G\n",
                        v);
                goto done;
            }
        } else if ((k = cli_opt_value(argc, argv, &i, "--model-name", &v))) {
            if (k < 0) goto missing;
            p.model_name = v;
        } else if ((k = cli_opt_value(argc, argv, &i, "--pre", &v))) {
            if (k < 0) goto missing;
            p.pre = v;
        } else if ((k = cli_opt_value(argc, argv, &i, "--threads", &v))) {
            if (k < 0) goto missing;
            if (parse_int(v, 0, 1024, &n)) {
                fprintf(stderr, PROG ": invalid --threads '%s' (0..1024)\n", v);
                goto done;
            }
            p.n_threads = (int)n;
        } else if (a[0] == '-' && a[1] == '-') {
            int qr = qcli_flag(&q, PROG, argc, argv, &i);
            if (qr < 0) goto done;
            if (qr == 0) {
                fprintf(stderr, PROG ": unknown argument '");
                cli_esc_str(stderr, a);
                fprintf(stderr, "'\n");
                usage(stderr);
                goto done;
            }
        } else if (!model) {
            model = a;
        } else {
            fprintf(stderr, PROG ": unexpected argument '");
            cli_esc_str(stderr, a);
            fprintf(stderr, "'\n");
            goto done;
        }
        continue;
    missing:
        fprintf(stderr, PROG ": %s needs a value\n", a);
        goto done;
    }
    if (!model) {
        fprintf(stderr, PROG ": the following arguments are required: model\n");
        usage(stderr);
        goto done;
    }
    if (remote && strncmp(model, "hf://", 5) != 0) {
        /* --remote ORG/REPO, as the reference takes it */
        size_t n = strlen(model) + 6;
        hub_uri = malloc(n);
        if (!hub_uri) {
            fprintf(stderr, PROG ": out of memory\n");
            rc = CLI_EXIT_FAIL;
            goto done;
        }
        snprintf(hub_uri, n, "hf://%s", model);
        model = hub_uri;
    }
    if (stream && strncmp(model, "hf://", 5) != 0) {
        fprintf(stderr, PROG ": --stream applies to a checkpoint on the Hub (hf://ORG/REPO)\n");
        goto done;
    }
    static const struct {
        const char *name;
        int type;
    } k_out[] = {{"auto", MIO_HF_OUT_AUTO}, {"f32", MIO_TYPE_F32},   {"f16", MIO_TYPE_F16},
                 {"bf16", MIO_TYPE_BF16},   {"q8_0", MIO_TYPE_Q8_0}, {"tq1_0", MIO_TYPE_TQ1_0},
                 {"tq2_0", MIO_TYPE_TQ2_0}};
    int found = 0;
    for (size_t k = 0; k < sizeof k_out / sizeof k_out[0]; k++)
        if (strcmp(type_arg, k_out[k].name) == 0) p.outtype = k_out[k].type, found = 1;
    if (!found) {
        p.preset = mio_preset_from_name(type_arg);
        if (p.preset == MIO_PRESET_NONE) {
            fprintf(stderr, PROG ": --outtype '%s' is none of f32, f16, bf16, q8_0, tq1_0, tq2_0, auto; ", type_arg);
            qcli_unknown_preset(PROG, type_arg);
            goto done;
        }
        p.quantize = &q.p;
    }
    if (q.p.keep_split) {
        fprintf(stderr, PROG ": --keep-split has no meaning here; use --split-max-tensors / --split-max-size\n");
        goto done;
    }
    r.dry_run = p.dry_run;
    r.bar = !r.quiet && !p.dry_run && isatty(STDERR_FILENO);
    r.t0 = cli_now();
    p.file = on_file;
    p.file_user = &r;
    p.plan = on_tensor;
    p.plan_user = &r;
    p.progress = on_progress;
    p.progress_user = &r;
    cli_install_signals(PROG);
    char *written = NULL;
    mio_status st = strncmp(model, "hf://", 5) == 0
                        ? mio_hub_convert(model, outfile, &p, stream ? MIO_HUB_STREAM : 0, &written)
                        : mio_hf_convert(model, outfile, &p, &written);
    if (r.bar && r.last > 0) fputc('\n', stderr);
    cli_set_progress_line(0);
    if (st) {
        cli_report(PROG, model, mio_last_error());
        rc = st == MIO_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
        goto done;
    }
    rc = CLI_EXIT_OK;
    if (mio_last_warning()[0]) fprintf(stderr, "%s: warning: %s\n", PROG, mio_last_warning());
    if (!r.quiet && written) {
        double secs = cli_now() - r.t0;
        char a[32], h[32];
        uint64_t size;
        int64_t nkv;
        cli_written_gguf(written, 0, &size, &nkv);
        fprintf(stderr, "%s: wrote ", PROG);
        cli_esc_str(stderr, written);
        if (r.n_files > 1) fprintf(stderr, " (first of %d files)", r.n_files);
        fprintf(stderr, ": %lld %s", (long long)r.n_tensors, cli_plural((uint64_t)r.n_tensors, "tensor", "tensors"));
        if (nkv >= 0) fprintf(stderr, ", %lld %s", (long long)nkv, cli_plural((uint64_t)nkv, "key", "keys"));
        /* what was written (every part of a split output) and the rate over what was read */
        uint64_t out_bytes = size;
        for (int i = 1; r.paths && i < r.n_files; i++) {
            struct stat so;
            if (r.paths[i] && stat(r.paths[i], &so) == 0) out_bytes += (uint64_t)so.st_size;
        }
        char in[32];
        fprintf(stderr, "; %s in, %s out (%llu bytes, %s); %.3f s, %.1f MB/s; peak RSS %s\n",
                mio_format_size(in, sizeof in, r.bytes_in), mio_format_size(a, sizeof a, out_bytes),
                (unsigned long long)out_bytes, p.preset != MIO_PRESET_NONE ? mio_preset_name(p.preset) : type_arg, secs,
                secs > 0 ? (double)r.bytes_in / 1e6 / secs : 0.0, mio_format_size(h, sizeof h, cli_peak_rss()));
    }
    mio_free(written);
done:
    for (int i = 0; r.paths && i < r.n_files; i++) free(r.paths[i]);
    free(r.paths);
    free(hub_uri);
    qcli_free(&q);
    return rc;
}
