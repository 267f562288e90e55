/* SPDX-License-Identifier: MIT */
/* mk_lora_fixtures.c — writes the LoRA interop fixtures of lora_fixtures.h into
 * a directory, with the public libmodelio API only (mio_writer for GGUF,
 * mio_st_save_file for safetensors, stdio for adapter_config.json):
 *   base-f32.gguf, base-f16.gguf,  the tiny GQA llama base (f16/bf16: every
 *   base-bf16.gguf                 matrix f16/bf16, norms f32, general.file_type
 *                                  1/32), loadable and decodable by llama.cpp's libllama
 *   <name>/adapter_config.json +   PEFT adapters (save_pretrained layout: the
 *   <name>/adapter_model.safetensors  tensor names, f32, {"format": "pt"} metadata
 *                                  and the config fields peft 0.21 writes that
 *                                  matter here; a real one is tests/data/lora/peft-real)
 *   <name>.safetensors             Fucina adapters (layers.<i>.<m>.lora_a / lora_b)
 *   base-hf.safetensors            the f32 base as a Hugging Face llama checkpoint
 *                                  (for the golden logits of scripts/gen_peft_fixture.py)
 * Values are seeded and deterministic; magnitudes keep the logits of order 1
 * and every adapter's delta comparable to the base weights, so merging changes
 * the logits visibly (the interop test's negative control needs that).
 * Usage: mk_lora_fixtures DIR   (DIR must exist). Exit 0 ok, 1 failure, 2 usage. */
#include "modelio.h"
#include "lora_fixtures.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static const char *g_dir;

static int fail(const char *what) {
    fprintf(stderr, "mk_lora_fixtures: %s: %s\n", what, mio_last_error());
    return 1;
}

/* ---- the base ---- */
#define MAX_T 32
typedef struct bt {
    char name[64];
    uint32_t n_dims;
    int64_t ne[2];
    float *f32;
    uint16_t *f16, *bf16;
    int matrix;
} bt;
static bt B[MAX_T];
static int n_b;

