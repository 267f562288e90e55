/* SPDX-License-Identifier: MIT */
/* error.c — status names and the thread-local message behind mio_last_error().
 * The message buffer is per thread, so concurrent readers never see each
 * other's failures. */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef mio_err_set /* the analyzer-only models of core.h */
#undef mio_err_prefix

#define MIO_ERRBUF 1024
static _Thread_local char g_err[MIO_ERRBUF];

#define MIO_STR_(x) #x
#define MIO_STR(x) MIO_STR_(x)
const char *mio_version(void) {
    return MIO_STR(MIO_VERSION_MAJOR) "." MIO_STR(MIO_VERSION_MINOR) "." MIO_STR(MIO_VERSION_PATCH);
}
int mio_version_number(void) { return MIO_VERSION_NUMBER; }

void mio_free(void *p) { free(p); }

mio_status mio_err_set(mio_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return st;
}

mio_status mio_err_prefix(mio_status st, const char *fmt, ...) {
    char old[MIO_ERRBUF];
    memcpy(old, g_err, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof g_err) snprintf(g_err + n, sizeof g_err - (size_t)n, "%s", old);
    return st;
}

void mio_err_append(const char *fmt, ...) {
    size_t n = strlen(g_err);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err + n, sizeof g_err - n, fmt, ap);
    va_end(ap);
}

const char *mio_last_error(void) { return g_err; }

/* the warning of the last call that reports one (mio_hf_convert) */
static _Thread_local char g_warn[MIO_ERRBUF];

void mio_warn_set(const char *fmt, ...) {
    size_t n = strlen(g_warn);
    if (n && n + 2 < sizeof g_warn) { /* a second warning of the same call follows the first */
        g_warn[n++] = ';';
        g_warn[n++] = ' ';
        g_warn[n] = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_warn + n, sizeof g_warn - n, fmt, ap);
    va_end(ap);
}

void mio_warn_clear(void) { g_warn[0] = 0; }

const char *mio_last_warning(void) { return g_warn; }

const char *mio_status_name(mio_status s) {
    switch (s) {
    case MIO_OK: return "MIO_OK";
    case MIO_ERR_IO: return "MIO_ERR_IO";
    case MIO_ERR_NOMEM: return "MIO_ERR_NOMEM";
    case MIO_ERR_INVALID_ARG: return "MIO_ERR_INVALID_ARG";
    case MIO_ERR_BAD_MAGIC: return "MIO_ERR_BAD_MAGIC";
    case MIO_ERR_UNSUPPORTED_VERSION: return "MIO_ERR_UNSUPPORTED_VERSION";
    case MIO_ERR_TRUNCATED: return "MIO_ERR_TRUNCATED";
    case MIO_ERR_INVALID_TENSOR_INFO: return "MIO_ERR_INVALID_TENSOR_INFO";
    case MIO_ERR_INVALID_ALIGNMENT: return "MIO_ERR_INVALID_ALIGNMENT";
    case MIO_ERR_DUPLICATE_KEY: return "MIO_ERR_DUPLICATE_KEY";
    case MIO_ERR_DUPLICATE_TENSOR: return "MIO_ERR_DUPLICATE_TENSOR";
    case MIO_ERR_UNSUPPORTED_TYPE: return "MIO_ERR_UNSUPPORTED_TYPE";
    case MIO_ERR_OUT_OF_RANGE: return "MIO_ERR_OUT_OF_RANGE";
    case MIO_ERR_NOT_FOUND: return "MIO_ERR_NOT_FOUND";
    case MIO_ERR_TYPE_MISMATCH: return "MIO_ERR_TYPE_MISMATCH";
    case MIO_ERR_OVERFLOW: return "MIO_ERR_OVERFLOW";
    case MIO_ERR_INVALID_KV: return "MIO_ERR_INVALID_KV";
    case MIO_ERR_LIMIT: return "MIO_ERR_LIMIT";
    case MIO_ERR_INVALID_OFFSET: return "MIO_ERR_INVALID_OFFSET";
    case MIO_ERR_SPLIT: return "MIO_ERR_SPLIT";
    case MIO_ERR_SIZE_MISMATCH: return "MIO_ERR_SIZE_MISMATCH";
    case MIO_ERR_TOO_MANY_TENSORS: return "MIO_ERR_TOO_MANY_TENSORS";
    case MIO_ERR_INCOMPLETE: return "MIO_ERR_INCOMPLETE";
    case MIO_ERR_STATE: return "MIO_ERR_STATE";
    case MIO_ERR_BYTE_ORDER: return "MIO_ERR_BYTE_ORDER";
    case MIO_ERR_HEADER_TOO_SMALL: return "MIO_ERR_HEADER_TOO_SMALL";
    case MIO_ERR_HEADER_TOO_LARGE: return "MIO_ERR_HEADER_TOO_LARGE";
    case MIO_ERR_INVALID_HEADER_LENGTH: return "MIO_ERR_INVALID_HEADER_LENGTH";
    case MIO_ERR_INVALID_UTF8: return "MIO_ERR_INVALID_UTF8";
    case MIO_ERR_INVALID_JSON: return "MIO_ERR_INVALID_JSON";
    case MIO_ERR_MISALIGNED_SLICE: return "MIO_ERR_MISALIGNED_SLICE";
    case MIO_ERR_INCOMPLETE_BUFFER: return "MIO_ERR_INCOMPLETE_BUFFER";
    case MIO_ERR_INVALID_METADATA: return "MIO_ERR_INVALID_METADATA";
    case MIO_ERR_ENCODER_UNAVAILABLE: return "MIO_ERR_ENCODER_UNAVAILABLE";
    case MIO_ERR_DECODER_UNAVAILABLE: return "MIO_ERR_DECODER_UNAVAILABLE";
    case MIO_ERR_NON_FINITE: return "MIO_ERR_NON_FINITE";
    case MIO_ERR_CANCELLED: return "MIO_ERR_CANCELLED";
    case MIO_ERR_UNSUPPORTED: return "MIO_ERR_UNSUPPORTED";
    case MIO_ERR_NETWORK: return "MIO_ERR_NETWORK";
    case MIO_ERR_AUTH: return "MIO_ERR_AUTH";
    case MIO_ERR_CHECKSUM: return "MIO_ERR_CHECKSUM";
    }
    return "MIO_ERR_UNKNOWN";
}

const char *mio_esc_bytes(char *buf, size_t bufsz, const void *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = p;
    size_t o = 0;
    if (bufsz < 8) { if (bufsz) buf[0] = 0; return buf; }
    for (size_t i = 0; i < len; i++) {
        if (o + 8 >= bufsz) { memcpy(buf + o, "...", 4); return buf; }
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            buf[o++] = (char)c;
        } else {
            buf[o++] = '\\'; buf[o++] = 'x';
            buf[o++] = hex[c >> 4]; buf[o++] = hex[c & 15];
        }
    }
    buf[o] = 0;
    return buf;
}

char *mio_strfmt(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}
