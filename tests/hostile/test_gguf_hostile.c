/* SPDX-License-Identifier: MIT */
/* test_gguf_hostile.c — one crafted GGUF image per validation rule of the
 * reader, each asserting the exact status and a message naming the culprit;
 * plus every-prefix truncation, random byte flips, file opens and buffer
 * ownership (MIO_BUFFER_TAKE frees exactly once, also on failure). */
#include "modelio.h"
#include "test.h"
#include "gguf_builder.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO30 ((uint64_t)1 << 30)

/* ---- helpers ------------------------------------------------------------ */

static void check_msgs(int line, const char *const *subs) {
    const char *m = mio_last_error();
    for (; *subs; subs++) {
        if (strstr(m, *subs)) t_pass++;
        else {
            t_fail++;
            fprintf(stderr, "%s:%d: message lacks \"%s\": %s\n", __FILE__, line, *subs, m);
        }
    }
}

/* Open b (borrowed) and expect status st with every substring in subs. */
static void expect_bad(int line, const gbuf *b, mio_status st, const char *const *subs) {
    mio_gguf_file *f = NULL;
    mio_status got = mio_gguf_open_buffer(b->p, b->n, MIO_BUFFER_BORROW, &f);
    if (got == st) t_pass++;
    else {
        t_fail++;
        fprintf(stderr, "%s:%d: got %s, expected %s (%s)\n", __FILE__, line, mio_status_name(got),
                mio_status_name(st), got ? mio_last_error() : "");
    }
    if (got == MIO_OK) { mio_gguf_close(f); return; }
    printf("  [line %d] %s: %s\n", line, mio_status_name(got), mio_last_error());
    check_msgs(line, subs);
}
#define BAD(b, st, ...) expect_bad(__LINE__, (b), (st), (const char *const[]){__VA_ARGS__, NULL})

/* Open b (borrowed) and expect success; returns the handle (caller closes) or NULL. */
static mio_gguf_file *expect_ok(int line, const gbuf *b) {
    mio_gguf_file *f = NULL;
    mio_status got = mio_gguf_open_buffer(b->p, b->n, MIO_BUFFER_BORROW, &f);
    if (got == MIO_OK && f) { t_pass++; return f; }
    t_fail++;
    fprintf(stderr, "%s:%d: expected MIO_OK, got %s (%s)\n", __FILE__, line, mio_status_name(got), mio_last_error());
    return NULL;
}
#define GOOD(b) expect_ok(__LINE__, (b))

/* A file with one KV whose value bytes the caller appends after this. */
static void one_kv(gbuf *b, const char *key, uint32_t type) {
    gb_header(b, 3, 0, 1);
    gb_kv(b, key, type);
}

/* A file with one tensor info (no KVs); caller appends data if needed. */
static void one_tensor(gbuf *b, const char *name, uint32_t n_dims, const int64_t *ne, int32_t type) {
    gb_header(b, 3, 1, 0);
    gb_tinfo(b, name, n_dims, ne, type, 0);
}

/* ---- header ------------------------------------------------------------- */

static void test_header(void) {
    gbuf b = {0};

    /* bad magic */
    gb_put(&b, "GGUX", 4); gb_u32(&b, 3); gb_u64(&b, 0); gb_u64(&b, 0);
    BAD(&b, MIO_ERR_BAD_MAGIC, "not a GGUF file", "GGUX");
    gb_free(&b);
    gb_put(&b, "GG", 2); /* shorter than the magic */
    BAD(&b, MIO_ERR_BAD_MAGIC, "not a GGUF file");
    gb_free(&b);
    {
        mio_gguf_file *f = NULL;
        T_STATUS(mio_gguf_open_buffer(NULL, 0, 0, &f), MIO_ERR_BAD_MAGIC); /* empty image */
    }

    /* file shorter than the 24-byte header */
    gb_put(&b, "GGUF", 4); gb_u32(&b, 3); gb_u32(&b, 0);
    BAD(&b, MIO_ERR_TRUNCATED, "file has 12 bytes", "24");
    gb_free(&b);

    /* GGUF v1: its own message */
    gb_header(&b, 1, 0, 0);
    BAD(&b, MIO_ERR_UNSUPPORTED_VERSION, "version 1", "not supported");
    gb_free(&b);

    /* big-endian: version bytes 00 00 00 03, counts swapped too */
    gb_put(&b, "GGUF", 4);
    gb_put(&b, "\0\0\0\3", 4);
    gb_u64(&b, 0); gb_u64(&b, 0);
    BAD(&b, MIO_ERR_BYTE_ORDER, "big-endian", "0x03000000");
    gb_free(&b);
    gb_put(&b, "GGUF", 4);
    gb_put(&b, "\0\0\0\2", 4); /* big-endian v2 */
    gb_u64(&b, 0); gb_u64(&b, 0);
    BAD(&b, MIO_ERR_BYTE_ORDER, "big-endian");
    gb_free(&b);

    /* version 4 and 0 */
    gb_header(&b, 4, 0, 0);
    BAD(&b, MIO_ERR_UNSUPPORTED_VERSION, "version 4");
    gb_free(&b);
    gb_header(&b, 0, 0, 0);
    BAD(&b, MIO_ERR_UNSUPPORTED_VERSION, "version 0");
    gb_free(&b);

    /* v2 and v3 with nothing in them: accepted, data section at 32 */
    for (uint32_t v = 2; v <= 3; v++) {
        gb_header(&b, v, 0, 0);
        mio_gguf_file *f = GOOD(&b);
        if (f) {
            T_EQ_INT(mio_gguf_version(f), v);
            T_EQ_INT(mio_gguf_kv_count(f), 0);
            T_EQ_INT(mio_gguf_tensor_count(f), 0);
            T_EQ_U64(mio_gguf_header_size(f), 24);
            T_EQ_U64(mio_gguf_data_offset(f), 32);
            T_EQ_INT(mio_gguf_alignment(f), 32);
            mio_gguf_close(f);
        }
        gb_free(&b);
    }

    /* n_kv = 2^40 in a 100-byte file: refused before any allocation */
    gb_header(&b, 3, 0, (uint64_t)1 << 40);
    gb_fill(&b, 0, 100 - 24);
    BAD(&b, MIO_ERR_TRUNCATED, "1099511627776 metadata entries", "need at least 15393162788864 bytes", /* 2^40 x 14 */
        "76 bytes follow");
    gb_free(&b);
    /* n_kv = 2^63: the size product itself overflows */
    gb_header(&b, 3, 0, (uint64_t)1 << 63);
    gb_fill(&b, 0, 76);
    BAD(&b, MIO_ERR_TRUNCATED, "9223372036854775808 metadata entries", "need more than 2^64 bytes");
    gb_free(&b);
    /* n_tensors huge */
    gb_header(&b, 3, (uint64_t)1 << 40, 0);
    gb_fill(&b, 0, 76);
    BAD(&b, MIO_ERR_TRUNCATED, "1099511627776 tensors");
    gb_free(&b);
    gb_header(&b, 3, UINT64_MAX, UINT64_MAX);
    gb_fill(&b, 0, 76);
    BAD(&b, MIO_ERR_TRUNCATED, "18446744073709551615 tensors");
    gb_free(&b);
}

