/* SPDX-License-Identifier: MIT */
/* arch.c — the architecture table of the Hugging Face converter: which
 * config.json "architectures" name becomes which GGUF architecture, which
 * tensors it has (Hugging Face name -> GGUF name, the shape config.json
 * implies, required or optional), and the hyperparameter keys it writes, in
 * the order convert_hf_to_gguf.py writes them (TextModel.set_gguf_parameters,
 * then the class's own additions). An architecture is a table entry; the
 * driver (convert.c) never names one. */
#include "hf/hf_arch.h"

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Shapes are written outermost first (safetensors order): {rows, cols}. */
enum { D_HIDDEN = 1, D_VOCAB, D_FF, D_Q, D_KV, D_HEAD, D_QKV, D_FF2, D_POS, D_TYPES, D_NEXP, D_FF_EXP, D_FF_SHEXP, D_ONE,
       D_Q_LORA, D_KV_LORA, D_QK_NOPE, D_QK_HEAD, D_KV_A, D_KV_B, D_Q_B, D_V_HEAD, D_O_IN, D_NHEAD, D_HID_32, D_FF_32, D_16 };

/* Rows the block tables share (a block's Hugging Face name -> its GGUF name,
 * as gguf-py's tensor_mapping.py maps them), composed into each table. */
#define R_INPUT_NORM {.hf = "input_layernorm.weight", .gguf = "attn_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}}
#define R_FFN_NORM {.hf = "post_attention_layernorm.weight", .gguf = "ffn_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}}
#define R_ATTN_VO                                                                                                      \
    {.hf = "self_attn.v_proj.weight", .gguf = "attn_v.weight", .n_dims = 2, .dim = {D_KV, D_HIDDEN}},                 \
    {.hf = "self_attn.o_proj.weight", .gguf = "attn_output.weight", .n_dims = 2, .dim = {D_HIDDEN, D_Q}}
#define R_ATTN_QKVO                                                                                                    \
    {.hf = "self_attn.q_proj.weight", .gguf = "attn_q.weight", .n_dims = 2, .dim = {D_Q, D_HIDDEN}},                  \
    {.hf = "self_attn.k_proj.weight", .gguf = "attn_k.weight", .n_dims = 2, .dim = {D_KV, D_HIDDEN}}, R_ATTN_VO
/* q/k/v/o biases, optional (gguf-py maps them whether or not a class has them) */
#define R_ATTN_BIAS_VO                                                                                                 \
    {.hf = "self_attn.v_proj.bias", .gguf = "attn_v.bias", .n_dims = 1, .dim = {D_KV}, .optional = true},             \
    {.hf = "self_attn.o_proj.bias", .gguf = "attn_output.bias", .n_dims = 1, .dim = {D_HIDDEN}, .optional = true}
#define R_ATTN_BIAS                                                                                                    \
    {.hf = "self_attn.q_proj.bias", .gguf = "attn_q.bias", .n_dims = 1, .dim = {D_Q}, .optional = true},              \
    {.hf = "self_attn.k_proj.bias", .gguf = "attn_k.bias", .n_dims = 1, .dim = {D_KV}, .optional = true}, R_ATTN_BIAS_VO
/* per-head RMS norms of q and k */
#define R_QK_NORM_HEAD                                                                                                 \
    {.hf = "self_attn.q_norm.weight", .gguf = "attn_q_norm.weight", .n_dims = 1, .dim = {D_HEAD}},                    \
    {.hf = "self_attn.k_norm.weight", .gguf = "attn_k_norm.weight", .n_dims = 1, .dim = {D_HEAD}}
