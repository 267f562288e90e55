/* SPDX-License-Identifier: MIT */
/* parse.c — safetensors reading: the 8-byte length, a strict zero-copy JSON
 * scanner for the header schema (serde_json's rules as upstream applies them:
 * duplicate fields, integer-only dims, trailing characters, depth limit), then
 * upstream's validation in its order. Checks happen in upstream's order so the
 * error class matches what upstream would report for the same file. */
#include "st_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { const char *name; uint32_t bits; int type; } g_dtypes[MIO_ST_DTYPE_COUNT] = {
    [MIO_ST_BOOL] = {"BOOL", 8, MIO_TYPE_BOOL},           [MIO_ST_F4] = {"F4", 4, MIO_TYPE_F4},
    [MIO_ST_F6_E2M3] = {"F6_E2M3", 6, MIO_TYPE_F6_E2M3},   [MIO_ST_F6_E3M2] = {"F6_E3M2", 6, MIO_TYPE_F6_E3M2},
    [MIO_ST_U8] = {"U8", 8, MIO_TYPE_U8},                 [MIO_ST_I8] = {"I8", 8, MIO_TYPE_I8},
    [MIO_ST_F8_E5M2] = {"F8_E5M2", 8, MIO_TYPE_F8_E5M2},   [MIO_ST_F8_E4M3] = {"F8_E4M3", 8, MIO_TYPE_F8_E4M3},
    [MIO_ST_F8_E8M0] = {"F8_E8M0", 8, MIO_TYPE_F8_E8M0},
    [MIO_ST_F8_E4M3FNUZ] = {"F8_E4M3FNUZ", 8, MIO_TYPE_F8_E4M3FNUZ},
    [MIO_ST_F8_E5M2FNUZ] = {"F8_E5M2FNUZ", 8, MIO_TYPE_F8_E5M2FNUZ},
    [MIO_ST_I16] = {"I16", 16, MIO_TYPE_I16},             [MIO_ST_U16] = {"U16", 16, MIO_TYPE_U16},
    [MIO_ST_F16] = {"F16", 16, MIO_TYPE_F16},             [MIO_ST_BF16] = {"BF16", 16, MIO_TYPE_BF16},
    [MIO_ST_I32] = {"I32", 32, MIO_TYPE_I32},             [MIO_ST_U32] = {"U32", 32, MIO_TYPE_U32},
    [MIO_ST_F32] = {"F32", 32, MIO_TYPE_F32},             [MIO_ST_C64] = {"C64", 64, MIO_TYPE_C64},
    [MIO_ST_F64] = {"F64", 64, MIO_TYPE_F64},             [MIO_ST_I64] = {"I64", 64, MIO_TYPE_I64},
    [MIO_ST_U64] = {"U64", 64, MIO_TYPE_U64},
};

static bool dt_ok(int d) { return d >= 0 && d < MIO_ST_DTYPE_COUNT; }
const char *mio_st_dtype_name(int dtype) { return dt_ok(dtype) ? g_dtypes[dtype].name : NULL; }
uint32_t mio_st_dtype_bits(int dtype) { return dt_ok(dtype) ? g_dtypes[dtype].bits : 0; }
int mio_st_dtype_to_type(int dtype) { return dt_ok(dtype) ? g_dtypes[dtype].type : -1; }
int mio_type_to_st_dtype(int type) {
    for (int d = 0; d < MIO_ST_DTYPE_COUNT; d++)
        if (g_dtypes[d].type == type) return d;
    return -1;
}
static int st_dtype_lookup(const char *s, size_t n) {
    /* the common ones first, by length and first characters */
    if (n == 3 && s[0] == 'F' && s[1] == '3' && s[2] == '2') return MIO_ST_F32;
    if (n == 4 && memcmp(s, "BF16", 4) == 0) return MIO_ST_BF16;
    if (n == 3 && s[0] == 'F' && s[1] == '1' && s[2] == '6') return MIO_ST_F16;
    if (n < 2 || n > 11) return -1; /* "F4" .. "F8_E4M3FNUZ" */
    for (int d = 0; d < MIO_ST_DTYPE_COUNT; d++)
        if (g_dtypes[d].name[0] == s[0] && strlen(g_dtypes[d].name) == n && memcmp(g_dtypes[d].name, s, n) == 0) return d;
    return -1;
}
int mio_st_dtype_count(void) { return MIO_ST_DTYPE_COUNT; }
int mio_st_dtype_from_name(const char *name) { return name ? st_dtype_lookup(name, strlen(name)) : -1; }

