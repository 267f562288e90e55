/* SPDX-License-Identifier: MIT */
/* test_kv_edit.c — metadata edits: mio_kv_edit_parse (types and values by
 * hand, range and syntax errors with their messages), mio_writer_apply_edits
 * (key order, wire types and bytes read back, a bad list changes nothing),
 * mio_gguf_copy_edit (byte-identical without edits, refusals write nothing)
 * and mio_gguf_edit_in_place (header rewritten within the padding, tensor
 * bytes untouched, refusals leave every byte as it was, the backup file, and
 * SIGINT/SIGTERM/SIGHUP held while the file is in between). */
#include "modelio.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static mio_kv_edit *parse_ok(const char *spec) {
    mio_kv_edit *e = NULL;
    mio_status st = mio_kv_edit_parse(spec, &e);
    if (st != MIO_OK) {
        t_fail++;
        fprintf(stderr, "parse '%s' failed: %s\n", spec, mio_last_error());
        return NULL;
    }
    t_pass++;
    return e;
}

/* parse must fail with status st and a message containing msg; out untouched */
static void parse_bad(const char *spec, mio_status st, const char *msg) {
    mio_kv_edit *sentinel = (mio_kv_edit *)&t_pass, *e = sentinel;
    T_STATUS(mio_kv_edit_parse(spec, &e), st);
    T_CHECK(e == sentinel);
    if (msg) T_MSG_HAS(msg);
}

