/* SPDX-License-Identifier: MIT */
/* write.c — mio_writer: builds a GGUF v3 file with llama.cpp-exact layout
 * (tensor offsets are the running sum of sizes padded to the alignment; every
 * tensor, the last included, is padded). One code path writes everything: the
 * one-shot calls are begin + one write_tensor per tensor + finish. Path output
 * goes through a temp file that is renamed into place only by finish. */
#include "gguf_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct wkv {
    char *key;
    size_t key_len;
    int32_t type;
    uint8_t *raw; /* wire bytes of the value (after the type field) */
    size_t raw_len;
} wkv;

typedef struct wtensor {
    char *name;
    size_t name_len;
    int type;
    uint32_t n_dims;
    int64_t ne[4];
    uint64_t nbytes;
    uint64_t offset;
    const void *data; /* borrowed; NULL for declared tensors */
} wtensor;

enum { W_IDLE, W_STREAM, W_DEAD };
enum { SINK_NONE, SINK_PATH, SINK_FD, SINK_CB };

/* a temp file gets a write-back hint each time it passes a multiple of FLUSH_HINT bytes */
#define FLUSH_HINT ((uint64_t)16 << 20)

struct mio_writer {
    uint32_t flags;
    uint32_t version; /* GGUF version written: 3, or 2 (mio_gguf_writer_set_version) */
    uint32_t alignment;
    wkv *kv;
    uint64_t n_kv, cap_kv;
    wtensor *t;
    uint64_t n_t, cap_t;
    mio_namehash kv_hash, t_hash;
    /* Padded size of the data section (every tensor padded to data_align), kept
     * so that a declare that would push it past 2^64 is refused at once without
     * an O(n) walk per tensor; recomputed when the alignment has changed since. */
    uint64_t data_size;
    uint32_t data_align;
    /* streaming state */
    int state;
    int sink;
    mio_atomic_file af;
    int fd;
    mio_write_fn fn;
    void *user;
    uint64_t next;
    uint64_t part_done;  /* bytes of tensor `next` written so far by write_tensor_part */
};

static mio_str wkv_key_at(const void *w, uint64_t i) {
    const wkv *k = &((const mio_writer *)w)->kv[i];
    mio_str s = {k->key, k->key_len};
    return s;
}
static mio_str wt_name_at(const void *w, uint64_t i) {
    const wtensor *t = &((const mio_writer *)w)->t[i];
    mio_str s = {t->name, t->name_len};
    return s;
}

mio_status mio_writer_new(uint32_t flags, mio_writer **out) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    if (flags & ~MIO_WRITER_NO_EMPTY_PAD) return mio_err_set(MIO_ERR_INVALID_ARG, "unknown writer flags 0x%x", flags);
    mio_writer *w = calloc(1, sizeof *w);
    if (!w) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    w->flags = flags;
    w->version = 3;
    w->alignment = GGUF_DEFAULT_ALIGNMENT;
    w->data_align = GGUF_DEFAULT_ALIGNMENT;
    w->fd = -1;
    w->af.fd = -1;
    *out = w;
    return MIO_OK;
}

static void stream_abort(mio_writer *w) {
    if (w->sink == SINK_PATH) mio_atomic_abort(&w->af);
    w->sink = SINK_NONE;
    w->state = W_DEAD;
}

void mio_writer_free(mio_writer *w) {
    if (!w) return;
    if (w->state == W_STREAM) stream_abort(w);
    for (uint64_t i = 0; i < w->n_kv; i++) { free(w->kv[i].key); free(w->kv[i].raw); }
    for (uint64_t i = 0; i < w->n_t; i++) free(w->t[i].name);
    free(w->kv);
    free(w->t);
    mio_namehash_free(&w->kv_hash);
    mio_namehash_free(&w->t_hash);
    free(w);
}

int64_t mio_writer_kv_count(const mio_writer *w) { return w ? (int64_t)w->n_kv : -1; }
int64_t mio_writer_tensor_count(const mio_writer *w) { return w ? (int64_t)w->n_t : -1; }
uint32_t mio_writer_alignment(const mio_writer *w) { return w ? w->alignment : 0; }

static mio_status check_mutable(const mio_writer *w) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    if (w->state == W_STREAM) return mio_err_set(MIO_ERR_STATE, "the writer is streaming; finish or free it before changing it");
    return MIO_OK;
}

