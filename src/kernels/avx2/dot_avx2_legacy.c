/* SPDX-License-Identifier: MIT */
/* dot_avx2_legacy.c — AVX2 dot kernels of the 32-element block types
 * (dot/dot_legacy.c is the portable reference): q4_0 q5_0 q8_0 iq4_nl mxfp4
 * against q8_0 activations, q4_1 q5_1 against q8_1. The 4- and 5-bit codes
 * stay unsigned (u = v + off; maddubs(u, q) - maddubs(off, q) is exact for
 * every activation byte); q8_0 / iq4_nl use maddubs(|q|, sign(v, q)), exact
 * for codes v != -128 (iq4_nl has none; a q8_0 batch with one is widened to
 * int16 instead — either way the same exact integers).
 * Blocks go 8 at a time:
 * per row, each block's 8 int32 lanes of exact partial sums are reduced to its
 * isum (red4: lane i = block i), and the 8 block terms (dw * da) * isum
 * (+ mw * s for q4_1 / q5_1) are computed as the portable C computes them, in
 * 8 float lanes, and added to 8 lane accumulators (lane = block mod 8; a short
 * last batch has zero terms in its unused lanes), reduced once at the end. */
#include "kernels/avx2/dot_avx2.h"

#include "modelio.h"

/* The row loop shared by the legacy types, 8 blocks (NB in a short last batch)
 * at a time. UNPACK(x, &c) gives the block's codes as one __m256i; SUM(c, y)
 * the row's per-block partial sums against activation block y: 16 int16 lanes
 * (WIDE 0; every 4 adjacent lanes sum within int16) or 8 int32 lanes (WIDE 1:
 * int8 codes in -127..127; a batch with a code -128 takes SUM_128 instead);
 * DW(x) the weight scale; OFS: q8_1 activations, the term mw * s is added. */
#define LEG_ROW_LOOP(SUMX, AB, WIDE, OFS)                                                                            \
    for (int r = 0; r < R; r++) {                                                                      \
        const uint8_t *y = a + (size_t)r * st;                                                         \
        __m256i m[4];                                                                                  \
        _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++) {                                          \
            const __m256i s0 = 2 * i < NB ? SUMX(c[2 * i], y + (size_t)(2 * i) * (AB)) : _mm256_setzero_si256(); \
            const __m256i s1 = 2 * i + 1 < NB ? SUMX(c[2 * i + 1], y + (size_t)(2 * i + 1) * (AB))      \
                                              : _mm256_setzero_si256();                                \
            m[i] = (WIDE) ? _mm256_hadd_epi32(s0, s1)                                                  \
                        : _mm256_madd_epi16(_mm256_hadd_epi16(s0, s1), _mm256_set1_epi16(1));          \
        }                                                                                              \
        const __m256 isum = _mm256_cvtepi32_ps(red4(m));                                               \
        const __m256 da = ad ? ld_f32(ad + (size_t)r * ads, NB) : f16x8(y, AB, NB);                    \
        __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw8, da), isum);                                        \
        if (OFS)                                                                                       \
            t = _mm256_add_ps(t, _mm256_mul_ps(mw8, ad ? ld_f32(ad + (size_t)r * ads + nbs, NB)         \
                                                       : f16x8(y + 2, AB, NB)));                       \
        acc[r] = _mm256_add_ps(acc[r], t);                                                             \
    }
/* ROWS for one weight row: fname(w, nb, a, st, ad, ads, out, R) — ad NULL: the
 * scales come from the activation blocks (kern_dot_fn), else from ad
 * (kern_dotx_fn: its floats, s values nb after d for q8_1, and activation codes
 * never -128, so SUMT may take |w| and skip the -128 test). UNPACK(x) gives a
 * block's codes as one __m256i; SUM(c, y) the row's per-block partial sums
 * against activation block y: 16 int16 lanes (WIDE 0; every 4 adjacent lanes
 * sum within int16) or 8 int32 lanes (WIDE 1: int8 codes; with CHECK128 a batch
 * holding a code -128 takes SUM_128 instead); DW(x) the weight scale; OFS: q8_1
 * activations, the term mw * s is added. */
