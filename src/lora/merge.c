/* SPDX-License-Identifier: MIT */
/* merge.c — mio_lora_merge: stream the base GGUF to the output, folding
 * W + scale * B * A into each targeted weight a chunk of rows at a time (f32
 * arithmetic, one rounding to the weight's type); every other tensor and all
 * metadata are copied byte-verbatim. The adapter set is fully validated by
 * mio_lora_load before the writer starts, and a path output is atomic, so no
 * failure leaves a file behind. */
#include "lora_internal.h"

#include "core/core.h"
#include "gguf/gguf_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define CHUNK_BYTES ((size_t)4 << 20)

static mio_status merge_tensor(mio_writer *w, const mio_gguf_tensor *t, const lora_mod *m) {
    const int64_t rows = m->rows, cols = m->cols, rank = m->rank;
    const size_t esz = t->type == MIO_TYPE_F32 ? 4 : 2, rb = (size_t)cols * esz;
    int64_t chunk = (int64_t)(CHUNK_BYTES / ((size_t)cols * 4));
    if (chunk < 1) chunk = 1;
    if (chunk > rows) chunk = rows;
    float *buf = malloc((size_t)chunk * (size_t)cols * sizeof(float));
    float *d = malloc((size_t)cols * sizeof(float));
    float *sb = malloc((size_t)rank * sizeof(float));
    void *enc = esz == 4 ? (void *)buf : malloc((size_t)chunk * rb);
    mio_status st = MIO_OK;
    if (!buf || !d || !sb || !enc) st = mio_err_set(MIO_ERR_NOMEM, "cannot allocate the merge buffers of '%s'", m->tensor);
    const float scale = (float)m->scale;
    const uint8_t *src = t->data;
    for (int64_t r0 = 0; r0 < rows && !st; r0 += chunk) {
        int64_t n = rows - r0 < chunk ? rows - r0 : chunk;
        size_t ne = (size_t)n * (size_t)cols;
        if ((st = mio_decode_f32(t->type, src + (size_t)r0 * rb, (size_t)n * rb, buf, ne)) != MIO_OK) break;
        for (int64_t o = 0; o < n && !st; o++) {
            const float *bo = m->b + (r0 + o) * rank;
            float *row = buf + (size_t)o * (size_t)cols;
            for (int64_t k = 0; k < rank; k++) sb[k] = scale * bo[k];
            memset(d, 0, (size_t)cols * sizeof(float));
            for (int64_t k = 0; k < rank; k++) {
                const float c = sb[k], *ak = m->a + k * cols;
                if (c == 0.0f) continue;
                for (int64_t i = 0; i < cols; i++) d[i] += c * ak[i];
            }
            for (int64_t i = 0; i < cols; i++) {
                float v = row[i] + d[i];
                /* a finite weight must stay finite in its own type */
                if (isfinite(row[i]) && (!isfinite(v) || (t->type == MIO_TYPE_F16 && fabsf(v) >= 65520.0f))) {
                    st = mio_err_set(MIO_ERR_NON_FINITE, "merging into '%s' overflows %s at row %lld, column %lld (%g + %g)",
                                     m->tensor, mio_type_name(t->type), (long long)r0 + o, (long long)i, (double)row[i],
                                     (double)d[i]);
                    break;
                }
                row[i] = v;
            }
        }
        if (!st) st = mio_encode_f32(t->type, buf, ne, enc, (size_t)n * rb);
        if (!st) st = mio_writer_write_tensor_part(w, enc, (size_t)n * rb);
    }
    if (enc != (void *)buf) free(enc);
    free(buf);
    free(d);
    free(sb);
    return st;
}

static mio_status merge(const char *base_path, const char *out_path, int fd, const mio_lora_params *pin) {
    mio_lora_params p;
    mio_status st = mio_lora_params_copy(pin, &p);
    if (st) return st;
    mio_gguf_file *f = NULL;
    if ((st = mio_lora_open_base(base_path, &f)) != MIO_OK) return st;
    if (out_path && mio_gguf_uses_file(f, out_path)) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is one of the input files; refusing to overwrite it", out_path);
    }
    lora_set s = {0};
    if ((st = mio_lora_load(f, &p, 1, &s)) != MIO_OK) { mio_gguf_close(f); return st; }
    mio_lora_report(&s, &p, NULL, 0.0f);
    mio_writer *w = NULL;
    int64_t nt = mio_gguf_tensor_count(f);
    st = mio_writer_new(MIO_WRITER_DEFAULT, &w);
    if (!st) st = mio_writer_copy_all_kv(w, f, mio_gguf_split_keys, mio_gguf_part_count(f) > 1 ? 3 : 0);
    for (int64_t i = 0; i < nt && !st; i++) {
        mio_gguf_tensor t;
        char name[64];
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK) break;
        snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
        st = mio_writer_declare_tensor(w, name, t.type, t.n_dims, t.ne);
    }
    if (!st) st = out_path ? mio_writer_begin_file(w, out_path) : mio_writer_begin_fd(w, fd);
    size_t next = 0;
    for (int64_t i = 0; i < nt && !st; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK) break;
        if (next < s.n && s.m[next].base_index == i) {
            mio_gguf_prefetch(f, t.data, (size_t)t.nbytes);
            st = merge_tensor(w, &t, &s.m[next++]);
        } else if (t.nbytes > SIZE_MAX) {
            st = mio_err_set(MIO_ERR_OVERFLOW, "tensor '%.64s' is larger than the address space", t.name.ptr);
        } else {
            st = mio_writer_write_tensor(w, t.data, (size_t)t.nbytes);
        }
        mio_gguf_release(f, t.data, (size_t)t.nbytes);
    }
    if (!st) st = mio_writer_finish(w);
    mio_writer_free(w); /* removes the temp file of an unfinished write */
    mio_lora_set_free(&s);
    mio_gguf_close(f);
    return st;
}

mio_status mio_lora_merge(const char *base_path, const char *out_path, const mio_lora_params *p) {
    if (!base_path) return mio_err_set(MIO_ERR_INVALID_ARG, "base_path is NULL");
    if (!out_path) return mio_err_set(MIO_ERR_INVALID_ARG, "out_path is NULL");
    return merge(base_path, out_path, -1, p);
}

mio_status mio_lora_merge_fd(const char *base_path, int fd, const mio_lora_params *p) {
    if (!base_path) return mio_err_set(MIO_ERR_INVALID_ARG, "base_path is NULL");
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "fd %d is not a descriptor", fd);
    return merge(base_path, NULL, fd, p);
}
