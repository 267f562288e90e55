/* SPDX-License-Identifier: MIT */
/* hparams.c — the hyperparameters convert_hf_to_gguf.py reads are not
 * config.json as written but AutoConfig.from_pretrained(dir).to_dict(): the
 * transformers config class fills its defaults (head_dim, key-value heads,
 * context length, ...) and folds rope_scaling / rope_theta into one
 * rope_parameters dict. This file redoes that for the model types the
 * architecture table converts, as transformers 5.24.0 (the version the
 * reference data was made with) does; keys the converter never reads are not
 * filled. A config.json without model_type makes AutoConfig fail, and the
 * reference then reads the file as it is: so does this. */
#include "hf/hf_internal.h"

#include "core/core.h"

#include <string.h>

/* One default: set when the key is absent; null_to_heads: a JSON null means
 * num_attention_heads (the class's "if x is None" branch). */
typedef struct hp_default {
    const char *key;
    double value;     /* numbers */
    int kind;         /* 0 number, 1 bool, 2 hidden / heads, 3 heads */
} hp_default;

enum { K_NUM, K_BOOL, K_HEAD_DIM, K_HEADS };

typedef struct hp_type {
    const char *model_type;
    const hp_default *d;
    size_t n;
    const char *kv_null_means; /* "heads": num_key_value_heads null (or absent, for llama) = heads */
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

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
static const hp_type k_types[] = {
    {.model_type = "llama", .d = k_llama, .n = N_OF(k_llama)},
    {.model_type = "mistral", .d = k_mistral, .n = N_OF(k_mistral)},
    {.model_type = "qwen2", .d = k_qwen2, .n = N_OF(k_qwen2)},
    {.model_type = "qwen3", .d = k_qwen3, .n = N_OF(k_qwen3)},
};

static bool set_item(cJSON *o, const char *key, cJSON *v) {
    if (!v) return false;
    if (cJSON_GetObjectItemCaseSensitive(o, key)) return cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    return cJSON_AddItemToObject(o, key, v);
}

static double num_or(const cJSON *o, const char *key, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* hidden_size // num_attention_heads, Python's integer division */
static long long head_dim_of(const cJSON *h, double heads) {
    long long hid = (long long)num_or(h, "hidden_size", 4096), nh = (long long)heads;
    return nh > 0 ? hid / nh : 0;
}

mio_status mio_hf_hparams(const cJSON *raw, const char *file, cJSON **out) {
    *out = NULL;
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(raw, "model_type");
    cJSON *h = cJSON_Duplicate(raw, 1);
    if (!h) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!mt) { /* AutoConfig fails; the reference reads config.json itself */
        *out = h;
        return MIO_OK;
    }
    const hp_type *t = NULL;
    for (size_t i = 0; cJSON_IsString(mt) && i < N_OF(k_types); i++)
        if (strcmp(k_types[i].model_type, mt->valuestring) == 0) t = &k_types[i];
    if (!t) {
        cJSON_Delete(h);
        return mio_err_set(MIO_ERR_UNSUPPORTED, "%s: model_type %s%s%s is not one this converter knows the transformers "
                           "defaults of (llama, mistral, qwen2, qwen3)", file, cJSON_IsString(mt) ? "\"" : "",
                           cJSON_IsString(mt) ? mt->valuestring : "(not a string)", cJSON_IsString(mt) ? "\"" : "");
    }
    bool ok = true;
    for (size_t i = 0; ok && i < t->n; i++) {
        const hp_default *d = &t->d[i];
        const cJSON *cur = cJSON_GetObjectItemCaseSensitive(h, d->key);
        bool absent = !cur, null = cur && cJSON_IsNull(cur);
        double heads = num_or(h, "num_attention_heads", 32);
        switch (d->kind) {
        case K_NUM:
            if (absent) ok = set_item(h, d->key, cJSON_CreateNumber(d->value));
            else if (null && strcmp(d->key, "num_key_value_heads") == 0) ok = set_item(h, d->key, cJSON_CreateNumber(heads));
            else if (null && strcmp(d->key, "head_dim") == 0 && heads > 0)
                ok = set_item(h, d->key, cJSON_CreateNumber((double)head_dim_of(h, heads)));
            break;
        case K_BOOL:
            if (absent) ok = set_item(h, d->key, cJSON_CreateBool(d->value != 0));
            break;
        case K_HEADS:
            if (absent || null) ok = set_item(h, d->key, cJSON_CreateNumber(heads));
            break;
        case K_HEAD_DIM:
            if ((absent || null) && heads > 0)
                ok = set_item(h, d->key, cJSON_CreateNumber((double)head_dim_of(h, heads)));
            break;
        default: break;
        }
    }
    /* convert_rope_params_to_dict + standardize_rope_params: rope_scaling (or
     * rope_parameters) becomes rope_parameters with rope_theta (the root value
     * or 10000), rope_type (its "type" or "default") and, for llama3 / yarn /
     * longrope, original_max_position_embeddings (default: the context length);
     * the root rope_theta / rope_scaling / partial_rotary_factor are consumed */
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(h, "rope_scaling");
    const cJSON *rpar = cJSON_GetObjectItemCaseSensitive(h, "rope_parameters");
    cJSON *rp = NULL;
    if (cJSON_IsObject(rs) && rs->child) rp = cJSON_Duplicate(rs, 1);
    else if (cJSON_IsObject(rpar)) rp = cJSON_Duplicate(rpar, 1);
    else rp = cJSON_CreateObject();
    if (!rp) ok = false;
    const cJSON *theta = cJSON_GetObjectItemCaseSensitive(h, "rope_theta");
    const cJSON *prf = cJSON_GetObjectItemCaseSensitive(h, "partial_rotary_factor");
    if (ok && !cJSON_GetObjectItemCaseSensitive(rp, "rope_theta"))
        ok = cJSON_AddItemToObject(rp, "rope_theta", theta ? cJSON_Duplicate(theta, 1) : cJSON_CreateNumber(10000.0));
    if (ok && prf && !cJSON_IsNull(prf) && !cJSON_GetObjectItemCaseSensitive(rp, "partial_rotary_factor"))
        ok = cJSON_AddItemToObject(rp, "partial_rotary_factor", cJSON_Duplicate(prf, 1));
    if (ok && !cJSON_GetObjectItemCaseSensitive(rp, "rope_type")) {
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(rp, "type");
        ok = cJSON_AddItemToObject(rp, "rope_type", ty ? cJSON_Duplicate(ty, 1) : cJSON_CreateString("default"));
    }
    const cJSON *rt = ok ? cJSON_GetObjectItemCaseSensitive(rp, "rope_type") : NULL;
    if (ok && cJSON_IsString(rt) &&
        (!strcmp(rt->valuestring, "llama3") || !strcmp(rt->valuestring, "yarn") || !strcmp(rt->valuestring, "longrope")) &&
        !cJSON_GetObjectItemCaseSensitive(rp, "original_max_position_embeddings")) {
        const cJSON *mp = cJSON_GetObjectItemCaseSensitive(h, "max_position_embeddings");
        ok = cJSON_AddItemToObject(rp, "original_max_position_embeddings", mp ? cJSON_Duplicate(mp, 1) : cJSON_CreateNull());
    }
    if (ok) {
        cJSON_DeleteItemFromObjectCaseSensitive(h, "rope_scaling");
        cJSON_DeleteItemFromObjectCaseSensitive(h, "rope_theta");
        cJSON_DeleteItemFromObjectCaseSensitive(h, "partial_rotary_factor");
        ok = set_item(h, "rope_parameters", rp);
        rp = NULL;
    }
    cJSON_Delete(rp);
    if (!ok) {
        cJSON_Delete(h);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    *out = h;
    return MIO_OK;
}
