/* mio_inspect.c — mio-inspect: print what a GGUF or safetensors file (or a
 * sharded safetensors index) holds — summary, metadata, tensor table — for
 * humans or as one JSON object. The format is detected by content. Uses only
 * the public API; every string from the file is escaped so the output is always
 * valid UTF-8. */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect_ops.h"

#define PROG "mio-inspect"
/* Human --meta: array elements shown, string bytes shown. */
#define META_ARRAY_SHOWN 8
#define META_STRING_SHOWN 200
/* JSON: arrays up to this many elements carry their values. */
#define JSON_ARRAY_MAX 64

static void usage(FILE *o)
{
    fprintf(o,
            "usage: " PROG " FILE [--meta] [--tensors] [--json] [--part]\n"
            "  Summarize a GGUF file (version, alignment, counts, offsets, per-type totals),\n"
            "  a safetensors file or a sharded safetensors index (model.safetensors.index.json:\n"
            "  header size, counts, per-dtype totals). The format is detected by content.\n"
            "  --meta     list every metadata key with its type and value\n"
            "  --tensors  list every tensor: name, shape, type, offsets, bytes\n"
            "  --json     print one JSON object with everything instead\n"
            "  A GGUF split model (name-00001-of-0000N.gguf) is shown whole: all its parts are read;\n"
            "  given a later part, the first part is named instead.\n"
            "  --part     GGUF only: show this one file of a split model on its own\n"
            "  --splits   accepted for compatibility (following the parts is the default)\n"
            "exit status: 0 ok, 1 unreadable or invalid file, 2 usage error\n"
            "\n"
            "       " PROG " --hash xxh64|xxh3|sha256 FILE > MANIFEST   per-tensor + whole-model hashes\n"
            "       " PROG " --check MANIFEST FILE   verify FILE against a --hash manifest\n"
            "       " PROG " --stats [--json] FILE   per tensor min/max/mean/std, NaN/inf, zeros\n"
            "       " PROG " --diff A B              metadata and tensor differences (0 same, 1 differ, 2 error)\n"
            "       " PROG " --verify FILE           read every tensor byte, report damage\n"
            "  These work on GGUF (split: all parts), safetensors and *.index.json alike.\n");
}

/* ------------------------------------------------------------------------- */
/* Scalar values as text                                                      */
/* ------------------------------------------------------------------------- */

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
            cli_fmt_f32(buf, cap, (float)d);
        else
            cli_fmt_f64(buf, cap, d);
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
        size_t used = cli_print_escaped(o, p, v->size, META_STRING_SHOWN, 1);
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

    fputs("file:          ", o);
    cli_print_escaped(o, path, strlen(path), SIZE_MAX, 0);
    fputc('\n', o);
    fprintf(o, "format:        GGUF\n");
    fprintf(o, "version:       %" PRIu32 "\n", mio_gguf_version(f));
    fprintf(o, "alignment:     %" PRIu32 "\n", mio_gguf_alignment(f));
    fprintf(o, "kv count:      %" PRId64 "\n", mio_gguf_kv_count(f));
    fprintf(o, "tensor count:  %" PRId64 "\n", nt);
    fprintf(o, "header size:   %" PRIu64 " bytes\n", mio_gguf_header_size(f));
    fprintf(o, "data offset:   %" PRIu64 "\n", mio_gguf_data_offset(f));
    fprintf(o, "file size:     %" PRIu64 " bytes (%s)\n", mio_gguf_file_size(f),
            cli_human_size(h, sizeof h, mio_gguf_file_size(f)));
    uint32_t parts = mio_gguf_part_count(f);
    uint64_t split_no = 0, split_count = 0;
    int64_t kno = mio_gguf_find_key(f, "split.no"), kcount = mio_gguf_find_key(f, "split.count");
    if (parts == 1 && kcount >= 0 && mio_gguf_kv_u64(f, kcount, &split_count) == MIO_OK && split_count > 1) {
        if (kno < 0 || mio_gguf_kv_u64(f, kno, &split_no) != MIO_OK)
            split_no = 0;
        fprintf(o, "parts:         this file only: part %" PRIu64 " of a model split into %" PRIu64 " files\n",
                split_no + 1, split_count);
    }
    if (parts > 1) {
        fprintf(o, "parts:         %" PRIu32 " (split model; every part is read)\n", parts);
        for (uint32_t p = 0; p < parts; p++)
            fprintf(o, "  part %" PRIu32 " data offset: %" PRIu64 "\n", p + 1,
                    mio_gguf_part_data_offset(f, p));
    }
    fprintf(o, "tensor data:   %" PRIu64 " bytes (%s), %" PRIu64 " elements\n", all_bytes,
            cli_human_size(tb, sizeof tb, all_bytes), all_elems);
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
        cli_print_escaped(o, key.ptr, key.len, SIZE_MAX, 0);
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
        cli_print_escaped(o, t.name.ptr, t.name.len, SIZE_MAX, 0);
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
static cJSON *json_bytes(const char *p, size_t n)
{
    char *q = cli_json_quote(p, n);
    if (!q)
        return NULL;
    cJSON *item = cJSON_CreateRaw(q);
    free(q);
    return item;
}

