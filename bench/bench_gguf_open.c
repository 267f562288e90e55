/* SPDX-License-Identifier: MIT */
/* bench_gguf_open.c — side-by-side timing of opening a GGUF and walking all of its
 * metadata: libmodelio (mmap + every key, every value widened, every string of
 * every string array) versus ggml's gguf_init_from_file(no_alloc=true), bare and
 * with a full walk. Prints median/min per variant and the ratios ggml/ours.
 * Usage: bench_gguf_open [FILE.gguf] [iterations]; peer from $MIO_PEER_DIR. */
#include "modelio.h"
#include "../tests/interop/peer.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef MIO_BENCH_DEFAULT_FILE
#define MIO_BENCH_DEFAULT_FILE "tests/data/vocab-gpt-2.gguf"
#endif

static peer_api G;
static volatile uint64_t sink; /* defeats dead-code elimination of the walks */


static int is_uint(int t) {
    return t == MIO_GGUF_U8 || t == MIO_GGUF_U16 || t == MIO_GGUF_U32 || t == MIO_GGUF_U64 || t == MIO_GGUF_BOOL;
}
static int is_sint(int t) { return t == MIO_GGUF_I8 || t == MIO_GGUF_I16 || t == MIO_GGUF_I32 || t == MIO_GGUF_I64; }
static int is_float(int t) { return t == MIO_GGUF_F32 || t == MIO_GGUF_F64; }

/* (a) libmodelio: open (mmap), walk everything (unless walk == 0), close. */
static int run_ours(const char *path, int walk, uint64_t *items) {
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(path, MIO_OPEN_MMAP, &f) != MIO_OK) {
        fprintf(stderr, "mio_gguf_open(%s): %s\n", path, mio_last_error());
        return -1;
    }
    uint64_t acc = 0, n = 0;
    int64_t n_kv = walk ? mio_gguf_kv_count(f) : 0;
    for (int64_t i = 0; i < n_kv; i++) {
        mio_str k = mio_gguf_kv_key(f, i);
        acc += k.len;
        int t = mio_gguf_kv_type(f, i);
        n++;
        if (t == MIO_GGUF_STRING) {
            mio_str s;
            if (mio_gguf_kv_str(f, i, &s) == MIO_OK) acc += s.len;
        } else if (t == MIO_GGUF_ARRAY) {
            mio_gguf_value v;
            if (mio_gguf_kv_value(f, i, &v) != MIO_OK) continue;
            for (uint64_t j = 0; j < v.count; j++, n++) {
                if (v.elem_type == MIO_GGUF_STRING) {
                    mio_str s;
                    if (mio_gguf_arr_str(f, i, j, &s) == MIO_OK) acc += s.len + (s.len ? (unsigned char)s.ptr[0] : 0);
                } else if (is_uint(v.elem_type)) {
                    uint64_t u;
                    if (mio_gguf_arr_u64(f, i, j, &u) == MIO_OK) acc += u;
                } else if (is_sint(v.elem_type)) {
                    int64_t s;
                    if (mio_gguf_arr_i64(f, i, j, &s) == MIO_OK) acc += (uint64_t)s;
                } else if (is_float(v.elem_type)) {
                    double d;
                    if (mio_gguf_arr_f64(f, i, j, &d) == MIO_OK) acc += (uint64_t)(d != 0.0);
                }
            }
        } else if (is_uint(t)) {
            uint64_t u;
            if (mio_gguf_kv_u64(f, i, &u) == MIO_OK) acc += u;
        } else if (is_sint(t)) {
            int64_t s;
            if (mio_gguf_kv_i64(f, i, &s) == MIO_OK) acc += (uint64_t)s;
        } else if (is_float(t)) {
            double d;
            if (mio_gguf_kv_f64(f, i, &d) == MIO_OK) acc += (uint64_t)(d != 0.0);
        }
    }
    mio_gguf_close(f);
    sink += acc;
    *items = n;
    return 0;
}

/* (b) ggml: gguf_init_from_file(no_alloc) + gguf_free; walk=1 also reads every
 * key and value (every string of every string array via gguf_get_arr_str). */
