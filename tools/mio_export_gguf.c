/* mio_export_gguf.c — mio-export-gguf: re-emit a GGUF file through the streaming
 * writer (verbatim mode): every key copied with its wire type, every tensor
 * streamed one at a time with bounded memory; output byte-identical to a v3 input. */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define PROG "mio-export-gguf"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: " PROG " --from-gguf IN --out OUT [--dtype verbatim] [--quiet]\n"
            "  Copy the GGUF file IN to OUT through libmodelio's streaming writer: all\n"
            "  metadata verbatim (exact wire types), every tensor verbatim, streamed one at\n"
            "  a time. The output is written atomically (nothing is left on failure) and is\n"
            "  byte-identical to a valid GGUF v3 input.\n"
            "  --dtype verbatim  keep every tensor's type (the only mode in this version)\n"
            "  --quiet           no progress and no summary line\n"
            "exit status: 0 ok, 1 failure (library message on stderr), 2 usage error\n");
}

static int usage_error(const char *msg)
{
    fprintf(stderr, PROG ": %s\n", msg);
    usage(stderr);
    return CLI_EXIT_USAGE;
}

/* 1 if a and b name the same file (same path, or same device and inode). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void progress(int64_t done, int64_t total, uint64_t bytes, uint64_t total_bytes)
{
    char a[32], b[32];
    fprintf(stderr, "\r" PROG ": tensor %" PRId64 "/%" PRId64 ", %s / %s   ", done, total,
            cli_human_size(a, sizeof a, bytes), cli_human_size(b, sizeof b, total_bytes));
    fflush(stderr);
}

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *dtype = "verbatim";
    int quiet = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--from-gguf", &in)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--out", &out)) != 0 ||
            (r = cli_opt_value(argc, argv, &i, "--dtype", &dtype)) != 0) {
            if (r < 0) {
                char msg[128];
                snprintf(msg, sizeof msg, "option '%s' needs a value", a);
                return usage_error(msg);
            }
        } else if (cli_is(a, "--quiet") || cli_is(a, "-q")) {
            quiet = 1;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unexpected argument '%.200s'", a);
            return usage_error(msg);
        }
    }
    if (!in || !*in)
        return usage_error("--from-gguf IN is required");
    if (!out || !*out)
        return usage_error("--out OUT is required");
    if (!cli_is(dtype, "verbatim")) {
        fprintf(stderr, PROG ": --dtype %s: only verbatim is supported in this version\n", dtype);
        return CLI_EXIT_USAGE;
    }
    if (same_file(in, out)) {
        fprintf(stderr, PROG ": --out %s is the input file; refusing to overwrite it\n", out);
        return CLI_EXIT_USAGE;
    }

    double t0 = cli_now();
    int show_progress = !quiet && isatty(STDERR_FILENO);
    mio_gguf_file *f = NULL;
    mio_writer *w = NULL;
    const char *where = in;
    mio_status st = mio_gguf_open(in, MIO_OPEN_MMAP, &f);
    if (st != MIO_OK)
        goto fail;

    int64_t nt = mio_gguf_tensor_count(f);
    uint64_t total_bytes = 0, done_bytes = 0;
    /* gguf-py ends a tensor-less file right after the header; ggml pads it. */
    uint32_t wflags = (nt == 0 && mio_gguf_file_size(f) == mio_gguf_header_size(f)) ? MIO_WRITER_NO_EMPTY_PAD
                                                                                     : MIO_WRITER_DEFAULT;
    where = out;
    if ((st = mio_writer_new(wflags, &w)) != MIO_OK)
        goto fail;
    if ((st = mio_writer_copy_all_kv(w, f, NULL, 0)) != MIO_OK)
        goto fail;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        char name[256];
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK)
            goto fail;
        if (t.name.len >= sizeof name || memchr(t.name.ptr, '\0', t.name.len)) {
            fprintf(stderr, PROG ": %s: tensor %" PRId64 ": name cannot be copied (NUL byte or too long)\n", in, i);
            mio_writer_free(w);
            mio_gguf_close(f);
            return CLI_EXIT_FAIL;
        }
        memcpy(name, t.name.ptr, t.name.len);
        name[t.name.len] = '\0';
        if ((st = mio_writer_declare_tensor(w, name, t.type, t.n_dims, t.ne)) != MIO_OK)
            goto fail;
        total_bytes += t.nbytes;
    }

    if ((st = mio_writer_begin_file(w, out)) != MIO_OK)
        goto fail;
    double last = 0.0;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK)
            goto fail;
        if (t.nbytes > SIZE_MAX) {
            fprintf(stderr, PROG ": %s: tensor %" PRId64 " is larger than the address space\n", in, i);
            mio_writer_free(w);
            mio_gguf_close(f);
            return CLI_EXIT_FAIL;
        }
        mio_prefetch(f, t.data, (size_t)t.nbytes);
        st = mio_writer_write_tensor(w, t.data, (size_t)t.nbytes);
        mio_release(f, t.data, (size_t)t.nbytes);
        if (st != MIO_OK)
            goto fail;
        done_bytes += t.nbytes;
        if (show_progress) {
            double now = cli_now();
            if (now - last >= 0.1 || i + 1 == nt) {
                progress(i + 1, nt, done_bytes, total_bytes);
                last = now;
            }
        }
    }
    if ((st = mio_writer_finish(w)) != MIO_OK)
        goto fail;
    if (show_progress && nt > 0)
        fputc('\n', stderr);

    int64_t nkv = mio_writer_kv_count(w);
    uint64_t in_size = mio_gguf_file_size(f);
    uint32_t in_version = mio_gguf_version(f);
    mio_writer_free(w);
    mio_gguf_close(f);

    struct stat so;
    uint64_t out_size = stat(out, &so) == 0 ? (uint64_t)so.st_size : 0;
    if (!quiet) {
        char hs[32];
        fprintf(stderr, PROG ": wrote %s: %" PRId64 " tensors, %" PRId64 " keys, %" PRIu64 " bytes (%s) in %.3f s\n",
                out, nt, nkv, out_size, cli_human_size(hs, sizeof hs, out_size), cli_now() - t0);
        if (out_size != in_size || in_version != 3)
            fprintf(stderr, PROG ": note: input was GGUF v%" PRIu32 " of %" PRIu64 " bytes; the output is v3 "
                            "of %" PRIu64 " bytes (re-emitted, not byte-identical)\n",
                    in_version, in_size, out_size);
    }
    return CLI_EXIT_OK;

fail:
    if (show_progress)
        fputc('\n', stderr);
    cli_report(PROG, where, mio_last_error());
    if (w)
        mio_writer_free(w); /* removes the temp file of an unfinished stream */
    if (f)
        mio_gguf_close(f);
    return CLI_EXIT_FAIL;
}
