/* SPDX-License-Identifier: MIT */
/* test_ternary.c — tq1_0, tq2_0, q1_0, q2_0 codecs: hand-checked blocks, round-trip
 * bounds, error cases, and (with the ggml peer) byte/bit comparison against
 * ggml_quantize_chunk / to_float on every adversarial input kind. The peer's type
 * table ends at q1_0, so q2_0 is compared with its exported quantize_q2_0 and
 * dequantize_row_q2_0 called directly. */
#include "codec_peer.h"
#include "codec_checks.h"
#include "modelio.h"
#include "test.h"

#include <float.h>

typedef size_t (*peer_quantize_fn)(const float *src, void *dst, int64_t nrows, int64_t n_per_row, const float *imatrix);

typedef struct tcase {
    int type;
    const char *name;
    int64_t bs;
    size_t bb;
    const char *q_sym, *dq_sym; /* exported per-type peer functions */
} tcase;

static const tcase g_cases[] = {
    {MIO_TYPE_TQ1_0, "tq1_0", 256, 54, "quantize_tq1_0", "dequantize_row_tq1_0"},
    {MIO_TYPE_TQ2_0, "tq2_0", 256, 66, "quantize_tq2_0", "dequantize_row_tq2_0"},
    {MIO_TYPE_Q1_0, "q1_0", 128, 18, "quantize_q1_0", "dequantize_row_q1_0"},
    {MIO_TYPE_Q2_0, "q2_0", 64, 18, "quantize_q2_0", "dequantize_row_q2_0"},
};
#define N_CASES (int)(sizeof g_cases / sizeof g_cases[0])

static float f16(uint16_t h) { return mio_fp16_to_f32(h); }

/* ---------------- without the peer ---------------- */

static void check_table(void) {
    for (int i = 0; i < N_CASES; i++) {
        const tcase *c = &g_cases[i];
        T_EQ_INT(mio_type_block_size(c->type), c->bs);
        T_EQ_U64(mio_type_block_bytes(c->type), c->bb);
        T_EQ_INT(mio_type_can_encode(c->type), 1);
        T_EQ_INT(mio_type_can_decode(c->type), 1);
        T_EQ_INT(mio_type_can_encode_imatrix(c->type), 1);
    }
}

