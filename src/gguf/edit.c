/* SPDX-License-Identifier: MIT */
/* edit.c — metadata edits (gguf-new-metadata's and gguf-set-metadata's jobs):
 * parsing KEY=TYPE:VALUE specs, applying a list of set/remove edits to a
 * writer, copying a GGUF with edits, and rewriting a GGUF header in place.
 * Invariants: a list of edits is validated as a whole before anything changes;
 * the in-place edit writes nothing past the data offset and nothing at all
 * unless the new header ends in the same padded window as the old one. */
#include "gguf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ parsing */

#define TYPE_INT (-2) /* "int": i32, or i64 when the value does not fit */

static const struct {
    const char *name;
    int type;
} k_spec_types[] = {
    {.name = "int", .type = TYPE_INT},     {.name = "float", .type = MIO_GGUF_F32},
    {.name = "bool", .type = MIO_GGUF_BOOL}, {.name = "str", .type = MIO_GGUF_STRING},
    {.name = "string", .type = MIO_GGUF_STRING},
    {.name = "u8", .type = MIO_GGUF_U8},   {.name = "i8", .type = MIO_GGUF_I8},
    {.name = "u16", .type = MIO_GGUF_U16}, {.name = "i16", .type = MIO_GGUF_I16},
    {.name = "u32", .type = MIO_GGUF_U32}, {.name = "i32", .type = MIO_GGUF_I32},
    {.name = "u64", .type = MIO_GGUF_U64}, {.name = "i64", .type = MIO_GGUF_I64},
    {.name = "f32", .type = MIO_GGUF_F32}, {.name = "f64", .type = MIO_GGUF_F64},
};
#define SPEC_TYPES "int float bool str u8 i8 u16 i16 u32 i32 u64 i64 f32 f64"
#define OVERRIDE_TYPES "int float bool str" /* llama-quantize's --override-kv: k_spec_types' first four */

/* Bounds of the integer wire types (bool: 0..1). */
static bool int_bounds(int type, int64_t *lo, uint64_t *hi) {
    switch (type) {
    case MIO_GGUF_U8: *lo = 0; *hi = UINT8_MAX; return true;
    case MIO_GGUF_I8: *lo = INT8_MIN; *hi = INT8_MAX; return true;
    case MIO_GGUF_U16: *lo = 0; *hi = UINT16_MAX; return true;
    case MIO_GGUF_I16: *lo = INT16_MIN; *hi = INT16_MAX; return true;
    case MIO_GGUF_U32: *lo = 0; *hi = UINT32_MAX; return true;
    case MIO_GGUF_I32: *lo = INT32_MIN; *hi = INT32_MAX; return true;
    case MIO_GGUF_U64: *lo = 0; *hi = UINT64_MAX; return true;
    case MIO_GGUF_I64: *lo = INT64_MIN; *hi = INT64_MAX; return true;
    case MIO_GGUF_BOOL: *lo = 0; *hi = 1; return true;
    default: return false;
    }
}
static bool is_unsigned(int type) {
    return type == MIO_GGUF_U8 || type == MIO_GGUF_U16 || type == MIO_GGUF_U32 || type == MIO_GGUF_U64 ||
           type == MIO_GGUF_BOOL;
}

/* A decimal integer with an optional sign and nothing else (no blanks, no
 * base prefix): its magnitude and sign. false on syntax or > 2^64-1. */
static bool parse_dec(const char *s, bool *neg, uint64_t *mag) {
    *neg = false;
    *mag = 0;
    if (*s == '+' || *s == '-') *neg = *s++ == '-';
    if (!*s) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        if (*mag > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return false;
        *mag = *mag * 10 + (uint64_t)(*s - '0');
    }
    return true;
}

/* Keys are quoted in messages cut to 200 bytes (a spec can be long). */
#define KEYFMT "'%.*s%s'"
#define KEYARG(k, n) (int)((n) > 200 ? 200 : (n)), (k), ((n) > 200 ? "..." : "")

