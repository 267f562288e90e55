/* SPDX-License-Identifier: MIT */
/* iq_avx2.c — AVX2 kernels for the iq encoders' hot searches (quant/iq.c): the
 * nearest-entry search over a lattice list, all trial scales of an iq2/iq3
 * sub-block search and iq1_m's split scan. Each lane performs the scalar code's exact IEEE operation sequence
 * (no FMA, no reassociation), so the chosen entries and scales are identical. */
#include "kernels/avx2/avx2.h"

#include <float.h>
#include <immintrin.h>

/* iq.c's nearest-entry search (list_best_scalar), 8 entries per step: a table
 * lookup per coordinate is a lane permute of that coordinate's 8 tabulated terms. */
static int iq_avx2_list_best(const uint8_t *codes, int n, int w, const float *lev, int nlev, const float *xv, const float *wt,
                         float scale) {
    (void)nlev;
    const int pad = pad8(n);
    __m256 t[8];
    const __m256 lv = _mm256_loadu_ps(lev), sc = _mm256_set1_ps(scale);
    for (int i = 0; i < w; i++) {
        const __m256 diff = _mm256_sub_ps(_mm256_mul_ps(sc, lv), _mm256_set1_ps(xv[i]));
        t[i] = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(wt[i]), diff), diff);
    }
    float d2[512]; /* longest list: 292 entries (iq2_xs) */
    __m256 m = _mm256_set1_ps(FLT_MAX);
    for (int c = 0; c < pad; c += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int i = 0; i < w; i++) {
            const __m256i ci = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(codes + i * pad + c)));
            acc = _mm256_add_ps(acc, _mm256_permutevar8x32_ps(t[i], ci));
        }
        _mm256_storeu_ps(d2 + c, acc);
        m = _mm256_min_ps(acc, m); /* a NaN lane keeps m */
    }
    __m128 h = _mm_min_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_min_ps(h, _mm_movehl_ps(h, h));
    h = _mm_min_ss(h, _mm_shuffle_ps(h, h, 1));
    const float best = _mm_cvtss_f32(h);
    if (!(best < FLT_MAX)) return -1;
    const __m256 bv = _mm256_set1_ps(best);
    for (int c = 0;; c += 8) {
        const int mask = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(d2 + c), bv, _CMP_EQ_OQ));
        if (mask) return c + __builtin_ctz((unsigned)mask);
    }
}

/* iq.c's iq1m_scan_scalar, eight i2 per step, one per lane, same operations. A step in which no
 * candidate beats the running best (tested against the best at step start,
 * which stays unchanged while nothing passes) changes nothing; otherwise its
 * candidates are replayed in order through the scalar test. */
