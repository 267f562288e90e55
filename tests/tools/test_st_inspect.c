/* SPDX-License-Identifier: MIT */
/* test_st_inspect.c — runs mio-inspect on safetensors input: the upstream golden
 * three_dtypes.safetensors (JSON fields and human output), a sharded checkpoint
 * written here with mio_st_save_sharded (index file), broken index files and
 * hostile cases (exit 1, library message, nothing on stdout). */
#include <modelio.h>

#include "core/json.h"
#include <sys/stat.h>
#include <sys/wait.h>

#include "test.h"

#ifndef MIO_INSPECT_PATH
#error "MIO_INSPECT_PATH must be defined by the build"
#endif

#define GOLDEN MIO_TEST_DATA "/safetensors/golden/"
#define CASES MIO_TEST_DATA "/safetensors/cases/"

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

/* Run mio-inspect with args, stdout to st_out.txt and stderr to st_err.txt; exit status. */
static int run(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >st_out.txt 2>st_err.txt", MIO_INSPECT_PATH, args);
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc))
        return -1;
    return WEXITSTATUS(rc);
}

static mio_json *run_json(const char *args)
{
    if (run(args) != 0)
        return NULL;
    char *text = slurp("st_out.txt", NULL);
    mio_json *root = text ? mio_json_parse_str(text, NULL) : NULL;
    free(text);
    return root;
}

static const mio_json *item(const mio_json *obj, const char *name)
{
    return mio_json_get(obj, name);
}

static double num(const mio_json *obj, const char *name)
{
    const mio_json *it = item(obj, name);
    return mio_json_is_number(it) ? it->valuedouble : -12345.0;
}

static const char *str(const mio_json *obj, const char *name)
{
    const mio_json *it = item(obj, name);
    return mio_json_is_string(it) ? it->valuestring : NULL;
}

/* "[a, b, ...]" of a JSON number array, for comparing shapes and offsets. */
static const char *nums(const mio_json *arr, char *buf, size_t cap)
{
    size_t o = 0;
    const mio_json *e;
    if (!mio_json_is_array(arr))
        return "(not an array)";
    o += (size_t)snprintf(buf + o, cap - o, "[");
    MIO_JSON_FOR_EACH(e, arr) {
        o += (size_t)snprintf(buf + o, cap - o, "%s%.0f", o > 1 ? "," : "", mio_json_is_number(e) ? e->valuedouble : -1.0);
        if (o >= cap)
            return buf;
    }
    snprintf(buf + o, cap - o, "]");
    return buf;
}

static void check_tensor(const mio_json *t, const char *name, const char *dtype, const char *shape, const char *offs,
                         double nbytes)
{
    char b[128];
    T_EQ_STR(str(t, "name"), name);
    T_EQ_STR(str(t, "dtype"), dtype);
    T_EQ_STR(nums(item(t, "shape"), b, sizeof b), shape);
    T_EQ_STR(nums(item(t, "data_offsets"), b, sizeof b), offs);
    T_CHECK(num(t, "nbytes") == nbytes);
}

