/* SPDX-License-Identifier: MIT */
/* legacy.c — codecs for the 32-element block types q4_0 q4_1 q5_0 q5_1 q8_0 q8_1:
 * plain encoders byte-exact with ggml's reference quantizers (written as fixed
 * 32-lane loops the compiler vectorizes), importance-weighted encoders byte-exact
 * with ggml's quantize_<type>(..., imatrix), and decoders bit-exact with to_float.
 * the q4/q5 plain encoders and q8_0's decoder have SIMD versions in the kernel table
 * (kernels/kernels.h); a NULL entry runs the portable code. */
#include "codec.h"
#include "core/half.h"
#include "kernels/kernels.h"
#include "kernels/legacy_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { QK = 32 };

/* ------------------------------------------------------------------------- */
/* Plain encoders (ggml's quantize_row_<type>_ref)                             */
/* ------------------------------------------------------------------------- */
/* Every block is done with fixed 32-lane loops the compiler vectorizes; the
 * per-block arithmetic is ggml's, in ggml's order.
 * Non-finite scales: when a block's range is so small that 1/d overflows (or,
 * for q4_1/q5_1, so large that max - min overflows), every product in ggml is
 * inf or NaN and x86's truncating conversion turns it into 0x80000000, whose low
 * byte ggml stores: every code of such a block is 0. We write that directly. */

enum { LANES = 4 };

static const mio_kernels *K; /* the dispatch's kernels (kernels/kernels.h) */

/* Value-wise minimum and maximum of a block, kept in LANES independent lanes
 * (elementwise selects the compiler turns into vector min/max), then folded.
 * Exact for finite input except for the sign of a zero extreme. */
static inline void lane_range(const float *v, float *mn, float *mx) {
    float lo[LANES], hi[LANES];
    for (int l = 0; l < LANES; l++) lo[l] = hi[l] = v[l];
    for (int k = 1; k < QK / LANES; k++)
        for (int l = 0; l < LANES; l++) {
            const float t = v[k * LANES + l];
            lo[l] = t < lo[l] ? t : lo[l];
            hi[l] = t > hi[l] ? t : hi[l];
        }
    float a = lo[0], b = hi[0];
    for (int l = 1; l < LANES; l++) {
        a = lo[l] < a ? lo[l] : a;
        b = hi[l] > b ? hi[l] : b;
    }
    *mn = a;
    *mx = b;
}

/* ggml's "if (amax < fabsf(v)) { amax = fabsf(v); max = v; }": the first element
 * of largest magnitude, 0.0f for an all-zero block. */
static inline float first_absmax(const float *v) {
    float lo, hi;
    lane_range(v, &lo, &hi);
    if (hi > -lo) return hi;
    if (-lo > hi) return lo;
    if (hi == 0.0f) return 0.0f;
    float amax = 0.0f, max = 0.0f; /* +a and -a both present: the first one wins */
    for (int j = 0; j < QK; j++)
        if (amax < fabsf(v[j])) { amax = fabsf(v[j]); max = v[j]; }
    return max;
}

/* ggml's sequential "if (v < min) min = v; if (v > max) max = v;" from
 * FLT_MAX / -FLT_MAX: value-wise the extremes; when one is a zero, its sign is
 * that of the first zero seen, so that case is redone in ggml's order. */
static inline void block_min_max(const float *v, float *mn, float *mx) {
    lane_range(v, mn, mx);
    if (*mn == 0.0f || *mx == 0.0f) {
        float lo = 3.40282347e38f, hi = -3.40282347e38f;
        for (int j = 0; j < QK; j++) {
            if (v[j] < lo) lo = v[j];
            if (v[j] > hi) hi = v[j];
        }
        *mn = lo;
        *mx = hi;
    }
}

/* Largest magnitude of a block (order-free). */
static inline float block_absmax(const float *v) {
    float m[LANES];
    for (int l = 0; l < LANES; l++) m[l] = fabsf(v[l]);
    for (int k = 1; k < QK / LANES; k++)
        for (int l = 0; l < LANES; l++) {
            const float t = fabsf(v[k * LANES + l]);
            m[l] = t > m[l] ? t : m[l];
        }
    float a = m[0];
    for (int l = 1; l < LANES; l++) a = m[l] > a ? m[l] : a;
    return a;
}

