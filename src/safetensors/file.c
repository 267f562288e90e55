/* SPDX-License-Identifier: MIT */
/* file.c — mio_st_file constructors (path, buffer, stream frame), accessors and
 * slicing. A shard is accepted only after the full upstream check sequence:
 * size, header length cap, header within the file, UTF-8, JSON, per-tensor
 * validation, and finally data buffer length == what the tensors describe. */
#include "st_internal.h"
#include "net/net.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

mio_st_file *mio_st_new(void) { return calloc(1, sizeof(mio_st_file)); }

void mio_st_free(mio_st_file *f) {
    if (!f) return;
    for (uint32_t s = 0; s < f->n_shards; s++) {
        mio_region_free(&f->shards[s].region);
        mio_remote_close(f->shards[s].remote);
        free(f->shards[s].decoded);
    }
    free(f->shards);
    mio_mem_big_free(f->t, (size_t)f->cap_t * sizeof *f->t);
    mio_mem_big_free(f->shapes, (size_t)f->cap_shapes * sizeof *f->shapes);
    mio_mem_big_free(f->meta, (size_t)f->cap_meta * sizeof *f->meta);
    mio_namehash_free(&f->hash);
    free(f);
}

void mio_st_close(mio_st_file *f) { mio_st_free(f); }

/* Check the 8-byte prefix against the total length available. */
static mio_status check_prefix(const uint8_t *b, uint64_t len, uint64_t *n) {
    if (len < 8) return mio_err_set(MIO_ERR_HEADER_TOO_SMALL, "file has %llu bytes; a safetensors file starts with an 8-byte header length",
                                    (unsigned long long)len);
    uint64_t h;
    memcpy(&h, b, 8);
    if (h > MIO_ST_MAX_HEADER)
        return mio_err_set(MIO_ERR_HEADER_TOO_LARGE, "header length %llu exceeds the limit of %u bytes", (unsigned long long)h,
                           MIO_ST_MAX_HEADER);
    if (h > len - 8)
        return mio_err_set(MIO_ERR_INVALID_HEADER_LENGTH, "header length %llu runs past the end of the file (%llu bytes after the length field)",
                           (unsigned long long)h, (unsigned long long)(len - 8));
    *n = h;
    return MIO_OK;
}

/* Full parse of one safetensors image held in region (ownership moves to f),
 * of a file of file_size bytes: region may hold the length and header only (a
 * remote file's prefix), then tensors' data pointers are NULL. */
