/* SPDX-License-Identifier: MIT */
/* test_gguf_split.c — split GGUF loading (MIO_OPEN_SPLITS): a 3-part model written
 * with the writer merges into one handle (part 1's metadata, every tensor tagged
 * with its part); split errors; mio_gguf_take_mapping; prefetch/release. */
#include "modelio.h"
#include "test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct tdesc { const char *name; int type; uint32_t n_dims; int64_t ne[4]; size_t nbytes; } tdesc;

/* part 0: p0.a f32[8] (32 B), p0.b f32[5000] (20000 B, several pages)
 * part 1: p1.a q8_0[32,2] (68 B)
 * part 2: p2.a f32[3] (12 B -> padded 32), p2.b i32[5] (20 B) */
static const tdesc k_t[5] = {
    {"p0.a", MIO_TYPE_F32, 1, {8, 1, 1, 1}, 32},
    {"p0.b", MIO_TYPE_F32, 1, {5000, 1, 1, 1}, 20000},
    {"p1.a", MIO_TYPE_Q8_0, 2, {32, 2, 1, 1}, 68},
    {"p2.a", MIO_TYPE_F32, 1, {3, 1, 1, 1}, 12},
    {"p2.b", MIO_TYPE_I32, 1, {5, 1, 1, 1}, 20},
};
static const uint32_t k_part[5] = {0, 0, 1, 2, 2};
static const uint64_t k_off[5] = {0, 32, 0, 0, 32};
static uint8_t g_data[5][20000];

static void fill(void) {
    for (int i = 0; i < 5; i++)
        for (size_t k = 0; k < k_t[i].nbytes; k++) g_data[i][k] = (uint8_t)(k * (size_t)(i + 3) + (size_t)i);
}

typedef struct part_opts {
    int split_no;      /* value of split.no (u16), -1 to omit */
    int split_count;   /* value of split.count (u16) */
    int tensors_count; /* split.tensors.count (i32) */
    int meta;          /* carry the model metadata */
    const char *extra_tensor; /* an additional tensor name (for duplicates), or NULL */
} part_opts;

static void write_part(const char *path, const part_opts *o, uint32_t part) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    if (!w) return;
    if (o->meta) {
        T_OK(mio_writer_set_str(w, "general.architecture", "test", 4));
        T_OK(mio_writer_set_u32(w, "x.val", 7));
    }
    if (o->split_no >= 0) T_OK(mio_writer_set_u16(w, "split.no", (uint16_t)o->split_no));
    T_OK(mio_writer_set_u16(w, "split.count", (uint16_t)o->split_count));
    T_OK(mio_writer_set_i32(w, "split.tensors.count", o->tensors_count));
    for (int i = 0; i < 5; i++) {
        if (k_part[i] != part) continue;
        T_OK(mio_writer_add_tensor(w, k_t[i].name, k_t[i].type, k_t[i].n_dims, k_t[i].ne, g_data[i], k_t[i].nbytes));
    }
    if (o->extra_tensor) {
        int64_t ne[1] = {4};
        T_OK(mio_writer_add_tensor(w, o->extra_tensor, MIO_TYPE_F32, 1, ne, g_data[0], 16));
    }
    unlink(path);
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
}

static void write_split(const char *base, int count_in_name, const part_opts opts[], int nparts) {
    char path[256];
    for (int p = 0; p < nparts; p++) {
        snprintf(path, sizeof path, "%s-%05d-of-%05d.gguf", base, p + 1, count_in_name);
        write_part(path, &opts[p], (uint32_t)p);
    }
}

