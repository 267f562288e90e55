/* SPDX-License-Identifier: MIT */
/* adapter.c — reading a LoRA adapter set: which kind it is (PEFT or Fucina),
 * PEFT's adapter_config.json with PEFT's defaults, A/B pairing, the HF -> GGUF
 * names, every check against the base (shapes, ranks, types), and the f32 copy
 * of A and B (B row-permuted for q/k where the HF -> GGUF conversion permuted
 * the base). Everything is validated here, before any output exists. */
#include "lora_internal.h"

#include "core/core.h"
#include "gguf/gguf_internal.h"
#include "core/half.h"

#include "core/json.h"
#include <math.h>
#include <stdio.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PEFT_PREFIX "base_model.model."
#define CONFIG_MAX ((size_t)16 << 20)

void mio_lora_set_free(lora_set *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->m[i].name);
        free(s->m[i].a);
        free(s->m[i].b);
    }
    free(s->m);
    memset(s, 0, sizeof *s);
}

ABI_FROZEN(mio_lora_params, plan_user);

void mio_lora_default_params(mio_lora_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->permute_qk = -1;
}

mio_status mio_lora_default_params_sized(mio_lora_params *p, size_t size) {
    mio_lora_params d;
    mio_lora_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_lora_params");
}

mio_status mio_lora_params_copy(const mio_lora_params *in, mio_lora_params *out) {
    if (!in) return mio_err_set(MIO_ERR_INVALID_ARG, "p is NULL");
    mio_lora_default_params(out);
    /* a struct from an older header gets defaults for what it lacks; a newer
     * header's larger one is read when its unknown tail is zero (docs/ABI.md) */
    mio_status st = mio_abi_params_merge(out, sizeof *out, in, offsetof(mio_lora_params, adapters) + sizeof(char *),
                                         "mio_lora_params", "mio_lora_default_params");
    if (st) return st;
    if (!out->adapters) return mio_err_set(MIO_ERR_INVALID_ARG, "p->adapters is NULL (the adapter path)");
    if (out->alpha_set && !isfinite(out->alpha))
        return mio_err_set(MIO_ERR_INVALID_ARG, "alpha %g is not a finite number", out->alpha);
    if (out->permute_qk < -1 || out->permute_qk > 1)
        return mio_err_set(MIO_ERR_INVALID_ARG, "permute_qk is %d (use -1, 0 or 1)", out->permute_qk);
    return MIO_OK;
}

mio_status mio_lora_open_base(const char *path, mio_gguf_file **out) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "base_path is NULL");
    return mio_gguf_open_model(path, 0, out);
}

void mio_lora_report(const lora_set *s, const mio_lora_params *p, const double *b_factor, float gguf_alpha) {
    if (!p->plan) return;
    for (size_t i = 0; i < s->n; i++) {
        const lora_mod *m = &s->m[i];
        mio_lora_module r = {.adapter_name = m->name, .tensor = m->tensor, .rank = m->rank, .rows = m->rows,
                             .cols = m->cols, .alpha = m->alpha, .scale = m->scale, .permuted = m->permuted,
                             .embedding = m->embedding, .b_factor = b_factor ? b_factor[i] : 1.0,
                             .gguf_alpha = gguf_alpha};
        p->plan(p->plan_user, &r);
    }
}

/* ------------------------------------------------------------------ paths */

static char *path_join(const char *dir, const char *name) {
    size_t dl = strlen(dir), nl = strlen(name);
    char *r = malloc(dl + nl + 2);
    if (!r) return NULL;
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): the copy of name below ends r with its NUL */
    memcpy(r, dir, dl);
    size_t k = dl;
    if (k == 0 || r[k - 1] != '/') r[k++] = '/';
    memcpy(r + k, name, nl + 1);
    return r;
}

static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *r = malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, path, n);
    r[n] = 0;
    return r;
}

static int is_file(const char *p) { struct stat s; return stat(p, &s) == 0 && S_ISREG(s.st_mode); }

/* ------------------------------------------------------------------ PEFT config */

