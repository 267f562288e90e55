/* SPDX-License-Identifier: MIT */
/* ternary.c — codecs for the ternary and 1/2-bit types: tq1_0 and tq2_0 (256
 * weights, base-3 and 2-bit trits, f16 scale last), q1_0 (128 weights, sign bits,
 * f16 mean |x| scale first) and q2_0 (64 weights, 2-bit codes -1..2, f16 max |x|
 * scale first). Byte-exact with ggml's reference quantizers, bit-exact decoders.
 * ggml ignores importance weights for all four, so enc_w is the plain encoder. */
#include "codec.h"
#include "core/half.h"

#include <math.h>
#include <string.h>

/* Every encoder below works on one block at a time with fixed-trip-count loops
 * over local copies (gcc's -O2 vectorizer takes those); the per-element
 * arithmetic is ggml's, re-expressed without libm calls:
 *  - ggml's codes come from lroundf(x * id) (tq*) or (int)roundf(x * id) (q2_0)
 *    with id = 1/max|x|, so |x * id| <= 1 + 1 ulp and the rounded value is
 *    (v >= 0.5) - (v <= -0.5) exactly (half away from zero);
 *  - when 1/max|x| overflows (max|x| <= 2^-128), every product is +-inf or NaN
 *    and x86's conversion gives the "integer indefinite" value: ggml's lroundf
 *    path then yields trit 1 everywhere (as id = 0 does), its (int)roundf path
 *    code 0 everywhere (INT_MIN + 1 clamped). */

static inline float block_amax(const float *v, int n) {
    float m[8] = {0};
    for (int k = 0; k < n; k += 8)
        for (int l = 0; l < 8; l++) {
            float a = fabsf(v[k + l]);
            m[l] = a > m[l] ? a : m[l];
        }
    float r = m[0];
    for (int l = 1; l < 8; l++) r = m[l] > r ? m[l] : r;
    return r;
}

/* lroundf(v) for |v| <= 1 + 1 ulp, as a float in {-1, 0, 1}. */
static inline float tern(float v) { return (float)((int32_t)(v >= 0.5f) - (int32_t)(v <= -0.5f)); }

/* 1/d as ggml computes it for the ternary types (0 for d = 0), with an
 * overflowed reciprocal replaced by 0 (see above). */
static inline float tern_inverse(float d) {
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    return id <= 3.40282347e38f ? id : 0.0f;
}

/* ggml's 8-bit fixed point of q trits (q = 0..242 as a float): the ceiling of
 * q * 256 / 243, i.e. (q * 256 + 242) / 243 in integers. Computed in float as
 * trunc((q * 256 + 242.5) * (float)(1/243)): the sum is exact, the true
 * quotient is at least 0.5/243 away from an integer and the two roundings move
 * it by less than 256 * 2^-23, so the truncation gives the integer result
 * (also verified exhaustively over the 243 values). */
static inline uint8_t tq1_fixed(float q) { return (uint8_t)(int32_t)((q * 256.0f + 242.5f) * (1.0f / 243.0f)); }

/* ---------------- tq1_0: 48 bytes of 5 trits, 4 bytes of 4 trits, f16 d ---------------- */
#define TQ1_BYTES 54
#define TQ1_QS 48
#define TQ1_QH 4

/* Byte layout (ggml's): byte m < 32 holds the trits of elements m + 32n
 * (n = 0..4, first most significant), bytes 32 + m (m < 16) those of
 * 160 + m + 16n, bytes 48 + j (j < 4) those of 240 + j + 4n (n = 0..3)
 * followed by one zero trit; each byte stores tq1_fixed of its base-3 value. */
static void enc_tq1_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 256, o += TQ1_BYTES) {
        float v[256], t[256], q[32];
        memcpy(v, x, sizeof v);
        const float d = block_amax(v, 256), id = tern_inverse(d);
        for (int j = 0; j < 256; j++) t[j] = tern(v[j] * id);
        /* trits are t + 1: the sum of 3^k over five trits is 121, over four 40 */
        for (int m = 0; m < 32; m++) q[m] = (((t[m] * 3 + t[32 + m]) * 3 + t[64 + m]) * 3 + t[96 + m]) * 3 + t[128 + m] + 121;
        for (int m = 0; m < 32; m++) o[m] = tq1_fixed(q[m]);
        const float *u = t + 160;
        for (int m = 0; m < 16; m++) q[m] = (((u[m] * 3 + u[16 + m]) * 3 + u[32 + m]) * 3 + u[48 + m]) * 3 + u[64 + m] + 121;
        for (int m = 0; m < 16; m++) o[32 + m] = tq1_fixed(q[m]);
        u = t + 240;
        for (int j = 0; j < TQ1_QH; j++) q[j] = (((u[j] * 3 + u[4 + j]) * 3 + u[8 + j]) * 3 + u[12 + j] + 40) * 3;
        for (int j = 0; j < TQ1_QH; j++) o[TQ1_QS + j] = tq1_fixed(q[j]);
        st16(o + TQ1_QS + TQ1_QH, half_from_f32(d));
    }
}

