/* SPDX-License-Identifier: MIT */
/* test_types.c — the ggml type table (every wire code), mio_type_nbytes and
 * its errors, status/type names, and the fp16/bf16 scalar conversions, all
 * against values computed by hand from the ggml block layouts and IEEE 754. */
#include "modelio.h"
#include "test.h"

#include <math.h>

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

typedef struct row { int code; const char *name; int64_t blck; size_t bytes; } row;

/* block bytes computed from ggml's block structs (fp16 d = 2 bytes, etc.) */
static const row k_rows[] = {
    {0, "f32", 1, 4},          {1, "f16", 1, 2},
    {2, "q4_0", 32, 18},       /* d + 16 nibble bytes */
    {3, "q4_1", 32, 20},       /* d, m + 16 */
    {6, "q5_0", 32, 22},       /* d + qh[4] + 16 */
    {7, "q5_1", 32, 24},       /* d, m + qh[4] + 16 */
    {8, "q8_0", 32, 34},       /* d + 32 */
    {9, "q8_1", 32, 36},       /* d, s + 32 */
    {10, "q2_K", 256, 84},     /* scales 16 + qs 64 + d, dmin */
    {11, "q3_K", 256, 110},    /* hmask 32 + qs 64 + scales 12 + d */
    {12, "q4_K", 256, 144},    /* d, dmin + scales 12 + qs 128 */
    {13, "q5_K", 256, 176},    /* d, dmin + scales 12 + qh 32 + qs 128 */
    {14, "q6_K", 256, 210},    /* ql 128 + qh 64 + scales 16 + d */
    {15, "q8_K", 256, 292},    /* float d + qs 256 + bsums 16*2 */
    {16, "iq2_xxs", 256, 66},  /* d + 64 */
    {17, "iq2_xs", 256, 74},   /* d + 64 + scales 8 */
    {18, "iq3_xxs", 256, 98},  /* d + 96 */
    {19, "iq1_s", 256, 50},    /* d + qs 32 + qh 16 */
    {20, "iq4_nl", 32, 18},    /* d + 16 */
    {21, "iq3_s", 256, 110},   /* d + qs 64 + qh 8 + signs 32 + scales 4 */
    {22, "iq2_s", 256, 82},    /* d + qs 64 + qh 8 + scales 8 */
    {23, "iq4_xs", 256, 136},  /* d + scales_h 2 + scales_l 4 + qs 128 */
    {24, "i8", 1, 1},          {25, "i16", 1, 2},
    {26, "i32", 1, 4},         {27, "i64", 1, 8},
    {28, "f64", 1, 8},
    {29, "iq1_m", 256, 56},    /* qs 32 + qh 16 + scales 8 */
    {30, "bf16", 1, 2},
    {34, "tq1_0", 256, 54},    /* qs 48 + qh 4 + d */
    {35, "tq2_0", 256, 66},    /* qs 64 + d */
    {39, "mxfp4", 32, 17},     /* e8m0 + 16 */
    {40, "nvfp4", 64, 36},     /* 4 ue4m3 scales + 32 */
    {41, "q1_0", 128, 18},     /* d + 16 */
    {42, "q2_0", 64, 18},      /* d + 16 */
};

