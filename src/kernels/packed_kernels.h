/* SPDX-License-Identifier: MIT */
/* packed_kernels.h — the packed-weight layouts (dot/packed.c packs, the back
 * ends multiply; docs/KERNELS.md §8 draws them byte by byte).
 *
 * A packed matrix is a sequence of TILES of T consecutive weight rows (T is the
 * kernel's: 8 for 256-bit vectors, 16 for 512-bit; the last tile zero-padded);
 * a tile is nb TILE-BLOCKS, one per block column, each holding the T rows'
 * block b in T times the GGUF block's bytes:
 *   q4_0 (18 T bytes): the T f16 scales (row j at byte 2j), then 4 vectors of
 *         4T bytes: vector g, byte 4j + i = byte 4g + i of row j's qs (low
 *         nibble: element 4g + i, high nibble: element 16 + 4g + i);
 *   iq4_nl (18 T bytes): q4_0's tile (the nibbles index the iq4_nl values);
 *   q8_0 (34 T bytes): the T f16 scales, then 8 vectors of 4T bytes: vector g,
 *         byte 4j + i = row j's code of element 4g + i XOR 0x80 (the code + 128,
 *         unsigned: the operand an unsigned-by-signed byte dot wants);
 *   q4_K (148 T bytes, super-blocks of 256): the T f16 d, the T f16 dmin, then
 *         the 6-bit sub-block scales as bytes (sub-block s of row j at
 *         4T + T s + j) and the mins likewise (at 12T + T s + j), then 32
 *         vectors of 4T bytes at 20T: vector 8c + g, byte 4j + i = row j's
 *         qs[32c + 4g + i] (low nibble: element 64c + 4g + i of sub-block 2c,
 *         high nibble: element 64c + 32 + 4g + i of sub-block 2c + 1);
 *   q5_K (180 T bytes): as q4_K, with 8 vectors of 4T bytes at 20T before the
 *         qs ones (now at 52T): vector g, byte 4j + i = row j's qh[4g + i]
 *         (bit s: bit 4 of the code of element 32s + 4g + i);
 *   q6_K (210 T bytes): the T f16 d, the int8 scales (sub-block k of row j at
 *         2T + T k + j), then for h = 0, 1 and g = 0..7 three vectors A, B, C
 *         of 4T bytes at 18T + 12T (8h + g). With c_s the 6-bit code (the
 *         signed value + 32) of row j's element 128h + 32s + 4g + i (sub-block
 *         8h + 2s + g / 4), byte 4j + i is c_0 | (c_1 >> 4) << 6 in A,
 *         c_2 | (c_3 >> 4) << 6 in B and (c_1 & 15) | (c_3 & 15) << 4 in C:
 *         codes 0 and 2 are one AND away, 1 and 3 a shift, two ANDs and an OR.
 *   iq4_xs (138 T bytes): the T f16 d, the 8 sub-block scales as int8 (the
 *         6-bit value - 32; sub-block g of row j at 2T + T g + j), then 32
 *         vectors of 4T bytes at 10T: vector 4g + k, byte 4j + i = row j's
 *         qs[16g + 4k + i] (low nibble: element 32g + 4k + i, high nibble:
 *         element 32g + 16 + 4k + i).
 * So one vector holds 4 consecutive elements of each of the T rows and one dot
 * instruction (vpdpbusd, or vpmaddubsw + vpmaddwd) against the 4 activation
 * codes broadcast to every lane sums them into lane j = row j.
 *
 * The activations (dot/packed.c quantizes x once per call, with the same
 * byte-exact q8_0 / q8_K encoder as mio_matmul) reach the kernels split per
 * block: the codes, the scale da as f32 and the offset words s: for q8_0 one,
 * the code sum times the kernel's act_sum_mul, negated (the exact integer that
 * removes the weight offset); for q8_K eight, the q8_K block's 16 sums of 16
 * codes as int16 pairs (word k: sums 2k and 2k + 1), which vpmaddwd multiplies
 * by a row's pair of mins (q4_K: the min of sub-block k twice) or scales (q6_K).
 *
 * Arithmetic (every kernel): per weight row j and activation row i the blocks
 * are summed in block order,
 *   acc += (dw * da) * (float)isum,   isum = sum_k w[k] * q[k]  (exact, int32)
 * with dw the f16 scale as f32 (q4_K: acc += (dw * da) * isum - (dmin * da) *
 * summs, summs = sum_k min[k / 2] * bsum[k], exact; q6_K: isum = sum_k sc[k] *
 * (sum of the sub-block's (code + 32) * q) - 32 * sum_k sc[k] * bsum[k], exact)
 * — the portable C dot kernel's operations (dot/dot_legacy.c,
 * dot/dot_kquants.c) in its order, so a packed result equals the portable
 * mio_matmul bit for bit, for any m, any thread count and any tile split. */
