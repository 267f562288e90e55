/* SPDX-License-Identifier: MIT */
/* hf_vocab_common.h — what the two vocab tests share: a GGUF made in memory by
 * mio_hf_vocab_write (mio_writer_write_cb into a growing buffer), reopened with
 * mio_gguf_open_buffer, and small file helpers. */
#ifndef MIO_TEST_HF_VOCAB_COMMON_H
#define MIO_TEST_HF_VOCAB_COMMON_H

#include "hf/hf_internal.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mio_hf_vocab_write onto a fresh writer, then the file as parsed back (*out, NULL
 * on failure: the status of mio_hf_vocab_write is returned, its message kept). */
static inline mio_status vocab_gguf(const hf_vocab_opts *o, hf_vocab_info *info, membuf *mb, mio_gguf_file **out) {
    *out = NULL;
    memset(mb, 0, sizeof *mb);
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(MIO_WRITER_NO_EMPTY_PAD, &w);
    if (st) return st;
    st = mio_hf_vocab_write(w, o, info);
    if (!st) st = mio_writer_write_cb(w, mem_sink, mb);
    mio_writer_free(w);
    if (!st) st = mio_gguf_open_buffer(mb->p, mb->len, 0, out);
    return st;
}

static inline void put_file(const char *dir, const char *name, const void *data, size_t len) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f) { fprintf(stderr, "cannot write %s\n", p); exit(1); }
    fwrite(data, 1, len, f);
    fclose(f);
}
static inline void put_text(const char *dir, const char *name, const char *text) { put_file(dir, name, text, strlen(text)); }

static inline char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = (char *)realloc(b, cap + 1);
            if (!nb) { free(b); fclose(f); return NULL; }
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (!r) break;
        n += r;
    }
    fclose(f);
    b[n] = 0;
    if (len) *len = n;
    return b;
}

#endif
