/* SPDX-License-Identifier: MIT */
/* interop_estimate.c — mio_estimate against what the peer's libllama allocates.
 *
 * Small synthetic models (llama, qwen2, qwen3, gemma3 with its sliding-window
 * layers) are written with the library's GGUF writer; the peer's libllama loads
 * each one and creates contexts from llama_context_default_params() with the
 * case's n_ctx, cache types, flash attention, batch sizes and sequences. The
 * bytes llama.cpp allocates are taken at the ggml boundary: this executable
 * exports (ENABLE_EXPORTS) the four ggml-base entry points libllama calls for
 * them, so libllama's calls land here first and are forwarded to the real ones:
 *   - ggml_backend_dev_buffer_from_host_ptr: the mmap'ed model buffer (size is
 *     the mapped range of the file's tensors),
 *   - ggml_backend_alloc_ctx_tensors_from_buft: the KV cache buffers (sized
 *     with ggml_backend_buffer_get_size),
 *   - ggml_backend_buft_alloc_buffer: the output (logits) buffer,
 *   - ggml_backend_sched_get_buffer_size: the compute buffer, as llama.cpp
 *     itself reads it for its "compute buffer size" log line.
 * The log lines ("model buffer size", "KV buffer size", "compute buffer size")
 * are kept and checked against the captured bytes too, to the 0.01 MiB they
 * print. Weights and KV cache must be exact, the compute buffer within 10 %.
 * With a quantized V cache and flash attention off, context creation must fail
 * as mio_estimate refuses it.
 *
 * Also run on real public GGUF models when MIO_ESTIMATE_MODELS names some
 * (colon-separated paths; MIO_ESTIMATE_MODELS_ONLY=1 skips the synthetic
 * ones): tools_hf_convert names its mixture-of-experts outputs (Mixtral,
 * Qwen2/3-MoE, gpt-oss, DeepSeek-V3 with MLA). */
#include "interop.h"
#include "modelio_inspect.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>

static peer_api G;

/* ---- the interposed ggml entry points ---- */
void *ggml_backend_dev_buffer_from_host_ptr(void *dev, void *ptr, size_t size, size_t max_tensor_size);
void *ggml_backend_alloc_ctx_tensors_from_buft(void *ctx, void *buft);
void *ggml_backend_buft_alloc_buffer(void *buft, size_t size);
size_t ggml_backend_sched_get_buffer_size(void *sched, void *backend);

static struct {
    void *(*from_host_ptr)(void *, void *, size_t, size_t);
    void *(*alloc_ctx)(void *, void *);
    void *(*buft_alloc)(void *, size_t);
    size_t (*sched_size)(void *, void *);
    size_t (*buffer_size)(void *);
} R;

static struct {
    uint64_t mapped, kv, output, compute;
    int n_mapped, n_kv, n_compute, n_alloc;
} M;

void *ggml_backend_dev_buffer_from_host_ptr(void *dev, void *ptr, size_t size, size_t max_tensor_size) {
    M.mapped += size;
    M.n_mapped++;
    if (getenv("MIO_ESTIMATE_VERBOSE")) printf("    mapped %zu\n", size);
    return R.from_host_ptr(dev, ptr, size, max_tensor_size);
}
void *ggml_backend_alloc_ctx_tensors_from_buft(void *ctx, void *buft) {
    void *b = R.alloc_ctx(ctx, buft);
    if (b) {
        M.kv += R.buffer_size(b);
        M.n_kv++;
    }
    return b;
}
void *ggml_backend_buft_alloc_buffer(void *buft, size_t size) {
    if (M.n_alloc++ == 0) M.output = size; /* in a context: output_reserve comes first */
    if (getenv("MIO_ESTIMATE_VERBOSE")) printf("    alloc %zu\n", size);
    return R.buft_alloc(buft, size);
}
size_t ggml_backend_sched_get_buffer_size(void *sched, void *backend) {
    size_t n = R.sched_size(sched, backend);
    M.compute = n; /* the last call: the log line after the final reserve */
    M.n_compute++;
    return n;
}

