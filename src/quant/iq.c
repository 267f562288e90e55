/* SPDX-License-Identifier: MIT */
/* iq.c — codecs for the importance-quant family: iq2_xxs iq2_xs iq2_s iq3_xxs
 * iq3_s iq1_s iq1_m iq4_nl iq4_xs. Decoders for all (bit-exact with ggml; SIMD
 * versions from the kernel table, kernels/kernels.h); encoders byte-exact with ggml's
 * reference quantizers, using lattice search structures (grid, code->entry map,
 * neighbour lists) built once per grid. The hot searches (neighbour distances,
 * all trial scales of an iq2/iq3 sub-block, iq1_m's split scan) have SIMD versions in the kernel table (kernels/kernels.h: a NULL entry runs the scalar code here). */
#include "codec.h"
#include "core/half.h"
#include "kernels/kernels.h"
#include "iq_tables.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SUPER 256 /* elements per super-block (ggml's QK_K) */

/* ------------------------------------------------------------------------- */
/* Expanded decode tables (filled once from the packed ones at registration)  */
/* ------------------------------------------------------------------------- */
static uint8_t dg2xxs[256][8], dg2xs[512][8], dg2s[1024][8];
static uint8_t dg3xxs[256][4], dg3s[512][4];
static int8_t dg1[2048][8];
static float delta1;
static const mio_kernels *K; /* the dispatch's kernels (kernels/kernels.h) */

static void expand_tables(void) {
    for (int e = 0; e < 256; e++)
        for (int j = 0; j < 8; j++) dg2xxs[e][j] = mio_iq_lv2[(mio_iq_grid2_256[e] >> (2 * j)) & 3];
    for (int e = 0; e < 512; e++)
        for (int j = 0; j < 8; j++) dg2xs[e][j] = mio_iq_lv2[(mio_iq_grid2_512[e] >> (2 * j)) & 3];
    for (int e = 0; e < 1024; e++)
        for (int j = 0; j < 8; j++) dg2s[e][j] = mio_iq_lv2[(mio_iq_grid2_1024[e] >> (2 * j)) & 3];
    for (int e = 0; e < 256; e++)
        for (int j = 0; j < 4; j++) dg3xxs[e][j] = mio_iq_lv3xxs[(mio_iq_grid3_256[e] >> (3 * j)) & 7];
    for (int e = 0; e < 512; e++)
        for (int j = 0; j < 4; j++) dg3s[e][j] = mio_iq_lv3s[(mio_iq_grid3_512[e] >> (3 * j)) & 7];
    for (int e = 0; e < 2048; e++)
        for (int j = 0; j < 8; j++) dg1[e][j] = (int8_t)((int)((mio_iq_grid1_2048[e] >> (2 * j)) & 3) - 1);
    memcpy(&delta1, &mio_iq_delta1_bits, 4);
}

static inline float half(const uint8_t *p) { return half_to_f32(ld16(p)); }
/* Apply a sign bit. ggml writes x * (bit ? -1.f : 1.f), which its optimizing
 * compiler turns into a sign flip; flipping explicitly gives those exact bits
 * (NaN payload signs included) at every optimization level of our build. */
static inline float neg_if(float v, unsigned bits, int j) { return (bits >> j) & 1 ? -v : v; }

/* ------------------------------------------------------------------------- */
/* Decoders                                                                   */
/* ------------------------------------------------------------------------- */
static void dec_iq2_xxs(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq2_xxs) { K->dec_iq2_xxs(vx, y, nb, (const uint8_t(*)[8])dg2xxs, mio_iq_sign8); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 66) {
        const float d = half(b);
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t *q = b + 2 + 8 * ib;
            uint32_t hi = ld32(q + 4);
            const float db = d * (0.5f + (float)(hi >> 28)) * 0.25f;
            for (int l = 0; l < 4; l++) {
                const uint8_t *g = dg2xxs[q[l]];
                unsigned s = mio_iq_sign8[(hi >> (7 * l)) & 127];
                for (int j = 0; j < 8; j++) stf32(y + j, neg_if(db * (float)g[j], s, j));
                y += 8;
            }
        }
    }
}

static void dec_iq2_xs(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq2_xs) { K->dec_iq2_xs(vx, y, nb, (const uint8_t(*)[8])dg2xs, mio_iq_sign8); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 74) {
        const float d = half(b);
        for (int ib = 0; ib < 8; ib++) {
            uint8_t sc = b[66 + ib];
            float db[2] = {d * (0.5f + (float)(sc & 15)) * 0.25f, d * (0.5f + (float)(sc >> 4)) * 0.25f};
            for (int l = 0; l < 4; l++) {
                uint16_t v = ld16(b + 2 + 2 * (4 * ib + l));
                const uint8_t *g = dg2xs[v & 511];
                unsigned s = mio_iq_sign8[v >> 9];
                for (int j = 0; j < 8; j++) stf32(y + j, neg_if(db[l / 2] * (float)g[j], s, j));
                y += 8;
            }
        }
    }
}

static void dec_iq2_s(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq2_s) { K->dec_iq2_s(vx, y, nb, (const uint8_t(*)[8])dg2s); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 82) {
        const float d = half(b);
        const uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66, *sc = b + 74;
        for (int ib = 0; ib < 8; ib++) {
            float db[2] = {d * (0.5f + (float)(sc[ib] & 15)) * 0.25f, d * (0.5f + (float)(sc[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; l++) {
                const uint8_t *g = dg2s[qs[4 * ib + l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 0x300)];
                unsigned s = signs[4 * ib + l];
                for (int j = 0; j < 8; j++) stf32(y + j, neg_if(db[l / 2] * (float)g[j], s, j));
                y += 8;
            }
        }
    }
}

static void dec_iq3_xxs(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq3_xxs) { K->dec_iq3_xxs(vx, y, nb, (const uint8_t(*)[4])dg3xxs, mio_iq_sign8); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 98) {
        const float d = half(b);
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < 8; ib++) {
            uint32_t aux = ld32(b + 66 + 4 * ib);
            const float db = d * (0.5f + (float)(aux >> 28)) * 0.5f;
            for (int l = 0; l < 4; l++) {
                unsigned s = mio_iq_sign8[(aux >> (7 * l)) & 127];
                const uint8_t *g1 = dg3xxs[qs[2 * l]], *g2 = dg3xxs[qs[2 * l + 1]];
                for (int j = 0; j < 4; j++) {
                    stf32(y + j, neg_if(db * (float)g1[j], s, j));
                    stf32(y + j + 4, neg_if(db * (float)g2[j], s, j + 4));
                }
                y += 8;
            }
            qs += 8;
        }
    }
}

static void dec_iq3_s(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq3_s) { K->dec_iq3_s(vx, y, nb, (const uint8_t(*)[4])dg3s); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 110) {
        const float d = half(b);
        const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *sc = b + 106;
        for (int ib = 0; ib < 8; ib++) {
            const float db = d * (float)(1 + 2 * ((sc[ib / 2] >> (4 * (ib % 2))) & 15));
            for (int l = 0; l < 4; l++) {
                const uint8_t *g1 = dg3s[qs[2 * l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 256)];
                const uint8_t *g2 = dg3s[qs[2 * l + 1] | (((unsigned)qh[ib] << (7 - 2 * l)) & 256)];
                for (int j = 0; j < 4; j++) {
                    stf32(y + j, neg_if(db * (float)g1[j], signs[l], j));
                    stf32(y + j + 4, neg_if(db * (float)g2[j], signs[l], j + 4));
                }
                y += 8;
            }
            qs += 8;
            signs += 4;
        }
    }
}

static void dec_iq1_s(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq1_s) { K->dec_iq1_s(vx, y, nb, (const int8_t(*)[8])dg1, delta1); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 50) {
        const float d = half(b);
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < 8; ib++) {
            uint16_t h = ld16(b + 34 + 2 * ib);
            const float dl = d * (float)(2 * ((h >> 12) & 7) + 1);
            const float delta = h & 0x8000 ? -delta1 : delta1;
            for (int l = 0; l < 4; l++) {
                const int8_t *g = dg1[qs[l] | (((h >> (3 * l)) & 7) << 8)];
                for (int j = 0; j < 8; j++) stf32(y + j, dl * ((float)g[j] + delta));
                y += 8;
            }
            qs += 4;
        }
    }
}

static void dec_iq1_m(const void *vx, float *y, int64_t nb) {
    if (K->dec_iq1_m) { K->dec_iq1_m(vx, y, nb, (const int8_t(*)[8])dg1, delta1); return; }
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 56) {
        const uint8_t *qs = b, *qh = b + 32;
        uint16_t sc[4];
        for (int k = 0; k < 4; k++) sc[k] = ld16(b + 48 + 2 * k);
        uint16_t dbits = (uint16_t)((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
        const float d = half_to_f32(dbits);
        for (int ib = 0; ib < 8; ib++) {
            const float dl1 = d * (float)(2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1);
            const float dl2 = d * (float)(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1);
            unsigned idx[4] = {qs[0] | ((qh[0] << 8) & 0x700u), qs[1] | ((qh[0] << 4) & 0x700u),
                               qs[2] | ((qh[1] << 8) & 0x700u), qs[3] | ((qh[1] << 4) & 0x700u)};
            float dt[4] = {qh[0] & 0x08 ? -delta1 : delta1, qh[0] & 0x80 ? -delta1 : delta1,
                           qh[1] & 0x08 ? -delta1 : delta1, qh[1] & 0x80 ? -delta1 : delta1};
            for (int l = 0; l < 4; l++) {
                const int8_t *g = dg1[idx[l]];
                const float dl = l < 2 ? dl1 : dl2;
                for (int j = 0; j < 8; j++) stf32(y + j, dl * ((float)g[j] + dt[l]));
                y += 8;
            }
            qs += 4;
            qh += 2;
        }
    }
}

static void dec_iq4_nl(const void *vx, float *y, int64_t nb) {
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 18, y += 32) {
        const float d = half(b);
        for (int j = 0; j < 16; j++) {
            stf32(y + j, d * (float)mio_iq_nl4[b[2 + j] & 15]);
            stf32(y + j + 16, d * (float)mio_iq_nl4[b[2 + j] >> 4]);
        }
    }
}

