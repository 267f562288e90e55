/* SPDX-License-Identifier: MIT */
/* test_ranges.c — mio_core_parallel_ranges (core/core.h), the dynamic split
 * behind the _mt codecs and mio_quantize's importance-matrix encoding: every
 * item is run exactly once, in ranges that start at multiples of the grain and
 * are grain long (the last one shorter), for any item count, grain and thread
 * count; a range that takes long does not hold the other items back (another
 * thread claims them); a side task runs exactly once and overlaps the
 * ranges; a range that itself calls in (nested) and calls from
 * two threads at once each complete (an alarm fails a hang). Linked with the
 * static internals. */
#define _GNU_SOURCE
#include "core/core.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAXN = 5000 };
typedef struct {
    atomic_int hits[MAXN];
    atomic_int bad_range; /* a range that does not start at a multiple of the grain, or has the wrong length */
    atomic_int calls;
    int64_t n, grain;
    atomic_int others;     /* ranges run by other threads while range 0 slept */
    int slow;
} ctx_t;

static void fn(void *vc, int64_t b, int64_t e) {
    ctx_t *c = vc;
    atomic_fetch_add(&c->calls, 1);
    int64_t g = c->grain < 1 ? 1 : c->grain;
    if (b % g || !(e - b == g || (e == c->n && e - b <= g)) || b < 0 || e > c->n) atomic_store(&c->bad_range, 1);
    for (int64_t i = b; i < e && i < MAXN; i++) atomic_fetch_add(&c->hits[i], 1);
    if (c->slow) {
        if (b == 0) {
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
        } else {
            atomic_fetch_add(&c->others, 1);
        }
    }
}

static void run(int64_t n, int64_t grain, int threads) {
    ctx_t *c = calloc(1, sizeof *c);
    c->n = n, c->grain = grain;
    mio_core_parallel_ranges(fn, c, n, grain, threads);
    int once = 1;
    for (int64_t i = 0; i < n; i++) once &= atomic_load(&c->hits[i]) == 1;
    T_CHECK(once);
    T_EQ_INT(atomic_load(&c->bad_range), 0);
    int64_t g = grain < 1 ? 1 : grain;
    T_EQ_INT(atomic_load(&c->calls), n <= 0 ? 0 : (int)((n + g - 1) / g));
    free(c);
}

/* the side task of mio_core_parallel_ranges_side: counts its runs, and with
 * slow set sleeps 200 ms (the other thread claims every range meanwhile) */
typedef struct { atomic_int runs; int slow; ctx_t *c; int others_at_end; } side_t;
static void side_fn(void *v) {
    side_t *sd = v;
    atomic_fetch_add(&sd->runs, 1);
    if (sd->slow) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        sd->others_at_end = atomic_load(&sd->c->calls);
    }
}

/* each item of the outer call runs a whole inner call */
static atomic_int g_inner_ok;
static void nested_fn(void *vc, int64_t b, int64_t e) {
    (void)vc;
    for (int64_t i = b; i < e; i++) {
        ctx_t *c = calloc(1, sizeof *c);
        c->n = 300, c->grain = 7;
        mio_core_parallel_ranges(fn, c, 300, 7, 2);
        int once = 1;
        for (int j = 0; j < 300; j++) once &= atomic_load(&c->hits[j]) == 1;
        if (once && atomic_load(&c->calls) == 43) atomic_fetch_add(&g_inner_ok, 1);
        free(c);
    }
}

/* 50 calls of 1000 items in ranges of 3; *arg counts the calls where every
 * item ran once (the test macros are not for threads) */
static void *caller(void *arg) {
    atomic_int *good = arg;
    for (int k = 0; k < 50; k++) {
        ctx_t *c = calloc(1, sizeof *c);
        c->n = 1000, c->grain = 3;
        mio_core_parallel_ranges(fn, c, 1000, 3, 2);
        int once = 1;
        for (int j = 0; j < 1000; j++) once &= atomic_load(&c->hits[j]) == 1;
        if (once && atomic_load(&c->calls) == 334 && !atomic_load(&c->bad_range)) atomic_fetch_add(good, 1);
        free(c);
    }
    return NULL;
}

int main(void) {
    alarm(120); /* a deadlock fails the test instead of hanging it */
    const int64_t ns[] = {0, 1, 7, 16, 17, 1000, 4999};
    const int64_t grains[] = {0, 1, 3, 16, 64, 10000};
    const int threads[] = {1, 2, 3, 8, 300};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof grains / sizeof *grains; b++)
            for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) run(ns[a], grains[b], threads[t]);

    /* two threads, range 0 sleeps 200 ms: the other 99 ranges are claimed by the
     * other thread meanwhile (a static half split would leave 49 of them waiting
     * behind the sleeper) */
    ctx_t *c = calloc(1, sizeof *c);
    c->n = 100, c->grain = 1, c->slow = 1;
    mio_core_parallel_ranges(fn, c, 100, 1, 2);
    T_EQ_INT(atomic_load(&c->others), 99);
    T_EQ_INT(atomic_load(&c->calls), 100);
    free(c);

    /* a side task runs exactly once, for any item and thread count (n = 0 too) */
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t t = 0; t < 3; t++) { /* 1, 2, 3 threads (many threads: the grid above) */
            side_t sd = {0, 0, NULL, 0};
            ctx_t *c2 = calloc(1, sizeof *c2);
            c2->n = ns[a], c2->grain = 3;
            mio_core_parallel_ranges_side(fn, c2, ns[a], 3, threads[t], side_fn, &sd);
            int once = 1;
            for (int64_t i = 0; i < ns[a]; i++) once &= atomic_load(&c2->hits[i]) == 1;
            T_CHECK(once);
            T_EQ_INT(atomic_load(&sd.runs), 1);
            free(c2);
        }
    /* two threads, a side task of 200 ms: it overlaps the ranges, which the
     * other thread has all run (100 of 100) by the time it ends */
    {
        ctx_t *c3 = calloc(1, sizeof *c3);
        c3->n = 100, c3->grain = 1;
        side_t sd = {0, 1, c3, 0};
        mio_core_parallel_ranges_side(fn, c3, 100, 1, 2, side_fn, &sd);
        T_EQ_INT(sd.others_at_end, 100);
        T_EQ_INT(atomic_load(&c3->calls), 100);
        free(c3);
    }

    /* nested: 16 outer items, each a complete inner call of 300 items in 43 ranges */
    mio_core_parallel_ranges(nested_fn, NULL, 16, 1, 2);
    T_EQ_INT(atomic_load(&g_inner_ok), 16);

    /* two application threads calling at once: every item of every call once */
    pthread_t th[2];
    atomic_int good = 0;
    for (int i = 0; i < 2; i++) T_EQ_INT(pthread_create(&th[i], NULL, caller, &good), 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    T_EQ_INT(atomic_load(&good), 100);
    T_DONE();
}
