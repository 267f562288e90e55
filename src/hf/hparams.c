/* SPDX-License-Identifier: MIT */
/* hparams.c — the hyperparameters convert_hf_to_gguf.py reads are not
 * config.json as written but AutoConfig.from_pretrained(dir).to_dict(): the
 * transformers config class fills its defaults (head_dim, key-value heads,
 * context length, ...) and folds rope_scaling / rope_theta into one
 * rope_parameters dict. This file redoes that for the model types the
 * architecture table converts, as transformers 5.25.0 does (the version
 * tests/data/hf/reference.json was recorded with; 5.24.0 gave the same files);
 * keys the converter never reads are not filled. A config.json without model_type makes AutoConfig fail, and the
 * reference then reads the file as it is: so does this. */
#include "hf/hf_internal.h"

#include "core/core.h"

#include <string.h>

/* One default: set when the key is absent; null_to_heads: a JSON null means
 * num_attention_heads (the class's "if x is None" branch). */
typedef struct hp_default {
    const char *key;
    double value;     /* numbers */
    int kind;         /* K_*: a number, a bool, hidden / heads, heads, or removed (the class ignores it) */
} hp_default;

enum { K_NUM, K_BOOL, K_HEAD_DIM, K_HEADS, K_DROP };

typedef struct hp_type {
    const char *model_type;
    const hp_default *d;
    size_t n;
    const char *kv_null_means; /* "heads": num_key_value_heads null (or absent, for llama) = heads */
    double rope_theta;         /* the class's default rope_theta (0: 10000) */
    bool phi3_rope;            /* Phi3Config.convert_rope_params_to_dict: partial_rotary_factor always in
                                  rope_parameters (1.0 by default, the root key kept), su / yarn renamed longrope */
    bool gemma3_rope;          /* Gemma3TextConfig.convert_rope_params_to_dict: rope_parameters per layer type,
                                  full_attention (rope_scaling merged in, rope_theta or 1e6) and
                                  sliding_attention (rope_local_base_freq or 1e4) */
    const char *text_type;     /* a multimodal config: its text_config is this model type's (whatever its own
                                  model_type says), the root gets only the defaults above and no rope */
    bool no_rope;              /* a config class without rotary embeddings (BertConfig): no rope dict */
    const char *rename[2];     /* the attribute_map: config.json's rename[0] is the attribute rename[1] */
    const char *copy[2];       /* the class sets copy[1] to copy[0]'s value, whatever config.json says */
} hp_type;

