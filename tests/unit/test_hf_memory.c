/* SPDX-License-Identifier: MIT */
/* test_hf_memory.c — mio_hf_convert works in a fixed working set, not one
 * sized by the checkpoint (docs/HF_CONVERT.md "Memory"): a 302 MiB bf16
 * checkpoint in two shards (written here piece by piece, so building it costs
 * no memory) is converted to f16 and to q8_0 in this process, and the peak RSS
 * growth is checked against the documented bound: the 4 MiB read chunk, its
 * 4 MiB f32 copy and the encoded chunk (at most 4 MiB), the writers' headers,
 * plus 8 MiB for thread stacks and the allocator = 24 MiB. Source bytes come
 * through pread, so no page of the shards is ever mapped into the process.
 * The mixture-of-experts case converts the same checkpoint shape with 16 and
 * with 64 experts: the expert stacks stream, the bound is the same. */
#include "modelio.h"
#include "test.h"
#include "rss.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define HID 1024
#define FF 8192
#define LAYERS 6
#define VOCAB 8
#define BOUND_MIB 24

/* under valgrind (scripts/valgrind.sh), ThreadSanitizer or AddressSanitizer
 * the process's RSS holds the tool's shadow memory (and ASan's quarantine of
 * freed blocks: the Gemma case's 262144 token strings stay resident, 36 MiB
 * measured): the conversions still run, the bound is not checked */
static int under_valgrind(void) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    return 1;
#else
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload") != NULL;
#endif
}


typedef struct t_desc { char name[96]; uint64_t rows, cols; } t_desc;

/* a safetensors shard written by hand: header, then each tensor's bf16 rows */
static int write_shard(const char *path, const t_desc *t, int n) {
    static char hdr[131072];
    size_t hl = (size_t)snprintf(hdr, sizeof hdr, "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t off = 0;
    for (int i = 0; i < n; i++) {
        uint64_t bytes = t[i].rows * (t[i].cols ? t[i].cols : 1) * 2;
        if (t[i].cols)
            hl += (size_t)snprintf(hdr + hl, sizeof hdr - hl, ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%llu,%llu],"
                                   "\"data_offsets\":[%llu,%llu]}", t[i].name, (unsigned long long)t[i].rows,
                                   (unsigned long long)t[i].cols, (unsigned long long)off,
                                   (unsigned long long)(off + bytes));
        else
            hl += (size_t)snprintf(hdr + hl, sizeof hdr - hl, ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%llu],"
                                   "\"data_offsets\":[%llu,%llu]}", t[i].name, (unsigned long long)t[i].rows,
                                   (unsigned long long)off, (unsigned long long)(off + bytes));
        off += bytes;
    }
    hdr[hl++] = '}';
    while (hl % 8) hdr[hl++] = ' ';
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    uint64_t n64 = hl;
    fwrite(&n64, 8, 1, fp);
    fwrite(hdr, 1, hl, fp);
    static uint16_t row[FF];
    uint32_t x = 12345;
    for (int i = 0; i < n; i++) {
        uint64_t cols = t[i].cols ? t[i].cols : t[i].rows, rows = t[i].cols ? t[i].rows : 1;
        for (uint64_t r = 0; r < rows; r++) {
            for (uint64_t c = 0; c < cols; c++) {
                x = x * 1664525u + 1013904223u;
                row[c] = mio_f32_to_bf16(((float)(x >> 8) / 16777216.0f - 0.5f) * 0.04f);
            }
            if (fwrite(row, 2, cols, fp) != cols) { fclose(fp); return -1; }
        }
    }
    return fclose(fp);
}

/* dir/tokenizer.json: a byte-level BPE of the 8 tokens VOCAB counts */
static void put_tokenizer(const char *dir) {
    char p[256];
    snprintf(p, sizeof p, "%s/tokenizer.json", dir);
    FILE *fp = fopen(p, "w");
    if (!fp) {
        T_CHECK(!"cannot write tokenizer.json");
        return;
    }
    fputs("{\"added_tokens\":[],\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
          "\"trim_offsets\":true,\"use_regex\":true},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"c\":2,"
          "\"ab\":3,\"\\u0120\":4,\"d\":5,\"e\":6,\"f\":7},\"merges\":[\"a b\"]}}", fp);
    fclose(fp);
}