typedef struct peft_cfg {
    double r, alpha;
    int rslora;
    mio_json *root, *rank_pattern, *alpha_pattern;
} peft_cfg;

static mio_status cfg_err(const char *path, const char *key, const char *want) {
    return mio_err_set(MIO_ERR_INVALID_JSON, "%s: \"%s\" must be %s", path, key, want);
}

static mio_status read_config(const char *path, peft_cfg *c) {
    memset(c, 0, sizeof *c);
    c->r = 8;          /* LoraConfig defaults */
    c->alpha = 8;
    mio_region rg = {0};
    mio_status st = mio_region_read(path, &rg);
    if (st) return mio_err_prefix(st, "PEFT adapter config: ");
    if (rg.size > CONFIG_MAX) {
        mio_region_free(&rg);
        return mio_err_set(MIO_ERR_LIMIT, "%s: %zu bytes is too large for an adapter config", path, rg.size);
    }
    mio_json_error je;
    c->root = mio_json_parse_prefix((const char *)rg.data, rg.size, NULL, &je);
    if (!c->root) {
        mio_region_free(&rg);
        if (je.nomem) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", path);
        return mio_err_set(MIO_ERR_INVALID_JSON, "%s: malformed JSON near byte %zu (%s)", path, je.offset, je.reason);
    }
    mio_region_free(&rg);
    if (!mio_json_is_object(c->root)) return mio_err_set(MIO_ERR_INVALID_JSON, "%s: the config is not a JSON object", path);
    const mio_json *v;
    if ((v = mio_json_get(c->root, "peft_type")) && !mio_json_is_null(v)) {
        if (!mio_json_is_string(v)) return cfg_err(path, "peft_type", "a string");
        if (strcmp(v->valuestring, "LORA") != 0) {
            char b[96];
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: peft_type is \"%s\"; only LORA adapters can be merged or converted",
                               path, mio_esc_bytes(b, sizeof b, v->valuestring, strlen(v->valuestring)));
        }
    }
    if ((v = mio_json_get(c->root, "r")) && !mio_json_is_null(v)) {
        if (!mio_json_is_number(v) || v->valuedouble < 1 || v->valuedouble != floor(v->valuedouble) || v->valuedouble > 1e9)
            return cfg_err(path, "r", "a positive integer");
        c->r = v->valuedouble;
    }
    if ((v = mio_json_get(c->root, "lora_alpha")) && !mio_json_is_null(v)) {
        if (!mio_json_is_number(v) || !isfinite(v->valuedouble)) return cfg_err(path, "lora_alpha", "a number");
        c->alpha = v->valuedouble;
    }
    if ((v = mio_json_get(c->root, "use_rslora")) && !mio_json_is_null(v)) {
        if (!mio_json_is_bool(v)) return cfg_err(path, "use_rslora", "true or false");
        c->rslora = mio_json_is_true(v);
    }
    /* fan_in_fan_out only says the BASE weight is stored [in, out] (GPT-2's
     * Conv1D); lora_A/lora_B are saved [r, in] / [out, r] either way, and a GGUF
     * base stores every matrix [out][in], so it changes nothing here. */
    if ((v = mio_json_get(c->root, "fan_in_fan_out")) && !mio_json_is_null(v) && !mio_json_is_bool(v))
        return cfg_err(path, "fan_in_fan_out", "true or false");
    if ((v = mio_json_get(c->root, "use_dora")) && mio_json_is_true(v))
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: use_dora is true: a DoRA adapter (magnitude vectors) is not a plain "
                           "LoRA and cannot be merged or converted here", path);
    if ((v = mio_json_get(c->root, "target_modules")) && !mio_json_is_null(v) && !mio_json_is_string(v) &&
        !mio_json_is_array(v))
        return cfg_err(path, "target_modules", "a string, a list or null");
    if ((v = mio_json_get(c->root, "modules_to_save")) && !mio_json_is_null(v)) {
        if (!mio_json_is_array(v)) return cfg_err(path, "modules_to_save", "a list or null");
        if (mio_json_size(v) > 0) {
            const mio_json *e = mio_json_at(v, 0);
            char b[96];
            const char *nm = mio_json_is_string(e) ? e->valuestring : "?";
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: modules_to_save lists \"%s\": the adapter carries full replacement "
                               "weights for it, which is not a LoRA (B*A) and cannot be merged or converted", path,
                               mio_esc_bytes(b, sizeof b, nm, strlen(nm)));
        }
    }
    const char *pats[2] = {"rank_pattern", "alpha_pattern"};
    for (int k = 0; k < 2; k++) {
        mio_json *o = mio_json_get(c->root, pats[k]);
        if (!o || mio_json_is_null(o)) continue;
        if (!mio_json_is_object(o)) return cfg_err(path, pats[k], "an object");
        for (const mio_json *e = o->child; e; e = e->next) {
            char b[96];
            if (!mio_json_is_number(e) || !isfinite(e->valuedouble) ||
                (k == 0 && (e->valuedouble < 1 || e->valuedouble != floor(e->valuedouble) || e->valuedouble > 1e9)))
                return mio_err_set(MIO_ERR_INVALID_JSON, "%s: %s[\"%s\"] must be %s", path, pats[k],
                                   mio_esc_bytes(b, sizeof b, e->string, strlen(e->string)),
                                   k == 0 ? "a positive integer" : "a number");
        }
        if (k == 0) c->rank_pattern = o;
        else c->alpha_pattern = o;
    }
    return MIO_OK;
}