static void dec_iq4_xs(const void *vx, float *y, int64_t nb) {
    const uint8_t *b = vx;
    for (int64_t i = 0; i < nb; i++, b += 136) {
        const float d = half(b);
        const uint16_t sh = ld16(b + 2);
        const uint8_t *qs = b + 8;
        for (int ib = 0; ib < 8; ib++) {
            int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 15) | (((sh >> (2 * ib)) & 3) << 4);
            const float dl = d * (float)(ls - 32);
            for (int j = 0; j < 16; j++) {
                stf32(y + j, dl * (float)mio_iq_nl4[qs[j] & 15]);
                stf32(y + j + 16, dl * (float)mio_iq_nl4[qs[j] >> 4]);
            }
            y += 32;
            qs += 16;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Shared encoder arithmetic                                                  */
/* ------------------------------------------------------------------------- */
/* Round to nearest, ties to even, via the 1.5*2^23 trick (|v| < 2^22). */
static inline int round_even(float v) {
    float t = v + 12582912.f;
    uint32_t u;
    memcpy(&u, &t, 4);
    return (int)(u & 0x007fffffu) - 0x00400000;
}
static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline float fmaxv(float a, float b) { return a > b ? a : b; }

/* Index of the iq4 value x is closest to (midpoint rule: x picks level i once
 * 2x reaches val[i-1] + val[i]); 16 sorted values, branch-free halving. */
static inline int nl4_index(float x) {
    const float x2 = x + x;
    int idx = 0;
    for (int step = 8; step > 0; step >>= 1) {
        int j = idx + step;
        idx = x2 >= (float)(mio_iq_nl4[j - 1] + mio_iq_nl4[j]) ? j : idx;
    }
    return idx;
}

/* The largest of n (a multiple of 8) values |x|, in 8 interleaved partial
 * maxima (vectorizable). The values are finite (the codec screens its input),
 * so any order gives ggml's sequential fmaxv result, up to the sign of a zero
 * maximum, which every caller only tests against a positive threshold. */
static inline float max_abs_values(const float *xv, int n) {
    float m[8];
    for (int j = 0; j < 8; j++) m[j] = xv[j];
    for (int i = 8; i < n; i += 8)
        for (int j = 0; j < 8; j++) m[j] = fmaxv(m[j], xv[i + j]);
    float r = m[0];
    for (int j = 1; j < 8; j++) r = fmaxv(r, m[j]);
    return r;
}

/* ------------------------------------------------------------------------- */
/* iq4_nl / iq4_xs                                                             */
/* ------------------------------------------------------------------------- */
/* The levels and midpoint sums for the kernels (kernels/iq_kernels.h). */
static iq4_consts g_iq4;
static void iq4_consts_init(void) {
    for (int k = 0; k < 16; k++) {
        g_iq4.lev[k] = (float)mio_iq_nl4[k];
        g_iq4.mid[k] = k < 15 ? (float)(mio_iq_nl4[k] + mio_iq_nl4[k + 1]) : 0.f;
    }
}

/* The level indices of id*x[j], j < n (a multiple of 16). */
static inline void iq4_index(const float *x, int n, float id, uint8_t *L) {
    if (K->iq4_index) K->iq4_index(x, n, id, &g_iq4, L);
    else for (int j = 0; j < n; j++) L[j] = (uint8_t)nl4_index(id * x[j]);
}

/* The scale of one sub-block of 32 with a kernel for the 16 candidate sums:
 * the first guess 1/d and the 15 trials in lanes, then ggml's choice among
 * them in its order (exactly the scalar search below). */
static float iq4_search_k(const float *xb, const float *weight, float max) {
    float ids[16], sx[16], s2[16];
    const float d0 = -max / (float)mio_iq_nl4[0];
    ids[0] = 1 / d0;
    for (int t = -7; t <= 7; t++) ids[t + 8] = (float)(t + mio_iq_nl4[0]) / max;
    K->iq4_trials(xb, weight, ids, &g_iq4, sx, s2);
    float d = s2[0] > 0 ? sx[0] / s2[0] : 0.f;
    float best = d * sx[0];
    for (int k = 1; k < 16; k++)
        if (s2[k] > 0 && sx[k] * sx[k] > best * s2[k]) { d = sx[k] / s2[k]; best = d * sx[k]; }
    return d;
}

/* One super-block of sbs elements (32: iq4_nl, 256: iq4_xs) in 32-sub-blocks.
 * out points at the block; qw the super-block's weights or NULL. */
static void iq4_super(const float *x, uint8_t *out, int sbs, const float *qw) {
    float scales[8], weight[32];
    uint8_t L[SUPER];
    const int nsub = sbs / 32, ntry = 7;
    float sigma2 = 0;
    for (int j = 0; j < sbs; j++) sigma2 += x[j] * x[j];
    sigma2 *= 2.f / (float)sbs;
    float max_scale = 0, amax_scale = 0;
    for (int ib = 0; ib < nsub; ib++) {
        const float *xb = x + 32 * ib;
        uint8_t *Lb = L + 32 * ib;
        if (qw)
            for (int j = 0; j < 32; j++) weight[j] = qw[32 * ib + j] * sqrtf(sigma2 + xb[j] * xb[j]);
        else
            for (int j = 0; j < 32; j++) weight[j] = xb[j] * xb[j];
        float amax = 0, max = 0;
        for (int j = 0; j < 32; j++) {
            float ax = fabsf(xb[j]);
            if (ax > amax) { amax = ax; max = xb[j]; }
        }
        if (amax < 1e-15f) {
            scales[ib] = 0;
            memset(Lb, 0, 32);
            continue;
        }
        if (K->iq4_trials) { /* the codes are chosen again below from the final scale */
            const float d = iq4_search_k(xb, weight, max);
            scales[ib] = d;
            if (fabsf(d) > amax_scale) { amax_scale = fabsf(d); max_scale = d; }
            continue;
        }
        float d = -max / (float)mio_iq_nl4[0];
        float id = 1 / d;
        float sumqx = 0, sumq2 = 0;
        for (int j = 0; j < 32; j++) {
            int l = nl4_index(id * xb[j]);
            Lb[j] = (uint8_t)l;
            float q = (float)mio_iq_nl4[l], w = weight[j];
            sumqx += w * q * xb[j];
            sumq2 += w * q * q;
        }
        d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
        float best = d * sumqx;
        for (int t = -ntry; t <= ntry; t++) {
            id = (float)(t + mio_iq_nl4[0]) / max;
            sumqx = sumq2 = 0;
            for (int j = 0; j < 32; j++) {
                int l = nl4_index(id * xb[j]);
                float q = (float)mio_iq_nl4[l], w = weight[j];
                sumqx += w * q * xb[j];
                sumq2 += w * q * q;
            }
            if (sumq2 > 0 && sumqx * sumqx > best * sumq2) { d = sumqx / sumq2; best = d * sumqx; }
        }
        scales[ib] = d;
        if (fabsf(d) > amax_scale) { amax_scale = fabsf(d); max_scale = d; }
    }
    uint8_t *qs;
    if (nsub > 1) { /* iq4_xs: d, scales_h, scales_l[4], qs[128] */
        float d = -max_scale / 32;
        st16(out, half_from_f32(d));
        float id = d != 0 ? 1 / d : 0.f;
        uint16_t sh = 0;
        memset(out + 4, 0, 4);
        for (int ib = 0; ib < nsub; ib++) {
            int l = clampi(round_even(id * scales[ib]), -32, 31);
            float dl = d * (float)l;
            float idl = dl != 0 ? 1 / dl : 0.f;
            iq4_index(x + 32 * ib, 32, idl, L + 32 * ib);
            l += 32;
            out[4 + ib / 2] |= (uint8_t)((l & 15) << (4 * (ib % 2)));
            sh |= (uint16_t)((l >> 4) << (2 * ib));
        }
        st16(out + 2, sh);
        qs = out + 8;
    } else { /* iq4_nl: d, qs[16] */
        st16(out, half_from_f32(scales[0]));
        float id = scales[0] != 0 ? 1 / scales[0] : 0;
        iq4_index(x, 32, id, L);
        qs = out + 2;
    }
    for (int i = 0; i < nsub; i++)
        for (int j = 0; j < 16; j++) qs[16 * i + j] = (uint8_t)(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
}

static void enc_iq4_nl(const float *x, void *vy, int64_t nb) {
    for (int64_t i = 0; i < nb; i++) iq4_super(x + 32 * i, (uint8_t *)vy + 18 * i, 32, NULL);
}
static void encw_iq4_nl(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / 32; i++) iq4_super(x + 32 * i, (uint8_t *)vy + 18 * i, 32, qw + 32 * i);
}
static void enc_iq4_xs(const float *x, void *vy, int64_t nb) {
    for (int64_t i = 0; i < nb; i++) iq4_super(x + SUPER * i, (uint8_t *)vy + 136 * i, SUPER, NULL);
}
static void encw_iq4_xs(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / SUPER; i++) iq4_super(x + SUPER * i, (uint8_t *)vy + 136 * i, SUPER, qw + SUPER * i);
}

/* ------------------------------------------------------------------------- */
/* Lattices: grid points as odd coordinates 2*code+1, a map from a packed code */
/* vector to its grid entry, and for off-grid vectors the list of nearest      */
/* entries (all entries at the `want` smallest distinct squared distances,     */
/* ordered by distance then entry number). Each list also keeps its entries'   */
/* codes transposed (coordinate-major, padded to 8 entries by repeating the    */
/* last), for the 8-entries-at-once search below. The struct (and pad8) are in */
/* kernels/iq_kernels.h, shared with the SIMD kernels.                         */
/* ------------------------------------------------------------------------- */
#define LAT(n, w, b, mc, want, grid) {n, w, b, mc, want, grid, NULL, NULL, NULL, NULL, NULL, NULL, PTHREAD_ONCE_INIT}
static lattice lat_2xxs = LAT(256, 8, 2, 2, 2, mio_iq_grid2_256);
static lattice lat_2xs = LAT(512, 8, 2, 2, 2, mio_iq_grid2_512);
static lattice lat_2s = LAT(1024, 8, 2, 2, 1, mio_iq_grid2_1024);
static lattice lat_1 = LAT(2048, 8, 2, 2, 3, mio_iq_grid1_2048);
static lattice lat_3xxs = LAT(256, 4, 3, 7, 2, mio_iq_grid3_256);
static lattice lat_3s = LAT(512, 4, 3, 7, 3, mio_iq_grid3_512);
#undef LAT

static void lattice_free(lattice *g) {
    free(g->pos);
    free(g->map);
    free(g->loff);
    free(g->lcnt);
    free(g->ids);
    free(g->soa);
    g->pos = NULL;
    g->map = NULL;
    g->loff = NULL;
    g->lcnt = NULL;
    g->ids = NULL;
    g->soa = NULL;
}

/* false when memory runs out (g is then left empty, nothing allocated) */
static bool lattice_build(lattice *g) {
    enum { MAXD = 1024 }; /* squared distances: at most 8 * 4^2 (2-bit) or 4 * 14^2 (3-bit) */
    const int w = g->width, b = g->bits, nmap = 1 << (b * w), mask = (1 << b) - 1, ng = g->ngrid;
    g->pos = malloc((size_t)ng * (size_t)w);
    g->map = malloc((size_t)nmap * sizeof(int32_t));
    g->loff = malloc((size_t)nmap * sizeof(uint32_t));
    g->lcnt = malloc((size_t)nmap * sizeof(uint16_t));
    int16_t *posT = malloc((size_t)ng * (size_t)w * sizeof(int16_t)); /* coordinate-major */
    int *d2 = malloc((size_t)ng * sizeof(int));
    uint16_t *sel = malloc((size_t)ng * sizeof(uint16_t)), *order = malloc((size_t)ng * sizeof(uint16_t));
    uint8_t *seen = malloc(MAXD);
    size_t cap = 1 << 16, total = 0;
    g->ids = malloc(cap * sizeof(uint16_t));
    g->soa = malloc(cap * (size_t)w);
    bool ok = g->pos && g->map && g->loff && g->lcnt && posT && d2 && sel && order && seen && g->ids && g->soa;
    for (int e = 0; e < ng && ok; e++)
        for (int k = 0; k < w; k++) {
            const int v = 2 * ((g->packed[e] >> (b * k)) & mask) + 1;
            g->pos[e * w + k] = (int8_t)v;
            posT[k * ng + e] = (int16_t)v;
        }
    for (int i = 0; i < nmap && ok; i++) g->map[i] = INT32_MIN;
    for (int e = 0; e < ng && ok; e++) g->map[g->packed[e]] = e;
    int nlists = 0;
    for (int i = 0; i < nmap && ok; i++) {
        if (g->map[i] >= 0) continue;
        int p[8];
        bool valid = true;
        for (int k = 0; k < w; k++) {
            int c = (i >> (b * k)) & mask;
            if (c > g->maxcode) valid = false;
            p[k] = 2 * c + 1;
        }
        if (!valid) continue; /* never looked up */
        /* squared distances to every entry, 16 entries at a time */
        for (int e0 = 0; e0 < ng; e0 += 16) {
            int s[16] = {0};
            for (int k = 0; k < w; k++)
                /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): ng is a multiple of 16 (LAT above) */
                for (int j = 0; j < 16; j++) { const int t = posT[k * ng + e0 + j] - p[k]; s[j] += t * t; }
            memcpy(d2 + e0, s, sizeof s);
        }
        /* the `want` smallest distinct distances: lim is the largest kept */
        memset(seen, 0, MAXD);
        for (int e = 0; e < ng; e++) seen[d2[e] < MAXD ? d2[e] : MAXD - 1] = 1;
        int lim = -1, have = 0;
        for (int s = 0; s < MAXD && have < g->want; s++)
            if (seen[s]) { lim = s; have++; }
        /* the kept entries, by distance then entry number (stable counting sort) */
        int n = 0;
        for (int e = 0; e < ng; e++)
            if (d2[e] <= lim) sel[n++] = (uint16_t)e;
        int start[MAXD];
        for (int s = 0; s <= lim; s++) start[s] = 0;
        for (int j = 0; j < n; j++) start[d2[sel[j]]]++;
        for (int s = 0, acc = 0; s <= lim; s++) { const int c = start[s]; start[s] = acc; acc += c; }
        for (int j = 0; j < n; j++) order[start[d2[sel[j]]]++] = sel[j];
        const int pad = pad8(n);
        if (pad > (w == 4 ? 64 : 512)) abort(); /* the search kernels' scratch sizes */
        if (total + (size_t)pad > cap) {
            cap *= 2;
            uint16_t *ids = realloc(g->ids, cap * sizeof(uint16_t));
            if (ids) g->ids = ids;
            uint8_t *soa = ids ? realloc(g->soa, cap * (size_t)w) : NULL;
            if (soa) g->soa = soa;
            if (!ids || !soa) { ok = false; break; }
        }
        uint16_t *ids = g->ids + total;
        uint8_t *soa = g->soa + total * (size_t)w;
        for (int j = 0; j < pad; j++) {
            /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign): the counting sort wrote order[0..n), n >= 1 */
            const int e = order[j < n ? j : n - 1]; /* padding repeats the last entry */
            ids[j] = (uint16_t)e;
            for (int k = 0; k < w; k++) soa[k * pad + j] = (uint8_t)((g->pos[e * w + k] - 1) / 2);
        }
        g->loff[nlists] = (uint32_t)total;
        g->lcnt[nlists] = (uint16_t)n;
        g->map[i] = -(int32_t)nlists - 1;
        total += (size_t)pad;
        nlists++;
    }
    free(posT);
    free(d2);
    free(sel);
    free(order);
    free(seen);
    if (!ok) lattice_free(g);
    return ok;
}

