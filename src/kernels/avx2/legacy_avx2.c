/* SPDX-License-Identifier: MIT */
/* legacy_avx2.c — AVX2 kernels for the plain q4_0 / q4_1 / q5_0 / q5_1
 * encoders (quant/legacy.c), eight blocks per step: each block's extremes are
 * folded to eight lanes, the eight blocks' lanes are reduced together (one
 * block per lane of the result), so the scales, their f16 bits (F16C, round to
 * nearest even: exactly half_from_f32 for the finite values seen here) and
 * the reciprocals are done for eight blocks at once; then each block's 32
 * codes with ggml's operations. Min/max are exact and order-free for finite
 * input except for the sign of a zero; blocks where that or ggml's first-
 * occurrence rule matters end the run, for the scalar path to do. */
#include "kernels/avx2/avx2.h"
#include "kernels/legacy_kernels.h"

#include "core/half.h"
#include "core/unaligned.h"

#include <string.h>

#include <immintrin.h>

enum { QK = 32, G = 8 };
enum kind { K40, K41, K50, K51 };

/* lane b of the result = max (or min) over the 8 lanes of v[b] */
static inline __m256 reduce8(const __m256 *v, int is_max) {
#define OP(a, b) (is_max ? _mm256_max_ps((a), (b)) : _mm256_min_ps((a), (b)))
    __m256 s[4];
    for (int k = 0; k < 4; k++)
        s[k] = OP(_mm256_unpacklo_ps(v[2 * k], v[2 * k + 1]), _mm256_unpackhi_ps(v[2 * k], v[2 * k + 1]));
    const __m256 a = OP(_mm256_shuffle_ps(s[0], s[1], 0x44), _mm256_shuffle_ps(s[0], s[1], 0xee));
    const __m256 b = OP(_mm256_shuffle_ps(s[2], s[3], 0x44), _mm256_shuffle_ps(s[2], s[3], 0xee));
    return OP(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31));
#undef OP
}

/* 32 codes (0..31, as four vectors of 8 int32) to 32 bytes in element order */
static inline __m256i codes_bytes(__m256i q0, __m256i q1, __m256i q2, __m256i q3) {
    return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3)),
                                       _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* nibbles: byte j = code j (low) | code j+16 (high) */
static inline void store_nibbles(uint8_t *o, __m256i q) {
    const __m128i m = _mm_set1_epi8(0x0f);
    const __m128i lo = _mm_and_si128(_mm256_castsi256_si128(q), m);
    const __m128i hi = _mm_and_si128(_mm256_extracti128_si256(q, 1), m);
    _mm_storeu_si128((__m128i *)(void *)o, _mm_or_si128(lo, _mm_slli_epi16(hi, 4)));
}

