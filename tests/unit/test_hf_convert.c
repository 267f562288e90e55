/* SPDX-License-Identifier: MIT */
/* test_hf_convert.c — mio_hf_convert on small checkpoint directories built
 * here (safetensors written with mio_st_save_file, a hand-written byte-level
 * BPE tokenizer.json): tensor names, order and types as convert_hf_to_gguf.py
 * writes them, the q/k row permutation checked row by row, the split layout,
 * the one pass to a preset, and one refusal per kind of bad input — each with
 * its message and an output directory that is still empty afterwards. (Byte
 * identity with the reference on real checkpoints is tools_hf_convert's job.) */
#include "modelio.h"
#include "modelio_inspect.h"
#include "test.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define H 8    /* hidden */
#define NH 2   /* heads: head_dim 4 */
#define NKV 1
#define FF 16
#define V 8    /* vocabulary */

static char g_root[256];

static void put_file(const char *dir, const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "wb");
    if (!fp) { T_CHECK(!"cannot write a fixture file"); return; }
    fputs(text, fp);
    fclose(fp);
}

static const char *k_tokenizer =
    "{\"version\":\"1.0\",\"added_tokens\":[],\"normalizer\":null,"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
    "\"post_processor\":null,\"decoder\":{\"type\":\"ByteLevel\"},"
    "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"byte_fallback\":false,"
    "\"vocab\":{\"a\":0,\"b\":1,\"c\":2,\"ab\":3,\"\\u0120\":4,\"d\":5,\"e\":6,\"f\":7},\"merges\":[\"a b\"]}}";

static void put_config(const char *dir, const char *arch, int vocab, const char *extra) {
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"architectures\":[\"%s\"],\"hidden_size\":%d,\"intermediate_size\":%d,\"num_hidden_layers\":1,"
             "\"num_attention_heads\":%d,\"num_key_value_heads\":%d,\"vocab_size\":%d,"
             "\"max_position_embeddings\":256,\"rms_norm_eps\":1e-05,\"rope_theta\":10000.0%s}",
             arch, H, FF, NH, NKV, vocab, extra ? extra : "");
    put_file(dir, "config.json", cfg);
}

/* element e of tensor t: distinct small values (t * 1000 + e) / 4096 */
static float val(int t, size_t e) { return (float)(t * 1000 + (int)e) / 4096.0f; }

typedef struct spec {
    const char *drop;      /* leave this tensor out */
    const char *extra;     /* add this tensor ([H] f32) */
    int embed_rows;        /* 0 = V */
    int dtype;             /* MIO_ST_F32 or MIO_ST_I64 for the extra tensor */
    int bf16;              /* every tensor BF16, with a signalling NaN (0x7f81) at element 1 of mlp.gate_proj */
} spec;

static void put_weights(const char *dir, const char *file, const spec *s) {
    static const struct { const char *name; int rows, cols; } k[] = {
        {"model.embed_tokens.weight", V, H}, {"lm_head.weight", V, H}, {"model.norm.weight", H, 0},
        {"model.layers.0.input_layernorm.weight", H, 0}, {"model.layers.0.post_attention_layernorm.weight", H, 0},
        {"model.layers.0.self_attn.q_proj.weight", NH * 4, H}, {"model.layers.0.self_attn.k_proj.weight", NKV * 4, H},
        {"model.layers.0.self_attn.v_proj.weight", NKV * 4, H}, {"model.layers.0.self_attn.o_proj.weight", H, NH * 4},
        {"model.layers.0.mlp.gate_proj.weight", FF, H}, {"model.layers.0.mlp.up_proj.weight", FF, H},
        {"model.layers.0.mlp.down_proj.weight", H, FF},
        {"model.layers.0.self_attn.rotary_emb.inv_freq", 2, 0},
    };
    enum { N = sizeof k / sizeof k[0] };
    mio_st_entry e[N + 1];
    uint64_t shapes[N + 1][2];
    float *data[N + 1] = {0};
    size_t n = 0;
    for (size_t i = 0; i < N; i++) {
        if (s && s->drop && strcmp(s->drop, k[i].name) == 0) continue;
        int rows = k[i].rows;
        if (i == 0 && s && s->embed_rows) rows = s->embed_rows;
        size_t cnt = (size_t)rows * (size_t)(k[i].cols ? k[i].cols : 1);
        data[n] = malloc(cnt * sizeof(float));
        for (size_t j = 0; j < cnt; j++) data[n][j] = val((int)i, j);
        bool bf = s && s->bf16;
        if (bf) { /* in place: the first half of the buffer */
            uint16_t *h = (uint16_t *)data[n];
            for (size_t j = 0; j < cnt; j++) h[j] = mio_f32_to_bf16(data[n][j]);
            if (strcmp(k[i].name, "model.layers.0.mlp.gate_proj.weight") == 0) h[1] = 0x7f81;
        }
        shapes[n][0] = (uint64_t)rows;
        shapes[n][1] = (uint64_t)k[i].cols;
        e[n] = (mio_st_entry){.name = k[i].name, .dtype = bf ? MIO_ST_BF16 : MIO_ST_F32, .n_dims = k[i].cols ? 2u : 1u,
                              .shape = shapes[n], .data = data[n], .nbytes = cnt * (bf ? 2u : sizeof(float))};
        n++;
    }
    if (s && s->extra) {
        data[n] = calloc(H, sizeof(double));
        shapes[n][0] = H;
        e[n] = (mio_st_entry){.name = s->extra, .dtype = s->dtype ? s->dtype : MIO_ST_F32, .n_dims = 1,
                              .shape = shapes[n], .data = data[n],
                              .nbytes = H * (s->dtype == MIO_ST_I64 ? 8u : 4u)};
        n++;
    }
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    T_OK(mio_st_save_file(p, e, n, NULL, 0));
    for (size_t i = 0; i < n; i++) free(data[i]);
}

static void make_model(const char *name, char *dir, size_t dn, const spec *s) {
    snprintf(dir, dn, "%s/%s", g_root, name);
    mkdir(dir, 0755);
    put_config(dir, "LlamaForCausalLM", V, NULL);
    put_file(dir, "tokenizer.json", k_tokenizer);
    put_weights(dir, "model.safetensors", s);
}

