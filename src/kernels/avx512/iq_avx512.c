/* SPDX-License-Identifier: MIT */
/* iq_avx512.c — AVX-512 kernel for the iq2/iq3 encoders' trial-scale search
 * (quant/iq.c, iq_trials_scalar): the trials run in lanes, 16 per vector, each
 * lane doing the scalar code's exact IEEE operation sequence for its trial
 * (no FMA, sums sequential over the elements). Off-grid groups: consecutive
 * trials mostly round a group to the same off-grid point, so each set of trials
 * sharing a neighbour list is searched once, entry by entry, with its trials in
 * lanes (per lane the scalar table terms, ordered sum and first-strict-minimum). */
#include "kernels/avx512/avx512.h"

#include <float.h>
#include <math.h>
#include <immintrin.h>
#include <string.h>

enum { NV = IQ_TRIALS_MAX / 16 };

/* The grid entry nearest to group (xv, wt) in list lst for the trials of
 * vector T's lanes (T: the group's table terms per coordinate and code, per
 * trial lane): per lane the first entry of strictly smallest ordered sum, as
 * list_best_scalar (the list's first entry when none is below FLT_MAX). The
 * sums are kept; their minimum (order-free: exact values, NaN never taken) is
 * found in two chains, then the first entry equal to it, scanning backwards,
 * so that no compare waits on the running best. */
static inline __attribute__((always_inline)) __m512i run_search(const lattice *g, const int w, int lst, const __m512 (*T)[8],
                                                                 __m512 *acc) {
    const uint32_t lo = g->loff[lst];
    const int n = g->lcnt[lst], pad = pad8(n);
    const uint8_t *codes = g->soa + (size_t)lo * (size_t)w;
    const uint16_t *ids = g->ids + lo;
    const __m512 zero = _mm512_setzero_ps(), big = _mm512_set1_ps(FLT_MAX);
    __m512 m0 = big, m1 = big;
    for (int j = 0; j < n; j++) {
        __m512 a = _mm512_add_ps(zero, T[0][codes[j]]);
#pragma GCC unroll 8
        for (int i = 1; i < w; i++) a = _mm512_add_ps(a, T[i][codes[i * pad + j]]);
        acc[j] = a;
        if (j & 1) m1 = _mm512_min_ps(a, m1); /* a NaN a keeps m */
        else m0 = _mm512_min_ps(a, m0);
    }
    const __m512 m = _mm512_min_ps(m0, m1);
    const __m512i first = _mm512_set1_epi32(ids[0]); /* ggml asserts (non-finite scores); take the first entry */
    __m512i be = first;
    for (int j = n - 1; j >= 0; j--)
        be = _mm512_mask_mov_epi32(be, _mm512_cmp_ps_mask(acc[j], m, _CMP_EQ_OQ), _mm512_set1_epi32(ids[j]));
    return _mm512_mask_mov_epi32(first, _mm512_cmp_ps_mask(m, big, _CMP_LT_OQ), be);
}