static void add_base(lf_rng *g, const char *name, int64_t ne0, int64_t ne1, double scale, int matrix) {
    bt *t = &B[n_b++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = ne1 ? 2 : 1;
    t->ne[0] = ne0;
    t->ne[1] = ne1 ? ne1 : 1;
    t->matrix = matrix;
    size_t n = (size_t)(t->ne[0] * t->ne[1]);
    t->f32 = (float *)malloc(n * sizeof(float));
    t->f16 = (uint16_t *)malloc(n * sizeof(uint16_t));
    t->bf16 = (uint16_t *)malloc(n * sizeof(uint16_t));
    for (size_t k = 0; k < n; k++) t->f32[k] = (float)(matrix ? scale * lf_uniform(g) : 1.0 + scale * lf_uniform(g));
    mio_encode_f32(MIO_TYPE_F16, t->f32, n, t->f16, n * 2);
    mio_encode_f32(MIO_TYPE_BF16, t->f32, n, t->bf16, n * 2);
}

static void build_base(void) {
    lf_rng g = {LF_BASE_SEED};
    char name[64];
    add_base(&g, "token_embd.weight", LF_EMBD, LF_VOCAB, 0.5, 1);
    for (int l = 0; l < LF_LAYER; l++) {
#define BLK(sfx, a, b, s, m) do { snprintf(name, sizeof name, "blk.%d." sfx ".weight", l); add_base(&g, name, a, b, s, m); } while (0)
        BLK("attn_norm", LF_EMBD, 0, 0.05, 0);
        BLK("attn_q", LF_EMBD, LF_EMBD, 0.08, 1);
        BLK("attn_k", LF_EMBD, LF_KV_DIM, 0.08, 1);
        BLK("attn_v", LF_EMBD, LF_KV_DIM, 0.08, 1);
        BLK("attn_output", LF_EMBD, LF_EMBD, 0.08, 1);
        BLK("ffn_norm", LF_EMBD, 0, 0.05, 0);
        BLK("ffn_gate", LF_EMBD, LF_FF, 0.08, 1);
        BLK("ffn_up", LF_EMBD, LF_FF, 0.08, 1);
        BLK("ffn_down", LF_FF, LF_EMBD, 0.08, 1);
#undef BLK
    }
    add_base(&g, "output_norm.weight", LF_EMBD, 0, 0.05, 0);
    add_base(&g, "output.weight", LF_EMBD, LF_VOCAB, 0.2, 1);
}

/* type: MIO_TYPE_F32, F16 or BF16 for the matrices (norms stay f32) */
static int write_base(const char *file, int type) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", g_dir, file);
    mio_writer *w = NULL;
    if (mio_writer_new(MIO_WRITER_DEFAULT, &w) != MIO_OK) return fail("mio_writer_new");
    int ok = 1;
#define S(k, v) ok &= mio_writer_set_str(w, k, v, strlen(v)) == MIO_OK
#define U(k, v) ok &= mio_writer_set_u32(w, k, v) == MIO_OK
    S("general.architecture", "llama");
    S("general.name", "libmodelio lora base");
    U("general.file_type", type == MIO_TYPE_F16 ? 1 : type == MIO_TYPE_BF16 ? 32 : 0); /* llama_ftype */
    U("llama.vocab_size", LF_VOCAB);
    U("llama.context_length", LF_CTX);
    U("llama.embedding_length", LF_EMBD);
    U("llama.feed_forward_length", LF_FF);
    U("llama.block_count", LF_LAYER);
    U("llama.attention.head_count", LF_HEAD);
    U("llama.attention.head_count_kv", LF_HEAD_KV);
    U("llama.rope.dimension_count", LF_HEAD_DIM);
    ok &= mio_writer_set_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f) == MIO_OK;
    S("tokenizer.ggml.model", "llama");
    /* <unk> <s> </s> <0x0A>, U+2581 (SentencePiece space), a..z, U+2581 a..z, 0..6 */
    static char toks[LF_VOCAB][16];
    const char *tp[LF_VOCAB];
    float scores[LF_VOCAB];
    int32_t ttype[LF_VOCAB];
    for (int k = 0; k < LF_VOCAB; k++) {
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
    ok &= mio_writer_set_arr_str(w, "tokenizer.ggml.tokens", tp, NULL, LF_VOCAB) == MIO_OK;
    ok &= mio_writer_set_arr(w, "tokenizer.ggml.scores", MIO_GGUF_F32, scores, LF_VOCAB) == MIO_OK;
    ok &= mio_writer_set_arr(w, "tokenizer.ggml.token_type", MIO_GGUF_I32, ttype, LF_VOCAB) == MIO_OK;
    U("tokenizer.ggml.unknown_token_id", 0);
    U("tokenizer.ggml.bos_token_id", 1);
    U("tokenizer.ggml.eos_token_id", 2);
#undef S
#undef U
    for (int i = 0; i < n_b && ok; i++) {
        size_t n = (size_t)(B[i].ne[0] * B[i].ne[1]);
        int t = B[i].matrix ? type : MIO_TYPE_F32;
        const void *d = t == MIO_TYPE_F16 ? (const void *)B[i].f16 : t == MIO_TYPE_BF16 ? (const void *)B[i].bf16
                                                                                         : (const void *)B[i].f32;
        ok &= mio_writer_add_tensor(w, B[i].name, t, B[i].n_dims, B[i].ne, d, n * (t == MIO_TYPE_F32 ? 4 : 2)) ==
              MIO_OK;
    }
    if (!ok || mio_writer_write_file(w, path) != MIO_OK) {
        int rc = fail(path);
        mio_writer_free(w);
        return rc;
    }
    mio_writer_free(w);
    return 0;
}

/* The f32 base in Hugging Face LlamaForCausalLM names and layout, for
 * scripts/gen_peft_fixture.py --hf-logits (transformers + peft compute the
 * golden logits from it): [out, in] row-major is the GGUF bytes, except that
 * q/k rows go back to HF order (GGUF row r is HF row lf_hf_row(r)). */
