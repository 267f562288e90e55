/* SPDX-License-Identifier: MIT */
/* interop_quant_policy.c — the quantizer's type policy and tensor order
 * (src/quantize/policy.c) against the peer's llama.cpp, decision by decision.
 *
 * Part A (breadth): random model layouts (architectures that change a rule,
 * block counts up to 80 for the 70B rule, GQA, 4/8/16 experts, row lengths that
 * are and are not whole k-quant blocks, tied embeddings, odd names, quantized
 * inputs) and random flags (pure, leave-output, output / token-embedding types,
 * --tensor-type patterns) go through the peer's own type chooser
 * (llama_quant_model_from_metadata + llama_quant_compute_types, exported by
 * libllama) for every preset, and through mio_qz_choose_types.
 *
 * Part B (end to end): small llama models written with ggml's gguf writer (f16,
 * f32, bf16 weights; a real SentencePiece vocabulary cut from
 * tests/data/vocab-llama-spm.gguf; n_embd 256 / 320 / 192; GQA; 9 blocks;
 * an 8-expert MoE; tied embeddings; tensors written out of order) are
 * quantized by the peer's llama_model_quantize for every preset — the IQ ones
 * with an importance matrix built here — and with pure, leave-output,
 * output-tensor-type, token-embedding-type, tensor-type, prune-layers,
 * keep-split and requantizing; libmodelio reads each output and every tensor's
 * name, position and type must be what mio_qz_output_order + mio_qz_choose_types say,
 * copied tensors byte for byte the input's. Where llama.cpp refuses (an imatrix
 * needed, requantizing disabled) mio_qz_choose_types must refuse too.
 *
 * llama.cpp is declared by hand here (no llama.cpp header is used): the
 * llama_model_quantize_params layout of this build was read from
 * llama_model_quantize_default_params and is verified at run time.
 * A mismatch prints the model, preset, flags, tensor and both types. */
#include "interop.h"
#include "core/core.h"
#include "quantize/quantize_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* policy.c is compiled into this test (its functions are internal to the
 * library); it reports errors through mio_err_set, provided here. */
static char g_err[1024];
mio_status mio_err_set(mio_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return st;
}

static peer_api G;

/* ------------------------------------------------------------------ llama.cpp */

/* llama_model_quantize_params of this build: 64 bytes (default_params writes
 * exactly bytes 0..63). Offsets, checked against the defaults in main():
 *   0x00 int32 nthread (0)            0x04 int32 ftype (7 = Q8_0)
 *   0x08 int32 output_tensor_type (43 = GGML_TYPE_COUNT)
 *   0x0c int32 token_embedding_type (43)
 *   0x10 bool allow_requantize (0)    0x11 bool quantize_output_tensor (1)
 *   0x12 bool only_copy (0)           0x13 bool pure (0)
 *   0x14 bool keep_split (0)          0x15 bool dry_run (0)
 *   0x18 imatrix*  0x20 kv_overrides*  0x28 tensor_types*  0x30 prune_layers*
 *   0x38 int32 (0), 0x3c int32 (2): not read by llama_model_quantize here. */
enum { QP_NTHREAD = 0x00, QP_FTYPE = 0x04, QP_OUT_TYPE = 0x08, QP_TOK_TYPE = 0x0c, QP_ALLOW_REQ = 0x10,
       QP_QUANT_OUT = 0x11, QP_ONLY_COPY = 0x12, QP_PURE = 0x13, QP_KEEP_SPLIT = 0x14, QP_DRY_RUN = 0x15,
       QP_IMATRIX = 0x18, QP_KV_OVERRIDES = 0x20, QP_TT = 0x28, QP_PRUNE = 0x30, QP_SIZE = 0x40 };
#define GGML_TYPE_COUNT_PEER 43
typedef struct { unsigned char b[QP_SIZE]; } qparams;
/* one --tensor-type entry; the list ends with pattern == NULL */
typedef struct { const char *pattern; int type; } peer_tt;
/* one imatrix entry (name, values, count); the list ends with name == NULL */
typedef struct { const char *name; const float *data; size_t size; } peer_imatrix;
/* llama_quant_model_desc (llama-ext.h), as llama_quant_model_from_metadata reads it */
typedef struct {
    const char *architecture;
    uint32_t n_embd, n_ff, n_layer, n_head, n_head_kv, n_expert, n_embd_head_k, n_embd_head_v;
} peer_desc;

/* struct llama_model_params, never looked into: an over-sized stand-in (returned
 * through a hidden pointer and passed by value in memory on x86-64 SysV, so the
 * callee only touches its real, smaller prefix; see interop_llama_export.c) */
typedef struct { unsigned char bytes[512]; } mparams;
typedef void (*llama_log_fn)(int level, const char *text, void *user);
static struct {
    void *ggml, *llama;
    qparams (*quantize_default_params)(void);
    uint32_t (*model_quantize)(const char *in, const char *out, const qparams *p);
    void (*model_free)(void *model);
    mparams (*model_default_params)(void);
    void *(*model_load_from_file)(const char *path, mparams params);
    /* llama-ext.h (C++ linkage) */
    void *(*model_from_metadata)(const peer_desc *desc);
    void *(*quant_init)(const void *model, const qparams *p);
    void (*quant_free)(void *qs);
    void (*compute_types)(void *qs, int ftype, void **tensors, int *types, size_t n);
} L;


#define BIND(dst, h, name) do { void *_p = (h) ? dlsym((h), (name)) : NULL; memcpy(&(dst), &_p, sizeof _p); } while (0)

static int load_llama(char *why, size_t why_len) {
    char dir[4096];
    int rc = peer_llama_start(&G, dir, &L.ggml, &L.llama, why, why_len);
    if (rc) return rc;
    BIND(L.quantize_default_params, L.llama, "llama_model_quantize_default_params");
    BIND(L.model_quantize, L.llama, "llama_model_quantize");
    BIND(L.model_free, L.llama, "llama_model_free");
    BIND(L.model_default_params, L.llama, "llama_model_default_params");
    BIND(L.model_load_from_file, L.llama, "llama_model_load_from_file");
    BIND(L.model_from_metadata, L.llama, "_Z31llama_quant_model_from_metadataPK22llama_quant_model_desc");
    BIND(L.quant_init, L.llama, "_Z16llama_quant_initPK11llama_modelPK27llama_model_quantize_params");
    BIND(L.quant_free, L.llama, "_Z16llama_quant_freeP19quantize_state_impl");
    BIND(L.compute_types, L.llama,
         "_Z25llama_quant_compute_typesP19quantize_state_impl11llama_ftypePP11ggml_tensorP9ggml_typem");
    if (!L.quantize_default_params ||
        !L.model_quantize || !L.model_free || !L.model_default_params || !L.model_load_from_file ||
        !L.model_from_metadata || !L.quant_init || !L.quant_free ||
        !L.compute_types) {
        snprintf(why, why_len, "llama.cpp peer in %s lacks a required symbol", dir);
        return -1;
    }
    return 0;
}

static void qp_i32(qparams *p, int off, int32_t v) { memcpy(p->b + off, &v, 4); }
static int32_t qp_get_i32(const qparams *p, int off) { int32_t v; memcpy(&v, p->b + off, 4); return v; }
static void qp_ptr(qparams *p, int off, const void *v) { memcpy(p->b + off, &v, sizeof v); }

/* ---------------------------------------------------------------- options */

typedef struct flags {
    bool pure, leave_output, allow_requantize, keep_split, dry_run;
    int output_type, token_type;          /* -1 = none */
    const mio_tensor_type_override *tt;
    size_t n_tt;
    const int32_t *prune;
    size_t n_prune;
} flags;

static void flags_text(const flags *f, char *buf, size_t n) {
    size_t o = 0;
    buf[0] = 0;
#define ADD(...) do { int _k = snprintf(buf + o, n - o, __VA_ARGS__); if (_k > 0 && (size_t)_k < n - o) o += (size_t)_k; } while (0)
    if (f->pure) ADD(" --pure");
    if (f->leave_output) ADD(" --leave-output-tensor");
    if (f->allow_requantize) ADD(" --allow-requantize");
    if (f->keep_split) ADD(" --keep-split");
    if (f->dry_run) ADD(" --dry-run");
    if (f->output_type >= 0) ADD(" --output-tensor-type %s", mio_type_name(f->output_type));
    if (f->token_type >= 0) ADD(" --token-embedding-type %s", mio_type_name(f->token_type));
    for (size_t i = 0; i < f->n_tt; i++) ADD(" --tensor-type '%s=%s'", f->tt[i].pattern, mio_type_name(f->tt[i].type));
    if (f->n_prune) {
        ADD(" --prune-layers ");
        for (size_t i = 0; i < f->n_prune; i++) ADD("%s%d", i ? "," : "", f->prune[i]);
    }
    if (!o) ADD(" (no flags)");
#undef ADD
}

static void policy_of(int preset, const flags *f, bool has_imatrix, qz_policy *pol) {
    memset(pol, 0, sizeof *pol);
    pol->ftype = preset;
    pol->pure = f->pure;
    pol->quantize_output_tensor = !f->leave_output;
    pol->allow_requantize = f->allow_requantize;
    pol->dry_run = f->dry_run;
    pol->has_imatrix = has_imatrix;
    pol->output_tensor_type = f->output_type;
    pol->token_embedding_type = f->token_type;
    pol->experts_type = -1;
    pol->tensor_types = f->tt;
    pol->n_tensor_types = f->n_tt;
}

/* llama_model_kv_override of this build: int tag (INT 0, FLOAT 1, BOOL 2, STR 3),
 * char key[128], then at offset 136 a union of int64 / double / bool / char[128]. */
typedef struct { unsigned char b[264]; } peer_kv;
static void kv_str(peer_kv *o, const char *key, const char *v) {
    memset(o, 0, sizeof *o);
    int tag = 3;
    memcpy(o->b, &tag, 4);
    snprintf((char *)o->b + 4, 128, "%s", key);
    snprintf((char *)o->b + 136, 128, "%s", v);
}
static void kv_int(peer_kv *o, const char *key, int64_t v) {
    memset(o, 0, sizeof *o);
    snprintf((char *)o->b + 4, 128, "%s", key);
    memcpy(o->b + 136, &v, 8);
}

/* The imatrix as a legacy .dat file (ncall 1, so the values read back exactly)
 * with a trailer (10 chunks, dataset "interop.txt"), and the metadata
 * llama-quantize adds when it passes one (quantize.imatrix.*: file as given,
 * dataset, entries, chunks) as the peer's kv overrides. */
