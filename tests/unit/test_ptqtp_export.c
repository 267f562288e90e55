/* SPDX-License-Identifier: MIT */
/* test_ptqtp_export.c — mio_ptqtp_export (issue 14) on small models written
 * here with libmodelio's writer: the eligibility table (one tensor per rule),
 * the output's tensor names, order, shapes and types, the fucina.ptqtp.version
 * stamp (u32 1) and the tie stamp, every other key and tensor byte-identical to
 * the input, planes byte-equal to a direct mio_ptqtp_quantize of the decoded
 * source (a chunked tensor, a quantized source, expert stacks solved per
 * expert), the done statistics, identical files for 1 and 2 threads and for a
 * split input, the _fd call, dry runs and every refusal writing nothing. */
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t g_rng = 0x70747174702d7831ull;
static float rnd(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}

static int exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}
/* Files in the working directory whose name starts with prefix (temp files of
 * failed writes are "<name>.tmp-XXXXXX"). */
static int count_prefix(const char *prefix) {
    DIR *d = opendir(".");
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(d);
    return n;
}

/* ------------------------------------------------------------------ the model */

#define MAX_T 24
typedef struct mt {
    const char *name;
    int type;
    uint32_t n_dims;
    int64_t ne[4];
    int64_t nan_at;      /* element set to NaN before encoding, -1 none */
} mt;
static void *g_bufs[MAX_T];
static int g_nbufs;

static mio_status add_tensor(mio_writer *w, const mt *t) {
    size_t n = 1;
    for (uint32_t k = 0; k < t->n_dims; k++) n *= (size_t)t->ne[k];
    uint64_t nb = 0;
    mio_status st = mio_type_nbytes(t->type, t->n_dims, t->ne, &nb);
    if (st) return st;
    float *x = malloc(n * sizeof *x);
    uint8_t *buf = malloc((size_t)nb + 1);
    if (!x || !buf) { free(x); free(buf); return MIO_ERR_NOMEM; }
    for (size_t k = 0; k < n; k++) x[k] = 0.05f * rnd() + (k % 97 == 0 ? 0.4f * rnd() : 0.0f);
    if (t->nan_at >= 0) x[t->nan_at] = NAN;
    if (t->type == MIO_TYPE_I32) {
        for (size_t k = 0; k < n; k++) { int32_t v = (int32_t)k; memcpy(buf + 4 * k, &v, 4); }
    } else if (t->type == MIO_TYPE_F32) {
        memcpy(buf, x, n * 4);
    } else if (t->type == MIO_TYPE_F16 || t->type == MIO_TYPE_BF16) {
        for (size_t k = 0; k < n; k++) {
            uint16_t h = t->type == MIO_TYPE_F16 ? mio_f32_to_fp16(x[k]) : mio_f32_to_bf16(x[k]);
            memcpy(buf + 2 * k, &h, 2);
        }
    } else {
        st = mio_encode_f32(t->type, x, n, buf, (size_t)nb);
    }
    free(x);
    g_bufs[g_nbufs++] = buf;
    if (!st) st = mio_writer_add_tensor(w, t->name, t->type, t->n_dims, t->ne, buf, (size_t)nb);
    return st;
}

/* 56 bytes: its plane names are 63 (the longest a GGUF name can be). */
#define NAME56 "blk.0.a_name_that_is_exactly_fifty_six_bytes_long.weight"
/* 57 bytes: its plane names would be 64. */
#define NAME57 "blk.0.a_name_that_is_exactly_fifty_seven_bytes_lon.weight"

