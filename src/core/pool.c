/* SPDX-License-Identifier: MIT */
/* pool.c — persistent workers for short parallel jobs (core/pool.h).
 *
 * One job at a time (g_use). The job's fields and the claim counter live under
 * g_mu, so a worker that wakes late can only claim parts of the job that is
 * current when it takes the lock, never stale ones. Workers wait for a new
 * generation number: they spin briefly on it (a matvec loop calls again within
 * microseconds, and a futex wake costs about as much as a small job), then
 * sleep on g_go. After fork() the child has no workers: the atfork handlers
 * hold both locks across fork(), and the child forgets its workers and makes
 * its locks and condition variables anew. */
#include "core/pool.h"

#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define POOL_MAX 255
#define SPIN 20000

static pthread_mutex_t g_use = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_go = PTHREAD_COND_INITIALIZER, g_done = PTHREAD_COND_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int g_workers;          /* started workers (under g_mu) */
static atomic_uint g_gen;      /* job generation: written under g_mu, spun on without it */
static pool_task_fn g_fn;      /* the current job (under g_mu) */
static void *g_ctx;
static int g_nparts, g_next, g_pending;

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Claims and runs parts of the current job until none is left; g_mu held on
 * entry and on return. */
static void work(void) {
    while (g_next < g_nparts) {
        int p = g_next++;
        pool_task_fn fn = g_fn;
        void *ctx = g_ctx;
        pthread_mutex_unlock(&g_mu);
        fn(ctx, p);
        pthread_mutex_lock(&g_mu);
        if (--g_pending == 0) pthread_cond_broadcast(&g_done);
    }
}

static void *worker(void *arg) {
    unsigned seen = (unsigned)(uintptr_t)arg;
    for (;;) {
        for (int i = 0; i < SPIN && atomic_load_explicit(&g_gen, memory_order_relaxed) == seen; i++) relax();
        pthread_mutex_lock(&g_mu);
        while (atomic_load_explicit(&g_gen, memory_order_relaxed) == seen) pthread_cond_wait(&g_go, &g_mu);
        seen = atomic_load_explicit(&g_gen, memory_order_relaxed);
        work();
        pthread_mutex_unlock(&g_mu);
    }
    return NULL;
}

static void before_fork(void) {
    pthread_mutex_lock(&g_use);
    pthread_mutex_lock(&g_mu);
}
static void after_fork_parent(void) {
    pthread_mutex_unlock(&g_mu);
    pthread_mutex_unlock(&g_use);
}
static void after_fork_child(void) {
    /* The parent's workers do not exist here, but the condition variables may
     * still count them as waiters (glibc's broadcast then waits for them
     * forever): everything starts afresh. */
    g_workers = 0;
    pthread_cond_init(&g_go, NULL);
    pthread_cond_init(&g_done, NULL);
    pthread_mutex_init(&g_mu, NULL);
    pthread_mutex_init(&g_use, NULL);
}
static void init(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

void mio_pool_run(pool_task_fn fn, void *ctx, int nparts) {
    if (nparts <= 0) return;
    if (nparts == 1) {
        fn(ctx, 0);
        return;
    }
    pthread_once(&g_once, init);
    pthread_mutex_lock(&g_use);
    pthread_mutex_lock(&g_mu);
    int want = nparts - 1 < POOL_MAX ? nparts - 1 : POOL_MAX;
    while (g_workers < want) {
        pthread_t th;
        pthread_attr_t at;
        if (pthread_attr_init(&at) != 0) break;
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        /* a new worker starts at the current generation: it joins the next job */
        int ok = mio_core_thread_create(&th, &at, worker,
                                (void *)(uintptr_t)atomic_load_explicit(&g_gen, memory_order_relaxed)) == 0;
        pthread_attr_destroy(&at);
        if (!ok) break;
        g_workers++;
    }
    g_fn = fn, g_ctx = ctx, g_nparts = nparts, g_next = 0, g_pending = nparts;
    atomic_fetch_add_explicit(&g_gen, 1u, memory_order_relaxed);
    pthread_cond_broadcast(&g_go);
    work();
    while (g_pending > 0) pthread_cond_wait(&g_done, &g_mu);
    g_fn = NULL, g_ctx = NULL, g_nparts = 0;
    pthread_mutex_unlock(&g_mu);
    pthread_mutex_unlock(&g_use);
}
