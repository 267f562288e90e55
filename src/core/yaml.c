/* SPDX-License-Identifier: MIT */
/* yaml.c — the model-card subset of YAML (yaml.h), by lines: each line's
 * indentation and text; block nodes by indentation, inline values (scalars,
 * flow collections, block scalars) from the rest of a line and the lines that
 * continue it. Written here rather than linking libyaml: the library has no
 * third-party dependency (a pip install builds it with a compiler alone), only
 * front matter is read, and PyYAML's type resolution, which decides what the
 * reference does with a value, is Python code that would be ours either way. */
#include "core/yaml.h"

#include "core/sbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct yline {
    const char *raw; /* the line as it is (no line break) */
    size_t rawlen;
    const char *p;   /* the text after the indentation */
    size_t n;
    int indent;      /* leading spaces (or a virtual column for "- " items) */
} yline;

typedef struct yp {
    yline *l;
    size_t nl, i;
    mio_yaml_error *err;
} yp;

static mio_json *fail(yp *y, size_t line, const char *why) {
    if (y->err && !y->err->reason) {
        y->err->line = line;
        y->err->reason = why;
    }
    return NULL;
}
static mio_json *fail_nomem(yp *y) {
    if (y->err && !y->err->reason) {
        y->err->line = y->i < y->nl ? y->i + 1 : y->nl;
        y->err->reason = "out of memory";
        y->err->nomem = true;
    }
    return NULL;
}

static bool is_comment_or_blank(const yline *l) { return l->n == 0 || l->p[0] == '#'; }

/* nothing but spaces (a block scalar's empty line) */
static bool is_spaces(const yline *l) {
    for (size_t c = 0; c < l->rawlen; c++)
        if (l->raw[c] != ' ') return false;
    return true;
}

static void skip_blank(yp *y) {
    while (y->i < y->nl && is_comment_or_blank(&y->l[y->i])) y->i++;
}

static bool is_dash(const char *p, size_t n) { return n >= 1 && p[0] == '-' && (n == 1 || p[1] == ' '); }

/* the end of a plain text before a " #" comment, trailing spaces removed */
static size_t plain_end(const char *p, size_t n) {
    size_t e = 0;
    for (size_t k = 0; k < n; k++) {
        if (p[k] == '#' && (k == 0 || p[k - 1] == ' ' || p[k - 1] == '\t')) break;
        e = k + 1;
    }
    while (e && (p[e - 1] == ' ' || p[e - 1] == '\t')) e--;
    return e;
}

static bool only_comment(const char *p, size_t n) {
    size_t k = 0;
    while (k < n && p[k] == ' ') k++;
    return k == n || p[k] == '#';
}

/* Where a block mapping key ends: the ':' followed by a space or the end of
 * the line, outside quotes; 0 when the line is not a key. */
static size_t key_colon(const char *p, size_t n) {
    size_t k = 0;
    if (n && (p[0] == '"' || p[0] == '\'')) {
        char q = p[0];
        for (k = 1; k < n; k++) {
            if (q == '\'' && p[k] == '\'' && k + 1 < n && p[k + 1] == '\'') {
                k++;
                continue;
            }
            if (q == '"' && p[k] == '\\') {
                k++;
                continue;
            }
            if (p[k] == q) break;
        }
        if (k >= n) return 0;
        k++;
        while (k < n && p[k] == ' ') k++;
        return k < n && p[k] == ':' && (k + 1 == n || p[k + 1] == ' ') ? k : 0;
    }
    if (n && (p[0] == '[' || p[0] == '{' || p[0] == '#' || is_dash(p, n))) return 0;
    for (k = 0; k < n; k++) {
        if (p[k] == '#' && k && p[k - 1] == ' ') return 0;
        if (p[k] == ':' && (k + 1 == n || p[k + 1] == ' ')) return k;
    }
    return 0;
}

/* --------------------------------------------------------------- scalars */

/* The scalar built in b as a node (a quoted or block scalar: a STRING; a plain
 * one: RAW, resolved later); b is emptied. */
