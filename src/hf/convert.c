/* SPDX-License-Identifier: MIT */
/* convert.c — mio_hf_convert: a Hugging Face checkpoint directory to GGUF, as
 * convert_hf_to_gguf.py (llama-cpp-python 0.3.36's vendored llama.cpp) writes
 * it. The order of work follows the reference: index the shards (sorted part
 * names, tensors sorted by name within a part), choose the file type, map and
 * check every tensor, then lay out the metadata (general.*, the architecture's
 * hyperparameters, general.file_type and quantization_version, the tokenizer)
 * and stream the tensors one chunk of rows at a time through pread, so memory
 * holds a fixed working set whatever the model's size. Invariant: every check
 * (names, shapes, dtypes, the vocabulary) is made before the first byte is
 * written, and a failure leaves no file of any name behind. */
#include "hf/hf_arch.h"

#include "core/core.h"
#include "core/half.h"
#include "core/pool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

ABI_FROZEN(mio_hf_params, progress_user);

#define HF_MAX_JSON ((size_t)256 << 20) /* config/index files: far above any real one */
#define HF_CHUNK_ELEMS ((size_t)1 << 20) /* f32 elements per conversion chunk (4 MiB) */

void mio_hf_default_params(mio_hf_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->outtype = MIO_HF_OUT_AUTO;
    p->preset = MIO_PRESET_NONE;
}

mio_status mio_hf_default_params_sized(mio_hf_params *p, size_t size) {
    mio_hf_params d;
    mio_hf_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_hf_params");
}

/* ------------------------------------------------------------ small helpers */

static char *path_join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    snprintf(p, a + b + 2, "%s%s%s", dir, a && dir[a - 1] != '/' ? "/" : "", name);
    return p;
}

/* Read and parse the JSON file dir/name (at most 256 MiB). optional: a missing
 * file gives MIO_OK with *out NULL. Errors name the path (MIO_ERR_INVALID_JSON
 * with the byte offset for bad syntax). Free with mio_json_free. */
static mio_status hf_read_json(const char *dir, const char *name, bool optional, mio_json **out) {
    *out = NULL;
    char *path = path_join(dir, name);
    if (!path) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        int e = errno;
        mio_status st = MIO_OK;
        if (!(optional && e == ENOENT))
            st = mio_err_set(e == ENOENT ? MIO_ERR_NOT_FOUND : MIO_ERR_IO, "%s: %s", path, strerror(e));
        free(path);
        return st;
    }
    mio_status st = MIO_OK;
    char *buf = NULL;
    struct stat sb;
    if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = mio_err_set(MIO_ERR_IO, "%s: not a regular file", path);
        goto done;
    }
    if ((uint64_t)sb.st_size > HF_MAX_JSON) {
        st = mio_err_set(MIO_ERR_LIMIT, "%s: %llu bytes, more than the %zu a JSON file may have here", path,
                         (unsigned long long)sb.st_size, HF_MAX_JSON);
        goto done;
    }
    size_t n = (size_t)sb.st_size;
    buf = malloc(n + 1);
    if (!buf) {
        st = mio_err_set(MIO_ERR_NOMEM, "out of memory reading %s", path);
        goto done;
    }
    if (fread(buf, 1, n, fp) != n) {
        st = mio_err_set(MIO_ERR_IO, "%s: short read", path);
        goto done;
    }
    buf[n] = 0;
    mio_json_error je;
    mio_json *j = mio_json_parse_prefix(buf, n, NULL, &je);
    if (!j) {
        st = je.nomem ? mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", path)
                      : mio_err_set(MIO_ERR_INVALID_JSON, "%s: not valid JSON (error near byte %zu: %s)", path, je.offset,
                                    je.reason);
        goto done;
    }
    *out = j;
done:
    free(buf);
    fclose(fp);
    free(path);
    return st;
}

/* Python's `key in hparams` and the value: NULL when absent; a JSON null is present. */
static const mio_json *jget(const mio_json *o, const char *key) { return mio_json_get(o, key); }

/* find_hparam(keys, optional=True): the first key present, its value (NULL for a JSON null). */
static const mio_json *find_hparam(const mio_json *o, const char *const *keys, const char **which) {
    for (size_t i = 0; keys[i]; i++) {
        const mio_json *v = jget(o, keys[i]);
        if (v) {
            if (which) *which = keys[i];
            return mio_json_is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

static mio_status json_u32(const mio_json *v, const char *file, const char *key, uint32_t *out) {
    if (!mio_json_is_number(v) || !(v->valuedouble >= 0) || v->valuedouble > 4294967295.0 ||
        v->valuedouble != floor(v->valuedouble))
        return mio_err_set(MIO_ERR_INVALID_JSON, "%s: \"%s\" must be an integer in 0..4294967295", file, key);
    *out = (uint32_t)v->valuedouble;
    return MIO_OK;
}

static mio_status json_num(const mio_json *v, const char *file, const char *key, double *out) {
    if (!mio_json_is_number(v)) return mio_err_set(MIO_ERR_INVALID_JSON, "%s: \"%s\" must be a number", file, key);
    *out = v->valuedouble;
    return MIO_OK;
}

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && memcmp(s + a - b, suf, b) == 0;
}

/* ------------------------------------------------------------- the context */

typedef struct hf_src {
    char *name;          /* after filter_tensors */
    char *orig;          /* as stored: the reference orders a part's tensors by it */
    uint32_t part;
    int64_t index;       /* in that part's mio_st_file */
} hf_src;

typedef struct hf_item {
    char name[HF_NAME_MAX];
    const char *source;  /* hf name or "" */
    int64_t src;         /* index into ctx.src; -1 - k for generated tensor k */
    int64_t *xsrc;       /* an expert stack: the ctx.src index of each expert, in expert order (src is xsrc[0]) */
    const hf_tensor_rule *gather; /* a rearranged part of the source (hf_tensor_rule.gather) */
    const hf_tensor_rule *mx;     /* an MXFP4 pair (hf_tensor_rule.mxfp4): src the blocks, src2 the scales */
    int64_t src2;
    uint64_t g_outer, g_a, g_b;   /* ... its source viewed as g_outer slices of [g_a, g_b] */
    int src_dtype;
    uint32_t n_dims;
    int64_t ne[4];
    int type;
    int permute;         /* HF_PERMUTE_* applied */
    bool add_one;        /* hf_arch.norm_plus_one: + 1 */
    uint64_t nbytes;
    uint32_t file;       /* output file */
} hf_item;

typedef struct hf_ctx {
    const char *dir;
    const mio_hf_params *p;
    const char *weights_base;   /* the weights read remotely under this URI prefix (mio_hub_convert's stream), or NULL */
    const char *const *weight_files; /* then: the repo's file names (what list_parts lists) */
    size_t n_weight_files;
    mio_json *config_raw;   /* config.json as read */
    mio_json *config;       /* text_config merged into the root */
    const hf_arch *arch;
    hf_dims d;
    char **part_names;
    uint32_t n_parts;
    mio_st_file **parts;
    hf_src *src;
    size_t n_src;
    hf_item *items;
    size_t n_items;
    int ftype_type;      /* ggml type of the file type (F32/F16/BF16/Q8_0/TQ1_0/TQ2_0) */
    float *gen[2];       /* the generated tensors' data (rope_freqs; rope_factors_long / _short) */
    int64_t n_gen[2];
    bool has_attn_factor; /* longrope: rope.scaling.attn_factor, written after general.architecture */
    int pooling_type;     /* hf_arch.pooling: gguf PoolingType of the sentence-transformers module, -1 none */
    int classifier_pooling; /* ... of config.json's classifier_pooling, -1 none */
    double attn_factor;
    bool mxfp4;           /* config.json's quantization_config: quant_method mxfp4 (gpt-oss as published) */
} hf_ctx;

static void ctx_free(hf_ctx *c) {
    mio_json_free(c->config_raw);
    mio_json_free(c->config);
    for (uint32_t i = 0; i < c->n_parts; i++) {
        free(c->part_names[i]);
        if (c->parts) mio_st_close(c->parts[i]);
    }
    free(c->part_names);
    free(c->parts);
    for (size_t i = 0; i < c->n_src; i++) free(c->src[i].name), free(c->src[i].orig);
    free(c->src);
    for (size_t i = 0; c->items && i < c->n_items; i++) free(c->items[i].xsrc);
    free(c->items);
    free(c->gen[0]);
    free(c->gen[1]);
}

/* ------------------------------------------------------------------ config */

static mio_status load_config(hf_ctx *c) {
    mio_status st = hf_read_json(c->dir, "config.json", false, &c->config_raw);
    if (st) return mio_err_prefix(st, "checkpoint %s: ", c->dir);
    if (!mio_json_is_object(c->config_raw)) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: not a JSON object", c->dir);
    char file[4096];
    snprintf(file, sizeof file, "%s/config.json", c->dir);
    if ((st = mio_hf_hparams(c->config_raw, file, &c->config))) return st;
    /* TextModel: {**hparams, **hparams["text_config"]} (text_config as its own
     * config class filled it: hparams.c) */
    mio_json *tc = mio_json_dup(jget(c->config, "text_config"));
    if (jget(c->config, "text_config") && !tc) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (mio_json_is_object(tc))
        for (const mio_json *it = tc->child; it; it = it->next) {
            mio_json *dup = mio_json_dup(it);
            if (!dup) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
            bool ok = jget(c->config, it->string) ? mio_json_replace(c->config, it->string, dup)
                                                  : mio_json_add(c->config, it->string, dup);
            if (!ok) { /* (the item stays ours) */
                mio_json_free(dup);
                mio_json_free(tc);
                return mio_err_set(MIO_ERR_NOMEM, "out of memory");
            }
        }
    mio_json_free(tc);
    const mio_json *qc = jget(c->config, "quantization_config");
    const mio_json *qm = mio_json_is_object(qc) ? jget(qc, "quant_method") : NULL;
    c->mxfp4 = mio_json_is_string(qm) && strcmp(qm->valuestring, "mxfp4") == 0;
    const mio_json *archs = jget(c->config_raw, "architectures");
    const mio_json *a0 = mio_json_is_array(archs) ? mio_json_at(archs, 0) : NULL;
    if (!a0 || !mio_json_is_string(a0))
        return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: no \"architectures\" list naming the model class", c->dir);
    c->arch = mio_hf_arch_find(a0->valuestring);
    if (!c->arch)
        return mio_err_set(MIO_ERR_UNSUPPORTED,
                           "%s/config.json: architecture %s is not one this converter knows (mio-convert-hf "
                           "--list-architectures lists the classes it converts)",
                           c->dir, a0->valuestring);
    return MIO_OK;
}

static mio_status cfg_dim(const hf_ctx *c, const char *const *keys, bool required, int64_t dflt, int64_t *out) {
    const char *which = keys[0];
    const mio_json *v = find_hparam(c->config, keys, &which);
    if (!v) {
        if (required) return mio_err_set(MIO_ERR_NOT_FOUND, "%s/config.json: \"%s\" is missing", c->dir, keys[0]);
        *out = dflt;
        return MIO_OK;
    }
    uint32_t u = 0;
    mio_status st = json_u32(v, "config.json", which, &u);
    if (st) return mio_err_prefix(st, "%s/", c->dir);
    *out = u;
    return MIO_OK;
}

static mio_status load_dims(hf_ctx *c) {
    static const char *const k_layers[] = {"n_layers", "num_hidden_layers", "n_layer", "num_layers", NULL};
    static const char *const k_hidden[] = {"hidden_size", "n_embd", "dim", NULL};
    static const char *const k_ff[] = {"prefix_dense_intermediate_size", "dense_intermediate_size", "intermediate_size",
                                       "n_inner", "hidden_dim", NULL};
    static const char *const k_head[] = {"num_attention_heads", "n_head", "n_heads", NULL};
    static const char *const k_kv[] = {"num_key_value_heads", "n_kv_heads", NULL};
    static const char *const k_vocab[] = {"vocab_size", NULL};
    static const char *const k_hd[] = {"head_dim", NULL};
    hf_dims *d = &c->d;
    mio_status st;
    if ((st = cfg_dim(c, k_layers, true, 0, &d->n_layer)) || (st = cfg_dim(c, k_hidden, true, 0, &d->hidden)) ||
        (st = cfg_dim(c, k_ff, true, 0, &d->ff)) || (st = cfg_dim(c, k_head, true, 0, &d->n_head)) ||
        (st = cfg_dim(c, k_vocab, true, 0, &d->vocab)))
        return st;
    if (d->n_head == 0) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: num_attention_heads is 0", c->dir);
    if ((st = cfg_dim(c, k_kv, false, d->n_head, &d->n_head_kv)) ||
        (st = cfg_dim(c, k_hd, false, d->hidden / d->n_head, &d->head_dim)))
        return st;
    if (d->n_head_kv == 0) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: num_key_value_heads is 0", c->dir);
    static const char *const k_pos[] = {"max_position_embeddings", NULL};
    static const char *const k_types[] = {"type_vocab_size", NULL};
    if ((st = cfg_dim(c, k_pos, false, 0, &d->n_pos)) || (st = cfg_dim(c, k_types, false, 2, &d->n_types))) return st;
    static const char *const k_nexp[] = {"num_local_experts", "num_experts", "n_routed_experts", NULL};
    static const char *const k_ffexp[] = {"moe_intermediate_size", NULL};
    static const char *const k_ffsh[] = {"shared_expert_intermediate_size", NULL};
    static const char *const k_nsh[] = {"n_shared_experts", NULL};
    int64_t n_shared = 1;
    if ((st = cfg_dim(c, k_nexp, false, 0, &d->n_expert)) || (st = cfg_dim(c, k_ffexp, false, d->ff, &d->ff_exp)) ||
        (st = cfg_dim(c, k_nsh, false, 1, &n_shared)) || (st = cfg_dim(c, k_ffsh, false, d->ff_exp * n_shared, &d->ff_shexp)))
        return st;
    static const char *const k_ql[] = {"q_lora_rank", NULL}, *const k_kl[] = {"kv_lora_rank", NULL};
    static const char *const k_qn[] = {"qk_nope_head_dim", NULL}, *const k_qr[] = {"qk_rope_head_dim", NULL};
    static const char *const k_vh[] = {"v_head_dim", NULL};
    if ((st = cfg_dim(c, k_ql, false, 0, &d->q_lora)) || (st = cfg_dim(c, k_kl, false, 512, &d->kv_lora)) ||
        (st = cfg_dim(c, k_qn, false, 0, &d->qk_nope)) || (st = cfg_dim(c, k_qr, false, 0, &d->qk_rope)) ||
        (st = cfg_dim(c, k_vh, false, 0, &d->v_head)))
        return st;
    if (d->n_expert > 4096)
        return mio_err_set(MIO_ERR_LIMIT, "%s/config.json: %lld experts (more than 4096 are refused)", c->dir,
                           (long long)d->n_expert);
    return MIO_OK;
}

/* Whether block b is a mixture-of-experts block, as the transformers classes
 * decide: there are experts, b is not one of the first first_k_dense_replace
 * blocks (DeepSeek) nor in mlp_only_layers, and b + 1 is a multiple of
 * decoder_sparse_step (Qwen2-MoE / Qwen3-MoE). */
static bool block_is_moe(const hf_ctx *c, int64_t b) {
    if (c->d.n_expert <= 0) return false;
    const mio_json *k = jget(c->config, "first_k_dense_replace");
    if (mio_json_is_number(k) && (double)b < k->valuedouble) return false;
    const mio_json *only = jget(c->config, "mlp_only_layers");
    for (const mio_json *it = mio_json_is_array(only) ? only->child : NULL; it; it = it->next)
        if (mio_json_is_number(it) && it->valuedouble == (double)b) return false;
    const mio_json *step = jget(c->config, "decoder_sparse_step");
    if (mio_json_is_number(step) && step->valuedouble >= 1 && (int64_t)(b + 1) % (int64_t)step->valuedouble != 0)
        return false;
    return true;
}

/* ------------------------------------------------------------------ shards */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static mio_status add_part_name(hf_ctx *c, const char *name) {
    for (uint32_t i = 0; i < c->n_parts; i++)
        if (strcmp(c->part_names[i], name) == 0) return MIO_OK;
    char **np = realloc(c->part_names, (c->n_parts + 1) * sizeof *np);
    if (!np) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    c->part_names = np;
    if (!(np[c->n_parts] = strdup(name))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    c->n_parts++;
    return MIO_OK;
}

/* ModelBase.get_model_part_names: files named prefix*suffix (sorted later);
 * *any tells whether there is one, collect adds them to the part list. */
static mio_status list_parts(hf_ctx *c, const char *prefix, const char *suffix, bool collect, bool *any) {
    if (c->weights_base) {
        /* the repo's listing stands for the directory */
        mio_status st = MIO_OK;
        *any = false;
        for (size_t i = 0; i < c->n_weight_files && !st; i++) {
            const char *n = c->weight_files[i];
            if (strchr(n, '/') || strncmp(n, prefix, strlen(prefix)) != 0 || !ends_with(n, suffix)) continue;
            *any = true;
            if (collect) st = add_part_name(c, n);
        }
        return st;
    }
    DIR *dd = opendir(c->dir);
    if (!dd) return mio_err_set(errno == ENOENT ? MIO_ERR_NOT_FOUND : MIO_ERR_IO, "%s: %s", c->dir, strerror(errno));
    mio_status st = MIO_OK;
    *any = false;
    for (struct dirent *e; (e = readdir(dd));) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && ends_with(e->d_name, suffix)) {
            *any = true;
            if (collect && (st = add_part_name(c, e->d_name))) break;
        }
    }
    closedir(dd);
    return st;
}

