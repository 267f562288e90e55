/* SPDX-License-Identifier: MIT */
/* bench_packed.c — mio_packed_matmul against ggml's own mul_mat, in one
 * process, on the same weight bytes (issue 23). ggml is driven through its
 * public graph API: ggml_init, ggml_mul_mat, ggml_new_graph, a CPU back end of
 * the same ISA level (zen4 for avx512, haswell for avx2; MIO_BENCH_PEER
 * overrides), the weights allocated from the CPU device's extra ("repack")
 * buffer type when it has one — ggml re-lays the weights out there when it has
 * a repacked kernel for the type and shape (tensor->extra set: column "gg rp"
 * says yes/no; "AMX": ggml's AMX buffer, which the sapphirerapids build
 * offers on a CPU with AMX and is preferred for its types, as llama.cpp's
 * loader does) — and ggml_backend_graph_compute with 1 thread. The prototypes
 * are declared here by hand (ggml.h / ggml-backend.h), no ggml header is used.
 *
 * For q4_0 q8_0 q4_K q6_K q5_K iq4_nl iq4_xs (or the types named), W of
 * 4096 x 4096 and 11008 x 4096, m = 1, 4, 8, 32, 128 (a prompt's batch):
 * our ms, ggml's ms, speed-up (ggml / ours), and per-row cost of one
 * mio_matvec over per-row cost of the packed call (m * matvec / packed: the
 * gain of processing m rows together). Every time is the median of RUNS after a
 * warm-up; ours and ggml alternate run by run. Then 2 threads against 1 for
 * m = 8, 32 and 128 (4096 x 4096; the 2-thread call timed after another one). Max relative difference ours vs ggml is printed
 * as a sanity check (both quantize x to the same activation type).
 * Usage: MIO_PEER_DIR=... [MIO_ISA=avx2] [MIO_BENCH_PEER=sapphirerapids] bench_packed [runs] [type ...] */
#include "modelio.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/interop/ggml_cpu_peer.h"
#include "bench_util.h"

static uint64_t g_s = 0x9E3779B97F4A7C15ull;
static float frand(void) {
    g_s ^= g_s << 13, g_s ^= g_s >> 7, g_s ^= g_s << 17;
    return (float)((double)(g_s >> 11) * 0x1.0p-53 * 2 - 1);
}

/* --- ggml's graph API (declared by hand) --- */
typedef struct gg {
    int ok;
    void *(*init)(peer_ggml_params);
    void (*free_ctx)(void *);
    void *(*new_tensor_2d)(void *ctx, int type, int64_t ne0, int64_t ne1);
    void *(*mul_mat)(void *ctx, void *a, void *b);
    void *(*new_graph)(void *ctx);
    void (*build_forward_expand)(void *graph, void *tensor);
    void *(*alloc_ctx_tensors_from_buft)(void *ctx, void *buft);
    void (*tensor_set)(void *tensor, const void *data, size_t offset, size_t size);
    void (*tensor_get)(const void *tensor, void *data, size_t offset, size_t size);
    int (*graph_compute)(void *backend, void *graph);
    void (*buffer_free)(void *buf);
    void *(*cpu_buft)(void);
    const char *(*buft_name)(void *buft);
    const char *(*get_name)(const void *tensor);
    void *(*reg_dev_get)(void *reg, size_t i);
    void *(*reg_proc)(void *reg, const char *name);
    /* from the CPU back end */
    void *(*cpu_init)(void);
    void (*cpu_set_n_threads)(void *backend, int n);
    void *(*cpu_reg)(void);
    void *backend, *extra_buft, *amx_buft; /* CPU_REPACK; AMX (sapphirerapids build on a CPU with AMX) */
} gg;

static int sym(void *h, const char *name, void *fp) {
    void *p = dlsym(h, name);
    if (!p) return 1;
    memcpy(fp, &p, sizeof p);
    return 0;
}

