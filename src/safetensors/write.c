/* SPDX-License-Identifier: MIT */
/* write.c — safetensors serialization in upstream's canonical form
 * (serialize_to_file): tensors ordered by dtype descending then name, compact
 * JSON with __metadata__ first, serde_json's string escaping, header padded with
 * spaces to a multiple of 8, data packed with no gaps. Everything is validated
 * and the header is built before the first byte goes out. */
#include "st_internal.h"

#include "core/sbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sb_u64(sbuf *b, uint64_t v) {
    char t[24];
    int k = snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    sb_put(b, t, (size_t)k);
}

/* serde_json's escaping: short forms for " \ \b \f \n \r \t, \u00xx for other
 * control characters, everything else (UTF-8, DEL) raw. */
static void sb_json_str(sbuf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    sb_put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *e = NULL;
        char u[6];
        switch (c) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default:
            if (c < 0x20) {
                /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): u is a 6-byte escape, not a C string */
                memcpy(u, "\\u00", 4);
                u[4] = hex[c >> 4];
                u[5] = hex[c & 15];
            } else continue;
        }
        sb_put(b, s + run, i - run);
        if (e) sb_str(b, e); else sb_put(b, u, 6);
        run = i + 1;
    }
    sb_put(b, s + run, n - run);
    sb_put(b, "\"", 1);
}

typedef struct plan {
    const mio_st_entry **order; /* the entries in file order */
    char *header;       /* 8-byte length + padded JSON */
    size_t header_len;
    uint64_t data_len;
} plan;

static int cmp_str(const char *a, const char *b) { return strcmp(a, b); } /* bytewise for UTF-8 */

/* The comparators read only what their arguments point to (no file-scope
 * state), so concurrent saves never see each other's arrays. */
static int cmp_entry(const void *x, const void *y) {
    const mio_st_entry *a = *(const mio_st_entry *const *)x, *b = *(const mio_st_entry *const *)y;
    if (a->dtype != b->dtype) return a->dtype > b->dtype ? -1 : 1; /* dtype descending */
    return cmp_str(a->name, b->name);
}
static int cmp_meta_ptr(const void *x, const void *y) {
    return cmp_str((*(const mio_st_meta *const *)x)->key, (*(const mio_st_meta *const *)y)->key);
}

static mio_status check_utf8(const char *s, const char *what) {
    size_t bad;
    if (!mio_st_utf8_valid((const uint8_t *)s, strlen(s), &bad))
        return mio_err_set(MIO_ERR_INVALID_UTF8, "%s is not valid UTF-8 (byte %zu)", what, bad);
    return MIO_OK;
}

static void plan_free(plan *p) {
    free(p->order);
    free(p->header);
    memset(p, 0, sizeof *p);
}

