/* SPDX-License-Identifier: MIT */
/* split_write.c — mio_gguf_split: llama.cpp gguf-split --split semantics.
 * Parts are planned first (tensor i starts a new part when the part so far
 * would pass max_tensors, or when its 32-padded bytes would pass max_bytes),
 * then each part is declared on its own writer and streamed from the input
 * mapping into a temp file; all temp files are renamed only at the end. */
#include "core/core.h"
#include "gguf/gguf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT_PAD 32u          /* gguf-split counts sizes padded to GGUF_DEFAULT_ALIGNMENT */
#define SPLIT_MAX_PARTS 65535u /* split.count is a u16 */
#define SPLIT_CHUNK ((size_t)64 << 20)

ABI_FROZEN(mio_gguf_split_params, plan_user);

void mio_gguf_split_default_params(mio_gguf_split_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->max_tensors = 128;
}

mio_status mio_gguf_split_default_params_sized(mio_gguf_split_params *p, size_t size) {
    mio_gguf_split_params d;
    mio_gguf_split_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_gguf_split_params");
}

/* the 0.1 names, deprecated (removed in 1.0) */
void mio_split_default_params(mio_gguf_split_params *p) { mio_gguf_split_default_params(p); }
mio_status mio_split_default_params_sized(mio_gguf_split_params *p, size_t size) {
    return mio_gguf_split_default_params_sized(p, size);
}

static uint64_t pad_to(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }


