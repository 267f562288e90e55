/* SPDX-License-Identifier: MIT */
/* test_inspect_view.c — mio-inspect's views added by issue 9: --markdown (rows,
 * groups, bits per weight, escaping of hostile strings), --json-array against
 * the "truncated" marker, the "kv" object, the shared JSON vocabulary of GGUF and
 * safetensors (and the deprecated names still there), and the "split: i of n"
 * summary line. The files are written here with libmodelio's writers; JSON is
 * parsed with mio_json. */
#include <modelio.h>

#include "core/json.h"
#include <ctype.h>
#include <sys/wait.h>

#include "test.h"

#ifndef MIO_INSPECT_PATH
#error "MIO_INSPECT_PATH must be defined by the build"
#endif

#define GG "view_fixture.gguf"
#define ST "view_fixture.safetensors"

/* Run mio-inspect with args, stdout to view_out.txt, stderr to view_err.txt. */
static int run(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s >view_out.txt 2>view_err.txt", MIO_INSPECT_PATH, args);
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc))
        return -1;
    return WEXITSTATUS(rc);
}

static char *out_text(void)
{
    size_t len;
    return (char *)t_read_file("view_out.txt", &len);
}

static mio_json *run_json(const char *args)
{
    if (run(args) != 0)
        return NULL;
    char *text = out_text();
    mio_json *root = text ? mio_json_parse_str(text, NULL) : NULL;
    if (text && !root)
        fprintf(stderr, "JSON did not parse:\n%s\n", text);
    free(text);
    return root;
}

static const mio_json *item(const mio_json *o, const char *name)
{
    return mio_json_get(o, name);
}

static double num(const mio_json *o, const char *name)
{
    const mio_json *it = item(o, name);
    return mio_json_is_number(it) ? it->valuedouble : -12345.0;
}

static const char *str(const mio_json *o, const char *name)
{
    const mio_json *it = item(o, name);
    return mio_json_is_string(it) ? it->valuestring : NULL;
}

static const mio_json *find_named(const mio_json *arr, const char *field, const char *want)
{
    const mio_json *e;
    MIO_JSON_FOR_EACH(e, arr) {
        const char *s = str(e, field);
        if (s && strcmp(s, want) == 0)
            return e;
    }
    return NULL;
}

/* "[a, b]" of a JSON number array. */
static const char *nums(const mio_json *arr, char *buf, size_t cap)
{
    size_t l = 0;
    const mio_json *e;
    l += (size_t)snprintf(buf + l, cap - l, "[");
    MIO_JSON_FOR_EACH(e, arr) {
        l += (size_t)snprintf(buf + l, cap - l, "%s%.0f", l > 1 ? ", " : "", e->valuedouble);
        if (l >= cap)
            return "(too long)";
    }
    snprintf(buf + l, cap - l, "]");
    return buf;
}

/* The first line of text that contains needle once every run of spaces in it
 * is collapsed to one (so a table row can be compared whatever the column
 * padding), collapsed. Static buffer; "" when there is no such line. */
static const char *line_with(const char *text, const char *needle)
{
    static char buf[1024];
    const char *b = text;
    while (b && *b) {
        const char *e = strchr(b, '\n');
        if (!e)
            e = b + strlen(b);
        size_t o = 0;
        for (const char *p = b; p < e && o + 1 < sizeof buf; p++) {
            if (*p == ' ' && o > 0 && buf[o - 1] == ' ')
                continue;
            buf[o++] = *p;
        }
        buf[o] = '\0';
        if (strstr(buf, needle))
            return buf;
        b = *e ? e + 1 : e;
    }
    buf[0] = '\0';
    return buf;
}

/* Unescaped '|' in a Markdown table row (GFM: "\|" does not end a cell). */
static int cell_bars(const char *row)
{
    int n = 0;
    for (const char *p = row; *p; p++)
        if (*p == '|' && (p == row || p[-1] != '\\'))
            n++;
    return n;
}

