/* SPDX-License-Identifier: MIT */
/* meta.c — the general.* keys convert_hf_to_gguf.py writes (gguf-py's
 * Metadata.load heuristics + set_gguf_meta_model, conversion/base.py's name and
 * size-label fallbacks) and gguf.naming_convention's default file name.
 * Invariants: every string is handled as bytes with Python's str semantics
 * reproduced for ASCII (docs/HF_CONVERT_META.md lists the non-ASCII and model
 * card differences); every heap string is NUL-terminated and owned by exactly
 * one field; nothing is written to the writer before every value is checked. */
#include "hf/hf_internal.h"

#include "core/core.h"
#include "core/sbuf.h"
#include "core/yaml.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Strings from files above this are refused (no model id comes near it). */
#define META_MAX_STR ((size_t)1 << 20)
/* generation_config.json above this is refused. */
#define META_MAX_GENCONFIG ((size_t)16 << 20)

static char *dup_n(const char *s, size_t n) {
    char *r = malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

/* ------------------------------------------------- Python str predicates */

static bool a_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool a_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static bool a_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static bool a_alpha(unsigned char c) { return a_upper(c) || a_lower(c); }
static char a_tolower(char c) { return a_upper((unsigned char)c) ? (char)(c + 32) : c; }
static char a_toupper(char c) { return a_lower((unsigned char)c) ? (char)(c - 32) : c; }
static bool a_word(unsigned char c) { return a_alpha(c) || a_digit(c) || c == '_'; }

/* Length of the Python whitespace character (str.isspace) at s[i..n), 0 if none:
 * \t\n\v\f\r, \x1c-\x1f, space, U+0085, U+00A0, U+1680, U+2000-U+200A,
 * U+2028, U+2029, U+202F, U+205F, U+3000 (UTF-8). */
static size_t py_space(const char *s, size_t n, size_t i) {
    const unsigned char *u = (const unsigned char *)s + i;
    size_t left = n - i;
    if (left == 0) return 0;
    if ((u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x20)) return 1;
    if (left >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0)) return 2;
    if (left >= 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80) return 3;
    if (left >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
        return 3;
    if (left >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f) return 3;
    if (left >= 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80) return 3;
    return 0;
}

/* One character for the case predicates: its byte length and its class.
 * ASCII exactly; Latin-1 letters U+00C0-U+00FE (C3 80-BE) with their case
 * pairs; other non-ASCII code points count as lower-case letters without a
 * case mapping (an approximation: docs/HF_CONVERT_META.md). */
enum { CH_UNCASED, CH_LOWER, CH_UPPER };
typedef struct pych {
    size_t len;
    int cls;
    bool alpha;
} pych;

static size_t utf8_len(const unsigned char *u, size_t left) {
    size_t l = u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc2 && u[0] < 0xe0 ? 2 : 1;
    if (u[0] >= 0xf5 || l > left) return 1;
    for (size_t k = 1; k < l; k++)
        if ((u[k] & 0xc0) != 0x80) return 1;
    return l;
}

static pych py_char(const char *s, size_t n, size_t i) {
    const unsigned char *u = (const unsigned char *)s + i;
    pych c = {1, CH_UNCASED, false};
    if (u[0] < 0x80) {
        c.cls = a_upper(u[0]) ? CH_UPPER : a_lower(u[0]) ? CH_LOWER : CH_UNCASED;
        c.alpha = a_alpha(u[0]);
        return c;
    }
    c.len = utf8_len(u, n - i);
    if (c.len == 1) return c; /* stray byte: uncased, not a letter */
    if (u[0] == 0xc2) {       /* U+0080-U+00BF: symbols, but ª µ º are lower-case letters */
        if (u[1] == 0xaa || u[1] == 0xb5 || u[1] == 0xba) { c.cls = CH_LOWER; c.alpha = true; }
        return c;
    }
    if (u[0] == 0xc3) {       /* U+00C0-U+00FF */
        if (u[1] == 0x97 || u[1] == 0xb7) return c; /* × ÷ */
        c.alpha = true;
        c.cls = u[1] <= 0x9e ? CH_UPPER : CH_LOWER;
        return c;
    }
    c.cls = CH_LOWER;
    c.alpha = true;
    return c;
}

/* Append s[i..i+c.len) upper- or lower-cased (ASCII and the Latin-1 pairs). */
static void put_cased(sbuf *b, const char *s, size_t i, pych c, bool upper) {
    const unsigned char *u = (const unsigned char *)s + i;
    if (c.len == 1) { sb_chr(b, upper ? a_toupper(s[i]) : a_tolower(s[i])); return; }
    if (c.len == 2 && u[0] == 0xc3 && u[1] != 0x97 && u[1] != 0xb7 && u[1] != 0x9f && u[1] != 0xbf) {
        char t[2] = {(char)0xc3, (char)u[1]};
        if (upper && u[1] >= 0xa0) t[1] = (char)(u[1] - 0x20);
        if (!upper && u[1] <= 0x9e) t[1] = (char)(u[1] + 0x20);
        sb_put(b, t, 2);
        return;
    }
    sb_put(b, s + i, c.len);
}

/* str.islower(): at least one cased character, none upper-case. */
static bool py_islower(const char *s, size_t n) {
    bool cased = false;
    for (size_t i = 0; i < n;) {
        pych c = py_char(s, n, i);
        if (c.cls == CH_UPPER) return false;
        if (c.cls == CH_LOWER) cased = true;
        i += c.len;
    }
    return cased;
}

/* str.title(): a cased character after a cased one is lowered, others raised. */
static void py_title(sbuf *b, const char *s, size_t n) {
    bool prev = false;
    for (size_t i = 0; i < n;) {
        pych c = py_char(s, n, i);
        if (c.cls == CH_UNCASED) sb_put(b, s + i, c.len);
        else put_cased(b, s, i, c, !prev);
        prev = c.cls != CH_UNCASED;
        i += c.len;
    }
}

/* str.strip() bounds. */
static void py_strip(const char *s, size_t *lo, size_t *hi) {
    size_t a = *lo, z = *hi, k, end = a;
    while (a < z && (k = py_space(s, z, a)) > 0) a += k;
    /* trailing whitespace: forwards to the end of the last other character
     * (UTF-8 cannot be walked backwards safely through stray bytes) */
    for (size_t i = a; i < z;) {
        size_t sp = py_space(s, z, i);
        if (sp) { i += sp; continue; }
        i += py_char(s, z, i).len;
        end = i;
    }
    *lo = a;
    *hi = end > a ? end : a;
}

/* --------------------------------------------- Metadata.id_to_title */

/* A word id_to_title leaves alone: ^(v\d+(?:\.\d+)*|\d.*)$ */
static bool title_exempt(const char *w, size_t n) {
    if (n > 0 && a_digit((unsigned char)w[0])) return true;
    if (n < 2 || w[0] != 'v') return false;
    size_t i = 1;
    for (;;) {
        size_t d = i;
        while (i < n && a_digit((unsigned char)w[i])) i++;
        if (i == d) return false;
        if (i == n) return true;
        if (w[i] != '.') return false;
        i++;
    }
}

/* ' '.join(w.title() if w.islower() and not exempt else w
 *          for w in s.strip().replace('-', ' ').split()) */
static char *id_to_title(const char *s) {
    size_t n = strlen(s);
    sbuf b = {0};
    bool first = true;
    for (size_t i = 0; i < n;) {
        size_t sp = s[i] == '-' ? 1 : py_space(s, n, i);
        if (sp) { i += sp; continue; }
        size_t start = i;
        while (i < n && s[i] != '-' && !py_space(s, n, i)) i += py_char(s, n, i).len;
        if (!first) sb_chr(&b, ' ');
        first = false;
        if (py_islower(s + start, i - start) && !title_exempt(s + start, i - start)) py_title(&b, s + start, i - start);
        else sb_put(&b, s + start, i - start);
    }
    return sb_take(&b);
}

/* ------------------------------- Metadata.get_model_id_components */

enum { T_BASENAME = 1, T_SIZE = 2, T_FINETUNE = 4, T_VERSION = 8, T_TYPE = 16 };

typedef struct name_part {
    char *s; /* NUL-terminated, may be rewritten (normalised size labels) */
    unsigned t;
} name_part;

typedef struct id_comps {
    char *full, *org, *basename, *finetune, *version, *size_label; /* NULL: Python's None */
} id_comps;

static void comps_free(id_comps *c) {
    free(c->full);
    free(c->org);
    free(c->basename);
    free(c->finetune);
    free(c->version);
    free(c->size_label);
    memset(c, 0, sizeof *c);
}

static bool ieq(const char *a, const char *lit) {
    for (; *a && *lit; a++, lit++)
        if (a_tolower(*a) != *lit) return false;
    return !*a && !*lit;
}

/* (v|iter)?\d+([.]\d+)*, case-insensitive */
static bool re_version(const char *p) {
    size_t n = strlen(p), i = 0;
    if (n >= 1 && (p[0] == 'v' || p[0] == 'V')) i = 1;
    else if (n >= 4 && a_tolower(p[0]) == 'i' && a_tolower(p[1]) == 't' && a_tolower(p[2]) == 'e' &&
             a_tolower(p[3]) == 'r')
        i = 4;
    for (;;) {
        size_t d = i;
        while (i < n && a_digit((unsigned char)p[i])) i++;
        if (i == d) return false;
        if (i == n) return true;
        if (p[i] != '.') return false;
        i++;
    }
}

/* i?q\d(_\w)*|b?fp?(16|32), case-insensitive, \w ASCII */
static bool re_quant_type(const char *p) {
    size_t n = strlen(p), i = 0;
    if (i < n && a_tolower(p[i]) == 'i') i++;
    if (i < n && a_tolower(p[i]) == 'q' && i + 1 < n && a_digit((unsigned char)p[i + 1])) {
        size_t j = i + 2;
        while (j + 1 < n && p[j] == '_' && a_word((unsigned char)p[j + 1])) j += 2;
        if (j == n) return true;
    }
    i = 0;
    if (i < n && a_tolower(p[i]) == 'b') i++;
    if (i >= n || a_tolower(p[i]) != 'f') return false;
    i++;
    if (i < n && a_tolower(p[i]) == 'p') i++;
    return n - i == 2 && ((p[i] == '1' && p[i + 1] == '6') || (p[i] == '3' && p[i + 1] == '2'));
}

/* \d+([._]\d+)?[KMBT]\d?$ from p */
static bool re_size_tail(const char *p) {
    size_t i = 0;
    while (a_digit((unsigned char)p[i])) i++;
    if (i == 0) return false;
    if ((p[i] == '.' || p[i] == '_') && a_digit((unsigned char)p[i + 1])) {
        i++;
        while (a_digit((unsigned char)p[i])) i++;
    }
    char c = a_tolower(p[i]);
    if (c != 'k' && c != 'm' && c != 'b' && c != 't') return false;
    i++;
    if (a_digit((unsigned char)p[i])) i++;
    return p[i] == 0;
}

/* (([A]|\d+[x])?\d+([._]\d+)?[KMBT][\d]?|small|mini|medium|large|x?xl), case-insensitive */
static bool re_size(const char *p) {
    if (ieq(p, "small") || ieq(p, "mini") || ieq(p, "medium") || ieq(p, "large") || ieq(p, "xl") || ieq(p, "xxl"))
        return true;
    if (re_size_tail(p)) return true;
    if (a_tolower(p[0]) == 'a' && re_size_tail(p + 1)) return true;
    size_t i = 0;
    while (a_digit((unsigned char)p[i])) i++;
    return i > 0 && a_tolower(p[i]) == 'x' && re_size_tail(p + i + 1);
}

/* Exact three-way comparison of a double with an integer (Python compares
 * float and int without rounding). */
static int cmp_double_int(double d, int64_t v) {
    double dv = (double)v;
    if (d < dv) return -1;
    if (d > dv) return 1;
    /* d == (double)v: d is an integer within the int64 range or exactly 2^63 */
    if (d >= 9223372036854775808.0) return 1;
    int64_t di = (int64_t)d;
    return di < v ? -1 : di > v;
}

/* float(s) for what a normalised size label can hold before its suffix:
 * digits with at most one '.', at least one digit. Parsed as an integer
 * mantissa and a decimal exponent (no decimal point, so locale-independent; strtod rounds
 * correctly, as Python's float() does). false: Python raises ValueError. */
static bool size_float(const char *s, size_t n, double *out) {
    size_t digits = 0, dots = 0, frac = 0;
    for (size_t i = 0; i < n; i++) {
        if (a_digit((unsigned char)s[i])) { digits++; if (dots) frac++; }
        else if (s[i] == '.') dots++;
        else return false;
    }
    if (digits == 0 || dots > 1) return false;
    char *buf = malloc(digits + 32);
    if (!buf) return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '.') buf[k++] = s[i];
    snprintf(buf + k, 32, "e-%zu", frac);
    *out = strtod(buf, NULL);
    free(buf);
    return true;
}

