/* SPDX-License-Identifier: MIT */
/* mio_transcode.c — mio-transcode: convert between model file formats —
 * GGUF <-> safetensors (the library's mio_gguf_to_st /
 * mio_st_to_gguf), safetensors re-serialized in upstream's canonical
 * form (merging or writing shards), GGUF copied (merging a split) or split
 * (gguf-split). Every output is written atomically. */
#define _GNU_SOURCE
#include <modelio.h>
#include <modelio_inspect.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "kvedit.h"

#define PROG "mio-transcode"
#define CONVERSIONS                                                                                                    \
    "supported: GGUF <-> safetensors (files, sharded checkpoints), safetensors -> safetensors,\n  GGUF -> GGUF "       \
    "(merging a split), GGUF -> split GGUF parts"

static void usage(FILE *o) {
    fprintf(o, "usage: " PROG " [options] IN OUT\n"
               "       " PROG " --version\n"
               "       " PROG " --merge PREFIX-00001-of-0000N.gguf OUT.gguf\n"
               "       " PROG " [--dry-run] [--no-tensor-first-split]\n"
               "              (--split-max-tensors N | --split-max-size N{M,G}) IN.gguf PREFIX\n"
               "       " PROG " --in-place EDITS.. FILE.gguf\n"
               "  Convert the model file IN to OUT. IN's format is detected by content (a GGUF file or\n"
               "  the first part of a split; a safetensors file or a sharded checkpoint's .index.json);\n"
               "  OUT's by its name: *.gguf, *.safetensors, or DIR/ (or DIR/model.safetensors.index.json)\n"
               "  for a sharded checkpoint; any other name (and '-', standard output) keeps IN's format.\n"
               "  " CONVERSIONS ".\n"
               "  GGUF -> safetensors: tensors keep their type (shape = GGUF dims reversed); GGUF metadata\n"
               "  goes into __metadata__ (docs/CONVERT.md), so converting back gives the identical GGUF.\n"
               "  safetensors -> GGUF: names and dtypes kept (F32 F16 BF16 F64 I8 I16 I32 I64; others are\n"
               "  refused); metadata written by the other direction is restored exactly, other keys become\n"
               "  strings safetensors.metadata.KEY.\n"
               "  --dequantize        decode block-quantized GGUF tensors (refused without it)\n"
               "  --dtype f32|f16|bf16  cast every float tensor to it (and decode quantized ones to it;\n"
               "                      default f32)\n"
               "  --name-map FILE     rename tensors: lines 'OLD NEW' (blank separated, # comments)\n"
               "  --max-shard-size S  sharded safetensors output: at most S bytes of tensors a shard\n"
               "                      (5GB, 500MB, 2GiB or bytes; default 5GB as save_pretrained)\n"
               "  --to gguf|safetensors  the output format, whatever OUT's name\n"
               "  --threads N         decoding threads (default: all cores)\n"
               "  --merge             IN is the first part of a split GGUF: write all parts into OUT.gguf\n"
               "                      (split.* keys dropped; the plain form IN OUT does the same)\n"
               "  Splitting (llama.cpp gguf-split --split): IN becomes PREFIX-00001-of-0000N.gguf ..;\n"
               "  part 1 carries all metadata, every part split.no/split.tensors.count/split.count.\n"
               "  --split-max-tensors N  at most N tensors a part\n"
               "  --split-max-size N{M,G}  at most N MB / GB (10^6 / 10^9) of tensor data a part\n"
               "                          (each tensor counted padded to 32 bytes; metadata not counted)\n"
               "  --no-tensor-first-split  part 1 holds only the metadata\n"
               "  --dry-run  print the parts (file, tensors, bytes) on stdout; write nothing\n"
               "  --quiet  no summary line, no progress\n"
               "  OUT is written atomically (nothing is left on failure or interruption: SIGINT/SIGTERM\n"
               "  exit 130/143) and may not be an input file, a device, a FIFO or a directory (except\n"
               "  for sharded output); '-' (or /dev/stdout) streams to standard output, not a terminal.\n");
    kvedit_usage(o);
    fprintf(o, "exit status: 0 ok, 1 failure (library message on stderr), 2 usage error\n");
}

