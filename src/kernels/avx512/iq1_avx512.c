/* SPDX-License-Identifier: MIT */
/* iq1_avx512.c — AVX-512 kernels for the iq1 encoders' exhaustive split scans
 * (quant/iq.c iq1m_scan_scalar / iq1s_scan_scalar): 16 candidate cut pairs per
 * vector, each lane doing the scalar expression's exact IEEE operations (no
 * FMA, the scalar's association).
 *
 * iq1_m: the 153 cut pairs (i1 <= i2 in 0..16) as one flat list in scan order,
 * 10 vectors; per lane the pair's prefix sums are fetched with one two-table
 * permute each (17 entries fit the 32 of two registers). The AVX2 kernel walks
 * 28 rows of 8 (68 % of its lanes used, 96 % here).
 * iq1_s: rows of cut points i2 for each i1 (33 entries do not fit a
 * permute), 16 per step: 51 steps instead of 85.
 *
 * Both then pick the scalar loop's final candidate as the AVX2 kernel does
 * (kernels/avx2/iq_avx2.c, iq1_resolve; the argument is written there): the
 * scores s = (sqx / sq2) * sqx are first approximated with rcp14 (relative
 * error < 2^-14, the AVX2 kernel's rcp is < 2^-11 and its bounds are kept), the
 * few candidates near the largest get the exact division, and two checks
 * prove that the first candidate reaching the largest exact score is what the
 * scalar loop keeps. Anything unusual (non-finite values, no positive score,
 * many near candidates, a failed check) replays the candidates in scan order
 * through the scalar test itself. */
#include "kernels/avx512/avx512.h"
#include "kernels/iq_kernels.h"

#include <float.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>

/* most vectors of candidates: iq1_s 51 steps x 2 shifts, iq1_m 10 x 4 */
enum { CS = 52, CV = CS * 2, NEAR = 32 };

/* every candidate of one scan: vector v = t * nk + k of step t and shift k,
 * lane l (valid lanes of step t in in[t]); step t's lane l is the cut pair
 * (st1[t], st2[t] + l) (rows) or g_m's pair 16 * t + l (flat) */
typedef struct {
    float X[CV * 16], Q[CV * 16], SA[CV * 16];
    uint16_t in[CS];
    uint8_t st1[CS], st2[CS];
    int flat;
} cands16;

static struct {
    int32_t i1[160], i2[160];
    pthread_once_t once;
} g_m = {.once = PTHREAD_ONCE_INIT};

/* Records vector v: sqx, sq2 and the approximate score sqx^2 * rcp14(sq2),
 * 0 in lanes outside the step. A score is positive exactly where sq2 > 0 (the
 * scalar test's first condition) unless it is not finite (sq2 = +-0 gives an
 * infinite reciprocal): bad collects those (s - s is NaN) for the replay. */
static inline __attribute__((always_inline)) void note16(cands16 *c, int v, __m512 x, __m512 q, __mmask16 in, __m512 *vm,
                                                         __m512 *bad) {
    const __m512 sa = _mm512_maskz_mul_ps(in, _mm512_mul_ps(x, x), _mm512_rcp14_ps(q));
    _mm512_storeu_ps(c->X + 16 * v, x);
    _mm512_storeu_ps(c->Q + 16 * v, q);
    _mm512_storeu_ps(c->SA + 16 * v, sa);
    *bad = _mm512_or_ps(*bad, _mm512_sub_ps(sa, sa));
    *vm = _mm512_max_ps(*vm, sa);
}

static inline void apply(iq1m_pick *pk, float x, float q, int t, int l, int k, const cands16 *c) {
    pk->scale = x / q;
    pk->best = pk->scale * x;
    if (c->flat) { pk->i1 = g_m.i1[16 * t + l]; pk->i2 = g_m.i2[16 * t + l]; }
    else { pk->i1 = c->st1[t]; pk->i2 = c->st2[t] + l; }
    pk->k = k;
}

/* The scalar loop itself, in scan order (step, lane, shift). */
static void replay16(const cands16 *c, int nt, int nk, iq1m_pick *pk) {
    for (int t = 0; t < nt; t++)
        for (int l = 0; l < 16; l++) {
            if (!((c->in[t] >> l) & 1)) continue;
            for (int k = 0; k < nk; k++) {
                const int o = 16 * (t * nk + k) + l;
                const float x = c->X[o], q = c->Q[o];
                if (q > 0 && x * x > pk->best * q) apply(pk, x, q, t, l, k, c);
            }
        }
}

