/* SPDX-License-Identifier: MIT */
/* dot_avx2_float.c — AVX2 dot kernels of the float types against activations
 * of the same type (dot/dot_float.c is the portable reference and defines the
 * summation): f32 . f32, f16 . f16, bf16 . bf16, the portable C's operations
 * in 32 lanes, so the results are its floats bit for bit; FLOAT_R rows share
 * each weight load. */
#include "kernels/avx2/dot_avx2.h"
#include "kernels/dot_kernels.h"

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

/* mio_fdot_fold of the 32 lanes s[0..3] (lane 8k + j of s[k]: partial sum 8k + j),
 * the same additions in vectors: s[j] += s[j + 16] (j < 16), then + s[j + 8],
 * + s[j + 4], + s[j + 2], + s[j + 1] */
AI float fold32(const __m256 *s) {
    const __m256 b = _mm256_add_ps(_mm256_add_ps(s[0], s[2]), _mm256_add_ps(s[1], s[3]));
    __m128 c = _mm_add_ps(_mm256_castps256_ps128(b), _mm256_extractf128_ps(b, 1));
    c = _mm_add_ps(c, _mm_movehl_ps(c, c));
    return _mm_cvtss_f32(_mm_add_ss(c, _mm_movehdup_ps(c)));
}

#define FLOAT_R 2 /* rows per pass: 4 accumulators each, sharing the weight loads */
#ifndef FDOT_AHEAD
/* bytes of weights prefetched ahead into L2 (the streamer stops at 4 KiB pages):
 * 4 KiB for f32, 8 KiB for f16 / bf16, hint T1. History: the 2026-12-04 Xeon
 * chose 2 KiB; the 2026-12-05 EPYC VM 8 / 16 KiB (into L1, T0); on the
 * 2026-12-06 Zen 4 VM the L1 prefetches cost more than they gave (none at all
 * was better: f16 0.70 -> 0.83x ggml zen4); into L2 (T1), 4096^2 matvec,
 * medians of 5 alternating runs of 7: f16 0.72 -> 0.97x, bf16 0.76 -> 0.89x,
 * f32 0.87 -> 1.01x ggml zen4 (2-8 KiB f32 and 4-32 KiB f16, T0 T1 T2 NTA
 * tried) */
#define FDOT_AHEAD(ES) ((ES) == 4 ? 4096 : 8192)
#endif
/* dot/dot_float.c's scheme: 32 partial sums (4 registers, lane = element % 32),
 * f32 products (mul, then add: no FMA, as the portable C), the tail added to
 * the stored sums element by element, the same pairwise fold. */
#define FLOAT_ROWS2(fname, ES, LD8, LD1, AES, ALD8, ALD1)                                             \
    AI void fname(const uint8_t *w, size_t n, const uint8_t *a, size_t st, float *out, const int R) {  \
        __m256 s[FLOAT_R][4];                                                                          \
        _Pragma("GCC unroll 2") for (int r = 0; r < R; r++)                                            \
            _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) s[r][k] = _mm256_setzero_ps();         \
        size_t i = 0;                                                                                  \
        for (; i + 32 <= n; i += 32) {                                                                 \
            _mm_prefetch((const char *)(w + i * (ES)) + FDOT_AHEAD(ES), _MM_HINT_T1);                       \
            const __m256 w0 = LD8(w + i * (ES)), w1 = LD8(w + (i + 8) * (ES));                         \
            const __m256 w2 = LD8(w + (i + 16) * (ES)), w3 = LD8(w + (i + 24) * (ES));                 \
            _Pragma("GCC unroll 2") for (int r = 0; r < R; r++) {                                      \
                const uint8_t *ar = a + (size_t)r * st + i * (AES);                                    \
                s[r][0] = _mm256_add_ps(s[r][0], _mm256_mul_ps(w0, ALD8(ar)));                         \
                s[r][1] = _mm256_add_ps(s[r][1], _mm256_mul_ps(w1, ALD8(ar + 8 * (AES))));             \
                s[r][2] = _mm256_add_ps(s[r][2], _mm256_mul_ps(w2, ALD8(ar + 16 * (AES))));            \
                s[r][3] = _mm256_add_ps(s[r][3], _mm256_mul_ps(w3, ALD8(ar + 24 * (AES))));            \
            }                                                                                          \
        }                                                                                              \
        if (i == n) { /* no tail: the fold in registers */                                            \
            _Pragma("GCC unroll 2") for (int r = 0; r < R; r++) out[r] = fold32(s[r]);                 \
            return;                                                                                    \
        }                                                                                              \
        _Pragma("GCC unroll 2") for (int r = 0; r < R; r++) {                                          \
            float t[MIO_FDOT_LANES];                                                                   \
            _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) _mm256_storeu_ps(t + 8 * k, s[r][k]);  \
            for (size_t j = i; j < n; j++) t[j - i] += LD1(w + j * (ES)) * ALD1(a + (size_t)r * st + j * (AES)); \
            out[r] = mio_fdot_fold(t);                                                                 \
        }                                                                                              \
    }
