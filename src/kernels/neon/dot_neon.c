/* SPDX-License-Identifier: MIT */
/* dot_neon.c — NEON dotprod dot-product kernels (contract: dot/dot_internal.h;
 * field loads: kernels/dot_kernels.h).
 *
 * Every kernel keeps the portable C's arithmetic exactly (src/dot/dot_legacy.c,
 * dot_kquants.c, dot_float.c), so its results equal the portable C's bit for
 * bit:
 *  - quantized types: the weight codes of a block (or of a chunk of LCH legacy
 *    blocks) are unpacked ONCE with vector shifts/masks/table lookups to int8
 *    and then used for every activation row; the integer sums (vdotq_s32: four
 *    lanes of four int8 products each; sub-block scales applied per lane with
 *    vmlaq_n_s32; the q8_K bsums . mins with widening int16 products) are exact,
 *    reduced with vaddvq_s32, and each block adds its one rescale to the row's
 *    f32 accumulator in block order with the portable C's expression;
 *  - f32/f16/bf16: the portable C's f32 summation (dot/dot_float.c): f32
 *    products into 32 partial sums (element i to sum i % 32: 8 float32x4
 *    accumulators, multiply then add, no FMA) and its pairwise fold.
 * Rows never interact: row i's result does not depend on m. */
#include "kernels/neon/neon.h"

#include "kernels/dot_kernels.h"
#include "modelio.h"

#include <arm_neon.h>

#define QK 32
#define QK_K 256
#define LCH 16 /* legacy blocks unpacked per chunk */

/* ------------------------------------------------------------ small helpers */

static const int8_t k_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
static const int8_t k_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}; /* e2m1 x 2 */

static inline int8x16_t s8(uint8x16_t x) { return vreinterpretq_s8_u8(x); }

/* f16 -> f32 with the conversion instruction: the same value as dot_f16p for
 * every non-NaN input (exact), a NaN for a NaN */
static inline float f16h(const uint8_t *p) {
    __fp16 h;
    memcpy(&h, p, 2);
    return (float)h;
}

/* 32 int8 codes at v against 32 at q (exact) */
static inline int32_t idot32(const int8_t *v, const int8_t *q) {
    int32x4_t p = vdotq_s32(vdupq_n_s32(0), vld1q_s8(v), vld1q_s8(q));
    p = vdotq_s32(p, vld1q_s8(v + 16), vld1q_s8(q + 16));
    return vaddvq_s32(p);
}

/* 2^(e - 128) as ggml's e8m0 "half" conversion gives it (e = 0, 1: subnormal) */
static inline float e8m0_half(uint8_t e) {
    uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    return dot_u2f(bits);
}

