/* SPDX-License-Identifier: MIT */
/* solver.c — PTQTP (post-training quantization to trit-planes, arXiv:2509.16989,
 * as Fucina's docs/PTQTP.md records it): mio_ptqtp_quantize decomposes a
 * row-major f32 matrix into K = 1..3 ternary planes, W ~ sum_k diag(a_k) T_k,
 * one scale per plane per group of 256 consecutive elements of a row, and
 * stores each plane as a TQ2_0 tensor whose per-block fp16 d is that plane's
 * group scale (docs/PTQTP.md "The method").
 *
 * Each group is an independent problem. Free fit (default), alternating:
 *  1. scales: the K x K ridge regression a = (S^T S + lambda I)^-1 S^T w, S the
 *     256 x K trit matrix (so S^T S holds integer trit counts), lambda = 1e-8,
 *     x10 while the Frobenius condition number ||A||_F ||A^-1||_F exceeds 1e6,
 *     at most 1.0 — the system is singular at the start, where every plane is
 *     sign(w);
 *  2. topology: per element, the argmin of (w - sum_k a_k c_k)^2 over the 3^K
 *     trit tuples c in the pinned order of ptqtp_internal.h;
 *  until the scale vector moves less than 1e-4 (Euclidean norm) or after 50
 *  iterations. Tied fit (tie_scales): the scales are [3s, s] or [9s, 3s, s],
 *  i.e. a uniform 3^K-level quantizer of step s; s is swept as Fucina does, then
 *  snapped to an fp16 value whose multiples 3s (and 9s) are fp16 values too.
 * Packing: |a| rounded to fp16 (at most 65504), one last topology pass against
 * the rounded scales, the trits stored as TQ2_0 codes (trit + 1).
 *
 * The arithmetic follows Fucina's src/ptqtp.zig step by step (f64 Gram solve,
 * f32 scales and candidate values, f32 squared errors), so that results match
 * Fucina's wherever the two define the same thing. Deterministic: a group's
 * result depends on its 256 weights only, the groups are claimed by the pool's
 * threads in chunks of a fixed size, and the statistics are summed group by
 * group within a chunk and chunk by chunk in order — planes and stats are
 * identical for every thread count. */
#include "core/core.h"
#include "core/half.h"
#include "core/pool.h"
#include "kernels/kernels.h"
#include "ptqtp/ptqtp_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TQ2_BYTES 66      /* 64 bytes of 2-bit codes, then fp16 d */
#define MAX_ITERS 50
#define CHUNK_GROUPS 32   /* groups a thread claims at a time; fixes the stats' summation order */
#define MAX_THREADS 256

/* Fucina's Options are f32: these are the f32 values of its constants. */
static const double k_lambda0 = (double)1e-8f, k_lambda_max = 1.0, k_kappa_max = 1e6, k_epsilon = (double)1e-4f;

const int8_t mio_ptqtp_cand[3][PTQTP_MAX_CAND][3] = {
    {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}},
    {{0, 0, 0}, {0, -1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0}, {-1, -1, 0}, {-1, 1, 0}, {1, -1, 0}, {1, 1, 0}},
    {{0, 0, 0},   {0, 0, -1},  {0, 0, 1},   {0, -1, 0},  {0, 1, 0},   {-1, 0, 0},   {1, 0, 0},
     {0, -1, -1}, {0, -1, 1},  {0, 1, -1},  {0, 1, 1},   {-1, 0, -1}, {-1, 0, 1},   {1, 0, -1},
     {1, 0, 1},   {-1, -1, 0}, {-1, 1, 0},  {1, -1, 0},  {1, 1, 0},   {-1, -1, -1}, {-1, -1, 1},
     {-1, 1, -1}, {-1, 1, 1},  {1, -1, -1}, {1, -1, 1},  {1, 1, -1},  {1, 1, 1}},
};

void mio_ptqtp_search_portable(const float *w, int n, const float *vals, const uint8_t *label, int ncand, uint8_t *out) {
    for (int j = 0; j < n; j++) {
        const float x = w[j];
        float d = x - vals[0], best_e = d * d;
        int best = 0;
        for (int i = 1; i < ncand; i++) {
            d = x - vals[i];
            const float e = d * d;
            if (e < best_e) {
                best_e = e;
                best = i;
            }
        }
        out[j] = label[best];
    }
}

