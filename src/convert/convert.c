/* SPDX-License-Identifier: MIT */
/* convert.c — GGUF <-> safetensors (mio_gguf_to_st,
 * mio_st_to_gguf). Streamed: tensor bytes go through one 4 MiB chunk
 * at a time (decoded or cast on the way when asked), the output header is
 * computed before the first data byte, and path outputs are atomic. GGUF
 * metadata travels in __metadata__ under the encoding of metacodec.c plus a
 * layout document (__gguf__) that restores the exact GGUF file: key order and
 * wire types, tensor order, version, padding style (docs/CONVERT.md). */
#include "convert/convert_internal.h"
#include "safetensors/st_internal.h"

#include "core/json.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK ST_FILL_CHUNK

ABI_FROZEN(mio_convert_params, n_edits);

void mio_convert_default_params(mio_convert_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->dtype = -1;
}

mio_status mio_convert_default_params_sized(mio_convert_params *p, size_t size) {
    mio_convert_params d;
    mio_convert_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_convert_params");
}

static mio_status check_params(const mio_convert_params *p, mio_convert_params *out) {
    mio_convert_default_params(out);
    if (!p) return MIO_OK;
    /* sizes from before edits were added are read with no edits; a newer header's
     * larger struct is read if its unknown tail is zero (docs/ABI.md) */
    mio_status st = mio_abi_params_merge(out, sizeof *out, p, offsetof(mio_convert_params, progress_user) + sizeof(void *),
                                         "mio_convert_params", "mio_convert_default_params");
    if (st) return st;
    if (out->dtype != -1 && out->dtype != MIO_TYPE_F32 && out->dtype != MIO_TYPE_F16 && out->dtype != MIO_TYPE_BF16)
        return mio_err_set(MIO_ERR_INVALID_ARG, "dtype %d: the conversion casts to F32, F16 or BF16 only", out->dtype);
    if (out->n_edits && !out->edits) return mio_err_set(MIO_ERR_INVALID_ARG, "edits is NULL (n_edits %zu)", out->n_edits);
    if (out->n_rename && (!out->rename_from || !out->rename_to))
        return mio_err_set(MIO_ERR_INVALID_ARG, "rename_from/rename_to is NULL (n_rename %zu)", out->n_rename);
    for (size_t k = 0; k < out->n_rename; k++) {
        if (!out->rename_from[k] || !out->rename_to[k] || !*out->rename_from[k] || !*out->rename_to[k])
            return mio_err_set(MIO_ERR_INVALID_ARG, "rename %zu: a name is NULL or empty", k);
        for (size_t j = 0; j < k; j++) {
            if (strcmp(out->rename_from[j], out->rename_from[k]) == 0)
                return mio_err_set(MIO_ERR_INVALID_ARG, "rename: '%s' is renamed twice", out->rename_from[k]);
            if (strcmp(out->rename_to[j], out->rename_to[k]) == 0)
                return mio_err_set(MIO_ERR_INVALID_ARG, "rename: two tensors ('%s', '%s') would both be named '%s'",
                                   out->rename_from[j], out->rename_from[k], out->rename_to[k]);
        }
    }
    return MIO_OK;
}

/* The output name of a tensor; marks the rename used. */
static const char *renamed(const mio_convert_params *p, const char *name, bool *used) {
    for (size_t k = 0; k < p->n_rename; k++)
        if (strcmp(p->rename_from[k], name) == 0) {
            used[k] = true;
            return p->rename_to[k];
        }
    return name;
}

static mio_status unused_renames(const mio_convert_params *p, const bool *used) {
    for (size_t k = 0; k < p->n_rename; k++)
        if (!used[k])
            return mio_err_set(MIO_ERR_NOT_FOUND, "rename: the model has no tensor named '%s'", p->rename_from[k]);
    return MIO_OK;
}

static bool is_float_type(int t) {
    return t == MIO_TYPE_F32 || t == MIO_TYPE_F16 || t == MIO_TYPE_BF16 || t == MIO_TYPE_F64;
}

/* Types GGUF and safetensors both have, bytes identical. */
static bool shared_type(int t) {
    return is_float_type(t) || t == MIO_TYPE_I8 || t == MIO_TYPE_I16 || t == MIO_TYPE_I32 || t == MIO_TYPE_I64;
}

static size_t elem_bytes(int t) { return (size_t)mio_type_block_bytes(t) / (size_t)mio_type_block_size(t); }

/* ------------------------------------------------------------------------- */
/* One tensor's bytes, converted chunk by chunk                               */
/* ------------------------------------------------------------------------- */

typedef struct xtensor {
    char *name;          /* output name */
    const uint8_t *src;  /* input bytes */
    uint64_t src_bytes;
    int in_type, out_type;
    uint64_t n_elems;
    uint64_t out_bytes;
} xtensor;

