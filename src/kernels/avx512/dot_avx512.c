/* SPDX-License-Identifier: MIT */
/* dot_avx512.c — AVX-512 VNNI dot-product kernels (dot/dot_internal.h) for
 * q4_0 q5_0 iq4_nl q4_1 q5_1 (legacy 32-element blocks) and q3_K q4_K q5_K
 * q6_K tq2_0 (256-element super-blocks). Other types keep the lower level's
 * kernel: q2_K (an AVX-512 one in this file's scheme ran a 4096^2 matvec in
 * 0.40 ms where the AVX2 one takes 0.37 ms on the Zen 4 VM of 2026-12-06, so it
 * was not kept; q6_K's, 0.48 ms, is level with the AVX2 one at m = 1 and
 * 7 % faster at m = 8; q3_K's 0.49 ms against 0.60), and q8_0 (the
 * AVX-512 one took 0.53 ms for a 4096^2 matvec where the AVX2 one with its
 * kern_dotx_fn takes 0.38 ms, and moved 14 against 29 GB/s out of cache, on
 * the Zen 5-class VM of 2026-12-05, so it was removed too).
 *
 * Integers. vpdpbusd multiplies UNSIGNED bytes by SIGNED bytes (4 products
 * summed into each int32 lane), so every weight code is made unsigned and the
 * offset is taken out exactly in integers:
 *  - q4_0 q5_0 iq4_nl: u = v + off (off = 8, 16, 128; iq4_nl through
 *    a 16-entry table of kvalues + 128) against the activation codes q, minus
 *    a vpdpbusd of the constant off against q: per lane sum (u - off) * q;
 *  - q4_1 q5_1 q4_K q5_K: the codes are unsigned already (their offsets are
 *    the m / dmin terms with the activation sums, as in the portable C);
 *  - tq2_0: u = v + 1, and the sum of all q (q8_K bsums) subtracted in int32;
 *  - q3_K q6_K: u = v + 4 / v + 32, and off * sum_k sc[k] * bsums[k]
 *    subtracted in int32 (the bsums are the 16 sub-blocks' sums of q).
 * K-quant sub-block scales multiply the vpdpbusd lanes with vpdpwssd (each lane
 * sums 4 products: |lane| < 2^15 for every type here, so its low 16 bits are
 * the lane). Every block's (super-block's) lanes are then summed to ONE exact
 * int32, so each block contributes exactly the portable C's f32 term
 *   (dw * da) * isum [+ mw * sa | - (dmin * da) * summs],
 * computed with the same IEEE operations (this file is built without FMA
 * contraction); the terms are added in f32 lanes (lane = block index mod 8 or
 * mod 4) and the lanes reduced once at the end in a fixed order. So a result
 * differs from the portable C only by the order of the per-block additions.
 *
 * Legacy blocks go 8 at a time ("a chunk", two quads of 4): in a quad, the
 * 16-byte lanes of one register hold the first halves (elements 0..15) of its
 * four blocks, a second register the second halves. Every field of these
 * layouts starts at an even byte, so vpermt2w gathers the codes and the f16
 * scales from 64-byte loads inside the chunk (index vectors built once by
 * leg_init). K-quants go 4 super-blocks at a time (one int reduction for 4).
 *
 * m activation rows: a chunk / group of weights is unpacked once and used for
 * every row with the same per-row instruction sequence, so row i of an m-row
 * call equals the 1-row call bit for bit. A tail (nb % 8 legacy blocks, nb % 4
 * super-blocks) runs through the same code with the missing blocks as zeros —
 * masked loads, whose bytes past the row are zero and not read — so zero
 * scales and codes add exact zeros. */
#include "kernels/avx512/avx512.h"

#include "kernels/dot_kernels.h"
#include "modelio.h"

#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#define AI static inline __attribute__((always_inline))
#define RG 32 /* activation rows per group (accumulators on the stack) */

/* The fixed horizontal sum of 8 lanes. */
AI float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/* ------------------------------------------------------------------ legacy 32-element blocks */
/* Eight blocks ("a chunk") at a time, as two quads of four. In a quad the
 * 16-byte lanes of one register hold the first halves (elements 0..15) of its
 * four blocks, a second register the second halves: the codes are gathered
 * with vpermt2w (every field of these layouts starts at an even byte) from
 * 64-byte loads inside the chunk, the f16 scales with the same instruction.
 * Each quad's int32 lanes are summed to one exact integer per block, so each
 * block contributes exactly the portable C's f32 term (dw * da) * isum
 * (+ mw * sa); the terms are added in 8 f32 lanes (lane = block index mod 8). */
enum { L_Q4_0, L_Q5_0, L_IQ4NL, L_Q4_1, L_Q5_1, L_N };
static const int k_wb[] = {18, 22, 18, 20, 24}; /* weight block bytes */

