/* SPDX-License-Identifier: MIT */
/* shard_read.c — opening a sharded checkpoint as Hugging Face ships it: a
 * model.safetensors.index.json (weight_map + metadata.total_size) over
 * model-0000K-of-0000N.safetensors shards. Every shard is validated as a
 * single file is (mio_st_open_single, file.c), then that each mapped tensor lives
 * in its shard and nowhere else, and total_size. */
#include "st_internal.h"
#include "net/net.h"

#include "core/json.h"
#include <stdlib.h>
#include <string.h>

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static mio_status index_fail(mio_json *root, char **files, mio_st_file *f, char *pathbuf, mio_status st) {
    mio_json_free(root);
    free(files);
    mio_st_free(f);
    free(pathbuf);
    return st;
}

/* The index's bytes: the file, or a remote index (MIO_OPEN_HEADER) up to the
 * header cap. */
static mio_status read_index(const char *path, uint32_t flags, mio_region *r) {
    if (!mio_net_is_remote(path)) return mio_region_read(path, r);
    if (!(flags & MIO_OPEN_HEADER)) {
        /* whole files: the index from the cache (its shards follow through mio_st_open_single) */
        char *local = NULL;
        mio_status st = mio_hub_local_copy(path, &local);
        if (!st) st = mio_region_read(local, r);
        free(local);
        return st;
    }
    mio_remote *rf = NULL;
    mio_status st = mio_remote_open(path, &rf);
    if (st) return st;
    if (mio_remote_size(rf) > MIO_ST_MAX_HEADER) {
        mio_remote_close(rf);
        return mio_err_set(MIO_ERR_LIMIT, "%s: an index of %llu bytes is past the %u-byte limit", path,
                           (unsigned long long)mio_remote_size(rf), MIO_ST_MAX_HEADER);
    }
    const uint8_t *p;
    size_t have;
    st = mio_remote_prefix(rf, (size_t)mio_remote_size(rf), &p, &have);
    uint8_t *copy = st ? NULL : malloc(have ? have : 1);
    if (!st && !copy) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!st) {
        memcpy(copy, p, have);
        memset(r, 0, sizeof *r);
        r->data = copy;
        r->size = have;
        r->heap = copy;
    }
    mio_remote_close(rf);
    return st;
}