/* The 32 high bits of q5_0 / q5_1 (bit j: element j) as bytes 0x10 / 0. */
static inline void high_bits32(uint32_t qh, uint8x16_t *lo, uint8x16_t *hi) {
    static const uint8_t idx_lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    static const uint8_t idx_hi[16] = {2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
    static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t b = vreinterpretq_u8_u32(vdupq_n_u32(qh)), m = vld1q_u8(bit), h = vdupq_n_u8(0x10);
    *lo = vandq_u8(vtstq_u8(vqtbl1q_u8(b, vld1q_u8(idx_lo)), m), h);
    *hi = vandq_u8(vtstq_u8(vqtbl1q_u8(b, vld1q_u8(idx_hi)), m), h);
}

/* ------------------------------------------------- legacy 32-element blocks */
/* Unpackers: block x -> v[32] (element j), the scale *d and the offset *mw. */

static inline void up_q4_0(const uint8_t *x, int8_t *v, float *d, float *mw) {
    const uint8x16_t qs = vld1q_u8(x + 2), off = vdupq_n_u8(8);
    vst1q_s8(v, s8(vsubq_u8(vandq_u8(qs, vdupq_n_u8(15)), off)));
    vst1q_s8(v + 16, s8(vsubq_u8(vshrq_n_u8(qs, 4), off)));
    *d = f16h(x);
    (void)mw;
}
static inline void up_q4_1(const uint8_t *x, int8_t *v, float *d, float *mw) {
    const uint8x16_t qs = vld1q_u8(x + 4);
    vst1q_s8(v, s8(vandq_u8(qs, vdupq_n_u8(15))));
    vst1q_s8(v + 16, s8(vshrq_n_u8(qs, 4)));
    *d = f16h(x);
    *mw = f16h(x + 2);
}
static inline void up_q5_0(const uint8_t *x, int8_t *v, float *d, float *mw) {
    uint8x16_t hl, hh;
    high_bits32(dot_ld32(x + 2), &hl, &hh);
    const uint8x16_t qs = vld1q_u8(x + 6), off = vdupq_n_u8(16);
    vst1q_s8(v, s8(vsubq_u8(vorrq_u8(vandq_u8(qs, vdupq_n_u8(15)), hl), off)));
    vst1q_s8(v + 16, s8(vsubq_u8(vorrq_u8(vshrq_n_u8(qs, 4), hh), off)));
    *d = f16h(x);
    (void)mw;
}
static inline void up_q5_1(const uint8_t *x, int8_t *v, float *d, float *mw) {
    uint8x16_t hl, hh;
    high_bits32(dot_ld32(x + 4), &hl, &hh);
    const uint8x16_t qs = vld1q_u8(x + 8);
    vst1q_s8(v, s8(vorrq_u8(vandq_u8(qs, vdupq_n_u8(15)), hl)));
    vst1q_s8(v + 16, s8(vorrq_u8(vshrq_n_u8(qs, 4), hh)));
    *d = f16h(x);
    *mw = f16h(x + 2);
}
static inline void up_q8_0(const uint8_t *x, int8_t *v, float *d, float *mw) {
    vst1q_s8(v, vld1q_s8((const int8_t *)x + 2));
    vst1q_s8(v + 16, vld1q_s8((const int8_t *)x + 18));
    *d = f16h(x);
    (void)mw;
}
static inline void up_tab(const uint8_t *qs_p, const int8_t *tab, int8_t *v) {
    const int8x16_t t = vld1q_s8(tab);
    const uint8x16_t qs = vld1q_u8(qs_p);
    vst1q_s8(v, vqtbl1q_s8(t, vandq_u8(qs, vdupq_n_u8(15))));
    vst1q_s8(v + 16, vqtbl1q_s8(t, vshrq_n_u8(qs, 4)));
}
static inline void up_iq4_nl(const uint8_t *x, int8_t *v, float *d, float *mw) {
    up_tab(x + 2, k_iq4nl, v);
    *d = f16h(x);
    (void)mw;
}
static inline void up_mxfp4(const uint8_t *x, int8_t *v, float *d, float *mw) {
    up_tab(x + 1, k_mxfp4, v);
    *d = e8m0_half(x[0]);
    (void)mw;
}

/* Symmetric types . q8_0 (34-byte blocks: f16 d, 32 int8):
 *   out += (dw * da) * isum
 * Offset types . q8_1 (36-byte blocks: f16 d, f16 s, 32 int8):
 *   out += (dw * da) * isum + mw * sa */
#define LEG_DOT(name, WB, UNPACK, OFS)                                                                       \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        enum { AB = (OFS) ? 36 : 34, QO = (OFS) ? 4 : 2 };                                                   \
        _Alignas(16) int8_t v[LCH * QK];                                                                     \
        float dw[LCH] = {0}, mw[LCH] = {0};                                                                  \
        for (size_t r = 0; r < m; r++) out[r] = 0.0f;                                                        \
        for (size_t b0 = 0; b0 < nb; b0 += LCH) {                                                            \
            const size_t nc = nb - b0 < LCH ? nb - b0 : LCH;                                                 \
            for (size_t k = 0; k < nc; k++) UNPACK(w + (b0 + k) * (WB), v + QK * k, &dw[k], &mw[k]);         \
            for (size_t r = 0; r < m; r++) {                                                                 \
                const uint8_t *y = a + r * a_stride + b0 * AB;                                               \
                float acc = out[r];                                                                          \
                for (size_t k = 0; k < nc; k++, y += AB) {                                                   \
                    const int32_t isum = idot32(v + QK * k, (const int8_t *)(y + QO));                       \
                    if (OFS)                                                                                 \
                        acc += (dw[k] * f16h(y)) * (float)isum + mw[k] * f16h(y + 2);                \
                    else                                                                                     \
                        acc += (dw[k] * f16h(y)) * (float)isum;                                          \
                }                                                                                            \
                out[r] = acc;                                                                                \
            }                                                                                                \
        }                                                                                                    \
    }

