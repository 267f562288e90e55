/* SPDX-License-Identifier: MIT */
/* metacodec.c — GGUF metadata values as text for a safetensors __metadata__
 * map, and back, exactly: every wire type and every bit survives the round
 * trip (docs/CONVERT.md §2). Readable where it can be (numbers in decimal,
 * strings verbatim, arrays as JSON), base64 where it cannot (strings that are
 * not UTF-8, nested arrays). */
#include "convert/convert_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* buffers                                                                    */
/* ------------------------------------------------------------------------- */

void mio_mc_put(mc_buf *b, const void *s, size_t n) {
    if (b->oom || !n) return;
    if (n > SIZE_MAX / 4 - b->n) { b->oom = true; return; }
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n + 1) nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) { b->oom = true; return; }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

void mio_mc_str(mc_buf *b, const char *s) { mio_mc_put(b, s, strlen(s)); }

char *mio_mc_take(mc_buf *b) {
    mio_mc_put(b, "", 0);
    if (!b->oom && !b->p) {
        b->p = malloc(1);
        if (!b->p) b->oom = true;
    }
    if (b->oom) { free(b->p); b->p = NULL; return NULL; }
    b->p[b->n] = '\0';
    char *p = b->p;
    memset(b, 0, sizeof *b);
    return p;
}

void mio_mc_json_str(mc_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    mio_mc_put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20) continue;
        mio_mc_put(b, s + run, i - run);
        char e[6] = {'\\', (char)c, 0, 0, 0, 0};
        if (c < 0x20) {
            /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): e is a 6-byte escape, not a C string */
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            mio_mc_put(b, e, 6);
        } else {
            mio_mc_put(b, e, 2);
        }
        run = i + 1;
    }
    mio_mc_put(b, s + run, n - run);
    mio_mc_put(b, "\"", 1);
}

/* UTF-8 as RFC 3629 (no overlongs, no surrogates, at most U+10FFFF). */
static size_t utf8_len(const uint8_t *p, size_t n) {
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    size_t k;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) { k = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { k = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { k = 4; cp = c & 0x07; }
    else return 0;
    if (n < k) return 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return k;
}

static bool utf8_ok(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(p + i, n - i);
        if (!k) return false;
        i += k;
    }
    return true;
}

bool mio_mc_plain_text(const uint8_t *p, size_t n) { return !memchr(p, 0, n) && utf8_ok(p, n); }

/* ------------------------------------------------------------------------- */
/* base64 (RFC 4648, padded)                                                  */
/* ------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_b64(mc_buf *b, const uint8_t *p, size_t n) {
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        q[0] = b64[v >> 18];
        q[1] = b64[v >> 12 & 63];
        q[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? b64[v & 63] : '=';
        mio_mc_put(b, q, 4);
    }
}

static int b64_val(char c) {
    const char *at = c ? strchr(b64, c) : NULL;
    return at ? (int)(at - b64) : -1;
}

/* Decode n base64 characters into out (n / 4 * 3 bytes at most); false if malformed. */
static bool get_b64(const char *s, size_t n, uint8_t *out, size_t *out_len) {
    if (n % 4) return false;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=' && i + 4 == n && k >= 2) { v[k] = 0; pad++; continue; }
            if (pad || (v[k] = b64_val(s[i + k])) < 0) return false;
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (uint8_t)(w >> 16);
        if (pad < 2) out[o++] = (uint8_t)(w >> 8);
        if (pad < 1) out[o++] = (uint8_t)w;
    }
    *out_len = o;
    return true;
}

/* ------------------------------------------------------------------------- */
/* encoding                                                                   */
/* ------------------------------------------------------------------------- */

static const char *const scalar_names[13] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32",
                                             "bool", "str", NULL, "u64", "i64", "f64"};

/* Shortest decimal that reads back to the same bits; non-finite values as
 * their bits in hex ("0x7fc00000"), quoted when inside a JSON array. */