/* One tensor per eligibility rule (expected: planes, why). */
static const mt g_model[] = {
    {"token_embd.weight", MIO_TYPE_F16, 2, {256, 4, 1, 1}, -1},
    {"blk.0.attn_norm.weight", MIO_TYPE_F32, 1, {256, 1, 1, 1}, -1},
    {"blk.0.attn_q.weight", MIO_TYPE_F16, 2, {256, 3, 1, 1}, -1},
    {"blk.0.attn_q.bias", MIO_TYPE_F32, 2, {256, 2, 1, 1}, -1},
    {"blk.0.q_norm.weight", MIO_TYPE_F32, 2, {256, 2, 1, 1}, -1},
    {"blk.0.odd.weight", MIO_TYPE_F32, 2, {128, 2, 1, 1}, -1},
    {"blk.0.ffn_down.weight", MIO_TYPE_Q8_0, 2, {512, 3, 1, 1}, -1},
    {"blk.0.ffn_up_exps.weight", MIO_TYPE_F16, 3, {256, 2, 3, 1}, -1},
    {"blk.0.conv.weight", MIO_TYPE_F32, 3, {256, 2, 2, 1}, -1},
    {"blk.0.attn_v.weight", MIO_TYPE_F32, 2, {256, 2, 1, 1}, 5},
    {"blk.0.idx.weight", MIO_TYPE_I32, 2, {256, 2, 1, 1}, -1},
    {NAME56, MIO_TYPE_BF16, 2, {256, 1, 1, 1}, -1},
    {NAME57, MIO_TYPE_F32, 2, {256, 1, 1, 1}, -1},
    {"blk.0.big.weight", MIO_TYPE_F32, 2, {256, 4100, 1, 1}, -1},   /* 2 chunks of rows (4096 + 4) */
    {"output.weight", MIO_TYPE_F32, 2, {256, 4, 1, 1}, -1},
    {"blk.0.tern.weight", MIO_TYPE_TQ2_0, 2, {256, 2, 1, 1}, -1},
    {"blk.0.empty.weight", MIO_TYPE_F32, 2, {256, 0, 1, 1}, -1},
    {"blk.0.none_exps.weight", MIO_TYPE_F16, 3, {256, 2, 0, 1}, -1},
};
#define N_MODEL (sizeof g_model / sizeof g_model[0])
/* expected for the defaults: planes 2 or 0 (kept) and the reason */
static const struct { int conv; const char *why; } g_expect[N_MODEL] = {
    {0, "token embeddings"}, {0, "1-D"}, {1, "ptqtp"}, {0, "not a .weight"}, {0, "norm"},
    {0, "row not a multiple of 256"}, {1, "ptqtp"}, {1, "expert stack"}, {0, "not a matrix or an expert stack"},
    {1, "ptqtp"}, {0, "integer type"}, {1, "ptqtp"}, {0, "plane names too long"}, {1, "ptqtp"},
    {0, "output head"}, {0, "already ternary"}, {0, "empty"}, {0, "empty"},
};

static int write_model(const char *path, const mt *ts, size_t n, int extra_kv) {
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(MIO_WRITER_DEFAULT, &w);
    static const int32_t arr[3] = {7, -8, 9};
    if (!st) st = mio_writer_set_str(w, "general.architecture", "llama", 5);
    if (!st) st = mio_writer_set_u32(w, "general.file_type", 1);
    if (!st) st = mio_writer_set_arr(w, "test.arr", MIO_GGUF_I32, arr, 3);
    if (!st) st = mio_writer_set_f64(w, "test.f64", 0.25);
    if (!st && extra_kv == 1) st = mio_writer_set_u32(w, "fucina.ptqtp.tie_scales", 1);
    for (size_t k = 0; k < n && !st; k++) st = add_tensor(w, &ts[k]);
    if (!st) st = mio_writer_write_file(w, path);
    mio_writer_free(w);
    while (g_nbufs > 0) free(g_bufs[--g_nbufs]);
    if (st) fprintf(stderr, "write_model %s: %s\n", path, mio_last_error());
    return st == MIO_OK;
}

/* ------------------------------------------------------------------ callbacks */

typedef struct rec {
    int n_plan, n_done, n_progress;
    char why[MAX_T][48];
    int planes[MAX_T];
    uint64_t in_bytes[MAX_T], out_bytes[MAX_T], work[MAX_T];
    int64_t experts[MAX_T];
    mio_ptqtp_stats stats[MAX_T];
    double rel_mean[MAX_T], rel_max[MAX_T];
    int done_for[MAX_T];   /* done called for input index */
    int cancel_after;      /* progress returns 1 at this call (0 = never) */
} rec;

