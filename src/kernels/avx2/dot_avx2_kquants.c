/* SPDX-License-Identifier: MIT */
/* dot_avx2_kquants.c — AVX2 dot kernels of the 256-element super-block types
 * against q8_K activations (dot/dot_kquants.c is the portable reference):
 * q2_K q3_K q4_K q5_K q6_K tq1_0 tq2_0 iq4_xs. Per super-block the weight
 * codes are unpacked once into 8 vectors of 32 unsigned codes (chunk j =
 * elements 32j..32j+31) with their sub-block scales as int16 lanes; per row
 * maddubs(codes, q) and madd(., scales) give 8 int32 lanes, reduced to the
 * block's exact isum; the block term is computed as the portable C does it,
 * 8 blocks at a time in float lanes (KQ_ROWS).
 * The types whose codes carry an offset (q3_K: -4, q6_K: -32, tq1_0 / tq2_0:
 * -1) use unsigned codes u = v + off and subtract off * sum_k sc[k] * bsums[k]
 * with the activation block's bsums (as ggml's kernels do): exact for every
 * q8_K block whose bsums are the sums of its codes, which every block the
 * library encodes is. q2_K / q4_K / q5_K's mins use the bsums as the portable
 * C does. */
#include "kernels/avx2/dot_avx2.h"

#include "kernels/dot_kernels.h"

#include "modelio.h"

#define A_BYTES 292 /* q8_K: f32 d, 256 int8, 16 int16 bsums */

/* Scale lanes for chunk j from 16 unsigned scale bytes broadcast to both halves
 * (scb): sub-blocks of 16 (scale 2j for elements 0..15, 2j + 1 for 16..31) or
 * of 32 (scale j for all), zero-extended to int16. */
AI __m256i sc16_of(__m256i scb, int j, int sub32) {
    const int i0 = sub32 ? j : 2 * j, i1 = sub32 ? j : 2 * j + 1;
    const __m256i ctl = _mm256_setr_epi8((char)i0, -128, (char)i0, -128, (char)i0, -128, (char)i0, -128, (char)i0,
                                         -128, (char)i0, -128, (char)i0, -128, (char)i0, -128, (char)i1, -128, (char)i1,
                                         -128, (char)i1, -128, (char)i1, -128, (char)i1, -128, (char)i1, -128, (char)i1,
                                         -128, (char)i1, -128);
    return _mm256_shuffle_epi8(scb, ctl);
}

/* Signed scales of 16-element sub-blocks: sv holds the 16 scales as int8; chunk
 * j gets scale 2j in its low 8 int16 lanes and 2j + 1 in its high 8. */
AI void sc16_signed(__m128i sv, __m256i *sc) {
    const __m256i w = _mm256_cvtepi8_epi16(sv); /* 16 int16 scales */
    const __m256i lo = _mm256_permute2x128_si256(w, w, 0x00), hi = _mm256_permute2x128_si256(w, w, 0x11);
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        const int b = 4 * (j % 4); /* bytes of scale 2j within its 128-bit half */
        const __m256i ctl = _mm256_setr_epi8((char)b, (char)(b + 1), (char)b, (char)(b + 1), (char)b, (char)(b + 1),
                                             (char)b, (char)(b + 1), (char)b, (char)(b + 1), (char)b, (char)(b + 1),
                                             (char)b, (char)(b + 1), (char)b, (char)(b + 1), (char)(b + 2), (char)(b + 3),
                                             (char)(b + 2), (char)(b + 3), (char)(b + 2), (char)(b + 3), (char)(b + 2),
                                             (char)(b + 3), (char)(b + 2), (char)(b + 3), (char)(b + 2), (char)(b + 3),
                                             (char)(b + 2), (char)(b + 3), (char)(b + 2), (char)(b + 3));
        sc[j] = _mm256_shuffle_epi8(j < 4 ? lo : hi, ctl);
    }
}

