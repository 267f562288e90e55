/* SPDX-License-Identifier: MIT */
/* qcli.c — parsing of the quantizer flags shared by mio-quantize and
 * mio-export-gguf into mio_quantize_params (see qcli.h). Values are checked
 * here only as far as their syntax goes; the library judges the rest. */
#define _POSIX_C_SOURCE 200809L
#include "qcli.h"

#include <modelio_inspect.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void qcli_init(qcli *q) {
    memset(q, 0, sizeof *q);
    mio_quantize_default_params(&q->p);
}

void qcli_free(qcli *q) {
    for (size_t i = 0; i < q->n_owned; i++) free(q->owned[i]);
    free(q->owned);
    free(q->tt);
    for (size_t i = 0; i < q->n_kv; i++) mio_free(q->kv_blocks[i]);
    free(q->kv_blocks);
    free(q->kv);
    free(q->prune);
    free(q->incl);
    free(q->excl);
    memset(q, 0, sizeof *q);
}

/* Grow *arr (elements of size es) to hold one more; 0 on failure. */
static int grow(void **arr, size_t *cap, size_t n, size_t es) {
    if (n < *cap) return 1;
    size_t nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*arr, nc * es);
    if (!p) return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

static char *own(qcli *q, const char *s, size_t n) {
    if (!grow((void **)&q->owned, &q->cap_owned, q->n_owned, sizeof *q->owned)) return NULL;
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    q->owned[q->n_owned++] = c;
    return c;
}

int qcli_type(const char *name) {
    int t = mio_type_from_name(name);
    return t >= 0 && t < MIO_TYPE_GGML_COUNT ? t : -1;
}

static int bad(const char *prog, const char *flag, const char *value, const char *why) {
    fprintf(stderr, "%s: %s ", prog, flag);
    cli_esc_str(stderr, value);
    fprintf(stderr, ": %s\n", why);
    return -1;
}

static int add_tensor_type(qcli *q, const char *prog, const char *flag, const char *spec) {
    const char *eq = strrchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) return bad(prog, flag, spec, "expected REGEX=TYPE");
    int t = qcli_type(eq + 1);
    if (t < 0) return bad(prog, flag, spec, "unknown tensor type after '='");
    if (!grow((void **)&q->tt, &q->cap_tt, q->n_tt, sizeof *q->tt)) return bad(prog, flag, spec, "out of memory");
    /* as given: mio_quantize lower-cases the pattern as llama-quantize does */
    const char *pat = own(q, spec, (size_t)(eq - spec));
    if (!pat) return bad(prog, flag, spec, "out of memory");
    q->tt[q->n_tt++] = (mio_tensor_type_override){pat, t};
    q->p.tensor_types = q->tt;
    q->p.n_tensor_types = q->n_tt;
    return 1;
}

/* REGEX=TYPE items separated by white space (as llama-quantize reads the file). */
static int tensor_type_file(qcli *q, const char *prog, const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) return bad(prog, "--tensor-type-file", path, strerror(errno));
    char item[4096];
    int rc = 1;
    while (rc == 1 && fscanf(fp, "%4095s", item) == 1) rc = add_tensor_type(q, prog, "--tensor-type-file", item);
    fclose(fp);
    return rc;
}

/* KEY=TYPE:VALUE (TYPE int, float, bool or str), parsed by the library. */
static int kv_override(qcli *q, const char *prog, const char *spec) {
    if (!grow((void **)&q->kv, &q->cap_kv, q->n_kv, sizeof *q->kv) ||
        !grow((void **)&q->kv_blocks, &q->cap_kv_blocks, q->n_kv, sizeof(void *)))
        return bad(prog, "--override-kv", spec, "out of memory");
    mio_kv_override *o = NULL;
    if (mio_kv_override_parse(spec, &o) != MIO_OK) return bad(prog, "--override-kv", spec, mio_last_error());
    q->kv_blocks[q->n_kv] = o;
    q->kv[q->n_kv++] = *o;
    q->p.kv_overrides = q->kv;
    q->p.n_kv_overrides = q->n_kv;
    return 1;
}

