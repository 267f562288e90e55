/* SPDX-License-Identifier: MIT */
/* export.c — mio_ptqtp_export: stream a GGUF model to a GGUF whose weight
 * matrices are replaced by PTQTP trit-planes (mio_ptqtp_quantize), in the file
 * layout Fucina's loaders pair-detect (docs/PTQTP.md "The file format"):
 * NAME -> NAME.ptqtp0 .. NAME.ptqtp{K-1}, TQ2_0 tensors of NAME's shape in
 * NAME's place, every other tensor and metadata entry byte-verbatim, plus the
 * fucina.ptqtp.version stamp (u32 1, as Fucina's writer types it).
 *
 * Streaming: every decision is made (and the plan reported) before the writer
 * starts; then one tensor at a time, a chunk of rows is decoded to f32 and
 * solved. Groups of 256 are independent problems, so solving a tensor in row
 * chunks (and an expert stack expert by expert) gives exactly the planes of
 * one call over the whole matrix. Plane 0 of each chunk is written at once
 * (it is the writer's current tensor); planes 1..K-1 are held for the whole
 * tensor and written after it. Source pages are released after use. A path
 * output is atomic, so no failure or cancel leaves a file. */
#include "core/core.h"
#include "gguf/gguf_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* f32 elements per chunk of rows: 4 MiB of floats (one row when longer). */
#define PX_CHUNK_ELEMS ((size_t)1 << 20)
/* A TQ2_0 block: 256 weights in 66 bytes (64 bytes of 2-bit trits, fp16 d). */
#define PX_GROUP 256u
#define PX_BLOCK_BYTES 66u
/* Fucina's stamps (src/llm/ptqtp_gguf.zig: version_key, format_version: u32 = 1,
 * tie_key; written with addMetaInt(key, u32, value)). */
#define PX_VERSION_KEY "fucina.ptqtp.version"
#define PX_TIE_KEY "fucina.ptqtp.tie_scales"
#define PX_KEY_PREFIX "fucina.ptqtp."
#define PX_FORMAT_VERSION 1u
/* ".ptqtpK" */
#define PX_SUFFIX_LEN 7u

ABI_FROZEN(mio_ptqtp_params, progress_user);

void mio_ptqtp_default_params(mio_ptqtp_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->planes = 2;
}

mio_status mio_ptqtp_default_params_sized(mio_ptqtp_params *p, size_t size) {
    mio_ptqtp_params d;
    mio_ptqtp_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_ptqtp_params");
}

/* ------------------------------------------------------------------ the plan */

static int str_contains(mio_str s, const char *needle, size_t n) {
    if (n == 0) return 1;
    for (size_t i = 0; i + n <= s.len; i++)
        if (memcmp(s.ptr + i, needle, n) == 0) return 1;
    return 0;
}
static int has(mio_str s, const char *needle) { return str_contains(s, needle, strlen(needle)); }
static int ends_with(mio_str s, const char *suf) {
    size_t n = strlen(suf);
    return s.len >= n && memcmp(s.ptr + s.len - n, suf, n) == 0;
}
static int matches_any(mio_str s, const char *const *subs, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (subs[k] && has(s, subs[k])) return 1;
    return 0;
}
/* NAME.ptqtpN (N one or more digits): a plane of an already converted model. */
static int is_plane_name(mio_str s) {
    size_t e = s.len;
    while (e > 0 && s.ptr[e - 1] >= '0' && s.ptr[e - 1] <= '9') e--;
    return e < s.len && e >= 6 && memcmp(s.ptr + e - 6, ".ptqtp", 6) == 0;
}

