/* SPDX-License-Identifier: MIT */
/* test_fp4.c — mxfp4 and nvfp4 codecs: hand-checked blocks (E8M0 / UE4M3 scales,
 * E2M1 codes), round-trip bounds, error cases, and (with the ggml peer) byte/bit
 * comparison against ggml_quantize_chunk / to_float on every adversarial input
 * kind, plus every UE4M3 scale byte through the peer's decoder. */
#include "codec_peer.h"
#include "codec_checks.h"
#include "modelio.h"
#include "test.h"

typedef struct fcase {
    int type;
    const char *name;
    int64_t bs;
    size_t bb;
} fcase;

static const fcase g_cases[] = {
    {MIO_TYPE_MXFP4, "mxfp4", 32, 17},
    {MIO_TYPE_NVFP4, "nvfp4", 64, 36},
};
#define N_CASES (int)(sizeof g_cases / sizeof g_cases[0])

static void check_table(void) {
    for (int i = 0; i < N_CASES; i++) {
        const fcase *c = &g_cases[i];
        T_EQ_INT(mio_type_block_size(c->type), c->bs);
        T_EQ_U64(mio_type_block_bytes(c->type), c->bb);
        T_EQ_INT(mio_type_can_encode(c->type), 1);
        T_EQ_INT(mio_type_can_decode(c->type), 1);
        T_EQ_INT(mio_type_can_encode_imatrix(c->type), 1);
    }
}

static void check_hand_blocks(void) {
    float x[64], back[64];
    uint8_t y[36];

    /* mxfp4: max |x| = 6 -> e = floor(log2 6) - 2 + 127 = 127, scale 2^0 = 1 per
     * E2M1 unit; 1 -> code 2, -0.5 -> code 9, 6 -> code 7, 0 -> 0; byte j packs
     * element j (low nibble) and element j + 16 (high nibble). */
    memset(x, 0, sizeof x);
    x[0] = 1.0f; x[1] = -0.5f; x[2] = 6.0f; x[16] = -4.0f; x[17] = 1.25f; /* 1.25: tie 1 / 1.5 -> first (1) */
    T_OK(mio_encode_f32(MIO_TYPE_MXFP4, x, 32, y, 17));
    T_EQ_INT(y[0], 127);
    T_EQ_INT(y[1], 0xe2); /* -4 = -8 half-units -> code 14 */
    T_EQ_INT(y[2], 0x29); /* 1.25 -> code 2 */
    T_EQ_INT(y[3], 0x07);
    T_EQ_INT(y[16], 0x00);
    T_OK(mio_decode_f32(MIO_TYPE_MXFP4, y, 17, back, 32));
    T_CHECK(back[0] == 1.0f && back[1] == -0.5f && back[2] == 6.0f && back[16] == -4.0f && back[17] == 1.0f);
    /* e = 0 decodes with scale 2^-127 (code 7 = 6 units = 1.5 * 2^-125); e = 255 with 2^128 (inf for big codes) */
    memset(y, 0, 17);
    y[1] = 0x07;
    T_OK(mio_decode_f32(MIO_TYPE_MXFP4, y, 17, back, 32));
    T_CHECK(back[0] == ldexpf(1.5f, -125) && back[16] == 0.0f);
    y[0] = 255;
    y[1] = 0x71; /* code 1 (0.5 units) and code 7 */
    T_OK(mio_decode_f32(MIO_TYPE_MXFP4, y, 17, back, 32));
    T_CHECK(back[0] == ldexpf(1.0f, 127) && isinf(back[16]));
    /* all zeros: e = 0, codes 0 */
    memset(x, 0, sizeof x);
    T_OK(mio_encode_f32(MIO_TYPE_MXFP4, x, 32, y, 17));
    T_EQ_INT(y[0], 0);
    T_EQ_INT(y[5], 0);

    /* nvfp4: sub-block 0 max |x| = 6 -> UE4M3(6/6 = 1.0) = 0x38 (exp 7, man 0);
     * 6 -> code 7, -3 -> code 13, 0.5 -> code 1; byte j of a sub-block packs
     * elements j and j + 8. Sub-block 1 max 0.75 -> UE4M3(0.125) = 0x20 ... */
    memset(x, 0, sizeof x);
    x[0] = 6.0f; x[1] = -3.0f; x[2] = 0.5f; x[8] = 2.0f;
    x[16] = 0.75f;  /* sub-block 1: 0.75/6 = 0.125 = 2^-3 -> exp 4 -> 0x20; 0.75 = 6 units of 0.125 -> code 7 */
    x[32] = 448.0f * 6.0f * 2.0f; /* sub-block 2: saturates to 0x7e (448) */
    T_OK(mio_encode_f32(MIO_TYPE_NVFP4, x, 64, y, 36));
    T_EQ_INT(y[0], 0x38);
    T_EQ_INT(y[1], 0x20);
    T_EQ_INT(y[2], 0x7e);
    T_EQ_INT(y[3], 0x00);
    T_EQ_INT(y[4], 0x47); /* 6 -> 7, x8 = 2 -> code 4 */
    T_EQ_INT(y[5], 0x0d);
    T_EQ_INT(y[6], 0x01);
    T_EQ_INT(y[12], 0x07);
    T_EQ_INT(y[20], 0x07); /* 5376 clamps to 6 units of 448 = 2688 */
    T_OK(mio_decode_f32(MIO_TYPE_NVFP4, y, 36, back, 64));
    T_CHECK(back[0] == 6.0f && back[1] == -3.0f && back[2] == 0.5f && back[8] == 2.0f && back[16] == 0.75f &&
            back[32] == 2688.0f && back[48] == 0.0f);
    /* UE4M3 specials: 0x7f reads as 0, bit 7 is ignored (0xb8 = 0x38), 0x01 = 2^-9 subnormal */
    memset(y, 0, 36);
    y[0] = 0x7f; y[1] = 0xb8; y[2] = 0x01; y[3] = 0xff;
    y[4] = 0x07; y[12] = 0x07; y[20] = 0x02; y[28] = 0x07;
    T_OK(mio_decode_f32(MIO_TYPE_NVFP4, y, 36, back, 64));
    T_CHECK(back[0] == 0.0f && back[16] == 6.0f && back[32] == ldexpf(1.0f, -9) && back[48] == 6.0f * 480.0f);
}