/* Pack 32 nibble codes: byte j holds code j (low) and code j+16 (high). */
static inline void pack4(uint8_t *qs, const uint8_t *q) {
    for (int j = 0; j < QK / 2; j++) qs[j] = (uint8_t)((q[j] & 0x0f) | ((q[j + QK / 2] & 0x0f) << 4));
}

/* Bit 4 of each of the 32 codes, code j at bit j, little-endian into qh[4]:
 * eight codes at a time, their bits gathered into one byte by a multiply. */
static inline void pack_high(uint8_t *qh, const uint8_t *q) {
    uint32_t h = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t b;
        memcpy(&b, q + 8 * k, 8);
        b = (b >> 4) & 0x0101010101010101ull;
        h |= (uint32_t)((b * 0x0102040810204080ull) >> 56) << (8 * k);
    }
    st32(qh, h);
}

/* q4_0: 18 bytes = f16 d, 16 bytes of nibbles; d = (first abs-max element) / -8,
 * code = min(15, trunc(x / d + 8.5)). */
static void enc_q4_0_scalar(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += QK, o += 18) {
        float v[QK];
        uint8_t q[QK];
        memcpy(v, x, sizeof v);
        const float d = first_absmax(v) / -8.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        st16(o, half_from_f32(d));
        if (lg_finite_scale(d, id))
            for (int j = 0; j < QK; j++) {
                /* trunc(x/d + 8.5) is in 0..16 here: c - (c >> 4) is ggml's min(15, c) */
                const int32_t c = (int32_t)(v[j] * id + 8.5f);
                q[j] = (uint8_t)(c - (c >> 4));
            }
        else memset(q, 0, QK);
        pack4(o + 2, q);
    }
}

/* q4_1: 20 bytes = f16 d, f16 m (block min), nibbles of trunc((x - min) / d + 0.5). */
static void enc_q4_1_scalar(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += QK, o += 20) {
        float v[QK], mn, mx;
        uint8_t q[QK];
        memcpy(v, x, sizeof v);
        block_min_max(v, &mn, &mx);
        const float d = (mx - mn) / 15.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        st16(o, half_from_f32(d));
        st16(o + 2, half_from_f32(mn));
        if (lg_finite_scale(d, id))
            for (int j = 0; j < QK; j++) {
                /* (x - min) / d + 0.5 < 15.5 + tiny, so ggml's min(15, .) never bites */
                q[j] = (uint8_t)(int32_t)((v[j] - mn) * id + 0.5f);
            }
        else memset(q, 0, QK);
        pack4(o + 4, q);
    }
}

/* q5_0: 22 bytes = f16 d, 4 bytes of fifth bits, nibbles; d = (first abs-max) / -16. */
static void enc_q5_0_scalar(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += QK, o += 22) {
        float v[QK];
        uint8_t q[QK];
        memcpy(v, x, sizeof v);
        const float d = first_absmax(v) / -16.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        st16(o, half_from_f32(d));
        if (lg_finite_scale(d, id))
            for (int j = 0; j < QK; j++) {
                const int32_t c = (int32_t)(v[j] * id + 16.5f); /* 0..32: c - (c >> 5) = min(31, c) */
                q[j] = (uint8_t)(c - (c >> 5));
            }
        else memset(q, 0, QK);
        pack_high(o + 2, q);
        pack4(o + 6, q);
    }
}

/* q5_1: 24 bytes = f16 d, f16 m, fifth bits, nibbles (no clamp, like ggml). */
static void enc_q5_1_scalar(const float *x, void *y, int64_t nb) {
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += QK, o += 24) {
        float v[QK], mn, mx;
        uint8_t q[QK];
        memcpy(v, x, sizeof v);
        block_min_max(v, &mn, &mx);
        const float d = (mx - mn) / 31.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        st16(o, half_from_f32(d));
        st16(o + 2, half_from_f32(mn));
        if (lg_finite_scale(d, id))
            for (int j = 0; j < QK; j++) q[j] = (uint8_t)(int32_t)((v[j] - mn) * id + 0.5f);
        else memset(q, 0, QK);
        pack_high(o + 4, q);
        pack4(o + 8, q);
    }
}