LEG_DOT(n_q4_0, 18, up_q4_0, 0)
LEG_DOT(n_q5_0, 22, up_q5_0, 0)
LEG_DOT(n_q8_0, 34, up_q8_0, 0)
LEG_DOT(n_iq4_nl, 18, up_iq4_nl, 0)
LEG_DOT(n_mxfp4, 17, up_mxfp4, 0)
LEG_DOT(n_q4_1, 20, up_q4_1, 1)
LEG_DOT(n_q5_1, 24, up_q5_1, 1)

/* ------------------------------------------------ 256-element super-blocks */
/* Unpackers: super-block x -> v[256] (element j), integer sub-block scales
 * sc[] (16 of 16 elements or 8 of 32), the 16 mins per 16 q8_K codes (types
 * with a min), *dw and *dmin. Layouts: see dot/dot_kquants.c. */

/* bits 2s..2s+1 of each byte */
static inline uint8x16_t crumb(uint8x16_t x, int s) {
    return vandq_u8(vshlq_u8(x, vdupq_n_s8((int8_t)(-2 * s))), vdupq_n_u8(3));
}

static inline void up_q2_K(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < 2; t++) {
            const uint8x16_t qs = vld1q_u8(x + 16 + 32 * h + 16 * t);
            for (int s = 0; s < 4; s++) vst1q_s8(v + 128 * h + 32 * s + 16 * t, s8(crumb(qs, s)));
        }
    for (int k = 0; k < 16; k++) {
        sc[k] = x[k] & 15;
        mins16[k] = (int16_t)(x[k] >> 4);
    }
    *dw = f16h(x + 80);
    *dmin = f16h(x + 82);
}

static inline void up_q3_K(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    const uint8_t *hm = x, *qs = x + 32, *s8p = x + 96;
    const uint8x16_t four = vdupq_n_u8(4);
    for (int t = 0; t < 2; t++) {
        const uint8x16_t hmv = vld1q_u8(hm + 16 * t);
        for (int h = 0; h < 2; h++) {
            const uint8x16_t q = vld1q_u8(qs + 32 * h + 16 * t);
            for (int s = 0; s < 4; s++) {
                /* minus 4 where the high-mask bit 4h+s is clear */
                const uint8x16_t set = vtstq_u8(hmv, vdupq_n_u8((uint8_t)(1u << (4 * h + s))));
                vst1q_s8(v + 128 * h + 32 * s + 16 * t, s8(vsubq_u8(crumb(q, s), vbicq_u8(four, set))));
            }
        }
    }
    for (int k = 0; k < 16; k++) {
        int lo = k < 8 ? s8p[k] & 15 : s8p[k - 8] >> 4;
        int hi = (s8p[8 + k % 4] >> (2 * (k / 4))) & 3;
        sc[k] = (lo | (hi << 4)) - 32;
    }
    *dw = f16h(x + 108);
    (void)mins16, (void)dmin;
}

/* the 6-bit scale/min pairs of q4_K / q5_K (12 bytes at q, 8 pairs) */
static inline void scales_k4(const uint8_t *q, int32_t *sc, int16_t *mins16) {
    for (int j = 0; j < 8; j++) {
        int mn;
        if (j < 4) {
            sc[j] = q[j] & 63;
            mn = q[j + 4] & 63;
        } else {
            sc[j] = (q[j + 4] & 15) | ((q[j - 4] >> 6) << 4);
            mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
        }
        mins16[2 * j] = mins16[2 * j + 1] = (int16_t)mn;
    }
}

