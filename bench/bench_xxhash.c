/* SPDX-License-Identifier: MIT */
/* bench_xxhash.c — the library's XXH3-64 / XXH64 (src/core/xxhash.c) against the
 * system's libxxhash.so.0 (dlopen; the runtime package libxxhash0, which every
 * Debian machine has, without the -dev headers: the prototypes are declared
 * here). Long input: one buffer of pseudo-random bytes (default 256 MiB),
 * one-shot XXH3 and XXH64, and XXH3 through a streaming state (ours: the
 * public mio_hash_bytes, what mio-inspect --hash runs per 4 MiB read; the
 * peer: XXH3_createState / _update / _digest), GB/s. Short names: 10^6
 * tensor names of 9..45 bytes ("blk.17.ffn_down.weight", ...) hashed one by
 * one with XXH3 (the name hash's hot path), ns per name. Medians of several
 * runs, ours and the peer interleaved; each row ends with ours/peer (speed:
 * above 1 is faster) and whether the values agree.
 * Our one-shot functions are internal (not exported by libmodelio.so): this
 * program links the modelio_internal archive and declares them below.
 * Usage: bench_xxhash [MiB] [runs]   (default 256 MiB, 7 runs). Exit 77 without the peer. */
#include "modelio_inspect.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/* from src/core/xxhash.h, which a bench may not include (docs/ARCHITECTURE.md) */
uint64_t mio_xxh64(const void *p, size_t len, uint64_t seed);
uint64_t mio_xxh3_64(const void *p, size_t len);

/* libxxhash's (xxhash.h, XXH_VERSION 0.8): XXH64_hash_t is unsigned long long */
static struct {
    uint64_t (*xxh64)(const void *, size_t, uint64_t);
    uint64_t (*xxh3)(const void *, size_t);
    void *(*create)(void);
    int (*free_state)(void *);
    int (*reset)(void *);
    int (*update)(void *, const void *, size_t);
    uint64_t (*digest)(const void *);
} P;

enum { NAMES = 1000000 };

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* the digest mio_hash_bytes gives is the canonical (big-endian) form */
static uint64_t ours_stream(const uint8_t *p, size_t n) {
    unsigned char d[8];
    if (mio_hash_bytes(MIO_HASH_XXH3, p, n, d) != MIO_OK) return 0;
    uint64_t h = 0;
    for (int i = 0; i < 8; i++) h = h << 8 | d[i];
    return h;
}
static uint64_t peer_stream(const uint8_t *p, size_t n) {
    void *s = P.create();
    if (!s) return 0;
    P.reset(s);
    P.update(s, p, n);
    uint64_t h = P.digest(s);
    P.free_state(s);
    return h;
}

/* the names: a buffer and each one's offset and length */
static char *g_names;
static uint32_t g_off[NAMES];
static uint8_t g_len[NAMES];

static uint64_t ours_names(void) {
    uint64_t x = 0;
    for (int i = 0; i < NAMES; i++) x ^= mio_xxh3_64(g_names + g_off[i], g_len[i]);
    return x;
}
static uint64_t peer_names(void) {
    uint64_t x = 0;
    for (int i = 0; i < NAMES; i++) x ^= P.xxh3(g_names + g_off[i], g_len[i]);
    return x;
}

static void make_names(void) {
    static const char *const PARTS[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
                                        "ffn_down", "attn_norm", "ffn_norm", "ffn_gate_exps", "attn_q_norm"};
    static const char *const LONG[] = {"model.layers.%d.self_attn.q_proj.weight", "model.layers.%d.mlp.down_proj.weight"};
    g_names = malloc((size_t)NAMES * 48);
    size_t at = 0;
    for (int i = 0; i < NAMES; i++) {
        int layer = (int)(rnd() % 1000), n;
        if (i % 4 == 3)
            n = snprintf(g_names + at, 48, LONG[i & 4 ? 1 : 0], layer);
        else
            n = snprintf(g_names + at, 48, "blk.%d.%s.weight", layer, PARTS[rnd() % 11]);
        g_off[i] = (uint32_t)at, g_len[i] = (uint8_t)n;
        at += (size_t)n;
    }
}

