/* SPDX-License-Identifier: MIT */
/* test_st_rules.c — one crafted in-memory safetensors image per rule of the
 * format (issue 3 "Format facts"): the check order, what upstream accepts, what
 * it refuses (and with which of our codes), every dtype's size, the dtype
 * helpers and the dtype <-> library type mapping. */
#include "st_util.h"

/* Shorthand for a one-tensor header. */
#define T1(name, dtype, shape, offs) "{\"" name "\":{\"dtype\":\"" dtype "\",\"shape\":" shape ",\"data_offsets\":" offs "}}"

typedef struct rule {
    const char *label;
    const char *json;
    size_t n_data;
    mio_status expect;
    const char *msg; /* substring of the message, or NULL */
} rule;

static const rule g_rules[] = {
    /* --- accepted --- */
    {"header length 2 (not a multiple of 8)", "{}", 0, MIO_OK, NULL},
    {"header length 3 with a space", "{} ", 0, MIO_OK, NULL},
    {"whitespace everywhere",
     " \n\t\r{ \"a\" :\n{ \"dtype\" : \"U8\" ,\t\"shape\" : [ 1 ] , \"data_offsets\" : [ 0 , 1 ] } , \"__metadata__\" : { \"k\" : \"v\" } } \r\n",
     1, MIO_OK, NULL},
    {"unknown scalar fields in a tensor entry",
     "{\"a\":{\"x\":1,\"dtype\":\"U8\",\"y\":\"s\",\"shape\":[1],\"z\":-1.5e-3,\"data_offsets\":[0,1],\"w\":true,\"v\":null}}", 1,
     MIO_OK, NULL},
    {"unknown nested object/array fields",
     "{\"a\":{\"dtype\":\"U8\",\"extra\":{\"y\":[1,{\"z\":null,\"q\":[[],{}]}],\"w\":false},\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
     MIO_OK, NULL},
    {"unknown field given twice", "{\"a\":{\"x\":1,\"x\":2,\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, MIO_OK, NULL},
    {"__metadata__ null", "{\"__metadata__\":null," "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, MIO_OK,
     NULL},
    {"__metadata__ {}", "{\"__metadata__\":{}}", 0, MIO_OK, NULL},
    {"__metadata__ last", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"__metadata__\":{\"k\":\"v\"}}", 1, MIO_OK,
     NULL},
    {"empty tensor name", T1("", "F32", "[1]", "[0,4]"), 4, MIO_OK, NULL},
    {"scalar shape []", T1("s", "F64", "[]", "[0,8]"), 8, MIO_OK, NULL},
    {"zero-sized tensor", T1("z", "F32", "[0]", "[0,0]"), 0, MIO_OK, NULL},
    {"zero dim first, huge dims after (no overflow)", T1("z", "F32", "[0,1099511627776,1099511627776]", "[0,0]"), 0, MIO_OK, NULL},
    {"two zero-sized tensors at the same offset",
     "{\"b\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},\"a\":{\"dtype\":\"U8\",\"shape\":[2,0],\"data_offsets\":[0,0]}}", 0,
     MIO_OK, NULL},
    {"dim exactly u64 max times zero", T1("z", "U8", "[0,18446744073709551615]", "[0,0]"), 0, MIO_OK, NULL},
    {"escaped slash", T1("a\\/b", "U8", "[1]", "[0,1]"), 1, MIO_OK, NULL},
    {"F4 even count", T1("f", "F4", "[2,3]", "[0,3]"), 3, MIO_OK, NULL},
    {"F6 multiple of 4", T1("f", "F6_E2M3", "[8]", "[0,6]"), 6, MIO_OK, NULL},

    /* --- check order --- */
    {"invalid UTF-8 beats bad JSON", "{\"\xff\" 1", 0, MIO_ERR_INVALID_UTF8, "0xff"},
    {"invalid UTF-8 in the data part is not checked", T1("a", "U8", "[256]", "[0,256]"), 256, MIO_OK, NULL},
    {"JSON error beats a bad offset", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[5,6]},}", 6, MIO_ERR_INVALID_JSON, NULL},
    {"offset beats overflow (same tensor)", T1("a", "F32", "[4611686018427387904]", "[4,8]"), 8, MIO_ERR_INVALID_OFFSET, "'a'"},
    {"overflow beats misaligned", T1("a", "F4", "[4294967296,4294967297]", "[0,1]"), 1, MIO_ERR_OVERFLOW, "'a'"},
    {"misaligned beats tensor info", T1("a", "F4", "[3]", "[0,7]"), 7, MIO_ERR_MISALIGNED_SLICE, "'a'"},
    {"tensor info beats incomplete buffer", T1("a", "F32", "[1]", "[0,8]"), 9, MIO_ERR_INVALID_TENSOR_INFO, "'a'"},
    {"first tensor's info error before second's offset error",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[9,10]}}", 10,
     MIO_ERR_INVALID_TENSOR_INFO, "'a'"},
    {"gap between tensors names the second",
     "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[2,3]}}", 3,
     MIO_ERR_INVALID_OFFSET, "'b'"},
    {"overlap names the second",
     "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}", 3,
     MIO_ERR_INVALID_OFFSET, "'b'"},

    /* --- refused: JSON syntax/schema --- */
    {"empty header", "", 0, MIO_ERR_INVALID_JSON, NULL},
    {"trailing garbage", "{}x", 0, MIO_ERR_INVALID_JSON, "trailing"},
    {"second object", "{} {}", 0, MIO_ERR_INVALID_JSON, "trailing"},
    {"trailing comma", "{\"__metadata__\":{},}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"not an object", "[]", 0, MIO_ERR_INVALID_JSON, NULL},
    {"duplicate __metadata__", "{\"__metadata__\":{},\"__metadata__\":{}}", 0, MIO_ERR_INVALID_JSON, "__metadata__"},
    {"duplicate __metadata__ (second escaped)", "{\"__metadata__\":{},\"\\u005f_metadata__\":{}}", 0, MIO_ERR_INVALID_JSON,
     "__metadata__"},
    {"dtype twice", "{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, MIO_ERR_INVALID_JSON, "dtype"},
    {"shape twice", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"shape\":[1],\"data_offsets\":[0,1]}}", 1, MIO_ERR_INVALID_JSON, "shape"},
    {"data_offsets twice", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"data_offsets\":[0,1]}}", 1,
     MIO_ERR_INVALID_JSON, "data_offsets"},
    {"metadata value number", "{\"__metadata__\":{\"k\":1}}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"metadata value null", "{\"__metadata__\":{\"k\":null}}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"metadata value true", "{\"__metadata__\":{\"k\":true}}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"metadata value array", "{\"__metadata__\":{\"k\":[\"a\"]}}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"metadata is a string", "{\"__metadata__\":\"x\"}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"unknown dtype F33", T1("a", "F33", "[1]", "[0,4]"), 4, MIO_ERR_INVALID_JSON, "F33"},
    {"dtype lower case f32", T1("a", "f32", "[1]", "[0,4]"), 4, MIO_ERR_INVALID_JSON, "f32"},
    {"dtype empty string", T1("a", "", "[1]", "[0,4]"), 4, MIO_ERR_INVALID_JSON, NULL},
    {"dtype not a string", "{\"a\":{\"dtype\":5,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, MIO_ERR_INVALID_JSON, NULL},
    {"negative dim", T1("a", "U8", "[-1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "negative"},
    {"negative zero dim", T1("a", "U8", "[-0]", "[0,0]"), 0, MIO_ERR_INVALID_JSON, NULL},
    {"float dim 1.0", T1("a", "U8", "[1.0]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "floating"},
    {"float dim 1e3", T1("a", "U8", "[1e3]", "[0,1000]"), 1000, MIO_ERR_INVALID_JSON, "floating"},
    {"float dim 1E3", T1("a", "U8", "[1E3]", "[0,1000]"), 1000, MIO_ERR_INVALID_JSON, "floating"},
    {"dim with leading zero", T1("a", "U8", "[01]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"dim as a string", T1("a", "U8", "[\"1\"]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"dim > u64", T1("a", "U8", "[18446744073709551616]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"offset > u64", T1("a", "U8", "[1]", "[0,18446744073709551616]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"offset float", T1("a", "U8", "[1]", "[0,1.0]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"data_offsets with 1 element", T1("a", "U8", "[1]", "[0]"), 1, MIO_ERR_INVALID_JSON, "data_offsets"},
    {"data_offsets with 3 elements", T1("a", "U8", "[1]", "[0,1,1]"), 1, MIO_ERR_INVALID_JSON, "data_offsets"},
    {"data_offsets empty", T1("a", "U8", "[1]", "[]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"shape not an array", T1("a", "U8", "1", "[0,1]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"missing dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,1]}}", 1, MIO_ERR_INVALID_JSON, "missing field `dtype`"},
    {"missing shape", "{\"a\":{\"dtype\":\"U8\",\"data_offsets\":[0,1]}}", 1, MIO_ERR_INVALID_JSON, "missing field `shape`"},
    {"missing data_offsets", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1]}}", 1, MIO_ERR_INVALID_JSON, "missing field `data_offsets`"},
    {"empty tensor entry", "{\"a\":{}}", 0, MIO_ERR_INVALID_JSON, "missing field"},
    {"tensor entry null", "{\"a\":null}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"lone leading surrogate", T1("\\ud800", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "surrogate"},
    {"leading surrogate + non-trailing escape", T1("\\ud800\\u0041", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "surrogate"},
    {"lone trailing surrogate", T1("\\udc00", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "surrogate"},
    {"bad escape \\x", T1("\\x41", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"short \\u escape", T1("\\u00e", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, NULL},
    {"raw control char 0x01 in a name", T1("a\x01", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "control"},
    {"raw newline in a name", T1("a\nb", "U8", "[1]", "[0,1]"), 1, MIO_ERR_INVALID_JSON, "control"},
    {"raw tab in a metadata value", "{\"__metadata__\":{\"k\":\"a\tb\"}}", 0, MIO_ERR_INVALID_JSON, "control"},
    {"unterminated string", "{\"abc", 0, MIO_ERR_INVALID_JSON, NULL},
    {"single quotes", "{'a':1}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"form feed is not JSON whitespace", "\f{}", 0, MIO_ERR_INVALID_JSON, NULL},
    {"bad literal in unknown field", "{\"a\":{\"x\":tru,\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
     MIO_ERR_INVALID_JSON, NULL},
    {"bad number in unknown field", "{\"a\":{\"x\":1.,\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
     MIO_ERR_INVALID_JSON, NULL},

    /* --- refused: validation --- */
    {"shape product overflow", T1("a", "U8", "[4294967296,4294967296]", "[0,1]"), 1, MIO_ERR_OVERFLOW, "'a'"},
    {"shape product overflow before a zero dim", T1("a", "U8", "[4294967296,4294967296,0]", "[0,0]"), 0, MIO_ERR_OVERFLOW, NULL},
    {"bit count overflow U64 2^58", T1("a", "U64", "[288230376151711744]", "[0,1]"), 1, MIO_ERR_OVERFLOW, NULL},
    {"bit count overflow F4 2^62", T1("a", "F4", "[4611686018427387904]", "[0,1]"), 1, MIO_ERR_OVERFLOW, NULL},
    {"bit count overflow u64-max dim", T1("a", "BOOL", "[18446744073709551615]", "[0,1]"), 1, MIO_ERR_OVERFLOW, NULL},
    {"no bit overflow F4 2^61 -> tensor info", T1("a", "F4", "[2305843009213693952]", "[0,1]"), 1, MIO_ERR_INVALID_TENSOR_INFO, NULL},
    {"F4 odd count", T1("a", "F4", "[1]", "[0,1]"), 1, MIO_ERR_MISALIGNED_SLICE, NULL},
    {"F4 odd count 2-D", T1("a", "F4", "[3,3]", "[0,5]"), 5, MIO_ERR_MISALIGNED_SLICE, NULL},
    {"F6_E2M3 count 2", T1("a", "F6_E2M3", "[2]", "[0,2]"), 2, MIO_ERR_MISALIGNED_SLICE, NULL},
    {"F6_E3M2 count 5", T1("a", "F6_E3M2", "[5]", "[0,4]"), 4, MIO_ERR_MISALIGNED_SLICE, NULL},
    {"last end shorter than the buffer", T1("a", "U8", "[2]", "[0,2]"), 3, MIO_ERR_INCOMPLETE_BUFFER, NULL},
    {"last end longer than the buffer", T1("a", "U8", "[2]", "[0,2]"), 1, MIO_ERR_INCOMPLETE_BUFFER, NULL},
    {"no tensors but data", "{}", 1, MIO_ERR_INCOMPLETE_BUFFER, NULL},
    {"end < start", "{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},\"b\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                    "\"c\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[1,0]}}",
     0, MIO_ERR_INVALID_OFFSET, "'c'"},
    /* deliberate differences */
    {"duplicate tensor name", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
     2, MIO_ERR_DUPLICATE_TENSOR, "'a'"},
    {"duplicate tensor name via escape", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"\\u0061\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
     2, MIO_ERR_DUPLICATE_TENSOR, "'a'"},
    {"duplicate metadata key via escape", "{\"__metadata__\":{\"k\":\"1\",\"\\u006b\":\"2\"}}", 0, MIO_ERR_INVALID_METADATA, "'k'"},
    {"NUL escape in a name is accepted", T1("a\\u0000b", "U8", "[1]", "[0,1]"), 1, MIO_OK, NULL},
    {"duplicate metadata key", "{\"__metadata__\":{\"k\":\"1\",\"j\":\"0\",\"k\":\"2\"}}", 0, MIO_ERR_INVALID_METADATA, "'k'"},
};

static void test_rule_table(void) {
    for (size_t i = 0; i < sizeof g_rules / sizeof *g_rules; i++) {
        const rule *r = &g_rules[i];
        mio_status st = st_try(r->json, r->n_data, NULL);
        printf("%-50s %-30s %s\n", r->label, mio_status_name(st), st ? mio_last_error() : "");
        if (st != r->expect) {
            fprintf(stderr, "rule '%s': got %s, expected %s: %s\n", r->label, mio_status_name(st), mio_status_name(r->expect),
                    mio_last_error());
            t_fail++;
            continue;
        }
        t_pass++;
        if (r->msg && !strstr(mio_last_error(), r->msg)) {
            fprintf(stderr, "rule '%s': message lacks \"%s\": %s\n", r->label, r->msg, mio_last_error());
            t_fail++;
        }
    }
}

/* Raw prefixes: the 8-byte length field and the header length cap. */
static void test_prefix_order(void) {
    mio_st_file *f = NULL;
    T_STATUS(mio_st_open_buffer("", 0, 0, &f), MIO_ERR_HEADER_TOO_SMALL);
    T_STATUS(mio_st_open_buffer("\x02\0\0\0\0\0\0", 7, 0, &f), MIO_ERR_HEADER_TOO_SMALL);
    T_MSG_HAS("7 bytes");
    /* header length 100,000,001 and invalid UTF-8 after it: too large wins */
    uint8_t b[32] = {0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0, 0xff, 0xfe, '{'};
    T_STATUS(mio_st_open_buffer(b, 11, 0, &f), MIO_ERR_HEADER_TOO_LARGE);
    T_MSG_HAS("100000001");
    /* exactly the cap: not too large, but past EOF */
    uint8_t c[16] = {0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0, 0xff, '{'};
    T_STATUS(mio_st_open_buffer(c, 10, 0, &f), MIO_ERR_INVALID_HEADER_LENGTH);
    /* u64 max length */
    uint8_t d[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}'};
    T_STATUS(mio_st_open_buffer(d, 10, 0, &f), MIO_ERR_HEADER_TOO_LARGE);
    /* 2^63: too large (not misread as negative) */
    uint8_t e[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}'};
    T_STATUS(mio_st_open_buffer(e, 10, 0, &f), MIO_ERR_HEADER_TOO_LARGE);
    /* header past EOF by one byte, with invalid UTF-8 in what there is: header length wins */
    uint8_t g[11] = {3, 0, 0, 0, 0, 0, 0, 0, '{', 0xff};
    T_STATUS(mio_st_open_buffer(g, 10, 0, &f), MIO_ERR_INVALID_HEADER_LENGTH);
    /* just fits: N = len - 8 */
    uint8_t h[10] = {2, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    T_OK(mio_st_open_buffer(h, 10, 0, &f));
    if (f) { T_EQ_INT(mio_st_tensor_count(f), 0); T_EQ_U64(mio_st_header_size(f), 2); mio_st_close(f); f = NULL; }
    /* 8-byte file with N = 0: an empty header is invalid JSON */
    uint8_t z[8] = {0};
    T_STATUS(mio_st_open_buffer(z, 8, 0, &f), MIO_ERR_INVALID_JSON);
    /* overlong UTF-8 and a 5-byte lead are invalid */
    T_STATUS(st_try("{\"\xc0\xaf\":1}", 0, NULL), MIO_ERR_INVALID_UTF8);
    T_STATUS(st_try("{\"\xf8\x88\x80\x80\x80\":1}", 0, NULL), MIO_ERR_INVALID_UTF8);
    T_STATUS(st_try("{\"\xf4\x90\x80\x80\":1}", 0, NULL), MIO_ERR_INVALID_UTF8); /* > U+10FFFF */
    T_STATUS(st_try("{\"\xe2\x82\":1}", 0, NULL), MIO_ERR_INVALID_UTF8);         /* truncated sequence */
    /* an empty file on disk: too small, from mmap and from read */
    char *dir = st_tmpdir("st_rules");
    char p[300];
    snprintf(p, sizeof p, "%s/empty.safetensors", dir);
    T_CHECK(st_write_all(p, "", 0) == 0);
    T_STATUS(mio_st_open(p, 0, &f), MIO_ERR_HEADER_TOO_SMALL);
    T_STATUS(mio_st_open(p, MIO_OPEN_READ, &f), MIO_ERR_HEADER_TOO_SMALL);
    snprintf(p, sizeof p, "%s/missing.safetensors", dir);
    T_STATUS(mio_st_open(p, 0, &f), MIO_ERR_NOT_FOUND); /* "no such key / tensor / file" */
    T_MSG_HAS("missing.safetensors");
    st_rmdir(dir);
}

/* Accepted inputs whose content matters. */
static void test_accepted_content(void) {
    mio_st_file *f = NULL;
    mio_st_tensor t;
    /* tensors in any order: index order is data order, not JSON order nor name order */
    T_OK(st_try("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[3,5]},"
                "\"z\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[0,3]},"
                "\"m\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[5,6]}}", 6, &f));
    if (f) {
        const char *order[] = {"z", "a", "m"};
        for (int i = 0; i < 3; i++) {
            T_OK(mio_st_tensor_info(f, i, &t));
            T_EQ_MSTR(t.name, order[i]);
        }
        T_OK(mio_st_tensor_info(f, 1, &t));
        T_EQ_U64(t.data_start, 3);
        T_EQ_INT(((const uint8_t *)t.data)[0], 3);
        T_EQ_INT(((const uint8_t *)t.data)[1], 4);
        T_EQ_INT(mio_st_find_tensor(f, "a"), 1);
        T_EQ_INT(mio_st_find_tensor(f, "m"), 2);
        T_EQ_INT(mio_st_find_tensor(f, "q"), -1);
        mio_st_close(f);
        f = NULL;
    }
    /* escaped names: \u00e9, \n, surrogate pair -> UTF-8 bytes; escaped metadata */
    T_OK(st_try("{\"__metadata__\":{\"k\\t\":\"v\\\"\\u00e9\"},"
                "\"caf\\u00e9\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                "\"l1\\nl2\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]},"
                "\"smile\\ud83d\\ude00\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[2,3]},"
                "\"\\u00E9\\\\\\/\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[3,4]}}", 4, &f));
    if (f) {
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_CHECK(st_str_eq(t.name, "caf\xc3\xa9", 5));
        T_OK(mio_st_tensor_info(f, 1, &t));
        T_CHECK(st_str_eq(t.name, "l1\nl2", 5));
        T_OK(mio_st_tensor_info(f, 2, &t));
        T_CHECK(st_str_eq(t.name, "smile\xf0\x9f\x98\x80", 9));
        T_OK(mio_st_tensor_info(f, 3, &t));
        T_CHECK(st_str_eq(t.name, "\xc3\xa9\\/", 4));
        T_EQ_INT(mio_st_find_tensor(f, "caf\xc3\xa9"), 0);
        T_EQ_INT(mio_st_find_tensor(f, "smile\xf0\x9f\x98\x80"), 2);
        T_EQ_INT(mio_st_find_tensor(f, "caf\\u00e9"), -1);
        mio_str v;
        T_OK(mio_st_find_meta(f, "k\t", &v));
        T_CHECK(st_str_eq(v, "v\"\xc3\xa9", 4));
        mio_st_close(f);
        f = NULL;
    }
    /* the key "__metadata__" written with an escape is still the metadata */
    T_OK(st_try("{\"\\u005f_metadata__\":{\"format\":\"pt\"}}", 0, &f));
    if (f) {
        T_EQ_INT(mio_st_tensor_count(f), 0);
        T_EQ_INT(mio_st_meta_count(f), 1);
        mio_st_close(f);
        f = NULL;
    }
    /* empty name, scalar, zero-sized */
    T_OK(st_try("{\"\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
                "\"e\":{\"dtype\":\"F32\",\"shape\":[3,0,2],\"data_offsets\":[4,4]}}", 4, &f));
    if (f) {
        T_EQ_INT(mio_st_find_tensor(f, ""), 0);
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_EQ_INT(t.n_dims, 0);
        T_EQ_U64(t.nbytes, 4);
        T_EQ_U64(t.name.len, 0);
        T_OK(mio_st_tensor_info(f, 1, &t));
        T_EQ_INT(t.n_dims, 3);
        T_CHECK(t.shape[0] == 3 && t.shape[1] == 0 && t.shape[2] == 2);
        T_EQ_U64(t.nbytes, 0);
        T_EQ_U64(t.data_start, 4);
        mio_st_close(f);
        f = NULL;
    }
}

/* serde_json's recursion limit is 128: with the top-level object and the tensor
 * entry, an unknown field can nest 125 arrays; 126 is refused. */
static char *nested(int depth, const char *inner) {
    size_t n = (size_t)depth * 2 + strlen(inner) + 200;
    char *s = malloc(n), *p = s;
    p += sprintf(p, "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":");
    for (int i = 0; i < depth; i++) *p++ = '[';
    p += sprintf(p, "%s", inner);
    for (int i = 0; i < depth; i++) *p++ = ']';
    sprintf(p, "}}");
    return s;
}

static void test_depth(void) {
    struct { int depth; const char *inner; mio_status expect; } c[] = {
        {10, "1", MIO_OK},
        {125, "1", MIO_OK},
        {125, "", MIO_OK},
        {126, "1", MIO_ERR_INVALID_JSON},
        {126, "", MIO_ERR_INVALID_JSON},
        {127, "", MIO_ERR_INVALID_JSON},
        {200, "", MIO_ERR_INVALID_JSON},
        {100000, "", MIO_ERR_INVALID_JSON}, /* must not blow the C stack either */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char *j = nested(c[i].depth, c[i].inner);
        mio_status st = st_try(j, 1, NULL);
        printf("nesting %6d arrays around \"%s\": %s %s\n", c[i].depth, c[i].inner, mio_status_name(st),
               st ? mio_last_error() : "");
        if (st != c[i].expect) {
            fprintf(stderr, "nesting %d around \"%s\": got %s, expected %s\n", c[i].depth, c[i].inner, mio_status_name(st),
                    mio_status_name(c[i].expect));
            t_fail++;
        } else {
            t_pass++;
            if (st) T_MSG_HAS("recursion");
        }
        free(j);
    }
    /* nested objects count the same */
    char *s = malloc(4000), *p = s;
    p += sprintf(p, "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":");
    for (int i = 0; i < 126; i++) p += sprintf(p, "{\"k\":");
    p += sprintf(p, "1");
    for (int i = 0; i < 126; i++) *p++ = '}';
    sprintf(p, "}}");
    T_STATUS(st_try(s, 1, NULL), MIO_ERR_INVALID_JSON);
    free(s);
}

/* Every dtype's element size, through a tensor of 8 elements. */
static void test_dtype_sizes(void) {
    static const struct { const char *name; int dtype; uint32_t bits; int type; const char *tname; } d[] = {
        {"BOOL", MIO_ST_BOOL, 8, MIO_TYPE_BOOL, "bool"},
        {"F4", MIO_ST_F4, 4, MIO_TYPE_F4, "f4"},
        {"F6_E2M3", MIO_ST_F6_E2M3, 6, MIO_TYPE_F6_E2M3, "f6_e2m3"},
        {"F6_E3M2", MIO_ST_F6_E3M2, 6, MIO_TYPE_F6_E3M2, "f6_e3m2"},
        {"U8", MIO_ST_U8, 8, MIO_TYPE_U8, "u8"},
        {"I8", MIO_ST_I8, 8, 24, "i8"},
        {"F8_E5M2", MIO_ST_F8_E5M2, 8, MIO_TYPE_F8_E5M2, "f8_e5m2"},
        {"F8_E4M3", MIO_ST_F8_E4M3, 8, MIO_TYPE_F8_E4M3, "f8_e4m3"},
        {"F8_E8M0", MIO_ST_F8_E8M0, 8, MIO_TYPE_F8_E8M0, "f8_e8m0"},
        {"F8_E4M3FNUZ", MIO_ST_F8_E4M3FNUZ, 8, MIO_TYPE_F8_E4M3FNUZ, "f8_e4m3fnuz"},
        {"F8_E5M2FNUZ", MIO_ST_F8_E5M2FNUZ, 8, MIO_TYPE_F8_E5M2FNUZ, "f8_e5m2fnuz"},
        {"I16", MIO_ST_I16, 16, 25, "i16"},
        {"U16", MIO_ST_U16, 16, MIO_TYPE_U16, "u16"},
        {"F16", MIO_ST_F16, 16, 1, "f16"},
        {"BF16", MIO_ST_BF16, 16, 30, "bf16"},
        {"I32", MIO_ST_I32, 32, 26, "i32"},
        {"U32", MIO_ST_U32, 32, MIO_TYPE_U32, "u32"},
        {"F32", MIO_ST_F32, 32, 0, "f32"},
        {"C64", MIO_ST_C64, 64, MIO_TYPE_C64, "c64"},
        {"F64", MIO_ST_F64, 64, 28, "f64"},
        {"I64", MIO_ST_I64, 64, 27, "i64"},
        {"U64", MIO_ST_U64, 64, MIO_TYPE_U64, "u64"},
    };
    T_EQ_INT(sizeof d / sizeof *d, MIO_ST_DTYPE_COUNT);
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        T_EQ_INT(d[i].dtype, (int)i); /* upstream declaration order */
        T_EQ_STR(mio_st_dtype_name(d[i].dtype), d[i].name);
        T_EQ_INT(mio_st_dtype_from_name(d[i].name), d[i].dtype);
        T_EQ_INT(mio_st_dtype_bits(d[i].dtype), d[i].bits);
        T_EQ_INT(mio_st_dtype_to_type(d[i].dtype), d[i].type);
        T_EQ_INT(mio_type_to_st_dtype(d[i].type), d[i].dtype);
        T_EQ_STR(mio_type_name(d[i].type), d[i].tname);
        /* 8 elements take exactly `bits` bytes */
        char json[256];
        snprintf(json, sizeof json, T1("t", "%s", "[8]", "[0,%u]"), d[i].name, d[i].bits);
        mio_st_file *f = NULL;
        T_OK(st_try(json, d[i].bits, &f));
        if (f) {
            mio_st_tensor t;
            T_OK(mio_st_tensor_info(f, 0, &t));
            T_EQ_INT(t.dtype, d[i].dtype);
            T_EQ_INT(t.type, d[i].type);
            T_EQ_U64(t.nbytes, d[i].bits);
            mio_st_close(f);
        }
        /* one byte more is a tensor-info error */
        snprintf(json, sizeof json, T1("t", "%s", "[8]", "[0,%u]"), d[i].name, d[i].bits + 1);
        T_STATUS(st_try(json, d[i].bits + 1, NULL), MIO_ERR_INVALID_TENSOR_INFO);
        /* a single element: sub-byte dtypes are misaligned */
        snprintf(json, sizeof json, T1("t", "%s", "[1]", "[0,%u]"), d[i].name, d[i].bits / 8);
        T_STATUS(st_try(json, d[i].bits / 8, NULL), d[i].bits % 8 ? MIO_ERR_MISALIGNED_SLICE : MIO_OK);
    }
    /* the helpers on bad input */
    T_CHECK(mio_st_dtype_name(-1) == NULL);
    T_CHECK(mio_st_dtype_name(MIO_ST_DTYPE_COUNT) == NULL);
    T_EQ_INT(mio_st_dtype_bits(MIO_ST_DTYPE_COUNT), 0);
    T_EQ_INT(mio_st_dtype_bits(-1), 0);
    T_EQ_INT(mio_st_dtype_to_type(-1), -1);
    T_EQ_INT(mio_st_dtype_to_type(MIO_ST_DTYPE_COUNT), -1);
    T_EQ_INT(mio_st_dtype_from_name("f32"), -1);
    T_EQ_INT(mio_st_dtype_from_name("F33"), -1);
    T_EQ_INT(mio_st_dtype_from_name(""), -1);
    T_EQ_INT(mio_st_dtype_from_name("F3"), -1);
    T_EQ_INT(mio_st_dtype_from_name("F322"), -1);
    T_EQ_INT(mio_st_dtype_from_name(NULL), -1);
    T_EQ_INT(mio_type_to_st_dtype(MIO_TYPE_Q4_0), -1);
    T_EQ_INT(mio_type_to_st_dtype(MIO_TYPE_Q8_0), -1);
    T_EQ_INT(mio_type_to_st_dtype(-1), -1);
    T_EQ_INT(mio_type_to_st_dtype(999), -1);
    T_EQ_INT(mio_type_to_st_dtype(1014), -1);
    T_EQ_INT(MIO_TYPE_U8, 1004);
    T_EQ_STR(mio_type_name(mio_st_dtype_to_type(MIO_ST_F8_E4M3)), "f8_e4m3");
    T_EQ_INT(mio_type_from_name("f8_e4m3"), MIO_TYPE_F8_E4M3);
    T_EQ_INT(mio_type_from_name("BOOL"), MIO_TYPE_BOOL);
}

int main(void) {
    test_rule_table();
    test_prefix_order();
    test_accepted_content();
    test_depth();
    test_dtype_sizes();
    T_DONE();
}
