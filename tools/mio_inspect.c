/* SPDX-License-Identifier: MIT */
/* mio_inspect.c — mio-inspect: print what a GGUF or safetensors file (or a
 * sharded safetensors index) holds — summary, metadata, tensor table — for
 * humans, as one JSON object or as Markdown. The text comes from the library
 * (mio_describe_text / _json / _markdown, modelio_inspect.h); this file parses
 * the command line and prints it. */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>
#include <modelio_inspect.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect_estimate.h"
#include "inspect_ops.h"

#define PROG "mio-inspect"

static void usage(FILE *o) {
    fprintf(o, "usage: " PROG " FILE [--meta] [--tensors] [--json [--json-array] | --markdown] [--part]\n"
               "       " PROG " --version\n"
               "  Summarize a GGUF file (version, alignment, counts, offsets, per-type totals),\n"
               "  a safetensors file or a sharded safetensors index (model.safetensors.index.json:\n"
               "  header size, counts, per-dtype totals). The format is detected by content.\n"
               "  FILE may be remote: hf://ORG/REPO[@REV]/PATH on the Hugging Face Hub or an\n"
               "  http(s):// URL; only the header is fetched, with range requests (HF_ENDPOINT,\n"
               "  HF_TOKEN, HF_HUB_OFFLINE as huggingface_hub reads them; docs/HUB.md).\n"
               "  --meta     list every metadata key with its type and value\n"
               "  --tensors  list every tensor: name, shape, type, offsets, bytes\n"
               "  --json     print one JSON object with everything instead (schema: docs/TOOLS.md);\n"
               "             arrays over 64 elements are given as count + \"truncated\": true\n"
               "  --json-array  like --json, with every array in full\n"
               "  --markdown print Markdown tables instead: metadata, tensors grouped by block\n"
               "             (blk.N / layers.N / h.N ...), elements and bits per weight per group\n"
               "  A GGUF split model (name-00001-of-0000N.gguf) is shown whole: all its parts are read;\n"
               "  given a later part, the first part is named instead.\n"
               "  --part     GGUF only: show this one file of a split model on its own\n"
               "  --splits   accepted for compatibility (following the parts is the default)\n"
               "exit status: 0 ok, 1 unreadable or invalid file, 2 usage error\n"
               "\n"
               "       " PROG " --hash xxh64|xxh3|sha256 FILE > MANIFEST   per-tensor + whole-model hashes\n"
               "       " PROG " --check MANIFEST FILE   verify FILE against a --hash manifest\n"
               "       " PROG " --stats [--json] FILE   per tensor min/max/mean/std, NaN/inf, zeros\n"
               "       " PROG " --diff A B              metadata and tensor differences (0 same, 1 differ, 2 error)\n"
               "       " PROG " --verify FILE           read every tensor byte, report damage\n"
               "  These work on GGUF (split: all parts), safetensors and *.index.json alike.\n");
}

/* ------------------------------------------------------------------------- */
/* Scalar values as text                                                      */
/* ------------------------------------------------------------------------- */

/* Print the library's text, or report its failure. */
static int put(mio_status st, const char *path, char *text, size_t len) {
    if (st != MIO_OK) {
        cli_report(PROG, path, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    fwrite(text, 1, len, stdout);
    mio_free(text);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc == 2 && cli_is(argv[1], "--version")) return cli_version(PROG);
    if (inspect_ops_wanted(argc, argv)) return inspect_ops_main(argc, argv);
    if (inspect_estimate_wanted(argc, argv)) return inspect_estimate_main(argc, argv);
    const char *path = NULL;
    int meta = 0, tensors = 0, json = 0, markdown = 0, one_part = 0, full_arrays = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is(a, "--meta")) {
            meta = 1;
        } else if (cli_is(a, "--tensors")) {
            tensors = 1;
        } else if (cli_is(a, "--json")) {
            json = 1;
        } else if (cli_is(a, "--json-array")) {
            json = 1;
            full_arrays = 1;
        } else if (cli_is(a, "--markdown")) {
            markdown = 1;
        } else if (cli_is(a, "--splits")) {
            one_part = 0;
        } else if (cli_is(a, "--part")) {
            one_part = 1;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(a, "--")) {
            if (i + 2 != argc || path) {
                usage(stderr);
                return CLI_EXIT_USAGE;
            }
            path = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, PROG ": unknown option '%s'\n", a);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, PROG ": only one FILE may be given\n");
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, PROG ": no FILE given\n");
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (json && markdown) {
        fprintf(stderr, PROG ": --json and --markdown are two output formats; give one\n");
        return CLI_EXIT_USAGE;
    }

    mio_format fmt = mio_detect_format(path);
    if ((fmt == MIO_FORMAT_SAFETENSORS || fmt == MIO_FORMAT_ST_INDEX) && one_part) {
        fprintf(stderr, PROG ": --part applies to GGUF files only; a safetensors shard file can be given "
                             "directly\n");
        return CLI_EXIT_USAGE;
    }
    unsigned flags = (one_part ? MIO_DESCRIBE_ONE_PART : 0) | (full_arrays ? MIO_DESCRIBE_FULL_ARRAYS : 0) |
                     (meta ? MIO_DESCRIBE_META : 0) | (tensors ? MIO_DESCRIBE_TENSORS : 0);
    char *text = NULL;
    size_t len = 0;
    mio_status st = json       ? mio_describe_json(path, flags, &text, &len)
                    : markdown ? mio_describe_markdown(path, flags, &text, &len)
                               : mio_describe_text(path, flags, &text, &len);
    return put(st, path, text, len);
}