/* ---- llama.cpp, declared by hand (see interop_llama_export.c for the blobs) ---- */
typedef struct {
    unsigned char bytes[512];
} llama_params_t;
static struct {
    void *ggml, *llama;
    llama_params_t (*model_default_params)(void);
    llama_params_t (*context_default_params)(void);
    void *(*model_load_from_file)(const char *path, llama_params_t params);
    void (*model_free)(void *model);
    void *(*init_from_model)(void *model, llama_params_t params);
    void (*free_ctx)(void *ctx);
    uint32_t (*n_ctx)(const void *ctx);
    uint32_t (*n_batch)(const void *ctx);
    uint32_t (*n_ubatch)(const void *ctx);
    uint32_t (*n_seq_max)(const void *ctx);
    void (*log_set)(void (*)(int, const char *, void *), void *);
} L;

/* llama_context_params offsets, checked against the defaults and against what
 * the created context reports (llama_n_ctx, ...) before any number is trusted. */
enum { OFF_LOAD_MODE = 28, OFF_USE_EXTRA_BUFTS = 74 }; /* llama_model_params */
enum {
    OFF_N_CTX = 0, OFF_N_BATCH = 4, OFF_N_UBATCH = 8, OFF_N_SEQ_MAX = 12,
    OFF_FLASH_ATTN = 52, OFF_TYPE_K = 104, OFF_TYPE_V = 108, OFF_SWA_FULL = 132, OFF_KV_UNIFIED = 133,
};

static void set_u32(llama_params_t *p, size_t off, uint32_t v) { memcpy(p->bytes + off, &v, 4); }
static uint32_t get_u32(const llama_params_t *p, size_t off) {
    uint32_t v;
    memcpy(&v, p->bytes + off, 4);
    return v;
}

/* Log: the lines that matter, for the report and the cross-check. */
static char g_log[64][320];
static int g_nlog;
static char g_partial[1024];
static void est_log(int level, const char *text, void *user) {
    peer_quiet_log(level, text, user);
    if (!text) return;
    size_t l = strlen(g_partial);
    snprintf(g_partial + l, sizeof g_partial - l, "%s", text);
    if (!strchr(g_partial, '\n')) return;
    if ((strstr(g_partial, "buffer size") || strstr(g_partial, "flash_attn") || strstr(g_partial, "requires")) &&
        g_nlog < 64) {
        /* a long line is cut to the slot (the sizes are at its start) */
        size_t n = strlen(g_partial), cap = sizeof g_log[0] - 1;
        if (n > cap) n = cap;
        memcpy(g_log[g_nlog], g_partial, n);
        g_log[g_nlog++][n] = '\0';
    }
    g_partial[0] = 0;
}
/* Sum of the MiB values of the log lines containing what (-1 if none). */
static double log_mib(const char *what) {
    double s = -1;
    for (int i = 0; i < g_nlog; i++) {
        const char *p = strstr(g_log[i], what);
        if (!p) continue;
        const char *eq = strchr(p, '=');
        if (!eq) continue;
        s = (s < 0 ? 0 : s) + strtod(eq + 1, NULL);
    }
    return s;
}

static void *sym(void *h, const char *name) { return h ? dlsym(h, name) : NULL; }
#define BIND(dst, h, name) do { void *_p = sym((h), (name)); memcpy(&(dst), &_p, sizeof _p); } while (0)

static int load_llama(char *why, size_t why_len) {
    char dir[4096];
    int rc = peer_llama_start(&G, dir, &L.ggml, &L.llama, why, why_len);
    if (rc) return rc;
    BIND(R.from_host_ptr, G.handle, "ggml_backend_dev_buffer_from_host_ptr");
    BIND(R.alloc_ctx, G.handle, "ggml_backend_alloc_ctx_tensors_from_buft");
    BIND(R.buft_alloc, G.handle, "ggml_backend_buft_alloc_buffer");
    BIND(R.sched_size, G.handle, "ggml_backend_sched_get_buffer_size");
    BIND(R.buffer_size, G.handle, "ggml_backend_buffer_get_size");
    BIND(L.model_default_params, L.llama, "llama_model_default_params");
    BIND(L.context_default_params, L.llama, "llama_context_default_params");
    BIND(L.model_load_from_file, L.llama, "llama_model_load_from_file");
    BIND(L.model_free, L.llama, "llama_model_free");
    BIND(L.init_from_model, L.llama, "llama_init_from_model");
    BIND(L.free_ctx, L.llama, "llama_free");
    BIND(L.n_ctx, L.llama, "llama_n_ctx");
    BIND(L.n_batch, L.llama, "llama_n_batch");
    BIND(L.n_ubatch, L.llama, "llama_n_ubatch");
    BIND(L.n_seq_max, L.llama, "llama_n_seq_max");
    BIND(L.log_set, L.llama, "llama_log_set");
    if (!R.from_host_ptr || !R.alloc_ctx || !R.buft_alloc || !R.sched_size || !R.buffer_size ||
        !L.model_default_params || !L.context_default_params || !L.model_load_from_file || !L.model_free ||
        !L.init_from_model || !L.free_ctx || !L.n_ctx || !L.n_batch || !L.n_ubatch || !L.n_seq_max || !L.log_set) {
        snprintf(why, why_len, "llama.cpp peer in %s lacks a required symbol", dir);
        return -1;
    }
    L.log_set(est_log, NULL);
    return 0;
}

