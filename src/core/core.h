/* SPDX-License-Identifier: MIT */
/* core.h — internal helpers shared by every module: error reporting, checked
 * arithmetic, file I/O (mmap, heap read, atomic replace) and the name hash table.
 * Nothing here is exported; public entry points live in include/modelio.h. */
#ifndef MIO_CORE_H
#define MIO_CORE_H

#include "modelio.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define MIO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MIO_PRINTF(a, b)
#endif

/* Record a failure for mio_last_error() and return its status. */
mio_status mio_err_set(mio_status st, const char *fmt, ...) MIO_PRINTF(2, 3);
/* mio_last_warning()'s message (a call that goes on despite a problem; a second
 * one is appended after "; "), and its reset */
void mio_warn_set(const char *fmt, ...) MIO_PRINTF(1, 2);
void mio_warn_clear(void);
/* Prefix the current message with more context ("part 2: ..."), keep status. */
mio_status mio_err_prefix(mio_status st, const char *fmt, ...) MIO_PRINTF(2, 3);

/* Append more text to the current message. */
void mio_err_append(const char *fmt, ...) MIO_PRINTF(1, 2);

/* A formatted string in a new malloc()ed buffer, NULL when out of memory
 * (paths built from parts: "%s/%s"). */
char *mio_strfmt(const char *fmt, ...) MIO_PRINTF(1, 2);

#ifdef __clang_analyzer__
/* For clang's static analyzer only (clang-tidy, scripts/lint.sh): mio_err_set,
 * mio_err_prefix (and a module's own variadic failure helpers) return their first
 * argument, which the analyzer cannot see (it does not inline variadic calls),
 * so it would explore "failed, yet returned MIO_OK" paths that cannot happen.
 * These macros state it; no build defines __clang_analyzer__, and error.c
 * #undefs them to define the functions. */
#define MIO_ANALYZER_STATUS(fn, st, ...)                                                                               \
    __extension__({                                                                                                    \
        mio_status mio_an_st_ = (st);                                                                                  \
        (void)(fn)(mio_an_st_, __VA_ARGS__);                                                                           \
        mio_an_st_;                                                                                                    \
    })
#define mio_err_set(...) MIO_ANALYZER_STATUS(mio_err_set, __VA_ARGS__)
#define mio_err_prefix(...) MIO_ANALYZER_STATUS(mio_err_prefix, __VA_ARGS__)
#endif