static inline void up_q45_K(const uint8_t *x, int five, int8_t *v, int32_t *sc, int16_t *mins16, float *dw,
                            float *dmin) {
    const uint8_t *qh = x + 16, *qs = x + (five ? 48 : 16);
    const uint8x16_t m4 = vdupq_n_u8(15), sixteen = vdupq_n_u8(16);
    for (int t = 0; t < 2; t++) {
        const uint8x16_t qhv = five ? vld1q_u8(qh + 16 * t) : vdupq_n_u8(0);
        for (int c = 0; c < 4; c++) {
            const uint8x16_t q = vld1q_u8(qs + 32 * c + 16 * t);
            uint8x16_t lo = vandq_u8(q, m4), hi = vshrq_n_u8(q, 4);
            if (five) {
                lo = vorrq_u8(lo, vandq_u8(vtstq_u8(qhv, vdupq_n_u8((uint8_t)(1u << (2 * c)))), sixteen));
                hi = vorrq_u8(hi, vandq_u8(vtstq_u8(qhv, vdupq_n_u8((uint8_t)(2u << (2 * c)))), sixteen));
            }
            vst1q_s8(v + 64 * c + 16 * t, s8(lo));
            vst1q_s8(v + 64 * c + 32 + 16 * t, s8(hi));
        }
    }
    scales_k4(x + 4, sc, mins16);
    *dw = f16h(x);
    *dmin = f16h(x + 2);
}
static inline void up_q4_K(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    up_q45_K(x, 0, v, sc, mins16, dw, dmin);
}
static inline void up_q5_K(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    up_q45_K(x, 1, v, sc, mins16, dw, dmin);
}

static inline void up_q6_K(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    const uint8_t *ql = x, *qh = x + 128;
    const uint8x16_t m4 = vdupq_n_u8(15), off = vdupq_n_u8(32);
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < 2; t++) {
            const uint8x16_t hv = vld1q_u8(qh + 32 * h + 16 * t);
            const uint8x16_t l0 = vld1q_u8(ql + 64 * h + 16 * t), l1 = vld1q_u8(ql + 64 * h + 32 + 16 * t);
            const uint8x16_t lo[4] = {vandq_u8(l0, m4), vandq_u8(l1, m4), vshrq_n_u8(l0, 4), vshrq_n_u8(l1, 4)};
            for (int s = 0; s < 4; s++)
                vst1q_s8(v + 128 * h + 32 * s + 16 * t, s8(vsubq_u8(vorrq_u8(lo[s], vshlq_n_u8(crumb(hv, s), 4)), off)));
        }
    for (int k = 0; k < 16; k++) sc[k] = (int8_t)x[192 + k];
    *dw = f16h(x + 208);
    (void)mins16, (void)dmin;
}

/* tq1_0: base-3 digit l of a byte b is ((uint8_t)(b * 3^l) * 3) >> 8; value digit - 1 */
static inline int8x16_t trit(uint8x16_t b, uint8x16_t pow3) {
    const uint8x16_t q = vmulq_u8(b, pow3), three = vdupq_n_u8(3);
    const uint8x16_t d = vcombine_u8(vshrn_n_u16(vmull_u8(vget_low_u8(q), vget_low_u8(three)), 8),
                                     vshrn_n_u16(vmull_high_u8(q, three), 8));
    return s8(vsubq_u8(d, vdupq_n_u8(1)));
}
static inline void up_tq1_0(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    const uint8x16_t a0 = vld1q_u8(x), a1 = vld1q_u8(x + 16), b = vld1q_u8(x + 32);
    for (int l = 0; l < 5; l++) {
        const uint8x16_t p = vdupq_n_u8(pow3[l]);
        vst1q_s8(v + 32 * l, trit(a0, p));
        vst1q_s8(v + 32 * l + 16, trit(a1, p));
        vst1q_s8(v + 160 + 16 * l, trit(b, p));
    }
    /* qh[j] digit l -> element 240 + 4l + j */
    static const uint8_t idx[16] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    static const uint8_t pw[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    const uint8x16_t qh = vqtbl1q_u8(vreinterpretq_u8_u32(vdupq_n_u32(dot_ld32(x + 48))), vld1q_u8(idx));
    vst1q_s8(v + 240, trit(qh, vld1q_u8(pw)));
    *dw = f16h(x + 52);
    (void)sc, (void)mins16, (void)dmin;
}

static inline void up_tq2_0(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    const uint8x16_t one = vdupq_n_u8(1);
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < 2; t++) {
            const uint8x16_t q = vld1q_u8(x + 32 * h + 16 * t);
            for (int l = 0; l < 4; l++) vst1q_s8(v + 128 * h + 32 * l + 16 * t, s8(vsubq_u8(crumb(q, l), one)));
        }
    *dw = f16h(x + 64);
    (void)sc, (void)mins16, (void)dmin;
}

