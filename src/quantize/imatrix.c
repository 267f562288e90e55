/* SPDX-License-Identifier: MIT */
/* imatrix.c — llama.cpp importance matrices (legacy .dat and GGUF) turned into
 * the per-tensor vectors llama-quantize hands to llama_model_quantize. Every
 * count from the file is checked against the bytes remaining before it sizes
 * anything; entries are kept sorted by name with a hash for lookups. */
#include "quantize/imatrix.h"

#include "core/unaligned.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct qz_entry {
    char *name;        /* NUL-terminated, owned */
    size_t name_len;
    float *values;     /* owned, NULL when n is 0 */
    uint64_t n;
} qz_entry;

struct qz_imatrix {
    int format;
    qz_entry *e;
    uint64_t n;
    mio_namehash hash;
    char **datasets;
    uint64_t n_datasets;
    int32_t chunk_count;
    uint32_t chunk_size;
};

/* A raw record found in the file, before duplicates are resolved. */
typedef struct raw_rec {
    const char *name;  /* view, cut at the first NUL */
    size_t name_len;
    int role;          /* GGUF: 0 = .in_sum2, 1 = .counts; legacy: 0 */
    uint64_t seq;      /* position in the file: the later one wins among equals */
    /* legacy */
    int32_t ncall;
    int32_t nval;
    const uint8_t *data;
    /* GGUF */
    int64_t tensor;
} raw_rec;

static int raw_cmp(const void *pa, const void *pb) {
    const raw_rec *a = pa, *b = pb;
    size_t m = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, m);
    if (c) return c;
    if (a->name_len != b->name_len) return a->name_len < b->name_len ? -1 : 1;
    if (a->role != b->role) return a->role < b->role ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool raw_same(const raw_rec *a, const raw_rec *b) {
    return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
}

static mio_str entry_key(const void *ctx, uint64_t i) {
    const qz_imatrix *im = ctx;
    return (mio_str){im->e[i].name, im->e[i].name_len};
}

static const char *esc_name(char *buf, size_t bufsz, const char *p, size_t len) {
    return mio_esc_bytes(buf, bufsz, p, len);
}

void mio_qz_imatrix_free(qz_imatrix *im) {
    if (!im) return;
    for (uint64_t i = 0; i < im->n; i++) {
        free(im->e[i].name);
        free(im->e[i].values);
    }
    free(im->e);
    mio_namehash_free(&im->hash);
    for (uint64_t i = 0; i < im->n_datasets; i++) free(im->datasets[i]);
    free(im->datasets);
    free(im);
}

/* Append a new entry named [name, name+len) with room for n values. */
static mio_status add_entry(qz_imatrix *im, const char *name, size_t len, uint64_t n, qz_entry **out) {
    qz_entry *e = &im->e[im->n];
    memset(e, 0, sizeof *e);
    e->name = malloc(len + 1);
    if (!e->name) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate an imatrix entry name of %zu bytes", len);
    memcpy(e->name, name, len);
    e->name[len] = 0;
    e->name_len = len;
    if (n) {
        uint64_t bytes;
        if (!ck_mul(n, sizeof(float), &bytes) || bytes > SIZE_MAX) {
            free(e->name);
            return mio_err_set(MIO_ERR_OVERFLOW, "imatrix entry of %llu values is too large", (unsigned long long)n);
        }
        e->values = calloc((size_t)n, sizeof(float));
        if (!e->values) {
            free(e->name);
            return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %llu imatrix values", (unsigned long long)n);
        }
    }
    e->n = n;
    im->n++;
    *out = e;
    return MIO_OK;
}

static mio_status add_dataset(qz_imatrix *im, const char *s, size_t len) {
    len = strnlen(s, len); /* std::string from a C string stops at the first NUL */
    char **nd = realloc(im->datasets, (size_t)(im->n_datasets + 1) * sizeof *nd);
    if (!nd) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate the imatrix dataset list");
    im->datasets = nd;
    char *c = malloc(len + 1);
    if (!c) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate an imatrix dataset name of %zu bytes", len);
    memcpy(c, s, len);
    c[len] = 0;
    im->datasets[im->n_datasets++] = c;
    return MIO_OK;
}

static mio_status build_hash(qz_imatrix *im) {
    mio_namehash_free(&im->hash);
    mio_status st = mio_namehash_init(&im->hash, im->n);
    if (st) return st;
    for (uint64_t i = 0; i < im->n; i++)
        mio_namehash_insert(&im->hash, im->e[i].name, im->e[i].name_len, i, entry_key, im, NULL);
    return MIO_OK;
}


