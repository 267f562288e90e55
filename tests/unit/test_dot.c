/* SPDX-License-Identifier: MIT */
/* test_dot.c — mio_vec_dot_type, mio_vec_dot, mio_matvec, mio_matmul
 * (docs/KERNELS.md §7):
 *  - hand-computed blocks (q8_0, q4_0, q4_1 with its q8_1 s term, q4_K with its mins);
 *  - every supported weight type against a double-precision reference: W
 *    decoded with mio_decode_f32, x encoded to the dot type and decoded back
 *    (the values the kernel really multiplies), on random data of many lengths
 *    and odd row counts, within the per-type bound explained at ref_tol();
 *  - mio_vec_dot equals mio_matvec row by row, bit for bit;
 *  - thread-count invariance (1, 2, 3, 7 threads and "one per core"), also
 *    with four user threads sharing the worker pool, and in a forked child;
 *  - mio_matmul(m) equals m calls of mio_matvec bit for bit;
 *  - refusals: unknown type, no kernel, cols not whole blocks, NULL, overflow,
 *    NaN in x; arbitrary weight bytes never crash. */
#include "modelio.h"
#include "test.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

T_XORSHIFT(0x9E3779B97F4A7C15ull)

static const int k_types[] = {MIO_TYPE_F32,  MIO_TYPE_F16,   MIO_TYPE_BF16,  MIO_TYPE_Q4_0,  MIO_TYPE_Q4_1,
                              MIO_TYPE_Q5_0, MIO_TYPE_Q5_1,  MIO_TYPE_Q8_0,  MIO_TYPE_Q2_K,  MIO_TYPE_Q3_K,
                              MIO_TYPE_Q4_K, MIO_TYPE_Q5_K,  MIO_TYPE_Q6_K,  MIO_TYPE_TQ1_0, MIO_TYPE_TQ2_0,
                              MIO_TYPE_IQ4_NL, MIO_TYPE_IQ4_XS, MIO_TYPE_MXFP4};
#define N_TYPES (sizeof k_types / sizeof k_types[0])

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* ------------------------------------------------------------------ hand-checked blocks */
/* The float dots' summation by hand (dot/dot_float.c): element i goes to partial
 * sum i % 32, the sums are folded pairwise. x = 2^24 at 0, 1 at 1 and at 32, 0
 * elsewhere, weights 1: sum 0 = 2^24 + 1 rounds to 2^24 (a tie, to even), sum
 * 1 = 1; the fold ends with 2^24 + 1, again 2^24. (An exact sum would give
 * 2^24 + 2, a float.) */
static void test_float_order(void) {
    float w[64], x[64], y = 0;
    for (int i = 0; i < 64; i++) { w[i] = 1.0f; x[i] = 0.0f; }
    x[0] = 16777216.0f; x[1] = 1.0f; x[32] = 1.0f;
    T_OK(mio_vec_dot(MIO_TYPE_F32, 64, w, x, &y));
    T_EQ_INT((long long)y, 16777216);
    y = 0;
    T_OK(mio_matvec(MIO_TYPE_F32, w, 1, 64, x, &y, 1));
    T_EQ_INT((long long)y, 16777216);
}