static mio_status st_add_shard(mio_st_file *f, mio_region *region, uint64_t file_size) {
    st_shard *ns = realloc(f->shards, (f->n_shards + 1) * sizeof *ns);
    if (!ns) { mio_region_free(region); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    f->shards = ns;
    uint32_t s = f->n_shards++;
    memset(&f->shards[s], 0, sizeof f->shards[s]);
    f->shards[s].region = *region;
    f->shards[s].file_size = file_size;
    memset(region, 0, sizeof *region);
    const uint8_t *b = f->shards[s].region.data;
    uint64_t len = file_size, n = 0, data_len = 0, avail = f->shards[s].region.size;
    uint64_t first = f->n_t;
    mio_status st = check_prefix(b, avail < 8 ? avail : len, &n);
    if (st) return st;
    if (8 + n > avail) return mio_err_set(MIO_ERR_TRUNCATED, "only %llu of the header's %llu bytes are at hand",
                                          (unsigned long long)avail, (unsigned long long)(8 + n));
    f->shards[s].header_size = n;
    st = mio_st_parse_header(f, s, b + 8, (size_t)n, &data_len);
    if (st) return st;
    if (data_len != len - 8 - n)
        return mio_err_set(MIO_ERR_INCOMPLETE_BUFFER, "the tensors describe a data buffer of %llu bytes but the file holds %llu after the header",
                           (unsigned long long)data_len, (unsigned long long)(len - 8 - n));
    bool whole = avail == len;
    for (uint64_t i = first; i < f->n_t; i++) f->t[i].data = whole ? b + 8 + n + f->t[i].start : NULL;
    return MIO_OK;
}

/* A remote file's length and header (two requests at most: the first step
 * holds the length, and the header too unless it is longer). */
static mio_status open_remote(const char *uri, mio_st_file *f) {
    mio_remote *rf = NULL;
    mio_status st = mio_remote_open(uri, &rf);
    if (st) return st;
    uint64_t size = mio_remote_size(rf), n = 0;
    const uint8_t *p;
    size_t have;
    st = mio_remote_prefix(rf, 8, &p, &have);
    if (!st) st = check_prefix(p, have < 8 ? have : size, &n);
    if (!st) st = mio_remote_prefix(rf, (size_t)(8 + n), &p, &have);
    uint8_t *copy = st ? NULL : malloc((size_t)(8 + n));
    if (!st && !copy) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (st) {
        free(copy);
        mio_remote_close(rf);
        return mio_err_prefix(st, "%s: ", uri);
    }
    memcpy(copy, p, (size_t)(8 + n));
    mio_region r = {0};
    r.data = copy;
    r.size = (size_t)(8 + n);
    r.heap = copy;
    st = st_add_shard(f, &r, size);
    f->shards[f->n_shards - 1].remote = rf; /* freed with f, also on failure */
    if (st) return mio_err_prefix(st, "%s: ", uri);
    return MIO_OK;
}

mio_status mio_st_open_single(const char *path, uint32_t flags, mio_st_file *f) {
    if (mio_net_is_remote(path)) {
        if (flags & MIO_OPEN_HEADER) return open_remote(path, f);
        /* the whole file: from huggingface_hub's cache, pulled there first */
        char *local = NULL;
        mio_status st = mio_hub_local_copy(path, &local);
        if (!st) st = mio_st_open_single(local, flags, f);
        free(local);
        return st;
    }
    mio_region r;
    mio_status st = (flags & MIO_OPEN_READ) ? mio_region_read(path, &r) : mio_region_map(path, &r);
    if (st) return st;
    st = st_add_shard(f, &r, r.size);
    if (st) return mio_err_prefix(st, "%s: ", path);
    return MIO_OK;
}

mio_status mio_st_open(const char *path, uint32_t flags, mio_st_file **out) {
    if (!path || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !path ? "path" : "out");
    if (flags & ~(MIO_OPEN_READ | MIO_OPEN_HEADER)) return mio_err_set(MIO_ERR_INVALID_ARG, "unknown open flags 0x%x", flags);
    size_t n = strlen(path);
    if (n >= 11 && strcmp(path + n - 11, ".index.json") == 0) return mio_st_open_index(path, flags, out);
    mio_st_file *f = mio_st_new();
    if (!f) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = mio_st_open_single(path, flags, f);
    if (st) { mio_st_free(f); return st; }
    *out = f;
    return MIO_OK;
}

mio_status mio_st_open_buffer(const void *data, size_t len, uint32_t flags, mio_st_file **out) {
    bool take = (flags & MIO_BUFFER_TAKE) != 0;
    mio_region r = {0};
    r.data = data;
    r.size = len;
    if (take) r.heap = (void *)(uintptr_t)data;
    if (!out || (!data && len) || (flags & ~MIO_BUFFER_TAKE)) {
        mio_region_free(&r);
        return mio_err_set(MIO_ERR_INVALID_ARG, !out ? "out is NULL" : !data ? "data is NULL" : "unknown flags 0x%x", flags);
    }
    mio_st_file *f = mio_st_new();
    if (!f) { mio_region_free(&r); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    mio_status st = st_add_shard(f, &r, len);
    if (st) { mio_st_free(f); return st; }
    *out = f;
    return MIO_OK;
}

/* Read up to n bytes; *got says how many arrived. MIO_OK when all n did,
 * MIO_ERR_TRUNCATED when the stream ended first, MIO_ERR_IO when fn failed. Sets
 * no message: the caller knows what the bytes are and states it in frame terms. */
static mio_status read_upto(mio_read_fn fn, void *user, void *buf, uint64_t n, uint64_t *got) {
    uint8_t *b = buf;
    *got = 0;
    while (*got < n) {
        size_t want = (n - *got) > (1u << 30) ? (1u << 30) : (size_t)(n - *got);
        int64_t r = fn(user, b + *got, want);
        if (r < 0) return MIO_ERR_IO;
        if (r == 0) return MIO_ERR_TRUNCATED;
        *got += (uint64_t)r;
    }
    return MIO_OK;
}

/* The message for a short or failed read of `what`: how many of the bytes the
 * frame announced arrived (whole-frame counts, never a buffer chunk's). */
static mio_status read_fail(mio_status st, uint64_t got, uint64_t n, const char *what) {
    if (st == MIO_ERR_TRUNCATED)
        return mio_err_set(st, "stream ended after %llu of the %llu %s", (unsigned long long)got, (unsigned long long)n, what);
    return mio_err_set(st, "reading the stream failed after %llu of the %llu %s", (unsigned long long)got, (unsigned long long)n,
                       what);
}

/* Read n more bytes into *buf at offset at, growing the buffer only as data
 * actually arrives (1 MiB first, then doubling): a frame that claims a huge
 * size but ends early costs at most twice what was really received. */
static mio_status read_growing(mio_read_fn fn, void *user, uint8_t **buf, size_t *cap, size_t at, uint64_t n,
                               const char *what) {
    uint64_t done = 0;
    while (done < n) {
        size_t need = at + (size_t)done + 1;
        if (need > *cap) {
            size_t nc = *cap < ((size_t)1 << 20) ? ((size_t)1 << 20) : *cap * 2;
            if (nc > at + n) nc = at + (size_t)n;
            uint8_t *nb = realloc(*buf, nc);
            if (!nb) return mio_err_set(MIO_ERR_NOMEM, "cannot grow the frame buffer to %zu bytes", nc);
            *buf = nb;
            *cap = nc;
        }
        size_t room = *cap - at - (size_t)done;
        uint64_t got;
        mio_status st = read_upto(fn, user, *buf + at + done, room, &got);
        done += got;
        if (st) return read_fail(st, done, n, what);
    }
    return MIO_OK;
}

mio_status mio_st_read_frame(mio_read_fn fn, void *user, mio_st_file **out) {
    if (!fn || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !fn ? "fn" : "out");
    uint8_t len8[8];
    uint64_t got;
    mio_status st = read_upto(fn, user, len8, 8, &got);
    if (st) {
        read_fail(st, got, 8, "bytes of the header length");
        return st == MIO_ERR_TRUNCATED ? mio_err_prefix(MIO_ERR_HEADER_TOO_SMALL, "%s", "") : st;
    }
    uint64_t n;
    memcpy(&n, len8, 8);
    if (n > MIO_ST_MAX_HEADER)
        return mio_err_set(MIO_ERR_HEADER_TOO_LARGE, "header length %llu exceeds the limit of %u bytes", (unsigned long long)n,
                           MIO_ST_MAX_HEADER);
    /* Parse the header on its own first: it tells how many data bytes belong to this frame. */
    size_t cap = 8;
    uint8_t *hdr = malloc(cap);
    if (!hdr) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(hdr, len8, 8);
    st = read_growing(fn, user, &hdr, &cap, 8, n, "header bytes the length field announces");
    if (st) {
        free(hdr);
        return st == MIO_ERR_TRUNCATED ? mio_err_prefix(MIO_ERR_INVALID_HEADER_LENGTH, "%s", "") : st;
    }
    mio_st_file *probe = mio_st_new();
    uint64_t data_len = 0;
    if (!probe || !(probe->shards = calloc(1, sizeof *probe->shards))) {
        mio_st_free(probe);
        free(hdr);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    probe->n_shards = 1;
    st = mio_st_parse_header(probe, 0, hdr + 8, (size_t)n, &data_len);
    mio_st_free(probe);
    if (st) { free(hdr); return st; }
    uint64_t total;
    if (!ck_add(8 + n, data_len, &total) || total > SIZE_MAX) {
        free(hdr);
        return mio_err_set(MIO_ERR_OVERFLOW, "frame of %llu data bytes is too large", (unsigned long long)data_len);
    }
    st = read_growing(fn, user, &hdr, &cap, (size_t)(8 + n), data_len, "data bytes the header announces");
    if (st) { free(hdr); return st; }
    /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): MIO_BUFFER_TAKE hands hdr to the file (freed on failure too) */
    return mio_st_open_buffer(hdr, (size_t)total, MIO_BUFFER_TAKE, out);
}

/* The descriptor and the errno of a failed read, for the message. */
typedef struct fd_src { int fd, err; } fd_src;

static int64_t fd_read(void *user, void *buf, size_t len) {
    fd_src *s = user;
    for (;;) {
        ssize_t r = read(s->fd, buf, len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) s->err = errno;
        return (int64_t)r;
    }
}

mio_status mio_st_read_frame_fd(int fd, mio_st_file **out) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL"); /* before anything is read from fd */
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "file descriptor %d is invalid", fd);
    fd_src s = {fd, 0};
    mio_status st = mio_st_read_frame(fd_read, &s, out);
    if (st && s.err) mio_err_append(": %s", strerror(s.err));
    return st;
}