/* Store key = (type, raw) taking ownership of raw; replaces in place if present. */
static mio_status put_kv(mio_writer *w, const char *key, size_t key_len, int32_t type, uint8_t *raw, size_t raw_len) {
    mio_status st = check_mutable(w);
    if (!st && !key) st = mio_err_set(MIO_ERR_INVALID_ARG, "key is NULL");
    if (!st && key_len == 0) st = mio_err_set(MIO_ERR_INVALID_KV, "metadata key is empty");
    if (!st && key_len > MIO_GGUF_MAX_LEN) st = mio_err_set(MIO_ERR_LIMIT, "metadata key is longer than 2^30 bytes");
    if (!st && key_len == 17 && memcmp(key, "general.alignment", 17) == 0) {
        uint32_t a = type == MIO_GGUF_U32 ? ld32(raw) : 0;
        if (type != MIO_GGUF_U32)
            st = mio_err_set(MIO_ERR_INVALID_ALIGNMENT, "general.alignment must be a u32, not %s", mio_gguf_type_name(type));
        else if (a == 0 || (a & (a - 1)) || a > GGUF_MAX_ALIGNMENT)
            st = mio_err_set(MIO_ERR_INVALID_ALIGNMENT, "general.alignment is %u (must be a power of two between 1 and %u)",
                             a, GGUF_MAX_ALIGNMENT);
        else
            w->alignment = a;
    }
    if (st) { free(raw); return st; }
    int64_t at = mio_namehash_find(&w->kv_hash, key, key_len, wkv_key_at, w);
    if (at >= 0) {
        free(w->kv[at].raw);
        w->kv[at].type = type;
        w->kv[at].raw = raw;
        w->kv[at].raw_len = raw_len;
        return MIO_OK;
    }
    if (w->n_kv == w->cap_kv) {
        uint64_t nc = w->cap_kv ? w->cap_kv * 2 : 16;
        wkv *nk = realloc(w->kv, (size_t)nc * sizeof *nk);
        if (!nk) { free(raw); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
        w->kv = nk;
        w->cap_kv = nc;
    }
    char *k = malloc(key_len + 1);
    if (!k) { free(raw); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    memcpy(k, key, key_len);
    k[key_len] = 0;
    w->kv[w->n_kv] = (wkv){k, key_len, type, raw, raw_len};
    w->n_kv++;
    st = mio_namehash_reserve(&w->kv_hash, w->n_kv - 1, w->n_kv, wkv_key_at, w);
    if (st) { w->n_kv--; free(k); free(raw); return st; }
    mio_namehash_insert(&w->kv_hash, k, key_len, w->n_kv - 1, wkv_key_at, w, NULL);
    return MIO_OK;
}

/* The writer and the key, checked before a setter looks at (or copies) its
 * value, so that a NULL writer or key is reported as such whatever else is wrong. */
static mio_status setter_check(const mio_writer *w, const char *key) {
    mio_status st = check_mutable(w);
    if (!st && !key) st = mio_err_set(MIO_ERR_INVALID_ARG, "key is NULL");
    return st;
}

static mio_status set_fixed(mio_writer *w, const char *key, int32_t type, const void *v, size_t n) {
    mio_status st = setter_check(w, key);
    if (st) return st;
    uint8_t *raw = malloc(n);
    if (!raw) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(raw, v, n);
    return put_kv(w, key, key ? strlen(key) : 0, type, raw, n);
}

mio_status mio_writer_set_u8(mio_writer *w, const char *key, uint8_t v) { return set_fixed(w, key, MIO_GGUF_U8, &v, 1); }
mio_status mio_writer_set_i8(mio_writer *w, const char *key, int8_t v) { return set_fixed(w, key, MIO_GGUF_I8, &v, 1); }
mio_status mio_writer_set_u16(mio_writer *w, const char *key, uint16_t v) { return set_fixed(w, key, MIO_GGUF_U16, &v, 2); }
mio_status mio_writer_set_i16(mio_writer *w, const char *key, int16_t v) { return set_fixed(w, key, MIO_GGUF_I16, &v, 2); }
mio_status mio_writer_set_u32(mio_writer *w, const char *key, uint32_t v) { return set_fixed(w, key, MIO_GGUF_U32, &v, 4); }
mio_status mio_writer_set_i32(mio_writer *w, const char *key, int32_t v) { return set_fixed(w, key, MIO_GGUF_I32, &v, 4); }
mio_status mio_writer_set_u64(mio_writer *w, const char *key, uint64_t v) { return set_fixed(w, key, MIO_GGUF_U64, &v, 8); }
mio_status mio_writer_set_i64(mio_writer *w, const char *key, int64_t v) { return set_fixed(w, key, MIO_GGUF_I64, &v, 8); }
mio_status mio_writer_set_f32(mio_writer *w, const char *key, float v) { return set_fixed(w, key, MIO_GGUF_F32, &v, 4); }
mio_status mio_writer_set_f64(mio_writer *w, const char *key, double v) { return set_fixed(w, key, MIO_GGUF_F64, &v, 8); }
mio_status mio_writer_set_bool(mio_writer *w, const char *key, int v) {
    uint8_t b = v != 0;
    return set_fixed(w, key, MIO_GGUF_BOOL, &b, 1);
}

mio_status mio_writer_set_str(mio_writer *w, const char *key, const char *s, size_t len) {
    mio_status st = setter_check(w, key);
    if (st) return st;
    if (!s && len) return mio_err_set(MIO_ERR_INVALID_ARG, "s is NULL (len %zu)", len);
    if (len > MIO_GGUF_MAX_LEN) return mio_err_set(MIO_ERR_LIMIT, "string of %zu bytes exceeds the 2^30 cap", len);
    uint8_t *raw = malloc(8 + len);
    if (!raw) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    uint64_t l = len;
    memcpy(raw, &l, 8);
    if (len) memcpy(raw + 8, s, len);
    return put_kv(w, key, key ? strlen(key) : 0, MIO_GGUF_STRING, raw, 8 + len);
}

mio_status mio_writer_set_arr(mio_writer *w, const char *key, int elem_type, const void *data, uint64_t n) {
    mio_status st = setter_check(w, key);
    if (st) return st;
    size_t es = gguf_type_size(elem_type);
    if (!es) return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "mio_writer_set_arr takes a fixed-width element type, not %d (%s)",
                                elem_type, mio_gguf_type_name(elem_type) ? mio_gguf_type_name(elem_type) : "unknown");
    if (n > MIO_GGUF_MAX_LEN) return mio_err_set(MIO_ERR_LIMIT, "array of %llu elements exceeds the 2^30 cap", (unsigned long long)n);
    if (!data && n) return mio_err_set(MIO_ERR_INVALID_ARG, "data is NULL (n %llu)", (unsigned long long)n);
    if (elem_type == MIO_GGUF_BOOL)
        for (uint64_t k = 0; k < n; k++)
            if (((const uint8_t *)data)[k] > 1)
                return mio_err_set(MIO_ERR_INVALID_KV, "bool array element %llu is %u (must be 0 or 1)", (unsigned long long)k,
                                   ((const uint8_t *)data)[k]);
    size_t len = 12 + (size_t)n * es;
    uint8_t *raw = malloc(len);
    if (!raw) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    int32_t et = elem_type;
    memcpy(raw, &et, 4);
    memcpy(raw + 4, &n, 8);
    if (n) memcpy(raw + 12, data, (size_t)n * es);
    return put_kv(w, key, key ? strlen(key) : 0, MIO_GGUF_ARRAY, raw, len);
}

mio_status mio_writer_set_arr_str(mio_writer *w, const char *key, const char *const *strs, const size_t *lens,
                                  uint64_t n) {
    mio_status st = setter_check(w, key);
    if (st) return st;
    if (n > MIO_GGUF_MAX_LEN) return mio_err_set(MIO_ERR_LIMIT, "array of %llu elements exceeds the 2^30 cap", (unsigned long long)n);
    if (!strs && n) return mio_err_set(MIO_ERR_INVALID_ARG, "strs is NULL (n %llu)", (unsigned long long)n);
    uint64_t len = 12;
    for (uint64_t k = 0; k < n; k++) {
        if (!strs[k] && (!lens || lens[k])) return mio_err_set(MIO_ERR_INVALID_ARG, "strs[%llu] is NULL", (unsigned long long)k);
        uint64_t l = lens ? lens[k] : strlen(strs[k]);
        if (l > MIO_GGUF_MAX_LEN) return mio_err_set(MIO_ERR_LIMIT, "string %llu exceeds the 2^30 cap", (unsigned long long)k);
        if (!ck_add(len, 8 + l, &len) || len > SIZE_MAX / 2) return mio_err_set(MIO_ERR_OVERFLOW, "string array too large");
    }
    uint8_t *raw = malloc((size_t)len);
    if (!raw) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    int32_t et = MIO_GGUF_STRING;
    memcpy(raw, &et, 4);
    memcpy(raw + 4, &n, 8);
    size_t o = 12;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t l = lens ? lens[k] : strlen(strs[k]);
        memcpy(raw + o, &l, 8);
        if (l) memcpy(raw + o + 8, strs[k], (size_t)l);
        o += 8 + (size_t)l;
    }
    return put_kv(w, key, key ? strlen(key) : 0, MIO_GGUF_ARRAY, raw, (size_t)len);
}