static int usage_error(const char *msg) {
    fprintf(stderr, PROG ": %s\n", msg);
    usage(stderr);
    return CLI_EXIT_USAGE;
}

/* 1 if a and b name the same file (same path, or same device and inode). */
static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (strcmp(a, b) == 0) return 1;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void say_path(const char *what, const char *path) {
    fprintf(stderr, PROG ": %s", what);
    cli_esc_str(stderr, path);
}

/* A NUL-terminated copy of a view; NULL (with *nul set) if it holds a NUL byte. */
static char *dup_view(mio_str s, int *nul) {
    *nul = 0;
    if (s.len && memchr(s.ptr, '\0', s.len)) {
        *nul = 1;
        return NULL;
    }
    char *p = malloc(s.len + 1);
    if (!p) return NULL;
    if (s.len) memcpy(p, s.ptr, s.len);
    p[s.len] = '\0';
    return p;
}

/* safetensors -> safetensors. Returns an exit status; reports its own errors. */
static int out_is_dir(const char *out);

static int st_to_st(const char *in, const char *out, int quiet, uint64_t max_shard) {
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
        if (mio_st_tensor_info(f, ni, &t) != MIO_OK) {
            cli_report(PROG, in, mio_last_error());
            goto done;
        }
        char *name = dup_view(t.name, &nul);
        if (!name) {
            if (nul) {
                say_path("", in);
                fprintf(stderr,
                        ": tensor %" PRId64 ": the name holds a NUL byte (\\u0000), which the writer cannot "
                        "take\n",
                        ni);
            } else
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
        if (mio_st_meta_at(f, nmi, &k, &v) != MIO_OK) {
            cli_report(PROG, in, mio_last_error());
            goto done;
        }
        char *key = dup_view(k, &nul_k);
        char *val = key ? dup_view(v, &nul_v) : NULL;
        if (!key || !val) {
            free(key);
            if (nul_k || nul_v) {
                say_path("", in);
                fprintf(stderr,
                        ": metadata entry %" PRId64 ": a NUL byte (\\u0000) in the %s, which the writer "
                        "cannot take\n",
                        nmi, nul_k ? "key" : "value");
            } else
                fprintf(stderr, PROG ": out of memory\n");
            goto done;
        }
        meta[nmi].key = key;
        meta[nmi].value = val;
    }

    if (to_stdout)
        st = mio_st_save_cb(ents, (size_t)nt, meta, (size_t)nm, cli_write_stdout, NULL);
    else if (out_is_dir(out))
        st = mio_st_save_sharded(out, ents, (size_t)nt, meta, (size_t)nm, max_shard ? max_shard : 5000000000u, NULL);
    else
        st = mio_st_save_file(out, ents, (size_t)nt, meta, (size_t)nm);
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
        if (out_size) fprintf(stderr, ", %" PRIu64 " bytes (%s)", out_size, mio_format_size(hs, sizeof hs, out_size));
        fprintf(stderr, " in %.3f s", cli_now() - t0);
        if (shards > 1) fprintf(stderr, " (merged from %" PRIu32 " shards)", shards);
        fputc('\n', stderr);
    }
done:
    for (int64_t i = 0; i < ni; i++) free((char *)ents[i].name);
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
static int parse_count(const char *s, int64_t *out) {
    char *end = NULL;
    if (!s || !*s || *s == '-' || *s == '+') return 0;
    long long v = strtoll(s, &end, 10);
    if (*end || v <= 0) return 0;
    *out = v;
    return 1;
}

/* "N{M,G}": N x 10^6 or N x 10^9 (gguf-split's units). */
static int parse_size(const char *s, uint64_t *out) {
    size_t n = s ? strlen(s) : 0;
    if (n < 2 || (s[n - 1] != 'M' && s[n - 1] != 'G')) return 0;
    uint64_t v = 0, unit = s[n - 1] == 'M' ? 1000000u : 1000000000u;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v == 0 || v > UINT64_MAX / unit) return 0;
    *out = v * unit;
    return 1;
}