/* Trit n (0 = most significant) of byte q: ((q * 3^n mod 256) * 3) >> 8. */

static inline float tq1_trit(uint32_t q, uint32_t pow3) { return (float)((int32_t)((((q * pow3) & 255u) * 3u) >> 8) - 1); }

static void dec_tq1_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += TQ1_BYTES, y += 256) {
        const float d = half_to_f32(ld16(x + TQ1_QS + TQ1_QH));
        uint32_t q[32];
        for (int m = 0; m < 32; m++) q[m] = x[m];
        for (int m = 0; m < 32; m++) stf32(y + m, tq1_trit(q[m], 1) * d);
        for (int m = 0; m < 32; m++) stf32(y + 32 + m, tq1_trit(q[m], 3) * d);
        for (int m = 0; m < 32; m++) stf32(y + 64 + m, tq1_trit(q[m], 9) * d);
        for (int m = 0; m < 32; m++) stf32(y + 96 + m, tq1_trit(q[m], 27) * d);
        for (int m = 0; m < 32; m++) stf32(y + 128 + m, tq1_trit(q[m], 81) * d);
        for (int m = 0; m < 16; m++) q[m] = x[32 + m];
        for (int m = 0; m < 16; m++) stf32(y + 160 + m, tq1_trit(q[m], 1) * d);
        for (int m = 0; m < 16; m++) stf32(y + 176 + m, tq1_trit(q[m], 3) * d);
        for (int m = 0; m < 16; m++) stf32(y + 192 + m, tq1_trit(q[m], 9) * d);
        for (int m = 0; m < 16; m++) stf32(y + 208 + m, tq1_trit(q[m], 27) * d);
        for (int m = 0; m < 16; m++) stf32(y + 224 + m, tq1_trit(q[m], 81) * d);
        for (int j = 0; j < TQ1_QH; j++) q[j] = x[TQ1_QS + j];
        for (int j = 0; j < TQ1_QH; j++) stf32(y + 240 + j, tq1_trit(q[j], 1) * d);
        for (int j = 0; j < TQ1_QH; j++) stf32(y + 244 + j, tq1_trit(q[j], 3) * d);
        for (int j = 0; j < TQ1_QH; j++) stf32(y + 248 + j, tq1_trit(q[j], 9) * d);
        for (int j = 0; j < TQ1_QH; j++) stf32(y + 252 + j, tq1_trit(q[j], 27) * d);
    }
}

/* ---------------- tq2_0: 64 bytes of 2-bit trits, f16 d ---------------- */
#define TQ2_BYTES 66

/* Byte 32h + m holds the trits of elements 128h + m + 32n at bits 2n. */
static void enc_tq2_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 256, o += TQ2_BYTES) {
        float v[256], t[256];
        memcpy(v, x, sizeof v);
        const float d = block_amax(v, 256), id = tern_inverse(d);
        for (int j = 0; j < 256; j++) t[j] = tern(v[j] * id);
        /* trits are t + 1: 1 + 4 + 16 + 64 = 85 */
        for (int m = 0; m < 32; m++) o[m] = (uint8_t)(int32_t)(t[m] + 4 * t[32 + m] + 16 * t[64 + m] + 64 * t[96 + m] + 85);
        const float *u = t + 128;
        for (int m = 0; m < 32; m++) o[32 + m] = (uint8_t)(int32_t)(u[m] + 4 * u[32 + m] + 16 * u[64 + m] + 64 * u[96 + m] + 85);
        st16(o + 64, half_from_f32(d));
    }
}

static void dec_tq2_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += TQ2_BYTES, y += 256) {
        const float d = half_to_f32(ld16(x + 64));
        for (int half = 0; half < 2; half++) {
            uint32_t q[32];
            for (int m = 0; m < 32; m++) q[m] = x[32 * half + m];
            for (int n = 0; n < 4; n++)
                for (int m = 0; m < 32; m++) stf32(y + 128 * half + 32 * n + m, (float)((int32_t)((q[m] >> (2 * n)) & 3u) - 1) * d);
        }
    }
}

/* ---------------- q1_0: f16 d = mean |x|, 16 bytes of sign bits ---------------- */
#define Q1_BYTES 18

/* The 128 sign bits of a block: byte k, bit t = (x[8k + t] >= 0). The tests
 * go to bytes first (a loop the vectorizer takes), then each 8 bytes of 0/1
 * to one byte: the multiply moves byte t's bit to bit 56 + t. */
static void q1_signs(const float *x, uint8_t *o) {
    uint8_t c[128];
    for (int j = 0; j < 128; j++) c[j] = (uint8_t)(ldf32(x + j) >= 0.0f);
    for (int k = 0; k < 16; k++) {
        uint64_t w;
        memcpy(&w, c + 8 * k, 8);
        o[k] = (uint8_t)((w * 0x0102040810204080ull) >> 56);
    }
}

