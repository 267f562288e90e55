/* SPDX-License-Identifier: MIT */
/* hf_arch.h — the architecture table (arch.c) as the driver (convert.c) reads it. */
#ifndef MIO_HF_ARCH_H
#define MIO_HF_ARCH_H

#include "hf/hf_internal.h"

#define HF_NAME_MAX 64 /* GGUF names are shorter (ggml's GGML_MAX_NAME) */

enum { HF_PERMUTE_NONE = 0, HF_PERMUTE_Q, HF_PERMUTE_K };

/* One tensor an architecture has: its Hugging Face name (inside a block, the
 * part after "model.layers.N."), its GGUF name, and its shape in the dims
 * config.json gives (outermost first). */
typedef struct hf_tensor_rule {
    const char *hf, *gguf;
    uint32_t n_dims;
    int dim[2];
    int permute;     /* HF_PERMUTE_*: LlamaModel.permute's row order */
    bool optional;   /* may be absent */
    bool output;     /* lm_head: absent only when the embeddings are tied */
} hf_tensor_rule;

/* One hyperparameter a class writes beyond TextModel.set_gguf_parameters:
 * config.json's key (after the class defaults of hparams.c) -> "{arch}.<gguf>".
 * Written in table order after the common keys, and only when the value is
 * truthy (the reference's `if v := self.hparams.get(key):` — absent, null,
 * 0 and false write nothing). */
enum { HF_KEY_F32 = 1, HF_KEY_U32 };
typedef struct hf_key_rule {
    const char *hf, *gguf;
    int type; /* HF_KEY_* */
} hf_key_rule;

typedef struct hf_arch {
    const char *hf_name;       /* config.json architectures[0] */
    const char *arch;          /* general.architecture */
    int vocab;                 /* hf_vocab_flavour */
    const hf_tensor_rule *block;
    size_t n_block;
    bool llama_params;         /* LlamaModel: {arch}.vocab_size and {arch}.rope.dimension_count */
    bool llama3_rope_freqs;    /* LlamaModel.generate_extra_tensors: rope_freqs.weight for rope_type llama3 */
    bool pooling_check;        /* Qwen2Model._try_set_pooling_type: sentence-transformers pooling is refused */
    bool reranker_check;       /* Qwen3Model: reranker checkpoints are refused */
    const hf_key_rule *keys;   /* the class's own hyperparameters, after the common ones */
    size_t n_keys;
} hf_arch;

/* The dims of config.json the shapes are checked against. */
typedef struct hf_dims {
    int64_t hidden, vocab, ff, n_head, n_head_kv, head_dim, n_layer;
} hf_dims;

const hf_arch *mio_hf_arch_find(const char *hf_name);
const hf_tensor_rule *mio_hf_arch_global_rules(size_t *n);
int64_t mio_hf_rule_dim(const hf_tensor_rule *r, uint32_t k, const hf_dims *d);
/* Map a Hugging Face tensor name: true with the GGUF name, its rule and its
 * block number (-1 outside the blocks), false for a name the architecture does
 * not have (a block number at or past n_layer included). */
bool mio_hf_arch_map(const hf_arch *a, const char *hf, int64_t n_layer, char out[HF_NAME_MAX], const hf_tensor_rule **rule,
                     int64_t *bid);
bool mio_hf_name_is_dropped(const char *hf);
uint64_t mio_hf_permute_src_row(uint64_t out_row, uint64_t rows, uint64_t n_head);
void mio_hf_llama3_rope_factors(float *out, int64_t dim, double base, double factor, double low_freq_factor,
                                double high_freq_factor, double old_context_len);

#endif
