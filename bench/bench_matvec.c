/* SPDX-License-Identifier: MIT */
/* bench_matvec.c — the dot-product kernels side by side with ggml's CPU back end
 * of the same ISA level (zen4 for avx512, haswell for avx2 and scalar;
 * MIO_BENCH_PEER=haswell|zen4|... overrides), in one process, on the same weight
 * bytes. ggml does the same work as mio_matvec: from_float of x to its
 * vec_dot_type, then vec_dot per row. Every time is the median of RUNS runs
 * after one warm-up; ratios are ggml / ours (above 1: we are faster).
 *
 * Four tables (issue 12's targets):
 *  1. 4096 x 4096 matvec, 1 thread: ours, ggml, speed-up;
 *  2. out of cache: W of at least 256 MB (rows x 4096), 1 thread, against a
 *     vectorized streaming read of the same bytes in the same run: our GB/s and
 *     the fraction of the read bandwidth, and ggml's; then with 2 threads
 *     against a 2-thread streaming read (each thread reads half): mio_matvec's
 *     GB/s and fraction, and mio_packed_matmul's with m = 1 (the same W packed);
 *  3. prefill: mio_matmul with m = 8 against 8 mio_matvec calls (throughput ratio);
 *  4. threads: mio_matvec with 2 threads against 1 (4096 x 4096);
 *  5. short rows: 4096 x 896 (32-element blocks) or 4096 x 1536 (256-element
 *     ones), 1 thread, against ggml (the tails and per-row costs of small
 *     models' hidden sizes).
 * Without the peer the ggml columns are empty.
 * Usage: MIO_PEER_DIR=... [MIO_ISA=avx2] bench_matvec [runs] [type ...]
 *        (MIO_BENCH_BIG=0 skips table 2, which needs about 1.3 GB of memory) */
#include "modelio.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "../tests/interop/ggml_cpu_peer.h"
#include "bench_util.h"

#define N 4096
#define BIG_BYTES (256u << 20)

static uint64_t g_s = 88172645463325252ull;
static float frand(void) {
    g_s ^= g_s << 13, g_s ^= g_s >> 7, g_s ^= g_s << 17;
    return (float)((double)(g_s >> 11) * 0x1.0p-53 * 2 - 1);
}

/* A streaming read of n bytes (n a multiple of 128): the bandwidth reference. */
#if defined(__x86_64__)
__attribute__((target("avx2"))) static uint64_t stream_read_avx2(const uint8_t *p, size_t n) {
    typedef long long v4 __attribute__((vector_size(32), aligned(1)));
    v4 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    for (size_t i = 0; i < n; i += 128) {
        a0 ^= *(const v4 *)(p + i), a1 ^= *(const v4 *)(p + i + 32);
        a2 ^= *(const v4 *)(p + i + 64), a3 ^= *(const v4 *)(p + i + 96);
    }
    v4 a = a0 ^ a1 ^ a2 ^ a3;
    return (uint64_t)(a[0] ^ a[1] ^ a[2] ^ a[3]);
}
#endif
static uint64_t stream_read(const uint8_t *p, size_t n);
typedef struct { const uint8_t *p; size_t n; uint64_t r; } stream_job;
static void *stream_thread(void *arg) {
    stream_job *j = arg;
    j->r = stream_read(j->p, j->n);
    return NULL;
}
/* the same read split in two halves on two threads (n a multiple of 256) */
static uint64_t stream_read2(const uint8_t *p, size_t n) {
    stream_job j[2] = {{p, n / 2, 0}, {p + n / 2, n / 2, 0}};
    pthread_t th;
    if (pthread_create(&th, NULL, stream_thread, &j[1])) return stream_read(p, n);
    stream_thread(&j[0]);
    pthread_join(th, NULL);
    return j[0].r ^ j[1].r;
}
static uint64_t stream_read(const uint8_t *p, size_t n) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) return stream_read_avx2(p, n);
#endif
    uint64_t a = 0, b = 0, v;
    for (size_t i = 0; i < n; i += 16) {
        memcpy(&v, p + i, 8), a ^= v;
        memcpy(&v, p + i + 8, 8), b ^= v;
    }
    return a ^ b;
}
static volatile uint64_t g_sink;