static int dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static mio_hf_params params(void) {
    mio_hf_params p;
    mio_hf_default_params(&p);
    p.pre = "llama-bpe"; /* the hand-made tokenizer matches no known configuration */
    p.n_threads = 1;
    return p;
}

/* the conversion fails with st, the message holds msg, and out/ stays empty */
static void expect_refusal(const char *dir, mio_status st, const char *msg) {
    char out[512];
    snprintf(out, sizeof out, "%s/out", g_root);
    mkdir(out, 0755);
    mio_hf_params p = params();
    char *written = (char *)1;
    T_STATUS(mio_hf_convert(dir, out, &p, &written), st);
    T_MSG_HAS(msg);
    T_CHECK(written == NULL);
    T_EQ_INT(dir_entries(out), 0);
}

static uint16_t f16_at(const mio_gguf_file *f, const char *name, size_t e) {
    int64_t i = mio_gguf_find_tensor(f, name);
    mio_gguf_tensor t;
    if (i < 0 || mio_gguf_tensor_info(f, i, &t) != MIO_OK) return 0xffff;
    uint16_t h;
    memcpy(&h, (const uint8_t *)t.data + 2 * e, 2);
    return h;
}

static void test_layout(void) {
    char dir[512], out[600];
    make_model("tiny", dir, sizeof dir, NULL);
    snprintf(out, sizeof out, "%s/tiny-{ftype}.gguf", g_root);
    mio_hf_params p = params();
    char *written = NULL;
    T_OK(mio_hf_convert(dir, out, &p, &written));
    char want[600];
    snprintf(want, sizeof want, "%s/tiny-f16.gguf", g_root); /* auto over F32 weights is F16 */
    T_EQ_STR(written, want);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(want, 0, &f));
    if (!f) return;
    /* the reference's order: sorted by HF name, inv_freq dropped */
    static const char *const order[] = {
        "output.weight", "token_embd.weight", "blk.0.attn_norm.weight", "blk.0.ffn_down.weight",
        "blk.0.ffn_gate.weight", "blk.0.ffn_up.weight", "blk.0.ffn_norm.weight", "blk.0.attn_k.weight",
        "blk.0.attn_output.weight", "blk.0.attn_q.weight", "blk.0.attn_v.weight", "output_norm.weight"};
    T_EQ_INT(mio_gguf_tensor_count(f), 12);
    for (int64_t i = 0; i < 12 && i < mio_gguf_tensor_count(f); i++) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, i, &t));
        T_EQ_MSTR(t.name, order[i]);
        /* norms (and every 1-D tensor) F32, the matrices F16 */
        T_EQ_INT(t.type, strstr(order[i], "norm") ? MIO_TYPE_F32 : MIO_TYPE_F16);
    }
    /* q: 8 rows, 2 heads of 4 = (2, 2) halves interleaved: output row r is source
     * row [0, 2, 1, 3, 4, 6, 5, 7][r]; q_proj is tensor 5 of the list above */
    static const int src_row[8] = {0, 2, 1, 3, 4, 6, 5, 7};
    for (int r = 0; r < 8; r++)
        T_EQ_INT(f16_at(f, "blk.0.attn_q.weight", (size_t)r * H), mio_f32_to_fp16(val(5, (size_t)src_row[r] * H)));
    /* k: one kv head of 4 rows: [0, 2, 1, 3] */
    T_EQ_INT(f16_at(f, "blk.0.attn_k.weight", 1 * H), mio_f32_to_fp16(val(6, 2 * H)));
    /* v is not permuted */
    T_EQ_INT(f16_at(f, "blk.0.attn_v.weight", 1 * H), mio_f32_to_fp16(val(7, 1 * H)));
    int64_t k = mio_gguf_find_key(f, "llama.rope.dimension_count");
    uint64_t u = 0;
    T_OK(mio_gguf_kv_u64(f, k, &u));
    T_EQ_U64(u, 4);
    k = mio_gguf_find_key(f, "general.file_type");
    T_OK(mio_gguf_kv_u64(f, k, &u));
    T_EQ_U64(u, 1); /* MOSTLY_F16 */
    T_EQ_INT(mio_gguf_kv_type(f, mio_gguf_find_key(f, "llama.attention.layer_norm_rms_epsilon")), MIO_GGUF_F32);
    mio_gguf_close(f);
    mio_free(written);

    /* q8_0 needs rows of 32: every matrix here has 8 or 16 columns, so the
     * reference's fallback gives F16 (and F32 for 1-D) */
    p.outtype = MIO_TYPE_Q8_0;
    snprintf(out, sizeof out, "%s/tiny-q8.gguf", g_root);
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    T_OK(mio_gguf_open(out, 0, &f));
    if (f) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.ffn_gate.weight"), &t));
        T_EQ_INT(t.type, MIO_TYPE_F16);
        T_OK(mio_gguf_kv_u64(f, mio_gguf_find_key(f, "general.file_type"), &u));
        T_EQ_U64(u, 7); /* MOSTLY_Q8_0 all the same */
        mio_gguf_close(f);
    }
}

static void test_split_and_dry_run(void) {
    char dir[512], out[600];
    snprintf(dir, sizeof dir, "%s/tiny", g_root);
    mio_hf_params p = params();
    p.split_max_tensors = 5;
    snprintf(out, sizeof out, "%s/sp.gguf", g_root);
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    /* 12 tensors, 5 a file: 5 + 5 + 2 */
    static const int counts[3] = {5, 5, 2};
    for (int i = 0; i < 3; i++) {
        char part[640];
        snprintf(part, sizeof part, "%s/sp-%05d-of-00003.gguf", g_root, i + 1);
        mio_gguf_file *f = NULL;
        T_OK(mio_gguf_open(part, 0, &f));
        if (!f) continue;
        T_EQ_INT(mio_gguf_tensor_count(f), counts[i]);
        int64_t k = mio_gguf_find_key(f, "split.count");
        T_EQ_INT(mio_gguf_kv_type(f, k), MIO_GGUF_U16);
        T_EQ_INT(mio_gguf_kv_type(f, mio_gguf_find_key(f, "split.tensors.count")), MIO_GGUF_I32);
        /* gguf-py: the parts after the first hold only the three split keys */
        if (i > 0) T_EQ_INT(mio_gguf_kv_count(f), 3);
        else T_CHECK(mio_gguf_kv_count(f) > 3);
        /* appended last, in gguf-py's order: split.no, split.count, split.tensors.count */
        T_EQ_MSTR(mio_gguf_kv_key(f, mio_gguf_kv_count(f) - 3), "split.no");
        T_EQ_MSTR(mio_gguf_kv_key(f, mio_gguf_kv_count(f) - 1), "split.tensors.count");
        mio_gguf_close(f);
    }
    /* a dry run writes nothing */
    char ddir[600];
    snprintf(ddir, sizeof ddir, "%s/dry", g_root);
    mkdir(ddir, 0755);
    p = params();
    p.dry_run = 1;
    char *written = (char *)1;
    T_OK(mio_hf_convert(dir, ddir, &p, &written));
    T_CHECK(written == NULL);
    T_EQ_INT(dir_entries(ddir), 0);
}

