/* mio_transcode.c — mio-transcode IN OUT: convert between model file formats.
 * First mode: safetensors (a file, or a sharded checkpoint's .index.json) ->
 * one safetensors file in upstream's canonical form, written atomically. */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "kvedit.h"

#define PROG "mio-transcode"
#define CONVERSIONS "supported conversions: safetensors (file or .index.json) -> safetensors; GGUF (a file or\n  the first part of a split) -> GGUF; GGUF -> split GGUF parts"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: " PROG " [--quiet] IN OUT\n"
            "       " PROG " [--quiet] [--dry-run] [--no-tensor-first-split]\n"
            "              (--split-max-tensors N | --split-max-size N{M,G}) IN.gguf PREFIX\n"
            "       " PROG " [--quiet] EDITS.. IN.gguf OUT.gguf | --in-place EDITS.. FILE.gguf\n"
            "  Convert the model file IN to OUT. The input format is detected by content.\n"
            "  " CONVERSIONS ".\n"
            "  safetensors -> safetensors re-serializes in upstream's canonical form (dtype\n"
            "  order, compact JSON, space padding): a file written by the safetensors library\n"
            "  comes out byte-identical; a sharded checkpoint (model.safetensors.index.json)\n"
            "  is merged into one file. OUT is written atomically (nothing is left on failure or\n"
            "  interruption: SIGINT/SIGTERM exit 130/143). OUT may not be one of the input files\n"
            "  (the index or a shard), a device, a FIFO or a directory; '-' (or /dev/stdout)\n"
            "  streams the file to standard output, which must not be a terminal.\n"
            "  GGUF -> GGUF (OUT ends in .gguf) copies the model verbatim; given the first part of\n"
            "  a split (PREFIX-00001-of-0000N.gguf) it merges every part into OUT (split.* dropped).\n"
            "  Splitting (llama.cpp gguf-split --split): IN becomes PREFIX-00001-of-0000N.gguf ..;\n"
            "  part 1 carries all metadata, every part split.no/split.tensors.count/split.count.\n"
            "  --split-max-tensors N  at most N tensors a part\n"
            "  --split-max-size N{M,G}  at most N MB / GB (10^6 / 10^9) of tensor data a part\n"
            "                          (each tensor counted padded to 32 bytes; metadata not counted)\n"
            "  --no-tensor-first-split  part 1 holds only the metadata\n"
            "  --dry-run  print the parts (file, tensors, bytes) on stdout; write nothing\n"
            "  --quiet  no summary line\n");
    kvedit_usage(o);
    fprintf(o,
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

static void say_path(const char *what, const char *path)
{
    fprintf(stderr, PROG ": %s", what);
    cli_esc_str(stderr, path);
}

/* A NUL-terminated copy of a view; NULL (with *nul set) if it holds a NUL byte. */
static char *dup_view(mio_str s, int *nul)
{
    *nul = 0;
    if (s.len && memchr(s.ptr, '\0', s.len)) {
        *nul = 1;
        return NULL;
    }
    char *p = malloc(s.len + 1);
    if (!p)
        return NULL;
    if (s.len)
        memcpy(p, s.ptr, s.len);
    p[s.len] = '\0';
    return p;
}

/* safetensors -> safetensors. Returns an exit status; reports its own errors. */
static int st_to_st(const char *in, const char *out, int quiet)
{
    double t0 = cli_now();
    mio_st_file *f = NULL;
    mio_st_entry *ents = NULL;
    mio_st_meta *meta = NULL;
    int64_t nt = 0, nm = 0, ni = 0, nmi = 0; /* counts, and how many name/key copies were made */
    int rc = CLI_EXIT_FAIL;
    uint64_t data_bytes = 0;

    mio_status st = mio_st_open(in, MIO_OPEN_MMAP, &f);
    if (st != MIO_OK) {
        cli_report(PROG, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    int to_stdout = cli_is_stdout(out);
    if (!to_stdout && mio_st_uses_file(f, out)) {
        say_path("OUT ", out);
        fprintf(stderr, " is one of the input's shard files; refusing to overwrite it\n");
        mio_st_close(f);
        return CLI_EXIT_USAGE;
    }
    nt = mio_st_tensor_count(f);
    nm = mio_st_meta_count(f);
    ents = calloc(nt ? (size_t)nt : 1, sizeof *ents);
    meta = calloc(nm ? (size_t)nm : 1, sizeof *meta);
    if (!ents || !meta) {
        fprintf(stderr, PROG ": out of memory\n");
        goto done;
    }
    for (; ni < nt; ni++) {
        mio_st_tensor t;
        int nul;
        if ((st = mio_st_tensor_info(f, ni, &t)) != MIO_OK) {
            cli_report(PROG, in, mio_last_error());
            goto done;
        }
        char *name = dup_view(t.name, &nul);
        if (!name) {
            if (nul) {
                say_path("", in);
                fprintf(stderr, ": tensor %" PRId64 ": the name holds a NUL byte (\\u0000), which the writer cannot "
                                "take\n", ni);
            }
            else
                fprintf(stderr, PROG ": out of memory\n");
            goto done;
        }
        if (t.nbytes > SIZE_MAX) {
            free(name);
            say_path("", in);
            fprintf(stderr, ": tensor %" PRId64 " is larger than the address space\n", ni);
            goto done;
        }
        ents[ni].name = name;
        ents[ni].dtype = t.dtype;
        ents[ni].n_dims = t.n_dims;
        ents[ni].shape = t.shape;
        ents[ni].data = t.data;
        ents[ni].nbytes = (size_t)t.nbytes;
        data_bytes += t.nbytes;
    }
    for (; nmi < nm; nmi++) {
        mio_str k, v;
        int nul_k = 0, nul_v = 0;
        if ((st = mio_st_meta_at(f, nmi, &k, &v)) != MIO_OK) {
            cli_report(PROG, in, mio_last_error());
            goto done;
        }
        char *key = dup_view(k, &nul_k);
        char *val = key ? dup_view(v, &nul_v) : NULL;
        if (!key || !val) {
            free(key);
            if (nul_k || nul_v) {
                say_path("", in);
                fprintf(stderr, ": metadata entry %" PRId64 ": a NUL byte (\\u0000) in the %s, which the writer "
                                "cannot take\n", nmi, nul_k ? "key" : "value");
            }
            else
                fprintf(stderr, PROG ": out of memory\n");
            goto done;
        }
        meta[nmi].key = key;
        meta[nmi].value = val;
    }

    st = to_stdout ? mio_st_save_cb(ents, (size_t)nt, meta, (size_t)nm, cli_write_stdout, NULL)
                   : mio_st_save_file(out, ents, (size_t)nt, meta, (size_t)nm);
    if (st != MIO_OK) {
        cli_report(PROG, out, mio_last_error());
        goto done;
    }
    rc = CLI_EXIT_OK;
    if (!quiet) {
        struct stat so;
        char hs[32];
        uint64_t out_size = !to_stdout && stat(out, &so) == 0 ? (uint64_t)so.st_size : 0;
        uint32_t shards = mio_st_shard_count(f);
        say_path("wrote ", to_stdout ? "standard output" : out);
        fprintf(stderr, ": %" PRId64 " %s (%" PRIu64 " data bytes), %" PRId64 " metadata %s", nt,
                cli_plural((uint64_t)nt, "tensor", "tensors"), data_bytes, nm, cli_plural((uint64_t)nm, "key", "keys"));
        if (out_size)
            fprintf(stderr, ", %" PRIu64 " bytes (%s)", out_size, cli_human_size(hs, sizeof hs, out_size));
        fprintf(stderr, " in %.3f s", cli_now() - t0);
        if (shards > 1)
            fprintf(stderr, " (merged from %" PRIu32 " shards)", shards);
        fputc('\n', stderr);
    }
done:
    for (int64_t i = 0; i < ni; i++)
        free((char *)ents[i].name);
    for (int64_t i = 0; i < nmi; i++) {
        free((char *)meta[i].key);
        free((char *)meta[i].value);
    }
    free(ents);
    free(meta);
    mio_st_close(f);
    return rc;
}

/* "N" with N a positive decimal integer; 0 on anything else. */
static int parse_count(const char *s, int64_t *out)
{
    char *end = NULL;
    if (!s || !*s || *s == '-' || *s == '+')
        return 0;
    long long v = strtoll(s, &end, 10);
    if (*end || v <= 0)
        return 0;
    *out = v;
    return 1;
}

/* "N{M,G}": N x 10^6 or N x 10^9 (gguf-split's units). */
static int parse_size(const char *s, uint64_t *out)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 2 || (s[n - 1] != 'M' && s[n - 1] != 'G'))
        return 0;
    uint64_t v = 0, unit = s[n - 1] == 'M' ? 1000000u : 1000000000u;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v == 0 || v > UINT64_MAX / unit)
        return 0;
    *out = v * unit;
    return 1;
}

