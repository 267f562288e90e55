/* SPDX-License-Identifier: MIT */
/* convert_avx2.c — AVX2 f32 <-> bf16 casts and F16C f32 <-> f16 casts, 16 values per step, with the exact
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

/* f16 bits of 8 floats: F16C's conversion with round to nearest even is
 * exactly half_from_f32 (overflow to inf, subnormals rounded) except for NaN,
 * where ggml writes sign | 0x7e00 and F16C keeps payload bits: those lanes are
 * rewritten (the sign is kept by the conversion). */
static inline __m128i f16_bits(__m256 v) {
    const __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m128i n16 = _mm_packs_epi32(_mm256_castsi256_si128(nan), _mm256_extracti128_si256(nan, 1));
    const __m128i fix = _mm_or_si128(_mm_and_si128(h, _mm_set1_epi16((short)0x8000)), _mm_set1_epi16(0x7e00));
    return _mm_blendv_epi8(h, fix, n16);
}

static void cv_f16c_f32_to_f16(const float *x, uint8_t *y, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm_storeu_si128((__m128i *)(void *)(y + 2 * i), f16_bits(_mm256_loadu_ps(x + i)));
        _mm_storeu_si128((__m128i *)(void *)(y + 2 * i + 16), f16_bits(_mm256_loadu_ps(x + i + 8)));
    }
    for (; i < n; i++) {
        float v;
        memcpy(&v, x + i, 4);
        const uint16_t h = half_from_f32(v);
        memcpy(y + 2 * i, &h, 2);
    }
}

void mio_avx2_fill_convert(mio_kernels *k) {
    k->f32_to_bf16 = cv_avx2_f32_to_bf16;
    k->bf16_to_f32 = cv_avx2_bf16_to_f32;
    k->f16_to_f32 = cv_f16c_f16_to_f32;
    k->f32_to_f16 = cv_f16c_f32_to_f16;
}