/* The GGUF fixture: known metadata (a 100-element u32 array, a string with a
 * pipe, backticks, an ESC and a newline), tensors in two blocks and a base
 * group, one hostile tensor name. Data bytes are arbitrary (only sizes matter). */
static void write_gguf(void)
{
    mio_writer *w = NULL;
    static unsigned char data[1024];
    uint32_t big[100];
    int16_t small[3] = { -1, 2, 300 };
    const char *hostile = "a|b`c\x1b[31m\n";

    for (int k = 0; k < 100; k++)
        big[k] = (uint32_t)k * 7u;
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_set_str(w, "test.hostile", hostile, strlen(hostile)));
    T_OK(mio_writer_set_arr(w, "test.big", MIO_GGUF_U32, big, 100));
    T_OK(mio_writer_set_arr(w, "test.small", MIO_GGUF_I16, small, 3));
    T_OK(mio_writer_set_u32(w, "test.answer", 42));
    /* blk.0: q4_K 2 x 256 (288 bytes, 4.5 bpw) + f32 256 (1024 bytes, 32 bpw)
     *        -> (288 + 1024) * 8 / (512 + 256) = 13.6667 bpw
     * blk.1: q8_0 32 (34 bytes, 8.5 bpw)
     * base:  token_embd.weight f16 8 x 4 (64 bytes), "we|ird`name" f32 [1] (4 bytes)
     *        -> 68 * 8 / 33 = 16.4848 bpw
     * total: 1414 bytes, 833 elements -> 11312 / 833 = 13.5798 bpw */
    int64_t ne_e[2] = { 4, 8 }, ne_q[2] = { 256, 2 }, ne_n[1] = { 256 }, ne_8[1] = { 32 }, ne_1[1] = { 1 };
    T_OK(mio_writer_add_tensor(w, "token_embd.weight", MIO_TYPE_F16, 2, ne_e, data, 64));
    T_OK(mio_writer_add_tensor(w, "blk.0.attn_q.weight", MIO_TYPE_Q4_K, 2, ne_q, data, 288));
    T_OK(mio_writer_add_tensor(w, "blk.0.ffn_norm.weight", MIO_TYPE_F32, 1, ne_n, data, 1024));
    T_OK(mio_writer_add_tensor(w, "blk.1.attn_q.weight", MIO_TYPE_Q8_0, 1, ne_8, data, 34));
    T_OK(mio_writer_add_tensor(w, "we|ird`name", MIO_TYPE_F32, 1, ne_1, data, 4));
    T_OK(mio_writer_write_file(w, GG));
    mio_writer_free(w);
}

/* The same 2 x 4 f32 tensor in a GGUF and a safetensors file, with one metadata
 * string each: "model.layers.0.mlp.weight" (group model.layers.0) and a bias
 * "model.norm.bias" of 3 bf16 (group base). */
static void write_pair(void)
{
    static const float w8[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    static const uint16_t b3[3] = { 0x3f80, 0x4000, 0x4040 };
    mio_writer *w = NULL;
    int64_t ne[2] = { 4, 2 };
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_str(w, "format", "pt", 2));
    T_OK(mio_writer_add_tensor(w, "model.layers.0.mlp.weight", MIO_TYPE_F32, 2, ne, w8, sizeof w8));
    T_OK(mio_writer_write_file(w, "view_pair.gguf"));
    mio_writer_free(w);

    uint64_t shape[2] = { 2, 4 }, shape_b[1] = { 3 };
    mio_st_entry e[2] = {
        { "model.layers.0.mlp.weight", mio_st_dtype_from_name("F32"), 2, shape, w8, sizeof w8 },
        { "model.norm.bias", mio_st_dtype_from_name("BF16"), 1, shape_b, b3, sizeof b3 },
    };
    mio_st_meta m = { "format", "pt" };
    T_OK(mio_st_save_file(ST, e, 2, &m, 1));
}

