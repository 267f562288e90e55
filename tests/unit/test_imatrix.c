/* SPDX-License-Identifier: MIT */
/* test_imatrix.c — the internal imatrix reader (src/quantize/imatrix.c): hand-made
 * legacy .dat files and GGUF imatrices written with libmodelio's writer, values
 * checked by hand against llama-quantize's normalisation (sums / ncall, sums /
 * per-expert count, ones for experts without data), the metadata it adds, the
 * include/exclude filter, the per-tensor lookup and every malformed case with
 * its message. Links the module statically (its symbols are not exported). */
#include "test.h"

#include <modelio.h>

#include "quantize/imatrix.h"

#include <math.h>
#include <unistd.h>

static char g_dir[256];
static int g_nfile;

static const char *tmp_path(const char *tag) {
    static char buf[8][512];
    char *p = buf[g_nfile % 8];
    snprintf(p, 512, "%s/%02d-%s", g_dir, g_nfile, tag);
    g_nfile++;
    return p;
}

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n)) { perror(path); exit(2); }
    fclose(f);
}

/* A little-endian byte builder for legacy files. */
typedef struct bb { uint8_t b[4096]; size_t n; } bb;
static void put_i32(bb *o, int32_t v) { memcpy(o->b + o->n, &v, 4); o->n += 4; }
static void put_f32(bb *o, float v) { memcpy(o->b + o->n, &v, 4); o->n += 4; }
static void put_raw(bb *o, const void *p, size_t n) { memcpy(o->b + o->n, p, n); o->n += n; }
static void put_entry(bb *o, const char *name, size_t name_len, int32_t ncall, int32_t nval, const float *v) {
    put_i32(o, (int32_t)name_len);
    put_raw(o, name, name_len);
    put_i32(o, ncall);
    put_i32(o, nval);
    for (int32_t i = 0; i < nval; i++) put_f32(o, v[i]);
}

static const char *save(const char *tag, const bb *o) {
    const char *p = tmp_path(tag);
    write_bytes(p, o->b, o->n);
    return p;
}

/* Load and expect failure with status st and a message containing sub. */
static void expect_fail(const char *path, mio_status st, const char *sub) {
    qz_imatrix *im = (qz_imatrix *)0x1;
    T_STATUS(mio_qz_imatrix_load(path, &im), st);
    T_CHECK(im == NULL);
    T_MSG_HAS(sub);
}