static void print_part(void *user, const mio_gguf_split_part *pt) {
    if (!user) return;
    printf("%s: %" PRId64 " %s, %" PRIu64 " tensor bytes, %" PRIu64 " file bytes\n", pt->path, pt->n_tensors,
           cli_plural((uint64_t)pt->n_tensors, "tensor", "tensors"), pt->tensor_bytes, pt->file_bytes);
}

static int gguf_split(const char *in, const char *prefix, const mio_gguf_split_params *p, int quiet) {
    double t0 = cli_now();
    uint32_t n = 0;
    mio_gguf_split_params q = *p;
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

/* OUT names a directory for a sharded safetensors checkpoint: an existing
 * directory or a path ending in '/'. */
static int out_is_dir(const char *out) {
    struct stat sb;
    size_t n = strlen(out);
    return (n && out[n - 1] == '/') || (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode));
}

/* --name-map FILE: "OLD NEW" a line (blank or tab separated); blank lines and
 * lines starting with '#' are skipped. Fills the rename lists of p. */
typedef struct name_map {
    char **from, **to;
    size_t n;
} name_map;

static void name_map_free(name_map *m) {
    for (size_t k = 0; k < m->n; k++) {
        free(m->from[k]);
        free(m->to[k]);
    }
    free(m->from);
    free(m->to);
}

static int name_map_load(const char *path, name_map *m) {
    FILE *f = fopen(path, "r");
    if (!f) {
        say_path("--name-map ", path);
        fprintf(stderr, ": %s\n", strerror(errno));
        return CLI_EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned lineno = 0;
    int rc = CLI_EXIT_OK;
    while (rc == CLI_EXIT_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            rc = CLI_EXIT_USAGE;
            break;
        }
        char *save = NULL, *a = strtok_r(line, " \t\r\n", &save);
        if (!a || a[0] == '#') continue;
        char *b = strtok_r(NULL, " \t\r\n", &save), *c = b ? strtok_r(NULL, " \t\r\n", &save) : NULL;
        if (!b || c) {
            rc = CLI_EXIT_USAGE;
            break;
        }
        for (size_t k = 0; k < m->n && rc == CLI_EXIT_OK; k++)
            if (strcmp(m->from[k], a) == 0 || strcmp(m->to[k], b) == 0) {
                say_path("--name-map ", path);
                fprintf(stderr, ":%u: ", lineno);
                cli_esc_str(stderr, strcmp(m->from[k], a) == 0 ? a : b);
                fprintf(stderr, " appears twice in the %s column\n", strcmp(m->from[k], a) == 0 ? "first" : "second");
                rc = CLI_EXIT_FAIL;
            }
        if (rc != CLI_EXIT_OK) break;
        char **nf = realloc(m->from, (m->n + 1) * sizeof *nf);
        if (nf) m->from = nf;
        char **nt = nf ? realloc(m->to, (m->n + 1) * sizeof *nt) : NULL;
        if (nt) m->to = nt;
        char *da = strdup(a), *db = strdup(b);
        if (!nf || !nt || !da || !db) {
            free(da);
            free(db);
            fprintf(stderr, PROG ": out of memory\n");
            rc = CLI_EXIT_FAIL;
            break;
        }
        m->from[m->n] = da;
        m->to[m->n++] = db;
    }
    if (rc == CLI_EXIT_USAGE) {
        say_path("--name-map ", path);
        fprintf(stderr, ":%u: expected two names, OLD NEW, separated by blanks\n", lineno);
        rc = CLI_EXIT_FAIL;
    }
    free(line);
    fclose(f);
    return rc;
}

typedef struct progress_ctx {
    double t0, last;
    int shown;
} progress_ctx;