bool mio_st_utf8_valid(const uint8_t *p, size_t n, size_t *bad) {
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path, 8 bytes at a time */
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (!(w & 0x8080808080808080ull)) { i += 8; continue; }
        }
        uint8_t c = p[i];
        if (c < 0x80) { i++; continue; }
        size_t len;
        uint8_t lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) len = 2;
        else if (c == 0xe0) { len = 3; lo = 0xa0; }
        /* NOLINTNEXTLINE(bugprone-branch-clone): one branch per row of the Unicode well-formed UTF-8 table (Table 3-7) */
        else if (c >= 0xe1 && c <= 0xec) len = 3;
        else if (c == 0xed) { len = 3; hi = 0x9f; } /* no UTF-16 surrogates */
        else if (c >= 0xee && c <= 0xef) len = 3;
        else if (c == 0xf0) { len = 4; lo = 0x90; }
        else if (c >= 0xf1 && c <= 0xf3) len = 4;
        else if (c == 0xf4) { len = 4; hi = 0x8f; }
        else { *bad = i; return false; }
        if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) { *bad = i; return false; }
        for (size_t k = 2; k < len; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xbf) { *bad = i; return false; }
        i += len;
    }
    return true;
}

mio_status mio_st_tensor_size(int dtype, uint32_t n_dims, const uint64_t *shape, uint64_t *bytes, const mio_str *nm) {
    char name_[160];
#define name mio_esc_bytes(name_, sizeof name_, nm->ptr, nm->len)
    uint64_t ne = 1, bits;
    for (uint32_t d = 0; d < n_dims; d++)
        if (!ck_mul(ne, shape[d], &ne))
            return mio_err_set(MIO_ERR_OVERFLOW, "tensor '%s': element count overflows at dimension %u (%llu)", name, d,
                               (unsigned long long)shape[d]);
    if (!ck_mul(ne, mio_st_dtype_bits(dtype), &bits))
        return mio_err_set(MIO_ERR_OVERFLOW, "tensor '%s': bit count of %llu %s elements overflows", name,
                           (unsigned long long)ne, mio_st_dtype_name(dtype));
    if (bits % 8)
        return mio_err_set(MIO_ERR_MISALIGNED_SLICE, "tensor '%s': %llu %s elements are %llu bits, not a whole number of bytes",
                           name, (unsigned long long)ne, mio_st_dtype_name(dtype), (unsigned long long)bits);
    *bytes = bits / 8;
    return MIO_OK;
#undef name
}

/* --------------------------- JSON scanner --------------------------- */
#define JSON_MAX_DEPTH 128 /* serde_json's recursion limit */

typedef struct jp {
    const uint8_t *s, *p, *e;
    char *arena;          /* decoded strings (allocated on the first escape) */
    size_t arena_used, arena_cap;
    char **arena_out;     /* where the arena is handed over */
} jp;

static mio_status jerr(const jp *j, const char *fmt, const char *detail) {
    char b[300];
    snprintf(b, sizeof b, fmt, detail ? detail : "");
    return mio_err_set(MIO_ERR_INVALID_JSON, "invalid JSON header at byte %zu (column %zu): %s", (size_t)(j->p - j->s),
                       (size_t)(j->p - j->s) + 1, b);
}

