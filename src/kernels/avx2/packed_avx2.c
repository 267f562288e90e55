/* SPDX-License-Identifier: MIT */
/* packed_avx2.c — AVX2 kernels of the packed layouts (kernels/packed_kernels.h):
 * q4_0x8 and q8_0x8. A tile-block's vectors are loaded (and unpacked) once and
 * used for up to RMAX activation rows; each vector holds 4 consecutive elements
 * of the 8 rows, multiplied against the 4 activation codes broadcast to every
 * 32-bit lane, so lane j sums row j's products and no horizontal reduction is
 * needed.
 *  - q4_0: vpmaddubsw(code 0..15, q) pairs are at most 2 * 15 * 127 = 3810 in
 *    magnitude, so the 8 pair sums of a block add exactly in int16 (30480 <
 *    32767) before one vpmaddwd; the offset 8 comes back as -8 * sum q (pk_act.s).
 *  - q8_0: the stored code + 128 is turned back to the signed code w (xor), and
 *    vpmaddubsw(|w|, sign(q, w)) gives pairs of w * q (at most 2 * 128 * 127 =
 *    32512: exact; activation codes are never -128, the q8_0 encoder keeps
 *    |q| <= 127), summed per vector with vpmaddwd.
 * Then acc += (dw * da) * (float)isum per lane, blocks in order: the portable
 * kernel's f32 operations (this file is built without FMA contraction). */
#include "kernels/avx2/avx2.h"

#include "modelio.h"

#include <immintrin.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define RMAX 4 /* activation rows per pass (16 YMM registers) */

AI __m256i bcast32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* lanes of v into y[0..n-1] (n <= 8: the last tile of a matrix) */
AI void store_rows(float *y, __m256 v, size_t n) {
    if (n >= 8) {
        _mm256_storeu_ps(y, v);
        return;
    }
    float t[8];
    _mm256_storeu_ps(t, v);
    memcpy(y, t, n * sizeof(float));
}

AI void finish(__m256 *acc, __m256 dw, __m256i is, const pk_act *a, size_t o) {
    __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a->d[o])), _mm256_cvtepi32_ps(is));
    *acc = _mm256_add_ps(*acc, t);
}

AI void q4_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f), ones = _mm256_set1_epi16(1);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 144;
        __m256i s16[RMAX];
        for (int r = 0; r < R; r++) s16[r] = _mm256_setzero_si256();
        for (int g = 0; g < 4; g++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * g));
            __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            for (int r = 0; r < R; r++) {
                const int8_t *x = aq[r] + b * 32;
                __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(lo, bcast32(x + 4 * g)),
                                             _mm256_maddubs_epi16(hi, bcast32(x + 16 + 4 * g)));
                s16[r] = _mm256_add_epi16(s16[r], p);
            }
        }
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        for (int r = 0; r < R; r++) {
            size_t o = (i0 + (size_t)r) * a->ds_stride + b;
            __m256i is = _mm256_add_epi32(_mm256_madd_epi16(s16[r], ones), _mm256_set1_epi32(a->s[o]));
            finish(&acc[r], dw, is, a, o);
        }
    }
    for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

AI void q8_0_rows(const uint8_t *tp, size_t nb, const pk_act *a, size_t i0, int R, float *y, size_t ldy, size_t n) {
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i flip = _mm256_set1_epi8((char)0x80), ones = _mm256_set1_epi16(1);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * 272;
        __m256i s32[RMAX];
        for (int r = 0; r < R; r++) s32[r] = _mm256_setzero_si256();
        for (int g = 0; g < 8; g++) {
            __m256i w = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * g)), flip);
            __m256i aw = _mm256_abs_epi8(w);
            for (int r = 0; r < R; r++) {
                __m256i p = _mm256_maddubs_epi16(aw, _mm256_sign_epi8(bcast32(aq[r] + b * 32 + 4 * g), w));
                s32[r] = _mm256_add_epi32(s32[r], _mm256_madd_epi16(p, ones));
            }
        }
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        for (int r = 0; r < R; r++) finish(&acc[r], dw, s32[r], a, (i0 + (size_t)r) * a->ds_stride + b);
    }
    for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

/* The tile loop: activation rows RMAX at a time, then the remainder. */
#define PK_ENTRY(name, ROWS)                                                                                         \
    static void name(const uint8_t *p, size_t tile_bytes, size_t t0, size_t t1, size_t nb, const pk_act *a,          \
                     size_t m, float *y, size_t ldy, size_t rows) {                                                  \
        for (size_t t = t0; t < t1; t++) {                                                                          \
            const uint8_t *tp = p + t * tile_bytes;                                                                 \
            size_t n = rows - t * 8 < 8 ? rows - t * 8 : 8;                                 \
            float *yt = y + t * 8;                                                                            \
            size_t i = 0;                                                                                           \
            for (; i + RMAX <= m; i += RMAX) ROWS(tp, nb, a, i, RMAX, yt, ldy, n);                                  \
            switch (m - i) {                                                                                        \
            case 3: ROWS(tp, nb, a, i, 3, yt, ldy, n); break;                                                       \
            case 2: ROWS(tp, nb, a, i, 2, yt, ldy, n); break;                                                       \
            case 1: ROWS(tp, nb, a, i, 1, yt, ldy, n); break;                                                       \
            default: break;                                                                                         \
            }                                                                                                       \
        }                                                                                                           \
    }

PK_ENTRY(pk_q4_0, q4_0_rows)
PK_ENTRY(pk_q8_0, q8_0_rows)

void mio_avx2_fill_packed(mio_kernels *k) {
    k->packed[MIO_TYPE_Q4_0] = (pk_kernel){pk_q4_0, 8, 8, "q4_0x8/avx2"};
    k->packed[MIO_TYPE_Q8_0] = (pk_kernel){pk_q8_0, 8, 0, "q8_0x8/avx2"};
}