static inline int64_t enc_kind(const float *x, uint8_t *y, int64_t nb, enum kind kd) {
    const int affine = kd == K41 || kd == K51;
    const size_t bytes = kd == K40 ? 18 : kd == K41 ? 20 : kd == K50 ? 22 : 24;
    const __m256 zero = _mm256_setzero_ps();
    const __m256 big = _mm256_set1_ps(3.40282347e38f);
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    int64_t b0 = 0;
    for (; b0 + G <= nb; b0 += G) {
        const float *xb = x + QK * b0;
        __m256 lo[G], hi[G];
        for (int b = 0; b < G; b++) {
            const float *p = xb + QK * b;
            const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8);
            const __m256 v2 = _mm256_loadu_ps(p + 16), v3 = _mm256_loadu_ps(p + 24);
            lo[b] = _mm256_min_ps(_mm256_min_ps(v0, v1), _mm256_min_ps(v2, v3));
            hi[b] = _mm256_max_ps(_mm256_max_ps(v0, v1), _mm256_max_ps(v2, v3));
        }
        const __m256 mn = reduce8(lo, 0), mx = reduce8(hi, 1);
        __m256 d, bad;
        if (affine) {
            /* a zero extreme: its sign is ggml's first zero's */
            bad = _mm256_or_ps(_mm256_cmp_ps(mn, zero, _CMP_EQ_OQ), _mm256_cmp_ps(mx, zero, _CMP_EQ_OQ));
            d = _mm256_div_ps(_mm256_sub_ps(mx, mn), _mm256_set1_ps(kd == K41 ? 15.0f : 31.0f));
        } else {
            /* the abs-max element: the larger side; equal magnitudes (and all-zero) need the first one */
            const __m256 nmn = _mm256_sub_ps(zero, mn);
            bad = _mm256_cmp_ps(mx, nmn, _CMP_EQ_OQ);
            const __m256 m = _mm256_blendv_ps(mn, mx, _mm256_cmp_ps(mx, nmn, _CMP_GT_OQ));
            d = _mm256_div_ps(m, _mm256_set1_ps(kd == K40 ? -8.0f : -16.0f));
        }
        const __m256 dnz = _mm256_cmp_ps(d, zero, _CMP_NEQ_UQ);
        const __m256 id = _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), d), dnz);
        /* d and 1/d finite (else ggml's codes are all 0: the scalar path writes that) */
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(d, absm), big, _CMP_NLE_UQ));
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(id, absm), big, _CMP_NLE_UQ));
        const int badm = _mm256_movemask_ps(bad);
        const int ng = badm ? __builtin_ctz((unsigned)badm) : G;
        uint16_t dh[G], mh[G];
        float idv[G], mnv[G];
        _mm_storeu_si128((__m128i *)(void *)dh, _mm256_cvtps_ph(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        _mm_storeu_si128((__m128i *)(void *)mh, _mm256_cvtps_ph(mn, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        _mm256_storeu_ps(idv, id);
        _mm256_storeu_ps(mnv, mn);
        for (int b = 0; b < ng; b++) {
            const float *p = xb + QK * b;
            uint8_t *o = y + bytes * (size_t)(b0 + b);
            const __m256 vi = _mm256_set1_ps(idv[b]);
            __m256i q[4];
            if (affine) {
                const __m256 vm = _mm256_set1_ps(mnv[b]), h = _mm256_set1_ps(0.5f);
                for (int k = 0; k < 4; k++)
                    q[k] = _mm256_cvttps_epi32(
                        _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p + 8 * k), vm), vi), h));
                st16(o, dh[b]);
                st16(o + 2, mh[b]);
            } else {
                /* trunc(x/d + nmax + 0.5) is in 0..2*nmax here: min clamps as ggml */
                const __m256 off = _mm256_set1_ps(kd == K40 ? 8.5f : 16.5f);
                const __m256i cap = _mm256_set1_epi32(kd == K40 ? 15 : 31);
                for (int k = 0; k < 4; k++)
                    q[k] = _mm256_min_epi32(
                        _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(p + 8 * k), vi), off)), cap);
                st16(o, dh[b]);
            }
            const __m256i c = codes_bytes(q[0], q[1], q[2], q[3]);
            if (kd == K40 || kd == K41) store_nibbles(o + (affine ? 4 : 2), c);
            else {
                /* fifth bits: bit 4 of byte j to bit j */
                st32(o + (affine ? 4 : 2), (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(c, 3)));
                store_nibbles(o + (affine ? 8 : 6), c);
            }
        }
        if (ng < G) return b0 + ng;
    }
    return b0;
}

static int64_t lg_avx2_enc_q4_0(const float *x, uint8_t *y, int64_t nb) { return enc_kind(x, y, nb, K40); }
static int64_t lg_avx2_enc_q4_1(const float *x, uint8_t *y, int64_t nb) { return enc_kind(x, y, nb, K41); }
static int64_t lg_avx2_enc_q5_0(const float *x, uint8_t *y, int64_t nb) { return enc_kind(x, y, nb, K50); }
static int64_t lg_avx2_enc_q5_1(const float *x, uint8_t *y, int64_t nb) { return enc_kind(x, y, nb, K51); }

void mio_avx2_fill_legacy(mio_kernels *k) {
    k->enc_q4_0 = lg_avx2_enc_q4_0;
    k->enc_q4_1 = lg_avx2_enc_q4_1;
    k->enc_q5_0 = lg_avx2_enc_q5_0;
    k->enc_q5_1 = lg_avx2_enc_q5_1;
}
