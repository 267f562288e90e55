/* SPDX-License-Identifier: MIT */
/* test_tmp_signals.c — a termination signal that lands in the instants where a
 * write's temp file exists but is not in the cancel table (just created, or
 * just taken out of it to be renamed) must not leave the file behind. The
 * linker wraps mkostemp and rename (-Wl,--wrap): each raises SIGTERM right
 * where the window is. The handler does what the tools' handler does
 * (mio_cancel_writes) and records what it saw; the library holds the signal
 * until the file is registered (then the handler removes it) or renamed (then
 * there is nothing left to remove). Linked with the static internals. */
#define _GNU_SOURCE
#include "core/core.h"
#include "test.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int __real_mkostemp(char *tmpl, int flags);
int __wrap_mkostemp(char *tmpl, int flags);
int __real_rename(const char *a, const char *b);
int __wrap_rename(const char *a, const char *b);

static volatile sig_atomic_t g_arm_create, g_arm_rename, g_seen, g_removed, g_tmp_existed;
static char g_tmp[4096];

int __wrap_mkostemp(char *tmpl, int flags) {
    int fd = __real_mkostemp(tmpl, flags);
    if (fd >= 0 && g_arm_create) {
        g_arm_create = 0;
        snprintf(g_tmp, sizeof g_tmp, "%s", tmpl);
        raise(SIGTERM); /* the file exists, the cancel table does not know it yet */
    }
    return fd;
}

int __wrap_rename(const char *a, const char *b) {
    if (g_arm_rename) {
        g_arm_rename = 0;
        snprintf(g_tmp, sizeof g_tmp, "%s", a);
        raise(SIGTERM); /* out of the cancel table, not yet renamed */
    }
    return __real_rename(a, b);
}

static void on_term(int sig) {
    (void)sig;
    g_seen++;
    g_tmp_existed = access(g_tmp, F_OK) == 0;
    g_removed = mio_cancel_writes();
}

int main(void) {
    char dir[] = "/tmp/mio-tmpsig-XXXXXX";
    if (!mkdtemp(dir)) T_SKIP("mkdtemp failed");
    char out[4200];
    snprintf(out, sizeof out, "%s/out.bin", dir);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);

    /* 1. the signal while the temp file is being created: held until it is
     * registered, so the handler's mio_cancel_writes removes it */
    mio_atomic_file af;
    g_arm_create = 1;
    T_OK(mio_atomic_open(out, &af));
    T_EQ_INT(g_seen, 1);
    T_EQ_INT(g_removed, 1);
    T_CHECK(access(g_tmp, F_OK) != 0); /* nothing left behind */
    T_CHECK(write(af.fd, "x", 1) == 1);
    T_STATUS(mio_atomic_commit(&af), MIO_ERR_CANCELLED); /* the write knows it was cancelled */
    T_CHECK(access(out, F_OK) != 0);

    /* 2. the signal between leaving the cancel table and the rename: held
     * until the rename is done (the handler finds no temp file) */
    g_seen = g_removed = 0;
    T_OK(mio_atomic_open(out, &af));
    T_CHECK(write(af.fd, "y", 1) == 1);
    g_arm_rename = 1;
    T_OK(mio_atomic_commit(&af));
    T_EQ_INT(g_seen, 1);
    T_EQ_INT(g_tmp_existed, 0);
    T_EQ_INT(g_removed, 0);
    T_CHECK(access(out, F_OK) == 0);

    unlink(out);
    rmdir(dir);
    T_DONE();
}