typedef void (*search_fn)(const float *w, int n, const float *vals, const uint8_t *label, int ncand, uint8_t *out);

/* One group's working state. */
typedef struct group {
    const float *w;             /* 256 weights */
    int planes, ncand;
    search_fn search;
    uint8_t label[PTQTP_MAX_CAND]; /* the candidates' labels (ptqtp_internal.h) */
    float wf[PTQTP_GROUP];      /* w with non-finite values replaced by 0 */
    int exact;                  /* 1: wi / unit below hold wf exactly (exact_sums) */
    double unit;
    int64_t wi[PTQTP_GROUP];    /* wf / unit, integers */
    uint8_t lab[PTQTP_GROUP];   /* each element's tuple as a label (the search's output) */
    int8_t t[3][PTQTP_GROUP];   /* the same as trits, per plane */
} group;

/* Candidate values a . c in the pinned order, in f32 as Fucina forms them:
 * a0*c0, then + a1*c1, then + a2*c2. */
static void cand_values(int planes, const float a[3], float *vals) {
    const int8_t(*c)[3] = mio_ptqtp_cand[planes - 1];
    for (int i = 0; i < ptqtp_cand_count(planes); i++) {
        float v = a[0] * (float)c[i][0];
        if (planes >= 2) v += a[1] * (float)c[i][1];
        if (planes == 3) v += a[2] * (float)c[i][2];
        vals[i] = v;
    }
}

/* The labels as trits per plane. */
static void unpack_labels(group *g) {
    for (int p = 0; p < g->planes; p++)
        for (int j = 0; j < PTQTP_GROUP; j++) g->t[p][j] = (int8_t)(((g->lab[j] >> (2 * p)) & 3) - 1);
}

/* Topology step: the trits of every element against the scales a. */
static void topology(group *g, const float a[3]) {
    float vals[PTQTP_MAX_CAND];
    cand_values(g->planes, a, vals);
    g->search(g->w, PTQTP_GROUP, vals, g->label, g->ncand, g->lab);
    unpack_labels(g);
}

