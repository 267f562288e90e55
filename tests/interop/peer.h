/* SPDX-License-Identifier: MIT */
/* peer.h — loads the reference ggml library (libggml-base.so from the npm package
 * @node-llama-cpp/linux-x64, fetched by scripts/fetch-ggml-peer.sh) with dlopen and
 * resolves the gguf_* / ggml_* entry points the interop tests and the benchmark call.
 * The prototypes are declared here by hand from ggml's documented API; no ggml
 * header or code is used. Also a small seeded PRNG shared by the interop tests. */
#ifndef MIO_INTEROP_PEER_H
#define MIO_INTEROP_PEER_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MIO_PEER_DIR_DEFAULT
#define MIO_PEER_DIR_DEFAULT ""
#endif

/* struct gguf_init_params { bool no_alloc; struct ggml_context **ctx; } */
typedef struct peer_gguf_params {
    bool no_alloc;
    void **ctx;
} peer_gguf_params;

/* struct ggml_init_params { size_t mem_size; void *mem_buffer; bool no_alloc; } */
typedef struct peer_ggml_params {
    size_t mem_size;
    void *mem_buffer;
    bool no_alloc;
} peer_ggml_params;

/* ggml_bf16_t is a struct wrapping the 16 bits (matters for the calling convention). */
typedef struct peer_bf16 {
    uint16_t bits;
} peer_bf16;

/* Enums (gguf_type, ggml_type) are passed as int: same size and ABI on x86-64. */
typedef struct peer_api {
    void *handle;
    char path[4096];

    /* gguf: contexts */
    void *(*gguf_init_empty)(void);
    void *(*gguf_init_from_file)(const char *fname, peer_gguf_params params);
    void (*gguf_free)(void *ctx);
    /* gguf: reading */
    uint32_t (*gguf_get_version)(const void *ctx);
    size_t (*gguf_get_alignment)(const void *ctx);
    size_t (*gguf_get_data_offset)(const void *ctx);
    int64_t (*gguf_get_n_kv)(const void *ctx);
    int64_t (*gguf_find_key)(const void *ctx, const char *key);
    const char *(*gguf_get_key)(const void *ctx, int64_t id);
    int (*gguf_get_kv_type)(const void *ctx, int64_t id);
    int (*gguf_get_arr_type)(const void *ctx, int64_t id);
    uint8_t (*gguf_get_val_u8)(const void *ctx, int64_t id);
    int8_t (*gguf_get_val_i8)(const void *ctx, int64_t id);
    uint16_t (*gguf_get_val_u16)(const void *ctx, int64_t id);
    int16_t (*gguf_get_val_i16)(const void *ctx, int64_t id);
    uint32_t (*gguf_get_val_u32)(const void *ctx, int64_t id);
    int32_t (*gguf_get_val_i32)(const void *ctx, int64_t id);
    float (*gguf_get_val_f32)(const void *ctx, int64_t id);
    uint64_t (*gguf_get_val_u64)(const void *ctx, int64_t id);
    int64_t (*gguf_get_val_i64)(const void *ctx, int64_t id);
    double (*gguf_get_val_f64)(const void *ctx, int64_t id);
    bool (*gguf_get_val_bool)(const void *ctx, int64_t id);
    const char *(*gguf_get_val_str)(const void *ctx, int64_t id);
    size_t (*gguf_get_arr_n)(const void *ctx, int64_t id);
    const void *(*gguf_get_arr_data)(const void *ctx, int64_t id);
    const char *(*gguf_get_arr_str)(const void *ctx, int64_t id, size_t i);
    int64_t (*gguf_get_n_tensors)(const void *ctx);
    int64_t (*gguf_find_tensor)(const void *ctx, const char *name);
    size_t (*gguf_get_tensor_offset)(const void *ctx, int64_t id);
    const char *(*gguf_get_tensor_name)(const void *ctx, int64_t id);
    int (*gguf_get_tensor_type)(const void *ctx, int64_t id);
    size_t (*gguf_get_tensor_size)(const void *ctx, int64_t id);
    const int64_t *(*gguf_get_tensor_ne)(const void *ctx, int64_t id); /* optional (newer ggml) */
    /* gguf: writing */
    void (*gguf_set_val_u8)(void *ctx, const char *key, uint8_t v);
    void (*gguf_set_val_i8)(void *ctx, const char *key, int8_t v);
    void (*gguf_set_val_u16)(void *ctx, const char *key, uint16_t v);
    void (*gguf_set_val_i16)(void *ctx, const char *key, int16_t v);
    void (*gguf_set_val_u32)(void *ctx, const char *key, uint32_t v);
    void (*gguf_set_val_i32)(void *ctx, const char *key, int32_t v);
    void (*gguf_set_val_f32)(void *ctx, const char *key, float v);
    void (*gguf_set_val_u64)(void *ctx, const char *key, uint64_t v);
    void (*gguf_set_val_i64)(void *ctx, const char *key, int64_t v);
    void (*gguf_set_val_f64)(void *ctx, const char *key, double v);
    void (*gguf_set_val_bool)(void *ctx, const char *key, bool v);
    void (*gguf_set_val_str)(void *ctx, const char *key, const char *v);
    void (*gguf_set_arr_data)(void *ctx, const char *key, int type, const void *data, size_t n);
    void (*gguf_set_arr_str)(void *ctx, const char *key, const char **data, size_t n);
    void (*gguf_add_tensor)(void *ctx, const void *tensor);
    void (*gguf_set_tensor_data)(void *ctx, const char *name, const void *data);
    bool (*gguf_write_to_file)(const void *ctx, const char *fname, bool only_meta);
    /* ggml */
    void *(*ggml_init)(peer_ggml_params params);
    void (*ggml_free)(void *ctx);
    void *(*ggml_new_tensor)(void *ctx, int type, int n_dims, const int64_t *ne);
    void *(*ggml_set_name)(void *tensor, const char *name);
    size_t (*ggml_tensor_overhead)(void);
    const char *(*ggml_type_name)(int type);
    int64_t (*ggml_blck_size)(int type);
    size_t (*ggml_type_size)(int type);
    float (*ggml_fp16_to_fp32)(uint16_t h);
    uint16_t (*ggml_fp32_to_fp16)(float f);
    peer_bf16 (*ggml_fp32_to_bf16)(float f);
    float (*ggml_bf16_to_fp32)(peer_bf16 h);
} peer_api;

