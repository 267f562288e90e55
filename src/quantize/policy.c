/* SPDX-License-Identifier: MIT */
/* policy.c — which tensors the quantizer converts and to what type, the order it
 * writes them in, --prune-layers, and the preset names. The rules are
 * llama.cpp's (llama_model_quantize in the pinned peer); docs/QUANTIZE.md states
 * them in prose and tests/interop/interop_quant_policy.c compares every decision
 * with the peer's. Written from the rules, not from llama.cpp's code. */
#include "quantize/quantize_internal.h"
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *qz_regex_to_posix(const char *in); /* the regex section, at the end */

/* ================================================================ presets */

typedef struct preset_row {
    const char *name;  /* llama-quantize's spelling */
    int preset;        /* llama_ftype */
    int type;          /* default ggml type */
} preset_row;

/* In llama-quantize's list order (a number picks the first row with that
 * ftype). ftype 39 (NVFP4) has a name in llama.cpp but llama_model_quantize of
 * this build refuses it ("invalid output file type"): not a preset. */
static const preset_row k_presets[] = {
    {"Q1_0", MIO_PRESET_Q1_0, MIO_TYPE_Q1_0}, {"Q2_0", MIO_PRESET_Q2_0, MIO_TYPE_Q2_0},
    {"Q4_0", MIO_PRESET_Q4_0, MIO_TYPE_Q4_0}, {"Q4_1", MIO_PRESET_Q4_1, MIO_TYPE_Q4_1},
    {"MXFP4_MOE", MIO_PRESET_MXFP4_MOE, MIO_TYPE_MXFP4},
    {"Q5_0", MIO_PRESET_Q5_0, MIO_TYPE_Q5_0}, {"Q5_1", MIO_PRESET_Q5_1, MIO_TYPE_Q5_1},
    {"IQ2_XXS", MIO_PRESET_IQ2_XXS, MIO_TYPE_IQ2_XXS}, {"IQ2_XS", MIO_PRESET_IQ2_XS, MIO_TYPE_IQ2_XS},
    {"IQ2_S", MIO_PRESET_IQ2_S, MIO_TYPE_IQ2_XS},      {"IQ2_M", MIO_PRESET_IQ2_M, MIO_TYPE_IQ2_S},
    {"IQ1_S", MIO_PRESET_IQ1_S, MIO_TYPE_IQ1_S},       {"IQ1_M", MIO_PRESET_IQ1_M, MIO_TYPE_IQ1_M},
    {"TQ1_0", MIO_PRESET_TQ1_0, MIO_TYPE_TQ1_0},       {"TQ2_0", MIO_PRESET_TQ2_0, MIO_TYPE_TQ2_0},
    {"Q2_K", MIO_PRESET_Q2_K, MIO_TYPE_Q2_K},          {"Q2_K_S", MIO_PRESET_Q2_K_S, MIO_TYPE_Q2_K},
    {"IQ3_XXS", MIO_PRESET_IQ3_XXS, MIO_TYPE_IQ3_XXS}, {"IQ3_S", MIO_PRESET_IQ3_S, MIO_TYPE_IQ3_S},
    {"IQ3_M", MIO_PRESET_IQ3_M, MIO_TYPE_IQ3_S},       {"Q3_K", MIO_PRESET_Q3_K_M, MIO_TYPE_Q3_K},
    {"IQ3_XS", MIO_PRESET_IQ3_XS, MIO_TYPE_IQ3_S},     {"Q3_K_S", MIO_PRESET_Q3_K_S, MIO_TYPE_Q3_K},
    {"Q3_K_M", MIO_PRESET_Q3_K_M, MIO_TYPE_Q3_K},      {"Q3_K_L", MIO_PRESET_Q3_K_L, MIO_TYPE_Q3_K},
    {"IQ4_NL", MIO_PRESET_IQ4_NL, MIO_TYPE_IQ4_NL},    {"IQ4_XS", MIO_PRESET_IQ4_XS, MIO_TYPE_IQ4_XS},
    {"Q4_K", MIO_PRESET_Q4_K_M, MIO_TYPE_Q4_K},        {"Q4_K_S", MIO_PRESET_Q4_K_S, MIO_TYPE_Q4_K},
    {"Q4_K_M", MIO_PRESET_Q4_K_M, MIO_TYPE_Q4_K},      {"Q5_K", MIO_PRESET_Q5_K_M, MIO_TYPE_Q5_K},
    {"Q5_K_S", MIO_PRESET_Q5_K_S, MIO_TYPE_Q5_K},      {"Q5_K_M", MIO_PRESET_Q5_K_M, MIO_TYPE_Q5_K},
    {"Q6_K", MIO_PRESET_Q6_K, MIO_TYPE_Q6_K},          {"Q8_0", MIO_PRESET_Q8_0, MIO_TYPE_Q8_0},
    {"F16", MIO_PRESET_F16, MIO_TYPE_F16},             {"BF16", MIO_PRESET_BF16, MIO_TYPE_BF16},
    {"F32", MIO_PRESET_F32, MIO_TYPE_F32},
};
#define N_PRESETS (sizeof k_presets / sizeof k_presets[0])
/* rows that are aliases (not the canonical name of their ftype) */
static bool is_alias(const preset_row *r) {
    return !strcmp(r->name, "Q3_K") || !strcmp(r->name, "Q4_K") || !strcmp(r->name, "Q5_K");
}

static bool str_ieq(const char *a, const char *b) {
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++;
        b++;
    }
    return *a == *b;
}

int mio_qz_preset_from_name(const char *name) {
    if (!name) return MIO_PRESET_NONE;
    for (size_t i = 0; i < N_PRESETS; i++)
        if (str_ieq(k_presets[i].name, name)) return k_presets[i].preset;
    /* a number, as std::stoi reads it: blanks, sign, digits, the rest ignored */
    const char *p = name;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) p++;
    bool neg = false;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    if (!isdigit((unsigned char)*p)) return MIO_PRESET_NONE;
    long long v = 0;
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (*p++ - '0');
        if (v > (long long)INT_MAX + 1) return MIO_PRESET_NONE; /* stoi throws: out of range */
    }
    if (neg) v = -v;
    if (v > INT_MAX || v < INT_MIN) return MIO_PRESET_NONE;
    for (size_t i = 0; i < N_PRESETS; i++)
        if (k_presets[i].preset == (int)v) return k_presets[i].preset;
    return MIO_PRESET_NONE;
}

const char *mio_qz_preset_name(int preset) {
    for (size_t i = 0; i < N_PRESETS; i++)
        if (k_presets[i].preset == preset && !is_alias(&k_presets[i])) return k_presets[i].name;
    return NULL;
}

/* The ggml type a preset quantizes to by default (llama_ftype_get_default_type),
 * -1 for an unknown preset. */
static int qz_preset_default_type(int preset) {
    for (size_t i = 0; i < N_PRESETS; i++)
        if (k_presets[i].preset == preset) return k_presets[i].type;
    return -1;
}