static bool feq(float a, float b) { return memcmp(&a, &b, 4) == 0; }
#define T_FEQ(a, b) do { float _a = (a), _b = (b); if (feq(_a, _b)) t_pass++; else { t_fail++; \
    fprintf(stderr, "%s:%d: %s == %s failed: %.9g != %.9g\n", __FILE__, __LINE__, #a, #b, (double)_a, (double)_b); } } while (0)

static const float *vals(const qz_imatrix *im, const char *name, uint64_t *n) {
    int64_t i = mio_qz_imatrix_find(im, name, strlen(name));
    if (i < 0) { *n = 0; return NULL; }
    return mio_qz_imatrix_values(im, (uint64_t)i, n);
}

/* ------------------------------------------------------------------------- */
static void test_legacy_basic(void) {
    /* two entries, out of name order; ncall 2 halves the sums, ncall 0 keeps them */
    bb o = {.n = 0};
    const float up[4] = {2, 4, 6, 8}, a[2] = {5, 7};
    put_i32(&o, 2);
    put_entry(&o, "blk.0.ffn_up.weight", 19, 2, 4, up);
    put_entry(&o, "a", 1, 0, 2, a);
    put_i32(&o, 10);              /* chunk count */
    put_i32(&o, 8);
    put_raw(&o, "wiki.txt", 8);   /* dataset */
    const char *path = save("basic.dat", &o);

    qz_imatrix *im = NULL;
    T_OK(mio_qz_imatrix_load(path, &im));
    T_EQ_INT(mio_qz_imatrix_format(im), QZ_IMATRIX_LEGACY);
    T_EQ_U64(mio_qz_imatrix_count(im), 2);
    T_EQ_MSTR(mio_qz_imatrix_name(im, 0), "a");   /* sorted by name */
    T_EQ_MSTR(mio_qz_imatrix_name(im, 1), "blk.0.ffn_up.weight");
    uint64_t n;
    const float *v = vals(im, "blk.0.ffn_up.weight", &n);
    T_EQ_U64(n, 4);
    if (v) { T_FEQ(v[0], 1); T_FEQ(v[1], 2); T_FEQ(v[2], 3); T_FEQ(v[3], 4); }
    v = vals(im, "a", &n);
    T_EQ_U64(n, 2);
    if (v) { T_FEQ(v[0], 5); T_FEQ(v[1], 7); }
    T_EQ_INT(mio_qz_imatrix_chunk_count(im), 10);
    T_EQ_U64(mio_qz_imatrix_chunk_size(im), 0);
    T_EQ_U64(mio_qz_imatrix_dataset_count(im), 1);
    T_EQ_STR(mio_qz_imatrix_dataset(im, 0), "wiki.txt");
    T_CHECK(mio_qz_imatrix_dataset(im, 1) == NULL);
    T_EQ_INT(mio_qz_imatrix_find(im, "b", 1), -1);

    /* the four keys, in llama-quantize's order */
    qz_imatrix_kv kv[QZ_IMATRIX_MAX_KV];
    size_t nkv = mio_qz_imatrix_kvs(im, "data/imatrix.dat", kv);
    T_EQ_U64(nkv, 4);
    T_EQ_STR(kv[0].key, "quantize.imatrix.file");
    T_EQ_INT(kv[0].type, MIO_GGUF_STRING);
    T_EQ_STR(kv[0].str, "data/imatrix.dat");
    T_EQ_STR(kv[1].key, "quantize.imatrix.dataset");
    T_EQ_STR(kv[1].str, "wiki.txt");
    T_EQ_STR(kv[2].key, "quantize.imatrix.entries_count");
    T_EQ_INT(kv[2].type, MIO_GGUF_U32);
    T_EQ_U64(kv[2].u32, 2);
    T_EQ_STR(kv[3].key, "quantize.imatrix.chunks_count");
    T_EQ_U64(kv[3].u32, 10);

    /* per-tensor lookup: found, absent, size mismatch, tolerated for token_embd */
    const float *x = NULL;
    T_OK(mio_qz_imatrix_for_tensor(im, "blk.0.ffn_up.weight", 4, 1, &x));
    T_CHECK(x != NULL && feq(x[0], 1) && feq(x[3], 4));
    T_OK(mio_qz_imatrix_for_tensor(im, "blk.1.ffn_up.weight", 4, 1, &x));
    T_CHECK(x == NULL);
    T_STATUS(mio_qz_imatrix_for_tensor(im, "blk.0.ffn_up.weight", 2, 1, &x), MIO_ERR_SIZE_MISMATCH);
    T_CHECK(x == NULL);
    T_MSG_HAS("imatrix size 4 is different from tensor size 2 for blk.0.ffn_up.weight");
    T_STATUS(mio_qz_imatrix_for_tensor(im, "blk.0.ffn_up.weight", 2, 2, &x), MIO_OK); /* 2 experts x 2 columns */
    T_CHECK(x != NULL);
    T_OK(mio_qz_imatrix_for_tensor(NULL, "blk.0.ffn_up.weight", 4, 1, &x));
    T_CHECK(x == NULL);
    mio_qz_imatrix_free(im);

    /* token embeddings: a size mismatch is ignored (no imatrix for that tensor) */
    o.n = 0;
    put_i32(&o, 1);
    put_entry(&o, "token_embd.weight", 17, 1, 2, a);
    path = save("tokembd.dat", &o);
    T_OK(mio_qz_imatrix_load(path, &im));
    x = (const float *)0x1;
    T_OK(mio_qz_imatrix_for_tensor(im, "token_embd.weight", 4, 1, &x));
    T_CHECK(x == NULL);
    T_OK(mio_qz_imatrix_for_tensor(im, "token_embd.weight", 2, 1, &x));
    T_CHECK(x != NULL);
    /* no trailer: no chunk count, no dataset: two keys */
    T_EQ_INT(mio_qz_imatrix_chunk_count(im), 0);
    T_EQ_U64(mio_qz_imatrix_dataset_count(im), 0);
    T_EQ_U64(mio_qz_imatrix_kvs(im, "i.dat", kv), 2);
    T_EQ_STR(kv[1].key, "quantize.imatrix.entries_count");
    T_EQ_U64(kv[1].u32, 1);
    mio_qz_imatrix_free(im);
}

static void test_legacy_edges(void) {
    qz_imatrix *im = NULL;
    uint64_t n;
    const float *v;
    bb o = {.n = 0};
    const float s3[3] = {3, 6, 9}, s1[1] = {42};

    /* negative ncall: values as stored; ncall 3 divides by three */
    put_i32(&o, 2);
    put_entry(&o, "neg", 3, -5, 1, s1);
    put_entry(&o, "three", 5, 3, 3, s3);
    T_OK(mio_qz_imatrix_load(save("ncall.dat", &o), &im));
    v = vals(im, "neg", &n);
    T_CHECK(v && n == 1 && feq(v[0], 42));
    v = vals(im, "three", &n);
    T_CHECK(v && n == 3 && feq(v[0], 1) && feq(v[1], 2) && feq(v[2], 3));
    mio_qz_imatrix_free(im);

    /* duplicate names: the later entry wins (sizes may differ) */
    o.n = 0;
    put_i32(&o, 3);
    put_entry(&o, "dup", 3, 1, 3, s3);
    put_entry(&o, "other", 5, 1, 1, s1);
    put_entry(&o, "dup", 3, 2, 1, s1);
    T_OK(mio_qz_imatrix_load(save("dup.dat", &o), &im));
    T_EQ_U64(mio_qz_imatrix_count(im), 2);
    v = vals(im, "dup", &n);
    T_CHECK(v && n == 1 && feq(v[0], 21));
    mio_qz_imatrix_free(im);

    /* a NUL inside a name cuts it (llama.cpp builds a std::string from a C string) */
    o.n = 0;
    put_i32(&o, 1);
    put_entry(&o, "ab\0cd", 5, 1, 1, s1);
    T_OK(mio_qz_imatrix_load(save("nul.dat", &o), &im));
    T_EQ_MSTR(mio_qz_imatrix_name(im, 0), "ab");
    T_CHECK(mio_qz_imatrix_find(im, "ab", 2) == 0);
    mio_qz_imatrix_free(im);

    /* an empty name is an entry like any other */
    o.n = 0;
    put_i32(&o, 1);
    put_entry(&o, "", 0, 1, 1, s1);
    T_OK(mio_qz_imatrix_load(save("empty-name.dat", &o), &im));
    T_EQ_U64(mio_qz_imatrix_count(im), 1);
    T_CHECK(mio_qz_imatrix_find(im, "", 0) == 0);
    mio_qz_imatrix_free(im);

    /* trailer of 2 bytes: the chunk count keeps them (0x0105), no dataset */
    o.n = 0;
    put_i32(&o, 1);
    put_entry(&o, "x", 1, 1, 1, s1);
    put_raw(&o, "\x05\x01", 2);
    T_OK(mio_qz_imatrix_load(save("trailer2.dat", &o), &im));
    T_EQ_INT(mio_qz_imatrix_chunk_count(im), 0x0105);
    T_EQ_U64(mio_qz_imatrix_dataset_count(im), 0);
    mio_qz_imatrix_free(im);

    /* dataset length past the end, zero, negative: chunk count kept, no dataset */
    const int32_t bad_len[3] = {100, 0, -4};
    for (int k = 0; k < 3; k++) {
        o.n = 0;
        put_i32(&o, 1);
        put_entry(&o, "x", 1, 1, 1, s1);
        put_i32(&o, 7);
        put_i32(&o, bad_len[k]);
        put_raw(&o, "abc", 3);
        T_OK(mio_qz_imatrix_load(save("dslen.dat", &o), &im));
        T_EQ_INT(mio_qz_imatrix_chunk_count(im), 7);
        T_EQ_U64(mio_qz_imatrix_dataset_count(im), 0);
        mio_qz_imatrix_free(im);
    }
    /* dataset with a NUL: cut there; bytes after it ignored */
    o.n = 0;
    put_i32(&o, 1);
    put_entry(&o, "x", 1, 1, 1, s1);
    put_i32(&o, -3);   /* a negative chunk count: kept, but no chunks_count key */
    put_i32(&o, 5);
    put_raw(&o, "ds\0zzJUNK", 9);
    T_OK(mio_qz_imatrix_load(save("dsnul.dat", &o), &im));
    T_EQ_INT(mio_qz_imatrix_chunk_count(im), -3);
    T_EQ_STR(mio_qz_imatrix_dataset(im, 0), "ds");
    qz_imatrix_kv kv[QZ_IMATRIX_MAX_KV];
    T_EQ_U64(mio_qz_imatrix_kvs(im, "p", kv), 3);
    T_EQ_STR(kv[2].key, "quantize.imatrix.entries_count");
    mio_qz_imatrix_free(im);

    /* a path longer than 127 bytes is cut at 127 in quantize.imatrix.file; so is a dataset */
    char longp[300], longd[200];
    memset(longp, 'p', sizeof longp - 1);
    longp[sizeof longp - 1] = 0;
    memset(longd, 'd', sizeof longd);
    o.n = 0;
    put_i32(&o, 1);
    put_entry(&o, "x", 1, 1, 1, s1);
    put_i32(&o, 1);
    put_i32(&o, (int32_t)sizeof longd);
    put_raw(&o, longd, sizeof longd);
    T_OK(mio_qz_imatrix_load(save("long.dat", &o), &im));
    T_EQ_U64(mio_qz_imatrix_kvs(im, longp, kv), 4);
    T_EQ_U64(strlen(kv[0].str), 127);
    T_EQ_U64(strlen(kv[1].str), 127);
    T_CHECK(kv[1].str[0] == 'd' && kv[0].str[126] == 'p');
    mio_qz_imatrix_free(im);
}

static void test_legacy_malformed(void) {
    bb o = {.n = 0};
    const float s1[1] = {1};
    expect_fail(save("empty.dat", &o), MIO_ERR_TRUNCATED, "no data: the file has 0 bytes");
    put_raw(&o, "\x01\x00", 2);
    expect_fail(save("short.dat", &o), MIO_ERR_TRUNCATED, "the file has 2 bytes, fewer than the 4 of the entry count");
    o.n = 0;
    put_i32(&o, 0);
    expect_fail(save("zero.dat", &o), MIO_ERR_INVALID_METADATA, "no data: the entry count is 0 (must be at least 1)");
    o.n = 0;
    put_i32(&o, -7);
    expect_fail(save("negcount.dat", &o), MIO_ERR_INVALID_METADATA, "the entry count is -7");

    /* a huge entry count with one entry present: the second is missing */
    o.n = 0;
    put_i32(&o, 0x7fffffff);
    put_entry(&o, "x", 1, 1, 1, s1);
    expect_fail(save("hugecount.dat", &o), MIO_ERR_TRUNCATED,
                "entry 2 of 2147483647: the name length needs 4 bytes at offset 21, 0 remain");

    o.n = 0;
    put_i32(&o, 1);
    put_i32(&o, -1);
    expect_fail(save("negname.dat", &o), MIO_ERR_INVALID_METADATA, "entry 1 of 1: name length -1 is negative");

    o.n = 0;
    put_i32(&o, 1);
    put_i32(&o, 0x7fffffff);
    put_raw(&o, "abc", 3);
    expect_fail(save("longname.dat", &o), MIO_ERR_TRUNCATED,
                "entry 1 of 1: the name of 2147483647 bytes at offset 8 runs past the end of the file (3 bytes remain)");

    o.n = 0;
    put_i32(&o, 1);
    put_i32(&o, 3);
    put_raw(&o, "abc", 3);
    put_i32(&o, 1);
    expect_fail(save("nonval.dat", &o), MIO_ERR_TRUNCATED,
                "entry 1 of 1 ('abc'): the call and value counts need 8 bytes at offset 11, 4 remain");

    const int32_t bad_nval[2] = {0, -3};
    for (int k = 0; k < 2; k++) {
        o.n = 0;
        put_i32(&o, 1);
        put_i32(&o, 3);
        put_raw(&o, "abc", 3);
        put_i32(&o, 1);
        put_i32(&o, bad_nval[k]);
        expect_fail(save("badnval.dat", &o), MIO_ERR_INVALID_METADATA, k ? "('abc'): -3 values (must be at least 1)"
                                                                         : "('abc'): 0 values (must be at least 1)");
    }

    o.n = 0;
    put_i32(&o, 1);
    put_i32(&o, 3);
    put_raw(&o, "abc", 3);
    put_i32(&o, 1);
    put_i32(&o, 0x7fffffff);
    put_f32(&o, 1);
    expect_fail(save("hugenval.dat", &o), MIO_ERR_TRUNCATED,
                "('abc'): 2147483647 values (8589934588 bytes) at offset 19 run past the end of the file (4 bytes remain)");

    /* a name with control bytes is escaped in the message */
    o.n = 0;
    put_i32(&o, 1);
    put_i32(&o, 3);
    put_raw(&o, "a\x1b[", 3);
    put_i32(&o, 1);
    put_i32(&o, 2);
    put_f32(&o, 1);
    expect_fail(save("escname.dat", &o), MIO_ERR_TRUNCATED, "('a\\x1b['): 2 values (8 bytes)");

    /* missing file, NULL arguments */
    expect_fail(tmp_path("missing.dat"), MIO_ERR_NOT_FOUND, "imatrix: cannot open '");
    qz_imatrix *im = NULL;
    T_STATUS(mio_qz_imatrix_load(NULL, &im), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_qz_imatrix_load("x", NULL), MIO_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------- */
/* GGUF imatrices written with libmodelio's writer.                          */
enum { META_DATASETS = 1, META_COUNT = 2, META_SIZE = 4, META_ALL = 7 };

static mio_writer *gguf_new(int meta) {
    mio_writer *w = NULL;
    if (mio_writer_new(MIO_WRITER_DEFAULT, &w) != MIO_OK) exit(2);
    mio_writer_set_str(w, "general.type", "imatrix", 7);
    if (meta & META_DATASETS) {
        const char *ds[2] = {"d1.txt", "d2.txt"};
        mio_writer_set_arr_str(w, "imatrix.datasets", ds, NULL, 2);
    }
    if (meta & META_COUNT) mio_writer_set_u32(w, "imatrix.chunk_count", 7);
    if (meta & META_SIZE) mio_writer_set_u32(w, "imatrix.chunk_size", 512);
    return w;
}

static void add_f32(mio_writer *w, const char *name, int64_t ne0, int64_t ne1, const float *v) {
    int64_t ne[2] = {ne0, ne1};
    T_OK(mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne, v, (size_t)(ne0 * ne1) * 4));
}

static const char *gguf_save(mio_writer *w, const char *tag) {
    const char *p = tmp_path(tag);
    T_OK(mio_writer_write_file(w, p));
    mio_writer_free(w);
    return p;
}

static void test_gguf_basic(void) {
    /* an expert tensor (4 columns x 2 experts, counts 2 and 0), a dense one, an
     * unrelated tensor that is ignored */
    static const float exps[8] = {2, 4, 6, 8, 10, 20, 30, 40}, exps_c[2] = {2, 0};
    static const float q[3] = {3, 6, 9}, q_c[1] = {3};
    static const float other[2] = {1, 2};
    mio_writer *w = gguf_new(META_ALL);
    add_f32(w, "blk.0.ffn_down_exps.weight.in_sum2", 4, 2, exps);
    add_f32(w, "blk.0.ffn_down_exps.weight.counts", 1, 2, exps_c);
    add_f32(w, "blk.0.attn_q.weight.counts", 1, 1, q_c);   /* counts before sums: order does not matter */
    add_f32(w, "blk.0.attn_q.weight.in_sum2", 3, 1, q);
    add_f32(w, "foo.weight", 2, 1, other);
    const char *path = gguf_save(w, "basic.gguf");

    qz_imatrix *im = NULL;
    T_OK(mio_qz_imatrix_load(path, &im));
    T_EQ_INT(mio_qz_imatrix_format(im), QZ_IMATRIX_GGUF);
    T_EQ_U64(mio_qz_imatrix_count(im), 2);
    T_EQ_MSTR(mio_qz_imatrix_name(im, 0), "blk.0.attn_q.weight");
    T_EQ_MSTR(mio_qz_imatrix_name(im, 1), "blk.0.ffn_down_exps.weight");
    uint64_t n;
    const float *v = vals(im, "blk.0.ffn_down_exps.weight", &n);
    T_EQ_U64(n, 8);
    if (v) {
        T_FEQ(v[0], 1); T_FEQ(v[1], 2); T_FEQ(v[2], 3); T_FEQ(v[3], 4);   /* expert 0: / 2 */
        T_FEQ(v[4], 1); T_FEQ(v[5], 1); T_FEQ(v[6], 1); T_FEQ(v[7], 1);   /* expert 1: no data -> 1 */
    }
    v = vals(im, "blk.0.attn_q.weight", &n);
    T_CHECK(v && n == 3 && feq(v[0], 1) && feq(v[1], 2) && feq(v[2], 3));
    T_EQ_INT(mio_qz_imatrix_chunk_count(im), 7);
    T_EQ_U64(mio_qz_imatrix_chunk_size(im), 512);
    T_EQ_U64(mio_qz_imatrix_dataset_count(im), 2);
    T_EQ_STR(mio_qz_imatrix_dataset(im, 0), "d1.txt");
    T_EQ_STR(mio_qz_imatrix_dataset(im, 1), "d2.txt");
    T_EQ_INT(mio_qz_imatrix_find(im, "foo.weight", 10), -1);

    /* expert slicing: 4 columns x 2 experts */
    const float *x = NULL;
    T_OK(mio_qz_imatrix_for_tensor(im, "blk.0.ffn_down_exps.weight", 4, 2, &x));
    T_CHECK(x != NULL && feq(x[4], 1) && feq(x[3], 4));
    T_STATUS(mio_qz_imatrix_for_tensor(im, "blk.0.ffn_down_exps.weight", 4, 1, &x), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("imatrix size 8 is different from tensor size 4 for blk.0.ffn_down_exps.weight");

    qz_imatrix_kv kv[QZ_IMATRIX_MAX_KV];
    T_EQ_U64(mio_qz_imatrix_kvs(im, path, kv), 4);
    T_EQ_STR(kv[0].str, path);
    T_EQ_STR(kv[1].str, "d1.txt");   /* only the first dataset */
    T_EQ_U64(kv[2].u32, 2);
    T_EQ_U64(kv[3].u32, 7);

    /* filter: exclude by substring, include by substring, both refused */
    const char *ex[1] = {"attn"};
    T_OK(mio_qz_imatrix_filter(im, NULL, 0, ex, 1));
    T_EQ_U64(mio_qz_imatrix_count(im), 1);
    T_EQ_INT(mio_qz_imatrix_find(im, "blk.0.attn_q.weight", 19), -1);
    T_CHECK(mio_qz_imatrix_find(im, "blk.0.ffn_down_exps.weight", 26) == 0);
    T_EQ_U64(mio_qz_imatrix_kvs(im, path, kv), 4);
    T_EQ_U64(kv[2].u32, 1);
    const char *inc[2] = {"nothing", "also-nothing"};
    T_STATUS(mio_qz_imatrix_filter(im, inc, 2, ex, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("cannot be used together");
    T_OK(mio_qz_imatrix_filter(im, inc, 2, NULL, 0));
    T_EQ_U64(mio_qz_imatrix_count(im), 0);
    T_EQ_U64(mio_qz_imatrix_kvs(im, path, kv), 0);   /* no entries: no imatrix, no keys */
    mio_qz_imatrix_free(im);

    T_OK(mio_qz_imatrix_load(path, &im));
    const char *inc2[2] = {"ffn_", "q.w"};
    T_OK(mio_qz_imatrix_filter(im, inc2, 2, NULL, 0));   /* union of the patterns */
    T_EQ_U64(mio_qz_imatrix_count(im), 2);
    const char *inc3[1] = {""};
    T_OK(mio_qz_imatrix_filter(im, inc3, 1, NULL, 0));   /* "" matches all */
    T_EQ_U64(mio_qz_imatrix_count(im), 2);
    const char *incnull[1] = {NULL};
    T_STATUS(mio_qz_imatrix_filter(im, incnull, 1, NULL, 0), MIO_ERR_INVALID_ARG);
    T_OK(mio_qz_imatrix_filter(im, NULL, 0, NULL, 0));
    T_EQ_U64(mio_qz_imatrix_count(im), 2);
    T_OK(mio_qz_imatrix_check_finite(im));
    mio_qz_imatrix_free(im);
}

static void test_gguf_counts(void) {
    /* counts are rounded (lroundf) and a rounded count <= 0 gives ones:
     * 2.4 -> 2, 0.4 -> ones, 0.5 -> 1, -3 -> ones, NaN -> ones, inf -> ones */
    static const float s[12] = {4, 8, 3, 3, 5, 7, 6, 2, 1, 1, 9, 9};
    static const float c[6] = {2.4f, 0.4f, 0.5f, -3.0f, NAN, INFINITY};
    mio_writer *w = gguf_new(META_ALL);
    add_f32(w, "w.in_sum2", 2, 6, s);
    add_f32(w, "w.counts", 1, 6, c);
    /* sums that do not divide into the counts: 5 values, 2 counts -> ne0 = 2, the 5th stays 0 */
    static const float s5[5] = {2, 4, 6, 8, 10}, c2[2] = {2, 4};
    int64_t ne1[1] = {5};
    T_OK(mio_writer_add_tensor(w, "odd.in_sum2", MIO_TYPE_F32, 1, ne1, s5, sizeof s5));
    add_f32(w, "odd.counts", 2, 1, c2);   /* counts of any shape: only the element count matters */
    const char *path = gguf_save(w, "counts.gguf");
    qz_imatrix *im = NULL;
    T_OK(mio_qz_imatrix_load(path, &im));
    uint64_t n;
    const float *v = vals(im, "w", &n);
    T_EQ_U64(n, 12);
    if (v) {
        T_FEQ(v[0], 2); T_FEQ(v[1], 4);
        T_FEQ(v[2], 1); T_FEQ(v[3], 1);
        T_FEQ(v[4], 5); T_FEQ(v[5], 7);
        T_FEQ(v[6], 1); T_FEQ(v[7], 1);
        T_FEQ(v[8], 1); T_FEQ(v[9], 1);
        T_FEQ(v[10], 1); T_FEQ(v[11], 1);
    }
    v = vals(im, "odd", &n);
    T_EQ_U64(n, 5);
    if (v) { T_FEQ(v[0], 1); T_FEQ(v[1], 2); T_FEQ(v[2], 1.5f); T_FEQ(v[3], 2); T_FEQ(v[4], 0); }
    mio_qz_imatrix_free(im);

    /* NaN sums load; llama_model_quantize refuses them; excluding the entry clears it */
    static const float bad[2] = {1, NAN}, one[1] = {1};
    w = gguf_new(META_ALL);
    add_f32(w, "bad.in_sum2", 2, 1, bad);
    add_f32(w, "bad.counts", 1, 1, one);
    add_f32(w, "good.in_sum2", 2, 1, s);
    add_f32(w, "good.counts", 1, 1, one);
    path = gguf_save(w, "nan.gguf");
    T_OK(mio_qz_imatrix_load(path, &im));
    T_STATUS(mio_qz_imatrix_check_finite(im), MIO_ERR_NON_FINITE);
    T_MSG_HAS("imatrix contains non-finite value nan (entry 'bad', value 1 of 2)");
    const char *ex[1] = {"bad"};
    T_OK(mio_qz_imatrix_filter(im, NULL, 0, ex, 1));
    T_OK(mio_qz_imatrix_check_finite(im));
    mio_qz_imatrix_free(im);

    /* chunk_count >= 2^31 is negative as llama.cpp's int32: no chunks_count key */
    w = gguf_new(META_DATASETS | META_SIZE);
    mio_writer_set_u32(w, "imatrix.chunk_count", 0x80000005u);
    add_f32(w, "x.in_sum2", 1, 1, one);
    add_f32(w, "x.counts", 1, 1, one);
    path = gguf_save(w, "bigchunks.gguf");
    T_OK(mio_qz_imatrix_load(path, &im));
    T_EQ_INT(mio_qz_imatrix_chunk_count(im), (int32_t)0x80000005u);
    qz_imatrix_kv kv[QZ_IMATRIX_MAX_KV];
    T_EQ_U64(mio_qz_imatrix_kvs(im, "f", kv), 3);
    mio_qz_imatrix_free(im);

    /* an empty dataset array and chunk_count 0: metadata present, two keys */
    w = gguf_new(META_SIZE);
    mio_writer_set_arr_str(w, "imatrix.datasets", NULL, NULL, 0);
    mio_writer_set_u32(w, "imatrix.chunk_count", 0);
    add_f32(w, "x.in_sum2", 1, 1, one);
    add_f32(w, "x.counts", 1, 1, one);
    path = gguf_save(w, "nodatasets.gguf");
    T_OK(mio_qz_imatrix_load(path, &im));
    T_EQ_U64(mio_qz_imatrix_dataset_count(im), 0);
    T_EQ_U64(mio_qz_imatrix_kvs(im, "f", kv), 2);
    mio_qz_imatrix_free(im);

    /* imatrix.datasets of another type: present (metadata complete) but no dataset */
    w = gguf_new(META_COUNT | META_SIZE);
    mio_writer_set_str(w, "imatrix.datasets", "plain", 5);
    add_f32(w, "x.in_sum2", 1, 1, one);
    add_f32(w, "x.counts", 1, 1, one);
    path = gguf_save(w, "dsstr.gguf");
    T_OK(mio_qz_imatrix_load(path, &im));
    T_EQ_U64(mio_qz_imatrix_dataset_count(im), 0);
    mio_qz_imatrix_free(im);

    /* tensors but no .in_sum2/.counts pair: loads, no entries (quantize without one) */
    w = gguf_new(META_ALL);
    add_f32(w, "x.weight", 1, 1, one);
    path = gguf_save(w, "nopairs.gguf");
    T_OK(mio_qz_imatrix_load(path, &im));
    T_EQ_U64(mio_qz_imatrix_count(im), 0);
    T_EQ_U64(mio_qz_imatrix_kvs(im, "f", kv), 0);
    mio_qz_imatrix_free(im);
}

static void test_gguf_malformed(void) {
    static const float one[2] = {1, 1};
    mio_writer *w;
    const char *path;

    w = gguf_new(META_ALL);
    path = gguf_save(w, "notensors.gguf");
    expect_fail(path, MIO_ERR_INVALID_METADATA, "no data: the GGUF file has no tensors");

    const int missing[3] = {META_COUNT | META_SIZE, META_DATASETS | META_SIZE, META_DATASETS | META_COUNT};
    const char *which[3] = {"no imatrix.datasets", "no imatrix.chunk_count", "no imatrix.chunk_size"};
    for (int k = 0; k < 3; k++) {
        w = gguf_new(missing[k]);
        add_f32(w, "x.in_sum2", 1, 1, one);
        add_f32(w, "x.counts", 1, 1, one);
        path = gguf_save(w, "nometa.gguf");
        expect_fail(path, MIO_ERR_NOT_FOUND, "missing imatrix metadata");
        T_MSG_HAS(which[k]);
    }

    w = gguf_new(META_DATASETS | META_SIZE);
    mio_writer_set_i32(w, "imatrix.chunk_count", 3);
    add_f32(w, "x.in_sum2", 1, 1, one);
    add_f32(w, "x.counts", 1, 1, one);
    expect_fail(gguf_save(w, "i32count.gguf"), MIO_ERR_TYPE_MISMATCH, "imatrix.chunk_count is i32, must be u32");
    w = gguf_new(META_DATASETS | META_COUNT);
    mio_writer_set_u64(w, "imatrix.chunk_size", 3);
    add_f32(w, "x.in_sum2", 1, 1, one);
    add_f32(w, "x.counts", 1, 1, one);
    expect_fail(gguf_save(w, "u64size.gguf"), MIO_ERR_TYPE_MISMATCH, "imatrix.chunk_size is u64, must be u32");

    w = gguf_new(META_ALL);
    add_f32(w, "a.in_sum2", 1, 1, one);
    add_f32(w, "a.counts", 1, 1, one);
    add_f32(w, "b.in_sum2", 1, 1, one);
    expect_fail(gguf_save(w, "nocounts.gguf"), MIO_ERR_INVALID_METADATA,
                "mismatched sums and counts for 'b': b.in_sum2 has no b.counts");
    w = gguf_new(META_ALL);
    add_f32(w, "c.counts", 1, 1, one);
    expect_fail(gguf_save(w, "nosums.gguf"), MIO_ERR_INVALID_METADATA,
                "mismatched sums and counts for 'c': c.counts has no c.in_sum2");

    uint16_t h[2] = {0x3c00, 0x3c00};
    int64_t ne[2] = {2, 1};
    w = gguf_new(META_ALL);
    T_OK(mio_writer_add_tensor(w, "f.in_sum2", MIO_TYPE_F16, 2, ne, h, sizeof h));
    add_f32(w, "f.counts", 1, 1, one);
    expect_fail(gguf_save(w, "f16.gguf"), MIO_ERR_TYPE_MISMATCH, "sums and counts for 'f' must be F32: f.in_sum2 is f16");

    /* a .counts tensor with no elements: llama-quantize would divide by zero */
    int64_t ne0[2] = {1, 0};
    w = gguf_new(META_ALL);
    add_f32(w, "z.in_sum2", 2, 1, one);
    mio_status st = mio_writer_add_tensor(w, "z.counts", MIO_TYPE_F32, 2, ne0, NULL, 0);
    if (st == MIO_OK) {
        expect_fail(gguf_save(w, "zerocounts.gguf"), MIO_ERR_INVALID_METADATA,
                    "z.counts has no elements (llama-quantize would divide by zero)");
    } else {
        mio_writer_free(w);
        fprintf(stderr, "note: the writer refuses a zero-element tensor; that case is not exercised\n");
    }

    /* a truncated GGUF (cut inside the tensor data, past the last tensor's
     * padding): the GGUF reader's message, prefixed with the imatrix path */
    w = gguf_new(META_ALL);
    add_f32(w, "x.in_sum2", 2, 1, one);
    add_f32(w, "x.counts", 1, 1, one);
    path = gguf_save(w, "full.gguf");
    FILE *f = fopen(path, "rb");
    uint8_t buf[4096];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    T_CHECK(n > 100);
    const char *cut = tmp_path("cut.gguf");
    write_bytes(cut, buf, n - 40);
    qz_imatrix *im = NULL;
    T_CHECK(mio_qz_imatrix_load(cut, &im) != MIO_OK);
    T_CHECK(im == NULL);
    T_MSG_HAS("imatrix '");
    T_MSG_HAS("cut.gguf': ");
    write_bytes(cut, buf, 30);
    T_CHECK(mio_qz_imatrix_load(cut, &im) != MIO_OK);
    T_MSG_HAS("cut.gguf': ");
}

/* ------------------------------------------------------------------------- */
/* Round trip with tests/tools/gen_imatrix (driven by CTest):                 */
/*   test_imatrix --make-model M.gguf       a tiny model: token embeddings, a */
/*                                          dense matrix, 3 experts, a norm,  */
/*                                          the output matrix                 */
/*   test_imatrix --check IMATRIX M.gguf N  N entries, and every weight the   */
/*                                          generator covers has a vector of  */
/*                                          ne[0] x experts positive values   */
static int make_model(const char *path) {
    static float buf[8 * 8 * 3];
    for (size_t i = 0; i < sizeof buf / sizeof *buf; i++) buf[i] = (float)i * 0.01f;
    mio_writer *w = NULL;
    T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    const struct { const char *name; uint32_t nd; int64_t ne[3]; } t[5] = {
        {"token_embd.weight", 2, {8, 4, 1}},      {"blk.0.attn_norm.weight", 1, {8, 1, 1}},
        {"blk.0.attn_q.weight", 2, {8, 8, 1}},    {"blk.0.ffn_up_exps.weight", 3, {8, 4, 3}},
        {"output.weight", 2, {8, 4, 1}}};
    for (int i = 0; i < 5; i++) {
        size_t n = (size_t)(t[i].ne[0] * t[i].ne[1] * t[i].ne[2]);
        T_OK(mio_writer_add_tensor(w, t[i].name, MIO_TYPE_F32, t[i].nd, t[i].ne, buf, n * 4));
    }
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
    T_DONE();
}

static int check_generated(const char *im_path, const char *model, uint64_t want) {
    qz_imatrix *im = NULL;
    mio_gguf_file *g = NULL;
    T_OK(mio_qz_imatrix_load(im_path, &im));
    T_OK(mio_gguf_open(model, MIO_OPEN_MMAP, &g));
    if (!im || !g) T_DONE();
    T_EQ_U64(mio_qz_imatrix_count(im), want);
    T_OK(mio_qz_imatrix_check_finite(im));
    for (int64_t i = 0; i < mio_gguf_tensor_count(g); i++) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(g, i, &t));
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
        if (t.n_dims < 2 || strcmp(name, "token_embd.weight") == 0) continue;
        const float *v = NULL;
        T_OK(mio_qz_imatrix_for_tensor(im, name, t.ne[0], t.ne[2] * t.ne[3], &v));
        T_CHECK(v != NULL);
        if (!v) { fprintf(stderr, "no imatrix vector for %s\n", name); continue; }
        for (int64_t k = 0; k < t.ne[0] * t.ne[2] * t.ne[3]; k++) {
            if (!(v[k] > 0.0f)) { T_CHECK(v[k] > 0.0f); break; }
        }
    }
    qz_imatrix_kv kv[QZ_IMATRIX_MAX_KV];
    T_EQ_U64(mio_qz_imatrix_kvs(im, im_path, kv), 4);
    T_EQ_STR(kv[1].str, "gen_imatrix.txt");
    T_EQ_U64(kv[3].u32, 10);
    mio_qz_imatrix_free(im);
    mio_gguf_close(g);
    T_DONE();
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--make-model") == 0) return make_model(argv[2]);
    if (argc == 5 && strcmp(argv[1], "--check") == 0)
        return check_generated(argv[2], argv[3], strtoull(argv[4], NULL, 10));
    snprintf(g_dir, sizeof g_dir, "/tmp/mio-test-imatrix-XXXXXX");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    test_legacy_basic();
    test_legacy_edges();
    test_legacy_malformed();
    test_gguf_basic();
    test_gguf_counts();
    test_gguf_malformed();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", g_dir);
    T_DONE();
}
