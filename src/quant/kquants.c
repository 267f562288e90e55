/* SPDX-License-Identifier: MIT */
/* kquants.c — codecs for the 256-element super-block types q2_K q3_K q4_K q5_K
 * q6_K q8_K: encoders byte-exact with ggml's reference quantizers (plain and
 * importance-weighted), decoders bit-exact with ggml's dequantizers. The hot
 * per-sub-block searches and three decoders have SIMD versions in the kernel
 * table (kernels/kernels.h); a NULL entry runs the scalar code written here. */
#include "codec.h"
#include "core/half.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QK 256
#define EPS_GROUP 1e-15f

/* wire layouts (byte offsets inside one block) */
enum {
    Q2_SCALES = 0, Q2_QS = 16, Q2_D = 80, Q2_DMIN = 82, Q2_BYTES = 84,
    Q3_HMASK = 0, Q3_QS = 32, Q3_SCALES = 96, Q3_D = 108, Q3_BYTES = 110,
    Q4_D = 0, Q4_DMIN = 2, Q4_SCALES = 4, Q4_QS = 16, Q4_BYTES = 144,
    Q5_D = 0, Q5_DMIN = 2, Q5_SCALES = 4, Q5_QH = 16, Q5_QS = 48, Q5_BYTES = 176,
    Q6_QL = 0, Q6_QH = 128, Q6_SCALES = 192, Q6_D = 208, Q6_BYTES = 210,
    Q8_D = 0, Q8_QS = 4, Q8_BSUMS = 260, Q8_BYTES = 292
};

static const mio_kernels *K; /* the dispatch's kernels (kernels/kernels.h) */

/* ---------------------------------------------------------------------------
 * Scalar building blocks (each mirrors the operation order of its ggml
 * counterpart; comments name the counterpart).
 * ------------------------------------------------------------------------- */

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }
static inline float h2f(const uint8_t *p) { return half_to_f32(ld16(p)); }
static inline void f2h(uint8_t *p, float v) { st16(p, mio_f32_to_fp16(v)); }

/* like make_qkx2_quants (use_mad as given) */
static float search_min_scale(int n, int nmax, const float *x, const float *w, uint8_t *L, float *the_min,
                              float rmin, float rdelta, int nstep, bool use_mad) {
    uint8_t Laux[32];
    float lo = x[0], hi = x[0];
    float sum_w = w[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (lo > 0) lo = 0;
    if (hi == lo) {
        memset(L, 0, (size_t)n);
        *the_min = -lo;
        return 0.f;
    }
    float iscale = (float)nmax / (hi - lo);
    float scale = 1 / iscale;
    float best = 0;
    for (int i = 0; i < n; i++) {
        int l = kq_nearest_int(iscale * (x[i] - lo));
        L[i] = (uint8_t)imax(0, imin(nmax, l));
        float diff = scale * L[i] + lo - x[i];
        diff = use_mad ? fabsf(diff) : diff * diff;
        best += w[i] * diff;
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (hi - lo);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; i++) {
            int l = kq_nearest_int(iscale * (x[i] - lo));
            l = imax(0, imin(nmax, l));
            Laux[i] = (uint8_t)l;
            float wl = w[i] * (float)l;
            sum_l += wl;
            sum_l2 += wl * (float)l;
            sum_xl += wl * x[i];
        }
        float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float err = 0;
            for (int i = 0; i < n; i++) {
                float diff = this_scale * Laux[i] + this_min - x[i];
                diff = use_mad ? fabsf(diff) : diff * diff;
                err += w[i] * diff;
            }
            if (err < best) {
                memcpy(L, Laux, (size_t)n);
                best = err;
                scale = this_scale;
                lo = this_min;
            }
        }
    }
    *the_min = -lo;
    return scale;
}

/* like make_qkx3_quants (weights given, squared error) */
static float search_min_scale_w(int n, int nmax, const float *x, const float *w, uint8_t *L, float *the_min) {
    const float rmin = -0.9f, rdelta = 0.05f;
    const int nstep = 36;
    uint8_t Laux[32];
    float lo = x[0], hi = x[0];
    float sum_w = w[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (lo > 0) lo = 0;
    if (hi <= lo) {
        memset(L, 0, (size_t)n);
        *the_min = -lo;
        return 0.f;
    }
    float iscale = (float)nmax / (hi - lo);
    float scale = 1 / iscale;
    float best = 0;
    for (int i = 0; i < n; i++) {
        int l = kq_nearest_int(iscale * (x[i] - lo));
        L[i] = (uint8_t)imax(0, imin(nmax, l));
        float diff = scale * L[i] + lo - x[i];
        diff = diff * diff;
        best += w[i] * diff;
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (hi - lo);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; i++) {
            float v = iscale * (x[i] - lo);
            int l = v > 0 ? kq_nearest_int(v < (float)nmax ? v : (float)nmax) : 0;
            Laux[i] = (uint8_t)l;
            float wl = w[i] * (float)l;
            sum_l += wl;
            sum_l2 += wl * (float)l;
            sum_xl += wl * x[i];
        }
        float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float err = 0;
            for (int i = 0; i < n; i++) {
                float diff = this_scale * Laux[i] + this_min - x[i];
                diff = diff * diff;
                err += w[i] * diff;
            }
            if (err < best) {
                memcpy(L, Laux, (size_t)n);
                best = err;
                scale = this_scale;
                lo = this_min;
            }
        }
    }
    *the_min = -lo;
    return scale;
}

