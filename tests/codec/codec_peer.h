/* SPDX-License-Identifier: MIT */
/* codec_peer.h — what the codec tests need from the reference ggml library
 * (libggml-base.so from @node-llama-cpp/linux-x64, found through $MIO_PEER_DIR
 * or the configured default) plus deterministic adversarial inputs. Prototypes
 * are declared here by hand; no ggml header or code is used.
 *   peer_codec_load()            1 if the peer is available (else prints why)
 *   peer_quantize(...)           ggml_quantize_chunk
 *   peer_to_float(type)          ggml_get_type_traits(type)->to_float (may be NULL)
 *   fill_input(kind, seed, x, n) one of CODEC_INPUT_KINDS adversarial patterns */
#ifndef MIO_CODEC_PEER_H
#define MIO_CODEC_PEER_H

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef MIO_PEER_DIR_DEFAULT
#define MIO_PEER_DIR_DEFAULT ""
#endif

typedef void (*peer_to_float_fn)(const void *x, float *y, int64_t n);
typedef void (*peer_from_float_fn)(const float *x, void *y, int64_t n);
/* struct ggml_type_traits, as laid out by ggml (checked against ggml_type_name in tests) */
typedef struct peer_type_traits {
    const char *type_name;
    int64_t blck_size;
    int64_t blck_size_interleave;
    size_t type_size;
    bool is_quantized;
    peer_to_float_fn to_float;
    peer_from_float_fn from_float_ref;
} peer_type_traits;

static struct {
    void *h;
    size_t (*quantize_chunk)(int type, const float *src, void *dst, int64_t start, int64_t nrows, int64_t n_per_row,
                             const float *imatrix);
    const peer_type_traits *(*traits)(int type);
    void (*quantize_init)(int type);
    bool (*requires_imatrix)(int type);
} g_peer;

static inline int peer_codec_load(void) {
    if (g_peer.h) return 1;
    const char *dir = getenv("MIO_PEER_DIR");
    if (!dir || !*dir) dir = MIO_PEER_DIR_DEFAULT;
    if (!dir || !*dir) { printf("ggml peer absent: set MIO_PEER_DIR (scripts/fetch-ggml-peer.sh prints it)\n"); return 0; }
    char path[4096];
    snprintf(path, sizeof path, "%s/libggml-base.so", dir);
    g_peer.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!g_peer.h) { printf("ggml peer absent: %s\n", dlerror()); return 0; }
    *(void **)&g_peer.quantize_chunk = dlsym(g_peer.h, "ggml_quantize_chunk");
    *(void **)&g_peer.traits = dlsym(g_peer.h, "ggml_get_type_traits");
    *(void **)&g_peer.quantize_init = dlsym(g_peer.h, "ggml_quantize_init");
    *(void **)&g_peer.requires_imatrix = dlsym(g_peer.h, "ggml_quantize_requires_imatrix");
    if (!g_peer.quantize_chunk || !g_peer.traits || !g_peer.quantize_init) {
        printf("ggml peer incomplete: missing symbols in %s\n", path);
        g_peer.h = NULL;
        return 0;
    }
    return 1;
}

static inline size_t peer_quantize(int type, const float *src, void *dst, int64_t nrows, int64_t n_per_row, const float *imatrix) {
    g_peer.quantize_init(type);
    return g_peer.quantize_chunk(type, src, dst, 0, nrows, n_per_row, imatrix);
}

static inline peer_to_float_fn peer_to_float(int type) {
    const peer_type_traits *t = g_peer.traits(type);
    return t ? t->to_float : NULL;
}

/* --- deterministic PRNG (splitmix64) --- */
static inline uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline float rng_unit(uint64_t *s) { return (float)((double)(rng_next(s) >> 40) * (1.0 / 16777216.0)); } /* [0,1) */
static inline float rng_gauss(uint64_t *s) {
    float u = rng_unit(s), v = rng_unit(s);
    if (u < 1e-7f) u = 1e-7f;
    return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

/* Fresh seed per run unless MIO_SEED is set; printed so a failure can be replayed. */
static inline uint64_t test_seed(void) {
    const char *e = getenv("MIO_SEED");
    uint64_t s = e ? strtoull(e, NULL, 0) : ((uint64_t)time(NULL) ^ ((uint64_t)clock() << 20));
    printf("seed: %llu (replay with MIO_SEED=%llu)\n", (unsigned long long)s, (unsigned long long)s);
    return s;
}

enum {
    IN_GAUSS, IN_RAMP, IN_ALTERNATING, IN_NEAR_ZERO, IN_DENORMALS, IN_ALL_EQUAL, IN_ZEROS, IN_OUTLIER,
    IN_F16_MAX, IN_WIDE_RANGE, IN_HEAVY_TAILS, IN_UNIFORM, CODEC_INPUT_KINDS
};
__attribute__((unused)) static const char *const input_kind_name[CODEC_INPUT_KINDS] = {
    "gaussian", "ramp", "alternating-sign", "near-zero", "denormals", "all-equal", "zeros", "outlier-per-block",
    "near-f16-max", "wide-dynamic-range", "heavy-tails", "uniform"};

/* Fill n floats of the given kind; block is the type's block size (outliers). */
static inline void fill_input(int kind, uint64_t seed, float *x, int64_t n, int64_t block) {
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        float v;
        switch (kind) {
        case IN_RAMP: v = (float)(i % 512) / 256.0f - 1.0f; break;
        case IN_ALTERNATING: v = (i & 1 ? -1.0f : 1.0f) * (0.5f + rng_unit(&s)); break;
        case IN_NEAR_ZERO: v = rng_gauss(&s) * 1e-6f; break;
        case IN_DENORMALS: v = rng_gauss(&s) * 1e-39f; break;
        case IN_ALL_EQUAL: v = 0.3f; break;
        case IN_ZEROS: v = 0.0f; break;
        case IN_OUTLIER: v = (i % (block > 1 ? block : 32)) == (int64_t)(seed % 7) ? 1000.0f * (rng_unit(&s) + 0.5f) : rng_gauss(&s); break;
        case IN_F16_MAX: v = (rng_unit(&s) * 2.0f - 1.0f) * 65504.0f; break;
        case IN_WIDE_RANGE: v = rng_gauss(&s) * powf(10.0f, (float)((int)(rng_next(&s) % 13) - 6)); break;
        case IN_HEAVY_TAILS: { float g = rng_gauss(&s); v = g * g * g * (rng_unit(&s) < 0.01f ? 50.0f : 1.0f); break; }
        case IN_UNIFORM: v = rng_unit(&s) * 2.0f - 1.0f; break;
        default: v = rng_gauss(&s); break;
        }
        x[i] = v;
    }
}

/* First differing byte, or -1. */
static inline int64_t first_diff(const void *a, const void *b, size_t n) {
    const uint8_t *p = a, *q = b;
    for (size_t i = 0; i < n; i++)
        if (p[i] != q[i]) return (int64_t)i;
    return -1;
}

/* Bitwise float comparison treating any NaN as equal to any NaN with the same bits. */
static inline int64_t first_float_diff(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        memcpy(&x, a + i, 4);
        memcpy(&y, b + i, 4);
        if (x != y) return (int64_t)i;
    }
    return -1;
}

#endif