#define IM_DAT "quant_policy_imatrix.dat"
static void write_imatrix_dat(const peer_imatrix *im, peer_kv kv[5]) {
    FILE *fp = fopen(IM_DAT, "wb");
    int32_t n = 0;
    while (im[n].name) n++;
    if (fp) {
        fwrite(&n, 4, 1, fp);
        for (int32_t i = 0; i < n; i++) {
            int32_t nl = (int32_t)strlen(im[i].name), one = 1, nv = (int32_t)im[i].size;
            fwrite(&nl, 4, 1, fp);
            fwrite(im[i].name, 1, (size_t)nl, fp);
            fwrite(&one, 4, 1, fp);
            fwrite(&nv, 4, 1, fp);
            fwrite(im[i].data, 4, im[i].size, fp);
        }
        int32_t chunks = 10, dl = 11;
        fwrite(&chunks, 4, 1, fp);
        fwrite(&dl, 4, 1, fp);
        fwrite("interop.txt", 1, 11, fp);
        fclose(fp);
    }
    kv_str(&kv[0], "quantize.imatrix.file", IM_DAT);
    kv_str(&kv[1], "quantize.imatrix.dataset", "interop.txt");
    kv_int(&kv[2], "quantize.imatrix.entries_count", n);
    kv_int(&kv[3], "quantize.imatrix.chunks_count", 10);
    memset(&kv[4], 0, sizeof kv[4]);
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The peer's parameter block for these flags, as llama-quantize builds it from
 * its command line: --tensor-type patterns lower-cased, the --prune-layers list
 * sorted and de-duplicated (mio_quantize gets the flags as they are and must
 * do the same itself). tt/prune storage is the caller's. */
static qparams params_of(int preset, const flags *f, peer_tt *tt, int32_t *prune, const peer_imatrix *im) {
    static char lower[8][128];
    qparams p = L.quantize_default_params();
    qp_i32(&p, QP_NTHREAD, 2);
    qp_i32(&p, QP_FTYPE, preset);
    if (f->output_type >= 0) qp_i32(&p, QP_OUT_TYPE, f->output_type);
    if (f->token_type >= 0) qp_i32(&p, QP_TOK_TYPE, f->token_type);
    p.b[QP_ALLOW_REQ] = f->allow_requantize;
    p.b[QP_QUANT_OUT] = !f->leave_output;
    p.b[QP_PURE] = f->pure;
    p.b[QP_KEEP_SPLIT] = f->keep_split;
    p.b[QP_DRY_RUN] = f->dry_run;
    if (f->n_tt) {
        for (size_t i = 0; i < f->n_tt && i < 8; i++) {
            snprintf(lower[i], sizeof lower[i], "%s", f->tt[i].pattern);
            for (char *c = lower[i]; *c; c++) *c = (char)tolower((unsigned char)*c);
            tt[i] = (peer_tt){lower[i], f->tt[i].type};
        }
        tt[f->n_tt] = (peer_tt){NULL, GGML_TYPE_COUNT_PEER};
        qp_ptr(&p, QP_TT, tt);
    }
    if (f->n_prune) {
        memcpy(prune, f->prune, f->n_prune * sizeof *prune);
        qsort(prune, f->n_prune, sizeof *prune, cmp_i32);
        size_t m = 0;
        for (size_t i = 0; i < f->n_prune; i++)
            if (!m || prune[m - 1] != prune[i]) prune[m++] = prune[i];
        prune[m] = -1;
        qp_ptr(&p, QP_PRUNE, prune);
    }
    if (im) qp_ptr(&p, QP_IMATRIX, im);
    return p;
}

/* ================================================================ presets */

typedef struct preset_t { const char *name; int preset; } preset_t;
static const preset_t PRESETS[] = {
    {"Q4_0", 2}, {"Q4_1", 3}, {"Q8_0", 7}, {"Q5_0", 8}, {"Q5_1", 9}, {"Q2_K", 10}, {"Q3_K_S", 11},
    {"Q3_K_M", 12}, {"Q3_K_L", 13}, {"Q4_K_S", 14}, {"Q4_K_M", 15}, {"Q5_K_S", 16}, {"Q5_K_M", 17},
    {"Q6_K", 18}, {"IQ2_XXS", 19}, {"IQ2_XS", 20}, {"Q2_K_S", 21}, {"IQ3_XS", 22}, {"IQ3_XXS", 23},
    {"IQ1_S", 24}, {"IQ4_NL", 25}, {"IQ3_S", 26}, {"IQ3_M", 27}, {"IQ2_S", 28}, {"IQ2_M", 29},
    {"IQ4_XS", 30}, {"IQ1_M", 31}, {"BF16", 32}, {"TQ1_0", 36}, {"TQ2_0", 37}, {"MXFP4_MOE", 38},
    {"Q1_0", 40}, {"Q2_0", 41}, {"F32", 0}, {"F16", 1},
};
#define N_PRESETS (sizeof PRESETS / sizeof PRESETS[0])

static void check_preset_names(void) {
    for (size_t i = 0; i < N_PRESETS; i++) {
        IC_CHECK(mio_preset_from_name(PRESETS[i].name) == PRESETS[i].preset, "mio_preset_from_name(%s) = %d",
                 PRESETS[i].name, mio_preset_from_name(PRESETS[i].name));
        const char *n = mio_preset_name(PRESETS[i].preset);
        IC_CHECK(n && !strcmp(n, PRESETS[i].name), "mio_preset_name(%d) = %s", PRESETS[i].preset, n ? n : "NULL");
    }
    T_EQ_INT(mio_preset_from_name("q4_k"), MIO_PRESET_Q4_K_M);
    T_EQ_INT(mio_preset_from_name("Q3_K"), MIO_PRESET_Q3_K_M);
    T_EQ_INT(mio_preset_from_name("q5_K"), MIO_PRESET_Q5_K_M);
    T_EQ_INT(mio_preset_from_name("mxfp4_moe"), MIO_PRESET_MXFP4_MOE);
    T_EQ_INT(mio_preset_from_name("15"), MIO_PRESET_Q4_K_M);
    T_EQ_INT(mio_preset_from_name(" 7"), MIO_PRESET_Q8_0);
    T_EQ_INT(mio_preset_from_name("2x"), MIO_PRESET_Q4_0);
    T_EQ_INT(mio_preset_from_name("0"), MIO_PRESET_F32);
    T_EQ_INT(mio_preset_from_name("39"), MIO_PRESET_NONE); /* NVFP4: named by llama.cpp, refused by its quantizer */
    T_EQ_INT(mio_preset_from_name("NVFP4"), MIO_PRESET_NONE);
    T_CHECK(mio_preset_name(39) == NULL);
    T_EQ_INT(mio_preset_from_name("4"), MIO_PRESET_NONE);
    T_EQ_INT(mio_preset_from_name("COPY"), MIO_PRESET_NONE);
    T_EQ_INT(mio_preset_from_name("q4_k_x"), MIO_PRESET_NONE);
    T_EQ_INT(mio_preset_from_name(""), MIO_PRESET_NONE);
    T_EQ_INT(mio_preset_from_name("99999999999"), MIO_PRESET_NONE);
    T_CHECK(mio_preset_name(4) == NULL && mio_preset_name(-1) == NULL && mio_preset_name(1024) == NULL);
    T_EQ_STR(mio_preset_name(MIO_PRESET_Q4_K_M), "Q4_K_M");
    T_EQ_STR(mio_qz_preset_suggest("q4_km"), "Q4_K_M");
    T_EQ_STR(mio_qz_preset_suggest("Q4K_M"), "Q4_K_M");
    T_EQ_STR(mio_qz_preset_suggest("iq2xxs"), "IQ2_XXS");
    T_CHECK(mio_qz_preset_suggest("banana split") == NULL);
}

/* =============================================================== Part A */

typedef struct syn_tensor { char name[64]; int n_dims; int64_t ne[4]; int type; } syn_tensor;

static peer_rng R;
static int rnd(int n) { return (int)peer_below(&R, (uint64_t)n); }

static const int ROW_SIZES[] = {256, 512, 768, 1024, 320, 192, 96, 160, 64, 32, 80, 40, 48, 2560};

static size_t n_compared_a, n_refused_a;

/* Build a random layout; returns the tensor count. */
static int random_layout(syn_tensor *t, int cap, peer_desc *d, char *arch_buf) {
    static const char *ARCHES[] = {"llama", "llama", "llama", "falcon", "bailingmoe3", "qwen2", "deci",
                                   "jais2", "gpt2", "qwen3moe", "deepseek2", "gemma3"};
    const char *arch = ARCHES[rnd((int)(sizeof ARCHES / sizeof ARCHES[0]))];
    snprintf(arch_buf, 32, "%s", arch);
    int n_layer;
    switch (rnd(6)) {
    case 0: n_layer = 80; break;
    case 1: n_layer = 68; break;
    case 2: n_layer = 16 + rnd(20); break;
    default: n_layer = 1 + rnd(12); break;
    }
    static const int HEADS[][2] = {{8, 8}, {8, 2}, {8, 1}, {32, 8}, {12, 3}, {4, 4}, {6, 2}, {16, 16}, {8, 0}};
    int h = rnd((int)(sizeof HEADS / sizeof HEADS[0]));
    static const int EXPERTS[] = {0, 0, 0, 1, 4, 8, 8, 16};
    int n_expert = EXPERTS[rnd((int)(sizeof EXPERTS / sizeof EXPERTS[0]))];
    int64_t n_embd = ROW_SIZES[rnd(7)];
    if (rnd(4) == 0) n_embd = ROW_SIZES[rnd((int)(sizeof ROW_SIZES / sizeof ROW_SIZES[0]))];
    int64_t n_ff = ROW_SIZES[rnd((int)(sizeof ROW_SIZES / sizeof ROW_SIZES[0]))];
    int64_t n_vocab = 64 + rnd(3) * 32;
    *d = (peer_desc){arch_buf, (uint32_t)n_embd, (uint32_t)n_ff, (uint32_t)n_layer, (uint32_t)HEADS[h][0],
                     (uint32_t)HEADS[h][1], (uint32_t)n_expert, 64, 64};
    int n = 0;
    /* the weight type of matrices: mostly f16/f32/bf16, sometimes already quantized */
    int wtype = rnd(3) == 0 ? MIO_TYPE_F32 : rnd(4) == 0 ? MIO_TYPE_BF16 : MIO_TYPE_F16;
#define T2(nm, a, b, ty) do { if (n < cap) { syn_tensor *_t = &t[n++]; snprintf(_t->name, 64, "%s", (nm)); \
        _t->n_dims = 2; _t->ne[0] = (a); _t->ne[1] = (b); _t->ne[2] = 1; _t->ne[3] = 1; _t->type = (ty); } } while (0)