static void put_float(mc_buf *b, const uint8_t *p, bool is64, bool quoted) {
    char t[48];
    if (is64) {
        double v;
        uint64_t bits;
        memcpy(&v, p, 8);
        memcpy(&bits, p, 8);
        if (!isfinite(v)) {
            snprintf(t, sizeof t, quoted ? "\"0x%016" PRIx64 "\"" : "0x%016" PRIx64, bits);
        } else {
            for (int prec = 1; prec <= 17; prec++) {
                mio_snprintf_c(t, sizeof t, "%.*g", prec, v);
                double r = mio_strtod_c(t, NULL);
                uint64_t rbits;
                memcpy(&rbits, &r, 8);
                if (rbits == bits) break; /* bit-exact: -0.0 differs from 0.0 */
            }
        }
    } else {
        float v;
        uint32_t bits;
        memcpy(&v, p, 4);
        memcpy(&bits, p, 4);
        if (!isfinite(v)) {
            snprintf(t, sizeof t, quoted ? "\"0x%08" PRIx32 "\"" : "0x%08" PRIx32, bits);
        } else {
            for (int prec = 1; prec <= 9; prec++) {
                mio_snprintf_c(t, sizeof t, "%.*g", prec, (double)v);
                float r = mio_strtof_c(t, NULL);
                uint32_t rbits;
                memcpy(&rbits, &r, 4);
                if (rbits == bits) break; /* bit-exact: -0.0f differs from 0.0f */
            }
        }
    }
    mio_mc_str(b, t);
}

static void put_scalar(mc_buf *b, int type, const uint8_t *p, bool in_array) {
    char t[32];
    switch (type) {
    case MIO_GGUF_U8: snprintf(t, sizeof t, "%u", p[0]); break;
    case MIO_GGUF_I8: snprintf(t, sizeof t, "%d", (int8_t)p[0]); break;
    case MIO_GGUF_U16: snprintf(t, sizeof t, "%u", ld16(p)); break;
    case MIO_GGUF_I16: snprintf(t, sizeof t, "%d", (int16_t)ld16(p)); break;
    case MIO_GGUF_U32: snprintf(t, sizeof t, "%" PRIu32, ld32(p)); break;
    case MIO_GGUF_I32: snprintf(t, sizeof t, "%" PRId32, (int32_t)ld32(p)); break;
    case MIO_GGUF_U64: snprintf(t, sizeof t, "%" PRIu64, ld64(p)); break;
    case MIO_GGUF_I64: snprintf(t, sizeof t, "%" PRId64, (int64_t)ld64(p)); break;
    case MIO_GGUF_BOOL: snprintf(t, sizeof t, "%s", p[0] ? "true" : "false"); break;
    case MIO_GGUF_F32: put_float(b, p, false, in_array); return;
    default: put_float(b, p, true, in_array); return; /* F64 */
    }
    mio_mc_str(b, t);
}

mio_status mio_mc_encode_value(const gguf_kv *kv, const char **type_name, char **text) {
    mc_buf b = {0};
    int type = kv->type;
    if (type == MIO_GGUF_STRING) {
        if (mio_mc_plain_text(kv->val, kv->val_len)) {
            *type_name = "str";
            mio_mc_put(&b, kv->val, kv->val_len);
        } else {
            *type_name = "str/base64";
            put_b64(&b, kv->val, kv->val_len);
        }
    } else if (type == MIO_GGUF_ARRAY && kv->elem_type == MIO_GGUF_ARRAY) {
        *type_name = "raw/base64";
        put_b64(&b, kv->raw, kv->raw_len);
    } else if (type == MIO_GGUF_ARRAY) {
        static const char *const arr_names[13] = {"u8[]", "i8[]", "u16[]", "i16[]", "u32[]", "i32[]", "f32[]",
                                                  "bool[]", "str[]", NULL, "u64[]", "i64[]", "f64[]"};
        int et = kv->elem_type;
        *type_name = arr_names[et];
        mio_mc_put(&b, "[", 1);
        const uint8_t *p = kv->val;
        size_t es = gguf_type_size(et);
        for (uint64_t k = 0; k < kv->count && !b.oom; k++) {
            if (k) mio_mc_put(&b, ",", 1);
            if (et == MIO_GGUF_STRING) {
                uint64_t l = ld64(p);
                if (utf8_ok(p + 8, (size_t)l)) {
                    mio_mc_json_str(&b, (const char *)p + 8, (size_t)l);
                } else {
                    mio_mc_str(&b, "{\"base64\":\"");
                    put_b64(&b, p + 8, (size_t)l);
                    mio_mc_str(&b, "\"}");
                }
                p += 8 + l;
            } else {
                put_scalar(&b, et, p, true);
                p += es;
            }
        }
        mio_mc_put(&b, "]", 1);
    } else {
        *type_name = scalar_names[type];
        put_scalar(&b, type, kv->val, false);
    }
    *text = mio_mc_take(&b);
    return *text ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory encoding key '%.*s'", (int)kv->key.len, kv->key.ptr);
}

