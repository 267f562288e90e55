/* SPDX-License-Identifier: MIT */
/* test_kernels.c — every SIMD back end's kernel-table entries against the
 * portable C, in one process (docs/KERNELS.md §6). The library runs at
 * MIO_ISA=scalar (set before any call), so mio_encode_f32 and the dot table are
 * the portable code; each level the CPU runs gets its table built exactly as
 * kernels/dispatch.c builds it (lower back ends first), and its entries are
 * called directly:
 *  - dot[t] on integer-valued data (every scale 1.0, codes random, activation
 *    codes in [-2, 2], lengths small enough that every partial sum is an exact
 *    float): equal to the portable kernel bit for bit — the integer parts;
 *  - dot[t] on real data (weights from the encoder, activations from floats):
 *    f32/f16/bf16 equal to the portable kernel bit for bit (one summation
 *    scheme on every level, dot/dot_float.c), the others within tol() of it
 *    (see there), for m in {1, 2, 3, 8, 17,
 *    64, 65} activation rows at an odd stride, and row i of an m-row call equal
 *    to the 1-row call on row i bit for bit (mio_matmul == m x mio_matvec);
 *  - dotx[t] (the variant taking the activation scales as floats, where a
 *    level has one) equal to dot[t] bit for bit on those rows and on raw random
 *    weight bytes (q8_0 codes -128 included);
 *  - act_q8_0 / act_q8_1 / act_q8_K byte-exact with the portable encoders on
 *    random blocks, rounding ties, zeros, huge and subnormal values;
 *  - ptqtp_search (the PTQTP 3^K topology search) label for label equal to the
 *    portable search, K = 1..3, on random scales (equal, zero and negative ones
 *    too: duplicate candidate values), weights at exact midpoints between two
 *    candidates (ties), NaN, infinities, zeros, huge values whose squared
 *    errors overflow, subnormals; lengths 8 .. 264;
 *  - iq4_index / iq4_trials (the iq4_nl / iq4_xs search) equal to the scalar
 *    rule "level i once 2v >= lev[i-1] + lev[i]" and its in-order sums, with
 *    values exactly on the midpoints and one ulp either side;
 *  - iq_sort_idx (the iq1 encoders' sort): on distinct values the order that
 *    makes them strictly increasing (a permutation, checked element by
 *    element); refused (1) for two equal values, +0 with -0, a NaN.
 * Weights come as raw random bytes too (codes no encoder would produce). */
#include "modelio.h"
#include "test.h"

#include "core/cpu.h"
#include "core/half.h"
#include "dot/dot_internal.h"
#include "kernels/kernels.h"
#include "ptqtp/ptqtp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

T_XORSHIFT(0x2545F4914F6CDD1Dull)
static int irand(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

/* ------------------------------------------------------------------ back ends */
typedef struct backend {
    const char *name;
    mio_isa isa;
    void (*fill)(mio_kernels *k);
} backend;

static const backend g_back[] = {
#ifdef MIO_KERNELS_AVX2
    {"avx2", MIO_ISA_AVX2, mio_kernels_fill_avx2},
#endif
#ifdef MIO_KERNELS_AVX512
    {"avx512", MIO_ISA_AVX512, mio_kernels_fill_avx512},
#endif
#ifdef MIO_KERNELS_NEON
    {"neon", MIO_ISA_NEON, mio_kernels_fill_neon},
#endif
    {NULL, MIO_ISA_SCALAR, NULL},
};

/* ------------------------------------------------------------------ types */
/* Where a weight block keeps its scales: up to two f16 fields set to 1.0 for
 * the exact test (-1: none), or mxfp4's e8m0 byte (set to 128: 2^0). */
typedef struct tinfo {
    int type;
    int d16[2];
    int e8m0;
    int max_nb_exact; /* block count that keeps every partial sum below 2^24 */
} tinfo;

static const tinfo g_types[] = {
    {MIO_TYPE_Q4_0, {0, -1}, -1, 64},   {MIO_TYPE_Q4_1, {0, 2}, -1, 64},    {MIO_TYPE_Q5_0, {0, -1}, -1, 64},
    {MIO_TYPE_Q5_1, {0, 2}, -1, 64},    {MIO_TYPE_Q8_0, {0, -1}, -1, 64},   {MIO_TYPE_IQ4_NL, {0, -1}, -1, 64},
    {MIO_TYPE_MXFP4, {-1, -1}, 0, 64},  {MIO_TYPE_Q2_K, {80, 82}, -1, 4},   {MIO_TYPE_Q3_K, {108, -1}, -1, 4},
    {MIO_TYPE_Q4_K, {0, 2}, -1, 4},     {MIO_TYPE_Q5_K, {0, 2}, -1, 4},     {MIO_TYPE_Q6_K, {208, -1}, -1, 4},
    {MIO_TYPE_TQ1_0, {52, -1}, -1, 16}, {MIO_TYPE_TQ2_0, {64, -1}, -1, 16}, {MIO_TYPE_IQ4_XS, {0, -1}, -1, 4},
    {MIO_TYPE_F32, {-1, -1}, -1, 0},    {MIO_TYPE_F16, {-1, -1}, -1, 0},    {MIO_TYPE_BF16, {-1, -1}, -1, 0},
};
#define N_TINFO (sizeof g_types / sizeof g_types[0])

static int is_float(int t) { return t == MIO_TYPE_F32 || t == MIO_TYPE_F16 || t == MIO_TYPE_BF16; }

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint16_t bf16_of(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)(u >> 16); } /* exact for small ints */