static void test_good(void) {
    part_opts o[3] = {{0, 3, 5, 1, NULL}, {1, 3, 5, 0, NULL}, {2, 3, 5, 0, NULL}};
    write_split("sp_good", 3, o, 3);

    /* each part alone, for reference offsets */
    uint64_t part_doff[3] = {0};
    for (int p = 0; p < 3; p++) {
        char path[64];
        snprintf(path, sizeof path, "sp_good-%05d-of-00003.gguf", p + 1);
        mio_gguf_file *f = NULL;
        T_OK(mio_gguf_open(path, 0, &f));
        if (!f) continue;
        part_doff[p] = mio_gguf_data_offset(f);
        T_EQ_INT(mio_gguf_part_count(f), 1);
        T_EQ_INT(mio_gguf_tensor_count(f), p == 1 ? 1 : 2);
        if (p == 0) {
            /* without MIO_OPEN_SPLITS part 1 is just itself */
            T_EQ_INT(mio_gguf_find_tensor(f, "p0.b"), 1);
            T_EQ_INT(mio_gguf_find_tensor(f, "p1.a"), -1);
            T_EQ_INT(mio_gguf_kv_count(f), 5);
        }
        mio_gguf_close(f);
    }

    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("sp_good-00001-of-00003.gguf", MIO_OPEN_SPLITS, &f));
    if (!f) return;
    T_EQ_INT(mio_gguf_part_count(f), 3);
    T_EQ_INT(mio_gguf_tensor_count(f), 5);
    for (uint32_t p = 0; p < 3; p++) T_EQ_U64(mio_gguf_part_data_offset(f, p), part_doff[p]);
    T_EQ_U64(mio_gguf_data_offset(f), part_doff[0]);
    /* metadata = part 1's */
    T_EQ_INT(mio_gguf_kv_count(f), 5);
    T_EQ_MSTR(mio_gguf_kv_key(f, 0), "general.architecture");
    T_EQ_MSTR(mio_gguf_kv_key(f, 1), "x.val");
    T_EQ_MSTR(mio_gguf_kv_key(f, 2), "split.no");
    int64_t v = -1;
    T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "split.no"), &v));
    T_EQ_INT(v, 0);
    T_OK(mio_gguf_kv_i64(f, mio_gguf_find_key(f, "x.val"), &v));
    T_EQ_INT(v, 7);
    T_EQ_INT(mio_gguf_kv_type(f, mio_gguf_find_key(f, "split.count")), MIO_GGUF_U16);
    for (int i = 0; i < 5; i++) {
        int64_t ti = mio_gguf_find_tensor(f, k_t[i].name);
        T_CHECK(ti >= 0);
        if (ti < 0) continue;
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, ti, &t));
        T_EQ_MSTR(t.name, k_t[i].name);
        T_EQ_INT(t.part, k_part[i]);
        T_EQ_U64(t.offset, k_off[i]);
        T_EQ_U64(t.nbytes, k_t[i].nbytes);
        T_EQ_INT(t.type, k_t[i].type);
        T_CHECK(t.data && memcmp(t.data, g_data[i], k_t[i].nbytes) == 0);
    }
    /* parts in order, each part's tensors in file order */
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, 2, &t));
    T_EQ_MSTR(t.name, "p1.a");

    /* split loads transfer no mapping */
    void *addr = (void *)&v;
    size_t len = 99;
    T_OK(mio_gguf_take_mapping(f, &addr, &len));
    T_CHECK(addr == NULL);
    T_EQ_U64(len, 0);

    /* prefetch/release over every part's tensors keep the bytes */
    for (int i = 0; i < 5; i++) {
        T_OK(mio_gguf_tensor_info(f, mio_gguf_find_tensor(f, k_t[i].name), &t));
        mio_gguf_prefetch(f, t.data, (size_t)t.nbytes);
        mio_gguf_release(f, t.data, (size_t)t.nbytes);
        T_CHECK(memcmp(t.data, g_data[i], k_t[i].nbytes) == 0);
    }
    mio_gguf_close(f);
}

static void expect_split_error(const char *path, mio_status want, const char *msg) {
    mio_gguf_file *f = (mio_gguf_file *)&f;
    mio_status st = mio_gguf_open(path, MIO_OPEN_SPLITS, &f);
    T_STATUS(st, want);
    if (msg) T_MSG_HAS(msg);
    if (st == MIO_OK) mio_gguf_close(f);
}

