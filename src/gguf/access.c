/* SPDX-License-Identifier: MIT */
/* access.c — read-only accessors over a parsed mio_gguf_file: metadata getters
 * with widening, array element access, tensor info, mappings and madvise hints.
 * All of these may run concurrently on one handle: nothing here mutates it. */
#include "gguf_internal.h"
#include "net/net.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const gguf_kv *kv_at(const mio_gguf_file *f, int64_t i) {
    if (!f) { mio_err_set(MIO_ERR_INVALID_ARG, "file f is NULL"); return NULL; }
    if (i < 0 || (uint64_t)i >= f->n_kv) {
        mio_err_set(MIO_ERR_INVALID_ARG, "metadata index %lld out of range (file has %llu entries)", (long long)i,
                    (unsigned long long)f->n_kv);
        return NULL;
    }
    return &f->kv[i];
}

uint32_t mio_gguf_version(const mio_gguf_file *f) { return f ? f->version : 0; }
uint32_t mio_gguf_alignment(const mio_gguf_file *f) { return f ? f->alignment : 0; }
uint64_t mio_gguf_header_size(const mio_gguf_file *f) { return f ? f->parts[0].header_size : 0; }
uint64_t mio_gguf_data_offset(const mio_gguf_file *f) { return f ? f->parts[0].data_offset : 0; }
uint64_t mio_gguf_file_size(const mio_gguf_file *f) { return f ? f->parts[0].file_size : 0; }
uint32_t mio_gguf_part_count(const mio_gguf_file *f) { return f ? f->n_parts : 0; }
uint64_t mio_gguf_part_data_offset(const mio_gguf_file *f, uint32_t part) {
    return (f && part < f->n_parts) ? f->parts[part].data_offset : 0;
}

int mio_gguf_uses_file(const mio_gguf_file *f, const char *path) {
    if (!f || !path) return 0;
    for (uint32_t p = 0; p < f->n_parts; p++)
        if (mio_region_is_file(&f->parts[p].region, path)) return 1;
    return 0;
}

/* First non-zero byte in [a, b) of part p's bytes, or false. */
static bool nonzero_in(const gguf_part *part, uint64_t a, uint64_t b, uint64_t *at) {
    if (b > part->region.size) b = part->region.size;
    for (uint64_t i = a; i < b; i++)
        if (part->region.data[i]) { *at = i; return true; }
    return false;
}

mio_status mio_gguf_find_nonzero_padding(const mio_gguf_file *f, uint32_t *part, uint64_t *offset) {
    if (!f || !part || !offset) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : !part ? "part" : "offset");
    for (uint32_t p = 0; p < f->n_parts; p++) {
        const gguf_part *gp = &f->parts[p];
        uint64_t at, from = gp->header_size;
        bool found = false;
        for (uint64_t i = 0; i < f->n_tensors && !found; i++) {
            const mio_gguf_tensor *t = &f->tensors[i];
            if (t->part != p) continue;
            found = nonzero_in(gp, from, gp->data_offset + t->offset, &at);
            from = gp->data_offset + t->offset + t->nbytes;
        }
        if (!found) found = nonzero_in(gp, from, gp->region.size, &at);
        if (found) {
            *part = p;
            *offset = at;
            return MIO_OK;
        }
    }
    return mio_err_set(MIO_ERR_NOT_FOUND, "every padding byte is zero");
}

int64_t mio_gguf_kv_count(const mio_gguf_file *f) { return f ? (int64_t)f->n_kv : -1; }
int64_t mio_gguf_tensor_count(const mio_gguf_file *f) { return f ? (int64_t)f->n_tensors : -1; }

int64_t mio_gguf_find_key(const mio_gguf_file *f, const char *key) {
    if (!f || !key) return -1;
    return mio_namehash_find(&f->kv_hash, key, strlen(key), mio_gguf_kv_key_at, f);
}

int64_t mio_gguf_find_tensor(const mio_gguf_file *f, const char *name) {
    if (!f || !name) return -1;
    return mio_namehash_find(&f->t_hash, name, strlen(name), mio_gguf_tensor_name_at, f);
}

mio_str mio_gguf_kv_key(const mio_gguf_file *f, int64_t i) {
    const gguf_kv *kv = kv_at(f, i);
    mio_str s = {NULL, 0};
    return kv ? kv->key : s;
}

int mio_gguf_kv_type(const mio_gguf_file *f, int64_t i) {
    const gguf_kv *kv = kv_at(f, i);
    return kv ? kv->type : -1;
}