static int write_base_hf(const char *file) {
    static const char *const mod_hf[] = {"input_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                         "self_attn.o_proj", "post_attention_layernorm", "mlp.gate_proj",
                                         "mlp.up_proj", "mlp.down_proj"};
    mio_st_entry e[MAX_T];
    char names[MAX_T][96];
    uint64_t shapes[MAX_T][2];
    float *bufs[MAX_T];
    int nbuf = 0;
    for (int i = 0; i < n_b; i++) {
        const bt *t = &B[i];
        int l = -1, k = -1;
        if (strcmp(t->name, "token_embd.weight") == 0) snprintf(names[i], sizeof names[i], "model.embed_tokens.weight");
        else if (strcmp(t->name, "output_norm.weight") == 0) snprintf(names[i], sizeof names[i], "model.norm.weight");
        else if (strcmp(t->name, "output.weight") == 0) snprintf(names[i], sizeof names[i], "lm_head.weight");
        else {
            l = (int)strtol(t->name + 4, NULL, 10);
            k = (i - 1) % 9; /* blk tensors come in build_base's order, 9 per layer */
            snprintf(names[i], sizeof names[i], "model.layers.%d.%s.weight", l, mod_hf[k]);
        }
        const float *data = t->f32;
        int64_t nh = k == 1 ? LF_HEAD : k == 2 ? LF_HEAD_KV : 0;
        if (nh) {
            float *p = (float *)malloc((size_t)(t->ne[0] * t->ne[1]) * sizeof(float));
            for (int64_t r = 0; r < t->ne[1]; r++)
                memcpy(p + lf_hf_row(r, t->ne[1], nh) * t->ne[0], t->f32 + r * t->ne[0], (size_t)t->ne[0] * sizeof(float));
            bufs[nbuf++] = p;
            data = p;
        }
        shapes[i][0] = (uint64_t)(t->n_dims == 2 ? t->ne[1] : t->ne[0]);
        shapes[i][1] = (uint64_t)t->ne[0];
        e[i].name = names[i];
        e[i].dtype = MIO_ST_F32;
        e[i].n_dims = t->n_dims;
        e[i].shape = shapes[i];
        e[i].data = data;
        e[i].nbytes = (size_t)(t->ne[0] * t->ne[1]) * sizeof(float);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", g_dir, file);
    mio_st_meta meta = {"format", "pt"};
    int rc = mio_st_save_file(path, e, (size_t)n_b, &meta, 1) == MIO_OK ? 0 : fail(path);
    for (int k = 0; k < nbuf; k++) free(bufs[k]);
    return rc;
}

/* ---- adapters ---- */
static void json_pattern(FILE *fp, const char *key, const lf_pattern *p) {
    fprintf(fp, "  \"%s\": {", key);
    for (int k = 0; k < 3 && p[k].key; k++) fprintf(fp, "%s\n    \"%s\": %g", k ? "," : "", p[k].key, p[k].value);
    fprintf(fp, "%s},\n", p[0].key ? "\n  " : "");
}

/* adapter_config.json as peft's save_pretrained writes it (sorted keys, indent 2),
 * with the fields a LoRA merge reads plus the usual neighbours. */
static int write_config(const lf_adapter *a, const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/adapter_config.json", dir);
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "mk_lora_fixtures: %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(fp, "{\n");
    json_pattern(fp, "alpha_pattern", a->alpha_pattern);
    fprintf(fp, "  \"auto_mapping\": null,\n  \"base_model_name_or_path\": null,\n  \"bias\": \"none\",\n"
                "  \"fan_in_fan_out\": false,\n  \"inference_mode\": true,\n  \"init_lora_weights\": false,\n"
                "  \"layers_pattern\": null,\n  \"layers_to_transform\": null,\n  \"loftq_config\": {},\n");
    /* rsLoRA's alpha as a JSON float (4.0), the others as integers, as Python's json writes them */
    if (a->rslora) fprintf(fp, "  \"lora_alpha\": %.1f,\n", a->alpha);
    else fprintf(fp, "  \"lora_alpha\": %g,\n", a->alpha);
    fprintf(fp, "  \"lora_dropout\": 0.05,\n  \"megatron_config\": null,\n  \"megatron_core\": \"megatron.core\",\n"
                "  \"modules_to_save\": null,\n  \"peft_type\": \"LORA\",\n  \"r\": %d,\n", a->r);
    json_pattern(fp, "rank_pattern", a->rank_pattern);
    fprintf(fp, "  \"revision\": null,\n  \"target_modules\": [");
    int first = 1;
    for (int m = LF_NMOD - 1; m >= 0; m--) /* a set: any order; not the module order */
        if (a->targets & LF_BIT(m)) {
            fprintf(fp, "%s\n    \"%s\"", first ? "" : ",", LF_HF_SHORT[m]);
            first = 0;
        }
    fprintf(fp, "\n  ],\n  \"task_type\": \"CAUSAL_LM\",\n  \"use_dora\": false,\n  \"use_rslora\": %s\n}\n",
            a->rslora ? "true" : "false");
    if (fclose(fp) != 0) {
        fprintf(stderr, "mk_lora_fixtures: %s: write failed\n", path);
        return 1;
    }
    return 0;
}

#define MAX_E (2 * LF_LAYER * LF_NMOD)

static int write_adapter(const lf_adapter *a) {
    lf_rng g = {a->seed};
    mio_st_entry e[MAX_E];
    char names[MAX_E][128];
    uint64_t shapes[MAX_E][2];
    float *data[MAX_E];
    size_t n = 0;
    for (int l = 0; l < LF_LAYER; l++)
        for (int m = 0; m < LF_NMOD; m++) {
            if (!(a->targets & LF_BIT(m))) continue;
            int r = a->kind == LF_FUCINA ? a->r : lf_rank(a, l, m);
            double s = a->kind == LF_FUCINA ? a->alpha / a->r : lf_scale(a, l, m);
            int64_t in = lf_in(m), out = lf_out(m);
            /* A ~ U(-1,1)/sqrt(in), B ~ U(-1,1) * 0.3/(s sqrt(r)): s*B*A has entries of
             * about 0.1/sqrt(in), like the base's 0.08*U(-1,1) weights */
            double sa = 1.0 / sqrt((double)in), sb = 0.3 / (s * sqrt((double)r));
            for (int ab = 0; ab < 2; ab++) {
                uint64_t rows = ab == 0 ? (uint64_t)r : (uint64_t)out, cols = ab == 0 ? (uint64_t)in : (uint64_t)r;
                float *d = (float *)malloc(rows * cols * sizeof(float));
                for (uint64_t k = 0; k < rows * cols; k++) d[k] = (float)((ab == 0 ? sa : sb) * lf_uniform(&g));
                if (a->kind == LF_FUCINA)
                    snprintf(names[n], sizeof names[n], "layers.%d.%s.lora_%c", l, LF_FUC[m], ab == 0 ? 'a' : 'b');
                else
                    snprintf(names[n], sizeof names[n], "base_model.model.model.layers.%d.%s.lora_%c.weight", l, LF_HF[m],
                             ab == 0 ? 'A' : 'B');
                shapes[n][0] = rows;
                shapes[n][1] = cols;
                data[n] = d;
                e[n].name = names[n];
                e[n].dtype = MIO_ST_F32;
                e[n].n_dims = 2;
                e[n].shape = shapes[n];
                e[n].data = d;
                e[n].nbytes = (size_t)(rows * cols * sizeof(float));
                n++;
            }
        }
    char path[4096];
    int rc = 0;
    if (a->kind == LF_FUCINA) {
        snprintf(path, sizeof path, "%s/%s.safetensors", g_dir, a->name);
        if (mio_st_save_file(path, e, n, NULL, 0) != MIO_OK) rc = fail(path);
    } else {
        char dir[3072];
        snprintf(dir, sizeof dir, "%s/%s", g_dir, a->name);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "mk_lora_fixtures: mkdir %s: %s\n", dir, strerror(errno));
            rc = 1;
        }
        snprintf(path, sizeof path, "%s/adapter_model.safetensors", dir);
        mio_st_meta meta = {"format", "pt"};
        if (!rc && mio_st_save_file(path, e, n, &meta, 1) != MIO_OK) rc = fail(path);
        if (!rc) rc = write_config(a, dir);
    }
    for (size_t k = 0; k < n; k++) free(data[k]);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    build_base();
    int rc = write_base("base-f32.gguf", MIO_TYPE_F32);
    if (!rc) rc = write_base("base-f16.gguf", MIO_TYPE_F16);
    if (!rc) rc = write_base("base-bf16.gguf", MIO_TYPE_BF16);
    if (!rc) rc = write_base_hf("base-hf.safetensors");
    for (size_t k = 0; k < LF_N_ADAPTERS && !rc; k++)
        if (LF_ADAPTERS[k].kind != LF_PEFT_REAL && !LF_ADAPTERS[k].src) rc = write_adapter(&LF_ADAPTERS[k]);
    for (int i = 0; i < n_b; i++) {
        free(B[i].f32);
        free(B[i].f16);
        free(B[i].bf16);
    }
    return rc;
}
