/* SPDX-License-Identifier: MIT */
/* packed_avx512.c — AVX-512 VNNI kernels of the packed layouts
 * (kernels/packed_kernels.h): q4_0x16 and q8_0x16, tiles of 16 rows, one
 * 64-byte vector per 4 elements of the 16 rows, with up to RMAX activation rows
 * sharing each unpacked tile-block. vpdpbusd multiplies the unsigned weight
 * codes (q4_0: 0..15; q8_0: the stored code + 128) by the signed activation
 * codes broadcast to every lane and adds each lane's 4 products to its int32
 * without saturation; the accumulator starts at pk_act.s = -(8 or 128) * sum q,
 * which removes the offset exactly. Then acc += (dw * da) * (float)isum per
 * lane, blocks in order: the portable kernel's f32 operations (built without
 * FMA contraction). */
#include "kernels/avx512/avx512.h"

#include "modelio.h"

#include <immintrin.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 16") /* the register arrays need constant indices */
#define RMAX 8
#define RMAX_K 4 /* activation rows per pass of the K kernels (the remainder: 3, 2, 1) */
#define T 16

AI __m512i bcast32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

AI void store_rows(float *y, __m512 v, size_t n) {
    if (n >= T) _mm512_storeu_ps(y, v);
    else _mm512_mask_storeu_ps(y, (__mmask16)((1u << n) - 1), v);
}

AI void finish(__m512 *acc, __m512 dw, __m512i is, const pk_act *a, size_t o) {
    __m512 t = _mm512_mul_ps(_mm512_mul_ps(dw, _mm512_set1_ps(a->d[o])), _mm512_cvtepi32_ps(is));
    *acc = _mm512_add_ps(*acc, t);
}

/* iq4_nl's 16 values + 128: the unsigned operand of vpdpbusd (offset -128 * sum q) */
#define IQ4NL_U8 1, 24, 45, 63, 79, 93, 106, 118, (char)129, (char)141, (char)153, (char)166, (char)181, (char)197, \
                 (char)217, (char)241
AI __m512i iq4nl_tab(void) {
    return _mm512_broadcast_i32x4(_mm_setr_epi8(IQ4NL_U8));
}

/* q4 = 0: q8_0; 1: q4_0; 2: iq4_nl (q4_0's layout, the nibbles looked up in iq4nl_tab) */
AI void rows_vnni(const uint8_t *tp, size_t nb, int q4, const pk_act *a, size_t i0, int R, float *y, size_t ldy,
                  size_t n) {
    const size_t tb = q4 ? 18 * T : 34 * T;
    const __m512i tab = iq4nl_tab();
    __m512 acc[RMAX];
    const int8_t *aq[RMAX];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm512_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m512i m4 = _mm512_set1_epi8(0x0f);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        pk_ahead(blk, tb, i0);
        __m512i s32[RMAX];
        UNROLL for (int r = 0; r < R; r++) s32[r] = _mm512_set1_epi32(a->s[(i0 + (size_t)r) * a->s_stride + b]);
        if (q4) {
            UNROLL for (int g = 0; g < 4; g++) {
                __m512i q = _mm512_loadu_si512((const void *)(blk + 2 * T + 4 * T * g));
                __m512i lo = _mm512_and_si512(q, m4), hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
                if (q4 == 2) lo = _mm512_shuffle_epi8(tab, lo), hi = _mm512_shuffle_epi8(tab, hi);
                UNROLL for (int r = 0; r < R; r++) {
                    const int8_t *x = aq[r] + b * 32;
                    s32[r] = _mm512_dpbusd_epi32(s32[r], lo, bcast32(x + 4 * g));
                    s32[r] = _mm512_dpbusd_epi32(s32[r], hi, bcast32(x + 16 + 4 * g));
                }
            }
        } else {
            UNROLL for (int g = 0; g < 8; g++) {
                __m512i u = _mm512_loadu_si512((const void *)(blk + 2 * T + 4 * T * g));
                UNROLL for (int r = 0; r < R; r++) s32[r] = _mm512_dpbusd_epi32(s32[r], u, bcast32(aq[r] + b * 32 + 4 * g));
            }
        }
        __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)blk));
        UNROLL for (int r = 0; r < R; r++) finish(&acc[r], dw, s32[r], a, (i0 + (size_t)r) * a->d_stride + b);
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