static void test_parse(void) {
    mio_kv_edit *e;
    if ((e = parse_ok("a=int:5"))) {
        T_EQ_STR(e->key, "a");
        T_EQ_INT(e->op, MIO_KV_SET);
        T_EQ_INT(e->type, MIO_GGUF_I32);
        T_EQ_INT(e->i64, 5);
        mio_free(e);
    }
    if ((e = parse_ok("a=int:-2147483648"))) { T_EQ_INT(e->type, MIO_GGUF_I32); T_EQ_INT(e->i64, INT32_MIN); mio_free(e); }
    if ((e = parse_ok("a=int:2147483648"))) { T_EQ_INT(e->type, MIO_GGUF_I64); T_EQ_INT(e->i64, 2147483648LL); mio_free(e); }
    if ((e = parse_ok("a=int:3000000000"))) { T_EQ_INT(e->type, MIO_GGUF_I64); T_EQ_INT(e->i64, 3000000000LL); mio_free(e); }
    if ((e = parse_ok("a=int:-9223372036854775808"))) { T_EQ_INT(e->type, MIO_GGUF_I64); T_CHECK(e->i64 == INT64_MIN); mio_free(e); }
    if ((e = parse_ok("a=int:+7"))) { T_EQ_INT(e->type, MIO_GGUF_I32); T_EQ_INT(e->i64, 7); mio_free(e); }
    parse_bad("a=int:9223372036854775808", MIO_ERR_OUT_OF_RANGE, "key 'a': 9223372036854775808 is out of range for int");
    parse_bad("a=int:99999999999999999999", MIO_ERR_OUT_OF_RANGE, "out of range for int");

    /* exact wire types: bounds */
    parse_bad("a=u8:300", MIO_ERR_OUT_OF_RANGE, NULL);
    T_EQ_STR(mio_last_error(), "key 'a': 300 is out of range for u8 (0 to 255)");
    if ((e = parse_ok("a=u8:255"))) { T_EQ_INT(e->type, MIO_GGUF_U8); T_EQ_U64(e->u64, 255); mio_free(e); }
    if ((e = parse_ok("a=i8:-128"))) { T_EQ_INT(e->type, MIO_GGUF_I8); T_EQ_INT(e->i64, -128); mio_free(e); }
    parse_bad("a=i8:-129", MIO_ERR_OUT_OF_RANGE, "key 'a': -129 is out of range for i8 (-128 to 127)");
    parse_bad("a=i8:128", MIO_ERR_OUT_OF_RANGE, "-128 to 127");
    if ((e = parse_ok("a=u16:65535"))) { T_EQ_INT(e->type, MIO_GGUF_U16); T_EQ_U64(e->u64, 65535); mio_free(e); }
    parse_bad("a=i16:32768", MIO_ERR_OUT_OF_RANGE, "32768 is out of range for i16");
    parse_bad("a=u32:-1", MIO_ERR_OUT_OF_RANGE, "key 'a': -1 is out of range for u32 (0 to 4294967295)");
    if ((e = parse_ok("a=u32:-0"))) { T_EQ_U64(e->u64, 0); mio_free(e); }
    if ((e = parse_ok("a=i32:-5"))) { T_EQ_INT(e->type, MIO_GGUF_I32); T_EQ_INT(e->i64, -5); mio_free(e); }
    if ((e = parse_ok("a=u64:18446744073709551615"))) { T_EQ_INT(e->type, MIO_GGUF_U64); T_CHECK(e->u64 == UINT64_MAX); mio_free(e); }
    parse_bad("a=u64:18446744073709551616", MIO_ERR_OUT_OF_RANGE, "out of range for u64");
    if ((e = parse_ok("a=i64:-9223372036854775808"))) { T_EQ_INT(e->type, MIO_GGUF_I64); T_CHECK(e->i64 == INT64_MIN); mio_free(e); }
    parse_bad("a=i64:9223372036854775808", MIO_ERR_OUT_OF_RANGE, "9223372036854775808 is out of range for i64");
    /* integer syntax: decimal digits only */
    parse_bad("a=int: 5", MIO_ERR_INVALID_ARG, "key 'a': ' 5' is not a decimal integer (int)");
    parse_bad("a=int:5x", MIO_ERR_INVALID_ARG, "'5x' is not a decimal integer");
    parse_bad("a=u8:0x10", MIO_ERR_INVALID_ARG, "'0x10' is not a decimal integer (u8)");
    parse_bad("a=int:", MIO_ERR_INVALID_ARG, "is not a decimal integer");
    parse_bad("a=int:-", MIO_ERR_INVALID_ARG, "is not a decimal integer");
    parse_bad("a=i32:1.0", MIO_ERR_INVALID_ARG, "is not a decimal integer");

    /* floats: float is f32 (rounded), f64 exact */
    if ((e = parse_ok("a=float:0.5"))) { T_EQ_INT(e->type, MIO_GGUF_F32); T_CHECK(e->f64 == 0.5); mio_free(e); }
    if ((e = parse_ok("a=float:0.1"))) { T_CHECK(e->f64 == (double)0.1f && e->f64 != 0.1); mio_free(e); }
    if ((e = parse_ok("a=f64:0.1"))) { T_EQ_INT(e->type, MIO_GGUF_F64); T_CHECK(e->f64 == 0.1); mio_free(e); }
    if ((e = parse_ok("a=f32:-1e-3"))) { T_EQ_INT(e->type, MIO_GGUF_F32); T_CHECK(e->f64 == (double)-1e-3f); mio_free(e); }
    if ((e = parse_ok("a=float:-inf"))) { T_CHECK(isinf(e->f64) && e->f64 < 0); mio_free(e); }
    parse_bad("a=float:1e39", MIO_ERR_OUT_OF_RANGE, "key 'a': 1e39 is out of range for f32");
    /* just above FLT_MAX but rounding to it is accepted; past the rounding midpoint is not */
    if ((e = parse_ok("a=float:3.4028235e38"))) { T_CHECK(e->f64 == (double)FLT_MAX); mio_free(e); }
    parse_bad("a=float:3.4028236e38", MIO_ERR_OUT_OF_RANGE, "out of range for f32");
    parse_bad("a=f64:1e309", MIO_ERR_OUT_OF_RANGE, "1e309 is out of range for f64");
    parse_bad("a=float:1.5x", MIO_ERR_INVALID_ARG, "key 'a': '1.5x' is not a number (f32)");
    parse_bad("a=float:", MIO_ERR_INVALID_ARG, "is not a number");
    parse_bad("a=float: 1", MIO_ERR_INVALID_ARG, "is not a number");

    /* bool */
    if ((e = parse_ok("b=bool:true"))) { T_EQ_INT(e->type, MIO_GGUF_BOOL); T_EQ_U64(e->u64, 1); mio_free(e); }
    if ((e = parse_ok("b=bool:false"))) { T_EQ_U64(e->u64, 0); mio_free(e); }
    if ((e = parse_ok("b=bool:1"))) { T_EQ_U64(e->u64, 1); mio_free(e); }
    if ((e = parse_ok("b=bool:0"))) { T_EQ_U64(e->u64, 0); mio_free(e); }
    parse_bad("b=bool:yes", MIO_ERR_INVALID_ARG, "key 'b': 'yes' is not a bool (true, false, 1 or 0)");
    parse_bad("b=bool:True", MIO_ERR_INVALID_ARG, "is not a bool");

    /* strings: everything after the first ':' following the first '=' */
    if ((e = parse_ok("general.name=str:a=b:c"))) {
        T_EQ_STR(e->key, "general.name");
        T_EQ_INT(e->type, MIO_GGUF_STRING);
        T_EQ_U64(e->str_len, 5);
        T_EQ_STR(e->str, "a=b:c");
        mio_free(e);
    }
    if ((e = parse_ok("k=str:"))) { T_EQ_U64(e->str_len, 0); T_EQ_STR(e->str, ""); mio_free(e); }
    if ((e = parse_ok("k:x=string:v"))) { T_EQ_STR(e->key, "k:x"); T_EQ_STR(e->str, "v"); mio_free(e); }

    /* syntax */
    parse_bad("novalue", MIO_ERR_INVALID_ARG, "metadata edit 'novalue': expected KEY=TYPE:VALUE (there is no '=')");
    parse_bad("=int:5", MIO_ERR_INVALID_KV, "the key before '=' is empty");
    parse_bad("a=int5", MIO_ERR_INVALID_ARG, "key 'a': expected TYPE:VALUE after '='");
    parse_bad("a=integer:5", MIO_ERR_INVALID_ARG, "key 'a': unknown type 'integer' (one of int float bool str u8");
    parse_bad("a=INT:5", MIO_ERR_INVALID_ARG, "unknown type 'INT'");
    parse_bad("a=array:5", MIO_ERR_INVALID_ARG, "unknown type 'array'");
    /* key length: 65535 bytes accepted, 65536 refused */
    char *big = malloc(65536 + 16);
    memset(big, 'k', 65536);
    strcpy(big + 65535, "=u8:1");
    if ((e = parse_ok(big))) { T_EQ_U64(strlen(e->key), 65535); mio_free(e); }
    memset(big, 'k', 65536);
    strcpy(big + 65536, "=u8:1");
    parse_bad(big, MIO_ERR_LIMIT, "the key is 65536 bytes long (GGUF keys are at most 65535 bytes)");
    free(big);
}

