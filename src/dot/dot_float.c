/* SPDX-License-Identifier: MIT */
/* dot_float.c — dot products of the float weight types with activations of the
 * same type (as ggml's CPU back end pairs them): f32 . f32, f16 . f16,
 * bf16 . bf16, summed in f32 by one fixed scheme that every kernel level
 * (AVX2, NEON, this portable C) follows operation for operation, so the result
 * is the same float on every machine:
 *   - the product of element i is rounded to f32 (exact for f16 . f16);
 *   - it is added to partial sum i % 32 (32 sums, each in element order);
 *   - the 32 sums are added pairwise: s[j] += s[j + 16], then + 8, 4, 2, 1.
 * Error bound (docs/KERNELS.md): with S = sum |w_i a_i| and u = 2^-24, the
 * result is within (ceil(n / 32) + 6) u S of the exact dot product (each
 * partial sum adds at most ceil(n / 32) terms, the tree 5 levels, the product
 * one rounding), e.g. 134 u S for n = 4096 — a double-precision sum was within
 * 2 u S but ran at half of ggml's f32 speed. */
#include "dot/dot_internal.h"

#include "modelio.h"

#define FLOAT_DOT(name, T, LOAD)                                                                       \
    static void name(const uint8_t *w, size_t n, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        for (size_t r = 0; r < m; r++) {                                                               \
            const uint8_t *ar = a + r * a_stride;                                                      \
            float s[MIO_FDOT_LANES] = {0};                                                            \
            size_t i = 0;                                                                              \
            for (; i + MIO_FDOT_LANES <= n; i += MIO_FDOT_LANES)                                       \
                for (int k = 0; k < MIO_FDOT_LANES; k++)                                               \
                    s[k] += LOAD(w + (i + k) * sizeof(T)) * LOAD(ar + (i + k) * sizeof(T));            \
            for (int k = 0; i < n; i++, k++) s[k] += LOAD(w + i * sizeof(T)) * LOAD(ar + i * sizeof(T)); \
            out[r] = mio_fdot_fold(s);                                                                 \
        }                                                                                              \
    }

#define LD_F32(p) dot_ldf(p)
#define LD_F16(p) dot_f16(dot_ld16(p))
#define LD_BF16(p) dot_bf16(dot_ld16(p))
FLOAT_DOT(k_f32, float, LD_F32)
FLOAT_DOT(k_f16, uint16_t, LD_F16)
FLOAT_DOT(k_bf16, uint16_t, LD_BF16)

void mio_dot_register_float(dot_kernel *t) {
    t[MIO_TYPE_F32] = (dot_kernel){k_f32, MIO_TYPE_F32};
    t[MIO_TYPE_F16] = (dot_kernel){k_f16, MIO_TYPE_F16};
    t[MIO_TYPE_BF16] = (dot_kernel){k_bf16, MIO_TYPE_BF16};
}