/* Weight state of one super-block: 8 chunks of unsigned codes, 8 scale
 * vectors, the bsum multipliers (16 int16 lanes, one per 16-element bsum: the
 * mins, or the offset times the scale) and the two float scales. */
typedef struct kw {
    __m256i c[8], sc[8], mins;
    float dw, dmin;
} kw;

/* --- unpackers --- */

/* q2_K (84 bytes): scales[16] (low nibble scale, high nibble min), qs[64], f16 d, f16 dmin;
 * chunk 4h + s = bits 2s..2s+1 of qs[32h + l] */
AI void un_q2_K(const uint8_t *x, kw *k) {
    const __m256i m3 = _mm256_set1_epi8(3);
    for (int h = 0; h < 2; h++) {
        const __m256i q = ld256(x + 16 + 32 * h);
        k->c[4 * h] = _mm256_and_si256(q, m3);
        k->c[4 * h + 1] = _mm256_and_si256(_mm256_srli_epi16(q, 2), m3);
        k->c[4 * h + 2] = _mm256_and_si256(_mm256_srli_epi16(q, 4), m3);
        k->c[4 * h + 3] = _mm256_and_si256(_mm256_srli_epi16(q, 6), m3);
    }
    const __m128i s = ld128(x);
    const __m256i scb = _mm256_broadcastsi128_si256(_mm_and_si128(s, _mm_set1_epi8(15)));
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) k->sc[j] = sc16_of(scb, j, 0);
    k->mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s, 4), _mm_set1_epi8(15)));
    k->dw = ldh(x + 80);
    k->dmin = ldh(x + 82);
}

/* q3_K (110 bytes): hmask[32], qs[64], scales[12] (16 6-bit scales, minus 32), f16 d.
 * Chunk 4h + s: bits 2s..2s+1 of qs[32h + l], minus 4 unless bit 4h + s of hmask[l];
 * as unsigned codes u = v + 4 (bits 2s..2s+1, plus 4 when the hmask bit is set). */
AI void un_q3_K(const uint8_t *x, kw *k) {
    const __m256i m3 = _mm256_set1_epi8(3), m4 = _mm256_set1_epi8(4);
    const __m256i hm = ld256(x);
    for (int h = 0; h < 2; h++) {
        const __m256i q = ld256(x + 32 + 32 * h);
#pragma GCC unroll 4
        for (int s = 0; s < 4; s++) {
            const int bit = 4 * h + s;
            /* the hmask bit moved to bit 2 of each byte */
            const __m256i hb = bit <= 2 ? _mm256_slli_epi16(hm, 2 - bit) : _mm256_srli_epi16(hm, bit - 2);
            k->c[4 * h + s] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 2 * s), m3), _mm256_and_si256(hb, m4));
        }
    }
    uint32_t s4[4];
    dot_q3_K_scales(x + 96, s4);
    const __m128i sv = _mm_sub_epi8(_mm_setr_epi32((int)s4[0], (int)s4[1], (int)s4[2], (int)s4[3]), _mm_set1_epi8(32));
    sc16_signed(sv, k->sc);
    k->mins = _mm256_slli_epi16(_mm256_cvtepi8_epi16(sv), 2); /* 4 * sc[k] */
    k->dw = ldh(x + 108);
}

/* q4_K (144 bytes): f16 d, f16 dmin, scales[12], qs[128]; q5_K (176 bytes) adds qh[32]
 * before qs. Chunk 2c = low nibbles of qs[32c + l], 2c + 1 the high nibbles (+16 when
 * bit 2c, resp. 2c + 1, of qh[l]). Sub-blocks of 32. */
