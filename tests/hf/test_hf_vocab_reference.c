/* SPDX-License-Identifier: MIT */
/* test_hf_vocab_reference.c — mio_hf_vocab_write against convert_hf_to_gguf.py:
 * for every case of tests/data/hf/vocab-reference.json (recorded once by
 * scripts/make-hf-vocab-reference.py) the tokenizer.* keys come in the same
 * order with the same value types and the same value bytes (sha256 of the
 * wire encoding after the type field) — except the two documented differences
 * (docs/HF_VOCAB.md), which must be exactly these keys:
 *   llama3  (Llama-3 without BOS): tokenizer.ggml.pre
 *   llama2  (tokenizer.json BPE with byte fallback): tokenizer.ggml.scores, tokenizer.ggml.token_type
 * Usage: test_hf_vocab_reference DATA_DIR TOKENIZERS_DIR|-   ("-": the real
 * tokenizers are unavailable; their cases are skipped). */
#include "hf_vocab_common.h"
#include <modelio_inspect.h>

#include <time.h>
#include <unistd.h>

static const char *const EXPECTED_DIFF[][3] = {
    {"llama3", "tokenizer.ggml.pre", NULL},
    {"llama2", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"},
};

static bool expected_diff(const char *c, const char *key) {
    for (size_t i = 0; i < sizeof EXPECTED_DIFF / sizeof EXPECTED_DIFF[0]; i++)
        if (strcmp(EXPECTED_DIFF[i][0], c) == 0)
            for (int k = 1; k < 3; k++)
                if (EXPECTED_DIFF[i][k] && strcmp(EXPECTED_DIFF[i][k], key) == 0) return true;
    return false;
}
static int n_expected(const char *c) {
    for (size_t i = 0; i < sizeof EXPECTED_DIFF / sizeof EXPECTED_DIFF[0]; i++)
        if (strcmp(EXPECTED_DIFF[i][0], c) == 0) return EXPECTED_DIFF[i][2] ? 2 : 1;
    return 0;
}

static void link_dir(const char *from, const char *to) {
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "for f in '%s'/*; do [ -e \"$f\" ] && ln -sf \"$f\" '%s'/ ; done", from, to);
    if (system(cmd) != 0) { fprintf(stderr, "linking %s failed\n", from); exit(1); }
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s DATA_DIR TOKENIZERS_DIR|-\n", argv[0]); return 2; }
    const char *data = argv[1], *tokdir = strcmp(argv[2], "-") ? argv[2] : NULL;
    char p[8192];
    snprintf(p, sizeof p, "%s/vocab-reference.json", data);
    char *txt = slurp(p, NULL);
    T_CHECK(txt != NULL);
    mio_json *ref = txt ? mio_json_parse_str(txt, NULL) : NULL;
    free(txt);
    T_CHECK(ref != NULL);
    if (!ref) T_DONE();
    int skipped = 0;
    const mio_json *c;
    MIO_JSON_FOR_EACH(c, mio_json_get(ref, "cases")) {
        const char *name = c->string;
        char casedir[3000], tmpl[] = "/tmp/mio-hfvocab-XXXXXX";
        snprintf(casedir, sizeof casedir, "%s/vocab/%s", data, name);
        snprintf(p, sizeof p, "%s/tokenizer.model", casedir);
        bool real = access(p, R_OK) != 0;
        if (real && !tokdir) { printf("SKIP %s: the real tokenizers are not available\n", name); skipped++; continue; }
        char *tmp = mkdtemp(tmpl);
        T_CHECK(tmp != NULL);
        if (!tmp) continue;
        link_dir(casedir, tmp);
        if (real) {
            char td[4096];
            snprintf(td, sizeof td, "%s/%s", tokdir, name);
            link_dir(td, tmp);
        }
        snprintf(p, sizeof p, "%s/config.json", tmp);
        char *ct = slurp(p, NULL);
        mio_json *cfg = ct ? mio_json_parse_str(ct, NULL) : NULL;
        free(ct);
        const mio_json *arch = mio_json_at(mio_json_get(cfg, "architectures"), 0);
        hf_vocab_opts o = {.dir = tmp, .config = cfg,
                           .flavour = mio_json_is_string(arch) && strcmp(arch->valuestring, "Qwen2ForCausalLM") == 0
                                          ? HF_VOCAB_QWEN2 : HF_VOCAB_LLAMA};
        hf_vocab_info info;
        membuf mb;
        mio_gguf_file *f = NULL;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        mio_status st = vocab_gguf(&o, &info, &mb, &f);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (st) fprintf(stderr, "%s: %s: %s\n", name, mio_status_name(st), mio_last_error());
        T_OK(st);
        if (f) {
            const mio_json *keys = mio_json_get(c, "keys"), *vals = mio_json_get(c, "tokenizer"), *k;
            int64_t at = 0, nkv = mio_gguf_kv_count(f);
            int same = 0, differ = 0;
            MIO_JSON_FOR_EACH(k, keys) {
                if (strncmp(k->valuestring, "tokenizer.", 10) != 0) continue;
                /* the next tokenizer.* key of ours must be this one */
                mio_str key = mio_gguf_kv_key(f, at);
                bool ok = at < nkv && key.len == strlen(k->valuestring) && memcmp(key.ptr, k->valuestring, key.len) == 0;
                if (!ok) {
                    fprintf(stderr, "%s: key %lld is '%.*s', the reference has '%s' there\n", name, (long long)at,
                            (int)key.len, key.ptr ? key.ptr : "", k->valuestring);
                    t_fail++;
                    break;
                }
                const mio_json *rv = mio_json_get(vals, k->valuestring);
                mio_str raw;
                T_OK(mio_gguf_kv_raw(f, at, &raw));
                unsigned char dg[32];
                char hex[65];
                T_OK(mio_hash_bytes(MIO_HASH_SHA256, raw.ptr, raw.len, dg));
                for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", dg[i]);
                bool eq = mio_gguf_kv_type(f, at) == mio_json_get(rv, "type")->valueint &&
                          strcmp(hex, mio_json_get(rv, "sha256")->valuestring) == 0;
                if (eq) {
                    same++;
                    T_CHECK(!expected_diff(name, k->valuestring) || !"a documented difference vanished");
                    if (expected_diff(name, k->valuestring))
                        fprintf(stderr, "%s: %s now equals the reference (update EXPECTED_DIFF and the docs)\n", name,
                                k->valuestring);
                } else {
                    differ++;
                    if (!expected_diff(name, k->valuestring))
                        fprintf(stderr, "%s: %s differs from the reference (type %d, %zu bytes; reference %d, %d bytes)\n",
                                name, k->valuestring, mio_gguf_kv_type(f, at), raw.len,
                                mio_json_get(rv, "type")->valueint, mio_json_get(rv, "bytes")->valueint);
                    T_CHECK(expected_diff(name, k->valuestring));
                }
                at++;
            }
            T_EQ_INT(at, nkv); /* no key added */
            T_EQ_INT(differ, n_expected(name));
            T_EQ_INT(info.differs_from_reference, n_expected(name) > 0);
            printf("%s: %d tokenizer.* keys identical, %d documented differences, %llu tokens, %.0f ms\n", name, same,
                   differ, (unsigned long long)info.n_tokens,
                   (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
            mio_gguf_close(f);
        }
        free(mb.p);
        mio_json_free(cfg);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
    }
    mio_json_free(ref);
    if (skipped && t_fail == 0 && t_pass == 0) T_SKIP("no case could run");
    T_DONE();
}