/* The policy (docs/PTQTP.md "The tool"): *why says what is done and why. */
static int eligible(const mio_gguf_tensor *t, const mio_ptqtp_params *p, const char **why) {
    int expert = t->n_dims == 3 && has(t->name, "_exps");
    if (t->n_dims < 2) { *why = "1-D"; return 0; }
    if (t->n_dims != 2 && !expert) { *why = "not a matrix or an expert stack"; return 0; }
    if (!ends_with(t->name, ".weight")) { *why = "not a .weight"; return 0; }
    if (has(t->name, "norm")) { *why = "norm"; return 0; }
    if (t->ne[0] % PX_GROUP != 0) { *why = "row not a multiple of 256"; return 0; }
    if (t->ne[0] == 0 || t->ne[1] == 0 || t->ne[2] == 0) { *why = "empty"; return 0; }
    if (t->type == MIO_TYPE_I8 || t->type == MIO_TYPE_I16 || t->type == MIO_TYPE_I32 || t->type == MIO_TYPE_I64) {
        *why = "integer type";
        return 0;
    }
    if (t->type == MIO_TYPE_TQ1_0 || t->type == MIO_TYPE_TQ2_0) { *why = "already ternary"; return 0; } /* as Fucina */
    if (!mio_type_can_decode(t->type)) { *why = "no decoder for its type"; return 0; }
    if (p->n_include) {
        if (!matches_any(t->name, p->include, p->n_include)) { *why = "not included"; return 0; }
    } else if (has(t->name, "token_embd")) {
        *why = "token embeddings";
        return 0;
    } else if (t->name.len == 13 && memcmp(t->name.ptr, "output.weight", 13) == 0) {
        *why = "output head";
        return 0;
    }
    if (matches_any(t->name, p->exclude, p->n_exclude)) { *why = "excluded"; return 0; }
    if (t->name.len + PX_SUFFIX_LEN >= GGUF_MAX_NAME) { *why = "plane names too long"; return 0; }
    *why = expert ? "expert stack" : p->n_include ? "included" : "ptqtp";
    return 1;
}

typedef struct px_item {
    mio_ptqtp_tensor t;
    char name[GGUF_MAX_NAME];   /* NUL-terminated copy for the writer */
    uint64_t plane_bytes;       /* one plane (TQ2_0 of the tensor's shape) */
    size_t chunk_rows;
} px_item;

/* Refuse an input that already holds planes: converting it again would stack
 * planes on planes (or collide with its plane names). */
static mio_status refuse_decorated(const mio_gguf_file *f, const char *in_path) {
    char nb[160];
    int64_t nkv = mio_gguf_kv_count(f);
    for (int64_t i = 0; i < nkv; i++) {
        mio_str k = mio_gguf_kv_key(f, i);
        size_t n = sizeof PX_KEY_PREFIX - 1;
        if (k.len >= n && memcmp(k.ptr, PX_KEY_PREFIX, n) == 0)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: already a PTQTP model (it has the key %s); convert the original "
                               "weights instead", in_path, mio_esc_bytes(nb, sizeof nb, k.ptr, k.len));
    }
    int64_t nt = mio_gguf_tensor_count(f);
    for (int64_t i = 0; i < nt; i++) {
        mio_str s = mio_gguf_tensor_name_at(f, (uint64_t)i);
        if (is_plane_name(s))
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: already a PTQTP model (it has the plane tensor '%s'); convert "
                               "the original weights instead", in_path, mio_esc_bytes(nb, sizeof nb, s.ptr, s.len));
    }
    return MIO_OK;
}

static mio_status plan_items(const mio_gguf_file *f, const mio_ptqtp_params *p, px_item **out, size_t *n_out,
                             size_t *n_conv) {
    int64_t n = mio_gguf_tensor_count(f);
    px_item *items = calloc((size_t)(n > 0 ? n : 1), sizeof *items);
    if (!items) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    *n_conv = 0;
    for (int64_t i = 0; i < n; i++) {
        px_item *it = &items[i];
        mio_gguf_tensor t;
        char nb[160];
        mio_status st = mio_gguf_tensor_info(f, i, &t);
        if (!st && (t.name.len >= GGUF_MAX_NAME || memchr(t.name.ptr, '\0', t.name.len)))
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor '%s': the name cannot be copied (NUL byte or %zu bytes)",
                             mio_esc_bytes(nb, sizeof nb, t.name.ptr, t.name.len), t.name.len);
        if (st) { free(items); return st; }
        memcpy(it->name, t.name.ptr, t.name.len);
        it->t.index = i;
        it->t.name = t.name;
        it->t.n_dims = t.n_dims;
        memcpy(it->t.ne, t.ne, sizeof it->t.ne);
        it->t.type = t.type;
        it->t.in_bytes = t.nbytes;
        it->t.out_bytes = t.nbytes;
        if (!eligible(&t, p, &it->t.why)) continue;
        it->t.planes = p->planes;
        it->t.experts = t.n_dims == 3 ? t.ne[2] : 0;
        if ((st = mio_type_nbytes(MIO_TYPE_TQ2_0, t.n_dims, t.ne, &it->plane_bytes)) != MIO_OK) {
            st = mio_err_prefix(st, "tensor '%s': ", it->name);
            free(items);
            return st;
        }
        it->t.out_bytes = it->plane_bytes * (uint64_t)p->planes;
        size_t cols = (size_t)t.ne[0], rows = (size_t)t.ne[1];
        size_t chunk = cols ? PX_CHUNK_ELEMS / cols : 1;
        if (chunk == 0) chunk = 1;
        if (chunk > rows) chunk = rows;
        it->chunk_rows = chunk;
        /* f32 chunk + plane 0's chunk + planes 1..K-1 whole */
        it->t.work_bytes = (uint64_t)chunk * cols * 4u + (uint64_t)chunk * (cols / PX_GROUP) * PX_BLOCK_BYTES +
                           it->plane_bytes * (uint64_t)(p->planes - 1);
        ++*n_conv;
    }
    *out = items;
    *n_out = (size_t)n;
    return MIO_OK;
}

