/* SPDX-License-Identifier: MIT */
/* iq_avx2.c — AVX2 kernels for the iq encoders' hot searches (quant/iq.c): the
 * nearest-entry search over a lattice list, all trial scales of an iq2/iq3
 * sub-block search and iq1_m's split scan. Each lane performs the scalar code's exact IEEE operation sequence
 * (no FMA, no reassociation), so the chosen entries and scales are identical. */
#include "kernels/avx2/avx2.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
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

/* iq.c's iq2_round_scalar (iq2_xxs: 4 groups of 8 two-bit codes): the 32
 * roundings in lanes, one group per vector, and the 4 grid lookups. */
static void iq_avx2_iq2_round(const lattice *g, const float *xval, float id, int8_t *L, int32_t *e) {
    const __m256 vid = _mm256_set1_ps(id), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f);
    const __m256 magic = _mm256_set1_ps(12582912.f);
    const __m256i mant = _mm256_set1_epi32(0x007fffff), bias = _mm256_set1_epi32(0x00400000);
    const __m256i hi = _mm256_set1_epi32(g->maxcode), sh = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    __m256i r[4], kv[4];
    for (int v = 0; v < 4; v++) {
        const __m256 t = _mm256_mul_ps(half, _mm256_sub_ps(_mm256_mul_ps(vid, _mm256_loadu_ps(xval + 8 * v)), one));
        __m256i l = _mm256_sub_epi32(_mm256_and_si256(_mm256_castps_si256(_mm256_add_ps(t, magic)), mant), bias);
        r[v] = _mm256_max_epi32(_mm256_setzero_si256(), _mm256_min_epi32(hi, l));
        kv[v] = _mm256_sllv_epi32(r[v], sh);
    }
    /* group keys: sums of disjoint bits; lanes 0..3 (low half) + lanes 4..7 */
    const __m256i hs = _mm256_hadd_epi32(_mm256_hadd_epi32(kv[0], kv[1]), _mm256_hadd_epi32(kv[2], kv[3]));
    const __m128i ks = _mm_add_epi32(_mm256_castsi256_si128(hs), _mm256_extracti128_si256(hs, 1));
    const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
    _mm256_storeu_si256((__m256i *)(void *)L, _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
    int32_t key[4];
    _mm_storeu_si128((__m128i *)(void *)key, ks);
    for (int k = 0; k < 4; k++) e[k] = g->map[key[k]];
}

/* The score test of the iq1 split scans on one step of candidates: nk shift
 * vectors of 8 lanes (lane l is cut point i2 + l, valid lanes in lmask), in
 * the scalar order lane-major then shift. The first candidate that passes
 * against the running best is applied (same scalar division and product),
 * then only the candidates after it are tested again against the new best:
 * every test sees the best the scalar loop would have at that point. */
static inline void iq1_step_tests(const __m256 *sqx, const __m256 *sq2, int nk, unsigned lmask, int i1, int i2,
                                  iq1m_pick *pk) {
    __m256 xx[4];
    unsigned pos[4] = {0}, m[4] = {0}, any = 0;
    __m256 bv = _mm256_set1_ps(pk->best);
    for (int k = 0; k < nk; k++) {
        xx[k] = _mm256_mul_ps(sqx[k], sqx[k]);
        pos[k] = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(sq2[k], _mm256_setzero_ps(), _CMP_GT_OQ)) & lmask;
        m[k] = pos[k] & (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(xx[k], _mm256_mul_ps(bv, sq2[k]), _CMP_GT_OQ));
        any |= m[k];
    }
    if (!any) return;
    float vx[4][8], v2[4][8];
    for (int k = 0; k < nk; k++) { _mm256_storeu_ps(vx[k], sqx[k]); _mm256_storeu_ps(v2[k], sq2[k]); }
    for (;;) {
        const int l = __builtin_ctz(any);
        int k = 0;
        while (!((m[k] >> l) & 1)) k++;
        pk->scale = vx[k][l] / v2[k][l];
        pk->best = pk->scale * vx[k][l];
        pk->i1 = i1; pk->i2 = i2 + l; pk->k = k;
        bv = _mm256_set1_ps(pk->best);
        const unsigned after = ~0u << (l + 1), from = ~0u << l;
        any = 0;
        for (int j = 0; j < nk; j++) {
            m[j] = pos[j] & (j > k ? from : after) &
                   (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(xx[j], _mm256_mul_ps(bv, sq2[j]), _CMP_GT_OQ));
            any |= m[j];
        }
        if (!any) return;
    }
}