/* One element of a float type from a small integer. */
static void put_float(int t, uint8_t *p, float v) {
    if (t == MIO_TYPE_F32) memcpy(p, &v, 4);
    else if (t == MIO_TYPE_F16) put16(p, half_from_f32(v));
    else put16(p, bf16_of(v));
}

/* Activation rows in the dot type `at` for n elements: integer codes in
 * [lo, hi] (float types: [-2, 2]) with unit scales (exact), the aux fields
 * (q8_K bsums, q8_1 s) consistent with the codes. */
static void make_act_range(int at, size_t n, uint8_t *a, int lo, int hi) {
    if (is_float(at)) {
        size_t es = (size_t)mio_type_block_bytes(at);
        for (size_t i = 0; i < n; i++) put_float(at, a + i * es, (float)irand(-2, 2));
        return;
    }
    size_t blk = (size_t)mio_type_block_size(at), bb = (size_t)mio_type_block_bytes(at);
    for (size_t b = 0; b < n / blk; b++) {
        uint8_t *p = a + b * bb;
        if (at == MIO_TYPE_Q8_K) {
            float one = 1.0f;
            memcpy(p, &one, 4);
            for (int k = 0; k < 16; k++) {
                int16_t s = 0;
                for (int j = 0; j < 16; j++) {
                    int8_t q = (int8_t)irand(lo, hi);
                    p[4 + 16 * k + j] = (uint8_t)q;
                    s = (int16_t)(s + q);
                }
                memcpy(p + 260 + 2 * k, &s, 2);
            }
        } else {
            int off = at == MIO_TYPE_Q8_1 ? 4 : 2, sum = 0;
            put16(p, 0x3c00);
            for (int j = 0; j < 32; j++) {
                int8_t q = (int8_t)irand(lo, hi);
                p[off + j] = (uint8_t)q;
                sum += q;
            }
            if (at == MIO_TYPE_Q8_1) put16(p + 2, half_from_f32((float)sum));
        }
    }
}

static void make_act_exact(int at, size_t n, uint8_t *a) { make_act_range(at, n, a, -2, 2); }

/* Raw random weight bytes with every scale field 1.0 (float types: small integers). */
static void make_w_exact(const tinfo *ti, size_t n, uint8_t *w) {
    if (is_float(ti->type)) {
        size_t es = (size_t)mio_type_block_bytes(ti->type);
        for (size_t i = 0; i < n; i++) put_float(ti->type, w + i * es, (float)irand(-8, 8));
        return;
    }
    size_t blk = (size_t)mio_type_block_size(ti->type), bb = (size_t)mio_type_block_bytes(ti->type);
    for (size_t i = 0; i < n / blk * bb; i++) w[i] = (uint8_t)rnd();
    for (size_t b = 0; b < n / blk; b++) {
        for (int f = 0; f < 2; f++)
            if (ti->d16[f] >= 0) put16(w + b * bb + (size_t)ti->d16[f], 0x3c00);
        if (ti->e8m0 >= 0) w[b * bb + (size_t)ti->e8m0] = 128;
    }
}

/* The float-result tolerance between a back end and the portable C for one
 * row. Both compute each block's integer sum exactly and rescale it once; they
 * differ in how the f32 terms are added: the portable C adds one term per block
 * in block order, a SIMD kernel keeps per-lane partial sums (a block's sum may
 * be split over lanes before its rescale, each lane part rounded once) and
 * reduces the lanes at the end. Each of the at most nb + 8 roundings of the
 * longer chain is within 2^-24 of a partial sum whose magnitude is bounded by
 * the sum of |lane parts|; on random data lane parts exceed their block's
 * |contribution| by cancellation inside the block by a small factor (here 16,
 * generous: random signs give about sqrt(lanes)). S = sum_i |t_i| with t_i the
 * portable result of block i alone. */