/* The one KEY=TYPE:VALUE parser (gguf_internal.h): the key and a string
 * value are left in spec (out->key, out->str point into it). */
mio_status mio_gguf_kv_spec_parse(const char *spec, int grammar, gguf_kv_spec *out) {
    const bool ovr = grammar == GGUF_SPEC_OVERRIDE;
    const char *what = ovr ? "kv override" : "metadata edit";
    const char *types = ovr ? OVERRIDE_TYPES : SPEC_TYPES;
    const size_t n_types = ovr ? 4 : sizeof k_spec_types / sizeof k_spec_types[0]; /* the first four are llama.cpp's */
    const char *eq = strchr(spec, '=');
    if (!eq) return mio_err_set(MIO_ERR_INVALID_ARG, "%s '%.200s': expected KEY=TYPE:VALUE (there is no '=')", what, spec);
    size_t kl = (size_t)(eq - spec);
    if (kl == 0) return mio_err_set(MIO_ERR_INVALID_KV, "%s '%.200s': the key before '=' is empty", what, spec);
    if (kl > MIO_GGUF_MAX_KEY)
        return mio_err_set(MIO_ERR_LIMIT, "%s: the key is %zu bytes long (GGUF keys are at most %u bytes)", what, kl,
                           MIO_GGUF_MAX_KEY);
    const char *ts = eq + 1, *colon = strchr(ts, ':');
    if (!colon)
        return mio_err_set(MIO_ERR_INVALID_ARG, "key " KEYFMT ": expected TYPE:VALUE after '=', with TYPE one of %s",
                           KEYARG(spec, kl), types);
    size_t tl = (size_t)(colon - ts);
    int type = -1;
    for (size_t k = 0; k < n_types; k++)
        if (strlen(k_spec_types[k].name) == tl && memcmp(k_spec_types[k].name, ts, tl) == 0) type = k_spec_types[k].type;
    if (type == -1)
        return mio_err_set(MIO_ERR_INVALID_ARG, "key " KEYFMT ": unknown type '%.*s' (one of %s)", KEYARG(spec, kl),
                           (int)(tl > 40 ? 40 : tl), ts, types);
    const char *v = colon + 1;
    size_t vl = strlen(v);

    gguf_kv_spec e;
    memset(&e, 0, sizeof e);
    e.key = spec;
    e.key_len = kl;
    e.type = type;
    if (type == MIO_GGUF_STRING) {
        if (vl > MIO_GGUF_MAX_LEN)
            return mio_err_set(MIO_ERR_LIMIT, "key " KEYFMT ": the string is %zu bytes (the cap is 2^30)", KEYARG(spec, kl), vl);
        e.str = v;
        e.str_len = vl;
    } else if (type == MIO_GGUF_BOOL) {
        if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0) e.u64 = 1;
        else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) e.u64 = 0;
        else
            return mio_err_set(MIO_ERR_INVALID_ARG, "key " KEYFMT ": '%.40s' is not a bool (true, false, 1 or 0)",
                               KEYARG(spec, kl), v);
    } else if (type == MIO_GGUF_F32 || type == MIO_GGUF_F64) {
        char *end = NULL;
        errno = 0;
        double d = *v && !strchr(" \t\n\v\f\r", *v) ? mio_strtod_c(v, &end) : 0;
        if (!end || end == v || *end)
            return mio_err_set(MIO_ERR_INVALID_ARG, "key " KEYFMT ": '%.40s' is not a number (%s)", KEYARG(spec, kl), v,
                               mio_gguf_type_name(type));
        /* overflow (a finite value that becomes infinite) is an error; underflow rounds to a subnormal or zero */
        if ((errno == ERANGE && isinf(d)) || (type == MIO_GGUF_F32 && isfinite(d) && isinf((float)d)))
            return mio_err_set(MIO_ERR_OUT_OF_RANGE, "key " KEYFMT ": %.40s is out of range for %s (largest finite %g)",
                               KEYARG(spec, kl), v, mio_gguf_type_name(type), type == MIO_GGUF_F32 ? (double)FLT_MAX : DBL_MAX);
        e.f64 = type == MIO_GGUF_F32 ? (double)(float)d : d;
    } else {
        bool neg;
        uint64_t mag;
        const char *tn = type == TYPE_INT ? "int" : mio_gguf_type_name(type);
        if (!parse_dec(v, &neg, &mag)) {
            const char *d = v + (*v == '-' || *v == '+');
            if (*d && strspn(d, "0123456789") == strlen(d)) /* digits only: too many of them */
                return mio_err_set(MIO_ERR_OUT_OF_RANGE, "key " KEYFMT ": %.40s is out of range for %s", KEYARG(spec, kl), v, tn);
            return mio_err_set(MIO_ERR_INVALID_ARG, "key " KEYFMT ": '%.40s' is not a decimal integer (%s)", KEYARG(spec, kl),
                               v, tn);
        }
        if (type == TYPE_INT) {
            if (neg ? mag <= (uint64_t)INT32_MAX + 1 : mag <= (uint64_t)INT32_MAX) type = MIO_GGUF_I32;
            else if (neg ? mag <= (uint64_t)INT64_MAX + 1 : mag <= (uint64_t)INT64_MAX) type = MIO_GGUF_I64;
            else
                return mio_err_set(MIO_ERR_OUT_OF_RANGE, "key " KEYFMT ": %.40s is out of range for int (i32 or i64%s)",
                                   KEYARG(spec, kl), v, ovr ? "" : "; use u64 for 2^63 and above");
            e.type = type;
        }
        int64_t lo = 0;
        uint64_t hi = 0;
        (void)int_bounds(type, &lo, &hi);
        bool ok = neg ? (mag == 0 || (lo < 0 && mag <= (uint64_t)(-(lo + 1)) + 1)) : mag <= hi;
        if (!ok)
            return mio_err_set(MIO_ERR_OUT_OF_RANGE, "key " KEYFMT ": %.40s is out of range for %s (%lld to %llu)",
                               KEYARG(spec, kl), v, mio_gguf_type_name(type), (long long)lo, (unsigned long long)hi);
        if (is_unsigned(type)) e.u64 = mag;
        else e.i64 = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    }
    *out = e;
    return MIO_OK;
}

