/* SPDX-License-Identifier: MIT */
/* kquants_avx512.c — AVX-512 kernel for q3_K's make_q3_quants(16, 4, x, L,
 * true): one super-block's 16 sub-blocks in the 16 lanes of a register, four
 * super-blocks interleaved (each lane's coordinate descent is a serial chain
 * of divisions). Each lane performs the scalar reference's exact IEEE
 * operation sequence (quant/kquants.c search_q3), so the bytes match. */
#include "kernels/avx512/avx512.h"

#include <immintrin.h>

static inline __m512i z_nearest(__m512 v) {
    const __m512 t = _mm512_add_ps(v, _mm512_set1_ps(12582912.f));
    return _mm512_sub_epi32(_mm512_and_si512(_mm512_castps_si512(t), _mm512_set1_epi32(0x007fffff)),
                            _mm512_set1_epi32(0x00400000));
}
static inline __m512i z_clamp(__m512i l, int lo, int hi) {
    return _mm512_max_epi32(_mm512_set1_epi32(lo), _mm512_min_epi32(_mm512_set1_epi32(hi), l));
}

/* 16x16 transpose: out[c] lane r = in[r] lane c (shuffles only, exact) */
static inline void transpose16(const __m512 *in, __m512 *out) {
    __m512 t[16], u[16];
    for (int k = 0; k < 8; k++) {
        t[2 * k] = _mm512_unpacklo_ps(in[2 * k], in[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(in[2 * k], in[2 * k + 1]);
    }
    /* u[4a + c], 128-bit lane k: column 4k + c of rows 4a..4a+3 */
    for (int a = 0; a < 4; a++) {
        u[4 * a + 0] = _mm512_shuffle_ps(t[4 * a], t[4 * a + 2], 0x44);
        u[4 * a + 1] = _mm512_shuffle_ps(t[4 * a], t[4 * a + 2], 0xee);
        u[4 * a + 2] = _mm512_shuffle_ps(t[4 * a + 1], t[4 * a + 3], 0x44);
        u[4 * a + 3] = _mm512_shuffle_ps(t[4 * a + 1], t[4 * a + 3], 0xee);
    }
    for (int c = 0; c < 4; c++) {
        const __m512 a0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88), a1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);
        const __m512 b0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88), b1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
        out[c] = _mm512_shuffle_f32x4(a0, b0, 0x88);
        out[8 + c] = _mm512_shuffle_f32x4(a0, b0, 0xdd);
        out[4 + c] = _mm512_shuffle_f32x4(a1, b1, 0x88);
        out[12 + c] = _mm512_shuffle_f32x4(a1, b1, 0xdd);
    }
}

