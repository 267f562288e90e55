/* SPDX-License-Identifier: MIT */
/* fp4_avx512.c — AVX-512 kernel of the mxfp4 encoder (quant/fp4.c): the
 * E2M1 code search of a block, 16 elements per step, each lane the scalar
 * e2m1_codes loop exactly (errors |kd[i] - |x||, the first strictly smaller
 * one wins, the sign bit for a negative x with a nonzero code). */
#include "kernels/avx512/avx512.h"

#include <immintrin.h>

static inline __m512i codes16(__m512 v, const float *kd) {
    const __m512 a = _mm512_abs_ps(v);
    __m512 best = a;
    __m512i idx = _mm512_setzero_si512();
    for (int i = 1; i < 8; i++) {
        const __m512 err = _mm512_abs_ps(_mm512_sub_ps(_mm512_set1_ps(kd[i]), a));
        const __mmask16 lt = _mm512_cmp_ps_mask(err, best, _CMP_LT_OQ);
        best = _mm512_mask_mov_ps(best, lt, err);
        idx = _mm512_mask_mov_epi32(idx, lt, _mm512_set1_epi32(i));
    }
    const __mmask16 neg = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ) &
                          _mm512_cmp_epi32_mask(idx, _mm512_setzero_si512(), _MM_CMPINT_GT);
    return _mm512_mask_or_epi32(idx, neg, idx, _mm512_set1_epi32(8));
}

static void mxfp4_avx512_codes(const float *x, const float *kd, uint8_t *qs) {
    const __m512i lo = codes16(_mm512_loadu_ps(x), kd), hi = codes16(_mm512_loadu_ps(x + 16), kd);
    _mm_storeu_si128((__m128i *)(void *)qs, _mm512_cvtepi32_epi8(_mm512_or_si512(lo, _mm512_slli_epi32(hi, 4))));
}

void mio_avx512_fill_fp4(mio_kernels *k) { k->mxfp4_codes = mxfp4_avx512_codes; }
