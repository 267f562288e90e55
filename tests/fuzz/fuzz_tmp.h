/* SPDX-License-Identifier: MIT */
/* fuzz_tmp.h — a private temporary directory for the fuzz targets that read
 * from paths (sharded indexes, imatrix files, LoRA adapters): made once per
 * process, its files listed for removal at exit. */
#ifndef MIO_FUZZ_TMP_H
#define MIO_FUZZ_TMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_fz_dir[64];
static char g_fz_files[16][192];
static int g_fz_n;

static void fz_cleanup(void) {
    for (int i = 0; i < g_fz_n; i++) unlink(g_fz_files[i]);
    if (g_fz_dir[0]) rmdir(g_fz_dir);
}

/* The directory (made on first call; aborts if it cannot be: nothing to fuzz). */
static const char *fz_dir(void) {
    if (!g_fz_dir[0]) {
        snprintf(g_fz_dir, sizeof g_fz_dir, "/tmp/mio-fuzz-XXXXXX");
        if (!mkdtemp(g_fz_dir)) abort();
        atexit(fz_cleanup);
    }
    return g_fz_dir;
}

/* dir/name, remembered for removal at exit. */
static const char *fz_path(const char *name, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", fz_dir(), name);
    for (int i = 0; i < g_fz_n; i++)
        if (strcmp(g_fz_files[i], buf) == 0) return buf;
    if (g_fz_n < 16) snprintf(g_fz_files[g_fz_n++], sizeof g_fz_files[0], "%s", buf);
    return buf;
}

/* Writes len bytes to dir/name (replacing it); the path into buf. */
static const char *fz_write(const char *name, const void *data, size_t len, char *buf, size_t cap) {
    fz_path(name, buf, cap);
    FILE *fp = fopen(buf, "wb");
    if (!fp) abort();
    if (len && fwrite(data, 1, len, fp) != len) abort();
    if (fclose(fp)) abort();
    return buf;
}

#endif