/* ------------------------------------------------------------------ writer */

static const float k_t0[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static const int64_t k_ne0[1] = {8};
static const uint16_t k_t1[3] = {0x3c00, 0x4000, 0x4200}; /* f16 1, 2, 3 */
static const int64_t k_ne1[1] = {3};

static mio_writer *base_writer(const char *name) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_set_str(w, "general.name", name, strlen(name)));
    T_OK(mio_writer_set_u32(w, "a", 1));
    T_OK(mio_writer_set_str(w, "b", "x", 1));
    T_OK(mio_writer_set_f32(w, "c", 2.5f));
    T_OK(mio_writer_add_tensor(w, "t0", MIO_TYPE_F32, 1, k_ne0, k_t0, sizeof k_t0));
    T_OK(mio_writer_add_tensor(w, "t1", MIO_TYPE_F16, 1, k_ne1, k_t1, sizeof k_t1));
    return w;
}

static mio_gguf_file *written(mio_writer *w, membuf *m) {
    mio_gguf_file *f = NULL;
    m->len = 0;
    T_OK(mio_writer_write_cb(w, mem_sink, m));
    T_OK(mio_gguf_open_buffer(m->p, m->len, MIO_BUFFER_BORROW, &f));
    return f;
}

static void key_is(mio_gguf_file *f, int64_t i, const char *key, int type) {
    T_EQ_MSTR(mio_gguf_kv_key(f, i), key);
    T_EQ_INT(mio_gguf_kv_type(f, i), type);
}

