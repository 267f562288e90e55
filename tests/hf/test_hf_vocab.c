/* SPDX-License-Identifier: MIT */
/* test_hf_vocab.c — mio_hf_vocab_write on small hand-made tokenizer directories:
 * exact tokens, token types, scores, merges, special ids, add_* flags, chat
 * templates and key order for each path (tokenizer.json byte-level BPE -> gpt2,
 * tokenizer.json BPE with byte fallback -> llama, SentencePiece protobuf ->
 * llama), and the messages for malformed or unsupported input. */
#include "hf_vocab_common.h"

#include "core/core.h"

#include <unistd.h>

static char g_dir[64];

static void fresh_dir(void) {
    if (g_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) exit(1);
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/mio-hfv-XXXXXX");
    if (!mkdtemp(g_dir)) exit(1);
}

static int64_t key_at(const mio_gguf_file *f, const char *k) { return mio_gguf_find_key(f, k); }

/* element i of a string array */
static mio_str arr_str(const mio_gguf_file *f, const char *k, uint64_t i) {
    mio_str s = {NULL, 0};
    mio_gguf_value v;
    if (mio_gguf_kv_value(f, key_at(f, k), &v) || v.elem_type != MIO_GGUF_STRING || i >= v.count) return s;
    const unsigned char *p = (const unsigned char *)v.data;
    for (uint64_t j = 0;; j++) {
        uint64_t l;
        memcpy(&l, p, 8);
        if (j == i) { s.ptr = (const char *)p + 8; s.len = (size_t)l; return s; }
        p += 8 + l;
    }
}
static uint64_t arr_n(const mio_gguf_file *f, const char *k) {
    mio_gguf_value v;
    return mio_gguf_kv_value(f, key_at(f, k), &v) ? 0 : v.count;
}
static int32_t arr_i32(const mio_gguf_file *f, const char *k, uint64_t i) {
    mio_gguf_value v;
    int32_t x = -999;
    if (!mio_gguf_kv_value(f, key_at(f, k), &v) && v.elem_type == MIO_GGUF_I32 && i < v.count)
        memcpy(&x, (const char *)v.data + 4 * i, 4);
    return x;
}
static float arr_f32(const mio_gguf_file *f, const char *k, uint64_t i) {
    mio_gguf_value v;
    float x = 12345.0f;
    if (!mio_gguf_kv_value(f, key_at(f, k), &v) && v.elem_type == MIO_GGUF_F32 && i < v.count)
        memcpy(&x, (const char *)v.data + 4 * i, 4);
    return x;
}
static uint64_t u32_of(const mio_gguf_file *f, const char *k) {
    uint64_t x = 999999;
    if (mio_gguf_kv_type(f, key_at(f, k)) != MIO_GGUF_U32 || mio_gguf_kv_u64(f, key_at(f, k), &x)) return 999999;
    return x;
}
static int bool_of(const mio_gguf_file *f, const char *k) {
    int b = -1;
    if (mio_gguf_kv_bool(f, key_at(f, k), &b)) return -1;
    return b;
}
static mio_str str_of(const mio_gguf_file *f, const char *k) {
    mio_str s = {NULL, 0};
    mio_gguf_kv_str(f, key_at(f, k), &s);
    return s;
}
static void keys_are(const mio_gguf_file *f, const char *const *want, int n) {
    T_EQ_INT(mio_gguf_kv_count(f), n);
    for (int i = 0; i < n && i < mio_gguf_kv_count(f); i++) T_EQ_MSTR(mio_gguf_kv_key(f, i), want[i]);
}

static mio_status run(int flavour, const char *config, const char *pre, mio_gguf_file **f, membuf *mb,
                      hf_vocab_info *info) {
    mio_json *cfg = config ? mio_json_parse_str(config, NULL) : NULL;
    if (config) put_text(g_dir, "config.json", config);
    hf_vocab_opts o = {.dir = g_dir, .config = cfg, .flavour = flavour, .pre_override = pre};
    hf_vocab_info dummy;
    mio_status st = vocab_gguf(&o, info ? info : &dummy, mb, f);
    mio_json_free(cfg);
    return st;
}

#define QWEN_PRE \
    "\"normalizer\": {\"type\": \"NFC\"}, \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [" \
    "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}, \"behavior\": \"Isolated\", \"invert\": false}," \
    "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false, \"use_regex\": false}]}"