typedef struct peer_sym {
    const char *name;
    size_t off;
    int required;
} peer_sym;

#define PEER_SYM(n) { #n, offsetof(peer_api, n), 1 }
#define PEER_OPT(n) { #n, offsetof(peer_api, n), 0 }

/* Returns 0 when loaded; 1 when the peer is absent (skip: why says so); -1 when
 * the library loaded but lacks a required symbol (a real failure). */
static inline int peer_load(peer_api *api, char *why, size_t why_len) {
    static const peer_sym syms[] = {
        PEER_SYM(gguf_init_empty), PEER_SYM(gguf_init_from_file), PEER_SYM(gguf_free),
        PEER_SYM(gguf_get_version), PEER_SYM(gguf_get_alignment), PEER_SYM(gguf_get_data_offset),
        PEER_SYM(gguf_get_n_kv), PEER_SYM(gguf_find_key), PEER_SYM(gguf_get_key),
        PEER_SYM(gguf_get_kv_type), PEER_SYM(gguf_get_arr_type),
        PEER_SYM(gguf_get_val_u8), PEER_SYM(gguf_get_val_i8), PEER_SYM(gguf_get_val_u16),
        PEER_SYM(gguf_get_val_i16), PEER_SYM(gguf_get_val_u32), PEER_SYM(gguf_get_val_i32),
        PEER_SYM(gguf_get_val_f32), PEER_SYM(gguf_get_val_u64), PEER_SYM(gguf_get_val_i64),
        PEER_SYM(gguf_get_val_f64), PEER_SYM(gguf_get_val_bool), PEER_SYM(gguf_get_val_str),
        PEER_SYM(gguf_get_arr_n), PEER_SYM(gguf_get_arr_data), PEER_SYM(gguf_get_arr_str),
        PEER_SYM(gguf_get_n_tensors), PEER_SYM(gguf_find_tensor), PEER_SYM(gguf_get_tensor_offset),
        PEER_SYM(gguf_get_tensor_name), PEER_SYM(gguf_get_tensor_type), PEER_SYM(gguf_get_tensor_size),
        PEER_OPT(gguf_get_tensor_ne),
        PEER_SYM(gguf_set_val_u8), PEER_SYM(gguf_set_val_i8), PEER_SYM(gguf_set_val_u16),
        PEER_SYM(gguf_set_val_i16), PEER_SYM(gguf_set_val_u32), PEER_SYM(gguf_set_val_i32),
        PEER_SYM(gguf_set_val_f32), PEER_SYM(gguf_set_val_u64), PEER_SYM(gguf_set_val_i64),
        PEER_SYM(gguf_set_val_f64), PEER_SYM(gguf_set_val_bool), PEER_SYM(gguf_set_val_str),
        PEER_SYM(gguf_set_arr_data), PEER_SYM(gguf_set_arr_str), PEER_SYM(gguf_add_tensor),
        PEER_SYM(gguf_set_tensor_data), PEER_SYM(gguf_write_to_file),
        PEER_SYM(ggml_init), PEER_SYM(ggml_free), PEER_SYM(ggml_new_tensor), PEER_SYM(ggml_set_name),
        PEER_SYM(ggml_tensor_overhead), PEER_SYM(ggml_type_name), PEER_SYM(ggml_blck_size),
        PEER_SYM(ggml_type_size), PEER_SYM(ggml_fp16_to_fp32), PEER_SYM(ggml_fp32_to_fp16),
        PEER_SYM(ggml_fp32_to_bf16), PEER_SYM(ggml_bf16_to_fp32),
    };
    memset(api, 0, sizeof *api);
    const char *dir = getenv("MIO_PEER_DIR");
    if (!dir || !*dir) dir = MIO_PEER_DIR_DEFAULT;
    if (!dir || !*dir) {
        snprintf(why, why_len,
                 "ggml peer not configured: run scripts/fetch-ggml-peer.sh and set MIO_PEER_DIR "
                 "(environment, or -DMIO_PEER_DIR=... at configure time) to the directory it prints");
        return 1;
    }
    snprintf(api->path, sizeof api->path, "%s/libggml-base.so", dir);
    if (access(api->path, R_OK) != 0) {
        snprintf(why, why_len, "ggml peer absent: %s not found (MIO_PEER_DIR=%s)", api->path, dir);
        return 1;
    }
    api->handle = dlopen(api->path, RTLD_NOW | RTLD_LOCAL);
    if (!api->handle) {
        const char *e = dlerror();
        snprintf(why, why_len, "ggml peer unusable: dlopen(%s): %s", api->path, e ? e : "?");
        return 1;
    }
    for (size_t k = 0; k < sizeof syms / sizeof syms[0]; k++) {
        void *sym = dlsym(api->handle, syms[k].name);
        if (!sym && syms[k].required) {
            snprintf(why, why_len, "%s lacks the symbol %s", api->path, syms[k].name);
            return -1;
        }
        /* object pointer -> function pointer without the ISO C cast warning */
        memcpy((char *)api + syms[k].off, &sym, sizeof sym);
    }
    return 0;
}

