/* SPDX-License-Identifier: MIT */
/* test_ckpt_crash.c — crash safety of checkpoint saves (docs/CHECKPOINTS.md).
 * The library's objects are linked with every file-system call a save makes
 * wrapped (-Wl,--wrap: open, mkostemp, mkdtemp, posix_fallocate, write,
 * pwrite, fsync, close, rename, renameat2, unlink, rmdir); the wrapper counts
 * them and, in a forked child, sends itself SIGKILL just before the k-th. For
 * k = 1, 2, ... until a save completes, the parent then opens the checkpoint
 * path: it must load, complete, with either the old step and its tensor or
 * the new ones — never fail to load, never mix — and the parent directory
 * holds nothing else that looks like a checkpoint (leftovers of the crash are
 * hidden ".NAME.tmp-*" / ".NAME.old-*" directories, removed between rounds).
 * Three scenarios: replacing an earlier checkpoint with renameat2's
 * RENAME_EXCHANGE; the same with the exchange refused (EINVAL, as on file
 * systems without it), which takes the two-rename path and its recovery; and
 * a first save where nothing was at the path (then "no checkpoint" is also a
 * valid outcome, but never an incomplete directory). */
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ the crash layer */
static long g_at = -1, g_count, g_recovered;
static int g_no_exchange;
static void point(void) {
    if (g_at > 0 && ++g_count == g_at) kill(getpid(), SIGKILL);
}

int __real_open(const char *path, int flags, ...);
int __real_mkostemp(char *tmpl, int flags);
char *__real_mkdtemp(char *tmpl);
int __real_posix_fallocate(int fd, off_t off, off_t len);
ssize_t __real_write(int fd, const void *b, size_t n);
ssize_t __real_pwrite(int fd, const void *b, size_t n, off_t off);
int __real_fsync(int fd);
int __real_close(int fd);
int __real_rename(const char *a, const char *b);
int __real_renameat2(int da, const char *a, int db, const char *b, unsigned flags);
int __real_unlink(const char *p);
int __real_rmdir(const char *p);

int __wrap_open(const char *path, int flags, ...);
int __wrap_mkostemp(char *tmpl, int flags);
char *__wrap_mkdtemp(char *tmpl);
int __wrap_posix_fallocate(int fd, off_t off, off_t len);
ssize_t __wrap_write(int fd, const void *b, size_t n);
ssize_t __wrap_pwrite(int fd, const void *b, size_t n, off_t off);
int __wrap_fsync(int fd);
int __wrap_close(int fd);
int __wrap_rename(const char *a, const char *b);
int __wrap_renameat2(int da, const char *a, int db, const char *b, unsigned flags);
int __wrap_unlink(const char *p);
int __wrap_rmdir(const char *p);

int __wrap_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    point();
    return __real_open(path, flags, mode);
}
int __wrap_mkostemp(char *tmpl, int flags) { point(); return __real_mkostemp(tmpl, flags); }
char *__wrap_mkdtemp(char *tmpl) { point(); return __real_mkdtemp(tmpl); }
int __wrap_posix_fallocate(int fd, off_t off, off_t len) { point(); return __real_posix_fallocate(fd, off, len); }
ssize_t __wrap_write(int fd, const void *b, size_t n) {
    point();
    return __real_write(fd, b, n > 7 ? n / 2 : n); /* halves: a crash also lands inside a file's bytes */
}
ssize_t __wrap_pwrite(int fd, const void *b, size_t n, off_t off) {
    point();
    return __real_pwrite(fd, b, n > 7 ? n / 2 : n, off);
}
int __wrap_fsync(int fd) { point(); return __real_fsync(fd); }
int __wrap_close(int fd) { point(); return __real_close(fd); }
int __wrap_rename(const char *a, const char *b) { point(); return __real_rename(a, b); }
int __wrap_renameat2(int da, const char *a, int db, const char *b, unsigned flags) {
    point();
    if (g_no_exchange) {
        errno = EINVAL;
        return -1;
    }
    return __real_renameat2(da, a, db, b, flags);
}
int __wrap_unlink(const char *p) { point(); return __real_unlink(p); }
int __wrap_rmdir(const char *p) { point(); return __real_rmdir(p); }

/* ------------------------------------------------------------ the test */
static char g_dir[] = "/tmp/mio_ckcrash_XXXXXX";
static char g_ck[128];
static const uint64_t k_shape[1] = {64};

/* a checkpoint of step s: model "w" = 64 floats of value s, an optimizer blob of 300 bytes of s */
static mio_status save(uint64_t s) {
    float w[64];
    uint8_t opt[300];
    for (int i = 0; i < 64; i++) w[i] = (float)s;
    memset(opt, (int)s, sizeof opt);
    mio_ckpt_save *sv = NULL;
    mio_status st = mio_ckpt_begin(g_ck, &sv);
    if (st) return st;
    mio_st_entry e = {"w", MIO_ST_F32, 1, k_shape, w, sizeof w};
    st = mio_ckpt_add_state_dict(sv, MIO_CKPT_MODEL, &e, 1, sizeof e);
    if (!st) st = mio_ckpt_add_file(sv, MIO_CKPT_OPTIMIZER, opt, sizeof opt);
    if (st) {
        mio_ckpt_abort(sv);
        return st;
    }
    return mio_ckpt_commit(sv, s, 7, NULL);
}

