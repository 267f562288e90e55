/* SPDX-License-Identifier: MIT */
/* test_lora.c — LoRA adapters (issue 10): mio_lora_merge and mio_lora_to_gguf
 * on tiny bases and adapters written here, with every expected value worked
 * out by hand in the comments: W + (alpha/r)*B*A per element, one rounding for
 * f16/bf16 bases, the q/k row permutation of llama.cpp's HF -> GGUF converter,
 * PEFT config defaults, rsLoRA, rank_pattern/alpha_pattern, fan_in_fan_out,
 * token embeddings, the llama.cpp adapter layout with the folded scales, and
 * every refusal with its message and no output file. */
#include "modelio.h"
#include "test.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ helpers */

static int exists(const char *p) { return access(p, F_OK) == 0; }

static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    if (!fp) { perror(path); exit(1); }
    fputs(text, fp);
    fclose(fp);
}

static uint16_t f16_bits(float f) { uint16_t h = 0; mio_encode_f32(MIO_TYPE_F16, &f, 1, &h, 2); return h; }
static uint16_t bf16_bits(float f) { uint16_t h = 0; mio_encode_f32(MIO_TYPE_BF16, &f, 1, &h, 2); return h; }

/* A safetensors tensor: F32 [d0, d1] */
typedef struct st_t { const char *name; uint64_t d0, d1; const float *v; } st_t;

static void write_st(const char *path, const st_t *t, size_t n) {
    mio_st_entry e[16];
    uint64_t shp[16][2];
    for (size_t i = 0; i < n; i++) {
        shp[i][0] = t[i].d0;
        shp[i][1] = t[i].d1;
        e[i] = (mio_st_entry){.name = t[i].name, .dtype = MIO_ST_F32, .n_dims = 2, .shape = shp[i], .data = t[i].v,
                              .nbytes = (size_t)(t[i].d0 * t[i].d1 * 4)};
    }
    mio_status st = mio_st_save_file(path, e, n, NULL, 0);
    if (st) { fprintf(stderr, "write %s: %s\n", path, mio_last_error()); exit(1); }
}

/* The base "llama" model (head_count 2, head_count_kv 1):
 *   token_embd.weight    f32  ne [3, 5]  (vocab 5 rows of embd 3): 0
 *   blk.0.attn_q.weight  f32  ne [3, 8]  8 rows x 3 cols: 0
 *   blk.0.attn_k.weight  f32  ne [3, 4]  4 rows x 3 cols: 0
 *   blk.0.attn_v.weight  f16  ne [3, 4]  every element 1.0
 *   blk.0.ffn_up.weight  bf16 ne [3, 4]  every element 1.0
 *   blk.0.ffn_down.weight f32 ne [3, 4]  W[o][i] = 3*o + i (0..11)
 *   output_norm.weight   f32  ne [3]     {1, 2, 3}
 * q_type: the type of attn_q (f32, or Q8_0 with ne [32, 8] for the quantized base). */
static void write_base(const char *path, const char *arch, int q_type) {
    mio_writer *w = NULL;
    mio_writer_new(0, &w);
    mio_writer_set_str(w, "general.architecture", arch, strlen(arch));
    char key[64];
    snprintf(key, sizeof key, "%s.attention.head_count", arch);
    mio_writer_set_u32(w, key, 2);
    snprintf(key, sizeof key, "%s.attention.head_count_kv", arch);
    mio_writer_set_u32(w, key, 1);
    static float emb[15], q[24], k[12], down[12], norm[3] = {1, 2, 3};
    static uint16_t v16[12], up16[12];
    static uint8_t q8[8 * 34];
    for (int i = 0; i < 12; i++) { v16[i] = f16_bits(1.0f); up16[i] = bf16_bits(1.0f); down[i] = (float)i; }
    int64_t ne_e[2] = {3, 5}, ne_q[2] = {3, 8}, ne_q8[2] = {32, 8}, ne_4[2] = {3, 4}, ne_n[1] = {3};
    mio_writer_add_tensor(w, "token_embd.weight", MIO_TYPE_F32, 2, ne_e, emb, sizeof emb);
    if (q_type == MIO_TYPE_Q8_0) mio_writer_add_tensor(w, "blk.0.attn_q.weight", MIO_TYPE_Q8_0, 2, ne_q8, q8, sizeof q8);
    else mio_writer_add_tensor(w, "blk.0.attn_q.weight", MIO_TYPE_F32, 2, ne_q, q, sizeof q);
    mio_writer_add_tensor(w, "blk.0.attn_k.weight", MIO_TYPE_F32, 2, ne_4, k, sizeof k);
    mio_writer_add_tensor(w, "blk.0.attn_v.weight", MIO_TYPE_F16, 2, ne_4, v16, sizeof v16);
    mio_writer_add_tensor(w, "blk.0.ffn_up.weight", MIO_TYPE_BF16, 2, ne_4, up16, sizeof up16);
    mio_writer_add_tensor(w, "blk.0.ffn_down.weight", MIO_TYPE_F32, 2, ne_4, down, sizeof down);
    mio_writer_add_tensor(w, "output_norm.weight", MIO_TYPE_F32, 1, ne_n, norm, sizeof norm);
    if (mio_writer_write_file(w, path)) { fprintf(stderr, "base: %s\n", mio_last_error()); exit(1); }
    mio_writer_free(w);
}

/* Tensor `name` of GGUF `path` decoded to f32 (n values); 0 on success. */
static int read_f32(const char *path, const char *name, float *out, size_t n) {
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(path, 0, &f)) return -1;
    int64_t i = mio_gguf_find_tensor(f, name);
    mio_gguf_tensor t;
    int rc = -1;
    if (i >= 0 && mio_gguf_tensor_info(f, i, &t) == MIO_OK &&
        mio_decode_f32(t.type, t.data, (size_t)t.nbytes, out, n) == MIO_OK)
        rc = 0;
    mio_gguf_close(f);
    return rc;
}