/* ------------------------------------------------------------------------- */
/* decoding                                                                   */
/* ------------------------------------------------------------------------- */

static int type_from_layout_name(const char *s, bool *array) {
    size_t n = strlen(s);
    *array = n > 2 && strcmp(s + n - 2, "[]") == 0;
    if (*array) n -= 2;
    for (int t = 0; t < 13; t++)
        if (scalar_names[t] && strlen(scalar_names[t]) == n && memcmp(scalar_names[t], s, n) == 0) return t;
    return -1;
}

typedef struct cursor {
    const char *p, *end;
    const char *key;
} cursor;

static void skip_ws(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

/* One number token of the value text (up to ',' ']' or the end). */
static bool token(cursor *c, char *t, size_t cap) {
    size_t n = 0;
    while (c->p + n < c->end && c->p[n] != ',' && c->p[n] != ']' && c->p[n] != ' ') n++;
    if (n == 0 || n >= cap) return false;
    memcpy(t, c->p, n);
    t[n] = '\0';
    c->p += n;
    return true;
}

static mio_status bad(const cursor *c, const char *what) {
    return mio_err_set(MIO_ERR_INVALID_METADATA, "key '%s': %s", c->key, what);
}

/* Parse one scalar of wire type `type` from text t into out (its wire bytes). */
static mio_status parse_scalar(const cursor *c, int type, const char *t, uint8_t *out) {
    char *e = NULL;
    errno = 0;
    if (type == MIO_GGUF_BOOL) {
        if (strcmp(t, "true") == 0) out[0] = 1;
        else if (strcmp(t, "false") == 0) out[0] = 0;
        else return bad(c, "a bool must be true or false");
        return MIO_OK;
    }
    if (type == MIO_GGUF_F32 || type == MIO_GGUF_F64) {
        bool is64 = type == MIO_GGUF_F64;
        if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            unsigned long long bits = strtoull(t + 2, &e, 16);
            if (errno || *e || e == t + 2 || strlen(t + 2) != (is64 ? 16u : 8u)) return bad(c, "malformed float bits");
            if (is64) { uint64_t v = bits; memcpy(out, &v, 8); }
            else { uint32_t v = (uint32_t)bits; memcpy(out, &v, 4); }
            return MIO_OK;
        }
        /* decimal only: no hex floats, no inf/nan words (those are written as bits) */
        for (const char *q = t; *q; q++)
            if (!strchr("0123456789+-.eE", *q)) return bad(c, "malformed number");
        if (is64) { double v = mio_strtod_c(t, &e); if (*e || e == t) return bad(c, "malformed number"); memcpy(out, &v, 8); }
        else { float v = mio_strtof_c(t, &e); if (*e || e == t) return bad(c, "malformed number"); memcpy(out, &v, 4); }
        return MIO_OK;
    }
    bool is_unsigned = type == MIO_GGUF_U8 || type == MIO_GGUF_U16 || type == MIO_GGUF_U32 || type == MIO_GGUF_U64;
    for (const char *q = t + (t[0] == '-' && !is_unsigned); *q; q++)
        if (*q < '0' || *q > '9') return bad(c, "malformed integer");
    size_t es = gguf_type_size(type);
    if (is_unsigned) {
        unsigned long long v = strtoull(t, &e, 10);
        if (errno || *e || (es < 8 && v >> (8 * es))) return bad(c, "integer out of range for its type");
        uint64_t w = v;
        memcpy(out, &w, es); /* little-endian: the low bytes */
    } else {
        long long v = strtoll(t, &e, 10);
        int64_t lim = es < 8 ? (int64_t)1 << (8 * es - 1) : 0;
        if (errno || *e || (es < 8 && (v < -lim || v >= lim))) return bad(c, "integer out of range for its type");
        int64_t w = v;
        memcpy(out, &w, es);
    }
    return MIO_OK;
}

