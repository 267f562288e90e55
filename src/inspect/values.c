/* SPDX-License-Identifier: MIT */
/* values.c — a tensor's elements as numbers, a chunk at a time (bounded
 * memory): per-tensor statistics (--stats) and the model diff (--diff) with
 * its element-by-element comparison. Types whose values do not all fit a float
 * (f64, 32/64-bit integers) are read as doubles directly; every other type with
 * a decoder goes through the codec table (mio_decode_f32_mt). */
#include "inspect_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* caller-allocated outputs: a new field needs a _sized call (docs/ABI.md) */
ABI_FROZEN(mio_tensor_stats, zero_fraction);

mio_status mio_insp_reader_init(insp_reader *r, const mio_model *m, int64_t i) {
    memset(r, 0, sizeof *r);
    r->m = m;
    r->ti = i;
    r->t = &m->t[i];
    size_t bs = (size_t)mio_type_block_size(r->t->type), bb = mio_type_block_bytes(r->t->type);
    r->raw = malloc(INSPECT_ELEM_CHUNK / bs * bb);
    r->f = malloc(INSPECT_ELEM_CHUNK * sizeof *r->f);
    r->d = malloc(INSPECT_ELEM_CHUNK * sizeof *r->d);
    if (!r->raw || !r->f || !r->d) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    return MIO_OK;
}

void mio_insp_reader_free(insp_reader *r) {
    free(r->raw);
    free(r->f);
    free(r->d);
    memset(r, 0, sizeof *r);
}

static uint64_t rd_le(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

mio_status mio_insp_reader_next(insp_reader *r, size_t *n) {
    const mio_model_tensor *t = r->t;
    uint64_t left = t->n_elems - r->elem;
    size_t k = left < INSPECT_ELEM_CHUNK ? (size_t)left : INSPECT_ELEM_CHUNK;
    *n = k;
    if (!k) return MIO_OK;
    uint64_t bs = (uint64_t)mio_type_block_size(t->type), bb = mio_type_block_bytes(t->type);
    uint64_t boff = r->elem / bs * bb;
    size_t blen = (size_t)(k / bs * bb);
    mio_status st = mio_model_read(r->m, r->ti, boff, r->raw, blen);
    if (st != MIO_OK) return st;
    const unsigned char *p = r->raw;
    double *d = r->d;
    switch (t->type) {
    case MIO_TYPE_F64:
        for (size_t i = 0; i < k; i++) memcpy(&d[i], p + 8 * i, 8);
        break;
    case MIO_TYPE_I32:
        for (size_t i = 0; i < k; i++) d[i] = (int32_t)(uint32_t)rd_le(p + 4 * i, 4);
        break;
    case MIO_TYPE_I64:
        for (size_t i = 0; i < k; i++) d[i] = (double)(int64_t)rd_le(p + 8 * i, 8);
        break;
    case MIO_TYPE_U32:
        for (size_t i = 0; i < k; i++) d[i] = (double)rd_le(p + 4 * i, 4);
        break;
    case MIO_TYPE_U64:
        for (size_t i = 0; i < k; i++) d[i] = (double)rd_le(p + 8 * i, 8);
        break;
    default:
        if ((st = mio_decode_f32_mt(t->type, p, blen, r->f, k, 0)) != MIO_OK)
            return mio_err_set(st, "%s: tensor '%.*s' (data at bytes %" PRIu64 "..%" PRIu64 " of that file): cannot decode: %s",
                               r->m->files[t->file].path, (int)t->name.len, t->name.ptr, t->offset, t->offset + t->nbytes,
                               mio_last_error());
        for (size_t i = 0; i < k; i++) d[i] = r->f[i];
        break;
    }
    r->elem += k;
    return MIO_OK;
}

/* ------------------------------------------------------------------------- */
/* Statistics                                                                 */
/* ------------------------------------------------------------------------- */

MIO_API mio_status mio_model_tensor_stats(const mio_model *m, int64_t i, mio_tensor_stats *out) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    if (i < 0 || i >= m->n)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %" PRId64 " out of range (%" PRId64 " tensors)", i, m->n);
    mio_tensor_stats s;
    memset(&s, 0, sizeof s);
    s.elements = m->t[i].n_elems;
    s.min = s.max = s.mean = s.std = NAN;
    if (!mio_type_can_decode(m->t[i].type)) {
        *out = s;
        return MIO_OK;
    }
    s.decoded = 1;
    double mn = INFINITY, mx = -INFINITY, mean = 0, m2 = 0;
    insp_reader r;
    mio_status st = mio_insp_reader_init(&r, m, i);
    size_t k;
    while (st == MIO_OK && (st = mio_insp_reader_next(&r, &k)) == MIO_OK && k) {
        /* the chunk's own count, mean and sum of squared deviations (two
         * passes over values in memory), merged into the running ones with
         * Chan et al.'s pairwise update */
        uint64_t c = 0;
        double sum = 0;
        for (size_t j = 0; j < k; j++) {
            double v = r.d[j];
            if (isnan(v)) {
                s.nan++;
                continue;
            }
            if (isinf(v)) {
                s.inf++;
                continue;
            }
            if (v == 0) s.zeros++;
            if (v < mn) mn = v;
            if (v > mx) mx = v;
            sum += v;
            c++;
        }
        if (!c) continue;
        double mc = sum / (double)c, m2c = 0;
        for (size_t j = 0; j < k; j++) {
            double v = r.d[j];
            if (isfinite(v)) m2c += (v - mc) * (v - mc);
        }
        uint64_t nn = s.finite + c;
        double delta = mc - mean;
        mean += delta * (double)c / (double)nn;
        m2 += m2c + delta * delta * (double)s.finite * (double)c / (double)nn;
        s.finite = nn;
    }
    mio_insp_reader_free(&r);
    if (st != MIO_OK) return st;
    if (s.finite) {
        s.min = mn;
        s.max = mx;
        s.mean = mean;
        s.std = sqrt(m2 / (double)s.finite);
    }
    s.zero_fraction = s.elements ? (double)s.zeros / (double)s.elements : 0;
    *out = s;
    return MIO_OK;
}