static int cancel_at_3(void *u, int64_t done, int64_t total, uint64_t b, uint64_t bt) {
    (void)u, (void)total, (void)b, (void)bt;
    return done >= 3;
}

static void test_preset_and_cancel(void) {
    char dir[512], a[600], b[600], q[600];
    snprintf(dir, sizeof dir, "%s/tiny", g_root);
    snprintf(a, sizeof a, "%s/auto.gguf", g_root);
    snprintf(b, sizeof b, "%s/onepass.gguf", g_root);
    snprintf(q, sizeof q, "%s/twopass.gguf", g_root);
    mio_hf_params p = params();
    T_OK(mio_hf_convert(dir, a, &p, NULL));
    mio_quantize_params qp;
    mio_quantize_default_params(&qp);
    qp.preset = MIO_PRESET_Q8_0;
    qp.n_threads = 1;
    T_OK(mio_quantize(a, q, &qp));
    p.preset = MIO_PRESET_Q8_0;
    T_OK(mio_hf_convert(dir, b, &p, NULL));
    /* the same bytes as converting, then quantizing */
    FILE *x = fopen(q, "rb"), *y = fopen(b, "rb");
    int same = x && y;
    for (int cx = 0, cy = 0; same && cx != EOF;) {
        cx = fgetc(x), cy = fgetc(y);
        same = cx == cy;
    }
    if (x) fclose(x);
    if (y) fclose(y);
    T_CHECK(same);
    /* an output naming an input shard is refused before anything is written,
     * also with a preset (the input was read whole before mio_quantize writes) */
    {
        char shard[600];
        snprintf(shard, sizeof shard, "%s/model.safetensors", dir);
        struct stat before, after;
        stat(shard, &before);
        T_STATUS(mio_hf_convert(dir, shard, &p, NULL), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("is the input shard model.safetensors");
        stat(shard, &after);
        T_EQ_U64(after.st_ino, before.st_ino);
        T_EQ_U64(after.st_size, before.st_size);
    }
    /* refusals of combinations */
    p.outtype = MIO_TYPE_F16;
    T_STATUS(mio_hf_convert(dir, b, &p, NULL), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("outtype must be auto");
    /* cancelled by the progress callback: nothing left */
    char cdir[600];
    snprintf(cdir, sizeof cdir, "%s/cancel", g_root);
    mkdir(cdir, 0755);
    p = params();
    p.progress = cancel_at_3;
    T_STATUS(mio_hf_convert(dir, cdir, &p, NULL), MIO_ERR_CANCELLED);
    T_EQ_INT(dir_entries(cdir), 0);
}

/* NaN payloads as the reference writes them: BF16 -> BF16 quiets a
 * signalling NaN (0x7f81 -> 0x7fc1, gguf-py's f32 -> bf16); BF16 -> F16 goes
 * through f32 0x7f810000 and numpy's astype keeps the payload's top bits
 * (0x7c08, where ggml's conversion would give 0x7e00) */
static void test_nan_payloads(void) {
    char dir[512], out[600];
    spec s = {.bf16 = 1};
    make_model("nan", dir, sizeof dir, &s);
    mio_hf_params p = params();
    snprintf(out, sizeof out, "%s/nan-auto.gguf", g_root);
    T_OK(mio_hf_convert(dir, out, &p, NULL)); /* auto over BF16 weights: bf16 */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(out, 0, &f));
    if (f) {
        T_EQ_INT(f16_at(f, "blk.0.ffn_gate.weight", 1), 0x7fc1);
        T_EQ_INT(f16_at(f, "blk.0.ffn_gate.weight", 2), mio_f32_to_bf16(val(9, 2)));
        mio_gguf_close(f);
    }
    p.outtype = MIO_TYPE_F16;
    snprintf(out, sizeof out, "%s/nan-f16.gguf", g_root);
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    T_OK(mio_gguf_open(out, 0, &f));
    if (f) {
        T_EQ_INT(f16_at(f, "blk.0.ffn_gate.weight", 1), 0x7c08);
        mio_gguf_close(f);
    }
}

/* a class's own keys (the arch table's .keys) and a key its config class
 * ignores (hparams.c's K_DROP), on GraniteForCausalLM: a multiplier of 0 is not
 * written (the reference's `if v := hparams.get(k)`), an absent one is
 * GraniteConfig's default 1.0, head_dim is popped (no key_length) */
static void test_class_keys(void) {
    char dir[512], out[600];
    snprintf(dir, sizeof dir, "%s/granite", g_root);
    mkdir(dir, 0755);
    put_config(dir, "GraniteForCausalLM", V,
               ",\"model_type\":\"granite\",\"attention_multiplier\":0.25,\"embedding_multiplier\":0,"
               "\"logits_scaling\":8,\"head_dim\":4");
    put_file(dir, "tokenizer.json", k_tokenizer);
    put_weights(dir, "model.safetensors", NULL);
    snprintf(out, sizeof out, "%s/granite.gguf", g_root);
    mio_hf_params p = params();
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(out, 0, &f));
    if (!f) return;
    double d = 0;
    T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "granite.attention.scale"), &d));
    T_CHECK(d == 0.25);
    T_CHECK(mio_gguf_find_key(f, "granite.embedding_scale") < 0);
    T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "granite.residual_scale"), &d));
    T_CHECK(d == 1.0);
    T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "granite.logit_scale"), &d));
    T_CHECK(d == 8.0);
    T_CHECK(mio_gguf_find_key(f, "granite.attention.key_length") < 0);
    /* the class keys come after the common ones: logit_scale is the last granite.* key */
    int64_t last = -1;
    for (int64_t i = 0; i < mio_gguf_kv_count(f); i++) {
        mio_str k = mio_gguf_kv_key(f, i);
        if (k.len > 8 && memcmp(k.ptr, "granite.", 8) == 0) last = i;
    }
    T_CHECK(last == mio_gguf_find_key(f, "granite.logit_scale"));
    T_EQ_INT(mio_gguf_find_key(f, "granite.attention.scale") > mio_gguf_find_key(f, "granite.rope.dimension_count"), 1);
    mio_gguf_close(f);
}