AI void un_q45_K(const uint8_t *x, kw *k, int five) {
    const __m256i m4 = _mm256_set1_epi8(15), b16 = _mm256_set1_epi8(16);
    const uint8_t *qs = x + (five ? 48 : 16);
    const __m256i qh = five ? ld256(x + 16) : _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        const __m256i q = ld256(qs + 32 * c);
        __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
        if (five) {
            const int b0 = 2 * c, b1 = 2 * c + 1; /* qh bit -> bit 4 */
            const __m256i h0 = b0 <= 4 ? _mm256_slli_epi16(qh, 4 - b0) : _mm256_srli_epi16(qh, b0 - 4);
            const __m256i h1 = b1 <= 4 ? _mm256_slli_epi16(qh, 4 - b1) : _mm256_srli_epi16(qh, b1 - 4);
            lo = _mm256_or_si256(lo, _mm256_and_si256(h0, b16));
            hi = _mm256_or_si256(hi, _mm256_and_si256(h1, b16));
        }
        k->c[2 * c] = lo;
        k->c[2 * c + 1] = hi;
    }
    /* the 6-bit scales and mins, a byte each */
    const uint32_t A = ldu32(x + 4), B = ldu32(x + 8), C = ldu32(x + 12);
    const uint32_t sc_lo = A & 0x3f3f3f3fu, mn_lo = B & 0x3f3f3f3fu;
    const uint32_t sc_hi = (C & 0x0f0f0f0fu) | ((A >> 2) & 0x30303030u);
    const uint32_t mn_hi = ((C >> 4) & 0x0f0f0f0fu) | ((B >> 2) & 0x30303030u);
    const __m128i sm = _mm_setr_epi32((int)sc_lo, (int)sc_hi, (int)mn_lo, (int)mn_hi);
    const __m256i scb = _mm256_broadcastsi128_si256(sm);
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) k->sc[j] = sc16_of(scb, j, 1);
    const __m128i mn = _mm_srli_si128(sm, 8);
    k->mins = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(mn, mn));
    k->dw = ldh(x);
    k->dmin = ldh(x + 2);
}

/* q6_K (210 bytes): ql[128], qh[64], int8 scales[16], f16 d. Chunk 4h + s: nibble s / 2
 * of ql[64h + 32(s % 2) + l], bits 2s..2s+1 of qh[32h + l] on top (u = v + 32). */
