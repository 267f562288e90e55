/* SPDX-License-Identifier: MIT */
/* fuzz_gguf.c — libFuzzer target: any bytes through mio_gguf_open_buffer, then
 * every accessor over whatever parsed (keys, widened values, array elements,
 * nested values, tensors, their bytes) and a verbatim re-emit through the
 * writer. Build and run with scripts/fuzz.sh. */
#include <modelio.h>

#include <stdint.h>
#include <stdlib.h>

static int sink_cb(void *user, const void *data, size_t len) {
    (void)data;
    *(size_t *)user += len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mio_gguf_file *f;
    if (mio_gguf_open_buffer(data, size, MIO_BUFFER_BORROW, &f) != MIO_OK) return 0;
    volatile uint64_t acc = 0;
    for (int64_t i = 0; i < mio_gguf_kv_count(f); i++) {
        mio_str k = mio_gguf_kv_key(f, i);
        acc += k.len ? (uint8_t)k.ptr[k.len - 1] : 0;
        mio_gguf_value v;
        if (mio_gguf_kv_value(f, i, &v) != MIO_OK) abort();
        int64_t s;
        uint64_t u;
        double d;
        mio_str str;
        (void)mio_gguf_kv_i64(f, i, &s);
        (void)mio_gguf_kv_u64(f, i, &u);
        (void)mio_gguf_kv_f64(f, i, &d);
        if (mio_gguf_kv_str(f, i, &str) == MIO_OK && str.len) acc += (uint8_t)str.ptr[str.len - 1];
        if (v.type == MIO_GGUF_ARRAY) {
            for (uint64_t j = 0; j < v.count && j < 4096; j++) {
                (void)mio_gguf_arr_i64(f, i, j, &s);
                if (mio_gguf_arr_str(f, i, j, &str) == MIO_OK && str.len) acc += (uint8_t)str.ptr[0];
                mio_gguf_value e;
                if (j < 64 && mio_gguf_value_elem(&v, j, &e) == MIO_OK && e.size) acc += ((const uint8_t *)e.data)[0];
            }
        }
    }
    mio_writer *w;
    if (mio_writer_new(0, &w) != MIO_OK) abort();
    if (mio_writer_copy_all_kv(w, f, NULL, 0) != MIO_OK) abort(); /* anything we parsed must copy */
    for (int64_t i = 0; i < mio_gguf_tensor_count(f); i++) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(f, i, &t) != MIO_OK) abort();
        if (t.nbytes) acc += ((const uint8_t *)t.data)[t.nbytes - 1]; /* the view is inside the buffer */
        char name[64];
        if (t.name.len >= sizeof name) abort(); /* names are under 64 bytes */
        for (size_t c = 0; c < t.name.len; c++) name[c] = t.name.ptr[c] ? t.name.ptr[c] : '_';
        name[t.name.len] = 0;
        (void)mio_writer_add_tensor(w, name, t.type, t.n_dims, t.ne, t.data, (size_t)t.nbytes);
    }
    size_t out = 0;
    (void)mio_writer_write_cb(w, sink_cb, &out);
    mio_writer_free(w);
    mio_gguf_close(f);
    (void)acc;
    return 0;
}