static mio_json *take_node(yp *y, sbuf *b, bool plain) {
    mio_json *j = NULL;
    if (!b->oom) j = plain ? mio_json_new_raw(b->p ? b->p : "") : mio_json_new_string_n(b->p ? b->p : "", b->n);
    free(b->p);
    b->p = NULL;
    return j ? j : fail_nomem(y);
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void put_utf8(sbuf *b, uint32_t cp) {
    char o[4];
    size_t n;
    if (cp < 0x80) o[0] = (char)cp, n = 1;
    else if (cp < 0x800) o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F)), o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        o[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    sb_put(b, o, n);
}

/* A quoted scalar starting at text[0] (the quote), which may go on over the
 * following lines (folded: a line break is a space, an empty line a newline).
 * *used: bytes of the last line consumed (the caller checks what follows). */
static mio_json *quoted(yp *y, const char *text, size_t n, const char **rest, size_t *rest_n) {
    char q = text[0];
    sbuf b = {0};
    size_t k = 1;
    size_t line = y->i;
    int blank_run = 0;
    for (;;) {
        if (k >= n) { /* the scalar goes on: fold into the next line */
            while (b.n && (b.p[b.n - 1] == ' ' || b.p[b.n - 1] == '\t')) b.p[--b.n] = 0;
            if (++y->i >= y->nl) {
                free(b.p);
                return fail(y, line + 1, "unterminated quoted scalar");
            }
            text = y->l[y->i].p;
            n = y->l[y->i].n;
            k = 0;
            if (n == 0) {
                sb_chr(&b, '\n');
                blank_run++;
                continue;
            }
            if (!blank_run) sb_chr(&b, ' ');
            blank_run = 0;
        }
        char c = text[k];
        if (c == q) {
            if (q == '\'' && k + 1 < n && text[k + 1] == '\'') {
                sb_chr(&b, '\'');
                k += 2;
                continue;
            }
            k++;
            break;
        }
        if (q == '"' && c == '\\') {
            if (k + 1 >= n) { /* an escaped line break: the lines join without a space */
                if (++y->i >= y->nl) {
                    free(b.p);
                    return fail(y, line + 1, "unterminated quoted scalar");
                }
                text = y->l[y->i].p;
                n = y->l[y->i].n;
                k = 0;
                continue;
            }
            char e = text[k + 1];
            static const char from[] = "0abtnvfre \"/\\N_LP", to[] = "\0\a\b\t\n\v\f\r\x1b \"/\\";
            const char *hit = e ? strchr(from, e) : NULL;
            if (hit && hit - from < 13) {
                sb_chr(&b, to[hit - from]);
                k += 2;
                continue;
            }
            if (e == 'N') { put_utf8(&b, 0x85); k += 2; continue; }
            if (e == '_') { put_utf8(&b, 0xA0); k += 2; continue; }
            if (e == 'L') { put_utf8(&b, 0x2028); k += 2; continue; }
            if (e == 'P') { put_utf8(&b, 0x2029); k += 2; continue; }
            int digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            uint32_t cp = 0;
            bool ok = digits && k + 2 + (size_t)digits <= n;
            for (int d = 0; ok && d < digits; d++) {
                int h = hexval(text[k + 2 + (size_t)d]);
                ok = h >= 0;
                cp = cp * 16 + (uint32_t)(h < 0 ? 0 : h);
            }
            if (!ok || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                free(b.p);
                return fail(y, y->i + 1, "invalid escape in a double-quoted scalar");
            }
            put_utf8(&b, cp);
            k += 2 + (size_t)digits;
            continue;
        }
        sb_chr(&b, c);
        k++;
    }
    *rest = text + k;
    *rest_n = n - k;
    return take_node(y, &b, false);
}

/* A literal (|) or folded (>) block scalar: header in hdr, content the lines
 * after the current one that are blank or indented deeper than parent. */
