/* SPDX-License-Identifier: MIT */
/* estimate.c — "will it fit?": the memory llama.cpp's CPU back end allocates for
 * a GGUF model and a context (docs/ESTIMATE.md): the mapped weights, the KV
 * cache (per layer, GQA, sliding-window layers, quantized caches) and the
 * compute buffer of the prompt-processing graph ggml reserves. */
#include "core/core.h"

#include <modelio_inspect.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EST_MAX_LAYERS 512 /* llama.cpp's LLAMA_MAX_LAYERS */
#define EST_MAX_SEQ 256    /* llama.cpp's LLAMA_MAX_SEQ */
#define EST_ALIGN 32
#define EST_KV_PAD 256     /* llama.cpp pads the KV cache size to this many cells */       /* the CPU buffer type's alignment (ggml TENSOR_ALIGNMENT) */

/* What the estimate needs from the model's metadata and tensor table. */
typedef struct est_model {
    char arch[32];
    uint32_t n_layer, n_embd, n_vocab, n_ctx_train, n_swa, n_rot;
    uint32_t head_k, head_v; /* n_embd_head_k / _v */
    uint32_t n_head[EST_MAX_LAYERS], n_head_kv[EST_MAX_LAYERS], n_ff[EST_MAX_LAYERS];
    bool swa[EST_MAX_LAYERS];
    uint64_t weights;
    int64_t n_expert, n_expert_used, n_ff_exp;
    bool has_output; /* output.weight present (else tied to token_embd) */
    bool mla;        /* multi-head latent attention (attention.kv_lora_rank: DeepSeek-V2/V3): llama.cpp caches only K
                        (the latent + the rope part, key_length wide, one head), V is a view of it */
} est_model;

/* ------------------------------------------------------------ parameters */

void mio_estimate_default_params(mio_estimate_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->n_ctx = 512;
    p->n_batch = 2048;
    p->n_ubatch = 512;
    p->n_seq_max = 1;
    p->type_k = MIO_TYPE_F16;
    p->type_v = MIO_TYPE_F16;
    p->flash_attn = MIO_FLASH_ATTN_AUTO;
    p->swa_full = 1;
    p->kv_unified = 0;
}

mio_status mio_estimate_default_params_sized(mio_estimate_params *p, size_t size) {
    mio_estimate_params d;
    mio_estimate_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_estimate_params");
}

/* ------------------------------------------------------------ metadata */

static int64_t arch_key(const mio_gguf_file *f, const char *arch, const char *sfx) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, sfx);
    return mio_gguf_find_key(f, key);
}

/* <arch>.<sfx> as an unsigned scalar; *found 0 when absent. An array is an error here. */
static mio_status arch_u32(const mio_gguf_file *f, const char *arch, const char *sfx, uint32_t *out, bool *found) {
    int64_t i = arch_key(f, arch, sfx);
    *found = i >= 0;
    if (i < 0) return MIO_OK;
    uint64_t v = 0;
    mio_status st = mio_gguf_kv_u64(f, i, &v);
    if (st || v > UINT32_MAX)
        return mio_err_set(st ? st : MIO_ERR_OUT_OF_RANGE, "%s.%s: not an unsigned 32-bit number", arch, sfx);
    *out = (uint32_t)v;
    return MIO_OK;
}

/* A per-layer hyperparameter: a scalar for every layer, or an array of n_layer values. */
static mio_status arch_per_layer(const mio_gguf_file *f, const char *arch, const char *sfx, uint32_t n_layer,
                                 uint32_t *out, bool *found) {
    int64_t i = arch_key(f, arch, sfx);
    *found = i >= 0;
    if (i < 0) return MIO_OK;
    if (mio_gguf_kv_type(f, i) == MIO_GGUF_ARRAY) {
        mio_gguf_value v;
        mio_status st = mio_gguf_kv_value(f, i, &v);
        if (st) return st;
        if (v.count != n_layer)
            return mio_err_set(MIO_ERR_INVALID_KV, "%s.%s: %llu values for %u layers", arch, sfx,
                               (unsigned long long)v.count, n_layer);
        for (uint32_t l = 0; l < n_layer; l++) {
            uint64_t x = 0;
            st = mio_gguf_arr_u64(f, i, l, &x);
            if (st || x > UINT32_MAX) return mio_err_set(st ? st : MIO_ERR_OUT_OF_RANGE, "%s.%s[%u]: bad value", arch, sfx, l);
            out[l] = (uint32_t)x;
        }
        return MIO_OK;
    }
    uint32_t x = 0;
    bool dummy;
    mio_status st = arch_u32(f, arch, sfx, &x, &dummy);
    if (st) return st;
    for (uint32_t l = 0; l < n_layer; l++) out[l] = x;
    return MIO_OK;
}