/* weights and activations of the same type (kern_dot_fn) */
#define FLOAT_ROWS(fname, ES, LD8, LD1) FLOAT_ROWS2(fname, ES, LD8, LD1, ES, LD8, LD1)

#define FLOAT_ENTRY(name, ROWS)                                                                        \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, size_t m, float *out) { \
        size_t r = 0;                                                                                  \
        for (; r + FLOAT_R <= m; r += FLOAT_R) ROWS(w, nb, a + r * st, st, out + r, FLOAT_R);         \
        for (; r < m; r++) ROWS(w, nb, a + r * st, st, out + r, 1);                                   \
    }

FLOAT_ROWS(rows_f32, 4, f8_f32, f1_f32)
FLOAT_ROWS(rows_f16, 2, f8_f16, f1_f16)
FLOAT_ROWS(rows_bf16, 2, f8_bf16, f1_bf16)

FLOAT_ENTRY(k_f32, rows_f32)
FLOAT_ENTRY(k_f16, rows_f16)
FLOAT_ENTRY(k_bf16, rows_bf16)

/* kern_dotx_fn for f16 / bf16 weights: the activations (f16 / bf16 values)
 * given as f32 (ad), converted once per call instead of once per weight row;
 * the same products, so the same floats */
FLOAT_ROWS2(rows_f16x, 2, f8_f16, f1_f16, 4, f8_f32, f1_f32)
FLOAT_ROWS2(rows_bf16x, 2, f8_bf16, f1_bf16, 4, f8_f32, f1_f32)
#define FLOAT_ENTRY_X(name, ROWS)                                                                      \
    static void name(const uint8_t *w, size_t n, const uint8_t *a, size_t st, const float *ad, size_t ads, \
                     size_t m, float *out) {                                                           \
        (void)a, (void)st;                                                                             \
        const uint8_t *x = (const uint8_t *)(const void *)ad;                                          \
        const size_t xs = ads * sizeof(float);                                                         \
        size_t r = 0;                                                                                  \
        for (; r + FLOAT_R <= m; r += FLOAT_R) ROWS(w, n, x + r * xs, xs, out + r, FLOAT_R);          \
        for (; r < m; r++) ROWS(w, n, x + r * xs, xs, out + r, 1);                                    \
    }
FLOAT_ENTRY_X(kx_f16, rows_f16x)
FLOAT_ENTRY_X(kx_bf16, rows_bf16x)

void mio_avx2_dot_float(mio_kernels *k) {
    k->dot[MIO_TYPE_F32] = k_f32;
    k->dot[MIO_TYPE_F16] = k_f16;
    k->dot[MIO_TYPE_BF16] = k_bf16;
    k->dotx[MIO_TYPE_F16] = kx_f16;
    k->dotx[MIO_TYPE_BF16] = kx_bf16;
}