mio_status mio_st_open_index(const char *path, uint32_t flags, mio_st_file **out) {
    mio_region r;
    mio_status st = read_index(path, flags, &r);
    if (st) return st;
    mio_json_error je;
    mio_json *root = mio_json_parse((const char *)r.data, r.size, &je);
    mio_region_free(&r);
    if (!root && je.nomem) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory parsing the index", path);
    if (!root)
        return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: not JSON near byte %zu (%s); a model.safetensors.index.json is expected",
                           path, je.offset, je.reason);
    if (!mio_json_is_object(root)) {
        mio_json_free(root);
        return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: not a JSON object (a model.safetensors.index.json is expected)", path);
    }
    mio_json *wm = mio_json_get(root, "weight_map");
    if (!mio_json_is_object(wm)) {
        mio_json_free(root);
        return mio_err_set(MIO_ERR_INVALID_METADATA, "%s: no \"weight_map\" object", path);
    }
    size_t n_map = 0;
    for (mio_json *e = wm->child; e; e = e->next) {
        if (!mio_json_key_is_cstring(e)) {
            mio_status s2 = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: weight_map tensor name '%.60s\\u0000...' holds a NUL byte",
                                        path, e->string ? e->string : "");
            mio_json_free(root);
            return s2;
        }
        if (!mio_json_is_cstring(e) || !e->valuestring[0] || strchr(e->valuestring, '/') || strcmp(e->valuestring, "..") == 0 ||
            strcmp(e->valuestring, ".") == 0) {
            mio_status s2 = mio_err_set(MIO_ERR_INVALID_METADATA,
                                        "%s: weight_map entry '%.60s' must name a shard file in the index's directory", path,
                                        e->string ? e->string : "");
            mio_json_free(root);
            return s2;
        }
        n_map++;
    }
    /* Shard files in name order (model-00001-of-N sorts first), each once. */
    char **files = malloc((n_map ? n_map : 1) * sizeof *files);
    mio_st_file *f = mio_st_new();
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    char *pathbuf = malloc(dirlen + 4096);
    if (!files || !f || !pathbuf) return index_fail(root, files, f, pathbuf, mio_err_set(MIO_ERR_NOMEM, "out of memory"));
    size_t k = 0;
    for (mio_json *e = wm->child; e; e = e->next) files[k++] = e->valuestring;
    qsort(files, n_map, sizeof *files, cmp_cstr);
    size_t n_files = 0;
    for (size_t i = 0; i < n_map; i++)
        if (!n_files || strcmp(files[n_files - 1], files[i]) != 0) files[n_files++] = files[i];
    memcpy(pathbuf, path, dirlen);
    for (size_t i = 0; i < n_files; i++) {
        size_t fl = strlen(files[i]);
        if (fl >= 4096) return index_fail(root, files, f, pathbuf, mio_err_set(MIO_ERR_INVALID_METADATA, "%s: shard name too long", path));
        memcpy(pathbuf + dirlen, files[i], fl + 1);
        st = mio_st_open_single(pathbuf, flags, f);
        if (st) return index_fail(root, files, f, pathbuf, mio_err_prefix(st, "shard %zu of %zu: ", i + 1, n_files));
    }
    /* Every mapped tensor is in the shard the map names; the map covers every tensor. */
    mio_namehash seen = {0};
    st = mio_namehash_init(&seen, n_map);
    if (st) return index_fail(root, files, f, pathbuf, st);
    uint64_t total = 0;
    for (mio_json *e = wm->child; e && !st; e = e->next) {
        int64_t ti = mio_st_find_tensor(f, e->string);
        if (ti < 0) {
            st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: tensor '%.80s' is mapped to %s but that shard does not contain it", path,
                             e->string, e->valuestring);
            break;
        }
        const char *want = e->valuestring;
        /* shard K was opened from files[K] */
        const char *have = f->t[ti].shard < n_files ? files[f->t[ti].shard] : NULL;
        if (!have || strcmp(have, want) != 0) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: tensor '%.80s' is mapped to %s but found in %s", path, e->string, want,
                             have ? have : "?");
            break;
        }
        uint64_t dup;
        if (!mio_namehash_insert(&seen, e->string, strlen(e->string), (uint64_t)ti, mio_st_name_at, f, &dup)) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: weight_map lists tensor '%.80s' twice", path, e->string);
            break;
        }
        total += f->t[ti].end - f->t[ti].start;
    }
    if (!st && n_map != f->n_t) {
        /* A shard holds a tensor the map does not mention: name the first one, in
         * handle order. `seen` holds every mapped name, so this is one lookup per
         * tensor (scanning weight_map per tensor was O(n^2): 21 s at 100k entries). */
        for (uint64_t i = 0; i < f->n_t; i++) {
            char nb[100];
            if (mio_namehash_find(&seen, f->t[i].name.ptr, f->t[i].name.len, mio_st_name_at, f) < 0) {
                mio_esc_bytes(nb, sizeof nb, f->t[i].name.ptr, f->t[i].name.len);
                st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: shard %s holds tensor '%s', which weight_map does not list", path,
                                 files[f->t[i].shard], nb);
                break;
            }
        }
        if (!st) st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: weight_map lists %zu tensors, the shards hold %llu", path, n_map,
                                  (unsigned long long)f->n_t);
    }
    mio_namehash_free(&seen);
    if (!st) {
        mio_json *md = mio_json_get(root, "metadata");
        mio_json *ts = md ? mio_json_get(md, "total_size") : NULL;
        if (ts) {
            /* range first: converting inf, NaN or >= 2^64 to an integer is undefined */
            if (!mio_json_is_number(ts) || !(ts->valuedouble >= 0 && ts->valuedouble < 0x1p64) ||
                ts->valuedouble != (double)(uint64_t)ts->valuedouble)
                st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: metadata.total_size is not a non-negative integer", path);
            else if ((uint64_t)ts->valuedouble != total)
                st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: metadata.total_size is %.0f but the mapped tensors hold %llu bytes",
                                 path, ts->valuedouble, (unsigned long long)total);
        }
    }
    if (st) return index_fail(root, files, f, pathbuf, st);
    mio_json_free(root);
    free(files);
    free(pathbuf);
    *out = f;
    return MIO_OK;
}
