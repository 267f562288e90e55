/* SPDX-License-Identifier: MIT */
/* kquants_kernels.h — shared pieces of the k-quant encoders: ggml's rounding
 * (the 1.5*2^23 trick, round half to even), scalar requantization loops, and
 * the AVX2 kernels in kernels/avx2/kquants_avx2.c. Each AVX2 kernel runs 8
 * independent sub-blocks in the 8 lanes, every lane doing exactly the scalar
 * reference's sequence of IEEE operations, so results are bit-identical. */
#ifndef MIO_KQUANTS_KERNELS_H
#define MIO_KQUANTS_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ggml's nearest_int: round to nearest even through the float adder; values
 * beyond +-2^22 give the same (meaningless) bits as ggml. */
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

/* weights for kq_avx2_qkx2 */
enum { KQ_W_ABS = 0, /* |x| (q2_K) */ KQ_W_AVX_ABS = 1 /* sqrt(sum x^2 / 32) + |x| (q4_K, q5_K) */, KQ_W_GIVEN = 2 };

/* 1 if the CPU runs the AVX2 kernels (and they were built). */
int kq_avx2_available(void);
/* make_qkx2_quants on 8 sub-blocks of n (16 or 32) contiguous floats at x:
 * scale[j], the_min[j] and levels L[n*j + i] for sub-block j. */
void kq_avx2_qkx2(const float *x, int n, int nmax, float rmin, float rdelta, int nstep, int wmode, bool use_mad,
                  float *scale, float *the_min, uint8_t *L);
/* make_qkx3_quants(n, nmax, ., w, ., ., ., -0.9, 0.05, 36, false) on 8
 * sub-blocks of n (16 or 32) at x with weights w laid out like x. */
void kq_avx2_qkx3(const float *x, int n, int nmax, const float *w, float *scale, float *the_min, uint8_t *L);
/* make_qx_quants(16, nmax, ., ., 1, qw) on the 16 sub-blocks of 16 at x (one
 * super-block; qw: 256 weights, or NULL for x*x); nmax <= 32. */
void kq_avx2_qx(const float *x, int nmax, const float *qw, float *scale, int8_t *L);
/* make_q3_quants(16, 4, ., ., true) on the 16 sub-blocks of 16 at x (one q3_K block). */
void kq_avx2_q3(const float *x, float *scale, int8_t *L);
/* vector kq_requant_min / kq_requant_sym for n a multiple of 8 */
void kq_avx2_requant_min(const float *x, int n, float dm, float d, int nmax, uint8_t *L);
void kq_avx2_requant_sym(const float *x, int n, float d, int nmax, int8_t *L);

#endif
