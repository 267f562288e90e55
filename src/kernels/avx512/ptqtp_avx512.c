/* SPDX-License-Identifier: MIT */
/* ptqtp_avx512.c — the PTQTP topology search (contract in
 * ptqtp/ptqtp_internal.h) with AVX-512: 16 elements a vector, four vectors at
 * a time. The same f32 operations as the portable loop, (w - v) then its
 * square; the strictly-less test is an ordered compare into a mask (false for
 * NaN: a non-finite weight keeps label[0]) that moves the candidate's label
 * into the lanes it wins, and the running minimum min(e, best) equals the
 * portable best_e (vminps returns its first operand exactly when it is the
 * smaller). */
#include "kernels/avx512/avx512.h"

#include <immintrin.h>

static void ptqtp_search_avx512(const float *w, int n, const float *vals, const uint8_t *label, int ncand,
                                uint8_t *out) {
    int j = 0;
    for (; j + 64 <= n; j += 64) {
        const __m512 x0 = _mm512_loadu_ps(w + j), x1 = _mm512_loadu_ps(w + j + 16);
        const __m512 x2 = _mm512_loadu_ps(w + j + 32), x3 = _mm512_loadu_ps(w + j + 48);
        __m512 v = _mm512_set1_ps(vals[0]);
        __m512 d0 = _mm512_sub_ps(x0, v), d1 = _mm512_sub_ps(x1, v), d2 = _mm512_sub_ps(x2, v),
               d3 = _mm512_sub_ps(x3, v);
        __m512 b0 = _mm512_mul_ps(d0, d0), b1 = _mm512_mul_ps(d1, d1), b2 = _mm512_mul_ps(d2, d2),
               b3 = _mm512_mul_ps(d3, d3);
        __m512i i0 = _mm512_set1_epi32(label[0]), i1 = i0, i2 = i0, i3 = i0;
        for (int i = 1; i < ncand; i++) {
            v = _mm512_set1_ps(vals[i]);
            const __m512i ci = _mm512_set1_epi32(label[i]);
            d0 = _mm512_sub_ps(x0, v);
            d1 = _mm512_sub_ps(x1, v);
            d2 = _mm512_sub_ps(x2, v);
            d3 = _mm512_sub_ps(x3, v);
            const __m512 e0 = _mm512_mul_ps(d0, d0), e1 = _mm512_mul_ps(d1, d1), e2 = _mm512_mul_ps(d2, d2),
                         e3 = _mm512_mul_ps(d3, d3);
            const __mmask16 l0 = _mm512_cmp_ps_mask(e0, b0, _CMP_LT_OQ), l1 = _mm512_cmp_ps_mask(e1, b1, _CMP_LT_OQ),
                            l2 = _mm512_cmp_ps_mask(e2, b2, _CMP_LT_OQ), l3 = _mm512_cmp_ps_mask(e3, b3, _CMP_LT_OQ);
            b0 = _mm512_min_ps(e0, b0);
            b1 = _mm512_min_ps(e1, b1);
            b2 = _mm512_min_ps(e2, b2);
            b3 = _mm512_min_ps(e3, b3);
            i0 = _mm512_mask_mov_epi32(i0, l0, ci);
            i1 = _mm512_mask_mov_epi32(i1, l1, ci);
            i2 = _mm512_mask_mov_epi32(i2, l2, ci);
            i3 = _mm512_mask_mov_epi32(i3, l3, ci);
        }
        _mm_storeu_si128((__m128i *)(void *)(out + j), _mm512_cvtepi32_epi8(i0));
        _mm_storeu_si128((__m128i *)(void *)(out + j + 16), _mm512_cvtepi32_epi8(i1));
        _mm_storeu_si128((__m128i *)(void *)(out + j + 32), _mm512_cvtepi32_epi8(i2));
        _mm_storeu_si128((__m128i *)(void *)(out + j + 48), _mm512_cvtepi32_epi8(i3));
    }
    for (; j < n; j += 8) { /* the contract allows n = 8k: 256-bit vectors for the rest */
        const __m256 x = _mm256_loadu_ps(w + j);
        __m256 d = _mm256_sub_ps(x, _mm256_set1_ps(vals[0]));
        __m256 b = _mm256_mul_ps(d, d);
        __m256i bi = _mm256_set1_epi32(label[0]);
        for (int i = 1; i < ncand; i++) {
            d = _mm256_sub_ps(x, _mm256_set1_ps(vals[i]));
            const __m256 e = _mm256_mul_ps(d, d);
            const __mmask8 lt = _mm256_cmp_ps_mask(e, b, _CMP_LT_OQ);
            b = _mm256_min_ps(e, b);
            bi = _mm256_mask_mov_epi32(bi, lt, _mm256_set1_epi32(label[i]));
        }
        _mm_storel_epi64((__m128i *)(void *)(out + j), _mm256_cvtepi32_epi8(bi));
    }
}

void mio_avx512_fill_ptqtp(mio_kernels *k) { k->ptqtp_search = ptqtp_search_avx512; }