/* row i0 + r's offset word k of super-block b (q8_K: the bsum pairs) */
AI __m512i sword(const pk_act *a, size_t i0, int r, size_t b, int k) {
    return _mm512_set1_epi32(a->s[(i0 + (size_t)r) * a->s_stride + 8 * b + (size_t)k]);
}
AI __m512i u8_32(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)); }
AI __m512i i8_32(const uint8_t *p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)); }

/* acc += (dw * da) * isum - (dmin * da) * summs for row i0 + r, summs by
 * vpdpwssd of the rows' (min, min) pairs (mins at mn, one byte per row per
 * sub-block) by the activation's bsum pairs */
AI void finish_min(__m512 *acc, __m512 dw, __m512 dm, __m512i is, const uint8_t *mn, const pk_act *a, size_t i0,
                   int r, size_t b) {
    __m512i sm = _mm512_setzero_si512();
    UNROLL for (int s = 0; s < 8; s++) {
        const __m512i v = u8_32(mn + T * s);
        sm = _mm512_dpwssd_epi32(sm, _mm512_or_si512(v, _mm512_slli_epi32(v, 16)), sword(a, i0, r, b, s));
    }
    const __m512 da = _mm512_set1_ps(a->d[(i0 + (size_t)r) * a->d_stride + b]);
    __m512 t1 = _mm512_mul_ps(_mm512_mul_ps(dw, da), _mm512_cvtepi32_ps(is));
    __m512 t2 = _mm512_mul_ps(_mm512_mul_ps(dm, da), _mm512_cvtepi32_ps(sm));
    *acc = _mm512_add_ps(*acc, _mm512_sub_ps(t1, t2));
}

/* q4_K x16 (2368-byte tile-blocks: d at 0, dmin at 32, scales at 64 + 16s,
 * mins at 192 + 16s, vector v at 320 + 64v) and q5_K x16 (2880 bytes: the
 * same with the 8 qh vectors at 320 + 64g and the qs vectors after them, at
 * 832 + 64v). Sub-block s: vpdpbusd of the low (s even) or high nibbles of
 * vectors 8(s / 2) .. + 7 (q5_K: with bit s of qh vector g as bit 4) from zero
 * (at most 32 * 31 * 128), times the scale (vpmulld), added to isum. SB
 * sub-blocks are summed at once (8 for one activation row, 4 for two, 2 for
 * more: 8 independent vpdpbusd chains), each vector loaded once for its two
 * sub-blocks. Then acc += (dw * da) * isum - (dmin * da) * summs. */
