/* SPDX-License-Identifier: MIT */
/* test_xxhash.c — the library's own XXH64 / XXH3-64 (src/core/xxhash.c).
 * (a) known values: the empty input (the spec's and every implementation's
 *     first check) and values computed with the Python `xxhash` package 4.1.0
 *     (which bundles the reference C code, xxHash 0.8.4), e.g.
 *     xxhash.xxh3_64_intdigest(b"abc"); the patterned inputs are
 *     bytes((i * 31 + 7) & 255 for i in range(n)).
 * (b) streaming against one-shot: every way of splitting tried below must give
 *     the one-shot value (ours; needs no peer).
 * (c) the peer: the system's libxxhash.so.0 (package libxxhash0, present on
 *     every Debian machine), dlopen()ed: one-shot for every length 0..4096 and
 *     random lengths up to 4 MiB at unaligned starts, streaming with random and
 *     boundary splits, all against the peer's one-shot value. Without the
 *     library the test runs (a) and (b), then exits SKIP (77) saying so. */
#include "test.h"

#include "core/xxhash.h"

#include <dlfcn.h>

T_XORSHIFT(0x9e3779b97f4a7c15ull)

/* a mismatch prints what was hashed; after 20 only the count goes on */
static void check_eq(uint64_t ours, uint64_t ref, const char *what, size_t len, size_t off, const char *how) {
    if (ours == ref) {
        t_pass++;
        return;
    }
    if (++t_fail <= 20)
        fprintf(stderr, "%s: len %zu at offset %zu (%s): ours %016" PRIx64 ", reference %016" PRIx64 "\n", what, len,
                off, how, ours, ref);
}

static uint8_t *pattern(size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 31 + 7);
    return p;
}

static void test_known(void) {
    T_EQ_U64(mio_xxh64("", 0, 0), 0xEF46DB3751D8E999ull);
    T_EQ_U64(mio_xxh3_64("", 0), 0x2D06800538D394C2ull);
    T_EQ_U64(mio_xxh64(NULL, 0, 0), 0xEF46DB3751D8E999ull);
    T_EQ_U64(mio_xxh3_64(NULL, 0), 0x2D06800538D394C2ull);
    T_EQ_U64(mio_xxh64("a", 1, 0), 0xd24ec4f1a98c6e5bull);
    T_EQ_U64(mio_xxh3_64("a", 1), 0xe6c632b61e964e1full);
    T_EQ_U64(mio_xxh64("abc", 3, 0), 0x44bc2cf5ad770999ull);
    T_EQ_U64(mio_xxh3_64("abc", 3), 0x78af5f94892f3950ull);
    T_EQ_U64(mio_xxh64("xxhash", 6, 0), 0x32dd38952c4bc720ull);
    T_EQ_U64(mio_xxh64("xxhash", 6, 20), 0x48b35aa98dc04f56ull);
    T_EQ_U64(mio_xxh3_64("xxhash", 6), 0xaa4c2b42ae6b13deull);
    static const char nobody[] = "Nobody inspects the spammish repetition";
    T_EQ_U64(mio_xxh64(nobody, sizeof nobody - 1, 0), 0xfbcea83c8a378bf1ull);
    T_EQ_U64(mio_xxh3_64(nobody, sizeof nobody - 1), 0x6cb00603b5cc47e9ull);

    /* one length per size class of XXH3 and both sides of each boundary */
    static const struct { size_t n; uint64_t x64, x3; } V[] = {
        {3, 0x56e6957632a487f9ull, 0x15f7093b173d005cull},     {4, 0xc60d15b1e3ff8f04ull, 0xdca012f95811b6b9ull},
        {8, 0x3da5c7aa269683e0ull, 0xdec6a9a43575982eull},     {9, 0x4b17a9ba9e215c09ull, 0xcbe393399f17ffbdull},
        {16, 0xa19ad429b02bc413ull, 0x7e484c18d74895d0ull},    {17, 0xfe9f0feb7eeedc09ull, 0x208bde5ee2bed407ull},
        {128, 0x725a5b9b3bedfe94ull, 0xf92b70eaa21a6288ull},   {129, 0x28fc8362643627d7ull, 0xf8f76713f2bb60faull},
        {240, 0xd430520ae3ed2fc6ull, 0xccc7375172c41f03ull},   {241, 0xd3f50496d5bf27e0ull, 0x0b3b630948ce4a00ull},
        {256, 0x7c1ff7b1d57c10d5ull, 0xec85b75bafe6ca74ull},   {1024, 0x149aa44972cdae00ull, 0x23bc880ebf0d29c6ull},
        {1025, 0x2c9d0b038b4a4b35ull, 0xc09fdfbc398c7d82ull},  {2048, 0x6a531ef2d65594ecull, 0x19f6f9c987331373ull},
        {10000, 0xb391f8297b8f1500ull, 0x441f01d9711bebedull},
    };
    uint8_t *p = pattern(10000);
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        check_eq(mio_xxh64(p, V[i].n, 0), V[i].x64, "xxh64 known", V[i].n, 0, "one-shot");
        check_eq(mio_xxh3_64(p, V[i].n), V[i].x3, "xxh3 known", V[i].n, 0, "one-shot");
        mio_xxh64_state s64;
        mio_xxh3_state s3;
        mio_xxh64_init(&s64, 0);
        mio_xxh3_init(&s3);
        mio_xxh64_update(&s64, p, V[i].n);
        mio_xxh3_update(&s3, p, V[i].n);
        check_eq(mio_xxh64_digest(&s64), V[i].x64, "xxh64 known", V[i].n, 0, "one update");
        check_eq(mio_xxh3_digest(&s3), V[i].x3, "xxh3 known", V[i].n, 0, "one update");
    }
    free(p);
}