/* Scale step: the ridge regression against the current trits. */
static void ridge(const group *g, float a[3]) {
    const int K = g->planes;
    /* Gram entries: integer trit counts (these loops vectorize) */
    int n[3] = {0, 0, 0}, s01 = 0, s02 = 0, s12 = 0;
    for (int p = 0; p < K; p++)
        for (int j = 0; j < PTQTP_GROUP; j++) n[p] += g->t[p][j] != 0;
    if (K >= 2)
        for (int j = 0; j < PTQTP_GROUP; j++) s01 += g->t[0][j] * g->t[1][j];
    if (K == 3)
        for (int j = 0; j < PTQTP_GROUP; j++) {
            s02 += g->t[0][j] * g->t[2][j];
            s12 += g->t[1][j] * g->t[2][j];
        }
    /* S^T w in f64, element by element as Fucina adds it (c * x is +-x or a
     * zero, which changes nothing but the sign of a zero sum); non-finite
     * weights are 0 in wf and hold trit 0 anyway: outside every sum */
    double b0 = 0, b1 = 0, b2 = 0; /* one register chain each (a loop over p kept them in memory) */
    const int8_t *t0 = g->t[0], *t1 = g->t[1], *t2 = g->t[2];
    if (g->exact) {
        /* the same sums, exactly, in integers (see exact_sums): 1-cycle adds
         * instead of a chain of 256 dependent f64 adds per plane */
        int64_t i0 = 0, i1 = 0, i2 = 0;
        for (int j = 0; j < PTQTP_GROUP; j++) i0 += t0[j] * g->wi[j];
        if (K >= 2)
            for (int j = 0; j < PTQTP_GROUP; j++) i1 += t1[j] * g->wi[j];
        if (K == 3)
            for (int j = 0; j < PTQTP_GROUP; j++) i2 += t2[j] * g->wi[j];
        b0 = (double)i0 * g->unit;
        b1 = (double)i1 * g->unit;
        b2 = (double)i2 * g->unit;
    } else if (K == 1)
        for (int j = 0; j < PTQTP_GROUP; j++) b0 += (double)t0[j] * (double)g->wf[j];
    else if (K == 2)
        for (int j = 0; j < PTQTP_GROUP; j++) {
            const double x = g->wf[j];
            b0 += (double)t0[j] * x;
            b1 += (double)t1[j] * x;
        }
    else
        for (int j = 0; j < PTQTP_GROUP; j++) {
            const double x = g->wf[j];
            b0 += (double)t0[j] * x;
            b1 += (double)t1[j] * x;
            b2 += (double)t2[j] * x;
        }
    const double b[3] = {b0, b1, b2};
    double lambda = k_lambda0;
    if (K == 1) {
        /* a 1 x 1 system has condition number 1: lambda stays at its floor */
        a[0] = (float)(b[0] / ((double)n[0] + lambda));
    } else if (K == 2) {
        const double a01 = (double)s01;
        double a00, a11, det;
        for (;;) {
            a00 = (double)n[0] + lambda;
            a11 = (double)n[1] + lambda;
            det = a00 * a11 - a01 * a01; /* > 0 for lambda > 0 (Cauchy-Schwarz on the counts) */
            /* 2 x 2: ||A^-1||_F = ||A||_F / det, so kappa_F = ||A||_F^2 / det */
            const double kappa = (a00 * a00 + a11 * a11 + 2 * a01 * a01) / det;
            if (kappa <= k_kappa_max || lambda >= k_lambda_max) break;
            lambda = fmin(lambda * 10, k_lambda_max);
        }
        a[0] = (float)((b[0] * a11 - b[1] * a01) / det);
        a[1] = (float)((b[1] * a00 - b[0] * a01) / det);
    } else {
        /* 3 x 3 through the adjugate: A^-1 = adj(A) / det, so
         * kappa_F = ||A||_F ||adj(A)||_F / det */
        const double a01 = (double)s01, a02 = (double)s02, a12 = (double)s12;
        double j00, j01, j02, j11, j12, j22, det;
        for (;;) {
            const double a00 = (double)n[0] + lambda, a11 = (double)n[1] + lambda, a22 = (double)n[2] + lambda;
            j00 = a11 * a22 - a12 * a12;
            j01 = -(a01 * a22 - a12 * a02);
            j02 = a01 * a12 - a11 * a02;
            j11 = a00 * a22 - a02 * a02;
            j12 = -(a00 * a12 - a01 * a02);
            j22 = a00 * a11 - a01 * a01;
            det = a00 * j00 + a01 * j01 + a02 * j02;
            const double fa = sqrt(a00 * a00 + a11 * a11 + a22 * a22 + 2 * (a01 * a01 + a02 * a02 + a12 * a12));
            const double fj = sqrt(j00 * j00 + j11 * j11 + j22 * j22 + 2 * (j01 * j01 + j02 * j02 + j12 * j12));
            const double kappa = fa * fj / det;
            if (kappa <= k_kappa_max || lambda >= k_lambda_max) break;
            lambda = fmin(lambda * 10, k_lambda_max);
        }
        a[0] = (float)((j00 * b[0] + j01 * b[1] + j02 * b[2]) / det);
        a[1] = (float)((j01 * b[0] + j11 * b[1] + j12 * b[2]) / det);
        a[2] = (float)((j02 * b[0] + j12 * b[1] + j22 * b[2]) / det);
    }
}

/* Whether S^T w can be summed in integers with the f64 result of the
 * element-order sum. Every non-zero f32 x is an integer multiple of
 * 2^(e(x) - 150), e the biased exponent (1 for subnormals), and |x| < 2^(e - 126).
 * With e_min, e_max over the group's non-zero finite weights and
 * e_max - e_min <= 21, every x is a multiple of unit = 2^(e_min - 150), and any
 * signed sum of up to 256 of them is k * unit with |k| < 2^(e_max - e_min + 32)
 * <= 2^53: exactly representable in f64. So every partial sum of the
 * element-order f64 loop is exact, its result is the exact sum, and the
 * integer sum of wi = x / unit (|wi| < 2^45) scaled by unit is that same
 * double. Groups with a wider exponent range (tiny values next to large ones)
 * use the f64 loop. */