static void check_hand_blocks(void) {
    uint8_t y[66];
    float x[256], back[256];

    /* tq1_0: x0 = 1, rest 0 -> d = 1; byte 0 holds trits (2,1,1,1,1) = 202 ->
     * ceil(202*256/243) = 213; other qs bytes 11111 = 121 -> 128; qh bytes
     * 1111 then shifted = 120 -> 127; f16 d = 0x3c00 at offset 52. */
    memset(x, 0, sizeof x);
    x[0] = 1.0f;
    T_OK(mio_encode_f32(MIO_TYPE_TQ1_0, x, 256, y, 54));
    T_EQ_INT(y[0], 213);
    T_EQ_INT(y[1], 128);
    T_EQ_INT(y[47], 128);
    T_EQ_INT(y[48], 127);
    T_EQ_INT(y[51], 127);
    T_EQ_INT(y[52] | y[53] << 8, 0x3c00);
    T_OK(mio_decode_f32(MIO_TYPE_TQ1_0, y, 54, back, 256));
    T_CHECK(back[0] == 1.0f && back[1] == 0.0f && back[255] == 0.0f);
    /* element 255 sits in qh[3] as the 4th trit: x255 = -1, x240 = 1. */
    memset(x, 0, sizeof x);
    x[255] = -1.0f;
    x[240] = 0.5f; /* lroundf(0.5) = 1: half away from zero */
    T_OK(mio_encode_f32(MIO_TYPE_TQ1_0, x, 256, y, 54));
    /* qh[0] trits (x240,x244,x248,x252) = (2,1,1,1) -> 2*27+9+3+1 = 67, *3 = 201 -> ceil(201*256/243) = 212 */
    T_EQ_INT(y[48], 212);
    /* qh[3] trits (x243,x247,x251,x255) = (1,1,1,0) -> 39, *3 = 117 -> ceil(117*256/243) = 124 */
    T_EQ_INT(y[51], 124);
    T_OK(mio_decode_f32(MIO_TYPE_TQ1_0, y, 54, back, 256));
    T_CHECK(back[240] == 1.0f && back[255] == -1.0f && back[254] == 0.0f);

    /* tq2_0: x0 = 1, x32 = -1, x64 = 0, x96 = 0.5 -> byte 0 = 2 | 0<<2 | 1<<4 | 2<<6 = 0x92. */
    memset(x, 0, sizeof x);
    x[0] = 1.0f; x[32] = -1.0f; x[96] = 0.5f;
    T_OK(mio_encode_f32(MIO_TYPE_TQ2_0, x, 256, y, 66));
    T_EQ_INT(y[0], 0x92);
    T_EQ_INT(y[1], 0x55);
    T_EQ_INT(y[63], 0x55);
    T_EQ_INT(y[64] | y[65] << 8, 0x3c00);
    /* code 3 (never produced by the encoder) decodes to 2*d */
    y[0] = 0x03;
    T_OK(mio_decode_f32(MIO_TYPE_TQ2_0, y, 66, back, 256));
    T_CHECK(back[0] == 2.0f && back[32] == -1.0f && back[1] == 0.0f);

    /* q1_0: 0.5 everywhere except x0 = -0.5 and x9 = -2 -> d = 65.5/128 = 0.51171875
     * = f16 0x3818; sign bits: byte 0 = 0xfe, byte 1 = 0xfd, others 0xff. */
    for (int i = 0; i < 128; i++) x[i] = 0.5f;
    x[0] = -0.5f; x[9] = -2.0f;
    T_OK(mio_encode_f32(MIO_TYPE_Q1_0, x, 128, y, 18));
    T_EQ_INT(y[0] | y[1] << 8, 0x3818);
    T_EQ_INT(y[2], 0xfe);
    T_EQ_INT(y[3], 0xfd);
    T_EQ_INT(y[17], 0xff);
    T_OK(mio_decode_f32(MIO_TYPE_Q1_0, y, 18, back, 128));
    T_CHECK(back[0] == -0.51171875f && back[9] == -0.51171875f && back[1] == 0.51171875f);
    /* -0.0 counts as non-negative (x >= 0) */
    for (int i = 0; i < 128; i++) x[i] = -0.0f;
    T_OK(mio_encode_f32(MIO_TYPE_Q1_0, x, 128, y, 18));
    T_EQ_INT(y[0] | y[1] << 8, 0);
    T_EQ_INT(y[2], 0xff);

    /* q2_0: x0 = 1, x1 = -1, x2 = 0, x3 = 0.5 -> byte 2 = 2 | 0<<2 | 1<<4 | 2<<6 = 0x92
     * (roundf(0.5) = 1), zeros give code 1 = 0x55 per byte; d = max |x| = 0x3c00. */
    memset(x, 0, sizeof x);
    x[0] = 1.0f; x[1] = -1.0f; x[3] = 0.5f;
    T_OK(mio_encode_f32(MIO_TYPE_Q2_0, x, 64, y, 18));
    T_EQ_INT(y[0] | y[1] << 8, 0x3c00);
    T_EQ_INT(y[2], 0x92);
    T_EQ_INT(y[3], 0x55);
    T_EQ_INT(y[17], 0x55);
    y[3] = 0x03; /* element 4 -> code 3 -> +2d */
    T_OK(mio_decode_f32(MIO_TYPE_Q2_0, y, 18, back, 64));
    T_CHECK(back[0] == 1.0f && back[1] == -1.0f && back[2] == 0.0f && back[3] == 1.0f && back[4] == 2.0f &&
            back[5] == -1.0f);
    /* all-zero block: d = 0, every code 1 */
    memset(x, 0, sizeof x);
    T_OK(mio_encode_f32(MIO_TYPE_Q2_0, x, 64, y, 18));
    T_EQ_INT(y[0] | y[1] << 8, 0);
    T_EQ_INT(y[10], 0x55);
}