static double tol(size_t nb, double S) { return 16.0 * (double)(nb + 8) * 0x1.0p-24 * S + 1e-30; }

/* Block-wise |contributions| of one row under the portable kernel. */
static double abs_contrib(dot_kernel_fn fn, int wt, int at, const uint8_t *w, const uint8_t *a, size_t nb) {
    size_t wb = (size_t)mio_type_block_bytes(wt), ab = (size_t)mio_type_block_bytes(at);
    if (is_float(wt)) ab = wb = (size_t)mio_type_block_bytes(wt) * 1; /* element = block of 1 */
    double s = 0;
    for (size_t b = 0; b < nb; b++) {
        float r;
        fn(w + b * wb, 1, a + b * ab, 0, 1, &r);
        s += fabs((double)r);
    }
    return s;
}

/* kern_dotx_fn's activation scales: row r's nb block scales of activation rows
 * a (a_stride bytes apart) as floats, then for q8_1 their s values (f16 / bf16
 * activations: the nb values); ads floats per row. */
static size_t make_ad(int at, const uint8_t *a, size_t a_stride, size_t nb, size_t m, float *ad) {
    if (at == MIO_TYPE_F16 || at == MIO_TYPE_BF16) { /* the nb values themselves */
        for (size_t r = 0; r < m; r++)
            if (mio_decode_f32(at, a + r * a_stride, nb * 2, ad + r * nb, nb)) abort();
        return nb;
    }
    const int q81 = at == MIO_TYPE_Q8_1;
    const size_t abb = (size_t)mio_type_block_bytes(at), ads = nb * (q81 ? 2 : 1);
    for (size_t r = 0; r < m; r++)
        for (size_t b = 0; b < nb; b++) {
            const uint8_t *blk = a + r * a_stride + b * abb;
            if (at == MIO_TYPE_Q8_K) memcpy(&ad[r * ads + b], blk, 4); /* an f32 d */
            else if (mio_decode_f32(MIO_TYPE_F16, blk, 2, &ad[r * ads + b], 1)) abort();
            if (q81 && mio_decode_f32(MIO_TYPE_F16, blk + 2, 2, &ad[r * ads + nb + b], 1)) abort();
        }
    return ads;
}

/* dotx[wt] (when the level has one) against dot[wt] on the same rows: the same
 * floats, bit for bit */
static void check_dotx(const char *lvl, const mio_kernels *bk, int wt, int at, const uint8_t *w, size_t nbw,
                       const uint8_t *a, size_t a_stride, size_t m, const float *out_s, const char *what) {
    kern_dotx_fn fx = bk->dotx[wt];
    if (!fx) return;
    float *ad = malloc(sizeof(float) * nbw * 2 * m + 1), out_x[65];
    if (!ad || m > 65) abort();
    size_t ads = make_ad(at, a, a_stride, nbw, m, ad);
    fx(w, nbw, a, a_stride, ad, ads, m, out_x);
    for (size_t r = 0; r < m; r++) {
        if (memcmp(&out_x[r], &out_s[r], 4) != 0) {
            fprintf(stderr, "%s: %s %s (%s) nb=%zu m=%zu row %zu: dotx %.9g, dot %.9g\n", __FILE__, lvl,
                    mio_type_name(wt), what, nbw, m, r, (double)out_x[r], (double)out_s[r]);
            T_CHECK(0);
        } else t_pass++;
    }
    free(ad);
}

/* mxfp4's e8m0 scales over their whole range (0 and 1 are the subnormal
 * halves, 254 and 255 overflow the products to inf), 8 per batch of 8 blocks:
 * dot[mxfp4] and dotx[mxfp4] equal to the portable kernel bit for bit (small
 * integer activations: every partial sum is exact or the same inf). */
static void test_mxfp4_scales(const char *lvl, const mio_kernels *bk) {
    kern_dot_fn simd = bk->dot[MIO_TYPE_MXFP4];
    const dot_kernel *pk = mio_dot_kernel_get(MIO_TYPE_MXFP4);
    if (!simd || !pk) return;
    /* the first batch only tiny scales (their sums stay visible), then large ones */
    static const uint8_t ex[16] = {0, 1, 2, 1, 0, 3, 1, 2, 126, 127, 128, 129, 200, 253, 254, 255};
    uint8_t w[16 * 17], a[16 * 34];
    for (int b = 0; b < 16; b++) {
        w[b * 17] = ex[b];
        for (int k = 1; k < 17; k++) w[b * 17 + k] = (uint8_t)rnd();
    }
    make_act_range(MIO_TYPE_Q8_0, 16 * 32, a, -3, 3);
    float os, op;
    for (size_t nb = 8; nb <= 16; nb += 8) {
        simd(w, nb, a, 0, 1, &os);
        pk->fn(w, nb, a, 0, 1, &op);
        if (memcmp(&os, &op, 4) != 0) {
            fprintf(stderr, "%s: %s mxfp4 e8m0 range, nb=%zu: %.9g vs portable %.9g\n", __FILE__, lvl, nb, (double)os,
                    (double)op);
            T_CHECK(0);
        } else t_pass++;
        check_dotx(lvl, bk, MIO_TYPE_MXFP4, MIO_TYPE_Q8_0, w, nb, a, 0, 1, &os, "e8m0 range");
    }
}