/* three_dtypes.safetensors, written by upstream's serialize_to_file */
static void check_golden_json(void)
{
    mio_json *root = run_json("--json " GOLDEN "three_dtypes.safetensors");
    T_CHECK(root != NULL);
    if (!root)
        return;
    T_EQ_STR(str(root, "format"), "safetensors");
    T_CHECK(num(root, "header_size") == 216.0);
    T_CHECK(num(root, "data_offset") == 224.0);
    T_CHECK(num(root, "file_size") == 254.0); /* 8 + 216 + 30 */
    T_CHECK(num(root, "shards") == 1.0);
    T_CHECK(num(root, "tensor_count") == 3.0);
    T_CHECK(mio_json_is_false(item(root, "index")));

    const mio_json *meta = item(root, "metadata");
    T_EQ_INT(mio_json_size(meta), 1);
    T_EQ_STR(str(mio_json_at(meta, 0), "key"), "format");
    T_EQ_STR(str(mio_json_at(meta, 0), "value"), "pt");

    const mio_json *ts = item(root, "tensors");
    T_EQ_INT(mio_json_size(ts), 3);
    /* data order = upstream's dtype-descending order: I64, F32, BF16 */
    check_tensor(mio_json_at(ts, 0), "c_i64", "I64", "[1]", "[0,8]", 8);
    check_tensor(mio_json_at(ts, 1), "a_f32", "F32", "[2,2]", "[8,24]", 16);
    check_tensor(mio_json_at(ts, 2), "b_bf16", "BF16", "[3]", "[24,30]", 6);
    T_CHECK(item(mio_json_at(ts, 0), "shard") == NULL); /* only for index files */

    const mio_json *dt = item(root, "dtypes");
    T_EQ_INT(mio_json_size(dt), 3);
    T_EQ_STR(str(mio_json_at(dt, 1), "dtype"), "F32");
    T_CHECK(num(mio_json_at(dt, 1), "elements") == 4.0);
    T_CHECK(num(mio_json_at(dt, 1), "bytes") == 16.0);
    mio_json_free(root);

    /* a scalar (shape []) and 64-bit numbers printed as exact integers */
    root = run_json("--json " GOLDEN "scalar.safetensors");
    T_CHECK(root != NULL);
    if (root) {
        const mio_json *t = mio_json_at(item(root, "tensors"), 0);
        char b[64];
        T_EQ_STR(nums(item(t, "shape"), b, sizeof b), "[]");
        T_EQ_STR(nums(item(t, "data_offsets"), b, sizeof b), "[0,4]");
        mio_json_free(root);
    }
    T_EQ_INT(run("--json " GOLDEN "large_20000.safetensors"), 0);
    char *text = slurp("st_out.txt", NULL);
    T_CHECK(text && strstr(text, "\"header_size\":\t1995008,") != NULL);
    T_CHECK(text && strstr(text, "\"tensor_count\":\t20000,") != NULL);
    free(text);
}

static void check_golden_human(void)
{
    T_EQ_INT(run(GOLDEN "three_dtypes.safetensors --meta --tensors"), 0);
    char *text = slurp("st_out.txt", NULL);
    T_CHECK(text != NULL);
    if (!text)
        return;
    T_CHECK(strstr(text, "format:        safetensors\n") != NULL);
    T_CHECK(strstr(text, "header size:   216 bytes\n") != NULL);
    T_CHECK(strstr(text, "tensor count:  3\n") != NULL);
    T_CHECK(strstr(text, "tensor data:   30 bytes (30 B), 8 elements\n") != NULL);
    /* per-dtype totals: dtype, tensors, elements, bytes */
    T_CHECK(strstr(text, "  F32                 1                4                 16\n") != NULL);
    T_CHECK(strstr(text, "  total               3                8                 30\n") != NULL);
    /* --meta */
    T_CHECK(strstr(text, "  format                                   \"pt\"\n") != NULL);
    /* --tensors: name, shape, dtype, offsets, bytes */
    T_CHECK(strstr(text, "  a_f32                                    [2, 2]                   F32          [8, 24]"
                         "                                  16\n") != NULL);
    T_CHECK(strstr(text, "  b_bf16  ") != NULL && strstr(text, "BF16         [24, 30]") != NULL);
    free(text);
    text = slurp("st_err.txt", NULL);
    T_CHECK(text && text[0] == '\0');
    free(text);
}

/* A sharded checkpoint: a (F32 [2,2], 16 B) alone in shard 1, b (I64 [2], 16 B)
 * and c (U8 [4], 4 B) in shard 2, with a 20-byte shard limit. */
