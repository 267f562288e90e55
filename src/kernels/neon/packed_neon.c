/* SPDX-License-Identifier: MIT */
/* packed_neon.c — NEON dotprod kernels of the packed layouts
 * (kernels/packed_kernels.h), tiles of T = 8 rows: every 4T-byte vector of
 * the layout is two 16-byte registers (rows 0..3, rows 4..7). vdotq_s32 is
 * signed x signed, so the weight codes are used as int8 directly: q4_0's
 * nibbles (0..15, the -8 offset back as -8 * sum q in pk_act.s), q8_0's stored
 * byte XOR 0x80 (the signed code again), iq4_nl/iq4_xs's nibbles looked up
 * as signed values (vqtbl1q_s8), the K types' unsigned codes (q4_K 0..15,
 * q5_K 0..31, q6_K 0..63 with -32 * sum sc * bsum). One vdotq_s32 against
 * the 4 activation codes broadcast to every lane adds row j's 4 products into
 * lane j. Sub-blocks are summed from zero and multiplied by the rows' scales
 * (vmlaq_s32, exact); the mins and offsets use the q8_K bsums.
 * Arithmetic: the portable kernels' f32 operations in their order (this file
 * is built without FMA contraction): acc += (dw * da) * isum
 * [- (dmin * da) * summs], so results equal the portable C bit for bit.
 * Checked under qemu (tests/neon/: test_packed, interop_dot against ggml's
 * arm64 build); not tuned on arm64 hardware. */
#include "kernels/neon/neon.h"

#include "modelio.h"

#include <arm_neon.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 16") /* the register arrays need constant indices */
#define T 8
#define RMAX 4   /* activation rows per pass, 32-element types */
#define RMAX_K 2 /* super-block types (their arrays are RMAX long, as the remainder passes read) */

/* iq4_nl's (and iq4_xs's) 16 values */
static const int8_t k_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

AI int8x16_t bcast32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return vreinterpretq_s8_s32(vdupq_n_s32(v));
}
AI int8x16_t s8(uint8x16_t v) { return vreinterpretq_s8_u8(v); }
AI uint8x16_t ld(const uint8_t *p) { return vld1q_u8(p); }
/* 4 f16 at p as f32 */
AI float32x4_t f16x4(const uint8_t *p) {
    float16x4_t h;
    memcpy(&h, p, 8);
    return vcvt_f32_f16(h);
}
/* 8 bytes (one per row) as two int32x4, unsigned or signed */
AI void u8x8(const uint8_t *p, int32x4_t *lo, int32x4_t *hi) {
    uint16x8_t w = vmovl_u8(vld1_u8(p));
    *lo = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(w)));
    *hi = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(w)));
}
AI void i8x8(const uint8_t *p, int32x4_t *lo, int32x4_t *hi) {
    int16x8_t w = vmovl_s8(vld1_s8((const int8_t *)(const void *)p));
    *lo = vmovl_s16(vget_low_s16(w));
    *hi = vmovl_s16(vget_high_s16(w));
}
/* the 16 bsums of row i's q8_K block b (pk_act.s words as int16 pairs) */
AI void bsums(const pk_act *a, size_t i, size_t b, int16_t *bs) { memcpy(bs, a->s + i * a->s_stride + 8 * b, 32); }

/* lanes of (v0, v1) into y[0..n-1] */
AI void store_rows(float *y, float32x4_t v0, float32x4_t v1, size_t n) {
    if (n >= T) {
        vst1q_f32(y, v0);
        vst1q_f32(y + 4, v1);
        return;
    }
    float t[T];
    vst1q_f32(t, v0);
    vst1q_f32(t + 4, v1);
    memcpy(y, t, n * sizeof(float));
}

/* zero accumulators and the code rows of activation rows i0 .. i0 + R - 1 */
AI void rows_begin(float32x4_t (*acc)[2], const int8_t **aq, const pk_act *a, size_t i0, int R) {
    UNROLL for (int r = 0; r < R; r++) {
        acc[r][0] = acc[r][1] = vdupq_n_f32(0.0f);
        aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    }
}

/* acc += (dw * da) * isum, per half */
AI void finish(float32x4_t *acc, float32x4_t dw, int32x4_t is, float da) {
    *acc = vaddq_f32(*acc, vmulq_f32(vmulq_n_f32(dw, da), vcvtq_f32_s32(is)));
}