mio_status mio_kv_edit_parse(const char *spec, mio_kv_edit **out) {
    if (!spec) return mio_err_set(MIO_ERR_INVALID_ARG, "spec is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    gguf_kv_spec s;
    mio_status st = mio_gguf_kv_spec_parse(spec, GGUF_SPEC_EDIT, &s);
    if (st) return st;
    /* one block: the struct, the key, the string value (each NUL-terminated) */
    size_t kl = s.key_len, vl = s.str_len;
    size_t extra = kl + 1 + (s.type == MIO_GGUF_STRING ? vl + 1 : 0);
    mio_kv_edit *blk = malloc(sizeof *blk + extra);
    if (!blk) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_kv_edit e;
    memset(&e, 0, sizeof e);
    e.op = MIO_KV_SET;
    e.type = s.type;
    e.u64 = s.u64;
    e.i64 = s.i64;
    e.f64 = s.f64;
    char *kp = (char *)(blk + 1);
    memcpy(kp, spec, kl);
    kp[kl] = 0;
    e.key = kp;
    if (s.type == MIO_GGUF_STRING) {
        char *sp = kp + kl + 1;
        memcpy(sp, s.str, vl + 1);
        e.str = sp;
        e.str_len = vl;
    }
    *blk = e;
    *out = blk;
    return MIO_OK;
}

/* ------------------------------------------------------------------ checking */

static mio_status check_edit(const mio_kv_edit *e, size_t i) {
    if (!e->key) return mio_err_set(MIO_ERR_INVALID_ARG, "edit %zu: key is NULL", i);
    size_t kl = strlen(e->key);
    if (kl == 0) return mio_err_set(MIO_ERR_INVALID_KV, "edit %zu: the key is empty", i);
    if (kl > MIO_GGUF_MAX_KEY)
        return mio_err_set(MIO_ERR_LIMIT, "edit %zu: the key is %zu bytes long (GGUF keys are at most %u bytes)", i, kl,
                           MIO_GGUF_MAX_KEY);
    if (e->op == MIO_KV_REMOVE) return MIO_OK;
    if (e->op != MIO_KV_SET)
        return mio_err_set(MIO_ERR_INVALID_ARG, "edit %zu (key " KEYFMT "): op %d is neither MIO_KV_SET nor MIO_KV_REMOVE", i,
                           KEYARG(e->key, kl), e->op);
    int64_t lo = 0;
    uint64_t hi = 0;
    if (e->type == MIO_GGUF_STRING) {
        if (!e->str && e->str_len)
            return mio_err_set(MIO_ERR_INVALID_ARG, "edit %zu (key " KEYFMT "): str is NULL (str_len %zu)", i,
                               KEYARG(e->key, kl), e->str_len);
        if (e->str_len > MIO_GGUF_MAX_LEN)
            return mio_err_set(MIO_ERR_LIMIT, "edit %zu (key " KEYFMT "): the string is %zu bytes (the cap is 2^30)", i,
                               KEYARG(e->key, kl), e->str_len);
    } else if (e->type == MIO_GGUF_F32) {
        if (isfinite(e->f64) && isinf((float)e->f64))
            return mio_err_set(MIO_ERR_OUT_OF_RANGE, "edit %zu (key " KEYFMT "): %g is out of range for f32", i,
                               KEYARG(e->key, kl), e->f64);
    } else if (e->type == MIO_GGUF_F64) {
        /* any double */
    } else if (int_bounds(e->type, &lo, &hi)) {
        bool ok = is_unsigned(e->type) ? e->u64 <= hi : (e->i64 >= lo && (e->i64 < 0 || (uint64_t)e->i64 <= hi));
        if (!ok) {
            if (is_unsigned(e->type))
                return mio_err_set(e->type == MIO_GGUF_BOOL ? MIO_ERR_INVALID_KV : MIO_ERR_OUT_OF_RANGE,
                                   "edit %zu (key " KEYFMT "): %llu is out of range for %s (0 to %llu)", i, KEYARG(e->key, kl),
                                   (unsigned long long)e->u64, mio_gguf_type_name(e->type), (unsigned long long)hi);
            return mio_err_set(MIO_ERR_OUT_OF_RANGE, "edit %zu (key " KEYFMT "): %lld is out of range for %s (%lld to %llu)", i,
                               KEYARG(e->key, kl), (long long)e->i64, mio_gguf_type_name(e->type), (long long)lo,
                               (unsigned long long)hi);
        }
    } else {
        const char *tn = mio_gguf_type_name(e->type);
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "edit %zu (key " KEYFMT "): type %d (%s) cannot be set by an edit (a "
                           "scalar type or MIO_GGUF_STRING)", i, KEYARG(e->key, kl), e->type, tn ? tn : "unknown");
    }
    if (strcmp(e->key, "general.alignment") == 0) {
        if (e->type != MIO_GGUF_U32)
            return mio_err_set(MIO_ERR_INVALID_ALIGNMENT, "edit %zu: general.alignment must be a u32, not %s", i,
                               mio_gguf_type_name(e->type));
        if (e->u64 == 0 || (e->u64 & (e->u64 - 1)) || e->u64 > GGUF_MAX_ALIGNMENT)
            return mio_err_set(MIO_ERR_INVALID_ALIGNMENT, "edit %zu: general.alignment %llu is not a power of two between 1 "
                               "and %u", i, (unsigned long long)e->u64, GGUF_MAX_ALIGNMENT);
    }
    return MIO_OK;
}

