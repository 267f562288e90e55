/* SPDX-License-Identifier: MIT */
/* packed_avx2.c — AVX2 kernels of the packed layouts (kernels/packed_kernels.h):
 * q4_0x8, q8_0x8, q4_Kx8 and q6_Kx8. A tile-block's vectors are loaded (and unpacked) once and
 * used for up to RMAX activation rows; each vector holds 4 consecutive elements
 * of the 8 rows, multiplied against the 4 activation codes broadcast to every
 * 32-bit lane, so lane j sums row j's products and no horizontal reduction is
 * needed.
 *  - q4_0: vpmaddubsw(code 0..15, q) pairs are at most 2 * 15 * 127 = 3810 in
 *    magnitude, so the 8 pair sums of a block add exactly in int16 (30480 <
 *    32767) before one vpmaddwd; the offset 8 comes back as -8 * sum q (pk_act.s).
 *  - q8_0: the stored code + 128 is turned back to the signed code w (xor), and
 *    vpmaddubsw(|w|, sign(q, w)) gives pairs of w * q (at most 2 * 128 * 127 =
 *    32512: exact; activation codes are never -128, the q8_0 encoder keeps
 *    |q| <= 127), summed per vector with vpmaddwd.
 * Then acc += (dw * da) * (float)isum per lane, blocks in order: the portable
 * kernel's f32 operations (this file is built without FMA contraction). */
#include "kernels/avx2/avx2.h"

#include "modelio.h"

#include <immintrin.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 16") /* the register arrays need constant indices */
#define RMAX 4 /* activation rows per pass (16 YMM registers) */

AI __m256i bcast32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* lanes of v into y[0..n-1] (n <= 8: the last tile of a matrix) */
AI void store_rows(float *y, __m256 v, size_t n) {
    if (n >= 8) {
        _mm256_storeu_ps(y, v);
        return;
    }
    float t[8];
    _mm256_storeu_ps(t, v);
    memcpy(y, t, n * sizeof(float));
}

AI void finish(__m256 *acc, __m256 dw, __m256i is, const pk_act *a, size_t o) {
    __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a->d[o])), _mm256_cvtepi32_ps(is));
    *acc = _mm256_add_ps(*acc, t);
}

AI void q4_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f), ones = _mm256_set1_epi16(1);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 144;
        pk_ahead(blk, 144, i0);
        __m256i s16[RMAX];
        UNROLL for (int r = 0; r < R; r++) s16[r] = _mm256_setzero_si256();
        UNROLL for (int g = 0; g < 4; g++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * g));
            __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            UNROLL for (int r = 0; r < R; r++) {
                const int8_t *x = aq[r] + b * 32;
                __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(lo, bcast32(x + 4 * g)),
                                             _mm256_maddubs_epi16(hi, bcast32(x + 16 + 4 * g)));
                s16[r] = _mm256_add_epi16(s16[r], p);
            }
        }
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        UNROLL for (int r = 0; r < R; r++) {
            __m256i is = _mm256_add_epi32(_mm256_madd_epi16(s16[r], ones),
                                          _mm256_set1_epi32(a->s[(i0 + (size_t)r) * a->s_stride + b]));
            finish(&acc[r], dw, is, a, (i0 + (size_t)r) * a->d_stride + b);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

AI void q8_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i flip = _mm256_set1_epi8((char)0x80), ones = _mm256_set1_epi16(1);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 272;
        pk_ahead(blk, 272, i0);
        __m256i s32[RMAX];
        UNROLL for (int r = 0; r < R; r++) s32[r] = _mm256_setzero_si256();
        UNROLL for (int g = 0; g < 8; g++) {
            __m256i w = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * g)), flip);
            __m256i aw = _mm256_abs_epi8(w);
            UNROLL for (int r = 0; r < R; r++) {
                __m256i p = _mm256_maddubs_epi16(aw, _mm256_sign_epi8(bcast32(aq[r] + b * 32 + 4 * g), w));
                s32[r] = _mm256_add_epi32(s32[r], _mm256_madd_epi16(p, ones));
            }
        }
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        UNROLL for (int r = 0; r < R; r++) finish(&acc[r], dw, s32[r], a, (i0 + (size_t)r) * a->d_stride + b);
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

