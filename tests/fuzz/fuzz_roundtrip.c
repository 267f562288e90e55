/* SPDX-License-Identifier: MIT */
/* fuzz_roundtrip.c — libFuzzer target: the writer round trip. Any bytes that
 * parse as GGUF are re-emitted through the writer (every key/value copied, every
 * tensor added with its bytes, when its name can be written), the output is
 * parsed again, and the two must agree: the same keys in the same order with
 * the same types and value bytes, the same tensors with the same types, shapes
 * and bytes. A disagreement aborts (a finding). */
#include <modelio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct mbuf {
    uint8_t *p;
    size_t len, cap;
} mbuf;

static int sink(void *user, const void *data, size_t len) {
    mbuf *m = user;
    if (m->len + len > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4096;
        while (nc < m->len + len) nc *= 2;
        uint8_t *np = realloc(m->p, nc);
        if (!np) return 1;
        m->p = np, m->cap = nc;
    }
    memcpy(m->p + m->len, data, len);
    m->len += len;
    return 0;
}

static int str_eq(mio_str a, mio_str b) { return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mio_gguf_file *f;
    if (mio_gguf_open_buffer(data, size, MIO_BUFFER_BORROW, &f) != MIO_OK) return 0;
    mio_writer *w;
    if (mio_writer_new(0, &w) != MIO_OK) abort();
    if (mio_writer_copy_all_kv(w, f, NULL, 0) != MIO_OK) abort();
    int64_t nt = mio_gguf_tensor_count(f), added = 0;
    int all_tensors = 1;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(f, i, &t) != MIO_OK) abort();
        char name[64];
        if (t.name.len >= sizeof name || memchr(t.name.ptr, 0, t.name.len)) { all_tensors = 0; continue; }
        memcpy(name, t.name.ptr, t.name.len);
        name[t.name.len] = 0;
        if (mio_writer_add_tensor(w, name, t.type, t.n_dims, t.ne, t.data, (size_t)t.nbytes) == MIO_OK) added++;
        else all_tensors = 0;
    }
    mbuf out = {0};
    if (mio_writer_write_cb(w, sink, &out) == MIO_OK) {
        mio_gguf_file *g;
        if (mio_gguf_open_buffer(out.p, out.len, MIO_BUFFER_BORROW, &g) != MIO_OK) abort(); /* ours must parse */
        if (mio_gguf_kv_count(g) != mio_gguf_kv_count(f)) abort();
        for (int64_t i = 0; i < mio_gguf_kv_count(f); i++) {
            if (!str_eq(mio_gguf_kv_key(f, i), mio_gguf_kv_key(g, i))) abort();
            mio_gguf_value a, b;
            if (mio_gguf_kv_value(f, i, &a) != MIO_OK || mio_gguf_kv_value(g, i, &b) != MIO_OK) abort();
            if (a.type != b.type || a.elem_type != b.elem_type || a.count != b.count || a.size != b.size ||
                (a.size && memcmp(a.data, b.data, a.size) != 0))
                abort();
        }
        if (mio_gguf_tensor_count(g) != added) abort();
        if (all_tensors) {
            for (int64_t i = 0; i < nt; i++) {
                mio_gguf_tensor a, b;
                if (mio_gguf_tensor_info(f, i, &a) != MIO_OK || mio_gguf_tensor_info(g, i, &b) != MIO_OK) abort();
                if (!str_eq(a.name, b.name) || a.type != b.type || a.n_dims != b.n_dims ||
                    memcmp(a.ne, b.ne, sizeof a.ne) != 0 || a.nbytes != b.nbytes ||
                    (a.nbytes && memcmp(a.data, b.data, (size_t)a.nbytes) != 0))
                    abort();
            }
        }
        mio_gguf_close(g);
    }
    free(out.p);
    mio_writer_free(w);
    mio_gguf_close(f);
    return 0;
}
