/* SPDX-License-Identifier: MIT */
/* avx512.h — the AVX-512 back end's parts (this folder only; compiled with
 * AVX-512 F/BW/DQ/VL/VNNI flags as the object library modelio_avx512): each
 * file fills the table entries of its family; avx512.c's mio_kernels_fill_avx512
 * calls them all. The level includes avx2: entries left NULL here keep the
 * AVX2 kernel (kernels/dispatch.c fills avx2 first). */
#ifndef MIO_KERNELS_AVX512_H
#define MIO_KERNELS_AVX512_H

#include "kernels/kernels.h"

void mio_avx512_fill_dot(mio_kernels *k);
void mio_avx512_fill_packed(mio_kernels *k);
void mio_avx512_fill_dec(mio_kernels *k);
void mio_avx512_fill_legacy(mio_kernels *k);
void mio_avx512_fill_iq4(mio_kernels *k);
void mio_avx512_fill_fp4(mio_kernels *k);
void mio_avx512_fill_convert(mio_kernels *k);
void mio_avx512_fill_kquants(mio_kernels *k);
void mio_avx512_fill_ptqtp(mio_kernels *k);
void mio_avx512_fill_iq(mio_kernels *k);
void mio_avx512_fill_iq1(mio_kernels *k);

#endif