/* The 32-element types: mode 0 q8_0 (272-byte tile-blocks), 1 q4_0, 2 iq4_nl
 * (144 bytes: the T f16 scales, 4 vectors of 32 bytes). */
AI void rows_legacy(const uint8_t *tp, size_t nb, int mode, const pk_act *a, size_t i0, int R, float *y, size_t ldy,
                    size_t n) {
    const size_t tb = mode ? 144 : 272;
    const uint8x16_t m4 = vdupq_n_u8(0x0f), flip = vdupq_n_u8(0x80);
    const int8x16_t tab = vld1q_s8(k_iq4nl);
    float32x4_t acc[RMAX][2];
    const int8_t *aq[RMAX];
    rows_begin(acc, aq, a, i0, R);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        int32x4_t s[RMAX][2];
        UNROLL for (int r = 0; r < R; r++) s[r][0] = s[r][1] = vdupq_n_s32(a->s[(i0 + (size_t)r) * a->s_stride + b]);
        if (mode) {
            UNROLL for (int g = 0; g < 4; g++) {
                int8x16_t lo[2], hi[2];
                UNROLL for (int h = 0; h < 2; h++) {
                    uint8x16_t q = ld(blk + 16 + 32 * g + 16 * h);
                    lo[h] = s8(vandq_u8(q, m4));
                    hi[h] = s8(vshrq_n_u8(q, 4));
                    if (mode == 2) lo[h] = vqtbl1q_s8(tab, vreinterpretq_u8_s8(lo[h])), hi[h] = vqtbl1q_s8(tab, vreinterpretq_u8_s8(hi[h]));
                }
                UNROLL for (int r = 0; r < R; r++) {
                    const int8x16_t xl = bcast32(aq[r] + 32 * b + 4 * g), xh = bcast32(aq[r] + 32 * b + 16 + 4 * g);
                    UNROLL for (int h = 0; h < 2; h++) s[r][h] = vdotq_s32(vdotq_s32(s[r][h], lo[h], xl), hi[h], xh);
                }
            }
        } else {
            UNROLL for (int g = 0; g < 8; g++) {
                const int8x16_t w0 = s8(veorq_u8(ld(blk + 16 + 32 * g), flip)), w1 = s8(veorq_u8(ld(blk + 32 + 32 * g), flip));
                UNROLL for (int r = 0; r < R; r++) {
                    const int8x16_t x = bcast32(aq[r] + 32 * b + 4 * g);
                    s[r][0] = vdotq_s32(s[r][0], w0, x);
                    s[r][1] = vdotq_s32(s[r][1], w1, x);
                }
            }
        }
        const float32x4_t d0 = f16x4(blk), d1 = f16x4(blk + 8);
        UNROLL for (int r = 0; r < R; r++) {
            const float da = a->d[(i0 + (size_t)r) * a->d_stride + b];
            finish(&acc[r][0], d0, s[r][0], da);
            finish(&acc[r][1], d1, s[r][1], da);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r][0], acc[r][1], n);
}
AI void q8_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    rows_legacy(tp, nb, 0, a, i0, R, y, ldy, n);
}
AI void q4_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    rows_legacy(tp, nb, 1, a, i0, R, y, ldy, n);
}
AI void iq4_nl_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    rows_legacy(tp, nb, 2, a, i0, R, y, ldy, n);
}

/* q4_K x8 (1184-byte tile-blocks: d at 0, dmin at 16, scales at 32 + 8s, mins
 * at 96 + 8s, vector v at 160 + 32v) and q5_K x8 (1440 bytes: the 8 qh vectors
 * at 160 + 32g, the qs vectors at 416 + 32v). Sub-block s: the low (s even) or
 * high nibbles of vectors 8(s / 2) .. + 7 (q5_K: bit s of qh vector g as bit
 * 4), vdotq_s32 from zero, times the scales. */
