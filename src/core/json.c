/* SPDX-License-Identifier: MIT */
/* json.c — the JSON tree of json.h: a strict RFC 8259 parser (bounded
 * recursion, lone surrogates and raw control characters refused), the printer
 * (compact and tab-formatted), edits, deep copy and compare. Only libc. */
#include "json.h"

#include "core/core.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ nodes */

static mio_json *node_new(mio_json_type type) {
    mio_json *j = calloc(1, sizeof *j);
    if (j) j->type = type;
    return j;
}

/* ------------------------------------------------------------------ arena */

struct mio_json_arena {
    struct mio_json_arena *next; /* the blocks, newest first */
    size_t used, cap;
    _Alignas(16) unsigned char mem[];
};

void mio_json_arena_free(mio_json_arena *a) {
    while (a) {
        mio_json_arena *n = a->next;
        free(a);
        a = n;
    }
}

/* n bytes, 8-aligned (enough for a node), zeroed, from the head block (a new
 * block when it is full) */
static void *arena_get(mio_json_arena **head, size_t n) {
    n = (n + 7) & ~(size_t)7;
    mio_json_arena *a = *head;
    if (!a || a->cap - a->used < n) {
        size_t cap = n > ((size_t)1 << 20) ? n : ((size_t)1 << 20);
        mio_json_arena *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a;
        b->used = 0;
        b->cap = cap;
        *head = a = b;
    }
    void *r = a->mem + a->used;
    a->used += n;
    return memset(r, 0, n);
}

void mio_json_free(mio_json *j) {
    if (j && j->in_arena) return;
    while (j) {
        mio_json *next = j->next;
        mio_json_free(j->child);
        free(j->valuestring);
        free(j->string);
        free(j);
        j = next;
    }
}

static int saturate_int(double d) {
    if (d != d) return 0;
    if (d >= (double)INT_MAX) return INT_MAX;
    if (d <= (double)INT_MIN) return INT_MIN;
    return (int)d;
}

static char *dup_bytes(const char *s, size_t len) {
    char *p = malloc(len + 1);
    if (!p) return NULL;
    if (len) memcpy(p, s, len);
    p[len] = 0;
    return p;
}

mio_json *mio_json_new_null(void) { return node_new(MIO_JSON_NULL); }
mio_json *mio_json_new_bool(bool b) { return node_new(b ? MIO_JSON_TRUE : MIO_JSON_FALSE); }
mio_json *mio_json_new_array(void) { return node_new(MIO_JSON_ARRAY); }
mio_json *mio_json_new_object(void) { return node_new(MIO_JSON_OBJECT); }

mio_json *mio_json_new_number(double d) {
    mio_json *j = node_new(MIO_JSON_NUMBER);
    if (j) {
        j->valuedouble = d;
        j->valueint = saturate_int(d);
    }
    return j;
}

static mio_json *new_text(mio_json_type type, const char *s, size_t len) {
    if (!s) return NULL;
    mio_json *j = node_new(type);
    if (!j) return NULL;
    j->valuestring = dup_bytes(s, len);
    j->valuelen = len;
    if (!j->valuestring) {
        free(j);
        return NULL;
    }
    return j;
}

mio_json *mio_json_new_string_n(const char *s, size_t len) { return new_text(MIO_JSON_STRING, s, len); }
mio_json *mio_json_new_string(const char *s) { return s ? new_text(MIO_JSON_STRING, s, strlen(s)) : NULL; }
mio_json *mio_json_new_raw(const char *text) { return text ? new_text(MIO_JSON_RAW, text, strlen(text)) : NULL; }

/* ------------------------------------------------------------ list edits */

static void link_last(mio_json *parent, mio_json *item) {
    item->next = NULL;
    if (!parent->child) {
        parent->child = item;
        item->prev = item;
        return;
    }
    mio_json *last = parent->child->prev;
    last->next = item;
    item->prev = last;
    parent->child->prev = item;
}

static void unlink_node(mio_json *parent, mio_json *m) {
    if (m == parent->child) {
        parent->child = m->next;
        if (m->next) m->next->prev = m->prev; /* the last element */
    } else {
        m->prev->next = m->next;
        if (m->next) m->next->prev = m->prev;
        else parent->child->prev = m->prev;
    }
    m->next = m->prev = NULL;
}