/* vpermt2w index vectors (word lanes; entries >= 32 pick from the second table) */
typedef struct lidx {
    __m512i qs[2];  /* the two quads' codes */
    __m512i qh[2];  /* q5_0 q5_1: the 4 low then 4 high qh words of a quad */
    __m512i d[2];   /* the scales (and q4_1 q5_1 offsets): one or two picks */
} lidx;
static lidx g_l[L_N];
static __m512i g_a0[2][2], g_a0d[2]; /* q8_0 activations: [quad][half], d */
static __m512i g_a1[2][2], g_a1d[2]; /* q8_1 activations */
static __m512i g_fold;               /* quad_fold's order of the 8 block sums */
/* K-quant constants whose two 32-byte halves differ (loaded, not rebuilt in the loops) */
static __m512i g_k4_shuf[4]; /* q4_K q5_K: chunk c's scale byte (2c / 2c + 1) into each int32 lane */
static __m512i g_k5_bit[4];  /* q5_K: chunk c's qh bit (2c / 2c + 1) */
static __m512i g_tq_mask[2]; /* tq2_0: bits 0-1 / 2-3, bits 4-5 / 6-7 */
static __m512i g_tq_sh[2];   /* tq2_0: the exact shifts undoing 4^l: 0 / 2, 4 / 6 */
static __m512i g_k16_idx[4]; /* 16 sub-blocks: chunk c's int32 lane i takes scale 4c + i / 4 */
static __m512i g_k3_bit[4];  /* q3_K: chunk c's hmask bit (4h + 2p / 4h + 2p + 1; h = c / 2, p = c % 2) */

/* Word w of a chunk from tables starting at words bA and bB (32 words each). */
static uint16_t pick(int w, int bA, int bB) {
    if (w >= bA && w < bA + 32) return (uint16_t)(w - bA);
    if (w >= bB && w < bB + 32) return (uint16_t)(32 + w - bB);
    return 0xffff; /* a layout error: caught by set_idx */
}
static int g_idx_bad;
static __m512i set_idx(const int *words, int n, int bA, int bB) {
    uint16_t v[32] = {0};
    for (int i = 0; i < n; i++) {
        v[i] = pick(words[i], bA / 2, bB / 2); /* table offsets in bytes */
        if (v[i] == 0xffff) g_idx_bad = 1, v[i] = 0;
    }
    return _mm512_loadu_si512((const void *)v);
}
/* The 16-byte fields at word f of the 4 blocks of quad j (block stride s words). */
static __m512i half_idx(int s, int j, int f, int bA, int bB) {
    int w[32];
    for (int i = 0; i < 32; i++) w[i] = s * (4 * j + i / 8) + f + i % 8;
    return set_idx(w, 32, bA, bB);
}
/* The words of the field at word f of blocks k0..k0+n-1 (stride s words), into w[0..n-1]. */
static void field_words(int *w, int s, int f, int k0, int n) {
    for (int i = 0; i < n; i++) w[i] = s * (k0 + i) + f;
}

static void k16_init(void) {
    for (int c = 0; c < 4; c++) {
        int idx[16];
        uint8_t bit[64];
        for (int i = 0; i < 16; i++) idx[i] = 4 * c + i / 4;
        for (int i = 0; i < 64; i++) bit[i] = (uint8_t)(1u << (4 * (c / 2) + 2 * (c % 2) + i / 32));
        g_k16_idx[c] = _mm512_loadu_si512((const void *)idx);
        g_k3_bit[c] = _mm512_loadu_si512((const void *)bit);
    }
}

