/* SPDX-License-Identifier: MIT */
/* avx2.h — the AVX2 back end's parts (this folder only; compiled with -mavx2
 * -mfma -mf16c as the object library modelio_avx2): each file fills the table
 * entries of its family; avx2.c's mio_kernels_fill_avx2 calls them all. */
#ifndef MIO_KERNELS_AVX2_H
#define MIO_KERNELS_AVX2_H

#include "kernels/kernels.h"

void mio_avx2_fill_convert(mio_kernels *k);
void mio_avx2_fill_legacy(mio_kernels *k);
void mio_avx2_fill_kquants(mio_kernels *k);
void mio_avx2_fill_iq(mio_kernels *k);
void mio_avx2_fill_iq4(mio_kernels *k);
void mio_avx2_fill_fp4(mio_kernels *k);
void mio_avx2_fill_dec(mio_kernels *k);
void mio_avx2_fill_dot(mio_kernels *k);
void mio_avx2_fill_packed(mio_kernels *k);
void mio_avx2_fill_ptqtp(mio_kernels *k);

#endif