static void kv_to_value(const gguf_kv *kv, mio_gguf_value *out) {
    out->type = kv->type;
    out->elem_type = kv->elem_type;
    out->count = kv->count;
    out->data = kv->val;
    out->size = kv->val_len;
    out->depth = kv->type == MIO_GGUF_ARRAY ? kv->depth : 0;
}

ABI_FROZEN(mio_gguf_value, depth);
ABI_FROZEN(mio_gguf_tensor, part);

mio_status mio_gguf_kv_value_sized(const mio_gguf_file *f, int64_t i, mio_gguf_value *out, size_t out_size) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    mio_gguf_value v;
    memset(&v, 0, sizeof v); /* padding too: the caller gets no stack bytes */
    kv_to_value(kv, &v);
    mio_abi_copy_out(out, out_size, &v, sizeof v);
    return MIO_OK;
}

mio_status mio_gguf_kv_value(const mio_gguf_file *f, int64_t i, mio_gguf_value *out) {
    return mio_gguf_kv_value_sized(f, i, out, sizeof *out);
}

mio_status mio_gguf_kv_raw(const mio_gguf_file *f, int64_t i, mio_str *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    out->ptr = (const char *)kv->raw;
    out->len = kv->raw_len;
    return MIO_OK;
}

/* --- widening of one scalar at p of type t --- */
static bool is_int_type(int t) {
    return t == MIO_GGUF_U8 || t == MIO_GGUF_I8 || t == MIO_GGUF_U16 || t == MIO_GGUF_I16 || t == MIO_GGUF_U32 ||
           t == MIO_GGUF_I32 || t == MIO_GGUF_U64 || t == MIO_GGUF_I64 || t == MIO_GGUF_BOOL;
}
static bool is_signed(int t) { return t == MIO_GGUF_I8 || t == MIO_GGUF_I16 || t == MIO_GGUF_I32 || t == MIO_GGUF_I64; }

/* Loads an integer as (negative?, magnitude bits): signed values sign-extended into i, unsigned into u. */
static void load_int(const uint8_t *p, int t, int64_t *i, uint64_t *u) {
    switch (t) {
    case MIO_GGUF_U8: case MIO_GGUF_BOOL: *u = p[0]; break;
    case MIO_GGUF_I8: *i = (int8_t)p[0]; break;
    case MIO_GGUF_U16: *u = ld16(p); break;
    case MIO_GGUF_I16: *i = (int16_t)ld16(p); break;
    case MIO_GGUF_U32: *u = ld32(p); break;
    case MIO_GGUF_I32: *i = (int32_t)ld32(p); break;
    case MIO_GGUF_U64: *u = ld64(p); break;
    case MIO_GGUF_I64: *i = (int64_t)ld64(p); break;
    default: break;
    }
}

/* Failure path of the getters, kept out of line so the hot paths carry no
 * message buffer: the message is "key '<name>'" (or "value" for a caller-built
 * value) followed by the formatted rest. */
MIO_PRINTF(3, 4) __attribute__((cold, noinline)) static mio_status kv_fail(mio_status st, const gguf_kv *kv, const char *fmt, ...) {
    char k[160], rest[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rest, sizeof rest, fmt, ap);
    va_end(ap);
    if (!kv) return mio_err_set(st, "value%s", rest);
    return mio_err_set(st, "key '%s'%s", mio_esc_bytes(k, sizeof k, kv->key.ptr, kv->key.len), rest);
}
#ifdef __clang_analyzer__
#define kv_fail(...) MIO_ANALYZER_STATUS(kv_fail, __VA_ARGS__) /* see core.h */
#endif

static mio_status widen_i64(const uint8_t *p, int t, int64_t *out, const gguf_kv *kv) {
    if (!is_int_type(t)) return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " holds %s, not an integer",
                                        mio_gguf_type_name(t) ? mio_gguf_type_name(t) : "?");
    int64_t i = 0;
    uint64_t u = 0;
    load_int(p, t, &i, &u);
    if (is_signed(t)) { *out = i; return MIO_OK; }
    if (u > (uint64_t)INT64_MAX)
        return kv_fail(MIO_ERR_OUT_OF_RANGE, kv, " is %llu, which does not fit in int64 (read it as u64)",
                       (unsigned long long)u);
    *out = (int64_t)u;
    return MIO_OK;
}

