/* SPDX-License-Identifier: MIT */
/* ggml_cpu_peer.h — ggml's CPU back end from the peer package (a
 * libggml-cpu-<variant>.so next to libggml-base.so, loaded after it) for the dot
 * product cross-checks (tests/interop/interop_dot.c) and bench/bench_matvec.c.
 * The struct below is declared by hand from ggml-cpu.h's
 *   struct ggml_type_traits_cpu { ggml_from_float_t from_float; ggml_vec_dot_t vec_dot;
 *                                 enum ggml_type vec_dot_type; int64_t nrows; };
 * with vec_dot(n, s, bs, x, bx, y, by, nrc) and from_float(x, y, k). */
#ifndef MIO_GGML_CPU_PEER_H
#define MIO_GGML_CPU_PEER_H

#include "peer.h"

typedef void (*peer_from_float_fn)(const float *x, void *y, int64_t k);
typedef void (*peer_vec_dot_fn)(int n, float *s, size_t bs, const void *x, size_t bx, const void *y, size_t by,
                                int nrc);
typedef struct peer_type_traits_cpu {
    peer_from_float_fn from_float;
    peer_vec_dot_fn vec_dot;
    int vec_dot_type;
    int64_t nrows;
} peer_type_traits_cpu;

typedef struct peer_cpu {
    void *handle;
    const peer_type_traits_cpu *(*traits)(int type);
} peer_cpu;

/* The arm64 package (@node-llama-cpp/linux-arm64) names its CPU back ends
 * libggml-cpu-armv<arch>_<n>.so; armv8.2_1 is the AdvSIMD + dotprod build (no
 * SVE, no i8mm): the level of libmodelio's neon back end. */
#define PEER_CPU_ARM64_DOTPROD "armv8.2_1"

/* 0 when loaded (ggml_cpu_init called); 1 when absent (why says so). variant:
 * "haswell", "zen4", "armv8.2_1" ... Needs peer_load(api) first. */
static inline int peer_cpu_load(const peer_api *api, const char *variant, peer_cpu *cpu, char *why, size_t why_len) {
    char path[4200];
    snprintf(path, sizeof path, "%s", api->path);
    char *slash = strrchr(path, '/');
    if (slash) *slash = 0;
    size_t len = strlen(path);
    snprintf(path + len, sizeof path - len, "/libggml-cpu-%s.so", variant);
    /* ggml-cpu needs ggml-base's symbols: make them global first */
    if (!dlopen(api->path, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD)) {
        snprintf(why, why_len, "could not re-open %s globally", api->path);
        return 1;
    }
    cpu->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!cpu->handle) {
        snprintf(why, why_len, "ggml CPU back end absent: dlopen(%s): %s", path, dlerror());
        return 1;
    }
    void *init = dlsym(cpu->handle, "ggml_cpu_init"), *tr = dlsym(cpu->handle, "ggml_get_type_traits_cpu");
    if (!init || !tr) {
        snprintf(why, why_len, "%s lacks ggml_cpu_init or ggml_get_type_traits_cpu", path);
        return 1;
    }
    void (*f_init)(void);
    memcpy(&f_init, &init, sizeof init);
    memcpy(&cpu->traits, &tr, sizeof tr);
    f_init();
    return 0;
}

#endif