static void on_plan(void *user, const mio_ptqtp_tensor *t) {
    rec *r = user;
    if (t->index < 0 || t->index >= MAX_T) return;
    snprintf(r->why[t->index], sizeof r->why[0], "%s", t->why);
    r->planes[t->index] = t->planes;
    r->in_bytes[t->index] = t->in_bytes;
    r->out_bytes[t->index] = t->out_bytes;
    r->work[t->index] = t->work_bytes;
    r->experts[t->index] = t->experts;
    r->n_plan++;
}
static void on_done(void *user, const mio_ptqtp_tensor *t, const mio_ptqtp_stats *s) {
    rec *r = user;
    if (t->index < 0 || t->index >= MAX_T) return;
    r->stats[t->index] = *s;
    r->rel_mean[t->index] = t->rel_err_mean;
    r->rel_max[t->index] = t->rel_err_max;
    r->done_for[t->index]++;
    r->n_done++;
}
static int on_progress(void *user, int64_t done, int64_t total, uint64_t bd, uint64_t bt) {
    rec *r = user;
    (void)done; (void)total; (void)bd; (void)bt;
    r->n_progress++;
    return r->cancel_after && r->n_progress >= r->cancel_after;
}

static void params(mio_ptqtp_params *p, rec *r) {
    mio_ptqtp_default_params(p);
    memset(r, 0, sizeof *r);
    p->plan = on_plan;
    p->plan_user = r;
    p->done = on_done;
    p->done_user = r;
    p->progress = on_progress;
    p->progress_user = r;
}

/* ------------------------------------------------------------------ helpers */