static int prune_layers(qcli *q, const char *prog, const char *spec) {
    const char *s = spec;
    while (*s) {
        char *end = NULL;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 0 || v > 100000 || (*end && *end != ','))
            return bad(prog, "--prune-layers", spec, "expected a comma-separated list of layer numbers");
        int32_t *np = realloc(q->prune, (q->n_prune + 1) * sizeof *np);
        if (!np) return bad(prog, "--prune-layers", spec, "out of memory");
        q->prune = np;
        q->prune[q->n_prune++] = (int32_t)v;
        s = *end ? end + 1 : end;
    }
    if (!q->n_prune) return bad(prog, "--prune-layers", spec, "no layer given");
    /* as given: mio_quantize sorts the list and drops duplicates as llama-quantize does */
    q->p.prune_layers = q->prune;
    q->p.n_prune_layers = q->n_prune;
    return 1;
}

static int add_name(qcli *q, const char *prog, const char *flag, const char *v, int incl) {
    const char ***arr = incl ? &q->incl : &q->excl;
    size_t *n = incl ? &q->n_incl : &q->n_excl, *cap = incl ? &q->cap_incl : &q->cap_excl;
    if (!grow((void **)arr, cap, *n, sizeof **arr)) return bad(prog, flag, v, "out of memory");
    (*arr)[(*n)++] = v;
    if (incl) {
        q->p.include_weights = q->incl;
        q->p.n_include_weights = q->n_incl;
    } else {
        q->p.exclude_weights = q->excl;
        q->p.n_exclude_weights = q->n_excl;
    }
    return 1;
}

int qcli_flag(qcli *q, const char *prog, int argc, char **argv, int *i) {
    const char *a = argv[*i], *v = NULL;
    int r;
    if (cli_is(a, "--leave-output-tensor")) {
        q->p.leave_output_tensor = 1;
        return 1;
    }
    if (cli_is(a, "--allow-requantize")) {
        q->p.allow_requantize = 1;
        return 1;
    }
    if (cli_is(a, "--pure")) {
        q->p.pure = 1;
        return 1;
    }
    if (cli_is(a, "--keep-split")) {
        q->p.keep_split = 1;
        return 1;
    }
    if (cli_is(a, "--dry-run")) {
        q->p.dry_run = 1;
        return 1;
    }
    static const char *const valued[] = {
        "--imatrix",     "--include-weights",  "--exclude-weights", "--output-tensor-type", "--token-embedding-type",
        "--tensor-type", "--tensor-type-file", "--override-kv",     "--prune-layers",       "--experts-dtype"};
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
        if ((r = cli_opt_value(argc, argv, i, valued[k], &v)) == 0) continue;
        if (r < 0) {
            fprintf(stderr, "%s: option '%s' needs a value\n", prog, valued[k]);
            return -1;
        }
        switch (k) {
        case 0: q->p.imatrix_path = v; return 1;
        case 1: return add_name(q, prog, valued[k], v, 1);
        case 2: return add_name(q, prog, valued[k], v, 0);
        case 3:
        case 4:
        case 9: {
            int t = qcli_type(v);
            if (t < 0) return bad(prog, valued[k], v, "unknown tensor type");
            if (k == 3)
                q->p.output_tensor_type = t;
            else if (k == 4)
                q->p.token_embedding_type = t;
            else
                q->p.experts_type = t;
            return 1;
        }
        case 5: return add_tensor_type(q, prog, valued[k], v);
        case 6: return tensor_type_file(q, prog, v);
        case 7: return kv_override(q, prog, v);
        case 8: return prune_layers(q, prog, v);
        default: return 0;
        }
    }
    return 0;
}

void qcli_unknown_preset(const char *prog, const char *name) {
    const char *best = mio_preset_suggest(name);
    fprintf(stderr, "%s: unknown quantization type '", prog);
    cli_esc_str(stderr, name);
    fprintf(stderr, "'");
    if (best) fprintf(stderr, "; did you mean '%s'?", best);
    fprintf(stderr, "\n  valid types:");
    for (int p = 0; p < 64; p++)
        if (mio_preset_name(p)) fprintf(stderr, " %s", mio_preset_name(p));
    fputc('\n', stderr);
}

/* ----------------------------------------------------------- running + report */

