/* ternary.c — codecs for the ternary and 1/2-bit types: tq1_0 and tq2_0 (256
 * weights, base-3 and 2-bit trits, f16 scale last), q1_0 (128 weights, sign bits,
 * f16 mean |x| scale first) and q2_0 (64 weights, 2-bit codes -1..2, f16 max |x|
 * scale first). Byte-exact with ggml's reference quantizers, bit-exact decoders.
 * ggml ignores importance weights for all four, so enc_w is the plain encoder. */
#include "codec.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* ggml's float -> integer conversions, made explicit for inputs that are NaN or
 * out of range (which only happens when a block's scale is so small that its
 * reciprocal overflows): x86-64 converts those to the "integer indefinite"
 * value, LONG_MIN / INT_MIN, and ggml's code relies on what follows from that. */
static long lround_x86(float v) {
    if (!(v > -9.2233720e18f && v < 9.2233720e18f)) return LONG_MIN;
    return lroundf(v);
}
static int round_to_int_x86(float v) {
    float r = roundf(v);
    if (!(r >= -2147483648.0f && r < 2147483648.0f)) return INT_MIN;
    return (int)r;
}

/* A trit 0..2 as ggml computes it: lroundf(v) + 1 truncated to int (an
 * out-of-range lroundf gives LONG_MIN, whose low 32 bits are 0, so trit 1). */
static int trit_of(float v) {
    long l = lround_x86(v);
    return (int)(uint32_t)((unsigned long)l + 1ul);
}

static float block_amax(const float *x, int n) {
    float amax = 0.0f;
    for (int j = 0; j < n; j++) {
        float a = fabsf(codec_ldf(x + j));
        amax = amax > a ? amax : a;
    }
    return amax;
}

/* ---------------- tq1_0: 48 bytes of 5 trits, 4 bytes of 4 trits, f16 d ---------------- */
#define TQ1_BYTES 54
#define TQ1_QS 48
#define TQ1_QH 4

/* Pack trits of x[stride*0..stride*(count-1)] into one byte: first trit most
 * significant, then the 8-bit fixed point ceil(q * 256 / 243). */
static uint8_t tq1_pack(const float *x, size_t stride, int count, float id, int pad) {
    uint8_t q = 0;
    for (int t = 0; t < count; t++) q = (uint8_t)(q * 3 + trit_of(codec_ldf(x + (size_t)t * stride) * id));
    for (int t = 0; t < pad; t++) q = (uint8_t)(q * 3);
    return (uint8_t)(((unsigned)q * 256u + 242u) / 243u);
}

static void enc_tq1_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 256, o += TQ1_BYTES) {
        float d = block_amax(x, 256);
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        const float *p = x;
        for (int m = 0; m < 32; m++) o[m] = tq1_pack(p + m, 32, 5, id, 0); /* elements 0..159 */
        p += 160;
        for (int m = 0; m < 16; m++) o[32 + m] = tq1_pack(p + m, 16, 5, id, 0); /* 160..239 */
        p += 80;
        for (int j = 0; j < TQ1_QH; j++) o[TQ1_QS + j] = tq1_pack(p + j, 4, 4, id, 1); /* 240..255 */
        codec_st16(o + TQ1_QS + TQ1_QH, mio_f32_to_fp16(d));
    }
}

/* Trit n (0 = most significant) of a fixed-point byte, times d. */
static float tq1_trit(uint8_t byte, unsigned pow3, float d) {
    uint8_t q = (uint8_t)(byte * pow3);
    int xi = (int)(((unsigned)q * 3u) >> 8);
    return (float)(xi - 1) * d;
}

static void dec_tq1_0(const void *vx, float *y, int64_t nb) {
    static const unsigned pow3[5] = {1, 3, 9, 27, 81};
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += TQ1_BYTES) {
        float d = mio_fp16_to_f32(codec_ld16(x + TQ1_QS + TQ1_QH));
        float v;
        for (int n = 0; n < 5; n++)
            for (int m = 0; m < 32; m++) { v = tq1_trit(x[m], pow3[n], d); memcpy(y++, &v, 4); }
        for (int n = 0; n < 5; n++)
            for (int m = 0; m < 16; m++) { v = tq1_trit(x[32 + m], pow3[n], d); memcpy(y++, &v, 4); }
        for (int n = 0; n < 4; n++)
            for (int j = 0; j < TQ1_QH; j++) { v = tq1_trit(x[TQ1_QS + j], pow3[n], d); memcpy(y++, &v, 4); }
    }
}

