/* SPDX-License-Identifier: MIT */
/* test_legacy.c — q4_0 q4_1 q5_0 q5_1 q8_0 q8_1: byte-exact encoders (plain and
 * importance-weighted) and bit-exact decoders against the ggml peer when present;
 * hand-checked blocks, round-trip error bounds, finiteness and length errors always. */
#include "modelio.h"
#include "test.h"
#include "codec_peer.h"

#include <float.h>
#include <math.h>

static const int TYPES[] = {MIO_TYPE_Q4_0, MIO_TYPE_Q4_1, MIO_TYPE_Q5_0, MIO_TYPE_Q5_1, MIO_TYPE_Q8_0, MIO_TYPE_Q8_1};
enum { NTYPES = sizeof TYPES / sizeof TYPES[0] };

static size_t wire(int type, size_t n) { return n / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type); }

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Legacy-specific adversarial kinds on top of CODEC_INPUT_KINDS. */
enum {
    K_TINY_NORMAL = CODEC_INPUT_KINDS, /* |x| ~ 1e-38: d is subnormal, 1/d overflows to inf */
    K_SIGNED_ZEROS,                    /* mixes of +0, -0 and a few values: min/max ties */
    K_ABS_TIES,                        /* +a and -a both present as the block's abs-max */
    K_HALVES,                          /* codes land exactly on .5 before rounding */
    K_HUGE,                            /* near FLT_MAX: max - min overflows */
    K_INTS,                            /* small integers: exact codes, many exact ties */
    ALL_KINDS
};
static const char *kind_name(int k) {
    static const char *const extra[] = {"tiny-normal", "signed-zeros", "abs-ties", "halves", "huge", "ints"};
    return k < CODEC_INPUT_KINDS ? input_kind_name[k] : extra[k - CODEC_INPUT_KINDS];
}

static void fill(int kind, uint64_t seed, float *x, int64_t n) {
    if (kind < CODEC_INPUT_KINDS) { fill_input(kind, seed, x, n, 32); return; }
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        float v;
        switch (kind) {
        case K_TINY_NORMAL: v = rng_gauss(&s) * 1e-38f; break;
        case K_SIGNED_ZEROS: {
            uint64_t r = rng_next(&s) % 8;
            v = r < 3 ? 0.0f : r < 6 ? -0.0f : r == 6 ? (float)(int)(rng_next(&s) % 5) : -(float)(int)(rng_next(&s) % 5);
            break;
        }
        case K_ABS_TIES: v = (i % 32 == (int64_t)(s % 32) || i % 32 == 31) ? ((i & 1) ? -3.0f : 3.0f) : rng_unit(&s); break;
        case K_HALVES: v = ((float)(int)(rng_next(&s) % 33) - 16.0f) * 0.5f; break;
        case K_HUGE: v = (rng_unit(&s) * 2.0f - 1.0f) * FLT_MAX; break;
        default: v = (float)(int)(rng_next(&s) % 31) - 15.0f; break;
        }
        x[i] = v;
    }
}

/* ggml reference bytes: ggml_quantize_chunk, except q8_1 which ggml_quantize_chunk
 * refuses; its from_float_ref (quantize_row_q8_1_ref) is the encoder then. */
static void peer_encode(int type, const float *x, void *y, int64_t nrows, int64_t n_per_row, const float *imatrix) {
    if (type == MIO_TYPE_Q8_1) g_peer.traits(type)->from_float_ref(x, y, nrows * n_per_row);
    else peer_quantize(type, x, y, nrows, n_per_row, imatrix);
}

static int report_bytes(const char *what, int type, uint64_t seed, int kind, int64_t npr, int64_t rows, const uint8_t *a,
                        const uint8_t *b, size_t len) {
    int64_t i = first_diff(a, b, len);
    if (i < 0) return 0;
    size_t bb = mio_type_block_bytes(type);
    fprintf(stderr, "%s %s: seed %llu, input %s, n_per_row %lld x %lld rows: first differing byte %lld (block %lld, byte %lld): "
                    "ours %02x ggml %02x\n",
            what, mio_type_name(type), (unsigned long long)seed, kind_name(kind), (long long)npr, (long long)rows, (long long)i,
            (long long)(i / (int64_t)bb), (long long)(i % (int64_t)bb), a[i], b[i]);
    return 1;
}

