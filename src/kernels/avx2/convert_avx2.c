/* SPDX-License-Identifier: MIT */
/* convert_avx2.c — AVX2 f32 <-> bf16 casts, 16 values per step, with the exact
 * integer arithmetic of core/half.h (round to nearest even on the dropped 16
 * bits, NaN keeps its top bits and is quieted); tails go through half.h. */
#include "kernels/avx2/avx2.h"

#include "core/half.h"

#include <immintrin.h>

/* bf16 bits of 8 floats (as u32 lanes, 0..0xffff): NaN ? (u >> 16) | 0x40
 * : (u + 0x7fff + ((u >> 16) & 1)) >> 16 */
static inline __m256i bf16_bits(__m256i u) {
    const __m256i hi = _mm256_srli_epi32(u, 16);
    const __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
    /* |u| > inf bits, compared as signed ints (both sides are below 2^31) */
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    return _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}

static void cv_avx2_f32_to_bf16(const float *x, uint8_t *y, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i a = bf16_bits(_mm256_loadu_si256((const __m256i *)(const void *)(x + i)));
        const __m256i b = bf16_bits(_mm256_loadu_si256((const __m256i *)(const void *)(x + i + 8)));
        /* values fit in 16 unsigned bits, so unsigned saturation is exact; packing
         * works per 128-bit half, the permute restores the element order */
        const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
        _mm256_storeu_si256((__m256i *)(void *)(y + 2 * i), p);
    }
    for (; i < n; i++) {
        float v;
        memcpy(&v, x + i, 4);
        const uint16_t h = bf16_from_f32(v);
        memcpy(y + 2 * i, &h, 2);
    }
}

static void cv_avx2_bf16_to_f32(const uint8_t *x, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i h0 = _mm_loadu_si128((const __m128i *)(const void *)(x + 2 * i));
        const __m128i h1 = _mm_loadu_si128((const __m128i *)(const void *)(x + 2 * i + 16));
        _mm256_storeu_si256((__m256i *)(void *)(y + i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h0), 16));
        _mm256_storeu_si256((__m256i *)(void *)(y + i + 8), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h1), 16));
    }
    for (; i < n; i++) {
        uint16_t h;
        memcpy(&h, x + 2 * i, 2);
        const float v = bf16_to_f32(h);
        memcpy(y + i, &v, 4);
    }
}

static void cv_f16c_f16_to_f32(const uint8_t *x, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i h0 = _mm_loadu_si128((const __m128i *)(const void *)(x + 2 * i));
        const __m128i h1 = _mm_loadu_si128((const __m128i *)(const void *)(x + 2 * i + 16));
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h0));
        _mm256_storeu_ps(y + i + 8, _mm256_cvtph_ps(h1));
    }
    for (; i < n; i++) {
        uint16_t h;
        memcpy(&h, x + 2 * i, 2);
        const float v = half_to_f32(h);
        memcpy(y + i, &v, 4);
    }
}

void mio_avx2_fill_convert(mio_kernels *k) {
    k->f32_to_bf16 = cv_avx2_f32_to_bf16;
    k->bf16_to_f32 = cv_avx2_bf16_to_f32;
    k->f16_to_f32 = cv_f16c_f16_to_f32;
}
