/* SPDX-License-Identifier: MIT */
/* test_packed.c — mio_pack_weights / mio_packed_matmul / mio_packed_layout /
 * mio_packed_free (docs/KERNELS.md §8), run once per ISA level (MIO_ISA):
 *  - hand-computed products for q4_0 and q8_0 (whole numbers a reader can
 *    check), including the code -128 of q8_0 and the nibbles 0 and 15;
 *  - every type with a tiled layout (q4_0 q8_0 iq4_nl against q8_0
 *    activations, q4_K q5_K q6_K iq4_xs against q8_K) on random data against
 *    this file's own reference — the portable kernel's arithmetic written out
 *    (per block (dw * da) * isum, minus (dmin * da) * summs for q4_K / q5_K,
 *    added in block order, in f32) on the activation blocks mio_encode_f32
 *    makes — bit for bit, for row counts around the tiles of 8 and 16 and m
 *    around the kernels' activation passes;
 *  - other types (a plain copy at every level) equal mio_matmul bit for bit;
 *  - the same result for 1, 2, 3 threads and "one per core", and row i of an
 *    m-row call equals a 1-row call;
 *  - refusals (NULL, unknown type, no kernel, partial blocks, overflow, NaN
 *    in x) with *out NULL; arbitrary weight bytes never crash. */
#include "modelio.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

T_XORSHIFT(0x2545F4914F6CDD1Dull)
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

static float f16(const uint8_t *p) {
    float v = 0;
    if (mio_decode_f32(MIO_TYPE_F16, p, 2, &v, 1)) abort();
    return v;
}

static size_t row_bytes(int type, size_t n) { return n / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type); }

/* ------------------------------------------------------------------ hand-checked */
/* 3 rows x 64 columns (2 blocks) against x = 127 everywhere: the q8_0
 * activation blocks have d = 1 (0x3C00) and every code 127.
 *  q8_0, d = 1: row 0 codes 1 -> 64 * 127 = 8128; row 1 codes 2 -> 16256;
 *               row 2 codes -128 -> -128 * 127 * 64 = -1040384.
 *  q4_0, d = 0.5 (0x3800): row 0 bytes 0xFF (codes 15 - 8 = 7 twice) ->
 *               0.5 * 7 * 127 * 64 = 28448; row 1 bytes 0x80 (low nibble 0 -> -8,
 *               high 8 -> 0) -> 0.5 * -8 * 127 * 32 = -16256; row 2 bytes 0x88
 *               (0 twice) -> 0. */
static void test_hand(void) {
    float x[2 * 64];
    for (int i = 0; i < 128; i++) x[i] = 127.0f;
    uint8_t w8[3 * 68], w4[3 * 36];
    const int c8[3] = {1, 2, -128};
    const uint8_t c4[3] = {0xFF, 0x80, 0x88};
    for (int r = 0; r < 3; r++)
        for (int b = 0; b < 2; b++) {
            uint8_t *q8 = w8 + r * 68 + b * 34, *q4 = w4 + r * 36 + b * 18;
            put16(q8, 0x3C00);
            memset(q8 + 2, (uint8_t)(int8_t)c8[r], 32);
            put16(q4, 0x3800);
            memset(q4 + 2, c4[r], 16);
        }
    const float e8[3] = {8128.0f, 16256.0f, -1040384.0f}, e4[3] = {28448.0f, -16256.0f, 0.0f};
    for (int t = 0; t < 2; t++) {
        mio_packed *p = NULL;
        T_OK(mio_pack_weights(t ? MIO_TYPE_Q4_0 : MIO_TYPE_Q8_0, t ? (void *)w4 : (void *)w8, 3, 64, &p));
        float y[6] = {0};
        T_OK(mio_packed_matmul(p, x, 2, y, 1));
        for (int i = 0; i < 2; i++)
            for (int r = 0; r < 3; r++) T_CHECK(y[i * 3 + r] == (t ? e4 : e8)[r]);
        mio_packed_free(p);
    }
}

