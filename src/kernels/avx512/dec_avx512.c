/* SPDX-License-Identifier: MIT */
/* dec_avx512.c — AVX-512 block decoders for q8_0, q4_K, q5_K and q6_K: 16
 * output elements per vector, each computed with exactly the scalar decoder's
 * operations (the same products and differences in the same order, no FMA), so
 * the output bits are identical to the portable C and the AVX2 kernels. */
#include "kernels/avx512/avx512.h"

#include "core/half.h"

#include <string.h>

#include <immintrin.h>

static inline float h2f(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return half_to_f32(h);
}

/* 16 bytes as 16 floats */
static inline __m512 s8x16(__m128i v) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)); }
static inline __m512 u8x16(__m128i v) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(v)); }
static inline __m128i ld128(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }

/* q8_0: 34 bytes = f16 d, 32 int8; y = q * d */
static void dq_avx512_q8_0(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 34, y += 32) {
        const __m512 d = _mm512_set1_ps(h2f(p));
        _mm512_storeu_ps(y, _mm512_mul_ps(s8x16(ld128(p + 2)), d));
        _mm512_storeu_ps(y + 16, _mm512_mul_ps(s8x16(ld128(p + 18)), d));
    }
}

/* q4_K: 144 bytes = f16 d, f16 dmin, 12 scale bytes, 128 nibble bytes;
 * q5_K: 176 bytes = same header, 32 bytes of fifth bits, 128 nibble bytes.
 * Per 32 elements: y = (d*sc) * v - (dmin*m). */
static inline void k45(const uint8_t *p, float *y, int64_t nb, int five) {
    const size_t bytes = five ? 176 : 144;
    const __m256i m4 = _mm256_set1_epi8(0x0F), b16 = _mm256_set1_epi8(16);
    for (int64_t i = 0; i < nb; i++, p += bytes, y += 256) {
        const float d = h2f(p), mn = h2f(p + 2);
        const uint8_t *q = p + (five ? 48 : 16);
        const __m256i qh = five ? _mm256_loadu_si256((const __m256i *)(const void *)(p + 16)) : _mm256_setzero_si256();
        for (int c = 0; c < 4; c++, q += 32) {
            int sc, m;
            kq_scale_min_k4(p + 4, 2 * c, &sc, &m);
            const __m512 d1 = _mm512_set1_ps(d * (float)sc), m1 = _mm512_set1_ps(mn * (float)m);
            kq_scale_min_k4(p + 4, 2 * c + 1, &sc, &m);
            const __m512 d2 = _mm512_set1_ps(d * (float)sc), m2 = _mm512_set1_ps(mn * (float)m);
            const __m256i qv = _mm256_loadu_si256((const __m256i *)(const void *)q);
            __m256i lo = _mm256_and_si256(qv, m4), hi = _mm256_and_si256(_mm256_srli_epi16(qv, 4), m4);
            if (five) {
                const __m256i u1 = _mm256_set1_epi8((char)(1 << (2 * c))), u2 = _mm256_set1_epi8((char)(2 << (2 * c)));
                lo = _mm256_add_epi8(lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u1), u1), b16));
                hi = _mm256_add_epi8(hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u2), u2), b16));
            }
            float *o = y + 64 * c;
            _mm512_storeu_ps(o, _mm512_sub_ps(_mm512_mul_ps(d1, u8x16(_mm256_castsi256_si128(lo))), m1));
            _mm512_storeu_ps(o + 16, _mm512_sub_ps(_mm512_mul_ps(d1, u8x16(_mm256_extracti128_si256(lo, 1))), m1));
            _mm512_storeu_ps(o + 32, _mm512_sub_ps(_mm512_mul_ps(d2, u8x16(_mm256_castsi256_si128(hi))), m2));
            _mm512_storeu_ps(o + 48, _mm512_sub_ps(_mm512_mul_ps(d2, u8x16(_mm256_extracti128_si256(hi, 1))), m2));
        }
    }
}
static void dq_avx512_q4_K(const void *x, float *y, int64_t nb) { k45(x, y, nb, 0); }
static void dq_avx512_q5_K(const void *x, float *y, int64_t nb) { k45(x, y, nb, 1); }

/* q6_K: 210 bytes = 128 low-nibble bytes, 64 bytes of 2-bit highs, 16 int8
 * scales, f16 d; per 16 elements y = (d * sc) * (q - 32). */
static void dq_avx512_q6_K(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30), b32 = _mm256_set1_epi8(32);
    for (int64_t i = 0; i < nb; i++, p += 210, y += 256) {
        const float d = h2f(p + 208);
        const int8_t *sc = (const int8_t *)(const void *)(p + 192);
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = p + 64 * h, *qh = p + 128 + 32 * h;
            const __m256i l0 = _mm256_loadu_si256((const __m256i *)(const void *)ql);
            const __m256i l1 = _mm256_loadu_si256((const __m256i *)(const void *)(ql + 32));
            const __m256i hb = _mm256_loadu_si256((const __m256i *)(const void *)qh);
            __m256i q[4];
            q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
            q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
            q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m30));
            q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                   _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
            for (int r = 0; r < 4; r++) {
                const __m256i v = _mm256_sub_epi8(q[r], b32);
                const __m512 s0 = _mm512_set1_ps(d * (float)sc[8 * h + 2 * r]);
                const __m512 s1 = _mm512_set1_ps(d * (float)sc[8 * h + 2 * r + 1]);
                float *o = y + 128 * h + 32 * r;
                _mm512_storeu_ps(o, _mm512_mul_ps(s0, s8x16(_mm256_castsi256_si128(v))));
                _mm512_storeu_ps(o + 16, _mm512_mul_ps(s1, s8x16(_mm256_extracti128_si256(v, 1))));
            }
        }
    }
}

void mio_avx512_fill_dec(mio_kernels *k) {
    k->dec_q8_0 = dq_avx512_q8_0;
    k->dec_q4_K = dq_avx512_q4_K;
    k->dec_q5_K = dq_avx512_q5_K;
    k->dec_q6_K = dq_avx512_q6_K;
}
