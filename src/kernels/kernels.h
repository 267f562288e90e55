/* SPDX-License-Identifier: MIT */
/* kernels.h — the codec kernel table: one function pointer per operation that
 * has an ISA-specific version. kernels/dispatch.c builds it once from the level
 * core/cpu.c chose: the entries of every back end that level includes (avx2's
 * for avx512, ...), later back ends overriding earlier ones. A NULL entry means
 * "no kernel at this level": the family code (src/quant/) runs its portable C.
 * Every kernel gives exactly the bits of the portable C (same IEEE operations
 * in the same order per element/lane, no FMA contraction).
 * Family code never names an ISA: it asks mio_kernels_get() once (at registration)
 * and tests entries for NULL. A back end is a folder kernels/<isa>/ (its own
 * CMake object library and flags) with a fill function declared below. */
#ifndef MIO_KERNELS_H
#define MIO_KERNELS_H

#include "core/cpu.h"
#include "kernels/iq_kernels.h"
#include "kernels/kquants_kernels.h"
#include "kernels/packed_kernels.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*kern_dec_fn)(const void *x, float *y, int64_t nb);
/* A dot-product kernel (src/dot/, contract in dot/dot_internal.h): one weight
 * row of nb blocks (GGUF wire bytes) against m activation rows already in the
 * weight type's dot type, a_stride bytes apart; the m results into out. */
typedef void (*kern_dot_fn)(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out);
/* The same with the activation rows' block scales already as f32 (ad: row i's
 * at ad + i * ad_stride, nb of them — q8_K's f32 d as it is; for q8_1
 * activations the nb s values follow; for f16 / bf16 activations the n values
 * themselves) —
 * mio_matvec/mio_matmul convert them once per call instead of once per weight
 * row — and activation codes that come from libmodelio's own encoders (never
 * -128). Same result as the kern_dot_fn of the type, bit for bit. */
typedef void (*kern_dotx_fn)(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, const float *ad,
                             size_t ad_stride, size_t m, float *out);
/* An activation quantizer: nb blocks of floats at x into wire blocks at y. */
typedef void (*kern_act_fn)(const float *x, uint8_t *y, int64_t nb);