static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return (size_t)-1;
    size_t prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof cur[0]);
    }
    return prev[lb];
}

const char *mio_qz_preset_suggest(const char *name) {
    if (!name || !*name) return NULL;
    const preset_row *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < N_PRESETS; i++) {
        size_t d = edit_distance(name, k_presets[i].name);
        /* on a tie the canonical name wins over an alias ("q4_km": Q4_K_M, not Q4_K) */
        if (d < best_d || (d == best_d && best && is_alias(best) && !is_alias(&k_presets[i]))) {
            best_d = d;
            best = &k_presets[i];
        }
    }
    size_t len = strlen(name);
    size_t limit = len / 2 > 1 ? len / 2 : 1;
    return best && best_d <= limit ? best->name : NULL;
}

/* ================================================================== model */

static int64_t find_arch_key(const mio_gguf_file *f, const char *arch, const char *suffix) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    return mio_gguf_find_key(f, key);
}

/* Scalar or first element of an array, as u32 (what llama.cpp's get_key_or_arr
 * keeps for layer 0); *found false when absent or not an integer. */
static uint32_t read_u32_or_first(const mio_gguf_file *f, int64_t k, bool *found) {
    *found = false;
    if (k < 0) return 0;
    uint64_t v = 0;
    if (mio_gguf_kv_type(f, k) == MIO_GGUF_ARRAY) {
        if (mio_gguf_arr_u64(f, k, 0, &v) != MIO_OK) return 0;
    } else if (mio_gguf_kv_u64(f, k, &v) != MIO_OK) {
        return 0;
    }
    *found = true;
    return (uint32_t)v;
}

void mio_qz_model_finish(qz_model *m) {
    static const struct { const char *name; int arch; } k_arches[] = {
        {"llama", QZ_ARCH_LLAMA}, {"deci", QZ_ARCH_DECI}, {"qwen2", QZ_ARCH_QWEN2},
        {"jais2", QZ_ARCH_JAIS2}, {"olmo", QZ_ARCH_OLMO}, {"falcon", QZ_ARCH_FALCON},
        {"bailingmoe3", QZ_ARCH_BAILINGMOE3},
    };
    m->arch = QZ_ARCH_OTHER;
    for (size_t i = 0; i < sizeof k_arches / sizeof k_arches[0]; i++)
        if (!strcmp(m->arch_name, k_arches[i].name)) m->arch = k_arches[i].arch;
    switch (m->arch) {
    case QZ_ARCH_LLAMA: m->is_70b = m->n_expert != 8 && m->n_layer == 80 && m->n_head != m->n_head_kv; break;
    case QZ_ARCH_DECI:
    case QZ_ARCH_QWEN2:
    case QZ_ARCH_OLMO: m->is_70b = m->n_layer == 80; break;
    case QZ_ARCH_JAIS2: m->is_70b = m->n_layer == 68; break;
    default: m->is_70b = false; break;
    }
}

/* n_head / n_head_kv as llama.cpp's n_gqa(): 0 when n_head_kv is 0. */
static uint32_t qz_model_n_gqa(const qz_model *m) { return m->n_head_kv ? m->n_head / m->n_head_kv : 0; }

mio_status mio_qz_model_from_gguf(const mio_gguf_file *f, qz_model *m) {
    if (!f || !m) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : "model m");
    memset(m, 0, sizeof *m);
    int64_t k = mio_gguf_find_key(f, "general.architecture");
    mio_str s = {0};
    if (k >= 0 && mio_gguf_kv_str(f, k, &s) == MIO_OK && s.len < sizeof m->arch_name) {
        memcpy(m->arch_name, s.ptr, s.len);
        m->arch_name[s.len] = 0;
    }
    bool found;
    const char *a = m->arch_name;
    m->n_layer = read_u32_or_first(f, find_arch_key(f, a, "block_count"), &found);
    m->n_expert = read_u32_or_first(f, find_arch_key(f, a, "expert_count"), &found);
    m->n_head = read_u32_or_first(f, find_arch_key(f, a, "attention.head_count"), &found);
    m->n_head_kv = read_u32_or_first(f, find_arch_key(f, a, "attention.head_count_kv"), &found);
    if (!found) m->n_head_kv = m->n_head;
    mio_qz_model_finish(m);
    return MIO_OK;
}

/* ================================================================== order */

/* the block number of a name that starts with "blk.<int>." as sscanf("%d") reads it, else -1 */
static int name_layer(const char *name) {
    if (strncmp(name, "blk.", 4) != 0) return -1;
    const char *p = name + 4;
    /* %d: optional blanks, sign, digits (a value outside int is undefined in C; llama.cpp's names never have one) */
    while (isspace((unsigned char)*p)) p++;
    bool neg = false;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    if (!isdigit((unsigned char)*p)) return -1;
    long long v = 0;
    while (isdigit((unsigned char)*p)) {
        if (v < (long long)INT_MAX * 10) v = v * 10 + (*p - '0');
        p++;
    }
    if (neg) v = -v;
    if (v > INT_MAX) v = INT_MAX;
    if (v < INT_MIN) v = INT_MIN;
    /* sscanf stops after the number: the "." that follows is matched but its
     * absence does not change the value it stored */
    return (int)v;
}

static int cmp_weights(const void *pa, const void *pb) {
    const qz_item *a = pa, *b = pb;
    int la = name_layer(a->orig_name), lb = name_layer(b->orig_name);
    if (la != lb) return la < lb ? -1 : 1;
    return strcmp(a->orig_name, b->orig_name);
}

static int cmp_split(const void *pa, const void *pb) {
    const qz_item *a = pa, *b = pb;
    if (a->part != b->part) return a->part < b->part ? -1 : 1;
    if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
    return cmp_weights(pa, pb);
}

/* "blk.<digits>." anywhere in the name (the first occurrence, as a regex search):
 * where the digits start and how many. */
static bool find_blk(const char *name, size_t *at, size_t *len) {
    for (const char *p = strstr(name, "blk."); p; p = strstr(p + 1, "blk.")) {
        const char *d = p + 4, *e = d;
        while (isdigit((unsigned char)*e)) e++;
        if (e > d && *e == '.') {
            *at = (size_t)(d - name);
            *len = (size_t)(e - d);
            return true;
        }
    }
    return false;
}

static bool in_list(const int32_t *v, size_t n, long long x) {
    for (size_t i = 0; i < n; i++)
        if (v[i] == x) return true;
    return false;
}

typedef struct blk_map { long long blk; long long to; } blk_map; /* to = -1: pruned */

static int cmp_i32(const void *pa, const void *pb) {
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return a < b ? -1 : a > b;
}

/* mio_qz_output_order on a built list (src, orig_name, n_dims, ne, in_type, part,
 * offset filled; name is ignored): sorted and pruned in place, *n updated; the
 * prune list is sorted and de-duplicated on a copy first. */