static void check_vals(const char *path, const char *name, const float *want, size_t n, float tol) {
    float got[64];
    T_CHECK(n <= 64);
    if (read_f32(path, name, got, n) != 0) { T_CHECK(!"tensor readable"); return; }
    for (size_t i = 0; i < n; i++)
        if (fabsf(got[i] - want[i]) > tol) {
            T_CHECK(!"value matches");
            fprintf(stderr, "  %s[%zu] = %.9g, want %.9g\n", name, i, (double)got[i], (double)want[i]);
            return;
        }
    T_CHECK(1);
}

/* The raw bytes of a tensor in a GGUF file equal those of the same tensor in another. */
static int same_bytes(const char *a, const char *b, const char *name) {
    mio_gguf_file *fa = NULL, *fb = NULL;
    int same = 0;
    if (!mio_gguf_open(a, 0, &fa) && !mio_gguf_open(b, 0, &fb)) {
        mio_gguf_tensor ta, tb;
        int64_t ia = mio_gguf_find_tensor(fa, name), ib = mio_gguf_find_tensor(fb, name);
        if (ia >= 0 && ib >= 0 && !mio_gguf_tensor_info(fa, ia, &ta) && !mio_gguf_tensor_info(fb, ib, &tb))
            same = ta.nbytes == tb.nbytes && ta.type == tb.type && memcmp(ta.data, tb.data, (size_t)ta.nbytes) == 0;
    }
    mio_gguf_close(fa);
    mio_gguf_close(fb);
    return same;
}

/* plan callback: keep a copy of each module */
typedef struct plan_rec { char name[96], tensor[64]; int64_t rank; double alpha, scale, b_factor; int permuted; float ga; } plan_rec;
static plan_rec g_plan[16];
static int g_nplan;
static void plan_cb(void *user, const mio_lora_module *m) {
    (void)user;
    if (g_nplan >= 16) return;
    plan_rec *r = &g_plan[g_nplan++];
    snprintf(r->name, sizeof r->name, "%s", m->adapter_name);
    snprintf(r->tensor, sizeof r->tensor, "%s", m->tensor);
    r->rank = m->rank;
    r->alpha = m->alpha;
    r->scale = m->scale;
    r->b_factor = m->b_factor;
    r->permuted = m->permuted;
    r->ga = m->gguf_alpha;
}
static const plan_rec *plan_for(const char *tensor) {
    for (int i = 0; i < g_nplan; i++) if (strcmp(g_plan[i].tensor, tensor) == 0) return &g_plan[i];
    return NULL;
}

static mio_lora_params params(const char *adapters) {
    mio_lora_params p;
    mio_lora_default_params(&p);
    p.adapters = adapters;
    p.plan = plan_cb;
    g_nplan = 0;
    return p;
}

/* Expect a refusal: status, message fragment, no output. */
#define REFUSE(call, status, frag, out) do { unlink(out); T_STATUS(call, status); T_MSG_HAS(frag); \
    T_CHECK(!exists(out)); } while (0)

/* ------------------------------------------------------------------ tests */

static const float A13[3] = {1, 2, 3};

/* Fucina, f32 base: blk.0.ffn_down.weight W[o][i] = 3o + i, A = [1 2 3] (r = 1),
 * B = [1 -1 0.5 2]^T, alpha 2 -> s = 2/1 = 2; W'[o][i] = W[o][i] + 2*B[o]*A[i]:
 *   row 0:  0+2  1+4  2+6  = 2 5 8
 *   row 1:  3-2  4-4  5-6  = 1 0 -1
 *   row 2:  6+1  7+2  8+3  = 7 9 11
 *   row 3:  9+4 10+8 11+12 = 13 18 23 */
static void test_fucina_f32(void) {
    static const float B[4] = {1, -1, 0.5f, 2};
    st_t t[2] = {{"layers.0.down.lora_a", 1, 3, A13}, {"layers.0.down.lora_b", 4, 1, B}};
    write_st("fuc1.safetensors", t, 2);
    mio_lora_params p = params("fuc1.safetensors");
    p.alpha_set = 1;
    p.alpha = 2;
    unlink("m1.gguf");
    T_OK(mio_lora_merge("base.gguf", "m1.gguf", &p));
    static const float want[12] = {2, 5, 8, 1, 0, -1, 7, 9, 11, 13, 18, 23};
    check_vals("m1.gguf", "blk.0.ffn_down.weight", want, 12, 0);
    T_EQ_INT(g_nplan, 1);
    T_EQ_STR(g_plan[0].name, "layers.0.down");
    T_EQ_STR(g_plan[0].tensor, "blk.0.ffn_down.weight");
    T_CHECK(g_plan[0].scale == 2.0 && g_plan[0].rank == 1 && !g_plan[0].permuted);
    /* everything else byte-verbatim, metadata too */
    const char *others[] = {"token_embd.weight", "blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.attn_v.weight",
                            "blk.0.ffn_up.weight", "output_norm.weight"};
    for (size_t i = 0; i < 6; i++) T_CHECK(same_bytes("base.gguf", "m1.gguf", others[i]));
    size_t la, lb;
    uint8_t *ba = t_read_file("base.gguf", &la), *bb = t_read_file("m1.gguf", &lb);
    T_EQ_U64(la, lb);
    /* the header (everything before the data section) is identical */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("base.gguf", 0, &f));
    uint64_t doff = mio_gguf_data_offset(f);
    mio_gguf_close(f);
    T_CHECK(ba && bb && la == lb && memcmp(ba, bb, (size_t)doff) == 0);
    free(ba);
    free(bb);

    /* a directory holding adapters.safetensors is the same adapter */
    mkdir("fucdir", 0777);
    write_st("fucdir/adapters.safetensors", t, 2);
    p = params("fucdir");
    p.alpha_set = 1;
    p.alpha = 2;
    T_OK(mio_lora_merge("base.gguf", "m1d.gguf", &p));
    check_vals("m1d.gguf", "blk.0.ffn_down.weight", want, 12, 0);

    /* Fucina trains on GGUF-layout weights: no permutation of q even on a llama base.
     * A = [1 0 0], B = [10 20 .. 80]^T, alpha 1: column 0 of q = B in file order. */
    static const float A100[3] = {1, 0, 0}, B8[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    st_t tq[2] = {{"layers.0.q.lora_a", 1, 3, A100}, {"layers.0.q.lora_b", 8, 1, B8}};
    write_st("fucq.safetensors", tq, 2);
    p = params("fucq.safetensors");
    p.alpha_set = 1;
    p.alpha = 1;
    T_OK(mio_lora_merge("base.gguf", "m1q.gguf", &p));
    static const float wq[24] = {10, 0, 0, 20, 0, 0, 30, 0, 0, 40, 0, 0, 50, 0, 0, 60, 0, 0, 70, 0, 0, 80, 0, 0};
    check_vals("m1q.gguf", "blk.0.attn_q.weight", wq, 24, 0);
}

