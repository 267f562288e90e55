/* SPDX-License-Identifier: MIT */
/* kquants_avx2.c — AVX2 kernels for the k-quant encoders: ggml's per-sub-block
 * searches (make_qkx2_quants, make_qx_quants, make_q3_quants) run on 8
 * sub-blocks at once, one per lane, each lane performing the scalar reference's
 * exact IEEE operation sequence (no FMA, no reassociation), so bytes match. */
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

static inline __m256i v_nearest(__m256 v) {
    __m256 t = _mm256_add_ps(v, _mm256_set1_ps(12582912.f));
    __m256i i = _mm256_and_si256(_mm256_castps_si256(t), _mm256_set1_epi32(0x007fffff));
    return _mm256_sub_epi32(i, _mm256_set1_epi32(0x00400000));
}
static inline __m256i v_clamp(__m256i l, int lo, int hi) {
    return _mm256_max_epi32(_mm256_set1_epi32(lo), _mm256_min_epi32(_mm256_set1_epi32(hi), l));
}
static inline __m256 v_abs(__m256 v) { return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
static inline __m256 v_sel(__m256 a, __m256 b, __m256 m) { return _mm256_blendv_ps(a, b, m); } /* m ? b : a */

/* xt[i] lane j = x[n*j + i] */
static inline void gather8(const float *x, int n, __m256 *xt) {
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(n));
    for (int i = 0; i < n; i++) xt[i] = _mm256_i32gather_ps(x + i, idx, 4);
}
/* L[n*j + i] = lane j of li[i] (+ bias) */
static inline void scatter8_u8(const __m256i *li, int n, int bias, uint8_t *L) {
    int32_t t[32][8];
    for (int i = 0; i < n; i++) _mm256_storeu_si256((__m256i *)(void *)t[i], li[i]);
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < n; i++) L[n * j + i] = (uint8_t)(t[i][j] + bias);
}

/* wmode KQ_W_GIVEN: weights w, and make_qkx3_quants' rules (degenerate when
 * max <= min; trial levels v > 0 ? nearest(min(v, nmax)) : 0) */