static void kq_avx512_q3x8(const float *x, float *scale_out, int8_t *L) {
    enum { N = 16, G = 8 };
    const int nmax = 4;
    __m512 xt[G][N], lf[G][N]; /* the weights x*x and x*x*x are recomputed (same operations) */
    __m512i li[G][N];
    const __m512 zero = _mm512_setzero_ps();
    __m512 sumlx[G], suml2[G];
    __mmask16 zl[G];
    for (int g = 0; g < G; g++) {
        __m512 rows[N];
        for (int j = 0; j < N; j++) rows[j] = _mm512_loadu_ps(x + 256 * g + N * j);
        transpose16(rows, xt[g]);
        /* lane j = sub-block j: xt[i] lane j = x[16*j + i]; the first strict absolute maximum */
        __m512 amax = zero, mx = zero;
        for (int i = 0; i < N; i++) {
            const __m512 ax = _mm512_abs_ps(xt[g][i]);
            const __mmask16 gt = _mm512_cmp_ps_mask(ax, amax, _CMP_GT_OQ);
            amax = _mm512_mask_blend_ps(gt, amax, ax);
            mx = _mm512_mask_blend_ps(gt, mx, xt[g][i]);
        }
        zl[g] = _mm512_cmp_ps_mask(amax, _mm512_set1_ps(1e-15f), _CMP_LT_OQ);
        const __m512 iscale = _mm512_div_ps(_mm512_set1_ps((float)-nmax), mx);
        sumlx[g] = suml2[g] = zero;
        for (int i = 0; i < N; i++) {
            li[g][i] = z_clamp(z_nearest(_mm512_mul_ps(iscale, xt[g][i])), -nmax, nmax - 1);
            lf[g][i] = _mm512_cvtepi32_ps(li[g][i]);
            const __m512 wt = _mm512_mul_ps(xt[g][i], xt[g][i]), wx = _mm512_mul_ps(wt, xt[g][i]);
            sumlx[g] = _mm512_add_ps(sumlx[g], _mm512_mul_ps(wx, lf[g][i]));
            suml2[g] = _mm512_add_ps(suml2[g], _mm512_mul_ps(_mm512_mul_ps(wt, lf[g][i]), lf[g][i]));
        }
    }
    /* a lane without changes in a pass keeps its state, so later passes change
     * nothing for it: a group none of whose lanes changed is done */
    unsigned act = (1u << G) - 1;
    for (int itry = 0; itry < 5 && act; itry++) {
        __mmask16 changed[G] = {0};
        for (int i = 0; i < N; i++)
            for (int g = 0; g < G; g++) {
                if (!(act >> g & 1)) continue;
                const __m512 wt = _mm512_mul_ps(xt[g][i], xt[g][i]), wx = _mm512_mul_ps(wt, xt[g][i]);
                __m512 slx = _mm512_sub_ps(sumlx[g], _mm512_mul_ps(wx, lf[g][i]));
                const __mmask16 c1 = _mm512_cmp_ps_mask(slx, zero, _CMP_GT_OQ);
                __m512 sl2 = _mm512_sub_ps(suml2[g], _mm512_mul_ps(_mm512_mul_ps(wt, lf[g][i]), lf[g][i]));
                const __m512i nl = z_clamp(z_nearest(_mm512_div_ps(_mm512_mul_ps(xt[g][i], sl2), slx)), -nmax, nmax - 1);
                const __mmask16 diff = _mm512_cmpneq_epi32_mask(nl, li[g][i]);
                const __m512 nlf = _mm512_cvtepi32_ps(nl);
                slx = _mm512_add_ps(slx, _mm512_mul_ps(wx, nlf));
                sl2 = _mm512_add_ps(sl2, _mm512_mul_ps(_mm512_mul_ps(wt, nlf), nlf));
                const __mmask16 c3 =
                    _mm512_cmp_ps_mask(sl2, zero, _CMP_GT_OQ) &
                    _mm512_cmp_ps_mask(_mm512_mul_ps(_mm512_mul_ps(slx, slx), suml2[g]),
                                       _mm512_mul_ps(_mm512_mul_ps(sumlx[g], sumlx[g]), sl2), _CMP_GT_OQ);
                const __mmask16 upd = diff & c1 & c3;
                li[g][i] = _mm512_mask_blend_epi32(upd, li[g][i], nl);
                lf[g][i] = _mm512_mask_blend_ps(upd, lf[g][i], nlf);
                sumlx[g] = _mm512_mask_blend_ps(upd, sumlx[g], slx);
                suml2[g] = _mm512_mask_blend_ps(upd, suml2[g], sl2);
                changed[g] |= upd;
            }
        for (int g = 0; g < G; g++)
            if (!changed[g]) act &= ~(1u << g);
    }
    for (int g = 0; g < G; g++) {
        const __mmask16 pos = _mm512_cmp_ps_mask(suml2[g], zero, _CMP_GT_OQ) & (__mmask16)~zl[g];
        _mm512_storeu_ps(scale_out + 16 * g, _mm512_maskz_div_ps(pos, sumlx[g], suml2[g]));
        __m512 codes[N], rows[N];
        for (int i = 0; i < N; i++)
            codes[i] = _mm512_castsi512_ps(_mm512_maskz_add_epi32((__mmask16)~zl[g], li[g][i], _mm512_set1_epi32(nmax)));
        transpose16(codes, rows);
        for (int j = 0; j < N; j++)
            _mm_storeu_si128((__m128i *)(void *)(L + 256 * g + N * j), _mm512_cvtepi32_epi8(_mm512_castps_si512(rows[j])));
    }
}

/* nearest_int(v) clamped to [lo, hi], as a float (+0 for a zero result, like
 * the integer path's conversion); exact for the |v| <= about nmax seen here */
static inline __m512 z_round_clamp(__m512 v, __m512 lo, __m512 hi) {
    const __m512 M = _mm512_set1_ps(12582912.f);
    return _mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(_mm512_add_ps(v, M), M), lo), hi);
}

/* make_qx_quants(16, nmax, x, L, 1, qw) on the 16 sub-blocks of one
 * super-block, one per lane (qw NULL: weights x*x); the 18 trial scales
 * three at a time (their sums are independent), chosen in ggml's order. */