static mio_status qz_order_items(qz_item *items, size_t *n, const int32_t *prune_in, size_t n_prune_in,
                                 bool keep_split, uint32_t *block_count, bool *block_count_set) {
    if (!items && *n) return mio_err_set(MIO_ERR_INVALID_ARG, "items is NULL");
    if (!prune_in && n_prune_in) return mio_err_set(MIO_ERR_INVALID_ARG, "prune is NULL");
    /* llama-quantize's list: sorted and without duplicates, on a copy (the
     * caller's array is not touched); llama.cpp's pivot, its first entry, is
     * then the smallest block pruned */
    int32_t *prune = NULL;
    size_t n_prune = 0;
    if (n_prune_in) {
        if (!(prune = malloc(n_prune_in * sizeof *prune))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        memcpy(prune, prune_in, n_prune_in * sizeof *prune);
        qsort(prune, n_prune_in, sizeof *prune, cmp_i32);
        for (size_t i = 0; i < n_prune_in; i++)
            if (!n_prune || prune[n_prune - 1] != prune[i]) prune[n_prune++] = prune[i];
    }
    for (size_t i = 0; i < *n; i++) memcpy(items[i].name, items[i].orig_name, QZ_NAME_MAX);
    if (*n > 1) qsort(items, *n, sizeof *items, cmp_weights);
    long long next_id = 0;
    if (n_prune) {
        const long long front = prune[0];
        blk_map *map = malloc((*n ? *n : 1) * sizeof *map);
        if (!map) {
            free(prune);
            return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
        size_t n_map = 0, out = 0;
        for (size_t i = 0; i < *n; i++) {
            qz_item *it = &items[i];
            size_t at, len;
            if (!find_blk(it->name, &at, &len)) {
                items[out++] = *it;
                continue;
            }
            long long blk = 0;
            for (size_t k = 0; k < len; k++) {
                blk = blk * 10 + (it->name[at + k] - '0');
                if (blk > INT_MAX) {
                    free(map);
                    free(prune);
                    return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor %s: block number out of range", it->name);
                }
            }
            long long to = -2;
            for (size_t k = 0; k < n_map; k++)
                if (map[k].blk == blk) to = map[k].to;
            if (to == -2) {
                if (in_list(prune, n_prune, blk)) {
                    to = -1;
                } else if (blk < front) {
                    to = blk;
                    next_id = blk + 1;
                } else {
                    to = next_id++;
                }
                map[n_map].blk = blk;
                map[n_map].to = to;
                n_map++;
            }
            if (to == -1) continue; /* pruned */
            char buf[QZ_NAME_MAX * 2];
            snprintf(buf, sizeof buf, "%.*s%lld%s", (int)at, it->name, to, it->name + at + len);
            if (strlen(buf) >= QZ_NAME_MAX) { /* only with "blk.N." inside names, out of block order */
                free(map);
                free(prune);
                return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor %s: renamed name too long", it->name);
            }
            memcpy(it->name, buf, strlen(buf) + 1);
            items[out++] = *it;
        }
        free(map);
        *n = out;
    }
    free(prune);
    if (keep_split && *n > 1) qsort(items, *n, sizeof *items, cmp_split);
    if (block_count_set) *block_count_set = n_prune > 0;
    if (block_count) *block_count = (uint32_t)next_id;
    return MIO_OK;
}

mio_status mio_qz_output_order(const mio_gguf_file *f, const int32_t *prune, size_t n_prune, bool keep_split,
                               qz_item **items, size_t *n_items, uint32_t *block_count, bool *block_count_set) {
    if (!f || !items || !n_items)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !f ? "file f" : !items ? "items" : "n_items");
    *items = NULL;
    *n_items = 0;
    int64_t nt = mio_gguf_tensor_count(f);
    if (nt <= 0) {
        if (block_count_set) *block_count_set = n_prune > 0;
        if (block_count) *block_count = 0;
        return MIO_OK;
    }
    qz_item *it = calloc((size_t)nt, sizeof *it);
    if (!it) return mio_err_set(MIO_ERR_NOMEM, "out of memory for %lld tensors", (long long)nt);
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        mio_status st = mio_gguf_tensor_info(f, i, &t);
        if (st != MIO_OK) {
            free(it);
            return st;
        }
        if (t.name.len >= QZ_NAME_MAX) {
            free(it);
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor %lld: name longer than %d bytes", (long long)i,
                               QZ_NAME_MAX - 1);
        }
        qz_item *q = &it[i];
        q->src = i;
        memcpy(q->orig_name, t.name.ptr, t.name.len);
        q->orig_name[t.name.len] = 0;
        q->n_dims = t.n_dims;
        memcpy(q->ne, t.ne, sizeof q->ne);
        q->in_type = t.type;
        q->part = t.part;
        q->offset = t.offset;
        q->out_type = t.type;
    }
    size_t n = (size_t)nt;
    mio_status st = qz_order_items(it, &n, prune, n_prune, keep_split, block_count, block_count_set);
    if (st != MIO_OK) {
        free(it);
        return st;
    }
    *items = it;
    *n_items = n;
    return MIO_OK;
}

/* ================================================================= policy */

void mio_qz_policy_from_params(const mio_quantize_params *p, bool has_imatrix, qz_policy *out) {
    memset(out, 0, sizeof *out);
    out->ftype = p->preset;
    out->pure = p->pure != 0;
    out->quantize_output_tensor = !p->leave_output_tensor;
    out->allow_requantize = p->allow_requantize != 0;
    out->dry_run = p->dry_run != 0;
    out->has_imatrix = has_imatrix;
    out->output_tensor_type = p->output_tensor_type;
    out->token_embedding_type = p->token_embedding_type;
    out->experts_type = p->experts_type;
    out->tensor_types = p->tensor_types;
    out->n_tensor_types = p->n_tensor_types;
}

/* ggml_is_quantized (a block type). */
static bool qz_type_is_quantized(int type) { return mio_type_block_size(type) > 1; }

/* ggml_n_dims of a shape: the number of dimensions up to the last one above 1. */
static uint32_t qz_ggml_n_dims(const int64_t ne[4]) {
    for (int d = 3; d >= 1; d--)
        if (ne[d] > 1) return (uint32_t)d + 1;
    return 1;
}

static bool has(const char *name, const char *sub) { return strstr(name, sub) != NULL; }

static bool ends_with(const char *s, const char *suf) {
    size_t ls = strlen(s), lf = strlen(suf);
    return ls >= lf && memcmp(s + ls - lf, suf, lf) == 0;
}

/* Names llama.cpp never quantizes (small, or precision-sensitive), by substring. */
static const char *const k_keep_substrings[] = {
    "_norm.weight",        "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
    "per_layer_model_proj", "ssm_conv1d",         "shortconv.conv.weight",   "indexer.k_proj.weight",
    "indexer.q_proj.weight", "time_mix_first.weight", "time_mix_w0.weight",  "time_mix_w1.weight",
    "time_mix_w2.weight",  "time_mix_v0.weight",  "time_mix_v1.weight",      "time_mix_v2.weight",
    "time_mix_a0.weight",  "time_mix_a1.weight",  "time_mix_a2.weight",      "time_mix_g1.weight",
    "time_mix_g2.weight",  "time_mix_decay_w1.weight", "time_mix_decay_w2.weight",
    "time_mix_lerp_fused.weight", "attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.",
    "sam.net_",            ".rel_pos",            ".patch_embd",             ".patch_merger",
    "a.rvq.codebook",      "mm.a.code_embd",
};

