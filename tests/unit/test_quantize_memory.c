/* SPDX-License-Identifier: MIT */
/* test_quantize_memory.c — mio_quantize works in a fixed working set, not one
 * sized by the model or its largest tensor (docs/QUANTIZE.md "Memory"): a
 * 200 MiB f16 model (streamed to disk piece by piece, so building it costs no
 * memory) is quantized in this process and the peak RSS growth is checked
 * against the documented bound: 4 MiB of f32 chunk + the encoded chunk (at most
 * as large) + the source pages of one chunk (released after use) + 8 MiB for
 * thread stacks and the allocator = 20 MiB, whatever the thread count. */
#include "modelio.h"
#include "test.h"
#include "rss.h"

#include <sys/resource.h>
#include <unistd.h>

#define ROWS 4096
#define COLS 1024 /* 8 MiB of f16 per tensor */
#define N_T 25    /* 200 MiB */
#define BOUND_MIB 20


/* checks once per tensor, not per row (keeps the pass count readable) */
static void write_model(const char *path) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    int64_t ne[2] = {COLS, ROWS};
    char name[64];
    for (int i = 0; i < N_T; i++) {
        snprintf(name, sizeof name, "blk.%d.ffn_up.weight", i);
        T_OK(mio_writer_declare_tensor(w, name, MIO_TYPE_F16, 2, ne));
    }
    T_OK(mio_writer_begin_file(w, path));
    static uint16_t row[COLS];
    uint32_t x = 12345;
    for (int i = 0; i < N_T; i++)
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                x = x * 1664525u + 1013904223u;
                row[c] = mio_f32_to_fp16(((float)(x >> 8) / 16777216.0f - 0.5f) * 0.2f);
            }
            if (mio_writer_write_tensor_part(w, row, sizeof row) != MIO_OK) {
                T_OK(MIO_ERR_IO);
                mio_writer_free(w);
                return;
            }
        }
    T_OK(mio_writer_finish(w));
    mio_writer_free(w);
}

int main(void) {
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer keeps shadow memory for every page the process touches
     * (the 200 MiB model included): RSS measures TSan here, not the library. */
    T_SKIP("built with ThreadSanitizer: RSS growth is TSan's shadow memory");
#endif
    const char *in = "qmem_in.gguf", *out = "qmem_out.gguf";
    write_model(in);
    long before_peak = rss_peak_kib(), base = rss_now_kib();
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.dtype = MIO_TYPE_Q8_0;
    p.n_threads = 2;
    T_OK(mio_quantize(in, out, &p));
    long peak = rss_peak_kib();
    long growth = peak - (base > before_peak ? base : before_peak);
    printf("model %d MiB; RSS before %ld KiB (peak so far %ld KiB); peak during mio_quantize %ld KiB; growth %ld KiB; "
           "bound %d MiB\n", N_T * ROWS * COLS * 2 >> 20, base, before_peak, peak, growth, BOUND_MIB);
#if defined(__SANITIZE_ADDRESS__)
    printf("AddressSanitizer build: shadow memory and quarantine change RSS; the bound is checked in the plain build\n");
#else
    T_CHECK(growth <= BOUND_MIB * 1024L);
#endif
    /* and it did the work: q8_0 is 34 bytes per 32 weights */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(out, 0, &f));
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, N_T - 1, &t));
    T_EQ_INT(t.type, MIO_TYPE_Q8_0);
    T_EQ_U64(t.nbytes, (uint64_t)ROWS * COLS / 32 * 34);
    mio_gguf_close(f);
    unlink(in);
    unlink(out);
    T_DONE();
}