typedef struct xctx {
    xtensor *t;
    size_t n;
    float *tmp;          /* CHUNK bytes of f32 scratch, or NULL when not needed */
    int n_threads;
    mio_quant_progress_fn progress;
    void *progress_user;
    uint64_t bytes_done, bytes_total;
    int64_t tensors_done;
} xctx;

/* Fill dst with len output bytes of tensor x starting at output byte off. */
static mio_status convert_chunk(xctx *c, const xtensor *x, uint64_t off, void *dst, size_t len) {
    if (x->in_type == x->out_type) {
        memcpy(dst, x->src + off, len);
        return MIO_OK;
    }
    size_t eo = elem_bytes(x->out_type);
    uint64_t e0 = off / eo;
    size_t ne = len / eo;
    int64_t bs = mio_type_block_size(x->in_type);
    if (e0 % (uint64_t)bs || (ne % (size_t)bs && e0 + ne != x->n_elems))
        return mio_err_set(MIO_ERR_STATE, "tensor '%s': chunk not on a block boundary", x->name);
    float *f = x->out_type == MIO_TYPE_F32 ? dst : c->tmp;
    const uint8_t *s = x->src + e0 / (uint64_t)bs * mio_type_block_bytes(x->in_type);
    size_t sl = (ne + (size_t)bs - 1) / (size_t)bs * mio_type_block_bytes(x->in_type);
    mio_status st;
    if (x->in_type == MIO_TYPE_F64) {
        for (size_t k = 0; k < ne; k++) {
            double d;
            memcpy(&d, s + 8 * k, 8);
            f[k] = (float)d;
        }
        st = MIO_OK;
    } else {
        st = mio_decode_f32_mt(x->in_type, s, sl, f, ne, c->n_threads);
    }
    if (!st && x->out_type != MIO_TYPE_F32) st = mio_encode_f32(x->out_type, f, ne, dst, len);
    if (st) return mio_err_prefix(st, "tensor '%s': ", x->name);
    return MIO_OK;
}

static mio_status report(xctx *c, size_t len, bool tensor_done) {
    c->bytes_done += len;
    if (tensor_done) c->tensors_done++;
    if (c->progress && c->progress(c->progress_user, c->tensors_done, (int64_t)c->n, c->bytes_done, c->bytes_total))
        return mio_err_set(MIO_ERR_CANCELLED, "cancelled by the progress callback");
    return MIO_OK;
}

static mio_status st_fill(void *user, size_t index, uint64_t off, void *dst, size_t len) {
    xctx *c = user;
    const xtensor *x = &c->t[index];
    mio_status st = convert_chunk(c, x, off, dst, len);
    return st ? st : report(c, len, off + len == x->out_bytes);
}

static void xctx_free(xctx *c) {
    for (size_t k = 0; k < c->n; k++) free(c->t[k].name);
    free(c->t);
    free(c->tmp);
}

/* ------------------------------------------------------------------------- */
/* GGUF -> safetensors                                                        */
/* ------------------------------------------------------------------------- */

/* The canonical safetensors order (dtype descending, then name bytewise). */
static int st_order_cmp(int dtype_a, const char *a, int dtype_b, const char *b) {
    if (dtype_a != dtype_b) return dtype_a > dtype_b ? -1 : 1;
    return strcmp(a, b);
}

static bool key_is(const mio_str *k, const char *s) { return k->len == strlen(s) && memcmp(k->ptr, s, k->len) == 0; }
static bool key_starts(const mio_str *k, const char *s) {
    size_t n = strlen(s);
    return k->len >= n && memcmp(k->ptr, s, n) == 0;
}
static bool is_split_key(const mio_str *k) { return mio_gguf_is_split_key(k->ptr, k->len); }

/* ggml pads an empty data section to the alignment, gguf-py does not. */
static bool empty_unpadded(const mio_gguf_file *f, size_t nt) {
    const gguf_part *p = &f->parts[0];
    return nt == 0 && f->n_parts == 1 && p->region.size == p->header_size && p->header_size % f->alignment;
}

/* A GGUF that holds nothing a safetensors file cannot say (as written by
 * mio_st_to_gguf from a plain safetensors file): version 3, only
 * safetensors.metadata.* strings in key order and then at most the scalar
 * list, tensors in safetensors order, no decoding or renaming. Then no layout
 * document is written, so safetensors -> GGUF -> safetensors is exact. */