/* iq4_nl's 16 values (int8) in both 128-bit lanes */
AI __m256i iq4nl_tab(void) {
    return _mm256_broadcastsi128_si256(_mm_setr_epi8(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113));
}

/* iq4_nl x8: q4_0's tile (144-byte tile-blocks); the nibbles looked up as
 * signed values w, and vpmaddubsw(|w|, sign(q, w)) (pairs at most
 * 2 * 127 * 128) widened by vpmaddwd per vector, as q8_0. */
AI void iq4_nl_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f), ones = _mm256_set1_epi16(1), tab = iq4nl_tab();
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 144;
        pk_ahead(blk, 144, i0);
        __m256i s32[RMAX];
        UNROLL for (int r = 0; r < R; r++) s32[r] = _mm256_setzero_si256();
        UNROLL for (int g = 0; g < 4; g++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 16 + 32 * g));
            __m256i wl = _mm256_shuffle_epi8(tab, _mm256_and_si256(q, m4));
            __m256i wh = _mm256_shuffle_epi8(tab, _mm256_and_si256(_mm256_srli_epi16(q, 4), m4));
            __m256i al = _mm256_abs_epi8(wl), ah = _mm256_abs_epi8(wh);
            UNROLL for (int r = 0; r < R; r++) {
                const int8_t *x = aq[r] + b * 32;
                __m256i pl = _mm256_maddubs_epi16(al, _mm256_sign_epi8(bcast32(x + 4 * g), wl));
                __m256i ph = _mm256_maddubs_epi16(ah, _mm256_sign_epi8(bcast32(x + 16 + 4 * g), wh));
                s32[r] = _mm256_add_epi32(s32[r], _mm256_add_epi32(_mm256_madd_epi16(pl, ones), _mm256_madd_epi16(ph, ones)));
            }
        }
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)blk));
        UNROLL for (int r = 0; r < R; r++) finish(&acc[r], dw, s32[r], a, (i0 + (size_t)r) * a->d_stride + b);
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

/* row i0 + r's offset words of super-block b (q8_K: 8 int16 pairs of bsums) */
AI __m256i sword(const pk_act *a, size_t i0, int r, size_t b, int k) {
    return _mm256_set1_epi32(a->s[(i0 + (size_t)r) * a->s_stride + 8 * b + (size_t)k]);
}
/* 8 bytes (one per row) as int32 lanes holding the value in both int16 halves */
AI __m256i pair_u8(const uint8_t *p) {
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
    return _mm256_or_si256(v, _mm256_slli_epi32(v, 16));
}
/* acc += (dw * da) * isum - (dmin * da) * summs for row i0 + r (the portable
 * q4_K operations), summs by vpmaddwd of the rows' (min, min) pairs (mins at
 * mn, one byte per row per sub-block) by the activation's bsum pairs */
AI void finish_min(__m256 *acc, __m256 dw, __m256 dm, __m256i is, const uint8_t *mn, const pk_act *a, size_t i0,
                   int r, size_t b) {
    __m256i sm = _mm256_setzero_si256();
    UNROLL for (int s = 0; s < 8; s++) sm = _mm256_add_epi32(sm, _mm256_madd_epi16(pair_u8(mn + 8 * s), sword(a, i0, r, b, s)));
    const __m256 da = _mm256_set1_ps(a->d[(i0 + (size_t)r) * a->d_stride + b]);
    __m256 t1 = _mm256_mul_ps(_mm256_mul_ps(dw, da), _mm256_cvtepi32_ps(is));
    __m256 t2 = _mm256_mul_ps(_mm256_mul_ps(dm, da), _mm256_cvtepi32_ps(sm));
    *acc = _mm256_add_ps(*acc, _mm256_sub_ps(t1, t2));
}