static void test_hand(void) {
    uint8_t w[36], a[36];
    float out = 0;
    /* q8_0: d = 1.0 (f16 0x3c00), codes j - 16 (j = 0..31: -16..15); activation d = 0.5
     * (0x3800), codes +1 for j < 16 and -1 after. isum = (0+1+..+15 - 16*16) - (0+1+..+15)
     * = -136 - 120 = -256; result 1.0 * 0.5 * -256 = -128. */
    put16(w, 0x3c00);
    for (int j = 0; j < 32; j++) w[2 + j] = (uint8_t)(int8_t)(j - 16);
    put16(a, 0x3800);
    for (int j = 0; j < 32; j++) a[2 + j] = (uint8_t)(int8_t)(j < 16 ? 1 : -1);
    T_OK(mio_vec_dot(MIO_TYPE_Q8_0, 32, w, a, &out));
    T_CHECK(out == -128.0f);

    /* q4_0: d = 2.0 (0x4000), every byte 0x9f: low nibble 15 -> 7 (elements 0..15), high
     * nibble 9 -> 1 (elements 16..31); activation d = 0.25 (0x3400), codes j.
     * isum = 7 * (0+..+15) + (16+..+31) = 840 + 376 = 1216; result 2 * 0.25 * 1216 = 608. */
    put16(w, 0x4000);
    memset(w + 2, 0x9f, 16);
    put16(a, 0x3400);
    for (int j = 0; j < 32; j++) a[2 + j] = (uint8_t)j;
    T_OK(mio_vec_dot(MIO_TYPE_Q4_0, 32, w, a, &out));
    T_CHECK(out == 608.0f);

    /* q4_1 . q8_1: d = 1 (0x3c00), m = -8 (0xc800), codes 0: every weight is -8. Activation
     * d = 1, s = 32 (0x5000), codes 1. Integer part 0; offset part m * s = -8 * 32 = -256. */
    put16(w, 0x3c00);
    put16(w + 2, 0xc800);
    memset(w + 4, 0, 16);
    put16(a, 0x3c00);
    put16(a + 2, 0x5000);
    memset(a + 4, 1, 32);
    T_OK(mio_vec_dot(MIO_TYPE_Q4_1, 32, w, a, &out));
    T_CHECK(out == -256.0f);

    /* q4_K . q8_K with the min term: d = dmin = 1 (0x3c00); scale bytes 0..3 = 1 (scales
     * 0..3 = 1), 4..7 = 2 (mins 0..3 = 2), 8..11 = 0x21 (scales 4..7 = 1, mins 4..7 = 2),
     * codes all 1: every weight is 1*1*1 - 1*2 = -1. Activation d = 0.5 (f32), codes 2,
     * bsums 16 * 2 = 32. isum = 256 * 2 = 512, summs = 16 * 32 * 2 = 1024;
     * result 0.5 * 512 - 0.5 * 1024 = -256 (= 256 weights of -1 times 0.5 * 2). */
    {
        uint8_t wk[144], ak[292];
        float half = 0.5f;
        put16(wk, 0x3c00);
        put16(wk + 2, 0x3c00);
        memset(wk + 4, 1, 4);
        memset(wk + 8, 2, 4);
        memset(wk + 12, 0x21, 4);
        memset(wk + 16, 0x11, 128);
        memcpy(ak, &half, 4);
        memset(ak + 4, 2, 256);
        for (int k = 0; k < 16; k++) put16(ak + 260 + 2 * k, 32);
        T_OK(mio_vec_dot(MIO_TYPE_Q4_K, 256, wk, ak, &out));
        T_CHECK(out == -256.0f);
    }

    /* The activation types, as ggml's type_traits_cpu lists them. */
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_F32), MIO_TYPE_F32);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_F16), MIO_TYPE_F16);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_BF16), MIO_TYPE_BF16);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_Q4_0), MIO_TYPE_Q8_0);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_Q4_1), MIO_TYPE_Q8_1);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_Q5_1), MIO_TYPE_Q8_1);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_MXFP4), MIO_TYPE_Q8_0);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_IQ4_NL), MIO_TYPE_Q8_0);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_IQ4_XS), MIO_TYPE_Q8_K);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_Q4_K), MIO_TYPE_Q8_K);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_TQ1_0), MIO_TYPE_Q8_K);
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_Q8_K), -1);   /* activation-only type */
    T_EQ_INT(mio_vec_dot_type(MIO_TYPE_IQ2_XXS), -1); /* no kernel (yet) */
    T_EQ_INT(mio_vec_dot_type(-1), -1);
    T_EQ_INT(mio_vec_dot_type(4), -1);
    T_EQ_INT(mio_vec_dot_type(1000), -1);
}

/* ------------------------------------------------------------------ reference */
static size_t row_bytes(int type, size_t n) { return n / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type); }

/* Bound on |ours - reference| for one row, S = sum_j |w_j * a_j| (decoded values):
 * every block contributes one integer sum (exact), converted to f32 and multiplied by
 * the product of the two scales (3 roundings of at most u = 2^-24 each, relative to
 * the block's share of S); the ggml-style decoders that produce the reference round
 * d*sc*q and dmin*m separately before subtracting (2 more roundings, relative to
 * |d*sc*q| + |dmin*m|, which the quantizers keep within a few times |w|: factor 4);
 * the row is summed in f32 over nb blocks (nb roundings, each relative to a partial sum
 * of at most S). Total: (4 * 5 + nb) * u * S. f32/f16/bf16 (nb = n elements):
 * the documented bound of dot/dot_float.c's f32 summation, (ceil(n / 32) + 6) u S
 * (each of 32 partial sums adds ceil(n / 32) rounded products, then 5 pairwise
 * levels). */