/* The whole scan of an iq1 split search at once. X/Q hold every candidate's
 * sqx/sq2 (step t, shift k, lane: X[(t * nk + k) * 8 + lane]), lm[t] the valid
 * lanes of step t, which are cut points (i1[t], i2[t] + lane). The scalar loop
 * keeps the last candidate that passes its test "sq2 > 0 && sqx^2 > best*sq2"
 * against the running best, best then becoming s = (sqx/sq2)*sqx. The test is
 * monotone in best (a larger best never passes more), and the running best
 * before a candidate is the initial best or some earlier candidate's s. So the
 * candidate w that first reaches the largest s, M, is the scalar's final pick
 * when (1) w passes against the largest value the best can hold before it and
 * (2) no later candidate passes against M. Both are checked; otherwise (near
 * ties decided by rounding, non-finite values) the candidates are replayed in
 * order through iq1_step_tests. */
static void iq1_resolve_exact(const float *X, const float *Q, const unsigned *lm, const int *i1, const int *i2, int nt, int nk,
                        iq1m_pick *pk) {
    const __m256 zero = _mm256_setzero_ps(), ninf = _mm256_set1_ps(-INFINITY);
    float S[85 * 2 * 8 > 27 * 4 * 8 ? 85 * 2 * 8 : 27 * 4 * 8];
    unsigned pm[85 * 2]; /* per (t, k): valid lanes with sq2 > 0 */
    __m256 vm = ninf, bad = zero;
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < nk; k++) {
            const int o = (t * nk + k) * 8;
            const __m256 x = _mm256_loadu_ps(X + o), q = _mm256_loadu_ps(Q + o);
            const __m256i lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            const __m256 in = _mm256_castsi256_ps(
                _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)lm[t]), lanes), lanes));
            const __m256 ok = _mm256_and_ps(in, _mm256_cmp_ps(q, zero, _CMP_GT_OQ));
            const __m256 sv = _mm256_blendv_ps(ninf, _mm256_mul_ps(_mm256_div_ps(x, q), x), ok);
            _mm256_storeu_ps(S + o, sv);
            pm[t * nk + k] = (unsigned)_mm256_movemask_ps(ok);
            bad = _mm256_or_ps(bad, _mm256_and_ps(ok, _mm256_cmp_ps(_mm256_sub_ps(sv, sv), zero, _CMP_NEQ_UQ)));
            vm = _mm256_max_ps(vm, sv);
        }
    float mv[8];
    _mm256_storeu_ps(mv, vm);
    float M = mv[0];
    for (int l = 1; l < 8; l++) M = mv[l] > M ? mv[l] : M;
    if (_mm256_movemask_ps(bad) == 0 && M > -INFINITY && M < INFINITY) {
        /* w: the first candidate in scan order with s == M */
        int wt = -1, wl = 0, wk = 0;
        for (int t = 0; t < nt && wt < 0; t++) {
            unsigned any = 0, m[4] = {0};
            for (int k = 0; k < nk; k++) {
                m[k] = pm[t * nk + k] &
                       (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(S + (t * nk + k) * 8), _mm256_set1_ps(M), _CMP_EQ_OQ));
                any |= m[k];
            }
            if (!any) continue;
            wt = t;
            wl = __builtin_ctz(any);
            while (!((m[wk] >> wl) & 1)) wk++;
        }
        /* the largest s before w, and the initial best */
        __m256 vb = _mm256_set1_ps(pk->best);
        for (int t = 0; t < wt; t++)
            for (int k = 0; k < nk; k++) vb = _mm256_max_ps(vb, _mm256_loadu_ps(S + (t * nk + k) * 8));
        float b = pk->best;
        for (int k = 0; k < nk; k++)
            for (int l = 0; l <= wl; l++)
                if (l < wl || k < wk) { const float v = S[(wt * nk + k) * 8 + l]; b = v > b ? v : b; }
        _mm256_storeu_ps(mv, vb);
        for (int l = 0; l < 8; l++) b = mv[l] > b ? mv[l] : b;
        const float xw = X[(wt * nk + wk) * 8 + wl], qw = Q[(wt * nk + wk) * 8 + wl];
        bool ok = xw * xw > b * qw;
        const __m256 bm = _mm256_set1_ps(M);
        for (int t = wt; t < nt && ok; t++)
            for (int k = 0; k < nk; k++) {
                const int o = (t * nk + k) * 8;
                const __m256 x = _mm256_loadu_ps(X + o);
                unsigned m = pm[t * nk + k] &
                             (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(bm, _mm256_loadu_ps(Q + o)), _CMP_GT_OQ));
                if (t == wt) m &= k > wk ? ~0u << wl : ~0u << (wl + 1);
                if (m) { ok = false; break; }
            }
        if (ok) {
            pk->scale = xw / qw;
            pk->best = pk->scale * xw;
            pk->i1 = i1[wt]; pk->i2 = i2[wt] + wl; pk->k = wk;
            return;
        }
    }
    for (int t = 0; t < nt; t++) {
        __m256 x[4], q[4];
        for (int k = 0; k < nk; k++) { x[k] = _mm256_loadu_ps(X + (t * nk + k) * 8); q[k] = _mm256_loadu_ps(Q + (t * nk + k) * 8); }
        iq1_step_tests(x, q, nk, lm[t], i1[t], i2[t], pk);
    }
}

