/* SPDX-License-Identifier: MIT */
/* quantize.c — mio_quantize: the one quantizer behind mio-quantize and
 * mio-export-gguf. It decides every tensor's output type (a llama.cpp preset
 * through policy.c, or the conservative --dtype seed policy here), lays out the
 * metadata as llama_model_quantize does, and streams: each tensor is decoded,
 * checked and encoded a chunk of rows at a time and handed to the writer in
 * pieces, so memory holds a fixed working set whatever the tensor sizes.
 * Invariant: nothing is written before every decision is made and checked, and
 * a failure leaves no output (the writer's temp file is removed). */
#include "gguf/gguf_internal.h"
#include "quantize/imatrix.h"
#include "quantize/quantize_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* f32 elements per chunk: 4 MiB of floats. The working set is this buffer plus
 * the encoded chunk (at most as large) — see docs/QUANTIZE.md "Memory". */
#define QZ_CHUNK_ELEMS ((size_t)1 << 20)

ABI_FROZEN(mio_quantize_params, progress_user);

void mio_quantize_default_params(mio_quantize_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->preset = MIO_PRESET_NONE;
    p->dtype = -1;
    p->output_tensor_type = -1;
    p->token_embedding_type = -1;
    p->experts_type = -1;
}

mio_status mio_quantize_default_params_sized(mio_quantize_params *p, size_t size) {
    mio_quantize_params d;
    mio_quantize_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_quantize_params");
}

/* llama.cpp's llama_ftype for a file whose matrix weights are all of one type
 * (the --dtype policy's general.file_type), -1 for activation-only formats. */
int mio_type_file_type(int type) {
    switch (type) {
    case MIO_TYPE_F32: return 0;     case MIO_TYPE_F16: return 1;     case MIO_TYPE_Q4_0: return 2;
    case MIO_TYPE_Q4_1: return 3;    case MIO_TYPE_Q8_0: return 7;    case MIO_TYPE_Q5_0: return 8;
    case MIO_TYPE_Q5_1: return 9;    case MIO_TYPE_Q2_K: return 10;   case MIO_TYPE_Q3_K: return 11; /* Q3_K_S */
    case MIO_TYPE_Q4_K: return 14; /* Q4_K_S */ case MIO_TYPE_Q5_K: return 16; /* Q5_K_S */
    case MIO_TYPE_Q6_K: return 18;   case MIO_TYPE_IQ2_XXS: return 19; case MIO_TYPE_IQ2_XS: return 20;
    case MIO_TYPE_IQ3_XXS: return 23; case MIO_TYPE_IQ1_S: return 24; case MIO_TYPE_IQ4_NL: return 25;
    case MIO_TYPE_IQ3_S: return 26;  case MIO_TYPE_IQ2_S: return 28;  case MIO_TYPE_IQ4_XS: return 30;
    case MIO_TYPE_IQ1_M: return 31;  case MIO_TYPE_BF16: return 32;   case MIO_TYPE_TQ1_0: return 36;
    case MIO_TYPE_TQ2_0: return 37;  case MIO_TYPE_MXFP4: return 38;  case MIO_TYPE_NVFP4: return 39;
    case MIO_TYPE_Q1_0: return 40;   case MIO_TYPE_Q2_0: return 41;
    default: return -1;
    }
}

/* ------------------------------------------------------------------ the plan */

static int has_suffix(mio_str s, const char *suf) {
    size_t n = strlen(suf);
    return s.len >= n && memcmp(s.ptr + s.len - n, suf, n) == 0;
}
static int contains(mio_str s, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= s.len; i++)
        if (memcmp(s.ptr + i, needle, n) == 0) return 1;
    return 0;
}

/* The input's tensors in input order (the --dtype path keeps it). */
static mio_status input_items(const mio_gguf_file *f, qz_item **out, size_t *n_out) {
    int64_t n = mio_gguf_tensor_count(f);
    qz_item *items = calloc((size_t)(n > 0 ? n : 1), sizeof *items);
    if (!items) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        mio_gguf_tensor t;
        mio_status st = mio_gguf_tensor_info(f, i, &t);
        if (!st && (t.name.len >= QZ_NAME_MAX || memchr(t.name.ptr, '\0', t.name.len))) {
            char nb[160];
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor '%s': the name cannot be copied (NUL byte or %zu bytes)",
                             mio_esc_bytes(nb, sizeof nb, t.name.ptr, t.name.len), t.name.len);
        }
        if (st) { free(items); return st; }
        qz_item *q = &items[i];
        q->src = i;
        memcpy(q->orig_name, t.name.ptr, t.name.len);
        memcpy(q->name, t.name.ptr, t.name.len);
        q->n_dims = t.n_dims;
        memcpy(q->ne, t.ne, sizeof q->ne);
        q->in_type = t.type;
        q->part = t.part;
        q->offset = t.offset;
    }
    *out = items;
    *n_out = (size_t)n;
    return MIO_OK;
}

