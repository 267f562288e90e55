/* SPDX-License-Identifier: MIT */
/* describe.c — what mio-inspect prints about a model, as text the library
 * returns: the summary (with --meta / --tensors), one JSON object, or
 * gguf-dump's Markdown (tensors grouped by block). GGUF (a split model: every
 * part, or one part alone), safetensors files and sharded indexes; the format
 * is detected by content. Every string from the file is escaped so the text is
 * always valid UTF-8. Schema and layout: docs/TOOLS.md. */
#include "inspect_internal.h"

#include "core/json.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Human --meta: array elements shown, string bytes shown. */
#define META_ARRAY_SHOWN 8
#define META_STRING_SHOWN 200
/* JSON: arrays up to this many elements carry their values (all of them with
 * MIO_DESCRIBE_FULL_ARRAYS); a longer one says "truncated": true instead. */
#define JSON_ARRAY_MAX 64
/* Markdown: string bytes shown in a value cell, in an array element, and the
 * elements shown of a string / numeric array; column padding stops at MD_PAD_MAX
 * code points (a longer cell is written whole, just not padded to). */
#define MD_STRING_SHOWN 60
#define MD_ELEM_STRING_SHOWN 30
#define MD_STRING_ELEMS 5
#define MD_NUMBER_ELEMS 7
#define MD_PAD_MAX 64

static const char *plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

MIO_API char *mio_format_size(char *buf, size_t cap, uint64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (!buf || !cap) return buf;
    if (bytes < 1024) {
        snprintf(buf, cap, "%u B", (unsigned)bytes);
        return buf;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    mio_snprintf_c(buf, cap, "%.2f %s", v, units[u]);
    return buf;
}

static int is_unsigned_int(int t)
{
    return t == MIO_GGUF_U8 || t == MIO_GGUF_U16 || t == MIO_GGUF_U32 || t == MIO_GGUF_U64;
}

static int is_signed_int(int t)
{
    return t == MIO_GGUF_I8 || t == MIO_GGUF_I16 || t == MIO_GGUF_I32 || t == MIO_GGUF_I64;
}

/* Decimal text of a numeric or bool scalar (exact for 64-bit integers). */
static mio_status scalar_text(const mio_gguf_value *v, char *buf, size_t cap)
{
    mio_status st;
    if (is_unsigned_int(v->type)) {
        uint64_t u;
        if ((st = mio_gguf_value_u64(v, &u)) != MIO_OK)
            return st;
        snprintf(buf, cap, "%" PRIu64, u);
    } else if (is_signed_int(v->type)) {
        int64_t s;
        if ((st = mio_gguf_value_i64(v, &s)) != MIO_OK)
            return st;
        snprintf(buf, cap, "%" PRId64, s);
    } else if (v->type == MIO_GGUF_BOOL) {
        int64_t b;
        if ((st = mio_gguf_value_i64(v, &b)) != MIO_OK)
            return st;
        snprintf(buf, cap, "%s", b ? "true" : "false");
    } else if (v->type == MIO_GGUF_F32 || v->type == MIO_GGUF_F64) {
        double d;
        if ((st = mio_gguf_value_f64(v, &d)) != MIO_OK)
            return st;
        if (v->type == MIO_GGUF_F32)
            mio_format_f32(buf, cap, (float)d);
        else
            mio_format_f64(buf, cap, d);
    } else {
        snprintf(buf, cap, "?");
        return MIO_ERR_TYPE_MISMATCH;
    }
    return MIO_OK;
}

static const char *gtype_name(int t)
{
    const char *n = mio_gguf_type_name(t);
    return n ? n : "unknown";
}

static const char *ttype_name(int t, char *buf, size_t cap)
{
    const char *n = mio_type_name(t);
    if (n)
        return n;
    snprintf(buf, cap, "type_%d", t);
    return buf;
}

/* ------------------------------------------------------------------------- */
/* Human output                                                               */
/* ------------------------------------------------------------------------- */

static mio_status print_value_human(FILE *o, const mio_gguf_value *v)
{
    char buf[64];
    mio_status st;

    if (v->type == MIO_GGUF_STRING) {
        const char *p = v->data;
        fputc('"', o);
        size_t used = mio_insp_put_escaped(o, p, v->size, META_STRING_SHOWN, 1);
        fputc('"', o);
        if (used < v->size)
            fprintf(o, "... (%zu bytes)", v->size);
        return MIO_OK;
    }
    if (v->type == MIO_GGUF_ARRAY) {
        fprintf(o, "[array of %" PRIu64 " %s]", v->count, gtype_name(v->elem_type));
        if (v->count == 0)
            return MIO_OK;
        fputs(" [", o);
        for (uint64_t j = 0; j < v->count && j < META_ARRAY_SHOWN; j++) {
            mio_gguf_value e;
            if ((st = mio_gguf_value_elem(v, j, &e)) != MIO_OK)
                return st;
            if (j)
                fputs(", ", o);
            if ((st = print_value_human(o, &e)) != MIO_OK)
                return st;
        }
        if (v->count > META_ARRAY_SHOWN)
            fprintf(o, ", ... %" PRIu64 " more", v->count - META_ARRAY_SHOWN);
        fputc(']', o);
        return MIO_OK;
    }
    if ((st = scalar_text(v, buf, sizeof buf)) != MIO_OK)
        return st;
    fputs(buf, o);
    return MIO_OK;
}

typedef struct type_total {
    uint64_t tensors, elements, bytes;
} type_total;

static uint64_t tensor_elements(const mio_gguf_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->n_dims && d < 4; d++)
        n *= (uint64_t)t->ne[d];
    return n;
}

/* 1 when f is one part of a split model opened on its own (--part, or a renamed
 * part): *no is its 1-based number (split.no + 1, as the file says; 1 when
 * that key is missing or unreadable) and *count split.count. */
static int split_part(const mio_gguf_file *f, uint64_t *no, uint64_t *count)
{
    int64_t kno = mio_gguf_find_key(f, "split.no"), kcount = mio_gguf_find_key(f, "split.count");
    *no = 0;
    *count = 0;
    if (mio_gguf_part_count(f) != 1 || kcount < 0 || mio_gguf_kv_u64(f, kcount, count) != MIO_OK || *count < 2)
        return 0;
    if (kno < 0 || mio_gguf_kv_u64(f, kno, no) != MIO_OK || *no == UINT64_MAX)
        *no = 0;
    *no += 1;
    return 1;
}

/* "1.24 B", "135.0 M", "960 K", "512" */
static const char *count_text(uint64_t n, char *buf, size_t cap)
{
    if (n >= 1000000000ull) snprintf(buf, cap, "%.2f B", (double)n / 1e9);
    else if (n >= 1000000ull) snprintf(buf, cap, "%.2f M", (double)n / 1e6);
    else if (n >= 1000ull) snprintf(buf, cap, "%.2f K", (double)n / 1e3);
    else snprintf(buf, cap, "%" PRIu64, n);
    return buf;
}

/* The model a GGUF file holds, as gguf-parser-go's MODEL / ARCHITECTURE /
 * TOKENIZER tables open with it: the facts a person asks first, from the
 * metadata llama.cpp reads (mio_model_summary_get's) and the tensor table. */
typedef struct model_facts {
    mio_model_summary s;
    int64_t file_type;   /* general.file_type, -1 when absent */
    char tokenizer[32];  /* tokenizer.ggml.model */
} model_facts;

static void model_facts_of(const mio_gguf_file *f, uint64_t n_params, uint64_t bytes, model_facts *m)
{
    memset(m, 0, sizeof *m);
    m->s.n_params = n_params;
    m->s.tensor_bytes = bytes;
    m->s.bits_per_weight = n_params ? (double)bytes * 8.0 / (double)n_params : 0.0;
    mio_insp_summary_meta(f, &m->s);
    m->file_type = -1;
    int64_t k = mio_gguf_find_key(f, "general.file_type");
    uint64_t u = 0;
    if (k >= 0 && mio_gguf_kv_u64(f, k, &u) == MIO_OK && u < 1u << 20) m->file_type = (int64_t)u;
    mio_str v = {NULL, 0};
    k = mio_gguf_find_key(f, "tokenizer.ggml.model");
    if (k >= 0 && mio_gguf_kv_str(f, k, &v) == MIO_OK) {
        size_t n = v.len < sizeof m->tokenizer - 1 ? v.len : sizeof m->tokenizer - 1;
        memcpy(m->tokenizer, v.ptr, n);
    }
}