/* Ternary types: |x - dec| <= half a step of the f16 scale (plus its rounding). */
static void check_round_trip(uint64_t seed) {
    enum { N = 4096 };
    static float x[N], back[N];
    static uint8_t y[N / 64 * 18 + 64];
    for (int i = 0; i < N_CASES; i++) {
        const tcase *c = &g_cases[i];
        for (int kind = 0; kind < CODEC_INPUT_KINDS; kind++) {
            fill_input(kind, seed + (uint64_t)kind, x, N, c->bs);
            size_t bytes = (size_t)(N / c->bs) * c->bb;
            T_OK(mio_encode_f32(c->type, x, N, y, bytes));
            T_OK(mio_decode_f32(c->type, y, bytes, back, N));
            int bad = 0;
            for (int64_t b = 0; b < N / c->bs && !bad; b++) {
                const float *xb = x + b * c->bs, *rb = back + b * c->bs;
                float amax = 0, sabs = 0;
                for (int64_t j = 0; j < c->bs; j++) {
                    amax = fmaxf(amax, fabsf(xb[j]));
                    sabs += fabsf(xb[j]);
                }
                if (c->type == MIO_TYPE_Q1_0) {
                    /* every value is +-f16(mean |x|) with the sign of x (x >= 0 -> +) */
                    float d = f16(mio_f32_to_fp16(sabs / 128));
                    for (int64_t j = 0; j < c->bs; j++)
                        if (rb[j] != (xb[j] >= 0 ? d : -d)) { bad = 1; break; }
                } else {
                    float d = f16(mio_f32_to_fp16(amax));
                    if (amax < 1e-30f) continue; /* reciprocal overflow territory: covered by the peer */
                    if (isinf(d)) { /* max |x| > 65504: the f16 scale is inf, every value inf or NaN (0 * inf) */
                        for (int64_t j = 0; j < c->bs; j++)
                            if (!isinf(rb[j]) && !isnan(rb[j])) { bad = 1; break; }
                        continue;
                    }
                    float tol = 0.5f * d + fabsf(d - amax) + amax * 1e-6f;
                    for (int64_t j = 0; j < c->bs; j++)
                        if (!(fabsf(xb[j] - rb[j]) <= tol)) { bad = 1; break; }
                }
                if (bad) printf("round trip %s kind %s block %lld out of bound\n", c->name, input_kind_name[kind], (long long)b);
            }
            T_EQ_INT(bad, 0);
        }
    }
}