static void iq_avx2_iq1m_scan(const float (*px)[24], const float (*pw)[24], const iq1m_consts *c, iq1m_pick *pk) {
    const __m256 zero = _mm256_setzero_ps(), cp2 = _mm256_set1_ps(c->cp2), cm2 = _mm256_set1_ps(c->cm2);
    __m256 tp[2], tm[2];
    float wp[2], wm[2];
    for (int h = 0; h < 2; h++) {
        tp[h] = _mm256_set1_ps(c->txs[h] * c->p2);
        tm[h] = _mm256_set1_ps(c->txs[h] * c->m2);
        wp[h] = c->tws[h] * c->p2 * c->p2;
        wm[h] = c->tws[h] * c->m2 * c->m2;
    }
    for (int i1 = 0; i1 <= 16; i1++) {
        __m256 a1[2], ap[2], am[2];
        for (int h = 0; h < 2; h++) {
            a1[h] = _mm256_set1_ps(px[h][i1]);
            ap[h] = _mm256_set1_ps(wp[h] + pw[h][i1] * c->cp1);
            am[h] = _mm256_set1_ps(wm[h] + pw[h][i1] * c->cm1);
        }
        for (int i2 = i1; i2 <= 16; i2 += 8) {
            __m256 qxp[2], qxm[2], q2p[2], q2m[2];
            for (int h = 0; h < 2; h++) {
                const __m256 sx = _mm256_add_ps(a1[h], _mm256_loadu_ps(px[h] + i2));
                const __m256 w2 = _mm256_loadu_ps(pw[h] + i2);
                qxp[h] = _mm256_sub_ps(tp[h], sx);
                qxm[h] = _mm256_sub_ps(tm[h], sx);
                q2p[h] = _mm256_add_ps(ap[h], _mm256_mul_ps(w2, cp2));
                q2m[h] = _mm256_add_ps(am[h], _mm256_mul_ps(w2, cm2));
            }
            __m256 sqx[4], sq2[4];
            sqx[0] = _mm256_add_ps(qxp[0], qxp[1]); sqx[1] = _mm256_add_ps(qxp[0], qxm[1]);
            sqx[2] = _mm256_add_ps(qxm[0], qxp[1]); sqx[3] = _mm256_add_ps(qxm[0], qxm[1]);
            sq2[0] = _mm256_add_ps(q2p[0], q2p[1]); sq2[1] = _mm256_add_ps(q2p[0], q2m[1]);
            sq2[2] = _mm256_add_ps(q2m[0], q2p[1]); sq2[3] = _mm256_add_ps(q2m[0], q2m[1]);
            const __m256 bv = _mm256_set1_ps(pk->best);
            int any = 0;
            for (int k = 0; k < 4; k++)
                any |= _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(sq2[k], zero, _CMP_GT_OQ),
                                                        _mm256_cmp_ps(_mm256_mul_ps(sqx[k], sqx[k]), _mm256_mul_ps(bv, sq2[k]), _CMP_GT_OQ)));
            const int nl = 17 - i2 < 8 ? 17 - i2 : 8;
            any &= (1 << nl) - 1;
            if (!any) continue;
            float vx[4][8], v2[4][8];
            for (int k = 0; k < 4; k++) { _mm256_storeu_ps(vx[k], sqx[k]); _mm256_storeu_ps(v2[k], sq2[k]); }
            for (int l = __builtin_ctz((unsigned)any); l < nl; l++) { /* nothing changes before the first pass */
                const float x4[4] = {vx[0][l], vx[1][l], vx[2][l], vx[3][l]}, y4[4] = {v2[0][l], v2[1][l], v2[2][l], v2[3][l]};
                iq1m_test(pk, x4, y4, i1, i2 + l);
            }
        }
    }
}

/* iq.c's iq_trials_scalar with the trials in lanes, 8 per vector: the AVX2
 * transcription of kernels/avx512/iq_avx512.c (see there), same per-lane
 * operation sequence. */
enum { NV8 = IQ_TRIALS_MAX / 8 };

static inline __attribute__((always_inline)) __m256i run_search8(const lattice *g, const int w, int lst, const __m256 (*T)[8],
                                                                  __m256 *acc) {
    const uint32_t lo = g->loff[lst];
    const int n = g->lcnt[lst], pad = pad8(n);
    const uint8_t *codes = g->soa + (size_t)lo * (size_t)w;
    const uint16_t *ids = g->ids + lo;
    const __m256 zero = _mm256_setzero_ps(), big = _mm256_set1_ps(FLT_MAX);
    __m256 m0 = big, m1 = big;
    for (int j = 0; j < n; j++) {
        __m256 a = _mm256_add_ps(zero, T[0][codes[j]]);
#pragma GCC unroll 8
        for (int i = 1; i < w; i++) a = _mm256_add_ps(a, T[i][codes[i * pad + j]]);
        acc[j] = a;
        if (j & 1) m1 = _mm256_min_ps(a, m1); /* a NaN a keeps m */
        else m0 = _mm256_min_ps(a, m0);
    }
    const __m256 m = _mm256_min_ps(m0, m1);
    const __m256i first = _mm256_set1_epi32(ids[0]); /* ggml asserts (non-finite scores); take the first entry */
    __m256i be = first;
    for (int j = n - 1; j >= 0; j--)
        be = _mm256_blendv_epi8(be, _mm256_set1_epi32(ids[j]), _mm256_castps_si256(_mm256_cmp_ps(acc[j], m, _CMP_EQ_OQ)));
    return _mm256_blendv_epi8(first, be, _mm256_castps_si256(_mm256_cmp_ps(m, big, _CMP_LT_OQ)));
}