static cJSON *json_u64(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return cJSON_CreateRaw(buf);
}

static cJSON *json_i64(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return cJSON_CreateRaw(buf);
}

/* Add item under name; frees nothing on failure (the caller frees the parent). */
static int add(cJSON *obj, const char *name, cJSON *item)
{
    if (!item)
        return 0;
    return cJSON_AddItemToObject(obj, name, item) ? 1 : (cJSON_Delete(item), 0);
}

static int push(cJSON *arr, cJSON *item)
{
    if (!item)
        return 0;
    return cJSON_AddItemToArray(arr, item) ? 1 : (cJSON_Delete(item), 0);
}

static mio_status json_fill_array(cJSON *obj, const mio_gguf_value *v);

/* The JSON form of one value: numbers as exact raw text, strings escaped, and
 * nested arrays as {type:"array", array_type, count[, value]}. *st is set on
 * a library error; NULL with *st == MIO_OK means out of memory. */
static cJSON *json_value(const mio_gguf_value *v, mio_status *st)
{
    char buf[64];
    *st = MIO_OK;
    if (v->type == MIO_GGUF_STRING)
        return json_bytes(v->data, v->size);
    if (v->type == MIO_GGUF_BOOL) {
        int64_t b;
        if ((*st = mio_gguf_value_i64(v, &b)) != MIO_OK)
            return NULL;
        return cJSON_CreateBool(b != 0);
    }
    if (v->type == MIO_GGUF_ARRAY) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return NULL;
        if ((*st = json_fill_array(o, v)) != MIO_OK) {
            cJSON_Delete(o);
            return NULL;
        }
        return o;
    }
    if ((*st = scalar_text(v, buf, sizeof buf)) != MIO_OK)
        return NULL;
    return cJSON_CreateRaw(buf);
}