/* hash p[0..n) streamed in pieces: sizes[k] (cycled; 0 = a random 1..max) */
static void stream_both(const uint8_t *p, size_t n, const size_t *sizes, size_t nsizes, size_t max, uint64_t seed,
                        uint64_t *h64, uint64_t *h3) {
    mio_xxh64_state s64;
    mio_xxh3_state s3;
    mio_xxh64_init(&s64, seed);
    mio_xxh3_init(&s3);
    mio_xxh64_update(&s64, NULL, 0);
    mio_xxh3_update(&s3, NULL, 0);
    for (size_t at = 0, k = 0; at < n; k++) {
        size_t c = sizes[k % nsizes] ? sizes[k % nsizes] : 1 + rnd() % max;
        if (c > n - at) c = n - at;
        mio_xxh64_update(&s64, p + at, c);
        mio_xxh3_update(&s3, p + at, c);
        if (k % 3 == 0) { /* a digest on the way changes nothing */
            (void)mio_xxh64_digest(&s64);
            (void)mio_xxh3_digest(&s3);
        }
        at += c;
    }
    *h64 = mio_xxh64_digest(&s64);
    *h3 = mio_xxh3_digest(&s3);
}

typedef uint64_t (*peer64_fn)(const void *, size_t, uint64_t);
typedef uint64_t (*peer3_fn)(const void *, size_t);

/* references: the peer's one-shot when there is one, else ours (then only the
 * streaming is checked, against our one-shot) */
static peer64_fn g_ref64;
static peer3_fn g_ref3;
static uint64_t ours3(const void *p, size_t n) { return mio_xxh3_64(p, n); }

/* every way of splitting that matters, for one input */
static void test_splits(const uint8_t *p, size_t n, size_t off) {
    static const size_t RANDOM[] = {0}, ONE[] = {1}, B64[] = {64}, B256[] = {256}, B1024[] = {1024},
                        ODD[] = {63, 65, 1, 255, 257, 1023, 1025, 0}, FILL[] = {100, 156, 64, 192, 0},
                        SMALL[] = {7, 0, 3, 250, 0};
    static const struct { const size_t *s; size_t n, max; const char *name; } PLANS[] = {
        {RANDOM, 1, 700, "random pieces up to 700"}, {RANDOM, 1, 70, "random pieces up to 70"},
        {ONE, 1, 1, "1-byte updates"},               {B64, 1, 1, "64-byte updates"},
        {B256, 1, 1, "256-byte updates"},            {B1024, 1, 1, "1024-byte updates"},
        {ODD, 8, 3000, "63/65/1/255/257/1023/1025"}, {FILL, 5, 5000, "100/156/64/192/random"},
        {SMALL, 5, 300, "7/r/3/250/r"},
    };
    uint64_t r64 = g_ref64(p, n, 0), r3 = g_ref3(p, n), seed = 0x0123456789abcdefull ^ n;
    uint64_t r64s = g_ref64(p, n, seed);
    for (size_t i = 0; i < sizeof PLANS / sizeof PLANS[0]; i++) {
        if (PLANS[i].s == ONE && n > 5000) continue; /* byte by byte only where it is cheap */
        uint64_t h64, h3;
        stream_both(p, n, PLANS[i].s, PLANS[i].n, PLANS[i].max, 0, &h64, &h3);
        check_eq(h64, r64, "xxh64 stream", n, off, PLANS[i].name);
        check_eq(h3, r3, "xxh3 stream", n, off, PLANS[i].name);
        stream_both(p, n, PLANS[i].s, PLANS[i].n, PLANS[i].max, seed, &h64, &h3);
        check_eq(h64, r64s, "xxh64 seeded stream", n, off, PLANS[i].name);
    }
}

