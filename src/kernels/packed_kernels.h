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
 *   q8_0 (34 T bytes): the T f16 scales, then 8 vectors of 4T bytes: vector g,
 *         byte 4j + i = row j's code of element 4g + i XOR 0x80 (the code + 128,
 *         unsigned: the operand an unsigned-by-signed byte dot wants).
 * So one vector holds 4 consecutive elements of each of the T rows and one dot
 * instruction (vpdpbusd, or vpmaddubsw + vpmaddwd) against the 4 activation
 * codes broadcast to every lane sums them into lane j = row j.
 *
 * The activations (dot/packed.c quantizes x once per call, with the same
 * byte-exact q8_0 encoder as mio_matmul) reach the kernels split per block:
 * the 32 codes, the scale da as f32 and the code sum times the kernel's
 * act_sum_mul, negated (the exact integer that removes the weight offset).
 *
 * Arithmetic (every kernel): per weight row j and activation row i the blocks
 * are summed in block order,
 *   acc += (dw * da) * (float)isum,   isum = sum_k w[k] * q[k]  (exact, int32)
 * with dw the f16 scale as f32 — the portable C dot kernel's operations
 * (dot/dot_legacy.c) in its order, so a packed result equals the portable
 * mio_matmul bit for bit, for any m, any thread count and any tile split. */
#ifndef MIO_PACKED_KERNELS_H
#define MIO_PACKED_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define PK_TILE_MAX 16 /* weight rows per tile, at most */

/* The activation rows of one call, per block: codes q (32 bytes per block,
 * rows q_stride bytes apart), scales d and offset terms s (nb per row). */
typedef struct pk_act {
    const int8_t *q;
    const float *d;
    const int32_t *s; /* -(act_sum_mul * sum of the block's 32 codes) */
    size_t q_stride, ds_stride; /* bytes between rows; elements between rows of d and s */
} pk_act;

/* Tiles [t0, t1) of a packed matrix of nb block columns (tiles at p, tile_bytes
 * apart) against the m activation rows of a: y[i * ldy + T t + j] for every
 * row T t + j < rows. */
typedef void (*kern_pk_fn)(const uint8_t *p, size_t tile_bytes, size_t t0, size_t t1, size_t nb, const pk_act *a,
                           size_t m, float *y, size_t ldy, size_t rows);

typedef struct pk_kernel {
    kern_pk_fn fn;   /* NULL: no packed layout at this level (a plain copy is multiplied) */
    int tile;        /* T, rows per tile */
    int act_sum_mul; /* the factor of pk_act.s */
    const char *name; /* "q4_0x8/avx2", "q4_0x16/avx512-vnni" ... (mio_packed_layout) */
} pk_kernel;

#endif