static inline __attribute__((always_inline)) void qkx2_core(const float *x, const int n, int nmax, float rmin,
                                                               float rdelta, int nstep, int wmode, bool use_mad,
                                                               const float *w, float *scale_out, float *min_out,
                                                               uint8_t *L) {
    __m256 xt[32], wt[32], la[32];
    if (n < 1 || n > 32) return;
    const __m256 zero = _mm256_setzero_ps();
    gather8(x, n, xt);
    if (wmode == KQ_W_AVX_ABS) {
        __m256 s = _mm256_mul_ps(xt[0], xt[0]);
        for (int i = 1; i < n; i++) s = _mm256_add_ps(s, _mm256_mul_ps(xt[i], xt[i]));
        /* ggml starts from 0: 0 + a == a exactly for the first term */
        __m256 av = _mm256_sqrt_ps(_mm256_div_ps(s, _mm256_set1_ps(32.f)));
        for (int i = 0; i < n; i++) wt[i] = _mm256_add_ps(av, v_abs(xt[i]));
    } else if (wmode == KQ_W_GIVEN) {
        gather8(w, n, wt);
    } else {
        for (int i = 0; i < n; i++) wt[i] = v_abs(xt[i]);
    }
    const bool x3 = wmode == KQ_W_GIVEN;
    __m256 lo = xt[0], hi = xt[0], sum_w = wt[0], sum_x = _mm256_mul_ps(wt[0], xt[0]);
    for (int i = 1; i < n; i++) {
        lo = _mm256_min_ps(xt[i], lo); /* x < lo ? x : lo */
        hi = _mm256_max_ps(xt[i], hi); /* x > hi ? x : hi */
        sum_w = _mm256_add_ps(sum_w, wt[i]);
        sum_x = _mm256_add_ps(sum_x, _mm256_mul_ps(wt[i], xt[i]));
    }
    lo = v_sel(lo, zero, _mm256_cmp_ps(lo, zero, _CMP_GT_OQ));
    const __m256 degen = x3 ? _mm256_cmp_ps(hi, lo, _CMP_LE_OQ) : _mm256_cmp_ps(hi, lo, _CMP_EQ_OQ);
    const __m256 lo0 = lo;
    const __m256 fn = _mm256_set1_ps((float)nmax);
    __m256 iscale = _mm256_div_ps(fn, _mm256_sub_ps(hi, lo));
    __m256 scale = _mm256_div_ps(_mm256_set1_ps(1.f), iscale);
    __m256 best = zero;
    for (int i = 0; i < n; i++) {
        __m256i l = v_clamp(v_nearest(_mm256_mul_ps(iscale, _mm256_sub_ps(xt[i], lo))), 0, nmax);
        __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(scale, _mm256_cvtepi32_ps(l)), lo), xt[i]);
        diff = use_mad ? v_abs(diff) : _mm256_mul_ps(diff, diff);
        best = _mm256_add_ps(best, _mm256_mul_ps(wt[i], diff));
    }
    __m256 best_is = iscale, best_lo = lo, from_step = zero;
    for (int is = 0; is <= nstep; is++) {
        const float c = rmin + rdelta * (float)is + (float)nmax;
        iscale = _mm256_div_ps(_mm256_set1_ps(c), _mm256_sub_ps(hi, lo));
        __m256 sum_l = zero, sum_l2 = zero, sum_xl = zero;
        for (int i = 0; i < n; i++) {
            __m256i l;
            if (x3) {
                __m256 v = _mm256_mul_ps(iscale, _mm256_sub_ps(xt[i], lo));
                l = _mm256_and_si256(v_nearest(_mm256_min_ps(v, fn)), _mm256_castps_si256(_mm256_cmp_ps(v, zero, _CMP_GT_OQ)));
            } else {
                l = v_clamp(v_nearest(_mm256_mul_ps(iscale, _mm256_sub_ps(xt[i], lo))), 0, nmax);
            }
            __m256 lf = _mm256_cvtepi32_ps(l);
            la[i] = lf;
            __m256 wl = _mm256_mul_ps(wt[i], lf);
            sum_l = _mm256_add_ps(sum_l, wl);
            sum_l2 = _mm256_add_ps(sum_l2, _mm256_mul_ps(wl, lf));
            sum_xl = _mm256_add_ps(sum_xl, _mm256_mul_ps(wl, xt[i]));
        }
        __m256 D = _mm256_sub_ps(_mm256_mul_ps(sum_w, sum_l2), _mm256_mul_ps(sum_l, sum_l));
        __m256 dpos = _mm256_cmp_ps(D, zero, _CMP_GT_OQ);
        if (!_mm256_movemask_ps(dpos)) continue;
        __m256 this_scale = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sum_w, sum_xl), _mm256_mul_ps(sum_x, sum_l)), D);
        __m256 this_min = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sum_l2, sum_x), _mm256_mul_ps(sum_l, sum_xl)), D);
        __m256 mpos = _mm256_cmp_ps(this_min, zero, _CMP_GT_OQ);
        if (_mm256_movemask_ps(mpos)) {
            this_min = v_sel(this_min, zero, mpos);
            this_scale = v_sel(this_scale, _mm256_div_ps(sum_xl, sum_l2), mpos);
        }
        __m256 err = zero;
        for (int i = 0; i < n; i++) {
            __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(this_scale, la[i]), this_min), xt[i]);
            diff = use_mad ? v_abs(diff) : _mm256_mul_ps(diff, diff);
            err = _mm256_add_ps(err, _mm256_mul_ps(wt[i], diff));
        }
        __m256 better = _mm256_and_ps(dpos, _mm256_cmp_ps(err, best, _CMP_LT_OQ));
        best = v_sel(best, err, better);
        scale = v_sel(scale, this_scale, better);
        best_is = v_sel(best_is, iscale, better);
        best_lo = v_sel(best_lo, lo, better);
        from_step = _mm256_or_ps(from_step, better);
        lo = v_sel(lo, this_min, better);
    }
    scale = v_sel(scale, zero, degen);
    lo = v_sel(lo, lo0, degen);
    best_is = v_sel(best_is, zero, degen);
    best_lo = v_sel(best_lo, zero, degen);
    _mm256_storeu_ps(scale_out, scale);
    _mm256_storeu_ps(min_out, _mm256_xor_ps(lo, _mm256_set1_ps(-0.0f)));
    __m256i li[32];
    for (int i = 0; i < n; i++) {
        __m256 v = _mm256_mul_ps(best_is, _mm256_sub_ps(xt[i], best_lo));
        li[i] = v_clamp(v_nearest(v), 0, nmax);
        if (x3) {
            __m256i ls = _mm256_and_si256(v_nearest(_mm256_min_ps(v, fn)), _mm256_castps_si256(_mm256_cmp_ps(v, zero, _CMP_GT_OQ)));
            li[i] = _mm256_castps_si256(v_sel(_mm256_castsi256_ps(li[i]), _mm256_castsi256_ps(ls), from_step));
        }
    }
    scatter8_u8(li, n, 0, L);
}