AI void un_q6_K(const uint8_t *x, kw *k) {
    const __m256i m4 = _mm256_set1_epi8(15), m30 = _mm256_set1_epi8(0x30);
    for (int h = 0; h < 2; h++) {
        const __m256i l0 = ld256(x + 64 * h), l1 = ld256(x + 64 * h + 32), hb = ld256(x + 128 + 32 * h);
        k->c[4 * h] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
        k->c[4 * h + 1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
        k->c[4 * h + 2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m30));
        k->c[4 * h + 3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                          _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
    }
    const __m128i sv = ld128(x + 192);
    sc16_signed(sv, k->sc);
    k->mins = _mm256_slli_epi16(_mm256_cvtepi8_epi16(sv), 5); /* 32 * sc[k] */
    k->dw = ldh(x + 208);
}

/* tq2_0 (66 bytes): qs[64], f16 d. Chunk 4h + l: bits 2l..2l+1 of qs[32h + k] (u = v + 1). */
AI void un_tq2_0(const uint8_t *x, kw *k) {
    const __m256i m3 = _mm256_set1_epi8(3);
    for (int h = 0; h < 2; h++) {
        const __m256i q = ld256(x + 32 * h);
        k->c[4 * h] = _mm256_and_si256(q, m3);
        k->c[4 * h + 1] = _mm256_and_si256(_mm256_srli_epi16(q, 2), m3);
        k->c[4 * h + 2] = _mm256_and_si256(_mm256_srli_epi16(q, 4), m3);
        k->c[4 * h + 3] = _mm256_and_si256(_mm256_srli_epi16(q, 6), m3);
    }
    k->dw = ldh(x + 64);
}

/* tq1_0 (54 bytes): qs[48], qh[4], f16 d. Digit l of a byte b is
 * ((uint8_t)(b * 3^l) * 3) >> 8, 0..2 (u = v + 1). qs[m] (m < 32) digit l is
 * element 32l + m; qs[32 + m] (m < 16) digit l element 160 + 16l + m; qh[j]
 * digit l element 240 + 4l + j. The products mod 256 by 8-bit shifts and adds
 * (x * 9 = (x << 3) + x with the bits shifted in from the next byte masked
 * off); (p * 3) >> 8 as avg(p', avg(p', 0)) >> 6 with p' = p - 1 saturated,
 * which equals it for every byte p (checked over all 256). */
AI __m256i tq1_x3(__m256i x) { return _mm256_add_epi8(x, _mm256_add_epi8(x, x)); }
AI __m256i tq1_x9(__m256i x) {
    return _mm256_add_epi8(_mm256_and_si256(_mm256_slli_epi16(x, 3), _mm256_set1_epi8((char)0xf8)), x);
}
AI __m256i tq1_digit(__m256i p) {
    const __m256i q = _mm256_subs_epu8(p, _mm256_set1_epi8(1));
    const __m256i t = _mm256_avg_epu8(q, _mm256_avg_epu8(q, _mm256_setzero_si256()));
    return _mm256_and_si256(_mm256_srli_epi16(t, 6), _mm256_set1_epi8(3));
}
AI void un_tq1_0(const uint8_t *x, kw *k) {
    const __m256i v1 = ld256(x);
    const __m256i v3 = tq1_x3(v1), v9 = tq1_x9(v1);
    k->c[0] = tq1_digit(v1);
    k->c[1] = tq1_digit(v3);
    k->c[2] = tq1_digit(v9);
    k->c[3] = tq1_digit(tq1_x9(v3));
    k->c[4] = tq1_digit(tq1_x9(v9));
    /* qs[32..47] in both halves: the low half times 1 / 9, the high one times 3 / 27 */
    const __m256i w1 = _mm256_broadcastsi128_si256(ld128(x + 32));
    const __m256i w3 = tq1_x3(w1), w9 = tq1_x9(w1);
    k->c[5] = tq1_digit(_mm256_blend_epi32(w1, w3, 0xf0));
    k->c[6] = tq1_digit(_mm256_blend_epi32(w9, tq1_x9(w3), 0xf0));
    /* low half: qs[32..47] times 81; high half: qh[0..3] times 1, 3, 9, 27 (4 bytes each) */
    const __m256i h1 = _mm256_set1_epi32((int)ldu32(x + 48)), h3 = tq1_x3(h1);
    const __m256i hq = _mm256_blend_epi32(_mm256_blend_epi32(h1, h3, 0x20), tq1_x9(h1), 0x40);
    const __m256i hh = _mm256_blend_epi32(hq, tq1_x9(h3), 0x80);
    k->c[7] = tq1_digit(_mm256_blend_epi32(tq1_x9(w9), hh, 0xf0));
    k->dw = ldh(x + 52);
}

/* iq4_xs (136 bytes): f16 d, u16 scales_h, scales_l[4], qs[128]. Chunk g: kvalues of the
 * low nibbles of qs[16g + j], then of the high nibbles (signed, never -128); scale
 * (6 bits) - 32 for all 32. */
AI void un_iq4_xs(const uint8_t *x, kw *k) {
    static const int8_t tabv[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    const __m256i tab = _mm256_broadcastsi128_si256(ld128((const uint8_t *)tabv));
    const uint32_t hsc = (uint32_t)x[2] | ((uint32_t)x[3] << 8);
#pragma GCC unroll 8
    for (int g = 0; g < 8; g++) {
        const int sc = (((x[4 + g / 2] >> (4 * (g % 2))) & 15) | (((hsc >> (2 * g)) & 3) << 4)) - 32;
        k->c[g] = _mm256_shuffle_epi8(tab, nib32(ld128(x + 8 + 16 * g)));
        k->sc[g] = _mm256_set1_epi16((short)sc);
    }
    k->dw = ldh(x);
}

/* --- per-row integer sums (8 int32 lanes) of one super-block against q = the 256 codes --- */

/* unsigned codes, scales in the madd */
AI __m256i is_u(const kw *k, const uint8_t *q) {
    __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(k->c[j], ld256(q + 32 * j)), k->sc[j]));
    return s;
}
/* unsigned codes 0..3 (u = v + 1), no scales: the int16 pair sums of all 8 chunks
 * (|.| <= 8 * 2 * 3 * 128) minus the 16 bsums (|.| <= 2048) stay within int16; the
 * result is the isum in 8 lanes with the offset already taken (MODE 3) */