/* tensor_allows_quantization for one output name (n_dims as qz_ggml_n_dims). */
static bool qz_tensor_quantizable(const qz_model *m, const qz_policy *pol, const char *name, uint32_t n_dims) {
    (void)m;
    if (n_dims < 2) return false;
    if (!ends_with(name, "weight")) return false;
    if (!pol->quantize_output_tensor && !strcmp(name, "output.weight")) return false;
    for (size_t i = 0; i < sizeof k_keep_substrings / sizeof k_keep_substrings[0]; i++)
        if (has(name, k_keep_substrings[i])) return false;
    /* the positional-embedding and token-type tables (BERT, GPT-2, ...): llama.cpp
     * compares with the architecture's names for them, which are these */
    if (!strcmp(name, "position_embd.weight") || !strcmp(name, "token_types.weight")) return false;
    return true;
}

/* tensor_requires_imatrix. */
static bool qz_requires_imatrix(const char *name, int type, int ftype) {
    if (!strcmp(name, "token_embd.weight") || !strcmp(name, "per_layer_token_embd.weight") ||
        !strcmp(name, "output.weight"))
        return false;
    switch (type) {
    case MIO_TYPE_IQ3_XXS:
    case MIO_TYPE_IQ2_XXS:
    case MIO_TYPE_IQ2_XS:
    case MIO_TYPE_IQ2_S:
    case MIO_TYPE_IQ1_M:
    case MIO_TYPE_IQ1_S: return true;
    case MIO_TYPE_Q2_K: return ftype == MIO_PRESET_Q2_K_S;
    default: return false;
    }
}

/* --------------------------------------------------------------- categories */

enum { CAT_TOKEN_EMBD, CAT_ATTN_Q, CAT_ATTN_V, CAT_ATTN_K, CAT_ATTN_QKV, CAT_ATTN_KV_B, CAT_ATTN_OUTPUT,
       CAT_FFN_UP, CAT_FFN_GATE, CAT_FFN_DOWN, CAT_OUTPUT, CAT_OTHER };

static int category(const char *name) {
    if (!strcmp(name, "output.weight")) return CAT_OUTPUT;
    if (!strcmp(name, "token_embd.weight") || !strcmp(name, "per_layer_token_embd.weight")) return CAT_TOKEN_EMBD;
    if (has(name, "attn_qkv.weight")) return CAT_ATTN_QKV;
    if (has(name, "attn_kv_b.weight")) return CAT_ATTN_KV_B;
    if (has(name, "attn_v.weight")) return CAT_ATTN_V;
    if (has(name, "attn_k.weight")) return CAT_ATTN_K;
    if (has(name, "attn_q.weight")) return CAT_ATTN_Q;
    if (has(name, "attn_output.weight")) return CAT_ATTN_OUTPUT;
    if (has(name, "ffn_up")) return CAT_FFN_UP;
    if (has(name, "ffn_gate")) return CAT_FFN_GATE;
    if (has(name, "ffn_down")) return CAT_FFN_DOWN;
    return CAT_OTHER;
}

static bool cat_is_attn_v(int c) { return c == CAT_ATTN_V || c == CAT_ATTN_QKV || c == CAT_ATTN_KV_B; }

/* ------------------------------------------------------------------- state */

typedef struct qz_state {
    const qz_model *m;
    const qz_policy *pol;
    int n_attention_wv, i_attention_wv;
    int n_ffn_down, i_ffn_down, n_ffn_gate, i_ffn_gate, n_ffn_up, i_ffn_up;
    int n_fallback;
    bool tied;               /* no output.weight among the output tensors */
    regex_t *re;             /* compiled tensor_types (+ experts rule first) */
    int *re_type;
    size_t n_re;
} qz_state;

static bool use_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

/* The block of a tensor for the per-layer rules: with experts llama.cpp reads it
 * from the name ("blk.%d."), else it counts tensors of the category. */
static mio_status layer_of(const qz_state *s, int counter, int n_layer, const char *name, int *i_layer) {
    int n_expert = s->m->n_expert > 1 ? (int)s->m->n_expert : 1;
    *i_layer = counter;
    if (n_expert > 1) {
        if (strncmp(name, "blk.", 4) != 0 || !(isdigit((unsigned char)name[4]) || isspace((unsigned char)name[4]) ||
                                               name[4] == '-' || name[4] == '+'))
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "Failed to determine layer for tensor %s", name);
        int l = name_layer(name);
        if (l < 0 || l >= n_layer)
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "Bad layer %d for tensor %s. Must be in [0, %d)", l, name,
                               n_layer);
        *i_layer = l;
    }
    return MIO_OK;
}

static bool ft_in(int ft, const int *set, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (set[i] == ft) return true;
    return false;
}
#define FT_IN(ft, ...) ft_in((ft), (const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

