/* SPDX-License-Identifier: MIT */
/* fp4.c — codecs for the 4-bit float types: mxfp4 (32 weights: one E8M0 scale
 * byte + 16 bytes of E2M1 nibble pairs) and nvfp4 (64 weights: four UE4M3 scale
 * bytes, one per 16, + 32 bytes of E2M1 nibble pairs). Byte-exact with ggml's
 * reference quantizers (nearest code, first wins), bit-exact decoders. */
#include "codec.h"
#include "kernels/kernels.h"

#include <math.h>
#include <string.h>

/* The 16 E2M1 codes (sign, 2 exponent bits, 1 mantissa bit) as twice their
 * value, so they are integers: ggml's codebook convention, with the scales
 * below returning half their value to compensate. Built from the bit layout. */
static int e2m1_twice(unsigned code) {
    unsigned e = (code >> 1) & 3, m = code & 1;
    int mag = e == 0 ? (int)m : (int)((2 + m) << (e - 1));
    return code & 8 ? -mag : mag;
}
static float g_e2m1[16]; /* twice the E2M1 values, as floats */
static float g_ue4m3_half[256]; /* ue4m3_half of every byte, built once */

/* E8M0 scale 2^(e-127), halved. */
static float e8m0_half(uint8_t e) {
    uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* UE4M3 scale (bit 7 ignored; 0 and 0x7f read as 0), halved. */
static float ue4m3_half(uint8_t u) {
    if (u == 0 || u == 0x7f) return 0.0f;
    int e = (u >> 3) & 15, m = u & 7;
    float raw = e == 0 ? ldexpf((float)m, -9) : ldexpf(1.0f + (float)m / 8.0f, e - 7);
    return raw * 0.5f;
}

/* Nearest UE4M3 (unsigned, saturating at 0x7e = 448), ggml's rounding. */
static uint8_t ue4m3_of(float x) {
    if (!(x > 0.0f)) return 0;
    if (x > 448.0f) x = 448.0f;
    uint32_t bits;
    memcpy(&bits, &x, 4);
    int e = (int)((bits >> 23) & 0xff) - 127 + 7;
    if (e <= 0) { /* subnormal: m * 2^-9 */
        int m = (int)(x * 512.0f + 0.5f);
        return m < 1 ? 0 : (uint8_t)(m > 7 ? 7 : m);
    }
    if (e >= 15) return 0x7e;
    int m = (int)((bits >> 20) & 7) + (int)((bits >> 19) & 1);
    if (m > 7) {
        m = 0;
        if (++e >= 15) return 0x7e;
    }
    return (uint8_t)((e << 3) | m);
}

/* ggml picks, for each x, the first of the 16 codes c minimising
 * |value(c) * d - x| (d >= 0). The search is folded onto the 8 non-negative
 * codes, exactly: for x >= 0 a negative code's error |-k*d - x| = k*d + x
 * rounds to at least x, the error of code 0, which comes first; for x < 0
 * likewise for the positive codes, and code 8 + i's error equals code i's for
 * |x| (IEEE rounding is symmetric), so the answer is code i's for |x|, moved
 * to 8 + i unless i = 0 (code 0 precedes code 8 = -0). The 7 comparisons run
 * over all n elements at once (fixed trip counts: the compiler vectorizes). */
static inline __attribute__((always_inline)) void e2m1_codes(const float *v, int n, float d, float *code) {
    float kd[8];
    for (int i = 0; i < 8; i++) kd[i] = g_e2m1[i] * d;
    const float k1 = kd[1], k2 = kd[2], k3 = kd[3], k4 = kd[4], k5 = kd[5], k6 = kd[6], k7 = kd[7];
    for (int j = 0; j < n; j++) {
        const float a = fabsf(v[j]);
        float best = a; /* code 0: |0 * d - a| = a */
        int32_t idx = 0;
        /* code i if strictly better (lt is all ones then); written out so that
         * the loop over j is innermost and vectorizes with everything in registers */
#define E2M1_TRY(i, k)                                                                                         \
        {                                                                                                      \
            const float err = fabsf((k) - a);                                                                  \
            const int32_t lt = -(int32_t)(err < best);                                                         \
            best = err < best ? err : best;                                                                    \
            idx = (idx & ~lt) | ((i) & lt);                                                                    \
        }
        E2M1_TRY(1, k1) E2M1_TRY(2, k2) E2M1_TRY(3, k3) E2M1_TRY(4, k4) E2M1_TRY(5, k5) E2M1_TRY(6, k6) E2M1_TRY(7, k7)
#undef E2M1_TRY
        code[j] = (float)(idx | (-(int32_t)(v[j] < 0.0f) & -(int32_t)(idx > 0) & 8));
    }
}

/* Largest |x| of n (a multiple of 8) floats, in 8 independent lanes (order-free). */
static inline float amax_of(const float *v, int n) {
    float m[8] = {0};
    for (int k = 0; k < n; k += 8)
        for (int l = 0; l < 8; l++) {
            const float a = fabsf(v[k + l]);
            m[l] = a > m[l] ? a : m[l];
        }
    float r = m[0];
    for (int l = 1; l < 8; l++) r = m[l] > r ? m[l] : r;
    return r;
}

/* ggml stores floor(log2(amax)) - 2 + 127 through a float -> uint8_t cast, which
 * x86-64 performs as a 32-bit integer conversion keeping the low byte. For a
 * normal amax whose significand is in [1 + 2^-7, 2 - 2^-7), log2f's result (error well
 * under 1e-3 here) is at least 0.005 from an integer on either side of the true
 * value, so its floor is the binary exponent: that case is read off the bits
 * (verified against glibc's log2f for all 2.1e9 such floats); every other value
 * takes ggml's libm path. */
static uint8_t mxfp4_exponent(float amax) {
    if (!(amax > 0.0f)) return 0;
    uint32_t bits;
    memcpy(&bits, &amax, 4);
    const uint32_t e = bits >> 23, frac = bits & 0x7fffffu;
    if (e >= 1 && e <= 254 && frac >= 0x10000u && frac < 0x7f0000u) return (uint8_t)(e - 2u);
    const float f = floorf(log2f(amax)) - 2 + 127;
    return (uint8_t)(uint32_t)(int32_t)f;
}

/* ---------------- mxfp4 ---------------- */
static const mio_kernels *K; /* the dispatch's kernels (kernels/kernels.h) */

/* Byte 1 + j holds the codes of elements j (low nibble) and 16 + j (high).
 * With a kernel the code search of a block runs 16 (8) elements per step,
 * each the loop of e2m1_codes exactly, from the same products kd. */
static void enc_mxfp4(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 32, o += 17) {
        float v[32], c[32];
        memcpy(v, x, sizeof v);
        const uint8_t e = mxfp4_exponent(amax_of(v, 32));
        o[0] = e;
        const float d = e8m0_half(e);
        if (K && K->mxfp4_codes) {
            float kd[8];
            for (int i = 0; i < 8; i++) kd[i] = g_e2m1[i] * d;
            K->mxfp4_codes(v, kd, o + 1);
            continue;
        }
        e2m1_codes(v, 32, d, c);
        for (int j = 0; j < 16; j++) o[1 + j] = (uint8_t)(int32_t)(c[j] + 16.0f * c[16 + j]);
    }
}