static int g_checked_types;
static double g_worst; /* largest |simd - portable| / tol() seen on real data, per level */

static void test_dot_level(const char *lvl, const mio_kernels *bk) {
    enum { MAXM = 65 };
    static const size_t ms[] = {1, 2, 3, 4, 5, 7, 8, 12, 17, 64, 65}; /* every tail of the 8/4-row passes */
    for (size_t ti_i = 0; ti_i < N_TINFO; ti_i++) {
        const tinfo *ti = &g_types[ti_i];
        const int wt = ti->type;
        kern_dot_fn simd = bk->dot[wt];
        const dot_kernel *pk = mio_dot_kernel_get(wt);
        if (!simd) continue;
        if (!pk) {
            fprintf(stderr, "%s: back end %s has a dot kernel for %s, which has no portable kernel\n", __FILE__,
                    lvl, mio_type_name(wt));
            T_CHECK(0);
            continue;
        }
        g_checked_types++;
        const int at = pk->atype;
        const size_t blk = (size_t)mio_type_block_size(wt);
        const size_t wbb = (size_t)mio_type_block_bytes(wt);
        const size_t abk = (size_t)mio_type_block_size(at), abb = (size_t)mio_type_block_bytes(at);
        /* lengths in elements */
        size_t lens[16], nl = 0;
        if (is_float(wt)) {
            static const size_t fl[] = {1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 255, 256, 1000, 4096};
            for (size_t i = 0; i < 16; i++) lens[nl++] = fl[i];
        } else {
            static const size_t bl[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 64, 128};
            for (size_t i = 0; i < 12; i++) lens[nl++] = bl[i] * blk;
        }
        int fails_before = t_fail;
        for (size_t li = 0; li < nl && t_fail - fails_before < 5; li++) {
            const size_t n = lens[li], nbw = n / blk;
            const size_t w_bytes = nbw * wbb, a_row = n / abk * abb, a_stride = a_row + 3; /* odd stride */
            uint8_t *w = malloc(w_bytes + 1), *a = malloc(a_stride * MAXM + 1);
            float *xf = malloc(sizeof(float) * n * MAXM), *wf = malloc(sizeof(float) * n);
            float out_s[MAXM], out_p[MAXM], one;
            if (!w || !a || !xf || !wf) { T_CHECK(0); return; }
            /* 1. exact: integer-valued data */
            size_t max_exact = is_float(wt) ? 4096 : (size_t)ti->max_nb_exact * blk;
            if (n <= max_exact) {
                for (int rep = 0; rep < 4; rep++) {
                    make_w_exact(ti, n, w);
                    for (size_t r = 0; r < 3; r++) make_act_exact(at, n, a + r * a_stride);
                    simd(w, nbw, a, a_stride, 3, out_s);
                    pk->fn(w, nbw, a, a_stride, 3, out_p);
                    for (size_t r = 0; r < 3; r++) {
                        if (out_s[r] != out_p[r]) {
                            fprintf(stderr, "%s: %s %s n=%zu row %zu: integer data gives %.9g, portable %.9g\n",
                                    __FILE__, lvl, mio_type_name(wt), n, r, (double)out_s[r], (double)out_p[r]);
                            T_CHECK(0);
                        } else t_pass++;
                    }
                }
            }
            /* 2. real data: encoded weights, quantized activations */
            for (size_t i = 0; i < n; i++) wf[i] = frand() * (i % 97 == 5 ? 8.0f : 1.0f);
            for (size_t i = 0; i < n * MAXM; i++) xf[i] = frand() * 3.0f;
            if (mio_encode_f32(wt, wf, n, w, w_bytes)) { T_CHECK(0); goto next; }
            for (size_t r = 0; r < MAXM; r++) {
                if (at == MIO_TYPE_F32) memcpy(a + r * a_stride, xf + r * n, n * 4);
                else if (mio_encode_f32(at, xf + r * n, n, a + r * a_stride, a_row)) { T_CHECK(0); goto next; }
            }
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                size_t m = ms[mi];
                simd(w, nbw, a, a_stride, m, out_s);
                pk->fn(w, nbw, a, a_stride, m, out_p);
                check_dotx(lvl, bk, wt, at, w, nbw, a, a_stride, m, out_s, "encoded weights");
                for (size_t r = 0; r < m; r++) {
                    size_t nbe = is_float(wt) ? n : nbw;
                    double S = abs_contrib(pk->fn, wt, at, w, a + r * a_stride, nbe);
                    double d = fabs((double)out_s[r] - (double)out_p[r]);
                    if (d / tol(nbe, S) > g_worst) g_worst = d / tol(nbe, S);
                    /* the float dots follow one summation on every level: the same float */
                    if (is_float(wt) ? memcmp(&out_s[r], &out_p[r], 4) != 0 : !(d <= tol(nbe, S))) {
                        fprintf(stderr, "%s: %s %s n=%zu m=%zu row %zu: %.9g vs portable %.9g (|diff| %.3g > tol %.3g)\n",
                                __FILE__, lvl, mio_type_name(wt), n, m, r, (double)out_s[r], (double)out_p[r], d,
                                tol(nbe, S));
                        T_CHECK(0);
                    } else t_pass++;
                    /* the result of row r does not depend on m */
                    simd(w, nbw, a + r * a_stride, a_stride, 1, &one);
                    if (memcmp(&one, &out_s[r], 4) != 0) {
                        fprintf(stderr, "%s: %s %s n=%zu: row %zu of m=%zu gives %.9g, alone %.9g\n", __FILE__, lvl,
                                mio_type_name(wt), n, r, m, (double)out_s[r], (double)one);
                        T_CHECK(0);
                    } else t_pass++;
                }
            }
            /* 3. raw random weight bytes (finite scales): no crash, finite-vs-finite agreement */
            if (!is_float(wt)) {
                make_w_exact(ti, n, w);
                simd(w, nbw, a, a_stride, 2, out_s);
                pk->fn(w, nbw, a, a_stride, 2, out_p);
                check_dotx(lvl, bk, wt, at, w, nbw, a, a_stride, 2, out_s, "raw weight bytes"); /* -128 codes too */
                for (size_t r = 0; r < 2; r++) {
                    double S = abs_contrib(pk->fn, wt, at, w, a + r * a_stride, nbw);
                    double d = fabs((double)out_s[r] - (double)out_p[r]);
                    if (!(d <= tol(nbw, S))) {
                        fprintf(stderr, "%s: %s %s n=%zu raw bytes row %zu: %.9g vs portable %.9g\n", __FILE__, lvl,
                                mio_type_name(wt), n, r, (double)out_s[r], (double)out_p[r]);
                        T_CHECK(0);
                    } else t_pass++;
                }
            }
        next:
            free(w), free(a), free(xf), free(wf);
        }
    }
}