static mio_status check_edits(const mio_kv_edit *e, size_t n) {
    if (!e && n) return mio_err_set(MIO_ERR_INVALID_ARG, "e is NULL (n %zu)", n);
    for (size_t i = 0; i < n; i++) {
        mio_status st = check_edit(&e[i], i);
        if (st) return st;
    }
    return MIO_OK;
}

/* ------------------------------------------------------------------ applying */

static mio_status apply_one(mio_writer *w, const mio_kv_edit *e) {
    if (e->op == MIO_KV_REMOVE) {
        mio_status st = mio_writer_remove_key(w, e->key);
        return st == MIO_ERR_NOT_FOUND ? MIO_OK : st; /* a missing key is a no-op, as in gguf-new-metadata */
    }
    switch (e->type) {
    case MIO_GGUF_U8: return mio_writer_set_u8(w, e->key, (uint8_t)e->u64);
    case MIO_GGUF_I8: return mio_writer_set_i8(w, e->key, (int8_t)e->i64);
    case MIO_GGUF_U16: return mio_writer_set_u16(w, e->key, (uint16_t)e->u64);
    case MIO_GGUF_I16: return mio_writer_set_i16(w, e->key, (int16_t)e->i64);
    case MIO_GGUF_U32: return mio_writer_set_u32(w, e->key, (uint32_t)e->u64);
    case MIO_GGUF_I32: return mio_writer_set_i32(w, e->key, (int32_t)e->i64);
    case MIO_GGUF_U64: return mio_writer_set_u64(w, e->key, e->u64);
    case MIO_GGUF_I64: return mio_writer_set_i64(w, e->key, e->i64);
    case MIO_GGUF_F32: return mio_writer_set_f32(w, e->key, (float)e->f64);
    case MIO_GGUF_F64: return mio_writer_set_f64(w, e->key, e->f64);
    case MIO_GGUF_BOOL: return mio_writer_set_bool(w, e->key, e->u64 != 0);
    default: return mio_writer_set_str(w, e->key, e->str, e->str_len); /* MIO_GGUF_STRING: checked */
    }
}