static mio_status make_plan(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta, bool filled, plan *p) {
    memset(p, 0, sizeof *p);
    if (n && !t) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor list t is NULL (n %zu)", n);
    if (n_meta && !meta) return mio_err_set(MIO_ERR_INVALID_ARG, "metadata list meta is NULL (n_meta %zu)", n_meta);
    for (size_t i = 0; i < n; i++) {
        const mio_st_entry *e = &t[i];
        if (!e->name || !*e->name) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor #%zu has an empty name", i);
        if (strcmp(e->name, "__metadata__") == 0)
            return mio_err_set(MIO_ERR_INVALID_ARG, "tensor #%zu is named __metadata__, which is reserved", i);
        mio_status st = check_utf8(e->name, "a tensor name");
        if (st) return mio_err_prefix(st, "tensor #%zu: ", i);
        if (!mio_st_dtype_name(e->dtype)) return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "tensor '%s': unknown dtype %d", e->name, e->dtype);
        if (e->n_dims && !e->shape) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': shape is NULL", e->name);
        uint64_t bytes;
        mio_str nm = {e->name, strlen(e->name)};
        st = mio_st_tensor_size(e->dtype, e->n_dims, e->shape, &bytes, &nm);
        if (st) return st;
        if (bytes != e->nbytes)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "tensor '%s': %zu data bytes given, %s x shape needs %llu", e->name,
                               e->nbytes, mio_st_dtype_name(e->dtype), (unsigned long long)bytes);
        if (bytes && !e->data && !filled) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': data is NULL", e->name);
        if (!ck_add(p->data_len, bytes, &p->data_len)) return mio_err_set(MIO_ERR_OVERFLOW, "total data size overflows");
    }
    for (size_t i = 0; i < n_meta; i++) {
        if (!meta[i].key || !meta[i].value) return mio_err_set(MIO_ERR_INVALID_ARG, "metadata entry #%zu has a NULL key or value", i);
        mio_status st = check_utf8(meta[i].key, "a metadata key");
        if (!st) st = check_utf8(meta[i].value, "a metadata value");
        if (st) return mio_err_prefix(st, "metadata '%.60s': ", meta[i].key);
    }
    /* NOLINTBEGIN(bugprone-sizeof-expression): arrays of pointers; sizeof *p is the element size */
    const mio_st_meta **mord = malloc((n_meta ? n_meta : 1) * sizeof *mord);
    p->order = malloc((n ? n : 1) * sizeof *p->order);
    if (!mord || !p->order) { free(mord); plan_free(p); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    for (size_t i = 0; i < n; i++) p->order[i] = &t[i];
    for (size_t i = 0; i < n_meta; i++) mord[i] = &meta[i];
    qsort(p->order, n, sizeof *p->order, cmp_entry);
    qsort(mord, n_meta, sizeof *mord, cmp_meta_ptr);
    /* NOLINTEND(bugprone-sizeof-expression) */
    mio_status st = MIO_OK;
    for (size_t i = 1; i < n_meta && !st; i++)
        if (cmp_str(mord[i - 1]->key, mord[i]->key) == 0)
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "metadata key '%.60s' is given twice", mord[i]->key);
    if (st) { free(mord); plan_free(p); return st; }

    sbuf b = {0};
    sb_put(&b, "\0\0\0\0\0\0\0\0", 8);
    sb_put(&b, "{", 1);
    if (n_meta) {
        sb_str(&b, "\"__metadata__\":{");
        for (size_t k = 0; k < n_meta; k++) {
            if (k) sb_put(&b, ",", 1);
            const mio_st_meta *m = mord[k];
            sb_json_str(&b, m->key, strlen(m->key));
            sb_put(&b, ":", 1);
            sb_json_str(&b, m->value, strlen(m->value));
        }
        sb_put(&b, "}", 1);
        if (n) sb_put(&b, ",", 1);
    }
    free(mord);
    uint64_t off = 0;
    for (size_t k = 0; k < n; k++) {
        const mio_st_entry *e = p->order[k];
        if (k) sb_put(&b, ",", 1);
        sb_json_str(&b, e->name, strlen(e->name));
        sb_str(&b, ":{\"dtype\":\"");
        sb_str(&b, mio_st_dtype_name(e->dtype));
        sb_str(&b, "\",\"shape\":[");
        for (uint32_t d = 0; d < e->n_dims; d++) {
            if (d) sb_put(&b, ",", 1);
            sb_u64(&b, e->shape[d]);
        }
        sb_str(&b, "],\"data_offsets\":[");
        sb_u64(&b, off);
        sb_put(&b, ",", 1);
        off += e->nbytes;
        sb_u64(&b, off);
        sb_str(&b, "]}");
    }
    sb_put(&b, "}", 1);
    while (!b.oom && (b.n - 8) % 8) sb_put(&b, " ", 1); /* sb_put adds nothing once out of memory */
    if (b.oom) { free(b.p); plan_free(p); return mio_err_set(MIO_ERR_NOMEM, "out of memory building the header"); }
    uint64_t hl = b.n - 8;
    if (hl > MIO_ST_MAX_HEADER) {
        free(b.p);
        plan_free(p);
        return mio_err_set(MIO_ERR_HEADER_TOO_LARGE, "the header would be %llu bytes, over the %u-byte limit", (unsigned long long)hl,
                           MIO_ST_MAX_HEADER);
    }
    memcpy(b.p, &hl, 8);
    p->header = b.p;
    p->header_len = b.n;
    return MIO_OK;
}

/* Duplicate tensor names, checked with a sorted copy of the names. */
static int cmp_name_ptr(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }
static mio_status check_duplicates(const mio_st_entry *t, size_t n) {
    if (n < 2) return MIO_OK;
    const char **names = malloc(n * sizeof *names);
    if (!names) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) names[i] = t[i].name;
    qsort(names, n, sizeof *names, cmp_name_ptr);
    mio_status st = MIO_OK;
    for (size_t i = 1; i < n && !st; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            st = mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "tensor name '%.60s' is given twice", names[i]);
    free(names);
    return st;
}

static mio_status plan_build(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta, bool filled,
                             plan *p) {
    mio_status st = make_plan(t, n, meta, n_meta, filled, p);
    if (st) return st;
    st = check_duplicates(t, n);
    if (st) plan_free(p);
    return st;
}