static mio_status widen_u64(const uint8_t *p, int t, uint64_t *out, const gguf_kv *kv) {
    if (!is_int_type(t)) return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " holds %s, not an integer",
                                        mio_gguf_type_name(t) ? mio_gguf_type_name(t) : "?");
    int64_t i = 0;
    uint64_t u = 0;
    load_int(p, t, &i, &u);
    if (!is_signed(t)) { *out = u; return MIO_OK; }
    if (i < 0) return kv_fail(MIO_ERR_OUT_OF_RANGE, kv, " is negative (%lld), not representable as u64", (long long)i);
    *out = (uint64_t)i;
    return MIO_OK;
}

static mio_status widen_f64(const uint8_t *p, int t, double *out, const gguf_kv *kv) {
    if (t == MIO_GGUF_F32) { float v; memcpy(&v, p, 4); *out = v; return MIO_OK; }
    if (t == MIO_GGUF_F64) { memcpy(out, p, 8); return MIO_OK; }
    return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " holds %s, not a float",
                   mio_gguf_type_name(t) ? mio_gguf_type_name(t) : "?");
}


mio_status mio_gguf_kv_i64(const mio_gguf_file *f, int64_t i, int64_t *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    return widen_i64(kv->val, kv->type, out, kv);
}

mio_status mio_gguf_kv_u64(const mio_gguf_file *f, int64_t i, uint64_t *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    return widen_u64(kv->val, kv->type, out, kv);
}

mio_status mio_gguf_kv_f64(const mio_gguf_file *f, int64_t i, double *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    return widen_f64(kv->val, kv->type, out, kv);
}

mio_status mio_gguf_kv_bool(const mio_gguf_file *f, int64_t i, int *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    if (kv->type != MIO_GGUF_BOOL)
        return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " holds %s, not bool",
                       mio_gguf_type_name(kv->type));
    *out = kv->val[0] != 0;
    return MIO_OK;
}

mio_status mio_gguf_kv_str(const mio_gguf_file *f, int64_t i, mio_str *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    if (kv->type != MIO_GGUF_STRING)
        return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " holds %s, not string",
                       mio_gguf_type_name(kv->type));
    out->ptr = (const char *)kv->val;
    out->len = kv->val_len;
    return MIO_OK;
}

/* --- arrays --- */
/* *p is written on every path (NULL on failure): the failures return the status
 * of kv_fail(), which the compiler cannot see is non-zero, so at -O3 it would
 * otherwise warn that the callers may read *p uninitialized. */
static mio_status arr_elem(const gguf_kv *kv, uint64_t j, const uint8_t **p, int want_class) {
    *p = NULL;
    if (kv->type != MIO_GGUF_ARRAY)
        return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " holds %s, not an array",
                       mio_gguf_type_name(kv->type));
    if (j >= kv->count)
        return kv_fail(MIO_ERR_OUT_OF_RANGE, kv, ": index %llu out of range (array has %llu elements)", (unsigned long long)j, (unsigned long long)kv->count);
    size_t es = gguf_type_size(kv->elem_type);
    if (want_class == 0 && !es)
        return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " is an array of %s, not of numbers",
                       mio_gguf_type_name(kv->elem_type));
    *p = kv->val + j * es;
    return MIO_OK;
}

/* Entry i's element j of a fixed-width array: its entry and bytes (out is the
 * caller's output, checked here for all three numeric getters). */