/* Built on first use by mio_iq_encoder_ready (codec.c calls it before any encoder
 * runs), under a lock rather than pthread_once so that a build that ran out
 * of memory is tried again by a later call. */
static pthread_mutex_t g_lat_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_lat_built[6];
static lattice *const g_lats[6] = {&lat_2xxs, &lat_2xs, &lat_2s, &lat_1, &lat_3xxs, &lat_3s};

static bool lattice_ready(int k) {
    if (atomic_load_explicit(&g_lat_built[k], memory_order_acquire)) return true;
    pthread_mutex_lock(&g_lat_lock);
    bool ok = atomic_load_explicit(&g_lat_built[k], memory_order_relaxed) || lattice_build(g_lats[k]);
    if (ok) atomic_store_explicit(&g_lat_built[k], true, memory_order_release);
    pthread_mutex_unlock(&g_lat_lock);
    return ok;
}

bool mio_iq_encoder_ready(int type) {
    switch (type) {
    case MIO_TYPE_IQ2_XXS: return lattice_ready(0);
    case MIO_TYPE_IQ2_XS: return lattice_ready(1);
    case MIO_TYPE_IQ2_S: return lattice_ready(2);
    case MIO_TYPE_IQ1_S: case MIO_TYPE_IQ1_M: return lattice_ready(3);
    case MIO_TYPE_IQ3_XXS: return lattice_ready(4);
    case MIO_TYPE_IQ3_S: return lattice_ready(5);
    default: return true;
    }
}

/* Encoders run only after mio_iq_encoder_ready(type) succeeded: g is built. */
static const lattice *lattice_get(lattice *g) { return g; }

/* Nearest-entry search over a list. The squared distance of an entry is
 * sum_i wt[i] * (scale*q - xv[i])^2, accumulated in i order from 0, where q is
 * the level of the entry's code at coordinate i (odd values 2c+1, or iq1's
 * shifted levels). Each term depends only on (i, code), so the terms are
 * tabulated once per search (same operations as ggml's loop) and each entry's
 * distance is the same ordered sum of table terms: bit-identical d2 values.
 * The result is the first entry of smallest d2 below FLT_MAX, which is what
 * ggml's scan "if (d2 < best) ..." from best = FLT_MAX keeps (NaN never wins);
 * -1 when there is none. */
static int list_best_scalar(const uint8_t *codes, int n, int w, const float *lev, int nlev, const float *xv,
                            const float *wt, float scale) {
    const int pad = pad8(n);
    float t[8][8];
    for (int i = 0; i < w; i++)
        for (int c = 0; c < nlev; c++) {
            const float diff = scale * lev[c] - xv[i];
            t[i][c] = wt[i] * diff * diff;
        }
    float best = FLT_MAX;
    int found = -1;
    for (int j = 0; j < n; j++) {
        float d2 = 0;
        for (int i = 0; i < w; i++) d2 += t[i][codes[i * pad + j]];
        if (d2 < best) { best = d2; found = j; }
    }
    return found;
}


static inline int list_best(const uint8_t *codes, int n, int w, const float *lev, int nlev, const float *xv,
                            const float *wt, float scale) {
    if (K->iq_list_best) return K->iq_list_best(codes, n, w, lev, nlev, xv, wt, scale);
    return list_best_scalar(codes, n, w, lev, nlev, xv, wt, scale);
}

/* Level tables: odd coordinates 2c+1 for the iq2/iq3 lattices. */
static const float lev_odd[8] = {1, 3, 5, 7, 9, 11, 13, 15};

/* Among the neighbours of list k, the entry minimising the weighted squared
 * error of scale*pos against xval; writes its codes to L. */
