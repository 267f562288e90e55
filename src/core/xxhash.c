/* SPDX-License-Identifier: MIT */
/* xxhash.c — XXH64 and XXH3-64 (default secret, seed 0), written from the
 * public algorithm specification (xxHash's doc/xxhash_spec.md: "XXH64
 * Algorithm Description" and the XXH3 sections); the section names below are
 * the spec's. The streaming design is ours: see mio_xxh3_update.
 *
 * XXH3's long-input loop (the "accumulate" step) has a portable version and an
 * SSE2 one (x86-64's baseline, so no runtime dispatch); both give the same
 * values, and docs/BENCHMARKS.md has what each measures. */
#include "core/xxhash.h"

#include "core/unaligned.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define P32_1 0x9E3779B1u
#define P32_2 0x85EBCA77u
#define P32_3 0xC2B2AE3Du
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull
#define PMX_1 0x165667919E3779F9ull
#define PMX_2 0x9FB21C651E98DF25ull

static inline uint64_t rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }

/* ------------------------------------------------------------------------- */
/* XXH64                                                                      */
/* ------------------------------------------------------------------------- */

/* round(acc, lane) */
static inline uint64_t x64_round(uint64_t acc, uint64_t lane) { return rotl64(acc + lane * P64_2, 31) * P64_1; }
/* mergeAccumulator(acc, accN) */
static inline uint64_t x64_merge(uint64_t acc, uint64_t v) { return (acc ^ x64_round(0, v)) * P64_1 + P64_4; }

static inline void x64_init_acc(uint64_t v[4], uint64_t seed) {
    v[0] = seed + P64_1 + P64_2;
    v[1] = seed + P64_2;
    v[2] = seed;
    v[3] = seed - P64_1;
}

/* Step 2 over n / 32 stripes; returns the bytes consumed */
static size_t x64_stripes(uint64_t v[4], const unsigned char *p, size_t n) {
    uint64_t a = v[0], b = v[1], c = v[2], d = v[3];
    size_t done = 0;
    for (; n - done >= 32; done += 32) {
        a = x64_round(a, ld64(p + done));
        b = x64_round(b, ld64(p + done + 8));
        c = x64_round(c, ld64(p + done + 16));
        d = x64_round(d, ld64(p + done + 24));
    }
    v[0] = a, v[1] = b, v[2] = c, v[3] = d;
    return done;
}

/* Step 3 (convergence) */
static uint64_t x64_converge(const uint64_t v[4]) {
    uint64_t h = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18);
    for (int i = 0; i < 4; i++) h = x64_merge(h, v[i]);
    return h;
}

/* Steps 5 and 6: the last n < 32 bytes, then the avalanche */
static uint64_t x64_finish(uint64_t h, const unsigned char *p, size_t n) {
    for (; n >= 8; p += 8, n -= 8) h = rotl64(h ^ x64_round(0, ld64(p)), 27) * P64_1 + P64_4;
    if (n >= 4) {
        h = rotl64(h ^ (uint64_t)ld32(p) * P64_1, 23) * P64_2 + P64_3;
        p += 4, n -= 4;
    }
    for (; n; p++, n--) h = rotl64(h ^ *p * P64_5, 11) * P64_1;
    h ^= h >> 33;
    h *= P64_2;
    h ^= h >> 29;
    h *= P64_3;
    h ^= h >> 32;
    return h;
}

uint64_t mio_xxh64(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = seed + P64_5, total = len;
    if (len >= 32) {
        uint64_t v[4];
        x64_init_acc(v, seed);
        size_t done = x64_stripes(v, p, len);
        h = x64_converge(v);
        p += done, len -= done;
    }
    return x64_finish(h + total, p, len);
}

void mio_xxh64_init(mio_xxh64_state *s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->seed = seed;
    x64_init_acc(s->acc, seed);
}

void mio_xxh64_update(mio_xxh64_state *s, const void *data, size_t len) {
    const unsigned char *p = data;
    if (!len) return;
    s->total += len;
    if (s->nbuf) { /* complete the buffered stripe first */
        size_t take = 32 - s->nbuf < len ? 32 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += (unsigned)take, p += take, len -= take;
        if (s->nbuf < 32) return;
        x64_stripes(s->acc, s->buf, 32);
        s->nbuf = 0;
    }
    size_t done = x64_stripes(s->acc, p, len);
    memcpy(s->buf, p + done, len - done);
    s->nbuf = (unsigned)(len - done);
}

