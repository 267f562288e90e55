/* SPDX-License-Identifier: MIT */
/* test_gguf_rw.c — GGUF writer + reader round trips: every metadata setter and
 * array type, widening getters and their range errors, tensor layout (offsets,
 * padding, header size computed by hand), writer edits/errors, verbatim KV copy,
 * hand-crafted nested arrays and the byte-identical re-emit contract. */
#include "modelio.h"
#include "test.h"

#include <math.h>
#include <unistd.h>

/* ------------------------------------------------------------------ helpers */

/* 0 if equal, else 1 + printing the first differing offset */
static int compare_bytes(const char *what, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "%s: first difference at offset %zu (0x%02x vs 0x%02x), sizes %zu vs %zu\n", what, i,
                    a[i], b[i], alen, blen);
            return 1;
        }
    if (alen != blen) {
        fprintf(stderr, "%s: sizes differ %zu vs %zu (common prefix equal)\n", what, alen, blen);
        return 1;
    }
    return 0;
}

/* little-endian byte builder for hand-crafted files */
typedef struct bb { uint8_t b[4096]; size_t n; } bb;
static void bb_u8(bb *x, uint8_t v) { x->b[x->n++] = v; }
static void bb_u16(bb *x, uint16_t v) { for (int i = 0; i < 2; i++) bb_u8(x, (uint8_t)(v >> (8 * i))); }
static void bb_u32(bb *x, uint32_t v) { for (int i = 0; i < 4; i++) bb_u8(x, (uint8_t)(v >> (8 * i))); }
static void bb_u64(bb *x, uint64_t v) { for (int i = 0; i < 8; i++) bb_u8(x, (uint8_t)(v >> (8 * i))); }
static void bb_mem(bb *x, const void *p, size_t n) { memcpy(x->b + x->n, p, n); x->n += n; }
static void bb_str(bb *x, const char *s) { bb_u64(x, strlen(s)); bb_mem(x, s, strlen(s)); }

static int64_t key_index(const mio_gguf_file *f, const char *key) {
    int64_t i = mio_gguf_find_key(f, key);
    if (i < 0) fprintf(stderr, "key %s not found\n", key);
    return i;
}

/* ------------------------------------------------------- the all-types file */

static const uint8_t a_u8[] = {1, 2, 255};
static const int8_t a_i8[] = {-1, 0, 127, -128};
static const uint16_t a_u16[] = {0, 65535};
static const int16_t a_i16[] = {-32768, 32767, 5};
static const uint32_t a_u32[] = {4000000000u};
static const int32_t a_i32[] = {-5, 7};
static const float a_f32[] = {0.25f, -1.0f};
static const uint8_t a_bool[] = {1, 0, 1};
static const uint64_t a_u64[] = {UINT64_MAX, 5};
static const int64_t a_i64[] = {INT64_MIN, -1, 3};
static const double a_f64[] = {1e300, -0.5};
static const char *const a_str[] = {"x", "", "a\0b", "\xc3\x28\xff"};
static const size_t a_str_len[] = {1, 0, 3, 3};
static const char *const a_strnul[] = {"one", "two"};

#define N_BIG 100000u

/* expected key order and wire types */
typedef struct kexp { const char *key; int type; } kexp;
static const kexp k_keys[] = {
    {"general.architecture", MIO_GGUF_STRING},
    {"t.u8", MIO_GGUF_U8},   {"t.i8", MIO_GGUF_I8},     {"t.u16", MIO_GGUF_U16}, {"t.i16", MIO_GGUF_I16},
    {"t.u32", MIO_GGUF_U32}, {"t.i32", MIO_GGUF_I32},   {"t.u64", MIO_GGUF_U64}, {"t.i64", MIO_GGUF_I64},
    {"t.f32", MIO_GGUF_F32}, {"t.f64", MIO_GGUF_F64},   {"t.bool", MIO_GGUF_BOOL}, {"t.bool0", MIO_GGUF_BOOL},
    {"t.str", MIO_GGUF_STRING}, {"t.strbin", MIO_GGUF_STRING}, {"t.strempty", MIO_GGUF_STRING},
    {"t.u64.2p63", MIO_GGUF_U64}, {"t.u64.2p63m1", MIO_GGUF_U64}, {"t.i8.neg", MIO_GGUF_I8},
    {"a.u8", MIO_GGUF_ARRAY}, {"a.i8", MIO_GGUF_ARRAY}, {"a.u16", MIO_GGUF_ARRAY}, {"a.i16", MIO_GGUF_ARRAY},
    {"a.u32", MIO_GGUF_ARRAY}, {"a.i32", MIO_GGUF_ARRAY}, {"a.f32", MIO_GGUF_ARRAY}, {"a.bool", MIO_GGUF_ARRAY},
    {"a.u64", MIO_GGUF_ARRAY}, {"a.i64", MIO_GGUF_ARRAY}, {"a.f64", MIO_GGUF_ARRAY}, {"a.empty", MIO_GGUF_ARRAY},
    {"a.str", MIO_GGUF_ARRAY}, {"a.strnul", MIO_GGUF_ARRAY}, {"a.big", MIO_GGUF_ARRAY},
};
#define N_KEYS (sizeof k_keys / sizeof k_keys[0])

/* tensors: t0 f32[10] (40 B -> 64), t1 q8_0[64,2] (4 blocks*34=136 -> 160),
 * t2 f16[3,2] (12 -> 32), t3 q4_K[256,1,1,2] (2*144=288, already a multiple of 32) */
static float t0[10];
static uint8_t t1[136], t2[12], t3[288];
static const uint64_t k_toff[4] = {0, 64, 224, 256};
#define DATA_BYTES 544u

static void fill_tensors(void) {
    for (int i = 0; i < 10; i++) t0[i] = (float)i * 0.5f;
    for (size_t i = 0; i < sizeof t1; i++) t1[i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof t2; i++) t2[i] = (uint8_t)(0xA0 + i);
    for (size_t i = 0; i < sizeof t3; i++) t3[i] = (uint8_t)(i ^ 0x5a);
}

