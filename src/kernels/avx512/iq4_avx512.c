/* SPDX-License-Identifier: MIT */
/* iq4_avx512.c — AVX-512 kernels of the iq4_nl / iq4_xs encoders (quant/iq.c
 * iq4_super): the 16 candidate scales of a sub-block search in the 16 lanes
 * (each lane the scalar's exact operations, its sums in element order), and
 * the level index of 16 elements at once. The level search is the scalar's
 * halving "2v >= mid[i-1]" with the midpoints fetched by a lane permute. */
#include "kernels/avx512/avx512.h"

#include <immintrin.h>

/* level index of v per lane */
static inline __m512i nl4_index16(__m512 v, __m512 mid) {
    const __m512 v2 = _mm512_add_ps(v, v);
    __m512i idx = _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(v2, _mm512_permutexvar_ps(_mm512_set1_epi32(7), mid), _CMP_GE_OQ),
                                         _mm512_set1_epi32(8));
    for (int step = 4; step > 0; step >>= 1) {
        const __m512i j = _mm512_add_epi32(idx, _mm512_set1_epi32(step));
        const __m512 m = _mm512_permutexvar_ps(_mm512_sub_epi32(j, _mm512_set1_epi32(1)), mid);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(v2, m, _CMP_GE_OQ), j);
    }
    return idx;
}

static void iq4_avx512_trials(const float *x, const float *w, const float *ids, const iq4_consts *c, float *sumqx,
                              float *sumq2) {
    const __m512 id = _mm512_loadu_ps(ids), lev = _mm512_loadu_ps(c->lev), mid = _mm512_loadu_ps(c->mid);
    __m512 sx = _mm512_setzero_ps(), s2 = _mm512_setzero_ps();
    for (int j = 0; j < 32; j++) {
        const __m512 xj = _mm512_set1_ps(x[j]);
        const __m512 q = _mm512_permutexvar_ps(nl4_index16(_mm512_mul_ps(id, xj), mid), lev);
        const __m512 wq = _mm512_mul_ps(_mm512_set1_ps(w[j]), q);
        sx = _mm512_add_ps(sx, _mm512_mul_ps(wq, xj));
        s2 = _mm512_add_ps(s2, _mm512_mul_ps(wq, q));
    }
    _mm512_storeu_ps(sumqx, sx);
    _mm512_storeu_ps(sumq2, s2);
}

static void iq4_avx512_index(const float *x, int n, float id, const iq4_consts *c, uint8_t *L) {
    const __m512 vid = _mm512_set1_ps(id), mid = _mm512_loadu_ps(c->mid);
    for (int i = 0; i + 16 <= n; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(L + i),
                         _mm512_cvtepi32_epi8(nl4_index16(_mm512_mul_ps(vid, _mm512_loadu_ps(x + i)), mid)));
}

void mio_avx512_fill_iq4(mio_kernels *k) {
    k->iq4_trials = iq4_avx512_trials;
    k->iq4_index = iq4_avx512_index;
}