AI __m256i is_t(const kw *k, const uint8_t *q) {
    __m256i p = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) p = _mm256_add_epi16(p, _mm256_maddubs_epi16(k->c[j], ld256(q + 32 * j)));
    return _mm256_madd_epi16(_mm256_sub_epi16(p, ld256(q + 256)), _mm256_set1_epi16(1));
}
/* signed codes (-127..127) against q: maddubs(|q|, sign(c, q)) is exact for every
 * activation byte (pairs within 2 * 128 * 127), scales in the madd */
AI __m256i is_s(const kw *k, const uint8_t *q) {
    __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        const __m256i y = ld256(q + 32 * j);
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(y), _mm256_sign_epi8(k->c[j], y)), k->sc[j]));
    }
    return s;
}

/* The row loop, 8 super-blocks (NB in a short last batch) at a time. Per block and
 * row: the 8 int32 lanes of the isum (MODE 2: minus the offset term), and for
 * MODE 1 the 8 lanes of summs = sum_k bsums[k] * mins[k]; then per row the 8
 * blocks' lanes are reduced to one exact int32 each (lane i = block i) and the
 * block terms (dw * da) * isum [- (dmin * da) * summs] are computed as the
 * portable C does, in 8 float lanes added to 8 lane accumulators (lane = block
 * mod 8), reduced once at the end. MODE 0: no offset, or taken inside ISUM
 * (iq4_xs, tq1_0, tq2_0); 1: mins (q2_K q4_K q5_K); 2: offset codes (q3_K q6_K). DOFF / MOFF: where the
 * block keeps its f16 d / dmin. */
/* the f32 at p, p + stride, ... (n of them; the others 0) */
AI __m256 f32x8k(const uint8_t *p, size_t stride, int n) {
#define F32K(i) ((i) < n ? ldf(p + (size_t)(i) * stride) : 0.0f)
    return _mm256_setr_ps(F32K(0), F32K(1), F32K(2), F32K(3), F32K(4), F32K(5), F32K(6), F32K(7));
#undef F32K
}

