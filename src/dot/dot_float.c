/* SPDX-License-Identifier: MIT */
/* dot_float.c — dot products of the float weight types with activations of the
 * same type (as ggml's CPU back end pairs them): f32 . f32, f16 . f16,
 * bf16 . bf16. Each product of two floats is exact in double (24 + 24 bits);
 * the products are summed in double over four interleaved partial sums
 * (element i goes to sum i % 4), added as (s0 + s1) + (s2 + s3) and rounded to
 * float once. */
#include "dot/dot_internal.h"

#include "modelio.h"

#define FLOAT_DOT(name, T, LOAD)                                                                       \
    static void name(const uint8_t *w, size_t n, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        for (size_t r = 0; r < m; r++) {                                                               \
            const uint8_t *ar = a + r * a_stride;                                                      \
            double s[4] = {0, 0, 0, 0};                                                                \
            size_t i = 0;                                                                              \
            for (; i + 4 <= n; i += 4)                                                                 \
                for (int k = 0; k < 4; k++)                                                            \
                    s[k] += (double)LOAD(w + (i + k) * sizeof(T)) * (double)LOAD(ar + (i + k) * sizeof(T)); \
            for (int k = 0; i < n; i++, k++) s[k] += (double)LOAD(w + i * sizeof(T)) * (double)LOAD(ar + i * sizeof(T)); \
            out[r] = (float)((s[0] + s[1]) + (s[2] + s[3]));                                           \
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