/* The --dtype seed policy (mio-export-gguf): convert matrix weights (n_dims >= 2,
 * '.weight', no 'norm') from f32/f16/bf16 when the row is whole blocks; keep the
 * rest; refuse a quantized matrix. Input order, names unchanged. --experts-dtype
 * takes the expert tensors (*_exps.weight) whatever their type, re-encoding
 * quantized ones (seed 12.4); a row that is not whole blocks of that type is
 * kept as it is. */
static mio_status dtype_plan(int target, int experts_type, qz_item *items, size_t n) {
    for (size_t i = 0; i < n; i++) {
        qz_item *it = &items[i];
        mio_str name = {it->orig_name, strlen(it->orig_name)};
        it->out_type = it->in_type;
        it->why = "verbatim";
        if (experts_type >= 0 && it->n_dims >= 2 && has_suffix(name, "_exps.weight")) {
            if (it->ne[0] % mio_type_block_size(experts_type) != 0) it->why = "row not a whole number of blocks";
            else if (it->in_type == experts_type) it->why = "already that type";
            else { it->out_type = experts_type; it->why = "--experts-dtype"; }
            continue;
        }
        if (target < 0) continue;
        if (it->n_dims < 2) { it->why = "1-D"; continue; }
        if (!has_suffix(name, ".weight")) { it->why = "not a .weight"; continue; }
        if (contains(name, "norm")) { it->why = "norm"; continue; }
        if (it->in_type != MIO_TYPE_F32 && it->in_type != MIO_TYPE_F16 && it->in_type != MIO_TYPE_BF16) {
            char nb[160];
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE,
                               "tensor '%s' is %s: only f32/f16/bf16 sources can be transcoded (re-quantizing a quantized "
                               "tensor would compound its error); convert from the unquantized model",
                               mio_esc_bytes(nb, sizeof nb, name.ptr, name.len), mio_type_name(it->in_type));
        }
        if (it->ne[0] % mio_type_block_size(target) != 0) { it->why = "row not a whole number of blocks"; continue; }
        if (it->in_type == target) { it->why = "already that type"; continue; }
        it->out_type = target;
        it->why = "converted";
    }
    for (size_t i = 0; i < n; i++) items[i].convert = items[i].out_type != items[i].in_type;
    return MIO_OK;
}

/* ------------------------------------------------------------------ encoding */

typedef struct enc_job {
    int type;
    const float *src;
    size_t n_per_row;
    const float *imatrix;
    uint8_t *dst;
    size_t row_bytes;
    pthread_mutex_t mu; /* guards the first failure below */
    size_t bad_row;     /* first row of the earliest failing range (SIZE_MAX: none) */
    mio_status st;
    char msg[256];
} enc_job;

static void enc_rows(void *ctx, int64_t r0, int64_t r1) {
    enc_job *j = ctx;
    size_t a = (size_t)r0, rows = (size_t)(r1 - r0);
    mio_status st = mio_encode_f32_imatrix(j->type, j->src + a * j->n_per_row, rows * j->n_per_row,
                                           (int64_t)j->n_per_row, j->imatrix, j->dst + a * j->row_bytes,
                                           rows * j->row_bytes);
    if (!st) return;
    pthread_mutex_lock(&j->mu);
    if (a < j->bad_row) { /* report the failure earliest in the tensor, whichever thread met it */
        j->bad_row = a;
        j->st = st;
        snprintf(j->msg, sizeof j->msg, "%s", mio_last_error());
    }
    pthread_mutex_unlock(&j->mu);
}

/* Encode rows x n_per_row floats (with an importance matrix, or without: NULL)
 * over n_threads threads: ranges of rows claimed dynamically (every row is
 * encoded alone, so the bytes do not depend on the split), about 16 ranges per
 * thread; side (may be NULL) runs once meanwhile (core.h). */
static mio_status encode_rows_mt(int type, const float *src, size_t rows, size_t n_per_row, const float *imatrix,
                                 uint8_t *dst, size_t row_bytes, int n_threads, void (*side)(void *), void *side_ctx) {
    enc_job j = {type, src, n_per_row, imatrix, dst, row_bytes, PTHREAD_MUTEX_INITIALIZER, SIZE_MAX, MIO_OK, {0}};
    int nt = n_threads < 1 ? 1 : n_threads;
    mio_core_parallel_ranges_side(enc_rows, &j, (int64_t)rows, (int64_t)(rows / ((size_t)nt * 16)), nt, side, side_ctx);
    pthread_mutex_destroy(&j.mu);
    return j.st ? mio_err_set(j.st, "%s", j.msg) : MIO_OK;
}

