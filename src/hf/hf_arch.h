/* SPDX-License-Identifier: MIT */
/* hf_arch.h — the architecture table (arch.c) as the driver (convert.c) reads it. */
#ifndef MIO_HF_ARCH_H
#define MIO_HF_ARCH_H

#include "hf/hf_internal.h"

#define HF_NAME_MAX 64 /* GGUF names are shorter (ggml's GGML_MAX_NAME) */

enum { HF_PERMUTE_NONE = 0, HF_PERMUTE_Q, HF_PERMUTE_K };

/* One tensor an architecture has: its Hugging Face name (inside a block, the
 * part after the block prefix and number, "model.layers.N."), its GGUF name,
 * and its shape in the dims config.json gives (outermost first). */
typedef struct hf_tensor_rule {
    const char *hf, *gguf;
    uint32_t n_dims;
    int dim[4];
    int permute;     /* HF_PERMUTE_*: LlamaModel.permute's row order */
    bool optional;   /* may be absent */
    bool output;     /* lm_head: absent only when the embeddings are tied */
    bool f32;        /* always F32 (the reference's list: position and token-type embeddings, routers, ...) */
    /* An expert's tensor: the name is "<experts>E.<hf>" with E the expert number
     * (0 .. expert count - 1); dim is one expert's shape. The experts of a block
     * are stacked, in expert order, into one tensor of three dims (ggml's ne[2]
     * the expert count), written where the reference writes it: after the
     * block's last expert tensor in reading order, a block's stacks in the
     * table's order. */
    const char *experts;
    int layers;      /* HF_LAYERS_*: which blocks have it */
    /* A part of the source, rearranged (one source may feed several rules: the
     * rows after a rule with the same .hf). The source is viewed as slices
     * [A, B] (a three-dim source: one per outer index; with .g_heads the rows
     * split into n_head_kv slices); of a slice the rows [g_a0, g_a0 + g_na)
     * (dims, 0: all) and every g_stride-th column from g_offset are taken,
     * transposed when g_transpose. The output is [outer, rows, cols] (ggml ne
     * reversed). gpt-oss's fused gate_up_proj [E, H, 2F] -> gate [E, F, H]:
     * transpose, stride 2, offset 0; DeepSeek's kv_b_proj -> k_b: per head the
     * first qk_nope rows, transposed. */
    bool gather;
    bool g_transpose, g_heads;
    int g_stride, g_offset, g_a0, g_na;
    /* MXFP4 experts as gpt-oss stores them (quantization_config quant_method
     * mxfp4): "<x>_blocks" [E, rows, cols / 32, 16] and "<x>_scales" [E, rows,
     * cols / 32], bytes. The scales rule makes the output (one per rule with
     * that name: g_stride / g_offset pick rows), from the pair, kept MXFP4: the
     * nibbles reordered to ggml's block_mxfp4, first in the file as the
     * reference writes them. */
    int mxfp4;       /* HF_MXFP4_* */
    int either;      /* rules of one nonzero group: a block needs one of them (bf16 or MXFP4 experts) */
} hf_tensor_rule;

enum { HF_MXFP4_NONE = 0, HF_MXFP4_BLOCKS, HF_MXFP4_SCALES };

/* Which blocks a rule belongs to (required there, refused elsewhere): every
 * block, or only the mixture-of-experts blocks / only the dense ones (config.json's
 * first_k_dense_replace, mlp_only_layers and decoder_sparse_step decide, as the
 * transformers classes do). */
enum { HF_LAYERS_ALL = 0, HF_LAYERS_MOE, HF_LAYERS_DENSE };

/* One hyperparameter key: "{arch}.<gguf>" (or "general.file_type"), where its
 * value comes from (config.json after the class defaults of hparams.c, the
 * rope parameters, or a count the converter knows), its GGUF type, and when it
 * is written. A class's own keys (hf_arch.keys) are written after the common
 * ones; a class that writes its own list instead of TextModel's (hf_arch.params,
 * Phi3MiniModel) gives it whole. Zero-initialised fields are the usual case:
 * from config.json, written when truthy (the reference's
 * `if v := self.hparams.get(key):` — absent, null, 0 and false write nothing). */
enum { HF_KEY_F32 = 0, HF_KEY_U32, HF_KEY_BOOL };
enum {
    HF_FROM_CONFIG = 0, /* the first of hf[] config.json has (find_hparam) */
    HF_FROM_ROPE,       /* hf[0] of rope_parameters (its full_attention part) */
    HF_FROM_BLOCKS,     /* the block count */
    HF_FROM_ROPE_DIMS,  /* int(partial_rotary_factor * hidden) // heads (Phi3MiniModel) */
    HF_FROM_FILE_TYPE,  /* general.file_type */
    HF_FROM_CONST,      /* .value (BertModel's attention.causal false) */
    HF_FROM_SUM,        /* hf[0] + hf[1] of config.json (DeepSeek's key lengths) */
    HF_FROM_POOLING,    /* TextModel._try_set_pooling_type: {arch}.pooling_type from the sentence-transformers
                           pooling module and {arch}.classifier.pooling_type from classifier_pooling, each when
                           there (.gguf unused) */
};
enum {
    HF_WHEN_TRUTHY = 0, /* written when truthy */
    HF_WHEN_REQUIRED,   /* written; a missing value is refused, naming the key */
    HF_WHEN_OR_ZERO,    /* written, 0 when absent or null (Phi3's sliding_window) */
    HF_WHEN_NOT_NULL,   /* written when present and not null, even 0 (`if (v := get(key)) is not None`) */
};
typedef struct hf_key_rule {
    const char *gguf;
    const char *hf[4];
    int type, from, when;
    const char *unless_one; /* not written when this config key is the number 1 (Gemma3's sliding_window_pattern) */
    double value;           /* HF_FROM_CONST */
    double mul;             /* the value times this (0: 1; DeepSeek's yarn_log_mul = 0.1 x mscale_all_dim) */
} hf_key_rule;