static void check_markdown_gguf(void)
{
    T_EQ_INT(run("--markdown " GG), 0);
    char *text = out_text();
    T_CHECK(text != NULL);
    if (!text)
        return;
    /* the KV table: header, a known key's row (padding aside) */
    T_EQ_STR(line_with(text, "| POS"), "| POS | Type | Count | Key | Value |");
    T_EQ_STR(line_with(text, "`general.architecture`"), "| 1 | string | 1 | `general.architecture` | `llama` |");
    T_EQ_STR(line_with(text, "`test.answer`"), "| 5 | u32 | 1 | `test.answer` | 42 |");
    T_EQ_STR(line_with(text, "`test.big`"), "| 3 | [u32] | 100 | `test.big` | [ 0, 7, 14, 21, 28, 35, 42, ... ] |");
    T_EQ_STR(line_with(text, "`test.small`"), "| 4 | [i16] | 3 | `test.small` | [ -1, 2, 300 ] |");
    /* hostile string: '|' escaped, the backtick inside a double fence, ESC and
     * newline as text; the row keeps its 6 bars (5 cells) and no raw ESC is printed */
    const char *row = line_with(text, "`test.hostile`");
    T_EQ_STR(row, "| 2 | string | 1 | `test.hostile` | ``a\\|b`c\\x1B[31m\\n`` |");
    T_EQ_INT(cell_bars(row), 6);
    T_CHECK(strchr(text, 0x1b) == NULL);
    row = line_with(text, "| ``we\\|ird`name`` | (");
    T_EQ_INT(cell_bars(row), 7); /* the group table: T_ID, name, elements, shape, type, BPW */
    T_EQ_STR(row, "| 4 | ``we\\|ird`name`` | (1) 1 | 1 | f32 | 32.0000 |");

    /* tensors: groups in order of first appearance, their rows and totals */
    T_CHECK(strstr(text, "There are 5 tensors with 833 elements in all, in 3 groups.\n") != NULL);
    T_CHECK(strstr(text, "- [base: 33 elements](#base)\n- [`blk.0`: 768 elements](#blk_0)\n"
                         "- [`blk.1`: 32 elements](#blk_1)\n") != NULL);
    T_CHECK(strstr(text, "### <a name=\"blk_0\"></a>Tensor group `blk.0`: 768 elements\n") != NULL);
    T_EQ_STR(line_with(text, "| `blk.0.attn_q.weight` | ("),
             "| 1 | `blk.0.attn_q.weight` | (512) 512 | 2 x 256 | q4_K | 4.5000 |");
    T_EQ_STR(line_with(text, "| `blk.1.attn_q.weight` | ("),
             "| 3 | `blk.1.attn_q.weight` | (32) 32 | 32 | q8_0 | 8.5000 |");
    /* the offset table: q4_K tensor after the 64-byte f16 one (alignment 32) */
    T_EQ_STR(line_with(text, "| `blk.0.attn_q.weight` | 6"), "| 1 | `blk.0.attn_q.weight` | 64 | 288 |");
    T_CHECK(strstr(text, "- Bits per weight (BPW) for `blk.0`: 13.6667 bits\n") != NULL);
    T_CHECK(strstr(text, "- Bits per weight (BPW) for `blk.1`: 8.5000 bits\n") != NULL);
    T_CHECK(strstr(text, "- Bits per weight (BPW) for base: 16.4848 bits\n") != NULL);
    T_CHECK(strstr(text, "- Total elements in `blk.0`: (768) 768\n- Percentage of total elements: 92.20%\n") != NULL);
    T_CHECK(strstr(text, "Total BPW for `" GG "`: 13.5798 bits\n") != NULL);
    free(text);
}