static double ref_tol(int type, size_t nb, double S) {
    if (type == MIO_TYPE_F32 || type == MIO_TYPE_F16 || type == MIO_TYPE_BF16)
        return ((double)((nb + 31) / 32) + 6.0) * 0x1.0p-24 * S + 1e-30;
    return (20.0 + (double)nb) * 0x1.0p-24 * S + 1e-30;
}

/* W (rows x n, random values encoded), x (m x n), the kernels' results and a reference. */
static void check_type_len(int type, size_t n, size_t rows, int *worst_type, double *worst) {
    int at = mio_vec_dot_type(type);
    size_t wrb = row_bytes(type, n), arb = row_bytes(at, n), m = 3;
    float *wf = malloc(sizeof(float) * n * rows), *xf = malloc(sizeof(float) * n * m);
    float *wd = malloc(sizeof(float) * n * rows), *ad = malloc(sizeof(float) * n * m);
    uint8_t *w = malloc(wrb * rows), *a = malloc(arb * m);
    float *y = malloc(sizeof(float) * rows * m), *y1 = malloc(sizeof(float) * rows);
    for (size_t i = 0; i < n * rows; i++) wf[i] = frand() * (1.0f + (float)(i % 7));
    for (size_t i = 0; i < n * m; i++) xf[i] = frand() * 3.0f;
    T_OK(mio_encode_f32(type, wf, n * rows, w, wrb * rows));
    T_OK(mio_decode_f32(type, w, wrb * rows, wd, n * rows));
    T_OK(mio_encode_f32(at, xf, n * m, a, arb * m));
    T_OK(mio_decode_f32(at, a, arb * m, ad, n * m));
    T_OK(mio_matmul(type, w, rows, n, xf, m, y, 2));
    size_t nb = n / (size_t)mio_type_block_size(type);
    for (size_t i = 0; i < m; i++) {
        T_OK(mio_matvec(type, w, rows, n, xf + i * n, y1, 1));
        for (size_t r = 0; r < rows; r++) {
            /* matmul == matvec == vec_dot, bit for bit */
            float vd = 0;
            T_OK(mio_vec_dot(type, n, w + r * wrb, a + i * arb, &vd));
            if (memcmp(&y1[r], &y[i * rows + r], 4) || memcmp(&vd, &y1[r], 4)) {
                t_fail++;
                fprintf(stderr, "%s n=%zu row %zu act %zu: matmul %.9g, matvec %.9g, vec_dot %.9g differ\n",
                        mio_type_name(type), n, r, i, (double)y[i * rows + r], (double)y1[r], (double)vd);
            } else t_pass++;
            double ref = 0, S = 0;
            for (size_t j = 0; j < n; j++) {
                double p = (double)wd[r * n + j] * (double)ad[i * n + j];
                ref += p;
                S += fabs(p);
            }
            if (at == MIO_TYPE_Q8_1) {
                /* The format's offset term uses the activation block's stored sum s (an f16 of
                 * d * sum(q)), not the exact sum: the reference does the same. */
                for (size_t b = 0; b < nb; b++) {
                    const uint8_t *wb = w + r * wrb + b * mio_type_block_bytes(type), *ab = a + i * arb + b * 36;
                    float mw, sa;
                    T_OK(mio_decode_f32(MIO_TYPE_F16, wb + 2, 2, &mw, 1));
                    T_OK(mio_decode_f32(MIO_TYPE_F16, ab + 2, 2, &sa, 1));
                    for (size_t j = 0; j < 32; j++) ref -= (double)mw * ad[i * n + b * 32 + j];
                    ref += (double)mw * sa;
                    S += fabs((double)mw * sa);
                }
            }
            double err = fabs((double)y[i * rows + r] - ref), tol = ref_tol(type, nb, S);
            if (err > tol || !isfinite(y[i * rows + r])) {
                t_fail++;
                fprintf(stderr, "%s n=%zu row %zu act %zu: got %.9g, reference %.9g (|err| %.3g > tol %.3g)\n",
                        mio_type_name(type), n, r, i, (double)y[i * rows + r], ref, err, tol);
            } else t_pass++;
            if (S > 0 && err / (0x1.0p-24 * S * (20.0 + (double)nb)) > *worst) {
                *worst = err / (0x1.0p-24 * S * (20.0 + (double)nb));
                *worst_type = type;
            }
        }
    }
    free(wf), free(xf), free(wd), free(ad), free(w), free(a), free(y), free(y1);
}

