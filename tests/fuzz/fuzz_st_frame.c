/* SPDX-License-Identifier: MIT */
/* fuzz_st_frame.c — libFuzzer target: the safetensors stream-frame reader
 * (mio_st_read_frame) fed the input as a stream, through a read callback that
 * hands it out in pieces of pseudo-random sizes (1 .. 4352 bytes, seeded from
 * the input's length and first bytes, so a plain safetensors file is a valid
 * seed), frame after frame until the reader refuses or the stream ends; every
 * accepted frame is walked like fuzz_st.c does. */
#include <modelio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct src {
    const uint8_t *p;
    size_t len, pos;
    uint64_t rng;
} src;

static int64_t rd(void *user, void *buf, size_t len) {
    src *s = user;
    s->rng ^= s->rng << 13, s->rng ^= s->rng >> 7, s->rng ^= s->rng << 17;
    size_t piece = (s->rng >> 60) < 4 ? (size_t)(s->rng >> 20) % 16 + 1 : (size_t)(s->rng >> 20) % 4352 + 1;
    if (piece > len) piece = len;
    if (piece > s->len - s->pos) piece = s->len - s->pos;
    memcpy(buf, s->p + s->pos, piece);
    s->pos += piece;
    return (int64_t)piece;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t seed = 0x9E3779B97F4A7C15ull ^ size;
    for (size_t i = 0; i < size && i < 8; i++) seed = seed * 131 + data[i];
    src s = {data, size, 0, seed | 1};
    for (int frame = 0; frame < 8; frame++) {
        mio_st_file *f;
        if (mio_st_read_frame(rd, &s, &f) != MIO_OK) break;
        volatile uint64_t acc = 0;
        for (int64_t i = 0; i < mio_st_tensor_count(f); i++) {
            mio_st_tensor t;
            if (mio_st_tensor_info(f, i, &t) != MIO_OK) abort();
            if (t.nbytes) acc += ((const volatile uint8_t *)t.data)[t.nbytes - 1];
        }
        for (int64_t i = 0; i < mio_st_meta_count(f); i++) {
            mio_str k, v;
            if (mio_st_meta_at(f, i, &k, &v) != MIO_OK) abort();
            acc += k.len + v.len;
        }
        (void)acc;
        mio_st_close(f);
    }
    return 0;
}