static void ws(jp *j) {
    while (j->p < j->e && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')) j->p++;
}

static int hexv(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool hex4(jp *j, uint32_t *v) {
    if (j->e - j->p < 4) return false;
    uint32_t x = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexv(j->p[k]);
        if (h < 0) return false;
        x = x << 4 | (uint32_t)h;
    }
    j->p += 4;
    *v = x;
    return true;
}

/* Parse a string at j->p (which is '"'); out is a view or a decoded copy. */
static mio_status jstring(jp *j, mio_str *out) {
    const uint8_t *start = ++j->p;
    const uint8_t *q = start;
    /* 8 bytes at a time: stop at the word holding a quote, a backslash or a control byte. */
    while (j->e - q >= 8) {
        uint64_t w;
        memcpy(&w, q, 8);
        const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        uint64_t quote = w ^ (ones * '"'), bslash = w ^ (ones * '\\');
        uint64_t hit = ((quote - ones) & ~quote) | ((bslash - ones) & ~bslash) | (w - ones * 0x20);
        if ((hit & ~w & highs) != 0) break;
        q += 8;
    }
    while (q < j->e && *q != '"' && *q != '\\' && *q >= 0x20) q++;
    if (q < j->e && *q == '"') { /* common case: no escapes */
        out->ptr = (const char *)start;
        out->len = (size_t)(q - start);
        j->p = q + 1;
        return MIO_OK;
    }
    /* Slow path: decode into the arena (decoded length <= raw length <= header length). */
    if (!j->arena) {
        j->arena_cap = (size_t)(j->e - j->s) + 1;
        j->arena = malloc(j->arena_cap);
        if (!j->arena) return mio_err_set(MIO_ERR_NOMEM, "out of memory decoding the header");
        *j->arena_out = j->arena;
    }
    char *o = j->arena + j->arena_used, *o0 = o;
    j->p = start;
    for (;;) {
        if (j->p >= j->e) return jerr(j, "%sEOF while parsing a string", NULL);
        uint8_t c = *j->p;
        if (c == '"') { j->p++; break; }
        if (c < 0x20) return jerr(j, "%scontrol character (\\u0000-\\u001F) found while parsing a string", NULL);
        if (c != '\\') { *o++ = (char)c; j->p++; continue; }
        if (++j->p >= j->e) return jerr(j, "%sEOF while parsing a string", NULL);
        c = *j->p++;
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (!hex4(j, &cp)) return jerr(j, "%sinvalid \\u escape", NULL);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                uint32_t lo;
                if (j->e - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
                    return jerr(j, "%slone leading surrogate in hex escape", NULL);
                j->p += 2;
                if (!hex4(j, &lo)) return jerr(j, "%sinvalid \\u escape", NULL);
                if (lo < 0xdc00 || lo > 0xdfff) return jerr(j, "%slone leading surrogate in hex escape", NULL);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                return jerr(j, "%slone trailing surrogate in hex escape", NULL);
            }
            if (cp < 0x80) *o++ = (char)cp;
            else if (cp < 0x800) { *o++ = (char)(0xc0 | cp >> 6); *o++ = (char)(0x80 | (cp & 0x3f)); }
            else if (cp < 0x10000) {
                *o++ = (char)(0xe0 | cp >> 12); *o++ = (char)(0x80 | ((cp >> 6) & 0x3f)); *o++ = (char)(0x80 | (cp & 0x3f));
            } else {
                *o++ = (char)(0xf0 | cp >> 18); *o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
                *o++ = (char)(0x80 | ((cp >> 6) & 0x3f)); *o++ = (char)(0x80 | (cp & 0x3f));
            }
            break;
        }
        default: return jerr(j, "%sinvalid escape", NULL);
        }
    }
    out->ptr = o0;
    out->len = (size_t)(o - o0);
    j->arena_used += out->len;
    return MIO_OK;
}

/* An unsigned integer that fits usize (u64), as serde_json deserializes one. */
static mio_status juint(jp *j, uint64_t *v, const char *what) {
    ws(j);
    if (j->p >= j->e) return jerr(j, "%sEOF while parsing a value", NULL);
    if (*j->p == '-') return jerr(j, "invalid value: negative integer, expected usize (%s)", what);
    if (*j->p < '0' || *j->p > '9') return jerr(j, "invalid type, expected usize (%s)", what);
    uint64_t x = 0;
    bool overflow = false;
    const uint8_t *d = j->p;
    if (*j->p == '0') j->p++;
    else {
        /* up to 19 digits cannot overflow u64; check only beyond that */
        const uint8_t *p = j->p, *stop = (j->e - p > 19) ? p + 19 : j->e;
        while (p < stop && (unsigned)(*p - '0') <= 9) x = x * 10 + (uint64_t)(*p++ - '0');
        while (p < j->e && (unsigned)(*p - '0') <= 9) {
            if (!ck_mul(x, 10, &x) || !ck_add(x, (uint64_t)(*p - '0'), &x)) overflow = true;
            p++;
        }
        j->p = p;
    }
    if (j->p < j->e && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        return jerr(j, "invalid type: floating point, expected usize (%s)", what);
    if (j->p < j->e && *j->p >= '0' && *j->p <= '9') return jerr(j, "%sinvalid number (leading zero)", NULL);
    if (overflow) { j->p = d; return jerr(j, "invalid type: floating point (integer above 2^64-1), expected usize (%s)", what); }
    *v = x;
    return MIO_OK;
}

static mio_status jskip(jp *j, int depth);

static mio_status jliteral(jp *j, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(j->e - j->p) < n || memcmp(j->p, lit, n) != 0) return jerr(j, "%sexpected value", NULL);
    j->p += n;
    return MIO_OK;
}

