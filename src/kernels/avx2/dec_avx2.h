/* SPDX-License-Identifier: MIT */
/* dec_avx2.h — AVX2 block decoders (kernels/avx2/dec_avx2.c) for the formats
 * whose scalar decoders the compiler does not vectorize well: q8_0, q4_K,
 * q5_K, q6_K and the grid-based iq types. Every output element is computed
 * with the scalar decoder's IEEE operations (no FMA), so results are
 * bit-identical, NaN payloads included. Call only when dq_avx2_available(). */
#ifndef MIO_DEC_AVX2_H
#define MIO_DEC_AVX2_H

#include <stdint.h>

int dq_avx2_available(void);

void dq_avx2_q8_0(const void *x, float *y, int64_t nb);
void dq_avx2_q4_K(const void *x, float *y, int64_t nb);
void dq_avx2_q5_K(const void *x, float *y, int64_t nb);
void dq_avx2_q6_K(const void *x, float *y, int64_t nb);

/* IQ decoders take the expanded grids (one row of level values per grid
 * entry) and the 7-bit -> 8-bit sign table from iq.c. */
void dq_avx2_iq2_xxs(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8], const uint8_t *sign8);
void dq_avx2_iq2_xs(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8], const uint8_t *sign8);
void dq_avx2_iq2_s(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8]);
void dq_avx2_iq3_xxs(const void *x, float *y, int64_t nb, const uint8_t (*grid)[4], const uint8_t *sign8);
void dq_avx2_iq3_s(const void *x, float *y, int64_t nb, const uint8_t (*grid)[4]);
void dq_avx2_iq1_s(const void *x, float *y, int64_t nb, const int8_t (*grid)[8], float delta);
void dq_avx2_iq1_m(const void *x, float *y, int64_t nb, const int8_t (*grid)[8], float delta);

#endif