#define T3(nm, a, b, c, ty) do { if (n < cap) { syn_tensor *_t = &t[n++]; snprintf(_t->name, 64, "%s", (nm)); \
        _t->n_dims = 3; _t->ne[0] = (a); _t->ne[1] = (b); _t->ne[2] = (c); _t->ne[3] = 1; _t->type = (ty); } } while (0)
#define T1(nm, a) do { if (n < cap) { syn_tensor *_t = &t[n++]; snprintf(_t->name, 64, "%s", (nm)); \
        _t->n_dims = 1; _t->ne[0] = (a); _t->ne[1] = 1; _t->ne[2] = 1; _t->ne[3] = 1; _t->type = MIO_TYPE_F32; } } while (0)
    char nm[64];
    bool tied = rnd(3) == 0;
    T2("token_embd.weight", n_embd, n_vocab, wtype);
    if (rnd(8) == 0) T2("per_layer_token_embd.weight", n_embd, n_vocab, wtype);
    if (rnd(10) == 0) T2("position_embd.weight", n_embd, 32, wtype);
    if (rnd(10) == 0) T2("token_types.weight", n_embd, 2, wtype);
    if (rnd(12) == 0) T2("rope_freqs.weight", 32, 1, MIO_TYPE_F32); /* 2-D on file, 1-D for ggml */
    T1("output_norm.weight", n_embd);
    if (!tied) T2("output.weight", n_embd, n_vocab, wtype);
    bool qkv = rnd(6) == 0, kv_b = rnd(10) == 0;
    bool expert_layout = n_expert > 1 && rnd(4) != 0;
    int64_t n_embd_kv = HEADS[h][1] ? n_embd * HEADS[h][1] / HEADS[h][0] : n_embd;
    if (n_embd_kv < 1) n_embd_kv = n_embd;
    for (int l = 0; l < n_layer && n < cap - 16; l++) {
#define NM(sfx) (snprintf(nm, sizeof nm, "blk.%d." sfx, l), nm)
        T1(NM("attn_norm.weight"), n_embd);
        if (qkv) {
            T2(NM("attn_qkv.weight"), n_embd, n_embd + 2 * n_embd_kv, wtype);
        } else {
            T2(NM("attn_q.weight"), n_embd, n_embd, wtype);
            T2(NM("attn_k.weight"), n_embd, n_embd_kv, wtype);
            T2(NM("attn_v.weight"), n_embd, n_embd_kv, wtype);
        }
        if (kv_b) T2(NM("attn_kv_b.weight"), n_embd, n_embd, wtype);
        T2(NM("attn_output.weight"), n_embd, n_embd, wtype);
        if (rnd(20) == 0) T2(NM("attn_output.bias"), n_embd, 2, wtype);
        T1(NM("ffn_norm.weight"), n_embd);
        if (expert_layout) {
            T2(NM("ffn_gate_inp.weight"), n_embd, n_expert, MIO_TYPE_F32);
            T3(NM("ffn_gate_exps.weight"), n_embd, n_ff, n_expert, wtype);
            T3(NM("ffn_up_exps.weight"), n_embd, n_ff, n_expert, wtype);
            T3(NM("ffn_down_exps.weight"), n_ff, n_embd, n_expert, wtype);
            if (rnd(3) == 0) {
                T2(NM("ffn_gate_shexp.weight"), n_embd, n_ff, wtype);
                T2(NM("ffn_down_shexp.weight"), n_ff, n_embd, wtype);
            }
        } else {
            T2(NM("ffn_gate.weight"), n_embd, n_ff, wtype);
            T2(NM("ffn_up.weight"), n_embd, n_ff, wtype);
            T2(NM("ffn_down.weight"), n_ff, n_embd, wtype);
        }
        if (rnd(30) == 0) T2(NM("altup_proj.weight"), n_embd, n_embd, wtype);
        if (rnd(30) == 0) T2(NM("ssm_conv1d.weight"), 4, n_embd, MIO_TYPE_F32);
        if (rnd(30) == 0) T2(NM("time_mix_w1.weight"), n_embd, 32, wtype);
        if (rnd(30) == 0) T2(NM("weird"), n_embd, n_embd, wtype);
        if (rnd(30) == 0) T2(NM("attn_q_a_norm.weight"), n_embd, 1, MIO_TYPE_F32);
#undef NM
    }
    /* quantized inputs: a few tensors already in a block type (llama.cpp chooses
     * their type like any other; requantizing is the writer's business) */
    if (rnd(5) == 0) {
        static const int QT[] = {MIO_TYPE_Q4_0, MIO_TYPE_Q8_0, MIO_TYPE_Q4_K, MIO_TYPE_Q6_K};
        for (int k = 0; k < n; k++) {
            if (t[k].n_dims < 2 || rnd(3)) continue;
            int q = QT[rnd(4)];
            if (t[k].ne[0] % mio_type_block_size(q) == 0) t[k].type = q;
        }
    }
    /* shuffle: compute_types follows the order it is given */
    if (rnd(3) == 0)
        for (int k = n - 1; k > 0; k--) {
            int j = rnd(k + 1);
            syn_tensor tmp = t[k];
            t[k] = t[j];
            t[j] = tmp;
        }
    return n;
#undef T1
#undef T2
#undef T3
}

static const char *const PATTERNS[] = {
    "attn_v", "attn_q\\.weight", "blk\\.[0-2]\\.ffn_down", "blk\\.\\d+\\.ffn_up", "ffn_(gate|up)",
    "^output", "_exps\\.weight$", "attn_.*weight", "blk\\.1[0-9]?\\.", "token_embd", "per_layer",
    "\\.ffn_down_exps", "blk\\.\\d\\.attn_k", "(attn_output|attn_qkv)",
};
static const int OVERRIDE_TYPES[] = {MIO_TYPE_Q8_0, MIO_TYPE_Q4_K, MIO_TYPE_Q6_K, MIO_TYPE_F16, MIO_TYPE_Q5_0,
                                     MIO_TYPE_IQ4_NL, MIO_TYPE_Q3_K, MIO_TYPE_Q2_K, MIO_TYPE_IQ4_XS, MIO_TYPE_BF16,
                                     MIO_TYPE_F32, MIO_TYPE_Q4_0, MIO_TYPE_MXFP4, MIO_TYPE_TQ2_0};

static void part_a(int n_scenarios) {
    enum { CAP = 1400 };
    syn_tensor *t = calloc(CAP, sizeof *t);
    qz_item *items = calloc(CAP, sizeof *items);
    void **gt = calloc(CAP, sizeof *gt);
    int *peer_types = calloc(CAP, sizeof *peer_types);
    peer_ggml_params gp = {(size_t)(CAP + 8) * G.ggml_tensor_overhead(), NULL, true};
    for (int sc = 0; sc < n_scenarios; sc++) {
        peer_desc d;
        char arch[32];
        int n = random_layout(t, CAP, &d, arch);
        /* flags */
        flags f = {0};
        f.output_type = f.token_type = -1;
        mio_tensor_type_override tt[3];
        if (rnd(5) == 0) f.pure = true;
        if (rnd(6) == 0) f.leave_output = true;
        if (rnd(5) == 0) f.output_type = OVERRIDE_TYPES[rnd((int)(sizeof OVERRIDE_TYPES / sizeof OVERRIDE_TYPES[0]))];
        if (rnd(5) == 0) f.token_type = OVERRIDE_TYPES[rnd((int)(sizeof OVERRIDE_TYPES / sizeof OVERRIDE_TYPES[0]))];
        if (rnd(3) == 0) {
            f.n_tt = 1 + (size_t)rnd(3);
            for (size_t k = 0; k < f.n_tt; k++)
                tt[k] = (mio_tensor_type_override){PATTERNS[rnd((int)(sizeof PATTERNS / sizeof PATTERNS[0]))],
                                                   OVERRIDE_TYPES[rnd((int)(sizeof OVERRIDE_TYPES /
                                                                            sizeof OVERRIDE_TYPES[0]))]};
            f.tt = tt;
        }
        peer_tt ptt[4];
        int32_t pprune[1];
        qparams p = params_of(MIO_PRESET_Q8_0, &f, ptt, pprune, NULL);
        void *model = L.model_from_metadata(&d);
        void *qs = model ? L.quant_init(model, &p) : NULL;
        void *ctx = G.ggml_init(gp);
        if (!model || !qs || !ctx) {
            IC_CHECK(0, "peer setup failed (model %p qs %p ctx %p)", model, qs, ctx);
            break;
        }
        for (int k = 0; k < n; k++) {
            gt[k] = G.ggml_new_tensor(ctx, t[k].type, t[k].n_dims, t[k].ne);
            G.ggml_set_name(gt[k], t[k].name);
        }
        qz_model m;
        memset(&m, 0, sizeof m);
        snprintf(m.arch_name, sizeof m.arch_name, "%s", arch);
        m.n_layer = d.n_layer;
        m.n_head = d.n_head;
        m.n_head_kv = d.n_head_kv;
        m.n_expert = d.n_expert;
        mio_qz_model_finish(&m);
        /* llama_quant_model_from_metadata's rule, not the loader's (which has more architectures) */
        m.is_70b = !strcmp(arch, "llama") && d.n_layer == 80 && d.n_head != d.n_head_kv;
        char ftxt[512];
        flags_text(&f, ftxt, sizeof ftxt);
        for (size_t pi = 0; pi < N_PRESETS; pi++) {
            const int preset = PRESETS[pi].preset;
            memset(items, 0, (size_t)n * sizeof *items);
            for (int k = 0; k < n; k++) {
                qz_item *q = &items[k];
                q->src = k;
                snprintf(q->name, sizeof q->name, "%s", t[k].name);
                snprintf(q->orig_name, sizeof q->orig_name, "%s", t[k].name);
                q->n_dims = (uint32_t)t[k].n_dims;
                memcpy(q->ne, t[k].ne, sizeof q->ne);
                q->in_type = t[k].type;
            }
            qz_policy pol;
            policy_of(preset, &f, false, &pol);
            qz_summary sum;
            pol.dry_run = false;
            mio_status st = mio_qz_choose_types(&m, &pol, items, (size_t)n, &sum);
            if (st != MIO_OK && !sum.types_decided) {
                /* the peer would throw out of compute_types (no fallback type, a
                 * name without its block number): not sent, Part B covers refusals */
                n_refused_a++;
                if (getenv("MIO_QUANT_VERBOSE")) printf("  A refused: %s: %s\n", PRESETS[pi].name, g_err);
                continue;
            }
            for (int k = 0; k < n; k++) peer_types[k] = -1;
            L.compute_types(qs, preset, gt, peer_types, (size_t)n);
            n_compared_a++;
            int shown = 0;
            for (int k = 0; k < n; k++) {
                if (peer_types[k] == items[k].out_type) {
                    t_pass++;
                    continue;
                }
                t_fail++;
                if (ic_printed++ < 60 && shown++ < 4)
                    fprintf(stderr,
                            "MISMATCH A[%d] arch %s n_layer %u heads %u/%u experts %u | %s%s | %s [%lld,%lld,%lld] %s: "
                            "llama.cpp %s, libmodelio %s (%s)\n",
                            sc, arch, d.n_layer, d.n_head, d.n_head_kv, d.n_expert, PRESETS[pi].name, ftxt,
                            t[k].name, (long long)t[k].ne[0], (long long)t[k].ne[1], (long long)t[k].ne[2],
                            mio_type_name(t[k].type), mio_type_name(peer_types[k]),
                            mio_type_name(items[k].out_type), items[k].why);
            }
        }
        G.ggml_free(ctx);
        L.quant_free(qs);
        L.model_free(model);
    }
    free(t);
    free(items);
    free(gt);
    free(peer_types);
}