mio_status mio_writer_apply_edits(mio_writer *w, const mio_kv_edit *e, size_t n) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "writer w is NULL");
    mio_status st = check_edits(e, n);
    for (size_t i = 0; i < n && !st; i++)
        if ((st = apply_one(w, &e[i])) != MIO_OK) mio_err_prefix(st, "edit %zu (key '%.200s'): ", i, e[i].key);
    return st;
}

/* ------------------------------------------------------------------ copying */

/* A writer holding f's metadata (split.* dropped for a merged split) with the
 * edits applied, and f's tensors declared in file order. */
static mio_status edited_writer(const mio_gguf_file *f, uint32_t wflags, const mio_kv_edit *e, size_t n,
                                mio_writer **out) {
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(wflags, &w);
    if (!st) st = mio_writer_copy_all_kv(w, f, mio_gguf_split_keys, f->n_parts > 1 ? 3 : 0);
    if (!st) st = mio_writer_apply_edits(w, e, n);
    for (uint64_t i = 0; i < f->n_tensors && !st; i++) {
        const mio_gguf_tensor *t = &f->tensors[i];
        char name[GGUF_MAX_NAME];
        memcpy(name, t->name.ptr, t->name.len); /* the parser keeps names under GGUF_MAX_NAME bytes */
        name[t->name.len] = 0;
        st = mio_writer_declare_tensor(w, name, t->type, t->n_dims, t->ne);
    }
    if (st) { mio_writer_free(w); return st; }
    *out = w;
    return MIO_OK;
}