/* PEFT's get_pattern_key: the first key (in file order) for which the regular
 * expression "(.*\.)?(KEY)$" matches the module name from its start. Read as
 * POSIX extended syntax (the Python patterns PEFT users write — plain names,
 * dots, alternations, character classes — mean the same there). */
static mio_status pattern_lookup(const mio_json *o, const char *module, const char *what, const mio_json **hit) {
    *hit = NULL;
    if (!o) return MIO_OK;
    for (const mio_json *e = o->child; e; e = e->next) {
        size_t kl = strlen(e->string);
        char *re = malloc(kl + 16);
        if (!re) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        snprintf(re, kl + 16, "^(.*\\.)?(%s)$", e->string);
        regex_t rx;
        int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
        free(re);
        if (rc != 0) {
            char b[96];
            if (rc == REG_ESPACE) return mio_err_set(MIO_ERR_NOMEM, "out of memory compiling a regular expression");
            return mio_err_set(MIO_ERR_INVALID_JSON, "adapter_config.json: %s key \"%s\" is not a valid regular expression",
                               what, mio_esc_bytes(b, sizeof b, e->string, kl));
        }
        rc = regexec(&rx, module, 0, NULL, 0);
        regfree(&rx);
        if (rc == 0) { *hit = e; return MIO_OK; }
    }
    return MIO_OK;
}

/* ------------------------------------------------------------------ tensors */

static mio_status to_f32(const mio_st_file *st, int64_t idx, float *dst, size_t n, const char *name) {
    mio_st_tensor t;
    mio_status s = mio_st_tensor_info(st, idx, &t);
    if (s) return s;
    const uint8_t *p = t.data;
    for (size_t i = 0; i < n; i++) {
        float v;
        if (t.dtype == MIO_ST_F32) memcpy(&v, p + 4 * i, 4);
        else {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            v = t.dtype == MIO_ST_F16 ? half_to_f32(h) : bf16_to_f32(h);
        }
        if (!isfinite(v))
            return mio_err_set(MIO_ERR_NON_FINITE, "adapter tensor '%s': element %zu is not finite (%g)", name, i, (double)v);
        dst[i] = v;
    }
    return MIO_OK;
}

static mio_status find_or_add(lora_set *s, const char *module, size_t len, lora_mod **out) {
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->m[i].name) == len && memcmp(s->m[i].name, module, len) == 0) { *out = &s->m[i]; return MIO_OK; }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        lora_mod *nm = realloc(s->m, nc * sizeof *nm);
        if (!nm) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        s->m = nm;
        s->cap = nc;
    }
    lora_mod *m = &s->m[s->n];
    memset(m, 0, sizeof *m);
    m->ia = m->ib = -1;
    if (!(m->name = malloc(len + 1))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(m->name, module, len);
    m->name[len] = 0;
    s->n++;
    *out = m;
    return MIO_OK;
}