static void check_index(void)
{
    static const float a[4] = { 1, 2, 3, 4 };
    static const int64_t b[2] = { -1, 7 };
    static const uint8_t c[4] = { 9, 8, 7, 6 };
    const uint64_t sa[2] = { 2, 2 }, sb[1] = { 2 }, sc[1] = { 4 };
    mio_st_entry e[3] = {
        { "a", MIO_ST_F32, 2, sa, a, sizeof a },
        { "b", MIO_ST_I64, 1, sb, b, sizeof b },
        { "c", MIO_ST_U8, 1, sc, c, sizeof c },
    };
    mio_st_meta m = { "format", "pt" };
    uint32_t n_shards = 0;

    mkdir("st_sharded", 0755);
    T_OK(mio_st_save_sharded("st_sharded", e, 3, &m, 1, 20, &n_shards));
    T_EQ_INT(n_shards, 2);

    mio_json *root = run_json("--json st_sharded/model.safetensors.index.json");
    T_CHECK(root != NULL);
    if (root) {
        T_EQ_STR(str(root, "format"), "safetensors");
        T_CHECK(mio_json_is_true(item(root, "index")));
        T_CHECK(num(root, "shards") == 2.0);
        T_CHECK(num(root, "tensor_count") == 3.0);
        /* shard 1: {"__metadata__":{"format":"pt"},"a":{...[0,16]}} is 88 bytes, already aligned */
        T_CHECK(num(root, "header_size") == 88.0);
        T_CHECK(num(root, "file_size") == 8.0 + 88.0 + 16.0);
        T_EQ_STR(str(mio_json_at(item(root, "metadata"), 0), "value"), "pt");
        const mio_json *ts = item(root, "tensors");
        T_EQ_INT(mio_json_size(ts), 3);
        check_tensor(mio_json_at(ts, 0), "a", "F32", "[2,2]", "[0,16]", 16);
        check_tensor(mio_json_at(ts, 1), "b", "I64", "[2]", "[0,16]", 16);
        check_tensor(mio_json_at(ts, 2), "c", "U8", "[4]", "[16,20]", 4);
        T_CHECK(num(mio_json_at(ts, 0), "shard") == 0.0);
        T_CHECK(num(mio_json_at(ts, 1), "shard") == 1.0);
        T_CHECK(num(mio_json_at(ts, 2), "shard") == 1.0);
        mio_json_free(root);
    }
    /* the second shard on its own: 140 bytes of JSON padded to 144 */
    root = run_json("--json st_sharded/model-00002-of-00002.safetensors");
    T_CHECK(root != NULL);
    if (root) {
        T_CHECK(num(root, "header_size") == 144.0);
        T_CHECK(num(root, "file_size") == 8.0 + 144.0 + 20.0);
        T_CHECK(mio_json_is_false(item(root, "index")));
        mio_json_free(root);
    }

    T_EQ_INT(run("--tensors st_sharded/model.safetensors.index.json"), 0);
    char *text = slurp("st_out.txt", NULL);
    T_CHECK(text && strstr(text, "format:        safetensors (sharded, index file)\n") != NULL);
    T_CHECK(text && strstr(text, "shards:        2\n") != NULL);
    T_CHECK(text && strstr(text, "  U8                  1                4                  4\n") != NULL);
    T_CHECK(text && strstr(text, "U8           [16, 20]                                  4  2\n") != NULL); /* c, shard 2 */
    free(text);

    /* a hand-written index that maps a to the wrong shard */
    FILE *fp = fopen("st_sharded/wrong.index.json", "wb");
    T_CHECK(fp != NULL);
    if (fp) {
        fputs("{\"metadata\":{\"total_size\":36},\"weight_map\":{\"a\":\"model-00002-of-00002.safetensors\","
              "\"b\":\"model-00002-of-00002.safetensors\",\"c\":\"model-00002-of-00002.safetensors\"}}",
              fp);
        fclose(fp);
    }
    T_EQ_INT(run("st_sharded/wrong.index.json"), 1);
    text = slurp("st_err.txt", NULL);
    T_CHECK(text && strncmp(text, "mio-inspect: st_sharded/wrong.index.json: ", 42) == 0);
    T_CHECK(text && strstr(text, "tensor 'b'") == NULL);
    T_CHECK(text && strstr(text, "does not contain") != NULL); /* a is not in shard 2 */
    free(text);
    text = slurp("st_out.txt", NULL);
    T_CHECK(text && text[0] == '\0');
    free(text);

    /* total_size that disagrees with the tensors */
    fp = fopen("st_sharded/size.index.json", "wb");
    T_CHECK(fp != NULL);
    if (fp) {
        fputs("{\"metadata\":{\"total_size\":37},\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\","
              "\"b\":\"model-00002-of-00002.safetensors\",\"c\":\"model-00002-of-00002.safetensors\"}}",
              fp);
        fclose(fp);
    }
    T_EQ_INT(run("--json st_sharded/size.index.json"), 1);
    text = slurp("st_err.txt", NULL);
    T_CHECK(text && strstr(text, "total_size is 37 but the mapped tensors hold 36 bytes") != NULL);
    free(text);

    /* --part is GGUF-only: usage error */
    T_EQ_INT(run("--part st_sharded/model.safetensors.index.json"), 2);
}

