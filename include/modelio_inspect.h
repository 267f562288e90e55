/* SPDX-License-Identifier: MIT */
/**
 * modelio_inspect.h — libmodelio's inspection API: format detection, tensor and
 * whole-model hashes with their manifest format, tensor statistics, model diff,
 * the model description mio-inspect prints, and "will it fit?" memory
 * estimates. A second public header beside modelio.h (as zstd keeps zdict.h):
 * everything here follows modelio.h's conventions (mio_status results,
 * mio_last_error() messages, outputs untouched on failure, NULL arguments never
 * crash) and is exported from the same libmodelio.so / libmodelio.a.
 */
#ifndef MODELIO_INSPECT_H
#define MODELIO_INSPECT_H

#include <modelio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** Memory estimates ("will it fit?")                                         */
/* ------------------------------------------------------------------------- */
/** What llama.cpp's CPU back end allocates for a GGUF model and a context
 * (docs/ESTIMATE.md): the mapped weights, the KV cache and the compute buffer
 * of a context made from llama_context_default_params() with the fields below
 * changed. Weights and KV cache are llama.cpp's byte counts, the compute buffer
 * an estimate of ggml's graph allocation (within 10 % on the tested models). */

/** Flash attention, as llama_context_params.flash_attn_type. */
enum {
    MIO_FLASH_ATTN_AUTO = -1, /**< llama.cpp's default: on when the back end runs it (the CPU does) */
    MIO_FLASH_ATTN_OFF = 0,
    MIO_FLASH_ATTN_ON = 1
};

typedef struct mio_estimate_params {
    size_t size;         /**< sizeof(mio_estimate_params): set by mio_estimate_default_params */
    uint32_t n_ctx;      /**< context length (512, llama.cpp's default); 0 = the model's context_length */
    uint32_t n_batch;    /**< logical batch (2048) */
    uint32_t n_ubatch;   /**< physical batch (512) */
    uint32_t n_seq_max;  /**< sequences, llama.cpp's n_seq_max / --parallel (1) */
    int type_k;          /**< K cache type, a MIO_TYPE_* (MIO_TYPE_F16) */
    int type_v;          /**< V cache type (MIO_TYPE_F16); quantized needs flash attention */
    int flash_attn;      /**< MIO_FLASH_ATTN_AUTO (default), _OFF or _ON */
    int swa_full;        /**< 1 (default): sliding-window layers get a full-size cache, as llama.cpp's swa_full */
    int kv_unified;      /**< 0 (default): one KV stream per sequence, as llama.cpp's kv_unified */
} mio_estimate_params;

typedef struct mio_estimate_result {
    uint64_t weights_bytes;   /**< mapped model buffer(s): first to last tensor byte of each file */
    uint64_t kv_cache_bytes;  /**< k_bytes + v_bytes (the KV buffers llama.cpp allocates) */
    uint64_t k_bytes, v_bytes;
    uint64_t compute_bytes;   /**< the compute (graph) buffer, estimated */
    uint64_t output_bytes;    /**< the logits/embeddings output buffer made at context creation */
    uint64_t total_bytes;     /**< weights + KV cache + compute + output */
    uint32_t n_ctx;           /**< the context llama.cpp uses (llama_n_ctx) */
    uint32_t n_ctx_seq;       /**< per sequence (llama_n_ctx_seq) */
    uint32_t n_batch, n_ubatch, n_seq_max; /**< as llama.cpp resolves them */
    uint32_t kv_size;         /**< cells of a full-attention layer's cache (per stream) */
    uint32_t kv_size_swa;     /**< cells of a sliding-window layer's cache (0 if none) */
    uint32_t n_stream;        /**< KV streams (n_seq_max, or 1 when unified) */
    uint32_t n_layer;         /**< model layers */
    uint32_t n_layer_kv;      /**< layers with a KV cache */
    uint32_t n_layer_swa;     /**< of those, sliding-window layers */
    uint32_t n_swa;           /**< the sliding window (tokens), 0 if none */
    int flash_attn;           /**< as resolved: MIO_FLASH_ATTN_ON or _OFF */
    int type_k, type_v;       /**< the cache types */
    char arch[32];            /**< general.architecture (NUL-terminated, truncated) */
} mio_estimate_result;

/** Defaults: llama_context_default_params()'s (n_ctx 512, n_batch 2048,
 * n_ubatch 512, one sequence, f16 caches, flash attention auto, swa_full). */
MIO_API void mio_estimate_default_params(mio_estimate_params *p);
/** As mio_quantize_default_params_sized. */
MIO_API mio_status mio_estimate_default_params_sized(mio_estimate_params *p, size_t size);
/** Estimate for the GGUF model at path (the first part of a split model names
 * the others). p may be NULL (defaults). Refused as llama.cpp refuses the
 * context: a quantized V cache with flash attention off
 * (MIO_ERR_UNSUPPORTED, "quantized V cache requires flash attention"), a cache
 * type ggml cannot hold, n_ctx 0 without a context_length, n_ubatch 0 with
 * n_batch 0, more than 256 sequences; an architecture whose attention this
 * does not know (recurrent or hybrid models) is MIO_ERR_UNSUPPORTED. */
MIO_API mio_status mio_estimate(const char *path, const mio_estimate_params *p, mio_estimate_result *out);
/** As mio_estimate for a caller whose result struct is out_size bytes (an
 * older, smaller one gets the prefix it knows). */
MIO_API mio_status mio_estimate_sized(const char *path, const mio_estimate_params *p, mio_estimate_result *out,
                                      size_t out_size);

#ifdef __cplusplus
}
#endif

#endif
