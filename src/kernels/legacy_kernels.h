/* SPDX-License-Identifier: MIT */
/* legacy_kernels.h — shared pieces of the 32-element block encoders
 * (quant/legacy.c) and their kernels (kernels.h: enc_q4_1), which give bytes
 * identical to the scalar encoder. */
#ifndef MIO_LEGACY_KERNELS_H
#define MIO_LEGACY_KERNELS_H

#include <math.h>
#include <stdint.h>

/* d and 1/d both finite (see the note on non-finite scales in quant/legacy.c). */
static inline int lg_finite_scale(float d, float id) {
    return fabsf(d) <= 3.40282347e38f && fabsf(id) <= 3.40282347e38f;
}

#endif