bool mio_json_append(mio_json *arr, mio_json *item) {
    if (!arr || !item || arr == item) return false;
    link_last(arr, item);
    return true;
}

/* item's member key becomes a copy of key; false (item unchanged) when out of memory */
static bool set_key(mio_json *item, const char *key) {
    size_t kl = strlen(key);
    char *k = dup_bytes(key, kl);
    if (!k) return false;
    free(item->string);
    item->string = k;
    item->stringlen = kl;
    return true;
}

bool mio_json_add(mio_json *obj, const char *key, mio_json *item) {
    if (!obj || !key || !item || obj == item || !set_key(item, key)) return false;
    link_last(obj, item);
    return true;
}

mio_json *mio_json_add_string(mio_json *obj, const char *key, const char *s) {
    mio_json *v = mio_json_new_string(s);
    if (!mio_json_add(obj, key, v)) {
        mio_json_free(v);
        return NULL;
    }
    return v;
}

static bool key_is(const mio_json *m, const char *key, size_t kl) {
    return m->string && m->stringlen == kl && memcmp(m->string, key, kl) == 0;
}

mio_json *mio_json_get(const mio_json *obj, const char *key) {
    if (!obj || !key || obj->type != MIO_JSON_OBJECT) return NULL;
    size_t kl = strlen(key);
    for (mio_json *m = obj->child; m; m = m->next)
        if (key_is(m, key, kl)) return m;
    return NULL;
}

bool mio_json_replace(mio_json *obj, const char *key, mio_json *item) {
    mio_json *m = mio_json_get(obj, key);
    if (!m || !item || item == m || !set_key(item, key)) return false;
    item->next = m->next;
    if (m == obj->child) {
        item->prev = m->prev == m ? item : m->prev;
        obj->child = item;
    } else {
        item->prev = m->prev;
        m->prev->next = item;
    }
    if (m->next) m->next->prev = item;
    else obj->child->prev = item;
    m->next = m->prev = NULL;
    mio_json_free(m);
    return true;
}

mio_json *mio_json_detach(mio_json *obj, const char *key) {
    mio_json *m = mio_json_get(obj, key);
    if (m) unlink_node(obj, m);
    return m;
}

void mio_json_remove(mio_json *obj, const char *key) { mio_json_free(mio_json_detach(obj, key)); }

int mio_json_size(const mio_json *arr) {
    int n = 0;
    for (const mio_json *e = arr ? arr->child : NULL; e && n < INT_MAX; e = e->next) n++;
    return n;
}

mio_json *mio_json_at(const mio_json *arr, int i) {
    if (!arr || i < 0) return NULL;
    mio_json *e = arr->child;
    while (e && i-- > 0) e = e->next;
    return e;
}

/* ------------------------------------------------------- copy and compare */

mio_json *mio_json_dup(const mio_json *j) {
    if (!j) return NULL;
    mio_json *c = node_new(j->type);
    if (!c) return NULL;
    c->has_u64 = j->has_u64;
    c->valueint = j->valueint;
    c->valuedouble = j->valuedouble;
    c->valueu64 = j->valueu64;
    c->valuelen = j->valuelen;
    c->stringlen = j->stringlen;
    if ((j->valuestring && !(c->valuestring = dup_bytes(j->valuestring, j->valuelen))) ||
        (j->string && !(c->string = dup_bytes(j->string, j->stringlen)))) {
        mio_json_free(c);
        return NULL;
    }
    for (const mio_json *e = j->child; e; e = e->next) {
        mio_json *ce = mio_json_dup(e);
        if (!ce) {
            mio_json_free(c);
            return NULL;
        }
        link_last(c, ce);
    }
    return c;
}

static const mio_json *member_n(const mio_json *obj, const char *key, size_t kl) {
    for (const mio_json *m = obj->child; m; m = m->next)
        if (key_is(m, key, kl)) return m;
    return NULL;
}

/* An object's members sorted by key, then position: the first member of a key
 * by binary search (large objects; a linear search per member would make the
 * comparison quadratic in the member count). */
typedef struct keyed {
    const mio_json *m;
    size_t pos;
} keyed;

