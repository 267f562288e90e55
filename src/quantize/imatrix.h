/* SPDX-License-Identifier: MIT */
/* imatrix.h — importance matrices for the quantizer (mio_quantize --imatrix).
 * Reads llama.cpp's two imatrix formats (the legacy .dat and the GGUF form) and
 * hands out, per tensor name, exactly the float vector llama-quantize passes to
 * llama_model_quantize: the sums normalised by their counts, after the
 * --include-weights / --exclude-weights filter. docs/QUANTIZE.md ("llama-quantize:
 * CLI and imatrix") has the formats and the rules this follows. Internal only. */
#ifndef MIO_QZ_IMATRIX_H
#define MIO_QZ_IMATRIX_H

#include "core/core.h"

typedef struct qz_imatrix qz_imatrix;

enum {
    QZ_IMATRIX_LEGACY = 1, /* the .dat layout (anything that does not start with "GGUF") */
    QZ_IMATRIX_GGUF = 2    /* <name>.in_sum2 / <name>.counts tensors + imatrix.* keys */
};

/* Read path (format chosen by content: the GGUF magic or not) and normalise
 * every entry. A malformed file is refused with a message naming the entry and
 * the numbers; so is a GGUF imatrix without imatrix.datasets, imatrix.chunk_count
 * and imatrix.chunk_size (llama-quantize: "missing imatrix metadata"), one whose
 * chunk_count/chunk_size is not u32 (llama.cpp aborts), and one with a .counts
 * tensor of no elements (llama-quantize divides by zero). NaN/inf values are
 * loaded as they are: llama.cpp refuses them only at quantize time, after the
 * filter (mio_qz_imatrix_check_finite). A file whose GGUF tensors include no
 * .in_sum2/.counts pair loads with no entries (count 0: quantize without one). */
mio_status mio_qz_imatrix_load(const char *path, qz_imatrix **out);
/* NULL is a no-op. */
void mio_qz_imatrix_free(qz_imatrix *im);

int mio_qz_imatrix_format(const qz_imatrix *im);
/* Entries held now (after mio_qz_imatrix_filter): the value of quantize.imatrix.entries_count. */
uint64_t mio_qz_imatrix_count(const qz_imatrix *im);
/* Entry i, entries sorted by name (bytewise). The name is NUL-terminated (names
 * are cut at their first NUL byte, as llama.cpp's std::string does). */
mio_str mio_qz_imatrix_name(const qz_imatrix *im, uint64_t i);
/* The normalised values of entry i (*n of them; NULL when *n is 0). */
const float *mio_qz_imatrix_values(const qz_imatrix *im, uint64_t i, uint64_t *n);
/* Index of the entry named name (len bytes), or -1. */
int64_t mio_qz_imatrix_find(const qz_imatrix *im, const char *name, size_t len);

/* llama-quantize's chunk count (its m_last_call): the legacy trailer's int32, or
 * GGUF imatrix.chunk_count read as u32 and kept as int32; 0 when absent. */
int32_t mio_qz_imatrix_chunk_count(const qz_imatrix *im);
/* GGUF imatrix.chunk_size (0 for legacy files or when absent). */
uint32_t mio_qz_imatrix_chunk_size(const qz_imatrix *im);
/* Dataset names: the legacy trailer's one, or every element of GGUF
 * imatrix.datasets (when it is an array of strings), each cut at its first NUL. */
uint64_t mio_qz_imatrix_dataset_count(const qz_imatrix *im);
const char *mio_qz_imatrix_dataset(const qz_imatrix *im, uint64_t i);

/* --include-weights / --exclude-weights: keep only the entries whose name
 * contains one of include[] (a substring, case-sensitive), or drop those that
 * contain one of exclude[]. Both non-empty is MIO_ERR_INVALID_ARG (llama-quantize
 * refuses the combination). An empty string matches every name. */
mio_status mio_qz_imatrix_filter(qz_imatrix *im, const char *const *include, size_t n_include,
                                 const char *const *exclude, size_t n_exclude);

/* llama_model_quantize's check before anything is written: MIO_ERR_NON_FINITE
 * ("imatrix contains non-finite value nan ...") if any value held is NaN or inf. */
mio_status mio_qz_imatrix_check_finite(const qz_imatrix *im);

/* The vector llama_model_quantize uses for tensor name (its name in the input
 * file: with --prune-layers, the pre-renumbering name) of ne[0] = ne0 columns and
 * ne[2] = ne2 experts. MIO_OK with *out = the values (expert e's weights at
 * *out + e * ne0), or *out = NULL when im is NULL, when there is no entry of that
 * name ("did not find weights"), or when the size differs and the tensor is
 * token_embd.weight / per_layer_token_embd.weight (ignored). Any other size
 * difference is MIO_ERR_SIZE_MISMATCH ("imatrix size N is different from tensor
 * size M for NAME"). */
mio_status mio_qz_imatrix_for_tensor(const qz_imatrix *im, const char *name, int64_t ne0, int64_t ne2,
                                     const float **out);

/* The metadata llama-quantize adds when it passes an imatrix (only when the
 * filtered imatrix has at least one entry), in its order:
 *   quantize.imatrix.file           string: the path as given, first 127 bytes
 *   quantize.imatrix.dataset        string: the first dataset, first 127 bytes (only if there is one)
 *   quantize.imatrix.entries_count  u32: the entry count after filtering
 *   quantize.imatrix.chunks_count   u32: the chunk count (only if > 0)
 * They are set after --override-kv's keys (same rule: an existing key is removed
 * and the new one appended). */
#define QZ_IMATRIX_MAX_KV 4
typedef struct qz_imatrix_kv {
    const char *key;
    int type;       /* MIO_GGUF_STRING or MIO_GGUF_U32 */
    char str[128];  /* strings: NUL-terminated, at most 127 bytes */
    uint32_t u32;
} qz_imatrix_kv;
/* Fill out[] (room for QZ_IMATRIX_MAX_KV) and return how many; 0 when im is NULL
 * or holds no entry. path: the --imatrix argument as given. */
size_t mio_qz_imatrix_kvs(const qz_imatrix *im, const char *path, qz_imatrix_kv *out);

#endif
