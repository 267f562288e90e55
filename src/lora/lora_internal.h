/* SPDX-License-Identifier: MIT */
/* lora_internal.h — the LoRA module's shared state: an adapter set read from a
 * PEFT or Fucina safetensors file, checked against a base GGUF and held in f32
 * (the base itself is streamed by merge.c / written against by lora_gguf.c). */
#ifndef MIO_LORA_INTERNAL_H
#define MIO_LORA_INTERNAL_H

#include "modelio.h"

#include <stdint.h>

enum { LORA_PEFT = 1, LORA_FUCINA = 2 };

/* One module: the delta of base tensor `tensor` (rows x cols, GGUF row-major:
 * rows = ne[1], cols = ne[0]) is scale * b * a with a [rank][cols] and
 * b [rows][rank]. For PEFT token embeddings a = lora_embedding_B^T and
 * b = lora_embedding_A^T, so the same product gives the [vocab][embd] delta.
 * b already carries the q/k row permutation when `permuted`; the scale is not
 * folded in. */
typedef struct lora_mod {
    char *name;            /* adapter module name (PEFT: without "base_model.model.") */
    char tensor[64];       /* base tensor name */
    int64_t base_index;
    int64_t rank, rows, cols;
    int embedding, permuted;
    double alpha, scale;
    int64_t ia, ib;        /* indices of A and B in the safetensors file (-1: missing) */
    float *a, *b;
} lora_mod;

typedef struct lora_set {
    int kind;              /* LORA_PEFT or LORA_FUCINA */
    lora_mod *m;           /* sorted by base_index once loaded */
    size_t n, cap;
} lora_set;

/* Read p->adapters, pair, map, check against base and convert to f32.
 * float_base: every targeted base tensor must be f32/f16/bf16 (merging). */
mio_status mio_lora_load(const mio_gguf_file *base, const mio_lora_params *p, int float_base, lora_set *out);
void mio_lora_set_free(lora_set *s);
/* Copy *in (any size field the caller's library version knew) into *out. */
mio_status mio_lora_params_copy(const mio_lora_params *in, mio_lora_params *out);
/* Open the base as mio_quantize does (split parts followed). */
mio_status mio_lora_open_base(const char *path, mio_gguf_file **out);
/* Report the modules to p->plan (b_factor 1, gguf_alpha 0 unless given). */
void mio_lora_report(const lora_set *s, const mio_lora_params *p, const double *b_factor, float gguf_alpha);

/* names.c */
/* GGUF tensor name for a PEFT module ("model.layers.3.self_attn.q_proj" ->
 * "blk.3.attn_q.weight", "lm_head" -> "output.weight", "model.embed_tokens" ->
 * "token_embd.weight") or a Fucina one ("layers.3.q"); false if none. *layer
 * gets the block number (-1 for none). */
int mio_lora_name_peft(const char *module, char out[64], int64_t *layer);
int mio_lora_name_fucina(const char *module, char out[64], int64_t *layer);
/* The known names, for messages. */
extern const char *const mio_lora_peft_names_help;
extern const char *const mio_lora_fucina_names_help;
/* 1 if llama.cpp's converter permutes q/k rows for this general.architecture. */
int mio_lora_arch_permutes_qk(const char *arch, size_t len);
/* Rows of a permuted q/k weight: new row `h*hd + 2*j + t` holds old row
 * `h*hd + t*hd/2 + j` (hd = rows / n_head). Writes the permuted rows of src
 * ([rows][width]) into dst. rows % (2*n_head) must be 0. */
void mio_lora_permute_rows(const float *src, float *dst, int64_t rows, int64_t width, int64_t n_head);

#endif
