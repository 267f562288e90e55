/* SPDX-License-Identifier: MIT */
/* fault.c — the __wrap_ functions behind fault.h. The linker sends every
 * reference to a wrapped symbol made by the library's objects (and by the
 * test's) here; __real_SYMBOL is the C library's. While nothing is armed each
 * wrapper only forwards (and free forgets a tracked block). State shared with
 * the library's worker threads is atomic or under g_mu; the tracking table is
 * a fixed array so the wrappers never allocate themselves. */
#include "fault.h"

#include "core/core.h"

#include "core/json.h"
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { K_NONE, K_ALLOC, K_IO };
static atomic_int g_kind;
static int g_amode, g_op, g_errno;
static long g_n;
static atomic_long g_calls, g_flaky, g_seq[3]; /* g_seq: per transfer kind (write, pwrite, read) */
static atomic_bool g_inj, g_short, g_eintr;

static const char *const op_names[OP_COUNT] = {
    [OP_WRITE] = "write", [OP_PWRITE] = "pwrite", [OP_READ] = "read", [OP_FSYNC] = "fsync",
    [OP_CLOSE] = "close", [OP_RENAME] = "rename", [OP_OPEN] = "open", [OP_MKOSTEMP] = "mkostemp",
    [OP_MMAP] = "mmap", [OP_FALLOCATE] = "posix_fallocate", [OP_MKDIR] = "mkdir"};
const char *fault_op_name(int op) { return op >= 0 && op < OP_COUNT ? op_names[op] : "?"; }

static void reset_counts(void) {
    atomic_store(&g_calls, 0);
    atomic_store(&g_flaky, 0);
    for (int k = 0; k < 3; k++) atomic_store(&g_seq[k], 0);
    atomic_store(&g_inj, false);
}

void fault_alloc_arm(int mode, long n) {
    reset_counts();
    g_amode = mode;
    g_n = n;
    atomic_store(&g_kind, K_ALLOC);
}

void fault_io_arm(int op, long n, int e, bool shorten) {
    reset_counts();
    g_op = op;
    g_n = n;
    g_errno = e;
    atomic_store(&g_short, shorten);
    atomic_store(&g_eintr, false);
    atomic_store(&g_kind, K_IO);
}

void fault_io_flaky(bool shorten, bool eintr) {
    reset_counts();
    g_op = -1;
    atomic_store(&g_short, shorten);
    atomic_store(&g_eintr, eintr);
    atomic_store(&g_kind, K_IO);
}

void fault_disarm(void) {
    atomic_store(&g_kind, K_NONE);
    atomic_store(&g_short, false);
    atomic_store(&g_eintr, false);
}

long fault_calls(void) { return atomic_load(&g_calls); }
bool fault_injected(void) { return atomic_load(&g_inj); }
long fault_flaky_hits(void) { return atomic_load(&g_flaky); }

/* ----------------------------------------------------------- tracking */
#define TRACK_SLOTS (1u << 18)
#define TOMB ((void *)1)
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static void *g_track[TRACK_SLOTS];
static long g_live, g_overflow;

static size_t slot_of(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 46) & (TRACK_SLOTS - 1); }

static void track_add(void *p) {
    if (!p) return;
    pthread_mutex_lock(&g_mu);
    size_t i = slot_of(p), tomb = SIZE_MAX;
    for (size_t k = 0; k < TRACK_SLOTS; k++, i = (i + 1) & (TRACK_SLOTS - 1)) {
        if (g_track[i] == p) { tomb = SIZE_MAX; break; } /* already tracked */
        if (g_track[i] == TOMB && tomb == SIZE_MAX) tomb = i;
        if (!g_track[i]) {
            g_track[tomb != SIZE_MAX ? tomb : i] = p;
            g_live++;
            tomb = SIZE_MAX;
            break;
        }
    }
    if (g_live >= (long)(TRACK_SLOTS / 2)) g_overflow = 1;
    pthread_mutex_unlock(&g_mu);
}

static bool track_del(const void *p) {
    if (!p) return false;
    bool found = false;
    pthread_mutex_lock(&g_mu);
    if (g_live) {
        size_t i = slot_of(p);
        for (size_t k = 0; k < TRACK_SLOTS && g_track[i]; k++, i = (i + 1) & (TRACK_SLOTS - 1))
            if (g_track[i] == p) {
                g_track[i] = TOMB;
                g_live--;
                found = true;
                break;
            }
    }
    pthread_mutex_unlock(&g_mu);
    return found;
}

long fault_live_blocks(int max_print) {
    pthread_mutex_lock(&g_mu);
    long n = g_overflow ? -1 : g_live;
    int shown = 0;
    for (size_t i = 0; i < TRACK_SLOTS && shown < max_print && g_live; i++)
        if (g_track[i] && g_track[i] != TOMB) {
            fprintf(stderr, "    block %p still allocated\n", g_track[i]);
            shown++;
        }
    pthread_mutex_unlock(&g_mu);
    return n;
}