static bool plain_st_origin(const mio_gguf_file *f, const mio_gguf_file *kvf, const xtensor *xt, size_t nt,
                            bool changed) {
    if (changed || f->version != 3) return false;
    const mio_str *prev = NULL;
    for (uint64_t i = 0; i < kvf->n_kv; i++) {
        const gguf_kv *kv = &kvf->kv[i];
        if (is_split_key(&kv->key)) continue;
        if (key_is(&kv->key, MC_SCALARS_KEY)) {
            if (kv->type != MIO_GGUF_ARRAY || kv->elem_type != MIO_GGUF_STRING) return false;
            for (uint64_t j = i + 1; j < kvf->n_kv; j++)
                if (!is_split_key(&kvf->kv[j].key)) return false; /* must be last */
            continue;
        }
        if (!key_starts(&kv->key, MC_ST_PREFIX) || kv->type != MIO_GGUF_STRING || !mio_mc_plain_text(kv->val, kv->val_len) ||
            !mio_mc_plain_text((const uint8_t *)kv->key.ptr, kv->key.len))
            return false;
        if (prev) {
            size_t m = prev->len < kv->key.len ? prev->len : kv->key.len;
            int d = memcmp(prev->ptr, kv->key.ptr, m);
            if (d > 0 || (d == 0 && prev->len >= kv->key.len)) return false;
        }
        prev = &kv->key;
    }
    for (size_t k = 1; k < nt; k++)
        if (st_order_cmp(mio_type_to_st_dtype(xt[k - 1].out_type), xt[k - 1].name, mio_type_to_st_dtype(xt[k].out_type),
                         xt[k].name) > 0)
            return false;
    return !empty_unpadded(f, nt); /* a plain origin is ours: padded */
}

typedef struct metas {
    mio_st_meta *m;
    size_t n;
} metas;

static void metas_free(metas *ms) {
    for (size_t k = 0; k < ms->n; k++) {
        free((char *)ms->m[k].key);
        free((char *)ms->m[k].value);
    }
    free(ms->m);
}

static char *dup_n(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* The scalar list of a plain origin: names whose shape is [] in safetensors. */
static bool in_scalar_list(const gguf_kv *list, const char *name) {
    if (!list) return false;
    const uint8_t *p = list->val;
    size_t n = strlen(name);
    for (uint64_t k = 0; k < list->count; k++) {
        uint64_t l = ld64(p);
        if (l == n && memcmp(p + 8, name, n) == 0) return true;
        p += 8 + l;
    }
    return false;
}

/* The __metadata__ entries for f, whose key-values are read from kvf (f itself,
 * or a copy with edits applied). */
static mio_status build_metadata(const mio_gguf_file *f, const mio_gguf_file *kvf, const xtensor *xt, size_t nt,
                                 bool plain, metas *ms) {
    ms->m = calloc(kvf->n_kv + 2, sizeof *ms->m);
    ms->n = 0;
    if (!ms->m) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mc_buf layout = {0};
    if (!plain) {
        char t[64];
        snprintf(t, sizeof t, "{\"version\":%u,\"empty_pad\":%s,\"kv\":[", f->version,
                 empty_unpadded(f, nt) ? "false" : "true");
        mio_mc_str(&layout, t);
    }
    bool first = true;
    mio_status st = MIO_OK;
    for (uint64_t i = 0; i < kvf->n_kv && !st; i++) {
        const gguf_kv *kv = &kvf->kv[i];
        if (is_split_key(&kv->key)) continue;
        if (!mio_mc_plain_text((const uint8_t *)kv->key.ptr, kv->key.len)) {
            st = mio_err_set(MIO_ERR_INVALID_UTF8, "GGUF key '%.*s' is not UTF-8 text; safetensors metadata keys must be",
                             (int)kv->key.len, kv->key.ptr);
            break;
        }
        if (plain) {
            if (key_is(&kv->key, MC_SCALARS_KEY)) continue;
            size_t pl = strlen(MC_ST_PREFIX);
            char *k = dup_n(kv->key.ptr + pl, kv->key.len - pl);
            char *v = dup_n((const char *)kv->val, kv->val_len);
            ms->m[ms->n++] = (mio_st_meta){k, v};
            if (!k || !v) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
            continue;
        }
        if (key_is(&kv->key, MC_LAYOUT_KEY)) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "the GGUF has a key named '%s', which the encoding reserves",
                             MC_LAYOUT_KEY);
            break;
        }
        const char *type_name;
        char *text;
        if ((st = mio_mc_encode_value(kv, &type_name, &text)) != MIO_OK) break;
        char *k = dup_n(kv->key.ptr, kv->key.len);
        ms->m[ms->n++] = (mio_st_meta){k, text};
        if (!k) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        mio_mc_str(&layout, first ? "[" : ",[");
        mio_mc_json_str(&layout, kv->key.ptr, kv->key.len);
        mio_mc_put(&layout, ",\"", 2);
        mio_mc_str(&layout, type_name);
        mio_mc_put(&layout, "\"]", 2);
        first = false;
    }
    if (st || plain) {
        free(layout.p); /* the layout built so far */
        return st;
    }
    mio_mc_str(&layout, "],\"tensors\":[");
    for (size_t k = 0; k < nt; k++) {
        mio_mc_str(&layout, k ? ",[" : "[");
        mio_mc_json_str(&layout, xt[k].name, strlen(xt[k].name));
        mio_mc_put(&layout, ",\"", 2);
        mio_mc_str(&layout, mio_type_name(xt[k].in_type));
        mio_mc_put(&layout, "\"]", 2);
    }
    mio_mc_str(&layout, "]}");
    char *doc = mio_mc_take(&layout);
    char *key = dup_n(MC_LAYOUT_KEY, strlen(MC_LAYOUT_KEY));
    ms->m[ms->n++] = (mio_st_meta){key, doc};
    if (!doc || !key) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    return MIO_OK;
}