/* the kernel body for one lattice shape (w, nlev, bits constants: unrolled) */
static inline __attribute__((always_inline)) void trials_body(const lattice *g, const int w, const int nlev, const int bits,
                                                              const float *xval, const float *weight, const float *waux,
                                                              float max, float kq, float step, int nsteps,
                                                              int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *sqx, float *sq2) {
    const int ngrp = w == 4 ? 8 : 2, nel = w * ngrp, ntrial = 2 * nsteps + 1, nv = (ntrial + 15) / 16;
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f), magic = _mm512_set1_ps(12582912.f);
    const __m512i mant = _mm512_set1_epi32(0x007fffff), bias = _mm512_set1_epi32(0x00400000);
    const __m512i hi = _mm512_set1_epi32(g->maxcode), zi = _mm512_setzero_si512(), lowb = _mm512_set1_epi32(0xff);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512 id[NV], sc[NV];
    __m512i onv[NV];
    for (int v = 0; v < nv; v++) {
        const __m512 is = _mm512_cvtepi32_ps(_mm512_add_epi32(iota, _mm512_set1_epi32(16 * v - nsteps)));
        id[v] = _mm512_div_ps(_mm512_add_ps(_mm512_set1_ps(kq), _mm512_mul_ps(is, _mm512_set1_ps(step))), _mm512_set1_ps(max));
        sc[v] = _mm512_div_ps(one, id[v]);
        onv[v] = _mm512_setzero_si512();
    }
    __m512 T[8][8]; /* [coordinate][code]: wt * (scale * (2c+1) - x)^2 per trial lane */
    __m512 acc[512];  /* run_search's sums (lists: at most 512 entries, lattice_build) */
    __m512i ent[8][NV];
    /* every group's codes and grid lookups first (independent gathers) */
    for (int k = 0; k < ngrp; k++) {
        const float *xv = xval + w * k;
        for (int v = 0; v < nv; v++) {
            __m512i key = _mm512_setzero_si512();
#pragma GCC unroll 8
            for (int i = 0; i < w; i++) {
                const __m512 t = _mm512_mul_ps(half, _mm512_sub_ps(_mm512_mul_ps(id[v], _mm512_set1_ps(xv[i])), one));
                __m512i l = _mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(_mm512_add_ps(t, magic)), mant), bias);
                l = _mm512_max_epi32(zi, _mm512_min_epi32(hi, l));
                key = _mm512_or_si512(key, _mm512_slli_epi32(l, (unsigned)(bits * i)));
            }
            ent[k][v] = _mm512_i32gather_epi32(key, g->map, 4);
        }
    }
    for (int k = 0; k < ngrp; k++) {
        const float *xv = xval + w * k, *wt = waux + w * k;
        for (int v = 0; v < nv; v++) {
            const int nl = ntrial - 16 * v >= 16 ? 16 : ntrial - 16 * v;
            __m512i e = ent[k][v];
            const __mmask16 off = _mm512_movepi32_mask(e);
            onv[v] = _mm512_mask_or_epi32(onv[v], (__mmask16)~off, onv[v], _mm512_set1_epi32(1 << k));
            unsigned rest = off & ((1u << nl) - 1);
            if (rest) {
#pragma GCC unroll 8
                for (int i = 0; i < w; i++) {
                    const __m512 x = _mm512_set1_ps(xv[i]), wi = _mm512_set1_ps(wt[i]);
#pragma GCC unroll 8
                    for (int c = 0; c < nlev; c++) {
                        const __m512 diff = _mm512_sub_ps(_mm512_mul_ps(sc[v], _mm512_set1_ps((float)(2 * c + 1))), x);
                        T[i][c] = _mm512_mul_ps(_mm512_mul_ps(wi, diff), diff);
                    }
                }
                int32_t ev[16];
                _mm512_storeu_si512(ev, e);
                /* each set of trials with the same list, searched once */
                while (rest) {
                    const int32_t ek = ev[__builtin_ctz(rest)];
                    const __mmask16 run = (__mmask16)(_mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(ek)) & rest);
                    rest &= ~(unsigned)run;
                    e = _mm512_mask_mov_epi32(e, run, run_search(g, w, -ek - 1, (const __m512(*)[8])T, acc));
                }
            }
            ent[k][v] = _mm512_max_epi32(e, zi); /* lanes past the last trial */
        }
    }
    /* the entries' codes: pos holds 2c+1, w bytes per entry */
    for (int k = 0; k < ngrp; k++)
        for (int v = 0; v < nv; v++) {
            const __m512i a = _mm512_slli_epi32(ent[k][v], w == 4 ? 2 : 3);
            for (int h = 0; h < w / 4; h++) {
                const __m512i word = _mm512_i32gather_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(4 * h)), g->pos, 1);
                for (int b = 0; b < 4; b++) {
                    const __m512i c = _mm512_srli_epi32(_mm512_and_si512(_mm512_srli_epi32(word, 8 * b), lowb), 1);
                    _mm_storeu_si128((__m128i *)(void *)&lc[w * k + 4 * h + b][16 * v], _mm512_cvtepi32_epi8(c));
                }
            }
        }
    for (int v = 0; v < nv; v++) {
        __m512 sx = _mm512_setzero_ps(), s2 = _mm512_setzero_ps();
        for (int i = 0; i < nel; i++) {
            const __m512i c = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)&lc[i][16 * v]));
            const __m512 q = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_add_epi32(c, c), _mm512_set1_epi32(1)));
            const __m512 wi = _mm512_set1_ps(weight[i]);
            sx = _mm512_add_ps(sx, _mm512_mul_ps(_mm512_set1_ps(weight[i] * xval[i]), q));
            s2 = _mm512_add_ps(s2, _mm512_mul_ps(_mm512_mul_ps(wi, q), q));
        }
        float bx[16], b2[16];
        int32_t bo[16];
        _mm512_storeu_ps(bx, sx);
        _mm512_storeu_ps(b2, s2);
        _mm512_storeu_si512(bo, onv[v]);
        for (int l = 0; l < 16 && 16 * v + l < ntrial; l++) {
            sqx[16 * v + l] = bx[l];
            sq2[16 * v + l] = b2[l];
            onm[16 * v + l] = (uint8_t)bo[l];
        }
    }
}