static int ends_with(const char *s, size_t n, const char *suf, size_t *stem) {
    size_t k = strlen(suf);
    if (n < k || memcmp(s + n - k, suf, k) != 0) return 0;
    *stem = n - k;
    return 1;
}

/* Pair the file's tensors into modules. */
static mio_status pair_tensors(const mio_st_file *st, const char *path, int kind, lora_set *s) {
    int64_t n = mio_st_tensor_count(st);
    for (int64_t i = 0; i < n; i++) {
        mio_st_tensor t;
        mio_status r = mio_st_tensor_info(st, i, &t);
        if (r) return r;
        char b[160];
        const char *nm = t.name.ptr;
        size_t nl = t.name.len, stem = 0;
        int is_b = 0, emb = 0, ok = 0;
        if (memchr(nm, 0, nl))
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tensor name '%s' holds a NUL byte", path, mio_esc_bytes(b, sizeof b, nm, nl));
        if (kind == LORA_PEFT) {
            if (nl < sizeof PEFT_PREFIX - 1 || memcmp(nm, PEFT_PREFIX, sizeof PEFT_PREFIX - 1) != 0)
                return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tensor '%s' does not start with \"" PEFT_PREFIX "\" as a PEFT "
                                   "adapter's names do", path, mio_esc_bytes(b, sizeof b, nm, nl));
            nm += sizeof PEFT_PREFIX - 1;
            nl -= sizeof PEFT_PREFIX - 1;
            /* save_pretrained's save_embedding_layers ("auto" by default when embed_tokens or
             * lm_head is targeted) also stores the base's own embedding weights as
             * <module>.base_layer.weight: not part of the LoRA; llama.cpp's
             * convert_lora_to_gguf.py skips them too. */
            size_t bl;
            if (ends_with(nm, nl, ".base_layer.weight", &bl) &&
                ((bl >= 12 && memcmp(nm + bl - 12, "embed_tokens", 12) == 0) ||
                 (bl >= 7 && memcmp(nm + bl - 7, "lm_head", 7) == 0)))
                continue;
            if (ends_with(nm, nl, ".lora_A.weight", &stem)) ok = 1;
            else if (ends_with(nm, nl, ".lora_B.weight", &stem)) ok = 1, is_b = 1;
            else if (ends_with(nm, nl, ".lora_embedding_A", &stem)) ok = 1, emb = 1;
            else if (ends_with(nm, nl, ".lora_embedding_B", &stem)) ok = 1, emb = 1, is_b = 1;
        } else {
            if (nl < 7 || memcmp(nm, "layers.", 7) != 0)
                return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tensor '%s' does not start with \"layers.\" as a Fucina adapter's "
                                   "names do", path, mio_esc_bytes(b, sizeof b, nm, nl));
            if (ends_with(nm, nl, ".lora_a", &stem)) ok = 1;
            else if (ends_with(nm, nl, ".lora_b", &stem)) ok = 1, is_b = 1;
        }
        if (!ok || stem == 0)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: tensor '%s' is not a LoRA A or B matrix (%s)", path,
                               mio_esc_bytes(b, sizeof b, t.name.ptr, t.name.len),
                               kind == LORA_PEFT ? "names end in .lora_A.weight, .lora_B.weight, .lora_embedding_A or "
                                               ".lora_embedding_B; full weights (modules_to_save) are not a LoRA" : "names end in .lora_a or .lora_b");
        lora_mod *m = NULL;
        if ((r = find_or_add(s, nm, stem, &m)) != MIO_OK) return r;
        if (m->ia < 0 && m->ib < 0) m->embedding = emb; /* first half seen */
        if (m->embedding != emb)
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s: module '%s' mixes lora_A/lora_B with lora_embedding_A/B tensors", path,
                               m->name);
        int64_t *slot = is_b ? &m->ib : &m->ia;
        if (*slot >= 0)
            return mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "%s: module '%s' has two %s tensors", path, m->name, is_b ? "B" : "A");
        *slot = i;
    }
    return MIO_OK;
}

