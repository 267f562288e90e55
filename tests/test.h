/* SPDX-License-Identifier: MIT */
/* test.h — the tiny assertion harness every C test uses. A test binary runs its
 * checks, prints each failure with file:line and the values involved, and ends
 * with "N passed, N failed"; its exit status is non-zero if anything failed or
 * 77 (CTest SKIP_RETURN_CODE) when it called T_SKIP. */
#ifndef MIO_TEST_H
#define MIO_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_pass, t_fail;

/* The tests' xorshift64 generator, seeded per file: g_rng (the state), rnd()
 * and frand() (uniform in [-1, 1)). */
#define T_XORSHIFT(seed)                                                                                  \
    static uint64_t g_rng = (seed);                                                                       \
    static inline uint64_t rnd(void) {                                                                    \
        g_rng ^= g_rng << 13;                                                                             \
        g_rng ^= g_rng >> 7;                                                                              \
        g_rng ^= g_rng << 17;                                                                             \
        return g_rng;                                                                                     \
    }                                                                                                     \
    static inline float frand(void) { return (float)((double)(rnd() >> 11) * 0x1.0p-53 * 2.0 - 1.0); }

#define T_CHECK(cond) do { if (cond) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define T_EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); if (_a == _b) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, _a, _b); } } while (0)
#define T_EQ_U64(a, b) do { unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
    if (_a == _b) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n", __FILE__, __LINE__, #a, #b, _a, _b); } } while (0)
#define T_EQ_STR(a, b) do { const char *_a = (a), *_b = (b); \
    if (_a && _b && strcmp(_a, _b) == 0) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); } } while (0)
/* a mio_str equals a C string */
#define T_EQ_MSTR(s, lit) do { mio_str _s = (s); const char *_l = (lit); \
    if (_s.len == strlen(_l) && memcmp(_s.ptr, _l, _s.len) == 0) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: %s == \"%s\" failed: got \"%.*s\"\n", __FILE__, __LINE__, #s, _l, (int)_s.len, _s.ptr ? _s.ptr : ""); } } while (0)
/* status check that prints mio_last_error() on mismatch */
#define T_STATUS(call, expect) do { mio_status _st = (call); if (_st == (expect)) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, #call, mio_status_name(_st), \
            mio_status_name(expect), mio_last_error()); } } while (0)
#define T_OK(call) T_STATUS(call, MIO_OK)
/* the last error message contains a substring */
#define T_MSG_HAS(sub) do { const char *_m = mio_last_error(); if (strstr(_m, (sub))) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: message lacks \"%s\": %s\n", __FILE__, __LINE__, (sub), _m); } } while (0)
#define T_SKIP(why) do { printf("SKIP: %s\n", (why)); exit(77); } while (0)
/* The whole file at path, malloc()ed (free it) with a NUL byte after the last
 * one (so text can be used as a string); NULL if it cannot be read. *len
 * receives the size without that NUL (0 on failure). */
static inline uint8_t *t_read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    *len = 0;
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (p && n > 0 && fread(p, 1, (size_t)n, fp) != (size_t)n) { free(p); p = NULL; }
    fclose(fp);
    if (p) {
        p[n] = 0;
        *len = (size_t)n;
    }
    return p;
}

/* A growing memory buffer and the mio_write_fn that appends to it (the user
 * pointer may be NULL: the bytes are then dropped). Free m.p when done. */
typedef struct membuf { uint8_t *p; size_t len, cap; } membuf;
static inline int mem_sink(void *user, const void *data, size_t len) {
    membuf *m = user;
    if (!m) return 0;
    if (m->len + len > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4096;
        while (nc < m->len + len) nc *= 2;
        uint8_t *np = realloc(m->p, nc);
        if (!np) return 1;
        m->p = np;
        m->cap = nc;
    }
    if (len) memcpy(m->p + m->len, data, len);
    m->len += len;
    return 0;
}

#define T_DONE() do { printf("%d passed, %d failed\n", t_pass, t_fail); return t_fail ? 1 : 0; } while (0)

#endif
