/* SPDX-License-Identifier: MIT */
/* bench_ptqtp.c — the PTQTP solver (mio_ptqtp_quantize) on a realistic matrix:
 * rows x cols f32 gaussian weights (sigma 0.02) with sparse outliers (each
 * element with probability frac is +-out sigma instead), fixed seed. For K = 1,
 * 2, 3 and tied K = 2, 3: the relative Frobenius error of the planes as stored
 * (fp16 scales), mean iterations a group, unconverged groups, and the solve
 * speed in MB/s of f32 input per thread at 1 and 2 threads (one run each: the
 * machine is shared, and the solve of a 4096 x 4096 matrix is long enough to
 * time once); the 2-thread planes are checked equal to the 1-thread ones. Then
 * the plain TQ2_0 encoder's error on the same matrix, and a smaller table of
 * the errors against the outlier size (none, 5 and 10 sigma).
 *
 *   bench_ptqtp [--rows R] [--cols C] [--out SIGMAS] [--frac F] [--seed S] [--no-sweep]
 * Defaults: 4096 x 4096, 10 sigma, 0.001, seed 1. */
#include "modelio.h"
#include "bench_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng;
static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unif(void) { return (double)((rnd() >> 11) + 1) * 0x1.0p-53; } /* (0, 1] */

static float *make_matrix(size_t rows, size_t cols, double out, double frac, uint64_t seed) {
    g_rng = seed;
    float *w = malloc(rows * cols * sizeof *w);
    if (!w) return NULL;
    for (size_t i = 0; i < rows * cols; i++) {
        double g = sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif());
        if (out > 0 && unif() <= frac) g = rnd() & 1 ? out : -out;
        w[i] = (float)(0.02 * g);
    }
    return w;
}

typedef struct cfg {
    int planes, tie;
    const char *name;
} cfg;
static const cfg k_cfg[] = {{1, 0, "K=1"}, {2, 0, "K=2"}, {3, 0, "K=3"}, {2, 1, "K=2 tied"}, {3, 1, "K=3 tied"}};
#define N_CFG (sizeof k_cfg / sizeof k_cfg[0])

static int solve(const float *w, size_t rows, size_t cols, const cfg *c, int threads, uint8_t **pl, size_t bytes,
                 mio_ptqtp_stats *st, double *ms) {
    mio_ptqtp_options o;
    mio_ptqtp_default_options(&o);
    o.planes = c->planes;
    o.tie_scales = c->tie;
    o.n_threads = threads;
    void *const pp[3] = {pl[0], pl[1], pl[2]};
    const double t0 = bench_now_ms();
    mio_status s = mio_ptqtp_quantize(w, rows, cols, &o, pp, bytes, st);
    *ms = bench_now_ms() - t0;
    if (s != MIO_OK) {
        fprintf(stderr, "mio_ptqtp_quantize: %s\n", mio_last_error());
        return 1;
    }
    return 0;
}

static double tq2_error(const float *w, size_t n) {
    const size_t bytes = n / 256 * 66;
    uint8_t *q = malloc(bytes);
    float *r = malloc(n * sizeof *r);
    double e = 0, nn = 0;
    if (q && r && mio_encode_f32(MIO_TYPE_TQ2_0, w, n, q, bytes) == MIO_OK &&
        mio_decode_f32(MIO_TYPE_TQ2_0, q, bytes, r, n) == MIO_OK)
        for (size_t i = 0; i < n; i++) {
            const double d = (double)w[i] - (double)r[i];
            e += d * d;
            nn += (double)w[i] * w[i];
        }
    free(q);
    free(r);
    return nn > 0 ? sqrt(e / nn) : NAN;
}

int main(int argc, char **argv) {
    size_t rows = 4096, cols = 4096;
    double out = 10.0, frac = 0.001;
    uint64_t seed = 1;
    int sweep = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--rows") && v) rows = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--cols") && v) cols = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--out") && v) out = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--frac") && v) frac = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--seed") && v) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--no-sweep")) sweep = 0;
        else {
            fprintf(stderr, "usage: %s [--rows R] [--cols C] [--out SIGMAS] [--frac F] [--seed S] [--no-sweep]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!rows || !cols || cols % 256) {
        fprintf(stderr, "cols must be a non-zero multiple of 256, rows non-zero\n");
        return 2;
    }
    const size_t n = rows * cols, bytes = n / 256 * 66;
    const double mb = (double)n * sizeof(float) / 1e6;
    float *w = make_matrix(rows, cols, out, frac, seed);
    uint8_t *p1[3], *p2[3];
    for (int k = 0; k < 3; k++) {
        p1[k] = malloc(bytes);
        p2[k] = malloc(bytes);
        if (!p1[k] || !p2[k]) return 1;
    }
    if (!w) return 1;
    printf("PTQTP solver (%s): %zu x %zu f32 gaussian, sigma 0.02, %.3g %% outliers at %g sigma, seed %llu\n",
           mio_cpu_isa(), rows, cols, frac * 100, out, (unsigned long long)seed);
    printf("| mode | rel. Frobenius error | mean iterations | unconverged groups | MB/s/thread, 1 thread | "
           "MB/s/thread, 2 threads |\n|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < N_CFG; c++) {
        mio_ptqtp_stats s1, s2;
        double ms1, ms2;
        if (solve(w, rows, cols, &k_cfg[c], 1, p1, bytes, &s1, &ms1) ||
            solve(w, rows, cols, &k_cfg[c], 2, p2, bytes, &s2, &ms2))
            return 1;
        int same = memcmp(&s1, &s2, sizeof s1) == 0;
        for (int k = 0; k < k_cfg[c].planes; k++) same &= memcmp(p1[k], p2[k], bytes) == 0;
        printf("| %s | %.4f | %.2f | %llu of %llu | %.1f | %.1f |%s\n", k_cfg[c].name, s1.rel_err,
               (double)s1.iterations / (double)s1.groups, (unsigned long long)s1.unconverged,
               (unsigned long long)s1.groups, mb / (ms1 / 1e3), mb / (ms2 / 1e3) / 2,
               same ? "" : " (2-thread output DIFFERS)");
        fflush(stdout);
        if (!same) return 1;
    }
    printf("| plain TQ2_0 encoder | %.4f | | | | |\n", tq2_error(w, n));
    free(w);

    if (sweep) {
        const size_t sr = rows / 8 ? rows / 8 : 1;
        printf("\nError against the outlier size (%zu x %zu, %.3g %% outliers, 2 threads):\n", sr, cols, frac * 100);
        printf("| outliers | K=1 | K=2 | K=3 | K=2 tied | K=3 tied | plain TQ2_0 |\n|---|---|---|---|---|---|---|\n");
        static const double outs[3] = {0, 5, 10};
        for (int o = 0; o < 3; o++) {
            float *v = make_matrix(sr, cols, outs[o], frac, seed + 1);
            if (!v) return 1;
            if (outs[o] > 0) printf("| %g sigma |", outs[o]);
            else printf("| none |");
            for (size_t c = 0; c < N_CFG; c++) {
                mio_ptqtp_stats s;
                double ms;
                if (solve(v, sr, cols, &k_cfg[c], 2, p1, bytes, &s, &ms)) return 1;
                printf(" %.4f |", s.rel_err);
            }
            printf(" %.4f |\n", tq2_error(v, sr * cols));
            fflush(stdout);
            free(v);
        }
    }
    for (int k = 0; k < 3; k++) {
        free(p1[k]);
        free(p2[k]);
    }
    return 0;
}