static void kq_avx2_qkx2(const float *x, int n, int nmax, float rmin, float rdelta, int nstep, int wmode, bool use_mad,
                     float *scale_out, float *min_out, uint8_t *L) {
    if (n == 16) qkx2_core(x, 16, nmax, rmin, rdelta, nstep, wmode, use_mad, NULL, scale_out, min_out, L);
    else qkx2_core(x, 32, nmax, rmin, rdelta, nstep, wmode, use_mad, NULL, scale_out, min_out, L);
}

static void kq_avx2_qkx3(const float *x, int n, int nmax, const float *w, float *scale_out, float *min_out, uint8_t *L) {
    if (n == 16) qkx2_core(x, 16, nmax, -0.9f, 0.05f, 36, KQ_W_GIVEN, false, w, scale_out, min_out, L);
    else qkx2_core(x, 32, nmax, -0.9f, 0.05f, 36, KQ_W_GIVEN, false, w, scale_out, min_out, L);
}

/* amax / signed max of each lane as ggml's first-strict-maximum loop */
static inline void lane_absmax(const __m256 *xt, int n, __m256 *amax, __m256 *mx) {
    __m256 a = _mm256_setzero_ps(), m = _mm256_setzero_ps();
    for (int i = 0; i < n; i++) {
        __m256 ax = v_abs(xt[i]);
        __m256 gt = _mm256_cmp_ps(ax, a, _CMP_GT_OQ);
        a = v_sel(a, ax, gt);
        m = v_sel(m, xt[i], gt);
    }
    *amax = a;
    *mx = m;
}

/* nearest_int(v) clamped to [lo, hi], as a float: exact for |v| < 2^22 (the
 * callers' v are bounded by about nmax), and +0 for a zero result like the
 * integer path's conversion */
static inline __m256 v_round_clamp(__m256 v, __m256 lo, __m256 hi) {
    const __m256 M = _mm256_set1_ps(12582912.f);
    return _mm256_min_ps(_mm256_max_ps(_mm256_sub_ps(_mm256_add_ps(v, M), M), lo), hi);
}

/* make_qx_quants(16, nmax, x, L, 1, qw) on the 16 sub-blocks of one
 * super-block (qw NULL: weights x*x): two lane groups, and the 18 trial scales two at a time (their
 * sums are independent; the choices are then made in ggml's order). */