/* Where safetensors output goes. */
enum { OUT_FILE, OUT_DIR, OUT_FD };

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* msg keeps mio_fd_write_all's message (which names the errno): the callback's
 * caller replaces it with "the write callback reported a failure". */
typedef struct fdsink { int fd; bool failed; char msg[256]; } fdsink;
static int fd_write_cb(void *user, const void *p, size_t n) {
    fdsink *s = user;
    if (mio_fd_write_all(s->fd, p, n, "the output") == MIO_OK) return 0;
    s->failed = true;
    snprintf(s->msg, sizeof s->msg, "%s", mio_last_error());
    return 1;
}

typedef struct membuf {
    uint8_t *p;
    size_t n, cap;
} membuf;
static int membuf_put(void *user, const void *data, size_t len) {
    membuf *m = user;
    if (len > m->cap - m->n) {
        size_t nc = m->cap ? m->cap * 2 : 4096;
        while (nc - m->n < len) nc *= 2;
        uint8_t *np = realloc(m->p, nc);
        if (!np) return 1;
        m->p = np;
        m->cap = nc;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    return 0;
}

/* f's key-values (split.* dropped) with the edits applied, as a header-only GGUF
 * parsed from memory: the encoder then reads edited and original files alike. */
static mio_status edited_kv(const mio_gguf_file *f, const mio_convert_params *p, mio_gguf_file **out) {
    mio_writer *w = NULL;
    membuf m = {0};
    mio_status st = mio_writer_new(0, &w);
    if (!st) st = mio_writer_copy_all_kv(w, f, mio_gguf_split_keys, 3);
    if (!st) st = mio_writer_apply_edits(w, p->edits, p->n_edits);
    if (!st) st = mio_writer_write_cb(w, membuf_put, &m);
    mio_writer_free(w);
    if (!st) return mio_gguf_open_buffer(m.p, m.n, MIO_BUFFER_TAKE, out);
    free(m.p);
    return st;
}

static mio_status gguf_to_st(const char *in_path, int mode, const char *out, int fd, const mio_convert_params *pp) {
    mio_convert_params p;
    mio_status st = check_params(pp, &p);
    if (st) return st;
    if (!in_path) return mio_err_set(MIO_ERR_INVALID_ARG, "in_path is NULL");
    mio_gguf_file *f = NULL;
    st = mio_gguf_open_model(in_path, 0, &f);
    if (st) return st;
    if (mode != OUT_FD && mio_gguf_uses_file(f, mode == OUT_DIR ? NULL : out)) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_INVALID_ARG, "'%s' is one of the input files; refusing to overwrite it", out);
    }
    xctx c = {0};
    metas ms = {0};
    mio_st_entry *ents = NULL;
    uint64_t **shapes = NULL;
    mio_gguf_file *kvf = f; /* before the first goto: done closes it when it is not f */
    bool *used = calloc(p.n_rename + 1, sizeof *used);
    size_t nt = (size_t)f->n_tensors;
    c.t = calloc(nt + 1, sizeof *c.t);
    ents = calloc(nt + 1, sizeof *ents);
    shapes = calloc(nt + 1, sizeof *shapes);
    if (!used || !c.t || !ents || !shapes) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    bool changed = p.n_rename > 0, need_tmp = false;
    c.n_threads = p.n_threads;
    c.progress = p.progress;
    c.progress_user = p.progress_user;
    for (size_t k = 0; k < nt && !st; k++) {
        const mio_gguf_tensor *t = &f->tensors[k];
        xtensor *x = &c.t[k];
        if (memchr(t->name.ptr, 0, t->name.len)) {
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor %zu: its name holds a NUL byte, which safetensors cannot "
                                                      "name", k);
            break;
        }
        char *nm = dup_n(t->name.ptr, t->name.len);
        if (!nm) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        const char *outn = renamed(&p, nm, used);
        x->name = outn == nm ? nm : dup_n(outn, strlen(outn));
        if (outn != nm) free(nm);
        if (!x->name) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        x->src = t->data;
        x->src_bytes = t->nbytes;
        x->in_type = t->type;
        x->n_elems = 1;
        for (uint32_t d = 0; d < t->n_dims; d++) x->n_elems *= (uint64_t)t->ne[d];
        if (is_float_type(t->type)) {
            x->out_type = p.dtype >= 0 ? p.dtype : t->type;
        } else if (shared_type(t->type)) {
            x->out_type = t->type;
        } else if (mio_type_can_decode(t->type)) {
            if (!p.dequantize) {
                st = mio_err_set(MIO_ERR_UNSUPPORTED_TYPE,
                                 "tensor '%s' is %s: safetensors has no block-quantized dtypes; decode it to %s "
                                 "(%s a weight) with dequantize (mio-transcode --dequantize)",
                                 x->name, mio_type_name(t->type), mio_type_name(p.dtype >= 0 ? p.dtype : MIO_TYPE_F32),
                                 p.dtype == MIO_TYPE_F16 || p.dtype == MIO_TYPE_BF16 ? "2 bytes" : "4 bytes");
                break;
            }
            x->out_type = p.dtype >= 0 ? p.dtype : MIO_TYPE_F32;
        } else {
            st = mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "tensor '%s' is %s, which neither safetensors nor the decoder supports",
                             x->name, mio_type_name(t->type));
            break;
        }
        if (x->out_type != x->in_type) {
            changed = true;
            if (x->out_type != MIO_TYPE_F32) need_tmp = true;
        }
        x->out_bytes = x->n_elems * elem_bytes(x->out_type);
        c.bytes_total += x->out_bytes;
        shapes[k] = malloc(4 * sizeof **shapes);
        if (!shapes[k]) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        for (uint32_t d = 0; d < t->n_dims; d++) shapes[k][d] = (uint64_t)t->ne[t->n_dims - 1 - d];
        ents[k] = (mio_st_entry){x->name, mio_type_to_st_dtype(x->out_type), t->n_dims, shapes[k], NULL,
                                 (size_t)x->out_bytes};
        c.n = k + 1;
    }
    c.n = nt;
    if (!st) st = unused_renames(&p, used);
    /* edits: applied to a copy of the key-values (a header-only GGUF in memory) */
    if (!st && p.n_edits) st = edited_kv(f, &p, &kvf);
    const gguf_kv *scalars = NULL;
    int64_t si = st ? -1 : mio_gguf_find_key(kvf, MC_SCALARS_KEY);
    bool plain = !st && plain_st_origin(f, kvf, c.t, nt, changed || p.n_edits > 0);
    if (plain && si >= 0) {
        scalars = &kvf->kv[si];
        for (size_t k = 0; k < nt; k++)
            if (in_scalar_list(scalars, c.t[k].name) && c.t[k].n_elems == 1) ents[k].n_dims = 0;
    }
    if (!st) st = build_metadata(f, kvf, c.t, nt, plain, &ms);
    if (!st && need_tmp && !(c.tmp = malloc(CHUNK))) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!st) {
        st_source src = {st_fill, &c, NULL};
        if (mode == OUT_FILE) {
            mio_atomic_file af;
            st = mio_st_save_tmp(out, ents, nt, ms.m, ms.n, &src, &af);
            if (!st) st = mio_atomic_rename(&af);
        } else if (mode == OUT_DIR) {
            st = mio_st_save_sharded_src(out, ents, nt, ms.m, ms.n, p.max_shard_bytes ? p.max_shard_bytes : 5000000000ull,
                                         &src, NULL);
        } else {
            fdsink s = {.fd = fd};
            st = mio_st_save_cb_src(ents, nt, ms.m, ms.n, &src, fd_write_cb, &s);
            if (st && s.failed) st = mio_err_set(st, "%s", s.msg);
        }
    }