/* A Gemma 3-shaped checkpoint: its 262144-row embedding (262144 x 576 bf16,
 * 302 MiB, most of the checkpoint) is streamed like any tensor, the norms get
 * + 1 on the way; the vocabulary is padded to 262144 tokens. The same bound. */
#define G_VOCAB 262144
#define G_HID 576
static void gemma3_case(void) {
    char dir[64] = "hfmemg.XXXXXX";
    if (!mkdtemp(dir)) {
        T_CHECK(!"cannot create a temp directory");
        return;
    }
    char p[256];
    snprintf(p, sizeof p, "%s/config.json", dir);
    FILE *fp = fopen(p, "w");
    fprintf(fp, "{\"architectures\":[\"Gemma3ForCausalLM\"],\"model_type\":\"gemma3_text\",\"hidden_size\":%d,"
                "\"intermediate_size\":%d,\"num_hidden_layers\":1,\"num_attention_heads\":4,\"num_key_value_heads\":1,"
                "\"head_dim\":144,\"vocab_size\":%d,\"sliding_window\":512}", G_HID, FF, G_VOCAB);
    fclose(fp);
    snprintf(p, sizeof p, "%s/tokenizer.json", dir);
    fp = fopen(p, "w");
    fputs("{\"added_tokens\":[],\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
          "\"trim_offsets\":true,\"use_regex\":true},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},"
          "\"merges\":[\"a b\"]}}", fp);
    fclose(fp);
    t_desc t[16] = {{"model.embed_tokens.weight", G_VOCAB, G_HID}, {"model.norm.weight", G_HID, 0}};
    int n = 2;
    static const struct { const char *n; int r, c; } blk[] = {
        {"input_layernorm.weight", G_HID, 0}, {"post_attention_layernorm.weight", G_HID, 0},
        {"pre_feedforward_layernorm.weight", G_HID, 0}, {"post_feedforward_layernorm.weight", G_HID, 0},
        {"self_attn.q_norm.weight", 144, 0}, {"self_attn.k_norm.weight", 144, 0},
        {"self_attn.q_proj.weight", 4 * 144, G_HID}, {"self_attn.k_proj.weight", 144, G_HID},
        {"self_attn.v_proj.weight", 144, G_HID}, {"self_attn.o_proj.weight", G_HID, 4 * 144},
        {"mlp.gate_proj.weight", FF, G_HID}, {"mlp.up_proj.weight", FF, G_HID}, {"mlp.down_proj.weight", G_HID, FF}};
    for (size_t b = 0; b < sizeof blk / sizeof blk[0]; b++, n++) {
        snprintf(t[n].name, sizeof t[n].name, "model.layers.0.%s", blk[b].n);
        t[n].rows = (uint64_t)blk[b].r;
        t[n].cols = (uint64_t)blk[b].c;
    }
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    T_CHECK(write_shard(p, t, n) == 0);
    mio_hf_params hp;
    mio_hf_default_params(&hp);
    hp.pre = "llama-bpe";
    hp.n_threads = 2;
    char out[128];
    snprintf(out, sizeof out, "%s/out.gguf", dir);
    long base = rss_now_kib();
    T_OK(mio_hf_convert(dir, out, &hp, NULL));
    long grew = rss_peak_kib() - base;
    printf("gemma3 (262144 x %d embedding), auto: peak RSS grew by %ld KiB (bound %d MiB)\n", G_HID, grew, BOUND_MIB);
    if (!under_valgrind()) T_CHECK(grew < BOUND_MIB * 1024);
    struct stat sb;
    T_CHECK(stat(out, &sb) == 0 && sb.st_size > 300 * 1000 * 1000);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
}

/* A Qwen3-MoE-shaped checkpoint of 2 blocks with n_expert experts of
 * 512 x 512 (gate, up, down: 1.5 MiB of bf16 each), in 3 shards, the
 * experts of a block spread over them (the Hub's usual layout): the stacks
 * are streamed expert by expert, so the peak RSS does not grow with the
 * expert count (16 experts: 48 MiB of experts; 64: 192 MiB). */