typedef uint64_t (*long_fn)(const uint8_t *, size_t);
static uint64_t ours_x3(const uint8_t *p, size_t n) { return mio_xxh3_64(p, n); }
static uint64_t peer_x3(const uint8_t *p, size_t n) { return P.xxh3(p, n); }
static uint64_t ours_x64(const uint8_t *p, size_t n) { return mio_xxh64(p, n, 0); }
static uint64_t peer_x64(const uint8_t *p, size_t n) { return P.xxh64(p, n, 0); }

static void row_long(const char *what, long_fn ours, long_fn peer, const uint8_t *buf, size_t n, int runs) {
    double to[64], tp[64];
    uint64_t ho = ours(buf, n), hp = peer(buf, n); /* warm up */
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ms();
        ho = ours(buf, n);
        double t1 = bench_now_ms();
        hp = peer(buf, n);
        double t2 = bench_now_ms();
        to[r] = t1 - t0, tp[r] = t2 - t1;
    }
    double go = (double)n / 1e6 / bench_median(to, runs), gp = (double)n / 1e6 / bench_median(tp, runs);
    printf("%-28s %9.2f %9.2f %7.2f  %s\n", what, go, gp, go / gp, ho == hp ? "same" : "DIFFERENT");
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    if (!mib || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: bench_xxhash [MiB] [runs 1..64]\n");
        return 2;
    }
    void *lib = dlopen("libxxhash.so.0", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        *(void **)&P.xxh64 = dlsym(lib, "XXH64");
        *(void **)&P.xxh3 = dlsym(lib, "XXH3_64bits");
        *(void **)&P.create = dlsym(lib, "XXH3_createState");
        *(void **)&P.free_state = dlsym(lib, "XXH3_freeState");
        *(void **)&P.reset = dlsym(lib, "XXH3_64bits_reset");
        *(void **)&P.update = dlsym(lib, "XXH3_64bits_update");
        *(void **)&P.digest = dlsym(lib, "XXH3_64bits_digest");
    }
    if (!P.xxh64 || !P.xxh3 || !P.create || !P.free_state || !P.reset || !P.update || !P.digest) {
        printf("SKIP: libxxhash.so.0 (Debian package libxxhash0) cannot be loaded\n");
        return 77;
    }
    size_t n = mib << 20;
    uint8_t *buf = malloc(n);
    if (!buf) return 1;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t v = rnd();
        memcpy(buf + i, &v, 8);
    }
    make_names();

    printf("%zu MiB, median of %d runs (GB/s = 10^9 bytes/s)\n", mib, runs);
    printf("%-28s %9s %9s %7s\n", "", "ours", "libxxhash", "ratio");
    row_long("XXH3 one-shot, GB/s", ours_x3, peer_x3, buf, n, runs);
    row_long("XXH3 streaming state, GB/s", ours_stream, peer_stream, buf, n, runs);
    row_long("XXH64 one-shot, GB/s", ours_x64, peer_x64, buf, n, runs);

    double to[64], tp[64];
    uint64_t ho = ours_names(), hp = peer_names();
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ms();
        ho = ours_names();
        double t1 = bench_now_ms();
        hp = peer_names();
        double t2 = bench_now_ms();
        to[r] = t1 - t0, tp[r] = t2 - t1;
    }
    double no = bench_median(to, runs) * 1e6 / NAMES, np = bench_median(tp, runs) * 1e6 / NAMES;
    printf("%-28s %9.2f %9.2f %7.2f  %s\n", "XXH3 10^6 names, ns/name", no, np, np / no, ho == hp ? "same" : "DIFFERENT");
    free(buf);
    free(g_names);
    dlclose(lib);
    return 0;
}