typedef struct index_entry {
    const char *tensor, *file;
} index_entry;

static int cmp_index(const void *a, const void *b) {
    return strcmp(((const index_entry *)a)->tensor, ((const index_entry *)b)->tensor);
}

/* TextModel.filter_tensors + ModelBase.filter_tensors + LlamaModel's text_model.
 * Returns false for a tensor the reference skips (multimodal prefixes); *out
 * is the (possibly renamed) name, malloc()ed. */
static bool filter_name(const hf_arch *a, const char *name, char **out) {
    static const char *const prefixes[] = {"mlp",          "vit.",        "vpm.",          "siglip2.",
                                           "conformer.",   "merger.",     "resampler.",    "sound_encoder.",
                                           "sound_projection.", "speech_embeddings."};
    static const char *const infixes[] = {"visual.",      "vision.",        "audio.",           "talker.",
                                          "vision_",      "audio_",         "token2wav.",       "code2wav.",
                                          "projector.",   "pre_mm_projector_norm", "image_newline", "view_seperator",
                                          "patch_embed",  "patch_embedding", "patch_merger.",   "patch_merge_mlp.",
                                          "model.connector."};
    *out = NULL;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) return false;
    for (size_t i = 0; i < sizeof infixes / sizeof infixes[0]; i++)
        if (strstr(name, infixes[i])) return false;
    /* "text_model." (SmolVLM) and "language_model." are removed wherever they occur */
    const char *cut[] = {"text_model.", "language_model."};
    char *s = strdup(name);
    if (!s) return true; /* the caller reports the allocation failure */
    for (size_t k = 0; k < 2; k++) {
        size_t m = strlen(cut[k]);
        char *hit;
        while ((hit = strstr(s, cut[k]))) memmove(hit, hit + m, strlen(hit + m) + 1);
    }
    /* the class's own filter_tensors (BertModel's) */
    size_t n = strlen(s), pl = a->strip_prefix ? strlen(a->strip_prefix) : 0;
    if (pl && strncmp(s, a->strip_prefix, pl) == 0) {
        memmove(s, s + pl, n - pl + 1);
        n -= pl;
    }
    if (a->gamma_beta && n >= 6 && strcmp(s + n - 6, ".gamma") == 0) {
        char *t = realloc(s, n + 2); /* ".gamma" -> ".weight": one byte longer */
        if (!t) {
            free(s);
            return true;
        }
        s = t;
        memcpy(s + n - 6, ".weight", 8);
    } else if (a->gamma_beta && n >= 5 && strcmp(s + n - 5, ".beta") == 0) {
        memcpy(s + n - 5, ".bias", 6);
    }
    bool dropped = false;
    for (const char *const *d = a->drop; d && *d && !dropped; d++) dropped = strcmp(s, *d) == 0;
    for (const char *const *d = a->drop_prefixes; d && *d && !dropped; d++) dropped = strncmp(s, *d, strlen(*d)) == 0;
    if (dropped) {
        free(s);
        return false;
    }
    *out = s;
    return true;
}

static int cmp_src(const void *a, const void *b) {
    const hf_src *x = a, *y = b;
    if (x->part != y->part) return x->part < y->part ? -1 : 1;
    return strcmp(x->orig, y->orig);
}

static mio_status index_tensors(hf_ctx *c) {
    mio_status st;
    bool any_st = false, any_bin = false;
    mio_json *index = NULL;
    index_entry *ie = NULL;
    size_t n_ie = 0;
    if ((st = list_parts(c, "model", ".safetensors", true, &any_st))) return st;
    if ((st = hf_read_json(c->dir, "model.safetensors.index.json", true, &index))) return st;
    if (index) {
        /* the index decides the parts: sorted unique file names of weight_map */
        for (uint32_t i = 0; i < c->n_parts; i++) free(c->part_names[i]);
        c->n_parts = 0;
        const mio_json *wm = jget(index, "weight_map");
        if (!mio_json_is_object(wm)) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s/model.safetensors.index.json: no \"weight_map\" object", c->dir);
            goto done;
        }
        size_t n = (size_t)mio_json_size(wm);
        ie = calloc(n ? n : 1, sizeof *ie);
        if (!ie) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        for (const mio_json *it = wm->child; it; it = it->next) {
            if (!mio_json_is_cstring(it) || !mio_json_key_is_cstring(it) || strchr(it->valuestring, '/')) {
                st = mio_err_set(MIO_ERR_INVALID_METADATA,
                                 "%s/model.safetensors.index.json: weight_map[\"%s\"] must be a file name in the directory",
                                 c->dir, it->string);
                goto done;
            }
            ie[n_ie++] = (index_entry){it->string, it->valuestring};
            if ((st = add_part_name(c, it->valuestring))) goto done;
        }
    } else if (c->n_parts == 0) {
        if ((st = list_parts(c, "pytorch_model", ".bin", false, &any_bin))) goto done;
        if (any_bin)
            st = mio_err_set(MIO_ERR_UNSUPPORTED,
                             "%s: the weights are pickled PyTorch files (pytorch_model*.bin), which are not read (unpickling "
                             "runs code); convert them to safetensors first", c->dir);
        else
            st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: no model weights (model.safetensors, model-*.safetensors with "
                                            "model.safetensors.index.json)", c->dir);
        goto done;
    }
    if (c->n_parts == 0) {
        st = mio_err_set(MIO_ERR_INVALID_METADATA, "%s/model.safetensors.index.json: weight_map names no shard", c->dir);
        goto done;
    }
    qsort(c->part_names, c->n_parts, sizeof *c->part_names, cmp_str);
    c->parts = calloc(c->n_parts, sizeof(mio_st_file *));
    if (!c->parts) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    size_t total = 0;
    for (uint32_t i = 0; i < c->n_parts; i++) {
        /* streamed: the remote file's header now, its tensors' bytes by range requests as they are read */
        char *path = path_join(c->weights_base ? c->weights_base : c->dir, c->part_names[i]);
        if (!path) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        st = mio_st_open(path, c->weights_base ? MIO_OPEN_HEADER : MIO_OPEN_MMAP, &c->parts[i]);
        if (st) {
            if (st == MIO_ERR_NOT_FOUND && index)
                st = mio_err_prefix(st, "model.safetensors.index.json names shard %s, which is missing: ", c->part_names[i]);
            free(path);
            goto done;
        }
        free(path);
        total += (size_t)mio_st_tensor_count(c->parts[i]);
    }
    c->src = calloc(total ? total : 1, sizeof *c->src);
    if (!c->src) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    if (ie) qsort(ie, n_ie, sizeof *ie, cmp_index);
    for (uint32_t i = 0; i < c->n_parts; i++) {
        int64_t n = mio_st_tensor_count(c->parts[i]);
        for (int64_t k = 0; k < n; k++) {
            mio_st_tensor t;
            if ((st = mio_st_tensor_info(c->parts[i], k, &t))) goto done;
            char name[1024];
            if (t.name.len >= sizeof name || memchr(t.name.ptr, 0, t.name.len)) {
                st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "%s/%s: tensor name of %zu bytes is not a usable name",
                                 c->dir, c->part_names[i], t.name.len);
                goto done;
            }
            memcpy(name, t.name.ptr, t.name.len);
            name[t.name.len] = 0;
            if (ie) {
                index_entry key = {name, NULL};
                index_entry *hit = bsearch(&key, ie, n_ie, sizeof *ie, cmp_index);
                if (!hit) {
                    st = mio_err_set(MIO_ERR_INVALID_METADATA,
                                     "%s/%s holds tensor %s, which model.safetensors.index.json does not list", c->dir,
                                     c->part_names[i], name);
                    goto done;
                }
                if (strcmp(hit->file, c->part_names[i]) != 0) {
                    st = mio_err_set(MIO_ERR_INVALID_METADATA,
                                     "%s: tensor %s is in %s but model.safetensors.index.json places it in %s", c->dir,
                                     name, c->part_names[i], hit->file);
                    goto done;
                }
                hit->file = NULL; /* seen */
            }
            char *fn;
            if (!filter_name(c->arch, name, &fn)) continue;
            char *orig = fn ? strdup(name) : NULL;
            if (!orig) { free(fn); st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
            c->src[c->n_src++] = (hf_src){.name = fn, .orig = orig, .part = i, .index = k};
        }
    }
    for (size_t k = 0; k < n_ie; k++)
        if (ie[k].file) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA,
                             "%s: model.safetensors.index.json lists tensor %s in %s, but that shard does not hold it",
                             c->dir, ie[k].tensor, ie[k].file);
            goto done;
        }
    qsort(c->src, c->n_src, sizeof *c->src, cmp_src);
    /* the same name twice (in two shards, or after filter_tensors' renaming):
     * the reference keeps one silently; refuse it instead */
    if (c->n_src > 1) {
        char **names = malloc(c->n_src * sizeof *names);
        if (!names) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        for (size_t k = 0; k < c->n_src; k++) names[k] = c->src[k].name;
        qsort(names, c->n_src, sizeof *names, cmp_str);
        for (size_t k = 1; k < c->n_src && !st; k++)
            if (strcmp(names[k - 1], names[k]) == 0)
                st = mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "%s: tensor %s appears twice in the checkpoint", c->dir, names[k]);
        free(names);
    }
done:
    free(ie);
    mio_json_free(index);
    return st;
}

/* ------------------------------------------------------------- rope / plan */

/* rope_parameters as TextModel.__init__ builds it (a copy): config.json's
 * rope_parameters (or rope_scaling), with the global values mirrored in. */
static mio_status rope_params(const hf_ctx *c, mio_json **out) {
    const mio_json *h = c->config, *src = jget(h, "rope_parameters");
    if (!src) src = jget(h, "rope_scaling");
    mio_json *rp = (src && mio_json_is_object(src) && src->child) ? mio_json_dup(src) : mio_json_new_object();
    if (!rp) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (src && !mio_json_is_null(src) && !mio_json_is_object(src)) {
        mio_json_free(rp);
        return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: \"rope_scaling\" must be an object or null", c->dir);
    }
    static const char *const k_theta[] = {"global_rope_theta", "rope_global_theta", "rope_theta_global", "rope_theta",
                                          "rotary_emb_base", NULL};
    static const char *const k_local[] = {"local_rope_theta", "rope_local_theta", "rope_theta_local", "swa_rope_theta",
                                          "rope_local_base_freq", NULL};
    static const char *const k_partial[] = {"partial_rotary_factor", "rope_pct", "rope_percent", NULL};
    static const char *const k_orig[] = {"original_max_position_embeddings", NULL};
    if (!jget(rp, "full_attention") && !jget(rp, "sliding_attention")) {
        const mio_json *v;
        bool ok = true;
        if ((v = find_hparam(h, k_local, NULL))) {
            mio_json *o = mio_json_new_object();
            ok = o && mio_json_add(o, "rope_theta", mio_json_dup(v)) &&
                 mio_json_add(rp, "sliding_attention", o);
        }
        if (ok && !jget(rp, "rope_theta") && (v = find_hparam(h, k_theta, NULL)))
            ok = mio_json_add(rp, "rope_theta", mio_json_dup(v));
        const mio_json *t = jget(rp, "type");
        if (ok && !jget(rp, "rope_type") && t && !mio_json_is_null(t))
            ok = mio_json_add(rp, "rope_type", mio_json_dup(t));
        if (ok && !jget(rp, "partial_rotary_factor") && (v = find_hparam(h, k_partial, NULL)))
            ok = mio_json_add(rp, "partial_rotary_factor", mio_json_dup(v));
        if (ok && !jget(rp, "original_max_position_embeddings") && (v = find_hparam(h, k_orig, NULL)))
            ok = mio_json_add(rp, "original_max_position_embeddings", mio_json_dup(v));
        if (!ok) {
            mio_json_free(rp);
            return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
    }
    *out = rp;
    return MIO_OK;
}