static inline void up_iq4_xs(const uint8_t *x, int8_t *v, int32_t *sc, int16_t *mins16, float *dw, float *dmin) {
    const uint16_t h = dot_ld16(x + 2);
    for (int g = 0; g < 8; g++) {
        int lo = (x[4 + g / 2] >> (4 * (g % 2))) & 15, hi = (h >> (2 * g)) & 3;
        sc[g] = (lo | (hi << 4)) - 32;
        up_tab(x + 8 + 16 * g, k_iq4nl, v + 32 * g);
    }
    *dw = f16h(x);
    (void)mins16, (void)dmin;
}

/* isum = sum_g sc[g] * (sub-block g of v . q), sub-blocks of G = 16 or 32, or
 * G = 0: no scales, the plain 256-element dot */
static inline int32_t kdot(const int8_t *v, const int8_t *q, const int32_t *sc, int G) {
    int32x4_t acc = vdupq_n_s32(0);
    if (G == 16) {
        for (int g = 0; g < 16; g++)
            acc = vmlaq_n_s32(acc, vdotq_s32(vdupq_n_s32(0), vld1q_s8(v + 16 * g), vld1q_s8(q + 16 * g)), sc[g]);
    } else if (G == 32) {
        for (int g = 0; g < 8; g++) {
            int32x4_t p = vdotq_s32(vdupq_n_s32(0), vld1q_s8(v + 32 * g), vld1q_s8(q + 32 * g));
            p = vdotq_s32(p, vld1q_s8(v + 32 * g + 16), vld1q_s8(q + 32 * g + 16));
            acc = vmlaq_n_s32(acc, p, sc[g]);
        }
    } else {
        for (int j = 0; j < QK_K; j += 16) acc = vdotq_s32(acc, vld1q_s8(v + j), vld1q_s8(q + j));
    }
    return vaddvq_s32(acc);
}

/* sum_k bsums[k] * mins16[k] over the 16 int16 bsums of a q8_K block */
static inline int32_t bsum_dot(const uint8_t *bs, const int16_t *mins16) {
    const int16x8_t b0 = vreinterpretq_s16_u8(vld1q_u8(bs)), b1 = vreinterpretq_s16_u8(vld1q_u8(bs + 16));
    const int16x8_t m0 = vld1q_s16(mins16), m1 = vld1q_s16(mins16 + 8);
    int32x4_t s = vmull_s16(vget_low_s16(b0), vget_low_s16(m0));
    s = vmlal_high_s16(s, b0, m0);
    s = vmlal_s16(s, vget_low_s16(b1), vget_low_s16(m1));
    s = vmlal_high_s16(s, b1, m1);
    return vaddvq_s32(s);
}

/* . q8_K (292-byte blocks: f32 d, 256 int8, 16 int16 bsums):
 *   out += (dw * da) * isum [- (dmin * da) * summs] */
#define K_DOT(name, WB, G, HAS_MIN, UNPACK)                                                                  \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        _Alignas(16) int8_t v[QK_K];                                                                         \
        _Alignas(16) int16_t mins16[16] = {0};                                                               \
        int32_t sc[16] = {0};                                                                                \
        float dw = 0.0f, dmin = 0.0f;                                                                        \
        for (size_t r = 0; r < m; r++) out[r] = 0.0f;                                                        \
        for (size_t b = 0; b < nb; b++) {                                                                    \
            UNPACK(w + b * (WB), v, sc, mins16, &dw, &dmin);                                                 \
            for (size_t r = 0; r < m; r++) {                                                                 \
                const uint8_t *y = a + r * a_stride + b * 292;                                               \
                const float da = dot_ldf(y);                                                                 \
                const int32_t isum = kdot(v, (const int8_t *)(y + 4), sc, G);                                \
                if (HAS_MIN)                                                                                 \
                    out[r] += (dw * da) * (float)isum - (dmin * da) * (float)bsum_dot(y + 260, mins16);      \
                else                                                                                         \
                    out[r] += (dw * da) * (float)isum;                                                       \
            }                                                                                                \
        }                                                                                                    \
    }

K_DOT(n_q2_K, 84, 16, 1, up_q2_K)
K_DOT(n_q3_K, 110, 16, 0, up_q3_K)
K_DOT(n_q4_K, 144, 32, 1, up_q4_K)
K_DOT(n_q5_K, 176, 32, 1, up_q5_K)
K_DOT(n_q6_K, 210, 16, 0, up_q6_K)
K_DOT(n_tq1_0, 54, 0, 0, up_tq1_0)
K_DOT(n_tq2_0, 66, 0, 0, up_tq2_0)
K_DOT(n_iq4_xs, 136, 32, 0, up_iq4_xs)