static void exact_sums(group *g) {
    int emin = 255, emax = 0;
    for (int j = 0; j < PTQTP_GROUP; j++) {
        uint32_t u;
        memcpy(&u, &g->wf[j], sizeof u);
        if (!(u & 0x7fffffffu)) continue;
        int e = (int)((u >> 23) & 0xffu);
        e = e ? e : 1;
        emin = e < emin ? e : emin;
        emax = e > emax ? e : emax;
    }
    g->exact = emax <= emin + 21; /* also when every weight is 0 */
    if (!g->exact) return;
    const int ex = emin <= emax ? emin : 150; /* all zero: any unit */
    g->unit = ldexp(1.0, ex - 150);
    const double inv = ldexp(1.0, 150 - ex);
    for (int j = 0; j < PTQTP_GROUP; j++) g->wi[j] = (int64_t)((double)g->wf[j] * inv);
}

/* The free fit. Returns the iterations; *converged 0 when the cap stopped it. */
static int solve_free(group *g, float a[3], int *converged) {
    const int K = g->planes;
    exact_sums(g);
    for (int j = 0; j < PTQTP_GROUP; j++) {
        const float x = g->w[j];
        /* sign(w); a NaN compares false both ways and gets 0, and so does an
         * infinity (Fucina gives it its sign here and 0 from the first search
         * on; 0 keeps it out of the first regression too) */
        const int8_t s = isfinite(x) ? (int8_t)((x > 0) - (x < 0)) : 0;
        for (int p = 0; p < K; p++) g->t[p][j] = s;
    }
    a[0] = 1.0f;
    a[1] = K >= 2 ? 1.0f : 0.0f;
    a[2] = K == 3 ? 1.0f : 0.0f;
    *converged = 0;
    int it = 0;
    while (it < MAX_ITERS) {
        it++;
        const float prev[3] = {a[0], a[1], a[2]};
        ridge(g, a);
        topology(g, a);
        double move2 = 0;
        for (int p = 0; p < K; p++) {
            const double d = (double)a[p] - (double)prev[p];
            move2 += d * d;
        }
        if (sqrt(move2) < k_epsilon) {
            *converged = 1;
            break;
        }
    }
    return it;
}

/* fp16 bits -> f32 and the test "v is an fp16 value" (finite). */
static float h2f(uint16_t h) { return half_to_f32(h); }
static int is_f16(float v) { return half_to_f32(half_from_f32(v)) == v; }

/* A tied step h is usable when 3h (and 9h for K = 3) are fp16 values as well:
 * then the stored scales are exactly [3h, h] / [9h, 3h, h] and the planes are
 * one uniform quantizer whichever way they are read (per plane, or folded into
 * one code 3*t0 + t1 from the finest scale, as Fucina's loader serves them). */
static int tie_ok(uint16_t h, int K) {
    const float f = h2f(h);
    return is_f16(3.0f * f) && (K < 3 || is_f16(9.0f * f));
}

/* Squared error over the finite weights of the group coded by the search
 * against scales a (f32 reconstruction, as stored). */
static double coded_err(group *g, const float a[3]) {
    topology(g, a);
    double err = 0;
    for (int j = 0; j < PTQTP_GROUP; j++) {
        const float x = g->w[j];
        if (!isfinite(x)) continue;
        float r = 0.0f;
        for (int p = 0; p < g->planes; p++) r += a[p] * (float)g->t[p][j];
        const double e = (double)x - (double)r;
        err += e * e;
    }
    return err;
}

static void tie_scales(int K, float h, float a[3]) {
    a[K - 1] = h;
    a[K - 2] = 3.0f * h;
    if (K == 3) a[0] = 9.0f * h;
}

/* clamp(roundf(v), -L, L): round half away from zero, without libm calls so
 * that the sweep below vectorizes. |v| is first capped at L + 1 (which rounds
 * and clamps to L all the same); a NaN (0 / 0, when a step underflowed to 0)
 * becomes +L: a finite d = x - s * c either way, no undefined conversion. */
static inline float round_clamp(float v, float L) {
    float a = v < 0 ? -v : v;
    a = a < L + 1.0f ? a : L + 1.0f;
    float r = (float)(int32_t)a;   /* truncation; a - r is exact */
    r += a - r >= 0.5f ? 1.0f : 0.0f;
    r = r < L ? r : L;
    return v < 0 ? -r : r;
}