/* like make_qp_quants: non-negative values x quantized to 0..nmax with weights */
static float search_pos_scale(int n, int nmax, const float *x, uint8_t *L, const float *qw) {
    float mx = 0;
    for (int i = 0; i < n; i++) mx = mx > x[i] ? mx : x[i];
    if (mx < EPS_GROUP) {
        memset(L, 0, (size_t)n);
        return 0.f;
    }
    float iscale = (float)nmax / mx;
    for (int i = 0; i < n; i++) L[i] = (uint8_t)kq_nearest_int(iscale * x[i]);
    float scale = 1 / iscale;
    float best = 0;
    for (int i = 0; i < n; i++) {
        float diff = x[i] - scale * L[i];
        best += qw[i] * diff * diff;
    }
    for (int is = -4; is <= 4; is++) {
        if (is == 0) continue;
        float iscale_is = (0.1f * (float)is + (float)nmax) / mx;
        float scale_is = 1 / iscale_is;
        float mse = 0;
        for (int i = 0; i < n; i++) {
            int l = imin(nmax, kq_nearest_int(iscale_is * x[i]));
            float diff = x[i] - scale_is * (float)l;
            mse += qw[i] * diff * diff;
        }
        if (mse < best) {
            best = mse;
            iscale = iscale_is;
        }
    }
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = imin(nmax, kq_nearest_int(iscale * x[i]));
        L[i] = (uint8_t)l;
        sumlx += qw[i] * x[i] * (float)l;
        suml2 += qw[i] * (float)l * (float)l;
    }
    for (int itry = 0; itry < 5; itry++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            float w = qw[i];
            float slx = sumlx - w * x[i] * L[i];
            float sl2 = suml2 - w * L[i] * L[i];
            if (slx > 0 && sl2 > 0) {
                int nl = imin(nmax, kq_nearest_int(x[i] * sl2 / slx));
                if (nl != L[i]) {
                    slx += w * x[i] * (float)nl;
                    sl2 += w * (float)nl * (float)nl;
                    if (slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (uint8_t)nl;
                        sumlx = slx;
                        suml2 = sl2;
                        changed++;
                    }
                }
            }
        }
        if (!changed) break;
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* like make_qx_quants with rmse_type 1: symmetric levels -nmax..nmax-1 stored
 * biased by nmax; weights qw, or x*x when qw is NULL */
static float search_sym_scale(int n, int nmax, const float *x, int8_t *L, const float *qw) {
    float mx = 0, amax = 0;
    for (int i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) { amax = ax; mx = x[i]; }
    }
    if (amax < EPS_GROUP) {
        memset(L, 0, (size_t)n);
        return 0.f;
    }
    float iscale = (float)-nmax / mx;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = imax(-nmax, imin(nmax - 1, kq_nearest_int(iscale * x[i])));
        L[i] = (int8_t)(l + nmax);
        float w = qw ? qw[i] : x[i] * x[i];
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; is++) {
        if (is == 0) continue;
        iscale = -((float)nmax + 0.1f * (float)is) / mx;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; i++) {
            int l = imax(-nmax, imin(nmax - 1, kq_nearest_int(iscale * x[i])));
            float w = qw ? qw[i] : x[i] * x[i];
            sumlx += w * x[i] * (float)l;
            suml2 += w * (float)l * (float)l;
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; i++)
                L[i] = (int8_t)(nmax + imax(-nmax, imin(nmax - 1, kq_nearest_int(iscale * x[i]))));
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

