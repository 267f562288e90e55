/* SPDX-License-Identifier: MIT */
/* vocab.c — the tokenizer.* keys of a Hugging Face checkpoint directory, as
 * convert_hf_to_gguf.py's set_vocab() writes them (LlamaModel / Qwen2Model
 * paths: SentencePiece tokenizer.model, tokenizer.json BPE with byte fallback
 * ("llama"), tokenizer.json byte-level BPE ("gpt2"), then gguf-py's
 * SpecialVocab: merges, special ids, add_* flags, chat templates). Keys go onto
 * the writer in the reference's order; every id and length from a file is
 * checked before it sizes an allocation. Deliberate differences from the
 * reference (docs/HF_VOCAB.md): tokenizer.ggml.pre for Llama-3 without BOS
 * (llama-bpe, not smaug-bpe) and scores/token types of tokenizer.json BPE with
 * byte fallback (scores that keep the merge order). */
#include "hf/vocab_internal.h"

#include "core/core.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define K_MODEL "tokenizer.ggml.model"
#define K_PRE "tokenizer.ggml.pre"
#define K_TOKENS "tokenizer.ggml.tokens"
#define K_SCORES "tokenizer.ggml.scores"
#define K_TYPES "tokenizer.ggml.token_type"
#define K_MERGES "tokenizer.ggml.merges"
#define K_CHAT "tokenizer.chat_template"

/* ------------------------------------------------------------ helpers */

/* Bump allocator for strings we make ([PADn], rewritten tokens, merges). */
typedef struct arena {
    char **blocks;
    size_t n_blocks, cap_blocks;
    size_t used, size; /* of the current block */
} arena;

static char *arena_alloc(arena *a, size_t n) {
    if (a->n_blocks == 0 || a->size - a->used < n) {
        size_t bs = n > 65536 ? n : 65536;
        if (a->n_blocks == a->cap_blocks) {
            size_t nc = a->cap_blocks ? a->cap_blocks * 2 : 16;
            char **nb = realloc(a->blocks, nc * sizeof *nb);
            if (!nb) return NULL;
            a->blocks = nb;
            a->cap_blocks = nc;
        }
        char *b = malloc(bs);
        if (!b) return NULL;
        a->blocks[a->n_blocks++] = b;
        a->used = 0;
        a->size = bs;
    }
    char *p = a->blocks[a->n_blocks - 1] + a->used;
    a->used += n;
    return p;
}

static void arena_free(arena *a) {
    for (size_t i = 0; i < a->n_blocks; i++) free(a->blocks[i]);
    free(a->blocks);
    memset(a, 0, sizeof *a);
}

/* Open-addressing map from byte strings (borrowed) to an int64. */
typedef struct smap {
    const char **k;
    size_t *klen;
    int64_t *v;
    size_t cap; /* power of two */
} smap;

static uint64_t fnv(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static mio_status smap_init(smap *m, uint64_t n) {
    memset(m, 0, sizeof *m);
    size_t cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    m->k = calloc(cap, sizeof *m->k);
    m->klen = calloc(cap, sizeof *m->klen);
    m->v = calloc(cap, sizeof *m->v);
    m->cap = cap;
    if (!m->k || !m->klen || !m->v) return mio_err_set(MIO_ERR_NOMEM, "out of memory for a %zu-slot token map", cap);
    return MIO_OK;
}

static void smap_free(smap *m) {
    free(m->k);
    free(m->klen);
    free(m->v);
    memset(m, 0, sizeof *m);
}

static size_t smap_slot(const smap *m, const char *s, size_t n) {
    size_t i = (size_t)fnv(s, n) & (m->cap - 1);
    while (m->k[i] && !(m->klen[i] == n && memcmp(m->k[i], s, n) == 0)) i = (i + 1) & (m->cap - 1);
    return i;
}

/* Insert or overwrite; the map was sized for every key it gets. Returns the old value or -1. */
static int64_t smap_put(smap *m, const char *s, size_t n, int64_t v) {
    size_t i = smap_slot(m, s, n);
    int64_t old = m->k[i] ? m->v[i] : -1;
    m->k[i] = s;
    m->klen[i] = n;
    m->v[i] = v;
    return old;
}

static int64_t smap_get(const smap *m, const char *s, size_t n) {
    if (!m->cap) return -1;
    size_t i = smap_slot(m, s, n);
    return m->k[i] ? m->v[i] : -1;
}

static const mio_json *jget(const mio_json *o, const char *k) {
    return mio_json_is_object(o) ? mio_json_get(o, k) : NULL;
}
static const char *jstr(const mio_json *o, const char *k) {
    const mio_json *v = jget(o, k);
    return mio_json_is_string(v) ? v->valuestring : NULL;
}
/* A JSON number that is a whole number Python's json would read as int (within 2^53). */
static bool jint(const mio_json *v, int64_t *out) {
    if (!v || !mio_json_is_number(v)) return false;
    double d = v->valuedouble;
    if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != floor(d)) return false;
    *out = (int64_t)d;
    return true;
}
/* Python's a == b for two JSON values (NULL = None). */
static bool py_eq(const mio_json *a, const mio_json *b) {
    if (a && mio_json_is_null(a)) a = NULL;
    if (b && mio_json_is_null(b)) b = NULL;
    if (!a || !b) return a == b;
    return mio_json_equal(a, b);
}

static bool file_exists(const char *dir, const char *name, char *path, size_t pathsz) {
    snprintf(path, pathsz, "%s/%s", dir, name);
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Read a whole file (bounded); *out NUL-terminated, *len its size. */
static mio_status read_file(const char *path, char **out, size_t *len) {
    mio_region r;
    mio_status st = mio_region_read(path, &r);
    if (st) return st;
    if (r.size > HF_MAX_FILE) {
        mio_region_free(&r);
        return mio_err_set(MIO_ERR_LIMIT, "%s: %zu bytes (more than the 2 GiB this reader accepts)", path, r.size);
    }
    char *b = malloc(r.size + 1);
    if (!b) {
        mio_region_free(&r);
        return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory for %zu bytes", path, r.size);
    }
    if (r.size) memcpy(b, r.data, r.size);
    b[r.size] = 0;
    *len = r.size;
    mio_region_free(&r);
    *out = b;
    return MIO_OK;
}

/* Parse dir/name as JSON into *out (NULL and MIO_OK when the file is absent). */
/* blocks: the tree's nodes come from blocks *blocks receives (a big read-only
 * file: tokenizer.json); NULL: from malloc */
static mio_status read_json_in(const char *dir, const char *name, mio_json **out, mio_json_arena **blocks) {
    char path[4096];
    *out = NULL;
    if (!file_exists(dir, name, path, sizeof path)) return MIO_OK;
    char *text;
    size_t len;
    mio_status st = read_file(path, &text, &len);
    if (st) return st;
    mio_json_error je;
    size_t end;
    mio_json *j = blocks ? mio_json_parse_arena(text, len, &end, &je, blocks) : mio_json_parse_prefix(text, len, NULL, &je);
    if (!j) {
        free(text);
        if (je.nomem) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", path);
        return mio_err_set(HF_ERR_JSON, "%s: not valid JSON (error near byte %zu: %s)", path, je.offset, je.reason);
    }
    free(text);
    *out = j;
    return MIO_OK;
}

static mio_status read_json(const char *dir, const char *name, mio_json **out) {
    return read_json_in(dir, name, out, NULL);
}

/* gguf-py's ModelBase.does_token_look_special */
static bool looks_special(const char *t, size_t n) {
    static const char *const exact[] = {"<pad>", "<mask>", "<2mass>", "[@BOS@]"};
    for (size_t i = 0; i < 4; i++)
        if (strlen(exact[i]) == n && memcmp(exact[i], t, n) == 0) return true;
#define PS(p, s) (n >= strlen(p) && n >= strlen(s) && memcmp(t, p, strlen(p)) == 0 && \
                  memcmp(t + n - strlen(s), s, strlen(s)) == 0)
    return PS("<|", "|>") || PS("<\xef\xbd\x9c", "\xef\xbd\x9c>") || PS("<unused", ">");
#undef PS
}

/* ------------------------------------------------------------ the token table */
typedef struct toks {
    const char **s;
    size_t *len;
    int32_t *type;
    float *score; /* NULL for gpt2 */
    uint64_t n;
} toks;

static mio_status toks_alloc(toks *t, uint64_t n, bool scores, const char *what) {
    memset(t, 0, sizeof *t);
    if (n == 0 || n > HF_MAX_TOKENS)
        return mio_err_set(MIO_ERR_LIMIT, "%s: a vocabulary of %llu tokens (must be 1..%llu)", what,
                           (unsigned long long)n, (unsigned long long)HF_MAX_TOKENS);
    t->s = calloc((size_t)n, sizeof *t->s);
    t->len = calloc((size_t)n, sizeof *t->len);
    t->type = calloc((size_t)n, sizeof *t->type);
    if (scores) t->score = calloc((size_t)n, sizeof *t->score);
    t->n = n;
    if (!t->s || !t->len || !t->type || (scores && !t->score))
        return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory for %llu tokens", what, (unsigned long long)n);
    return MIO_OK;
}

static void toks_free(toks *t) {
    free(t->s);
    free(t->len);
    free(t->type);
    free(t->score);
    memset(t, 0, sizeof *t);
}

static mio_status set_pad(toks *t, arena *a, uint64_t i, const char *what) {
    char buf[32];
    int n = snprintf(buf, sizeof buf, "[PAD%llu]", (unsigned long long)i);
    char *p = arena_alloc(a, (size_t)n);
    if (!p) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", what);
    memcpy(p, buf, (size_t)n);
    t->s[i] = p;
    t->len[i] = (size_t)n;
    return MIO_OK;
}