typedef struct qdec {
    char *name;
    size_t name_len;
    uint32_t n_dims;
    int64_t ne[4];
    int in_type, out_type;
    uint64_t in_bytes, out_bytes;
    const char *why;
} qdec;

typedef struct qctx {
    qdec *d;
    size_t n, cap;
    int oom;
    int show_progress;
    int tensor_log;
    double t0, last;
} qctx;

static void on_plan(void *user, const mio_quant_decision *d) {
    qctx *c = user;
    if (c->oom) return;
    if (!grow((void **)&c->d, &c->cap, c->n, sizeof *c->d) || !(c->d[c->n].name = malloc(d->name.len + 1))) {
        c->oom = 1;
        return;
    }
    qdec *q = &c->d[c->n++];
    memcpy(q->name, d->name.ptr, d->name.len);
    q->name[d->name.len] = '\0';
    q->name_len = d->name.len;
    q->n_dims = d->n_dims;
    memcpy(q->ne, d->ne, sizeof q->ne);
    q->in_type = d->in_type;
    q->out_type = d->out_type;
    q->in_bytes = d->in_bytes;
    q->out_bytes = d->out_bytes;
    q->why = d->why; /* static in the library */
}

static int on_progress(void *user, int64_t done, int64_t total, uint64_t bytes, uint64_t total_bytes) {
    qctx *c = user;
    if (c->tensor_log && done > 0 && (size_t)done <= c->n) {
        /* llama-quantize's per-tensor line */
        const qdec *d = &c->d[done - 1];
        fprintf(stderr, "[%4lld/%4lld] ", (long long)done, (long long)total);
        size_t shown = cli_print_escaped(stderr, d->name, d->name_len, SIZE_MAX, 0);
        fprintf(stderr, "%*s - [%6lld, %6lld, %6lld, %6lld], type = %6s, ", shown < 36 ? (int)(36 - shown) : 0, "",
                (long long)d->ne[0], (long long)d->ne[1], (long long)d->ne[2], (long long)d->ne[3],
                mio_type_name(d->in_type));
        if (d->out_type != d->in_type)
            fprintf(stderr, "converting to %s .. size = %8.2f MiB -> %8.2f MiB\n", mio_type_name(d->out_type),
                    (double)d->in_bytes / 1048576.0, (double)d->out_bytes / 1048576.0);
        else
            fprintf(stderr, "size = %8.3f MiB\n", (double)d->in_bytes / 1048576.0);
        return 0;
    }
    if (!c->show_progress) return 0;
    const qdec *d = done > 0 && (size_t)done <= c->n ? &c->d[done - 1] : NULL;
    cli_progress_line(&c->last, c->t0, done, total, bytes, total_bytes, d ? d->name : NULL, d ? d->name_len : 0);
    return 0;
}

static void print_shape(FILE *o, const qdec *d) {
    fputc('[', o);
    for (uint32_t k = d->n_dims; k-- > 0;) fprintf(o, "%lld%s", (long long)d->ne[k], k ? ", " : "");
    fputc(']', o);
}

static uint64_t elements(const qdec *d) {
    uint64_t n = 1;
    for (uint32_t k = 0; k < d->n_dims; k++) n *= (uint64_t)d->ne[k];
    return n;
}