static inline int nearest_entry(const lattice *g, int k, const float *xval, const float *wt, float scale, int8_t *L) {
    const uint32_t off = g->loff[k];
    const int n = g->lcnt[k], w = g->width;
    const int j = list_best(g->soa + (size_t)off * (size_t)w, n, w, lev_odd, g->maxcode + 1, xval, wt, scale);
    const int found = g->ids[off + (uint32_t)(j < 0 ? 0 : j)]; /* ggml asserts on j < 0 (non-finite scores) */
    const int8_t *pg = g->pos + found * w;
    for (int i = 0; i < w; i++) L[i] = (int8_t)((pg[i] - 1) / 2);
    return found;
}

static inline int pack_codes(const int8_t *L, int w, int b) {
    int u = 0;
    for (int i = 0; i < w; i++) u |= L[i] << (b * i);
    return u;
}

/* Quantize one group of w values at inverse scale id into L (clamped codes),
 * falling back to the nearest listed entry when off the grid. Returns whether
 * the rounded codes were on the grid, and the entry in *entry. */
static inline bool group_codes(const lattice *g, const float *xval, const float *waux, float id, float scale, int8_t *L,
                           int *entry) {
    for (int i = 0; i < g->width; i++)
        L[i] = (int8_t)clampi(round_even(0.5f * (id * xval[i] - 1)), 0, g->maxcode);
    int e = g->map[pack_codes(L, g->width, g->bits)];
    if (e >= 0) { *entry = e; return true; }
    *entry = nearest_entry(g, -e - 1, xval, waux, scale, L);
    return false;
}

/* One trial scale of the iq3 search: the 8 groups of 4 codes of a sub-block
 * at inverse scale id (off-grid groups snapped to their nearest listed entry
 * at this_scale); on_aux[k] tells whether group k was on the grid. */
static void iq3_step_scalar(const lattice *g, const float *xval, const float *waux, float id, float this_scale,
                            int8_t *Laux, bool *on_aux) {
    int e;
    for (int k = 0; k < 8; k++) on_aux[k] = group_codes(g, xval + 4 * k, waux + 4 * k, id, this_scale, Laux + 4 * k, &e);
}


/* All trial scales of one sub-block search at once (iq_trials in
 * kernels/kernels.h): trial t (t - nsteps = is) uses id = (kq + is * step) / max
 * and scale 1/id; its codes (off-grid groups snapped at that scale) go to column
 * t of lc, its on-grid group mask to onm[t] and its sequential sums (sumqx,
 * sumq2 as ggml's loop) to sqx[t], sq2[t]. Groups of 4 (iq3, 8 groups) use the
 * iq3 step; groups of 8 (iq2, 2 groups) group_codes. */
static void iq_trials_scalar(const lattice *g, const float *xval, const float *weight, const float *waux, float max, float kq,
                             float step, int nsteps, int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *sqx, float *sq2) {
    const int w = g->width, ngrp = w == 4 ? 8 : 2, nel = w * ngrp;
    int8_t Laux[32] = {0}; /* every trial writes all nel codes (zeroed for the analyzer) */
    bool on_aux[8] = {false};
    for (int is = -nsteps; is <= nsteps; is++) {
        const int t = is + nsteps;
        float id = (kq + (float)is * step) / max;
        float this_scale = 1 / id;
        if (w == 4) iq3_step_scalar(g, xval, waux, id, this_scale, Laux, on_aux);
        else {
            int e;
            for (int k = 0; k < ngrp; k++) on_aux[k] = group_codes(g, xval + 8 * k, waux + 8 * k, id, this_scale, Laux + 8 * k, &e);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < nel; i++) {
            float wi = weight[i], q = (float)(2 * Laux[i] + 1);
            sumqx += wi * xval[i] * q;
            sumq2 += wi * q * q;
        }
        unsigned m = 0;
        for (int k = 0; k < ngrp; k++) m |= (unsigned)on_aux[k] << k;
        onm[t] = (uint8_t)m;
        sqx[t] = sumqx;
        sq2[t] = sumq2;
        for (int i = 0; i < nel; i++) lc[i][t] = Laux[i];
    }
}

/* ggml's choice among the trials, in trial order: the first of the best
 * sumqx^2/sumq2 (as its running test); -1 when none scores above 0. */
static int trials_pick(const lattice *g, const float *xval, const float *weight, const float *waux, float max, float kq,
                       float step, int nsteps, int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *scale) {
    float sqx[IQ_TRIALS_MAX], sq2[IQ_TRIALS_MAX];
    if (K->iq_trials) K->iq_trials(g, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
    else iq_trials_scalar(g, xval, weight, waux, max, kq, step, nsteps, lc, onm, sqx, sq2);
    float best = 0;
    int tb = -1;
    for (int t = 0; t <= 2 * nsteps; t++)
        if (sq2[t] > 0 && sqx[t] * sqx[t] > best * sq2[t]) {
            *scale = sqx[t] / sq2[t];
            best = *scale * sqx[t];
            tb = t;
        }
    return tb;
}

/* ------------------------------------------------------------------------- */
/* iq3_xxs / iq3_s                                                             */
/* ------------------------------------------------------------------------- */
/* Search one 32-sub-block: xval/weight/waux prepared; fills L (32 codes) and
 * entries[8]; returns the scale (0 when the sub-block is negligible). */
static float iq3_search(const lattice *g, bool is_xxs, const float *xval, const float *weight, const float *waux, int8_t *L,
                        int *entries, bool *skip) {
    const int kMaxQ = 8;
    int8_t lc[32][IQ_TRIALS_MAX];
    uint8_t onm[IQ_TRIALS_MAX];
    bool on[8];
    const float max = max_abs_values(xval, 32);
    memset(L, 0, 32);
    *skip = is_xxs ? max < 1e-8f : !(max != 0); /* negligible sub-block */
    if (*skip) return 0;
    float scale = max / (float)(2 * kMaxQ - 1);
    for (int k = 0; k < 8; k++) on[k] = is_xxs;
    const int tb = trials_pick(g, xval, weight, waux, max, (float)(2 * kMaxQ - 1), 0.2f, is_xxs ? 15 : 9, lc, onm, &scale);
    if (tb >= 0) {
        for (int i = 0; i < 32; i++) L[i] = lc[i][tb];
        for (int k = 0; k < 8; k++) on[k] = (onm[tb] >> k) & 1;
    }
    int off = 0;
    for (int k = 0; k < 8; k++) off += !on[k];
    if (off > 0 && scale > 0) {
        float id = 1 / scale;
        for (int k = 0; k < 8; k++) {
            if (is_xxs && on[k]) continue;
            int e;
            group_codes(g, xval + 4 * k, waux + 4 * k, id, scale, L + 4 * k, &e);
            const int8_t *pg = g->pos + 4 * e;
            for (int i = 0; i < 4; i++) L[4 * k + i] = (int8_t)((pg[i] - 1) / 2);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 32; i++) {
            float w = weight[i], q = (float)(2 * L[i] + 1);
            sumqx += w * xval[i] * q;
            sumq2 += w * q * q;
        }
        if (sumq2 > 0) scale = sumqx / sumq2;
    }
    for (int k = 0; k < 8; k++) {
        int e = g->map[pack_codes(L + 4 * k, 4, 3)];
        entries[k] = e >= 0 ? e : 0; /* always on the grid by construction */
    }
    return scale;
}

/* Signs of 8 values: xval = |x| and the mask of negatives. With parity, an odd
 * count flips the cheapest element back so the stored 7 bits imply the 8th. */
static inline uint8_t group_signs(const float *xb, const float *weight, float *xval, bool parity) {
    unsigned s = 0;
    int nflip = 0;
    for (int i = 0; i < 8; i++) { /* branch-free: the signs are random */
        const unsigned neg = !(xb[i] >= 0);
        uint32_t u;
        memcpy(&u, &xb[i], 4);
        u ^= neg << 31; /* -x exactly */
        memcpy(&xval[i], &u, 4);
        nflip += (int)neg;
        s |= neg << i;
    }
    if (parity && nflip % 2) {
        int imin = 0;
        float min = weight[0] * xb[0] * xb[0];
        for (int i = 1; i < 8; i++) {
            float ax = weight[i] * xb[i] * xb[i];
            if (ax < min) { min = ax; imin = i; }
        }
        xval[imin] = -xval[imin];
        s ^= 1u << imin;
    }
    return (uint8_t)(parity ? s & 127 : s);
}

static void iq3_block(const float *xbl, uint8_t *out, const float *qw, bool is_xxs) {
    const lattice *g = lattice_get(is_xxs ? &lat_3xxs : &lat_3s);
    float scales[8], weight[32], xval[32], waux[32];
    int8_t L[32];
    int entries[8];
    uint8_t bsg[8];
    const size_t bytes = is_xxs ? 98 : 110;
    memset(out, 0, bytes);
    float sumx2 = 0;
    for (int i = 0; i < SUPER; i++) sumx2 += xbl[i] * xbl[i];
    float sigma2 = 2 * sumx2 / SUPER;
    float max_scale = 0;
    /* iq3_s writes grid bytes and signs through cursors that only advance for
     * non-negligible sub-blocks (as ggml does) */
    uint8_t *qs = out + 2, *signs = out + 74;
    for (int ib = 0; ib < 8; ib++) {
        const float *xb = xbl + 32 * ib;
        if (qw)
            for (int i = 0; i < 32; i++) weight[i] = qw[32 * ib + i] * sqrtf(sigma2 + xb[i] * xb[i]);
        else
            for (int i = 0; i < 32; i++) weight[i] = xb[i] * xb[i];
        for (int i = 0; i < 32; i++) waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 4; k++) bsg[k] = group_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k, is_xxs);
        bool skip;
        float scale = iq3_search(g, is_xxs, xval, weight, waux, L, entries, &skip);
        if (skip) { scales[ib] = 0; continue; }
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 4; k++) bsg[k] = is_xxs ? (uint8_t)(~bsg[k] & 127) : (uint8_t)~bsg[k];
        }
        if (is_xxs) {
            for (int k = 0; k < 8; k++) out[2 + 8 * ib + k] = (uint8_t)entries[k];
            uint32_t ss = (uint32_t)bsg[0] | ((uint32_t)bsg[1] << 7) | ((uint32_t)bsg[2] << 14) | ((uint32_t)bsg[3] << 21);
            st32(out + 66 + 4 * ib, ss);
        } else {
            for (int k = 0; k < 8; k++) {
                qs[k] = (uint8_t)(entries[k] & 255);
                out[66 + ib] |= (uint8_t)((entries[k] >> 8) << k);
            }
            qs += 8;
            memcpy(signs, bsg, 4);
            signs += 4;
        }
        scales[ib] = scale;
        max_scale = fmaxv(max_scale, scale);
    }
    if (!(max_scale != 0)) {
        if (is_xxs) memset(out, 0, bytes);
        return;
    }
    float d = max_scale / 31;
    st16(out, half_from_f32(d * (is_xxs ? 1.0125f : 1.033f)));
    float id = 1 / d;
    for (int ib = 0; ib < 8; ib++) {
        int l = clampi(round_even(0.5f * (id * scales[ib] - 1)), 0, 15);
        if (is_xxs) st32(out + 66 + 4 * ib, ld32(out + 66 + 4 * ib) | ((uint32_t)l << 28));
        else out[106 + ib / 2] |= (uint8_t)(l << (4 * (ib % 2)));
    }
}

