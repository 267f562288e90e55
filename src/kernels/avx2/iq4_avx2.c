/* SPDX-License-Identifier: MIT */
/* iq4_avx2.c — AVX2 kernels of the iq4_nl / iq4_xs encoders (quant/iq.c
 * iq4_super): the 16 candidate scales of a sub-block search in two groups of
 * 8 lanes (each lane the scalar's exact operations, its sums in element
 * order), and the level index of 8 elements at once. The level search is the
 * scalar's halving "2v >= mid[i-1]"; a 16-entry table lookup is two 8-lane
 * permutes and a select on bit 3 of the index. */
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

static inline __m256 lookup16(__m256i idx, __m256 lo, __m256 hi) {
    const __m256 a = _mm256_permutevar8x32_ps(lo, idx), b = _mm256_permutevar8x32_ps(hi, idx);
    return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28))); /* bit 3 to the sign */
}

/* level index of v per lane (mlo/mhi: mid[0..7], mid[8..15]) */
static inline __m256i nl4_index8(__m256 v, __m256 mlo, __m256 mhi) {
    const __m256 v2 = _mm256_add_ps(v, v);
    __m256i idx = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(v2, _mm256_permutevar8x32_ps(mlo, _mm256_set1_epi32(7)),
                                                                     _CMP_GE_OQ)),
                                   _mm256_set1_epi32(8));
    for (int step = 4; step > 0; step >>= 1) {
        const __m256i j = _mm256_add_epi32(idx, _mm256_set1_epi32(step));
        const __m256 m = lookup16(_mm256_sub_epi32(j, _mm256_set1_epi32(1)), mlo, mhi);
        const __m256i ge = _mm256_castps_si256(_mm256_cmp_ps(v2, m, _CMP_GE_OQ));
        idx = _mm256_blendv_epi8(idx, j, ge);
    }
    return idx;
}

static void iq4_avx2_trials(const float *x, const float *w, const float *ids, const iq4_consts *c, float *sumqx,
                            float *sumq2) {
    const __m256 llo = _mm256_loadu_ps(c->lev), lhi = _mm256_loadu_ps(c->lev + 8);
    const __m256 mlo = _mm256_loadu_ps(c->mid), mhi = _mm256_loadu_ps(c->mid + 8);
    const __m256 id0 = _mm256_loadu_ps(ids), id1 = _mm256_loadu_ps(ids + 8);
    __m256 sx0 = _mm256_setzero_ps(), s20 = sx0, sx1 = sx0, s21 = sx0;
    for (int j = 0; j < 32; j++) {
        const __m256 xj = _mm256_set1_ps(x[j]), wj = _mm256_set1_ps(w[j]);
        const __m256 q0 = lookup16(nl4_index8(_mm256_mul_ps(id0, xj), mlo, mhi), llo, lhi);
        const __m256 q1 = lookup16(nl4_index8(_mm256_mul_ps(id1, xj), mlo, mhi), llo, lhi);
        const __m256 wq0 = _mm256_mul_ps(wj, q0), wq1 = _mm256_mul_ps(wj, q1);
        sx0 = _mm256_add_ps(sx0, _mm256_mul_ps(wq0, xj));
        s20 = _mm256_add_ps(s20, _mm256_mul_ps(wq0, q0));
        sx1 = _mm256_add_ps(sx1, _mm256_mul_ps(wq1, xj));
        s21 = _mm256_add_ps(s21, _mm256_mul_ps(wq1, q1));
    }
    _mm256_storeu_ps(sumqx, sx0);
    _mm256_storeu_ps(sumqx + 8, sx1);
    _mm256_storeu_ps(sumq2, s20);
    _mm256_storeu_ps(sumq2 + 8, s21);
}

static void iq4_avx2_index(const float *x, int n, float id, const iq4_consts *c, uint8_t *L) {
    const __m256 vid = _mm256_set1_ps(id), mlo = _mm256_loadu_ps(c->mid), mhi = _mm256_loadu_ps(c->mid + 8);
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    for (int i = 0; i + 8 <= n; i += 8) {
        const __m256i b = _mm256_shuffle_epi8(nl4_index8(_mm256_mul_ps(vid, _mm256_loadu_ps(x + i)), mlo, mhi), pick);
        const uint32_t lo = (uint32_t)_mm256_extract_epi32(b, 0), hi = (uint32_t)_mm256_extract_epi32(b, 4);
        const uint64_t v = (uint64_t)lo | (uint64_t)hi << 32;
        __builtin_memcpy(L + i, &v, 8);
    }
}

void mio_avx2_fill_iq4(mio_kernels *k) {
    k->iq4_trials = iq4_avx2_trials;
    k->iq4_index = iq4_avx2_index;
}