static void test_errors(void) {
    /* opening a non-first part */
    expect_split_error("sp_good-00002-of-00003.gguf", MIO_ERR_SPLIT, "sp_good-00002-of-00003.gguf");
    /* the same part without MIO_OPEN_SPLITS is fine */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("sp_good-00002-of-00003.gguf", 0, &f));
    mio_gguf_close(f);

    /* part 2 claims split.no = 2 */
    part_opts bad_no[3] = {{0, 3, 5, 1, NULL}, {2, 3, 5, 0, NULL}, {2, 3, 5, 0, NULL}};
    write_split("sp_badno", 3, bad_no, 3);
    expect_split_error("sp_badno-00001-of-00003.gguf", MIO_ERR_SPLIT, "split.no");

    /* part 1 claims split.no = 1 */
    part_opts bad_no1[3] = {{1, 3, 5, 1, NULL}, {1, 3, 5, 0, NULL}, {2, 3, 5, 0, NULL}};
    write_split("sp_badno1", 3, bad_no1, 3);
    expect_split_error("sp_badno1-00001-of-00003.gguf", MIO_ERR_SPLIT, "split.no");

    /* split.count = 2 in files named -of-00003 */
    part_opts bad_count[3] = {{0, 2, 5, 1, NULL}, {1, 2, 5, 0, NULL}, {2, 2, 5, 0, NULL}};
    write_split("sp_badcount", 3, bad_count, 3);
    expect_split_error("sp_badcount-00001-of-00003.gguf", MIO_ERR_SPLIT, "split.count");

    /* split.count mismatch only in part 3 */
    part_opts bad_count3[3] = {{0, 3, 5, 1, NULL}, {1, 3, 5, 0, NULL}, {2, 4, 5, 0, NULL}};
    write_split("sp_badcount3", 3, bad_count3, 3);
    expect_split_error("sp_badcount3-00001-of-00003.gguf", MIO_ERR_SPLIT, "split.count");

    /* missing third part */
    part_opts two[2] = {{0, 3, 5, 1, NULL}, {1, 3, 5, 0, NULL}};
    write_split("sp_missing", 3, two, 2);
    unlink("sp_missing-00003-of-00003.gguf");
    f = (mio_gguf_file *)&f;
    mio_status st = mio_gguf_open("sp_missing-00001-of-00003.gguf", MIO_OPEN_SPLITS, &f);
    T_EQ_INT(st, MIO_ERR_NOT_FOUND); /* the file is missing (ENOENT), as for a missing single file */
    T_MSG_HAS("split part 3 of 3 is missing: ");
    T_MSG_HAS("sp_missing-00003-of-00003.gguf");
    T_CHECK(f == (mio_gguf_file *)&f); /* *out untouched on failure */
    if (st == MIO_OK) mio_gguf_close(f);

    /* a tensor in both part 1 and part 3 */
    part_opts dup[3] = {{0, 3, 6, 1, NULL}, {1, 3, 6, 0, NULL}, {2, 3, 6, 0, "p0.a"}};
    write_split("sp_dup", 3, dup, 3);
    expect_split_error("sp_dup-00001-of-00003.gguf", MIO_ERR_DUPLICATE_TENSOR, "p0.a");

    /* part 1 has no split.no at all */
    part_opts nono[3] = {{-1, 3, 5, 1, NULL}, {1, 3, 5, 0, NULL}, {2, 3, 5, 0, NULL}};
    write_split("sp_nono", 3, nono, 3);
    expect_split_error("sp_nono-00001-of-00003.gguf", MIO_ERR_SPLIT, NULL);
}