static void print_model(FILE *o, const mio_gguf_file *f, uint64_t n_params, uint64_t bytes)
{
    model_facts m;
    char c[32];
    model_facts_of(f, n_params, bytes, &m);
    if (!m.s.architecture[0]) return; /* not a model's file (a vocabulary, an adapter without one, ...) */
    fputs("architecture:  ", o);
    mio_insp_put_escaped(o, m.s.architecture, strlen(m.s.architecture), SIZE_MAX, 0);
    fputc('\n', o);
    if (m.s.name[0]) {
        fputs("name:          ", o);
        mio_insp_put_escaped(o, m.s.name, strlen(m.s.name), SIZE_MAX, 0);
        fputc('\n', o);
    }
    fprintf(o, "parameters:    %s (%" PRIu64 ")\n", count_text(m.s.n_params, c, sizeof c), m.s.n_params);
    if (m.file_type >= 0) {
        const char *ft = mio_preset_name((int)m.file_type);
        fprintf(o, "file type:     %s (%" PRId64 ")\n", ft ? ft : "unknown", m.file_type);
    }
    fprintf(o, "bits/weight:   %.2f\n", m.s.bits_per_weight);
    if (m.s.context_length) fprintf(o, "context:       %" PRIu64 "\n", m.s.context_length);
    if (m.s.n_layer) fprintf(o, "layers:        %" PRIu64 "\n", m.s.n_layer);
    if (m.s.n_head) fprintf(o, "heads:         %" PRIu64 " (%" PRIu64 " key-value)\n", m.s.n_head, m.s.n_head_kv);
    if (m.s.n_embd) fprintf(o, "embedding:     %" PRIu64 "\n", m.s.n_embd);
    if (m.s.n_vocab || m.tokenizer[0]) {
        fprintf(o, "vocabulary:    %" PRIu64, m.s.n_vocab);
        if (m.tokenizer[0]) {
            fputs(" (tokenizer ", o);
            mio_insp_put_escaped(o, m.tokenizer, strlen(m.tokenizer), SIZE_MAX, 0);
            fputc(')', o);
        }
        fputc('\n', o);
    }
    fputc('\n', o);
}

static mio_status print_summary(FILE *o, const char *path, const mio_gguf_file *f)
{
    char h[32], tb[32];
    int64_t nt = mio_gguf_tensor_count(f);
    type_total totals[MIO_TYPE_GGML_COUNT + 1];
    uint64_t all_bytes = 0, all_elems = 0;
    mio_status st;

    memset(totals, 0, sizeof totals);
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK)
            return st;
        int slot = (t.type >= 0 && t.type < MIO_TYPE_GGML_COUNT) ? t.type : MIO_TYPE_GGML_COUNT;
        uint64_t el = tensor_elements(&t);
        totals[slot].tensors++;
        totals[slot].elements += el;
        totals[slot].bytes += t.nbytes;
        all_elems += el;
        all_bytes += t.nbytes;
    }

    print_model(o, f, all_elems, all_bytes);
    fputs("file:          ", o);
    mio_insp_put_escaped(o, path, strlen(path), SIZE_MAX, 0);
    fputc('\n', o);
    fprintf(o, "format:        GGUF\n");
    fprintf(o, "version:       %" PRIu32 "\n", mio_gguf_version(f));
    fprintf(o, "alignment:     %" PRIu32 "\n", mio_gguf_alignment(f));
    fprintf(o, "kv count:      %" PRId64 "\n", mio_gguf_kv_count(f));
    fprintf(o, "tensor count:  %" PRId64 "\n", nt);
    fprintf(o, "header size:   %" PRIu64 " bytes\n", mio_gguf_header_size(f));
    fprintf(o, "data offset:   %" PRIu64 "\n", mio_gguf_data_offset(f));
    fprintf(o, "file size:     %" PRIu64 " bytes (%s)\n", mio_gguf_file_size(f),
            mio_format_size(h, sizeof h, mio_gguf_file_size(f)));
    uint32_t parts = mio_gguf_part_count(f);
    uint64_t split_no = 0, split_count = 0;
    if (split_part(f, &split_no, &split_count)) {
        fprintf(o, "split:         %" PRIu64 " of %" PRIu64 "\n", split_no, split_count);
        fprintf(o, "parts:         this file only: part %" PRIu64 " of a model split into %" PRIu64 " files\n",
                split_no, split_count);
    }
    if (parts > 1) {
        fprintf(o, "split:         %" PRIu32 " parts\n", parts);
        fprintf(o, "parts:         %" PRIu32 " (split model; every part is read)\n", parts);
        for (uint32_t p = 0; p < parts; p++)
            fprintf(o, "  part %" PRIu32 " data offset: %" PRIu64 "\n", p + 1,
                    mio_gguf_part_data_offset(f, p));
    }
    fprintf(o, "tensor data:   %" PRIu64 " bytes (%s), %" PRIu64 " elements\n", all_bytes,
            mio_format_size(tb, sizeof tb, all_bytes), all_elems);
    if (nt == 0)
        return MIO_OK;
    fprintf(o, "types:\n");
    fprintf(o, "  %-10s %8s %16s %18s %12s\n", "type", "tensors", "elements", "bytes", "bits/weight");
    for (int s = 0; s <= MIO_TYPE_GGML_COUNT; s++) {
        char nb[32];
        if (!totals[s].tensors)
            continue;
        double bpw = totals[s].elements ? (double)totals[s].bytes * 8.0 / (double)totals[s].elements : 0.0;
        fprintf(o, "  %-10s %8" PRIu64 " %16" PRIu64 " %18" PRIu64 " %12.4f\n",
                s < MIO_TYPE_GGML_COUNT ? ttype_name(s, nb, sizeof nb) : "other", totals[s].tensors,
                totals[s].elements, totals[s].bytes, bpw);
    }
    double bpw = all_elems ? (double)all_bytes * 8.0 / (double)all_elems : 0.0;
    fprintf(o, "  %-10s %8" PRId64 " %16" PRIu64 " %18" PRIu64 " %12.4f\n", "total", nt, all_elems,
            all_bytes, bpw);
    mio_model_experts x;
    mio_insp_experts(f, &x);
    if (x.n_expert) {
        fprintf(o, "experts:       %" PRIu64 " a block, %" PRIu64 " used per token", x.n_expert, x.n_expert_used);
        if (x.n_expert_shared) fprintf(o, ", %" PRIu64 " shared", x.n_expert_shared);
        fprintf(o, "; in %" PRIu64 " %s\n", x.n_layer_moe, plural(x.n_layer_moe, "block", "blocks"));
        fprintf(o, "parameters:    %" PRIu64 " total, %" PRIu64 " in the routed experts, %" PRIu64 " active per token\n",
                x.n_params, x.n_params_expert, x.n_params_active);
    }
    return MIO_OK;
}

static mio_status print_meta(FILE *o, const mio_gguf_file *f)
{
    int64_t n = mio_gguf_kv_count(f);
    mio_status st;

    fprintf(o, "\nmetadata (%" PRId64 " keys):\n", n);
    for (int64_t i = 0; i < n; i++) {
        mio_str key = mio_gguf_kv_key(f, i);
        mio_gguf_value v;
        if ((st = mio_gguf_kv_value(f, i, &v)) != MIO_OK)
            return st;
        fputs("  ", o);
        size_t shown = key.len < 40 ? key.len : 40;
        mio_insp_put_escaped(o, key.ptr, key.len, SIZE_MAX, 0);
        for (size_t pad = shown; pad < 40; pad++)
            fputc(' ', o);
        fprintf(o, " %-7s ", gtype_name(v.type));
        if ((st = print_value_human(o, &v)) != MIO_OK)
            return st;
        fputc('\n', o);
    }
    return MIO_OK;
}

static mio_status print_tensors(FILE *o, const mio_gguf_file *f)
{
    int64_t n = mio_gguf_tensor_count(f);
    int split = mio_gguf_part_count(f) > 1;
    mio_status st;

    fprintf(o, "\ntensors (%" PRId64 "; shape is logical, outermost first; offset is relative to the data section):\n", n);
    fprintf(o, "  %-40s %-24s %-8s %14s %14s%s\n", "name", "shape", "type", "offset", "bytes",
            split ? "  part" : "");
    for (int64_t i = 0; i < n; i++) {
        mio_gguf_tensor t;
        char shape[128], nb[32];
        size_t sl = 0;
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK)
            return st;
        shape[sl++] = '[';
        for (uint32_t d = t.n_dims; d-- > 0;) {
            int w = snprintf(shape + sl, sizeof shape - sl, "%" PRId64 "%s", t.ne[d], d ? ", " : "");
            if (w > 0)
                sl += (size_t)w;
        }
        snprintf(shape + sl, sizeof shape - sl, "]");
        fputs("  ", o);
        mio_insp_put_escaped(o, t.name.ptr, t.name.len, SIZE_MAX, 0);
        for (size_t pad = t.name.len; pad < 40; pad++)
            fputc(' ', o);
        fprintf(o, " %-24s %-8s %14" PRIu64 " %14" PRIu64, shape, ttype_name(t.type, nb, sizeof nb),
                t.offset, t.nbytes);
        if (split)
            fprintf(o, "  %" PRIu32, t.part + 1);
        fputc('\n', o);
    }
    return MIO_OK;
}

/* ------------------------------------------------------------------------- */
/* JSON output                                                                */
/* ------------------------------------------------------------------------- */

/* A raw JSON item holding the quoted, escaped form of n file bytes. */
static mio_json *json_bytes(const char *p, size_t n)
{
    char *q = mio_json_quote(p, n);
    if (!q)
        return NULL;
    mio_json *item = mio_json_new_raw(q);
    free(q);
    return item;
}

static mio_json *json_u64(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return mio_json_new_raw(buf);
}

static mio_json *json_i64(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return mio_json_new_raw(buf);
}

/* Add item under name; frees nothing on failure (the caller frees the parent). */
static int add(mio_json *obj, const char *name, mio_json *item)
{
    if (!item)
        return 0;
    return mio_json_add(obj, name, item) ? 1 : (mio_json_free(item), 0);
}

static int push(mio_json *arr, mio_json *item)
{
    if (!item)
        return 0;
    return mio_json_append(arr, item) ? 1 : (mio_json_free(item), 0);
}