static void kq_avx512_qx(const float *x, int nmax, const float *qw, float *scale_out, int8_t *L) {
    enum { N = 16, T = 3 };
    __m512 xt[N], wt[N], wx[N], rows[N];
    const __m512 zero = _mm512_setzero_ps(), vlo = _mm512_set1_ps((float)-nmax), vhi = _mm512_set1_ps((float)(nmax - 1));
    for (int j = 0; j < N; j++) rows[j] = _mm512_loadu_ps(x + N * j);
    transpose16(rows, xt);
    if (qw) {
        for (int j = 0; j < N; j++) rows[j] = _mm512_loadu_ps(qw + N * j);
        transpose16(rows, wt);
    }
    __m512 amax = zero, mx = zero;
    for (int i = 0; i < N; i++) {
        if (!qw) wt[i] = _mm512_mul_ps(xt[i], xt[i]);
        wx[i] = _mm512_mul_ps(wt[i], xt[i]);
        const __m512 ax = _mm512_abs_ps(xt[i]);
        const __mmask16 gt = _mm512_cmp_ps_mask(ax, amax, _CMP_GT_OQ);
        amax = _mm512_mask_blend_ps(gt, amax, ax);
        mx = _mm512_mask_blend_ps(gt, mx, xt[i]);
    }
    const __mmask16 zl = _mm512_cmp_ps_mask(amax, _mm512_set1_ps(1e-15f), _CMP_LT_OQ);
    const __m512 iscale = _mm512_div_ps(_mm512_set1_ps((float)-nmax), mx);
    __m512 sumlx = zero, suml2 = zero;
    for (int i = 0; i < N; i++) {
        const __m512 lf = z_round_clamp(_mm512_mul_ps(iscale, xt[i]), vlo, vhi);
        sumlx = _mm512_add_ps(sumlx, _mm512_mul_ps(wx[i], lf));
        suml2 = _mm512_add_ps(suml2, _mm512_mul_ps(_mm512_mul_ps(wt[i], lf), lf));
    }
    __m512 scale = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(suml2, zero, _CMP_NEQ_UQ), sumlx, suml2);
    __m512 best = _mm512_mul_ps(scale, sumlx), best_is = iscale;
    static const int steps[18] = {-9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int k = 0; k < 18; k += T) {
        __m512 is[T], sx[T], s2[T];
        for (int t = 0; t < T; t++) {
            is[t] = _mm512_div_ps(_mm512_set1_ps(-((float)nmax + 0.1f * (float)steps[k + t])), mx);
            sx[t] = s2[t] = zero;
        }
        for (int i = 0; i < N; i++)
            for (int t = 0; t < T; t++) {
                const __m512 lf = z_round_clamp(_mm512_mul_ps(is[t], xt[i]), vlo, vhi);
                sx[t] = _mm512_add_ps(sx[t], _mm512_mul_ps(wx[i], lf));
                s2[t] = _mm512_add_ps(s2[t], _mm512_mul_ps(_mm512_mul_ps(wt[i], lf), lf));
            }
        for (int t = 0; t < T; t++) {
            const __mmask16 upd =
                _mm512_cmp_ps_mask(s2[t], zero, _CMP_GT_OQ) &
                _mm512_cmp_ps_mask(_mm512_mul_ps(sx[t], sx[t]), _mm512_mul_ps(best, s2[t]), _CMP_GT_OQ);
            if (!upd) continue;
            const __m512 ns = _mm512_div_ps(sx[t], s2[t]);
            scale = _mm512_mask_blend_ps(upd, scale, ns);
            best = _mm512_mask_blend_ps(upd, best, _mm512_mul_ps(ns, sx[t]));
            best_is = _mm512_mask_blend_ps(upd, best_is, is[t]);
        }
    }
    _mm512_storeu_ps(scale_out, _mm512_mask_blend_ps(zl, scale, zero));
    __m512 codes[N];
    for (int i = 0; i < N; i++) {
        const __m512i l = _mm512_add_epi32(z_clamp(z_nearest(_mm512_mul_ps(best_is, xt[i])), -nmax, nmax - 1),
                                           _mm512_set1_epi32(nmax));
        codes[i] = _mm512_castsi512_ps(_mm512_maskz_mov_epi32((__mmask16)~zl, l));
    }
    transpose16(codes, rows);
    for (int j = 0; j < N; j++)
        _mm_storeu_si128((__m128i *)(void *)(L + N * j), _mm512_cvtepi32_epi8(_mm512_castps_si512(rows[j])));
}

void mio_avx512_fill_kquants(mio_kernels *k) {
    k->kq_q3x8 = kq_avx512_q3x8;
    k->kq_qx = kq_avx512_qx;
}