static int resolve_threads(int n) {
    if (n > 0) return n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* Index of the first NaN/inf among n floats, or -1. */
static int64_t first_bad(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, x + i, 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return (int64_t)i;
    }
    return -1;
}

/* Writer operations not yet done, in order: a chunk's encoded bytes (at most
 * one: it waits in one of two buffers while the next chunk is encoded into the
 * other) and the verbatim copies of the tensors after it. Done by
 * pending_write, as the side task of the next chunk's encode (any thread), or
 * directly before the end; a failure is kept with its message (errors are per
 * thread) for the quantizing thread to report. */
#define QZ_OPS 64
typedef struct qz_op {
    mio_writer *w;
    const uint8_t *p; /* encoded bytes, or NULL: copy tensor t */
    size_t n;
    mio_gguf_tensor t;
} qz_op;
typedef struct qz_pending {
    const mio_gguf_file *f;
    qz_op op[QZ_OPS];
    int nop;
    uint64_t copied; /* input bytes the copies took (for the progress count) */
    mio_status st;
    char msg[256];
} qz_pending;

static void pending_write(void *ctx) {
    qz_pending *q = ctx;
    for (int k = 0; k < q->nop && !q->st; k++) {
        const qz_op *o = &q->op[k];
        q->st = o->p ? mio_writer_write_tensor_part(o->w, o->p, o->n) : mio_gguf_writer_copy_tensor(o->w, q->f, &o->t, &q->copied);
        if (q->st) snprintf(q->msg, sizeof q->msg, "%s", mio_last_error());
    }
    q->nop = 0;
}

/* The pending operations' outcome, in the calling thread's error state. */
static mio_status pending_status(const qz_pending *q) { return q->st ? mio_err_set(q->st, "%s", q->msg) : MIO_OK; }

static mio_status flush_pending(qz_pending *q) {
    pending_write(q);
    return pending_status(q);
}

typedef struct qz_run {
    const mio_gguf_file *f;
    const mio_quantize_params *p;
    const qz_imatrix *im;
    mio_writer *w;
    float *fbuf;      /* QZ_CHUNK_ELEMS floats, or one row when a row is longer */
    uint8_t *eb[2];   /* encoded chunks: one being encoded, the other waiting to be written */
    size_t fcap, ecap[2];
    int cur;          /* eb[cur] takes the next chunk */
    qz_pending pend;  /* the previous chunk's bytes, written while the next is encoded */
    int n_threads;
    uint64_t bytes_done, bytes_total;
    int64_t done, total;
} qz_run;

/* Grow the chunk buffers to hold `elems` floats and `bytes` encoded bytes (both
 * encode buffers; a buffer's pending bytes are written first when it must move). */
static mio_status ensure_buffers(qz_run *r, size_t elems, size_t bytes) {
    if (elems > r->fcap) {
        float *nf = realloc(r->fbuf, elems * sizeof *nf);
        if (!nf) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %zu bytes of working memory", elems * sizeof *nf);
        r->fbuf = nf;
        r->fcap = elems;
    }
    for (int k = 0; k < 2; k++) {
        if (bytes <= r->ecap[k]) continue;
        bool held = false; /* bytes of this buffer still to be written */
        for (int i = 0; i < r->pend.nop; i++) held |= r->eb[k] && r->pend.op[i].p == r->eb[k];
        mio_status st = held ? flush_pending(&r->pend) : MIO_OK;
        if (st) return st;
        uint8_t *ne = realloc(r->eb[k], bytes);
        if (!ne) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %zu bytes of working memory", bytes);
        r->eb[k] = ne;
        r->ecap[k] = bytes;
    }
    return MIO_OK;
}

static mio_status progress(qz_run *r) {
    if (r->p->progress && r->p->progress(r->p->progress_user, r->done, r->total, r->bytes_done, r->bytes_total) != 0)
        return mio_err_set(MIO_ERR_CANCELLED, "cancelled by the progress callback after %lld of %lld tensors",
                           (long long)r->done, (long long)r->total);
    return MIO_OK;
}

/* Stream one tensor: a verbatim copy, or decode -> check -> encode a chunk of
 * rows at a time. Source pages are released after use. */