/* rope_params.get(key): NULL for absent and for null */
static const mio_json *rget(const mio_json *o, const char *key) {
    const mio_json *v = jget(o, key);
    return v && !mio_json_is_null(v) ? v : NULL;
}

static const mio_json *rope_full(const mio_json *rp) {
    const mio_json *f = jget(rp, "full_attention");
    return f ? f : rp;
}

static bool rope_is_llama3(const mio_json *rpf) {
    const mio_json *t = rget(rpf, "rope_type");
    if (!mio_json_is_string(t)) return false;
    const char *s = t->valuestring;
    return strlen(s) == 6 && strncasecmp(s, "llama3", 6) == 0;
}

static mio_status gen_rope_freqs(hf_ctx *c, const mio_json *rpf) {
    double base = 10000.0, factor = 8.0, lo = 1.0, hi = 4.0, old_ctx = 8192;
    const struct { const char *key; double *v; } k[] = {{"rope_theta", &base}, {"factor", &factor},
        {"low_freq_factor", &lo}, {"high_freq_factor", &hi}, {"original_max_position_embeddings", &old_ctx}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const mio_json *v = jget(rpf, k[i].key);
        if (v && json_num(v, "config.json", k[i].key, k[i].v)) return mio_err_prefix(MIO_ERR_INVALID_JSON, "%s/", c->dir);
    }
    int64_t dim = c->d.head_dim;
    if (dim < 2 || dim % 2) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: head dim %lld is not even", c->dir,
                                               (long long)dim);
    c->n_gen[0] = dim / 2;
    if (!(c->gen[0] = malloc((size_t)c->n_gen[0] * sizeof(float)))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_hf_llama3_rope_factors(c->gen[0], dim, base, factor, lo, hi, old_ctx);
    return MIO_OK;
}

/* int(partial_rotary_factor * hidden) // heads (Phi3MiniModel's rope_dims) */
static mio_status rope_dims_of(const hf_ctx *c, const mio_json *rpf, int64_t *out) {
    double prf = 1.0;
    const mio_json *v = jget(rpf, "partial_rotary_factor");
    if (v && json_num(v, "config.json", "partial_rotary_factor", &prf)) return mio_err_prefix(MIO_ERR_INVALID_JSON, "%s/", c->dir);
    double x = prf * (double)c->d.hidden;
    if (!(x >= 0 && x < 9.0e15)) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: partial_rotary_factor %g is out of range", c->dir, prf);
    *out = (int64_t)x / c->d.n_head;
    return MIO_OK;
}

/* One list of rope factors as float32 (torch.tensor(list, dtype=float32)). */
static mio_status factor_list(const hf_ctx *c, const mio_json *a, const char *key, int64_t n, float **out) {
    if (!mio_json_is_array(a)) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: rope %s is not a list", c->dir, key);
    if ((int64_t)mio_json_size(a) != n)
        return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: rope %s has %lld numbers; the rope dimensions imply %lld",
                           c->dir, key, (long long)mio_json_size(a), (long long)n);
    float *f = malloc((size_t)(n ? n : 1) * sizeof(float));
    if (!f) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    int64_t i = 0;
    for (const mio_json *it = a->child; it; it = it->next, i++) {
        if (!mio_json_is_number(it)) {
            free(f);
            return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: rope %s[%lld] is not a number", c->dir, key, (long long)i);
        }
        f[i] = (float)it->valuedouble;
    }
    *out = f;
    return MIO_OK;
}

/* Phi3MiniModel.generate_extra_tensors: with long factors, the attention factor
 * and rope_factors_long / rope_factors_short (rope_dims / 2 each). */
static mio_status gen_longrope(hf_ctx *c, const mio_json *rp, bool *made) {
    *made = false;
    const mio_json *lf = rget(rp, "long_factor"), *sf = rget(rp, "short_factor");
    if (!lf || mio_json_is_false(lf) || (mio_json_is_array(lf) && !lf->child) ||
        (mio_json_is_number(lf) && lf->valuedouble == 0))
        return MIO_OK; /* `if not long_factors: return` */
    static const char *const k_ctx[] = {"n_positions", "max_position_embeddings", NULL};
    const mio_json *mp = find_hparam(c->config, k_ctx, NULL), *om = jget(rp, "original_max_position_embeddings");
    double max_pos = 0, orig = 0;
    if (!mp || !om) return mio_err_set(MIO_ERR_NOT_FOUND, "%s/config.json: longrope needs max_position_embeddings and "
                                       "original_max_position_embeddings", c->dir);
    if (json_num(mp, "config.json", "max_position_embeddings", &max_pos) ||
        json_num(om, "config.json", "original_max_position_embeddings", &orig) || orig <= 0)
        return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: max_position_embeddings / original_max_position_embeddings "
                           "must be positive numbers", c->dir);
    const mio_json *rt = rget(rp, "rope_type");
    const char *t = mio_json_is_string(rt) ? rt->valuestring : "";
    double scale = max_pos / orig;
    if (!strcasecmp(t, "su") || !strcasecmp(t, "longrope")) c->attn_factor = scale > 1.0 ? sqrt(1 + log(scale) / log(orig)) : 1.0;
    else if (!strcasecmp(t, "yarn")) c->attn_factor = scale > 1.0 ? 0.1 * log(scale) + 1.0 : 1.0;
    else return mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: rope factors with rope_type \"%s\" are not converted", c->dir, t);
    c->has_attn_factor = true;
    int64_t dims = 0;
    mio_status st = rope_dims_of(c, rp, &dims);
    if (st) return st;
    if (!sf) return mio_err_set(MIO_ERR_NOT_FOUND, "%s/config.json: rope long_factor without short_factor", c->dir);
    if (dims % 2) return mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: %lld rope dimensions are not even", c->dir, (long long)dims);
    if ((st = factor_list(c, lf, "long_factor", dims / 2, &c->gen[0])) || (st = factor_list(c, sf, "short_factor", dims / 2, &c->gen[1])))
        return st;
    c->n_gen[0] = c->n_gen[1] = dims / 2;
    *made = true;
    return MIO_OK;
}

static void add_generated(hf_ctx *c, int k, const char *name) {
    hf_item *it = &c->items[c->n_items++];
    snprintf(it->name, sizeof it->name, "%s", name);
    it->source = "";
    it->src = -1 - k;
    it->src_dtype = MIO_ST_F32;
    it->n_dims = 1;
    it->ne[0] = c->n_gen[k];
    it->ne[1] = it->ne[2] = it->ne[3] = 1;
    it->type = MIO_TYPE_F32;
}

static int item_type_for(const hf_ctx *c, const hf_tensor_rule *r, const char *gguf, uint32_t n_dims, int64_t ne0) {
    int t;
    if (n_dims <= 1 || ends_with(gguf, "_norm.weight") || !ends_with(gguf, ".weight") || (r && r->f32))
        t = MIO_TYPE_F32;
    else if ((c->ftype_type == MIO_TYPE_TQ1_0 || c->ftype_type == MIO_TYPE_TQ2_0) &&
             (strcmp(gguf, "token_embd.weight") == 0 || strcmp(gguf, "output.weight") == 0))
        t = MIO_TYPE_F16;
    else
        t = c->ftype_type;
    /* gguf.quants: a row that is not a whole number of blocks falls back to F16 */
    if (mio_type_block_size(t) > 1 && ne0 % mio_type_block_size(t) != 0) t = MIO_TYPE_F16;
    return t;
}

static bool src_dtype_ok(int dt) { return dt == MIO_ST_F32 || dt == MIO_ST_F16 || dt == MIO_ST_BF16 || dt == MIO_ST_F64; }

/* The file type: --outtype, or auto's guess (ModelBase.__init__): the first
 * tensor of two or more dims decides, BF16 or F16; F32-only models get F16. */
static void choose_ftype(hf_ctx *c) {
    if (c->p->outtype != MIO_HF_OUT_AUTO) {
        c->ftype_type = c->p->outtype;
        return;
    }
    c->ftype_type = MIO_TYPE_F16;
    for (size_t i = 0; c->parts && i < c->n_src; i++) {
        mio_st_tensor t;
        if (mio_st_tensor_info(c->parts[c->src[i].part], c->src[i].index, &t)) continue;
        if (t.n_dims < 2) continue;
        if (t.dtype == MIO_ST_BF16) { c->ftype_type = MIO_TYPE_BF16; return; }
        if (t.dtype == MIO_ST_F16) { c->ftype_type = MIO_TYPE_F16; return; }
    }
}

static bool cfg_true(const mio_json *o, const char *key) { return mio_json_is_true(jget(o, key)); }

/* Python's truth of o.get(key) */
static bool cfg_truthy(const mio_json *o, const char *key) {
    const mio_json *v = jget(o, key);
    if (!v || mio_json_is_null(v) || mio_json_is_false(v)) return false;
    if (mio_json_is_number(v)) return v->valuedouble != 0;
    if (mio_json_is_string(v)) return v->valuestring[0] != 0;
    if (mio_json_is_array(v) || mio_json_is_object(v)) return v->child != NULL;
    return true;
}

/* A gathered output (hf_tensor_rule.gather) of source s (info t): its view,
 * shape and type. */
static mio_status plan_gather(hf_ctx *c, hf_item *it, const hf_tensor_rule *g, const hf_src *s, const mio_st_tensor *t,
                              int64_t src) {
    uint64_t heads = g->g_heads ? (uint64_t)c->d.n_head_kv : 1;
    uint64_t outer = t->n_dims == 3 ? t->shape[0] : heads;
    uint64_t a = t->n_dims >= 2 ? t->shape[t->n_dims - 2] : 1, b = t->shape[t->n_dims - 1];
    if (t->n_dims == 3 && g->g_heads) a = 0; /* not a combination the table uses */
    if (t->n_dims != 3) a = heads && a % heads == 0 ? a / heads : 0;
    int64_t a0 = g->g_a0 ? mio_hf_dim(g->g_a0, &c->d) : 0;
    int64_t na = g->g_na ? mio_hf_dim(g->g_na, &c->d) : (int64_t)a - a0;
    uint64_t stride = g->g_stride ? (uint64_t)g->g_stride : 1;
    if (a == 0 || a0 < 0 || na <= 0 || (uint64_t)(a0 + na) > a || b % stride != 0)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: tensor %s cannot be split as %s needs (rows %lld..%lld of %llu per "
                           "slice, columns by %llu of %llu)", c->dir, s->name, g->gguf, (long long)a0,
                           (long long)(a0 + na), (unsigned long long)a, (unsigned long long)stride, (unsigned long long)b);
    uint64_t bs = b / stride;
    it->source = s->name;
    it->src = src;
    it->src_dtype = t->dtype;
    it->gather = g;
    it->g_outer = outer;
    it->g_a = a;
    it->g_b = b;
    it->n_dims = t->n_dims == 3 || g->g_heads ? 3 : 2;
    it->ne[0] = g->g_transpose ? na : (int64_t)bs;
    it->ne[1] = g->g_transpose ? (int64_t)bs : na;
    it->ne[2] = it->n_dims == 3 ? (int64_t)outer : 1;
    it->ne[3] = 1;
    if (!it->name[0]) snprintf(it->name, sizeof it->name, "%s", g->gguf);
    it->type = item_type_for(c, g, it->name, it->n_dims, it->ne[0]);
    return MIO_OK;
}

/* The MXFP4 outputs, first in the file: at each scales tensor in reading
 * order, one output per scales rule of its name, from it and its blocks. */
static mio_status plan_mxfp4(hf_ctx *c) {
    for (size_t i = 0; i < c->n_src; i++) {
        const hf_src *s = &c->src[i];
        char name[HF_NAME_MAX];
        const hf_tensor_rule *rule;
        int64_t bid, xid;
        if (!mio_hf_arch_map(c->arch, s->name, c->d.n_layer, name, &rule, &bid, &xid) || !rule->mxfp4) continue;
        /* its partner: the same name with _scales / _blocks */
        bool blocks = rule->mxfp4 == HF_MXFP4_BLOCKS;
        size_t n = strlen(s->name), cut = 7; /* "_blocks" and "_scales" are both 7 bytes */
        char want[1024];
        if (n < cut || n >= sizeof want) continue;
        snprintf(want, sizeof want, "%.*s%s", (int)(n - cut), s->name, blocks ? "_scales" : "_blocks");
        int64_t bi = -1;
        for (size_t k = 0; k < c->n_src && bi < 0; k++)
            if (strcmp(c->src[k].name, want) == 0) bi = (int64_t)k;
        if (bi < 0)
            return mio_err_set(MIO_ERR_NOT_FOUND, "%s: MXFP4 %s %s have no %s %s", c->dir, blocks ? "blocks" : "scales",
                               s->name, blocks ? "scales" : "blocks", want);
        if (blocks) continue; /* the output is made at its scales */
        mio_st_tensor ts, tb;
        mio_status st;
        if ((st = mio_st_tensor_info(c->parts[s->part], s->index, &ts)) ||
            (st = mio_st_tensor_info(c->parts[c->src[bi].part], c->src[bi].index, &tb)))
            return st;
        bool pair = ts.n_dims == 3 && tb.n_dims == 4 && tb.shape[3] == 16 && ts.dtype == MIO_ST_U8 && tb.dtype == MIO_ST_U8;
        for (uint32_t k = 0; pair && k < 3; k++) pair = ts.shape[k] == tb.shape[k];
        if (!pair || ts.shape[1] % (uint64_t)(rule->g_stride ? rule->g_stride : 1) || ts.shape[0] != (uint64_t)c->d.n_expert)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: MXFP4 blocks %s and scales %s do not match (blocks must be U8 "
                               "[experts, rows, blocks, 16] and scales U8 [experts, rows, blocks], %lld experts)", c->dir,
                               want, s->name, (long long)c->d.n_expert);
        for (const hf_tensor_rule *g = rule; g < c->arch->block + c->arch->n_block && !strcmp(g->hf, rule->hf); g++) {
            hf_item *it = &c->items[c->n_items++];
            snprintf(it->name, sizeof it->name, "blk.%lld.%s", (long long)bid, g->gguf);
            it->source = c->src[bi].name;
            it->src = bi;
            it->src2 = (int64_t)i;
            it->mx = g;
            it->src_dtype = MIO_ST_U8;
            it->n_dims = 3;
            it->ne[0] = (int64_t)ts.shape[2] * 32;
            it->ne[1] = (int64_t)(ts.shape[1] / (uint64_t)(g->g_stride ? g->g_stride : 1));
            it->ne[2] = (int64_t)ts.shape[0];
            it->ne[3] = 1;
            it->type = MIO_TYPE_MXFP4;
        }
    }
    return MIO_OK;
}