static mio_json *block_scalar(yp *y, const char *hdr, size_t n, int parent) {
    bool folded = hdr[0] == '>';
    int chomp = 0; /* -1 strip, 0 clip, 1 keep */
    int explicit_ind = 0;
    size_t k = 1, line = y->i;
    for (; k < n && k < 3; k++) {
        if (hdr[k] == '-' && !chomp) chomp = -1;
        else if (hdr[k] == '+' && !chomp) chomp = 1;
        else if (hdr[k] >= '1' && hdr[k] <= '9' && !explicit_ind) explicit_ind = hdr[k] - '0';
        else break;
    }
    if (!only_comment(hdr + k, n - k)) return fail(y, line + 1, "text after a block scalar indicator");
    y->i++;
    int ind = explicit_ind ? (parent < 0 ? 0 : parent) + explicit_ind : -1;
    size_t first = y->i, last = y->i; /* content lines [first, last) */
    for (size_t j = y->i; j < y->nl; j++) {
        const yline *L = &y->l[j];
        if (is_spaces(L)) continue;
        if (ind < 0) {
            if (L->indent <= parent) break;
            ind = L->indent;
        }
        if (L->indent < ind) break;
        last = j + 1;
    }
    sbuf b = {0};
    size_t trailing = 0; /* line breaks after the last text line */
    bool prev_text = false, prev_more = false;
    for (size_t j = first; j < last; j++) {
        const yline *L = &y->l[j];
        if (is_spaces(L)) {
            trailing++;
            continue;
        }
        const char *t = L->raw + ind;
        size_t tn = L->rawlen - (size_t)ind;
        bool more = t[0] == ' ' || t[0] == '\t';
        if (!folded) {
            for (size_t r = 0; r < trailing; r++) sb_chr(&b, '\n');
            if (prev_text) sb_chr(&b, '\n');
        } else if (prev_text) {
            /* folding: a line break between two lines is a space, or nothing
             * when empty lines follow it (each of them is a newline); around a
             * more indented line the break is kept */
            if (more || prev_more) sb_chr(&b, '\n');
            if (trailing == 0 && !more && !prev_more) sb_chr(&b, ' ');
            for (size_t r = 0; r < trailing; r++) sb_chr(&b, '\n');
        } else {
            for (size_t r = 0; r < trailing; r++) sb_chr(&b, '\n');
        }
        sb_put(&b, t, tn);
        trailing = 0;
        prev_text = true;
        prev_more = more;
    }
    /* the blank lines after the content belong to it (kept by "+") */
    for (size_t j = last; j < y->nl; j++) {
        const yline *L = &y->l[j];
        if (!is_spaces(L)) break;
        trailing++;
        last = j + 1;
    }
    if (prev_text) {
        if (chomp == 0) sb_chr(&b, '\n');
        else if (chomp == 1) for (size_t r = 0; r <= trailing; r++) sb_chr(&b, '\n');
    } else if (chomp == 1) {
        for (size_t r = 0; r < trailing; r++) sb_chr(&b, '\n');
    }
    y->i = last;
    return take_node(y, &b, false);
}

/* ------------------------------------------------------------ flow nodes */

typedef struct fp {
    const char *s;
    size_t n, k;
} fp;

static void fskip(fp *f) {
    while (f->k < f->n && (f->s[f->k] == ' ' || f->s[f->k] == '\t' || f->s[f->k] == '\n')) f->k++;
}

static mio_json *flow_node(yp *y, fp *f, int depth, size_t line);

static mio_json *flow_scalar(yp *y, fp *f, bool key, size_t line) {
    if (f->s[f->k] == '"' || f->s[f->k] == '\'') {
        /* a quoted scalar inside the joined flow text: no line breaks left */
        yp sub = {NULL, 0, 0, y->err};
        const char *rest;
        size_t rn;
        mio_json *j = quoted(&sub, f->s + f->k, f->n - f->k, &rest, &rn);
        if (!j) {
            if (y->err) y->err->line = line;
            return NULL;
        }
        f->k = (size_t)(rest - f->s);
        return j;
    }
    size_t a = f->k;
    while (f->k < f->n) {
        char c = f->s[f->k];
        if (c == ',' || c == ']' || c == '}') break;
        if (c == ':' && (f->k + 1 == f->n || f->s[f->k + 1] == ' ' || (key && f->s[f->k + 1] == ','))) break;
        if (c == '#' && f->k > a && f->s[f->k - 1] == ' ') return fail(y, line, "a comment inside a flow collection");
        f->k++;
    }
    size_t e = f->k;
    while (e > a && (f->s[e - 1] == ' ' || f->s[e - 1] == '\n')) e--;
    char *t = malloc(e - a + 1);
    if (!t) return fail_nomem(y);
    memcpy(t, f->s + a, e - a);
    t[e - a] = 0;
    for (size_t k = 0; k < e - a; k++)
        if (t[k] == '\n') t[k] = ' ';
    mio_json *j = mio_json_new_raw(t);
    free(t);
    return j ? j : fail_nomem(y);
}

