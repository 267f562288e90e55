/* SPDX-License-Identifier: MIT */
/* st_internal.h — the parsed representation behind mio_st_file, shared by the
 * header parser (parse.c), the handle's constructors and accessors (file.c),
 * the writer (write.c) and sharded checkpoints (shard_read.c, shard_write.c).
 * Names and metadata strings are views into the header bytes unless they
 * contained JSON escapes, in which case they point into the decoded arena. */
#ifndef MIO_ST_INTERNAL_H
#define MIO_ST_INTERNAL_H

#include "core/core.h"
typedef struct mio_remote mio_remote; /* net/net.h */

typedef struct st_rec {
    mio_str name;
    int dtype;
    uint32_t n_dims;
    uint64_t shape_at;   /* index into mio_st_file.shapes */
    uint64_t start, end; /* data_offsets */
    uint32_t shard;
    const uint8_t *data;
} st_rec;

typedef struct st_shard {
    mio_region region;   /* a remote shard: its 8-byte length and header only */
    uint64_t file_size;  /* the file's bytes (region.size, unless remote) */
    mio_remote *remote;  /* opened with MIO_OPEN_HEADER from hf:// or http(s)://, else NULL */
    uint64_t header_size;
    char *decoded;       /* arena of decoded (unescaped) strings, or NULL */
} st_shard;

struct mio_st_file {
    st_shard *shards;
    uint32_t n_shards;
    st_rec *t;
    uint64_t n_t, cap_t;
    uint64_t *shapes;
    uint64_t n_shapes, cap_shapes;
    mio_str *meta;       /* key, value pairs: meta[2k], meta[2k+1], sorted by key */
    uint64_t n_meta, cap_meta;
    mio_namehash hash;
};

/* Parse and validate the JSON header of shard `shard` (bytes json[0..n)),
 * appending its tensors and (for shard 0) metadata to f. Sets *data_len to the
 * size of the data buffer the header describes. Does not bind data pointers. */
mio_status mio_st_parse_header(mio_st_file *f, uint32_t shard, const uint8_t *json, size_t n, uint64_t *data_len);
/* Map (or, with MIO_OPEN_READ in flags, read) the file at path and add it to f
 * as its next shard (st_add_shard); errors are prefixed with the path (file.c). */
mio_status mio_st_open_single(const char *path, uint32_t flags, mio_st_file *f);
/* mio_st_open of a model.safetensors.index.json: every shard it maps, checked
 * against the weight_map and metadata.total_size (shard_read.c). */
mio_status mio_st_open_index(const char *path, uint32_t flags, mio_st_file **out);
mio_st_file *mio_st_new(void);
void mio_st_free(mio_st_file *f);
mio_str mio_st_name_at(const void *f, uint64_t i);

/* UTF-8 validation: returns true if valid, else sets *bad to the first bad offset. */
bool mio_st_utf8_valid(const uint8_t *p, size_t n, size_t *bad);
/* Tensor byte size from dtype and shape, with upstream's checks. */
mio_status mio_st_tensor_size(int dtype, uint32_t n_dims, const uint64_t *shape, uint64_t *bytes, const mio_str *name);

/* A source of tensor bytes for streamed saves: an entry whose data is NULL (and
 * nbytes > 0) is filled chunk by chunk, in file order, by fill(user, index,
 * offset, dst, len): offset is a multiple of ST_FILL_CHUNK and len is
 * ST_FILL_CHUNK except for a tensor's last chunk. index is the entry's position
 * in the caller's array (through index_map when that is not NULL). A failure
 * status (with its message set) stops the save. */
#define ST_FILL_CHUNK ((size_t)4 << 20)
typedef struct st_source {
    mio_status (*fill)(void *user, size_t index, uint64_t offset, void *dst, size_t len);
    void *user;
    const size_t *index_map;
} st_source;

/* Every check the writer makes, without writing (filled: entries may have NULL
 * data, a source will fill them). */
mio_status mio_st_validate_entries(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta, bool filled);
/* mio_st_save_cb with an optional source. */
mio_status mio_st_save_cb_src(const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                              const st_source *src, mio_write_fn fn, void *user);
/* mio_st_save_sharded with an optional source (index = position in t). */
mio_status mio_st_save_sharded_src(const char *dir, const mio_st_entry *t, size_t n, const mio_st_meta *meta,
                                   size_t n_meta, uint64_t max_shard_bytes, const st_source *src, uint32_t *n_shards);
/* The first half of mio_st_save_file: validate, write the canonical image to a
 * temp file next to path (mio_atomic_open), fsync and close it (mio_atomic_close_tmp).
 * On success af is ready for mio_atomic_rename (or mio_atomic_abort); on failure no temp
 * file is left and af needs nothing more. */
mio_status mio_st_save_tmp(const char *path, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                           const st_source *src, mio_atomic_file *af);

#endif