/* Skip any JSON value (unknown fields), validating its syntax. `open` counts
 * the arrays/objects already open around it (the header object included): like
 * serde_json, the 128th nested container is refused. */
static mio_status jskip(jp *j, int open) {
    ws(j);
    if (j->p >= j->e) return jerr(j, "%sEOF while parsing a value", NULL);
    uint8_t c = *j->p;
    if ((c == '[' || c == '{') && open + 1 >= JSON_MAX_DEPTH) return jerr(j, "%srecursion limit exceeded", NULL);
    mio_str s;
    switch (c) {
    case '"': return jstring(j, &s);
    case 't': return jliteral(j, "true");
    case 'f': return jliteral(j, "false");
    case 'n': return jliteral(j, "null");
    case '[': case '{': {
        uint8_t close = c == '[' ? ']' : '}';
        j->p++;
        ws(j);
        if (j->p < j->e && *j->p == close) { j->p++; return MIO_OK; }
        for (;;) {
            ws(j);
            if (c == '{') {
                if (j->p >= j->e || *j->p != '"') return jerr(j, "%skey must be a string", NULL);
                mio_status st = jstring(j, &s);
                if (st) return st;
                ws(j);
                if (j->p >= j->e || *j->p != ':') return jerr(j, "%sexpected ':'", NULL);
                j->p++;
            }
            mio_status st = jskip(j, open + 1);
            if (st) return st;
            ws(j);
            if (j->p < j->e && *j->p == ',') { j->p++; continue; }
            if (j->p < j->e && *j->p == close) { j->p++; return MIO_OK; }
            return jerr(j, "%sexpected ',' or closing bracket", NULL);
        }
    }
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            if (c == '-') j->p++;
            if (j->p >= j->e || *j->p < '0' || *j->p > '9') return jerr(j, "%sinvalid number", NULL);
            if (*j->p == '0') j->p++;
            else while (j->p < j->e && *j->p >= '0' && *j->p <= '9') j->p++;
            if (j->p < j->e && *j->p == '.') {
                j->p++;
                if (j->p >= j->e || *j->p < '0' || *j->p > '9') return jerr(j, "%sinvalid number", NULL);
                while (j->p < j->e && *j->p >= '0' && *j->p <= '9') j->p++;
            }
            if (j->p < j->e && (*j->p == 'e' || *j->p == 'E')) {
                j->p++;
                if (j->p < j->e && (*j->p == '+' || *j->p == '-')) j->p++;
                if (j->p >= j->e || *j->p < '0' || *j->p > '9') return jerr(j, "%sinvalid number", NULL);
                while (j->p < j->e && *j->p >= '0' && *j->p <= '9') j->p++;
            }
            return MIO_OK;
        }
        return jerr(j, "%sexpected value", NULL);
    }
}

static bool grow(void **p, uint64_t *cap, uint64_t need, size_t elem) {
    if (need <= *cap) return true;
    uint64_t nc = *cap ? *cap : 16;
    while (nc < need) nc *= 2;
    void *np = mio_mem_big_grow(*p, (size_t)*cap * elem, (size_t)nc * elem);
    if (!np) return false;
    *p = np;
    *cap = nc;
    return true;
}

static bool is_key(mio_str k, const char *lit) { return k.len == strlen(lit) && memcmp(k.ptr, lit, k.len) == 0; }