static void interop_encode(uint64_t seed) {
    static const int64_t widths[] = {32, 64, 96, 256, 4096, 32 * 37};
    static const int64_t rows[] = {1, 3};
    float *x = malloc(4096 * 3 * sizeof(float)), *qw = malloc(4096 * sizeof(float));
    uint8_t *a = malloc(4096 * 3 * 2), *b = malloc(4096 * 3 * 2);
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t], fails = 0, wfails = 0;
        for (int kind = 0; kind < ALL_KINDS; kind++)
            for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
                for (size_t ri = 0; ri < sizeof rows / sizeof *rows; ri++) {
                    int64_t npr = widths[wi], nr = rows[ri], n = npr * nr;
                    uint64_t s = seed ^ ((uint64_t)kind << 40) ^ ((uint64_t)wi << 32) ^ ((uint64_t)ri << 24);
                    fill(kind, s, x, n);
                    size_t len = wire(type, (size_t)n);
                    memset(a, 0xa5, len);
                    memset(b, 0x5a, len);
                    peer_encode(type, x, b, nr, npr, NULL);
                    mio_status st = mio_encode_f32(type, x, (size_t)n, a, len);
                    if (st) { fprintf(stderr, "%s encode: %s\n", mio_type_name(type), mio_last_error()); fails++; continue; }
                    if (fails < 3) fails += report_bytes("encode", type, s, kind, npr, nr, a, b, len);
                    if (type == MIO_TYPE_Q8_1) continue; /* no weighted q8_1 in ggml */
                    /* importance matrix: random positive weights over the row */
                    uint64_t ws = s ^ 0x1234567ull;
                    for (int64_t j = 0; j < npr; j++) qw[j] = 0.01f + rng_unit(&ws) * (rng_unit(&ws) < 0.1f ? 100.0f : 2.0f);
                    memset(a, 0xa5, len);
                    memset(b, 0x5a, len);
                    peer_encode(type, x, b, nr, npr, qw);
                    st = mio_encode_f32_imatrix(type, x, (size_t)n, npr, qw, a, len);
                    if (st) { fprintf(stderr, "%s imatrix encode: %s\n", mio_type_name(type), mio_last_error()); wfails++; continue; }
                    if (wfails < 3) wfails += report_bytes("imatrix encode", type, s, kind, npr, nr, a, b, len);
                }
        T_EQ_INT(fails, 0);
        T_EQ_INT(wfails, 0);
        printf("interop encode %s: %s\n", mio_type_name(type), fails || wfails ? "DIFFERS" : "byte-exact (plain and imatrix)");
    }
    free(x); free(qw); free(a); free(b);
}

/* Decoders on random block bytes (every d bit pattern, NaN payloads included). */
static void interop_decode(uint64_t seed) {
    enum { NB = 4096 };
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t];
        peer_to_float_fn ref = peer_to_float(type);
        if (!ref) { printf("decode %s: ggml has no to_float (checked by hand below)\n", mio_type_name(type)); continue; }
        size_t len = wire(type, NB * 32);
        uint8_t *src = malloc(len);
        float *a = malloc(NB * 32 * sizeof(float)), *b = malloc(NB * 32 * sizeof(float));
        uint64_t s = seed ^ (uint64_t)type;
        for (size_t i = 0; i < len; i++) src[i] = (uint8_t)rng_next(&s);
        ref(src, b, NB * 32);
        T_OK(mio_decode_f32(type, src, len, a, NB * 32));
        int64_t i = first_float_diff(a, b, NB * 32);
        if (i >= 0) {
            uint32_t ua, ub;
            memcpy(&ua, a + i, 4);
            memcpy(&ub, b + i, 4);
            fprintf(stderr, "decode %s: seed %llu: first differing float %lld (block %lld): ours %08x ggml %08x\n",
                    mio_type_name(type), (unsigned long long)seed, (long long)i, (long long)(i / 32), ua, ub);
        }
        T_EQ_INT(i, -1);
        printf("interop decode %s: %s\n", mio_type_name(type), i < 0 ? "bit-exact" : "DIFFERS");
        free(src); free(a); free(b);
    }
}

/* --- checks without the peer --- */

