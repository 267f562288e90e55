/* SPDX-License-Identifier: MIT */
/* interop_ptqtp.c — the planes of mio_ptqtp_quantize are stock TQ2_0 tensors:
 * decoded by ggml's own to_float (ggml_get_type_traits(GGML_TYPE_TQ2_0) of the
 * peer's libggml-base.so) every plane gives exactly the floats mio_decode_f32
 * gives, every NaN/inf weight decodes to 0 in every plane, and the sum of the
 * ggml-decoded planes is the reconstruction whose error the stats report:
 * err_sq and norm_sq recomputed from it agree with the stats within 1e-9
 * (relative; only the summation order differs). K = 1, 2, 3 and tied K = 2, 3,
 * on gaussian weights with outliers and a few non-finite values. Then the
 * file mio_ptqtp_export writes is read by ggml's own GGUF reader
 * (gguf_init_from_file): fucina.ptqtp.version is a u32 of 1, each weight is
 * replaced in place by NAME.ptqtp0/1, TQ2_0 of the weight's shape, a norm
 * tensor passes through, and the planes read from the file at ggml's offsets
 * and decoded by ggml sum to the reconstruction whose error the export
 * reported. SKIP (77) without the peer. */
#include "modelio.h"
#include "peer.h"
#include "../test.h"

#include <math.h>

typedef void (*to_float_fn)(const void *x, float *y, int64_t n);
/* struct ggml_type_traits as ggml lays it out (checked: type_name must read "tq2_0") */
typedef struct traits {
    const char *type_name;
    int64_t blck_size;
    int64_t blck_size_interleave;
    size_t type_size;
    bool is_quantized;
    to_float_fn to_float;
    void (*from_float_ref)(const float *x, void *y, int64_t n);
} traits;

static double g_err_sq = -1, g_norm_sq = -1;
static void on_done(void *user, const mio_ptqtp_tensor *t, const mio_ptqtp_stats *st) {
    (void)user;
    if (t->planes > 0) g_err_sq = st->err_sq, g_norm_sq = st->norm_sq;
}

/* A two-tensor model through mio_ptqtp_export, read back by ggml. */
static void check_export_file(const peer_api *api, const traits *tq) {
    enum { COLS = 512, ROWS = 6, N = COLS * ROWS };
    static float wt[N], norm[COLS], sum[N], dec[N];
    static uint8_t plane[N / 256 * 66];
    peer_rng rng;
    peer_rng_seed(&rng, 7);
    for (size_t i = 0; i < N; i++) wt[i] = (float)((double)(peer_next(&rng) >> 11) * 0x1.0p-53 - 0.5);
    for (size_t i = 0; i < COLS; i++) norm[i] = 1.0f + (float)i / COLS;
    const int64_t ne_w[2] = {COLS, ROWS}, ne_n[1] = {COLS};
    mio_writer *w = NULL;
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_add_tensor(w, "blk.0.attn_q.weight", MIO_TYPE_F32, 2, ne_w, wt, sizeof wt));
    T_OK(mio_writer_add_tensor(w, "blk.0.attn_norm.weight", MIO_TYPE_F32, 1, ne_n, norm, sizeof norm));
    T_OK(mio_writer_write_file(w, "interop_ptqtp_in.gguf"));
    mio_writer_free(w);
    mio_ptqtp_params p;
    mio_ptqtp_default_params(&p);
    p.done = on_done;
    T_OK(mio_ptqtp_export("interop_ptqtp_in.gguf", "interop_ptqtp_out.gguf", &p));

    peer_gguf_params gp = {true, NULL};
    void *g = api->gguf_init_from_file("interop_ptqtp_out.gguf", gp);
    T_CHECK(g != NULL);
    if (!g) return;
    int64_t k = api->gguf_find_key(g, "fucina.ptqtp.version");
    T_CHECK(k >= 0);
    if (k >= 0) {
        T_EQ_INT(api->gguf_get_kv_type(g, k), 4); /* GGUF_TYPE_UINT32 */
        T_EQ_U64(api->gguf_get_val_u32(g, k), 1);
    }
    T_EQ_INT((int)api->gguf_get_n_tensors(g), 3);
    static const char *const names[3] = {"blk.0.attn_q.weight.ptqtp0", "blk.0.attn_q.weight.ptqtp1",
                                         "blk.0.attn_norm.weight"};
    FILE *f = fopen("interop_ptqtp_out.gguf", "rb");
    T_CHECK(f != NULL);
    memset(sum, 0, sizeof sum);
    for (int64_t i = 0; i < 3 && f; i++) {
        T_EQ_STR(api->gguf_get_tensor_name(g, i), names[i]);
        if (api->gguf_get_tensor_ne) {
            const int64_t *ne = api->gguf_get_tensor_ne(g, i);
            T_EQ_U64((uint64_t)ne[0], COLS);
            T_EQ_U64((uint64_t)ne[1], i < 2 ? ROWS : 1);
        }
        const long off = (long)(api->gguf_get_data_offset(g) + api->gguf_get_tensor_offset(g, i));
        if (i < 2) {
            T_EQ_INT(api->gguf_get_tensor_type(g, i), MIO_TYPE_TQ2_0);
            T_EQ_U64(api->gguf_get_tensor_size(g, i), sizeof plane);
            T_CHECK(fseek(f, off, SEEK_SET) == 0 && fread(plane, 1, sizeof plane, f) == sizeof plane);
            tq->to_float(plane, dec, N);
            for (size_t j = 0; j < N; j++) sum[j] += dec[j];
        } else {
            float got[COLS];
            T_EQ_INT(api->gguf_get_tensor_type(g, i), MIO_TYPE_F32);
            T_CHECK(fseek(f, off, SEEK_SET) == 0 && fread(got, 1, sizeof got, f) == sizeof got);
            T_CHECK(memcmp(got, norm, sizeof norm) == 0);
        }
    }
    if (f) fclose(f);
    api->gguf_free(g);
    double err = 0, nrm = 0;
    for (size_t j = 0; j < N; j++) {
        err += ((double)wt[j] - sum[j]) * ((double)wt[j] - sum[j]);
        nrm += (double)wt[j] * wt[j];
    }
    T_CHECK(g_err_sq >= 0 && fabs(err - g_err_sq) <= 1e-9 * err && fabs(nrm - g_norm_sq) <= 1e-9 * nrm);
    printf("export read by ggml: u32 fucina.ptqtp.version = 1, 2 TQ2_0 planes + the norm; rel err %.4f (reported "
           "%.4f)\n", sqrt(err / nrm), sqrt(g_err_sq / g_norm_sq));
    remove("interop_ptqtp_in.gguf");
    remove("interop_ptqtp_out.gguf");
}

