/* SPDX-License-Identifier: MIT */
/* quantize_internal.h — the quantizer's type policy and tensor order, shared by
 * policy.c (this module) and quantize.c (the driver: mio_quantize, metadata,
 * streaming encode). Nothing here is exported.
 *
 * The rules reproduce llama.cpp's llama_model_quantize (src/llama-quant.cpp) as
 * built in the pinned peer (node-llama-cpp 3.22.1, llama.cpp commit 0ad4a86):
 * which tensors are quantized, the type each one gets, the order they are
 * written in and how --prune-layers renames blocks. docs/QUANTIZE.md states the
 * rules in prose; tests/interop/interop_quant_policy.c checks them against the
 * peer's own llama_model_quantize, tensor by tensor.
 *
 * Typical use by the driver:
 *   qz_model m;         mio_qz_model_from_gguf(in, &m);
 *   qz_item *it; size_t n; uint32_t bc; bool bc_set;
 *   mio_qz_output_order(in, prune, n_prune, keep_split, &it, &n, &bc, &bc_set);
 *   qz_policy pol;      mio_qz_policy_from_params(p, imatrix != NULL, &pol);
 *   qz_summary sum;     mio_qz_choose_types(&m, &pol, it, n, &sum);
 *   ... write it[0..n) in that order: copy when !it[i].convert, else decode
 *       in_type -> f32 -> encode out_type (imatrix entry looked up by orig_name) ...
 *   free(it);
 */
#ifndef MIO_QUANTIZE_INTERNAL_H
#define MIO_QUANTIZE_INTERNAL_H

#include "modelio.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GGUF tensor names are shorter than this (ggml's GGML_MAX_NAME). */
#define QZ_NAME_MAX 64

/* ---------------------------------------------------------------- presets */

/* Case-insensitive: the llama-quantize names, the aliases Q3_K/Q4_K/Q5_K, and a
 * number read as llama-quantize reads one (std::stoi: leading blanks, a sign,
 * digits, anything after ignored) that is the ftype of a listed preset. Returns
 * MIO_PRESET_NONE otherwise (also for "COPY", which is not a preset). These are
 * the bodies of mio_preset_from_name / mio_preset_name. */
int mio_qz_preset_from_name(const char *name);
const char *mio_qz_preset_name(int preset);
/* For an unknown preset name: the valid name nearest by edit distance
 * (case-insensitive Levenshtein), or NULL when nothing is close (more than
 * half the name's length away). For the tools' "did you mean" message. */
const char *mio_qz_preset_suggest(const char *name);

/* ------------------------------------------------------------------ model */

/* The architectures whose name changes a rule. */
enum {
    QZ_ARCH_OTHER = 0,
    QZ_ARCH_LLAMA,        /* "llama": 70B when 80 blocks and GQA, no 8 experts */
    QZ_ARCH_DECI,         /* "deci": 70B when 80 blocks */
    QZ_ARCH_QWEN2,        /* "qwen2": 70B when 80 blocks */
    QZ_ARCH_JAIS2,        /* "jais2": 70B when 68 blocks */
    QZ_ARCH_OLMO,         /* "olmo": 70B when 80 blocks */
    QZ_ARCH_FALCON,       /* "falcon": its own output / ffn_down / attn_output rules */
    QZ_ARCH_BAILINGMOE3,  /* "bailingmoe3": MXFP4_MOE only for its ffn experts */
};

/* What the policy reads of the model: llama.cpp's hparams, from the metadata. */
typedef struct qz_model {
    char arch_name[QZ_NAME_MAX];  /* general.architecture ("" when absent) */
    int arch;                     /* QZ_ARCH_* */
    uint32_t n_layer;             /* <arch>.block_count (of the input: pruning does not change it here) */
    uint32_t n_head;              /* <arch>.attention.head_count, first layer when an array */
    uint32_t n_head_kv;           /* <arch>.attention.head_count_kv, first layer; default n_head */
    uint32_t n_expert;            /* <arch>.expert_count, 0 when absent */
    bool is_70b;                  /* llama.cpp's LLM_TYPE_70B */
} qz_model;

/* Fill m from f's metadata (missing keys read as 0; head_count_kv defaults to
 * head_count). MIO_ERR_INVALID_ARG for NULL arguments only. */
mio_status mio_qz_model_from_gguf(const mio_gguf_file *f, qz_model *m);
/* Derive m->arch and m->is_70b from arch_name and the counts (mio_qz_model_from_gguf
 * calls it; tests that fill a qz_model by hand call it too). */
void mio_qz_model_finish(qz_model *m);

/* ------------------------------------------------------------------ items */

/* One output tensor, in output order. mio_qz_output_order fills the first block,
 * mio_qz_choose_types the second. */
