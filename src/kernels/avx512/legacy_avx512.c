/* SPDX-License-Identifier: MIT */
/* legacy_avx512.c — AVX-512 kernels for the legacy 32-element block encoders:
 * the importance-matrix fit of q4_0 / q5_0 (ggml's make_qx_quants(32, nmax, x,
 * L, 1, w)) on 16 blocks at once, one block per lane, each lane performing the
 * scalar fit's exact IEEE operation sequence (quant/legacy.c fit_symmetric),
 * so the bytes match. */
#include "kernels/avx512/avx512.h"

#include <immintrin.h>

/* ggml's nearest_int (1.5 * 2^23 trick), as a float, clamped to [lo, hi]:
 * exact for the |v| <= about nmax + 1 seen here */
static inline __m512 round_clamp(__m512 v, __m512 lo, __m512 hi) {
    const __m512 M = _mm512_set1_ps(12582912.f);
    return _mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(_mm512_add_ps(v, M), M), lo), hi);
}

static void lg_avx512_fit_sym16(const float *x, const float *w, int nmax, float *scale_out, int8_t *L) {
    enum { N = 32 };
    __m512 xt[N], wt[N], wx[N];
    const __m512 zero = _mm512_setzero_ps(), vlo = _mm512_set1_ps((float)-nmax), vhi = _mm512_set1_ps((float)(nmax - 1));
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(N));
    /* lane j = block j: xt[i] lane j = x[32*j + i]; the first strict absolute maximum and its signed value */
    __m512 amax = zero, mx = zero;
    for (int i = 0; i < N; i++) {
        xt[i] = _mm512_i32gather_ps(idx, x + i, 4);
        wt[i] = _mm512_i32gather_ps(idx, w + i, 4);
        wx[i] = _mm512_mul_ps(wt[i], xt[i]);
        __m512 ax = _mm512_abs_ps(xt[i]);
        __mmask16 gt = _mm512_cmp_ps_mask(ax, amax, _CMP_GT_OQ);
        amax = _mm512_mask_blend_ps(gt, amax, ax);
        mx = _mm512_mask_blend_ps(gt, mx, xt[i]);
    }
    const __mmask16 zl = _mm512_cmp_ps_mask(amax, _mm512_set1_ps(1e-15f), _CMP_LT_OQ);
    __m512 iscale = _mm512_div_ps(_mm512_set1_ps((float)-nmax), mx);
    __m512 sumlx = zero, suml2 = zero;
    for (int i = 0; i < N; i++) {
        __m512 lf = round_clamp(_mm512_mul_ps(iscale, xt[i]), vlo, vhi);
        sumlx = _mm512_add_ps(sumlx, _mm512_mul_ps(wx[i], lf));
        suml2 = _mm512_add_ps(suml2, _mm512_mul_ps(_mm512_mul_ps(wt[i], lf), lf));
    }
    __m512 scale = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(suml2, zero, _CMP_NEQ_UQ), sumlx, suml2);
    __m512 best = _mm512_mul_ps(scale, sumlx), best_is = iscale;
    static const int steps[18] = {-9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int k = 0; k < 18; k += 2) {
        __m512 is[2], sx[2], s2[2];
        for (int t = 0; t < 2; t++) {
            is[t] = _mm512_div_ps(_mm512_set1_ps(-((float)nmax + 0.1f * (float)steps[k + t])), mx);
            sx[t] = s2[t] = zero;
        }
        for (int i = 0; i < N; i++)
            for (int t = 0; t < 2; t++) {
                __m512 lf = round_clamp(_mm512_mul_ps(is[t], xt[i]), vlo, vhi);
                sx[t] = _mm512_add_ps(sx[t], _mm512_mul_ps(wx[i], lf));
                s2[t] = _mm512_add_ps(s2[t], _mm512_mul_ps(_mm512_mul_ps(wt[i], lf), lf));
            }
        /* in ggml's trial order: the first trial's choice before the second is tested */
        for (int t = 0; t < 2; t++) {
            __mmask16 upd = _mm512_cmp_ps_mask(s2[t], zero, _CMP_GT_OQ) &
                            _mm512_cmp_ps_mask(_mm512_mul_ps(sx[t], sx[t]), _mm512_mul_ps(best, s2[t]), _CMP_GT_OQ);
            if (!upd) continue;
            __m512 ns = _mm512_div_ps(sx[t], s2[t]);
            scale = _mm512_mask_blend_ps(upd, scale, ns);
            best = _mm512_mask_blend_ps(upd, best, _mm512_mul_ps(ns, sx[t]));
            best_is = _mm512_mask_blend_ps(upd, best_is, is[t]);
        }
    }
    _mm512_storeu_ps(scale_out, _mm512_mask_blend_ps(zl, scale, zero));
    /* codes: nearest(best_is * x) clamped, biased by nmax; 0 for an all-zero block */
    const __m512i vmin = _mm512_set1_epi32(-nmax), vmax = _mm512_set1_epi32(nmax - 1), bias = _mm512_set1_epi32(nmax);
    int32_t t[N][16];
    for (int i = 0; i < N; i++) {
        __m512 v = _mm512_add_ps(_mm512_mul_ps(best_is, xt[i]), _mm512_set1_ps(12582912.f));
        __m512i l = _mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x007fffff)),
                                     _mm512_set1_epi32(0x00400000));
        l = _mm512_add_epi32(_mm512_max_epi32(vmin, _mm512_min_epi32(vmax, l)), bias);
        _mm512_storeu_si512((void *)t[i], _mm512_maskz_mov_epi32((__mmask16)~zl, l));
    }
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < N; i++) L[N * j + i] = (int8_t)t[i][j];
}

void mio_avx512_fill_legacy(mio_kernels *k) {
    k->lg_fit_sym = lg_avx512_fit_sym16;
    k->lg_sym_blocks = 16;
}