static void put_shape(FILE *o, const mio_model_tensor *t) {
    fputc('[', o);
    for (uint32_t d = 0; d < t->n_dims; d++) fprintf(o, "%s%" PRIu64, d ? ", " : "", t->shape[d]);
    fputc(']', o);
}

static void put_num(FILE *o, double v) {
    char b[48];
    fputs(mio_format_f64(b, sizeof b, v), o);
}

MIO_API mio_status mio_stats_json(const char *path, char **text, size_t *len) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    if (!text) return mio_err_set(MIO_ERR_INVALID_ARG, "text is NULL");
    mio_model *m = NULL;
    mio_status st = mio_model_open(path, &m);
    if (st != MIO_OK) return st;
    mio_tensor_stats *s = calloc(m->n ? (size_t)m->n : 1, sizeof *s);
    if (!s) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < m->n && st == MIO_OK; i++) st = mio_model_tensor_stats(m, i, &s[i]);
    char *buf = NULL;
    size_t blen = 0;
    FILE *o = st == MIO_OK ? open_memstream(&buf, &blen) : NULL;
    if (st == MIO_OK && !o) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (st == MIO_OK) {
        char tb[32];
        char *q = mio_json_quote(path, strlen(path));
        fprintf(o, "{\n  \"file\": %s,\n  \"tensors\": [", q ? q : "\"\"");
        free(q);
        for (int64_t i = 0; i < m->n; i++) {
            const mio_model_tensor *t = &m->t[i];
            const mio_tensor_stats *x = &s[i];
            q = mio_json_quote(t->name.ptr, t->name.len);
            fprintf(o, "%s\n    {\"name\": %s, \"type\": \"%s\", \"shape\": ", i ? "," : "", q ? q : "\"\"",
                    mio_insp_type_text(t->type, tb, sizeof tb));
            free(q);
            put_shape(o, t);
            fprintf(o, ", \"elements\": %" PRIu64 ", \"decoded\": %s", x->elements, x->decoded ? "true" : "false");
            if (x->decoded) {
                fputs(", \"min\": ", o);
                put_num(o, x->min);
                fputs(", \"max\": ", o);
                put_num(o, x->max);
                fputs(", \"mean\": ", o);
                put_num(o, x->mean);
                fputs(", \"std\": ", o);
                put_num(o, x->std);
                fprintf(o, ", \"nan\": %" PRIu64 ", \"inf\": %" PRIu64 ", \"zeros\": %" PRIu64 ", \"zero_fraction\": ",
                        x->nan, x->inf, x->zeros);
                put_num(o, x->zero_fraction);
            }
            fputc('}', o);
        }
        fputs(m->n ? "\n  ]\n}\n" : "]\n}\n", o);
        st = mio_insp_stream_done(o, &buf, &blen, text, len);
    }
    free(s);
    mio_model_close(m);
    return st;
}