/* LlamaConfig */
static const hp_default k_llama[] = {
    {"vocab_size", 32000, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 11008, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 0, K_HEADS},
    {"max_position_embeddings", 2048, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"head_dim", 0, K_HEAD_DIM},
};
/* MistralConfig */
static const hp_default k_mistral[] = {
    {"vocab_size", 32000, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 14336, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 8, K_NUM},
    {"max_position_embeddings", 131072, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"head_dim", 0, K_HEAD_DIM},
};
/* Qwen2Config: no head_dim attribute */
static const hp_default k_qwen2[] = {
    {"vocab_size", 151936, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 22016, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 32, K_NUM},
    {"max_position_embeddings", 32768, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
};
/* Qwen3Config: head_dim defaults to 128, not hidden / heads */
static const hp_default k_qwen3[] = {
    {"vocab_size", 151936, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 22016, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 32, K_NUM},
    {"max_position_embeddings", 32768, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"head_dim", 128, K_NUM},
};

/* Olmo2Config: no head_dim attribute, key-value heads null = heads */
static const hp_default k_olmo2[] = {
    {"vocab_size", 50304, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 11008, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 0, K_HEADS},
    {"max_position_embeddings", 2048, K_NUM}, {"rms_norm_eps", 1e-5, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
};
/* SmolLM3Config (transformers 5.25.0): no head_dim attribute, tied by default,
 * rope_theta 2e6 */
static const hp_default k_smollm3[] = {
    {"vocab_size", 128256, K_NUM}, {"hidden_size", 2048, K_NUM}, {"intermediate_size", 11008, K_NUM},
    {"num_hidden_layers", 36, K_NUM}, {"num_attention_heads", 16, K_NUM}, {"num_key_value_heads", 4, K_NUM},
    {"max_position_embeddings", 32768, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 1, K_BOOL},
};

/* GraniteConfig: key-value heads null = heads; GraniteModel pops head_dim
 * ("no head_dim support"): removed here, so that nothing reads it */
static const hp_default k_granite[] = {
    {"vocab_size", 32000, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 11008, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 0, K_HEADS},
    {"max_position_embeddings", 2048, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"embedding_multiplier", 1.0, K_NUM}, {"logits_scaling", 1.0, K_NUM}, {"residual_multiplier", 1.0, K_NUM},
    {"attention_multiplier", 1.0, K_NUM}, {"head_dim", 0, K_DROP},
};
/* Starcoder2Config: no head_dim attribute, 2 key-value heads, tied, layer
 * norm epsilon as norm_epsilon */
static const hp_default k_starcoder2[] = {
    {"vocab_size", 49152, K_NUM}, {"hidden_size", 3072, K_NUM}, {"intermediate_size", 12288, K_NUM},
    {"num_hidden_layers", 30, K_NUM}, {"num_attention_heads", 24, K_NUM}, {"num_key_value_heads", 2, K_NUM},
    {"max_position_embeddings", 4096, K_NUM}, {"norm_epsilon", 1e-5, K_NUM}, {"tie_word_embeddings", 1, K_BOOL},
    {"use_bias", 1, K_BOOL},
};

/* Phi3Config: no head_dim attribute, key-value heads null = heads, an
 * original_max_position_embeddings attribute of its own (so rope_parameters
 * takes it for longrope) */
static const hp_default k_phi3[] = {
    {"vocab_size", 32064, K_NUM}, {"hidden_size", 3072, K_NUM}, {"intermediate_size", 8192, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 0, K_HEADS},
    {"max_position_embeddings", 4096, K_NUM}, {"original_max_position_embeddings", 4096, K_NUM},
    {"rms_norm_eps", 1e-5, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
};

/* Gemma3TextConfig (model_type gemma3_text; the text_config of gemma3) */
static const hp_default k_gemma3[] = {
    {"vocab_size", 262208, K_NUM}, {"hidden_size", 2304, K_NUM}, {"intermediate_size", 9216, K_NUM},
    {"num_hidden_layers", 26, K_NUM}, {"num_attention_heads", 8, K_NUM}, {"num_key_value_heads", 4, K_NUM},
    {"head_dim", 256, K_NUM}, {"max_position_embeddings", 131072, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM},
    {"tie_word_embeddings", 1, K_BOOL}, {"query_pre_attn_scalar", 256, K_NUM}, {"sliding_window", 4096, K_NUM},
};

/* MixtralConfig: head_dim null (hidden / heads where used), rope_theta 1e6 */
static const hp_default k_mixtral[] = {
    {"vocab_size", 32000, K_NUM}, {"hidden_size", 4096, K_NUM}, {"intermediate_size", 14336, K_NUM},
    {"num_hidden_layers", 32, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 8, K_NUM},
    {"max_position_embeddings", 131072, K_NUM}, {"rms_norm_eps", 1e-5, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"num_local_experts", 8, K_NUM}, {"num_experts_per_tok", 2, K_NUM},
};
/* Qwen2MoeConfig: no head_dim attribute */
static const hp_default k_qwen2moe[] = {
    {"vocab_size", 151936, K_NUM}, {"hidden_size", 2048, K_NUM}, {"intermediate_size", 5632, K_NUM},
    {"num_hidden_layers", 24, K_NUM}, {"num_attention_heads", 16, K_NUM}, {"num_key_value_heads", 16, K_NUM},
    {"max_position_embeddings", 32768, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"decoder_sparse_step", 1, K_NUM}, {"moe_intermediate_size", 1408, K_NUM},
    {"shared_expert_intermediate_size", 5632, K_NUM}, {"num_experts_per_tok", 4, K_NUM}, {"num_experts", 60, K_NUM},
};
/* Qwen3MoeConfig: no head_dim attribute; num_experts is its attribute_map's name for num_local_experts */
static const hp_default k_qwen3moe[] = {
    {"vocab_size", 151936, K_NUM}, {"hidden_size", 2048, K_NUM}, {"intermediate_size", 6144, K_NUM},
    {"num_hidden_layers", 24, K_NUM}, {"num_attention_heads", 32, K_NUM}, {"num_key_value_heads", 4, K_NUM},
    {"max_position_embeddings", 32768, K_NUM}, {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
    {"decoder_sparse_step", 1, K_NUM}, {"moe_intermediate_size", 768, K_NUM}, {"num_experts_per_tok", 8, K_NUM},
    {"num_local_experts", 128, K_NUM},
};

/* GptOssConfig (its default rope_parameters, yarn, is not filled: the real configs give rope_scaling) */
static const hp_default k_gptoss[] = {
    {"vocab_size", 201088, K_NUM}, {"hidden_size", 2880, K_NUM}, {"intermediate_size", 2880, K_NUM},
    {"num_hidden_layers", 36, K_NUM}, {"num_attention_heads", 64, K_NUM}, {"num_key_value_heads", 8, K_NUM},
    {"head_dim", 64, K_NUM}, {"max_position_embeddings", 131072, K_NUM}, {"rms_norm_eps", 1e-5, K_NUM},
    {"tie_word_embeddings", 0, K_BOOL}, {"sliding_window", 128, K_NUM}, {"num_local_experts", 128, K_NUM},
    {"num_experts_per_tok", 4, K_NUM},
};

/* DeepseekV3Config: its head_dim is qk_rope_head_dim (hp_type.copy) */
static const hp_default k_deepseek3[] = {
    {"vocab_size", 129280, K_NUM}, {"hidden_size", 7168, K_NUM}, {"intermediate_size", 18432, K_NUM},
    {"moe_intermediate_size", 2048, K_NUM}, {"num_hidden_layers", 61, K_NUM}, {"num_attention_heads", 128, K_NUM},
    {"num_key_value_heads", 0, K_HEADS}, {"n_shared_experts", 1, K_NUM}, {"n_routed_experts", 256, K_NUM},
    {"routed_scaling_factor", 2.5, K_NUM}, {"kv_lora_rank", 512, K_NUM}, {"q_lora_rank", 1536, K_NUM},
    {"qk_rope_head_dim", 64, K_NUM}, {"v_head_dim", 128, K_NUM}, {"qk_nope_head_dim", 128, K_NUM},
    {"n_group", 8, K_NUM}, {"topk_group", 4, K_NUM}, {"num_experts_per_tok", 8, K_NUM},
    {"first_k_dense_replace", 3, K_NUM}, {"norm_topk_prob", 1, K_BOOL}, {"max_position_embeddings", 4096, K_NUM},
    {"rms_norm_eps", 1e-6, K_NUM}, {"tie_word_embeddings", 0, K_BOOL},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* BertConfig: no key-value heads, no rope */
static const hp_default k_bert[] = {
    {"vocab_size", 30522, K_NUM}, {"hidden_size", 768, K_NUM}, {"num_hidden_layers", 12, K_NUM},
    {"num_attention_heads", 12, K_NUM}, {"intermediate_size", 3072, K_NUM}, {"max_position_embeddings", 512, K_NUM},
    {"type_vocab_size", 2, K_NUM}, {"layer_norm_eps", 1e-12, K_NUM}, {"tie_word_embeddings", 1, K_BOOL},
};

/* Gemma3Config (model_type gemma3, Gemma3ForConditionalGeneration) */
static const hp_default k_gemma3_mm[] = {
    {"tie_word_embeddings", 1, K_BOOL},
};

static const hp_type k_types[] = {
    {.model_type = "llama", .d = k_llama, .n = N_OF(k_llama)},
    {.model_type = "mistral", .d = k_mistral, .n = N_OF(k_mistral)},
    {.model_type = "qwen2", .d = k_qwen2, .n = N_OF(k_qwen2)},
    {.model_type = "qwen3", .d = k_qwen3, .n = N_OF(k_qwen3)},
    {.model_type = "olmo2", .d = k_olmo2, .n = N_OF(k_olmo2)},
    {.model_type = "smollm3", .d = k_smollm3, .n = N_OF(k_smollm3), .rope_theta = 2000000.0},
    {.model_type = "granite", .d = k_granite, .n = N_OF(k_granite)},
    {.model_type = "starcoder2", .d = k_starcoder2, .n = N_OF(k_starcoder2)},
    {.model_type = "phi3", .d = k_phi3, .n = N_OF(k_phi3), .phi3_rope = true},
    {.model_type = "gemma3_text", .d = k_gemma3, .n = N_OF(k_gemma3), .gemma3_rope = true},
    {.model_type = "gemma3", .d = k_gemma3_mm, .n = N_OF(k_gemma3_mm), .text_type = "gemma3_text"},
    {.model_type = "bert", .d = k_bert, .n = N_OF(k_bert), .no_rope = true},
    {.model_type = "mixtral", .d = k_mixtral, .n = N_OF(k_mixtral), .rope_theta = 1000000.0},
    {.model_type = "qwen2_moe", .d = k_qwen2moe, .n = N_OF(k_qwen2moe)},
    {.model_type = "deepseek_v3", .d = k_deepseek3, .n = N_OF(k_deepseek3), .copy = {"qk_rope_head_dim", "head_dim"}},
    {.model_type = "gpt_oss", .d = k_gptoss, .n = N_OF(k_gptoss), .rope_theta = 150000.0},
    {.model_type = "qwen3_moe", .d = k_qwen3moe, .n = N_OF(k_qwen3moe), .rename = {"num_experts", "num_local_experts"}},
};

/* o[key] = v; v is taken (freed when it cannot be stored) */
static bool set_item(mio_json *o, const char *key, mio_json *v) {
    if (!v) return false;
    bool ok = mio_json_get(o, key) ? mio_json_replace(o, key, v) : mio_json_add(o, key, v);
    if (!ok) mio_json_free(v);
    return ok;
}

static double num_or(const mio_json *o, const char *key, double dflt) {
    const mio_json *v = mio_json_get(o, key);
    return mio_json_is_number(v) ? v->valuedouble : dflt;
}

/* hidden_size // num_attention_heads, Python's integer division */
static long long head_dim_of(const mio_json *h, double heads) {
    long long hid = (long long)num_or(h, "hidden_size", 4096), nh = (long long)heads;
    return nh > 0 ? hid / nh : 0;
}

/* One layer type's rope dict of Gemma3TextConfig: the one given (or
 * {"rope_type": "default"}), theta set when absent, then standardize_rope_params'
 * nested branch (rope_type from "type"; llama3 / yarn / longrope get the
 * context length as original_max_position_embeddings). */
static mio_json *gemma3_layer_rope(const mio_json *h, const mio_json *given, const mio_json *scaling, const mio_json *theta,
                                   double dflt_theta) {
    mio_json *o = mio_json_is_object(given) ? mio_json_dup(given) : mio_json_new_object();
    bool ok = o != NULL;
    if (ok && !mio_json_is_object(given)) ok = mio_json_add(o, "rope_type", mio_json_new_string("default"));
    for (const mio_json *it = mio_json_is_object(scaling) ? scaling->child : NULL; ok && it; it = it->next)
        ok = set_item(o, it->string, mio_json_dup(it)); /* dict.update */
    if (ok && !mio_json_get(o, "rope_theta"))
        ok = mio_json_add(o, "rope_theta", theta ? mio_json_dup(theta) : mio_json_new_number(dflt_theta));
    if (ok && !mio_json_get(o, "rope_type")) {
        const mio_json *ty = mio_json_get(o, "type");
        ok = mio_json_add(o, "rope_type", ty ? mio_json_dup(ty) : mio_json_new_string("default"));
    }
    const mio_json *rt = ok ? mio_json_get(o, "rope_type") : NULL;
    if (ok && mio_json_is_string(rt) &&
        (!strcmp(rt->valuestring, "llama3") || !strcmp(rt->valuestring, "yarn") || !strcmp(rt->valuestring, "longrope")) &&
        !mio_json_get(o, "original_max_position_embeddings")) {
        const mio_json *mp = mio_json_get(h, "max_position_embeddings");
        ok = mio_json_add(o, "original_max_position_embeddings", mp ? mio_json_dup(mp) : mio_json_new_null());
    }
    if (!ok) {
        mio_json_free(o);
        return NULL;
    }
    return o;
}

static bool gemma3_rope(mio_json *h) {
    const mio_json *given = mio_json_get(h, "rope_parameters");
    bool have = mio_json_is_object(given);
    const mio_json *rs = mio_json_get(h, "rope_scaling");
    mio_json *full = gemma3_layer_rope(h, have ? mio_json_get(given, "full_attention") : NULL,
                                       mio_json_is_null(rs) ? NULL : rs, mio_json_get(h, "rope_theta"), 1000000.0);
    mio_json *slide = gemma3_layer_rope(h, have ? mio_json_get(given, "sliding_attention") : NULL, NULL,
                                        mio_json_get(h, "rope_local_base_freq"), 10000.0);
    mio_json *rp = have ? mio_json_dup(given) : mio_json_new_object();
    bool ok = full && slide && rp && set_item(rp, "sliding_attention", slide);
    slide = NULL;
    ok = ok && set_item(rp, "full_attention", full);
    full = NULL;
    if (ok) {
        mio_json_remove(h, "rope_scaling");
        mio_json_remove(h, "rope_theta");
        mio_json_remove(h, "rope_local_base_freq");
        ok = set_item(h, "rope_parameters", rp);
        rp = NULL;
    }
    mio_json_free(full);
    mio_json_free(slide);
    mio_json_free(rp);
    return ok;
}

static bool apply_type(mio_json *h, const hp_type *t);

mio_status mio_hf_hparams(const mio_json *raw, const char *file, mio_json **out) {
    *out = NULL;
    const mio_json *mt = mio_json_get(raw, "model_type");
    mio_json *h = mio_json_dup(raw);
    if (!h) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!mt) { /* AutoConfig fails; the reference reads config.json itself */
        *out = h;
        return MIO_OK;
    }
    const hp_type *t = NULL;
    for (size_t i = 0; mio_json_is_string(mt) && i < N_OF(k_types); i++)
        if (strcmp(k_types[i].model_type, mt->valuestring) == 0) t = &k_types[i];
    if (!t) {
        mio_json_free(h);
        return mio_err_set(MIO_ERR_UNSUPPORTED, "%s: model_type %s%s%s is not one this converter knows the transformers "
                           "defaults of (llama, mistral, qwen2, qwen3, olmo2, smollm3, granite, starcoder2, phi3, gemma3_text, gemma3, bert, mixtral, qwen2_moe, qwen3_moe, gpt_oss, deepseek_v3; mio-convert-hf --list-architectures lists the "
                           "classes it converts)", file, mio_json_is_string(mt) ? "\"" : "",
                           mio_json_is_string(mt) ? mt->valuestring : "(not a string)", mio_json_is_string(mt) ? "\"" : "");
    }
    bool ok = apply_type(h, t);
    if (!ok) {
        mio_json_free(h);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    *out = h;
    return MIO_OK;
}

static const hp_type *type_named(const char *name) {
    for (size_t i = 0; i < N_OF(k_types); i++)
        if (strcmp(k_types[i].model_type, name) == 0) return &k_types[i];
    return NULL;
}

/* The config class's defaults and rope dict, in place; false on allocation failure. */
static bool apply_type(mio_json *h, const hp_type *t) {
    bool ok = true;
    if (t->rename[0] && mio_json_get(h, t->rename[0])) { /* to_dict() gives the attribute's name */
        ok = set_item(h, t->rename[1], mio_json_dup(mio_json_get(h, t->rename[0])));
        mio_json_remove(h, t->rename[0]);
    }
    for (size_t i = 0; ok && i < t->n; i++) {
        const hp_default *d = &t->d[i];
        const mio_json *cur = mio_json_get(h, d->key);
        bool absent = !cur, null = cur && mio_json_is_null(cur);
        double heads = num_or(h, "num_attention_heads", 32);
        switch (d->kind) {
        case K_NUM:
            if (absent) ok = set_item(h, d->key, mio_json_new_number(d->value));
            else if (null && strcmp(d->key, "num_key_value_heads") == 0) ok = set_item(h, d->key, mio_json_new_number(heads));
            else if (null && strcmp(d->key, "head_dim") == 0 && heads > 0)
                ok = set_item(h, d->key, mio_json_new_number((double)head_dim_of(h, heads)));
            break;
        case K_BOOL:
            if (absent) ok = set_item(h, d->key, mio_json_new_bool(d->value != 0));
            break;
        case K_HEADS:
            if (absent || null) ok = set_item(h, d->key, mio_json_new_number(heads));
            break;
        case K_DROP:
            mio_json_remove(h, d->key);
            break;
        case K_HEAD_DIM:
            if ((absent || null) && heads > 0)
                ok = set_item(h, d->key, mio_json_new_number((double)head_dim_of(h, heads)));
            break;
        default: break;
        }
    }
    if (ok && t->copy[0] && mio_json_get(h, t->copy[0])) ok = set_item(h, t->copy[1], mio_json_dup(mio_json_get(h, t->copy[0])));
    if (ok && t->text_type) { /* the text model's config, as its own class fills it */
        const mio_json *tc = mio_json_get(h, "text_config");
        mio_json *tcd = mio_json_is_object(tc) ? mio_json_dup(tc) : mio_json_new_object();
        ok = tcd && apply_type(tcd, type_named(t->text_type));
        if (!ok) mio_json_free(tcd);
        else ok = set_item(h, "text_config", tcd);
        return ok;
    }
    if (ok && t->gemma3_rope) return gemma3_rope(h);
    if (!ok || t->no_rope) return ok;
    /* convert_rope_params_to_dict + standardize_rope_params: rope_scaling (or
     * rope_parameters) becomes rope_parameters with rope_theta (the root value
     * or 10000), rope_type (its "type" or "default") and, for llama3 / yarn /
     * longrope, original_max_position_embeddings (default: the context length);
     * the root rope_theta / rope_scaling / partial_rotary_factor are consumed */
    const mio_json *rs = mio_json_get(h, "rope_scaling");
    const mio_json *rpar = mio_json_get(h, "rope_parameters");
    mio_json *rp = NULL;
    if (mio_json_is_object(rs) && rs->child) rp = mio_json_dup(rs);
    else if (mio_json_is_object(rpar)) rp = mio_json_dup(rpar);
    else rp = mio_json_new_object();
    if (!rp) ok = false;
    const mio_json *theta = mio_json_get(h, "rope_theta");
    const mio_json *prf = mio_json_get(h, "partial_rotary_factor");
    if (ok && !mio_json_get(rp, "rope_theta"))
        ok = mio_json_add(rp, "rope_theta", theta ? mio_json_dup(theta)
                                                  : mio_json_new_number(t->rope_theta ? t->rope_theta : 10000.0));
    if (ok && !mio_json_get(rp, "partial_rotary_factor")) {
        if (prf && !mio_json_is_null(prf)) ok = mio_json_add(rp, "partial_rotary_factor", mio_json_dup(prf));
        else if (t->phi3_rope) ok = mio_json_add(rp, "partial_rotary_factor", mio_json_new_number(1.0));
    }
    if (ok && t->phi3_rope) { /* rope_parameters.get("rope_type", .get("type")) in ("su", "yarn") -> "longrope" */
        const mio_json *ty = mio_json_get(rp, "rope_type");
        if (!ty) ty = mio_json_get(rp, "type");
        if (mio_json_is_string(ty) && (!strcmp(ty->valuestring, "su") || !strcmp(ty->valuestring, "yarn")))
            ok = set_item(rp, "rope_type", mio_json_new_string("longrope"));
    }
    if (ok && !mio_json_get(rp, "rope_type")) {
        const mio_json *ty = mio_json_get(rp, "type");
        ok = mio_json_add(rp, "rope_type", ty ? mio_json_dup(ty) : mio_json_new_string("default"));
    }
    /* llama3 / yarn / longrope: the config's own original_max_position_embeddings
     * attribute (a class default, or a key config.json has at its root) wins;
     * otherwise the one in rope_parameters, else the context length */
    const mio_json *rt = ok ? mio_json_get(rp, "rope_type") : NULL;
    if (ok && mio_json_is_string(rt) &&
        (!strcmp(rt->valuestring, "llama3") || !strcmp(rt->valuestring, "yarn") || !strcmp(rt->valuestring, "longrope"))) {
        const mio_json *root = mio_json_get(h, "original_max_position_embeddings");
        const mio_json *mp = mio_json_get(h, "max_position_embeddings");
        if (root) ok = set_item(rp, "original_max_position_embeddings", mio_json_dup(root));
        else if (!mio_json_get(rp, "original_max_position_embeddings"))
            ok = mio_json_add(rp, "original_max_position_embeddings", mp ? mio_json_dup(mp) : mio_json_new_null());
    }
    if (ok) {
        mio_json_remove(h, "rope_scaling");
        mio_json_remove(h, "rope_theta");
        if (!t->phi3_rope) mio_json_remove(h, "partial_rotary_factor");
        ok = set_item(h, "rope_parameters", rp);
        rp = NULL;
    }
    mio_json_free(rp);
    return ok;
}