AI void q45_K_rows(const uint8_t *tp, size_t nb, const int five, const pk_act *a, size_t i0, int R, float *y,
                   size_t ldy, size_t n) {
    const size_t tb = five ? 1440 : 1184, qs = five ? 416 : 160;
    const uint8x16_t m4 = vdupq_n_u8(0x0f), m10 = vdupq_n_u8(0x10);
    float32x4_t acc[RMAX][2];
    const int8_t *aq[RMAX];
    rows_begin(acc, aq, a, i0, R);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        int32x4_t is[RMAX][2];
        UNROLL for (int r = 0; r < R; r++) is[r][0] = is[r][1] = vdupq_n_s32(0);
        UNROLL for (int s = 0; s < 8; s++) {
            const uint8x16_t bit = vdupq_n_u8((uint8_t)(1u << s));
            int32x4_t t[RMAX][2];
            UNROLL for (int r = 0; r < R; r++) t[r][0] = t[r][1] = vdupq_n_s32(0);
            UNROLL for (int g = 0; g < 8; g++) {
                int8x16_t u[2];
                UNROLL for (int h = 0; h < 2; h++) {
                    uint8x16_t q = ld(blk + qs + 256 * (s / 2) + 32 * g + 16 * h);
                    q = s & 1 ? vshrq_n_u8(q, 4) : vandq_u8(q, m4);
                    if (five) q = vorrq_u8(q, vandq_u8(vtstq_u8(ld(blk + 160 + 32 * g + 16 * h), bit), m10));
                    u[h] = s8(q);
                }
                UNROLL for (int r = 0; r < R; r++) {
                    const int8x16_t x = bcast32(aq[r] + 256 * b + 32 * s + 4 * g);
                    t[r][0] = vdotq_s32(t[r][0], u[0], x);
                    t[r][1] = vdotq_s32(t[r][1], u[1], x);
                }
            }
            int32x4_t sc0, sc1;
            u8x8(blk + 32 + 8 * s, &sc0, &sc1);
            UNROLL for (int r = 0; r < R; r++) {
                is[r][0] = vmlaq_s32(is[r][0], t[r][0], sc0);
                is[r][1] = vmlaq_s32(is[r][1], t[r][1], sc1);
            }
        }
        const float32x4_t d0 = f16x4(blk), d1 = f16x4(blk + 8), m0 = f16x4(blk + 16), m1 = f16x4(blk + 24);
        UNROLL for (int r = 0; r < R; r++) {
            int16_t bs[16];
            bsums(a, i0 + (size_t)r, b, bs);
            int32x4_t sm0 = vdupq_n_s32(0), sm1 = vdupq_n_s32(0);
            UNROLL for (int s = 0; s < 8; s++) {
                int32x4_t mn0, mn1;
                u8x8(blk + 96 + 8 * s, &mn0, &mn1);
                const int32_t S = (int32_t)bs[2 * s] + bs[2 * s + 1];
                sm0 = vmlaq_n_s32(sm0, mn0, S);
                sm1 = vmlaq_n_s32(sm1, mn1, S);
            }
            const float da = a->d[(i0 + (size_t)r) * a->d_stride + b];
            float32x4_t t1 = vmulq_f32(vmulq_n_f32(d0, da), vcvtq_f32_s32(is[r][0]));
            float32x4_t t2 = vmulq_f32(vmulq_n_f32(m0, da), vcvtq_f32_s32(sm0));
            acc[r][0] = vaddq_f32(acc[r][0], vsubq_f32(t1, t2));
            t1 = vmulq_f32(vmulq_n_f32(d1, da), vcvtq_f32_s32(is[r][1]));
            t2 = vmulq_f32(vmulq_n_f32(m1, da), vcvtq_f32_s32(sm1));
            acc[r][1] = vaddq_f32(acc[r][1], vsubq_f32(t1, t2));
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r][0], acc[r][1], n);
}
AI void q4_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    q45_K_rows(tp, nb, 0, a, i0, R, y, ldy, n);
}
AI void q5_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    q45_K_rows(tp, nb, 1, a, i0, R, y, ldy, n);
}

/* q6_K x8 (1680-byte tile-blocks: d at 0, scales at 16 + 8k, the vectors A, B,
 * C of (h, g) at 144 + 96 (8h + g) + 0, 32, 64). Sub-block k = 8h + 2s + half:
 * the codes + 32 of element group g (4 half .. + 3), vdotq_s32 from zero, times
 * the scales; the +32 back as -32 * sum_k sc[k] * bsum[k]. */