/* llama.cpp's own libraries beside api->path (libggml.v0.5.0.so, then
 * libllama.v0.5.0.so, both RTLD_GLOBAL so libllama finds ggml). Returns 0 with
 * the handles and their directory in dir (4096 bytes, for the CPU back ends),
 * or 1 with why (the peer package lacks them: skip). */
static inline int peer_llama_open(const peer_api *api, char dir[4096], void **ggml, void **llama, char *why,
                                  size_t why_len) {
    char path[4200];
    snprintf(dir, 4096, "%s", api->path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    snprintf(path, sizeof path, "%s/libggml.v0.5.0.so", dir);
    *ggml = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!*ggml) { snprintf(why, why_len, "llama.cpp peer absent: dlopen(%s): %s", path, dlerror()); return 1; }
    snprintf(path, sizeof path, "%s/libllama.v0.5.0.so", dir);
    *llama = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!*llama) { snprintf(why, why_len, "llama.cpp peer absent: dlopen(%s): %s", path, dlerror()); return 1; }
    return 0;
}

/* llama.cpp is chatty on stderr: llama_log_set(peer_quiet_log, NULL) keeps its
 * last lines in a ring, and peer_dump_log shows them when something failed.
 * peer_log_count() only grows: compare it before/after a call. */
#define PEER_LOG_LINES 32
static inline char (*peer_log_ring(void))[320] {
    static char ring[PEER_LOG_LINES][320];
    return ring;
}
static inline unsigned *peer_log_count(void) {
    static unsigned n;
    return &n;
}
static inline void peer_quiet_log(int level, const char *text, void *user) {
    (void)level;
    (void)user;
    unsigned *n = peer_log_count();
    snprintf(peer_log_ring()[(*n)++ % PEER_LOG_LINES], 320, "%s", text ? text : "");
}
static inline void peer_dump_log(void) {
    unsigned n = *peer_log_count();
    for (unsigned k = n > PEER_LOG_LINES ? n - PEER_LOG_LINES : 0; k < n; k++)
        fprintf(stderr, "  llama: %s", peer_log_ring()[k % PEER_LOG_LINES]);
}