/* type:"array", array_type, count, and value when count <= JSON_ARRAY_MAX. */
static mio_status json_fill_array(cJSON *obj, const mio_gguf_value *v)
{
    mio_status st;
    if (!add(obj, "type", cJSON_CreateString("array")) ||
        !add(obj, "array_type", cJSON_CreateString(gtype_name(v->elem_type))) ||
        !add(obj, "count", json_u64(v->count)))
        return MIO_ERR_NOMEM;
    if (v->count > JSON_ARRAY_MAX)
        return MIO_OK;
    cJSON *arr = cJSON_CreateArray();
    if (!add(obj, "value", arr))
        return MIO_ERR_NOMEM;
    for (uint64_t j = 0; j < v->count; j++) {
        mio_gguf_value e;
        if ((st = mio_gguf_value_elem(v, j, &e)) != MIO_OK)
            return st;
        cJSON *item = json_value(&e, &st);
        if (st != MIO_OK)
            return st;
        if (!push(arr, item))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

static mio_status json_metadata(cJSON *root, const mio_gguf_file *f)
{
    cJSON *meta = cJSON_CreateArray();
    int64_t n = mio_gguf_kv_count(f);
    mio_status st;

    if (!add(root, "metadata", meta))
        return MIO_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        mio_str key = mio_gguf_kv_key(f, i);
        mio_gguf_value v;
        if ((st = mio_gguf_kv_value(f, i, &v)) != MIO_OK)
            return st;
        cJSON *kv = cJSON_CreateObject();
        if (!push(meta, kv) || !add(kv, "key", json_bytes(key.ptr, key.len)))
            return MIO_ERR_NOMEM;
        if (v.type == MIO_GGUF_ARRAY) {
            if ((st = json_fill_array(kv, &v)) != MIO_OK)
                return st;
            continue;
        }
        if (!add(kv, "type", cJSON_CreateString(gtype_name(v.type))))
            return MIO_ERR_NOMEM;
        cJSON *val = json_value(&v, &st);
        if (st != MIO_OK)
            return st;
        if (!add(kv, "value", val))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

static mio_status json_tensors(cJSON *root, const mio_gguf_file *f)
{
    cJSON *arr = cJSON_CreateArray();
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

        cJSON *o = cJSON_CreateObject();
        cJSON *ne = cJSON_CreateArray();
        if (!push(arr, o) || !add(o, "name", json_bytes(t.name.ptr, t.name.len)) ||
            !add(o, "type", cJSON_CreateString(ttype_name(t.type, nb, sizeof nb))) || !add(o, "ne", ne))
            return MIO_ERR_NOMEM;
        for (uint32_t d = 0; d < t.n_dims && d < 4; d++)
            if (!push(ne, json_i64(t.ne[d])))
                return MIO_ERR_NOMEM;
        if (!add(o, "offset", json_u64(t.offset)) || !add(o, "nbytes", json_u64(t.nbytes)) ||
            !add(o, "part", json_u64(t.part)))
            return MIO_ERR_NOMEM;
    }

    cJSON *types = cJSON_CreateArray();
    if (!add(root, "types", types))
        return MIO_ERR_NOMEM;
    for (int s = 0; s <= MIO_TYPE_GGML_COUNT; s++) {
        char nb[32];
        if (!totals[s].tensors)
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!push(types, o) ||
            !add(o, "type", cJSON_CreateString(s < MIO_TYPE_GGML_COUNT ? ttype_name(s, nb, sizeof nb) : "other")) ||
            !add(o, "tensors", json_u64(totals[s].tensors)) || !add(o, "elements", json_u64(totals[s].elements)) ||
            !add(o, "bytes", json_u64(totals[s].bytes)))
            return MIO_ERR_NOMEM;
    }
    return MIO_OK;
}

static mio_status print_json(FILE *o, const mio_gguf_file *f)
{
    cJSON *root = cJSON_CreateObject();
    mio_status st = MIO_ERR_NOMEM;
    if (!root)
        return MIO_ERR_NOMEM;
    uint32_t parts = mio_gguf_part_count(f);
    cJSON *part_offsets = cJSON_CreateArray();
    if (!add(root, "format", cJSON_CreateString("gguf")) ||
        !add(root, "version", json_u64(mio_gguf_version(f))) ||
        !add(root, "alignment", json_u64(mio_gguf_alignment(f))) ||
        !add(root, "kv_count", json_i64(mio_gguf_kv_count(f))) ||
        !add(root, "tensor_count", json_i64(mio_gguf_tensor_count(f))) ||
        !add(root, "header_size", json_u64(mio_gguf_header_size(f))) ||
        !add(root, "data_offset", json_u64(mio_gguf_data_offset(f))) ||
        !add(root, "file_size", json_u64(mio_gguf_file_size(f))) ||
        !add(root, "parts", json_u64(parts)) || !add(root, "part_data_offsets", part_offsets))
        goto out;
    for (uint32_t p = 0; p < parts; p++)
        if (!push(part_offsets, json_u64(mio_gguf_part_data_offset(f, p))))
            goto out;
    if ((st = json_metadata(root, f)) != MIO_OK || (st = json_tensors(root, f)) != MIO_OK)
        goto out;
    char *text = cJSON_Print(root);
    if (!text) {
        st = MIO_ERR_NOMEM;
        goto out;
    }
    fputs(text, o);
    fputc('\n', o);
    cJSON_free(text);
    st = MIO_OK;
out:
    cJSON_Delete(root);
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
    cli_print_escaped(o, path, strlen(path), SIZE_MAX, 0);
    fputc('\n', o);
    fprintf(o, "format:        safetensors%s\n", index ? " (sharded, index file)" : "");
    uint32_t shards = mio_st_shard_count(f);
    if (index)
        fprintf(o, "shards:        %" PRIu32 "\n", shards);
    fprintf(o, "header size:   %" PRIu64 " bytes%s\n", mio_st_header_size(f), index ? " (shard 1)" : "");
    fprintf(o, "data offset:   %" PRIu64 "%s\n", 8 + mio_st_header_size(f), index ? " (shard 1)" : "");
    fprintf(o, "file size:     %" PRIu64 " bytes (%s)%s\n", mio_st_file_size(f),
            cli_human_size(h, sizeof h, mio_st_file_size(f)), index ? " (shard 1)" : "");
    fprintf(o, "metadata keys: %" PRId64 "\n", mio_st_meta_count(f));
    fprintf(o, "tensor count:  %" PRId64 "\n", mio_st_tensor_count(f));
    fprintf(o, "tensor data:   %" PRIu64 " bytes (%s), %" PRIu64 " elements\n", all.bytes,
            cli_human_size(tb, sizeof tb, all.bytes), all.elements);
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
        cli_print_escaped(o, key.ptr, key.len, SIZE_MAX, 0);
        for (size_t pad = key.len; pad < 40; pad++)
            fputc(' ', o);
        fputs(" \"", o);
        size_t used = cli_print_escaped(o, val.ptr, val.len, META_STRING_SHOWN, 1);
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
        cli_print_escaped(o, t.name.ptr, t.name.len, SIZE_MAX, 0);
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
    cJSON *root = cJSON_CreateObject();
    mio_status st = MIO_ERR_NOMEM;
    type_total totals[MIO_ST_DTYPE_COUNT], all;
    if (!root)
        return MIO_ERR_NOMEM;
    if ((st = st_totals(f, totals, &all)) != MIO_OK)
        goto out;
    st = MIO_ERR_NOMEM;
    if (!add(root, "format", cJSON_CreateString("safetensors")) || !add(root, "index", cJSON_CreateBool(index)) ||
        !add(root, "header_size", json_u64(mio_st_header_size(f))) ||
        !add(root, "data_offset", json_u64(8 + mio_st_header_size(f))) ||
        !add(root, "file_size", json_u64(mio_st_file_size(f))) ||
        !add(root, "shards", json_u64(mio_st_shard_count(f))) ||
        !add(root, "tensor_count", json_i64(mio_st_tensor_count(f))))
        goto out;

    cJSON *meta = cJSON_CreateArray();
    if (!add(root, "metadata", meta))
        goto out;
    int64_t nm = mio_st_meta_count(f);
    for (int64_t i = 0; i < nm; i++) {
        mio_str key, val;
        if ((st = mio_st_meta_at(f, i, &key, &val)) != MIO_OK)
            goto out;
        st = MIO_ERR_NOMEM;
        cJSON *kv = cJSON_CreateObject();
        if (!push(meta, kv) || !add(kv, "key", json_bytes(key.ptr, key.len)) ||
            !add(kv, "value", json_bytes(val.ptr, val.len)))
            goto out;
    }

    cJSON *arr = cJSON_CreateArray();
    if (!add(root, "tensors", arr))
        goto out;
    int64_t nt = mio_st_tensor_count(f);
    for (int64_t i = 0; i < nt; i++) {
        mio_st_tensor t;
        if ((st = mio_st_tensor_info(f, i, &t)) != MIO_OK)
            goto out;
        st = MIO_ERR_NOMEM;
        cJSON *to = cJSON_CreateObject();
        cJSON *shape = cJSON_CreateArray();
        cJSON *offs = cJSON_CreateArray();
        if (!push(arr, to)) {
            cJSON_Delete(shape);
            cJSON_Delete(offs);
            goto out;
        }
        if (!add(to, "name", json_bytes(t.name.ptr, t.name.len)) ||
            !add(to, "dtype", cJSON_CreateString(st_dtype_text(t.dtype)))) {
            cJSON_Delete(shape);
            cJSON_Delete(offs);
            goto out;
        }
        if (!add(to, "shape", shape)) {
            cJSON_Delete(offs);
            goto out;
        }
        for (uint32_t d = 0; d < t.n_dims; d++)
            if (!push(shape, json_u64(t.shape[d])))
                goto out;
        if (!add(to, "data_offsets", offs) || !push(offs, json_u64(t.data_start)) ||
            !push(offs, json_u64(t.data_end)) || !add(to, "nbytes", json_u64(t.nbytes)))
            goto out;
        if (index && !add(to, "shard", json_u64(t.shard)))
            goto out;
    }

    cJSON *types = cJSON_CreateArray();
    if (!add(root, "dtypes", types))
        goto out;
    for (int d = MIO_ST_DTYPE_COUNT; d-- > 0;) {
        if (!totals[d].tensors)
            continue;
        cJSON *to = cJSON_CreateObject();
        if (!push(types, to) || !add(to, "dtype", cJSON_CreateString(st_dtype_text(d))) ||
            !add(to, "tensors", json_u64(totals[d].tensors)) || !add(to, "elements", json_u64(totals[d].elements)) ||
            !add(to, "bytes", json_u64(totals[d].bytes)))
            goto out;
    }

    char *text = cJSON_Print(root);
    if (!text)
        goto out;
    fputs(text, o);
    fputc('\n', o);
    cJSON_free(text);
    st = MIO_OK;
out:
    cJSON_Delete(root);
    return st;
}

static int inspect_safetensors(const char *path, int index, int meta, int tensors, int json)
{
    mio_st_file *f = NULL;
    mio_status st = mio_st_open(path, MIO_OPEN_MMAP, &f);
    if (st != MIO_OK) {
        cli_report(PROG, path, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    if (json) {
        st = st_print_json(stdout, f, index);
    } else {
        st = st_print_summary(stdout, path, f, index);
        if (st == MIO_OK && meta)
            st = st_print_meta(stdout, f);
        if (st == MIO_OK && tensors)
            st = st_print_tensors(stdout, f, index);
    }
    if (st != MIO_OK) {
        fflush(stdout);
        cli_report(PROG, path, st == MIO_ERR_NOMEM ? "out of memory" : mio_last_error());
        mio_st_close(f);
        return CLI_EXIT_FAIL;
    }
    mio_st_close(f);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (inspect_ops_wanted(argc, argv))
        return inspect_ops_main(argc, argv);
    const char *path = NULL;
    int meta = 0, tensors = 0, json = 0, one_part = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is(a, "--meta")) {
            meta = 1;
        } else if (cli_is(a, "--tensors")) {
            tensors = 1;
        } else if (cli_is(a, "--json")) {
            json = 1;
        } else if (cli_is(a, "--splits")) {
            one_part = 0;
        } else if (cli_is(a, "--part")) {
            one_part = 1;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(a, "--")) {
            if (i + 2 != argc || path) {
                usage(stderr);
                return CLI_EXIT_USAGE;
            }
            path = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, PROG ": unknown option '%s'\n", a);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, PROG ": only one FILE may be given\n");
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, PROG ": no FILE given\n");
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

    cli_format fmt = cli_detect_format(path);
    if (fmt == CLI_FMT_ST || fmt == CLI_FMT_ST_INDEX) {
        if (one_part) {
            fprintf(stderr, PROG ": --part applies to GGUF files only; a safetensors shard file can be given "
                            "directly\n");
            return CLI_EXIT_USAGE;
        }
        return inspect_safetensors(path, fmt == CLI_FMT_ST_INDEX, meta, tensors, json);
    }
    /* GGUF, and anything unrecognised or unreadable: the GGUF reader names the problem */
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open(path, one_part ? MIO_OPEN_MMAP : MIO_OPEN_SPLITS, &f);
    if (st != MIO_OK) {
        cli_report(PROG, path, mio_last_error());
        return CLI_EXIT_FAIL;
    }

    if (json) {
        st = print_json(stdout, f);
    } else {
        st = print_summary(stdout, path, f);
        if (st == MIO_OK && meta)
            st = print_meta(stdout, f);
        if (st == MIO_OK && tensors)
            st = print_tensors(stdout, f);
    }
    if (st != MIO_OK) {
        fflush(stdout);
        cli_report(PROG, path, st == MIO_ERR_NOMEM ? "out of memory" : mio_last_error());
        mio_gguf_close(f);
        return CLI_EXIT_FAIL;
    }
    mio_gguf_close(f);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}
