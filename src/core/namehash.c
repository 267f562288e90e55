/* SPDX-License-Identifier: MIT */
/* namehash.c — open-addressing hash of names (XXH3-64, xxhash.c) to indices, used for
 * duplicate detection while parsing and for O(1) lookups afterwards. The table
 * stores only indices; names are fetched back through a callback, so no name
 * bytes are copied. Capacity is fixed at init (load factor <= 1/2). */
#include "core.h"
#include "core/xxhash.h"

#include <stdlib.h>
#include <string.h>

mio_status mio_namehash_init(mio_namehash *h, uint64_t n) {
    uint64_t cap = 16;
    while (cap < 2 * n + 2) cap <<= 1;
    h->slots = mio_mem_big_calloc((size_t)cap * sizeof *h->slots);
    if (!h->slots) { h->mask = 0; return mio_err_set(MIO_ERR_NOMEM, "cannot allocate a hash table for %llu names", (unsigned long long)n); }
    h->mask = cap - 1;
    return MIO_OK;
}

void mio_namehash_free(mio_namehash *h) {
    if (h->slots) mio_mem_big_free(h->slots, (size_t)(h->mask + 1) * sizeof *h->slots);
    h->slots = NULL;
    h->mask = 0;
}

#define HI(x) ((x) & 0xffffffff00000000ull)

bool mio_namehash_insert(mio_namehash *h, const char *name, size_t len, uint64_t index,
                         namehash_key_fn key, const void *ctx, uint64_t *dup) {
    uint64_t hv = mio_xxh3_64(name, len);
    for (uint64_t i = hv & h->mask;; i = (i + 1) & h->mask) {
        uint64_t s = h->slots[i];
        if (!s) { h->slots[i] = HI(hv) | (index + 1); return true; }
        if (HI(s) == HI(hv)) {
            uint64_t other = (s & 0xffffffffu) - 1;
            mio_str k = key(ctx, other);
            if (k.len == len && memcmp(k.ptr, name, len) == 0) { if (dup) *dup = other; return false; }
        }
    }
}

int64_t mio_namehash_find(const mio_namehash *h, const char *name, size_t len, namehash_key_fn key,
                          const void *ctx) {
    if (!h->slots) return -1;
    uint64_t hv = mio_xxh3_64(name, len);
    for (uint64_t i = hv & h->mask;; i = (i + 1) & h->mask) {
        uint64_t s = h->slots[i];
        if (!s) return -1;
        if (HI(s) == HI(hv)) {
            uint64_t idx = (s & 0xffffffffu) - 1;
            mio_str k = key(ctx, idx);
            if (k.len == len && memcmp(k.ptr, name, len) == 0) return (int64_t)idx;
        }
    }
}

mio_status mio_namehash_reserve(mio_namehash *h, uint64_t n_before, uint64_t n_after, namehash_key_fn key,
                                const void *ctx) {
    if (h->slots && n_after * 2 + 2 <= h->mask + 1) return MIO_OK;
    mio_namehash nh;
    mio_status st = mio_namehash_init(&nh, n_after * 2);
    if (st) return st;
    for (uint64_t i = 0; i < n_before; i++) {
        mio_str s = key(ctx, i);
        mio_namehash_insert(&nh, s.ptr, s.len, i, key, ctx, NULL);
    }
    mio_namehash_free(h);
    *h = nh;
    return MIO_OK;
}