/* =============================================================== Part B */

#define MAX_TENSORS 256
typedef struct mtensor {
    char name[64];
    int n_dims;
    int64_t ne[4];
    int type;
    void *data;
    size_t nbytes;
} mtensor;

typedef struct mspec {
    const char *tag;
    int64_t n_embd, n_ff, n_vocab;
    int n_layer, n_head, n_head_kv, n_expert;
    int wtype;      /* matrices */
    bool tied;      /* no output.weight */
    bool shuffled;  /* tensors written out of the loader's order */
} mspec;

typedef struct model {
    const mspec *spec;
    char path[128];
    mtensor t[MAX_TENSORS];
    int n;
    /* an importance matrix covering every matrix (values per column, per expert) */
    peer_imatrix im[MAX_TENSORS + 1];
    float *im_data[MAX_TENSORS];
    int n_im;
} model;

static uint64_t g_det = 0x71756172742d706full; /* fixed data: the same models every run */
static double unit01(void) {
    uint64_t z = peer_splitmix(&g_det);
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static float gauss(void) { return (float)(sqrt(-2.0 * log(unit01())) * cos(6.283185307179586 * unit01())); }

static void add_tensor(model *M, const char *name, int n_dims, int64_t a, int64_t b, int64_t c, int type) {
    mtensor *t = &M->t[M->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = n_dims;
    t->ne[0] = a;
    t->ne[1] = b;
    t->ne[2] = c;
    t->ne[3] = 1;
    t->type = type;
    size_t n = (size_t)(a * b * c);
    bool norm = n_dims == 1;
    t->nbytes = n * (type == MIO_TYPE_F32 ? 4 : 2);
    t->data = malloc(t->nbytes);
    for (size_t k = 0; k < n; k++) {
        float v = norm ? 1.0f + 0.05f * gauss() : 0.02f * gauss();
        if (type == MIO_TYPE_F32) memcpy((float *)t->data + k, &v, 4);
        else if (type == MIO_TYPE_F16) ((uint16_t *)t->data)[k] = mio_f32_to_fp16(v);
        else ((uint16_t *)t->data)[k] = mio_f32_to_bf16(v);
    }
    if (n_dims >= 2) {
        size_t ni = (size_t)(a * c);
        float *v = malloc(ni * sizeof *v);
        for (size_t k = 0; k < ni; k++) v[k] = (float)(0.5 + unit01());
        M->im_data[M->n_im] = v;
        M->im[M->n_im] = (peer_imatrix){t->name, v, ni};
        M->n_im++;
        M->im[M->n_im] = (peer_imatrix){NULL, NULL, 0};
    }
}

static void build_model(model *M, const mspec *s) {
    memset(M, 0, sizeof *M);
    M->spec = s;
    snprintf(M->path, sizeof M->path, "quant_policy_%s.gguf", s->tag);
    const int64_t E = s->n_embd, F = s->n_ff, V = s->n_vocab;
    const int64_t KV = E * s->n_head_kv / s->n_head;
    const int w = s->wtype;
    char nm[64];
    add_tensor(M, "token_embd.weight", 2, E, V, 1, w);
    add_tensor(M, "output_norm.weight", 1, E, 1, 1, MIO_TYPE_F32);
    if (!s->tied) add_tensor(M, "output.weight", 2, E, V, 1, w);
    for (int l = 0; l < s->n_layer; l++) {
#define NM(sfx) (snprintf(nm, sizeof nm, "blk.%d." sfx, l), nm)
        add_tensor(M, NM("attn_norm.weight"), 1, E, 1, 1, MIO_TYPE_F32);
        add_tensor(M, NM("attn_q.weight"), 2, E, E, 1, w);
        add_tensor(M, NM("attn_k.weight"), 2, E, KV, 1, w);
        add_tensor(M, NM("attn_v.weight"), 2, E, KV, 1, w);
        add_tensor(M, NM("attn_output.weight"), 2, E, E, 1, w);
        add_tensor(M, NM("ffn_norm.weight"), 1, E, 1, 1, MIO_TYPE_F32);
        if (s->n_expert) {
            add_tensor(M, NM("ffn_gate_inp.weight"), 2, E, s->n_expert, 1, MIO_TYPE_F32);
            add_tensor(M, NM("ffn_gate_exps.weight"), 3, E, F, s->n_expert, w);
            add_tensor(M, NM("ffn_up_exps.weight"), 3, E, F, s->n_expert, w);
            add_tensor(M, NM("ffn_down_exps.weight"), 3, F, E, s->n_expert, w);
        } else {
            add_tensor(M, NM("ffn_gate.weight"), 2, E, F, 1, w);
            add_tensor(M, NM("ffn_up.weight"), 2, E, F, 1, w);
            add_tensor(M, NM("ffn_down.weight"), 2, F, E, 1, w);
        }
#undef NM
    }
}

/* The vocabulary: the first n tokens of tests/data/vocab-llama-spm.gguf (the
 * 259 control and byte tokens, then real pieces). */
static int set_vocab(void *gc, int64_t n) {
    mio_gguf_file *v = NULL;
    if (mio_gguf_open(MIO_TEST_DATA "/vocab-llama-spm.gguf", 0, &v) != MIO_OK) return 0;
    int64_t kt = mio_gguf_find_key(v, "tokenizer.ggml.tokens");
    int64_t ks = mio_gguf_find_key(v, "tokenizer.ggml.scores");
    int64_t ky = mio_gguf_find_key(v, "tokenizer.ggml.token_type");
    if (kt < 0 || ks < 0 || ky < 0) { mio_gguf_close(v); return 0; }
    char **toks = calloc((size_t)n, sizeof *toks);
    float *scores = calloc((size_t)n, sizeof *scores);
    int32_t *types = calloc((size_t)n, sizeof *types);
    for (int64_t i = 0; i < n; i++) {
        mio_str s;
        double sc = 0;
        int64_t ty = 0;
        if (mio_gguf_arr_str(v, kt, (uint64_t)i, &s) != MIO_OK || mio_gguf_arr_f64(v, ks, (uint64_t)i, &sc) != MIO_OK ||
            mio_gguf_arr_i64(v, ky, (uint64_t)i, &ty) != MIO_OK) {
            mio_gguf_close(v);
            return 0;
        }
        toks[i] = malloc(s.len + 1);
        memcpy(toks[i], s.ptr, s.len);
        toks[i][s.len] = 0;
        scores[i] = (float)sc;
        types[i] = (int32_t)ty;
    }
    mio_gguf_close(v);
    G.gguf_set_val_str(gc, "tokenizer.ggml.model", "llama");
    G.gguf_set_val_str(gc, "tokenizer.ggml.pre", "default");
    G.gguf_set_arr_str(gc, "tokenizer.ggml.tokens", (const char **)toks, (size_t)n);
    G.gguf_set_arr_data(gc, "tokenizer.ggml.scores", MIO_GGUF_F32, scores, (size_t)n);
    G.gguf_set_arr_data(gc, "tokenizer.ggml.token_type", MIO_GGUF_I32, types, (size_t)n);
    G.gguf_set_val_u32(gc, "tokenizer.ggml.bos_token_id", 1);
    G.gguf_set_val_u32(gc, "tokenizer.ggml.eos_token_id", 2);
    G.gguf_set_val_u32(gc, "tokenizer.ggml.unknown_token_id", 0);
    G.gguf_set_val_bool(gc, "tokenizer.ggml.add_bos_token", true);
    for (int64_t i = 0; i < n; i++) free(toks[i]);
    free(toks);
    free(scores);
    free(types);
    return 1;
}

static int write_model(model *M) {
    const mspec *s = M->spec;
    void *gc = G.gguf_init_empty();
    G.gguf_set_val_str(gc, "general.architecture", "llama");
    G.gguf_set_val_str(gc, "general.name", s->tag);
    G.gguf_set_val_u32(gc, "general.file_type", s->wtype == MIO_TYPE_F32 ? 0 : s->wtype == MIO_TYPE_F16 ? 1 : 32);
    G.gguf_set_val_u32(gc, "llama.vocab_size", (uint32_t)s->n_vocab);
    G.gguf_set_val_u32(gc, "llama.context_length", 256);
    G.gguf_set_val_u32(gc, "llama.embedding_length", (uint32_t)s->n_embd);
    G.gguf_set_val_u32(gc, "llama.feed_forward_length", (uint32_t)s->n_ff);
    G.gguf_set_val_u32(gc, "llama.block_count", (uint32_t)s->n_layer);
    G.gguf_set_val_u32(gc, "llama.attention.head_count", (uint32_t)s->n_head);
    G.gguf_set_val_u32(gc, "llama.attention.head_count_kv", (uint32_t)s->n_head_kv);
    G.gguf_set_val_u32(gc, "llama.rope.dimension_count", (uint32_t)(s->n_embd / s->n_head));
    G.gguf_set_val_f32(gc, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    if (s->n_expert) {
        G.gguf_set_val_u32(gc, "llama.expert_count", (uint32_t)s->n_expert);
        G.gguf_set_val_u32(gc, "llama.expert_used_count", 2);
    }
    if (!set_vocab(gc, s->n_vocab)) {
        G.gguf_free(gc);
        return 0;
    }
    int order[MAX_TENSORS];
    for (int i = 0; i < M->n; i++) order[i] = i;
    if (s->shuffled) /* reverse, then swap pairs: far from the loader's order */
        for (int i = 0; i < M->n; i++) order[i] = M->n - 1 - i;
    peer_ggml_params gp = {(size_t)(M->n + 1) * G.ggml_tensor_overhead(), NULL, true};
    void *ctx = G.ggml_init(gp);
    for (int k = 0; k < M->n; k++) {
        const mtensor *t = &M->t[order[k]];
        void *gt = G.ggml_new_tensor(ctx, t->type, t->n_dims, t->ne);
        G.ggml_set_name(gt, t->name);
        G.gguf_add_tensor(gc, gt);
        G.gguf_set_tensor_data(gc, t->name, t->data);
    }
    bool ok = G.gguf_write_to_file(gc, M->path, false);
    G.gguf_free(gc);
    G.ggml_free(ctx);
    return ok;
}

static void free_model(model *M) {
    for (int i = 0; i < M->n; i++) free(M->t[i].data);
    for (int i = 0; i < M->n_im; i++) free(M->im_data[i]);
}

static size_t n_runs_b, n_refusals_b;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t n_files_identical;
static unsigned g_in_parts = 1; /* parts of the input run_case is given (a split model: 2) */

/* What the first differing byte of two GGUF files belongs to: a key, a tensor. */
static void describe_difference(const char *a, const char *b, size_t off) {
    mio_gguf_file *fa = NULL, *fb = NULL;
    if (mio_gguf_open(a, 0, &fa) != MIO_OK || mio_gguf_open(b, 0, &fb) != MIO_OK) {
        fprintf(stderr, "    (one of the files does not parse: %s)\n", mio_last_error());
    } else if (off < mio_gguf_data_offset(fa)) {
        int64_t na = mio_gguf_kv_count(fa), nb = mio_gguf_kv_count(fb);
        fprintf(stderr, "    in the header (%lld vs %lld keys, %lld vs %lld tensors)\n", (long long)na, (long long)nb,
                (long long)mio_gguf_tensor_count(fa), (long long)mio_gguf_tensor_count(fb));
        for (int64_t k = 0; k < na || k < nb; k++) {
            mio_str ka = k < na ? mio_gguf_kv_key(fa, k) : (mio_str){"-", 1};
            mio_str kb = k < nb ? mio_gguf_kv_key(fb, k) : (mio_str){"-", 1};
            int ta = k < na ? mio_gguf_kv_type(fa, k) : -1, tb = k < nb ? mio_gguf_kv_type(fb, k) : -1;
            if (ka.len != kb.len || memcmp(ka.ptr, kb.ptr, ka.len) || ta != tb) {
                fprintf(stderr, "    first differing key #%lld: llama.cpp %.*s (%d) | libmodelio %.*s (%d)\n", (long long)k,
                        (int)ka.len, ka.ptr, ta, (int)kb.len, kb.ptr, tb);
                break;
            }
        }
    } else {
        for (int64_t i = 0; i < mio_gguf_tensor_count(fa); i++) {
            mio_gguf_tensor t;
            mio_gguf_tensor_info(fa, i, &t);
            uint64_t start = mio_gguf_data_offset(fa) + t.offset;
            if (off >= start && off < start + t.nbytes + 32) {
                fprintf(stderr, "    in tensor #%lld %.*s (%s) at byte %llu of its %llu\n", (long long)i, (int)t.name.len,
                        t.name.ptr, mio_type_name(t.type), (unsigned long long)(off - start),
                        (unsigned long long)t.nbytes);
                break;
            }
        }
    }
    mio_gguf_close(fa);
    mio_gguf_close(fb);
}

/* mio_quantize with the same parameters must give the peer's file, byte for
 * byte — every part of it with keep_split (peer_out is then the prefix the peer
 * was given, and n_parts the input's part count). */
static void compare_file(const char *tag, const preset_t *pr, const flags *f, const char *ftxt, const char *in_path,
                         const char *peer_out, const char *imatrix, unsigned n_parts) {
    mio_quantize_params q;
    mio_quantize_default_params(&q);
    q.preset = pr->preset;
    q.n_threads = 2;
    q.pure = f->pure;
    q.leave_output_tensor = f->leave_output;
    q.allow_requantize = f->allow_requantize;
    q.output_tensor_type = f->output_type;
    q.token_embedding_type = f->token_type;
    q.tensor_types = f->tt;
    q.n_tensor_types = f->n_tt;
    q.prune_layers = f->prune;
    q.n_prune_layers = f->n_prune;
    q.imatrix_path = imatrix;
    q.keep_split = f->keep_split;
    char mine_out[320];
    snprintf(mine_out, sizeof mine_out, f->keep_split ? "%s.mio" : "%s.mio.gguf", peer_out);
    mio_status st = mio_quantize(in_path, mine_out, &q);
    IC_CHECK(st == MIO_OK, "%s %s%s: llama.cpp quantized, mio_quantize failed: %s", tag, pr->name, ftxt,
             mio_last_error());
    if (st != MIO_OK) return;
    for (unsigned part = 0; part < (f->keep_split ? n_parts : 1); part++) {
    char theirs[360], mine[360];
    if (f->keep_split) {
        snprintf(theirs, sizeof theirs, "%s-%05u-of-%05u.gguf", peer_out, part + 1, n_parts);
        snprintf(mine, sizeof mine, "%s-%05u-of-%05u.gguf", mine_out, part + 1, n_parts);
    } else {
        snprintf(theirs, sizeof theirs, "%s", peer_out);
        snprintf(mine, sizeof mine, "%s", mine_out);
    }
    const char *peer_file = theirs;
    size_t la = 0, lb = 0;
    uint8_t *a = t_read_file(peer_file, &la), *b = t_read_file(mine, &lb);
    size_t off = 0;
    while (a && b && off < la && off < lb && a[off] == b[off]) off++;
    bool same = a && b && la == lb && off == la;
    if (same) {
        n_files_identical++;
        t_pass++;
        remove(mine);
    } else {
        t_fail++;
        if (ic_printed++ < 60) {
            fprintf(stderr, "FILE DIFFERS %s %s%s: llama.cpp %zu bytes, libmodelio %zu bytes, first difference at byte "
                            "%zu (kept: %s)\n", tag, pr->name, ftxt, la, lb, off, mine);
            describe_difference(peer_file, mine, off);
        }
    }
    free(a);
    free(b);
    }
}

/* Quantize in_path with the peer and check the result against the policy, then
 * (compare_file) the whole file mio_quantize writes against the peer's. */
static void run_case(const char *tag, const char *in_path, const preset_t *pr, const flags *f, const peer_imatrix *im) {
    char ftxt[512];
    flags_text(f, ftxt, sizeof ftxt);
    char out_path[256], real_out[300];
    snprintf(out_path, sizeof out_path, "quant_policy_out_%s_%s", tag, pr->name);
    if (f->keep_split) snprintf(real_out, sizeof real_out, "%s-00001-of-%05u.gguf", out_path, g_in_parts);
    else snprintf(real_out, sizeof real_out, "%s", out_path);
    remove(real_out);

    /* ours */
    mio_gguf_file *in = NULL;
    IC_CHECK(mio_gguf_open(in_path, MIO_OPEN_SPLITS, &in) == MIO_OK, "%s: %s", in_path, mio_last_error());
    if (!in) return;
    qz_model m;
    T_OK(mio_qz_model_from_gguf(in, &m));
    qz_item *items = NULL;
    size_t n = 0;
    uint32_t bc = 0;
    bool bc_set = false;
    mio_status st = mio_qz_output_order(in, f->prune, f->n_prune, f->keep_split, &items, &n, &bc, &bc_set);
    IC_CHECK(st == MIO_OK, "mio_qz_output_order: %s", g_err);
    qz_policy pol;
    policy_of(pr->preset, f, im != NULL, &pol);
    qz_summary sum;
    mio_status ours = st == MIO_OK ? mio_qz_choose_types(&m, &pol, items, n, &sum) : st;

    /* theirs */
    peer_tt ptt[8];
    int32_t pprune[16];
    qparams p = params_of(pr->preset, f, ptt, pprune, im);
    peer_kv pkv[5];
    if (im) {
        write_imatrix_dat(im, pkv);
        qp_ptr(&p, QP_KV_OVERRIDES, pkv);
    }
    unsigned before = *peer_log_count();
    double t_run = now_s();
    uint32_t rc = L.model_quantize(in_path, out_path, &p);
    t_run = now_s() - t_run;
    if (getenv("MIO_QUANT_TIMES")) printf("  %6.3fs %s %s%s -> %u\n", t_run, tag, pr->name, ftxt, rc);
    n_runs_b++;

    if (ours != MIO_OK) {
        n_refusals_b++;
        IC_CHECK(rc != 0, "%s %s%s: libmodelio refuses (%s) but llama.cpp quantized", tag, pr->name, ftxt, g_err);
        if (rc == 0) remove(real_out);
        free(items);
        mio_gguf_close(in);
        return;
    }
    if (rc != 0) {
        IC_CHECK(0, "%s %s%s: llama_model_quantize failed, libmodelio would not", tag, pr->name, ftxt);
        if (*peer_log_count() > before) peer_dump_log();
        free(items);
        mio_gguf_close(in);
        return;
    }
    if (f->dry_run) {
        FILE *fp = fopen(real_out, "rb");
        IC_CHECK(fp == NULL, "%s %s --dry-run wrote %s", tag, pr->name, real_out);
        if (fp) fclose(fp);
        free(items);
        mio_gguf_close(in);
        return;
    }
    compare_file(tag, pr, f, ftxt, in_path, out_path, im ? IM_DAT : NULL, g_in_parts);
    mio_gguf_file *out = NULL;
    IC_CHECK(mio_gguf_open(real_out, MIO_OPEN_SPLITS, &out) == MIO_OK, "%s: %s", real_out, mio_last_error());
    if (!out) {
        free(items);
        mio_gguf_close(in);
        return;
    }
    int before_fail = t_fail;
    IC_CHECK(mio_gguf_tensor_count(out) == (int64_t)n, "%s %s%s: %lld tensors, libmodelio plans %zu", tag, pr->name,
             ftxt, (long long)mio_gguf_tensor_count(out), n);
    int shown = 0;
    for (size_t i = 0; i < n && (int64_t)i < mio_gguf_tensor_count(out); i++) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(out, (int64_t)i, &t));
        bool name_ok = t.name.len == strlen(items[i].name) && !memcmp(t.name.ptr, items[i].name, t.name.len);
        bool type_ok = t.type == items[i].out_type;
        if (name_ok && type_ok) {
            t_pass++;
        } else {
            t_fail++;
            if (ic_printed++ < 60 && shown++ < 6)
                fprintf(stderr, "MISMATCH B %s %s%s | #%zu llama.cpp: %.*s %s | libmodelio: %s %s (%s)\n", tag,
                        pr->name, ftxt, i, (int)t.name.len, t.name.ptr, mio_type_name(t.type), items[i].name,
                        mio_type_name(items[i].out_type), items[i].why);
        }
        /* a tensor not converted is the input's bytes */
        if (name_ok && type_ok && !items[i].convert) {
            mio_gguf_tensor s;
            T_OK(mio_gguf_tensor_info(in, items[i].src, &s));
            IC_CHECK(s.nbytes == t.nbytes && !memcmp(s.data, t.data, (size_t)s.nbytes),
                     "%s %s: %s kept as %s but its bytes changed", tag, pr->name, items[i].name,
                     mio_type_name(t.type));
        }
    }
    /* block_count after pruning; general.file_type */
    uint64_t v = 0;
    char bc_key[96];
    snprintf(bc_key, sizeof bc_key, "%s.block_count", m.arch_name);
    int64_t kbc = mio_gguf_find_key(out, bc_key);
    T_OK(mio_gguf_kv_u64(out, kbc, &v));
    if (bc_set) {
        IC_CHECK(v == bc, "%s %s%s: block_count %llu, libmodelio says %u", tag, pr->name, ftxt,
                 (unsigned long long)v, bc);
        T_EQ_INT(mio_gguf_kv_type(out, kbc), MIO_GGUF_U32);
        /* rewritten last (before the split.* keys of a split output) */
        T_EQ_INT(kbc, mio_gguf_kv_count(out) - 1 - (f->keep_split && g_in_parts > 1 ? 3 : 0));
    } else {
        IC_CHECK(v == m.n_layer, "%s: block_count changed without pruning", tag);
    }
    int64_t kft = mio_gguf_find_key(out, "general.file_type");
    T_OK(mio_gguf_kv_u64(out, kft, &v));
    T_EQ_U64(v, (uint64_t)pr->preset);
    if (t_fail == before_fail) remove(real_out);
    mio_gguf_close(out);
    free(items);
    mio_gguf_close(in);
}

/* KV order of llama.cpp's output: the input's keys in order, except that
 * general.quantization_version and general.file_type are appended (an existing
 * general.file_type moves to the end). Checked once, on a plain run. */
static void check_kv_order(const char *in_path) {
    qparams p = L.quantize_default_params();
    qp_i32(&p, QP_FTYPE, MIO_PRESET_Q8_0);
    qp_i32(&p, QP_NTHREAD, 2);
    T_EQ_INT(L.model_quantize(in_path, "quant_policy_kv.gguf", &p), 0);
    mio_gguf_file *in = NULL, *out = NULL;
    T_OK(mio_gguf_open(in_path, 0, &in));
    T_OK(mio_gguf_open("quant_policy_kv.gguf", 0, &out));
    if (!in || !out) { mio_gguf_close(in); mio_gguf_close(out); return; }
    int64_t j = 0;
    for (int64_t i = 0; i < mio_gguf_kv_count(in); i++) {
        mio_str k = mio_gguf_kv_key(in, i);
        if ((k.len == 17 && !memcmp(k.ptr, "general.file_type", 17)) ||
            (k.len == 28 && !memcmp(k.ptr, "general.quantization_version", 28)))
            continue;
        mio_str ko = mio_gguf_kv_key(out, j++);
        IC_CHECK(ko.len == k.len && !memcmp(ko.ptr, k.ptr, k.len), "KV %lld: %.*s, want %.*s", (long long)j - 1,
                 (int)ko.len, ko.ptr, (int)k.len, k.ptr);
    }
    T_EQ_INT(mio_gguf_kv_count(out), j + 2);
    T_EQ_MSTR(mio_gguf_kv_key(out, j), "general.quantization_version");
    T_EQ_MSTR(mio_gguf_kv_key(out, j + 1), "general.file_type");
    T_EQ_INT(mio_gguf_kv_type(out, j), MIO_GGUF_U32);
    uint64_t qv = 0;
    T_OK(mio_gguf_kv_u64(out, j, &qv));
    T_EQ_U64(qv, 2);
    mio_gguf_close(in);
    mio_gguf_close(out);
    remove("quant_policy_kv.gguf");
}

/* An imatrix without the entry for one tensor: llama.cpp refuses only when that
 * tensor is converted to a type that needs one ("Missing importance matrix"),
 * which is qz_item.convert && qz_item.requires_imatrix. */
static void check_missing_entry(const model *M, const preset_t *pr, const char *missing) {
    peer_imatrix im[MAX_TENSORS + 1];
    int k = 0;
    for (int i = 0; i < M->n_im; i++)
        if (strcmp(M->im[i].name, missing) != 0) im[k++] = M->im[i];
    im[k] = (peer_imatrix){NULL, NULL, 0};
    IC_CHECK(k == M->n_im - 1, "%s has no imatrix entry %s", M->path, missing);
    mio_gguf_file *in = NULL;
    T_OK(mio_gguf_open(M->path, 0, &in));
    if (!in) return;
    qz_model m;
    T_OK(mio_qz_model_from_gguf(in, &m));
    qz_item *items = NULL;
    size_t n = 0;
    T_OK(mio_qz_output_order(in, NULL, 0, false, &items, &n, NULL, NULL));
    const flags none = {.output_type = -1, .token_type = -1};
    qz_policy pol;
    policy_of(pr->preset, &none, true, &pol);
    T_OK(mio_qz_choose_types(&m, &pol, items, n, NULL));
    bool refuse = false;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(items[i].orig_name, missing)) refuse = items[i].convert && items[i].requires_imatrix;
    free(items);
    mio_gguf_close(in);
    peer_tt ptt[1];
    int32_t pprune[1];
    qparams p = params_of(pr->preset, &none, ptt, pprune, im);
    uint32_t rc = L.model_quantize(M->path, "quant_policy_missing.gguf", &p);
    IC_CHECK((rc != 0) == refuse, "%s %s, imatrix without %s: llama.cpp %s, libmodelio says it %s", M->spec->tag,
             pr->name, missing, rc ? "refuses" : "quantizes", refuse ? "must refuse" : "can quantize");
    remove("quant_policy_missing.gguf");
}