/* ------------------------------------------------------------------ writing */

typedef struct px_run {
    const mio_gguf_file *f;
    const mio_ptqtp_params *p;
    mio_writer *w;
    mio_ptqtp_options opt;
    int n_threads;
    float *fbuf;
    uint8_t *p0;                /* plane 0 of one chunk */
    uint8_t *held[3];           /* planes 1..K-1 of the whole tensor */
    size_t fcap, p0cap, heldcap;
    uint64_t bytes_done, bytes_total;
    int64_t done, total;
} px_run;

static mio_status progress(px_run *r) {
    if (r->p->progress && r->p->progress(r->p->progress_user, r->done, r->total, r->bytes_done, r->bytes_total) != 0)
        return mio_err_set(MIO_ERR_CANCELLED, "cancelled by the progress callback after %lld of %lld tensors",
                           (long long)r->done, (long long)r->total);
    return MIO_OK;
}

static mio_status grow(void **buf, size_t *cap, size_t need) {
    if (need <= *cap) return MIO_OK;
    void *nb = realloc(*buf, need);
    if (!nb) return mio_err_set(MIO_ERR_NOMEM, "cannot allocate %zu bytes of working memory", need);
    *buf = nb;
    *cap = need;
    return MIO_OK;
}

/* Sums of several solver calls (chunks, experts); zero counts kept apart. */
typedef struct px_acc {
    mio_ptqtp_stats s;
    double zeros[3];
} px_acc;
static void acc_add(px_acc *a, const mio_ptqtp_stats *b) {
    a->s.err_sq += b->err_sq;
    a->s.norm_sq += b->norm_sq;
    a->s.groups += b->groups;
    a->s.iterations += b->iterations;
    a->s.unconverged += b->unconverged;
    a->s.nonfinite += b->nonfinite;
    for (int k = 0; k < 3; k++) a->zeros[k] += b->zero_frac[k] * (double)b->groups;
}
static void acc_finish(px_acc *a) {
    a->s.rel_err = a->s.norm_sq > 0 ? sqrt(a->s.err_sq / a->s.norm_sq) : 0.0;
    for (int k = 0; k < 3; k++) a->s.zero_frac[k] = a->s.groups ? a->zeros[k] / (double)a->s.groups : 0.0;
}