/* Sliding-window layers of the architectures llama.cpp gives them (its
 * set_swa_pattern(n): layer il slides when il % n < n - 1). */
static uint32_t swa_pattern_of(const char *arch) {
    static const struct {
        const char *arch;
        uint32_t pattern;
    } t[] = {{"gemma2", 2}, {"gemma3", 6}, {"cohere2", 4}, {"gpt-oss", 2}, {"exaone4", 4}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
        if (!strcmp(arch, t[k].arch)) return t[k].pattern;
    return 0;
}

static bool arch_is(const char *arch, const char *const *list, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (!strcmp(arch, list[k])) return true;
    return false;
}

static mio_status read_model(const mio_gguf_file *f, est_model *m) {
    mio_str a = {NULL, 0};
    int64_t ia = mio_gguf_find_key(f, "general.architecture");
    if (ia < 0 || mio_gguf_kv_str(f, ia, &a) != MIO_OK || a.len == 0)
        return mio_err_set(MIO_ERR_INVALID_METADATA, "general.architecture is missing or not a string");
    if (a.len >= sizeof m->arch) return mio_err_set(MIO_ERR_UNSUPPORTED, "architecture '%.*s' is unknown", (int)a.len, a.ptr);
    memcpy(m->arch, a.ptr, a.len);
    m->arch[a.len] = 0;
    const char *arch = m->arch;

    /* attention this file does not model: recurrent / hybrid state, MLA, encoders */
    static const char *const recurrent_keys[] = {"ssm.conv_kernel", "wkv.head_size", "shortconv.l_cache"};
    for (size_t k = 0; k < sizeof recurrent_keys / sizeof recurrent_keys[0]; k++)
        if (arch_key(f, arch, recurrent_keys[k]) >= 0)
            return mio_err_set(MIO_ERR_UNSUPPORTED, "architecture '%s' (%s.%s): recurrent or hybrid attention is not "
                               "estimated", arch, arch, recurrent_keys[k]);
    m->mla = arch_key(f, arch, "attention.kv_lora_rank") >= 0;
    static const char *const encoders[] = {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3",
                                           "neo-bert", "modern-bert", "t5", "t5encoder", "wavtokenizer-dec", "clip"};
    if (arch_is(arch, encoders, sizeof encoders / sizeof encoders[0]))
        return mio_err_set(MIO_ERR_UNSUPPORTED, "architecture '%s': encoder models are not estimated", arch);

    bool found;
    mio_status st = arch_u32(f, arch, "block_count", &m->n_layer, &found);
    if (st) return st;
    if (!found || m->n_layer == 0) return mio_err_set(MIO_ERR_INVALID_METADATA, "%s.block_count is missing", arch);
    if (m->n_layer > EST_MAX_LAYERS)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "%s.block_count %u is above llama.cpp's %d layers", arch, m->n_layer,
                           EST_MAX_LAYERS);
    st = arch_u32(f, arch, "embedding_length", &m->n_embd, &found);
    if (st) return st;
    if (!found || m->n_embd == 0) return mio_err_set(MIO_ERR_INVALID_METADATA, "%s.embedding_length is missing", arch);
    st = arch_u32(f, arch, "context_length", &m->n_ctx_train, &found);
    if (st) return st;
    st = arch_per_layer(f, arch, "attention.head_count", m->n_layer, m->n_head, &found);
    if (st) return st;
    if (!found) return mio_err_set(MIO_ERR_INVALID_METADATA, "%s.attention.head_count is missing", arch);
    st = arch_per_layer(f, arch, "attention.head_count_kv", m->n_layer, m->n_head_kv, &found);
    if (st) return st;
    if (!found) memcpy(m->n_head_kv, m->n_head, sizeof m->n_head_kv);
    st = arch_per_layer(f, arch, "feed_forward_length", m->n_layer, m->n_ff, &found);
    if (st) return st;
    uint32_t n_head0 = 0;
    for (uint32_t l = 0; l < m->n_layer; l++)
        if (m->n_head[l]) { n_head0 = m->n_head[l]; break; }
    if (!n_head0) return mio_err_set(MIO_ERR_INVALID_METADATA, "%s.attention.head_count is 0", arch);
    /* llama.cpp: n_embd_head_k = key_length, else n_embd / n_head (of layer 0) */
    m->head_k = m->head_v = m->n_embd / (m->n_head[0] ? m->n_head[0] : n_head0);
    st = arch_u32(f, arch, "attention.key_length", &m->head_k, &found);
    if (st) return st;
    st = arch_u32(f, arch, "attention.value_length", &m->head_v, &found);
    if (st) return st;
    m->n_rot = m->head_k;
    st = arch_u32(f, arch, "rope.dimension_count", &m->n_rot, &found);
    if (st) return st;
    uint32_t ne = 0, neu = 0;
    st = arch_u32(f, arch, "expert_count", &ne, &found);
    if (st) return st;
    st = arch_u32(f, arch, "expert_used_count", &neu, &found);
    if (st) return st;
    m->n_expert = ne;
    m->n_expert_used = neu;
    uint32_t nfe = 0;
    st = arch_u32(f, arch, "expert_feed_forward_length", &nfe, &found);
    if (st) return st;
    m->n_ff_exp = nfe ? nfe : (ne ? m->n_ff[0] : 0);

    /* sliding window */
    st = arch_u32(f, arch, "attention.sliding_window", &m->n_swa, &found);
    if (st) return st;
    uint32_t pattern = swa_pattern_of(arch);
    int64_t ip = arch_key(f, arch, "attention.sliding_window_pattern");
    if (ip >= 0 && mio_gguf_kv_type(f, ip) == MIO_GGUF_ARRAY) {
        mio_gguf_value v;
        st = mio_gguf_kv_value(f, ip, &v);
        if (st) return st;
        if (v.count != m->n_layer)
            return mio_err_set(MIO_ERR_INVALID_KV, "%s.attention.sliding_window_pattern: %llu values for %u layers", arch,
                               (unsigned long long)v.count, m->n_layer);
        for (uint32_t l = 0; l < m->n_layer; l++) {
            uint64_t x = 0;
            st = mio_gguf_arr_u64(f, ip, l, &x);
            if (st) return st;
            m->swa[l] = m->n_swa && x != 0;
        }
    } else {
        if (ip >= 0) {
            st = arch_u32(f, arch, "attention.sliding_window_pattern", &pattern, &found);
            if (st) return st;
        }
        for (uint32_t l = 0; l < m->n_layer; l++)
            m->swa[l] = m->n_swa && pattern && (pattern == 1 || l % pattern < pattern - 1);
    }
    st = arch_u32(f, arch, "vocab_size", &m->n_vocab, &found);
    if (st) return st;
    if (!found) {
        int64_t it = mio_gguf_find_key(f, "tokenizer.ggml.tokens");
        mio_gguf_value v;
        if (it >= 0 && mio_gguf_kv_value(f, it, &v) == MIO_OK && v.count <= UINT32_MAX) m->n_vocab = (uint32_t)v.count;
    }

    /* weights: per file, the first to the last tensor byte (llama.cpp maps that range) */
    uint32_t parts = mio_gguf_part_count(f);
    int64_t nt = mio_gguf_tensor_count(f);
    for (uint32_t p = 0; p < parts; p++) {
        uint64_t first = UINT64_MAX, last = 0;
        for (int64_t i = 0; i < nt; i++) {
            mio_gguf_tensor t;
            st = mio_gguf_tensor_info(f, i, &t);
            if (st) return st;
            if (t.part != p) continue;
            if (t.offset < first) first = t.offset;
            if (t.offset + t.nbytes > last) last = t.offset + t.nbytes;
        }
        if (first != UINT64_MAX) m->weights += last - first;
    }
    m->has_output = mio_gguf_find_tensor(f, "output.weight") >= 0;
    int64_t ie = mio_gguf_find_tensor(f, "token_embd.weight");
    if (ie >= 0 && !m->n_vocab) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(f, ie, &t) == MIO_OK && t.ne[1] > 0 && t.ne[1] <= UINT32_MAX)
            m->n_vocab = (uint32_t)t.ne[1];
    }
    return MIO_OK;
}

