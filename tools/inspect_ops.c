/* SPDX-License-Identifier: MIT */
/* inspect_ops.c — mio-inspect --hash / --check / --stats / --diff / --verify:
 * argument parsing and printing over the library's inspect API
 * (modelio_inspect.h: mio_model_*, mio_hash_*, mio_stats_json, mio_model_diff),
 * which reads every tensor byte with pread through its own descriptors. */
#define _POSIX_C_SOURCE 200809L
#include "inspect_ops.h"

#include <modelio.h>
#include <modelio_inspect.h>

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define PROG "mio-inspect"
/* --check: problems listed one by one before "... and N more". */
#define SHOW_MAX 20

/* "mio-inspect: MESSAGE" for each line of the library's message, escaped. */
static void lib_err(void) {
    const char *m = mio_last_error();
    for (;;) {
        const char *nl = strchr(m, '\n');
        size_t n = nl ? (size_t)(nl - m) : strlen(m);
        fputs(PROG ": ", stderr);
        cli_esc(stderr, m, n);
        fputc('\n', stderr);
        if (!nl) break;
        m = nl + 1;
    }
}

static int flush_out(int rc) {
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        return CLI_EXIT_FAIL;
    }
    return rc;
}

static void hex(char *dst, const unsigned char *d, size_t n) {
    for (size_t i = 0; i < n; i++) snprintf(dst + 2 * i, 3, "%02x", d[i]);
}

static int put_text(mio_status st, char *text, size_t len) {
    if (st != MIO_OK) {
        lib_err();
        return CLI_EXIT_FAIL;
    }
    fwrite(text, 1, len, stdout);
    mio_free(text);
    return flush_out(CLI_EXIT_OK);
}

static int op_hash(const char *alg_name, const char *path) {
    int alg = mio_hash_alg_from_name(alg_name);
    if (alg < 0) {
        fprintf(stderr, PROG ": unknown hash algorithm '");
        cli_esc_str(stderr, alg_name);
        fprintf(stderr, "' (known: xxh64, xxh3, sha256)\n");
        return CLI_EXIT_USAGE;
    }
    char *text = NULL;
    size_t len = 0;
    mio_status st = mio_hash_manifest(path, alg, 0, &text, &len);
    return put_text(st, text, len);
}

typedef struct check_ctx {
    const char *path;
    uint64_t shown;
} check_ctx;

static void on_check(void *user, const mio_check_item *it) {
    check_ctx *c = user;
    if (c->shown++ >= SHOW_MAX) return;
    size_t dl = mio_hash_digest_size(it->alg);
    fprintf(stderr, PROG ": ");
    cli_esc_str(stderr, c->path);
    fprintf(stderr, ": tensor '");
    cli_esc(stderr, it->name.ptr, it->name.len);
    if (it->kind == MIO_CHECK_DIFFERS) {
        char a[2 * MIO_HASH_MAX_DIGEST + 1], b[2 * MIO_HASH_MAX_DIGEST + 1];
        hex(a, it->expected, dl);
        hex(b, it->actual, dl);
        fprintf(stderr, "': %s differs (manifest line %" PRId64 ": %s, file: %s)\n", mio_hash_alg_name(it->alg),
                it->line, a, b);
    } else if (it->kind == MIO_CHECK_MISSING) {
        fprintf(stderr, "' (manifest line %" PRId64 ") is missing from the file\n", it->line);
    } else {
        fprintf(stderr, "' is not in the manifest\n");
    }
}

