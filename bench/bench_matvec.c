/* SPDX-License-Identifier: MIT */
/* bench_matvec.c — one 4096 x 4096 matvec, one thread: libmodelio's kernels at
 * the level mio_cpu_isa() reports (mio_matvec, activation quantization
 * included) against ggml's CPU back end of the same ISA level (zen4 for avx512,
 * haswell for avx2 and scalar) doing the same work (from_float of x to its
 * vec_dot_type, then vec_dot per row) on the same weight bytes. Medians of RUNS
 * runs after one warm-up, in ms, and ggml / ours (the speed-up). Without the peer
 * only our column is printed. MIO_BENCH_PEER=haswell|zen4|... overrides the peer.
 * Usage: MIO_PEER_DIR=... [MIO_ISA=avx2] bench_matvec [runs] [type ...] */
#include "modelio.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/interop/ggml_cpu_peer.h"
#include "bench_util.h"

#define N 4096

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 1000) runs = 5;
    static const char *def[] = {"q4_0", "q8_0", "q4_K", "q5_K", "q6_K", "tq2_0", "q2_K", "q3_K", "iq4_xs", "f16"};
    const char **names = argc > 2 ? (const char **)(argv + 2) : def;
    int n_names = argc > 2 ? argc - 2 : (int)(sizeof def / sizeof def[0]);

    peer_api api;
    peer_cpu cpu = {0};
    char why[4400] = "";
    int have_peer = peer_load(&api, why, sizeof why) == 0;
    __builtin_cpu_init();
    const char *isa = mio_cpu_isa();
    const char *variant = getenv("MIO_BENCH_PEER");
    if (!variant || !variant[0]) variant = strcmp(isa, "avx512") == 0 ? "zen4" : "haswell";
    if (have_peer && !__builtin_cpu_supports("avx2")) {
        snprintf(why, sizeof why, "CPU lacks AVX2");
        have_peer = 0;
    }
    if (have_peer && peer_cpu_load(&api, variant, &cpu, why, sizeof why)) have_peer = 0;
    if (!have_peer) printf("ggml column empty: %s\n", why);

    float *wf = malloc(sizeof(float) * N * N), *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    uint8_t *w = malloc((size_t)N * N * 4), *a = malloc((size_t)N * 4);
    double *t = malloc(sizeof(double) * (size_t)runs);
    if (!wf || !x || !y || !w || !a || !t) return 1;
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)N * N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        wf[i] = (float)((double)(s >> 11) * 0x1.0p-53 * 2 - 1);
    }
    for (size_t i = 0; i < N; i++) x[i] = wf[i * 977 % ((size_t)N * N)] * 3.0f;

    printf("4096 x 4096 matvec, 1 thread, median of %d runs (ms); libmodelio %s, ggml %s\n", runs, isa,
           have_peer ? variant : "-");
    printf("%-8s %10s %10s %8s %10s\n", "type", "ours", "ggml", "speedup", "ours GB/s");
    for (int k = 0; k < n_names; k++) {
        int type = mio_type_from_name(names[k]);
        if (type < 0 || mio_vec_dot_type(type) < 0) { printf("%-8s (no kernel)\n", names[k]); continue; }
        size_t wrb = N / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type);
        if (mio_encode_f32(type, wf, (size_t)N * N, w, wrb * N)) { printf("%-8s encode failed: %s\n", names[k], mio_last_error()); continue; }
        for (int r = -1; r < runs; r++) {
            double t0 = bench_now_ms();
            if (mio_matvec(type, w, N, N, x, y, 1)) { printf("matvec failed: %s\n", mio_last_error()); return 1; }
            if (r >= 0) t[r] = bench_now_ms() - t0;
        }
        double ours = bench_median(t, runs), theirs = NAN;
        if (have_peer) {
            const peer_type_traits_cpu *tr = cpu.traits(type);
            peer_from_float_fn ff = cpu.traits(tr->vec_dot_type)->from_float;
            for (int r = -1; r < runs; r++) {
                double t0 = bench_now_ms();
                ff(x, a, N);
                for (size_t row = 0; row < N; row++) tr->vec_dot(N, &y[row], 0, w + row * wrb, 0, a, 0, 1);
                if (r >= 0) t[r] = bench_now_ms() - t0;
            }
            theirs = bench_median(t, runs);
        }
        printf("%-8s %10.2f %10.2f %8.2f %10.2f\n", names[k], ours, theirs, theirs / ours, (double)wrb * N / ours / 1e6);
        fflush(stdout);
    }
    free(wf), free(x), free(y), free(w), free(a), free(t);
    return 0;
}