static void leg_init(void) {
    int w[32];
    /* q4_0 / iq4_nl: 18 bytes = 9 words: d, qs at word 1 */
    for (int t = 0; t < 2; t++) {
        lidx *l = &g_l[t ? L_IQ4NL : L_Q4_0];
        l->qs[0] = half_idx(9, 0, 1, 0, 64);
        l->qs[1] = half_idx(9, 1, 1, 64, 80);
        field_words(w, 9, 0, 0, 8);
        l->d[0] = set_idx(w, 8, 0, 64);
    }
    /* q5_0: 22 bytes = 11 words: d, qh (2 words), qs at word 3 */
    lidx *l = &g_l[L_Q5_0];
    l->qs[0] = half_idx(11, 0, 3, 0, 64);
    l->qs[1] = half_idx(11, 1, 3, 64, 112);
    for (int j = 0; j < 2; j++) {
        field_words(w, 11, 1, 4 * j, 4);
        field_words(w + 4, 11, 2, 4 * j, 4);
        l->qh[j] = set_idx(w, 8, j ? 64 : 0, j ? 112 : 64);
    }
    field_words(w, 11, 0, 0, 8);
    l->d[0] = set_idx(w, 6, 0, 64); /* blocks 0..5 */
    for (int i = 0; i < 6; i++) w[i] = 64; /* lanes 0..5 of d[1] are masked off */
    l->d[1] = set_idx(w, 8, 64, 112);      /* blocks 6, 7 */
    /* q4_1: 20 bytes = 10 words: d, m, qs at word 2 */
    l = &g_l[L_Q4_1];
    l->qs[0] = half_idx(10, 0, 2, 0, 64);
    l->qs[1] = half_idx(10, 1, 2, 64, 96);
    field_words(w, 10, 0, 0, 8);
    field_words(w + 8, 10, 1, 0, 8);
    l->d[0] = set_idx(w, 16, 0, 80);
    /* q5_1: 24 bytes = 12 words: d, m, qh (2 words), qs at word 4 */
    l = &g_l[L_Q5_1];
    l->qs[0] = half_idx(12, 0, 4, 0, 64);
    l->qs[1] = half_idx(12, 1, 4, 96, 128);
    for (int j = 0; j < 2; j++) {
        field_words(w, 12, 2, 4 * j, 4);
        field_words(w + 4, 12, 3, 4 * j, 4);
        l->qh[j] = set_idx(w, 8, j ? 96 : 0, j ? 128 : 64);
    }
    for (int j = 0; j < 2; j++) { /* lanes: d0..d7, m0..m7; pick j serves blocks 4j..4j+3 */
        field_words(w, 12, 0, 0, 8);
        field_words(w + 8, 12, 1, 0, 8);
        for (int i = 0; i < 16; i++)
            if ((i % 8) / 4 != j) w[i] = j ? 48 : 0; /* masked-off lanes: any word in range */
        l->d[j] = set_idx(w, 16, j ? 96 : 0, j ? 128 : 64);
    }
    /* q8_0 activations: 34 bytes = 17 words: d, qs at word 1 */
    static const int a0_tab[2][2][2] = {{{0, 64}, {16, 80}}, {{136, 200}, {144, 208}}};
    static const int a1_tab[2][2][2] = {{{0, 64}, {16, 80}}, {{144, 208}, {160, 224}}};
    for (int j = 0; j < 2; j++)
        for (int h = 0; h < 2; h++) {
            g_a0[j][h] = half_idx(17, j, 1 + 8 * h, a0_tab[j][h][0], a0_tab[j][h][1]);
            g_a1[j][h] = half_idx(18, j, 2 + 8 * h, a1_tab[j][h][0], a1_tab[j][h][1]);
        }
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < 8; i++) w[i] = (i / 4 == j) ? 17 * i : 17 * 4 * j;
        g_a0d[j] = set_idx(w, 8, a0_tab[j][0][0], a0_tab[j][0][1]);
        for (int i = 0; i < 16; i++) w[i] = ((i % 8) / 4 == j) ? 18 * (i % 8) + i / 8 : 18 * 4 * j;
        g_a1d[j] = set_idx(w, 16, a1_tab[j][0][0], a1_tab[j][0][1]);
    }
    g_fold = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int c = 0; c < 4; c++) {
        g_k4_shuf[c] = _mm512_inserti64x4(_mm512_set1_epi32((int)(0xffffff00u | (2u * c))),
                                          _mm256_set1_epi32((int)(0xffffff00u | (2u * c + 1))), 1);
        g_k5_bit[c] = _mm512_inserti64x4(_mm512_set1_epi8((char)(1 << (2 * c))), _mm256_set1_epi8((char)(1 << (2 * c + 1))), 1);
    }
    g_tq_mask[0] = _mm512_inserti64x4(_mm512_set1_epi8(0x03), _mm256_set1_epi8(0x0c), 1);
    g_tq_mask[1] = _mm512_inserti64x4(_mm512_set1_epi8(0x30), _mm256_set1_epi8((char)0xc0), 1);
    g_tq_sh[0] = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi32(2), 1);
    g_tq_sh[1] = _mm512_inserti64x4(_mm512_set1_epi32(4), _mm256_set1_epi32(6), 1);
}

#define LD(p) _mm512_loadu_si512((const void *)(p))
#define PERM(a, i, b) _mm512_permutex2var_epi16(a, i, b)
#define PERMZ(k, a, i, b) _mm512_maskz_permutex2var_epi16(k, a, i, b)
/* The 64 bytes at p + off of a span whose first `valid` bytes may be read:
 * the bytes past it are zero and not read (a masked load does not fault). */
AI __m512i ldv(const uint8_t *p, size_t off, size_t valid) {
    if (valid >= off + 64) return LD(p + off);
    const __mmask64 k = valid <= off ? 0 : (1ull << (valid - off)) - 1; /* valid - off < 64 */
    return _mm512_maskz_loadu_epi8(k, p + off);
}
AI __m256 h8(__m512i v) { return _mm256_cvtph_ps(_mm512_castsi512_si128(v)); }
AI __m512 h16(__m512i v) { return _mm512_cvtph_ps(_mm512_castsi512_si256(v)); }

/* One chunk of 8 weight blocks unpacked: lo[j] / hi[j] the unsigned codes of
 * the first / second halves of quad j's blocks (the offset each type
 * subtracts is applied in leg_row), d (and mw) the 8 scales (offsets). */
typedef struct wchunk {
    __m512i lo[2], hi[2];
    __m256 d, mw;
} wchunk;