AI void q6_K_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    const uint8x16_t m0f = vdupq_n_u8(0x0f), m3f = vdupq_n_u8(0x3f);
    float32x4_t acc[RMAX][2];
    const int8_t *aq[RMAX];
    rows_begin(acc, aq, a, i0, R);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 1680;
        int32x4_t is[RMAX][2];
        UNROLL for (int r = 0; r < R; r++) is[r][0] = is[r][1] = vdupq_n_s32(0);
        UNROLL for (int h = 0; h < 2; h++)
            UNROLL for (int s = 0; s < 4; s++)
                UNROLL for (int half = 0; half < 2; half++) {
                    int32x4_t t[RMAX][2];
                    UNROLL for (int r = 0; r < R; r++) t[r][0] = t[r][1] = vdupq_n_s32(0);
                    UNROLL for (int g = 4 * half; g < 4 * half + 4; g++) {
                        int8x16_t u[2];
                        UNROLL for (int e = 0; e < 2; e++) {
                            const uint8_t *v = blk + 144 + 96 * (8 * h + g) + 16 * e;
                            const uint8x16_t A = ld(v), B = ld(v + 32), C = ld(v + 64);
                            uint8x16_t c = s == 0   ? vandq_u8(A, m3f)
                                           : s == 2 ? vandq_u8(B, m3f)
                                           : s == 1 ? vbslq_u8(m0f, C, vshrq_n_u8(A, 2))
                                                    : vbslq_u8(m0f, vshrq_n_u8(C, 4), vshrq_n_u8(B, 2));
                            u[e] = s8(c);
                        }
                        UNROLL for (int r = 0; r < R; r++) {
                            const int8x16_t x = bcast32(aq[r] + 256 * b + 128 * h + 32 * s + 4 * g);
                            t[r][0] = vdotq_s32(t[r][0], u[0], x);
                            t[r][1] = vdotq_s32(t[r][1], u[1], x);
                        }
                    }
                    int32x4_t sc0, sc1;
                    i8x8(blk + 16 + 8 * (8 * h + 2 * s + half), &sc0, &sc1);
                    UNROLL for (int r = 0; r < R; r++) {
                        is[r][0] = vmlaq_s32(is[r][0], t[r][0], sc0);
                        is[r][1] = vmlaq_s32(is[r][1], t[r][1], sc1);
                    }
                }
        const float32x4_t d0 = f16x4(blk), d1 = f16x4(blk + 8);
        UNROLL for (int r = 0; r < R; r++) {
            int16_t bs[16];
            bsums(a, i0 + (size_t)r, b, bs);
            int32x4_t o0 = vdupq_n_s32(0), o1 = vdupq_n_s32(0);
            UNROLL for (int k = 0; k < 16; k++) {
                int32x4_t sc0, sc1;
                i8x8(blk + 16 + 8 * k, &sc0, &sc1);
                o0 = vmlaq_n_s32(o0, sc0, bs[k]);
                o1 = vmlaq_n_s32(o1, sc1, bs[k]);
            }
            const float da = a->d[(i0 + (size_t)r) * a->d_stride + b];
            finish(&acc[r][0], d0, vsubq_s32(is[r][0], vshlq_n_s32(o0, 5)), da);
            finish(&acc[r][1], d1, vsubq_s32(is[r][1], vshlq_n_s32(o1, 5)), da);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r][0], acc[r][1], n);
}

/* iq4_xs x8 (1104-byte tile-blocks: d at 0, int8 scales at 16 + 8g, vector
 * 4g + k at 80 + 32 (4g + k)). Sub-block g: the looked-up values of its 4
 * vectors' low (elements 32g + 4k + i) and high (32g + 16 + 4k + i) nibbles,
 * vdotq_s32 from zero, times the scales. */