static mio_status json_fill_array(mio_json *obj, const mio_gguf_value *v, int full);

/* The JSON form of one value: numbers as exact raw text, strings escaped, and
 * nested arrays as {type:"array", array_type, count[, value]}. *st is set on
 * a library error; NULL with *st == MIO_OK means out of memory. */
static mio_json *json_value(const mio_gguf_value *v, mio_status *st, int full)
{
    char buf[64];
    *st = MIO_OK;
    if (v->type == MIO_GGUF_STRING)
        return json_bytes(v->data, v->size);
    if (v->type == MIO_GGUF_BOOL) {
        int64_t b;
        if ((*st = mio_gguf_value_i64(v, &b)) != MIO_OK)
            return NULL;
        return mio_json_new_bool(b != 0);
    }
    if (v->type == MIO_GGUF_ARRAY) {
        mio_json *o = mio_json_new_object();
        if (!o)
            return NULL;
        if ((*st = json_fill_array(o, v, full)) != MIO_OK) {
            mio_json_free(o);
            return NULL;
        }
        return o;
    }
    if ((*st = scalar_text(v, buf, sizeof buf)) != MIO_OK)
        return NULL;
    return mio_json_new_raw(buf);
}

/* type:"array", array_type, count, and value when count <= JSON_ARRAY_MAX or
 * --json-array was given; otherwise "truncated": true (the values are left out). */
