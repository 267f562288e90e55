/* SPDX-License-Identifier: MIT */
/* thread.c — the library's worker threads and the termination signals
 * (core/core.h): workers start with SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * blocked, so those signals reach the program's own threads; multi-file
 * commits block them in the committing thread for the few microseconds of
 * their renames (io.c mio_atomic_rename_all). */
#include "core/core.h"

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