typedef struct qz_item {
    int64_t src;                 /* index of the tensor in the input (mio_gguf_tensor_info) */
    char name[QZ_NAME_MAX];      /* name in the output (blocks renumbered when pruning) */
    char orig_name[QZ_NAME_MAX]; /* name in the input: the imatrix entry to use */
    uint32_t n_dims;             /* as in the input file */
    int64_t ne[4];
    int in_type;
    uint32_t part;               /* input part (split files) */
    uint64_t offset;             /* offset in that part's data section */

    int out_type;                /* type in the output */
    bool quantizable;            /* llama.cpp's tensor_allows_quantization */
    bool convert;                /* out_type != in_type: decoded to f32 and re-encoded; else copied verbatim */
    bool requires_imatrix;       /* encoding it without importance data is refused */
    const char *why;             /* static reason for out_type ("preset", "output tensor", "use_more_bits", ...) */
} qz_item;

/* Tensors of f in llama.cpp's output order, pruned and renamed:
 *  - order: llama_model_loader's weights map: tensors whose name starts with
 *    "blk.<N>." (sscanf) sorted by N, the others (N = -1) first; ties by strcmp
 *    of the name. With keep_split: by input part, then by offset in the part.
 *  - prune (block numbers, any order, duplicates allowed; NULL when n_prune is
 *    0; not modified): sorted and de-duplicated on a copy as llama-quantize
 *    does before llama.cpp sees it, then tensors of those blocks are dropped
 *    and the remaining blocks from the smallest pruned number on are
 *    renumbered consecutively (see docs/QUANTIZE.md).
 *    *block_count_set tells whether llama.cpp rewrites <arch>.block_count (it
 *    does whenever the prune list is not empty), *block_count the value (u32).
 * *items is malloc()ed (free() it); NULL with *n_items 0 for a model without
 * tensors. block_count / block_count_set may be NULL. */
mio_status mio_qz_output_order(const mio_gguf_file *f, const int32_t *prune, size_t n_prune, bool keep_split,
                               qz_item **items, size_t *n_items, uint32_t *block_count, bool *block_count_set);

/* ----------------------------------------------------------------- policy */

typedef struct qz_policy {
    int ftype;                    /* preset (llama_ftype) */
    bool pure;                    /* --pure */
    bool quantize_output_tensor;  /* !--leave-output-tensor */
    bool allow_requantize;        /* --allow-requantize */
    bool dry_run;                 /* decide only: a missing imatrix is reported, not refused */
    bool has_imatrix;             /* an importance matrix was given (any entries) */
    int output_tensor_type;       /* -1 = the preset's rule */
    int token_embedding_type;     /* -1 = the preset's rule */
    int experts_type;             /* -1 = none; else an implicit first --tensor-type "_exps\.weight$" */
    const mio_tensor_type_override *tensor_types; /* --tensor-type, in order (first match wins); the
                                                     patterns are lower-cased (on a copy) when compiled */
    size_t n_tensor_types;
} qz_policy;

void mio_qz_policy_from_params(const mio_quantize_params *p, bool has_imatrix, qz_policy *out);

typedef struct qz_summary {
    int n_fallback;               /* tensors whose row length forced another type */
    bool will_require_imatrix;    /* dry run: the real run needs an imatrix */
    bool types_decided;           /* every item's out_type is set (true also when only a
                                     write-time refusal failed the call) */
} qz_summary;

/* Decide out_type, quantizable, convert, requires_imatrix and why for items[0..n)
 * (in output order: the per-category counters depend on it). Fails like
 * llama_model_quantize does before or while writing (types first, for every
 * item; then the imatrix requirement; then, in output order, what the writing
 * would refuse):
 *   MIO_ERR_INVALID_ARG          unknown preset ("invalid output file type"), a
 *                                --tensor-type pattern that does not compile
 *   MIO_ERR_UNSUPPORTED_TYPE     no fallback type for a row length
 *   MIO_ERR_INVALID_TENSOR_INFO  MoE model: a tensor's block number missing or out of range
 *   MIO_ERR_ENCODER_UNAVAILABLE  "this quantization requires an imatrix!" (not in a dry run)
 *   MIO_ERR_TYPE_MISMATCH        a quantized input would be re-encoded without allow_requantize,
 *                                or an input type that cannot be converted (not in a dry run)
 *   MIO_ERR_INVALID_TENSOR_INFO  a type set by --output-tensor-type / --token-embedding-type
 *                                (no fallback there) does not divide the rows: llama.cpp
 *                                aborts in ggml (not in a dry run)
 * The message names the tensor. sum may be NULL. */
mio_status mio_qz_choose_types(const qz_model *m, const qz_policy *pol, qz_item *items, size_t n, qz_summary *sum);

#endif