static void enc_iq3_xxs(const float *x, void *vy, int64_t nb) {
    for (int64_t i = 0; i < nb; i++) iq3_block(x + SUPER * i, (uint8_t *)vy + 98 * i, NULL, true);
}
static void encw_iq3_xxs(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / SUPER; i++) iq3_block(x + SUPER * i, (uint8_t *)vy + 98 * i, qw + SUPER * i, true);
}
static void enc_iq3_s(const float *x, void *vy, int64_t nb) {
    for (int64_t i = 0; i < nb; i++) iq3_block(x + SUPER * i, (uint8_t *)vy + 110 * i, NULL, false);
}
static void encw_iq3_s(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / SUPER; i++) iq3_block(x + SUPER * i, (uint8_t *)vy + 110 * i, qw + SUPER * i, false);
}

/* ------------------------------------------------------------------------- */
/* iq2_s (and the 16-wide search shared with iq2_xs)                           */
/* ------------------------------------------------------------------------- */
/* One 16-sub-block on an 8-wide 2-bit lattice; returns the scale (*skip when
 * the sub-block is below eps). */
static float iq2_search16(const lattice *g, const float *xval, const float *weight, const float *waux, float eps,
                          int8_t *L, int *entries, bool *skip) {
    const int kMaxQ = 3;
    int8_t lc[16][IQ_TRIALS_MAX];
    uint8_t onm[IQ_TRIALS_MAX];
    bool on[2] = {true, true};
    const float max = max_abs_values(xval, 16);
    memset(L, 0, 16);
    *skip = max < eps;
    if (*skip) return 0;
    float scale = max / (float)(2 * kMaxQ - 1);
    const int tb = trials_pick(g, xval, weight, waux, max, (float)(2 * kMaxQ - 1), 0.1f, 9, lc, onm, &scale);
    if (tb >= 0) {
        for (int i = 0; i < 16; i++) L[i] = lc[i][tb];
        on[0] = onm[tb] & 1;
        on[1] = (onm[tb] >> 1) & 1;
    }
    if ((!on[0] || !on[1]) && scale > 0) {
        float id = 1 / scale;
        for (int k = 0; k < 2; k++) {
            if (on[k]) continue;
            int e;
            group_codes(g, xval + 8 * k, waux + 8 * k, id, scale, L + 8 * k, &e);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 16; i++) {
            float w = weight[i], q = (float)(2 * L[i] + 1);
            sumqx += w * xval[i] * q;
            sumq2 += w * q * q;
        }
        if (sumq2 > 0) scale = sumqx / sumq2;
    }
    for (int k = 0; k < 2; k++) {
        int e = g->map[pack_codes(L + 8 * k, 8, 2)];
        entries[k] = e >= 0 ? e : 0;
    }
    return scale;
}

static void iq2s_block(const float *xbl, uint8_t *out, const float *qw) {
    const lattice *g = lattice_get(&lat_2s);
    float scales[16], weight[16], xval[16], waux[16];
    int8_t L[16];
    int entries[2];
    uint8_t bsg[2];
    memset(out, 0, 82);
    float sumx2 = 0;
    for (int i = 0; i < SUPER; i++) sumx2 += xbl[i] * xbl[i];
    float sigma2 = 2 * sumx2 / SUPER;
    float max_scale = 0;
    for (int ib = 0; ib < 16; ib++) {
        const float *xb = xbl + 16 * ib;
        if (qw)
            for (int i = 0; i < 16; i++) weight[i] = qw[16 * ib + i] * sqrtf(sigma2 + xb[i] * xb[i]);
        else
            for (int i = 0; i < 16; i++) weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
        for (int i = 0; i < 16; i++) waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 2; k++) bsg[k] = group_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k, false);
        bool skip;
        float scale = iq2_search16(g, xval, weight, waux, 1e-8f, L, entries, &skip);
        if (skip) { scales[ib] = 0; continue; }
        if (scale < 0) { scale = -scale; bsg[0] = (uint8_t)~bsg[0]; bsg[1] = (uint8_t)~bsg[1]; }
        for (int k = 0; k < 2; k++) {
            int i8 = 2 * ib + k;
            out[2 + i8] = (uint8_t)(entries[k] & 255);
            out[66 + i8 / 4] |= (uint8_t)((entries[k] >> 8) << (2 * (i8 % 4)));
            out[2 + 32 + i8] = bsg[k];
        }
        scales[ib] = scale;
        max_scale = fmaxv(max_scale, scale);
    }
    if (!(max_scale != 0)) return;
    float d = max_scale / 31;
    st16(out, half_from_f32(d * 0.9875f));
    float id = 1 / d;
    for (int ib = 0; ib < 16; ib++) {
        int l = clampi(round_even(0.5f * (id * scales[ib] - 1)), 0, 15);
        if (ib % 2 == 0) out[74 + ib / 2] = (uint8_t)l;
        else out[74 + ib / 2] |= (uint8_t)(l << 4);
    }
}

static void enc_iq2_s(const float *x, void *vy, int64_t nb) {
    for (int64_t i = 0; i < nb; i++) iq2s_block(x + SUPER * i, (uint8_t *)vy + 82 * i, NULL);
}
static void encw_iq2_s(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / SUPER; i++) iq2s_block(x + SUPER * i, (uint8_t *)vy + 82 * i, qw + SUPER * i);
}

/* iq2_xs (importance-weighted only: ggml refuses it without weights) */
static void iq2xs_block(const float *xbl, uint8_t *out, const float *qw) {
    const lattice *g = lattice_get(&lat_2xs);
    float scales[16], weight[16], xval[16], waux[16];
    int8_t L[16];
    int entries[2];
    uint8_t bsg[2];
    uint16_t q2[32];
    memset(q2, 0, sizeof q2);
    memset(out, 0, 74);
    float sumx2 = 0;
    for (int i = 0; i < SUPER; i++) sumx2 += xbl[i] * xbl[i];
    float sigma2 = sumx2 / SUPER;
    float max_scale = 0;
    for (int ib = 0; ib < 16; ib++) {
        const float *xb = xbl + 16 * ib;
        for (int i = 0; i < 16; i++) weight[i] = qw[16 * ib + i] * sqrtf(sigma2 + xb[i] * xb[i]);
        for (int i = 0; i < 16; i++) waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 2; k++) bsg[k] = group_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k, true);
        bool skip;
        float scale = iq2_search16(g, xval, weight, waux, 1e-15f, L, entries, &skip);
        if (skip) { scales[ib] = 0; continue; }
        if (scale < 0) { scale = -scale; bsg[0] = (uint8_t)(~bsg[0] & 127); bsg[1] = (uint8_t)(~bsg[1] & 127); }
        for (int k = 0; k < 2; k++) q2[2 * ib + k] = (uint16_t)(entries[k] | (bsg[k] << 9));
        scales[ib] = scale;
        max_scale = fmaxv(max_scale, scale);
    }
    if (!(max_scale != 0)) return;
    float d = max_scale / 31;
    st16(out, half_from_f32(d));
    float id = 1 / d;
    for (int ib = 0; ib < 16; ib++) {
        int l = clampi(round_even(0.5f * (id * scales[ib] - 1)), 0, 15);
        if (ib % 2 == 0) out[66 + ib / 2] = (uint8_t)l;
        else out[66 + ib / 2] |= (uint8_t)(l << 4);
    }
    for (int i = 0; i < 32; i++) st16(out + 2 + 2 * i, q2[i]);
}

static void encw_iq2_xs(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / SUPER; i++) iq2xs_block(x + SUPER * i, (uint8_t *)vy + 74 * i, qw + SUPER * i);
}

/* Sums of squares of nsb consecutive super-blocks, each summed in element order
 * as ggml does (sumx2 += x[i] * x[i]); four super-blocks' chains interleaved
 * so that their additions overlap instead of waiting on each other. */
static void sumsq_supers(const float *x, int64_t nsb, float *out) {
    int64_t b = 0;
    for (; b + 4 <= nsb; b += 4) {
        const float *p = x + SUPER * b;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int i = 0; i < SUPER; i++) {
            s0 += p[i] * p[i];
            s1 += p[SUPER + i] * p[SUPER + i];
            s2 += p[2 * SUPER + i] * p[2 * SUPER + i];
            s3 += p[3 * SUPER + i] * p[3 * SUPER + i];
        }
        out[b] = s0; out[b + 1] = s1; out[b + 2] = s2; out[b + 3] = s3;
    }
    for (; b < nsb; b++) {
        float s0 = 0;
        for (int i = 0; i < SUPER; i++) s0 += x[SUPER * b + i] * x[SUPER * b + i];
        out[b] = s0;
    }
}

