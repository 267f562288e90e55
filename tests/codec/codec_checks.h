/* SPDX-License-Identifier: MIT */
/* codec_checks.h — checks every codec family runs the same way (include after
 * test.h and codec_peer.h):
 *   check_type_threads(type, kind, seed, n, threads)
 *       the _mt encoder/decoder give exactly the single-threaded bytes/floats;
 *   check_type_unaligned(type, seed, n)
 *       floats and block bytes at odd addresses give the same results.
 * n must be a whole number of the type's blocks. */
#ifndef MIO_CODEC_CHECKS_H
#define MIO_CODEC_CHECKS_H

#include <modelio.h>

#include "codec_peer.h"
#include "test.h"

static inline void check_type_threads(int type, int kind, uint64_t seed, int64_t n, int threads) {
    size_t bytes = (size_t)(n / mio_type_block_size(type)) * mio_type_block_bytes(type);
    float *x = malloc((size_t)n * 4), *d1 = malloc((size_t)n * 4), *d2 = malloc((size_t)n * 4);
    uint8_t *a = malloc(bytes), *b = malloc(bytes);
    T_CHECK(x && d1 && d2 && a && b);
    if (x && d1 && d2 && a && b) {
        fill_input(kind, seed, x, n, mio_type_block_size(type));
        T_OK(mio_encode_f32(type, x, (size_t)n, a, bytes));
        T_OK(mio_encode_f32_mt(type, x, (size_t)n, b, bytes, threads));
        int64_t fd = first_diff(a, b, bytes);
        if (fd >= 0)
            printf("%s: %d threads differ at byte %lld: %02x vs %02x\n", mio_type_name(type), threads, (long long)fd,
                   a[fd], b[fd]);
        T_EQ_INT(fd, -1);
        T_OK(mio_decode_f32(type, a, bytes, d1, (size_t)n));
        T_OK(mio_decode_f32_mt(type, a, bytes, d2, (size_t)n, threads));
        T_EQ_INT(memcmp(d1, d2, (size_t)n * 4), 0);
    }
    free(x), free(d1), free(d2), free(a), free(b);
}

static inline void check_type_unaligned(int type, uint64_t seed, int64_t n) {
    size_t bytes = (size_t)(n / mio_type_block_size(type)) * mio_type_block_bytes(type);
    float *x = malloc((size_t)n * 4), *d1 = malloc((size_t)n * 4);
    uint8_t *a = malloc(bytes), *xb = malloc((size_t)n * 4 + 8), *yb = malloc(bytes + 8), *db = malloc((size_t)n * 4 + 8);
    T_CHECK(x && d1 && a && xb && yb && db);
    if (x && d1 && a && xb && yb && db) {
        fill_input(IN_GAUSS, seed + 7, x, n, mio_type_block_size(type));
        memcpy(xb + 1, x, (size_t)n * 4);
        T_OK(mio_encode_f32(type, x, (size_t)n, a, bytes));
        T_OK(mio_encode_f32(type, (const float *)(const void *)(xb + 1), (size_t)n, yb + 3, bytes));
        T_EQ_INT(memcmp(a, yb + 3, bytes), 0);
        T_OK(mio_decode_f32(type, a, bytes, d1, (size_t)n));
        T_OK(mio_decode_f32(type, yb + 3, bytes, (float *)(void *)(db + 2), (size_t)n));
        T_EQ_INT(memcmp(d1, db + 2, (size_t)n * 4), 0);
    }
    free(x), free(d1), free(a), free(xb), free(yb), free(db);
}

#endif