static void dec_mxfp4(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += 17, y += 32) {
        float d = e8m0_half(x[0]);
        for (int j = 0; j < 16; j++) {
            float lo = g_e2m1[x[1 + j] & 15] * d, hi = g_e2m1[x[1 + j] >> 4] * d;
            memcpy(y + j, &lo, 4);
            memcpy(y + 16 + j, &hi, 4);
        }
    }
}

/* ---------------- nvfp4 ---------------- */

/* Per 16 elements: scale byte s = nearest UE4M3 of max|x| / 6, then bytes
 * 4 + 8s + j hold the codes of elements 16s + j (low) and 16s + 8 + j (high). */
static void enc_nvfp4(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, o += 36)
        for (int s = 0; s < 4; s++, x += 16) {
            float v[16], c[16];
            memcpy(v, x, sizeof v);
            const uint8_t u = ue4m3_of(amax_of(v, 16) / 6.0f);
            o[s] = u;
            e2m1_codes(v, 16, g_ue4m3_half[u], c);
            for (int j = 0; j < 8; j++) o[4 + 8 * s + j] = (uint8_t)(int32_t)(c[j] + 16.0f * c[8 + j]);
        }
}

static void dec_nvfp4(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += 36)
        for (int s = 0; s < 4; s++, y += 16) {
            float d = g_ue4m3_half[x[s]];
            const uint8_t *q = x + 4 + 8 * s;
            for (int j = 0; j < 8; j++) {
                float lo = g_e2m1[q[j] & 15] * d, hi = g_e2m1[q[j] >> 4] * d;
                memcpy(y + j, &lo, 4);
                memcpy(y + 8 + j, &hi, 4);
            }
        }
}

/* ggml's quantize_mxfp4 / quantize_nvfp4 ignore importance weights. */
static void encw_mxfp4(const float *x, void *y, int64_t n_per_row, const float *qw) {
    (void)qw;
    enc_mxfp4(x, y, n_per_row / 32);
}
static void encw_nvfp4(const float *x, void *y, int64_t n_per_row, const float *qw) {
    (void)qw;
    enc_nvfp4(x, y, n_per_row / 64);
}

void mio_codec_register_fp4(mio_codec *t, const mio_kernels *k) {
    K = k;
    for (unsigned c = 0; c < 16; c++) g_e2m1[c] = (float)e2m1_twice(c);
    for (unsigned u = 0; u < 256; u++) g_ue4m3_half[u] = ue4m3_half((uint8_t)u);
    t[MIO_TYPE_MXFP4] = (mio_codec){enc_mxfp4, encw_mxfp4, dec_mxfp4, NULL, true};
    t[MIO_TYPE_NVFP4] = (mio_codec){enc_nvfp4, encw_nvfp4, dec_nvfp4, NULL, true};
}