/* n_head for a q (kv = 0) or k (kv = 1) weight of layer `layer`. */
static mio_status head_count(const mio_gguf_file *f, const char *arch, size_t al, int kv, int64_t layer, int64_t *out) {
    char key[160];
    for (int pass = kv; pass >= 0; pass--) {
        snprintf(key, sizeof key, "%.*s.attention.%s", (int)(al < 100 ? al : 100), arch,
                 pass ? "head_count_kv" : "head_count");
        int64_t k = mio_gguf_find_key(f, key);
        if (k < 0) continue;
        uint64_t v = 0;
        mio_status st = mio_gguf_kv_type(f, k) == MIO_GGUF_ARRAY ? mio_gguf_arr_u64(f, k, (uint64_t)layer, &v)
                                                                 : mio_gguf_kv_u64(f, k, &v);
        if (st) return mio_err_prefix(st, "base key %s (layer %lld): ", key, (long long)layer);
        if (v == 0) return mio_err_set(MIO_ERR_INVALID_ARG, "base key %s is 0", key);
        *out = (int64_t)v;
        return MIO_OK;
    }
    return mio_err_set(MIO_ERR_NOT_FOUND, "the base has no %.*s.attention.head_count, needed to permute q/k rows as the HF -> "
                       "GGUF conversion did", (int)(al < 100 ? al : 100), arch);
}

static const char *type_nm(int t) { const char *s = mio_type_name(t); return s ? s : "?"; }

static int cmp_mod(const void *x, const void *y) {
    const lora_mod *a = x, *b = y;
    return a->base_index < b->base_index ? -1 : a->base_index > b->base_index;
}