/* f16 / bf16 bases: merged in f32 and rounded once.
 * attn_v (f16, all 1.0), rank 2, A all 1, B all 0.0003, alpha 2 -> s = 1:
 * delta = 0.0003 + 0.0003 = 0.0006; 1.0006 rounds to f16 1 + 2^-10 = 1.0009765625
 * (0x3C01; it is 0.00037 from it and 0.0006 from 1.0). Rounding after each rank
 * term would give 1.0003 -> 1.0, then 1.0 again (0x3C00).
 * ffn_up (bf16, all 1.0), same A, B all 0.003: delta 0.006; bf16 spacing at 1
 * is 2^-7 = 0.0078125, 1.006 rounds to 1.0078125 (0x3F81). */
static void test_half_bases(void) {
    static const float A[6] = {1, 1, 1, 1, 1, 1}, Bv[8] = {3e-4f, 3e-4f, 3e-4f, 3e-4f, 3e-4f, 3e-4f, 3e-4f, 3e-4f},
                       Bu[8] = {3e-3f, 3e-3f, 3e-3f, 3e-3f, 3e-3f, 3e-3f, 3e-3f, 3e-3f};
    st_t t[4] = {{"layers.0.v.lora_a", 2, 3, A}, {"layers.0.v.lora_b", 4, 2, Bv},
                 {"layers.0.up.lora_a", 2, 3, A}, {"layers.0.up.lora_b", 4, 2, Bu}};
    write_st("fuc_half.safetensors", t, 4);
    mio_lora_params p = params("fuc_half.safetensors");
    p.alpha_set = 1;
    p.alpha = 2;
    T_OK(mio_lora_merge("base.gguf", "m_half.gguf", &p));
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("m_half.gguf", 0, &f));
    mio_gguf_tensor tv, tu;
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.attn_v.weight"), &tv));
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.ffn_up.weight"), &tu));
    T_EQ_INT(tv.type, MIO_TYPE_F16);
    T_EQ_INT(tu.type, MIO_TYPE_BF16);
    int all_v = 1, all_u = 1;
    for (int i = 0; i < 12; i++) {
        uint16_t hv, hu;
        memcpy(&hv, (const uint8_t *)tv.data + 2 * i, 2);
        memcpy(&hu, (const uint8_t *)tu.data + 2 * i, 2);
        all_v &= hv == 0x3C01;
        all_u &= hu == 0x3F81;
    }
    T_CHECK(all_v);
    T_CHECK(all_u);
    mio_gguf_close(f);
}

/* PEFT q/k on a llama base, the row permutation of convert_hf_to_gguf.py's
 * LlamaModel.permute: reshape(n_head, 2, rows/n_head/2, cols).swapaxes(1, 2).
 * q: 8 rows, n_head 2 -> head dim 4, halves of 2: new row h*4 + 2j + t takes
 * old row h*4 + 2t + j, so the new order is old rows 0 2 1 3 4 6 5 7.
 * k: 4 rows, n_head_kv 1 -> head dim 4: old rows 0 2 1 3.
 * A = [1 0 0], B = [10 20 ... 80]^T (q) / [1 2 3 4]^T (k), r 1, alpha 1: s = 1,
 * so column 0 of the merged q reads 10 30 20 40 50 70 60 80 and k 1 3 2 4. */
static const float B8[8] = {10, 20, 30, 40, 50, 60, 70, 80}, B4[4] = {1, 2, 3, 4}, A100[3] = {1, 0, 0};