/* mxfp4's shared exponent is ggml's floor(log2f(max |x|)) - 2 + 127, where
 * log2f rounds up to the next integer for a max just below a power of two:
 * 16 - 2^-20 gives log2f = 4.0 (e = 129), although its binary exponent is 3;
 * 2 - 2^-23 gives 0.99999994 (e = 125). The sign fold of the code search: -0
 * and 0 give code 0, a negative tie (-1.25: -1 / -1.5) keeps the first (-1). */
static void check_mxfp4_exponent_edges(void) {
    float x[32] = {0};
    uint8_t y[17];
    x[5] = -(16.0f - ldexpf(1.0f, -20));
    T_OK(mio_encode_f32(MIO_TYPE_MXFP4, x, 32, y, 17));
    T_EQ_INT(y[0], 129);
    T_EQ_INT(y[6], 0x0e); /* scale 2 per half-unit: -15.99 is nearest -8 units = -16 -> code 14 */
    x[5] = 2.0f - ldexpf(1.0f, -23);
    T_OK(mio_encode_f32(MIO_TYPE_MXFP4, x, 32, y, 17));
    T_EQ_INT(y[0], 125);
    T_EQ_INT(y[6], 0x07); /* scale 2^-3 per half-unit: top code 7 = 12 units = 1.5 */
    x[5] = 6.0f;
    x[0] = -0.0f;
    x[1] = -1.25f;
    x[17] = 1.25f;
    x[2] = -0.25f; /* tie 0 / -0.5 -> code 0 */
    T_OK(mio_encode_f32(MIO_TYPE_MXFP4, x, 32, y, 17));
    T_EQ_INT(y[0], 127);
    T_EQ_INT(y[1], 0x00);
    T_EQ_INT(y[2], 0x2a); /* -1.25 -> code 10 (-1), 1.25 -> code 2 */
    T_EQ_INT(y[3], 0x00);
}