static void hand_blocks(void) {
    float x[32];
    uint8_t y[64];
    /* q8_0: amax 127 -> d = 1.0 (f16 0x3c00), codes round half away from zero */
    for (int j = 0; j < 32; j++) x[j] = (float)j;
    x[0] = 127.0f; x[1] = 2.5f; x[2] = -2.5f; x[3] = 0.49f; x[4] = -126.5f;
    T_OK(mio_encode_f32(MIO_TYPE_Q8_0, x, 32, y, 34));
    T_EQ_INT(ld16(y), 0x3c00);
    T_EQ_INT((int8_t)y[2], 127); T_EQ_INT((int8_t)y[3], 3); T_EQ_INT((int8_t)y[4], -3);
    T_EQ_INT((int8_t)y[5], 0); T_EQ_INT((int8_t)y[6], -127); T_EQ_INT((int8_t)y[7], 5); T_EQ_INT((int8_t)y[33], 31);
    /* q8_1: same codes, s = sum * d */
    T_OK(mio_encode_f32(MIO_TYPE_Q8_1, x, 32, y, 36));
    int sum = 127 + 3 - 3 + 0 - 127;
    for (int j = 5; j < 32; j++) sum += j;
    T_EQ_INT(ld16(y), 0x3c00);
    T_EQ_INT(ld16(y + 2), sum == 486 ? 0x5f98 : -1); /* 486.0 in f16 */
    T_EQ_INT((int8_t)y[4], 127); T_EQ_INT((int8_t)y[35], 31);

    /* q4_0: first abs-max -8 -> d = 1 ; code = min(15, trunc(x + 8.5)) */
    for (int j = 0; j < 32; j++) x[j] = 0.0f;
    x[0] = -8.0f; x[1] = 3.0f; x[2] = 7.4f; x[3] = 0.5f; x[16] = 8.0f; x[17] = -0.6f;
    T_OK(mio_encode_f32(MIO_TYPE_Q4_0, x, 32, y, 18));
    T_EQ_INT(ld16(y), 0x3c00);
    T_EQ_INT(y[2], 0x00 | 15 << 4); /* -8 -> 0 ; 8 -> 16 clamped to 15 */
    T_EQ_INT(y[3], 11 | 7 << 4);    /* 3 -> 11 ; -0.6 -> trunc(7.9) = 7 */
    T_EQ_INT(y[4], 15 | 8 << 4);    /* 7.4 -> 15 ; 0 -> 8 */
    T_EQ_INT(y[5], 9 | 8 << 4);     /* 0.5 -> 9 */
    /* the first of +8 / -8 decides the sign: +8 first gives d = -1 */
    x[0] = 8.0f; x[16] = -8.0f;
    T_OK(mio_encode_f32(MIO_TYPE_Q4_0, x, 32, y, 18));
    T_EQ_INT(ld16(y), 0xbc00);
    /* all-zero block: d = 0 / -8 = -0.0 (f16 0x8000), codes 8 */
    memset(x, 0, sizeof x);
    T_OK(mio_encode_f32(MIO_TYPE_Q4_0, x, 32, y, 18));
    T_EQ_INT(ld16(y), 0x8000); T_EQ_INT(y[2], 0x88); T_EQ_INT(y[17], 0x88);

    /* q4_1: min -1, max 14 -> d = 1, m = -1 (0xbc00), code = trunc(x + 1 + 0.5) */
    for (int j = 0; j < 32; j++) x[j] = (float)(j % 16) - 1.0f;
    x[5] = 2.5f; /* 3.5 + 0.5 = 4.0 -> 4 */
    T_OK(mio_encode_f32(MIO_TYPE_Q4_1, x, 32, y, 20));
    T_EQ_INT(ld16(y), 0x3c00); T_EQ_INT(ld16(y + 2), 0xbc00);
    T_EQ_INT(y[4], 0x00); T_EQ_INT(y[5], 0x11); T_EQ_INT(y[9], 4 | 5 << 4); T_EQ_INT(y[19], 0xff);

    /* q5_0: abs-max -16 -> d = 1; x = 15 -> 31 (fifth bit set), x = -16 -> 0, x = 0 -> 16 */
    memset(x, 0, sizeof x);
    x[0] = -16.0f; x[1] = 15.0f; x[16] = 1.0f;
    T_OK(mio_encode_f32(MIO_TYPE_Q5_0, x, 32, y, 22));
    T_EQ_INT(ld16(y), 0x3c00);
    /* qh: bit j = fifth bit of code j; codes: 0, 31, 16 x14 | 17, 16 x15 */
    uint32_t qh = (uint32_t)y[2] | (uint32_t)y[3] << 8 | (uint32_t)y[4] << 16 | (uint32_t)y[5] << 24;
    T_EQ_U64(qh, 0xfffffffeu);
    T_EQ_INT(y[6], 0x0 | 0x1 << 4); T_EQ_INT(y[7], 0xf | 0x0 << 4);

    /* decoders by hand */
    uint8_t b[36] = {0x00, 0x3c, 0x1f};                    /* q4_0: d = 1, byte 0 = codes 15 / 1 */
    float out[32];
    T_OK(mio_decode_f32(MIO_TYPE_Q4_0, b, 18, out, 32));
    T_CHECK(out[0] == 7.0f && out[16] == -7.0f && out[1] == -8.0f);
    uint8_t b5[24] = {0x00, 0x40, 0x00, 0xbc, 0x01, 0x00, 0x01, 0x80, 0x2f}; /* q5_1: d = 2, m = -1, qh bits 0, 16, 31 */
    T_OK(mio_decode_f32(MIO_TYPE_Q5_1, b5, 24, out, 32));
    T_CHECK(out[0] == 2.0f * 31.0f - 1.0f); /* code 0xf | 0x10 */
    T_CHECK(out[16] == 2.0f * 18.0f - 1.0f); /* code 2 | 0x10 */
    T_CHECK(out[1] == -1.0f && out[31] == 2.0f * 16.0f - 1.0f);
    uint8_t b8[36] = {0x00, 0xc0, 0x12, 0x34, 0x81, 0x7f, 0x05}; /* q8_1: d = -2, s ignored */
    T_OK(mio_decode_f32(MIO_TYPE_Q8_1, b8, 36, out, 32));
    T_CHECK(out[0] == 254.0f && out[1] == -254.0f && out[2] == -10.0f && out[3] == -0.0f);
}