/* A type forced by --token-embedding-type / --output-tensor-type that does not
 * divide the rows (that path has no fallback): llama.cpp fails — an abort in
 * gguf_set_tensor_type, or "quantized data validation failed", depending on
 * the type (run in a child process here) — and libmodelio refuses; a dry run
 * goes through on both. */
static void check_forced_abort(const char *in_path, int64_t rows, const flags *f) {
    char ftxt[512];
    flags_text(f, ftxt, sizeof ftxt);
    mio_gguf_file *in = NULL;
    T_OK(mio_gguf_open(in_path, 0, &in));
    if (!in) return;
    qz_model m;
    T_OK(mio_qz_model_from_gguf(in, &m));
    qz_item *items = NULL;
    size_t n = 0;
    T_OK(mio_qz_output_order(in, NULL, 0, false, &items, &n, NULL, NULL));
    qz_policy pol;
    policy_of(MIO_PRESET_Q4_0, f, false, &pol);
    qz_summary sum;
    mio_status ours = mio_qz_choose_types(&m, &pol, items, n, &sum);
    free(items);
    mio_gguf_close(in);
    IC_CHECK(ours == MIO_ERR_INVALID_TENSOR_INFO, "%s Q4_0%s (rows of %lld): libmodelio returns %s (%s)", in_path,
             ftxt, (long long)rows, mio_status_name(ours), g_err);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        setenv("GGML_NO_BACKTRACE", "1", 1); /* ggml_abort would run gdb on itself */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);    /* and the GGML_ASSERT line is expected */
        peer_tt ptt[2];
        int32_t pprune[1];
        qparams p = params_of(MIO_PRESET_Q4_0, f, ptt, pprune, NULL);
        uint32_t rc = L.model_quantize(in_path, "quant_policy_abort.gguf", &p);
        _exit(rc == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    /* an abort in gguf_set_tensor_type, or "quantized data validation failed" */
    IC_CHECK(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0),
             "%s Q4_0%s: llama.cpp quantized (status 0x%x)", in_path, ftxt, status);
    remove("quant_policy_abort.gguf");
    /* dry run: both go through */
    flags dry = *f;
    dry.dry_run = true;
    run_case("forced-dry", in_path, &PRESETS[0], &dry, NULL);
}