static mio_status json_fill_array(mio_json *obj, const mio_gguf_value *v, int full)
{
    mio_status st;
    if (!add(obj, "type", mio_json_new_string("array")) ||
        !add(obj, "array_type", mio_json_new_string(gtype_name(v->elem_type))) ||
        !add(obj, "count", json_u64(v->count)))
        return MIO_ERR_NOMEM;
    if (v->count > JSON_ARRAY_MAX && !full)
        return add(obj, "truncated", mio_json_new_bool(true)) ? MIO_OK : MIO_ERR_NOMEM;
    mio_json *arr = mio_json_new_array();
    if (!add(obj, "value", arr))
        return MIO_ERR_NOMEM;
    for (uint64_t j = 0; j < v->count; j++) {
        mio_gguf_value e;
        if ((st = mio_gguf_value_elem(v, j, &e)) != MIO_OK)
            return st;
        mio_json *item = json_value(&e, &st, full);
        if (st != MIO_OK)
            return st;
        if (!push(arr, item))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

/* A key from the file as a C string for a mio_json member name: invalid UTF-8 and
 * NUL bytes become U+FFFD (mio_json escapes the control characters when printing).
 * malloc'd; NULL when out of memory. */
static char *json_name(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    if (n > (SIZE_MAX - 1) / 3)
        return NULL;
    char *out = malloc(n * 3 + 1);
    size_t o = 0, i = 0;
    if (!out)
        return NULL;
    while (i < n) {
        uint32_t cp;
        int ok;
        size_t k = mio_utf8_next(u + i, n - i, &cp, &ok);
        if (!ok || cp == 0) {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
        } else {
            memcpy(out + o, u + i, k);
            o += k;
        }
        i += k;
    }
    out[o] = '\0';
    return out;
}

/* obj[name] = item, name being n file bytes (see json_name). */
static int add_named(mio_json *obj, const char *name, size_t n, mio_json *item)
{
    char *key = json_name(name, n);
    int ok = key ? add(obj, key, item) : (mio_json_free(item), 0);
    free(key);
    return ok;
}

/* The plain JSON value for the "kv" object: a number, string or bool, an array
 * as a JSON array of plain values, or, for an array left out (over
 * JSON_ARRAY_MAX elements without --json-array), the same object the metadata
 * list holds: {type:"array", array_type, count, truncated:true}. */
static mio_json *json_plain_value(const mio_gguf_value *v, mio_status *st, int full)
{
    *st = MIO_OK;
    if (v->type != MIO_GGUF_ARRAY || (v->count > JSON_ARRAY_MAX && !full))
        return json_value(v, st, full);
    mio_json *arr = mio_json_new_array();
    if (!arr)
        return NULL;
    for (uint64_t j = 0; j < v->count; j++) {
        mio_gguf_value e;
        mio_json *item;
        if ((*st = mio_gguf_value_elem(v, j, &e)) != MIO_OK || !(item = json_plain_value(&e, st, full)) ||
            !push(arr, item)) {
            mio_json_free(arr);
            return NULL; /* *st says which: a library error, or MIO_OK for out of memory */
        }
    }
    return arr;
}

/* "kv": {key: plain value} for every metadata entry, in file order. */
static mio_status json_kv(mio_json *root, const mio_gguf_file *f, int full)
{
    mio_json *obj = mio_json_new_object();
    int64_t n = mio_gguf_kv_count(f);
    mio_status st;

    if (!add(root, "kv", obj))
        return MIO_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        mio_str key = mio_gguf_kv_key(f, i);
        mio_gguf_value v;
        if ((st = mio_gguf_kv_value(f, i, &v)) != MIO_OK)
            return st;
        mio_json *val = json_plain_value(&v, &st, full);
        if (st != MIO_OK)
            return st;
        if (!add_named(obj, key.ptr, key.len, val))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

static mio_status json_metadata(mio_json *root, const mio_gguf_file *f, int full)
{
    mio_json *meta = mio_json_new_array();
    int64_t n = mio_gguf_kv_count(f);
    mio_status st;

    if (!add(root, "metadata", meta))
        return MIO_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        mio_str key = mio_gguf_kv_key(f, i);
        mio_gguf_value v;
        if ((st = mio_gguf_kv_value(f, i, &v)) != MIO_OK)
            return st;
        mio_json *kv = mio_json_new_object();
        if (!push(meta, kv) || !add(kv, "key", json_bytes(key.ptr, key.len)))
            return MIO_ERR_NOMEM;
        if (v.type == MIO_GGUF_ARRAY) {
            if ((st = json_fill_array(kv, &v, full)) != MIO_OK)
                return st;
            continue;
        }
        if (!add(kv, "type", mio_json_new_string(gtype_name(v.type))))
            return MIO_ERR_NOMEM;
        mio_json *val = json_value(&v, &st, full);
        if (st != MIO_OK)
            return st;
        if (!add(kv, "value", val))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

static double bits_per_weight(uint64_t bytes, uint64_t elements)
{
    return elements ? (double)bytes * 8.0 / (double)elements : 0.0;
}

/* One entry of a per-type totals list: {<what>: name, tensors, elements, bytes
 * [, bits_per_weight]}. 0 when out of memory. */
static int json_total(mio_json *o, const char *what, const char *name, const type_total *t, int with_bpw)
{
    char buf[48];
    if (!add(o, what, mio_json_new_string(name)) || !add(o, "tensors", json_u64(t->tensors)) ||
        !add(o, "elements", json_u64(t->elements)) || !add(o, "bytes", json_u64(t->bytes)))
        return 0;
    if (!with_bpw)
        return 1;
    if (!t->elements)
        return add(o, "bits_per_weight", mio_json_new_null());
    return add(o, "bits_per_weight", mio_json_new_raw(mio_format_f64(buf, sizeof buf, bits_per_weight(t->bytes, t->elements))));
}

static mio_status json_tensors(mio_json *root, const mio_gguf_file *f)
{
    mio_json *arr = mio_json_new_array();
    int64_t n = mio_gguf_tensor_count(f);
    type_total totals[MIO_TYPE_GGML_COUNT + 1];
    mio_status st;

    memset(totals, 0, sizeof totals);
    if (!add(root, "tensors", arr))
        return MIO_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        mio_gguf_tensor t;
        char nb[32];
        if ((st = mio_gguf_tensor_info(f, i, &t)) != MIO_OK)
            return st;
        int slot = (t.type >= 0 && t.type < MIO_TYPE_GGML_COUNT) ? t.type : MIO_TYPE_GGML_COUNT;
        totals[slot].tensors++;
        totals[slot].elements += tensor_elements(&t);
        totals[slot].bytes += t.nbytes;

        /* the shared vocabulary (dtype, shape outermost first, elements, file)
         * and the deprecated GGUF-only names (type, ne innermost first, part) */
        mio_json *o = mio_json_new_object();
        if (!push(arr, o) || !add(o, "name", json_bytes(t.name.ptr, t.name.len)) ||
            !add(o, "dtype", mio_json_new_string(ttype_name(t.type, nb, sizeof nb))))
            return MIO_ERR_NOMEM;
        mio_json *shape = mio_json_new_array();
        if (!add(o, "shape", shape))
            return MIO_ERR_NOMEM;
        for (uint32_t d = t.n_dims < 4 ? t.n_dims : 4; d-- > 0;)
            if (!push(shape, json_i64(t.ne[d])))
                return MIO_ERR_NOMEM;
        if (!add(o, "elements", json_u64(tensor_elements(&t))) || !add(o, "offset", json_u64(t.offset)) ||
            !add(o, "nbytes", json_u64(t.nbytes)) || !add(o, "file", json_u64(t.part)))
            return MIO_ERR_NOMEM;
        mio_json *ne = mio_json_new_array();
        if (!add(o, "type", mio_json_new_string(ttype_name(t.type, nb, sizeof nb))) || !add(o, "ne", ne))
            return MIO_ERR_NOMEM;
        for (uint32_t d = 0; d < t.n_dims && d < 4; d++)
            if (!push(ne, json_i64(t.ne[d])))
                return MIO_ERR_NOMEM;
        if (!add(o, "part", json_u64(t.part)))
            return MIO_ERR_NOMEM;
    }

    /* "dtypes" (shared with safetensors) and the deprecated "types" */
    mio_json *dtypes = mio_json_new_array();
    if (!add(root, "dtypes", dtypes))
        return MIO_ERR_NOMEM;
    mio_json *types = mio_json_new_array();
    if (!add(root, "types", types))
        return MIO_ERR_NOMEM;
    for (int s = 0; s <= MIO_TYPE_GGML_COUNT; s++) {
        char nb[32];
        if (!totals[s].tensors)
            continue;
        const char *name = s < MIO_TYPE_GGML_COUNT ? ttype_name(s, nb, sizeof nb) : "other";
        mio_json *o = mio_json_new_object();
        if (!push(dtypes, o) || !json_total(o, "dtype", name, &totals[s], 1))
            return MIO_ERR_NOMEM;
        o = mio_json_new_object();
        if (!push(types, o) || !json_total(o, "type", name, &totals[s], 0))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

static mio_status print_json(FILE *o, const mio_gguf_file *f, int full)
{
    mio_json *root = mio_json_new_object();
    mio_status st = MIO_ERR_NOMEM;
    if (!root)
        return MIO_ERR_NOMEM;
    uint32_t parts = mio_gguf_part_count(f);
    mio_json *part_offsets = mio_json_new_array();
    if (!add(root, "format", mio_json_new_string("gguf")) ||
        !add(root, "version", json_u64(mio_gguf_version(f))) ||
        !add(root, "alignment", json_u64(mio_gguf_alignment(f))) ||
        !add(root, "kv_count", json_i64(mio_gguf_kv_count(f))) ||
        !add(root, "tensor_count", json_i64(mio_gguf_tensor_count(f))) ||
        !add(root, "header_size", json_u64(mio_gguf_header_size(f))) ||
        !add(root, "data_offset", json_u64(mio_gguf_data_offset(f))) ||
        !add(root, "file_size", json_u64(mio_gguf_file_size(f))) ||
        !add(root, "files", json_u64(parts)) || !add(root, "parts", json_u64(parts)) ||
        !add(root, "part_data_offsets", part_offsets))
        goto out;
    for (uint32_t p = 0; p < parts; p++)
        if (!push(part_offsets, json_u64(mio_gguf_part_data_offset(f, p))))
            goto out;
    if ((st = json_metadata(root, f, full)) != MIO_OK || (st = json_kv(root, f, full)) != MIO_OK ||
        (st = json_tensors(root, f)) != MIO_OK)
        goto out;
    {
        /* the model itself (the text summary's first lines) */
        uint64_t np = 0, nbytes = 0;
        for (int64_t i = 0; i < mio_gguf_tensor_count(f); i++) {
            mio_gguf_tensor t;
            if (mio_gguf_tensor_info(f, i, &t) == MIO_OK) np += tensor_elements(&t), nbytes += t.nbytes;
        }
        model_facts mf;
        model_facts_of(f, np, nbytes, &mf);
        mio_json *mo = mio_json_new_object();
        const char *ftn = mf.file_type >= 0 ? mio_preset_name((int)mf.file_type) : NULL;
        char bpw[40];
        st = MIO_ERR_NOMEM;
        if (!add(root, "model", mo) || !add(mo, "architecture", json_bytes(mf.s.architecture, strlen(mf.s.architecture))) ||
            !add(mo, "name", json_bytes(mf.s.name, strlen(mf.s.name))) || !add(mo, "parameters", json_u64(mf.s.n_params)) ||
            !add(mo, "file_type", mf.file_type >= 0 ? json_i64(mf.file_type) : mio_json_new_null()) ||
            !add(mo, "file_type_name", ftn ? mio_json_new_string(ftn) : mio_json_new_null()) ||
            !add(mo, "bits_per_weight", mio_json_new_raw(mio_format_f64(bpw, sizeof bpw, mf.s.bits_per_weight))) ||
            !add(mo, "context_length", json_u64(mf.s.context_length)) || !add(mo, "layers", json_u64(mf.s.n_layer)) ||
            !add(mo, "heads", json_u64(mf.s.n_head)) || !add(mo, "heads_kv", json_u64(mf.s.n_head_kv)) ||
            !add(mo, "embedding", json_u64(mf.s.n_embd)) || !add(mo, "vocabulary", json_u64(mf.s.n_vocab)) ||
            !add(mo, "tokenizer", json_bytes(mf.tokenizer, strlen(mf.tokenizer))))
            goto out;
    }
    mio_model_experts x;
    mio_insp_experts(f, &x);
    if (x.n_expert) { /* a mixture of experts: the counts and the active parameters */
        mio_json *e = mio_json_new_object();
        st = MIO_ERR_NOMEM;
        if (!add(root, "experts", e) || !add(e, "count", json_u64(x.n_expert)) ||
            !add(e, "used", json_u64(x.n_expert_used)) || !add(e, "shared", json_u64(x.n_expert_shared)) ||
            !add(e, "blocks", json_u64(x.n_layer_moe)) || !add(e, "params", json_u64(x.n_params)) ||
            !add(e, "params_expert", json_u64(x.n_params_expert)) || !add(e, "params_active", json_u64(x.n_params_active)))
            goto out;
    }
    char *text = mio_json_print(root, true);
    if (!text) {
        st = MIO_ERR_NOMEM;
        goto out;
    }
    fputs(text, o);
    fputc('\n', o);
    free(text);
    st = MIO_OK;
out:
    mio_json_free(root);
    return st;
}

/* ------------------------------------------------------------------------- */
/* safetensors                                                                */
/* ------------------------------------------------------------------------- */

static uint64_t st_elements(const mio_st_tensor *t)
{
    uint64_t n = 1; /* a scalar (rank 0) has one element; the library checked overflow */
    for (uint32_t d = 0; d < t->n_dims; d++)
        n *= t->shape[d];
    return n;
}

static const char *st_dtype_text(int dtype)
{
    const char *n = mio_st_dtype_name(dtype);
    return n ? n : "?";
}

/* "[2, 3]" ("[]" for a scalar) into buf; truncated with "...]" when too long. */
static const char *st_shape_text(const mio_st_tensor *t, char *buf, size_t cap)
{
    size_t sl = 0;
    buf[sl++] = '[';
    for (uint32_t d = 0; d < t->n_dims; d++) {
        int w = snprintf(buf + sl, cap - sl, "%" PRIu64 "%s", t->shape[d], d + 1 < t->n_dims ? ", " : "");
        if (w < 0 || (size_t)w >= cap - sl) {
            snprintf(buf + (cap > 5 ? cap - 5 : 0), 5, "...]");
            return buf;
        }
        sl += (size_t)w;
    }
    snprintf(buf + sl, cap - sl, "]");
    return buf;
}

/* Totals per dtype (slots 0..MIO_ST_DTYPE_COUNT-1), over every tensor. */
static mio_status st_totals(const mio_st_file *f, type_total *totals, type_total *all)
{
    int64_t nt = mio_st_tensor_count(f);
    mio_status st;
    memset(totals, 0, sizeof(type_total) * MIO_ST_DTYPE_COUNT);
    memset(all, 0, sizeof *all);
    for (int64_t i = 0; i < nt; i++) {
        mio_st_tensor t;
        if ((st = mio_st_tensor_info(f, i, &t)) != MIO_OK)
            return st;
        if (t.dtype < 0 || t.dtype >= MIO_ST_DTYPE_COUNT)
            continue;
        uint64_t el = st_elements(&t);
        totals[t.dtype].tensors++;
        totals[t.dtype].elements += el;
        totals[t.dtype].bytes += t.nbytes;
        all->tensors++;
        all->elements += el;
        all->bytes += t.nbytes;
    }
    return MIO_OK;
}

static mio_status st_print_summary(FILE *o, const char *path, const mio_st_file *f, int index)
{
    char h[32], tb[32];
    type_total totals[MIO_ST_DTYPE_COUNT], all;
    mio_status st;

    if ((st = st_totals(f, totals, &all)) != MIO_OK)
        return st;
    fputs("file:          ", o);
    mio_insp_put_escaped(o, path, strlen(path), SIZE_MAX, 0);
    fputc('\n', o);
    fprintf(o, "format:        safetensors%s\n", index ? " (sharded, index file)" : "");
    uint32_t shards = mio_st_shard_count(f);
    if (index)
        fprintf(o, "shards:        %" PRIu32 "\n", shards);
    fprintf(o, "header size:   %" PRIu64 " bytes%s\n", mio_st_header_size(f), index ? " (shard 1)" : "");
    fprintf(o, "data offset:   %" PRIu64 "%s\n", 8 + mio_st_header_size(f), index ? " (shard 1)" : "");
    fprintf(o, "file size:     %" PRIu64 " bytes (%s)%s\n", mio_st_file_size(f),
            mio_format_size(h, sizeof h, mio_st_file_size(f)), index ? " (shard 1)" : "");
    fprintf(o, "metadata keys: %" PRId64 "\n", mio_st_meta_count(f));
    fprintf(o, "tensor count:  %" PRId64 "\n", mio_st_tensor_count(f));
    fprintf(o, "tensor data:   %" PRIu64 " bytes (%s), %" PRIu64 " elements\n", all.bytes,
            mio_format_size(tb, sizeof tb, all.bytes), all.elements);
    if (all.tensors == 0)
        return MIO_OK;
    fprintf(o, "dtypes:\n");
    fprintf(o, "  %-12s %8s %16s %18s\n", "dtype", "tensors", "elements", "bytes");
    /* upstream's writer order: widest/last-declared dtype first */
    for (int d = MIO_ST_DTYPE_COUNT; d-- > 0;) {
        if (!totals[d].tensors)
            continue;
        fprintf(o, "  %-12s %8" PRIu64 " %16" PRIu64 " %18" PRIu64 "\n", st_dtype_text(d), totals[d].tensors,
                totals[d].elements, totals[d].bytes);
    }
    fprintf(o, "  %-12s %8" PRIu64 " %16" PRIu64 " %18" PRIu64 "\n", "total", all.tensors, all.elements, all.bytes);
    return MIO_OK;
}

static mio_status st_print_meta(FILE *o, const mio_st_file *f)
{
    int64_t n = mio_st_meta_count(f);
    mio_status st;

    fprintf(o, "\nmetadata (%" PRId64 " keys, string values):\n", n);
    for (int64_t i = 0; i < n; i++) {
        mio_str key, val;
        if ((st = mio_st_meta_at(f, i, &key, &val)) != MIO_OK)
            return st;
        fputs("  ", o);
        mio_insp_put_escaped(o, key.ptr, key.len, SIZE_MAX, 0);
        for (size_t pad = key.len; pad < 40; pad++)
            fputc(' ', o);
        fputs(" \"", o);
        size_t used = mio_insp_put_escaped(o, val.ptr, val.len, META_STRING_SHOWN, 1);
        fputc('"', o);
        if (used < val.len)
            fprintf(o, "... (%zu bytes)", val.len);
        fputc('\n', o);
    }
    return MIO_OK;
}

static mio_status st_print_tensors(FILE *o, const mio_st_file *f, int index)
{
    int64_t n = mio_st_tensor_count(f);
    mio_status st;

    fprintf(o, "\ntensors (%" PRId64 "; shape outermost first; offsets are relative to the data buffer%s):\n", n,
            index ? " of the shard" : "");
    fprintf(o, "  %-40s %-24s %-12s %-28s %14s%s\n", "name", "shape", "dtype", "data_offsets", "bytes",
            index ? "  shard" : "");
    for (int64_t i = 0; i < n; i++) {
        mio_st_tensor t;
        char shape[128], offs[64];
        if ((st = mio_st_tensor_info(f, i, &t)) != MIO_OK)
            return st;
        snprintf(offs, sizeof offs, "[%" PRIu64 ", %" PRIu64 "]", t.data_start, t.data_end);
        fputs("  ", o);
        mio_insp_put_escaped(o, t.name.ptr, t.name.len, SIZE_MAX, 0);
        for (size_t pad = t.name.len; pad < 40; pad++)
            fputc(' ', o);
        fprintf(o, " %-24s %-12s %-28s %14" PRIu64, st_shape_text(&t, shape, sizeof shape), st_dtype_text(t.dtype),
                offs, t.nbytes);
        if (index)
            fprintf(o, "  %" PRIu32, t.shard + 1);
        fputc('\n', o);
    }
    return MIO_OK;
}

static mio_status st_print_json(FILE *o, const mio_st_file *f, int index)
{
    mio_json *root = mio_json_new_object();
    mio_status st = MIO_ERR_NOMEM;
    type_total totals[MIO_ST_DTYPE_COUNT], all;
    if (!root)
        return MIO_ERR_NOMEM;
    if ((st = st_totals(f, totals, &all)) != MIO_OK)
        goto out;
    st = MIO_ERR_NOMEM;
    if (!add(root, "format", mio_json_new_string("safetensors")) || !add(root, "index", mio_json_new_bool(index)) ||
        !add(root, "header_size", json_u64(mio_st_header_size(f))) ||
        !add(root, "data_offset", json_u64(8 + mio_st_header_size(f))) ||
        !add(root, "file_size", json_u64(mio_st_file_size(f))) ||
        !add(root, "files", json_u64(mio_st_shard_count(f))) ||
        !add(root, "shards", json_u64(mio_st_shard_count(f))) ||
        !add(root, "kv_count", json_i64(mio_st_meta_count(f))) ||
        !add(root, "tensor_count", json_i64(mio_st_tensor_count(f))))
        goto out;

    mio_json *meta = mio_json_new_array();
    if (!add(root, "metadata", meta))
        goto out;
    mio_json *kvobj = mio_json_new_object();
    if (!add(root, "kv", kvobj))
        goto out;
    int64_t nm = mio_st_meta_count(f);
    for (int64_t i = 0; i < nm; i++) {
        mio_str key, val;
        if ((st = mio_st_meta_at(f, i, &key, &val)) != MIO_OK)
            goto out;
        st = MIO_ERR_NOMEM;
        mio_json *kv = mio_json_new_object();
        if (!push(meta, kv) || !add(kv, "key", json_bytes(key.ptr, key.len)) ||
            !add(kv, "type", mio_json_new_string("string")) || !add(kv, "value", json_bytes(val.ptr, val.len)) ||
            !add_named(kvobj, key.ptr, key.len, json_bytes(val.ptr, val.len)))
            goto out;
    }

    mio_json *arr = mio_json_new_array();
    if (!add(root, "tensors", arr))
        goto out;
    int64_t nt = mio_st_tensor_count(f);
    for (int64_t i = 0; i < nt; i++) {
        mio_st_tensor t;
        if ((st = mio_st_tensor_info(f, i, &t)) != MIO_OK)
            goto out;
        st = MIO_ERR_NOMEM;
        mio_json *to = mio_json_new_object();
        mio_json *shape = mio_json_new_array();
        mio_json *offs = mio_json_new_array();
        if (!push(arr, to)) {
            mio_json_free(shape);
            mio_json_free(offs);
            goto out;
        }
        if (!add(to, "name", json_bytes(t.name.ptr, t.name.len)) ||
            !add(to, "dtype", mio_json_new_string(st_dtype_text(t.dtype)))) {
            mio_json_free(shape);
            mio_json_free(offs);
            goto out;
        }
        if (!add(to, "shape", shape)) {
            mio_json_free(offs);
            goto out;
        }
        for (uint32_t d = 0; d < t.n_dims; d++)
            if (!push(shape, json_u64(t.shape[d])))
                goto out;
        if (!add(to, "elements", json_u64(st_elements(&t))) || !add(to, "offset", json_u64(t.data_start)) ||
            !add(to, "data_offsets", offs) || !push(offs, json_u64(t.data_start)) ||
            !push(offs, json_u64(t.data_end)) || !add(to, "nbytes", json_u64(t.nbytes)) ||
            !add(to, "file", json_u64(t.shard)))
            goto out;
        if (index && !add(to, "shard", json_u64(t.shard)))
            goto out;
    }

    mio_json *types = mio_json_new_array();
    if (!add(root, "dtypes", types))
        goto out;
    for (int d = MIO_ST_DTYPE_COUNT; d-- > 0;) {
        if (!totals[d].tensors)
            continue;
        mio_json *to = mio_json_new_object();
        if (!push(types, to) || !json_total(to, "dtype", st_dtype_text(d), &totals[d], 1))
            goto out;
    }

    char *text = mio_json_print(root, true);
    if (!text)
        goto out;
    fputs(text, o);
    fputc('\n', o);
    free(text);
    st = MIO_OK;
out:
    mio_json_free(root);
    return st;
}

/* ------------------------------------------------------------------------- */
/* Markdown (--markdown)                                                      */
/* ------------------------------------------------------------------------- */
/* The layout follows gguf-dump --markdown (gguf-py): a key-value table, a
 * tensor offset table, then one table per tensor group with its element count
 * and bits per weight, and the total bits per weight last. Every string from the
 * file is a code span escaped for a terminal (mio_insp_put_escaped) with '|'
 * written "\|" (GFM tables), so no file content can end a cell, a row or the
 * span, or be read as Markdown. */

/* Cells of one table, collected first so that columns can be padded. */
typedef struct md_table {
    int ncol;
    const char *const *head;
    const char *align; /* 'l' or 'r' per column */
    char **cell;       /* row-major */
    size_t n, cap;
} md_table;

/* Append a cell (taking ownership); 0 when text is NULL or out of memory. */
static int md_add(md_table *t, char *text)
{
    if (!text)
        return 0;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        char **p = nc < SIZE_MAX / sizeof *p ? realloc(t->cell, nc * sizeof *p) : NULL;
        if (!p) {
            free(text);
            return 0;
        }
        t->cell = p;
        t->cap = nc;
    }
    t->cell[t->n++] = text;
    return 1;
}

static void md_free(md_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cell[i]);
    free(t->cell);
    t->cell = NULL;
    t->n = t->cap = 0;
}

/* A malloc'd printf. */
__attribute__((format(printf, 1, 2))) static char *md_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Code points in a valid UTF-8 string (what the escaping produces). */
static size_t md_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0u) != 0x80u)
            w++;
    return w;
}