/* The checkpoint at g_ck: 0 when absent, else its step after checking that
 * its files agree with it; -1 (a failure) when it exists but does not load
 * or mixes steps. */
static long state(void) {
    mio_ckpt *c = NULL;
    mio_status st = mio_ckpt_open(g_ck, &c);
    if (st == MIO_ERR_NOT_FOUND) return 0;
    if (st) {
        fprintf(stderr, "  load failed: %s\n", mio_last_error());
        return -1;
    }
    long step = (long)mio_ckpt_step(c);
    char *mp = NULL;
    float w[64];
    void *blob = NULL;
    size_t len = 0;
    mio_state_dict_dest d = {"w", MIO_ST_F32, 1, k_shape, w, sizeof w};
    if (mio_ckpt_file_path(c, MIO_CKPT_MODEL, &mp) || mio_state_dict_load_file(mp, &d, 1, sizeof d, NULL, 0, 0, NULL) ||
        mio_ckpt_read_file(c, MIO_CKPT_OPTIMIZER, &blob, &len) || len != 300 || ((uint8_t *)blob)[299] != (uint8_t)step ||
        w[63] != (float)step) {
        fprintf(stderr, "  step %ld: files disagree (%s)\n", step, mio_last_error());
        step = -1;
    }
    mio_free(mp), mio_free(blob);
    mio_ckpt_close(c);
    return step;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)ftw;
    return flag == FTW_DP ? __real_rmdir(p) : __real_unlink(p);
}
/* remove the hidden leftovers of a crash; 1 if anything else but "ck" is in the parent */
static int sweep(long *leftovers) {
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int bad = 0;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "ck")) continue;
        if (e->d_name[0] == '.') {
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            (*leftovers)++;
        } else {
            fprintf(stderr, "  unexpected entry '%s'\n", e->d_name);
            bad = 1;
        }
    }
    closedir(d);
    return bad;
}

/* One scenario; returns the number of crash points tried. */
static long scenario(const char *name, int with_old, int no_exchange) {
    char p[256];
    snprintf(p, sizeof p, "%s/ck", g_dir);
    nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    if (with_old && save(1)) { fprintf(stderr, "setup: %s\n", mio_last_error()); exit(1); }
    long k, old_seen = 0, new_seen = 0, none_seen = 0, leftovers = 0;
    for (k = 1; k < 100000; k++) {
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            g_no_exchange = no_exchange, g_count = 0, g_at = k;
            _exit(save(2) == MIO_OK ? 0 : 3);
        }
        int ws = 0;
        waitpid(pid, &ws, 0);
        int killed = WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL;
        if (!killed && !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0)) {
            fprintf(stderr, "%s: crash point %ld: the save failed without a crash (status %d)\n", name, k, ws);
            t_fail++;
            break;
        }
        struct stat sb;
        if (with_old && stat(g_ck, &sb) != 0) g_recovered++; /* only the hidden old one: mio_ckpt_open brings it back */
        long s = state();
        int ok = killed ? (s == 2 || s == (with_old ? 1 : 0)) : s == 2;
        if (!ok) fprintf(stderr, "%s: crash point %ld (%s): the path holds %ld\n", name, k, killed ? "killed" : "completed", s);
        T_CHECK(ok);
        T_CHECK(!sweep(&leftovers));
        if (s == 2) new_seen++;
        else if (s == 1) old_seen++;
        else none_seen++;
        if (!killed) break;
        if (s == 2) { /* back to the starting state */
            nftw(g_ck, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            if (with_old && save(1)) { fprintf(stderr, "reset: %s\n", mio_last_error()); exit(1); }
        }
    }
    printf("%s: %ld crash points: old checkpoint %ld (recovered by the load %ld), new %ld, none %ld; hidden leftovers "
           "removed %ld\n", name, k - 1, old_seen, g_recovered, new_seen - 1, none_seen, leftovers);
    return k - 1;
}

int main(void) {
    if (!mkdtemp(g_dir)) return 1;
    snprintf(g_ck, sizeof g_ck, "%s/ck", g_dir);
    long a = scenario("replace (exchange)", 1, 0);
    T_EQ_INT(g_recovered, 0);
    long b = scenario("replace (two renames)", 1, 1);
    T_CHECK(g_recovered >= 1); /* a crash between the two renames, recovered */
    g_recovered = 0;
    long c = scenario("first save", 0, 0);
    T_CHECK(a > 20 && b > a && c > 10); /* the hook saw the save's calls */
    nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    T_DONE();
}