/* q4_K x8 (1184-byte tile-blocks: d at 0, dmin at 16, scales at 32 + 8s, mins
 * at 96 + 8s, vector v at 160 + 32v) and q5_K x8 (1440 bytes: the same with
 * the 8 qh vectors at 160 + 32g and the qs vectors after them, at 416 + 32v).
 * Sub-block s: the low (s even) or high nibbles of vectors 8(s / 2) .. + 7
 * (q5_K: with bit s of qh vector g as bit 4); vpmaddubsw results add in int16
 * (q4_K: all 8, at most 8 * 2 * 15 * 128 = 30720; q5_K: 4 at a time, at most
 * 4 * 2 * 31 * 128 = 31744) and vpmaddwd by the scale pair makes the int32
 * sc * sum. */
AI void q45_K_rows(const uint8_t *tp, size_t nb, const int five, const pk_act *a, size_t i0, int R, float *y,
                   size_t ldy, size_t n) {
    const size_t tb = five ? 1440 : 1184, qs = five ? 416 : 160;
    const int G16 = five ? 4 : 8; /* vectors summed in int16 */
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f), m10 = _mm256_set1_epi8(0x10);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        pk_ahead(blk, tb, i0);
        __m256i is[RMAX];
        UNROLL for (int r = 0; r < R; r++) is[r] = _mm256_setzero_si256();
        UNROLL for (int s = 0; s < 8; s++) {
            const uint8_t *v = blk + qs + 256 * (s / 2);
            const __m256i sc = pair_u8(blk + 32 + 8 * s);
            UNROLL for (int g0 = 0; g0 < 8; g0 += G16) {
                __m256i s16[RMAX];
                UNROLL for (int r = 0; r < R; r++) s16[r] = _mm256_setzero_si256();
                UNROLL for (int g = g0; g < g0 + G16; g++) {
                    __m256i q = _mm256_loadu_si256((const __m256i *)(const void *)(v + 32 * g));
                    __m256i u = _mm256_and_si256(s & 1 ? _mm256_srli_epi16(q, 4) : q, m4);
                    if (five) { /* bit s of qh to bit 4 */
                        __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 160 + 32 * g));
                        h = s < 4 ? _mm256_slli_epi16(h, 4 - s) : s > 4 ? _mm256_srli_epi16(h, s - 4) : h;
                        u = _mm256_or_si256(u, _mm256_and_si256(h, m10));
                    }
                    UNROLL for (int r = 0; r < R; r++)
                        s16[r] = _mm256_add_epi16(s16[r],
                                                  _mm256_maddubs_epi16(u, bcast32(aq[r] + 256 * b + 32 * s + 4 * g)));
                }
                UNROLL for (int r = 0; r < R; r++) is[r] = _mm256_add_epi32(is[r], _mm256_madd_epi16(s16[r], sc));
            }
        }
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)blk));
        const __m256 dm = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(blk + 16)));
        UNROLL for (int r = 0; r < R; r++) finish_min(&acc[r], dw, dm, is[r], blk + 96, a, i0, r, b);
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}
AI void q4_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    q45_K_rows(tp, nb, 0, a, i0, R, y, ldy, n);
}
AI void q5_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    q45_K_rows(tp, nb, 1, a, i0, R, y, ldy, n);
}

/* 8 int8 scales (one per row) as sign-extended int32 lanes */
AI __m256i sc_i8(const uint8_t *p) {
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}