/* n bytes ending exactly at a PROT_NONE page (a read one byte past them
 * faults); *base / *len for guarded_free. */
static uint8_t *guarded_alloc(size_t n, void **base, size_t *len) {
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = (n + pg - 1) / pg * pg;
    *len = body + pg;
    uint8_t *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (mprotect(m + body, pg, PROT_NONE) != 0) { munmap(m, *len); return NULL; }
    *base = m;
    return m + body - n;
}

/* Full-range activation codes (-128..127, so the q8_0 -128 path and large
 * products are used) against raw weight bytes with unit scales: one block per
 * row is compared bit for bit (a single block's term is the same f32
 * expression on both sides once its integer sum is exact); longer rows within
 * tol(). The weight row and the last activation row end at a guard page
 * (stride = row size, no slack), so any read past either faults. m = 5 covers
 * a 4-row pass plus a 1-row tail. */
static void test_dot_full_range(const char *lvl, const mio_kernels *bk) {
    enum { M = 5 };
    for (size_t ti_i = 0; ti_i < N_TINFO; ti_i++) {
        const tinfo *ti = &g_types[ti_i];
        const int wt = ti->type;
        kern_dot_fn simd = bk->dot[wt];
        const dot_kernel *pk = mio_dot_kernel_get(wt);
        if (!simd || !pk || is_float(wt)) continue;
        const int at = pk->atype;
        const size_t blk = (size_t)mio_type_block_size(wt), wbb = (size_t)mio_type_block_bytes(wt);
        const size_t abb = (size_t)mio_type_block_bytes(at) * (blk / (size_t)mio_type_block_size(at));
        static const size_t nbs[] = {1, 2, 3, 5, 8, 9, 17};
        int fails_before = t_fail;
        for (size_t k = 0; k < sizeof nbs / sizeof nbs[0] && t_fail - fails_before < 5; k++) {
            const size_t nb = nbs[k], n = nb * blk;
            void *wbase = NULL, *abase = NULL;
            size_t wlen = 0, alen = 0;
            uint8_t *w = guarded_alloc(nb * wbb, &wbase, &wlen), *a = guarded_alloc(nb * abb * M, &abase, &alen);
            if (!w || !a) {
                T_CHECK(0);
                if (w) munmap(wbase, wlen);
                if (a) munmap(abase, alen);
                return;
            }
            for (int rep = 0; rep < (nb == 1 ? 200 : 10); rep++) {
                float out_s[M], out_p[M];
                make_w_exact(ti, n, w);
                for (size_t r = 0; r < M; r++) make_act_range(at, n, a + r * nb * abb, -128, 127);
                simd(w, nb, a, nb * abb, M, out_s);
                pk->fn(w, nb, a, nb * abb, M, out_p);
                for (size_t r = 0; r < M; r++) {
                    double S = abs_contrib(pk->fn, wt, at, w, a + r * nb * abb, nb);
                    double d = fabs((double)out_s[r] - (double)out_p[r]);
                    int ok = nb == 1 ? memcmp(&out_s[r], &out_p[r], 4) == 0 : d <= tol(nb, S);
                    if (!ok) {
                        fprintf(stderr, "%s: %s %s full-range codes, %zu block(s), row %zu: %.9g, portable %.9g\n",
                                __FILE__, lvl, mio_type_name(wt), nb, r, (double)out_s[r], (double)out_p[r]);
                        T_CHECK(0);
                        break;
                    }
                    t_pass++;
                }
            }
            munmap(wbase, wlen), munmap(abase, alen);
        }
    }
}