/* Qwen2Model._try_set_pooling_type: the sentence-transformers pooling module
 * (modules.json -> 1_Pooling/config.json) and classifier_pooling become keys
 * after the common ones; a mode llama.cpp lacks, or a module path outside the
 * checkpoint, is refused before any output exists */
static void test_pooling(void) {
    char dir[512], out[600], pool[600];
    snprintf(dir, sizeof dir, "%s/pooling", g_root);
    mkdir(dir, 0755);
    put_config(dir, "Qwen2ForCausalLM", V, ",\"classifier_pooling\":\"cls\"");
    put_file(dir, "tokenizer.json", k_tokenizer);
    put_weights(dir, "model.safetensors", NULL);
    snprintf(pool, sizeof pool, "%s/1_Pooling", dir);
    mkdir(pool, 0755);
    put_file(dir, "modules.json", "[{\"idx\":0,\"path\":\"\",\"type\":\"sentence_transformers.models.Transformer\"},"
                                  "{\"idx\":1,\"path\":\"1_Pooling\",\"type\":\"sentence_transformers.models.Pooling\"}]");
    put_file(pool, "config.json", "{\"pooling_mode_cls_token\":false,\"pooling_mode_mean_tokens\":true}");
    snprintf(out, sizeof out, "%s/pooling.gguf", g_root);
    mio_hf_params p = params();
    p.pre = "qwen2";
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(out, 0, &f));
    if (f) {
        uint64_t u = 0;
        int64_t k = mio_gguf_find_key(f, "qwen2.pooling_type");
        T_OK(mio_gguf_kv_u64(f, k, &u));
        T_EQ_U64(u, 1); /* MEAN */
        T_OK(mio_gguf_kv_u64(f, mio_gguf_find_key(f, "qwen2.classifier.pooling_type"), &u));
        T_EQ_U64(u, 2); /* CLS */
        /* right after the common keys: TextModel's last one here is general.file_type */
        T_EQ_INT(k, mio_gguf_find_key(f, "general.file_type") + 1);
        mio_gguf_close(f);
    }
    unlink(out);
    put_file(pool, "config.json", "{\"pooling_mode_max_tokens\":true}");
    expect_refusal(dir, MIO_ERR_UNSUPPORTED, "1_Pooling/config.json: a pooling mode other than mean, cls and lasttoken");
    put_file(dir, "modules.json", "[{\"path\":\"../1_Pooling\",\"type\":\"sentence_transformers.models.Pooling\"}]");
    expect_refusal(dir, MIO_ERR_INVALID_JSON, "modules.json: the pooling module's path is not a folder inside the checkpoint");
}

/* the table, through the public listing call */
static void test_architectures(void) {
    static const char *const want[][2] = {{"LlamaForCausalLM", "llama"}, {"LLaMAForCausalLM", "llama"},
                                          {"MistralForCausalLM", "llama"}, {"Qwen2ForCausalLM", "qwen2"},
                                          {"Qwen3ForCausalLM", "qwen3"},   {"Qwen3Model", "qwen3"}, {"Olmo2ForCausalLM", "olmo2"},
                                          {"SmolLM3ForCausalLM", "smollm3"},
                                          {"GraniteForCausalLM", "granite"}, {"Starcoder2ForCausalLM", "starcoder2"},
                                          {"Gemma3ForCausalLM", "gemma3"}, {"Gemma3ForConditionalGeneration", "gemma3"},
                                          {"BertModel", "bert"}, {"Phi3ForCausalLM", "phi3"},
                                          {"MixtralForCausalLM", "llama"}, {"Qwen2MoeForCausalLM", "qwen2moe"},
                                          {"Qwen3MoeForCausalLM", "qwen3moe"}, {"GptOssForCausalLM", "gpt-oss"},
                                          {"DeepseekV3ForCausalLM", "deepseek2"}};
    int n = 0;
    const char *g = "x";
    while (mio_hf_architecture(n, NULL)) n++;
    T_EQ_INT(n, 19);
    for (int i = 0; i < n && i < 19; i++) {
        T_EQ_STR(mio_hf_architecture(i, &g), want[i][0]);
        T_EQ_STR(g, want[i][1]);
    }
    T_CHECK(mio_hf_architecture(19, &g) == NULL && g == NULL);
    g = "x";
    T_CHECK(mio_hf_architecture(-1, &g) == NULL && g == NULL);
}