static void check_errors(void) {
    float x[256] = {0};
    uint8_t y[128];
    x[37] = NAN;
    T_STATUS(mio_encode_f32(MIO_TYPE_TQ1_0, x, 256, y, 54), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 37");
    x[37] = 0;
    x[200] = -INFINITY;
    T_STATUS(mio_encode_f32(MIO_TYPE_TQ2_0, x, 256, y, 66), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 200");
    x[200] = 0;
    x[65] = INFINITY;
    T_STATUS(mio_encode_f32(MIO_TYPE_Q2_0, x, 128, y, 36), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 65");
    T_STATUS(mio_encode_f32(MIO_TYPE_Q1_0, x, 128, y, 18), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 65");
    x[65] = 0;
    /* lengths: not a whole block, wrong byte count */
    T_STATUS(mio_encode_f32(MIO_TYPE_Q2_0, x, 63, y, 18), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("whole number");
    T_STATUS(mio_encode_f32(MIO_TYPE_Q2_0, x, 64, y, 17), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("18 bytes");
    T_STATUS(mio_decode_f32(MIO_TYPE_TQ1_0, y, 55, x, 256), MIO_ERR_SIZE_MISMATCH);
    T_STATUS(mio_decode_f32(MIO_TYPE_Q1_0, y, 18, x, 64), MIO_ERR_SIZE_MISMATCH);
    /* imatrix: a bad n_per_row is refused; weights do not change the bytes (ggml ignores them) */
    float w[128];
    for (int i = 0; i < 128; i++) { w[i] = (float)(i % 5); x[i] = sinf((float)i); }
    uint8_t a[36], b[36];
    T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q2_0, x, 128, 96, w, a, 36), MIO_ERR_SIZE_MISMATCH);
    T_OK(mio_encode_f32_imatrix(MIO_TYPE_Q2_0, x, 128, 64, w, a, 36));
    T_OK(mio_encode_f32(MIO_TYPE_Q2_0, x, 128, b, 36));
    T_EQ_INT(memcmp(a, b, 36), 0);
}

/* A block whose max |x| is below 2^-128: 1 / max overflows, ggml's products are
 * +-inf or NaN, and its integer conversions give x86's "integer indefinite":
 * tq1_0/tq2_0 end with trit 1 everywhere (lroundf path), q2_0 with code 0 (the
 * (int)roundf path, clamped); the f16 scales round to 0. Next to it, a block
 * just above the threshold (1 / max finite) quantizes normally. */
static void check_reciprocal_overflow(void) {
    float x[256];
    uint8_t y[66];
    uint32_t bits = 0x001fffffu; /* 2^-128 - 2^-149 */
    float tiny;
    memcpy(&tiny, &bits, 4);
    for (int j = 0; j < 256; j++) x[j] = (float)(j % 3 - 1) * tiny;
    T_OK(mio_encode_f32(MIO_TYPE_TQ1_0, x, 256, y, 54));
    T_EQ_INT(y[0], 128); /* five trits 1 = 121 -> (121 * 256 + 242) / 243 = 128 */
    T_EQ_INT(y[47], 128);
    T_EQ_INT(y[48], 127); /* four trits 1 and the pad: 120 -> 127 */
    T_EQ_INT(y[51], 127);
    T_EQ_INT(y[52] | y[53] << 8, 0);
    T_OK(mio_encode_f32(MIO_TYPE_TQ2_0, x, 256, y, 66));
    T_EQ_INT(y[0], 0x55);
    T_EQ_INT(y[63], 0x55);
    T_EQ_INT(y[64] | y[65] << 8, 0);
    T_OK(mio_encode_f32(MIO_TYPE_Q2_0, x, 64, y, 18));
    T_EQ_INT(y[0] | y[1] << 8, 0);
    T_EQ_INT(y[2], 0);
    T_EQ_INT(y[17], 0);
    /* max = 2^-128 + 2^-148: 1 / max is finite, so x = max -> code 2, -max -> 0, 0 -> 1 */
    bits = 0x00200002u;
    memcpy(&tiny, &bits, 4);
    for (int j = 0; j < 64; j++) x[j] = (float)(j % 3 - 1) * tiny;
    T_OK(mio_encode_f32(MIO_TYPE_Q2_0, x, 64, y, 18));
    T_EQ_INT(y[2], 0x24); /* elements 0..3 = -1, 0, 1, -1 -> codes 0, 1, 2, 0 */
}

/* Multi-threaded output equals single-threaded; any alignment gives the same results. */
static void check_threads(uint64_t seed) {
    for (int i = 0; i < N_CASES; i++) check_type_threads(g_cases[i].type, IN_GAUSS, seed, 256 * 37, 3);
}

static void check_unaligned(uint64_t seed) {
    for (int i = 0; i < N_CASES; i++) check_type_unaligned(g_cases[i].type, seed, 512);
}

/* ---------------- against the peer ---------------- */

/* Extra inputs where a block scale's reciprocal overflows (x * inf = NaN/inf). */
static void fill_tiny(uint64_t seed, float *x, int64_t n) {
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)(rng_next(&s) % 9), bits = k;  /* 0..8 * 2^-149 */
        if (rng_next(&s) & 1) bits |= 0x80000000u;
        memcpy(x + i, &bits, 4);
    }
}

/* Blocks whose max |x| straddles 2^-128, where 1 / max stops overflowing (and
 * x / max is computed with a huge reciprocal), with elements at +-max / 2. */
static void fill_threshold(uint64_t seed, float *x, int64_t n, int64_t bs) {
    uint64_t s = seed;
    for (int64_t b = 0; b < n / bs; b++) {
        uint32_t abits = 0x00200000u + (uint32_t)(rng_next(&s) % 17) - 8u;
        float a;
        memcpy(&a, &abits, 4);
        for (int64_t j = 0; j < bs; j++) {
            float v;
            switch (rng_next(&s) % 4) {
            case 0: v = a; break;
            case 1: v = a * 0.5f; break;
            default: v = a * rng_unit(&s); break;
            }
            x[b * bs + j] = rng_next(&s) & 1 ? -v : v;
        }
    }
}

static int interop(uint64_t seed) {
    int failures = 0;
    for (int i = 0; i < N_CASES; i++) {
        const tcase *c = &g_cases[i];
        peer_quantize_fn pq;
        peer_to_float_fn pdq;
        *(void **)&pq = dlsym(g_peer.h, c->q_sym);
        *(void **)&pdq = dlsym(g_peer.h, c->dq_sym);
        if (!pq || !pdq) { printf("%s: peer lacks %s/%s\n", c->name, c->q_sym, c->dq_sym); failures++; continue; }
        /* through the type table when the peer has this type in it */
        bool table = c->type <= MIO_TYPE_Q1_0;
        if (table) {
            const peer_type_traits *tt = g_peer.traits(c->type);
            T_CHECK(tt && tt->blck_size == c->bs && tt->type_size == c->bb && peer_to_float(c->type) == pdq);
        }
        int64_t rows_len[] = {c->bs, 2 * c->bs, 4096, 8192 + 2 * c->bs};
        int checked = 0;
        for (int kind = 0; kind <= CODEC_INPUT_KINDS + 1; kind++) { /* then tiny denormals, scale threshold */
            for (size_t r = 0; r < sizeof rows_len / sizeof rows_len[0]; r++) {
                int64_t npr = rows_len[r], nrows = 3, n = npr * nrows;
                size_t bytes = (size_t)(n / c->bs) * c->bb;
                float *x = malloc((size_t)n * 4), *w = malloc((size_t)npr * 4);
                uint8_t *ref = malloc(bytes), *ours = malloc(bytes);
                uint64_t s = seed ^ ((uint64_t)kind << 32) ^ (uint64_t)npr;
                if (kind == CODEC_INPUT_KINDS) fill_tiny(s, x, n);
                else if (kind == CODEC_INPUT_KINDS + 1) fill_threshold(s, x, n, c->bs);
                else fill_input(kind, s, x, n, c->bs);
                for (int64_t j = 0; j < npr; j++) w[j] = rng_unit(&s) * 4.0f;
                const char *kname = kind == CODEC_INPUT_KINDS       ? "tiny-denormals"
                                    : kind == CODEC_INPUT_KINDS + 1 ? "scale-threshold"
                                                                    : input_kind_name[kind];
                for (int weighted = 0; weighted < 2; weighted++) {
                    const float *qw = weighted ? w : NULL;
                    size_t got = table ? peer_quantize(c->type, x, ref, nrows, npr, qw) : pq(x, ref, nrows, npr, qw);
                    T_EQ_U64(got, bytes);
                    mio_status st = weighted ? mio_encode_f32_imatrix(c->type, x, (size_t)n, npr, w, ours, bytes)
                                             : mio_encode_f32(c->type, x, (size_t)n, ours, bytes);
                    T_OK(st);
                    int64_t d = first_diff(ref, ours, bytes);
                    if (d >= 0) {
                        printf("MISMATCH %s%s seed %llu kind %s row %lld: byte %lld (block %lld) ggml %02x ours %02x\n",
                               c->name, weighted ? " (imatrix)" : "", (unsigned long long)seed, kname, (long long)npr,
                               (long long)d, (long long)(d / (int64_t)c->bb), ref[d], ours[d]);
                        failures++;
                    }
                    checked++;
                }
                free(x); free(w); free(ref); free(ours);
            }
        }
        /* decoder: random bytes (NaN/inf scales included) */
        {
            enum { NB = 512 };
            size_t bytes = NB * c->bb;
            int64_t n = NB * c->bs;
            uint8_t *q = malloc(bytes);
            float *ref = malloc((size_t)n * 4), *ours = malloc((size_t)n * 4);
            uint64_t s = seed * 31 + (uint64_t)c->type;
            for (size_t j = 0; j < bytes; j++) q[j] = (uint8_t)rng_next(&s);
            pdq(q, ref, n);
            T_OK(mio_decode_f32(c->type, q, bytes, ours, (size_t)n));
            int64_t d = first_float_diff(ref, ours, (size_t)n);
            if (d >= 0) {
                uint32_t a, b;
                memcpy(&a, ref + d, 4);
                memcpy(&b, ours + d, 4);
                printf("MISMATCH %s decode seed %llu: element %lld (block %lld) ggml %08x ours %08x\n", c->name,
                       (unsigned long long)seed, (long long)d, (long long)(d / c->bs), a, b);
                failures++;
            }
            free(q); free(ref); free(ours);
        }
        printf("%s: %d encodes compared (%d input kinds x 4 row lengths x plain/imatrix), decoder on random blocks%s\n",
               c->name, checked, CODEC_INPUT_KINDS + 2, table ? "" : " (peer functions called directly)");
    }
    return failures;
}

/* The peer's q2_0: exported functions work although the type table stops at q1_0. */
static void check_peer_q2_0_layout(void) {
    peer_quantize_fn pq;
    void (*ref_row)(const float *, void *, int64_t);
    *(void **)&pq = dlsym(g_peer.h, "quantize_q2_0");
    *(void **)&ref_row = dlsym(g_peer.h, "quantize_row_q2_0_ref");
    if (!pq || !ref_row) { printf("peer lacks quantize_q2_0 / quantize_row_q2_0_ref\n"); T_CHECK(pq && ref_row); return; }
    float x[128];
    uint8_t a[40], b[40];
    for (int i = 0; i < 128; i++) x[i] = (float)(i % 9) - 4.0f;
    memset(a, 0x5b, sizeof a);
    memset(b, 0x5b, sizeof b);
    T_EQ_U64(pq(x, a, 1, 128, NULL), 36); /* two 64-weight blocks of 18 bytes */
    ref_row(x, b, 128);
    T_EQ_INT(a[36], 0x5b);                /* nothing written past 36 bytes */
    T_EQ_INT(memcmp(a, b, 36), 0);
    T_EQ_INT(a[0] | a[1] << 8, 0x4400);   /* d = max |x| = 4 */
}

int main(void) {
    uint64_t seed = test_seed();
    check_table();
    check_hand_blocks();
    check_round_trip(seed);
    check_errors();
    check_reciprocal_overflow();
    check_threads(seed);
    check_unaligned(seed);
    if (peer_codec_load()) {
        check_peer_q2_0_layout();
        int f = interop(seed);
        T_EQ_INT(f, 0);
    } else {
        printf("interop part skipped (no peer)\n");
    }
    T_DONE();
}