typedef struct mio_kernels {
    /* --- plain casts (quant/scalar.c): n values, any alignment --- */
    void (*f32_to_bf16)(const float *x, uint8_t *y, int64_t n);
    void (*f32_to_f16)(const float *x, uint8_t *y, int64_t n); /* exactly core/half.h's half_from_f32 */
    void (*bf16_to_f32)(const uint8_t *x, float *y, int64_t n);
    void (*f16_to_f32)(const uint8_t *x, float *y, int64_t n); /* exact, quiets sNaN as core/half.h */

    /* --- legacy 32-element blocks (quant/legacy.c) --- */
    /* The plain encoders of q4_0 / q4_1 / q5_0 / q5_1 on up to nb blocks of 32
     * floats at x into wire blocks at y; each stops before the first block it
     * leaves to the scalar encoder (a zero extreme, a tie for the largest
     * magnitude, a non-finite scale, or a tail of fewer than 8 blocks) and
     * returns the blocks done. */
    int64_t (*enc_q4_0)(const float *x, uint8_t *y, int64_t nb);
    int64_t (*enc_q4_1)(const float *x, uint8_t *y, int64_t nb);
    int64_t (*enc_q5_0)(const float *x, uint8_t *y, int64_t nb);
    int64_t (*enc_q5_1)(const float *x, uint8_t *y, int64_t nb);
    kern_dec_fn dec_q8_0;
    /* ggml's make_qx_quants(32, nmax, x, L, 1, w) on lg_sym_blocks (8 or 16)
     * consecutive blocks of 32 (x, w: 32 * lg_sym_blocks floats; the q4_0 / q5_0
     * importance-matrix fit): scale[j] and codes L[32*j + i] biased by nmax.
     * (Their q4_1 / q5_1 fit is make_qkx3_quants on blocks of 32: kq_qkx3, n = 32.) */
    void (*lg_fit_sym)(const float *x, const float *w, int nmax, float *scale, int8_t *L);
    int lg_sym_blocks;

    /* --- fp4 (quant/fp4.c) --- */
    /* mxfp4's nibbles of one block of 32: per element the first of the 16
     * E2M1 codes nearest to it (kd[i]: twice code i's value times the scale,
     * i < 8), as fp4.c's e2m1_codes; byte j = code j | code 16+j << 4 */
    void (*mxfp4_codes)(const float *x, const float *kd, uint8_t *qs);

    /* --- k-quants (quant/kquants.c) --- */
    /* make_qkx2_quants on 8 sub-blocks of n (16 or 32) contiguous floats at x:
     * scale[j], the_min[j] and levels L[n*j + i] for sub-block j (wmode: KQ_W_*). */
    void (*kq_qkx2)(const float *x, int n, int nmax, float rmin, float rdelta, int nstep, int wmode, bool use_mad,
                    float *scale, float *the_min, uint8_t *L);
    /* make_qkx3_quants(n, nmax, ., w, ., ., ., -0.9, 0.05, 36, false) on 8
     * sub-blocks of n (16 or 32) at x with weights w laid out like x. */
    void (*kq_qkx3)(const float *x, int n, int nmax, const float *w, float *scale, float *the_min, uint8_t *L);
    /* make_qx_quants(16, nmax, ., ., 1, qw) on the 16 sub-blocks of 16 at x (one
     * super-block; qw: 256 weights, or NULL for x*x); nmax <= 32. */
    void (*kq_qx)(const float *x, int nmax, const float *qw, float *scale, int8_t *L);
    /* make_q3_quants(16, 4, ., ., true) on the 16 sub-blocks of 16 at x (one q3_K block). */
    void (*kq_q3)(const float *x, float *scale, int8_t *L);
    /* the same on 8 consecutive q3_K blocks (x: 2048 floats; scale: 128; L: 2048) */
    void (*kq_q3x8)(const float *x, float *scale, int8_t *L);
    /* kq_requant_min / kq_requant_sym (kquants_kernels.h) for n a multiple of 8 */
    void (*kq_requant_min)(const float *x, int n, float dm, float d, int nmax, uint8_t *L);
    void (*kq_requant_sym)(const float *x, int n, float d, int nmax, int8_t *L);
    kern_dec_fn dec_q4_K, dec_q5_K, dec_q6_K;

    /* --- iq (quant/iq.c) --- */
    /* nearest-entry search over a list of n entries (codes: w rows of pad8(n)
     * codes; lev: 8 levels, nlev used): index of the first entry of smallest
     * weighted distance below FLT_MAX, or -1. */
    int (*iq_list_best)(const uint8_t *codes, int n, int w, const float *lev, int nlev, const float *xv,
                        const float *wt, float scale);
    /* all 2*nsteps+1 trial scales of one iq3 (8 groups of 4) or iq2 (2 groups
     * of 8) sub-block search, as iq.c's iq_trials_scalar: per trial t its codes
     * in column t of lc (element-major), its on-grid group mask and its sums */
    void (*iq_trials)(const lattice *g, const float *xval, const float *weight, const float *waux, float max, float kq,
                      float step, int nsteps, int8_t (*lc)[IQ_TRIALS_MAX], uint8_t *onm, float *sqx, float *sq2);
    /* iq4_nl / iq4_xs scale search: for the 16 inverse scales ids[k] of one
     * sub-block of 32 (the first guess and the 15 trials), the sums over the
     * elements in order of (w*q)*x and (w*q)*q, q the level of ids[k]*x[j] */
    void (*iq4_trials)(const float *x, const float *w, const float *ids, const iq4_consts *c, float *sumqx,
                       float *sumq2);
    /* the level index of id*x[j] for n (a multiple of 16) elements */
    void (*iq4_index)(const float *x, int n, float id, const iq4_consts *c, uint8_t *L);
    /* iq1_m's split scan (see iq1m_test), updating *pk exactly as the scalar scan */
    void (*iq_iq1m_scan)(const float (*px)[24], const float (*pw)[24], const iq1m_consts *c, iq1m_pick *pk);
    /* iq2_xxs's rounding step: the 4 groups of 8 codes of a sub-block at inverse
     * scale id into L, each group's grid map value into e (iq.c's iq2_round) */
    void (*iq_iq2_round)(const lattice *g, const float *xval, float id, int8_t *L, int32_t *e);
    /* iq1_s's split scan over prefix sums sumx/sumw[0..32] (padded to 40),
     * levels xp (k = 0) and xm (k = 1), updating *pk exactly as the scalar scan */
    void (*iq_iq1s_scan)(const float *sumx, const float *sumw, const float *xp, const float *xm, iq1m_pick *pk);
    /* the sorted order of n (16 or 32) values: idx[r] = the position of the value
     * with r smaller ones; returns 0, or 1 (idx undefined) when two values are equal
     * or one is NaN (the caller then sorts as the C library's qsort) */
    int (*iq_sort_idx)(const float *v, int n, int8_t *idx);
    /* grid decoders: the expanded grids (one row of level values per entry) and
     * the 7-bit -> 8-bit sign table come from iq.c */
    void (*dec_iq2_xxs)(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8], const uint8_t *sign8);
    void (*dec_iq2_xs)(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8], const uint8_t *sign8);
    void (*dec_iq2_s)(const void *x, float *y, int64_t nb, const uint8_t (*grid)[8]);
    void (*dec_iq3_xxs)(const void *x, float *y, int64_t nb, const uint8_t (*grid)[4], const uint8_t *sign8);
    void (*dec_iq3_s)(const void *x, float *y, int64_t nb, const uint8_t (*grid)[4]);
    void (*dec_iq1_s)(const void *x, float *y, int64_t nb, const int8_t (*grid)[8], float delta);
    void (*dec_iq1_m)(const void *x, float *y, int64_t nb, const int8_t (*grid)[8], float delta);

    /* --- dot products (src/dot/) --- */
    /* dot[wtype]: the kernel for weights of ggml type wtype against its dot type
     * (mio_vec_dot_type). Integer parts exact; the float result may differ from
     * the portable C only by the order of the per-block f32 accumulation (lanes,
     * then a fixed reduction), never by m or by the thread split: per activation
     * row the arithmetic must not depend on m. */
    kern_dot_fn dot[MIO_TYPE_GGML_COUNT];
    /* dotx[wtype]: optional, dot[wtype] taking the activation scales as f32
     * (kern_dotx_fn); NULL: mio_matvec/mio_matmul use dot[wtype]. A level
     * that replaces dot[wtype] without its own dotx drops the lower one's
     * (mio_kernels_apply). */
    kern_dotx_fn dotx[MIO_TYPE_GGML_COUNT];
    /* Activation quantizers behind mio_encode_f32 for q8_0 (34-byte blocks of
     * 32), q8_1 (36-byte blocks of 32) and q8_K (292-byte blocks of 256):
     * byte-exact with the portable encoders (ggml's reference quantizers) for
     * finite input (the codec screens non-finite input first). */
    kern_act_fn act_q8_0, act_q8_1, act_q8_K;
    /* packed[wtype]: the packed-weight kernel of the layout in
     * kernels/packed_kernels.h (mio_pack_weights / mio_packed_matmul) */
    pk_kernel packed[MIO_TYPE_GGML_COUNT];

    /* --- PTQTP (src/ptqtp/) --- */
    /* The 3^K topology search: for each of n elements (n a multiple of 8) the
     * label of the first of ncand candidate values with the smallest f32
     * squared error, exactly as mio_ptqtp_search_portable (contract in
     * ptqtp/ptqtp_internal.h). */
    void (*ptqtp_search)(const float *w, int n, const float *vals, const uint8_t *label, int ncand, uint8_t *out);
} mio_kernels;