mio_status mio_writer_remove_key(mio_writer *w, const char *key) {
    mio_status st = check_mutable(w);
    if (st) return st;
    if (!key) return mio_err_set(MIO_ERR_INVALID_ARG, "key is NULL");
    int64_t at = mio_namehash_find(&w->kv_hash, key, strlen(key), wkv_key_at, w);
    if (at < 0) return mio_err_set(MIO_ERR_NOT_FOUND, "key '%s' is not set", key);
    if (strcmp(key, "general.alignment") == 0) w->alignment = GGUF_DEFAULT_ALIGNMENT;
    free(w->kv[at].key);
    free(w->kv[at].raw);
    memmove(&w->kv[at], &w->kv[at + 1], (size_t)(w->n_kv - (uint64_t)at - 1) * sizeof *w->kv);
    w->n_kv--;
    /* Indices shifted: rebuild the hash. */
    mio_namehash_free(&w->kv_hash);
    st = mio_namehash_init(&w->kv_hash, w->n_kv * 2);
    if (st) return st;
    for (uint64_t i = 0; i < w->n_kv; i++) mio_namehash_insert(&w->kv_hash, w->kv[i].key, w->kv[i].key_len, i, wkv_key_at, w, NULL);
    return MIO_OK;
}

mio_status mio_gguf_writer_set_version(mio_writer *w, uint32_t version) {
    mio_status st = check_mutable(w);
    if (st) return st;
    if (version != 2 && version != 3)
        return mio_err_set(MIO_ERR_UNSUPPORTED_VERSION, "GGUF version %u cannot be written (2 or 3)", version);
    w->version = version;
    return MIO_OK;
}

