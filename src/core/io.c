/* SPDX-License-Identifier: MIT */
/* io.c — whole-file mmap/heap reads and atomic file replacement.
 * Invariant: a region is either mapped (map_addr), heap-owned (heap) or empty;
 * mio_region_free releases exactly what it owns. Atomic writes never leave a temp
 * file behind once abort or a failed commit returns, and every temp file in
 * flight is listed in a fixed table that mio_cancel_writes (async-signal-safe)
 * can empty from a signal handler. Only regular files are read or replaced. */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mio_file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO (named pipe)";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
    }
}

static mio_status open_stat(const char *path, int *fd, size_t *size, uint64_t *dev, uint64_t *ino) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
     * forever; on a regular file the flag changes nothing. */
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (f < 0) {
        int e = errno;
        return mio_err_set(e == ENOENT ? MIO_ERR_NOT_FOUND : MIO_ERR_IO, "cannot open '%s': %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return mio_err_set(MIO_ERR_IO, "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return mio_err_set(MIO_ERR_IO, "'%s' is not a regular file (it is %s)", path, mio_file_kind((unsigned)st.st_mode));
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(f);
        return mio_err_set(MIO_ERR_OVERFLOW, "'%s' is too large for this address space", path);
    }
    *fd = f;
    *size = (size_t)st.st_size;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return MIO_OK;
}

mio_status mio_region_map(const char *path, mio_region *out) {
    /* initialized: gcc -O3 cannot see that mio_err_set never returns MIO_OK */
    int fd = -1;
    size_t size = 0;
    uint64_t dev = 0, ino = 0;
    mio_status st = open_stat(path, &fd, &size, &dev, &ino);
    if (st) return st;
    memset(out, 0, sizeof *out);
    out->dev = dev;
    out->ino = ino;
    if (size == 0) { close(fd); return MIO_OK; }
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    if (p == MAP_FAILED) {
        close(fd);
        return mio_err_set(MIO_ERR_IO, "cannot mmap '%s' (%zu bytes): %s", path, size, strerror(e));
    }
    out->fd_plus1 = fd + 1; /* kept for mio_region_pread: reads that a truncation cannot turn into SIGBUS */
    out->data = p;
    out->size = size;
    out->map_addr = p;
    out->map_len = size;
    return MIO_OK;
}

mio_status mio_region_read(const char *path, mio_region *out) {
    /* initialized: gcc -O3 cannot see that mio_err_set never returns MIO_OK */
    int fd = -1;
    size_t size = 0;
    uint64_t dev = 0, ino = 0;
    mio_status st = open_stat(path, &fd, &size, &dev, &ino);
    if (st) return st;
    memset(out, 0, sizeof *out);
    out->dev = dev;
    out->ino = ino;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) { close(fd); return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %zu bytes to read '%s'", size, path); }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : 0;
            free(buf);
            close(fd);
            return mio_err_set(MIO_ERR_IO, "cannot read '%s' at byte %zu of %zu: %s", path, got, size,
                               e ? strerror(e) : "unexpected end of file");
        }
        got += (size_t)r;
    }
    close(fd);
    out->data = buf;
    out->size = size;
    out->heap = buf;
    return MIO_OK;
}

bool mio_region_is_file(const mio_region *r, const char *path) {
    struct stat st;
    return r && path && (r->dev || r->ino) && stat(path, &st) == 0 && (uint64_t)st.st_dev == r->dev &&
           (uint64_t)st.st_ino == r->ino;
}

void mio_region_free(mio_region *r) {
    if (!r) return;
    if (r->map_addr) munmap(r->map_addr, r->map_len);
    if (r->fd_plus1 > 0) close(r->fd_plus1 - 1);
    free(r->heap);
    memset(r, 0, sizeof *r);
}