/* The kernels stop before a block they leave to the scalar encoder, done here. */
typedef int64_t (*enc_kern)(const float *x, uint8_t *y, int64_t nb);
static inline void enc_run(enc_kern kern, void (*scalar)(const float *, void *, int64_t), size_t bytes, const float *x,
                           void *y, int64_t nb) {
    if (!kern) { scalar(x, y, nb); return; }
    uint8_t *o = y;
    while (nb > 0) {
        const int64_t done = kern(x, o, nb);
        x += QK * done, o += bytes * (size_t)done, nb -= done;
        if (nb > 0) { scalar(x, o, 1); x += QK, o += bytes, nb--; }
    }
}

static void enc_q4_0(const float *x, void *y, int64_t nb) { enc_run(K->enc_q4_0, enc_q4_0_scalar, 18, x, y, nb); }
static void enc_q4_1(const float *x, void *y, int64_t nb) { enc_run(K->enc_q4_1, enc_q4_1_scalar, 20, x, y, nb); }
static void enc_q5_0(const float *x, void *y, int64_t nb) { enc_run(K->enc_q5_0, enc_q5_0_scalar, 22, x, y, nb); }
static void enc_q5_1(const float *x, void *y, int64_t nb) { enc_run(K->enc_q5_1, enc_q5_1_scalar, 24, x, y, nb); }

/* Shared by q8_0 / q8_1: d = amax / 127 and the 32 codes roundf(x / d) (half
 * away from zero: truncate, then step by the exact fractional part); returns d. */
static inline float q8_block(const float *x, int8_t *q) {
    float v[QK];
    memcpy(v, x, sizeof v);
    const float d = block_absmax(v) / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    if (lg_finite_scale(d, id))
        for (int j = 0; j < QK; j++) {
            const float t = v[j] * id;
            int32_t i = (int32_t)t;
            const float f = t - (float)i;
            i += (f >= 0.5f) - (f <= -0.5f);
            q[j] = (int8_t)i;
        }
    else memset(q, 0, QK);
    return d;
}

/* q8_0: 34 bytes = f16 d, 32 int8 codes. */
static void enc_q8_0(const float *x, void *y, int64_t nb) {
    if (K->act_q8_0) { K->act_q8_0(x, y, nb); return; }
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += QK, o += 34) {
        int8_t q[QK];
        const float d = q8_block(x, q);
        st16(o, half_from_f32(d));
        memcpy(o + 2, q, QK);
    }
}

/* q8_1: 36 bytes = f16 d, f16 s = (sum of codes) * d, 32 int8 codes. */
static void enc_q8_1(const float *x, void *y, int64_t nb) {
    if (K->act_q8_1) { K->act_q8_1(x, y, nb); return; }
    uint8_t *o = y;
    for (int64_t b = 0; b < nb; b++, x += QK, o += 36) {
        int8_t q[QK];
        const float d = q8_block(x, q);
        int sum = 0;
        for (int j = 0; j < QK; j++) sum += q[j];
        st16(o, half_from_f32(d));
        st16(o + 2, half_from_f32((float)sum * d));
        memcpy(o + 4, q, QK);
    }
}

/* ------------------------------------------------------------------------- */
/* Importance-weighted encoders (ggml's quantize_<type>(..., imatrix))         */
/* Scalar on purpose: every sum below is accumulated in ggml's order.          */
/* ------------------------------------------------------------------------- */