static void kq_avx2_qx(const float *x, int nmax, const float *qw, float *scale_out, int8_t *L) {
    enum { N = 16, G = 2 };
    __m256 xt[G][N], wt[G][N], wx[G][N];
    const __m256 zero = _mm256_setzero_ps(), vlo = _mm256_set1_ps((float)-nmax), vhi = _mm256_set1_ps((float)(nmax - 1));
    __m256 mx[G], zl[G], best[G], scale[G], best_is[G];
    for (int g = 0; g < G; g++) {
        gather8(x + 128 * g, N, xt[g]);
        if (qw) gather8(qw + 128 * g, N, wt[g]);
        for (int i = 0; i < N; i++) {
            if (!qw) wt[g][i] = _mm256_mul_ps(xt[g][i], xt[g][i]);
            wx[g][i] = _mm256_mul_ps(wt[g][i], xt[g][i]);
        }
        __m256 amax;
        lane_absmax(xt[g], N, &amax, &mx[g]);
        zl[g] = _mm256_cmp_ps(amax, _mm256_set1_ps(1e-15f), _CMP_LT_OQ);
        __m256 iscale = _mm256_div_ps(_mm256_set1_ps((float)-nmax), mx[g]);
        __m256 sumlx = zero, suml2 = zero;
        for (int i = 0; i < N; i++) {
            __m256 lf = v_round_clamp(_mm256_mul_ps(iscale, xt[g][i]), vlo, vhi);
            sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(wx[g][i], lf));
            suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(wt[g][i], lf), lf));
        }
        scale[g] = v_sel(zero, _mm256_div_ps(sumlx, suml2), _mm256_cmp_ps(suml2, zero, _CMP_NEQ_UQ));
        best[g] = _mm256_mul_ps(scale[g], sumlx);
        best_is[g] = iscale;
    }
    static const int steps[18] = {-9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int k = 0; k < 18; k += 2) {
        __m256 is[2][G], sx[2][G], s2[2][G];
        for (int t = 0; t < 2; t++) {
            const float c = -((float)nmax + 0.1f * (float)steps[k + t]);
            for (int g = 0; g < G; g++) {
                is[t][g] = _mm256_div_ps(_mm256_set1_ps(c), mx[g]);
                sx[t][g] = s2[t][g] = zero;
            }
        }
        for (int i = 0; i < N; i++)
            for (int t = 0; t < 2; t++)
                for (int g = 0; g < G; g++) {
                    __m256 lf = v_round_clamp(_mm256_mul_ps(is[t][g], xt[g][i]), vlo, vhi);
                    sx[t][g] = _mm256_add_ps(sx[t][g], _mm256_mul_ps(wx[g][i], lf));
                    s2[t][g] = _mm256_add_ps(s2[t][g], _mm256_mul_ps(_mm256_mul_ps(wt[g][i], lf), lf));
                }
        for (int t = 0; t < 2; t++)
            for (int g = 0; g < G; g++) {
                __m256 upd = _mm256_and_ps(_mm256_cmp_ps(s2[t][g], zero, _CMP_GT_OQ),
                                           _mm256_cmp_ps(_mm256_mul_ps(sx[t][g], sx[t][g]),
                                                         _mm256_mul_ps(best[g], s2[t][g]), _CMP_GT_OQ));
                if (!_mm256_movemask_ps(upd)) continue;
                __m256 ns = _mm256_div_ps(sx[t][g], s2[t][g]);
                scale[g] = v_sel(scale[g], ns, upd);
                best[g] = v_sel(best[g], _mm256_mul_ps(ns, sx[t][g]), upd);
                best_is[g] = v_sel(best_is[g], is[t][g], upd);
            }
    }
    for (int g = 0; g < G; g++) {
        _mm256_storeu_ps(scale_out + 8 * g, v_sel(scale[g], zero, zl[g]));
        __m256i li[N];
        const __m256i zmask = _mm256_castps_si256(zl[g]);
        for (int i = 0; i < N; i++) {
            __m256i l = _mm256_add_epi32(v_clamp(v_nearest(_mm256_mul_ps(best_is[g], xt[g][i])), -nmax, nmax - 1),
                                         _mm256_set1_epi32(nmax));
            li[i] = _mm256_andnot_si256(zmask, l);
        }
        scatter8_u8(li, N, 0, (uint8_t *)L + 128 * g);
    }
}