#define KQ_ROWS(fname, WB, DOFF, MOFF, UNPACK, ISUM, MODE, FUSED)                                      \
    AI void fname##_batch(const uint8_t *w, const uint8_t *a, size_t st, const float *ad, size_t ads,  \
                          __m256 *acc, const int R, const int NB) {                                    \
        __m256i S[DOT_R][8], M[DOT_R][8];                                                              \
        if (R == 1 && (FUSED) != 0) { /* one row: the same exact sums, unpacked as they are used */    \
            for (int i = 0; i < 8; i++) { /* the zeros here: no memset call */                         \
                if (i < NB) S[0][i] = fname##_fused(w + (size_t)i * (WB), a + (size_t)i * A_BYTES, &M[0][i]); \
                else S[0][i] = M[0][i] = _mm256_setzero_si256();                                       \
            }                                                                                          \
        } else {                                                                                       \
            for (int r = 0; r < R; r++)                                                                \
                for (int i = NB; i < 8; i++) S[r][i] = M[r][i] = _mm256_setzero_si256();               \
        }                                                                                              \
        for (int i = 0; i < NB && !(R == 1 && (FUSED) != 0); i++) {                                    \
            kw k;                                                                                      \
            UNPACK(w + (size_t)i * (WB), &k);                                                          \
            for (int r = 0; r < R; r++) {                                                              \
                const uint8_t *y = a + (size_t)r * st + (size_t)i * A_BYTES;                           \
                const __m256i s = ISUM(&k, y + 4);                                                     \
                if ((MODE) == 1) {                                                                     \
                    S[r][i] = s;                                                                       \
                    M[r][i] = _mm256_madd_epi16(ld256(y + 260), k.mins);                               \
                } else if ((MODE) == 2) { /* q3_K q6_K */                                              \
                    S[r][i] = _mm256_sub_epi32(s, _mm256_madd_epi16(ld256(y + 260), k.mins));          \
                } else {                                                                               \
                    S[r][i] = s;                                                                       \
                }                                                                                      \
            }                                                                                          \
        }                                                                                              \
        const __m256 dw8 = f16x8(w + (DOFF), WB, NB);                                                  \
        for (int r = 0; r < R; r++) {                                                                  \
            const __m256 da8 = ad ? ld_f32(ad + (size_t)r * ads, NB) : f32x8k(a + (size_t)r * st, A_BYTES, NB); \
            __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw8, da8), _mm256_cvtepi32_ps(hsum8x8(S[r])));      \
            if ((MODE) == 1) {                                                                         \
                const __m256 dm8 = f16x8(w + (MOFF), WB, NB);                                         \
                t = _mm256_sub_ps(t, _mm256_mul_ps(_mm256_mul_ps(dm8, da8), _mm256_cvtepi32_ps(hsum8x8(M[r])))); \
            }                                                                                          \
            acc[r] = _mm256_add_ps(acc[r], t);                                                         \
        }                                                                                              \
    }                                                                                                  \
    AI void fname(const uint8_t *w, size_t nb, const uint8_t *a, size_t st, const float *ad, size_t ads, \
                  float *out, const int R) {                                                           \
        __m256 acc[DOT_R];                                                                             \
        for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps();                                      \
        size_t b = 0;                                                                                  \
        for (; b + 8 <= nb; b += 8)                                                                    \
            fname##_batch(w + b * (WB), a + b * A_BYTES, st, ad ? ad + b : NULL, ads, acc, R, 8);      \
        if (b < nb)                                                                                    \
            fname##_batch(w + b * (WB), a + b * A_BYTES, st, ad ? ad + b : NULL, ads, acc, R, (int)(nb - b)); \
        for (int r = 0; r < R; r++) out[r] = hsum8(acc[r]);                                            \
    }