uint64_t mio_st_header_size(const mio_st_file *f) { return f && f->n_shards ? f->shards[0].header_size : 0; }
uint64_t mio_st_file_size(const mio_st_file *f) { return f && f->n_shards ? f->shards[0].file_size : 0; }
uint32_t mio_st_shard_count(const mio_st_file *f) { return f ? f->n_shards : 0; }
int mio_st_uses_file(const mio_st_file *f, const char *path) {
    if (!f || !path) return 0;
    for (uint32_t i = 0; i < f->n_shards; i++)
        if (mio_region_is_file(&f->shards[i].region, path)) return 1;
    return 0;
}
int64_t mio_st_tensor_count(const mio_st_file *f) { return f ? (int64_t)f->n_t : -1; }
int64_t mio_st_meta_count(const mio_st_file *f) { return f ? (int64_t)f->n_meta : -1; }

ABI_FROZEN(mio_st_tensor, shard);

mio_status mio_st_tensor_info(const mio_st_file *f, int64_t i, mio_st_tensor *out) {
    return mio_st_tensor_info_sized(f, i, out, sizeof *out);
}

mio_status mio_st_tensor_info_sized(const mio_st_file *f, int64_t i, mio_st_tensor *o, size_t out_size) {
    if (!f || !o) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : "out");
    if (i < 0 || (uint64_t)i >= f->n_t)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %lld out of range (file has %llu tensors)", (long long)i,
                           (unsigned long long)f->n_t);
    const st_rec *r = &f->t[i];
    mio_st_tensor v, *out = &v;
    memset(&v, 0, sizeof v); /* padding too: the caller gets no stack bytes */
    out->name = r->name;
    out->dtype = r->dtype;
    out->type = mio_st_dtype_to_type(r->dtype);
    out->n_dims = r->n_dims;
    out->shape = f->shapes ? f->shapes + r->shape_at : NULL;
    out->data_start = r->start;
    out->data_end = r->end;
    out->data = r->data;
    out->nbytes = r->end - r->start;
    out->shard = r->shard;
    mio_abi_copy_out(o, out_size, &v, sizeof v);
    return MIO_OK;
}

