/* scalar.c — the non-block types: f32 (copy), f16 and bf16 (ggml's rounding:
 * nearest even, f16 overflow to inf, NaN kept), and float views of f64 and the
 * integer types (plain conversions; ggml has no to_float for them). */
#include "codec.h"

#include <string.h>

static void enc_f32(const float *x, void *y, int64_t nb) { memcpy(y, x, (size_t)nb * 4); }
static void dec_f32(const void *x, float *y, int64_t nb) { memcpy(y, x, (size_t)nb * 4); }

static void enc_f16(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t i = 0; i < nb; i++) codec_st16(o + 2 * i, mio_f32_to_fp16(codec_ldf(x + i)));
}
static void dec_f16(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t i = 0; i < nb; i++) { float v = mio_fp16_to_f32(codec_ld16(p + 2 * i)); memcpy(y + i, &v, 4); }
}
static void enc_bf16(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t i = 0; i < nb; i++) codec_st16(o + 2 * i, mio_f32_to_bf16(codec_ldf(x + i)));
}
static void dec_bf16(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t i = 0; i < nb; i++) { float v = mio_bf16_to_f32(codec_ld16(p + 2 * i)); memcpy(y + i, &v, 4); }
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

void codec_register_scalar(mio_codec *t) {
    static const char why[] = "ggml does not produce this type from f32";
    t[MIO_TYPE_F32] = (mio_codec){enc_f32, NULL, dec_f32, NULL, false};
    t[MIO_TYPE_F16] = (mio_codec){enc_f16, NULL, dec_f16, NULL, false};
    t[MIO_TYPE_BF16] = (mio_codec){enc_bf16, NULL, dec_bf16, NULL, false};
    t[MIO_TYPE_F64] = (mio_codec){NULL, NULL, dec_f64, why, false};
    t[MIO_TYPE_I8] = (mio_codec){NULL, NULL, dec_i8, why, false};
    t[MIO_TYPE_I16] = (mio_codec){NULL, NULL, dec_i16, why, false};
    t[MIO_TYPE_I32] = (mio_codec){NULL, NULL, dec_i32, why, false};
    t[MIO_TYPE_I64] = (mio_codec){NULL, NULL, dec_i64, why, false};
}
