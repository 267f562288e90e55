/* SPDX-License-Identifier: MIT */
/* state_dict.c — named state dicts (docs/CHECKPOINTS.md): one safetensors
 * frame, no __metadata__, dtypes F32/F16/BF16/I64. Saving is the safetensors
 * writer behind the state-dict rules; loading matches the file's tensors to
 * the caller's destinations through an alias table, validates everything
 * (names, dtypes, shapes, byte counts, one-to-one matching) and only then
 * copies, so a failing load leaves every destination untouched. */
#include "ckpt/ckpt_internal.h"

#include "safetensors/st_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ABI_FROZEN(mio_state_dict_dest, nbytes);

bool mio_sd_dtype_ok(int dtype) {
    return dtype == MIO_ST_F32 || dtype == MIO_ST_F16 || dtype == MIO_ST_BF16 || dtype == MIO_ST_I64;
}

/* ------------------------------------------------------------------ saving */
/* The state-dict rules on top of the writer's (empty, reserved, non-UTF-8 and
 * duplicate names are the writer's errors): the dtype. */
mio_status mio_sd_check_entries(const char *fn, const mio_st_entry *t, size_t n, size_t entry_size,
                                const mio_st_entry **use, mio_st_entry **copy) {
    *use = NULL, *copy = NULL;
    if (n && !t) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: t is NULL with n = %zu", fn, n);
    const void *u;
    void *c;
    mio_status st = mio_abi_array_in(t, n, entry_size, sizeof(mio_st_entry), "entry", "mio_st_entry", &u, &c);
    if (st) return mio_err_prefix(st, "%s: ", fn);
    *use = u, *copy = c;
    for (size_t i = 0; i < n; i++) {
        const mio_st_entry *e = &(*use)[i];
        if (!mio_sd_dtype_ok(e->dtype)) {
            const char *dn = mio_st_dtype_name(e->dtype);
            free(*copy), *copy = NULL;
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE,
                               "%s: tensor #%zu ('%.60s') has dtype %s: a state dict holds F32, F16, BF16 or I64", fn,
                               i, e->name ? e->name : "(null)", dn ? dn : "(unknown)");
        }
    }
    return MIO_OK;
}

mio_status mio_state_dict_save_file(const char *path, const mio_st_entry *t, size_t n, size_t entry_size) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_state_dict_save_file: path is NULL");
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = mio_sd_check_entries("mio_state_dict_save_file", t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_file(path, use, n, NULL, 0);
    free(copy);
    return st;
}