/* A: the largest approximate score; bad: some score is not finite */
static void resolve16(const cands16 *c, int nt, int nk, float A, int bad, iq1m_pick *pk) {
    if (bad || !(A > 0 && A < FLT_MAX)) { replay16(c, nt, nk, pk); return; }
    int nn = 0, nt_[NEAR], nl_[NEAR], nk_[NEAR];
    float ns[NEAR];
    /* near: approximate score >= thr > 0 (so sq2 > 0 and the lane is valid) */
    const __m512 thr = _mm512_set1_ps(A * (1.f - 1.f / 256));
    for (int t = 0; t < nt; t++) {
        unsigned m[4] = {0, 0, 0, 0}, any = 0;
        for (int k = 0; k < nk; k++) {
            m[k] = _mm512_cmp_ps_mask(_mm512_loadu_ps(c->SA + 16 * (t * nk + k)), thr, _CMP_GE_OQ);
            any |= m[k];
        }
        while (any) {
            const int l = __builtin_ctz(any);
            any &= any - 1;
            for (int k = 0; k < nk; k++)
                if ((m[k] >> l) & 1) {
                    if (nn == NEAR) { replay16(c, nt, nk, pk); return; }
                    const int o = 16 * (t * nk + k) + l;
                    ns[nn] = (c->X[o] / c->Q[o]) * c->X[o];
                    nt_[nn] = t; nl_[nn] = l; nk_[nn] = k; nn++;
                }
        }
    }
    if (nn == 0) { replay16(c, nt, nk, pk); return; }
    float M = ns[0];
    int w = 0;
    for (int j = 1; j < nn; j++)
        if (ns[j] > M) { M = ns[j]; w = j; }
    /* (1) w passes against the largest best it can meet: the initial best,
     * the bound on every far candidate's score, the near ones before it */
    float b = A * (1.f - 1.f / 512);
    b = pk->best > b ? pk->best : b;
    for (int j = 0; j < w; j++) b = ns[j] > b ? ns[j] : b;
    const int wt = nt_[w], wl = nl_[w], wk = nk_[w], ow = 16 * (wt * nk + wk) + wl;
    const float xw = c->X[ow], qw = c->Q[ow];
    if (!(xw * xw > b * qw)) { replay16(c, nt, nk, pk); return; }
    /* (2) no candidate after w passes against M */
    const __m512 bm = _mm512_set1_ps(M), zero = _mm512_setzero_ps();
    for (int t = wt; t < nt; t++)
        for (int k = 0; k < nk; k++) {
            const int v = t * nk + k;
            const __m512 x = _mm512_loadu_ps(c->X + 16 * v), q = _mm512_loadu_ps(c->Q + 16 * v);
            const __mmask16 pos = _mm512_mask_cmp_ps_mask(c->in[t], q, zero, _CMP_GT_OQ);
            unsigned m = _mm512_mask_cmp_ps_mask(pos, _mm512_mul_ps(x, x), _mm512_mul_ps(bm, q), _CMP_GT_OQ);
            if (t == wt) m &= k > wk ? ~0u << wl : ~0u << (wl + 1);
            if (m) { replay16(c, nt, nk, pk); return; }
        }
    apply(pk, xw, qw, wt, wl, wk, c);
}

/* The scan's end: the pick, then a clean upper state for the caller's SSE code
 * (gcc emitted no vzeroupper on these paths; without it the caller's scalar
 * code ran about 25 % slower). */
static inline __attribute__((always_inline)) void finish(const cands16 *c, int nt, int nk, __m512 vm, __m512 bad, iq1m_pick *pk) {
    const float A = _mm512_reduce_max_ps(vm);
    const __m512i bi = _mm512_castps_si512(bad);
    const int b = _mm512_test_epi32_mask(bi, bi) != 0;
    _mm256_zeroupper();
    resolve16(c, nt, nk, A, b, pk);
    _mm256_zeroupper();
}

/* iq1_m's flat pair list: slot s -> (i1, i2) in the scalar's order, padded to
 * 160 with (16, 16) (outside the step) */
static void build_pairs(void) {
    int s = 0;
    for (int i1 = 0; i1 <= 16; i1++)
        for (int i2 = i1; i2 <= 16; i2++, s++) { g_m.i1[s] = i1; g_m.i2[s] = i2; }
    for (; s < 160; s++) { g_m.i1[s] = 16; g_m.i2[s] = 16; }
}

/* A 17-entry table (index 0..16) as two registers for _mm512_permutex2var_ps. */
typedef struct { __m512 lo, hi; } tab17;
static inline tab17 tab_load(const float *p) { return (tab17){_mm512_loadu_ps(p), _mm512_maskz_loadu_ps(0x00ff, p + 16)}; }
static inline __m512 tab_get(tab17 t, __m512i idx) { return _mm512_permutex2var_ps(t.lo, idx, t.hi); }