/* An iq1 super-block encoder: x, its output, its importance weights, its sum
 * of squares. */
typedef void (*iq1_block_fn)(const float *xbl, uint8_t *out, const float *qw, float sumx2);

/* blk over the n / SUPER super-blocks of x (out_bytes each), their sums of
 * squares computed 64 super-blocks at a time. */
static void iq1_supers(iq1_block_fn blk, const float *x, uint8_t *out, size_t out_bytes, int64_t n, const float *qw) {
    for (int64_t c0 = 0; c0 < n / SUPER; c0 += 64) {
        const int64_t cn = n / SUPER - c0 < 64 ? n / SUPER - c0 : 64;
        float ssq[64];
        sumsq_supers(x + SUPER * c0, cn, ssq);
        for (int64_t i = c0; i < c0 + cn; i++) blk(x + SUPER * i, out + out_bytes * (size_t)i, qw + SUPER * i, ssq[i - c0]);
    }
}

/* ------------------------------------------------------------------------- */
/* iq1_m / iq1_s: three levels {-1, 0, 1} shifted by ±delta, exhaustive split  */
/* search over the sorted values, then snapped to the grid.                     */
/* ------------------------------------------------------------------------- */
/* (value, original position) pairs sorted by value with the C library's qsort
 * and a value-only comparison, as ggml does (equal values keep qsort's order). */
typedef struct { float v; int i; } vpair;
static int vpair_cmp(const void *a, const void *b) {
    float l = ((const vpair *)a)->v, r = ((const vpair *)b)->v;
    return l < r ? -1 : l > r ? 1 : 0;
}

/* iq1_m's exhaustive split search over the sorted sub-block: for every pair of
 * cut points i1 <= i2 (prefix sums px/pw per half, padded to 24) and each of
 * the 4 shift combinations k, ggml's score test in (i1, i2, k) order.
 * (iq1m_pick, iq1m_consts and iq1m_test are in kernels/iq_kernels.h.) */
static void iq1m_scan_scalar(const float (*px)[24], const float (*pw)[24], const iq1m_consts *c, iq1m_pick *pk) {
    for (int i1 = 0; i1 <= 16; i1++)
        for (int i2 = i1; i2 <= 16; i2++) {
            float qx_p[2], qx_m[2], q2_p[2], q2_m[2], sqx[4], sq2[4];
            for (int h = 0; h < 2; h++) {
                float sx = px[h][i1] + px[h][i2];
                qx_p[h] = c->txs[h] * c->p2 - sx;
                qx_m[h] = c->txs[h] * c->m2 - sx;
                q2_p[h] = c->tws[h] * c->p2 * c->p2 + pw[h][i1] * c->cp1 + pw[h][i2] * c->cp2;
                q2_m[h] = c->tws[h] * c->m2 * c->m2 + pw[h][i1] * c->cm1 + pw[h][i2] * c->cm2;
            }
            sqx[0] = qx_p[0] + qx_p[1]; sqx[1] = qx_p[0] + qx_m[1];
            sqx[2] = qx_m[0] + qx_p[1]; sqx[3] = qx_m[0] + qx_m[1];
            sq2[0] = q2_p[0] + q2_p[1]; sq2[1] = q2_p[0] + q2_m[1];
            sq2[2] = q2_m[0] + q2_p[1]; sq2[3] = q2_m[0] + q2_m[1];
            iq1m_test(pk, sqx, sq2, i1, i2);
        }
}

/* Sort (value, position) pairs by value as the C library's qsort with a
 * value-only comparison does. With distinct values the order is unique: each
 * pair goes to its rank, the count of smaller values. With ties (qsort's tie
 * order is its own) qsort runs; with NaNs, the insertion sort the ranks
 * replace (unchanged results). */
static void sort_pairs_insertion(vpair *p, int n) {
    vpair s[32];
    for (int j = 0; j < n; j++) {
        vpair v = p[j];
        int i = j;
        while (i > 0 && s[i - 1].v > v.v) { s[i] = s[i - 1]; i--; }
        s[i] = v;
    }
    for (int j = 1; j < n; j++)
        if (s[j].v == s[j - 1].v) { qsort(p, (size_t)n, sizeof *p, vpair_cmp); return; }
    /* cppcheck-suppress uninitvar ; the insertion sort above wrote s[0..n), the n elements copied */
    memcpy(p, s, (size_t)n * sizeof *p);
}

static inline void sort_pairs(vpair *p, int n) {
    float v[32];
    int nan = 0;
    for (int j = 0; j < n; j++) { v[j] = p[j].v; nan |= v[j] != v[j]; }
    if (nan) { sort_pairs_insertion(p, n); return; }
    vpair s[32];
    for (int j = 0; j < n; j++) {
        int r = 0, e = 0;
        for (int i = 0; i < n; i++) { r += v[i] < v[j]; e += v[i] == v[j]; }
        if (e > 1) { qsort(p, (size_t)n, sizeof *p, vpair_cmp); return; }
        s[r] = p[j];
    }
    /* cppcheck-suppress uninitvar ; distinct ranks 0..n-1 wrote s[0..n) */
    memcpy(p, s, (size_t)n * sizeof *p);
}

/* v, or +0 where mask is 0 (mask all ones or all zeros) */
static inline float f32_and(float v, uint32_t mask) {
    uint32_t u;
    memcpy(&u, &v, 4);
    u &= mask;
    memcpy(&v, &u, 4);
    return v;
}

/* The positions of v[0..n) (n = 16 or 32) in ascending order of value, as
 * sort_pairs orders them: the kernel's ranks when all values are distinct,
 * else sort_pairs itself. */
static inline void sort_idx(const float *v, int n, int8_t *idx) {
    if (K->iq_sort_idx && K->iq_sort_idx(v, n, idx) == 0) return;
    vpair p[32];
    for (int j = 0; j < n; j++) { p[j].v = v[j]; p[j].i = j; }
    sort_pairs(p, n);
    for (int j = 0; j < n; j++) idx[j] = (int8_t)p[j].i;
}

/* Nearest listed grid entry for 8 values, levels xx[code] at scale; whole-grid
 * fallback when nothing scores (mirrors ggml, including its element index). */
static inline int iq1_nearest(const lattice *g, int k, const float *xv, const float *wt, float scale, const float *xx,
                          int8_t *L) {
    const uint32_t off = g->loff[k];
    const float xx8[8] = {xx[0], xx[1], xx[2], 0, 0, 0, 0, 0};
    const int jb = list_best(g->soa + (size_t)off * 8, g->lcnt[k], 8, xx8, 3, xv, wt, scale);
    float best = FLT_MAX;
    int found = jb < 0 ? -1 : g->ids[off + (uint32_t)jb];
    if (found < 0)
        for (int e = 0; e < g->ngrid; e++) {
            const int8_t *pg = g->pos + 8 * e;
            float d2 = 0;
            for (int j = 0; j < 8; j++) {
                float w = wt[j], q = xx[(pg[j] - 1) / 2];
                float diff = scale * q - xv[e < 8 ? e : 7]; /* ggml indexes by the grid entry here */
                d2 += w * diff * diff;
            }
            if (d2 < best) { best = d2; found = e; }
        }
    if (found < 0) found = 0;
    const int8_t *pg = g->pos + 8 * found;
    for (int i = 0; i < 8; i++) L[i] = (int8_t)((pg[i] - 1) / 2);
    return found;
}