static mio_json *flow_node(yp *y, fp *f, int depth, size_t line) {
    fskip(f);
    if (f->k >= f->n) return fail(y, line, "unterminated flow collection");
    if (depth > MIO_YAML_MAX_DEPTH) return fail(y, line, "nesting deeper than 64 levels");
    char c = f->s[f->k];
    if (c == '&' || c == '*' || c == '!') return fail(y, line, "anchors, aliases and tags are not read");
    if (c != '[' && c != '{') return flow_scalar(y, f, false, line);
    bool obj = c == '{';
    mio_json *j = obj ? mio_json_new_object() : mio_json_new_array();
    if (!j) return fail_nomem(y);
    f->k++;
    for (;;) {
        fskip(f);
        if (f->k >= f->n) {
            mio_json_free(j);
            return fail(y, line, "unterminated flow collection");
        }
        if (f->s[f->k] == (obj ? '}' : ']')) {
            f->k++;
            return j;
        }
        mio_json *key = NULL, *val;
        if (obj) {
            if (!(key = flow_scalar(y, f, true, line))) {
                mio_json_free(j);
                return NULL;
            }
            fskip(f);
            if (f->k < f->n && f->s[f->k] == ':') {
                f->k++;
                fskip(f);
                val = f->k < f->n && (f->s[f->k] == ',' || f->s[f->k] == '}') ? mio_json_new_raw("") : flow_node(y, f, depth + 1, line);
            } else {
                val = mio_json_new_raw("");
            }
        } else {
            val = flow_node(y, f, depth + 1, line);
        }
        bool ok = val != NULL;
        if (ok && obj) {
            const char *ks = key->valuestring ? key->valuestring : "";
            if (mio_json_get(j, ks)) ok = mio_json_replace(j, ks, val);
            else ok = mio_json_add(j, ks, val);
            if (!ok) mio_json_free(val), fail_nomem(y);
        } else if (ok) {
            ok = mio_json_append(j, val);
            if (!ok) mio_json_free(val), fail_nomem(y);
        }
        mio_json_free(key);
        if (!ok) {
            mio_json_free(j);
            return NULL;
        }
        fskip(f);
        if (f->k < f->n && f->s[f->k] == ',') f->k++;
        else if (!(f->k < f->n && f->s[f->k] == (obj ? '}' : ']'))) {
            mio_json_free(j);
            return fail(y, line, obj ? "expected ',' or '}' in a flow mapping" : "expected ',' or ']' in a flow sequence");
        }
    }
}

/* A flow collection starting in text (the rest of the current line), going on
 * over the lines after it until its brackets close. */
static mio_json *flow(yp *y, const char *text, size_t n, int depth) {
    size_t line = y->i + 1;
    sbuf b = {0};
    sb_put(&b, text, n);
    for (;;) {
        int lvl = 0;
        char q = 0;
        for (size_t k = 0; k < b.n; k++) {
            char c = b.p[k];
            if (q) {
                if (c == q) q = 0;
                else if (q == '"' && c == '\\') k++;
            } else if (c == '"' || c == '\'') {
                q = c;
            } else if (c == '[' || c == '{') {
                lvl++;
            } else if (c == ']' || c == '}') {
                lvl--;
            } else if (c == '#' && k && (b.p[k - 1] == ' ' || b.p[k - 1] == '\n') && lvl > 0) {
                /* a comment to the end of the line: drop it */
                size_t e = k;
                while (e < b.n && b.p[e] != '\n') e++;
                memmove(b.p + k, b.p + e, b.n - e + 1);
                b.n -= e - k;
                k--;
            }
        }
        if (lvl <= 0 || b.oom) break;
        if (++y->i >= y->nl) {
            free(b.p);
            return fail(y, line, "unterminated flow collection");
        }
        sb_chr(&b, '\n');
        sb_put(&b, y->l[y->i].p, y->l[y->i].n);
    }
    if (b.oom) {
        free(b.p);
        return fail_nomem(y);
    }
    fp f = {b.p, b.n, 0};
    mio_json *j = flow_node(y, &f, depth, line);
    if (j) {
        fskip(&f);
        if (f.k < f.n && f.s[f.k] != '#') {
            mio_json_free(j);
            j = fail(y, line, "text after a flow collection");
        }
    }
    free(b.p);
    y->i++;
    return j;
}

