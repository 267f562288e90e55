/* SPDX-License-Identifier: MIT */
/* test_iq.c — the IQ family (iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq1_s iq1_m
 * iq4_nl iq4_xs): codebook checksums, hand-checked blocks, round-trip bounds,
 * refusals; with the ggml peer, bitwise decoder comparison on random bytes and
 * on every grid entry, and byte comparison of every encoder (plain and imatrix). */
#include "codec_peer.h"
#include "modelio.h"
#include "test.h"

/* the generated tables themselves, to pin them by checksum */
#include "../../src/quant/iq_tables.c"

#include <math.h>

typedef struct { int type; const char *name; int block; size_t bytes; } iqtype;
static const iqtype T[] = {
    {MIO_TYPE_IQ2_XXS, "iq2_xxs", 256, 66}, {MIO_TYPE_IQ2_XS, "iq2_xs", 256, 74}, {MIO_TYPE_IQ2_S, "iq2_s", 256, 82},
    {MIO_TYPE_IQ3_XXS, "iq3_xxs", 256, 98}, {MIO_TYPE_IQ3_S, "iq3_s", 256, 110}, {MIO_TYPE_IQ1_S, "iq1_s", 256, 50},
    {MIO_TYPE_IQ1_M, "iq1_m", 256, 56},     {MIO_TYPE_IQ4_NL, "iq4_nl", 32, 18}, {MIO_TYPE_IQ4_XS, "iq4_xs", 256, 136},
};
enum { NT = sizeof T / sizeof T[0] };

static uint64_t fnv(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ull; }
    return h;
}
static uint64_t fnv16(const uint16_t *v, size_t n) { /* little-endian bytes, as the generator hashes */
    uint8_t *b = malloc(2 * n);
    for (size_t i = 0; i < n; i++) { b[2 * i] = (uint8_t)v[i]; b[2 * i + 1] = (uint8_t)(v[i] >> 8); }
    uint64_t h = fnv(b, 2 * n);
    free(b);
    return h;
}

static void check_tables(void) {
    /* values printed by scripts/gen-iq-tables.c at generation */
    T_EQ_U64(fnv(mio_iq_lv2, 3), 0x1e7a2b189334e2f3ull);
    T_EQ_U64(fnv(mio_iq_lv3xxs, 8), 0x995b9e6ead8369bfull);
    T_EQ_U64(fnv(mio_iq_lv3s, 8), 0x1887a2a7b9b67f25ull);
    T_EQ_U64(fnv16(mio_iq_grid2_256, 256), 0x6fca17f5c451905dull);
    T_EQ_U64(fnv16(mio_iq_grid2_512, 512), 0x29d6ac8e0e6b14e3ull);
    T_EQ_U64(fnv16(mio_iq_grid2_1024, 1024), 0x641f9aa3fbd98694ull);
    T_EQ_U64(fnv16(mio_iq_grid3_256, 256), 0x79d733576d562547ull);
    T_EQ_U64(fnv16(mio_iq_grid3_512, 512), 0x55b224116d1e5ca2ull);
    T_EQ_U64(fnv16(mio_iq_grid1_2048, 2048), 0x03f1880817eeffa4ull);
    T_EQ_U64(fnv(mio_iq_sign8, 128), 0xf19ba8f8c3292ba5ull);
    T_EQ_U64(fnv(mio_iq_nl4, 16), 0x055d06d2d8fa0f75ull);
    T_EQ_U64(mio_iq_delta1_bits, 0x3e000000u); /* 0.125f */
    /* hand-checkable facts: levels, the iq4_nl ends, sign parity */
    T_EQ_INT(mio_iq_lv2[0], 8); T_EQ_INT(mio_iq_lv2[1], 25); T_EQ_INT(mio_iq_lv2[2], 43);
    T_EQ_INT(mio_iq_nl4[0], -127); T_EQ_INT(mio_iq_nl4[8], 1); T_EQ_INT(mio_iq_nl4[15], 113);
    T_EQ_INT(mio_iq_sign8[1], 0x81); T_EQ_INT(mio_iq_sign8[3], 0x03);
    T_EQ_INT(mio_iq_grid2_1024[0], 0); T_EQ_INT(mio_iq_grid3_256[3], 9);
}