static mio_status plan_items(hf_ctx *c) {
    mio_status st;
    mio_json *rp = NULL;
    if ((st = rope_params(c, &rp))) return st;
    const mio_json *rpf = rope_full(rp);
    bool llama3 = c->arch->generate == HF_GEN_LLAMA3_ROPE && rpf->child && rope_is_llama3(rpf);
    bool longrope = false;
    if (llama3 && (st = gen_rope_freqs(c, rpf))) goto done;
    if (c->arch->generate == HF_GEN_LONGROPE && (st = gen_longrope(c, rpf, &longrope))) goto done;
    mio_json_free(rp);
    rp = NULL;

    size_t n_rules;
    const hf_tensor_rule *globals = mio_hf_arch_global_rules(c->arch, &n_rules);
    const size_t nb = c->arch->n_block;
    const char *bp = c->arch->block_prefix ? c->arch->block_prefix : "model.layers.";
    size_t n_xrules = 0;
    bool has_dense = false;
    for (size_t r = 0; r < nb; r++) {
        n_xrules += c->arch->block[r].experts != NULL;
        has_dense = has_dense || c->arch->block[r].layers == HF_LAYERS_DENSE;
    }
    /* a class without dense rows has none in llama.cpp's graph either (Qwen2/3-MoE: the reference cannot map them) */
    for (int64_t b = 0; n_xrules && !has_dense && b < c->d.n_layer; b++)
        if (!block_is_moe(c, b)) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: mlp_only_layers / decoder_sparse_step make block %lld a "
                             "dense block, but %s has experts in every block in llama.cpp's %s (the reference cannot convert "
                             "dense blocks of it either)", c->dir, (long long)b, c->arch->hf_name, c->arch->arch);
            goto done;
        }
    c->items = calloc(2 * c->n_src + 2, sizeof *c->items); /* a source feeds at most two gathered outputs */
    /* which required tensors were seen: per block the arch's rules, then the globals */
    size_t n_seen = (size_t)c->d.n_layer * nb + n_rules;
    bool *seen = calloc(n_seen ? n_seen : 1, 1);
    /* the expert stacks being collected: per block and expert rule, each expert's source */
    int64_t **stack = n_xrules ? calloc((size_t)c->d.n_layer * nb, sizeof *stack) : NULL;
    int64_t *xcount = n_xrules ? calloc((size_t)c->d.n_layer, sizeof *xcount) : NULL;
    if (!c->items || !seen || (n_xrules && c->d.n_layer && (!stack || !xcount))) {
        free(seen);
        free(stack);
        free(xcount);
        st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (c->mxfp4 && (st = plan_mxfp4(c))) {
        free(seen);
        free(stack);
        free(xcount);
        goto done;
    }
    if (llama3) add_generated(c, 0, "rope_freqs.weight");
    if (longrope) {
        add_generated(c, 0, "rope_factors_long.weight");
        add_generated(c, 1, "rope_factors_short.weight");
    }
    for (size_t i = 0; i < c->n_src && !st; i++) {
        const hf_src *s = &c->src[i];
        if (mio_hf_name_is_dropped(s->name)) continue;
        if (c->arch->skip_extra_layers && mio_hf_arch_block_of(c->arch, s->name) >= c->d.n_layer) continue;
        hf_item *it = &c->items[c->n_items];
        const hf_tensor_rule *rule;
        int64_t bid, xid;
        if (!mio_hf_arch_map(c->arch, s->name, c->d.n_layer, it->name, &rule, &bid, &xid)) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/%s: tensor %s is not a tensor of %s (%lld layers)", c->dir,
                             c->part_names[s->part], s->name, c->arch->hf_name, (long long)c->d.n_layer);
            break;
        }
        if (bid >= 0 && rule->layers != HF_LAYERS_ALL && (rule->layers == HF_LAYERS_MOE) != block_is_moe(c, bid)) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/%s: tensor %s belongs to a %s block, but config.json makes block "
                             "%lld a %s one (%lld experts; first_k_dense_replace, mlp_only_layers, decoder_sparse_step)",
                             c->dir, c->part_names[s->part], s->name, rule->layers == HF_LAYERS_MOE ? "mixture-of-experts" : "dense",
                             (long long)bid, rule->layers == HF_LAYERS_MOE ? "dense" : "mixture-of-experts",
                             (long long)c->d.n_expert);
            break;
        }
        if (rule->experts && xid >= c->d.n_expert) {
            st = mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s/%s: tensor %s is expert %lld, but config.json gives %lld experts",
                             c->dir, c->part_names[s->part], s->name, (long long)xid, (long long)c->d.n_expert);
            break;
        }
        mio_st_tensor t;
        if ((st = mio_st_tensor_info(c->parts[s->part], s->index, &t))) break;
        if (rule->mxfp4 ? t.dtype != MIO_ST_U8 : !src_dtype_ok(t.dtype)) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s/%s: tensor %s is %s; %s", c->dir, c->part_names[s->part], s->name,
                             mio_st_dtype_name(t.dtype), rule->mxfp4 ? "MXFP4 blocks and scales are U8"
                                                                     : "only float tensors (F32, F16, BF16, F64) are converted");
            break;
        }
        if (rule->mxfp4 && !c->mxfp4) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/%s: tensor %s is MXFP4, but config.json's quantization_config does "
                             "not say quant_method mxfp4", c->dir, c->part_names[s->part], s->name);
            break;
        }
        bool shape_ok = t.n_dims == rule->n_dims;
        for (uint32_t k = 0; shape_ok && k < rule->n_dims; k++)
            shape_ok = (int64_t)t.shape[k] == mio_hf_rule_dim(rule, k, &c->d);
        if (!shape_ok) {
            char got[96] = "", want[96] = "";
            for (uint32_t k = 0; k < t.n_dims && k < 4; k++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu", k ? ", " : "", (unsigned long long)t.shape[k]);
            for (uint32_t k = 0; k < rule->n_dims; k++)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", k ? ", " : "",
                         (long long)mio_hf_rule_dim(rule, k, &c->d));
            st = mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s/%s: tensor %s has shape [%s], config.json implies [%s]", c->dir,
                             c->part_names[s->part], s->name, got, want);
            break;
        }
        if (rule->permute && ((rule->permute == HF_PERMUTE_Q ? c->d.n_head : c->d.n_head_kv) == 0 ||
                              t.shape[0] % (2 * (uint64_t)(rule->permute == HF_PERMUTE_Q ? c->d.n_head : c->d.n_head_kv)))) {
            st = mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: tensor %s has %llu rows, not a multiple of 2 x the head count",
                             c->dir, s->name, (unsigned long long)t.shape[0]);
            break;
        }
        size_t slot = bid >= 0 ? (size_t)bid * nb + (size_t)(rule - c->arch->block)
                               : (size_t)c->d.n_layer * nb + (size_t)(rule - globals);
        if (rule->experts && stack && bid >= 0) { /* (expert rows are block rows: the table has no others) */
            /* one expert: kept until the block's last expert tensor, where the
             * reference writes the block's stacks */
            if (!stack[slot]) {
                if (!(stack[slot] = malloc((size_t)c->d.n_expert * sizeof **stack))) {
                    st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
                    break;
                }
                for (int64_t x = 0; x < c->d.n_expert; x++) stack[slot][x] = -1;
            }
            if (stack[slot][xid] >= 0) {
                st = mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "%s: tensors %s and %s are both expert %lld of block %lld", c->dir,
                                 c->src[stack[slot][xid]].name, s->name, (long long)xid, (long long)bid);
                break;
            }
            int64_t first = -1; /* the stack's types agree (the reference's torch.stack would promote) */
            for (int64_t x = 0; x < c->d.n_expert && first < 0; x++) first = stack[slot][x];
            if (first >= 0) {
                const hf_src *o = &c->src[first];
                mio_st_tensor ot;
                if (!mio_st_tensor_info(c->parts[o->part], o->index, &ot) && ot.dtype != t.dtype) {
                    st = mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: expert tensors %s (%s) and %s (%s) of one stack have "
                                     "different types", c->dir, o->name, mio_st_dtype_name(ot.dtype), s->name,
                                     mio_st_dtype_name(t.dtype));
                    break;
                }
            }
            stack[slot][xid] = (int64_t)i;
            if (++xcount[bid] < c->d.n_expert * (int64_t)n_xrules) continue;
            for (size_t r = 0; r < nb; r++) { /* every expert of the block is there: its stacks */
                const hf_tensor_rule *xr = &c->arch->block[r];
                if (!xr->experts) continue;
                size_t xs = (size_t)bid * nb + r;
                hf_item *xi = &c->items[c->n_items++];
                snprintf(xi->name, sizeof xi->name, "blk.%lld.%s", (long long)bid, xr->gguf);
                xi->xsrc = stack[xs];
                stack[xs] = NULL;
                xi->src = xi->xsrc[0];
                xi->source = c->src[xi->src].name;
                const hf_src *x0 = &c->src[xi->src];
                mio_st_tensor t0;
                if ((st = mio_st_tensor_info(c->parts[x0->part], x0->index, &t0))) break;
                xi->src_dtype = t0.dtype;
                xi->n_dims = 3;
                xi->ne[0] = (int64_t)t0.shape[1];
                xi->ne[1] = (int64_t)t0.shape[0];
                xi->ne[2] = c->d.n_expert;
                xi->ne[3] = 1;
                xi->type = item_type_for(c, xr, xi->name, 3, xi->ne[0]);
                seen[xs] = true;
            }
            continue;
        }
        seen[slot] = true;
        if (rule->mxfp4) { /* written first (plan_mxfp4) */
            for (const hf_tensor_rule *g = rule + 1; bid >= 0 && g < c->arch->block + nb && !strcmp(g->hf, rule->hf); g++)
                seen[(size_t)bid * nb + (size_t)(g - c->arch->block)] = true;
            continue;
        }
        if (rule->gather) { /* one or more rearranged parts of the source, in the table's order */
            const hf_tensor_rule *end = c->arch->block + nb;
            if (bid < 0) end = globals + n_rules;
            for (const hf_tensor_rule *g = rule; g < end && g->gather && !strcmp(g->hf, rule->hf) && !st; g++) {
                hf_item *gi = &c->items[c->n_items];
                if (g != rule && bid >= 0) snprintf(gi->name, sizeof gi->name, "blk.%lld.%s", (long long)bid, g->gguf);
                else if (g != rule) snprintf(gi->name, sizeof gi->name, "%s", g->gguf);
                st = plan_gather(c, gi, g, s, &t, (int64_t)i);
                if (!st) c->n_items++;
                if (bid >= 0) seen[(size_t)bid * nb + (size_t)(g - c->arch->block)] = true;
            }
            continue;
        }
        it->source = s->name;
        it->src = (int64_t)i;
        it->src_dtype = t.dtype;
        it->n_dims = t.n_dims;
        it->ne[0] = it->ne[1] = it->ne[2] = it->ne[3] = 1;
        for (uint32_t k = 0; k < t.n_dims; k++) it->ne[k] = (int64_t)t.shape[t.n_dims - 1 - k];
        it->permute = rule->permute;
        it->add_one = c->arch->norm_plus_one && ends_with(s->name, "norm.weight");
        it->type = item_type_for(c, rule, it->name, it->n_dims, it->ne[0]);
        c->n_items++;
    }
    /* every required tensor is there (an expert stack: every expert) */
    for (int64_t b = 0; b < c->d.n_layer && !st; b++) {
        bool moe = block_is_moe(c, b);
        for (size_t r = 0; r < nb && !st; r++) {
            const hf_tensor_rule *br = &c->arch->block[r];
            if (br->layers != HF_LAYERS_ALL && (br->layers == HF_LAYERS_MOE) != moe) continue;
            if (br->either) { /* one rule of the group is there */
                bool any = false;
                char alt[512] = "";
                for (size_t q = 0; q < nb && !any; q++) {
                    const hf_tensor_rule *gr = &c->arch->block[q];
                    if (gr->either != br->either) continue;
                    any = seen[(size_t)b * nb + q];
                    if (q == 0 || strcmp(c->arch->block[q - 1].hf, gr->hf) != 0) /* (rules of one name are adjacent) */
                        snprintf(alt + strlen(alt), sizeof alt - strlen(alt), "%s%s", alt[0] ? " or " : "", gr->hf);
                }
                if (!any)
                    st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: block %lld (%s%lld.) has neither form of a tensor: %s (%s)",
                                     c->dir, (long long)b, bp, (long long)b, alt, c->arch->hf_name);
                continue;
            }
            if (br->optional || seen[(size_t)b * nb + r]) continue;
            if (br->experts) {
                int64_t x = 0;
                const int64_t *sx = stack[(size_t)b * nb + r];
                while (sx && x < c->d.n_expert && sx[x] >= 0) x++;
                if (x == c->d.n_expert) continue; /* this stack is whole: another one of the block is not */
                st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: tensor %s%lld.%s%lld.%s is missing (%s, %lld experts in "
                                 "config.json)", c->dir, bp, (long long)b, br->experts, (long long)x, br->hf,
                                 c->arch->hf_name, (long long)c->d.n_expert);
            } else {
                st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: tensor %s%lld.%s is missing (%s, %lld layers in config.json)",
                                 c->dir, bp, (long long)b, br->hf, c->arch->hf_name, (long long)c->d.n_layer);
            }
        }
    }
    for (size_t r = 0; r < n_rules && !st; r++) {
        if (seen[(size_t)c->d.n_layer * nb + r] || globals[r].optional) continue;
        if (globals[r].output && cfg_true(c->config, "tie_word_embeddings")) continue;
        st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: tensor %s is missing%s", c->dir, globals[r].hf,
                         globals[r].output ? " (config.json does not set tie_word_embeddings)" : "");
    }
    for (size_t k = 0; stack && k < (size_t)c->d.n_layer * nb; k++) free(stack[k]);
    free(stack);
    free(xcount);
    free(seen);
    for (size_t i = 0; i < c->n_items && !st; i++) {
        hf_item *it = &c->items[i];
        st = mio_type_nbytes(it->type, it->n_dims, it->ne, &it->nbytes);
    }
