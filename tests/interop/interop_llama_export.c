/* SPDX-License-Identifier: MIT */
/* interop_llama_export.c — mio-export-gguf --dtype end to end: ggml's writer builds a
 * llama-shaped f32 model, the tool (argv[1]) transcodes it to many types, ggml_quantize_chunk
 * judges the bytes and the peer's libllama must load every output. */
#include "interop.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

#define N_EMBD 256
#define N_FF 512
#define N_LAYER 2
#define N_HEAD 4
#define N_VOCAB 64
#define MAX_T 32

static peer_api G;
static const char *EXPORT_BIN;

/* ---- ggml extras (same library handle as peer.h) ---- */
static size_t (*g_quantize_chunk)(int type, const float *src, void *dst, int64_t start, int64_t nrows,
                                  int64_t n_per_row, const float *imatrix);
static void (*g_quantize_init)(int type);

/* ---- llama.cpp, declared by hand ----
 * struct llama_model_params is returned by value from llama_model_default_params
 * and passed by value to llama_model_load_from_file. We never look inside it, so
 * we declare an over-sized opaque stand-in. On x86-64 SysV this is safe: any
 * struct larger than 16 bytes is class MEMORY, so (1) it is returned through a
 * hidden pointer to caller-owned storage — the callee writes its real (smaller)
 * struct into the first bytes of our 512 — and (2) it is passed by value as a
 * copy placed in the caller's outgoing stack argument area; the callee reads its
 * own struct's prefix from the start of that copy, and the extra bytes beyond are
 * never touched. The real struct is well under 512 bytes (about 72). */
typedef struct {
    unsigned char bytes[512];
} llama_params_t;
typedef void (*llama_log_fn)(int level, const char *text, void *user);

static struct {
    void *ggml, *llama;
    void (*backend_free)(void);
    llama_params_t (*model_default_params)(void);
    void *(*model_load_from_file)(const char *path, llama_params_t params);
    void (*model_free)(void *model);
    uint64_t (*model_n_params)(const void *model);
    int32_t (*model_meta_val_str)(const void *model, const char *key, char *buf, size_t size);
    int32_t (*model_desc)(const void *model, char *buf, size_t size);
} L;


static void *sym(void *h, const char *name) { return h ? dlsym(h, name) : NULL; }
#define BIND(dst, h, name) do { void *_p = sym((h), (name)); memcpy(&(dst), &_p, sizeof _p); } while (0)

/* 0 = loaded; otherwise skip with why. */
static int load_llama(char *why, size_t why_len) {
    char dir[4096];
    int rc = peer_llama_start(&G, dir, &L.ggml, &L.llama, why, why_len);
    if (rc) return rc;
    BIND(L.backend_free, L.llama, "llama_backend_free");
    BIND(L.model_default_params, L.llama, "llama_model_default_params");
    BIND(L.model_load_from_file, L.llama, "llama_model_load_from_file");
    BIND(L.model_free, L.llama, "llama_model_free");
    BIND(L.model_n_params, L.llama, "llama_model_n_params");
    BIND(L.model_meta_val_str, L.llama, "llama_model_meta_val_str");
    BIND(L.model_desc, L.llama, "llama_model_desc");
    if (!L.model_default_params ||
        !L.model_load_from_file || !L.model_free || !L.model_n_params || !L.model_meta_val_str || !L.model_desc) {
        snprintf(why, why_len, "llama.cpp peer in %s lacks a required symbol", dir);
        return -1;
    }
    return 0;
}

/* ---- the model ---- */
typedef struct src_tensor {
    char name[64];
    int n_dims;
    int64_t ne[2];
    float *data;
    int matrix; /* the policy converts it */
} src_tensor;
static src_tensor T[MAX_T];
static int n_t;
static uint64_t n_elems_total;

static uint64_t rng_s = 0x6c6c616d612d6578ull; /* fixed: the model is the same every run */
static double unit(void) {
    uint64_t z = (rng_s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0); /* (0,1) */
}
static float gauss(void) { return (float)(sqrt(-2.0 * log(unit())) * cos(6.283185307179586 * unit())); }