static mio_status write_item(qz_run *r, const qz_item *it, uint64_t out_bytes) {
    mio_gguf_tensor tt;
    mio_status st = mio_gguf_tensor_info(r->f, it->src, &tt);
    if (st) return st;
    const mio_gguf_tensor *t = &tt;
    char nb[160];
    if (!it->convert) { /* copied after the pending bytes, with them */
        if (r->pend.nop == QZ_OPS && (st = flush_pending(&r->pend)) != MIO_OK) return st;
        r->pend.f = r->f;
        r->pend.op[r->pend.nop++] = (qz_op){.w = r->w, .p = NULL, .n = 0, .t = tt};
        return MIO_OK;
    }
    size_t n_per_row = (size_t)t->ne[0];
    size_t rows_per_slice = (size_t)t->ne[1]; /* rows of one expert (3-D) or of the whole matrix */
    size_t n_slices = (size_t)(t->ne[2] * t->ne[3]);
    size_t in_row = (size_t)(t->nbytes / ((uint64_t)rows_per_slice * n_slices));
    size_t out_row = (size_t)(out_bytes / ((uint64_t)rows_per_slice * n_slices));
    size_t chunk_rows = QZ_CHUNK_ELEMS / n_per_row;
    if (chunk_rows == 0) chunk_rows = 1;
    if (chunk_rows > rows_per_slice) chunk_rows = rows_per_slice;
    if ((st = ensure_buffers(r, chunk_rows * n_per_row, chunk_rows * out_row)) != MIO_OK) return st;
    const float *imat = NULL;
    /* looked up by the input name (before any prune renumbering), as llama.cpp does */
    if (r->im && (st = mio_qz_imatrix_for_tensor(r->im, it->orig_name, t->ne[0], t->ne[2], &imat)) != MIO_OK) return st;
    if (!imat && it->requires_imatrix)
        return mio_err_set(MIO_ERR_ENCODER_UNAVAILABLE, "missing importance matrix for tensor '%s' in a very low-bit "
                           "quantization (%s needs one; the imatrix has no usable entry for it)", it->orig_name,
                           mio_type_name(it->out_type));
    const uint8_t *src = t->data;
    const int block_target = mio_type_block_size(it->out_type) > 1;
    for (size_t s = 0; s < n_slices && !st; s++) {
        const float *slice_imat = imat ? imat + (s % (size_t)t->ne[2]) * n_per_row : NULL;
        for (size_t r0 = 0; r0 < rows_per_slice && !st; r0 += chunk_rows) {
            size_t rows = rows_per_slice - r0 < chunk_rows ? rows_per_slice - r0 : chunk_rows;
            size_t n = rows * n_per_row;
            const uint8_t *in = src + ((s * rows_per_slice + r0) * in_row);
            size_t in_bytes = rows * in_row;
            mio_gguf_prefetch(r->f, in, in_bytes);
            const float *x;
            if (t->type == MIO_TYPE_F32) {
                x = (const float *)(const void *)in;
            } else {
                st = mio_decode_f32_mt(t->type, in, in_bytes, r->fbuf, n, r->n_threads);
                x = r->fbuf;
            }
            /* Block encoders refuse NaN/inf themselves (vectorised); the casts do
             * not, so they are screened here. Either way the message is ours,
             * with the element's index in the whole tensor. */
            int64_t bad = !st && !block_target ? first_bad(x, n) : -1;
            uint8_t *eb = r->eb[r->cur];
            if (!st && bad < 0) {
                /* by rows, the previous chunk written meanwhile; a chunk of too
                 * few rows to share is split by blocks instead (written first) */
                if (slice_imat || rows >= 2 * (size_t)r->n_threads)
                    st = encode_rows_mt(it->out_type, x, rows, n_per_row, slice_imat, eb, out_row, r->n_threads,
                                        pending_write, &r->pend);
                else if ((st = flush_pending(&r->pend)) == MIO_OK)
                    st = mio_encode_f32_mt(it->out_type, x, n, eb, rows * out_row, r->n_threads);
                if (st == MIO_ERR_NON_FINITE) bad = first_bad(x, n);
                else if (st) mio_err_prefix(st, "tensor '%s': ", mio_esc_bytes(nb, sizeof nb, t->name.ptr, t->name.len));
            }
            if (bad >= 0)
                st = mio_err_set(MIO_ERR_NON_FINITE, "tensor '%s': element %llu is %s; refusing to convert non-finite "
                                 "weights", mio_esc_bytes(nb, sizeof nb, t->name.ptr, t->name.len),
                                 ((unsigned long long)s * rows_per_slice + r0) * n_per_row + (unsigned long long)bad,
                                 x[bad] != x[bad] ? "NaN" : "infinite");
            mio_gguf_release(r->f, in, in_bytes);
            if (!st) st = pending_status(&r->pend);
            if (!st) { /* this chunk waits for the next encode (or the end); the encode above emptied the queue */
                r->pend.op[r->pend.nop++] = (qz_op){.w = r->w, .p = eb, .n = rows * out_row};
                r->cur ^= 1;
            }
            r->bytes_done += in_bytes + r->pend.copied;
            r->pend.copied = 0;
        }
    }
    return st;
}

