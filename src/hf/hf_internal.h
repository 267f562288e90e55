/* SPDX-License-Identifier: MIT */
/* hf_internal.h — converting a Hugging Face checkpoint directory to GGUF, as
 * llama.cpp's convert_hf_to_gguf.py does (pinned: the copy in the
 * llama-cpp-python 0.3.36 sdist, vendor/llama.cpp). Three parts share it:
 *   convert.c   the driver: config.json, the architecture table, tensors, the writer
 *   vocab*.c    tokenizer.json / tokenizer.model / tokenizer_config.json -> tokenizer.* keys
 *   meta.c      general.* keys (gguf-py's Metadata heuristics) and the default file name
 * Nothing here is exported. Keys are written onto a mio_writer in the order the
 * reference writes them; mio_writer_set_* on an existing key keeps its position
 * (as gguf-py's dict assignment does). */
#ifndef MIO_HF_INTERNAL_H
#define MIO_HF_INTERNAL_H

#include "modelio.h"

#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The hyperparameters as the reference sees them: AutoConfig.from_pretrained's
 * to_dict() for config.json's model_type (llama, mistral, qwen2, qwen3: the
 * class defaults and the rope_parameters dict of transformers 5.24.0); the file
 * as it is when it has no model_type (AutoConfig fails, the reference falls
 * back to the file); another model_type is MIO_ERR_UNSUPPORTED naming file.
 * *out is a new object (mio_json_free it). */
mio_status mio_hf_hparams(const mio_json *raw, const char *file, mio_json **out);

/* mio_hf_convert of model_dir (config, tokenizer, card, index) with the
 * safetensors, when weights_base is not NULL, read remotely: the files
 * weight_files lists stand for the directory's, each opened as
 * weights_base + name with MIO_OPEN_HEADER and read by range requests
 * (mio_hub_convert's stream). */
mio_status mio_hf_convert_from(const char *model_dir, const char *weights_base, const char *const *weight_files,
                               size_t n_weight_files, const char *out, const mio_hf_params *p, char **written);

/* ------------------------------------------------------------------ vocab */

/* Which of the reference's set_vocab() paths an architecture takes. */
typedef enum hf_vocab_flavour {
    /* LlamaModel.set_vocab: tokenizer_config.json add_prefix_space -> tokenizer.ggml.add_space_prefix;
     * then tokenizer.model (SentencePiece) -> else tokenizer.json BPE with byte fallback (llama, LlamaHfVocab)
     * -> else gpt2 BPE; then the vocab_size 32016 (CodeLlama) and 49152 (add_bos = false) special cases. */
    HF_VOCAB_LLAMA = 1,
    /* Qwen2Model.set_vocab: tokenizer.model -> else gpt2 BPE. */
    HF_VOCAB_QWEN2 = 2,
    /* TextModel.set_vocab: gpt2 BPE from tokenizer.json only (a tokenizer.model is not read). */
    HF_VOCAB_GPT2 = 3,
    /* Phi3MiniModel.set_vocab: tokenizer_class GPT2Tokenizer -> gpt2 BPE; else its
     * own SentencePiece reading of tokenizer.model (padded to vocab_size, then
     * added_tokens.json, tokenizer_config.json's added_tokens_decoder and
     * tokenizer.json's added_tokens as written: special -> control, else
     * user-defined). */
    HF_VOCAB_PHI3 = 4,
    /* Gemma3Model.set_vocab: tokenizer.model (then add_space_prefix false) -> else gpt2 BPE. */
    HF_VOCAB_GEMMA3 = 5,
    /* BertModel.set_vocab: get_vocab_base of the WordPiece vocabulary (tokenizer.json, or vocab.txt), the
     * phantom-space form (## pieces lose it, the others get U+2581, control tokens stay), model "bert" */
    HF_VOCAB_BERT = 6,
} hf_vocab_flavour;

typedef struct hf_vocab_opts {
    const char *dir;          /* checkpoint directory */
    const mio_json *config;      /* config.json (after text_config was merged into the root) */
    int flavour;              /* hf_vocab_flavour */
    const char *pre_override; /* --pre NAME or NULL: tokenizer.ggml.pre written as given (must be a name llama.cpp knows) */
} hf_vocab_opts;