/* q6_K x8 (1680-byte tile-blocks: d at 0, scales at 16 + 8k, then for
 * h = 0, 1 and g = 0..7 the vectors A, B, C at 144 + 96 (8h + g) + 0, 32, 64).
 * The three vectors of (h, g) are loaded once and give the unsigned codes
 * (code + 32, 0..63) of 4 elements in each of the sub-blocks 8h + 2s + g / 4,
 * s = 0..3; two vpmaddubsw (pairs at most 2 * 63 * 128 = 16128) add in int16
 * and go through one vpmaddwd by their sub-block's scale pair into isum. The +32 comes back as
 * -32 * sum_k sc[k] * bsum[k] (vpmaddwd of the scale pairs by the bsum pairs). */
AI void q6_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f), m30 = _mm256_set1_epi8(0x30), m3f = _mm256_set1_epi8(0x3f);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 1680;
        pk_ahead(blk, 1680, i0);
        __m256i is[RMAX];
        UNROLL for (int r = 0; r < R; r++) is[r] = _mm256_setzero_si256();
        UNROLL for (int h = 0; h < 2; h++)
            UNROLL for (int half = 0; half < 2; half++) {
                __m256i sc[4];
                UNROLL for (int s = 0; s < 4; s++) {
                    const __m256i v = sc_i8(blk + 16 + 8 * (8 * h + 2 * s + half));
                    sc[s] = _mm256_blend_epi16(v, _mm256_slli_epi32(v, 16), 0xAA);
                }
                UNROLL for (int g0 = 4 * half; g0 < 4 * half + 4; g0 += 2) {
                    __m256i u[2][4];
                    UNROLL for (int e = 0; e < 2; e++) {
                        const uint8_t *v = blk + 144 + 96 * (8 * h + g0 + e);
                        const __m256i A = _mm256_loadu_si256((const __m256i *)(const void *)v);
                        const __m256i B = _mm256_loadu_si256((const __m256i *)(const void *)(v + 32));
                        const __m256i C = _mm256_loadu_si256((const __m256i *)(const void *)(v + 64));
                        u[e][0] = _mm256_and_si256(A, m3f);
                        u[e][2] = _mm256_and_si256(B, m3f);
                        u[e][1] = _mm256_or_si256(_mm256_and_si256(C, m4), _mm256_and_si256(_mm256_srli_epi16(A, 2), m30));
                        u[e][3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(C, 4), m4),
                                                  _mm256_and_si256(_mm256_srli_epi16(B, 2), m30));
                    }
                    UNROLL for (int s = 0; s < 4; s++)
                        UNROLL for (int r = 0; r < R; r++) {
                            const int8_t *x = aq[r] + 256 * b + 128 * h + 32 * s + 4 * g0;
                            const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(u[0][s], bcast32(x)),
                                                               _mm256_maddubs_epi16(u[1][s], bcast32(x + 4)));
                            is[r] = _mm256_add_epi32(is[r], _mm256_madd_epi16(p, sc[s]));
                        }
                }
            }
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)blk));
        UNROLL for (int r = 0; r < R; r++) {
            __m256i off = _mm256_setzero_si256();
            UNROLL for (int k = 0; k < 8; k++) {
                const __m256i sp =
                    _mm256_blend_epi16(sc_i8(blk + 16 + 16 * k), _mm256_slli_epi32(sc_i8(blk + 24 + 16 * k), 16), 0xAA);
                off = _mm256_add_epi32(off, _mm256_madd_epi16(sp, sword(a, i0, r, b, k)));
            }
            finish(&acc[r], dw, _mm256_sub_epi32(is[r], _mm256_slli_epi32(off, 5)), a,
                   (i0 + (size_t)r) * a->d_stride + b);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

/* iq4_xs x8 (1104-byte tile-blocks: d at 0, int8 scales (the 6-bit value
 * - 32) at 16 + 8g, vector 4g + k at 80 + 32 (4g + k): sub-block g's qs bytes
 * 4k .. 4k + 3, low nibbles elements 32g + 4k + i, high 32g + 16 + 4k + i).
 * Signed values as iq4_nl, each vpmaddubsw widened by vpmaddwd with the
 * sub-block's (sc, sc) pair into isum. */
AI void iq4_xs_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f), tab = iq4nl_tab();
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 1104;
        pk_ahead(blk, 1104, i0);
        __m256i is[RMAX];
        UNROLL for (int r = 0; r < R; r++) is[r] = _mm256_setzero_si256();
        UNROLL for (int g = 0; g < 8; g++) {
            const __m256i v = sc_i8(blk + 16 + 8 * g);
            const __m256i sc = _mm256_blend_epi16(v, _mm256_slli_epi32(v, 16), 0xAA);
            UNROLL for (int k = 0; k < 4; k++) {
                __m256i q = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 80 + 32 * (4 * g + k)));
                __m256i wl = _mm256_shuffle_epi8(tab, _mm256_and_si256(q, m4));
                __m256i wh = _mm256_shuffle_epi8(tab, _mm256_and_si256(_mm256_srli_epi16(q, 4), m4));
                __m256i al = _mm256_abs_epi8(wl), ah = _mm256_abs_epi8(wh);
                UNROLL for (int r = 0; r < R; r++) {
                    const int8_t *x = aq[r] + 256 * b + 32 * g + 4 * k;
                    __m256i pl = _mm256_maddubs_epi16(al, _mm256_sign_epi8(bcast32(x), wl));
                    __m256i ph = _mm256_maddubs_epi16(ah, _mm256_sign_epi8(bcast32(x + 16), wh));
                    is[r] = _mm256_add_epi32(is[r], _mm256_add_epi32(_mm256_madd_epi16(pl, sc), _mm256_madd_epi16(ph, sc)));
                }
            }
        }
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)blk));
        UNROLL for (int r = 0; r < R; r++) finish(&acc[r], dw, is[r], a, (i0 + (size_t)r) * a->d_stride + b);
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