/* ggml's nearest_int: round half to even through the 1.5 * 2^23 trick. */
static inline int round_magic(float f) {
    float t = f + 12582912.0f;
    int32_t i;
    memcpy(&i, &t, 4);
    return (i & 0x007fffff) - 0x00400000;
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Symmetric weighted fit (ggml's make_qx_quants with weights, rmse_type 1):
 * codes L[i] in [0, 2*nmax), scale returned. Tries the plain scale and 18
 * perturbed ones, keeping the best weighted least-squares fit. */
static float fit_symmetric(const float *x, const float *w, int nmax, uint8_t *L) {
    float amax = 0.0f, max = 0.0f;
    for (int i = 0; i < QK; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) { amax = ax; max = x[i]; }
    }
    if (amax < 1e-15f) {
        memset(L, 0, QK);
        return 0.0f;
    }
    float iscale = (float)-nmax / max;
    float sumlx = 0.0f, suml2 = 0.0f;
    for (int i = 0; i < QK; i++) {
        int l = clampi(round_magic(iscale * x[i]), -nmax, nmax - 1);
        L[i] = (uint8_t)(l + nmax);
        sumlx += w[i] * x[i] * (float)l;
        suml2 += w[i] * (float)l * (float)l;
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; is++) {
        if (is == 0) continue;
        iscale = -((float)nmax + 0.1f * (float)is) / max;
        sumlx = suml2 = 0.0f;
        for (int i = 0; i < QK; i++) {
            int l = clampi(round_magic(iscale * x[i]), -nmax, nmax - 1);
            sumlx += w[i] * x[i] * (float)l;
            suml2 += w[i] * (float)l * (float)l;
        }
        if (suml2 > 0.0f && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < QK; i++) L[i] = (uint8_t)(clampi(round_magic(iscale * x[i]), -nmax, nmax - 1) + nmax);
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

/* Affine weighted fit (ggml's make_qkx3_quants with weights, rmin -0.9,
 * rdelta 0.05, 36 steps, squared error): codes in [0, nmax], returns the
 * scale and stores the offset to subtract (-min) in *neg_min. */
static float fit_affine(const float *x, const float *w, int nmax, uint8_t *L, float *neg_min) {
    const float rmin = -0.9f, rdelta = 0.05f;
    const int nstep = 36;
    uint8_t Laux[QK];
    float min = x[0], max = x[0];
    float sum_w = w[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < QK; i++) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0.0f) min = 0.0f;
    if (max <= min) {
        memset(L, 0, QK);
        *neg_min = -min;
        return 0.0f;
    }
    float iscale = (float)nmax / (max - min);
    float scale = 1.0f / iscale;
    float best = 0.0f;
    for (int i = 0; i < QK; i++) {
        int l = clampi(round_magic(iscale * (x[i] - min)), 0, nmax);
        L[i] = (uint8_t)l;
        float diff = scale * (float)l + min - x[i];
        best += w[i] * (diff * diff);
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (max - min);
        float sum_l = 0.0f, sum_l2 = 0.0f, sum_xl = 0.0f;
        for (int i = 0; i < QK; i++) {
            int l = clampi(round_magic(iscale * (x[i] - min)), 0, nmax);
            Laux[i] = (uint8_t)l;
            sum_l += w[i] * (float)l;
            sum_l2 += w[i] * (float)l * (float)l;
            sum_xl += w[i] * (float)l * x[i];
        }
        float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0.0f) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0.0f) {
                this_min = 0.0f;
                this_scale = sum_xl / sum_l2;
            }
            float err = 0.0f;
            for (int i = 0; i < QK; i++) {
                float diff = this_scale * (float)Laux[i] + this_min - x[i];
                err += w[i] * (diff * diff);
            }
            if (err < best) {
                memcpy(L, Laux, QK);
                best = err;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *neg_min = -min;
    return scale;
}

/* Per-element weights of one block: qw * sqrt(sigma2 + x^2), where sigma2 is
 * the mean square of the whole row. */
static inline void block_weights(const float *x, const float *qw, float sigma2, float *w) {
    for (int j = 0; j < QK; j++) w[j] = qw[j] * sqrtf(sigma2 + x[j] * x[j]);
}

static float row_sigma2(const float *x, int64_t n) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; j++) s += x[j] * x[j];
    return s / (float)n;
}

/* Weighted q4_0 / q5_0 (nmax 8 / 16) and q4_1 / q5_1 (nmax 15 / 31). Groups
 * of 8 or 16 blocks go to the kernels (one block per lane, each lane the fit
 * above exactly), the rest one by one. */
static void put_sym(uint8_t *o, float d, const uint8_t *L, int nmax) {
    st16(o, half_from_f32(d));
    if (nmax == 8) pack4(o + 2, L);
    else { pack_high(o + 2, L); pack4(o + 6, L); }
}

