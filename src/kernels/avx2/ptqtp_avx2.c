/* SPDX-License-Identifier: MIT */
/* ptqtp_avx2.c — the PTQTP topology search (contract in ptqtp/ptqtp_internal.h)
 * with AVX2: 8 elements a vector, four vectors at a time so that the chains of
 * running minima overlap. Per element and candidate the same two f32
 * operations as the portable loop, (w - v) then its square, and the same rule:
 * a candidate replaces the best only when its error is strictly less (an
 * ordered compare, false for NaN: a non-finite weight keeps label[0]). The
 * running minimum min(e, best) equals the portable best_e: vminps returns its
 * first operand exactly when it is the smaller. */
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

/* 8 lanes of labels (0..63) as 8 bytes at o */
static inline void store_idx8(uint8_t *o, __m256i bi) {
    const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(bi), _mm256_extracti128_si256(bi, 1));
    _mm_storel_epi64((__m128i *)(void *)o, _mm_packus_epi16(p16, p16));
}

static void ptqtp_search_avx2(const float *w, int n, const float *vals, const uint8_t *label, int ncand,
                              uint8_t *out) {
    int j = 0;
    for (; j + 32 <= n; j += 32) {
        const __m256 x0 = _mm256_loadu_ps(w + j), x1 = _mm256_loadu_ps(w + j + 8);
        const __m256 x2 = _mm256_loadu_ps(w + j + 16), x3 = _mm256_loadu_ps(w + j + 24);
        __m256 v = _mm256_broadcast_ss(vals);
        __m256 d0 = _mm256_sub_ps(x0, v), d1 = _mm256_sub_ps(x1, v), d2 = _mm256_sub_ps(x2, v),
               d3 = _mm256_sub_ps(x3, v);
        __m256 b0 = _mm256_mul_ps(d0, d0), b1 = _mm256_mul_ps(d1, d1), b2 = _mm256_mul_ps(d2, d2),
               b3 = _mm256_mul_ps(d3, d3);
        __m256i i0 = _mm256_set1_epi32(label[0]), i1 = i0, i2 = i0, i3 = i0;
        for (int i = 1; i < ncand; i++) {
            v = _mm256_broadcast_ss(vals + i);
            const __m256i ci = _mm256_set1_epi32(label[i]);
            d0 = _mm256_sub_ps(x0, v);
            d1 = _mm256_sub_ps(x1, v);
            d2 = _mm256_sub_ps(x2, v);
            d3 = _mm256_sub_ps(x3, v);
            const __m256 e0 = _mm256_mul_ps(d0, d0), e1 = _mm256_mul_ps(d1, d1), e2 = _mm256_mul_ps(d2, d2),
                         e3 = _mm256_mul_ps(d3, d3);
            const __m256 l0 = _mm256_cmp_ps(e0, b0, _CMP_LT_OQ), l1 = _mm256_cmp_ps(e1, b1, _CMP_LT_OQ),
                         l2 = _mm256_cmp_ps(e2, b2, _CMP_LT_OQ), l3 = _mm256_cmp_ps(e3, b3, _CMP_LT_OQ);
            b0 = _mm256_min_ps(e0, b0);
            b1 = _mm256_min_ps(e1, b1);
            b2 = _mm256_min_ps(e2, b2);
            b3 = _mm256_min_ps(e3, b3);
            i0 = _mm256_blendv_epi8(i0, ci, _mm256_castps_si256(l0));
            i1 = _mm256_blendv_epi8(i1, ci, _mm256_castps_si256(l1));
            i2 = _mm256_blendv_epi8(i2, ci, _mm256_castps_si256(l2));
            i3 = _mm256_blendv_epi8(i3, ci, _mm256_castps_si256(l3));
        }
        store_idx8(out + j, i0);
        store_idx8(out + j + 8, i1);
        store_idx8(out + j + 16, i2);
        store_idx8(out + j + 24, i3);
    }
    for (; j < n; j += 8) {
        const __m256 x = _mm256_loadu_ps(w + j);
        __m256 d = _mm256_sub_ps(x, _mm256_broadcast_ss(vals));
        __m256 b = _mm256_mul_ps(d, d);
        __m256i bi = _mm256_set1_epi32(label[0]);
        for (int i = 1; i < ncand; i++) {
            d = _mm256_sub_ps(x, _mm256_broadcast_ss(vals + i));
            const __m256 e = _mm256_mul_ps(d, d);
            const __m256 lt = _mm256_cmp_ps(e, b, _CMP_LT_OQ);
            b = _mm256_min_ps(e, b);
            bi = _mm256_blendv_epi8(bi, _mm256_set1_epi32(label[i]), _mm256_castps_si256(lt));
        }
        store_idx8(out + j, bi);
    }
}

void mio_avx2_fill_ptqtp(mio_kernels *k) { k->ptqtp_search = ptqtp_search_avx2; }