mio_status mio_region_pread(const mio_region *r, uint64_t pos, void *buf, size_t len, const char *what) {
    if (pos > r->size || len > r->size - pos)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "%s: bytes %llu..%llu are outside the %zu bytes opened", what,
                           (unsigned long long)pos, (unsigned long long)(pos + len), r->size);
    if (r->fd_plus1 <= 0) {
        if (len) memcpy(buf, r->data + pos, len);
        return MIO_OK;
    }
    const int fd = r->fd_plus1 - 1;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + got, len - got, (off_t)(pos + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return mio_err_set(MIO_ERR_IO, "%s: read error at byte %llu of the file: %s", what,
                               (unsigned long long)(pos + got), strerror(errno));
        if (n == 0) {
            struct stat sb;
            unsigned long long now = fstat(fd, &sb) == 0 ? (unsigned long long)sb.st_size : pos + got;
            return mio_err_set(MIO_ERR_TRUNCATED,
                               "%s: the file is now %llu bytes long, it was %zu when opened (truncated since): bytes "
                               "%llu..%llu are gone",
                               what, now, r->size, (unsigned long long)(pos + got), (unsigned long long)(pos + len));
        }
        got += (size_t)n;
    }
    return MIO_OK;
}

mio_status mio_gguf_unmap(void *addr, size_t len) {
    if (!addr) return MIO_OK;
    if (munmap(addr, len) != 0) return mio_err_set(MIO_ERR_IO, "munmap failed: %s", strerror(errno));
    return MIO_OK;
}
/* the 0.1 name, deprecated (removed in 1.0) */
mio_status mio_unmap(void *addr, size_t len) { return mio_gguf_unmap(addr, len); }

mio_status mio_fd_write_all(int fd, const void *p, size_t n, const char *what) {
    const uint8_t *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return mio_err_set(MIO_ERR_IO, "write to %s failed: %s", what, w < 0 ? strerror(errno) : "no progress");
        b += w;
        n -= (size_t)w;
    }
    return MIO_OK;
}

/* ----------------------------- atomic replace ----------------------------- */

/* Temp files in flight, for mio_cancel_writes. A fixed table because a signal
 * handler may neither allocate nor take a lock; the path buffer of a slot is
 * only rewritten while the slot is claimed by its owner. States: */
enum { TS_FREE, TS_CLAIMED, TS_ACTIVE, TS_CANCELLING, TS_CANCELLED };
#define TMP_SLOTS 64
static struct {
    atomic_int state;
    char path[PATH_MAX];
} g_tmp[TMP_SLOTS];

static int tmp_register(const char *path) {
    size_t n = strlen(path);
    if (n >= PATH_MAX) return -1;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int expect = TS_FREE;
        if (atomic_compare_exchange_strong(&g_tmp[i].state, &expect, TS_CLAIMED)) {
            memcpy(g_tmp[i].path, path, n + 1);
            atomic_store(&g_tmp[i].state, TS_ACTIVE);
            return i;
        }
    }
    return -1; /* more than TMP_SLOTS writes at once: this one cannot be cancelled */
}

/* Take the slot back from the cancel table. Returns false if mio_cancel_writes
 * got to it first (the temp file is gone). */
static bool tmp_release(int slot) {
    if (slot < 0) return true;
    for (;;) {
        int s = atomic_load(&g_tmp[slot].state);
        if (s == TS_CANCELLING) { sched_yield(); continue; } /* another thread's handler is unlinking it */
        if (atomic_compare_exchange_strong(&g_tmp[slot].state, &s, TS_FREE)) return s == TS_ACTIVE;
    }
}

int mio_cancel_writes(void) {
    int saved = errno, n = 0;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int expect = TS_ACTIVE;
        if (atomic_compare_exchange_strong(&g_tmp[i].state, &expect, TS_CANCELLING)) {
            if (unlink(g_tmp[i].path) == 0) n++;
            atomic_store(&g_tmp[i].state, TS_CANCELLED);
        }
    }
    errno = saved;
    return n;
}

static bool atomic_cancelled(const mio_atomic_file *af) {
    return af->slot >= 0 && atomic_load(&g_tmp[af->slot].state) >= TS_CANCELLING;
}

static mio_status cancelled_error(const mio_atomic_file *af) {
    return mio_err_set(MIO_ERR_CANCELLED, "the write of '%s' was cancelled (mio_cancel_writes); its temporary file is removed",
                       af->path);
}