/* ---- metadata ----------------------------------------------------------- */

static void test_kv(void) {
    gbuf b = {0};

    /* empty key */
    gb_header(&b, 3, 0, 1);
    gb_str(&b, ""); gb_u32(&b, MIO_GGUF_U32); gb_u32(&b, 7);
    BAD(&b, MIO_ERR_INVALID_KV, "entry #0", "empty key");
    gb_free(&b);

    /* key length > 2^30 (and the file is small) */
    gb_header(&b, 3, 0, 1);
    gb_u64(&b, TWO30 + 1); gb_fill(&b, 'k', 40);
    BAD(&b, MIO_ERR_LIMIT, "key length 1073741825", "1073741824");
    gb_free(&b);
    /* key running past EOF */
    gb_header(&b, 3, 0, 1);
    gb_u64(&b, 100); gb_fill(&b, 'k', 40);
    BAD(&b, MIO_ERR_TRUNCATED, "key of 100 bytes runs past the end");
    gb_free(&b);

    /* string value length > 2^30 */
    one_kv(&b, "general.name", MIO_GGUF_STRING);
    gb_u64(&b, TWO30 + 1); gb_fill(&b, 'x', 16);
    BAD(&b, MIO_ERR_LIMIT, "general.name", "string length 1073741825");
    gb_free(&b);
    /* exactly 2^30 is not over the cap: it is refused as running past the end */
    one_kv(&b, "general.name", MIO_GGUF_STRING);
    gb_u64(&b, TWO30); gb_fill(&b, 'x', 16);
    BAD(&b, MIO_ERR_TRUNCATED, "general.name", "1073741824 bytes runs past the end", "16 bytes remain");
    gb_free(&b);
    /* string running past EOF */
    one_kv(&b, "general.name", MIO_GGUF_STRING);
    gb_u64(&b, 20); gb_put(&b, "only ten..", 10);
    BAD(&b, MIO_ERR_TRUNCATED, "general.name", "string of 20 bytes", "10 bytes remain");
    gb_free(&b);

    /* array count > 2^30 */
    one_kv(&b, "tokenizer.ggml.tokens", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_STRING); gb_u64(&b, TWO30 + 1); gb_fill(&b, 0, 64);
    BAD(&b, MIO_ERR_LIMIT, "tokenizer.ggml.tokens", "array count 1073741825");
    gb_free(&b);
    /* array of u32 running past EOF: 1000 elements, 40 bytes present */
    one_kv(&b, "tokenizer.ggml.token_type", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_U32); gb_u64(&b, 1000); gb_fill(&b, 1, 40);
    BAD(&b, MIO_ERR_TRUNCATED, "tokenizer.ggml.token_type", "1000 u32", "4000 bytes", "40 bytes remain");
    gb_free(&b);
    /* array of strings claiming more elements than bytes could hold */
    one_kv(&b, "tokenizer.ggml.merges", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_STRING); gb_u64(&b, 1000); gb_fill(&b, 0, 80);
    BAD(&b, MIO_ERR_TRUNCATED, "tokenizer.ggml.merges", "1000 string elements");
    gb_free(&b);
    /* string element running past EOF */
    one_kv(&b, "tokenizer.ggml.merges", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_STRING); gb_u64(&b, 2); gb_str(&b, "a b"); gb_u64(&b, 50); gb_fill(&b, 'z', 5);
    BAD(&b, MIO_ERR_TRUNCATED, "tokenizer.ggml.merges", "element 1", "string of 50 bytes");
    gb_free(&b);
    /* string element > 2^30 */
    one_kv(&b, "tokenizer.ggml.merges", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_STRING); gb_u64(&b, 2); gb_str(&b, "a b"); gb_u64(&b, TWO30 + 7); gb_fill(&b, 'z', 5);
    BAD(&b, MIO_ERR_LIMIT, "tokenizer.ggml.merges", "element 1", "1073741831");
    gb_free(&b);

    /* unknown value type 13 (and a huge one) */
    one_kv(&b, "weird", 13); gb_u32(&b, 0);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "weird", "unknown value type 13");
    gb_free(&b);
    one_kv(&b, "weird", 0xffffffffu); gb_u32(&b, 0);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "weird", "unknown value type -1");
    gb_free(&b);
    /* unknown array element type */
    one_kv(&b, "weird.arr", MIO_GGUF_ARRAY);
    gb_u32(&b, 99); gb_u64(&b, 1); gb_u32(&b, 0);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "weird.arr", "unknown array element type 99");
    gb_free(&b);

    /* bool byte 2, scalar and in an array */
    one_kv(&b, "tokenizer.ggml.add_bos_token", MIO_GGUF_BOOL); gb_u8(&b, 2);
    BAD(&b, MIO_ERR_INVALID_KV, "tokenizer.ggml.add_bos_token", "bool byte is 2");
    gb_free(&b);
    one_kv(&b, "flags", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_BOOL); gb_u64(&b, 3); gb_u8(&b, 1); gb_u8(&b, 0); gb_u8(&b, 255);
    BAD(&b, MIO_ERR_INVALID_KV, "flags", "element 2", "bool byte is 255");
    gb_free(&b);

    /* fixed-width scalar cut short */
    one_kv(&b, "general.file_type", MIO_GGUF_U64); gb_u32(&b, 1);
    BAD(&b, MIO_ERR_TRUNCATED, "general.file_type", "u64 value needs 8 bytes", "4 remain");
    gb_free(&b);

    /* duplicate key (second entry names the first) */
    gb_header(&b, 3, 0, 3);
    gb_kv_u32(&b, "llama.block_count", 32);
    gb_kv_str(&b, "general.name", "x");
    gb_kv_u32(&b, "llama.block_count", 33);
    BAD(&b, MIO_ERR_DUPLICATE_KEY, "llama.block_count", "entry #2", "entry #0");
    gb_free(&b);
    /* duplicate key made of invalid UTF-8: the message escapes it */
    gb_header(&b, 3, 0, 2);
    gb_kv_u32(&b, "k\xff", 1);
    gb_kv_u32(&b, "k\xff", 2);
    BAD(&b, MIO_ERR_DUPLICATE_KEY, "k\\xff");
    gb_free(&b);
    /* same bytes but different lengths are different keys */
    gb_header(&b, 3, 0, 2);
    gb_kv_u32(&b, "ab", 1);
    gb_kv_u32(&b, "abc", 2);
    {
        mio_gguf_file *f = GOOD(&b);
        if (f) {
            T_EQ_INT(mio_gguf_find_key(f, "ab"), 0);
            T_EQ_INT(mio_gguf_find_key(f, "abc"), 1);
            T_EQ_INT(mio_gguf_find_key(f, "a"), -1);
            mio_gguf_close(f);
        }
    }
    gb_free(&b);
}