mio_status mio_gguf_writer_set_raw(mio_writer *w, const char *key, int type, const void *raw, size_t raw_len) {
    mio_status st = setter_check(w, key);
    if (st) return st;
    uint64_t len = 0;
    const uint8_t *p = raw;
    if (!raw && raw_len) return mio_err_set(MIO_ERR_INVALID_ARG, "raw is NULL");
    st = mio_gguf_skip_value(p, p + raw_len, type, 0, &len, key, NULL);
    if (st) return st;
    if (len != raw_len)
        return mio_err_set(MIO_ERR_INVALID_KV, "key '%s': the %s value is %llu bytes, %zu given", key,
                           mio_gguf_type_name(type) ? mio_gguf_type_name(type) : "?", (unsigned long long)len, raw_len);
    uint8_t *copy = malloc(raw_len ? raw_len : 1);
    if (!copy) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (raw_len) memcpy(copy, raw, raw_len);
    return put_kv(w, key, strlen(key), type, copy, raw_len);
}

mio_status mio_writer_copy_kv(mio_writer *w, const mio_gguf_file *src, int64_t i) {
    mio_status st = check_mutable(w);
    if (st) return st;
    if (!src) return mio_err_set(MIO_ERR_INVALID_ARG, "source file src is NULL");
    if (i < 0 || (uint64_t)i >= src->n_kv)
        return mio_err_set(MIO_ERR_INVALID_ARG, "source entry %lld does not exist (the file has %llu entries)", (long long)i,
                           (unsigned long long)src->n_kv);
    const gguf_kv *kv = &src->kv[i];
    uint8_t *raw = malloc(kv->raw_len ? kv->raw_len : 1);
    if (!raw) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(raw, kv->raw, kv->raw_len);
    return put_kv(w, kv->key.ptr, kv->key.len, kv->type, raw, kv->raw_len);
}

mio_status mio_writer_copy_all_kv(mio_writer *w, const mio_gguf_file *src, const char *const *skip, size_t n_skip) {
    mio_status st = check_mutable(w);
    if (st) return st;
    if (!src) return mio_err_set(MIO_ERR_INVALID_ARG, "source file src is NULL");
    if (!skip && n_skip) return mio_err_set(MIO_ERR_INVALID_ARG, "skip is NULL (n_skip %zu)", n_skip);
    for (uint64_t i = 0; i < src->n_kv; i++) {
        const mio_str *k = &src->kv[i].key;
        bool skipped = false;
        for (size_t s = 0; s < n_skip && !skipped; s++)
            skipped = skip[s] && strlen(skip[s]) == k->len && memcmp(skip[s], k->ptr, k->len) == 0;
        if (skipped) continue;
        if ((st = mio_writer_copy_kv(w, src, (int64_t)i)) != MIO_OK) return st;
    }
    return MIO_OK;
}

/* --- data layout: every size and offset in checked arithmetic. A GGUF file
 * cannot describe a data section of 2^64 bytes or more (offsets are u64 and the
 * reader checks the same sums), so such a layout is refused instead of being
 * written with wrapped offsets. */
static mio_status err_data_overflow(const char *name, uint64_t index, uint64_t nbytes, uint64_t before, uint32_t align) {
    return mio_err_set(MIO_ERR_OVERFLOW,
                       "tensor '%s' (#%llu, %llu bytes) would make the data section 2^64 bytes or more: the tensors "
                       "before it take %llu bytes (each padded to the alignment %u)",
                       name, (unsigned long long)index, (unsigned long long)nbytes, (unsigned long long)before, align);
}

/* Assign every tensor its offset at the current alignment and return the padded
 * data size (the last tensor's padding included, as written); refreshes the cache.
 * *out is written on every path: the compiler cannot see that mio_err_set()'s status
 * is non-zero, and at -O3 would warn that callers may read it uninitialized. */