/* ---- synthetic models ---- */
typedef struct arch_spec {
    const char *arch;
    uint32_t n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, n_vocab, n_ctx_train;
    uint32_t n_swa;   /* gemma3: attention.sliding_window */
    int qkv_bias;     /* qwen2 */
    int qk_norm;      /* qwen3, gemma3 */
    int post_norms;   /* gemma3 */
    int tied;         /* no output.weight */
} arch_spec;

static mio_writer *g_w;
static void *g_blocks[1024]; /* the tensor data the writer borrows until the write */
static size_t g_buf_n;
static uint64_t g_rng = 0x657374696d617465ull;

static int add_t(const char *name, int type, uint32_t nd, int64_t ne0, int64_t ne1) {
    int64_t ne[2] = {ne0, ne1};
    size_t n = (size_t)(ne0 * (nd > 1 ? ne1 : 1));
    size_t bytes = type == MIO_TYPE_F16 ? n * 2 : n * 4;
    if (!bytes || g_buf_n == sizeof g_blocks / sizeof g_blocks[0]) return 0;
    void *data = malloc(bytes);
    if (!data) return 0;
    g_blocks[g_buf_n++] = data;
    if (type == MIO_TYPE_F16) {
        uint16_t *h = data;
        for (size_t k = 0; k < n; k++) h[k] = mio_f32_to_fp16((float)((peer_splitmix(&g_rng) >> 40) % 200) * 1e-4f - 0.01f);
    } else {
        float *f = data;
        for (size_t k = 0; k < n; k++) f[k] = 1.0f;
    }
    return mio_writer_add_tensor(g_w, name, type, nd, ne, data, bytes) == MIO_OK;
}

static int write_model(const arch_spec *a, const char *path) {
    char k[128], name[96];
    int ok = mio_writer_new(0, &g_w) == MIO_OK;
#define KEY(sfx) (snprintf(k, sizeof k, "%s." sfx, a->arch), k)
    ok = ok && mio_writer_set_str(g_w, "general.architecture", a->arch, strlen(a->arch)) == MIO_OK;
    ok = ok && mio_writer_set_str(g_w, "general.name", "estimate test", 13) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, "general.file_type", 1) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("vocab_size"), a->n_vocab) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("context_length"), a->n_ctx_train) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("embedding_length"), a->n_embd) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("feed_forward_length"), a->n_ff) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("block_count"), a->n_layer) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("attention.head_count"), a->n_head) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("attention.head_count_kv"), a->n_head_kv) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("attention.key_length"), a->head_dim) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("attention.value_length"), a->head_dim) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, KEY("rope.dimension_count"), a->head_dim) == MIO_OK;
    ok = ok && mio_writer_set_f32(g_w, KEY("rope.freq_base"), 10000.0f) == MIO_OK;
    ok = ok && mio_writer_set_f32(g_w, KEY("attention.layer_norm_rms_epsilon"), 1e-6f) == MIO_OK;
    if (a->n_swa) ok = ok && mio_writer_set_u32(g_w, KEY("attention.sliding_window"), a->n_swa) == MIO_OK;