mio_status mio_st_validate_entries(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta, bool filled) {
    plan p;
    mio_status st = plan_build(t, n, meta, n_meta, filled, &p);
    if (!st) plan_free(&p);
    return st;
}

typedef mio_status (*emit_fn)(void *ctx, const void *p, size_t n);

/* The data of entry e: its bytes, or (data NULL, a source given) chunks the
 * source fills, at offsets that are multiples of ST_FILL_CHUNK. */
static mio_status emit_entry(const mio_st_entry *e, const mio_st_entry *base, const st_source *src, uint8_t *buf,
                             emit_fn emit, void *ctx) {
    if (!e->nbytes) return MIO_OK;
    if (e->data || !src) return emit(ctx, e->data, e->nbytes);
    size_t k = (size_t)(e - base);
    size_t index = src->index_map ? src->index_map[k] : k;
    mio_status st = MIO_OK;
    for (uint64_t off = 0; off < e->nbytes && !st; off += ST_FILL_CHUNK) {
        size_t len = e->nbytes - off < ST_FILL_CHUNK ? (size_t)(e->nbytes - off) : ST_FILL_CHUNK;
        st = src->fill(src->user, index, off, buf, len);
        if (!st) st = emit(ctx, buf, len);
    }
    return st;
}

static mio_status emit_all(const plan *p, const mio_st_entry *base, size_t n, const st_source *src, emit_fn emit,
                           void *ctx) {
    uint8_t *buf = NULL;
    if (src) {
        bool any = false;
        for (size_t k = 0; k < n && !any; k++) any = !base[k].data && base[k].nbytes;
        if (any && !(buf = malloc(ST_FILL_CHUNK))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    mio_status st = emit(ctx, p->header, p->header_len);
    for (size_t k = 0; k < n && !st; k++) st = emit_entry(p->order[k], base, src, buf, emit, ctx);
    free(buf);
    return st;
}

static mio_status emit_fd(void *ctx, const void *p, size_t n) {
    mio_atomic_file *af = ctx;
    mio_status st = mio_atomic_check(af); /* stop early once mio_cancel_writes removed the temp file */
    return st ? st : mio_fd_write_all(af->fd, p, n, af->tmp_path);
}

/* Write the image p describes into af, a temp file mio_atomic_open just created, and
 * fsync + close it (mio_atomic_close_tmp) without renaming it into place. On failure
 * af is aborted: its temp file is removed. */
static mio_status write_image(mio_atomic_file *af, const plan *p, const mio_st_entry *t, size_t n, const st_source *src,
                              const char *path) {
    mio_status st = MIO_OK;
    uint64_t total = p->header_len + p->data_len;
    if (total) {
        int e = posix_fallocate(af->fd, 0, (off_t)total);
        if (e != 0 && e != EINVAL && e != EOPNOTSUPP)
            st = mio_err_set(MIO_ERR_IO, "cannot preallocate %llu bytes for '%s': %s", (unsigned long long)total, path,
                             strerror(e));
    }
    if (!st) st = emit_all(p, t, n, src, emit_fd, af);
    if (st) { mio_atomic_abort(af); return st; }
    return mio_atomic_close_tmp(af);
}

mio_status mio_st_save_tmp(const char *path, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                           const st_source *src, mio_atomic_file *af) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    /* validate and build the header before a temp file exists */
    plan p;
    mio_status st = plan_build(t, n, meta, n_meta, src != NULL, &p);
    if (st) return st;
    st = mio_atomic_open(path, af);
    if (!st) st = write_image(af, &p, t, n, src, path);
    plan_free(&p);
    return st;
}

mio_status mio_st_save_file(const char *path, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta) {
    mio_atomic_file af;
    mio_status st = mio_st_save_tmp(path, t, n, meta, n_meta, NULL, &af);
    return st ? st : mio_atomic_rename(&af);
}

typedef struct membuf { uint8_t *p; size_t n; } membuf;
static mio_status emit_mem(void *ctx, const void *p, size_t n) {
    membuf *m = ctx;
    memcpy(m->p + m->n, p, n);
    m->n += n;
    return MIO_OK;
}

mio_status mio_st_save_buffer(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta, void **out,
                              size_t *out_len) {
    if (!out || !out_len) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !out ? "out" : "out_len");
    plan p;
    mio_status st = plan_build(t, n, meta, n_meta, false, &p);
    if (st) return st;
    uint64_t total = p.header_len + p.data_len;
    if (total > SIZE_MAX) { plan_free(&p); return mio_err_set(MIO_ERR_OVERFLOW, "a %llu-byte image does not fit in memory", (unsigned long long)total); }
    membuf m = {malloc((size_t)total ? (size_t)total : 1), 0};
    if (!m.p) { plan_free(&p); return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %llu bytes", (unsigned long long)total); }
    emit_all(&p, t, n, NULL, emit_mem, &m);
    plan_free(&p);
    *out = m.p;
    *out_len = m.n;
    return MIO_OK;
}

typedef struct cbctx { mio_write_fn fn; void *user; } cbctx;
static mio_status emit_cb(void *ctx, const void *p, size_t n) {
    cbctx *c = ctx;
    if (c->fn(c->user, p, n) != 0) return mio_err_set(MIO_ERR_IO, "the write callback reported a failure");
    return MIO_OK;
}

mio_status mio_st_save_cb_src(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                              const st_source *src, mio_write_fn fn, void *user) {
    if (!fn) return mio_err_set(MIO_ERR_INVALID_ARG, "write callback fn is NULL");
    plan p;
    mio_status st = plan_build(t, n, meta, n_meta, src != NULL, &p);
    if (st) return st;
    cbctx c = {fn, user};
    st = emit_all(&p, t, n, src, emit_cb, &c);
    plan_free(&p);
    return st;
}

mio_status mio_st_save_cb(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta, mio_write_fn fn,
                          void *user) {
    return mio_st_save_cb_src(t, n, meta, n_meta, NULL, fn, user);
}

static mio_status emit_out_fd(void *ctx, const void *p, size_t n) {
    return mio_fd_write_all(*(const int *)ctx, p, n, "the output descriptor");
}

mio_status mio_st_save_fd(int fd, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta) {
    plan p;
    mio_status st = plan_build(t, n, meta, n_meta, false, &p);
    if (st) return st;
    if (fd < 0) st = mio_err_set(MIO_ERR_INVALID_ARG, "file descriptor %d is invalid", fd);
    if (!st) st = emit_all(&p, t, n, NULL, emit_out_fd, &fd);
    plan_free(&p);
    return st;
}

/* ------------------------------------------------------------------ sized entry arrays (docs/ABI.md) */
ABI_FROZEN(mio_st_entry, nbytes);

/* The caller's n entries, entry_size bytes apart, as this library's mio_st_entry array. */
static mio_status entries_sized(const mio_st_entry *t, size_t n, size_t entry_size, const mio_st_entry **use,
                                mio_st_entry **copy) {
    const void *u;
    void *c;
    mio_status st = mio_abi_array_in(t, n, entry_size, sizeof(mio_st_entry), "entry", "mio_st_entry", &u, &c);
    *use = u;
    *copy = c;
    return st;
}

mio_status mio_st_save_file_sized(const char *path, const mio_st_entry *t, size_t n, size_t entry_size,
                                  const mio_st_meta *meta, size_t n_meta) {
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = entries_sized(t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_file(path, use, n, meta, n_meta);
    free(copy);
    return st;
}

mio_status mio_st_save_buffer_sized(const mio_st_entry *t, size_t n, size_t entry_size, const mio_st_meta *meta,
                                    size_t n_meta, void **out, size_t *out_len) {
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = entries_sized(t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_buffer(use, n, meta, n_meta, out, out_len);
    free(copy);
    return st;
}

mio_status mio_st_save_cb_sized(const mio_st_entry *t, size_t n, size_t entry_size, const mio_st_meta *meta,
                                size_t n_meta, mio_write_fn fn, void *user) {
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = entries_sized(t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_cb(use, n, meta, n_meta, fn, user);
    free(copy);
    return st;
}

mio_status mio_st_save_fd_sized(int fd, const mio_st_entry *t, size_t n, size_t entry_size, const mio_st_meta *meta,
                                size_t n_meta) {
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = entries_sized(t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_fd(fd, use, n, meta, n_meta);
    free(copy);
    return st;
}

mio_status mio_st_save_sharded_sized(const char *dir, const mio_st_entry *t, size_t n, size_t entry_size,
                                     const mio_st_meta *meta, size_t n_meta, uint64_t max_shard_bytes,
                                     uint32_t *n_shards) {
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = entries_sized(t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_sharded(dir, use, n, meta, n_meta, max_shard_bytes, n_shards);
    free(copy);
    return st;
}