static void md_spaces(FILE *o, size_t n)
{
    while (n--)
        fputc(' ', o);
}

static void md_row(FILE *o, const md_table *t, const char *const *cells, const size_t *w)
{
    for (int c = 0; c < t->ncol; c++) {
        size_t cw = md_width(cells[c]), pad = cw < w[c] ? w[c] - cw : 0;
        fputs("| ", o);
        if (t->align[c] == 'r')
            md_spaces(o, pad);
        fputs(cells[c], o);
        if (t->align[c] != 'r')
            md_spaces(o, pad);
        fputc(' ', o);
    }
    fputs("|\n", o);
}

/* Columns are padded to their widest cell, up to MD_PAD_MAX code points. */
static void md_print(FILE *o, const md_table *t)
{
    size_t w[8] = {0};
    for (int c = 0; c < t->ncol && c < 8; c++)
        w[c] = md_width(t->head[c]);
    for (size_t i = 0; i < t->n; i++) {
        size_t cw = md_width(t->cell[i]);
        int c = (int)(i % (size_t)t->ncol);
        if (cw > MD_PAD_MAX)
            cw = MD_PAD_MAX;
        if (cw > w[c])
            w[c] = cw;
    }
    md_row(o, t, t->head, w);
    for (int c = 0; c < t->ncol; c++) {
        fputc('|', o);
        if (t->align[c] != 'r')
            fputc(':', o);
        for (size_t k = 0; k < w[c] + 1; k++)
            fputc('-', o);
        if (t->align[c] == 'r')
            fputc(':', o);
    }
    fputs("|\n", o);
    for (size_t i = 0; i + (size_t)t->ncol <= t->n; i += (size_t)t->ncol)
        md_row(o, t, (const char *const *)t->cell + i, w);
}

