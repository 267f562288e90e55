/* SPDX-License-Identifier: MIT */
/* test_inspect.c — runs the mio-inspect binary on a file written here with the
 * writer (u64 max, i64 min, invalid UTF-8, q8_0/q4_K tensors, alignment 64) and
 * checks its JSON (parsed with mio_json), its human output and its exit codes. */
#include <modelio.h>

#include "core/json.h"
#include <sys/stat.h>
#include <sys/wait.h>

#include "test.h"

#ifndef MIO_INSPECT_PATH
#error "MIO_INSPECT_PATH must be defined by the build"
#endif

#define FIXTURE "inspect_fixture.gguf"

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

/* Run mio-inspect with args, stdout to out.txt and stderr to err.txt; exit status. */
static int run(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s >inspect_out.txt 2>inspect_err.txt", MIO_INSPECT_PATH, args);
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc))
        return -1;
    return WEXITSTATUS(rc);
}

/* Strict UTF-8 check (no overlongs, surrogates or code points past U+10FFFF). */
static int valid_utf8(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len;
        unsigned v, min;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) { len = 2; v = c & 0x1F; min = 0x80; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; v = c & 0x0F; min = 0x800; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; v = c & 0x07; min = 0x10000; }
        else return 0;
        if (i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return 0;
            v = (v << 6) | (p[i + k] & 0x3F);
        }
        if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

static const mio_json *find_kv(const mio_json *root, const char *key)
{
    const mio_json *kv;
    MIO_JSON_FOR_EACH(kv, mio_json_get(root, "metadata")) {
        const mio_json *k = mio_json_get(kv, "key");
        if (mio_json_is_string(k) && strcmp(k->valuestring, key) == 0)
            return kv;
    }
    return NULL;
}

static double num(const mio_json *obj, const char *name)
{
    const mio_json *it = mio_json_get(obj, name);
    return mio_json_is_number(it) ? it->valuedouble : -12345.0;
}

static const char *str(const mio_json *obj, const char *name)
{
    const mio_json *it = mio_json_get(obj, name);
    return mio_json_is_string(it) ? it->valuestring : NULL;
}

static uint64_t write_fixture(uint64_t *header_size)
{
    mio_writer *w = NULL;
    static float a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    static unsigned char b[34], c[288];
    uint32_t big[100];
    int16_t small[3] = { -1, 2, 300 };
    const char *strs[3] = { "x", "y\xC3", "\"q\"\n" };

    memset(b, 0x11, sizeof b);
    memset(c, 0x22, sizeof c);
    for (int k = 0; k < 100; k++)
        big[k] = (uint32_t)k * 7u;

    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_u32(w, "general.alignment", 64));
    T_OK(mio_writer_set_str(w, "general.name", "ab\xFF" "cd", 5));
    T_OK(mio_writer_set_u64(w, "test.u64max", UINT64_MAX));
    T_OK(mio_writer_set_i64(w, "test.i64min", INT64_MIN));
    T_OK(mio_writer_set_f32(w, "test.f32", 0.1f));
    T_OK(mio_writer_set_bool(w, "test.bool", 1));
    T_OK(mio_writer_set_arr(w, "test.small", MIO_GGUF_I16, small, 3));
    T_OK(mio_writer_set_arr(w, "test.big", MIO_GGUF_U32, big, 100));
    T_OK(mio_writer_set_arr_str(w, "test.strs", strs, NULL, 3));
    int64_t ne_a[2] = { 4, 2 }, ne_b[1] = { 32 }, ne_c[2] = { 256, 2 };
    T_OK(mio_writer_add_tensor(w, "a", MIO_TYPE_F32, 2, ne_a, a, sizeof a));
    T_OK(mio_writer_add_tensor(w, "b", MIO_TYPE_Q8_0, 1, ne_b, b, sizeof b));
    T_OK(mio_writer_add_tensor(w, "c", MIO_TYPE_Q4_K, 2, ne_c, c, sizeof c));
    *header_size = mio_writer_header_size(w);
    T_OK(mio_writer_write_file(w, FIXTURE));
    mio_writer_free(w);
    /* tensors at 0 (32 bytes), 64 (34 bytes), 128 (288 bytes); data ends at 416 -> padded 448 */
    return (*header_size + 63) / 64 * 64;
}