done:
    if (shapes)
        for (size_t k = 0; k < nt; k++) free(shapes[k]);
    free(shapes);
    free(ents);
    metas_free(&ms);
    xctx_free(&c);
    free(used);
    if (kvf != f) mio_gguf_close(kvf);
    mio_gguf_close(f);
    return st;
}

/* Sharded output into dir (trailing slashes dropped from the name). */
static mio_status gguf_to_st_dir(const char *in_path, const char *dir_in, const mio_convert_params *p) {
    size_t n = strlen(dir_in);
    while (n > 1 && dir_in[n - 1] == '/') n--;
    char *dir = dup_n(dir_in, n);
    if (!dir) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = gguf_to_st(in_path, OUT_DIR, dir, -1, p);
    free(dir);
    return st;
}

mio_status mio_gguf_to_st(const char *in_path, const char *out, const mio_convert_params *p) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    struct stat sb;
    size_t n = strlen(out);
    if ((n && out[n - 1] == '/') || (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode))) return gguf_to_st_dir(in_path, out, p);
    if (ends_with(out, ".index.json")) {
        static const char idx[] = "model.safetensors.index.json";
        if (!ends_with(out, "/model.safetensors.index.json") && strcmp(out, idx) != 0)
            return mio_err_set(MIO_ERR_INVALID_ARG,
                               "'%s': a sharded checkpoint is written as DIR/model.safetensors.index.json (give that, or DIR/)",
                               out);
        char *dir = n == sizeof idx - 1 ? dup_n(".", 1) : dup_n(out, n - (sizeof idx - 1));
        if (!dir) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        mio_status st = gguf_to_st_dir(in_path, dir, p);
        free(dir);
        return st;
    }
    return gguf_to_st(in_path, OUT_FILE, out, -1, p);
}