AI void iq4_xs_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    const int8x16_t tab = vld1q_s8(k_iq4nl);
    const uint8x16_t m4 = vdupq_n_u8(0x0f);
    float32x4_t acc[RMAX][2];
    const int8_t *aq[RMAX];
    rows_begin(acc, aq, a, i0, R);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 1104;
        int32x4_t is[RMAX][2];
        UNROLL for (int r = 0; r < R; r++) is[r][0] = is[r][1] = vdupq_n_s32(0);
        UNROLL for (int g = 0; g < 8; g++) {
            int32x4_t t[RMAX][2];
            UNROLL for (int r = 0; r < R; r++) t[r][0] = t[r][1] = vdupq_n_s32(0);
            UNROLL for (int k = 0; k < 4; k++) {
                int8x16_t lo[2], hi[2];
                UNROLL for (int e = 0; e < 2; e++) {
                    const uint8x16_t q = ld(blk + 80 + 32 * (4 * g + k) + 16 * e);
                    lo[e] = vqtbl1q_s8(tab, vandq_u8(q, m4));
                    hi[e] = vqtbl1q_s8(tab, vshrq_n_u8(q, 4));
                }
                UNROLL for (int r = 0; r < R; r++) {
                    const int8x16_t xl = bcast32(aq[r] + 256 * b + 32 * g + 4 * k);
                    const int8x16_t xh = bcast32(aq[r] + 256 * b + 32 * g + 16 + 4 * k);
                    UNROLL for (int e = 0; e < 2; e++) t[r][e] = vdotq_s32(vdotq_s32(t[r][e], lo[e], xl), hi[e], xh);
                }
            }
            int32x4_t sc0, sc1;
            i8x8(blk + 16 + 8 * g, &sc0, &sc1);
            UNROLL for (int r = 0; r < R; r++) {
                is[r][0] = vmlaq_s32(is[r][0], t[r][0], sc0);
                is[r][1] = vmlaq_s32(is[r][1], t[r][1], sc1);
            }
        }
        const float32x4_t d0 = f16x4(blk), d1 = f16x4(blk + 8);
        UNROLL for (int r = 0; r < R; r++) {
            const float da = a->d[(i0 + (size_t)r) * a->d_stride + b];
            finish(&acc[r][0], d0, is[r][0], da);
            finish(&acc[r][1], d1, is[r][1], da);
        }
    }
    UNROLL for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r][0], acc[r][1], n);
}

PK_TILE_LOOP(pk_q4_0, q4_0_rows, T, RMAX, (void)0)
PK_TILE_LOOP(pk_q8_0, q8_0_rows, T, RMAX, (void)0)
PK_TILE_LOOP(pk_iq4_nl, iq4_nl_rows, T, RMAX, (void)0)
PK_TILE_LOOP(pk_q4_K, q4_K_rows, T, RMAX_K, (void)0)
PK_TILE_LOOP(pk_q5_K, q5_K_rows, T, RMAX_K, (void)0)
PK_TILE_LOOP(pk_q6_K, q6_K_rows, T, RMAX_K, (void)0)
PK_TILE_LOOP(pk_iq4_xs, iq4_xs_rows, T, RMAX_K, (void)0)

void mio_neon_fill_packed(mio_kernels *k) {
    k->packed[MIO_TYPE_Q4_0] = (pk_kernel){pk_q4_0, T, 8, MIO_TYPE_Q8_0, "q4_0x8/neon-dotprod"};
    k->packed[MIO_TYPE_Q8_0] = (pk_kernel){pk_q8_0, T, 0, MIO_TYPE_Q8_0, "q8_0x8/neon-dotprod"};
    k->packed[MIO_TYPE_IQ4_NL] = (pk_kernel){pk_iq4_nl, T, 0, MIO_TYPE_Q8_0, "iq4_nlx8/neon-dotprod"};
    k->packed[MIO_TYPE_Q4_K] = (pk_kernel){pk_q4_K, T, 0, MIO_TYPE_Q8_K, "q4_Kx8/neon-dotprod"};
    k->packed[MIO_TYPE_Q5_K] = (pk_kernel){pk_q5_K, T, 0, MIO_TYPE_Q8_K, "q5_Kx8/neon-dotprod"};
    k->packed[MIO_TYPE_Q6_K] = (pk_kernel){pk_q6_K, T, 0, MIO_TYPE_Q8_K, "q6_Kx8/neon-dotprod"};
    k->packed[MIO_TYPE_IQ4_XS] = (pk_kernel){pk_iq4_xs, T, 0, MIO_TYPE_Q8_K, "iq4_xsx8/neon-dotprod"};
}
