/* SPDX-License-Identifier: MIT */
/* thread.c — the library's worker threads and the termination signals
 * (core/core.h): workers start with SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * blocked, so those signals reach the program's own threads; multi-file
 * commits block them in the committing thread for the few microseconds of
 * their renames (io.c mio_atomic_rename_all). */
#include "core/core.h"

#include <stdatomic.h>

static void term_set(sigset_t *s) {
    sigemptyset(s);
    sigaddset(s, SIGINT);
    sigaddset(s, SIGTERM);
    sigaddset(s, SIGHUP);
    sigaddset(s, SIGQUIT);
}

void mio_core_block_signals(sigset_t *old) {
    sigset_t s;
    term_set(&s);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

void mio_core_restore_signals(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

int mio_core_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    /* a new thread inherits the creator's mask: block, create, restore */
    sigset_t old;
    mio_core_block_signals(&old);
    int rc = pthread_create(t, attr, fn, arg);
    mio_core_restore_signals(&old);
    return rc;
}

typedef struct ranges {
    mio_range_fn fn;
    void *ctx;
    int64_t n, grain;
    atomic_llong next; /* first item not yet claimed */
    void (*side)(void *);
    void *side_ctx;
    atomic_int side_taken;
} ranges;

static void *ranges_run(void *arg) {
    ranges *r = arg;
    if (r->side && !atomic_exchange(&r->side_taken, 1)) r->side(r->side_ctx);
    for (;;) {
        int64_t b = (int64_t)atomic_fetch_add_explicit(&r->next, (long long)r->grain, memory_order_relaxed);
        if (b >= r->n) break;
        r->fn(r->ctx, b, r->n - b < r->grain ? r->n : b + r->grain);
    }
    return NULL;
}

void mio_core_parallel_ranges(mio_range_fn fn, void *ctx, int64_t n, int64_t grain, int n_threads) {
    mio_core_parallel_ranges_side(fn, ctx, n, grain, n_threads, NULL, NULL);
}

void mio_core_parallel_ranges_side(mio_range_fn fn, void *ctx, int64_t n, int64_t grain, int n_threads,
                                   void (*side)(void *), void *side_ctx) {
    if (n <= 0) {
        if (side) side(side_ctx);
        return;
    }
    if (grain < 1) grain = 1;
    int64_t pieces = (n + grain - 1) / grain;
    if (n_threads > 256) n_threads = 256;
    if (n_threads > pieces) n_threads = (int)pieces;
    ranges r = {fn, ctx, n, grain, 0, side, side_ctx, 0};
    pthread_t th[256];
    int started = 0;
    for (int t = 1; t < n_threads; t++) {
        if (mio_core_thread_create(&th[started], NULL, ranges_run, &r) != 0) break;
        started++;
    }
    ranges_run(&r);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}
