/* SPDX-License-Identifier: MIT */
/* mio_quantize.c — mio-quantize: a drop-in for llama.cpp's llama-quantize
 * (same positional syntax, flags, default output name, exit statuses and output
 * bytes) over libmodelio's mio_quantize. Scripts swap the binary name and
 * nothing else. Flag parsing and reporting are shared with mio-export-gguf
 * (qcli.c). */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "qcli.h"

#define PROG "mio-quantize"

static void usage(FILE *o) {
    fprintf(o,
            "usage: " PROG " [--help] [--version] [--allow-requantize] [--leave-output-tensor] [--pure] [--imatrix F]\n"
            "       [--include-weights N] [--exclude-weights N] [--output-tensor-type T]\n"
            "       [--token-embedding-type T] [--tensor-type REGEX=T] [--tensor-type-file F]\n"
            "       [--prune-layers L,...] [--keep-split] [--override-kv KEY=TYPE:VALUE] [--dry-run]\n"
            "       [--experts-dtype T] [--quiet] model-f32.gguf [model-quant.gguf] TYPE [NTHREADS]\n"
            "\n"
            "  The llama-quantize replacement: the same arguments give the same output file, byte for\n"
            "  byte. Without model-quant.gguf the output is <dir of input>/ggml-model-TYPE.gguf.\n"
            "  NTHREADS defaults to one per core. A split input (name-00001-of-0000N.gguf) is read\n"
            "  across its parts. The output is written atomically; nothing is left on failure or\n"
            "  interruption.\n"
            "\n"
            "  --allow-requantize      allow quantizing tensors that are already quantized\n"
            "  --leave-output-tensor   output.weight keeps its type (larger, often better)\n"
            "  --pure                  every quantizable tensor gets TYPE's default type (no mixtures)\n"
            "  --imatrix F             importance matrix (legacy .dat or GGUF imatrix)\n"
            "  --include-weights N     use the imatrix only for tensor N (repeatable)\n"
            "  --exclude-weights N     do not use the imatrix for tensor N (repeatable)\n"
            "  --output-tensor-type T  type of output.weight\n"
            "  --token-embedding-type T type of token_embd.weight\n"
            "  --tensor-type REGEX=T   type of the tensors whose name matches REGEX (repeatable)\n"
            "  --tensor-type-file F    REGEX=T items separated by white space\n"
            "  --prune-layers L,...    drop these blocks (the others are renumbered)\n"
            "  --keep-split            write a split output with the parts of the input\n"
            "  --override-kv KEY=TYPE:VALUE  set metadata (TYPE int, float, bool, str)\n"
            "  --dry-run               print the per-tensor plan and sizes, write nothing\n"
            "  --experts-dtype T       type of the *_exps.weight expert tensors (may requantize)\n"
            "  --quiet                 no progress bar and no summary\n"
            "\n"
            "Allowed quantization types:\n");
    for (int p = 0; p < 64; p++)
        if (mio_preset_name(p)) fprintf(o, "  %2d  or  %s\n", p, mio_preset_name(p));
    fprintf(o, "exit status: 0 ok, 1 failure, usage error or --help (as llama-quantize)\n");
}

/* TYPE as llama-quantize accepts it: a name (any case) or the llama_ftype number. */
static int parse_type(const char *s) { return mio_preset_from_name(s); }

int main(int argc, char **argv) {
    if (argc == 2 && cli_is(argv[1], "--version")) return cli_version(PROG);
    qcli q;
    qcli_init(&q);
    int quiet = 0, rc = CLI_EXIT_FAIL, i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        int r;
        if (cli_is(argv[i], "--help")) {
            usage(stdout); /* exit 1, as llama-quantize does */
            goto done;
        } else if (cli_is(argv[i], "--quiet")) {
            quiet = 1;
        } else if ((r = qcli_flag(&q, PROG, argc, argv, &i)) != 0) {
            if (r < 0) goto done;
        } else {
            fprintf(stderr, PROG ": unknown argument '");
            cli_esc_str(stderr, argv[i]);
            fprintf(stderr, "'\n");
            usage(stderr);
            goto done;
        }
    }
    if (argc - i < 2) {
        usage(stderr);
        goto done;
    }
    const char *in = argv[i++];
    char out_buf[4096];
    const char *out;
    int preset = parse_type(argv[i]);
    if (preset != MIO_PRESET_NONE) {
        /* IN TYPE: the output goes next to the input as ggml-model-TYPE.gguf */
        const char *slash = strrchr(in, '/');
        int dirlen = slash ? (int)(slash - in + 1) : 0;
        snprintf(out_buf, sizeof out_buf, "%.*sggml-model-%s%s", dirlen, in, mio_preset_name(preset),
                 q.p.keep_split ? "" : ".gguf");
        out = out_buf;
        i++;
    } else {
        out = argv[i++];
        /* --keep-split: OUT is the prefix of the parts; like llama-quantize, a name
         * containing ".gguf" loses its last 5 characters */
        if (q.p.keep_split && strstr(out, ".gguf") && strlen(out) >= 5 && strlen(out) - 5 < sizeof out_buf) {
            snprintf(out_buf, sizeof out_buf, "%.*s", (int)(strlen(out) - 5), out);
            out = out_buf;
        }
        if (i >= argc) {
            fprintf(stderr, PROG ": missing TYPE\n");
            usage(stderr);
            goto done;
        }
        preset = parse_type(argv[i]);
        if (preset == MIO_PRESET_NONE) {
            if (strcmp(argv[i], "COPY") == 0 || strcmp(argv[i], "copy") == 0)
                fprintf(stderr, PROG ": COPY is not supported; to copy a model use mio-export-gguf (verbatim)\n");
            else
                qcli_unknown_preset(PROG, argv[i]);
            goto done;
        }
        i++;
    }
    if (i < argc) {
        char *end = NULL;
        long n = strtol(argv[i], &end, 10);
        if (!*argv[i] || *end || n < 0 || n > 1024) {
            fprintf(stderr, PROG ": invalid NTHREADS '");
            cli_esc_str(stderr, argv[i]);
            fprintf(stderr, "'\n");
            goto done;
        }
        q.p.n_threads = (int)n;
        i++;
    }
    if (i < argc) {
        fprintf(stderr, PROG ": unexpected argument '");
        cli_esc_str(stderr, argv[i]);
        fprintf(stderr, "'\n");
        usage(stderr);
        goto done;
    }
    q.p.preset = preset;
    q.tensor_log = 1; /* like llama-quantize: a line per tensor */
    char mode[64];
    snprintf(mode, sizeof mode, "%s", mio_preset_name(preset));
    cli_install_signals(PROG);
    rc = qcli_run(&q, PROG, in, q.p.dry_run ? NULL : out, mode, mode, quiet);
    if (rc == CLI_EXIT_USAGE) rc = CLI_EXIT_FAIL; /* llama-quantize exits 1 for every failure */
done:
    qcli_free(&q);
    return rc;
}