int main(void) {
    peer_api api;
    char why[4400];
    int rc = peer_load(&api, why, sizeof why);
    if (rc > 0) T_SKIP(why);
    T_EQ_INT(rc, 0);
    const traits *(*get)(int) = NULL;
    *(void **)&get = dlsym(api.handle, "ggml_get_type_traits");
    T_CHECK(get != NULL);
    if (!get) T_DONE();
    const traits *tq = get(MIO_TYPE_TQ2_0);
    T_CHECK(tq && tq->type_name && strcmp(tq->type_name, "tq2_0") == 0 && tq->type_size == 66 && tq->to_float);
    if (!tq || !tq->to_float) T_DONE();

    const size_t rows = 24, cols = 1024, n = rows * cols, bytes = n / 256 * 66;
    peer_rng rng;
    peer_rng_seed(&rng, peer_seed("interop_ptqtp"));
    float *w = malloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        /* Irwin-Hall gaussian-ish (sum of 4 uniforms), sigma 0.02; 0.1 % at 10 sigma */
        double u = 0;
        for (int k = 0; k < 4; k++) u += (double)(peer_next(&rng) >> 11) * 0x1.0p-53;
        w[i] = (float)((u - 2.0) * 0.02 * 1.7320508);
        if (peer_below(&rng, 1000) == 0) w[i] = peer_below(&rng, 2) ? 0.2f : -0.2f;
    }
    const size_t bad[4] = {5, 777, 4096 + 31, n - 1};
    w[bad[0]] = NAN;
    w[bad[1]] = INFINITY;
    w[bad[2]] = -INFINITY;
    w[bad[3]] = NAN;

    uint8_t *pl[3];
    for (int k = 0; k < 3; k++) pl[k] = malloc(bytes);
    float *ours = malloc(n * sizeof *ours), *theirs = malloc(n * sizeof *theirs), *sum = malloc(n * sizeof *sum);
    static const int cfg[5][2] = {{1, 0}, {2, 0}, {3, 0}, {2, 1}, {3, 1}};
    for (int c = 0; c < 5; c++) {
        const int K = cfg[c][0], tie = cfg[c][1];
        mio_ptqtp_options o;
        mio_ptqtp_default_options(&o);
        o.planes = K;
        o.tie_scales = tie;
        mio_ptqtp_stats st;
        void *const pp[3] = {pl[0], pl[1], pl[2]};
        T_OK(mio_ptqtp_quantize(w, rows, cols, &o, pp, bytes, &st));
        memset(sum, 0, n * sizeof *sum);
        size_t diff = 0, nonzero_bad = 0;
        for (int p = 0; p < K; p++) {
            T_OK(mio_decode_f32(MIO_TYPE_TQ2_0, pl[p], bytes, ours, n));
            tq->to_float(pl[p], theirs, (int64_t)n);
            diff += memcmp(ours, theirs, n * sizeof *ours) != 0;
            for (int i = 0; i < 4; i++) nonzero_bad += theirs[bad[i]] != 0.0f;
            for (size_t i = 0; i < n; i++) sum[i] += theirs[i];
        }
        double err = 0, norm = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(w[i])) continue;
            const double e = (double)w[i] - (double)sum[i];
            err += e * e;
            norm += (double)w[i] * w[i];
        }
        T_EQ_U64(diff, 0);
        T_EQ_U64(nonzero_bad, 0);
        T_EQ_U64(st.nonfinite, 4);
        T_CHECK(fabs(err - st.err_sq) <= 1e-9 * err);
        T_CHECK(fabs(norm - st.norm_sq) <= 1e-9 * norm);
        printf("K=%d%s: planes decode identically with ggml; err_sq %.9g (stats %.9g), rel_err %.4f\n", K,
               tie ? " tied" : "", err, st.err_sq, st.rel_err);
    }
    check_export_file(&api, tq);
    for (int k = 0; k < 3; k++) free(pl[k]);
    free(ours);
    free(theirs);
    free(sum);
    free(w);
    T_DONE();
}