/* ------------------------------------------------------------------ the reference */
/* iq4_nl's (and iq4_xs's) 16 values, from ggml's kvalues_iq4nl */
static const int8_t k_iq4[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

/* The portable kernel's arithmetic for one weight row (q4_0 / q8_0 / iq4_nl GGUF bytes)
 * against one q8_0 activation row: per block isum exactly, then
 * acc += (dw * da) * isum in f32 (this file is built without contraction). */
static float ref_row(int type, const uint8_t *w, const uint8_t *a, size_t nb) {
    float acc = 0.0f;
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *wb = w + b * (type == MIO_TYPE_Q8_0 ? 34 : 18), *ab = a + b * 34;
        int32_t isum = 0;
        for (int k = 0; k < 32; k++) {
            int v;
            int nib = k < 16 ? (wb[2 + k] & 15) : (wb[2 + k - 16] >> 4);
            if (type == MIO_TYPE_Q4_0) v = nib - 8;
            else if (type == MIO_TYPE_IQ4_NL) v = k_iq4[nib];
            else v = (int8_t)wb[2 + k];
            isum += v * (int8_t)ab[2 + k];
        }
        float s = f16(wb) * f16(ab);
        float t = s * (float)isum;
        acc = acc + t;
    }
    return acc;
}

/* The same for q4_K / q5_K / q6_K / iq4_xs against one q8_K activation row (f32 d, 256 codes,
 * 16 int16 sums of 16 codes at byte 260): per super-block the exact integer
 * sums, then acc += (dw * da) * isum - (dmin * da) * summs (q4_K, q5_K) or
 * acc += (dw * da) * isum (q6_K, iq4_xs). */
static float ref_row_k(int type, const uint8_t *w, const uint8_t *a, size_t nb) {
    float acc = 0.0f;
    for (size_t b = 0; b < nb; b++) {
        const size_t wb = type == MIO_TYPE_Q4_K ? 144 : type == MIO_TYPE_Q5_K ? 176 : type == MIO_TYPE_IQ4_XS ? 136 : 210;
        const uint8_t *x = w + b * wb, *ab = a + b * 292;
        float da;
        memcpy(&da, ab, 4);
        const int8_t *q = (const int8_t *)(ab + 4);
        int32_t isum = 0, summs = 0;
        if (type == MIO_TYPE_Q4_K || type == MIO_TYPE_Q5_K) {
            const int five = type == MIO_TYPE_Q5_K;
            const uint8_t *sc = x + 4, *qh = x + 16, *qs = x + (five ? 48 : 16);
            for (int sb = 0; sb < 8; sb++) { /* 6-bit scale and min of sub-block sb */
                int scale, mn;
                if (sb < 4) {
                    scale = sc[sb] & 0x3F;
                    mn = sc[sb + 4] & 0x3F;
                } else {
                    scale = (sc[sb + 4] & 0x0F) | ((sc[sb - 4] & 0xC0) >> 2);
                    mn = (sc[sb + 4] >> 4) | ((sc[sb] & 0xC0) >> 2);
                }
                int32_t d = 0;
                for (int l = 0; l < 32; l++) {
                    uint8_t byte = qs[32 * (sb / 2) + l];
                    int v = (sb % 2 ? byte >> 4 : byte & 15) + (five && (qh[l] >> sb) & 1 ? 16 : 0);
                    d += v * q[32 * sb + l];
                }
                isum += scale * d;
                int16_t b0, b1;
                memcpy(&b0, ab + 260 + 4 * sb, 2);
                memcpy(&b1, ab + 262 + 4 * sb, 2);
                summs += mn * (b0 + b1);
            }
            float t1 = (f16(x) * da) * (float)isum, t2 = (f16(x + 2) * da) * (float)summs;
            acc = acc + (t1 - t2);
        } else if (type == MIO_TYPE_IQ4_XS) {
            uint16_t sh;
            memcpy(&sh, x + 2, 2);
            for (int g = 0; g < 8; g++) { /* sub-block g: scale = 6 bits - 32 */
                int scale = (((x[4 + g / 2] >> (g % 2 ? 4 : 0)) & 15) | ((sh >> (2 * g)) & 3) << 4) - 32;
                int32_t d = 0;
                for (int l = 0; l < 16; l++)
                    d += k_iq4[x[8 + 16 * g + l] & 15] * q[32 * g + l] + k_iq4[x[8 + 16 * g + l] >> 4] * q[32 * g + 16 + l];
                isum += scale * d;
            }
            float t = (f16(x) * da) * (float)isum;
            acc = acc + t;
        } else {
            for (int e = 0; e < 256; e += 16) { /* sub-block e / 16 */
                int32_t d = 0;
                for (int l = e; l < e + 16; l++) {
                    int h = l / 128, s = (l % 128) / 32, k = l % 32;
                    int lo = (x[64 * h + 32 * (s & 1) + k] >> (s < 2 ? 0 : 4)) & 15;
                    int hi = (x[128 + 32 * h + k] >> (2 * s)) & 3;
                    d += ((hi << 4 | lo) - 32) * q[l];
                }
                isum += (int8_t)x[192 + e / 16] * d;
            }
            float t = (f16(x + 208) * da) * (float)isum;
            acc = acc + t;
        }
    }
    return acc;
}

