/* SPDX-License-Identifier: MIT */
/* dot_avx2_float.c — AVX2 dot kernels of the float types against activations
 * of the same type (dot/dot_float.c is the portable reference): f32 . f32,
 * f16 . f16, bf16 . bf16. As the portable C, each product is exact in double
 * and the sum is kept in double (8 lanes: element i in lane i % 8 for the
 * multiples of 8, the rest in a scalar double), added in a fixed order and
 * rounded to float once; DOT_R rows share each weight load. */
#include "kernels/avx2/dot_avx2.h"

#include "modelio.h"

/* 8 elements at p as floats */
AI __m256 f8_f32(const uint8_t *p) { return _mm256_loadu_ps((const float *)(const void *)p); }
AI __m256 f8_f16(const uint8_t *p) { return _mm256_cvtph_ps(ld128(p)); }
AI __m256 f8_bf16(const uint8_t *p) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(ld128(p)), 16)); }
AI float f1_f32(const uint8_t *p) { return ldf(p); }
AI float f1_f16(const uint8_t *p) { return ldh(p); }
AI float f1_bf16(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

AI double hsum4d(__m256d v) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

#define FLOAT_ROWS(fname, ES, LD8, LD1)                                                                \
    AI void fname(const uint8_t *w, size_t n, const uint8_t *a, size_t st, float *out, const int R) {  \
        __m256d lo[DOT_R], hi[DOT_R];                                                                  \
        double t[DOT_R];                                                                               \
        for (int r = 0; r < R; r++) lo[r] = hi[r] = _mm256_setzero_pd(), t[r] = 0.0;                   \
        size_t i = 0;                                                                                  \
        for (; i + 8 <= n; i += 8) {                                                                   \
            const __m256 wv = LD8(w + i * (ES));                                                       \
            const __m256d w0 = _mm256_cvtps_pd(_mm256_castps256_ps128(wv));                            \
            const __m256d w1 = _mm256_cvtps_pd(_mm256_extractf128_ps(wv, 1));                          \
            for (int r = 0; r < R; r++) {                                                              \
                const __m256 av = LD8(a + (size_t)r * st + i * (ES));                                  \
                lo[r] = _mm256_fmadd_pd(w0, _mm256_cvtps_pd(_mm256_castps256_ps128(av)), lo[r]);       \
                hi[r] = _mm256_fmadd_pd(w1, _mm256_cvtps_pd(_mm256_extractf128_ps(av, 1)), hi[r]);     \
            }                                                                                          \
        }                                                                                              \
        for (; i < n; i++) {                                                                           \
            const double wd = (double)LD1(w + i * (ES));                                               \
            for (int r = 0; r < R; r++) t[r] += wd * (double)LD1(a + (size_t)r * st + i * (ES));       \
        }                                                                                              \
        for (int r = 0; r < R; r++) out[r] = (float)((hsum4d(lo[r]) + hsum4d(hi[r])) + t[r]);          \
    }

FLOAT_ROWS(rows_f32, 4, f8_f32, f1_f32)
FLOAT_ROWS(rows_f16, 2, f8_f16, f1_f16)
FLOAT_ROWS(rows_bf16, 2, f8_bf16, f1_bf16)

AVX2_DOT_ENTRY(k_f32, rows_f32)
AVX2_DOT_ENTRY(k_f16, rows_f16)
AVX2_DOT_ENTRY(k_bf16, rows_bf16)

void avx2_dot_float(mio_kernels *k) {
    k->dot[MIO_TYPE_F32] = k_f32;
    k->dot[MIO_TYPE_F16] = k_f16;
    k->dot[MIO_TYPE_BF16] = k_bf16;
}