static mio_status parse_metadata(jp *j, mio_st_file *f, bool keep) {
    ws(j);
    if (j->p < j->e && *j->p == 'n') return jliteral(j, "null");
    if (j->p >= j->e || *j->p != '{') return jerr(j, "invalid type, expected a map of strings for %s", "__metadata__");
    j->p++;
    ws(j);
    if (j->p < j->e && *j->p == '}') { j->p++; return MIO_OK; }
    for (;;) {
        ws(j);
        if (j->p >= j->e || *j->p != '"') return jerr(j, "%skey must be a string", NULL);
        mio_str k, v;
        mio_status st = jstring(j, &k);
        if (st) return st;
        ws(j);
        if (j->p >= j->e || *j->p != ':') return jerr(j, "%sexpected ':'", NULL);
        j->p++;
        ws(j);
        if (j->p >= j->e || *j->p != '"') return jerr(j, "invalid type: %s, expected a string", "__metadata__ values must be strings");
        st = jstring(j, &v);
        if (st) return st;
        if (keep) {
            if (!grow((void **)&f->meta, &f->cap_meta, 2 * f->n_meta + 2, sizeof *f->meta))
                return mio_err_set(MIO_ERR_NOMEM, "out of memory");
            f->meta[2 * f->n_meta] = k;
            f->meta[2 * f->n_meta + 1] = v;
            f->n_meta++;
        }
        ws(j);
        if (j->p < j->e && *j->p == ',') { j->p++; continue; }
        if (j->p < j->e && *j->p == '}') { j->p++; return MIO_OK; }
        return jerr(j, "%sexpected ',' or '}'", NULL);
    }
}