/* ggml sums |x| of a block in element order, a chain of 128 dependent adds:
 * four blocks' chains run interleaved (each still in element order, in
 * registers), so the adds of different blocks overlap. */
static void enc_q1_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    int64_t b = 0;
    for (; b + 4 <= nb; b += 4, x += 4 * 128, o += 4 * Q1_BYTES) {
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (int j = 0; j < 128; j++) {
            s0 += fabsf(ldf32(x + j));
            s1 += fabsf(ldf32(x + 128 + j));
            s2 += fabsf(ldf32(x + 256 + j));
            s3 += fabsf(ldf32(x + 384 + j));
        }
        const float sum[4] = {s0, s1, s2, s3};
        for (int l = 0; l < 4; l++) {
            st16(o + Q1_BYTES * l, half_from_f32(sum[l] / 128));
            q1_signs(x + 128 * l, o + Q1_BYTES * l + 2);
        }
    }
    for (; b < nb; b++, x += 128, o += Q1_BYTES) {
        float sum = 0.0f;
        for (int j = 0; j < 128; j++) sum += fabsf(ldf32(x + j));
        st16(o, half_from_f32(sum / 128));
        q1_signs(x, o + 2);
    }
}

static void dec_q1_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += Q1_BYTES, y += 128) {
        /* d for a set bit, -d (d with its sign bit flipped, as negation does) otherwise */
        const uint32_t db = half_f2u(half_to_f32(ld16(x)));
        uint8_t c[128];
        for (int k = 0; k < 16; k++) {
            /* bit t of byte k to byte t of a word: replicate, keep bit t in byte t, test */
            uint64_t w = (uint64_t)x[2 + k] * 0x0101010101010101ull & 0x8040201008040201ull;
            w = ((w + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
            memcpy(c + 8 * k, &w, 8);
        }
        for (int j = 0; j < 128; j++) st32(y + j, db ^ (uint32_t)(c[j] ^ 1u) << 31);
    }
}

/* ---------------- q2_0: f16 d = max |x|, 16 bytes of 2-bit codes (q-1)*d ---------------- */
#define Q2_BYTES 18

/* Byte k holds the codes of elements 4k..4k+3 at bits 0, 2, 4, 6. */
static void enc_q2_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 64, o += Q2_BYTES) {
        float v[64];
        uint8_t c[64];
        memcpy(v, x, sizeof v);
        const float amax = block_amax(v, 64);
        const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        st16(o, half_from_f32(amax));
        if (!(id <= 3.40282347e38f)) { /* 1/amax overflowed: ggml's codes are all 0 (see above) */
            memset(o + 2, 0, 16);
            continue;
        }
        for (int j = 0; j < 64; j++) c[j] = (uint8_t)(int32_t)(tern(v[j] * id) + 1.0f);
        /* four 2-bit codes, one per byte of w, gathered into the low byte */
        for (int k = 0; k < 16; k++) {
            uint32_t w = ld32(c + 4 * k);
            o[2 + k] = (uint8_t)(w | w >> 6 | w >> 12 | w >> 18);
        }
    }
}

static void dec_q2_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += Q2_BYTES, y += 64) {
        const float d = half_to_f32(ld16(x));
        uint8_t c[64];
        for (int k = 0; k < 16; k++) { /* code t of byte k to byte t of a word */
            uint32_t w = x[2 + k];
            w = (w | w << 6 | w << 12 | w << 18) & 0x03030303u;
            memcpy(c + 4 * k, &w, 4);
        }
        for (int j = 0; j < 64; j++) stf32(y + j, (float)((int32_t)c[j] - 1) * d);
    }
}

/* Importance weights: ggml's quantize_<type> for these types ignores them, so
 * the weighted encode of one row is the plain encode of its blocks. */
#define UNWEIGHTED(name, enc, bs)                                                          \
    static void name(const float *x, void *y, int64_t n_per_row, const float *qw) {       \
        (void)qw;                                                                          \
        enc(x, y, n_per_row / (bs));                                                       \
    }
UNWEIGHTED(encw_tq1_0, enc_tq1_0, 256)
UNWEIGHTED(encw_tq2_0, enc_tq2_0, 256)
UNWEIGHTED(encw_q1_0, enc_q1_0, 128)
UNWEIGHTED(encw_q2_0, enc_q2_0, 64)

void mio_codec_register_ternary(mio_codec *t) {
    t[MIO_TYPE_TQ1_0] = (mio_codec){enc_tq1_0, encw_tq1_0, dec_tq1_0, NULL, true};
    t[MIO_TYPE_TQ2_0] = (mio_codec){enc_tq2_0, encw_tq2_0, dec_tq2_0, NULL, true};
    t[MIO_TYPE_Q1_0] = (mio_codec){enc_q1_0, encw_q1_0, dec_q1_0, NULL, true};
    t[MIO_TYPE_Q2_0] = (mio_codec){enc_q2_0, encw_q2_0, dec_q2_0, NULL, true};
}