static void test_apply(void) {
    membuf m = {0};
    mio_writer *w = base_writer("model");
    const mio_kv_edit ed[] = {
        {.key = "b", .op = MIO_KV_SET, .type = MIO_GGUF_I64, .i64 = -7},    /* type change, keeps its place */
        {.key = "a", .op = MIO_KV_REMOVE},
        {.key = "d", .op = MIO_KV_SET, .type = MIO_GGUF_BOOL, .u64 = 1},     /* appended */
        {.key = "zz", .op = MIO_KV_REMOVE},                                  /* missing: no-op */
        {.key = "e", .op = MIO_KV_SET, .type = MIO_GGUF_STRING, .str = "h\0i", .str_len = 3},
        {.key = "f", .op = MIO_KV_SET, .type = MIO_GGUF_U8, .u64 = 9},
        {.key = "f", .op = MIO_KV_REMOVE},                                   /* in order: f is gone */
        {.key = "c", .op = MIO_KV_SET, .type = MIO_GGUF_F32, .f64 = 0.1},    /* rounded to f32 */
    };
    T_OK(mio_writer_apply_edits(w, ed, sizeof ed / sizeof ed[0]));
    mio_gguf_file *f = written(w, &m);
    if (f) {
        T_EQ_INT(mio_gguf_kv_count(f), 6);
        key_is(f, 0, "general.architecture", MIO_GGUF_STRING);
        key_is(f, 1, "general.name", MIO_GGUF_STRING);
        key_is(f, 2, "b", MIO_GGUF_I64);
        key_is(f, 3, "c", MIO_GGUF_F32);
        key_is(f, 4, "d", MIO_GGUF_BOOL);
        key_is(f, 5, "e", MIO_GGUF_STRING);
        int64_t iv = 0;
        double dv = 0;
        int bv = 0;
        mio_str sv;
        T_OK(mio_gguf_kv_i64(f, 2, &iv));
        T_EQ_INT(iv, -7);
        T_OK(mio_gguf_kv_f64(f, 3, &dv));
        T_CHECK(dv == (double)0.1f);
        T_OK(mio_gguf_kv_bool(f, 4, &bv));
        T_EQ_INT(bv, 1);
        T_OK(mio_gguf_kv_str(f, 5, &sv));
        T_EQ_U64(sv.len, 3);
        T_CHECK(sv.len == 3 && memcmp(sv.ptr, "h\0i", 3) == 0);
        T_EQ_INT(mio_gguf_tensor_count(f), 2);
        mio_gguf_close(f);
    }

    /* every scalar wire type, bounds, read back as wire bytes */
    const mio_kv_edit all[] = {
        {.key = "u8", .type = MIO_GGUF_U8, .u64 = 255},          {.key = "i8", .type = MIO_GGUF_I8, .i64 = -128},
        {.key = "u16", .type = MIO_GGUF_U16, .u64 = 0xbeef},     {.key = "i16", .type = MIO_GGUF_I16, .i64 = -2},
        {.key = "u32", .type = MIO_GGUF_U32, .u64 = 0xdeadbeef}, {.key = "i32", .type = MIO_GGUF_I32, .i64 = INT32_MIN},
        {.key = "u64", .type = MIO_GGUF_U64, .u64 = UINT64_MAX}, {.key = "i64", .type = MIO_GGUF_I64, .i64 = INT64_MIN},
        {.key = "f32", .type = MIO_GGUF_F32, .f64 = -2.0},       {.key = "f64", .type = MIO_GGUF_F64, .f64 = 0.1},
        {.key = "bool", .type = MIO_GGUF_BOOL, .u64 = 0},        {.key = "str", .type = MIO_GGUF_STRING},
    };
    static const struct { int type; size_t n; uint8_t b[8]; } want[] = {
        {MIO_GGUF_U8, 1, {0xff}}, {MIO_GGUF_I8, 1, {0x80}}, {MIO_GGUF_U16, 2, {0xef, 0xbe}}, {MIO_GGUF_I16, 2, {0xfe, 0xff}},
        {MIO_GGUF_U32, 4, {0xef, 0xbe, 0xad, 0xde}}, {MIO_GGUF_I32, 4, {0, 0, 0, 0x80}},
        {MIO_GGUF_U64, 8, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, {MIO_GGUF_I64, 8, {0, 0, 0, 0, 0, 0, 0, 0x80}},
        {MIO_GGUF_F32, 4, {0, 0, 0, 0xc0}}, {MIO_GGUF_F64, 8, {0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f}},
        {MIO_GGUF_BOOL, 1, {0}}, {MIO_GGUF_STRING, 8, {0}},
    };
    mio_writer *w2 = NULL;
    T_OK(mio_writer_new(0, &w2));
    T_OK(mio_writer_apply_edits(w2, all, 12));
    f = written(w2, &m);
    for (int64_t i = 0; f && i < 12; i++) {
        mio_str raw;
        T_EQ_MSTR(mio_gguf_kv_key(f, i), all[i].key);
        T_EQ_INT(mio_gguf_kv_type(f, i), want[i].type);
        T_OK(mio_gguf_kv_raw(f, i, &raw));
        T_EQ_U64(raw.len, want[i].n);
        T_CHECK(raw.len == want[i].n && memcmp(raw.ptr, want[i].b, want[i].n) == 0);
    }
    mio_gguf_close(f);
    mio_writer_free(w2);

    /* a bad edit anywhere in the list: status, message, the writer unchanged */
    int64_t n0 = mio_writer_kv_count(w);
    const mio_kv_edit bad1[] = {{.key = "g", .type = MIO_GGUF_U32, .u64 = 5}, {.key = "h", .type = MIO_GGUF_U8, .u64 = 300}};
    T_STATUS(mio_writer_apply_edits(w, bad1, 2), MIO_ERR_OUT_OF_RANGE);
    T_MSG_HAS("edit 1 (key 'h'): 300 is out of range for u8 (0 to 255)");
    T_EQ_INT(mio_writer_kv_count(w), n0);
    const mio_kv_edit bad2[] = {{.key = "g", .type = MIO_GGUF_I8, .i64 = -200}};
    T_STATUS(mio_writer_apply_edits(w, bad2, 1), MIO_ERR_OUT_OF_RANGE);
    T_MSG_HAS("-200 is out of range for i8 (-128 to 127)");
    const mio_kv_edit bad3[] = {{.key = "g", .type = MIO_GGUF_BOOL, .u64 = 2}};
    T_STATUS(mio_writer_apply_edits(w, bad3, 1), MIO_ERR_INVALID_KV);
    const mio_kv_edit bad4[] = {{.key = "g", .type = MIO_GGUF_ARRAY}};
    T_STATUS(mio_writer_apply_edits(w, bad4, 1), MIO_ERR_UNSUPPORTED_TYPE);
    T_MSG_HAS("type 9 (array) cannot be set by an edit");
    const mio_kv_edit bad5[] = {{.key = "g", .op = 7}};
    T_STATUS(mio_writer_apply_edits(w, bad5, 1), MIO_ERR_INVALID_ARG);
    const mio_kv_edit bad6[] = {{.key = "general.alignment", .type = MIO_GGUF_U8, .u64 = 32}};
    T_STATUS(mio_writer_apply_edits(w, bad6, 1), MIO_ERR_INVALID_ALIGNMENT);
    const mio_kv_edit bad7[] = {{.key = "general.alignment", .type = MIO_GGUF_U32, .u64 = 48}};
    T_STATUS(mio_writer_apply_edits(w, bad7, 1), MIO_ERR_INVALID_ALIGNMENT);
    const mio_kv_edit bad8[] = {{.key = "g", .type = MIO_GGUF_STRING, .str = NULL, .str_len = 3}};
    T_STATUS(mio_writer_apply_edits(w, bad8, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("str is NULL (str_len 3)");
    const mio_kv_edit bad9[] = {{.key = "g", .type = MIO_GGUF_F32, .f64 = 1e300}};
    T_STATUS(mio_writer_apply_edits(w, bad9, 1), MIO_ERR_OUT_OF_RANGE);
    const mio_kv_edit bad10[] = {{.key = "", .op = MIO_KV_REMOVE}};
    T_STATUS(mio_writer_apply_edits(w, bad10, 1), MIO_ERR_INVALID_KV);
    const mio_kv_edit bad11[] = {{.key = NULL, .op = MIO_KV_REMOVE}};
    T_STATUS(mio_writer_apply_edits(w, bad11, 1), MIO_ERR_INVALID_ARG);
    T_EQ_INT(mio_writer_kv_count(w), n0);
    /* a valid alignment edit changes the writer's alignment */
    const mio_kv_edit al[] = {{.key = "general.alignment", .type = MIO_GGUF_U32, .u64 = 64}};
    T_OK(mio_writer_apply_edits(w, al, 1));
    T_EQ_INT(mio_writer_alignment(w), 64);
    mio_writer_free(w);
    free(m.p);
}

/* ------------------------------------------------------------------ files */

static uint8_t *slurp(const char *path, size_t *n) {
    uint8_t *p = t_read_file(path, n);
    if (!p) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
    return p;
}

static void test_copy(void) {
    mio_writer *w = base_writer("model");
    T_OK(mio_writer_write_file(w, "kv_src.gguf"));
    mio_writer_free(w);
    size_t n_src, n_out;
    uint8_t *src = slurp("kv_src.gguf", &n_src);

    /* no edits: byte-identical */
    unlink("kv_out.gguf");
    T_OK(mio_gguf_copy_edit("kv_src.gguf", "kv_out.gguf", NULL, 0));
    uint8_t *out = slurp("kv_out.gguf", &n_out);
    T_EQ_U64(n_out, n_src);
    T_CHECK(n_out == n_src && memcmp(out, src, n_src) == 0);
    free(out);

    /* edits: new values, same tensors */
    mio_kv_edit *e1 = NULL, *e2 = NULL;
    T_OK(mio_kv_edit_parse("general.name=str:renamed model", &e1));
    T_OK(mio_kv_edit_parse("n=int:3000000000", &e2));
    if (e1 && e2) {
        mio_kv_edit ed[3] = {*e1, *e2, {.key = "a", .op = MIO_KV_REMOVE}};
        T_OK(mio_gguf_copy_edit("kv_src.gguf", "kv_out.gguf", ed, 3));
        mio_gguf_file *f = NULL;
        T_OK(mio_gguf_open("kv_out.gguf", 0, &f));
        if (f) {
            mio_str s;
            int64_t v = 0;
            T_EQ_INT(mio_gguf_kv_count(f), 5);
            key_is(f, 1, "general.name", MIO_GGUF_STRING);
            T_OK(mio_gguf_kv_str(f, 1, &s));
            T_EQ_MSTR(s, "renamed model");
            key_is(f, 2, "b", MIO_GGUF_STRING);
            key_is(f, 4, "n", MIO_GGUF_I64);
            T_OK(mio_gguf_kv_i64(f, 4, &v));
            T_EQ_INT(v, 3000000000LL);
            T_EQ_INT(mio_gguf_find_key(f, "a"), -1);
            mio_gguf_tensor t;
            T_OK(mio_gguf_tensor_info(f, 1, &t));
            T_EQ_MSTR(t.name, "t1");
            T_CHECK(t.nbytes == sizeof k_t1 && memcmp(t.data, k_t1, sizeof k_t1) == 0);
            mio_gguf_close(f);
        }
        /* refusals write nothing */
        unlink("kv_none.gguf");
        mio_kv_edit badl[2] = {*e1, {.key = "x", .type = MIO_GGUF_U16, .u64 = 70000}};
        T_STATUS(mio_gguf_copy_edit("kv_src.gguf", "kv_none.gguf", badl, 2), MIO_ERR_OUT_OF_RANGE);
        T_CHECK(access("kv_none.gguf", F_OK) != 0);
        T_STATUS(mio_gguf_copy_edit("kv_src.gguf", "kv_src.gguf", ed, 3), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("kv_src.gguf is one of the input files; refusing to overwrite it");
        T_STATUS(mio_gguf_copy_edit("kv_missing.gguf", "kv_none.gguf", ed, 3), MIO_ERR_NOT_FOUND);
        T_CHECK(access("kv_none.gguf", F_OK) != 0);
    }
    mio_free(e1);
    mio_free(e2);
    uint8_t *again = slurp("kv_src.gguf", &n_out);
    T_CHECK(n_out == n_src && memcmp(again, src, n_src) == 0);
    free(again);
    free(src);
}

/* A file whose general.name is the only thing the in-place tests change. */
static void make_ip(const char *path, const char *name) {
    mio_writer *w = base_writer(name);
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
}

static mio_kv_edit name_edit(const char *s, size_t len) {
    mio_kv_edit e = {.key = "general.name", .op = MIO_KV_SET, .type = MIO_GGUF_STRING, .str = s, .str_len = len};
    return e;
}

static void test_in_place(void) {
    const char *P = "kv_ip.gguf";
    make_ip(P, "model");
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(P, 0, &f));
    if (!f) return;
    uint64_t hs = mio_gguf_header_size(f), D = mio_gguf_data_offset(f);
    mio_gguf_close(f);
    /* 24 + (8+20+4+8+5) + (8+12+4+8+5) + (8+1+4+4) + (8+1+4+8+1) + (8+1+4+4)
     *   + t0 (8+2+4+8+4+8) + t1 (8+2+4+8+4+8) = 24+45+37+17+22+17+34+34 = 230 */
    T_EQ_U64(hs, 230);
    T_EQ_U64(D, 256);
    size_t n0, n1;
    uint8_t *before = slurp(P, &n0);

    /* grow general.name by exactly the 26 bytes of padding: the header ends at 256 */
    char name[64];
    memset(name, 'm', sizeof name);
    mio_kv_edit e = name_edit(name, 5 + 26);
    T_OK(mio_gguf_edit_in_place(P, &e, 1));
    uint8_t *after = slurp(P, &n1);
    T_EQ_U64(n1, n0);
    /* the data section is untouched, byte by byte */
    T_CHECK(n1 == n0 && memcmp(after + D, before + D, n0 - D) == 0);
    /* header bytes: general.name's length field at 24+8+20+4+8 = 64 ... = 69 ->
     * its length (u64 31) at offset 24 + 45 + 8+12+4 = 93, the string after it */
    uint64_t len = 0;
    memcpy(&len, after + 93, 8);
    T_EQ_U64(len, 31);
    T_CHECK(memcmp(after + 101, name, 31) == 0);
    T_CHECK(memcmp(after, before, 93) == 0); /* everything before it is as it was */
    T_CHECK(access("kv_ip.gguf.mio-header-backup", F_OK) != 0);
    T_OK(mio_gguf_open(P, 0, &f));
    if (f) {
        mio_str s;
        T_EQ_U64(mio_gguf_header_size(f), 256);
        T_EQ_U64(mio_gguf_data_offset(f), 256);
        T_OK(mio_gguf_kv_str(f, mio_gguf_find_key(f, "general.name"), &s));
        T_EQ_U64(s.len, 31);
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, 0, &t));
        T_CHECK(t.nbytes == sizeof k_t0 && memcmp(t.data, k_t0, sizeof k_t0) == 0);
        mio_gguf_close(f);
    }
    /* the same header a copy with the same edit writes */
    T_OK(mio_gguf_copy_edit("kv_src.gguf", "kv_cmp.gguf", &e, 1));
    size_t nc;
    uint8_t *cmpb = slurp("kv_cmp.gguf", &nc);
    T_CHECK(nc == n1 && memcmp(cmpb, after, nc) == 0);
    free(cmpb);

    /* shrinking within the window: padding refilled with zeros */
    e = name_edit(name, 8);
    T_OK(mio_gguf_edit_in_place(P, &e, 1));
    free(after);
    after = slurp(P, &n1);
    T_EQ_U64(n1, n0);
    for (uint64_t o = 233; o < D; o++)
        if (after[o]) { T_CHECK(after[o] == 0); break; }
    T_CHECK(memcmp(after + D, before + D, n0 - D) == 0);
    free(before);
    before = after;
    after = NULL;

    /* one byte too many: refused, nothing changed */
    e = name_edit(name, 32);
    T_STATUS(mio_gguf_edit_in_place(P, &e, 1), MIO_ERR_LIMIT);
    T_MSG_HAS("kv_ip.gguf: the edited header needs 257 bytes but only 256 fit before the tensor data (data offset 256, "
              "alignment 32)");
    after = slurp(P, &n1);
    T_CHECK(n1 == n0 && memcmp(after, before, n0) == 0);
    free(after);

    /* shrinking past the window would move the data: refused */
    const mio_kv_edit rm[] = {{.key = "general.architecture", .op = MIO_KV_REMOVE}};
    T_STATUS(mio_gguf_edit_in_place(P, rm, 1), MIO_ERR_LIMIT);
    T_MSG_HAS("the edited header is 188 bytes, 45 fewer than the old one (233)");
    T_MSG_HAS("it would move from 256 to 192: in place, the header must stay between 225 and 256 bytes");
    after = slurp(P, &n1);
    T_CHECK(n1 == n0 && memcmp(after, before, n0) == 0);
    free(after);

    /* changing the alignment: refused */
    const mio_kv_edit al[] = {{.key = "general.alignment", .type = MIO_GGUF_U32, .u64 = 64}};
    T_STATUS(mio_gguf_edit_in_place(P, al, 1), MIO_ERR_INVALID_ALIGNMENT);
    T_MSG_HAS("change general.alignment from 32 to 64");

    /* a backup left by an interrupted edit: refused until it is dealt with */
    FILE *bf = fopen("kv_ip.gguf.mio-header-backup", "wb");
    T_CHECK(bf != NULL);
    if (bf) fclose(bf);
    e = name_edit("other", 5);
    T_STATUS(mio_gguf_edit_in_place(P, &e, 1), MIO_ERR_IO);
    T_MSG_HAS("the header backup kv_ip.gguf.mio-header-backup already exists");
    unlink("kv_ip.gguf.mio-header-backup");
    after = slurp(P, &n1);
    T_CHECK(n1 == n0 && memcmp(after, before, n0) == 0);
    free(after);

    /* an edit that changes nothing writes nothing (OK); a missing file fails */
    e = name_edit(name, 8);
    T_OK(mio_gguf_edit_in_place(P, &e, 1));
    T_STATUS(mio_gguf_edit_in_place("kv_missing.gguf", &e, 1), MIO_ERR_NOT_FOUND);

    /* the version field is kept: a v2 file stays v2 */
    FILE *fp = fopen(P, "r+b");
    T_CHECK(fp != NULL);
    if (fp) { fseek(fp, 4, SEEK_SET); fputc(2, fp); fclose(fp); }
    e = name_edit("v2 model", 8);
    T_OK(mio_gguf_edit_in_place(P, &e, 1));
    after = slurp(P, &n1);
    T_EQ_INT(after[4], 2);
    T_CHECK(memcmp(after + 101, "v2 model", 8) == 0);
    T_CHECK(memcmp(after + D, before + D, n0 - D) == 0);
    free(after);
    free(before);

    /* split.* keys of a split part are not edited in place */
    mio_writer *w = base_writer("part");
    T_OK(mio_writer_set_u16(w, "split.count", 2));
    T_OK(mio_writer_write_file(w, "kv_part.gguf"));
    mio_writer_free(w);
    const mio_kv_edit sp[] = {{.key = "split.count", .op = MIO_KV_REMOVE}};
    T_STATUS(mio_gguf_edit_in_place("kv_part.gguf", sp, 1), MIO_ERR_SPLIT);
    T_MSG_HAS("editing split.count in place would break the set");
}

/* Signals during in-place edits: a thread sends SIGTERM to the editing thread
 * over and over while it edits a file 40 times; the handler notes whether the
 * header backup exists when it runs. The library blocks SIGINT/SIGTERM/SIGHUP
 * from the backup's creation to its removal, so the handler never sees one
 * (however the signals fall); the caller's mask is the same after each call,
 * and a signal the caller blocks itself stays blocked. */
#define SIG_P "kv_sig.gguf"
static volatile sig_atomic_t g_sig_runs, g_sig_in_window;
static atomic_int g_sig_stop;
static void on_sigterm(int s) {
    (void)s;
    g_sig_runs++;
    if (access(SIG_P ".mio-header-backup", F_OK) == 0) g_sig_in_window++;
}
static void *sig_storm(void *arg) {
    pthread_t target = *(const pthread_t *)arg;
    while (!atomic_load(&g_sig_stop)) {
        pthread_kill(target, SIGTERM);
        usleep(50);
    }
    return NULL;
}

static void test_in_place_signals(void) {
    make_ip(SIG_P, "model");
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigterm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    T_CHECK(sigaction(SIGTERM, &sa, &old_sa) == 0);
    sigset_t none, mask;
    sigemptyset(&none);
    T_CHECK(pthread_sigmask(SIG_SETMASK, &none, NULL) == 0);
    pthread_t self = pthread_self(), th;
    atomic_store(&g_sig_stop, 0);
    T_CHECK(pthread_create(&th, NULL, sig_storm, &self) == 0);
    int ok = 0, mask_kept = 1;
    for (int k = 0; k < 40; k++) {
        mio_kv_edit e = name_edit(k % 2 ? "model" : "other", 5);
        if (mio_gguf_edit_in_place(SIG_P, &e, 1) == MIO_OK) ok++;
        else fprintf(stderr, "edit %d: %s\n", k, mio_last_error());
        pthread_sigmask(SIG_SETMASK, NULL, &mask);
        if (sigismember(&mask, SIGTERM) || sigismember(&mask, SIGINT) || sigismember(&mask, SIGHUP)) mask_kept = 0;
    }
    atomic_store(&g_sig_stop, 1);
    pthread_join(th, NULL);
    T_EQ_INT(ok, 40);
    T_CHECK(mask_kept);
    T_EQ_INT(g_sig_in_window, 0);
    T_CHECK(access(SIG_P ".mio-header-backup", F_OK) != 0);
    /* the last edit (k = 39) set "model" */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(SIG_P, 0, &f));
    if (f) {
        mio_str v;
        T_OK(mio_gguf_kv_str(f, mio_gguf_find_key(f, "general.name"), &v));
        T_EQ_MSTR(v, "model");
        mio_gguf_close(f);
    }
    /* a caller's own block survives the call */
    sigset_t hup;
    sigemptyset(&hup);
    sigaddset(&hup, SIGHUP);
    T_CHECK(pthread_sigmask(SIG_BLOCK, &hup, NULL) == 0);
    mio_kv_edit e = name_edit("again", 5);
    T_OK(mio_gguf_edit_in_place(SIG_P, &e, 1));
    pthread_sigmask(SIG_SETMASK, NULL, &mask);
    T_CHECK(sigismember(&mask, SIGHUP) && !sigismember(&mask, SIGTERM) && !sigismember(&mask, SIGINT));
    T_CHECK(pthread_sigmask(SIG_SETMASK, &none, NULL) == 0);
    sigaction(SIGTERM, &old_sa, NULL);
    unlink(SIG_P);
}

int main(void) {
    test_parse();
    test_apply();
    test_copy();
    test_in_place();
    test_in_place_signals();
    T_DONE();
}
