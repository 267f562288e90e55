/* SPDX-License-Identifier: MIT */
/* fzt1.c — FZT1, the seed's minimal positional tensor format (§12.7): the
 * magic "FZT1", a u32 tensor count, then per tensor a u32 rank, rank u64
 * dims and the raw f32 little-endian data; no names, no dtypes, nothing after
 * the last tensor. Every count and dim is checked against the bytes that
 * remain before anything is allocated for it, every product for overflow. */
#include "ckpt/ckpt_internal.h"
#include "core/unaligned.h"

#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fzt1.c writes and reads f32 and integers as little-endian memory images"
#endif

ABI_FROZEN(mio_fzt1_tensor, n_elements);

struct mio_fzt1_file {
    mio_region r;         /* the file (heap) or the caller's buffer (borrowed: r.heap NULL) */
    uint64_t n;
    mio_fzt1_tensor *t;   /* n entries; dims into dims[] */
    uint64_t *dims;
};

static const uint8_t k_magic[4] = {'F', 'Z', 'T', '1'};


/* The element count of dims (1 for rank 0), or false on overflow. */
static bool elems(uint32_t rank, const uint64_t *dims, uint64_t *ne) {
    uint64_t n = 1;
    for (uint32_t k = 0; k < rank; k++)
        if (!ck_mul(n, dims[k], &n)) return false;
    *ne = n;
    return true;
}

static mio_status parse(mio_fzt1_file *f) {
    const uint8_t *p = f->r.data, *end = f->r.data + f->r.size;
    if (f->r.size < 4 || memcmp(p, k_magic, 4) != 0)
        return mio_err_set(MIO_ERR_BAD_MAGIC, "FZT1: the file does not start with the magic \"FZT1\"%s",
                           f->r.size < 4 ? " (shorter than 4 bytes)" : "");
    p += 4;
    if ((size_t)(end - p) < 4) return mio_err_set(MIO_ERR_TRUNCATED, "FZT1: the file ends before the tensor count (offset 4)");
    const uint64_t n = ld32(p);
    p += 4;
    /* each tensor takes at least its 4-byte rank: a count the bytes cannot hold is refused before any allocation */
    if (n > (uint64_t)(end - p) / 4)
        return mio_err_set(MIO_ERR_TRUNCATED, "FZT1: %llu tensors announced, but only %zu bytes follow the count",
                           (unsigned long long)n, (size_t)(end - p));
    /* first pass: the ranks and the room they take, so dims[] is one allocation */
    uint64_t total_dims = 0;
    const uint8_t *q = p;
    for (uint64_t i = 0; i < n; i++) {
        const size_t off = (size_t)(q - f->r.data);
        if ((size_t)(end - q) < 4)
            return mio_err_set(MIO_ERR_TRUNCATED, "FZT1: tensor %llu: the file ends before its rank (offset %zu)",
                               (unsigned long long)i, off);
        const uint32_t rank = ld32(q);
        q += 4;
        if ((uint64_t)rank > (uint64_t)(end - q) / 8)
            return mio_err_set(MIO_ERR_TRUNCATED, "FZT1: tensor %llu (offset %zu): rank %u needs %llu bytes of dims, %zu remain",
                               (unsigned long long)i, off, rank, (unsigned long long)rank * 8, (size_t)(end - q));
        uint64_t ne = 1, bytes;
        for (uint32_t k = 0; k < rank; k++)
            if (!ck_mul(ne, ld64(q + 8 * (size_t)k), &ne))
                return mio_err_set(MIO_ERR_OVERFLOW, "FZT1: tensor %llu (offset %zu): the element count overflows at dim %u",
                                   (unsigned long long)i, off, k);
        q += 8 * (size_t)rank;
        if (!ck_mul(ne, 4, &bytes))
            return mio_err_set(MIO_ERR_OVERFLOW, "FZT1: tensor %llu (offset %zu): %llu f32 elements overflow a byte count",
                               (unsigned long long)i, off, (unsigned long long)ne);
        if (bytes > (uint64_t)(end - q))
            return mio_err_set(MIO_ERR_TRUNCATED, "FZT1: tensor %llu (offset %zu): %llu bytes of data announced, %zu remain",
                               (unsigned long long)i, off, (unsigned long long)bytes, (size_t)(end - q));
        q += bytes;
        total_dims += rank;
    }
    if (q != end)
        return mio_err_set(MIO_ERR_INCOMPLETE_BUFFER, "FZT1: %zu bytes after the last tensor (offset %zu)", (size_t)(end - q),
                           (size_t)(q - f->r.data));
    f->t = calloc(n ? n : 1, sizeof *f->t);
    f->dims = malloc((total_dims ? total_dims : 1) * sizeof *f->dims);
    if (!f->t || !f->dims) return mio_err_set(MIO_ERR_NOMEM, "FZT1: no memory for %llu tensors", (unsigned long long)n);
    /* second pass: fill (everything was checked) */
    uint64_t *dp = f->dims;
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t rank = ld32(p);
        p += 4;
        for (uint32_t k = 0; k < rank; k++) dp[k] = ld64(p + 8 * (size_t)k);
        p += 8 * (size_t)rank;
        mio_fzt1_tensor *t = &f->t[i];
        t->n_dims = rank;
        t->dims = dp;
        (void)elems(rank, dp, &t->n_elements);
        t->data = p;
        p += 4 * t->n_elements;
        dp += rank;
    }
    f->n = n;
    return MIO_OK;
}