/* Nested arrays: levels-1 arrays of one array each, innermost an array of two u32 {7, 9}. */
static void nested(gbuf *b, uint32_t levels) {
    one_kv(b, "nest", MIO_GGUF_ARRAY);
    for (uint32_t l = 1; l < levels; l++) { gb_u32(b, MIO_GGUF_ARRAY); gb_u64(b, 1); }
    gb_u32(b, MIO_GGUF_U32); gb_u64(b, 2); gb_u32(b, 7); gb_u32(b, 9);
}

static void test_nesting(void) {
    gbuf b = {0};
    /* depth at the cap: accepted, values reachable through mio_gguf_value_elem */
    nested(&b, MIO_GGUF_MAX_ARRAY_DEPTH);
    mio_gguf_file *f = GOOD(&b);
    if (f) {
        mio_gguf_value v, e;
        T_OK(mio_gguf_kv_value(f, 0, &v));
        T_EQ_INT(v.type, MIO_GGUF_ARRAY);
        T_EQ_INT(v.elem_type, MIO_GGUF_ARRAY);
        T_EQ_U64(v.count, 1);
        T_EQ_INT(v.depth, MIO_GGUF_MAX_ARRAY_DEPTH);
        int reached = 1;
        memset(&e, 0, sizeof e);
        for (int l = 1; l < MIO_GGUF_MAX_ARRAY_DEPTH; l++) {
            mio_status st = mio_gguf_value_elem(&v, 0, &e);
            if (st != MIO_OK || e.type != MIO_GGUF_ARRAY) {
                fprintf(stderr, "%s:%d: value_elem at level %d: %s (%s)\n", __FILE__, __LINE__, l,
                        mio_status_name(st), mio_last_error());
                break;
            }
            T_EQ_INT(e.depth, MIO_GGUF_MAX_ARRAY_DEPTH - l);
            v = e;
            reached++;
        }
        T_EQ_INT(reached, MIO_GGUF_MAX_ARRAY_DEPTH);
        if (reached == MIO_GGUF_MAX_ARRAY_DEPTH) {
            T_EQ_INT(v.type, MIO_GGUF_ARRAY);
            T_EQ_INT(v.elem_type, MIO_GGUF_U32);
            T_EQ_U64(v.count, 2);
            T_EQ_U64(v.size, 8);
            uint64_t u = 0;
            T_OK(mio_gguf_value_elem(&v, 1, &e));
            T_OK(mio_gguf_value_u64(&e, &u));
            T_EQ_U64(u, 9);
            T_OK(mio_gguf_value_elem(&v, 0, &e));
            T_OK(mio_gguf_value_u64(&e, &u));
            T_EQ_U64(u, 7);
            /* index past the end: refused (the header's status for a bad index is
             * MIO_ERR_INVALID_ARG; the library currently says MIO_ERR_OUT_OF_RANGE) */
            T_CHECK(mio_gguf_value_elem(&v, 2, &e) != MIO_OK);
            T_MSG_HAS("index 2 out of range");
        }
        mio_gguf_close(f);
    }
    gb_free(&b);

    /* [[1,2,3],[4,5]] followed by a sentinel key: value_elem skips the first element */
    gb_header(&b, 3, 0, 2);
    gb_kv(&b, "pairs", MIO_GGUF_ARRAY);
    gb_u32(&b, MIO_GGUF_ARRAY); gb_u64(&b, 2);
    gb_u32(&b, MIO_GGUF_U32); gb_u64(&b, 3); gb_u32(&b, 1); gb_u32(&b, 2); gb_u32(&b, 3);
    gb_u32(&b, MIO_GGUF_I8); gb_u64(&b, 2); gb_u8(&b, 4); gb_u8(&b, 0xfb);
    gb_kv_u32(&b, "after", 42);
    f = GOOD(&b);
    if (f) {
        mio_gguf_value v, e, x;
        int64_t i = 0;
        T_OK(mio_gguf_kv_value(f, 0, &v));
        T_EQ_INT(v.depth, 2);
        T_EQ_U64(v.size, 2 * 12 + 12 + 2);
        T_OK(mio_gguf_value_elem(&v, 1, &e));
        T_EQ_INT(e.elem_type, MIO_GGUF_I8);
        T_EQ_U64(e.count, 2);
        T_OK(mio_gguf_value_elem(&e, 1, &x));
        T_OK(mio_gguf_value_i64(&x, &i));
        T_EQ_INT(i, -5);
        T_OK(mio_gguf_kv_i64(f, 1, &i));
        T_EQ_INT(i, 42);
        mio_gguf_close(f);
    }
    gb_free(&b);

    /* one level beyond the cap, and 100000 levels: refused, no stack overflow */
    nested(&b, MIO_GGUF_MAX_ARRAY_DEPTH + 1);
    BAD(&b, MIO_ERR_INVALID_KV, "nest", "nested deeper than 8");
    gb_free(&b);
    nested(&b, 100000);
    BAD(&b, MIO_ERR_INVALID_KV, "nest", "nested deeper than 8");
    gb_free(&b);
}

/* ---- general.alignment --------------------------------------------------- */