static void test_table(void) {
    size_t n = sizeof k_rows / sizeof k_rows[0];
    T_EQ_INT(n, 35);
    for (size_t i = 0; i < n; i++) {
        const row *r = &k_rows[i];
        T_EQ_STR(mio_type_name(r->code), r->name);
        T_EQ_INT(mio_type_block_size(r->code), r->blck);
        T_EQ_U64(mio_type_block_bytes(r->code), r->bytes);
        T_EQ_INT(mio_type_from_name(r->name), r->code);
    }
    /* removed / unknown codes */
    static const int removed[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, 44, 100, -1, -100};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        T_CHECK(mio_type_name(removed[i]) == NULL);
        T_EQ_INT(mio_type_block_size(removed[i]), 0);
        T_EQ_U64(mio_type_block_bytes(removed[i]), 0);
    }
    /* every code either has a row above or is removed */
    int named = 0;
    for (int c = 0; c < MIO_TYPE_GGML_COUNT; c++) named += mio_type_name(c) != NULL;
    T_EQ_INT(named, 35);
    T_EQ_INT(MIO_TYPE_GGML_COUNT, 43);

    /* case-insensitive lookup */
    T_EQ_INT(mio_type_from_name("Q4_K"), 12);
    T_EQ_INT(mio_type_from_name("q4_k"), 12);
    T_EQ_INT(mio_type_from_name("IQ2_XXS"), 16);
    T_EQ_INT(mio_type_from_name("BF16"), 30);
    T_EQ_INT(mio_type_from_name("F32"), 0);
    T_EQ_INT(mio_type_from_name("MxFp4"), 39);
    T_EQ_INT(mio_type_from_name("q4_2"), -1);
    T_EQ_INT(mio_type_from_name("q4_K "), -1);
    T_EQ_INT(mio_type_from_name("q4"), -1);
    T_EQ_INT(mio_type_from_name(""), -1);
    T_EQ_INT(mio_type_from_name(NULL), -1);
}

static void test_nbytes(void) {
    uint64_t out = 0;
    int64_t ne[4] = {4096, 4096, 1, 1};
    T_OK(mio_type_nbytes(MIO_TYPE_Q4_K, 2, ne, &out));
    T_EQ_U64(out, 9437184); /* 4096*4096/256 blocks * 144 */
    T_OK(mio_type_nbytes(MIO_TYPE_F32, 2, ne, &out));
    T_EQ_U64(out, 67108864);
    int64_t ne1[1] = {10};
    T_OK(mio_type_nbytes(MIO_TYPE_F32, 1, ne1, &out));
    T_EQ_U64(out, 40);
    T_OK(mio_type_nbytes(MIO_TYPE_BF16, 1, ne1, &out));
    T_EQ_U64(out, 20);
    int64_t ne3[3] = {64, 3, 5};
    T_OK(mio_type_nbytes(MIO_TYPE_Q8_0, 3, ne3, &out));
    T_EQ_U64(out, 2 * 15 * 34);
    T_OK(mio_type_nbytes(MIO_TYPE_NVFP4, 3, ne3, &out));
    T_EQ_U64(out, 15 * 36);
    int64_t ne4[4] = {256, 2, 3, 4};
    T_OK(mio_type_nbytes(MIO_TYPE_TQ1_0, 4, ne4, &out));
    T_EQ_U64(out, 24 * 54);
    int64_t ne_zero[2] = {0, 7};
    T_OK(mio_type_nbytes(MIO_TYPE_Q4_K, 2, ne_zero, &out));
    T_EQ_U64(out, 0);

    /* errors: output untouched */
    out = 12345;
    T_STATUS(mio_type_nbytes(MIO_TYPE_F32, 0, ne, &out), MIO_ERR_INVALID_TENSOR_INFO);
    T_STATUS(mio_type_nbytes(MIO_TYPE_F32, 5, ne, &out), MIO_ERR_INVALID_TENSOR_INFO);
    int64_t neg[2] = {32, -1};
    T_STATUS(mio_type_nbytes(MIO_TYPE_F32, 2, neg, &out), MIO_ERR_INVALID_TENSOR_INFO);
    int64_t notblk[2] = {100, 2};
    T_STATUS(mio_type_nbytes(MIO_TYPE_Q4_K, 2, notblk, &out), MIO_ERR_INVALID_TENSOR_INFO);
    T_MSG_HAS("100");
    T_STATUS(mio_type_nbytes(MIO_TYPE_Q8_0, 2, notblk, &out), MIO_ERR_INVALID_TENSOR_INFO);
    int64_t big[2] = {INT64_MAX, 2};
    T_STATUS(mio_type_nbytes(MIO_TYPE_F32, 2, big, &out), MIO_ERR_OVERFLOW);
    int64_t big2[4] = {1LL << 32, 1LL << 16, 1LL << 16, 1};
    T_STATUS(mio_type_nbytes(MIO_TYPE_I8, 4, big2, &out), MIO_ERR_OVERFLOW);
    int64_t big3[1] = {1LL << 62}; /* elements fit in int64, bytes = 2^64 do not */
    T_STATUS(mio_type_nbytes(MIO_TYPE_F32, 1, big3, &out), MIO_ERR_OVERFLOW);
    T_STATUS(mio_type_nbytes(4, 1, ne1, &out), MIO_ERR_UNSUPPORTED_TYPE);
    T_STATUS(mio_type_nbytes(43, 1, ne1, &out), MIO_ERR_UNSUPPORTED_TYPE);
    T_STATUS(mio_type_nbytes(-1, 1, ne1, &out), MIO_ERR_UNSUPPORTED_TYPE);
    T_EQ_U64(out, 12345);
}