/* |x - dec| within the grid's half gap (one scale unit) or the clipping at the top code. */
static void check_round_trip(uint64_t seed) {
    enum { N = 4096 };
    static float x[N], back[N];
    static uint8_t y[N / 64 * 36];
    for (int i = 0; i < N_CASES; i++) {
        const fcase *c = &g_cases[i];
        int64_t sub = c->type == MIO_TYPE_MXFP4 ? 32 : 16;
        for (int kind = 0; kind < CODEC_INPUT_KINDS; kind++) {
            fill_input(kind, seed + (uint64_t)kind, x, N, c->bs);
            size_t bytes = (size_t)(N / c->bs) * c->bb;
            T_OK(mio_encode_f32(c->type, x, N, y, bytes));
            T_OK(mio_decode_f32(c->type, y, bytes, back, N));
            int bad = 0;
            for (int64_t b = 0; b < N / sub && !bad; b++) {
                const float *xb = x + b * sub, *rb = back + b * sub;
                float amax = 0;
                for (int64_t j = 0; j < sub; j++) amax = fmaxf(amax, fabsf(xb[j]));
                float unit; /* value of one E2M1 half-step ("0.5") */
                if (c->type == MIO_TYPE_MXFP4) {
                    if (amax < 1e-37f) continue; /* exponent arithmetic wraps below 2^-125: peer-checked */
                    unit = ldexpf(1.0f, (int)floorf(log2f(amax)) - 3);
                } else {
                    if (amax / 6 < ldexpf(1.0f, -6) || amax / 6 > 448.0f) continue; /* subnormal or saturated scale: peer-checked */
                    unit = amax / 6 * 0.5f * 1.07f;
                }
                for (int64_t j = 0; j < sub; j++) {
                    /* worst case: half of the largest gap (2 units between 8 and 12 half-steps)
                     * or the clip above 12 half-steps (mxfp4 amax < 16 half-steps) */
                    float tol = 4.0f * unit;
                    if (!(fabsf(xb[j] - rb[j]) <= tol)) {
                        printf("round trip %s kind %s element %lld: %g -> %g (unit %g)\n", c->name, input_kind_name[kind],
                               (long long)(b * sub + j), (double)xb[j], (double)rb[j], (double)unit);
                        bad = 1;
                        break;
                    }
                }
            }
            T_EQ_INT(bad, 0);
        }
    }
}

