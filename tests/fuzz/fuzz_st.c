/* SPDX-License-Identifier: MIT */
/* fuzz_st.c — libFuzzer target: any bytes through mio_st_open_buffer, then every
 * accessor (tensors, metadata, a slice of each tensor) and a canonical re-save to
 * memory, which must parse again. Build and run with scripts/fuzz.sh. */
#include <modelio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mio_st_file *f;
    if (mio_st_open_buffer(data, size, MIO_BUFFER_BORROW, &f) != MIO_OK) return 0;
    int64_t n = mio_st_tensor_count(f), nm = mio_st_meta_count(f);
    mio_st_entry *e = calloc((size_t)n + 1, sizeof *e);
    char **names = calloc((size_t)n + 1, sizeof *names);
    mio_st_meta *m = calloc((size_t)nm + 1, sizeof *m);
    if (!e || !names || !m) abort();
    int writable = 1;
    for (int64_t i = 0; i < n; i++) {
        mio_st_tensor t;
        if (mio_st_tensor_info(f, i, &t) != MIO_OK) abort();
        if (t.nbytes) (void)((const volatile uint8_t *)t.data)[t.nbytes - 1];
        uint8_t buf[256];
        uint64_t st = 0, en = t.n_dims && t.shape[0] ? 1 : 0;
        size_t wr;
        if (t.n_dims) (void)mio_st_slice(f, i, 1, &st, &en, buf, sizeof buf, &wr);
        names[i] = malloc(t.name.len + 1);
        if (!names[i]) abort();
        memcpy(names[i], t.name.ptr, t.name.len);
        names[i][t.name.len] = 0;
        if (memchr(t.name.ptr, 0, t.name.len)) writable = 0;
        e[i] = (mio_st_entry){names[i], t.dtype, t.n_dims, t.shape, t.data, (size_t)t.nbytes};
    }
    for (int64_t i = 0; i < nm; i++) {
        mio_str k, v;
        if (mio_st_meta_at(f, i, &k, &v) != MIO_OK) abort();
        char *ks = strndup(k.ptr, k.len), *vs = strndup(v.ptr, v.len);
        if (!ks || !vs) abort();
        if (strlen(ks) != k.len || strlen(vs) != v.len) writable = 0;
        m[i] = (mio_st_meta){ks, vs};
    }
    void *out;
    size_t out_len;
    if (writable && mio_st_save_buffer(e, (size_t)n, m, (size_t)nm, &out, &out_len) == MIO_OK) {
        mio_st_file *g; /* what we write must read back */
        if (mio_st_open_buffer(out, out_len, MIO_BUFFER_BORROW, &g) != MIO_OK) abort();
        if (mio_st_tensor_count(g) != n) abort();
        mio_st_close(g);
        mio_free(out);
    }
    for (int64_t i = 0; i < n; i++) free(names[i]);
    for (int64_t i = 0; i < nm; i++) { free((void *)m[i].key); free((void *)m[i].value); }
    free(e), free(names), free(m);
    mio_st_close(f);
    return 0;
}