/* n file bytes as a Markdown code span: escaped for a terminal, at most max
 * input bytes (then " ... (N bytes)" follows the span), '|' as "\|", fenced by
 * one backtick more than the longest backtick run inside (with a space inside
 * the fences when the text starts or ends with one). An empty string is "". */
static char *md_code(const char *p, size_t n, size_t max)
{
    char *esc = NULL, *out = NULL;
    size_t elen = 0, olen = 0;
    FILE *m = open_memstream(&esc, &elen);
    if (!m)
        return NULL;
    size_t used = mio_insp_put_escaped(m, p, n, max, 0);
    if (fclose(m) != 0 || !esc) {
        free(esc);
        return NULL;
    }
    if (elen == 0 && used == n) {
        free(esc);
        return md_fmt("\"\"");
    }
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < elen; i++) {
        run = esc[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    int space = esc[0] == '`' || esc[elen - 1] == '`';
    m = open_memstream(&out, &olen);
    if (!m) {
        free(esc);
        return NULL;
    }
    for (size_t k = 0; k <= longest; k++)
        fputc('`', m);
    if (space)
        fputc(' ', m);
    for (size_t i = 0; i < elen; i++) {
        if (esc[i] == '|')
            fputc('\\', m);
        fputc(esc[i], m);
    }
    if (space)
        fputc(' ', m);
    for (size_t k = 0; k <= longest; k++)
        fputc('`', m);
    if (used < n)
        fprintf(m, " ... (%zu bytes)", n);
    free(esc);
    if (fclose(m) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* "~7B", "~131M", "~4K", "512": a count rounded for a heading. */
static const char *md_approx(uint64_t n, char *buf, size_t cap)
{
    static const struct {
        double at;
        const char *sfx;
    } u[] = { { 1e15, "Q" }, { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" } };
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
        if ((double)n > u[k].at) {
            mio_snprintf_c(buf, cap, "~%.0f%s", (double)n / u[k].at, u[k].sfx);
            return buf;
        }
    snprintf(buf, cap, "%" PRIu64, n);
    return buf;
}

/* The Value cell of a GGUF metadata entry. */
static char *md_gguf_value(const mio_gguf_value *v, mio_status *st)
{
    char buf[64];
    *st = MIO_OK;
    if (v->type == MIO_GGUF_STRING)
        return md_code(v->data, v->size, MD_STRING_SHOWN);
    if (v->type != MIO_GGUF_ARRAY) {
        if ((*st = scalar_text(v, buf, sizeof buf)) != MIO_OK)
            return NULL;
        return md_fmt("%s", buf);
    }
    char *out = NULL;
    size_t olen = 0;
    FILE *m = open_memstream(&out, &olen);
    if (!m)
        return NULL;
    uint64_t shown = v->elem_type == MIO_GGUF_STRING ? MD_STRING_ELEMS : MD_NUMBER_ELEMS;
    if (shown > v->count)
        shown = v->count;
    fputs("[ ", m);
    for (uint64_t j = 0; j < shown && *st == MIO_OK; j++) {
        mio_gguf_value e;
        if ((*st = mio_gguf_value_elem(v, j, &e)) != MIO_OK)
            break;
        if (j)
            fputs(", ", m);
        if (e.type == MIO_GGUF_STRING) {
            char *c = md_code(e.data, e.size, MD_ELEM_STRING_SHOWN);
            if (!c) {
                fclose(m);
                free(out);
                return NULL;
            }
            fputs(c, m);
            free(c);
        } else if (e.type == MIO_GGUF_ARRAY) {
            fprintf(m, "[array of %" PRIu64 " %s]", e.count, gtype_name(e.elem_type));
        } else if ((*st = scalar_text(&e, buf, sizeof buf)) == MIO_OK) {
            fputs(buf, m);
        }
    }
    fputs(v->count > shown ? ", ... ]" : " ]", m);
    if (fclose(m) != 0 || *st != MIO_OK) {
        free(out);
        return NULL;
    }
    return out;
}

/* One tensor of either format, in the shared vocabulary. */
typedef struct md_src {
    const mio_gguf_file *g; /* one of g and s */
    const mio_st_file *s;
} md_src;

typedef struct md_tensor {
    mio_str name;
    char dtype[32];
    uint32_t n_dims;
    uint64_t dims[4];      /* GGUF: the shape, outermost first */
    const uint64_t *shape; /* n_dims entries, outermost first */
    uint64_t elements, offset, nbytes;
    uint32_t file;
} md_tensor;

static int64_t md_tensor_count(const md_src *m)
{
    return m->g ? mio_gguf_tensor_count(m->g) : mio_st_tensor_count(m->s);
}

/* Tensor i; t->shape may point into t itself (do not copy t and keep it). */
static mio_status md_tensor_at(const md_src *m, int64_t i, md_tensor *t)
{
    mio_status st;
    char nb[32];
    memset(t, 0, sizeof *t);
    if (m->g) {
        mio_gguf_tensor g;
        if ((st = mio_gguf_tensor_info(m->g, i, &g)) != MIO_OK)
            return st;
        t->name = g.name;
        snprintf(t->dtype, sizeof t->dtype, "%s", ttype_name(g.type, nb, sizeof nb));
        t->n_dims = g.n_dims < 4 ? g.n_dims : 4;
        for (uint32_t d = 0; d < t->n_dims; d++)
            t->dims[d] = (uint64_t)g.ne[t->n_dims - 1 - d];
        t->shape = t->dims;
        t->elements = tensor_elements(&g);
        t->offset = g.offset;
        t->nbytes = g.nbytes;
        t->file = g.part;
        return MIO_OK;
    }
    mio_st_tensor s;
    if ((st = mio_st_tensor_info(m->s, i, &s)) != MIO_OK)
        return st;
    t->name = s.name;
    snprintf(t->dtype, sizeof t->dtype, "%s", st_dtype_text(s.dtype));
    t->n_dims = s.n_dims;
    t->shape = s.shape;
    t->elements = st_elements(&s);
    t->offset = s.data_start;
    t->nbytes = s.nbytes;
    t->file = s.shard;
    return MIO_OK;
}

/* "4096 x 32000" (outermost first), "scalar" for rank 0; at most 8 dimensions
 * are written, then " x ...". */
static char *md_shape(const md_tensor *t)
{
    char buf[256];
    size_t l = 0;
    if (t->n_dims == 0)
        return md_fmt("scalar");
    buf[0] = '\0';
    for (uint32_t d = 0; d < t->n_dims && d < 8; d++) {
        int w = snprintf(buf + l, sizeof buf - l, "%s%" PRIu64, d ? " x " : "", t->shape[d]);
        if (w > 0)
            l += (size_t)w;
    }
    if (t->n_dims > 8)
        snprintf(buf + l, sizeof buf - l, " x ...");
    return md_fmt("%s", buf);
}

/* The group of a tensor: its name up to and including the first all-digit
 * dot-separated component that is not the last one ("blk.7", "enc.blk.7",
 * "model.layers.7", "transformer.h.7"); else "enc" / "dec" for a name starting
 * so (GGUF encoder / decoder tensors); else the "base" group. Returns the
 * length of that name prefix, 0 for base. */
static size_t md_group_len(const char *p, size_t n)
{
    size_t start = 0;
    while (start < n) {
        size_t end = start;
        while (end < n && p[end] != '.')
            end++;
        if (end == n)
            break;
        int digits = end > start;
        for (size_t k = start; k < end && digits; k++)
            digits = p[k] >= '0' && p[k] <= '9';
        if (digits)
            return end;
        start = end + 1;
    }
    if (n > 4 && (memcmp(p, "enc.", 4) == 0 || memcmp(p, "dec.", 4) == 0))
        return 3;
    return 0;
}

typedef struct md_group {
    const char *name; /* prefix of a tensor name; len 0 is "base" */
    size_t len;
    uint64_t tensors, elements, bytes;
    size_t first; /* start of its tensors in the grouped order */
} md_group;

static uint64_t md_hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* The groups in order of first appearance, and order[] listing the tensor
 * indices group by group (file order inside a group). */
typedef struct md_groups {
    md_group *g;
    size_t n;
    int64_t *order;
} md_groups;

static void md_groups_free(md_groups *gs)
{
    free(gs->g);
    free(gs->order);
}

static mio_status md_group_tensors(const md_src *m, md_groups *gs)
{
    int64_t nt = md_tensor_count(m);
    size_t n = nt > 0 ? (size_t)nt : 0, cap = 16;
    mio_status st = MIO_ERR_NOMEM;
    while (cap < 2 * n + 2)
        cap *= 2;
    size_t *slot = malloc(cap * sizeof *slot);          /* group index + 1; 0 empty */
    size_t *gid = malloc((n ? n : 1) * sizeof *gid);    /* tensor -> group */
    size_t *fill = NULL;
    memset(gs, 0, sizeof *gs);
    gs->g = malloc((n ? n : 1) * sizeof *gs->g);
    gs->order = malloc((n ? n : 1) * sizeof *gs->order);
    if (!slot || !gid || !gs->g || !gs->order)
        goto out;
    memset(slot, 0, cap * sizeof *slot);
    for (size_t i = 0; i < n; i++) {
        md_tensor t;
        if ((st = md_tensor_at(m, (int64_t)i, &t)) != MIO_OK)
            goto out;
        size_t len = md_group_len(t.name.ptr, t.name.len);
        size_t h = (size_t)md_hash(t.name.ptr, len) & (cap - 1);
        while (slot[h]) {
            const md_group *g = &gs->g[slot[h] - 1];
            if (g->len == len && memcmp(g->name, t.name.ptr, len) == 0)
                break;
            h = (h + 1) & (cap - 1);
        }
        if (!slot[h]) {
            md_group *g = &gs->g[gs->n++];
            memset(g, 0, sizeof *g);
            g->name = t.name.ptr;
            g->len = len;
            slot[h] = gs->n;
        }
        md_group *g = &gs->g[slot[h] - 1];
        gid[i] = slot[h] - 1;
        g->tensors++;
        g->elements += t.elements;
        g->bytes += t.nbytes;
    }
    st = MIO_ERR_NOMEM;
    fill = malloc((gs->n ? gs->n : 1) * sizeof *fill);
    if (!fill)
        goto out;
    for (size_t k = 0, at = 0; k < gs->n; k++) {
        gs->g[k].first = at;
        fill[k] = at;
        at += (size_t)gs->g[k].tensors;
    }
    for (size_t i = 0; i < n; i++)
        gs->order[fill[gid[i]]++] = (int64_t)i;
    st = MIO_OK;
out:
    free(slot);
    free(gid);
    free(fill);
    if (st != MIO_OK) {
        md_groups_free(gs);
        memset(gs, 0, sizeof *gs);
    }
    return st;
}

/* The group's name as shown: a code span, or "base". */
static char *md_group_title(const md_group *g)
{
    return g->len ? md_code(g->name, g->len, SIZE_MAX) : md_fmt("base");
}

/* An HTML anchor id for the group: '.' becomes '_', anything but [A-Za-z0-9_-]
 * becomes '-' ("blk.0" -> "blk_0"), at most 64 characters. */
static void md_anchor(FILE *o, const md_group *g)
{
    if (!g->len) {
        fputs("base", o);
        return;
    }
    for (size_t i = 0; i < g->len && i < 64; i++) {
        char c = g->name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        fputc(c == '.' ? '_' : ok ? c : '-', o);
    }
}

static mio_status md_tensor_sections(FILE *o, const md_src *m, const char *path, uint32_t files)
{
    md_groups gs;
    md_table tab;
    char a[32];
    mio_status st = md_group_tensors(m, &gs);
    if (st != MIO_OK)
        return st;
    uint64_t all_el = 0, all_bytes = 0;
    for (size_t k = 0; k < gs.n; k++) {
        all_el += gs.g[k].elements;
        all_bytes += gs.g[k].bytes;
    }
    int64_t nt = md_tensor_count(m);
    fprintf(o, "## Tensors: %s %s\n\n", md_approx(all_el, a, sizeof a), plural(all_el, "element", "elements"));
    fprintf(o, "There %s %" PRId64 " %s with %" PRIu64 " %s in all, in %zu %s.\n\n", nt == 1 ? "is" : "are", nt,
            plural((uint64_t)nt, "tensor", "tensors"), all_el, plural(all_el, "element", "elements"), gs.n,
            plural(gs.n, "group", "groups"));
    for (size_t k = 0; k < gs.n; k++) {
        char *title = md_group_title(&gs.g[k]);
        if (!title) {
            st = MIO_ERR_NOMEM;
            goto out;
        }
        fprintf(o, "- [%s: %s %s](#", title, md_approx(gs.g[k].elements, a, sizeof a),
                plural(gs.g[k].elements, "element", "elements"));
        md_anchor(o, &gs.g[k]);
        fputs(")\n", o);
        free(title);
    }
    if (gs.n)
        fputc('\n', o);

    /* offsets, in file order */
    static const char *const off_head[] = { "T_ID", "Tensor name", "File", "Data offset (B)", "Data size (B)" };
    static const char *const off_head1[] = { "T_ID", "Tensor name", "Data offset (B)", "Data size (B)" };
    memset(&tab, 0, sizeof tab);
    tab.ncol = files > 1 ? 5 : 4;
    tab.head = files > 1 ? off_head : off_head1;
    tab.align = files > 1 ? "rlrrr" : "rlrr";
    if (nt <= 0) {
        st = MIO_OK;
        goto totals;
    }
    fputs("### Tensor data offsets\n\n", o);
    fprintf(o, "Offsets are relative to the start of the data section of the file holding the tensor%s.\n\n",
            files > 1 ? " (File: 1-based part or shard number)" : "");
    st = MIO_ERR_NOMEM;
    for (int64_t i = 0; i < nt; i++) {
        md_tensor t;
        mio_status s2;
        if ((s2 = md_tensor_at(m, i, &t)) != MIO_OK) {
            st = s2;
            goto out_tab;
        }
        if (!md_add(&tab, md_fmt("%" PRId64, i)) || !md_add(&tab, md_code(t.name.ptr, t.name.len, SIZE_MAX)) ||
            (files > 1 && !md_add(&tab, md_fmt("%" PRIu32, t.file + 1))) ||
            !md_add(&tab, md_fmt("%" PRIu64, t.offset)) || !md_add(&tab, md_fmt("%" PRIu64, t.nbytes)))
            goto out_tab;
    }
    md_print(o, &tab);
    md_free(&tab);
    fputc('\n', o);

    /* one table per group */
    static const char *const grp_head[] = { "T_ID", "Tensor name", "Elements", "Shape", "Type", "BPW" };
    for (size_t k = 0; k < gs.n; k++) {
        const md_group *g = &gs.g[k];
        char *title = md_group_title(g);
        if (!title)
            goto out_tab;
        fputs("### <a name=\"", o);
        md_anchor(o, g);
        fprintf(o, "\"></a>Tensor group %s: %s %s\n\n", title, md_approx(g->elements, a, sizeof a),
                plural(g->elements, "element", "elements"));
        memset(&tab, 0, sizeof tab);
        tab.ncol = 6;
        tab.head = grp_head;
        tab.align = "rllllr";
        for (uint64_t j = 0; j < g->tensors; j++) {
            md_tensor t;
            int64_t i = gs.order[g->first + j];
            mio_status s2;
            if ((s2 = md_tensor_at(m, i, &t)) != MIO_OK) {
                free(title);
                st = s2;
                goto out_tab;
            }
            char bpw[32];
            if (t.elements)
                mio_snprintf_c(bpw, sizeof bpw, "%.4f", bits_per_weight(t.nbytes, t.elements));
            else
                snprintf(bpw, sizeof bpw, "-");
            if (!md_add(&tab, md_fmt("%" PRId64, i)) || !md_add(&tab, md_code(t.name.ptr, t.name.len, SIZE_MAX)) ||
                !md_add(&tab, md_fmt("(%s) %" PRIu64, md_approx(t.elements, a, sizeof a), t.elements)) ||
                !md_add(&tab, md_shape(&t)) || !md_add(&tab, md_fmt("%s", t.dtype)) || !md_add(&tab, md_fmt("%s", bpw))) {
                free(title);
                goto out_tab;
            }
        }
        md_print(o, &tab);
        md_free(&tab);
        fprintf(o, "\n- Total elements in %s: (%s) %" PRIu64 "\n", title, md_approx(g->elements, a, sizeof a),
                g->elements);
        fprintf(o, "- Percentage of total elements: %.2f%%\n",
                all_el ? (double)g->elements * 100.0 / (double)all_el : 0.0);
        if (g->elements)
            fprintf(o, "- Bits per weight (BPW) for %s: %.4f bits\n\n", title, bits_per_weight(g->bytes, g->elements));
        else
            fprintf(o, "- Bits per weight (BPW) for %s: undefined (no elements)\n\n", title);
        free(title);
    }
totals:;
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    char *file = md_code(base, strlen(base), SIZE_MAX);
    if (!file)
        goto out_tab;
    if (all_el)
        fprintf(o, "Total BPW for %s: %.4f bits\n", file, bits_per_weight(all_bytes, all_el));
    else
        fprintf(o, "Total BPW for %s: undefined (no elements)\n", file);
    free(file);
    st = MIO_OK;
out_tab:
    md_free(&tab);
out:
    md_groups_free(&gs);
    return st;
}

static const char *const md_kv_head[] = { "POS", "Type", "Count", "Key", "Value" };

static mio_status md_print_gguf(FILE *o, const char *path, const mio_gguf_file *f)
{
    md_table tab;
    char h[32];
    mio_status st = MIO_ERR_NOMEM;
    uint64_t no = 0, count = 0;
    uint32_t parts = mio_gguf_part_count(f);
    char *file = md_code(path, strlen(path), SIZE_MAX);
    if (!file)
        return MIO_ERR_NOMEM;
    fprintf(o, "# %s - GGUF file dump\n\n", file);
    free(file);
    fprintf(o, "- GGUF version %" PRIu32 ", alignment %" PRIu32 "\n", mio_gguf_version(f), mio_gguf_alignment(f));
    fprintf(o, "- File size: %" PRIu64 " bytes (%s), data section at offset %" PRIu64 "\n", mio_gguf_file_size(f),
            mio_format_size(h, sizeof h, mio_gguf_file_size(f)), mio_gguf_data_offset(f));
    if (split_part(f, &no, &count))
        fprintf(o, "- Split: %" PRIu64 " of %" PRIu64 " (this file only)\n", no, count);
    else if (parts > 1)
        fprintf(o, "- Split: %" PRIu32 " parts, every part is read\n", parts);
    fputs("\n## Key-value metadata\n\n", o);
    int64_t n = mio_gguf_kv_count(f);
    fprintf(o, "There %s %" PRId64 " key-value %s in this file.\n\n", n == 1 ? "is" : "are", n,
            plural((uint64_t)n, "pair", "pairs"));
    memset(&tab, 0, sizeof tab);
    tab.ncol = 5;
    tab.head = md_kv_head;
    tab.align = "rlrll";
    for (int64_t i = 0; i < n; i++) {
        mio_str key = mio_gguf_kv_key(f, i);
        mio_gguf_value v;
        mio_status s2;
        if ((s2 = mio_gguf_kv_value(f, i, &v)) != MIO_OK) {
            st = s2;
            goto out;
        }
        char *val = md_gguf_value(&v, &s2);
        if (s2 != MIO_OK) {
            st = s2;
            goto out;
        }
        if (!md_add(&tab, md_fmt("%" PRId64, i + 1)) ||
            !md_add(&tab, v.type == MIO_GGUF_ARRAY ? md_fmt("[%s]", gtype_name(v.elem_type))
                                                   : md_fmt("%s", gtype_name(v.type))) ||
            !md_add(&tab, md_fmt("%" PRIu64, v.count)) || !md_add(&tab, md_code(key.ptr, key.len, SIZE_MAX))) {
            free(val);
            goto out;
        }
        if (!md_add(&tab, val))
            goto out;
    }
    if (n > 0) {
        md_print(o, &tab);
        fputc('\n', o);
    }
    md_free(&tab);
    md_src m = { f, NULL };
    st = md_tensor_sections(o, &m, path, parts);
out:
    md_free(&tab);
    return st;
}

static mio_status md_print_st(FILE *o, const char *path, const mio_st_file *f, int index)
{
    md_table tab;
    char h[32];
    mio_status st = MIO_ERR_NOMEM;
    char *file = md_code(path, strlen(path), SIZE_MAX);
    if (!file)
        return MIO_ERR_NOMEM;
    fprintf(o, "# %s - safetensors file dump\n\n", file);
    free(file);
    if (index)
        fprintf(o, "- Sharded checkpoint (index file): %" PRIu32 " shards; sizes below are shard 1's\n",
                mio_st_shard_count(f));
    fprintf(o, "- Header size: %" PRIu64 " bytes, data section at offset %" PRIu64 "\n", mio_st_header_size(f),
            8 + mio_st_header_size(f));
    fprintf(o, "- File size: %" PRIu64 " bytes (%s)\n", mio_st_file_size(f),
            mio_format_size(h, sizeof h, mio_st_file_size(f)));
    fputs("\n## Key-value metadata\n\n", o);
    int64_t n = mio_st_meta_count(f);
    fprintf(o, "There %s %" PRId64 " key-value %s in this file (`__metadata__`).\n\n", n == 1 ? "is" : "are", n,
            plural((uint64_t)n, "pair", "pairs"));
    memset(&tab, 0, sizeof tab);
    tab.ncol = 5;
    tab.head = md_kv_head;
    tab.align = "rlrll";
    for (int64_t i = 0; i < n; i++) {
        mio_str key, val;
        mio_status s2;
        if ((s2 = mio_st_meta_at(f, i, &key, &val)) != MIO_OK) {
            st = s2;
            goto out;
        }
        if (!md_add(&tab, md_fmt("%" PRId64, i + 1)) || !md_add(&tab, md_fmt("string")) ||
            !md_add(&tab, md_fmt("1")) || !md_add(&tab, md_code(key.ptr, key.len, SIZE_MAX)) ||
            !md_add(&tab, md_code(val.ptr, val.len, MD_STRING_SHOWN)))
            goto out;
    }
    if (n > 0) {
        md_print(o, &tab);
        fputc('\n', o);
    }
    md_free(&tab);
    md_src m = { NULL, f };
    st = md_tensor_sections(o, &m, path, mio_st_shard_count(f));
out:
    md_free(&tab);
    return st;
}


/* ------------------------------------------------------------------------- */
/* Entry points                                                               */
/* ------------------------------------------------------------------------- */

enum { OUT_TEXT, OUT_JSON, OUT_MD };

static mio_status describe(const char *path, unsigned flags, int kind, char **text, size_t *len) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    if (!text) return mio_err_set(MIO_ERR_INVALID_ARG, "text is NULL");
    if (flags & ~(MIO_DESCRIBE_FULL_ARRAYS | MIO_DESCRIBE_ONE_PART | MIO_DESCRIBE_META | MIO_DESCRIBE_TENSORS))
        return mio_err_set(MIO_ERR_INVALID_ARG, "unknown flags 0x%x", flags);
    int full = (flags & MIO_DESCRIBE_FULL_ARRAYS) != 0;
    mio_format fmt = mio_detect_format(path);
    int st_fmt = fmt == MIO_FORMAT_SAFETENSORS || fmt == MIO_FORMAT_ST_INDEX, index = fmt == MIO_FORMAT_ST_INDEX;
    if (st_fmt && (flags & MIO_DESCRIBE_ONE_PART))
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: one part of a split model applies to GGUF files only; a safetensors "
                                            "shard file can be given directly", path);
    mio_gguf_file *g = NULL;
    mio_st_file *s = NULL;
    mio_status st;
    /* GGUF, and anything unrecognised or unreadable: the GGUF reader names the problem */
    if (st_fmt)
        st = mio_st_open(path, MIO_OPEN_HEADER, &s);
    else
        st = mio_gguf_open(path, MIO_OPEN_HEADER | ((flags & MIO_DESCRIBE_ONE_PART) ? 0 : MIO_OPEN_SPLITS), &g);
    if (st != MIO_OK) return st;
    char *buf = NULL;
    size_t blen = 0;
    FILE *o = open_memstream(&buf, &blen);
    if (!o) {
        mio_gguf_close(g);
        mio_st_close(s);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    if (st_fmt) {
        if (kind == OUT_JSON) {
            st = st_print_json(o, s, index);
        } else if (kind == OUT_MD) {
            st = md_print_st(o, path, s, index);
        } else {
            st = st_print_summary(o, path, s, index);
            if (st == MIO_OK && (flags & MIO_DESCRIBE_META)) st = st_print_meta(o, s);
            if (st == MIO_OK && (flags & MIO_DESCRIBE_TENSORS)) st = st_print_tensors(o, s, index);
        }
    } else {
        if (kind == OUT_JSON) {
            st = print_json(o, g, full);
        } else if (kind == OUT_MD) {
            st = md_print_gguf(o, path, g);
        } else {
            st = print_summary(o, path, g);
            if (st == MIO_OK && (flags & MIO_DESCRIBE_META)) st = print_meta(o, g);
            if (st == MIO_OK && (flags & MIO_DESCRIBE_TENSORS)) st = print_tensors(o, g);
        }
    }
    if (st != MIO_OK) {
        /* the message of the failing call, or out of memory */
        if (st == MIO_ERR_NOMEM) mio_err_set(st, "out of memory");
        fclose(o);
        free(buf);
    } else {
        st = mio_insp_stream_done(o, &buf, &blen, text, len);
    }
    mio_gguf_close(g);
    mio_st_close(s);
    return st;
}

MIO_API mio_status mio_describe_text(const char *path, unsigned flags, char **text, size_t *len) {
    return describe(path, flags, OUT_TEXT, text, len);
}
MIO_API mio_status mio_describe_json(const char *path, unsigned flags, char **text, size_t *len) {
    return describe(path, flags, OUT_JSON, text, len);
}
MIO_API mio_status mio_describe_markdown(const char *path, unsigned flags, char **text, size_t *len) {
    return describe(path, flags, OUT_MD, text, len);
}
