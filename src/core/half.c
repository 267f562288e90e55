/* SPDX-License-Identifier: MIT */
/* half.c — the exported fp16/bf16 scalar conversions; the arithmetic lives in
 * half.h (inline, shared with the codecs). Bit-exact with ggml. */
#include "core.h"
#include "half.h"

float mio_fp16_to_f32(uint16_t h) { return half_to_f32(h); }
uint16_t mio_f32_to_fp16(float f) { return half_from_f32(f); }
float mio_bf16_to_f32(uint16_t h) { return bf16_to_f32(h); }
uint16_t mio_f32_to_bf16(float f) { return bf16_from_f32(f); }