done:
    mio_json_free(rp);
    return st;
}

/* ---------------------------------------------------------------- metadata */

static int ftype_of_type(int t) {
    switch (t) {
    case MIO_TYPE_F32: return 0;
    case MIO_TYPE_F16: return 1;
    case MIO_TYPE_Q8_0: return 7;
    case MIO_TYPE_BF16: return 32;
    case MIO_TYPE_TQ1_0: return 36;
    case MIO_TYPE_TQ2_0: return 37;
    default: return -1;
    }
}

/* LlamaFileType's name after its first "_": what {ftype} and the default file name use. */
static const char *ftype_label(int t) {
    switch (t) {
    case MIO_TYPE_F32: return "F32";
    case MIO_TYPE_F16: return "F16";
    case MIO_TYPE_Q8_0: return "Q8_0";
    case MIO_TYPE_BF16: return "BF16";
    case MIO_TYPE_TQ1_0: return "TQ1_0";
    case MIO_TYPE_TQ2_0: return "TQ2_0";
    default: return "";
    }
}

/* general.file_type: MOSTLY_MXFP4_MOE (38) for an MXFP4 checkpoint written as
 * a float type (the reference's prepare_metadata; not in a vocab-only file:
 * the reference learns of MXFP4 while it prepares the tensors), else the
 * output type's */
static int file_type(const hf_ctx *c) {
    int t = c->ftype_type;
    if (c->mxfp4 && !c->p->vocab_only && (t == MIO_TYPE_F32 || t == MIO_TYPE_F16 || t == MIO_TYPE_BF16)) return 38;
    return ftype_of_type(t);
}

static mio_status kv_name(char *buf, size_t n, const char *arch, const char *suffix) {
    int k = snprintf(buf, n, "%s.%s", arch, suffix);
    return k > 0 && (size_t)k < n ? MIO_OK : mio_err_set(MIO_ERR_LIMIT, "key %s.%s too long", arch, suffix);
}

static mio_status put_u32(mio_writer *w, const hf_ctx *c, const char *suffix, const mio_json *v, const char *what) {
    char key[128];
    uint32_t u = 0;
    mio_status st = kv_name(key, sizeof key, c->arch->arch, suffix);
    if (!st) st = json_u32(v, "config.json", what, &u);
    if (st) return mio_err_prefix(st, "%s/", c->dir);
    return mio_writer_set_u32(w, key, u);
}

static mio_status put_f32(mio_writer *w, const hf_ctx *c, const char *suffix, const mio_json *v, const char *what) {
    char key[128];
    double d = 0;
    mio_status st = kv_name(key, sizeof key, c->arch->arch, suffix);
    if (!st) st = json_num(v, "config.json", what, &d);
    if (st) return mio_err_prefix(st, "%s/", c->dir);
    return mio_writer_set_f32(w, key, (float)d);
}

/* A list of key rules (hf_arch.params or .keys), in order. */
static mio_status write_key_rules(mio_writer *w, const hf_ctx *c, const hf_key_rule *rules, size_t n, const mio_json *rp) {
    mio_status st = MIO_OK;
    for (size_t i = 0; i < n && !st; i++) {
        const hf_key_rule *k = &rules[i];
        const char *which = k->hf[0];
        const mio_json *v = NULL;
        mio_json *num = NULL;
        int64_t x = 0;
        switch (k->from) {
        case HF_FROM_CONFIG: {
            const mio_json *u = k->unless_one ? jget(c->config, k->unless_one) : NULL;
            if (mio_json_is_number(u) && u->valuedouble == 1) continue;
            const char *keys[5] = {k->hf[0], k->hf[1], k->hf[2], k->hf[3], NULL};
            v = find_hparam(c->config, keys, &which);
            break;
        }
        case HF_FROM_ROPE: v = jget(rope_full(rp), k->hf[0]); break;
        case HF_FROM_BLOCKS: x = c->d.n_layer; break;
        case HF_FROM_ROPE_DIMS: st = rope_dims_of(c, rope_full(rp), &x); break;
        case HF_FROM_FILE_TYPE: st = mio_writer_set_u32(w, "general.file_type", (uint32_t)file_type(c)); continue;
        case HF_FROM_POOLING: {
            char key[128];
            if (c->pooling_type >= 0 && !(st = kv_name(key, sizeof key, c->arch->arch, "pooling_type")))
                st = mio_writer_set_u32(w, key, (uint32_t)c->pooling_type);
            if (!st && c->classifier_pooling >= 0 && !(st = kv_name(key, sizeof key, c->arch->arch, "classifier.pooling_type")))
                st = mio_writer_set_u32(w, key, (uint32_t)c->classifier_pooling);
            continue;
        }
        case HF_FROM_CONST: x = (int64_t)k->value; break;
        case HF_FROM_SUM: {
            const mio_json *a = jget(c->config, k->hf[0]), *b = jget(c->config, k->hf[1]);
            if (!mio_json_is_number(a) || !mio_json_is_number(b)) {
                st = mio_err_set(MIO_ERR_NOT_FOUND, "%s/config.json: \"%s\" and \"%s\" must be numbers (%s.%s)", c->dir,
                                 k->hf[0], k->hf[1], c->arch->arch, k->gguf);
                continue;
            }
            x = (int64_t)a->valuedouble + (int64_t)b->valuedouble;
            break;
        }
        default: st = mio_err_set(MIO_ERR_INVALID_ARG, "key rule %s: unknown source %d", k->gguf, k->from); continue;
        }
        if (st) break;
        if (k->from == HF_FROM_BLOCKS || k->from == HF_FROM_ROPE_DIMS || k->from == HF_FROM_SUM)
            v = num = mio_json_new_number((double)x);
        if (k->from == HF_FROM_CONST) { /* written as is */
            char key[128];
            if (!(st = kv_name(key, sizeof key, c->arch->arch, k->gguf)))
                st = k->type == HF_KEY_BOOL ? mio_writer_set_bool(w, key, k->value != 0)
                   : k->type == HF_KEY_U32  ? mio_writer_set_u32(w, key, (uint32_t)k->value)
                                            : mio_writer_set_f32(w, key, (float)k->value);
            continue;
        }
        bool null = !v || mio_json_is_null(v);
        if (k->when == HF_WHEN_TRUTHY && (null || mio_json_is_false(v) || (mio_json_is_number(v) && v->valuedouble == 0))) continue;
        if (k->when == HF_WHEN_NOT_NULL && null) continue;
        if (k->when == HF_WHEN_REQUIRED && null) {
            st = mio_err_set(MIO_ERR_NOT_FOUND, "%s/config.json: \"%s\" is missing (%s.%s)", c->dir, k->hf[0] ? k->hf[0] : "?",
                             c->arch->arch, k->gguf);
            break;
        }
        if (k->when == HF_WHEN_OR_ZERO && null) v = num = mio_json_new_number(0);
        if (v && k->mul != 0 && mio_json_is_number(v)) {
            mio_json *m = mio_json_new_number(v->valuedouble * k->mul); /* Python's float product */
            mio_json_free(num);
            v = num = m;
        }
        if (v && k->type == HF_KEY_BOOL) { /* a config flag, written as the reference's bool */
            char key[128];
            if (!(st = kv_name(key, sizeof key, c->arch->arch, k->gguf))) st = mio_writer_set_bool(w, key, 1);
            mio_json_free(num);
            continue;
        }
        if (!v) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        else st = k->type == HF_KEY_U32 ? put_u32(w, c, k->gguf, v, which) : put_f32(w, c, k->gguf, v, which);
        mio_json_free(num);
    }
    return st;
}

/* TextModel.set_gguf_parameters (+ LlamaModel's two keys), in its order; or
 * the class's own list (hf_arch.params); then the class's keys. */
static mio_status write_params(mio_writer *w, const hf_ctx *c) {
    const mio_json *h = c->config, *v;
    const char *which;
    mio_status st = MIO_OK;
    mio_json *rp = NULL;
#define TRY(x) do { if ((st = (x))) goto done; } while (0)
    if (c->arch->params) {
        TRY(rope_params(c, &rp));
        TRY(write_key_rules(w, c, c->arch->params, c->arch->n_params, rp));
        TRY(write_key_rules(w, c, c->arch->keys, c->arch->n_keys, rp));
        goto done;
    }
#define HP(...) (which = NULL, find_hparam(h, (const char *const[]){__VA_ARGS__, NULL}, &which))
    TRY(put_u32(w, c, "block_count", HP("n_layers", "num_hidden_layers", "n_layer", "num_layers"), "num_hidden_layers"));
    if ((v = HP("max_position_embeddings", "n_ctx", "n_positions", "max_length", "max_sequence_length",
                "model_max_length")))
        TRY(put_u32(w, c, "context_length", v, which));
    if ((v = HP("hidden_size", "n_embd", "dim"))) TRY(put_u32(w, c, "embedding_length", v, which));
    if ((v = HP("prefix_dense_intermediate_size", "dense_intermediate_size", "intermediate_size", "n_inner",
                "hidden_dim")))
        TRY(put_u32(w, c, "feed_forward_length", v, which));
    if ((v = HP("num_attention_heads", "n_head", "n_heads"))) TRY(put_u32(w, c, "attention.head_count", v, which));
    if (c->arch->mqa_kv) {
        char key[128];
        TRY(kv_name(key, sizeof key, c->arch->arch, "attention.head_count_kv"));
        TRY(mio_writer_set_u32(w, key, 1));
    } else if ((v = HP("num_key_value_heads", "n_kv_heads"))) {
        TRY(put_u32(w, c, "attention.head_count_kv", v, which));
    }
    if (mio_json_is_false(jget(h, "is_causal"))) {
        char key[128];
        TRY(kv_name(key, sizeof key, c->arch->arch, "attention.causal"));
        TRY(mio_writer_set_bool(w, key, 0));
    }
    TRY(rope_params(c, &rp));
    const mio_json *rpf = rope_full(rp), *rt = rget(rpf, "rope_type");
    if (rt) {
        if (!mio_json_is_string(rt)) {
            st = mio_err_set(MIO_ERR_INVALID_JSON, "%s/config.json: rope_type must be a string", c->dir);
            goto done;
        }
        const char *t = rt->valuestring;
        const mio_json *factor = rget(rpf, "factor");
        char key[128];
        if (strcmp(t, "linear") == 0 && factor) {
            TRY(kv_name(key, sizeof key, c->arch->arch, "rope.scaling.type"));
            TRY(mio_writer_set_str(w, key, "linear", 6));
            TRY(put_f32(w, c, "rope.scaling.factor", factor, "rope_scaling.factor"));
        } else if (strcmp(t, "yarn") == 0 && factor) {
            TRY(kv_name(key, sizeof key, c->arch->arch, "rope.scaling.type"));
            TRY(mio_writer_set_str(w, key, "yarn", 4));
            TRY(put_f32(w, c, "rope.scaling.factor", factor, "rope_scaling.factor"));
            const mio_json *o = jget(rpf, "original_max_position_embeddings");
            if (!o) {
                st = mio_err_set(MIO_ERR_NOT_FOUND, "%s/config.json: yarn rope scaling without "
                                 "original_max_position_embeddings", c->dir);
                goto done;
            }
            TRY(put_u32(w, c, "rope.scaling.original_context_length", o, "original_max_position_embeddings"));
            if ((v = rget(rpf, "extrapolation_factor"))) TRY(put_f32(w, c, "rope.scaling.yarn_ext_factor", v, "extrapolation_factor"));
            const mio_json *af = jget(rpf, "attention_factor");
            v = af ? (mio_json_is_null(af) ? NULL : af) : rget(rpf, "attn_factor");
            if (v) TRY(put_f32(w, c, "rope.scaling.yarn_attn_factor", v, "attention_factor"));
            if ((v = rget(rpf, "beta_fast"))) TRY(put_f32(w, c, "rope.scaling.yarn_beta_fast", v, "beta_fast"));
            if ((v = rget(rpf, "beta_slow"))) TRY(put_f32(w, c, "rope.scaling.yarn_beta_slow", v, "beta_slow"));
        } else if (strcmp(t, "su") == 0 || strcmp(t, "longrope") == 0) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: rope_type %s (longrope) is not converted for %s (only for "
                             "Phi3ForCausalLM)", c->dir, t, c->arch->hf_name);
            goto done;
        } else if (strcmp(t, "dynamic") == 0 || (strlen(t) == 6 && strncasecmp(t, "llama3", 6) == 0)) {
            /* dynamic: handled by other model classes; llama3: rope_freqs.weight */
        } else if (strcmp(t, "default") != 0 && strcmp(t, "linear") != 0 && strcmp(t, "yarn") != 0) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: unknown rope_type %s", c->dir, t);
            goto done;
        }
    }
    if (jget(rp, "mrope_section")) {
        st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: mrope_section (multimodal rope) is not converted", c->dir);
        goto done;
    }
    if ((v = rget(rpf, "rope_theta"))) TRY(put_f32(w, c, "rope.freq_base", v, "rope_theta"));
    const mio_json *swa = jget(rp, "sliding_attention");
    if (swa && (v = rget(swa, "rope_theta"))) TRY(put_f32(w, c, "rope.freq_base_swa", v, "rope_theta"));
    if ((v = HP("rms_norm_eps", "norm_eps"))) TRY(put_f32(w, c, "attention.layer_norm_rms_epsilon", v, which));
    if ((v = HP("layer_norm_eps", "layer_norm_epsilon", "norm_epsilon")))
        TRY(put_f32(w, c, "attention.layer_norm_epsilon", v, which));
    if ((v = HP("num_local_experts", "num_experts", "n_routed_experts"))) TRY(put_u32(w, c, "expert_count", v, which));
    if ((v = HP("num_experts_per_tok", "num_experts_per_token", "top_k_experts")))
        TRY(put_u32(w, c, "expert_used_count", v, which));
    if ((v = rget(h, "n_group"))) TRY(put_u32(w, c, "expert_group_count", v, "n_group"));
    if ((v = rget(h, "topk_group"))) TRY(put_u32(w, c, "expert_group_used_count", v, "topk_group"));
    if ((v = HP("score_function", "scoring_func", "score_func", "moe_router_activation", "moe_router_activation_func",
                "expert_selection_fn"))) {
        /* gguf's ExpertGatingFuncType */
        const char *f = mio_json_is_string(v) ? v->valuestring : "";
        uint32_t g = !strcmp(f, "softmax") ? 1 : !strcmp(f, "sigmoid") ? 2 : !strcmp(f, "sqrtsoftplus") ? 4 : 0;
        char key[128];
        if (!g) {
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: %s \"%s\" is not an expert gating function the "
                             "reference knows (softmax, sigmoid, sqrtsoftplus)", c->dir, which, f);
            goto done;
        }
        TRY(kv_name(key, sizeof key, c->arch->arch, "expert_gating_func"));
        TRY(mio_writer_set_u32(w, key, g));
    }
    if ((v = rget(h, "head_dim"))) {
        TRY(put_u32(w, c, "attention.key_length", v, "head_dim"));
        TRY(put_u32(w, c, "attention.value_length", v, "head_dim"));
    }
    TRY(mio_writer_set_u32(w, "general.file_type", (uint32_t)file_type(c)));
    if (c->arch->llama_params) {
        TRY(put_u32(w, c, "vocab_size", jget(h, "vocab_size"), "vocab_size"));
        char key[128];
        TRY(kv_name(key, sizeof key, c->arch->arch, "rope.dimension_count"));
        TRY(mio_writer_set_u32(w, key, (uint32_t)c->d.head_dim));
    }
    TRY(write_key_rules(w, c, c->arch->keys, c->arch->n_keys, rp));