/* ----------------------------------------------------------- block nodes */

static mio_json *block(yp *y, int depth);

/* A value that starts on the current line at text (after "key:" or "- "),
 * in a node indented at parent. Consumes its lines. */
static mio_json *inline_value(yp *y, const char *text, size_t n, int parent, int depth) {
    size_t line = y->i + 1;
    if (depth > MIO_YAML_MAX_DEPTH) return fail(y, line, "nesting deeper than 64 levels");
    char c = text[0];
    if (c == '&' || c == '*' || c == '!') return fail(y, line, "anchors, aliases and tags are not read");
    if (c == '?' && (n == 1 || text[1] == ' ')) return fail(y, line, "complex mapping keys are not read");
    if (c == '@' || c == '`') return fail(y, line, "a plain scalar cannot start with a reserved character");
    if (c == '|' || c == '>') return block_scalar(y, text, n, parent);
    if (c == '[' || c == '{') return flow(y, text, n, depth);
    if (c == '"' || c == '\'') {
        const char *rest;
        size_t rn;
        mio_json *j = quoted(y, text, n, &rest, &rn);
        if (!j) return NULL;
        if (!only_comment(rest, rn)) {
            mio_json_free(j);
            return fail(y, y->i + 1, "text after a quoted scalar");
        }
        y->i++;
        return j;
    }
    /* plain: this line, then the more indented lines that continue it */
    size_t e = plain_end(text, n);
    for (size_t k = 0; k + 1 < e; k++)
        if (text[k] == ':' && text[k + 1] == ' ') return fail(y, line, "mapping values are not allowed here");
    sbuf b = {0};
    sb_put(&b, text, e);
    y->i++;
    while (y->i < y->nl) {
        const yline *L = &y->l[y->i];
        if (L->n == 0 || L->indent <= parent || L->p[0] == '#') break;
        size_t le = plain_end(L->p, L->n);
        if (key_colon(L->p, L->n) || is_dash(L->p, L->n)) break;
        sb_chr(&b, ' ');
        sb_put(&b, L->p, le);
        y->i++;
    }
    return take_node(y, &b, true);
}

static mio_json *sequence(yp *y, int ind, int depth) {
    mio_json *arr = mio_json_new_array();
    if (!arr) return fail_nomem(y);
    for (;;) {
        skip_blank(y);
        if (y->i >= y->nl) break;
        yline *L = &y->l[y->i];
        if (L->indent < ind || (L->indent == ind && !is_dash(L->p, L->n))) break; /* the parent goes on */
        if (L->indent > ind) {
            mio_json_free(arr);
            return fail(y, y->i + 1, "unexpected indentation in a sequence");
        }
        size_t k = 1;
        while (k < L->n && L->p[k] == ' ') k++;
        mio_json *item;
        if (only_comment(L->p + k, L->n - k)) {
            y->i++;
            skip_blank(y);
            if (y->i < y->nl && y->l[y->i].indent > ind) item = block(y, depth + 1);
            else item = mio_json_new_raw("");
        } else {
            /* "- rest": rest is a node at column ind + k (a mapping's first key, a scalar, "- " again) */
            L->indent = ind + (int)k;
            L->p += k;
            L->n -= k;
            item = block(y, depth + 1);
        }
        if (!item) {
            mio_json_free(arr);
            return NULL;
        }
        if (!mio_json_append(arr, item)) {
            mio_json_free(item);
            mio_json_free(arr);
            return fail_nomem(y);
        }
    }
    return arr;
}