AI void leg_prep(int T, const uint8_t *x, size_t valid, wchunk *c) {
    const lidx *l = &g_l[T];
    const __m512i m4 = _mm512_set1_epi8(15);
    /* table offsets (bytes) of quads 0 and 1 */
    const int b1a = T == L_Q5_0 ? 64 : T == L_Q5_1 ? 96 : 64;
    const int b1b = T == L_Q5_0 ? 112 : T == L_Q4_1 ? 96 : T == L_Q5_1 ? 128 : 80;
    const __m512i t0 = ldv(x, 0, valid), t1 = ldv(x, 64, valid), t2 = b1a == 64 ? t1 : ldv(x, (size_t)b1a, valid);
    const __m512i t3 = ldv(x, (size_t)b1b, valid);
    for (int j = 0; j < 2; j++) {
        __m512i z = j ? PERM(t2, l->qs[1], t3) : PERM(t0, l->qs[0], t1);
        __m512i lo = _mm512_and_si512(z, m4), hi = _mm512_and_si512(_mm512_srli_epi16(z, 4), m4);
        if (T == L_Q5_0 || T == L_Q5_1) {
            __m128i h = _mm512_castsi512_si128(j ? PERM(t2, l->qh[1], t3) : PERM(t0, l->qh[0], t1));
            const __m512i b4 = _mm512_set1_epi8(16);
            lo = _mm512_mask_add_epi8(lo, (__mmask64)_mm_cvtsi128_si64(h), lo, b4);
            hi = _mm512_mask_add_epi8(hi, (__mmask64)_mm_extract_epi64(h, 1), hi, b4);
        }
        if (T == L_IQ4NL) { /* kvalues + 128 */
            const __m512i tab = _mm512_broadcast_i32x4(
                _mm_setr_epi8(1, 24, 45, 63, 79, 93, 106, 118, (char)129, (char)141, (char)153, (char)166, (char)181,
                              (char)197, (char)217, (char)241));
            lo = _mm512_shuffle_epi8(tab, lo), hi = _mm512_shuffle_epi8(tab, hi);
        }
        c->lo[j] = lo, c->hi[j] = hi;
    }
    if (T == L_Q5_0) c->d = h8(_mm512_or_si512(PERMZ(0x3F, t0, l->d[0], t1), PERMZ(0xC0, t2, l->d[1], t3)));
    else if (T == L_Q4_1) {
        __m512 dm = h16(PERM(t0, l->d[0], ldv(x, 80, valid)));
        c->d = _mm512_castps512_ps256(dm), c->mw = _mm512_extractf32x8_ps(dm, 1);
    } else if (T == L_Q5_1) {
        __m512 dm = h16(_mm512_or_si512(PERMZ(0x0F0F, t0, l->d[0], t1), PERMZ(0xF0F0, t2, l->d[1], t3)));
        c->d = _mm512_castps512_ps256(dm), c->mw = _mm512_extractf32x8_ps(dm, 1);
    } else c->d = h8(PERM(t0, l->d[0], t1));
}

/* The 8 block sums of a chunk from the two quads' int32 lanes (16-byte lane k
 * of quad j: block 4j + k), in block order. */
AI __m256i quad_fold(__m512i i0, __m512i i1) {
    __m512i t = _mm512_add_epi32(_mm512_unpacklo_epi32(i0, i1), _mm512_unpackhi_epi32(i0, i1));
    t = _mm512_add_epi32(t, _mm512_shuffle_epi32(t, _MM_PERM_BADC));
    return _mm512_castsi512_si256(_mm512_permutexvar_epi32(g_fold, t));
}

/* One activation row's 8 blocks at y against the chunk; the f32 terms into acc. */
AI void leg_row(int T, const wchunk *c, const uint8_t *y, size_t valid, __m256 *acc) {
    const int ofs = T == L_Q4_1 || T == L_Q5_1; /* q8_1 activations */
    __m512i qa[2], qb[2];
    __m256 da, sa = _mm256_setzero_ps();
    if (!ofs) {
        const __m512i t0 = ldv(y, 0, valid), t1 = ldv(y, 64, valid), t2 = ldv(y, 16, valid), t3 = ldv(y, 80, valid);
        const __m512i t4 = ldv(y, 136, valid), t5 = ldv(y, 200, valid), t6 = ldv(y, 144, valid);
        const __m512i t7 = ldv(y, 208, valid);
        qa[0] = PERM(t0, g_a0[0][0], t1), qb[0] = PERM(t2, g_a0[0][1], t3);
        qa[1] = PERM(t4, g_a0[1][0], t5), qb[1] = PERM(t6, g_a0[1][1], t7);
        da = h8(_mm512_or_si512(PERMZ(0x0F, t0, g_a0d[0], t1), PERMZ(0xF0, t4, g_a0d[1], t5)));
    } else {
        const __m512i t0 = ldv(y, 0, valid), t1 = ldv(y, 64, valid), t2 = ldv(y, 16, valid), t3 = ldv(y, 80, valid);
        const __m512i t4 = ldv(y, 144, valid), t5 = ldv(y, 208, valid), t6 = ldv(y, 160, valid);
        const __m512i t7 = ldv(y, 224, valid);
        qa[0] = PERM(t0, g_a1[0][0], t1), qb[0] = PERM(t2, g_a1[0][1], t3);
        qa[1] = PERM(t4, g_a1[1][0], t5), qb[1] = PERM(t6, g_a1[1][1], t7);
        __m512 ds = h16(_mm512_or_si512(PERMZ(0x0F0F, t0, g_a1d[0], t1), PERMZ(0xF0F0, t4, g_a1d[1], t5)));
        da = _mm512_castps512_ps256(ds), sa = _mm512_extractf32x8_ps(ds, 1);
    }
    const __m512i z = _mm512_setzero_si512();
    __m512i is[2];
    #pragma GCC unroll 2
    for (int j = 0; j < 2; j++) {
        __m512i s = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(z, c->lo[j], qa[j]), c->hi[j], qb[j]);
        if (!ofs) { /* minus off * sum(q) */
            const __m512i off = _mm512_set1_epi8((char)(T == L_Q4_0 ? 8 : T == L_Q5_0 ? 16 : 128)); /* iq4_nl: 128 */
            s = _mm512_sub_epi32(s, _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(z, off, qa[j]), off, qb[j]));
        }
        is[j] = s;
    }
    __m256 t = _mm256_mul_ps(_mm256_mul_ps(c->d, da), _mm256_cvtepi32_ps(quad_fold(is[0], is[1])));
    if (ofs) t = _mm256_add_ps(t, _mm256_mul_ps(c->mw, sa));
    *acc = _mm256_add_ps(*acc, t);
}