static void test_gpt2(void) {
    fresh_dir();
    put_text(g_dir, "tokenizer.json",
             "{\"added_tokens\": [{\"id\": 4, \"content\": \"<|end|>\", \"special\": true, \"normalized\": false},"
             " {\"id\": 5, \"content\": \"\xe2\x96\x81x\", \"special\": false, \"normalized\": true}],"
             QWEN_PRE ", \"post_processor\": {\"type\": \"ByteLevel\"}, \"decoder\": {\"type\": \"ByteLevel\"},"
             "\"model\": {\"type\": \"BPE\", \"byte_fallback\": false, \"ignore_merges\": false,"
             " \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"\xc4\xa0\": 3}, \"merges\": [[\"a\", \"b\"], [\"\xc4\xa0 a\", \"b\"]]}}");
    put_text(g_dir, "tokenizer_config.json",
             "{\"eos_token\": \"<|end|>\", \"pad_token\": {\"content\": \"<|end|>\"}, \"add_bos_token\": true,"
             " \"chat_template\": \"T{{x}}\"}");
    mio_gguf_file *f;
    membuf mb;
    hf_vocab_info info;
    T_OK(run(HF_VOCAB_QWEN2, "{\"vocab_size\": 8, \"bos_token_id\": 0, \"eos_token_id\": [4]}", NULL, &f, &mb, &info));
    if (!f) return;
    static const char *const keys[] = {"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
                                       "tokenizer.ggml.token_type", "tokenizer.ggml.merges",
                                       "tokenizer.ggml.eos_token_id", "tokenizer.ggml.padding_token_id",
                                       "tokenizer.ggml.bos_token_id", "tokenizer.ggml.add_bos_token",
                                       "tokenizer.ggml.add_eos_token", "tokenizer.chat_template"};
    keys_are(f, keys, 11);
    T_EQ_MSTR(str_of(f, "tokenizer.ggml.model"), "gpt2");
    T_EQ_MSTR(str_of(f, "tokenizer.ggml.pre"), "qwen2");
    T_EQ_STR(info.pre, "qwen2");
    T_EQ_STR(info.ref_pre, "");
    T_EQ_INT(info.differs_from_reference, 0);
    static const char *const toks[] = {"a", "b", "ab", "\xc4\xa0", "<|end|>", " x", "[PAD6]", "[PAD7]"};
    static const int types[] = {1, 1, 1, 1, 3, 4, 5, 5};
    T_EQ_U64(arr_n(f, "tokenizer.ggml.tokens"), 8);
    for (int i = 0; i < 8; i++) {
        T_EQ_MSTR(arr_str(f, "tokenizer.ggml.tokens", (uint64_t)i), toks[i]);
        T_EQ_INT(arr_i32(f, "tokenizer.ggml.token_type", (uint64_t)i), types[i]);
    }
    T_EQ_U64(arr_n(f, "tokenizer.ggml.merges"), 2);
    T_EQ_MSTR(arr_str(f, "tokenizer.ggml.merges", 0), "a b");
    T_EQ_MSTR(arr_str(f, "tokenizer.ggml.merges", 1), "\xc4\xa0\xc4\xa0" "a b"); /* the space inside a part -> U+0120 */
    T_EQ_U64(u32_of(f, "tokenizer.ggml.eos_token_id"), 4);
    T_EQ_U64(u32_of(f, "tokenizer.ggml.padding_token_id"), 4);
    T_EQ_U64(u32_of(f, "tokenizer.ggml.bos_token_id"), 0); /* config.json; its list-valued eos is ignored */
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_bos_token"), 0); /* the ByteLevel post-processor wins over add_bos_token */
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_eos_token"), 0);
    T_EQ_MSTR(str_of(f, "tokenizer.chat_template"), "T{{x}}");
    mio_gguf_close(f);
    free(mb.p);

    /* --pre overrides; an unknown name is refused */
    T_OK(run(HF_VOCAB_QWEN2, "{\"vocab_size\": 8}", "gpt-2", &f, &mb, &info));
    if (f) { T_EQ_MSTR(str_of(f, "tokenizer.ggml.pre"), "gpt-2"); mio_gguf_close(f); }
    free(mb.p);
    T_STATUS(run(HF_VOCAB_QWEN2, "{\"vocab_size\": 8}", "no-such-pre", &f, &mb, &info), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("--pre no-such-pre");
    free(mb.p);
    /* vocab_size below an id */
    T_STATUS(run(HF_VOCAB_QWEN2, "{\"vocab_size\": 5}", NULL, &f, &mb, &info), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("token id 5 is not below vocab_size 5");
    free(mb.p);
}

static void test_llama3_template(void) {
    /* Llama-3.1 shape: the TemplateProcessing post-processor adds BOS; an unknown regex is refused naming --pre */
    fresh_dir();
    put_text(g_dir, "tokenizer.json",
             "{\"added_tokens\": [{\"id\": 3, \"content\": \"<|begin|>\", \"special\": true}],"
             " \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"use_regex\": true},"
             " \"post_processor\": {\"type\": \"Sequence\", \"processors\": [{\"type\": \"ByteLevel\"},"
             " {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<|begin|>\"}},"
             " {\"Sequence\": {\"id\": \"A\"}}], \"pair\": []}]},"
             "\"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"byte_fallback\": false,"
             " \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\"]}}");
    put_text(g_dir, "tokenizer_config.json", "{\"bos_token\": \"<|begin|>\"}");
    put_text(g_dir, "chat_template.jinja", "J{{m}}");
    mio_gguf_file *f;
    membuf mb;
    T_STATUS(run(HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_UNSUPPORTED);
    T_MSG_HAS("pre-tokenizer not recognized");
    T_MSG_HAS("--pre NAME");
    T_MSG_HAS("\"add_prefix_space\":true");
    free(mb.p);
    T_OK(run(HF_VOCAB_LLAMA, "{}", "gpt-2", &f, &mb, NULL));
    if (f) {
        T_EQ_U64(arr_n(f, "tokenizer.ggml.tokens"), 4);
        T_EQ_INT(arr_i32(f, "tokenizer.ggml.token_type", 3), 3);
        T_EQ_U64(u32_of(f, "tokenizer.ggml.bos_token_id"), 3);
        T_EQ_INT(bool_of(f, "tokenizer.ggml.add_bos_token"), 1);
        T_EQ_INT(bool_of(f, "tokenizer.ggml.add_eos_token"), 0);
        T_EQ_MSTR(str_of(f, "tokenizer.chat_template"), "J{{m}}");
        mio_gguf_close(f);
    }
    free(mb.p);
}

static void test_llama_hf(void) {
    fresh_dir();
    put_text(g_dir, "tokenizer.json",
             "{\"added_tokens\": [{\"id\": 0, \"content\": \"<unk>\", \"special\": true},"
             " {\"id\": 1, \"content\": \"<s>\", \"special\": true}, {\"id\": 2, \"content\": \"</s>\", \"special\": true},"
             " {\"id\": 8, \"content\": \"<extra>\", \"special\": false}],"
             " \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Prepend\", \"prepend\": \"\xe2\x96\x81\"}]},"
             " \"pre_tokenizer\": null, \"decoder\": {\"type\": \"Sequence\", \"decoders\": []},"
             " \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<s>\"}},"
             " {\"Sequence\": {\"id\": \"A\"}}], \"pair\": [{\"SpecialToken\": {\"id\": \"<s>\"}}, {\"Sequence\": {\"id\": \"A\"}},"
             " {\"SpecialToken\": {\"id\": \"<s>\"}}, {\"Sequence\": {\"id\": \"B\"}}]},"
             "\"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"unk_token\": \"<unk>\", \"vocab\": {\"<unk>\": 0,"
             " \"<s>\": 1, \"</s>\": 2, \"<0x41>\": 3, \"\xe2\x96\x81\": 4, \"a\": 5, \"\xe2\x96\x81" "a\": 6, \"aa\": 7},"
             " \"merges\": [\"\xe2\x96\x81 a\", \"a a\"]}}");
    put_text(g_dir, "tokenizer_config.json",
             "{\"bos_token\": \"<s>\", \"eos_token\": \"</s>\", \"unk_token\": \"<unk>\", \"add_eos_token\": false}");
    mio_gguf_file *f;
    membuf mb;
    hf_vocab_info info;
    T_OK(run(HF_VOCAB_LLAMA, "{\"vocab_size\": 9}", NULL, &f, &mb, &info));
    if (!f) return;
    static const char *const keys[] = {"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
                                       "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
                                       "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
                                       "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.add_bos_token",
                                       "tokenizer.ggml.add_sep_token", "tokenizer.ggml.add_eos_token"};
    keys_are(f, keys, 11);
    T_EQ_MSTR(str_of(f, "tokenizer.ggml.model"), "llama");
    T_EQ_MSTR(str_of(f, "tokenizer.ggml.pre"), "default");
    T_EQ_INT(info.differs_from_reference, 1);
    /* types: unk UNKNOWN (the reference: CONTROL), specials CONTROL, <0x41> BYTE, added non-special USER_DEFINED */
    static const int types[] = {2, 3, 3, 6, 1, 1, 1, 1, 4};
    /* scores: a merge of rank r makes its token score -r; tokens no merge makes
     * score -(n_merges + id), below every merge; added tokens -1000 */
    static const float scores[] = {-2, -3, -4, -5, -6, -7, 0, -1, -1000};
    T_EQ_U64(arr_n(f, "tokenizer.ggml.tokens"), 9);
    for (int i = 0; i < 9; i++) {
        T_EQ_INT(arr_i32(f, "tokenizer.ggml.token_type", (uint64_t)i), types[i]);
        T_CHECK(arr_f32(f, "tokenizer.ggml.scores", (uint64_t)i) == scores[i]);
    }
    T_EQ_MSTR(arr_str(f, "tokenizer.ggml.tokens", 8), "<extra>");
    T_EQ_U64(u32_of(f, "tokenizer.ggml.unknown_token_id"), 0);
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_bos_token"), 1);
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_sep_token"), 0);
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_eos_token"), 0);
    mio_gguf_close(f);
    free(mb.p);
}

/* protobuf helpers: a SentencePiece message */
static size_t pb_piece(unsigned char *o, const char *text, float score, int type) {
    unsigned char m[64];
    size_t n = 0, l = strlen(text);
    m[n++] = 0x0a; m[n++] = (unsigned char)l; memcpy(m + n, text, l); n += l;
    if (score != 0.0f) { m[n++] = 0x15; memcpy(m + n, &score, 4); n += 4; }
    if (type) { m[n++] = 0x18; m[n++] = (unsigned char)type; }
    o[0] = 0x0a;
    o[1] = (unsigned char)n;
    memcpy(o + 2, m, n);
    return n + 2;
}

static void test_spm(void) {
    fresh_dir();
    unsigned char pbuf[512];
    size_t n = 0;
    n += pb_piece(pbuf + n, "<unk>", 0.0f, 2);
    n += pb_piece(pbuf + n, "<s>", 0.0f, 3);
    n += pb_piece(pbuf + n, "</s>", 0.0f, 3);
    n += pb_piece(pbuf + n, "\xe2\x96\x81" "a", -1.5f, 0);
    n += pb_piece(pbuf + n, "<0x41>", 0.0f, 6);
    n += pb_piece(pbuf + n, "x", -2.25f, 4); /* USER_DEFINED: the reference types it NORMAL */
    /* TrainerSpec { model_type: BPE } and an unknown varint field 7 */
    static const unsigned char trainer[] = {0x12, 0x02, 0x18, 0x02, 0x38, 0x96, 0x01};
    memcpy(pbuf + n, trainer, sizeof trainer);
    n += sizeof trainer;
    /* the first piece by hand: field 1 LEN 9 { field 1 LEN 5 "<unk>", field 3 varint 2 } */
    static const unsigned char first[] = {0x0a, 0x09, 0x0a, 0x05, '<', 'u', 'n', 'k', '>', 0x18, 0x02};
    T_CHECK(memcmp(pbuf, first, sizeof first) == 0);
    put_file(g_dir, "tokenizer.model", pbuf, n);
    put_text(g_dir, "tokenizer_config.json",
             "{\"add_prefix_space\": false, \"add_bos_token\": true, \"added_tokens_decoder\": {\"6\": {\"content\":"
             " \"<|im\xe2\x96\x81x|>\", \"special\": false}, \"7\": {\"content\": \"a\xe2\x96\x81" "b\", \"special\": false}}}");
    put_text(g_dir, "added_tokens.json", "{\"<add>\": 8, \"<far>\": 99}");
    mio_gguf_file *f;
    membuf mb;
    T_OK(run(HF_VOCAB_LLAMA, "{\"vocab_size\": 10, \"bos_token_id\": 1, \"eos_token_id\": 2, \"pad_token_id\": 10}", NULL,
             &f, &mb, NULL));
    if (!f) return;
    static const char *const keys[] = {"tokenizer.ggml.add_space_prefix", "tokenizer.ggml.model", "tokenizer.ggml.pre",
                                       "tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
                                       "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
                                       "tokenizer.ggml.add_bos_token"};
    keys_are(f, keys, 9); /* pad id 10 is out of range: skipped */
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_space_prefix"), 0);
    T_EQ_MSTR(str_of(f, "tokenizer.ggml.pre"), "default");
    static const char *const toks[] = {"<unk>", "<s>", "</s>", "\xe2\x96\x81" "a", "<0x41>", "x",
                                       "<|im\xe2\x96\x81x|>", "a b", "<add>", "[PAD9]"};
    static const int types[] = {2, 3, 3, 1, 6, 1, 3, 4, 4, 5};
    static const float scores[] = {0, 0, 0, -1.5f, 0, -2.25f, -1000, -1000, -1000, -10000};
    for (int i = 0; i < 10; i++) {
        T_EQ_MSTR(arr_str(f, "tokenizer.ggml.tokens", (uint64_t)i), toks[i]);
        T_EQ_INT(arr_i32(f, "tokenizer.ggml.token_type", (uint64_t)i), types[i]);
        T_CHECK(arr_f32(f, "tokenizer.ggml.scores", (uint64_t)i) == scores[i]);
    }
    T_EQ_U64(u32_of(f, "tokenizer.ggml.bos_token_id"), 1);
    T_EQ_INT(bool_of(f, "tokenizer.ggml.add_bos_token"), 1);
    mio_gguf_close(f);
    free(mb.p);

    /* Phi3MiniModel.set_vocab on the same files: pieces typed by the model only
     * (x NORMAL), added tokens as written (no U+2581 -> space), no
     * add_space_prefix; a text twice (x at 5 and 8) is written, with a warning */
    put_text(g_dir, "added_tokens.json", "{\"x\": 8, \"<far>\": 99}");
    mio_warn_clear();
    T_OK(run(HF_VOCAB_PHI3, "{\"vocab_size\": 10}", NULL, &f, &mb, NULL));
    T_CHECK(strstr(mio_last_warning(), "the vocabulary holds the token text \"x\" at ids 5 and 8") != NULL);
    if (f) {
        T_CHECK(key_at(f, "tokenizer.ggml.add_space_prefix") < 0);
        static const char *const ptoks[] = {"<unk>", "<s>", "</s>", "\xe2\x96\x81" "a", "<0x41>", "x",
                                            "<|im\xe2\x96\x81x|>", "a\xe2\x96\x81" "b", "x", "[PAD9]"};
        static const int ptypes[] = {2, 3, 3, 1, 6, 1, 4, 4, 4, 5};
        static const float pscores[] = {0, 0, 0, -1.5f, 0, -2.25f, -1000, -1000, -1000, -10000};
        for (int i = 0; i < 10; i++) {
            T_EQ_MSTR(arr_str(f, "tokenizer.ggml.tokens", (uint64_t)i), ptoks[i]);
            T_EQ_INT(arr_i32(f, "tokenizer.ggml.token_type", (uint64_t)i), ptypes[i]);
            T_CHECK(arr_f32(f, "tokenizer.ggml.scores", (uint64_t)i) == pscores[i]);
        }
        mio_gguf_close(f);
    }
    free(mb.p);
    put_text(g_dir, "added_tokens.json", "{\"<add>\": 8, \"<far>\": 99}");

    /* truncated: the file cut inside the 4th piece's score */
    size_t cut = 0;
    for (int k = 0; k < 3; k++) cut += 2 + pbuf[cut + 1];
    cut += 2 + 2 + 4 + 2; /* into piece 4: its key/len, the piece string, the score key and 1 byte */
    put_file(g_dir, "tokenizer.model", pbuf, cut);
    T_STATUS(run(HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_TRUNCATED);
    T_MSG_HAS("malformed protobuf at byte");
    T_MSG_HAS("runs past the end");
    free(mb.p);
    /* a truncated varint at the very end */
    unsigned char bad[] = {0x0a, 0x03, 0x0a, 0x01, 'a', 0x18};
    put_file(g_dir, "tokenizer.model", bad, sizeof bad);
    T_STATUS(run(HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_TRUNCATED);
    T_MSG_HAS("at byte 6: truncated varint"); /* the value of the top-level key at byte 5 */
    free(mb.p);
    /* a group wire type */
    unsigned char grp[] = {0x0a, 0x03, 0x0a, 0x01, 'a', 0x0b};
    put_file(g_dir, "tokenizer.model", grp, sizeof grp);
    T_STATUS(run(HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_METADATA);
    T_MSG_HAS("at byte 5: field 1 has wire type 3");
    free(mb.p);
    /* the piece string with a varint wire type */
    unsigned char wt[] = {0x0a, 0x02, 0x08, 0x01};
    put_file(g_dir, "tokenizer.model", wt, sizeof wt);
    T_STATUS(run(HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_METADATA);
    T_MSG_HAS("SentencePiece.piece (field 1) has wire type 0, expected 2");
    free(mb.p);
}

static void test_errors(void) {
    mio_gguf_file *f;
    membuf mb;
    /* no tokenizer at all */
    fresh_dir();
    T_STATUS(run(HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_NOT_FOUND);
    T_MSG_HAS("no tokenizer: neither tokenizer.model (SentencePiece) nor tokenizer.json");
    free(mb.p);
    /* WordPiece and Unigram tokenizer.json */
    static const char *const types[] = {"WordPiece", "Unigram"};
    for (int i = 0; i < 2; i++) {
        char j[256];
        snprintf(j, sizeof j, "{\"model\": {\"type\": \"%s\", \"vocab\": {}}}", types[i]);
        put_text(g_dir, "tokenizer.json", j);
        T_STATUS(run(i ? HF_VOCAB_QWEN2 : HF_VOCAB_LLAMA, "{}", NULL, &f, &mb, NULL), MIO_ERR_UNSUPPORTED);
        T_MSG_HAS(types[i]);
        T_MSG_HAS("is not converted");
        free(mb.p);
    }
    /* wrong JSON types */
    put_text(g_dir, "tokenizer.json",
             "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
             " \"model\": {\"type\": \"BPE\", \"vocab\": [\"a\", \"b\"]}}");
    T_STATUS(run(HF_VOCAB_QWEN2, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("model.vocab is not an object");
    free(mb.p);
    put_text(g_dir, "tokenizer.json",
             "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
             " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": \"zero\"}}}");
    T_STATUS(run(HF_VOCAB_QWEN2, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("model.vocab['a'] is not a token id");
    free(mb.p);
    put_text(g_dir, "tokenizer.json",
             "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
             " \"added_tokens\": [{\"id\": -1, \"content\": \"x\"}], \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}");
    T_STATUS(run(HF_VOCAB_QWEN2, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("added_tokens[0].id is not a token id");
    free(mb.p);
    put_text(g_dir, "tokenizer.json",
             "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
             " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [7]}}");
    T_STATUS(run(HF_VOCAB_QWEN2, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("unknown tokenizer merges format");
    free(mb.p);
    put_text(g_dir, "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}");
    T_STATUS(run(HF_VOCAB_QWEN2, "{}", NULL, &f, &mb, NULL), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("tokenizer.json: not valid JSON");
    free(mb.p);
    /* a known gpt-2 configuration converts (the smallest valid one) */
    put_text(g_dir, "tokenizer.json",
             "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
             " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    hf_vocab_info info;
    T_OK(run(HF_VOCAB_QWEN2, "{}", NULL, &f, &mb, &info));
    T_EQ_STR(info.pre, "gpt-2");
    T_EQ_U64(info.n_tokens, 1);
    if (f) mio_gguf_close(f);
    free(mb.p);
    /* CodeLlama's vocab_size 32016: eot 32010 appended after everything else */
    fresh_dir();
    put_text(g_dir, "tokenizer.json",
             "{\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},"
             " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}");
    T_OK(run(HF_VOCAB_LLAMA, "{\"vocab_size\": 32016}", NULL, &f, &mb, NULL));
    if (f) {
        int64_t n = mio_gguf_kv_count(f);
        T_EQ_MSTR(mio_gguf_kv_key(f, n - 1), "tokenizer.ggml.eot_token_id");
        T_EQ_U64(u32_of(f, "tokenizer.ggml.eot_token_id"), 32010);
        mio_gguf_close(f);
    }
    free(mb.p);
    /* 49152 (granite small): add_bos_token false */
    T_OK(run(HF_VOCAB_LLAMA, "{\"vocab_size\": 49152}", NULL, &f, &mb, NULL));
    if (f) { T_EQ_INT(bool_of(f, "tokenizer.ggml.add_bos_token"), 0); mio_gguf_close(f); }
    free(mb.p);
}

int main(void) {
    test_gpt2();
    test_llama3_template();
    test_llama_hf();
    test_spm();
    test_errors();
    fresh_dir();
    rmdir(g_dir);
    T_DONE();
}