static void test_alignment(void) {
    gbuf b = {0};
    one_kv(&b, "general.alignment", MIO_GGUF_U64); gb_u64(&b, 32);
    BAD(&b, MIO_ERR_INVALID_ALIGNMENT, "general.alignment", "type u64", "must be u32");
    gb_free(&b);
    one_kv(&b, "general.alignment", MIO_GGUF_I32); gb_u32(&b, 32);
    BAD(&b, MIO_ERR_INVALID_ALIGNMENT, "general.alignment", "type i32");
    gb_free(&b);
    const uint32_t bad[] = {0, 3, 48, (uint32_t)1 << 21, 0x80000000u};
    const char *txt[] = {"is 0", "is 3", "is 48", "is 2097152", "is 2147483648"};
    for (int k = 0; k < 5; k++) {
        one_kv(&b, "general.alignment", MIO_GGUF_U32); gb_u32(&b, bad[k]);
        BAD(&b, MIO_ERR_INVALID_ALIGNMENT, "general.alignment", txt[k], "power of two", "1048576");
        gb_free(&b);
    }
    /* 2^20 is the largest accepted */
    one_kv(&b, "general.alignment", MIO_GGUF_U32); gb_u32(&b, (uint32_t)1 << 20);
    mio_gguf_file *f = GOOD(&b);
    if (f) {
        T_EQ_INT(mio_gguf_alignment(f), 1 << 20);
        T_EQ_U64(mio_gguf_data_offset(f), 1 << 20);
        mio_gguf_close(f);
    }
    gb_free(&b);
    /* alignment 1: no padding at all */
    gb_header(&b, 3, 2, 1);
    gb_kv_u32(&b, "general.alignment", 1);
    {
        int64_t ne1[1] = {3};
        gb_tinfo(&b, "x", 1, ne1, MIO_TYPE_I8, 0);
        gb_tinfo(&b, "y", 1, ne1, MIO_TYPE_I8, 3);
    }
    size_t hs1 = b.n;
    gb_put(&b, "abcdef", 6);
    f = GOOD(&b);
    if (f) {
        mio_gguf_tensor t;
        T_EQ_U64(mio_gguf_data_offset(f), hs1);
        T_OK(mio_gguf_tensor_info(f, 1, &t));
        T_CHECK(t.data == b.p + hs1 + 3);
        T_CHECK(memcmp(t.data, "def", 3) == 0);
        mio_gguf_close(f);
    }
    gb_free(&b);

    /* alignment 64 honoured: two f32[3] tensors at 0 and 64, data section at a multiple of 64 */
    gb_header(&b, 3, 2, 1);
    gb_kv_u32(&b, "general.alignment", 64);
    const int64_t ne[1] = {3};
    gb_tinfo(&b, "a", 1, ne, MIO_TYPE_F32, 0);
    gb_tinfo(&b, "b", 1, ne, MIO_TYPE_F32, 64);
    size_t hs = b.n;
    gb_pad(&b, 64);
    size_t doff = b.n;
    gb_fill(&b, 0x11, 12); gb_pad(&b, 64);
    gb_fill(&b, 0x22, 12); gb_pad(&b, 64);
    f = GOOD(&b);
    if (f) {
        mio_gguf_tensor t;
        T_EQ_INT(mio_gguf_alignment(f), 64);
        T_EQ_U64(mio_gguf_header_size(f), hs);
        T_EQ_U64(mio_gguf_data_offset(f), doff);
        T_EQ_U64(mio_gguf_data_offset(f) % 64, 0);
        T_CHECK(doff > hs && doff - hs < 64);
        T_OK(mio_gguf_tensor_info(f, 1, &t));
        T_EQ_U64(t.offset, 64);
        T_EQ_U64(t.nbytes, 12);
        T_CHECK(t.data == b.p + doff + 64);
        T_EQ_INT(((const uint8_t *)t.data)[0], 0x22);
        mio_gguf_close(f);
    }
    gb_free(&b);
    /* in that 64-aligned file, the default-32 offset of the second tensor is wrong */
    gb_header(&b, 3, 2, 1);
    gb_kv_u32(&b, "general.alignment", 64);
    gb_tinfo(&b, "a", 1, ne, MIO_TYPE_F32, 0);
    gb_tinfo(&b, "b", 1, ne, MIO_TYPE_F32, 32);
    gb_pad(&b, 64); gb_fill(&b, 0, 128);
    BAD(&b, MIO_ERR_INVALID_OFFSET, "'b'", "offset 32", "expected 64", "padded to 64");
    gb_free(&b);
}

/* ---- tensor infos -------------------------------------------------------- */