AI void leg_kernel(int T, const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) {
    const int ofs = T == L_Q4_1 || T == L_Q5_1;
    const size_t wb = (size_t)k_wb[T], ab = ofs ? 36 : 34, nc = nb / 8, tail = nb % 8;
    for (size_t r0 = 0; r0 < m; r0 += RG) {
        const size_t rn = m - r0 < RG ? m - r0 : RG;
        __m256 acc[RG];
        for (size_t r = 0; r < rn; r++) acc[r] = _mm256_setzero_ps();
        wchunk c;
        for (size_t ci = 0; ci < nc; ci++) {
            leg_prep(T, w + ci * 8 * wb, SIZE_MAX, &c);
            for (size_t r = 0; r < rn; r++) leg_row(T, &c, a + (r0 + r) * a_stride + ci * 8 * ab, SIZE_MAX, &acc[r]);
        }
        if (tail) { /* the bytes past the row read as zeros: zero scales and codes add exact zeros */
            leg_prep(T, w + nc * 8 * wb, tail * wb, &c);
            for (size_t r = 0; r < rn; r++) leg_row(T, &c, a + (r0 + r) * a_stride + nc * 8 * ab, tail * ab, &acc[r]);
        }
        for (size_t r = 0; r < rn; r++) out[r0 + r] = hsum8(acc[r]);
    }
}

#define LEG(name, T)                                                                                       \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        if (m == 1) leg_kernel(T, w, nb, a, a_stride, 1, out);                                             \
        else leg_kernel(T, w, nb, a, a_stride, m, out);                                                    \
    }
LEG(d_q4_0, L_Q4_0)
LEG(d_q5_0, L_Q5_0)
LEG(d_iq4_nl, L_IQ4NL)
LEG(d_q4_1, L_Q4_1)
LEG(d_q5_1, L_Q5_1)

/* ------------------------------------------------------------------ 256-element super-blocks . q8_K */
enum { K_Q4, K_Q5, K_TQ2, K_Q3, K_Q6 };
static const int k_kb[] = {144, 176, 66, 110, 210}; /* super-block bytes */
static const int k_doff[] = {0, 0, 64, 108, 208};   /* offset of the f16 d (and dmin after it) */
#define KMIN(T) ((T) == K_Q4 || (T) == K_Q5)         /* a dmin * bsums . mins term */
#define K16(T) ((T) == K_Q3 || (T) == K_Q6)          /* 16 sub-blocks of 16, codes offset by 4 / 32 */
#define QK_A 292 /* q8_K block: f32 d, 256 int8, 16 int16 bsums */
#define K_AHEAD 4096 /* software prefetch distance of the weights, bytes */

/* One super-block unpacked: u[c] the unsigned codes of elements 64c..64c+63;
 * sc[c] the sub-block scale of each int32 lane of chunk c (int16 in the low
 * half, zero above: the vpdpwssd operand); mins: 16 int16 for the bsums
 * (q4_K q5_K: min of bsum k's sub-block). */
typedef struct kchunk {
    __m512i u[4], sc[4];
    __m256i mins;
} kchunk;


