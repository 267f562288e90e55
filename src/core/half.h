/* SPDX-License-Identifier: MIT */
/* half.h — branch-free fp16/bf16 <-> f32 conversions, inline so that codec
 * loops vectorize. Bit-exact with ggml's scalar conversions:
 *  - f32 -> f16 rounds to nearest even, overflows to inf, NaN -> sign|0x7e00;
 *  - f16 -> f32 is exact; the rebias is a float multiply, which (like ggml)
 *    quiets a signalling NaN;
 *  - f32 -> bf16 rounds to nearest even; NaN keeps its top bits, quieted. */
#ifndef MIO_HALF_H
#define MIO_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t half_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float half_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float half_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t em = h & 0x7fffu;
    /* exponent + 224 then * 2^-112: normals rebias by 112, 31 becomes 255 (inf/NaN) */
    float norm = half_u2f((em << 13) + (0xe0u << 23)) * 0x1.0p-112f;
    /* subnormals: 0.5 + m * 2^-24, minus 0.5, exactly */
    float sub = half_u2f(em | (126u << 23)) - 0.5f;
    return half_u2f(sign | (em < 0x400u ? half_f2u(sub) : half_f2u(norm)));
}

static inline uint16_t half_from_f32(float f) {
    uint32_t x = half_f2u(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    /* normal results: rebias the exponent (-112 << 23), round to nearest even on bit 13 */
    uint32_t norm = (ax + 0xc8000fffu + ((ax >> 13) & 1u)) >> 13;
    /* subnormal results: adding 0.5 makes the FPU round the shifted mantissa to even */
    uint32_t sub = half_f2u(half_u2f(ax) + 0.5f) - 0x3f000000u;
    uint32_t r = ax < 0x38800000u ? sub : norm;
    r = ax >= 0x477ff000u ? 0x7c00u : r; /* rounds to 65520 or more: inf */
    r = ax > 0x7f800000u ? 0x7e00u : r;  /* NaN */
    return (uint16_t)(sign | r);
}

static inline float bf16_to_f32(uint16_t h) { return half_u2f((uint32_t)h << 16); }

static inline uint16_t bf16_from_f32(float f) {
    uint32_t u = half_f2u(f);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? ((u >> 16) | 64u) : r);
}

#endif
