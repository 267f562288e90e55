/* SPDX-License-Identifier: MIT */
/* lora_fixtures.h — the LoRA interop fixtures, described once: the tiny
 * llama-architecture base (dimensions, tensor names, seeded values) and the
 * adapters built for it. mk_lora_fixtures.c writes the files from this table
 * and interop_lora.c recomputes what the merge must give from the same table
 * (rank, alpha, rsLoRA, rank_pattern/alpha_pattern) plus the tensors it reads
 * back from the written files.
 *
 * The base: 2 layers, n_embd 64, n_ff 128, 4 query heads and 2 key/value
 * heads (GQA: attn_k/attn_v have 32 output rows, head_dim 16), vocab 64 (the
 * SentencePiece-style vocabulary of interop_llama_export.c), context 512.
 * Its matrices are written in GGUF layout (as if HF -> GGUF conversion had
 * already permuted q/k); a PEFT adapter holds HF-layout B, so the q/k rows of
 * B must be permuted on merge (lf_hf_row) — the test checks that it was. */
#ifndef MIO_LORA_FIXTURES_H
#define MIO_LORA_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LF_EMBD 64
#define LF_FF 128
#define LF_LAYER 2
#define LF_HEAD 4
#define LF_HEAD_KV 2
#define LF_HEAD_DIM (LF_EMBD / LF_HEAD)
#define LF_KV_DIM (LF_HEAD_KV * LF_HEAD_DIM)
#define LF_VOCAB 64
#define LF_CTX 512
#define LF_BASE_SEED 0x6c6f72612d626173ull

enum { LF_Q, LF_K, LF_V, LF_O, LF_GATE, LF_UP, LF_DOWN, LF_NMOD };
#define LF_ALL 0x7fu
#define LF_BIT(m) (1u << (m))
/* whole-model modules (interop_lora only; no generated fixture has them): the
 * token embedding (PEFT lora_embedding_A/B) and lm_head */
#define LF_T_EMB (1u << 7)
#define LF_T_OUT (1u << 8)

/* PEFT module path under model.layers.N., the short name pattern keys use,
 * the Fucina name and the GGUF tensor the module merges into. */
static const char *const LF_HF[LF_NMOD] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                           "self_attn.o_proj", "mlp.gate_proj",    "mlp.up_proj",
                                           "mlp.down_proj"};
static const char *const LF_HF_SHORT[LF_NMOD] = {"q_proj", "k_proj", "v_proj", "o_proj",
                                                 "gate_proj", "up_proj", "down_proj"};
static const char *const LF_FUC[LF_NMOD] = {"q", "k", "v", "o", "gate", "up", "down"};
static const char *const LF_GGUF[LF_NMOD] = {"attn_q", "attn_k", "attn_v", "attn_output",
                                             "ffn_gate", "ffn_up", "ffn_down"};

static inline int64_t lf_in(int m) { return m == LF_DOWN ? LF_FF : LF_EMBD; }
static inline int64_t lf_out(int m) {
    switch (m) {
    case LF_K: case LF_V: return LF_KV_DIM;
    case LF_GATE: case LF_UP: return LF_FF;
    default: return LF_EMBD;
    }
}

/* HF -> GGUF row permutation of llama q (n_head = LF_HEAD) and k (LF_HEAD_KV):
 * within each head of hd rows, GGUF row 2j+i holds HF row i*hd/2 + j (the HF
 * rotary halves interleaved). Returns the HF row for GGUF row r of a tensor
 * with out rows split into n_head heads. */
static inline int64_t lf_hf_row(int64_t r, int64_t out, int64_t n_head) {
    int64_t hd = out / n_head, h = r / hd, rem = r % hd;
    return h * hd + (rem % 2) * (hd / 2) + rem / 2;
}

typedef enum { LF_PEFT, LF_FUCINA, LF_PEFT_REAL } lf_kind;

/* A rank_pattern / alpha_pattern entry: key matched as PEFT does, as a suffix
 * of the module path "model.layers.N.self_attn.q_proj" on a '.' boundary. The
 * keys of one adapter never overlap, so PEFT's first-match order is moot. */
typedef struct lf_pattern {
    const char *key;
    double value;
} lf_pattern;

typedef struct lf_adapter {
    const char *name;     /* directory (PEFT) or file stem (Fucina) under the fixture dir */
    lf_kind kind;
    unsigned targets;     /* LF_BIT(module) mask */
    int r;
    double alpha;         /* lora_alpha (PEFT) or the --alpha passed to the tool (Fucina) */
    int rslora;           /* use_rslora: s = alpha / sqrt(r) */
    lf_pattern rank_pattern[3];
    lf_pattern alpha_pattern[3];
    uint64_t seed;
    int alpha_flag;       /* PEFT: pass --alpha <alpha> to the tool (overrides lora_alpha) */
    const char *src;      /* the files of another entry (same adapter, other options); NULL: its own */
} lf_adapter;