AI void k_prep(int T, const uint8_t *x, kchunk *k) {
    const __m512i lo4 = _mm512_set1_epi8(15);
    if (T == K_Q4 || T == K_Q5) {
        const uint8_t *qs = x + (T == K_Q5 ? 48 : 16);
        __m512i hq = _mm512_setzero_si512();
        if (T == K_Q5) hq = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(x + 16)));
        #pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            __m512i z = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(qs + 32 * c)));
            __m512i u = _mm512_and_si512(_mm512_srlv_epi64(z, _mm512_set_epi64(4, 4, 4, 4, 0, 0, 0, 0)), lo4);
            if (T == K_Q5) {
                u = _mm512_mask_add_epi8(u, _mm512_test_epi8_mask(hq, g_k5_bit[c]), u, _mm512_set1_epi8(16));
            }
            k->u[c] = u;
        }
        uint32_t u0 = dot_ld32(x + 4), u1 = dot_ld32(x + 8), u2 = dot_ld32(x + 12);
        uint64_t sc = (u0 & 0x3f3f3f3fu) | (uint64_t)((u2 & 0x0f0f0f0fu) | ((u0 >> 2) & 0x30303030u)) << 32;
        uint64_t mn = (u1 & 0x3f3f3f3fu) | (uint64_t)(((u2 >> 4) & 0x0f0f0f0fu) | ((u1 >> 2) & 0x30303030u)) << 32;
        /* the scale bytes in every 16-byte lane; chunk c's lanes take byte 2c (lower half) / 2c + 1 */
        const __m512i scb = _mm512_set1_epi64((long long)sc);
        #pragma GCC unroll 4
        for (int c = 0; c < 4; c++)
            k->sc[c] = _mm512_shuffle_epi8(scb, g_k4_shuf[c]);
        const __m128i mn8 = _mm_cvtsi64_si128((long long)mn);
        k->mins = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(mn8, mn8)); /* min i for bsums 2i, 2i + 1 */
    } else if (K16(T)) {
        /* Element 128h + 32s + l; chunk c = 2h + p holds s = 2p (lower 32 bytes) and 2p + 1 (upper).
         * q3_K: bits 2s..2s+1 of qs[32h + l], +4 when bit 4h + s of hmask[l] is set (the
         * code + 4); q6_K: nibble p of ql[64h + 32(s % 2) + l] | bits 2s..2s+1 of qh[32h + l]
         * << 4 (the code + 32). The offsets come back through the bsums (k_int). */
        const __m512i hm = T == K_Q3 ? _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)x))
                                     : _mm512_setzero_si512();
        #pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            const int h = c / 2, p = c % 2;
            __m512i u;
            if (T == K_Q6) {
                __m512i ql = _mm512_loadu_si512((const void *)(x + 64 * h));
                if (p) ql = _mm512_srli_epi16(ql, 4);
                __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(x + 128 + 32 * h)));
                qh = p ? _mm512_srlv_epi64(qh, _mm512_set_epi64(2, 2, 2, 2, 0, 0, 0, 0))
                       : _mm512_sllv_epi64(qh, _mm512_set_epi64(2, 2, 2, 2, 4, 4, 4, 4));
                /* bits 0-3 from ql, 4-5 from qh: select (0xe4: c ? a : b), then drop bits 6-7 */
                u = _mm512_and_si512(_mm512_ternarylogic_epi64(ql, qh, _mm512_set1_epi8(15), 0xe4),
                                     _mm512_set1_epi8(0x3f));
            } else {
                const __m512i z = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(x + 32 + 32 * h)));
                u = _mm512_and_si512(_mm512_srlv_epi64(z, _mm512_set_epi64(4 * p + 2, 4 * p + 2, 4 * p + 2, 4 * p + 2,
                                                                           4 * p, 4 * p, 4 * p, 4 * p)),
                                     _mm512_set1_epi8(3));
                u = _mm512_mask_add_epi8(u, _mm512_test_epi8_mask(hm, g_k3_bit[c]), u, _mm512_set1_epi8(4));
            }
            k->u[c] = u;
        }
        __m128i s8;   /* the 16 sub-block scales as int8 */
        __m256i off;  /* the scales times the code offset (4, 32) as int16 */
        if (T == K_Q3) { /* 16 6-bit values - 32 */
            uint32_t s4[4];
            dot_q3_K_scales(x + 96, s4);
            s8 = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)s4), _mm_set1_epi8(32));
            off = _mm256_slli_epi16(_mm256_cvtepi8_epi16(s8), 2);
        } else {
            s8 = _mm_loadu_si128((const __m128i *)(x + 192));
            off = _mm256_slli_epi16(_mm256_cvtepi8_epi16(s8), 5);
        }
        const __m512i scl = _mm512_and_si512(_mm512_cvtepi8_epi32(s8), _mm512_set1_epi32(0xffff));
        #pragma GCC unroll 4
        for (int c = 0; c < 4; c++) k->sc[c] = _mm512_permutexvar_epi32(g_k16_idx[c], scl);
        k->mins = off;
    } else { /* K_TQ2: bits 2l..2l+1 kept in place (code times 4^l), undone by exact shifts per lane */
        #pragma GCC unroll 4
        for (int h = 0; h < 2; h++) {
            __m512i z = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(x + 32 * h)));
            k->u[2 * h] = _mm512_and_si512(z, g_tq_mask[0]);
            k->u[2 * h + 1] = _mm512_and_si512(z, g_tq_mask[1]);
        }
    }
}

/* The exact int32 sums of one super-block against one activation block: isum
 * over 16 lanes, and for q4_K q5_K the bsums * mins over 8 lanes. */