static void test_reference(void) {
    static const size_t mult[] = {1, 2, 3, 5, 8, 17, 32, 67, 128};
    double worst = 0;
    int worst_type = -1;
    for (size_t t = 0; t < N_TYPES; t++) {
        int type = k_types[t];
        size_t blk = (size_t)mio_type_block_size(type);
        if (blk == 1) blk = 32;
        for (size_t k = 0; k < sizeof mult / sizeof mult[0]; k++) {
            size_t n = blk * mult[k];
            if (n > 8192) continue;
            check_type_len(type, n, k % 2 ? 5 : 3, &worst_type, &worst);
        }
    }
    printf("largest error seen: %.3f of the bound (%s)\n", worst, worst_type >= 0 ? mio_type_name(worst_type) : "-");
}

/* ------------------------------------------------------------------ threads */
static void test_threads(void) {
    const int types[] = {MIO_TYPE_Q4_0, MIO_TYPE_Q4_K, MIO_TYPE_F16};
    for (size_t t = 0; t < 3; t++) {
        int type = types[t];
        size_t n = 512, rows = 37, wrb = row_bytes(type, n);
        float *wf = malloc(sizeof(float) * n * rows), x[512], y0[37], y[37];
        uint8_t *w = malloc(wrb * rows);
        for (size_t i = 0; i < n * rows; i++) wf[i] = frand();
        for (size_t i = 0; i < n; i++) x[i] = frand();
        T_OK(mio_encode_f32(type, wf, n * rows, w, wrb * rows));
        T_OK(mio_matvec(type, w, rows, n, x, y0, 1));
        const int counts[] = {2, 3, 7, 0, -1, 64};
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            memset(y, 0xff, sizeof y);
            T_OK(mio_matvec(type, w, rows, n, x, y, counts[c]));
            T_CHECK(memcmp(y, y0, sizeof y) == 0);
        }
        free(wf), free(w);
    }
}

/* Several user threads using the worker pool at once (mio_pool_run serializes
 * jobs; every result must still be the single-threaded one), then a forked
 * child (it has no workers: the pool must make new ones, not wait forever). */
typedef struct conc {
    const uint8_t *w;
    const float *x, *y0;
    int ok;
} conc;
enum { C_ROWS = 37, C_N = 512 };

static void *conc_run(void *arg) {
    conc *c = arg;
    float y[C_ROWS];
    c->ok = 1;
    for (int it = 0; it < 40; it++) {
        memset(y, 0xff, sizeof y);
        if (mio_matvec(MIO_TYPE_Q4_0, c->w, C_ROWS, C_N, c->x, y, 2 + it % 3) ||
            memcmp(y, c->y0, sizeof y) != 0)
            c->ok = 0;
    }
    return NULL;
}

