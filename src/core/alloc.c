/* SPDX-License-Identifier: MIT */
/* alloc.c — large zeroed allocations for per-open tables (tensor records,
 * shapes, hash slots, string offsets).
 * Fresh memory is the dominant cost of parsing a big header on the virtual
 * machines we measure on (each new page costs microseconds on first touch), so
 * blocks of 64 KiB and more are (a) rounded up to a power of two, (b) mapped
 * with MAP_POPULATE so the kernel supplies the pages in one call, and (c) kept
 * in a small cache when freed (at most 4 blocks, 64 MiB in all) so that opening
 * one file after another — shards of a checkpoint, a benchmark loop — reuses
 * warm memory. The cache is the library's only global mutable state besides
 * the codec tables; it is guarded by a mutex and released at unload. */
#include "core.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BIG_THRESHOLD ((size_t)64 << 10)
#define CACHE_SLOTS 4
#define CACHE_MAX_BYTES ((size_t)64 << 20)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; size_t size; } g_cache[CACHE_SLOTS];
static size_t g_cached;

static size_t size_class(size_t n) {
    size_t c = BIG_THRESHOLD;
    while (c < n && c < (SIZE_MAX >> 1)) c <<= 1;
    return c < n ? n : c;
}

void *mio_mem_big_calloc(size_t n) {
    if (n < BIG_THRESHOLD) return calloc(1, n ? n : 1);
    size_t c = size_class(n);
    void *p = NULL;
    pthread_mutex_lock(&g_lock);
    for (int k = 0; k < CACHE_SLOTS; k++)
        if (g_cache[k].p && g_cache[k].size == c) {
            p = g_cache[k].p;
            g_cache[k].p = NULL;
            g_cached -= c;
            break;
        }
    pthread_mutex_unlock(&g_lock);
    if (p) {
        memset(p, 0, n); /* the rest of the block was zeroed before it was cached */
        return p;
    }
    p = mmap(NULL, c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void mio_mem_big_free(void *p, size_t n) {
    if (!p) return;
    if (n < BIG_THRESHOLD) { free(p); return; }
    size_t c = size_class(n);
    /* Only the first n bytes can be dirty; callers never write past what they asked for. */
    pthread_mutex_lock(&g_lock);
    int slot = -1;
    if (g_cached + c <= CACHE_MAX_BYTES)
        for (int k = 0; k < CACHE_SLOTS && slot < 0; k++)
            if (!g_cache[k].p) slot = k;
    if (slot >= 0) {
        g_cache[slot].p = p;
        g_cache[slot].size = c;
        g_cached += c;
    }
    pthread_mutex_unlock(&g_lock);
    if (slot < 0) munmap(p, c);
}

void *mio_mem_big_grow(void *p, size_t old_n, size_t new_n) {
    if (new_n <= old_n) return p;
    if (new_n < BIG_THRESHOLD) {
        void *q = realloc(p, new_n);
        if (q) memset((char *)q + old_n, 0, new_n - old_n);
        return q;
    }
    if (old_n >= BIG_THRESHOLD && size_class(old_n) >= new_n) { /* still fits its block */
        memset((char *)p + old_n, 0, new_n - old_n);
        return p;
    }
    void *q = mio_mem_big_calloc(new_n);
    if (!q) return NULL;
    if (p && old_n) memcpy(q, p, old_n);
    mio_mem_big_free(p, old_n);
    return q;
}

__attribute__((destructor)) static void release_cache(void) {
    for (int k = 0; k < CACHE_SLOTS; k++)
        if (g_cache[k].p) munmap(g_cache[k].p, g_cache[k].size);
}