/* ---------------- tq2_0: 64 bytes of 2-bit trits, f16 d ---------------- */
#define TQ2_BYTES 66

static void enc_tq2_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 256, o += TQ2_BYTES) {
        float d = block_amax(x, 256);
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int half = 0; half < 2; half++) {
            const float *p = x + 128 * half;
            for (int m = 0; m < 32; m++) {
                unsigned q = 0;
                for (int n = 0; n < 4; n++) q += (unsigned)(trit_of(codec_ldf(p + m + 32 * n) * id) & 3) << (2 * n);
                o[32 * half + m] = (uint8_t)q;
            }
        }
        codec_st16(o + 64, mio_f32_to_fp16(d));
    }
}

static void dec_tq2_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += TQ2_BYTES) {
        float d = mio_fp16_to_f32(codec_ld16(x + 64));
        for (int half = 0; half < 2; half++)
            for (int n = 0; n < 4; n++)
                for (int m = 0; m < 32; m++) {
                    int q = (x[32 * half + m] >> (2 * n)) & 3;
                    float v = (float)(q - 1) * d;
                    memcpy(y++, &v, 4);
                }
    }
}

/* ---------------- q1_0: f16 d = mean |x|, 16 bytes of sign bits ---------------- */
#define Q1_BYTES 18

static void enc_q1_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 128, o += Q1_BYTES) {
        float sum = 0.0f;
        for (int j = 0; j < 128; j++) sum += fabsf(codec_ldf(x + j));
        codec_st16(o, mio_f32_to_fp16(sum / 128));
        for (int k = 0; k < 16; k++) {
            unsigned bits = 0;
            for (int t = 0; t < 8; t++) bits |= (unsigned)(codec_ldf(x + 8 * k + t) >= 0.0f) << t;
            o[2 + k] = (uint8_t)bits;
        }
    }
}

static void dec_q1_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += Q1_BYTES) {
        float d = mio_fp16_to_f32(codec_ld16(x)), nd = -d;
        for (int j = 0; j < 128; j++) {
            float v = (x[2 + j / 8] >> (j % 8)) & 1 ? d : nd;
            memcpy(y++, &v, 4);
        }
    }
}

/* ---------------- q2_0: f16 d = max |x|, 16 bytes of 2-bit codes (q-1)*d ---------------- */
#define Q2_BYTES 18

static void enc_q2_0(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += 64, o += Q2_BYTES) {
        float amax = 0.0f;
        for (int j = 0; j < 64; j++) {
            float a = fabsf(codec_ldf(x + j));
            if (a > amax) amax = a;
        }
        float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        codec_st16(o, mio_f32_to_fp16(amax));
        for (int k = 0; k < 16; k++) {
            unsigned bits = 0;
            for (int t = 0; t < 4; t++) {
                long q = (long)round_to_int_x86(codec_ldf(x + 4 * k + t) * id) + 1; /* INT_MIN + 1 clamps to 0 */
                q = q < 0 ? 0 : q > 3 ? 3 : q;
                bits |= (unsigned)q << (2 * t);
            }
            o[2 + k] = (uint8_t)bits;
        }
    }
}

static void dec_q2_0(const void *vx, float *y, int64_t nb) {
    const uint8_t *x = vx;
    for (int64_t b = 0; b < nb; b++, x += Q2_BYTES) {
        float d = mio_fp16_to_f32(codec_ld16(x));
        for (int j = 0; j < 64; j++) {
            int q = (x[2 + j / 4] >> (2 * (j % 4))) & 3;
            float v = (float)(q - 1) * d;
            memcpy(y++, &v, 4);
        }
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

void codec_register_ternary(mio_codec *t) {
    t[MIO_TYPE_TQ1_0] = (mio_codec){enc_tq1_0, encw_tq1_0, dec_tq1_0, NULL, true};
    t[MIO_TYPE_TQ2_0] = (mio_codec){enc_tq2_0, encw_tq2_0, dec_tq2_0, NULL, true};
    t[MIO_TYPE_Q1_0] = (mio_codec){enc_q1_0, encw_q1_0, dec_q1_0, NULL, true};
    t[MIO_TYPE_Q2_0] = (mio_codec){enc_q2_0, encw_q2_0, dec_q2_0, NULL, true};
}
