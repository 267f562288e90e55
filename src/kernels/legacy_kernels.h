/* SPDX-License-Identifier: MIT */
/* legacy_kernels.h — shared pieces of the 32-element block encoders
 * (quant/legacy.c) and their AVX2 kernel (kernels/avx2/legacy_avx2.c), which
 * gives bytes identical to the scalar encoder. */
#ifndef MIO_LEGACY_KERNELS_H
#define MIO_LEGACY_KERNELS_H

#include <math.h>
#include <stdint.h>

/* d and 1/d both finite (see the note on non-finite scales in quant/legacy.c). */
static inline int lg_finite_scale(float d, float id) {
    return fabsf(d) <= 3.40282347e38f && fabsf(id) <= 3.40282347e38f;
}

/* 1 if the CPU runs the AVX2 kernels (and they were built). */
int lg_avx2_available(void);
/* q4_1's plain encoder on up to nb blocks of 32 floats at x into 20-byte blocks
 * at y; stops before the first block whose minimum or maximum is a zero (its
 * sign needs ggml's sequential scan) and returns the number of blocks done. */
int64_t lg_avx2_enc_q4_1(const float *x, uint8_t *y, int64_t nb);

#endif