static mio_status num_elem(const mio_gguf_file *f, int64_t i, uint64_t j, const void *out, const gguf_kv **kv,
                           const uint8_t **p) {
    *p = NULL;
    *kv = kv_at(f, i);
    if (!*kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    return arr_elem(*kv, j, p, 0);
}

mio_status mio_gguf_arr_i64(const mio_gguf_file *f, int64_t i, uint64_t j, int64_t *out) {
    const gguf_kv *kv;
    const uint8_t *p;
    mio_status st = num_elem(f, i, j, out, &kv, &p);
    return st ? st : widen_i64(p, kv->elem_type, out, kv);
}

mio_status mio_gguf_arr_u64(const mio_gguf_file *f, int64_t i, uint64_t j, uint64_t *out) {
    const gguf_kv *kv;
    const uint8_t *p;
    mio_status st = num_elem(f, i, j, out, &kv, &p);
    return st ? st : widen_u64(p, kv->elem_type, out, kv);
}

mio_status mio_gguf_arr_f64(const mio_gguf_file *f, int64_t i, uint64_t j, double *out) {
    const gguf_kv *kv;
    const uint8_t *p;
    mio_status st = num_elem(f, i, j, out, &kv, &p);
    return st ? st : widen_f64(p, kv->elem_type, out, kv);
}

mio_status mio_gguf_arr_str(const mio_gguf_file *f, int64_t i, uint64_t j, mio_str *out) {
    const gguf_kv *kv = kv_at(f, i);
    if (!kv) return MIO_ERR_INVALID_ARG;
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    const uint8_t *p;
    mio_status st = arr_elem(kv, j, &p, 1);
    if (st) return st;
    if (kv->elem_type != MIO_GGUF_STRING)
        return kv_fail(MIO_ERR_TYPE_MISMATCH, kv, " is an array of %s, not of strings",
                       mio_gguf_type_name(kv->elem_type));
    /* The table's width was chosen from the bytes remaining at parse time, which is
     * at least val_len: narrow whenever those fit in 32 bits. */
    const gguf_str_index *idx = &kv->str_index;
    const uint8_t *s = kv->val + (idx->narrow ? ((const uint32_t *)idx->p)[j] : ((const uint64_t *)idx->p)[j]);
    out->ptr = (const char *)s + 8;
    out->len = (size_t)ld64(s);
    return MIO_OK;
}

/* --- generic values (may be caller-built: everything is bounds-checked) --- */
mio_status mio_gguf_value_elem(const mio_gguf_value *arr, uint64_t j, mio_gguf_value *out) {
    return mio_gguf_value_elem_sized(arr, j, out, sizeof *out);
}

mio_status mio_gguf_value_elem_sized(const mio_gguf_value *arr, uint64_t j, mio_gguf_value *o, size_t out_size) {
    if (!arr || !o) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !arr ? "arr" : "out");
    mio_gguf_value v, *out = &v; /* built here, copied to o only on success */
    memset(&v, 0, sizeof v);       /* padding too: the caller gets no stack bytes */
    if (arr->type != MIO_GGUF_ARRAY) return mio_err_set(MIO_ERR_TYPE_MISMATCH, "value is not an array");
    if (j >= arr->count)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "index %llu out of range (array has %llu elements)", (unsigned long long)j,
                           (unsigned long long)arr->count);
    const uint8_t *p = arr->data, *end = p + arr->size;
    int et = arr->elem_type;
    size_t es = gguf_type_size(et);
    uint64_t len = 0;
    if (es) {
        uint64_t off;
        if (!ck_mul(j, es, &off) || off + es > arr->size) return mio_err_set(MIO_ERR_TRUNCATED, "array data too short");
        p += off;
        len = es;
    } else {
        /* depth argument = arrays enclosing the element: one (this array); the
         * element's own nesting is still capped inside mio_gguf_skip_value. */
        for (uint64_t k = 0;; k++) {
            mio_status st = mio_gguf_skip_value(p, end, et, 1, &len, "array element", NULL);
            if (st) return st;
            if (k == j) break;
            p += len;
        }
    }
    out->type = et;
    out->elem_type = -1;
    out->count = 1;
    out->depth = 0;
    if (et == MIO_GGUF_STRING) {
        out->data = p + 8;
        out->size = (size_t)len - 8;
    } else if (et == MIO_GGUF_ARRAY) {
        out->elem_type = (int32_t)ld32(p);
        out->count = ld64(p + 4);
        out->data = p + 12;
        out->size = (size_t)len - 12;
        out->depth = (arr->depth ? arr->depth : 2) - 1;
    } else {
        out->data = p;
        out->size = (size_t)len;
    }
    mio_abi_copy_out(o, out_size, &v, sizeof v);
    return MIO_OK;
}

static mio_status value_scalar(const mio_gguf_value *v, const void *out) {
    if (!v) return mio_err_set(MIO_ERR_INVALID_ARG, "v is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    if (!v->data) return mio_err_set(MIO_ERR_INVALID_ARG, "v->data is NULL");
    size_t es = gguf_type_size(v->type);
    if (es && v->size < es) return mio_err_set(MIO_ERR_TRUNCATED, "value needs %zu bytes, has %zu", es, v->size);
    return MIO_OK;
}

mio_status mio_gguf_value_i64(const mio_gguf_value *v, int64_t *out) {
    mio_status st = value_scalar(v, out);
    return st ? st : widen_i64(v->data, v->type, out, NULL);
}
mio_status mio_gguf_value_u64(const mio_gguf_value *v, uint64_t *out) {
    mio_status st = value_scalar(v, out);
    return st ? st : widen_u64(v->data, v->type, out, NULL);
}
mio_status mio_gguf_value_f64(const mio_gguf_value *v, double *out) {
    mio_status st = value_scalar(v, out);
    return st ? st : widen_f64(v->data, v->type, out, NULL);
}

/* --- tensors --- */
mio_status mio_gguf_tensor_info_sized(const mio_gguf_file *f, int64_t i, mio_gguf_tensor *out, size_t out_size) {
    if (!f || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : "out");
    if (i < 0 || (uint64_t)i >= f->n_tensors)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %lld out of range (file has %llu tensors)", (long long)i,
                           (unsigned long long)f->n_tensors);
    mio_abi_copy_out(out, out_size, &f->tensors[i], sizeof f->tensors[i]);
    return MIO_OK;
}