static mio_status data_layout(mio_writer *w, uint64_t *out) {
    uint64_t off = 0;
    *out = 0;
    for (uint64_t i = 0; i < w->n_t; i++) {
        wtensor *t = &w->t[i];
        uint64_t padded, next;
        if (!ck_pad(t->nbytes, w->alignment, &padded) || !ck_add(off, padded, &next))
            return err_data_overflow(t->name, i, t->nbytes, off, w->alignment);
        t->offset = off;
        off = next;
    }
    w->data_size = off;
    w->data_align = w->alignment;
    *out = off;
    return MIO_OK;
}

static mio_status add_tensor(mio_writer *w, const char *name, int type, uint32_t n_dims, const int64_t *ne,
                             const void *data, size_t len, bool has_data) {
    mio_status st = check_mutable(w);
    if (st) return st;
    if (!name) return mio_err_set(MIO_ERR_INVALID_ARG, "name is NULL");
    if (!*name) return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor name is empty");
    size_t nl = strlen(name);
    if (nl >= GGUF_MAX_NAME)
        return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor name '%.40s...' is %zu bytes (must be under %u)", name, nl,
                           GGUF_MAX_NAME);
    if (type < 0 || type >= MIO_TYPE_GGML_COUNT || !mio_type_name(type))
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "tensor '%s': %d is not a ggml type code", name, type);
    uint64_t nbytes;
    st = mio_type_nbytes(type, n_dims, ne, &nbytes);
    if (st) return mio_err_prefix(st, "tensor '%s': ", name);
    /* A NULL pointer with a length is an argument error whatever the length is
     * (NULL with len 0 is an empty buffer, judged by its size). */
    if (has_data && !data && len) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': data is NULL (len %zu)", name, len);
    if (has_data && len != nbytes)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "tensor '%s': %zu data bytes given, %s x dims needs %llu", name, len,
                           mio_type_name(type), (unsigned long long)nbytes);
    if (mio_namehash_find(&w->t_hash, name, nl, wt_name_at, w) >= 0)
        return mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "tensor '%s' is already in the writer", name);
    /* The data section with this tensor must stay below 2^64 bytes at the current
     * alignment; begin checks again (general.alignment may still change). */
    uint64_t before = w->data_size, padded, after;
    if (w->data_align != w->alignment && (st = data_layout(w, &before)) != MIO_OK)
        return mio_err_prefix(st, "cannot add tensor '%s': ", name);
    if (!ck_pad(nbytes, w->alignment, &padded) || !ck_add(before, padded, &after))
        return err_data_overflow(name, w->n_t, nbytes, before, w->alignment);
    if (w->n_t == w->cap_t) {
        uint64_t nc = w->cap_t ? w->cap_t * 2 : 64;
        wtensor *nt = realloc(w->t, (size_t)nc * sizeof *nt);
        if (!nt) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        w->t = nt;
        w->cap_t = nc;
    }
    char *nm = malloc(nl + 1);
    if (!nm) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(nm, name, nl + 1);
    wtensor *t = &w->t[w->n_t];
    memset(t, 0, sizeof *t);
    t->name = nm;
    t->name_len = nl;
    t->type = type;
    t->n_dims = n_dims;
    for (uint32_t d = 0; d < 4; d++) t->ne[d] = d < n_dims ? ne[d] : 1;
    t->nbytes = nbytes;
    t->offset = before;
    t->data = has_data ? data : NULL;
    w->n_t++;
    st = mio_namehash_reserve(&w->t_hash, w->n_t - 1, w->n_t, wt_name_at, w);
    if (st) { w->n_t--; free(nm); return st; }
    mio_namehash_insert(&w->t_hash, nm, nl, w->n_t - 1, wt_name_at, w, NULL);
    w->data_size = after;
    return MIO_OK;
}

mio_status mio_writer_add_tensor(mio_writer *w, const char *name, int type, uint32_t n_dims, const int64_t *ne,
                                 const void *data, size_t len) {
    return add_tensor(w, name, type, n_dims, ne, data, len, true);
}

mio_status mio_writer_declare_tensor(mio_writer *w, const char *name, int type, uint32_t n_dims, const int64_t *ne) {
    return add_tensor(w, name, type, n_dims, ne, NULL, 0, false);
}

/* --- serialization --- */
/* Header bytes before the data-section padding. Every term is bounded by what
 * the writer holds in memory (the copied key, value and name bytes, plus fixed
 * fields smaller than the entry's own struct), so the sum cannot reach 2^64;
 * the additions are checked all the same (false on overflow). */
static bool header_bytes(const mio_writer *w, uint64_t *out) {
    uint64_t n = 24;
    bool ok = true;
    for (uint64_t i = 0; i < w->n_kv && ok; i++)
        ok = ck_add(n, 8 + 4 + (uint64_t)w->kv[i].key_len, &n) && ck_add(n, w->kv[i].raw_len, &n);
    for (uint64_t i = 0; i < w->n_t && ok; i++)
        ok = ck_add(n, 8 + (uint64_t)w->t[i].name_len + 4 + 8ull * w->t[i].n_dims + 4 + 8, &n);
    *out = n;
    return ok;
}