static void check_markdown_st(void)
{
    T_EQ_INT(run("--markdown " ST), 0);
    char *text = out_text();
    T_CHECK(text != NULL);
    if (!text)
        return;
    T_CHECK(strstr(text, "# `" ST "` - safetensors file dump\n") != NULL);
    T_EQ_STR(line_with(text, "`format`"), "| 1 | string | 1 | `format` | `pt` |");
    /* "model.layers.0." names group by their block number; others are base */
    T_CHECK(strstr(text, "- [`model.layers.0`: 8 elements](#model_layers_0)\n- [base: 3 elements](#base)\n") != NULL);
    T_EQ_STR(line_with(text, "| `model.layers.0.mlp.weight` | ("),
             "| 0 | `model.layers.0.mlp.weight` | (8) 8 | 2 x 4 | F32 | 32.0000 |");
    T_CHECK(strstr(text, "- Bits per weight (BPW) for `model.layers.0`: 32.0000 bits\n") != NULL);
    T_CHECK(strstr(text, "- Bits per weight (BPW) for base: 16.0000 bits\n") != NULL);
    /* (32 + 6) * 8 / 11 */
    T_CHECK(strstr(text, "Total BPW for `" ST "`: 27.6364 bits\n") != NULL);
    free(text);

    /* --json and --markdown together: a usage error, nothing on stdout */
    T_EQ_INT(run("--json --markdown " ST), 2);
    text = out_text();
    T_CHECK(text && text[0] == '\0');
    free(text);
}

static void check_json_arrays(void)
{
    /* without --json-array: count, "truncated": true, no value — in the list and in kv */
    mio_json *root = run_json("--json " GG);
    T_CHECK(root != NULL);
    const mio_json *md = item(root, "metadata");
    const mio_json *big = find_named(md, "key", "test.big");
    T_CHECK(num(big, "count") == 100.0);
    T_CHECK(mio_json_is_true(item(big, "truncated")));
    T_CHECK(item(big, "value") == NULL);
    const mio_json *small = find_named(md, "key", "test.small");
    T_CHECK(item(small, "truncated") == NULL && mio_json_size(item(small, "value")) == 3);
    const mio_json *kv = item(root, "kv");
    T_CHECK(mio_json_is_object(kv));
    T_EQ_STR(str(kv, "general.architecture"), "llama");
    T_CHECK(num(kv, "test.answer") == 42.0);
    T_EQ_STR(str(kv, "test.hostile"), "a|b`c\x1b[31m\n"); /* JSON-escaped, read back exactly */
    const mio_json *kbig = item(kv, "test.big");
    T_CHECK(mio_json_is_object(kbig) && mio_json_is_true(item(kbig, "truncated")) && num(kbig, "count") == 100.0);
    const mio_json *ksmall = item(kv, "test.small");
    T_CHECK(mio_json_is_array(ksmall) && mio_json_size(ksmall) == 3);
    T_CHECK(mio_json_at(ksmall, 2) && mio_json_at(ksmall, 2)->valuedouble == 300.0);
    /* the kv object follows file order and has every key once */
    T_EQ_INT(mio_json_size(kv), 5);
    T_EQ_STR(kv->child ? kv->child->string : NULL, "general.architecture");
    mio_json_free(root);

    /* --json-array (implies --json): all 100 values, no marker */
    root = run_json("--json-array " GG);
    T_CHECK(root != NULL);
    big = find_named(item(root, "metadata"), "key", "test.big");
    T_CHECK(item(big, "truncated") == NULL);
    T_EQ_INT(mio_json_size(item(big, "value")), 100);
    T_CHECK(mio_json_at(item(big, "value"), 99) &&
            mio_json_at(item(big, "value"), 99)->valuedouble == 693.0);
    kbig = item(item(root, "kv"), "test.big");
    T_CHECK(mio_json_is_array(kbig) && mio_json_size(kbig) == 100);
    T_CHECK(mio_json_at(kbig, 50) && mio_json_at(kbig, 50)->valuedouble == 350.0);
    mio_json_free(root);
    root = run_json("--json --json-array " GG);
    T_CHECK(root && mio_json_size(item(find_named(item(root, "metadata"), "key", "test.big"), "value")) == 100);
    mio_json_free(root);
}