static void test_refusals(void) {
    char dir[512];
    /* no config.json */
    snprintf(dir, sizeof dir, "%s/noconfig", g_root);
    mkdir(dir, 0755);
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "config.json");
    /* config.json that is not JSON */
    put_file(dir, "config.json", "{\"architectures\": [\"LlamaForCausalLM\"],");
    expect_refusal(dir, MIO_ERR_INVALID_JSON, "config.json: not valid JSON");
    /* an architecture outside the table: named, with the supported ones */
    put_config(dir, "GPT2LMHeadModel", V, NULL);
    expect_refusal(dir, MIO_ERR_UNSUPPORTED,
                   "config.json: architecture GPT2LMHeadModel is not one this converter knows (mio-convert-hf "
                   "--list-architectures lists the classes it converts)");
    /* a model_type whose transformers defaults are not known: the reference's
     * hyperparameters would come from another config class */
    put_config(dir, "LlamaForCausalLM", V, ",\"model_type\":\"gpt2\"");
    expect_refusal(dir, MIO_ERR_UNSUPPORTED, "model_type \"gpt2\" is not one this converter knows");
    /* only pickled weights */
    put_config(dir, "LlamaForCausalLM", V, NULL);
    put_file(dir, "pytorch_model.bin", "PK");
    expect_refusal(dir, MIO_ERR_UNSUPPORTED, "pytorch_model*.bin");
    /* no weights at all */
    {
        char b[600];
        snprintf(b, sizeof b, "%s/pytorch_model.bin", dir);
        unlink(b);
    }
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "no model weights");

    spec s = {.extra = "model.layers.0.self_attn.q_norm.weight"};
    make_model("unexpected", dir, sizeof dir, &s);
    expect_refusal(dir, MIO_ERR_UNSUPPORTED, "tensor model.layers.0.self_attn.q_norm.weight is not a tensor of LlamaForCausalLM");
    s = (spec){.drop = "model.layers.0.mlp.down_proj.weight"};
    make_model("missing", dir, sizeof dir, &s);
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "tensor model.layers.0.mlp.down_proj.weight is missing");
    s = (spec){.drop = "lm_head.weight"};
    make_model("nohead", dir, sizeof dir, &s);
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "lm_head.weight is missing (config.json does not set tie_word_embeddings)");
    s = (spec){.embed_rows = V + 1};
    make_model("shape", dir, sizeof dir, &s);
    expect_refusal(dir, MIO_ERR_SIZE_MISMATCH, "tensor model.embed_tokens.weight has shape [9, 8], config.json implies [8, 8]");
    s = (spec){.extra = "model.layers.0.self_attn.q_proj.bias", .dtype = MIO_ST_I64};
    make_model("dtype", dir, sizeof dir, &s);
    expect_refusal(dir, MIO_ERR_UNSUPPORTED_TYPE, "tensor model.layers.0.self_attn.q_proj.bias is I64");

    /* a sharded index naming a missing shard */
    make_model("sharded", dir, sizeof dir, NULL);
    put_file(dir, "model.safetensors.index.json",
             "{\"metadata\":{},\"weight_map\":{\"lm_head.weight\":\"model-00002-of-00002.safetensors\"}}");
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "names shard model-00002-of-00002.safetensors, which is missing");
    /* a truncated shard */
    make_model("truncated", dir, sizeof dir, NULL);
    {
        char b[600];
        snprintf(b, sizeof b, "%s/model.safetensors", dir);
        struct stat sb;
        stat(b, &sb);
        T_CHECK(truncate(b, sb.st_size - 100) == 0);
    }
    expect_refusal(dir, MIO_ERR_INCOMPLETE_BUFFER, "model.safetensors");
    /* no tokenizer */
    make_model("notok", dir, sizeof dir, NULL);
    {
        char b[600];
        snprintf(b, sizeof b, "%s/tokenizer.json", dir);
        unlink(b);
    }
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "tokenizer");
}

/* dir/model.safetensors from the entries, whose data (malloc()ed) is freed */
static void save_st(const char *dir, const mio_st_entry *e, size_t n) {
    char p[600];
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    T_OK(mio_st_save_file(p, e, n, NULL, 0));
    for (size_t i = 0; i < n; i++) free((void *)e[i].data);
}

/* ------------------------------------------------------------ experts */

#define NE 4  /* experts */
#define FE 8  /* an expert's feed-forward length */

typedef struct moe_spec {
    const char *drop;   /* leave this tensor out */
    const char *odd;    /* this tensor gets FE + 1 rows (a shape config.json contradicts) */
    const char *bf16;   /* this tensor is BF16, the rest F32 */
    int config_experts; /* num_experts in config.json (0: NE) */
    const char *extra;  /* more config.json keys (",\"k\":v") */
} moe_spec;

/* A one-block Qwen3-MoE checkpoint: NE experts of gate/up/down [FE, H] / [H, FE],
 * expert e's element j = (100 * e + j) / 4096 (gate), + 1/8 (up), + 1/4 (down). */
static void make_moe(const char *name, char *dir, size_t dn, const moe_spec *m) {
    snprintf(dir, dn, "%s/%s", g_root, name);
    mkdir(dir, 0755);
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"hidden_size\":%d,\"intermediate_size\":%d,"
             "\"moe_intermediate_size\":%d,\"num_experts\":%d,\"num_experts_per_tok\":2,\"num_hidden_layers\":1,"
             "\"num_attention_heads\":%d,\"num_key_value_heads\":%d,\"head_dim\":4,\"vocab_size\":%d,"
             "\"max_position_embeddings\":256,\"rms_norm_eps\":1e-05,\"rope_theta\":10000.0%s}",
             H, FF, FE, m && m->config_experts ? m->config_experts : NE, NH, NKV, V, m && m->extra ? m->extra : "");
    put_file(dir, "config.json", cfg);
    put_file(dir, "tokenizer.json", k_tokenizer);
    enum { MAXT = 16 + 3 * NE };
    struct { char name[96]; int rows, cols; float base; } k[MAXT];
    size_t nk = 0;
#define ADD(nm, r, c_, b) (snprintf(k[nk].name, sizeof k[nk].name, "%s", nm), k[nk].rows = r, k[nk].cols = c_, k[nk].base = b, nk++)
    ADD("model.embed_tokens.weight", V, H, 0);
    ADD("lm_head.weight", V, H, 0);
    ADD("model.norm.weight", H, 0, 0);
    ADD("model.layers.0.input_layernorm.weight", H, 0, 0);
    ADD("model.layers.0.post_attention_layernorm.weight", H, 0, 0);
    ADD("model.layers.0.self_attn.q_proj.weight", NH * 4, H, 0);
    ADD("model.layers.0.self_attn.k_proj.weight", NKV * 4, H, 0);
    ADD("model.layers.0.self_attn.v_proj.weight", NKV * 4, H, 0);
    ADD("model.layers.0.self_attn.o_proj.weight", H, NH * 4, 0);
    ADD("model.layers.0.self_attn.q_norm.weight", 4, 0, 0);
    ADD("model.layers.0.self_attn.k_norm.weight", 4, 0, 0);
    ADD("model.layers.0.mlp.gate.weight", NE, H, 0);
    for (int e = 0; e < NE; e++) {
        char nm[96];
        snprintf(nm, sizeof nm, "model.layers.0.mlp.experts.%d.gate_proj.weight", e);
        ADD(nm, FE, H, (float)(100 * e) / 4096.0f);
        snprintf(nm, sizeof nm, "model.layers.0.mlp.experts.%d.up_proj.weight", e);
        ADD(nm, FE, H, (float)(100 * e) / 4096.0f + 0.125f);
        snprintf(nm, sizeof nm, "model.layers.0.mlp.experts.%d.down_proj.weight", e);
        ADD(nm, H, FE, (float)(100 * e) / 4096.0f + 0.25f);
    }