#define SWEEP 65      /* Fucina's steps */
#define SWEEP_PAD 72  /* a multiple of the vector widths: the extra steps are ignored */

/* The tied fit: Fucina's sweep of the step s = absmax / (L - 0.75 + i/32),
 * i = 0..64 (L = (3^K - 1) / 2 levels each side), keeping the s of least
 * exact-code squared error (round half away from zero, clamped to +-L; f64
 * sums in element order; the first s wins a tie). Fucina then rounds 3s and s
 * to fp16 independently, so its stored ratio is only about 3; here s is
 * snapped to the fp16 step h <= s or h >= s nearest to it for which tie_ok
 * holds, the one whose stored planes have the smaller error (the lower on a
 * tie). Leaves the fp16-exact scales in a and the group's trits coded against
 * them. */
static void solve_tied(group *g, float a[3]) {
    const int K = g->planes;
    const float L = K == 2 ? 4.0f : 13.0f;
    float amax = 0.0f;
    for (int j = 0; j < PTQTP_GROUP; j++) {
        const float x = g->wf[j] < 0 ? -g->wf[j] : g->wf[j]; /* non-finite weights are 0 in wf */
        amax = x > amax ? x : amax;
    }
    float best_s = amax / L;
    if (amax > 0.0f) {
        /* every step's error accumulates in its own f64 sum, over the elements
         * in order (a non-finite weight, 0 in wf, adds an exact 0); the steps
         * are the inner loop, so the compiler vectorizes across them */
        float sv[SWEEP_PAD];
        double ev[SWEEP_PAD];
        for (int i = 0; i < SWEEP_PAD; i++) {
            sv[i] = amax / ((L - 0.75f) + (float)(i < SWEEP ? i : SWEEP - 1) * (2.0f / 64.0f));
            ev[i] = 0;
        }
        for (int j = 0; j < PTQTP_GROUP; j++) {
            const float x = g->wf[j];
            for (int i = 0; i < SWEEP_PAD; i++) {
                const float d = x - sv[i] * round_clamp(x / sv[i], L);
                ev[i] += (double)d * d;
            }
        }
        double best_err = INFINITY;
        for (int i = 0; i < SWEEP; i++)
            if (ev[i] < best_err) {
                best_err = ev[i];
                best_s = sv[i];
            }
    }
    /* the usable fp16 steps around best_s: lo <= best_s <= hi (0 is usable) */
    uint16_t lo = half_from_f32(best_s), hi = lo;
    if (h2f(lo) > best_s) lo--;
    while (lo > 0 && !tie_ok(lo, K)) lo--;
    if (hi < 0x7c00u && h2f(hi) < best_s) hi++;
    while (hi < 0x7c00u && !tie_ok(hi, K)) hi++;
    float alo[3] = {0, 0, 0}, ahi[3] = {0, 0, 0};
    tie_scales(K, h2f(lo), alo);
    const double elo = coded_err(g, alo);
    if (hi < 0x7c00u && hi != lo) {
        tie_scales(K, h2f(hi), ahi);
        if (coded_err(g, ahi) < elo) {
            memcpy(a, ahi, sizeof ahi);
            return; /* the trits are hi's */
        }
        topology(g, alo);
    }
    memcpy(a, alo, sizeof alo);
}

/* Per-chunk statistics (summed over the chunk's groups in order). */
typedef struct chunk_stats {
    double err_sq, norm_sq;
    uint64_t iterations, unconverged, nonfinite, zeros[3];
} chunk_stats;

/* TQ2_0 block: byte 32*h + m holds, in bits 2n..2n+1, the code (trit + 1) of
 * element 128*h + 32*n + m; fp16 d at byte 64 (little-endian). */
static void pack_block(uint8_t *o, const int8_t *t, float d) {
    for (int h = 0; h < 2; h++)
        for (int m = 0; m < 32; m++) {
            const int8_t *u = t + 128 * h + m;
            o[32 * h + m] = (uint8_t)((u[0] + 1) | (u[32] + 1) << 2 | (u[64] + 1) << 4 | (u[96] + 1) << 6);
        }
    const uint16_t hb = half_from_f32(d);
    o[64] = (uint8_t)(hb & 0xffu);
    o[65] = (uint8_t)(hb >> 8);
}