/* The preset's mixture (llama_tensor_get_type_impl): t is the default type. */
static mio_status mixture(qz_state *s, const qz_item *it, int cat, int *type, const char **why) {
    const qz_model *m = s->m;
    const int ft = s->pol->ftype;
    const char *name = it->name;
    const int arch = m->arch;
    const uint32_t gqa = qz_model_n_gqa(m);
    const int n_expert = (int)m->n_expert;
    int t = *type;
    const int t0 = t;
    const char *w = NULL;
    mio_status st;

    if (cat == CAT_OUTPUT || (s->tied && cat == CAT_TOKEN_EMBD)) {
        if (s->pol->output_tensor_type >= 0) {
            t = s->pol->output_tensor_type;
            w = "--output-tensor-type";
        } else {
            const int64_t nx = it->ne[0];
            const int64_t qk = mio_type_block_size(t);
            /* NOLINTNEXTLINE(bugprone-branch-clone): separate rules with one outcome, in llama.cpp's order */
            if (ft == MIO_PRESET_MXFP4_MOE) t = MIO_TYPE_Q8_0;
            else if (arch == QZ_ARCH_FALCON || (qk > 0 && nx % qk != 0)) t = MIO_TYPE_Q8_0;
            else if (FT_IN(ft, MIO_PRESET_IQ2_XXS, MIO_PRESET_IQ2_XS, MIO_PRESET_IQ3_XXS, MIO_PRESET_IQ1_S,
                           MIO_PRESET_IQ2_S, MIO_PRESET_IQ2_M, MIO_PRESET_IQ1_M))
                t = MIO_TYPE_Q5_K;
            else if (t != MIO_TYPE_Q8_0) t = MIO_TYPE_Q6_K;
            w = cat == CAT_OUTPUT ? "output tensor" : "tied token embeddings (output rule)";
        }
    } else if (ft == MIO_PRESET_MXFP4_MOE) {
        bool bailing_expert = arch == QZ_ARCH_BAILINGMOE3 &&
                              (cat == CAT_FFN_UP || cat == CAT_FFN_GATE || cat == CAT_FFN_DOWN);
        if (it->ne[2] > 1 && (arch != QZ_ARCH_BAILINGMOE3 || bailing_expert)) {
            t = MIO_TYPE_MXFP4;
            w = "MXFP4_MOE: expert tensor";
        } else {
            t = MIO_TYPE_Q8_0;
            w = "MXFP4_MOE: not an expert tensor";
        }
    } else if (cat == CAT_TOKEN_EMBD) {
        if (s->pol->token_embedding_type >= 0) {
            t = s->pol->token_embedding_type;
            w = "--token-embedding-type";
        } else if (FT_IN(ft, MIO_PRESET_IQ2_XXS, MIO_PRESET_IQ2_XS, MIO_PRESET_IQ1_S, MIO_PRESET_IQ1_M)) {
            t = MIO_TYPE_Q2_K;
        } else if (FT_IN(ft, MIO_PRESET_IQ2_S, MIO_PRESET_IQ2_M, MIO_PRESET_IQ3_XXS)) {
            t = MIO_TYPE_IQ3_S;
        } else if (FT_IN(ft, MIO_PRESET_TQ1_0, MIO_PRESET_TQ2_0, MIO_PRESET_Q2_0)) {
            t = MIO_TYPE_Q4_K;
        }
        if (!w && t != t0) w = "token embeddings";
    } else if (FT_IN(ft, MIO_PRESET_IQ2_XXS, MIO_PRESET_IQ2_XS, MIO_PRESET_IQ1_S, MIO_PRESET_IQ2_S,
                     MIO_PRESET_IQ2_M, MIO_PRESET_IQ1_M)) {
        const bool s_or_m = ft == MIO_PRESET_IQ2_S || ft == MIO_PRESET_IQ2_M;
        if (cat_is_attn_v(cat)) {
            if (gqa >= 4 || m->n_expert >= 4) {
                t = MIO_TYPE_Q4_K;
                w = "attn_v: GQA >= 4 or >= 4 experts";
            } else {
                t = s_or_m ? MIO_TYPE_IQ3_S : MIO_TYPE_Q2_K;
                w = "attn_v";
            }
            s->i_attention_wv++;
        } else if (n_expert == 8 && cat == CAT_ATTN_K) {
            t = MIO_TYPE_Q4_K;
            w = "attn_k: 8 experts";
        } else if (cat == CAT_FFN_DOWN) {
            if (s->i_ffn_down < s->n_ffn_down / 8) {
                t = s_or_m ? MIO_TYPE_IQ3_S : MIO_TYPE_Q2_K;
                w = "ffn_down: first eighth of the layers";
            }
            s->i_ffn_down++;
        } else if (cat == CAT_ATTN_OUTPUT) {
            if (n_expert == 8) {
                t = MIO_TYPE_Q5_K;
                w = "attn_output: 8 experts";
            } else if (ft == MIO_PRESET_IQ1_S || ft == MIO_PRESET_IQ1_M) {
                t = MIO_TYPE_IQ2_XXS;
                w = "attn_output";
            } else if (s_or_m) {
                t = MIO_TYPE_IQ3_S;
                w = "attn_output";
            }
        }
    } else if (cat_is_attn_v(cat)) {
        if (ft == MIO_PRESET_Q2_K) {
            t = gqa >= 4 ? MIO_TYPE_Q4_K : MIO_TYPE_Q3_K;
        /* NOLINTNEXTLINE(bugprone-branch-clone): separate rules with one outcome, in llama.cpp's order */
        } else if (ft == MIO_PRESET_Q2_K_S && gqa >= 4) {
            t = MIO_TYPE_Q4_K;
        } else if (ft == MIO_PRESET_IQ3_XXS) {
            t = gqa >= 4 ? MIO_TYPE_Q4_K : !s->pol->has_imatrix ? MIO_TYPE_IQ3_S : MIO_TYPE_IQ3_XXS;
        } else if ((ft == MIO_PRESET_IQ3_XS || ft == MIO_PRESET_IQ3_S) && gqa >= 4) {
            t = MIO_TYPE_Q4_K;
        } else if (ft == MIO_PRESET_IQ3_M) {
            t = MIO_TYPE_Q4_K;
        } else if (ft == MIO_PRESET_Q3_K_M) {
            t = s->i_attention_wv < 2 ? MIO_TYPE_Q5_K : MIO_TYPE_Q4_K;
        /* NOLINTNEXTLINE(bugprone-branch-clone): separate rules with one outcome, in llama.cpp's order */
        } else if (ft == MIO_PRESET_Q3_K_L) {
            t = MIO_TYPE_Q5_K;
        } else if ((ft == MIO_PRESET_IQ4_NL || ft == MIO_PRESET_IQ4_XS) && gqa >= 4) {
            t = MIO_TYPE_Q5_K;
        } else if ((ft == MIO_PRESET_Q4_K_M || ft == MIO_PRESET_Q5_K_M) &&
                   use_more_bits(s->i_attention_wv, s->n_attention_wv)) {
            t = MIO_TYPE_Q6_K;
            w = "attn_v: use_more_bits";
        } else if (ft == MIO_PRESET_Q4_K_S && s->i_attention_wv < 4) {
            t = MIO_TYPE_Q5_K;
            w = "attn_v: first four";
        }
        if (!w && t != t0) w = "attn_v";
        if (m->is_70b && (t == MIO_TYPE_Q3_K || t == MIO_TYPE_Q4_K)) {
            t = MIO_TYPE_Q5_K;
            w = "attn_v: 70B";
        }
        if (n_expert == 8) {
            t = MIO_TYPE_Q8_0;
            w = "attn_v: 8 experts";
        }
        s->i_attention_wv++;
    } else if (cat == CAT_ATTN_K) {
        if (n_expert == 8) {
            t = MIO_TYPE_Q8_0;
            w = "attn_k: 8 experts";
        } else if (ft == MIO_PRESET_IQ3_XS) {
            t = MIO_TYPE_IQ3_XXS;
        } else if (ft == MIO_PRESET_IQ3_XXS) {
            t = MIO_TYPE_IQ2_S;
        }
        if (!w && t != t0) w = "attn_k";
    } else if (cat == CAT_ATTN_Q) {
        if (ft == MIO_PRESET_IQ3_XS) t = MIO_TYPE_IQ3_XXS;
        else if (ft == MIO_PRESET_IQ3_XXS) t = MIO_TYPE_IQ2_S;
        if (t != t0) w = "attn_q";
    } else if (cat == CAT_FFN_DOWN) {
        int il;
        if ((st = layer_of(s, s->i_ffn_down, s->n_ffn_down, name, &il)) != MIO_OK) return st;
        const int nl = s->n_ffn_down;
        if (ft == MIO_PRESET_Q2_K) {
            t = MIO_TYPE_Q3_K;
        } else if (ft == MIO_PRESET_Q2_K_S) {
            if (il < nl / 8) t = MIO_TYPE_Q4_K;
        } else if (ft == MIO_PRESET_IQ3_XXS && !s->pol->has_imatrix) {
            t = il < nl / 8 ? MIO_TYPE_Q4_K : MIO_TYPE_Q3_K;
        } else if (ft == MIO_PRESET_Q3_K_M) {
            t = il < nl / 16 ? MIO_TYPE_Q5_K
                : (arch != QZ_ARCH_FALCON || use_more_bits(il, nl)) ? MIO_TYPE_Q4_K
                : MIO_TYPE_Q3_K;
        } else if (ft == MIO_PRESET_IQ3_M && (il < nl / 8 || (n_expert == 8 && use_more_bits(il, nl)))) {
            t = MIO_TYPE_Q4_K;
        } else if (ft == MIO_PRESET_Q3_K_L) {
            t = arch == QZ_ARCH_FALCON ? MIO_TYPE_Q4_K : MIO_TYPE_Q5_K;
        } else if (ft == MIO_PRESET_Q4_K_M) {
            if (arch == QZ_ARCH_FALCON) {
                t = il < nl / 16 ? MIO_TYPE_Q6_K : use_more_bits(il, nl) ? MIO_TYPE_Q5_K : MIO_TYPE_Q4_K;
            } else if (use_more_bits(il, nl)) {
                t = MIO_TYPE_Q6_K;
                w = "ffn_down: use_more_bits";
            }
        /* NOLINTNEXTLINE(bugprone-branch-clone): separate rules with one outcome, in llama.cpp's order */
        } else if (il < nl / 8 && (ft == MIO_PRESET_IQ4_NL || ft == MIO_PRESET_IQ4_XS) && !s->pol->has_imatrix) {
            t = MIO_TYPE_Q5_K;
        } else if (ft == MIO_PRESET_Q5_K_M && use_more_bits(il, nl)) {
            t = MIO_TYPE_Q6_K;
            w = "ffn_down: use_more_bits";
        } else if (ft == MIO_PRESET_Q4_K_S && arch != QZ_ARCH_FALCON && il < nl / 8) {
            t = MIO_TYPE_Q5_K;
        } else if ((ft == MIO_PRESET_Q4_0 || ft == MIO_PRESET_Q5_0) && s->pol->has_imatrix && il < nl / 8) {
            t = ft == MIO_PRESET_Q4_0 ? MIO_TYPE_Q4_1 : MIO_TYPE_Q5_1;
        }
        if (!w && t != t0) w = "ffn_down";
        s->i_ffn_down++;
    } else if (cat == CAT_ATTN_OUTPUT) {
        if (arch != QZ_ARCH_FALCON) {
            if (n_expert == 8) {
                if (FT_IN(ft, MIO_PRESET_Q2_K, MIO_PRESET_IQ3_XS, MIO_PRESET_IQ3_XXS, MIO_PRESET_Q3_K_S,
                          MIO_PRESET_Q3_K_M, MIO_PRESET_IQ4_NL, MIO_PRESET_Q4_K_S, MIO_PRESET_Q4_K_M,
                          MIO_PRESET_IQ3_S, MIO_PRESET_IQ3_M, MIO_PRESET_IQ4_XS))
                    t = MIO_TYPE_Q5_K;
            } else {
                if (ft == MIO_PRESET_Q2_K) t = MIO_TYPE_Q3_K;
                else if (ft == MIO_PRESET_IQ3_XXS) t = MIO_TYPE_IQ3_S;
                /* NOLINTNEXTLINE(bugprone-branch-clone): separate rules with one outcome, in llama.cpp's order */
                else if (ft == MIO_PRESET_Q3_K_M) t = MIO_TYPE_Q4_K;
                else if (ft == MIO_PRESET_Q3_K_L) t = MIO_TYPE_Q5_K;
                else if (ft == MIO_PRESET_IQ3_M) t = MIO_TYPE_Q4_K;
            }
        } else if (ft == MIO_PRESET_Q3_K_L) {
            t = MIO_TYPE_Q4_K;
        }
        if (t != t0) w = n_expert == 8 ? "attn_output: 8 experts" : "attn_output";
    } else if (cat == CAT_FFN_GATE || cat == CAT_FFN_UP) {
        /* (llama.cpp also has bumps for attn_qkv here; they never apply: attn_qkv
         * counts as attn_v and takes the attn_v branch above) */
        int *i = cat == CAT_FFN_GATE ? &s->i_ffn_gate : &s->i_ffn_up;
        int nl = cat == CAT_FFN_GATE ? s->n_ffn_gate : s->n_ffn_up;
        int il;
        if ((st = layer_of(s, *i, nl, name, &il)) != MIO_OK) return st;
        if (ft == MIO_PRESET_IQ3_XS && il >= nl / 8 && il < 7 * nl / 8) {
            t = MIO_TYPE_IQ3_XXS;
            w = cat == CAT_FFN_GATE ? "ffn_gate: middle layers" : "ffn_up: middle layers";
        }
        (*i)++;
    }
    *type = t;
    *why = w ? w : t != t0 ? "preset rule" : "preset";
    return MIO_OK;
}

