/* SPDX-License-Identifier: MIT */
/* kquants_kernels.h — shared pieces of the k-quant encoders (quant/kquants.c)
 * and their kernels (kernels.h): ggml's rounding (the 1.5*2^23 trick, round
 * half to even) and the scalar requantization loops. The SIMD kernels run 8
 * independent sub-blocks in the lanes, every lane doing exactly the scalar
 * reference's sequence of IEEE operations, so results are bit-identical. */
#ifndef MIO_KQUANTS_KERNELS_H
#define MIO_KQUANTS_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ggml's nearest_int: round to nearest even through the float adder; values
 * beyond +-2^22 give the same (meaningless) bits as ggml. */
/* q4_K / q5_K 6-bit scale and min of sub-block j (ggml's get_scale_min_k4),
 * for the decoders of every back end. */
static inline void kq_scale_min_k4(const uint8_t *q, int j, int *sc, int *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

static inline int kq_nearest_int(float f) {
    float v = f + 12582912.f;
    int32_t i;
    memcpy(&i, &v, 4);
    return (i & 0x007fffff) - 0x00400000;
}

/* L[i] = clamp(nearest((x[i] + dm) / d), 0, nmax) */
static inline void kq_requant_min(const float *x, int n, float dm, float d, int nmax, uint8_t *L) {
    for (int i = 0; i < n; i++) {
        int l = kq_nearest_int((x[i] + dm) / d);
        L[i] = (uint8_t)(l < 0 ? 0 : l > nmax ? nmax : l);
    }
}
/* L[i] = clamp(nearest(x[i] / d), -nmax, nmax - 1) + nmax */
static inline void kq_requant_sym(const float *x, int n, float d, int nmax, int8_t *L) {
    for (int i = 0; i < n; i++) {
        int l = kq_nearest_int(x[i] / d);
        l = l < -nmax ? -nmax : l > nmax - 1 ? nmax - 1 : l;
        L[i] = (int8_t)(l + nmax);
    }
}

/* weight modes of the qkx2 kernel (kernels.h: kq_qkx2) */
enum { KQ_W_ABS = 0, /* |x| (q2_K) */ KQ_W_AVX_ABS = 1 /* sqrt(sum x^2 / 32) + |x| (q4_K, q5_K) */, KQ_W_GIVEN = 2 };

#endif
