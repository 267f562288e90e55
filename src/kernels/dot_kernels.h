/* SPDX-License-Identifier: MIT */
/* dot_kernels.h — shared pieces of the portable dot-product kernels (dot/,
 * contract in dot/dot_internal.h) and their SIMD kernels (kernels.h: dot):
 * little-endian field loads at any alignment and the exact f16/bf16 -> f32
 * conversions, so that a back end reads a block's scales exactly as the
 * portable C does. */
#ifndef MIO_DOT_KERNELS_H
#define MIO_DOT_KERNELS_H

#include <stdint.h>
#include <string.h>

/* Little-endian field loads (the library targets little-endian hosts only). */
static inline uint16_t dot_ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t dot_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline float dot_ldf(const uint8_t *p) { float v; memcpy(&v, p, 4); return v; }
static inline float dot_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* f16 -> f32, exact for every input (the same value ggml's conversion gives). */
static inline float dot_f16(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    if (em >= 0x7c00u) return dot_u2f(sign | 0x7f800000u | ((em & 0x3ffu) << 13)); /* inf / NaN */
    if (em >= 0x0400u) return dot_u2f(sign | ((em + 0x1c000u) << 13));           /* normal: rebias 15 -> 127 */
    float v = (float)em * 0x1.0p-24f;                                             /* subnormal: exact */
    return sign ? -v : v;
}
static inline float dot_f16p(const uint8_t *p) { return dot_f16(dot_ld16(p)); }
static inline float dot_bf16(uint16_t h) { return dot_u2f((uint32_t)h << 16); }

/* q3_K's 16 sub-block scales from its 12 scale bytes s (low nibbles in bytes
 * 0..7, the two high bits of scales 4i..4i+3 in bits 2i..2i+1 of bytes 8..11):
 * scale k (6 bits, still biased by 32) as byte k % 4 of out[k / 4]. */
static inline void dot_q3_K_scales(const uint8_t *s, uint32_t out[4]) {
    const uint32_t a = dot_ld32(s), b = dot_ld32(s + 4), c = dot_ld32(s + 8);
    out[0] = (a & 0x0f0f0f0fu) | ((c << 4) & 0x30303030u);
    out[1] = (b & 0x0f0f0f0fu) | ((c << 2) & 0x30303030u);
    out[2] = ((a >> 4) & 0x0f0f0f0fu) | (c & 0x30303030u);
    out[3] = ((b >> 4) & 0x0f0f0f0fu) | ((c >> 2) & 0x30303030u);
}

/* The float dots' summation (dot/dot_float.c): product i goes to partial sum
 * i % MIO_FDOT_LANES; the sums are then folded pairwise, s[j] += s[j + 16],
 * + 8, + 4, + 2, + 1. Every level does exactly this, so the result is the
 * same float everywhere. s is clobbered. */
#define MIO_FDOT_LANES 32
static inline float mio_fdot_fold(float *s) {
    for (int h = MIO_FDOT_LANES / 2; h >= 1; h /= 2)
        for (int j = 0; j < h; j++) s[j] += s[j + h];
    return s[0];
}

#endif
