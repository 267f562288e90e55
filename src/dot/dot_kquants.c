/* SPDX-License-Identifier: MIT */
/* dot_kquants.c — the 256-element super-block types against q8_K activations
 * (f32 d, 256 int8 codes, 16 int16 sums of 16 codes each), the pairs ggml's CPU
 * back end uses: q2_K q3_K q4_K q5_K q6_K tq1_0 tq2_0 iq4_xs.
 * Per super-block: the weight codes are unpacked once to 256 int8 values v[j]
 * and the sub-block scales to integers sc[g] (sub-blocks of G = 16 or 32
 * elements); then for each activation row
 *   isum  = sum_g sc[g] * sum_{j in g} v[j] * q[j]          (exact, int32)
 *   summs = sum_k bsums[k] * min[k]                         (q2_K q4_K q5_K: exact)
 *   out  += (dw * da) * isum - (dmin * da) * summs          (f32; blocks in order)
 * |isum| stays below 2^31: at most 256 * 128 (|q|) * 64 (|v|) * 128 (|sc|) = 2^28. */
#include "dot/dot_internal.h"

#include "modelio.h"

#define QK_K 256
#define A_BYTES 292 /* q8_K */

static const int8_t k_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

static inline int32_t kdot(const int8_t *v, const int8_t *q, const int32_t *sc, int g_size) {
    int32_t tot = 0;
    for (int g = 0; g < QK_K / g_size; g++) {
        int32_t s = 0;
        for (int j = 0; j < g_size; j++) s += (int32_t)v[g * g_size + j] * q[g * g_size + j];
        tot += sc[g] * s;
    }
    return tot;
}

static inline int32_t idot256(const int8_t *v, const int8_t *q) {
    int32_t s = 0;
    for (int j = 0; j < QK_K; j++) s += (int32_t)v[j] * q[j];
    return s;
}

static inline int32_t bsum_dot(const uint8_t *y, const int32_t *mins16) {
    int32_t s = 0;
    for (int k = 0; k < 16; k++) s += (int32_t)(int16_t)dot_ld16(y + 260 + 2 * k) * mins16[k];
    return s;
}

/* The 6-bit scale/min pairs of q4_K / q5_K (12 bytes, 8 pairs). */
static inline void scale_min_k4(const uint8_t *q, int32_t *sc, int32_t *mn) {
    for (int j = 0; j < 8; j++) {
        if (j < 4) {
            sc[j] = q[j] & 63;
            mn[j] = q[j + 4] & 63;
        } else {
            sc[j] = (q[j + 4] & 15) | ((q[j - 4] >> 6) << 4);
            mn[j] = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
        }
    }
}

/* The loop shared by every type: UNPACK fills v, sc (and mins16 when HAS_MIN),
 * dw and dmin from the weight block x. */
#define KDOT(name, WB, G, HAS_MIN, UNPACK)                                                               \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        for (size_t r = 0; r < m; r++) out[r] = 0.0f;                                                    \
        int8_t v[QK_K];                                                                                  \
        int32_t sc[QK_K / 16] = {0}, mins16[16] = {0};                                                             \
        float dw, dmin = 0.0f;                                                                           \
        (void)mins16;                                                                                    \
        (void)dmin;                                                                                      \
        for (size_t b = 0; b < nb; b++) {                                                                \
            const uint8_t *x = w + b * (WB);                                                             \
            UNPACK;                                                                                      \
            for (size_t r = 0; r < m; r++) {                                                             \
                const uint8_t *y = a + r * a_stride + b * A_BYTES;                                       \
                const float da = dot_ldf(y);                                                             \
                const int8_t *q = (const int8_t *)(y + 4);                                               \
                const int32_t isum = (G) ? kdot(v, q, sc, (G) ? (G) : 1) : idot256(v, q);                \
                if (HAS_MIN)                                                                             \
                    out[r] += (dw * da) * (float)isum - (dmin * da) * (float)bsum_dot(y, mins16);        \
                else                                                                                     \
                    out[r] += (dw * da) * (float)isum;                                                   \
            }                                                                                            \
        }                                                                                                \
    }

/* q2_K (84 bytes): scales[16] (low nibble scale, high nibble min), qs[64], f16 d, f16 dmin.
 * Element 128h + 32s + l is bits 2s..2s+1 of qs[32h + l]; its sub-block is (128h + 32s + l) / 16. */