static char *join_parts(const name_part *p, size_t n, unsigned want, unsigned exclude, bool dedup) {
    sbuf b = {0};
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!(p[i].t & want) || (p[i].t & exclude)) continue;
        if (dedup) {
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = (p[j].t & want) && !(p[j].t & exclude) && strcmp(p[j].s, p[i].s) == 0;
            if (seen) continue;
        }
        if (any) sb_chr(&b, '-');
        sb_str(&b, p[i].s);
        any = true;
    }
    if (!any) { free(b.p); return NULL; }
    return sb_take(&b);
}

/* Annotate the '-'-separated parts of full (name_parts of the reference).
 * false on allocation failure. */
static bool annotate(name_part *p, size_t np, int64_t total) {
    for (size_t i = 0; i < np; i++) {
        char *s = p[i].s;
        size_t n = strlen(s);
        if (re_version(s)) {
            p[i].t |= T_VERSION;
        } else if (re_quant_type(s)) {
            p[i].t |= T_TYPE;
            for (size_t k = 0; k < n; k++) s[k] = a_toupper(s[k]);
        } else if (i > 0 && re_size(s)) {
            for (size_t k = 0; k < n; k++)
                if (s[k] == '_') s[k] = '.';
            if (a_digit((unsigned char)s[n - 1])) { /* bloom-7b1: "7b1" -> "7.1b" */
                char last = s[n - 1], letter = s[n - 2];
                char *t = malloc(n + 2);
                if (t) {
                    memcpy(t, s, n - 2);
                    t[n - 2] = '.';
                    t[n - 1] = last;
                    t[n] = letter;
                    t[n + 1] = 0;
                    free(s);
                    p[i].s = s = t;
                    n++;
                } else {
                    return false;
                }
            }
            if (n > 1 && a_digit((unsigned char)s[n - 2]) && s[n - 1] && strchr("kmbt", s[n - 1]))
                s[n - 1] = a_toupper(s[n - 1]);
            if (total != 0) {
                double x;
                const char *suf = strchr(" KMBT", s[n - 1]);
                if (s[n - 1] && size_float(s, n - 1, &x)) {
                    /* float * 1000 ** " KMBT".find(suffix) */
                    static const double scale[] = {1.0, 1e3, 1e6, 1e9, 1e12};
                    double label = suf ? x * scale[suf - " KMBT"] : x * 0.001;
                    bool ctx;
                    if (total < 0) {
                        int64_t lim = (total == INT64_MIN ? INT64_MAX : -total) / 8;
                        ctx = cmp_double_int(label, lim) < 0;
                    } else {
                        int64_t lim = 7 * (total / 8) + (7 * (total % 8)) / 8; /* 7 * total // 8 */
                        ctx = cmp_double_int(fabs(label - (double)total), lim) > 0;
                    }
                    if (ctx) {
                        p[i].t |= T_FINETUNE;
                        s[n - 1] = a_tolower(s[n - 1]);
                    }
                }
            }
            if (p[i].t == 0) p[i].t |= T_SIZE;
        } else if (i > 0 && (ieq(s, "chat") || ieq(s, "instruct") || ieq(s, "vision") || ieq(s, "lora"))) {
            p[i].t |= total < 0 && ieq(s, "lora") ? T_TYPE : T_FINETUNE;
        }
    }
    /* word size labels go when a numeric one is present */
    bool numeric = false;
    for (size_t i = 0; i < np; i++)
        if (p[i].t & T_SIZE)
            for (const char *c = p[i].s; *c; c++) numeric |= a_digit((unsigned char)*c);
    if (numeric)
        for (size_t i = 0; i < np; i++) {
            if (!(p[i].t & T_SIZE)) continue;
            bool alpha = true;
            for (size_t k = 0; p[i].s[k];) {
                pych c = py_char(p[i].s, strlen(p[i].s), k);
                alpha &= c.alpha;
                k += c.len;
            }
            if (alpha) p[i].t &= ~(unsigned)T_SIZE;
        }
    bool at_start = true;
    for (size_t i = 0; i < np; i++) {
        if (at_start && ((p[i].t == 0 && py_char(p[i].s, strlen(p[i].s), 0).alpha) || (p[i].t & T_VERSION))) {
            p[i].t |= T_BASENAME;
        } else {
            at_start = false;
            if (p[i].t == 0) p[i].t |= T_FINETUNE;
        }
    }
    for (size_t i = np; i-- > 0;) {
        if ((p[i].t & T_BASENAME) && p[i].t != T_BASENAME) p[i].t &= ~(unsigned)T_BASENAME;
        else break;
    }
    return true;
}