static void make_peft_qk(const char *dir, const char *config) {
    mkdir(dir, 0777);
    char p[256];
    snprintf(p, sizeof p, "%s/adapter_config.json", dir);
    write_text(p, config);
    snprintf(p, sizeof p, "%s/adapter_model.safetensors", dir);
    st_t t[4] = {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", 1, 3, A100},
                 {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", 8, 1, B8},
                 {"base_model.model.model.layers.0.self_attn.k_proj.lora_A.weight", 1, 3, A100},
                 {"base_model.model.model.layers.0.self_attn.k_proj.lora_B.weight", 4, 1, B4}};
    write_st(p, t, 4);
}

static void col0(float *dst, const float *c, int n) { for (int i = 0; i < n; i++) { dst[3 * i] = c[i]; dst[3 * i + 1] = dst[3 * i + 2] = 0; } }

static void test_peft_permutation(void) {
    make_peft_qk("peft_qk", "{\"peft_type\": \"LORA\", \"r\": 1, \"lora_alpha\": 1, \"target_modules\": [\"q_proj\", \"k_proj\"]}");
    mio_lora_params p = params("peft_qk");
    T_OK(mio_lora_merge("base.gguf", "m_qk.gguf", &p));
    static const float q_perm[8] = {10, 30, 20, 40, 50, 70, 60, 80}, k_perm[4] = {1, 3, 2, 4};
    float wq[24], wk[12];
    col0(wq, q_perm, 8);
    col0(wk, k_perm, 4);
    check_vals("m_qk.gguf", "blk.0.attn_q.weight", wq, 24, 0);
    check_vals("m_qk.gguf", "blk.0.attn_k.weight", wk, 12, 0);
    T_EQ_INT(g_nplan, 2);
    const plan_rec *r = plan_for("blk.0.attn_q.weight");
    T_CHECK(r && r->permuted && strcmp(r->name, "model.layers.0.self_attn.q_proj") == 0);

    /* the adapter file named directly (config beside it) is the same adapter */
    p = params("peft_qk/adapter_model.safetensors");
    T_OK(mio_lora_merge("base.gguf", "m_qk2.gguf", &p));
    check_vals("m_qk2.gguf", "blk.0.attn_q.weight", wq, 24, 0);

    /* permute_qk = 0: rows in file order */
    p = params("peft_qk");
    p.permute_qk = 0;
    T_OK(mio_lora_merge("base.gguf", "m_qk0.gguf", &p));
    float wq0[24];
    col0(wq0, B8, 8);
    check_vals("m_qk0.gguf", "blk.0.attn_q.weight", wq0, 24, 0);

    /* a base whose architecture llama.cpp does not permute (qwen2): file order too */
    write_base("base_qwen2.gguf", "qwen2", MIO_TYPE_F32);
    p = params("peft_qk");
    T_OK(mio_lora_merge("base_qwen2.gguf", "m_qwen.gguf", &p));
    check_vals("m_qwen.gguf", "blk.0.attn_q.weight", wq0, 24, 0);
    T_CHECK(g_nplan == 2 && !g_plan[0].permuted);
}

/* PEFT config rules, read through the plan callback and the merged values. */
static void test_peft_config(void) {
    float A8[24], B88[64];
    for (int i = 0; i < 24; i++) A8[i] = 0;
    for (int i = 0; i < 64; i++) B88[i] = 0;
    /* defaults: {} -> r 8, lora_alpha 8, scale 1 */
    mkdir("peft_def", 0777);
    write_text("peft_def/adapter_config.json", "{}");
    st_t t8[2] = {{"base_model.model.model.layers.0.mlp.down_proj.lora_A.weight", 8, 3, A8},
                  {"base_model.model.model.layers.0.mlp.down_proj.lora_B.weight", 4, 8, B88}};
    write_st("peft_def/adapter_model.safetensors", t8, 2);
    mio_lora_params p = params("peft_def");
    T_OK(mio_lora_merge("base.gguf", "m_def.gguf", &p));
    T_CHECK(g_nplan == 1 && g_plan[0].rank == 8 && g_plan[0].alpha == 8 && g_plan[0].scale == 1);

    /* rsLoRA: r 4, lora_alpha 8, use_rslora -> s = 8/sqrt(4) = 4.
     * down_proj, A = [1 2 3; 0 0 0; 0 0 0; 0 0 0], B[o] = [1 0 0 0]: delta[o][i] = 4*A[0][i]
     * -> W'[o][i] = 3o + i + 4*(i+1): row 0 = 4 9 14, row 3 = 13 18 23 */
    mkdir("peft_rs", 0777);
    write_text("peft_rs/adapter_config.json", "{\"r\": 4, \"lora_alpha\": 8, \"use_rslora\": true}");
    float A4[12] = {1, 2, 3}, B44[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    st_t t4[2] = {{"base_model.model.model.layers.0.mlp.down_proj.lora_A.weight", 4, 3, A4},
                  {"base_model.model.model.layers.0.mlp.down_proj.lora_B.weight", 4, 4, B44}};
    write_st("peft_rs/adapter_model.safetensors", t4, 2);
    p = params("peft_rs");
    T_OK(mio_lora_merge("base.gguf", "m_rs.gguf", &p));
    T_CHECK(g_nplan == 1 && g_plan[0].scale == 4.0);
    static const float want_rs[12] = {4, 9, 14, 7, 12, 17, 10, 15, 20, 13, 18, 23};
    check_vals("m_rs.gguf", "blk.0.ffn_down.weight", want_rs, 12, 0);

    /* params alpha replaces lora_alpha: alpha 2 -> s = 2/sqrt(4) = 1 */
    p = params("peft_rs");
    p.alpha_set = 1;
    p.alpha = 2;
    T_OK(mio_lora_merge("base.gguf", "m_rs2.gguf", &p));
    T_CHECK(g_nplan == 1 && g_plan[0].alpha == 2 && g_plan[0].scale == 1.0);

    /* rank_pattern / alpha_pattern (PEFT's get_pattern_key: "(.*\.)?(KEY)$"):
     * k_proj gets r 2 (it has rank 2 here), q gets alpha 6 by its full name;
     * "proj" matches no module (a pattern matches whole name components).
     * q: r 1, alpha 6 -> s 6; k: r 2, alpha 2 -> s 1. */
    mkdir("peft_pat", 0777);
    write_text("peft_pat/adapter_config.json",
               "{\"r\": 1, \"lora_alpha\": 2, \"rank_pattern\": {\"k_proj\": 2}, "
               "\"alpha_pattern\": {\"proj\": 100, \"model.layers.0.self_attn.q_proj\": 6}}");
    static const float Ak[6] = {1, 0, 0, 0, 0, 0}, Bk[8] = {1, 0, 2, 0, 3, 0, 4, 0};
    st_t tp[4] = {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", 1, 3, A100},
                  {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", 8, 1, B8},
                  {"base_model.model.model.layers.0.self_attn.k_proj.lora_A.weight", 2, 3, Ak},
                  {"base_model.model.model.layers.0.self_attn.k_proj.lora_B.weight", 4, 2, Bk}};
    write_st("peft_pat/adapter_model.safetensors", tp, 4);
    p = params("peft_pat");
    T_OK(mio_lora_merge("base.gguf", "m_pat.gguf", &p));
    const plan_rec *q = plan_for("blk.0.attn_q.weight"), *k = plan_for("blk.0.attn_k.weight");
    T_CHECK(q && q->rank == 1 && q->alpha == 6 && q->scale == 6);
    T_CHECK(k && k->rank == 2 && k->alpha == 2 && k->scale == 1);
    /* q column 0 = 6 * permuted B = 60 180 120 240 300 420 360 480 */
    static const float q6[8] = {60, 180, 120, 240, 300, 420, 360, 480}, kp[4] = {1, 3, 2, 4};
    float wq[24], wk[12];
    col0(wq, q6, 8);
    col0(wk, kp, 4);
    check_vals("m_pat.gguf", "blk.0.attn_q.weight", wq, 24, 0);
    check_vals("m_pat.gguf", "blk.0.attn_k.weight", wk, 12, 0);
    /* params alpha replaces alpha_pattern too: alpha 3 -> q s 3, k s 1.5 */
    p = params("peft_pat");
    p.alpha_set = 1;
    p.alpha = 3;
    T_OK(mio_lora_merge("base.gguf", "m_pat3.gguf", &p));
    q = plan_for("blk.0.attn_q.weight");
    k = plan_for("blk.0.attn_k.weight");
    T_CHECK(q && k && q->scale == 3 && k->scale == 1.5);

    /* fan_in_fan_out: A/B are saved [r, in] / [out, r] either way; the merge is the same */
    mkdir("peft_fifo", 0777);
    write_text("peft_fifo/adapter_config.json", "{\"r\": 4, \"lora_alpha\": 8, \"use_rslora\": true, \"fan_in_fan_out\": true}");
    write_st("peft_fifo/adapter_model.safetensors", t4, 2);
    p = params("peft_fifo");
    T_OK(mio_lora_merge("base.gguf", "m_fifo.gguf", &p));
    check_vals("m_fifo.gguf", "blk.0.ffn_down.weight", want_rs, 12, 0);

    /* token embeddings, r 2, alpha 2 (s 1): lora_embedding_A [r, vocab] =
     * [1 2 3 4 5; 0 0 0 0 1], lora_embedding_B [embd, r] = [1 0; 10 0; 100 1000].
     * delta[v][e] = sum_k A[k][v]*B[e][k]: tokens 0..3 get (v+1)*[1 10 100],
     * token 4 gets 5*[1 10 100] + 1*[0 0 1000] = [5 50 1500]. */
    mkdir("peft_emb", 0777);
    write_text("peft_emb/adapter_config.json", "{\"r\": 2, \"lora_alpha\": 2}");
    static const float EA[10] = {1, 2, 3, 4, 5, 0, 0, 0, 0, 1}, EB[6] = {1, 0, 10, 0, 100, 1000};
    st_t te[2] = {{"base_model.model.model.embed_tokens.lora_embedding_A", 2, 5, EA},
                  {"base_model.model.model.embed_tokens.lora_embedding_B", 3, 2, EB}};
    write_st("peft_emb/adapter_model.safetensors", te, 2);
    p = params("peft_emb");
    T_OK(mio_lora_merge("base.gguf", "m_emb.gguf", &p));
    static const float we[15] = {1, 10, 100, 2, 20, 200, 3, 30, 300, 4, 40, 400, 5, 50, 1500};
    check_vals("m_emb.gguf", "token_embd.weight", we, 15, 0);
    /* PEFT's save_embedding_layers copy of the base embedding (embed_tokens.base_layer.weight)
     * is skipped, as llama.cpp's converter does: the same merge */
    mkdir("peft_emb_saved", 0777);
    write_text("peft_emb_saved/adapter_config.json", "{\"r\": 2, \"lora_alpha\": 2}");
    static const float base_copy[15] = {0};
    st_t tes[3] = {te[0], te[1], {"base_model.model.model.embed_tokens.base_layer.weight", 5, 3, base_copy}};
    write_st("peft_emb_saved/adapter_model.safetensors", tes, 3);
    p = params("peft_emb_saved");
    T_OK(mio_lora_merge("base.gguf", "m_emb_saved.gguf", &p));
    check_vals("m_emb_saved.gguf", "token_embd.weight", we, 15, 0);
}

/* The llama.cpp adapter GGUF. */
static void test_lora_gguf(void) {
    mio_lora_params p = params("peft_qk");
    T_OK(mio_lora_to_gguf("base.gguf", "a_qk.gguf", &p));
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("a_qk.gguf", 0, &f));
    mio_str s;
    T_OK(mio_gguf_kv_str(f, mio_gguf_find_key(f, "general.architecture"), &s));
    T_EQ_MSTR(s, "llama");
    T_OK(mio_gguf_kv_str(f, mio_gguf_find_key(f, "general.type"), &s));
    T_EQ_MSTR(s, "adapter");
    T_OK(mio_gguf_kv_str(f, mio_gguf_find_key(f, "adapter.type"), &s));
    T_EQ_MSTR(s, "lora");
    int64_t ka = mio_gguf_find_key(f, "adapter.lora.alpha");
    T_EQ_INT(mio_gguf_kv_type(f, ka), MIO_GGUF_F32);   /* llama.cpp reads it with gguf_get_val_f32 */
    double a = 0;
    T_OK(mio_gguf_kv_f64(f, ka, &a));
    T_CHECK(a == 1.0);                                /* s * r = 1 * 1 */
    T_EQ_INT(mio_gguf_kv_count(f), 4);
    T_EQ_INT(mio_gguf_tensor_count(f), 4);
    /* base order: q then k; a before b */
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, 0, &t));
    T_EQ_MSTR(t.name, "blk.0.attn_q.weight.lora_a");
    T_CHECK(t.type == MIO_TYPE_F32 && t.ne[0] == 3 && t.ne[1] == 1);   /* [in, r] */
    T_OK(mio_gguf_tensor_info(f, 1, &t));
    T_EQ_MSTR(t.name, "blk.0.attn_q.weight.lora_b");
    T_CHECK(t.ne[0] == 1 && t.ne[1] == 8);                              /* [r, out] */
    float b[8];
    memcpy(b, t.data, sizeof b);
    static const float q_perm[8] = {10, 30, 20, 40, 50, 70, 60, 80};
    T_CHECK(memcmp(b, q_perm, sizeof b) == 0);                          /* permuted rows */
    T_OK(mio_gguf_tensor_info(f, 3, &t));
    T_EQ_MSTR(t.name, "blk.0.attn_k.weight.lora_b");
    T_CHECK(t.ne[0] == 1 && t.ne[1] == 4);
    mio_gguf_close(f);

    /* folding: rsLoRA with q r 1 and k r 2 (rank_pattern), lora_alpha 2.
     * llama.cpp scales by alpha_w / r. q: s = 2/1 = 2, needs alpha 2*1 = 2;
     * k: s = 2/sqrt(2), needs alpha 2*sqrt(2)/... = s*r = 2*sqrt(2).
     * alpha_w = 2 (the first module, q), so k's lora_b carries sqrt(2). */
    mkdir("peft_fold", 0777);
    write_text("peft_fold/adapter_config.json", "{\"r\": 1, \"lora_alpha\": 2, \"use_rslora\": true, \"rank_pattern\": {\"k_proj\": 2}}");
    static const float Ak[6] = {1, 0, 0, 0, 0, 0}, Bk[8] = {1, 0, 2, 0, 3, 0, 4, 0};
    st_t tp[4] = {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", 1, 3, A100},
                  {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", 8, 1, B8},
                  {"base_model.model.model.layers.0.self_attn.k_proj.lora_A.weight", 2, 3, Ak},
                  {"base_model.model.model.layers.0.self_attn.k_proj.lora_B.weight", 4, 2, Bk}};
    write_st("peft_fold/adapter_model.safetensors", tp, 4);
    p = params("peft_fold");
    T_OK(mio_lora_to_gguf("base.gguf", "a_fold.gguf", &p));
    const plan_rec *q = plan_for("blk.0.attn_q.weight"), *k = plan_for("blk.0.attn_k.weight");
    T_CHECK(q && q->b_factor == 1.0 && q->ga == 2.0f);
    T_CHECK(k && fabs(k->b_factor - sqrt(2.0)) < 1e-12);
    T_OK(mio_gguf_open("a_fold.gguf", 0, &f));
    T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "adapter.lora.alpha"), &a));
    T_CHECK(a == 2.0);
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.attn_k.weight.lora_b"), &t));
    float kb[8];
    memcpy(kb, t.data, sizeof kb);
    /* k's B rows permuted (0 2 1 3) then times sqrt(2): row 1 is old row 2 = [3 0] */
    float r2 = (float)sqrt(2.0);
    T_CHECK(kb[0] == 1 * r2 && kb[2] == 3 * r2 && kb[4] == 2 * r2 && kb[6] == 4 * r2 && kb[1] == 0);
    mio_gguf_close(f);

    /* token embeddings: lora_a = A^T, ne [r, vocab], rows [A0[v] A1[v]];
     * lora_b = B, ne [r, embd], as saved: [1 0 10 0 100 1000] */
    p = params("peft_emb");
    T_OK(mio_lora_to_gguf("base.gguf", "a_emb.gguf", &p));
    T_OK(mio_gguf_open("a_emb.gguf", 0, &f));
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "token_embd.weight.lora_a"), &t));
    T_CHECK(t.ne[0] == 2 && t.ne[1] == 5);
    static const float ea_want[10] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 1}, eb_want[6] = {1, 0, 10, 0, 100, 1000};
    T_CHECK(t.nbytes == sizeof ea_want && memcmp(t.data, ea_want, sizeof ea_want) == 0);
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "token_embd.weight.lora_b"), &t));
    T_CHECK(t.ne[0] == 2 && t.ne[1] == 3);
    T_CHECK(t.nbytes == sizeof eb_want && memcmp(t.data, eb_want, sizeof eb_want) == 0);
    mio_gguf_close(f);

    /* lora_alpha 0: PEFT scales by 0. llama.cpp reads alpha 0 as "scale 1", so
     * alpha 0 is written and each lora_b carries its whole scale (0 here). */
    make_peft_qk("peft_a0", "{\"r\": 1, \"lora_alpha\": 0}");
    p = params("peft_a0");
    T_OK(mio_lora_to_gguf("base.gguf", "a_a0.gguf", &p));
    T_CHECK(g_nplan == 2 && g_plan[0].ga == 0.0f && g_plan[0].b_factor == 0.0 && g_plan[1].b_factor == 0.0);
    T_OK(mio_gguf_open("a_a0.gguf", 0, &f));
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.attn_q.weight.lora_b"), &t));
    static const float zeros8[8] = {0};
    T_CHECK(memcmp(t.data, zeros8, sizeof zeros8) == 0);
    mio_gguf_close(f);
    p = params("peft_a0");
    T_OK(mio_lora_merge("base.gguf", "m_a0.gguf", &p));
    T_CHECK(same_bytes("base.gguf", "m_a0.gguf", "blk.0.attn_q.weight"));

    /* a quantized base is fine for an adapter (llama.cpp applies it at run time) */
    p = params("fuc1.safetensors");
    T_STATUS(mio_lora_to_gguf("base_q8.gguf", "a_q8.gguf", &p), MIO_ERR_INVALID_ARG); /* no alpha */
    p = params("fucq.safetensors");
    p.alpha_set = 1;
    p.alpha = 4;
    T_STATUS(mio_lora_to_gguf("base_q8.gguf", "a_q8.gguf", &p), MIO_ERR_SIZE_MISMATCH); /* q8 q is [8, 32] */
    T_MSG_HAS("shape mismatch");
    p = params("fuc1.safetensors");
    p.alpha_set = 1;
    p.alpha = 4;
    T_OK(mio_lora_to_gguf("base_q8.gguf", "a_q8.gguf", &p));
    T_CHECK(g_nplan == 1 && g_plan[0].ga == 4.0f);
}