/* A JSON string at c->p (opening quote) appended to out as raw bytes. */
static mio_status parse_json_str(cursor *c, mc_buf *out) {
    if (c->p >= c->end || *c->p != '"') return bad(c, "a string was expected");
    c->p++;
    while (c->p < c->end && *c->p != '"') {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x20) return bad(c, "control character in a string");
        if (ch != '\\') {
            const char *s = c->p;
            while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (unsigned char)*c->p >= 0x20) c->p++;
            mio_mc_put(out, s, (size_t)(c->p - s));
            continue;
        }
        if (c->end - c->p < 2) return bad(c, "unterminated escape");
        char x = c->p[1];
        c->p += 2;
        const char *simple = strchr("\"\\/bfnrt", x);
        if (x && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            mio_mc_put(out, &map[simple - "\"\\/bfnrt"], 1);
            continue;
        }
        if (x != 'u') return bad(c, "unknown escape");
        uint32_t cp = 0;
        for (int round = 0; round < 2; round++) {
            if (c->end - c->p < 4) return bad(c, "short \\u escape");
            uint32_t u = 0;
            for (int k = 0; k < 4; k++) {
                int h = (unsigned char)c->p[k];
                int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0) return bad(c, "bad \\u escape");
                u = u << 4 | (uint32_t)v;
            }
            c->p += 4;
            if (round == 0) {
                if (u >= 0xdc00 && u <= 0xdfff) return bad(c, "lone low surrogate");
                if (u < 0xd800 || u > 0xdbff) { cp = u; break; }
                cp = u;
                if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u') return bad(c, "lone high surrogate");
                c->p += 2;
            } else {
                if (u < 0xdc00 || u > 0xdfff) return bad(c, "bad surrogate pair");
                cp = 0x10000 + ((cp - 0xd800) << 10) + (u - 0xdc00);
            }
        }
        uint8_t e[4];
        size_t n;
        if (cp < 0x80) { e[0] = (uint8_t)cp; n = 1; }
        else if (cp < 0x800) { e[0] = (uint8_t)(0xc0 | cp >> 6); e[1] = (uint8_t)(0x80 | (cp & 63)); n = 2; }
        else if (cp < 0x10000) {
            e[0] = (uint8_t)(0xe0 | cp >> 12); e[1] = (uint8_t)(0x80 | (cp >> 6 & 63)); e[2] = (uint8_t)(0x80 | (cp & 63)); n = 3;
        } else {
            e[0] = (uint8_t)(0xf0 | cp >> 18); e[1] = (uint8_t)(0x80 | (cp >> 12 & 63));
            e[2] = (uint8_t)(0x80 | (cp >> 6 & 63)); e[3] = (uint8_t)(0x80 | (cp & 63)); n = 4;
        }
        mio_mc_put(out, e, n);
    }
    if (c->p >= c->end) return bad(c, "unterminated string");
    c->p++;
    return MIO_OK;
}

static void put_u64(mc_buf *b, uint64_t v) { mio_mc_put(b, &v, 8); }

/* One str[] element: a JSON string or {"base64":"..."}, as wire bytes (length + bytes). */
static mio_status parse_str_elem(cursor *c, mc_buf *out) {
    mc_buf s = {0};
    mio_status st = MIO_OK;
    if (c->p < c->end && *c->p == '{') {
        static const char open[] = "{\"base64\":\"";
        size_t ol = sizeof open - 1;
        const char *q = c->p + ol;
        const char *close = q;
        while (close < c->end && *close != '"') close++;
        if ((size_t)(c->end - c->p) < ol || memcmp(c->p, open, ol) != 0 || close + 1 >= c->end || close[1] != '}')
            return bad(c, "a string element must be a JSON string or {\"base64\":\"...\"}");
        size_t n = (size_t)(close - q), got = 0;
        uint8_t *bytes = malloc(n / 4 * 3 + 1);
        if (!bytes) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        if (!get_b64(q, n, bytes, &got)) { free(bytes); return bad(c, "malformed base64 in a string element"); }
        put_u64(out, got);
        mio_mc_put(out, bytes, got);
        free(bytes);
        c->p = close + 2;
        return MIO_OK;
    }
    st = parse_json_str(c, &s);
    if (!st && s.oom) st = mio_err_set(MIO_ERR_NOMEM, "out of memory decoding key '%s'", c->key); /* s is cut short */
    if (!st) {
        put_u64(out, s.n);
        mio_mc_put(out, s.p, s.n);
    }
    free(s.p);
    return st;
}