/* like make_q3_quants(n, 4, x, L, true): weights x*x, coordinate descent */
static float search_q3(int n, const float *x, int8_t *L) {
    const int nmax = 4;
    float mx = 0, amax = 0;
    for (int i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) { amax = ax; mx = x[i]; }
    }
    if (amax < EPS_GROUP) {
        memset(L, 0, (size_t)n);
        return 0.f;
    }
    float iscale = (float)-nmax / mx;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = imax(-nmax, imin(nmax - 1, kq_nearest_int(iscale * x[i])));
        L[i] = (int8_t)l;
        float w = x[i] * x[i];
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    for (int itry = 0; itry < 5; itry++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * L[i];
            if (slx > 0) {
                float sl2 = suml2 - w * L[i] * L[i];
                int nl = imax(-nmax, imin(nmax - 1, kq_nearest_int(x[i] * sl2 / slx)));
                if (nl != L[i]) {
                    slx += w * x[i] * (float)nl;
                    sl2 += w * (float)nl * (float)nl;
                    if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (int8_t)nl;
                        sumlx = slx;
                        suml2 = sl2;
                        changed++;
                    }
                }
            }
        }
        if (!changed) break;
    }
    for (int i = 0; i < n; i++) L[i] = (int8_t)(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

static void requant_min(const float *x, int n, float dm, float d, int nmax, uint8_t *L) {
    if (K->kq_requant_min) K->kq_requant_min(x, n, dm, d, nmax, L);
    else kq_requant_min(x, n, dm, d, nmax, L);
}
static void requant_sym(const float *x, int n, float d, int nmax, int8_t *L) {
    if (K->kq_requant_sym) K->kq_requant_sym(x, n, d, nmax, L);
    else kq_requant_sym(x, n, d, nmax, L);
}

/* ---------------------------------------------------------------------------
 * Shared finishing steps: scale packing, requantization, bit packing.
 * ------------------------------------------------------------------------- */

/* 2-bit packing used by q2_K and q3_K: 4 groups of 32 per 128 */
static void pack2(const uint8_t *L, uint8_t *qs) {
    for (int j = 0; j < QK; j += 128)
        for (int l = 0; l < 32; l++)
            qs[j / 4 + l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

/* q2_K after the scales/mins are packed into b: requantize and pack */
static void q2_finish(const float *x, uint8_t *b, uint8_t *L) {
    float dd = h2f(b + Q2_D), dmm = h2f(b + Q2_DMIN);
    for (int j = 0; j < 16; j++) {
        const float d = dd * (float)(b[Q2_SCALES + j] & 0xF);
        if (!(d != 0)) continue;
        const float dm = dmm * (float)(b[Q2_SCALES + j] >> 4);
        requant_min(x + 16 * j, 16, dm, d, 3, L + 16 * j);
    }
    pack2(L, b + Q2_QS);
}

static void q2_encode_block(const float *x, uint8_t *b) {
    uint8_t L[QK];
    float w[16], mins[16], scales[16];
    if (K->kq_qkx2) {
        K->kq_qkx2(x, 16, 3, -0.5f, 0.1f, 15, KQ_W_ABS, true, scales, mins, L);
        K->kq_qkx2(x + 128, 16, 3, -0.5f, 0.1f, 15, KQ_W_ABS, true, scales + 8, mins + 8, L + 128);
    } else {
        for (int j = 0; j < 16; j++) {
            for (int l = 0; l < 16; l++) w[l] = fabsf(x[16 * j + l]);
            scales[j] = search_min_scale(16, 3, x + 16 * j, w, L + 16 * j, &mins[j], -0.5f, 0.1f, 15, true);
        }
    }
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 16; j++) {
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    memset(b, 0, Q2_BYTES);
    if (max_scale > 0) {
        float iscale = 15.f / max_scale;
        for (int j = 0; j < 16; j++) b[Q2_SCALES + j] = (uint8_t)kq_nearest_int(iscale * scales[j]);
        f2h(b + Q2_D, max_scale / 15.f);
    } else {
        f2h(b + Q2_D, 0.f);
    }
    if (max_min > 0) {
        float iscale = 15.f / max_min;
        for (int j = 0; j < 16; j++) b[Q2_SCALES + j] |= (uint8_t)((unsigned)kq_nearest_int(iscale * mins[j]) << 4); /* bits as ggml, without UB */
        f2h(b + Q2_DMIN, max_min / 15.f);
    } else {
        f2h(b + Q2_DMIN, 0.f);
    }
    q2_finish(x, b, L);
}

static void q2_encode_block_w(const float *x, uint8_t *b, const float *qw) {
    uint8_t L[QK], Ls[16], Lm[16];
    float w[QK], mins[16], scales[16], sw[16];
    float sumx2 = 0;
    for (int j = 0; j < QK; j++) sumx2 += x[j] * x[j];
    float sigma2 = sumx2 / QK;
    for (int j = 0; j < 16; j++) {
        float *ws = w + 16 * j;
        sw[j] = 0;
        for (int l = 0; l < 16; l++) ws[l] = qw[16 * j + l] * sqrtf(sigma2 + x[16 * j + l] * x[16 * j + l]);
        for (int l = 0; l < 16; l++) sw[j] += ws[l];
        if (!K->kq_qkx3) scales[j] = search_min_scale_w(16, 3, x + 16 * j, ws, L + 16 * j, &mins[j]);
    }
    if (K->kq_qkx3) {
        K->kq_qkx3(x, 16, 3, w, scales, mins, L);
        K->kq_qkx3(x + 128, 16, 3, w + 128, scales + 8, mins + 8, L + 128);
    }
    float dm = search_pos_scale(16, 15, scales, Ls, sw);
    float mm = search_pos_scale(16, 15, mins, Lm, sw);
    memset(b, 0, Q2_BYTES);
    f2h(b + Q2_D, dm);
    f2h(b + Q2_DMIN, mm);
    for (int j = 0; j < 16; j++) b[Q2_SCALES + j] = (uint8_t)(Ls[j] | (Lm[j] << 4));
    q2_finish(x, b, L);
}

/* q3_K: 6-bit signed scale j (biased by 32) into the 12 scale bytes */
static void q3_put_scale(uint8_t *s, int j, int l) {
    if (j < 8) s[j] = (uint8_t)(l & 0xF);
    else s[j - 8] |= (uint8_t)((l & 0xF) << 4);
    l >>= 4;
    s[j % 4 + 8] |= (uint8_t)(l << (2 * (j / 4)));
}

static void q3_finish(const float *x, uint8_t *b, int8_t *L) {
    const uint8_t *s = b + Q3_SCALES;
    float dd = h2f(b + Q3_D);
    for (int j = 0; j < 16; j++) {
        int8_t sc = (int8_t)(j < 8 ? s[j] & 0xF : s[j - 8] >> 4);
        sc = (int8_t)((sc | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32);
        float d = dd * (float)sc;
        if (!(d != 0)) continue;
        requant_sym(x + 16 * j, 16, d, 4, L + 16 * j);
    }
    /* codes 0..7: bit 2 of code 32k+i goes to bit k of hmask byte i, the low
     * two bits are packed like q2_K's (fixed-trip byte loops that vectorize) */
    uint8_t U[QK], hm[32], qs[64];
    memcpy(U, L, QK);
    memset(hm, 0, sizeof hm);
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 32; i++) hm[i] = (uint8_t)(hm[i] | ((U[32 * k + i] >> 2) & 1) << k);
    for (int j = 0; j < 2; j++)
        for (int l = 0; l < 32; l++)
            qs[32 * j + l] = (uint8_t)((U[128 * j + l] & 3) | (U[128 * j + l + 32] & 3) << 2 |
                                       (U[128 * j + l + 64] & 3) << 4 | (U[128 * j + l + 96] & 3) << 6);
    memcpy(b + Q3_HMASK, hm, 32);
    memcpy(b + Q3_QS, qs, 64);
}

/* q3_K once the 16 sub-block scales and codes L are found */
static void q3_encode_rest(const float *x, uint8_t *b, const float *scales, int8_t *L) {
    float max_scale = 0, amax = 0;
    for (int j = 0; j < 16; j++) {
        float a = fabsf(scales[j]);
        if (a > amax) { amax = a; max_scale = scales[j]; }
    }
    memset(b, 0, Q3_BYTES);
    if (max_scale != 0) {
        float iscale = -32.f / max_scale;
        for (int j = 0; j < 16; j++) {
            int8_t l = (int8_t)kq_nearest_int(iscale * scales[j]);
            q3_put_scale(b + Q3_SCALES, j, imax(-32, imin(31, l)) + 32);
        }
        f2h(b + Q3_D, 1 / iscale);
    } else {
        f2h(b + Q3_D, 0.f);
    }
    q3_finish(x, b, L);
}

static void q3_encode_block(const float *x, uint8_t *b) {
    int8_t L[QK];
    float scales[16];
    if (K->kq_q3) {
        K->kq_q3(x, scales, L);
    } else {
        for (int j = 0; j < 16; j++) scales[j] = search_q3(16, x + 16 * j, L + 16 * j);
    }
    q3_encode_rest(x, b, scales, L);
}

static void q3_encode_block_w(const float *x, uint8_t *b, const float *qw) {
    int8_t L[QK], Ls[16];
    float w[QK], scales[16], sw[16];
    float sumx2 = 0;
    for (int j = 0; j < QK; j++) sumx2 += x[j] * x[j];
    float sigma2 = 2 * sumx2 / QK;
    for (int j = 0; j < 16; j++) {
        float *ws = w + 16 * j;
        for (int l = 0; l < 16; l++) ws[l] = qw[16 * j + l] * sqrtf(sigma2 + x[16 * j + l] * x[16 * j + l]);
        float sumw = 0;
        for (int l = 0; l < 16; l++) sumw += ws[l];
        sw[j] = sumw;
        if (!K->kq_qx) scales[j] = search_sym_scale(16, 4, x + 16 * j, L + 16 * j, ws);
    }
    if (K->kq_qx) K->kq_qx(x, 4, w, scales, L);
    memset(b, 0, Q3_BYTES);
    float d_block = search_sym_scale(16, 32, scales, Ls, sw);
    for (int j = 0; j < 16; j++) q3_put_scale(b + Q3_SCALES, j, Ls[j]);
    f2h(b + Q3_D, d_block);
    q3_finish(x, b, L);
}

/* q4_K / q5_K: 6-bit scale and min of sub-block j */
static void k4_put(uint8_t *s, int j, uint8_t ls, uint8_t lm) {
    if (j < 4) {
        s[j] = ls;
        s[j + 4] = lm;
    } else {
        s[j + 4] = (uint8_t)((ls & 0xF) | ((lm & 0xF) << 4));
        s[j - 4] |= (uint8_t)((ls >> 4) << 6);
        s[j] |= (uint8_t)((lm >> 4) << 6);
    }
}
static void k4_get(const uint8_t *q, int j, uint8_t *d, uint8_t *m) {
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t)((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

/* q4_K (nmax 15) or q5_K (nmax 31) after d/dmin/scales: requantize and pack */
static void k45_finish(const float *x, uint8_t *b, uint8_t *L, int nmax) {
    float dd = h2f(b + Q4_D), dmm = h2f(b + Q4_DMIN);
    for (int j = 0; j < 8; j++) {
        uint8_t sc, m;
        k4_get(b + Q4_SCALES, j, &sc, &m);
        const float d = dd * (float)sc;
        if (!(d != 0)) continue;
        const float dm = dmm * (float)m;
        requant_min(x + 32 * j, 32, dm, d, nmax, L + 32 * j);
    }
    if (nmax == 15) {
        uint8_t *q = b + Q4_QS;
        for (int j = 0; j < QK; j += 64, q += 32)
            for (int l = 0; l < 32; l++) q[l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 4));
    } else {
        uint8_t *qh = b + Q5_QH, *ql = b + Q5_QS;
        memset(qh, 0, 32);
        uint8_t m1 = 1, m2 = 2;
        for (int n = 0; n < QK; n += 64, ql += 32) {
            for (int j = 0; j < 32; j++) {
                int l1 = L[n + j], l2 = L[n + j + 32];
                if (l1 > 15) { l1 -= 16; qh[j] |= m1; }
                if (l2 > 15) { l2 -= 16; qh[j] |= m2; }
                ql[j] = (uint8_t)(l1 | (l2 << 4));
            }
            m1 = (uint8_t)(m1 << 2);
            m2 = (uint8_t)(m2 << 2);
        }
    }
}

static void k45_encode_block(const float *x, uint8_t *b, int nmax) {
    uint8_t L[QK];
    float w[32], mins[8], scales[8];
    const float rmin = nmax == 15 ? -1.f : -0.5f;
    const int nstep = nmax == 15 ? 20 : 15;
    if (K->kq_qkx2) {
        K->kq_qkx2(x, 32, nmax, rmin, 0.1f, nstep, KQ_W_AVX_ABS, false, scales, mins, L);
    } else {
        for (int j = 0; j < 8; j++) {
            const float *xs = x + 32 * j;
            float sum_x2 = 0;
            for (int l = 0; l < 32; l++) sum_x2 += xs[l] * xs[l];
            float av_x = sqrtf(sum_x2 / 32);
            for (int l = 0; l < 32; l++) w[l] = av_x + fabsf(xs[l]);
            scales[j] = search_min_scale(32, nmax, xs, w, L + 32 * j, &mins[j], rmin, 0.1f, nstep, false);
        }
    }
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; j++) {
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    memset(b, 0, nmax == 15 ? Q4_BYTES : Q5_BYTES);
    float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    for (int j = 0; j < 8; j++) {
        uint8_t ls = (uint8_t)kq_nearest_int(inv_scale * scales[j]);
        uint8_t lm = (uint8_t)kq_nearest_int(inv_min * mins[j]);
        k4_put(b + Q4_SCALES, j, ls < 63 ? ls : 63, lm < 63 ? lm : 63);
    }
    f2h(b + Q4_D, max_scale / 63.f);
    f2h(b + Q4_DMIN, max_min / 63.f);
    k45_finish(x, b, L, nmax);
}

static void k45_encode_block_w(const float *x, uint8_t *b, const float *qw, int nmax) {
    uint8_t L[QK], Ls[8], Lm[8];
    float w[QK], mins[8], scales[8], sw[8];
    float sum_x2 = 0;
    for (int l = 0; l < QK; l++) sum_x2 += x[l] * x[l];
    float sigma2 = 2 * sum_x2 / QK;
    for (int j = 0; j < 8; j++) {
        float *ws = w + 32 * j;
        for (int l = 0; l < 32; l++) ws[l] = qw[32 * j + l] * sqrtf(sigma2 + x[32 * j + l] * x[32 * j + l]);
        float sumw = 0;
        for (int l = 0; l < 32; l++) sumw += ws[l];
        sw[j] = sumw;
        if (!K->kq_qkx3) scales[j] = search_min_scale_w(32, nmax, x + 32 * j, ws, L + 32 * j, &mins[j]);
    }
    if (K->kq_qkx3) K->kq_qkx3(x, 32, nmax, w, scales, mins, L);
    float d_block = search_pos_scale(8, 63, scales, Ls, sw);
    float m_block = search_pos_scale(8, 63, mins, Lm, sw);
    memset(b, 0, nmax == 15 ? Q4_BYTES : Q5_BYTES);
    for (int j = 0; j < 8; j++)
        k4_put(b + Q4_SCALES, j, Ls[j] < 63 ? Ls[j] : 63, Lm[j] < 63 ? Lm[j] : 63);
    f2h(b + Q4_D, d_block);
    f2h(b + Q4_DMIN, m_block);
    k45_finish(x, b, L, nmax);
}

/* q6_K from per-sub-block scales and search levels */
static void q6_finish(const float *x, uint8_t *b, const float *scales, int8_t *L) {
    float max_scale = 0, max_abs = 0;
    for (int j = 0; j < 16; j++) {
        float a = fabsf(scales[j]);
        if (a > max_abs) { max_abs = a; max_scale = scales[j]; }
    }
    memset(b, 0, Q6_BYTES);
    if (max_abs < EPS_GROUP) {
        f2h(b + Q6_D, 0.f);
        return;
    }
    float iscale = -128.f / max_scale;
    f2h(b + Q6_D, 1 / iscale);
    for (int j = 0; j < 16; j++) b[Q6_SCALES + j] = (uint8_t)(int8_t)imin(127, kq_nearest_int(iscale * scales[j]));
    float dd = h2f(b + Q6_D);
    for (int j = 0; j < 16; j++) {
        float d = dd * (float)(int8_t)b[Q6_SCALES + j];
        if (!(d != 0)) continue;
        requant_sym(x + 16 * j, 16, d, 32, L + 16 * j);
    }
    uint8_t *ql = b + Q6_QL, *qh = b + Q6_QH;
    const uint8_t *U = (const uint8_t *)L;
    for (int j = 0; j < QK; j += 128, ql += 64, qh += 32) {
        for (int l = 0; l < 32; l++) {
            uint8_t q1 = U[j + l] & 0xF, q2 = U[j + l + 32] & 0xF, q3 = U[j + l + 64] & 0xF, q4 = U[j + l + 96] & 0xF;
            ql[l] = (uint8_t)(q1 | (q3 << 4));
            ql[l + 32] = (uint8_t)(q2 | (q4 << 4));
            qh[l] = (uint8_t)((U[j + l] >> 4) | ((U[j + l + 32] >> 4) << 2) | ((U[j + l + 64] >> 4) << 4) |
                              ((U[j + l + 96] >> 4) << 6));
        }
    }
}

static void q6_encode_block(const float *x, uint8_t *b) {
    int8_t L[QK];
    float scales[16];
    if (K->kq_qx) {
        K->kq_qx(x, 32, NULL, scales, L);
    } else {
        for (int j = 0; j < 16; j++) scales[j] = search_sym_scale(16, 32, x + 16 * j, L + 16 * j, NULL);
    }
    q6_finish(x, b, scales, L);
}

static void q6_encode_block_w(const float *x, uint8_t *b, const float *qw) {
    int8_t L[QK];
    float scales[16];
    if (K->kq_qx) K->kq_qx(x, 32, qw, scales, L);
    else
        for (int j = 0; j < 16; j++) scales[j] = search_sym_scale(16, 32, x + 16 * j, L + 16 * j, qw + 16 * j);
    q6_finish(x, b, scales, L);
}

static void q8_encode_block(const float *x, uint8_t *b) {
    float mx = 0, amax = 0;
    for (int j = 0; j < QK; j++) {
        float ax = fabsf(x[j]);
        if (ax > amax) { amax = ax; mx = x[j]; }
    }
    memset(b, 0, Q8_BYTES);
    if (!(amax != 0)) return;
    const float iscale = -127.f / mx;
    int8_t *qs = (int8_t *)(b + Q8_QS);
    for (int j = 0; j < QK; j++) qs[j] = (int8_t)imin(127, kq_nearest_int(iscale * x[j]));
    for (int j = 0; j < 16; j++) {
        int sum = 0;
        for (int i = 0; i < 16; i++) sum += qs[16 * j + i];
        st16(b + Q8_BSUMS + 2 * j, (uint16_t)(int16_t)sum);
    }
    float d = 1 / iscale;
    memcpy(b + Q8_D, &d, 4);
}

/* ---------------------------------------------------------------------------
 * Codec entry points.
 * ------------------------------------------------------------------------- */

#define ENC_FN(name, bytes, call)                                                \
    static void name(const float *x, void *y, int64_t nb) {                     \
        uint8_t *o = y;                                                          \
        float xb[QK];                                                            \
        uint8_t b[bytes];                                                        \
        for (int64_t i = 0; i < nb; i++) {                                       \
            memcpy(xb, x + i * QK, sizeof xb);                                   \
            call;                                                                \
            memcpy(o + i * (bytes), b, bytes);                                   \
        }                                                                        \
    }
ENC_FN(enc_q2_K, Q2_BYTES, q2_encode_block(xb, b))
ENC_FN(enc_q3_K_one, Q3_BYTES, q3_encode_block(xb, b))
/* q3_K: the scale searches of 8 blocks at once when the kernel has it */
static void enc_q3_K(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    int64_t i = 0;
    if (K->kq_q3x8)
        for (; i + 8 <= nb; i += 8) {
            int8_t L[8 * QK];
            float scales[128];
            K->kq_q3x8(x + i * QK, scales, L);
            for (int k = 0; k < 8; k++)
                q3_encode_rest(x + (i + k) * QK, o + (i + k) * Q3_BYTES, scales + 16 * k, L + QK * k);
        }
    enc_q3_K_one(x + i * QK, o + i * Q3_BYTES, nb - i);
}
ENC_FN(enc_q4_K, Q4_BYTES, k45_encode_block(xb, b, 15))
ENC_FN(enc_q5_K, Q5_BYTES, k45_encode_block(xb, b, 31))
ENC_FN(enc_q6_K, Q6_BYTES, q6_encode_block(xb, b))
ENC_FN(enc_q8_K_portable, Q8_BYTES, q8_encode_block(xb, b))
static void enc_q8_K(const float *x, void *y, int64_t nb) {
    if (K->act_q8_K) K->act_q8_K(x, y, nb);
    else enc_q8_K_portable(x, y, nb);
}

#define ENCW_FN(name, bytes, call)                                               \
    static void name(const float *x, void *y, int64_t n, const float *qw) {     \
        uint8_t *o = y;                                                          \
        float xb[QK], wb[QK];                                                    \
        uint8_t b[bytes];                                                        \
        for (int64_t i = 0; i < n / QK; i++) {                                   \
            memcpy(xb, x + i * QK, sizeof xb);                                   \
            memcpy(wb, qw + i * QK, sizeof wb);                                  \
            call;                                                                \
            memcpy(o + i * (bytes), b, bytes);                                   \
        }                                                                        \
    }
ENCW_FN(encw_q2_K, Q2_BYTES, q2_encode_block_w(xb, b, wb))
ENCW_FN(encw_q3_K, Q3_BYTES, q3_encode_block_w(xb, b, wb))
ENCW_FN(encw_q4_K, Q4_BYTES, k45_encode_block_w(xb, b, wb, 15))
ENCW_FN(encw_q5_K, Q5_BYTES, k45_encode_block_w(xb, b, wb, 31))
ENCW_FN(encw_q6_K, Q6_BYTES, q6_encode_block_w(xb, b, wb))

/* --- decoders (same operation order as ggml's dequantize_row_*) --- */

static void dec_q2_K(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    float out[QK];
    for (int64_t i = 0; i < nb; i++, p += Q2_BYTES, y += QK) {
        const float d = h2f(p + Q2_D), mn = h2f(p + Q2_DMIN);
        const uint8_t *q = p + Q2_QS, *sc = p + Q2_SCALES;
        float *o = out;
        for (int n = 0; n < QK; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int h = 0; h < 2; h++) {
                    uint8_t s = *sc++;
                    float dl = d * (float)(s & 0xF), ml = mn * (float)(s >> 4);
                    for (int l = 0; l < 16; l++) *o++ = dl * (float)((q[l + 16 * h] >> shift) & 3) - ml;
                }
            }
        }
        memcpy(y, out, sizeof out);
    }
}

static void dec_q3_K(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    float out[QK];
    for (int64_t i = 0; i < nb; i++, p += Q3_BYTES, y += QK) {
        const float d_all = h2f(p + Q3_D);
        const uint8_t *q = p + Q3_QS, *hm = p + Q3_HMASK, *s = p + Q3_SCALES;
        float *o = out;
        int is = 0;
        unsigned m = 1;
        for (int n = 0; n < QK; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int h = 0; h < 2; h++, is++) {
                    int sc = (is < 8 ? s[is] & 0xF : s[is - 8] >> 4) | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4);
                    float dl = d_all * (float)(sc - 32);
                    for (int l = 0; l < 16; l++) {
                        int v = ((q[l + 16 * h] >> shift) & 3) - ((hm[l + 16 * h] & m) ? 0 : 4);
                        *o++ = dl * (float)v;
                    }
                }
            }
        }
        memcpy(y, out, sizeof out);
    }
}

