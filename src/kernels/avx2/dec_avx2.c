/* SPDX-License-Identifier: MIT */
/* dec_avx2.c — AVX2 block decoders for q8_0, q4_K, q5_K, q6_K and the grid iq
 * types: 8 output elements per vector, each computed with exactly the scalar
 * decoder's operations (same products in the same order, explicit sign flips
 * for the iq sign bits), so the output bits are identical, NaN payloads too. */
#include "kernels/avx2/avx2.h"

#include "core/half.h"
#include "core/unaligned.h"

#include <string.h>

#include <immintrin.h>

static inline float h2f(const uint8_t *p) { return half_to_f32(ld16(p)); }

/* 8 bytes at p, unsigned / signed, as 8 floats */
static inline __m256 u8x8(const uint8_t *p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}
static inline __m256 s8x8(const void *p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}
/* lane j: the sign bit when bit j of s is set */
static inline __m256 sign8(unsigned s) {
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)s), bits), bits);
    return _mm256_castsi256_ps(_mm256_slli_epi32(m, 31));
}
/* 32 bytes (unsigned) -> 4 x 8 floats: out[k] = bytes 8k..8k+7 */
static inline void u8x32(__m256i v, __m256 *out) {
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    out[0] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(lo));
    out[1] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)));
    out[2] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(hi));
    out[3] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)));
}
static inline void s8x32(__m256i v, __m256 *out) {
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    out[0] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo));
    out[1] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)));
    out[2] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi));
    out[3] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)));
}

/* q8_0: 34 bytes = f16 d, 32 int8; y = q * d */
static void dq_avx2_q8_0(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 34, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(p));
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(s8x8(p + 2 + 8 * k), d));
    }
}

/* q4_K: 144 bytes = f16 d, f16 dmin, 12 scale bytes, 128 nibble bytes;
 * q5_K: 176 bytes = same header, 32 bytes of fifth bits, 128 nibble bytes.
 * Per 64 elements: y = (d*sc) * v - (dmin*m). */
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
            const __m256 d1 = _mm256_set1_ps(d * (float)sc), m1 = _mm256_set1_ps(mn * (float)m);
            kq_scale_min_k4(p + 4, 2 * c + 1, &sc, &m);
            const __m256 d2 = _mm256_set1_ps(d * (float)sc), m2 = _mm256_set1_ps(mn * (float)m);
            const __m256i qv = _mm256_loadu_si256((const __m256i *)(const void *)q);
            __m256i lo = _mm256_and_si256(qv, m4), hi = _mm256_and_si256(_mm256_srli_epi16(qv, 4), m4);
            if (five) {
                const __m256i u1 = _mm256_set1_epi8((char)(1 << (2 * c))), u2 = _mm256_set1_epi8((char)(2 << (2 * c)));
                lo = _mm256_add_epi8(lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u1), u1), b16));
                hi = _mm256_add_epi8(hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u2), u2), b16));
            }
            __m256 f[4];
            u8x32(lo, f);
            for (int k = 0; k < 4; k++) _mm256_storeu_ps(y + 64 * c + 8 * k, _mm256_sub_ps(_mm256_mul_ps(d1, f[k]), m1));
            u8x32(hi, f);
            for (int k = 0; k < 4; k++) _mm256_storeu_ps(y + 64 * c + 32 + 8 * k, _mm256_sub_ps(_mm256_mul_ps(d2, f[k]), m2));
        }
    }
}
static void dq_avx2_q4_K(const void *x, float *y, int64_t nb) { k45(x, y, nb, 0); }
static void dq_avx2_q5_K(const void *x, float *y, int64_t nb) { k45(x, y, nb, 1); }

/* q6_K: 210 bytes = 128 low-nibble bytes, 64 bytes of 2-bit highs, 16 int8
 * scales, f16 d; per 16 elements y = (d * sc) * (q - 32). */