static mio_writer *build_all(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    if (!w) return NULL;
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_set_u8(w, "t.u8", 200));
    T_OK(mio_writer_set_i8(w, "t.i8", -100));
    T_OK(mio_writer_set_u16(w, "t.u16", 60000));
    T_OK(mio_writer_set_i16(w, "t.i16", -30000));
    T_OK(mio_writer_set_u32(w, "t.u32", 4000000000u));
    T_OK(mio_writer_set_i32(w, "t.i32", -2000000000));
    T_OK(mio_writer_set_u64(w, "t.u64", UINT64_MAX));
    T_OK(mio_writer_set_i64(w, "t.i64", INT64_MIN));
    T_OK(mio_writer_set_f32(w, "t.f32", 1.5f));
    T_OK(mio_writer_set_f64(w, "t.f64", -2.25));
    T_OK(mio_writer_set_bool(w, "t.bool", 1));
    T_OK(mio_writer_set_bool(w, "t.bool0", 0));
    T_OK(mio_writer_set_str(w, "t.str", "hello", 5));
    T_OK(mio_writer_set_str(w, "t.strbin", "a\0b\xff\xfe", 5));
    T_OK(mio_writer_set_str(w, "t.strempty", "", 0));
    T_OK(mio_writer_set_u64(w, "t.u64.2p63", (uint64_t)1 << 63));
    T_OK(mio_writer_set_u64(w, "t.u64.2p63m1", ((uint64_t)1 << 63) - 1));
    T_OK(mio_writer_set_i8(w, "t.i8.neg", -1));
    T_OK(mio_writer_set_arr(w, "a.u8", MIO_GGUF_U8, a_u8, 3));
    T_OK(mio_writer_set_arr(w, "a.i8", MIO_GGUF_I8, a_i8, 4));
    T_OK(mio_writer_set_arr(w, "a.u16", MIO_GGUF_U16, a_u16, 2));
    T_OK(mio_writer_set_arr(w, "a.i16", MIO_GGUF_I16, a_i16, 3));
    T_OK(mio_writer_set_arr(w, "a.u32", MIO_GGUF_U32, a_u32, 1));
    T_OK(mio_writer_set_arr(w, "a.i32", MIO_GGUF_I32, a_i32, 2));
    T_OK(mio_writer_set_arr(w, "a.f32", MIO_GGUF_F32, a_f32, 2));
    T_OK(mio_writer_set_arr(w, "a.bool", MIO_GGUF_BOOL, a_bool, 3));
    T_OK(mio_writer_set_arr(w, "a.u64", MIO_GGUF_U64, a_u64, 2));
    T_OK(mio_writer_set_arr(w, "a.i64", MIO_GGUF_I64, a_i64, 3));
    T_OK(mio_writer_set_arr(w, "a.f64", MIO_GGUF_F64, a_f64, 2));
    T_OK(mio_writer_set_arr(w, "a.empty", MIO_GGUF_U32, NULL, 0));
    T_OK(mio_writer_set_arr_str(w, "a.str", a_str, a_str_len, 4));
    T_OK(mio_writer_set_arr_str(w, "a.strnul", a_strnul, NULL, 2));
    {
        char **s = malloc(N_BIG * sizeof *s);
        char *store = malloc(N_BIG * 16);
        for (uint32_t k = 0; k < N_BIG; k++) {
            s[k] = store + (size_t)k * 16;
            snprintf(s[k], 16, "tok%u", k);
        }
        T_OK(mio_writer_set_arr_str(w, "a.big", (const char *const *)s, NULL, N_BIG));
        free(s); /* the writer copies */
        free(store);
    }
    T_EQ_INT(mio_writer_kv_count(w), (int64_t)N_KEYS);

    /* refused setters leave the writer unchanged */
    T_STATUS(mio_writer_set_u8(w, "", 1), MIO_ERR_INVALID_KV); /* "empty key" */
    T_MSG_HAS("empty");
    T_STATUS(mio_writer_set_u8(w, NULL, 1), MIO_ERR_INVALID_ARG); /* a NULL key is the caller's bug, "" a bad key */
    T_MSG_HAS("key is NULL");
    T_STATUS(mio_writer_set_u8(NULL, "x", 1), MIO_ERR_INVALID_ARG);
    T_CHECK(mio_writer_set_arr(w, "bad.arr", MIO_GGUF_STRING, a_u8, 1) != MIO_OK);
    T_CHECK(mio_writer_set_arr(w, "bad.arr", MIO_GGUF_ARRAY, a_u8, 1) != MIO_OK);
    T_CHECK(mio_writer_set_arr(w, "bad.arr", 13, a_u8, 1) != MIO_OK);
    T_CHECK(mio_writer_set_arr(w, "bad.arr", -1, a_u8, 1) != MIO_OK);
    T_EQ_INT(mio_writer_kv_count(w), (int64_t)N_KEYS);

    int64_t ne0[1] = {10}, ne1[2] = {64, 2}, ne2[2] = {3, 2}, ne3[4] = {256, 1, 1, 2};
    T_OK(mio_writer_add_tensor(w, "t0", MIO_TYPE_F32, 1, ne0, t0, sizeof t0));
    T_OK(mio_writer_add_tensor(w, "t1", MIO_TYPE_Q8_0, 2, ne1, t1, sizeof t1));
    T_OK(mio_writer_add_tensor(w, "t2", MIO_TYPE_F16, 2, ne2, t2, sizeof t2));
    T_OK(mio_writer_add_tensor(w, "t3", MIO_TYPE_Q4_K, 4, ne3, t3, sizeof t3));
    T_EQ_INT(mio_writer_tensor_count(w), 4);
    T_EQ_INT(mio_writer_alignment(w), 32);
    return w;
}

