/* SPDX-License-Identifier: MIT */
/* cnum.c — number text in the "C" notation whatever the locale: a program
 * linking the library may call setlocale(LC_ALL, "") (GTK and Qt do), and
 * under de_DE strtod stops at '.' and printf writes ',' (ps_AF: a two-byte
 * U+066B), which would make JSON, GGUF metadata text and --set values wrong.
 * Each call switches the calling thread to a cached "C" locale (uselocale,
 * POSIX 2008: per thread, so other threads are not affected) and back. */
#include "core/core.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static locale_t g_c_locale = (locale_t)0;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { g_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* The "C" locale for this thread; (locale_t)0 when it could not be made (out
 * of memory at the first call): the conversion then runs in the current
 * locale, which is the "C" one unless the program changed it. */
static locale_t enter_c(void) {
    pthread_once(&g_once, make_c_locale);
    return g_c_locale ? uselocale(g_c_locale) : (locale_t)0;
}
static void leave_c(locale_t old) {
    if (old) uselocale(old);
}

double mio_strtod_c(const char *s, char **end) {
    locale_t old = enter_c();
    double v = strtod(s, end);
    leave_c(old);
    return v;
}

float mio_strtof_c(const char *s, char **end) {
    locale_t old = enter_c();
    float v = strtof(s, end);
    leave_c(old);
    return v;
}

int mio_snprintf_c(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    locale_t old = enter_c();
    int n = vsnprintf(buf, cap, fmt, ap);
    leave_c(old);
    va_end(ap);
    return n;
}