static mio_status parse_tensor(jp *j, mio_st_file *f, mio_str name, uint32_t shard) {
    char nb_[160];
    /* the tensor's name, escaped for a message: formatted only on an error path */
#define nb mio_esc_bytes(nb_, sizeof nb_, name.ptr, name.len)
    ws(j);
    if (j->p >= j->e || *j->p != '{') return jerr(j, "invalid type, expected struct TensorInfo for tensor '%s'", nb);
    j->p++;
    bool have_dtype = false, have_shape = false, have_off = false;
    int dtype = -1;
    uint64_t shape_at = f->n_shapes, n_dims = 0, off[2] = {0, 0};
    ws(j);
    if (j->p < j->e && *j->p == '}') j->p++;
    else
        for (;;) {
            ws(j);
            if (j->p >= j->e || *j->p != '"') return jerr(j, "%skey must be a string", NULL);
            mio_str k;
            mio_status st = jstring(j, &k);
            if (st) return st;
            ws(j);
            if (j->p >= j->e || *j->p != ':') return jerr(j, "%sexpected ':'", NULL);
            j->p++;
            ws(j);
            if (is_key(k, "dtype")) {
                if (have_dtype) return jerr(j, "duplicate field `dtype` in tensor '%s'", nb);
                have_dtype = true;
                if (j->p >= j->e || *j->p != '"') return jerr(j, "invalid type, expected a dtype string for tensor '%s'", nb);
                mio_str d;
                st = jstring(j, &d);
                if (st) return st;
                dtype = st_dtype_lookup(d.ptr, d.len);
                if (dtype < 0) {
                    char db[80];
                    return jerr(j, "unknown dtype variant `%s`", mio_esc_bytes(db, sizeof db, d.ptr, d.len));
                }
            } else if (is_key(k, "shape")) {
                if (have_shape) return jerr(j, "duplicate field `shape` in tensor '%s'", nb);
                have_shape = true;
                if (j->p >= j->e || *j->p != '[') return jerr(j, "invalid type, expected a sequence for the shape of '%s'", nb);
                j->p++;
                ws(j);
                if (j->p < j->e && *j->p == ']') j->p++;
                else
                    for (;;) {
                        uint64_t v;
                        st = juint(j, &v, "shape");
                        if (st) return st;
                        if (!grow((void **)&f->shapes, &f->cap_shapes, f->n_shapes + 1, sizeof *f->shapes))
                            return mio_err_set(MIO_ERR_NOMEM, "out of memory");
                        f->shapes[f->n_shapes++] = v;
                        n_dims++;
                        ws(j);
                        if (j->p < j->e && *j->p == ',') { j->p++; continue; }
                        if (j->p < j->e && *j->p == ']') { j->p++; break; }
                        return jerr(j, "%sexpected ',' or ']' in shape", NULL);
                    }
            } else if (is_key(k, "data_offsets")) {
                if (have_off) return jerr(j, "duplicate field `data_offsets` in tensor '%s'", nb);
                have_off = true;
                if (j->p >= j->e || *j->p != '[') return jerr(j, "invalid type, expected a tuple of 2 for data_offsets of '%s'", nb);
                j->p++;
                for (int k2 = 0; k2 < 2; k2++) {
                    st = juint(j, &off[k2], "data_offsets");
                    if (st) return st;
                    ws(j);
                    if (k2 == 0) {
                        if (j->p >= j->e || *j->p != ',') return jerr(j, "invalid length, expected a tuple of size 2 for data_offsets of '%s'", nb);
                        j->p++;
                    }
                }
                if (j->p >= j->e || *j->p != ']') return jerr(j, "trailing elements, expected a tuple of size 2 for data_offsets of '%s'", nb);
                j->p++;
            } else {
                st = jskip(j, 2); /* unknown field (inside the header and tensor objects): accepted, like upstream */
                if (st) return st;
            }
            ws(j);
            if (j->p < j->e && *j->p == ',') { j->p++; continue; }
            if (j->p < j->e && *j->p == '}') { j->p++; break; }
            return jerr(j, "%sexpected ',' or '}'", NULL);
        }
    if (!have_dtype || !have_shape || !have_off)
        return jerr(j, "missing field `%s`", !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
    if (n_dims > UINT32_MAX) return jerr(j, "too many dimensions in tensor '%s'", nb);
    if (!grow((void **)&f->t, &f->cap_t, f->n_t + 1, sizeof *f->t)) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    st_rec *r = &f->t[f->n_t++];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->dtype = dtype;
    r->n_dims = (uint32_t)n_dims;
    r->shape_at = shape_at;
    r->start = off[0];
    r->end = off[1];
    r->shard = shard;
    return MIO_OK;
#undef nb
}

mio_str mio_st_name_at(const void *f, uint64_t i) { return ((const mio_st_file *)f)->t[i].name; }

static int cmp_rec(const void *a, const void *b) {
    const st_rec *x = a, *y = b;
    if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
    int c = memcmp(x->name.ptr, y->name.ptr, n);
    if (c) return c;
    return x->name.len < y->name.len ? -1 : x->name.len > y->name.len;
}

static int cmp_meta(const void *a, const void *b) {
    const mio_str *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, n);
    if (c) return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

mio_status mio_st_parse_header(mio_st_file *f, uint32_t shard, const uint8_t *json, size_t n, uint64_t *data_len) {
    size_t bad;
    if (!mio_st_utf8_valid(json, n, &bad))
        return mio_err_set(MIO_ERR_INVALID_UTF8, "header is not valid UTF-8: byte 0x%02x at header offset %zu (file offset %zu)",
                           json[bad], bad, bad + 8);
    jp j = {json, json, json + n, NULL, 0, 0, &f->shards[shard].decoded};
    uint64_t first = f->n_t;
    /* Reserve once: every tensor entry opens one '{' (an upper bound), and most
     * shapes have at most 4 dims. Growing by doubling would copy the tables
     * several times over for a large header. */
    uint64_t braces = 0;
    for (const uint8_t *q = json, *e = json + n; (q = memchr(q, '{', (size_t)(e - q))) != NULL; q++) braces++;
    if (!grow((void **)&f->t, &f->cap_t, f->n_t + braces, sizeof *f->t) ||
        !grow((void **)&f->shapes, &f->cap_shapes, f->n_shapes + 4 * braces, sizeof *f->shapes))
        return mio_err_set(MIO_ERR_NOMEM, "out of memory for %llu tensor entries", (unsigned long long)braces);
    ws(&j);
    if (j.p >= j.e || *j.p != '{') return jerr(&j, "%sinvalid type, expected a JSON object (map of tensors)", NULL);
    j.p++;
    bool seen_meta = false;
    ws(&j);
    if (j.p < j.e && *j.p == '}') j.p++;
    else
        for (;;) {
            ws(&j);
            if (j.p >= j.e || *j.p != '"') return jerr(&j, "%skey must be a string", NULL);
            mio_str k;
            mio_status st = jstring(&j, &k);
            if (st) return st;
            ws(&j);
            if (j.p >= j.e || *j.p != ':') return jerr(&j, "%sexpected ':'", NULL);
            j.p++;
            if (is_key(k, "__metadata__")) {
                if (seen_meta) return jerr(&j, "duplicate field `%s`", "__metadata__");
                seen_meta = true;
                st = parse_metadata(&j, f, shard == 0);
            } else {
                st = parse_tensor(&j, f, k, shard);
            }
            if (st) return st;
            ws(&j);
            if (j.p < j.e && *j.p == ',') { j.p++; continue; }
            if (j.p < j.e && *j.p == '}') { j.p++; break; }
            return jerr(&j, "%sexpected ',' or '}'", NULL);
        }
    ws(&j);
    if (j.p != j.e) return jerr(&j, "%strailing characters after the JSON object", NULL);

    /* Our deliberate differences from upstream: duplicates are refused, not last-wins. */
    if (shard == 0 && f->n_meta > 1) {
        qsort(f->meta, (size_t)f->n_meta, 2 * sizeof *f->meta, cmp_meta);
        for (uint64_t k = 1; k < f->n_meta; k++)
            if (cmp_meta(&f->meta[2 * k - 2], &f->meta[2 * k]) == 0) {
                char kb[160];
                return mio_err_set(MIO_ERR_INVALID_METADATA, "__metadata__ has the key '%s' twice",
                                   mio_esc_bytes(kb, sizeof kb, f->meta[2 * k].ptr, f->meta[2 * k].len));
            }
    }
    st_rec *t = f->t + first;
    uint64_t nt = f->n_t - first;
    bool sorted = true; /* files written by upstream are already in data order */
    for (uint64_t i = 1; i < nt && sorted; i++) sorted = cmp_rec(&t[i - 1], &t[i]) < 0;
    if (!sorted) qsort(t, (size_t)nt, sizeof *t, cmp_rec);
    /* Names are unique across the whole handle (all shards). */
    mio_status hs = mio_namehash_reserve(&f->hash, first, f->n_t, mio_st_name_at, f);
    if (hs) return hs;
    for (uint64_t i = first; i < f->n_t; i++) {
        uint64_t dup;
        if (!mio_namehash_insert(&f->hash, f->t[i].name.ptr, f->t[i].name.len, i, mio_st_name_at, f, &dup)) {
            char nb[160];
            mio_esc_bytes(nb, sizeof nb, f->t[i].name.ptr, f->t[i].name.len);
            if (f->t[dup].shard != shard)
                return mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "tensor '%s' appears in shard %u and again in shard %u", nb,
                                   f->t[dup].shard + 1, shard + 1);
            return mio_err_set(MIO_ERR_DUPLICATE_TENSOR,
                               "tensor '%s' is listed twice in the header (upstream keeps the last; libmodelio refuses)", nb);
        }
    }
    /* Upstream's validation, in data order. */
    uint64_t run = 0;
    for (uint64_t i = 0; i < nt; i++) {
        char nb_[160];
#define nb mio_esc_bytes(nb_, sizeof nb_, t[i].name.ptr, t[i].name.len)
        if (t[i].start != run || t[i].end < t[i].start)
            return mio_err_set(MIO_ERR_INVALID_OFFSET,
                               "tensor '%s' has data_offsets [%llu, %llu]; expected it to start at %llu%s", nb,
                               (unsigned long long)t[i].start, (unsigned long long)t[i].end, (unsigned long long)run,
                               t[i].end < t[i].start ? " and end after its start" : " (tensors must tile the buffer without gaps or overlaps)");
        run = t[i].end;
        uint64_t bytes;
        mio_status st = mio_st_tensor_size(t[i].dtype, t[i].n_dims, f->shapes + t[i].shape_at, &bytes, &t[i].name);
        if (st) return st;
        if (t[i].end - t[i].start != bytes)
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor '%s': data_offsets span %llu bytes but %s x shape needs %llu",
                               nb, (unsigned long long)(t[i].end - t[i].start), mio_st_dtype_name(t[i].dtype),
                               (unsigned long long)bytes);
#undef nb
    }
    *data_len = run;
    return MIO_OK;
}