/* A row length that is not a whole number of blocks of t. */
static mio_status fallback(qz_state *s, const qz_item *it, int *type, const char **why) {
    const int64_t ncols = it->ne[0];
    const int t = *type;
    const int64_t qk = mio_type_block_size(t);
    if (qk <= 0 || ncols % qk == 0) return MIO_OK;
    s->n_fallback++;
    int r;
    switch (t) {
    case MIO_TYPE_IQ1_S: case MIO_TYPE_IQ1_M: case MIO_TYPE_IQ2_XXS: case MIO_TYPE_IQ2_XS:
    case MIO_TYPE_IQ2_S: case MIO_TYPE_IQ3_XXS: case MIO_TYPE_IQ3_S: case MIO_TYPE_IQ4_XS:
        r = MIO_TYPE_IQ4_NL; break;
    case MIO_TYPE_Q2_0: case MIO_TYPE_Q2_K: case MIO_TYPE_Q3_K: case MIO_TYPE_TQ1_0: case MIO_TYPE_TQ2_0:
        r = MIO_TYPE_Q4_0; break;
    case MIO_TYPE_Q4_K: r = MIO_TYPE_Q5_0; break;
    case MIO_TYPE_Q5_K: r = MIO_TYPE_Q5_1; break;
    case MIO_TYPE_Q6_K: r = MIO_TYPE_Q8_0; break;
    default:
        /* blocks of at most 32: no smaller-block sibling, straight to F16 below */
        if (qk > 32)
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE,
                               "tensor %s: no tensor type fallback is defined for type %s (row of %lld)", it->name,
                               mio_type_name(t), (long long)ncols);
        r = t;
        break;
    }
    if (ncols % mio_type_block_size(r) != 0) r = MIO_TYPE_F16;
    *type = r;
    *why = r == MIO_TYPE_F16 ? "fallback: row not a whole number of 32-blocks (f16)"
                             : "fallback: row not a whole number of blocks";
    return MIO_OK;
}