static int convert_progress(void *user, int64_t done, int64_t total, uint64_t bytes_done, uint64_t bytes_total) {
    progress_ctx *c = user;
    c->shown = 1;
    cli_progress_line(&c->last, c->t0, done, total, bytes_done, bytes_total, NULL, 0);
    return 0;
}

/* GGUF -> safetensors and safetensors -> GGUF through the library. */
static int convert(const char *in, const char *out, int to_gguf, const mio_convert_params *cp, int quiet) {
    double t0 = cli_now();
    mio_status st;
    mio_convert_params q = *cp, *p = &q;
    progress_ctx pc = {t0, 0, 0};
    if (!quiet && isatty(STDERR_FILENO)) {
        q.progress = convert_progress;
        q.progress_user = &pc;
    }
    int to_stdout = cli_is_stdout(out);
    if (to_gguf)
        st = to_stdout ? mio_st_to_gguf_fd(in, 1, p) : mio_st_to_gguf(in, out, p);
    else
        st = to_stdout ? mio_gguf_to_st_fd(in, 1, p) : mio_gguf_to_st(in, out, p);
    cli_set_progress_line(0);
    if (pc.shown) fputc('\n', stderr);
    if (st != MIO_OK) {
        cli_report(PROG, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    if (!quiet) {
        say_path("wrote ", to_stdout ? "standard output" : out);
        fprintf(stderr, " (%s) in %.3f s\n", to_gguf ? "GGUF" : "safetensors", cli_now() - t0);
    }
    return CLI_EXIT_OK;
}

/* "5GB", "500MB", "1.5GiB" style sizes (huggingface_hub's units: KB/MB/GB are
 * powers of 10, KiB/MiB/GiB powers of 2) or a plain byte count. */
static int parse_shard_size(const char *s, uint64_t *out) {
    static const struct {
        const char *unit;
        double mul;
    } units[] = {{"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}, {"GB", 1e9},
                 {"MB", 1e6},           {"KB", 1e3},        {"B", 1.0},      {"", 1.0}};
    char *end = NULL;
    if (!s || !*s || *s == '-') return 0;
    double v = strtod(s, &end);
    if (end == s || !(v > 0)) return 0;
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (strcmp(end, units[k].unit) == 0) {
            double b = v * units[k].mul;
            if (b < 1 || b > 1.8e19) return 0;
            *out = (uint64_t)b;
            return 1;
        }
    return 0;
}

static kvedit_list g_edits; /* metadata edits (kvedit.c); static: reachable until exit */

int main(int argc, char **argv) {
    if (argc == 2 && cli_is(argv[1], "--version")) return cli_version(PROG);
    const char *in = NULL, *out = NULL, *to = NULL, *map_path = NULL;
    int quiet = 0, only_paths = 0, split = 0, merge = 0, in_place = 0, erc = 0;
    mio_gguf_split_params sp;
    mio_gguf_split_default_params(&sp);
    sp.max_tensors = 0;
    mio_convert_params cp;
    mio_convert_default_params(&cp);
    int conv_opts = 0; /* --dtype/--dequantize/--name-map/--max-shard-size given */

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        char msg[320];
        if (!only_paths && (cli_is(a, "--quiet") || cli_is(a, "-q"))) {
            quiet = 1;
        } else if (!only_paths && (cli_is(a, "-h") || cli_is(a, "--help"))) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (!only_paths && (cli_is(a, "--split-max-tensors") || cli_is(a, "--split-max-size"))) {
            int by_size = cli_is(a, "--split-max-size");
            if (i + 1 >= argc) {
                snprintf(msg, sizeof msg, "%s needs a value", a);
                return usage_error(msg);
            }
            v = argv[++i];
            if (by_size ? !parse_size(v, &sp.max_bytes) : !parse_count(v, &sp.max_tensors)) {
                snprintf(msg, sizeof msg, "%s: bad value '%.200s' (%s)", a, v,
                         by_size ? "a positive number followed by M or G, e.g. 500M or 2G" : "a positive number");
                return usage_error(msg);
            }
            split |= by_size ? 2 : 1;
        } else if (!only_paths && cli_is(a, "--no-tensor-first-split")) {
            sp.no_tensor_first_split = 1;
        } else if (!only_paths && cli_is(a, "--dry-run")) {
            sp.dry_run = 1;
        } else if (!only_paths && cli_is(a, "--merge")) {
            merge = 1;
        } else if (!only_paths && cli_is(a, "--in-place")) {
            in_place = 1;
        } else if (!only_paths && kvedit_option(&g_edits, PROG, argc, argv, &i, &erc)) {
            if (erc) return erc;
        } else if (!only_paths && cli_is(a, "--dequantize")) {
            cp.dequantize = 1;
            conv_opts = 1;
        } else if (!only_paths && (r = cli_opt_value(argc, argv, &i, "--dtype", &v)) != 0) {
            if (r < 0) return usage_error("--dtype needs a value (f32, f16 or bf16)");
            cp.dtype = cli_is(v, "f32")    ? MIO_TYPE_F32
                       : cli_is(v, "f16")  ? MIO_TYPE_F16
                       : cli_is(v, "bf16") ? MIO_TYPE_BF16
                                           : -2;
            if (cp.dtype == -2) {
                snprintf(msg, sizeof msg, "--dtype: '%.200s' is not f32, f16 or bf16", v);
                return usage_error(msg);
            }
            conv_opts = 1;
        } else if (!only_paths && (r = cli_opt_value(argc, argv, &i, "--name-map", &v)) != 0) {
            if (r < 0) return usage_error("--name-map needs a file");
            map_path = v;
            conv_opts = 1;
        } else if (!only_paths && (r = cli_opt_value(argc, argv, &i, "--max-shard-size", &v)) != 0) {
            if (r < 0 || !parse_shard_size(v, &cp.max_shard_bytes)) {
                snprintf(msg, sizeof msg, "--max-shard-size: bad value '%.200s' (e.g. 5GB, 500MB, 2GiB or bytes)",
                         r < 0 ? "" : v);
                return usage_error(msg);
            }
        } else if (!only_paths && (r = cli_opt_value(argc, argv, &i, "--to", &v)) != 0) {
            if (r < 0 || (!cli_is(v, "gguf") && !cli_is(v, "safetensors")))
                return usage_error("--to needs gguf or safetensors");
            to = v;
        } else if (!only_paths && (r = cli_opt_value(argc, argv, &i, "--threads", &v)) != 0) {
            int64_t n = 0;
            if (r < 0 || !parse_count(v, &n) || n > 4096) return usage_error("--threads needs a positive number");
            cp.n_threads = (int)n;
        } else if (!only_paths && cli_is(a, "--")) {
            only_paths = 1;
        } else if (!only_paths && a[0] == '-' && a[1] != '\0') {
            snprintf(msg, sizeof msg, "unknown option '%.200s'", a);
            return usage_error(msg);
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            snprintf(msg, sizeof msg, "unexpected argument '%.200s' (exactly IN and OUT are expected)", a);
            return usage_error(msg);
        }
    }
    if (in_place) {
        if (!g_edits.n || split || merge || conv_opts || to || out || !in || !*in)
            return usage_error(
                "--in-place takes metadata edits and one FILE.gguf (no OUT, no conversion, no splitting)");
        return kvedit_in_place(&g_edits, PROG, in, quiet);
    }
    if (g_edits.n && split)
        return usage_error("metadata edits apply to copies and conversions and --in-place, not to splitting");
    if (!in || !*in || !out || !*out)
        return usage_error(split ? "IN and PREFIX are required" : "IN and OUT are required");
    if (split == 3) return usage_error("--split-max-tensors and --split-max-size are exclusive");
    if (!split && (sp.no_tensor_first_split || sp.dry_run))
        return usage_error("--no-tensor-first-split and --dry-run need --split-max-tensors or --split-max-size");
    if (split && (merge || conv_opts || to))
        return usage_error("splitting takes no conversion options (--merge, --dtype, --dequantize, --name-map, --to)");
    if (split) {
        cli_install_signals(PROG);
        return gguf_split(in, out, &sp, quiet);
    }
    if (cli_is_stdout(out)) {
        if (!cli_stdout_usable(PROG)) return CLI_EXIT_USAGE;
    } else if (same_file(in, out)) {
        say_path("OUT ", out);
        fprintf(stderr, " is the input file; refusing to overwrite it\n");
        return CLI_EXIT_USAGE;
    }

    mio_format fmt = mio_detect_format(in);
    if (fmt == MIO_FORMAT_UNREADABLE) {
        /* let the library name the problem (missing file, permission, ...) */
        mio_st_file *f = NULL;
        if (mio_st_open(in, MIO_OPEN_MMAP, &f) == MIO_OK) {
            mio_st_close(f);
            fmt = MIO_FORMAT_SAFETENSORS;
        } else {
            cli_report(PROG, in, mio_last_error());
            return CLI_EXIT_FAIL;
        }
    }
    if (fmt == MIO_FORMAT_UNKNOWN) {
        say_path("", in);
        fprintf(stderr, ": unknown input format (neither safetensors nor GGUF); " CONVERSIONS "\n");
        return CLI_EXIT_FAIL;
    }
    int in_gguf = fmt == MIO_FORMAT_GGUF;
    /* the output format: --to, else OUT's name; standard output keeps the input's format */
    int out_gguf;
    if (to)
        out_gguf = cli_is(to, "gguf");
    else if (cli_ends_with(out, ".gguf"))
        out_gguf = 1;
    else if (cli_ends_with(out, ".safetensors") || cli_ends_with(out, ".index.json") || out_is_dir(out))
        out_gguf = 0;
    else
        out_gguf = in_gguf; /* another name (or standard output): the input's format */
    if (out_gguf && (cli_ends_with(out, ".index.json") || (!cli_is_stdout(out) && out_is_dir(out)))) {
        say_path("OUT ", out);
        fprintf(stderr, ": GGUF output is one file (split it with --split-max-tensors/--split-max-size)\n");
        return CLI_EXIT_USAGE;
    }
    if (merge && !(in_gguf && out_gguf))
        return usage_error("--merge joins the parts of a split GGUF into one GGUF: IN.gguf OUT.gguf");
    if (merge && !strstr(in, "-00001-of-")) {
        say_path("--merge: ", in);
        fprintf(stderr, " is not the first part of a split (NAME-00001-of-0000N.gguf)\n");
        return CLI_EXIT_USAGE;
    }
    name_map map = {0};
    if (map_path) {
        int rc = name_map_load(map_path, &map);
        if (rc != CLI_EXIT_OK) return rc;
        cp.rename_from = (const char *const *)map.from;
        cp.rename_to = (const char *const *)map.to;
        cp.n_rename = map.n;
    }
    cli_install_signals(PROG);
    int rc;
    if (in_gguf && out_gguf) {
        if (conv_opts) {
            name_map_free(&map);
            return usage_error("GGUF -> GGUF copies tensors verbatim: --dtype/--dequantize/--name-map do not apply "
                               "(mio-export-gguf --dtype and mio-quantize change types)");
        }
        rc = kvedit_copy(&g_edits, PROG, in, out, quiet); /* verbatim when there are no edits */
    } else if (!in_gguf && !out_gguf) {
        if (conv_opts) {
            name_map_free(&map);
            return usage_error("safetensors -> safetensors keeps every tensor: --dtype/--dequantize/--name-map do "
                               "not apply");
        }
        if (g_edits.n) {
            name_map_free(&map);
            return usage_error("metadata edits are GGUF key-values: the output must be GGUF");
        }
        rc = st_to_st(in, out, quiet, cp.max_shard_bytes);
    } else {
        cp.edits = g_edits.e;
        cp.n_edits = g_edits.n;
        rc = convert(in, out, out_gguf, &cp, quiet);
    }
    name_map_free(&map);
    return rc;
}