static const mspec SPECS[] = {
    /* tag        n_embd n_ff n_vocab layers heads kv experts wtype tied shuffled */
    {"dense256", 256, 256, 272, 9, 8, 2, 0, MIO_TYPE_F16, false, false},
    {"odd320", 320, 384, 264, 3, 5, 5, 0, MIO_TYPE_F32, true, true},
    {"moe8", 256, 64, 264, 2, 4, 4, 8, MIO_TYPE_F16, false, false},
    {"tiny192", 192, 80, 264, 2, 3, 1, 0, MIO_TYPE_BF16, false, true},
};
#define N_SPECS (sizeof SPECS / sizeof SPECS[0])

static bool preset_is(const preset_t *p, const char *const *names, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p->name, names[i])) return true;
    return false;
}
#define FOR_PRESETS_IN(list, pi) \
    for (size_t pi = 0; pi < N_PRESETS; pi++) if (preset_is(&PRESETS[pi], (list), sizeof(list) / sizeof(list)[0]))

/* A split copy of model path (the way gguf-split lays one out: every part has
 * split.no / split.count / split.tensors.count, the first part all the other
 * keys; the tensors divided in two) as prefix-0000K-of-00002.gguf. */
static int write_split(const char *path, const char *prefix, char *first, size_t first_len) {
    mio_gguf_file *in = NULL;
    if (mio_gguf_open(path, 0, &in) != MIO_OK) return 0;
    int64_t nt = mio_gguf_tensor_count(in);
    int ok = 1;
    for (int part = 0; part < 2 && ok; part++) {
        mio_writer *w = NULL;
        ok = mio_writer_new(0, &w) == MIO_OK;
        if (ok && part == 0) ok = mio_writer_copy_all_kv(w, in, NULL, 0) == MIO_OK;
        ok = ok && mio_writer_set_u16(w, "split.no", (uint16_t)part) == MIO_OK &&
             mio_writer_set_u16(w, "split.count", 2) == MIO_OK &&
             mio_writer_set_i32(w, "split.tensors.count", (int32_t)nt) == MIO_OK;
        for (int64_t i = part ? nt / 2 : 0; ok && i < (part ? nt : nt / 2); i++) {
            mio_gguf_tensor t;
            char name[96];
            ok = mio_gguf_tensor_info(in, i, &t) == MIO_OK;
            snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
            ok = ok && mio_writer_add_tensor(w, name, t.type, t.n_dims, t.ne, t.data, (size_t)t.nbytes) == MIO_OK;
        }
        char out[256];
        snprintf(out, sizeof out, "%s-%05d-of-00002.gguf", prefix, part + 1);
        if (part == 0) snprintf(first, first_len, "%s", out);
        ok = ok && mio_writer_write_file(w, out) == MIO_OK;
        mio_writer_free(w);
    }
    mio_gguf_close(in);
    return ok;
}