/* llama_tensor_get_type: the type of one quantizable tensor. */
static mio_status choose_one(qz_state *s, const qz_item *it, int cat, int default_type, int *type,
                             const char **why) {
    const qz_policy *pol = s->pol;
    /* The --tensor-type rules (and the experts rule): first match wins. */
    int match = -1;
    for (size_t k = 0; k < s->n_re && match < 0; k++)
        if (regexec(&s->re[k], it->name, 0, NULL, 0) == 0) match = (int)k;

    if (pol->token_embedding_type >= 0 && cat == CAT_TOKEN_EMBD) {
        /* per_layer_token_embd.weight defers to a matching --tensor-type */
        if (strcmp(it->name, "per_layer_token_embd.weight") != 0 || match < 0) {
            *type = pol->token_embedding_type;
            *why = "--token-embedding-type";
            return MIO_OK;
        }
    }
    if (pol->output_tensor_type >= 0 && cat == CAT_OUTPUT) {
        *type = pol->output_tensor_type;
        *why = "--output-tensor-type";
        return MIO_OK;
    }
    int t = default_type;
    *why = "preset";
    if (!qz_type_is_quantized(default_type)) {
        *type = t;
        return MIO_OK;
    }
    bool manual = false;
    if (match >= 0) {
        t = s->re_type[match];
        manual = true;
        *why = pol->experts_type >= 0 && match == 0 ? "--experts-type" : "--tensor-type";
    }
    mio_status st;
    if (!manual) {
        if (pol->pure) *why = "pure";
        else if ((st = mixture(s, it, cat, &t, why)) != MIO_OK) return st;
    }
    if ((st = fallback(s, it, &t, why)) != MIO_OK) return st;
    *type = t;
    return MIO_OK;
}

static void free_regexes(qz_state *s) {
    for (size_t k = 0; k < s->n_re; k++) regfree(&s->re[k]);
    free(s->re);
    free(s->re_type);
    s->re = NULL;
    s->re_type = NULL;
    s->n_re = 0;
}

static mio_status compile_regexes(qz_state *s) {
    const qz_policy *pol = s->pol;
    size_t n = pol->n_tensor_types + (pol->experts_type >= 0);
    if (!n) return MIO_OK;
    if (pol->n_tensor_types && !pol->tensor_types) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor_types is NULL");
    s->re = calloc(n, sizeof *s->re);
    s->re_type = calloc(n, sizeof *s->re_type);
    if (!s->re || !s->re_type) {
        free(s->re);
        free(s->re_type);
        s->re = NULL;
        s->re_type = NULL;
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        const char *pat;
        int type;
        if (pol->experts_type >= 0 && k == 0) {
            pat = "_exps\\.weight$";
            type = pol->experts_type;
        } else {
            const mio_tensor_type_override *o = &pol->tensor_types[k - (pol->experts_type >= 0)];
            if (!o->pattern) {
                free_regexes(s);
                return mio_err_set(MIO_ERR_INVALID_ARG, "tensor_types[%zu].pattern is NULL",
                                   k - (pol->experts_type >= 0));
            }
            pat = o->pattern;
            type = o->type;
        }
        if (!mio_type_name(type) || type >= MIO_TYPE_GGML_COUNT) {
            free_regexes(s);
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "--tensor-type %s: unknown ggml type %d", pat, type);
        }
        /* llama-quantize lower-cases the text of a --tensor-type pattern before
         * llama.cpp compiles it (tensor names are lower case): ASCII letters
         * only, escapes included (so \D means what \d means), on a copy */
        size_t pl = strlen(pat);
        char *lower = malloc(pl + 1);
        if (!lower) {
            free_regexes(s);
            return mio_err_set(MIO_ERR_NOMEM, "--tensor-type pattern \"%s\": out of memory", pat);
        }
        for (size_t c = 0; c <= pl; c++) lower[c] = pat[c] >= 'A' && pat[c] <= 'Z' ? (char)(pat[c] - 'A' + 'a') : pat[c];
        errno = 0; /* NULL with ENOMEM: out of memory, not a bad pattern */
        char *posix = qz_regex_to_posix(lower);
        free(lower);
        if (!posix) {
            bool oom = errno == ENOMEM;
            free_regexes(s);
            if (oom) return mio_err_set(MIO_ERR_NOMEM, "--tensor-type pattern \"%s\": out of memory", pat);
            return mio_err_set(MIO_ERR_INVALID_ARG,
                               "--tensor-type pattern \"%s\": uses a regular-expression feature POSIX ERE lacks", pat);
        }
        int rc = regcomp(&s->re[k], posix, REG_EXTENDED | REG_NOSUB);
        free(posix);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &s->re[k], msg, sizeof msg);
            free_regexes(s);
            return mio_err_set(rc == REG_ESPACE ? MIO_ERR_NOMEM : MIO_ERR_INVALID_ARG, "--tensor-type pattern \"%s\": %s", pat,
                               msg);
        }
        s->re_type[k] = type;
        s->n_re = k + 1;
    }
    return MIO_OK;
}