static mio_status model_id_components(const char *id, int64_t total, id_comps *out) {
    memset(out, 0, sizeof *out);
    size_t n = strlen(id);
    if (n > META_MAX_STR) return mio_err_set(MIO_ERR_LIMIT, "model id of %zu bytes (at most %zu)", n, META_MAX_STR);
    if (strchr(id, ' ')) {
        out->full = dup_n(id, n);
        return out->full ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "model id: out of memory");
    }
    const char *slash = strchr(id, '/'), *full = id;
    if (slash) {
        full = slash + 1;
        if (slash > id && id[0] != '.' && !(out->org = dup_n(id, (size_t)(slash - id)))) goto oom;
        if (slash == id && !(out->org = dup_n("", 0))) goto oom;
    }
    if (!(out->full = dup_n(full, strlen(full)))) goto oom;

    size_t np = 0, cap = 1;
    for (const char *c = full; *c; c++) cap += *c == '-';
    name_part *p = calloc(cap, sizeof *p);
    if (!p) goto oom;
    for (const char *c = full;;) {
        const char *e = strchr(c, '-');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len) {
            if (!(p[np].s = dup_n(c, len))) { np++; goto oom_parts; }
            np++;
        }
        if (!e) break;
        c = e + 1;
    }
    if (!annotate(p, np, total)) goto oom_parts;
    out->basename = join_parts(p, np, T_BASENAME, 0, false);
    out->size_label = join_parts(p, np, T_SIZE, 0, true);
    out->finetune = join_parts(p, np, T_FINETUNE, 0, false);
    out->version = join_parts(p, np, T_VERSION, T_BASENAME, false);
    if (!out->size_label && !out->finetune && !out->version) { free(out->basename); out->basename = NULL; }
    for (size_t i = 0; i < np; i++) free(p[i].s);
    free(p);
    return MIO_OK;
oom_parts:
    for (size_t i = 0; i < np; i++) free(p[i].s);
    free(p);
oom:
    comps_free(out);
    return mio_err_set(MIO_ERR_NOMEM, "model id: out of memory");
}

/* ---------------------------------------------------- size labels */

/* model_weight_count_rounded_notation(n, min_digits=2) */
static void rounded_notation(sbuf *b, int64_t n) {
    double x;
    char suffix;
    if (n > 1000000000000) { x = (double)n * 1e-12; suffix = 'T'; }
    else if (n > 1000000000) { x = (double)n * 1e-9; suffix = 'B'; }
    else if (n > 1000000) { x = (double)n * 1e-6; suffix = 'M'; }
    else { x = (double)n * 1e-3; suffix = 'K'; }
    double r = nearbyint(x); /* round(): ties to even */
    int digits = 0;
    for (uint64_t v = (uint64_t)r; v; v /= 10) digits++;
    int fix = digits >= 2 ? 0 : 2 - digits;
    char tmp[400];
    mio_snprintf_c(tmp, sizeof tmp, "%.*f%c", fix, x, suffix);
    sb_str(b, tmp);
}

static int64_t abs64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

char *mio_hf_size_label(int64_t total, int64_t shared, int64_t expert, int64_t expert_count) {
    sbuf b = {0};
    if (expert_count > 0) {
        uint64_t u;
        int64_t sum = ck_add((uint64_t)abs64(shared), (uint64_t)abs64(expert), &u) && u <= (uint64_t)INT64_MAX
                          ? (int64_t)u : INT64_MAX;
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%lldx", (long long)expert_count);
        sb_str(&b, tmp);
        rounded_notation(&b, sum);
    } else {
        rounded_notation(&b, abs64(total));
    }
    return sb_take(&b);
}

/* --------------------------------------------- parameter counts */