static void test_take_mapping(void) {
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("sp_good-00001-of-00003.gguf", MIO_OPEN_MMAP, &f));
    if (!f) return;
    uint64_t fsize = mio_gguf_file_size(f);
    mio_str key = mio_gguf_kv_key(f, 0), val;
    T_OK(mio_gguf_kv_str(f, 0, &val));
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, 1, &t));
    /* prefetch/release on a mapping keep the bytes */
    mio_gguf_prefetch(f, t.data, (size_t)t.nbytes);
    mio_gguf_release(f, t.data, (size_t)t.nbytes);
    T_CHECK(memcmp(t.data, g_data[1], 20000) == 0);
    mio_gguf_release(f, (const uint8_t *)t.data + 1, 5000); /* unaligned range: rounded to pages */
    T_CHECK(memcmp(t.data, g_data[1], 20000) == 0);
    uint8_t local[64];
    memset(local, 0xAB, sizeof local);
    mio_gguf_release(f, local, sizeof local); /* outside the mapping: ignored */
    T_CHECK(local[0] == 0xAB && local[63] == 0xAB);

    void *addr = NULL;
    size_t len = 0;
    T_OK(mio_gguf_take_mapping(f, &addr, &len));
    T_CHECK(addr != NULL);
    T_CHECK(len >= fsize);
    T_CHECK(addr && memcmp(addr, "GGUF", 4) == 0);
    mio_gguf_close(f);
    /* views outlive the handle */
    T_EQ_MSTR(key, "general.architecture");
    T_EQ_MSTR(val, "test");
    T_EQ_MSTR(t.name, "p0.b");
    T_CHECK(memcmp(t.data, g_data[1], 20000) == 0);
    T_OK(mio_gguf_unmap(addr, len));

    /* heap and buffer loads: nothing to transfer */
    f = NULL;
    T_OK(mio_gguf_open("sp_good-00001-of-00003.gguf", MIO_OPEN_READ, &f));
    if (f) {
        addr = (void *)&len;
        len = 5;
        T_OK(mio_gguf_take_mapping(f, &addr, &len));
        T_CHECK(addr == NULL);
        T_EQ_U64(len, 0);
        T_OK(mio_gguf_tensor_info(f, 1, &t));
        mio_gguf_prefetch(f, t.data, (size_t)t.nbytes); /* no-op on heap */
        mio_gguf_release(f, t.data, (size_t)t.nbytes);
        T_CHECK(memcmp(t.data, g_data[1], 20000) == 0);
        mio_gguf_close(f);
    }
    /* a buffer load */
    FILE *fp = fopen("sp_good-00002-of-00003.gguf", "rb");
    T_CHECK(fp != NULL);
    if (fp) {
        uint8_t *buf = malloc(4096);
        size_t n = fread(buf, 1, 4096, fp);
        fclose(fp);
        f = NULL;
        T_OK(mio_gguf_open_buffer(buf, n, MIO_BUFFER_TAKE, &f));
        if (f) {
            addr = (void *)&len;
            len = 5;
            T_OK(mio_gguf_take_mapping(f, &addr, &len));
            T_CHECK(addr == NULL);
            T_EQ_U64(len, 0);
            T_OK(mio_gguf_tensor_info(f, 0, &t));
            mio_gguf_release(f, t.data, (size_t)t.nbytes);
            T_CHECK(memcmp(t.data, g_data[2], 68) == 0);
            mio_gguf_close(f);
        }
    }
}

/* "-00001-of-00001.gguf" without split keys (llama-quantize --keep-split of a
 * one-file model writes that): a plain file, also with MIO_OPEN_SPLITS; a
 * later part of a one-part "split" cannot exist */
static void test_one_of_one(void) {
    mio_writer *w = NULL;
    int64_t ne[1] = {8};
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_add_tensor(w, "a", MIO_TYPE_F32, 1, ne, g_data[0], 32));
    unlink("one-00001-of-00001.gguf");
    T_OK(mio_writer_write_file(w, "one-00001-of-00001.gguf"));
    mio_writer_free(w);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("one-00001-of-00001.gguf", MIO_OPEN_SPLITS, &f));
    T_EQ_INT(mio_gguf_tensor_count(f), 1);
    T_EQ_INT(mio_gguf_part_count(f), 1);
    mio_gguf_close(f);
    unlink("one-00001-of-00001.gguf");
}

/* ---- mio_gguf_split (gguf-split --split) ---- */
typedef struct plan_log { int n; char path[8][64]; int64_t nt[8]; uint64_t fb[8]; } plan_log;
static void plan_cb(void *user, const mio_gguf_split_part *pt) {
    plan_log *l = user;
    if (l->n < 8) {
        snprintf(l->path[l->n], 64, "%s", pt->path);
        l->nt[l->n] = pt->n_tensors;
        l->fb[l->n] = pt->file_bytes;
    }
    l->n++;
}

static int file_exists(const char *p) { return access(p, F_OK) == 0; }
static long file_size(const char *p) { FILE *f = fopen(p, "rb"); long n = -1; if (f) { fseek(f, 0, SEEK_END); n = ftell(f); fclose(f); } return n; }

/* the names of a part's tensors, comma-joined, and its key list */
static void part_facts(const char *path, char *names, size_t nn, char *keys, size_t kn) {
    mio_gguf_file *f = NULL;
    names[0] = keys[0] = 0;
    T_OK(mio_gguf_open(path, 0, &f));
    if (!f) return;
    for (int64_t i = 0; i < mio_gguf_tensor_count(f); i++) {
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, i, &t));
        snprintf(names + strlen(names), nn - strlen(names), "%s%.*s", i ? "," : "", (int)t.name.len, t.name.ptr);
    }
    for (int64_t i = 0; i < mio_gguf_kv_count(f); i++) {
        mio_str k = mio_gguf_kv_key(f, i);
        snprintf(keys + strlen(keys), kn - strlen(keys), "%s%.*s", i ? "," : "", (int)k.len, k.ptr);
    }
    mio_gguf_close(f);
}