/* ------------------------------------------------------------ sizes */

static uint64_t pad_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static uint64_t row_bytes(int type, uint64_t n) {
    int64_t bs = mio_type_block_size(type);
    size_t bb = mio_type_block_bytes(type);
    if (bs <= 0 || !bb) return 0;
    return n / (uint64_t)bs * bb;
}

static bool type_quantized(int type) { return type != MIO_TYPE_F32 && type != MIO_TYPE_F16 && type != MIO_TYPE_BF16; }

/* The compute buffer: the high-water mark of ggml's graph allocator for the
 * prompt-processing graph llama.cpp reserves (n_ubatch tokens, every token an
 * output), the largest of three phases (docs/ESTIMATE.md):
 *   attention: the KQ matrix (without flash attention), its masks, the
 *              activations around it and the cache-row indices;
 *   FFN:       the gate, up and activation rows of n_ff, the residual, and the
 *              freed rows of n_embd the allocator cannot reuse for them;
 *   output:    the logits, n_vocab floats a token, above the rows of n_embd
 *              still live (the masks are mostly freed by then).
 * The coefficients were measured on the peer's allocator (tests/interop/
 * interop_estimate.c); every input mask lives through all three. */
static uint64_t compute_bytes(const est_model *m, const mio_estimate_result *r, uint64_t kv_size_max) {
    const uint64_t T = r->n_ubatch, E = m->n_embd, V = m->n_vocab;
    const bool fa = r->flash_attn == MIO_FLASH_ATTN_ON;
    uint64_t H = 0, HD = 0, KVD = 0, F = 0;
    for (uint32_t l = 0; l < m->n_layer; l++) {
        if (m->n_head[l] > H) H = m->n_head[l];
        if ((uint64_t)m->head_k * m->n_head[l] > HD) HD = (uint64_t)m->head_k * m->n_head[l];
        if ((uint64_t)m->head_v * m->n_head_kv[l] > KVD) KVD = (uint64_t)m->head_v * m->n_head_kv[l];
        if (m->n_ff[l] > F) F = m->n_ff[l];
    }
    if (m->n_expert > 0 && m->n_expert_used > 0 && m->n_ff_exp > 0) {
        /* mixture of experts: the selected experts' rows, and the router's */
        uint64_t fe = (uint64_t)m->n_ff_exp * (uint64_t)m->n_expert_used;
        if (fe > F) F = fe;
    }
    const uint64_t mask_type = fa ? 2 : 4;
    uint64_t mask = 0;
    if (r->n_layer_kv > r->n_layer_swa) mask += (uint64_t)r->kv_size * T * mask_type; /* [n_kv, n_ubatch / streams, 1, streams] */
    if (r->n_layer_swa) mask += (uint64_t)r->kv_size_swa * T * mask_type;
    uint64_t attn = T * (3 * E + 2 * HD) * 4 + T * 20 + (fa ? T * 8 : T * KVD * 8) + mask;
    if (!fa) attn += kv_size_max * T * H * 4; /* KQ, soft_max in place */
    uint64_t ffn = T * (3 * F + E + (F <= 2 * E ? F : 3 * E)) * 4 + T * 28 + mask;
    if (m->n_expert > 0) ffn += T * (uint64_t)m->n_expert * 4 * 3;
    uint64_t out = T * (V + 4 * E) * 4 + (mask / 4 < T * E * 4 ? mask / 4 : T * E * 4);
    uint64_t c = attn > ffn ? attn : ffn;
    return c > out ? c : out;
}

