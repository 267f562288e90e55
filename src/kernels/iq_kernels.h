/* SPDX-License-Identifier: MIT */
/* iq_kernels.h — shared pieces of the iq encoders (quant/iq.c) and their AVX2
 * kernels (kernels/avx2/iq_avx2.c): the lattice search structure, iq1_m's split
 * scan state, and the kernel entry points. Each kernel performs, per lane, the
 * scalar code's exact IEEE operation sequence, so results are bit-identical. */
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

/* 1 if the CPU runs the AVX2 kernels (and they were built). */
int iq_avx2_available(void);
/* iq.c's nearest-entry search over a list of n entries (codes: w rows of
 * pad8(n) codes; lev: 8 levels, nlev used): index of the first entry of
 * smallest weighted distance below FLT_MAX, or -1. */
int iq_avx2_list_best(const uint8_t *codes, int n, int w, const float *lev, int nlev, const float *xv, const float *wt,
                      float scale);
/* One trial scale of the iq3 search on a 4-wide lattice: the 8 groups of 4
 * codes of a sub-block at inverse scale id into Laux (off-grid groups snapped
 * to their nearest listed entry at this_scale); on_aux[k]: group k on the grid. */
void iq_avx2_iq3_step(const lattice *g, const float *xval, const float *waux, float id, float this_scale, int8_t *Laux,
                      bool *on_aux);
/* iq1_m's split scan (see iq1m_test), updating *pk exactly as the scalar scan. */
void iq_avx2_iq1m_scan(const float (*px)[24], const float (*pw)[24], const iq1m_consts *c, iq1m_pick *pk);

#endif
