/* SPDX-License-Identifier: MIT */
/**
 * modelio_inspect.h — libmodelio's inspection API: format detection, tensor and
 * whole-model hashes with their manifest format, tensor statistics, model diff,
 * the model description mio-inspect prints, and "will it fit?" memory
 * estimates. A second public header beside modelio.h (as zstd keeps zdict.h):
 * everything here follows modelio.h's conventions (mio_status results,
 * mio_last_error() messages, outputs untouched on failure, NULL arguments never
 * crash) and is exported from the same libmodelio.so / libmodelio.a.
 *
 * Names: mio_model_ (a mio_model handle: free with mio_model_close), mio_hash_
 * (digests and manifests), mio_describe_ and mio_stats_json (texts, free with
 * mio_free), mio_estimate (memory), mio_detect_format / mio_format_name, and
 * the text helpers by what they do. Sections: format detection, the model,
 * hashes and manifests, statistics, diff, description, text helpers, memory
 * estimates. Details: docs/INSPECT.md, docs/ESTIMATE.md.
 */
#ifndef MODELIO_INSPECT_H
#define MODELIO_INSPECT_H

#include <modelio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** Format detection                                                          */
/* ------------------------------------------------------------------------- */
typedef enum mio_format {
    MIO_FORMAT_UNREADABLE = -1, /**< could not open or read the file (errno set), or not a regular file */
    MIO_FORMAT_UNKNOWN = 0,
    MIO_FORMAT_GGUF = 1,        /**< starts with "GGUF" */
    MIO_FORMAT_SAFETENSORS = 2, /**< a safetensors file */
    MIO_FORMAT_ST_INDEX = 3     /**< a sharded safetensors index (*.index.json) */
} mio_format;

/** The format of path: a name ending in ".index.json" is a sharded safetensors
 * index; otherwise the first bytes decide: "GGUF" is GGUF; an 8-byte
 * little-endian length followed by '{' or JSON whitespace is safetensors. A
 * file matching neither whose name ends in ".safetensors" is reported as
 * safetensors too (so the reader names what is wrong with it). A FIFO or device
 * is never read (MIO_FORMAT_UNREADABLE, without blocking). NULL: UNREADABLE. */
MIO_API mio_format mio_detect_format(const char *path);
/** "GGUF", "safetensors", "safetensors index", "unknown". */
MIO_API const char *mio_format_name(mio_format f);

/* ------------------------------------------------------------------------- */
/** A model of any format, read through its own descriptors                   */
/* ------------------------------------------------------------------------- */
/** A GGUF (a split model given as its first part: every part), a safetensors
 * file or a sharded safetensors index, opened as one list of tensors. The
 * headers are parsed by mio_gguf_open / mio_st_open; tensor bytes are then read
 * with pread through descriptors the model keeps (checked to be the very files
 * parsed), never through a mapping: a file truncated, replaced or unreadable
 * after the open is an error naming the tensor and the byte offsets, never a
 * SIGBUS. Read-only after the open: may be shared by threads. */
typedef struct mio_model mio_model;

typedef struct mio_model_tensor {
    mio_str name;           /**< view into the model, not NUL-terminated */
    int type;               /**< mio_type code (safetensors-only dtypes from 1000) */
    uint32_t n_dims;
    const uint64_t *shape;  /**< n_dims sizes, outermost first (as safetensors and numpy write them) */
    uint64_t n_elems;
    uint64_t nbytes;
    uint32_t file;          /**< index of the file holding the bytes (split part, shard) */
    uint64_t offset;        /**< absolute offset of the first byte in that file */
} mio_model_tensor;

/** Open a model; *out receives the handle (free with mio_model_close). When a
 * safetensors file's data is shorter than its header says, the message names
 * the first tensor (in data order) that is cut short. */
MIO_API mio_status mio_model_open(const char *path, mio_model **out);
MIO_API void mio_model_close(mio_model *m);
/** MIO_FORMAT_GGUF, _SAFETENSORS or _ST_INDEX; MIO_FORMAT_UNKNOWN for NULL. */
MIO_API mio_format mio_model_format(const mio_model *m);
/** Tensor count (-1 for NULL); file count (split parts, shards; 0 for NULL). */
MIO_API int64_t mio_model_tensor_count(const mio_model *m);
MIO_API uint32_t mio_model_file_count(const mio_model *m);
/** Path of file k (NUL-terminated, owned by the model); NULL if out of range. */
MIO_API const char *mio_model_file_path(const mio_model *m, uint32_t k);
MIO_API mio_status mio_model_tensor_info(const mio_model *m, int64_t i, mio_model_tensor *out);
/** The parsed GGUF (NULL unless the format is GGUF) / safetensors handle
 * (NULL for GGUF), for metadata; owned by the model. */