uint64_t mio_xxh64_digest(const mio_xxh64_state *s) {
    uint64_t h = s->total >= 32 ? x64_converge(s->acc) : s->seed + P64_5;
    return x64_finish(h + s->total, s->buf, s->nbuf);
}

/* ------------------------------------------------------------------------- */
/* XXH3-64                                                                    */
/* ------------------------------------------------------------------------- */

/* "Seed and Secret": the default secret */
#define SECRET_SIZE 192
static const unsigned char SECRET[SECRET_SIZE] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};
#define STRIPE 64
#define STRIPES_PER_BLOCK ((SECRET_SIZE - STRIPE) / 8) /* 16: a block is 1024 bytes */
#define MID_MAX 240                                   /* longest "medium" input */

/* the low and high halves of the 128-bit product a * b, xored */
static inline uint64_t mul_fold(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 r = (u128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

/* "Final Mixing Step": avalanche() and avalanche_XXH64() */
static inline uint64_t avalanche(uint64_t x) {
    x ^= x >> 37;
    x *= PMX_1;
    return x ^ (x >> 32);
}
static inline uint64_t avalanche64(uint64_t x) {
    x ^= x >> 33;
    x *= P64_2;
    x ^= x >> 29;
    x *= P64_3;
    return x ^ (x >> 32);
}

/* mixStep(data, secretOffset, seed 0) */
static inline uint64_t mix16(const unsigned char *p, const unsigned char *s) {
    return mul_fold(ld64(p) ^ ld64(s), ld64(p + 8) ^ ld64(s + 8));
}

/* small inputs, 0..16 bytes */
static uint64_t xxh3_small(const unsigned char *p, size_t len) {
    if (len > 8) {
        uint64_t lo = (ld64(SECRET + 24) ^ ld64(SECRET + 32)) ^ ld64(p);
        uint64_t hi = (ld64(SECRET + 40) ^ ld64(SECRET + 48)) ^ ld64(p + len - 8);
        return avalanche((uint64_t)len + __builtin_bswap64(lo) + hi + mul_fold(lo, hi));
    }
    if (len >= 4) {
        uint64_t v = (ld64(SECRET + 8) ^ ld64(SECRET + 16)) ^ ((uint64_t)ld32(p + len - 4) | (uint64_t)ld32(p) << 32);
        v ^= rotl64(v, 49) ^ rotl64(v, 24);
        v *= PMX_2;
        v ^= (v >> 35) + (uint64_t)len;
        v *= PMX_2;
        return v ^ (v >> 28);
    }
    if (len) {
        uint32_t c = (uint32_t)p[len - 1] | (uint32_t)len << 8 | (uint32_t)p[0] << 16 | (uint32_t)p[len >> 1] << 24;
        return avalanche64((uint64_t)(ld32(SECRET) ^ ld32(SECRET + 4)) ^ c);
    }
    return avalanche64(ld64(SECRET + 56) ^ ld64(SECRET + 64));
}

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* medium inputs, 17..128 bytes: round i (i < ceil(len / 32)) mixes 16 bytes
 * from each end (unrolled) */
static uint64_t xxh3_17to128(const unsigned char *p, size_t len) {
    uint64_t acc = (uint64_t)len * P64_1;
    if (len > 32) {
        if (len > 64) {
            if (len > 96) {
                acc += mix16(p + 48, SECRET + 96);
                acc += mix16(p + len - 64, SECRET + 112);
            }
            acc += mix16(p + 32, SECRET + 64);
            acc += mix16(p + len - 48, SECRET + 80);
        }
        acc += mix16(p + 16, SECRET + 32);
        acc += mix16(p + len - 32, SECRET + 48);
    }
    acc += mix16(p, SECRET);
    acc += mix16(p + len - 16, SECRET + 16);
    return avalanche(acc);
}

/* medium inputs, 129..240 bytes (out of line, as xxh3_long: the short paths of
 * mio_xxh3_64, the name hash's, then need no stack frame) */
static NOINLINE uint64_t xxh3_129to240(const unsigned char *p, size_t len) {
    uint64_t acc = (uint64_t)len * P64_1;
    for (size_t i = 0; i < 8; i++) acc += mix16(p + 16 * i, SECRET + 16 * i);
    acc = avalanche(acc);
    size_t chunks = len >> 4;
    for (size_t i = 8; i < chunks; i++) acc += mix16(p + 16 * i, SECRET + 16 * (i - 8) + 3);
    acc += mix16(p + len - 16, SECRET + 136 - 17);
    return avalanche(acc);
}

/* Large inputs. In the spec's terms, with len > 240: every 64-byte stripe that
 * has at least one input byte after it is accumulated in order, stripe k of a
 * block with the secret at 8 * k, and a block's accumulators are scrambled
 * after its 16th stripe; then the input's last 64 bytes (which may overlap
 * stripes already accumulated) are accumulated with the secret at 192 - 71,
 * and the accumulators are merged. That is the spec's "Process blocks" (a full
 * block is processed only while more than a block remains) followed by
 * "lastRound" ((len - 1) / 64 full stripes of the last block). */

static const uint64_t ACC_INIT[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};

#if defined(__SSE2__)
static inline __m128i load128(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void store128(void *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }

/* accumulate() on two lanes: 16 bytes of data d at p, of secret k at s:
 * a[i] += lo32(d[i] ^ k[i]) * hi32(d[i] ^ k[i]), a[i ^ 1] += d[i] */
static inline __m128i acc_lanes(__m128i a, const unsigned char *p, const unsigned char *s) {
    __m128i d = load128(p);
    __m128i dk = _mm_xor_si128(d, load128(s));
    __m128i prod = _mm_mul_epu32(dk, _mm_srli_epi64(dk, 32));
    __m128i swap = _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
    return _mm_add_epi64(a, _mm_add_epi64(prod, swap));
}

/* accumulate(): n stripes at p, the first with the secret at s, each next one
 * 8 bytes further (the four lane pairs written out: at -O2 a loop over them
 * would keep the accumulators in memory) */
static void accumulate(uint64_t acc[8], const unsigned char *p, const unsigned char *s, size_t n) {
    __m128i a0 = load128(acc), a1 = load128(acc + 2), a2 = load128(acc + 4), a3 = load128(acc + 6);
    for (size_t i = 0; i < n; i++, p += STRIPE, s += 8) {
        a0 = acc_lanes(a0, p, s);
        a1 = acc_lanes(a1, p + 16, s + 16);
        a2 = acc_lanes(a2, p + 32, s + 32);
        a3 = acc_lanes(a3, p + 48, s + 48);
    }
    store128(acc, a0), store128(acc + 2, a1), store128(acc + 4, a2), store128(acc + 6, a3);
}

/* round_scramble(): acc = (acc ^ acc >> 47 ^ key) * P32_1, the 64 x 32-bit
 * product as two 32 x 32 -> 64 ones */
static void scramble(uint64_t acc[8]) {
    const __m128i prime = _mm_set1_epi32((int)P32_1);
    for (int j = 0; j < 4; j++) {
        __m128i a = load128(acc + 2 * j);
        a = _mm_xor_si128(_mm_xor_si128(a, _mm_srli_epi64(a, 47)), load128(SECRET + SECRET_SIZE - STRIPE + 16 * j));
        __m128i lo = _mm_mul_epu32(a, prime);
        __m128i hi = _mm_slli_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), prime), 32);
        store128(acc + 2 * j, _mm_add_epi64(lo, hi));
    }
}
#else
/* accumulate() on lanes 2j and 2j + 1 */
#define ACC_PAIR(x, y, j)                                                                                              \
    do {                                                                                                               \
        uint64_t d0 = ld64(p + 16 * (j)), d1 = ld64(p + 16 * (j) + 8);                                                 \
        uint64_t v0 = d0 ^ ld64(s + 16 * (j)), v1 = d1 ^ ld64(s + 16 * (j) + 8);                                       \
        x += d1 + (v0 & 0xffffffffu) * (v0 >> 32);                                                                     \
        y += d0 + (v1 & 0xffffffffu) * (v1 >> 32);                                                                     \
    } while (0)