/* Round trip on gaussian data: per-element error within each type's step. */
static void error_bounds(uint64_t seed) {
    enum { N = 32 * 512 };
    float *x = malloc(N * sizeof(float)), *r = malloc(N * sizeof(float));
    uint8_t *y = malloc(N * 2);
    fill_input(IN_GAUSS, seed, x, N, 32);
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t];
        size_t bb = mio_type_block_bytes(type), len = wire(type, N);
        T_OK(mio_encode_f32(type, x, N, y, len));
        T_OK(mio_decode_f32(type, y, len, r, N));
        int bad = 0;
        double worst = 0;
        for (int b = 0; b < N / 32 && !bad; b++) {
            const float *xb = x + 32 * b;
            float amax = 0, mn = xb[0], mx = xb[0];
            for (int j = 0; j < 32; j++) {
                amax = fmaxf(amax, fabsf(xb[j]));
                mn = fminf(mn, xb[j]);
                mx = fmaxf(mx, xb[j]);
            }
            double bound;
            switch (type) {
            case MIO_TYPE_Q8_0: case MIO_TYPE_Q8_1: bound = amax / 127.0 * (0.5 + 127.0 / 2048); break; /* half a step + f16 d */
            case MIO_TYPE_Q4_0: bound = amax / 8.0 * (1.0 + 8.0 / 2048); break;   /* the clamped +8 end costs a full step */
            case MIO_TYPE_Q5_0: bound = amax / 16.0 * (1.0 + 16.0 / 2048); break;
            case MIO_TYPE_Q4_1: bound = (mx - mn) / 15.0 * (0.5 + 15.0 / 2048) + fabsf(mn) / 2048; break;
            default: bound = (mx - mn) / 31.0 * (0.5 + 31.0 / 2048) + fabsf(mn) / 2048; break;
            }
            bound += 1e-6 * amax;
            for (int j = 0; j < 32; j++) {
                double e = fabs((double)xb[j] - (double)r[32 * b + j]);
                if (e / bound > worst) worst = e / bound;
                if (e > bound) {
                    fprintf(stderr, "%s: block %d elem %d: x %.9g decoded %.9g error %.3g > bound %.3g (block bytes at %zu)\n",
                            mio_type_name(type), b, j, xb[j], r[32 * b + j], e, bound, (size_t)b * bb);
                    bad = 1;
                    break;
                }
            }
        }
        T_EQ_INT(bad, 0);
        printf("round trip %s: worst error %.2f of the bound\n", mio_type_name(type), worst);
    }
    free(x); free(r); free(y);
}

