/* SPDX-License-Identifier: MIT */
/* inspect_estimate.c — mio-inspect --estimate [--ctx N] [--cache-type-k T]
 * [--cache-type-v T] [--flash-attn auto|on|off] [--batch N] [--ubatch N]
 * [--parallel N] [--swa-full on|off] [--json] FILE: option parsing and printing
 * around mio_estimate. */
#include "inspect_estimate.h"

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <modelio_inspect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "mio-inspect"

int inspect_estimate_wanted(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return 0;
        if (strcmp(argv[i], "--estimate") == 0) return 1;
    }
    return 0;
}

static int parse_u32(const char *opt, const char *v, uint32_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || x > UINT32_MAX || v[0] == '-') {
        fprintf(stderr, PROG ": %s: '", opt);
        cli_esc_str(stderr, v);
        fprintf(stderr, "' is not a number\n");
        return 0;
    }
    *out = (uint32_t)x;
    return 1;
}

static int parse_type(const char *opt, const char *v, int *out) {
    int t = mio_type_from_name(v);
    if (t < 0) {
        fprintf(stderr, PROG ": %s: unknown cache type '", opt);
        cli_esc_str(stderr, v);
        fprintf(stderr, "' (f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)\n");
        return 0;
    }
    *out = t;
    return 1;
}

static void usage(FILE *o) {
    fprintf(o, "usage: " PROG " --estimate [--ctx N] [--cache-type-k T] [--cache-type-v T] [--flash-attn auto|on|off]\n"
               "                   [--batch N] [--ubatch N] [--parallel N] [--swa-full on|off] [--json] FILE\n"
               "  The memory llama.cpp's CPU back end needs for the GGUF model FILE with a context\n"
               "  made from llama_context_default_params() and these options (docs/ESTIMATE.md):\n"
               "  weights (mapped), KV cache, compute buffer, output buffer and their total.\n"
               "  --ctx N            context length (512; 0 = the model's context_length)\n"
               "  --cache-type-k T   K cache type (f16)\n"
               "  --cache-type-v T   V cache type (f16); quantized needs flash attention\n"
               "  --flash-attn M     auto (default: on with the CPU back end), on or off\n"
               "  --batch N          logical batch (2048)\n"
               "  --ubatch N         physical batch (512)\n"
               "  --parallel N       sequences (1)\n"
               "  --swa-full on|off  full-size cache for sliding-window layers (on)\n"
               "  --json             one JSON object instead\n");
}

static void line(const char *what, uint64_t b) {
    printf("%-10s %12.2f MiB  %15" PRIu64 " bytes\n", what, (double)b / 1048576.0, b);
}