static void check_user_kv(const char *in_path) {
    peer_kv kv[5];
    kv_int(&kv[0], "x.count", -12);
    memset(&kv[1], 0, sizeof kv[1]);
    int tag = 1;
    double d = 0.25;
    memcpy(kv[1].b, &tag, 4);
    snprintf((char *)kv[1].b + 4, 128, "%s", "x.scale");
    memcpy(kv[1].b + 136, &d, 8);
    memset(&kv[2], 0, sizeof kv[2]);
    tag = 2;
    memcpy(kv[2].b, &tag, 4);
    snprintf((char *)kv[2].b + 4, 128, "%s", "x.flag");
    kv[2].b[136] = 1;
    kv_str(&kv[3], "general.name", "renamed by override");
    memset(&kv[4], 0, sizeof kv[4]);
    qparams p = L.quantize_default_params();
    qp_i32(&p, QP_FTYPE, MIO_PRESET_Q4_K_M);
    qp_i32(&p, QP_NTHREAD, 2);
    qp_ptr(&p, QP_KV_OVERRIDES, kv);
    T_EQ_INT(L.model_quantize(in_path, "quant_policy_kvo.gguf", &p), 0);
    mio_kv_override ours[4] = {{.key = "x.count", .type = MIO_GGUF_I64, .i64 = -12},
                               {.key = "x.scale", .type = MIO_GGUF_F64, .f64 = 0.25},
                               {.key = "x.flag", .type = MIO_GGUF_BOOL, .b = 1},
                               {.key = "general.name", .type = MIO_GGUF_STRING, .str = "renamed by override"}};
    mio_quantize_params q;
    mio_quantize_default_params(&q);
    q.preset = MIO_PRESET_Q4_K_M;
    q.n_threads = 2;
    q.kv_overrides = ours;
    q.n_kv_overrides = 4;
    T_OK(mio_quantize(in_path, "quant_policy_kvo.mio.gguf", &q));
    size_t la = 0, lb = 0;
    uint8_t *a = t_read_file("quant_policy_kvo.gguf", &la), *b = t_read_file("quant_policy_kvo.mio.gguf", &lb);
    bool same = a && b && la == lb && !memcmp(a, b, la);
    IC_CHECK(same, "--override-kv: mio_quantize's file differs from llama.cpp's (%zu vs %zu bytes)", la, lb);
    if (!same) {
        size_t off = 0;
        while (a && b && off < la && off < lb && a[off] == b[off]) off++;
        describe_difference("quant_policy_kvo.gguf", "quant_policy_kvo.mio.gguf", off);
    } else {
        n_files_identical++;
        remove("quant_policy_kvo.gguf");
        remove("quant_policy_kvo.mio.gguf");
    }
    free(a);
    free(b);
}

