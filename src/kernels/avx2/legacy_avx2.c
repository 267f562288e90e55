/* SPDX-License-Identifier: MIT */
/* legacy_avx2.c — AVX2 kernel for q4_1's plain encoder (quant/legacy.c): the
 * block extremes, scale and 32 codes with ggml's operations in AVX2 registers,
 * so the 20-byte blocks are identical to the scalar encoder's. */
#include "kernels/avx2/avx2.h"
#include "kernels/legacy_kernels.h"

#include "core/half.h"
#include "core/unaligned.h"

#include <string.h>

#include <immintrin.h>

/* Per block: lane-wise min/max folded across lanes (value-exact; a zero
 * extreme ends the run, for the scalar path to get its sign), then the 32
 * codes with ggml's operations, packed to nibbles. */
static int64_t lg_avx2_enc_q4_1(const float *x, uint8_t *y, int64_t nb) {
    enum { QK = 32 };
    uint8_t *o = y;
    const __m256 half = _mm256_set1_ps(0.5f);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t b = 0; b < nb; b++, x += QK, o += 20) {
        const __m256 v0 = _mm256_loadu_ps(x), v1 = _mm256_loadu_ps(x + 8);
        const __m256 v2 = _mm256_loadu_ps(x + 16), v3 = _mm256_loadu_ps(x + 24);
        __m256 lo = _mm256_min_ps(_mm256_min_ps(v0, v1), _mm256_min_ps(v2, v3));
        __m256 hi = _mm256_max_ps(_mm256_max_ps(v0, v1), _mm256_max_ps(v2, v3));
        __m128 l4 = _mm_min_ps(_mm256_castps256_ps128(lo), _mm256_extractf128_ps(lo, 1));
        __m128 h4 = _mm_max_ps(_mm256_castps256_ps128(hi), _mm256_extractf128_ps(hi, 1));
        l4 = _mm_min_ps(l4, _mm_movehl_ps(l4, l4));
        h4 = _mm_max_ps(h4, _mm_movehl_ps(h4, h4));
        float mn = _mm_cvtss_f32(_mm_min_ss(l4, _mm_shuffle_ps(l4, l4, 1)));
        float mx = _mm_cvtss_f32(_mm_max_ss(h4, _mm_shuffle_ps(h4, h4, 1)));
        if (mn == 0.0f || mx == 0.0f) return b;
        const float d = (mx - mn) / 15.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        st16(o, half_from_f32(d));
        st16(o + 2, half_from_f32(mn));
        if (!lg_finite_scale(d, id)) { memset(o + 4, 0, QK / 2); continue; }
        const __m256 vm = _mm256_set1_ps(mn), vi = _mm256_set1_ps(id);
        const __m256i q0 = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v0, vm), vi), half));
        const __m256i q1 = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v1, vm), vi), half));
        const __m256i q2 = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v2, vm), vi), half));
        const __m256i q3 = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v3, vm), vi), half));
        /* codes are 0..15: saturating packs keep them; bytes back in order */
        const __m256i q = _mm256_permutevar8x32_epi32(
            _mm256_packus_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3)), order);
        const __m128i packed = _mm_or_si128(_mm256_castsi256_si128(q), _mm_slli_epi16(_mm256_extracti128_si256(q, 1), 4));
        _mm_storeu_si128((__m128i *)(void *)(o + 4), packed);
    }
    return nb;
}

void mio_avx2_fill_legacy(mio_kernels *k) {
    k->enc_q4_1 = lg_avx2_enc_q4_1;
}