/* ---------------------------------------------------------------------------
 * Legacy .dat: int32 n_entries, then per entry int32 name length, the name
 * bytes, int32 ncall, int32 nval, nval f32; then optionally int32 chunk count,
 * int32 dataset length, dataset bytes. All little-endian.
 * ------------------------------------------------------------------------- */
static mio_status load_legacy(const char *path, const uint8_t *p, size_t size, qz_imatrix *im) {
    char nb[160];
    if (size < 4)
        return mio_err_set(MIO_ERR_TRUNCATED, "imatrix '%s': no data: the file has %zu bytes, fewer than the 4 of the entry count",
                           path, size);
    int32_t n_entries;
    memcpy(&n_entries, p, 4);
    if (n_entries < 1)
        return mio_err_set(MIO_ERR_INVALID_METADATA, "imatrix '%s': no data: the entry count is %d (must be at least 1)", path,
                           (int)n_entries);
    size_t off = 4;
    /* every entry takes at least 16 bytes (length, ncall, nval, one value) */
    size_t cap = (size - off) / 16 + 1;
    if (cap > (size_t)n_entries) cap = (size_t)n_entries;
    raw_rec *rec = calloc(cap, sizeof *rec);
    if (!rec) return mio_err_set(MIO_ERR_NOMEM, "imatrix '%s': cannot allocate %zu entry records", path, cap);
    size_t n_rec = 0;
    mio_status st = MIO_OK;

    for (int32_t i = 0; i < n_entries; i++) {
        size_t rem = size - off;
        if (rem < 4) {
            st = mio_err_set(MIO_ERR_TRUNCATED,
                             "imatrix '%s': entry %d of %d: the name length needs 4 bytes at offset %zu, %zu remain", path,
                             (int)i + 1, (int)n_entries, off, rem);
            goto fail;
        }
        int32_t len;
        memcpy(&len, p + off, 4);
        off += 4;
        rem -= 4;
        if (len < 0) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "imatrix '%s': entry %d of %d: name length %d is negative", path,
                             (int)i + 1, (int)n_entries, (int)len);
            goto fail;
        }
        if ((size_t)len > rem) {
            st = mio_err_set(MIO_ERR_TRUNCATED,
                             "imatrix '%s': entry %d of %d: the name of %d bytes at offset %zu runs past the end of the file "
                             "(%zu bytes remain)", path, (int)i + 1, (int)n_entries, (int)len, off, rem);
            goto fail;
        }
        const char *name = (const char *)(p + off);
        size_t name_len = strnlen(name, (size_t)len);
        off += (size_t)len;
        rem -= (size_t)len;
        esc_name(nb, sizeof nb, name, name_len);
        if (rem < 8) {
            st = mio_err_set(MIO_ERR_TRUNCATED,
                             "imatrix '%s': entry %d of %d ('%s'): the call and value counts need 8 bytes at offset %zu, "
                             "%zu remain", path, (int)i + 1, (int)n_entries, nb, off, rem);
            goto fail;
        }
        int32_t ncall, nval;
        memcpy(&ncall, p + off, 4);
        memcpy(&nval, p + off + 4, 4);
        off += 8;
        rem -= 8;
        if (nval < 1) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "imatrix '%s': entry %d of %d ('%s'): %d values (must be at least 1)",
                             path, (int)i + 1, (int)n_entries, nb, (int)nval);
            goto fail;
        }
        uint64_t bytes = (uint64_t)nval * 4u;
        if (bytes > rem) {
            st = mio_err_set(MIO_ERR_TRUNCATED,
                             "imatrix '%s': entry %d of %d ('%s'): %d values (%llu bytes) at offset %zu run past the end of "
                             "the file (%zu bytes remain)", path, (int)i + 1, (int)n_entries, nb, (int)nval,
                             (unsigned long long)bytes, off, rem);
            goto fail;
        }
        /* cap covers every entry that fits in the file, so this never overflows */
        rec[n_rec++] = (raw_rec){.name = name, .name_len = name_len, .seq = (uint64_t)i, .ncall = ncall,
                                 .nval = nval, .data = p + off};
        off += (size_t)bytes;
    }

    /* Optional trailer. llama.cpp reads it only when a byte is left, keeps the
     * chunk count even when fewer than 4 bytes were there (the bytes read, the
     * rest zero), and takes the dataset only when it is complete. */
    if (off < size) {
        size_t rem = size - off;
        uint8_t b[4] = {0, 0, 0, 0};
        memcpy(b, p + off, rem < 4 ? rem : 4);
        memcpy(&im->chunk_count, b, 4);
        if (rem >= 8) {
            int32_t dlen;
            memcpy(&dlen, p + off + 4, 4);
            if (dlen > 0 && (size_t)dlen <= rem - 8) {
                st = add_dataset(im, (const char *)(p + off + 8), (size_t)dlen);
                if (st) goto fail;
            }
        }
    }

    /* Duplicate names: the later entry replaces the earlier one. */
    qsort(rec, n_rec, sizeof *rec, raw_cmp);
    im->e = calloc(n_rec ? n_rec : 1, sizeof *im->e);
    if (!im->e) { st = mio_err_set(MIO_ERR_NOMEM, "imatrix '%s': cannot allocate %zu entries", path, n_rec); goto fail; }
    for (size_t i = 0; i < n_rec; i++) {
        if (i + 1 < n_rec && raw_same(&rec[i], &rec[i + 1])) continue;
        const raw_rec *r = &rec[i];
        qz_entry *e;
        st = add_entry(im, r->name, r->name_len, (uint64_t)r->nval, &e);
        if (st) goto fail;
        /* values are sums * ncall / count; llama-quantize divides by ncall when positive */
        if (r->ncall > 0) {
            const float div = (float)(int64_t)r->ncall;
            for (int32_t j = 0; j < r->nval; j++) e->values[j] = ldf32(r->data + 4 * (size_t)j) / div;
        } else {
            for (int32_t j = 0; j < r->nval; j++) e->values[j] = ldf32(r->data + 4 * (size_t)j);
        }
    }
    free(rec);
    return MIO_OK;
