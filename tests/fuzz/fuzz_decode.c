/* SPDX-License-Identifier: MIT */
/* fuzz_decode.c — libFuzzer target: the first byte picks a ggml type, the rest
 * are its blocks as they would come from a file: every decoder (mio_decode_f32,
 * and the threaded variant) and, for the types with a dot-product kernel,
 * mio_vec_dot / mio_matvec / mio_matmul on those bytes as weights (arbitrary
 * codes and scales: NaN/inf scales are computed with, never refused or crashed
 * on). The block bytes are copied to a buffer of exactly their size, so a
 * kernel reading past the row is caught by ASan. */
#include <modelio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    const int type = data[0] % MIO_TYPE_GGML_COUNT;
    data++, size--;
    const int64_t bs = mio_type_block_size(type);
    const size_t bb = (size_t)mio_type_block_bytes(type);
    if (bs <= 0 || bb == 0 || size < bb) return 0;
    size_t nb = size / bb;
    if (nb > 64) nb = 64;
    const size_t n = nb * (size_t)bs, bytes = nb * bb;
    uint8_t *w = malloc(bytes);
    float *y = malloc(sizeof(float) * n), *x = malloc(sizeof(float) * n * 3);
    if (!w || !y || !x) abort();
    memcpy(w, data, bytes);
    if (mio_type_can_decode(type)) {
        if (mio_decode_f32(type, w, bytes, y, n) != MIO_OK) abort(); /* any bytes decode */
        if (mio_decode_f32_mt(type, w, bytes, y, n, 2) != MIO_OK) abort();
    }
    if (mio_vec_dot_type(type) >= 0) {
        /* activations: finite values from the input's tail, so runs differ */
        for (size_t i = 0; i < n * 3; i++) x[i] = (float)(int8_t)data[(i * 7) % size] * 0.03125f;
        float out[4];
        size_t rows = nb > 1 && (nb % 2) == 0 ? 2 : 1, cols = n / rows;
        if (mio_matvec(type, w, rows, cols, x, out, 1) != MIO_OK) abort();
        if (mio_matmul(type, w, rows, cols, x, 2, out, 2) != MIO_OK) abort();
        /* mio_vec_dot on the activation row in the dot type */
        int at = mio_vec_dot_type(type);
        size_t ab = cols / (size_t)mio_type_block_size(at) * (size_t)mio_type_block_bytes(at);
        uint8_t *a = malloc(ab ? ab : 1);
        if (!a) abort();
        if (at == MIO_TYPE_F32) memcpy(a, x, ab);
        else if (mio_encode_f32(at, x, cols, a, ab) != MIO_OK) abort();
        if (mio_vec_dot(type, cols, w, a, &out[0]) != MIO_OK) abort();
        free(a);
    }
    free(w), free(y), free(x);
    return 0;
}