static mio_status param_counts(const hf_meta_in *in, hf_meta *m) {
    uint64_t total = 0, shared = 0, expert = 0, expert_sum = 0, n_exp = 0;
    const hf_meta_tensor *lora_a = NULL;
    for (size_t i = 0; i < in->n_tensors; i++) {
        const hf_meta_tensor *t = &in->tensors[i];
        const char *name = t->name ? t->name : "";
        size_t nl = strlen(name);
        if (t->n_dims > 4) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': %u dimensions", name, t->n_dims);
        int64_t ne[4];
        for (uint32_t d = 0; d < t->n_dims; d++) {
            if (t->ne[d] < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': dimension %u is %lld", name, d, (long long)t->ne[d]);
            ne[d] = t->ne[d];
        }
        if (nl >= 7 && strcmp(name + nl - 7, ".lora_a") == 0) { lora_a = t; continue; }
        if (nl >= 7 && strcmp(name + nl - 7, ".lora_b") == 0) {
            const char *an = lora_a && lora_a->name ? lora_a->name : NULL;
            if (!an || strlen(an) != nl || memcmp(an, name, nl - 1) != 0 || an[nl - 1] != 'a') {
                /* the reference gives up ("tensor order is unusual"): every count 0 */
                m->total_params = m->shared_params = m->expert_params = m->expert_count = 0;
                return MIO_OK;
            }
            if (t->n_dims == 0 || lora_a->n_dims == 0)
                return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': a LoRA tensor without dimensions", name);
            ne[0] = lora_a->ne[0]; /* numpy (*shape[:-1], lora_a.shape[-1]) */
        }
        uint64_t size = 1;
        for (uint32_t d = 0; d < t->n_dims; d++)
            if (!ck_mul(size, (uint64_t)ne[d], &size)) return mio_err_set(MIO_ERR_OVERFLOW, "tensor '%s': element count overflows", name);
        if (strstr(name, "_exps.") && t->n_dims >= 3) {
            uint64_t cnt = (uint64_t)(strstr(name, ".bias") ? ne[1] : ne[2]);
            if (cnt == 0) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor '%s': expert count 0", name);
            if (!ck_add(expert, size / cnt, &expert) || !ck_add(expert_sum, cnt, &expert_sum))
                return mio_err_set(MIO_ERR_OVERFLOW, "parameter count overflows at tensor '%s'", name);
            n_exp++;
        } else if (!ck_add(shared, size, &shared)) {
            return mio_err_set(MIO_ERR_OVERFLOW, "parameter count overflows at tensor '%s'", name);
        }
        if (!ck_add(total, size, &total) || total > (uint64_t)INT64_MAX)
            return mio_err_set(MIO_ERR_OVERFLOW, "parameter count overflows at tensor '%s'", name);
    }
    m->total_params = lora_a ? -(int64_t)total : (int64_t)total;
    m->shared_params = (int64_t)shared;
    m->expert_params = (int64_t)expert;
    m->expert_count = n_exp ? (int64_t)(expert_sum / n_exp) : 0;
    return MIO_OK;
}

/* ---------------------------------------------------- inputs */

/* Path(dir).name: the last component, "." components and empty ones skipped. */
static char *path_name(const char *dir) {
    const char *best = "";
    size_t best_n = 0;
    for (const char *c = dir;;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n && !(n == 1 && c[0] == '.')) { best = c; best_n = n; }
        if (!e) break;
        c = e + 1;
    }
    return dup_n(best, best_n);
}

/* dict.get for JSON parsed by Python: the last of duplicate keys wins. */
static const mio_json *obj_get(const mio_json *o, const char *key) {
    const mio_json *r = NULL;
    if (!o || !mio_json_is_object(o)) return NULL;
    for (const mio_json *c = o->child; c; c = c->next)
        if (c->string && strcmp(c->string, key) == 0) r = c;
    return r;
}

static char *join_path(const char *dir, const char *file) {
    sbuf b = {0};
    sb_str(&b, dir);
    sb_chr(&b, '/');
    sb_str(&b, file);
    return sb_take(&b);
}