fail:
    free(rec);
    return st;
}

/* ---------------------------------------------------------------------------
 * GGUF form: for each weight NAME, an F32 tensor NAME.in_sum2 (ne0 x n_mat sums
 * of squared activations) and an F32 tensor NAME.counts (1 x n_mat); keys
 * imatrix.datasets (string array), imatrix.chunk_count, imatrix.chunk_size (u32).
 * ------------------------------------------------------------------------- */
static bool strip_suffix(const char *s, size_t len, const char *suf, size_t *base) {
    size_t n = strlen(suf);
    if (len < n || memcmp(s + len - n, suf, n) != 0) return false;
    *base = len - n;
    return true;
}

/* lroundf(c) > 0, as float, or 0 for a count llama-quantize treats as "no data".
 * lroundf of NaN, inf or |c| >= 2^63 gives LONG_MIN on glibc: negative too. */
static float count_value(float c) {
    if (!(c >= 0.5f) || !(c < 0x1p63f)) return 0.0f;
    return (float)lroundf(c);
}

static mio_status gguf_u32_key(const char *path, mio_gguf_file *g, const char *key, bool *found, uint32_t *out) {
    int64_t k = mio_gguf_find_key(g, key);
    *found = k >= 0;
    *out = 0;
    if (k < 0) return MIO_OK;
    int t = mio_gguf_kv_type(g, k);
    if (t != MIO_GGUF_U32)
        return mio_err_set(MIO_ERR_TYPE_MISMATCH, "imatrix '%s': %s is %s, must be u32 (llama.cpp aborts on another type)",
                           path, key, mio_gguf_type_name(t) ? mio_gguf_type_name(t) : "of an unknown type");
    uint64_t v;
    mio_status st = mio_gguf_kv_u64(g, k, &v);
    if (st) return mio_err_prefix(st, "imatrix '%s': %s: ", path, key);
    *out = (uint32_t)v;
    return MIO_OK;
}