#define R_POST_FFW_NORM                                                                                                \
    {.hf = "post_feedforward_layernorm.weight", .gguf = "post_ffw_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}}
#define R_POST_ATTN_NORM                                                                                               \
    {.hf = "post_attention_layernorm.weight", .gguf = "post_attention_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}}
#define R_MLP_DOWN {.hf = "mlp.down_proj.weight", .gguf = "ffn_down.weight", .n_dims = 2, .dim = {D_HIDDEN, D_FF}}
#define R_MLP_GATED                                                                                                    \
    {.hf = "mlp.gate_proj.weight", .gguf = "ffn_gate.weight", .n_dims = 2, .dim = {D_FF, D_HIDDEN}},                  \
    {.hf = "mlp.up_proj.weight", .gguf = "ffn_up.weight", .n_dims = 2, .dim = {D_FF, D_HIDDEN}}, R_MLP_DOWN

/* the dense MLP of a model whose other blocks are mixtures of experts */
#define R_MLP_GATED_DENSE                                                                                              \
    {.hf = "mlp.gate_proj.weight", .gguf = "ffn_gate.weight", .n_dims = 2, .dim = {D_FF, D_HIDDEN},                   \
     .layers = HF_LAYERS_DENSE},                                                                                       \
    {.hf = "mlp.up_proj.weight", .gguf = "ffn_up.weight", .n_dims = 2, .dim = {D_FF, D_HIDDEN},                       \
     .layers = HF_LAYERS_DENSE},                                                                                       \
    {.hf = "mlp.down_proj.weight", .gguf = "ffn_down.weight", .n_dims = 2, .dim = {D_HIDDEN, D_FF},                   \
     .layers = HF_LAYERS_DENSE}
/* the router (FFN_GATE_INP: F32 in the reference's list) */
#define R_ROUTER(name)                                                                                                 \
    {.hf = (name), .gguf = "ffn_gate_inp.weight", .n_dims = 2, .dim = {D_NEXP, D_HIDDEN}, .f32 = true,                \
     .layers = HF_LAYERS_MOE}
/* one expert's matrix, stacked into <gguf> */
#define R_EXPERT(prefix, name, out, d0, d1)                                                                            \
    {.hf = (name), .gguf = (out), .n_dims = 2, .dim = {(d0), (d1)}, .experts = (prefix), .layers = HF_LAYERS_MOE}
/* the shared expert(s) every token runs through: gate, up, down under prefix (a string literal) */
#define R_SHARED_EXPERT(prefix)                                                                                        \
    {.hf = prefix "gate_proj.weight", .gguf = "ffn_gate_shexp.weight", .n_dims = 2, .dim = {D_FF_SHEXP, D_HIDDEN},    \
     .layers = HF_LAYERS_MOE},                                                                                         \
    {.hf = prefix "up_proj.weight", .gguf = "ffn_up_shexp.weight", .n_dims = 2, .dim = {D_FF_SHEXP, D_HIDDEN},        \
     .layers = HF_LAYERS_MOE},                                                                                         \
    {.hf = prefix "down_proj.weight", .gguf = "ffn_down_shexp.weight", .n_dims = 2, .dim = {D_HIDDEN, D_FF_SHEXP},    \
     .layers = HF_LAYERS_MOE}
/* Qwen2MoeModel's stacks, in the order it writes them (down, gate, up) */
#define R_QWEN_EXPERTS                                                                                                 \
    R_EXPERT("mlp.experts.", "down_proj.weight", "ffn_down_exps.weight", D_HIDDEN, D_FF_EXP),                          \
    R_EXPERT("mlp.experts.", "gate_proj.weight", "ffn_gate_exps.weight", D_FF_EXP, D_HIDDEN),                          \
    R_EXPERT("mlp.experts.", "up_proj.weight", "ffn_up_exps.weight", D_FF_EXP, D_HIDDEN)

/* The llama family (LlamaModel): q and k rows (and their biases) permuted
 * into llama.cpp's rotary layout. */
static const hf_tensor_rule k_llama_block[] = {
    R_INPUT_NORM,
    {.hf = "self_attn.q_proj.weight", .gguf = "attn_q.weight", .n_dims = 2, .dim = {D_Q, D_HIDDEN}, .permute = HF_PERMUTE_Q},
    {.hf = "self_attn.k_proj.weight", .gguf = "attn_k.weight", .n_dims = 2, .dim = {D_KV, D_HIDDEN}, .permute = HF_PERMUTE_K},
    R_ATTN_VO,
    {.hf = "self_attn.q_proj.bias", .gguf = "attn_q.bias", .n_dims = 1, .dim = {D_Q}, .permute = HF_PERMUTE_Q, .optional = true},
    {.hf = "self_attn.k_proj.bias", .gguf = "attn_k.bias", .n_dims = 1, .dim = {D_KV}, .permute = HF_PERMUTE_K, .optional = true},
    R_ATTN_BIAS_VO,
    R_FFN_NORM,
    R_MLP_GATED,
};

/* Mixtral (LlamaModel): the llama attention, a router and eight (num_local_experts) experts of
 * w1 (gate), w2 (down), w3 (up), stacked in that order */
static const hf_tensor_rule k_mixtral_block[] = {
    R_INPUT_NORM,
    {.hf = "self_attn.q_proj.weight", .gguf = "attn_q.weight", .n_dims = 2, .dim = {D_Q, D_HIDDEN}, .permute = HF_PERMUTE_Q},
    {.hf = "self_attn.k_proj.weight", .gguf = "attn_k.weight", .n_dims = 2, .dim = {D_KV, D_HIDDEN}, .permute = HF_PERMUTE_K},
    R_ATTN_VO,
    R_FFN_NORM,
    R_ROUTER("block_sparse_moe.gate.weight"),
    R_EXPERT("block_sparse_moe.experts.", "w1.weight", "ffn_gate_exps.weight", D_FF_EXP, D_HIDDEN),
    R_EXPERT("block_sparse_moe.experts.", "w2.weight", "ffn_down_exps.weight", D_HIDDEN, D_FF_EXP),
    R_EXPERT("block_sparse_moe.experts.", "w3.weight", "ffn_up_exps.weight", D_FF_EXP, D_HIDDEN),
};

/* Qwen2: the same names without the q/k permutation (Qwen2Model keeps HF's
 * rotary layout); q/k/v biases are part of every Qwen2 checkpoint. */
static const hf_tensor_rule k_qwen2_block[] = {R_INPUT_NORM, R_ATTN_QKVO, R_ATTN_BIAS, R_FFN_NORM, R_MLP_GATED};

/* Qwen3: Qwen2's tensors plus per-head RMS norms of q and k. */
static const hf_tensor_rule k_qwen3_block[] = {R_INPUT_NORM, R_ATTN_QKVO, R_ATTN_BIAS, R_QK_NORM_HEAD, R_FFN_NORM,
                                               R_MLP_GATED};

/* Qwen2-MoE (Qwen2MoeModel): Qwen2's attention; a router, the experts and
 * a shared expert with its own sigmoid gate. Every block is one of experts:
 * the dense blocks transformers allows (mlp_only_layers, decoder_sparse_step)
 * are not in gguf-py's qwen2moe / qwen3moe tensor lists (the reference fails
 * on them) nor in llama.cpp's graphs, so their tensors are refused by name. */
static const hf_tensor_rule k_qwen2moe_block[] = {
    R_INPUT_NORM,
    R_ATTN_QKVO,
    R_ATTN_BIAS,
    R_FFN_NORM,
    R_ROUTER("mlp.gate.weight"),
    R_QWEN_EXPERTS,
    R_SHARED_EXPERT("mlp.shared_expert."),
    {.hf = "mlp.shared_expert_gate.weight", .gguf = "ffn_gate_inp_shexp.weight", .n_dims = 2, .dim = {D_ONE, D_HIDDEN},
     .f32 = true, .layers = HF_LAYERS_MOE},
};

/* Qwen3-MoE (Qwen3MoeModel(Qwen2MoeModel)): Qwen3's attention, experts without a shared one */
static const hf_tensor_rule k_qwen3moe_block[] = {R_INPUT_NORM,   R_ATTN_QKVO,
                                                  R_ATTN_BIAS,    R_QK_NORM_HEAD,
                                                  R_FFN_NORM,     R_ROUTER("mlp.gate.weight"),
                                                  R_QWEN_EXPERTS};

/* Qwen2MoeModel.set_gguf_parameters after TextModel's */
static const hf_key_rule k_qwen2moe_keys[] = {
    {.gguf = "expert_feed_forward_length", .hf = {"moe_intermediate_size"}, .type = HF_KEY_U32, .when = HF_WHEN_NOT_NULL},
    {.gguf = "expert_shared_feed_forward_length", .hf = {"shared_expert_intermediate_size"}, .type = HF_KEY_U32,
     .when = HF_WHEN_NOT_NULL},
};

/* gpt-oss (GptOssModel, a TextModel): biased attention with a sink per head,
 * a post-attention norm, a biased router, and the experts as transformers
 * saves them: gate and up fused and interleaved [E, hidden, 2 x ff] (-> gate
 * the even columns, up the odd, each transposed to [E, ff, hidden]), down
 * [E, ff, hidden] (transposed), their biases split the same way. */
static const hf_tensor_rule k_gptoss_block[] = {
    R_INPUT_NORM,
    R_ATTN_QKVO,
    R_ATTN_BIAS,
    {.hf = "self_attn.sinks", .gguf = "attn_sinks.weight", .n_dims = 1, .dim = {D_NHEAD}},
    R_POST_ATTN_NORM,
    R_ROUTER("mlp.router.weight"),
    {.hf = "mlp.router.bias", .gguf = "ffn_gate_inp.bias", .n_dims = 1, .dim = {D_NEXP}, .layers = HF_LAYERS_MOE},
    {.hf = "mlp.experts.down_proj", .gguf = "ffn_down_exps.weight", .n_dims = 3, .dim = {D_NEXP, D_FF, D_HIDDEN},
     .layers = HF_LAYERS_MOE, .gather = true, .g_transpose = true, .optional = true, .either = 1},
    {.hf = "mlp.experts.down_proj_bias", .gguf = "ffn_down_exps.bias", .n_dims = 2, .dim = {D_NEXP, D_HIDDEN},
     .layers = HF_LAYERS_MOE},
    {.hf = "mlp.experts.gate_up_proj", .gguf = "ffn_gate_exps.weight", .n_dims = 3, .dim = {D_NEXP, D_HIDDEN, D_FF2},
     .layers = HF_LAYERS_MOE, .gather = true, .g_transpose = true, .g_stride = 2, .g_offset = 0, .optional = true,
     .either = 2},
    {.hf = "mlp.experts.gate_up_proj", .gguf = "ffn_up_exps.weight", .n_dims = 3, .dim = {D_NEXP, D_HIDDEN, D_FF2},
     .layers = HF_LAYERS_MOE, .gather = true, .g_transpose = true, .g_stride = 2, .g_offset = 1, .optional = true,
     .either = 2},
    {.hf = "mlp.experts.gate_up_proj_bias", .gguf = "ffn_gate_exps.bias", .n_dims = 2, .dim = {D_NEXP, D_FF2},
     .layers = HF_LAYERS_MOE, .gather = true, .g_stride = 2, .g_offset = 0},
    {.hf = "mlp.experts.gate_up_proj_bias", .gguf = "ffn_up_exps.bias", .n_dims = 2, .dim = {D_NEXP, D_FF2},
     .layers = HF_LAYERS_MOE, .gather = true, .g_stride = 2, .g_offset = 1},
    /* the MXFP4 form (openai/gpt-oss-20b, -120b as published) */
    {.hf = "mlp.experts.down_proj_blocks", .gguf = "ffn_down_exps.weight", .n_dims = 4,
     .dim = {D_NEXP, D_HIDDEN, D_FF_32, D_16}, .layers = HF_LAYERS_MOE, .mxfp4 = HF_MXFP4_BLOCKS, .optional = true,
     .either = 1},
    {.hf = "mlp.experts.down_proj_scales", .gguf = "ffn_down_exps.weight", .n_dims = 3, .dim = {D_NEXP, D_HIDDEN, D_FF_32},
     .layers = HF_LAYERS_MOE, .mxfp4 = HF_MXFP4_SCALES, .optional = true},
    {.hf = "mlp.experts.gate_up_proj_blocks", .gguf = "ffn_gate_exps.weight", .n_dims = 4,
     .dim = {D_NEXP, D_FF2, D_HID_32, D_16}, .layers = HF_LAYERS_MOE, .mxfp4 = HF_MXFP4_BLOCKS, .optional = true,
     .either = 2},
    {.hf = "mlp.experts.gate_up_proj_scales", .gguf = "ffn_gate_exps.weight", .n_dims = 3,
     .dim = {D_NEXP, D_FF2, D_HID_32}, .layers = HF_LAYERS_MOE, .mxfp4 = HF_MXFP4_SCALES, .g_stride = 2, .g_offset = 0,
     .optional = true},
    {.hf = "mlp.experts.gate_up_proj_scales", .gguf = "ffn_up_exps.weight", .n_dims = 3,
     .dim = {D_NEXP, D_FF2, D_HID_32}, .layers = HF_LAYERS_MOE, .mxfp4 = HF_MXFP4_SCALES, .g_stride = 2, .g_offset = 1,
     .optional = true},
};

/* GptOssModel.set_gguf_parameters after TextModel's */
static const hf_key_rule k_gptoss_keys[] = {
    {.gguf = "attention.sliding_window", .hf = {"sliding_window"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "expert_feed_forward_length", .hf = {"intermediate_size"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
};

/* DeepSeek-V3 (DeepseekV2Model, a TextModel): multi-head latent attention
 * (q through a LoRA of rank q_lora_rank, or q_proj without one; kv_b_proj split
 * per head into k_b, transposed, and v_b, as the reference does for llama.cpp's
 * absorbed MLA), the first first_k_dense_replace blocks dense, the others a
 * router with its score correction bias, routed experts and shared ones. */
static const hf_tensor_rule k_deepseek3_block[] = {
    R_INPUT_NORM,
    R_FFN_NORM,
    {.hf = "self_attn.q_a_proj.weight", .gguf = "attn_q_a.weight", .n_dims = 2, .dim = {D_Q_LORA, D_HIDDEN},
     .optional = true, .either = 1},
    {.hf = "self_attn.q_a_layernorm.weight", .gguf = "attn_q_a_norm.weight", .n_dims = 1, .dim = {D_Q_LORA},
     .optional = true},
    {.hf = "self_attn.q_b_proj.weight", .gguf = "attn_q_b.weight", .n_dims = 2, .dim = {D_Q_B, D_Q_LORA}, .optional = true},
    {.hf = "self_attn.q_proj.weight", .gguf = "attn_q.weight", .n_dims = 2, .dim = {D_Q_B, D_HIDDEN}, .optional = true,
     .either = 1},
    {.hf = "self_attn.kv_a_proj_with_mqa.weight", .gguf = "attn_kv_a_mqa.weight", .n_dims = 2, .dim = {D_KV_A, D_HIDDEN}},
    {.hf = "self_attn.kv_a_layernorm.weight", .gguf = "attn_kv_a_norm.weight", .n_dims = 1, .dim = {D_KV_LORA}},
    {.hf = "self_attn.kv_b_proj.weight", .gguf = "attn_k_b.weight", .n_dims = 2, .dim = {D_KV_B, D_KV_LORA},
     .gather = true, .g_heads = true, .g_na = D_QK_NOPE, .g_transpose = true},
    {.hf = "self_attn.kv_b_proj.weight", .gguf = "attn_v_b.weight", .n_dims = 2, .dim = {D_KV_B, D_KV_LORA},
     .gather = true, .g_heads = true, .g_a0 = D_QK_NOPE, .g_na = D_V_HEAD},
    {.hf = "self_attn.o_proj.weight", .gguf = "attn_output.weight", .n_dims = 2, .dim = {D_HIDDEN, D_O_IN}},
    R_MLP_GATED_DENSE,
    R_ROUTER("mlp.gate.weight"),
    {.hf = "mlp.gate.e_score_correction_bias", .gguf = "exp_probs_b.bias", .n_dims = 1, .dim = {D_NEXP},
     .layers = HF_LAYERS_MOE, .optional = true},
    R_QWEN_EXPERTS,
    R_SHARED_EXPERT("mlp.shared_experts."),
};

/* DeepseekV2Model.set_gguf_parameters after TextModel's (written with
 * num_key_value_heads 1: hf_arch.mqa_kv), in its order; the keys set again keep their place */
static const hf_key_rule k_deepseek3_keys[] = {
    {.gguf = "leading_dense_block_count", .hf = {"first_k_dense_replace"}, .type = HF_KEY_U32, .when = HF_WHEN_OR_ZERO},
    {.gguf = "vocab_size", .hf = {"vocab_size"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "attention.q_lora_rank", .hf = {"q_lora_rank"}, .type = HF_KEY_U32, .when = HF_WHEN_NOT_NULL},
    {.gguf = "attention.kv_lora_rank", .hf = {"kv_lora_rank"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "attention.key_length", .hf = {"kv_lora_rank", "qk_rope_head_dim"}, .type = HF_KEY_U32, .from = HF_FROM_SUM},
    {.gguf = "attention.value_length", .hf = {"kv_lora_rank"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "attention.key_length_mla", .hf = {"qk_nope_head_dim", "qk_rope_head_dim"}, .type = HF_KEY_U32,
     .from = HF_FROM_SUM},
    {.gguf = "attention.value_length_mla", .hf = {"v_head_dim"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "expert_feed_forward_length", .hf = {"moe_intermediate_size", "intermediate_size"}, .type = HF_KEY_U32,
     .when = HF_WHEN_REQUIRED},
    {.gguf = "expert_count", .hf = {"n_routed_experts"}, .type = HF_KEY_U32, .when = HF_WHEN_NOT_NULL},
    {.gguf = "expert_shared_count", .hf = {"n_shared_experts"}, .type = HF_KEY_U32, .when = HF_WHEN_OR_ZERO},
    {.gguf = "expert_weights_scale", .hf = {"routed_scaling_factor"}, .when = HF_WHEN_NOT_NULL},
    {.gguf = "expert_weights_norm", .hf = {"norm_topk_prob"}, .type = HF_KEY_BOOL},
    {.gguf = "rope.dimension_count", .hf = {"qk_rope_head_dim"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "rope.scaling.yarn_log_multiplier", .hf = {"mscale_all_dim"}, .from = HF_FROM_ROPE, .when = HF_WHEN_NOT_NULL,
     .mul = 0.1},
};

/* OLMo-2 (Olmo2Model, a TextModel: no q/k permutation): RMS norms over the
 * whole q and k projections, a norm after attention and after the MLP, none
 * before them. */
static const hf_tensor_rule k_olmo2_block[] = {
    R_ATTN_QKVO,
    {.hf = "self_attn.q_norm.weight", .gguf = "attn_q_norm.weight", .n_dims = 1, .dim = {D_Q}},
    {.hf = "self_attn.k_norm.weight", .gguf = "attn_k_norm.weight", .n_dims = 1, .dim = {D_KV}},
    R_POST_ATTN_NORM,
    R_POST_FFW_NORM,
    R_MLP_GATED,
};

/* StarCoder2 (StarCoder2Model, a TextModel: no q/k permutation): layer norms
 * with biases, biases on every projection (config use_bias, true by default),
 * a two-matrix MLP (c_fc up, c_proj down, GELU). */
static const hf_tensor_rule k_starcoder2_block[] = {
    R_INPUT_NORM,
    {.hf = "input_layernorm.bias", .gguf = "attn_norm.bias", .n_dims = 1, .dim = {D_HIDDEN}},
    R_ATTN_QKVO,
    R_ATTN_BIAS,
    R_FFN_NORM,
    {.hf = "post_attention_layernorm.bias", .gguf = "ffn_norm.bias", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "mlp.c_fc.weight", .gguf = "ffn_up.weight", .n_dims = 2, .dim = {D_FF, D_HIDDEN}},
    {.hf = "mlp.c_fc.bias", .gguf = "ffn_up.bias", .n_dims = 1, .dim = {D_FF}, .optional = true},
    {.hf = "mlp.c_proj.weight", .gguf = "ffn_down.weight", .n_dims = 2, .dim = {D_HIDDEN, D_FF}},
    {.hf = "mlp.c_proj.bias", .gguf = "ffn_down.bias", .n_dims = 1, .dim = {D_HIDDEN}, .optional = true},
};

/* GraniteModel.set_gguf_parameters: its four multipliers, renamed to scales */
static const hf_key_rule k_granite_keys[] = {
    {.gguf = "attention.scale", .hf = {"attention_multiplier"}},
    {.gguf = "embedding_scale", .hf = {"embedding_multiplier"}},
    {.gguf = "residual_scale", .hf = {"residual_multiplier"}},
    {.gguf = "logit_scale", .hf = {"logits_scaling"}},
};

/* Phi-3 (Phi3MiniModel, a TextModel: no permutation): q, k and v fused in one
 * matrix and gate and up in another, both kept fused as the reference keeps
 * them (llama.cpp's phi3 splits them at load). */
static const hf_tensor_rule k_phi3_block[] = {
    R_INPUT_NORM,
    {.hf = "self_attn.qkv_proj.weight", .gguf = "attn_qkv.weight", .n_dims = 2, .dim = {D_QKV, D_HIDDEN}},
    {.hf = "self_attn.o_proj.weight", .gguf = "attn_output.weight", .n_dims = 2, .dim = {D_HIDDEN, D_Q}},
    R_FFN_NORM,
    {.hf = "mlp.gate_up_proj.weight", .gguf = "ffn_up.weight", .n_dims = 2, .dim = {D_FF2, D_HIDDEN}},
    R_MLP_DOWN,
};

/* Phi3MiniModel.set_gguf_parameters: its own list, in its order (not TextModel's) */
static const hf_key_rule k_phi3_params[] = {
    {.gguf = "context_length", .hf = {"n_positions", "max_position_embeddings"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "rope.scaling.original_context_length", .hf = {"original_max_position_embeddings"}, .type = HF_KEY_U32,
     .from = HF_FROM_ROPE, .when = HF_WHEN_REQUIRED},
    {.gguf = "embedding_length", .hf = {"hidden_size", "n_embd"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "feed_forward_length", .hf = {"intermediate_size"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "block_count", .type = HF_KEY_U32, .from = HF_FROM_BLOCKS},
    {.gguf = "attention.head_count", .hf = {"num_attention_heads", "n_head"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED},
    {.gguf = "attention.head_count_kv", .hf = {"num_key_value_heads", "n_head_kv"}, .type = HF_KEY_U32,
     .when = HF_WHEN_REQUIRED},
    {.gguf = "attention.layer_norm_rms_epsilon", .hf = {"rms_norm_eps"}, .when = HF_WHEN_REQUIRED},
    {.gguf = "rope.dimension_count", .type = HF_KEY_U32, .from = HF_FROM_ROPE_DIMS},
    {.gguf = "rope.freq_base", .hf = {"rope_theta"}, .from = HF_FROM_ROPE, .when = HF_WHEN_REQUIRED},
    {.gguf = "general.file_type", .from = HF_FROM_FILE_TYPE},
    {.gguf = "attention.sliding_window", .hf = {"sliding_window"}, .type = HF_KEY_U32, .when = HF_WHEN_OR_ZERO},
};

/* Gemma 3 (Gemma3Model, a TextModel: no permutation): per-head q/k norms and
 * four norms a block (before and after attention and the MLP); the norm
 * weights get + 1 (hf_arch.norm_plus_one). */
static const hf_tensor_rule k_gemma3_block[] = {
    R_INPUT_NORM,
    R_ATTN_QKVO,
    R_QK_NORM_HEAD,
    R_POST_ATTN_NORM,
    {.hf = "pre_feedforward_layernorm.weight", .gguf = "ffn_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}},
    R_POST_FFW_NORM,
    R_MLP_GATED,
};

/* Gemma3Model.set_gguf_parameters after TextModel's: the keys it sets again
 * (context length, head counts, epsilon, key/value length, rope base) keep
 * their place and, with Gemma3TextConfig's defaults filled, their value; new
 * are these two */
static const hf_key_rule k_gemma3_keys[] = {
    {.gguf = "final_logit_softcapping", .hf = {"final_logit_softcapping"}},
    {.gguf = "attention.sliding_window", .hf = {"sliding_window"}, .type = HF_KEY_U32, .when = HF_WHEN_REQUIRED,
     .unless_one = "sliding_window_pattern"},
};

/* BERT (BertModel: the encoder; no permutation): post-norm LayerNorms with
 * biases, biases everywhere, a GELU MLP; the embeddings with positions, token
 * types and their LayerNorm outside the blocks, no output head. */
static const hf_tensor_rule k_bert_block[] = {
    {.hf = "attention.self.query.weight", .gguf = "attn_q.weight", .n_dims = 2, .dim = {D_Q, D_HIDDEN}},
    {.hf = "attention.self.query.bias", .gguf = "attn_q.bias", .n_dims = 1, .dim = {D_Q}},
    {.hf = "attention.self.key.weight", .gguf = "attn_k.weight", .n_dims = 2, .dim = {D_KV, D_HIDDEN}},
    {.hf = "attention.self.key.bias", .gguf = "attn_k.bias", .n_dims = 1, .dim = {D_KV}},
    {.hf = "attention.self.value.weight", .gguf = "attn_v.weight", .n_dims = 2, .dim = {D_KV, D_HIDDEN}},
    {.hf = "attention.self.value.bias", .gguf = "attn_v.bias", .n_dims = 1, .dim = {D_KV}},
    {.hf = "attention.output.dense.weight", .gguf = "attn_output.weight", .n_dims = 2, .dim = {D_HIDDEN, D_Q}},
    {.hf = "attention.output.dense.bias", .gguf = "attn_output.bias", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "attention.output.LayerNorm.weight", .gguf = "attn_output_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "attention.output.LayerNorm.bias", .gguf = "attn_output_norm.bias", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "intermediate.dense.weight", .gguf = "ffn_up.weight", .n_dims = 2, .dim = {D_FF, D_HIDDEN}},
    {.hf = "intermediate.dense.bias", .gguf = "ffn_up.bias", .n_dims = 1, .dim = {D_FF}},
    {.hf = "output.dense.weight", .gguf = "ffn_down.weight", .n_dims = 2, .dim = {D_HIDDEN, D_FF}},
    {.hf = "output.dense.bias", .gguf = "ffn_down.bias", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "output.LayerNorm.weight", .gguf = "layer_output_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "output.LayerNorm.bias", .gguf = "layer_output_norm.bias", .n_dims = 1, .dim = {D_HIDDEN}},
};

static const hf_tensor_rule k_bert_global[] = {
    {.hf = "embeddings.word_embeddings.weight", .gguf = "token_embd.weight", .n_dims = 2, .dim = {D_VOCAB, D_HIDDEN}},
    {.hf = "embeddings.position_embeddings.weight", .gguf = "position_embd.weight", .n_dims = 2,
     .dim = {D_POS, D_HIDDEN}, .f32 = true},
    {.hf = "embeddings.token_type_embeddings.weight", .gguf = "token_types.weight", .n_dims = 2,
     .dim = {D_TYPES, D_HIDDEN}, .f32 = true},
    {.hf = "embeddings.LayerNorm.weight", .gguf = "token_embd_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "embeddings.LayerNorm.bias", .gguf = "token_embd_norm.bias", .n_dims = 1, .dim = {D_HIDDEN}},
};

/* BertModel.filter_tensors: the pooler and the pre-training heads are not converted */
static const char *const k_bert_drop[] = {"embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias", NULL};
static const char *const k_bert_drop_prefixes[] = {"cls.predictions", "cls.seq_relationship", NULL};

/* BertModel.set_gguf_parameters after TextModel's: not causal, then the pooling */
static const hf_key_rule k_bert_keys[] = {
    {.gguf = "attention.causal", .type = HF_KEY_BOOL, .from = HF_FROM_CONST, .value = 0},
    {.from = HF_FROM_POOLING},
};

/* Qwen2Model.set_gguf_parameters after TextModel's: the pooling */
static const hf_key_rule k_pooling_keys[] = {
    {.from = HF_FROM_POOLING},
};

/* Tensors outside the blocks, shared by every architecture here. lm_head is
 * required unless config.json ties the embeddings (llama.cpp would silently
 * reuse token_embd for a missing output, which hides a broken checkpoint). */
static const hf_tensor_rule k_global[] = {
    {.hf = "model.embed_tokens.weight", .gguf = "token_embd.weight", .n_dims = 2, .dim = {D_VOCAB, D_HIDDEN}},
    {.hf = "model.norm.weight", .gguf = "output_norm.weight", .n_dims = 1, .dim = {D_HIDDEN}},
    {.hf = "model.norm.bias", .gguf = "output_norm.bias", .n_dims = 1, .dim = {D_HIDDEN}, .optional = true},
    {.hf = "lm_head.weight", .gguf = "output.weight", .n_dims = 2, .dim = {D_VOCAB, D_HIDDEN}, .output = true},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const hf_arch k_archs[] = {
    {.hf_name = "LlamaForCausalLM", .arch = "llama", .vocab = HF_VOCAB_LLAMA, .block = k_llama_block,
     .n_block = N_OF(k_llama_block), .llama_params = true, .generate = HF_GEN_LLAMA3_ROPE},
    {.hf_name = "LLaMAForCausalLM", .arch = "llama", .vocab = HF_VOCAB_LLAMA, .block = k_llama_block,
     .n_block = N_OF(k_llama_block), .llama_params = true, .generate = HF_GEN_LLAMA3_ROPE},
    {.hf_name = "MistralForCausalLM", .arch = "llama", .vocab = HF_VOCAB_LLAMA, .block = k_llama_block,
     .n_block = N_OF(k_llama_block), .llama_params = true, .generate = HF_GEN_LLAMA3_ROPE},
    {.hf_name = "Qwen2ForCausalLM", .arch = "qwen2", .vocab = HF_VOCAB_QWEN2, .block = k_qwen2_block,
     .n_block = N_OF(k_qwen2_block), .pooling = true, .keys = k_pooling_keys, .n_keys = N_OF(k_pooling_keys)},
    {.hf_name = "Qwen3ForCausalLM", .arch = "qwen3", .vocab = HF_VOCAB_QWEN2, .block = k_qwen3_block,
     .n_block = N_OF(k_qwen3_block), .pooling = true, .reranker_check = true, .bare_names = true,
     .keys = k_pooling_keys, .n_keys = N_OF(k_pooling_keys)},
    /* the same class (Qwen3Model registers both): the base model, Qwen3-Embedding's */
    {.hf_name = "Qwen3Model", .arch = "qwen3", .vocab = HF_VOCAB_QWEN2, .block = k_qwen3_block,
     .n_block = N_OF(k_qwen3_block), .pooling = true, .reranker_check = true, .bare_names = true,
     .keys = k_pooling_keys, .n_keys = N_OF(k_pooling_keys)},
    {.hf_name = "Olmo2ForCausalLM", .arch = "olmo2", .vocab = HF_VOCAB_GPT2, .block = k_olmo2_block,
     .n_block = N_OF(k_olmo2_block)},
    /* SmolLM3Model(LlamaModel): the llama tensors and keys under its own name (its no-rope layers are
     * llama.cpp's default pattern, not written) */
    {.hf_name = "SmolLM3ForCausalLM", .arch = "smollm3", .vocab = HF_VOCAB_LLAMA, .block = k_llama_block,
     .n_block = N_OF(k_llama_block), .llama_params = true, .generate = HF_GEN_LLAMA3_ROPE},
    /* GraniteModel(LlamaModel): the llama tensors and keys (head_dim ignored: hparams.c drops it) and four scales */
    {.hf_name = "GraniteForCausalLM", .arch = "granite", .vocab = HF_VOCAB_LLAMA, .block = k_llama_block,
     .n_block = N_OF(k_llama_block), .llama_params = true, .generate = HF_GEN_LLAMA3_ROPE, .keys = k_granite_keys,
     .n_keys = N_OF(k_granite_keys)},
    {.hf_name = "Starcoder2ForCausalLM", .arch = "starcoder2", .vocab = HF_VOCAB_GPT2, .block = k_starcoder2_block,
     .n_block = N_OF(k_starcoder2_block)},
    {.hf_name = "Gemma3ForCausalLM", .arch = "gemma3", .vocab = HF_VOCAB_GEMMA3, .block = k_gemma3_block,
     .n_block = N_OF(k_gemma3_block), .norm_plus_one = true, .keys = k_gemma3_keys, .n_keys = N_OF(k_gemma3_keys)},
    /* the same class: the text model of a multimodal checkpoint (language_model. removed from the names, the
     * vision tower and projector skipped as every multimodal prefix is; text_config as Gemma3TextConfig fills it) */
    {.hf_name = "Gemma3ForConditionalGeneration", .arch = "gemma3", .vocab = HF_VOCAB_GEMMA3, .block = k_gemma3_block,
     .n_block = N_OF(k_gemma3_block), .norm_plus_one = true, .keys = k_gemma3_keys, .n_keys = N_OF(k_gemma3_keys)},
    {.hf_name = "BertModel", .arch = "bert", .vocab = HF_VOCAB_BERT, .block = k_bert_block,
     .n_block = N_OF(k_bert_block), .block_prefix = "encoder.layer.", .globals = k_bert_global,
     .n_globals = N_OF(k_bert_global), .strip_prefix = "bert.", .gamma_beta = true, .drop = k_bert_drop,
     .drop_prefixes = k_bert_drop_prefixes, .pooling = true, .keys = k_bert_keys, .n_keys = N_OF(k_bert_keys)},
    {.hf_name = "Phi3ForCausalLM", .arch = "phi3", .vocab = HF_VOCAB_PHI3, .block = k_phi3_block,
     .n_block = N_OF(k_phi3_block), .generate = HF_GEN_LONGROPE, .params = k_phi3_params, .n_params = N_OF(k_phi3_params)},
    /* MixtralForCausalLM is LlamaModel's: the llama keys and tensors, the experts stacked */
    {.hf_name = "MixtralForCausalLM", .arch = "llama", .vocab = HF_VOCAB_LLAMA, .block = k_mixtral_block,
     .n_block = N_OF(k_mixtral_block), .llama_params = true, .generate = HF_GEN_LLAMA3_ROPE},
    /* Qwen2MoeModel (a TextModel: TextModel's gpt2 vocabulary) and Qwen3MoeModel(Qwen2MoeModel) */
    {.hf_name = "Qwen2MoeForCausalLM", .arch = "qwen2moe", .vocab = HF_VOCAB_GPT2, .block = k_qwen2moe_block,
     .n_block = N_OF(k_qwen2moe_block), .keys = k_qwen2moe_keys, .n_keys = N_OF(k_qwen2moe_keys)},
    {.hf_name = "Qwen3MoeForCausalLM", .arch = "qwen3moe", .vocab = HF_VOCAB_GPT2, .block = k_qwen3moe_block,
     .n_block = N_OF(k_qwen3moe_block), .keys = k_qwen2moe_keys, .n_keys = N_OF(k_qwen2moe_keys)},
    {.hf_name = "GptOssForCausalLM", .arch = "gpt-oss", .vocab = HF_VOCAB_GPT2, .block = k_gptoss_block,
     .n_block = N_OF(k_gptoss_block), .keys = k_gptoss_keys, .n_keys = N_OF(k_gptoss_keys)},
    {.hf_name = "DeepseekV3ForCausalLM", .arch = "deepseek2", .vocab = HF_VOCAB_GPT2, .block = k_deepseek3_block,
     .n_block = N_OF(k_deepseek3_block), .keys = k_deepseek3_keys, .n_keys = N_OF(k_deepseek3_keys), .mqa_kv = true,
     .skip_extra_layers = true},
};

MIO_API const char *mio_hf_architecture(int i, const char **gguf_arch) {
    const hf_arch *a = i >= 0 && (size_t)i < N_OF(k_archs) ? &k_archs[i] : NULL;
    if (gguf_arch) *gguf_arch = a ? a->arch : NULL;
    return a ? a->hf_name : NULL;
}

const hf_arch *mio_hf_arch_find(const char *hf_name) {
    for (size_t i = 0; i < N_OF(k_archs); i++)
        if (strcmp(k_archs[i].hf_name, hf_name) == 0) return &k_archs[i];
    return NULL;
}

const hf_tensor_rule *mio_hf_arch_global_rules(const hf_arch *a, size_t *n) {
    *n = a->globals ? a->n_globals : N_OF(k_global);
    return a->globals ? a->globals : k_global;
}

int64_t mio_hf_rule_dim(const hf_tensor_rule *r, uint32_t k, const hf_dims *d) { return mio_hf_dim(r->dim[k], d); }

int64_t mio_hf_dim(int code, const hf_dims *d) {
    switch (code) {
    case D_HIDDEN: return d->hidden;
    case D_VOCAB: return d->vocab;
    case D_FF: return d->ff;
    case D_Q: return d->n_head * d->head_dim;
    case D_KV: return d->n_head_kv * d->head_dim;
    case D_HEAD: return d->head_dim;
    case D_QKV: return (d->n_head + 2 * d->n_head_kv) * d->head_dim;
    case D_FF2: return 2 * d->ff;
    case D_POS: return d->n_pos;
    case D_TYPES: return d->n_types;
    case D_NEXP: return d->n_expert;
    case D_FF_EXP: return d->ff_exp;
    case D_FF_SHEXP: return d->ff_shexp;
    case D_ONE: return 1;
    case D_Q_LORA: return d->q_lora;
    case D_KV_LORA: return d->kv_lora;
    case D_QK_NOPE: return d->qk_nope;
    case D_QK_HEAD: return d->qk_nope + d->qk_rope;
    case D_KV_A: return d->kv_lora + d->qk_rope;
    case D_KV_B: return d->n_head_kv * (d->qk_nope + d->v_head);
    case D_Q_B: return d->n_head * (d->qk_nope + d->qk_rope);
    case D_V_HEAD: return d->v_head;
    case D_O_IN: return d->n_head * d->v_head;
    case D_NHEAD: return d->n_head;
    case D_HID_32: return d->hidden / 32;
    case D_FF_32: return d->ff / 32;
    case D_16: return 16;
    default: return -1;
    }
}

/* "<prefix>N.<rest>" with N a decimal block number: the number and rest. */
static bool split_block_name(const char *name, const char *prefix, int64_t *bid, const char **rest) {
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0) return false;
    const char *p = name + pl;
    int64_t v = 0;
    int nd = 0;
    while (*p >= '0' && *p <= '9') {
        if (nd == 9) return false;
        v = v * 10 + (*p - '0');
        p++, nd++;
    }
    if (nd == 0 || *p != '.') return false;
    *bid = v;
    *rest = p + 1;
    return true;
}

bool mio_hf_arch_map(const hf_arch *a, const char *hf, int64_t n_layer, char out[HF_NAME_MAX], const hf_tensor_rule **rule,
                     int64_t *bid, int64_t *xid) {
    *bid = *xid = -1;
    char full[HF_NAME_MAX + 8];
    if (a->bare_names && strncmp(hf, "model.", 6) != 0 &&
        (strncmp(hf, "layers.", 7) == 0 || strncmp(hf, "embed_tokens.", 13) == 0 || strncmp(hf, "norm.", 5) == 0)) {
        int k = snprintf(full, sizeof full, "model.%s", hf);
        if (k < 0 || (size_t)k >= sizeof full) return false;
        hf = full;
    }
    size_t ng;
    const hf_tensor_rule *g = mio_hf_arch_global_rules(a, &ng);
    for (size_t i = 0; i < ng; i++)
        if (strcmp(hf, g[i].hf) == 0) {
            snprintf(out, HF_NAME_MAX, "%s", g[i].gguf);
            *rule = &g[i];
            return true;
        }
    const char *rest;
    int64_t b;
    if (!split_block_name(hf, a->block_prefix ? a->block_prefix : "model.layers.", &b, &rest) || b >= n_layer)
        return false;
    for (size_t i = 0; i < a->n_block; i++) {
        const char *tail = rest;
        int64_t x = -1;
        if (a->block[i].experts && !split_block_name(rest, a->block[i].experts, &x, &tail)) continue;
        if (strcmp(tail, a->block[i].hf) == 0) {
            snprintf(out, HF_NAME_MAX, "blk.%lld.%s", (long long)b, a->block[i].gguf);
            *rule = &a->block[i];
            *bid = b;
            *xid = x;
            return true;
        }
    }
    return false;
}

/* The reference drops these before mapping (ModelBase.prepare_tensors). */
int64_t mio_hf_arch_block_of(const hf_arch *a, const char *hf) {
    const char *rest;
    int64_t b;
    return split_block_name(hf, a->block_prefix ? a->block_prefix : "model.layers.", &b, &rest) ? b : -1;
}

bool mio_hf_name_is_dropped(const char *hf) {
    static const char *const suffix[] = {".attention.masked_bias", ".attention.bias", ".rotary_emb.inv_freq"};
    size_t n = strlen(hf);
    for (size_t i = 0; i < N_OF(suffix); i++) {
        size_t m = strlen(suffix[i]);
        if (n >= m && memcmp(hf + n - m, suffix[i], m) == 0) return true;
    }
    return false;
}

/* The source rows of a q/k permutation (LlamaModel.permute): viewing the rows
 * as (heads, 2, rows/heads/2), the output swaps the last two axes, so output
 * row h*2*half + i*2 + j is source row h*2*half + j*half + i. */
uint64_t mio_hf_permute_src_row(uint64_t out_row, uint64_t rows, uint64_t n_head) {
    uint64_t per = rows / n_head, half = per / 2;
    uint64_t h = out_row / per, r = out_row % per;
    uint64_t i = r / 2, j = r % 2;
    return h * per + j * half + i;
}

/* llama3 rope scaling (LlamaModel.generate_extra_tensors): one factor per
 * rotary frequency pair, as torch computes it in f32. */
void mio_hf_llama3_rope_factors(float *out, int64_t dim, double base, double factor, double low_freq_factor,
                                double high_freq_factor, double old_context_len) {
    double low_freq_wavelen = old_context_len / low_freq_factor;
    double high_freq_wavelen = old_context_len / high_freq_factor;
    for (int64_t k = 0; k < dim / 2; k++) {
        /* torch: base ** (arange(0, dim, 2, f32) / dim), an f32 tensor whose
         * elements equal the double power rounded once to f32 (not powf's,
         * which is 1 ulp off for some: measured on torch 2.15), then 1 / that in f32 */
        float expo = (float)(2 * k) / (float)dim;
        float powv = (float)pow(base, (double)expo);
        float freq = 1.0f / powv;
        /* the loop runs over 0-dim f32 tensors: every step below is an f32
         * operation with the Python numbers rounded to f32 first */
        float wavelen = (float)(2 * M_PI) / freq;
        float v;
        if ((double)wavelen < high_freq_wavelen)
            v = 1;
        else if ((double)wavelen > low_freq_wavelen)
            v = (float)factor;
        else {
            float smooth = ((float)old_context_len / wavelen - (float)low_freq_factor) /
                           (float)(high_freq_factor - low_freq_factor);
            v = 1.0f / ((1.0f - smooth) / (float)factor + smooth);
        }
        out[k] = v;
    }
}