static bool is_regular(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* generation_config.json as load_generation_config: absent, unreadable or not
 * JSON gives NULL (the reference's {}), never an error but for its size. */
static mio_status read_genconfig(const char *dir, mio_json **out) {
    *out = NULL;
    char *path = join_path(dir, "generation_config.json");
    if (!path) return mio_err_set(MIO_ERR_NOMEM, "generation_config.json: out of memory");
    if (!is_regular(path)) { free(path); return MIO_OK; }
    mio_region r;
    if (mio_region_read(path, &r) != MIO_OK) { free(path); return MIO_OK; }
    if (r.size > META_MAX_GENCONFIG) {
        mio_status st = mio_err_set(MIO_ERR_LIMIT, "%s: %zu bytes (at most %zu)", path, r.size, META_MAX_GENCONFIG);
        mio_region_free(&r);
        free(path);
        return st;
    }
    free(path);
    /* a NUL byte makes the file invalid JSON for Python (and for mio_json_parse_str, which would stop there) */
    if (memchr(r.data, 0, r.size)) { mio_region_free(&r); return MIO_OK; }
    char *txt = dup_n((const char *)r.data, r.size);
    mio_region_free(&r);
    if (!txt) return mio_err_set(MIO_ERR_NOMEM, "generation_config.json: out of memory");
    *out = mio_json_parse_str(txt, NULL);
    free(txt);
    return MIO_OK;
}

/* ----------------------------------------------------- sampling keys */

typedef enum { S_STR, S_I32, S_F32 } skind;
static const struct {
    const char *json, *key;
    skind kind;
} SAMPLING[] = {
    {.json = "sequence", .key = "general.sampling.sequence", .kind = S_STR},
    {.json = "top_k", .key = "general.sampling.top_k", .kind = S_I32},
    {.json = "top_p", .key = "general.sampling.top_p", .kind = S_F32},
    {.json = "min_p", .key = "general.sampling.min_p", .kind = S_F32},
    {.json = "xtc_probability", .key = "general.sampling.xtc_probability", .kind = S_F32},
    {.json = "xtc_threshold", .key = "general.sampling.xtc_threshold", .kind = S_F32},
    {.json = "temperature", .key = "general.sampling.temp", .kind = S_F32},
    {.json = "penalty_last_n", .key = "general.sampling.penalty_last_n", .kind = S_I32},
    {.json = "penalty_repeat", .key = "general.sampling.penalty_repeat", .kind = S_F32},
    {.json = "mirostat", .key = "general.sampling.mirostat", .kind = S_I32},
    {.json = "mirostat_tau", .key = "general.sampling.mirostat_tau", .kind = S_F32},
    {.json = "mirostat_eta", .key = "general.sampling.mirostat_eta", .kind = S_F32},
};
#define N_SAMPLING (sizeof SAMPLING / sizeof SAMPLING[0])

typedef struct sval {
    bool set;
    const char *s; /* borrowed from the parsed generation config */
    int32_t i;
    float f;
} sval;

static mio_status sampling_value(const mio_json *v, size_t k, sval *out) {
    const char *j = SAMPLING[k].json;
    out->set = false;
    if (!v || mio_json_is_null(v)) return MIO_OK;
    switch (SAMPLING[k].kind) {
    case S_STR:
        if (mio_json_is_string(v)) {
            if (strlen(v->valuestring) > META_MAX_STR)
                return mio_err_set(MIO_ERR_LIMIT, "generation_config.json: \"%s\" longer than %zu bytes", j, META_MAX_STR);
            out->s = v->valuestring;
            out->set = v->valuestring[0] != 0; /* add_string skips "" */
            return MIO_OK;
        }
        /* falsy values are skipped by add_string, others make the reference fail */
        if (mio_json_is_false(v) || (mio_json_is_number(v) && v->valuedouble == 0) ||
            ((mio_json_is_array(v) || mio_json_is_object(v)) && !v->child))
            return MIO_OK;
        return mio_err_set(MIO_ERR_INVALID_JSON, "generation_config.json: \"%s\" is not a string", j);
    case S_I32:
        if (mio_json_is_bool(v)) { out->i = mio_json_is_true(v); out->set = true; return MIO_OK; }
        if (mio_json_is_number(v)) {
            double d = v->valuedouble;
            if (d != floor(d)) return mio_err_set(MIO_ERR_INVALID_JSON, "generation_config.json: \"%s\" is %g, not an integer", j, d);
            if (!(d >= -2147483648.0 && d <= 2147483647.0))
                return mio_err_set(MIO_ERR_OUT_OF_RANGE, "generation_config.json: \"%s\" = %.17g does not fit an int32", j, d);
            out->i = (int32_t)d;
            out->set = true;
            return MIO_OK;
        }
        return mio_err_set(MIO_ERR_INVALID_JSON, "generation_config.json: \"%s\" is not an integer", j);
    case S_F32:
        if (mio_json_is_bool(v)) { out->f = mio_json_is_true(v) ? 1.0f : 0.0f; out->set = true; return MIO_OK; }
        if (mio_json_is_number(v)) {
            double d = v->valuedouble;
            float f = (float)d;
            if (isfinite(d) && isinf(f))
                return mio_err_set(MIO_ERR_OUT_OF_RANGE, "generation_config.json: \"%s\" = %.17g is too large for a float32", j, d);
            out->f = f;
            out->set = true;
            return MIO_OK;
        }
        return mio_err_set(MIO_ERR_INVALID_JSON, "generation_config.json: \"%s\" is not a number", j);
    }
    return MIO_OK;
}

/* ------------------------------------------------------ the keys */

static void take_if_unset(char **field, char *cand, bool title) {
    if (*field || !cand) return;
    *field = title ? id_to_title(cand) : dup_n(cand, strlen(cand));
}

/* Fill the unset fields from one model id (the reference's two heuristic
 * blocks: config.json's _name_or_path, then the directory name). */
static mio_status apply_id(const char *id, int64_t total, hf_meta *m, char **org) {
    id_comps c;
    mio_status st = model_id_components(id, total, &c);
    if (st) return st;
    take_if_unset(&m->name, c.full, true);
    take_if_unset(org, c.org, true);
    take_if_unset(&m->basename, c.basename, false);
    take_if_unset(&m->finetune, c.finetune, false);
    take_if_unset(&m->version, c.version, false);
    take_if_unset(&m->size_label, c.size_label, false);
    bool oom = (c.full && !m->name) || (c.org && !*org) || (c.basename && !m->basename) ||
               (c.finetune && !m->finetune) || (c.version && !m->version) || (c.size_label && !m->size_label);
    comps_free(&c);
    return oom ? mio_err_set(MIO_ERR_NOMEM, "general.* metadata: out of memory") : MIO_OK;
}

static mio_status put_str(mio_writer *w, const char *key, const char *v) {
    if (!v || !v[0]) return MIO_OK; /* add_string skips empty strings */
    size_t n = strlen(v);
    if (n > META_MAX_STR) return mio_err_set(MIO_ERR_LIMIT, "%s: %zu bytes (at most %zu)", key, n, META_MAX_STR);
    return mio_writer_set_str(w, key, v, n);
}

/* ------------------------------------------------------ the model card */

/* A base model's or a dataset's fields, in set_gguf_meta_model's order. */
enum { CE_NAME, CE_AUTHOR, CE_VERSION, CE_ORG, CE_DESC, CE_URL, CE_DOI, CE_UUID, CE_REPO, CE_N };
static const char *const CE_KEYS[CE_N] = {"name", "author", "version", "organization", "description",
                                          "url",  "doi",    "uuid",    "repo_url"};
typedef struct card_entry {
    char *f[CE_N];
} card_entry;

typedef struct card_list {
    bool present; /* the card has the key: the count is written, even 0 */
    card_entry *e;
    size_t n;
} card_list;

typedef struct str_list {
    bool present;
    char **s;
    size_t n;
} str_list;

typedef struct card {
    char *author, *description, *license, *license_name, *license_link;
    char *source_url, *source_doi, *source_uuid, *source_repo_url;
    card_list base, data;
    str_list tags, langs;
} card;

static void entries_free(card_list *l) {
    for (size_t i = 0; i < l->n; i++)
        for (int k = 0; k < CE_N; k++) free(l->e[i].f[k]);
    free(l->e);
}

static void strs_free(str_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->s[i]);
    free(l->s);
}

static void card_free(card *c) {
    free(c->author);
    free(c->description);
    free(c->license);
    free(c->license_name);
    free(c->license_link);
    free(c->source_url);
    free(c->source_doi);
    free(c->source_uuid);
    free(c->source_repo_url);
    entries_free(&c->base);
    entries_free(&c->data);
    strs_free(&c->tags);
    strs_free(&c->langs);
    memset(c, 0, sizeof *c);
}

/* What a card value gives a string field: *set false for YAML null (the
 * reference's None: a later source may still fill the field); a falsy value
 * (false, 0, "") sets it to "" (blocks the later sources, writes nothing, as
 * add_string skips it); other scalars their text (a number the reference
 * could not write stays as the card spells it). Collections: not set. */
static bool card_text(const mio_json *v, char **out, bool *set) {
    *out = NULL;
    *set = false;
    if (!v) return true;
    if (mio_json_is_string(v)) {
        *set = true;
        return (*out = dup_n(v->valuestring, strlen(v->valuestring))) != NULL;
    }
    if (v->type != MIO_JSON_RAW) return true;
    mio_yaml_kind k = mio_yaml_plain_kind(v->valuestring);
    if (k == MIO_YAML_NULL) return true;
    *set = true;
    const char *t = k == MIO_YAML_FALSE || k == MIO_YAML_ZERO ? "" : v->valuestring;
    return (*out = dup_n(t, strlen(t))) != NULL;
}

/* use_model_card_metadata for each key in turn: the first that sets it wins;
 * a field set before (field non-NULL) is kept. */
static bool card_field(const mio_json *cardj, char **field, const char *const *keys) {
    for (; *keys; keys++) {
        if (*field) return true;
        const mio_json *v = obj_get(cardj, *keys);
        char *t;
        bool set;
        if (!card_text(v, &t, &set)) return false;
        if (set) *field = t;
    }
    return true;
}

/* license: a list is joined with "," */
static bool card_license(const mio_json *cardj, char **field) {
    const mio_json *v = obj_get(cardj, "license");
    if (!mio_json_is_array(v)) {
        static const char *const k[] = {"license", NULL};
        return card_field(cardj, field, k);
    }
    sbuf b = {0};
    bool first = true;
    for (const mio_json *it = v->child; it; it = it->next) {
        char *t;
        bool set;
        if (!card_text(it, &t, &set)) return false;
        if (!first) sb_chr(&b, ',');
        if (t) sb_str(&b, t);
        free(t);
        first = false;
    }
    *field = sb_take(&b);
    if (!*field && !b.oom) *field = dup_n("", 0);
    return *field != NULL;
}

static bool strs_push(str_list *l, const char *s) {
    char **q = realloc(l->s, (l->n + 1) * sizeof *q);
    if (!q) return false;
    l->s = q;
    if (!(l->s[l->n] = dup_n(s, strlen(s)))) return false;
    l->n++;
    return true;
}

/* use_array_model_card_metadata: a string is appended, a list's items are */
static bool card_array(const mio_json *cardj, str_list *l, const char *key) {
    const mio_json *v = obj_get(cardj, key);
    if (!v || (v->type == MIO_JSON_RAW && mio_yaml_plain_kind(v->valuestring) == MIO_YAML_NULL)) return true;
    l->present = true;
    if (mio_json_is_string(v) || v->type == MIO_JSON_RAW) return strs_push(l, v->valuestring);
    if (!mio_json_is_array(v)) return true;
    for (const mio_json *it = v->child; it; it = it->next) {
        /* a GGUF array holds one type: every item as its text */
        if ((mio_json_is_string(it) || it->type == MIO_JSON_RAW) && !strs_push(l, it->valuestring)) return false;
    }
    return true;
}

/* re.match(r"https?://huggingface.co/([^/]+/[^/]+)$", url): the id, or NULL */
static const char *hf_url_id(const char *url) {
    const char *p = strncmp(url, "https://", 8) == 0 ? url + 8 : strncmp(url, "http://", 7) == 0 ? url + 7 : NULL;
    if (!p || strncmp(p, "huggingface", 11) != 0 || !p[11] || strncmp(p + 12, "co/", 3) != 0) return NULL;
    const char *id = p + 15, *slash = strchr(id, '/');
    if (!slash || slash == id || !slash[1] || strchr(slash + 1, '/') || strchr(id, '\n')) return NULL;
    return id;
}

/* One base model or dataset entry of the card (a string id, a URL, a mapping). */
static mio_status card_entry_of(const mio_json *it, int64_t total, card_entry *e) {
    memset(e, 0, sizeof *e);
    bool is_str = mio_json_is_string(it) || (it->type == MIO_JSON_RAW && mio_yaml_plain_kind(it->valuestring) == MIO_YAML_STR);
    if (mio_json_is_object(it)) {
        for (int k = 0; k < CE_N; k++) {
            char *t;
            bool set;
            if (!card_text(obj_get(it, CE_KEYS[k]), &t, &set)) return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
            e->f[k] = t;
        }
        return MIO_OK;
    }
    if (!is_str) return MIO_OK; /* the reference logs "not in a known format" and counts an empty entry */
    const char *id = it->valuestring;
    bool url = strncmp(id, "http://", 7) == 0 || strncmp(id, "https://", 8) == 0 || strncmp(id, "ssh://", 6) == 0;
    const char *hf = url ? (strstr(id, "huggingface.co") ? hf_url_id(id) : NULL) : id;
    if (url && !(e->f[CE_REPO] = dup_n(id, strlen(id)))) return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
    if (!hf) return MIO_OK;
    id_comps c;
    mio_status st = model_id_components(hf, total, &c);
    if (st) return st;
    if (c.full) e->f[CE_NAME] = id_to_title(c.full);
    if (c.org) e->f[CE_ORG] = id_to_title(c.org);
    if (c.version) e->f[CE_VERSION] = dup_n(c.version, strlen(c.version));
    if (!url && c.org && c.full) {
        sbuf b = {0};
        sb_str(&b, "https://huggingface.co/");
        sb_str(&b, c.org);
        sb_chr(&b, '/');
        sb_str(&b, c.full);
        e->f[CE_REPO] = sb_take(&b);
    }
    bool oom = (c.full && !e->f[CE_NAME]) || (c.org && !e->f[CE_ORG]) || (c.version && !e->f[CE_VERSION]) ||
               (!url && c.org && c.full && !e->f[CE_REPO]);
    comps_free(&c);
    return oom ? mio_err_set(MIO_ERR_NOMEM, "model card: out of memory") : MIO_OK;
}

static mio_status card_entries(const mio_json *cardj, const char *const keys[3], int64_t total, card_list *l) {
    const mio_json *v = NULL;
    for (int k = 0; k < 3 && !v; k++) v = obj_get(cardj, keys[k]);
    if (!v) return MIO_OK;
    l->present = true;
    if (v->type == MIO_JSON_RAW && mio_yaml_plain_kind(v->valuestring) == MIO_YAML_NULL) return MIO_OK;
    size_t n = mio_json_is_array(v) ? (size_t)mio_json_size(v) : 1;
    if (!mio_json_is_array(v) && !mio_json_is_string(v) && v->type != MIO_JSON_RAW) return MIO_OK;
    if (!(l->e = calloc(n ? n : 1, sizeof *l->e))) return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
    const mio_json *it = mio_json_is_array(v) ? v->child : v;
    for (size_t i = 0; i < n && it; i++, it = it->next) {
        mio_status st = card_entry_of(it, total, &l->e[i]);
        l->n = i + 1;
        if (st) return st;
        if (!mio_json_is_array(v)) break;
    }
    return MIO_OK;
}

/* README.md's front matter as load_model_card reads it: the lines after a
 * first line "---" up to the next "---" (Python's splitlines), "- no" lines
 * quoted (its Norway fix), tabs as two spaces. *yaml NULL: no front matter. */
static mio_status card_yaml(const char *dir, char **yaml, size_t *len) {
    *yaml = NULL;
    *len = 0;
    char *path = join_path(dir, "README.md");
    if (!path) return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
    FILE *fp = is_regular(path) ? fopen(path, "rb") : NULL;
    free(path);
    if (!fp) return MIO_OK;
    sbuf raw = {0}, out = {0};
    char buf[65536];
    size_t got;
    /* the front matter is at most 1 MiB of YAML: read a little past that */
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0 && raw.n <= MIO_YAML_MAX_BYTES + 8) sb_put(&raw, buf, got);
    fclose(fp);
    if (raw.oom) return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
    bool first = true, closed = false;
    for (size_t a = 0; raw.p && a < raw.n && !closed;) {
        size_t e = a;
        while (e < raw.n && !strchr("\n\r\v\f\x1c\x1d\x1e", raw.p[e])) e++;
        size_t n = e - a;
        if (first) {
            if (n != 3 || memcmp(raw.p + a, "---", 3) != 0) break;
            first = false;
        } else if (n == 3 && memcmp(raw.p + a, "---", 3) == 0) {
            closed = true;
        } else {
            for (size_t k = a; k < e; k++) {
                if (raw.p[k] == '\t') sb_put(&out, "  ", 2);
                else sb_chr(&out, raw.p[k]);
            }
            sb_chr(&out, '\n');
        }
        if (e < raw.n && raw.p[e] == '\r' && e + 1 < raw.n && raw.p[e + 1] == '\n') e++;
        a = e + 1;
    }
    free(raw.p);
    if (first) {
        free(out.p);
        return MIO_OK;
    }
    if (!out.p) sb_put(&out, "", 0);
    /* yaml_content.replace("- no\n", '- "no"\n') */
    sbuf fixed = {0};
    for (size_t k = 0; out.p && k < out.n; k++) {
        if (k + 5 <= out.n && memcmp(out.p + k, "- no\n", 5) == 0) {
            sb_str(&fixed, "- \"no\"\n");
            k += 4;
        } else {
            sb_chr(&fixed, out.p[k]);
        }
    }
    free(out.p);
    if (fixed.oom || out.oom) {
        free(fixed.p);
        return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
    }
    *len = fixed.n;
    *yaml = fixed.p ? fixed.p : dup_n("", 0);
    return *yaml ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
}