AI void q45_K_rows(const uint8_t *tp, size_t nb, const int five, const pk_act *a, size_t i0, int R, float *y,
                   size_t ldy, size_t n) {
    const int SB = R == 1 ? 8 : R == 2 ? 4 : 2;
    const size_t tb = five ? 180 * T : 148 * T, qs = five ? 52 * T : 20 * T;
    __m512 acc[RMAX_K];
    const int8_t *aq[RMAX_K];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm512_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m512i m4 = _mm512_set1_epi8(0x0f), m10 = _mm512_set1_epi8(0x10);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        pk_ahead(blk, tb, i0);
        __m512i is[RMAX_K];
        UNROLL for (int r = 0; r < R; r++) is[r] = _mm512_setzero_si512();
        UNROLL for (int s0 = 0; s0 < 8; s0 += SB) {
            __m512i t[8][RMAX_K];
            UNROLL for (int k = 0; k < SB; k++)
                UNROLL for (int r = 0; r < R; r++) t[k][r] = _mm512_setzero_si512();
            UNROLL for (int g = 0; g < 8; g++) {
                const __m512i qh = five ? _mm512_loadu_si512((const void *)(blk + 20 * T + 4 * T * g)) : m4;
                UNROLL for (int cc = 0; cc < 4; cc++) { /* constant bounds: a one-trip loop
                                                           would drop the annotation */
                    if (2 * cc >= SB) break;
                    const int c = s0 / 2 + cc;
                    __m512i q = _mm512_loadu_si512((const void *)(blk + qs + 32 * T * c + 4 * T * g));
                    __m512i lo = _mm512_and_si512(q, m4), hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
                    if (five) { /* bit 2c (2c + 1) of qh to bit 4: a | (b & c) is ternary-logic 0xF8 */
                        __m512i bl = c == 0 ? _mm512_slli_epi16(qh, 4) : c == 1 ? _mm512_slli_epi16(qh, 2)
                                     : c == 2 ? qh : _mm512_srli_epi16(qh, 2);
                        __m512i bh = c == 0 ? _mm512_slli_epi16(qh, 3) : c == 1 ? _mm512_slli_epi16(qh, 1)
                                     : c == 2 ? _mm512_srli_epi16(qh, 1) : _mm512_srli_epi16(qh, 3);
                        lo = _mm512_ternarylogic_epi32(lo, bl, m10, 0xF8);
                        hi = _mm512_ternarylogic_epi32(hi, bh, m10, 0xF8);
                    }
                    UNROLL for (int r = 0; r < R; r++) {
                        const int8_t *x = aq[r] + 256 * b + 64 * c + 4 * g;
                        t[2 * c - s0][r] = _mm512_dpbusd_epi32(t[2 * c - s0][r], lo, bcast32(x));
                        t[2 * c + 1 - s0][r] = _mm512_dpbusd_epi32(t[2 * c + 1 - s0][r], hi, bcast32(x + 32));
                    }
                }
            }
            UNROLL for (int k = 0; k < SB; k++) {
                const __m512i sc = u8_32(blk + 4 * T + T * (s0 + k));
                UNROLL for (int r = 0; r < R; r++) is[r] = _mm512_add_epi32(is[r], _mm512_mullo_epi32(t[k][r], sc));
            }
        }
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)blk));
        const __m512 dm = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 2 * T)));
        UNROLL for (int r = 0; r < R; r++) finish_min(&acc[r], dw, dm, is[r], blk + 12 * T, a, i0, r, b);
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}
AI void q4_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    q45_K_rows(tp, nb, 0, a, i0, R, y, ldy, n);
}
AI void q5_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    q45_K_rows(tp, nb, 1, a, i0, R, y, ldy, n);
}

/* q6_K x16 (3360-byte tile-blocks: d at 0, scales at 32 + 16k, then for
 * h = 0, 1 and g = 0..7 the vectors A, B, C at 288 + 192 (8h + g) + 0, 64,
 * 128). The three vectors of (h, g) are loaded once and give the unsigned
 * codes (code + 32) of 4 consecutive elements in each of the sub-blocks
 * 8h + 2s + g / 4, s = 0..3; vpdpbusd sums each sub-block from zero (4 or 8
 * of them at once: HB halves g / 4), times the scale (vpmulld). The +32 comes
 * back as -32 * sum_k sc[k] * bsum[k] (vpdpwssd of scale pairs by bsum
 * pairs). */