void fault_track(void *p) { track_add(p); }

void fault_live_reset(void) {
    pthread_mutex_lock(&g_mu);
    memset(g_track, 0, sizeof g_track);
    g_live = g_overflow = 0;
    pthread_mutex_unlock(&g_mu);
}

/* True when this allocation point must fail. */
static bool alloc_fails(void) {
    if (atomic_load(&g_kind) != K_ALLOC) return false;
    long k = atomic_fetch_add(&g_calls, 1) + 1;
    bool fail = g_amode == FAULT_ALLOC_ONCE ? k == g_n : k >= g_n;
    if (fail && !atomic_exchange(&g_inj, true) && getenv("FAULT_BACKTRACE")) {
        /* FAULT_BACKTRACE=1: where the first injected failure is (addr2line -e test_fault ...) */
        void *bt[12];
        backtrace_symbols_fd(bt, backtrace(bt, 12), 2);
    }
    return fail;
}
static bool armed(void) { return atomic_load(&g_kind) != K_NONE; }

/* ----------------------------------------------------------- allocation */
void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
char *__real_realpath(const char *path, char *resolved);
void *__real_mio_mem_big_calloc(size_t n);
void *__real_mio_mem_big_grow(void *p, size_t old_n, size_t new_n);
void __real_mio_mem_big_free(void *p, size_t n);
void *__real_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off);
FILE *__real_open_memstream(char **buf, size_t *len);
DIR *__real_opendir(const char *name);
int __real_regcomp(regex_t *re, const char *pattern, int cflags);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_realpath(const char *path, char *resolved);
void *__wrap_mio_mem_big_calloc(size_t n);
void *__wrap_mio_mem_big_grow(void *p, size_t old_n, size_t new_n);
void __wrap_mio_mem_big_free(void *p, size_t n);
void *__wrap_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off);
FILE *__wrap_open_memstream(char **buf, size_t *len);
DIR *__wrap_opendir(const char *name);
int __wrap_regcomp(regex_t *re, const char *pattern, int cflags);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

void *fault_real_realloc(void *p, size_t n) { return __real_realloc(p, n); }
void fault_real_free(void *p) { __real_free(p); }

void *__wrap_malloc(size_t n) {
    if (alloc_fails()) { errno = ENOMEM; return NULL; }
    void *p = __real_malloc(n);
    if (armed()) track_add(p);
    return p;
}

void *__wrap_calloc(size_t a, size_t b) {
    if (alloc_fails()) { errno = ENOMEM; return NULL; }
    void *p = __real_calloc(a, b);
    if (armed()) track_add(p);
    return p;
}

void *__wrap_realloc(void *p, size_t n) {
    if (n && alloc_fails()) { errno = ENOMEM; return NULL; }
    void *q = __real_realloc(p, n);
    if (q || !n) {
        bool was = track_del(p);
        if (q && (was || armed())) track_add(q);
    }
    return q;
}

void __wrap_free(void *p) {
    track_del(p);
    __real_free(p);
}

char *__wrap_strdup(const char *s) {
    if (alloc_fails()) { errno = ENOMEM; return NULL; }
    char *p = __real_strdup(s);
    if (armed()) track_add(p);
    return p;
}

char *__wrap_realpath(const char *path, char *resolved) {
    if (!resolved && alloc_fails()) { errno = ENOMEM; return NULL; }
    char *p = __real_realpath(path, resolved);
    if (!resolved && armed()) track_add(p);
    return p;
}

void *__wrap_mio_mem_big_calloc(size_t n) {
    if (alloc_fails()) return NULL;
    void *p = __real_mio_mem_big_calloc(n);
    if (armed()) track_add(p);
    return p;
}

void *__wrap_mio_mem_big_grow(void *p, size_t old_n, size_t new_n) {
    if (new_n > old_n && alloc_fails()) return NULL;
    void *q = __real_mio_mem_big_grow(p, old_n, new_n);
    if (q && q != p) {
        bool was = track_del(p);
        if (was || armed()) track_add(q);
    }
    return q;
}

void __wrap_mio_mem_big_free(void *p, size_t n) {
    track_del(p);
    __real_mio_mem_big_free(p, n);
}

FILE *__wrap_open_memstream(char **buf, size_t *len) {
    if (alloc_fails()) { errno = ENOMEM; return NULL; }
    return __real_open_memstream(buf, len);
}

DIR *__wrap_opendir(const char *name) {
    if (alloc_fails()) { errno = ENOMEM; return NULL; }
    return __real_opendir(name);
}

