/* SPDX-License-Identifier: MIT */
/* test_json.c — the JSON module (src/core/json.h): exact printed bytes in both
 * forms, every escape, the number formats, each parse refusal with its reason
 * and offset, the depth limit at the limit and one past it, every prefix of a
 * valid document refused, lookups with repeated keys, edits, copy and compare. */
#include "core/core.h"
#include "core/json.h"
#include "test.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>

static char *pr(const char *text, bool fmt) {
    mio_json *j = mio_json_parse(text, strlen(text), NULL);
    char *s = j ? mio_json_print(j, fmt) : NULL;
    mio_json_free(j);
    return s;
}

/* parse text, print it both ways, compare with the expected bytes */
#define T_PRINTS(text, compact, formatted) do { \
    char *_c = pr((text), false), *_f = pr((text), true); \
    T_EQ_STR(_c, (compact)); T_EQ_STR(_f, (formatted)); free(_c); free(_f); } while (0)

static void test_print(void) {
    T_PRINTS("{\"a\":1,\"b\":[1,2]}", "{\"a\":1,\"b\":[1,2]}", "{\n\t\"a\":\t1,\n\t\"b\":\t[1, 2]\n}");
    T_PRINTS(" { } ", "{}", "{\n}");
    T_PRINTS("[]", "[]", "[]");
    T_PRINTS("{\"a\":{}}", "{\"a\":{}}", "{\n\t\"a\":\t{\n\t}\n}");
    T_PRINTS("{\"a\":{\"b\":{}}}", "{\"a\":{\"b\":{}}}", "{\n\t\"a\":\t{\n\t\t\"b\":\t{\n\t\t}\n\t}\n}");
    T_PRINTS("[{},{\"x\":[{\"y\":1},2]},[]]", "[{},{\"x\":[{\"y\":1},2]},[]]",
             "[{\n\t}, {\n\t\t\"x\":\t[{\n\t\t\t\t\"y\":\t1\n\t\t\t}, 2]\n\t}, []]");
    T_PRINTS("[true,false,null]", "[true,false,null]", "[true, false, null]");
    T_PRINTS("\"x\"", "\"x\"", "\"x\"");
    /* escapes: the short ones, \u00xx for the other control bytes, the rest raw */
    T_PRINTS("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001F\\u007f\\u00e9\"",
             "\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xc3\xa9\"",
             "\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xc3\xa9\"");
    /* an escaped NUL is kept, with its length, and printed back */
    mio_json *j = mio_json_parse_str("\"a\\u0000b\"", NULL);
    T_CHECK(j && j->valuelen == 3 && memcmp(j->valuestring, "a\0b", 4) == 0);
    char *s = mio_json_print(j, false);
    T_EQ_STR(s, "\"a\\u0000b\"");
    free(s), mio_json_free(j);
    /* surrogate pair -> one 4-byte sequence; raw bytes >= 0x80 kept as they are */
    j = mio_json_parse_str("\"\\ud83d\\ude00\xff\"", NULL);
    T_CHECK(j && j->valuelen == 5 && memcmp(j->valuestring, "\xf0\x9f\x98\x80\xff", 5) == 0);
    mio_json_free(j);
    /* numbers */
    /* (a parsed non-negative integer prints its own digits, exact past 2^53;
     * 1E2 is not an integer token) */
    T_PRINTS("[1,-0,0.1,1e300,9007199254740993,0.30000000000000004,2147483648,-2147483649,1.5e-7,1E2,123456789012345678]",
             "[1,-0,0.1,1e+300,9007199254740993,0.30000000000000004,2147483648,-2147483649,1.5e-07,100,"
             "123456789012345678]",
             "[1, -0, 0.1, 1e+300, 9007199254740993, 0.30000000000000004, 2147483648, -2147483649, 1.5e-07, 100, "
             "123456789012345678]");
    mio_json *u = mio_json_new_number(9007199254740993.0); /* made, not parsed: the double's digits */
    s = mio_json_print(u, false);
    T_EQ_STR(s, "9007199254740992");
    free(s), mio_json_free(u);
    mio_json *a = mio_json_new_array();
    mio_json_append(a, mio_json_new_number(NAN));
    mio_json_append(a, mio_json_new_number(INFINITY));
    mio_json_append(a, mio_json_new_number(-INFINITY));
    mio_json_append(a, mio_json_new_number(0.5));
    mio_json_append(a, mio_json_new_raw("{ raw }"));
    s = mio_json_print(a, true);
    T_EQ_STR(s, "[null, null, null, 0.5, { raw }]");
    free(s), mio_json_free(a);
}