AI void q6_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    const int HB = R <= 2 ? 2 : 1;
    __m512 acc[RMAX_K];
    const int8_t *aq[RMAX_K];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm512_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m512i m4 = _mm512_set1_epi8(0x0f), m30 = _mm512_set1_epi8(0x30), m3f = _mm512_set1_epi8(0x3f);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 210 * T;
        pk_ahead(blk, 210 * T, i0);
        __m512i is[RMAX_K];
        UNROLL for (int r = 0; r < R; r++) is[r] = _mm512_setzero_si512();
        UNROLL for (int h = 0; h < 2; h++)
            UNROLL for (int h0 = 0; h0 < 2; h0 += HB) {
                __m512i t[8][RMAX_K]; /* [4 (half - h0) + s][r] */
                UNROLL for (int k = 0; k < 4 * HB; k++)
                    UNROLL for (int r = 0; r < R; r++) t[k][r] = _mm512_setzero_si512();
                UNROLL for (int g = 4 * h0; g < 4 * (h0 + HB); g++) {
                    const uint8_t *v = blk + 18 * T + 12 * T * (8 * h + g);
                    const __m512i A = _mm512_loadu_si512((const void *)v);
                    const __m512i B = _mm512_loadu_si512((const void *)(v + 4 * T));
                    const __m512i C = _mm512_loadu_si512((const void *)(v + 8 * T));
                    __m512i u[4];
                    /* a | (b & c): ternary-logic 0xF8 */
                    u[0] = _mm512_and_si512(A, m3f);
                    u[2] = _mm512_and_si512(B, m3f);
                    u[1] = _mm512_ternarylogic_epi32(_mm512_and_si512(C, m4), _mm512_srli_epi16(A, 2), m30, 0xF8);
                    u[3] = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(C, 4), m4),
                                                     _mm512_srli_epi16(B, 2), m30, 0xF8);
                    const int k0 = 4 * (g / 4 - h0);
                    UNROLL for (int s = 0; s < 4; s++)
                        UNROLL for (int r = 0; r < R; r++)
                            t[k0 + s][r] = _mm512_dpbusd_epi32(t[k0 + s][r], u[s],
                                                               bcast32(aq[r] + 256 * b + 128 * h + 32 * s + 4 * g));
                }
                UNROLL for (int hf = 0; hf < HB; hf++)
                    UNROLL for (int s = 0; s < 4; s++) {
                        const __m512i sc = i8_32(blk + 2 * T + T * (8 * h + 2 * s + h0 + hf));
                        UNROLL for (int r = 0; r < R; r++)
                            is[r] = _mm512_add_epi32(is[r], _mm512_mullo_epi32(t[4 * hf + s][r], sc));
                    }
            }
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)blk));
        UNROLL for (int r = 0; r < R; r++) {
            __m512i off = _mm512_setzero_si512();
            UNROLL for (int k = 0; k < 8; k++) {
                const __m512i sp = _mm512_mask_blend_epi16(0xAAAAAAAAu, i8_32(blk + 2 * T + T * 2 * k),
                                                           _mm512_slli_epi32(i8_32(blk + 2 * T + T * (2 * k + 1)), 16));
                off = _mm512_dpwssd_epi32(off, sp, sword(a, i0, r, b, k));
            }
            finish(&acc[r], dw, _mm512_sub_epi32(is[r], _mm512_slli_epi32(off, 5)), a,
                   (i0 + (size_t)r) * a->d_stride + b);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

/* iq4_xs x16 (2208-byte tile-blocks: d at 0, int8 scales (the 6-bit value
 * - 32) at 32 + 16g, vector 4g + k at 160 + 64 (4g + k): sub-block g's qs
 * bytes 4k .. 4k + 3, low nibbles elements 32g + 4k + i, high 32g + 16 + 4k + i).
 * vpdpbusd of the looked-up values + 128 from zero per sub-block (SB at once,
 * as q4_K), times the scale (vpmulld); the +128 comes back as
 * -128 * sum_g sc[g] * (bsum[2g] + bsum[2g + 1]) (vpdpwssd of (sc, sc) pairs by
 * the bsum pairs). Then acc += (dw * da) * isum. */
AI void iq4_xs_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    const int SB = R == 1 ? 8 : R == 2 ? 4 : 2;
    __m512 acc[RMAX_K];
    const int8_t *aq[RMAX_K];
    UNROLL for (int r = 0; r < R; r++) acc[r] = _mm512_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m512i m4 = _mm512_set1_epi8(0x0f), tab = iq4nl_tab();
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 138 * T;
        pk_ahead(blk, 138 * T, i0);
        __m512i is[RMAX_K];
        UNROLL for (int r = 0; r < R; r++) is[r] = _mm512_setzero_si512();
        UNROLL for (int g0 = 0; g0 < 8; g0 += SB) {
            __m512i t[8][RMAX_K];
            UNROLL for (int k = 0; k < SB; k++)
                UNROLL for (int r = 0; r < R; r++) t[k][r] = _mm512_setzero_si512();
            UNROLL for (int k = 0; k < 4; k++)
                UNROLL for (int g = g0; g < g0 + SB; g++) {
                    __m512i q = _mm512_loadu_si512((const void *)(blk + 10 * T + 4 * T * (4 * g + k)));
                    __m512i lo = _mm512_shuffle_epi8(tab, _mm512_and_si512(q, m4));
                    __m512i hi = _mm512_shuffle_epi8(tab, _mm512_and_si512(_mm512_srli_epi16(q, 4), m4));
                    UNROLL for (int r = 0; r < R; r++) {
                        const int8_t *x = aq[r] + 256 * b + 32 * g + 4 * k;
                        t[g - g0][r] = _mm512_dpbusd_epi32(t[g - g0][r], lo, bcast32(x));
                        t[g - g0][r] = _mm512_dpbusd_epi32(t[g - g0][r], hi, bcast32(x + 16));
                    }
                }
            UNROLL for (int k = 0; k < SB; k++) {
                const __m512i sc = i8_32(blk + 2 * T + T * (g0 + k));
                UNROLL for (int r = 0; r < R; r++) is[r] = _mm512_add_epi32(is[r], _mm512_mullo_epi32(t[k][r], sc));
            }
        }
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)blk));
        UNROLL for (int r = 0; r < R; r++) {
            __m512i off = _mm512_setzero_si512();
            UNROLL for (int g = 0; g < 8; g++) {
                const __m512i v = i8_32(blk + 2 * T + T * g);
                off = _mm512_dpwssd_epi32(off, _mm512_mask_blend_epi16(0xAAAAAAAAu, v, _mm512_slli_epi32(v, 16)),
                                          sword(a, i0, r, b, g));
            }
            finish(&acc[r], dw, _mm512_sub_epi32(is[r], _mm512_slli_epi32(off, 7)), a,
                   (i0 + (size_t)r) * a->d_stride + b);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

AI void q8_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    rows_vnni(tp, nb, 0, a, i0, R, y, ldy, n);
}
AI void q4_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    rows_vnni(tp, nb, 1, a, i0, R, y, ldy, n);
}
AI void iq4_nl_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    rows_vnni(tp, nb, 2, a, i0, R, y, ldy, n);
}