static mio_status estimate(const est_model *m, const mio_estimate_params *p, mio_estimate_result *r) {
    if (p->n_seq_max > EST_MAX_SEQ)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "n_seq_max %u is above llama.cpp's %d sequences", p->n_seq_max,
                           EST_MAX_SEQ);
    static const int cache_types[] = {MIO_TYPE_F32, MIO_TYPE_F16, MIO_TYPE_BF16, MIO_TYPE_Q8_0, MIO_TYPE_Q4_0,
                                      MIO_TYPE_Q4_1, MIO_TYPE_IQ4_NL, MIO_TYPE_Q5_0, MIO_TYPE_Q5_1};
    for (int kv = 0; kv < 2; kv++) {
        int t = kv ? p->type_v : p->type_k;
        bool ok = false;
        for (size_t k = 0; k < sizeof cache_types / sizeof cache_types[0]; k++) ok = ok || cache_types[k] == t;
        if (!ok) {
            const char *n = mio_type_name(t);
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s cache type %s: llama.cpp's caches are f32, f16, bf16, q8_0, "
                               "q4_0, q4_1, iq4_nl, q5_0 or q5_1", kv ? "V" : "K", n ? n : "(unknown)");
        }
    }
    if (p->flash_attn < MIO_FLASH_ATTN_AUTO || p->flash_attn > MIO_FLASH_ATTN_ON)
        return mio_err_set(MIO_ERR_INVALID_ARG, "flash_attn %d is not MIO_FLASH_ATTN_AUTO, _OFF or _ON", p->flash_attn);
    /* llama.cpp refuses a quantized V cache without flash attention; auto
     * resolves to on with the CPU back end (it runs FLASH_ATTN_EXT), off for
     * MLA (K and V heads of different widths) and for a quantized cache whose
     * blocks do not tile a head (q8_0 with heads of 16): measured on the peer */
    bool fa_fits = !m->mla && m->head_k % (uint32_t)mio_type_block_size(p->type_k) == 0 &&
                   m->head_v % (uint32_t)mio_type_block_size(p->type_v) == 0;
    int fa = p->flash_attn == MIO_FLASH_ATTN_OFF || (p->flash_attn == MIO_FLASH_ATTN_AUTO && !fa_fits) ? MIO_FLASH_ATTN_OFF
                                                                                                     : MIO_FLASH_ATTN_ON;
    if (fa == MIO_FLASH_ATTN_OFF && type_quantized(p->type_v))
        return mio_err_set(MIO_ERR_UNSUPPORTED, "quantized V cache (%s) requires flash attention: llama.cpp refuses it with "
                           "flash_attn off", mio_type_name(p->type_v));

    uint32_t n_ctx = p->n_ctx ? p->n_ctx : m->n_ctx_train;
    if (!n_ctx) return mio_err_set(MIO_ERR_INVALID_ARG, "n_ctx is 0 and the model has no %s.context_length", m->arch);
    if (!p->n_batch && !p->n_ubatch) return mio_err_set(MIO_ERR_INVALID_ARG, "n_batch and n_ubatch are both 0");
    uint32_t n_seq = p->n_seq_max ? p->n_seq_max : 1;
    uint32_t n_batch = p->n_batch < n_ctx ? p->n_batch : n_ctx; /* causal: the batch fits the context */
    uint32_t n_ubatch = p->n_ubatch ? p->n_ubatch : n_batch;
    if (n_ubatch > n_batch) n_ubatch = n_batch;
    /* llama.cpp pads the context to 256 cells, splits it among the streams
     * (rounding down) and pads each stream's cache to 256 again; llama_n_ctx
     * then reports the cells of all streams */
    uint64_t n_ctx_pad = pad_up(n_ctx, EST_KV_PAD);
    if (n_ctx_pad > UINT32_MAX) return mio_err_set(MIO_ERR_OUT_OF_RANGE, "n_ctx %u is too large", n_ctx);
    uint32_t n_stream = p->kv_unified ? 1 : n_seq;
    uint64_t n_ctx_seq = n_ctx_pad / n_stream;
    if (!n_ctx_seq) return mio_err_set(MIO_ERR_INVALID_ARG, "n_ctx %u is smaller than n_seq_max %u", n_ctx, n_seq);
    n_ctx_seq = pad_up(n_ctx_seq, EST_KV_PAD);
    n_ctx = (uint32_t)(n_ctx_seq * n_stream);
    uint32_t kv_size = (uint32_t)n_ctx_seq;
    uint32_t kv_size_swa = 0;
    bool any_swa = false;
    for (uint32_t l = 0; l < m->n_layer; l++) any_swa = any_swa || m->swa[l];
    if (any_swa) {
        uint64_t s = pad_up((uint64_t)m->n_swa * (p->kv_unified ? n_seq : 1) + n_ubatch, EST_KV_PAD);
        kv_size_swa = p->swa_full || s > kv_size ? kv_size : (uint32_t)s;
    }

    /* V rows: without flash attention V is stored transposed, and layers of
     * different V widths are padded to the widest */
    uint64_t v_max = 0;
    bool v_differ = false;
    for (uint32_t l = 0; l < m->n_layer; l++) {
        uint64_t v = (uint64_t)m->head_v * m->n_head_kv[l];
        if (l && v != v_max && m->n_head_kv[l]) v_differ = true;
        if (v > v_max) v_max = v;
    }
    uint64_t kb = 0, vb = 0;
    uint32_t n_layer_kv = 0, n_layer_swa = 0;
    for (uint32_t l = 0; l < m->n_layer; l++) {
        if (!m->n_head_kv[l]) continue;
        uint64_t cells = (uint64_t)(m->swa[l] ? kv_size_swa : kv_size) * n_stream;
        uint64_t ek = (uint64_t)m->head_k * m->n_head_kv[l];
        uint64_t ev = fa == MIO_FLASH_ATTN_OFF && v_differ ? v_max : (uint64_t)m->head_v * m->n_head_kv[l];
        kb += pad_up(row_bytes(p->type_k, ek) * cells, EST_ALIGN);
        if (!m->mla) vb += pad_up(row_bytes(p->type_v, ev) * cells, EST_ALIGN);
        n_layer_kv++;
        n_layer_swa += m->swa[l];
    }

    memset(r, 0, sizeof *r);
    r->weights_bytes = m->weights;
    r->k_bytes = kb;
    r->v_bytes = vb;
    r->kv_cache_bytes = kb + vb;
    r->output_bytes = (uint64_t)m->n_vocab * n_seq * sizeof(float);
    r->n_ctx = n_ctx;
    r->n_ctx_seq = (uint32_t)n_ctx_seq;
    r->n_batch = n_batch;
    r->n_ubatch = n_ubatch;
    r->n_seq_max = n_seq;
    r->kv_size = kv_size;
    r->kv_size_swa = kv_size_swa;
    r->n_stream = n_stream;
    r->n_layer = m->n_layer;
    r->n_layer_kv = n_layer_kv;
    r->n_layer_swa = n_layer_swa;
    r->n_swa = any_swa ? m->n_swa : 0;
    r->flash_attn = fa;
    r->type_k = p->type_k;
    r->type_v = p->type_v;
    snprintf(r->arch, sizeof r->arch, "%s", m->arch);
    r->compute_bytes = compute_bytes(m, r, kv_size);
    r->total_bytes = r->weights_bytes + r->kv_cache_bytes + r->compute_bytes + r->output_bytes;
    return MIO_OK;
}