static inline void unpack_q2_K(const uint8_t *x, int8_t *v, int32_t *sc, int32_t *mins16, float *dw, float *dmin) {
    for (int h = 0; h < 2; h++)
        for (int s = 0; s < 4; s++)
            for (int l = 0; l < 32; l++) v[128 * h + 32 * s + l] = (int8_t)((x[16 + 32 * h + l] >> (2 * s)) & 3);
    for (int k = 0; k < 16; k++) {
        sc[k] = x[k] & 15;
        mins16[k] = x[k] >> 4;
    }
    *dw = dot_f16p(x + 80);
    *dmin = dot_f16p(x + 82);
}

/* q3_K (110 bytes): hmask[32], qs[64], scales[12] (16 6-bit scales, minus 32), f16 d.
 * Element 128h + 32s + l: bits 2s..2s+1 of qs[32h + l], minus 4 unless bit 4h+s of hmask[l]. */
static inline void unpack_q3_K(const uint8_t *x, int8_t *v, int32_t *sc, float *dw) {
    const uint8_t *hm = x, *qs = x + 32, *s8 = x + 96;
    for (int h = 0; h < 2; h++)
        for (int s = 0; s < 4; s++)
            for (int l = 0; l < 32; l++)
                v[128 * h + 32 * s + l] =
                    (int8_t)(((qs[32 * h + l] >> (2 * s)) & 3) - ((hm[l] >> (4 * h + s)) & 1 ? 0 : 4));
    for (int k = 0; k < 16; k++) {
        int lo = k < 8 ? s8[k] & 15 : s8[k - 8] >> 4;
        int hi = (s8[8 + k % 4] >> (2 * (k / 4))) & 3;
        sc[k] = (lo | (hi << 4)) - 32;
    }
    *dw = dot_f16p(x + 108);
}

/* q4_K (144 bytes): f16 d, f16 dmin, scales[12], qs[128]; q5_K (176 bytes) adds qh[32]
 * before qs. Element 64c + l is the low nibble of qs[32c + l], 64c + 32 + l its high
 * nibble (+16 when bit 2c, resp. 2c+1, of qh[l] is set). Sub-blocks of 32. */
static inline void unpack_q45_K(const uint8_t *x, int five, int8_t *v, int32_t *sc, int32_t *mins16, float *dw,
                                float *dmin) {
    const uint8_t *qh = x + 16, *qs = x + (five ? 48 : 16);
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 32; l++) {
            int lo = qs[32 * c + l] & 15, hi = qs[32 * c + l] >> 4;
            if (five) {
                lo += (qh[l] >> (2 * c)) & 1 ? 16 : 0;
                hi += (qh[l] >> (2 * c + 1)) & 1 ? 16 : 0;
            }
            v[64 * c + l] = (int8_t)lo;
            v[64 * c + 32 + l] = (int8_t)hi;
        }
    int32_t mn[8];
    scale_min_k4(x + 4, sc, mn);
    for (int k = 0; k < 16; k++) mins16[k] = mn[k / 2];
    *dw = dot_f16p(x);
    *dmin = dot_f16p(x + 2);
}

/* q6_K (210 bytes): ql[128], qh[64], int8 scales[16], f16 d. Element 128h + 32s + l:
 * nibble (s / 2) of ql[64h + 32(s % 2) + l], with bits 2s..2s+1 of qh[32h + l] on top, minus 32. */
static inline void unpack_q6_K(const uint8_t *x, int8_t *v, int32_t *sc, float *dw) {
    const uint8_t *ql = x, *qh = x + 128;
    for (int h = 0; h < 2; h++)
        for (int s = 0; s < 4; s++)
            for (int l = 0; l < 32; l++) {
                int lo = (ql[64 * h + 32 * (s % 2) + l] >> (4 * (s / 2))) & 15;
                int hi = (qh[32 * h + l] >> (2 * s)) & 3;
                v[128 * h + 32 * s + l] = (int8_t)((lo | (hi << 4)) - 32);
            }
    for (int k = 0; k < 16; k++) sc[k] = (int8_t)x[192 + k];
    *dw = dot_f16p(x + 208);
}

/* tq1_0 (54 bytes): qs[48], qh[4], f16 d. Each byte holds 5 (qs) or 4 (qh) base-3 digits,
 * digit l being ((uint8_t)(byte * 3^l) * 3) >> 8; value digit - 1. Element order:
 * qs[m] (m < 32) digit l -> 32l + m; qs[32 + m] (m < 16) digit l -> 160 + 16l + m;
 * qh[j] digit l -> 240 + 4l + j. */