PK_TILE_LOOP(pk_q4_0, q4_0_rows, T, RMAX, _mm256_zeroupper())
PK_TILE_LOOP(pk_q8_0, q8_0_rows, T, RMAX, _mm256_zeroupper())
PK_TILE_LOOP(pk_iq4_nl, iq4_nl_rows, T, RMAX, _mm256_zeroupper())
PK_TILE_LOOP(pk_q4_K, q4_K_rows, T, RMAX_K, _mm256_zeroupper())
PK_TILE_LOOP(pk_q5_K, q5_K_rows, T, RMAX_K, _mm256_zeroupper())
PK_TILE_LOOP(pk_q6_K, q6_K_rows, T, RMAX_K, _mm256_zeroupper())
PK_TILE_LOOP(pk_iq4_xs, iq4_xs_rows, T, RMAX_K, _mm256_zeroupper())

void mio_avx512_fill_packed(mio_kernels *k) {
    k->packed[MIO_TYPE_Q4_0] = (pk_kernel){pk_q4_0, T, 8, MIO_TYPE_Q8_0, "q4_0x16/avx512-vnni"};
    k->packed[MIO_TYPE_Q8_0] = (pk_kernel){pk_q8_0, T, 128, MIO_TYPE_Q8_0, "q8_0x16/avx512-vnni"};
    k->packed[MIO_TYPE_Q4_K] = (pk_kernel){pk_q4_K, T, 0, MIO_TYPE_Q8_K, "q4_Kx16/avx512-vnni"};
    k->packed[MIO_TYPE_Q5_K] = (pk_kernel){pk_q5_K, T, 0, MIO_TYPE_Q8_K, "q5_Kx16/avx512-vnni"};
    k->packed[MIO_TYPE_Q6_K] = (pk_kernel){pk_q6_K, T, 0, MIO_TYPE_Q8_K, "q6_Kx16/avx512-vnni"};
    k->packed[MIO_TYPE_IQ4_NL] = (pk_kernel){pk_iq4_nl, T, 128, MIO_TYPE_Q8_0, "iq4_nlx16/avx512-vnni"};
    k->packed[MIO_TYPE_IQ4_XS] = (pk_kernel){pk_iq4_xs, T, 0, MIO_TYPE_Q8_K, "iq4_xsx16/avx512-vnni"};
}