int inspect_estimate_main(int argc, char **argv) {
    mio_estimate_params p;
    mio_estimate_default_params(&p);
    const char *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (cli_is(a, "--estimate")) continue;
        if (cli_is(a, "--json")) {
            json = 1;
            continue;
        }
        if (cli_is(a, "-h") || cli_is(a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--ctx", &v)) != 0) {
            if (r < 0 || !parse_u32("--ctx", v, &p.n_ctx)) goto bad;
        } else if ((r = cli_opt_value(argc, argv, &i, "--batch", &v)) != 0) {
            if (r < 0 || !parse_u32("--batch", v, &p.n_batch)) goto bad;
        } else if ((r = cli_opt_value(argc, argv, &i, "--ubatch", &v)) != 0) {
            if (r < 0 || !parse_u32("--ubatch", v, &p.n_ubatch)) goto bad;
        } else if ((r = cli_opt_value(argc, argv, &i, "--parallel", &v)) != 0) {
            if (r < 0 || !parse_u32("--parallel", v, &p.n_seq_max)) goto bad;
        } else if ((r = cli_opt_value(argc, argv, &i, "--cache-type-k", &v)) != 0) {
            if (r < 0 || !parse_type("--cache-type-k", v, &p.type_k)) goto bad;
        } else if ((r = cli_opt_value(argc, argv, &i, "--cache-type-v", &v)) != 0) {
            if (r < 0 || !parse_type("--cache-type-v", v, &p.type_v)) goto bad;
        } else if ((r = cli_opt_value(argc, argv, &i, "--flash-attn", &v)) != 0) {
            if (r < 0) goto bad;
            if (strcmp(v, "auto") == 0)
                p.flash_attn = MIO_FLASH_ATTN_AUTO;
            else if (strcmp(v, "on") == 0)
                p.flash_attn = MIO_FLASH_ATTN_ON;
            else if (strcmp(v, "off") == 0)
                p.flash_attn = MIO_FLASH_ATTN_OFF;
            else {
                fprintf(stderr, PROG ": --flash-attn: auto, on or off\n");
                goto bad;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "--swa-full", &v)) != 0) {
            if (r < 0 || (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)) {
                fprintf(stderr, PROG ": --swa-full: on or off\n");
                goto bad;
            }
            p.swa_full = strcmp(v, "on") == 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, PROG ": --estimate: unknown option '");
            cli_esc_str(stderr, a);
            fprintf(stderr, "'\n");
            goto bad;
        } else if (path) {
            fprintf(stderr, PROG ": --estimate takes one FILE\n");
            goto bad;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, PROG ": --estimate: no FILE given\n");
        goto bad;
    }
    mio_estimate_result e;
    mio_status st = mio_estimate(path, &p, &e);
    if (st) {
        cli_report(PROG, path, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    const char *tk = mio_type_name(e.type_k), *tv = mio_type_name(e.type_v);
    if (json) {
        char *arch = mio_json_quote(e.arch, strlen(e.arch));
        printf("{\"arch\": %s, \"n_ctx\": %u, \"n_ctx_seq\": %u, \"n_batch\": %u, \"n_ubatch\": %u, "
               "\"n_seq_max\": %u, \"n_layer\": %u, \"n_layer_kv\": %u, \"n_layer_swa\": %u, \"n_swa\": %u, "
               "\"kv_size\": %u, \"kv_size_swa\": %u, \"flash_attn\": %s, \"cache_type_k\": \"%s\", "
               "\"cache_type_v\": \"%s\", \"weights_bytes\": %" PRIu64 ", \"kv_cache_bytes\": %" PRIu64
               ", \"k_bytes\": %" PRIu64 ", \"v_bytes\": %" PRIu64 ", \"compute_bytes\": %" PRIu64
               ", \"output_bytes\": %" PRIu64 ", \"total_bytes\": %" PRIu64 "}\n",
               arch ? arch : "null", e.n_ctx, e.n_ctx_seq, e.n_batch, e.n_ubatch, e.n_seq_max, e.n_layer, e.n_layer_kv,
               e.n_layer_swa, e.n_swa, e.kv_size, e.kv_size_swa, e.flash_attn == MIO_FLASH_ATTN_ON ? "true" : "false",
               tk ? tk : "?", tv ? tv : "?", e.weights_bytes, e.kv_cache_bytes, e.k_bytes, e.v_bytes, e.compute_bytes,
               e.output_bytes, e.total_bytes);
        mio_free(arch);
        return CLI_EXIT_OK;
    }
    printf("model      ");
    cli_esc_str(stdout, e.arch);
    printf(", %u layers (%u sliding-window)\n", e.n_layer, e.n_layer_swa);
    printf("context    n_ctx %u (%u a sequence x %u), n_batch %u, n_ubatch %u, flash attention %s, K %s, V %s\n",
           e.n_ctx, e.n_ctx_seq, e.n_seq_max, e.n_batch, e.n_ubatch, e.flash_attn == MIO_FLASH_ATTN_ON ? "on" : "off",
           tk ? tk : "?", tv ? tv : "?");
    line("weights", e.weights_bytes);
    line("KV cache", e.kv_cache_bytes);
    line("compute", e.compute_bytes);
    line("output", e.output_bytes);
    line("total", e.total_bytes);
    return CLI_EXIT_OK;
bad:
    usage(stderr);
    return CLI_EXIT_USAGE;
}
