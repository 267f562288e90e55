/* SPDX-License-Identifier: MIT */
/* text.c — text the inspect module and the tools share: UTF-8 decoding that
 * never fails (invalid bytes become U+FFFD), terminal and JSON escaping,
 * shortest round-trip number formatting. */
#include "inspect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t mio_utf8_next(const unsigned char *p, size_t n, uint32_t *cp, int *valid) {
    unsigned char c = p[0];
    size_t len;
    uint32_t v, min;
    *valid = 0;
    *cp = 0xFFFDu;
    if (c < 0x80) {
        *cp = c;
        *valid = 1;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2; v = c & 0x1Fu; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0Fu; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07u; min = 0x10000;
    } else {
        return 1; /* continuation byte, C0/C1, F5..FF */
    }
    if (len > n) return 1;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0u) != 0x80u) return 1;
        v = (v << 6) | (p[k] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFFu || (v >= 0xD800u && v <= 0xDFFFu)) return 1;
    *cp = v;
    *valid = 1;
    return len;
}

MIO_API size_t mio_utf8_check(const char *p, size_t n) {
    if (!p) return 0;
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        int ok;
        size_t k = mio_utf8_next(u + i, n - i, &cp, &ok);
        if (!ok) return i;
        i += k;
    }
    return n;
}

size_t mio_insp_put_escaped(FILE *out, const char *p, size_t n, size_t max_bytes, int quoted) {
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        int ok;
        size_t k = mio_utf8_next(u + i, n - i, &cp, &ok);
        if (i + k > max_bytes) break;
        if (!ok)
            fputs("\xEF\xBF\xBD", out);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp == '\t')
            fputs("\\t", out);
        else if (cp == '\r')
            fputs("\\r", out);
        else if (cp < 0x20 || cp == 0x7F)
            fprintf(out, "\\x%02X", (unsigned)cp);
        else if (quoted && (cp == '"' || cp == '\\')) {
            fputc('\\', out);
            fputc((int)cp, out);
        } else
            fwrite(u + i, 1, k, out);
        i += k;
    }
    return i;
}

mio_status mio_insp_stream_done(FILE *o, char **buf, size_t *blen, char **text, size_t *len) {
    int bad = ferror(o);
    if (fclose(o) != 0) bad = 1;
    if (bad || !*buf) {
        free(*buf);
        *buf = NULL;
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    *text = *buf;
    if (len) *len = *blen;
    *buf = NULL;
    return MIO_OK;
}

MIO_API char *mio_escape_text(const char *p, size_t n, size_t max_bytes, int quoted, size_t *used) {
    if (!p && n) return NULL;
    char *buf = NULL;
    size_t blen = 0;
    FILE *o = open_memstream(&buf, &blen);
    if (!o) return NULL;
    size_t u = n ? mio_insp_put_escaped(o, p, n, max_bytes, quoted) : 0;
    int bad = ferror(o);
    if (fclose(o) != 0 || bad) {
        free(buf);
        return NULL;
    }
    if (used) *used = u;
    return buf;
}

MIO_API char *mio_json_quote(const char *p, size_t n) {
    if (!p && n) return NULL;
    const unsigned char *u = (const unsigned char *)p;
    /* worst case: every byte becomes "\u00XX" (6 bytes) or U+FFFD (3 bytes) */
    if (n > (SIZE_MAX - 3) / 6) return NULL;
    char *buf = malloc(n * 6 + 3);
    if (!buf) return NULL;
    size_t o = 0, i = 0;
    buf[o++] = '"';
    while (i < n) {
        uint32_t cp;
        int ok;
        size_t k = mio_utf8_next(u + i, n - i, &cp, &ok);
        if (!ok) {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
        } else if (cp == '"' || cp == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)cp;
        } else if (cp == '\n') {
            buf[o++] = '\\'; buf[o++] = 'n';
        } else if (cp == '\t') {
            buf[o++] = '\\'; buf[o++] = 't';
        } else if (cp == '\r') {
            buf[o++] = '\\'; buf[o++] = 'r';
        } else if (cp < 0x20 || cp == 0x7F) {
            static const char hex[] = "0123456789abcdef";
            memcpy(buf + o, "\\u00", 4);
            o += 4;
            buf[o++] = hex[(cp >> 4) & 0xF];
            buf[o++] = hex[cp & 0xF];
        } else {
            memcpy(buf + o, u + i, k);
            o += k;
        }
        i += k;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

/* Shortest "%.*g" (precisions lo..hi) that reads back to v, as a float when
 * as_float; "null" for NaN and infinities. */
static char *shortest(char *buf, size_t cap, double v, int lo, int hi, int as_float) {
    if (!buf || !cap) return buf;
    if (isnan(v) || isinf(v)) {
        snprintf(buf, cap, "null");
        return buf;
    }
    for (int prec = lo; prec <= hi; prec++) {
        mio_snprintf_c(buf, cap, "%.*g", prec, v);
        if (as_float ? mio_strtof_c(buf, NULL) == (float)v : mio_strtod_c(buf, NULL) == v) break;
    }
    return buf;
}

MIO_API char *mio_format_f32(char *buf, size_t cap, float v) { return shortest(buf, cap, (double)v, 6, 9, 1); }
MIO_API char *mio_format_f64(char *buf, size_t cap, double v) { return shortest(buf, cap, v, 15, 17, 0); }

const char *mio_insp_type_text(int type, char *buf, size_t cap) {
    const char *n = mio_type_name(type);
    if (n) return n;
    snprintf(buf, cap, "type_%d", type);
    return buf;
}