static int op_check(const char *mpath, const char *path) {
    check_ctx c = {path, 0};
    mio_check_result r;
    if (mio_hash_check(mpath, path, 0, on_check, &c, &r) != MIO_OK) {
        lib_err();
        return CLI_EXIT_FAIL;
    }
    if (c.shown > SHOW_MAX) fprintf(stderr, PROG ": ... and %" PRIu64 " more\n", c.shown - SHOW_MAX);
    if (r.differ || r.missing || r.extra) {
        fputs(PROG ": ", stderr);
        cli_esc_str(stderr, path);
        fprintf(stderr,
                ": does not match the manifest: %" PRIu64 " of %" PRIu64 " %s differ, %" PRIu64 " missing, %" PRIu64
                " extra%s\n",
                r.differ, r.n_entries, cli_plural(r.n_entries, "tensor", "tensors"), r.missing, r.extra,
                r.differ + r.missing == r.n_entries && r.n_entries > 0 ? " (is the manifest for another model?)" : "");
        return CLI_EXIT_FAIL;
    }
    if (!r.model_matches) {
        fputs(PROG ": ", stderr);
        cli_esc_str(stderr, path);
        fputs(": every tensor matches but the manifest's 'model' line does not (the manifest was edited)\n", stderr);
        return CLI_EXIT_FAIL;
    }
    fputs(PROG ": ", stdout);
    cli_esc_str(stdout, path);
    printf(": OK: %" PRId64 " %s and the whole-model %s match\n", r.n_tensors,
           cli_plural((uint64_t)r.n_tensors, "tensor", "tensors"), mio_hash_alg_name(r.alg));
    return flush_out(CLI_EXIT_OK);
}

static int op_verify(const char *path) {
    mio_model *m = NULL;
    uint64_t total = 0;
    if (mio_model_open(path, &m) != MIO_OK || mio_model_verify(m, 0, &total) != MIO_OK) {
        lib_err();
        mio_model_close(m);
        return CLI_EXIT_FAIL;
    }
    char hs[32];
    int64_t n = mio_model_tensor_count(m);
    uint32_t nf = mio_model_file_count(m);
    fputs(PROG ": ", stdout);
    cli_esc_str(stdout, path);
    printf(": OK: %" PRId64 " %s, %" PRIu64 " bytes (%s) of tensor data read from %u %s\n", n,
           cli_plural((uint64_t)n, "tensor", "tensors"), total, mio_format_size(hs, sizeof hs, total), nf,
           cli_plural(nf, "file", "files"));
    mio_model_close(m);
    return flush_out(CLI_EXIT_OK);
}

static void put_shape(FILE *o, const mio_model_tensor *t) {
    fputc('[', o);
    for (uint32_t d = 0; d < t->n_dims; d++) fprintf(o, "%s%" PRIu64, d ? ", " : "", t->shape[d]);
    fputc(']', o);
}

static const char *type_text(int type, char *buf, size_t cap) {
    const char *n = mio_type_name(type);
    if (n) return n;
    snprintf(buf, cap, "type_%d", type);
    return buf;
}

static int op_stats(const char *path, int json) {
    if (json) {
        char *text = NULL;
        size_t len = 0;
        mio_status st = mio_stats_json(path, &text, &len);
        return put_text(st, text, len);
    }
    mio_model *m = NULL;
    if (mio_model_open(path, &m) != MIO_OK) {
        lib_err();
        return CLI_EXIT_FAIL;
    }
    int64_t n = mio_model_tensor_count(m);
    mio_tensor_stats *s = calloc(n ? (size_t)n : 1, sizeof *s);
    int rc = s ? 0 : -1;
    for (int64_t i = 0; i < n && !rc; i++)
        if (mio_model_tensor_stats(m, i, &s[i]) != MIO_OK) {
            lib_err();
            rc = -1;
        }
    if (rc) {
        if (!s) fprintf(stderr, PROG ": out of memory\n");
        free(s);
        mio_model_close(m);
        return CLI_EXIT_FAIL;
    }
    char tb[32];
    printf("%-8s %12s %12s %12s %12s %8s %8s %8s  %s\n", "type", "min", "max", "mean", "std", "nan", "inf", "zerofrac",
           "name [shape]");
    for (int64_t i = 0; i < n; i++) {
        mio_model_tensor t;
        mio_model_tensor_info(m, i, &t);
        const mio_tensor_stats *x = &s[i];
        printf("%-8s ", type_text(t.type, tb, sizeof tb));
        if (x->decoded)
            printf("%12.6g %12.6g %12.6g %12.6g %8" PRIu64 " %8" PRIu64 " %8.4f  ", x->min, x->max, x->mean, x->std,
                   x->nan, x->inf, x->zero_fraction);
        else
            printf("%12s %12s %12s %12s %8s %8s %8s  ", "-", "-", "-", "-", "-", "-", "-");
        cli_esc(stdout, t.name.ptr, t.name.len);
        fputc(' ', stdout);
        put_shape(stdout, &t);
        if (!x->decoded) fputs(" (not decoded: no float view of this type)", stdout);
        fputc('\n', stdout);
    }
    free(s);
    mio_model_close(m);
    return flush_out(CLI_EXIT_OK);
}