/* hostile files: exit 1, "mio-inspect: PATH: <library message>", nothing on stdout */
static void check_errors(void)
{
    static const struct {
        const char *file, *msg;
    } cases[] = {
        { "too_small_7bytes.safetensors", "file has 7 bytes" },
        { "too_large_1e8p1.safetensors", "header length 100000001 exceeds the limit" },
        { "hdrlen_past_eof.safetensors", "runs past the end of the file" },
        { "utf8_bad_ff.safetensors", "not valid UTF-8" },
        { "json_bad_dtype.safetensors", "F33" },
        { "json_not_object.safetensors", "invalid JSON header" },
        { "offset_same_range.safetensors", "tensor 'b' has data_offsets [0, 4]" },
        { "misaligned_f4_odd.safetensors", "not a whole number of bytes" },
        { "incomplete_trailing_byte.safetensors", "the file holds 5" },
        { "dup_tensor_name_same_range.safetensors", "listed twice" },
        { "dup_key_inside_metadata.safetensors", "__metadata__ has the key 'x' twice" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char args[512], prefix[512];
        snprintf(args, sizeof args, "--json " CASES "%s", cases[k].file);
        T_EQ_INT(run(args), 1);
        char *err = slurp("st_err.txt", NULL);
        snprintf(prefix, sizeof prefix, "mio-inspect: " CASES "%s: ", cases[k].file);
        T_CHECK(err && strncmp(err, prefix, strlen(prefix)) == 0);
        if (!err || !strstr(err, cases[k].msg)) {
            t_fail++;
            fprintf(stderr, "%s: message lacks \"%s\": %s\n", cases[k].file, cases[k].msg, err ? err : "(none)");
        } else {
            t_pass++;
        }
        free(err);
        char *out = slurp("st_out.txt", NULL);
        T_CHECK(out && out[0] == '\0');
        free(out);
    }
    /* the accepted edge cases open fine */
    T_EQ_INT(run(CASES "ok_leading_whitespace.safetensors"), 0);
    T_EQ_INT(run(CASES "ok_meta_null.safetensors"), 0);
    T_EQ_INT(run("--json " CASES "ok_escaped_name.safetensors"), 0);
    char *out = slurp("st_out.txt", NULL);
    T_CHECK(out && strstr(out, "\"name\":\t\"a\\n\"") != NULL); /* decoded, then re-escaped for JSON */
    free(out);
    /* a missing .safetensors file: the library's I/O message */
    T_EQ_INT(run("no_such_file.safetensors"), 1);
    char *err = slurp("st_err.txt", NULL);
    T_CHECK(err && strstr(err, "No such file") != NULL);
    free(err);
}

int main(void)
{
    check_golden_json();
    check_golden_human();
    check_index();
    check_errors();
    T_DONE();
}