/* Checked arithmetic: return false on overflow. */
static inline bool ck_add(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool ck_mul(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }
/* Round x up to a multiple of align (a power of two); false on overflow. */
static inline bool ck_pad(uint64_t x, uint64_t align, uint64_t *r) {
    uint64_t t;
    if (!ck_add(x, align - 1, &t)) return false;
    *r = t & ~(align - 1);
    return true;
}

/* --- growth of caller-allocated structs (abi.c, docs/ABI.md) --- */
/* Sizes above this are refused as garbage (no public struct comes near it). */
#define ABI_MAX_STRUCT ((size_t)1 << 16)
/* A sized output: the first min(out_size, known) bytes of src go to out, and
 * the bytes of out past known (fields of a newer header) are zeroed. */
void mio_abi_copy_out(void *out, size_t out_size, const void *src, size_t known);
/* A params struct with a leading size_t size: dst (known bytes, already holding
 * the defaults) takes the caller's first min(size, known) bytes; size must be
 * min_size..ABI_MAX_STRUCT and any bytes past known must be zero. dst->size
 * becomes known. Messages name `what` and the defaults function. */
/* A caller's input array of n elements elem_size bytes apart, as an array of
 * the library's type (known bytes each): t itself when elem_size == known,
 * else *copy (malloc()ed; the caller frees it) holding each element's first
 * known bytes. elem_size below known or above ABI_MAX_STRUCT is refused, and
 * so is an element with a set byte past known (named "<elem_name> K"). t NULL
 * or n 0 is passed on as it is. */
mio_status mio_abi_array_in(const void *t, size_t n, size_t elem_size, size_t known, const char *elem_name,
                            const char *type_name, const void **use, void **copy);
/* mio_*_default_params_sized: the caller's struct of size bytes (at least
 * known) gets the library's defaults (known bytes), zeros past them, and
 * size in its leading size field. */
mio_status mio_abi_defaults_sized(void *p, size_t size, const void *defaults, size_t known, const char *type_name);
mio_status mio_abi_params_merge(void *dst, size_t known, const void *src, size_t min_size, const char *what,
                                const char *defaults_fn);

/* Guard of a public struct's 0.1 layout: compilation fails when a field is
 * added after `last`, to point whoever adds it at docs/ABI.md (the unsized
 * calls and mio_*_default_params must then keep writing/reading the 0.1 size,
 * the baseline docs/abi/libmodelio.abi be refreshed deliberately). */
#define ABI_FIELD_END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))
#define ABI_FROZEN(T, last)                                                                                 \
    _Static_assert(sizeof(T) == (ABI_FIELD_END(T, last) + _Alignof(T) - 1) / _Alignof(T) * _Alignof(T),     \
                   #T " gained a field after " #last ": keep its 0.1 calls at the 0.1 size (docs/ABI.md)")

/* Escape bytes for a message: printable ASCII kept, others as \xNN, cut at max
 * bytes with "...". Returns buf. */
const char *mio_esc_bytes(char *buf, size_t bufsz, const void *p, size_t len);

/* --- large zeroed allocations (alloc.c): mmap + MAP_POPULATE above 64 KiB --- */
void *mio_mem_big_calloc(size_t n);
void mio_mem_big_free(void *p, size_t n);
/* Grow a mio_mem_big_calloc block from old_n to new_n bytes (contents kept, tail
 * zeroed); on failure NULL and p is still valid. */
void *mio_mem_big_grow(void *p, size_t old_n, size_t new_n);

/* --- file I/O --- */
typedef struct mio_region {
    const uint8_t *data;
    size_t size;
    void *map_addr;   /* non-NULL when data comes from mmap */
    size_t map_len;
    void *heap;       /* non-NULL when data is owned heap memory (free()) */
    uint64_t dev, ino; /* identity of the file it was read from (0 for caller buffers) */
    int fd_plus1;     /* mapped files: the file kept open for mio_region_pread, plus 1 (0: none) */
} mio_region;

/* "a FIFO (named pipe)", "a character device", ... for a st_mode. */
const char *mio_file_kind(unsigned mode);
/* 1 if path names the file (device and inode) region was read from. */
bool mio_region_is_file(const mio_region *r, const char *path);

/* mmap the whole file read-only (an empty file gives an empty region).
 * Anything but a regular file is refused without blocking (FIFOs included). */
mio_status mio_region_map(const char *path, mio_region *out);
/* Read the whole file into a heap buffer. */
mio_status mio_region_read(const char *path, mio_region *out);
void mio_region_free(mio_region *r);
/* Copy len bytes at pos of the region's file into buf, reading a mapped file
 * with pread rather than through the mapping (a file truncated since it was
 * mapped is MIO_ERR_TRUNCATED with its current size, never SIGBUS); heap and
 * caller-buffer regions are copied from memory. what names the bytes in
 * messages ("tensor 'x' of part 1"). pos + len must lie inside the region. */
mio_status mio_region_pread(const mio_region *r, uint64_t pos, void *buf, size_t len, const char *what);

/* fsync a directory, or the directory holding path (best effort: makes a
 * rename or a removal in it durable). */
void mio_fsync_dir(const char *dir);
void mio_fsync_parent(const char *path);

/* Write everything or fail with MIO_ERR_IO naming what. */
mio_status mio_fd_write_all(int fd, const void *p, size_t n, const char *what);

/* Atomic replacement of a path: write to a temp file in the same directory,
 * then fsync + rename in commit; abort removes the temp file. Only a missing
 * path or a regular file (or a symlink to one: its target is replaced) is
 * accepted; the replacement keeps the old file's permission bits. The temp
 * file is registered for mio_cancel_writes until it is renamed or removed. */
typedef struct mio_atomic_file {
    int fd;
    int slot;        /* index in the cancel table, -1 if not registered */
    char *path;      /* destination (symlinks resolved) */
    char *tmp_path;
} mio_atomic_file;
mio_status mio_atomic_open(const char *path, mio_atomic_file *af);
/* fsync + rename (= mio_atomic_close_tmp then mio_atomic_rename). */
mio_status mio_atomic_commit(mio_atomic_file *af);
/* The two halves, for writing several files and renaming them together:
 * close_tmp fsyncs and closes the temp file, rename moves it into place. Each
 * aborts (removing the temp file) on failure; abort is valid before the rename. */
mio_status mio_atomic_close_tmp(mio_atomic_file *af);
mio_status mio_atomic_rename(mio_atomic_file *af);
/* Renames n closed temp files into place as one step, for outputs made of
 * several files (split parts, shards then their index, in array order): checks
 * first that no temp file was cancelled, then does the n renames back to back
 * with the termination signals (mio_core_block_signals) blocked in this thread, and
 * only then the directory fsyncs. A SIGINT/SIGTERM arriving meanwhile is
 * delivered after the last rename (the library's own threads never take it), so
 * an interrupted program leaves all of the new files or none of them. On
 * failure every file not yet renamed is aborted. */
mio_status mio_atomic_rename_all(mio_atomic_file *af, size_t n);
void mio_atomic_abort(mio_atomic_file *af);
/* MIO_ERR_CANCELLED (with the message) once mio_cancel_writes removed the temp file. */
mio_status mio_atomic_check(const mio_atomic_file *af);

/* --- threads and signals --- */
/* The asynchronous signals programs use to stop a process (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT): blocked in this thread (the previous mask into *old) and
 * restored. */
void mio_core_block_signals(sigset_t *old);
void mio_core_restore_signals(const sigset_t *old);
/* pthread_create for the library's worker threads: they start with those
 * signals blocked, so a program's handler runs in one of its own threads,
 * never in a worker in the middle of a kernel. Returns pthread_create's code. */
int mio_core_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
/* Runs fn(ctx, begin, end) over [0, n) in ranges of `grain` items (the last
 * one shorter) claimed one after another from a shared counter by up to
 * n_threads threads, the caller included (threads made with
 * mio_core_thread_create for this call and joined before it returns; one that
 * cannot be made leaves its share to the others). Dynamic claiming keeps
 * every thread busy to the end whatever a range costs (data-dependent
 * encoders, a thread the machine descheduled), so fn's results must not
 * depend on which thread runs a range. grain < 1 counts as 1. */
typedef void (*mio_range_fn)(void *ctx, int64_t begin, int64_t end);
void mio_core_parallel_ranges(mio_range_fn fn, void *ctx, int64_t n, int64_t grain, int n_threads);
/* The same with a side task: side(side_ctx) runs exactly once, by the first of
 * the threads to start (then it claims ranges like the others), so it overlaps
 * the ranges the other threads run; with n <= 0 it runs on the calling thread.
 * mio_quantize writes the previous chunk's bytes this way while the next one
 * is encoded. */
void mio_core_parallel_ranges_side(mio_range_fn fn, void *ctx, int64_t n, int64_t grain, int n_threads,
                                   void (*side)(void *), void *side_ctx);

/* --- numbers as text in the "C" notation, whatever locale the program set (cnum.c) --- */
double mio_strtod_c(const char *s, char **end);
float mio_strtof_c(const char *s, char **end);
int mio_snprintf_c(char *buf, size_t cap, const char *fmt, ...) MIO_PRINTF(3, 4);

/* --- name hash table (xxHash), indices into a caller-owned array --- */
typedef struct mio_namehash {
    uint64_t *slots;   /* 0 = empty, else (hash & ~0xffffffff) | (index+1) */
    uint64_t mask;
} mio_namehash;
/* Capacity for n names. */
mio_status mio_namehash_init(mio_namehash *h, uint64_t n);
void mio_namehash_free(mio_namehash *h);
typedef mio_str (*namehash_key_fn)(const void *ctx, uint64_t index);
/* Insert index; if an equal name exists returns false and sets *dup to its index. */
bool mio_namehash_insert(mio_namehash *h, const char *name, size_t len, uint64_t index,
                         namehash_key_fn key, const void *ctx, uint64_t *dup);
/* Make room for n_after names in total, the first n_before (indices 0..n_before-1)
 * already inserted: rebuilds a larger table when the load would exceed 1/2. */
mio_status mio_namehash_reserve(mio_namehash *h, uint64_t n_before, uint64_t n_after, namehash_key_fn key,
                                const void *ctx);
/* Index of name or -1. */
int64_t mio_namehash_find(const mio_namehash *h, const char *name, size_t len, namehash_key_fn key,
                          const void *ctx);

/* --- SHA-256 (sha256.c, FIPS 180-4), streaming: the inspect module's hashes --- */
typedef struct mio_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;        /* message length so far */
    unsigned char buf[64]; /* partial block */
    size_t fill;           /* bytes in buf */
} mio_sha256_ctx;
void mio_sha256_init(mio_sha256_ctx *c);
void mio_sha256_update(mio_sha256_ctx *c, const void *data, size_t len);
/* Writes the 32-byte digest; c must be re-initialized before reuse. */
void mio_sha256_final(mio_sha256_ctx *c, unsigned char out[32]);

#endif