static int run_ggml(const char *path, int walk) {
    peer_gguf_params p = {true, NULL};
    void *gc = G.gguf_init_from_file(path, p);
    if (!gc) {
        fprintf(stderr, "ggml: gguf_init_from_file(%s) failed\n", path);
        return -1;
    }
    if (walk) {
        uint64_t acc = 0;
        int64_t n_kv = G.gguf_get_n_kv(gc);
        for (int64_t i = 0; i < n_kv; i++) {
            acc += strlen(G.gguf_get_key(gc, i));
            int t = G.gguf_get_kv_type(gc, i);
            switch (t) {
            case MIO_GGUF_STRING: acc += strlen(G.gguf_get_val_str(gc, i)); break;
            case MIO_GGUF_ARRAY: {
                int et = G.gguf_get_arr_type(gc, i);
                size_t n = G.gguf_get_arr_n(gc, i);
                if (et == MIO_GGUF_STRING) {
                    for (size_t j = 0; j < n; j++) {
                        const char *s = G.gguf_get_arr_str(gc, i, j);
                        acc += strlen(s) + (unsigned char)s[0];
                    }
                } else if (n) {
                    const unsigned char *d = (const unsigned char *)G.gguf_get_arr_data(gc, i);
                    size_t es = et == MIO_GGUF_U8 || et == MIO_GGUF_I8 || et == MIO_GGUF_BOOL ? 1
                              : et == MIO_GGUF_U16 || et == MIO_GGUF_I16                      ? 2
                              : et == MIO_GGUF_U32 || et == MIO_GGUF_I32 || et == MIO_GGUF_F32 ? 4
                                                                                                : 8;
                    for (size_t j = 0; j < n * es; j += es) acc += d[j];
                }
                break;
            }
            case MIO_GGUF_U8: acc += G.gguf_get_val_u8(gc, i); break;
            case MIO_GGUF_I8: acc += (uint64_t)G.gguf_get_val_i8(gc, i); break;
            case MIO_GGUF_U16: acc += G.gguf_get_val_u16(gc, i); break;
            case MIO_GGUF_I16: acc += (uint64_t)G.gguf_get_val_i16(gc, i); break;
            case MIO_GGUF_U32: acc += G.gguf_get_val_u32(gc, i); break;
            case MIO_GGUF_I32: acc += (uint64_t)G.gguf_get_val_i32(gc, i); break;
            case MIO_GGUF_U64: acc += G.gguf_get_val_u64(gc, i); break;
            case MIO_GGUF_I64: acc += (uint64_t)G.gguf_get_val_i64(gc, i); break;
            case MIO_GGUF_F32: acc += (uint64_t)(G.gguf_get_val_f32(gc, i) != 0.0f); break;
            case MIO_GGUF_F64: acc += (uint64_t)(G.gguf_get_val_f64(gc, i) != 0.0); break;
            case MIO_GGUF_BOOL: acc += G.gguf_get_val_bool(gc, i); break;
            default: break;
            }
        }
        sink += acc;
    }
    G.gguf_free(gc);
    return 0;
}


int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : MIO_BENCH_DEFAULT_FILE;
    int iters = argc > 2 ? atoi(argv[2]) : 30;
    if (iters < 1 || iters > 100000) {
        fprintf(stderr, "usage: %s [FILE.gguf] [iterations]\n", argv[0]);
        return 2;
    }
    char why[8192];
    int rc = peer_load(&G, why, sizeof why);
    if (rc != 0) {
        fprintf(stderr, "bench_gguf_open: %s\n", why);
        return rc > 0 ? 77 : 1;
    }

    double *ours = (double *)malloc(sizeof(double) * (size_t)iters);
    double *gbare = (double *)malloc(sizeof(double) * (size_t)iters);
    double *gwalk = (double *)malloc(sizeof(double) * (size_t)iters);
    double *obare = (double *)malloc(sizeof(double) * (size_t)iters);
    uint64_t dummy = 0;
    uint64_t items = 0;
    /* warm-up (page cache, lazy binding) — not timed */
    if (run_ours(path, 1, &items) || run_ggml(path, 1)) return 1;

    for (int k = 0; k < iters; k++) { /* interleaved so drift hits every variant alike */
        double t0 = bench_now_ms();
        if (run_ours(path, 1, &items)) return 1;
        double t1 = bench_now_ms();
        if (run_ggml(path, 0)) return 1;
        double t2 = bench_now_ms();
        if (run_ggml(path, 1)) return 1;
        double t3 = bench_now_ms();
        if (run_ours(path, 0, &dummy)) return 1;
        double t4 = bench_now_ms();
        ours[k] = t1 - t0;
        gbare[k] = t2 - t1;
        gwalk[k] = t3 - t2;
        obare[k] = t4 - t3;
    }
    double min_o = ours[0], min_b = gbare[0], min_w = gwalk[0], min_ob = obare[0];
    for (int k = 1; k < iters; k++) {
        if (obare[k] < min_ob) min_ob = obare[k];
        if (ours[k] < min_o) min_o = ours[k];
        if (gbare[k] < min_b) min_b = gbare[k];
        if (gwalk[k] < min_w) min_w = gwalk[k];
    }
    double med_ob = bench_median(obare, iters);
    double med_o = bench_median(ours, iters), med_b = bench_median(gbare, iters), med_w = bench_median(gwalk, iters);

    printf("file: %s\n", path);
    printf("peer: %s\n", G.path);
    printf("iterations: %d (interleaved), metadata items walked per open: %llu\n", iters,
           (unsigned long long)items);
    printf("%-52s %10s %10s\n", "variant", "median ms", "min ms");
    printf("%-52s %10.3f %10.3f\n", "libmodelio: mio_gguf_open(mmap) + walk all + close", med_o, min_o);
    printf("%-52s %10.3f %10.3f\n", "  (for reference) libmodelio: open + close, no walk", med_ob, min_ob);
    printf("%-52s %10.3f %10.3f\n", "ggml: gguf_init_from_file(no_alloc) + gguf_free", med_b, min_b);
    printf("%-52s %10.3f %10.3f\n", "ggml: gguf_init_from_file(no_alloc) + walk all + free", med_w, min_w);
    printf("ratio ggml/ours (median): %.1fx bare init, %.1fx with walk\n", med_b / med_o, med_w / med_o);
    printf("ratio ggml/ours (min):    %.1fx bare init, %.1fx with walk\n", min_b / min_o, min_w / min_o);
    printf("requirement (>= 10x vs bare init, median): %s\n", med_b / med_o >= 10.0 ? "met" : "NOT met");
    free(ours);
    free(gbare);
    free(gwalk);
    free(obare);
    return 0;
}
