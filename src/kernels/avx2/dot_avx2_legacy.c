/* SPDX-License-Identifier: MIT */
/* dot_avx2_legacy.c — AVX2 dot kernels of the 32-element block types
 * (dot/dot_legacy.c is the portable reference): q4_0 q5_0 q8_0 iq4_nl mxfp4
 * against q8_0 activations, q4_1 q5_1 against q8_1. Blocks go 8 at a time:
 * per row, each block's 8 int32 lanes of exact partial sums are reduced to its
 * isum (hsum8x8: lane i = block i), and the 8 block terms (dw * da) * isum
 * (+ mw * s for q4_1 / q5_1) are computed as the portable C computes them, in
 * 8 float lanes, and added to 8 lane accumulators (lane = block mod 8; a short
 * last batch has zero terms in its unused lanes), reduced once at the end. */
#include "kernels/avx2/dot_avx2.h"

#include "modelio.h"

/* Weight state of one block (v: codes, wc: their xor correction; or w0/w1:
 * int16 codes), and the row loop shared by the legacy types. UNPACK(x, ws)
 * fills ws from block x; ISUM(ws, y) is the __m256i of 8 exact lane sums
 * against activation block y; DW(x) / MW(x) the weight scale (and offset);
 * OFS: the activation blocks carry the q8_1 s field. */
typedef struct lw {
    __m256i v, wc;
} lw;

AI __m256 f16x8(const uint8_t *p, size_t stride, int n) {
    uint16_t h[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < n; i++) memcpy(&h[i], p + (size_t)i * stride, 2);
    return _mm256_cvtph_ps(_mm_setr_epi16((short)h[0], (short)h[1], (short)h[2], (short)h[3], (short)h[4],
                                          (short)h[5], (short)h[6], (short)h[7]));
}

#define LEG_ROWS(fname, WB, AB, UNPACK, ISUM, DW, MW, OFS)                                            \
    AI void fname##_batch(const uint8_t *w, const uint8_t *a, size_t st, __m256 *acc, const int R,     \
                          const int NB) {                                                              \
        lw ws[8];                                                                                      \
        float dwv[8] = {0}, mwv[8] = {0};                                                              \
        for (int i = 0; i < NB; i++) {                                                                 \
            const uint8_t *x = w + (size_t)i * (WB);                                                   \
            UNPACK(x, &ws[i]);                                                                         \
            dwv[i] = DW(x);                                                                            \
            if (OFS) mwv[i] = MW(x);                                                                   \
        }                                                                                              \
        const __m256 dw8 = _mm256_loadu_ps(dwv), mw8 = _mm256_loadu_ps(mwv);                           \
        (void)mw8;                                                                                     \
        for (int r = 0; r < R; r++) {                                                                  \
            const uint8_t *y = a + (size_t)r * st;                                                     \
            __m256i s[8];                                                                              \
            for (int i = 0; i < 8; i++) s[i] = i < NB ? ISUM(&ws[i], y + (size_t)i * (AB)) : _mm256_setzero_si256(); \
            const __m256 isum = _mm256_cvtepi32_ps(hsum8x8(s));                                        \
            __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw8, f16x8(y, AB, NB)), isum);                      \
            if (OFS) t = _mm256_add_ps(t, _mm256_mul_ps(mw8, f16x8(y + 2, AB, NB)));                   \
            acc[r] = _mm256_add_ps(acc[r], t);                                                         \
        }                                                                                              \
    }                                                                                                  \
    AI void fname(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, float *out, const int R) { \
        __m256 acc[DOT_R];                                                                             \
        for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps();                                      \
        size_t b = 0;                                                                                  \
        for (; b + 8 <= nb; b += 8) fname##_batch(w + b * (WB), a + b * (AB), st, acc, R, 8);          \
        if (b < nb) fname##_batch(w + b * (WB), a + b * (AB), st, acc, R, (int)(nb - b));              \
        for (int r = 0; r < R; r++) out[r] = hsum8(acc[r]);                                            \
    }

/* signed codes v (|v| <= 64) against q8_0's 32 codes at y + 2: see dot_avx2.h */
AI __m256i is_xor(const lw *k, const uint8_t *y) {
    const __m256i q = _mm256_xor_si256(ld256(y + 2), _mm256_set1_epi8((char)0x80));
    return _mm256_madd_epi16(_mm256_sub_epi16(_mm256_maddubs_epi16(q, k->v), k->wc), _mm256_set1_epi16(1));
}
/* int16 codes (v: elements 0..15, wc: 16..31) against the codes at y + 2 */
AI __m256i is_w16(const lw *k, const uint8_t *y) {
    return _mm256_add_epi32(_mm256_madd_epi16(k->v, _mm256_cvtepi8_epi16(ld128(y + 2))),
                            _mm256_madd_epi16(k->wc, _mm256_cvtepi8_epi16(ld128(y + 18))));
}
/* unsigned codes (<= 31) against q8_1's codes at y + 4 */
AI __m256i is_u(const lw *k, const uint8_t *y) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(k->v, ld256(y + 4)), _mm256_set1_epi16(1));
}