static void iq1m_block(const float *xbl, uint8_t *out, const float *qw, float sumx2) {
    const lattice *g = lattice_get(&lat_1);
    const float dl = delta1;
    const float x_p[3] = {-1 + dl, dl, 1 + dl}, x_m[3] = {-1 - dl, -dl, 1 - dl};
    static const uint8_t masks[4] = {0x00, 0x80, 0x08, 0x88};
    float scales[16], wall[SUPER], *weight;
    int8_t L[16], shifts[16], order[16];
    int index[2];
    memset(out, 0, 56);
    uint8_t *qs = out, *qh = out + 32;
    const float sigma2 = 2 * sumx2 / SUPER; /* used with qw only */
    float max_scale = 0;
    for (int ib = 0; ib < 16; ib++) {
        const float *xb = xbl + 16 * ib;
        weight = wall + 16 * ib; /* kept for the final fit below */
        if (qw)
            for (int i = 0; i < 16; i++) weight[i] = qw[16 * ib + i] * sqrtf(sigma2 + xb[i] * xb[i]);
        else
            for (int i = 0; i < 16; i++) weight[i] = xb[i] * xb[i];
        float max = fabsf(xb[0]);
        for (int i = 1; i < 16; i++) max = fmaxv(max, fabsf(xb[i]));
        if (max < 1e-7f) { scales[ib] = 0; shifts[ib] = 0; continue; }
        sort_idx(xb, 16, order);
        /* prefix sums per half over the sorted values, without a branch on
         * the half (a coin flip per element): the other half's sum gets +0,
         * which leaves it unchanged (it starts at +0 and never becomes -0),
         * the term selected by a bit mask */
        float px[2][24], pw[2][24];
        float ax0 = 0, ax1 = 0, aw0 = 0, aw1 = 0;
        px[0][0] = px[1][0] = pw[0][0] = pw[1][0] = 0;
        for (int j = 0; j < 16; j++) {
            const int i = order[j];
            const uint32_t lo = (uint32_t) - (int32_t)(i < 8);
            ax0 += f32_and(weight[i] * xb[i], lo);
            ax1 += f32_and(weight[i] * xb[i], ~lo);
            aw0 += f32_and(weight[i], lo);
            aw1 += f32_and(weight[i], ~lo);
            px[0][j + 1] = ax0; px[1][j + 1] = ax1;
            pw[0][j + 1] = aw0; pw[1][j + 1] = aw1;
        }
        for (int j = 17; j < 24; j++) px[0][j] = px[1][j] = pw[0][j] = pw[1][j] = 0;
        iq1m_consts cs = {{px[0][16], px[1][16]}, {pw[0][16], pw[1][16]}, x_p[2], x_m[2],
                          x_p[0] * x_p[0] - x_p[1] * x_p[1], x_p[1] * x_p[1] - x_p[2] * x_p[2],
                          x_m[0] * x_m[0] - x_m[1] * x_m[1], x_m[1] * x_m[1] - x_m[2] * x_m[2]};
        iq1m_pick pk = {-FLT_MAX, max, -1, -1, -1};
        if (K->iq_iq1m_scan) K->iq_iq1m_scan((const float(*)[24])px, (const float(*)[24])pw, &cs, &pk);
        else iq1m_scan_scalar((const float(*)[24])px, (const float(*)[24])pw, &cs, &pk);
        float scale = pk.scale;
        int besti1 = pk.i1, besti2 = pk.i2, best_k = pk.k;
        if (besti1 < 0 || besti2 < 0 || best_k < 0) { scales[ib] = 0; shifts[ib] = 0; continue; }
        for (int j = 0; j < besti1; j++) L[order[j]] = 0;
        for (int j = besti1; j < besti2; j++) L[order[j]] = 1;
        for (int j = besti2; j < 16; j++) L[order[j]] = 2;
        if (scale < 0) {
            for (int j = 0; j < 16; j++) L[j] = (int8_t)(2 - L[j]);
            scale = -scale;
            best_k = 3 - best_k;
        }
        bool all_on = true;
        for (int k = 0; k < 2; k++) {
            const float *xx = k == 0 ? (best_k < 2 ? x_p : x_m) : (best_k % 2 == 0 ? x_p : x_m);
            int e = g->map[pack_codes(L + 8 * k, 8, 2)];
            if (e < 0) {
                all_on = false;
                e = iq1_nearest(g, -e - 1, xb + 8 * k, weight + 8 * k, scale, xx, L + 8 * k);
            }
            index[k] = e;
        }
        if (!all_on) {
            float sqx = 0, sq2 = 0;
            for (int k = 0; k < 2; k++) {
                const float *xx = k == 0 ? (best_k < 2 ? x_p : x_m) : (best_k % 2 == 0 ? x_p : x_m);
                const int8_t *pg = g->pos + 8 * index[k];
                for (int j = 0; j < 8; j++) {
                    float w = weight[8 * k + j], q = xx[(pg[j] - 1) / 2];
                    sqx += w * q * xb[8 * k + j];
                    sq2 += w * q * q;
                }
            }
            if (sqx > 0 && sq2 > 0) scale = sqx / sq2;
        }
        qs[2 * ib] = (uint8_t)(index[0] & 255);
        qs[2 * ib + 1] = (uint8_t)(index[1] & 255);
        qh[ib] = (uint8_t)((index[0] >> 8) | ((index[1] >> 8) << 4));
        scales[ib] = scale;
        shifts[ib] = (int8_t)best_k;
        max_scale = fmaxv(max_scale, scale);
    }
    if (!(max_scale != 0)) return;
    uint16_t sc[4] = {0, 0, 0, 0};
    float d = max_scale / 15;
    float id = 1 / d;
    float sqx = 0, sq2 = 0;
    for (int ib = 0; ib < 16; ib++) {
        int l = clampi(round_even(0.5f * (id * scales[ib] - 1)), 0, 7);
        sc[ib / 4] = (uint16_t)(sc[ib / 4] | (l << (3 * (ib % 4))));
        qh[ib] |= masks[shifts[ib]];
        const float *xb = xbl + 16 * ib;
        weight = wall + 16 * ib; /* the same weights as in the search */
        for (int k = 0; k < 2; k++) {
            const float *xx = k == 0 ? (shifts[ib] < 2 ? x_p : x_m) : (shifts[ib] % 2 == 0 ? x_p : x_m);
            const int8_t *pg = g->pos + 8 * (qs[2 * ib + k] + (((unsigned)qh[ib] << (8 - 4 * k)) & 0x700));
            for (int j = 0; j < 8; j++) {
                float w = weight[8 * k + j], q = xx[(pg[j] - 1) / 2] * (float)(2 * l + 1);
                sqx += w * q * xb[8 * k + j];
                sq2 += w * q * q;
            }
        }
    }
    if (sq2 > 0) d = sqx / sq2;
    uint16_t s = half_from_f32(d * 1.1125f);
    sc[0] = (uint16_t)(sc[0] | ((s & 0x000f) << 12));
    sc[1] = (uint16_t)(sc[1] | ((s & 0x00f0) << 8));
    sc[2] = (uint16_t)(sc[2] | ((s & 0x0f00) << 4));
    sc[3] = (uint16_t)(sc[3] | (s & 0xf000));
    for (int k = 0; k < 4; k++) st16(out + 48 + 2 * k, sc[k]);
}

static void enc_iq1_m(const float *x, void *vy, int64_t nb) {
    for (int64_t i = 0; i < nb; i++) iq1m_block(x + SUPER * i, (uint8_t *)vy + 56 * i, NULL, 0); /* no sigma2 without qw */
}
static void encw_iq1_m(const float *x, void *vy, int64_t n, const float *qw) {
    iq1_supers(iq1m_block, x, vy, 56, n, qw);
}

/* iq1_s's exhaustive split search: for every pair of cut points i1 <= i2 over
 * the prefix sums and each shift (k = 0: levels xp, k = 1: xm), ggml's score
 * test in (i1, i2, k) order. */
static void iq1s_scan_scalar(const float *sumx, const float *sumw, const float *xp, const float *xm, iq1m_pick *pk) {
    for (int i1 = 0; i1 <= 32; i1++)
        for (int i2 = i1; i2 <= 32; i2++)
            for (int sh = 0; sh < 2; sh++) {
                const float *v = sh ? xm : xp;
                float sqx = (sumx[i1] - sumx[0]) * v[0] + (sumx[i2] - sumx[i1]) * v[1] + (sumx[32] - sumx[i2]) * v[2];
                float sq2 = (sumw[i1] - sumw[0]) * v[0] * v[0] + (sumw[i2] - sumw[i1]) * v[1] * v[1] +
                            (sumw[32] - sumw[i2]) * v[2] * v[2];
                if (sq2 > 0 && sqx * sqx > pk->best * sq2) {
                    pk->scale = sqx / sq2;
                    pk->best = pk->scale * sqx;
                    pk->i1 = i1; pk->i2 = i2; pk->k = sh;
                }
            }
}

/* iq1_s (importance-weighted only): 32-sub-blocks, one shift per sub-block */
static void iq1s_block(const float *xbl, uint8_t *out, const float *qw, float sumx2) {
    const lattice *g = lattice_get(&lat_1);
    const float dl = delta1;
    const float x_p[3] = {-1 + dl, dl, 1 + dl}, x_m[3] = {-1 - dl, -dl, 1 - dl};
    float scales[8], weight[32], sumx[40], sumw[40];
    int8_t L[32], shifts[8], order[32];
    int index[4];
    uint16_t qh[8] = {0};
    memset(out, 0, 50);
    const float sigma2 = 2 * sumx2 / SUPER;
    float max_scale = 0;
    for (int ib = 0; ib < 8; ib++) {
        const float *xb = xbl + 32 * ib;
        for (int i = 0; i < 32; i++) weight[i] = qw[32 * ib + i] * sqrtf(sigma2 + xb[i] * xb[i]);
        float max = fabsf(xb[0]);
        for (int i = 1; i < 32; i++) max = fmaxv(max, fabsf(xb[i]));
        if (max < 1e-12f) { scales[ib] = 0; shifts[ib] = 1; continue; }
        sort_idx(xb, 32, order);
        sumx[0] = sumw[0] = 0;
        for (int j = 0; j < 32; j++) {
            int i = order[j];
            sumx[j + 1] = sumx[j] + weight[i] * xb[i];
            sumw[j + 1] = sumw[j] + weight[i];
        }
        for (int j = 33; j < 40; j++) sumx[j] = sumw[j] = 0;
        iq1m_pick pk = {-FLT_MAX, max, -1, -1, -1};
        if (K->iq_iq1s_scan) K->iq_iq1s_scan(sumx, sumw, x_p, x_m, &pk);
        else iq1s_scan_scalar(sumx, sumw, x_p, x_m, &pk);
        float scale = pk.scale;
        int besti1 = pk.i1, besti2 = pk.i2, best_shift = pk.k < 0 ? 0 : pk.k ? -1 : 1;
        if (besti1 < 0 || besti2 < 0 || best_shift == 0) { scales[ib] = 0; shifts[ib] = 1; continue; }
        for (int j = 0; j < besti1; j++) L[order[j]] = 0;
        for (int j = besti1; j < besti2; j++) L[order[j]] = 1;
        for (int j = besti2; j < 32; j++) L[order[j]] = 2;
        if (scale < 0) {
            for (int j = 0; j < 32; j++) L[j] = (int8_t)(2 - L[j]);
            scale = -scale;
            best_shift = -best_shift;
        }
        bool all_on = true;
        const float *xx = best_shift == 1 ? x_p : x_m;
        for (int k = 0; k < 4; k++) {
            int e = g->map[pack_codes(L + 8 * k, 8, 2)];
            if (e < 0) {
                all_on = false;
                e = iq1_nearest(g, -e - 1, xb + 8 * k, weight + 8 * k, scale, xx, L + 8 * k);
            }
            index[k] = e;
        }
        if (!all_on) {
            float sqx = 0, sq2 = 0;
            for (int k = 0; k < 4; k++) {
                const int8_t *pg = g->pos + 8 * index[k];
                for (int j = 0; j < 8; j++) {
                    float w = weight[8 * k + j], q = xx[(pg[j] - 1) / 2];
                    sqx += w * q * xb[8 * k + j];
                    sq2 += w * q * q;
                }
            }
            if (sqx > 0 && sq2 > 0) scale = sqx / sq2;
        }
        uint16_t h = 0;
        for (int k = 0; k < 4; k++) {
            out[2 + 4 * ib + k] = (uint8_t)(index[k] & 255);
            h = (uint16_t)(h | ((index[k] >> 8) << (3 * k)));
        }
        qh[ib] = h;
        scales[ib] = scale;
        shifts[ib] = (int8_t)best_shift;
        max_scale = fmaxv(max_scale, scale);
    }
    if (max_scale != 0) {
        float d = max_scale / 15;
        st16(out, half_from_f32(d * 1.125f));
        float id = 1 / d;
        for (int ib = 0; ib < 8; ib++) {
            int l = clampi(round_even(0.5f * (id * scales[ib] - 1)), 0, 7);
            if (shifts[ib] == -1) l |= 8;
            qh[ib] = (uint16_t)(qh[ib] | (l << 12));
        }
    }
    for (int ib = 0; ib < 8; ib++) st16(out + 34 + 2 * ib, qh[ib]);
}