/* The names of an object's members, sorted, comma-joined. */
static const char *member_names(const mio_json *o, char *buf, size_t cap)
{
    const char *names[64];
    int n = 0;
    const mio_json *e;
    MIO_JSON_FOR_EACH(e, o) {
        if (n < 64)
            names[n++] = e->string;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    size_t l = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && l < cap; i++)
        l += (size_t)snprintf(buf + l, cap - l, "%s%s", i ? "," : "", names[i]);
    return buf;
}

static int ieq(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* One vocabulary: the same tensor has the same fields (and values) in both
 * formats; the deprecated names are still there, with their old meanings. */
static void check_vocabulary(void)
{
    char b1[256], b2[256];
    mio_json *g = run_json("--json view_pair.gguf");
    mio_json *s = run_json("--json " ST);
    T_CHECK(g && s);
    if (!g || !s) {
        mio_json_free(g);
        mio_json_free(s);
        return;
    }
    const mio_json *tg = find_named(item(g, "tensors"), "name", "model.layers.0.mlp.weight");
    const mio_json *ts = find_named(item(s, "tensors"), "name", "model.layers.0.mlp.weight");
    static const char *const shared[] = { "name", "dtype", "shape", "elements", "offset", "nbytes", "file" };
    for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++) {
        T_CHECK(item(tg, shared[k]) != NULL);
        T_CHECK(item(ts, shared[k]) != NULL);
    }
    T_CHECK(ieq(str(tg, "dtype"), "f32") && ieq(str(ts, "dtype"), "F32"));
    T_EQ_STR(nums(item(tg, "shape"), b1, sizeof b1), "[2, 4]"); /* outermost first in both */
    T_EQ_STR(nums(item(ts, "shape"), b2, sizeof b2), "[2, 4]");
    T_CHECK(num(tg, "elements") == 8.0 && num(ts, "elements") == 8.0);
    T_CHECK(num(tg, "nbytes") == 32.0 && num(ts, "nbytes") == 32.0);
    T_CHECK(num(tg, "offset") == 0.0 && num(ts, "offset") == 0.0);
    T_CHECK(num(tg, "file") == 0.0 && num(ts, "file") == 0.0);
    /* the complete member lists: shared names plus each format's own / deprecated ones */
    T_EQ_STR(member_names(tg, b1, sizeof b1), "dtype,elements,file,name,nbytes,ne,offset,part,shape,type");
    T_EQ_STR(member_names(ts, b2, sizeof b2), "data_offsets,dtype,elements,file,name,nbytes,offset,shape");

    /* root: files, kv_count, tensor_count, metadata, kv, dtypes in both */
    static const char *const root_shared[] = { "format", "header_size", "data_offset", "file_size", "files",
                                               "kv_count", "tensor_count", "metadata", "kv", "tensors", "dtypes" };
    for (size_t k = 0; k < sizeof root_shared / sizeof root_shared[0]; k++) {
        T_CHECK(item(g, root_shared[k]) != NULL);
        T_CHECK(item(s, root_shared[k]) != NULL);
    }
    T_CHECK(num(g, "files") == 1.0 && num(s, "files") == 1.0);
    T_CHECK(num(g, "kv_count") == 1.0 && num(s, "kv_count") == 1.0);
    T_EQ_STR(str(item(g, "kv"), "format"), "pt");
    T_EQ_STR(str(item(s, "kv"), "format"), "pt");
    const mio_json *ms = mio_json_at(item(s, "metadata"), 0);
    T_EQ_STR(str(ms, "type"), "string");
    T_EQ_STR(str(ms, "value"), "pt");
    const mio_json *dg = find_named(item(g, "dtypes"), "dtype", "f32");
    const mio_json *ds = find_named(item(s, "dtypes"), "dtype", "BF16");
    T_CHECK(num(dg, "tensors") == 1.0 && num(dg, "elements") == 8.0 && num(dg, "bytes") == 32.0);
    T_CHECK(num(dg, "bits_per_weight") == 32.0);
    T_CHECK(num(ds, "tensors") == 1.0 && num(ds, "elements") == 3.0 && num(ds, "bytes") == 6.0);
    T_CHECK(num(ds, "bits_per_weight") == 16.0);
    T_EQ_STR(member_names(dg, b1, sizeof b1), "bits_per_weight,bytes,dtype,elements,tensors");
    T_EQ_STR(member_names(ds, b2, sizeof b2), "bits_per_weight,bytes,dtype,elements,tensors");
    /* safetensors tensors in data order: the bias is second, at offset 32 */
    const mio_json *bias = find_named(item(s, "tensors"), "name", "model.norm.bias");
    T_CHECK(num(bias, "offset") == 32.0);
    T_EQ_STR(nums(item(bias, "data_offsets"), b1, sizeof b1), "[32, 38]");

    /* deprecated names, unchanged: GGUF type/ne (innermost first)/part, parts,
     * types; safetensors shards */
    T_EQ_STR(str(tg, "type"), "f32");
    T_EQ_STR(nums(item(tg, "ne"), b1, sizeof b1), "[4, 2]");
    T_CHECK(num(tg, "part") == 0.0);
    T_CHECK(num(g, "parts") == 1.0);
    const mio_json *old = find_named(item(g, "types"), "type", "f32");
    T_CHECK(num(old, "tensors") == 1.0 && num(old, "elements") == 8.0 && num(old, "bytes") == 32.0);
    T_EQ_STR(member_names(old, b1, sizeof b1), "bytes,elements,tensors,type");
    T_CHECK(num(s, "shards") == 1.0);
    mio_json_free(g);
    mio_json_free(s);

    /* bits_per_weight of a quantized type: q4_K is 144 bytes per 256 weights */
    g = run_json("--json " GG);
    const mio_json *q = find_named(item(g, "dtypes"), "dtype", "q4_K");
    T_CHECK(num(q, "bits_per_weight") == 4.5);
    T_CHECK(num(q, "elements") == 512.0 && num(q, "bytes") == 288.0);
    const mio_json *t = find_named(item(g, "tensors"), "name", "blk.0.attn_q.weight");
    T_EQ_STR(nums(item(t, "shape"), b1, sizeof b1), "[2, 256]");
    T_EQ_STR(nums(item(t, "ne"), b2, sizeof b2), "[256, 2]");
    mio_json_free(g);
}