/* ------------------------------------------------------------------------- */
/* Diff                                                                       */
/* ------------------------------------------------------------------------- */

static int is_gguf(const mio_model *m) { return m->g != NULL; }

static void put_gguf_value(FILE *o, const mio_gguf_file *f, int64_t i) {
    mio_gguf_value v;
    if (mio_gguf_kv_value(f, i, &v) != MIO_OK) {
        fputs("?", o);
        return;
    }
    const char *tn = mio_gguf_type_name(v.type);
    fprintf(o, "%s ", tn ? tn : "?");
    if (v.type == MIO_GGUF_STRING) {
        fputc('"', o);
        size_t used = mio_insp_put_escaped(o, v.data, v.size, 60, 1);
        fputc('"', o);
        if (used < v.size) fprintf(o, "... (%zu bytes)", v.size);
    } else if (v.type == MIO_GGUF_ARRAY) {
        const char *en = mio_gguf_type_name(v.elem_type);
        fprintf(o, "[%" PRIu64 " %s]", v.count, en ? en : "?");
    } else if (v.type == MIO_GGUF_F32 || v.type == MIO_GGUF_F64) {
        double d = 0;
        char b[48];
        mio_gguf_value_f64(&v, &d);
        fputs(v.type == MIO_GGUF_F32 ? mio_format_f32(b, sizeof b, (float)d) : mio_format_f64(b, sizeof b, d), o);
    } else if (v.type == MIO_GGUF_U64 || v.type == MIO_GGUF_U32 || v.type == MIO_GGUF_U16 || v.type == MIO_GGUF_U8) {
        uint64_t u = 0;
        mio_gguf_value_u64(&v, &u);
        fprintf(o, "%" PRIu64, u);
    } else {
        int64_t s = 0;
        mio_gguf_value_i64(&v, &s);
        if (v.type == MIO_GGUF_BOOL)
            fputs(s ? "true" : "false", o);
        else
            fprintf(o, "%" PRId64, s);
    }
}

MIO_API mio_status mio_model_kv_text(const mio_model *m, int64_t i, char **text) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (!text) return mio_err_set(MIO_ERR_INVALID_ARG, "text is NULL");
    int64_t n = is_gguf(m) ? mio_gguf_kv_count(m->g) : mio_st_meta_count(m->s);
    if (i < 0 || i >= n)
        return mio_err_set(MIO_ERR_INVALID_ARG, "metadata index %" PRId64 " out of range (%" PRId64 " entries)", i, n);
    char *buf = NULL;
    size_t blen = 0;
    FILE *o = open_memstream(&buf, &blen);
    if (!o) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (is_gguf(m)) {
        put_gguf_value(o, m->g, i);
    } else {
        mio_str v = {NULL, 0};
        mio_st_meta_at(m->s, i, NULL, &v);
        fputc('"', o);
        size_t used = mio_insp_put_escaped(o, v.ptr, v.len, 60, 1);
        fputc('"', o);
        if (used < v.len) fprintf(o, "... (%zu bytes)", v.len);
    }
    return mio_insp_stream_done(o, &buf, &blen, text, NULL);
}

typedef struct keyref {
    const char *p;
    size_t n;
    int64_t i;
} keyref;

static int cmp_keyref(const void *a, const void *b) {
    const keyref *x = a, *y = b;
    return mio_insp_name_cmp(x->p, x->n, y->p, y->n);
}

static keyref *model_keys(const mio_model *m, int64_t *count) {
    int64_t n = is_gguf(m) ? mio_gguf_kv_count(m->g) : mio_st_meta_count(m->s);
    keyref *k = malloc((n > 0 ? (size_t)n : 1) * sizeof *k);
    if (!k) return NULL;
    for (int64_t i = 0; i < n; i++) {
        mio_str s = {NULL, 0};
        if (is_gguf(m))
            s = mio_gguf_kv_key(m->g, i);
        else
            mio_st_meta_at(m->s, i, &s, NULL);
        k[i] = (keyref){s.ptr, s.len, i};
    }
    qsort(k, (size_t)(n > 0 ? n : 0), sizeof *k, cmp_keyref);
    *count = n > 0 ? n : 0;
    return k;
}