/* Metadata.apply_metadata_heuristic's model-card part. A card that is not
 * YAML this reads, or not a mapping, is ignored with a warning in
 * m->card_warning (the reference stops on YAML it cannot parse). */
static mio_status read_card(const char *dir, int64_t total, hf_meta *m, char **org, card *c) {
    char *text;
    size_t len;
    mio_status st = card_yaml(dir, &text, &len);
    if (st || !text) return st;
    mio_yaml_error err;
    mio_json *y = mio_yaml_parse(text, len, &err);
    free(text);
    if (!y) {
        if (err.nomem) return mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
        snprintf(m->card_warning, sizeof m->card_warning, "%s/README.md: the model card's front matter is not read "
                 "(line %zu: %s); no general.* key comes from it", dir, err.line, err.reason);
        return MIO_OK;
    }
    if (!mio_json_is_object(y)) {
        mio_json_free(y);
        return MIO_OK; /* a scalar or a list: the reference's {} */
    }
    m->model_card_read = true;
    static const char *const k_name[] = {"name", "model_name", NULL}, *const k_author[] = {"author", "model_author", "model_creator", NULL},
                             *const k_version[] = {"version", "model_version", NULL},
                             *const k_org[] = {"organization", "model_organization", NULL},
                             *const k_desc[] = {"description", "model_description", NULL},
                             *const k_fine[] = {"finetune", "model_finetune", NULL},
                             *const k_base[] = {"basename", "model_basename", "model_type", NULL},
                             *const k_size[] = {"size_label", "model_size_label", NULL},
                             *const k_url[] = {"url", "model_url", NULL}, *const k_doi[] = {"doi", "model_doi", NULL},
                             *const k_uuid[] = {"uuid", "model_uuid", NULL},
                             *const k_repo[] = {"repo_url", "model_repo_url", NULL},
                             *const k_lname[] = {"license_name", NULL}, *const k_llink[] = {"license_link", NULL};
    static const char *const k_bases[3] = {"base_model", "base_models", "base_model_sources"};
    static const char *const k_sets[3] = {"datasets", "dataset", "dataset_sources"};
    bool ok = card_field(y, &m->name, k_name) && card_field(y, &c->author, k_author) &&
              card_field(y, &m->version, k_version) && card_field(y, org, k_org) &&
              card_field(y, &c->description, k_desc) && card_field(y, &m->finetune, k_fine) &&
              card_field(y, &m->basename, k_base) && card_field(y, &m->size_label, k_size) &&
              card_field(y, &c->source_url, k_url) && card_field(y, &c->source_doi, k_doi) &&
              card_field(y, &c->source_uuid, k_uuid) && card_field(y, &c->source_repo_url, k_repo);
    if (ok) st = card_entries(y, k_bases, total, &c->base);
    if (ok && !st) st = card_entries(y, k_sets, total, &c->data);
    if (ok && !st)
        ok = card_license(y, &c->license) && card_field(y, &c->license_name, k_lname) &&
             card_field(y, &c->license_link, k_llink) && card_array(y, &c->tags, "tags") &&
             card_array(y, &c->tags, "pipeline_tag") && card_array(y, &c->langs, "languages") &&
             card_array(y, &c->langs, "language");
    mio_json_free(y);
    if (!st && !ok) st = mio_err_set(MIO_ERR_NOMEM, "model card: out of memory");
    return st;
}