static void test_numbers(void) {
    mio_json *j = mio_json_parse_str("[18446744073709551615,18446744073709551616,9007199254740993,-1,1.0,3e9,-3e9,0]", NULL);
    T_CHECK(j != NULL);
    mio_json *e = mio_json_at(j, 0);
    T_CHECK(e->has_u64 && e->valueu64 == UINT64_MAX);
    T_CHECK(!mio_json_at(j, 1)->has_u64);
    T_CHECK(mio_json_at(j, 2)->has_u64 && mio_json_at(j, 2)->valueu64 == 9007199254740993ull);
    T_CHECK(mio_json_at(j, 2)->valuedouble == 9007199254740992.0);
    T_CHECK(!mio_json_at(j, 3)->has_u64 && mio_json_at(j, 3)->valueint == -1);
    T_CHECK(!mio_json_at(j, 4)->has_u64 && mio_json_at(j, 4)->valueint == 1);
    T_EQ_INT(mio_json_at(j, 5)->valueint, 2147483647);
    T_EQ_INT(mio_json_at(j, 6)->valueint, -2147483647 - 1);
    T_CHECK(mio_json_at(j, 7)->has_u64 && mio_json_at(j, 7)->valueu64 == 0);
    mio_json_free(j);
}

/* a refused text: the reason and the byte offset */
static void refused(const char *text, size_t len, const char *reason, size_t offset) {
    mio_json_error err;
    mio_json *j = mio_json_parse(text, len, &err);
    T_CHECK(j == NULL);
    mio_json_free(j);
    T_EQ_STR(err.reason, reason);
    T_EQ_U64(err.offset, offset);
    T_CHECK(!err.nomem);
}
#define REFUSED(lit, reason, offset) refused((lit), sizeof(lit) - 1, (reason), (offset))

static void test_refusals(void) {
    REFUSED("", "unexpected end of input", 0);
    REFUSED("  ", "unexpected end of input", 2);
    REFUSED("01", "leading zero in a number", 1);
    REFUSED("-01", "leading zero in a number", 2);
    REFUSED("+1", "unexpected character", 0);
    REFUSED("1.", "expected a digit after '.'", 2);
    REFUSED(".5", "unexpected character", 0);
    REFUSED("1e", "expected a digit in the exponent", 2);
    REFUSED("1e+", "expected a digit in the exponent", 3);
    REFUSED("-", "expected a digit", 1);
    REFUSED("NaN", "unexpected character", 0);
    REFUSED("Infinity", "unexpected character", 0);
    REFUSED("nul", "invalid literal", 0);
    REFUSED("truex", "unexpected text after the value", 4);
    REFUSED("truth", "invalid literal", 0);
    REFUSED("{} x", "unexpected text after the value", 3);
    REFUSED("1 2", "unexpected text after the value", 2);
    REFUSED("[1]\0", "unexpected text after the value", 3);
    REFUSED("\x01 1", "unexpected character", 0);
    REFUSED("\"a\tb\"", "control character in a string", 2);
    REFUSED("\"a\nb\"", "control character in a string", 2);
    REFUSED("\"\\ud800\"", "lone high surrogate in a \\u escape", 1);
    REFUSED("\"\\ud800\\u0041\"", "lone high surrogate in a \\u escape", 1);
    REFUSED("\"x\\udc00\"", "lone low surrogate in a \\u escape", 2);
    REFUSED("\"\\u12\"", "invalid \\u escape", 1);
    REFUSED("\"\\x\"", "invalid escape in a string", 1);
    REFUSED("\"abc", "unterminated string", 4);
    REFUSED("[1,]", "unexpected character", 3);
    REFUSED("{\"a\":1,}", "expected a member name", 7);
    REFUSED("{\"a\" 1}", "expected ':'", 5);
    REFUSED("{1:2}", "expected a member name", 1);
    REFUSED("[1 2]", "expected ',' or ']'", 3);
    REFUSED("{\"a\":1 \"b\":2}", "expected ',' or '}'", 7);
    /* the BOM is skipped, once */
    mio_json *j = mio_json_parse_str("\xEF\xBB\xBF{}", NULL);
    T_CHECK(mio_json_is_object(j));
    mio_json_free(j);
    REFUSED("\xEF\xBB\xBF\xEF\xBB\xBF{}", "unexpected character", 3);
    /* a prefix: the end offset, the rest left unread */
    size_t end = 0;
    j = mio_json_parse_prefix("{\"a\":[1]}  trailing", 19, &end, NULL);
    T_CHECK(mio_json_is_object(j));
    T_EQ_U64(end, 9);
    mio_json_free(j);
    mio_json_error err;
    j = mio_json_parse_prefix("{\"a\":}", 6, &end, &err);
    T_CHECK(!j);
    T_EQ_U64(err.offset, 5);
}