typedef struct peer {
    int ok;
    peer_cpu cpu;
} peer;

/* ggml's matvec: from_float of x, vec_dot per row. */
static void ggml_matvec_n(const peer *pp, int type, const uint8_t *w, size_t rows, size_t cols, size_t wrb,
                          const float *x, uint8_t *a, float *y) {
    const peer_type_traits_cpu *tr = pp->cpu.traits(type);
    peer_from_float_fn ff = pp->cpu.traits(tr->vec_dot_type)->from_float;
    if (ff) ff(x, a, (int64_t)cols);
    else memcpy(a, x, sizeof(float) * cols);
    for (size_t row = 0; row < rows; row++) tr->vec_dot((int)cols, &y[row], 0, w + row * wrb, 0, a, 0, 1);
}
static void ggml_matvec(const peer *pp, int type, const uint8_t *w, size_t rows, size_t wrb, const float *x, uint8_t *a,
                        float *y) {
    ggml_matvec_n(pp, type, w, rows, N, wrb, x, a, y);
}

/* 5. short rows: 4096 x cols, 1 thread, ours against ggml interleaved; cols =
 * 896 for 32-element blocks (28 blocks: a tail of 4 past 3 batches of 8), 1536
 * for 256-element ones (6 super-blocks) — the hidden sizes of small models.
 * Returns the speed-up (NAN without the peer or on failure). */
static double short_rows(const peer *pp, int type, const float *wf, const float *x, uint8_t *w, uint8_t *a, float *y,
                         double *t, double *t2, int runs, size_t *cols_out) {
    const size_t bs = (size_t)mio_type_block_size(type), cols = bs == 256 ? 1536 : 896, rows = N;
    *cols_out = cols;
    if (cols % bs || !pp->ok) return NAN;
    const size_t wrb = cols / bs * mio_type_block_bytes(type);
    if (mio_encode_f32(type, wf, rows * cols, w, rows * wrb)) return NAN;
    for (int r = -1; r < runs; r++)
        for (int side = 0; side < 2; side++) {
            int mine = (side ^ (r & 1)) == 0;
            double t0 = bench_now_ms();
            for (int rep = 0; rep < 16; rep++) { /* 16 calls per timing: a call is short */
                if (mine && mio_matvec(type, w, rows, cols, x, y, 1)) return NAN;
                if (!mine) ggml_matvec_n(pp, type, w, rows, cols, wrb, x, a, y);
            }
            if (r >= 0) (mine ? t : t2)[r] = bench_now_ms() - t0;
        }
    return bench_median(t2, runs) / bench_median(t, runs);
}

