/* SPDX-License-Identifier: MIT */
/* hf_tokenize.c — llama.cpp's tokenizer on a vocab-only GGUF: loads it with the
 * peer's libllama (llama_model_load_from_file, vocab_only) and prints, per
 * input text, llama_tokenize's ids (add_special = parse_special = false) as
 * one line of space-separated numbers. Texts come from a file of records
 * "<byte length>\n<bytes>" (test_hf_tokenize.py writes it). Exit 77 when the
 * peer is absent. The few libllama prototypes are declared here by hand;
 * llama_model_params is passed as an oversized zeroed blob holding the
 * library's defaults, with vocab_only (offset 72 in libllama v0.5.0: after
 * devices, tensor_buft_overrides, n_gpu_layers, split_mode, load_mode,
 * lazy_mode, main_gpu, tensor_split, progress_callback(+data), kv_overrides)
 * set — the loader proves the offset: a model with no tensors loads only then.
 * Usage: hf_tokenize MODEL.gguf TEXTS */
#include "peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned char bytes[512]; } mparams;
#define VOCAB_ONLY_OFFSET 72

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: hf_tokenize MODEL.gguf TEXTS\n"); return 2; }
    peer_api g;
    char why[8192], dir[4096];
    int rc = peer_load(&g, why, sizeof why);
    if (rc > 0) { printf("SKIP: %s\n", why); return 77; }
    if (rc < 0) { fprintf(stderr, "FAIL: %s\n", why); return 1; }
    void *ggml, *llama;
    rc = peer_llama_start(&g, dir, &ggml, &llama, why, sizeof why);
    if (rc > 0) { printf("SKIP: %s\n", why); return 77; }
    if (rc < 0) { fprintf(stderr, "FAIL: %s\n", why); return 1; }
    mparams (*default_params)(void);
    void *(*load)(const char *, mparams);
    const void *(*get_vocab)(const void *);
    int32_t (*tokenize)(const void *, const char *, int32_t, int32_t *, int32_t, bool, bool);
    void (*model_free)(void *);
    void *p;
    p = dlsym(llama, "llama_model_default_params"); memcpy(&default_params, &p, sizeof p);
    p = dlsym(llama, "llama_model_load_from_file"); memcpy(&load, &p, sizeof p);
    p = dlsym(llama, "llama_model_get_vocab"); memcpy(&get_vocab, &p, sizeof p);
    p = dlsym(llama, "llama_tokenize"); memcpy(&tokenize, &p, sizeof p);
    p = dlsym(llama, "llama_model_free"); memcpy(&model_free, &p, sizeof p);
    if (!default_params || !load || !get_vocab || !tokenize || !model_free) {
        fprintf(stderr, "FAIL: libllama lacks a llama_* entry point\n");
        return 1;
    }
    mparams mp = default_params();
    mp.bytes[VOCAB_ONLY_OFFSET] = 1;
    void *model = load(argv[1], mp);
    if (!model) {
        fprintf(stderr, "FAIL: llama_model_load_from_file(%s) failed\n", argv[1]);
        peer_dump_log();
        return 1;
    }
    const void *vocab = get_vocab(model);
    FILE *f = fopen(argv[2], "rb");
    if (!f) { fprintf(stderr, "FAIL: cannot open %s\n", argv[2]); return 1; }
    int32_t *ids = malloc(sizeof *ids * 1048576);
    char *text = malloc(1 << 20);
    unsigned long len;
    while (ids && text && fscanf(f, "%lu", &len) == 1 && fgetc(f) == '\n') {
        if (len >= (1u << 20) || fread(text, 1, len, f) != len) { fprintf(stderr, "FAIL: bad record\n"); return 1; }
        int32_t n = tokenize(vocab, text, (int32_t)len, ids, 1048576, false, false);
        if (n < 0) { fprintf(stderr, "FAIL: llama_tokenize returned %d\n", n); return 1; }
        for (int32_t i = 0; i < n; i++) printf(i ? " %d" : "%d", ids[i]);
        printf("\n");
    }
    fclose(f);
    free(ids);
    free(text);
    model_free(model);
    return 0;
}