/* Solve, pack and measure one group; out[p] is plane p's block. */
static void do_group(group *g, int tied, uint8_t *const *out, chunk_stats *cs) {
    const int K = g->planes;
    for (int j = 0; j < PTQTP_GROUP; j++) g->wf[j] = isfinite(g->w[j]) ? g->w[j] : 0.0f;
    float a[3] = {0, 0, 0};
    int iters = 1, conv = 1;
    if (tied) {
        solve_tied(g, a); /* already fp16-exact, trits coded against them */
    } else {
        iters = solve_free(g, a, &conv);
        /* |a| loses nothing (the candidate set is symmetric under a sign flip
         * of any plane's scale); rounded as fp16 will store it, then the trits
         * re-derived against exactly those scales */
        for (int p = 0; p < K; p++) a[p] = h2f(half_from_f32(fminf(fabsf(a[p]), 65504.0f)));
        topology(g, a);
    }
    for (int p = 0; p < K; p++) pack_block(out[p], g->t[p], a[p]);
    for (int j = 0; j < PTQTP_GROUP; j++) {
        for (int p = 0; p < K; p++) cs->zeros[p] += g->t[p][j] == 0;
        const float x = g->w[j];
        if (!isfinite(x)) {
            cs->nonfinite++;
            continue;
        }
        /* the reconstruction as decoded: each plane's (code - 1) * d in f32,
         * summed in plane order */
        float r = 0.0f;
        for (int p = 0; p < K; p++) r += (float)g->t[p][j] * a[p];
        const double e = (double)x - (double)r;
        cs->err_sq += e * e;
        cs->norm_sq += (double)x * (double)x;
    }
    cs->iterations += (uint64_t)iters;
    cs->unconverged += conv ? 0 : 1;
}

/* --------------------------------------------------------------- threads */
typedef struct job {
    const float *w;
    size_t groups; /* rows * cols / 256: group g is w[256 g ..], block g of every plane */
    int planes, tied;
    search_fn search;
    uint8_t *plane[3];
    chunk_stats *cs; /* one per chunk of CHUNK_GROUPS groups */
    atomic_size_t next; /* next chunk to claim */
} job;

static void run_part(void *arg, int part) {
    (void)part; /* chunks are claimed dynamically; where one runs changes nothing */
    job *jb = arg;
    group g; /* about 2.1 KB */
    g.planes = jb->planes;
    g.ncand = ptqtp_cand_count(jb->planes);
    g.search = jb->search;
    for (int i = 0; i < g.ncand; i++) g.label[i] = ptqtp_label(jb->planes, i);
    const size_t nchunks = (jb->groups + CHUNK_GROUPS - 1) / CHUNK_GROUPS;
    for (;;) {
        const size_t c = atomic_fetch_add(&jb->next, 1);
        if (c >= nchunks) break;
        const size_t g1 = (c + 1) * CHUNK_GROUPS < jb->groups ? (c + 1) * CHUNK_GROUPS : jb->groups;
        for (size_t gi = c * CHUNK_GROUPS; gi < g1; gi++) {
            uint8_t *out[3] = {NULL, NULL, NULL};
            for (int p = 0; p < jb->planes; p++) out[p] = jb->plane[p] + gi * TQ2_BYTES;
            g.w = jb->w + gi * PTQTP_GROUP;
            do_group(&g, jb->tied, out, &jb->cs[c]);
        }
    }
}

static int cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* ------------------------------------------------------------------- API */
ABI_FROZEN(mio_ptqtp_options, n_threads);
ABI_FROZEN(mio_ptqtp_stats, zero_frac);

void mio_ptqtp_default_options(mio_ptqtp_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->planes = 2;
    o->tie_scales = 0;
    o->n_threads = 0;
}

mio_status mio_ptqtp_default_options_sized(mio_ptqtp_options *o, size_t size) {
    if (!o) return mio_err_set(MIO_ERR_INVALID_ARG, "o is NULL");
    mio_ptqtp_options d;
    mio_ptqtp_default_options(&d);
    return mio_abi_defaults_sized(o, size, &d, sizeof d, "mio_ptqtp_options");
}