static int same_value(const mio_model *a, int64_t ia, const mio_model *b, int64_t ib) {
    mio_str va, vb;
    if (is_gguf(a)) {
        if (mio_gguf_kv_type(a->g, ia) != mio_gguf_kv_type(b->g, ib) || mio_gguf_kv_raw(a->g, ia, &va) != MIO_OK ||
            mio_gguf_kv_raw(b->g, ib, &vb) != MIO_OK)
            return 0;
    } else if (mio_st_meta_at(a->s, ia, NULL, &va) != MIO_OK || mio_st_meta_at(b->s, ib, NULL, &vb) != MIO_OK) {
        return 0;
    }
    return va.len == vb.len && memcmp(va.ptr, vb.ptr, va.len) == 0;
}

static mio_status diff_meta(const mio_model *a, const mio_model *b, mio_diff_fn fn, void *user, uint64_t *nd) {
    *nd = 0;
    if (is_gguf(a) != is_gguf(b)) {
        mio_diff_item it = {.kind = MIO_DIFF_META_NOT_COMPARED, .a = -1, .b = -1};
        if (fn) fn(user, &it);
        return MIO_OK;
    }
    int64_t na = 0, nb = 0;
    keyref *ka = model_keys(a, &na), *kb = model_keys(b, &nb);
    if (!ka || !kb) {
        free(ka);
        free(kb);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    int64_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : mio_insp_name_cmp(ka[i].p, ka[i].n, kb[j].p, kb[j].n);
        mio_diff_item it = {.a = -1, .b = -1};
        if (c < 0) {
            it.kind = MIO_DIFF_KEY_ONLY_A;
            it.name = (mio_str){ka[i].p, ka[i].n};
            it.a = ka[i++].i;
        } else if (c > 0) {
            it.kind = MIO_DIFF_KEY_ONLY_B;
            it.name = (mio_str){kb[j].p, kb[j].n};
            it.b = kb[j++].i;
        } else {
            int same = same_value(a, ka[i].i, b, kb[j].i);
            it.kind = MIO_DIFF_KEY_CHANGED;
            it.name = (mio_str){ka[i].p, ka[i].n};
            it.a = ka[i++].i;
            it.b = kb[j++].i;
            if (same) continue;
        }
        (*nd)++;
        if (fn) fn(user, &it);
    }
    free(ka);
    free(kb);
    return MIO_OK;
}

static int same_shape(const mio_model_tensor *x, const mio_model_tensor *y) {
    if (x->n_dims != y->n_dims) return 0;
    for (uint32_t d = 0; d < x->n_dims; d++)
        if (x->shape[d] != y->shape[d]) return 0;
    return 1;
}

/* Compare the bytes of two tensors of one type and size: *equal, or *first
 * the offset of the first differing byte. */
static mio_status same_bytes(const mio_model *a, int64_t ia, const mio_model *b, int64_t ib, unsigned char *ba,
                             unsigned char *bb, int *equal, uint64_t *first) {
    const mio_model_tensor *ta = &a->t[ia];
    *equal = 1;
    for (uint64_t pos = 0; pos < ta->nbytes; pos += INSPECT_READ_CHUNK) {
        size_t len = ta->nbytes - pos < INSPECT_READ_CHUNK ? (size_t)(ta->nbytes - pos) : INSPECT_READ_CHUNK;
        mio_status st = mio_model_read(a, ia, pos, ba, len);
        if (st == MIO_OK) st = mio_model_read(b, ib, pos, bb, len);
        if (st != MIO_OK) return st;
        if (memcmp(ba, bb, len) != 0) {
            size_t k = 0;
            while (ba[k] == bb[k]) k++;
            *first = pos + k;
            *equal = 0;
            return MIO_OK;
        }
    }
    return MIO_OK;
}