/* peer_llama_open, then what every user of libllama does first: its log into
 * the ring above (peer_quiet_log), the CPU back ends of dir loaded, the back end
 * initialised. 0 when ready; 1 when absent (skip, why says so); -1 when a
 * library lacks one of those entry points. */
static inline int peer_llama_start(const peer_api *api, char dir[4096], void **ggml, void **llama, char *why,
                                   size_t why_len) {
    int rc = peer_llama_open(api, dir, ggml, llama, why, why_len);
    if (rc) return rc;
    void *load_all = dlsym(*ggml, "ggml_backend_load_all_from_path"), *init = dlsym(*llama, "llama_backend_init"),
         *log_set = dlsym(*llama, "llama_log_set");
    if (!load_all || !init || !log_set) {
        snprintf(why, why_len, "llama.cpp peer in %s lacks ggml_backend_load_all_from_path, llama_backend_init or "
                 "llama_log_set", dir);
        return -1;
    }
    void (*f_log_set)(void (*)(int, const char *, void *), void *);
    void (*f_load_all)(const char *);
    void (*f_init)(void);
    memcpy(&f_log_set, &log_set, sizeof log_set);
    memcpy(&f_load_all, &load_all, sizeof load_all);
    memcpy(&f_init, &init, sizeof init);
    f_log_set(peer_quiet_log, NULL);
    /* One CPU back end for every machine that can run it: ggml's Haswell build
     * (AVX2, FMA, F16C, BMI2). load_all would pick the best variant of this
     * CPU (zen4, sapphirerapids, ...), whose kernels round differently, and
     * recorded logits (tests/data/hf/reference.json) would then depend on the
     * machine that runs the tests. MIO_PEER_CPU=best keeps ggml's choice. */
    void *load_one = dlsym(*ggml, "ggml_backend_load");
    char one[4200];
    snprintf(one, sizeof one, "%s/libggml-cpu-haswell.so", dir);
    const char *pick = getenv("MIO_PEER_CPU");
    int haswell = load_one && access(one, R_OK) == 0 && !(pick && strcmp(pick, "best") == 0);
#if defined(__x86_64__) && defined(__GNUC__)
    haswell = haswell && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
              __builtin_cpu_supports("bmi2"); /* F16C comes with every AVX2 CPU */
#else
    haswell = 0;
#endif
    if (haswell) {
        void *(*f_load_one)(const char *);
        memcpy(&f_load_one, &load_one, sizeof load_one);
        if (!f_load_one(one)) f_load_all(dir);
    } else {
        f_load_all(dir);
    }
    f_init();
    return 0;
}

/* ---- PRNG: splitmix64 seeding + xoshiro256** ---- */
typedef struct peer_rng {
    uint64_t s[4];
} peer_rng;

static inline uint64_t peer_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void peer_rng_seed(peer_rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = peer_splitmix(&seed);
}

static inline uint64_t peer_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t peer_next(peer_rng *r) {
    uint64_t *s = r->s;
    const uint64_t result = peer_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = peer_rotl(s[3], 45);
    return result;
}

/* uniform in [0, n) (n > 0; the tiny modulo bias does not matter here) */
static inline uint64_t peer_below(peer_rng *r, uint64_t n) { return peer_next(r) % n; }

static inline void peer_fill(peer_rng *r, void *dst, size_t n) {
    unsigned char *p = (unsigned char *)dst;
    while (n) {
        uint64_t v = peer_next(r);
        size_t k = n < 8 ? n : 8;
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
}

/* Fresh seed each run (time ^ pid), or MIO_SEED from the environment; printed. */
static inline uint64_t peer_seed(const char *test_name) {
    uint64_t seed;
    const char *env = getenv("MIO_SEED");
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
        seed = peer_splitmix(&x);
    }
    printf("%s: seed=%llu (reproduce with MIO_SEED=%llu)\n", test_name, (unsigned long long)seed,
           (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

#endif