mio_status mio_gguf_to_st_fd(const char *in_path, int fd, const mio_convert_params *p) {
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "fd %d is not a descriptor", fd);
    return gguf_to_st(in_path, OUT_FD, NULL, fd, p);
}

/* the 0.1 names, deprecated (removed in 1.0) */
mio_status mio_gguf_to_safetensors(const char *in_path, const char *out, const mio_convert_params *p) {
    return mio_gguf_to_st(in_path, out, p);
}
mio_status mio_gguf_to_safetensors_fd(const char *in_path, int fd, const mio_convert_params *p) {
    return mio_gguf_to_st_fd(in_path, fd, p);
}

/* ------------------------------------------------------------------------- */
/* safetensors -> GGUF                                                        */
/* ------------------------------------------------------------------------- */

/* The layout document, parsed. */
typedef struct layout {
    mio_json *doc;
    uint32_t version;
    bool empty_pad;
    mio_json *kv;       /* array of [key, type] */
    mio_json *tensors;  /* array of [name, type] */
} layout;

static mio_status parse_layout(const char *text, layout *l) {
    memset(l, 0, sizeof *l);
    l->version = 3;
    l->empty_pad = true;
    mio_json_error je;
    l->doc = mio_json_parse_str(text, &je);
    if (!l->doc && je.nomem) return mio_err_set(MIO_ERR_NOMEM, "out of memory parsing __metadata__ '%s'", MC_LAYOUT_KEY);
    if (!l->doc || !mio_json_is_object(l->doc))
        return mio_err_set(MIO_ERR_INVALID_METADATA, "__metadata__ '%s' is not a JSON object", MC_LAYOUT_KEY);
    mio_json *v = mio_json_get(l->doc, "version");
    mio_json *e = mio_json_get(l->doc, "empty_pad");
    l->kv = mio_json_get(l->doc, "kv");
    l->tensors = mio_json_get(l->doc, "tensors");
    if (!mio_json_is_number(v) || (v->valuedouble != 2 && v->valuedouble != 3))
        return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: \"version\" must be 2 or 3", MC_LAYOUT_KEY);
    l->version = (uint32_t)v->valuedouble;
    if (e && !mio_json_is_bool(e)) return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: \"empty_pad\" must be a bool", MC_LAYOUT_KEY);
    if (e) l->empty_pad = mio_json_is_true(e);
    mio_json *lists[2] = {l->kv, l->tensors};
    for (int k = 0; k < 2; k++) {
        if (!mio_json_is_array(lists[k]))
            return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: \"%s\" must be an array", MC_LAYOUT_KEY, k ? "tensors" : "kv");
        mio_json *it;
        MIO_JSON_FOR_EACH(it, lists[k]) {
            if (!mio_json_is_array(it) || mio_json_size(it) != 2 || !mio_json_is_string(mio_json_at(it, 0)) ||
                !mio_json_is_string(mio_json_at(it, 1)))
                return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: every \"%s\" entry must be [name, type]", MC_LAYOUT_KEY,
                                   k ? "tensors" : "kv");
        }
    }
    return MIO_OK;
}

typedef struct gtensor {
    int64_t st_index;
    const char *name;    /* output name */
} gtensor;

static mio_status meta_value(const mio_st_file *f, const char *key, mio_str *out) {
    if (mio_st_find_meta(f, key, out) != MIO_OK)
        return mio_err_set(MIO_ERR_INVALID_METADATA, "%s lists key '%s', which __metadata__ does not hold", MC_LAYOUT_KEY, key);
    return MIO_OK;
}