/* iq1_resolve_exact without a division per candidate: scores first approximated
 * as sqx^2 * rcp(sq2) (relative error < 2^-11 against s, which is >= 0); only
 * the candidates within 2^-8 of the largest approximation can hold the largest
 * s, and their exact s (the scalar's operations) decide w and M. Every other
 * candidate's s is below Tn = (1 - 2^-9) * that largest approximation, so the
 * best before w is at most the largest of the initial best, Tn and the exact
 * s of the near candidates before w: test (1) uses that bound, test (2) M.
 * Anything unusual (non-finite values, many near candidates, a failed test)
 * goes to iq1_resolve_exact. */
typedef struct {
    float X[85 * 2 * 8 > 27 * 4 * 8 ? 85 * 2 * 8 : 27 * 4 * 8], Q[85 * 2 * 8 > 27 * 4 * 8 ? 85 * 2 * 8 : 27 * 4 * 8];
    float SA[85 * 2 * 8 > 27 * 4 * 8 ? 85 * 2 * 8 : 27 * 4 * 8];
    unsigned lm[85], pm[85 * 2];
    int i1[85], i2[85], nt;
    __m256 vm, bad;
} iq1_cands;

/* Records step nt of the scan (lanes of cut points (i1, i2 + lane), nl valid)
 * with its approximate scores for iq1_resolve. */
static inline void iq1_note(iq1_cands *c, const __m256 *sqx, const __m256 *sq2, int nk, int nl, int i1, int i2, __m256 *vm,
                            __m256 *bad) {
    const __m256 zero = _mm256_setzero_ps(), ninf = _mm256_set1_ps(-INFINITY);
    const __m256 in = _mm256_cmp_ps(_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_ps((float)nl), _CMP_LT_OQ);
    const int t = c->nt++;
    c->lm[t] = (1u << nl) - 1; c->i1[t] = i1; c->i2[t] = i2;
    for (int k = 0; k < nk; k++) {
        const int o = (t * nk + k) * 8;
        _mm256_storeu_ps(c->X + o, sqx[k]);
        _mm256_storeu_ps(c->Q + o, sq2[k]);
        const __m256 ok = _mm256_and_ps(in, _mm256_cmp_ps(sq2[k], zero, _CMP_GT_OQ));
        const __m256 sv = _mm256_blendv_ps(ninf, _mm256_mul_ps(_mm256_mul_ps(sqx[k], sqx[k]), _mm256_rcp_ps(sq2[k])), ok);
        _mm256_storeu_ps(c->SA + o, sv);
        c->pm[t * nk + k] = (unsigned)_mm256_movemask_ps(ok);
        *bad = _mm256_or_ps(*bad, _mm256_and_ps(ok, _mm256_cmp_ps(_mm256_sub_ps(sv, sv), zero, _CMP_NEQ_UQ)));
        *vm = _mm256_max_ps(*vm, sv);
    }
}