MIO_API const mio_gguf_file *mio_model_gguf(const mio_model *m);
MIO_API const mio_st_file *mio_model_st(const mio_model *m);
/** Read len bytes of tensor i starting offset bytes into its data (pread). */
MIO_API mio_status mio_model_read(const mio_model *m, int64_t i, uint64_t offset, void *buf, size_t len);
/** Read every tensor byte (n_threads 0: one per core, at most 8), reporting
 * the first damaged tensor in file order; *bytes (may be NULL) = bytes read. */
MIO_API mio_status mio_model_verify(const mio_model *m, int n_threads, uint64_t *bytes);

/* ------------------------------------------------------------------------- */
/** Hashes and manifests                                                      */
/* ------------------------------------------------------------------------- */
typedef enum mio_hash_alg { MIO_HASH_XXH64 = 0, MIO_HASH_XXH3 = 1, MIO_HASH_SHA256 = 2 } mio_hash_alg;
#define MIO_HASH_MAX_DIGEST 32

/** "xxh64" / "xxh3" / "sha256" -> the algorithm; -1 for another name or NULL. */
MIO_API int mio_hash_alg_from_name(const char *name);
/** The name of alg; NULL if unknown. */
MIO_API const char *mio_hash_alg_name(int alg);
/** Digest bytes: 8 (xxh64, xxh3), 32 (sha256); 0 for an unknown alg. */
MIO_API size_t mio_hash_digest_size(int alg);
/** Digest of n bytes (xxh values in their canonical big-endian byte order, so
 * the hex is what xxhsum / llama-gguf-hash print; sha256 as sha256sum). */
MIO_API mio_status mio_hash_bytes(int alg, const void *p, size_t n, unsigned char *digest);
/** Hash every tensor's data bytes: digests receives count * digest size bytes,
 * tensor i's digest at i * mio_hash_digest_size(alg). n_threads 0: one per
 * core (at most 8). */
MIO_API mio_status mio_model_hash(const mio_model *m, int alg, int n_threads, unsigned char *digests);
/** The manifest `mio-inspect --hash ALG PATH` prints, whole: the header line
 * "# mio-inspect manifest v1 ALG", one "HEX  NAME" line per tensor sorted by
 * name bytes (sha256sum's escapes; a line with an escaped name starts with a
 * backslash), and "model  HEX", the digest of the tensor lines. *text is
 * NUL-terminated (free with mio_free); *len (may be NULL) its length.
 * Everything is hashed before the text exists: a failure gives no text. */
MIO_API mio_status mio_hash_manifest(const char *path, int alg, int n_threads, char **text, size_t *len);

/** One problem found by mio_hash_check. */
typedef enum mio_check_kind {
    MIO_CHECK_DIFFERS = 1, /**< the tensor's digest differs from the manifest's */
    MIO_CHECK_MISSING = 2, /**< in the manifest, not in the file */
    MIO_CHECK_EXTRA = 3    /**< in the file, not in the manifest */
} mio_check_kind;
typedef struct mio_check_item {
    mio_check_kind kind;
    mio_str name;
    int64_t line;                  /**< manifest line (0 for EXTRA) */
    const unsigned char *expected; /**< manifest digest (DIFFERS, MISSING), else NULL */
    const unsigned char *actual;   /**< file digest (DIFFERS, EXTRA), else NULL */
    int alg;                       /**< the manifest's algorithm (digests are mio_hash_digest_size(alg) bytes) */
} mio_check_item;
/** Problems come in manifest order (DIFFERS, MISSING), then EXTRA by name. */
typedef void (*mio_check_fn)(void *user, const mio_check_item *item);
typedef struct mio_check_result {
    int alg;
    int64_t n_tensors;     /**< tensors in the file */
    uint64_t n_entries;    /**< tensor lines in the manifest */
    uint64_t differ, missing, extra;
    int model_matches;     /**< 1 if the whole-model digest matches the manifest's 'model' line */
    int ok;                /**< 1 if everything matches */
} mio_check_result;
/** Check the model at path against a manifest file. A manifest that cannot
 * be read or is malformed is MIO_ERR_IO / MIO_ERR_INVALID_METADATA naming the
 * line; a mismatch is MIO_OK with res->ok 0 (fn, may be NULL, gets each
 * problem). */
MIO_API mio_status mio_hash_check(const char *manifest_path, const char *path, int n_threads, mio_check_fn fn,
                                  void *user, mio_check_result *res);

