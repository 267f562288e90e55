/* SPDX-License-Identifier: MIT */
/* mio_export_gguf.c — mio-export-gguf: re-emit a GGUF file through libmodelio's
 * quantizer (mio_quantize): verbatim, transcoding the matrix weights to one type
 * (--dtype, the conservative seed policy), or with a llama.cpp preset (--preset,
 * byte-identical to llama-quantize). The policy lives in the library; this
 * parses flags and prints (qcli.c). Verbatim output is byte-identical to a v3
 * input whose padding is zero. --adapters merges a LoRA adapter (mio_lora_merge)
 * or, with --lora-gguf, converts it to a llama.cpp adapter (mio_lora_to_gguf). */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "qcli.h"

#define PROG "mio-export-gguf"

static void usage(FILE *o) {
    fprintf(o,
            "usage: " PROG " --from-gguf IN --out OUT [--dtype MODE | --preset NAME] [flags]\n"
            "       " PROG " --from-gguf BASE --out OUT --adapters PATH [--alpha F] [--lora-gguf]\n"
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
            "                 (load it with llama-cli --lora OUT); any BASE tensor types\n"
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
        snprintf(msg, sizeof msg, "--adapters cannot be combined with %.100s in one run: merge on a float base, then "
                 "quantize the merged file in a second pass", conflict);
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
        fputs(PROG ": ", stderr);   /* library messages name the base or the adapter path themselves */
        cli_esc_str(stderr, mio_last_error());
        fputc('\n', stderr);
        return st == MIO_ERR_INVALID_ARG && strstr(mio_last_error(), "one of the input files") ? CLI_EXIT_USAGE
                                                                                                : CLI_EXIT_FAIL;
    }
    if (!quiet) {
        char r[64], sc[96];
        if (t.rank_min == t.rank_max) snprintf(r, sizeof r, "rank %lld", (long long)t.rank_min);
        else snprintf(r, sizeof r, "ranks %lld..%lld", (long long)t.rank_min, (long long)t.rank_max);
        if (t.scale_min == t.scale_max) snprintf(sc, sizeof sc, "scale %g", t.scale_min);
        else snprintf(sc, sizeof sc, "scales %g..%g", t.scale_min, t.scale_max);
        fprintf(stderr, PROG ": wrote ");
        cli_esc_str(stderr, to_stdout ? "standard output" : out);
        if (lora_gguf)
            fprintf(stderr, ": llama.cpp LoRA adapter, %lld %s (%s, %s), adapter.lora.alpha = %g%s",
                    (long long)t.n, cli_plural((uint64_t)t.n, "module", "modules"), r, sc, (double)t.gguf_alpha,
                    t.folded ? "; other scales folded into lora_b" : "");
        else
            fprintf(stderr, ": merged %lld LoRA %s (%s, %s)", (long long)t.n, cli_plural((uint64_t)t.n, "module", "modules"),
                    r, sc);
        if (t.permuted) fprintf(stderr, "; q/k rows permuted in %lld", (long long)t.permuted);
        fputc('\n', stderr);
    }
    return CLI_EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc == 2 && cli_is(argv[1], "--version"))
        return cli_version(PROG);
    const char *in = NULL, *out = NULL, *dtype = NULL, *preset = NULL, *threads_s = NULL;
    const char *adapters = NULL, *alpha_s = NULL, *qflag = NULL;
    int quiet = 0, lora_gguf = 0;
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
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unexpected argument '%.200s'", a);
            rc = usage_error(msg);
            goto done;
        }
    }
    if (!in || !*in) { rc = usage_error("--from-gguf IN is required"); goto done; }
    if (adapters || alpha_s || lora_gguf) {
        rc = run_lora(in, out, adapters, alpha_s, lora_gguf, dtype ? "--dtype" : preset ? "--preset" : threads_s ? "--threads" : qflag,
                      quiet);
        goto done;
    }
    if (!q.p.dry_run && (!out || !*out)) { rc = usage_error("--out OUT is required"); goto done; }
    if (dtype && preset) { rc = usage_error("--dtype and --preset cannot be used together"); goto done; }
    if (threads_s) {
        char *end = NULL;
        long n = strtol(threads_s, &end, 10);
        if (!*threads_s || *end || n < 0 || n > 256) { rc = usage_error("--threads takes a number from 0 to 256"); goto done; }
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
        if (target < 0 || target >= MIO_TYPE_GGML_COUNT || !mio_type_can_encode(target) || mio_type_file_type(target) < 0) {
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
    qcli_free(&q);
    return rc;
}