static mio_status load_gguf(const char *path, const mio_region *r, qz_imatrix *im) {
    char nb[160];
    mio_gguf_file *g = NULL;
    raw_rec *rec = NULL;
    mio_status st = mio_gguf_open_buffer(r->data, r->size, MIO_BUFFER_BORROW, &g);
    if (st) return mio_err_prefix(st, "imatrix '%s': ", path);

    int64_t nt = mio_gguf_tensor_count(g);
    if (nt < 1) {
        st = mio_err_set(MIO_ERR_INVALID_METADATA, "imatrix '%s': no data: the GGUF file has no tensors", path);
        goto out;
    }

    int64_t kd = mio_gguf_find_key(g, "imatrix.datasets");
    if (kd >= 0 && mio_gguf_kv_type(g, kd) == MIO_GGUF_ARRAY) {
        mio_gguf_value v;
        st = mio_gguf_kv_value(g, kd, &v);
        if (st) { mio_err_prefix(st, "imatrix '%s': imatrix.datasets: ", path); goto out; }
        if (v.elem_type == MIO_GGUF_STRING && v.depth == 1) {
            for (uint64_t j = 0; j < v.count; j++) {
                mio_str s;
                st = mio_gguf_arr_str(g, kd, j, &s);
                if (st) { mio_err_prefix(st, "imatrix '%s': imatrix.datasets[%llu]: ", path, (unsigned long long)j); goto out; }
                st = add_dataset(im, s.ptr, s.len);
                if (st) goto out;
            }
        }
    }
    bool has_count, has_size;
    uint32_t count, csize;
    st = gguf_u32_key(path, g, "imatrix.chunk_count", &has_count, &count);
    if (st) goto out;
    st = gguf_u32_key(path, g, "imatrix.chunk_size", &has_size, &csize);
    if (st) goto out;
    im->chunk_count = (int32_t)count; /* llama.cpp keeps it in an int32 */
    im->chunk_size = csize;

    /* at most one record per tensor: nt records */
    rec = calloc((size_t)nt, sizeof *rec);
    if (!rec) { st = mio_err_set(MIO_ERR_NOMEM, "imatrix '%s': cannot allocate %lld tensor records", path, (long long)nt); goto out; }
    size_t n_rec = 0;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        st = mio_gguf_tensor_info(g, i, &t);
        if (st) { mio_err_prefix(st, "imatrix '%s': ", path); goto out; }
        /* ggml keeps tensor names in a C string: anything after a NUL is lost */
        size_t len = strnlen(t.name.ptr, t.name.len), base;
        if (len == 0) continue;
        int role;
        if (strip_suffix(t.name.ptr, len, ".in_sum2", &base)) role = 0;
        else if (strip_suffix(t.name.ptr, len, ".counts", &base)) role = 1;
        else continue;
        rec[n_rec++] = (raw_rec){.name = t.name.ptr, .name_len = base, .role = role, .seq = (uint64_t)i, .tensor = i};
    }
    qsort(rec, n_rec, sizeof *rec, raw_cmp);

    im->e = calloc(n_rec ? n_rec : 1, sizeof *im->e);
    if (!im->e) { st = mio_err_set(MIO_ERR_NOMEM, "imatrix '%s': cannot allocate %zu entries", path, n_rec); goto out; }
    for (size_t i = 0; i < n_rec;) {
        /* the group of records with this name: the last .in_sum2 and the last .counts win */
        size_t j = i;
        const raw_rec *sums = NULL, *cnts = NULL;
        while (j < n_rec && raw_same(&rec[i], &rec[j])) {
            if (rec[j].role == 0) sums = &rec[j]; else cnts = &rec[j];
            j++;
        }
        esc_name(nb, sizeof nb, rec[i].name, rec[i].name_len);
        if (!sums || !cnts) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "imatrix '%s': mismatched sums and counts for '%s': %s.%s has no %s.%s",
                             path, nb, nb, sums ? "in_sum2" : "counts", nb, sums ? "counts" : "in_sum2");
            goto out;
        }
        mio_gguf_tensor ts, tc;
        mio_gguf_tensor_info(g, sums->tensor, &ts);
        mio_gguf_tensor_info(g, cnts->tensor, &tc);
        if (ts.type != MIO_TYPE_F32 || tc.type != MIO_TYPE_F32) {
            const mio_gguf_tensor *bad = ts.type != MIO_TYPE_F32 ? &ts : &tc;
            const char *tn = mio_type_name(bad->type);
            st = mio_err_set(MIO_ERR_TYPE_MISMATCH, "imatrix '%s': sums and counts for '%s' must be F32: %s.%s is %s", path, nb,
                             nb, bad == &ts ? "in_sum2" : "counts", tn ? tn : "of an unknown type");
            goto out;
        }
        uint64_t nsums = ts.nbytes / 4, ncounts = tc.nbytes / 4;
        if (ncounts == 0) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA,
                             "imatrix '%s': %s.counts has no elements (llama-quantize would divide by zero)", path, nb);
            goto out;
        }
        qz_entry *e;
        st = add_entry(im, rec[i].name, rec[i].name_len, nsums, &e);
        if (st) goto out;
        /* n_mat groups of ne0 values, each divided by its rounded count; a
         * count that rounds to <= 0 gives ones; values past n_mat * ne0 (when
         * the sizes do not divide) stay 0, as llama-quantize leaves them. */
        const uint8_t *sp = ts.data, *cp = tc.data;
        uint64_t ne0 = nsums / ncounts;
        for (uint64_t m = 0; m < ncounts; m++) {
            float c = count_value(ldf32(cp + 4 * m));
            float *v = e->values + m * ne0;
            if (c > 0.0f) {
                for (uint64_t k = 0; k < ne0; k++) v[k] = ldf32(sp + 4 * (m * ne0 + k)) / c;
            } else {
                for (uint64_t k = 0; k < ne0; k++) v[k] = 1.0f;
            }
        }
        i = j;
    }

    if (kd < 0 || !has_count || !has_size) {
        st = mio_err_set(MIO_ERR_NOT_FOUND,
                         "imatrix '%s': missing imatrix metadata: no %s (a GGUF imatrix needs imatrix.datasets, "
                         "imatrix.chunk_count and imatrix.chunk_size)", path,
                         kd < 0 ? "imatrix.datasets" : !has_count ? "imatrix.chunk_count" : "imatrix.chunk_size");
        goto out;
    }