mio_status mio_gguf_read_tensor(const mio_gguf_file *f, int64_t i, uint64_t offset, void *buf, size_t len) {
    if (!f) return mio_err_set(MIO_ERR_INVALID_ARG, "file f is NULL");
    if (!buf && len) return mio_err_set(MIO_ERR_INVALID_ARG, "buf is NULL");
    if (i < 0 || (uint64_t)i >= f->n_tensors)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %lld out of range (file has %llu tensors)", (long long)i,
                           (unsigned long long)f->n_tensors);
    const mio_gguf_tensor *t = &f->tensors[i];
    if (offset > t->nbytes || len > t->nbytes - offset)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "tensor '%.*s': bytes %llu..%llu are outside its %llu bytes",
                           (int)t->name.len, t->name.ptr, (unsigned long long)offset,
                           (unsigned long long)offset + len, (unsigned long long)t->nbytes);
    if (len == 0) return MIO_OK;
    const gguf_part *p = &f->parts[t->part];
    char what[128];
    snprintf(what, sizeof what, "tensor '%.*s'%s", (int)(t->name.len < 64 ? t->name.len : 64), t->name.ptr,
             f->n_parts > 1 ? " (split part)" : "");
    /* a remote part (MIO_OPEN_HEADER): one range request */
    if (p->remote) return mio_remote_read(p->remote, p->data_offset + t->offset + offset, buf, len, what);
    return mio_region_pread(&p->region, p->data_offset + t->offset + offset, buf, len, what);
}

mio_status mio_gguf_tensor_info(const mio_gguf_file *f, int64_t i, mio_gguf_tensor *out) {
    return mio_gguf_tensor_info_sized(f, i, out, sizeof *out);
}

mio_status mio_gguf_tensor_shape2d(const mio_gguf_tensor *t, int64_t *rows, int64_t *cols) {
    if (!t || !rows || !cols) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !t ? "t" : !rows ? "rows" : "cols");
    if (t->n_dims != 2)
        return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor '%.*s' has %u dims, not 2", (int)(t->name.len < 100 ? t->name.len : 100),
                           t->name.ptr, t->n_dims);
    *rows = t->ne[1];
    *cols = t->ne[0];
    return MIO_OK;
}

/* --- mappings --- */
mio_status mio_gguf_take_mapping(mio_gguf_file *f, void **addr, size_t *len) {
    if (!f || !addr || !len) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : !addr ? "addr" : "len");
    *addr = NULL;
    *len = 0;
    if (f->split || f->n_parts != 1 || !f->parts[0].region.map_addr) return MIO_OK;
    *addr = f->parts[0].region.map_addr;
    *len = f->parts[0].region.map_len;
    f->parts[0].region.map_addr = NULL; /* close no longer unmaps */
    f->parts[0].region.map_len = 0;
    return MIO_OK;
}

static void advise(const mio_gguf_file *f, const void *ptr, size_t len, int advice) {
    if (!f || !ptr || !len) return;
    uintptr_t a = (uintptr_t)ptr, b = a + len;
    if (b < a) return;
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
    for (uint32_t p = 0; p < f->n_parts; p++) {
        const mio_region *r = &f->parts[p].region;
        if (!r->map_addr) continue;
        uintptr_t ms = (uintptr_t)r->map_addr, me = ms + r->map_len;
        uintptr_t s = a > ms ? a : ms, e = b < me ? b : me;
        if (s >= e) continue;
        s &= ~(page - 1);
        e = (e + page - 1) & ~(page - 1);
        (void)madvise((void *)s, e - s, advice); /* best effort */
    }
}

void mio_gguf_prefetch(const mio_gguf_file *f, const void *ptr, size_t len) { advise(f, ptr, len, MADV_WILLNEED); }
void mio_gguf_release(const mio_gguf_file *f, const void *ptr, size_t len) { advise(f, ptr, len, MADV_DONTNEED); }
/* the 0.1 names, deprecated (removed in 1.0) */
void mio_prefetch(const mio_gguf_file *f, const void *ptr, size_t len) { mio_gguf_prefetch(f, ptr, len); }
void mio_release(const mio_gguf_file *f, const void *ptr, size_t len) { mio_gguf_release(f, ptr, len); }