static void encw_sym(const float *x, uint8_t *o, int64_t n, const float *qw, int nmax, size_t bytes) {
    const float sigma2 = row_sigma2(x, n);
    int64_t b = 0;
    const int g = K->lg_fit_sym ? K->lg_sym_blocks : 0;
    if (g == 8 || g == 16)
        for (; b + g <= n / QK; b += g, x += g * QK, qw += g * QK, o += (size_t)g * bytes) {
            float w[16 * QK], d[16];
            int8_t L[16 * QK];
            for (int k = 0; k < g; k++) block_weights(x + QK * k, qw + QK * k, sigma2, w + QK * k);
            K->lg_fit_sym(x, w, nmax, d, L);
            for (int k = 0; k < g; k++) put_sym(o + bytes * (size_t)k, d[k], (const uint8_t *)L + QK * k, nmax);
        }
    for (; b < n / QK; b++, x += QK, qw += QK, o += bytes) {
        float w[QK];
        uint8_t L[QK];
        block_weights(x, qw, sigma2, w);
        put_sym(o, fit_symmetric(x, w, nmax, L), L, nmax);
    }
}

static void put_affine(uint8_t *o, float d, float neg_min, const uint8_t *L, int nmax) {
    st16(o, half_from_f32(d));
    st16(o + 2, half_from_f32(-neg_min));
    if (nmax == 15) pack4(o + 4, L);
    else { pack_high(o + 4, L); pack4(o + 8, L); }
}

static void encw_affine(const float *x, uint8_t *o, int64_t n, const float *qw, int nmax, size_t bytes) {
    const float sigma2 = row_sigma2(x, n);
    int64_t b = 0;
    if (K->kq_qkx3)
        for (; b + 8 <= n / QK; b += 8, x += 8 * QK, qw += 8 * QK, o += 8 * bytes) {
            float w[8 * QK], d[8], neg_min[8];
            uint8_t L[8 * QK];
            for (int k = 0; k < 8; k++) block_weights(x + QK * k, qw + QK * k, sigma2, w + QK * k);
            K->kq_qkx3(x, QK, nmax, w, d, neg_min, L);
            for (int k = 0; k < 8; k++) put_affine(o + bytes * (size_t)k, d[k], neg_min[k], L + QK * k, nmax);
        }
    for (; b < n / QK; b++, x += QK, qw += QK, o += bytes) {
        float w[QK], neg_min;
        uint8_t L[QK];
        block_weights(x, qw, sigma2, w);
        float d = fit_affine(x, w, nmax, L, &neg_min);
        put_affine(o, d, neg_min, L, nmax);
    }
}

static void encw_q4_0(const float *x, void *y, int64_t n, const float *qw) { encw_sym(x, y, n, qw, 8, 18); }
static void encw_q5_0(const float *x, void *y, int64_t n, const float *qw) { encw_sym(x, y, n, qw, 16, 22); }
static void encw_q4_1(const float *x, void *y, int64_t n, const float *qw) { encw_affine(x, y, n, qw, 15, 20); }
static void encw_q5_1(const float *x, void *y, int64_t n, const float *qw) { encw_affine(x, y, n, qw, 31, 24); }
/* ggml's quantize_q8_0 ignores the importance matrix. */
static void encw_q8_0(const float *x, void *y, int64_t n, const float *qw) { (void)qw; enc_q8_0(x, y, n / QK); }

/* ------------------------------------------------------------------------- */
/* Decoders (ggml's dequantize_row_<type>)                                     */
/* ------------------------------------------------------------------------- */

static void dec_q4_0(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 18, y += QK) {
        const float d = half_to_f32(ld16(p));
        float r[QK];
        for (int j = 0; j < QK / 2; j++) {
            r[j] = (float)((p[2 + j] & 0x0f) - 8) * d;
            r[j + QK / 2] = (float)((p[2 + j] >> 4) - 8) * d;
        }
        memcpy(y, r, sizeof r);
    }
}

