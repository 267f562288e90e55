/* SPDX-License-Identifier: MIT */
/* bench_codec.c — block codec throughput, libmodelio vs ggml, one thread each, on
 * the same gaussian data (256 rows x 4096 floats): ggml_quantize_chunk(type, NULL
 * imatrix) vs mio_encode_f32, and to_float vs mio_decode_f32, interleaved, median
 * of 7 runs, MB/s of f32 data. With --imatrix: the importance-matrix encoders
 * instead, ggml_quantize_chunk(type, ..., imatrix) vs mio_encode_f32_imatrix with
 * the same positive per-column weights (every type that uses one), no decode table.
 * Each row ends with the ratio ours/ggml and whether the bytes are ggml's.
 * Usage: bench_codec [--imatrix] [--rows R] [type-name ...] (default: all types, 256 rows). */
#include "modelio.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tests/codec/codec_peer.h"
#include "bench_util.h"

enum { WIDTH = 4096, REPS = 7 };
/* rows of the data (--rows R; default 256: 4.2 MB of f32, more than a core's
 * L2, so the fastest casts meet the memory's bandwidth; 16 rows = 262 KB stay
 * in L2 and show the arithmetic) */
static int ROWS = 256;
static int N = 256 * WIDTH;

static double now(void) { return bench_now_ms() / 1e3; }
static double median(double *v) { return bench_median(v, REPS); }

/* ggml's encoder for a type: ggml_quantize_chunk, except for the types it refuses
 * there (q8_1, q8_K), whose from_float_ref is ggml's only encoder. */
static void peer_encode(int type, const float *x, void *y, int64_t nrows, int64_t n_per_row) {
    if (type == MIO_TYPE_Q8_1 || type == MIO_TYPE_Q8_K) {
        const peer_type_traits *t = g_peer.traits(type);
        t->from_float_ref(x, y, nrows * n_per_row);
    } else {
        g_peer.quantize_chunk(type, x, y, 0, nrows, n_per_row, NULL);
    }
}

/* Whether ggml encodes this type without an imatrix: tried once in a child
 * process, since ggml aborts on types ggml_quantize_chunk does not handle. */
static int peer_can_encode(int type, const float *x) {
    if (type == MIO_TYPE_Q8_1 || type == MIO_TYPE_Q8_K) {
        const peer_type_traits *t = g_peer.traits(type);
        return t && t->from_float_ref;
    }
    if (g_peer.requires_imatrix && g_peer.requires_imatrix(type)) return 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) { dup2(fd, 2); close(fd); }
        void *y = malloc(WIDTH * 8);
        peer_encode(type, x, y, 1, WIDTH);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int selected(int type, int argc, char **argv) {
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (mio_type_from_name(argv[i]) == type) return 1;
    return 0;
}

/* One row of the imatrix table: ggml_quantize_chunk with qw vs mio_encode_f32_imatrix. */
static void bench_imatrix(int type, const float *x, const float *qw, uint8_t *a, uint8_t *b, double mb) {
    size_t len = (size_t)(N / mio_type_block_size(type)) * mio_type_block_bytes(type);
    g_peer.quantize_init(type);
    double tg[REPS], tm[REPS];
    g_peer.quantize_chunk(type, x, b, 0, ROWS, WIDTH, qw); /* warm up */
    if (mio_encode_f32_imatrix(type, x, N, WIDTH, qw, a, len)) {
        printf("%-8s error: %s\n", mio_type_name(type), mio_last_error());
        return;
    }
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        g_peer.quantize_chunk(type, x, b, 0, ROWS, WIDTH, qw);
        double t1 = now();
        mio_encode_f32_imatrix(type, x, N, WIDTH, qw, a, len);
        double t2 = now();
        tg[r] = t1 - t0;
        tm[r] = t2 - t1;
    }
    double g = mb / median(tg), m = mb / median(tm);
    printf("%-8s %12.1f %12.1f %8.2fx %s\n", mio_type_name(type), g, m, m / g,
           memcmp(a, b, len) ? "(bytes differ from ggml!)" : "");
}