/* The copy, into out_path (atomically) or, when out_path is NULL, into fd. */
static mio_status copy_edit(const char *in_path, const char *out_path, int fd, const mio_kv_edit *e, size_t n) {
    if (!in_path) return mio_err_set(MIO_ERR_INVALID_ARG, "in_path is NULL");
    mio_status st = check_edits(e, n);
    if (st) return st;
    mio_gguf_file *f = NULL;
    mio_writer *w = NULL;
    if ((st = mio_gguf_open_model(in_path, 0, &f)) != MIO_OK) return st;
    if (out_path && mio_gguf_uses_file(f, out_path)) {
        mio_gguf_close(f);
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is one of the input files; refusing to overwrite it", out_path);
    }
    /* a tensor-less file that ends at its header (gguf-py's layout) stays so */
    uint32_t wflags = f->n_tensors == 0 && f->n_parts == 1 && mio_gguf_file_size(f) == mio_gguf_header_size(f)
                          ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT;
    st = edited_writer(f, wflags, e, n, &w);
    if (!st) st = out_path ? mio_writer_begin_file(w, out_path) : mio_writer_begin_fd(w, fd);
    for (uint64_t i = 0; i < f->n_tensors && !st; i++) {
        const mio_gguf_tensor *t = &f->tensors[i];
        if (t->nbytes > SIZE_MAX) st = mio_err_set(MIO_ERR_OVERFLOW, "tensor '%.64s' is larger than the address space", t->name.ptr);
        else st = mio_writer_write_tensor(w, t->data, (size_t)t->nbytes);
    }
    if (!st) st = mio_writer_finish(w);
    mio_writer_free(w); /* removes the temp file of an unfinished write */
    mio_gguf_close(f);
    return st;
}

mio_status mio_gguf_copy_edit(const char *in_path, const char *out_path, const mio_kv_edit *e, size_t n) {
    if (!out_path) return mio_err_set(MIO_ERR_INVALID_ARG, "out_path is NULL");
    return copy_edit(in_path, out_path, -1, e, n);
}

mio_status mio_gguf_copy_edit_fd(const char *in_path, int fd, const mio_kv_edit *e, size_t n) {
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "fd %d is not a descriptor", fd);
    return copy_edit(in_path, NULL, fd, e, n);
}

/* ------------------------------------------------------------------ in place */

/* The bytes the writer streams before the first tensor: the header and its
 * padding to the data section. */
typedef struct hdr_sink {
    uint8_t *p;
    size_t len, cap, limit;
    bool nomem;
} hdr_sink;

static int hdr_collect(void *user, const void *data, size_t len) {
    hdr_sink *h = user;
    if (len > h->limit - h->len) { h->len = h->limit + 1; return 1; } /* more than can fit: stop here */
    if (h->len + len > h->cap) {
        size_t nc = h->len + len;
        uint8_t *np = realloc(h->p, nc);
        if (!np) { h->nomem = true; return 1; }
        h->p = np;
        h->cap = nc;
    }
    memcpy(h->p + h->len, data, len);
    h->len += len;
    return 0;
}

/* Write n bytes at offset 0 and fsync: 0, or the errno of the failure. */
static int write_at(int fd, const uint8_t *p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t k = pwrite(fd, p + done, n - done, (off_t)done);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return errno;
        if (k == 0) return EIO;
        done += (size_t)k;
    }
    return fsync(fd) != 0 ? errno : 0;
}

/* Backup of the old header bytes, durable before the header is touched. */
static mio_status write_backup(const char *bpath, const uint8_t *p, size_t n, const char *path) {
    int fd = open(bpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            return mio_err_set(MIO_ERR_IO, "%s: the header backup %s already exists: an earlier in-place edit was interrupted. "
                               "If %s does not open, restore its header with `dd if=%s of=%s conv=notrunc`; then remove the "
                               "backup and retry", path, bpath, path, bpath, path);
        return mio_err_set(MIO_ERR_IO, "%s: cannot create the header backup %s: %s", path, bpath, strerror(errno));
    }
    mio_status st = mio_fd_write_all(fd, p, n, bpath);
    if (!st && fsync(fd) != 0) st = mio_err_set(MIO_ERR_IO, "fsync of %s failed: %s", bpath, strerror(errno));
    close(fd);
    if (st) { unlink(bpath); return st; }
    mio_fsync_parent(bpath);
    return MIO_OK;
}