static void split_u(const char *path, const char *key, uint64_t want, int type) {
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(path, 0, &f));
    if (!f) return;
    int64_t i = mio_gguf_find_key(f, key);
    uint64_t v = 0;
    T_OK(mio_gguf_kv_u64(f, i, &v));
    T_EQ_U64(v, want);
    T_EQ_INT(mio_gguf_kv_type(f, i), type);
    mio_gguf_close(f);
}

static void test_split_write(void) {
    const char *in = "sw_in.gguf";
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "test", 4));
    T_OK(mio_writer_set_u32(w, "x.val", 7));
    for (int i = 0; i < 5; i++)
        T_OK(mio_writer_add_tensor(w, k_t[i].name, k_t[i].type, k_t[i].n_dims, k_t[i].ne, g_data[i], k_t[i].nbytes));
    unlink(in);
    T_OK(mio_writer_write_file(w, in));
    mio_writer_free(w);

    /* --split-max-tensors 2: 5 tensors -> 3 parts {p0.a,p0.b} {p1.a,p2.a} {p2.b} */
    mio_gguf_split_params p;
    mio_gguf_split_default_params(&p);
    T_EQ_INT(p.size, sizeof p);
    T_EQ_INT(p.max_tensors, 128);
    p.max_tensors = 2;
    plan_log log = {0};
    p.plan = plan_cb;
    p.plan_user = &log;
    uint32_t n = 0;
    T_OK(mio_gguf_split(in, "sw", &p, &n));
    T_EQ_INT(n, 3);
    T_EQ_INT(log.n, 3);
    T_EQ_STR(log.path[0], "sw-00001-of-00003.gguf");
    T_EQ_STR(log.path[2], "sw-00003-of-00003.gguf");
    char names[256], keys[256];
    part_facts("sw-00001-of-00003.gguf", names, sizeof names, keys, sizeof keys);
    T_EQ_STR(names, "p0.a,p0.b");
    T_EQ_STR(keys, "general.architecture,x.val,split.no,split.tensors.count,split.count");
    part_facts("sw-00002-of-00003.gguf", names, sizeof names, keys, sizeof keys);
    T_EQ_STR(names, "p1.a,p2.a");
    T_EQ_STR(keys, "split.no,split.tensors.count,split.count");
    part_facts("sw-00003-of-00003.gguf", names, sizeof names, keys, sizeof keys);
    T_EQ_STR(names, "p2.b");
    split_u("sw-00003-of-00003.gguf", "split.no", 2, MIO_GGUF_U16);
    split_u("sw-00003-of-00003.gguf", "split.count", 3, MIO_GGUF_U16);
    split_u("sw-00003-of-00003.gguf", "split.tensors.count", 5, MIO_GGUF_I32);
    for (int k = 0; k < 3; k++) T_EQ_INT(file_size(log.path[k]), (long)log.fb[k]);
    T_EQ_INT(log.nt[0], 2);
    T_EQ_INT(log.nt[1], 2);
    T_EQ_INT(log.nt[2], 1);

    /* merge back (mio_quantize, default params = verbatim): the input, byte for byte */
    mio_quantize_params q;
    mio_quantize_default_params(&q);
    unlink("sw_merged.gguf");
    T_OK(mio_quantize("sw-00001-of-00003.gguf", "sw_merged.gguf", &q));
    long a = file_size(in), b = file_size("sw_merged.gguf");
    T_EQ_INT(a, b);
    if (a == b && a > 0) {
        FILE *fa = fopen(in, "rb"), *fb = fopen("sw_merged.gguf", "rb");
        int same = 1, ca, cb;
        while ((ca = fgetc(fa)) != EOF) { cb = fgetc(fb); if (ca != cb) { same = 0; break; } }
        fclose(fa);
        fclose(fb);
        T_CHECK(same);
    }
    /* the split input can be split again (here into one part) */
    mio_gguf_split_default_params(&p);
    T_OK(mio_gguf_split("sw-00001-of-00003.gguf", "sw1", &p, &n));
    T_EQ_INT(n, 1);
    part_facts("sw1-00001-of-00001.gguf", names, sizeof names, keys, sizeof keys);
    T_EQ_STR(names, "p0.a,p0.b,p1.a,p2.a,p2.b");
    T_EQ_STR(keys, "general.architecture,x.val,split.no,split.tensors.count,split.count");
    for (int k = 1; k <= 3; k++) {
        char pp[64];
        snprintf(pp, sizeof pp, "sw-%05d-of-00003.gguf", k);
        unlink(pp);
    }
    unlink("sw1-00001-of-00001.gguf");
    unlink("sw_merged.gguf");

    /* --split-max-size: padded sizes 32, 20000, 96, 32, 32 */
    mio_gguf_split_default_params(&p);
    p.max_tensors = 0;
    p.max_bytes = 20032; /* {p0.a,p0.b} = 20032 fits; {p1.a,p2.a,p2.b} */
    p.dry_run = 1;
    memset(&log, 0, sizeof log);
    p.plan = plan_cb;
    p.plan_user = &log;
    T_OK(mio_gguf_split(in, "sz", &p, &n));
    T_EQ_INT(n, 2);
    T_EQ_INT(log.nt[0], 2);
    T_EQ_INT(log.nt[1], 3);
    T_CHECK(!file_exists("sz-00001-of-00002.gguf")); /* dry run */
    p.max_bytes = 100; /* a tensor over the limit still goes alone into its own part */
    memset(&log, 0, sizeof log);
    T_OK(mio_gguf_split(in, "sz", &p, &n));
    T_EQ_INT(n, 4);
    T_EQ_INT(log.nt[0], 1);
    T_EQ_INT(log.nt[1], 1);
    T_EQ_INT(log.nt[2], 1);
    T_EQ_INT(log.nt[3], 2);
    p.max_bytes = 10; /* the first part would be empty */
    p.dry_run = 0;
    T_STATUS(mio_gguf_split(in, "sz", &p, &n), MIO_ERR_LIMIT);
    T_MSG_HAS("a part would be empty");
    T_CHECK(!file_exists("sz-00001-of-00002.gguf"));

    /* --no-tensor-first-split: part 1 holds only the metadata */
    mio_gguf_split_default_params(&p);
    p.max_tensors = 2;
    p.no_tensor_first_split = 1;
    T_OK(mio_gguf_split(in, "nf", &p, &n));
    T_EQ_INT(n, 4);
    part_facts("nf-00001-of-00004.gguf", names, sizeof names, keys, sizeof keys);
    T_EQ_STR(names, "");
    T_EQ_STR(keys, "general.architecture,x.val,split.no,split.tensors.count,split.count");
    part_facts("nf-00002-of-00004.gguf", names, sizeof names, keys, sizeof keys);
    T_EQ_STR(names, "p0.a,p0.b");
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("nf-00001-of-00004.gguf", MIO_OPEN_SPLITS, &f));
    T_EQ_INT(mio_gguf_tensor_count(f), 5);
    mio_gguf_close(f);
    for (int k = 1; k <= 4; k++) {
        char pp[64];
        snprintf(pp, sizeof pp, "nf-%05d-of-00004.gguf", k);
        unlink(pp);
    }

    /* refusals */
    mio_gguf_split_default_params(&p);
    p.max_tensors = 0;
    T_STATUS(mio_gguf_split(in, "r", &p, &n), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("set exactly one of max_tensors and max_bytes");
    p.max_tensors = 2;
    p.max_bytes = 5;
    T_STATUS(mio_gguf_split(in, "r", &p, &n), MIO_ERR_INVALID_ARG);
    mio_gguf_split_default_params(&p);
    p.size = 8;
    T_STATUS(mio_gguf_split(in, "r", &p, &n), MIO_ERR_INVALID_ARG);
    mio_gguf_split_default_params(&p);
    T_STATUS(mio_gguf_split(in, "", &p, &n), MIO_ERR_INVALID_ARG);
    /* an output part naming the input */
    rename(in, "ow-00001-of-00001.gguf");
    T_STATUS(mio_gguf_split("ow-00001-of-00001.gguf", "ow", &p, &n), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("is one of the input files");
    T_EQ_INT(file_size("ow-00001-of-00001.gguf"), a);
    unlink("ow-00001-of-00001.gguf");
}

int main(void) {
    fill();
    test_one_of_one();
    test_good();
    test_errors();
    test_take_mapping();
    test_split_write();
    T_DONE();
}