static mio_status open_region(mio_fzt1_file *f, mio_fzt1_file **out) {
    mio_status st = parse(f);
    if (st) {
        mio_fzt1_close(f);
        return st;
    }
    *out = f;
    return MIO_OK;
}

mio_status mio_fzt1_open(const char *path, mio_fzt1_file **out) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_open: out is NULL");
    *out = NULL;
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_open: path is NULL");
    mio_fzt1_file *f = calloc(1, sizeof *f);
    if (!f) return mio_err_set(MIO_ERR_NOMEM, "mio_fzt1_open: out of memory");
    mio_status st = mio_region_read(path, &f->r);
    if (st) {
        free(f);
        return st;
    }
    st = open_region(f, out);
    return st ? mio_err_prefix(st, "%s: ", path) : MIO_OK;
}

mio_status mio_fzt1_open_buffer(const void *data, size_t len, mio_fzt1_file **out) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_open_buffer: out is NULL");
    *out = NULL;
    if (!data && len) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_open_buffer: data is NULL with len = %zu", len);
    mio_fzt1_file *f = calloc(1, sizeof *f);
    if (!f) return mio_err_set(MIO_ERR_NOMEM, "mio_fzt1_open_buffer: out of memory");
    static const uint8_t empty[1] = {0};
    f->r.data = data ? data : empty;
    f->r.size = len;
    return open_region(f, out);
}

void mio_fzt1_close(mio_fzt1_file *f) {
    if (!f) return;
    mio_region_free(&f->r);
    free(f->t), free(f->dims), free(f);
}

int64_t mio_fzt1_count(const mio_fzt1_file *f) { return f ? (int64_t)f->n : -1; }

mio_status mio_fzt1_tensor_info(const mio_fzt1_file *f, int64_t i, mio_fzt1_tensor *out) {
    if (!f || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_tensor_info: %s is NULL", f ? "out" : "f");
    if (i < 0 || (uint64_t)i >= f->n)
        return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_tensor_info: tensor %lld of %llu", (long long)i,
                           (unsigned long long)f->n);
    *out = f->t[i];
    return MIO_OK;
}

