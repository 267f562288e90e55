/* SPDX-License-Identifier: MIT */
/* fuzz_st_index.c — libFuzzer target: sharded safetensors indexes. The input is
 * written as model.safetensors.index.json beside two small valid shards
 * (model-00001-of-00002.safetensors with tensors "a" and "b",
 * model-00002-of-00002.safetensors with "c"), opened with mio_st_open, and
 * every tensor of the resulting handle is walked (info, last byte, a slice). */
#include <modelio.h>

#include "fuzz_tmp.h"

#include <stdint.h>

static void make_shards(void) {
    static int done;
    if (done) return;
    done = 1;
    float v[6] = {1, 2, 3, 4, 5, 6};
    uint64_t s2[1] = {2}, s4[2] = {2, 1};
    char p[160];
    mio_st_entry e1[2] = {{"a", MIO_ST_F32, 1, s2, v, 8}, {"b", MIO_ST_F32, 2, s4, v + 2, 8}};
    mio_st_entry e2[1] = {{"c", MIO_ST_F32, 1, s2, v + 4, 8}};
    if (mio_st_save_file(fz_path("model-00001-of-00002.safetensors", p, sizeof p), e1, 2, NULL, 0) != MIO_OK) abort();
    if (mio_st_save_file(fz_path("model-00002-of-00002.safetensors", p, sizeof p), e2, 1, NULL, 0) != MIO_OK) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    make_shards();
    char path[160];
    fz_write("model.safetensors.index.json", data, size, path, sizeof path);
    mio_st_file *f;
    if (mio_st_open(path, MIO_OPEN_READ, &f) != MIO_OK) return 0;
    volatile uint64_t acc = 0;
    for (int64_t i = 0; i < mio_st_tensor_count(f); i++) {
        mio_st_tensor t;
        if (mio_st_tensor_info(f, i, &t) != MIO_OK) abort();
        if (t.nbytes) acc += ((const volatile uint8_t *)t.data)[t.nbytes - 1];
        uint8_t buf[64];
        uint64_t st = 0, en = t.n_dims && t.shape[0] ? 1 : 0;
        size_t wr;
        if (t.n_dims) (void)mio_st_slice(f, i, 1, &st, &en, buf, sizeof buf, &wr);
    }
    (void)acc;
    mio_st_close(f);
    return 0;
}