#undef ADD
    mio_st_entry e[MAXT];
    uint64_t shapes[MAXT][2];
    float *data[MAXT] = {0};
    size_t n = 0;
    for (size_t i = 0; i < nk; i++) {
        if (m && m->drop && strcmp(m->drop, k[i].name) == 0) continue;
        int rows = k[i].rows + (m && m->odd && strcmp(m->odd, k[i].name) == 0);
        size_t cnt = (size_t)rows * (size_t)(k[i].cols ? k[i].cols : 1);
        data[n] = malloc(cnt * sizeof(float));
        for (size_t j = 0; j < cnt; j++) data[n][j] = k[i].base ? k[i].base + (float)j / 4096.0f : val((int)i, j);
        bool bf = m && m->bf16 && strcmp(m->bf16, k[i].name) == 0;
        if (bf) {
            uint16_t *h = (uint16_t *)data[n];
            for (size_t j = 0; j < cnt; j++) h[j] = mio_f32_to_bf16(data[n][j]);
        }
        shapes[n][0] = (uint64_t)rows;
        shapes[n][1] = (uint64_t)k[i].cols;
        e[n] = (mio_st_entry){.name = k[i].name, .dtype = bf ? MIO_ST_BF16 : MIO_ST_F32, .n_dims = k[i].cols ? 2u : 1u,
                              .shape = shapes[n], .data = data[n], .nbytes = cnt * (bf ? 2u : sizeof(float))};
        n++;
    }
    save_st(dir, e, n);
}

static void test_experts(void) {
    char dir[512], out[600];
    make_moe("moe", dir, sizeof dir, NULL);
    snprintf(out, sizeof out, "%s/moe.gguf", g_root);
    mio_hf_params p = params();
    p.outtype = MIO_TYPE_F32;
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(out, MIO_OPEN_MMAP, &f));
    if (!f) return;
    /* the three stacks, in Qwen2MoeModel's order, one after the other */
    int64_t down = mio_gguf_find_tensor(f, "blk.0.ffn_down_exps.weight");
    T_CHECK(down >= 0);
    T_EQ_INT(mio_gguf_find_tensor(f, "blk.0.ffn_gate_exps.weight"), down + 1);
    T_EQ_INT(mio_gguf_find_tensor(f, "blk.0.ffn_up_exps.weight"), down + 2);
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.ffn_up_exps.weight"), &t));
    T_EQ_INT(t.n_dims, 3);
    T_EQ_INT(t.ne[0], H);
    T_EQ_INT(t.ne[1], FE);
    T_EQ_INT(t.ne[2], NE);
    /* expert 2, row 3, column 5 of up: (200 + 3 * H + 5) / 4096 + 1/8 */
    float v;
    memcpy(&v, (const uint8_t *)t.data + 4 * ((size_t)2 * FE * H + 3 * H + 5), 4);
    T_CHECK(v == (float)(200) / 4096.0f + 0.125f + (float)(3 * H + 5) / 4096.0f);
    T_OK(mio_gguf_tensor_info(f, down, &t));
    T_EQ_INT(t.ne[0], FE);
    T_EQ_INT(t.ne[1], H);
    memcpy(&v, (const uint8_t *)t.data + 4 * ((size_t)3 * FE * H + 7), 4); /* expert 3, element 7 */
    T_CHECK(v == (float)(300) / 4096.0f + 0.25f + 7.0f / 4096.0f);
    /* the router stays F32 whatever the file type; the keys */
    int64_t kx = mio_gguf_find_key(f, "qwen3moe.expert_count");
    T_CHECK(kx >= 0);
    uint64_t u = 0;
    if (kx >= 0) {
        T_EQ_INT(mio_gguf_kv_type(f, kx), MIO_GGUF_U32);
        T_OK(mio_gguf_kv_u64(f, kx, &u));
        T_EQ_INT(u, NE);
    }
    kx = mio_gguf_find_key(f, "qwen3moe.expert_feed_forward_length");
    T_CHECK(kx >= 0);
    if (kx >= 0) {
        T_OK(mio_gguf_kv_u64(f, kx, &u));
        T_EQ_INT(u, FE);
    }
    mio_gguf_close(f);
    /* what mio-inspect says of it: 3 stacks of 4 experts of 8 x 8 = 768 expert parameters, 2 of 4 used */
    mio_model *mm = NULL;
    T_OK(mio_model_open(out, &mm));
    if (mm) {
        mio_model_summary sm;
        mio_model_experts x;
        T_OK(mio_model_summary_get(mm, &sm));
        T_OK(mio_model_experts_get(mm, &x, sizeof x));
        T_EQ_INT(x.n_expert, NE);
        T_EQ_INT(x.n_expert_used, 2);
        T_EQ_INT(x.n_layer_moe, 1);
        T_EQ_INT(x.n_params, sm.n_params);
        T_EQ_INT(x.n_params_expert, 3 * NE * FE * H);
        T_EQ_INT(x.n_params_active, sm.n_params - 3 * NE * FE * H + 3 * 2 * FE * H);
        mio_model_close(mm);
    }
    char *text = NULL;
    size_t tl = 0;
    T_OK(mio_describe_text(out, 0, &text, &tl));
    T_CHECK(text && strstr(text, "experts:       4 a block, 2 used per token; in 1 block\n"));
    /* the model first, then the container (gguf-parser-go's MODEL table's facts) */
    T_CHECK(text && strncmp(text, "architecture:  qwen3moe\n", 24) == 0);
    T_CHECK(text && strstr(text, "file type:     F32 (0)\nbits/weight:   32.00\ncontext:       256\nlayers:        1\n"
                                 "heads:         2 (1 key-value)\nembedding:     8\nvocabulary:    8 (tokenizer gpt2)\n\n"
                                 "file:          "));
    mio_free(text);
    T_OK(mio_describe_json(out, 0, &text, &tl));
    T_CHECK(text && strstr(text, "\t\"model\":\t{\n\t\t\"architecture\":\t\"qwen3moe\",\n"));
    T_CHECK(text && strstr(text, "\"file_type_name\":\t\"F32\""));
    T_CHECK(text && strstr(text, "\t\"experts\":\t{\n\t\t\"count\":\t4,\n\t\t\"used\":\t2,"));
    mio_free(text);
    p.outtype = MIO_TYPE_Q8_0;
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    T_OK(mio_gguf_open(out, MIO_OPEN_MMAP, &f));
    if (f) {
        T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.ffn_gate_inp.weight"), &t));
        T_EQ_INT(t.type, MIO_TYPE_F32);
        /* rows of 8: not whole Q8_0 blocks, F16 as gguf-py falls back */
        T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.ffn_gate_exps.weight"), &t));
        T_EQ_INT(t.type, MIO_TYPE_F16);
        mio_gguf_close(f);
    }
    unlink(out);

    /* refusals: named, before any output exists */
    moe_spec m = {.drop = "model.layers.0.mlp.experts.2.up_proj.weight"};
    make_moe("moe-missing", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_NOT_FOUND,
                   "tensor model.layers.0.mlp.experts.2.up_proj.weight is missing (Qwen3MoeForCausalLM, 4 experts in "
                   "config.json)");
    m = (moe_spec){.config_experts = 3};
    make_moe("moe-count", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_SIZE_MISMATCH,
                   "tensor model.layers.0.mlp.experts.3.down_proj.weight is expert 3, but config.json gives 3 experts");
    m = (moe_spec){.odd = "model.layers.0.mlp.experts.1.gate_proj.weight"};
    make_moe("moe-shape", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_SIZE_MISMATCH,
                   "tensor model.layers.0.mlp.experts.1.gate_proj.weight has shape [9, 8], config.json implies [8, 8]");
    m = (moe_spec){.extra = ",\"mlp_only_layers\":[0]"};
    make_moe("moe-dense", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_UNSUPPORTED, "mlp_only_layers / decoder_sparse_step make block 0 a dense block, but "
                   "Qwen3MoeForCausalLM has experts in every block in llama.cpp's qwen3moe");
    m = (moe_spec){.bf16 = "model.layers.0.mlp.experts.3.gate_proj.weight"};
    make_moe("moe-dtype", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_UNSUPPORTED_TYPE,
                   "expert tensors model.layers.0.mlp.experts.0.gate_proj.weight (F32) and "
                   "model.layers.0.mlp.experts.3.gate_proj.weight (BF16) of one stack have different types");
}