/* ------------------------------------------------------------------ activation quantizers */
static void fill_case(float *x, size_t n, int kind) {
    for (size_t i = 0; i < n; i++) {
        float v = frand();
        switch (kind) {
        case 0: x[i] = v; break;
        case 1: x[i] = v * 1e30f; break;
        case 2: x[i] = v * 1e-38f; break;             /* subnormal-heavy */
        case 3: x[i] = v * 3e-45f; break;             /* a few denormal steps */
        case 4: x[i] = (i % 32 == 7) ? 127.0f : (float)irand(-126, 126) + 0.5f; break; /* d = 1: ties */
        case 5: x[i] = (i % 32 == 3) ? -127.0f : (float)irand(-253, 253) * 0.25f; break; /* negative max, quarters */
        case 6: x[i] = (i % 37 == 0) ? v : 0.0f; break;   /* mostly zero, all-zero blocks */
        case 7: x[i] = (i % 256 == 100) ? 65504.0f * 127 : v * 1e3f; break; /* one large value */
        default: x[i] = -0.0f; break;
        }
    }
}

static void test_act_level(const char *lvl, const mio_kernels *bk) {
    static const struct { int type; size_t off; } acts[] = {
        {MIO_TYPE_Q8_0, offsetof(mio_kernels, act_q8_0)},
        {MIO_TYPE_Q8_1, offsetof(mio_kernels, act_q8_1)},
        {MIO_TYPE_Q8_K, offsetof(mio_kernels, act_q8_K)},
    };
    enum { N = 256 * 40 };
    float *x = malloc(sizeof(float) * N);
    uint8_t *ys = malloc(N * 2), *yp = malloc(N * 2);
    if (!x || !ys || !yp) { T_CHECK(0); return; }
    for (size_t ai = 0; ai < 3; ai++) {
        kern_act_fn fn;
        memcpy(&fn, (const char *)bk + acts[ai].off, sizeof fn);
        if (!fn) continue;
        const int t = acts[ai].type;
        const size_t blk = (size_t)mio_type_block_size(t), bb = (size_t)mio_type_block_bytes(t);
        for (int kind = 0; kind <= 8; kind++) {
            for (size_t nb = 1; nb <= N / blk; nb = nb * 3 + 1) {
                size_t n = nb * blk, bytes = nb * bb;
                fill_case(x, n, kind);
                memset(ys, 0xAA, bytes);
                fn(x, ys, (int64_t)nb);
                if (mio_encode_f32(t, x, n, yp, bytes)) { T_CHECK(0); continue; }
                if (memcmp(ys, yp, bytes) != 0) {
                    size_t i = 0;
                    while (ys[i] == yp[i]) i++;
                    fprintf(stderr, "%s: %s act %s case %d, %zu blocks: byte %zu (block %zu +%zu) is 0x%02x, portable 0x%02x\n",
                            __FILE__, lvl, mio_type_name(t), kind, nb, i, i / bb, i % bb, ys[i], yp[i]);
                    T_CHECK(0);
                } else t_pass++;
            }
        }
    }
    free(x), free(ys), free(yp);
}