/* Fill one module: names, shapes, rank, scale, f32 data. */
static mio_status check_module(const mio_gguf_file *base, const mio_st_file *st, const char *path, int kind,
                               const peft_cfg *cfg, const mio_lora_params *p, int permute, const char *arch, size_t al,
                               int float_base, lora_mod *m) {
    char b[160];
    if (m->ia < 0 || m->ib < 0)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: module '%s' has %s but no %s (a lone LoRA half cannot be applied)",
                           path, m->name, m->ia < 0 ? "a B matrix" : "an A matrix", m->ia < 0 ? "A" : "B");
    mio_st_tensor ta, tb;
    mio_status r;
    if ((r = mio_st_tensor_info(st, m->ia, &ta)) || (r = mio_st_tensor_info(st, m->ib, &tb))) return r;
    const mio_st_tensor *tt[2] = {&ta, &tb};
    for (int k = 0; k < 2; k++) {
        if (tt[k]->n_dims != 2)
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "%s: '%s' has %u dimensions; a LoRA matrix has 2", path,
                               mio_esc_bytes(b, sizeof b, tt[k]->name.ptr, tt[k]->name.len), tt[k]->n_dims);
        if (tt[k]->dtype != MIO_ST_F32 && tt[k]->dtype != MIO_ST_F16 && tt[k]->dtype != MIO_ST_BF16)
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: '%s' is %s; LoRA matrices must be F32, F16 or BF16", path,
                               mio_esc_bytes(b, sizeof b, tt[k]->name.ptr, tt[k]->name.len), mio_st_dtype_name(tt[k]->dtype));
        if (tt[k]->shape[0] == 0 || tt[k]->shape[1] == 0 || tt[k]->shape[0] > ((uint64_t)1 << 31) ||
            tt[k]->shape[1] > ((uint64_t)1 << 31))
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "%s: '%s' has shape [%llu, %llu]", path,
                               mio_esc_bytes(b, sizeof b, tt[k]->name.ptr, tt[k]->name.len),
                               (unsigned long long)tt[k]->shape[0], (unsigned long long)tt[k]->shape[1]);
    }
    /* A [r, in] and B [out, r]; for embeddings A [r, vocab] and B [embd, r] */
    int64_t ra = (int64_t)ta.shape[0], rb = (int64_t)tb.shape[1];
    if (ra != rb)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: module '%s': rank mismatch: A is [%llu, %llu] (rank %lld) but B is "
                           "[%llu, %llu] (rank %lld)", path, m->name, (unsigned long long)ta.shape[0],
                           (unsigned long long)ta.shape[1], (long long)ra, (unsigned long long)tb.shape[0],
                           (unsigned long long)tb.shape[1], (long long)rb);
    m->rank = ra;
    int64_t layer = -1;
    if (kind == LORA_PEFT ? !mio_lora_name_peft(m->name, m->tensor, &layer) : !mio_lora_name_fucina(m->name, m->tensor, &layer))
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: module '%s' has no GGUF tensor name (known modules: %s)", path, m->name,
                           kind == LORA_PEFT ? mio_lora_peft_names_help : mio_lora_fucina_names_help);
    int is_embd = strcmp(m->tensor, "token_embd.weight") == 0;
    if (is_embd != m->embedding)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: module '%s': %s", path, m->name,
                           m->embedding ? "lora_embedding_A/B only apply to model.embed_tokens"
                                    : "token embeddings take lora_embedding_A/B, not lora_A/lora_B");
    m->base_index = mio_gguf_find_tensor(base, m->tensor);
    if (m->base_index < 0)
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: module '%s' targets '%s', which the base does not have%s", path, m->name,
                           m->tensor, strcmp(m->tensor, "output.weight") == 0 ? " (tied embeddings: no separate output matrix)" : "");
    mio_gguf_tensor bt;
    if ((r = mio_gguf_tensor_info(base, m->base_index, &bt)) != MIO_OK) return r;
    if (float_base && bt.type != MIO_TYPE_F32 && bt.type != MIO_TYPE_F16 && bt.type != MIO_TYPE_BF16)
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "base tensor '%s' is %s: a LoRA merge needs an f32/f16/bf16 base "
                           "(QuantizedBaseUnsupported): merge on an f32/f16/bf16 base, then quantize in a second pass "
                           "(mio-export-gguf --dtype or --preset)", m->tensor, type_nm(bt.type));
    if (m->embedding) { m->rows = (int64_t)ta.shape[1]; m->cols = (int64_t)tb.shape[0]; }
    else { m->rows = (int64_t)tb.shape[0]; m->cols = (int64_t)ta.shape[1]; }
    if (bt.n_dims != 2 || bt.ne[0] != m->cols || bt.ne[1] != m->rows)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: module '%s': shape mismatch: base tensor '%s' is [%lld, %lld] (rows, cols; "
                           "ne [%lld, %lld]%s) but the adapter's delta is [%lld, %lld] (A [%llu, %llu], B [%llu, %llu])", path,
                           m->name, m->tensor, (long long)bt.ne[1], (long long)bt.ne[0], (long long)bt.ne[0],
                           (long long)bt.ne[1], bt.n_dims != 2 ? ", not a matrix" : "", (long long)m->rows, (long long)m->cols,
                           (unsigned long long)ta.shape[0], (unsigned long long)ta.shape[1],
                           (unsigned long long)tb.shape[0], (unsigned long long)tb.shape[1]);
    /* rank and alpha */
    double alpha = 0;
    if (kind == LORA_PEFT) {
        const mio_json *hit = NULL;
        double r_cfg = cfg->r;
        if ((r = pattern_lookup(cfg->rank_pattern, m->name, "rank_pattern", &hit)) != MIO_OK) return r;
        if (hit) r_cfg = hit->valuedouble;
        if ((double)m->rank != r_cfg)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: module '%s': rank mismatch: adapter_config.json gives r = %.0f%s%s%s "
                               "but its A and B have rank %lld", path, m->name, r_cfg, hit ? " (rank_pattern \"" : "",
                               hit ? hit->string : "", hit ? "\")" : "", (long long)m->rank);
        alpha = cfg->alpha;
        if ((r = pattern_lookup(cfg->alpha_pattern, m->name, "alpha_pattern", &hit)) != MIO_OK) return r;
        if (hit) alpha = hit->valuedouble;
    } else if (!p->alpha_set) {
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: a Fucina adapter stores no alpha: give one (--alpha; `zig build finetune` "
                           "defaults to 16)", path);
    }
    if (p->alpha_set) alpha = p->alpha;
    m->alpha = alpha;
    m->scale = kind == LORA_PEFT && cfg->rslora ? alpha / sqrt((double)m->rank) : alpha / (double)m->rank;
    /* data */
    size_t na = (size_t)(ta.shape[0] * ta.shape[1]), nb = (size_t)(tb.shape[0] * tb.shape[1]);
    float *fa = malloc(na * sizeof(float)), *fb = malloc(nb * sizeof(float));
    if (!fa || !fb) { free(fa); free(fb); return mio_err_set(MIO_ERR_NOMEM, "cannot allocate module '%s' in f32", m->name); }
    char na_s[160], nb_s[160];
    mio_esc_bytes(na_s, sizeof na_s, ta.name.ptr, ta.name.len);
    mio_esc_bytes(nb_s, sizeof nb_s, tb.name.ptr, tb.name.len);
    if ((r = to_f32(st, m->ia, fa, na, na_s)) || (r = to_f32(st, m->ib, fb, nb, nb_s))) { free(fa); free(fb); return r; }
    if (m->embedding) {
        /* a = B^T [r][embd], b = A^T [vocab][r] */
        float *a2 = malloc(nb * sizeof(float)), *b2 = malloc(na * sizeof(float));
        if (!a2 || !b2) { free(fa); free(fb); free(a2); free(b2); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
        /* fb and fa hold cols * rank and rank * rows values, all written by to_f32 */
        for (int64_t e = 0; e < m->cols; e++)
            /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
            for (int64_t k = 0; k < m->rank; k++) a2[k * m->cols + e] = fb[e * m->rank + k];
        for (int64_t k = 0; k < m->rank; k++)
            /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
            for (int64_t v = 0; v < m->rows; v++) b2[v * m->rank + k] = fa[k * m->rows + v];
        free(fa); free(fb);
        fa = a2; fb = b2;
    }
    m->a = fa;
    m->b = fb;
    int is_q = strstr(m->tensor, ".attn_q.weight") != NULL, is_k = strstr(m->tensor, ".attn_k.weight") != NULL;
    if (permute && kind == LORA_PEFT && (is_q || is_k)) {
        int64_t nh = 0;
        if ((r = head_count(base, arch, al, is_k, layer, &nh)) != MIO_OK) return r;
        if (m->rows % (2 * nh) != 0)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "module '%s': %lld rows do not split into %lld heads of an even size, as the "
                               "q/k permutation needs", m->name, (long long)m->rows, (long long)nh);
        float *pb = malloc(nb * sizeof(float));
        if (!pb) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        mio_lora_permute_rows(m->b, pb, m->rows, m->rank, nh);
        free(m->b);
        m->b = pb;
        m->permuted = 1;
    }
    return MIO_OK;
}