mio_status mio_state_dict_save_fd(int fd, const mio_st_entry *t, size_t n, size_t entry_size) {
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = mio_sd_check_entries("mio_state_dict_save_fd", t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_fd(fd, use, n, NULL, 0);
    free(copy);
    return st;
}

mio_status mio_state_dict_save_buffer(const mio_st_entry *t, size_t n, size_t entry_size, void **out, size_t *out_len) {
    if (out) *out = NULL;
    if (out_len) *out_len = 0;
    const mio_st_entry *use;
    mio_st_entry *copy;
    mio_status st = mio_sd_check_entries("mio_state_dict_save_buffer", t, n, entry_size, &use, &copy);
    if (!st) st = mio_st_save_buffer(use, n, NULL, 0, out, out_len);
    free(copy);
    return st;
}

/* ------------------------------------------------------------------ loading */
typedef struct names_ctx {
    const char *const *names; /* index -> NUL-terminated name */
} names_ctx;
static mio_str name_key(const void *ctx, uint64_t i) {
    const char *s = ((const names_ctx *)ctx)->names[i];
    return (mio_str){s, strlen(s)};
}

/* "'name'" with the bytes escaped, for messages */
#define ESC(buf, s, len) mio_esc_bytes(buf, sizeof(buf), s, len)

typedef struct sd_load {
    const mio_state_dict_dest *d;
    size_t n;
    const char **dnames, **afrom;
    mio_namehash dh, ah;
    bool dh_ok, ah_ok;
    int64_t *match; /* per destination: the file tensor filling it, or -1 */
} sd_load;

static void sd_free(sd_load *L) {
    if (L->dh_ok) mio_namehash_free(&L->dh);
    if (L->ah_ok) mio_namehash_free(&L->ah);
    free(L->dnames), free(L->afrom), free(L->match);
}

/* The destinations and aliases themselves: every rule a caller can break. */
static mio_status check_dests(const char *fn, sd_load *L, const mio_state_dict_alias *al, size_t n_al) {
    const mio_state_dict_dest *d = L->d;
    char eb[160];
    L->dnames = malloc((L->n ? L->n : 1) * sizeof *L->dnames);
    L->match = malloc((L->n ? L->n : 1) * sizeof *L->match);
    L->afrom = malloc((n_al ? n_al : 1) * sizeof *L->afrom);
    if (!L->dnames || !L->match || !L->afrom) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
    mio_status st = mio_namehash_init(&L->dh, L->n);
    if (st) return st;
    L->dh_ok = true;
    names_ctx dctx = {L->dnames};
    for (size_t j = 0; j < L->n; j++) {
        const mio_state_dict_dest *e = &d[j];
        L->match[j] = -1;
        if (!e->name || !*e->name)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: destination #%zu has %s name", fn, j, e->name ? "an empty" : "a NULL");
        L->dnames[j] = e->name;
        if (!mio_sd_dtype_ok(e->dtype))
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: destination '%s' has dtype %d: a state dict holds F32, F16, BF16 or I64",
                               fn, ESC(eb, e->name, strlen(e->name)), e->dtype);
        if (e->n_dims && !e->shape)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: destination '%s' has %u dims and a NULL shape", fn,
                               ESC(eb, e->name, strlen(e->name)), e->n_dims);
        uint64_t bytes;
        mio_str nm = {e->name, strlen(e->name)};
        st = mio_st_tensor_size(e->dtype, e->n_dims, e->shape, &bytes, &nm);
        if (st) return mio_err_prefix(st, "%s: destination #%zu: ", fn, j);
        if (bytes != e->nbytes)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: destination '%s' is %zu bytes, its dtype and shape make %llu", fn,
                               ESC(eb, e->name, strlen(e->name)), e->nbytes, (unsigned long long)bytes);
        if (bytes && !e->data)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: destination '%s' has a NULL data pointer", fn,
                               ESC(eb, e->name, strlen(e->name)));
        uint64_t dup;
        if (!mio_namehash_insert(&L->dh, e->name, strlen(e->name), j, name_key, &dctx, &dup))
            return mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "%s: destinations #%llu and #%zu are both named '%s'", fn,
                               (unsigned long long)dup, j, ESC(eb, e->name, strlen(e->name)));
    }
    st = mio_namehash_init(&L->ah, n_al);
    if (st) return st;
    L->ah_ok = true;
    names_ctx actx = {L->afrom};
    for (size_t k = 0; k < n_al; k++) {
        if (!al[k].from || !*al[k].from || !al[k].to || !*al[k].to)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: alias #%zu has a NULL or empty name", fn, k);
        L->afrom[k] = al[k].from;
        uint64_t dup;
        if (!mio_namehash_insert(&L->ah, al[k].from, strlen(al[k].from), k, name_key, &actx, &dup))
            return mio_err_set(MIO_ERR_DUPLICATE_KEY, "%s: aliases #%llu and #%zu both rename '%s'", fn,
                               (unsigned long long)dup, k, ESC(eb, al[k].from, strlen(al[k].from)));
    }
    return MIO_OK;
}