static mio_json *mapping(yp *y, int ind, int depth) {
    mio_json *obj = mio_json_new_object();
    if (!obj) return fail_nomem(y);
    for (;;) {
        skip_blank(y);
        if (y->i >= y->nl) break;
        yline *L = &y->l[y->i];
        if (L->indent < ind) break;
        size_t colon = L->indent == ind ? key_colon(L->p, L->n) : 0;
        if (!colon) {
            mio_json_free(obj);
            return fail(y, y->i + 1, L->indent > ind ? "unexpected indentation in a mapping" : "a mapping key expected");
        }
        mio_json *key;
        if (L->p[0] == '"' || L->p[0] == '\'') {
            const char *rest;
            size_t rn;
            size_t at = y->i;
            key = quoted(y, L->p, colon, &rest, &rn);
            if (key && y->i != at) {
                mio_json_free(key);
                key = fail(y, at + 1, "a quoted key over several lines");
            }
        } else {
            size_t e = colon;
            while (e && L->p[e - 1] == ' ') e--;
            char *t = malloc(e + 1);
            if (t) {
                memcpy(t, L->p, e);
                t[e] = 0;
            }
            key = t ? mio_json_new_raw(t) : NULL;
            free(t);
            if (!key) fail_nomem(y);
        }
        if (!key) {
            mio_json_free(obj);
            return NULL;
        }
        size_t k = colon + 1;
        while (k < L->n && L->p[k] == ' ') k++;
        mio_json *val;
        if (only_comment(L->p + k, L->n - k)) {
            y->i++;
            skip_blank(y);
            if (y->i < y->nl && (y->l[y->i].indent > ind || (y->l[y->i].indent == ind && is_dash(y->l[y->i].p, y->l[y->i].n))))
                val = y->l[y->i].indent == ind ? sequence(y, ind, depth + 1) : block(y, depth + 1);
            else
                val = mio_json_new_raw("");
        } else {
            val = inline_value(y, L->p + k, L->n - k, ind, depth + 1);
        }
        bool ok = val != NULL;
        if (ok) {
            const char *ks = key->valuestring ? key->valuestring : "";
            ok = mio_json_get(obj, ks) ? mio_json_replace(obj, ks, val) : mio_json_add(obj, ks, val);
            if (!ok) {
                mio_json_free(val);
                fail_nomem(y);
            }
        }
        mio_json_free(key);
        if (!ok) {
            mio_json_free(obj);
            return NULL;
        }
    }
    return obj;
}

/* The node at the current line (its indentation is the node's). */
static mio_json *block(yp *y, int depth) {
    skip_blank(y);
    if (y->i >= y->nl) return mio_json_new_raw("");
    if (depth > MIO_YAML_MAX_DEPTH) return fail(y, y->i + 1, "nesting deeper than 64 levels");
    yline *L = &y->l[y->i];
    if (is_dash(L->p, L->n)) return sequence(y, L->indent, depth);
    if (key_colon(L->p, L->n)) return mapping(y, L->indent, depth);
    return inline_value(y, L->p, L->n, L->indent - 1, depth);
}

mio_json *mio_yaml_parse(const char *text, size_t len, mio_yaml_error *err) {
    if (err) *err = (mio_yaml_error){0, NULL, false};
    yp y = {NULL, 0, 0, err};
    if (!text) return fail(&y, 0, "no input");
    if (len > MIO_YAML_MAX_BYTES) return fail(&y, 0, "more than 1 MiB of YAML");
    size_t nl = 1;
    for (size_t k = 0; k < len; k++) nl += text[k] == '\n';
    y.l = calloc(nl, sizeof *y.l);
    if (!y.l) return fail_nomem(&y);
    for (size_t a = 0; a <= len && y.nl < nl;) {
        size_t e = a;
        while (e < len && text[e] != '\n') e++;
        size_t n = e - a;
        if (n && text[a + n - 1] == '\r') n--;
        yline *L = &y.l[y.nl++];
        L->raw = text + a;
        L->rawlen = n;
        size_t k = 0;
        while (k < n && text[a + k] == ' ') k++;
        L->indent = (int)k;
        L->p = text + a + k;
        L->n = n - k;
        if (k < n && text[a + k] == '\t' && (k + 1 < n) && !only_comment(text + a + k, n - k)) {
            y.i = y.nl - 1;
            free(y.l);
            return fail(&y, y.nl, "a tab in the indentation");
        }
        if (L->n >= 3 && L->indent == 0 && (memcmp(L->p, "---", 3) == 0 || memcmp(L->p, "...", 3) == 0) &&
            (L->n == 3 || L->p[3] == ' ')) {
            free(y.l);
            return fail(&y, y.nl, "several documents");
        }
        if (L->indent == 0 && L->n && L->p[0] == '%') {
            free(y.l);
            return fail(&y, y.nl, "directives are not read");
        }
        a = e + 1;
    }
    mio_json *j = block(&y, 0);
    if (j) {
        skip_blank(&y);
        if (y.i < y.nl) {
            mio_json_free(j);
            j = fail(&y, y.i + 1, "text after the document");
        }
    }
    free(y.l);
    return j;
}