static int encode_rows(int type, const float *wf, size_t rows_f, uint8_t *w, size_t rows, size_t wrb) {
    /* rows beyond rows_f repeat the first rows_f (the bytes of a big W need not all differ) */
    if (mio_encode_f32(type, wf, (size_t)N * rows_f, w, wrb * rows_f)) return 1;
    for (size_t r = rows_f; r < rows; r += rows_f) memcpy(w + r * wrb, w, wrb * (rows - r < rows_f ? rows - r : rows_f));
    return 0;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 1000) runs = 5;
    static const char *def[] = {"q4_0", "q8_0", "q4_K", "q5_K", "q6_K", "tq2_0", "q2_K", "q3_K", "iq4_xs", "f16"};
    const char **names = argc > 2 ? (const char **)(argv + 2) : def;
    int n_names = argc > 2 ? argc - 2 : (int)(sizeof def / sizeof def[0]);
    const char *bigenv = getenv("MIO_BENCH_BIG");
    int do_big = !(bigenv && strcmp(bigenv, "0") == 0);

    peer_api api;
    peer pp = {0};
    char why[4400] = "";
    pp.ok = peer_load(&api, why, sizeof why) == 0;
    __builtin_cpu_init();
    const char *isa = mio_cpu_isa();
    if (!isa) { printf("mio_cpu_isa: %s\n", mio_last_error()); return 1; }
    const char *variant = getenv("MIO_BENCH_PEER");
    if (!variant || !variant[0]) variant = strcmp(isa, "avx512") == 0 ? "zen4" : "haswell";
    if (pp.ok && !__builtin_cpu_supports("avx2")) {
        snprintf(why, sizeof why, "CPU lacks AVX2");
        pp.ok = 0;
    }
    if (pp.ok && peer_cpu_load(&api, variant, &pp.cpu, why, sizeof why)) pp.ok = 0;
    if (!pp.ok) printf("ggml columns empty: %s\n", why);

    size_t big_rows_max = BIG_BYTES / 64 + 1; /* enough rows for the smallest row size below */
    float *wf = malloc(sizeof(float) * N * N), *x = malloc(sizeof(float) * N * 8), *y = malloc(sizeof(float) * N * 8);
    float *ybig = malloc(sizeof(float) * big_rows_max);
    uint8_t *w = malloc((size_t)N * N * 4), *a = malloc((size_t)N * 4);
    double *t = malloc(sizeof(double) * (size_t)runs), *t2 = malloc(sizeof(double) * (size_t)runs);
    if (!wf || !x || !y || !ybig || !w || !a || !t || !t2) return 1;
    for (size_t i = 0; i < (size_t)N * N; i++) wf[i] = frand();
    for (size_t i = 0; i < (size_t)N * 8; i++) x[i] = frand() * 3.0f;

    printf("libmodelio %s, ggml %s; medians of %d runs after a warm-up; speed-up = ggml time / our time\n\n", isa,
           pp.ok ? variant : "-", runs);
    printf("%-7s | %8s %8s %7s | %9s %9s %6s %9s %6s | %8s %8s %6s | %8s %6s\n", "type", "ours ms", "ggml ms",
           "speedup", "read GB/s", "ours GB/s", "of rd", "ggml GB/s", "of rd", "8 mv ms", "mm8 ms", "ratio",
           "2 thr ms", "scale");
    if (do_big)
        printf("%-7s | %9s %9s %6s %9s %6s   (out of cache, 2 threads)\n", "", "read2GB/s", "ours GB/s", "of rd",
               "pk1 GB/s", "of rd");
    for (int k = 0; k < n_names; k++) {
        int type = mio_type_from_name(names[k]);
        if (type < 0 || mio_vec_dot_type(type) < 0) { printf("%-7s (no kernel)\n", names[k]); continue; }
        size_t wrb = N / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type);
        if (encode_rows(type, wf, N, w, N, wrb)) { printf("%-7s encode failed: %s\n", names[k], mio_last_error()); continue; }

        /* 1. 4096 x 4096, 1 thread; ours and ggml alternate run by run (and which
         *    goes first), so drift in the machine's load hits both sides alike */
        for (int r = -1; r < runs; r++) {
            for (int side = 0; side < 2; side++) {
                int mine = (side ^ (r & 1)) == 0;
                if (!mine && !pp.ok) continue;
                double t0 = bench_now_ms();
                if (mine && mio_matvec(type, w, N, N, x, y, 1)) {
                    printf("matvec failed: %s\n", mio_last_error());
                    return 1;
                }
                if (!mine) ggml_matvec(&pp, type, w, N, wrb, x, a, y);
                if (r >= 0) (mine ? t : t2)[r] = bench_now_ms() - t0;
            }
        }
        double ours = bench_median(t, runs), theirs = pp.ok ? bench_median(t2, runs) : NAN;

        /* 3. m = 8: mio_matmul vs 8 mio_matvec */
        for (int r = -1; r < runs; r++) {
            double t0 = bench_now_ms();
            for (int i = 0; i < 8; i++) mio_matvec(type, w, N, N, x + (size_t)i * N, y + (size_t)i * N, 1);
            double t1 = bench_now_ms();
            if (mio_matmul(type, w, N, N, x, 8, y, 1)) { printf("matmul failed: %s\n", mio_last_error()); return 1; }
            if (r >= 0) t[r] = t1 - t0, t2[r] = bench_now_ms() - t1;
        }
        double mv8 = bench_median(t, runs), mm8 = bench_median(t2, runs);

        /* 4. 2 threads */
        for (int r = -1; r < runs; r++) {
            double t0 = bench_now_ms();
            mio_matvec(type, w, N, N, x, y, 2);
            if (r >= 0) t[r] = bench_now_ms() - t0;
        }
        double two = bench_median(t, runs);

        /* 2. out of cache: >= 256 MB of W */
        double rd_gbs = NAN, our_gbs = NAN, gg_gbs = NAN, rd2_gbs = NAN, our2_gbs = NAN, pk2_gbs = NAN;
        if (do_big) {
            size_t rows = (BIG_BYTES + wrb - 1) / wrb, bytes = rows * wrb;
            uint8_t *wb = malloc(bytes + 128);
            if (wb && !encode_rows(type, wf, N, wb, rows, wrb)) {
                int br = runs < 3 ? runs : 3;
                memset(wb + bytes, 0, 128);
                for (int r = -1; r < br; r++) {
                    double t0 = bench_now_ms();
                    g_sink = stream_read(wb, (bytes + 127) / 128 * 128);
                    if (r >= 0) t[r] = bench_now_ms() - t0;
                }
                rd_gbs = (double)bytes / bench_median(t, br) / 1e6;
                for (int r = -1; r < br; r++) {
                    for (int side = 0; side < 2; side++) {
                        int mine = (side ^ (r & 1)) == 0;
                        if (!mine && !pp.ok) continue;
                        double t0 = bench_now_ms();
                        if (mine) mio_matvec(type, wb, rows, N, x, ybig, 1);
                        else ggml_matvec(&pp, type, wb, rows, wrb, x, a, ybig);
                        if (r >= 0) (mine ? t : t2)[r] = bench_now_ms() - t0;
                    }
                }
                our_gbs = (double)bytes / bench_median(t, br) / 1e6;
                if (pp.ok) gg_gbs = (double)bytes / bench_median(t2, br) / 1e6;
                /* 2 threads: the read, mio_matvec, mio_packed_matmul (m = 1) */
                mio_packed *pk = NULL;
                if (mio_pack_weights(type, wb, rows, N, &pk) == MIO_OK) {
                    double *t3 = malloc(sizeof(double) * (size_t)br);
                    for (int r = -1; t3 && r < br; r++) {
                        double t0 = bench_now_ms();
                        g_sink = stream_read2(wb, (bytes + 255) / 256 * 256);
                        double t1 = bench_now_ms();
                        mio_matvec(type, wb, rows, N, x, ybig, 2);
                        double t2_ = bench_now_ms();
                        mio_packed_matmul(pk, x, 1, ybig, 2);
                        if (r >= 0) t[r] = t1 - t0, t2[r] = t2_ - t1, t3[r] = bench_now_ms() - t2_;
                    }
                    if (t3) {
                        rd2_gbs = (double)bytes / bench_median(t, br) / 1e6;
                        our2_gbs = (double)bytes / bench_median(t2, br) / 1e6;
                        pk2_gbs = (double)bytes / bench_median(t3, br) / 1e6;
                    }
                    free(t3);
                    mio_packed_free(pk);
                }
            }
            free(wb);
        }
        printf("%-7s | %8.3f %8.3f %7.2f | %9.1f %9.1f %5.0f%% %9.1f %5.0f%% | %8.2f %8.2f %6.2f | %8.3f %6.2f\n",
               names[k], ours, theirs, theirs / ours, rd_gbs, our_gbs, 100 * our_gbs / rd_gbs, gg_gbs,
               100 * gg_gbs / rd_gbs, mv8, mm8, mv8 / mm8, two, ours / two);
        if (do_big)
            printf("%-7s | %9.1f %9.1f %5.0f%% %9.1f %5.0f%%\n", "", rd2_gbs, our2_gbs, 100 * our2_gbs / rd2_gbs,
                   pk2_gbs, 100 * pk2_gbs / rd2_gbs);
        fflush(stdout);
    }
    printf("\nshort rows (4096 x cols, 1 thread): speed-up = ggml time / our time\n");
    for (int k = 0; k < n_names; k++) {
        int type = mio_type_from_name(names[k]);
        if (type < 0 || mio_vec_dot_type(type) < 0) continue;
        size_t cols = 0;
        double sp = short_rows(&pp, type, wf, x, w, a, y, t, t2, runs, &cols);
        printf("%-7s | %5zu cols %7.2f\n", names[k], cols, sp);
    }
    free(wf), free(x), free(y), free(ybig), free(w), free(a), free(t), free(t2);
    return 0;
}