mio_status mio_st_read_tensor(const mio_st_file *f, int64_t i, uint64_t offset, void *buf, size_t len) {
    if (!f) return mio_err_set(MIO_ERR_INVALID_ARG, "file f is NULL");
    if (!buf && len) return mio_err_set(MIO_ERR_INVALID_ARG, "buf is NULL");
    if (i < 0 || (uint64_t)i >= f->n_t)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %lld out of range (file has %llu tensors)", (long long)i,
                           (unsigned long long)f->n_t);
    const st_rec *r = &f->t[i];
    uint64_t nbytes = r->end - r->start;
    if (offset > nbytes || len > nbytes - offset)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "tensor '%.*s': bytes %llu..%llu are outside its %llu bytes",
                           (int)r->name.len, r->name.ptr, (unsigned long long)offset, (unsigned long long)offset + len,
                           (unsigned long long)nbytes);
    if (len == 0) return MIO_OK;
    const st_shard *sh = &f->shards[r->shard];
    const mio_region *reg = &sh->region;
    char what[128];
    snprintf(what, sizeof what, "tensor '%.*s'%s", (int)(r->name.len < 64 ? r->name.len : 64), r->name.ptr,
             f->n_shards > 1 ? " (sharded)" : "");
    /* a remote shard (MIO_OPEN_HEADER): one range request */
    if (sh->remote) return mio_remote_read(sh->remote, 8 + sh->header_size + r->start + offset, buf, len, what);
    return mio_region_pread(reg, (uint64_t)(r->data - reg->data) + offset, buf, len, what);
}

int64_t mio_st_find_tensor(const mio_st_file *f, const char *name) {
    if (!f || !name) return -1;
    return mio_namehash_find(&f->hash, name, strlen(name), mio_st_name_at, f);
}

mio_status mio_st_meta_at(const mio_st_file *f, int64_t i, mio_str *key, mio_str *value) {
    if (!f) return mio_err_set(MIO_ERR_INVALID_ARG, "file f is NULL");
    if (i < 0 || (uint64_t)i >= f->n_meta)
        return mio_err_set(MIO_ERR_INVALID_ARG, "metadata index %lld out of range (%llu entries)", (long long)i,
                           (unsigned long long)f->n_meta);
    if (key) *key = f->meta[2 * i];
    if (value) *value = f->meta[2 * i + 1];
    return MIO_OK;
}