/* every length 0..4096 one-shot (two seeds for XXH64), each at a start offset
 * 0..15; streaming for the lengths near the boundaries, and every prefix of one
 * 3000-byte input fed a byte at a time */
static void test_against(const uint8_t *buf, size_t bufsize, int peer) {
    const char *src = peer ? "vs libxxhash" : "vs one-shot";
    for (size_t n = 0; n <= 4096; n++) {
        size_t off = n % 16;
        const uint8_t *p = buf + off;
        if (peer) {
            check_eq(mio_xxh64(p, n, 0), g_ref64(p, n, 0), "xxh64 one-shot", n, off, src);
            check_eq(mio_xxh64(p, n, n * 0x9E3779B1u), g_ref64(p, n, n * 0x9E3779B1u), "xxh64 seeded", n, off, src);
            check_eq(mio_xxh3_64(p, n), g_ref3(p, n), "xxh3 one-shot", n, off, src);
        }
        size_t m = n % 64;
        if (n <= 300 || m <= 1 || m == 63 || n % 97 == 0) test_splits(p, n, off);
    }
    /* every prefix of a 3000-byte stream, one byte at a time, digesting after each */
    mio_xxh64_state s64;
    mio_xxh3_state s3;
    mio_xxh64_init(&s64, 0);
    mio_xxh3_init(&s3);
    const uint8_t *p = buf + 5;
    for (size_t n = 1; n <= 3000; n++) {
        mio_xxh64_update(&s64, p + n - 1, 1);
        mio_xxh3_update(&s3, p + n - 1, 1);
        check_eq(mio_xxh64_digest(&s64), g_ref64(p, n, 0), "xxh64 prefix", n, 5, "byte by byte");
        check_eq(mio_xxh3_digest(&s3), g_ref3(p, n), "xxh3 prefix", n, 5, "byte by byte");
    }
    /* long inputs: random lengths up to the whole buffer, and the whole buffer */
    for (int i = 0; i < 13; i++) {
        size_t n = i == 12 ? bufsize - 64 : (size_t)(rnd() % (bufsize - 64));
        size_t off = (size_t)(rnd() % 64);
        if (peer) {
            check_eq(mio_xxh64(buf + off, n, 0), g_ref64(buf + off, n, 0), "xxh64 long", n, off, src);
            check_eq(mio_xxh3_64(buf + off, n), g_ref3(buf + off, n), "xxh3 long", n, off, src);
        }
        test_splits(buf + off, n, off);
    }
}

int main(void) {
    test_known();
    size_t bufsize = ((size_t)4 << 20) + 64;
    uint8_t *buf = malloc(bufsize);
    if (!buf) T_SKIP("out of memory");
    for (size_t i = 0; i < bufsize; i += 8) {
        uint64_t v = rnd();
        memcpy(buf + i, &v, 8);
    }

    /* (b) our streaming against our one-shot */
    g_ref64 = mio_xxh64;
    g_ref3 = ours3;
    test_against(buf, bufsize, 0);

    /* (c) against the peer */
    void *lib = dlopen("libxxhash.so.0", RTLD_NOW | RTLD_LOCAL);
    peer64_fn x64 = NULL;
    peer3_fn x3 = NULL;
    if (lib) {
        *(void **)&x64 = dlsym(lib, "XXH64");
        *(void **)&x3 = dlsym(lib, "XXH3_64bits");
    }
    if (!x64 || !x3) {
        printf("%d passed, %d failed\n", t_pass, t_fail);
        free(buf);
        if (t_fail) return 1;
        T_SKIP("libxxhash.so.0 (Debian package libxxhash0) cannot be loaded: the known values and streaming == "
               "one-shot passed, the comparison with the reference library did not run");
    }
    g_ref64 = x64;
    g_ref3 = x3;
    test_against(buf, bufsize, 1);
    dlclose(lib);
    free(buf);

    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail ? 1 : 0;
}