static void print_part(void *user, const mio_split_part *pt)
{
    if (!user)
        return;
    printf("%s: %" PRId64 " %s, %" PRIu64 " tensor bytes, %" PRIu64 " file bytes\n", pt->path, pt->n_tensors,
           cli_plural((uint64_t)pt->n_tensors, "tensor", "tensors"), pt->tensor_bytes, pt->file_bytes);
}

static int gguf_split(const char *in, const char *prefix, const mio_split_params *p, int quiet)
{
    double t0 = cli_now();
    uint32_t n = 0;
    mio_split_params q = *p;
    q.plan = print_part;
    q.plan_user = p->dry_run ? (void *)1 : NULL;
    if (mio_gguf_split(in, prefix, &q, &n) != MIO_OK) {
        cli_report(PROG, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    if (!quiet && !p->dry_run) {
        say_path("split ", in);
        fprintf(stderr, " into %" PRIu32 " %s (", n, cli_plural(n, "part", "parts"));
        cli_esc_str(stderr, prefix);
        fprintf(stderr, "-00001-of-%05" PRIu32 ".gguf ..) in %.3f s\n", n, cli_now() - t0);
    }
    return CLI_EXIT_OK;
}

/* GGUF -> GGUF verbatim (a split input is merged). */
static int gguf_to_gguf(const char *in, const char *out, int quiet)
{
    double t0 = cli_now();
    mio_quantize_params q;
    mio_quantize_default_params(&q);
    if (mio_quantize(in, out, &q) != MIO_OK) {
        cli_report(PROG, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    if (!quiet) {
        say_path("wrote ", out);
        fprintf(stderr, " in %.3f s\n", cli_now() - t0);
    }
    return CLI_EXIT_OK;
}

static kvedit_list g_edits; /* metadata edits (kvedit.c); static: reachable until exit */

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int quiet = 0, only_paths = 0, split = 0, in_place = 0, erc = 0;
    mio_split_params sp;
    mio_split_default_params(&sp);
    sp.max_tensors = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_paths && (cli_is(a, "--quiet") || cli_is(a, "-q"))) {
            quiet = 1;
        } else if (!only_paths && (cli_is(a, "-h") || cli_is(a, "--help"))) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (!only_paths && (cli_is(a, "--split-max-tensors") || cli_is(a, "--split-max-size"))) {
            int by_size = cli_is(a, "--split-max-size");
            char msg[320];
            if (i + 1 >= argc) {
                snprintf(msg, sizeof msg, "%s needs a value", a);
                return usage_error(msg);
            }
            const char *v = argv[++i];
            if (by_size ? !parse_size(v, &sp.max_bytes) : !parse_count(v, &sp.max_tensors)) {
                snprintf(msg, sizeof msg, "%s: bad value '%.200s' (%s)", a, v,
                         by_size ? "a positive number followed by M or G, e.g. 500M or 2G" : "a positive number");
                return usage_error(msg);
            }
            split |= by_size ? 2 : 1;
        } else if (!only_paths && cli_is(a, "--no-tensor-first-split")) {
            sp.no_tensor_first_split = 1;
        } else if (!only_paths && cli_is(a, "--in-place")) {
            in_place = 1;
        } else if (!only_paths && kvedit_option(&g_edits, PROG, argc, argv, &i, &erc)) {
            if (erc)
                return erc;
        } else if (!only_paths && cli_is(a, "--dry-run")) {
            sp.dry_run = 1;
        } else if (!only_paths && cli_is(a, "--")) {
            only_paths = 1;
        } else if (!only_paths && a[0] == '-' && a[1] != '\0') {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown option '%.200s'", a);
            return usage_error(msg);
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            char msg[320];
            snprintf(msg, sizeof msg, "unexpected argument '%.200s' (exactly IN and OUT are expected)", a);
            return usage_error(msg);
        }
    }
    if (in_place) {
        if (!g_edits.n || split || out || !in || !*in)
            return usage_error("--in-place takes metadata edits and one FILE.gguf (no OUT, no splitting)");
        return kvedit_in_place(&g_edits, PROG, in, quiet);
    }
    if (g_edits.n && split)
        return usage_error("metadata edits apply to GGUF -> GGUF copies and --in-place, not to splitting");
    if (!in || !*in || !out || !*out)
        return usage_error(split ? "IN and PREFIX are required" : "IN and OUT are required");
    if (split == 3)
        return usage_error("--split-max-tensors and --split-max-size are exclusive");
    if (!split && (sp.no_tensor_first_split || sp.dry_run))
        return usage_error("--no-tensor-first-split and --dry-run need --split-max-tensors or --split-max-size");
    if (split) {
        cli_install_signals(PROG);
        return gguf_split(in, out, &sp, quiet);
    }
    if (cli_is_stdout(out)) {
        if (!cli_stdout_usable(PROG))
            return CLI_EXIT_USAGE;
    } else if (same_file(in, out)) {
        say_path("OUT ", out);
        fprintf(stderr, " is the input file; refusing to overwrite it\n");
        return CLI_EXIT_USAGE;
    }
    cli_install_signals(PROG);

    cli_format fmt = cli_detect_format(in);
    switch (fmt) {
    case CLI_FMT_ST:
    case CLI_FMT_ST_INDEX:
        break;
    case CLI_FMT_GGUF:
        if (cli_ends_with(out, ".gguf"))
            return g_edits.n ? kvedit_copy(&g_edits, PROG, in, out, quiet) : gguf_to_gguf(in, out, quiet);
        say_path("", in);
        fprintf(stderr, ": GGUF -> safetensors is not supported yet (" CONVERSIONS ")\n");
        return CLI_EXIT_FAIL;
    case CLI_FMT_UNREADABLE: {
        /* let the library name the problem (missing file, permission, ...) */
        mio_st_file *f = NULL;
        if (mio_st_open(in, MIO_OPEN_MMAP, &f) == MIO_OK) {
            mio_st_close(f);
            break;
        }
        cli_report(PROG, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    default:
        say_path("", in);
        fprintf(stderr, ": unknown input format (neither safetensors nor GGUF); " CONVERSIONS "\n");
        return CLI_EXIT_FAIL;
    }
    if (g_edits.n)
        return usage_error("metadata edits apply to GGUF -> GGUF copies and --in-place only");
    if (cli_ends_with(out, ".gguf")) {
        say_path("", out);
        fprintf(stderr, ": safetensors -> GGUF is not supported yet (" CONVERSIONS ")\n");
        return CLI_EXIT_FAIL;
    }
    return st_to_st(in, out, quiet);
}