/* make_q3_quants(16, 4, x, L, true) on the 8*G consecutive sub-blocks of 16
 * at x (G/2 q3_K super-blocks), G lane groups interleaved: each lane's descent
 * is a serial chain of divisions, so independent groups hide its latency. */
static inline __attribute__((always_inline)) void q3_core(const float *x, float *scale_out, int8_t *L, const int G) {
    enum { N = 16, GMAX = 8 };
    const int nmax = 4;
    __m256 xt[GMAX][N], wt[GMAX][N], wx[GMAX][N], lf[GMAX][N];
    __m256i li[GMAX][N];
    const __m256 zero = _mm256_setzero_ps();
    __m256 zl[GMAX], sumlx[GMAX], suml2[GMAX];
    if (G < 1 || G > GMAX) return;
    for (int g = 0; g < G; g++) {
        gather8(x + 128 * g, N, xt[g]);
        __m256 amax, mx;
        lane_absmax(xt[g], N, &amax, &mx);
        zl[g] = _mm256_cmp_ps(amax, _mm256_set1_ps(1e-15f), _CMP_LT_OQ);
        __m256 iscale = _mm256_div_ps(_mm256_set1_ps((float)-nmax), mx);
        sumlx[g] = suml2[g] = zero;
        for (int i = 0; i < N; i++) {
            li[g][i] = v_clamp(v_nearest(_mm256_mul_ps(iscale, xt[g][i])), -nmax, nmax - 1);
            lf[g][i] = _mm256_cvtepi32_ps(li[g][i]);
            wt[g][i] = _mm256_mul_ps(xt[g][i], xt[g][i]);
            wx[g][i] = _mm256_mul_ps(wt[g][i], xt[g][i]);
            sumlx[g] = _mm256_add_ps(sumlx[g], _mm256_mul_ps(wx[g][i], lf[g][i]));
            suml2[g] = _mm256_add_ps(suml2[g], _mm256_mul_ps(_mm256_mul_ps(wt[g][i], lf[g][i]), lf[g][i]));
        }
    }
    /* a lane without changes in a pass keeps its state, so more passes change
     * nothing for it: a group none of whose lanes changed is done (ggml's
     * per-block break), and the search ends when every group is */
    unsigned act = (1u << G) - 1;
    for (int itry = 0; itry < 5 && act; itry++) {
        __m256 changed[GMAX];
        for (int g = 0; g < G; g++) changed[g] = zero;
        for (int i = 0; i < N; i++)
            for (int g = 0; g < G; g++) {
                if (!(act >> g & 1)) continue;
                __m256 slx = _mm256_sub_ps(sumlx[g], _mm256_mul_ps(wx[g][i], lf[g][i]));
                __m256 c1 = _mm256_cmp_ps(slx, zero, _CMP_GT_OQ);
                __m256 sl2 = _mm256_sub_ps(suml2[g], _mm256_mul_ps(_mm256_mul_ps(wt[g][i], lf[g][i]), lf[g][i]));
                __m256i nl = v_clamp(v_nearest(_mm256_div_ps(_mm256_mul_ps(xt[g][i], sl2), slx)), -nmax, nmax - 1);
                __m256 same = _mm256_castsi256_ps(_mm256_cmpeq_epi32(nl, li[g][i]));
                __m256 nlf = _mm256_cvtepi32_ps(nl);
                slx = _mm256_add_ps(slx, _mm256_mul_ps(wx[g][i], nlf));
                sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(wt[g][i], nlf), nlf));
                __m256 c3 = _mm256_and_ps(_mm256_cmp_ps(sl2, zero, _CMP_GT_OQ),
                                          _mm256_cmp_ps(_mm256_mul_ps(_mm256_mul_ps(slx, slx), suml2[g]),
                                                        _mm256_mul_ps(_mm256_mul_ps(sumlx[g], sumlx[g]), sl2), _CMP_GT_OQ));
                __m256 upd = _mm256_andnot_ps(same, _mm256_and_ps(c1, c3));
                li[g][i] = _mm256_castps_si256(v_sel(_mm256_castsi256_ps(li[g][i]), _mm256_castsi256_ps(nl), upd));
                lf[g][i] = v_sel(lf[g][i], nlf, upd);
                sumlx[g] = v_sel(sumlx[g], slx, upd);
                suml2[g] = v_sel(suml2[g], sl2, upd);
                changed[g] = _mm256_or_ps(changed[g], upd);
            }
        for (int g = 0; g < G; g++)
            if (!_mm256_movemask_ps(changed[g])) act &= ~(1u << g);
    }
    for (int g = 0; g < G; g++) {
        __m256 scale = v_sel(zero, _mm256_div_ps(sumlx[g], suml2[g]), _mm256_cmp_ps(suml2[g], zero, _CMP_GT_OQ));
        _mm256_storeu_ps(scale_out + 8 * g, v_sel(scale, zero, zl[g]));
        const __m256i zmask = _mm256_castps_si256(zl[g]);
        __m256i lo[N];
        for (int i = 0; i < N; i++) lo[i] = _mm256_andnot_si256(zmask, _mm256_add_epi32(li[g][i], _mm256_set1_epi32(nmax)));
        scatter8_u8(lo, N, 0, (uint8_t *)L + 128 * g);
    }
}

