/* SPDX-License-Identifier: MIT */
/* rss.h — the process's resident set size now and at its peak, in KiB, for the
 * tests that bound a call's working set (test_quantize_memory, test_hf_memory). */
#ifndef MIO_TEST_RSS_H
#define MIO_TEST_RSS_H

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static inline long rss_now_kib(void) {
    FILE *fp = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (fp) {
        if (fscanf(fp, "%ld %ld", &size, &res) != 2) res = 0;
        fclose(fp);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static inline long rss_peak_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

#endif