static void test_tensors(void) {
    gbuf b = {0};
    const int64_t ne4[1] = {4};

    /* duplicate tensor name */
    gb_header(&b, 3, 2, 0);
    gb_tinfo(&b, "blk.0.attn_q.weight", 1, ne4, MIO_TYPE_F32, 0);
    gb_tinfo(&b, "blk.0.attn_q.weight", 1, ne4, MIO_TYPE_F32, 32);
    gb_pad(&b, 32); gb_fill(&b, 0, 64);
    BAD(&b, MIO_ERR_DUPLICATE_TENSOR, "blk.0.attn_q.weight", "#1", "#0");
    gb_free(&b);

    /* empty tensor name */
    gb_header(&b, 3, 1, 0);
    gb_tinfo(&b, "", 1, ne4, MIO_TYPE_F32, 0);
    gb_pad(&b, 32); gb_fill(&b, 0, 16);
    BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "tensor info #0", "empty name");
    gb_free(&b);

    /* names of 64 bytes refused, 63 accepted */
    char name[65];
    memset(name, 'n', 64);
    name[64] = 0;
    one_tensor(&b, name, 1, ne4, MIO_TYPE_F32);
    gb_pad(&b, 32); gb_fill(&b, 0, 16);
    BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "nnnnnnnn", "64 bytes", "under 64");
    gb_free(&b);
    name[63] = 0;
    one_tensor(&b, name, 1, ne4, MIO_TYPE_F32);
    gb_pad(&b, 32); gb_fill(&b, 0, 16);
    mio_gguf_file *f = GOOD(&b);
    if (f) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, 0, &t));
        T_EQ_U64(t.name.len, 63);
        T_EQ_INT(mio_gguf_find_tensor(f, name), 0);
        mio_gguf_close(f);
    }
    gb_free(&b);
    /* tensor name running past EOF */
    gb_header(&b, 3, 1, 0);
    gb_u64(&b, 1000); gb_fill(&b, 'n', 40);
    BAD(&b, MIO_ERR_TRUNCATED, "tensor info #0", "name of 1000 bytes");
    gb_free(&b);

    /* n_dims 0 and 5 */
    {
        const int64_t ne5[5] = {1, 1, 1, 1, 1};
        one_tensor(&b, "t0", 0, ne5, MIO_TYPE_F32);
        gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "'t0'", "n_dims is 0");
        gb_free(&b);
        one_tensor(&b, "t5", 5, ne5, MIO_TYPE_F32);
        gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "'t5'", "n_dims is 5");
        gb_free(&b);
    }

    /* negative dim */
    {
        const int64_t ne[2] = {4, -2};
        one_tensor(&b, "neg", 2, ne, MIO_TYPE_F32);
        gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "'neg'", "dimension 1", "negative", "-2");
        gb_free(&b);
    }
    /* dims whose product overflows */
    {
        const int64_t ne[3] = {(int64_t)1 << 32, (int64_t)1 << 20, (int64_t)1 << 12};
        one_tensor(&b, "huge", 3, ne, MIO_TYPE_F32);
        gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_OVERFLOW, "'huge'", "overflows", "dimension 2");
        gb_free(&b);
        /* element count fits int64 but the byte size (x4) does not */
        const int64_t ne2[2] = {(int64_t)1 << 32, (int64_t)1 << 30};
        one_tensor(&b, "wide", 2, ne2, MIO_TYPE_F32);
        gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_OVERFLOW, "'wide'", "overflows");
        gb_free(&b);
    }

    /* unknown ggml type codes: a removed one (4) and a made-up one (1000) */
    one_tensor(&b, "q42", 1, ne4, 4);
    gb_fill(&b, 0, 64);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "'q42'", "unknown ggml type code 4");
    gb_free(&b);
    one_tensor(&b, "odd", 1, ne4, 1000);
    gb_fill(&b, 0, 64);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "'odd'", "unknown ggml type code 1000");
    gb_free(&b);
    /* the library's own safetensors-only codes (1000..1013) are not ggml codes either */
    one_tensor(&b, "stu64", 1, ne4, 1013);
    gb_fill(&b, 0, 64);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "'stu64'", "unknown ggml type code 1013");
    gb_free(&b);
    one_tensor(&b, "past", 1, ne4, MIO_TYPE_GGML_COUNT);
    gb_fill(&b, 0, 64);
    BAD(&b, MIO_ERR_UNSUPPORTED_TYPE, "'past'", "unknown ggml type code 43");
    gb_free(&b);

    /* row length not a whole number of blocks: q4_0 with ne0 = 33 */
    {
        const int64_t ne[2] = {33, 2};
        one_tensor(&b, "q4", 2, ne, MIO_TYPE_Q4_0);
        gb_fill(&b, 0, 128);
        BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "'q4'", "row length 33", "q4_0", "block size 32");
        gb_free(&b);
        const int64_t ne2[1] = {255};
        one_tensor(&b, "k", 1, ne2, MIO_TYPE_Q4_K);
        gb_fill(&b, 0, 256);
        BAD(&b, MIO_ERR_INVALID_TENSOR_INFO, "'k'", "row length 255", "256");
        gb_free(&b);
    }

    /* offsets: must equal the running padded sum */
    {
        const int64_t ne[1] = {5}; /* 20 bytes, padded to 32 */
        gb_header(&b, 3, 3, 0);
        gb_tinfo(&b, "t.a", 1, ne, MIO_TYPE_F32, 0);
        gb_tinfo(&b, "t.b", 1, ne, MIO_TYPE_F32, 64); /* off by 32 */
        gb_tinfo(&b, "t.c", 1, ne, MIO_TYPE_F32, 96);
        gb_pad(&b, 32); gb_fill(&b, 0, 128);
        BAD(&b, MIO_ERR_INVALID_OFFSET, "'t.b'", "#1", "offset 64", "expected 32");
        gb_free(&b);
        /* unpadded offset (20 instead of 32) */
        gb_header(&b, 3, 2, 0);
        gb_tinfo(&b, "t.a", 1, ne, MIO_TYPE_F32, 0);
        gb_tinfo(&b, "t.b", 1, ne, MIO_TYPE_F32, 20);
        gb_pad(&b, 32); gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_INVALID_OFFSET, "'t.b'", "offset 20", "expected 32");
        gb_free(&b);
        /* first tensor not at 0 */
        gb_header(&b, 3, 1, 0);
        gb_tinfo(&b, "t.a", 1, ne, MIO_TYPE_F32, 32);
        gb_pad(&b, 32); gb_fill(&b, 0, 64);
        BAD(&b, MIO_ERR_INVALID_OFFSET, "'t.a'", "offset 32", "expected 0");
        gb_free(&b);
    }

    /* tensor running past EOF: a 16 GiB f32 tensor in a file that stops at the data section */
    {
        const int64_t ne[2] = {65536, 65536};
        gb_header(&b, 3, 1, 1);
        gb_kv_str(&b, "general.name", "big");
        gb_tinfo(&b, "token_embd.weight", 2, ne, MIO_TYPE_F32, 0);
        gb_pad(&b, 32);
        BAD(&b, MIO_ERR_TRUNCATED, "token_embd.weight", "17179869184 bytes", "17.18 GB", "truncated download");
        gb_free(&b);
        /* second tensor cut: 3000 of its 4000 bytes missing */
        const int64_t na[1] = {8}, nb[1] = {1000};
        gb_header(&b, 3, 2, 0);
        gb_tinfo(&b, "first", 1, na, MIO_TYPE_F32, 0);
        gb_tinfo(&b, "second", 1, nb, MIO_TYPE_F32, 32);
        gb_pad(&b, 32);
        size_t doff = b.n;
        gb_fill(&b, 0, 32 + 1000);
        /* the human size is in a unit that shows it (never "0.00 GB") */
        BAD(&b, MIO_ERR_TRUNCATED, "'second'", "#1 of 2", "3000 bytes (3.00 kB) of tensor data are missing");
        T_CHECK(strstr(mio_last_error(), "0.00") == NULL);
        gb_free(&b);
        /* under 1000 bytes the exact count stands alone: 40 - 8 = 32 bytes missing */
        const int64_t n10[1] = {10};
        gb_header(&b, 3, 1, 0);
        gb_tinfo(&b, "small", 1, n10, MIO_TYPE_F32, 0);
        gb_pad(&b, 32);
        gb_fill(&b, 0, 8);
        BAD(&b, MIO_ERR_TRUNCATED, "'small'", "the file has", "32 bytes of tensor data are missing");
        T_CHECK(strstr(mio_last_error(), "0.00") == NULL);
        gb_free(&b);
        (void)doff;
    }

    /* tensor infos cut short */
    gb_header(&b, 3, 1, 0);
    gb_str(&b, "cut"); gb_u32(&b, 2); gb_i64(&b, 4); gb_fill(&b, 0, 12);
    BAD(&b, MIO_ERR_TRUNCATED, "'cut'", "dims, type and offset need 28 bytes", "20 remain");
    gb_free(&b);
}