typedef struct diff_ctx {
    const mio_model *a, *b;
    int gguf;
    int failed;
} diff_ctx;

static void put_kv(const mio_model *m, int64_t i) {
    char *t = NULL;
    if (mio_model_kv_text(m, i, &t) == MIO_OK)
        fputs(t, stdout);
    else
        fputs("?", stdout);
    mio_free(t);
}

static void put_tensor(const mio_model *m, int64_t i, const char *side) {
    mio_model_tensor t;
    char tb[32];
    mio_model_tensor_info(m, i, &t);
    printf(" only in %s: %s ", side, type_text(t.type, tb, sizeof tb));
    put_shape(stdout, &t);
    putchar('\n');
}

static void put_values(const mio_diff_item *d, uint64_t n_elems) {
    if (!d->values_differ) {
        printf(", values equal\n");
        return;
    }
    printf(", %" PRIu64 " of %" PRIu64 " elements differ", d->values_differ, n_elems);
    if (d->has_max) {
        char x[48], y[48], dd[48];
        printf(", max abs diff %s (element %" PRIu64 ": %s -> %s)", mio_format_f64(dd, sizeof dd, d->max_abs_diff),
               d->max_at, mio_format_f64(x, sizeof x, d->a_value), mio_format_f64(y, sizeof y, d->b_value));
    }
    if (d->nonfinite) printf(", %" PRIu64 " of them NaN/inf on one side", d->nonfinite);
    putchar('\n');
}

static void on_diff(void *user, const mio_diff_item *d) {
    diff_ctx *c = user;
    const char *what = c->gguf ? "key" : "__metadata__ key";
    mio_model_tensor x = {0}, y = {0};
    char t1[32], t2[32];
    switch (d->kind) {
    case MIO_DIFF_META_NOT_COMPARED:
        printf("metadata: not compared: A is %s and B is %s (GGUF key-value metadata and the safetensors "
               "__metadata__ strings are different things); tensors are compared\n",
               mio_model_gguf(c->a) ? "GGUF" : "safetensors", mio_model_gguf(c->b) ? "GGUF" : "safetensors");
        return;
    case MIO_DIFF_KEY_ONLY_A:
    case MIO_DIFF_KEY_ONLY_B:
        printf("%c %s '", d->kind == MIO_DIFF_KEY_ONLY_A ? '-' : '+', what);
        cli_esc(stdout, d->name.ptr, d->name.len);
        printf("' only in %s: ", d->kind == MIO_DIFF_KEY_ONLY_A ? "A" : "B");
        put_kv(d->kind == MIO_DIFF_KEY_ONLY_A ? c->a : c->b, d->kind == MIO_DIFF_KEY_ONLY_A ? d->a : d->b);
        putchar('\n');
        return;
    case MIO_DIFF_KEY_CHANGED:
        printf("~ %s '", what);
        cli_esc(stdout, d->name.ptr, d->name.len);
        printf("': ");
        put_kv(c->a, d->a);
        printf(" -> ");
        put_kv(c->b, d->b);
        putchar('\n');
        return;
    case MIO_DIFF_TENSOR_ONLY_A:
    case MIO_DIFF_TENSOR_ONLY_B:
        printf("%c tensor '", d->kind == MIO_DIFF_TENSOR_ONLY_A ? '-' : '+');
        cli_esc(stdout, d->name.ptr, d->name.len);
        putchar('\'');
        put_tensor(d->kind == MIO_DIFF_TENSOR_ONLY_A ? c->a : c->b, d->kind == MIO_DIFF_TENSOR_ONLY_A ? d->a : d->b,
                   d->kind == MIO_DIFF_TENSOR_ONLY_A ? "A" : "B");
        return;
    default: break;
    }
    mio_model_tensor_info(c->a, d->a, &x);
    mio_model_tensor_info(c->b, d->b, &y);
    printf("~ tensor '");
    cli_esc(stdout, d->name.ptr, d->name.len);
    putchar('\'');
    if (d->bytes_compared) {
        printf(": data differ from byte %" PRIu64 " of %" PRIu64, d->first_byte, x.nbytes);
        if (!d->values_compared)
            printf(" (%s: not decoded)\n", type_text(x.type, t1, sizeof t1));
        else
            put_values(d, x.n_elems);
        return;
    }
    printf(":");
    if (d->type_changed) printf(" type %s -> %s", type_text(x.type, t1, sizeof t1), type_text(y.type, t2, sizeof t2));
    if (d->shape_changed) {
        printf("%s shape ", d->type_changed ? "," : "");
        put_shape(stdout, &x);
        printf(" -> ");
        put_shape(stdout, &y);
    }
    if (d->values_compared)
        put_values(d, x.n_elems);
    else
        putchar('\n');
}

