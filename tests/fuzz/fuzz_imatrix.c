/* SPDX-License-Identifier: MIT */
/* fuzz_imatrix.c — libFuzzer target: importance-matrix files in both formats
 * (llama.cpp's legacy .dat and the GGUF imatrix; the reader picks by content)
 * through the internal reader (src/quantize/imatrix.c), then every accessor:
 * names, values, the per-tensor lookup for a 3-D expert tensor and a matrix,
 * the datasets, the metadata llama-quantize would stamp, the filter. */
#include <modelio.h>

#include "fuzz_tmp.h"
#include "quantize/imatrix.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[160];
    fz_write("in.imatrix", data, size, path, sizeof path);
    qz_imatrix *im = NULL;
    if (mio_qz_imatrix_load(path, &im) != MIO_OK) return 0;
    volatile double acc = 0;
    uint64_t n = mio_qz_imatrix_count(im);
    for (uint64_t i = 0; i < n; i++) {
        mio_str name = mio_qz_imatrix_name(im, i);
        uint64_t nv = 0;
        const float *v = mio_qz_imatrix_values(im, i, &nv);
        if (nv) acc += v[nv - 1];
        if (mio_qz_imatrix_find(im, name.ptr, name.len) < 0) abort(); /* every listed name is found */
    }
    for (uint64_t i = 0; i < mio_qz_imatrix_dataset_count(im); i++) acc += (double)strlen(mio_qz_imatrix_dataset(im, i));
    acc += mio_qz_imatrix_chunk_count(im) + mio_qz_imatrix_chunk_size(im) + mio_qz_imatrix_format(im);
    qz_imatrix_kv kv[QZ_IMATRIX_MAX_KV];
    acc += (double)mio_qz_imatrix_kvs(im, path, kv);
    (void)mio_qz_imatrix_check_finite(im);
    if (n) {
        mio_str first = mio_qz_imatrix_name(im, 0);
        char name[256];
        size_t len = first.len < sizeof name - 1 ? first.len : sizeof name - 1;
        memcpy(name, first.ptr, len);
        name[len] = 0;
        const float *w = NULL;
        (void)mio_qz_imatrix_for_tensor(im, name, 256, 1, &w);
        (void)mio_qz_imatrix_for_tensor(im, name, 64, 8, &w);
        const char *inc[1] = {name};
        (void)mio_qz_imatrix_filter(im, inc, 1, NULL, 0);
    }
    (void)acc;
    mio_qz_imatrix_free(im);
    return 0;
}