/* ------------------------------------------------------------ resolution */

static bool all_of(const char *s, const char *set) {
    if (!*s) return false;
    for (; *s; s++)
        if (!strchr(set, *s)) return false;
    return true;
}

static bool one_of(const char *s, const char *const *words) {
    for (; *words; words++)
        if (strcmp(s, *words) == 0) return true;
    return false;
}

/* PyYAML's float: [-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?, sexagesimal, .inf, .nan */
static bool is_float(const char *s, bool *zero) {
    static const char *const special[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                                          ".nan", ".NaN", ".NAN", NULL};
    *zero = false;
    if (one_of(s, special)) return true;
    const char *p = s;
    if (*p == '-' || *p == '+') p++;
    const char *d = p;
    bool nz = false, colon = false;
    while ((*p >= '0' && *p <= '9') || *p == '_' || *p == ':') {
        if (*p == ':') colon = true;
        if (*p >= '1' && *p <= '9') nz = true;
        p++;
    }
    if (colon && (d == p || *d == ':')) return false;
    if (*p != '.') return false;
    if (d == p && !(p[1] >= '0' && p[1] <= '9')) return false; /* ".5" needs a digit after the dot */
    p++;
    while ((*p >= '0' && *p <= '9') || *p == '_') {
        if (*p >= '1' && *p <= '9') nz = true;
        p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p != '-' && *p != '+') return false;
        p++;
        if (!(*p >= '0' && *p <= '9')) return false;
        while (*p >= '0' && *p <= '9') p++;
    }
    *zero = !nz;
    return *p == 0;
}

static bool is_int(const char *s, bool *zero) {
    const char *p = s;
    *zero = false;
    if (*p == '-' || *p == '+') p++;
    if (!*p) return false;
    bool nz = false;
    if (p[0] == '0' && p[1] == 'b') {
        for (const char *q = p + 2; *q; q++) nz |= *q == '1';
        *zero = !nz;
        return all_of(p + 2, "01_");
    }
    if (p[0] == '0' && p[1] == 'x') {
        for (const char *q = p + 2; *q; q++) nz |= *q != '0' && *q != '_';
        *zero = !nz;
        return all_of(p + 2, "0123456789abcdefABCDEF_");
    }
    if (p[0] == '0' && p[1]) {
        for (const char *q = p + 1; *q; q++) nz |= *q != '0' && *q != '_';
        *zero = !nz;
        return all_of(p + 1, "01234567_");
    }
    if (p[0] == '0') {
        *zero = true;
        return true;
    }
    if (!(p[0] >= '1' && p[0] <= '9')) return false;
    /* decimal, or sexagesimal 1:30 */
    for (const char *q = p; *q; q++)
        if (!((*q >= '0' && *q <= '9') || *q == '_' || *q == ':')) return false;
    return p[strlen(p) - 1] != ':';
}

static bool is_date(const char *s) {
    /* YYYY-MM-DD or YYYY-M-D, then optional time: the start is enough to tell */
    for (int k = 0; k < 4; k++)
        if (!(s[k] >= '0' && s[k] <= '9')) return false;
    if (s[4] != '-' || !(s[5] >= '0' && s[5] <= '9')) return false;
    const char *p = s + 6;
    if (*p >= '0' && *p <= '9') p++;
    if (*p != '-' || !(p[1] >= '0' && p[1] <= '9')) return false;
    p += 2;
    if (*p >= '0' && *p <= '9') p++;
    return *p == 0 || *p == 'T' || *p == 't' || *p == ' ';
}

mio_yaml_kind mio_yaml_plain_kind(const char *s) {
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
    static const char *const falses[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
    if (!s || one_of(s, nulls)) return MIO_YAML_NULL;
    if (one_of(s, trues)) return MIO_YAML_TRUE;
    if (one_of(s, falses)) return MIO_YAML_FALSE;
    bool zero = false;
    if (is_int(s, &zero)) return zero ? MIO_YAML_ZERO : MIO_YAML_INT;
    if (is_float(s, &zero)) return zero ? MIO_YAML_ZERO : MIO_YAML_FLOAT;
    if (is_date(s)) return MIO_YAML_DATE;
    return MIO_YAML_STR;
}