mio_status mio_lora_load(const mio_gguf_file *base, const mio_lora_params *p, int float_base, lora_set *out) {
    const char *ap = p->adapters;
    char *st_path = NULL, *cfg_path = NULL;
    mio_st_file *st = NULL;
    peft_cfg cfg = {0};
    lora_set s = {0};
    mio_status r = MIO_OK;
    struct stat sb;
    if (stat(ap, &sb) != 0) return mio_err_set(MIO_ERR_NOT_FOUND, "adapter %s: no such file or directory", ap);
    if (S_ISDIR(sb.st_mode)) {
        char *c = path_join(ap, "adapter_config.json"), *f = path_join(ap, "adapters.safetensors");
        if (!c || !f) { free(c); free(f); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
        if (is_file(c)) {
            s.kind = LORA_PEFT;
            cfg_path = c;
            free(f);
            st_path = path_join(ap, "adapter_model.safetensors");
            if (!st_path) r = mio_err_set(MIO_ERR_NOMEM, "out of memory");
            else if (!is_file(st_path))
                r = mio_err_set(MIO_ERR_NOT_FOUND, "adapter %s: a PEFT directory (adapter_config.json) without "
                                "adapter_model.safetensors%s", ap, "; an adapter_model.bin (pickle) must be re-saved with "
                                "safe_serialization=True");
        } else if (is_file(f)) {
            s.kind = LORA_FUCINA;
            st_path = f;
            free(c);
        } else {
            free(c); free(f);
            return mio_err_set(MIO_ERR_NOT_FOUND, "adapter %s: the directory holds neither adapter_config.json (a PEFT adapter) "
                               "nor adapters.safetensors (a Fucina checkpoint)", ap);
        }
    } else {
        if (!(st_path = strdup(ap))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    if (!r) r = mio_st_open(st_path, MIO_OPEN_MMAP, &st);
    if (!r && mio_st_tensor_count(st) == 0)
        r = mio_err_set(MIO_ERR_INVALID_ARG, "adapter %s: empty adapter set (the file holds no tensors)", st_path);
    if (!r && s.kind == 0) {
        /* a file: its names decide */
        mio_st_tensor t;
        if (!(r = mio_st_tensor_info(st, 0, &t))) {
            char b[160];
            if (t.name.len >= sizeof PEFT_PREFIX - 1 && memcmp(t.name.ptr, PEFT_PREFIX, sizeof PEFT_PREFIX - 1) == 0) {
                s.kind = LORA_PEFT;
                char *d = dir_of(st_path);
                cfg_path = d ? path_join(d, "adapter_config.json") : NULL;
                free(d);
                if (!cfg_path) r = mio_err_set(MIO_ERR_NOMEM, "out of memory");
                else if (!is_file(cfg_path))
                    r = mio_err_set(MIO_ERR_NOT_FOUND, "adapter %s: a PEFT adapter (names start with \"" PEFT_PREFIX "\") "
                                    "needs its adapter_config.json beside it (%s)", st_path, cfg_path);
            } else if (t.name.len >= 7 && memcmp(t.name.ptr, "layers.", 7) == 0) {
                s.kind = LORA_FUCINA;
            } else {
                r = mio_err_set(MIO_ERR_INVALID_ARG, "adapter %s: not a LoRA adapter: its tensor '%s' starts neither with \""
                                PEFT_PREFIX "\" (PEFT) nor with \"layers.\" (Fucina)", st_path,
                                mio_esc_bytes(b, sizeof b, t.name.ptr, t.name.len));
            }
        }
    }
    if (!r && s.kind == LORA_PEFT) r = read_config(cfg_path, &cfg);
    if (!r) r = pair_tensors(st, st_path, s.kind, &s);
    if (!r && s.n == 0) /* every tensor was skipped: qsort below must not get s.m == NULL */
        r = mio_err_set(MIO_ERR_INVALID_ARG, "adapter %s: empty adapter set (its only tensors are copies of the base's own "
                        "weights, which are not part of a LoRA)", st_path);
    int permute = 0;
    mio_str arch = {0};
    if (!r) {
        int64_t ka = mio_gguf_find_key(base, "general.architecture");
        if (ka >= 0) (void)mio_gguf_kv_str(base, ka, &arch);
        permute = p->permute_qk >= 0 ? p->permute_qk : (arch.ptr && mio_lora_arch_permutes_qk(arch.ptr, arch.len));
    }
    for (size_t i = 0; i < s.n && !r; i++)
        r = check_module(base, st, st_path, s.kind, &cfg, p, permute, arch.ptr ? arch.ptr : "", arch.len, float_base,
                         &s.m[i]);
    if (!r) {
        qsort(s.m, s.n, sizeof *s.m, cmp_mod);
        for (size_t i = 1; i < s.n && !r; i++)
            if (s.m[i].base_index == s.m[i - 1].base_index)
                r = mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "adapter %s: modules '%s' and '%s' both target '%s'", st_path,
                                s.m[i - 1].name, s.m[i].name, s.m[i].tensor);
    }
    mio_json_free(cfg.root);
    mio_st_close(st);
    free(st_path);
    free(cfg_path);
    if (r) { mio_lora_set_free(&s); return r; }
    *out = s;
    return MIO_OK;
}