static int same_bits(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t u, v;
        memcpy(&u, &a[i], 4);
        memcpy(&v, &b[i], 4);
        if (u != v) {
            fprintf(stderr, "  element %zu: %.9g != %.9g\n", i, (double)a[i], (double)b[i]);
            return 0;
        }
    }
    return 1;
}

/* One case: rows x cols of type, m activation rows. */
static void check_case(int type, size_t rows, size_t cols, size_t m) {
    size_t rb = row_bytes(type, cols), nb = cols / (size_t)mio_type_block_size(type);
    float *wf = malloc(sizeof(float) * rows * cols), *x = malloc(sizeof(float) * m * cols);
    uint8_t *w = malloc(rb * rows + 1);
    float *y = malloc(sizeof(float) * m * rows), *e = malloc(sizeof(float) * m * rows),
          *y1 = malloc(sizeof(float) * rows);
    if (!wf || !x || !w || !y || !e || !y1) abort();
    for (size_t i = 0; i < rows * cols; i++) wf[i] = frand() * (1.0f + (float)(i % 7));
    for (size_t i = 0; i < m * cols; i++) x[i] = frand() * 3.0f;
    T_OK(mio_encode_f32(type, wf, rows * cols, w, rb * rows));
    mio_packed *p = NULL;
    T_OK(mio_pack_weights(type, w, rows, cols, &p));
    if (!p) goto out;
    T_OK(mio_packed_matmul(p, x, m, y, 1));
    const char *lay = mio_packed_layout(p);
    if (strcmp(lay, "copy") != 0) {
        /* a tiled layout: the portable arithmetic, bit for bit */
        const int kq = mio_type_block_size(type) == 256;
        T_CHECK(kq || type == MIO_TYPE_Q4_0 || type == MIO_TYPE_Q8_0 || type == MIO_TYPE_IQ4_NL);
        const size_t ab = kq ? 292 : 34;
        uint8_t *a = malloc(nb * ab * m);
        if (!a) abort();
        T_OK(mio_encode_f32(kq ? MIO_TYPE_Q8_K : MIO_TYPE_Q8_0, x, m * cols, a, nb * ab * m));
        for (size_t i = 0; i < m; i++)
            for (size_t r = 0; r < rows; r++)
                e[i * rows + r] = kq ? ref_row_k(type, w + r * rb, a + i * nb * ab, nb)
                                     : ref_row(type, w + r * rb, a + i * nb * ab, nb);
        free(a);
    } else {
        T_OK(mio_matmul(type, w, rows, cols, x, m, e, 1));
    }
    if (!same_bits(y, e, m * rows)) {
        t_fail++;
        fprintf(stderr, "%s x %zu x %zu, m %zu (%s): differs from the reference\n", mio_type_name(type), rows, cols,
                m, lay);
    } else {
        t_pass++;
    }
    /* thread counts, and each activation row alone */
    const int threads[] = {2, 3, 0};
    for (int k = 0; k < 3; k++) {
        memset(e, 0xff, sizeof(float) * m * rows);
        T_OK(mio_packed_matmul(p, x, m, e, threads[k]));
        T_CHECK(same_bits(y, e, m * rows));
    }
    for (size_t i = 0; i < m; i += (m > 4 ? 3 : 1)) {
        T_OK(mio_packed_matmul(p, x + i * cols, 1, y1, 1));
        T_CHECK(same_bits(y1, y + i * rows, rows));
    }
out:
    mio_packed_free(p);
    free(wf), free(x), free(w), free(y), free(e), free(y1);
}

