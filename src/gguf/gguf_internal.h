/* SPDX-License-Identifier: MIT */
/* gguf_internal.h — the parsed representation behind mio_gguf_file, shared by
 * parse.c (building it), access.c (reading it), split.c (merging parts) and
 * write.c (verbatim copies). Every pointer here is a view into a part's region. */
#ifndef MIO_GGUF_INTERNAL_H
#define MIO_GGUF_INTERNAL_H

#include "core/core.h"
#include "core/unaligned.h"
typedef struct mio_remote mio_remote; /* net/net.h */


#define GGUF_DEFAULT_ALIGNMENT 32u
#define GGUF_MAX_ALIGNMENT (1u << 20)
#define GGUF_MAX_NAME 64u /* tensor names must be shorter (ggml's GGML_MAX_NAME) */

/* Offsets of a string array's elements from its first element, recorded while
 * parsing: u32 when narrow, else u64; bytes is the allocation (mem_big_*). */
typedef struct gguf_str_index {
    void *p;
    size_t bytes;
    bool narrow;
} gguf_str_index;

typedef struct gguf_kv {
    mio_str key;
    int32_t type;
    int32_t elem_type;            /* arrays only, else -1 */
    uint32_t depth;               /* arrays only */
    uint64_t count;               /* arrays: elements; else 1 */
    const uint8_t *val;           /* scalars/strings: the value bytes; arrays: the element bytes */
    size_t val_len;
    const uint8_t *raw;           /* whole wire value after the type field */
    size_t raw_len;
    gguf_str_index str_index;     /* string arrays only */
} gguf_kv;

typedef struct gguf_part {
    mio_region region;      /* a remote part: the header prefix only */
    uint64_t header_size;
    uint64_t data_offset;
    uint64_t file_size;     /* the file's bytes (region.size, unless remote) */
    mio_remote *remote;     /* opened with MIO_OPEN_HEADER from hf:// or http(s)://, else NULL */
} gguf_part;

struct mio_gguf_file {
    uint32_t version;
    uint32_t alignment;
    gguf_part *parts;
    uint32_t n_parts;
    bool split;
    gguf_kv *kv;
    uint64_t n_kv;
    mio_namehash kv_hash;
    mio_gguf_tensor *tensors;
    uint64_t n_tensors;
    mio_namehash t_hash;
};

/* Size in bytes of a fixed-width GGUF value type, 0 for string/array/unknown.
 * Inline: every array-element getter asks it. */
static inline size_t gguf_type_size(int type) {
    static const uint8_t sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return (type >= 0 && type <= 12) ? sz[type] : 0;
}
/* Validate the value of type at [p, end) (depth = enclosing array depth) and
 * return its wire length in *len. Messages name `what`. For an array of strings,
 * when idx is non-NULL, it receives the table of the elements' offsets (owned by
 * the caller, also on failure: free with mio_mem_big_free(idx->p, idx->bytes)). */
mio_status mio_gguf_skip_value(const uint8_t *p, const uint8_t *end, int type, uint32_t depth, uint64_t *len,
                               const char *what, gguf_str_index *idx);

void mio_gguf_file_free(mio_gguf_file *f);
/* Map (or read, with MIO_OPEN_READ) and parse one file. */
mio_status mio_gguf_open_single(const char *path, uint32_t flags, mio_gguf_file **out);
/* Build the hash of tensor names (after tensors are complete). */
mio_status mio_gguf_index_tensors(mio_gguf_file *f);

/* The keys a split part carries (split.no, split.count, split.tensors.count):
 * dropped when the parts are written as one file. */
extern const char *const mio_gguf_split_keys[3];
bool mio_gguf_is_split_key(const char *key, size_t len);
/* Open a whole model: path with MIO_OPEN_SPLITS (flags may add MIO_OPEN_READ),
 * and refuse a lone part of a split whose name does not locate the others
 * (split.count > 1 read from one file), so no caller works on part of a
 * model. */
mio_status mio_gguf_open_model(const char *path, uint32_t flags, mio_gguf_file **out);

/* Writer hooks for exact restoration (src/convert): the GGUF version written (2
 * or 3; default 3), and a value given as its wire bytes (after the type field),
 * validated as the reader validates them. */
mio_status mio_gguf_writer_set_version(mio_writer *w, uint32_t version);
mio_status mio_gguf_writer_set_raw(mio_writer *w, const char *key, int type, const void *raw, size_t raw_len);

/* Stream tensor t of f (its whole bytes) into w's open streamed write as the
 * next tensor's data, in pieces of at most 4 MiB: each piece prefetched, written
 * and its source pages released (one tensor of the input resident at most). A
 * tensor of 0 bytes is finished with an empty part. *bytes_done grows by the
 * bytes written. */
mio_status mio_gguf_writer_copy_tensor(mio_writer *w, const mio_gguf_file *f, const mio_gguf_tensor *t,
                                       uint64_t *bytes_done);

mio_str mio_gguf_kv_key_at(const void *f, uint64_t i);
mio_str mio_gguf_tensor_name_at(const void *f, uint64_t i);

/* The one KEY=TYPE:VALUE grammar (src/gguf/edit.c), behind mio_kv_edit_parse
 * (GGUF_SPEC_EDIT: every type of its contract) and mio_kv_override_parse
 * (GGUF_SPEC_OVERRIDE: only llama-quantize's int, float, bool, str). On
 * success *out holds the wire type ("int" as i32 or i64, "float" as f32 with
 * f64 rounded to f32, bool in u64), the value, and key / str pointing into
 * spec (key not NUL-terminated: key_len bytes; str the rest of spec). On
 * failure *out is untouched and the message names the key and the value. */
#define GGUF_SPEC_EDIT 0
#define GGUF_SPEC_OVERRIDE 1
typedef struct gguf_kv_spec {
    const char *key;
    size_t key_len;
    int type;
    uint64_t u64;
    int64_t i64;
    double f64;
    const char *str;
    size_t str_len;
} gguf_kv_spec;
mio_status mio_gguf_kv_spec_parse(const char *spec, int grammar, gguf_kv_spec *out);

/* Little-endian loads from unaligned bytes. */

#endif
