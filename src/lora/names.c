/* SPDX-License-Identifier: MIT */
/* names.c — Hugging Face module names and Fucina adapter names to GGUF tensor
 * names (the llama-architecture subset of gguf-py's tensor_mapping.py that LoRA
 * adapters target), and the q/k row permutation of llama.cpp's HF -> GGUF
 * converter (LlamaModel.permute), which PEFT's B matrices need too. */
#include "lora_internal.h"

#include "hf/hf_arch.h"

#include <stdio.h>
#include <string.h>

const char *const mio_lora_peft_names_help =
    "model.embed_tokens, lm_head, model.layers.N.self_attn.{q,k,v,o}_proj, model.layers.N.mlp.{gate,up,down}_proj";
const char *const mio_lora_fucina_names_help = "layers.N.{q,k,v,o,gate,up,down}";

/* "N." at *s: a decimal block number without a sign or leading zeros. */
static int parse_layer(const char **s, int64_t *layer) {
    const char *p = *s;
    int64_t v = 0;
    int nd = 0;
    while (*p >= '0' && *p <= '9') {
        if (nd == 9) return 0;
        v = v * 10 + (*p - '0');
        p++, nd++;
    }
    if (nd == 0 || (nd > 1 && **s == '0') || *p != '.') return 0;
    *layer = v;
    *s = p + 1;
    return 1;
}

static const struct { const char *hf, *gguf; } k_peft_block[] = {
    {"self_attn.q_proj", "attn_q"},  {"self_attn.k_proj", "attn_k"}, {"self_attn.v_proj", "attn_v"},
    {"self_attn.o_proj", "attn_output"}, {"mlp.gate_proj", "ffn_gate"}, {"mlp.up_proj", "ffn_up"},
    {"mlp.down_proj", "ffn_down"},
};
static const struct { const char *fucina, *gguf; } k_fucina_block[] = {
    {"q", "attn_q"}, {"k", "attn_k"}, {"v", "attn_v"}, {"o", "attn_output"},
    {"gate", "ffn_gate"}, {"up", "ffn_up"}, {"down", "ffn_down"},
};

int mio_lora_name_peft(const char *module, char out[64], int64_t *layer) {
    *layer = -1;
    if (strcmp(module, "model.embed_tokens") == 0) { snprintf(out, 64, "token_embd.weight"); return 1; }
    if (strcmp(module, "lm_head") == 0) { snprintf(out, 64, "output.weight"); return 1; }
    const char *s = module;
    if (strncmp(s, "model.layers.", 13) != 0) return 0;
    s += 13;
    if (!parse_layer(&s, layer)) return 0;
    for (size_t i = 0; i < sizeof k_peft_block / sizeof k_peft_block[0]; i++)
        if (strcmp(s, k_peft_block[i].hf) == 0) {
            snprintf(out, 64, "blk.%lld.%s.weight", (long long)*layer, k_peft_block[i].gguf);
            return 1;
        }
    return 0;
}

int mio_lora_name_fucina(const char *module, char out[64], int64_t *layer) {
    *layer = -1;
    const char *s = module;
    if (strncmp(s, "layers.", 7) != 0) return 0;
    s += 7;
    if (!parse_layer(&s, layer)) return 0;
    for (size_t i = 0; i < sizeof k_fucina_block / sizeof k_fucina_block[0]; i++)
        if (strcmp(s, k_fucina_block[i].fucina) == 0) {
            snprintf(out, 64, "blk.%lld.%s.weight", (long long)*layer, k_fucina_block[i].gguf);
            return 1;
        }
    return 0;
}

/* convert_hf_to_gguf.py: LlamaModel (general.architecture "llama") permutes
 * q_proj/k_proj, and so do the subclasses that keep undo_permute = True
 * (Granite, GraniteMoe) and the classes that call the same permute themselves
 * (Deci, DeepSeek v1, BailingMoe). Llama 4, Apertus and Mistral-format models
 * set undo_permute = False (Mistral-format ones are labelled "llama", but a PEFT
 * adapter with HF names belongs to an HF-converted model). */
int mio_lora_arch_permutes_qk(const char *arch, size_t len) {
    static const char *const k[] = {"llama", "granite", "granitemoe", "deci", "deepseek", "bailingmoe"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strlen(k[i]) == len && memcmp(k[i], arch, len) == 0) return 1;
    return 0;
}

void mio_lora_permute_rows(const float *src, float *dst, int64_t rows, int64_t width, int64_t n_head) {
    /* the converter's own row order (src/hf/arch.c), so both permute alike */
    for (int64_t r = 0; r < rows; r++)
        memcpy(dst + r * width, src + (int64_t)mio_hf_permute_src_row((uint64_t)r, (uint64_t)rows, (uint64_t)n_head) * width,
               (size_t)width * sizeof(float));
}