static void test_names(void) {
    static const char *const names[] = {
        "MIO_OK", "MIO_ERR_IO", "MIO_ERR_NOMEM", "MIO_ERR_INVALID_ARG", "MIO_ERR_BAD_MAGIC",
        "MIO_ERR_UNSUPPORTED_VERSION", "MIO_ERR_TRUNCATED", "MIO_ERR_INVALID_TENSOR_INFO",
        "MIO_ERR_INVALID_ALIGNMENT", "MIO_ERR_DUPLICATE_KEY", "MIO_ERR_DUPLICATE_TENSOR",
        "MIO_ERR_UNSUPPORTED_TYPE", "MIO_ERR_OUT_OF_RANGE", "MIO_ERR_NOT_FOUND",
        "MIO_ERR_TYPE_MISMATCH", "MIO_ERR_OVERFLOW", "MIO_ERR_INVALID_KV", "MIO_ERR_LIMIT",
        "MIO_ERR_INVALID_OFFSET", "MIO_ERR_SPLIT", "MIO_ERR_SIZE_MISMATCH",
        "MIO_ERR_TOO_MANY_TENSORS", "MIO_ERR_INCOMPLETE", "MIO_ERR_STATE", "MIO_ERR_BYTE_ORDER",
        "MIO_ERR_HEADER_TOO_SMALL", "MIO_ERR_HEADER_TOO_LARGE", "MIO_ERR_INVALID_HEADER_LENGTH",
        "MIO_ERR_INVALID_UTF8", "MIO_ERR_INVALID_JSON", "MIO_ERR_MISALIGNED_SLICE", "MIO_ERR_INCOMPLETE_BUFFER",
        "MIO_ERR_INVALID_METADATA", "MIO_ERR_ENCODER_UNAVAILABLE", "MIO_ERR_DECODER_UNAVAILABLE",
        "MIO_ERR_NON_FINITE", "MIO_ERR_CANCELLED", "MIO_ERR_UNSUPPORTED", "MIO_ERR_NETWORK", "MIO_ERR_AUTH",
        "MIO_ERR_CHECKSUM",
    };
    for (int s = 0; s < 41; s++) T_EQ_STR(mio_status_name((mio_status)s), names[s]);
    T_EQ_INT(MIO_ERR_BYTE_ORDER, 24);
    T_EQ_INT(MIO_ERR_INVALID_METADATA, 32);
    T_EQ_INT(MIO_ERR_NON_FINITE, 35);
    T_EQ_INT(MIO_ERR_CANCELLED, 36);
    T_EQ_INT(MIO_ERR_UNSUPPORTED, 37);
    T_EQ_INT(MIO_ERR_NETWORK, 38);
    T_EQ_INT(MIO_ERR_AUTH, 39);
    T_EQ_INT(MIO_ERR_CHECKSUM, 40);
    T_EQ_STR(mio_status_name((mio_status)41), "MIO_ERR_UNKNOWN");
    T_EQ_STR(mio_status_name((mio_status)-1), "MIO_ERR_UNKNOWN");
    T_EQ_STR(mio_status_name((mio_status)1000), "MIO_ERR_UNKNOWN");

    static const char *const gt[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool",
                                     "string", "array", "u64", "i64", "f64"};
    for (int t = 0; t < 13; t++) T_EQ_STR(mio_gguf_type_name(t), gt[t]);
    T_CHECK(mio_gguf_type_name(13) == NULL);
    T_CHECK(mio_gguf_type_name(-1) == NULL);

    T_EQ_STR(mio_version(), "0.1.0");
    /* runtime and compile time agree (one version source: the header) */
    T_EQ_INT(mio_version_number(), 100);
    T_EQ_INT(mio_version_number(), MIO_VERSION_NUMBER);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", MIO_VERSION_MAJOR, MIO_VERSION_MINOR, MIO_VERSION_PATCH);
    T_EQ_STR(mio_version(), v);
    T_CHECK(mio_last_error() != NULL);
}