int qcli_run(qcli *q, const char *prog, const char *in, const char *out, const char *mode, const char *label,
             int quiet) {
    int to_stdout = out && !q->p.dry_run && cli_is_stdout(out);
    if (to_stdout && !cli_stdout_usable(prog)) return CLI_EXIT_USAGE;
    /* the input's facts for the notes (the library opens it again to quantize) */
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(in, MIO_OPEN_SPLITS, &f) != MIO_OK) {
        cli_report(prog, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    uint32_t parts = mio_gguf_part_count(f), in_version = mio_gguf_version(f);
    uint64_t in_size = mio_gguf_file_size(f), pad_at = 0;
    uint32_t pad_part;
    int pad_nonzero = parts == 1 && mio_gguf_find_nonzero_padding(f, &pad_part, &pad_at) == MIO_OK;
    int clobber = out && !to_stdout && !q->p.dry_run && mio_gguf_uses_file(f, out);
    mio_gguf_close(f);
    if (clobber) {
        fprintf(stderr, "%s: output ", prog);
        cli_esc_str(stderr, out);
        fprintf(stderr, " is one of the input files; refusing to overwrite it\n");
        return CLI_EXIT_USAGE;
    }

    qctx c;
    memset(&c, 0, sizeof c);
    c.t0 = cli_now();
    c.show_progress = !quiet && !q->p.dry_run && isatty(STDERR_FILENO);
    c.tensor_log = !quiet && !c.show_progress && q->tensor_log;
    q->p.plan = on_plan;
    q->p.plan_user = &c;
    q->p.progress = on_progress;
    q->p.progress_user = &c;
    mio_status st = to_stdout ? mio_quantize_fd(in, STDOUT_FILENO, &q->p) : mio_quantize(in, out, &q->p);
    cli_set_progress_line(0);
    if (c.show_progress && c.n) fputc('\n', stderr);
    int rc = CLI_EXIT_OK;
    if (c.oom) {
        fprintf(stderr, "%s: out of memory\n", prog);
        rc = CLI_EXIT_FAIL;
        goto done;
    }
    if (st != MIO_OK) {
        /* write failures name the output, everything else the input */
        cli_report(prog, (st == MIO_ERR_IO || st == MIO_ERR_CANCELLED) && out && !to_stdout ? out : in,
                   mio_last_error());
        rc = st == MIO_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
        goto done;
    }
    int64_t n_conv = 0;
    uint64_t total_in = 0, total_out = 0, elems = 0, max_f32 = 0, max_enc = 0;
    int64_t n_rows = 0, n_other = 0;
    for (size_t k = 0; k < c.n; k++) {
        const qdec *d = &c.d[k];
        total_in += d->in_bytes;
        total_out += d->out_bytes;
        elems += elements(d);
        if (d->out_type != d->in_type) {
            n_conv++;
            uint64_t row = (uint64_t)d->ne[0] * 4, rows = elements(d) / (uint64_t)(d->ne[0] ? d->ne[0] : 1);
            /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): on_plan (called by the library) filled c.d */
            uint64_t chunk_rows = row ? (4u << 20) / row : 1;
            if (chunk_rows == 0) chunk_rows = 1;
            if (chunk_rows > rows) chunk_rows = rows;
            if (chunk_rows * row > max_f32) max_f32 = chunk_rows * row;
            uint64_t enc = d->out_bytes / (rows ? rows : 1) * chunk_rows;
            if (enc > max_enc) max_enc = enc;
        } else if (d->why && strcmp(d->why, "row not a whole number of blocks") == 0) {
            n_rows++;
        } else if (d->why && strcmp(d->why, "verbatim") != 0) {
            n_other++;
        }
    }
    char a[32], b[32], h[32];
    if (q->p.dry_run) {
        printf("plan for ");
        cli_esc_str(stdout, in);
        printf(" -> ");
        if (out)
            cli_esc_str(stdout, out);
        else
            printf("(dry run)");
        printf(" (%s): %lld of %zu %s converted\n", mode, (long long)n_conv, c.n, cli_plural(c.n, "tensor", "tensors"));
        if (parts > 1) printf("input: %u split parts, merged into one output file\n", parts);
        for (size_t k = 0; k < c.n; k++) {
            const qdec *d = &c.d[k];
            printf("  ");
            size_t shown = cli_print_escaped(stdout, d->name, d->name_len, SIZE_MAX, 0);
            printf("%*s ", shown < 40 ? (int)(40 - shown) : 0, "");
            print_shape(stdout, d);
            printf("  %s -> %s  %llu -> %llu bytes", mio_type_name(d->in_type), mio_type_name(d->out_type),
                   (unsigned long long)d->in_bytes, (unsigned long long)d->out_bytes);
            /* the same output for two different reasons, kept apart for reading */
            /* NOLINTBEGIN(bugprone-branch-clone) */
            if (d->out_type == d->in_type && d->why && strncmp(d->why, "kept", 4) == 0)
                printf("  (%s)", d->why);
            else if (d->out_type == d->in_type)
                printf("  (kept: %s)", d->why ? d->why : "same type");
            else if (d->why && strcmp(d->why, "converted") != 0)
                printf("  (%s)", d->why);
            /* NOLINTEND(bugprone-branch-clone) */
            putchar('\n');
        }
        printf("bytes: %s in, %s out", mio_format_size(a, sizeof a, total_in), mio_format_size(b, sizeof b, total_out));
        if (elems) printf(" (%.2f bits/weight)", (double)total_out * 8.0 / (double)elems);
        printf("; peak working set per tensor: %s\n", mio_format_size(h, sizeof h, max_f32 + max_enc));
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "%s: error writing the plan to standard output\n", prog);
            rc = CLI_EXIT_FAIL;
        }
        goto done;
    }
    /* Converting nothing gives a copy: say so even with --quiet, and why. */
    if (n_conv == 0 && (q->p.dtype >= 0 || q->p.preset != MIO_PRESET_NONE)) {
        fprintf(stderr, "%s: warning: %s%s converted no tensor; the output holds the same tensors as the input", prog,
                q->p.dtype >= 0 ? "--dtype " : "", label);
        if (n_rows)
            fprintf(stderr, "; %lld matrix %s a row length that is not a multiple of %lld", (long long)n_rows,
                    cli_plural((uint64_t)n_rows, "weight has", "weights have"),
                    (long long)(q->p.dtype >= 0 ? mio_type_block_size(q->p.dtype) : 0));
        if (n_other)
            fprintf(stderr, "; %lld %s not a matrix weight", (long long)n_other,
                    cli_plural((uint64_t)n_other, "tensor is", "tensors are"));
        fputs(" (--dry-run shows the plan)\n", stderr);
    }
    if (!quiet) {
        uint64_t out_size;
        int64_t nkv;
        cli_written_gguf(out, to_stdout, &out_size, &nkv);
        double secs = cli_now() - c.t0;
        fprintf(stderr, "%s: wrote ", prog);
        if (to_stdout)
            fputs("standard output", stderr);
        else
            cli_esc_str(stderr, out);
        if (q->p.keep_split) fprintf(stderr, "-0000K-of-%05u.gguf", parts);
        fprintf(stderr, ": %zu %s", c.n, cli_plural(c.n, "tensor", "tensors"));
        if (q->p.dtype >= 0 || q->p.preset != MIO_PRESET_NONE)
            fprintf(stderr, " (%lld converted to %s, %lld kept)", (long long)n_conv, label, (long long)c.n - n_conv);
        else
            fputs(" (verbatim)", stderr);
        if (nkv >= 0) fprintf(stderr, ", %lld %s", (long long)nkv, cli_plural((uint64_t)nkv, "key", "keys"));
        if (parts > 1) fprintf(stderr, " (from %u split parts, split.* keys dropped)", parts);
        fprintf(stderr, "; %s in, %s out", mio_format_size(a, sizeof a, total_in),
                mio_format_size(b, sizeof b, total_out));
        if (out_size) fprintf(stderr, " (%llu bytes)", (unsigned long long)out_size);
        if (elems) fprintf(stderr, ", %.2f bits/weight", (double)total_out * 8.0 / (double)elems);
        fprintf(stderr, "; %.3f s, %.1f MB/s; peak RSS %s\n", secs, secs > 0 ? (double)total_in / 1e6 / secs : 0.0,
                mio_format_size(h, sizeof h, cli_peak_rss()));
        if (q->p.dtype < 0 && q->p.preset == MIO_PRESET_NONE && parts == 1) {
            if (in_version != 3 || (out_size && out_size != in_size))
                fprintf(stderr,
                        "%s: note: input was GGUF v%u of %llu bytes; the output is v3 of %llu bytes (re-emitted, "
                        "not byte-identical)\n",
                        prog, in_version, (unsigned long long)in_size, (unsigned long long)out_size);
            else if (pad_nonzero)
                fprintf(stderr,
                        "%s: note: the input has a non-zero padding byte at offset %llu (outside the header and "
                        "tensor data); the output pads with zeros, so it is not byte-identical\n",
                        prog, (unsigned long long)pad_at);
        }
    }
done:
    for (size_t k = 0; k < c.n; k++) free(c.d[k].name);
    free(c.d);
    return rc;
}
