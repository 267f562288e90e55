/* SPDX-License-Identifier: MIT */
/* fuzz_hf.c — libFuzzer target: the files of a Hugging Face checkpoint that
 * the converter parses itself. The first byte picks the file the rest
 * becomes: 0 tokenizer.model (our SentencePiece protobuf reader), 1
 * tokenizer.json, 2 tokenizer_config.json beside a small valid tokenizer.json,
 * 3 config.json (the transformers-defaults pass, then the tokenizer with it as
 * hyperparameters). Each goes through mio_hf_vocab_write onto a writer, as every
 * vocabulary flavour, and the writer is serialized. */
#include <modelio.h>

#include "fuzz_tmp.h"
#include "hf/hf_internal.h"

#include <stdint.h>

static const char k_tok[] =
    "{\"added_tokens\":[{\"id\":4,\"content\":\"<s>\",\"special\":true}],\"pre_tokenizer\":{\"type\":\"ByteLevel\","
    "\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},\"model\":{\"type\":\"BPE\",\"vocab\":"
    "{\"a\":0,\"b\":1,\"ab\":2,\"\\u0120\":3,\"<s>\":4},\"merges\":[\"a b\"]}}";
static const char k_cfg[] = "{\"architectures\":[\"LlamaForCausalLM\"],\"vocab_size\":5}";

static int sink(void *u, const void *p, size_t n) { (void)u, (void)p, (void)n; return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const char *const names[] = {"tokenizer.model", "tokenizer.json", "tokenizer_config.json", "config.json"};
    char path[192];
    int mode = data[0] % 4;
    /* a fresh directory state: only the files this mode uses */
    for (int k = 0; k < 4; k++) unlink(fz_path(names[k], path, sizeof path));
    fz_write(names[mode], data + 1, size - 1, path, sizeof path);
    if (mode == 2) fz_write("tokenizer.json", k_tok, sizeof k_tok - 1, path, sizeof path);
    mio_json *raw = mio_json_parse_str(k_cfg, NULL), *cfg = NULL;
    if (mode == 3) {
        mio_json_free(raw);
        raw = mio_json_parse((const char *)data + 1, size - 1, NULL);
        if (!raw) return 0;
        if (mio_hf_hparams(raw, "config.json", &cfg) != MIO_OK) {
            mio_json_free(raw);
            return 0;
        }
        fz_write("tokenizer.json", k_tok, sizeof k_tok - 1, path, sizeof path);
    } else if (raw && mio_hf_hparams(raw, "config.json", &cfg) != MIO_OK) {
        abort(); /* the built-in config has no model_type: never refused */
    }
    for (int flavour = HF_VOCAB_LLAMA; flavour <= HF_VOCAB_BERT; flavour++) {
        mio_writer *w = NULL;
        if (mio_writer_new(MIO_WRITER_NO_EMPTY_PAD, &w) != MIO_OK) abort();
        hf_vocab_opts o = {.dir = fz_dir(), .config = cfg, .flavour = flavour};
        hf_vocab_info info;
        if (mio_hf_vocab_write(w, &o, &info) == MIO_OK && mio_writer_write_cb(w, sink, NULL) != MIO_OK) abort();
        mio_writer_free(w);
    }
    mio_json_free(cfg);
    mio_json_free(raw);
    return 0;
}