/* ------------------------------------------------------------------ writing */
static mio_status check_tensors(const char *fn, const mio_fzt1_tensor *t, size_t n, uint64_t *total) {
    uint64_t sz = 8;
    if (n > UINT32_MAX) return mio_err_set(MIO_ERR_LIMIT, "%s: %zu tensors; FZT1 counts them in a u32", fn, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t ne;
        if (t[i].n_dims && !t[i].dims) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tensor #%zu has %u dims and a NULL dims", fn, i, t[i].n_dims);
        if (!elems(t[i].n_dims, t[i].dims, &ne))
            return mio_err_set(MIO_ERR_OVERFLOW, "%s: tensor #%zu: the element count overflows", fn, i);
        if (ne != t[i].n_elements)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: tensor #%zu has n_elements %llu, its dims make %llu", fn, i,
                               (unsigned long long)t[i].n_elements, (unsigned long long)ne);
        if (ne && !t[i].data) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tensor #%zu has a NULL data pointer", fn, i);
        uint64_t b;
        if (!ck_mul(ne, 4, &b) || !ck_add(sz, 4 + 8 * (uint64_t)t[i].n_dims, &sz) || !ck_add(sz, b, &sz) || sz > SIZE_MAX)
            return mio_err_set(MIO_ERR_OVERFLOW, "%s: the file size overflows at tensor #%zu", fn, i);
    }
    *total = sz;
    return MIO_OK;
}

/* The image into p (total bytes, from check_tensors). */
static void emit(const mio_fzt1_tensor *t, size_t n, uint8_t *p) {
    const uint32_t cnt = (uint32_t)n;
    memcpy(p, k_magic, 4), memcpy(p + 4, &cnt, 4);
    p += 8;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, &t[i].n_dims, 4);
        p += 4;
        if (t[i].n_dims) memcpy(p, t[i].dims, 8 * (size_t)t[i].n_dims);
        p += 8 * (size_t)t[i].n_dims;
        if (t[i].n_elements) memcpy(p, t[i].data, 4 * (size_t)t[i].n_elements);
        p += 4 * (size_t)t[i].n_elements;
    }
}

static mio_status build(const char *fn, const mio_fzt1_tensor *t, size_t n, size_t entry_size, void **out, size_t *len) {
    *out = NULL, *len = 0;
    if (n && !t) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: t is NULL with n = %zu", fn, n);
    const void *use;
    void *copy;
    mio_status st = mio_abi_array_in(t, n, entry_size, sizeof(mio_fzt1_tensor), "tensor", "mio_fzt1_tensor", &use, &copy);
    if (st) return mio_err_prefix(st, "%s: ", fn);
    uint64_t total = 0;
    st = check_tensors(fn, use, n, &total);
    uint8_t *img = st ? NULL : malloc((size_t)total);
    if (!st && !img) st = mio_err_set(MIO_ERR_NOMEM, "%s: no memory for a %llu-byte image", fn, (unsigned long long)total);
    if (!st) {
        emit(use, n, img);
        *out = img, *len = (size_t)total;
    }
    free(copy);
    return st;
}

mio_status mio_fzt1_save_buffer(const mio_fzt1_tensor *t, size_t n, size_t entry_size, void **out, size_t *out_len) {
    if (!out || !out_len) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_fzt1_save_buffer: %s is NULL", out ? "out_len" : "out");
    return build("mio_fzt1_save_buffer", t, n, entry_size, out, out_len);
}

mio_status mio_fzt1_save_file(const char *path, const mio_fzt1_tensor *t, size_t n, size_t entry_size) {
    static const char fn[] = "mio_fzt1_save_file";
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: path is NULL", fn);
    void *img;
    size_t len;
    mio_status st = build(fn, t, n, entry_size, &img, &len);
    if (st) return st;
    mio_atomic_file af;
    st = mio_atomic_open(path, &af);
    if (!st) {
        st = mio_fd_write_all(af.fd, img, len, path);
        if (st) mio_atomic_abort(&af);
        else st = mio_atomic_commit(&af);
    }
    free(img);
    return st;
}