uint64_t mio_writer_header_size(const mio_writer *w) {
    uint64_t n;
    if (!w) return 0;
    return header_bytes(w, &n) ? n : UINT64_MAX;
}

/* Only for layouts data_layout() accepted: cannot overflow there. */
static uint64_t pad_to(uint64_t x, uint32_t a) { return (x + a - 1) & ~(uint64_t)(a - 1); }

static void put(uint8_t **p, const void *v, size_t n) { memcpy(*p, v, n); *p += n; }

/* The header bytes including the padding up to the data section. Validates the
 * whole layout first (nothing is allocated or written for a file that cannot
 * exist): tensor offsets, the data size and header + data below 2^64. */
static mio_status build_header(mio_writer *w, uint8_t **out, size_t *out_len, uint64_t *total) {
    uint64_t hs, ds, data, sum;
    if (!header_bytes(w, &hs)) return mio_err_set(MIO_ERR_OVERFLOW, "the header size overflows 64 bits");
    if (w->n_t == 0 && (w->flags & MIO_WRITER_NO_EMPTY_PAD)) ds = hs;
    else if (!ck_pad(hs, w->alignment, &ds)) return mio_err_set(MIO_ERR_OVERFLOW, "the header size overflows 64 bits");
    mio_status st = data_layout(w, &data);
    if (st) return st;
    if (!ck_add(ds, data, &sum))
        return mio_err_set(MIO_ERR_OVERFLOW,
                           "the header (%llu bytes with its padding to %u) and the data section (%llu bytes) together "
                           "make 2^64 bytes or more",
                           (unsigned long long)ds, w->alignment, (unsigned long long)data);
    if (ds > SIZE_MAX / 2)
        return mio_err_set(MIO_ERR_OVERFLOW, "a header of %llu bytes does not fit in memory", (unsigned long long)ds);
    uint8_t *buf = calloc(1, (size_t)ds ? (size_t)ds : 1);
    if (!buf) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %llu header bytes", (unsigned long long)ds);
    uint8_t *p = buf;
    uint32_t version = w->version;
    uint64_t nt = w->n_t, nk = w->n_kv;
    put(&p, "GGUF", 4);
    put(&p, &version, 4);
    put(&p, &nt, 8);
    put(&p, &nk, 8);
    for (uint64_t i = 0; i < w->n_kv; i++) {
        const wkv *k = &w->kv[i];
        uint64_t kl = k->key_len;
        put(&p, &kl, 8);
        put(&p, k->key, k->key_len);
        put(&p, &k->type, 4);
        put(&p, k->raw, k->raw_len);
    }
    for (uint64_t i = 0; i < w->n_t; i++) {
        const wtensor *t = &w->t[i];
        uint64_t nl = t->name_len;
        int32_t ty = t->type;
        put(&p, &nl, 8);
        put(&p, t->name, t->name_len);
        put(&p, &t->n_dims, 4);
        put(&p, t->ne, 8ull * t->n_dims);
        put(&p, &ty, 4);
        put(&p, &t->offset, 8); /* set by data_layout */
    }
    *out = buf;
    *out_len = (size_t)ds;
    *total = sum;
    return MIO_OK;
}

static mio_status sink_write(mio_writer *w, const void *p, size_t n) {
    if (!n) return MIO_OK;
    switch (w->sink) {
    case SINK_PATH: {
        mio_status st = mio_atomic_check(&w->af);
        if (!st) st = mio_fd_write_all(w->af.fd, p, n, w->af.tmp_path);
#ifdef SYNC_FILE_RANGE_WRITE
        /* each time the file passes a multiple of FLUSH_HINT, start writing
         * its dirty pages back, while the caller computes the next bytes, so
         * that the commit's fsync finds little left (IQ4_XS of a 135M model:
         * fsync 46 -> 3 ms); only a hint, errors ignored: the fsync decides.
         * (The offset comes from the descriptor: the opaque mio_writer keeps
         * its layout, which docs/abi/libmodelio.abi records.) */
        const off_t end = st ? -1 : lseek(w->af.fd, 0, SEEK_CUR);
        if (end > 0 && (uint64_t)end / FLUSH_HINT != ((uint64_t)end - n) / FLUSH_HINT)
            (void)sync_file_range(w->af.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
        return st;
    }
    case SINK_FD: return mio_fd_write_all(w->fd, p, n, "the output descriptor");
    case SINK_CB:
        if (w->fn(w->user, p, n) != 0) return mio_err_set(MIO_ERR_IO, "the write callback reported a failure");
        return MIO_OK;
    default: return mio_err_set(MIO_ERR_STATE, "no output is open");
    }
}

/* Write the header (built by build_header before the output was opened: a
 * layout that cannot be written creates no temp file and emits no byte) to the
 * sink just opened. Takes ownership of hdr. */
static mio_status begin(mio_writer *w, uint8_t *hdr, size_t hl, uint64_t total) {
    if (w->sink == SINK_PATH && total > 0) (void)posix_fallocate(w->af.fd, 0, (off_t)total); /* best effort */
    mio_status st = sink_write(w, hdr, hl);
    free(hdr);
    if (st) { stream_abort(w); return st; }
    w->state = W_STREAM;
    w->next = 0;
    w->part_done = 0;
    return MIO_OK;
}

static mio_status begin_check(mio_writer *w) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    if (w->state == W_STREAM) return mio_err_set(MIO_ERR_STATE, "a write is already in progress");
    w->state = W_IDLE;
    return MIO_OK;
}