static mio_status convert_tensor(px_run *r, px_item *it, const mio_gguf_tensor *t) {
    const int K = r->opt.planes;
    const size_t cols = (size_t)t->ne[0], rows = (size_t)t->ne[1];
    const size_t slices = t->n_dims == 3 ? (size_t)t->ne[2] : 1;
    const size_t in_row = (size_t)(t->nbytes / ((uint64_t)rows * slices));
    const size_t plane_row = cols / PX_GROUP * PX_BLOCK_BYTES;
    const size_t chunk = it->chunk_rows;
    char nb[160];
    mio_esc_bytes(nb, sizeof nb, t->name.ptr, t->name.len);
    mio_status st = grow((void **)&r->fbuf, &r->fcap, chunk * cols * sizeof(float));
    if (!st) st = grow((void **)&r->p0, &r->p0cap, chunk * plane_row);
    if (!st && K > 1 && it->plane_bytes > r->heldcap) {
        for (int k = 1; k < K && !st; k++) {
            void *nbuf = realloc(r->held[k], (size_t)it->plane_bytes);
            if (!nbuf) st = mio_err_set(MIO_ERR_NOMEM, "tensor '%s': cannot allocate %llu bytes for a plane", nb,
                                        (unsigned long long)it->plane_bytes);
            else r->held[k] = nbuf;
        }
        if (!st) r->heldcap = (size_t)it->plane_bytes;
    }
    px_acc total;
    memset(&total, 0, sizeof total);
    double rel_sum = 0.0, rel_max = 0.0;
    const uint8_t *src = t->data;
    for (size_t s = 0; s < slices && !st; s++) {
        px_acc slice;
        memset(&slice, 0, sizeof slice);
        for (size_t r0 = 0; r0 < rows && !st; r0 += chunk) {
            size_t n_rows = rows - r0 < chunk ? rows - r0 : chunk;
            size_t row = s * rows + r0;
            const uint8_t *in = src + row * in_row;
            size_t in_bytes = n_rows * in_row;
            mio_gguf_prefetch(r->f, in, in_bytes);
            st = mio_decode_f32_mt(t->type, in, in_bytes, r->fbuf, n_rows * cols, r->n_threads);
            mio_gguf_release(r->f, in, in_bytes);
            if (st) { mio_err_prefix(st, "tensor '%s': ", nb); break; }
            void *planes[3] = {r->p0, NULL, NULL};
            for (int k = 1; k < K; k++) planes[k] = r->held[k] + row * plane_row;
            mio_ptqtp_stats cs;
            memset(&cs, 0, sizeof cs);
            st = mio_ptqtp_quantize(r->fbuf, n_rows, cols, &r->opt, planes, n_rows * plane_row, &cs);
            if (st) { mio_err_prefix(st, "tensor '%s': ", nb); break; }
            st = mio_writer_write_tensor_part(r->w, r->p0, n_rows * plane_row);
            acc_add(&slice, &cs);
            acc_add(&total, &cs);
            r->bytes_done += in_bytes;
            if (!st) st = progress(r);
        }
        acc_finish(&slice);
        rel_sum += slice.s.rel_err;
        if (slice.s.rel_err > rel_max) rel_max = slice.s.rel_err;
    }
    for (int k = 1; k < K && !st; k++) st = mio_writer_write_tensor(r->w, r->held[k], (size_t)it->plane_bytes);
    if (st) return st;
    acc_finish(&total);
    it->t.rel_err_mean = slices > 1 ? rel_sum / (double)slices : total.s.rel_err;
    it->t.rel_err_max = slices > 1 ? rel_max : total.s.rel_err;
    if (r->p->done) r->p->done(r->p->done_user, &it->t, &total.s);
    return MIO_OK;
}

/* ------------------------------------------------------------------ driver */

static mio_status check_params(const mio_ptqtp_params *in, mio_ptqtp_params *p) {
    mio_ptqtp_default_params(p);
    if (in) {
        mio_status st = mio_abi_params_merge(p, sizeof *p, in, sizeof *p, "mio_ptqtp_params", "mio_ptqtp_default_params");
        if (st) return st;
    }
    if (p->planes < 1 || p->planes > 3) return mio_err_set(MIO_ERR_INVALID_ARG, "planes is %d; PTQTP uses 1, 2 or 3", p->planes);
    if (p->tie_scales && p->planes < 2)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tie_scales locks the plane scales to the ratio 3, so it needs at least 2 "
                           "planes (planes is %d)", p->planes);
    if (p->n_threads < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "n_threads is %d", p->n_threads);
    if ((p->n_include && !p->include) || (p->n_exclude && !p->exclude))
        return mio_err_set(MIO_ERR_INVALID_ARG, "a name list in the parameters is NULL with a non-zero count");
    return MIO_OK;
}