AI void k_int(int T, const kchunk *k, const uint8_t *y, __m512i *isum_out, __m256i *msum_out) {
    const uint8_t *q = y + 4;
    const __m256i bs = _mm256_loadu_si256((const __m256i *)(y + 260));
    const __m512i z = _mm512_setzero_si512();
    __m512i isum;
    if (T == K_TQ2) {
        /* codes are v + 1: start from minus the sum of all q (lower lanes: scale 1) */
        __m512i s0 = _mm512_zextsi256_si512(_mm256_madd_epi16(bs, _mm256_set1_epi16(-1)));
        s0 = _mm512_dpbusd_epi32(s0, k->u[0], LD(q));
        __m512i s1 = _mm512_dpbusd_epi32(z, k->u[1], LD(q + 64));
        s0 = _mm512_dpbusd_epi32(s0, k->u[2], LD(q + 128));
        s1 = _mm512_dpbusd_epi32(s1, k->u[3], LD(q + 192));
        isum = _mm512_add_epi32(_mm512_srav_epi32(s0, g_tq_sh[0]),
                                _mm512_srav_epi32(s1, g_tq_sh[1]));
    } else {
        isum = z;
        #pragma GCC unroll 4
        for (int c = 0; c < 4; c++) {
            __m512i p = _mm512_dpbusd_epi32(z, k->u[c], LD(q + 64 * c));
            isum = _mm512_dpwssd_epi32(isum, p, k->sc[c]);
        }
        if (K16(T)) /* the codes' offset: minus off * sum_k sc[k] * bsums[k] */
            isum = _mm512_sub_epi32(isum, _mm512_zextsi256_si512(_mm256_madd_epi16(bs, k->mins)));
    }
    *isum_out = isum;
    if (KMIN(T)) *msum_out = _mm256_madd_epi16(bs, k->mins);
}