static void check_scalars(const mio_gguf_file *f) {
    int64_t i64 = 0;
    uint64_t u64 = 0;
    double d = 0;
    int b = -1;
    mio_str s = {0};

    /* integers widen across widths */
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.u8"), &i64)); T_EQ_INT(i64, 200);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.u8"), &u64)); T_EQ_U64(u64, 200);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.i8"), &i64)); T_EQ_INT(i64, -100);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.u16"), &i64)); T_EQ_INT(i64, 60000);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.u16"), &u64)); T_EQ_U64(u64, 60000);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.i16"), &i64)); T_EQ_INT(i64, -30000);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.u32"), &i64)); T_EQ_INT(i64, 4000000000LL);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.u32"), &u64)); T_EQ_U64(u64, 4000000000u);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.i32"), &i64)); T_EQ_INT(i64, -2000000000);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.u64"), &u64)); T_EQ_U64(u64, UINT64_MAX);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.i64"), &i64)); T_CHECK(i64 == INT64_MIN);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.u64.2p63m1"), &u64)); T_EQ_U64(u64, 0x7fffffffffffffffull);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.u64.2p63m1"), &i64)); T_EQ_INT(i64, INT64_MAX);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.u64.2p63"), &u64)); T_EQ_U64(u64, 0x8000000000000000ull);
    T_OK(mio_gguf_kv_i64(f, key_index(f, "t.bool"), &i64)); T_EQ_INT(i64, 1);
    T_OK(mio_gguf_kv_u64(f, key_index(f, "t.bool0"), &u64)); T_EQ_U64(u64, 0);

    /* range errors leave the output untouched */
    i64 = 77; u64 = 77;
    T_STATUS(mio_gguf_kv_i64(f, key_index(f, "t.u64"), &i64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_kv_i64(f, key_index(f, "t.u64.2p63"), &i64), MIO_ERR_OUT_OF_RANGE);
    T_MSG_HAS("t.u64.2p63");
    T_STATUS(mio_gguf_kv_u64(f, key_index(f, "t.i64"), &u64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_kv_u64(f, key_index(f, "t.i8"), &u64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_kv_u64(f, key_index(f, "t.i8.neg"), &u64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_kv_u64(f, key_index(f, "t.i32"), &u64), MIO_ERR_OUT_OF_RANGE);
    T_EQ_INT(i64, 77);
    T_EQ_U64(u64, 77);

    /* floats */
    T_OK(mio_gguf_kv_f64(f, key_index(f, "t.f32"), &d)); T_CHECK(d == 1.5);
    T_OK(mio_gguf_kv_f64(f, key_index(f, "t.f64"), &d)); T_CHECK(d == -2.25);
    T_STATUS(mio_gguf_kv_f64(f, key_index(f, "t.str"), &d), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_kv_i64(f, key_index(f, "t.f32"), &i64), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_kv_u64(f, key_index(f, "t.f64"), &u64), MIO_ERR_TYPE_MISMATCH);

    /* bool */
    T_OK(mio_gguf_kv_bool(f, key_index(f, "t.bool"), &b)); T_EQ_INT(b, 1);
    T_OK(mio_gguf_kv_bool(f, key_index(f, "t.bool0"), &b)); T_EQ_INT(b, 0);
    T_STATUS(mio_gguf_kv_bool(f, key_index(f, "t.str"), &b), MIO_ERR_TYPE_MISMATCH);

    /* strings */
    T_OK(mio_gguf_kv_str(f, key_index(f, "t.str"), &s)); T_EQ_MSTR(s, "hello");
    T_OK(mio_gguf_kv_str(f, key_index(f, "general.architecture"), &s)); T_EQ_MSTR(s, "llama");
    T_OK(mio_gguf_kv_str(f, key_index(f, "t.strbin"), &s));
    T_CHECK(s.len == 5 && memcmp(s.ptr, "a\0b\xff\xfe", 5) == 0);
    T_OK(mio_gguf_kv_str(f, key_index(f, "t.strempty"), &s)); T_EQ_U64(s.len, 0);
    T_STATUS(mio_gguf_kv_str(f, key_index(f, "t.u8"), &s), MIO_ERR_TYPE_MISMATCH);
    T_MSG_HAS("t.u8");
    T_STATUS(mio_gguf_kv_i64(f, key_index(f, "t.str"), &i64), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_kv_i64(f, key_index(f, "a.i32"), &i64), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_kv_str(f, key_index(f, "a.str"), &s), MIO_ERR_TYPE_MISMATCH);

    /* bad indices */
    int64_t n = mio_gguf_kv_count(f);
    T_STATUS(mio_gguf_kv_i64(f, -1, &i64), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_gguf_kv_i64(f, n, &i64), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_gguf_kv_str(f, n, &s), MIO_ERR_INVALID_ARG);
    mio_str none = mio_gguf_kv_key(f, n);
    T_CHECK(none.ptr == NULL && none.len == 0);
    none = mio_gguf_kv_key(f, -1);
    T_CHECK(none.ptr == NULL && none.len == 0);
    T_EQ_INT(mio_gguf_kv_type(f, n), -1);
    T_EQ_INT(mio_gguf_kv_type(f, -1), -1);

    /* find_key */
    T_EQ_INT(mio_gguf_find_key(f, "t.u8"), 1);
    T_EQ_INT(mio_gguf_find_key(f, "a.big"), (int64_t)N_KEYS - 1);
    T_EQ_INT(mio_gguf_find_key(f, "t.u"), -1);
    T_EQ_INT(mio_gguf_find_key(f, "t.u8x"), -1);
    T_EQ_INT(mio_gguf_find_key(f, "nope"), -1);
    T_EQ_INT(mio_gguf_find_key(f, ""), -1);
}

static void check_values(const mio_gguf_file *f) {
    mio_gguf_value v;
    mio_str raw;
    /* scalar values: data/size span the value */
    T_OK(mio_gguf_kv_value(f, key_index(f, "t.u16"), &v));
    T_EQ_INT(v.type, MIO_GGUF_U16); T_EQ_INT(v.elem_type, -1); T_EQ_U64(v.count, 1); T_EQ_U64(v.size, 2);
    T_CHECK(v.data && ((const uint8_t *)v.data)[0] == 0x60 && ((const uint8_t *)v.data)[1] == 0xEA); /* 60000 */
    T_OK(mio_gguf_kv_value(f, key_index(f, "t.u64"), &v));
    T_EQ_U64(v.size, 8);
    T_OK(mio_gguf_kv_value(f, key_index(f, "t.str"), &v));
    T_EQ_INT(v.type, MIO_GGUF_STRING); T_EQ_U64(v.size, 5);
    T_CHECK(v.data && memcmp(v.data, "hello", 5) == 0);
    int64_t i64 = 0; uint64_t u64 = 0; double d = 0;
    T_OK(mio_gguf_kv_value(f, key_index(f, "t.i16"), &v));
    T_OK(mio_gguf_value_i64(&v, &i64)); T_EQ_INT(i64, -30000);
    T_STATUS(mio_gguf_value_u64(&v, &u64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_value_f64(&v, &d), MIO_ERR_TYPE_MISMATCH);
    T_OK(mio_gguf_kv_value(f, key_index(f, "t.f32"), &v));
    T_OK(mio_gguf_value_f64(&v, &d)); T_CHECK(d == 1.5);

    /* raw wire values */
    T_OK(mio_gguf_kv_raw(f, key_index(f, "t.u32"), &raw));
    T_CHECK(raw.len == 4 && memcmp(raw.ptr, "\x00\x28\x6b\xee", 4) == 0); /* 4000000000 = 0xEE6B2800 */
    T_OK(mio_gguf_kv_raw(f, key_index(f, "t.str"), &raw));
    T_CHECK(raw.len == 13 && memcmp(raw.ptr, "\x05\0\0\0\0\0\0\0hello", 13) == 0);
    T_OK(mio_gguf_kv_raw(f, key_index(f, "a.i16"), &raw));
    T_CHECK(raw.len == 4 + 8 + 6 && memcmp(raw.ptr, "\x03\0\0\0\x03\0\0\0\0\0\0\0\x00\x80\xff\x7f\x05\x00", 18) == 0);

    /* arrays: element bytes equal the input */
    struct { const char *key; int et; const void *src; uint64_t n; size_t esz; } arrs[] = {
        {"a.u8", MIO_GGUF_U8, a_u8, 3, 1},     {"a.i8", MIO_GGUF_I8, a_i8, 4, 1},
        {"a.u16", MIO_GGUF_U16, a_u16, 2, 2},  {"a.i16", MIO_GGUF_I16, a_i16, 3, 2},
        {"a.u32", MIO_GGUF_U32, a_u32, 1, 4},  {"a.i32", MIO_GGUF_I32, a_i32, 2, 4},
        {"a.f32", MIO_GGUF_F32, a_f32, 2, 4},  {"a.bool", MIO_GGUF_BOOL, a_bool, 3, 1},
        {"a.u64", MIO_GGUF_U64, a_u64, 2, 8},  {"a.i64", MIO_GGUF_I64, a_i64, 3, 8},
        {"a.f64", MIO_GGUF_F64, a_f64, 2, 8},  {"a.empty", MIO_GGUF_U32, NULL, 0, 4},
    };
    for (size_t k = 0; k < sizeof arrs / sizeof arrs[0]; k++) {
        memset(&v, 0, sizeof v);
        T_OK(mio_gguf_kv_value(f, key_index(f, arrs[k].key), &v));
        T_EQ_INT(v.type, MIO_GGUF_ARRAY);
        T_EQ_INT(v.elem_type, arrs[k].et);
        T_EQ_U64(v.count, arrs[k].n);
        T_EQ_U64(v.size, arrs[k].n * arrs[k].esz);
        T_EQ_INT(v.depth, 1);
        if (arrs[k].n) T_CHECK(v.data && memcmp(v.data, arrs[k].src, v.size) == 0);
    }

    int64_t ki = key_index(f, "a.i16");
    T_OK(mio_gguf_arr_i64(f, ki, 0, &i64)); T_EQ_INT(i64, -32768);
    T_OK(mio_gguf_arr_i64(f, ki, 1, &i64)); T_EQ_INT(i64, 32767);
    T_OK(mio_gguf_arr_u64(f, ki, 2, &u64)); T_EQ_U64(u64, 5);
    T_STATUS(mio_gguf_arr_u64(f, ki, 0, &u64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_arr_i64(f, ki, 3, &i64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_arr_i64(f, ki, UINT64_MAX, &i64), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_arr_f64(f, ki, 0, &d), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_arr_str(f, ki, 0, &raw), MIO_ERR_TYPE_MISMATCH);
    ki = key_index(f, "a.u8");
    T_OK(mio_gguf_arr_i64(f, ki, 2, &i64)); T_EQ_INT(i64, 255);
    ki = key_index(f, "a.i8");
    T_OK(mio_gguf_arr_i64(f, ki, 3, &i64)); T_EQ_INT(i64, -128);
    ki = key_index(f, "a.u16");
    T_OK(mio_gguf_arr_u64(f, ki, 1, &u64)); T_EQ_U64(u64, 65535);
    ki = key_index(f, "a.u32");
    T_OK(mio_gguf_arr_i64(f, ki, 0, &i64)); T_EQ_INT(i64, 4000000000LL);
    ki = key_index(f, "a.i32");
    T_OK(mio_gguf_arr_i64(f, ki, 0, &i64)); T_EQ_INT(i64, -5);
    ki = key_index(f, "a.bool");
    T_OK(mio_gguf_arr_i64(f, ki, 2, &i64)); T_EQ_INT(i64, 1);
    T_OK(mio_gguf_arr_u64(f, ki, 1, &u64)); T_EQ_U64(u64, 0);
    ki = key_index(f, "a.u64");
    T_OK(mio_gguf_arr_u64(f, ki, 0, &u64)); T_EQ_U64(u64, UINT64_MAX);
    T_STATUS(mio_gguf_arr_i64(f, ki, 0, &i64), MIO_ERR_OUT_OF_RANGE);
    T_OK(mio_gguf_arr_i64(f, ki, 1, &i64)); T_EQ_INT(i64, 5);
    ki = key_index(f, "a.i64");
    T_OK(mio_gguf_arr_i64(f, ki, 0, &i64)); T_CHECK(i64 == INT64_MIN);
    T_STATUS(mio_gguf_arr_u64(f, ki, 1, &u64), MIO_ERR_OUT_OF_RANGE);
    T_OK(mio_gguf_arr_u64(f, ki, 2, &u64)); T_EQ_U64(u64, 3);
    ki = key_index(f, "a.f32");
    T_OK(mio_gguf_arr_f64(f, ki, 0, &d)); T_CHECK(d == 0.25);
    T_OK(mio_gguf_arr_f64(f, ki, 1, &d)); T_CHECK(d == -1.0);
    T_STATUS(mio_gguf_arr_i64(f, ki, 0, &i64), MIO_ERR_TYPE_MISMATCH);
    ki = key_index(f, "a.f64");
    T_OK(mio_gguf_arr_f64(f, ki, 0, &d)); T_CHECK(d == 1e300);
    ki = key_index(f, "a.empty");
    T_STATUS(mio_gguf_arr_u64(f, ki, 0, &u64), MIO_ERR_OUT_OF_RANGE);
    /* array getters on a scalar key */
    T_STATUS(mio_gguf_arr_i64(f, key_index(f, "t.u8"), 0, &i64), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_arr_str(f, key_index(f, "t.str"), 0, &raw), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_arr_i64(f, -1, 0, &i64), MIO_ERR_INVALID_ARG);

    /* string arrays */
    ki = key_index(f, "a.str");
    T_OK(mio_gguf_kv_value(f, ki, &v));
    T_EQ_INT(v.elem_type, MIO_GGUF_STRING); T_EQ_U64(v.count, 4);
    T_EQ_U64(v.size, 4 * 8 + 1 + 0 + 3 + 3);
    for (uint64_t j = 0; j < 4; j++) {
        T_OK(mio_gguf_arr_str(f, ki, j, &raw));
        T_CHECK(raw.len == a_str_len[j] && memcmp(raw.ptr, a_str[j], raw.len) == 0);
    }
    T_STATUS(mio_gguf_arr_str(f, ki, 4, &raw), MIO_ERR_OUT_OF_RANGE);
    T_STATUS(mio_gguf_arr_i64(f, ki, 0, &i64), MIO_ERR_TYPE_MISMATCH);
    mio_gguf_value e;
    T_OK(mio_gguf_value_elem(&v, 2, &e));
    T_EQ_INT(e.type, MIO_GGUF_STRING); T_EQ_U64(e.size, 3);
    T_CHECK(e.data && memcmp(e.data, "a\0b", 3) == 0);
    T_STATUS(mio_gguf_value_elem(&v, 4, &e), MIO_ERR_OUT_OF_RANGE);
    ki = key_index(f, "a.strnul");
    T_OK(mio_gguf_arr_str(f, ki, 1, &raw)); T_EQ_MSTR(raw, "two");

    /* value_elem on fixed-width arrays */
    T_OK(mio_gguf_kv_value(f, key_index(f, "a.i32"), &v));
    T_OK(mio_gguf_value_elem(&v, 1, &e));
    T_EQ_INT(e.type, MIO_GGUF_I32); T_EQ_INT(e.elem_type, -1); T_EQ_U64(e.count, 1); T_EQ_U64(e.size, 4);
    T_OK(mio_gguf_value_i64(&e, &i64)); T_EQ_INT(i64, 7);
    T_OK(mio_gguf_kv_value(f, key_index(f, "a.u64"), &v));
    T_OK(mio_gguf_value_elem(&v, 0, &e));
    T_OK(mio_gguf_value_u64(&e, &u64)); T_EQ_U64(u64, UINT64_MAX);
    T_STATUS(mio_gguf_value_i64(&e, &i64), MIO_ERR_OUT_OF_RANGE);
    T_OK(mio_gguf_kv_value(f, key_index(f, "a.f64"), &v));
    T_OK(mio_gguf_value_elem(&v, 1, &e));
    T_OK(mio_gguf_value_f64(&e, &d)); T_CHECK(d == -0.5);
    T_STATUS(mio_gguf_value_elem(&v, 2, &e), MIO_ERR_OUT_OF_RANGE);

    /* the 100k string array: i-th string, both directions, then out of range */
    ki = key_index(f, "a.big");
    T_OK(mio_gguf_kv_value(f, ki, &v));
    T_EQ_U64(v.count, N_BIG);
    /* 10 of 1-char digits "tok0".."tok9" = 4 bytes, 90 of 5, 900 of 6, 9000 of 7, 90000 of 8 */
    T_EQ_U64(v.size, 8ull * N_BIG + 10 * 4 + 90 * 5 + 900 * 6 + 9000 * 7 + 90000 * 8);
    T_OK(mio_gguf_arr_str(f, ki, 99999, &raw)); T_EQ_MSTR(raw, "tok99999");
    T_OK(mio_gguf_arr_str(f, ki, 0, &raw)); T_EQ_MSTR(raw, "tok0");
    T_OK(mio_gguf_arr_str(f, ki, 50000, &raw)); T_EQ_MSTR(raw, "tok50000");
    T_OK(mio_gguf_arr_str(f, ki, 12345, &raw)); T_EQ_MSTR(raw, "tok12345");
    int bad = 0;
    char want[16];
    for (uint32_t j = 0; j < N_BIG; j += 997) {
        snprintf(want, sizeof want, "tok%u", j);
        if (mio_gguf_arr_str(f, ki, j, &raw) != MIO_OK || raw.len != strlen(want) || memcmp(raw.ptr, want, raw.len))
            bad++;
    }
    T_EQ_INT(bad, 0);
    raw.ptr = "untouched"; raw.len = 9;
    T_STATUS(mio_gguf_arr_str(f, ki, N_BIG, &raw), MIO_ERR_OUT_OF_RANGE);
    T_EQ_MSTR(raw, "untouched");
}

static void check_tensors(const mio_gguf_file *f, const uint8_t *base) {
    T_EQ_INT(mio_gguf_tensor_count(f), 4);
    T_EQ_INT(mio_gguf_version(f), 3);
    T_EQ_INT(mio_gguf_alignment(f), 32);
    T_EQ_INT(mio_gguf_part_count(f), 1);
    uint64_t hs = mio_gguf_header_size(f), doff = mio_gguf_data_offset(f);
    T_CHECK(doff % 32 == 0 && doff >= hs && doff < hs + 32);
    T_EQ_U64(mio_gguf_part_data_offset(f, 0), doff);
    T_EQ_U64(mio_gguf_file_size(f), doff + DATA_BYTES);
    /* header size by hand: 24 + each KV + each tensor info */
    uint64_t h = 24;
    for (size_t k = 0; k < N_KEYS; k++) {
        mio_str raw;
        T_OK(mio_gguf_kv_raw(f, (int64_t)k, &raw));
        h += 8 + strlen(k_keys[k].key) + 4 + raw.len;
    }
    h += (8 + 2 + 4 + 8 * 1 + 4 + 8) + (8 + 2 + 4 + 8 * 2 + 4 + 8) * 2 + (8 + 2 + 4 + 8 * 4 + 4 + 8);
    T_EQ_U64(hs, h);

    static const char *const names[4] = {"t0", "t1", "t2", "t3"};
    static const int types[4] = {MIO_TYPE_F32, MIO_TYPE_Q8_0, MIO_TYPE_F16, MIO_TYPE_Q4_K};
    static const uint32_t nd[4] = {1, 2, 2, 4};
    static const int64_t ne[4][4] = {{10, 1, 1, 1}, {64, 2, 1, 1}, {3, 2, 1, 1}, {256, 1, 1, 2}};
    const void *src[4] = {t0, t1, t2, t3};
    static const uint64_t nb[4] = {40, 136, 12, 288};
    for (int i = 0; i < 4; i++) {
        mio_gguf_tensor t;
        memset(&t, 0, sizeof t);
        T_OK(mio_gguf_tensor_info(f, i, &t));
        T_EQ_MSTR(t.name, names[i]);
        T_EQ_INT(t.n_dims, nd[i]);
        for (int k = 0; k < 4; k++) T_EQ_INT(t.ne[k], ne[i][k]);
        T_EQ_INT(t.type, types[i]);
        T_EQ_U64(t.offset, k_toff[i]);
        T_EQ_U64(t.nbytes, nb[i]);
        T_EQ_INT(t.part, 0);
        T_CHECK(t.data && memcmp(t.data, src[i], nb[i]) == 0);
        if (base) T_CHECK((const uint8_t *)t.data == base + doff + k_toff[i]);
        T_EQ_INT(mio_gguf_find_tensor(f, names[i]), i);
    }
    if (base) {
        /* padding after t0 (bytes 40..63 of the data section) and at the end is zero */
        int nz = 0;
        for (uint64_t k = 40; k < 64; k++) nz += base[doff + k] != 0;
        for (uint64_t k = 64 + 136; k < 224; k++) nz += base[doff + k] != 0;
        for (uint64_t k = 224 + 12; k < 256; k++) nz += base[doff + k] != 0;
        for (uint64_t k = hs; k < doff; k++) nz += base[k] != 0;
        T_EQ_INT(nz, 0);
    }
    T_EQ_INT(mio_gguf_find_tensor(f, "t4"), -1);
    T_EQ_INT(mio_gguf_find_tensor(f, "t"), -1);
    mio_gguf_tensor t;
    T_STATUS(mio_gguf_tensor_info(f, 4, &t), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_gguf_tensor_info(f, -1, &t), MIO_ERR_INVALID_ARG);

    int64_t rows = 0, cols = 0;
    T_OK(mio_gguf_tensor_info(f, 1, &t));
    T_OK(mio_gguf_tensor_shape2d(&t, &rows, &cols));
    T_EQ_INT(rows, 2); T_EQ_INT(cols, 64);
    T_OK(mio_gguf_tensor_info(f, 2, &t));
    T_OK(mio_gguf_tensor_shape2d(&t, &rows, &cols));
    T_EQ_INT(rows, 2); T_EQ_INT(cols, 3);
}

static void check_all(const mio_gguf_file *f, const uint8_t *base) {
    T_EQ_INT(mio_gguf_kv_count(f), (int64_t)N_KEYS);
    for (size_t k = 0; k < N_KEYS; k++) {
        T_EQ_MSTR(mio_gguf_kv_key(f, (int64_t)k), k_keys[k].key);
        T_EQ_INT(mio_gguf_kv_type(f, (int64_t)k), k_keys[k].type);
        T_EQ_INT(mio_gguf_find_key(f, k_keys[k].key), (int64_t)k);
    }
    check_scalars(f);
    check_values(f);
    check_tensors(f, base);
}

static void test_all_types(void) {
    fill_tensors();
    mio_writer *w = build_all();
    if (!w) return;
    unlink("rw_all.gguf");
    T_OK(mio_writer_write_file(w, "rw_all.gguf"));
    membuf m = {0};
    T_OK(mio_writer_write_cb(w, mem_sink, &m));
    uint64_t whs = mio_writer_header_size(w);
    mio_writer_free(w);

    size_t len = 0;
    uint8_t *bytes = t_read_file("rw_all.gguf", &len);
    T_CHECK(bytes != NULL);
    if (!bytes) return;
    T_EQ_INT(compare_bytes("write_file vs write_cb", bytes, len, m.p, m.len), 0);
    free(m.p);
    /* fixed header bytes */
    T_CHECK(memcmp(bytes, "GGUF\x03\0\0\0\x04\0\0\0\0\0\0\0", 16) == 0);
    T_CHECK(bytes[16] == N_KEYS && memcmp(bytes + 17, "\0\0\0\0\0\0\0", 7) == 0);

    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("rw_all.gguf", MIO_OPEN_MMAP, &f));
    if (f) {
        T_EQ_U64(mio_gguf_file_size(f), len);
        T_EQ_U64(mio_gguf_header_size(f), whs);
        check_all(f, NULL);
        mio_gguf_close(f);
    }
    f = NULL;
    T_OK(mio_gguf_open("rw_all.gguf", MIO_OPEN_READ, &f));
    if (f) { check_all(f, NULL); mio_gguf_close(f); }
    f = NULL;
    T_OK(mio_gguf_open_buffer(bytes, len, MIO_BUFFER_BORROW, &f));
    if (f) { check_all(f, bytes); mio_gguf_close(f); }
    /* the borrowed buffer is still ours */
    T_CHECK(memcmp(bytes, "GGUF", 4) == 0);
    uint8_t *copy = malloc(len);
    memcpy(copy, bytes, len);
    f = NULL;
    T_OK(mio_gguf_open_buffer(copy, len, MIO_BUFFER_TAKE, &f));
    if (f) { check_all(f, copy); mio_gguf_close(f); } /* frees copy */
    /* TAKE on a failing open frees the buffer too (no double free / leak under ASan) */
    uint8_t *bad = malloc(16);
    memcpy(bad, "GGUX\x03\0\0\0\0\0\0\0\0\0\0\0", 16);
    f = (mio_gguf_file *)1;
    T_STATUS(mio_gguf_open_buffer(bad, 16, MIO_BUFFER_TAKE, &f), MIO_ERR_BAD_MAGIC);
    T_CHECK(f == NULL || f == (mio_gguf_file *)1);
    f = NULL;
    T_STATUS(mio_gguf_open("does-not-exist.gguf", 0, &f), MIO_ERR_NOT_FOUND);
    T_MSG_HAS("does-not-exist.gguf");
    T_CHECK(f == NULL);
    free(bytes);
}

/* 24-byte header + KV "a" u32 = 7 (8+1+4+4 = 17) + tensor "t" f32[10]
 * (8+1+4+8+4+8 = 33) = 74 -> data at 96; 40 data bytes padded to 64 -> 160. */
static void test_tiny(void) {
    float data[10];
    for (int i = 0; i < 10; i++) data[i] = (float)(i + 1);
    bb e = {{0}, 0};
    bb_mem(&e, "GGUF", 4); bb_u32(&e, 3); bb_u64(&e, 1); bb_u64(&e, 1);
    bb_str(&e, "a"); bb_u32(&e, MIO_GGUF_U32); bb_u32(&e, 7);
    bb_str(&e, "t"); bb_u32(&e, 1); bb_u64(&e, 10); bb_u32(&e, MIO_TYPE_F32); bb_u64(&e, 0);
    T_EQ_U64(e.n, 74);
    while (e.n < 96) bb_u8(&e, 0);
    bb_mem(&e, data, 40);
    while (e.n < 160) bb_u8(&e, 0);

    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    if (!w) return;
    T_OK(mio_writer_set_u32(w, "a", 7));
    int64_t ne[1] = {10};
    T_OK(mio_writer_add_tensor(w, "t", MIO_TYPE_F32, 1, ne, data, 40));
    T_EQ_U64(mio_writer_header_size(w), 74);
    membuf m = {0};
    T_OK(mio_writer_write_cb(w, mem_sink, &m));
    T_EQ_INT(compare_bytes("tiny file", m.p, m.len, e.b, e.n), 0);
    mio_writer_free(w);

    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open_buffer(m.p, m.len, MIO_BUFFER_BORROW, &f));
    if (f) {
        T_EQ_U64(mio_gguf_header_size(f), 74);
        T_EQ_U64(mio_gguf_data_offset(f), 96);
        T_EQ_U64(mio_gguf_file_size(f), 160);
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, 0, &t));
        T_CHECK((const uint8_t *)t.data == m.p + 96);
        T_EQ_U64(t.nbytes, 40);
        int64_t r = 0, c = 0;
        /* a 1-D tensor is not 2-D */
        T_CHECK(mio_gguf_tensor_shape2d(&t, &r, &c) != MIO_OK);
        mio_gguf_close(f);
    }
    free(m.p);

    /* no tensors: ggml pads the empty data section (41 -> 64), gguf-py does not */
    for (int flag = 0; flag < 2; flag++) {
        w = NULL;
        T_OK(mio_writer_new(flag ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT, &w));
        if (!w) return;
        T_OK(mio_writer_set_u32(w, "a", 7));
        membuf m2 = {0};
        T_OK(mio_writer_write_cb(w, mem_sink, &m2));
        T_EQ_U64(m2.len, flag ? 41 : 64);
        T_CHECK(m2.len >= 41 && memcmp(m2.p, e.b, 8) == 0 && m2.p[16] == 1 && m2.p[8] == 0);
        T_CHECK(m2.len >= 41 && memcmp(m2.p + 24, e.b + 24, 17) == 0);
        f = NULL;
        T_OK(mio_gguf_open_buffer(m2.p, m2.len, MIO_BUFFER_BORROW, &f));
        if (f) {
            T_EQ_U64(mio_gguf_header_size(f), 41);
            T_EQ_U64(mio_gguf_data_offset(f), 64);
            T_EQ_U64(mio_gguf_file_size(f), m2.len);
            mio_gguf_close(f);
        }
        free(m2.p);
        mio_writer_free(w);
    }
}

static void test_edit(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    if (!w) return;
    T_OK(mio_writer_set_u32(w, "k1", 1));
    T_OK(mio_writer_set_str(w, "k2", "x", 1));
    T_OK(mio_writer_set_i8(w, "k3", 3));
    T_OK(mio_writer_set_str(w, "k1", "replaced", 8)); /* new type, same place */
    T_OK(mio_writer_set_i8(w, "k3", -3));
    T_EQ_INT(mio_writer_kv_count(w), 3);
    T_OK(mio_writer_remove_key(w, "k2"));
    T_STATUS(mio_writer_remove_key(w, "k2"), MIO_ERR_NOT_FOUND);
    T_MSG_HAS("k2");
    T_STATUS(mio_writer_remove_key(w, "zz"), MIO_ERR_NOT_FOUND);
    T_EQ_INT(mio_writer_kv_count(w), 2);
    T_OK(mio_writer_set_u16(w, "k4", 4));
    T_OK(mio_writer_set_str(w, "k2", "back", 4)); /* re-added after removal: goes last */
    membuf m = {0};
    T_OK(mio_writer_write_cb(w, mem_sink, &m));
    mio_writer_free(w);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open_buffer(m.p, m.len, MIO_BUFFER_BORROW, &f));
    if (f) {
        T_EQ_INT(mio_gguf_kv_count(f), 4);
        T_EQ_MSTR(mio_gguf_kv_key(f, 0), "k1");
        T_EQ_MSTR(mio_gguf_kv_key(f, 1), "k3");
        T_EQ_MSTR(mio_gguf_kv_key(f, 2), "k4");
        T_EQ_MSTR(mio_gguf_kv_key(f, 3), "k2");
        T_EQ_INT(mio_gguf_kv_type(f, 0), MIO_GGUF_STRING);
        T_EQ_INT(mio_gguf_kv_type(f, 1), MIO_GGUF_I8);
        mio_str s;
        T_OK(mio_gguf_kv_str(f, 0, &s)); T_EQ_MSTR(s, "replaced");
        int64_t v = 0;
        T_OK(mio_gguf_kv_i64(f, 1, &v)); T_EQ_INT(v, -3);
        T_OK(mio_gguf_kv_str(f, 3, &s)); T_EQ_MSTR(s, "back");
        T_EQ_INT(mio_gguf_tensor_count(f), 0);
        mio_gguf_close(f);
    }
    free(m.p);
}

static void test_alignment(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    if (!w) return;
    T_OK(mio_writer_set_u32(w, "general.alignment", 64));
    T_EQ_INT(mio_writer_alignment(w), 64);
    T_STATUS(mio_writer_set_u32(w, "general.alignment", 0), MIO_ERR_INVALID_ALIGNMENT);
    T_STATUS(mio_writer_set_u32(w, "general.alignment", 3), MIO_ERR_INVALID_ALIGNMENT);
    T_MSG_HAS("3");
    T_STATUS(mio_writer_set_u32(w, "general.alignment", 1u << 21), MIO_ERR_INVALID_ALIGNMENT);
    T_STATUS(mio_writer_set_u32(w, "general.alignment", 96), MIO_ERR_INVALID_ALIGNMENT);
    T_STATUS(mio_writer_set_u64(w, "general.alignment", 64), MIO_ERR_INVALID_ALIGNMENT);
    T_STATUS(mio_writer_set_i32(w, "general.alignment", 64), MIO_ERR_INVALID_ALIGNMENT);
    T_STATUS(mio_writer_set_str(w, "general.alignment", "64", 2), MIO_ERR_INVALID_ALIGNMENT);
    uint32_t al[1] = {64};
    T_STATUS(mio_writer_set_arr(w, "general.alignment", MIO_GGUF_U32, al, 1), MIO_ERR_INVALID_ALIGNMENT);
    T_EQ_INT(mio_writer_alignment(w), 64); /* unchanged by the refusals */
    T_EQ_INT(mio_writer_kv_count(w), 1);
    T_OK(mio_writer_set_u32(w, "general.alignment", 1u << 20));
    T_EQ_INT(mio_writer_alignment(w), 1u << 20);
    T_OK(mio_writer_set_u32(w, "general.alignment", 1));
    T_EQ_INT(mio_writer_alignment(w), 1);
    T_OK(mio_writer_set_u32(w, "general.alignment", 64));
    T_EQ_INT(mio_writer_kv_count(w), 1);

    float data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int64_t ne[1] = {10};
    T_OK(mio_writer_add_tensor(w, "t", MIO_TYPE_F32, 1, ne, data, 40));
    /* 24 + (8+17+4+4 = 33) + (8+1+4+8+4+8 = 33) = 90 -> 128; 40 -> 64: 192 */
    T_EQ_U64(mio_writer_header_size(w), 90);
    unlink("rw_align.gguf");
    T_OK(mio_writer_write_file(w, "rw_align.gguf"));
    mio_writer_free(w);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("rw_align.gguf", 0, &f));
    if (f) {
        T_EQ_INT(mio_gguf_alignment(f), 64);
        T_EQ_U64(mio_gguf_header_size(f), 90);
        T_EQ_U64(mio_gguf_data_offset(f), 128);
        T_EQ_U64(mio_gguf_file_size(f), 192);
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, 0, &t));
        T_CHECK(memcmp(t.data, data, 40) == 0);
        /* a verbatim copy of all keys carries the alignment into the new writer */
        mio_writer *w2 = NULL;
        T_OK(mio_writer_new(0, &w2));
        if (w2) {
            T_OK(mio_writer_copy_all_kv(w2, f, NULL, 0));
            T_EQ_INT(mio_writer_alignment(w2), 64);
            mio_writer_free(w2);
        }
        mio_gguf_close(f);
    }
}

