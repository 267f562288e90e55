/* SPDX-License-Identifier: MIT */
/* interop_corpus.c — real vocabulary GGUF files (tests/data/vocab-*.gguf, copied
 * from llama.cpp's corpus, written by gguf-py) opened with both libmodelio and
 * ggml: every key, type and value (every string of the 50k-150k entry token
 * arrays) must agree. */
#include "interop.h"

#include <dirent.h>

static peer_api G;

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
    ic_load_peer_or_skip(&G);
    DIR *d = opendir(MIO_TEST_DATA);
    T_CHECK(d != NULL);
    if (!d) T_DONE();
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "vocab-", 6) == 0 && l > 5 && strcmp(e->d_name + l - 5, ".gguf") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    printf("%d vocab files in %s\n", n, MIO_TEST_DATA);
    T_CHECK(n >= 2);

    for (int k = 0; k < n; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", MIO_TEST_DATA, names[k]);
        size_t len = 0;
        unsigned char *file = ic_read_file(path, &len);
        peer_gguf_params p = {true, NULL};
        void *gc = G.gguf_init_from_file(path, p);
        mio_gguf_file *f = NULL;
        mio_status st = mio_gguf_open(path, MIO_OPEN_MMAP, &f);
        IC_CHECK(gc != NULL, "ggml cannot open %s", path);
        IC_CHECK(st == MIO_OK, "mio_gguf_open(%s) -> %s: %s", path, mio_status_name(st), mio_last_error());
        if (gc && f && file) {
            ic_compare(&G, gc, f, file, len, names[k]);
            printf("%s: %lld keys, %lld tensors, data offset %llu\n", names[k], (long long)mio_gguf_kv_count(f),
                   (long long)mio_gguf_tensor_count(f), (unsigned long long)mio_gguf_data_offset(f));
        }
        /* the same file through the heap loader must agree too */
        mio_gguf_file *h = NULL;
        if (gc && mio_gguf_open(path, MIO_OPEN_READ, &h) == MIO_OK) {
            ic_compare(&G, gc, h, file, len, names[k]);
            mio_gguf_close(h);
        }
        if (f) mio_gguf_close(f);
        if (gc) G.gguf_free(gc);
        free(file);
        free(names[k]);
    }

    /* a hand-checkable anchor: gpt-2's vocabulary */
    char gpt2[4096];
    snprintf(gpt2, sizeof gpt2, "%s/vocab-gpt-2.gguf", MIO_TEST_DATA);
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(gpt2, 0, &f) == MIO_OK) {
        peer_gguf_params p = {true, NULL};
        void *gc = G.gguf_init_from_file(gpt2, p);
        int64_t ki = mio_gguf_find_key(f, "tokenizer.ggml.tokens");
        T_CHECK(ki >= 0);
        T_EQ_INT(ki, G.gguf_find_key(gc, "tokenizer.ggml.tokens"));
        mio_gguf_value v;
        T_OK(mio_gguf_kv_value(f, ki, &v));
        T_EQ_U64(v.count, 50257);
        T_EQ_U64(G.gguf_get_arr_n(gc, ki), 50257);
        mio_str s;
        T_OK(mio_gguf_arr_str(f, ki, 50256, &s));
        T_EQ_MSTR(s, "<|endoftext|>");
        T_EQ_STR(G.gguf_get_arr_str(gc, ki, 50256), "<|endoftext|>");
        G.gguf_free(gc);
        mio_gguf_close(f);
    } else {
        printf("vocab-gpt-2.gguf missing from tests/data\n");
        T_CHECK(0);
    }
    T_DONE();
}