mio_status mio_estimate_sized(const char *path, const mio_estimate_params *pin, mio_estimate_result *out,
                              size_t out_size) {
    if (!path || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !path ? "path" : "out");
    if (out_size < offsetof(mio_estimate_result, k_bytes) || out_size > ABI_MAX_STRUCT)
        return mio_err_set(MIO_ERR_INVALID_ARG, "out_size %zu is not a mio_estimate_result size", out_size);
    mio_estimate_params p;
    mio_estimate_default_params(&p);
    if (pin) {
        mio_status st = mio_abi_params_merge(&p, sizeof p, pin, sizeof p, "mio_estimate_params",
                                             "mio_estimate_default_params");
        if (st) return st;
    }
    mio_gguf_file *f = NULL;
    /* a split's first part opens them all; a remote file's header alone */
    mio_status st = mio_gguf_open(path, MIO_OPEN_SPLITS | MIO_OPEN_HEADER, &f);
    if (st) return st; /* the reader's message names the file */
    est_model *m = calloc(1, sizeof *m);
    if (!m) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    st = read_model(f, m);
    mio_gguf_close(f);
    mio_estimate_result r;
    if (!st) st = estimate(m, &p, &r);
    free(m);
    if (st) return mio_err_prefix(st, "%s: ", path);
    mio_abi_copy_out(out, out_size, &r, sizeof r);
    return MIO_OK;
}

mio_status mio_estimate(const char *path, const mio_estimate_params *p, mio_estimate_result *out) {
    return mio_estimate_sized(path, p, out, sizeof *out);
}