mio_status mio_writer_begin_file(mio_writer *w, const char *path) {
    uint8_t *hdr = NULL;
    size_t hl = 0;
    uint64_t total = 0;
    mio_status st = begin_check(w);
    if (!st && !path) st = mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    if (!st) st = build_header(w, &hdr, &hl, &total);
    if (!st) st = mio_atomic_open(path, &w->af);
    if (st) { free(hdr); return st; }
    w->sink = SINK_PATH;
    return begin(w, hdr, hl, total);
}

mio_status mio_writer_begin_fd(mio_writer *w, int fd) {
    uint8_t *hdr = NULL;
    size_t hl = 0;
    uint64_t total = 0;
    mio_status st = begin_check(w);
    if (st) return st;
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "file descriptor %d is invalid", fd);
    if ((st = build_header(w, &hdr, &hl, &total)) != MIO_OK) return st;
    w->fd = fd;
    w->sink = SINK_FD;
    return begin(w, hdr, hl, total);
}

mio_status mio_writer_begin_cb(mio_writer *w, mio_write_fn fn, void *user) {
    uint8_t *hdr = NULL;
    size_t hl = 0;
    uint64_t total = 0;
    mio_status st = begin_check(w);
    if (st) return st;
    if (!fn) return mio_err_set(MIO_ERR_INVALID_ARG, "write callback fn is NULL");
    if ((st = build_header(w, &hdr, &hl, &total)) != MIO_OK) return st;
    w->fn = fn;
    w->user = user;
    w->sink = SINK_CB;
    return begin(w, hdr, hl, total);
}

static const uint8_t g_zeros[4096];

static mio_status write_zeros(mio_writer *w, uint64_t n) {
    while (n) {
        size_t k = n < sizeof g_zeros ? (size_t)n : sizeof g_zeros;
        mio_status st = sink_write(w, g_zeros, k);
        if (st) return st;
        n -= k;
    }
    return MIO_OK;
}

mio_status mio_writer_write_tensor(mio_writer *w, const void *data, size_t len) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    if (w->state != W_STREAM) return mio_err_set(MIO_ERR_STATE, "no streamed write is in progress (call a begin function first)");
    if (w->next >= w->n_t) {
        mio_status st = mio_err_set(MIO_ERR_TOO_MANY_TENSORS, "tensor data call %llu, but only %llu tensors were declared",
                                    (unsigned long long)w->next + 1, (unsigned long long)w->n_t);
        stream_abort(w);
        return st;
    }
    const wtensor *t = &w->t[w->next];
    if (w->part_done) {
        mio_status st = mio_err_set(MIO_ERR_STATE, "tensor '%s' (#%llu) is being written in pieces (%llu of %llu bytes so far); "
                                    "finish it with mio_writer_write_tensor_part", t->name, (unsigned long long)w->next,
                                    (unsigned long long)w->part_done, (unsigned long long)t->nbytes);
        stream_abort(w);
        return st;
    }
    if (!data && t->data && (len == 0 || len == t->nbytes)) { data = t->data; len = (size_t)t->nbytes; }
    if (!data && len) {
        mio_status st = t->data ? mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s' (#%llu): data is NULL (len %zu)", t->name,
                                              (unsigned long long)w->next, len)
                                : mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s' (#%llu) was declared without data and data is "
                                              "NULL (len %zu)", t->name, (unsigned long long)w->next, len);
        stream_abort(w);
        return st;
    }
    if (len != t->nbytes) {
        mio_status st = mio_err_set(MIO_ERR_SIZE_MISMATCH, "tensor '%s' (#%llu) needs %llu bytes, %zu given", t->name,
                                    (unsigned long long)w->next, (unsigned long long)t->nbytes, len);
        stream_abort(w);
        return st;
    }
    mio_status st = sink_write(w, data, len);
    if (!st) st = write_zeros(w, pad_to(t->nbytes, w->alignment) - t->nbytes);
    if (st) {
        mio_err_prefix(st, "tensor '%s': ", t->name);
        stream_abort(w);
        return st;
    }
    w->next++;
    return MIO_OK;
}

