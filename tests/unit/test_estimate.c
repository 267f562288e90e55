/* SPDX-License-Identifier: MIT */
/* test_estimate.c — mio_estimate on small hand-made GGUFs, with numbers worked
 * out by hand from llama.cpp's rules (docs/ESTIMATE.md): KV = layers x cells x
 * (n_head_kv x head_dim) x bytes per element for K and again for V, cells
 * padded to 256; the weights are the mapped range of the tensor data; a
 * quantized V cache without flash attention is refused. The compute buffer is
 * checked against the peer in tests/interop/interop_estimate.c. */
#include "modelio_inspect.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64];

/* arch with n_layer layers, n_embd 512, 8 heads, n_head_kv heads of K/V;
 * two f32 tensors: [512, 10] (20480 bytes) then [7] (28 bytes, at 20480). */
static void write_model(const char *path, const char *arch, uint32_t n_layer, uint32_t n_head_kv, uint32_t n_swa) {
    mio_writer *w = NULL;
    char k[96];
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", arch, strlen(arch)));
#define KEY(s) (snprintf(k, sizeof k, "%s." s, arch), k)
    T_OK(mio_writer_set_u32(w, KEY("block_count"), n_layer));
    T_OK(mio_writer_set_u32(w, KEY("embedding_length"), 512));
    T_OK(mio_writer_set_u32(w, KEY("feed_forward_length"), 1024));
    T_OK(mio_writer_set_u32(w, KEY("context_length"), 8192));
    T_OK(mio_writer_set_u32(w, KEY("attention.head_count"), 8));
    T_OK(mio_writer_set_u32(w, KEY("attention.head_count_kv"), n_head_kv));
    T_OK(mio_writer_set_u32(w, KEY("vocab_size"), 1000));
    if (n_swa) T_OK(mio_writer_set_u32(w, KEY("attention.sliding_window"), n_swa));
#undef KEY
    static float a[5120], b[7];
    int64_t ne_a[2] = {512, 10}, ne_b[1] = {7};
    T_OK(mio_writer_add_tensor(w, "token_embd.weight", MIO_TYPE_F32, 2, ne_a, a, sizeof a));
    T_OK(mio_writer_add_tensor(w, "output_norm.weight", MIO_TYPE_F32, 1, ne_b, b, sizeof b));
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/mio-test-estimate-XXXXXX");
    if (!mkdtemp(g_dir)) T_SKIP("cannot create a temporary directory");
    char llama[128], gemma[128];
    snprintf(llama, sizeof llama, "%s/llama.gguf", g_dir);
    snprintf(gemma, sizeof gemma, "%s/gemma3.gguf", g_dir);
    write_model(llama, "llama", 4, 2, 0);
    write_model(gemma, "gemma3", 6, 1, 1024);

    /* defaults: llama_context_default_params() */
    mio_estimate_params p;
    mio_estimate_default_params(&p);
    T_EQ_U64(p.size, sizeof p);
    T_EQ_INT(p.n_ctx, 512);
    T_EQ_INT(p.n_batch, 2048);
    T_EQ_INT(p.n_ubatch, 512);
    T_EQ_INT(p.n_seq_max, 1);
    T_EQ_INT(p.type_k, MIO_TYPE_F16);
    T_EQ_INT(p.type_v, MIO_TYPE_F16);
    T_EQ_INT(p.flash_attn, MIO_FLASH_ATTN_AUTO);
    T_EQ_INT(p.swa_full, 1);

    /* llama, ctx 1024, f16: head_dim 512/8 = 64, 2 KV heads = 128 values a cell;
     * K = 4 layers x 1024 cells x 128 x 2 bytes = 1048576, V the same */
    mio_estimate_result r;
    p.n_ctx = 1024;
    T_OK(mio_estimate(llama, &p, &r));
    T_EQ_U64(r.k_bytes, 4ull * 1024 * 128 * 2);
    T_EQ_U64(r.v_bytes, 4ull * 1024 * 128 * 2);
    T_EQ_U64(r.kv_cache_bytes, 2097152);
    T_EQ_U64(r.weights_bytes, 20480 + 28); /* second tensor at 20480 (32-aligned), 28 bytes */
    T_EQ_U64(r.output_bytes, 1000 * 4);   /* logits of one output */
    T_EQ_INT(r.n_ctx, 1024);
    T_EQ_INT(r.n_ubatch, 512);
    T_EQ_INT(r.n_batch, 1024); /* n_batch = min(n_ctx, 2048) */
    T_EQ_INT(r.n_layer, 4);
    T_EQ_INT(r.n_layer_swa, 0);
    T_EQ_INT(r.flash_attn, MIO_FLASH_ATTN_ON); /* auto is on with the CPU back end */
    T_EQ_U64(r.total_bytes, r.weights_bytes + r.kv_cache_bytes + r.compute_bytes + r.output_bytes);
    T_CHECK(r.compute_bytes > 0);
    T_EQ_STR(r.arch, "llama");

    /* q8_0 K: a row of 128 is 4 blocks of 34 bytes */
    p.type_k = MIO_TYPE_Q8_0;
    T_OK(mio_estimate(llama, &p, &r));
    T_EQ_U64(r.k_bytes, 4ull * 1024 * 136);
    T_EQ_U64(r.v_bytes, 4ull * 1024 * 256);

    /* the context is padded to 256 cells: 1000 -> 1024 */
    p.type_k = MIO_TYPE_F16;
    p.n_ctx = 1000;
    T_OK(mio_estimate(llama, &p, &r));
    T_EQ_INT(r.n_ctx, 1024);
    T_EQ_INT(r.n_batch, 1000);
    T_EQ_U64(r.kv_cache_bytes, 2097152);

    /* 3 sequences over 2048: 2048 / 3 = 682 -> 768 cells a stream */
    p.n_ctx = 2048;
    p.n_seq_max = 3;
    T_OK(mio_estimate(llama, &p, &r));
    T_EQ_INT(r.n_ctx_seq, 768);
    T_EQ_INT(r.n_ctx, 2304);
    T_EQ_U64(r.kv_cache_bytes, 2ull * 4 * 768 * 3 * 128 * 2);
    T_EQ_U64(r.output_bytes, 3 * 1000 * 4);
    p.n_seq_max = 1;

    /* a quantized V cache needs flash attention */
    p.type_v = MIO_TYPE_Q8_0;
    p.flash_attn = MIO_FLASH_ATTN_OFF;
    memset(&r, 0x5a, sizeof r);
    T_STATUS(mio_estimate(llama, &p, &r), MIO_ERR_UNSUPPORTED);
    T_MSG_HAS("quantized V cache (q8_0) requires flash attention");
    T_EQ_U64(r.weights_bytes, 0x5a5a5a5a5a5a5a5aull); /* untouched on failure */
    p.flash_attn = MIO_FLASH_ATTN_AUTO;
    p.n_ctx = 1024;
    T_OK(mio_estimate(llama, &p, &r));
    T_EQ_U64(r.v_bytes, 4ull * 1024 * 136);
    p.type_v = MIO_TYPE_Q4_K; /* not a cache type llama.cpp offers */
    T_STATUS(mio_estimate(llama, &p, &r), MIO_ERR_UNSUPPORTED_TYPE);
    p.type_v = MIO_TYPE_F16;

    /* gemma3: layers 0-4 slide (pattern 6), layer 5 is full; one KV head of 64 */
    p.n_ctx = 8192;
    T_OK(mio_estimate(gemma, &p, &r));
    T_EQ_INT(r.n_layer_swa, 5);
    T_EQ_INT(r.n_swa, 1024);
    T_EQ_INT(r.kv_size_swa, 8192); /* swa_full (the default): full size */
    T_EQ_U64(r.kv_cache_bytes, 6ull * 8192 * 64 * 2 * 2);
    p.swa_full = 0; /* window + ubatch: 1024 + 512 = 1536 cells (a multiple of 256) */
    T_OK(mio_estimate(gemma, &p, &r));
    T_EQ_INT(r.kv_size_swa, 1536);
    T_EQ_U64(r.kv_cache_bytes, (5ull * 1536 + 8192) * 64 * 2 * 2);

    /* NULL params: the defaults (ctx 512) */
    T_OK(mio_estimate(llama, NULL, &r));
    T_EQ_INT(r.n_ctx, 512);
    T_EQ_U64(r.kv_cache_bytes, 2ull * 4 * 512 * 128 * 2);
    /* a smaller (older) result struct gets its prefix */
    mio_estimate_result small;
    memset(&small, 0x5a, sizeof small);
    T_OK(mio_estimate_sized(llama, NULL, &small, offsetof(mio_estimate_result, k_bytes)));
    T_EQ_U64(small.kv_cache_bytes, 2ull * 4 * 512 * 128 * 2);
    T_EQ_U64(small.k_bytes, 0x5a5a5a5a5a5a5a5aull);

    unlink(llama);
    unlink(gemma);
    rmdir(g_dir);
    T_DONE();
}