/* ------------------------------------------------------------ MXFP4 */

typedef struct mx_spec {
    const char *drop;    /* leave this tensor out */
    int bad_scales;      /* the gate_up scales get 2 blocks a row (the blocks have 1) */
    int no_quant_config; /* config.json without quantization_config */
} mx_spec;

/* A one-block gpt-oss checkpoint in the Hub's MXFP4 form: hidden 32, ff 32, 2
 * experts; blocks byte j of (expert e, row r) = 16 r + j + 7 e, scales 120 + r % 5 + e. */
static void make_gptoss_mx(const char *name, char *dir, size_t dn, const mx_spec *m) {
    snprintf(dir, dn, "%s/%s", g_root, name);
    mkdir(dir, 0755);
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"architectures\":[\"GptOssForCausalLM\"],\"hidden_size\":32,\"intermediate_size\":32,"
             "\"num_hidden_layers\":1,\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":16,"
             "\"vocab_size\":%d,\"num_local_experts\":2,\"num_experts_per_tok\":1,\"sliding_window\":4,"
             "\"rms_norm_eps\":1e-05,\"rope_theta\":10000.0,\"max_position_embeddings\":256%s}",
             V, m && m->no_quant_config ? "" : ",\"quantization_config\":{\"quant_method\":\"mxfp4\"}");
    put_file(dir, "config.json", cfg);
    put_file(dir, "tokenizer.json", k_tokenizer);
    static const struct { const char *name; uint64_t d[4]; uint32_t nd; int u8; } k[] = {
        {"model.embed_tokens.weight", {V, 32}, 2, 0}, {"lm_head.weight", {V, 32}, 2, 0}, {"model.norm.weight", {32}, 1, 0},
        {"model.layers.0.input_layernorm.weight", {32}, 1, 0},
        {"model.layers.0.post_attention_layernorm.weight", {32}, 1, 0},
        {"model.layers.0.self_attn.q_proj.weight", {32, 32}, 2, 0}, {"model.layers.0.self_attn.q_proj.bias", {32}, 1, 0},
        {"model.layers.0.self_attn.k_proj.weight", {16, 32}, 2, 0}, {"model.layers.0.self_attn.k_proj.bias", {16}, 1, 0},
        {"model.layers.0.self_attn.v_proj.weight", {16, 32}, 2, 0}, {"model.layers.0.self_attn.v_proj.bias", {16}, 1, 0},
        {"model.layers.0.self_attn.o_proj.weight", {32, 32}, 2, 0}, {"model.layers.0.self_attn.o_proj.bias", {32}, 1, 0},
        {"model.layers.0.self_attn.sinks", {2}, 1, 0}, {"model.layers.0.mlp.router.weight", {2, 32}, 2, 0},
        {"model.layers.0.mlp.router.bias", {2}, 1, 0},
        {"model.layers.0.mlp.experts.gate_up_proj_blocks", {2, 64, 1, 16}, 4, 1},
        {"model.layers.0.mlp.experts.gate_up_proj_scales", {2, 64, 1}, 3, 2},
        {"model.layers.0.mlp.experts.gate_up_proj_bias", {2, 64}, 2, 0},
        {"model.layers.0.mlp.experts.down_proj_blocks", {2, 32, 1, 16}, 4, 1},
        {"model.layers.0.mlp.experts.down_proj_scales", {2, 32, 1}, 3, 2},
        {"model.layers.0.mlp.experts.down_proj_bias", {2, 32}, 2, 0},
    };
    enum { N = sizeof k / sizeof k[0] };
    mio_st_entry e[N];
    uint64_t shapes[N][4];
    void *data[N] = {0};
    size_t n = 0;
    for (size_t i = 0; i < N; i++) {
        if (m && m->drop && strcmp(m->drop, k[i].name) == 0) continue;
        memcpy(shapes[n], k[i].d, sizeof shapes[n]);
        if (m && m->bad_scales && strstr(k[i].name, "gate_up_proj_scales")) shapes[n][2] = 2;
        size_t cnt = 1;
        for (uint32_t d = 0; d < k[i].nd; d++) cnt *= (size_t)shapes[n][d];
        size_t es = k[i].u8 ? 1 : 4;
        data[n] = malloc(cnt * es);
        for (size_t j = 0; j < cnt; j++) {
            if (k[i].u8 == 1) { /* [e][r][0][j]: 16 bytes a row */
                size_t per_e = (size_t)shapes[n][1] * 16, e_ = j / per_e, r = j % per_e / 16, b = j % 16;
                ((uint8_t *)data[n])[j] = (uint8_t)(16 * r + b + 7 * e_);
            } else if (k[i].u8 == 2) {
                size_t per_e = (size_t)shapes[n][1] * shapes[n][2], e_ = j / per_e, r = j % per_e / shapes[n][2];
                ((uint8_t *)data[n])[j] = (uint8_t)(120 + r % 5 + e_);
            } else {
                ((float *)data[n])[j] = val((int)i, j);
            }
        }
        e[n] = (mio_st_entry){.name = k[i].name, .dtype = k[i].u8 ? MIO_ST_U8 : MIO_ST_F32, .n_dims = k[i].nd,
                              .shape = shapes[n], .data = data[n], .nbytes = cnt * es};
        n++;
    }
    save_st(dir, e, n);
}