#define UN_Q4_K(x, k) un_q45_K(x, k, 0)
#define UN_Q5_K(x, k) un_q45_K(x, k, 1)
/* Single-row forms of the same sums (R == 1): each chunk unpacked right where it is used. */
AI __m256i rows_q6_K_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) {
    const __m256i m4 = _mm256_set1_epi8(15), m30 = _mm256_set1_epi8(0x30);
    const __m128i sv = ld128(x + 192);
    __m256i sc[8];
    sc16_signed(sv, sc);
    const uint8_t *q = y + 4;
    __m256i s = _mm256_madd_epi16(ld256(y + 260), _mm256_slli_epi16(_mm256_cvtepi8_epi16(sv), 5));
    s = _mm256_sub_epi32(_mm256_setzero_si256(), s);
    for (int h = 0; h < 2; h++) {
        const __m256i l0 = ld256(x + 64 * h), l1 = ld256(x + 64 * h + 32), hb = ld256(x + 128 + 32 * h);
        const uint8_t *qq = q + 128 * h;
        const __m256i c0 = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(c0, ld256(qq)), sc[4 * h]));
        const __m256i c1 = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(c1, ld256(qq + 32)), sc[4 * h + 1]));
        const __m256i c2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m30));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(c2, ld256(qq + 64)), sc[4 * h + 2]));
        const __m256i c3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                           _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(c3, ld256(qq + 96)), sc[4 * h + 3]));
    }
    (void)mm;
    return s;
}
AI __m256i q45_fused(const uint8_t *x, const uint8_t *y, __m256i *mm, int five) {
    const __m256i m4 = _mm256_set1_epi8(15), b16 = _mm256_set1_epi8(16);
    const uint8_t *qs = x + (five ? 48 : 16), *q = y + 4;
    const __m256i qh = five ? ld256(x + 16) : _mm256_setzero_si256();
    const uint32_t A = ldu32(x + 4), B = ldu32(x + 8), C = ldu32(x + 12);
    const uint32_t sc_lo = A & 0x3f3f3f3fu, mn_lo = B & 0x3f3f3f3fu;
    const uint32_t sc_hi = (C & 0x0f0f0f0fu) | ((A >> 2) & 0x30303030u);
    const uint32_t mn_hi = ((C >> 4) & 0x0f0f0f0fu) | ((B >> 2) & 0x30303030u);
    const __m128i smv = _mm_setr_epi32((int)sc_lo, (int)sc_hi, (int)mn_lo, (int)mn_hi);
    const __m256i scb = _mm256_broadcastsi128_si256(smv);
    const __m128i mn = _mm_srli_si128(smv, 8);
    *mm = _mm256_madd_epi16(ld256(y + 260), _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(mn, mn)));
    __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        const __m256i v = ld256(qs + 32 * c);
        __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
        if (five) {
            const int b0 = 2 * c, b1 = 2 * c + 1;
            const __m256i h0 = b0 <= 4 ? _mm256_slli_epi16(qh, 4 - b0) : _mm256_srli_epi16(qh, b0 - 4);
            const __m256i h1 = b1 <= 4 ? _mm256_slli_epi16(qh, 4 - b1) : _mm256_srli_epi16(qh, b1 - 4);
            lo = _mm256_or_si256(lo, _mm256_and_si256(h0, b16));
            hi = _mm256_or_si256(hi, _mm256_and_si256(h1, b16));
        }
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(lo, ld256(q + 64 * c)), sc16_of(scb, 2 * c, 1)));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(hi, ld256(q + 64 * c + 32)), sc16_of(scb, 2 * c + 1, 1)));
    }
    return s;
}
AI __m256i rows_q4_K_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) { return q45_fused(x, y, mm, 0); }
AI __m256i rows_q5_K_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) { return q45_fused(x, y, mm, 1); }
/* q2_K: un_q2_K's chunks, scales and mins, used as they are unpacked */
AI __m256i rows_q2_K_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m128i s = ld128(x);
    const __m256i scb = _mm256_broadcastsi128_si256(_mm_and_si128(s, _mm_set1_epi8(15)));
    *mm = _mm256_madd_epi16(ld256(y + 260), _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s, 4), _mm_set1_epi8(15))));
    const uint8_t *q = y + 4;
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        const __m256i v = ld256(x + 16 + 32 * h);
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++) {
            const __m256i c = _mm256_and_si256(l ? _mm256_srli_epi16(v, 2 * l) : v, m3);
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(c, ld256(q + 128 * h + 32 * l)),
                                                          sc16_of(scb, 4 * h + l, 0)));
        }
    }
    return acc;
}
/* tq2_0: is_t on un_tq2_0's chunks as they are unpacked */
AI __m256i rows_tq2_0_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const uint8_t *q = y + 4;
    __m256i p = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        const __m256i v = ld256(x + 32 * h);
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++) {
            const __m256i c = _mm256_and_si256(l ? _mm256_srli_epi16(v, 2 * l) : v, m3);
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(c, ld256(q + 128 * h + 32 * l)));
        }
    }
    (void)mm;
    return _mm256_madd_epi16(_mm256_sub_epi16(p, ld256(y + 260)), _mm256_set1_epi16(1));
}
/* iq4_xs: is_s on un_iq4_xs's chunks as they are unpacked */
AI __m256i rows_iq4_xs_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) {
    static const int8_t tabv[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    const __m256i tab = _mm256_broadcastsi128_si256(ld128((const uint8_t *)tabv));
    const uint32_t hsc = (uint32_t)x[2] | ((uint32_t)x[3] << 8);
    const uint8_t *q = y + 4;
    __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int g = 0; g < 8; g++) {
        const int sc = (((x[4 + g / 2] >> (4 * (g % 2))) & 15) | (((hsc >> (2 * g)) & 3) << 4)) - 32;
        const __m256i c = _mm256_shuffle_epi8(tab, nib32(ld128(x + 8 + 16 * g)));
        const __m256i yv = ld256(q + 32 * g);
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(yv), _mm256_sign_epi8(c, yv)),
                                                  _mm256_set1_epi16((short)sc)));
    }
    (void)mm;
    return s;
}
#define NO_FUSED(name)                                                                                 \
    AI __m256i name##_fused(const uint8_t *x, const uint8_t *y, __m256i *mm) {                         \
        (void)x, (void)y, (void)mm;                                                                    \
        return _mm256_setzero_si256();                                                                 \
    }
