/* SPDX-License-Identifier: MIT */
/* summary.c — mio_model_summary: the numbers a person asks of a model first
 * (architecture, parameters, bits per weight, context, layers, heads,
 * vocabulary, the quantization mix), from the GGUF metadata llama.cpp reads
 * and from the tensor table (any format). */
#include "inspect_internal.h"

#include <stdlib.h>
#include <string.h>

/* caller-allocated output: a new field needs a _sized call (docs/ABI.md) */
ABI_FROZEN(mio_model_summary, types);

static int64_t arch_key(const mio_gguf_file *g, const char *arch, const char *suffix) {
    char k[160];
    snprintf(k, sizeof k, "%s.%s", arch, suffix);
    return mio_gguf_find_key(g, k);
}

/* A u32/u64/i32... value, or the largest element of an array of them (per-layer
 * head counts); 0 when absent or not a number. */
static uint64_t num_of(const mio_gguf_file *g, int64_t k) {
    uint64_t v = 0;
    if (k < 0) return 0;
    if (mio_gguf_kv_u64(g, k, &v) == MIO_OK) return v;
    mio_gguf_value a, e;
    if (mio_gguf_kv_value(g, k, &a) != MIO_OK || a.type != MIO_GGUF_ARRAY) return 0;
    for (uint64_t j = 0; j < a.count; j++) {
        uint64_t x = 0;
        if (mio_gguf_value_elem(&a, j, &e) == MIO_OK && mio_gguf_value_u64(&e, &x) == MIO_OK && x > v) v = x;
    }
    return v;
}

static void copy_str(char *dst, size_t cap, mio_str s) {
    size_t n = s.len < cap - 1 ? s.len : cap - 1;
    if (n) memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

static int cmp_type_bytes(const void *a, const void *b) {
    const mio_summary_type *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return x->type - y->type;
}

MIO_API mio_status mio_model_summary_get(const mio_model *m, mio_model_summary *out) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    mio_model_summary s;
    memset(&s, 0, sizeof s);
    s.format = m->fmt;
    s.n_tensors = m->n;
    for (int64_t i = 0; i < m->n; i++) {
        const mio_model_tensor *t = &m->t[i];
        s.n_params += t->n_elems;
        s.tensor_bytes += t->nbytes;
        uint32_t k = 0;
        while (k < s.n_types && s.types[k].type != t->type) k++;
        if (k == s.n_types && k < MIO_SUMMARY_MAX_TYPES) s.types[s.n_types++].type = t->type;
        if (k < s.n_types) {
            s.types[k].tensors++;
            s.types[k].elements += t->n_elems;
            s.types[k].bytes += t->nbytes;
        }
    }
    qsort(s.types, s.n_types, sizeof s.types[0], cmp_type_bytes);
    s.bits_per_weight = s.n_params ? (double)s.tensor_bytes * 8.0 / (double)s.n_params : 0;
    if (m->g) mio_insp_summary_meta(m->g, &s);
    *out = s;
    return MIO_OK;
}

void mio_insp_summary_meta(const mio_gguf_file *g, mio_model_summary *out) {
    mio_model_summary s = *out;
    mio_str v = {NULL, 0};
    int64_t k = mio_gguf_find_key(g, "general.architecture");
    if (k >= 0 && mio_gguf_kv_str(g, k, &v) == MIO_OK) copy_str(s.architecture, sizeof s.architecture, v);
    k = mio_gguf_find_key(g, "general.name");
    if (k >= 0 && mio_gguf_kv_str(g, k, &v) == MIO_OK) copy_str(s.name, sizeof s.name, v);
    const char *a = s.architecture;
    if (a[0]) {
        s.context_length = num_of(g, arch_key(g, a, "context_length"));
        s.n_layer = num_of(g, arch_key(g, a, "block_count"));
        s.n_embd = num_of(g, arch_key(g, a, "embedding_length"));
        s.n_head = num_of(g, arch_key(g, a, "attention.head_count"));
        s.n_head_kv = num_of(g, arch_key(g, a, "attention.head_count_kv"));
        if (!s.n_head_kv) s.n_head_kv = s.n_head; /* llama.cpp's default */
        s.n_vocab = num_of(g, arch_key(g, a, "vocab_size"));
    }
    mio_gguf_value tv;
    k = mio_gguf_find_key(g, "tokenizer.ggml.tokens");
    if (!s.n_vocab && k >= 0 && mio_gguf_kv_value(g, k, &tv) == MIO_OK && tv.type == MIO_GGUF_ARRAY)
        s.n_vocab = tv.count;
    *out = s;
}

void mio_insp_experts(const mio_gguf_file *g, mio_model_experts *out) {
    memset(out, 0, sizeof *out);
    mio_str v = {NULL, 0};
    char a[64] = "";
    int64_t k = mio_gguf_find_key(g, "general.architecture");
    if (k >= 0 && mio_gguf_kv_str(g, k, &v) == MIO_OK) copy_str(a, sizeof a, v);
    if (a[0]) {
        out->n_expert = num_of(g, arch_key(g, a, "expert_count"));
        out->n_expert_used = num_of(g, arch_key(g, a, "expert_used_count"));
        out->n_expert_shared = num_of(g, arch_key(g, a, "expert_shared_count"));
    }
    int64_t nt = mio_gguf_tensor_count(g);
    uint64_t seen[64] = {0}; /* blocks 0..4095 with expert tensors */
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(g, i, &t) != MIO_OK) continue;
        uint64_t el = 1;
        for (uint32_t d = 0; d < t.n_dims; d++) el *= (uint64_t)t.ne[d];
        out->n_params += el;
        /* gguf-py's count: a routed expert's tensor has "_exps." in its name */
        bool exps = false;
        for (size_t j = 0; j + 6 <= t.name.len && !exps; j++) exps = memcmp(t.name.ptr + j, "_exps.", 6) == 0;
        if (!exps) continue;
        out->n_params_expert += el;
        int64_t b = -1; /* "blk.N." */
        if (t.name.len > 4 && memcmp(t.name.ptr, "blk.", 4) == 0) {
            b = 0;
            for (size_t j = 4; j < t.name.len && t.name.ptr[j] >= '0' && t.name.ptr[j] <= '9'; j++) b = b * 10 + (t.name.ptr[j] - '0');
        }
        if (b >= 0 && b < 4096 && !(seen[b / 64] >> (b % 64) & 1)) {
            seen[b / 64] |= (uint64_t)1 << (b % 64);
            out->n_layer_moe++;
        }
    }
    out->n_params_active = out->n_params;
    if (out->n_expert && out->n_expert_used <= out->n_expert)
        out->n_params_active = out->n_params - out->n_params_expert +
                               (uint64_t)((double)out->n_params_expert * (double)out->n_expert_used / (double)out->n_expert);
}

MIO_API mio_status mio_model_experts_get(const mio_model *m, mio_model_experts *out, size_t out_size) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    mio_model_experts e;
    memset(&e, 0, sizeof e);
    if (m->g) mio_insp_experts(m->g, &e);
    else
        for (int64_t i = 0; i < m->n; i++) e.n_params += m->t[i].n_elems, e.n_params_active += m->t[i].n_elems;
    mio_abi_copy_out(out, out_size, &e, sizeof e);
    return MIO_OK;
}