static void put_side(const char *label, const char *path, const mio_model *m) {
    int64_t n = mio_model_tensor_count(m);
    printf("%s: ", label);
    cli_esc_str(stdout, path);
    printf(" (%s, %" PRId64 " %s)\n", mio_model_gguf(m) ? "GGUF" : "safetensors", n,
           cli_plural((uint64_t)n, "tensor", "tensors"));
}

static int op_diff(const char *pa, const char *pb) {
    mio_model *a = NULL, *b = NULL;
    if (mio_model_open(pa, &a) != MIO_OK || mio_model_open(pb, &b) != MIO_OK) {
        lib_err();
        mio_model_close(a);
        return CLI_EXIT_USAGE;
    }
    put_side("A", pa, a);
    put_side("B", pb, b);
    diff_ctx c = {a, b, mio_model_gguf(a) != NULL, 0};
    uint64_t dm = 0, dt = 0;
    int rc;
    if (mio_model_diff(a, b, on_diff, &c, &dm, &dt) != MIO_OK) {
        fflush(stdout);
        lib_err();
        rc = CLI_EXIT_USAGE;
    } else if (dm == 0 && dt == 0) {
        int64_t n = mio_model_tensor_count(a);
        int ga = mio_model_gguf(a) != NULL, gb = mio_model_gguf(b) != NULL;
        printf("identical: %" PRId64 " %s with the same type, shape and bytes%s\n", n,
               cli_plural((uint64_t)n, "tensor", "tensors"),
               ga == gb ? (ga ? ", the same metadata" : ", the same __metadata__") : "");
        rc = CLI_EXIT_OK;
    } else {
        printf("different: %" PRIu64 " metadata %s, %" PRIu64 " %s\n", dm, cli_plural(dm, "key", "keys"), dt,
               cli_plural(dt, "tensor", "tensors"));
        rc = CLI_EXIT_FAIL;
    }
    mio_model_close(a);
    mio_model_close(b);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        rc = CLI_EXIT_USAGE;
    }
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Command line                                                               */
/* ------------------------------------------------------------------------- */

static void ops_usage(FILE *o) {
    fprintf(o, "usage: " PROG " --hash xxh64|xxh3|sha256 FILE > MANIFEST\n"
               "       " PROG " --check MANIFEST FILE\n"
               "       " PROG " --stats [--json] FILE\n"
               "       " PROG " --diff A B\n"
               "       " PROG " --verify FILE\n"
               "  FILE: GGUF (a split model as its first part), safetensors, or *.index.json\n"
               "exit status: --diff 0 identical, 1 different, 2 error; others 0 ok, 1 failure or mismatch,\n"
               "2 usage error\n");
}