static void test_concurrent_and_fork(void) {
    size_t wrb = row_bytes(MIO_TYPE_Q4_0, C_N);
    float *wf = malloc(sizeof(float) * C_N * C_ROWS), x[C_N], y0[C_ROWS];
    uint8_t *w = malloc(wrb * C_ROWS);
    for (size_t i = 0; i < (size_t)C_N * C_ROWS; i++) wf[i] = frand();
    for (size_t i = 0; i < C_N; i++) x[i] = frand();
    T_OK(mio_encode_f32(MIO_TYPE_Q4_0, wf, (size_t)C_N * C_ROWS, w, wrb * C_ROWS));
    T_OK(mio_matvec(MIO_TYPE_Q4_0, w, C_ROWS, C_N, x, y0, 1));
    pthread_t th[4];
    conc cs[4];
    for (int i = 0; i < 4; i++) {
        cs[i] = (conc){w, x, y0, 0};
        T_CHECK(pthread_create(&th[i], NULL, conc_run, &cs[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        T_EQ_INT(cs[i].ok, 1);
    }
    /* qemu-user 7.2 (tests/neon/run_neon.sh sets MIO_TEST_UNDER_QEMU) aborts
     * when the forked child of a threaded process starts a thread */
    if (getenv("MIO_TEST_UNDER_QEMU")) {
        printf("fork check skipped under qemu-user\n");
        free(wf), free(w);
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        float y[C_ROWS];
        alarm(20); /* a deadlocked pool would hang here: SIGALRM ends the child */
        int bad = mio_matvec(MIO_TYPE_Q4_0, w, C_ROWS, C_N, x, y, 3) != MIO_OK || memcmp(y, y0, sizeof y) != 0;
        _exit(bad);
    }
    int status = 0;
    T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) fprintf(stderr, "child status 0x%x\n", status);
    T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(wf), free(w);
}

/* ------------------------------------------------------------------ refusals */
static void test_errors(void) {
    uint8_t w[292] = {0};
    float x[512] = {0}, y[4] = {1, 2, 3, 4}, out = 5;
    T_STATUS(mio_matvec(1000, w, 1, 32, x, y, 1), MIO_ERR_UNSUPPORTED_TYPE);
    T_MSG_HAS("unknown weight type code 1000");
    T_STATUS(mio_matvec(4, w, 1, 32, x, y, 1), MIO_ERR_UNSUPPORTED_TYPE); /* removed Q4_2 */
    T_STATUS(mio_matvec(MIO_TYPE_IQ2_XXS, w, 1, 256, x, y, 1), MIO_ERR_UNSUPPORTED_TYPE);
    T_MSG_HAS("no dot-product kernel for weight type iq2_xxs");
    T_STATUS(mio_matvec(MIO_TYPE_Q8_K, w, 1, 256, x, y, 1), MIO_ERR_UNSUPPORTED_TYPE);
    T_STATUS(mio_matvec(MIO_TYPE_Q4_K, w, 1, 100, x, y, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("q4_K row length 100 is not a multiple of the block size 256");
    T_STATUS(mio_matmul(MIO_TYPE_Q8_0, w, 1, 33, x, 1, y, 1), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_vec_dot(MIO_TYPE_Q4_0, 48, w, w, &out), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_matvec(MIO_TYPE_Q8_0, NULL, 1, 32, x, y, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("w is NULL");
    T_STATUS(mio_matvec(MIO_TYPE_Q8_0, w, 1, 32, NULL, y, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("x is NULL");
    T_STATUS(mio_matmul(MIO_TYPE_Q8_0, w, 1, 32, x, 2, NULL, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("y is NULL");
    T_STATUS(mio_matvec(MIO_TYPE_Q8_0, w, SIZE_MAX / 2, 32, x, y, 1), MIO_ERR_OVERFLOW);
    T_STATUS(mio_matmul(MIO_TYPE_Q8_0, w, 1, 32, x, SIZE_MAX / 8, y, 1), MIO_ERR_OVERFLOW);
    T_STATUS(mio_vec_dot(MIO_TYPE_Q8_0, SIZE_MAX - 31, w, w, &out), MIO_ERR_OVERFLOW);
    /* failures wrote nothing */
    T_CHECK(y[0] == 1 && y[1] == 2 && out == 5);
    /* NaN in x cannot be quantized */
    x[3] = NAN;
    T_STATUS(mio_matvec(MIO_TYPE_Q8_0, w, 1, 32, x, y, 1), MIO_ERR_NON_FINITE);
    T_MSG_HAS("mio_matvec: quantizing x to q8_0");
    T_CHECK(y[0] == 1);
    x[3] = 0;
    /* zero rows / zero activation rows: nothing to do; zero columns: dot products 0 */
    T_OK(mio_matvec(MIO_TYPE_Q8_0, w, 0, 32, x, y, 1));
    T_OK(mio_matmul(MIO_TYPE_Q8_0, w, 1, 32, x, 0, y, 1));
    T_CHECK(y[0] == 1);
    T_OK(mio_matvec(MIO_TYPE_Q4_K, w, 2, 0, x, y, 1));
    T_CHECK(y[0] == 0 && y[1] == 0);
}

/* Arbitrary weight bytes (NaN/inf scales included) never crash; rows of random bytes
 * with every kernel, under the sanitizers too. */
static void test_random_bytes(void) {
    uint8_t w[5 * 4 * 292];
    float x[1024];
    for (size_t i = 0; i < sizeof w; i++) w[i] = (uint8_t)rnd();
    for (size_t i = 0; i < 1024; i++) x[i] = frand();
    for (size_t t = 0; t < N_TYPES; t++) {
        int type = k_types[t];
        size_t n = (size_t)mio_type_block_size(type) == 1 ? 64 : 4 * (size_t)mio_type_block_size(type);
        float y[5];
        T_OK(mio_matvec(type, w, 5, n, x, y, 2));
    }
}

int main(void) {
    test_float_order();
    /* test_dot_<isa> runs under MIO_ISA=<isa>: a CPU without it skips */
    if (!mio_cpu_isa()) T_SKIP(mio_last_error());
    printf("kernels: %s\n", mio_cpu_isa());
    test_hand();
    test_reference();
    test_threads();
    test_concurrent_and_fork();
    test_errors();
    test_random_bytes();
    T_DONE();
}