PK_TILE_LOOP(pk_q4_0, q4_0_rows, 8, RMAX, (void)0)
PK_TILE_LOOP(pk_q8_0, q8_0_rows, 8, RMAX, (void)0)
PK_TILE_LOOP(pk_q4_K, q4_K_rows, 8, RMAX, (void)0)
PK_TILE_LOOP(pk_q5_K, q5_K_rows, 8, RMAX, (void)0)
PK_TILE_LOOP(pk_q6_K, q6_K_rows, 8, RMAX, (void)0)
PK_TILE_LOOP(pk_iq4_nl, iq4_nl_rows, 8, RMAX, (void)0)
PK_TILE_LOOP(pk_iq4_xs, iq4_xs_rows, 8, RMAX, (void)0)

void mio_avx2_fill_packed(mio_kernels *k) {
    k->packed[MIO_TYPE_Q4_0] = (pk_kernel){pk_q4_0, 8, 8, MIO_TYPE_Q8_0, "q4_0x8/avx2"};
    k->packed[MIO_TYPE_Q8_0] = (pk_kernel){pk_q8_0, 8, 0, MIO_TYPE_Q8_0, "q8_0x8/avx2"};
    k->packed[MIO_TYPE_Q4_K] = (pk_kernel){pk_q4_K, 8, 0, MIO_TYPE_Q8_K, "q4_Kx8/avx2"};
    k->packed[MIO_TYPE_Q5_K] = (pk_kernel){pk_q5_K, 8, 0, MIO_TYPE_Q8_K, "q5_Kx8/avx2"};
    k->packed[MIO_TYPE_Q6_K] = (pk_kernel){pk_q6_K, 8, 0, MIO_TYPE_Q8_K, "q6_Kx8/avx2"};
    k->packed[MIO_TYPE_IQ4_NL] = (pk_kernel){pk_iq4_nl, 8, 0, MIO_TYPE_Q8_0, "iq4_nlx8/avx2"};
    k->packed[MIO_TYPE_IQ4_XS] = (pk_kernel){pk_iq4_xs, 8, 0, MIO_TYPE_Q8_K, "iq4_xsx8/avx2"};
}