static void check_json(uint64_t data_offset)
{
    size_t len = 0;
    T_EQ_INT(run("--json " FIXTURE), 0);
    char *text = slurp("inspect_out.txt", &len);
    T_CHECK(text != NULL);
    if (!text)
        return;
    T_CHECK(valid_utf8((const unsigned char *)text, len));
    /* exact 64-bit integers as number text, not rounded doubles */
    T_CHECK(strstr(text, "18446744073709551615") != NULL);
    T_CHECK(strstr(text, "-9223372036854775808") != NULL);
    T_CHECK(strstr(text, "18446744073709552000") == NULL);

    mio_json *root = mio_json_parse_str(text, NULL);
    T_CHECK(root != NULL);
    if (!root) {
        fprintf(stderr, "JSON did not parse:\n%s\n", text);
        free(text);
        return;
    }
    T_EQ_STR(str(root, "format"), "gguf");
    T_CHECK(num(root, "version") == 3.0);
    T_CHECK(num(root, "alignment") == 64.0);
    T_CHECK(num(root, "data_offset") == (double)data_offset);
    T_CHECK(num(root, "file_size") == (double)(data_offset + 448));
    T_CHECK(num(root, "kv_count") == 9.0);
    T_CHECK(num(root, "tensor_count") == 3.0);

    const mio_json *kv = find_kv(root, "general.name");
    T_EQ_STR(str(kv, "type"), "string");
    T_EQ_STR(str(kv, "value"), "ab\xEF\xBF\xBD" "cd"); /* 0xFF became U+FFFD */

    kv = find_kv(root, "test.u64max");
    T_EQ_STR(str(kv, "type"), "u64");
    T_CHECK(num(kv, "value") == 18446744073709551615.0);
    kv = find_kv(root, "test.i64min");
    T_EQ_STR(str(kv, "type"), "i64");
    T_CHECK(num(kv, "value") == -9223372036854775808.0);
    kv = find_kv(root, "test.f32");
    T_EQ_STR(str(kv, "type"), "f32");
    T_CHECK(num(kv, "value") == 0.1); /* shortest round-trip text "0.1" */
    kv = find_kv(root, "test.bool");
    T_EQ_STR(str(kv, "type"), "bool");
    T_CHECK(mio_json_is_true(mio_json_get(kv, "value")));

    kv = find_kv(root, "test.small");
    T_EQ_STR(str(kv, "type"), "array");
    T_EQ_STR(str(kv, "array_type"), "i16");
    T_CHECK(num(kv, "count") == 3.0);
    const mio_json *vals = mio_json_get(kv, "value");
    T_EQ_INT(mio_json_size(vals), 3);
    T_CHECK(mio_json_at(vals, 0) && mio_json_at(vals, 0)->valuedouble == -1.0);
    T_CHECK(mio_json_at(vals, 2) && mio_json_at(vals, 2)->valuedouble == 300.0);

    kv = find_kv(root, "test.big"); /* > 64 elements: count only, no values */
    T_EQ_STR(str(kv, "array_type"), "u32");
    T_CHECK(num(kv, "count") == 100.0);
    T_CHECK(mio_json_get(kv, "value") == NULL);

    kv = find_kv(root, "test.strs");
    T_EQ_STR(str(kv, "array_type"), "string");
    vals = mio_json_get(kv, "value");
    T_EQ_INT(mio_json_size(vals), 3);
    T_EQ_STR(mio_json_string(mio_json_at(vals, 0)), "x");
    T_EQ_STR(mio_json_string(mio_json_at(vals, 1)), "y\xEF\xBF\xBD"); /* truncated C3 */
    T_EQ_STR(mio_json_string(mio_json_at(vals, 2)), "\"q\"\n");

    const mio_json *ts = mio_json_get(root, "tensors");
    T_EQ_INT(mio_json_size(ts), 3);
    static const struct { const char *name, *type; int nd; double ne0, ne1, offset, nbytes; } want[3] = {
        { "a", "f32", 2, 4, 2, 0, 32 },
        { "b", "q8_0", 1, 32, 0, 64, 34 },
        { "c", "q4_K", 2, 256, 2, 128, 288 },
    };
    for (int k = 0; k < 3; k++) {
        const mio_json *t = mio_json_at(ts, k);
        const mio_json *ne = mio_json_get(t, "ne");
        T_EQ_STR(str(t, "name"), want[k].name);
        T_EQ_STR(str(t, "type"), want[k].type);
        T_EQ_INT(mio_json_size(ne), want[k].nd);
        T_CHECK(mio_json_at(ne, 0) && mio_json_at(ne, 0)->valuedouble == want[k].ne0);
        if (want[k].nd == 2)
            T_CHECK(mio_json_at(ne, 1) && mio_json_at(ne, 1)->valuedouble == want[k].ne1);
        T_CHECK(num(t, "offset") == want[k].offset);
        T_CHECK(num(t, "nbytes") == want[k].nbytes);
        T_CHECK(num(t, "part") == 0.0);
    }
    mio_json_free(root);
    free(text);
}