static void kq_avx2_q3(const float *x, float *scale_out, int8_t *L) { q3_core(x, scale_out, L, 2); }
static void kq_avx2_q3x8(const float *x, float *scale_out, int8_t *L) {
    q3_core(x, scale_out, L, 8);
    q3_core(x + 1024, scale_out + 64, L + 1024, 8);
}

/* packs 8 int32 lanes (0..255) into 8 bytes at p */
static inline void store8_u8(__m256i v, uint8_t *p) {
    __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    __m128i w = _mm_packs_epi32(lo, hi);
    __m128i b = _mm_packus_epi16(w, w);
    _mm_storel_epi64((__m128i *)(void *)p, b);
}

static void kq_avx2_requant_min(const float *x, int n, float dm, float d, int nmax, uint8_t *L) {
    const __m256 vdm = _mm256_set1_ps(dm), vd = _mm256_set1_ps(d);
    for (int i = 0; i < n; i += 8) {
        __m256 v = _mm256_div_ps(_mm256_add_ps(_mm256_loadu_ps(x + i), vdm), vd);
        store8_u8(v_clamp(v_nearest(v), 0, nmax), L + i);
    }
}

static void kq_avx2_requant_sym(const float *x, int n, float d, int nmax, int8_t *L) {
    const __m256 vd = _mm256_set1_ps(d);
    for (int i = 0; i < n; i += 8) {
        __m256 v = _mm256_div_ps(_mm256_loadu_ps(x + i), vd);
        __m256i l = _mm256_add_epi32(v_clamp(v_nearest(v), -nmax, nmax - 1), _mm256_set1_epi32(nmax));
        store8_u8(l, (uint8_t *)L + i);
    }
}

/* make_qx_quants(32, nmax, x, L, 1, w) with weights w on 8 consecutive
 * blocks of 32 (the legacy q4_0 / q5_0 importance-matrix fit), one block per
 * lane; the 18 trial scales two at a time, chosen in ggml's order. */