/* Tensors a class generates (ModelBase.generate_extra_tensors), first in the file. */
enum {
    HF_GEN_NONE = 0,
    HF_GEN_LLAMA3_ROPE,  /* rope_freqs.weight for rope_type llama3 (LlamaModel) */
    HF_GEN_LONGROPE,     /* rope_factors_long / _short.weight and rope.scaling.attn_factor for longrope (Phi3MiniModel) */
};

typedef struct hf_arch {
    const char *hf_name;       /* config.json architectures[0] */
    const char *arch;          /* general.architecture */
    int vocab;                 /* hf_vocab_flavour */
    const hf_tensor_rule *block;
    size_t n_block;
    bool llama_params;         /* LlamaModel: {arch}.vocab_size and {arch}.rope.dimension_count */
    int generate;              /* HF_GEN_*: the tensors the class generates */
    bool pooling;              /* TextModel._try_set_pooling_type reads the sentence-transformers pooling module
                                  (modules.json) and classifier_pooling (a key rule HF_FROM_POOLING writes them) */
    const char *block_prefix;  /* the blocks' names: "<prefix>N.<rule>" (NULL: "model.layers.") */
    const hf_tensor_rule *globals; /* the tensors outside the blocks (NULL: the decoders' embed/norm/lm_head) */
    size_t n_globals;
    const char *strip_prefix;  /* removed from the start of every name first (BertModel: "bert.") */
    bool gamma_beta;           /* names ending in .gamma / .beta become .weight / .bias (BertModel) */
    const char *const *drop;   /* names dropped (exact, after the above), NULL-terminated */
    const char *const *drop_prefixes; /* names starting so are dropped, NULL-terminated */
    bool norm_plus_one;        /* Gemma3Model: 1 is added to every "*norm.weight" (Gemma3RMSNorm's (1 + w)),
                                  in f32 (in f16 for an F16 checkpoint, as torch adds) */
    bool bare_names;           /* tensors may also be named without "model." (layers.N.*, embed_tokens, norm:
                                  Qwen3-Embedding's sentence-transformers checkpoints; gguf-py maps both) */
    bool reranker_check;       /* Qwen3Model: reranker checkpoints are refused */
    bool mqa_kv;               /* DeepseekV2Model: MLA is written as MQA, attention.head_count_kv 1 */
    bool skip_extra_layers;    /* blocks at or past num_hidden_layers are skipped (DeepSeek's multi-token prediction) */
    const hf_key_rule *params; /* the class's whole key list instead of TextModel's (NULL: TextModel's) */
    size_t n_params;
    const hf_key_rule *keys;   /* the class's own hyperparameters, after the common ones */
    size_t n_keys;
} hf_arch;

/* The dims of config.json the shapes are checked against. */
typedef struct hf_dims {
    int64_t hidden, vocab, ff, n_head, n_head_kv, head_dim, n_layer;
    int64_t n_pos;   /* max_position_embeddings (0 when absent) */
    int64_t n_types; /* type_vocab_size (2 when absent) */
    int64_t n_expert;   /* num_local_experts / num_experts / n_routed_experts (0: none) */
    int64_t ff_exp;     /* one expert's feed-forward length: moe_intermediate_size, else intermediate_size */
    int64_t ff_shexp;   /* the shared expert's: shared_expert_intermediate_size, else moe_intermediate_size x
                           n_shared_experts */
    int64_t q_lora, kv_lora, qk_nope, qk_rope, v_head; /* multi-head latent attention (DeepSeek) */
} hf_dims;

const hf_arch *mio_hf_arch_find(const char *hf_name);
const hf_tensor_rule *mio_hf_arch_global_rules(const hf_arch *a, size_t *n);
int64_t mio_hf_rule_dim(const hf_tensor_rule *r, uint32_t k, const hf_dims *d);
/* The size a dim code (arch.c's D_*) stands for, -1 for an unknown code. */
int64_t mio_hf_dim(int code, const hf_dims *d);
/* Map a Hugging Face tensor name: true with the GGUF name, its rule and its
 * block number (-1 outside the blocks), false for a name the architecture does
 * not have (a block number at or past n_layer included). An expert's tensor
 * (rule->experts) gives its expert number in *xid (else -1) and the stack's
 * GGUF name in out. */
bool mio_hf_arch_map(const hf_arch *a, const char *hf, int64_t n_layer, char out[HF_NAME_MAX], const hf_tensor_rule **rule,
                     int64_t *bid, int64_t *xid);
bool mio_hf_name_is_dropped(const char *hf);
/* The block number of a block tensor's name, -1 for another name. */
int64_t mio_hf_arch_block_of(const hf_arch *a, const char *hf);
uint64_t mio_hf_permute_src_row(uint64_t out_row, uint64_t rows, uint64_t n_head);
void mio_hf_llama3_rope_factors(float *out, int64_t dim, double base, double factor, double low_freq_factor,
                                double high_freq_factor, double old_context_len);

#endif