/* ------------------------------------------------------------------------- */
/** Tensor statistics                                                         */
/* ------------------------------------------------------------------------- */
typedef struct mio_tensor_stats {
    int decoded;            /**< 0: the type has no numeric view (!mio_type_can_decode); only elements is set */
    uint64_t elements, finite, nan, inf, zeros;
    double min, max, mean, std; /**< over the finite values (population std); NaN when none is finite */
    double zero_fraction;   /**< zeros / elements (0 for an empty tensor) */
} mio_tensor_stats;
/** Statistics of tensor i, read a chunk at a time (bounded memory). Integer
 * and 64-bit float values are taken as doubles (exact up to 2^53). */
MIO_API mio_status mio_model_tensor_stats(const mio_model *m, int64_t i, mio_tensor_stats *out);
/** The JSON `mio-inspect --stats --json PATH` prints; free with mio_free. */
MIO_API mio_status mio_stats_json(const char *path, char **text, size_t *len);

/* ------------------------------------------------------------------------- */
/** Model diff                                                                */
/* ------------------------------------------------------------------------- */
typedef enum mio_diff_kind {
    MIO_DIFF_META_NOT_COMPARED = 0, /**< one GGUF and one safetensors model: metadata not compared */
    MIO_DIFF_KEY_ONLY_A = 1,
    MIO_DIFF_KEY_ONLY_B = 2,
    MIO_DIFF_KEY_CHANGED = 3,
    MIO_DIFF_TENSOR_ONLY_A = 4,
    MIO_DIFF_TENSOR_ONLY_B = 5,
    MIO_DIFF_TENSOR_CHANGED = 6
} mio_diff_kind;
typedef struct mio_diff_item {
    mio_diff_kind kind;
    mio_str name;              /**< the key or tensor name */
    int64_t a, b;              /**< its index in A / in B (key or tensor), -1 when absent */
    /* TENSOR_CHANGED: */
    int type_changed, shape_changed;
    int bytes_compared;        /**< same type and shape: the bytes were compared */
    uint64_t first_byte;       /**< bytes_compared: offset of the first differing byte */
    int values_compared;       /**< both sides decoded to numbers and compared element by element */
    uint64_t values_differ;    /**< elements that differ (NaN equals NaN) */
    uint64_t nonfinite;        /**< of those, NaN/inf on one side */
    int has_max;               /**< a finite difference exists: the next four fields are set */
    double max_abs_diff;
    uint64_t max_at;           /**< element index of the largest difference */
    double a_value, b_value;
} mio_diff_item;
/** Items in order: metadata by key bytes, then tensors by name bytes. */
typedef void (*mio_diff_fn)(void *user, const mio_diff_item *item);
/** Compare two models; *n_keys / *n_tensors (may be NULL) receive the numbers
 * of differing keys / tensors (both 0: identical). */
MIO_API mio_status mio_model_diff(const mio_model *a, const mio_model *b, mio_diff_fn fn, void *user,
                                  uint64_t *n_keys, uint64_t *n_tensors);
/** A short text for metadata entry i of m: a GGUF value as "TYPE VALUE"
 * ("u32 4096", "string \"llama\"" (60 bytes at most, then "... (N bytes)"),
 * "array [N TYPE]"), a safetensors __metadata__ value quoted. Escaped for a
 * terminal; free with mio_free. */
MIO_API mio_status mio_model_kv_text(const mio_model *m, int64_t i, char **text);

/* ------------------------------------------------------------------------- */
/** Model description                                                         */
/* ------------------------------------------------------------------------- */
/** Flags of the mio_describe_* calls. */
#define MIO_DESCRIBE_FULL_ARRAYS 1u /**< JSON: every array in full (else arrays over 64 elements: count + "truncated") */
#define MIO_DESCRIBE_ONE_PART 2u    /**< GGUF: this one file of a split model, not all parts */
#define MIO_DESCRIBE_META 4u        /**< text: every metadata key with its type and value */
#define MIO_DESCRIBE_TENSORS 8u     /**< text: every tensor (name, shape, type, offsets, bytes) */
/** The summary `mio-inspect PATH` prints (version, alignment, counts, offsets,
 * per-type totals; a safetensors file or index: header size, counts, per-dtype
 * totals), with the metadata list and the tensor table on request. *text is
 * NUL-terminated, free with mio_free; *len (may be NULL) its length. The
 * format is detected by content (mio_detect_format). */
MIO_API mio_status mio_describe_text(const char *path, unsigned flags, char **text, size_t *len);
/** The JSON object `mio-inspect --json PATH` prints (schema in docs/TOOLS.md):
 * header, metadata with values, tensors with offsets, per-type totals, bits
 * per weight. */