out:
    free(rec);
    mio_gguf_close(g);
    return st;
}

mio_status mio_qz_imatrix_load(const char *path, qz_imatrix **out) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    *out = NULL;
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "imatrix path is NULL");
    mio_region r;
    mio_status st = mio_region_map(path, &r);
    if (st) return mio_err_prefix(st, "imatrix: ");
    qz_imatrix *im = calloc(1, sizeof *im);
    if (!im) {
        mio_region_free(&r);
        return mio_err_set(MIO_ERR_NOMEM, "cannot allocate an imatrix");
    }
    if (r.size >= 4 && memcmp(r.data, "GGUF", 4) == 0) {
        im->format = QZ_IMATRIX_GGUF;
        st = load_gguf(path, &r, im);
    } else {
        im->format = QZ_IMATRIX_LEGACY;
        st = load_legacy(path, r.data, r.size, im);
    }
    mio_region_free(&r);
    if (!st) st = build_hash(im);
    if (st) {
        mio_qz_imatrix_free(im);
        return st;
    }
    *out = im;
    return MIO_OK;
}

int mio_qz_imatrix_format(const qz_imatrix *im) { return im ? im->format : 0; }
uint64_t mio_qz_imatrix_count(const qz_imatrix *im) { return im ? im->n : 0; }

mio_str mio_qz_imatrix_name(const qz_imatrix *im, uint64_t i) {
    if (!im || i >= im->n) return (mio_str){NULL, 0};
    return (mio_str){im->e[i].name, im->e[i].name_len};
}

const float *mio_qz_imatrix_values(const qz_imatrix *im, uint64_t i, uint64_t *n) {
    if (!im || i >= im->n) {
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = im->e[i].n;
    return im->e[i].values;
}

int64_t mio_qz_imatrix_find(const qz_imatrix *im, const char *name, size_t len) {
    if (!im || !name) return -1;
    return mio_namehash_find(&im->hash, name, len, entry_key, im);
}

int32_t mio_qz_imatrix_chunk_count(const qz_imatrix *im) { return im ? im->chunk_count : 0; }
uint32_t mio_qz_imatrix_chunk_size(const qz_imatrix *im) { return im ? im->chunk_size : 0; }
uint64_t mio_qz_imatrix_dataset_count(const qz_imatrix *im) { return im ? im->n_datasets : 0; }
const char *mio_qz_imatrix_dataset(const qz_imatrix *im, uint64_t i) {
    return im && i < im->n_datasets ? im->datasets[i] : NULL;
}

static bool name_has_any(const char *name, const char *const *pats, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (strstr(name, pats[k])) return true;
    return false;
}

mio_status mio_qz_imatrix_filter(qz_imatrix *im, const char *const *include, size_t n_include,
                                 const char *const *exclude, size_t n_exclude) {
    if (!im) return mio_err_set(MIO_ERR_INVALID_ARG, "imatrix im is NULL");
    if (n_include && n_exclude)
        return mio_err_set(MIO_ERR_INVALID_ARG, "--include-weights and --exclude-weights cannot be used together");
    if ((n_include && !include) || (n_exclude && !exclude))
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL with a count of %zu", n_include ? "include" : "exclude",
                           n_include ? n_include : n_exclude);
    for (size_t k = 0; k < n_include; k++)
        if (!include[k]) return mio_err_set(MIO_ERR_INVALID_ARG, "include[%zu] is NULL", k);
    for (size_t k = 0; k < n_exclude; k++)
        if (!exclude[k]) return mio_err_set(MIO_ERR_INVALID_ARG, "exclude[%zu] is NULL", k);
    if (!n_include && !n_exclude) return MIO_OK;
    uint64_t w = 0;
    for (uint64_t i = 0; i < im->n; i++) {
        bool keep = n_include ? name_has_any(im->e[i].name, include, n_include)
                              : !name_has_any(im->e[i].name, exclude, n_exclude);
        if (keep) {
            im->e[w++] = im->e[i];
        } else {
            free(im->e[i].name);
            free(im->e[i].values);
        }
    }
    im->n = w;
    return build_hash(im);
}