static void add_src(const char *name, int64_t ne0, int64_t ne1, int matrix) {
    src_tensor *s = &T[n_t++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->n_dims = ne1 ? 2 : 1;
    s->ne[0] = ne0;
    s->ne[1] = ne1 ? ne1 : 1;
    s->matrix = matrix;
    size_t n = (size_t)(ne0 * s->ne[1]);
    s->data = (float *)malloc(n * sizeof(float));
    for (size_t k = 0; k < n; k++) s->data[k] = matrix ? 0.02f * gauss() : 1.0f + 0.02f * gauss();
    n_elems_total += n;
}

static void build_tensors(void) {
    char name[64];
    add_src("token_embd.weight", N_EMBD, N_VOCAB, 1);
    for (int l = 0; l < N_LAYER; l++) {
#define BLK(sfx, a, b, m) do { snprintf(name, sizeof name, "blk.%d." sfx ".weight", l); add_src(name, a, b, m); } while (0)
        BLK("attn_norm", N_EMBD, 0, 0);
        BLK("attn_q", N_EMBD, N_EMBD, 1);
        BLK("attn_k", N_EMBD, N_EMBD, 1);
        BLK("attn_v", N_EMBD, N_EMBD, 1);
        BLK("attn_output", N_EMBD, N_EMBD, 1);
        BLK("ffn_norm", N_EMBD, 0, 0);
        BLK("ffn_gate", N_EMBD, N_FF, 1);
        BLK("ffn_up", N_EMBD, N_FF, 1);
        BLK("ffn_down", N_FF, N_EMBD, 1);
#undef BLK
    }
    add_src("output_norm.weight", N_EMBD, 0, 0);
    add_src("output.weight", N_EMBD, N_VOCAB, 1);
}

/* Write the f32 model with ggml's gguf writer. Returns 1 on success. */
static int write_model(const char *path) {
    void *gc = G.gguf_init_empty();
    G.gguf_set_val_str(gc, "general.architecture", "llama");
    G.gguf_set_val_str(gc, "general.name", "libmodelio export test");
    G.gguf_set_val_u32(gc, "general.file_type", 0); /* all f32 */
    G.gguf_set_val_u32(gc, "llama.vocab_size", N_VOCAB);
    G.gguf_set_val_u32(gc, "llama.context_length", 128);
    G.gguf_set_val_u32(gc, "llama.embedding_length", N_EMBD);
    G.gguf_set_val_u32(gc, "llama.feed_forward_length", N_FF);
    G.gguf_set_val_u32(gc, "llama.block_count", N_LAYER);
    G.gguf_set_val_u32(gc, "llama.attention.head_count", N_HEAD);
    G.gguf_set_val_u32(gc, "llama.attention.head_count_kv", N_HEAD);
    G.gguf_set_val_u32(gc, "llama.rope.dimension_count", N_EMBD / N_HEAD);
    G.gguf_set_val_f32(gc, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    G.gguf_set_val_str(gc, "tokenizer.ggml.model", "llama");
    /* vocabulary: <unk> <s> </s> <0x0A>, "\xE2\x96\x81" (SentencePiece space),
     * a..z, "\xE2\x96\x81"a..z, 0..6 */
    static char toks[N_VOCAB][16];
    const char *tp[N_VOCAB];
    float scores[N_VOCAB];
    int32_t ttype[N_VOCAB];
    for (int k = 0; k < N_VOCAB; k++) {
        if (k == 0) snprintf(toks[k], sizeof toks[k], "<unk>");
        else if (k == 1) snprintf(toks[k], sizeof toks[k], "<s>");
        else if (k == 2) snprintf(toks[k], sizeof toks[k], "</s>");
        else if (k == 3) snprintf(toks[k], sizeof toks[k], "<0x0A>");
        else if (k == 4) snprintf(toks[k], sizeof toks[k], "\xE2\x96\x81");
        else if (k < 31) snprintf(toks[k], sizeof toks[k], "%c", 'a' + (k - 5));
        else if (k < 57) snprintf(toks[k], sizeof toks[k], "\xE2\x96\x81%c", 'a' + (k - 31));
        else snprintf(toks[k], sizeof toks[k], "%c", '0' + (k - 57));
        tp[k] = toks[k];
        scores[k] = k < 4 ? 0.0f : -(float)k;
        ttype[k] = k == 0 ? 2 : k < 3 ? 3 : k == 3 ? 6 : 1; /* unknown, control, byte, normal */
    }
    G.gguf_set_arr_str(gc, "tokenizer.ggml.tokens", tp, N_VOCAB);
    G.gguf_set_arr_data(gc, "tokenizer.ggml.scores", MIO_GGUF_F32, scores, N_VOCAB);
    G.gguf_set_arr_data(gc, "tokenizer.ggml.token_type", MIO_GGUF_I32, ttype, N_VOCAB);
    G.gguf_set_val_u32(gc, "tokenizer.ggml.unknown_token_id", 0);
    G.gguf_set_val_u32(gc, "tokenizer.ggml.bos_token_id", 1);
    G.gguf_set_val_u32(gc, "tokenizer.ggml.eos_token_id", 2);

    peer_ggml_params gp = {(size_t)(n_t + 1) * G.ggml_tensor_overhead(), NULL, true};
    void *ctx = G.ggml_init(gp);
    for (int i = 0; i < n_t; i++) {
        void *t = G.ggml_new_tensor(ctx, MIO_TYPE_F32, T[i].n_dims, T[i].ne);
        G.ggml_set_name(t, T[i].name);
        G.gguf_add_tensor(gc, t);
        G.gguf_set_tensor_data(gc, T[i].name, T[i].data);
    }
    bool ok = G.gguf_write_to_file(gc, path, false);
    G.gguf_free(gc);
    G.ggml_free(ctx);
    return ok ? 1 : 0;
}

/* Run the tool (no shell): returns its exit status, -1 if it did not exit. */
static int run_export(const char *in, const char *out, const char *dtype, const char *threads, const char *errfile) {
    char *argv[] = {(char *)EXPORT_BIN, (char *)"--from-gguf", (char *)in, (char *)"--out", (char *)out,
                    (char *)"--dtype", (char *)dtype, (char *)"--threads", (char *)threads, (char *)"--quiet", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, EXPORT_BIN, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "posix_spawn(%s): %s\n", EXPORT_BIN, strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void show_file(const char *path) {
    size_t n = 0;
    unsigned char *b = ic_read_file(path, &n);
    if (b) fprintf(stderr, "  %s: %.*s\n", path, (int)(n < 2000 ? n : 2000), (const char *)b);
    free(b);
}

/* ---- targets ---- */
typedef struct target {
    const char *dtype;  /* --dtype */
    int type;           /* ggml code */
    uint32_t ftype;     /* llama_ftype written to general.file_type */
    const char *desc;   /* substring of llama_model_desc (llama.cpp's ftype name) */
    double max_rel_rms; /* decoded vs original: RMS error / RMS of the data */
} target;

static const target TARGETS[] = {
    {"f16", MIO_TYPE_F16, 1, "F16", 0.001},
    {"bf16", MIO_TYPE_BF16, 32, "BF16", 0.005},
    {"q8_0", MIO_TYPE_Q8_0, 7, "Q8_0", 0.01},
    {"q4_0", MIO_TYPE_Q4_0, 2, "Q4_0", 0.15},
    {"q4_1", MIO_TYPE_Q4_1, 3, "Q4_1", 0.15},
    {"q5_0", MIO_TYPE_Q5_0, 8, "Q5_0", 0.08},
    {"q5_1", MIO_TYPE_Q5_1, 9, "Q5_1", 0.08},
    {"q2_k", MIO_TYPE_Q2_K, 10, "Q2_K", 0.45},
    {"q3_k", MIO_TYPE_Q3_K, 11, "Q3_K - Small", 0.25},
    {"q4_k", MIO_TYPE_Q4_K, 14, "Q4_K - Small", 0.12},
    {"q5_k", MIO_TYPE_Q5_K, 16, "Q5_K - Small", 0.06},
    {"q6_k", MIO_TYPE_Q6_K, 18, "Q6_K", 0.03},
    {"iq4_nl", MIO_TYPE_IQ4_NL, 25, "IQ4_NL", 0.12},
    {"iq4_xs", MIO_TYPE_IQ4_XS, 30, "IQ4_XS", 0.12},
    {"tq2_0", MIO_TYPE_TQ2_0, 37, "TQ2_0", 0.85},
    {"tq1_0", MIO_TYPE_TQ1_0, 36, "TQ1_0", 0.85},
    {"iq3_xxs", MIO_TYPE_IQ3_XXS, 23, "IQ3_XXS", 0.3},
    {"iq3_s", MIO_TYPE_IQ3_S, 26, "IQ3_S", 0.25},
    {"iq2_s", MIO_TYPE_IQ2_S, 28, "IQ2_S", 0.35},
    {"iq1_m", MIO_TYPE_IQ1_M, 31, "IQ1_M", 0.65},
    {"mxfp4", MIO_TYPE_MXFP4, 38, "MXFP4", 0.2},
    {"nvfp4", MIO_TYPE_NVFP4, 39, "NVFP4", 0.2},
    {"q1_0", MIO_TYPE_Q1_0, 40, "Q1_0", 0.7},
    {"q2_0", MIO_TYPE_Q2_0, 41, "Q2_0", 0.8},
};
#define N_TARGETS (sizeof TARGETS / sizeof TARGETS[0])

static int64_t first_diff_bytes(const void *a, const void *b, size_t n) {
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (size_t k = 0; k < n; k++)
        if (x[k] != y[k]) return (int64_t)k;
    return -1;
}

static int files_equal(const char *a, const char *b, size_t *where) {
    size_t na = 0, nb = 0;
    unsigned char *x = ic_read_file(a, &na), *y = ic_read_file(b, &nb);
    int eq = x && y && na == nb && memcmp(x, y, na) == 0;
    *where = 0;
    if (x && y && !eq) {
        size_t m = na < nb ? na : nb, k = 0;
        while (k < m && x[k] == y[k]) k++;
        *where = k;
    }
    free(x);
    free(y);
    return eq;
}

/* Load path with llama.cpp and check what it reports. */
static void llama_check(const char *path, const char *want_ftype, const char *want_desc) {
    llama_params_t p;
    memset(&p, 0, sizeof p);
    p = L.model_default_params();
    unsigned before = *peer_log_count();
    void *m = L.model_load_from_file(path, p);
    IC_CHECK(m != NULL, "llama_model_load_from_file(%s) returned NULL", path);
    if (!m) {
        if (*peer_log_count() > before) peer_dump_log();
        return;
    }
    IC_CHECK(L.model_n_params(m) == n_elems_total, "%s: llama counts %llu parameters, want %llu", path,
             (unsigned long long)L.model_n_params(m), (unsigned long long)n_elems_total);
    char buf[256] = "";
    int32_t n = L.model_meta_val_str(m, "general.file_type", buf, sizeof buf);
    IC_CHECK(n > 0 && strcmp(buf, want_ftype) == 0, "%s: llama reads general.file_type \"%s\", want \"%s\"", path, buf,
             want_ftype);
    char desc[256] = "";
    L.model_desc(m, desc, sizeof desc);
    IC_CHECK(strstr(desc, want_desc) != NULL, "%s: llama_model_desc \"%s\" lacks \"%s\"", path, desc, want_desc);
    printf("  llama.cpp loaded %s: %s\n", path, desc);
    L.model_free(m);
}

static void check_target(const target *tg, const mio_gguf_file *src) {
    char out1[128], out2[128], err1[128], err2[128];
    snprintf(out1, sizeof out1, "llama_export_%s.gguf", tg->dtype);
    snprintf(out2, sizeof out2, "llama_export_%s_t2.gguf", tg->dtype);
    snprintf(err1, sizeof err1, "llama_export_%s.err", tg->dtype);
    snprintf(err2, sizeof err2, "llama_export_%s_t2.err", tg->dtype);
    int rc = run_export("llama_export_f32.gguf", out1, tg->dtype, "1", err1);
    IC_CHECK(rc == 0, "--dtype %s: exit %d", tg->dtype, rc);
    if (rc != 0) { show_file(err1); return; }
    rc = run_export("llama_export_f32.gguf", out2, tg->dtype, "2", err2);
    IC_CHECK(rc == 0, "--dtype %s --threads 2: exit %d", tg->dtype, rc);
    size_t where = 0;
    IC_CHECK(rc == 0 && files_equal(out1, out2, &where), "--dtype %s: --threads 2 output differs from 1 thread at byte %zu",
             tg->dtype, where);

    /* our reader: policy, file_type, metadata passed through */
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open(out1, MIO_OPEN_MMAP, &f);
    IC_CHECK(st == MIO_OK, "%s: %s", out1, mio_last_error());
    if (st != MIO_OK) return;
    T_EQ_INT(mio_gguf_kv_count(f), mio_gguf_kv_count(src));
    uint64_t ft = 999, emb = 0;
    T_OK(mio_gguf_kv_u64(f, mio_gguf_find_key(f, "general.file_type"), &ft));
    IC_CHECK(ft == tg->ftype, "--dtype %s: general.file_type %llu, want %u", tg->dtype, (unsigned long long)ft, tg->ftype);
    T_EQ_INT(mio_gguf_kv_type(f, mio_gguf_find_key(f, "general.file_type")), MIO_GGUF_U32);
    T_OK(mio_gguf_kv_u64(f, mio_gguf_find_key(f, "llama.embedding_length"), &emb));
    T_EQ_U64(emb, N_EMBD);
    T_EQ_INT(mio_gguf_tensor_count(f), n_t);

    size_t max_bytes = (size_t)N_EMBD * N_FF * sizeof(float);
    unsigned char *ref = (unsigned char *)malloc(max_bytes);
    for (int i = 0; i < n_t; i++) {
        const src_tensor *s = &T[i];
        int64_t id = mio_gguf_find_tensor(f, s->name);
        IC_CHECK(id >= 0, "%s: tensor %s missing", out1, s->name);
        if (id < 0) continue;
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, id, &t));
        IC_CHECK(t.n_dims == (uint32_t)s->n_dims && t.ne[0] == s->ne[0] && t.ne[1] == s->ne[1],
                 "%s: %s: shape changed", out1, s->name);
        size_t n = (size_t)(s->ne[0] * s->ne[1]);
        if (!s->matrix) {
            IC_CHECK(t.type == MIO_TYPE_F32, "--dtype %s: %s is %s, want f32 (kept)", tg->dtype, s->name,
                     mio_type_name(t.type));
            IC_CHECK(t.nbytes == n * 4 && memcmp(t.data, s->data, n * 4) == 0, "--dtype %s: %s: kept bytes differ",
                     tg->dtype, s->name);
            continue;
        }
        IC_CHECK(t.type == tg->type, "--dtype %s: %s is %s", tg->dtype, s->name, mio_type_name(t.type));
        /* the judge: ggml's own quantizer on the original f32 data */
        g_quantize_init(tg->type);
        size_t got = g_quantize_chunk(tg->type, s->data, ref, 0, s->ne[1], s->ne[0], NULL);
        int64_t d = got == t.nbytes ? first_diff_bytes(ref, t.data, got) : 0;
        IC_CHECK(got == t.nbytes && d < 0, "--dtype %s: %s: bytes differ from ggml_quantize_chunk at byte %lld "
                 "(sizes %zu vs %llu)", tg->dtype, s->name, (long long)d, got, (unsigned long long)t.nbytes);
    }
    free(ref);

    /* decoded values stay close to the original (attn_q of layer 0) */
    const src_tensor *s = &T[2];
    int64_t id = mio_gguf_find_tensor(f, s->name);
    mio_gguf_tensor t;
    if (id >= 0 && mio_gguf_tensor_info(f, id, &t) == MIO_OK) {
        size_t n = (size_t)(s->ne[0] * s->ne[1]);
        float *y = (float *)malloc(n * sizeof *y);
        T_OK(mio_decode_f32(t.type, t.data, (size_t)t.nbytes, y, n));
        double se = 0, ss = 0;
        for (size_t k = 0; k < n; k++) {
            double e = (double)y[k] - (double)s->data[k];
            se += e * e;
            ss += (double)s->data[k] * s->data[k];
        }
        double rel = sqrt(se / ss);
        IC_CHECK(rel <= tg->max_rel_rms, "--dtype %s: %s decodes with relative RMS error %.4f > %.4f", tg->dtype,
                 s->name, rel, tg->max_rel_rms);
        printf("  --dtype %-7s %s relative RMS error %.5f (bound %.3f)\n", tg->dtype, s->name, rel, tg->max_rel_rms);
        free(y);
    }
    mio_gguf_close(f);

    char want[16];
    snprintf(want, sizeof want, "%u", tg->ftype);
    int before = t_fail;
    llama_check(out1, want, tg->desc);
    if (t_fail == before) remove(out1); /* kept for inspection on failure */
    remove(out2);
    remove(err1);
    remove(err2);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH_TO_mio-export-gguf\n", argv[0]);
        return 2;
    }
    EXPORT_BIN = argv[1];
    ic_load_peer_or_skip(&G);
    BIND(g_quantize_chunk, G.handle, "ggml_quantize_chunk");
    BIND(g_quantize_init, G.handle, "ggml_quantize_init");
    if (!g_quantize_chunk || !g_quantize_init) {
        fprintf(stderr, "FAIL: %s lacks ggml_quantize_chunk/ggml_quantize_init\n", G.path);
        return 1;
    }
    char why[8192];
    int lr = load_llama(why, sizeof why);
    if (lr > 0) T_SKIP(why);
    if (lr < 0) { fprintf(stderr, "FAIL: %s\n", why); return 1; }

    build_tensors();
    T_EQ_U64(n_elems_total, 1344768); /* 2*256*64 + 256 + 2*(2*256 + 4*256*256 + 3*256*512) */
    T_CHECK(write_model("llama_export_f32.gguf"));
    mio_gguf_file *src = NULL;
    T_OK(mio_gguf_open("llama_export_f32.gguf", MIO_OPEN_MMAP, &src));
    if (!src) T_DONE();
    T_EQ_INT(mio_gguf_tensor_count(src), n_t);
    T_EQ_INT(n_t, 21);

    /* baseline: llama.cpp loads ggml's f32 file */
    llama_check("llama_export_f32.gguf", "0", "F32");

    /* the load check has teeth: llama.cpp refuses a copy cut short in the data */
    {
        size_t n = 0;
        unsigned char *b = ic_read_file("llama_export_f32.gguf", &n);
        FILE *fp = b ? fopen("llama_export_cut.gguf", "wb") : NULL;
        if (fp) {
            fwrite(b, 1, n - 4096, fp);
            fclose(fp);
            llama_params_t p = L.model_default_params();
            void *m = L.model_load_from_file("llama_export_cut.gguf", p);
            IC_CHECK(m == NULL, "llama.cpp loaded a truncated model");
            if (m) L.model_free(m);
            remove("llama_export_cut.gguf");
        }
        free(b);
    }

    for (size_t k = 0; k < N_TARGETS; k++) {
        if (!mio_type_can_encode(TARGETS[k].type)) {
            IC_CHECK(0, "libmodelio cannot encode %s", TARGETS[k].dtype);
            continue;
        }
        check_target(&TARGETS[k], src);
    }
    mio_gguf_close(src);
    if (L.backend_free) L.backend_free();
    for (int i = 0; i < n_t; i++) free(T[i].data);
    T_DONE();
}