static void part_b(void) {
    static model M[N_SPECS];
    double t0 = now_s();
    for (size_t s = 0; s < N_SPECS; s++) {
        build_model(&M[s], &SPECS[s]);
        IC_CHECK(write_model(&M[s]), "writing %s", M[s].path);
        /* a real llama model: llama.cpp loads it (vocabulary, shapes, experts) */
        unsigned before = *peer_log_count();
        void *lm = L.model_load_from_file(M[s].path, L.model_default_params());
        IC_CHECK(lm != NULL, "llama.cpp cannot load the test model %s", M[s].path);
        if (lm) L.model_free(lm);
        else if (*peer_log_count() > before) peer_dump_log();
    }
    check_kv_order(M[0].path);

    /* every preset, no flags, no imatrix: types and order, or the same refusal */
    const flags none = {.output_type = -1, .token_type = -1};
    for (size_t s = 0; s < N_SPECS; s++)
        for (size_t pi = 0; pi < N_PRESETS; pi++) run_case(SPECS[s].tag, M[s].path, &PRESETS[pi], &none, NULL);
    /* ftype 39 (NVFP4): both refuse */
    {
        const preset_t nvfp4 = {"NVFP4", 39};
        run_case(SPECS[3].tag, M[3].path, &nvfp4, &none, NULL);
    }
    double t1 = now_s();

    /* with an importance matrix: presets that need one, and the rules that look
     * at its presence (IQ3_XXS attn_v / ffn_down, IQ4_* and Q4_0/Q5_0 ffn_down).
     * IQ1_* and the other IQ2_* need an imatrix too, but their rules do not
     * read it (Part A covers them) and their grid set-up in ggml costs seconds. */
    static const char *const IM_PRESETS[] = {"IQ2_XXS", "IQ3_XXS", "IQ3_XS", "Q2_K_S", "Q4_0", "Q5_0", "IQ4_NL",
                                             "IQ4_XS"};
    for (size_t s = 0; s < N_SPECS; s++) {
        if (s == 1) continue;
        char tag[64];
        snprintf(tag, sizeof tag, "%s+imatrix", SPECS[s].tag);
        FOR_PRESETS_IN(IM_PRESETS, pi) run_case(tag, M[s].path, &PRESETS[pi], &none, M[s].im);
    }
    /* the remaining imatrix presets, whole files compared, on one model */
    {
        static const char *const IM_REST[] = {"IQ1_S", "IQ1_M", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ3_S", "IQ3_M"};
        FOR_PRESETS_IN(IM_REST, pi) run_case("dense256+imatrix", M[0].path, &PRESETS[pi], &none, M[0].im);
    }
    /* --override-kv as llama-quantize passes it: int (written u32 of |v|), float (f32), bool, str;
     * an existing key overridden moves to the end and may change type */
    check_user_kv(M[0].path);
    {
        /* with IQ2_XXS: blk.1 ffn_down and attn_q need one, blk.0 ffn_down (Q2_K) and output (Q5_K) not */
        static const char *const MISSING[] = {"blk.1.ffn_down.weight", "blk.0.ffn_down.weight", "output.weight",
                                              "blk.4.attn_q.weight"};
        static const char *const MP[] = {"IQ2_XXS", "Q2_K_S"};
        FOR_PRESETS_IN(MP, pi)
            for (size_t k = 0; k < sizeof MISSING / sizeof MISSING[0]; k++)
                check_missing_entry(&M[0], &PRESETS[pi], MISSING[k]);
    }
    /* a dry run does not need the imatrix the real run needs */
    {
        static const char *const DRY[] = {"IQ2_XXS", "IQ1_M", "Q2_K_S"};
        flags dry = {.output_type = -1, .token_type = -1, .dry_run = true};
        FOR_PRESETS_IN(DRY, pi) run_case(SPECS[0].tag, M[0].path, &PRESETS[pi], &dry, NULL);
    }
    double t2 = now_s();

    /* flags */
    static const char *const FLAG_PRESETS[] = {"Q4_K_M", "Q3_K_M", "Q5_0"};
    static const char *const FLAG_PRESETS_SMALL[] = {"Q4_K_M", "Q2_K"};
    static const mio_tensor_type_override TT1[] = {{"attn_v", MIO_TYPE_Q8_0}, {"blk\\.[0-2]\\.ffn_down", MIO_TYPE_Q6_K}};
    static const mio_tensor_type_override TT2[] = {{"ffn_(up|gate)", MIO_TYPE_IQ4_NL}, {"blk\\.\\d+\\.attn_q", MIO_TYPE_Q4_0},
                                                   {"output", MIO_TYPE_Q5_K}};
    /* TT1 in upper case: llama-quantize lower-cases it, so must mio_quantize */
    static const mio_tensor_type_override TT3[] = {{"ATTN_V", MIO_TYPE_Q8_0}, {"BLK\\.[0-2]\\.FFN_DOWN", MIO_TYPE_Q6_K}};
    /* PR4 unsorted with a duplicate: llama-quantize sorts and de-duplicates it, so must mio_quantize */
    static const int32_t PR1[] = {1, 3}, PR2[] = {0}, PR3[] = {7}, PR4[] = {5, 2, 5};
    flags F[] = {
        {.pure = true, .output_type = -1, .token_type = -1},
        {.leave_output = true, .output_type = -1, .token_type = -1},
        {.output_type = MIO_TYPE_Q8_0, .token_type = -1},
        {.output_type = MIO_TYPE_F16, .token_type = MIO_TYPE_Q8_0},
        {.output_type = -1, .token_type = MIO_TYPE_Q4_0},
        {.output_type = -1, .token_type = -1, .tt = TT1, .n_tt = 2},
        {.output_type = -1, .token_type = -1, .tt = TT2, .n_tt = 3},
        {.pure = true, .output_type = -1, .token_type = -1, .tt = TT1, .n_tt = 2},
        {.output_type = -1, .token_type = -1, .tt = TT3, .n_tt = 2},
        {.output_type = -1, .token_type = -1, .prune = PR1, .n_prune = 2},
        {.output_type = -1, .token_type = -1, .prune = PR2, .n_prune = 1},
        {.output_type = -1, .token_type = -1, .prune = PR3, .n_prune = 1},
        {.output_type = -1, .token_type = -1, .prune = PR4, .n_prune = 3},
        {.output_type = -1, .token_type = -1, .keep_split = true},
        {.output_type = -1, .token_type = -1, .keep_split = true, .prune = PR1, .n_prune = 2},
        {.output_type = -1, .token_type = -1, .dry_run = true},
    };
    for (size_t s = 0; s < N_SPECS; s++)
        for (size_t fi = 0; fi < sizeof F / sizeof F[0]; fi++) {
            if (s == 0 || s == 1) {
                FOR_PRESETS_IN(FLAG_PRESETS, pi) run_case(SPECS[s].tag, M[s].path, &PRESETS[pi], &F[fi], NULL);
            } else {
                FOR_PRESETS_IN(FLAG_PRESETS_SMALL, pi) run_case(SPECS[s].tag, M[s].path, &PRESETS[pi], &F[fi], NULL);
            }
        }
    {
        flags ft = {.output_type = -1, .token_type = MIO_TYPE_Q4_K};
        check_forced_abort(M[1].path, SPECS[1].n_embd, &ft);
        flags fo = {.output_type = MIO_TYPE_Q6_K, .token_type = -1};
        check_forced_abort(M[3].path, SPECS[3].n_embd, &fo);
    }
    double t3 = now_s();

    /* requantizing: the peer's own Q4_0 and Q4_K_M outputs as inputs */
    {
        const char *srcs[2] = {"quant_policy_req_q4_0.gguf", "quant_policy_req_q4_k_m.gguf"};
        const int src_ft[2] = {MIO_PRESET_Q4_0, MIO_PRESET_Q4_K_M};
        for (int k = 0; k < 2; k++) {
            qparams p = L.quantize_default_params();
            qp_i32(&p, QP_FTYPE, src_ft[k]);
            qp_i32(&p, QP_NTHREAD, 2);
            T_EQ_INT(L.model_quantize(M[0].path, srcs[k], &p), 0);
        }
        static const char *const REQ_PRESETS[] = {"Q4_0", "Q4_K_M", "Q8_0", "F16", "Q3_K_S"};
        flags no = {.output_type = -1, .token_type = -1};
        flags yes = {.allow_requantize = true, .output_type = -1, .token_type = -1};
        flags yes_leave = {.allow_requantize = true, .leave_output = true, .output_type = -1, .token_type = -1};
        for (int k = 0; k < 2; k++) {
            char tag[64];
            snprintf(tag, sizeof tag, "requant-from-%s", k ? "Q4_K_M" : "Q4_0");
            FOR_PRESETS_IN(REQ_PRESETS, pi) {
                run_case(tag, srcs[k], &PRESETS[pi], &no, NULL);
                run_case(tag, srcs[k], &PRESETS[pi], &yes, NULL);
                run_case(tag, srcs[k], &PRESETS[pi], &yes_leave, NULL);
            }
        }
        remove(srcs[0]);
        remove(srcs[1]);
    }
    /* a split input (2 parts): merged into one output, or kept in two with keep_split */
    {
        char first[256];
        IC_CHECK(write_split(M[0].path, "quant_policy_split", first, sizeof first), "writing the split input: %s",
                 mio_last_error());
        static const char *const SPLIT_PRESETS[] = {"Q4_K_M", "Q8_0", "IQ4_XS"};
        flags merge = {.output_type = -1, .token_type = -1};
        flags keep = {.output_type = -1, .token_type = -1, .keep_split = true};
        flags keep_prune = {.output_type = -1, .token_type = -1, .keep_split = true, .prune = PR1, .n_prune = 2};
        g_in_parts = 2;
        FOR_PRESETS_IN(SPLIT_PRESETS, pi) {
            run_case("split2", first, &PRESETS[pi], &merge, NULL);
            run_case("split2", first, &PRESETS[pi], &keep, NULL);
            run_case("split2", first, &PRESETS[pi], &keep_prune, NULL);
        }
        g_in_parts = 1;
        remove(first);
        remove("quant_policy_split-00002-of-00002.gguf");
    }
    double t4 = now_s();
    printf("part B timings: presets %.1fs, imatrix %.1fs, flags %.1fs, requantize %.1fs\n", t1 - t0, t2 - t1,
           t3 - t2, t4 - t3);
    for (size_t s = 0; s < N_SPECS; s++) {
        free_model(&M[s]);
        if (!t_fail) remove(M[s].path);
    }
}

/* =============================================================== Part C */

/* llama.cpp's LLM_TYPE_70B comes from the model loader (per architecture and
 * block count); Part A's metadata models only know the llama rule. Models made
 * of attn_v tensors alone (the quantizer needs nothing else) settle it for the
 * architectures mio_qz_model_finish names, and show others stay plain. (A sweep of
 * every architecture the peer's loader accepted with generic keys found no
 * other 70B one.) */
static void part_c(void) {
    static const struct {
        const char *arch;
        int n_layer, n_head, n_head_kv, n_expert;
    } C[] = {
        {"llama", 80, 8, 2, 0}, {"llama", 80, 8, 8, 0}, {"llama", 79, 8, 2, 0}, {"llama", 80, 8, 2, 8},
        {"qwen2", 80, 8, 8, 0}, {"qwen2", 64, 8, 2, 0}, {"deci", 80, 8, 2, 0},  {"jais2", 68, 8, 8, 0},
        {"jais2", 80, 8, 8, 0}, {"olmo", 80, 8, 2, 0}, {"olmo", 68, 8, 2, 0}, {"qwen3", 80, 8, 2, 0},
        {"mistral3", 80, 8, 2, 0}, {"olmo2", 80, 8, 2, 0}, {"gemma2", 80, 8, 2, 0},
    };
    static const char *const C_PRESETS[] = {"Q4_K_S", "Q3_K_S", "Q2_K"};
    const flags none = {.output_type = -1, .token_type = -1};
    for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
        char path[128], key[128];
        snprintf(path, sizeof path, "quant_policy_70b_%s_%d_%d_%d.gguf", C[c].arch, C[c].n_layer, C[c].n_head_kv,
                 C[c].n_expert);
        const char *a = C[c].arch;
        void *gc = G.gguf_init_empty();
        G.gguf_set_val_str(gc, "general.architecture", a);
#define KEY(sfx) (snprintf(key, sizeof key, "%s." sfx, a), key)
        G.gguf_set_val_u32(gc, KEY("context_length"), 256);
        G.gguf_set_val_u32(gc, KEY("embedding_length"), 256);
        G.gguf_set_val_u32(gc, KEY("feed_forward_length"), 256);
        G.gguf_set_val_u32(gc, KEY("block_count"), (uint32_t)C[c].n_layer);
        G.gguf_set_val_u32(gc, KEY("attention.head_count"), (uint32_t)C[c].n_head);
        G.gguf_set_val_u32(gc, KEY("attention.head_count_kv"), (uint32_t)C[c].n_head_kv);
        G.gguf_set_val_u32(gc, KEY("attention.key_length"), 32);
        G.gguf_set_val_u32(gc, KEY("attention.value_length"), 32);
        G.gguf_set_val_u32(gc, KEY("rope.dimension_count"), 32);
        G.gguf_set_val_f32(gc, KEY("attention.layer_norm_rms_epsilon"), 1e-5f);
        G.gguf_set_val_f32(gc, KEY("attention.layer_norm_epsilon"), 1e-5f);
        if (C[c].n_expert) {
            G.gguf_set_val_u32(gc, KEY("expert_count"), (uint32_t)C[c].n_expert);
            G.gguf_set_val_u32(gc, KEY("expert_used_count"), 2);
        }
#undef KEY
        const int64_t ne[2] = {256, 32 * C[c].n_head_kv};
        uint16_t *data = calloc((size_t)(ne[0] * ne[1]), 2);
        for (int64_t k = 0; k < ne[0] * ne[1]; k++) data[k] = mio_f32_to_fp16(0.02f * gauss());
        peer_ggml_params gp = {(size_t)(C[c].n_layer + 1) * G.ggml_tensor_overhead(), NULL, true};
        void *ctx = G.ggml_init(gp);
        for (int l = 0; l < C[c].n_layer; l++) {
            char nm[64];
            snprintf(nm, sizeof nm, "blk.%d.attn_v.weight", l);
            void *t = G.ggml_new_tensor(ctx, MIO_TYPE_F16, 2, ne);
            G.ggml_set_name(t, nm);
            G.gguf_add_tensor(gc, t);
            G.gguf_set_tensor_data(gc, nm, data);
        }
        bool ok = G.gguf_write_to_file(gc, path, false);
        G.gguf_free(gc);
        G.ggml_free(ctx);
        free(data);
        IC_CHECK(ok, "writing %s", path);
        mio_gguf_file *f = NULL;
        if (mio_gguf_open(path, 0, &f) == MIO_OK) {
            qz_model m;
            mio_qz_model_from_gguf(f, &m);
            printf("  70B rule: %s, %d blocks, heads %d/%d, %d experts: %s\n", a, C[c].n_layer, C[c].n_head,
                   C[c].n_head_kv, C[c].n_expert, m.is_70b ? "70B" : "not 70B");
            mio_gguf_close(f);
        }
        char tag[96];
        snprintf(tag, sizeof tag, "70b-%s-%d-%d-%d", a, C[c].n_layer, C[c].n_head_kv, C[c].n_expert);
        FOR_PRESETS_IN(C_PRESETS, pi) run_case(tag, path, &PRESETS[pi], &none, NULL);
        if (!t_fail) remove(path);
    }
}

int main(void) {
    ic_load_peer_or_skip(&G);
    char why[8192];
    int lr = load_llama(why, sizeof why);
    if (lr > 0) T_SKIP(why);
    if (lr < 0) { fprintf(stderr, "FAIL: %s\n", why); return 1; }
    peer_rng_seed(&R, peer_seed("interop_quant_policy"));

    /* the parameter block: this build's defaults at the offsets we use */
    qparams d = L.quantize_default_params();
    T_EQ_INT(qp_get_i32(&d, QP_NTHREAD), 0);
    T_EQ_INT(qp_get_i32(&d, QP_FTYPE), MIO_PRESET_Q8_0);
    T_EQ_INT(qp_get_i32(&d, QP_OUT_TYPE), GGML_TYPE_COUNT_PEER);
    T_EQ_INT(qp_get_i32(&d, QP_TOK_TYPE), GGML_TYPE_COUNT_PEER);
    T_EQ_INT(d.b[QP_ALLOW_REQ], 0);
    T_EQ_INT(d.b[QP_QUANT_OUT], 1);
    T_EQ_INT(d.b[QP_ONLY_COPY] | d.b[QP_PURE] | d.b[QP_KEEP_SPLIT] | d.b[QP_DRY_RUN], 0);
    for (int o = QP_IMATRIX; o < QP_PRUNE + 8; o++) T_EQ_INT(d.b[o], 0);
    T_EQ_INT(qp_get_i32(&d, 0x38), 0);
    T_EQ_INT(qp_get_i32(&d, 0x3c), 2);
    T_EQ_STR(G.ggml_type_name(GGML_TYPE_COUNT_PEER - 1), "q2_0"); /* so 43 is this ggml's GGML_TYPE_COUNT */
    if (t_fail) {
        fprintf(stderr, "llama_model_quantize_params layout differs from the one this test was written for\n");
        T_DONE();
    }

    check_preset_names();
    const char *na = getenv("MIO_QUANT_SCENARIOS");
    part_a(na && *na ? atoi(na) : 60);
    printf("part A: %zu preset x layout comparisons, %zu refused by libmodelio (not sent)\n", n_compared_a,
           n_refused_a);
    part_b();
    printf("part B: %zu llama_model_quantize runs, %zu refused by both; %zu outputs of mio_quantize byte-identical to "
           "llama.cpp's\n", n_runs_b, n_refusals_b, n_files_identical);
    part_c();
    T_DONE();
}
