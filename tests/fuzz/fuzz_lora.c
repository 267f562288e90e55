/* SPDX-License-Identifier: MIT */
/* fuzz_lora.c — libFuzzer target: LoRA adapters. The input is an adapter
 * directory: adapter_config.json (the bytes before the first NUL) and
 * adapter_model.safetensors (the bytes after it; with no NUL, the whole input
 * is a Fucina adapters.safetensors, merged with --alpha 8). It is merged into a
 * tiny llama base (2 layers, n_embd 64, n_ff 128, 4 heads, 2 kv heads, vocab 64,
 * f32, made once) with mio_lora_merge_fd to /dev/null, and exported with
 * mio_lora_to_gguf_fd: either works or refuses cleanly. Seeds: real PEFT
 * saves (tests/data/lora) in this layout, tests/fuzz/seeds/lora. */
#include <modelio.h>

#include "fuzz_tmp.h"

#include <fcntl.h>
#include <stdint.h>

static char g_base[160];

static void make_base(void) {
    if (g_base[0]) return;
    static float zero[128 * 64];
    mio_writer *w;
    if (mio_writer_new(0, &w) != MIO_OK) abort();
    mio_writer_set_str(w, "general.architecture", "llama", 5);
    mio_writer_set_u32(w, "llama.attention.head_count", 4);
    mio_writer_set_u32(w, "llama.attention.head_count_kv", 2);
    mio_writer_set_u32(w, "llama.embedding_length", 64);
    mio_writer_set_u32(w, "llama.block_count", 2);
    int64_t emb[2] = {64, 64};
    if (mio_writer_add_tensor(w, "token_embd.weight", MIO_TYPE_F32, 2, emb, zero, sizeof(float) * 64 * 64)) abort();
    static const char *mods[7] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
    static const int64_t in[7] = {64, 64, 64, 64, 64, 64, 128}, out[7] = {64, 32, 32, 64, 128, 128, 64};
    for (int l = 0; l < 2; l++)
        for (int m = 0; m < 7; m++) {
            char name[64];
            snprintf(name, sizeof name, "blk.%d.%s.weight", l, mods[m]);
            int64_t ne[2] = {in[m], out[m]};
            if (mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne, zero, sizeof(float) * (size_t)(in[m] * out[m])))
                abort();
        }
    if (mio_writer_add_tensor(w, "output.weight", MIO_TYPE_F32, 2, emb, zero, sizeof(float) * 64 * 64)) abort();
    if (mio_writer_write_file(w, fz_path("base.gguf", g_base, sizeof g_base)) != MIO_OK) abort();
    mio_writer_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    make_base();
    const uint8_t *nul = memchr(data, 0, size);
    char cfg[160], st[160], dir[160];
    mio_lora_params p;
    mio_lora_default_params(&p);
    if (nul) {
        fz_write("adapter_config.json", data, (size_t)(nul - data), cfg, sizeof cfg);
        fz_write("adapter_model.safetensors", nul + 1, size - (size_t)(nul - data) - 1, st, sizeof st);
        snprintf(dir, sizeof dir, "%s", fz_dir());
        p.adapters = dir;
    } else {
        p.adapters = fz_write("fucina.safetensors", data, size, st, sizeof st);
        p.alpha_set = 1;
        p.alpha = 8;
    }
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0) abort();
    (void)mio_lora_merge_fd(g_base, fd, &p);
    (void)mio_lora_to_gguf_fd(g_base, fd, &p);
    close(fd);
    if (nul) {
        unlink(cfg);
        unlink(st);
    }
    return 0;
}
