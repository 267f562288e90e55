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

static void kq_avx512_q3x4(const float *x, float *scale_out, int8_t *L) {
    enum { N = 16, G = 4 };
    const int nmax = 4;
    __m512 xt[G][N], wt[G][N], wx[G][N], lf[G][N];
    __m512i li[G][N];
    const __m512 zero = _mm512_setzero_ps();
    __m512 sumlx[G], suml2[G];
    __mmask16 zl[G];
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(N));
    for (int g = 0; g < G; g++) {
        /* lane j = sub-block j: xt[i] lane j = x[16*j + i]; the first strict absolute maximum */
        __m512 amax = zero, mx = zero;
        for (int i = 0; i < N; i++) {
            xt[g][i] = _mm512_i32gather_ps(idx, x + 256 * g + i, 4);
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
            wt[g][i] = _mm512_mul_ps(xt[g][i], xt[g][i]);
            wx[g][i] = _mm512_mul_ps(wt[g][i], xt[g][i]);
            sumlx[g] = _mm512_add_ps(sumlx[g], _mm512_mul_ps(wx[g][i], lf[g][i]));
            suml2[g] = _mm512_add_ps(suml2[g], _mm512_mul_ps(_mm512_mul_ps(wt[g][i], lf[g][i]), lf[g][i]));
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
                __m512 slx = _mm512_sub_ps(sumlx[g], _mm512_mul_ps(wx[g][i], lf[g][i]));
                const __mmask16 c1 = _mm512_cmp_ps_mask(slx, zero, _CMP_GT_OQ);
                __m512 sl2 = _mm512_sub_ps(suml2[g], _mm512_mul_ps(_mm512_mul_ps(wt[g][i], lf[g][i]), lf[g][i]));
                const __m512i nl = z_clamp(z_nearest(_mm512_div_ps(_mm512_mul_ps(xt[g][i], sl2), slx)), -nmax, nmax - 1);
                const __mmask16 diff = _mm512_cmpneq_epi32_mask(nl, li[g][i]);
                const __m512 nlf = _mm512_cvtepi32_ps(nl);
                slx = _mm512_add_ps(slx, _mm512_mul_ps(wx[g][i], nlf));
                sl2 = _mm512_add_ps(sl2, _mm512_mul_ps(_mm512_mul_ps(wt[g][i], nlf), nlf));
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
        int32_t t[N][16];
        for (int i = 0; i < N; i++)
            _mm512_storeu_si512((void *)t[i],
                                _mm512_maskz_add_epi32((__mmask16)~zl[g], li[g][i], _mm512_set1_epi32(nmax)));
        for (int j = 0; j < 16; j++)
            for (int i = 0; i < N; i++) L[256 * g + N * j + i] = (int8_t)t[i][j];
    }
}

void mio_avx512_fill_kquants(mio_kernels *k) {
    k->kq_q3x4 = kq_avx512_q3x4;
}