mio_status mio_st_find_meta(const mio_st_file *f, const char *key, mio_str *value) {
    if (!f || !key) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : "key");
    size_t n = strlen(key);
    /* sorted by key: binary search */
    uint64_t lo = 0, hi = f->n_meta;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        const mio_str *k = &f->meta[2 * mid];
        size_t m = k->len < n ? k->len : n;
        int c = memcmp(k->ptr, key, m);
        if (!c) c = k->len < n ? -1 : k->len > n;
        if (!c) { if (value) *value = f->meta[2 * mid + 1]; return MIO_OK; }
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return mio_err_set(MIO_ERR_NOT_FOUND, "no __metadata__ key '%s'", key);
}

mio_status mio_st_slice(const mio_st_file *f, int64_t i, uint32_t n_ranges, const uint64_t *starts,
                        const uint64_t *ends, void *dst, size_t dst_len, size_t *written) {
    mio_st_tensor t;
    mio_status st = mio_st_tensor_info(f, i, &t);
    if (st) return st;
    char nb[160];
    mio_esc_bytes(nb, sizeof nb, t.name.ptr, t.name.len);
    uint32_t bits = mio_st_dtype_bits(t.dtype);
    if (bits % 8) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': slicing a sub-byte dtype (%s) is not supported", nb,
                                     mio_st_dtype_name(t.dtype));
    if (n_ranges > t.n_dims)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': %u ranges given for a rank-%u tensor", nb, n_ranges, t.n_dims);
    if (n_ranges && (!starts || !ends))
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL (n_ranges %u)", !starts ? "starts" : "ends", n_ranges);
    for (uint32_t d = 0; d < n_ranges; d++) {
        if (starts[d] > ends[d])
            return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': axis %u range [%llu, %llu) has start > end", nb, d,
                               (unsigned long long)starts[d], (unsigned long long)ends[d]);
        if (ends[d] > t.shape[d])
            return mio_err_set(MIO_ERR_OUT_OF_RANGE, "tensor '%s': axis %u range end %llu exceeds the dimension %llu", nb, d,
                               (unsigned long long)ends[d], (unsigned long long)t.shape[d]);
    }
    /* Bytes of one contiguous run: the element size times all axes from the last ranged one on. */
    uint64_t esz = bits / 8, inner = esz; /* bytes per index step of axis n_ranges-1 */
    for (uint32_t d = n_ranges; d < t.n_dims; d++) inner *= t.shape[d];
    uint64_t total = inner;
    for (uint32_t d = 0; d < n_ranges; d++) total *= ends[d] - starts[d];
    if (n_ranges == 0) total = t.nbytes;
    if (total > dst_len)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "tensor '%s': the slice is %llu bytes, the destination holds %zu", nb,
                           (unsigned long long)total, dst_len);
    if (!dst && total) return mio_err_set(MIO_ERR_INVALID_ARG, "dst is NULL");
    if (n_ranges > 64) return mio_err_set(MIO_ERR_INVALID_ARG, "more than 64 ranged axes");
    /* nothing fails below: the outputs are written only now */
    if (written) *written = (size_t)total;
    if (total == 0) return MIO_OK;
    if (n_ranges == 0) { memcpy(dst, t.data, (size_t)total); return MIO_OK; }
    /* Strides (bytes) of the ranged axes; copy runs of the last ranged axis with an odometer. */
    uint64_t stride[64], idx[64];
    uint64_t s = inner;
    for (uint32_t d = n_ranges; d-- > 0;) { stride[d] = s; s *= t.shape[d]; }
    uint32_t last = n_ranges - 1;
    /* cppcheck-suppress uninitvar ; n_ranges >= 1 here (0 returned above): the loop set stride[0..n_ranges) */
    uint64_t run = (ends[last] - starts[last]) * stride[last];
    for (uint32_t d = 0; d < n_ranges; d++) idx[d] = starts[d];
    uint8_t *o = dst;
    const uint8_t *src = t.data;
    for (;;) {
        uint64_t off = 0;
        for (uint32_t d = 0; d < n_ranges; d++) off += idx[d] * stride[d];
        memcpy(o, src + off, (size_t)run);
        o += run;
        uint32_t d = last;
        for (;;) {
            if (d == 0) return MIO_OK;
            d--;
            if (++idx[d] < ends[d]) break;
            idx[d] = starts[d];
        }
    }
}
