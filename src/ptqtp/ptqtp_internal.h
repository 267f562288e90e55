/* SPDX-License-Identifier: MIT */
/* ptqtp_internal.h — what the PTQTP solver (ptqtp/solver.c) shares with its
 * SIMD kernels (kernels/<isa>/) and with tests/kernels: the pinned candidate
 * order of the 3^K topology search and the portable search itself.
 *
 * The topology search is the solver's hot loop. Its contract, which every
 * kernel must meet bit for bit:
 *
 *   for each of the n elements w[j] (n a multiple of 8): out[j] = label[i] for
 *   the first i in 0 .. ncand-1 whose f32 error
 *   e_i = (w[j] - vals[i]) * (w[j] - vals[i]) is strictly less than every
 *   earlier candidate's — i.e. start with i = 0, replace the best only when
 *   e_i < e_best. Subtraction and square are single f32 operations (no fused
 *   multiply-add: the library builds with -ffp-contract=off).
 *
 * The solver passes the candidates' trits as labels (ptqtp_label): 2 bits a
 * plane, code = trit + 1, plane p at bits 2p — the TQ2_0 code of each plane.
 * A NaN or infinite w[j] makes every e_i NaN or +inf, so no comparison is true
 * and out[j] = label[0], the zero tuple: non-finite weights get trit 0 in
 * every plane without a test of their own. */
#ifndef MIO_PTQTP_INTERNAL_H
#define MIO_PTQTP_INTERNAL_H

#include <stdint.h>

#define PTQTP_GROUP 256  /* elements of a group: one TQ2_0 block */
#define PTQTP_MAX_CAND 27 /* 3^3 */

/* Trit tuples (plane 0, plane 1, plane 2) in the pinned order: the zero tuple
 * first, then by the number of non-zero trits (sparser first), the finer
 * (later) planes taking their non-zero first within a support size, -1 before
 * +1. The K = 1 and K = 2 orders are the prefixes of this table whose unused
 * planes are 0, listed by ptqtp_cand_count(K). */
extern const int8_t mio_ptqtp_cand[3][PTQTP_MAX_CAND][3];

/* 3^K */
static inline int ptqtp_cand_count(int planes) { return planes == 1 ? 3 : planes == 2 ? 9 : 27; }

/* Candidate i of K planes as a label: (trit_p + 1) << 2p summed over the planes. */
static inline uint8_t ptqtp_label(int planes, int i) {
    unsigned l = 0;
    for (int p = 0; p < planes; p++) l |= (unsigned)(mio_ptqtp_cand[planes - 1][i][p] + 1) << (2 * p);
    return (uint8_t)l;
}

/* The portable topology search (the reference every kernel matches). */
void mio_ptqtp_search_portable(const float *w, int n, const float *vals, const uint8_t *label, int ncand, uint8_t *out);

#endif