mio_status mio_gguf_split(const char *in_path, const char *prefix, const mio_gguf_split_params *params, uint32_t *n_parts) {
    if (!in_path || !prefix || !params)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !in_path ? "in_path" : !prefix ? "prefix" : "p");
    /* a size below 0.1's is garbage; a newer header's larger struct is read if
     * its unknown tail is zero (docs/ABI.md) */
    mio_gguf_split_params p;
    mio_gguf_split_default_params(&p);
    mio_status pst = mio_abi_params_merge(&p, sizeof p, params, sizeof p, "mio_gguf_split_params", "mio_gguf_split_default_params");
    if (pst) return pst;
    if (p.max_tensors < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "max_tensors is %lld; it must be positive", (long long)p.max_tensors);
    if ((p.max_tensors > 0) == (p.max_bytes > 0))
        return mio_err_set(MIO_ERR_INVALID_ARG, "set exactly one of max_tensors and max_bytes (both are %s)",
                           p.max_tensors > 0 ? "set" : "0");
    if (!*prefix) return mio_err_set(MIO_ERR_INVALID_ARG, "prefix is empty");

    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open(in_path, MIO_OPEN_SPLITS, &f);
    if (st) return st;
    int64_t nt = mio_gguf_tensor_count(f);
    uint32_t *part_of = malloc((size_t)(nt ? nt : 1) * sizeof *part_of);
    mio_gguf_split_part *parts = NULL;
    char **paths = NULL;
    mio_writer **ws = NULL;
    mio_atomic_file *afs = NULL;
    uint32_t count = 0;
    if (!part_of) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }

    /* plan */
    {
        uint32_t cur = p.no_tensor_first_split ? 1 : 0;
        int64_t in_cur = 0;
        uint64_t bytes = 0;
        for (int64_t i = 0; i < nt && !st; i++) {
            mio_gguf_tensor t;
            if ((st = mio_gguf_tensor_info(f, i, &t))) break;
            uint64_t nb = pad_to(t.nbytes, SPLIT_PAD);
            int next = p.max_bytes ? bytes + nb > p.max_bytes : (i > 0 && i % p.max_tensors == 0);
            if (next) {
                if (in_cur == 0) {
                    st = mio_err_set(MIO_ERR_LIMIT, "tensor %lld (%.*s) is %llu bytes (padded to 32), more than max_bytes = %llu; "
                                     "a part would be empty", (long long)i, (int)t.name.len, t.name.ptr,
                                     (unsigned long long)nb, (unsigned long long)p.max_bytes);
                    break;
                }
                cur++;
                in_cur = 0;
                bytes = 0;
            }
            part_of[i] = cur;
            in_cur++;
            bytes += nb;
        }
        if (st) goto done; /* part_of is complete only without an error */
        count = (nt > 0 ? part_of[nt - 1] : (p.no_tensor_first_split ? 1u : 0u)) + 1;
        if (!st && count > SPLIT_MAX_PARTS)
            st = mio_err_set(MIO_ERR_LIMIT, "%u parts; split.count is a u16 (at most %u)", count, SPLIT_MAX_PARTS);
        if (!st && nt > INT32_MAX) st = mio_err_set(MIO_ERR_LIMIT, "%lld tensors; split.tensors.count is an i32", (long long)nt);
    }
    if (st) goto done;
    parts = calloc(count, sizeof *parts);
    paths = calloc(count, sizeof *paths);
    /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers; sizeof *p is its element size */
    ws = calloc(count, sizeof *ws);
    afs = calloc(count, sizeof *afs);
    if (!parts || !paths || !ws || !afs) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    for (uint32_t k = 0; k < count; k++) afs[k].fd = -1, afs[k].slot = -1;
    for (uint32_t k = 0; k < count && !st; k++) {
        size_t n = strlen(prefix) + 32;
        if (!(paths[k] = malloc(n))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        snprintf(paths[k], n, "%s-%05u-of-%05u.gguf", prefix, k + 1, count);
        if (mio_gguf_uses_file(f, paths[k]))
            st = mio_err_set(MIO_ERR_INVALID_ARG, "output %s is one of the input files; refusing to overwrite it", paths[k]);
        if (!st) st = mio_writer_new(MIO_WRITER_DEFAULT, &ws[k]);
        /* part 1: every input key (the input's own split keys dropped); then, in
         * every part, the split keys in the order gguf-split leaves them (it sets
         * split.count again at the end, which moves it last) */
        if (!st && k == 0) st = mio_writer_copy_all_kv(ws[k], f, mio_gguf_split_keys, 3);
        if (!st) st = mio_writer_set_u16(ws[k], "split.no", (uint16_t)k);
        if (!st) st = mio_writer_set_i32(ws[k], "split.tensors.count", (int32_t)nt);
        if (!st) st = mio_writer_set_u16(ws[k], "split.count", (uint16_t)count);
        parts[k].index = k;
        parts[k].count = count;
        parts[k].path = paths[k];
        parts[k].first_tensor = -1;
    }
    for (int64_t i = 0; i < nt && !st; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t))) break;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
        mio_gguf_split_part *pp = &parts[part_of[i]];
        if (pp->first_tensor < 0) pp->first_tensor = i;
        pp->n_tensors++;
        pp->tensor_bytes += pad_to(t.nbytes, SPLIT_PAD);
        st = mio_writer_declare_tensor(ws[part_of[i]], name, t.type, t.n_dims, t.ne);
    }
    for (uint32_t k = 0; k < count && !st; k++) {
        uint64_t a = mio_writer_alignment(ws[k]);
        uint64_t fb = pad_to(mio_writer_header_size(ws[k]), a);
        for (int64_t i = parts[k].first_tensor; i >= 0 && i < parts[k].first_tensor + parts[k].n_tensors; i++) {
            mio_gguf_tensor t;
            mio_gguf_tensor_info(f, i, &t);
            fb += pad_to(t.nbytes, a);
        }
        parts[k].file_bytes = fb;
        if (parts[k].first_tensor < 0) parts[k].first_tensor = 0;
        if (p.plan) p.plan(p.plan_user, &parts[k]);
    }
    if (st || p.dry_run) goto done;

    /* write: every part to a temp file, renamed together at the end */
    for (uint32_t k = 0; k < count && !st; k++) {
        st = mio_atomic_open(paths[k], &afs[k]);
        if (!st) st = mio_writer_begin_fd(ws[k], afs[k].fd);
    }
    for (int64_t i = 0; i < nt && !st; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t))) break;
        const uint8_t *src = t.data;
        uint64_t left = t.nbytes;
        if (left == 0) st = mio_writer_write_tensor_part(ws[part_of[i]], NULL, 0);
        while (left && !st) {
            size_t n = left < SPLIT_CHUNK ? (size_t)left : SPLIT_CHUNK;
            st = mio_writer_write_tensor_part(ws[part_of[i]], src, n);
            mio_gguf_release(f, src, n);
            src += n;
            left -= n;
        }
    }
    for (uint32_t k = 0; k < count && !st; k++) st = mio_writer_finish(ws[k]);
    for (uint32_t k = 0; k < count && !st; k++) st = mio_atomic_close_tmp(&afs[k]);
    if (!st) st = mio_atomic_rename_all(afs, count); /* all parts or none, even on SIGINT */
    if (!st && n_parts) *n_parts = count;

done:
    for (uint32_t k = 0; (ws || afs) && k < count; k++) { /* either may be NULL (out of memory) */
        if (ws) mio_writer_free(ws[k]);
        if (afs && afs[k].tmp_path) mio_atomic_abort(&afs[k]);
    }
    for (uint32_t k = 0; paths && k < count; k++) free(paths[k]);
    if (!st && p.dry_run && n_parts) *n_parts = count;
    free(paths);
    free(parts);
    free(ws);
    free(afs);
    free(part_of);
    mio_gguf_close(f);
    return st;
}
