/* half.c — IEEE binary16 and bfloat16 scalar conversions. Bit-exact with
 * ggml's scalar paths: f32->f16 rounds to nearest even and overflows to inf;
 * f32->bf16 rounds to nearest even and quiets NaN. */
#include "core.h"

#include <string.h>

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float mio_fp16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) /* inf, or NaN with its payload kept and quieted (as ggml does) */
        return u2f(sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0));
    if (exp == 0) {
        if (man == 0) return u2f(sign);
        /* subnormal: value = man * 2^-24, exact in f32 */
        float v = (float)man * u2f(0x33800000u);
        return sign ? -v : v;
    }
    return u2f(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t mio_f32_to_fp16(float f) {
    uint32_t x = f2u(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u); /* NaN: the canonical quiet NaN, sign kept (as ggml) */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                    /* rounds to >= 65520: inf */
    if (ax < 0x38800000u) {
        /* result is subnormal (or zero): add 0.5 so the FPU rounds the shifted mantissa to even */
        float v = u2f(ax) + 0.5f;
        return (uint16_t)(sign | (f2u(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + mant_odd; /* rebias exponent (-112 << 23) and round to nearest even */
    return (uint16_t)(sign | (ax >> 13));
}

float mio_bf16_to_f32(uint16_t h) { return u2f((uint32_t)h << 16); }

uint16_t mio_f32_to_bf16(float f) {
    uint32_t u = f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 64); /* quiet NaN */
    return (uint16_t)((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
}