#ifndef MIO_PACKED_KERNELS_H
#define MIO_PACKED_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define PK_TILE_MAX 16 /* weight rows per tile, at most */

/* The activation rows of one call, per block: codes q (32 or 256 bytes per
 * block, rows q_stride bytes apart), scales d (d_stride apart) and offset
 * words s (1 or 8 per block, s_stride apart). */
typedef struct pk_act {
    const int8_t *q;
    const float *d;
    const int32_t *s; /* q8_0: -(act_sum_mul * sum of the block's 32 codes); q8_K: the 16 bsums as int16 pairs */
    size_t q_stride, d_stride, s_stride; /* bytes between rows; elements between rows of d; of s */
} pk_act;

/* Tiles [t0, t1) of a packed matrix of nb block columns (tiles at p, tile_bytes
 * apart) against the m activation rows of a: y[i * ldy + T t + j] for every
 * row T t + j < rows. */
typedef void (*kern_pk_fn)(const uint8_t *p, size_t tile_bytes, size_t t0, size_t t1, size_t nb, const pk_act *a,
                           size_t m, float *y, size_t ldy, size_t rows);

typedef struct pk_kernel {
    kern_pk_fn fn;   /* NULL: no packed layout at this level (a plain copy is multiplied) */
    int tile;        /* T, rows per tile */
    int act_sum_mul; /* q8_0 activations: the factor of pk_act.s */
    int atype;       /* the activation type: MIO_TYPE_Q8_0 or MIO_TYPE_Q8_K */
    const char *name; /* "q4_0x8/avx2", "q4_0x16/avx512-vnni" ... (mio_packed_layout) */
} pk_kernel;

/* The first activation pass over a tile streams it from memory: the lines of
 * its tile-block at blk (tb bytes) PK_AHEAD bytes ahead are prefetched (a
 * tile-block's loads are not in address order, which the hardware streamer
 * follows poorly out of cache; prefetches past the end are harmless), into
 * L2 (locality 2, T1). 8 KiB into L1 was tuned on a Xeon (2026-12-05). On the
 * Zen 4 VM of 2026-12-06, m = 1 out of cache on 2 threads, medians of 5
 * alternating runs, fraction of a streaming read, 8 KiB/L1 -> 4 KiB/L2:
 * avx2 q4_K 85 -> 104 %, q6_K 89 -> 101 %, q8_0 103 -> 105 %; avx512 q4_K
 * 92 -> 92 %, q6_K 94 -> 106 %, q8_0 99 -> 105 %; in cache unchanged (1-4
 * tile-blocks ahead, 1-8 KiB, L1 and L2 tried). */
#ifndef PK_AHEAD
#define PK_AHEAD 4096
#endif
static inline void pk_ahead(const uint8_t *blk, size_t tb, size_t i0) {
    if (i0) return;
    for (size_t o = 0; o < tb; o += 64) __builtin_prefetch(blk + PK_AHEAD + o, 0, 2);
}

/* A back end's kern_pk_fn from its rows function ROWS(tp, nb, a, i0, R, y, ldy,
 * n) (tiles of TT rows; R activation rows, always a constant): the activation
 * rows RM at a time, then a pass of 4 when RM > 4, then 3, 2 or 1; FINISH after
 * the tiles (e.g. _mm256_zeroupper()). */
#define PK_TILE_LOOP(name, ROWS, TT, RM, FINISH)                                                                    \
    static void name(const uint8_t *p, size_t tile_bytes, size_t t0, size_t t1, size_t nb, const pk_act *a,          \
                     size_t m, float *y, size_t ldy, size_t rows) {                                                  \
        for (size_t t = t0; t < t1; t++) {                                                                          \
            const uint8_t *tp = p + t * tile_bytes;                                                                 \
            const size_t n = rows - t * (TT) < (TT) ? rows - t * (TT) : (TT);                                       \
            float *yt = y + t * (TT);                                                                               \
            size_t i = 0;                                                                                           \
            for (; i + (RM) <= m; i += (RM)) ROWS(tp, nb, a, i, (RM), yt, ldy, n);                                  \
            if ((RM) > 4 && m - i >= 4) ROWS(tp, nb, a, i, 4, yt, ldy, n), i += 4;                                  \
            if ((RM) > 3 && m - i == 3) ROWS(tp, nb, a, i, 3, yt, ldy, n);                                          \
            else if ((RM) > 2 && m - i == 2) ROWS(tp, nb, a, i, 2, yt, ldy, n);                                     \
            else if (m - i == 1) ROWS(tp, nb, a, i, 1, yt, ldy, n);                                                 \
        }                                                                                                           \
        (FINISH);                                                                                                   \
    }

#endif