#undef KEY
    /* SentencePiece vocabulary: <unk> <s> </s> <0x0A>, "\xE2\x96\x81", then letters */
    static char toks[20000][16];
    static const char *tp[20000];
    static float scores[20000];
    static int32_t ttype[20000];
    uint32_t nv = a->n_vocab;
    for (uint32_t i = 0; i < nv; i++) {
        if (i == 0) snprintf(toks[i], sizeof toks[i], "<unk>");
        else if (i == 1) snprintf(toks[i], sizeof toks[i], "<s>");
        else if (i == 2) snprintf(toks[i], sizeof toks[i], "</s>");
        else if (i == 3) snprintf(toks[i], sizeof toks[i], "<0x0A>");
        else if (i == 4) snprintf(toks[i], sizeof toks[i], "\xE2\x96\x81");
        else snprintf(toks[i], sizeof toks[i], "%c%u", 'a' + (int)(i % 26), i);
        tp[i] = toks[i];
        scores[i] = i < 4 ? 0.0f : -(float)i;
        ttype[i] = i == 0 ? 2 : i < 3 ? 3 : i == 3 ? 6 : 1;
    }
    ok = ok && mio_writer_set_str(g_w, "tokenizer.ggml.model", "llama", 5) == MIO_OK;
    ok = ok && mio_writer_set_arr_str(g_w, "tokenizer.ggml.tokens", tp, NULL, nv) == MIO_OK;
    ok = ok && mio_writer_set_arr(g_w, "tokenizer.ggml.scores", MIO_GGUF_F32, scores, nv) == MIO_OK;
    ok = ok && mio_writer_set_arr(g_w, "tokenizer.ggml.token_type", MIO_GGUF_I32, ttype, nv) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, "tokenizer.ggml.unknown_token_id", 0) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, "tokenizer.ggml.bos_token_id", 1) == MIO_OK;
    ok = ok && mio_writer_set_u32(g_w, "tokenizer.ggml.eos_token_id", 2) == MIO_OK;

    const int64_t E = a->n_embd, F = a->n_ff, D = a->head_dim, Q = (int64_t)a->n_head * D,
                  KV = (int64_t)a->n_head_kv * D;
    ok = ok && add_t("token_embd.weight", MIO_TYPE_F16, 2, E, a->n_vocab);
    for (uint32_t l = 0; l < a->n_layer && ok; l++) {
#define T(sfx, ty, nd, x, y) (snprintf(name, sizeof name, "blk.%u." sfx, l), add_t(name, ty, nd, x, y))
        ok = ok && T("attn_norm.weight", MIO_TYPE_F32, 1, E, 1);
        ok = ok && T("attn_q.weight", MIO_TYPE_F16, 2, E, Q);
        ok = ok && T("attn_k.weight", MIO_TYPE_F16, 2, E, KV);
        ok = ok && T("attn_v.weight", MIO_TYPE_F16, 2, E, KV);
        if (a->qkv_bias) {
            ok = ok && T("attn_q.bias", MIO_TYPE_F32, 1, Q, 1);
            ok = ok && T("attn_k.bias", MIO_TYPE_F32, 1, KV, 1);
            ok = ok && T("attn_v.bias", MIO_TYPE_F32, 1, KV, 1);
        }
        if (a->qk_norm) {
            ok = ok && T("attn_q_norm.weight", MIO_TYPE_F32, 1, D, 1);
            ok = ok && T("attn_k_norm.weight", MIO_TYPE_F32, 1, D, 1);
        }
        ok = ok && T("attn_output.weight", MIO_TYPE_F16, 2, Q, E);
        if (a->post_norms) ok = ok && T("post_attention_norm.weight", MIO_TYPE_F32, 1, E, 1);
        ok = ok && T("ffn_norm.weight", MIO_TYPE_F32, 1, E, 1);
        ok = ok && T("ffn_gate.weight", MIO_TYPE_F16, 2, E, F);
        ok = ok && T("ffn_up.weight", MIO_TYPE_F16, 2, E, F);
        ok = ok && T("ffn_down.weight", MIO_TYPE_F16, 2, F, E);
        if (a->post_norms) ok = ok && T("post_ffw_norm.weight", MIO_TYPE_F32, 1, E, 1);
#undef T
    }
    ok = ok && add_t("output_norm.weight", MIO_TYPE_F32, 1, E, 1);
    if (!a->tied) ok = ok && add_t("output.weight", MIO_TYPE_F16, 2, E, a->n_vocab);
    ok = ok && mio_writer_write_file(g_w, path) == MIO_OK;
    if (!ok) fprintf(stderr, "write_model %s: %s\n", path, mio_last_error());
    mio_writer_free(g_w);
    g_w = NULL;
    for (size_t i = 0; i < g_buf_n; i++) free(g_blocks[i]);
    g_buf_n = 0;
    return ok;
}

/* ---- one case ---- */
typedef struct est_case {
    uint32_t n_ctx, n_batch, n_ubatch, n_seq;
    int type_k, type_v, fa, swa_full;
} est_case;