static int resolve_threads(int n) {
    if (n > 0) return n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* Output to out_path (atomic) or, when out_path is NULL, to out_fd. */
static mio_status ptqtp_export(const char *in_path, const char *out_path, int out_fd, const mio_ptqtp_params *params) {
    if (!in_path) return mio_err_set(MIO_ERR_INVALID_ARG, "in_path is NULL");
    mio_ptqtp_params p;
    mio_status st = check_params(params, &p);
    if (st) return st;
    if (!out_path && out_fd < 0 && !p.dry_run) return mio_err_set(MIO_ERR_INVALID_ARG, "out_path is NULL");

    mio_gguf_file *f = NULL;
    px_item *items = NULL;
    size_t n = 0, n_conv = 0;
    mio_writer *w = NULL;
    px_run r;
    memset(&r, 0, sizeof r);
    if ((st = mio_gguf_open_model(in_path, 0, &f)) != MIO_OK) return st;
    uint32_t parts = mio_gguf_part_count(f);
    if (out_path && !p.dry_run && mio_gguf_uses_file(f, out_path)) {
        st = mio_err_set(MIO_ERR_INVALID_ARG, "%s is one of the input files; refusing to overwrite it", out_path);
        goto done;
    }
    if ((st = refuse_decorated(f, in_path)) != MIO_OK) goto done;
    if ((st = plan_items(f, &p, &items, &n, &n_conv)) != MIO_OK) goto done;
    uint64_t total_in = 0;
    for (size_t k = 0; k < n; k++) {
        total_in += items[k].t.in_bytes;
        if (p.plan) p.plan(p.plan_user, &items[k].t);
    }
    if (p.dry_run) goto done;

    /* metadata: the input's entries verbatim, then the stamps (only a file that
     * holds planes claims the format, as Fucina's writer does) */
    uint32_t wflags = (n == 0 && parts == 1 && mio_gguf_file_size(f) == mio_gguf_header_size(f))
                          ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT;
    if ((st = mio_writer_new(wflags, &w)) != MIO_OK) goto done;
    st = mio_writer_copy_all_kv(w, f, mio_gguf_split_keys, parts > 1 ? 3 : 0);
    if (!st && n_conv > 0) st = mio_writer_set_u32(w, PX_VERSION_KEY, PX_FORMAT_VERSION);
    if (!st && n_conv > 0 && p.tie_scales) st = mio_writer_set_u32(w, PX_TIE_KEY, 1);
    for (size_t k = 0; k < n && !st; k++) {
        const px_item *it = &items[k];
        if (!it->t.planes) {
            st = mio_writer_declare_tensor(w, it->name, it->t.type, it->t.n_dims, it->t.ne);
            continue;
        }
        for (int j = 0; j < it->t.planes && !st; j++) {
            char pn[GGUF_MAX_NAME + 16]; /* < GGUF_MAX_NAME: eligible() checked the length */
            snprintf(pn, sizeof pn, "%s.ptqtp%d", it->name, j);
            st = mio_writer_declare_tensor(w, pn, MIO_TYPE_TQ2_0, it->t.n_dims, it->t.ne);
        }
    }
    if (!st) st = out_path ? mio_writer_begin_file(w, out_path) : mio_writer_begin_fd(w, out_fd);

    /* data, one tensor at a time */
    r.f = f;
    r.p = &p;
    r.w = w;
    r.n_threads = resolve_threads(p.n_threads);
    mio_ptqtp_default_options(&r.opt);
    r.opt.planes = p.planes;
    r.opt.tie_scales = p.tie_scales;
    r.opt.n_threads = r.n_threads;
    r.total = (int64_t)n;
    r.bytes_total = total_in;
    for (size_t k = 0; k < n && !st; k++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, (int64_t)k, &t)) != MIO_OK) break;
        st = items[k].t.planes ? convert_tensor(&r, &items[k], &t) : mio_gguf_writer_copy_tensor(r.w, r.f, &t, &r.bytes_done);
        r.done = (int64_t)k + 1;
        if (!st) st = progress(&r);
    }
    if (!st) st = mio_writer_finish(w);

done:
    mio_writer_free(w); /* removes the temp file of an unfinished write */
    free(r.fbuf);
    free(r.p0);
    for (int k = 0; k < 3; k++) free(r.held[k]);
    free(items);
    mio_gguf_close(f);
    return st;
}

mio_status mio_ptqtp_export(const char *in_path, const char *out_path, const mio_ptqtp_params *p) {
    return ptqtp_export(in_path, out_path, -1, p);
}

mio_status mio_ptqtp_export_fd(const char *in_path, int fd, const mio_ptqtp_params *p) {
    if (!in_path) return mio_err_set(MIO_ERR_INVALID_ARG, "in_path is NULL");
    if (fd < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "file descriptor %d is invalid", fd);
    return ptqtp_export(in_path, NULL, fd, p);
}