static void write_part(const char *path, uint16_t no, const char *tname)
{
    mio_writer *w = NULL;
    float data[4] = { 0 };
    int64_t n = 4;
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_u16(w, "split.no", no));
    T_OK(mio_writer_set_u16(w, "split.count", 3));
    T_OK(mio_writer_set_i32(w, "split.tensors.count", 3));
    T_OK(mio_writer_add_tensor(w, tname, MIO_TYPE_F32, 1, &n, data, sizeof data));
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
}

/* "split: 2 of 3" for one part on its own, "split: 3 parts" for the model;
 * the Markdown header says the same; the older "parts:" lines stay. */
static void check_split(void)
{
    write_part("vsplit-00001-of-00003.gguf", 0, "blk.0.a.weight");
    write_part("vsplit-00002-of-00003.gguf", 1, "blk.1.a.weight");
    write_part("vsplit-00003-of-00003.gguf", 2, "blk.2.a.weight");
    T_EQ_INT(run("--part vsplit-00002-of-00003.gguf"), 0);
    char *text = out_text();
    T_CHECK(text && strstr(text, "\nsplit:         2 of 3\n") != NULL);
    T_CHECK(text && strstr(text, "\nparts:         this file only: part 2 of a model split into 3 files\n") != NULL);
    free(text);
    T_EQ_INT(run("vsplit-00001-of-00003.gguf"), 0);
    text = out_text();
    T_CHECK(text && strstr(text, "\nsplit:         3 parts\n") != NULL);
    T_CHECK(text && strstr(text, "\nparts:         3 (split model; every part is read)\n") != NULL);
    free(text);
    T_EQ_INT(run("--markdown --part vsplit-00003-of-00003.gguf"), 0);
    text = out_text();
    T_CHECK(text && strstr(text, "\n- Split: 3 of 3 (this file only)\n") != NULL);
    free(text);
    T_EQ_INT(run("--markdown vsplit-00001-of-00003.gguf"), 0);
    text = out_text();
    T_CHECK(text && strstr(text, "\n- Split: 3 parts, every part is read\n") != NULL);
    /* the offset table gains a File column (1-based part) */
    T_EQ_STR(line_with(text, "| `blk.2.a.weight` | 3"), "| 2 | `blk.2.a.weight` | 3 | 0 | 16 |");
    T_CHECK(strstr(text, "There are 3 tensors with 12 elements in all, in 3 groups.\n") != NULL);
    free(text);
    /* JSON: files is the part count; every tensor says which file holds it */
    mio_json *root = run_json("--json vsplit-00001-of-00003.gguf");
    T_CHECK(root && num(root, "files") == 3.0 && num(root, "parts") == 3.0);
    const mio_json *t = find_named(item(root, "tensors"), "name", "blk.2.a.weight");
    T_CHECK(num(t, "file") == 2.0 && num(t, "part") == 2.0);
    mio_json_free(root);
}

