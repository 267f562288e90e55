/* SPDX-License-Identifier: MIT */
/* mk_hf_vocab.c — a vocab-only GGUF from a Hugging Face tokenizer directory,
 * through mio_hf_vocab_write (internal, linked from modelio_internal), until the
 * converter's driver exists: general.architecture "llama", the few llama.*
 * hyperparameters llama.cpp's loader reads before the vocabulary, then every
 * tokenizer.* key. Prints hf_vocab_info on stdout.
 * Usage: mk_hf_vocab DIR OUT.gguf [llama|qwen2] [--pre NAME] */
#include "hf/hf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mio_json *read_config(const char *dir) {
    char p[4096];
    snprintf(p, sizeof p, "%s/config.json", dir);
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(b, cap + 1);
            if (!nb) break;
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (!r) break;
        n += r;
    }
    fclose(f);
    mio_json *j = b ? mio_json_parse(b, n, NULL) : NULL;
    free(b);
    return j;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: mk_hf_vocab DIR OUT.gguf [llama|qwen2|gemma3|phi3|bert] [--pre NAME]\n");
        return 2;
    }
    hf_vocab_opts o = {.dir = argv[1], .flavour = HF_VOCAB_LLAMA};
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "qwen2") == 0) o.flavour = HF_VOCAB_QWEN2;
        else if (strcmp(argv[i], "llama") == 0) o.flavour = HF_VOCAB_LLAMA;
        else if (strcmp(argv[i], "gemma3") == 0) o.flavour = HF_VOCAB_GEMMA3;
        else if (strcmp(argv[i], "phi3") == 0) o.flavour = HF_VOCAB_PHI3;
        else if (strcmp(argv[i], "bert") == 0) o.flavour = HF_VOCAB_BERT;
        else if (strcmp(argv[i], "gpt2") == 0) o.flavour = HF_VOCAB_GPT2;
        else if (strcmp(argv[i], "--pre") == 0 && i + 1 < argc) o.pre_override = argv[++i];
        else { fprintf(stderr, "mk_hf_vocab: unknown argument %s\n", argv[i]); return 2; }
    }
    mio_json *cfg = read_config(argv[1]);
    o.config = cfg;
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(MIO_WRITER_NO_EMPTY_PAD, &w);
    const char *arch = "llama";
    if (!st) st = mio_writer_set_str(w, "general.architecture", arch, strlen(arch));
    /* what llama.cpp's load_hparams requires of a llama before the vocabulary */
    if (!st) st = mio_writer_set_u32(w, "llama.context_length", 4096);
    if (!st) st = mio_writer_set_u32(w, "llama.embedding_length", 64);
    if (!st) st = mio_writer_set_u32(w, "llama.block_count", 1);
    if (!st) st = mio_writer_set_u32(w, "llama.feed_forward_length", 128);
    if (!st) st = mio_writer_set_u32(w, "llama.attention.head_count", 4);
    if (!st) st = mio_writer_set_u32(w, "llama.attention.head_count_kv", 4);
    if (!st) st = mio_writer_set_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    if (!st) st = mio_writer_set_u32(w, "llama.rope.dimension_count", 16);
    hf_vocab_info info;
    memset(&info, 0, sizeof info);
    if (!st) st = mio_hf_vocab_write(w, &o, &info);
    if (!st) st = mio_writer_write_file(w, argv[2]);
    if (st) {
        fprintf(stderr, "mk_hf_vocab: %s: %s\n", mio_status_name(st), mio_last_error());
        mio_writer_free(w);
        mio_json_free(cfg);
        return 1;
    }
    printf("{\"n_tokens\": %llu, \"model\": \"%s\", \"pre\": \"%s\", \"ref_pre\": \"%s\", \"differs\": %s}\n",
           (unsigned long long)info.n_tokens, info.model, info.pre, info.ref_pre,
           info.differs_from_reference ? "true" : "false");
    mio_writer_free(w);
    mio_json_free(cfg);
    return 0;
}