static inline __attribute__((always_inline)) void trials_body8(const lattice *g, const int w, const int nlev, const int bits,
                                                               const float *xval, const float *weight, const float *waux,
                                                               float max, float kq, float step, int nsteps,
                                                               int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *sqx, float *sq2) {
    const int ngrp = w == 4 ? 8 : 2, nel = w * ngrp, ntrial = 2 * nsteps + 1, nv = (ntrial + 7) / 8;
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f), magic = _mm256_set1_ps(12582912.f);
    const __m256i mant = _mm256_set1_epi32(0x007fffff), bias = _mm256_set1_epi32(0x00400000);
    const __m256i hi = _mm256_set1_epi32(g->maxcode), zi = _mm256_setzero_si256(), lowb = _mm256_set1_epi32(0xff);
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 id[NV8], sc[NV8];
    __m256i onv[NV8];
    for (int v = 0; v < nv; v++) {
        const __m256 is = _mm256_cvtepi32_ps(_mm256_add_epi32(iota, _mm256_set1_epi32(8 * v - nsteps)));
        id[v] = _mm256_div_ps(_mm256_add_ps(_mm256_set1_ps(kq), _mm256_mul_ps(is, _mm256_set1_ps(step))), _mm256_set1_ps(max));
        sc[v] = _mm256_div_ps(one, id[v]);
        onv[v] = _mm256_setzero_si256();
    }
    __m256 T[8][8]; /* [coordinate][code]: wt * (scale * (2c+1) - x)^2 per trial lane */
    __m256 acc[512];  /* run_search8's sums (lists: at most 512 entries, lattice_build) */
    __m256i ent[8][NV8];
    for (int k = 0; k < ngrp; k++) {
        const float *xv = xval + w * k;
        for (int v = 0; v < nv; v++) {
            __m256i key = _mm256_setzero_si256();
#pragma GCC unroll 8
            for (int i = 0; i < w; i++) {
                const __m256 t = _mm256_mul_ps(half, _mm256_sub_ps(_mm256_mul_ps(id[v], _mm256_set1_ps(xv[i])), one));
                __m256i l = _mm256_sub_epi32(_mm256_and_si256(_mm256_castps_si256(_mm256_add_ps(t, magic)), mant), bias);
                l = _mm256_max_epi32(zi, _mm256_min_epi32(hi, l));
                key = _mm256_or_si256(key, _mm256_slli_epi32(l, bits * i));
            }
            ent[k][v] = _mm256_i32gather_epi32(g->map, key, 4);
        }
    }
    for (int k = 0; k < ngrp; k++) {
        const float *xv = xval + w * k, *wt = waux + w * k;
        for (int v = 0; v < nv; v++) {
            const int nl = ntrial - 8 * v >= 8 ? 8 : ntrial - 8 * v;
            __m256i e = ent[k][v];
            const __m256i offv = _mm256_srai_epi32(e, 31);
            onv[v] = _mm256_or_si256(onv[v], _mm256_andnot_si256(offv, _mm256_set1_epi32(1 << k)));
            const __m256i validv = _mm256_cmpgt_epi32(_mm256_set1_epi32(nl), iota);
            __m256i restv = _mm256_and_si256(offv, validv);
            if (_mm256_movemask_ps(_mm256_castsi256_ps(restv))) {
#pragma GCC unroll 8
                for (int i = 0; i < w; i++) {
                    const __m256 x = _mm256_set1_ps(xv[i]), wi = _mm256_set1_ps(wt[i]);
#pragma GCC unroll 8
                    for (int c = 0; c < nlev; c++) {
                        const __m256 diff = _mm256_sub_ps(_mm256_mul_ps(sc[v], _mm256_set1_ps((float)(2 * c + 1))), x);
                        T[i][c] = _mm256_mul_ps(_mm256_mul_ps(wi, diff), diff);
                    }
                }
                int32_t ev[8];
                _mm256_storeu_si256((__m256i *)(void *)ev, e);
                /* each set of trials with the same list, searched once */
                for (int rest; (rest = _mm256_movemask_ps(_mm256_castsi256_ps(restv))) != 0;) {
                    const int32_t ek = ev[__builtin_ctz((unsigned)rest)];
                    const __m256i runv = _mm256_and_si256(_mm256_cmpeq_epi32(e, _mm256_set1_epi32(ek)), restv);
                    restv = _mm256_andnot_si256(runv, restv);
                    e = _mm256_blendv_epi8(e, run_search8(g, w, -ek - 1, (const __m256(*)[8])T, acc), runv);
                }
            }
            ent[k][v] = _mm256_max_epi32(e, zi); /* lanes past the last trial */
        }
    }
    /* the entries' codes: pos holds 2c+1, w bytes per entry */
    for (int k = 0; k < ngrp; k++)
        for (int v = 0; v < nv; v++) {
            const __m256i a = _mm256_slli_epi32(ent[k][v], w == 4 ? 2 : 3);
            for (int h = 0; h < w / 4; h++) {
                const __m256i word =
                    _mm256_i32gather_epi32((const int *)(const void *)g->pos, _mm256_add_epi32(a, _mm256_set1_epi32(4 * h)), 1);
                for (int b = 0; b < 4; b++) {
                    const __m256i c = _mm256_srli_epi32(_mm256_and_si256(_mm256_srli_epi32(word, 8 * b), lowb), 1);
                    const __m256i p = _mm256_packus_epi16(_mm256_packus_epi32(c, c), zi); /* bytes 0-3 of each half */
                    const __m128i q = _mm_unpacklo_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
                    _mm_storel_epi64((__m128i *)(void *)&lc[w * k + 4 * h + b][8 * v], q);
                }
            }
        }
    for (int v = 0; v < nv; v++) {
        __m256 sx = _mm256_setzero_ps(), s2 = _mm256_setzero_ps();
        for (int i = 0; i < nel; i++) {
            const __m256i c = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)&lc[i][8 * v]));
            const __m256 q = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_add_epi32(c, c), _mm256_set1_epi32(1)));
            const __m256 wi = _mm256_set1_ps(weight[i]);
            sx = _mm256_add_ps(sx, _mm256_mul_ps(_mm256_set1_ps(weight[i] * xval[i]), q));
            s2 = _mm256_add_ps(s2, _mm256_mul_ps(_mm256_mul_ps(wi, q), q));
        }
        float bx[8], b2[8];
        int32_t bo[8];
        _mm256_storeu_ps(bx, sx);
        _mm256_storeu_ps(b2, s2);
        _mm256_storeu_si256((__m256i *)(void *)bo, onv[v]);
        for (int l = 0; l < 8 && 8 * v + l < ntrial; l++) {
            sqx[8 * v + l] = bx[l];
            sq2[8 * v + l] = b2[l];
            onm[8 * v + l] = (uint8_t)bo[l];
        }
    }
}

static void iq_avx2_trials(const lattice *g, const float *xval, const float *weight, const float *waux, float max, float kq,
                           float step, int nsteps, int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *sqx, float *sq2) {
    if (g->width == 4 && g->maxcode == 7 && g->bits == 3)
        trials_body8(g, 4, 8, 3, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
    else if (g->width == 8 && g->maxcode == 2 && g->bits == 2)
        trials_body8(g, 8, 3, 2, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
    else
        trials_body8(g, g->width, g->maxcode + 1, g->bits, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
}

void mio_avx2_fill_iq(mio_kernels *k) {
    k->iq_list_best = iq_avx2_list_best;
    k->iq_iq1m_scan = iq_avx2_iq1m_scan;
    k->iq_trials = iq_avx2_trials;
}