static void iq1_resolve(const iq1_cands *c, int nk, iq1m_pick *pk) {
    const float *X = c->X, *Q = c->Q, *SA = c->SA;
    const unsigned *lm = c->lm, *pm = c->pm;
    const int *i1 = c->i1, *i2 = c->i2, nt = c->nt;
    const __m256 vm = c->vm, bad = c->bad;
    float mv[8];
    _mm256_storeu_ps(mv, vm);
    float A = mv[0];
    for (int l = 1; l < 8; l++) A = mv[l] > A ? mv[l] : A;
    if (_mm256_movemask_ps(bad) || !(A > 0 && A < FLT_MAX)) { iq1_resolve_exact(X, Q, lm, i1, i2, nt, nk, pk); return; }
    enum { NEAR = 32 };
    int nn = 0, nt_[NEAR], nl_[NEAR], nk_[NEAR];
    float ns[NEAR] = {0};
    const __m256 thr = _mm256_set1_ps(A * (1.f - 1.f / 256));
    for (int t = 0; t < nt; t++) {
        unsigned m[4], any = 0;
        for (int k = 0; k < nk; k++) {
            m[k] = pm[t * nk + k] & (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(SA + (t * nk + k) * 8), thr, _CMP_GE_OQ));
            any |= m[k];
        }
        while (any) {
            const int l = __builtin_ctz(any);
            any &= any - 1;
            for (int k = 0; k < nk; k++)
                if ((m[k] >> l) & 1) {
                    if (nn == NEAR) { iq1_resolve_exact(X, Q, lm, i1, i2, nt, nk, pk); return; }
                    const float x = X[(t * nk + k) * 8 + l];
                    ns[nn] = (x / Q[(t * nk + k) * 8 + l]) * x;
                    nt_[nn] = t; nl_[nn] = l; nk_[nn] = k; nn++;
                }
        }
    }
    if (nn == 0) { iq1_resolve_exact(X, Q, lm, i1, i2, nt, nk, pk); return; }
    float M = ns[0];
    int w = 0;
    for (int j = 1; j < nn; j++)
        if (ns[j] > M) { M = ns[j]; w = j; }
    float b = A * (1.f - 1.f / 512);
    b = pk->best > b ? pk->best : b;
    for (int j = 0; j < w; j++) b = ns[j] > b ? ns[j] : b;
    const int wt = nt_[w], wl = nl_[w], wk = nk_[w];
    const float xw = X[(wt * nk + wk) * 8 + wl], qw = Q[(wt * nk + wk) * 8 + wl];
    if (!(xw * xw > b * qw)) { iq1_resolve_exact(X, Q, lm, i1, i2, nt, nk, pk); return; }
    const __m256 bm = _mm256_set1_ps(M);
    for (int t = wt; t < nt; t++)
        for (int k = 0; k < nk; k++) {
            const int o = (t * nk + k) * 8;
            const __m256 x = _mm256_loadu_ps(X + o);
            unsigned m = pm[t * nk + k] &
                         (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(bm, _mm256_loadu_ps(Q + o)), _CMP_GT_OQ));
            if (t == wt) m &= k > wk ? ~0u << wl : ~0u << (wl + 1);
            if (m) { iq1_resolve_exact(X, Q, lm, i1, i2, nt, nk, pk); return; }
        }
    pk->scale = xw / qw;
    pk->best = pk->scale * xw;
    pk->i1 = i1[wt]; pk->i2 = i2[wt] + wl; pk->k = wk;
}

/* iq.c's iq1m_scan_scalar, eight i2 per step, one per lane, same operations. */
static void iq_avx2_iq1m_scan(const float (*px)[24], const float (*pw)[24], const iq1m_consts *c, iq1m_pick *pk) {
    const __m256 cp2 = _mm256_set1_ps(c->cp2), cm2 = _mm256_set1_ps(c->cm2);
    __m256 tp[2], tm[2];
    float wp[2], wm[2];
    for (int h = 0; h < 2; h++) {
        tp[h] = _mm256_set1_ps(c->txs[h] * c->p2);
        tm[h] = _mm256_set1_ps(c->txs[h] * c->m2);
        wp[h] = c->tws[h] * c->p2 * c->p2;
        wm[h] = c->tws[h] * c->m2 * c->m2;
    }
    iq1_cands cd;
    cd.nt = 0;
    __m256 vm = _mm256_set1_ps(-INFINITY), bad = _mm256_setzero_ps(); /* kept in registers */
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
            const int nl = 17 - i2 < 8 ? 17 - i2 : 8;
            iq1_note(&cd, sqx, sq2, 4, nl, i1, i2, &vm, &bad);
        }
    }
    cd.vm = vm;
    cd.bad = bad;
    iq1_resolve(&cd, 4, pk);
}