#undef HP
#undef TRY
done:
    mio_json_free(rp);
    return st;
}

/* PoolingType of a pooling mode name (the reference's mode_mapping), -1 for another */
static int pooling_of_mode(const mio_json *v) {
    if (!mio_json_is_string(v)) return -1;
    return !strcmp(v->valuestring, "mean") ? 1 : !strcmp(v->valuestring, "cls") ? 2 : !strcmp(v->valuestring, "lasttoken") ? 3 : -1;
}

/* TextModel._try_set_pooling_type, read before any output exists: the first
 * module of modules.json whose type ends in "Pooling", its config.json's mode
 * (MEAN 1, CLS 2, LAST 3); config.json's classifier_pooling ("cls" or "mean"). */
static mio_status read_pooling(hf_ctx *c) {
    c->pooling_type = c->classifier_pooling = -1;
    mio_json *mods = NULL, *pc = NULL;
    mio_status st = hf_read_json(c->dir, "modules.json", true, &mods);
    if (st) return st;
    const char *path = NULL;
    if (mods && !mio_json_is_array(mods)) st = mio_err_set(MIO_ERR_INVALID_JSON, "%s/modules.json: not a list", c->dir);
    for (const mio_json *m = mods && !st ? mods->child : NULL; m && !path; m = m->next) {
        const mio_json *t = jget(m, "type"), *p = jget(m, "path");
        if (!mio_json_is_string(t) || !ends_with(t->valuestring, "Pooling")) continue;
        if (!mio_json_is_string(p) || !p->valuestring[0] || p->valuestring[0] == '/' || strstr(p->valuestring, ".."))
            st = mio_err_set(MIO_ERR_INVALID_JSON, "%s/modules.json: the pooling module's path is not a folder inside the "
                             "checkpoint", c->dir);
        else
            path = p->valuestring;
    }
    if (!st && path) {
        char name[4096];
        snprintf(name, sizeof name, "%s/config.json", path);
        if (!(st = hf_read_json(c->dir, name, false, &pc))) {
            int pt = -1;
            if (!mio_json_is_object(pc)) pt = -2;
            else if (cfg_truthy(pc, "pooling_mode_mean_tokens")) pt = 1;
            else if (cfg_truthy(pc, "pooling_mode_cls_token")) pt = 2;
            else if (cfg_truthy(pc, "pooling_mode_lasttoken")) pt = 3;
            else pt = pooling_of_mode(jget(pc, "pooling_mode"));
            if (pt < 0)
                st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/%s: a pooling mode other than mean, cls and lasttoken is not "
                                 "converted (llama.cpp has no other)", c->dir, name);
            c->pooling_type = pt;
        }
    }
    const mio_json *cp = jget(c->config, "classifier_pooling");
    if (!st && cp && !mio_json_is_null(cp)) {
        c->classifier_pooling = pooling_of_mode(cp);
        if (c->classifier_pooling != 1 && c->classifier_pooling != 2)
            st = mio_err_set(MIO_ERR_UNSUPPORTED, "%s/config.json: classifier_pooling must be \"cls\" or \"mean\"", c->dir);
    }
    mio_json_free(mods);
    mio_json_free(pc);
    return st;
}

/* Pooling that read_pooling found, and refusals of checkpoints the
 * architecture's class treats otherwise (Qwen3Model's reranker detection). */
static mio_status check_variants(hf_ctx *c) {
    c->pooling_type = c->classifier_pooling = -1;
    if (c->arch->pooling) {
        mio_status st = read_pooling(c);
        if (st) return st;
    }
    if (c->arch->reranker_check) {
        const char *base = strrchr(c->dir, '/');
        base = base && base[1] ? base + 1 : c->dir;
        const mio_json *np = jget(c->config_raw, "_name_or_path"), *mt = jget(c->config_raw, "model_type");
        const char *hints[] = {base, mio_json_is_string(np) ? np->valuestring : "", mio_json_is_string(mt) ? mt->valuestring : ""};
        for (size_t i = 0; i < 3; i++) {
            char low[512];
            size_t k = 0;
            for (; hints[i][k] && k < sizeof low - 1; k++) low[k] = (char)((hints[i][k] >= 'A' && hints[i][k] <= 'Z') ? hints[i][k] + 32 : hints[i][k]);
            low[k] = 0;
            if (strstr(low, "qwen3-reranker") || strstr(low, "qwen3-vl-reranker"))
                return mio_err_set(MIO_ERR_UNSUPPORTED, "%s: a Qwen3 reranker checkpoint is not converted", c->dir);
        }
        char *rd = path_join(c->dir, "README.md");
        if (!rd) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        FILE *fp = fopen(rd, "rb");
        free(rd);
        if (fp) {
            char line[4096];
            bool hit = false;
            while (!hit && fgets(line, sizeof line, fp)) {
                for (char *q = line; *q; q++) *q = (char)((*q >= 'A' && *q <= 'Z') ? *q + 32 : *q);
                hit = strstr(line, "# qwen3-reranker") || strstr(line, "# qwen3-vl-reranker");
            }
            fclose(fp);
            if (hit) return mio_err_set(MIO_ERR_UNSUPPORTED, "%s: a Qwen3 reranker checkpoint (README.md) is not converted", c->dir);
        }
    }
    return MIO_OK;
}

static mio_status write_metadata(mio_writer *w, hf_ctx *c, hf_meta *meta, hf_vocab_info *vi) {
    mio_status st;
    const char *arch = c->arch->arch;
    if ((st = mio_writer_set_str(w, "general.architecture", arch, strlen(arch)))) return st;
    if (c->has_attn_factor && !c->p->vocab_only) {
        /* generate_extra_tensors runs before the metadata (ModelBase.write:
         * prepare_tensors first), so its key follows general.architecture;
         * a vocab-only run never generates it */
        char key[128];
        if ((st = kv_name(key, sizeof key, arch, "rope.scaling.attn_factor")) ||
            (st = mio_writer_set_f32(w, key, (float)c->attn_factor)))
            return st;
    }
    if ((st = mio_writer_set_str(w, "general.type", "model", 5))) return st;
    hf_meta_tensor *mt = calloc(c->n_items ? c->n_items : 1, sizeof *mt);
    if (!mt) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    size_t n_mt = c->p->vocab_only ? 0 : c->n_items;
    for (size_t i = 0; i < n_mt; i++) {
        mt[i].name = c->items[i].name;
        mt[i].n_dims = c->items[i].n_dims;
        memcpy(mt[i].ne, c->items[i].ne, sizeof mt[i].ne);
    }
    hf_meta_in mi = {.dir = c->dir, .config = c->config_raw, .model_name = c->p->model_name, .tensors = mt,
                     .n_tensors = n_mt};
    st = mio_hf_meta_write(w, &mi, meta);
    free(mt);
    if (st) return st;
    if (meta->card_warning[0]) mio_warn_set("%s", meta->card_warning);
    if ((st = write_params(w, c))) return st;
    if ((st = mio_writer_set_u32(w, "general.quantization_version", 2))) return st;
    hf_vocab_opts vo = {.dir = c->dir, .config = c->config, .flavour = c->arch->vocab, .pre_override = c->p->pre};
    if ((st = mio_hf_vocab_write(w, &vo, vi))) return st;
    /* the embedding rows are the vocabulary (llama.cpp refuses a model whose are not) */
    for (size_t i = 0; i < c->n_items && !c->p->vocab_only; i++)
        if (strcmp(c->items[i].name, "token_embd.weight") == 0 && (uint64_t)c->items[i].ne[1] != vi->n_tokens)
            return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%s: the tokenizer has %llu tokens but %s has %lld rows (config.json "
                               "vocab_size %lld)", c->dir, (unsigned long long)vi->n_tokens, c->items[i].source,
                               (long long)c->items[i].ne[1], (long long)c->d.vocab);
    return MIO_OK;
}

/* --------------------------------------------------------------- numerics */

/* numpy's f16 <-> f32 (astype), exact for NaN payloads, which ggml's
 * conversions (core/half.h) quiet */
static inline float np_f16_to_f32(uint16_t h) {
    if ((h & 0x7c00u) == 0x7c00u) return half_u2f(((uint32_t)(h & 0x8000u) << 16) | 0x7f800000u | ((uint32_t)(h & 0x3ffu) << 13));
    return half_to_f32(h);
}

static inline uint16_t np_f32_to_f16(float f) {
    uint32_t u = half_f2u(f);
    uint32_t nan = 0x7c00u + ((u & 0x7fffffu) >> 13);
    nan += nan == 0x7c00u; /* numpy keeps the payload's top bits and never makes a NaN an infinity */
    uint16_t h = half_from_f32(f);
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? (((u >> 16) & 0x8000u) | nan) : h);
}

/* Bytes of one element of a float source dtype */
static size_t src_elem_size(int dt) { return dt == MIO_ST_F64 ? 8 : dt == MIO_ST_F32 ? 4 : 2; }

/* n source elements of dtype dt to f32: torch's .to(float32) for BF16 / F64,
 * numpy's astype for F16 (written as plain loops so that they vectorize) */
static void to_f32(int dt, const uint8_t *src, size_t n, float *dst) {
    switch (dt) {
    case MIO_ST_F32: memcpy(dst, src, n * 4); break;
    case MIO_ST_F16:
        for (size_t k = 0; k < n; k++) {
            uint16_t h;
            memcpy(&h, src + 2 * k, 2);
            dst[k] = np_f16_to_f32(h);
        }
        break;
    case MIO_ST_BF16:
        for (size_t k = 0; k < n; k++) {
            uint16_t h;
            memcpy(&h, src + 2 * k, 2);
            dst[k] = bf16_to_f32(h);
        }
        break;
    default: /* F64 */
        for (size_t k = 0; k < n; k++) {
            double d;
            memcpy(&d, src + 8 * k, 8);
            dst[k] = (float)d;
        }
        break;
    }
}

/* A chunk's conversion to a float output type, direct from the source bytes:
 * what torch's widening then gguf-py's narrowing give, element by element.
 * BF16 -> BF16 is the identity except that a signalling NaN comes back quiet
 * (bf16 -> f32 is exact, gguf-py's f32 -> bf16 sets the quiet bit of a NaN). */
static void float_chunk(int dt, int type, const uint8_t *src, size_t n, uint8_t *dst) {
    if (dt == MIO_ST_BF16 && type == MIO_TYPE_BF16) {
        /* four lanes at a time: a lane is a NaN when (h & 0x7fff) + 0x7f reaches 0x8000 */
        size_t k = 0;
        for (; k + 4 <= n; k += 4) {
            uint64_t x;
            memcpy(&x, src + 2 * k, 8);
            uint64_t nan = ((x & 0x7fff7fff7fff7fffull) + 0x007f007f007f007full) & 0x8000800080008000ull;
            x |= nan >> 9;
            memcpy(dst + 2 * k, &x, 8);
        }
        for (; k < n; k++) {
            uint16_t h;
            memcpy(&h, src + 2 * k, 2);
            h = (uint16_t)((h & 0x7fffu) > 0x7f80u ? h | 0x40u : h);
            memcpy(dst + 2 * k, &h, 2);
        }
        return;
    }
    if ((dt == MIO_ST_F16 && type == MIO_TYPE_F16) || (dt == MIO_ST_F32 && type == MIO_TYPE_F32)) {
        memcpy(dst, src, n * (dt == MIO_ST_F32 ? 4 : 2));
        return;
    }
    float tmp[1024];
    size_t es = src_elem_size(dt);
    for (size_t k0 = 0; k0 < n; k0 += 1024) {
        size_t m = n - k0 < 1024 ? n - k0 : 1024;
        to_f32(dt, src + k0 * es, m, tmp);
        if (type == MIO_TYPE_F32) {
            memcpy(dst + k0 * 4, tmp, m * 4);
        } else if (type == MIO_TYPE_F16) {
            for (size_t k = 0; k < m; k++) {
                uint16_t h = np_f32_to_f16(tmp[k]);
                memcpy(dst + 2 * (k0 + k), &h, 2);
            }
        } else {
            for (size_t k = 0; k < m; k++) {
                uint16_t h = bf16_from_f32(tmp[k]);
                memcpy(dst + 2 * (k0 + k), &h, 2);
            }
        }
    }
}