static mio_status st_to_gguf(const char *in_path, const char *out, int fd, const mio_convert_params *pp) {
    mio_convert_params p;
    mio_status st = check_params(pp, &p);
    if (st) return st;
    if (!in_path) return mio_err_set(MIO_ERR_INVALID_ARG, "in_path is NULL");
    mio_st_file *f = NULL;
    st = mio_st_open(in_path, MIO_OPEN_MMAP, &f);
    if (st) return st;
    if (out) {
        struct stat a, b;
        bool same = stat(in_path, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
        if (same || mio_st_uses_file(f, out)) {
            mio_st_close(f);
            return mio_err_set(MIO_ERR_INVALID_ARG, "'%s' is one of the input files; refusing to overwrite it", out);
        }
    }
    int64_t nt = mio_st_tensor_count(f);
    layout l = {0};
    mio_writer *w = NULL;
    xctx c = {0};
    gtensor *order = calloc((size_t)nt + 1, sizeof *order);
    bool *placed = calloc((size_t)nt + 1, sizeof *placed);
    bool *used = calloc(p.n_rename + 1, sizeof *used);
    int64_t nm = mio_st_meta_count(f);
    c.t = calloc((size_t)nt + 1, sizeof *c.t);
    if (!order || !placed || !used || !c.t) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    mio_str lv;
    bool has_layout = mio_st_find_meta(f, MC_LAYOUT_KEY, &lv) == MIO_OK;
    if (has_layout) {
        char *text = dup_n(lv.ptr, lv.len);
        if (!text) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        st = parse_layout(text, &l);
        free(text);
        if (st) goto done;
    }
    if ((st = mio_writer_new(has_layout && !l.empty_pad ? MIO_WRITER_NO_EMPTY_PAD : 0, &w))) goto done;
    if (has_layout && (st = mio_gguf_writer_set_version(w, l.version))) goto done;
    /* metadata: the layout's keys in order, exactly; then everything else as strings */
    if (has_layout) {
        mio_json *it;
        MIO_JSON_FOR_EACH(it, l.kv) {
            const char *key = mio_json_at(it, 0)->valuestring, *tn = mio_json_at(it, 1)->valuestring;
            mio_str text;
            uint8_t *raw = NULL;
            size_t raw_len = 0;
            int type;
            if ((st = meta_value(f, key, &text))) goto done;
            st = mio_mc_decode_value(key, tn, text.ptr, text.len, &type, &raw, &raw_len);
            if (!st) st = mio_gguf_writer_set_raw(w, key, type, raw, raw_len);
            free(raw);
            if (st) goto done;
        }
    }
    for (int64_t i = 0; i < nm; i++) {
        mio_str k, v;
        mio_st_meta_at(f, i, &k, &v);
        if (key_is(&k, MC_LAYOUT_KEY)) continue;
        if (memchr(k.ptr, 0, k.len)) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "__metadata__ key %lld holds a NUL byte (\\u0000), which GGUF keys "
                                                   "cannot", (long long)i);
            goto done;
        }
        if (has_layout) {
            bool listed = false;
            mio_json *it;
            MIO_JSON_FOR_EACH(it, l.kv) if (key_is(&k, mio_json_at(it, 0)->valuestring)) listed = true;
            if (listed) continue;
        }
        size_t pl = strlen(MC_ST_PREFIX);
        char *key = malloc(pl + k.len + 1);
        if (!key) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        memcpy(key, MC_ST_PREFIX, pl);
        memcpy(key + pl, k.ptr, k.len);
        key[pl + k.len] = '\0';
        st = mio_writer_set_str(w, key, v.ptr, v.len);
        free(key);
        if (st) goto done;
    }
    if (p.n_edits && (st = mio_writer_apply_edits(w, p.edits, p.n_edits))) goto done;
    /* tensor order: the layout's, then the rest in file order */
    int64_t no = 0;
    if (has_layout) {
        mio_json *it;
        MIO_JSON_FOR_EACH(it, l.tensors) {
            int64_t i = mio_st_find_tensor(f, mio_json_at(it, 0)->valuestring);
            if (i >= 0 && !placed[i]) {
                placed[i] = true;
                order[no++].st_index = i;
            }
        }
    }
    for (int64_t i = 0; i < nt; i++)
        if (!placed[i]) order[no++].st_index = i;
    /* tensors: checks first, nothing is written before every tensor is known to convert */
    const char **scalars = calloc((size_t)nt + 1, sizeof *scalars);
    size_t n_scalars = 0;
    if (!scalars) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    bool need_tmp = false;
    for (int64_t k = 0; k < nt && !st; k++) {
        mio_st_tensor t;
        mio_st_tensor_info(f, order[k].st_index, &t);
        xtensor *x = &c.t[k];
        if (memchr(t.name.ptr, 0, t.name.len)) {
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor %lld: its name holds a NUL byte (\\u0000), which GGUF "
                                                      "names cannot", (long long)order[k].st_index);
            break;
        }
        char *nm0 = dup_n(t.name.ptr, t.name.len);
        if (!nm0) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        const char *outn = renamed(&p, nm0, used);
        x->name = outn == nm0 ? nm0 : dup_n(outn, strlen(outn));
        if (outn != nm0) free(nm0);
        c.n = (size_t)k + 1;
        if (!x->name) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        if (!shared_type(t.type)) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED_TYPE,
                             "tensor '%s' is %s: GGUF has no such type (it has F32 F16 BF16 F64 I8 I16 I32 I64 and "
                             "ggml's block formats)",
                             x->name, mio_st_dtype_name(t.dtype));
            break;
        }
        if (t.n_dims > 4) {
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor '%s' has %u dimensions; GGUF holds at most 4", x->name,
                             t.n_dims);
            break;
        }
        if (strlen(x->name) >= 64) {
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO,
                             "tensor name '%s' is %zu bytes; GGUF (ggml) names must be under 64: rename it (a name map)",
                             x->name, strlen(x->name));
            break;
        }
        x->src = t.data;
        x->src_bytes = t.nbytes;
        x->in_type = t.type;
        x->out_type = is_float_type(t.type) && p.dtype >= 0 ? p.dtype : t.type;
        if (x->out_type != x->in_type && x->out_type != MIO_TYPE_F32) need_tmp = true;
        int64_t ne[4] = {1, 1, 1, 1};
        uint32_t nd = t.n_dims ? t.n_dims : 1;
        x->n_elems = 1;
        for (uint32_t d = 0; d < t.n_dims; d++) {
            ne[d] = (int64_t)t.shape[t.n_dims - 1 - d];
            x->n_elems *= t.shape[d];
        }
        if (t.n_dims == 0) scalars[n_scalars++] = x->name;
        x->out_bytes = x->n_elems * elem_bytes(x->out_type);
        c.bytes_total += x->out_bytes;
        st = mio_writer_declare_tensor(w, x->name, x->out_type, nd, ne);
    }
    if (!st) st = unused_renames(&p, used);
    if (!st && n_scalars) st = mio_writer_set_arr_str(w, MC_SCALARS_KEY, scalars, NULL, n_scalars);
    free(scalars);
    if (st) goto done;
    if (need_tmp && !(c.tmp = malloc(CHUNK))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    c.n_threads = p.n_threads;
    c.progress = p.progress;
    c.progress_user = p.progress_user;
    st = out ? mio_writer_begin_file(w, out) : mio_writer_begin_fd(w, fd);
    uint8_t *buf = st ? NULL : malloc(CHUNK);
    if (!st && !buf) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < c.n && !st; k++) {
        const xtensor *x = &c.t[k];
        if (!x->out_bytes) st = mio_writer_write_tensor_part(w, NULL, 0);
        for (uint64_t off = 0; off < x->out_bytes && !st; off += CHUNK) {
            size_t len = x->out_bytes - off < CHUNK ? (size_t)(x->out_bytes - off) : CHUNK;
            st = convert_chunk(&c, x, off, buf, len);
            if (!st) st = mio_writer_write_tensor_part(w, buf, len);
            if (!st) st = report(&c, len, off + len == x->out_bytes);
        }
    }
    free(buf);
    if (!st) st = mio_writer_finish(w);
done:
    mio_writer_free(w); /* aborts an unfinished write: its temp file is removed */
    mio_json_free(l.doc);
    xctx_free(&c);
    free(order);
    free(placed);
    free(used);
    mio_st_close(f);
    return st;
}

mio_status mio_st_to_gguf(const char *in_path, const char *out_path, const mio_convert_params *p) {
    if (!out_path) return mio_err_set(MIO_ERR_INVALID_ARG, "out_path is NULL");
    return st_to_gguf(in_path, out_path, -1, p);
}

mio_status mio_st_to_gguf_fd(const char *in_path, int fd, const mio_convert_params *p) {
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "fd %d is not a descriptor", fd);
    return st_to_gguf(in_path, NULL, fd, p);
}

/* the 0.1 names, deprecated (removed in 1.0) */
mio_status mio_safetensors_to_gguf(const char *in_path, const char *out_path, const mio_convert_params *p) {
    return mio_st_to_gguf(in_path, out_path, p);
}
mio_status mio_safetensors_to_gguf_fd(const char *in_path, int fd, const mio_convert_params *p) {
    return mio_st_to_gguf_fd(in_path, fd, p);
}