static double g_worst_compute;

static void run_case(const char *label, void *model, const char *path, const est_case *c) {
    mio_estimate_params p;
    mio_estimate_default_params(&p);
    p.n_ctx = c->n_ctx;
    if (c->n_batch) p.n_batch = c->n_batch;
    if (c->n_ubatch) p.n_ubatch = c->n_ubatch;
    if (c->n_seq) p.n_seq_max = c->n_seq;
    p.type_k = c->type_k;
    p.type_v = c->type_v;
    p.flash_attn = c->fa;
    p.swa_full = c->swa_full;
    mio_estimate_result e;
    memset(&e, 0, sizeof e);
    mio_status st = mio_estimate(path, &p, &e);

    llama_params_t cp = L.context_default_params();
    set_u32(&cp, OFF_N_CTX, c->n_ctx);
    if (c->n_batch) set_u32(&cp, OFF_N_BATCH, c->n_batch);
    if (c->n_ubatch) set_u32(&cp, OFF_N_UBATCH, c->n_ubatch);
    if (c->n_seq) set_u32(&cp, OFF_N_SEQ_MAX, c->n_seq);
    set_u32(&cp, OFF_FLASH_ATTN, (uint32_t)c->fa);
    set_u32(&cp, OFF_TYPE_K, (uint32_t)c->type_k);
    set_u32(&cp, OFF_TYPE_V, (uint32_t)c->type_v);
    cp.bytes[OFF_SWA_FULL] = (unsigned char)(c->swa_full != 0);
    uint64_t mapped = M.mapped;
    memset(&M, 0, sizeof M);
    M.mapped = mapped;
    g_nlog = 0;
    void *ctx = L.init_from_model(model, cp);
    char desc[200];
    snprintf(desc, sizeof desc, "%s ctx=%u k=%s v=%s fa=%d swa_full=%d ub=%u b=%u seq=%u", label, c->n_ctx,
             mio_type_name(c->type_k), mio_type_name(c->type_v), c->fa, c->swa_full, c->n_ubatch, c->n_batch,
             c->n_seq);
    if (!ctx) {
        /* refused by llama.cpp: we must refuse too */
        IC_CHECK(st != MIO_OK, "%s: llama.cpp refused the context, mio_estimate gave OK", desc);
        printf("  %-70s refused by llama.cpp; mio_estimate: %s\n", desc, st ? mio_last_error() : "OK");
        return;
    }
    IC_CHECK(st == MIO_OK, "%s: mio_estimate failed: %s", desc, mio_last_error());
    IC_CHECK(L.n_ctx(ctx) == e.n_ctx, "%s: n_ctx llama %u ours %u", desc, L.n_ctx(ctx), e.n_ctx);
    IC_CHECK(L.n_ubatch(ctx) == e.n_ubatch, "%s: n_ubatch llama %u ours %u", desc, L.n_ubatch(ctx), e.n_ubatch);
    IC_CHECK(L.n_batch(ctx) == e.n_batch, "%s: n_batch llama %u ours %u", desc, L.n_batch(ctx), e.n_batch);
    IC_CHECK(L.n_seq_max(ctx) == e.n_seq_max, "%s: n_seq_max", desc);
    IC_CHECK(M.kv == e.kv_cache_bytes, "%s: KV llama %llu ours %llu", desc, (unsigned long long)M.kv,
             (unsigned long long)e.kv_cache_bytes);
    IC_CHECK(M.output == e.output_bytes, "%s: output llama %llu ours %llu", desc, (unsigned long long)M.output,
             (unsigned long long)e.output_bytes);
    IC_CHECK(M.n_compute > 0, "%s: the compute buffer size was never read", desc);
    double rel = M.compute ? ((double)e.compute_bytes - (double)M.compute) / (double)M.compute : 1.0;
    IC_CHECK(fabs(rel) <= 0.10, "%s: compute llama %llu ours %llu (%+.1f %%)", desc,
             (unsigned long long)M.compute, (unsigned long long)e.compute_bytes, 100 * rel);
    if (fabs(rel) > g_worst_compute) g_worst_compute = fabs(rel);
    /* the log agrees with the captured bytes (to its 0.01 MiB) */
    double lkv = log_mib("KV buffer size"), lcomp = log_mib("compute buffer size");
    IC_CHECK(lkv < 0 || fabs(lkv - (double)M.kv / 1048576.0) <= 0.006 * M.n_kv, "%s: KV log %.2f MiB", desc, lkv);
    IC_CHECK(lcomp < 0 || fabs(lcomp - (double)M.compute / 1048576.0) <= 0.006, "%s: compute log %.2f MiB", desc,
             lcomp);
    printf("  %-70s FA %s  KV %llu/%llu  out %llu/%llu  compute %llu/%llu (%+.2f %%)\n", desc,
           e.flash_attn == MIO_FLASH_ATTN_ON ? "on " : "off", (unsigned long long)M.kv, (unsigned long long)e.kv_cache_bytes,
           (unsigned long long)M.output, (unsigned long long)e.output_bytes, (unsigned long long)M.compute,
           (unsigned long long)e.compute_bytes, 100 * rel);
    if (getenv("MIO_ESTIMATE_VERBOSE"))
        for (int i = 0; i < g_nlog; i++) printf("    llama: %s", g_log[i]);
    L.free_ctx(ctx);
}