typedef struct float_job {
    int dt, type, parts;
    const uint8_t *src;
    uint8_t *dst;
    size_t n, es, os;
} float_job;

static void float_part(void *ctx, int part) {
    const float_job *j = ctx;
    size_t per = (j->n + (size_t)j->parts - 1) / (size_t)j->parts;
    size_t a = (size_t)part * per, b = a + per < j->n ? a + per : j->n;
    if (a < b) float_chunk(j->dt, j->type, j->src + a * j->es, b - a, j->dst + a * j->os);
}

static int thread_count(int n_threads) {
    if (n_threads > 0) return n_threads > 256 ? 256 : n_threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* ---------------------------------------------------------------- writing */

typedef struct hf_out {
    uint32_t n_files;
    char **paths;
    mio_writer **w;
    mio_atomic_file *af;
    int fd;             /* with a preset: the unnamed intermediate file */
} hf_out;

static void out_free(hf_out *o) {
    for (uint32_t k = 0; k < o->n_files; k++) {
        if (o->af && o->af[k].tmp_path) mio_atomic_abort(&o->af[k]);
        if (o->w) mio_writer_free(o->w[k]);
        if (o->paths) free(o->paths[k]);
    }
    free(o->paths);
    free(o->w);
    free(o->af);
    memset(o, 0, sizeof *o);
}

/* gguf-py's add_tensor_info: a new file when the current one has tensors and
 * the next one would pass --split-max-tensors or --split-max-size (unpadded
 * bytes); --no-tensor-first-split starts with an empty first file. */
static uint32_t assign_files(hf_ctx *c) {
    uint32_t f = c->p->no_tensor_first_split ? 1 : 0;
    int64_t n_in = 0;
    uint64_t bytes_in = 0;
    for (size_t i = 0; i < c->n_items; i++) {
        hf_item *it = &c->items[i];
        if (n_in > 0 && ((c->p->split_max_tensors > 0 && n_in >= c->p->split_max_tensors) ||
                         (c->p->split_max_bytes > 0 && bytes_in + it->nbytes > c->p->split_max_bytes))) {
            f++;
            n_in = 0;
            bytes_in = 0;
        }
        it->file = f;
        n_in++;
        bytes_in += it->nbytes;
    }
    return f + 1;
}

/* Path.stem of the last component: without its last ".suffix" */
static mio_status shard_path(const char *base, uint32_t i, uint32_t n, char **out) {
    const char *slash = strrchr(base, '/');
    const char *name = slash ? slash + 1 : base;
    const char *dot = strrchr(name, '.');
    size_t stem_end = (dot && dot != name) ? (size_t)(dot - base) : strlen(base);
    size_t len = stem_end + 32;
    char *p = malloc(len);
    if (!p) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    snprintf(p, len, "%.*s-%05u-of-%05u.gguf", (int)stem_end, base, i + 1, n);
    *out = p;
    return MIO_OK;
}

typedef struct conv_buf {
    uint8_t *raw;   /* source bytes of a chunk */
    uint8_t *perm;  /* the same rows in permuted order */
    size_t cap_perm;
    float *f;       /* the chunk as f32 (permuted) */
    uint8_t *enc;   /* the chunk encoded */
    size_t cap_raw, cap_f, cap_enc;
} conv_buf;

static mio_status grow(void **p, size_t *cap, size_t need) {
    if (need <= *cap) return MIO_OK;
    void *q = realloc(*p, need);
    if (!q) return mio_err_set(MIO_ERR_NOMEM, "out of memory (%zu bytes for a conversion chunk)", need);
    *p = q;
    *cap = need;
    return MIO_OK;
}

/* Written output bytes of item it: handed to the writer, counted, reported to
 * the progress callback (which may cancel). */
static mio_status put_chunk(hf_ctx *c, mio_writer *w, const hf_item *it, const uint8_t *out, size_t len,
                            uint64_t *bytes_done, uint64_t bytes_total, int64_t index) {
    mio_status st = mio_writer_write_tensor_part(w, out, len);
    if (st) return st;
    *bytes_done += len;
    if (c->p->progress && c->p->progress(c->p->progress_user, index, (int64_t)c->n_items, *bytes_done, bytes_total))
        return mio_err_set(MIO_ERR_CANCELLED, "cancelled by the progress callback in tensor %s", it->name);
    return MIO_OK;
}

/* One chunk of output rows: n source elements (dtype it->src_dtype) at src,
 * converted to the item's type (out_len bytes), written, progress reported. */
static mio_status emit_chunk(hf_ctx *c, mio_writer *w, const hf_item *it, const hf_src *s, const uint8_t *src, size_t n,
                             size_t out_len, conv_buf *b, uint64_t *bytes_done, uint64_t bytes_total, int64_t index) {
    mio_status st;
    size_t es = src_elem_size(it->src_dtype);
    bool is_float = it->type == MIO_TYPE_F32 || it->type == MIO_TYPE_F16 || it->type == MIO_TYPE_BF16;
    size_t os = is_float ? (size_t)mio_type_block_bytes(it->type) : 0;
        if ((st = grow((void **)&b->enc, &b->cap_enc, out_len))) return st;
    if (it->add_one) { /* Gemma3Model.modify_tensors: data + 1 after the widening to f32 (F16 stays F16) */
        if ((st = grow((void **)&b->f, &b->cap_f, n * sizeof(float)))) return st;
        to_f32(it->src_dtype, src, n, b->f);
        for (size_t k = 0; k < n; k++)
            b->f[k] = it->src_dtype == MIO_ST_F16 ? np_f16_to_f32(np_f32_to_f16(b->f[k] + 1.0f)) : b->f[k] + 1.0f;
        if (is_float) float_chunk(MIO_ST_F32, it->type, (const uint8_t *)b->f, n, b->enc);
        else if ((st = mio_encode_f32_mt(it->type, b->f, n, b->enc, out_len, c->p->n_threads)))
            return mio_err_prefix(st, "tensor %s: ", s->name);
    } else if (is_float) {
        /* the plain copies are bound by memory: threads only for real conversions */
        bool light = it->src_dtype == MIO_ST_BF16 ? it->type == MIO_TYPE_BF16
                                                  : (it->src_dtype == MIO_ST_F16 && it->type == MIO_TYPE_F16) ||
                                                        (it->src_dtype == MIO_ST_F32 && it->type == MIO_TYPE_F32);
        int parts = !light && n >= ((size_t)1 << 16) ? thread_count(c->p->n_threads) : 1;
        float_job j = {.dt = it->src_dtype, .type = it->type, .parts = parts, .src = src, .dst = b->enc, .n = n,
                       .es = es, .os = os};
        if (parts > 1) mio_pool_run(float_part, &j, parts);
        else float_part(&j, 0);
    } else {
        if ((st = grow((void **)&b->f, &b->cap_f, n * sizeof(float)))) return st;
        to_f32(it->src_dtype, src, n, b->f);
        if ((st = mio_encode_f32_mt(it->type, b->f, n, b->enc, out_len, c->p->n_threads))) {
            if (st == MIO_ERR_NON_FINITE)
                return mio_err_prefix(st, "tensor %s (%s) has a NaN or infinite value, which %s cannot encode: ",
                                      s->name, c->part_names[s->part], mio_type_name(it->type));
            return mio_err_prefix(st, "tensor %s: ", s->name);
        }
    }
    return put_chunk(c, w, it, b->enc, out_len, bytes_done, bytes_total, index);
}

/* An MXFP4 item: per expert its blocks and scales read whole (one expert's
 * bytes), each output row's blocks made ggml's block_mxfp4: the scale byte,
 * then 16 bytes whose low nibble is element j and high nibble element j + 16
 * (the checkpoint packs elements 2i and 2i + 1 in byte i: GptOssModel's
 * transform_nibble_layout). */
static mio_status write_mxfp4(hf_ctx *c, mio_writer *w, const hf_item *it, conv_buf *b, uint64_t *bytes_done,
                              uint64_t bytes_total, int64_t index) {
    const hf_src *sb = &c->src[it->src], *ss = &c->src[it->src2];
    uint64_t stride = it->mx->g_stride ? (uint64_t)it->mx->g_stride : 1, off = (uint64_t)it->mx->g_offset;
    uint64_t nb = (uint64_t)it->ne[0] / 32, rows = (uint64_t)it->ne[1], src_rows = rows * stride;
    size_t bsz = (size_t)(src_rows * nb * 16), ssz = (size_t)(src_rows * nb), osz = (size_t)(rows * nb * 17);
    mio_status st;
    if ((st = grow((void **)&b->raw, &b->cap_raw, bsz)) || (st = grow((void **)&b->perm, &b->cap_perm, ssz)) ||
        (st = grow((void **)&b->enc, &b->cap_enc, osz)))
        return st;
    for (int64_t e = 0; e < it->ne[2]; e++) {
        if ((st = mio_st_read_tensor(c->parts[sb->part], sb->index, (uint64_t)e * bsz, b->raw, bsz)))
            return mio_err_prefix(st, "%s: reading %s: ", c->part_names[sb->part], sb->name);
        if ((st = mio_st_read_tensor(c->parts[ss->part], ss->index, (uint64_t)e * ssz, b->perm, ssz)))
            return mio_err_prefix(st, "%s: reading %s: ", c->part_names[ss->part], ss->name);
        uint8_t *o = b->enc;
        for (uint64_t r = 0; r < rows; r++) {
            uint64_t sr = r * stride + off;
            for (uint64_t k = 0; k < nb; k++, o += 17) {
                const uint8_t *q = b->raw + (sr * nb + k) * 16;
                o[0] = b->perm[sr * nb + k];
                for (int i = 0; i < 8; i++) { /* q[i] holds elements 2i, 2i + 1; q[i + 8] elements 2i + 16, 2i + 17 */
                    o[1 + 2 * i] = (uint8_t)((q[i] & 15) | (q[i + 8] & 15) << 4);
                    o[2 + 2 * i] = (uint8_t)((q[i] >> 4) | (q[i + 8] >> 4) << 4);
                }
            }
        }
        if ((st = put_chunk(c, w, it, b->enc, osz, bytes_done, bytes_total, index))) return st;
    }
    return MIO_OK;
}

/* A gathered item (hf_tensor_rule.gather): each slice read whole (one expert's
 * or one head's matrix, never more), its rows or columns picked in chunks of
 * output rows. */
static mio_status write_gathered(hf_ctx *c, mio_writer *w, const hf_item *it, conv_buf *b, uint64_t *bytes_done,
                                 uint64_t bytes_total, int64_t index) {
    const hf_tensor_rule *g = it->gather;
    const hf_src *s = &c->src[it->src];
    const mio_st_file *sf = c->parts[s->part];
    size_t es = src_elem_size(it->src_dtype);
    uint64_t a = it->g_a, bcols = it->g_b, stride = g->g_stride ? (uint64_t)g->g_stride : 1, off = (uint64_t)g->g_offset;
    uint64_t a0 = g->g_a0 ? (uint64_t)mio_hf_dim(g->g_a0, &c->d) : 0;
    uint64_t rows = (uint64_t)it->ne[1], cols = (uint64_t)it->ne[0];
    uint64_t row_bytes_out = rows && it->g_outer ? it->nbytes / (rows * it->g_outer) : 0;
    size_t slice = (size_t)(a * bcols) * es;
    mio_status st;
    if ((st = grow((void **)&b->raw, &b->cap_raw, slice))) return st;
    uint64_t per_chunk = HF_CHUNK_ELEMS / (cols ? cols : 1);
    if (per_chunk == 0) per_chunk = 1;
    if ((st = grow((void **)&b->perm, &b->cap_perm, (size_t)(per_chunk < rows ? per_chunk : rows) * cols * es))) return st;
    for (uint64_t o = 0; o < it->g_outer; o++) {
        if ((st = mio_st_read_tensor(sf, s->index, o * slice, b->raw, slice)))
            return mio_err_prefix(st, "%s: reading %s: ", c->part_names[s->part], s->name);
        for (uint64_t r0 = 0; r0 < rows; r0 += per_chunk) {
            uint64_t nr = rows - r0 < per_chunk ? rows - r0 : per_chunk;
            uint8_t *d = b->perm;
            for (uint64_t r = r0; r < r0 + nr; r++)
                for (uint64_t k = 0; k < cols; k++, d += es) {
                    uint64_t e = g->g_transpose ? (a0 + k) * bcols + r * stride + off : (a0 + r) * bcols + k * stride + off;
                    memcpy(d, b->raw + e * es, es);
                }
            if ((st = emit_chunk(c, w, it, s, b->perm, (size_t)(nr * cols), (size_t)(nr * row_bytes_out), b, bytes_done,
                                 bytes_total, index)))
                return st;
        }
    }
    return MIO_OK;
}

static mio_status write_item(hf_ctx *c, mio_writer *w, const hf_item *it, conv_buf *b, uint64_t *bytes_done,
                             uint64_t bytes_total, int64_t index) {
    mio_status st;
    if (it->src < 0) { /* a generated tensor */
        st = mio_writer_write_tensor(w, c->gen[-1 - it->src], (size_t)it->nbytes);
        *bytes_done += it->nbytes;
        return st;
    }
    if (it->gather) return write_gathered(c, w, it, b, bytes_done, bytes_total, index);
    if (it->mx) return write_mxfp4(c, w, it, b, bytes_done, bytes_total, index);
    /* the sources: one tensor, or an expert stack's experts one after the other */
    int64_t n_srcs = it->xsrc ? it->ne[2] : 1;
    uint64_t cols = (uint64_t)it->ne[0], rows = it->nbytes ? (uint64_t)(it->n_dims >= 2 ? it->ne[1] : 1) : 0;
    for (uint32_t k = 2; k < it->n_dims && !it->xsrc; k++) rows *= (uint64_t)it->ne[k];
    size_t es = src_elem_size(it->src_dtype);
    uint64_t row_bytes_out = it->nbytes / (rows ? rows * (uint64_t)n_srcs : 1);
    /* the row group that is read and permuted together: a head for q/k, else
     * as many rows as fill a chunk */
    uint64_t n_head = it->permute == HF_PERMUTE_Q ? (uint64_t)c->d.n_head : (uint64_t)c->d.n_head_kv;
    uint64_t group = it->permute && n_head ? rows / n_head : 1;
    if (group == 0) group = 1;
    uint64_t per_chunk = HF_CHUNK_ELEMS / (cols ? cols : 1);
    if (per_chunk < group) per_chunk = group;
    per_chunk -= per_chunk % group;
    if (per_chunk == 0) per_chunk = 1;
    for (int64_t xs = 0; xs < n_srcs; xs++) {
        const hf_src *s = &c->src[it->xsrc ? it->xsrc[xs] : it->src];
        const mio_st_file *sf = c->parts[s->part];
        for (uint64_t r0 = 0; r0 < rows; r0 += per_chunk) {
            uint64_t nr = rows - r0 < per_chunk ? rows - r0 : per_chunk;
            size_t n = (size_t)(nr * cols), rb = (size_t)cols * es;
            if ((st = grow((void **)&b->raw, &b->cap_raw, n * es))) return st;
            if ((st = mio_st_read_tensor(sf, s->index, r0 * rb, b->raw, n * es)))
                return mio_err_prefix(st, "%s: reading %s: ", c->part_names[s->part], s->name);
            const uint8_t *src = b->raw;
            if (it->permute) { /* LlamaModel.permute: whole rows move within a head */
                if ((st = grow((void **)&b->perm, &b->cap_perm, n * es))) return st;
                for (uint64_t r = 0; r < nr; r++)
                    memcpy(b->perm + r * rb, b->raw + (mio_hf_permute_src_row(r0 + r, rows, n_head) - r0) * rb, rb);
                src = b->perm;
            }
            if ((st = emit_chunk(c, w, it, s, src, n, (size_t)(nr * row_bytes_out), b, bytes_done, bytes_total, index)))
                return st;
        }
    }
    if (rows == 0 && (st = mio_writer_write_tensor(w, NULL, 0))) return st;
    return MIO_OK;
}

/* ------------------------------------------------------------ output names */

static bool is_dir(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static mio_status resolve_out(const hf_ctx *c, const char *out, const hf_meta *meta, const char *type_label, char **path) {
    *path = NULL;
    const char *target = out ? out : c->dir;
    if (is_dir(target)) {
        char *base = mio_hf_default_filename(meta, type_label, c->p->vocab_only != 0);
        if (!base) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        size_t len = strlen(base) + 6;
        char *fn = malloc(len);
        if (!fn) { free(base); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
        snprintf(fn, len, "%s.gguf", base);
        free(base);
        *path = path_join(target, fn);
        free(fn);
        return *path ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    const char *slash = strrchr(target, '/');
    size_t dl = slash ? (size_t)(slash - target + 1) : 0;
    char *name = NULL;
    mio_status st = mio_hf_fill_templated_filename(target + dl, type_label, &name);
    if (st) return st;
    size_t len = dl + strlen(name) + 1;
    char *p = malloc(len);
    if (!p) { free(name); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    snprintf(p, len, "%.*s%s", (int)dl, target, name);
    free(name);
    *path = p;
    return MIO_OK;
}

/* ------------------------------------------------------------------ driver */

static mio_status check_params(const mio_hf_params *p) {
    if (p->outtype != MIO_HF_OUT_AUTO && ftype_of_type(p->outtype) < 0)
        return mio_err_set(MIO_ERR_INVALID_ARG, "outtype %d (%s) is not one of auto, f32, f16, bf16, q8_0, tq1_0, tq2_0",
                           p->outtype, mio_type_name(p->outtype) ? mio_type_name(p->outtype) : "unknown");
    if (p->preset != MIO_PRESET_NONE) {
        if (!mio_preset_name(p->preset))
            return mio_err_set(MIO_ERR_INVALID_ARG, "preset %d is not a llama.cpp quantization type", p->preset);
        if (p->outtype != MIO_HF_OUT_AUTO)
            return mio_err_set(MIO_ERR_INVALID_ARG, "a preset (%s) quantizes the auto conversion; outtype must be auto",
                               mio_preset_name(p->preset));
        if (p->vocab_only) return mio_err_set(MIO_ERR_INVALID_ARG, "a preset and vocab_only exclude each other");
        if (p->split_max_tensors || p->split_max_bytes || p->no_tensor_first_split)
            return mio_err_set(MIO_ERR_INVALID_ARG, "splitting is not combined with a preset (split the quantized file with "
                               "mio_gguf_split)");
    }
    if (p->split_max_tensors < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "split_max_tensors is negative");
    if (p->vocab_only && (p->split_max_tensors || p->split_max_bytes || p->no_tensor_first_split))
        return mio_err_set(MIO_ERR_INVALID_ARG, "a vocabulary-only file is not split");
    if (p->pre && (!*p->pre || strlen(p->pre) >= 64))
        return mio_err_set(MIO_ERR_INVALID_ARG, "pre-tokenizer name '%s' is empty or too long", p->pre);
    return MIO_OK;
}

/* to_fd: the preset's unnamed intermediate (o->fd), not an output file: the
 * file callback is not called for it */
static mio_status report_and_write(hf_ctx *c, hf_out *o, const char *base_path, bool to_fd) {
    mio_status st = MIO_OK;
    /* tensors */
    uint64_t bytes_total = 0;
    for (size_t i = 0; i < c->n_items; i++) {
        const hf_item *it = &c->items[i];
        bytes_total += it->nbytes;
        if (c->p->plan) {
            mio_hf_tensor t = {.index = (int64_t)i, .name = it->name, .source = it->source, .source_dtype = it->src_dtype,
                               .n_dims = it->n_dims, .type = it->type, .permuted = it->permute != 0, .nbytes = it->nbytes};
            memcpy(t.ne, it->ne, sizeof t.ne);
            c->p->plan(c->p->plan_user, &t);
        }
    }
    /* files */
    if (!(o->paths = calloc(o->n_files, sizeof *o->paths))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k < o->n_files; k++) {
        if (o->n_files == 1) {
            if (!(o->paths[k] = strdup(base_path))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        } else if ((st = shard_path(base_path, k, o->n_files, &o->paths[k]))) {
            return st;
        }
        if (c->p->file && !to_fd) {
            mio_hf_file f = {.index = k, .count = o->n_files, .path = o->paths[k]};
            for (size_t i = 0; i < c->n_items; i++)
                if (c->items[i].file == k) f.n_tensors++, f.tensor_bytes += c->items[i].nbytes;
            c->p->file(c->p->file_user, &f);
        }
    }
    if (c->p->dry_run) return MIO_OK;
    /* refuse to write over an input (with a preset, the final output: paths[0]) */
    for (uint32_t k = 0; k < o->n_files; k++)
        for (uint32_t i = 0; c->parts && i < c->n_parts; i++)
            if (mio_st_uses_file(c->parts[i], o->paths[k]))
                return mio_err_set(MIO_ERR_INVALID_ARG, "output %s is the input shard %s", o->paths[k], c->part_names[i]);
    if (to_fd) {
        if ((st = mio_writer_begin_fd(o->w[0], o->fd))) return st;
    } else {
        if (!(o->af = calloc(o->n_files, sizeof *o->af))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        for (uint32_t k = 0; k < o->n_files; k++) o->af[k].fd = -1;
        for (uint32_t k = 0; k < o->n_files && !st; k++) {
            st = mio_atomic_open(o->paths[k], &o->af[k]);
            if (!st) st = mio_writer_begin_fd(o->w[k], o->af[k].fd);
        }
        if (st) return st;
    }
    conv_buf b = {0};
    uint64_t done = 0;
    for (size_t i = 0; i < c->n_items && !st; i++) {
        st = write_item(c, o->w[c->items[i].file], &c->items[i], &b, &done, bytes_total, (int64_t)i + 1);
        /* let the page cache drop what was read: RSS stays flat (pread, no mapping) */
    }
    free(b.raw);
    free(b.perm);
    free(b.f);
    free(b.enc);
    for (uint32_t k = 0; k < o->n_files && !st; k++) st = mio_writer_finish(o->w[k]);
    if (st || to_fd) return st;
    for (uint32_t k = 0; k < o->n_files && !st; k++) st = mio_atomic_close_tmp(&o->af[k]);
    if (!st) st = mio_atomic_rename_all(o->af, o->n_files);
    return st;
}

static mio_status convert(hf_ctx *c, const char *out, char **written) {
    mio_status st;
    hf_meta meta = {0};
    hf_vocab_info vi = {0};
    hf_out o = {.fd = -1};
    char *path = NULL;
    mio_writer *mw = NULL;
    if ((st = load_config(c)) || (st = load_dims(c)) || (st = check_variants(c))) goto done;
    st = index_tensors(c);
    if (st == MIO_ERR_NOT_FOUND && c->p->vocab_only && !c->parts) st = MIO_OK; /* no weights: fine for the vocabulary */
    if (st) goto done;
    choose_ftype(c);
    if (!c->p->vocab_only && (st = plan_items(c))) goto done;

    if ((st = mio_writer_new(c->p->vocab_only ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT, &mw))) goto done;
    if ((st = write_metadata(mw, c, &meta, &vi))) goto done;
    const char *label = c->p->preset != MIO_PRESET_NONE ? mio_preset_name(c->p->preset)
                        : file_type(c) == 38                 ? "MXFP4_MOE"
                                                             : ftype_label(c->ftype_type);
    if ((st = resolve_out(c, out, &meta, label, &path))) goto done;

    o.n_files = c->p->vocab_only ? 1 : assign_files(c);
    if (!(o.w = calloc(o.n_files, sizeof(mio_writer *)))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    o.w[0] = mw;
    mw = NULL;
    for (uint32_t k = 1; k < o.n_files && !st; k++) st = mio_writer_new(MIO_WRITER_DEFAULT, &o.w[k]);
    if (o.n_files > 1)
        for (uint32_t k = 0; k < o.n_files && !st; k++) {
            if (!(st = mio_writer_set_u16(o.w[k], "split.no", (uint16_t)k)) &&
                !(st = mio_writer_set_u16(o.w[k], "split.count", (uint16_t)o.n_files)))
                st = mio_writer_set_i32(o.w[k], "split.tensors.count", (int32_t)c->n_items);
        }
    for (size_t i = 0; i < c->n_items && !st; i++) {
        const hf_item *it = &c->items[i];
        st = mio_writer_declare_tensor(o.w[it->file], it->name, it->type, it->n_dims, it->ne);
    }
    if (st) goto done;
    if (o.n_files > 65535) { st = mio_err_set(MIO_ERR_LIMIT, "%u output files: more than split.count can hold", o.n_files); goto done; }

    if (c->p->preset == MIO_PRESET_NONE) {
        if ((st = report_and_write(c, &o, path, false))) goto done;
        if (written && !c->p->dry_run && !(*written = strdup(o.paths[0]))) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* a preset: the auto conversion into an unnamed file beside the output,
     * then the quantizer over it (llama_model_quantize's file) */
    {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
        if (!dir) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        if (!c->p->dry_run) {
            o.fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
            if (o.fd < 0) {
                st = mio_err_set(MIO_ERR_IO, "%s: cannot create the unnamed intermediate file (O_TMPFILE): %s", dir, strerror(errno));
                free(dir);
                goto done;
            }
        }
        free(dir);
        if (c->p->file) {
            mio_hf_file f = {.index = 0, .count = 1, .path = path, .n_tensors = (int64_t)c->n_items};
            c->p->file(c->p->file_user, &f);
        }
        st = report_and_write(c, &o, path, true);
        if (st || c->p->dry_run) goto done;
        /* the caller's quantizer settings as its own size says (a newer
         * header's fields pass through to mio_quantize), with this call's
         * preset, threads and callbacks */
        size_t qsize = c->p->quantize ? c->p->quantize->size : sizeof(mio_quantize_params);
        if (qsize > 65536) {
            st = mio_err_set(MIO_ERR_INVALID_ARG, "quantize->size is %zu; fill it with mio_quantize_default_params first", qsize);
            goto done;
        }
        size_t qcap = qsize > sizeof(mio_quantize_params) ? qsize : sizeof(mio_quantize_params);
        mio_quantize_params *q = calloc(1, qcap);
        if (!q) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        if (c->p->quantize) memcpy(q, c->p->quantize, qsize);
        else mio_quantize_default_params(q);
        q->preset = c->p->preset;
        q->dry_run = 0;
        q->plan = NULL;
        q->progress = c->p->progress; /* the second phase: the quantizer's tensors */
        q->progress_user = c->p->progress_user;
        q->n_threads = c->p->n_threads;
        char src[64];
        snprintf(src, sizeof src, "/proc/self/fd/%d", o.fd);
        st = mio_quantize(src, path, q);
        free(q);
        if (st) goto done;
        if (written && !(*written = strdup(path))) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
done:
    if (o.fd >= 0) close(o.fd);
    out_free(&o);
    mio_writer_free(mw);
    free(path);
    mio_hf_meta_free(&meta);
    return st;
}

mio_status mio_hf_convert(const char *model_dir, const char *out, const mio_hf_params *pin, char **written) {
    return mio_hf_convert_from(model_dir, NULL, NULL, 0, out, pin, written);
}

mio_status mio_hf_convert_from(const char *model_dir, const char *weights_base, const char *const *weight_files,
                               size_t n_weight_files, const char *out, const mio_hf_params *pin, char **written) {
    if (written) *written = NULL;
    mio_warn_clear();
    if (!model_dir) return mio_err_set(MIO_ERR_INVALID_ARG, "model_dir is NULL");
    mio_hf_params p;
    mio_hf_default_params(&p);
    if (pin) {
        mio_status st = mio_abi_params_merge(&p, sizeof p, pin, sizeof p, "mio_hf_params",
                                             "mio_hf_default_params");
        if (st) return st;
    }
    mio_status st = check_params(&p);
    if (st) return st;
    if (!is_dir(model_dir)) return mio_err_set(MIO_ERR_NOT_FOUND, "%s is not a directory", model_dir);
    hf_ctx c = {.dir = model_dir, .p = &p, .weights_base = weights_base, .weight_files = weight_files,
                .n_weight_files = n_weight_files};
    st = convert(&c, out, written);
    ctx_free(&c);
    return st;
}