#define M_HID 512
#define M_FFE 512
static void moe_case(int n_expert) {
    char dir[64] = "hfmemx.XXXXXX";
    if (!mkdtemp(dir)) {
        T_CHECK(!"cannot create a temp directory");
        return;
    }
    char p[256];
    snprintf(p, sizeof p, "%s/config.json", dir);
    FILE *fp = fopen(p, "w");
    fprintf(fp, "{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"model_type\":\"qwen3_moe\",\"hidden_size\":%d,"
                "\"intermediate_size\":%d,\"moe_intermediate_size\":%d,\"num_experts\":%d,\"num_experts_per_tok\":4,"
                "\"num_hidden_layers\":2,\"num_attention_heads\":4,\"num_key_value_heads\":2,\"head_dim\":128,"
                "\"vocab_size\":%d,\"tie_word_embeddings\":true}", M_HID, 3 * M_FFE, M_FFE, n_expert, VOCAB);
    fclose(fp);
    put_tokenizer(dir);
    int cap = 2 + 2 * (11 + 3 * n_expert), n = 0;
    t_desc *t = calloc((size_t)cap, sizeof *t);
    char *idx = malloc((size_t)cap * 160 + 64);
    if (!t || !idx) {
        free(t);
        free(idx);
        T_CHECK(!"out of memory");
        return;
    }
    t[n++] = (t_desc){"model.embed_tokens.weight", VOCAB, M_HID};
    t[n++] = (t_desc){"model.norm.weight", M_HID, 0};
    static const struct { const char *n; int r, c; } blk[] = {
        {"input_layernorm.weight", M_HID, 0}, {"post_attention_layernorm.weight", M_HID, 0},
        {"self_attn.q_norm.weight", 128, 0}, {"self_attn.k_norm.weight", 128, 0},
        {"self_attn.q_proj.weight", 512, M_HID}, {"self_attn.k_proj.weight", 256, M_HID},
        {"self_attn.v_proj.weight", 256, M_HID}, {"self_attn.o_proj.weight", M_HID, 512}};
    for (int l = 0; l < 2; l++) {
        for (size_t b = 0; b < sizeof blk / sizeof blk[0]; b++, n++) {
            snprintf(t[n].name, sizeof t[n].name, "model.layers.%d.%s", l, blk[b].n);
            t[n].rows = (uint64_t)blk[b].r;
            t[n].cols = (uint64_t)blk[b].c;
        }
        snprintf(t[n].name, sizeof t[n].name, "model.layers.%d.mlp.gate.weight", l);
        t[n].rows = (uint64_t)n_expert;
        t[n++].cols = M_HID;
        for (int e = 0; e < n_expert; e++) {
            static const char *const w[] = {"gate_proj", "up_proj", "down_proj"};
            for (int k = 0; k < 3; k++, n++) {
                snprintf(t[n].name, sizeof t[n].name, "model.layers.%d.mlp.experts.%d.%s.weight", l, e, w[k]);
                t[n].rows = k == 2 ? M_HID : M_FFE;
                t[n].cols = k == 2 ? M_FFE : M_HID;
            }
        }
    }
    /* three shards of consecutive tensors */
    size_t il = (size_t)sprintf(idx, "{\"metadata\":{},\"weight_map\":{");
    for (int s = 0, a = 0; s < 3; s++) {
        int b = s == 2 ? n : (n * (s + 1)) / 3;
        char file[64];
        snprintf(file, sizeof file, "model-%05d-of-00003.safetensors", s + 1);
        for (int i = a; i < b; i++) il += (size_t)sprintf(idx + il, "%s\"%s\":\"%s\"", i ? "," : "", t[i].name, file);
        snprintf(p, sizeof p, "%s/%s", dir, file);
        T_CHECK(write_shard(p, t + a, b - a) == 0);
        a = b;
    }
    sprintf(idx + il, "}}");
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    fp = fopen(p, "w");
    fputs(idx, fp);
    fclose(fp);
    free(idx);
    free(t);
    mio_hf_params hp;
    mio_hf_default_params(&hp);
    hp.pre = "llama-bpe";
    hp.n_threads = 2;
    char out[128];
    snprintf(out, sizeof out, "%s/out.gguf", dir);
    long base = rss_now_kib();
    T_OK(mio_hf_convert(dir, out, &hp, NULL));
    long grew = rss_peak_kib() - base;
    printf("qwen3moe, %d experts (%d MiB of experts), auto: peak RSS grew by %ld KiB (bound %d MiB)\n", n_expert,
           n_expert * 3, grew, BOUND_MIB);
    if (!under_valgrind()) T_CHECK(grew < BOUND_MIB * 1024);
    struct stat sb;
    T_CHECK(stat(out, &sb) == 0 && sb.st_size > (off_t)n_expert * 3 * 1024 * 1024);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
}

