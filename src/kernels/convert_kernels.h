/* SPDX-License-Identifier: MIT */
/* convert_kernels.h — AVX2/F16C kernels for the plain bf16 and f16 casts (kernels/avx2/
 * convert_avx2.c), bit-identical with the scalar bf16_from_f32 / bf16_to_f32 of
 * core/half.h (ggml's rounding), chosen at run time by quant/scalar.c. */
#ifndef MIO_CONVERT_KERNELS_H
#define MIO_CONVERT_KERNELS_H

#include <stdint.h>

/* 1 if the CPU runs these kernels (and they were built). */
int cv_avx2_available(void);
/* n floats at x (any alignment) to n bf16 at y (any alignment). */
void cv_avx2_f32_to_bf16(const float *x, uint8_t *y, int64_t n);
/* n bf16 at x to n floats at y (any alignment). */
void cv_avx2_bf16_to_f32(const uint8_t *x, float *y, int64_t n);
/* 1 if the CPU also has F16C; then n fp16 at x to n floats at y with
 * VCVTPH2PS, which is exact and quiets a signalling NaN exactly as half.h. */
int cv_f16c_available(void);
void cv_f16c_f16_to_f32(const uint8_t *x, float *y, int64_t n);

#endif