static int gg_load(gg *g, const peer_api *api, const peer_cpu *cpu, char *why, size_t wl) {
    void *b = api->handle, *c = cpu->handle;
    int bad = sym(b, "ggml_init", &g->init) | sym(b, "ggml_free", &g->free_ctx) |
              sym(b, "ggml_new_tensor_2d", &g->new_tensor_2d) | sym(b, "ggml_mul_mat", &g->mul_mat) |
              sym(b, "ggml_new_graph", &g->new_graph) | sym(b, "ggml_build_forward_expand", &g->build_forward_expand) |
              sym(b, "ggml_backend_alloc_ctx_tensors_from_buft", &g->alloc_ctx_tensors_from_buft) |
              sym(b, "ggml_backend_tensor_set", &g->tensor_set) | sym(b, "ggml_backend_tensor_get", &g->tensor_get) |
              sym(b, "ggml_backend_graph_compute", &g->graph_compute) |
              sym(b, "ggml_backend_buffer_free", &g->buffer_free) | sym(b, "ggml_backend_cpu_buffer_type", &g->cpu_buft) |
              sym(b, "ggml_backend_buft_name", &g->buft_name) | sym(b, "ggml_get_name", &g->get_name) |
              sym(b, "ggml_backend_reg_dev_get", &g->reg_dev_get) |
              sym(b, "ggml_backend_reg_get_proc_address", &g->reg_proc) | sym(c, "ggml_backend_cpu_init", &g->cpu_init) |
              sym(c, "ggml_backend_cpu_set_n_threads", &g->cpu_set_n_threads) | sym(c, "ggml_backend_cpu_reg", &g->cpu_reg);
    if (bad) {
        snprintf(why, wl, "the peer lacks part of ggml's graph / backend API");
        return 1;
    }
    g->backend = g->cpu_init();
    if (!g->backend) {
        snprintf(why, wl, "ggml_backend_cpu_init failed");
        return 1;
    }
    /* the CPU device's extra buffer types (NULL-terminated): the first is the repack one */
    void *reg = g->cpu_reg(), *dev = g->reg_dev_get(reg, 0);
    void **(*get_extra)(void *dev) = NULL;
    void *fp = g->reg_proc(reg, "ggml_backend_dev_get_extra_bufts");
    memcpy(&get_extra, &fp, sizeof fp);
    void **ex = get_extra ? get_extra(dev) : NULL;
    for (size_t i = 0; ex && ex[i]; i++) {
        if (strstr(g->buft_name(ex[i]), "REPACK")) g->extra_buft = ex[i];
        if (strcmp(g->buft_name(ex[i]), "AMX") == 0) g->amx_buft = ex[i];
    }
    return 0;
}

/* struct ggml_tensor: name[64] at byte 256, void *extra right after it
 * (ggml.h's layout); checked against ggml_get_name before it is read. */
static int gg_repacked(const gg *g, const void *t) {
    const char *name = g->get_name(t);
    if (name != (const char *)t + 256) return -1;
    void *extra;
    memcpy(&extra, (const char *)t + 256 + 64, sizeof extra);
    return extra != NULL;
}

typedef struct gg_w { /* ggml's copy of W */
    void *ctx, *buf, *t;
    int repacked;
} gg_w;

static int gg_w_make(gg *g, int type, const uint8_t *w, size_t wbytes, size_t rows, size_t cols, gg_w *o) {
    peer_ggml_params p = {1 << 20, NULL, true};
    o->ctx = g->init(p);
    o->t = g->new_tensor_2d(o->ctx, type, (int64_t)cols, (int64_t)rows);
    /* the repack buffer's init_tensor sets tensor->extra when ggml has a
     * repacked kernel for this type and shape; its set_tensor then re-lays the
     * weights out (and needs extra: otherwise the plain CPU buffer) */
    o->repacked = 0;
    /* the AMX buffer first for the types ggml has AMX kernels for, as llama.cpp's
     * loader prefers it (ggml-cpu/amx: q4_0 q4_1 q8_0 q4_K q5_K q6_K iq4_xs) */
    const int amx_type = type == MIO_TYPE_Q4_0 || type == MIO_TYPE_Q4_1 || type == MIO_TYPE_Q8_0 ||
                         type == MIO_TYPE_Q4_K || type == MIO_TYPE_Q5_K || type == MIO_TYPE_Q6_K ||
                         type == MIO_TYPE_IQ4_XS;
    if (g->amx_buft && amx_type) {
        o->buf = g->alloc_ctx_tensors_from_buft(o->ctx, g->amx_buft);
        if (o->buf) {
            o->repacked = 2;
            g->tensor_set(o->t, w, 0, wbytes);
            return 0;
        }
    }
    if (g->extra_buft) {
        o->buf = g->alloc_ctx_tensors_from_buft(o->ctx, g->extra_buft);
        o->repacked = o->buf ? gg_repacked(g, o->t) : 0;
        if (o->repacked != 1) { /* a fresh tensor for the plain buffer */
            if (o->buf) g->buffer_free(o->buf), o->buf = NULL;
            g->free_ctx(o->ctx);
            o->ctx = g->init(p);
            o->t = g->new_tensor_2d(o->ctx, type, (int64_t)cols, (int64_t)rows);
        }
    }
    if (!o->buf) o->buf = g->alloc_ctx_tensors_from_buft(o->ctx, g->cpu_buft());
    if (!o->buf) return 1;
    g->tensor_set(o->t, w, 0, wbytes);
    return 0;
}
static void gg_w_free(gg *g, gg_w *o) {
    g->buffer_free(o->buf);
    g->free_ctx(o->ctx);
}

