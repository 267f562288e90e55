/* SPDX-License-Identifier: MIT */
/* pool.h — the persistent worker threads behind the parallel dot products
 * (mio_matvec / mio_matmul): those calls last tenths of a millisecond, about
 * what creating and joining threads per call costs, so their workers are made
 * once and kept (docs/KERNELS.md "Threads"). */
#ifndef MIO_CORE_POOL_H
#define MIO_CORE_POOL_H

/* One part of a parallel job: the calling thread and the workers claim parts
 * 0 .. nparts-1 in any order, so a part's result must not depend on which
 * thread runs it. */
typedef void (*pool_task_fn)(void *ctx, int part);

/* Runs fn(ctx, p) for every p in 0 .. nparts-1 and returns when all are done.
 * The calling thread works too; up to nparts - 1 pool workers join it (made
 * on first need, kept for the life of the process; a worker that cannot be
 * created just leaves its parts to the others). One job at a time: a second
 * thread calling mio_pool_run waits for the first job to end. Never fails. */
void mio_pool_run(pool_task_fn fn, void *ctx, int nparts);

#endif