static void check_human(uint64_t data_offset)
{
    char line[128];
    T_EQ_INT(run(FIXTURE), 0);
    char *text = slurp("inspect_out.txt", NULL);
    T_CHECK(text != NULL);
    if (!text)
        return;
    T_CHECK(strstr(text, "version:       3\n") != NULL);
    T_CHECK(strstr(text, "alignment:     64\n") != NULL);
    T_CHECK(strstr(text, "kv count:      9\n") != NULL);
    T_CHECK(strstr(text, "tensor count:  3\n") != NULL);
    snprintf(line, sizeof line, "data offset:   %llu\n", (unsigned long long)data_offset);
    T_CHECK(strstr(text, line) != NULL);
    /* per-type totals: q4_K is 144 bytes per 256 weights = 4.5 bits/weight */
    T_CHECK(strstr(text, "q4_K") != NULL && strstr(text, "4.5000") != NULL);
    T_CHECK(strstr(text, "8.5000") != NULL); /* q8_0: 34 bytes per 32 */
    T_CHECK(strstr(text, "general.name") == NULL); /* no --meta */
    free(text);

    T_EQ_INT(run("--meta --tensors " FIXTURE), 0);
    text = slurp("inspect_out.txt", NULL);
    T_CHECK(text != NULL);
    if (!text)
        return;
    T_CHECK(valid_utf8((const unsigned char *)text, strlen(text)));
    T_CHECK(strstr(text, "\"ab\xEF\xBF\xBD" "cd\"") != NULL);
    T_CHECK(strstr(text, "18446744073709551615") != NULL);
    T_CHECK(strstr(text, "-9223372036854775808") != NULL);
    T_CHECK(strstr(text, "[array of 100 u32] [0, 7, 14, 21, 28, 35, 42, 49, ... 92 more]") != NULL);
    T_CHECK(strstr(text, "[array of 3 i16] [-1, 2, 300]") != NULL);
    T_CHECK(strstr(text, "[\"x\", \"y\xEF\xBF\xBD\", \"\\\"q\\\"\\n\"]") != NULL);
    T_CHECK(strstr(text, "[2, 256]") != NULL); /* logical shape of c, outermost first */
    free(text);
}

static void check_errors(void)
{
    char *err;

    T_EQ_INT(run("missing_file.gguf"), 1);
    err = slurp("inspect_err.txt", NULL);
    T_CHECK(err && strncmp(err, "mio-inspect: missing_file.gguf: ", 32) == 0);
    T_CHECK(err && strstr(err, "No such file") != NULL);
    free(err);

    FILE *fp = fopen("inspect_badmagic.gguf", "wb");
    T_CHECK(fp != NULL);
    if (fp) {
        fputs("GGML this is not a gguf file at all", fp);
        fclose(fp);
    }
    T_EQ_INT(run("inspect_badmagic.gguf"), 1);
    err = slurp("inspect_err.txt", NULL);
    T_CHECK(err && strncmp(err, "mio-inspect: inspect_badmagic.gguf: ", 36) == 0);
    free(err);
    err = slurp("inspect_out.txt", NULL);
    T_CHECK(err && err[0] == '\0'); /* nothing on stdout */
    free(err);

    T_EQ_INT(run(""), 2);
    err = slurp("inspect_err.txt", NULL);
    T_CHECK(err && strstr(err, "usage: mio-inspect") != NULL);
    free(err);
    T_EQ_INT(run("--frobnicate " FIXTURE), 2);
    T_EQ_INT(run(FIXTURE " " FIXTURE), 2);
    T_EQ_INT(run("--help"), 0);
}