int main(void) {
    /* first: the peak RSS of the process only grows, so each later case's
     * growth is measured against the highest peak so far (a stricter check) */
    moe_case(16);
    moe_case(64); /* 4x the experts: the same bound */
    gemma3_case();
    char dir[64] = "hfmem.XXXXXX";
    if (!mkdtemp(dir)) T_SKIP("cannot create a temp directory");
    char p[256];
    snprintf(p, sizeof p, "%s/config.json", dir);
    FILE *fp = fopen(p, "w");
    fprintf(fp, "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":%d,\"intermediate_size\":%d,"
                "\"num_hidden_layers\":%d,\"num_attention_heads\":8,\"num_key_value_heads\":8,\"vocab_size\":%d,"
                "\"tie_word_embeddings\":true}", HID, FF, LAYERS, VOCAB);
    fclose(fp);
    put_tokenizer(dir);
    /* shard 1: embeddings, norm, layers 0-2; shard 2: layers 3-5 */
    static const struct { const char *n; int r, c; } blk[] = {
        {"input_layernorm.weight", HID, 0}, {"post_attention_layernorm.weight", HID, 0},
        {"self_attn.q_proj.weight", HID, HID}, {"self_attn.k_proj.weight", HID, HID},
        {"self_attn.v_proj.weight", HID, HID}, {"self_attn.o_proj.weight", HID, HID},
        {"mlp.gate_proj.weight", FF, HID}, {"mlp.up_proj.weight", FF, HID}, {"mlp.down_proj.weight", HID, FF}};
    char idx[65536];
    size_t il = (size_t)snprintf(idx, sizeof idx, "{\"metadata\":{},\"weight_map\":{");
    for (int s = 0; s < 2; s++) {
        t_desc t[40];
        int n = 0;
        char file[64];
        snprintf(file, sizeof file, "model-%05d-of-00002.safetensors", s + 1);
        if (s == 0) {
            t[n++] = (t_desc){"model.embed_tokens.weight", VOCAB, HID};
            t[n++] = (t_desc){"model.norm.weight", HID, 0};
        }
        for (int l = s * 3; l < s * 3 + 3; l++)
            for (size_t b = 0; b < sizeof blk / sizeof blk[0]; b++) {
                snprintf(t[n].name, sizeof t[n].name, "model.layers.%d.%s", l, blk[b].n);
                t[n].rows = (uint64_t)blk[b].r;
                t[n].cols = (uint64_t)blk[b].c;
                n++;
            }
        for (int i = 0; i < n; i++)
            il += (size_t)snprintf(idx + il, sizeof idx - il, "%s\"%s\":\"%s\"", il > 30 ? "," : "", t[i].name, file);
        snprintf(p, sizeof p, "%s/%s", dir, file);
        T_CHECK(write_shard(p, t, n) == 0);
    }
    snprintf(idx + il, sizeof idx - il, "}}");
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    fp = fopen(p, "w");
    fputs(idx, fp);
    fclose(fp);

    mio_hf_params hp;
    mio_hf_default_params(&hp);
    hp.pre = "llama-bpe";
    long base = rss_now_kib();
    char out[128];
    snprintf(out, sizeof out, "%s/out-f16.gguf", dir);
    hp.outtype = MIO_TYPE_F16;
    T_OK(mio_hf_convert(dir, out, &hp, NULL));
    long grew = rss_peak_kib() - base;
    printf("f16: peak RSS grew by %ld KiB (bound %d MiB)\n", grew, BOUND_MIB);
    if (under_valgrind()) printf("note: under valgrind or a sanitizer, the RSS bound is not checked\n");
    else T_CHECK(grew < BOUND_MIB * 1024);
    struct stat sb;
    T_CHECK(stat(out, &sb) == 0 && sb.st_size > 300 * 1000 * 1000);
    unlink(out);
    snprintf(out, sizeof out, "%s/out-q8.gguf", dir);
    hp.outtype = MIO_TYPE_Q8_0;
    hp.n_threads = 2;
    T_OK(mio_hf_convert(dir, out, &hp, NULL));
    grew = rss_peak_kib() - base;
    printf("q8_0, 2 threads: peak RSS grew by %ld KiB (bound %d MiB)\n", grew, BOUND_MIB);
    if (!under_valgrind()) T_CHECK(grew < BOUND_MIB * 1024);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    T_DONE();
}