static void run_model(const char *label, const char *path, const est_case *cases, size_t n_cases) {
    llama_params_t mp = L.model_default_params();
    mp.bytes[OFF_USE_EXTRA_BUFTS] = 0; /* no weight repacking (AMX, CPU_REPACK): the mapped range is every tensor */
    memset(&M, 0, sizeof M);
    g_nlog = 0;
    void *model = L.model_load_from_file(path, mp);
    IC_CHECK(model != NULL, "%s: llama.cpp could not load %s", label, path);
    if (!model) {
        peer_dump_log();
        return;
    }
    mio_estimate_params p;
    mio_estimate_default_params(&p);
    mio_estimate_result e;
    memset(&e, 0, sizeof e);
    mio_status st = mio_estimate(path, &p, &e);
    IC_CHECK(st == MIO_OK, "%s: %s", label, mio_last_error());
    IC_CHECK(M.mapped == e.weights_bytes, "%s: weights llama %llu ours %llu", label, (unsigned long long)M.mapped,
             (unsigned long long)e.weights_bytes);
    double lw = log_mib("model buffer size");
    IC_CHECK(lw < 0 || fabs(lw - (double)M.mapped / 1048576.0) <= 0.006 * (M.n_mapped ? M.n_mapped : 1),
             "%s: model buffer log %.2f MiB", label, lw);
    if (getenv("MIO_ESTIMATE_VERBOSE"))
        for (int i = 0; i < g_nlog; i++) printf("    llama: %s", g_log[i]);
    printf("%s: weights %llu/%llu (llama/ours), %u layers (%u sliding-window)\n", label,
           (unsigned long long)M.mapped, (unsigned long long)e.weights_bytes, e.n_layer, e.n_layer_swa);
    for (size_t i = 0; i < n_cases; i++) run_case(label, model, path, &cases[i]);
    L.model_free(model);
}