static char *nested(int levels, char open, char close) {
    char *s = malloc((size_t)levels * 2 + 1);
    for (int i = 0; i < levels; i++) s[i] = open, s[levels * 2 - 1 - i] = close;
    s[levels * 2] = 0;
    return s;
}

static void test_depth(void) {
    char *s = nested(MIO_JSON_MAX_DEPTH, '[', ']');
    mio_json *j = mio_json_parse_str(s, NULL);
    T_CHECK(j != NULL);
    char *p = mio_json_print(j, false);
    T_EQ_STR(p, s);
    free(p), mio_json_free(j), free(s);
    s = nested(MIO_JSON_MAX_DEPTH + 1, '[', ']');
    refused(s, strlen(s), "nesting deeper than 1000 levels", MIO_JSON_MAX_DEPTH);
    free(s);
    /* objects count too */
    size_t n = 0;
    char *o = malloc(8 * (MIO_JSON_MAX_DEPTH + 1) + 2);
    for (int i = 0; i <= MIO_JSON_MAX_DEPTH; i++) n += (size_t)sprintf(o + n, "{\"a\":");
    o[n++] = '1';
    memset(o + n, '}', MIO_JSON_MAX_DEPTH + 1);
    o[n + MIO_JSON_MAX_DEPTH + 1] = 0;
    refused(o, strlen(o), "nesting deeper than 1000 levels", 5 * MIO_JSON_MAX_DEPTH);
    free(o);
}

/* every proper prefix of a valid document is refused cleanly */
static void test_prefixes(void) {
    static const char doc[] = "\xEF\xBB\xBF {\"k\": [1, -2.5e+3, true, false, null, \"s\\u00e9\\ud83d\\ude00\\n\"], \"o\": {\"\": {}}}";
    const size_t n = sizeof doc - 1;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        mio_json_error err;
        char *copy = malloc(i ? i : 1); /* exactly i bytes: ASan sees any read past them */
        memcpy(copy, doc, i);
        mio_json *j = mio_json_parse(copy, i, &err);
        if (j || !err.reason) bad++;
        mio_json_free(j);
        free(copy);
    }
    T_EQ_INT(bad, 0);
    mio_json *j = mio_json_parse(doc, n, NULL);
    T_CHECK(j != NULL);
    mio_json_free(j);
}

static void test_lookup_edit(void) {
    mio_json *j = mio_json_parse_str("{\"a\":1,\"b\":2,\"a\":3,\"A\":4}", NULL);
    T_CHECK(j != NULL);
    T_EQ_INT(mio_json_get(j, "a")->valueint, 1); /* the first of a repeated key */
    T_EQ_INT(mio_json_get(j, "A")->valueint, 4); /* case-sensitive */
    T_CHECK(mio_json_get(j, "c") == NULL && mio_json_get(NULL, "a") == NULL);
    T_EQ_INT(mio_json_size(j), 4);
    T_EQ_INT(mio_json_at(j, 2)->valueint, 3);
    T_CHECK(mio_json_at(j, 4) == NULL && mio_json_at(j, -1) == NULL && mio_json_size(NULL) == 0);
    /* a key with a NUL byte does not match its prefix */
    mio_json *k = mio_json_parse_str("{\"a\\u0000b\":1}", NULL);
    T_CHECK(mio_json_get(k, "a") == NULL && k->child->stringlen == 3);
    mio_json_free(k);
    T_CHECK(mio_json_replace(j, "a", mio_json_new_string("x")));
    T_CHECK(!mio_json_replace(j, "zz", NULL));
    mio_json_remove(j, "b");
    mio_json *d = mio_json_detach(j, "A");
    T_CHECK(d && d->valueint == 4);
    mio_json_free(d);
    T_CHECK(mio_json_add(j, "n", mio_json_new_null()));
    T_CHECK(mio_json_add_string(j, "s", "q\"") != NULL);
    char *s = mio_json_print(j, false);
    T_EQ_STR(s, "{\"a\":\"x\",\"a\":3,\"n\":null,\"s\":\"q\\\"\"}");
    free(s);
    /* replace the last member, detach the first, the only one */
    T_CHECK(mio_json_replace(j, "s", mio_json_new_bool(true)));
    mio_json_free(mio_json_detach(j, "a"));
    mio_json_free(mio_json_detach(j, "a"));
    mio_json_remove(j, "n");
    T_CHECK(mio_json_add(j, "z", mio_json_new_number(2)));
    s = mio_json_print(j, false);
    T_EQ_STR(s, "{\"s\":true,\"z\":2}");
    free(s);
    T_CHECK(mio_json_replace(j, "s", mio_json_new_number(1)));
    mio_json_remove(j, "z");
    T_CHECK(mio_json_replace(j, "s", mio_json_new_array()));
    s = mio_json_print(j, false);
    T_EQ_STR(s, "{\"s\":[]}");
    free(s);
    T_CHECK(!mio_json_add(j, "x", NULL) && !mio_json_add(NULL, "x", j) && !mio_json_append(j, j));
    mio_json *e;
    int count = 0;
    MIO_JSON_FOR_EACH(e, j) count++;
    T_EQ_INT(count, 1);
    mio_json_free(j);
}