static void dq_avx2_q6_K(const void *x, float *y, int64_t nb) {
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
            q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4), _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
            for (int r = 0; r < 4; r++) {
                __m256 f[4];
                s8x32(_mm256_sub_epi8(q[r], b32), f);
                const __m256 s0 = _mm256_set1_ps(d * (float)sc[8 * h + 2 * r]);
                const __m256 s1 = _mm256_set1_ps(d * (float)sc[8 * h + 2 * r + 1]);
                float *o = y + 128 * h + 32 * r;
                _mm256_storeu_ps(o, _mm256_mul_ps(s0, f[0]));
                _mm256_storeu_ps(o + 8, _mm256_mul_ps(s0, f[1]));
                _mm256_storeu_ps(o + 16, _mm256_mul_ps(s1, f[2]));
                _mm256_storeu_ps(o + 24, _mm256_mul_ps(s1, f[3]));
            }
        }
    }
}

/* 8 outputs of a 2-bit-grid row: sign-flipped db * g */
static inline void iq_row8(float *y, __m256 db, const uint8_t *g, unsigned s) {
    _mm256_storeu_ps(y, _mm256_xor_ps(_mm256_mul_ps(db, u8x8(g)), sign8(s)));
}
/* 8 outputs from two 4-value rows */
static inline void iq_row44(float *y, __m256 db, const uint8_t *g1, const uint8_t *g2, unsigned s) {
    const __m128i v = _mm_unpacklo_epi32(_mm_cvtsi32_si128((int)ld32(g1)), _mm_cvtsi32_si128((int)ld32(g2)));
    const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
    _mm256_storeu_ps(y, _mm256_xor_ps(_mm256_mul_ps(db, f), sign8(s)));
}

static void dq_avx2_iq2_xxs(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8], const uint8_t *sgn) {
    const uint8_t *b = x;
    for (int64_t i = 0; i < nb; i++, b += 66) {
        const float d = h2f(b);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t *q = b + 2 + 8 * ib;
            const uint32_t hi = ld32(q + 4);
            const __m256 db = _mm256_set1_ps(d * (0.5f + (float)(hi >> 28)) * 0.25f);
            for (int l = 0; l < 4; l++, y += 8) iq_row8(y, db, grid[q[l]], sgn[(hi >> (7 * l)) & 127]);
        }
    }
}

static void dq_avx2_iq2_xs(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8], const uint8_t *sgn) {
    const uint8_t *b = x;
    for (int64_t i = 0; i < nb; i++, b += 74) {
        const float d = h2f(b);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t sc = b[66 + ib];
            const __m256 db0 = _mm256_set1_ps(d * (0.5f + (float)(sc & 15)) * 0.25f);
            const __m256 db1 = _mm256_set1_ps(d * (0.5f + (float)(sc >> 4)) * 0.25f);
            for (int l = 0; l < 4; l++, y += 8) {
                const uint16_t v = ld16(b + 2 + 2 * (4 * ib + l));
                iq_row8(y, l < 2 ? db0 : db1, grid[v & 511], sgn[v >> 9]);
            }
        }
    }
}

static void dq_avx2_iq2_s(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8]) {
    const uint8_t *b = x;
    for (int64_t i = 0; i < nb; i++, b += 82) {
        const float d = h2f(b);
        const uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66, *sc = b + 74;
        for (int ib = 0; ib < 8; ib++) {
            const __m256 db0 = _mm256_set1_ps(d * (0.5f + (float)(sc[ib] & 15)) * 0.25f);
            const __m256 db1 = _mm256_set1_ps(d * (0.5f + (float)(sc[ib] >> 4)) * 0.25f);
            for (int l = 0; l < 4; l++, y += 8)
                iq_row8(y, l < 2 ? db0 : db1, grid[qs[4 * ib + l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 0x300)],
                        signs[4 * ib + l]);
        }
    }
}

static void dq_avx2_iq3_xxs(const void *x, float *y, int64_t nb, const uint8_t (*grid)[4], const uint8_t *sgn) {
    const uint8_t *b = x;
    for (int64_t i = 0; i < nb; i++, b += 98) {
        const float d = h2f(b);
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < 8; ib++, qs += 8) {
            const uint32_t aux = ld32(b + 66 + 4 * ib);
            const __m256 db = _mm256_set1_ps(d * (0.5f + (float)(aux >> 28)) * 0.5f);
            for (int l = 0; l < 4; l++, y += 8)
                iq_row44(y, db, grid[qs[2 * l]], grid[qs[2 * l + 1]], sgn[(aux >> (7 * l)) & 127]);
        }
    }
}

