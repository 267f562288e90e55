/* SPDX-License-Identifier: MIT */
/* make_sample_model.c — mio-make-sample: write a small llama-shaped GGUF (2 layers,
 * 256-wide, 32-token vocabulary, f32/f16 weights from a fixed-seed generator) with
 * libmodelio's writer. Rows are 256 or 512 wide, whole blocks of every type
 * (the k-quants' 256 included), so `--dtype q4_k` converts every matrix.
 * Same bytes on every run. Usage: mio-make-sample OUT.gguf */
#include <modelio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_EMBD 256
#define N_FF 512
#define N_HEAD 4
#define N_LAYER 2

/* U+2581 LOWER ONE EIGHTH BLOCK: SentencePiece's word-start marker */
#define SP "\xE2\x96\x81"

static const char *const tokens[] = {
    "<unk>", "<s>", "</s>", "<0x0A>", SP, SP "the", SP "a", SP "of",
    SP "and", SP "to", SP "in", SP "is", SP "model",
    SP "file", SP "hello", SP "world", "e", "t", "a", "o", "i", "n", "s", "r",
    "h", "l", ".", ",", "!", "?", SP "GGUF", SP "tensor",
};
#define N_VOCAB ((int)(sizeof tokens / sizeof tokens[0]))

/* splitmix64: a fixed-seed stream, so the sample is the same everywhere. */
static uint64_t rng_state = 0x6d696f2d73616d70ull; /* "mio-samp" */

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [-1, 1) */
static float rng_float(void)
{
    return (float)((double)(rng_next() >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}

#define MAX_TENSORS 32
static void *buffers[MAX_TENSORS];
static int n_buffers;

static int fail(const char *what)
{
    fprintf(stderr, "mio-make-sample: %s: %s\n", what, mio_last_error());
    return 1;
}

/* Add a tensor of ne0 x ne1 (ne1 = 0 for 1-D) filled with center + scale * noise. */
static mio_status add_tensor(mio_writer *w, const char *name, int type, int64_t ne0, int64_t ne1,
                             float center, float scale)
{
    int64_t ne[2] = { ne0, ne1 };
    uint32_t n_dims = ne1 ? 2u : 1u;
    size_t n = (size_t)ne0 * (size_t)(ne1 ? ne1 : 1);
    size_t esize = type == MIO_TYPE_F32 ? 4 : 2;
    unsigned char *buf = malloc(n * esize);
    if (!buf || n_buffers == MAX_TENSORS) {
        free(buf);
        return MIO_ERR_NOMEM;
    }
    buffers[n_buffers++] = buf;
    for (size_t k = 0; k < n; k++) {
        float v = center + scale * rng_float();
        if (type == MIO_TYPE_F32) {
            memcpy(buf + k * 4, &v, 4);
        } else {
            uint16_t h = mio_f32_to_fp16(v);
            memcpy(buf + k * 2, &h, 2);
        }
    }
    return mio_writer_add_tensor(w, name, type, n_dims, ne, buf, n * esize);
}

static mio_status set_metadata(mio_writer *w)
{
    mio_status st;
    float scores[N_VOCAB];
    int32_t types[N_VOCAB];
    for (int k = 0; k < N_VOCAB; k++) {
        scores[k] = k < 4 ? 0.0f : -(float)k;
        types[k] = k == 0 ? 2 : (k < 3 ? 3 : (k == 3 ? 6 : 1)); /* unknown, control, byte, normal */
    }
#define TRY(call) do { if ((st = (call)) != MIO_OK) return st; } while (0)
    TRY(mio_writer_set_str(w, "general.architecture", "llama", 5));
    TRY(mio_writer_set_str(w, "general.name", "libmodelio sample", 17));
    TRY(mio_writer_set_u32(w, "general.file_type", 1)); /* mostly f16 */
    TRY(mio_writer_set_u32(w, "llama.vocab_size", (uint32_t)N_VOCAB));
    TRY(mio_writer_set_u32(w, "llama.context_length", 256));
    TRY(mio_writer_set_u32(w, "llama.embedding_length", N_EMBD));
    TRY(mio_writer_set_u32(w, "llama.block_count", N_LAYER));
    TRY(mio_writer_set_u32(w, "llama.feed_forward_length", N_FF));
    TRY(mio_writer_set_u32(w, "llama.attention.head_count", N_HEAD));
    TRY(mio_writer_set_u32(w, "llama.attention.head_count_kv", N_HEAD));
    TRY(mio_writer_set_u32(w, "llama.rope.dimension_count", N_EMBD / N_HEAD));
    TRY(mio_writer_set_f32(w, "llama.rope.freq_base", 10000.0f));
    TRY(mio_writer_set_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f));
    TRY(mio_writer_set_str(w, "tokenizer.ggml.model", "llama", 5));
    TRY(mio_writer_set_arr_str(w, "tokenizer.ggml.tokens", tokens, NULL, (uint64_t)N_VOCAB));
    TRY(mio_writer_set_arr(w, "tokenizer.ggml.scores", MIO_GGUF_F32, scores, (uint64_t)N_VOCAB));
    TRY(mio_writer_set_arr(w, "tokenizer.ggml.token_type", MIO_GGUF_I32, types, (uint64_t)N_VOCAB));
    TRY(mio_writer_set_u32(w, "tokenizer.ggml.unknown_token_id", 0));
    TRY(mio_writer_set_u32(w, "tokenizer.ggml.bos_token_id", 1));
    TRY(mio_writer_set_u32(w, "tokenizer.ggml.eos_token_id", 2));
    TRY(mio_writer_set_bool(w, "tokenizer.ggml.add_bos_token", 1));
    TRY(mio_writer_set_u32(w, "general.quantization_version", 2));
    return MIO_OK;
}

static mio_status add_tensors(mio_writer *w)
{
    mio_status st;
    char name[64];
    TRY(add_tensor(w, "token_embd.weight", MIO_TYPE_F16, N_EMBD, N_VOCAB, 0.0f, 0.1f));
    for (int l = 0; l < N_LAYER; l++) {
#define BLK(suffix, type, ne0, ne1, c, s)                                   \
    do {                                                                    \
        snprintf(name, sizeof name, "blk.%d." suffix ".weight", l);         \
        TRY(add_tensor(w, name, type, ne0, ne1, c, s));                     \
    } while (0)
        BLK("attn_norm", MIO_TYPE_F32, N_EMBD, 0, 1.0f, 0.05f);
        BLK("attn_q", MIO_TYPE_F16, N_EMBD, N_EMBD, 0.0f, 0.125f);
        BLK("attn_k", MIO_TYPE_F16, N_EMBD, N_EMBD, 0.0f, 0.125f);
        BLK("attn_v", MIO_TYPE_F16, N_EMBD, N_EMBD, 0.0f, 0.125f);
        BLK("attn_output", MIO_TYPE_F16, N_EMBD, N_EMBD, 0.0f, 0.125f);
        BLK("ffn_norm", MIO_TYPE_F32, N_EMBD, 0, 1.0f, 0.05f);
        BLK("ffn_gate", MIO_TYPE_F16, N_EMBD, N_FF, 0.0f, 0.125f);
        BLK("ffn_up", MIO_TYPE_F16, N_EMBD, N_FF, 0.0f, 0.125f);
        BLK("ffn_down", MIO_TYPE_F16, N_FF, N_EMBD, 0.0f, 0.09f);
#undef BLK
    }
    TRY(add_tensor(w, "output_norm.weight", MIO_TYPE_F32, N_EMBD, 0, 1.0f, 0.05f));
    TRY(add_tensor(w, "output.weight", MIO_TYPE_F32, N_EMBD, N_VOCAB, 0.0f, 0.1f));
    return MIO_OK;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '\0' || (argv[1][0] == '-' && argv[1][1] != '\0')) {
        fprintf(stderr, "usage: mio-make-sample OUT.gguf\n"
                        "  write a small llama-shaped GGUF (2 layers, 256 wide, 32 tokens, f32/f16)\n");
        return 2;
    }
    mio_writer *w = NULL;
    int rc = 0;
    if (mio_writer_new(MIO_WRITER_DEFAULT, &w) != MIO_OK)
        return fail("writer");
    if (set_metadata(w) != MIO_OK)
        rc = fail("metadata");
    else if (add_tensors(w) != MIO_OK)
        rc = fail("tensors");
    else if (mio_writer_write_file(w, argv[1]) != MIO_OK)
        rc = fail(argv[1]);
    else
        printf("mio-make-sample: wrote %s (%lld keys, %lld tensors)\n", argv[1],
               (long long)mio_writer_kv_count(w), (long long)mio_writer_tensor_count(w));
    mio_writer_free(w);
    for (int k = 0; k < n_buffers; k++)
        free(buffers[k]);
    return rc;
}