/* ---- values: widening, u64 >= 2^63, non-UTF-8 strings -------------------- */

static void test_values(void) {
    gbuf b = {0};
    const uint64_t big = ((uint64_t)1 << 63) + 5;
    gb_header(&b, 3, 0, 4);
    gb_kv(&b, "big", MIO_GGUF_U64); gb_u64(&b, big);
    gb_kv(&b, "neg", MIO_GGUF_I64); gb_i64(&b, -1);
    gb_kv(&b, "bigs", MIO_GGUF_ARRAY); gb_u32(&b, MIO_GGUF_U64); gb_u64(&b, 2); gb_u64(&b, 1); gb_u64(&b, big);
    gb_kv(&b, "i8", MIO_GGUF_I8); gb_u8(&b, 0x80);
    mio_gguf_file *f = GOOD(&b);
    if (f) {
        int64_t i = 0;
        uint64_t u = 0;
        T_STATUS(mio_gguf_kv_i64(f, 0, &i), MIO_ERR_OUT_OF_RANGE);
        T_MSG_HAS("9223372036854775813");
        printf("  u64 2^63+5 as i64: %s\n", mio_last_error());
        T_OK(mio_gguf_kv_u64(f, 0, &u));
        T_EQ_U64(u, 9223372036854775813ull);
        T_STATUS(mio_gguf_kv_u64(f, 1, &u), MIO_ERR_OUT_OF_RANGE);
        T_OK(mio_gguf_kv_i64(f, 1, &i));
        T_EQ_INT(i, -1);
        T_OK(mio_gguf_arr_u64(f, 2, 1, &u));
        T_EQ_U64(u, big);
        T_STATUS(mio_gguf_arr_i64(f, 2, 1, &i), MIO_ERR_OUT_OF_RANGE);
        T_OK(mio_gguf_arr_i64(f, 2, 0, &i));
        T_EQ_INT(i, 1);
        T_OK(mio_gguf_kv_i64(f, 3, &i));
        T_EQ_INT(i, -128);
        T_STATUS(mio_gguf_kv_u64(f, 3, &u), MIO_ERR_OUT_OF_RANGE);
        mio_gguf_close(f);
    }
    gb_free(&b);

    /* strings that are not UTF-8: accepted everywhere, bytes returned exactly */
    static const char bad1[] = "\xc3\x28\x80\xff";          /* broken 2-byte seq, lone continuation, 0xff */
    static const char bad2[] = "\xed\xa0\x80";              /* UTF-16 surrogate */
    static const char bad3[] = "\xf8\x88\x80\x80\x80\x00z"; /* 5-byte form and an embedded NUL */
    gb_header(&b, 3, 1, 2);
    gb_kv(&b, "bad.\xfe\xff", MIO_GGUF_STRING); gb_strn(&b, bad1, 4);
    gb_kv(&b, "bad.arr", MIO_GGUF_ARRAY); gb_u32(&b, MIO_GGUF_STRING); gb_u64(&b, 3);
    gb_str(&b, "ok"); gb_strn(&b, bad2, 3); gb_strn(&b, bad3, 7);
    gb_tinfo(&b, "t\xc0\xaf", 1, (const int64_t[]){4}, MIO_TYPE_F32, 0);
    gb_pad(&b, 32); gb_fill(&b, 0, 16);
    f = GOOD(&b);
    if (f) {
        mio_str s;
        T_EQ_INT(mio_gguf_find_key(f, "bad.\xfe\xff"), 0);
        T_OK(mio_gguf_kv_str(f, 0, &s));
        T_EQ_U64(s.len, 4);
        T_CHECK(s.len == 4 && memcmp(s.ptr, bad1, 4) == 0);
        T_OK(mio_gguf_arr_str(f, 1, 2, &s));
        T_EQ_U64(s.len, 7);
        T_CHECK(s.len == 7 && memcmp(s.ptr, bad3, 7) == 0);
        T_OK(mio_gguf_arr_str(f, 1, 1, &s));
        T_CHECK(s.len == 3 && memcmp(s.ptr, bad2, 3) == 0);
        T_OK(mio_gguf_arr_str(f, 1, 0, &s));
        T_EQ_MSTR(s, "ok");
        T_CHECK(mio_gguf_arr_str(f, 1, 3, &s) != MIO_OK); /* see value_elem above on the status */
        T_MSG_HAS("index 3 out of range");
        T_EQ_INT(mio_gguf_find_tensor(f, "t\xc0\xaf"), 0);
        mio_gguf_close(f);
    }
    gb_free(&b);
}

/* ---- a small valid file: every prefix, random flips ---------------------- */

/* 10 KVs of assorted types, 2 tensors (f32 [4,2] at 0, q8_0 [32] at 32); the
 * file is padded to the alignment after the last tensor, like ggml writes it. */
static void small_valid(gbuf *b, size_t *data_off, size_t *data_end) {
    gb_header(b, 3, 2, 10);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.alignment", 32);
    gb_kv(b, "u8", MIO_GGUF_U8); gb_u8(b, 200);
    gb_kv(b, "i16", MIO_GGUF_I16); gb_u8(b, 0x00); gb_u8(b, 0x80);
    gb_kv(b, "f32", MIO_GGUF_F32); gb_u32(b, 0x3fc00000u); /* 1.5 */
    gb_kv(b, "b", MIO_GGUF_BOOL); gb_u8(b, 1);
    gb_kv(b, "f64", MIO_GGUF_F64); gb_u64(b, 0xc004000000000000ull); /* -2.5 */
    gb_kv(b, "toks", MIO_GGUF_ARRAY); gb_u32(b, MIO_GGUF_STRING); gb_u64(b, 3);
    gb_str(b, "<s>"); gb_str(b, ""); gb_str(b, "hello");
    gb_kv(b, "ids", MIO_GGUF_ARRAY); gb_u32(b, MIO_GGUF_I32); gb_u64(b, 3);
    gb_u32(b, 1); gb_u32(b, 0xffffffffu); gb_u32(b, 3);
    gb_kv(b, "nest", MIO_GGUF_ARRAY); gb_u32(b, MIO_GGUF_ARRAY); gb_u64(b, 1);
    gb_u32(b, MIO_GGUF_U16); gb_u64(b, 2); gb_u8(b, 1); gb_u8(b, 0); gb_u8(b, 2); gb_u8(b, 0);
    const int64_t ne_a[2] = {4, 2}, ne_b[1] = {32};
    gb_tinfo(b, "tok.a", 2, ne_a, MIO_TYPE_F32, 0);
    gb_tinfo(b, "tok.b", 1, ne_b, MIO_TYPE_Q8_0, 32);
    gb_pad(b, 32);
    *data_off = b->n;
    for (int k = 0; k < 8; k++) { float x = (float)k; gb_put(b, &x, 4); }
    gb_pad(b, 32);
    gb_fill(b, 0x5a, 34);
    *data_end = b->n;
    gb_pad(b, 32);
}