mio_status mio_atomic_check(const mio_atomic_file *af) {
    return atomic_cancelled(af) ? cancelled_error(af) : MIO_OK;
}

static mio_status atomic_open_fail(mio_atomic_file *af, mio_status st) {
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    return st;
}

mio_status mio_atomic_open(const char *path, mio_atomic_file *af) {
    memset(af, 0, sizeof *af);
    af->fd = -1;
    af->slot = -1;
    if (!path || !*path) return mio_err_set(MIO_ERR_INVALID_ARG, "output path is empty");
    /* What is there now decides what we may do: only a regular file is ever
     * replaced (renaming over a device, FIFO or socket would destroy it, and
     * /dev/stdout is a symlink to one); a symlink to a regular file is
     * followed, so the file it points to is replaced and the link survives;
     * the replacement keeps the old file's permission bits. */
    struct stat lst, st;
    mode_t mode;
    char *real = NULL;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return mio_err_set(MIO_ERR_IO, "refusing to write '%s': it exists and is %s, not a regular file (only regular "
                                       "files are replaced)", path, mio_file_kind((unsigned)st.st_mode));
        mode = st.st_mode & 07777;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
            real = realpath(path, NULL);
            if (!real) return mio_err_set(MIO_ERR_IO, "cannot resolve the symbolic link '%s': %s", path, strerror(errno));
        }
    } else if (errno == ENOENT) {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um; /* mkostemp makes 0600; model files are normally world-readable */
    } else {
        return mio_err_set(MIO_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    }
    const char *dest = real ? real : path;
    size_t n = strlen(dest);
    af->path = real ? real : malloc(n + 1);
    af->tmp_path = malloc(n + 32);
    if (!af->path || !af->tmp_path) return atomic_open_fail(af, mio_err_set(MIO_ERR_NOMEM, "out of memory"));
    if (!real) memcpy(af->path, path, n + 1);
    /* Same directory as the target so rename() is atomic. "<name>.tmp-XXXXXX"
     * says what it belongs to; when that would pass the 255-byte name limit a
     * short hidden name is used instead. */
    const char *slash = strrchr(af->path, '/');
    size_t dirlen = slash ? (size_t)(slash - af->path + 1) : 0;
    if (n - dirlen + 11 <= NAME_MAX) snprintf(af->tmp_path, n + 32, "%s.tmp-XXXXXX", af->path);
    else snprintf(af->tmp_path, n + 32, "%.*s.mio-XXXXXX", (int)dirlen, af->path);
    /* The termination signals wait while the file exists but is not yet in the
     * cancel table: a Ctrl-C in between would leave it behind. */
    sigset_t old_mask;
    mio_core_block_signals(&old_mask);
    int fd = mkostemp(af->tmp_path, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        mio_core_restore_signals(&old_mask);
        return atomic_open_fail(af, mio_err_set(MIO_ERR_IO, "cannot create a temporary file next to '%s': %s", path,
                                                strerror(e)));
    }
    af->slot = tmp_register(af->tmp_path);
    mio_core_restore_signals(&old_mask);
    (void)fchmod(fd, mode);
    af->fd = fd;
    return MIO_OK;
}

void mio_atomic_abort(mio_atomic_file *af) {
    if (af->fd >= 0) close(af->fd);
    /* out of the cancel table and unlinked with the termination signals held:
     * a signal between the two would leave the file behind */
    sigset_t old_mask;
    mio_core_block_signals(&old_mask);
    if (tmp_release(af->slot) && af->tmp_path) unlink(af->tmp_path);
    mio_core_restore_signals(&old_mask);
    free(af->path);
    free(af->tmp_path);
    af->fd = -1;
    af->slot = -1;
    af->path = af->tmp_path = NULL;
}

