/* SPDX-License-Identifier: MIT */
/* sbuf.h — the growing byte buffer the text builders share (metadata, the
 * safetensors header, the YAML reader): append, and a failed allocation makes
 * the buffer "oom" (every later append is a no-op) for the caller to check
 * once. The bytes are always NUL-terminated after the first append. */
#ifndef MIO_CORE_SBUF_H
#define MIO_CORE_SBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *p;
    size_t n, cap;
    bool oom;
} sbuf;

static inline void sb_put(sbuf *b, const void *s, size_t n) {
    if (b->oom) return;
    if (b->cap - b->n <= n) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->n <= n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = true;
                return;
            }
            cap *= 2;
        }
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static inline void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static inline void sb_chr(sbuf *b, char c) { sb_put(b, &c, 1); }
/* The finished string (malloc()ed; "" when nothing was put), NULL on allocation
 * failure; the buffer is empty again. */
static inline char *sb_take(sbuf *b) {
    if (!b->oom && !b->p) sb_put(b, "", 0);
    if (b->oom) {
        free(b->p);
        b->p = NULL;
    }
    char *r = b->p;
    b->p = NULL;
    b->n = b->cap = 0;
    return r;
}

#endif