static void check_errors(void) {
    float x[128] = {0};
    uint8_t y[72];
    x[33] = NAN;
    T_STATUS(mio_encode_f32(MIO_TYPE_MXFP4, x, 64, y, 34), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 33");
    x[33] = 0;
    x[127] = -INFINITY;
    T_STATUS(mio_encode_f32(MIO_TYPE_NVFP4, x, 128, y, 72), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 127");
    x[127] = 0;
    T_STATUS(mio_encode_f32(MIO_TYPE_NVFP4, x, 32, y, 18), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("whole number");
    T_STATUS(mio_encode_f32(MIO_TYPE_MXFP4, x, 32, y, 16), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("17 bytes");
    T_STATUS(mio_decode_f32(MIO_TYPE_NVFP4, y, 36, x, 32), MIO_ERR_SIZE_MISMATCH);
    float w[64];
    for (int i = 0; i < 64; i++) { w[i] = (float)(i % 3); x[i] = cosf((float)i) * 3.0f; }
    uint8_t a[36], b[36];
    T_OK(mio_encode_f32_imatrix(MIO_TYPE_NVFP4, x, 64, 64, w, a, 36));
    T_OK(mio_encode_f32(MIO_TYPE_NVFP4, x, 64, b, 36));
    T_EQ_INT(memcmp(a, b, 36), 0);
}

/* Multi-threaded output equals single-threaded; any alignment gives the same results. */
static void check_threads(uint64_t seed) {
    for (int i = 0; i < N_CASES; i++) check_type_threads(g_cases[i].type, IN_HEAVY_TAILS, seed, 64 * 101, 4);
}

static void check_unaligned(uint64_t seed) {
    for (int i = 0; i < N_CASES; i++) check_type_unaligned(g_cases[i].type, seed, 512);
}

/* ---------------- against the peer ---------------- */

/* Extra inputs: amax right at UE4M3 / E8M0 rounding boundaries and tiny magnitudes. */
static void fill_edges(uint64_t seed, float *x, int64_t n) {
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        int e = (int)(rng_next(&s) % 277) - 149; /* 2^-149 .. 2^127 */
        float m = 1.0f + (float)(rng_next(&s) % 16) / 16.0f; /* on and between E2M1 / UE4M3 steps */
        float v = ldexpf(m, e);
        if (rng_next(&s) & 1) v = -v;
        if (rng_next(&s) % 4 == 0) v = 0.0f;
        x[i] = v;
    }
}

static int interop(uint64_t seed) {
    int failures = 0;
    for (int i = 0; i < N_CASES; i++) {
        const fcase *c = &g_cases[i];
        const peer_type_traits *tt = g_peer.traits(c->type);
        T_CHECK(tt && tt->blck_size == c->bs && tt->type_size == c->bb);
        peer_to_float_fn pdq = peer_to_float(c->type);
        T_CHECK(pdq != NULL);
        if (!pdq) { failures++; continue; }
        int64_t rows_len[] = {c->bs, 2 * c->bs, 4096, 8192 + 2 * c->bs};
        int checked = 0;
        for (int kind = 0; kind <= CODEC_INPUT_KINDS; kind++) { /* last = scale edges */
            for (size_t r = 0; r < sizeof rows_len / sizeof rows_len[0]; r++) {
                int64_t npr = rows_len[r], nrows = 3, n = npr * nrows;
                size_t bytes = (size_t)(n / c->bs) * c->bb;
                float *x = malloc((size_t)n * 4), *w = malloc((size_t)npr * 4);
                uint8_t *ref = malloc(bytes), *ours = malloc(bytes);
                uint64_t s = seed ^ ((uint64_t)kind << 32) ^ (uint64_t)npr;
                if (kind == CODEC_INPUT_KINDS) fill_edges(s, x, n);
                else fill_input(kind, s, x, n, c->bs);
                for (int64_t j = 0; j < npr; j++) w[j] = rng_unit(&s) * 4.0f;
                const char *kname = kind == CODEC_INPUT_KINDS ? "scale-edges" : input_kind_name[kind];
                for (int weighted = 0; weighted < 2; weighted++) {
                    const float *qw = weighted ? w : NULL;
                    T_EQ_U64(peer_quantize(c->type, x, ref, nrows, npr, qw), bytes);
                    T_OK(weighted ? mio_encode_f32_imatrix(c->type, x, (size_t)n, npr, w, ours, bytes)
                                  : mio_encode_f32(c->type, x, (size_t)n, ours, bytes));
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
        /* decoder: random bytes, then every scale byte with every code */
        {
            enum { NB = 1024 };
            size_t bytes = NB * c->bb;
            int64_t n = NB * c->bs;
            uint8_t *q = malloc(bytes);
            float *ref = malloc((size_t)n * 4), *ours = malloc((size_t)n * 4);
            uint64_t s = seed * 31 + (uint64_t)c->type;
            for (size_t j = 0; j < bytes; j++) q[j] = (uint8_t)rng_next(&s);
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) /* block b: scale byte(s) b % 256, codes 0..15 in order */
                    for (int64_t b = 0; b < NB; b++) {
                        uint8_t *blk = q + (size_t)b * c->bb;
                        size_t nscale = c->type == MIO_TYPE_MXFP4 ? 1 : 4;
                        for (size_t k = 0; k < nscale; k++) blk[k] = (uint8_t)((b + (int64_t)k * 64) % 256);
                        for (size_t k = nscale; k < c->bb; k++) blk[k] = (uint8_t)(((k * 2) & 15) | (((k * 2 + 1) & 15) << 4));
                    }
                pdq(q, ref, n);
                T_OK(mio_decode_f32(c->type, q, bytes, ours, (size_t)n));
                int64_t d = first_float_diff(ref, ours, (size_t)n);
                if (d >= 0) {
                    uint32_t a, b;
                    memcpy(&a, ref + d, 4);
                    memcpy(&b, ours + d, 4);
                    printf("MISMATCH %s decode (%s) seed %llu: element %lld (block %lld) ggml %08x ours %08x\n", c->name,
                           pass ? "every scale byte" : "random bytes", (unsigned long long)seed, (long long)d,
                           (long long)(d / c->bs), a, b);
                    failures++;
                }
            }
            free(q); free(ref); free(ours);
        }
        printf("%s: %d encodes compared (%d input kinds x 4 row lengths x plain/imatrix), decoder on random blocks and "
               "every scale byte\n", c->name, checked, CODEC_INPUT_KINDS + 1);
    }
    return failures;
}

int main(void) {
    uint64_t seed = test_seed();
    check_table();
    check_hand_blocks();
    check_mxfp4_exponent_edges();
    check_round_trip(seed);
    check_errors();
    check_threads(seed);
    check_unaligned(seed);
    if (peer_codec_load()) {
        int f = interop(seed);
        T_EQ_INT(f, 0);
    } else {
        printf("interop part skipped (no peer)\n");
    }
    T_DONE();
}