static bool same_shape(const mio_st_tensor *t, const mio_state_dict_dest *e) {
    if (t->n_dims != e->n_dims) return false;
    for (uint32_t k = 0; k < t->n_dims; k++)
        if (t->shape[k] != e->shape[k]) return false;
    return true;
}
static void shape_str(char *buf, size_t cap, uint32_t n, const uint64_t *s) {
    size_t o = 0;
    o += (size_t)snprintf(buf + o, cap - o, "[");
    for (uint32_t k = 0; k < n && o < cap; k++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%llu", k ? ", " : "", (unsigned long long)s[k]);
    if (o < cap) snprintf(buf + o, cap - o, "]");
}

/* Pass 1 over the file: each tensor to its destination (the naming rules
 * first: unexpected, doubly-mapped, missing), then each pair's dtype, shape
 * and byte count. */
static mio_status match_file(const char *fn, const mio_st_file *f, sd_load *L, const mio_state_dict_alias *al,
                             bool strict) {
    char eb[160], eb2[160], sa[200], sb[200];
    names_ctx dctx = {L->dnames}, actx = {L->afrom};
    const int64_t nt = mio_st_tensor_count(f);
    mio_st_tensor t;
    for (int64_t i = 0; i < nt; i++) {
        mio_status st = mio_st_tensor_info(f, i, &t);
        if (st) return st;
        if (memchr(t.name.ptr, 0, t.name.len))
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "%s: tensor '%s' of the file has a NUL byte in its name", fn,
                               ESC(eb, t.name.ptr, t.name.len));
        int64_t a = mio_namehash_find(&L->ah, t.name.ptr, t.name.len, name_key, &actx);
        const char *to = a >= 0 ? al[a].to : NULL;
        int64_t j = to ? mio_namehash_find(&L->dh, to, strlen(to), name_key, &dctx)
                       : mio_namehash_find(&L->dh, t.name.ptr, t.name.len, name_key, &dctx);
        if (j < 0) {
            if (!strict) continue;
            if (to)
                return mio_err_set(MIO_ERR_NOT_FOUND, "%s: tensor '%s' of the file, renamed '%s' by the aliases, has no destination",
                                   fn, ESC(eb, t.name.ptr, t.name.len), ESC(eb2, to, strlen(to)));
            return mio_err_set(MIO_ERR_NOT_FOUND, "%s: unexpected tensor '%s' in the file: no destination has that name", fn,
                               ESC(eb, t.name.ptr, t.name.len));
        }
        if (L->match[j] >= 0) {
            mio_st_tensor o;
            st = mio_st_tensor_info(f, L->match[j], &o);
            if (st) return st;
            char eo[160];
            return mio_err_set(MIO_ERR_DUPLICATE_TENSOR,
                               "%s: destination '%s' is mapped twice: by tensor '%s' and by tensor '%s' of the file", fn,
                               ESC(eb, L->d[j].name, strlen(L->d[j].name)), ESC(eo, o.name.ptr, o.name.len),
                               ESC(eb2, t.name.ptr, t.name.len));
        }
        L->match[j] = i;
    }
    for (size_t j = 0; j < L->n; j++) {
        const mio_state_dict_dest *e = &L->d[j];
        if (L->match[j] < 0) {
            if (!strict) continue;
            return mio_err_set(MIO_ERR_NOT_FOUND, "%s: tensor '%s' (destination #%zu) is missing from the file", fn,
                               ESC(eb, e->name, strlen(e->name)), j);
        }
        mio_status st = mio_st_tensor_info(f, L->match[j], &t);
        if (st) return st;
        if (!mio_sd_dtype_ok(t.dtype))
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: tensor '%s' of the file is %s: a state dict holds F32, F16, BF16 or I64",
                               fn, ESC(eb, t.name.ptr, t.name.len), mio_st_dtype_name(t.dtype));
        if (t.dtype != e->dtype)
            return mio_err_set(MIO_ERR_TYPE_MISMATCH, "%s: tensor '%s' is %s in the file, %s in the destination", fn,
                               ESC(eb, e->name, strlen(e->name)), mio_st_dtype_name(t.dtype), mio_st_dtype_name(e->dtype));
        if (!same_shape(&t, e)) {
            shape_str(sa, sizeof sa, t.n_dims, t.shape);
            shape_str(sb, sizeof sb, e->n_dims, e->shape);
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: tensor '%s' has shape %s in the file, %s in the destination", fn,
                               ESC(eb, e->name, strlen(e->name)), sa, sb);
        }
        if (t.nbytes != e->nbytes) /* same dtype and shape: cannot differ; kept as the byte-count rule */
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: tensor '%s' is %llu bytes in the file, %zu in the destination", fn,
                               ESC(eb, e->name, strlen(e->name)), (unsigned long long)t.nbytes, e->nbytes);
    }
    return MIO_OK;
}

mio_status mio_state_dict_load(const mio_st_file *f, const mio_state_dict_dest *d, size_t n, size_t dest_size,
                               const mio_state_dict_alias *aliases, size_t n_aliases, uint32_t flags,
                               size_t *n_loaded) {
    static const char fn[] = "mio_state_dict_load";
    if (n_loaded) *n_loaded = 0;
    if (!f) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: f is NULL", fn);
    if (n && !d) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: d is NULL with n = %zu", fn, n);
    if (n_aliases && !aliases) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: aliases is NULL with n_aliases = %zu", fn, n_aliases);
    if (flags & ~MIO_STATE_DICT_LENIENT) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: unknown flags 0x%x", fn, flags);
    if (mio_st_shard_count(f) > 1)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: a state dict is one safetensors frame, not a sharded checkpoint", fn);
    const void *use;
    void *copy;
    mio_status st = mio_abi_array_in(d, n, dest_size, sizeof(mio_state_dict_dest), "destination", "mio_state_dict_dest",
                                     &use, &copy);
    if (st) return mio_err_prefix(st, "%s: ", fn);
    sd_load L = {.d = use, .n = n};
    st = check_dests(fn, &L, aliases, n_aliases);
    if (!st) st = match_file(fn, f, &L, aliases, !(flags & MIO_STATE_DICT_LENIENT));
    /* pass 2: everything checked; copy */
    size_t done = 0;
    for (size_t j = 0; !st && j < n; j++) {
        if (L.match[j] < 0) continue;
        const mio_state_dict_dest *e = &L.d[j];
        if (e->nbytes) st = mio_st_read_tensor(f, L.match[j], 0, e->data, e->nbytes);
        if (!st) done++;
    }
    if (!st && n_loaded) *n_loaded = done;
    sd_free(&L);
    free(copy);
    return st;
}

mio_status mio_state_dict_load_file(const char *path, const mio_state_dict_dest *d, size_t n, size_t dest_size,
                                    const mio_state_dict_alias *aliases, size_t n_aliases, uint32_t flags,
                                    size_t *n_loaded) {
    if (n_loaded) *n_loaded = 0;
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_state_dict_load_file: path is NULL");
    mio_st_file *f = NULL;
    mio_status st = mio_st_open(path, MIO_OPEN_READ, &f);
    if (st) return st;
    st = mio_state_dict_load(f, d, n, dest_size, aliases, n_aliases, flags, n_loaded);
    mio_st_close(f);
    return st;
}