/* peft-real and peft-real-embed are under tests/data/lora, made by
 * scripts/gen_peft_fixture.py (r 2; lora_alpha 1, all seven projections / lora_alpha
 * 4, q, k, embed_tokens and lm_head); their values are read from the files. */
static const lf_adapter LF_ADAPTERS[] = {
    {"peft-r1-qv", LF_PEFT, LF_BIT(LF_Q) | LF_BIT(LF_V), 1, 2.0, 0, {{0, 0}}, {{0, 0}}, 0x1001, 0, NULL},
    {"peft-r8-all", LF_PEFT, LF_ALL, 8, 16.0, 0, {{0, 0}}, {{0, 0}}, 0x1002, 0, NULL},
    {"peft-r4-rslora", LF_PEFT, LF_BIT(LF_Q) | LF_BIT(LF_K) | LF_BIT(LF_O) | LF_BIT(LF_DOWN), 4, 4.0, 1,
     {{0, 0}}, {{0, 0}}, 0x1003, 0, NULL},
    {"peft-r4-pattern", LF_PEFT, LF_BIT(LF_Q) | LF_BIT(LF_K) | LF_BIT(LF_V) | LF_BIT(LF_O) | LF_BIT(LF_UP), 4, 8.0,
     0, {{"v_proj", 2}, {"model.layers.1.self_attn.q_proj", 6}, {0, 0}},
     {{"k_proj", 2}, {"layers.0.mlp.up_proj", 3}, {0, 0}}, 0x1004, 0, NULL},
    /* peft-r8-all's files with --alpha 32: s = 32/8 instead of lora_alpha's 16/8 */
    {"peft-r8-all-alpha32", LF_PEFT, LF_ALL, 8, 32.0, 0, {{0, 0}}, {{0, 0}}, 0x1002, 1, "peft-r8-all"},
    {"fucina-r4", LF_FUCINA, LF_ALL, 4, 8.0, 0, {{0, 0}}, {{0, 0}}, 0x1005, 0, NULL},
    {"peft-real", LF_PEFT_REAL, LF_ALL, 2, 1.0, 0, {{0, 0}}, {{0, 0}}, 0, 0, NULL},
    {"peft-real-embed", LF_PEFT_REAL, LF_BIT(LF_Q) | LF_BIT(LF_K) | LF_T_EMB | LF_T_OUT, 2, 4.0, 0, {{0, 0}}, {{0, 0}},
     0, 0, NULL},
};
#define LF_N_ADAPTERS (sizeof LF_ADAPTERS / sizeof LF_ADAPTERS[0])

/* "model.layers.<l>.<LF_HF[m]>" */
static inline void lf_module_path(char *buf, size_t n, int l, int m) {
    snprintf(buf, n, "model.layers.%d.%s", l, LF_HF[m]);
}

static inline int lf_key_matches(const char *key, int l, int m) {
    char path[96];
    lf_module_path(path, sizeof path, l, m);
    size_t lp = strlen(path), lk = strlen(key);
    return lk <= lp && strcmp(path + lp - lk, key) == 0 && (lk == lp || path[lp - lk - 1] == '.');
}

/* Rank and scale of module m in layer l: rank_pattern/alpha_pattern override
 * r/alpha; s = alpha/r, or alpha/sqrt(r) with use_rslora. */
static inline int lf_rank(const lf_adapter *a, int l, int m) {
    for (int k = 0; k < 3 && a->rank_pattern[k].key; k++)
        if (lf_key_matches(a->rank_pattern[k].key, l, m)) return (int)a->rank_pattern[k].value;
    return a->r;
}
static inline double lf_scale(const lf_adapter *a, int l, int m) {
    double alpha = a->alpha;
    for (int k = 0; k < 3 && a->alpha_pattern[k].key; k++)
        if (lf_key_matches(a->alpha_pattern[k].key, l, m)) alpha = a->alpha_pattern[k].value;
    int r = lf_rank(a, l, m);
    return a->rslora ? alpha / sqrt((double)r) : alpha / (double)r;
}

/* Deterministic values: splitmix64 stream -> uniform (-1, 1). */
typedef struct lf_rng {
    uint64_t s;
} lf_rng;
static inline double lf_uniform(lf_rng *g) {
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * (2.0 / 9007199254740992.0) - 1.0;
}

#endif