static void test_tensor_errors(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    if (!w) return;
    uint8_t buf[512] = {0};
    int64_t ne[2] = {32, 2};
    T_OK(mio_writer_add_tensor(w, "a", MIO_TYPE_F32, 2, ne, buf, 256));
    T_STATUS(mio_writer_add_tensor(w, "a", MIO_TYPE_F32, 2, ne, buf, 256), MIO_ERR_DUPLICATE_TENSOR);
    T_MSG_HAS("a");
    T_STATUS(mio_writer_declare_tensor(w, "a", MIO_TYPE_F16, 2, ne), MIO_ERR_DUPLICATE_TENSOR);
    T_STATUS(mio_writer_add_tensor(w, "b", MIO_TYPE_F32, 2, ne, buf, 255), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("b");
    T_STATUS(mio_writer_add_tensor(w, "b", MIO_TYPE_F32, 2, ne, buf, 257), MIO_ERR_SIZE_MISMATCH);
    T_STATUS(mio_writer_add_tensor(w, "b", MIO_TYPE_Q8_0, 2, ne, buf, 256), MIO_ERR_SIZE_MISMATCH);
    T_OK(mio_writer_add_tensor(w, "b", MIO_TYPE_Q8_0, 2, ne, buf, 68));
    /* NULL data: the pointer is what is wrong, whatever the length says */
    T_STATUS(mio_writer_add_tensor(w, "d", MIO_TYPE_F32, 2, ne, NULL, 256), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("tensor 'd': data is NULL (len 256)");
    T_CHECK(strstr(mio_last_error(), "bytes given") == NULL);
    T_STATUS(mio_writer_add_tensor(w, "d", MIO_TYPE_F32, 2, ne, NULL, 100), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("tensor 'd': data is NULL (len 100)");
    /* NULL with length 0 is an empty buffer: then the size is what is wrong */
    T_STATUS(mio_writer_add_tensor(w, "d", MIO_TYPE_F32, 2, ne, NULL, 0), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("tensor 'd': 0 data bytes given, f32 x dims needs 256");
    char name63[64], name64[65];
    memset(name63, 'n', 63); name63[63] = 0;
    memset(name64, 'n', 64); name64[64] = 0;
    int64_t ne1[1] = {4};
    /* a bad name is bad tensor info; a NULL name is a bad argument */
    T_STATUS(mio_writer_add_tensor(w, name64, MIO_TYPE_F32, 1, ne1, buf, 16), MIO_ERR_INVALID_TENSOR_INFO);
    T_MSG_HAS("is 64 bytes (must be under 64)");
    T_STATUS(mio_writer_declare_tensor(w, name64, MIO_TYPE_F32, 1, ne1), MIO_ERR_INVALID_TENSOR_INFO);
    T_MSG_HAS("is 64 bytes (must be under 64)");
    T_STATUS(mio_writer_add_tensor(w, "", MIO_TYPE_F32, 1, ne1, buf, 16), MIO_ERR_INVALID_TENSOR_INFO);
    T_MSG_HAS("tensor name is empty");
    T_STATUS(mio_writer_add_tensor(w, NULL, MIO_TYPE_F32, 1, ne1, buf, 16), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("name is NULL");
    T_OK(mio_writer_add_tensor(w, name63, MIO_TYPE_F32, 1, ne1, buf, 16));
    T_STATUS(mio_writer_add_tensor(w, "c", 4, 1, ne1, buf, 16), MIO_ERR_UNSUPPORTED_TYPE);
    T_STATUS(mio_writer_add_tensor(w, "c", 43, 1, ne1, buf, 16), MIO_ERR_UNSUPPORTED_TYPE);
    T_STATUS(mio_writer_add_tensor(w, "c", MIO_TYPE_F32, 0, ne1, buf, 16), MIO_ERR_INVALID_TENSOR_INFO);
    T_STATUS(mio_writer_add_tensor(w, "c", MIO_TYPE_F32, 5, ne1, buf, 16), MIO_ERR_INVALID_TENSOR_INFO);
    int64_t negd[2] = {4, -1};
    T_STATUS(mio_writer_add_tensor(w, "c", MIO_TYPE_F32, 2, negd, buf, 16), MIO_ERR_INVALID_TENSOR_INFO);
    int64_t odd[1] = {33};
    T_STATUS(mio_writer_declare_tensor(w, "c", MIO_TYPE_Q8_0, 1, odd), MIO_ERR_INVALID_TENSOR_INFO);
    T_EQ_INT(mio_writer_tensor_count(w), 3);

    /* write_file refuses a declared tensor without data and leaves nothing */
    T_OK(mio_writer_declare_tensor(w, "nodata", MIO_TYPE_F32, 1, ne1));
    unlink("rw_nodata.gguf");
    T_STATUS(mio_writer_write_file(w, "rw_nodata.gguf"), MIO_ERR_INCOMPLETE);
    T_MSG_HAS("nodata");
    T_CHECK(access("rw_nodata.gguf", F_OK) != 0);
    membuf m = {0};
    T_CHECK(mio_writer_write_cb(w, mem_sink, &m) != MIO_OK);
    free(m.p);
    mio_writer_free(w);
    mio_writer_free(NULL);
}

/* Verbatim copy keeps exact wire types. */
static void test_copy_kv(void) {
    mio_gguf_file *src = NULL;
    T_OK(mio_gguf_open("rw_all.gguf", 0, &src));
    if (!src) return;
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_copy_kv(w, src, mio_gguf_find_key(src, "t.u8")));
    T_OK(mio_writer_copy_kv(w, src, mio_gguf_find_key(src, "a.i16")));
    T_OK(mio_writer_copy_kv(w, src, mio_gguf_find_key(src, "t.strbin")));
    T_STATUS(mio_writer_copy_kv(w, src, mio_gguf_kv_count(src)), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_writer_copy_kv(w, src, -1), MIO_ERR_INVALID_ARG);
    T_EQ_INT(mio_writer_kv_count(w), 3);
    membuf m = {0};
    T_OK(mio_writer_write_cb(w, mem_sink, &m));
    mio_writer_free(w);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open_buffer(m.p, m.len, 0, &f));
    if (f) {
        T_EQ_INT(mio_gguf_kv_count(f), 3);
        T_EQ_MSTR(mio_gguf_kv_key(f, 0), "t.u8");
        T_EQ_INT(mio_gguf_kv_type(f, 0), MIO_GGUF_U8);
        mio_gguf_value v;
        T_OK(mio_gguf_kv_value(f, 1, &v));
        T_EQ_INT(v.type, MIO_GGUF_ARRAY);
        T_EQ_INT(v.elem_type, MIO_GGUF_I16);
        T_EQ_U64(v.count, 3);
        mio_str s;
        T_OK(mio_gguf_kv_str(f, 2, &s));
        T_CHECK(s.len == 5 && memcmp(s.ptr, "a\0b\xff\xfe", 5) == 0);
        mio_gguf_close(f);
    }
    free(m.p);

    /* copy_all with a skip list: everything else identical on the wire */
    const char *skip[] = {"t.u8", "a.big", "not.present"};
    w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_copy_all_kv(w, src, skip, 3));
    T_EQ_INT(mio_writer_kv_count(w), (int64_t)N_KEYS - 2);
    m.p = NULL; m.len = m.cap = 0;
    T_OK(mio_writer_write_cb(w, mem_sink, &m));
    mio_writer_free(w);
    f = NULL;
    T_OK(mio_gguf_open_buffer(m.p, m.len, 0, &f));
    if (f) {
        T_EQ_INT(mio_gguf_kv_count(f), (int64_t)N_KEYS - 2);
        T_EQ_INT(mio_gguf_find_key(f, "t.u8"), -1);
        T_EQ_INT(mio_gguf_find_key(f, "a.big"), -1);
        int64_t j = 0;
        int mismatches = 0;
        for (int64_t i = 0; i < mio_gguf_kv_count(src); i++) {
            mio_str k = mio_gguf_kv_key(src, i);
            if ((k.len == 4 && memcmp(k.ptr, "t.u8", 4) == 0) || (k.len == 5 && memcmp(k.ptr, "a.big", 5) == 0))
                continue;
            mio_str k2 = mio_gguf_kv_key(f, j), r1, r2;
            if (k2.len != k.len || memcmp(k.ptr, k2.ptr, k.len)) mismatches++;
            if (mio_gguf_kv_type(f, j) != mio_gguf_kv_type(src, i)) mismatches++;
            if (mio_gguf_kv_raw(src, i, &r1) != MIO_OK || mio_gguf_kv_raw(f, j, &r2) != MIO_OK || r1.len != r2.len ||
                memcmp(r1.ptr, r2.ptr, r1.len))
                mismatches++;
            j++;
        }
        T_EQ_INT(mismatches, 0);
        T_EQ_INT(j, (int64_t)N_KEYS - 2);
        mio_gguf_close(f);
    }
    free(m.p);
    mio_gguf_close(src);
}

/* Re-emit: parse -> copy all KVs -> add every tensor verbatim -> write. */
static void reemit(const char *path, uint32_t wflags) {
    size_t len = 0;
    uint8_t *orig = t_read_file(path, &len);
    T_CHECK(orig != NULL);
    if (!orig) return;
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(path, 0, &f));
    if (!f) { free(orig); return; }
    mio_writer *w = NULL;
    T_OK(mio_writer_new(wflags, &w));
    T_OK(mio_writer_copy_all_kv(w, f, NULL, 0));
    for (int64_t i = 0; i < mio_gguf_tensor_count(f); i++) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, i, &t));
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
        T_OK(mio_writer_add_tensor(w, name, t.type, t.n_dims, t.ne, t.data, (size_t)t.nbytes));
    }
    T_EQ_U64(mio_writer_header_size(w), mio_gguf_header_size(f));
    if (wflags & MIO_WRITER_NO_EMPTY_PAD) {
        /* without the flag the same content ends padded to the alignment (ggml's layout) */
        mio_writer *w2 = NULL;
        T_OK(mio_writer_new(0, &w2));
        T_OK(mio_writer_copy_all_kv(w2, f, NULL, 0));
        membuf m = {0};
        T_OK(mio_writer_write_cb(w2, mem_sink, &m));
        uint64_t al = mio_gguf_alignment(f);
        T_EQ_U64(m.len, (len + al - 1) / al * al);
        T_CHECK(m.len >= len && memcmp(m.p, orig, len) == 0);
        int nz = 0;
        for (size_t k = len; k < m.len; k++) nz += m.p[k] != 0;
        T_EQ_INT(nz, 0);
        free(m.p);
        mio_writer_free(w2);
    }
    const char *out = "rw_reemit.gguf";
    unlink(out);
    T_OK(mio_writer_write_file(w, out));
    mio_writer_free(w);
    mio_gguf_close(f);
    size_t len2 = 0;
    uint8_t *again = t_read_file(out, &len2);
    T_CHECK(again != NULL);
    if (again) {
        int diff = compare_bytes(path, orig, len, again, len2);
        T_EQ_INT(diff, 0);
    }
    free(again);
    free(orig);
}