static void test_dup_equal(void) {
    const char *t = "{\"a\":[1,2,{\"b\":null}],\"c\":\"x\\u0000y\",\"d\":1.5}";
    mio_json *a = mio_json_parse_str(t, NULL), *b = mio_json_dup(a);
    T_CHECK(a && b && mio_json_equal(a, b));
    char *sa = mio_json_print(a, true), *sb = mio_json_print(b, true);
    T_EQ_STR(sa, sb);
    free(sa), free(sb);
    mio_json *c = mio_json_parse_str("{\"d\":1.5,\"c\":\"x\\u0000y\",\"a\":[1,2,{\"b\":null}]}", NULL);
    T_CHECK(mio_json_equal(a, c)); /* member order does not matter */
    mio_json *d = mio_json_parse_str("{\"d\":1.5,\"c\":\"x\\u0000z\",\"a\":[1,2,{\"b\":null}]}", NULL);
    T_CHECK(!mio_json_equal(a, d)); /* the bytes after the NUL count */
    mio_json *e = mio_json_parse_str("[1,2]", NULL), *f = mio_json_parse_str("[1,2,3]", NULL);
    mio_json *g = mio_json_parse_str("[1,true]", NULL), *h = mio_json_parse_str("[1,1]", NULL);
    T_CHECK(!mio_json_equal(e, f) && !mio_json_equal(f, e) && !mio_json_equal(g, h) && !mio_json_equal(NULL, NULL));
    T_CHECK(mio_json_equal(mio_json_at(e, 0), mio_json_at(h, 1)));
    mio_json *m = mio_json_dup(mio_json_get(a, "a")); /* a member keeps its key */
    T_EQ_STR(m->string, "a");
    mio_json_free(m);
    mio_json_free(a), mio_json_free(b), mio_json_free(c), mio_json_free(d);
    mio_json_free(e), mio_json_free(f), mio_json_free(g), mio_json_free(h);
}

/* Comparing is linear in the nodes: two 300-deep chains {"a":{"a":...}} (the
 * old two-way recursion doubled the work per level: 2^300 steps) and two
 * 20000-member objects in opposite orders (a linear lookup per member: 4e8). */
static void test_equal_cost(void) {
    enum { DEPTH = 300, WIDE = 20000 };
    char *t = malloc(DEPTH * 6 + 16), *u = malloc(DEPTH * 6 + 16);
    size_t n = 0;
    for (int i = 0; i < DEPTH; i++) memcpy(t + n, "{\"a\":", 5), n += 5;
    t[n++] = '1';
    memset(t + n, '}', DEPTH), n += DEPTH;
    t[n] = 0;
    memcpy(u, t, n + 1);
    u[DEPTH * 5] = '2'; /* the innermost value differs */
    mio_json *a = mio_json_parse_str(t, NULL), *b = mio_json_parse_str(t, NULL), *c = mio_json_parse_str(u, NULL);
    T_CHECK(a && b && c && mio_json_equal(a, b) && !mio_json_equal(a, c) && !mio_json_equal(c, a));
    T_CHECK(mio_json_equal(a, a));
    mio_json_free(a), mio_json_free(b), mio_json_free(c);
    free(t), free(u);
    mio_json *w = mio_json_new_object(), *x = mio_json_new_object();
    char k[16];
    for (int i = 0; i < WIDE; i++) {
        snprintf(k, sizeof k, "k%d", i);
        mio_json_add(w, k, mio_json_new_number(i));
        snprintf(k, sizeof k, "k%d", WIDE - 1 - i);
        mio_json_add(x, k, mio_json_new_number(WIDE - 1 - i));
    }
    T_CHECK(mio_json_size(w) == WIDE && mio_json_equal(w, x) && mio_json_equal(x, w));
    mio_json_replace(x, "k777", mio_json_new_number(-1));
    T_CHECK(!mio_json_equal(w, x) && !mio_json_equal(x, w));
    mio_json_free(w), mio_json_free(x);
}