mio_status mio_qz_choose_types(const qz_model *m, const qz_policy *pol, qz_item *items, size_t n, qz_summary *sum) {
    if (!m || !pol || (!items && n))
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !m ? "model m" : !pol ? "policy pol" : "items");
    if (sum) memset(sum, 0, sizeof *sum);
    const int default_type = qz_preset_default_type(pol->ftype);
    if (default_type < 0) return mio_err_set(MIO_ERR_INVALID_ARG, "invalid output file type %d", pol->ftype);
    if (pol->output_tensor_type >= MIO_TYPE_GGML_COUNT || (pol->output_tensor_type >= 0 &&
                                                            !mio_type_name(pol->output_tensor_type)))
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "unknown output tensor type %d", pol->output_tensor_type);
    if (pol->token_embedding_type >= MIO_TYPE_GGML_COUNT ||
        (pol->token_embedding_type >= 0 && !mio_type_name(pol->token_embedding_type)))
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "unknown token embedding type %d", pol->token_embedding_type);

    qz_state s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.pol = pol;
    s.tied = true;
    for (size_t i = 0; i < n; i++) {
        int c = category(items[i].name);
        if (cat_is_attn_v(c)) s.n_attention_wv++;
        if (c == CAT_OUTPUT) s.tied = false;
    }
    s.n_ffn_down = s.n_ffn_gate = s.n_ffn_up = (int)m->n_layer;
    mio_status st = compile_regexes(&s);
    if (st != MIO_OK) return st;

    /* 1. the types (llama.cpp's preliminary pass: a failure here is a throw) */
    for (size_t i = 0; i < n && st == MIO_OK; i++) {
        qz_item *it = &items[i];
        int cat = category(it->name);
        it->quantizable = qz_tensor_quantizable(m, pol, it->name, qz_ggml_n_dims(it->ne));
        it->out_type = it->in_type;
        it->why = "kept: not quantized";
        if (it->quantizable) st = choose_one(&s, it, cat, default_type, &it->out_type, &it->why);
        it->convert = it->out_type != it->in_type;
        it->requires_imatrix = qz_requires_imatrix(it->name, it->out_type, pol->ftype);
    }
    free_regexes(&s);
    if (sum) {
        sum->n_fallback = s.n_fallback;
        sum->types_decided = st == MIO_OK;
    }
    /* 2. an importance matrix needed and none given */
    for (size_t i = 0; i < n && st == MIO_OK; i++) {
        const qz_item *it = &items[i];
        if (pol->has_imatrix || !it->quantizable || !it->requires_imatrix) continue;
        if (pol->dry_run) {
            if (sum) sum->will_require_imatrix = true;
            continue;
        }
        st = mio_err_set(MIO_ERR_ENCODER_UNAVAILABLE, "this quantization requires an imatrix: tensor %s would be %s",
                         it->name, mio_type_name(it->out_type));
    }
    /* 3. conversions llama.cpp refuses (or aborts on) while writing, in output order */
    for (size_t i = 0; i < n && st == MIO_OK; i++) {
        const qz_item *it = &items[i];
        if (!it->convert) continue;
        if (!pol->dry_run && it->in_type != MIO_TYPE_F32) {
            if (qz_type_is_quantized(it->in_type)) {
                bool allowed = pol->allow_requantize || (it->why && !strcmp(it->why, "--experts-type"));
                if (!allowed) {
                    st = mio_err_set(MIO_ERR_TYPE_MISMATCH, "tensor %s: requantizing from type %s is disabled",
                                     it->name, mio_type_name(it->in_type));
                    break;
                }
            } else if (it->in_type != MIO_TYPE_F16 && it->in_type != MIO_TYPE_BF16) {
                st = mio_err_set(MIO_ERR_TYPE_MISMATCH, "tensor %s: cannot dequantize/convert tensor type %s", it->name,
                                 mio_type_name(it->in_type) ? mio_type_name(it->in_type) : "?");
                break;
            }
        }
        /* --output-tensor-type / --token-embedding-type skip the fallback:
         * llama.cpp then aborts inside ggml (a dry run only prints a wrong size) */
        int64_t qk = mio_type_block_size(it->out_type);
        if (!pol->dry_run && (qk <= 0 || it->ne[0] % qk != 0))
            st = mio_err_set(MIO_ERR_INVALID_TENSOR_INFO,
                             "tensor %s: rows of %lld are not a whole number of %s blocks (%s; llama.cpp aborts)",
                             it->name, (long long)it->ne[0], mio_type_name(it->out_type), it->why);
    }
    return st;
}

/* ================================================================= regex */

/* POSIX-ERE rendering of an ECMAScript (std::regex) pattern for the subset
 * --tensor-type patterns use: \d \D \s \S \w \W become bracket expressions,
 * escapes inside brackets lose their backslash. Returns a malloc()ed string,
 * or NULL when the pattern uses something POSIX ERE cannot express the same
 * way (lookaround, backreferences, \b, non-capturing groups) — or when out
 * of memory, with errno ENOMEM (the caller clears errno first to tell). */
static char *qz_regex_to_posix(const char *in) {
    if (!in) return NULL;
    size_t n = strlen(in);
    size_t cap = n * 16 + 16;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t o = 0;
#define EMIT(str) do { const char *_s = (str); size_t _l = strlen(_s); memcpy(out + o, _s, _l); o += _l; } while (0)
#define EMITC(c) (out[o++] = (char)(c))
    bool in_br = false;
    size_t br_start = 0; /* output index just after '[' or '[^' */
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (!in_br) {
            if (c == '\\') {
                char d = in[++i];
                switch (d) {
                case 0: free(out); return NULL;
                case 'd': EMIT("[0-9]"); break;
                case 'D': EMIT("[^0-9]"); break;
                case 's': EMIT("[[:space:]]"); break;
                case 'S': EMIT("[^[:space:]]"); break;
                case 'w': EMIT("[[:alnum:]_]"); break;
                case 'W': EMIT("[^[:alnum:]_]"); break;
                case 'b': EMIT("\\b"); break;
                case 'B': EMIT("\\B"); break;
                case 't': EMITC('\t'); break;
                case 'n': EMITC('\n'); break;
                case 'r': EMITC('\r'); break;
                case 'f': EMITC('\f'); break;
                case 'v': EMITC('\v'); break;
                default:
                    if (isalnum((unsigned char)d)) { free(out); return NULL; } /* backrefs, \x.., \u.., \c.. */
                    if (strchr(".[]()*+?{}|^$\\", d)) EMITC('\\');
                    EMITC(d);
                    break;
                }
            } else if (c == '[') {
                in_br = true;
                EMITC('[');
                if (in[i + 1] == '^') { EMITC('^'); i++; }
                br_start = o;
                if (in[i + 1] == ']') { free(out); return NULL; } /* "[]": empty class in ECMAScript */
            } else if (c == '(' && in[i + 1] == '?') {
                if (in[i + 2] == ':') { EMITC('('); i += 2; }
                else { free(out); return NULL; } /* lookaround */
            } else if ((c == '*' || c == '+' || c == '?' || c == '}') && in[i + 1] == '?') {
                EMITC(c); /* lazy: same set of matches for a yes/no search */
                i++;
            } else {
                EMITC(c);
            }
        } else {
            if (c == ']') {
                in_br = false;
                EMITC(']');
            } else if (c == '[' && in[i + 1] == ':') {
                const char *e = strstr(in + i + 2, ":]");
                if (!e) { free(out); return NULL; }
                size_t l = (size_t)(e + 2 - (in + i));
                memcpy(out + o, in + i, l);
                o += l;
                i += l - 1;
            } else if (c == '\\') {
                char d = in[++i];
                switch (d) {
                case 0: free(out); return NULL;
                case 'd': EMIT("0-9"); break;
                case 's': EMIT("[:space:]"); break;
                case 'w': EMIT("[:alnum:]_"); break;
                case 't': EMITC('\t'); break;
                case 'n': EMITC('\n'); break;
                case '\\': EMITC('\\'); break;
                case ']': case '-': case '^':
                    /* position-dependent in POSIX brackets */
                    if (d == ']' && o == br_start) { EMITC(']'); break; }
                    if (d == '-' && in[i + 1] == ']') { EMITC('-'); break; }
                    if (d == '^' && o != br_start) { EMITC('^'); break; }
                    free(out);
                    return NULL;
                default:
                    if (isalnum((unsigned char)d)) { free(out); return NULL; }
                    EMITC(d);
                    break;
                }
            } else {
                EMITC(c);
            }
        }
    }
#undef EMIT
#undef EMITC
    if (in_br) { free(out); return NULL; }
    out[o] = 0;
    return out;
}