/* Nested arrays, crafted by hand (the writer has no nested-array setter). */
static void test_nested(void) {
    bb x = {{0}, 0};
    bb_mem(&x, "GGUF", 4); bb_u32(&x, 3); bb_u64(&x, 0); bb_u64(&x, 4);
    /* nest: [[u16 1,2,3], [string "ab", ""]] */
    bb_str(&x, "nest"); bb_u32(&x, MIO_GGUF_ARRAY);
    size_t raw_start = x.n;
    bb_u32(&x, MIO_GGUF_ARRAY); bb_u64(&x, 2);
    size_t elems_start = x.n;
    bb_u32(&x, MIO_GGUF_U16); bb_u64(&x, 3); bb_u16(&x, 1); bb_u16(&x, 2); bb_u16(&x, 3);
    bb_u32(&x, MIO_GGUF_STRING); bb_u64(&x, 2); bb_str(&x, "ab"); bb_str(&x, "");
    size_t nest_end = x.n;
    bb_str(&x, "after"); bb_u32(&x, MIO_GGUF_U8); bb_u8(&x, 42);
    /* deep: 8 levels, innermost [i32 -7] */
    bb_str(&x, "deep"); bb_u32(&x, MIO_GGUF_ARRAY);
    for (int d = 0; d < 7; d++) { bb_u32(&x, MIO_GGUF_ARRAY); bb_u64(&x, 1); }
    bb_u32(&x, MIO_GGUF_I32); bb_u64(&x, 1); bb_u32(&x, (uint32_t)-7);
    /* five: 5 levels, innermost [u8 9, u8 10] */
    bb_str(&x, "five"); bb_u32(&x, MIO_GGUF_ARRAY);
    for (int d = 0; d < 4; d++) { bb_u32(&x, MIO_GGUF_ARRAY); bb_u64(&x, 1); }
    bb_u32(&x, MIO_GGUF_U8); bb_u64(&x, 2); bb_u8(&x, 9); bb_u8(&x, 10);

    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open_buffer(x.b, x.n, MIO_BUFFER_BORROW, &f));
    if (!f) return;
    T_EQ_INT(mio_gguf_kv_count(f), 4);
    T_EQ_U64(mio_gguf_header_size(f), x.n);
    mio_gguf_value v, e, e2;
    T_OK(mio_gguf_kv_value(f, 0, &v));
    T_EQ_INT(v.type, MIO_GGUF_ARRAY);
    T_EQ_INT(v.elem_type, MIO_GGUF_ARRAY);
    T_EQ_U64(v.count, 2);
    T_EQ_INT(v.depth, 2);
    T_EQ_U64(v.size, nest_end - elems_start); /* (4+8+6) + (4+8+10+8) = 48 */
    T_EQ_U64(v.size, 48);
    T_CHECK((const uint8_t *)v.data == x.b + elems_start);
    mio_str raw;
    T_OK(mio_gguf_kv_raw(f, 0, &raw));
    T_EQ_U64(raw.len, nest_end - raw_start);
    T_CHECK(raw.ptr == (const char *)x.b + raw_start);

    T_OK(mio_gguf_value_elem(&v, 0, &e));
    T_EQ_INT(e.type, MIO_GGUF_ARRAY); T_EQ_INT(e.elem_type, MIO_GGUF_U16);
    T_EQ_U64(e.count, 3); T_EQ_U64(e.size, 6); T_EQ_INT(e.depth, 1);
    uint64_t u = 0;
    T_OK(mio_gguf_value_elem(&e, 2, &e2));
    T_OK(mio_gguf_value_u64(&e2, &u)); T_EQ_U64(u, 3);
    T_STATUS(mio_gguf_value_elem(&e, 3, &e2), MIO_ERR_OUT_OF_RANGE);
    T_OK(mio_gguf_value_elem(&v, 1, &e));
    T_EQ_INT(e.type, MIO_GGUF_ARRAY); T_EQ_INT(e.elem_type, MIO_GGUF_STRING);
    T_EQ_U64(e.count, 2); T_EQ_U64(e.size, 8 + 2 + 8);
    T_OK(mio_gguf_value_elem(&e, 0, &e2));
    T_EQ_INT(e2.type, MIO_GGUF_STRING); T_EQ_U64(e2.size, 2);
    T_CHECK(e2.data && memcmp(e2.data, "ab", 2) == 0);
    T_OK(mio_gguf_value_elem(&e, 1, &e2));
    T_EQ_U64(e2.size, 0);
    T_STATUS(mio_gguf_value_elem(&v, 2, &e), MIO_ERR_OUT_OF_RANGE);
    int64_t i64 = 0;
    T_STATUS(mio_gguf_kv_i64(f, 0, &i64), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_arr_i64(f, 0, 0, &i64), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_arr_str(f, 0, 0, &raw), MIO_ERR_TYPE_MISMATCH);
    T_STATUS(mio_gguf_value_i64(&v, &i64), MIO_ERR_TYPE_MISMATCH);
    T_OK(mio_gguf_kv_i64(f, 1, &i64)); T_EQ_INT(i64, 42);

    T_OK(mio_gguf_kv_value(f, 2, &v));
    T_EQ_INT(v.depth, 8);
    T_EQ_U64(v.count, 1);
    int ok = 1;
    for (int d = 0; d < 7 && ok; d++) {
        mio_status st = mio_gguf_value_elem(&v, 0, &e);
        T_OK(st);
        ok = st == MIO_OK;
        v = e;
    }
    if (ok) {
        T_EQ_INT(v.depth, 1); T_EQ_INT(v.elem_type, MIO_GGUF_I32);
        T_OK(mio_gguf_value_elem(&v, 0, &e));
        T_OK(mio_gguf_value_i64(&e, &i64)); T_EQ_INT(i64, -7);
    }

    T_OK(mio_gguf_kv_value(f, 3, &v));
    T_EQ_INT(v.depth, 5);
    ok = 1;
    for (int d = 0; d < 4 && ok; d++) {
        mio_status st = mio_gguf_value_elem(&v, 0, &e);
        T_OK(st);
        ok = st == MIO_OK;
        if (ok) T_EQ_INT(e.depth, 4 - d);
        v = e;
    }
    if (ok) {
        T_EQ_INT(v.elem_type, MIO_GGUF_U8); T_EQ_U64(v.count, 2);
        T_OK(mio_gguf_value_elem(&v, 1, &e));
        T_OK(mio_gguf_value_i64(&e, &i64)); T_EQ_INT(i64, 10);
    }

    /* nested arrays survive a verbatim copy byte for byte */
    mio_writer *w = NULL;
    T_OK(mio_writer_new(MIO_WRITER_NO_EMPTY_PAD, &w));
    T_OK(mio_writer_copy_all_kv(w, f, NULL, 0));
    membuf m = {0};
    T_OK(mio_writer_write_cb(w, mem_sink, &m));
    T_EQ_INT(compare_bytes("nested re-emit", m.p, m.len, x.b, x.n), 0);
    free(m.p);
    mio_writer_free(w);
    mio_gguf_close(f);
}

int main(void) {
    test_all_types();
    test_tiny();
    test_edit();
    test_alignment();
    test_tensor_errors();
    test_copy_kv();
    test_nested();
    reemit(MIO_TEST_DATA "/vocab-gpt-2.gguf", MIO_WRITER_NO_EMPTY_PAD);
    reemit(MIO_TEST_DATA "/vocab-llama-spm.gguf", MIO_WRITER_NO_EMPTY_PAD);
    reemit("rw_all.gguf", MIO_WRITER_DEFAULT);
    reemit("rw_align.gguf", MIO_WRITER_DEFAULT);
    T_DONE();
}