static void write_part(const char *path, uint16_t no, const char *tname, int64_t n)
{
    mio_writer *w = NULL;
    float data[8] = { 0 };
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_u16(w, "split.no", no));
    T_OK(mio_writer_set_u16(w, "split.count", 2));
    T_OK(mio_writer_set_i32(w, "split.tensors.count", 2));
    T_OK(mio_writer_add_tensor(w, tname, MIO_TYPE_F32, 1, &n, data, (size_t)n * 4));
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
}

/* A split model is read whole by default (--splits is accepted and changes
 * nothing); --part shows one file and says which part it is; a later part is
 * refused with the name of the first part. */
static void check_splits(void)
{
    write_part("insp-00001-of-00002.gguf", 0, "first", 4);
    write_part("insp-00002-of-00002.gguf", 1, "second", 8);
    for (int with_flag = 0; with_flag < 2; with_flag++) {
        T_EQ_INT(run(with_flag ? "--json --splits insp-00001-of-00002.gguf" : "--json insp-00001-of-00002.gguf"), 0);
        char *text = slurp("inspect_out.txt", NULL);
        mio_json *root = text ? mio_json_parse_str(text, NULL) : NULL;
        T_CHECK(root != NULL);
        if (root) {
            T_CHECK(num(root, "parts") == 2.0);
            T_CHECK(num(root, "tensor_count") == 2.0);
            const mio_json *t = mio_json_at(mio_json_get(root, "tensors"), 1);
            T_EQ_STR(str(t, "name"), "second");
            T_CHECK(num(t, "part") == 1.0);
            T_CHECK(num(t, "offset") == 0.0);
            T_CHECK(num(t, "nbytes") == 32.0);
            mio_json_free(root);
        }
        free(text);
    }
    T_EQ_INT(run("insp-00001-of-00002.gguf"), 0);
    char *text = slurp("inspect_out.txt", NULL);
    T_CHECK(text && strstr(text, "parts:         2 (split model; every part is read)\n") != NULL);
    T_CHECK(text && strstr(text, "tensor count:  2\n") != NULL);
    free(text);
    /* --part: only the file given, and the summary says what it is */
    T_EQ_INT(run("--json --part insp-00001-of-00002.gguf"), 0);
    text = slurp("inspect_out.txt", NULL);
    mio_json *root = text ? mio_json_parse_str(text, NULL) : NULL;
    T_CHECK(root && num(root, "parts") == 1.0 && num(root, "tensor_count") == 1.0);
    mio_json_free(root);
    free(text);
    T_EQ_INT(run("--part insp-00002-of-00002.gguf"), 0);
    text = slurp("inspect_out.txt", NULL);
    T_CHECK(text && strstr(text, "parts:         this file only: part 2 of a model split into 2 files\n") != NULL);
    free(text);
    /* a later part: exit 1, the message names the file to open */
    T_EQ_INT(run("insp-00002-of-00002.gguf"), 1);
    text = slurp("inspect_err.txt", NULL);
    T_CHECK(text && strstr(text, "this is part 2 of 2 of a split model; open the first part, "
                                 "insp-00001-of-00002.gguf, to load the whole model") != NULL);
    free(text);
}

int main(void)
{
    uint64_t header_size = 0;
    uint64_t data_offset = write_fixture(&header_size);
    struct stat sb;
    T_CHECK(stat(FIXTURE, &sb) == 0 && (uint64_t)sb.st_size == data_offset + 448);
    check_json(data_offset);
    check_human(data_offset);
    check_errors();
    check_splits();
    T_DONE();
}