mio_status mio_writer_write_tensor_part(mio_writer *w, const void *data, size_t len) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    if (w->state != W_STREAM) return mio_err_set(MIO_ERR_STATE, "no streamed write is in progress (call a begin function first)");
    if (w->next >= w->n_t) {
        mio_status st = mio_err_set(MIO_ERR_TOO_MANY_TENSORS, "tensor data piece after the last of the %llu declared tensors",
                                    (unsigned long long)w->n_t);
        stream_abort(w);
        return st;
    }
    const wtensor *t = &w->t[w->next];
    if (!data && len) {
        mio_status st = mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s' (#%llu): data is NULL (len %zu)", t->name,
                                    (unsigned long long)w->next, len);
        stream_abort(w);
        return st;
    }
    if (len > t->nbytes - w->part_done) {
        mio_status st = mio_err_set(MIO_ERR_SIZE_MISMATCH, "tensor '%s' (#%llu) needs %llu bytes; %llu are written and a "
                                    "piece of %zu would pass the end", t->name, (unsigned long long)w->next,
                                    (unsigned long long)t->nbytes, (unsigned long long)w->part_done, len);
        stream_abort(w);
        return st;
    }
    mio_status st = sink_write(w, data, len);
    if (!st) w->part_done += len;
    if (!st && w->part_done == t->nbytes) st = write_zeros(w, pad_to(t->nbytes, w->alignment) - t->nbytes);
    if (st) {
        mio_err_prefix(st, "tensor '%s': ", t->name);
        stream_abort(w);
        return st;
    }
    if (w->part_done == t->nbytes) {
        w->next++;
        w->part_done = 0;
    }
    return MIO_OK;
}

mio_status mio_writer_finish(mio_writer *w) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    if (w->state != W_STREAM) return mio_err_set(MIO_ERR_STATE, "no streamed write is in progress");
    if (w->next != w->n_t) {
        mio_status st = w->part_done
            ? mio_err_set(MIO_ERR_INCOMPLETE, "finish after %llu of %llu tensors; tensor '%s' has %llu of its %llu bytes",
                          (unsigned long long)w->next, (unsigned long long)w->n_t, w->t[w->next].name,
                          (unsigned long long)w->part_done, (unsigned long long)w->t[w->next].nbytes)
            : mio_err_set(MIO_ERR_INCOMPLETE, "finish after %llu of %llu tensors; tensor '%s' and later are missing",
                          (unsigned long long)w->next, (unsigned long long)w->n_t, w->t[w->next].name);
        stream_abort(w);
        return st;
    }
    mio_status st = MIO_OK;
    if (w->sink == SINK_PATH) st = mio_atomic_commit(&w->af);
    w->sink = SINK_NONE;
    w->state = st ? W_DEAD : W_IDLE;
    return st;
}

static mio_status write_all_tensors(mio_writer *w) {
    for (uint64_t i = 0; i < w->n_t; i++) {
        mio_status st = mio_writer_write_tensor(w, w->t[i].data, (size_t)w->t[i].nbytes);
        if (st) return st;
    }
    return mio_writer_finish(w);
}

static mio_status check_all_data(const mio_writer *w) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    for (uint64_t i = 0; i < w->n_t; i++)
        if (!w->t[i].data && w->t[i].nbytes)
            return mio_err_set(MIO_ERR_INCOMPLETE, "tensor '%s' was declared without data; use the streaming calls",
                               w->t[i].name);
    return MIO_OK;
}

mio_status mio_writer_write_file(mio_writer *w, const char *path) {
    mio_status st = check_all_data(w);
    if (!st) st = mio_writer_begin_file(w, path);
    return st ? st : write_all_tensors(w);
}

mio_status mio_writer_write_fd(mio_writer *w, int fd) {
    mio_status st = check_all_data(w);
    if (!st) st = mio_writer_begin_fd(w, fd);
    return st ? st : write_all_tensors(w);
}

mio_status mio_writer_write_cb(mio_writer *w, mio_write_fn fn, void *user) {
    mio_status st = check_all_data(w);
    if (!st) st = mio_writer_begin_cb(w, fn, user);
    return st ? st : write_all_tensors(w);
}

mio_status mio_gguf_writer_copy_tensor(mio_writer *w, const mio_gguf_file *f, const mio_gguf_tensor *t,
                                       uint64_t *bytes_done) {
    const size_t piece = (size_t)4 << 20;
    const uint8_t *p = t->data;
    uint64_t left = t->nbytes;
    mio_status st = MIO_OK;
    while (left && !st) {
        size_t k = left > piece ? piece : (size_t)left;
        mio_gguf_prefetch(f, p, k);
        st = mio_writer_write_tensor_part(w, p, k);
        mio_gguf_release(f, p, k);
        p += k;
        left -= k;
        *bytes_done += k;
    }
    if (!st && t->nbytes == 0) st = mio_writer_write_tensor_part(w, NULL, 0);
    return st;
}