/* Every refusal: its status, its message, and no output file. */
static void test_errors(void) {
    mio_lora_params p;
    const char *out = "err.gguf";
    /* a lone A */
    st_t lone[1] = {{"layers.0.down.lora_a", 1, 3, A13}};
    write_st("lone.safetensors", lone, 1);
    p = params("lone.safetensors");
    p.alpha_set = 1;
    p.alpha = 1;
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG, "module 'layers.0.down' has an A matrix but no B", out);
    /* a lone B */
    static const float B4x1[4] = {1, 2, 3, 4};
    st_t loneb[1] = {{"layers.0.down.lora_b", 4, 1, B4x1}};
    write_st("loneb.safetensors", loneb, 1);
    p.adapters = "loneb.safetensors";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG, "has a B matrix but no A", out);
    /* an empty adapter set */
    write_st("empty.safetensors", NULL, 0);
    p.adapters = "empty.safetensors";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG, "empty adapter set", out);
    REFUSE(mio_lora_to_gguf("base.gguf", out, &p), MIO_ERR_INVALID_ARG, "empty adapter set", out);
    /* a PEFT adapter whose only tensor is the base embedding's copy (skipped, see
     * test_peft_config): no module is left, which is an empty set too */
    mkdir("peft_only_base", 0777);
    write_text("peft_only_base/adapter_config.json", "{\"r\": 2, \"lora_alpha\": 2}");
    static const float base_only[15] = {0};
    st_t bo[1] = {{"base_model.model.model.embed_tokens.base_layer.weight", 5, 3, base_only}};
    write_st("peft_only_base/adapter_model.safetensors", bo, 1);
    p.adapters = "peft_only_base";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG,
           "empty adapter set (its only tensors are copies of the base's own weights", out);
    REFUSE(mio_lora_to_gguf("base.gguf", out, &p), MIO_ERR_INVALID_ARG, "empty adapter set", out);
    /* a module that matches no base tensor */
    st_t nob[2] = {{"layers.5.down.lora_a", 1, 3, A13}, {"layers.5.down.lora_b", 4, 1, B4x1}};
    write_st("nobase.safetensors", nob, 2);
    p.adapters = "nobase.safetensors";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NOT_FOUND,
           "module 'layers.5.down' targets 'blk.5.ffn_down.weight', which the base does not have", out);
    /* a module with no GGUF name */
    st_t unk[2] = {{"layers.0.foo.lora_a", 1, 3, A13}, {"layers.0.foo.lora_b", 4, 1, B4x1}};
    write_st("unk.safetensors", unk, 2);
    p.adapters = "unk.safetensors";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NOT_FOUND, "module 'layers.0.foo' has no GGUF tensor name", out);
    /* shape mismatch, naming both shapes: A [1, 4] against W [4, 3] */
    static const float A4[4] = {1, 2, 3, 4};
    st_t shp[2] = {{"layers.0.down.lora_a", 1, 4, A4}, {"layers.0.down.lora_b", 4, 1, B4x1}};
    write_st("shape.safetensors", shp, 2);
    p.adapters = "shape.safetensors";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_SIZE_MISMATCH,
           "shape mismatch: base tensor 'blk.0.ffn_down.weight' is [4, 3] (rows, cols; ne [3, 4]) but the adapter's delta "
           "is [4, 4] (A [1, 4], B [4, 1])", out);
    /* rank mismatch between A and B: A [2, 3], B [4, 1] */
    static const float A23[6] = {1, 2, 3, 4, 5, 6};
    st_t rk[2] = {{"layers.0.down.lora_a", 2, 3, A23}, {"layers.0.down.lora_b", 4, 1, B4x1}};
    write_st("rank.safetensors", rk, 2);
    p.adapters = "rank.safetensors";
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_SIZE_MISMATCH,
           "rank mismatch: A is [2, 3] (rank 2) but B is [4, 1] (rank 1)", out);
    /* Fucina without alpha */
    p = params("fuc1.safetensors");
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG, "a Fucina adapter stores no alpha", out);
    /* neither PEFT nor Fucina names */
    st_t odd[1] = {{"model.layers.0.weight", 1, 3, A13}};
    write_st("odd.safetensors", odd, 1);
    p = params("odd.safetensors");
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG,
           "not a LoRA adapter: its tensor 'model.layers.0.weight' starts neither with \"base_model.model.\" (PEFT) "
           "nor with \"layers.\" (Fucina)", out);
    /* a directory that is neither */
    mkdir("nothing_dir", 0777);
    p = params("nothing_dir");
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NOT_FOUND, "neither adapter_config.json", out);
    /* PEFT: unknown peft_type, malformed JSON, modules_to_save, config rank mismatch, DoRA */
    struct { const char *cfg; mio_status st; const char *msg; } bad[] = {
        {"{\"peft_type\": \"PREFIX_TUNING\", \"r\": 1}", MIO_ERR_UNSUPPORTED_TYPE,
         "peft_type is \"PREFIX_TUNING\"; only LORA adapters can be merged or converted"},
        {"{\"r\": 1, \"lora_alpha\": }", MIO_ERR_INVALID_JSON, "adapter_config.json: malformed JSON near byte"},
        {"{\"r\": 1, \"modules_to_save\": [\"lm_head\"]}", MIO_ERR_UNSUPPORTED_TYPE,
         "modules_to_save lists \"lm_head\": the adapter carries full replacement weights for it, which is not a LoRA"},
        {"{\"r\": 4}", MIO_ERR_SIZE_MISMATCH,
         "_proj': rank mismatch: adapter_config.json gives r = 4 but its A and B have rank 1"},
        {"{\"r\": 1, \"use_dora\": true}", MIO_ERR_UNSUPPORTED_TYPE, "DoRA"},
        {"{\"r\": \"one\"}", MIO_ERR_INVALID_JSON, "\"r\" must be a positive integer"},
        {"{\"r\": 1, \"rank_pattern\": {\"(\": 2}}", MIO_ERR_INVALID_JSON, "rank_pattern key \"(\" is not a valid regular expression"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        make_peft_qk("peft_bad", bad[i].cfg);
        p = params("peft_bad");
        REFUSE(mio_lora_merge("base.gguf", out, &p), bad[i].st, bad[i].msg, out);
        REFUSE(mio_lora_to_gguf("base.gguf", out, &p), bad[i].st, bad[i].msg, out);
    }
    /* a PEFT file without its config beside it */
    mkdir("peft_nocfg", 0777);
    st_t pq[2] = {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", 1, 3, A100},
                  {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", 8, 1, B8}};
    write_st("peft_nocfg/adapter_model.safetensors", pq, 2);
    p = params("peft_nocfg/adapter_model.safetensors");
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NOT_FOUND, "needs its adapter_config.json beside it", out);
    /* a PEFT tensor that is not A/B (a modules_to_save copy) */
    mkdir("peft_full", 0777);
    write_text("peft_full/adapter_config.json", "{\"r\": 1}");
    st_t pf[3] = {pq[0], pq[1], {"base_model.model.lm_head.weight", 1, 3, A13}};
    write_st("peft_full/adapter_model.safetensors", pf, 3);
    p = params("peft_full");
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG,
           "tensor 'base_model.model.lm_head.weight' is not a LoRA A or B matrix", out);
    /* lm_head on a base without output.weight (tied embeddings) */
    static const float B5[5] = {1, 2, 3, 4, 5};
    mkdir("peft_head", 0777);
    write_text("peft_head/adapter_config.json", "{\"r\": 1}");
    st_t ph[2] = {{"base_model.model.lm_head.lora_A.weight", 1, 3, A13}, {"base_model.model.lm_head.lora_B.weight", 5, 1, B5}};
    write_st("peft_head/adapter_model.safetensors", ph, 2);
    p = params("peft_head");
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NOT_FOUND, "targets 'output.weight', which the base does not have", out);
    /* NaN in an adapter matrix */
    static const float Anan[3] = {1, NAN, 3};
    st_t nan_t[2] = {{"layers.0.down.lora_a", 1, 3, Anan}, {"layers.0.down.lora_b", 4, 1, B4x1}};
    write_st("nan.safetensors", nan_t, 2);
    p = params("nan.safetensors");
    p.alpha_set = 1;
    p.alpha = 1;
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NON_FINITE, "adapter tensor 'layers.0.down.lora_a': element 1 is not finite", out);
    /* a merge that overflows f16: attn_v is 1.0, delta 1 * 70000 (f16 max is 65504) */
    static const float Abig[3] = {70000, 0, 0}, B1[4] = {1, 0, 0, 0};
    st_t big[2] = {{"layers.0.v.lora_a", 1, 3, Abig}, {"layers.0.v.lora_b", 4, 1, B1}};
    write_st("big.safetensors", big, 2);
    p = params("big.safetensors");
    p.alpha_set = 1;
    p.alpha = 1;
    REFUSE(mio_lora_merge("base.gguf", out, &p), MIO_ERR_NON_FINITE,
           "merging into 'blk.0.attn_v.weight' overflows f16 at row 0, column 0 (1 + 70000)", out);
    /* the quantized base, with the seed's advice */
    p = params("peft_qk");
    REFUSE(mio_lora_merge("base_q8.gguf", out, &p), MIO_ERR_UNSUPPORTED_TYPE,
           "base tensor 'blk.0.attn_q.weight' is q8_0: a LoRA merge needs an f32/f16/bf16 base (QuantizedBaseUnsupported): "
           "merge on an f32/f16/bf16 base, then quantize in a second pass", out);
    /* a failure leaves an existing output untouched */
    write_text(out, "keep me");
    T_STATUS(mio_lora_merge("base_q8.gguf", out, &p), MIO_ERR_UNSUPPORTED_TYPE);
    size_t len;
    uint8_t *kept = t_read_file(out, &len);
    T_CHECK(kept && len == 7 && memcmp(kept, "keep me", 7) == 0);
    free(kept);
    unlink(out);
    /* writing over the base is refused */
    p = params("peft_qk");
    T_STATUS(mio_lora_merge("base.gguf", "base.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("is one of the input files");
    /* parameters */
    T_STATUS(mio_lora_merge("base.gguf", out, NULL), MIO_ERR_INVALID_ARG);
    mio_lora_default_params(&p);
    T_STATUS(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("p->adapters is NULL");
    p.adapters = "fuc1.safetensors";
    p.size = 3;
    T_STATUS(mio_lora_merge("base.gguf", out, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("mio_lora_default_params");
    T_CHECK(!exists(out));
}

/* The _fd variants write the same bytes. */
static void test_fd(void) {
    mio_lora_params p = params("fuc1.safetensors");
    p.alpha_set = 1;
    p.alpha = 2;
    FILE *fp = fopen("m1_fd.gguf", "wb");
    T_OK(mio_lora_merge_fd("base.gguf", fileno(fp), &p));
    fclose(fp);
    size_t l1, l2;
    uint8_t *a = t_read_file("m1.gguf", &l1), *b = t_read_file("m1_fd.gguf", &l2);
    T_CHECK(a && b && l1 == l2 && memcmp(a, b, l1) == 0);
    free(a);
    free(b);
    p = params("peft_qk");
    fp = fopen("a_qk_fd.gguf", "wb");
    T_OK(mio_lora_to_gguf_fd("base.gguf", fileno(fp), &p));
    fclose(fp);
    a = t_read_file("a_qk.gguf", &l1);
    b = t_read_file("a_qk_fd.gguf", &l2);
    T_CHECK(a && b && l1 == l2 && memcmp(a, b, l1) == 0);
    free(a);
    free(b);
}

/* --fixtures: the inputs of tests/tools/test_lora.sh, in the current directory. */
static int fixtures(void) {
    write_base("base.gguf", "llama", MIO_TYPE_F32);
    write_base("base_q8.gguf", "llama", MIO_TYPE_Q8_0);
    static const float B[4] = {1, -1, 0.5f, 2};
    st_t t[2] = {{"layers.0.down.lora_a", 1, 3, A13}, {"layers.0.down.lora_b", 4, 1, B}};
    write_st("fuc1.safetensors", t, 2);
    write_st("lone.safetensors", t, 1);
    write_st("empty.safetensors", NULL, 0);
    make_peft_qk("peft_qk", "{\"peft_type\": \"LORA\", \"r\": 1, \"lora_alpha\": 1}");
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--fixtures") == 0) return fixtures();
    write_base("base.gguf", "llama", MIO_TYPE_F32);
    write_base("base_q8.gguf", "llama", MIO_TYPE_Q8_0);
    test_fucina_f32();
    test_half_bases();
    test_peft_permutation();
    test_peft_config();
    test_lora_gguf();
    test_errors();
    test_fd();
    T_DONE();
}