#define LEG_ROWS(fname, WB, AB, UNPACK, SUM, SUM_128, SUMT, DW, OFS, WIDE, CHECK128)                  \
    AI void fname##_batch(const uint8_t *w, const uint8_t *a, size_t st, const float *ad, size_t ads,  \
                          size_t nbs, __m256 *acc, const int R, const int NB) {                        \
        __m256i c[8];                                                                                  \
        for (int i = NB; i < 8; i++) c[i] = _mm256_setzero_si256();                                    \
        _Pragma("GCC unroll 8") for (int i = 0; i < NB; i++) c[i] = UNPACK(w + (size_t)i * (WB));      \
        const __m256 dw8 = DW(w, WB, NB);                                                              \
        const __m256 mw8 = (OFS) ? f16x8(w + 2, WB, NB) : _mm256_setzero_ps();                         \
        (void)nbs;                                                                                     \
        if (ad) {                                                                                      \
            LEG_ROW_LOOP(SUMT, AB, WIDE, OFS)                                                          \
            return;                                                                                    \
        }                                                                                              \
        int has128 = 0;                                                                                \
        if ((WIDE) && (CHECK128)) {                                                                    \
            __m256i e = c[0];                                                                          \
            _Pragma("GCC unroll 8") for (int i = 1; i < NB; i++) e = _mm256_min_epi8(e, c[i]);         \
            e = _mm256_cmpeq_epi8(e, _mm256_set1_epi8(-128));                                          \
            has128 = !_mm256_testz_si256(e, e);                                                        \
        }                                                                                              \
        if (has128) {                                                                                  \
            LEG_ROW_LOOP(SUM_128, AB, WIDE, OFS)                                                       \
        } else {                                                                                       \
            LEG_ROW_LOOP(SUM, AB, WIDE, OFS)                                                           \
        }                                                                                              \
    }                                                                                                  \
    AI void fname(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, const float *ad, size_t ads, float *out, \
                  const int R) {                                                                       \
        __m256 acc[DOT_R];                                                                             \
        for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps();                                      \
        size_t b = 0;                                                                                  \
        for (; b + 8 <= nb; b += 8)                                                                    \
            fname##_batch(w + b * (WB), a + b * (AB), st, ad ? ad + b : NULL, ads, nb, acc, R, 8);     \
        if (b < nb)                                                                                    \
            fname##_batch(w + b * (WB), a + b * (AB), st, ad ? ad + b : NULL, ads, nb, acc, R, (int)(nb - b)); \
        for (int r = 0; r < R; r++) out[r] = hsum8(acc[r]);                                            \
    }

/* lane i (0..7) of the result: block i's total, from m[k] = per 128-bit half
 * [block 2k part, part, block 2k+1 part, part] (exact) */
AI __m256i red4(const __m256i *m) {
    const __m256i b0 = _mm256_hadd_epi32(m[0], m[1]), b1 = _mm256_hadd_epi32(m[2], m[3]);
    return _mm256_add_epi32(_mm256_permute2x128_si256(b0, b1, 0x20), _mm256_permute2x128_si256(b0, b1, 0x31));
}

/* Unsigned codes u = v + off (off 0..16) against the 32 signed codes at q:
 * maddubs(u, q) - maddubs(off, q), pairs within +-4096 (|v| <= 16). */
AI __m256i sum_u(__m256i u, __m256i off, const uint8_t *q) {
    const __m256i y = ld256(q);
    return _mm256_sub_epi16(_mm256_maddubs_epi16(u, y), _mm256_maddubs_epi16(off, y));
}
/* q4_1 / q5_1: no offset (their mins go through the s field) */
AI __m256i sum_u0(__m256i u, const uint8_t *q) { return _mm256_maddubs_epi16(u, ld256(q)); }
/* int8 codes v in -127..127 against the codes at q: maddubs(|q|, sign(v, q)) is
 * exact for every activation byte (|q| <= 128 unsigned, |v * sign| <= 127: pair
 * sums within int16), then pairs to int32 */
AI __m256i sum_sgn(__m256i v, const uint8_t *q) {
    const __m256i y = ld256(q);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(y), _mm256_sign_epi8(v, y)), _mm256_set1_epi16(1));
}
/* the same with the roles swapped, for activation codes that are never -128
 * (kern_dotx_fn): maddubs(|v|, sign(q, v)) is exact for every weight code v
 * (|v| <= 128 unsigned, |q| <= 127) */
AI __m256i sum_sgnw(__m256i v, const uint8_t *q) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(v), _mm256_sign_epi8(ld256(q), v)),
                             _mm256_set1_epi16(1));
}
/* any int8 codes (a -128 among them): widened to int16 */
AI __m256i sum_w16(__m256i v, const uint8_t *q) {
    return _mm256_add_epi32(_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(v)), _mm256_cvtepi8_epi16(ld128(q))),
                            _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_extracti128_si256(v, 1)),
                                              _mm256_cvtepi8_epi16(ld128(q + 16))));
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
/* mxfp4's doubled e2m1 values plus 12 */
static const uint8_t tab_mxfp4u[16] = {12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0};

