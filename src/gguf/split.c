/* SPDX-License-Identifier: MIT */
/* split.c — mio_gguf_open and llama.cpp split loading: "name-00001-of-0000N.gguf"
 * names part 1 of N; every part is mapped and parsed, then merged into one
 * handle (part 1's metadata, the union of all tensors tagged with their part).
 * split.no / split.count in each part must agree with its file name. */
#include "gguf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Parse "...-NNNNN-of-MMMMM.gguf": returns prefix length, sets no (1-based) and count. */
static bool split_name(const char *path, size_t *prefix, unsigned *no, unsigned *count) {
    size_t n = strlen(path);
    if (n < 20 || strcmp(path + n - 5, ".gguf") != 0) return false;
    const char *s = path + n - 20; /* "-00001-of-00003.gguf" */
    if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0) return false;
    unsigned a = 0, b = 0;
    for (int i = 1; i <= 5; i++) { if (s[i] < '0' || s[i] > '9') return false; a = a * 10 + (unsigned)(s[i] - '0'); }
    for (int i = 10; i <= 14; i++) { if (s[i] < '0' || s[i] > '9') return false; b = b * 10 + (unsigned)(s[i] - '0'); }
    *prefix = n - 20;
    *no = a;
    *count = b;
    return true;
}

/* Read split.no / split.count of a part (any integer width). */
static mio_status split_keys(const mio_gguf_file *f, const char *path, uint64_t *no, uint64_t *count) {
    int64_t ino = mio_gguf_find_key(f, "split.no"), icount = mio_gguf_find_key(f, "split.count");
    if (ino < 0 || icount < 0)
        return mio_err_set(MIO_ERR_SPLIT, "%s: split part lacks the %s key", path, ino < 0 ? "split.no" : "split.count");
    mio_status st = mio_gguf_kv_u64(f, ino, no);
    if (!st) st = mio_gguf_kv_u64(f, icount, count);
    if (st) return mio_err_prefix(MIO_ERR_SPLIT, "%s: ", path);
    return MIO_OK;
}

static mio_status open_splits(const char *path, uint32_t flags, mio_gguf_file **out) {
    size_t prefix;
    unsigned no, count;
    if (!split_name(path, &prefix, &no, &count))
        return mio_gguf_open_single(path, flags, out); /* not a split name: a plain file */
    if (no != 1)
        return mio_err_set(MIO_ERR_SPLIT, "%s: this is part %u of %u of a split model; open the first part, %.*s-00001-of-%05u.gguf, "
                           "to load the whole model", path, no, count, (int)prefix, path, count);
    if (count == 0) return mio_err_set(MIO_ERR_SPLIT, "%s: split count in the file name is 0", path);
    /* "-00001-of-00001": llama-quantize --keep-split names a one-part output so and
     * writes no split.* keys into it (llama.cpp reads it as a plain file) */
    if (count == 1) return mio_gguf_open_single(path, flags, out);
    /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers; sizeof *p is its element size */
    mio_gguf_file **parts = calloc(count, sizeof *parts);
    char *pp = malloc(strlen(path) + 1);
    if (!parts || !pp) { free(parts); free(pp); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    mio_status st = MIO_OK;
    uint64_t n_tensors = 0;
    for (unsigned k = 0; k < count && !st; k++) {
        memcpy(pp, path, prefix);
        snprintf(pp + prefix, strlen(path) + 1 - prefix, "-%05u-of-%05u.gguf", k + 1, count);
        st = mio_gguf_open_single(pp, flags, &parts[k]);
        if (st) { if (st == MIO_ERR_NOT_FOUND) mio_err_prefix(st, "split part %u of %u is missing: ", k + 1, count); break; }
        uint64_t sno, scount;
        st = split_keys(parts[k], pp, &sno, &scount);
        if (st) break;
        if (sno != k || scount != count) {
            st = mio_err_set(MIO_ERR_SPLIT, "%s: split.no = %llu and split.count = %llu, but the file name says part %u of %u "
                                        "(split.no is 0-based)",
                             pp, (unsigned long long)sno, (unsigned long long)scount, k + 1, count);
            break;
        }
        n_tensors += parts[k]->n_tensors;
    }
    mio_gguf_file *m = NULL;
    if (!st) {
        /* Merge: part 1 becomes the handle; its tensor array grows to hold every part's tensors. */
        m = parts[0];
        parts[0] = NULL;
        mio_gguf_tensor *ts = realloc(m->tensors, (size_t)(n_tensors ? n_tensors : 1) * sizeof *ts);
        gguf_part *ps = realloc(m->parts, count * sizeof *ps);
        if (ts) m->tensors = ts;
        if (ps) m->parts = ps;
        if (!ts || !ps) st = mio_err_set(MIO_ERR_NOMEM, "out of memory merging %u split parts", count);
        for (unsigned k = 1; k < count && !st; k++) {
            mio_gguf_file *p = parts[k];
            for (uint64_t t = 0; t < p->n_tensors; t++) {
                p->tensors[t].part = k;
                m->tensors[m->n_tensors++] = p->tensors[t];
            }
            m->parts[k] = p->parts[0]; /* the region moves into the merged handle */
            p->n_parts = 0;
            m->n_parts = k + 1;
        }
        m->split = true;
        if (!st) st = mio_gguf_index_tensors(m);
        if (st) { mio_gguf_file_free(m); m = NULL; }
    }
    for (unsigned k = 0; k < count; k++) mio_gguf_file_free(parts[k]);
    free(parts);
    free(pp);
    if (st) return st;
    *out = m;
    return MIO_OK;
}

mio_status mio_gguf_open(const char *path, uint32_t flags, mio_gguf_file **out) {
    if (!path || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !path ? "path" : "out");
    if (flags & ~(MIO_OPEN_READ | MIO_OPEN_SPLITS | MIO_OPEN_HEADER))
        return mio_err_set(MIO_ERR_INVALID_ARG, "unknown open flags 0x%x", flags);
    if (flags & MIO_OPEN_SPLITS) return open_splits(path, flags & (MIO_OPEN_READ | MIO_OPEN_HEADER), out);
    return mio_gguf_open_single(path, flags, out);
}

const char *const mio_gguf_split_keys[3] = {"split.no", "split.count", "split.tensors.count"};

bool mio_gguf_is_split_key(const char *key, size_t len) {
    for (int k = 0; k < 3; k++)
        if (strlen(mio_gguf_split_keys[k]) == len && memcmp(mio_gguf_split_keys[k], key, len) == 0) return true;
    return false;
}

mio_status mio_gguf_open_model(const char *path, uint32_t flags, mio_gguf_file **out) {
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open(path, flags | MIO_OPEN_SPLITS, &f);
    if (st) return st;
    uint64_t n = 0;
    int64_t k = mio_gguf_find_key(f, "split.count");
    if (k >= 0 && mio_gguf_kv_u64(f, k, &n) == MIO_OK && n > 1 && mio_gguf_part_count(f) == 1) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_SPLIT, "%s: this file is one part of a model split into %llu files (split.count), but its "
                           "name does not follow the name-0000K-of-%05llu.gguf pattern that locates the others; refusing to "
                           "use part of a model — rename the parts", path, (unsigned long long)n, (unsigned long long)n);
    }
    *out = f;
    return MIO_OK;
}
