/* SPDX-License-Identifier: MIT */
/* dot_internal.h — the portable C dot-product kernels behind mio_vec_dot,
 * mio_matvec and mio_matmul (docs/KERNELS.md §7).
 *
 * A kernel takes ONE weight row of nb blocks (GGUF wire bytes) and m activation
 * rows already in the weight type's dot type (q8_0 / q8_1 / q8_K wire bytes, or
 * f32 / f16 / bf16 elements), a_stride bytes apart, and writes the m dot
 * products to out[0..m-1]. Each weight block is unpacked once and used for all
 * m activation rows; per activation row the blocks are summed in block order,
 * so the result for one activation row does not depend on m (mio_matmul equals
 * m calls of mio_matvec bit for bit). Inside a block the arithmetic is integer
 * (exact); each block contributes one rescale by the product of the scales.
 * out is scratch the kernel owns during the call (its m floats are the
 * accumulators). Pointers may have any alignment (fields are read with memcpy). */
#ifndef MIO_DOT_INTERNAL_H
#define MIO_DOT_INTERNAL_H

#include "kernels/dot_kernels.h" /* the field loads and f16/bf16 conversions */
#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef kern_dot_fn dot_kernel_fn; /* kernels/kernels.h */

typedef struct dot_kernel {
    dot_kernel_fn fn; /* the best back end's kernel, else the portable C */
    int atype;        /* activation type code (mio_vec_dot_type) */
} dot_kernel;

/* The kernel row for a weight type, or NULL when there is none. */
const dot_kernel *mio_dot_kernel_get(int wtype);

/* The kernel for wtype and the sizes of a row of n elements: nb blocks,
 * w_bytes of weights, a_bytes of activations (errors prefixed with fn). */
mio_status mio_dot_resolve(const char *fn, int wtype, uint64_t n, const dot_kernel **k, uint64_t *nb, uint64_t *w_bytes,
                           uint64_t *a_bytes);
/* mio_matmul under the name fn (argument checks, activation encoding, threads). */
mio_status mio_dot_matmul(const char *fn, int wtype, const void *w, size_t rows, size_t cols, const float *x, size_t m,
                          float *y, int n_threads);
/* The thread count for n_threads (<= 0: one per core) and at most parts parts. */
int mio_dot_threads(int n_threads, size_t parts);

/* Family tables (dot_float.c, dot_legacy.c, dot_kquants.c) fill their rows. */
void mio_dot_register_float(dot_kernel *tab);
void mio_dot_register_legacy(dot_kernel *tab);
void mio_dot_register_kquants(dot_kernel *tab);

#endif