static int is_op(const char *a) {
    static const char *const ops[] = {"--hash", "--check", "--stats", "--diff", "--verify"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k]);
        if (strncmp(a, ops[k], n) == 0 && (a[n] == '\0' || (a[n] == '=' && k < 2))) return 1;
    }
    return 0;
}

int inspect_ops_wanted(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return 0;
        if (is_op(argv[i])) return 1;
    }
    return 0;
}

static void on_sigbus(int sig) {
    static const char msg[] = PROG ": bus error: a file was truncated or changed while its mapping was read; "
                                   "run again\n";
    (void)sig;
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(CLI_EXIT_FAIL);
}

enum { OP_NONE, OP_HASH, OP_CHECK, OP_STATS, OP_DIFF, OP_VERIFY };

int inspect_ops_main(int argc, char **argv) {
    int op = OP_NONE, json = 0, npos = 0;
    const char *value = NULL, *pos[3] = {NULL, NULL, NULL};
    static const char *const names[] = {"", "--hash", "--check", "--stats", "--diff", "--verify"};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int this_op = OP_NONE, r;
        if ((r = cli_opt_value(argc, argv, &i, "--hash", &v)) != 0) {
            this_op = OP_HASH;
        } else if ((r = cli_opt_value(argc, argv, &i, "--check", &v)) != 0) {
            this_op = OP_CHECK;
        } else if (cli_is(a, "--stats")) {
            this_op = OP_STATS;
        } else if (cli_is(a, "--diff")) {
            this_op = OP_DIFF;
        } else if (cli_is(a, "--verify")) {
            this_op = OP_VERIFY;
        } else if (cli_is(a, "--json")) {
            json = 1;
            continue;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            ops_usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(a, "--")) {
            for (i++; i < argc; i++) {
                if (npos == 3) {
                    fprintf(stderr, PROG ": too many files\n");
                    ops_usage(stderr);
                    return CLI_EXIT_USAGE;
                }
                pos[npos++] = argv[i];
            }
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, PROG ": option '");
            cli_esc_str(stderr, a);
            fprintf(stderr, "' cannot be combined with --hash, --check, --stats, --diff or --verify\n");
            ops_usage(stderr);
            return CLI_EXIT_USAGE;
        } else {
            if (npos == 3) {
                fprintf(stderr, PROG ": too many files\n");
                ops_usage(stderr);
                return CLI_EXIT_USAGE;
            }
            pos[npos++] = a;
            continue;
        }
        if (r < 0) {
            fprintf(stderr, PROG ": %s needs a value\n", names[this_op]);
            ops_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        if (op != OP_NONE) {
            fprintf(stderr, PROG ": only one of --hash, --check, --stats, --diff, --verify may be given\n");
            ops_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        op = this_op;
        value = v;
    }
    int want = op == OP_DIFF ? 2 : 1;
    if (npos != want) {
        fprintf(stderr, PROG ": %s takes %s\n", names[op],
                op == OP_DIFF    ? "two files, A and B"
                : op == OP_CHECK ? "MANIFEST and one FILE"
                                 : "one FILE");
        ops_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (json && op != OP_STATS) {
        fprintf(stderr, PROG ": --json goes with --stats only here\n");
        ops_usage(stderr);
        return CLI_EXIT_USAGE;
    }

    /* Tensor bytes are read with pread; only the headers are mapped. A header
     * cut short while it is read would raise SIGBUS: say what happened. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);

    switch (op) {
    case OP_HASH: return op_hash(value, pos[0]);
    case OP_CHECK: return op_check(value, pos[0]);
    case OP_STATS: return op_stats(pos[0], json);
    case OP_DIFF: return op_diff(pos[0], pos[1]);
    default: return op_verify(pos[0]);
    }
}