/* ptqtp_search against mio_ptqtp_search_portable. */
static void test_ptqtp_level(const char *lvl, const mio_kernels *bk) {
    if (!bk->ptqtp_search) return;
    static const int lens[] = {8, 16, 24, 56, 64, 256, 264};
    float w[264], vals[PTQTP_MAX_CAND];
    uint8_t label[PTQTP_MAX_CAND], want[264], got[264];
    long diffs = 0, cases = 0;
    for (int K = 1; K <= 3; K++) {
        const int nc = ptqtp_cand_count(K);
        for (int i = 0; i < nc; i++) label[i] = ptqtp_label(K, i);
        for (int rep = 0; rep < 300; rep++) {
            float a[3];
            for (int p = 0; p < 3; p++) a[p] = frand();
            if (rep % 5 == 1) a[1] = a[0];               /* equal scales: duplicate values */
            if (rep % 7 == 2) a[K - 1] = 0.0f;           /* a zero scale */
            if (rep % 11 == 3) for (int p = 0; p < 3; p++) a[p] *= 1e20f; /* squares overflow */
            for (int i = 0; i < nc; i++) {
                float v = a[0] * (float)mio_ptqtp_cand[K - 1][i][0];
                if (K >= 2) v += a[1] * (float)mio_ptqtp_cand[K - 1][i][1];
                if (K == 3) v += a[2] * (float)mio_ptqtp_cand[K - 1][i][2];
                vals[i] = v;
            }
            const int n = lens[rep % 7];
            for (int j = 0; j < n; j++) {
                switch (irand(0, 9)) {
                case 0: w[j] = (vals[irand(0, nc - 1)] + vals[irand(0, nc - 1)]) * 0.5f; break; /* a tie */
                case 1: w[j] = vals[irand(0, nc - 1)]; break;
                case 2: w[j] = irand(0, 1) ? NAN : (irand(0, 1) ? INFINITY : -INFINITY); break;
                case 3: w[j] = irand(0, 1) ? 0.0f : -0.0f; break;
                case 4: w[j] = frand() * 1e-40f; break; /* subnormal */
                case 5: w[j] = frand() * 3e38f; break;
                default: w[j] = frand() * 2.0f; break;
                }
            }
            mio_ptqtp_search_portable(w, n, vals, label, nc, want);
            memset(got, 0xFF, sizeof got);
            bk->ptqtp_search(w, n, vals, label, nc, got);
            diffs += memcmp(want, got, (size_t)n) != 0;
            diffs += got[n % 264] != 0xFF && n < 264; /* nothing written past n */
            cases++;
        }
    }
    T_EQ_INT(diffs, 0);
    printf("level %s: ptqtp_search equal to the portable search in %ld cases\n", lvl, cases);
}