static void test_random(void) {
    const size_t rows[] = {1, 7, 8, 9, 15, 16, 17, 23, 33, 61};
    const size_t cols[] = {32, 96, 256, 768, 1024};
    const size_t ms[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 17, 32};
    const int types[] = {MIO_TYPE_Q4_0, MIO_TYPE_Q8_0, MIO_TYPE_IQ4_NL, MIO_TYPE_Q4_K,
                         MIO_TYPE_Q5_K, MIO_TYPE_Q6_K, MIO_TYPE_IQ4_XS};
    for (int t = 0; t < 7; t++)
        for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++)
            for (size_t b = 0; b < sizeof cols / sizeof cols[0]; b++) {
                if (cols[b] % (size_t)mio_type_block_size(types[t])) continue;
                for (size_t c = 0; c < sizeof ms / sizeof ms[0]; c += 1 + (a + b) % 3)
                    check_case(types[t], rows[a], cols[b], ms[c]);
            }
    /* plain copies: other block types and the float types */
    const int copies[] = {MIO_TYPE_F32, MIO_TYPE_F16, MIO_TYPE_BF16, MIO_TYPE_Q4_1, MIO_TYPE_Q5_0,
                          MIO_TYPE_Q3_K, MIO_TYPE_Q2_K, MIO_TYPE_TQ2_0, MIO_TYPE_MXFP4};
    for (size_t t = 0; t < sizeof copies / sizeof copies[0]; t++) {
        check_case(copies[t], 9, 512, 5);
        check_case(copies[t], 1, 256, 1);
    }
}

/* The layout names: tiled for q4_0 q8_0 iq4_nl q4_K q5_K q6_K iq4_xs at the
 * avx2, avx512 and neon levels, else a copy. */
static void test_layout(void) {
    uint8_t w[34] = {0};
    mio_packed *p = NULL;
    const char *isa = mio_cpu_isa();
    T_CHECK(isa != NULL);
    T_OK(mio_pack_weights(MIO_TYPE_Q8_0, w, 1, 32, &p));
    const char *lay = mio_packed_layout(p);
    if (isa && strcmp(isa, "avx2") == 0) T_EQ_STR(lay, "q8_0x8/avx2");
    else if (isa && strcmp(isa, "avx512") == 0) T_EQ_STR(lay, "q8_0x16/avx512-vnni");
    else if (isa && strcmp(isa, "neon") == 0) T_EQ_STR(lay, "q8_0x8/neon-dotprod");
    else T_EQ_STR(lay, "copy");
    mio_packed_free(p);
    T_OK(mio_pack_weights(MIO_TYPE_Q4_K, (uint8_t[144]){0}, 1, 256, &p));
    lay = mio_packed_layout(p);
    if (isa && strcmp(isa, "avx2") == 0) T_EQ_STR(lay, "q4_Kx8/avx2");
    else if (isa && strcmp(isa, "avx512") == 0) T_EQ_STR(lay, "q4_Kx16/avx512-vnni");
    else if (isa && strcmp(isa, "neon") == 0) T_EQ_STR(lay, "q4_Kx8/neon-dotprod");
    else T_EQ_STR(lay, "copy");
    mio_packed_free(p);
    T_OK(mio_pack_weights(MIO_TYPE_Q2_K, (uint8_t[84]){0}, 1, 256, &p));
    T_EQ_STR(mio_packed_layout(p), "copy");
    mio_packed_free(p);
    T_CHECK(mio_packed_layout(NULL) == NULL);
    mio_packed_free(NULL);
    /* no rows: packs, multiplies nothing */
    T_OK(mio_pack_weights(MIO_TYPE_Q4_0, w, 0, 32, &p));
    float x[32] = {0}, y = 42.0f;
    T_OK(mio_packed_matmul(p, x, 1, &y, 1));
    T_CHECK(y == 42.0f);
    mio_packed_free(p);
}

