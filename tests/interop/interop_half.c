/* SPDX-License-Identifier: MIT */
/* interop_half.c — half-precision conversions against ggml's: all 65536 fp16 and
 * bf16 bit patterns to f32, and a few million random plus edge-case f32 bit
 * patterns to fp16 and bf16, compared bit for bit, NaN payloads included. */
#include "interop.h"

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static peer_api G;
static long bad_h2f, bad_b2f, bad_f2h, bad_f2b;

static void check_f32(uint32_t u) {
    float f = u2f(u);
    uint16_t gh = G.ggml_fp32_to_fp16(f), mh = mio_f32_to_fp16(f);
    if (gh != mh) {
        if (bad_f2h++ < 10) fprintf(stderr, "f32 %08x -> fp16: mio %04x, ggml %04x\n", u, mh, gh);
    }
    uint16_t gb = G.ggml_fp32_to_bf16(f).bits, mb = mio_f32_to_bf16(f);
    if (gb != mb) {
        if (bad_f2b++ < 10) fprintf(stderr, "f32 %08x -> bf16: mio %04x, ggml %04x\n", u, mb, gb);
    }
}

int main(void) {
    ic_load_peer_or_skip(&G);
    peer_rng r;
    peer_rng_seed(&r, peer_seed("interop_half"));

    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t g = f2u(G.ggml_fp16_to_fp32((uint16_t)h)), m = f2u(mio_fp16_to_f32((uint16_t)h));
        if (g != m)
            if (bad_h2f++ < 10) fprintf(stderr, "fp16 %04x -> f32: mio %08x, ggml %08x\n", h, m, g);
        peer_bf16 b = {(uint16_t)h};
        g = f2u(G.ggml_bf16_to_fp32(b));
        m = f2u(mio_bf16_to_f32((uint16_t)h));
        if (g != m)
            if (bad_b2f++ < 10) fprintf(stderr, "bf16 %04x -> f32: mio %08x, ggml %08x\n", h, m, g);
    }

    long n = 0;
    /* edges: every fp16/bf16 value widened, and the midpoints/neighbours around
     * each (the rounding ties), both signs */
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t base = f2u(mio_fp16_to_f32((uint16_t)h));
        for (int d = -2; d <= 2; d++) { check_f32(base + (uint32_t)d); n++; }
        check_f32(base + 0x1000u); check_f32(base + 0xfffu); check_f32(base + 0x1001u); n += 3;
        uint32_t bb = h << 16;
        for (int d = -2; d <= 2; d++) { check_f32(bb + (uint32_t)d); n++; }
        check_f32(bb + 0x8000u); check_f32(bb + 0x7fffu); check_f32(bb + 0x8001u); n += 3;
    }
    static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                        0xffc00000u, 0x7f800001u, 0x7fbfffffu, 0x00000001u, 0x007fffffu,
                                        0x00800000u, 0x7f7fffffu, 0x477fe000u, 0x477ff000u, 0x477fefffu,
                                        0x33000000u, 0x33000001u, 0x32ffffffu, 0x387fc000u, 0x38800000u};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) { check_f32(specials[k]); n++; }
    /* random bit patterns, then random values in fp16's range */
    for (int k = 0; k < 3000000; k++) { check_f32((uint32_t)peer_next(&r)); n++; }
    for (int k = 0; k < 1000000; k++) {
        uint32_t u = (uint32_t)peer_next(&r);
        u = (u & 0x80ffffffu) | ((uint32_t)(96 + peer_below(&r, 48)) << 23); /* exponents 2^-31 .. 2^16 */
        check_f32(u);
        n++;
    }
    printf("fp16->f32 and bf16->f32: 65536 patterns each; f32->fp16/bf16: %ld patterns\n", n);
    T_EQ_INT(bad_h2f, 0);
    T_EQ_INT(bad_b2f, 0);
    T_EQ_INT(bad_f2h, 0);
    T_EQ_INT(bad_f2b, 0);
    /* hand-checkable anchors */
    T_EQ_U64(mio_f32_to_fp16(1.0f), 0x3c00);
    T_EQ_U64(G.ggml_fp32_to_fp16(1.0f), 0x3c00);
    T_EQ_U64(mio_f32_to_bf16(1.0f), 0x3f80);
    T_EQ_U64(f2u(mio_fp16_to_f32(0x0001)), 0x33800000u); /* smallest fp16 subnormal = 2^-24 */
    T_DONE();
}