/* The 4 lane sums of a, b, c, d (exact). */
AI __m128i red4(__m512i a, __m512i b, __m512i c, __m512i d) {
    __m512i ab = _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
    __m512i cd = _mm512_add_epi32(_mm512_unpacklo_epi32(c, d), _mm512_unpackhi_epi32(c, d));
    __m512i t = _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
    __m256i u = _mm256_add_epi32(_mm512_castsi512_si256(t), _mm512_extracti64x4_epi64(t, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1));
}
AI __m128i red4y(__m256i a, __m256i b, __m256i c, __m256i d) {
    __m256i ab = _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
    __m256i cd = _mm256_add_epi32(_mm256_unpacklo_epi32(c, d), _mm256_unpackhi_epi32(c, d));
    __m256i t = _mm256_add_epi32(_mm256_unpacklo_epi64(ab, cd), _mm256_unpackhi_epi64(ab, cd));
    return _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

/* The f16 scales of super-blocks x, x + wb, x + 2wb, x + 3wb: d (and dmin) as
 * 4 floats; those of blocks n.. (a tail) zero. */
AI void k_scales(int T, const uint8_t *x, size_t wb, int n, __m128 *dw, __m128 *dm) {
    const size_t o = (size_t)k_doff[T];
#define KS32(j) (n > (j) ? (uint64_t)dot_ld32(x + (j) * wb + o) : 0)
#define KS16(j) (n > (j) ? (uint64_t)dot_ld16(x + (j) * wb + o) : 0)
    if (KMIN(T)) { /* d, dmin */
        __m128i h = _mm_set_epi64x((long long)(KS32(2) | KS32(3) << 32), (long long)(KS32(0) | KS32(1) << 32));
        __m256 f = _mm256_permutevar8x32_ps(_mm256_cvtph_ps(h), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
        *dw = _mm256_castps256_ps128(f), *dm = _mm256_extractf128_ps(f, 1);
    } else {
        const uint64_t h = KS16(0) | KS16(1) << 16 | KS16(2) << 32 | KS16(3) << 48;
        *dw = _mm_cvtph_ps(_mm_cvtsi64_si128((long long)h)), *dm = _mm_setzero_ps();
    }
#undef KS32
#undef KS16
}

/* The f32 terms of 4 super-blocks, each exactly the portable C's
 * (dw * da) * isum - (dmin * da) * summs, added to the 4 lanes of acc (the
 * first n; the others add exact zeros). */
AI void k_float(int T, const __m512i *is, const __m256i *ms, __m128 dw, __m128 dm, const uint8_t *y0, int n,
                __m128 *acc) {
#define KDA(j) (n > (j) ? dot_ldf(y0 + (j) * QK_A) : 0.0f)
    const __m128 vda = _mm_setr_ps(KDA(0), KDA(1), KDA(2), KDA(3));
#undef KDA
    __m128 t = _mm_mul_ps(_mm_mul_ps(dw, vda), _mm_cvtepi32_ps(red4(is[0], is[1], is[2], is[3])));
    if (KMIN(T))
        t = _mm_sub_ps(t, _mm_mul_ps(_mm_mul_ps(dm, vda), _mm_cvtepi32_ps(red4y(ms[0], ms[1], ms[2], ms[3]))));
    *acc = _mm_add_ps(*acc, t);
}

/* Super-blocks b..b+n-1 (n = 4, or 1..3 in a tail: the missing ones give
 * zero lanes, nothing past the row is read) for rn rows. */
AI void k_group(int T, const uint8_t *w, size_t b, const uint8_t *a, size_t a_stride, size_t rn, int n, __m128 *acc) {
    const size_t wb = (size_t)k_kb[T];
    __m128 dw, dm;
    k_scales(T, w + b * wb, wb, n, &dw, &dm);
    __m512i is[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    __m256i ms[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    if (T == K_Q4) {
        /* q4_K: the group's lines K_AHEAD bytes ahead, into L2. Out of cache
         * (2026-12-06 Zen 4 VM, medians of 5 alternating runs) a 1-thread q4_K
         * matvec went from 65 to 68 % of a streaming read, 2 threads from 88 to
         * 91 %, in cache unchanged (0.95x ggml); 2 KiB into L1 did the same. The
         * other K types gained nothing out of cache and lost 3-10 % in cache
         * (q6_K 4096^2: 0.86 -> 0.79x ggml), so they go without. */
        const char *pf = (const char *)(w + b * wb) + K_AHEAD;
        for (size_t o = 0; o < 4 * wb; o += 64) _mm_prefetch(pf + o, _MM_HINT_T1);
    }
    if (rn == 1) { /* unpack and use each super-block at once */
        kchunk k;
        #pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            if (j >= n) break;
            k_prep(T, w + (b + (size_t)j) * wb, &k);
            k_int(T, &k, a + (b + (size_t)j) * QK_A, &is[j], &ms[j]);
        }
        k_float(T, is, ms, dw, dm, a + b * QK_A, n, &acc[0]);
    } else {
        kchunk k[4];
        #pragma GCC unroll 4
        for (int j = 0; j < 4; j++) /* a missing block: block b again, unused */
            k_prep(T, w + (b + (size_t)(j < n ? j : 0)) * wb, &k[j]);
        for (size_t r = 0; r < rn; r++) {
            const uint8_t *y = a + r * a_stride + b * QK_A;
            #pragma GCC unroll 4
            for (int j = 0; j < 4; j++)
                if (j < n) k_int(T, &k[j], y + (size_t)j * QK_A, &is[j], &ms[j]);
            k_float(T, is, ms, dw, dm, y, n, &acc[r]);
        }
    }
}

AI void k_kernel(int T, const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) {
    for (size_t r0 = 0; r0 < m; r0 += RG) {
        const size_t rn = m - r0 < RG ? m - r0 : RG;
        const uint8_t *ar = a + r0 * a_stride;
        __m128 acc[RG];
        for (size_t r = 0; r < rn; r++) acc[r] = _mm_setzero_ps();
        size_t b = 0;
        for (; b + 4 <= nb; b += 4) k_group(T, w, b, ar, a_stride, rn, 4, acc);
        if (b < nb) k_group(T, w, b, ar, a_stride, rn, (int)(nb - b), acc); /* zero terms for the missing blocks */
        for (size_t r = 0; r < rn; r++) {
            __m128 v = acc[r];
            v = _mm_add_ps(v, _mm_movehl_ps(v, v));
            out[r0 + r] = _mm_cvtss_f32(_mm_add_ss(v, _mm_movehdup_ps(v)));
        }
    }
}

#define KQ(name, T)                                                                                        \
    static void name(const uint8_t *w, size_t nb, const uint8_t *a, size_t a_stride, size_t m, float *out) { \
        if (m == 1) k_kernel(T, w, nb, a, a_stride, 1, out);                                               \
        else k_kernel(T, w, nb, a, a_stride, m, out);                                                      \
    }
KQ(d_q4_K, K_Q4)
KQ(d_q5_K, K_Q5)
KQ(d_tq2_0, K_TQ2)
KQ(d_q3_K, K_Q3)
KQ(d_q6_K, K_Q6)

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void dot_init(void) { leg_init(), k16_init(); }

void mio_avx512_fill_dot(mio_kernels *k) {
    pthread_once(&g_once, dot_init);
    if (g_idx_bad) return; /* a layout table error: keep the lower level's kernels */
    k->dot[MIO_TYPE_Q4_0] = d_q4_0;
    k->dot[MIO_TYPE_Q5_0] = d_q5_0;
    k->dot[MIO_TYPE_IQ4_NL] = d_iq4_nl;
    k->dot[MIO_TYPE_Q4_1] = d_q4_1;
    k->dot[MIO_TYPE_Q5_1] = d_q5_1;
    k->dot[MIO_TYPE_Q4_K] = d_q4_K;
    k->dot[MIO_TYPE_Q5_K] = d_q5_K;
    k->dot[MIO_TYPE_TQ2_0] = d_tq2_0;
    k->dot[MIO_TYPE_Q3_K] = d_q3_K;
    k->dot[MIO_TYPE_Q6_K] = d_q6_K;
}
