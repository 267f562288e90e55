/* fp4.c — codecs for the 4-bit float types: mxfp4 (32 weights: one E8M0 scale
 * byte + 16 bytes of E2M1 nibble pairs) and nvfp4 (64 weights: four UE4M3 scale
 * bytes, one per 16, + 32 bytes of E2M1 nibble pairs). Byte-exact with ggml's
 * reference quantizers (nearest code, first wins), bit-exact decoders. */
#include "codec.h"

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

/* Index of the code whose scaled value is nearest to v; ties keep the lower index. */
static unsigned nearest_code(float v, float d) {
    unsigned best = 0;
    float best_err = fabsf(g_e2m1[0] * d - v);
    for (unsigned i = 1; i < 16; i++) {
        float err = fabsf(g_e2m1[i] * d - v);
        if (err < best_err) { best = i; best_err = err; }
    }
    return best;
}

static float amax_of(const float *x, int n) {
    float amax = 0.0f;
    for (int j = 0; j < n; j++) {
        float a = fabsf(codec_ldf(x + j));
        if (amax < a) amax = a;
    }
    return amax;
}

/* ggml stores floor(log2(amax)) - 2 + 127 through a float -> uint8_t cast, which
 * x86-64 performs as a 32-bit integer conversion keeping the low byte. */
static uint8_t mxfp4_exponent(float amax) {
    if (!(amax > 0.0f)) return 0;
    float f = floorf(log2f(amax)) - 2 + 127;
    return (uint8_t)(uint32_t)(int32_t)f;
}

/* ---------------- mxfp4 ---------------- */
static void enc_mxfp4(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 32, o += 17) {
        uint8_t e = mxfp4_exponent(amax_of(x, 32));
        float d = e8m0_half(e);
        o[0] = e;
        for (int j = 0; j < 16; j++) o[1 + j] = (uint8_t)(nearest_code(codec_ldf(x + j), d) | nearest_code(codec_ldf(x + 16 + j), d) << 4);
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
static void enc_nvfp4(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, o += 36)
        for (int s = 0; s < 4; s++, x += 16) {
            uint8_t u = ue4m3_of(amax_of(x, 16) / 6.0f);
            float d = ue4m3_half(u);
            o[s] = u;
            for (int j = 0; j < 8; j++)
                o[4 + 8 * s + j] = (uint8_t)(nearest_code(codec_ldf(x + j), d) | nearest_code(codec_ldf(x + 8 + j), d) << 4);
        }
}

static void dec_nvfp4(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += 36)
        for (int s = 0; s < 4; s++, y += 16) {
            float d = ue4m3_half(x[s]);
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

void codec_register_fp4(mio_codec *t) {
    for (unsigned c = 0; c < 16; c++) g_e2m1[c] = (float)e2m1_twice(c);
    t[MIO_TYPE_MXFP4] = (mio_codec){enc_mxfp4, encw_mxfp4, dec_mxfp4, NULL, true};
    t[MIO_TYPE_NVFP4] = (mio_codec){enc_nvfp4, encw_nvfp4, dec_nvfp4, NULL, true};
}