static void dec_k45(const void *x, float *y, int64_t nb, bool five) {
    const uint8_t *p = x;
    const size_t bytes = five ? Q5_BYTES : Q4_BYTES;
    float out[QK];
    for (int64_t i = 0; i < nb; i++, p += bytes, y += QK) {
        const float d = h2f(p + Q4_D), mn = h2f(p + Q4_DMIN);
        const uint8_t *q = p + (five ? Q5_QS : Q4_QS), *qh = p + Q5_QH;
        float *o = out;
        unsigned u1 = 1, u2 = 2;
        for (int j = 0, is = 0; j < QK; j += 64, q += 32, is += 2, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            k4_get(p + Q4_SCALES, is, &sc, &m);
            const float d1 = d * (float)sc, m1 = mn * (float)m;
            k4_get(p + Q4_SCALES, is + 1, &sc, &m);
            const float d2 = d * (float)sc, m2 = mn * (float)m;
            for (int l = 0; l < 32; l++) {
                int v = q[l] & 0xF;
                if (five && (qh[l] & u1)) v += 16;
                *o++ = d1 * (float)v - m1;
            }
            for (int l = 0; l < 32; l++) {
                int v = q[l] >> 4;
                if (five && (qh[l] & u2)) v += 16;
                *o++ = d2 * (float)v - m2;
            }
        }
        memcpy(y, out, sizeof out);
    }
}
static void dec_q4_K(const void *x, float *y, int64_t nb) {
    if (K->dec_q4_K) K->dec_q4_K(x, y, nb);
    else dec_k45(x, y, nb, false);
}
static void dec_q5_K(const void *x, float *y, int64_t nb) {
    if (K->dec_q5_K) K->dec_q5_K(x, y, nb);
    else dec_k45(x, y, nb, true);
}