static int keyed_cmp(const void *x, const void *y) {
    const keyed *a = x, *b = y;
    size_t n = a->m->stringlen < b->m->stringlen ? a->m->stringlen : b->m->stringlen;
    int c = memcmp(a->m->string, b->m->string, n);
    if (c) return c;
    if (a->m->stringlen != b->m->stringlen) return a->m->stringlen < b->m->stringlen ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static const mio_json *keyed_first(const keyed *k, size_t n, const mio_json *key) {
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first entry whose key is not below key's */
        size_t mid = lo + (hi - lo) / 2;
        keyed probe = {key, 0};
        if (keyed_cmp(&k[mid], &probe) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && k[lo].m->stringlen == key->stringlen && memcmp(k[lo].m->string, key->string, key->stringlen) == 0
               ? k[lo].m
               : NULL;
}

static keyed *keyed_index(const mio_json *obj, size_t n) {
    keyed *k = malloc(n * sizeof *k);
    if (!k) return NULL;
    size_t i = 0;
    for (const mio_json *m = obj->child; m; m = m->next, i++) k[i] = (keyed){m, i};
    qsort(k, n, sizeof *k, keyed_cmp);
    return k;
}

/* Objects of n members each (n > 0, every member keyed): each member of a
 * equals b's first member of its key, and every key of b is one of a's. The
 * second direction only looks keys up: with the sizes equal and the first
 * direction holding, recursing again would add nothing for objects without
 * repeated keys and would double the work at every nesting level. */
static bool objects_equal(const mio_json *a, const mio_json *b, size_t n) {
    for (const mio_json *m = a->child; m; m = m->next)
        if (!m->string) return false;
    for (const mio_json *m = b->child; m; m = m->next)
        if (!m->string) return false;
    if (n <= 16) {
        for (const mio_json *m = a->child; m; m = m->next)
            if (!mio_json_equal(m, member_n(b, m->string, m->stringlen))) return false;
        for (const mio_json *m = b->child; m; m = m->next)
            if (!member_n(a, m->string, m->stringlen)) return false;
        return true;
    }
    keyed *ka = keyed_index(a, n), *kb = keyed_index(b, n);
    bool eq = ka && kb; /* (out of memory: not provably equal) */
    for (const mio_json *m = a->child; eq && m; m = m->next) eq = mio_json_equal(m, keyed_first(kb, n, m));
    for (const mio_json *m = b->child; eq && m; m = m->next) eq = keyed_first(ka, n, m) != NULL;
    free(ka);
    free(kb);
    return eq;
}

bool mio_json_equal(const mio_json *a, const mio_json *b) {
    if (!a || !b || a->type != b->type) return false;
    if (a == b) return true;
    switch (a->type) {
    case MIO_JSON_NULL:
    case MIO_JSON_FALSE:
    case MIO_JSON_TRUE:
        return true;
    case MIO_JSON_NUMBER:
        return a->valuedouble == b->valuedouble;
    case MIO_JSON_STRING:
    case MIO_JSON_RAW:
        return a->valuelen == b->valuelen && a->valuestring && b->valuestring &&
               memcmp(a->valuestring, b->valuestring, a->valuelen) == 0;
    case MIO_JSON_ARRAY: {
        const mio_json *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!mio_json_equal(x, y)) return false;
        return !x && !y;
    }
    case MIO_JSON_OBJECT: {
        int n = mio_json_size(a);
        return n == mio_json_size(b) && (n == 0 || objects_equal(a, b, (size_t)n));
    }
    default:
        return false;
    }
}

/* ----------------------------------------------------------------- parser */

typedef struct parser {
    const unsigned char *s;
    size_t len, pos;
    mio_json_error *err;
    mio_json_arena **arena; /* NULL: every node and string from malloc */
} parser;

static mio_json *pnode(parser *p) {
    if (!p->arena) return node_new(MIO_JSON_INVALID);
    mio_json *j = arena_get(p->arena, sizeof *j);
    if (j) j->in_arena = true;
    return j;
}

static bool fail(parser *p, size_t at, const char *reason) {
    if (p->err && !p->err->reason) {
        p->err->offset = at;
        p->err->reason = reason;
    }
    return false;
}

static bool fail_nomem(parser *p) {
    if (p->err && !p->err->reason) p->err->nomem = true;
    return fail(p, p->pos, "out of memory");
}

static void skip_ws(parser *p) {
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int hex_val(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* four hex digits at s[at..]; -1 if not */
static long hex4(const parser *p, size_t at) {
    if (p->len - at < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_val(p->s[at + (size_t)i]);
        if (h < 0) return -1;
        v = v << 4 | h;
    }
    return v;
}

static size_t put_utf8(unsigned char *o, unsigned long cp) {
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The string at p->pos (its opening quote): decoded bytes, malloc()ed and
 * NUL-terminated, in *out, their length in *out_len. The decoded text is never
 * longer than the escaped one, which bounds the allocation. */
static bool parse_string(parser *p, char **out, size_t *out_len) {
    size_t start = ++p->pos, end = start;
    for (;; end++) {
        if (end >= p->len) return fail(p, end, "unterminated string");
        unsigned char c = p->s[end];
        if (c == '"') break;
        if (c < 0x20) return fail(p, end, "control character in a string");
        if (c == '\\') {
            if (++end >= p->len) return fail(p, end, "unterminated string");
        }
    }
    unsigned char *o = p->arena ? arena_get(p->arena, end - start + 1) : malloc(end - start + 1);
    if (!o) return fail_nomem(p);
    size_t n = 0;
    for (size_t i = start; i < end;) {
        unsigned char c = p->s[i];
        if (c != '\\') {
            o[n++] = c;
            i++;
            continue;
        }
        unsigned char e = p->s[i + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            o[n++] = (unsigned char)map[simple - "\"\\/bfnrt"];
            i += 2;
            continue;
        }
        if (e != 'u') {
            if (!p->arena) free(o);
            return fail(p, i, "invalid escape in a string");
        }
        long cp = hex4(p, i + 2);
        if (cp < 0 || i + 6 > end) {
            if (!p->arena) free(o);
            return fail(p, i, "invalid \\u escape");
        }
        i += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            if (!p->arena) free(o);
            return fail(p, i - 6, "lone low surrogate in a \\u escape");
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            long lo = (i + 6 <= end && p->s[i] == '\\' && p->s[i + 1] == 'u') ? hex4(p, i + 2) : -1;
            if (lo < 0xDC00 || lo > 0xDFFF) {
                if (!p->arena) free(o);
                return fail(p, i - 6, "lone high surrogate in a \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        }
        n += put_utf8(o + n, (unsigned long)cp);
    }
    o[n] = 0;
    p->pos = end + 1;
    *out = (char *)o;
    *out_len = n;
    return true;
}

/* strtod of the token s[0..n) in the "C" notation, whatever the locale
 * (mio_strtod_c). Not inlined: its buffer would sit in every level of the
 * recursive parse (up to 1000 levels deep). */
static __attribute__((noinline)) double token_strtod(const char *s, size_t n, bool *ok) {
    char small[64], *b = n < sizeof small ? small : malloc(n + 1);
    if (!b) {
        *ok = false;
        return 0;
    }
    memcpy(b, s, n);
    b[n] = 0;
    char *e = NULL;
    double v = mio_strtod_c(b, &e);
    *ok = e == b + n; /* always: the grammar was checked */
    if (b != small) free(b);
    return v;
}

static bool parse_number(parser *p, mio_json *j) {
    const size_t start = p->pos;
    size_t i = start;
    bool neg = false, integer = true;
    if (p->s[i] == '-') neg = true, i++;
    if (i >= p->len || !is_digit(p->s[i])) return fail(p, i, "expected a digit");
    if (p->s[i] == '0') {
        i++;
        if (i < p->len && is_digit(p->s[i])) return fail(p, i, "leading zero in a number");
    } else
        while (i < p->len && is_digit(p->s[i])) i++;
    const size_t int_end = i;
    if (i < p->len && p->s[i] == '.') {
        integer = false;
        if (++i >= p->len || !is_digit(p->s[i])) return fail(p, i, "expected a digit after '.'");
        while (i < p->len && is_digit(p->s[i])) i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        integer = false;
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->len || !is_digit(p->s[i])) return fail(p, i, "expected a digit in the exponent");
        while (i < p->len && is_digit(p->s[i])) i++;
    }
    bool ok;
    j->type = MIO_JSON_NUMBER;
    j->valuedouble = token_strtod((const char *)p->s + start, i - start, &ok);
    if (!ok) return fail_nomem(p);
    j->valueint = saturate_int(j->valuedouble);
    if (!neg && integer) {
        uint64_t v = 0;
        bool fits = true;
        for (size_t k = start; k < int_end && fits; k++) {
            uint64_t d = (uint64_t)(p->s[k] - '0');
            if (v > (UINT64_MAX - d) / 10) fits = false;
            else v = v * 10 + d;
        }
        j->has_u64 = fits;
        j->valueu64 = fits ? v : 0;
    }
    p->pos = i;
    return true;
}

static bool parse_value(parser *p, mio_json *j, int depth);

static bool parse_literal(parser *p, const char *word, mio_json_type t, mio_json *j) {
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return fail(p, p->pos, "invalid literal");
    p->pos += n;
    j->type = t;
    return true;
}

/* an array or an object (p->pos at its bracket) */
static bool parse_container(parser *p, mio_json *j, int depth) {
    const bool obj = p->s[p->pos] == '{';
    const unsigned char close = obj ? '}' : ']';
    if (depth >= MIO_JSON_MAX_DEPTH) return fail(p, p->pos, "nesting deeper than 1000 levels");
    j->type = obj ? MIO_JSON_OBJECT : MIO_JSON_ARRAY;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return true;
    }
    for (;;) {
        mio_json *e = pnode(p);
        if (!e) return fail_nomem(p);
        link_last(j, e); /* freed with j on failure */
        if (obj) {
            skip_ws(p);
            if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of input");
            if (p->s[p->pos] != '"') return fail(p, p->pos, "expected a member name");
            if (!parse_string(p, &e->string, &e->stringlen)) return false;
            skip_ws(p);
            if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of input");
            if (p->s[p->pos] != ':') return fail(p, p->pos, "expected ':'");
            p->pos++;
        }
        if (!parse_value(p, e, depth + 1)) return false;
        skip_ws(p);
        if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of input");
        if (p->s[p->pos] == close) {
            p->pos++;
            return true;
        }
        if (p->s[p->pos] != ',') return fail(p, p->pos, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        p->pos++;
    }
}

static bool parse_value(parser *p, mio_json *j, int depth) {
    skip_ws(p);
    if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of input");
    unsigned char c = p->s[p->pos];
    switch (c) {
    case '{':
    case '[':
        return parse_container(p, j, depth);
    case '"':
        j->type = MIO_JSON_STRING;
        return parse_string(p, &j->valuestring, &j->valuelen);
    case 't':
        return parse_literal(p, "true", MIO_JSON_TRUE, j);
    case 'f':
        return parse_literal(p, "false", MIO_JSON_FALSE, j);
    case 'n':
        return parse_literal(p, "null", MIO_JSON_NULL, j);
    default:
        if (c == '-' || is_digit(c)) return parse_number(p, j);
        return fail(p, p->pos, "unexpected character");
    }
}

static mio_json *parse(const char *text, size_t len, size_t *end, mio_json_error *err, mio_json_arena **arena) {
    if (err) *err = (mio_json_error){0, NULL, false};
    parser p = {(const unsigned char *)text, text ? len : 0, 0, err, arena};
    if (!text) {
        fail(&p, 0, "no input");
        return NULL;
    }
    if (p.len >= 3 && memcmp(p.s, "\xEF\xBB\xBF", 3) == 0) p.pos = 3;
    mio_json *j = pnode(&p);
    if (!j) {
        fail_nomem(&p);
        return NULL;
    }
    bool ok = parse_value(&p, j, 0);
    if (ok && !end) {
        skip_ws(&p);
        if (p.pos < p.len) ok = fail(&p, p.pos, "unexpected text after the value");
    }
    if (!ok) {
        mio_json_free(j);
        return NULL;
    }
    if (end) *end = p.pos;
    return j;
}

mio_json *mio_json_parse(const char *text, size_t len, mio_json_error *err) { return parse(text, len, NULL, err, NULL); }

mio_json *mio_json_parse_arena(const char *text, size_t len, size_t *end, mio_json_error *err, mio_json_arena **arena) {
    *arena = NULL;
    mio_json *j = parse(text, len, end, err, arena);
    if (!j) {
        mio_json_arena_free(*arena);
        *arena = NULL;
    }
    return j;
}
mio_json *mio_json_parse_str(const char *text, mio_json_error *err) {
    return parse(text, text ? strlen(text) : 0, NULL, err, NULL);
}
mio_json *mio_json_parse_prefix(const char *text, size_t len, size_t *end, mio_json_error *err) {
    size_t e = 0;
    mio_json *j = parse(text, len, &e, err, NULL);
    if (end) *end = e;
    return j;
}

/* ---------------------------------------------------------------- printer */

typedef struct outbuf {
    char *p;
    size_t len, cap;
    bool bad;
} outbuf;

static void put(outbuf *o, const char *s, size_t n) {
    if (o->bad || n == 0) return;
    if (n > o->cap - o->len) {
        size_t nc = o->cap ? o->cap : 256;
        while (nc - o->len < n) {
            if (nc > SIZE_MAX / 2) {
                o->bad = true;
                return;
            }
            nc *= 2;
        }
        char *np = realloc(o->p, nc);
        if (!np) {
            o->bad = true;
            return;
        }
        o->p = np, o->cap = nc;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void put_c(outbuf *o, char c) { put(o, &c, 1); }

static void put_tabs(outbuf *o, int n) {
    for (int i = 0; i < n; i++) put_c(o, '\t');
}

static void put_string(outbuf *o, const char *s, size_t n) {
    put_c(o, '"');
    size_t run = 0; /* bytes copied as they are, flushed in one put */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[8];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                snprintf(u, sizeof u, "\\u%04x", c);
                esc = u;
            }
        }
        if (!esc) {
            run++;
            continue;
        }
        put(o, s + i - run, run);
        run = 0;
        put(o, esc, strlen(esc));
    }
    put(o, s + n - run, run);
    put_c(o, '"');
}

static void put_number(outbuf *o, double d) {
    if (d != d || d - d != 0) { /* NaN, infinities */
        put(o, "null", 4);
        return;
    }
    char b[64];
    int n = mio_snprintf_c(b, sizeof b, "%1.15g", d);
    if (mio_strtod_c(b, NULL) != d) n = mio_snprintf_c(b, sizeof b, "%1.17g", d);
    if (n < 0 || (size_t)n >= sizeof b) {
        o->bad = true;
        return;
    }
    put(o, b, (size_t)n);
}

static void print_value(outbuf *o, const mio_json *j, bool fmt, int depth) {
    switch (j->type) {
    case MIO_JSON_NULL: put(o, "null", 4); return;
    case MIO_JSON_FALSE: put(o, "false", 5); return;
    case MIO_JSON_TRUE: put(o, "true", 4); return;
    case MIO_JSON_NUMBER:
        if (j->has_u64 && (double)j->valueu64 == j->valuedouble) { /* a parsed integer: its exact digits */
            char b[24];
            int n = snprintf(b, sizeof b, "%" PRIu64, j->valueu64);
            put(o, b, (size_t)n);
        } else {
            put_number(o, j->valuedouble);
        }
        return;
    case MIO_JSON_STRING:
        if (j->valuestring) put_string(o, j->valuestring, j->valuelen);
        else put(o, "\"\"", 2);
        return;
    case MIO_JSON_RAW:
        if (j->valuestring) put(o, j->valuestring, j->valuelen);
        else o->bad = true;
        return;
    case MIO_JSON_ARRAY:
        put_c(o, '[');
        for (const mio_json *e = j->child; e && !o->bad; e = e->next) {
            print_value(o, e, fmt, depth + 1);
            if (e->next) put(o, ", ", fmt ? 2 : 1);
        }
        put_c(o, ']');
        return;
    case MIO_JSON_OBJECT:
        put_c(o, '{');
        if (fmt) put_c(o, '\n');
        for (const mio_json *m = j->child; m && !o->bad; m = m->next) {
            if (fmt) put_tabs(o, depth + 1);
            if (m->string) put_string(o, m->string, m->stringlen);
            else put(o, "\"\"", 2);
            put(o, ":\t", fmt ? 2 : 1);
            print_value(o, m, fmt, depth + 1);
            if (m->next) put_c(o, ',');
            if (fmt) put_c(o, '\n');
        }
        if (fmt) put_tabs(o, depth);
        put_c(o, '}');
        return;
    default:
        o->bad = true;
        return;
    }
}

char *mio_json_print(const mio_json *j, bool formatted) {
    if (!j) return NULL;
    outbuf o = {0};
    print_value(&o, j, formatted, 0);
    put_c(&o, 0);
    if (o.bad) {
        free(o.p);
        return NULL;
    }
    char *shrunk = realloc(o.p, o.len); /* the exact size; on failure the larger block is as good */
    if (shrunk) o.p = shrunk;
    return o.p;
}