int main(void) {
    char why[8192];
    ic_load_peer_or_skip(&G);
    int rc = load_llama(why, sizeof why);
    if (rc > 0) T_SKIP(why);
    if (rc < 0) {
        fprintf(stderr, "FAIL: %s\n", why);
        return 1;
    }
    /* the llama_context_params layout this test writes into */
    llama_params_t d = L.context_default_params();
    if (get_u32(&d, OFF_N_CTX) != 512 || get_u32(&d, OFF_N_BATCH) != 2048 || get_u32(&d, OFF_N_UBATCH) != 512 ||
        get_u32(&d, OFF_N_SEQ_MAX) != 1 || get_u32(&d, OFF_FLASH_ATTN) != (uint32_t)-1 ||
        get_u32(&d, OFF_TYPE_K) != MIO_TYPE_F16 || get_u32(&d, OFF_TYPE_V) != MIO_TYPE_F16 ||
        d.bytes[OFF_SWA_FULL] != 1 || d.bytes[OFF_KV_UNIFIED] != 0) {
        fprintf(stderr, "FAIL: llama_context_default_params() does not have the layout this test assumes\n");
        return 1;
    }
    llama_params_t md = L.model_default_params();
    if (get_u32(&md, OFF_LOAD_MODE) != 1 || md.bytes[OFF_USE_EXTRA_BUFTS] != 1) {
        fprintf(stderr, "FAIL: llama_model_default_params() does not have the layout this test assumes\n");
        return 1;
    }
    /* mio_estimate's defaults are llama_context_default_params()'s */
    mio_estimate_params p;
    mio_estimate_default_params(&p);
    T_CHECK(p.n_ctx == 512 && p.n_batch == 2048 && p.n_ubatch == 512 && p.n_seq_max == 1);
    T_CHECK(p.type_k == MIO_TYPE_F16 && p.type_v == MIO_TYPE_F16 && p.flash_attn == MIO_FLASH_ATTN_AUTO);
    T_CHECK(p.swa_full == 1);

    static const arch_spec archs[] = {
        {"llama", 256, 512, 3, 8, 2, 32, 320, 4096, 0, 0, 0, 0, 0},
        {"qwen2", 192, 448, 2, 6, 2, 32, 300, 4096, 0, 1, 0, 0, 1},
        {"qwen3", 256, 640, 3, 8, 4, 64, 352, 8192, 0, 0, 1, 0, 1},
        {"gemma3", 256, 512, 8, 4, 1, 64, 384, 8192, 128, 0, 1, 1, 1},
        /* the output phase: a vocabulary far above n_ff, as real models have */
        {"llama", 256, 512, 2, 8, 2, 32, 16000, 4096, 0, 0, 0, 0, 0},
        {"gemma3", 256, 512, 6, 4, 1, 64, 12000, 8192, 64, 0, 1, 1, 1},
    };
    const int F16 = MIO_TYPE_F16, Q8 = MIO_TYPE_Q8_0, Q4 = MIO_TYPE_Q4_0;
    const est_case cases[] = {
        {256, 0, 0, 0, F16, F16, -1, 1},  {1024, 0, 0, 0, F16, F16, -1, 1}, {3000, 0, 0, 0, F16, F16, -1, 1},
        {256, 0, 0, 0, F16, F16, 0, 1},   {1024, 0, 0, 0, F16, F16, 0, 1},  {3000, 0, 0, 0, F16, F16, 0, 1},
        {256, 0, 0, 0, Q8, Q8, -1, 1},    {1024, 0, 0, 0, Q8, Q8, 1, 1},    {3000, 0, 0, 0, Q8, Q8, -1, 1},
        {1024, 0, 0, 0, Q8, F16, 0, 1},   {1024, 0, 0, 0, Q4, Q8, 1, 1},    {1024, 0, 0, 0, F16, Q8, 0, 1},
        {2048, 0, 0, 0, F16, F16, -1, 0}, {2048, 0, 0, 0, F16, F16, 0, 0},  {1024, 512, 128, 0, F16, F16, -1, 1},
        {1024, 0, 256, 0, F16, F16, 0, 1}, {100, 0, 0, 0, F16, F16, -1, 1}, {2048, 0, 0, 4, F16, F16, -1, 1},
        {2048, 0, 0, 3, Q8, Q8, -1, 0},   {1025, 0, 0, 2, F16, F16, 0, 1},  {4096, 0, 0, 0, F16, F16, -1, 1},
    };
    char path[64];
    /* MIO_ESTIMATE_MODELS_ONLY=1: only the named files (tools_hf_convert's mixtures of experts) */
    const char *only = getenv("MIO_ESTIMATE_MODELS_ONLY");
    for (size_t a = 0; a < sizeof archs / sizeof archs[0] && !(only && strcmp(only, "1") == 0); a++) {
        snprintf(path, sizeof path, "estimate_%s.gguf", archs[a].arch);
        if (!write_model(&archs[a], path)) {
            t_fail++;
            continue;
        }
        run_model(archs[a].arch, path, cases, sizeof cases / sizeof cases[0]);
        remove(path);
    }
    /* real public models, when named */
    const char *env = getenv("MIO_ESTIMATE_MODELS");
    if (env && *env) {
        char *list = strdup(env), *save = NULL;
        static const est_case real[] = {
            {512, 0, 0, 0, F16, F16, -1, 1}, {4096, 0, 0, 0, F16, F16, -1, 1}, {4096, 0, 0, 0, F16, F16, 0, 1},
            {8192, 0, 0, 0, Q8, Q8, -1, 1},  {4096, 0, 0, 0, F16, F16, -1, 0},
        };
        for (char *m = strtok_r(list, ":", &save); m; m = strtok_r(NULL, ":", &save))
            run_model(m, m, real, sizeof real / sizeof real[0]);
        free(list);
    }
    printf("worst compute-buffer difference: %.2f %%\n", 100 * g_worst_compute);
    T_DONE();
}