MIO_API mio_status mio_describe_json(const char *path, unsigned flags, char **text, size_t *len);
/** The Markdown `mio-inspect --markdown PATH` prints (gguf-dump's layout:
 * metadata table, tensors grouped by block with per-group elements and bits
 * per weight). */
MIO_API mio_status mio_describe_markdown(const char *path, unsigned flags, char **text, size_t *len);

/** What a model is, in numbers: architecture and size from its GGUF metadata
 * (general.architecture, ARCH.context_length, .block_count,
 * .embedding_length, .attention.head_count (the largest, when per layer),
 * .attention.head_count_kv (head_count when absent, as llama.cpp), .vocab_size
 * or the tokenizer's token count; 0 / "" when absent or not GGUF), and the
 * quantization mix from the tensor table (any format). */
#define MIO_SUMMARY_MAX_TYPES 24
typedef struct mio_summary_type {
    int type;               /**< mio_type code */
    uint64_t tensors, elements, bytes;
} mio_summary_type;
typedef struct mio_model_summary {
    mio_format format;
    char architecture[64];  /**< NUL-terminated, cut to 63 bytes */
    char name[128];         /**< general.name, cut to 127 bytes */
    int64_t n_tensors;
    uint64_t n_params;      /**< elements of every tensor */
    uint64_t tensor_bytes;
    double bits_per_weight; /**< tensor_bytes * 8 / n_params */
    uint64_t context_length, n_layer, n_embd, n_head, n_head_kv, n_vocab;
    uint32_t n_types;       /**< rows of types[], most bytes first (at most MIO_SUMMARY_MAX_TYPES; the rest uncounted) */
    mio_summary_type types[MIO_SUMMARY_MAX_TYPES];
} mio_model_summary;
MIO_API mio_status mio_model_summary_get(const mio_model *m, mio_model_summary *out);

/** A mixture of experts, as llama.cpp reads it (GGUF: {arch}.expert_count,
 * expert_used_count, expert_shared_count, and the routed experts' stacked
 * tensors, named "*_exps.*"); all zero for a dense model or another format.
 * Pass sizeof *out as out_size (fields may be appended later). */
typedef struct mio_model_experts {
    uint64_t n_expert;        /**< experts per block (0: not a mixture of experts) */
    uint64_t n_expert_used;   /**< experts a token runs through */
    uint64_t n_expert_shared; /**< shared experts every token runs through (DeepSeek) */
    uint64_t n_layer_moe;     /**< blocks with routed experts */
    uint64_t n_params;        /**< elements of every tensor (mio_model_summary.n_params) */
    uint64_t n_params_expert; /**< elements of the routed experts' tensors */
    uint64_t n_params_active; /**< elements a token uses: n_params - n_params_expert + n_params_expert * n_expert_used / n_expert */
} mio_model_experts;
MIO_API mio_status mio_model_experts_get(const mio_model *m, mio_model_experts *out, size_t out_size);

/* ------------------------------------------------------------------------- */
/** Text helpers the tools and bindings share                                 */
/* ------------------------------------------------------------------------- */
/** The offset of the first byte of p[0..n) that does not start a valid UTF-8
 * sequence (overlong forms, surrogates and code points above U+10FFFF are
 * invalid), or n when all of it is valid UTF-8. */
MIO_API size_t mio_utf8_check(const char *p, size_t n);
/** n bytes as text for a terminal, NUL-terminated (free with mio_free): valid
 * UTF-8 passes through, invalid bytes become U+FFFD, control characters are
 * escaped (`\n` `\t` `\r`, `\xNN`; with quoted also `\"` and `\\`). At most max_bytes input
 * bytes are taken (stopping on a sequence boundary); *used (may be NULL) gets
 * the number taken. */
MIO_API char *mio_escape_text(const char *p, size_t n, size_t max_bytes, int quoted, size_t *used);
/** A JSON string literal (with the quotes) for n arbitrary bytes: invalid UTF-8
 * becomes U+FFFD, control characters `\u`-escaped. Free with mio_free; NULL when
 * out of memory. */
MIO_API char *mio_json_quote(const char *p, size_t n);
/** Shortest decimal text that reads back to the same double / float ("0.1",
 * "1e-05"); "null" for NaN and infinities. cap at least 32. Returns buf. */
MIO_API char *mio_format_f64(char *buf, size_t cap, double v);
MIO_API char *mio_format_f32(char *buf, size_t cap, float v);
/** "512 B", "1.50 MiB" (powers of 1024, two decimals). cap at least 32. Returns buf. */
MIO_API char *mio_format_size(char *buf, size_t cap, uint64_t bytes);

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