/* Numbers read and written in the "C" notation whatever locale the program
 * set: de_DE (decimal ',') and ps_AF (a two-byte U+066B), compiled into the
 * test's directory with localedef and found through LOCPATH. Without
 * localedef or the locale sources (Debian: locales) the check says so. */
static void test_locale(void) {
    char dir[] = "/tmp/mio-json-locale-XXXXXX";
    if (!mkdtemp(dir)) return;
    const char *const names[] = {"de_DE", "ps_AF"};
    int tried = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char cmd[256], loc[64];
        snprintf(cmd, sizeof cmd, "localedef -i %s -f UTF-8 %s/%s.UTF-8 >/dev/null 2>&1", names[i], dir, names[i]);
        if (system(cmd) != 0) continue;
        setenv("LOCPATH", dir, 1);
        snprintf(loc, sizeof loc, "%s.UTF-8", names[i]);
        if (!setlocale(LC_ALL, loc)) continue;
        tried++;
        T_CHECK(strcmp(localeconv()->decimal_point, ".") != 0); /* the locale is really in effect */
        mio_json *j = mio_json_parse_str("[0.5,1.25e2,-3.75]", NULL);
        T_CHECK(j && mio_json_at(j, 0)->valuedouble == 0.5 && mio_json_at(j, 1)->valuedouble == 125.0 &&
                mio_json_at(j, 2)->valuedouble == -3.75);
        mio_json_append(j, mio_json_new_number(0.1));
        char *s = mio_json_print(j, false);
        T_EQ_STR(s, "[0.5,125,-3.75,0.1]");
        free(s), mio_json_free(j);
        char b[32], *end = NULL;
        T_CHECK(mio_strtod_c("2.5", &end) == 2.5 && *end == 0 && mio_strtof_c("0.25", NULL) == 0.25f);
        mio_snprintf_c(b, sizeof b, "%.2f|%g", 1.5, 0.125);
        T_EQ_STR(b, "1.50|0.125");
        setlocale(LC_ALL, "C");
    }
    char b_cleanup[64];
    if (!tried) printf("note: no de_DE/ps_AF locale could be made (localedef and Debian's locales are needed): the locale checks did not run\n");
    snprintf(b_cleanup, sizeof b_cleanup, "rm -rf %s", dir);
    if (system(b_cleanup) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* the block-allocated parse: the same tree, mio_json_free leaves its nodes,
 * one call frees all; a failure leaves no blocks */
static void test_arena(void) {
    static const char text[] = "{\"model\":{\"vocab\":{\"a\":0,\"\\u00e9\":1},\"merges\":[[\"a\",\"b\"]]}} trailing";
    mio_json_arena *a = NULL;
    size_t end = 0;
    mio_json *j = mio_json_parse_arena(text, sizeof text - 1, &end, NULL, &a);
    T_CHECK(j && a);
    T_EQ_INT((int)end, 59); /* just past the last "}" */
    const mio_json *v = mio_json_get(mio_json_get(j, "model"), "vocab");
    T_EQ_INT(mio_json_get(v, "\xc3\xa9") ? mio_json_get(v, "\xc3\xa9")->valueint : -1, 1);
    const mio_json *m = mio_json_at(mio_json_get(mio_json_get(j, "model"), "merges"), 0);
    T_CHECK(m && mio_json_is_string(mio_json_at(m, 1)) && strcmp(mio_json_at(m, 1)->valuestring, "b") == 0);
    T_CHECK(j->in_arena);
    mio_json_free(j); /* nothing: the nodes are the arena's */
    T_CHECK(mio_json_get(j, "model") != NULL);
    mio_json *copy = mio_json_dup(j); /* a copy is an ordinary tree */
    mio_json_arena_free(a);
    T_CHECK(copy && !copy->in_arena && mio_json_get(mio_json_get(copy, "model"), "vocab"));
    mio_json_free(copy);
    mio_json_error e;
    a = (mio_json_arena *)1;
    T_CHECK(mio_json_parse_arena("{\"a\":[1,2", 10, NULL, &e, &a) == NULL && a == NULL);
    T_CHECK(e.reason && !e.nomem);
}

int main(void) {
    test_print();
    test_numbers();
    test_refusals();
    test_depth();
    test_prefixes();
    test_lookup_edit();
    test_dup_equal();
    test_equal_cost();
    test_locale();
    test_arena();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail ? 1 : 0;
}