static void encw_iq1_s(const float *x, void *vy, int64_t n, const float *qw) {
    iq1_supers(iq1s_block, x, vy, 50, n, qw);
}

/* ------------------------------------------------------------------------- */
/* iq2_xxs (importance-weighted only)                                          */
/* ------------------------------------------------------------------------- */
/* Weighted scale for non-negative levels 0..nmax (ggml's make_qp_quants): a
 * small scale sweep, then coordinate-wise level refinement. L keeps ggml's
 * byte storage (negative levels wrap), which feeds back into the sums. */
static inline float qp_scale(int n, int nmax, const float *x, uint8_t *L, const float *w) {
    float max = 0;
    for (int i = 0; i < n; i++) max = fmaxv(max, x[i]);
    if (max < 1e-15f) { memset(L, 0, (size_t)n); return 0.f; }
    float iscale = (float)nmax / max;
    for (int i = 0; i < n; i++) L[i] = (uint8_t)round_even(iscale * x[i]);
    float scale = 1 / iscale, best = 0;
    for (int i = 0; i < n; i++) { float diff = x[i] - scale * (float)L[i]; best += w[i] * diff * diff; }
    for (int is = -4; is <= 4; is++) {
        if (is == 0) continue;
        float isc = (0.1f * (float)is + (float)nmax) / max, sc = 1 / isc, mse = 0;
        for (int i = 0; i < n; i++) {
            int l = round_even(isc * x[i]);
            if (l > nmax) l = nmax;
            float diff = x[i] - sc * (float)l;
            mse += w[i] * diff * diff;
        }
        if (mse < best) { best = mse; iscale = isc; }
    }
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = round_even(iscale * x[i]);
        if (l > nmax) l = nmax;
        L[i] = (uint8_t)l;
        sumlx += w[i] * x[i] * (float)l;
        suml2 += w[i] * (float)l * (float)l;
    }
    for (int t = 0; t < 5; t++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            float slx = sumlx - w[i] * x[i] * (float)L[i];
            float sl2 = suml2 - w[i] * (float)L[i] * (float)L[i];
            if (slx > 0 && sl2 > 0) {
                int nl = round_even(x[i] * sl2 / slx);
                if (nl > nmax) nl = nmax;
                if (nl != L[i]) {
                    slx += w[i] * x[i] * (float)nl;
                    sl2 += w[i] * (float)nl * (float)nl;
                    if (slx * slx * suml2 > sumlx * sumlx * sl2) { L[i] = (uint8_t)nl; sumlx = slx; suml2 = sl2; changed++; }
                }
            }
        }
        if (!changed) break;
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* iq2_xxs's trial step: the 4 groups of 8 at inverse scale id (group_codes),
 * the roundings and grid lookups through the kernel when there is one. */
static void iq2_round_scalar(const lattice *g, const float *xval, float id, int8_t *L, int32_t *e) {
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 8; i++) L[8 * k + i] = (int8_t)clampi(round_even(0.5f * (id * xval[8 * k + i] - 1)), 0, g->maxcode);
        e[k] = g->map[pack_codes(L + 8 * k, 8, g->bits)];
    }
}

static inline void iq2_step(const lattice *g, const float *xval, const float *waux, float id, float scale, int8_t *L, int *e) {
    int32_t m[4];
    if (K->iq_iq2_round) K->iq_iq2_round(g, xval, id, L, m);
    else iq2_round_scalar(g, xval, id, L, m);
    for (int k = 0; k < 4; k++)
        e[k] = m[k] >= 0 ? m[k] : nearest_entry(g, -m[k] - 1, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
}

static void iq2xxs_block(const float *xbl, uint8_t *out, const float *qw) {
    const lattice *g = lattice_get(&lat_2xxs);
    const int kMaxQ = 3;
    float scales[8], weight[32], xval[32], waux[32];
    int8_t L[32], Laux[32];
    uint8_t bsg[4];
    uint32_t q2[16];
    memset(q2, 0, sizeof q2);
    memset(out, 0, 66);
    float sumx2 = 0;
    for (int i = 0; i < SUPER; i++) sumx2 += xbl[i] * xbl[i];
    float sigma2 = sumx2 / SUPER;
    float max_scale = 0;
    for (int ib = 0; ib < 8; ib++) {
        const float *xb = xbl + 32 * ib;
        for (int i = 0; i < 32; i++) weight[i] = qw[32 * ib + i] * sqrtf(sigma2 + xb[i] * xb[i]);
        for (int i = 0; i < 32; i++) waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 4; k++) bsg[k] = group_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k, true);
        float max = xval[0];
        for (int i = 1; i < 32; i++) max = fmaxv(max, xval[i]);
        if (max < 1e-15f) { scales[ib] = 0; continue; }
        float scale = qp_scale(32, kMaxQ + 1, xval, (uint8_t *)L, weight);
        float eff_max = scale * (float)kMaxQ;
        if (eff_max <= 0) { scales[ib] = 0; continue; }
        float best = 0;
        for (int is = -6; is <= 6; is++) {
            float id = ((float)(2 * kMaxQ - 1) + (float)is * 0.1f) / eff_max;
            float this_scale = 1 / id;
            int e[4];
            iq2_step(g, xval, waux, id, this_scale, Laux, e);
            float sumqx = 0, sumq2 = 0;
            for (int i = 0; i < 32; i++) {
                float w = weight[i], q = (float)(2 * Laux[i] + 1);
                sumqx += w * xval[i] * q;
                sumq2 += w * q * q;
            }
            if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
                scale = sumqx / sumq2;
                best = scale * sumqx;
                memcpy(L, Laux, 32);
            }
        }
        if (scale > 0) {
            float id = 1 / scale;
            int e[4];
            iq2_step(g, xval, waux, id, scale, L, e);
            for (int k = 0; k < 4; k++) {
                const int8_t *pg = g->pos + 8 * e[k];
                for (int i = 0; i < 8; i++) L[8 * k + i] = (int8_t)((pg[i] - 1) / 2);
            }
            float sumqx = 0, sumq2 = 0;
            for (int i = 0; i < 32; i++) {
                float w = weight[i], q = (float)(2 * L[i] + 1);
                sumqx += w * xval[i] * q;
                sumq2 += w * q * q;
            }
            if (sumq2 > 0) scale = sumqx / sumq2;
        }
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 4; k++) bsg[k] = (uint8_t)(~bsg[k] & 127);
        }
        for (int k = 0; k < 4; k++) {
            int e = g->map[pack_codes(L + 8 * k, 8, 2)];
            if (e < 0) e = 0;
            q2[2 * ib] |= (uint32_t)e << (8 * k);
            q2[2 * ib + 1] |= (uint32_t)bsg[k] << (7 * k);
        }
        scales[ib] = scale;
        max_scale = fmaxv(max_scale, scale);
    }
    if (!(max_scale != 0)) return;
    float d = max_scale / 31;
    st16(out, half_from_f32(d));
    float id = 1 / d;
    for (int ib = 0; ib < 8; ib++) {
        int l = clampi(round_even(0.5f * (id * scales[ib] - 1)), 0, 15);
        q2[2 * ib + 1] |= (uint32_t)l << 28;
    }
    for (int i = 0; i < 16; i++) st32(out + 2 + 4 * i, q2[i]);
}

static void encw_iq2_xxs(const float *x, void *vy, int64_t n, const float *qw) {
    for (int64_t i = 0; i < n / SUPER; i++) iq2xxs_block(x + SUPER * i, (uint8_t *)vy + 66 * i, qw + SUPER * i);
}

/* ------------------------------------------------------------------------- */
void mio_codec_register_iq(mio_codec *t, const mio_kernels *k) {
    static const char needs[] = "needs an importance matrix (ggml refuses to quantize it without one)";
    expand_tables();
    iq4_consts_init();
    K = k;
    t[MIO_TYPE_IQ2_XXS] = (mio_codec){NULL, encw_iq2_xxs, dec_iq2_xxs, needs, true};
    t[MIO_TYPE_IQ2_XS] = (mio_codec){NULL, encw_iq2_xs, dec_iq2_xs, needs, true};
    t[MIO_TYPE_IQ2_S] = (mio_codec){enc_iq2_s, encw_iq2_s, dec_iq2_s, NULL, true};
    t[MIO_TYPE_IQ3_XXS] = (mio_codec){enc_iq3_xxs, encw_iq3_xxs, dec_iq3_xxs, NULL, true};
    t[MIO_TYPE_IQ3_S] = (mio_codec){enc_iq3_s, encw_iq3_s, dec_iq3_s, NULL, true};
    t[MIO_TYPE_IQ1_S] = (mio_codec){NULL, encw_iq1_s, dec_iq1_s, needs, true};
    t[MIO_TYPE_IQ1_M] = (mio_codec){enc_iq1_m, encw_iq1_m, dec_iq1_m, NULL, true};
    t[MIO_TYPE_IQ4_NL] = (mio_codec){enc_iq4_nl, encw_iq4_nl, dec_iq4_nl, NULL, true};
    t[MIO_TYPE_IQ4_XS] = (mio_codec){enc_iq4_xs, encw_iq4_xs, dec_iq4_xs, NULL, true};
}