int __wrap_regcomp(regex_t *re, const char *pattern, int cflags) {
    if (alloc_fails()) return REG_ESPACE;
    return __real_regcomp(re, pattern, cflags);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    if (alloc_fails()) return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}


/* ----------------------------------------------------------- I/O */
/* True when this call of op must fail (errno is then set). */
static bool io_fails(int op) {
    if (atomic_load(&g_kind) != K_IO || g_op != op) return false;
    long k = atomic_fetch_add(&g_calls, 1) + 1;
    if (k != g_n) return false;
    atomic_store(&g_inj, true);
    errno = g_errno;
    return true;
}

/* Flaky transfers: -1 for an EINTR to return, else the (possibly shortened) length. */
static ssize_t flaky(int kind, size_t n) {
    if (atomic_load(&g_kind) != K_IO || n == 0) return (ssize_t)n;
    long s = atomic_fetch_add(&g_seq[kind], 1);
    if (atomic_load(&g_eintr) && s % 2 == 0) {
        atomic_fetch_add(&g_flaky, 1);
        errno = EINTR;
        return -1;
    }
    if (atomic_load(&g_short)) {
        static const size_t caps[] = {1, 3, 7, 61, 509, 4093};
        size_t c = caps[(size_t)(s / 2) % 6];
        if (n > c) { atomic_fetch_add(&g_flaky, 1); return (ssize_t)c; }
    }
    return (ssize_t)n;
}

ssize_t __real_write(int fd, const void *b, size_t n);
ssize_t __real_pwrite(int fd, const void *b, size_t n, off_t off);
ssize_t __real_read(int fd, void *b, size_t n);
int __real_fsync(int fd);
int __real_close(int fd);
int __real_rename(const char *a, const char *b);
int __real_open(const char *path, int flags, ...);
int __real_mkostemp(char *tmpl, int flags);
int __real_posix_fallocate(int fd, off_t off, off_t len);
int __real_mkdir(const char *path, mode_t mode);

ssize_t __wrap_write(int fd, const void *b, size_t n);
ssize_t __wrap_pwrite(int fd, const void *b, size_t n, off_t off);
ssize_t __wrap_read(int fd, void *b, size_t n);
int __wrap_fsync(int fd);
int __wrap_close(int fd);
int __wrap_rename(const char *a, const char *b);
int __wrap_open(const char *path, int flags, ...);
int __wrap_mkostemp(char *tmpl, int flags);
int __wrap_posix_fallocate(int fd, off_t off, off_t len);
int __wrap_mkdir(const char *path, mode_t mode);

ssize_t __wrap_write(int fd, const void *b, size_t n) {
    if (io_fails(OP_WRITE)) return -1;
    ssize_t m = flaky(0, n);
    return m < 0 ? -1 : __real_write(fd, b, (size_t)m);
}

ssize_t __wrap_pwrite(int fd, const void *b, size_t n, off_t off) {
    if (io_fails(OP_PWRITE)) return -1;
    ssize_t m = flaky(1, n);
    return m < 0 ? -1 : __real_pwrite(fd, b, (size_t)m, off);
}

ssize_t __wrap_read(int fd, void *b, size_t n) {
    if (io_fails(OP_READ)) return -1;
    ssize_t m = flaky(2, n);
    return m < 0 ? -1 : __real_read(fd, b, (size_t)m);
}

int __wrap_fsync(int fd) { return io_fails(OP_FSYNC) ? -1 : __real_fsync(fd); }

int __wrap_close(int fd) {
    if (io_fails(OP_CLOSE)) {
        int e = errno;
        __real_close(fd); /* Linux releases the descriptor even when close reports an error */
        errno = e;
        return -1;
    }
    return __real_close(fd);
}

int __wrap_rename(const char *a, const char *b) { return io_fails(OP_RENAME) ? -1 : __real_rename(a, b); }

int __wrap_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (io_fails(OP_OPEN)) return -1;
    return __real_open(path, flags, mode);
}

int __wrap_mkostemp(char *tmpl, int flags) { return io_fails(OP_MKOSTEMP) ? -1 : __real_mkostemp(tmpl, flags); }

int __wrap_posix_fallocate(int fd, off_t off, off_t len) {
    if (io_fails(OP_FALLOCATE)) return errno;
    return __real_posix_fallocate(fd, off, len);
}

int __wrap_mkdir(const char *path, mode_t mode) { return io_fails(OP_MKDIR) ? -1 : __real_mkdir(path, mode); }

void *__wrap_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off) {
    if (flags & MAP_ANONYMOUS) {
        if (alloc_fails()) { errno = ENOMEM; return MAP_FAILED; }
    } else if (io_fails(OP_MMAP)) {
        return MAP_FAILED;
    }
    return __real_mmap(a, len, prot, flags, fd, off);
}