static void dec_q4_1(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 20, y += QK) {
        const float d = half_to_f32(ld16(p));
        const float m = half_to_f32(ld16(p + 2));
        float r[QK];
        for (int j = 0; j < QK / 2; j++) {
            r[j] = (float)(p[4 + j] & 0x0f) * d + m;
            r[j + QK / 2] = (float)(p[4 + j] >> 4) * d + m;
        }
        memcpy(y, r, sizeof r);
    }
}

/* The 5-bit codes of a q5 block: nibble | fifth bit. The 32 fifth bits are
 * spread to one 0x10-or-0 byte each, eight at a time (SWAR), so the rest is
 * plain byte arithmetic the compiler vectorizes. */
static inline void q5_codes(const uint8_t *qh, const uint8_t *qs, uint8_t *c) {
    uint8_t hb[QK];
    for (int k = 0; k < 4; k++) {
        const uint64_t e = ((uint64_t)qh[k] * 0x0101010101010101ull) & 0x8040201008040201ull; /* byte i: bit i or 0 */
        const uint64_t f = (((e & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | e) & 0x8080808080808080ull;
        const uint64_t h = f >> 3; /* 0x10 where the bit was set */
        memcpy(hb + 8 * k, &h, 8);
    }
    for (int j = 0; j < QK / 2; j++) {
        c[j] = (uint8_t)((qs[j] & 0x0f) | hb[j]);
        c[j + QK / 2] = (uint8_t)((qs[j] >> 4) | hb[j + QK / 2]);
    }
}

static void dec_q5_0(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 22, y += QK) {
        const float d = half_to_f32(ld16(p));
        uint8_t c[QK];
        float r[QK];
        q5_codes(p + 2, p + 6, c);
        for (int j = 0; j < QK; j++) r[j] = (float)((int)c[j] - 16) * d;
        memcpy(y, r, sizeof r);
    }
}

static void dec_q5_1(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 24, y += QK) {
        const float d = half_to_f32(ld16(p));
        const float m = half_to_f32(ld16(p + 2));
        uint8_t c[QK];
        float r[QK];
        q5_codes(p + 4, p + 8, c);
        for (int j = 0; j < QK; j++) r[j] = (float)c[j] * d + m;
        memcpy(y, r, sizeof r);
    }
}

static inline void dec_q8_block(const uint8_t *qs, float d, float *y) {
    float r[QK];
    for (int j = 0; j < QK; j++) r[j] = (float)(int8_t)qs[j] * d;
    memcpy(y, r, sizeof r);
}

static void dec_q8_0(const void *x, float *y, int64_t nb) {
    if (K->dec_q8_0) { K->dec_q8_0(x, y, nb); return; }
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 34, y += QK) dec_q8_block(p + 2, half_to_f32(ld16(p)), y);
}

/* q8_1: ggml has no to_float for this type (it only serves as the activation
 * format of dot products). We decode it as d * q, the same formula as q8_0;
 * the s field (sum of codes times d) is redundant and ignored. */
static void dec_q8_1(const void *x, float *y, int64_t nb) {
    const uint8_t *p = x;
    for (int64_t b = 0; b < nb; b++, p += 36, y += QK) dec_q8_block(p + 4, half_to_f32(ld16(p)), y);
}

void mio_codec_register_legacy(mio_codec *t, const mio_kernels *k) {
    K = k;
    t[MIO_TYPE_Q4_0] = (mio_codec){enc_q4_0, encw_q4_0, dec_q4_0, NULL, true};
    t[MIO_TYPE_Q4_1] = (mio_codec){enc_q4_1, encw_q4_1, dec_q4_1, NULL, true};
    t[MIO_TYPE_Q5_0] = (mio_codec){enc_q5_0, encw_q5_0, dec_q5_0, NULL, true};
    t[MIO_TYPE_Q5_1] = (mio_codec){enc_q5_1, encw_q5_1, dec_q5_1, NULL, true};
    t[MIO_TYPE_Q8_0] = (mio_codec){enc_q8_0, encw_q8_0, dec_q8_0, NULL, true};
    /* ggml_quantize_chunk refuses q8_1 (with or without imatrix): no weighted encoder. */
    t[MIO_TYPE_Q8_1] = (mio_codec){enc_q8_1, NULL, dec_q8_1, NULL, true};
}
