/* SPDX-License-Identifier: MIT */
/* test_scalar.c — the non-block codecs: f32 copy, f16/bf16 encoders byte-exact with
 * ggml_quantize_chunk (overflow to inf, NaN, subnormals) and decoders bit-exact with
 * to_float on every bit pattern; float views of f64 and the integer types by hand;
 * length errors; multi-threaded encode/decode identical to one thread. bf16 has
 * AVX2 kernels: every check re-runs in a child with MIO_ISA=scalar. */
#include "modelio.h"
#include "test.h"
#include "codec_peer.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Inputs that exercise the f16/bf16 rounding edges, then random bit patterns. */
static size_t special_inputs(float *x, size_t cap, uint64_t seed) {
    static const uint32_t bits[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fbfffffu,
        0xff812345u, 0x477fe000u, /* 65504 = f16 max */ 0x477fefffu, /* just below the overflow point */
        0x477ff000u, /* 65520: rounds to inf */ 0x47800000u, /* 65536 */ 0x7f7fffffu, 0xc77ff000u,
        0x33800000u, /* 2^-24: smallest f16 subnormal */ 0x33000000u, /* 2^-25: halfway to 0 -> 0 */ 0x33000001u,
        0x33c00000u, /* 1.5 * 2^-24: tie -> even (2 * 2^-24) */ 0x38800000u, /* 2^-14: smallest f16 normal */
        0x387fe000u, 0x387ff000u, 0x00000001u, 0x00800000u, 0x3f800000u, 0x3f801000u, /* tie, even */ 0x3f803000u,
        0x3f808000u, /* bf16 tie, even */ 0x3f818000u, /* bf16 tie, odd -> up */ 0x3f807fffu, 0x7f7f8000u, /* bf16 overflow */
        0x4b800000u, 0xbf800001u};
    size_t n = 0;
    for (size_t i = 0; i < sizeof bits / sizeof *bits && n < cap; i++) x[n++] = f_of(bits[i]);
    uint64_t s = seed;
    while (n < cap) x[n++] = f_of((uint32_t)rng_next(&s));
    return n;
}

static void interop(uint64_t seed) {
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof(float)), *ya = malloc(N * sizeof(float)), *yb = malloc(N * sizeof(float));
    uint8_t *a = malloc(N * 4), *b = malloc(N * 4);
    /* encoders: special values + random bits, and every adversarial input kind */
    static const int types[] = {MIO_TYPE_F32, MIO_TYPE_F16, MIO_TYPE_BF16};
    for (int t = 0; t < 3; t++) {
        int type = types[t];
        size_t es = mio_type_block_bytes(type);
        int bad = 0;
        for (int kind = -1; kind < CODEC_INPUT_KINDS && !bad; kind++) {
            uint64_t s = seed ^ (uint64_t)(kind + 7) << 32;
            if (kind < 0) special_inputs(x, N, s);
            else fill_input(kind, s, x, N, 1);
            memset(a, 0xa5, N * es);
            memset(b, 0x5a, N * es);
            peer_quantize(type, x, b, 16, N / 16, NULL);
            T_OK(mio_encode_f32(type, x, N, a, N * es));
            int64_t i = first_diff(a, b, N * es);
            if (i >= 0) {
                size_t e = (size_t)i / es;
                fprintf(stderr, "encode %s: seed %llu, input %s: element %zu (x bits %08x): ours %04x ggml %04x\n",
                        mio_type_name(type), (unsigned long long)seed, kind < 0 ? "special+random-bits" : input_kind_name[kind],
                        e, u_of(x[e]), es == 2 ? ld16(a + 2 * e) : a[i], es == 2 ? ld16(b + 2 * e) : b[i]);
                bad = 1;
            }
        }
        T_EQ_INT(bad, 0);
        printf("interop encode %s: %s\n", mio_type_name(type), bad ? "DIFFERS" : "byte-exact");
    }
    /* decoders: all 65536 f16 / bf16 patterns, NaN payloads included */
    static const int halves[] = {MIO_TYPE_F16, MIO_TYPE_BF16};
    for (int t = 0; t < 2; t++) {
        int type = halves[t];
        peer_to_float_fn ref = peer_to_float(type);
        T_CHECK(ref != NULL);
        if (!ref) continue;
        for (uint32_t i = 0; i < 65536; i++) { a[2 * i] = (uint8_t)i; a[2 * i + 1] = (uint8_t)(i >> 8); }
        ref(a, yb, 65536);
        T_OK(mio_decode_f32(type, a, 2 * 65536, ya, 65536));
        int64_t i = first_float_diff(ya, yb, 65536);
        if (i >= 0)
            fprintf(stderr, "decode %s: pattern %04llx: ours %08x ggml %08x\n", mio_type_name(type), (unsigned long long)i,
                    u_of(ya[i]), u_of(yb[i]));
        T_EQ_INT(i, -1);
        printf("interop decode %s: %s on all 65536 patterns\n", mio_type_name(type), i < 0 ? "bit-exact" : "DIFFERS");
    }
    free(x); free(ya); free(yb); free(a); free(b);
}