/* accumulate(): n stripes at p, the first with the secret at s, each next one 8 bytes further */
static void accumulate(uint64_t acc[8], const unsigned char *p, const unsigned char *s, size_t n) {
    uint64_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
    for (size_t i = 0; i < n; i++, p += STRIPE, s += 8) {
        ACC_PAIR(a0, a1, 0);
        ACC_PAIR(a2, a3, 1);
        ACC_PAIR(a4, a5, 2);
        ACC_PAIR(a6, a7, 3);
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}
#undef ACC_PAIR

static void scramble(uint64_t acc[8]) {
    for (int j = 0; j < 8; j++) {
        uint64_t a = acc[j];
        acc[j] = (a ^ (a >> 47) ^ ld64(SECRET + SECRET_SIZE - STRIPE + 8 * j)) * P32_1;
    }
}
#endif

/* n stripes at p, each with input after it; *nst stripes of the current block
 * were accumulated before */
static void consume(uint64_t acc[8], unsigned *nst, const unsigned char *p, size_t n) {
    while (n) {
        size_t k = STRIPES_PER_BLOCK - *nst < n ? STRIPES_PER_BLOCK - *nst : n;
        accumulate(acc, p, SECRET + 8 * *nst, k);
        p += STRIPE * k, n -= k;
        *nst += (unsigned)k;
        if (*nst == STRIPES_PER_BLOCK) {
            scramble(acc);
            *nst = 0;
        }
    }
}

/* the final stripe and finalMerge(len * P64_1, 11) */
static uint64_t finish_long(const uint64_t acc_in[8], const unsigned char *last, uint64_t len) {
    uint64_t acc[8];
    memcpy(acc, acc_in, sizeof acc);
    accumulate(acc, last, SECRET + SECRET_SIZE - STRIPE - 7, 1);
    uint64_t r = len * P64_1;
    for (int i = 0; i < 4; i++)
        r += mul_fold(acc[2 * i] ^ ld64(SECRET + 11 + 16 * i), acc[2 * i + 1] ^ ld64(SECRET + 11 + 16 * i + 8));
    return avalanche(r);
}

static NOINLINE uint64_t xxh3_long(const unsigned char *p, size_t len) {
    uint64_t acc[8];
    unsigned nst = 0;
    memcpy(acc, ACC_INIT, sizeof acc);
    consume(acc, &nst, p, (len - 1) / STRIPE);
    return finish_long(acc, p + len - STRIPE, len);
}

uint64_t mio_xxh3_64(const void *data, size_t len) {
    const unsigned char *p = data;
    if (len <= 16) return xxh3_small(p, len);
    if (len <= 128) return xxh3_17to128(p, len);
    if (len <= MID_MAX) return xxh3_129to240(p, len);
    return xxh3_long(p, len);
}

void mio_xxh3_init(mio_xxh3_state *s) {
    memset(s, 0, sizeof *s);
    memcpy(s->acc, ACC_INIT, sizeof s->acc);
}

/* Streaming keeps this invariant: every stripe accumulated has input after it,
 * and the nbuf >= 1 bytes after the last one are in buf (once more than 256
 * bytes came; until then buf holds everything and nothing is accumulated). So
 * at the digest the stripes of buf but its last byte's, and the last 64 bytes
 * (from last and buf), are what the one-shot hash would still do. */
void mio_xxh3_update(mio_xxh3_state *s, const void *data, size_t len) {
    const unsigned char *p = data;
    if (!len) return;
    s->total += len;
    if (len <= sizeof s->buf - s->nbuf) { /* fits: keep it for later */
        memcpy(s->buf + s->nbuf, p, len);
        s->nbuf += (unsigned)len;
        return;
    }
    if (s->nbuf) { /* fill buf; input remains after it, so all of it goes */
        size_t take = sizeof s->buf - s->nbuf;
        memcpy(s->buf + s->nbuf, p, take);
        p += take, len -= take;
        consume(s->acc, &s->nstripes, s->buf, sizeof s->buf / STRIPE);
        memcpy(s->last, s->buf + sizeof s->buf - STRIPE, STRIPE);
        s->nbuf = 0;
    }
    if (len > sizeof s->buf) { /* straight from the input, leaving 1..64 bytes */
        size_t n = (len - 1) / STRIPE;
        consume(s->acc, &s->nstripes, p, n);
        memcpy(s->last, p + STRIPE * (n - 1), STRIPE);
        p += STRIPE * n, len -= STRIPE * n;
    }
    memcpy(s->buf, p, len);
    s->nbuf = (unsigned)len;
}

uint64_t mio_xxh3_digest(const mio_xxh3_state *s) {
    if (s->total <= MID_MAX) return mio_xxh3_64(s->buf, (size_t)s->total);
    uint64_t acc[8];
    unsigned nst = s->nstripes;
    memcpy(acc, s->acc, sizeof acc);
    consume(acc, &nst, s->buf, (s->nbuf - 1) / STRIPE);
    if (s->nbuf >= STRIPE) return finish_long(acc, s->buf + s->nbuf - STRIPE, s->total);
    unsigned char tail[STRIPE];
    memcpy(tail, s->last + s->nbuf, STRIPE - s->nbuf);
    memcpy(tail + STRIPE - s->nbuf, s->buf, s->nbuf);
    return finish_long(acc, tail, s->total);
}