static int same_bytes(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* Direct solve of in's tensor src_i (decoded), rows [r0, r0+rows) as one
 * matrix; plane k into out[k] (rows * cols/256 * 66 bytes). */
static int direct(mio_gguf_file *in, int64_t src_i, size_t r0, size_t rows, int planes, int tie, uint8_t **out,
                  mio_ptqtp_stats *s) {
    mio_gguf_tensor t;
    if (mio_gguf_tensor_info(in, src_i, &t) != MIO_OK) return 0;
    size_t cols = (size_t)t.ne[0];
    uint64_t row_bytes = 0;
    int64_t one[1] = {t.ne[0]};
    mio_type_nbytes(t.type, 1, one, &row_bytes);
    float *x = malloc(rows * cols * sizeof *x);
    if (!x) return 0;
    mio_status st = mio_decode_f32(t.type, (const uint8_t *)t.data + r0 * row_bytes, rows * row_bytes, x, rows * cols);
    size_t pb = rows * cols / 256 * 66;
    void *pl[3];
    for (int k = 0; k < 3; k++) pl[k] = out[k] = k < planes ? malloc(pb) : NULL;
    mio_ptqtp_options o;
    mio_ptqtp_default_options(&o);
    o.planes = planes;
    o.tie_scales = tie;
    o.n_threads = 1;
    if (!st) st = mio_ptqtp_quantize(x, rows, cols, &o, pl, pb, s);
    free(x);
    if (st) fprintf(stderr, "direct: %s\n", mio_last_error());
    return st == MIO_OK;
}

static int64_t find(mio_gguf_file *f, const char *name) { return mio_gguf_find_tensor(f, name); }

/* ------------------------------------------------------------------ tests */

static void test_defaults(void) {
    mio_ptqtp_params p;
    memset(&p, 0xAB, sizeof p);
    mio_ptqtp_default_params(&p);
    T_EQ_U64(p.size, sizeof p);
    T_EQ_INT(p.planes, 2);
    T_EQ_INT(p.tie_scales, 0);
    T_EQ_INT(p.n_threads, 0);
    T_EQ_U64(p.n_include, 0);
    T_CHECK(p.plan == NULL && p.done == NULL && p.progress == NULL && p.include == NULL);
    /* a struct of a newer header: defaults plus zeros past the known fields */
    _Alignas(mio_ptqtp_params) unsigned char big[sizeof p + 16];
    memset(big, 0xCD, sizeof big);
    T_OK(mio_ptqtp_default_params_sized((mio_ptqtp_params *)(void *)big, sizeof big));
    size_t sz;
    memcpy(&sz, big, sizeof sz);
    T_EQ_U64(sz, sizeof big);
    int zero = 1;
    for (size_t k = sizeof p; k < sizeof big; k++) zero &= big[k] == 0;
    T_CHECK(zero);
    T_STATUS(mio_ptqtp_default_params_sized(&p, sizeof p - 1), MIO_ERR_INVALID_ARG);
    /* a newer program's struct is read when its unknown tail is zero, refused when set */
    mio_ptqtp_params *bp = (mio_ptqtp_params *)(void *)big;
    T_OK(mio_ptqtp_default_params_sized(bp, sizeof big));
    bp->dry_run = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", NULL, bp));
    big[sizeof p + 3] = 1;
    T_STATUS(mio_ptqtp_export("px_model.gguf", NULL, bp), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("mio_ptqtp_params");
}

/* The plan, the output layout and the values of the default run. */
static void test_layout(void) {
    mio_ptqtp_params p;
    rec r;
    params(&p, &r);
    /* dry run: the plan, nothing written */
    p.dry_run = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", "px_dry.gguf", &p));
    T_CHECK(!exists("px_dry.gguf"));
    T_EQ_INT(r.n_plan, (int)N_MODEL);
    T_EQ_INT(r.n_done, 0);
    for (size_t k = 0; k < N_MODEL; k++) {
        T_EQ_STR(r.why[k], g_expect[k].why);
        T_EQ_INT(r.planes[k], g_expect[k].conv ? 2 : 0);
        if (!g_expect[k].conv) T_EQ_U64(r.out_bytes[k], r.in_bytes[k]);
        if (!g_expect[k].conv) T_EQ_U64(r.work[k], 0);
    }
    /* attn_q: 3 rows of 1 block: 198 bytes a plane; f16 in: 1536 */
    T_EQ_U64(r.in_bytes[2], 1536);
    T_EQ_U64(r.out_bytes[2], 396);
    /* f32 chunk 3 x 256 x 4 + plane 0's chunk 198 + plane 1 whole 198 */
    T_EQ_U64(r.work[2], 3072 + 198 + 198);
    /* ffn_down q8_0 [512, 3]: 3 x 16 blocks x 34 in; 3 x 2 x 66 a plane */
    T_EQ_U64(r.in_bytes[6], 1632);
    T_EQ_U64(r.out_bytes[6], 2 * 396);
    T_EQ_INT(r.experts[7], 3);
    T_EQ_INT(r.experts[2], 0);
    /* big: chunks of 4096 rows (4 MiB of f32) */
    T_EQ_U64(r.work[13], 4096ull * 1024 + 4096ull * 66 + 4100ull * 66);

    /* the real run */
    params(&p, &r);
    p.n_threads = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", "px_out.gguf", &p));
    T_EQ_INT(r.n_done, 6);
    mio_gguf_file *in = NULL, *out = NULL;
    T_OK(mio_gguf_open("px_model.gguf", 0, &in));
    T_OK(mio_gguf_open("px_out.gguf", 0, &out));
    if (!in || !out) { mio_gguf_close(in); mio_gguf_close(out); return; }

    /* metadata: the input's entries in order, byte for byte, then the stamp */
    int64_t nkv = mio_gguf_kv_count(in);
    T_EQ_INT(mio_gguf_kv_count(out), nkv + 1);
    for (int64_t i = 0; i < nkv; i++) {
        mio_str ka = mio_gguf_kv_key(in, i), kb = mio_gguf_kv_key(out, i);
        mio_str ra = {0}, rb = {0};
        T_OK(mio_gguf_kv_raw(in, i, &ra));
        T_OK(mio_gguf_kv_raw(out, i, &rb));
        T_CHECK(ka.len == kb.len && same_bytes(ka.ptr, kb.ptr, ka.len));
        T_EQ_INT(mio_gguf_kv_type(in, i), mio_gguf_kv_type(out, i));
        T_CHECK(ra.len == rb.len && same_bytes(ra.ptr, rb.ptr, ra.len));
    }
    T_EQ_MSTR(mio_gguf_kv_key(out, nkv), "fucina.ptqtp.version");
    T_EQ_INT(mio_gguf_kv_type(out, nkv), MIO_GGUF_U32);
    uint64_t ver = 0;
    T_OK(mio_gguf_kv_u64(out, nkv, &ver));
    T_EQ_U64(ver, 1);
    T_EQ_INT(mio_gguf_find_key(out, "fucina.ptqtp.tie_scales"), -1);

    /* tensors: input order, each converted one replaced in its place by its planes */
    T_EQ_INT(mio_gguf_tensor_count(out), (int64_t)N_MODEL + 6);
    int64_t o = 0;
    for (size_t k = 0; k < N_MODEL; k++) {
        mio_gguf_tensor a, b;
        T_OK(mio_gguf_tensor_info(in, (int64_t)k, &a));
        for (int j = 0; j < (g_expect[k].conv ? 2 : 1); j++, o++) {
            T_OK(mio_gguf_tensor_info(out, o, &b));
            char want[80];
            if (g_expect[k].conv) snprintf(want, sizeof want, "%s.ptqtp%d", g_model[k].name, j);
            else snprintf(want, sizeof want, "%s", g_model[k].name);
            T_EQ_MSTR(b.name, want);
            T_EQ_INT(b.n_dims, a.n_dims);
            T_CHECK(memcmp(a.ne, b.ne, sizeof a.ne) == 0);
            T_EQ_INT(b.type, g_expect[k].conv ? MIO_TYPE_TQ2_0 : a.type);
            if (!g_expect[k].conv) T_CHECK(a.nbytes == b.nbytes && same_bytes(a.data, b.data, (size_t)a.nbytes));
        }
    }
    /* the 56-byte name's planes are 63 bytes */
    T_CHECK(find(out, NAME56 ".ptqtp1") >= 0);
    T_CHECK(find(out, NAME57) >= 0 && find(out, NAME57 ".ptqtp0") < 0);

    /* planes = a direct solve of the decoded source; the done statistics are its statistics */
    static const int conv2d[] = {2, 6, 9, 11, 13};
    for (size_t c = 0; c < sizeof conv2d / sizeof conv2d[0]; c++) {
        int k = conv2d[c];
        size_t rows = (size_t)g_model[k].ne[1], cols = (size_t)g_model[k].ne[0];
        uint8_t *pl[3];
        mio_ptqtp_stats s;
        memset(&s, 0, sizeof s);
        T_CHECK(direct(in, k, 0, rows, 2, 0, pl, &s));
        for (int j = 0; j < 2; j++) {
            char pn[80];
            snprintf(pn, sizeof pn, "%s.ptqtp%d", g_model[k].name, j);
            mio_gguf_tensor b;
            T_OK(mio_gguf_tensor_info(out, find(out, pn), &b));
            T_EQ_U64(b.nbytes, rows * cols / 256 * 66);
            if (pl[j]) T_CHECK(same_bytes(b.data, pl[j], (size_t)b.nbytes));
        }
        free(pl[0]); free(pl[1]);
        const mio_ptqtp_stats *d = &r.stats[k];
        T_EQ_INT(r.done_for[k], 1);
        T_EQ_U64(d->groups, rows * cols / 256);
        T_EQ_U64(d->groups, s.groups);
        T_EQ_U64(d->iterations, s.iterations);
        T_EQ_U64(d->unconverged, s.unconverged);
        T_EQ_U64(d->nonfinite, s.nonfinite);
        /* one chunk: the same sums; two chunks (big): the same up to the order of addition */
        T_CHECK(fabs(d->err_sq - s.err_sq) <= 1e-9 * s.err_sq);
        T_CHECK(fabs(d->norm_sq - s.norm_sq) <= 1e-9 * s.norm_sq);
        T_CHECK(fabs(d->rel_err - s.rel_err) <= 1e-9);
        T_CHECK(fabs(d->zero_frac[0] - s.zero_frac[0]) <= 1e-9 && fabs(d->zero_frac[1] - s.zero_frac[1]) <= 1e-9);
        T_CHECK(r.rel_mean[k] == d->rel_err && r.rel_max[k] == d->rel_err);
    }
    /* the NaN of attn_v: one non-finite weight, left out of the sums */
    T_EQ_U64(r.stats[9].nonfinite, 1);
    /* the reconstruction the statistics describe is the sum of the decoded planes */
    {
        mio_gguf_tensor src, p0, p1;
        T_OK(mio_gguf_tensor_info(in, 2, &src));
        T_OK(mio_gguf_tensor_info(out, find(out, "blk.0.attn_q.weight.ptqtp0"), &p0));
        T_OK(mio_gguf_tensor_info(out, find(out, "blk.0.attn_q.weight.ptqtp1"), &p1));
        float w[768], a[768], b[768];
        T_OK(mio_decode_f32(MIO_TYPE_F16, src.data, (size_t)src.nbytes, w, 768));
        T_OK(mio_decode_f32(MIO_TYPE_TQ2_0, p0.data, (size_t)p0.nbytes, a, 768));
        T_OK(mio_decode_f32(MIO_TYPE_TQ2_0, p1.data, (size_t)p1.nbytes, b, 768));
        double e = 0, nrm = 0;
        for (int i = 0; i < 768; i++) {
            double d = (double)w[i] - ((double)a[i] + (double)b[i]);
            e += d * d;
            nrm += (double)w[i] * w[i];
        }
        T_CHECK(fabs(e - r.stats[2].err_sq) <= 1e-4 * e);
        T_CHECK(fabs(nrm - r.stats[2].norm_sq) <= 1e-9 * nrm);
    }
    /* the expert stack: each expert solved alone, plane-major (plane j holds every expert) */
    {
        const int k = 7;
        const size_t rows = 2, plane_row = 66, experts = 3;
        mio_gguf_tensor b0, b1;
        T_OK(mio_gguf_tensor_info(out, find(out, "blk.0.ffn_up_exps.weight.ptqtp0"), &b0));
        T_OK(mio_gguf_tensor_info(out, find(out, "blk.0.ffn_up_exps.weight.ptqtp1"), &b1));
        T_EQ_U64(b0.nbytes, experts * rows * plane_row);
        double rel_sum = 0, rel_max = 0, err = 0, nrm = 0;
        uint64_t groups = 0, iters = 0;
        for (size_t e = 0; e < experts; e++) {
            uint8_t *pl[3];
            mio_ptqtp_stats s;
            T_CHECK(direct(in, k, e * rows, rows, 2, 0, pl, &s));
            if (pl[0]) T_CHECK(same_bytes((const uint8_t *)b0.data + e * rows * plane_row, pl[0], rows * plane_row));
            if (pl[1]) T_CHECK(same_bytes((const uint8_t *)b1.data + e * rows * plane_row, pl[1], rows * plane_row));
            free(pl[0]); free(pl[1]);
            rel_sum += s.rel_err;
            if (s.rel_err > rel_max) rel_max = s.rel_err;
            err += s.err_sq;
            nrm += s.norm_sq;
            groups += s.groups;
            iters += s.iterations;
        }
        T_EQ_U64(r.stats[k].groups, groups);
        T_EQ_U64(r.stats[k].iterations, iters);
        T_CHECK(fabs(r.stats[k].err_sq - err) <= 1e-12 * err);
        T_CHECK(fabs(r.stats[k].rel_err - sqrt(err / nrm)) <= 1e-9);
        T_CHECK(fabs(r.rel_mean[k] - rel_sum / 3.0) <= 1e-12);
        T_CHECK(r.rel_max[k] == rel_max);
    }
    /* progress: once per tensor and once per chunk of rows (9: big has 2, the stack 1 per expert) */
    T_EQ_INT(r.n_progress, (int)N_MODEL + 9);
    mio_gguf_close(in);
    mio_gguf_close(out);

    /* 2 threads, the _fd call, a split input: the same bytes */
    size_t la = 0, lb = 0;
    uint8_t *a = t_read_file("px_out.gguf", &la), *b = NULL;
    params(&p, &r);
    p.n_threads = 2;
    T_OK(mio_ptqtp_export("px_model.gguf", "px_out2.gguf", &p));
    b = t_read_file("px_out2.gguf", &lb);
    T_CHECK(a && b && la == lb && same_bytes(a, b, la));
    free(b);
    int fd = open("px_out_fd.gguf", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_CHECK(fd >= 0);
    params(&p, &r);
    T_OK(mio_ptqtp_export_fd("px_model.gguf", fd, &p));
    close(fd);
    b = t_read_file("px_out_fd.gguf", &lb);
    T_CHECK(a && b && la == lb && same_bytes(a, b, la));
    free(b);
    mio_gguf_split_params sp;
    mio_gguf_split_default_params(&sp);
    sp.max_tensors = 7;
    uint32_t parts = 0;
    T_OK(mio_gguf_split("px_model.gguf", "px_split", &sp, &parts));
    T_EQ_INT(parts, 3);
    params(&p, &r);
    T_OK(mio_ptqtp_export("px_split-00001-of-00003.gguf", "px_out_split.gguf", &p));
    T_EQ_INT(r.n_plan, (int)N_MODEL);
    b = t_read_file("px_out_split.gguf", &lb);
    T_CHECK(a && b && la == lb && same_bytes(a, b, la));  /* split.* keys dropped, parts followed */
    free(b);
    free(a);

    /* the output is refused as an input: already converted */
    params(&p, &r);
    T_STATUS(mio_ptqtp_export("px_out.gguf", "px_again.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("px_out.gguf: already a PTQTP model (it has the key fucina.ptqtp.version)");
    T_CHECK(!exists("px_again.gguf"));
    T_EQ_INT(r.n_plan, 0);
}

/* planes 1 and 3, tie, include, exclude */
static void test_options(void) {
    mio_ptqtp_params p;
    rec r;
    mio_gguf_file *in = NULL, *out = NULL;
    T_OK(mio_gguf_open("px_model.gguf", 0, &in));

    params(&p, &r);
    p.planes = 3;
    p.tie_scales = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", "px_tie3.gguf", &p));
    T_OK(mio_gguf_open("px_tie3.gguf", 0, &out));
    if (out && in) {
        int64_t nkv = mio_gguf_kv_count(in);
        T_EQ_INT(mio_gguf_kv_count(out), nkv + 2);
        T_EQ_MSTR(mio_gguf_kv_key(out, nkv), "fucina.ptqtp.version");
        T_EQ_MSTR(mio_gguf_kv_key(out, nkv + 1), "fucina.ptqtp.tie_scales");
        T_EQ_INT(mio_gguf_kv_type(out, nkv + 1), MIO_GGUF_U32);
        uint64_t v = 0;
        T_OK(mio_gguf_kv_u64(out, nkv + 1, &v));
        T_EQ_U64(v, 1);
        T_EQ_INT(mio_gguf_tensor_count(out), (int64_t)N_MODEL + 12);
        T_CHECK(find(out, "blk.0.attn_q.weight.ptqtp2") >= 0 && find(out, "blk.0.attn_q.weight") < 0);
        uint8_t *pl[3];
        mio_ptqtp_stats s;
        T_CHECK(direct(in, 6, 0, 3, 3, 1, pl, &s));
        for (int j = 0; j < 3; j++) {
            char pn[64];
            snprintf(pn, sizeof pn, "blk.0.ffn_down.weight.ptqtp%d", j);
            mio_gguf_tensor b;
            T_OK(mio_gguf_tensor_info(out, find(out, pn), &b));
            if (pl[j]) T_CHECK(b.nbytes == 396 && same_bytes(b.data, pl[j], 396));
            free(pl[j]);
        }
    }
    mio_gguf_close(out);
    out = NULL;

    params(&p, &r);
    p.planes = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", "px_k1.gguf", &p));
    T_OK(mio_gguf_open("px_k1.gguf", 0, &out));
    if (out) {
        T_EQ_INT(mio_gguf_tensor_count(out), (int64_t)N_MODEL);
        T_CHECK(find(out, "blk.0.attn_q.weight.ptqtp0") >= 0 && find(out, "blk.0.attn_q.weight.ptqtp1") < 0);
    }
    mio_gguf_close(out);
    out = NULL;

    /* include replaces the default names rule (token_embd, output.weight), but
     * not the shape rules; exclude subtracts */
    static const char *const incl[] = {"token_embd", "attn_", "output.weight", "q_norm"};
    static const char *const excl[] = {"attn_v"};
    params(&p, &r);
    p.include = incl;
    p.n_include = 4;
    p.exclude = excl;
    p.n_exclude = 1;
    p.dry_run = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", NULL, &p));
    T_EQ_STR(r.why[0], "included");
    T_EQ_STR(r.why[2], "included");
    T_EQ_STR(r.why[4], "norm");
    T_EQ_STR(r.why[6], "not included");
    T_EQ_STR(r.why[7], "not included");
    T_EQ_STR(r.why[9], "excluded");
    T_EQ_STR(r.why[14], "included");
    T_EQ_INT(r.planes[0] + r.planes[2] + r.planes[14], 6);
    T_EQ_INT(r.planes[6] + r.planes[9], 0);
    params(&p, &r);
    p.exclude = excl;
    p.n_exclude = 1;
    p.dry_run = 1;
    T_OK(mio_ptqtp_export("px_model.gguf", NULL, &p));
    T_EQ_STR(r.why[0], "token embeddings");
    T_EQ_STR(r.why[9], "excluded");
    T_EQ_STR(r.why[7], "expert stack");
    mio_gguf_close(in);
}

static void test_refusals(void) {
    mio_ptqtp_params p;
    rec r;
    int before = count_prefix("px_bad");
    static const struct { int planes, tie, threads; const char *msg; } bad[] = {
        {0, 0, 0, "planes is 0"}, {4, 0, 0, "planes is 4"}, {1, 1, 0, "needs at least 2 planes"},
        {2, 0, -1, "n_threads is -1"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        params(&p, &r);
        p.planes = bad[k].planes;
        p.tie_scales = bad[k].tie;
        p.n_threads = bad[k].threads;
        T_STATUS(mio_ptqtp_export("px_model.gguf", "px_bad.gguf", &p), MIO_ERR_INVALID_ARG);
        T_MSG_HAS(bad[k].msg);
        T_EQ_INT(r.n_plan, 0);
    }
    params(&p, &r);
    p.n_include = 1;
    T_STATUS(mio_ptqtp_export("px_model.gguf", "px_bad.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("NULL with a non-zero count");
    params(&p, &r);
    p.size = 8;
    T_STATUS(mio_ptqtp_export("px_model.gguf", "px_bad.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("mio_ptqtp_default_params");
    params(&p, &r);
    T_STATUS(mio_ptqtp_export("px_model.gguf", NULL, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("out_path is NULL");
    T_STATUS(mio_ptqtp_export_fd("px_model.gguf", -1, &p), MIO_ERR_INVALID_ARG);
    /* the output over the input */
    T_STATUS(mio_ptqtp_export("px_model.gguf", "px_model.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("is one of the input files");
    /* cancelled by the progress callback after the third call: nothing left */
    params(&p, &r);
    r.cancel_after = 3;
    T_STATUS(mio_ptqtp_export("px_model.gguf", "px_bad.gguf", &p), MIO_ERR_CANCELLED);
    T_EQ_INT(r.n_progress, 3);
    T_EQ_INT(count_prefix("px_bad"), before);
    /* a missing input */
    T_STATUS(mio_ptqtp_export("px_no_such.gguf", "px_bad.gguf", &p), MIO_ERR_NOT_FOUND);
    T_EQ_INT(count_prefix("px_bad"), before);

    /* inputs that already hold planes: a plane tensor, or any fucina.ptqtp.* key */
    static const mt planes_only[] = {{"blk.0.x.weight.ptqtp12", MIO_TYPE_F32, 2, {256, 1, 1, 1}, -1},
                                     {"blk.0.y.weight", MIO_TYPE_F32, 2, {256, 1, 1, 1}, -1}};
    T_CHECK(write_model("px_has_plane.gguf", planes_only, 2, 0));
    params(&p, &r);
    T_STATUS(mio_ptqtp_export("px_has_plane.gguf", "px_bad.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("px_has_plane.gguf: already a PTQTP model (it has the plane tensor 'blk.0.x.weight.ptqtp12')");
    T_CHECK(write_model("px_has_key.gguf", planes_only + 1, 1, 1));
    T_STATUS(mio_ptqtp_export("px_has_key.gguf", "px_bad.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("(it has the key fucina.ptqtp.tie_scales)");
    T_EQ_INT(count_prefix("px_bad"), before);
    /* ".ptqtp" without digits, or digits without ".ptqtp", is an ordinary name */
    static const mt lookalike[] = {{"blk.0.ptqtp.weight", MIO_TYPE_F32, 2, {256, 1, 1, 1}, -1},
                                   {"blk.0.x.ptqtp", MIO_TYPE_F32, 2, {256, 1, 1, 1}, -1}};
    T_CHECK(write_model("px_lookalike.gguf", lookalike, 2, 0));
    T_OK(mio_ptqtp_export("px_lookalike.gguf", "px_lookalike_out.gguf", &p));
    T_EQ_INT(r.n_done, 1);

    /* nothing eligible: a copy, and no stamp */
    static const mt none[] = {{"a.bias", MIO_TYPE_F32, 2, {256, 1, 1, 1}, -1}};
    T_CHECK(write_model("px_none.gguf", none, 1, 0));
    params(&p, &r);
    T_OK(mio_ptqtp_export("px_none.gguf", "px_none_out.gguf", &p));
    size_t la = 0, lb = 0;
    uint8_t *a = t_read_file("px_none.gguf", &la), *b = t_read_file("px_none_out.gguf", &lb);
    T_CHECK(a && b && la == lb && same_bytes(a, b, la));
    free(a);
    free(b);
}

int main(void) {
    if (!write_model("px_model.gguf", g_model, N_MODEL, 0)) {
        T_CHECK(0);
        T_DONE();
    }
    test_defaults();
    test_layout();
    test_options();
    test_refusals();
    T_DONE();
}