typedef struct gg_mm { /* x, the product and its graph */
    void *ctx, *buf, *x, *out, *graph;
} gg_mm;
static int gg_mm_make(gg *g, gg_w *w, size_t cols, size_t m, const float *x, gg_mm *o) {
    peer_ggml_params p = {1 << 20, NULL, true};
    o->ctx = g->init(p);
    o->x = g->new_tensor_2d(o->ctx, 0 /* GGML_TYPE_F32 */, (int64_t)cols, (int64_t)m);
    o->out = g->mul_mat(o->ctx, w->t, o->x);
    o->graph = g->new_graph(o->ctx);
    g->build_forward_expand(o->graph, o->out);
    o->buf = g->alloc_ctx_tensors_from_buft(o->ctx, g->cpu_buft());
    if (!o->buf) return 1;
    g->tensor_set(o->x, x, 0, sizeof(float) * cols * m);
    return 0;
}
static void gg_mm_free(gg *g, gg_mm *o) {
    g->buffer_free(o->buf);
    g->free_ctx(o->ctx);
}

static double max_rel(const float *a, const float *b, size_t n) {
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        num += d * d, den += (double)b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    if (runs < 1 || runs > 1000) runs = 7;
    static const char *def[] = {"q4_0", "q8_0", "q4_K", "q6_K", "q5_K", "iq4_nl", "iq4_xs"};
    const char **names = argc > 2 ? (const char **)(argv + 2) : def;
    int n_names = argc > 2 ? argc - 2 : (int)(sizeof def / sizeof def[0]);

    peer_api api;
    peer_cpu cpu;
    gg g = {0};
    char why[4400] = "";
    __builtin_cpu_init();
    const char *isa = mio_cpu_isa();
    if (!isa) { printf("mio_cpu_isa: %s\n", mio_last_error()); return 1; }
    const char *variant = getenv("MIO_BENCH_PEER");
    if (!variant || !variant[0]) variant = strcmp(isa, "avx512") == 0 ? "zen4" : "haswell";
    g.ok = peer_load(&api, why, sizeof why) == 0 && __builtin_cpu_supports("avx2") &&
           peer_cpu_load(&api, variant, &cpu, why, sizeof why) == 0 && gg_load(&g, &api, &cpu, why, sizeof why) == 0;
    if (!g.ok) printf("ggml columns empty: %s\n", why[0] ? why : "CPU lacks AVX2");
    else g.cpu_set_n_threads(g.backend, 1);

    const size_t shapes[2][2] = {{4096, 4096}, {11008, 4096}};
    const size_t ms[] = {1, 4, 8, 32, 128};
    const size_t maxr = 11008, cols = 4096, maxm = 128;
    float *wf = malloc(sizeof(float) * maxr * cols), *x = malloc(sizeof(float) * maxm * cols);
    float *y = malloc(sizeof(float) * maxm * maxr), *y2 = malloc(sizeof(float) * maxm * maxr);
    uint8_t *w = malloc(maxr * cols * 2);
    double *t = malloc(sizeof(double) * (size_t)runs), *t2 = malloc(sizeof(double) * (size_t)runs);
    if (!wf || !x || !y || !y2 || !w || !t || !t2) return 1;
    for (size_t i = 0; i < maxr * cols; i++) wf[i] = frand();
    for (size_t i = 0; i < maxm * cols; i++) x[i] = frand() * 3.0f;

    printf("libmodelio %s, ggml %s (graph API, %s%s buffer); medians of %d runs after a warm-up; 1 thread\n"
           "speed-up = ggml ms / our ms; m*mv/pk = m matvec calls / one packed call of m rows\n\n",
           isa, g.ok ? variant : "-", g.ok && g.amx_buft ? "AMX + " : "",
           g.ok && g.extra_buft ? g.buft_name(g.extra_buft) : "CPU", runs);
    printf("%-5s %-11s %-20s %5s %3s | %8s %8s %7s | %8s %7s | %8s\n", "type", "rows x cols", "our layout", "gg rp",
           "m", "ours ms", "ggml ms", "speedup", "mv ms", "m*mv/pk", "rel diff");
    for (int k = 0; k < n_names; k++) {
        int type = mio_type_from_name(names[k]);
        if (type < 0 || mio_vec_dot_type(type) < 0) { printf("%-5s (no kernel)\n", names[k]); continue; }
        for (int s = 0; s < 2; s++) {
            size_t rows = shapes[s][0], wrb = cols / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type);
            if (mio_encode_f32(type, wf, rows * cols, w, wrb * rows)) { printf("encode: %s\n", mio_last_error()); return 1; }
            mio_packed *p = NULL;
            if (mio_pack_weights(type, w, rows, cols, &p)) { printf("pack: %s\n", mio_last_error()); return 1; }
            gg_w gw = {0};
            int have_gg = g.ok && gg_w_make(&g, type, w, wrb * rows, rows, cols, &gw) == 0;
            /* one matvec, the per-row baseline */
            for (int r = -1; r < runs; r++) {
                double t0 = bench_now_ms();
                mio_matvec(type, w, rows, cols, x, y, 1);
                if (r >= 0) t[r] = bench_now_ms() - t0;
            }
            double mv = bench_median(t, runs);
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                size_t m = ms[mi];
                gg_mm gm = {0};
                int have_mm = have_gg && gg_mm_make(&g, &gw, cols, m, x, &gm) == 0;
                for (int r = -1; r < runs; r++) {
                    for (int side = 0; side < 2; side++) {
                        int mine = (side ^ (r & 1)) == 0;
                        if (!mine && !have_mm) continue;
                        double t0 = bench_now_ms();
                        if (mine && mio_packed_matmul(p, x, m, y, 1)) { printf("packed: %s\n", mio_last_error()); return 1; }
                        if (!mine) g.graph_compute(g.backend, gm.graph);
                        if (r >= 0) (mine ? t : t2)[r] = bench_now_ms() - t0;
                    }
                }
                double ours = bench_median(t, runs), theirs = have_mm ? bench_median(t2, runs) : NAN, rel = NAN;
                if (have_mm) {
                    g.tensor_get(gm.out, y2, 0, sizeof(float) * rows * m);
                    rel = max_rel(y, y2, rows * m);
                    gg_mm_free(&g, &gm);
                }
                printf("%-5s %5zux%-5zu %-20s %5s %3zu | %8.3f %8.3f %7.2f | %8.3f %7.2f | %8.1e\n", names[k], rows,
                       cols, mio_packed_layout(p), !have_gg ? "-" : gw.repacked == 2 ? "AMX" : gw.repacked == 1 ? "yes" : gw.repacked == 0 ? "no" : "?",
                       m, ours, theirs, theirs / ours, mv, (double)m * mv / ours, rel);
                fflush(stdout);
            }
            /* threads: 2 against 1, 4096 x 4096 */
            if (s == 0)
                for (size_t m = 8; m <= 128; m *= 4) {
                    /* the 2-thread call timed right after another one: the pool's
                     * worker spins ~0.3 ms for the next job, then sleeps, and a
                     * wake-up after the 1-thread call would be timed instead */
                    for (int r = -1; r < runs; r++) {
                        double t0 = bench_now_ms();
                        mio_packed_matmul(p, x, m, y, 1);
                        double t1 = bench_now_ms();
                        mio_packed_matmul(p, x, m, y, 2);
                        double t2_ = bench_now_ms();
                        mio_packed_matmul(p, x, m, y, 2);
                        if (r >= 0) t[r] = t1 - t0, t2[r] = bench_now_ms() - t2_;
                    }
                    printf("%-5s %5zux%-5zu 2 threads, m = %3zu: %.3f ms vs %.3f ms (1 thread): %.2fx\n", names[k], rows,
                           cols, m, bench_median(t2, runs), bench_median(t, runs),
                           bench_median(t, runs) / bench_median(t2, runs));
                }
            if (have_gg) gg_w_free(&g, &gw);
            mio_packed_free(p);
        }
    }
    free(wf), free(x), free(y), free(y2), free(w), free(t), free(t2);
    return 0;
}