static void hand_checks(void) {
    uint8_t y[64];
    float out[8];
    /* f16 rounding: 65504 max, 65520 -> inf, 2^-25 -> 0, 1.5 * 2^-24 -> 2^-23 (even), NaN stays NaN */
    float x[8] = {65504.0f, 65520.0f, -1e6f, f_of(0x33000000u), f_of(0x33c00000u), f_of(0x7fc00000u), 1.0f, -2.0f};
    T_OK(mio_encode_f32(MIO_TYPE_F16, x, 8, y, 16));
    T_EQ_INT(ld16(y + 0), 0x7bff); T_EQ_INT(ld16(y + 2), 0x7c00); T_EQ_INT(ld16(y + 4), 0xfc00);
    T_EQ_INT(ld16(y + 6), 0x0000); T_EQ_INT(ld16(y + 8), 0x0002); T_EQ_INT(ld16(y + 10), 0x7e00);
    T_EQ_INT(ld16(y + 12), 0x3c00); T_EQ_INT(ld16(y + 14), 0xc000);
    /* ggml writes every NaN as sign | 0x7e00 (payload dropped), and reads a
     * signaling f16 NaN back quieted (its converter goes through a float multiply) */
    float nans[3] = {f_of(0x7fbfffffu), f_of(0xffc12345u), f_of(0x7f800001u)};
    T_OK(mio_encode_f32(MIO_TYPE_F16, nans, 3, y, 6));
    T_EQ_INT(ld16(y + 0), 0x7e00); T_EQ_INT(ld16(y + 2), 0xfe00); T_EQ_INT(ld16(y + 4), 0x7e00);
    const uint8_t snan[4] = {0x01, 0x7c, 0xff, 0xfd};
    T_OK(mio_decode_f32(MIO_TYPE_F16, snan, 4, out, 2));
    T_EQ_U64(u_of(out[0]), 0x7fc02000u); T_EQ_U64(u_of(out[1]), 0xffffe000u);
    /* bf16: round to nearest even on the dropped 16 bits */
    float z[4] = {f_of(0x3f808000u), f_of(0x3f818000u), f_of(0x3f808001u), -1.0f};
    T_OK(mio_encode_f32(MIO_TYPE_BF16, z, 4, y, 8));
    T_EQ_INT(ld16(y + 0), 0x3f80); T_EQ_INT(ld16(y + 2), 0x3f82); T_EQ_INT(ld16(y + 4), 0x3f81); T_EQ_INT(ld16(y + 6), 0xbf80);
    /* scalar casts are not checked for finiteness */
    float nan_in[2] = {NAN, INFINITY};
    T_OK(mio_encode_f32(MIO_TYPE_F16, nan_in, 2, y, 4));
    T_OK(mio_encode_f32(MIO_TYPE_BF16, nan_in, 2, y, 4));
    /* f32 is a copy, NaN payload included */
    float c[2] = {f_of(0x7fc12345u), -0.0f}, cy[2];
    T_OK(mio_encode_f32(MIO_TYPE_F32, c, 2, y, 8));
    T_CHECK(memcmp(y, c, 8) == 0);
    T_OK(mio_decode_f32(MIO_TYPE_F32, y, 8, cy, 2));
    T_EQ_U64(u_of(cy[0]), 0x7fc12345u);
    T_EQ_U64(u_of(cy[1]), 0x80000000u);
    /* f16 / bf16 decode by hand (a signalling NaN comes back quiet: ggml sets bit 22) */
    const uint8_t h[8] = {0x01, 0x00, 0x00, 0x7c, 0x01, 0xfc, 0x00, 0xbc}; /* 2^-24, inf, NaN payload 1 (neg), -1 */
    T_OK(mio_decode_f32(MIO_TYPE_F16, h, 8, out, 4));
    T_EQ_U64(u_of(out[0]), 0x33800000u); T_EQ_U64(u_of(out[1]), 0x7f800000u);
    T_EQ_U64(u_of(out[2]), 0xffc02000u); /* quieted, as ggml does */ T_EQ_U64(u_of(out[3]), 0xbf800000u);
    T_OK(mio_decode_f32(MIO_TYPE_BF16, h, 8, out, 4));
    T_EQ_U64(u_of(out[0]), 0x00010000u); T_EQ_U64(u_of(out[1]), 0x7c000000u);
    T_EQ_U64(u_of(out[2]), 0xfc010000u); T_EQ_U64(u_of(out[3]), 0xbc000000u);

    /* float views of f64 and the integers: plain conversions */
    const uint8_t i8[4] = {0x80, 0x7f, 0xff, 0x00};
    T_OK(mio_decode_f32(MIO_TYPE_I8, i8, 4, out, 4));
    T_CHECK(out[0] == -128.0f && out[1] == 127.0f && out[2] == -1.0f && out[3] == 0.0f);
    const uint8_t i16[4] = {0x00, 0x80, 0x39, 0x30}; /* -32768, 12345 */
    T_OK(mio_decode_f32(MIO_TYPE_I16, i16, 4, out, 2));
    T_CHECK(out[0] == -32768.0f && out[1] == 12345.0f);
    const uint8_t i32[8] = {0xff, 0xff, 0xff, 0x7f, 0x01, 0x00, 0x00, 0x80}; /* INT32_MAX -> 2^31, INT32_MIN + 1 */
    T_OK(mio_decode_f32(MIO_TYPE_I32, i32, 8, out, 2));
    T_CHECK(out[0] == 2147483648.0f && out[1] == -2147483648.0f);
    int64_t i64v[2] = {((int64_t)1 << 53) + 1, -3};
    uint8_t i64b[16];
    memcpy(i64b, i64v, 16);
    T_OK(mio_decode_f32(MIO_TYPE_I64, i64b, 16, out, 2));
    T_CHECK(out[0] == 9007199254740992.0f && out[1] == -3.0f);
    double dv[4] = {0.1, 1e300, -1e-300, 2.5};
    uint8_t db[32];
    memcpy(db, dv, 32);
    T_OK(mio_decode_f32(MIO_TYPE_F64, db, 32, out, 4));
    T_EQ_U64(u_of(out[0]), u_of(0.1f)); T_EQ_U64(u_of(out[1]), 0x7f800000u);
    T_EQ_U64(u_of(out[2]), 0x80000000u); T_CHECK(out[3] == 2.5f);
    uint8_t odd[33];
    float outraw[5];
    memcpy(odd + 1, dv, 32); /* unaligned source and destination */
    T_OK(mio_decode_f32(MIO_TYPE_F64, odd + 1, 32, (float *)(void *)((uint8_t *)outraw + 2), 4));
    memcpy(out, (uint8_t *)outraw + 2, 16);
    T_EQ_U64(u_of(out[0]), u_of(0.1f)); T_CHECK(out[3] == 2.5f);

    /* encoders that do not exist */
    float one = 1.0f;
    T_STATUS(mio_encode_f32(MIO_TYPE_F64, &one, 1, y, 8), MIO_ERR_ENCODER_UNAVAILABLE);
    T_MSG_HAS("no encoder for f64");
    T_STATUS(mio_encode_f32(MIO_TYPE_I32, &one, 1, y, 4), MIO_ERR_ENCODER_UNAVAILABLE);
    T_MSG_HAS("ggml does not produce");
    T_CHECK(!mio_type_can_encode(MIO_TYPE_F64) && mio_type_can_decode(MIO_TYPE_F64));
    T_CHECK(mio_type_can_encode(MIO_TYPE_F16) && mio_type_can_encode_imatrix(MIO_TYPE_F16));
    {   /* f16 with an imatrix: ignored, as ggml does (same bytes as the plain cast) */
        float xs[4] = {1.0f, -2.5f, 65504.0f, 1e-8f}, w[4] = {1, 2, 3, 4};
        uint8_t a[8], b[8];
        T_OK(mio_encode_f32(MIO_TYPE_F16, xs, 4, a, 8));
        T_OK(mio_encode_f32_imatrix(MIO_TYPE_F16, xs, 4, 4, w, b, 8));
        T_CHECK(memcmp(a, b, 8) == 0);
        T_EQ_INT(a[0] | a[1] << 8, 0x3c00); /* 1.0 */
    }
    T_CHECK(!mio_type_can_encode_imatrix(MIO_TYPE_Q8_K));
    T_STATUS(mio_encode_f32(4, &one, 1, y, 4), MIO_ERR_UNSUPPORTED_TYPE); /* removed Q4_2 */
    T_MSG_HAS("unknown ggml type code 4");

    /* lengths */
    T_STATUS(mio_encode_f32(MIO_TYPE_F16, x, 3, y, 5), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("3 elements of f16 take 6 bytes, 5 given");
    T_STATUS(mio_decode_f32(MIO_TYPE_BF16, y, 8, out, 3), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("3 elements of bf16 take 6 bytes, 8 given");
    T_STATUS(mio_encode_f32(MIO_TYPE_Q8_0, x, 31, y, 34), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("31 elements is not a whole number of q8_0 blocks (32 per block)");
    T_STATUS(mio_decode_f32(MIO_TYPE_Q8_0, y, 34, out, 8), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("not a whole number of q8_0 blocks");
    T_OK(mio_encode_f32(MIO_TYPE_F16, NULL, 0, NULL, 0)); /* zero elements: nothing to do */
    T_STATUS(mio_encode_f32(MIO_TYPE_F16, NULL, 2, y, 4), MIO_ERR_INVALID_ARG);
}

/* bf16 casts over lengths that end mid-vector, at odd addresses: each element
 * equals the one-element call (which takes the per-element path), so the vector
 * kernels and the tails agree bit for bit; rounding edges and NaNs by hand. */
static void bf16_lengths(uint64_t seed) {
    enum { N = 83 };
    float x[N];
    uint8_t xb[4 * N + 1], y[2 * N + 3], one[2], back[4 * N + 2];
    special_inputs(x, N, seed);
    memcpy(xb + 1, x, sizeof x);
    const float *xu = (const float *)(const void *)(xb + 1);
    int bad = 0;
    for (size_t n = 1; n <= N; n += n < 40 ? 1 : 7) {
        memset(y, 0xee, sizeof y);
        T_OK(mio_encode_f32(MIO_TYPE_BF16, xu, n, y + 1, 2 * n));
        T_EQ_INT(y[2 * n + 1], 0xee); /* nothing written past the end */
        for (size_t i = 0; i < n && !bad; i++) {
            T_OK(mio_encode_f32(MIO_TYPE_BF16, x + i, 1, one, 2));
            if (memcmp(one, y + 1 + 2 * i, 2)) {
                fprintf(stderr, "bf16 encode n=%zu element %zu (x bits %08x): %04x vs one by one %04x\n", n, i,
                        u_of(x[i]), ld16(y + 1 + 2 * i), ld16(one));
                bad = 1;
            }
        }
        float *bu = (float *)(void *)(back + 2);
        T_OK(mio_decode_f32(MIO_TYPE_BF16, y + 1, 2 * n, bu, n));
        for (size_t i = 0; i < n && !bad; i++) {
            uint32_t got;
            memcpy(&got, back + 2 + 4 * i, 4);
            if (got != (uint32_t)ld16(y + 1 + 2 * i) << 16) {
                fprintf(stderr, "bf16 decode n=%zu element %zu: %08x\n", n, i, got);
                bad = 1;
            }
        }
    }
    T_EQ_INT(bad, 0);
    /* 16 values, so the vector kernel takes them all: NaNs keep their top bits,
     * quieted; ties go to even; the largest finite floats round up to inf */
    static const uint32_t in[16] = {0x7f800001u, 0xff812345u, 0x7fc00000u, 0x7f800000u, 0x3f808000u, 0x3f818000u,
                                    0x3f808001u, 0x7f7f8000u, 0x7f7f7fffu, 0xff7fffffu, 0x00000001u, 0x80008000u,
                                    0x00018000u, 0xbf800000u, 0x00000000u, 0x80000000u};
    static const uint16_t want[16] = {0x7fc0, 0xffc1, 0x7fc0, 0x7f80, 0x3f80, 0x3f82, 0x3f81, 0x7f80,
                                      0x7f7f, 0xff80, 0x0000, 0x8000, 0x0002, 0xbf80, 0x0000, 0x8000};
    float v[16];
    uint8_t o[32];
    for (int i = 0; i < 16; i++) v[i] = f_of(in[i]);
    T_OK(mio_encode_f32(MIO_TYPE_BF16, v, 16, o, 32));
    for (int i = 0; i < 16; i++) T_EQ_INT(ld16(o + 2 * i), want[i]);
}

/* Multi-threaded calls give exactly the single-threaded bytes / floats. */
static void threads(uint64_t seed) {
    enum { NB = 1001 }; /* odd number of q8_0 blocks */
    const size_t n = NB * 32;
    float *x = malloc(n * sizeof(float)), *r1 = malloc(n * sizeof(float)), *rt = malloc(n * sizeof(float));
    uint8_t *y1 = malloc(n * 2), *yt = malloc(n * 2);
    fill_input(IN_HEAVY_TAILS, seed, x, (int64_t)n, 32);
    static const int types[] = {MIO_TYPE_Q8_0, MIO_TYPE_F16};
    static const int counts[] = {1, 2, 3, 7, 0};
    for (int t = 0; t < 2; t++) {
        int type = types[t];
        size_t nn = type == MIO_TYPE_F16 ? n - 1 : n; /* odd element count for f16 too */
        size_t len = nn / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type);
        T_OK(mio_encode_f32(type, x, nn, y1, len));
        T_OK(mio_decode_f32(type, y1, len, r1, nn));
        for (int c = 0; c < 5; c++) {
            memset(yt, 0xee, len);
            memset(rt, 0xee, nn * sizeof(float));
            T_OK(mio_encode_f32_mt(type, x, nn, yt, len, counts[c]));
            T_EQ_INT(first_diff(y1, yt, len), -1);
            T_OK(mio_decode_f32_mt(type, y1, len, rt, nn, counts[c]));
            T_EQ_INT(first_float_diff(r1, rt, nn), -1);
        }
        /* more threads than blocks */
        T_OK(mio_encode_f32_mt(type, x, type == MIO_TYPE_F16 ? 3 : 64, yt, type == MIO_TYPE_F16 ? 6 : 68, 7));
        T_EQ_INT(first_diff(y1, yt, type == MIO_TYPE_F16 ? 6 : 68), -1);
    }
    /* the threaded path validates like the plain one */
    T_STATUS(mio_encode_f32_mt(MIO_TYPE_Q8_0, x, 33, y1, 68, 3), MIO_ERR_SIZE_MISMATCH);
    x[40] = NAN;
    T_STATUS(mio_encode_f32_mt(MIO_TYPE_Q8_0, x, 64, y1, 68, 3), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 40 is NaN");
    free(x); free(r1); free(rt); free(y1); free(yt);
}

int main(int argc, char **argv) {
    (void)argc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *isa = getenv("MIO_ISA");
    printf("ISA path: %s (MIO_ISA %s)\n", mio_cpu_isa() ? mio_cpu_isa() : "refused", isa ? isa : "unset");
    uint64_t seed = test_seed();
    hand_checks();
    bf16_lengths(seed);
    threads(seed);
    if (peer_codec_load()) interop(seed);
    else printf("interop part skipped (no ggml peer)\n");
    /* the same checks again on the scalar path, in a child process */
    if (!isa) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            char sbuf[32];
            snprintf(sbuf, sizeof sbuf, "%llu", (unsigned long long)seed);
            setenv("MIO_ISA", "scalar", 1);
            setenv("MIO_SEED", sbuf, 1);
            execv("/proc/self/exe", argv);
            _exit(127);
        }
        int status = 0;
        T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    T_DONE();
}
