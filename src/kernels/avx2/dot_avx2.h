/* SPDX-License-Identifier: MIT */
/* dot_avx2.h — shared parts of the AVX2 dot kernels (dot_avx2*.c only).
 *
 * Every kernel has the same shape: activation rows are taken DOT_R at a time
 * (then 4, then one at a time for the rest); each weight block is unpacked once and
 * used for each of those rows. Blocks go 8 at a time: per row, each block's
 * integer sum is exact (int32 lanes, reduced to the block's one int32 by a
 * tree whose lane i is block i), its term (dw * da) * isum [+-...] is
 * computed as the portable C computes it, in 8 float lanes, and added to 8
 * lane accumulators (lane = block mod 8; a short last batch has zero terms in
 * its unused lanes), reduced in a fixed order at the end (hsum8). The per-row
 * arithmetic is the same whatever m is, so row i of an m-row call is
 * bit-identical to a 1-row call on row i; against the portable C only the
 * order of the f32 additions differs.
 *
 * Integer parts: codes that fit 0..127 meet the signed activation codes y
 * through maddubs(u, y), exact (pair sums below 2^15); codes with an offset
 * (v = u - off) subtract maddubs(off, y) or, for q8_K, off times the block's
 * bsums; signed codes in -127..127 (q8_0, iq4_nl, iq4_xs) use
 * maddubs(|y|, sign(v, y)), exact for every y (-128 included: |y| is 128
 * unsigned); a q8_0 batch holding a code -128 is widened to int16 instead. */
#ifndef MIO_KERNELS_DOT_AVX2_H
#define MIO_KERNELS_DOT_AVX2_H

#include "kernels/avx2/avx2.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <immintrin.h>

#define AI static inline __attribute__((always_inline))
#define DOT_R 8 /* most activation rows per pass over the weight row */

AI __m256i ld256(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
AI __m128i ld128(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
AI float ldh(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}
AI float ldf(const uint8_t *p) {
    float f;
    memcpy(&f, p, 4);
    return f;
}
AI uint16_t ld16u(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
AI uint32_t ldu32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
/* fixed-order sum of 8 lanes: (0+4, 1+5, 2+6, 3+7), then pairs, then the two */
AI float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
/* lane i of the result: the sum of the 8 int32 lanes of s[i] (exact) */
AI __m256i hsum8x8(const __m256i *s) {
    const __m256i a01 = _mm256_hadd_epi32(s[0], s[1]), a23 = _mm256_hadd_epi32(s[2], s[3]);
    const __m256i a45 = _mm256_hadd_epi32(s[4], s[5]), a67 = _mm256_hadd_epi32(s[6], s[7]);
    const __m256i b0 = _mm256_hadd_epi32(a01, a23), b1 = _mm256_hadd_epi32(a45, a67);
    return _mm256_add_epi32(_mm256_permute2x128_si256(b0, b1, 0x20), _mm256_permute2x128_si256(b0, b1, 0x31));
}
AI int32_t hsum_i32(__m256i s) {
    __m128i q = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    q = _mm_add_epi32(q, _mm_unpackhi_epi64(q, q));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 1));
    return _mm_cvtsi128_si32(q);
}
/* 16 packed nibbles -> 32 bytes: byte j the low nibble of q[j], byte 16 + j the high one */
AI __m256i nib32(__m128i q) {
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), _mm256_set1_epi8(15));
}

/* the f16 at p, p + stride, ... (n of them; the others 0) as 8 floats */
AI __m256 f16x8(const uint8_t *p, size_t stride, int n) {
    if (n == 8)
        return _mm256_cvtph_ps(_mm_setr_epi16((short)ld16u(p), (short)ld16u(p + stride), (short)ld16u(p + 2 * stride),
                                              (short)ld16u(p + 3 * stride), (short)ld16u(p + 4 * stride),
                                              (short)ld16u(p + 5 * stride), (short)ld16u(p + 6 * stride),
                                              (short)ld16u(p + 7 * stride)));
#define F16K(i) (short)((i) < n ? ld16u(p + (size_t)(i) * stride) : 0)
    return _mm256_cvtph_ps(_mm_setr_epi16(F16K(0), F16K(1), F16K(2), F16K(3), F16K(4), F16K(5), F16K(6), F16K(7)));
#undef F16K
}

/* the first n of 8 floats at p (the others 0) */
AI __m256 ld_f32(const float *p, int n) {
    if (n == 8) return _mm256_loadu_ps(p);
    return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}

/* The kernel entries: name##_x, a kern_dotx_fn (activation scales given as
 * floats, ad), and name, a kern_dot_fn (scales from the activation blocks:
 * ad NULL); DOT_R rows per pass, then 4, then single rows. ROWS is an
 * always-inline function (w, nb, a, a_stride, ad, ad_stride, out, R) with R
 * constant. */
#define AVX2_DOT_ENTRY(name, ROWS)                                                                     \
    static void name##_x(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, const float *ad, size_t ads, \
                         size_t m, float *out) {                                                       \
        size_t r = 0;                                                                                  \
        for (; r + DOT_R <= m; r += DOT_R)                                                             \
            ROWS(w, nb, a + r * st, st, ad ? ad + r * ads : NULL, ads, out + r, DOT_R);                \
        if (r + 4 <= m) {                                                                              \
            ROWS(w, nb, a + r * st, st, ad ? ad + r * ads : NULL, ads, out + r, 4);                    \
            r += 4;                                                                                    \
        }                                                                                              \
        for (; r < m; r++) ROWS(w, nb, a + r * st, st, ad ? ad + r * ads : NULL, ads, out + r, 1);     \
    }                                                                                                  \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, size_t m, float *out) { \
        name##_x(w, nb, a, st, NULL, 0, m, out);                                                       \
    }

void mio_avx2_dot_legacy(mio_kernels *k);
void mio_avx2_dot_kquants(mio_kernels *k);
void mio_avx2_dot_float(mio_kernels *k);

#endif
