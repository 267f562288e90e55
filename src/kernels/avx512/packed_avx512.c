/* SPDX-License-Identifier: MIT */
/* packed_avx512.c — AVX-512 VNNI kernels of the packed layouts
 * (kernels/packed_kernels.h): q4_0x8 and q8_0x8, on 256-bit vectors
 * (vpdpbusd with AVX512VL: a tile-block vector is 32 bytes) but with the 32
 * vector registers of AVX-512, so RMAX activation rows share each unpacked
 * tile-block. vpdpbusd multiplies the unsigned weight codes (q4_0: 0..15;
 * q8_0: the stored code + 128) by the signed activation codes and adds each
 * lane's 4 products to its int32 without saturation; the accumulator starts at
 * pk_act.s = -(8 or 128) * sum q, which removes the offset exactly. Then
 * acc += (dw * da) * (float)isum per lane, blocks in order: the portable
 * kernel's f32 operations (built without FMA contraction). */
#include "kernels/avx512/avx512.h"

#include "modelio.h"

#include <immintrin.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define RMAX 8

AI __m256i bcast32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

AI void store_rows(float *y, __m256 v, size_t n) {
    if (n >= PK_TILE) _mm256_storeu_ps(y, v);
    else _mm256_mask_storeu_ps(y, (__mmask8)((1u << n) - 1), v);
}

AI void finish(__m256 *acc, __m256 dw, __m256i is, const pk_act *a, size_t o) {
    __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a->d[o])), _mm256_cvtepi32_ps(is));
    *acc = _mm256_add_ps(*acc, t);
}

/* NV vectors of 32 code bytes per tile-block (q4_0: 4 vectors, each two
 * groups of 4 elements in its nibbles; q8_0: 8 vectors of one group). */
AI void rows_vnni(const uint8_t *tp, size_t nb, int q4, const pk_act *a, size_t i0, int R, float *y, size_t ldy,
                  size_t n) {
    const size_t tb = q4 ? 144 : 272;
    __m256 acc[RMAX];
    const int8_t *aq[RMAX];
    for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps(), aq[r] = a->q + (i0 + (size_t)r) * a->q_stride;
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    for (size_t b = 0; b < nb; b++) {
        const uint8_t *blk = tp + b * tb;
        __m256i s32[RMAX];
        for (int r = 0; r < R; r++) s32[r] = _mm256_set1_epi32(a->s[(i0 + (size_t)r) * a->ds_stride + b]);
        if (q4) {
            for (int g = 0; g < 4; g++) {
                __m256i q = _mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * g));
                __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
                for (int r = 0; r < R; r++) {
                    const int8_t *x = aq[r] + b * 32;
                    s32[r] = _mm256_dpbusd_epi32(s32[r], lo, bcast32(x + 4 * g));
                    s32[r] = _mm256_dpbusd_epi32(s32[r], hi, bcast32(x + 16 + 4 * g));
                }
            }
        } else {
            for (int g = 0; g < 8; g++) {
                __m256i u = _mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * g));
                for (int r = 0; r < R; r++) s32[r] = _mm256_dpbusd_epi32(s32[r], u, bcast32(aq[r] + b * 32 + 4 * g));
            }
        }
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        for (int r = 0; r < R; r++) finish(&acc[r], dw, s32[r], a, (i0 + (size_t)r) * a->ds_stride + b);
    }
    for (int r = 0; r < R; r++) store_rows(y + (i0 + (size_t)r) * ldy, acc[r], n);
}

#define PK_ENTRY(name, Q4)                                                                                           \
    static void name(const uint8_t *p, size_t tile_bytes, size_t t0, size_t t1, size_t nb, const pk_act *a,          \
                     size_t m, float *y, size_t ldy, size_t rows) {                                                  \
        for (size_t t = t0; t < t1; t++) {                                                                          \
            const uint8_t *tp = p + t * tile_bytes;                                                                 \
            size_t n = rows - t * PK_TILE < PK_TILE ? rows - t * PK_TILE : PK_TILE;                                 \
            float *yt = y + t * PK_TILE;                                                                            \
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
    k->packed[MIO_TYPE_Q4_0] = (pk_kernel){pk_q4_0, 8, "q4_0x8/avx512-vnni"};
    k->packed[MIO_TYPE_Q8_0] = (pk_kernel){pk_q8_0, 128, "q8_0x8/avx512-vnni"};
}
