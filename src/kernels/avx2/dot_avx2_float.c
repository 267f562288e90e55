/* SPDX-License-Identifier: MIT */
/* dot_avx2_float.c — AVX2 dot kernels of the float types against activations
 * of the same type (dot/dot_float.c is the portable reference): f32 . f32,
 * f16 . f16, bf16 . bf16. As the portable C, each product is exact in double
 * and the sum is kept in double (16 lanes, 4 independent chains: element i in
 * lane i % 16 for the multiples of 16, the rest in a scalar double), added in a
 * fixed order and rounded to float once; FLOAT_R rows share each weight load. */
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

#define FLOAT_R 2 /* rows per pass: 4 double accumulators each */
#define FLOAT_ROWS(fname, ES, LD8, LD1)                                                                \
    AI void fname(const uint8_t *w, size_t n, const uint8_t *a, size_t st, float *out, const int R) {  \
        __m256d s[FLOAT_R][4];                                                                         \
        double t[FLOAT_R];                                                                             \
        for (int r = 0; r < R; r++) {                                                                  \
            for (int k = 0; k < 4; k++) s[r][k] = _mm256_setzero_pd();                                 \
            t[r] = 0.0;                                                                                \
        }                                                                                              \
        size_t i = 0;                                                                                  \
        for (; i + 16 <= n; i += 16) {                                                                 \
            const __m256 wa = LD8(w + i * (ES)), wb = LD8(w + (i + 8) * (ES));                         \
            const __m256d w0 = _mm256_cvtps_pd(_mm256_castps256_ps128(wa));                            \
            const __m256d w1 = _mm256_cvtps_pd(_mm256_extractf128_ps(wa, 1));                          \
            const __m256d w2 = _mm256_cvtps_pd(_mm256_castps256_ps128(wb));                            \
            const __m256d w3 = _mm256_cvtps_pd(_mm256_extractf128_ps(wb, 1));                          \
            for (int r = 0; r < R; r++) {                                                              \
                const __m256 xa = LD8(a + (size_t)r * st + i * (ES)), xb = LD8(a + (size_t)r * st + (i + 8) * (ES)); \
                s[r][0] = _mm256_fmadd_pd(w0, _mm256_cvtps_pd(_mm256_castps256_ps128(xa)), s[r][0]);    \
                s[r][1] = _mm256_fmadd_pd(w1, _mm256_cvtps_pd(_mm256_extractf128_ps(xa, 1)), s[r][1]);  \
                s[r][2] = _mm256_fmadd_pd(w2, _mm256_cvtps_pd(_mm256_castps256_ps128(xb)), s[r][2]);    \
                s[r][3] = _mm256_fmadd_pd(w3, _mm256_cvtps_pd(_mm256_extractf128_ps(xb, 1)), s[r][3]);  \
            }                                                                                          \
        }                                                                                              \
        for (; i < n; i++) {                                                                           \
            const double wd = (double)LD1(w + i * (ES));                                               \
            for (int r = 0; r < R; r++) t[r] += wd * (double)LD1(a + (size_t)r * st + i * (ES));       \
        }                                                                                              \
        for (int r = 0; r < R; r++)                                                                    \
            out[r] = (float)(((hsum4d(s[r][0]) + hsum4d(s[r][1])) + (hsum4d(s[r][2]) + hsum4d(s[r][3]))) + t[r]); \
    }
/* f16: the product of two f16 values is exact in f32 (11 + 11 significant bits,
 * magnitudes between 2^-48 and 2^32), so it is formed in f32 and only the sum is
 * kept in double (the same exact products and double additions as FLOAT_ROWS).
 * Not for bf16, whose products can overflow or underflow f32. */
#define HALF_ROWS(fname, LD8, LD1)                                                                     \
    AI void fname(const uint8_t *w, size_t n, const uint8_t *a, size_t st, float *out, const int R) {  \
        __m256d s[FLOAT_R][4];                                                                         \
        double t[FLOAT_R];                                                                             \
        for (int r = 0; r < R; r++) {                                                                  \
            for (int k = 0; k < 4; k++) s[r][k] = _mm256_setzero_pd();                                 \
            t[r] = 0.0;                                                                                \
        }                                                                                              \
        size_t i = 0;                                                                                  \
        for (; i + 16 <= n; i += 16) {                                                                 \
            const __m256 wa = LD8(w + i * 2), wb = LD8(w + (i + 8) * 2);                               \
            for (int r = 0; r < R; r++) {                                                              \
                const __m256 pa = _mm256_mul_ps(wa, LD8(a + (size_t)r * st + i * 2));                  \
                const __m256 pb = _mm256_mul_ps(wb, LD8(a + (size_t)r * st + (i + 8) * 2));            \
                s[r][0] = _mm256_add_pd(s[r][0], _mm256_cvtps_pd(_mm256_castps256_ps128(pa)));         \
                s[r][1] = _mm256_add_pd(s[r][1], _mm256_cvtps_pd(_mm256_extractf128_ps(pa, 1)));       \
                s[r][2] = _mm256_add_pd(s[r][2], _mm256_cvtps_pd(_mm256_castps256_ps128(pb)));         \
                s[r][3] = _mm256_add_pd(s[r][3], _mm256_cvtps_pd(_mm256_extractf128_ps(pb, 1)));       \
            }                                                                                          \
        }                                                                                              \
        for (; i < n; i++) {                                                                           \
            const double wd = (double)LD1(w + i * 2);                                                  \
            for (int r = 0; r < R; r++) t[r] += wd * (double)LD1(a + (size_t)r * st + i * 2);          \
        }                                                                                              \
        for (int r = 0; r < R; r++)                                                                    \
            out[r] = (float)(((hsum4d(s[r][0]) + hsum4d(s[r][1])) + (hsum4d(s[r][2]) + hsum4d(s[r][3]))) + t[r]); \
    }

#define FLOAT_ENTRY(name, ROWS)                                                                        \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, size_t m, float *out) { \
        size_t r = 0;                                                                                  \
        for (; r + FLOAT_R <= m; r += FLOAT_R) ROWS(w, nb, a + r * st, st, out + r, FLOAT_R);         \
        for (; r < m; r++) ROWS(w, nb, a + r * st, st, out + r, 1);                                   \
    }

FLOAT_ROWS(rows_f32, 4, f8_f32, f1_f32)
HALF_ROWS(rows_f16, f8_f16, f1_f16)
FLOAT_ROWS(rows_bf16, 2, f8_bf16, f1_bf16)

FLOAT_ENTRY(k_f32, rows_f32)
FLOAT_ENTRY(k_f16, rows_f16)
FLOAT_ENTRY(k_bf16, rows_bf16)

void mio_avx2_dot_float(mio_kernels *k) {
    k->dot[MIO_TYPE_F32] = k_f32;
    k->dot[MIO_TYPE_F16] = k_f16;
    k->dot[MIO_TYPE_BF16] = k_bf16;
}