static void test_fp16(void) {
    /* f32 -> f16 */
    T_EQ_INT(mio_f32_to_fp16(1.0f), 0x3c00);
    T_EQ_INT(mio_f32_to_fp16(-2.0f), 0xc000);
    T_EQ_INT(mio_f32_to_fp16(0.5f), 0x3800);
    T_EQ_INT(mio_f32_to_fp16(0.0f), 0x0000);
    T_EQ_INT(mio_f32_to_fp16(-0.0f), 0x8000);
    T_EQ_INT(mio_f32_to_fp16(65504.0f), 0x7bff);       /* largest finite */
    T_EQ_INT(mio_f32_to_fp16(65519.0f), 0x7bff);       /* below the halfway point */
    T_EQ_INT(mio_f32_to_fp16(65520.0f), 0x7c00);       /* halfway, odd mantissa: rounds to 65536 = inf */
    T_EQ_INT(mio_f32_to_fp16(-65520.0f), 0xfc00);
    T_EQ_INT(mio_f32_to_fp16(1e10f), 0x7c00);
    T_EQ_INT(mio_f32_to_fp16(INFINITY), 0x7c00);
    T_EQ_INT(mio_f32_to_fp16(-INFINITY), 0xfc00);
    T_EQ_INT(mio_f32_to_fp16(u2f(0x33800000u)), 0x0001); /* 2^-24 smallest subnormal */
    T_EQ_INT(mio_f32_to_fp16(6.103515625e-05f), 0x0400); /* 2^-14 smallest normal */
    /* round half to even */
    T_EQ_INT(mio_f32_to_fp16(1.0f + 0x1p-11f), 0x3c00);          /* tie -> even 0x3c00 */
    T_EQ_INT(mio_f32_to_fp16(1.0f + 3 * 0x1p-11f), 0x3c02);      /* tie -> even 0x3c02 */
    T_EQ_INT(mio_f32_to_fp16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01); /* just above tie */
    T_EQ_INT(mio_f32_to_fp16(0x1p-25f), 0x0000);                 /* subnormal tie -> 0 */
    T_EQ_INT(mio_f32_to_fp16(3 * 0x1p-25f), 0x0002);             /* subnormal tie -> even 2 */
    T_EQ_INT(mio_f32_to_fp16(0x1p-25f * 1.5f), 0x0001);
    T_EQ_INT(mio_f32_to_fp16(0x1p-26f), 0x0000);
    T_EQ_INT(mio_f32_to_fp16(0x3ffp-24f + 0x1p-25f), 0x0400);    /* tie at subnormal top rounds to normal */
    /* NaN stays NaN */
    uint16_t hn = mio_f32_to_fp16(NAN);
    T_CHECK((hn & 0x7c00) == 0x7c00 && (hn & 0x03ff) != 0);
    uint16_t hsn = mio_f32_to_fp16(u2f(0x7f800001u)); /* payload only in low bits */
    T_CHECK((hsn & 0x7c00) == 0x7c00 && (hsn & 0x03ff) != 0);

    /* f16 -> f32 */
    T_CHECK(mio_fp16_to_f32(0x3c00) == 1.0f);
    T_CHECK(mio_fp16_to_f32(0xc000) == -2.0f);
    T_CHECK(mio_fp16_to_f32(0x7bff) == 65504.0f);
    T_CHECK(mio_fp16_to_f32(0x0001) == 5.96046448e-08f);
    T_EQ_U64(f2u(mio_fp16_to_f32(0x0001)), 0x33800000u);
    T_CHECK(mio_fp16_to_f32(0x03ff) == 1023 * 0x1p-24f);
    T_CHECK(mio_fp16_to_f32(0x0400) == 6.103515625e-05f);
    T_CHECK(mio_fp16_to_f32(0x3555) == 0.333251953125f);
    T_EQ_U64(f2u(mio_fp16_to_f32(0x8000)), 0x80000000u);
    T_CHECK(isinf(mio_fp16_to_f32(0x7c00)) && mio_fp16_to_f32(0x7c00) > 0);
    T_CHECK(isinf(mio_fp16_to_f32(0xfc00)) && mio_fp16_to_f32(0xfc00) < 0);
    T_CHECK(isnan(mio_fp16_to_f32(0x7e00)));
    T_CHECK(isnan(mio_fp16_to_f32(0x7c01)));
    /* every finite half round-trips exactly */
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) continue;
        if (mio_f32_to_fp16(mio_fp16_to_f32((uint16_t)h)) != h) bad++;
    }
    T_EQ_INT(bad, 0);
}

