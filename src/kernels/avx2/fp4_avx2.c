/* SPDX-License-Identifier: MIT */
/* fp4_avx2.c — AVX2 kernel of the mxfp4 encoder (quant/fp4.c): the E2M1
 * code search of a block, 8 elements per step, each lane the scalar
 * e2m1_codes loop exactly (errors |kd[i] - |x||, the first strictly smaller
 * one wins, the sign bit for a negative x with a nonzero code). */
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

static inline __m256i codes8(__m256 v, const float *kd) {
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 a = _mm256_and_ps(v, absm);
    __m256 best = a;
    __m256i idx = _mm256_setzero_si256();
    for (int i = 1; i < 8; i++) {
        const __m256 err = _mm256_and_ps(_mm256_sub_ps(_mm256_set1_ps(kd[i]), a), absm);
        const __m256 lt = _mm256_cmp_ps(err, best, _CMP_LT_OQ);
        best = _mm256_blendv_ps(best, err, lt);
        idx = _mm256_blendv_epi8(idx, _mm256_set1_epi32(i), _mm256_castps_si256(lt));
    }
    const __m256i neg = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ)),
                                         _mm256_cmpgt_epi32(idx, _mm256_setzero_si256()));
    return _mm256_or_si256(idx, _mm256_and_si256(neg, _mm256_set1_epi32(8)));
}

static void mxfp4_avx2_codes(const float *x, const float *kd, uint8_t *qs) {
    for (int h = 0; h < 2; h++) { /* bytes 8h .. 8h+7: elements 8h.. (low nibble) and 16 + 8h.. (high) */
        const __m256i b = _mm256_or_si256(codes8(_mm256_loadu_ps(x + 8 * h), kd),
                                          _mm256_slli_epi32(codes8(_mm256_loadu_ps(x + 16 + 8 * h), kd), 4));
        /* 8 int32 (each < 256) to 8 bytes */
        const __m256i p = _mm256_shuffle_epi8(b, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                  0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        const uint64_t v = (uint64_t)(uint32_t)_mm256_extract_epi32(p, 0) | (uint64_t)(uint32_t)_mm256_extract_epi32(p, 4) << 32;
        __builtin_memcpy(qs + 8 * h, &v, 8);
    }
}

void mio_avx2_fill_fp4(mio_kernels *k) { k->mxfp4_codes = mxfp4_avx2_codes; }
