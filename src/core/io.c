/* io.c — whole-file mmap/heap reads and atomic file replacement.
 * Invariant: a region is either mapped (map_addr), heap-owned (heap) or empty;
 * region_free releases exactly what it owns. Atomic writes never leave a temp
 * file behind once abort or a failed commit returns. */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static mio_status open_stat(const char *path, int *fd, size_t *size) {
    if (!path) return err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        return err_set(e == ENOENT ? MIO_ERR_NOT_FOUND : MIO_ERR_IO, "cannot open '%s': %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return err_set(MIO_ERR_IO, "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return err_set(MIO_ERR_IO, "'%s' is not a regular file", path);
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(f);
        return err_set(MIO_ERR_OVERFLOW, "'%s' is too large for this address space", path);
    }
    *fd = f;
    *size = (size_t)st.st_size;
    return MIO_OK;
}

mio_status region_map(const char *path, mio_region *out) {
    int fd;
    size_t size;
    mio_status st = open_stat(path, &fd, &size);
    if (st) return st;
    memset(out, 0, sizeof *out);
    if (size == 0) { close(fd); return MIO_OK; }
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps the file alive */
    if (p == MAP_FAILED) return err_set(MIO_ERR_IO, "cannot mmap '%s' (%zu bytes): %s", path, size, strerror(e));
    out->data = p;
    out->size = size;
    out->map_addr = p;
    out->map_len = size;
    return MIO_OK;
}

mio_status region_read(const char *path, mio_region *out) {
    int fd;
    size_t size;
    mio_status st = open_stat(path, &fd, &size);
    if (st) return st;
    memset(out, 0, sizeof *out);
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) { close(fd); return err_set(MIO_ERR_NOMEM, "cannot allocate %zu bytes to read '%s'", size, path); }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : 0;
            free(buf);
            close(fd);
            return err_set(MIO_ERR_IO, "cannot read '%s' at byte %zu of %zu: %s", path, got, size,
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

void region_free(mio_region *r) {
    if (!r) return;
    if (r->map_addr) munmap(r->map_addr, r->map_len);
    free(r->heap);
    memset(r, 0, sizeof *r);
}

mio_status mio_unmap(void *addr, size_t len) {
    if (!addr) return MIO_OK;
    if (munmap(addr, len) != 0) return err_set(MIO_ERR_IO, "munmap failed: %s", strerror(errno));
    return MIO_OK;
}

mio_status fd_write_all(int fd, const void *p, size_t n, const char *what) {
    const uint8_t *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return err_set(MIO_ERR_IO, "write to %s failed: %s", what, w < 0 ? strerror(errno) : "no progress");
        b += w;
        n -= (size_t)w;
    }
    return MIO_OK;
}

mio_status atomic_open(const char *path, mio_atomic_file *af) {
    memset(af, 0, sizeof *af);
    af->fd = -1;
    if (!path || !*path) return err_set(MIO_ERR_INVALID_ARG, "output path is empty");
    size_t n = strlen(path);
    af->path = malloc(n + 1);
    af->tmp_path = malloc(n + 32);
    if (!af->path || !af->tmp_path) {
        free(af->path); free(af->tmp_path);
        af->path = af->tmp_path = NULL;
        return err_set(MIO_ERR_NOMEM, "out of memory");
    }
    memcpy(af->path, path, n + 1);
    /* Same directory as the target so rename() is atomic. */
    snprintf(af->tmp_path, n + 32, "%s.tmp-XXXXXX", path);
    int fd = mkostemp(af->tmp_path, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(af->path); free(af->tmp_path);
        af->path = af->tmp_path = NULL;
        return err_set(MIO_ERR_IO, "cannot create a temporary file next to '%s': %s", path, strerror(e));
    }
    { mode_t um = umask(0); umask(um); fchmod(fd, 0666 & ~um); } /* mkostemp makes 0600; model files are normally world-readable */
    af->fd = fd;
    return MIO_OK;
}

void atomic_abort(mio_atomic_file *af) {
    if (af->fd >= 0) close(af->fd);
    if (af->tmp_path) unlink(af->tmp_path);
    free(af->path);
    free(af->tmp_path);
    af->fd = -1;
    af->path = af->tmp_path = NULL;
}

mio_status atomic_commit(mio_atomic_file *af) {
    if (af->fd < 0) return err_set(MIO_ERR_STATE, "atomic file is not open");
    if (fsync(af->fd) != 0) {
        mio_status st = err_set(MIO_ERR_IO, "fsync of '%s' failed: %s", af->tmp_path, strerror(errno));
        atomic_abort(af);
        return st;
    }
    if (close(af->fd) != 0) {
        af->fd = -1;
        mio_status st = err_set(MIO_ERR_IO, "close of '%s' failed: %s", af->tmp_path, strerror(errno));
        atomic_abort(af);
        return st;
    }
    af->fd = -1;
    if (rename(af->tmp_path, af->path) != 0) {
        mio_status st = err_set(MIO_ERR_IO, "cannot rename '%s' to '%s': %s", af->tmp_path, af->path, strerror(errno));
        atomic_abort(af);
        return st;
    }
    /* Make the rename durable too: fsync the directory (best effort). */
    char *slash = strrchr(af->path, '/');
    const char *dir = ".";
    if (slash) { if (slash == af->path) dir = "/"; else { *slash = 0; dir = af->path; } }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) { fsync(dfd); close(dfd); }
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    return MIO_OK;
}