typedef struct hf_vocab_info {
    uint64_t n_tokens;        /* length of tokenizer.ggml.tokens */
    char model[16];           /* "gpt2" or "llama" */
    char pre[64];             /* tokenizer.ggml.pre as written ("" for SentencePiece, which writes "default") */
    char ref_pre[64];         /* what convert_hf_to_gguf.py's chkhsh would have written ("" when the same/unknown) */
    bool differs_from_reference; /* a value deliberately differs from the reference (documented in docs/HF_CONVERT.md) */
} hf_vocab_info;

/* Write every tokenizer.* key (and anything else the reference's set_vocab()
 * writes) onto w, in the reference's order. Fails with a message naming the
 * file and key (MIO_ERR_INVALID_JSON for malformed JSON, MIO_ERR_TRUNCATED /
 * MIO_ERR_INVALID_METADATA for a malformed protobuf, MIO_ERR_UNSUPPORTED
 * for a tokenizer type or pre-tokenizer we do not convert, MIO_ERR_NOT_FOUND when
 * the directory has no tokenizer at all); w may then hold some keys (the caller
 * discards it). info may be NULL. */
mio_status mio_hf_vocab_write(mio_writer *w, const hf_vocab_opts *o, hf_vocab_info *info);

/* --------------------------------------------------------------- metadata */

/* One output tensor, for the parameter counts (gguf-py's get_total_parameter_count). */
typedef struct hf_meta_tensor {
    const char *name;         /* GGUF name */
    uint32_t n_dims;
    int64_t ne[4];            /* ggml order */
} hf_meta_tensor;

typedef struct hf_meta_in {
    const char *dir;              /* checkpoint directory (its last path component is the fallback name) */
    const mio_json *config;          /* config.json (as read, before text_config merging) */
    const char *model_name;       /* --model-name or NULL */
    const hf_meta_tensor *tensors; /* every tensor the output holds, in output order */
    size_t n_tensors;
} hf_meta_in;

typedef struct hf_meta {
    char *name, *basename, *finetune, *version, *size_label; /* malloc()ed, NULL when absent */
    /* get_total_parameter_count() over in->tensors (total < 0: a LoRA pair seen) */
    int64_t total_params, shared_params, expert_params, expert_count;
    bool model_card_read;    /* README.md's front matter gave general.* values */
    char card_warning[512];  /* not empty: the front matter could not be read (why); the caller warns */
} hf_meta;

/* The general.* keys of Metadata.load(...) + set_gguf_meta_model(), written onto
 * w in the reference's order (general.architecture and general.type were
 * written before by the caller; general.file_type and
 * general.quantization_version are the caller's too). m receives the fields the
 * file name needs (free with mio_hf_meta_free). */
mio_status mio_hf_meta_write(mio_writer *w, const hf_meta_in *in, hf_meta *m);
void mio_hf_meta_free(hf_meta *m);
/* gguf.naming_convention(): the default output file name without ".gguf"
 * (output_type "F16", "BF16", "Q8_0", ... from the file type; vocab_only gives
 * the "-vocab" form). malloc()ed, NULL on allocation failure. */
char *mio_hf_default_filename(const hf_meta *m, const char *output_type, bool vocab_only);
/* gguf.size_label(): "135M", "8x7.2B", ... (malloc()ed, NULL on allocation failure). */
char *mio_hf_size_label(int64_t total, int64_t shared, int64_t expert, int64_t expert_count);
/* gguf.fill_templated_filename(): --outfile NAME with {ftype} {outtype} (lower
 * case), {FTYPE} {OUTTYPE} (upper case), {} and {0} (lower case), {{ and }}
 * replaced as Python's str.format does. *out is malloc()ed. A field Python would
 * refuse (another name, a format spec or conversion, an unmatched brace) is
 * MIO_ERR_INVALID_ARG naming it. output_type may be NULL (then fields are ""). */
mio_status mio_hf_fill_templated_filename(const char *templ, const char *output_type, char **out);

#endif