static void iq_avx512_trials(const lattice *g, const float *xval, const float *weight, const float *waux, float max, float kq,
                             float step, int nsteps, int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *sqx, float *sq2) {
    if (g->width == 4 && g->maxcode == 7 && g->bits == 3)
        trials_body(g, 4, 8, 3, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
    else if (g->width == 8 && g->maxcode == 2 && g->bits == 2)
        trials_body(g, 8, 3, 2, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
    else
        trials_body(g, g->width, g->maxcode + 1, g->bits, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
}

/* kernels.h iq_list_best, 16 entries per step (the AVX2 kernel's method: the
 * per-coordinate terms tabulated once, each entry's ordered sum of table
 * terms, the order-free minimum, then the first entry equal to it). Lanes
 * past the padded list (pad8(n) entries) are +inf and read nothing. */
static int iq_avx512_list_best(const uint8_t *codes, int n, int w, const float *lev, int nlev, const float *xv, const float *wt,
                               float scale) {
    (void)nlev;
    const int pad = pad8(n);
    __m512 t[8];
    const __m512 lv = _mm512_castps256_ps512(_mm256_loadu_ps(lev)), sc = _mm512_set1_ps(scale);
    for (int i = 0; i < w; i++) {
        const __m512 diff = _mm512_sub_ps(_mm512_mul_ps(sc, lv), _mm512_set1_ps(xv[i]));
        t[i] = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(wt[i]), diff), diff);
    }
    float d2[512 + 16]; /* longest list: 292 entries (iq2_xs) */
    const __m512 inf = _mm512_set1_ps(INFINITY);
    __m512 m = inf;
    for (int c = 0; c < pad; c += 16) {
        const __mmask16 in = pad - c >= 16 ? 0xffff : 0x00ff; /* pad is a multiple of 8 */
        __m512 acc = _mm512_setzero_ps();
        for (int i = 0; i < w; i++) {
            const __m512i ci = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(in, codes + i * pad + c));
            acc = _mm512_add_ps(acc, _mm512_permutexvar_ps(ci, t[i]));
        }
        acc = _mm512_mask_mov_ps(inf, in, acc);
        _mm512_storeu_ps(d2 + c, acc);
        m = _mm512_min_ps(acc, m); /* a NaN lane keeps m */
    }
    const float best = _mm512_reduce_min_ps(m);
    int r = -1;
    if (best < FLT_MAX) {
        const __m512 bv = _mm512_set1_ps(best);
        for (int c = 0;; c += 16) {
            const unsigned mask = _mm512_cmp_ps_mask(_mm512_loadu_ps(d2 + c), bv, _CMP_EQ_OQ);
            if (mask) { r = c + __builtin_ctz(mask); break; }
        }
    }
    _mm256_zeroupper();
    return r;
}

void mio_avx512_fill_iq(mio_kernels *k) {
    k->iq_trials = iq_avx512_trials;
    k->iq_list_best = iq_avx512_list_best;
}