/* text with every U+2581 (the SentencePiece space) replaced by ' ' */
static mio_status unspace(arena *a, const char *s, size_t n, const char **out, size_t *olen) {
    char *p = arena_alloc(a, n ? n : 1);
    if (!p) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (n - i >= 3 && memcmp(s + i, "\xe2\x96\x81", 3) == 0) {
            p[o++] = ' ';
            i += 3;
        } else {
            p[o++] = s[i++];
        }
    }
    *out = p;
    *olen = o;
    return MIO_OK;
}

/* llama.cpp's loader asserts that no two tokens have the same text (it aborts
 * the process); the reference writes such a vocabulary as it is, and so does
 * this, with a warning naming a pair. The ids are sorted by their text (4
 * bytes a token, not a hash table's 24). */
static _Thread_local const toks *t_dup_toks; /* qsort's context (conversions may run on several threads) */

static int cmp_tok(const void *a, const void *b) {
    const toks *t = t_dup_toks;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    size_t n = t->len[i] < t->len[j] ? t->len[i] : t->len[j];
    int c = n ? memcmp(t->s[i], t->s[j], n) : 0;
    if (c) return c;
    if (t->len[i] != t->len[j]) return t->len[i] < t->len[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

static mio_status warn_duplicates(const toks *t) {
    if (t->n < 2 || t->n > UINT32_MAX) return MIO_OK;
    uint32_t *ix = malloc((size_t)t->n * sizeof *ix);
    if (!ix) return mio_err_set(MIO_ERR_NOMEM, "out of memory for %llu tokens", (unsigned long long)t->n);
    for (uint64_t i = 0; i < t->n; i++) ix[i] = (uint32_t)i;
    t_dup_toks = t;
    qsort(ix, (size_t)t->n, sizeof *ix, cmp_tok);
    for (uint64_t k = 1; k < t->n; k++) {
        uint32_t a = ix[k - 1], b = ix[k];
        if (t->len[a] == t->len[b] && (!t->len[a] || memcmp(t->s[a], t->s[b], t->len[a]) == 0)) {
            char esc[96];
            mio_esc_bytes(esc, sizeof esc, t->s[a], t->len[a]);
            mio_warn_set("the vocabulary holds the token text \"%s\" at ids %lu and %lu: llama.cpp refuses to load a "
                         "file with a text twice (the reference writes it the same)", esc, (unsigned long)a, (unsigned long)b);
            break;
        }
    }
    t_dup_toks = NULL;
    free(ix);
    return MIO_OK;
}

static mio_status write_tokens(mio_writer *w, const toks *t) {
    mio_status st = warn_duplicates(t);
    if (!st) st = mio_writer_set_arr_str(w, K_TOKENS, t->s, t->len, t->n);
    if (!st && t->score) st = mio_writer_set_arr(w, K_SCORES, MIO_GGUF_F32, t->score, t->n);
    if (!st) st = mio_writer_set_arr(w, K_TYPES, MIO_GGUF_I32, t->type, t->n);
    return st;
}

/* ------------------------------------------------------------ SpecialVocab */
#define SV_MAX 16
typedef struct sv {
    const char *types[SV_MAX];
    size_t n_types;
    struct { const char *typ; uint32_t id; } ids[SV_MAX];
    size_t n_ids;
    struct { const char *typ; bool v; } add[SV_MAX];
    size_t n_add;
    const char **merges;
    size_t *merge_len;
    uint64_t n_merges;
    bool load_merges;
    bool has_n_vocab;
    uint64_t n_vocab;
    const mio_json *chat;  /* NULL: None */
    mio_json *chat_owned;  /* what chat points into when it came from another file */
    int lowercase, strip_accents; /* -1: None */
    arena *ar;
    const char *dir;
} sv;

static void sv_init(sv *s, const char *dir, arena *ar, bool load_merges, const char *const *types, size_t n_types) {
    memset(s, 0, sizeof *s);
    s->dir = dir;
    s->ar = ar;
    s->load_merges = load_merges;
    s->lowercase = s->strip_accents = -1;
    for (size_t i = 0; i < n_types && i < SV_MAX; i++) s->types[s->n_types++] = types[i];
}

static void sv_free(sv *s) {
    free(s->merges);
    free(s->merge_len);
    mio_json_free(s->chat_owned);
    s->merges = NULL;
    s->merge_len = NULL;
    s->chat_owned = NULL;
}

static bool sv_has_type(const sv *s, const char *t) {
    for (size_t i = 0; i < s->n_types; i++)
        if (strcmp(s->types[i], t) == 0) return true;
    return false;
}

/* SpecialVocab._set_special_token: ints only (Python's bool is an int), the first id of a type wins. */
static mio_status sv_set_id(sv *s, const char *typ, const mio_json *tid, const char *from) {
    int64_t id;
    if (mio_json_is_bool(tid)) id = mio_json_is_true(tid);
    else if (!jint(tid, &id)) return MIO_OK;
    if (id < 0) return mio_err_set(HF_ERR_JSON, "%s: invalid value for special token type %s: %lld", from, typ, (long long)id);
    if (id > UINT32_MAX)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "%s: special token type %s id %lld does not fit a u32", from, typ,
                           (long long)id);
    if (s->has_n_vocab && (uint64_t)id >= s->n_vocab) return MIO_OK; /* the reference warns and skips */
    for (size_t i = 0; i < s->n_ids; i++)
        if (strcmp(s->ids[i].typ, typ) == 0) return MIO_OK;
    if (s->n_ids == SV_MAX) return MIO_OK;
    s->ids[s->n_ids].typ = typ;
    s->ids[s->n_ids].id = (uint32_t)id;
    s->n_ids++;
    return MIO_OK;
}

static void sv_add_flag(sv *s, const char *typ, bool v, bool only_if_absent) {
    for (size_t i = 0; i < s->n_add; i++)
        if (strcmp(s->add[i].typ, typ) == 0) {
            if (!only_if_absent) s->add[i].v = v;
            return;
        }
    if (s->n_add == SV_MAX) return;
    s->add[s->n_add].typ = typ;
    s->add[s->n_add].v = v;
    s->n_add++;
}


static mio_status parse_normalizer(sv *s, const mio_json *nz, unsigned depth, const char *path) {
    if (depth > 32) return mio_err_set(HF_ERR_JSON, "%s: normalizer Sequences nested deeper than 32", path);
    const char *t = jstr(nz, "type");
    if (!t) return MIO_OK;
    if (strcmp(t, "Lowercase") == 0) s->lowercase = 1;
    else if (strcmp(t, "StripAccents") == 0) s->strip_accents = 1;
    else if (strcmp(t, "BertNormalizer") == 0) {
        const mio_json *v;
        if ((v = jget(nz, "lowercase"))) s->lowercase = mio_json_is_null(v) ? -1 : mio_hf_json_truthy(v);
        if ((v = jget(nz, "strip_accents"))) s->strip_accents = mio_json_is_null(v) ? -1 : mio_hf_json_truthy(v);
    } else if (strcmp(t, "Sequence") == 0) {
        const mio_json *arr = jget(nz, "normalizers"), *it;
        if (mio_json_is_array(arr)) MIO_JSON_FOR_EACH(it, arr) {
                mio_status st = parse_normalizer(s, it, depth + 1, path);
                if (st) return st;
            }
    }
    return MIO_OK;
}

static mio_status sv_merges_alloc(sv *s, uint64_t n, const char *path) {
    if (n > ((uint64_t)1 << 26))
        return mio_err_set(MIO_ERR_LIMIT, "%s: %llu merges (more than 2^26)", path, (unsigned long long)n);
    s->merges = calloc(n ? (size_t)n : 1, sizeof *s->merges);
    s->merge_len = calloc(n ? (size_t)n : 1, sizeof *s->merge_len);
    if (!s->merges || !s->merge_len) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory for %llu merges", path, (unsigned long long)n);
    s->n_merges = 0;
    return MIO_OK;
}

/* model.merges: "a b" strings, or [a, b] pairs (spaces inside a part become U+0120) */
static mio_status load_json_merges(sv *s, const mio_json *merges, const char *path) {
    if (!mio_json_is_array(merges) || !merges->child) return MIO_OK;
    const mio_json *first = merges->child, *it;
    bool strs = mio_json_is_string(first);
    if (!strs && !(mio_json_is_array(first) && mio_json_size(first) == 2 && mio_json_is_string(first->child)))
        return mio_err_set(HF_ERR_JSON, "%s: model.merges: unknown tokenizer merges format (neither strings nor pairs)", path);
    mio_status st = sv_merges_alloc(s, (uint64_t)mio_json_size(merges), path);
    if (st) return st;
    uint64_t k = 0;
    MIO_JSON_FOR_EACH(it, merges) {
        if (strs) {
            if (!mio_json_is_string(it))
                return mio_err_set(HF_ERR_JSON, "%s: model.merges[%llu] is not a string like merges[0]", path,
                                   (unsigned long long)k);
            s->merges[k] = it->valuestring;
            s->merge_len[k] = strlen(it->valuestring);
        } else {
            size_t need = 0;
            const mio_json *p;
            if (!mio_json_is_array(it)) goto bad;
            MIO_JSON_FOR_EACH(p, it) {
                if (!mio_json_is_string(p)) goto bad;
                need += 2 * strlen(p->valuestring) + 1;
            }
            char *o = arena_alloc(s->ar, need ? need : 1);
            if (!o) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory for merges", path);
            size_t n = 0;
            bool firstp = true;
            MIO_JSON_FOR_EACH(p, it) {
                if (!firstp) o[n++] = ' ';
                firstp = false;
                for (const char *c = p->valuestring; *c; c++) {
                    if (*c == ' ') { o[n++] = (char)0xc4; o[n++] = (char)0xa0; } /* U+0120 */
                    else o[n++] = *c;
                }
            }
            s->merges[k] = o;
            s->merge_len[k] = n;
        }
        k++;
        continue;
    bad:
        return mio_err_set(HF_ERR_JSON, "%s: model.merges[%llu] is not an array of strings like merges[0]", path,
                           (unsigned long long)k);
    }
    s->n_merges = k;
    return MIO_OK;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* SpecialVocab._try_load_merges_txt */
static mio_status load_merges_txt(sv *s) {
    char path[4096];
    if (!file_exists(s->dir, "merges.txt", path, sizeof path)) return MIO_OK;
    char *text;
    size_t len;
    mio_status st = read_file(path, &text, &len);
    if (st) return st;
    uint64_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    if ((st = sv_merges_alloc(s, lines, path))) { free(text); return st; }
    size_t pos = 0;
    bool first = true;
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n') e++;
        size_t a = pos, b = e;
        pos = e + 1;
        while (a < b && is_space(text[a])) a++;
        while (b > a && is_space(text[b - 1])) b--;
        if (first) {
            first = false;
            if (b > a && text[a] == '#') continue;
        }
        if (a == b) continue;
        /* split(None): exactly two whitespace-separated parts */
        size_t p0 = a, p0e = p0;
        while (p0e < b && !is_space(text[p0e])) p0e++;
        size_t p1 = p0e;
        while (p1 < b && is_space(text[p1])) p1++;
        size_t p1e = p1;
        while (p1e < b && !is_space(text[p1e])) p1e++;
        if (p1 == b || p1e != b) continue; /* malformed: the reference ignores the line */
        char *o = arena_alloc(s->ar, (p0e - p0) + 1 + (p1e - p1));
        if (!o) { free(text); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
        memcpy(o, text + p0, p0e - p0);
        o[p0e - p0] = ' ';
        memcpy(o + (p0e - p0) + 1, text + p1, p1e - p1);
        s->merges[s->n_merges] = o;
        s->merge_len[s->n_merges] = (p0e - p0) + 1 + (p1e - p1);
        s->n_merges++;
    }
    /* the strings point into the arena; text can go */
    free(text);
    return MIO_OK;
}

/* tokenizer_config[key] = v (a copy); returns the stored item. */
static const mio_json *tc_set(mio_json *tc, const char *key, const mio_json *v) {
    mio_json *d = v ? mio_json_dup(v) : mio_json_new_null();
    if (!d) return NULL;
    if (!(mio_json_get(tc, key) ? mio_json_replace(tc, key, d) : mio_json_add(tc, key, d))) {
        mio_json_free(d); /* (out of memory: the item stays ours) */
        return NULL;
    }
    return mio_json_is_null(d) ? NULL : d;
}
static const mio_json *tc_get(const mio_json *tc, const char *key) {
    const mio_json *v = jget(tc, key);
    return v && !mio_json_is_null(v) ? v : NULL;
}
static const mio_json *special_id_of(const mio_json *elem) {
    const mio_json *v = jget(jget(elem, "SpecialToken"), "id");
    return v && !mio_json_is_null(v) ? v : NULL;
}
static const mio_json *sequence_id_of(const mio_json *elem) {
    const mio_json *v = jget(jget(elem, "Sequence"), "id");
    return v && !mio_json_is_null(v) ? v : NULL;
}
static bool eq_str(const mio_json *v, const char *s) { return mio_json_is_string(v) && strcmp(v->valuestring, s) == 0; }

/* SpecialVocab's crude TemplateProcessing reading (the reference's rules, warnings dropped). */
static void template_processing(sv *s, const mio_json *proc, mio_json *tc, const mio_json **bos, const mio_json **cls,
                                const mio_json **eos, const mio_json **sep) {
    const mio_json *single = jget(proc, "single"), *pair = jget(proc, "pair");
    int ns = mio_json_is_array(single) ? mio_json_size(single) : 0;
    const mio_json *first = NULL, *last = NULL;
    bool tc_truthy = mio_hf_json_truthy(tc);
    if (ns > 1) {
        if ((first = special_id_of(mio_json_at(single, 0))) && mio_hf_json_truthy(first)) {
            if (!tc_truthy) *bos = first;
            else if (!py_eq(first, *bos) && !py_eq(first, *cls)) {
                if (!mio_hf_json_truthy(*bos)) *bos = tc_set(tc, "bos_token", first);
                if (!mio_hf_json_truthy(*cls)) *cls = tc_set(tc, "cls_token", first);
            }
            sv_add_flag(s, "bos", py_eq(first, *bos) || py_eq(first, *cls), false);
        } else {
            first = NULL;
        }
        if ((last = special_id_of(mio_json_at(single, ns - 1))) && mio_hf_json_truthy(last)) {
            if (!tc_truthy) *eos = last;
            else if (!py_eq(last, *eos)) {
                if (!sv_has_type(s, "eot")) {
                    if (s->n_types < SV_MAX) s->types[s->n_types++] = "eot";
                    tc_set(tc, "eot_token", *eos);
                } else if (!sv_has_type(s, "eom")) {
                    if (s->n_types < SV_MAX) s->types[s->n_types++] = "eom";
                    tc_set(tc, "eom_token", *eos);
                }
                *eos = tc_set(tc, "eos_token", last);
            }
            sv_add_flag(s, "eos", py_eq(last, *eos), false);
        } else {
            last = NULL;
        }
    }
    int np = mio_json_is_array(pair) ? mio_json_size(pair) : 0;
    if (np == 0) return;
    int start = first && py_eq(special_id_of(mio_json_at(pair, 0)), first) ? 1 : 0;
    int stop = last && py_eq(special_id_of(mio_json_at(pair, np - 1)), last) ? np - 1 : np;
    if (stop <= start) return;
    const mio_json *a = sequence_id_of(mio_json_at(pair, start));
    const mio_json *b = sequence_id_of(mio_json_at(pair, stop - 1));
    if (!eq_str(a, "A") || !eq_str(b, "B")) return;
    int mid0 = start + 1, mid_n = stop - 1 - mid0; /* the elements between A and B */
    if (mid_n <= 0) return;
    bool add_sep = false;
    const mio_json *e = special_id_of(mio_json_at(pair, mid0));
    if (mio_hf_json_truthy(e) && (py_eq(e, *sep) || py_eq(e, *eos)) && !last) add_sep = true;
    if (mid_n == 2) {
        e = special_id_of(mio_json_at(pair, mid0 + 1));
        if (mio_hf_json_truthy(e) && (py_eq(e, *sep) || py_eq(e, *eos))) add_sep = true;
    }
    sv_add_flag(s, "sep", add_sep, false);
    if (add_sep && !mio_hf_json_truthy(*sep) && mio_hf_json_truthy(tc)) tc_set(tc, "sep_token", *eos);
}

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* chat_template.jinja (+ additional_chat_templates/NAME.jinja) or chat_template.json */
static mio_status load_chat_alt(sv *s, mio_json **alt) {
    char path[4096];
    *alt = NULL;
    char *text;
    size_t len;
    mio_status st;
    if (file_exists(s->dir, "chat_template.jinja", path, sizeof path)) {
        if ((st = read_file(path, &text, &len))) return st;
        mio_json *def = mio_json_new_string(text);
        free(text);
        if (!def) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        char adir[4096];
        snprintf(adir, sizeof adir, "%s/additional_chat_templates", s->dir);
        DIR *d = opendir(adir);
        char *names[256];
        size_t nn = 0;
        if (d) {
            struct dirent *de;
            while ((de = readdir(d)) && nn < 256) {
                size_t l = strlen(de->d_name);
                if (l > 6 && strcmp(de->d_name + l - 6, ".jinja") == 0) names[nn++] = strdup(de->d_name);
            }
            closedir(d);
        }
        if (nn == 0) {
            *alt = def;
            return MIO_OK;
        }
        qsort(names, nn, sizeof names[0], cmp_cstr); /* Path.glob order is the directory's; ours is sorted */
        mio_json *list = mio_json_new_array();
        mio_json *o = mio_json_new_object();
        mio_json_add_string(o, "name", "default");
        mio_json_add(o, "template", def);
        mio_json_append(list, o);
        st = MIO_OK;
        for (size_t i = 0; i < nn; i++) {
            if (!st && names[i]) {
                char p2[4096 + 300];
                snprintf(p2, sizeof p2, "%s/%s", adir, names[i]);
                if (!(st = read_file(p2, &text, &len))) {
                    names[i][strlen(names[i]) - 6] = 0;
                    mio_json *c = mio_json_new_object();
                    mio_json_add_string(c, "name", names[i]);
                    mio_json_add_string(c, "template", text);
                    mio_json_append(list, c);
                    free(text);
                }
            }
            free(names[i]);
        }
        if (st) { mio_json_free(list); return st; }
        *alt = list;
        return MIO_OK;
    }
    mio_json *j;
    if ((st = read_json(s->dir, "chat_template.json", &j))) return st;
    if (j) {
        mio_json *ct = mio_json_detach(j, "chat_template");
        mio_json_free(j);
        if (ct && mio_json_is_null(ct)) { mio_json_free(ct); ct = NULL; }
        *alt = ct;
    }
    return MIO_OK;
}

/* SpecialVocab._load: tokenizer.json (tj, may be NULL) + tokenizer_config.json (tc0, may be NULL) + config.json */
static mio_status sv_load(sv *s, const mio_json *tj, const mio_json *tc0, const mio_json *config, const char *tj_path) {
    mio_status st = MIO_OK;
    const mio_json *added = NULL;
    if (tj) {
        if (s->load_merges && (st = load_json_merges(s, jget(jget(tj, "model"), "merges"), tj_path))) return st;
        const mio_json *nz = jget(tj, "normalizer");
        if (mio_hf_json_truthy(nz) && (st = parse_normalizer(s, nz, 0, tj_path))) return st;
        added = jget(tj, "added_tokens");
    }
    mio_json *tc = tc0 ? mio_json_dup(tc0) : NULL;
    if (tc0 && !tc) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (tj) {
        const mio_json *bos = tc_get(tc, "bos_token"), *cls = tc_get(tc, "cls_token");
        const mio_json *eos = tc_get(tc, "eos_token"), *sep = tc_get(tc, "sep_token");
        bool tct = mio_hf_json_truthy(tc);
        if (!mio_hf_json_truthy(bos) && mio_hf_json_truthy(cls) && tct) bos = tc_set(tc, "bos_token", cls);
        if (!mio_hf_json_truthy(eos) && mio_hf_json_truthy(sep) && tct) eos = tc_set(tc, "eos_token", sep);
        const mio_json *pp = jget(tj, "post_processor");
        if (mio_hf_json_truthy(pp)) {
            const mio_json *procs = jget(pp, "processors");
            const mio_json *one[1] = {pp};
            int n = procs ? (mio_json_is_array(procs) ? mio_json_size(procs) : 0) : 1;
            const mio_json *it = procs ? (mio_json_is_array(procs) ? procs->child : NULL) : one[0];
            for (int k = 0; k < n && it; k++, it = procs ? it->next : NULL) {
                const char *t = jstr(it, "type");
                if (!t) continue;
                if (strcmp(t, "ByteLevel") == 0) {
                    sv_add_flag(s, "bos", false, true);
                    sv_add_flag(s, "eos", false, true);
                } else if (strcmp(t, "RobertaProcessing") == 0) {
                    sv_add_flag(s, "bos", true, false);
                    sv_add_flag(s, "eos", true, false);
                    sv_add_flag(s, "sep", true, false);
                    if (!mio_hf_json_truthy(cls) && mio_hf_json_truthy(tc)) {
                        const mio_json *c = jget(it, "cls");
                        cls = tc_set(tc, "cls_token", c ? mio_json_at(c, 0) : bos);
                    }
                    if (!mio_hf_json_truthy(sep) && mio_hf_json_truthy(tc)) {
                        const mio_json *c = jget(it, "sep");
                        sep = tc_set(tc, "sep_token", c ? mio_json_at(c, 0) : eos);
                    }
                } else if (strcmp(t, "TemplateProcessing") == 0) {
                    template_processing(s, it, tc, &bos, &cls, &eos, &sep);
                }
            }
        }
    }
    if (!mio_hf_json_truthy(tc)) {
        mio_json_free(tc);
        goto config_json;
    }
    {
        mio_json *alt = NULL;
        if ((st = load_chat_alt(s, &alt))) { mio_json_free(tc); return st; }
        const mio_json *ct = jget(tc, "chat_template");
        if (ct) {
            mio_json_free(alt);
            alt = mio_json_is_null(ct) ? NULL : mio_json_dup(ct);
        }
        if (alt && (mio_json_is_string(alt) || mio_json_is_array(alt))) {
            s->chat_owned = alt;
            s->chat = alt;
        } else {
            mio_json_free(alt); /* the reference warns "Bad type for chat_template" and ignores it */
        }
    }
    for (size_t k = 0; k < s->n_types; k++) {
        const char *typ = s->types[k];
        char key[64];
        snprintf(key, sizeof key, "add_%s_token", typ);
        const mio_json *ae = jget(tc, key);
        if (mio_json_is_bool(ae)) sv_add_flag(s, typ, mio_json_is_true(ae), true);
        snprintf(key, sizeof key, "%s_token", typ);
        const mio_json *e = jget(tc, key);
        const char *content = NULL;
        if (mio_json_is_string(e)) content = e->valuestring;
        else if (mio_json_is_object(e)) content = jstr(e, "content");
        if (!content) continue;
        const mio_json *a, *id = NULL;
        if (mio_json_is_array(added)) MIO_JSON_FOR_EACH(a, added) {
                const char *c = jstr(a, "content");
                if (c && strcmp(c, content) == 0) {
                    id = jget(a, "id");
                    break;
                }
            }
        if ((st = sv_set_id(s, typ, id, "tokenizer.json added_tokens"))) { mio_json_free(tc); return st; }
    }
    mio_json_free(tc);
config_json:
    if (config) {
        for (size_t k = 0; k < s->n_types; k++) {
            char key[64];
            snprintf(key, sizeof key, "%s_token_id", s->types[k]);
            const mio_json *v = jget(config, key);
            if ((!v || mio_json_is_null(v)) && jget(config, "text_config")) v = jget(jget(config, "text_config"), key);
            if ((st = sv_set_id(s, s->types[k], v, "config.json"))) return st;
        }
    }
    if (s->load_merges && s->n_merges == 0 && !s->merges) st = load_merges_txt(s);
    return st;
}

static bool name_char_ok(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* GGUFWriter.add_chat_template */
static mio_status write_chat(mio_writer *w, const mio_json *ct, arena *ar) {
    if (!ct) {
        mio_status st = mio_writer_remove_key(w, K_CHAT);
        return st == MIO_ERR_NOT_FOUND ? MIO_OK : st;
    }
    if (mio_json_is_string(ct)) {
        size_t n = strlen(ct->valuestring);
        return n ? mio_writer_set_str(w, K_CHAT, ct->valuestring, n) : MIO_OK;
    }
    const mio_json *def = NULL, *c;
    const char *names[64];
    size_t nn = 0;
    mio_status st = MIO_OK;
    MIO_JSON_FOR_EACH(c, ct) {
        if (!mio_json_is_object(c))
            return mio_err_set(HF_ERR_JSON, "tokenizer_config.json: chat_template list entry is not an object");
        const mio_json *nm = jget(c, "name"), *tp = jget(c, "template");
        const char *name = nm ? (mio_json_is_string(nm) ? nm->valuestring : NULL) : "";
        if (!name) return mio_err_set(HF_ERR_JSON, "tokenizer_config.json: chat_template entry name is not a string");
        size_t ln = strlen(name);
        if (!ln || !tp || mio_json_is_null(tp)) continue;
        if (!mio_json_is_string(tp))
            return mio_err_set(HF_ERR_JSON, "tokenizer_config.json: chat_template '%s' is not a string", name);
        char *san = arena_alloc(ar, ln + 1);
        if (!san) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < ln; i++) san[i] = name_char_ok(name[i]) ? name[i] : '_';
        san[ln] = 0;
        if (strcmp(san, "default") == 0) {
            def = tp;
            continue;
        }
        bool dup = false;
        for (size_t i = 0; i < nn; i++) dup = dup || strcmp(names[i], san) == 0;
        if (!dup && nn < 64) names[nn++] = san;
        char key[128 + 32];
        if (ln > 128) return mio_err_set(MIO_ERR_LIMIT, "tokenizer_config.json: chat template name longer than 128 bytes");
        snprintf(key, sizeof key, "%s.%s", K_CHAT, san);
        size_t tl = strlen(tp->valuestring);
        if (tl && (st = mio_writer_set_str(w, key, tp->valuestring, tl))) return st;
    }
    if (nn && (st = mio_writer_set_arr_str(w, "tokenizer.chat_templates", names, NULL, nn))) return st;
    if (!def) return MIO_OK;
    size_t tl = strlen(def->valuestring);
    return tl ? mio_writer_set_str(w, K_CHAT, def->valuestring, tl) : MIO_OK;
}

static const char *id_key(const char *typ) {
    static const char *const map[][2] = {
        {"bos", "tokenizer.ggml.bos_token_id"}, {"eos", "tokenizer.ggml.eos_token_id"},
        {"unk", "tokenizer.ggml.unknown_token_id"}, {"sep", "tokenizer.ggml.seperator_token_id"},
        {"pad", "tokenizer.ggml.padding_token_id"}, {"mask", "tokenizer.ggml.mask_token_id"},
        {"eot", "tokenizer.ggml.eot_token_id"}, {"eom", "tokenizer.ggml.eom_token_id"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], typ) == 0) return map[i][1];
    return NULL; /* cls, prefix, ...: GGUFWriter has no handler, the reference skips them */
}

/* SpecialVocab.add_to_gguf */
static mio_status sv_write(sv *s, mio_writer *w) {
    mio_status st = MIO_OK;
    if (s->n_merges && (st = mio_writer_set_arr_str(w, K_MERGES, s->merges, s->merge_len, s->n_merges))) return st;
    for (size_t i = 0; i < s->n_ids; i++) {
        const char *k = id_key(s->ids[i].typ);
        if (k && (st = mio_writer_set_u32(w, k, s->ids[i].id))) return st;
    }
    for (size_t i = 0; i < s->n_add; i++) {
        const char *t = s->add[i].typ;
        const char *k = strcmp(t, "bos") == 0   ? "tokenizer.ggml.add_bos_token"
                        : strcmp(t, "eos") == 0 ? "tokenizer.ggml.add_eos_token"
                        : strcmp(t, "sep") == 0 ? "tokenizer.ggml.add_sep_token"
                                                : NULL;
        if (k && (st = mio_writer_set_bool(w, k, s->add[i].v))) return st;
    }
    if ((st = write_chat(w, s->chat, s->ar))) return st;
    if (s->lowercase >= 0 && (st = mio_writer_set_bool(w, "tokenizer.ggml.normalizer.lowercase", s->lowercase))) return st;
    if (s->strip_accents >= 0 &&
        (st = mio_writer_set_bool(w, "tokenizer.ggml.normalizer.strip_accents", s->strip_accents)))
        return st;
    return MIO_OK;
}

static const char *const SV_DEFAULT_TYPES[] = {"bos", "eos", "unk", "sep", "pad", "cls", "mask"};

/* ------------------------------------------------------------ the conversion context */
typedef struct ctx {
    const hf_vocab_opts *o;
    mio_writer *w;
    hf_vocab_info info;
    arena ar;
    mio_json *tc;        /* tokenizer_config.json or NULL */
    mio_json *cfg;       /* config.json as in the directory (SpecialVocab reads it itself) */
    mio_json *tj;        /* tokenizer.json or NULL */
    mio_json_arena *tj_arena; /* its nodes and strings */
    char tj_path[4096];
    char tc_path[4096];
} ctx;

/* hparams["vocab_size"]-like: *has false when absent/None */
static mio_status hparam_u64(const ctx *c, const char *key, bool *has, uint64_t *v) {
    const mio_json *x = jget(c->o->config, key);
    *has = false;
    if (!x || mio_json_is_null(x)) return MIO_OK;
    int64_t i;
    if (!jint(x, &i) || i < 0) return mio_err_set(HF_ERR_JSON, "config.json: %s is not a non-negative integer", key);
    *has = true;
    *v = (uint64_t)i;
    return MIO_OK;
}

static mio_status write_model_pre(ctx *c, const char *model, const char *pre) {
    if (c->o->pre_override) pre = c->o->pre_override;
    snprintf(c->info.model, sizeof c->info.model, "%s", model);
    snprintf(c->info.pre, sizeof c->info.pre, "%s", pre);
    mio_status st = mio_writer_set_str(c->w, K_MODEL, model, strlen(model));
    if (!st) st = mio_writer_set_str(c->w, K_PRE, pre, strlen(pre));
    return st;
}

/* gguf.SpecialVocab(dir, load_merges, n_vocab) onto the writer; t NULL: no n_vocab */
static mio_status write_special(ctx *c, bool merges, const toks *t) {
    sv s;
    sv_init(&s, c->o->dir, &c->ar, merges, SV_DEFAULT_TYPES, 7);
    if (t) {
        s.has_n_vocab = true;
        s.n_vocab = t->n;
    }
    mio_status st = sv_load(&s, c->tj, c->tc, c->cfg, c->tj_path);
    if (!st) st = sv_write(&s, c->w);
    sv_free(&s);
    return st;
}

/* The end of both llama-model paths (tokenizer.model and the byte-fallback
 * tokenizer.json): model "llama", pre "default", the token arrays, then
 * SpecialVocab with n_vocab = the token count. */
static mio_status write_llama_hf(ctx *c, const toks *t) {
    mio_status st = write_model_pre(c, "llama", "default");
    if (!st) st = write_tokens(c->w, t);
    if (!st) st = write_special(c, false, t);
    return st;
}

/* ------------------------------------------------------------ SentencePiece */
/* One added token of Phi3MiniModel.set_vocab's last two passes: the content as
 * written, score -1000, control when special, else user-defined. */
static void phi3_added(toks *t, uint64_t id, const char *content, bool special) {
    t->s[id] = content;
    t->len[id] = strlen(content);
    t->score[id] = -1000.0f;
    t->type[id] = special ? HF_TOK_CONTROL : HF_TOK_USER_DEFINED;
}

/* LlamaModel._set_vocab_sentencepiece, or (phi3) Phi3MiniModel.set_vocab's
 * SentencePiece path. */
static mio_status vocab_spm(ctx *c, const char *path, bool phi3) {
    char *bytes;
    size_t len;
    mio_status st = read_file(path, &bytes, &len);
    if (st) return st;
    hf_spm_model m;
    if ((st = mio_hf_spm_parse((const uint8_t *)bytes, len, path, &m))) { free(bytes); return st; }
    uint64_t vs = 0;
    bool has;
    if (phi3) { /* hparams.get('vocab_size', tokenizer.vocab_size()), every piece indexed into it */
        st = hparam_u64(c, "vocab_size", &has, &vs);
        if (!st && !has) vs = m.n;
        if (!st && vs < m.n)
            st = mio_err_set(HF_ERR_JSON, "%s/config.json: vocab_size %llu is smaller than the %llu pieces of %s", c->o->dir,
                             (unsigned long long)vs, (unsigned long long)m.n, path);
    } else if (!(st = hparam_u64(c, "vocab_size_per_layer_input", &has, &vs)) && !has &&
               jget(c->o->config, "vocab_size_per_layer_input") == NULL) {
        st = hparam_u64(c, "vocab_size", &has, &vs);
    }
    if (!st && (!has || vs == 0)) vs = m.n;
    toks t;
    if (!st) st = toks_alloc(&t, vs, true, path);
    else memset(&t, 0, sizeof t);
    for (uint64_t i = 0; !st && i < vs; i++) {
        st = set_pad(&t, &c->ar, i, path);
        t.score[i] = -10000.0f;
        t.type[i] = HF_TOK_UNUSED;
    }
    for (uint64_t i = 0; !st && i < m.n && i < vs; i++) {
        const hf_spm_piece *p = &m.pieces[i];
        char *s = arena_alloc(&c->ar, p->len ? p->len : 1);
        if (!s) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        memcpy(s, p->text, p->len);
        t.s[i] = s;
        t.len[i] = p->len;
        t.score[i] = p->score;
        t.type[i] = p->type == HF_TOK_UNKNOWN || p->type == HF_TOK_CONTROL || p->type == HF_TOK_UNUSED ||
                            p->type == HF_TOK_BYTE
                        ? p->type
                        : HF_TOK_NORMAL; /* the reference has no IsUserDefined branch */
    }
    mio_hf_spm_free(&m);
    free(bytes);
    /* added_tokens.json */
    mio_json *at = NULL;
    if (!st) st = read_json(c->o->dir, "added_tokens.json", &at);
    if (!st && at) {
        const mio_json *it;
        if (!mio_json_is_object(at)) st = mio_err_set(HF_ERR_JSON, "added_tokens.json: not an object");
        MIO_JSON_FOR_EACH(it, at) {
            if (st) break;
            int64_t id;
            if (!jint(it, &id) || id < 0) {
                st = mio_err_set(HF_ERR_JSON, "added_tokens.json: '%s' has no non-negative integer id", it->string);
                break;
            }
            if ((uint64_t)id >= vs) continue; /* the reference warns and ignores it */
            t.s[id] = it->string;
            t.len[id] = strlen(it->string);
            t.score[id] = -1000.0f;
            t.type[id] = HF_TOK_USER_DEFINED;
        }
    }
    /* tokenizer_config.json added_tokens_decoder */
    const mio_json *atd = jget(c->tc, "added_tokens_decoder"), *it;
    if (!st && atd && !mio_json_is_object(atd))
        st = mio_err_set(HF_ERR_JSON, "%s: added_tokens_decoder is not an object", c->tc_path);
    if (!st && atd) MIO_JSON_FOR_EACH(it, atd) {
            char *end;
            errno = 0;
            long long id = strtoll(it->string, &end, 10);
            while (*end && is_space(*end)) end++;
            const char *content = jstr(it, "content");
            if (end == it->string || *end || errno || id < 0) {
                st = mio_err_set(HF_ERR_JSON, "%s: added_tokens_decoder key '%s' is not a token id", c->tc_path, it->string);
                break;
            }
            if (!content) {
                st = mio_err_set(HF_ERR_JSON, "%s: added_tokens_decoder['%s'].content is not a string", c->tc_path,
                                 it->string);
                break;
            }
            if ((uint64_t)id >= vs) continue;
            size_t cl = strlen(content);
            if (phi3) {
                phi3_added(&t, (uint64_t)id, content, mio_hf_json_truthy(jget(it, "special")));
                continue;
            }
            if (mio_hf_json_truthy(jget(it, "special")) || looks_special(content, cl)) {
                t.type[id] = HF_TOK_CONTROL;
                t.s[id] = content;
                t.len[id] = cl;
            } else {
                t.type[id] = HF_TOK_USER_DEFINED;
                if ((st = unspace(&c->ar, content, cl, &t.s[id], &t.len[id]))) break;
            }
            t.score[id] = -1000.0f;
        }
    /* Phi-3: tokenizer.json's added_tokens too, by the same rule */
    const mio_json *tja = phi3 && c->tj ? jget(c->tj, "added_tokens") : NULL;
    if (!st && tja && !mio_json_is_array(tja)) st = mio_err_set(HF_ERR_JSON, "%s: added_tokens is not an array", c->tj_path);
    uint64_t k = 0;
    if (!st && tja) MIO_JSON_FOR_EACH(it, tja) {
            const char *content = jstr(it, "content");
            int64_t id;
            if (!content || !jint(jget(it, "id"), &id) || id < 0) {
                st = mio_err_set(HF_ERR_JSON, "%s: added_tokens[%llu] has no content string and non-negative id", c->tj_path,
                                 (unsigned long long)k);
                break;
            }
            k++;
            if ((uint64_t)id < vs) phi3_added(&t, (uint64_t)id, content, mio_hf_json_truthy(jget(it, "special")));
        }
    if (!st) st = write_llama_hf(c, &t);
    c->info.n_tokens = t.n;
    toks_free(&t);
    mio_json_free(at);
    return st;
}

/* ------------------------------------------------------------ tokenizer.json vocabularies */
/* a borrowed JSON node (a struct, so arrays of them are sized plainly) */
typedef struct hf_jref {
    const mio_json *j;
} hf_jref;

typedef struct hfv {
    smap vocab;            /* model.vocab content -> id */
    smap added;            /* added_tokens content -> index in added[] */
    hf_jref *added_v;      /* the added_tokens entries */
    int64_t *added_id;
    uint64_t n_added;
    uint64_t n_model;      /* distinct model.vocab entries */
    uint64_t n_union;      /* len(tokenizer.get_vocab()) */
    uint64_t max_id;
    const char **rev;      /* id -> content after added tokens override (get_vocab inverted) */
    uint64_t rev_n;
} hfv;

static void hfv_free(hfv *v) {
    smap_free(&v->vocab);
    smap_free(&v->added);
    free(v->added_v);
    free(v->added_id);
    free(v->rev);
    memset(v, 0, sizeof *v);
}

/* Read model.vocab and added_tokens; check ids; build the inverted get_vocab() of n entries. */
static mio_status hfv_load(ctx *c, hfv *v) {
    memset(v, 0, sizeof *v);
    const mio_json *model = jget(c->tj, "model");
    const mio_json *vocab = jget(model, "vocab"), *it;
    if (!mio_json_is_object(vocab))
        return mio_err_set(HF_ERR_JSON, "%s: model.vocab is not an object of token -> id", c->tj_path);
    uint64_t n = (uint64_t)mio_json_size(vocab);
    if (n > HF_MAX_TOKENS)
        return mio_err_set(MIO_ERR_LIMIT, "%s: model.vocab has %llu tokens (more than %llu)", c->tj_path,
                           (unsigned long long)n, (unsigned long long)HF_MAX_TOKENS);
    const mio_json *added = jget(c->tj, "added_tokens");
    if (added && !mio_json_is_array(added) && !mio_json_is_object(added))
        return mio_err_set(HF_ERR_JSON, "%s: added_tokens is not an array", c->tj_path);
    uint64_t na = mio_json_is_array(added) ? (uint64_t)mio_json_size(added) : 0;
    if (na > HF_MAX_TOKENS) return mio_err_set(MIO_ERR_LIMIT, "%s: more than %llu added_tokens", c->tj_path, (unsigned long long)HF_MAX_TOKENS);
    mio_status st = smap_init(&v->vocab, n);
    if (!st) st = smap_init(&v->added, na);
    if (st) return st;
    v->added_v = calloc(na ? (size_t)na : 1, sizeof *v->added_v);
    v->added_id = calloc(na ? (size_t)na : 1, sizeof *v->added_id);
    if (!v->added_v || !v->added_id) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    MIO_JSON_FOR_EACH(it, vocab) {
        int64_t id;
        if (!jint(it, &id) || id < 0 || (uint64_t)id >= HF_MAX_TOKENS)
            return mio_err_set(HF_ERR_JSON, "%s: model.vocab['%s'] is not a token id (an integer 0..%llu)", c->tj_path,
                               it->string, (unsigned long long)HF_MAX_TOKENS - 1);
        if (smap_put(&v->vocab, it->string, strlen(it->string), id) < 0) v->n_model++;
        if ((uint64_t)id > v->max_id) v->max_id = (uint64_t)id;
    }
    uint64_t k = 0;
    if (mio_json_is_array(added)) MIO_JSON_FOR_EACH(it, added) {
            const char *content = jstr(it, "content");
            int64_t id;
            if (!mio_json_is_object(it) || !content)
                return mio_err_set(HF_ERR_JSON, "%s: added_tokens[%llu].content is not a string", c->tj_path,
                                   (unsigned long long)k);
            if (!jint(jget(it, "id"), &id) || id < 0 || (uint64_t)id >= HF_MAX_TOKENS)
                return mio_err_set(HF_ERR_JSON, "%s: added_tokens[%llu].id is not a token id (an integer 0..%llu)",
                                   c->tj_path, (unsigned long long)k, (unsigned long long)HF_MAX_TOKENS - 1);
            v->added_v[k].j = it;
            v->added_id[k] = id;
            smap_put(&v->added, content, strlen(content), (int64_t)k);
            if ((uint64_t)id > v->max_id) v->max_id = (uint64_t)id;
            k++;
        }
    v->n_added = k;
    v->n_union = v->n_model;
    for (uint64_t i = 0; i < k; i++) {
        const char *content = jstr(v->added_v[i].j, "content");
        if (smap_get(&v->added, content, strlen(content)) != (int64_t)i) continue; /* a later duplicate wins */
        if (smap_get(&v->vocab, content, strlen(content)) < 0) v->n_union++;
    }
    return MIO_OK;
}

static mio_status hfv_reverse(ctx *c, hfv *v, uint64_t n) {
    v->rev = calloc((size_t)n, sizeof *v->rev);
    v->rev_n = n;
    if (!v->rev) return mio_err_set(MIO_ERR_NOMEM, "out of memory for %llu tokens", (unsigned long long)n);
    const mio_json *it;
    MIO_JSON_FOR_EACH(it, jget(jget(c->tj, "model"), "vocab")) {
        size_t l = strlen(it->string);
        int64_t ai = smap_get(&v->added, it->string, l);
        int64_t id = smap_get(&v->vocab, it->string, l);
        if ((uint64_t)id >= n) continue;
        if (ai >= 0 && v->added_id[ai] != id) continue; /* the added token's id overrides it */
        if (v->rev[id] && strcmp(v->rev[id], it->string) != 0)
            return mio_err_set(HF_ERR_JSON, "%s: model.vocab gives id %lld to both '%s' and '%s'", c->tj_path,
                               (long long)id, v->rev[id], it->string);
        v->rev[id] = it->string;
    }
    for (uint64_t i = 0; i < v->n_added; i++) {
        const char *content = jstr(v->added_v[i].j, "content");
        if (smap_get(&v->added, content, strlen(content)) != (int64_t)i) continue;
        if ((uint64_t)v->added_id[i] < n) v->rev[v->added_id[i]] = content;
    }
    return MIO_OK;
}

/* Whether the post-processor puts a special token first (the reference's fingerprint includes it). */
static bool adds_bos(const mio_json *tj) {
    const mio_json *pp = jget(tj, "post_processor");
    if (!mio_hf_json_truthy(pp)) return false;
    const mio_json *procs = jget(pp, "processors"), *it;
    bool many = procs != NULL;
    if (many && !mio_json_is_array(procs)) return false;
    for (it = many ? procs->child : pp; it; it = many ? it->next : NULL) {
        const char *t = jstr(it, "type");
        if (t && (strcmp(t, "RobertaProcessing") == 0 || strcmp(t, "BertProcessing") == 0)) return true;
        if (t && strcmp(t, "TemplateProcessing") == 0) {
            const mio_json *single = jget(it, "single");
            if (mio_json_is_array(single) && special_id_of(single->child)) return true;
        }
        if (!many) break;
    }
    return false;
}

static mio_status check_bpe(ctx *c) {
    const char *type = jstr(jget(c->tj, "model"), "type");
    if (!type) return mio_err_set(HF_ERR_JSON, "%s: model.type is missing or not a string", c->tj_path);
    if (strcmp(type, "BPE") != 0)
        return mio_err_set(HF_ERR_UNSUPPORTED, "%s: model.type \"%s\" is not converted (only BPE tokenizer.json models, "
                           "or a SentencePiece tokenizer.model)", c->tj_path, type);
    return MIO_OK;
}

/* get_vocab_base's tokens and types from tokenizer.json: vocab_size of them
 * (config.json's, else the vocabulary's), ids nothing names as [PADn]
 * (unused), added tokens control when special or special-looking, else
 * user-defined with U+2581 as spaces; the others normal. v and t are the
 * caller's to free, also on failure. */
static mio_status base_tokens(ctx *c, hfv *v, toks *t) {
    memset(t, 0, sizeof *t);
    mio_status st = hfv_load(c, v);
    bool has = false;
    uint64_t vs = 0;
    if (!st) st = hparam_u64(c, "vocab_size", &has, &vs);
    if (!st && !has) vs = v->n_union;
    if (!st && v->n_union && v->max_id >= vs)
        st = mio_err_set(HF_ERR_JSON, "%s: token id %llu is not below vocab_size %llu (config.json)", c->tj_path,
                         (unsigned long long)v->max_id, (unsigned long long)vs);
    if (!st) st = toks_alloc(t, vs, false, c->tj_path);
    if (!st) st = hfv_reverse(c, v, vs);
    for (uint64_t i = 0; !st && i < vs; i++) {
        if (!v->rev[i]) {
            st = set_pad(t, &c->ar, i, c->tj_path);
            t->type[i] = HF_TOK_UNUSED;
            continue;
        }
        const char *s = v->rev[i];
        size_t l = strlen(s);
        int64_t ai = smap_get(&v->added, s, l);
        t->s[i] = s;
        t->len[i] = l;
        if (ai < 0) {
            t->type[i] = HF_TOK_NORMAL;
        } else if (mio_hf_json_truthy(jget(v->added_v[ai].j, "special")) || looks_special(s, l)) {
            t->type[i] = HF_TOK_CONTROL;
        } else {
            t->type[i] = HF_TOK_USER_DEFINED;
            st = unspace(&c->ar, s, l, &t->s[i], &t->len[i]);
        }
    }
    return st;
}

/* _set_vocab_gpt2: get_vocab_base + SpecialVocab(load_merges=True) */
static mio_status vocab_gpt2(ctx *c) {
    mio_status st = check_bpe(c);
    if (st) return st;
    hf_pre_match pm = {NULL, ""};
    mio_status pst = mio_hf_pre_identify(c->tj, c->tj_path, adds_bos(c->tj), &pm);
    if (pst && !c->o->pre_override) return pst;
    hfv v;
    toks t;
    st = base_tokens(c, &v, &t);
    if (!st) {
        snprintf(c->info.ref_pre, sizeof c->info.ref_pre, "%s", pm.ref_name ? pm.ref_name : "");
        st = write_model_pre(c, "gpt2", pm.name ? pm.name : "");
    }
    if (!st && strcmp(c->info.ref_pre, c->info.pre) == 0) c->info.ref_pre[0] = 0;
    if (!st && c->info.ref_pre[0]) c->info.differs_from_reference = true;
    if (!st) st = write_tokens(c->w, &t);
    if (!st) st = write_special(c, true, NULL); /* _set_vocab_gpt2: no n_vocab */
    c->info.n_tokens = t.n;
    toks_free(&t);
    hfv_free(&v);
    return st;
}

static bool is_byte_token(const char *s, size_t l) {
    return l == 6 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && s[5] == '>' && strchr("0123456789abcdefABCDEF", s[3]) &&
           strchr("0123456789abcdefABCDEF", s[4]) && s[3] && s[4];
}

/* The special tokens transformers lists in all_special_tokens: tokenizer_config's
 * *_token entries and additional_special_tokens. */
static void special_ids(const ctx *c, const hfv *v, smap *ids) {
    static const char *const keys[] = {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
                                       "mask_token"};
    for (size_t k = 0; k < 7 + 1; k++) {
        const mio_json *e = k < 7 ? jget(c->tc, keys[k]) : jget(c->tc, "additional_special_tokens");
        const mio_json *list = k < 7 ? NULL : e, *it;
        for (it = list ? (mio_json_is_array(list) ? list->child : NULL) : e; it; it = list ? it->next : NULL) {
            const char *content = mio_json_is_string(it) ? it->valuestring : jstr(it, "content");
            if (content) {
                size_t l = strlen(content);
                int64_t ai = smap_get(&v->added, content, l);
                int64_t id = ai >= 0 ? v->added_id[ai] : smap_get(&v->vocab, content, l);
                if (id >= 0) smap_put(ids, content, l, id);
            }
            if (!list) break;
        }
    }
}

static bool id_in(const smap *ids, int64_t id) {
    for (size_t i = 0; i < ids->cap; i++)
        if (ids->k[i] && ids->v[i] == id) return true;
    return false;
}

/* _set_vocab_llama_hf (LlamaHfVocab), with scores that keep the merge order and
 * the unk token typed UNKNOWN (docs/HF_VOCAB.md: the reference gives every
 * score -1000, so llama.cpp's SPM merger cannot rank the merges). */
/* BertModel.set_vocab's phantom-space form of one token: control tokens stay,
 * "##x" continues a word (x), any other starts one (U+2581 x). */
static mio_status phantom(arena *a, int type, const char **s, size_t *len) {
    if (type == HF_TOK_CONTROL) return MIO_OK;
    if (*len >= 2 && (*s)[0] == '#' && (*s)[1] == '#') {
        *s += 2;
        *len -= 2;
        return MIO_OK;
    }
    static const char k_space[] = "\xe2\x96\x81"; /* U+2581 */
    char *p = arena_alloc(a, *len + 3);
    if (!p) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(p, k_space, sizeof k_space - 1);
    memcpy(p + 3, *s, *len);
    *s = p;
    *len += 3;
    return MIO_OK;
}

/* vocab.txt (BertTokenizer's file): one token a line, its id the line number;
 * the tokenizer's special tokens (tokenizer_config.json's, else BERT's five)
 * are control tokens, as AutoTokenizer registers them. */
static mio_status bert_vocab_txt(ctx *c, const char *path, uint64_t vs, toks *t, uint64_t *n_read) {
    char *bytes;
    size_t len;
    mio_status st = read_file(path, &bytes, &len);
    if (st) return st;
    char *keep = arena_alloc(&c->ar, len + 1);
    if (!keep) {
        free(bytes);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    memcpy(keep, bytes, len);
    keep[len] = 0;
    free(bytes);
    static const char *const spec_keys[] = {"unk_token", "sep_token", "pad_token", "cls_token", "mask_token"};
    static const char *const spec_dflt[] = {"[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"};
    uint64_t id = 0;
    for (size_t i = 0; i < len && !st;) {
        size_t e = i;
        while (e < len && keep[e] != '\n') e++;
        size_t l = e - i;
        if (l && keep[i + l - 1] == '\r') l--; /* the slow tokenizer strips each line */
        while (l && (keep[i + l - 1] == ' ' || keep[i + l - 1] == '\t')) l--;
        if (id >= vs) {
            st = mio_err_set(HF_ERR_JSON, "%s: more tokens than vocab_size %llu (config.json)", path, (unsigned long long)vs);
            break;
        }
        keep[i + l] = 0;
        t->s[id] = keep + i;
        t->len[id] = l;
        t->type[id] = HF_TOK_NORMAL;
        for (size_t k = 0; k < 5; k++) {
            const char *sp = jstr(c->tc, spec_keys[k]);
            if (!sp) sp = spec_dflt[k];
            if (strlen(sp) == l && memcmp(sp, keep + i, l) == 0) t->type[id] = HF_TOK_CONTROL;
        }
        id++;
        i = e + 1;
    }
    *n_read = id;
    return st;
}

/* BertModel.set_vocab: token_type_count, then get_vocab_base's tokens (PAD
 * fillers to vocab_size; added special tokens control, other added ones
 * user-defined) in the phantom-space form, model "bert", the pre-tokenizer the
 * reference's fingerprint names (an uncased BERT WordPiece: "jina-v2-en";
 * llama.cpp's WordPiece tokenizer reads none), SpecialVocab without merges. */
static mio_status vocab_bert(ctx *c) {
    bool has = false;
    uint64_t vs = 0, ntt = 1;
    mio_status st = hparam_u64(c, "type_vocab_size", &has, &ntt);
    if (!st && !has) ntt = 1;
    if (!st) st = mio_writer_set_u32(c->w, "tokenizer.ggml.token_type_count", (uint32_t)ntt);
    if (st) return st;
    hfv v;
    memset(&v, 0, sizeof v);
    toks t;
    memset(&t, 0, sizeof t);
    bool lower = false;
    char vpath[4096];
    if (c->tj) {
        const char *type = jstr(jget(c->tj, "model"), "type");
        if (!type || strcmp(type, "WordPiece") != 0)
            return mio_err_set(HF_ERR_UNSUPPORTED, "%s: model.type %s%s%s is not converted for BertModel (a WordPiece "
                               "vocabulary is)", c->tj_path, type ? "\"" : "", type ? type : "(missing)", type ? "\"" : "");
        const mio_json *nz = jget(c->tj, "normalizer");
        lower = eq_str(jget(nz, "type"), "BertNormalizer") && mio_json_is_true(jget(nz, "lowercase"));
        st = base_tokens(c, &v, &t);
        for (uint64_t i = 0; !st && i < t.n; i++) st = phantom(&c->ar, t.type[i], &t.s[i], &t.len[i]);
    } else if (file_exists(c->o->dir, "vocab.txt", vpath, sizeof vpath)) {
        lower = !jget(c->tc, "do_lower_case") || mio_json_is_true(jget(c->tc, "do_lower_case"));
        st = hparam_u64(c, "vocab_size", &has, &vs);
        if (!st && !has)
            st = mio_err_set(HF_ERR_JSON, "%s/config.json: no vocab_size (the size of vocab.txt's vocabulary)", c->o->dir);
        uint64_t n = 0;
        if (!st) st = toks_alloc(&t, vs, false, vpath);
        if (!st) st = bert_vocab_txt(c, vpath, vs, &t, &n);
        for (uint64_t i = 0; !st && i < t.n; i++) {
            if (i >= n) {
                st = set_pad(&t, &c->ar, i, vpath);
                t.type[i] = HF_TOK_UNUSED;
            }
            if (!st) st = phantom(&c->ar, t.type[i], &t.s[i], &t.len[i]);
        }
    } else {
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: no tokenizer: neither tokenizer.json nor vocab.txt (BertModel's "
                           "WordPiece vocabulary)", c->o->dir);
    }
    if (!st) st = write_model_pre(c, "bert", lower ? "jina-v2-en" : "default");
    if (!st) st = write_tokens(c->w, &t);
    if (!st) st = write_special(c, false, &t); /* BertModel: SpecialVocab(n_vocab=len(tokens)) */
    c->info.n_tokens = t.n;
    toks_free(&t);
    hfv_free(&v);
    return st;
}

static mio_status vocab_llama_hf(ctx *c) {
    hfv v;
    toks t;
    memset(&t, 0, sizeof t);
    smap sp = {0};
    mio_status st = hfv_load(c, &v);
    if (!st) {
        const mio_json *ast = jget(c->tc, "additional_special_tokens");
        st = smap_init(&sp, 8 + (mio_json_is_array(ast) ? (uint64_t)mio_json_size(ast) : 0));
    }
    uint64_t base = v.n_model;
    /* added tokens at or past the model's size, by id (get_added_vocab sorted) */
    uint64_t *extra = NULL, n_extra = 0;
    if (!st) {
        extra = calloc(v.n_added ? (size_t)v.n_added : 1, sizeof *extra);
        if (!extra) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    for (uint64_t i = 0; !st && i < v.n_added; i++) {
        const char *content = jstr(v.added_v[i].j, "content");
        if (smap_get(&v.added, content, strlen(content)) != (int64_t)i) continue;
        if ((uint64_t)v.added_id[i] < base) continue;
        uint64_t j = n_extra++;
        while (j > 0 && v.added_id[extra[j - 1]] > v.added_id[i]) { extra[j] = extra[j - 1]; j--; }
        extra[j] = i;
    }
    if (!st) st = toks_alloc(&t, base + n_extra, true, c->tj_path);
    if (!st) st = hfv_reverse(c, &v, base);
    if (!st) special_ids(c, &v, &sp);
    const char *unk = jstr(jget(c->tj, "model"), "unk_token");
    int64_t unk_id = unk ? smap_get(&v.vocab, unk, strlen(unk)) : -1;
    for (uint64_t i = 0; !st && i < base; i++) {
        if (!v.rev[i]) {
            st = mio_err_set(HF_ERR_JSON, "%s: no token has id %llu (model.vocab has %llu tokens)", c->tj_path,
                             (unsigned long long)i, (unsigned long long)base);
            break;
        }
        t.s[i] = v.rev[i];
        t.len[i] = strlen(v.rev[i]);
        t.type[i] = is_byte_token(t.s[i], t.len[i]) ? HF_TOK_BYTE
                    : (int64_t)i == unk_id         ? HF_TOK_UNKNOWN
                    : id_in(&sp, (int64_t)i)       ? HF_TOK_CONTROL
                                                   : HF_TOK_NORMAL;
        t.score[i] = 0.0f; /* filled from the merges below */
    }
    for (uint64_t k = 0; !st && k < n_extra; k++) {
        const char *content = jstr(v.added_v[extra[k]].j, "content");
        size_t l = strlen(content);
        t.s[base + k] = content;
        t.len[base + k] = l;
        t.type[base + k] = smap_get(&sp, content, l) >= 0 ? HF_TOK_CONTROL : HF_TOK_USER_DEFINED;
        t.score[base + k] = -1000.0f;
    }
    /* scores: the token a merge of rank r makes scores -r (its first merge);
     * tokens no merge makes score below every merge. llama.cpp's SPM merger
     * takes the adjacent pair whose concatenation scores highest, so it applies
     * the merges in HF's order. */
    sv ms;
    sv_init(&ms, c->o->dir, &c->ar, true, NULL, 0);
    if (!st) st = load_json_merges(&ms, jget(jget(c->tj, "model"), "merges"), c->tj_path);
    char *buf = NULL;
    size_t bufcap = 0;
    uint8_t *made = st ? NULL : calloc(base ? (size_t)base : 1, 1);
    if (!st && !made) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (uint64_t r = 0; !st && r < ms.n_merges; r++) {
        const char *m = ms.merges[r];
        size_t ml = ms.merge_len[r];
        const char *sp1 = memchr(m, ' ', ml);
        if (!sp1) continue;
        if (!buf || ml > bufcap) {
            free(buf);
            bufcap = ml * 2 + 16;
            if (!(buf = malloc(bufcap))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); break; }
        }
        size_t a = (size_t)(sp1 - m);
        memcpy(buf, m, a);
        memcpy(buf + a, sp1 + 1, ml - a - 1);
        int64_t id = smap_get(&v.vocab, buf, ml - 1);
        if (id >= 0 && (uint64_t)id < base && !made[id]) {
            t.score[id] = r ? -(float)r : 0.0f;
            made[id] = 1;
        }
    }
    free(buf);
    for (uint64_t i = 0; !st && i < base; i++)
        if (!made[i]) t.score[i] = -(float)(ms.n_merges + i);
    free(made);
    sv_free(&ms);
    free(extra);
    if (!st) st = write_llama_hf(c, &t);
    if (!st) c->info.differs_from_reference = true;
    c->info.n_tokens = t.n;
    smap_free(&sp);
    toks_free(&t);
    hfv_free(&v);
    return st;
}

static mio_status load_tj(ctx *c) {
    mio_status st = read_json_in(c->o->dir, "tokenizer.json", &c->tj, &c->tj_arena);
    if (!st && c->tj && !mio_json_is_object(c->tj)) st = mio_err_set(HF_ERR_JSON, "%s: not a JSON object", c->tj_path);
    if (!st && c->tj && !mio_json_is_object(jget(c->tj, "model")))
        st = mio_err_set(HF_ERR_JSON, "%s: model is missing or not an object", c->tj_path);
    return st;
}

static mio_status no_tokenizer(const ctx *c) {
    return mio_err_set(MIO_ERR_NOT_FOUND, "%s: no tokenizer: neither tokenizer.model (SentencePiece) nor tokenizer.json",
                       c->o->dir);
}

mio_status mio_hf_vocab_write(mio_writer *w, const hf_vocab_opts *o, hf_vocab_info *info) {
    if (!w || !o || !o->dir) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_hf_vocab_write: writer, options and dir are required");
    if (o->flavour != HF_VOCAB_LLAMA && o->flavour != HF_VOCAB_QWEN2 && o->flavour != HF_VOCAB_GPT2 &&
        o->flavour != HF_VOCAB_PHI3 && o->flavour != HF_VOCAB_GEMMA3 && o->flavour != HF_VOCAB_BERT)
        return mio_err_set(MIO_ERR_INVALID_ARG, "mio_hf_vocab_write: unknown flavour %d", o->flavour);
    if (o->pre_override && !mio_hf_pre_known(o->pre_override))
        return mio_err_set(MIO_ERR_INVALID_ARG, "--pre %s: llama.cpp has no pre-tokenizer of that name", o->pre_override);
    ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.w = w;
    char path[4096];
    snprintf(c.tj_path, sizeof c.tj_path, "%s/tokenizer.json", o->dir);
    snprintf(c.tc_path, sizeof c.tc_path, "%s/tokenizer_config.json", o->dir);
    mio_status st = read_json(o->dir, "tokenizer_config.json", &c.tc);
    if (!st && c.tc && !mio_json_is_object(c.tc)) st = mio_err_set(HF_ERR_JSON, "%s: not a JSON object", c.tc_path);
    if (!st) st = read_json(o->dir, "config.json", &c.cfg);
    if (!st && c.cfg && !mio_json_is_object(c.cfg)) st = mio_err_set(HF_ERR_JSON, "%s/config.json: not a JSON object", o->dir);
    bool has_model = file_exists(o->dir, "tokenizer.model", path, sizeof path);
    char tp[4096];
    bool has_tj = file_exists(o->dir, "tokenizer.json", tp, sizeof tp);
    /* SpecialVocab reads tokenizer.json whenever it is there */
    if (!st && has_tj) st = load_tj(&c);
    if (!st && o->flavour == HF_VOCAB_LLAMA) {
        char tk[4096];
        if (file_exists(o->dir, "tekken.json", tk, sizeof tk) && !has_tj)
            st = mio_err_set(HF_ERR_UNSUPPORTED, "%s: a Mistral tekken.json tokenizer is not converted", tk);
        const mio_json *aps = jget(c.tc, "add_prefix_space");
        if (!st && aps && !mio_json_is_null(aps)) {
            if (!mio_json_is_bool(aps))
                st = mio_err_set(HF_ERR_JSON, "%s: add_prefix_space is not a boolean", c.tc_path);
            else
                st = mio_writer_set_bool(w, "tokenizer.ggml.add_space_prefix", mio_json_is_true(aps));
        }
        const char *cls = jstr(c.tc, "tokenizer_class");
        if (!st && cls && strcmp(cls, "HybridDNATokenizer") == 0)
            st = mio_err_set(HF_ERR_UNSUPPORTED, "%s: tokenizer_class HybridDNATokenizer is not converted", c.tc_path);
        if (!st) {
            if (has_model) {
                st = vocab_spm(&c, path, false);
            } else if (c.tj) {
                const mio_json *model = jget(c.tj, "model");
                const char *type = jstr(model, "type");
                const mio_json *bf = jget(model, "byte_fallback"), *dec = jget(c.tj, "decoder");
                bool bpe = type && strcmp(type, "BPE") == 0;
                bool is_llama3 = bpe && mio_hf_json_truthy(jget(model, "ignore_merges")) && !(bf ? mio_hf_json_truthy(bf) : true);
                bool llama_hf = !is_llama3 && bpe && mio_hf_json_truthy(bf) && mio_json_is_object(dec) &&
                                eq_str(jget(dec, "type"), "Sequence");
                st = llama_hf ? vocab_llama_hf(&c) : vocab_gpt2(&c);
            } else {
                st = no_tokenizer(&c);
            }
        }
        bool hv;
        uint64_t vs = 32000;
        if (!st) st = hparam_u64(&c, "vocab_size", &hv, &vs);
        if (!st && !hv) vs = 32000;
        if (!st && vs == 32016) { /* CodeLlama */
            static const char *const fim[] = {"prefix", "suffix", "middle", "eot"};
            static const char *const names[] = {"prefix", "suffix", "middle", "eot"};
            sv s;
            sv_init(&s, o->dir, &c.ar, false, fim, 4);
            st = sv_load(&s, c.tj, c.tc, c.cfg, c.tj_path);
            for (int i = 0; !st && i < 4; i++) {
                mio_json *n = mio_json_new_number(32007 + i);
                st = sv_set_id(&s, names[i], n, "CodeLlama");
                mio_json_free(n);
            }
            if (!st) st = sv_write(&s, w);
            sv_free(&s);
        }
        if (!st && vs == 49152) st = mio_writer_set_bool(w, "tokenizer.ggml.add_bos_token", 0);
    } else if (!st && o->flavour == HF_VOCAB_PHI3) {
        const char *cls = jstr(c.tc, "tokenizer_class");
        if (cls && strcmp(cls, "GPT2Tokenizer") == 0) /* Phi-4 */
            st = c.tj ? vocab_gpt2(&c) : mio_err_set(MIO_ERR_NOT_FOUND, "%s: tokenizer_class GPT2Tokenizer without tokenizer.json", o->dir);
        else if (has_model)
            st = vocab_spm(&c, path, true);
        else
            st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: no tokenizer.model (Phi3ForCausalLM reads its SentencePiece vocabulary from it)", o->dir);
    } else if (!st && o->flavour == HF_VOCAB_GPT2) {
        st = c.tj ? vocab_gpt2(&c) : mio_err_set(MIO_ERR_NOT_FOUND, "%s: no tokenizer.json (this class reads no other tokenizer file)", o->dir);
    } else if (!st && o->flavour == HF_VOCAB_BERT) {
        st = vocab_bert(&c);
    } else if (!st && o->flavour == HF_VOCAB_GEMMA3) {
        if (has_model) {
            st = vocab_spm(&c, path, false);
            if (!st) st = mio_writer_set_bool(w, "tokenizer.ggml.add_space_prefix", 0);
        } else if (c.tj) {
            st = vocab_gpt2(&c);
        } else {
            st = no_tokenizer(&c);
        }
    } else if (!st) {
        if (has_model) st = vocab_spm(&c, path, false);
        else if (c.tj) st = vocab_gpt2(&c);
        else st = no_tokenizer(&c);
    }
    if (!st && info) *info = c.info;
    mio_json_free(c.tc);
    mio_json_free(c.cfg);
    mio_json_free(c.tj);
    mio_json_arena_free(c.tj_arena);
    arena_free(&c.ar);
    return st;
}