/* Hand-checked blocks, no peer needed. */
static void check_by_hand(void) {
    /* iq4_nl: d = 1.0 (0x3c00); byte j low nibble -> element j, high -> j+16 */
    uint8_t b[18] = {0x00, 0x3c};
    for (int j = 0; j < 16; j++) b[2 + j] = (uint8_t)(j == 0 ? 0x08 : 0xf0 | (j & 15));
    float y[256];
    T_OK(mio_decode_f32(MIO_TYPE_IQ4_NL, b, 18, y, 32));
    T_CHECK(y[0] == 1.0f);      /* nibble 8 -> +1 */
    T_CHECK(y[16] == -127.0f);  /* nibble 0 -> -127 */
    T_CHECK(y[1] == -104.0f);   /* nibble 1 */
    T_CHECK(y[17] == 113.0f);   /* nibble 15 */
    /* zeros encode to d = 0 and every nibble 8 (the level nearest 0) */
    float z[32] = {0};
    uint8_t e[18];
    T_OK(mio_encode_f32(MIO_TYPE_IQ4_NL, z, 32, e, 18));
    T_EQ_INT(e[0], 0); T_EQ_INT(e[1], 0); T_EQ_INT(e[2], 0x88); T_EQ_INT(e[17], 0x88);
    /* iq3_s: d = 1, scale nibble 0 -> x1, entry 0 of the grid = 1,1,1,1; sign bit 0 of signs[0] negates element 0 */
    uint8_t s3[110] = {0x00, 0x3c};
    s3[74] = 0x01;
    T_OK(mio_decode_f32(MIO_TYPE_IQ3_S, s3, 110, y, 256));
    T_CHECK(y[0] == -1.0f); T_CHECK(y[1] == 1.0f); T_CHECK(y[255] == 1.0f);
    /* iq1_s: d = 1, all zero: entry 0 of the grid (-1 x8) + delta 0.125 */
    uint8_t s1[50] = {0x00, 0x3c};
    T_OK(mio_decode_f32(MIO_TYPE_IQ1_S, s1, 50, y, 256));
    T_CHECK(y[0] == -0.875f);
}