static void test_mxfp4(void) {
    char dir[512], out[600];
    make_gptoss_mx("gptoss-mx", dir, sizeof dir, NULL);
    snprintf(out, sizeof out, "%s/gptoss-mx.gguf", g_root);
    mio_hf_params p = params();
    T_OK(mio_hf_convert(dir, out, &p, NULL));
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(out, MIO_OPEN_MMAP, &f));
    if (!f) return;
    /* first in the file, as the reference writes them: down, then gate and up */
    T_EQ_INT(mio_gguf_find_tensor(f, "blk.0.ffn_down_exps.weight"), 0);
    T_EQ_INT(mio_gguf_find_tensor(f, "blk.0.ffn_gate_exps.weight"), 1);
    T_EQ_INT(mio_gguf_find_tensor(f, "blk.0.ffn_up_exps.weight"), 2);
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, 2, &t));
    T_EQ_INT(t.type, MIO_TYPE_MXFP4);
    T_EQ_INT(t.ne[0], 32);
    T_EQ_INT(t.ne[1], 32);
    T_EQ_INT(t.ne[2], 2);
    /* up = the odd rows: expert 1, row 3 is source row 7, whose bytes are q[j] = 16 * 7 + j + 7 = 119 + j and
     * scale 120 + 7 % 5 + 1 = 123; ggml's block: the scale, then byte j = element j | element j + 16 << 4, where
     * source byte i holds elements 2i (low nibble) and 2i + 1 (high) */
    const uint8_t *b = (const uint8_t *)t.data + (size_t)(1 * 32 + 3) * 17;
    T_EQ_INT(b[0], 123);
    T_EQ_INT(b[1], (119 & 15) | (127 & 15) << 4);  /* element 0 (q[0] low), element 16 (q[8] low) */
    T_EQ_INT(b[2], (119 >> 4) | (127 >> 4) << 4);  /* element 1 (q[0] high), element 17 (q[8] high) */
    T_EQ_INT(b[16], (126 >> 4) | (134 >> 4) << 4); /* element 15 (q[7] high), element 31 (q[15] high) */
    int64_t kx = mio_gguf_find_key(f, "general.file_type");
    uint64_t u = 0;
    T_CHECK(kx >= 0 && mio_gguf_kv_u64(f, kx, &u) == MIO_OK && u == 38); /* MOSTLY_MXFP4_MOE */
    T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, "blk.0.ffn_gate_exps.bias"), &t));
    T_EQ_INT(t.ne[0], 32); /* the even half of the 64 gate_up biases */
    mio_gguf_close(f);
    unlink(out);

    mx_spec m = {.bad_scales = 1};
    make_gptoss_mx("mx-pair", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_SIZE_MISMATCH,
                   "MXFP4 blocks model.layers.0.mlp.experts.gate_up_proj_blocks and scales "
                   "model.layers.0.mlp.experts.gate_up_proj_scales do not match");
    m = (mx_spec){.drop = "model.layers.0.mlp.experts.down_proj_scales"};
    make_gptoss_mx("mx-noscales", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_NOT_FOUND,
                   "MXFP4 blocks model.layers.0.mlp.experts.down_proj_blocks have no scales "
                   "model.layers.0.mlp.experts.down_proj_scales");
    m = (mx_spec){.drop = "model.layers.0.mlp.experts.gate_up_proj_blocks"};
    make_gptoss_mx("mx-noblocks", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_NOT_FOUND, "MXFP4 scales model.layers.0.mlp.experts.gate_up_proj_scales have no blocks");
    m = (mx_spec){.no_quant_config = 1};
    make_gptoss_mx("mx-noconfig", dir, sizeof dir, &m);
    expect_refusal(dir, MIO_ERR_UNSUPPORTED, "is MXFP4, but config.json's quantization_config does not say quant_method mxfp4");
}

int main(void) {
    test_architectures();
    test_experts();
    test_mxfp4();
    test_class_keys();
    test_pooling();
    snprintf(g_root, sizeof g_root, "hfconv.XXXXXX");
    if (!mkdtemp(g_root)) T_SKIP("cannot create a temp directory");
    test_layout();
    test_split_and_dry_run();
    test_preset_and_cancel();
    test_nan_payloads();
    test_refusals();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    if (system(cmd) != 0) printf("note: could not remove %s\n", g_root);
    T_DONE();
}