static void dq_avx2_iq3_s(const void *x, float *y, int64_t nb, const uint8_t (*grid)[4]) {
    const uint8_t *b = x;
    for (int64_t i = 0; i < nb; i++, b += 110) {
        const float d = h2f(b);
        const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *sc = b + 106;
        for (int ib = 0; ib < 8; ib++, qs += 8, signs += 4) {
            const __m256 db = _mm256_set1_ps(d * (float)(1 + 2 * ((sc[ib / 2] >> (4 * (ib % 2))) & 15)));
            for (int l = 0; l < 4; l++, y += 8)
                iq_row44(y, db, grid[qs[2 * l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 256)],
                         grid[qs[2 * l + 1] | (((unsigned)qh[ib] << (7 - 2 * l)) & 256)], signs[l]);
        }
    }
}

/* 8 outputs of an iq1 row: dl * (g + delta) */
static inline void iq1_row8(float *y, __m256 dl, const int8_t *g, __m256 delta) {
    _mm256_storeu_ps(y, _mm256_mul_ps(dl, _mm256_add_ps(s8x8(g), delta)));
}

static void dq_avx2_iq1_s(const void *x, float *y, int64_t nb, const int8_t (*grid)[8], float delta) {
    const uint8_t *b = x;
    for (int64_t i = 0; i < nb; i++, b += 50) {
        const float d = h2f(b);
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < 8; ib++, qs += 4) {
            const uint16_t h = ld16(b + 34 + 2 * ib);
            const __m256 dl = _mm256_set1_ps(d * (float)(2 * ((h >> 12) & 7) + 1));
            const __m256 dt = _mm256_set1_ps(h & 0x8000 ? -delta : delta);
            for (int l = 0; l < 4; l++, y += 8) iq1_row8(y, dl, grid[qs[l] | (((h >> (3 * l)) & 7) << 8)], dt);
        }
    }
}

static void dq_avx2_iq1_m(const void *x, float *y, int64_t nb, const int8_t (*grid)[8], float delta) {
    const uint8_t *b = x;
    const __m256 dp = _mm256_set1_ps(delta), dm = _mm256_set1_ps(-delta);
    for (int64_t i = 0; i < nb; i++, b += 56) {
        const uint8_t *qs = b, *qh = b + 32;
        uint16_t sc[4];
        for (int k = 0; k < 4; k++) sc[k] = ld16(b + 48 + 2 * k);
        const uint16_t dbits = (uint16_t)((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
        const float d = half_to_f32(dbits);
        for (int ib = 0; ib < 8; ib++, qs += 4, qh += 2) {
            const __m256 dl1 = _mm256_set1_ps(d * (float)(2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1));
            const __m256 dl2 = _mm256_set1_ps(d * (float)(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1));
            iq1_row8(y, dl1, grid[qs[0] | ((qh[0] << 8) & 0x700u)], qh[0] & 0x08 ? dm : dp);
            iq1_row8(y + 8, dl1, grid[qs[1] | ((qh[0] << 4) & 0x700u)], qh[0] & 0x80 ? dm : dp);
            iq1_row8(y + 16, dl2, grid[qs[2] | ((qh[1] << 8) & 0x700u)], qh[1] & 0x08 ? dm : dp);
            iq1_row8(y + 24, dl2, grid[qs[3] | ((qh[1] << 4) & 0x700u)], qh[1] & 0x80 ? dm : dp);
            y += 32;
        }
    }
}

void mio_avx2_fill_dec(mio_kernels *k) {
    k->dec_q8_0 = dq_avx2_q8_0;
    k->dec_q4_K = dq_avx2_q4_K;
    k->dec_q5_K = dq_avx2_q5_K;
    k->dec_q6_K = dq_avx2_q6_K;
    k->dec_iq2_xxs = dq_avx2_iq2_xxs;
    k->dec_iq2_xs = dq_avx2_iq2_xs;
    k->dec_iq2_s = dq_avx2_iq2_s;
    k->dec_iq3_xxs = dq_avx2_iq3_xxs;
    k->dec_iq3_s = dq_avx2_iq3_s;
    k->dec_iq1_s = dq_avx2_iq1_s;
    k->dec_iq1_m = dq_avx2_iq1_m;
}