mio_status mio_mc_decode_value(const char *key, const char *type_name, const char *text, size_t text_len, int *type,
                               uint8_t **raw, size_t *raw_len) {
    cursor c = {text, text + text_len, key};
    mc_buf out = {0};
    mio_status st = MIO_OK;
    bool array;
    int t;
    if (strcmp(type_name, "str/base64") == 0 || strcmp(type_name, "raw/base64") == 0) {
        bool is_str = type_name[0] == 's';
        size_t n = text_len, got = 0;
        uint8_t *bytes = malloc(n / 4 * 3 + 8);
        if (!bytes) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        if (!get_b64(text, n, bytes + (is_str ? 8 : 0), &got)) {
            free(bytes);
            return bad(&c, "malformed base64 value");
        }
        if (is_str) { uint64_t l = got; memcpy(bytes, &l, 8); got += 8; }
        *type = is_str ? MIO_GGUF_STRING : MIO_GGUF_ARRAY;
        *raw = bytes;
        *raw_len = got;
        return MIO_OK;
    }
    if ((t = type_from_layout_name(type_name, &array)) < 0)
        return mio_err_set(MIO_ERR_INVALID_METADATA, "key '%s': unknown value type '%s'", key, type_name);
    if ((array || t != MIO_GGUF_STRING) && memchr(text, 0, text_len))
        return bad(&c, "a NUL byte in the value");
    if (!array && t == MIO_GGUF_STRING) {
        size_t n = (size_t)(c.end - c.p);
        put_u64(&out, n);
        mio_mc_put(&out, text, n);
        *type = t;
    } else if (!array) {
        uint8_t v[8];
        char tok[64];
        if (!token(&c, tok, sizeof tok) || c.p != c.end) st = bad(&c, "malformed scalar value");
        if (!st) st = parse_scalar(&c, t, tok, v);
        if (!st) mio_mc_put(&out, v, gguf_type_size(t));
        *type = t;
    } else {
        int32_t et = t;
        uint64_t count = 0;
        mio_mc_put(&out, &et, 4);
        put_u64(&out, 0); /* count, patched below */
        skip_ws(&c);
        if (c.p >= c.end || *c.p != '[') st = bad(&c, "an array value must start with '['");
        else c.p++;
        skip_ws(&c);
        bool first = true;
        while (!st && !out.oom) {
            if (c.p < c.end && *c.p == ']' && first) break;
            if (t == MIO_GGUF_STRING) {
                st = parse_str_elem(&c, &out);
            } else {
                char tok[64];
                const char *q = c.p;
                bool quoted = q < c.end && *q == '"';
                if (quoted) c.p++;
                if (!token(&c, tok, sizeof tok)) { st = bad(&c, "malformed array element"); break; }
                if (quoted) {
                    size_t tl = strlen(tok);
                    if (tl < 3 || tok[tl - 1] != '"' || (t != MIO_GGUF_F32 && t != MIO_GGUF_F64)) {
                        st = bad(&c, "malformed array element");
                        break;
                    }
                    tok[tl - 1] = '\0';
                    if (tok[0] != '0' || tok[1] != 'x') { st = bad(&c, "a quoted number must be float bits (0x...)"); break; }
                }
                uint8_t v[8];
                st = parse_scalar(&c, t, tok, v);
                if (!st) mio_mc_put(&out, v, gguf_type_size(t));
            }
            if (st) break;
            count++;
            first = false;
            skip_ws(&c);
            if (c.p < c.end && *c.p == ',') { c.p++; skip_ws(&c); continue; }
            if (c.p < c.end && *c.p == ']') break;
            st = bad(&c, "expected ',' or ']' in an array");
        }
        if (!st && !out.oom) { /* (an allocation failure ends the loop early: out of memory, not bad text) */
            c.p++; /* the ']' */
            skip_ws(&c);
            if (c.p != c.end) st = bad(&c, "text after the array");
        }
        if (!st && count > MIO_GGUF_MAX_LEN) st = bad(&c, "array longer than 2^30 elements");
        if (!st && !out.oom) memcpy(out.p + 4, &count, 8);
        *type = MIO_GGUF_ARRAY;
    }
    if (!st && out.oom) st = mio_err_set(MIO_ERR_NOMEM, "out of memory decoding key '%s'", key);
    if (st) { free(out.p); return st; }
    *raw_len = out.n;
    *raw = (uint8_t *)mio_mc_take(&out);
    if (!*raw) return mio_err_set(MIO_ERR_NOMEM, "out of memory decoding key '%s'", key);
    return MIO_OK;
}
