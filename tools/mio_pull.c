/* SPDX-License-Identifier: MIT */
/* mio-pull — a Hugging Face Hub repo (or one file of it) into huggingface_hub's
 * own cache (mio_hub_pull); prints the snapshot directory (or the file) last. */
#include "cli.h"

#include <modelio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "mio-pull"
#define MAX_PATTERNS 256

static void usage(FILE *o) {
    fprintf(o, "usage: " PROG " hf://ORG/REPO[@REV][/PATH] [--include GLOB]... [--exclude GLOB]...\n"
               "                [--cache-dir DIR] [--threads N] [--quiet]\n"
               "       " PROG " --version\n"
               "  Download a Hugging Face Hub repo at a revision (a branch, tag or commit;\n"
               "  default main), or one file of it, into huggingface_hub's cache, so that\n"
               "  Python's huggingface_hub finds it and files it already has are not fetched\n"
               "  again. Prints the snapshot directory (or the file) on standard output.\n"
               "  --include GLOB  only files matching a pattern (fnmatch; repeatable)\n"
               "  --exclude GLOB  not the files matching a pattern (repeatable)\n"
               "  --cache-dir DIR the cache (default HF_HUB_CACHE, else $HF_HOME/hub,\n"
               "                  else ~/.cache/huggingface/hub)\n"
               "  --threads N     files fetched at once (default 8)\n"
               "  --quiet         no progress bar\n"
               "  HF_ENDPOINT, HF_TOKEN (or the token file), HF_HUB_OFFLINE (no request: from\n"
               "  the cache only) and HF_HUB_DOWNLOAD_TIMEOUT are read as huggingface_hub\n"
               "  reads them. An interrupted download continues where it stopped; an LFS\n"
               "  file whose sha256 differs from its etag is refused (docs/HUB.md).\n"
               "exit status: 0 ok, 1 failed, 2 usage error\n");
}

typedef struct bar {
    int on;
    double last, t0;
} bar;

static int on_progress(void *user, int64_t done, int64_t total, uint64_t bytes, uint64_t bytes_total) {
    bar *b = user;
    if (b->on) cli_progress_line(&b->last, b->t0, done, total, bytes, bytes_total, NULL, 0);
    return 0;
}

int main(int argc, char **argv) {
    const char *uri = NULL, *cache = NULL;
    const char *inc[MAX_PATTERNS], *exc[MAX_PATTERNS];
    size_t n_inc = 0, n_exc = 0;
    int threads = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (cli_is(a, "--help") || cli_is(a, "-h")) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (cli_is(a, "--version")) return cli_version(PROG);
        if (cli_is(a, "--quiet") || cli_is(a, "-q")) {
            quiet = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--include", &v)) != 0 ||
                   (r = cli_opt_value(argc, argv, &i, "--exclude", &v)) != 0) {
            int is_inc = strncmp(a, "--include", 9) == 0;
            if (r < 0) {
                fprintf(stderr, PROG ": %s needs a pattern\n", is_inc ? "--include" : "--exclude");
                return CLI_EXIT_USAGE;
            }
            if ((is_inc ? n_inc : n_exc) >= MAX_PATTERNS) {
                fprintf(stderr, PROG ": more than %d patterns\n", MAX_PATTERNS);
                return CLI_EXIT_USAGE;
            }
            if (is_inc)
                inc[n_inc++] = v;
            else
                exc[n_exc++] = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--cache-dir", &v)) != 0) {
            if (r < 0) {
                fprintf(stderr, PROG ": --cache-dir needs a directory\n");
                return CLI_EXIT_USAGE;
            }
            cache = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--threads", &v)) != 0) {
            char *end = NULL;
            long n = r > 0 ? strtol(v, &end, 10) : 0;
            if (r < 0 || !end || *end || n < 1 || n > 64) {
                fprintf(stderr, PROG ": --threads needs a number from 1 to 64\n");
                return CLI_EXIT_USAGE;
            }
            threads = (int)n;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, PROG ": unknown option '%s'\n", a);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (uri) {
            fprintf(stderr, PROG ": only one repo may be given\n");
            return CLI_EXIT_USAGE;
        } else {
            uri = a;
        }
    }
    if (!uri) {
        fprintf(stderr, PROG ": no hf://ORG/REPO given\n");
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strncmp(uri, "hf://", 5) != 0) {
        fprintf(stderr, PROG ": '%s' is not an hf:// URI (hf://ORG/REPO[@REV][/PATH])\n", uri);
        return CLI_EXIT_USAGE;
    }
    cli_install_signals(PROG);
    bar b = {!quiet && isatty(STDERR_FILENO), 0, cli_now()};
    mio_hub_pull_params p;
    mio_hub_pull_default_params(&p);
    p.include = inc;
    p.n_include = n_inc;
    p.exclude = exc;
    p.n_exclude = n_exc;
    p.cache_dir = cache;
    p.n_threads = threads;
    p.progress = on_progress;
    p.progress_user = &b;
    char *out = NULL;
    mio_status st = mio_hub_pull(uri, &p, &out);
    if (b.on) {
        fputc('\n', stderr);
        cli_set_progress_line(0);
    }
    if (st != MIO_OK) {
        cli_report(PROG, uri, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    cli_esc_str(stdout, out);
    fputc('\n', stdout);
    mio_free(out);
    return CLI_EXIT_OK;
}