mio_status mio_atomic_close_tmp(mio_atomic_file *af) {
    if (af->fd < 0) return mio_err_set(MIO_ERR_STATE, "atomic file is not open");
    mio_status st = MIO_OK;
    if (atomic_cancelled(af)) st = cancelled_error(af);
    else if (fsync(af->fd) != 0) st = mio_err_set(MIO_ERR_IO, "fsync of '%s' failed: %s", af->tmp_path, strerror(errno));
    int rc = close(af->fd);
    af->fd = -1;
    if (!st && rc != 0) st = mio_err_set(MIO_ERR_IO, "close of '%s' failed: %s", af->tmp_path, strerror(errno));
    if (st) mio_atomic_abort(af);
    return st;
}

void mio_fsync_dir(const char *dir) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) { (void)fsync(dfd); close(dfd); }
}

void mio_fsync_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) { mio_fsync_dir("."); return; }
    if (slash == path) { mio_fsync_dir("/"); return; }
    const size_t n = (size_t)(slash - path);
    char buf[4096];
    if (n < sizeof buf) { /* the usual case: no allocation */
        memcpy(buf, path, n);
        buf[n] = 0;
        mio_fsync_dir(buf);
        return;
    }
    char *dir = strndup(path, n);
    if (dir) mio_fsync_dir(dir);
    free(dir);
}

mio_status mio_atomic_rename(mio_atomic_file *af) {
    if (!af->tmp_path || af->fd >= 0) return mio_err_set(MIO_ERR_STATE, "atomic file is not closed");
    /* Take the slot back first: from here on a cancel no longer touches the
     * file; the termination signals wait until it is renamed (a signal in
     * between would leave the temp file behind). */
    sigset_t old_mask;
    mio_core_block_signals(&old_mask);
    if (!tmp_release(af->slot)) {
        mio_core_restore_signals(&old_mask);
        mio_status st = cancelled_error(af);
        af->slot = -1;
        mio_atomic_abort(af);
        return st;
    }
    af->slot = -1;
    if (rename(af->tmp_path, af->path) != 0) {
        mio_status st = mio_err_set(MIO_ERR_IO, "cannot rename '%s' to '%s': %s", af->tmp_path, af->path, strerror(errno));
        mio_atomic_abort(af);
        mio_core_restore_signals(&old_mask);
        return st;
    }
    mio_core_restore_signals(&old_mask);
    mio_fsync_parent(af->path); /* make the rename durable too (best effort) */
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    return MIO_OK;
}

static bool same_dir(const char *a, const char *b) {
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
    return la == lb && memcmp(a, b, la) == 0;
}

mio_status mio_atomic_rename_all(mio_atomic_file *af, size_t n) {
    mio_status st = MIO_OK;
    for (size_t k = 0; k < n && !st; k++) st = mio_atomic_check(&af[k]);
    /* Take every slot back (a cancel then no longer touches these files), then
     * the renames back to back with the termination signals held. */
    sigset_t old;
    mio_core_block_signals(&old);
    for (size_t k = 0; k < n; k++) {
        if (!tmp_release(af[k].slot) && !st) st = cancelled_error(&af[k]);
        af[k].slot = -1;
    }
    size_t done = 0; /* renamed */
    while (!st && done < n) {
        if (rename(af[done].tmp_path, af[done].path) != 0) {
            st = mio_err_set(MIO_ERR_IO, "cannot rename '%s' to '%s': %s", af[done].tmp_path, af[done].path,
                             strerror(errno));
            break;
        }
        done++;
    }
    mio_core_restore_signals(&old);
    for (size_t k = 0; k < done; k++) /* each directory once: the files of one output share it */
        if (k + 1 == done || !same_dir(af[k].path, af[k + 1].path)) mio_fsync_parent(af[k].path);
    for (size_t k = 0; k < n; k++) {
        if (k < done) {
            free(af[k].path);
            free(af[k].tmp_path);
            af[k].path = af[k].tmp_path = NULL;
        } else mio_atomic_abort(&af[k]); /* not renamed: the temp file goes (slot -1: unlinked here) */
    }
    return st;
}

mio_status mio_atomic_commit(mio_atomic_file *af) {
    mio_status st = mio_atomic_close_tmp(af);
    return st ? st : mio_atomic_rename(af);
}