/* ------------------------------------------------------------------ metadata */


/* Keys llama_model_quantize writes after the copied ones (setting an existing
 * key again moves it to the end, as ggml's gguf setters do). */
static mio_status set_moved_u32(mio_writer *w, const char *key, uint32_t v) {
    mio_status st = mio_writer_remove_key(w, key);
    if (st && st != MIO_ERR_NOT_FOUND) return st;
    return mio_writer_set_u32(w, key, v);
}

static mio_status kv_override(mio_writer *w, const mio_kv_override *o, size_t i) {
    if (!o->key || !*o->key) return mio_err_set(MIO_ERR_INVALID_ARG, "kv override #%zu has no key", i);
    mio_status st = mio_writer_remove_key(w, o->key);
    if (st && st != MIO_ERR_NOT_FOUND) return st;
    switch (o->type) {
    case MIO_GGUF_I64: {
        /* llama.cpp writes integer overrides as u32 of the absolute value */
        int64_t v = o->i64 < 0 ? -o->i64 : o->i64;
        if (o->i64 == INT64_MIN || v > (int64_t)UINT32_MAX)
            return mio_err_set(MIO_ERR_OUT_OF_RANGE, "kv override '%s': %lld does not fit the u32 llama.cpp writes", o->key,
                               (long long)o->i64);
        return mio_writer_set_u32(w, o->key, (uint32_t)v);
    }
    case MIO_GGUF_F64: return mio_writer_set_f32(w, o->key, (float)o->f64);
    case MIO_GGUF_BOOL: return mio_writer_set_bool(w, o->key, o->b);
    case MIO_GGUF_STRING:
        if (!o->str) return mio_err_set(MIO_ERR_INVALID_ARG, "kv override '%s': string value is NULL", o->key);
        return mio_writer_set_str(w, o->key, o->str, strlen(o->str));
    default:
        return mio_err_set(MIO_ERR_INVALID_ARG, "kv override '%s': type %d is not int (MIO_GGUF_I64), float (MIO_GGUF_F64), "
                           "bool or string", o->key, o->type);
    }
}

mio_status mio_kv_override_parse(const char *spec, mio_kv_override **out) {
    if (!spec) return mio_err_set(MIO_ERR_INVALID_ARG, "spec is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    gguf_kv_spec s;
    mio_status st = mio_gguf_kv_spec_parse(spec, GGUF_SPEC_OVERRIDE, &s);
    if (st) return st;
    /* one block: the struct, the key, the string value (each NUL-terminated) */
    bool is_str = s.type == MIO_GGUF_STRING;
    mio_kv_override *blk = malloc(sizeof *blk + s.key_len + 1 + (is_str ? s.str_len + 1 : 0));
    if (!blk) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_kv_override o;
    memset(&o, 0, sizeof o);
    char *kp = (char *)(blk + 1);
    memcpy(kp, s.key, s.key_len);
    kp[s.key_len] = 0;
    o.key = kp;
    switch (s.type) {
    case MIO_GGUF_I32:
    case MIO_GGUF_I64: o.type = MIO_GGUF_I64; o.i64 = s.i64; break;
    case MIO_GGUF_F32: o.type = MIO_GGUF_F64; o.f64 = s.f64; break;
    case MIO_GGUF_BOOL: o.type = MIO_GGUF_BOOL; o.b = s.u64 != 0; break;
    default: {
        char *sp = kp + s.key_len + 1;
        memcpy(sp, s.str, s.str_len + 1);
        o.type = MIO_GGUF_STRING;
        o.str = sp;
        break;
    }
    }
    *blk = o;
    *out = blk;
    return MIO_OK;
}

/* ------------------------------------------------------------------ driver */

static mio_status check_params(const mio_quantize_params *in, mio_quantize_params *p) {
    mio_quantize_default_params(p);
    /* at least size and preset; a newer header's larger struct is read if its
     * unknown tail is zero (docs/ABI.md) */
    mio_status st = mio_abi_params_merge(p, sizeof *p, in, sizeof(size_t) + sizeof(int), "mio_quantize_params",
                                         "mio_quantize_default_params");
    if (st) return st;
    if (p->preset != MIO_PRESET_NONE && !mio_preset_name(p->preset))
        return mio_err_set(MIO_ERR_INVALID_ARG, "preset %d is not a llama.cpp quantization type", p->preset);
    if (p->preset == MIO_PRESET_NONE && p->dtype >= 0 &&
        (p->dtype >= MIO_TYPE_GGML_COUNT || !mio_type_can_encode(p->dtype) || mio_type_file_type(p->dtype) < 0))
        return mio_err_set(MIO_ERR_INVALID_ARG, "dtype %d (%s) is not a target type", p->dtype,
                           mio_type_name(p->dtype) ? mio_type_name(p->dtype) : "unknown");
    if (p->n_threads < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "n_threads is %d", p->n_threads);
    static const char *const which[3] = {"experts_type", "output_tensor_type", "token_embedding_type"};
    const int ty[3] = {p->experts_type, p->output_tensor_type, p->token_embedding_type};
    for (int k = 0; k < 3; k++)
        if (ty[k] >= 0 && (ty[k] >= MIO_TYPE_GGML_COUNT || (!mio_type_can_encode(ty[k]) && !mio_type_can_encode_imatrix(ty[k]))))
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s %d (%s) is not a type libmodelio can encode", which[k], ty[k],
                               ty[k] < MIO_TYPE_GGML_COUNT && mio_type_name(ty[k]) ? mio_type_name(ty[k]) : "unknown");
    if ((p->n_tensor_types && !p->tensor_types) || (p->n_kv_overrides && !p->kv_overrides) ||
        (p->n_prune_layers && !p->prune_layers) || (p->n_include_weights && !p->include_weights) ||
        (p->n_exclude_weights && !p->exclude_weights))
        return mio_err_set(MIO_ERR_INVALID_ARG, "a list in the parameters is NULL with a non-zero count");
    if (p->n_include_weights && p->n_exclude_weights)
        return mio_err_set(MIO_ERR_INVALID_ARG, "include_weights and exclude_weights cannot be used together");
    for (size_t i = 0; i < p->n_prune_layers; i++)
        if (p->prune_layers[i] < 0) /* llama-quantize refuses them too ("invalid layer id") */
            return mio_err_set(MIO_ERR_INVALID_ARG, "prune_layers[%zu] is %d: block numbers are not negative", i,
                               (int)p->prune_layers[i]);
    return MIO_OK;
}