static inline int tq1_digit(uint8_t byte, int l) {
    static const uint8_t pow3[6] = {1, 3, 9, 27, 81, 243};
    uint8_t q = (uint8_t)(byte * pow3[l]);
    return ((uint16_t)q * 3) >> 8;
}
static inline void unpack_tq1_0(const uint8_t *x, int8_t *v, float *dw) {
    for (int l = 0; l < 5; l++) {
        for (int mm = 0; mm < 32; mm++) v[32 * l + mm] = (int8_t)(tq1_digit(x[mm], l) - 1);
        for (int mm = 0; mm < 16; mm++) v[160 + 16 * l + mm] = (int8_t)(tq1_digit(x[32 + mm], l) - 1);
    }
    for (int l = 0; l < 4; l++)
        for (int j = 0; j < 4; j++) v[240 + 4 * l + j] = (int8_t)(tq1_digit(x[48 + j], l) - 1);
    *dw = dot_f16p(x + 52);
}

/* tq2_0 (66 bytes): qs[64], f16 d. Element 128h + 32l + k: bits 2l..2l+1 of qs[32h + k], minus 1. */
static inline void unpack_tq2_0(const uint8_t *x, int8_t *v, float *dw) {
    for (int h = 0; h < 2; h++)
        for (int l = 0; l < 4; l++)
            for (int k = 0; k < 32; k++) v[128 * h + 32 * l + k] = (int8_t)(((x[32 * h + k] >> (2 * l)) & 3) - 1);
    *dw = dot_f16p(x + 64);
}

/* iq4_xs (136 bytes): f16 d, u16 scales_h, scales_l[4], qs[128]. Sub-block g (32 elements):
 * scale = (nibble g % 2 of scales_l[g / 2] | bits 2g..2g+1 of scales_h << 4) - 32; element
 * 32g + j is kvalues[low nibble of qs[16g + j]], 32g + 16 + j the high nibble's. */
static inline void unpack_iq4_xs(const uint8_t *x, int8_t *v, int32_t *sc, float *dw) {
    const uint16_t h = dot_ld16(x + 2);
    for (int g = 0; g < 8; g++) {
        int lo = (x[4 + g / 2] >> (4 * (g % 2))) & 15, hi = (h >> (2 * g)) & 3;
        sc[g] = (lo | (hi << 4)) - 32;
        for (int j = 0; j < 16; j++) {
            v[32 * g + j] = k_iq4nl[x[8 + 16 * g + j] & 15];
            v[32 * g + 16 + j] = k_iq4nl[x[8 + 16 * g + j] >> 4];
        }
    }
    *dw = dot_f16p(x);
}

KDOT(k_q2_K, 84, 16, 1, unpack_q2_K(x, v, sc, mins16, &dw, &dmin))
KDOT(k_q3_K, 110, 16, 0, unpack_q3_K(x, v, sc, &dw))
KDOT(k_q4_K, 144, 32, 1, unpack_q45_K(x, 0, v, sc, mins16, &dw, &dmin))
KDOT(k_q5_K, 176, 32, 1, unpack_q45_K(x, 1, v, sc, mins16, &dw, &dmin))
KDOT(k_q6_K, 210, 16, 0, unpack_q6_K(x, v, sc, &dw))
KDOT(k_tq1_0, 54, 0, 0, unpack_tq1_0(x, v, &dw))
KDOT(k_tq2_0, 66, 0, 0, unpack_tq2_0(x, v, &dw))
KDOT(k_iq4_xs, 136, 32, 0, unpack_iq4_xs(x, v, sc, &dw))

void mio_dot_register_kquants(dot_kernel *t) {
    t[MIO_TYPE_Q2_K] = (dot_kernel){k_q2_K, MIO_TYPE_Q8_K};
    t[MIO_TYPE_Q3_K] = (dot_kernel){k_q3_K, MIO_TYPE_Q8_K};
    t[MIO_TYPE_Q4_K] = (dot_kernel){k_q4_K, MIO_TYPE_Q8_K};
    t[MIO_TYPE_Q5_K] = (dot_kernel){k_q5_K, MIO_TYPE_Q8_K};
    t[MIO_TYPE_Q6_K] = (dot_kernel){k_q6_K, MIO_TYPE_Q8_K};
    t[MIO_TYPE_TQ1_0] = (dot_kernel){k_tq1_0, MIO_TYPE_Q8_K};
    t[MIO_TYPE_TQ2_0] = (dot_kernel){k_tq2_0, MIO_TYPE_Q8_K};
    t[MIO_TYPE_IQ4_XS] = (dot_kernel){k_iq4_xs, MIO_TYPE_Q8_K};
}