mio_status mio_gguf_edit_in_place(const char *path, const mio_kv_edit *e, size_t n) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    mio_status st = check_edits(e, n);
    if (st) return st;
    mio_gguf_file *f = NULL;
    mio_writer *w = NULL;
    hdr_sink h = {0};
    uint8_t *old = NULL;
    char *bpath = NULL;
    int fd = -1;
    sigset_t block, old_mask;
    bool masked = false;
    if ((st = mio_gguf_open(path, MIO_OPEN_MMAP, &f)) != MIO_OK) return st;
    const gguf_part *part = &f->parts[0];
    uint64_t data_off = part->data_offset, fsize = part->region.size;
    uint32_t align = f->alignment;

    /* a split's part keeps its split.* keys: the set would no longer load */
    if (mio_gguf_find_key(f, "split.count") >= 0)
        for (size_t i = 0; i < n && !st; i++)
            if (strncmp(e[i].key, "split.", 6) == 0)
                st = mio_err_set(MIO_ERR_SPLIT, "%s: the file is part of a split model (split.count); editing %.200s in "
                                 "place would break the set", path, e[i].key);
    if (!st && fsize < data_off)
        st = mio_err_set(MIO_ERR_LIMIT, "%s: the file ends at byte %llu, before its data section (%llu): a tensor-less file "
                         "without padding has no room to edit in place; write an edited copy instead", path,
                         (unsigned long long)fsize, (unsigned long long)data_off);
    if (!st && data_off > SIZE_MAX / 2)
        st = mio_err_set(MIO_ERR_OVERFLOW, "%s: a header of %llu bytes does not fit in memory", path, (unsigned long long)data_off);
    if (!st) st = edited_writer(f, MIO_WRITER_DEFAULT, e, n, &w);
    if (!st && mio_writer_alignment(w) != align)
        st = mio_err_set(MIO_ERR_INVALID_ALIGNMENT, "%s: the edits change general.alignment from %u to %u; the tensor data "
                         "would have to move, which an in-place edit cannot do (write an edited copy instead)", path, align,
                         mio_writer_alignment(w));
    if (!st) {
        /* The writer lays the tensors out as the running padded sum of their
         * sizes, which is the layout the parser requires of the input: with the
         * same tensors and alignment every offset is the same. */
        h.limit = (size_t)data_off;
        mio_status bs = mio_writer_begin_cb(w, hdr_collect, &h);
        uint64_t need = mio_writer_header_size(w);
        if (h.nomem) st = mio_err_set(MIO_ERR_NOMEM, "cannot allocate %llu header bytes", (unsigned long long)data_off);
        else if (bs && h.len <= h.limit) st = bs;
        else if (need > data_off)
            st = mio_err_set(MIO_ERR_LIMIT, "%s: the edited header needs %llu bytes but only %llu fit before the tensor data "
                             "(data offset %llu, alignment %u); an in-place edit cannot move tensor data — write an edited "
                             "copy instead", path, (unsigned long long)need, (unsigned long long)data_off,
                             (unsigned long long)data_off, align);
        else if (h.len != data_off)
            st = mio_err_set(MIO_ERR_LIMIT, "%s: the edited header is %llu bytes, %llu fewer than the old one (%llu); readers "
                             "find the tensor data at the header's end rounded up to the alignment %u, so it would move "
                             "from %llu to %llu: in place, the header must stay between %llu and %llu bytes — write an edited "
                             "copy instead", path, (unsigned long long)need,
                             (unsigned long long)(part->header_size - need), (unsigned long long)part->header_size, align,
                             (unsigned long long)data_off, (unsigned long long)h.len,
                             (unsigned long long)(data_off - align + 1), (unsigned long long)data_off);
    }
    mio_writer_free(w);
    w = NULL;
    if (st) goto done;
    memcpy(h.p + 4, part->region.data + 4, 4); /* keep the file's GGUF version (v2 stays v2) */
    if (memcmp(h.p, part->region.data, (size_t)data_off) == 0) goto done; /* nothing changes */
    if (!(old = malloc((size_t)data_off)) || !(bpath = malloc(strlen(path) + 32))) {
        st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* copied before anything is written: a MAP_PRIVATE mapping may show the file's new bytes */
    memcpy(old, part->region.data, (size_t)data_off);
    sprintf(bpath, "%s.mio-header-backup", path);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        st = mio_err_set(MIO_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
        goto done;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_dev != part->region.dev || (uint64_t)sb.st_ino != part->region.ino ||
        (uint64_t)sb.st_size != fsize) {
        st = mio_err_set(MIO_ERR_IO, "%s: the file changed while it was being edited (replaced or resized); nothing written",
                         path);
        goto done;
    }
    /* From the backup's creation to its removal the file is in between (a
     * backup that refuses further edits, a header half written): SIGINT,
     * SIGTERM and SIGHUP wait on this thread until the file is consistent
     * again, and are delivered when the old mask is restored at the end. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    masked = pthread_sigmask(SIG_BLOCK, &block, &old_mask) == 0;
    if ((st = write_backup(bpath, old, (size_t)data_off, path)) != MIO_OK) goto done;
    int werr = write_at(fd, h.p, (size_t)data_off);
    if (werr) {
        /* put the old header back; the backup stays unless that succeeded */
        int rerr = write_at(fd, old, (size_t)data_off);
        if (!rerr) unlink(bpath);
        st = rerr ? mio_err_set(MIO_ERR_IO, "%s: writing the new header failed (%s) and so did restoring the old one (%s); "
                                "the old header is saved in %s: restore it with `dd if=%s of=%s conv=notrunc`", path,
                                strerror(werr), strerror(rerr), bpath, bpath, path)
                  : mio_err_set(MIO_ERR_IO, "%s: writing the new header failed (%s); the old header was put back", path,
                                strerror(werr));
        goto done;
    }
    unlink(bpath);
    mio_fsync_parent(bpath);