static mio_status put_entries(mio_writer *w, const char *what, const card_list *l) {
    if (!l->present) return MIO_OK;
    char key[96];
    snprintf(key, sizeof key, "general.%s.count", what);
    mio_status st = mio_writer_set_u32(w, key, (uint32_t)l->n);
    for (size_t i = 0; i < l->n && !st; i++)
        for (int k = 0; k < CE_N && !st; k++) {
            snprintf(key, sizeof key, "general.%s.%zu.%s", what, i, CE_KEYS[k]);
            st = put_str(w, key, l->e[i].f[k]);
        }
    return st;
}

static mio_status put_strs(mio_writer *w, const char *key, const str_list *l) {
    if (!l->n) return MIO_OK; /* add_array skips an empty list */
    size_t *lens = malloc(l->n * sizeof *lens);
    if (!lens) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", key);
    for (size_t i = 0; i < l->n; i++) lens[i] = strlen(l->s[i]);
    mio_status st = mio_writer_set_arr_str(w, key, (const char *const *)l->s, lens, l->n);
    free(lens);
    return st;
}


void mio_hf_meta_free(hf_meta *m) {
    if (!m) return;
    free(m->name);
    free(m->basename);
    free(m->finetune);
    free(m->version);
    free(m->size_label);
    memset(m, 0, sizeof *m);
}