static void test_small_valid(void) {
    gbuf b = {0};
    size_t doff, dend;
    small_valid(&b, &doff, &dend);
    mio_gguf_file *f = GOOD(&b);
    if (f) {
        int64_t i = 0;
        double d = 0;
        int bo = 0;
        mio_str s;
        mio_gguf_tensor t;
        T_EQ_INT(mio_gguf_kv_count(f), 10);
        T_EQ_INT(mio_gguf_tensor_count(f), 2);
        T_EQ_U64(mio_gguf_data_offset(f), doff);
        T_EQ_U64(doff % 32, 0);
        T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "u8"), &i)); T_EQ_INT(i, 200);
        T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "i16"), &i)); T_EQ_INT(i, -32768);
        T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "f32"), &d)); T_CHECK(d == 1.5);
        T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "f64"), &d)); T_CHECK(d == -2.5);
        T_OK(mio_gguf_kv_bool(f, mio_gguf_find_key(f, "b"), &bo)); T_EQ_INT(bo, 1);
        T_OK(mio_gguf_arr_str(f, mio_gguf_find_key(f, "toks"), 2, &s)); T_EQ_MSTR(s, "hello");
        T_OK(mio_gguf_arr_str(f, mio_gguf_find_key(f, "toks"), 1, &s)); T_EQ_U64(s.len, 0);
        T_OK(mio_gguf_arr_i64(f, mio_gguf_find_key(f, "ids"), 1, &i)); T_EQ_INT(i, -1);
        T_OK(mio_gguf_tensor_info(f, 1, &t));
        T_EQ_MSTR(t.name, "tok.b");
        T_EQ_U64(t.nbytes, 34);
        T_EQ_U64(t.offset, 32);
        T_CHECK(t.data == b.p + doff + 32);
        T_OK(mio_gguf_tensor_info(f, 0, &t));
        T_EQ_U64(t.nbytes, 32);
        float x7;
        memcpy(&x7, (const uint8_t *)t.data + 28, 4);
        T_CHECK(x7 == 7.0f);
        mio_gguf_close(f);
    }
    printf("  small valid file: %zu bytes, data section at %zu, last tensor ends at %zu\n", b.n, doff, dend);

    /* Every prefix: < 4 bytes is not GGUF, shorter than the last tensor's end is
     * truncated, from the last tensor's end on (only trailing padding missing) it
     * opens. Each prefix lives in its own heap block so overreads are visible to
     * valgrind/ASan. */
    int wrong = 0;
    for (size_t n = 0; n <= b.n; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        if (n) memcpy(copy, b.p, n);
        mio_gguf_file *g = NULL;
        mio_status st = mio_gguf_open_buffer(copy, n, MIO_BUFFER_TAKE, &g);
        mio_status want = n < 4 ? MIO_ERR_BAD_MAGIC : n < dend ? MIO_ERR_TRUNCATED : MIO_OK;
        if (st != want || (st && !mio_last_error()[0])) {
            if (wrong++ < 5)
                fprintf(stderr, "prefix %zu: %s, expected %s (%s)\n", n, mio_status_name(st), mio_status_name(want),
                        mio_last_error());
        }
        if (n == 30 || n == doff - 1 || n == dend - 1)
            printf("  prefix %zu: %s: %s\n", n, mio_status_name(st), mio_last_error());
        if (st == MIO_OK) mio_gguf_close(g);
    }
    T_EQ_INT(wrong, 0);

    /* Random byte flips: never a crash; a refusal always has a message; an
     * accepted image has every view inside the buffer. */
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int accepted = 0, refused = 0, bad_views = 0, no_msg = 0;
    int per_status[32] = {0};
    for (int it = 0; it < 4000; it++) {
        uint8_t *copy = malloc(b.n);
        memcpy(copy, b.p, b.n);
        int flips = 1 + it % 4;
        for (int k = 0; k < flips; k++) {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
            size_t at = (size_t)(rng % b.n);
            /* bias toward the header, where the structure is */
            if (it % 3 != 2) at = (size_t)(rng % doff);
            uint8_t v = (uint8_t)(rng >> 40);
            copy[at] = (uint8_t)((it & 1) ? v : (copy[at] ^ (1u << ((rng >> 32) & 7))));
        }
        mio_gguf_file *g = NULL;
        uint32_t fl = (it & 2) ? MIO_BUFFER_TAKE : MIO_BUFFER_BORROW;
        mio_status st = mio_gguf_open_buffer(copy, b.n, fl, &g);
        if (st == MIO_OK) {
            accepted++;
            for (int64_t k = 0; k < mio_gguf_kv_count(g); k++) {
                mio_gguf_value v;
                if (mio_gguf_kv_value(g, k, &v) != MIO_OK) { bad_views++; continue; }
                const uint8_t *p = v.data;
                if (v.size && (p < copy || p + v.size > copy + b.n)) bad_views++;
                if (v.type == MIO_GGUF_ARRAY) {
                    mio_gguf_value e;
                    for (uint64_t j = 0; j < v.count && j < 8; j++)
                        if (mio_gguf_value_elem(&v, j, &e) == MIO_OK && e.size &&
                            ((const uint8_t *)e.data < copy || (const uint8_t *)e.data + e.size > copy + b.n))
                            bad_views++;
                    mio_str s;
                    if (v.elem_type == MIO_GGUF_STRING)
                        for (uint64_t j = 0; j < v.count; j++)
                            if (mio_gguf_arr_str(g, k, j, &s) == MIO_OK && s.len &&
                                ((const uint8_t *)s.ptr < copy || (const uint8_t *)s.ptr + s.len > copy + b.n))
                                bad_views++;
                }
            }
            for (int64_t k = 0; k < mio_gguf_tensor_count(g); k++) {
                mio_gguf_tensor t;
                if (mio_gguf_tensor_info(g, k, &t) != MIO_OK) { bad_views++; continue; }
                const uint8_t *p = t.data;
                if (t.nbytes && (p < copy || p + t.nbytes > copy + b.n)) bad_views++;
            }
            mio_gguf_close(g);
        } else {
            refused++;
            if (!mio_last_error()[0]) no_msg++;
            if ((int)st >= 0 && (int)st < 32) per_status[st]++;
        }
        if (!(fl & MIO_BUFFER_TAKE)) free(copy);
    }
    T_EQ_INT(accepted + refused, 4000);
    T_EQ_INT(bad_views, 0);
    T_EQ_INT(no_msg, 0);
    T_CHECK(refused > 0);
    printf("  4000 mutated images: %d accepted, %d refused:", accepted, refused);
    for (int s = 0; s < 32; s++)
        if (per_status[s]) printf(" %s=%d", mio_status_name((mio_status)s), per_status[s]);
    printf("\n");
    gb_free(&b);
}