/* iq.c's iq1s_scan_scalar, eight i2 per step. The terms that depend on i1 only
 * or on i2 only are computed once (the same operations as in the scalar
 * expression, whose sums stay in its order per lane). */
static void iq_avx2_iq1s_scan(const float *sumx, const float *sumw, const float *xp, const float *xm, iq1m_pick *pk) {
    float cx[2][40], cw[2][40];
    for (int sh = 0; sh < 2; sh++) {
        const float *v = sh ? xm : xp;
        for (int i2 = 0; i2 < 40; i2++) {
            cx[sh][i2] = (sumx[32] - sumx[i2]) * v[2];
            cw[sh][i2] = (sumw[32] - sumw[i2]) * v[2] * v[2];
        }
    }
    const __m256 v1[2] = {_mm256_set1_ps(xp[1]), _mm256_set1_ps(xm[1])};
    iq1_cands cd;
    cd.nt = 0;
    __m256 vm = _mm256_set1_ps(-INFINITY), bad = _mm256_setzero_ps(); /* kept in registers */
    for (int i1 = 0; i1 <= 32; i1++) {
        const __m256 s1x = _mm256_set1_ps(sumx[i1]), s1w = _mm256_set1_ps(sumw[i1]);
        __m256 ax[2], aw[2];
        for (int sh = 0; sh < 2; sh++) {
            const float *v = sh ? xm : xp;
            ax[sh] = _mm256_set1_ps((sumx[i1] - sumx[0]) * v[0]);
            aw[sh] = _mm256_set1_ps((sumw[i1] - sumw[0]) * v[0] * v[0]);
        }
        for (int i2 = i1; i2 <= 32; i2 += 8) {
            const __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(sumx + i2), s1x);
            const __m256 dw = _mm256_sub_ps(_mm256_loadu_ps(sumw + i2), s1w);
            __m256 sqx[2], sq2[2];
            for (int sh = 0; sh < 2; sh++) {
                sqx[sh] = _mm256_add_ps(_mm256_add_ps(ax[sh], _mm256_mul_ps(dx, v1[sh])), _mm256_loadu_ps(cx[sh] + i2));
                sq2[sh] = _mm256_add_ps(_mm256_add_ps(aw[sh], _mm256_mul_ps(_mm256_mul_ps(dw, v1[sh]), v1[sh])),
                                        _mm256_loadu_ps(cw[sh] + i2));
            }
            const int nl = 33 - i2 < 8 ? 33 - i2 : 8;
            iq1_note(&cd, sqx, sq2, 2, nl, i1, i2, &vm, &bad);
        }
    }
    cd.vm = vm;
    cd.bad = bad;
    iq1_resolve(&cd, 2, pk);
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

/* kernels.h iq_sort_idx: each value's rank is the count of smaller values
 * (one compare of all n against it); equal or NaN values are refused. */
static int iq_avx2_sort_idx(const float *v, int n, int8_t *idx) {
    __m256 a[4];
    const int nv = n / 8;
    int nan = 0;
    for (int i = 0; i < nv; i++) {
        a[i] = _mm256_loadu_ps(v + 8 * i);
        nan |= _mm256_movemask_ps(_mm256_cmp_ps(a[i], a[i], _CMP_UNORD_Q));
    }
    if (nan) { _mm256_zeroupper(); return 1; }
    for (int j = 0; j < n; j++) {
        const __m256 e = _mm256_set1_ps(v[j]);
        int r = 0, q = 0;
        for (int i = 0; i < nv; i++) {
            r += __builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a[i], e, _CMP_LT_OQ)));
            q += __builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a[i], e, _CMP_EQ_OQ)));
        }
        if (q != 1) { _mm256_zeroupper(); return 1; }
        idx[r] = (int8_t)j;
    }
    _mm256_zeroupper();
    return 0;
}

void mio_avx2_fill_iq(mio_kernels *k) {
    k->iq_sort_idx = iq_avx2_sort_idx;
    k->iq_list_best = iq_avx2_list_best;
    k->iq_iq1m_scan = iq_avx2_iq1m_scan;
    k->iq_iq1s_scan = iq_avx2_iq1s_scan;
    k->iq_iq2_round = iq_avx2_iq2_round;
    k->iq_trials = iq_avx2_trials;
}