/* iq.c's iq1m_scan_scalar. Per lane, for its pair (i1, i2) and half h:
 * sx = px[i1] + px[i2]; qx_p = txs*p2 - sx; q2_p = (tws*p2*p2 + pw[i1]*cp1) +
 * pw[i2]*cp2 (and _m with m2, cm1, cm2); the sums over halves as the scalar. The
 * terms of one cut point only, (tws*p2*p2 + pw[i]*cp1) and pw[i]*cp2, are
 * computed once per index (same operations). */
static void iq_avx512_iq1m_scan(const float (*px)[24], const float (*pw)[24], const iq1m_consts *c, iq1m_pick *pk) {
    pthread_once(&g_m.once, build_pairs);
    tab17 X[2], AP[2], AM[2], BP[2], BM[2];
    __m512 tp[2], tm[2];
    for (int h = 0; h < 2; h++) {
        const float wp = c->tws[h] * c->p2 * c->p2, wm = c->tws[h] * c->m2 * c->m2;
        X[h] = tab_load(px[h]);
        const tab17 W = tab_load(pw[h]);
        AP[h] = (tab17){_mm512_add_ps(_mm512_set1_ps(wp), _mm512_mul_ps(W.lo, _mm512_set1_ps(c->cp1))),
                        _mm512_add_ps(_mm512_set1_ps(wp), _mm512_mul_ps(W.hi, _mm512_set1_ps(c->cp1)))};
        AM[h] = (tab17){_mm512_add_ps(_mm512_set1_ps(wm), _mm512_mul_ps(W.lo, _mm512_set1_ps(c->cm1))),
                        _mm512_add_ps(_mm512_set1_ps(wm), _mm512_mul_ps(W.hi, _mm512_set1_ps(c->cm1)))};
        BP[h] = (tab17){_mm512_mul_ps(W.lo, _mm512_set1_ps(c->cp2)), _mm512_mul_ps(W.hi, _mm512_set1_ps(c->cp2))};
        BM[h] = (tab17){_mm512_mul_ps(W.lo, _mm512_set1_ps(c->cm2)), _mm512_mul_ps(W.hi, _mm512_set1_ps(c->cm2))};
        tp[h] = _mm512_set1_ps(c->txs[h] * c->p2);
        tm[h] = _mm512_set1_ps(c->txs[h] * c->m2);
    }
    cands16 cd;
    cd.flat = 1;
    /* one max / bad accumulator per shift: four short dependency chains */
    __m512 vm[4], bad[4];
    for (int k = 0; k < 4; k++) vm[k] = bad[k] = _mm512_setzero_ps();
    for (int t = 0; t < 10; t++) {
        const __m512i j1 = _mm512_loadu_si512(g_m.i1 + 16 * t), j2 = _mm512_loadu_si512(g_m.i2 + 16 * t);
        const __mmask16 in = t < 9 ? 0xffff : 0x01ff; /* 153 = 9 * 16 + 9 */
        cd.in[t] = in;
        __m512 qxp[2], qxm[2], q2p[2], q2m[2];
        for (int h = 0; h < 2; h++) {
            const __m512 sx = _mm512_add_ps(tab_get(X[h], j1), tab_get(X[h], j2));
            qxp[h] = _mm512_sub_ps(tp[h], sx);
            qxm[h] = _mm512_sub_ps(tm[h], sx);
            q2p[h] = _mm512_add_ps(tab_get(AP[h], j1), tab_get(BP[h], j2));
            q2m[h] = _mm512_add_ps(tab_get(AM[h], j1), tab_get(BM[h], j2));
        }
        note16(&cd, 4 * t + 0, _mm512_add_ps(qxp[0], qxp[1]), _mm512_add_ps(q2p[0], q2p[1]), in, &vm[0], &bad[0]);
        note16(&cd, 4 * t + 1, _mm512_add_ps(qxp[0], qxm[1]), _mm512_add_ps(q2p[0], q2m[1]), in, &vm[1], &bad[1]);
        note16(&cd, 4 * t + 2, _mm512_add_ps(qxm[0], qxp[1]), _mm512_add_ps(q2m[0], q2p[1]), in, &vm[2], &bad[2]);
        note16(&cd, 4 * t + 3, _mm512_add_ps(qxm[0], qxm[1]), _mm512_add_ps(q2m[0], q2m[1]), in, &vm[3], &bad[3]);
    }
    finish(&cd, 10, 4, _mm512_max_ps(_mm512_max_ps(vm[0], vm[1]), _mm512_max_ps(vm[2], vm[3])),
           _mm512_or_ps(_mm512_or_ps(bad[0], bad[1]), _mm512_or_ps(bad[2], bad[3])), pk);
}

