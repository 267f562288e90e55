/* SPDX-License-Identifier: MIT */
/* bench_util.h — the timing helpers every benchmark shares: a monotonic clock
 * in milliseconds and the median of a set of runs (the machines are shared and
 * noisy; medians, not single times, are what the tables quote). */
#ifndef MIO_BENCH_UTIL_H
#define MIO_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v (n > 0 values) in place; v[0] is then the minimum. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#endif