done:
    if (fd >= 0) close(fd);
    free(bpath);
    free(old);
    free(h.p);
    mio_gguf_close(f);
    /* last: a signal that came meanwhile is delivered here, the file consistent */
    if (masked) (void)pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return st;
}

/* ------------------------------------------------------------------ sized edit arrays (docs/ABI.md) */
ABI_FROZEN(mio_kv_edit, str_len);

#define WITH_EDITS(call)                                                                                      \
    const void *use;                                                                                          \
    void *copy;                                                                                               \
    mio_status st = mio_abi_array_in(e, n, edit_size, sizeof(mio_kv_edit), "edit", "mio_kv_edit", &use, &copy); \
    if (!st) st = (call);                                                                                     \
    free(copy);                                                                                               \
    return st

mio_status mio_writer_apply_edits_sized(mio_writer *w, const mio_kv_edit *e, size_t n, size_t edit_size) {
    WITH_EDITS(mio_writer_apply_edits(w, use, n));
}
mio_status mio_gguf_copy_edit_sized(const char *in_path, const char *out_path, const mio_kv_edit *e, size_t n,
                                    size_t edit_size) {
    WITH_EDITS(mio_gguf_copy_edit(in_path, out_path, use, n));
}
mio_status mio_gguf_copy_edit_fd_sized(const char *in_path, int fd, const mio_kv_edit *e, size_t n, size_t edit_size) {
    WITH_EDITS(mio_gguf_copy_edit_fd(in_path, fd, use, n));
}
mio_status mio_gguf_edit_in_place_sized(const char *path, const mio_kv_edit *e, size_t n, size_t edit_size) {
    WITH_EDITS(mio_gguf_edit_in_place(path, use, n));
}
