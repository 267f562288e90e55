/* SPDX-License-Identifier: MIT */
/* dot_legacy.c — the 32-element block types against q8_0 / q8_1 activations:
 * q4_0 q5_0 q8_0 iq4_nl mxfp4 (. q8_0) and q4_1 q5_1 (. q8_1), the pairs ggml's
 * CPU back end uses. Per block: the weight codes are unpacked once to 32 int8
 * values v[j] (element j of the block), then for each activation row
 *   isum = sum_j v[j] * q[j]                               (exact, int32)
 *   out += (dw * da) * isum                                (q4_0 q5_0 q8_0 iq4_nl)
 *   out += (dw * da) * isum + mw * sa                      (q4_1 q5_1: sa = the q8_1 s field,
 *                                                          f16 of da * sum_j q[j])
 *   out += (da * 2^(e-128)) * isum                         (mxfp4: v are the doubled e2m1 values)
 * all in f32, blocks in order. */
#include "dot/dot_internal.h"

#include "modelio.h"

#define QK 32

static const int8_t kv_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
/* e2m1 values times two */
static const int8_t kv_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

static inline int32_t idot32(const int8_t *v, const uint8_t *q) {
    int32_t s = 0;
    for (int j = 0; j < QK; j++) s += (int32_t)v[j] * (int8_t)q[j];
    return s;
}

/* 2^(e - 128) as ggml's e8m0 "half" conversion gives it (e = 0, 1: subnormal). */
static inline float e8m0_half(uint8_t e) {
    uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    return dot_u2f(bits);
}

/* Weight unpackers: v[32], the scale d (and the offset m for q4_1/q5_1). */
static inline void unpack_nib(const uint8_t *qs, int8_t *v, int off) {
    for (int j = 0; j < 16; j++) {
        v[j] = (int8_t)((qs[j] & 15) - off);
        v[j + 16] = (int8_t)((qs[j] >> 4) - off);
    }
}
/* g_spread[b]: byte i is bit i of b (0 or 1), to expand the 32 high bits of q5_0/q5_1
 * with whole-byte operations. Filled once by mio_dot_register_legacy (under pthread_once). */
static uint64_t g_spread[256];

static inline void unpack_nib5(const uint8_t *qs, uint32_t qh, int8_t *v, int off) {
    uint8_t hb[32];
    for (int k = 0; k < 4; k++) memcpy(hb + 8 * k, &g_spread[(qh >> (8 * k)) & 255u], 8);
    for (int j = 0; j < 16; j++) {
        v[j] = (int8_t)(((qs[j] & 15) | (hb[j] << 4)) - off);
        v[j + 16] = (int8_t)(((qs[j] >> 4) | (hb[j + 16] << 4)) - off);
    }
}
static inline void unpack_tab(const uint8_t *qs, int8_t *v, const int8_t *tab) {
    for (int j = 0; j < 16; j++) {
        v[j] = tab[qs[j] & 15];
        v[j + 16] = tab[qs[j] >> 4];
    }
}

/* Symmetric types . q8_0 (34-byte activation blocks: f16 d, 32 int8). */
#define SYM_DOT(name, WB, UNPACK, DW)                                                                  \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        for (size_t r = 0; r < m; r++) out[r] = 0.0f;                                                  \
        int8_t v[QK];                                                                                  \
        for (size_t b = 0; b < nb; b++) {                                                              \
            const uint8_t *x = w + b * (WB);                                                           \
            UNPACK;                                                                                    \
            const float dw = (DW);                                                                     \
            for (size_t r = 0; r < m; r++) {                                                           \
                const uint8_t *y = a + r * a_stride + b * 34;                                          \
                out[r] += (dw * dot_f16p(y)) * (float)idot32(v, y + 2);                                \
            }                                                                                          \
        }                                                                                              \
    }

SYM_DOT(k_q4_0, 18, unpack_nib(x + 2, v, 8), dot_f16p(x))
SYM_DOT(k_q5_0, 22, unpack_nib5(x + 6, dot_ld32(x + 2), v, 16), dot_f16p(x))
SYM_DOT(k_q8_0, 34, memcpy(v, x + 2, QK), dot_f16p(x))
SYM_DOT(k_iq4_nl, 18, unpack_tab(x + 2, v, kv_iq4nl), dot_f16p(x))
SYM_DOT(k_mxfp4, 17, unpack_tab(x + 1, v, kv_mxfp4), e8m0_half(x[0]))

/* Offset types . q8_1 (36-byte activation blocks: f16 d, f16 s, 32 int8). */
#define OFS_DOT(name, WB, UNPACK)                                                                      \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        for (size_t r = 0; r < m; r++) out[r] = 0.0f;                                                  \
        int8_t v[QK];                                                                                  \
        for (size_t b = 0; b < nb; b++) {                                                              \
            const uint8_t *x = w + b * (WB);                                                           \
            UNPACK;                                                                                    \
            const float dw = dot_f16p(x), mw = dot_f16p(x + 2);                                        \
            for (size_t r = 0; r < m; r++) {                                                           \
                const uint8_t *y = a + r * a_stride + b * 36;                                          \
                out[r] += (dw * dot_f16p(y)) * (float)idot32(v, y + 4) + mw * dot_f16p(y + 2);         \
            }                                                                                          \
        }                                                                                              \
    }

OFS_DOT(k_q4_1, 20, unpack_nib(x + 4, v, 0))
OFS_DOT(k_q5_1, 24, unpack_nib5(x + 8, dot_ld32(x + 4), v, 0))

void mio_dot_register_legacy(dot_kernel *t) {
    for (int b = 0; b < 256; b++) {
        uint8_t by[8];
        for (int i = 0; i < 8; i++) by[i] = (uint8_t)((b >> i) & 1);
        memcpy(&g_spread[b], by, 8);
    }
    t[MIO_TYPE_Q4_0] = (dot_kernel){k_q4_0, MIO_TYPE_Q8_0};
    t[MIO_TYPE_Q5_0] = (dot_kernel){k_q5_0, MIO_TYPE_Q8_0};
    t[MIO_TYPE_Q8_0] = (dot_kernel){k_q8_0, MIO_TYPE_Q8_0};
    t[MIO_TYPE_IQ4_NL] = (dot_kernel){k_iq4_nl, MIO_TYPE_Q8_0};
    t[MIO_TYPE_MXFP4] = (dot_kernel){k_mxfp4, MIO_TYPE_Q8_0};
    t[MIO_TYPE_Q4_1] = (dot_kernel){k_q4_1, MIO_TYPE_Q8_1};
    t[MIO_TYPE_Q5_1] = (dot_kernel){k_q5_1, MIO_TYPE_Q8_1};
}