static void put_str(FILE *fp, const char *p, uint64_t n)
{
    fwrite(&n, 8, 1, fp); /* little-endian hosts only (the library's rule) */
    fwrite(p, 1, (size_t)n, fp);
}

/* A GGUF written byte by byte: a key holding a control byte, invalid UTF-8, a
 * pipe, a backtick and ESC, with a string value holding NUL and ESC. The kv
 * object names it with U+FFFD and JSON escapes; the Markdown row keeps its
 * cells; no raw control byte reaches stdout. */
static void check_hostile_key(void)
{
    static const char key[] = "bad\x01\xff|`key\x1b", val[] = "v\0al|ue\x1b[2J";
    FILE *fp = fopen("view_hostile.gguf", "wb");
    T_CHECK(fp != NULL);
    if (!fp)
        return;
    uint32_t version = 3, type_str = 8;
    uint64_t n_tensors = 0, n_kv = 1;
    fwrite("GGUF", 1, 4, fp);
    fwrite(&version, 4, 1, fp);
    fwrite(&n_tensors, 8, 1, fp);
    fwrite(&n_kv, 8, 1, fp);
    put_str(fp, key, sizeof key - 1);
    fwrite(&type_str, 4, 1, fp);
    put_str(fp, val, sizeof val - 1);
    long len = ftell(fp);
    for (; len % 32; len++)
        fputc(0, fp);
    fclose(fp);

    mio_json *root = run_json("--json view_hostile.gguf");
    T_CHECK(root != NULL);
    const mio_json *kv = item(root, "kv");
    T_EQ_INT(mio_json_size(kv), 1);
    T_EQ_STR(kv && kv->child ? kv->child->string : NULL, "bad\x01\xEF\xBF\xBD|`key\x1b");
    mio_json_free(root);
    T_EQ_INT(run("--json view_hostile.gguf"), 0);
    char *text = out_text();
    T_CHECK(text && strstr(text, "\"bad\\u0001\xEF\xBF\xBD|`key\\u001b\":\t\"v\\u0000al|ue\\u001b[2J\"") != NULL);
    free(text);

    T_EQ_INT(run("--markdown view_hostile.gguf"), 0);
    text = out_text();
    const char *row = line_with(text, "| 1 | string |");
    T_EQ_STR(row, "| 1 | string | 1 | ``bad\\x01\xEF\xBF\xBD\\|`key\\x1B`` | `v\\x00al\\|ue\\x1B[2J` |");
    T_EQ_INT(cell_bars(row), 6);
    for (const char *p = text; p && *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n') {
            T_CHECK(!"raw control byte in the Markdown output");
            break;
        }
    free(text);
}

int main(void)
{
    write_gguf();
    write_pair();
    check_markdown_gguf();
    check_markdown_st();
    check_json_arrays();
    check_vocabulary();
    check_split();
    check_hostile_key();
    T_DONE();
}