/* Output to out_path (atomic) or, when out_path is NULL, to out_fd. */
static mio_status quantize(const char *in_path, const char *out_path, int out_fd, const mio_quantize_params *params) {
    if (!in_path) return mio_err_set(MIO_ERR_INVALID_ARG, "in_path is NULL");
    if (!params) return mio_err_set(MIO_ERR_INVALID_ARG, "p is NULL");
    mio_quantize_params p;
    mio_status st = check_params(params, &p);
    if (st) return st;
    if (!out_path && out_fd < 0 && !p.dry_run) return mio_err_set(MIO_ERR_INVALID_ARG, "out_path is NULL");

    mio_gguf_file *f = NULL;
    qz_imatrix *im = NULL;
    qz_item *items = NULL;
    char **split_paths = NULL;          /* keep_split: the output parts */
    mio_writer *ws[256] = {NULL};        /* one writer per output part */
    mio_atomic_file afs[256];
    uint32_t n_split = 1;
    for (int k = 0; k < 256; k++) { afs[k].fd = -1; afs[k].slot = -1; afs[k].path = afs[k].tmp_path = NULL; }
    size_t n = 0;
    uint32_t block_count = 0;
    bool block_count_set = false;
    qz_run r;
    memset(&r, 0, sizeof r);
    if ((st = mio_gguf_open_model(in_path, 0, &f)) != MIO_OK) return st;
    uint32_t parts = mio_gguf_part_count(f);
    if (out_path && !p.dry_run && mio_gguf_uses_file(f, out_path)) {
        st = mio_err_set(MIO_ERR_INVALID_ARG, "%s is one of the input files; refusing to overwrite it", out_path);
        goto done;
    }
    /* keep_split: one output part per input part, named as llama.cpp names them
     * (out_path is then the prefix: "<out_path>-0000K-of-0000N.gguf") */
    n_split = p.keep_split ? parts : 1;
    if (n_split > 256) {
        st = mio_err_set(MIO_ERR_LIMIT, "keep_split: %u parts; at most 256 are supported", n_split);
        goto done;
    }
    if (p.keep_split && !out_path && !p.dry_run) {
        st = mio_err_set(MIO_ERR_INVALID_ARG, "keep_split writes files (one per part); it cannot go to a descriptor");
        goto done;
    }
    if (p.keep_split && out_path && !p.dry_run) {
        size_t pl = strlen(out_path) + 32;
        if (!(split_paths = calloc(n_split, sizeof *split_paths))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        for (uint32_t k = 0; k < n_split && !st; k++) {
            if (!(split_paths[k] = malloc(pl))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
            snprintf(split_paths[k], pl, "%s-%05u-of-%05u.gguf", out_path, k + 1, n_split);
            if (mio_gguf_uses_file(f, split_paths[k]))
                st = mio_err_set(MIO_ERR_INVALID_ARG, "%s is one of the input files; refusing to overwrite it", split_paths[k]);
        }
        if (st) goto done;
    }
    if (p.imatrix_path) {
        if ((st = mio_qz_imatrix_load(p.imatrix_path, &im)) != MIO_OK) goto done;
        if ((st = mio_qz_imatrix_filter(im, p.include_weights, p.n_include_weights, p.exclude_weights,
                                        p.n_exclude_weights)) != MIO_OK ||
            (st = mio_qz_imatrix_check_finite(im)) != MIO_OK)
            goto done;
        if (mio_qz_imatrix_count(im) == 0) { /* nothing left after the filter: quantize without one */
            mio_qz_imatrix_free(im);
            im = NULL;
        }
    }

    if (p.preset != MIO_PRESET_NONE) {
        qz_model m;
        qz_policy pol;
        if ((st = mio_qz_output_order(f, p.prune_layers, p.n_prune_layers, p.keep_split != 0, &items, &n, &block_count,
                                      &block_count_set)) != MIO_OK ||
            (st = mio_qz_model_from_gguf(f, &m)) != MIO_OK)
            goto done;
        mio_qz_policy_from_params(&p, im != NULL, &pol);
        if ((st = mio_qz_choose_types(&m, &pol, items, n, NULL)) != MIO_OK) goto done;
    } else {
        if ((st = input_items(f, &items, &n)) != MIO_OK || (st = dtype_plan(p.dtype, p.experts_type, items, n)) != MIO_OK)
            goto done;
    }

    /* sizes, totals, the plan report */
    uint64_t total_in = 0;
    size_t n_conv = 0;
    uint64_t *out_bytes = calloc(n ? n : 1, sizeof *out_bytes);
    if (!out_bytes) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    for (size_t k = 0; k < n && !st; k++) {
        qz_item *it = &items[k];
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, it->src, &t)) != MIO_OK) break;
        if ((st = mio_type_nbytes(it->out_type, t.n_dims, t.ne, &out_bytes[k])) != MIO_OK) break;
        if (it->convert) n_conv++;
        total_in += t.nbytes;
        if (p.plan) {
            mio_quant_decision d;
            memset(&d, 0, sizeof d);
            d.index = (int64_t)k;
            d.name = (mio_str){it->name, strlen(it->name)};
            d.n_dims = t.n_dims;
            memcpy(d.ne, t.ne, sizeof d.ne);
            d.in_type = t.type;
            d.out_type = it->out_type;
            d.in_bytes = t.nbytes;
            d.out_bytes = out_bytes[k];
            d.why = it->why ? it->why : (it->convert ? "converted" : "kept");
            p.plan(p.plan_user, &d);
        }
    }
    /* what llama.cpp would refuse while writing, refused before anything is written */
    for (size_t k = 0; k < n && !st && !p.dry_run; k++) {
        const qz_item *it = &items[k];
        const float *imat = NULL;
        if (!it->convert) continue;
        if (im) st = mio_qz_imatrix_for_tensor(im, it->orig_name, it->ne[0], it->ne[2], &imat);
        if (!st && !imat && it->requires_imatrix)
            st = mio_err_set(MIO_ERR_ENCODER_UNAVAILABLE, "missing importance matrix for tensor '%s' in a very low-bit "
                             "quantization (%s needs one; %s)", it->orig_name, mio_type_name(it->out_type),
                             im ? "the imatrix has no usable entry for it" : "no imatrix was given");
    }
    if (st || p.dry_run) { free(out_bytes); goto done; }

    /* metadata, as llama_model_quantize lays it out (docs/QUANTIZE.md) */
    uint32_t wflags = (n == 0 && parts == 1 && mio_gguf_file_size(f) == mio_gguf_header_size(f))
                          ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT;
    if ((st = mio_writer_new(wflags, &ws[0])) != MIO_OK) { free(out_bytes); goto done; }
    r.w = ws[0];
    if (p.preset != MIO_PRESET_NONE) {
        if (!st) st = mio_writer_copy_all_kv(r.w, f, mio_gguf_split_keys, 3);
        if (!st) st = set_moved_u32(r.w, "general.quantization_version", 2);
        if (!st) st = set_moved_u32(r.w, "general.file_type", (uint32_t)p.preset);
    } else {
        if (!st) st = mio_writer_copy_all_kv(r.w, f, mio_gguf_split_keys, parts > 1 ? 3 : 0);
        /* general.file_type describes the weights: only claim the target when some were converted. */
        if (!st && n_conv > 0 && p.dtype >= 0)
            st = mio_writer_set_u32(r.w, "general.file_type", (uint32_t)mio_type_file_type(p.dtype));
    }
    /* then, as llama-quantize passes them: the user's overrides, the imatrix keys */
    for (size_t i = 0; i < p.n_kv_overrides && !st; i++) st = kv_override(r.w, &p.kv_overrides[i], i);
    if (!st && im) {
        qz_imatrix_kv ikv[QZ_IMATRIX_MAX_KV];
        size_t n_ikv = mio_qz_imatrix_kvs(im, p.imatrix_path, ikv);
        for (size_t i = 0; i < n_ikv && !st; i++) {
            if ((st = mio_writer_remove_key(r.w, ikv[i].key)) == MIO_ERR_NOT_FOUND) st = MIO_OK;
            if (!st) st = ikv[i].type == MIO_GGUF_U32 ? mio_writer_set_u32(r.w, ikv[i].key, ikv[i].u32)
                                                      : mio_writer_set_str(r.w, ikv[i].key, ikv[i].str, strlen(ikv[i].str));
        }
    }
    /* last: what a prune changes */
    if (!st && block_count_set) {
        char key[QZ_NAME_MAX + 16];
        qz_model m;
        if ((st = mio_qz_model_from_gguf(f, &m)) == MIO_OK) {
            snprintf(key, sizeof key, "%s.block_count", m.arch_name);
            st = set_moved_u32(r.w, key, block_count);
        }
    }
    /* keep_split with several parts: every part ends with the split keys; the
     * parts after the first hold nothing else (llama.cpp starts them empty) */
    for (uint32_t k = 1; k < n_split && !st; k++) st = mio_writer_new(MIO_WRITER_DEFAULT, &ws[k]);
    for (uint32_t k = 0; k < n_split && n_split > 1 && !st; k++) {
        st = mio_writer_set_u16(ws[k], "split.no", (uint16_t)k);
        if (!st) st = mio_writer_set_u16(ws[k], "split.count", (uint16_t)n_split);
        if (!st) st = mio_writer_set_i32(ws[k], "split.tensors.count", (int32_t)n);
    }
    for (size_t k = 0; k < n && !st; k++) {
        /* llama.cpp writes ggml_n_dims: trailing dims of 1 dropped (a [64, 1]
         * ffn_gate_inp_shexp from the converter comes out [64]) */
        uint32_t nd = items[k].n_dims;
        while (nd > 1 && items[k].ne[nd - 1] == 1) nd--;
        st = mio_writer_declare_tensor(ws[n_split > 1 ? items[k].part : 0], items[k].name, items[k].out_type, nd,
                                       items[k].ne);
    }

    /* data */
    r.f = f;
    r.p = &p;
    r.im = im;
    r.n_threads = resolve_threads(p.n_threads);
    r.total = (int64_t)n;
    r.bytes_total = total_in;
    if (split_paths) {
        /* every part to a temp file; renamed into place only when all are complete */
        for (uint32_t k = 0; k < n_split && !st; k++) {
            st = mio_atomic_open(split_paths[k], &afs[k]);
            if (!st) st = mio_writer_begin_fd(ws[k], afs[k].fd);
        }
    } else if (!st) {
        st = out_path ? mio_writer_begin_file(ws[0], out_path) : mio_writer_begin_fd(ws[0], out_fd);
    }
    for (size_t k = 0; k < n && !st; k++) {
        r.w = ws[n_split > 1 ? items[k].part : 0];
        st = write_item(&r, &items[k], out_bytes[k]);
        r.done = (int64_t)k + 1;
        if (!st) st = progress(&r);
    }
    if (!st) st = flush_pending(&r.pend);
    r.bytes_done += r.pend.copied;
    for (uint32_t k = 0; k < n_split && !st; k++) st = mio_writer_finish(ws[k]);
    for (uint32_t k = 0; split_paths && k < n_split && !st; k++) st = mio_atomic_close_tmp(&afs[k]);
    if (split_paths && !st) st = mio_atomic_rename_all(afs, n_split); /* all parts or none, even on SIGINT */
    free(out_bytes);

done:
    for (uint32_t k = 0; k < n_split && k < 256; k++) {
        mio_writer_free(ws[k]); /* removes the temp file of an unfinished write */
        if (afs[k].tmp_path) mio_atomic_abort(&afs[k]);
    }
    for (uint32_t k = 0; split_paths && k < n_split; k++) free(split_paths[k]);
    free(split_paths);
    free(r.fbuf);
    free(r.eb[0]);
    free(r.eb[1]);
    free(items);
    mio_qz_imatrix_free(im);
    mio_gguf_close(f);
    return st;
}

mio_status mio_quantize(const char *in_path, const char *out_path, const mio_quantize_params *p) {
    return quantize(in_path, out_path, -1, p);
}

mio_status mio_quantize_fd(const char *in_path, int fd, const mio_quantize_params *p) {
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "file descriptor %d is invalid", fd);
    return quantize(in_path, NULL, fd, p);
}