static void dec_q6_K(const void *x, float *y, int64_t nb) {
    if (K->dec_q6_K) { K->dec_q6_K(x, y, nb); return; }
    const uint8_t *p = x;
    float out[QK];
    for (int64_t i = 0; i < nb; i++, p += Q6_BYTES, y += QK) {
        const float d = h2f(p + Q6_D);
        const uint8_t *ql = p + Q6_QL, *qh = p + Q6_QH;
        const int8_t *sc = (const int8_t *)(p + Q6_SCALES);
        float *o = out;
        for (int n = 0; n < QK; n += 128, o += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                int is = l / 16;
                int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                o[l] = d * (float)sc[is] * (float)q1;
                o[l + 32] = d * (float)sc[is + 2] * (float)q2;
                o[l + 64] = d * (float)sc[is + 4] * (float)q3;
                o[l + 96] = d * (float)sc[is + 6] * (float)q4;
            }
        }
        memcpy(y, out, sizeof out);
    }
}

/* ggml has no to_float for q8_K in some builds; decoding is d * q as in its
 * dequantize_row_q8_K (d is a plain f32 here, not an f16). */
static void dec_q8_K(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    float out[QK];
    for (int64_t i = 0; i < nb; i++, p += Q8_BYTES, y += QK) {
        float d;
        memcpy(&d, p + Q8_D, 4);
        const int8_t *qs = (const int8_t *)(p + Q8_QS);
        for (int j = 0; j < QK; j++) out[j] = d * (float)qs[j];
        memcpy(y, out, sizeof out);
    }
}

void mio_codec_register_kquants(mio_codec *t, const mio_kernels *k) {
    K = k;
    t[MIO_TYPE_Q2_K] = (mio_codec){enc_q2_K, encw_q2_K, dec_q2_K, NULL, true};
    t[MIO_TYPE_Q3_K] = (mio_codec){enc_q3_K, encw_q3_K, dec_q3_K, NULL, true};
    t[MIO_TYPE_Q4_K] = (mio_codec){enc_q4_K, encw_q4_K, dec_q4_K, NULL, true};
    t[MIO_TYPE_Q5_K] = (mio_codec){enc_q5_K, encw_q5_K, dec_q5_K, NULL, true};
    t[MIO_TYPE_Q6_K] = (mio_codec){enc_q6_K, encw_q6_K, dec_q6_K, NULL, true};
    /* ggml_quantize_chunk has no q8_K case: the plain encoder follows
     * quantize_row_q8_K_ref; there is no importance-weighted variant. */
    t[MIO_TYPE_Q8_K] = (mio_codec){enc_q8_K, NULL, dec_q8_K, NULL, true};
}