static void errors_and_alignment(uint64_t seed) {
    float x[96];
    uint8_t y[200];
    fill_input(IN_GAUSS, seed, x, 96, 32);
    /* NaN/inf refused with the first bad index */
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t];
        float z[96];
        memcpy(z, x, sizeof z);
        z[70] = INFINITY; z[37] = NAN;
        T_STATUS(mio_encode_f32(type, z, 96, y, wire(type, 96)), MIO_ERR_NON_FINITE);
        T_MSG_HAS("element 37 is NaN");
        z[37] = 1.0f;
        T_STATUS(mio_encode_f32(type, z, 96, y, wire(type, 96)), MIO_ERR_NON_FINITE);
        T_MSG_HAS("element 70 is +inf");
        T_CHECK(mio_type_can_encode(type) && mio_type_can_decode(type));
    }
    float w[32];
    for (int j = 0; j < 32; j++) w[j] = 1.0f;
    float z[64];
    memcpy(z, x, sizeof z);
    z[40] = -INFINITY;
    T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q4_0, z, 64, 32, w, y, 36), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 40 is -inf");
    /* lengths */
    T_STATUS(mio_encode_f32(MIO_TYPE_Q4_0, x, 33, y, 18), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("33 elements is not a whole number of q4_0 blocks (32 per block)");
    T_STATUS(mio_encode_f32(MIO_TYPE_Q5_1, x, 64, y, 47), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("64 elements of q5_1 take 48 bytes, 47 given");
    T_STATUS(mio_decode_f32(MIO_TYPE_Q8_0, y, 35, z, 32), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("take 34 bytes, 35 given");
    T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q4_1, x, 96, 48, w, y, 60), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("n_per_row 48");
    /* q8_1 has no weighted encoder (ggml_quantize_chunk refuses q8_1) */
    T_CHECK(!mio_type_can_encode_imatrix(MIO_TYPE_Q8_1));
    T_CHECK(mio_type_can_encode_imatrix(MIO_TYPE_Q4_0) && mio_type_can_encode_imatrix(MIO_TYPE_Q5_1));
    T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q8_1, x, 32, 32, w, y, 36), MIO_ERR_ENCODER_UNAVAILABLE);
    /* q8_0 ignores the weights, like ggml; NULL imatrix is the plain encoder */
    uint8_t p[68], q[68];
    T_OK(mio_encode_f32(MIO_TYPE_Q8_0, x, 64, p, 68));
    T_OK(mio_encode_f32_imatrix(MIO_TYPE_Q8_0, x, 64, 32, w, q, 68));
    T_CHECK(memcmp(p, q, 68) == 0);
    T_OK(mio_encode_f32_imatrix(MIO_TYPE_Q4_1, x, 64, 32, NULL, q, 40));
    T_OK(mio_encode_f32(MIO_TYPE_Q4_1, x, 64, p, 40));
    T_CHECK(memcmp(p, q, 40) == 0);
    /* any alignment: odd source and destination addresses give the same bytes */
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t];
        size_t len = wire(type, 64);
        uint8_t raw[64 * 4 + 8], out1[160], out2[160 + 3];
        float back1[64], back2raw[65];
        memcpy(raw + 3, x, 64 * 4);
        T_OK(mio_encode_f32(type, x, 64, out1, len));
        T_OK(mio_encode_f32(type, (const float *)(const void *)(raw + 3), 64, out2 + 1, len));
        T_CHECK(memcmp(out1, out2 + 1, len) == 0);
        T_OK(mio_decode_f32(type, out1, len, back1, 64));
        T_OK(mio_decode_f32(type, out2 + 1, len, (float *)(void *)((uint8_t *)back2raw + 2), 64));
        T_CHECK(memcmp(back1, (uint8_t *)back2raw + 2, sizeof back1) == 0);
    }
}

int main(void) {
    uint64_t seed = test_seed();
    hand_blocks();
    error_bounds(seed);
    errors_and_alignment(seed);
    if (peer_codec_load()) {
        interop_encode(seed);
        interop_decode(seed);
    } else {
        printf("interop part skipped (no ggml peer)\n");
    }
    T_DONE();
}