mio_status mio_ptqtp_quantize(const float *w, size_t rows, size_t cols, const mio_ptqtp_options *o,
                              void *const *planes, size_t plane_bytes, mio_ptqtp_stats *stats) {
    static const char fn[] = "mio_ptqtp_quantize";
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: w is NULL", fn);
    if (!o) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: o is NULL", fn);
    if (!planes) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: planes is NULL", fn);
    mio_ptqtp_options opt;
    mio_ptqtp_default_options(&opt);
    mio_status st = mio_abi_params_merge(&opt, sizeof opt, o, sizeof(size_t) + sizeof(int), "mio_ptqtp_options",
                                         "mio_ptqtp_default_options");
    if (st) return mio_err_prefix(st, "%s: ", fn);
    if (opt.planes < 1 || opt.planes > 3)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: planes is %d; PTQTP solves 1, 2 or 3 planes", fn, opt.planes);
    if (opt.tie_scales != 0 && opt.tie_scales != 1)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tie_scales is %d; 0 (free scales) or 1 (tied)", fn, opt.tie_scales);
    if (opt.tie_scales && opt.planes < 2)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tie_scales needs planes >= 2 (a single plane has no ratio to tie)",
                           fn);
    for (int p = 0; p < opt.planes; p++)
        if (!planes[p]) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: planes[%d] is NULL (%d planes asked)", fn, p, opt.planes);
    if (cols % PTQTP_GROUP)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: cols %zu is not a multiple of %d (one group = one TQ2_0 block)", fn,
                           cols, PTQTP_GROUP);
    uint64_t n = 0, need = 0;
    if (!ck_mul(rows, cols, &n) || n > SIZE_MAX / sizeof(float) || !ck_mul(n / PTQTP_GROUP, TQ2_BYTES, &need) ||
        need > SIZE_MAX)
        return mio_err_set(MIO_ERR_OVERFLOW, "%s: a %zu x %zu matrix overflows the address space", fn, rows, cols);
    if (plane_bytes < need)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: plane_bytes is %zu; a %zu x %zu matrix needs %llu bytes a plane", fn,
                           plane_bytes, rows, cols, (unsigned long long)need);
    const mio_kernels *kt;
    st = mio_kernels_get(&kt); /* a refused MIO_ISA fails here, as every codec call */
    if (st) return mio_err_prefix(st, "%s: ", fn);

    const size_t groups = (size_t)(n / PTQTP_GROUP), nchunks = (groups + CHUNK_GROUPS - 1) / CHUNK_GROUPS;
    chunk_stats *cs = calloc(nchunks ? nchunks : 1, sizeof *cs);
    if (!cs) return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for the statistics of %zu groups", fn, groups);
    job jb = {.w = w, .groups = groups, .planes = opt.planes,
              .tied = opt.tie_scales, .search = kt->ptqtp_search ? kt->ptqtp_search : mio_ptqtp_search_portable,
              .cs = cs};
    for (int p = 0; p < opt.planes; p++) jb.plane[p] = planes[p];
    atomic_init(&jb.next, 0);
    int nt = opt.n_threads > 0 ? opt.n_threads : cores();
    if (nt > MAX_THREADS) nt = MAX_THREADS;
    if ((size_t)nt > nchunks) nt = nchunks ? (int)nchunks : 1;
    if (n) {
        if (nt > 1)
            mio_pool_run(run_part, &jb, nt);
        else
            run_part(&jb, 0);
    }

    mio_ptqtp_stats s;
    memset(&s, 0, sizeof s);
    uint64_t zeros[3] = {0, 0, 0};
    for (size_t c = 0; c < nchunks; c++) {
        s.err_sq += cs[c].err_sq;
        s.norm_sq += cs[c].norm_sq;
        s.iterations += cs[c].iterations;
        s.unconverged += cs[c].unconverged;
        s.nonfinite += cs[c].nonfinite;
        for (int p = 0; p < 3; p++) zeros[p] += cs[c].zeros[p];
    }
    free(cs);
    s.groups = n / PTQTP_GROUP;
    s.rel_err = s.norm_sq > 0 ? sqrt(s.err_sq / s.norm_sq) : 0.0;
    for (int p = 0; p < opt.planes; p++) s.zero_frac[p] = n ? (double)zeros[p] / (double)n : 0.0;
    if (stats) *stats = s;
    return MIO_OK;
}
