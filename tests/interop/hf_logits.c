/* SPDX-License-Identifier: MIT */
/* hf_logits.c — load a GGUF with the peer's libllama (llama.cpp from the npm
 * package @node-llama-cpp/linux-x64, via tests/interop/peer.h), decode a fixed
 * sequence of token ids and print the first logits of the last position, as
 * exact bits and as decimals. make-hf-reference.py records this for the
 * reference's outputs; tools_hf_convert runs it on mio-convert-hf's and wants the
 * same bits. llama.cpp is declared by hand; no llama.cpp header is used.
 *   usage: hf_logits [-n N_LOGITS] [-t TOKEN,TOKEN,...] MODEL.gguf...
 *          (default 16 logits; tokens 1,450,4996,17354; several models share one
 *          start of the back ends, which is most of the time on a tiny model)
 *   output per model: "model PATH", "n_vocab V", then one line per logit: "i 0xBITS %.9g";
 *          a model llama.cpp refuses: "model PATH", "error WHY"
 *   exit 0 all ok, 1 a model was refused / a decode failed, 77 peer absent. */
#include "peer.h"

/* llama_model_params / llama_context_params: returned and passed by value,
 * never looked into. Over-sized stand-ins: on x86-64 SysV a struct over 16
 * bytes is class MEMORY (returned through a hidden pointer, passed as a copy in
 * the caller's argument area), so the callee only ever touches its own prefix. */
typedef struct { unsigned char bytes[1024]; } blob_t;
/* struct llama_batch { int32_t n_tokens; llama_token *token; float *embd; llama_pos *pos;
 *                      int32_t *n_seq_id; llama_seq_id **seq_id; int8_t *logits; } — 56 bytes,
 * MEMORY class too; only returned by llama_batch_get_one and handed to llama_decode. */
typedef struct {
    int32_t n_tokens;
    int32_t *token;
    float *embd;
    int32_t *pos;
    int32_t *n_seq_id;
    int32_t **seq_id;
    int8_t *logits;
} batch_t;

#define BIND(dst, h, name) do { void *_p = dlsym((h), (name)); memcpy(&(dst), &_p, sizeof _p); } while (0)

static blob_t (*model_default_params)(void), (*context_default_params)(void);
static void *(*model_load)(const char *, blob_t);
static void *(*init_from_model)(void *, blob_t);
static const void *(*model_get_vocab)(const void *);
static int32_t (*vocab_n_tokens)(const void *);
static batch_t (*batch_get_one)(int32_t *, int32_t);
static int32_t (*decode)(void *, batch_t);
static float *(*get_logits_ith)(void *, int32_t);
static void (*ctx_free)(void *), (*model_free)(void *);

static int run_one(const char *path, int n_out, int32_t *toks, int n_tok);

int main(int argc, char **argv) {
    int n_out = 16, first = 1;
    int32_t toks[64] = {1, 450, 4996, 17354};
    int n_tok = 4;
    while (first < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "-n") && first + 1 < argc) {
            n_out = atoi(argv[first + 1]);
        } else if (!strcmp(argv[first], "-t") && first + 1 < argc) {
            n_tok = 0;
            for (char *q = argv[first + 1]; *q && n_tok < 64;) {
                toks[n_tok++] = (int32_t)strtol(q, &q, 10);
                if (*q == ',') q++;
                else if (*q) { fprintf(stderr, "hf_logits: bad -t list\n"); return 2; }
            }
        } else {
            break;
        }
        first += 2;
    }
    if (first >= argc || n_tok == 0) {
        fprintf(stderr, "usage: hf_logits [-n N_LOGITS] [-t TOKEN,TOKEN,...] MODEL.gguf...\n");
        return 2;
    }
    peer_api G;
    char why[8192], dir[4096];
    void *ggml = NULL, *llama = NULL;
    int rc = peer_load(&G, why, sizeof why);
    if (rc == 0) rc = peer_llama_start(&G, dir, &ggml, &llama, why, sizeof why);
    if (rc > 0) { fprintf(stderr, "SKIP: %s\n", why); return 77; }
    if (rc < 0) { fprintf(stderr, "hf_logits: %s\n", why); return 1; }

    BIND(model_default_params, llama, "llama_model_default_params");
    BIND(context_default_params, llama, "llama_context_default_params");
    BIND(model_load, llama, "llama_model_load_from_file");
    BIND(init_from_model, llama, "llama_init_from_model");
    BIND(model_get_vocab, llama, "llama_model_get_vocab");
    BIND(vocab_n_tokens, llama, "llama_vocab_n_tokens");
    BIND(batch_get_one, llama, "llama_batch_get_one");
    BIND(decode, llama, "llama_decode");
    BIND(get_logits_ith, llama, "llama_get_logits_ith");
    BIND(ctx_free, llama, "llama_free");
    BIND(model_free, llama, "llama_model_free");
    if (!model_default_params || !context_default_params || !model_load || !init_from_model || !model_get_vocab ||
        !vocab_n_tokens || !batch_get_one || !decode || !get_logits_ith || !ctx_free || !model_free) {
        fprintf(stderr, "hf_logits: libllama in %s lacks a required symbol\n", dir);
        return 1;
    }
    int bad = 0;
    for (int i = first; i < argc; i++) bad |= run_one(argv[i], n_out, toks, n_tok);
    return bad;
}

static int run_one(const char *path, int n_out, int32_t *toks, int n_tok) {
    void *model = model_load(path, model_default_params());
    if (!model) {
        printf("model %s\nerror llama.cpp could not load it\n", path);
        peer_dump_log();
        return 1;
    }
    int32_t n_vocab = vocab_n_tokens(model_get_vocab(model));
    for (int i = 0; i < n_tok; i++)
        if (toks[i] < 0 || toks[i] >= n_vocab) {
            printf("model %s\nerror token %d out of the vocabulary (%d)\n", path, (int)toks[i], (int)n_vocab);
            model_free(model);
            return 1;
        }
    void *ctx = init_from_model(model, context_default_params());
    if (!ctx) {
        printf("model %s\nerror llama_init_from_model failed\n", path);
        peer_dump_log();
        model_free(model);
        return 1;
    }
    if (decode(ctx, batch_get_one(toks, n_tok)) != 0) {
        printf("model %s\nerror llama_decode failed\n", path);
        peer_dump_log();
        ctx_free(ctx);
        model_free(model);
        return 1;
    }
    const float *lg = get_logits_ith(ctx, -1);
    if (!lg) {
        printf("model %s\nerror no logits\n", path);
        ctx_free(ctx);
        model_free(model);
        return 1;
    }
    if (n_out > n_vocab) n_out = n_vocab;
    printf("model %s\nn_vocab %d\n", path, (int)n_vocab);
    for (int i = 0; i < n_out; i++) {
        uint32_t b;
        memcpy(&b, &lg[i], 4);
        printf("%d 0x%08x %.9g\n", i, (unsigned)b, (double)lg[i]);
    }
    fflush(stdout);
    ctx_free(ctx);
    model_free(model);
    return 0;
}