mio_status mio_qz_imatrix_check_finite(const qz_imatrix *im) {
    if (!im) return MIO_OK;
    for (uint64_t i = 0; i < im->n; i++) {
        const qz_entry *e = &im->e[i];
        for (uint64_t j = 0; j < e->n; j++) {
            if (!isfinite(e->values[j])) {
                char nb[160];
                esc_name(nb, sizeof nb, e->name, e->name_len);
                return mio_err_set(MIO_ERR_NON_FINITE, "imatrix contains non-finite value %f (entry '%s', value %llu of %llu)",
                                   (double)e->values[j], nb, (unsigned long long)j, (unsigned long long)e->n);
            }
        }
    }
    return MIO_OK;
}

mio_status mio_qz_imatrix_for_tensor(const qz_imatrix *im, const char *name, int64_t ne0, int64_t ne2,
                                     const float **out) {
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    *out = NULL;
    if (!im) return MIO_OK;
    if (!name) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor name is NULL");
    int64_t i = mio_qz_imatrix_find(im, name, strlen(name));
    if (i < 0) return MIO_OK;
    const qz_entry *e = &im->e[i];
    uint64_t want;
    bool ok = ne0 >= 0 && ne2 >= 0 && ck_mul((uint64_t)ne0, (uint64_t)ne2, &want) && want == e->n;
    if (ok) {
        *out = e->values;
        return MIO_OK;
    }
    /* llama.cpp tolerates this only for the token embeddings (never multiplied by activations) */
    if (strcmp(name, "token_embd.weight") == 0 || strcmp(name, "per_layer_token_embd.weight") == 0) return MIO_OK;
    char nb[160];
    esc_name(nb, sizeof nb, name, strlen(name));
    return mio_err_set(MIO_ERR_SIZE_MISMATCH, "imatrix size %d is different from tensor size %d for %s", (int)e->n,
                       (int)((uint64_t)ne0 * (uint64_t)ne2), nb);
}

static void kv_str(qz_imatrix_kv *kv, const char *key, const char *s) {
    kv->key = key;
    kv->type = MIO_GGUF_STRING;
    strncpy(kv->str, s, sizeof kv->str - 1);
    kv->str[sizeof kv->str - 1] = 0;
    kv->u32 = 0;
}

static void kv_u32(qz_imatrix_kv *kv, const char *key, uint32_t v) {
    kv->key = key;
    kv->type = MIO_GGUF_U32;
    kv->str[0] = 0;
    kv->u32 = v;
}

size_t mio_qz_imatrix_kvs(const qz_imatrix *im, const char *path, qz_imatrix_kv *out) {
    if (!im || !out || im->n == 0) return 0;
    size_t n = 0;
    kv_str(&out[n++], "quantize.imatrix.file", path ? path : "");
    if (im->n_datasets) kv_str(&out[n++], "quantize.imatrix.dataset", im->datasets[0]);
    /* an int override: llama.cpp writes (uint32_t)abs(value) */
    kv_u32(&out[n++], "quantize.imatrix.entries_count", (uint32_t)im->n);
    if (im->chunk_count > 0) kv_u32(&out[n++], "quantize.imatrix.chunks_count", (uint32_t)im->chunk_count);
    return n;
}