/* iq4_index / iq4_trials against the halving rule of quant/iq.c nl4_index. */
static const int8_t g_nl4[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
static int nl4_ref(float v) {
    const float v2 = v + v;
    int idx = 0;
    for (int step = 8; step > 0; step >>= 1) {
        int j = idx + step;
        idx = v2 >= (float)(g_nl4[j - 1] + g_nl4[j]) ? j : idx;
    }
    return idx;
}
static float iq4_value(void) {
    const int k = irand(0, 14);
    const float m = (float)(g_nl4[k] + g_nl4[k + 1]) * 0.5f; /* exactly a midpoint */
    switch (irand(0, 5)) {
    case 0: return m;
    case 1: return nextafterf(m, INFINITY);
    case 2: return nextafterf(m, -INFINITY);
    case 3: return irand(0, 1) ? 0.0f : -0.0f;
    case 4: return frand() * 1e30f;
    default: return frand() * 140.0f;
    }
}
static void test_iq4_level(const char *lvl, const mio_kernels *bk) {
    if (!bk->iq4_index && !bk->iq4_trials) return;
    iq4_consts c;
    for (int k = 0; k < 16; k++) {
        c.lev[k] = (float)g_nl4[k];
        c.mid[k] = k < 15 ? (float)(g_nl4[k] + g_nl4[k + 1]) : 0.0f;
    }
    long diffs = 0, cases = 0;
    float x[256], w[32], ids[16], sx[16], s2[16];
    uint8_t L[257];
    for (int rep = 0; rep < 400; rep++) {
        for (int j = 0; j < 256; j++) x[j] = iq4_value();
        if (bk->iq4_index) {
            const int n = rep % 2 ? 256 : 32;
            L[n] = 0xEE;
            bk->iq4_index(x, n, 1.0f, &c, L); /* id 1: x itself is the value searched */
            for (int j = 0; j < n; j++) diffs += L[j] != nl4_ref(x[j]);
            diffs += L[n] != 0xEE; /* nothing written past n */
            cases++;
        }
        if (bk->iq4_trials) {
            for (int j = 0; j < 32; j++) {
                x[j] = frand() * 3.0f;
                w[j] = rep % 3 ? frand() * frand() + 0.5f : x[j] * x[j];
            }
            for (int k = 0; k < 16; k++) ids[k] = (float)(irand(-134, -120)) / (frand() * 3.0f + 0.01f);
            bk->iq4_trials(x, w, ids, &c, sx, s2);
            for (int k = 0; k < 16; k++) {
                float a = 0, b = 0;
                for (int j = 0; j < 32; j++) {
                    const float q = (float)g_nl4[nl4_ref(ids[k] * x[j])];
                    a += w[j] * q * x[j];
                    b += w[j] * q * q;
                }
                diffs += memcmp(&a, &sx[k], 4) != 0 || memcmp(&b, &s2[k], 4) != 0;
            }
            cases++;
        }
    }
    T_EQ_INT(diffs, 0);
    printf("level %s: iq4_index / iq4_trials equal to the scalar rule in %ld cases\n", lvl, cases);
}

static void test_sort_level(const char *lvl, const mio_kernels *bk) {
    if (!bk->iq_sort_idx) return;
    long bad = 0, cases = 0;
    float v[32];
    int8_t idx[33];
    for (int rep = 0; rep < 600; rep++) {
        const int n = rep % 2 ? 32 : 16;
        for (int j = 0; j < n; j++) v[j] = (frand() - 0.5f) * (rep % 5 ? 2.0f : 1e-30f);
        int distinct = 1;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++) distinct &= v[i] != v[j];
        if (!distinct) continue;
        idx[n] = 99;
        if (bk->iq_sort_idx(v, n, idx) != 0) { bad++; continue; }
        int seen[32] = {0};
        for (int r = 0; r < n; r++) {
            if (idx[r] < 0 || idx[r] >= n || seen[idx[r]]++) { bad++; break; }
            if (r > 0 && !(v[idx[r - 1]] < v[idx[r]])) bad++;
        }
        bad += idx[n] != 99; /* nothing written past n */
        cases++;
        /* a tie, +0 with -0, a NaN: refused, so the caller sorts as qsort */
        const int a = irand(0, n - 1), b = (a + 1 + irand(0, n - 2)) % n;
        float t[32];
        memcpy(t, v, sizeof t);
        t[b] = t[a];
        bad += bk->iq_sort_idx(t, n, idx) != 1;
        t[a] = 0.0f; t[b] = -0.0f;
        bad += bk->iq_sort_idx(t, n, idx) != 1;
        memcpy(t, v, sizeof t);
        t[a] = NAN;
        bad += bk->iq_sort_idx(t, n, idx) != 1;
        cases += 3;
    }
    T_EQ_INT(bad, 0);
    T_CHECK(cases > 1000);
    printf("level %s: iq_sort_idx ordered or refused correctly in %ld cases\n", lvl, cases);
}

int main(void) {
    /* the library's own tables are the portable ones: mio_encode_f32 and mio_dot_kernel_get */
    setenv("MIO_ISA", "scalar", 1);
    T_EQ_STR(mio_cpu_isa(), "scalar");
    int levels = 0;
    static const mio_isa lv[] = {MIO_ISA_AVX2, MIO_ISA_AVX512, MIO_ISA_NEON};
    for (size_t l = 0; l < sizeof lv / sizeof lv[0]; l++) {
        if (!mio_cpu_isa_runs(lv[l])) continue;
        mio_kernels k;
        memset(&k, 0, sizeof k);
        int any = 0;
        for (size_t b = 0; g_back[b].name; b++)
            if (mio_cpu_isa_includes(lv[l], g_back[b].isa)) { mio_kernels_apply(&k, g_back[b].fill); any = 1; }
        if (!any) continue;
        const char *name = mio_cpu_isa_name(lv[l]);
        int before = g_checked_types;
        g_worst = 0;
        test_dot_level(name, &k);
        test_dot_full_range(name, &k);
        test_mxfp4_scales(name, &k);
        test_act_level(name, &k);
        test_ptqtp_level(name, &k);
        test_iq4_level(name, &k);
        test_sort_level(name, &k);
        printf("level %s: dot kernels for %d types checked; largest difference from the portable C: %.1f %% of the "
               "tolerance\n", name, g_checked_types - before, 100 * g_worst);
        levels++;
    }
    if (!levels) T_SKIP("no SIMD back end in this build runs on this CPU: nothing to compare with the portable C");
    T_DONE();
}
