/* SPDX-License-Identifier: MIT */
/* iq_kernels.h — shared pieces of the iq encoders (quant/iq.c) and their
 * kernels (kernels.h): the lattice search structure and iq1_m's split scan
 * state. Each kernel performs, per lane, the scalar code's exact IEEE operation
 * sequence, so results are bit-identical. */
#ifndef MIO_IQ_KERNELS_H
#define MIO_IQ_KERNELS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* A lattice: grid points as odd coordinates 2*code+1, a map from a packed code
 * vector to its grid entry, and for off-grid vectors the list of nearest
 * entries. Each list also keeps its entries' codes transposed
 * (coordinate-major, padded to 8 entries by repeating the last), for the
 * 8-entries-at-once search. Built by quant/iq.c. */
typedef struct lattice {
    int ngrid, width, bits, maxcode, want;
    const uint16_t *packed;
    int8_t *pos;       /* ngrid * width */
    int32_t *map;      /* 1 << (bits*width): entry >= 0, or -(list+1) */
    uint32_t *loff;    /* per list: start of its entries in ids (a multiple of 8) */
    uint16_t *lcnt;    /* per list: entry count */
    uint16_t *ids;     /* entries of all lists, each list padded to 8 */
    uint8_t *soa;      /* per list at width*loff: width rows of pad codes */
    pthread_once_t once;
} lattice;

/* the most trial scales of one sub-block search (iq3_xxs: 31), padded */
#define IQ_TRIALS_MAX 32

/* list length rounded up to whole groups of 8 entries */
static inline int pad8(int n) { return (n + 7) & ~7; }

/* iq1_m's exhaustive split search over the sorted sub-block: for every pair of
 * cut points i1 <= i2 (prefix sums px/pw per half, padded to 24) and each of
 * the 4 shift combinations k, ggml's score test in (i1, i2, k) order. */
typedef struct { float best, scale; int i1, i2, k; } iq1m_pick;
typedef struct { float txs[2], tws[2], p2, m2, cp1, cp2, cm1, cm2; } iq1m_consts;

static inline void iq1m_test(iq1m_pick *pk, const float *sqx, const float *sq2, int i1, int i2) {
    for (int k = 0; k < 4; k++)
        if (sq2[k] > 0 && sqx[k] * sqx[k] > pk->best * sq2[k]) {
            pk->scale = sqx[k] / sq2[k];
            pk->best = pk->scale * sqx[k];
            pk->i1 = i1; pk->i2 = i2; pk->k = k;
        }
}

/* iq4_nl / iq4_xs (iq.c iq4_super): the 16 levels as floats and the 15
 * midpoint sums lev[k] + lev[k+1] (mid[15] unused): a value v maps to the
 * level index i of the halving search "2v >= mid[i-1]", i.e. the number of
 * mid[k] <= 2v. */
typedef struct { float lev[16], mid[16]; } iq4_consts;

#endif