/* Refusals and errors. */
static void check_errors(void) {
    float x[512];
    uint8_t out[1024];
    for (int i = 0; i < 512; i++) x[i] = (float)sin(i * 0.1);
    const int needs[] = {MIO_TYPE_IQ2_XXS, MIO_TYPE_IQ2_XS, MIO_TYPE_IQ1_S};
    for (int k = 0; k < 3; k++) {
        T_STATUS(mio_encode_f32(needs[k], x, 256, out, mio_type_block_bytes(needs[k])), MIO_ERR_ENCODER_UNAVAILABLE);
        T_MSG_HAS("importance matrix");
        T_EQ_INT(mio_type_can_encode(needs[k]), 0);
        T_EQ_INT(mio_type_can_decode(needs[k]), 1);
    }
    T_EQ_INT(mio_type_can_encode(MIO_TYPE_IQ4_NL), 1);
    T_EQ_INT(mio_type_can_encode(MIO_TYPE_IQ4_XS), 1);
    T_EQ_INT(mio_type_can_encode_imatrix(MIO_TYPE_IQ4_XS), 1);
    /* non-finite input named by index */
    x[37] = NAN;
    T_STATUS(mio_encode_f32(MIO_TYPE_IQ4_NL, x, 64, out, 36), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 37");
    x[37] = 0;
    x[300] = -INFINITY;
    T_STATUS(mio_encode_f32(MIO_TYPE_IQ4_XS, x, 512, out, 272), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 300");
    x[300] = 0;
    /* lengths */
    T_STATUS(mio_encode_f32(MIO_TYPE_IQ4_NL, x, 33, out, 18), MIO_ERR_SIZE_MISMATCH);
    T_STATUS(mio_encode_f32(MIO_TYPE_IQ4_XS, x, 256, out, 135), MIO_ERR_SIZE_MISMATCH);
    T_STATUS(mio_decode_f32(MIO_TYPE_IQ2_S, out, 82, x, 128), MIO_ERR_SIZE_MISMATCH);
}

/* Round trip error bounds (relative RMS over gaussian data), no peer needed. */
static void check_roundtrip(void) {
    const int n = 4096;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    uint8_t *q = malloc(n);
    fill_input(IN_GAUSS, 12345, x, n, 256);
    struct { int type; double bound; } rt[] = {
        {MIO_TYPE_IQ4_NL, 0.12}, {MIO_TYPE_IQ4_XS, 0.12}, {MIO_TYPE_IQ3_S, 0.25},
        {MIO_TYPE_IQ3_XXS, 0.25}, {MIO_TYPE_IQ2_S, 0.40},
    };
    for (size_t k = 0; k < sizeof rt / sizeof rt[0]; k++) {
        size_t bytes = (size_t)n / (size_t)mio_type_block_size(rt[k].type) * mio_type_block_bytes(rt[k].type);
        if (!mio_type_can_encode(rt[k].type)) continue;
        T_OK(mio_encode_f32(rt[k].type, x, (size_t)n, q, bytes));
        T_OK(mio_decode_f32(rt[k].type, q, bytes, y, (size_t)n));
        double e2 = 0, s2 = 0;
        for (int i = 0; i < n; i++) { e2 += (double)(x[i] - y[i]) * (x[i] - y[i]); s2 += (double)x[i] * x[i]; }
        double rel = sqrt(e2 / s2);
        if (!(rel < rt[k].bound)) fprintf(stderr, "%s: relative rms error %.4f >= %.2f\n", mio_type_name(rt[k].type), rel, rt[k].bound);
        T_CHECK(rel < rt[k].bound);
    }
    free(x); free(y); free(q);
}

/* --- live comparison against the peer --- */
static int cmp_decode(const iqtype *t, const uint8_t *blk, int64_t nb, const char *what, uint64_t seed) {
    int64_t n = nb * t->block;
    float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
    peer_to_float(t->type)(blk, b, n);
    mio_status st = mio_decode_f32(t->type, blk, (size_t)nb * t->bytes, a, (size_t)n);
    int64_t d = st ? 0 : first_float_diff(a, b, (size_t)n);
    if (st || d >= 0) {
        uint32_t ua = 0, ub = 0;
        if (!st) { memcpy(&ua, a + d, 4); memcpy(&ub, b + d, 4); }
        fprintf(stderr, "decode %s (%s) seed %llu: %s at element %lld (block %lld): ours 0x%08x ggml 0x%08x\n", t->name, what,
                (unsigned long long)seed, st ? mio_last_error() : "differs", (long long)d, (long long)(d / t->block), ua, ub);
    }
    free(a); free(b);
    return !st && d < 0;
}

static void live_decoders(uint64_t seed) {
    for (int k = 0; k < NT; k++) {
        const iqtype *t = &T[k];
        if (!peer_to_float(t->type)) { printf("peer has no to_float for %s\n", t->name); continue; }
        /* random bytes, 64 blocks; every 8th block gets a NaN/inf scale */
        const int64_t nb = 64;
        uint8_t *blk = malloc((size_t)nb * t->bytes);
        uint64_t s = seed ^ (uint64_t)t->type;
        for (size_t i = 0; i < (size_t)nb * t->bytes; i++) blk[i] = (uint8_t)rng_next(&s);
        for (int64_t i = 0; i < nb; i += 8) {
            uint8_t *p = blk + (size_t)i * t->bytes + (t->type == MIO_TYPE_IQ1_M ? 48 : 0);
            if (t->type == MIO_TYPE_IQ1_M) { p[1] |= 0xf0; p[3] |= 0xf0; p[5] |= 0x70; }
            else p[1] |= 0x7c;
        }
        T_CHECK(cmp_decode(t, blk, nb, "random bytes", seed));
        free(blk);
    }
    /* every grid entry, enumerated through the stored index fields */
    struct { int type; int entries; } g[] = {{MIO_TYPE_IQ2_XXS, 256}, {MIO_TYPE_IQ2_XS, 512}, {MIO_TYPE_IQ2_S, 1024},
                                              {MIO_TYPE_IQ3_XXS, 256}, {MIO_TYPE_IQ3_S, 512}, {MIO_TYPE_IQ1_S, 2048},
                                              {MIO_TYPE_IQ1_M, 2048}};
    for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
        const iqtype *t = NULL;
        for (int j = 0; j < NT; j++) if (T[j].type == g[k].type) t = &T[j];
        const int64_t nb = 64;
        uint8_t *blk = calloc((size_t)nb, t->bytes);
        for (int64_t i = 0; i < nb; i++) {
            uint8_t *p = blk + (size_t)i * t->bytes;
            for (int e = 0; e < 32; e++) {
                int idx = (int)((i * 32 + e) % g[k].entries);
                switch (t->type) {
                case MIO_TYPE_IQ2_XXS: p[2 + 8 * (e / 4) + e % 4] = (uint8_t)idx; break;
                case MIO_TYPE_IQ2_XS: p[2 + 2 * e] = (uint8_t)idx; p[3 + 2 * e] = (uint8_t)(idx >> 8); break;
                case MIO_TYPE_IQ2_S: p[2 + e] = (uint8_t)idx; p[66 + e / 4] |= (uint8_t)((idx >> 8) << (2 * (e % 4))); break;
                case MIO_TYPE_IQ3_XXS: p[2 + e] = (uint8_t)idx; p[2 + 32 + e] = (uint8_t)((idx + 7) % 256); break;
                case MIO_TYPE_IQ3_S: p[2 + e] = (uint8_t)idx; p[66 + e / 8] |= (uint8_t)((idx >> 8) << (e % 8)); break;
                case MIO_TYPE_IQ1_S: p[2 + e] = (uint8_t)idx; p[34 + 2 * (e / 4)] = 0; p[35 + 2 * (e / 4)] |= (uint8_t)(((idx >> 8) << (3 * (e % 4))) >> 8); break;
                case MIO_TYPE_IQ1_M: p[e] = (uint8_t)idx; p[32 + e / 2] |= (uint8_t)((idx >> 8) << (4 * (e % 2))); break;
                }
            }
            if (t->type == MIO_TYPE_IQ1_S) { /* 3 high bits per entry in the uint16 qh words */
                for (int ib = 0; ib < 8; ib++) {
                    uint16_t h = 0;
                    for (int l = 0; l < 4; l++) h |= (uint16_t)(((((i * 32 + 4 * ib + l) % 2048) >> 8) & 7) << (3 * l));
                    p[34 + 2 * ib] = (uint8_t)h; p[35 + 2 * ib] = (uint8_t)(h >> 8);
                }
            }
            if (t->type == MIO_TYPE_IQ1_M) { p[49] = 0x3c; } else { p[0] = 0x00; p[1] = 0x3c; }
        }
        T_CHECK(cmp_decode(t, blk, nb, "grid enumeration", seed));
        free(blk);
    }
}

static void live_encoders(uint64_t seed) {
    const int64_t lens[] = {1, 2, 7, 16}; /* blocks per row */
    const int64_t rows[] = {1, 3};
    for (int k = 0; k < NT; k++) {
        const iqtype *t = &T[k];
        bool req = g_peer.requires_imatrix && g_peer.requires_imatrix(t->type);
        if (req) { T_EQ_INT(mio_type_can_encode(t->type), 0); }
        int plain = mio_type_can_encode(t->type), wtd = mio_type_can_encode_imatrix(t->type);
        if (!plain && !wtd) { printf("%s: no encoder (skipped)\n", t->name); continue; }
        int fails = 0;
        for (int kind = 0; kind < CODEC_INPUT_KINDS; kind++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
                    int64_t npr = lens[li] * t->block, nr = rows[ri], n = npr * nr;
                    size_t bytes = (size_t)(n / t->block) * t->bytes;
                    float *x = malloc((size_t)n * 4), *qw = malloc((size_t)npr * 4);
                    uint8_t *a = malloc(bytes), *b = malloc(bytes);
                    uint64_t s = seed + (uint64_t)kind * 1000 + li * 10 + ri;
                    fill_input(kind, s, x, n, t->block);
                    for (int64_t i = 0; i < npr; i++) qw[i] = rng_unit(&s) * 2.0f + 0.01f;
                    for (int w = 0; w < 2; w++) {
                        if (w == 0 && !plain) continue;
                        if (w == 1 && !wtd) continue;
                        if (w == 0 && req) continue;
                        memset(a, 0xa5, bytes);
                        peer_quantize(t->type, x, b, nr, npr, w ? qw : NULL);
                        mio_status st = w ? mio_encode_f32_imatrix(t->type, x, (size_t)n, npr, qw, a, bytes)
                                          : mio_encode_f32(t->type, x, (size_t)n, a, bytes);
                        int64_t d = st ? 0 : first_diff(a, b, bytes);
                        if (st || d >= 0) {
                            if (fails++ < 5)
                                fprintf(stderr, "encode %s%s kind %s rows %lld x %lld seed %llu: %s at byte %lld (block %lld +%lld): ours %02x ggml %02x\n",
                                        t->name, w ? " (imatrix)" : "", input_kind_name[kind], (long long)nr, (long long)npr,
                                        (unsigned long long)seed, st ? mio_last_error() : "differs", (long long)d,
                                        (long long)(d / (int64_t)t->bytes), (long long)(d % (int64_t)t->bytes), st ? 0 : a[d], st ? 0 : b[d]);
                        }
                        T_CHECK(!st && d < 0);
                    }
                    free(x); free(qw); free(a); free(b);
                }
        printf("%s: encoder comparison %s\n", t->name, fails ? "FAILED" : "byte-exact");
    }
}

/* Inputs drawn from six values (many exact ties, +-0 included): the iq1 encoders
 * sort each sub-block, and equal values must come out in the C library qsort's
 * order, as ggml's; every lattice encoder's neighbour search sees repeated
 * distances. Byte comparison with the peer, plain and imatrix. */
static void live_ties(uint64_t seed) {
    static const float vals[6] = {-2.0f, -0.5f, -0.0f, 0.0f, 0.75f, 1.5f};
    const int64_t npr = 8 * 256, nr = 2, n = npr * nr;
    float *x = malloc((size_t)n * 4), *qw = malloc((size_t)npr * 4);
    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
    uint64_t s = seed ^ 0x7e57u;
    for (int64_t i = 0; i < n; i++) x[i] = vals[rng_next(&s) % 6];
    for (int64_t i = 0; i < npr; i++) qw[i] = (float)(1 + rng_next(&s) % 3); /* equal weights too */
    for (int k = 0; k < NT; k++) {
        const iqtype *t = &T[k];
        if (t->block != 256) continue;
        const size_t bytes = (size_t)(n / 256) * t->bytes;
        bool req = g_peer.requires_imatrix && g_peer.requires_imatrix(t->type);
        for (int w = 0; w < 2; w++) {
            if (w == 0 && (req || !mio_type_can_encode(t->type))) continue;
            if (w == 1 && !mio_type_can_encode_imatrix(t->type)) continue;
            memset(a, 0xa5, bytes);
            peer_quantize(t->type, x, b, nr, npr, w ? qw : NULL);
            mio_status st = w ? mio_encode_f32_imatrix(t->type, x, (size_t)n, npr, qw, a, bytes)
                              : mio_encode_f32(t->type, x, (size_t)n, a, bytes);
            int64_t d = st ? 0 : first_diff(a, b, bytes);
            if (st || d >= 0)
                fprintf(stderr, "encode %s%s (tied values) seed %llu: %s at byte %lld: ours %02x ggml %02x\n", t->name,
                        w ? " (imatrix)" : "", (unsigned long long)seed, st ? mio_last_error() : "differs", (long long)d,
                        st ? 0 : a[d], st ? 0 : b[d]);
            T_CHECK(!st && d < 0);
        }
    }
    free(x); free(qw); free(a); free(b);
}

int main(void) {
    check_tables();
    check_by_hand();
    check_errors();
    check_roundtrip();
    if (peer_codec_load()) {
        uint64_t seed = test_seed();
        live_decoders(seed);
        live_encoders(seed);
        live_ties(seed);
    } else {
        printf("live interop skipped\n");
    }
    T_DONE();
}