static void test_bf16(void) {
    T_EQ_INT(mio_f32_to_bf16(1.0f), 0x3f80);
    T_EQ_INT(mio_f32_to_bf16(-2.0f), 0xc000);
    T_EQ_INT(mio_f32_to_bf16(0.0f), 0x0000);
    T_EQ_INT(mio_f32_to_bf16(-0.0f), 0x8000);
    T_EQ_INT(mio_f32_to_bf16(INFINITY), 0x7f80);
    T_EQ_INT(mio_f32_to_bf16(-INFINITY), 0xff80);
    T_EQ_INT(mio_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);            /* tie -> even */
    T_EQ_INT(mio_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);        /* tie -> even */
    T_EQ_INT(mio_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81); /* above tie */
    T_EQ_INT(mio_f32_to_bf16(u2f(0x7f7fffffu)), 0x7f80);          /* FLT_MAX rounds up to inf */
    T_EQ_INT(mio_f32_to_bf16(u2f(0x3f80ffffu)), 0x3f81);
    T_EQ_INT(mio_f32_to_bf16(u2f(0x3f807fffu)), 0x3f80);
    uint16_t bn = mio_f32_to_bf16(NAN);
    T_CHECK((bn & 0x7f80) == 0x7f80 && (bn & 0x007f) != 0);
    uint16_t bs = mio_f32_to_bf16(u2f(0x7f800001u)); /* signalling NaN whose payload is all truncated */
    T_CHECK((bs & 0x7f80) == 0x7f80 && (bs & 0x0040) != 0);
    T_CHECK(isnan(mio_bf16_to_f32(bs)));
    uint16_t bneg = mio_f32_to_bf16(u2f(0xff800001u));
    T_CHECK((bneg & 0xff80) == 0xff80 && (bneg & 0x007f) != 0);

    T_CHECK(mio_bf16_to_f32(0x3f80) == 1.0f);
    T_CHECK(mio_bf16_to_f32(0xc000) == -2.0f);
    T_EQ_U64(f2u(mio_bf16_to_f32(0x1234)), 0x12340000u);
    T_CHECK(isnan(mio_bf16_to_f32(0x7fc0)));
    T_CHECK(isinf(mio_bf16_to_f32(0x7f80)));
}

int main(void) {
    test_table();
    test_nbytes();
    test_names();
    test_fp16();
    test_bf16();
    T_DONE();
}