mio_status mio_hf_meta_write(mio_writer *w, const hf_meta_in *in, hf_meta *m) {
    if (!w || !in || !m || !in->dir) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_hf_meta_write: NULL argument");
    if (in->n_tensors && !in->tensors) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_hf_meta_write: tensors is NULL");
    memset(m, 0, sizeof *m);
    char *org = NULL, *dirname = NULL;
    mio_json *gen = NULL;
    card cd;
    memset(&cd, 0, sizeof cd);
    mio_status st = param_counts(in, m);
    if (st) goto fail;
    if (!(dirname = path_name(in->dir))) { st = mio_err_set(MIO_ERR_NOMEM, "general.name: out of memory"); goto fail; }

    /* the model card's front matter first: what it sets wins */
    if ((st = read_card(in->dir, m->total_params, m, &org, &cd))) goto fail;

    /* Hugging Face parameter heuristics: _name_or_path when it is not a path */
    const mio_json *nop = obj_get(in->config, "_name_or_path");
    if (mio_json_is_string(nop)) {
        size_t slashes = 0;
        for (const char *c = nop->valuestring; *c; c++) slashes += *c == '/';
        if (slashes <= 1 && (st = apply_id(nop->valuestring, m->total_params, m, &org))) goto fail;
    }
    /* directory name fallback heuristics */
    if ((st = apply_id(dirname, m->total_params, m, &org))) goto fail;

    /* sampling parameters */
    if ((st = read_genconfig(in->dir, &gen))) goto fail;
    sval sv[N_SAMPLING];
    memset(sv, 0, sizeof sv);
    if (mio_json_is_object(gen)) {
        for (size_t k = 0; k < N_SAMPLING; k++) {
            const mio_json *v = obj_get(gen, SAMPLING[k].json);
            if (!v && strcmp(SAMPLING[k].json, "penalty_repeat") == 0) v = obj_get(gen, "repetition_penalty");
            if ((st = sampling_value(v, k, &sv[k]))) goto fail;
        }
    }

    /* --model-name, then prepare_metadata's fallbacks */
    if (in->model_name) {
        free(m->name);
        if (!(m->name = dup_n(in->model_name, strlen(in->model_name)))) { st = mio_err_set(MIO_ERR_NOMEM, "general.name: out of memory"); goto fail; }
    }
    if (!m->name) { m->name = dirname; dirname = NULL; }
    if (!m->size_label && m->total_params > 0 &&
        !(m->size_label = mio_hf_size_label(m->total_params, m->shared_params, m->expert_params, m->expert_count))) {
        st = mio_err_set(MIO_ERR_NOMEM, "general.size_label: out of memory");
        goto fail;
    }

    /* set_gguf_meta_model, in its order */
    for (size_t k = 0; k < N_SAMPLING && !st; k++) {
        if (!sv[k].set) continue;
        if (SAMPLING[k].kind == S_STR) st = put_str(w, SAMPLING[k].key, sv[k].s);
        else if (SAMPLING[k].kind == S_I32) st = mio_writer_set_i32(w, SAMPLING[k].key, sv[k].i);
        else st = mio_writer_set_f32(w, SAMPLING[k].key, sv[k].f);
    }
    if (!st) st = put_str(w, "general.name", m->name);
    if (!st) st = put_str(w, "general.author", cd.author);
    if (!st) st = put_str(w, "general.version", m->version);
    if (!st) st = put_str(w, "general.organization", org);
    if (!st) st = put_str(w, "general.finetune", m->finetune);
    if (!st) st = put_str(w, "general.basename", m->basename);
    if (!st) st = put_str(w, "general.description", cd.description);
    if (!st) st = put_str(w, "general.size_label", m->size_label);
    if (!st) st = put_str(w, "general.license", cd.license);
    if (!st) st = put_str(w, "general.license.name", cd.license_name);
    if (!st) st = put_str(w, "general.license.link", cd.license_link);
    if (!st) st = put_str(w, "general.source.url", cd.source_url);
    if (!st) st = put_str(w, "general.source.doi", cd.source_doi);
    if (!st) st = put_str(w, "general.source.uuid", cd.source_uuid);
    if (!st) st = put_str(w, "general.source.repo_url", cd.source_repo_url);
    if (!st) st = put_entries(w, "base_model", &cd.base);
    if (!st) st = put_entries(w, "dataset", &cd.data);
    if (!st) st = put_strs(w, "general.tags", &cd.tags);
    if (!st) st = put_strs(w, "general.languages", &cd.langs);
    if (st) goto fail;
    mio_json_free(gen);
    free(org);
    free(dirname);
    card_free(&cd);
    return MIO_OK;
fail:
    mio_json_free(gen);
    free(org);
    free(dirname);
    card_free(&cd);
    mio_hf_meta_free(m);
    return st;
}

/* ------------------------------------------------------- file names */

/* s.strip().replace(' ', '-') (and '/' too when slash) */
static void put_field(sbuf *b, const char *s, bool slash, bool upper) {
    size_t lo = 0, hi = strlen(s);
    py_strip(s, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        char c = s[i];
        if (c == ' ' || (slash && c == '/')) c = '-';
        sb_chr(b, upper ? a_toupper(c) : c);
    }
}

char *mio_hf_default_filename(const hf_meta *m, const char *output_type, bool vocab_only) {
    if (!m) return NULL;
    sbuf b = {0};
    if (m->basename) put_field(&b, m->basename, true, false);
    else if (m->name) put_field(&b, m->name, true, false);
    else sb_str(&b, "ggml-model");
    const char *size = vocab_only ? NULL : m->size_label;
    const char *type = vocab_only ? NULL : output_type;
    const char *kind = vocab_only ? "vocab" : m->total_params < 0 ? "LoRA" : NULL;
    if (size) { sb_chr(&b, '-'); sb_str(&b, size); }
    if (m->finetune) { sb_chr(&b, '-'); put_field(&b, m->finetune, false, false); }
    if (m->version) { sb_chr(&b, '-'); put_field(&b, m->version, false, false); }
    if (type) { sb_chr(&b, '-'); put_field(&b, type, false, true); }
    if (kind) { sb_chr(&b, '-'); sb_str(&b, kind); }
    return sb_take(&b);
}

mio_status mio_hf_fill_templated_filename(const char *templ, const char *output_type, char **out) {
    if (!templ || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_hf_fill_templated_filename: NULL argument");
    *out = NULL;
    const char *ot = output_type ? output_type : "";
    sbuf b = {0};
    int autonum = 0; /* 1: "{}" used, 2: "{0}" used (Python refuses mixing them) */
    bool auto_used = false;
    for (const char *c = templ; *c;) {
        if (c[0] == '{' && c[1] == '{') { sb_chr(&b, '{'); c += 2; continue; }
        if (c[0] == '}' && c[1] == '}') { sb_chr(&b, '}'); c += 2; continue; }
        if (c[0] == '}') { free(b.p); return mio_err_set(MIO_ERR_INVALID_ARG, "output file name '%s': single '}'", templ); }
        if (c[0] != '{') { sb_chr(&b, *c++); continue; }
        const char *e = strchr(c, '}');
        if (!e) { free(b.p); return mio_err_set(MIO_ERR_INVALID_ARG, "output file name '%s': single '{'", templ); }
        size_t n = (size_t)(e - c - 1);
        const char *f = c + 1;
        bool upper;
        if (n == 0 || (n == 1 && f[0] == '0')) {
            int kind = n == 0 ? 1 : 2;
            if (autonum && autonum != kind) {
                free(b.p);
                return mio_err_set(MIO_ERR_INVALID_ARG, "output file name '%s': mixes {} and {0}", templ);
            }
            if (kind == 1 && auto_used) {
                free(b.p);
                return mio_err_set(MIO_ERR_INVALID_ARG, "output file name '%s': a second {} has no value", templ);
            }
            auto_used |= kind == 1;
            autonum = kind;
            upper = false;
        } else if ((n == 5 && memcmp(f, "ftype", 5) == 0) || (n == 7 && memcmp(f, "outtype", 7) == 0)) {
            upper = false;
        } else if ((n == 5 && memcmp(f, "FTYPE", 5) == 0) || (n == 7 && memcmp(f, "OUTTYPE", 7) == 0)) {
            upper = true;
        } else {
            char m[96];
            free(b.p);
            return mio_err_set(MIO_ERR_INVALID_ARG, "output file name '%s': unknown field {%s}", templ, mio_esc_bytes(m, sizeof m, f, n));
        }
        for (const char *t = ot; *t; t++) sb_chr(&b, upper ? a_toupper(*t) : a_tolower(*t));
        c = e + 1;
    }
    if (!(*out = sb_take(&b))) return mio_err_set(MIO_ERR_NOMEM, "output file name: out of memory");
    return MIO_OK;
}
