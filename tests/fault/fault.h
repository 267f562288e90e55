/* SPDX-License-Identifier: MIT */
/* fault.h — the fault-injection layer of tests/fault (docs/FAULTS.md). The test
 * links the library's objects (the modelio_internal archive) with
 * -Wl,--wrap=SYMBOL for every allocation and I/O call they make, so each such
 * call goes through fault.c first. Nothing is injected until a test arms a
 * fault; the harness's own calls are never counted (they happen disarmed).
 *
 * Allocation faults: every allocation point (malloc, calloc, realloc, strdup,
 * realpath, mio_mem_big_calloc/grow, anonymous mmap, open_memstream, opendir,
 * regcomp, pthread_create; the JSON parser's too, core/json.c being one of the
 * library's objects) is
 * counted while armed; the N-th one fails (FAULT_ALLOC_ONCE) or every one from
 * the N-th on fails (FAULT_ALLOC_FROM). Heap blocks made while armed are
 * tracked by address, so the test can see what a failed call left allocated.
 *
 * I/O faults: the N-th call of one operation fails with a chosen errno, and/or
 * every read/write/pwrite is cut short or interrupted (EINTR) first. */
#ifndef MIO_FAULT_H
#define MIO_FAULT_H

#include <stdbool.h>
#include <stddef.h>

enum fault_alloc_mode { FAULT_ALLOC_ONCE, FAULT_ALLOC_FROM };

/* I/O operations that can be failed. */
enum fault_op {
    OP_WRITE, OP_PWRITE, OP_READ, OP_FSYNC, OP_CLOSE, OP_RENAME, OP_OPEN, OP_MKOSTEMP, OP_MMAP, OP_FALLOCATE,
    OP_MKDIR, OP_COUNT
};
const char *fault_op_name(int op);

/* Count allocation points from now on; fail the n-th (or every one from the n-th). */
void fault_alloc_arm(int mode, long n);
/* Fail the n-th call of op with errno e; with shorten, every read/write/pwrite
 * before it is also cut short (so a write fails with part of the output out). */
void fault_io_arm(int op, long n, int e, bool shorten);
/* Every read/write/pwrite: short (at most a few bytes, varying) and/or first
 * interrupted with EINTR (the retry then goes through). */
void fault_io_flaky(bool shorten, bool eintr);
/* Stop injecting and counting. */
void fault_disarm(void);

/* Of the last armed period: allocation points (or calls of the armed op) seen,
 * and whether a fault was injected. */
long fault_calls(void);
bool fault_injected(void);
/* Short or interrupted transfers performed during the last armed period. */
long fault_flaky_hits(void);
/* Heap blocks made while armed and not freed since; prints up to max of them. */
long fault_live_blocks(int max_print);
/* Track a block the harness made (it expects the library to free it). */
void fault_track(void *p);
/* Forget the tracked blocks (after a reported leak, so the next run starts clean). */
void fault_live_reset(void);


/* The real allocator, for the harness's own buffers while armed (a write
 * callback's buffer, for instance). */
void *fault_real_realloc(void *p, size_t n);
void fault_real_free(void *p);

#endif