NO_FUSED(rows_q3_K)
NO_FUSED(rows_tq1_0)

KQ_ROWS(rows_q2_K, 84, 80, 82, un_q2_K, is_u, 1, 1)
KQ_ROWS(rows_q3_K, 110, 108, 0, un_q3_K, is_u, 2, 0)
KQ_ROWS(rows_q4_K, 144, 0, 2, UN_Q4_K, is_u, 1, 1)
KQ_ROWS(rows_q5_K, 176, 0, 2, UN_Q5_K, is_u, 1, 1)
KQ_ROWS(rows_q6_K, 210, 208, 0, un_q6_K, is_u, 2, 1)
KQ_ROWS(rows_tq1_0, 54, 52, 0, un_tq1_0, is_t, 0, 0)
KQ_ROWS(rows_tq2_0, 66, 64, 0, un_tq2_0, is_t, 0, 1)
KQ_ROWS(rows_iq4_xs, 136, 0, 0, un_iq4_xs, is_s, 0, 1)

AVX2_DOT_ENTRY(k_q2_K, rows_q2_K)
AVX2_DOT_ENTRY(k_q3_K, rows_q3_K)
AVX2_DOT_ENTRY(k_q4_K, rows_q4_K)
AVX2_DOT_ENTRY(k_q5_K, rows_q5_K)
AVX2_DOT_ENTRY(k_q6_K, rows_q6_K)
AVX2_DOT_ENTRY(k_tq1_0, rows_tq1_0)
AVX2_DOT_ENTRY(k_tq2_0, rows_tq2_0)
AVX2_DOT_ENTRY(k_iq4_xs, rows_iq4_xs)

void mio_avx2_dot_kquants(mio_kernels *k) {
    k->dot[MIO_TYPE_Q2_K] = k_q2_K;
    k->dotx[MIO_TYPE_Q2_K] = k_q2_K_x;
    k->dot[MIO_TYPE_Q3_K] = k_q3_K;
    k->dotx[MIO_TYPE_Q3_K] = k_q3_K_x;
    k->dot[MIO_TYPE_Q4_K] = k_q4_K;
    k->dotx[MIO_TYPE_Q4_K] = k_q4_K_x;
    k->dot[MIO_TYPE_Q5_K] = k_q5_K;
    k->dotx[MIO_TYPE_Q5_K] = k_q5_K_x;
    k->dot[MIO_TYPE_Q6_K] = k_q6_K;
    k->dotx[MIO_TYPE_Q6_K] = k_q6_K_x;
    k->dot[MIO_TYPE_TQ1_0] = k_tq1_0;
    k->dotx[MIO_TYPE_TQ1_0] = k_tq1_0_x;
    k->dot[MIO_TYPE_TQ2_0] = k_tq2_0;
    k->dotx[MIO_TYPE_TQ2_0] = k_tq2_0_x;
    k->dot[MIO_TYPE_IQ4_XS] = k_iq4_xs;
    k->dotx[MIO_TYPE_IQ4_XS] = k_iq4_xs_x;
}
