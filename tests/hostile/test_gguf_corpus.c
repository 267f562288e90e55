/* SPDX-License-Identifier: MIT */
/* test_gguf_corpus.c — real files: every damaged vocabulary in tests/data/damaged
 * (invalid UTF-8 replaced by EF BF BD in transit) is refused with a message that
 * points at U+FFFD; the intact copies open with the counts and values a separate
 * Python parser found (hard-coded below). */
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static void test_damaged(void) {
    const char *dir = MIO_TEST_DATA "/damaged";
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", dir);
        t_fail++;
        return;
    }
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".gguf") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        for (int m = 0; m < 2; m++) {
            mio_gguf_file *f = NULL;
            mio_status st = mio_gguf_open(path, m ? MIO_OPEN_READ : MIO_OPEN_MMAP, &f);
            const char *msg = mio_last_error();
            if (st != MIO_OK && msg[0] && strstr(msg, "U+FFFD") && strstr(msg, e->d_name)) t_pass++;
            else {
                t_fail++;
                fprintf(stderr, "%s (%s): status %s, message \"%s\"\n", e->d_name, m ? "read" : "mmap",
                        mio_status_name(st), st ? msg : "");
            }
            if (st == MIO_OK) mio_gguf_close(f);
            else if (m == 0) printf("%s: %s\n  %s\n", e->d_name, mio_status_name(st), msg);
        }
        seen++;
    }
    closedir(d);
    T_CHECK(seen >= 5);
    printf("%d damaged files refused\n", seen);
}

/* Expected values from an independent Python parse of the same files. */
static void test_gpt2(uint32_t flags) {
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(MIO_TEST_DATA "/vocab-gpt-2.gguf", flags, &f));
    if (!f) return;
    T_EQ_INT(mio_gguf_version(f), 3);
    T_EQ_INT(mio_gguf_kv_count(f), 16);
    T_EQ_INT(mio_gguf_tensor_count(f), 0);
    T_EQ_INT(mio_gguf_alignment(f), 32);
    /* gguf-py layout: the file ends right after the header, unpadded */
    T_EQ_U64(mio_gguf_file_size(f), 1766807);
    T_EQ_U64(mio_gguf_header_size(f), 1766807);
    T_EQ_U64(mio_gguf_data_offset(f), 1766816);

    int64_t k = mio_gguf_find_key(f, "tokenizer.ggml.tokens");
    T_EQ_INT(k, 11);
    mio_gguf_value v;
    mio_str s;
    T_OK(mio_gguf_kv_value(f, k, &v));
    T_EQ_INT(v.elem_type, MIO_GGUF_STRING);
    T_EQ_U64(v.count, 50257);
    T_OK(mio_gguf_arr_str(f, k, 0, &s)); T_EQ_MSTR(s, "!");
    T_OK(mio_gguf_arr_str(f, k, 198, &s)); T_EQ_MSTR(s, "\xc4\x8a");
    T_OK(mio_gguf_arr_str(f, k, 1000, &s)); T_EQ_MSTR(s, "ale");
    T_OK(mio_gguf_arr_str(f, k, 50256, &s)); T_EQ_MSTR(s, "<|endoftext|>");
    T_CHECK(mio_gguf_arr_str(f, k, 50257, &s) != MIO_OK);
    T_MSG_HAS("index 50257 out of range");

    k = mio_gguf_find_key(f, "tokenizer.ggml.merges");
    T_OK(mio_gguf_kv_value(f, k, &v));
    T_EQ_U64(v.count, 50000);
    T_OK(mio_gguf_arr_str(f, k, 0, &s)); T_EQ_MSTR(s, "\xc4\xa0 t");
    T_OK(mio_gguf_arr_str(f, k, 49999, &s)); T_EQ_MSTR(s, "\xc4\xa0g azed");

    int64_t i = 0;
    k = mio_gguf_find_key(f, "tokenizer.ggml.token_type");
    T_OK(mio_gguf_kv_value(f, k, &v));
    T_EQ_INT(v.elem_type, MIO_GGUF_I32);
    T_EQ_U64(v.count, 50257);
    T_OK(mio_gguf_arr_i64(f, k, 50256, &i)); T_EQ_INT(i, 3);
    T_OK(mio_gguf_arr_i64(f, k, 0, &i)); T_EQ_INT(i, 1);

    T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "tokenizer.ggml.bos_token_id"), &i)); T_EQ_INT(i, 50256);
    T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "gpt2.context_length"), &i)); T_EQ_INT(i, 1024);
    double d = 0;
    T_OK(mio_gguf_kv_f64(f, mio_gguf_find_key(f, "gpt2.attention.layer_norm_epsilon"), &d));
    T_CHECK(d == (double)1e-5f);
    T_OK(mio_gguf_kv_str(f, mio_gguf_find_key(f, "tokenizer.ggml.pre"), &s)); T_EQ_MSTR(s, "gpt-2");
    mio_gguf_close(f);
}

static void test_llama_spm(uint32_t flags) {
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(MIO_TEST_DATA "/vocab-llama-spm.gguf", flags, &f));
    if (!f) return;
    T_EQ_INT(mio_gguf_kv_count(f), 22);
    T_EQ_INT(mio_gguf_tensor_count(f), 0);
    T_EQ_U64(mio_gguf_header_size(f), 723869);
    T_EQ_U64(mio_gguf_data_offset(f), 723872);
    int64_t k = mio_gguf_find_key(f, "tokenizer.ggml.tokens");
    T_EQ_INT(k, 14);
    mio_gguf_value v;
    mio_str s;
    T_OK(mio_gguf_kv_value(f, k, &v));
    T_EQ_U64(v.count, 32000);
    T_OK(mio_gguf_arr_str(f, k, 0, &s)); T_EQ_MSTR(s, "<unk>");
    T_OK(mio_gguf_arr_str(f, k, 198, &s)); T_EQ_MSTR(s, "<0xC3>");
    T_OK(mio_gguf_arr_str(f, k, 1000, &s)); T_EQ_MSTR(s, "ied");
    T_OK(mio_gguf_arr_str(f, k, 31999, &s)); T_EQ_MSTR(s, "\xe7\xbb\x99");
    double d = 0;
    T_OK(mio_gguf_arr_f64(f, mio_gguf_find_key(f, "tokenizer.ggml.scores"), 31999, &d));
    T_CHECK(d == -31740.0);
    int b = -1;
    T_OK(mio_gguf_kv_bool(f, mio_gguf_find_key(f, "tokenizer.ggml.add_bos_token"), &b)); T_EQ_INT(b, 1);
    T_OK(mio_gguf_kv_bool(f, mio_gguf_find_key(f, "tokenizer.ggml.add_eos_token"), &b)); T_EQ_INT(b, 0);
    int64_t i = 0;
    T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "llama.vocab_size"), &i)); T_EQ_INT(i, 32000);
    mio_gguf_close(f);
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0); /* keep printed messages in order with failures on stderr */
    test_damaged();
    test_gpt2(MIO_OPEN_MMAP);
    test_gpt2(MIO_OPEN_READ);
    test_llama_spm(MIO_OPEN_MMAP);
    test_llama_spm(MIO_OPEN_READ);
    T_DONE();
}
