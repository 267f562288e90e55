/* SPDX-License-Identifier: MIT */
/* dot_avx2.c — the AVX2 dot back end's table entries (dot_avx2_legacy.c,
 * dot_avx2_kquants.c, dot_avx2_float.c) and the activation quantizers behind
 * mio_encode_f32 for q8_0, q8_1 and q8_K, byte-exact with the portable
 * encoders (quant/legacy.c q8_block / enc_q8_0 / enc_q8_1, quant/kquants.c
 * q8_encode_block) for every finite input:
 *  - q8_0 / q8_1: d = amax / 127 (a division), id = 1 / d (0 when d is 0),
 *    codes roundf(x * id) computed as the portable C does (truncate, then step
 *    by the exact fraction: half away from zero), all codes 0 when d or id is
 *    not finite; d stored as f16 by core/half.h (nearest even); q8_1's s is
 *    f16((float)(sum of codes) * d).
 *  - q8_K: mx = the first element of largest magnitude, iscale = -127 / mx,
 *    codes min(127, nearest-even(iscale * x)) (cvtps under the default rounding
 *    mode = the portable magic-number rounding, |iscale * x| <= 127.0001),
 *    bsums the int16 sums of 16 codes, d = 1 / iscale as f32; an all-zero
 *    block is all zero bytes; when iscale overflows (|mx| < 127 / FLT_MAX) the
 *    portable C's codes are all 0 (its rounding of +-inf and NaN ends in 0) and
 *    d = 1 / iscale = +-0. */
#include "kernels/avx2/dot_avx2.h"

#include "core/half.h"
#include "core/unaligned.h"
#include "kernels/legacy_kernels.h"

#include <math.h>

/* largest |x| of 8k floats at x (order-free: max of non-negative values) */
AI __m256 vabs(__m256 v) { return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
AI float hmax8(__m256 m) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
/* 4 x 8 int32 codes (-128..127) -> 32 bytes in element order */
AI __m256i pack32(__m256i q0, __m256i q1, __m256i q2, __m256i q3) {
    const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
    return _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
/* One 32-element block: the codes into q (32 bytes), their sum into *sum; returns d. */
AI float q8_32(const float *x, uint8_t *q, int *sum) {
    __m256 v[4];
    for (int k = 0; k < 4; k++) v[k] = _mm256_loadu_ps(x + 8 * k);
    const float amax = hmax8(_mm256_max_ps(_mm256_max_ps(vabs(v[0]), vabs(v[1])), _mm256_max_ps(vabs(v[2]), vabs(v[3]))));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    if (!lg_finite_scale(d, id)) {
        memset(q, 0, 32);
        *sum = 0;
        return d;
    }
    const __m256 vid = _mm256_set1_ps(id), h = _mm256_set1_ps(0.5f), mh = _mm256_set1_ps(-0.5f);
    __m256i c[4];
    for (int k = 0; k < 4; k++) {
        const __m256 t = _mm256_mul_ps(v[k], vid);
        const __m256i i = _mm256_cvttps_epi32(t);
        const __m256 f = _mm256_sub_ps(t, _mm256_cvtepi32_ps(i));
        /* compare masks are -1 where true: i + (f >= 0.5) - (f <= -0.5) */
        c[k] = _mm256_add_epi32(_mm256_sub_epi32(i, _mm256_castps_si256(_mm256_cmp_ps(f, h, _CMP_GE_OQ))),
                                _mm256_castps_si256(_mm256_cmp_ps(f, mh, _CMP_LE_OQ)));
    }
    *sum = hsum_i32(_mm256_add_epi32(_mm256_add_epi32(c[0], c[1]), _mm256_add_epi32(c[2], c[3])));
    _mm256_storeu_si256((__m256i *)(void *)q, pack32(c[0], c[1], c[2], c[3]));
    return d;
}

static void act_q8_0(const float *x, uint8_t *y, int64_t nb) {
    for (int64_t b = 0; b < nb; b++, x += 32, y += 34) {
        int sum;
        const float d = q8_32(x, y + 2, &sum);
        st16(y, half_from_f32(d));
    }
}

static void act_q8_1(const float *x, uint8_t *y, int64_t nb) {
    for (int64_t b = 0; b < nb; b++, x += 32, y += 36) {
        int sum;
        const float d = q8_32(x, y + 4, &sum);
        st16(y, half_from_f32(d));
        st16(y + 2, half_from_f32((float)sum * d));
    }
}

static void act_q8_K(const float *x, uint8_t *y, int64_t nb) {
    for (int64_t b = 0; b < nb; b++, x += 256, y += 292) {
        __m256 m = _mm256_setzero_ps();
        for (int k = 0; k < 32; k++) m = _mm256_max_ps(m, vabs(_mm256_loadu_ps(x + 8 * k)));
        const float amax = hmax8(m);
        memset(y, 0, 292);
        if (!(amax != 0.0f)) continue;
        /* the first element of magnitude amax (the portable scan keeps the first) */
        const __m256 va = _mm256_set1_ps(amax);
        int j = 0;
        for (int k = 0; k < 32; k++) {
            const int mask = _mm256_movemask_ps(_mm256_cmp_ps(vabs(_mm256_loadu_ps(x + 8 * k)), va, _CMP_EQ_OQ));
            if (mask) {
                j = 8 * k + __builtin_ctz((unsigned)mask);
                break;
            }
        }
        float mx;
        memcpy(&mx, (const char *)x + 4 * (size_t)j, 4); /* x may be unaligned */
        const float iscale = -127.f / mx;
        const float d = 1 / iscale;
        stf32(y, d);
        if (!isfinite(iscale)) continue; /* every code 0 (see above) */
        const __m256 vs = _mm256_set1_ps(iscale);
        const __m256i c127 = _mm256_set1_epi32(127), ones = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
        for (int g = 0; g < 8; g++) {
            __m256i c[4];
            for (int k = 0; k < 4; k++)
                c[k] = _mm256_min_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(vs, _mm256_loadu_ps(x + 32 * g + 8 * k))), c127);
            const __m256i q = pack32(c[0], c[1], c[2], c[3]);
            _mm256_storeu_si256((__m256i *)(void *)(y + 4 + 32 * g), q);
            /* sums of 16 codes: pairs, quads (int32 lanes 0..3 = codes 0..15, 4..7 = 16..31) */
            const __m256i s4 = _mm256_madd_epi16(_mm256_maddubs_epi16(ones, q), ones16);
            const __m128i s = _mm_hadd_epi32(_mm256_castsi256_si128(s4), _mm256_extracti128_si256(s4, 1));
            const __m128i s2 = _mm_hadd_epi32(s, s); /* lanes: sum 0..15, sum 16..31 */
            st16(y + 260 + 4 * g, (uint16_t)(int16_t)_mm_cvtsi128_si32(s2));
            st16(y + 262 + 4 * g, (uint16_t)(int16_t)_mm_extract_epi32(s2, 1));
        }
    }
}

void mio_avx2_fill_dot(mio_kernels *k) {
    mio_avx2_dot_legacy(k);
    mio_avx2_dot_kquants(k);
    mio_avx2_dot_float(k);
    k->act_q8_0 = act_q8_0;
    k->act_q8_1 = act_q8_1;
    k->act_q8_K = act_q8_K;
}