/* Decode both to numbers and compare element by element into it. */
static mio_status diff_values(const mio_model *a, int64_t ia, const mio_model *b, int64_t ib, mio_diff_item *it) {
    insp_reader ra, rb;
    memset(&rb, 0, sizeof rb);
    mio_status st = mio_insp_reader_init(&ra, a, ia);
    if (st == MIO_OK) st = mio_insp_reader_init(&rb, b, ib);
    uint64_t idx = 0;
    double maxd = -1;
    while (st == MIO_OK) {
        size_t ka = 0, kb = 0;
        if ((st = mio_insp_reader_next(&ra, &ka)) != MIO_OK || (st = mio_insp_reader_next(&rb, &kb)) != MIO_OK || !ka)
            break;
        /* kb == ka: both tensors have n_elems elements (the caller checks), read in equal chunks */
        for (size_t i = 0; i < ka; i++, idx++) {
            double x = ra.d[i], y = rb.d[i]; /* NOLINT(clang-analyzer-core.uninitialized.Assign) */
            if (x == y || (isnan(x) && isnan(y))) continue;
            it->values_differ++;
            if (!isfinite(x) || !isfinite(y)) {
                it->nonfinite++;
                continue;
            }
            double dd = fabs(x - y);
            if (dd > maxd) {
                maxd = dd;
                it->has_max = 1;
                it->max_abs_diff = dd;
                it->max_at = idx;
                it->a_value = x;
                it->b_value = y;
            }
        }
    }
    mio_insp_reader_free(&ra);
    mio_insp_reader_free(&rb);
    if (st == MIO_OK) it->values_compared = 1;
    return st;
}

MIO_API mio_status mio_model_diff(const mio_model *a, const mio_model *b, mio_diff_fn fn, void *user, uint64_t *n_keys,
                                  uint64_t *n_tensors) {
    if (!a) return mio_err_set(MIO_ERR_INVALID_ARG, "model a is NULL");
    if (!b) return mio_err_set(MIO_ERR_INVALID_ARG, "model b is NULL");
    int64_t *ia = mio_insp_sorted_idx(a), *ib = mio_insp_sorted_idx(b);
    unsigned char *ba = malloc(INSPECT_READ_CHUNK), *bb = malloc(INSPECT_READ_CHUNK);
    uint64_t dm = 0, dt = 0;
    mio_status st = ia && ib && ba && bb ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (st == MIO_OK) st = diff_meta(a, b, fn, user, &dm);
    int64_t i = 0, j = 0;
    const int64_t na = a->n, nb = b->n;
    while (st == MIO_OK && (i < na || j < nb)) {
        const mio_model_tensor *x = i < na ? &a->t[ia[i]] : NULL, *y = j < nb ? &b->t[ib[j]] : NULL;
        int c = !x ? 1 : !y ? -1 : mio_insp_name_cmp(x->name.ptr, x->name.len, y->name.ptr, y->name.len);
        mio_diff_item it = {.a = -1, .b = -1};
        if (c < 0) {
            it.kind = MIO_DIFF_TENSOR_ONLY_A;
            it.a = ia[i++];
            it.name = a->t[it.a].name;
        } else if (c > 0) {
            it.kind = MIO_DIFF_TENSOR_ONLY_B;
            it.b = ib[j++];
            it.name = b->t[it.b].name;
        } else if (x && y) { /* c == 0: both exist */
            it.kind = MIO_DIFF_TENSOR_CHANGED;
            it.name = x->name;
            it.a = ia[i++];
            it.b = ib[j++];
            it.shape_changed = !same_shape(x, y);
            it.type_changed = x->type != y->type;
            if (!it.shape_changed && !it.type_changed) {
                int equal = 1;
                if ((st = same_bytes(a, it.a, b, it.b, ba, bb, &equal, &it.first_byte)) != MIO_OK) break;
                if (equal) continue;
                it.bytes_compared = 1;
            }
            if (x->n_elems == y->n_elems && mio_type_can_decode(x->type) && mio_type_can_decode(y->type))
                if ((st = diff_values(a, it.a, b, it.b, &it)) != MIO_OK) break;
        } else {
            break;
        }
        dt++;
        if (fn) fn(user, &it);
    }
    free(ia);
    free(ib);
    free(ba);
    free(bb);
    if (st != MIO_OK) return st;
    if (n_keys) *n_keys = dm;
    if (n_tensors) *n_tensors = dt;
    return MIO_OK;
}
