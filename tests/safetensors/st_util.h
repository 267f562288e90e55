/* SPDX-License-Identifier: MIT */
/* st_util.h — small helpers shared by the safetensors tests: building a
 * safetensors image in memory from a JSON string and data bytes, reading whole
 * files, and per-test temporary directories (mkdtemp in the working directory). */
#ifndef MIO_ST_UTIL_H
#define MIO_ST_UTIL_H

#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 8-byte LE length n_json + json bytes + data bytes; malloc()ed, length in *len. */
static inline uint8_t *st_build(const char *json, size_t n_json, const void *data, size_t n_data, size_t *len) {
    uint8_t *b = malloc(8 + n_json + n_data + 1);
    if (!b) abort();
    uint64_t n = n_json;
    for (int k = 0; k < 8; k++) b[k] = (uint8_t)(n >> (8 * k));
    if (n_json) memcpy(b + 8, json, n_json);
    if (n_data) memcpy(b + 8 + n_json, data, n_data);
    *len = 8 + n_json + n_data;
    return b;
}

/* Parse json (NUL-terminated) + n_data bytes of 0..n_data-1 from memory. Returns the
 * status; the handle is closed unless keep != NULL (then *keep gets it on success). */
static inline mio_status st_try(const char *json, size_t n_data, mio_st_file **keep) {
    uint8_t *data = malloc(n_data + 1);
    if (!data) abort();
    for (size_t i = 0; i < n_data; i++) data[i] = (uint8_t)i;
    size_t len;
    uint8_t *b = st_build(json, strlen(json), data, n_data, &len);
    free(data);
    mio_st_file *f = NULL;
    mio_status st = mio_st_open_buffer(b, len, MIO_BUFFER_TAKE, &f);
    if (st == MIO_OK) {
        if (keep) *keep = f;
        else mio_st_close(f);
    }
    return st;
}

static inline int st_write_all(const char *path, const void *p, size_t n) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t w = fwrite(p, 1, n, fp);
    return (fclose(fp) == 0 && w == n) ? 0 : -1;
}

/* A fresh temporary directory under the working directory. */
static inline char *st_tmpdir(const char *tag) {
    static char buf[8][256];
    static int k;
    char *b = buf[k++ & 7];
    snprintf(b, 256, "./%s-XXXXXX", tag);
    if (!mkdtemp(b)) { perror("mkdtemp"); abort(); }
    return b;
}

/* Number of entries in dir whose name starts with prefix. */
static inline int st_count_prefix(const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(d);
    return n;
}

/* Remove every plain file in dir, then dir. */
static inline void st_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static inline int st_file_exists(const char *path) {
    struct stat s;
    return stat(path, &s) == 0;
}

/* Compare a mio_str with n raw bytes. */
static inline int st_str_eq(mio_str s, const void *p, size_t n) { return s.len == n && memcmp(s.ptr, p, n) == 0; }

#endif