AI __m256i un_q4_0(const uint8_t *x) { return nib32(ld128(x + 2)); }
AI __m256i un_q5_0(const uint8_t *x) { return _mm256_or_si256(nib32(ld128(x + 6)), hbits16(ldu32(x + 2))); }
AI __m256i un_mxfp4(const uint8_t *x) {
    return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(ld128(tab_mxfp4u)), nib32(ld128(x + 1)));
}
AI __m256i un_q4_1(const uint8_t *x) { return nib32(ld128(x + 4)); }
AI __m256i un_q5_1(const uint8_t *x) { return _mm256_or_si256(nib32(ld128(x + 8)), hbits16(ldu32(x + 4))); }
AI __m256i un_q8_0(const uint8_t *x) { return ld256(x + 2); }
AI __m256i un_iq4_nl(const uint8_t *x) {
    return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(ld128((const uint8_t *)tab_iq4nl)), nib32(ld128(x + 2)));
}
#define S_Q4_0(c, y) sum_u(c, _mm256_set1_epi8(8), (y) + 2)
#define S_Q5_0(c, y) sum_u(c, _mm256_set1_epi8(16), (y) + 2)
#define S_MXFP4(c, y) sum_u(c, _mm256_set1_epi8(12), (y) + 2)
#define S_Q8_1(c, y) sum_u0(c, (y) + 4)
#define S_SGN(c, y) sum_sgn(c, (y) + 2)
#define S_W16(c, y) sum_w16(c, (y) + 2)
#define S_SGNW(c, y) sum_sgnw(c, (y) + 2)
#define DW_F16(w, WB, NB) f16x8(w, WB, NB)
/* the 8 blocks' e8m0 scales (the first n; the others 0) as e8m0_half gives
 * them: (e - 1) << 23 as float bits, 0x00200000 << e for e = 0, 1 */
AI __m256 dw_e8m0(const uint8_t *w, size_t wb, int n) {
    if (n < 8) {
        float f[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int i = 0; i < n; i++) f[i] = e8m0_half(w[(size_t)i * wb]);
        return _mm256_loadu_ps(f);
    }
    const __m256i e = _mm256_setr_epi32(w[0], w[wb], w[2 * wb], w[3 * wb], w[4 * wb], w[5 * wb], w[6 * wb], w[7 * wb]);
    const __m256i norm = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(1)), 23);
    const __m256i sub = _mm256_sllv_epi32(_mm256_set1_epi32(0x00200000), e);
    return _mm256_castsi256_ps(_mm256_blendv_epi8(norm, sub, _mm256_cmpgt_epi32(_mm256_set1_epi32(2), e)));
}

/* CHECK128: the unpacked codes may hold -128 (q8_0's stored bytes can; the
 * iq4_nl values cannot, so its batches skip the test) */
LEG_ROWS(rows_q4_0, 18, 34, un_q4_0, S_Q4_0, S_Q4_0, S_Q4_0, DW_F16, 0, 0, 0)
LEG_ROWS(rows_q5_0, 22, 34, un_q5_0, S_Q5_0, S_Q5_0, S_Q5_0, DW_F16, 0, 0, 0)
LEG_ROWS(rows_mxfp4, 17, 34, un_mxfp4, S_MXFP4, S_MXFP4, S_MXFP4, dw_e8m0, 0, 0, 0)
LEG_ROWS(rows_q4_1, 20, 36, un_q4_1, S_Q8_1, S_Q8_1, S_Q8_1, DW_F16, 1, 0, 0)
LEG_ROWS(rows_q5_1, 24, 36, un_q5_1, S_Q8_1, S_Q8_1, S_Q8_1, DW_F16, 1, 0, 0)
LEG_ROWS(rows_q8_0, 34, 34, un_q8_0, S_SGN, S_W16, S_SGNW, DW_F16, 0, 1, 1)
LEG_ROWS(rows_iq4_nl, 18, 34, un_iq4_nl, S_SGN, S_W16, S_SGNW, DW_F16, 0, 1, 0)

AVX2_DOT_ENTRY(k_q4_0, rows_q4_0)
AVX2_DOT_ENTRY(k_q5_0, rows_q5_0)
AVX2_DOT_ENTRY(k_q8_0, rows_q8_0)
AVX2_DOT_ENTRY(k_iq4_nl, rows_iq4_nl)
AVX2_DOT_ENTRY(k_mxfp4, rows_mxfp4)
AVX2_DOT_ENTRY(k_q4_1, rows_q4_1)
AVX2_DOT_ENTRY(k_q5_1, rows_q5_1)

void mio_avx2_dot_legacy(mio_kernels *k) {
    k->dot[MIO_TYPE_Q4_0] = k_q4_0;
    k->dot[MIO_TYPE_Q5_0] = k_q5_0;
    k->dot[MIO_TYPE_Q8_0] = k_q8_0;
    k->dot[MIO_TYPE_IQ4_NL] = k_iq4_nl;
    k->dot[MIO_TYPE_MXFP4] = k_mxfp4;
    k->dot[MIO_TYPE_Q4_1] = k_q4_1;
    k->dot[MIO_TYPE_Q5_1] = k_q5_1;
    k->dotx[MIO_TYPE_Q4_0] = k_q4_0_x;
    k->dotx[MIO_TYPE_Q5_0] = k_q5_0_x;
    k->dotx[MIO_TYPE_Q8_0] = k_q8_0_x;
    k->dotx[MIO_TYPE_IQ4_NL] = k_iq4_nl_x;
    k->dotx[MIO_TYPE_MXFP4] = k_mxfp4_x;
    k->dotx[MIO_TYPE_Q4_1] = k_q4_1_x;
    k->dotx[MIO_TYPE_Q5_1] = k_q5_1_x;
}
