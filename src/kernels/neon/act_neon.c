/* SPDX-License-Identifier: MIT */
/* act_neon.c — NEON activation quantizers (kernels.h: act_q8_0, act_q8_1,
 * act_q8_K), byte-exact with the portable encoders (quant/legacy.c q8_block,
 * quant/kquants.c q8_encode_block) for finite input:
 *  - the absolute maximum is order-free (vmaxvq);
 *  - q8_0 / q8_1: t = x * (1/d) as there, rounded half away from zero
 *    (vcvtaq_s32_f32 = roundf); the f16 fields through core/half.h;
 *  - q8_K: iscale = -127 / (the first element of largest magnitude), codes
 *    min(127, nearest-even(iscale * x)) (vcvtnq_s32_f32 = the magic-number
 *    rounding of kq_nearest_int for |t| < 2^22), bsums of 16, d = 1 / iscale;
 *    when iscale overflows (a subnormal maximum) every code is 0, as there. */
#include "kernels/neon/neon.h"

#include "core/half.h"
#include "kernels/legacy_kernels.h"

#include <arm_neon.h>
#include <math.h>
#include <string.h>

static inline void st16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* the input floats may have any alignment: loaded as bytes */
static inline float32x4_t ld4(const uint8_t *p) { return vreinterpretq_f32_u8(vld1q_u8(p)); }

/* 8 int32x4 codes (|c| <= 127) narrowed to 32 int8 at q */
static inline void narrow32(const int32x4_t *c, int8_t *q) {
    for (int h = 0; h < 2; h++) {
        const int16x8_t a = vcombine_s16(vmovn_s32(c[4 * h]), vmovn_s32(c[4 * h + 1]));
        const int16x8_t b = vcombine_s16(vmovn_s32(c[4 * h + 2]), vmovn_s32(c[4 * h + 3]));
        vst1q_s8(q + 16 * h, vcombine_s8(vmovn_s16(a), vmovn_s16(b)));
    }
}

/* 32 floats at x -> codes at q; returns d (zero codes when d or 1/d is not finite) */
static inline float q8_block32(const uint8_t *x, int8_t *q) {
    float32x4_t v[8], m = vdupq_n_f32(0);
    for (int i = 0; i < 8; i++) {
        v[i] = ld4(x + 16 * i);
        m = vmaxq_f32(m, vabsq_f32(v[i]));
    }
    const float d = vmaxvq_f32(m) / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    if (!lg_finite_scale(d, id)) {
        memset(q, 0, 32);
        return d;
    }
    int32x4_t c[8];
    for (int i = 0; i < 8; i++) c[i] = vcvtaq_s32_f32(vmulq_n_f32(v[i], id));
    narrow32(c, q);
    return d;
}

static void act_q8_0(const float *xf, uint8_t *y, int64_t nb) {
    const uint8_t *x = (const uint8_t *)xf;
    for (int64_t b = 0; b < nb; b++, x += 128, y += 34) {
        int8_t q[32];
        const float d = q8_block32(x, q);
        st16(y, half_from_f32(d));
        memcpy(y + 2, q, 32);
    }
}

static void act_q8_1(const float *xf, uint8_t *y, int64_t nb) {
    const uint8_t *x = (const uint8_t *)xf;
    for (int64_t b = 0; b < nb; b++, x += 128, y += 36) {
        int8_t q[32];
        const float d = q8_block32(x, q);
        const int sum = vaddlvq_s8(vld1q_s8(q)) + vaddlvq_s8(vld1q_s8(q + 16));
        st16(y, half_from_f32(d));
        st16(y + 2, half_from_f32((float)sum * d));
        memcpy(y + 4, q, 32);
    }
}

static void act_q8_K(const float *xf, uint8_t *y, int64_t nb) {
    const uint8_t *x = (const uint8_t *)xf;
    for (int64_t b = 0; b < nb; b++, x += 1024, y += 292) {
        float32x4_t m = vdupq_n_f32(0);
        for (int i = 0; i < 256; i += 4) m = vmaxq_f32(m, vabsq_f32(ld4(x + 4 * i)));
        const float amax = vmaxvq_f32(m);
        memset(y, 0, 292);
        if (!(amax != 0)) continue;
        float mx = 0;
        for (int j = 0; j < 256; j++) {
            float xj;
            memcpy(&xj, x + 4 * j, 4);
            if (fabsf(xj) == amax) {
                mx = xj;
                break;
            }
        }
        const float iscale = -127.f / mx;
        if (!(fabsf(iscale) <= 3.40282347e38f)) {
            /* mx subnormal: iscale * x is inf or NaN, which the portable
             * magic-number rounding turns into code 0 (bsums 0) */
            const float d = 1 / iscale;
            memcpy(y, &d, 4);
            continue;
        }
        const int32x4_t top = vdupq_n_s32(127);
        int8_t *qs = (int8_t *)(y + 4);
        for (int g = 0; g < 8; g++) {
            int32x4_t c[8];
            for (int i = 0; i < 8; i++)
                c[i] = vminq_s32(vcvtnq_s32_f32(vmulq_n_f32(ld4(x + 128 * g + 16 * i), iscale)), top);
            narrow32(c, qs + 32 * g);
        }
        for (int j = 0; j < 16; j++) st16(y + 260 + 2 * j, (uint16_t)vaddlvq_s8(vld1q_s8(qs + 16 * j)));
        const float d = 1 / iscale;
        memcpy(y, &d, 4);
    }
}

void mio_neon_fill_act(mio_kernels *k) {
    k->act_q8_0 = act_q8_0;
    k->act_q8_1 = act_q8_1;
    k->act_q8_K = act_q8_K;
}