static void lg_avx2_fit_sym8(const float *x, const float *w, int nmax, float *scale_out, int8_t *L) {
    enum { N = 32 };
    __m256 xt[N], wt[N], wx[N];
    const __m256 zero = _mm256_setzero_ps(), vlo = _mm256_set1_ps((float)-nmax), vhi = _mm256_set1_ps((float)(nmax - 1));
    gather8(x, N, xt);
    gather8(w, N, wt);
    for (int i = 0; i < N; i++) wx[i] = _mm256_mul_ps(wt[i], xt[i]);
    __m256 amax, mx;
    lane_absmax(xt, N, &amax, &mx);
    const __m256 zl = _mm256_cmp_ps(amax, _mm256_set1_ps(1e-15f), _CMP_LT_OQ);
    __m256 iscale = _mm256_div_ps(_mm256_set1_ps((float)-nmax), mx);
    __m256 sumlx = zero, suml2 = zero;
    for (int i = 0; i < N; i++) {
        __m256 lf = v_round_clamp(_mm256_mul_ps(iscale, xt[i]), vlo, vhi);
        sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(wx[i], lf));
        suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(wt[i], lf), lf));
    }
    __m256 scale = v_sel(zero, _mm256_div_ps(sumlx, suml2), _mm256_cmp_ps(suml2, zero, _CMP_NEQ_UQ));
    __m256 best = _mm256_mul_ps(scale, sumlx), best_is = iscale;
    static const int steps[18] = {-9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int k = 0; k < 18; k += 2) {
        __m256 is[2], sx[2], s2[2];
        for (int t = 0; t < 2; t++) {
            is[t] = _mm256_div_ps(_mm256_set1_ps(-((float)nmax + 0.1f * (float)steps[k + t])), mx);
            sx[t] = s2[t] = zero;
        }
        for (int i = 0; i < N; i++)
            for (int t = 0; t < 2; t++) {
                __m256 lf = v_round_clamp(_mm256_mul_ps(is[t], xt[i]), vlo, vhi);
                sx[t] = _mm256_add_ps(sx[t], _mm256_mul_ps(wx[i], lf));
                s2[t] = _mm256_add_ps(s2[t], _mm256_mul_ps(_mm256_mul_ps(wt[i], lf), lf));
            }
        for (int t = 0; t < 2; t++) {
            __m256 upd = _mm256_and_ps(_mm256_cmp_ps(s2[t], zero, _CMP_GT_OQ),
                                       _mm256_cmp_ps(_mm256_mul_ps(sx[t], sx[t]), _mm256_mul_ps(best, s2[t]), _CMP_GT_OQ));
            if (!_mm256_movemask_ps(upd)) continue;
            __m256 ns = _mm256_div_ps(sx[t], s2[t]);
            scale = v_sel(scale, ns, upd);
            best = v_sel(best, _mm256_mul_ps(ns, sx[t]), upd);
            best_is = v_sel(best_is, is[t], upd);
        }
    }
    _mm256_storeu_ps(scale_out, v_sel(scale, zero, zl));
    __m256i li[N];
    const __m256i zmask = _mm256_castps_si256(zl);
    for (int i = 0; i < N; i++) {
        __m256i l = _mm256_add_epi32(v_clamp(v_nearest(_mm256_mul_ps(best_is, xt[i])), -nmax, nmax - 1),
                                     _mm256_set1_epi32(nmax));
        li[i] = _mm256_andnot_si256(zmask, l);
    }
    scatter8_u8(li, N, 0, (uint8_t *)L);
}

void mio_avx2_fill_kquants(mio_kernels *k) {
    k->kq_qkx2 = kq_avx2_qkx2;
    k->kq_qkx3 = kq_avx2_qkx3;
    k->kq_qx = kq_avx2_qx;
    k->kq_q3 = kq_avx2_q3;
    k->kq_q3x8 = kq_avx2_q3x8;
    k->kq_requant_min = kq_avx2_requant_min;
    k->kq_requant_sym = kq_avx2_requant_sym;
    k->lg_fit_sym = lg_avx2_fit_sym8;
    k->lg_sym_blocks = 8;
}
