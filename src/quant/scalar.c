/* SPDX-License-Identifier: MIT */
/* scalar.c — the non-block types: f32 (copy), f16 and bf16 (ggml's rounding:
 * nearest even, f16 overflow to inf, NaN kept), and float views of f64 and the
 * integer types (plain conversions; ggml has no to_float for them). */
#include "codec.h"
#include "core/half.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* bf16 casts and the f16 casts run the dispatch's kernels when it has them
 * (kernels/kernels.h), else the plain C below; both give the same bits. */
static const mio_kernels *K;

static void enc_f32(const float *x, void *y, int64_t nb) { memcpy(y, x, (size_t)nb * 4); }
static void dec_f32(const void *x, float *y, int64_t nb) { memcpy(y, x, (size_t)nb * 4); }

/* Chunks of 16 with a fixed trip count: gcc's -O2 vectorizer takes those. */
#define CONVERT_LOOP(in_t, out_t, in_sz, out_sz, conv)                         \
    int64_t i = 0;                                                             \
    for (; i + 16 <= nb; i += 16) {                                            \
        in_t in[16];                                                           \
        out_t out[16];                                                         \
        memcpy(in, src + (size_t)i * (in_sz), sizeof in);                      \
        for (int k = 0; k < 16; k++) out[k] = conv(in[k]);                     \
        memcpy(dst + (size_t)i * (out_sz), out, sizeof out);                   \
    }                                                                          \
    for (; i < nb; i++) {                                                      \
        in_t v;                                                                \
        memcpy(&v, src + (size_t)i * (in_sz), (in_sz));                        \
        out_t r = conv(v);                                                     \
        memcpy(dst + (size_t)i * (out_sz), &r, (out_sz));                      \
    }

static void enc_f16(const float *x, void *y, int64_t nb) {
    if (K->f32_to_f16) {
        K->f32_to_f16(x, y, nb);
        return;
    }
    const uint8_t *src = (const uint8_t *)x;
    uint8_t *dst = y;
    CONVERT_LOOP(float, uint16_t, 4, 2, half_from_f32)
}
static void dec_f16(const void *x, float *y, int64_t nb) {
    if (K->f16_to_f32) {
        K->f16_to_f32(x, y, nb);
        return;
    }
    const uint8_t *src = x;
    uint8_t *dst = (uint8_t *)y;
    CONVERT_LOOP(uint16_t, float, 2, 4, half_to_f32)
}
static void enc_bf16(const float *x, void *y, int64_t nb) {
    if (K->f32_to_bf16) {
        K->f32_to_bf16(x, y, nb);
        return;
    }
    const uint8_t *src = (const uint8_t *)x;
    uint8_t *dst = y;
    CONVERT_LOOP(float, uint16_t, 4, 2, bf16_from_f32)
}
static void dec_bf16(const void *x, float *y, int64_t nb) {
    if (K->bf16_to_f32) {
        K->bf16_to_f32(x, y, nb);
        return;
    }
    const uint8_t *src = x;
    uint8_t *dst = (uint8_t *)y;
    CONVERT_LOOP(uint16_t, float, 2, 4, bf16_to_f32)
}

#define INT_DEC(name, ctype)                                                   \
    static void name(const void *x, float *y, int64_t nb) {                   \
        const uint8_t *p = x;                                                  \
        for (int64_t i = 0; i < nb; i++) {                                     \
            ctype v;                                                           \
            memcpy(&v, p + (size_t)i * sizeof v, sizeof v);                    \
            float f = (float)v;                                                \
            memcpy(y + i, &f, 4);                                              \
        }                                                                      \
    }
INT_DEC(dec_i8, int8_t)
INT_DEC(dec_i16, int16_t)
INT_DEC(dec_i32, int32_t)
INT_DEC(dec_i64, int64_t)
INT_DEC(dec_f64, double)
/* safetensors-only dtypes */
INT_DEC(dec_u8, uint8_t)
INT_DEC(dec_u16, uint16_t)
INT_DEC(dec_u32, uint32_t)
INT_DEC(dec_u64, uint64_t)

/* OCP FP8 E5M2: the upper byte of an IEEE half (bias 15, infinities, NaNs). */
static void dec_f8_e5m2(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t i = 0; i < nb; i++) y[i] = mio_fp16_to_f32((uint16_t)(p[i] << 8));
}
/* OCP FP8 E4M3 (FN): bias 7, no infinities, S.1111.111 is NaN. */
static void dec_f8_e4m3(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t i = 0; i < nb; i++) {
        unsigned b = p[i], e = (b >> 3) & 15, f = b & 7;
        float s = (b & 0x80) ? -1.0f : 1.0f;
        if ((b & 0x7f) == 0x7f)
            y[i] = NAN;
        else if (e == 0)
            y[i] = s * ldexpf((float)f, -9);
        else
            y[i] = s * ldexpf((float)(8 + f), (int)e - 10);
    }
}
/* OCP MX E8M0 (a scale): 2^(b-127), 0xff is NaN. */
static void dec_f8_e8m0(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t i = 0; i < nb; i++) y[i] = p[i] == 0xff ? NAN : ldexpf(1.0f, (int)p[i] - 127);
}

void mio_codec_register_scalar_st(mio_codec *st) {
    static const char why[] = "no encoder for this safetensors dtype";
#define ST_ROW(type, dec) st[(type) - MIO_TYPE_BOOL] = (mio_codec){NULL, NULL, dec, why, false}
    ST_ROW(MIO_TYPE_BOOL, dec_u8);
    ST_ROW(MIO_TYPE_U8, dec_u8);
    ST_ROW(MIO_TYPE_U16, dec_u16);
    ST_ROW(MIO_TYPE_U32, dec_u32);
    ST_ROW(MIO_TYPE_U64, dec_u64);
    ST_ROW(MIO_TYPE_F8_E5M2, dec_f8_e5m2);
    ST_ROW(MIO_TYPE_F8_E4M3, dec_f8_e4m3);
    ST_ROW(MIO_TYPE_F8_E8M0, dec_f8_e8m0);
#undef ST_ROW
}

void mio_codec_register_scalar(mio_codec *t, const mio_kernels *k) {
    static const char why[] = "ggml does not produce this type from f32";
    K = k;
    t[MIO_TYPE_F32] = (mio_codec){enc_f32, NULL, dec_f32, NULL, false};
    t[MIO_TYPE_F16] = (mio_codec){enc_f16, NULL, dec_f16, NULL, false};
    t[MIO_TYPE_BF16] = (mio_codec){enc_bf16, NULL, dec_bf16, NULL, false};
    t[MIO_TYPE_F64] = (mio_codec){NULL, NULL, dec_f64, why, false};
    t[MIO_TYPE_I8] = (mio_codec){NULL, NULL, dec_i8, why, false};
    t[MIO_TYPE_I16] = (mio_codec){NULL, NULL, dec_i16, why, false};
    t[MIO_TYPE_I32] = (mio_codec){NULL, NULL, dec_i32, why, false};
    t[MIO_TYPE_I64] = (mio_codec){NULL, NULL, dec_i64, why, false};
}
