/* SPDX-License-Identifier: MIT */
/* packed_avx512.c — AVX-512 VNNI kernels of the packed layouts
 * (kernels/packed_kernels.h): q4_0x16 and q8_0x16, tiles of 16 rows, one
 * 64-byte vector per 4 elements of the 16 rows, with up to RMAX activation rows
 * sharing each unpacked tile-block. vpdpbusd multiplies the unsigned weight
 * codes (q4_0: 0..15; q8_0: the stored code + 128) by the signed activation
 * codes broadcast to every lane and adds each lane's 4 products to its int32
 * without saturation; the accumulator starts at pk_act.s = -(8 or 128) * sum q,
 * which removes the offset exactly. Then acc += (dw * da) * (float)isum per
 * lane, blocks in order: the portable kernel's f32 operations (built without
 * FMA contraction). */
#include "kernels/avx512/avx512.h"

#include "modelio.h"

#include <immintrin.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define RMAX 8
#define T 16

AI __m512i bcast32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

AI void store_rows(float *y, __m512 v, size_t n) {
    if (n >= T) _mm512_storeu_ps(y, v);
    else _mm512_mask_storeu_ps(y, (__mmask16)((1u << n) - 1), v);
}

AI void finish(__m512 *acc, __m512 dw, __m512i is, const pk_act *a, size_t o) {
    __m512 t = _mm512_mul_ps(_mm512_mul_ps(dw, _mm512_set1_ps(a->d[o])), _mm512_cvtepi32_ps(is));
    *acc = _mm512_add_ps(*acc, t);
}

AI void rows_vnni(const uint8_t *tp, size_t nb, int q4, const pk_act *a, size_t i0, int R, float *y, size_t ldy,
                  size_t n) {
    const size_t tb = q4 ? 18 * T : 34 * T;
    __m512 acc[RMAX];
    const int8_t *aq[RMAX];
    for (int r = 0; r < R; r++) acc[r] = _mm512_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m512i m4 = _mm512_set1_epi8(0x0f);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        __m512i s32[RMAX];
        for (int r = 0; r < R; r++) s32[r] = _mm512_set1_epi32(a->s[(i0 + (size_t)r) * a->ds_stride + b]);
        if (q4) {
            for (int g = 0; g < 4; g++) {
                __m512i q = _mm512_loadu_si512((const void *)(blk + 2 * T + 4 * T * g));
                __m512i lo = _mm512_and_si512(q, m4), hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
                for (int r = 0; r < R; r++) {
                    const int8_t *x = aq[r] + b * 32;
                    s32[r] = _mm512_dpbusd_epi32(s32[r], lo, bcast32(x + 4 * g));
                    s32[r] = _mm512_dpbusd_epi32(s32[r], hi, bcast32(x + 16 + 4 * g));
                }
            }
        } else {
            for (int g = 0; g < 8; g++) {
                __m512i u = _mm512_loadu_si512((const void *)(blk + 2 * T + 4 * T * g));
                for (int r = 0; r < R; r++) s32[r] = _mm512_dpbusd_epi32(s32[r], u, bcast32(aq[r] + b * 32 + 4 * g));
            }
        }
        __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)blk));
        for (int r = 0; r < R; r++) finish(&acc[r], dw, s32[r], a, (i0 + (size_t)r) * a->ds_stride + b);
    }
    for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

#define PK_ENTRY(name, Q4)                                                                                           \
    static void name(const uint8_t *p, size_t tile_bytes, size_t t0, size_t t1, size_t nb, const pk_act *a,          \
                     size_t m, float *y, size_t ldy, size_t rows) {                                                  \
        for (size_t t = t0; t < t1; t++) {                                                                          \
            const uint8_t *tp = p + t * tile_bytes;                                                                 \
            size_t n = rows - t * T < T ? rows - t * T : T;                                                         \
            float *yt = y + t * T;                                                                                  \
            size_t i = 0;                                                                                           \
            for (; i + RMAX <= m; i += RMAX) rows_vnni(tp, nb, Q4, a, i, RMAX, yt, ldy, n);                         \
            if (m - i >= 4) rows_vnni(tp, nb, Q4, a, i, 4, yt, ldy, n), i += 4;                                     \
            switch (m - i) {                                                                                        \
            case 3: rows_vnni(tp, nb, Q4, a, i, 3, yt, ldy, n); break;                                              \
            case 2: rows_vnni(tp, nb, Q4, a, i, 2, yt, ldy, n); break;                                              \
            case 1: rows_vnni(tp, nb, Q4, a, i, 1, yt, ldy, n); break;                                              \
            default: break;                                                                                         \
            }                                                                                                       \
        }                                                                                                           \
        _mm256_zeroupper();                                                                                         \
    }

PK_ENTRY(pk_q4_0, 1)
PK_ENTRY(pk_q8_0, 0)

void mio_avx512_fill_packed(mio_kernels *k) {
    k->packed[MIO_TYPE_Q4_0] = (pk_kernel){pk_q4_0, T, 8, "q4_0x16/avx512-vnni"};
    k->packed[MIO_TYPE_Q8_0] = (pk_kernel){pk_q8_0, T, 128, "q8_0x16/avx512-vnni"};
}