static void test_errors(void) {
    uint8_t w[64] = {0};
    float x[64] = {0}, y[8];
    mio_packed *p = (mio_packed *)w; /* must be reset to NULL on error */
    T_STATUS(mio_pack_weights(MIO_TYPE_Q4_0, NULL, 1, 32, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("mio_pack_weights: w is NULL");
    T_CHECK(p == NULL);
    T_STATUS(mio_pack_weights(MIO_TYPE_Q4_0, w, 1, 32, NULL), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("out is NULL");
    p = (mio_packed *)w;
    T_STATUS(mio_pack_weights(999, w, 1, 32, &p), MIO_ERR_UNSUPPORTED_TYPE);
    T_CHECK(p == NULL);
    T_STATUS(mio_pack_weights(MIO_TYPE_IQ2_XXS, w, 1, 256, &p), MIO_ERR_UNSUPPORTED_TYPE);
    T_MSG_HAS("no dot-product kernel");
    T_STATUS(mio_pack_weights(MIO_TYPE_Q4_0, w, 1, 48, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("not a multiple of the block size");
    T_STATUS(mio_pack_weights(MIO_TYPE_Q8_0, w, SIZE_MAX / 8, 32, &p), MIO_ERR_OVERFLOW);
    T_MSG_HAS("mio_pack_weights");
    T_CHECK(p == NULL);

    T_OK(mio_pack_weights(MIO_TYPE_Q8_0, w, 1, 32, &p));
    T_STATUS(mio_packed_matmul(NULL, x, 1, y, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("mio_packed_matmul: p is NULL");
    T_STATUS(mio_packed_matmul(p, NULL, 1, y, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("x is NULL");
    T_STATUS(mio_packed_matmul(p, x, 1, NULL, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("y is NULL");
    T_STATUS(mio_packed_matmul(p, x, SIZE_MAX / 16, y, 1), MIO_ERR_OVERFLOW);
    x[5] = NAN;
    T_STATUS(mio_packed_matmul(p, x, 1, y, 1), MIO_ERR_NON_FINITE);
    T_MSG_HAS("mio_packed_matmul");
    mio_packed_free(p);
}

/* Arbitrary weight bytes (NaN / inf scales, every code) never crash. */
static void test_random_bytes(void) {
    const int types[] = {MIO_TYPE_Q4_0, MIO_TYPE_Q8_0, MIO_TYPE_IQ4_NL, MIO_TYPE_Q4_K,
                         MIO_TYPE_Q5_K, MIO_TYPE_Q6_K, MIO_TYPE_IQ4_XS};
    uint8_t w[17 * 210];
    float x[512], y[17 * 3];
    for (size_t i = 0; i < sizeof w; i++) w[i] = (uint8_t)rnd();
    for (int i = 0; i < 512; i++) x[i] = frand();
    for (int t = 0; t < 7; t++) {
        mio_packed *p = NULL;
        size_t cols = mio_type_block_size(types[t]) == 256 ? 256 : 64;
        T_OK(mio_pack_weights(types[t], w, 17, cols, &p));
        T_OK(mio_packed_matmul(p, x, 2, y, 2));
        mio_packed_free(p);
    }
}

int main(void) {
    if (!mio_cpu_isa()) T_SKIP("MIO_ISA names a level this CPU cannot run");
    test_hand();
    test_random();
    test_layout();
    test_errors();
    test_random_bytes();
    printf("test_packed (%s): %d passed, %d failed\n", mio_cpu_isa(), t_pass, t_fail);
    return t_fail ? 1 : 0;
}