/* The table for the level in use, built once (thread-safe). On success MIO_OK.
 * When MIO_ISA was refused (core/cpu.h) the status and message of mio_cpu_isa_level(),
 * and *k is the portable table (all NULL), so a caller that ignores the status
 * still runs nothing the CPU lacks. */
mio_status mio_kernels_get(const mio_kernels **k);
/* The same table without the status (and without touching mio_last_error()):
 * for code that only registers pointers, like quant/codec.c's table. */
const mio_kernels *mio_kernels_table(void);

/* Back ends: each kernels/<isa>/ folder defines its fill function, which sets
 * the entries it implements. Called only when the CPU runs that ISA (the fill
 * itself is compiled with the back end's flags). */
void mio_kernels_fill_avx2(mio_kernels *k);
void mio_kernels_fill_avx512(mio_kernels *k);
void mio_kernels_fill_neon(mio_kernels *k);
/* Runs one back end's fill over k (the lower levels' entries already in it)
 * and drops each dotx[t] the fill left from a lower level while replacing
 * dot[t]: a dotx belongs to its level's dot. kernels/dispatch.c builds the
 * table with it, tests/kernels/test_kernels.c each level's table. */
void mio_kernels_apply(mio_kernels *k, void (*fill)(mio_kernels *k));

#endif