/* iq.c's iq1s_scan_scalar, 16 cut points i2 per step: sqx = ((sumx[i1] -
 * sumx[0]) * v0 + (sumx[i2] - sumx[i1]) * v1) + (sumx[32] - sumx[i2]) * v2, sq2
 * the same with the squared levels; the terms of i1 alone and of i2 alone are
 * computed once (same operations). */
static void iq_avx512_iq1s_scan(const float *sumx, const float *sumw, const float *xp, const float *xm, iq1m_pick *pk) {
    float ax[2][33], aw[2][33], cx[2][48], cw[2][48], sx[48], sw[48];
    for (int i = 0; i < 48; i++) {
        sx[i] = i <= 32 ? sumx[i] : 0;
        sw[i] = i <= 32 ? sumw[i] : 0;
    }
    for (int sh = 0; sh < 2; sh++) {
        const float *v = sh ? xm : xp;
        for (int i = 0; i <= 32; i++) {
            ax[sh][i] = (sx[i] - sx[0]) * v[0];
            aw[sh][i] = (sw[i] - sw[0]) * v[0] * v[0];
            cx[sh][i] = (sx[32] - sx[i]) * v[2];
            cw[sh][i] = (sw[32] - sw[i]) * v[2] * v[2];
        }
        for (int i = 33; i < 48; i++) cx[sh][i] = cw[sh][i] = 0;
    }
    const __m512 v1p = _mm512_set1_ps(xp[1]), v1m = _mm512_set1_ps(xm[1]);
    cands16 cd;
    cd.flat = 0;
    /* four max / bad accumulators (shift, step parity): short dependency chains */
    __m512 vm[4], bad[4];
    for (int k = 0; k < 4; k++) vm[k] = bad[k] = _mm512_setzero_ps();
    int t = 0;
    for (int i1 = 0; i1 <= 32; i1++) {
        const __m512 s1x = _mm512_set1_ps(sx[i1]), s1w = _mm512_set1_ps(sw[i1]);
        const __m512 axp = _mm512_set1_ps(ax[0][i1]), axm = _mm512_set1_ps(ax[1][i1]);
        const __m512 awp = _mm512_set1_ps(aw[0][i1]), awm = _mm512_set1_ps(aw[1][i1]);
        for (int i2 = i1; i2 <= 32; i2 += 16, t++) {
            const int nl = 33 - i2 < 16 ? 33 - i2 : 16;
            const __mmask16 in = (__mmask16)((1u << nl) - 1);
            cd.in[t] = in;
            cd.st1[t] = (uint8_t)i1;
            cd.st2[t] = (uint8_t)i2;
            const __m512 dx = _mm512_sub_ps(_mm512_loadu_ps(sx + i2), s1x);
            const __m512 dw = _mm512_sub_ps(_mm512_loadu_ps(sw + i2), s1w);
            note16(&cd, 2 * t, _mm512_add_ps(_mm512_add_ps(axp, _mm512_mul_ps(dx, v1p)), _mm512_loadu_ps(cx[0] + i2)),
                   _mm512_add_ps(_mm512_add_ps(awp, _mm512_mul_ps(_mm512_mul_ps(dw, v1p), v1p)), _mm512_loadu_ps(cw[0] + i2)),
                   in, &vm[2 * (t & 1)], &bad[2 * (t & 1)]);
            note16(&cd, 2 * t + 1, _mm512_add_ps(_mm512_add_ps(axm, _mm512_mul_ps(dx, v1m)), _mm512_loadu_ps(cx[1] + i2)),
                   _mm512_add_ps(_mm512_add_ps(awm, _mm512_mul_ps(_mm512_mul_ps(dw, v1m), v1m)), _mm512_loadu_ps(cw[1] + i2)),
                   in, &vm[2 * (t & 1) + 1], &bad[2 * (t & 1) + 1]);
        }
    }
    finish(&cd, t, 2, _mm512_max_ps(_mm512_max_ps(vm[0], vm[1]), _mm512_max_ps(vm[2], vm[3])),
           _mm512_or_ps(_mm512_or_ps(bad[0], bad[1]), _mm512_or_ps(bad[2], bad[3])), pk);
}

void mio_avx512_fill_iq1(mio_kernels *k) {
    k->iq_iq1m_scan = iq_avx512_iq1m_scan;
    k->iq_iq1s_scan = iq_avx512_iq1s_scan;
}