int main(int argc, char **argv) {
    if (!peer_codec_load()) {
        fprintf(stderr, "bench_codec needs the ggml peer (set MIO_PEER_DIR)\n");
        return 1;
    }
    int with_imatrix = argc > 1 && strcmp(argv[1], "--imatrix") == 0;
    if (with_imatrix) { argv[1] = argv[0]; argv++; argc--; }
    if (argc > 2 && strcmp(argv[1], "--rows") == 0) {
        ROWS = atoi(argv[2]);
        if (ROWS < 1 || ROWS > 65536) { fprintf(stderr, "--rows: 1..65536\n"); return 2; }
        N = ROWS * WIDTH;
        argv[2] = argv[0]; argv += 2; argc -= 2;
    }
    for (int i = 1; i < argc; i++)
        if (mio_type_from_name(argv[i]) < 0) { fprintf(stderr, "unknown type name '%s'\n", argv[i]); return 2; }
    float *x = malloc((size_t)N * sizeof(float)), *out = malloc((size_t)N * sizeof(float));
    float *qw = malloc((size_t)WIDTH * sizeof(float));
    uint8_t *a = malloc((size_t)N * 4), *b = malloc((size_t)N * 4);
    if (!x || !out || !qw || !a || !b) return 1;
    fill_input(IN_GAUSS, 42, x, N, 32);
    const double mb = (double)N * 4.0 / 1e6;

    if (with_imatrix) {
        /* per-column weights as an imatrix holds them (mean squared activations):
         * positive, spread over two decades */
        uint64_t s = 11;
        for (int j = 0; j < WIDTH; j++) qw[j] = 0.05f + expf(3.f * rng_unit(&s) - 1.5f);
        printf("encode with an importance matrix: %d rows x %d floats (%.1f MB of f32), one thread, median of %d "
               "interleaved runs\n", ROWS, WIDTH, mb, REPS);
        printf("%-8s %12s %12s %8s %s\n", "type", "ggml MB/s", "ours MB/s", "ours/ggml", "");
        for (int type = 0; type < MIO_TYPE_GGML_COUNT; type++) {
            if (!mio_type_name(type) || !selected(type, argc, argv) || WIDTH % mio_type_block_size(type)) continue;
            /* only the encoders that use the weights (casts and q8_* ignore them) */
            if (!mio_type_can_encode_imatrix(type) || !mio_type_block_size(type) || mio_type_block_size(type) == 1) continue;
            if (type == MIO_TYPE_Q8_0 || type == MIO_TYPE_Q8_1 || type == MIO_TYPE_Q8_K) continue;
            bench_imatrix(type, x, qw, a, b, mb);
        }
        free(x); free(out); free(qw); free(a); free(b);
        return 0;
    }

    printf("encode: %d rows x %d floats (%.1f MB of f32), one thread, median of %d interleaved runs\n", ROWS, WIDTH, mb, REPS);
    printf("%-8s %12s %12s %8s %s\n", "type", "ggml MB/s", "ours MB/s", "ours/ggml", "");
    for (int type = 0; type < MIO_TYPE_GGML_COUNT; type++) {
        if (!mio_type_name(type) || !selected(type, argc, argv) || !mio_type_can_encode(type)) continue;
        if (WIDTH % mio_type_block_size(type)) continue;
        if (!peer_can_encode(type, x)) { printf("%-8s (no ggml encoder to compare: needs an imatrix or not exposed)\n", mio_type_name(type)); continue; }
        size_t len = (size_t)(N / mio_type_block_size(type)) * mio_type_block_bytes(type);
        g_peer.quantize_init(type);
        double tg[REPS], tm[REPS];
        peer_encode(type, x, b, ROWS, WIDTH); /* warm up */
        if (mio_encode_f32(type, x, N, a, len)) { printf("%-8s error: %s\n", mio_type_name(type), mio_last_error()); continue; }
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            peer_encode(type, x, b, ROWS, WIDTH);
            double t1 = now();
            mio_encode_f32(type, x, N, a, len);
            double t2 = now();
            tg[r] = t1 - t0;
            tm[r] = t2 - t1;
        }
        double g = mb / median(tg), m = mb / median(tm);
        printf("%-8s %12.1f %12.1f %8.2fx %s\n", mio_type_name(type), g, m, m / g,
               memcmp(a, b, len) ? "(bytes differ from ggml!)" : "");
    }

    printf("\ndecode: MB/s of f32 output, same layout\n");
    printf("%-8s %12s %12s %8s\n", "type", "ggml MB/s", "ours MB/s", "ours/ggml");
    for (int type = 0; type < MIO_TYPE_GGML_COUNT; type++) {
        if (!mio_type_name(type) || !selected(type, argc, argv) || !mio_type_can_decode(type)) continue;
        if (WIDTH % mio_type_block_size(type)) continue;
        peer_to_float_fn ref = peer_to_float(type);
        if (!ref) continue;
        size_t len = (size_t)(N / mio_type_block_size(type)) * mio_type_block_bytes(type);
        const char *note = "";
        if (!mio_type_can_encode(type) || mio_encode_f32(type, x, N, a, len)) {
            uint64_t s = 7; /* random block bytes for types we cannot encode */
            for (size_t i = 0; i < len; i++) a[i] = (uint8_t)rng_next(&s);
            note = "(random bytes)";
        }
        double tg[REPS], tm[REPS];
        ref(a, out, N);
        mio_decode_f32(type, a, len, out, N);
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            ref(a, out, N);
            double t1 = now();
            mio_decode_f32(type, a, len, out, N);
            double t2 = now();
            tg[r] = t1 - t0;
            tm[r] = t2 - t1;
        }
        double g = mb / median(tg), m = mb / median(tm);
        printf("%-8s %12.1f %12.1f %8.2fx %s\n", mio_type_name(type), g, m, m / g, note);
    }
    free(x); free(out); free(qw); free(a); free(b);
    return 0;
}
