/* SPDX-License-Identifier: MIT */
/* lora_gguf.c — mio_lora_to_gguf: the adapter as a llama.cpp LoRA adapter
 * GGUF. llama.cpp (llama_adapter_lora_init) pairs <base tensor>.lora_a with
 * .lora_b, checks a->ne[0] == W->ne[0], b->ne[1] == W->ne[1], a->ne[1] ==
 * b->ne[0] (token_embd: b->ne[1] == W->ne[0], a->ne[1] == W->ne[1], A stored
 * transposed), and scales every pair by adapter.lora.alpha / b->ne[0]. One alpha
 * serves all tensors: per-module scales it cannot express that way are folded
 * into lora_b. Tensors are f32, in base tensor order. */
#include "lora_internal.h"

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mio_status to_gguf(const char *base_path, const char *out_path, int fd, const mio_lora_params *pin) {
    mio_lora_params p;
    mio_status st = mio_lora_params_copy(pin, &p);
    if (st) return st;
    mio_gguf_file *f = NULL;
    if ((st = mio_lora_open_base(base_path, &f)) != MIO_OK) return st;
    if (out_path && mio_gguf_uses_file(f, out_path)) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is one of the input files; refusing to overwrite it", out_path);
    }
    int64_t ka = mio_gguf_find_key(f, "general.architecture");
    if (ka < 0 || mio_gguf_kv_type(f, ka) != MIO_GGUF_STRING) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: the base has no general.architecture string, which a llama.cpp adapter "
                           "must repeat", base_path);
    }
    lora_set s = {0};
    if ((st = mio_lora_load(f, &p, 0, &s)) != MIO_OK) { mio_gguf_close(f); return st; }
    double *fac = calloc(s.n, sizeof *fac);
    float *tmp = NULL;
    mio_writer *w = NULL;
    if (!fac) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    /* llama.cpp's scale for module m is alpha_w / rank_m; it needs
     * scale_m * rank_m. alpha_w is the first module's value; modules needing
     * another one get the ratio folded into lora_b. alpha_w = 0 means "scale 1"
     * to llama.cpp, so then each lora_b carries its whole scale. */
    float alpha_w = 0.0f;
    if (!st) {
        double want0 = s.m[0].scale * (double)s.m[0].rank;
        alpha_w = (float)want0;
        for (size_t i = 0; i < s.n; i++) {
            double want = s.m[i].scale * (double)s.m[i].rank;
            fac[i] = alpha_w != 0.0f ? want / (double)alpha_w : s.m[i].scale;
            if (fabs(fac[i] - 1.0) < 1e-12) fac[i] = 1.0;
        }
        mio_lora_report(&s, &p, fac, alpha_w);
    }
    if (!st) st = mio_writer_new(MIO_WRITER_DEFAULT, &w);
    if (!st) st = mio_writer_copy_kv(w, f, ka);
    if (!st) st = mio_writer_set_str(w, "general.type", "adapter", 7);
    if (!st) st = mio_writer_set_str(w, "adapter.type", "lora", 4);
    if (!st) st = mio_writer_set_f32(w, "adapter.lora.alpha", alpha_w);
    size_t maxn = 0;
    for (size_t i = 0; i < s.n && !st; i++) {
        const lora_mod *m = &s.m[i];
        char na[80], nb[80];
        snprintf(na, sizeof na, "%s.lora_a", m->tensor);
        snprintf(nb, sizeof nb, "%s.lora_b", m->tensor);
        int64_t nea[2], neb[2];
        if (m->embedding) { /* a = A^T: ne [r, vocab]; b = B: ne [r, embd] */
            nea[0] = m->rank; nea[1] = m->rows; neb[0] = m->rank; neb[1] = m->cols;
        } else {            /* a = A: ne [in, r]; b = B: ne [r, out] */
            nea[0] = m->cols; nea[1] = m->rank; neb[0] = m->rank; neb[1] = m->rows;
        }
        if (strlen(na) >= 64) { st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "'%s' is 64 bytes or longer", na); break; }
        if (!st) st = mio_writer_declare_tensor(w, na, MIO_TYPE_F32, 2, nea);
        if (!st) st = mio_writer_declare_tensor(w, nb, MIO_TYPE_F32, 2, neb);
        size_t n1 = (size_t)(m->rank * m->rows), n2 = (size_t)(m->rank * m->cols);
        if (n1 > maxn) maxn = n1;
        if (n2 > maxn) maxn = n2;
    }
    if (!st && !(tmp = malloc((maxn ? maxn : 1) * sizeof(float)))) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!st) st = out_path ? mio_writer_begin_file(w, out_path) : mio_writer_begin_fd(w, fd);
    for (size_t i = 0; i < s.n && !st; i++) {
        const lora_mod *m = &s.m[i];
        const float g = (float)fac[i];
        size_t nbm = (size_t)(m->rank * m->rows), nam = (size_t)(m->rank * m->cols);
        if (!m->embedding) {
            st = mio_writer_write_tensor(w, m->a, nam * sizeof(float));
            for (size_t j = 0; j < nbm; j++) tmp[j] = fac[i] == 1.0 ? m->b[j] : g * m->b[j];
            if (!st) st = mio_writer_write_tensor(w, tmp, nbm * sizeof(float));
        } else {
            /* lora_a = PEFT A^T = m->b ([vocab][r]); lora_b = PEFT B = m->a^T ([embd][r]) */
            st = mio_writer_write_tensor(w, m->b, nbm * sizeof(float));
            for (int64_t e = 0; e < m->cols && !st; e++)
                for (int64_t k = 0; k < m->rank; k++) {
                    float v = m->a[k * m->cols + e];
                    tmp[e * m->rank + k] = fac[i] == 1.0 ? v : g * v;
                }
            if (!st) st = mio_writer_write_tensor(w, tmp, nam * sizeof(float));
        }
    }
    if (!st) st = mio_writer_finish(w);
    mio_writer_free(w);
    free(tmp);
    free(fac);
    mio_lora_set_free(&s);
    mio_gguf_close(f);
    return st;
}

mio_status mio_lora_to_gguf(const char *base_path, const char *out_path, const mio_lora_params *p) {
    if (!base_path) return mio_err_set(MIO_ERR_INVALID_ARG, "base_path is NULL");
    if (!out_path) return mio_err_set(MIO_ERR_INVALID_ARG, "out_path is NULL");
    return to_gguf(base_path, out_path, -1, p);
}

mio_status mio_lora_to_gguf_fd(const char *base_path, int fd, const mio_lora_params *p) {
    if (!base_path) return mio_err_set(MIO_ERR_INVALID_ARG, "base_path is NULL");
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "fd %d is not a descriptor", fd);
    return to_gguf(base_path, NULL, fd, p);
}