/* ------------------------------------------------------------ float types */
/* 4 consecutive elements as f32 (exact conversions); loaded as bytes (any
 * alignment), reinterpreted as lanes (little-endian) */
static inline float32x4_t ld4_f32(const uint8_t *p) { return vreinterpretq_f32_u8(vld1q_u8(p)); }
static inline float32x4_t ld4_f16(const uint8_t *p) { return vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(p))); }
static inline float32x4_t ld4_bf16(const uint8_t *p) {
    return vreinterpretq_f32_u32(vshll_n_u16(vreinterpret_u16_u8(vld1_u8(p)), 16));
}
static inline float ld1_f32(const uint8_t *p) { return dot_ldf(p); }
static inline float ld1_f16(const uint8_t *p) { return f16h(p); }
static inline float ld1_bf16(const uint8_t *p) { return dot_bf16(dot_ld16(p)); }

/* dot/dot_float.c's scheme: 32 partial sums (8 registers, lane = element %
 * 32), f32 products (vmulq then vaddq: no FMA, as the portable C), the tail
 * added to the stored sums element by element, the same pairwise fold: the
 * portable C's floats bit for bit. */
#define F_DOT(name, ES, LD4, LD1)                                                                            \
    static void name(const uint8_t *w, size_t n, const uint8_t *a, size_t a_stride, size_t m, float *out) {  \
        for (size_t r = 0; r < m; r++) {                                                                     \
            const uint8_t *ar = a + r * a_stride;                                                            \
            float32x4_t s[8];                                                                                \
            for (int k = 0; k < 8; k++) s[k] = vdupq_n_f32(0);                                               \
            size_t i = 0;                                                                                    \
            for (; i + 32 <= n; i += 32)                                                                     \
                for (int k = 0; k < 8; k++)                                                                  \
                    s[k] = vaddq_f32(s[k], vmulq_f32(LD4(w + (i + 4 * k) * (ES)), LD4(ar + (i + 4 * k) * (ES)))); \
            float t[MIO_FDOT_LANES];                                                                         \
            for (int k = 0; k < 8; k++) vst1q_f32(t + 4 * k, s[k]);                                          \
            for (size_t j = i; j < n; j++) t[j - i] += LD1(w + j * (ES)) * LD1(ar + j * (ES));               \
            out[r] = mio_fdot_fold(t);                                                                       \
        }                                                                                                    \
    }

F_DOT(n_f32, 4, ld4_f32, ld1_f32)
F_DOT(n_f16, 2, ld4_f16, ld1_f16)
F_DOT(n_bf16, 2, ld4_bf16, ld1_bf16)

void mio_neon_fill_dot(mio_kernels *k) {
    k->dot[MIO_TYPE_Q4_0] = n_q4_0;
    k->dot[MIO_TYPE_Q4_1] = n_q4_1;
    k->dot[MIO_TYPE_Q5_0] = n_q5_0;
    k->dot[MIO_TYPE_Q5_1] = n_q5_1;
    k->dot[MIO_TYPE_Q8_0] = n_q8_0;
    k->dot[MIO_TYPE_IQ4_NL] = n_iq4_nl;
    k->dot[MIO_TYPE_MXFP4] = n_mxfp4;
    k->dot[MIO_TYPE_Q2_K] = n_q2_K;
    k->dot[MIO_TYPE_Q3_K] = n_q3_K;
    k->dot[MIO_TYPE_Q4_K] = n_q4_K;
    k->dot[MIO_TYPE_Q5_K] = n_q5_K;
    k->dot[MIO_TYPE_Q6_K] = n_q6_K;
    k->dot[MIO_TYPE_TQ1_0] = n_tq1_0;
    k->dot[MIO_TYPE_TQ2_0] = n_tq2_0;
    k->dot[MIO_TYPE_IQ4_XS] = n_iq4_xs;
    k->dot[MIO_TYPE_F32] = n_f32;
    k->dot[MIO_TYPE_F16] = n_f16;
    k->dot[MIO_TYPE_BF16] = n_bf16;
}