/* ---- files and buffer ownership ----------------------------------------- */

static int write_file(const char *path, const gbuf *b) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t w = b->n ? fwrite(b->p, 1, b->n, fp) : 0;
    return (fclose(fp) == 0 && w == b->n) ? 0 : -1;
}

static void test_files(void) {
    gbuf b = {0};
    size_t doff, dend;
    small_valid(&b, &doff, &dend);
    const char *path = "hostile_small.gguf";
    T_EQ_INT(write_file(path, &b), 0);
    const uint32_t modes[2] = {MIO_OPEN_MMAP, MIO_OPEN_READ};
    for (int m = 0; m < 2; m++) {
        mio_gguf_file *f = NULL;
        T_OK(mio_gguf_open(path, modes[m], &f));
        if (f) {
            mio_gguf_tensor t;
            T_EQ_INT(mio_gguf_kv_count(f), 10);
            T_EQ_INT(mio_gguf_tensor_count(f), 2);
            T_EQ_U64(mio_gguf_file_size(f), b.n);
            T_OK(mio_gguf_tensor_info(f, 1, &t));
            T_CHECK(t.nbytes == 34 && memcmp(t.data, b.p + doff + 32, 34) == 0);
            mio_gguf_close(f);
        }
    }
    gb_free(&b);

    /* a bad file through both paths: same status, message names the path */
    gb_header(&b, 3, 0, 1);
    gb_kv_u32(&b, "general.alignment", 3);
    T_EQ_INT(write_file(path, &b), 0);
    for (int m = 0; m < 2; m++) {
        mio_gguf_file *f = NULL;
        T_STATUS(mio_gguf_open(path, modes[m], &f), MIO_ERR_INVALID_ALIGNMENT);
        T_MSG_HAS("hostile_small.gguf");
        T_MSG_HAS("general.alignment is 3");
    }
    gb_free(&b);

    /* truncated download through a file */
    {
        const int64_t ne[2] = {4096, 4096};
        gb_header(&b, 3, 1, 0);
        gb_tinfo(&b, "output.weight", 2, ne, MIO_TYPE_F16, 0);
        gb_pad(&b, 32);
        gb_fill(&b, 0, 1000);
        T_EQ_INT(write_file(path, &b), 0);
        for (int m = 0; m < 2; m++) {
            mio_gguf_file *f = NULL;
            T_STATUS(mio_gguf_open(path, modes[m], &f), MIO_ERR_TRUNCATED);
            T_MSG_HAS("output.weight");
            T_MSG_HAS("33553432 bytes (33.55 MB)"); /* 4096*4096*2 - 1000 */
            if (m == 0) printf("  file: %s\n", mio_last_error());
        }
        gb_free(&b);
    }

    /* empty file */
    T_EQ_INT(write_file(path, &b), 0);
    for (int m = 0; m < 2; m++) {
        mio_gguf_file *f = NULL;
        T_STATUS(mio_gguf_open(path, modes[m], &f), MIO_ERR_BAD_MAGIC);
    }
    remove(path);
    {
        mio_gguf_file *f = NULL;
        T_STATUS(mio_gguf_open("hostile_does_not_exist.gguf", 0, &f), MIO_ERR_NOT_FOUND);
        T_MSG_HAS("hostile_does_not_exist.gguf");
        T_STATUS(mio_gguf_open(".", 0, &f), MIO_ERR_IO); /* a directory */
    }
}

static void test_take(void) {
    gbuf b = {0};
    size_t doff, dend;
    small_valid(&b, &doff, &dend);
    /* success: the handle frees the buffer on close */
    uint8_t *copy = malloc(b.n);
    memcpy(copy, b.p, b.n);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open_buffer(copy, b.n, MIO_BUFFER_TAKE, &f));
    if (f) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, 0, &t));
        T_CHECK(t.data == copy + doff);
        void *addr = (void *)1;
        size_t len = 1;
        T_OK(mio_gguf_take_mapping(f, &addr, &len)); /* buffer loads transfer nothing */
        T_CHECK(addr == NULL && len == 0);
        mio_gguf_close(f);
    }
    /* parse failure: freed by the failed open (valgrind: no leak, no double free) */
    copy = malloc(b.n);
    memcpy(copy, b.p, b.n);
    copy[4] = 9; /* version 9 */
    T_STATUS(mio_gguf_open_buffer(copy, b.n, MIO_BUFFER_TAKE, &f), MIO_ERR_UNSUPPORTED_VERSION);
    /* argument failures with TAKE also free */
    copy = malloc(16);
    T_STATUS(mio_gguf_open_buffer(copy, 16, MIO_BUFFER_TAKE, NULL), MIO_ERR_INVALID_ARG);
    copy = malloc(16);
    T_STATUS(mio_gguf_open_buffer(copy, 16, MIO_BUFFER_TAKE | (1u << 9), &f), MIO_ERR_INVALID_ARG);
    /* borrowed buffer with a failure is left alone */
    T_STATUS(mio_gguf_open_buffer(b.p, 10, MIO_BUFFER_BORROW, &f), MIO_ERR_TRUNCATED);
    T_EQ_INT(b.p[0], 'G');
    /* NULL data with a length */
    T_STATUS(mio_gguf_open_buffer(NULL, 10, 0, &f), MIO_ERR_INVALID_ARG);
    gb_free(&b);
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0); /* keep printed messages in order with failures on stderr */
    test_header();
    test_kv();
    test_nesting();
    test_alignment();
    test_tensors();
    test_values();
    test_small_valid();
    test_files();
    test_take();
    T_DONE();
}