/* byte j of the result: 0x10 when bit j of qh is set, else 0 */
AI __m256i hbits16(uint32_t qh) {
    const __m256i sel = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3,
                                         3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    const __m256i t = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int)qh), sel), bit);
    return _mm256_and_si256(_mm256_cmpeq_epi8(t, bit), _mm256_set1_epi8(0x10));
}

/* 2^(e - 128) as ggml's e8m0 "half" conversion (dot_legacy.c's e8m0_half) */
AI float e8m0_half(uint8_t e) {
    uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static const int8_t tab_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
static const int8_t tab_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

AI void xor_corr(lw *k) { k->wc = _mm256_maddubs_epi16(_mm256_set1_epi8((char)0x80), k->v); }
AI void un_q4_0(const uint8_t *x, lw *k) {
    k->v = _mm256_sub_epi8(nib32(ld128(x + 2)), _mm256_set1_epi8(8));
    xor_corr(k);
}
AI void un_q5_0(const uint8_t *x, lw *k) {
    k->v = _mm256_sub_epi8(_mm256_or_si256(nib32(ld128(x + 6)), hbits16(ldu32(x + 2))), _mm256_set1_epi8(16));
    xor_corr(k);
}
AI void un_q8_0(const uint8_t *x, lw *k) {
    k->v = _mm256_cvtepi8_epi16(ld128(x + 2));
    k->wc = _mm256_cvtepi8_epi16(ld128(x + 18));
}
AI void un_iq4_nl(const uint8_t *x, lw *k) {
    const __m256i v = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(ld128((const uint8_t *)tab_iq4nl)), nib32(ld128(x + 2)));
    k->v = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(v));
    k->wc = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(v, 1));
}
AI void un_mxfp4(const uint8_t *x, lw *k) {
    k->v = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(ld128((const uint8_t *)tab_mxfp4)), nib32(ld128(x + 1)));
    xor_corr(k);
}
AI void un_q4_1(const uint8_t *x, lw *k) { k->v = nib32(ld128(x + 4)); }
AI void un_q5_1(const uint8_t *x, lw *k) { k->v = _mm256_or_si256(nib32(ld128(x + 8)), hbits16(ldu32(x + 4))); }
AI float dw_f16(const uint8_t *x) { return ldh(x); }
AI float mw_f16(const uint8_t *x) { return ldh(x + 2); }
AI float dw_e8m0(const uint8_t *x) { return e8m0_half(x[0]); }

LEG_ROWS(rows_q4_0, 18, 34, un_q4_0, is_xor, dw_f16, mw_f16, 0)
LEG_ROWS(rows_q5_0, 22, 34, un_q5_0, is_xor, dw_f16, mw_f16, 0)
LEG_ROWS(rows_q8_0, 34, 34, un_q8_0, is_w16, dw_f16, mw_f16, 0)
LEG_ROWS(rows_iq4_nl, 18, 34, un_iq4_nl, is_w16, dw_f16, mw_f16, 0)
LEG_ROWS(rows_mxfp4, 17, 34, un_mxfp4, is_xor, dw_e8m0, mw_f16, 0)
LEG_ROWS(rows_q4_1, 20, 36, un_q4_1, is_u, dw_f16, mw_f16, 1)
LEG_ROWS(rows_q5_1, 24, 36, un_q5_1, is_u, dw_f16, mw_f16, 1)

AVX2_DOT_ENTRY(k_q4_0, rows_q4_0)
AVX2_DOT_ENTRY(k_q5_0, rows_q5_0)
AVX2_DOT_ENTRY(k_q8_0, rows_q8_0)
AVX2_DOT_ENTRY(k_iq4_nl, rows_iq4_nl)
AVX2_DOT_ENTRY(k_mxfp4, rows_mxfp4)
AVX2_DOT_ENTRY(k_q4_1, rows_q4_1)
AVX2_DOT_ENTRY(k_q5_1, rows_q5_1)

void avx2_dot_legacy(mio_kernels *k) {
    k->dot[MIO_TYPE_Q4_0] = k_q4_0;
    k->dot[MIO_TYPE_Q5_0] = k_q5_0;
    k->dot[MIO_TYPE_Q8_0] = k_q8_0;
    k->dot[MIO_TYPE_IQ4_NL] = k_iq4_nl;
    k->dot[MIO_TYPE_MXFP4] = k_mxfp4;
    k->dot[MIO_TYPE_Q4_1] = k_q4_1;
    k->dot[MIO_TYPE_Q5_1] = k_q5_1;
}
