/* SPDX-License-Identifier: MIT */
/* test_st_sharded.c — sharded checkpoints: mio_st_save_sharded splits like
 * huggingface_hub (a tensor over the limit gets its own shard, appended before
 * the open one), writes model-0000K-of-0000N files and the index exactly as
 * json.dumps(indent=2, sort_keys=True) + "\n"; reopening the index gives every
 * tensor with its shard; broken indexes are refused with clear messages. */
#include "st_util.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>

#define N_T 7
static uint8_t g_data[N_T][160];
static const uint64_t sh_a[] = {10}, sh_b[] = {50}, sh_big[] = {150}, sh_c[] = {5}, sh_d[] = {30}, sh_e[] = {5}, sh_q[] = {5};
static mio_st_entry g_e[N_T] = {
    {"a", MIO_ST_F32, 1, sh_a, g_data[0], 40},     {"b", MIO_ST_U8, 1, sh_b, g_data[1], 50},
    {"big", MIO_ST_U8, 1, sh_big, g_data[2], 150}, {"c", MIO_ST_I32, 1, sh_c, g_data[3], 20},
    {"d", MIO_ST_U8, 1, sh_d, g_data[4], 30},      {"\xc3\xa9", MIO_ST_U8, 1, sh_e, g_data[5], 5},
    {"q\"\x7f", MIO_ST_U8, 1, sh_q, g_data[6], 5},
};

/* With max 100: big (150) is appended at once as shard 1; {a,b} (90) closes when
 * c would make it 110 -> shard 2; {c,d,é,q"DEL} (60) -> shard 3. */
static const char *g_index =
    "{\n  \"metadata\": {\n    \"total_size\": 300\n  },\n  \"weight_map\": {\n"
    "    \"a\": \"model-00002-of-00003.safetensors\",\n"
    "    \"b\": \"model-00002-of-00003.safetensors\",\n"
    "    \"big\": \"model-00001-of-00003.safetensors\",\n"
    "    \"c\": \"model-00003-of-00003.safetensors\",\n"
    "    \"d\": \"model-00003-of-00003.safetensors\",\n"
    "    \"q\\\"\\u007f\": \"model-00003-of-00003.safetensors\",\n"
    "    \"\\u00e9\": \"model-00003-of-00003.safetensors\"\n"
    "  }\n}\n";

/* handle order: by shard, then data order inside the shard (dtype desc, name) */
static const struct { int entry; uint32_t shard; uint64_t start; } g_order[N_T] = {
    {2, 0, 0}, {0, 1, 0}, {1, 1, 40}, {3, 2, 0}, {4, 2, 20}, {6, 2, 50}, {5, 2, 55},
};

static void check_shard_file(const char *dir, int k, const char *const *names, int n) {
    char p[400];
    snprintf(p, sizeof p, "%s/model-%05d-of-00003.safetensors", dir, k);
    mio_st_file *f = NULL;
    T_OK(mio_st_open(p, 0, &f));
    if (!f) return;
    T_EQ_INT(mio_st_tensor_count(f), n);
    for (int i = 0; i < n; i++) {
        mio_st_tensor t;
        T_OK(mio_st_tensor_info(f, i, &t));
        T_EQ_MSTR(t.name, names[i]);
    }
    mio_str v;
    T_OK(mio_st_find_meta(f, "format", &v));
    T_EQ_MSTR(v, "pt");
    mio_st_close(f);
}

static void write_text(const char *dir, const char *name, const char *text) {
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    T_CHECK(st_write_all(p, text, strlen(text)) == 0);
}

/* Open dir/name (an index); expect status and a message substring. */
static void expect_index(const char *dir, const char *name, mio_status want, const char *msg) {
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    mio_st_file *f = NULL;
    mio_status st = mio_st_open(p, 0, &f);
    printf("index %-22s %-28s %s\n", name, mio_status_name(st), st ? mio_last_error() : "");
    if (st != want) {
        fprintf(stderr, "index %s: got %s, expected %s: %s\n", name, mio_status_name(st), mio_status_name(want), mio_last_error());
        t_fail++;
    } else t_pass++;
    if (st && msg) T_MSG_HAS(msg);
    if (f) mio_st_close(f);
}

static void test_sharded_roundtrip(void) {
    for (int k = 0; k < N_T; k++)
        for (int j = 0; j < 160; j++) g_data[k][j] = (uint8_t)(k * 16 + j);
    char *dir = st_tmpdir("st_sharded");
    mio_st_meta m = {"format", "pt"};
    uint32_t ns = 0;
    T_OK(mio_st_save_sharded(dir, g_e, N_T, &m, 1, 100, &ns));
    T_EQ_INT(ns, 3);
    T_EQ_INT(st_count_prefix(dir, ""), 2 + 4);
    T_EQ_INT(st_count_prefix(dir, "model-0000"), 3);
    T_EQ_INT(st_count_prefix(dir, "model.safetensors"), 1); /* the index only */
    char p[400];
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    size_t il = 0;
    uint8_t *ib = t_read_file(p, &il);
    int same = ib && il == strlen(g_index) && memcmp(ib, g_index, il) == 0;
    if (!same && ib) fprintf(stderr, "index bytes:\n%.*s\nexpected:\n%s", (int)il, (const char *)ib, g_index);
    T_CHECK(same);
    free(ib);

    const char *s1[] = {"big"}, *s2[] = {"a", "b"}, *s3[] = {"c", "d", "q\"\x7f", "\xc3\xa9"};
    check_shard_file(dir, 1, s1, 1);
    check_shard_file(dir, 2, s2, 2);
    check_shard_file(dir, 3, s3, 4);

    for (int mode = 0; mode < 2; mode++) {
        mio_st_file *f = NULL;
        T_OK(mio_st_open(p, mode ? MIO_OPEN_READ : 0, &f));
        if (!f) continue;
        T_EQ_INT(mio_st_shard_count(f), 3);
        T_EQ_INT(mio_st_tensor_count(f), N_T);
        for (int i = 0; i < N_T; i++) {
            mio_st_tensor t;
            const mio_st_entry *e = &g_e[g_order[i].entry];
            T_OK(mio_st_tensor_info(f, i, &t));
            T_EQ_MSTR(t.name, e->name);
            T_EQ_INT(t.shard, g_order[i].shard);
            T_EQ_U64(t.data_start, g_order[i].start);
            T_EQ_U64(t.nbytes, e->nbytes);
            T_EQ_INT(t.dtype, e->dtype);
            T_CHECK(t.data && memcmp(t.data, e->data, e->nbytes) == 0);
            T_EQ_INT(mio_st_find_tensor(f, e->name), i);
        }
        T_EQ_INT(mio_st_find_tensor(f, "zz"), -1);
        mio_str v;
        T_OK(mio_st_find_meta(f, "format", &v));
        T_EQ_MSTR(v, "pt");
        mio_st_close(f);
    }

    /* ---- broken indexes, next to the good shards ---- */
    const char *S1 = "model-00001-of-00003.safetensors", *S2 = "model-00002-of-00003.safetensors",
               *S3 = "model-00003-of-00003.safetensors";
    char buf[2048];
#define MAP(total, extra_a, extra_d)                                                                                         \
    snprintf(buf, sizeof buf,                                                                                                \
             "{\"metadata\":{\"total_size\":%d},\"weight_map\":{\"a\":\"%s\",\"b\":\"%s\",\"big\":\"%s\",\"c\":\"%s\"%s%s," \
             "\"\\u00e9\":\"%s\",\"q\\\"\\u007f\":\"%s\"}}",                                                                  \
             total, extra_a, S2, S1, S3, extra_d, "", S3, S3)
    /* sanity: the compact form of the good map is accepted */
    MAP(300, S2, ",\"d\":\"model-00003-of-00003.safetensors\"");
    write_text(dir, "good.index.json", buf);
    expect_index(dir, "good.index.json", MIO_OK, NULL);
    /* a tensor mapped to the wrong shard */
    MAP(300, S3, ",\"d\":\"model-00003-of-00003.safetensors\"");
    write_text(dir, "wrong.index.json", buf);
    expect_index(dir, "wrong.index.json", MIO_ERR_INVALID_METADATA, "'a'");
    /* a tensor missing from the map (total adjusted) */
    MAP(270, S2, "");
    write_text(dir, "missing.index.json", buf);
    expect_index(dir, "missing.index.json", MIO_ERR_INVALID_METADATA, "'d'");
    /* a tensor missing from the map listed after tensors with non-ASCII / quote names that ARE
     * listed: the message must name the missing tensor (é), not a listed one (q"DEL) */
    snprintf(buf, sizeof buf,
             "{\"weight_map\":{\"a\":\"%s\",\"b\":\"%s\",\"big\":\"%s\",\"c\":\"%s\",\"d\":\"%s\",\"q\\\"\\u007f\":\"%s\"}}",
             S2, S2, S1, S3, S3, S3);
    write_text(dir, "missing2.index.json", buf);
    expect_index(dir, "missing2.index.json", MIO_ERR_INVALID_METADATA, "'\\xc3\\xa9'");
    /* the whole message, exactly (issue 7 item 11 made this check a hash lookup per tensor;
     * the text stays): two tensors unlisted, b in shard 2 and d in shard 3 — the first in
     * handle order (shard, then data order) is named */
    snprintf(buf, sizeof buf,
             "{\"weight_map\":{\"a\":\"%s\",\"big\":\"%s\",\"c\":\"%s\",\"\\u00e9\":\"%s\",\"q\\\"\\u007f\":\"%s\"}}", S2, S1,
             S3, S3, S3);
    write_text(dir, "unlisted.index.json", buf);
    expect_index(dir, "unlisted.index.json", MIO_ERR_INVALID_METADATA, NULL);
    snprintf(p, sizeof p, "%s/unlisted.index.json: shard %s holds tensor 'b', which weight_map does not list", dir, S2);
    T_EQ_STR(mio_last_error(), p);
    /* the same with only d unlisted: named with its shard (the last one) */
    MAP(270, S2, "");
    write_text(dir, "unlisted2.index.json", buf);
    expect_index(dir, "unlisted2.index.json", MIO_ERR_INVALID_METADATA, NULL);
    snprintf(p, sizeof p, "%s/unlisted2.index.json: shard %s holds tensor 'd', which weight_map does not list", dir, S3);
    T_EQ_STR(mio_last_error(), p);
    /* a mapped tensor absent from its shard */
    MAP(300, S2, ",\"d\":\"model-00003-of-00003.safetensors\",\"ghost\":\"model-00001-of-00003.safetensors\"");
    write_text(dir, "ghost.index.json", buf);
    expect_index(dir, "ghost.index.json", MIO_ERR_NOT_FOUND, "'ghost'");
    /* wrong total_size */
    MAP(301, S2, ",\"d\":\"model-00003-of-00003.safetensors\"");
    write_text(dir, "total.index.json", buf);
    expect_index(dir, "total.index.json", MIO_ERR_INVALID_METADATA, "total_size");
    /* total_size not an integer */
    snprintf(buf, sizeof buf, "{\"metadata\":{\"total_size\":\"150\"},\"weight_map\":{\"big\":\"%s\"}}", S1);
    write_text(dir, "totalstr.index.json", buf);
    expect_index(dir, "totalstr.index.json", MIO_ERR_INVALID_METADATA, "total_size");
    /* a shard file missing */
    MAP(300, S2, ",\"d\":\"model-00004-of-00004.safetensors\"");
    write_text(dir, "noshard.index.json", buf);
    expect_index(dir, "noshard.index.json", MIO_ERR_NOT_FOUND, "model-00004-of-00004.safetensors");
    /* path traversal and absolute paths in weight_map values */
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"../%s\"}}", S1);
    write_text(dir, "dotdot.index.json", buf);
    expect_index(dir, "dotdot.index.json", MIO_ERR_INVALID_METADATA, "'big'");
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"/etc/passwd\"}}");
    write_text(dir, "abs.index.json", buf);
    expect_index(dir, "abs.index.json", MIO_ERR_INVALID_METADATA, "'big'");
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"..\"}}");
    write_text(dir, "dd.index.json", buf);
    expect_index(dir, "dd.index.json", MIO_ERR_INVALID_METADATA, "'big'");
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"\"}}");
    write_text(dir, "empty.index.json", buf);
    expect_index(dir, "empty.index.json", MIO_ERR_INVALID_METADATA, "'big'");
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":1}}");
    write_text(dir, "num.index.json", buf);
    expect_index(dir, "num.index.json", MIO_ERR_INVALID_METADATA, "'big'");
    /* an escaped NUL would cut the name short: "S1\u0000x" read as S1, "big\u0000x" as big */
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"%s\\u0000x\"}}", S1);
    write_text(dir, "nulfile.index.json", buf);
    expect_index(dir, "nulfile.index.json", MIO_ERR_INVALID_METADATA, "weight_map entry 'big' must name a shard file");
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\\u0000x\":\"%s\"}}", S1);
    write_text(dir, "nulname.index.json", buf);
    expect_index(dir, "nulname.index.json", MIO_ERR_INVALID_METADATA, "weight_map tensor name 'big\\u0000...' holds a NUL byte");
    /* not JSON, no weight_map */
    write_text(dir, "notjson.index.json", "{\"weight_map\":");
    expect_index(dir, "notjson.index.json", MIO_ERR_INVALID_METADATA, "notjson.index.json");
    write_text(dir, "nomap.index.json", "{\"metadata\":{}}");
    expect_index(dir, "nomap.index.json", MIO_ERR_INVALID_METADATA, "weight_map");
    /* a tensor listed twice in the map */
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"%s\",\"big\":\"%s\"}}", S1, S1);
    write_text(dir, "twice.index.json", buf);
    expect_index(dir, "twice.index.json", MIO_ERR_INVALID_METADATA, "'big'");
    /* the same tensor in two shards */
    mio_st_entry dup = g_e[2];
    snprintf(p, sizeof p, "%s/extra.safetensors", dir);
    T_OK(mio_st_save_file(p, &dup, 1, NULL, 0));
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"big\":\"%s\",\"other\":\"extra.safetensors\"}}", S1);
    write_text(dir, "dupshard.index.json", buf);
    expect_index(dir, "dupshard.index.json", MIO_ERR_DUPLICATE_TENSOR, "'big'");
    /* a shard that is itself invalid: the message says which shard */
    snprintf(p, sizeof p, "%s/broken.safetensors", dir);
    T_CHECK(st_write_all(p, "\x02\0\0\0\0\0\0\0{", 10) == 0);
    snprintf(buf, sizeof buf, "{\"weight_map\":{\"x\":\"broken.safetensors\"}}");
    write_text(dir, "brokenshard.index.json", buf);
    expect_index(dir, "brokenshard.index.json", MIO_ERR_INVALID_JSON, "broken.safetensors");
    st_rmdir(dir);
}

static void test_single_and_edges(void) {
    for (int k = 0; k < N_T; k++)
        for (int j = 0; j < 160; j++) g_data[k][j] = (uint8_t)(k * 16 + j);
    /* everything fits in one shard: model.safetensors, no index */
    char *dir = st_tmpdir("st_single");
    uint32_t ns = 0;
    T_OK(mio_st_save_sharded(dir, g_e, N_T, NULL, 0, 1000, &ns));
    T_EQ_INT(ns, 1);
    T_EQ_INT(st_count_prefix(dir, ""), 3);
    char p[400];
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    T_CHECK(st_file_exists(p));
    mio_st_file *f = NULL;
    T_OK(mio_st_open(p, 0, &f));
    if (f) {
        T_EQ_INT(mio_st_tensor_count(f), N_T);
        T_EQ_INT(mio_st_shard_count(f), 1);
        /* same bytes as a plain save */
        void *out;
        size_t ol, fl;
        T_OK(mio_st_save_buffer(g_e, N_T, NULL, 0, &out, &ol));
        uint8_t *fb = t_read_file(p, &fl);
        T_CHECK(fb && fl == ol && memcmp(fb, out, ol) == 0);
        free(fb);
        mio_free(out);
        mio_st_close(f);
    }
    /* the exact limit still fits: 300 bytes, max 300 */
    st_rmdir(dir);
    dir = st_tmpdir("st_exact");
    T_OK(mio_st_save_sharded(dir, g_e, N_T, NULL, 0, 300, &ns));
    T_EQ_INT(ns, 1);
    st_rmdir(dir);
    /* max 1: every tensor is over the limit and gets its own shard, in list order */
    dir = st_tmpdir("st_each");
    T_OK(mio_st_save_sharded(dir, g_e, N_T, NULL, 0, 1, &ns));
    T_EQ_INT(ns, N_T);
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    f = NULL;
    T_OK(mio_st_open(p, 0, &f));
    if (f) {
        for (int i = 0; i < N_T; i++) {
            mio_st_tensor t;
            T_OK(mio_st_tensor_info(f, i, &t));
            T_EQ_MSTR(t.name, g_e[i].name);
            T_EQ_INT(t.shard, i);
        }
        mio_st_close(f);
    }
    snprintf(p, sizeof p, "%s/model-00007-of-00007.safetensors", dir);
    T_CHECK(st_file_exists(p));
    st_rmdir(dir);
    /* validation happens before any shard is written */
    dir = st_tmpdir("st_bad");
    mio_st_entry bad[2] = {g_e[0], g_e[0]};
    T_STATUS(mio_st_save_sharded(dir, bad, 2, NULL, 0, 10, &ns), MIO_ERR_DUPLICATE_TENSOR);
    T_EQ_INT(st_count_prefix(dir, ""), 2);
    T_STATUS(mio_st_save_sharded(dir, g_e, N_T, NULL, 0, 0, &ns), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_save_sharded(NULL, g_e, N_T, NULL, 0, 10, &ns), MIO_ERR_INVALID_ARG);
    /* re-saving as one shard over a 3-shard save: the stale index must not stay behind
     * (huggingface save_pretrained removes stale shard/index files) */
    {
        char *d2 = st_tmpdir("st_stale");
        T_OK(mio_st_save_sharded(d2, g_e, N_T, NULL, 0, 100, &ns));
        T_EQ_INT(ns, 3);
        T_OK(mio_st_save_sharded(d2, g_e, N_T, NULL, 0, 1000, &ns));
        T_EQ_INT(ns, 1);
        int stale_index = st_count_prefix(d2, "model.safetensors.index.json");
        int stale_shards = st_count_prefix(d2, "model-0000");
        printf("after a 1-shard save over a 3-shard save: %d stale index, %d stale shards\n", stale_index, stale_shards);
        T_EQ_INT(stale_index, 0);
        T_EQ_INT(stale_shards, 0); /* the 3 old shards too (their names are 32 bytes long) */
        T_EQ_INT(st_count_prefix(d2, ""), 3); /* ., .., model.safetensors */
        /* 3 shards, then 2: the model-0000K-of-00003 files go, a look-alike with a sign
         * instead of a digit and a longer name stay (only the exact names are touched) */
        char q[400];
        snprintf(q, sizeof q, "%s/model-+0001-of-00003.safetensors", d2);
        T_CHECK(st_write_all(q, "x", 1) == 0);
        snprintf(q, sizeof q, "%s/model-00001-of-00003.safetensors.bak", d2);
        T_CHECK(st_write_all(q, "x", 1) == 0);
        T_OK(mio_st_save_sharded(d2, g_e, N_T, NULL, 0, 100, &ns));
        T_EQ_INT(ns, 3);
        T_OK(mio_st_save_sharded(d2, g_e, N_T, NULL, 0, 250, &ns)); /* {a, b, big} 240, {c, d, é, q"DEL} 60 */
        T_EQ_INT(ns, 2);
        T_EQ_INT(st_count_prefix(d2, "model-00001-of-00003.safetensors"), 1); /* the .bak */
        T_EQ_INT(st_count_prefix(d2, "model-00003-of-00003"), 0);
        T_EQ_INT(st_count_prefix(d2, "model-+0001"), 1);
        T_EQ_INT(st_count_prefix(d2, "model-0000"), 3); /* 2 new shards + the .bak */
        T_EQ_INT(st_count_prefix(d2, "model.safetensors"), 1); /* the index; model.safetensors is gone */
        st_rmdir(d2);
    }
    /* no tensors: one (empty) model.safetensors */
    T_OK(mio_st_save_sharded(dir, NULL, 0, NULL, 0, 10, &ns));
    T_EQ_INT(ns, 1);
    st_rmdir(dir);
}


/* Names in dir containing ".tmp" (temp files of an atomic write). */
static int count_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp")) n++;
    closedir(d);
    return n;
}

/* The old checkpoint in dir opens through its index with exactly old1, old2, old3,
 * one per shard, and its data bytes. */
static void check_old_checkpoint(const char *dir) {
    char p[400];
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    mio_st_file *f = NULL;
    T_OK(mio_st_open(p, 0, &f));
    if (!f) return;
    T_EQ_INT(mio_st_shard_count(f), 3);
    T_EQ_INT(mio_st_tensor_count(f), 3);
    static const char *const names[] = {"old1", "old2", "old3"};
    for (int i = 0; i < 3; i++) {
        mio_st_tensor t;
        T_OK(mio_st_tensor_info(f, i, &t));
        T_EQ_MSTR(t.name, names[i]);
        T_EQ_INT(t.shard, i);
        T_CHECK(t.nbytes == 1000 && ((const uint8_t *)t.data)[0] == 0xa0 + i);
    }
    mio_st_close(f);
}

/* Issue 7 item 3: a save that fails part-way (here: EFBIG from RLIMIT_FSIZE, as a disk
 * filling up would) must leave the checkpoint that was there intact. The old code renamed
 * each shard into place as soon as it was written, so new shard 1 replaced old shard 1
 * under the old index and the checkpoint no longer opened. Both layouts have 3 shards, so
 * the new shard names are the old ones. */
static void test_failed_save_keeps_old(void) {
    static uint8_t old_data[3][1000], new_data[3][40000];
    for (int i = 0; i < 3; i++) {
        memset(old_data[i], 0xa0 + i, sizeof old_data[i]);
        memset(new_data[i], 0xb0 + i, sizeof new_data[i]);
    }
    static const uint64_t s1000[] = {1000}, s1[] = {1}, s40000[] = {40000};
    /* old: 3 x 1000 bytes, limit 1500 -> one tensor a shard, each file about 1.1 KB */
    mio_st_entry old_e[3] = {{"old1", MIO_ST_U8, 1, s1000, old_data[0], 1000},
                             {"old2", MIO_ST_U8, 1, s1000, old_data[1], 1000},
                             {"old3", MIO_ST_U8, 1, s1000, old_data[2], 1000}};
    /* new, limit 40000: {new1} (1 byte) closes when new2 comes, {new2}, {new3} (40000 each):
     * shard 1 is about 70 bytes, shard 2 about 40 KB */
    mio_st_entry new_e[3] = {{"new1", MIO_ST_U8, 1, s1, new_data[0], 1},
                             {"new2", MIO_ST_U8, 1, s40000, new_data[1], 40000},
                             {"new3", MIO_ST_U8, 1, s40000, new_data[2], 40000}};
    char *dir = st_tmpdir("st_failsave");
    uint32_t ns = 0;
    T_OK(mio_st_save_sharded(dir, old_e, 3, NULL, 0, 1500, &ns));
    T_EQ_INT(ns, 3);
    check_old_checkpoint(dir);

    struct rlimit saved;
    T_CHECK(getrlimit(RLIMIT_FSIZE, &saved) == 0);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
    for (int round = 0; round < 2; round++) {
        /* round 0: files up to 16 KiB — shard 1 is written, shard 2 fails.
         * round 1: files up to 150 bytes — the new shards are tiny (1 byte each) but the
         * index (about 230 bytes) fails: the last file, after every shard was written */
        mio_st_entry e[3];
        memcpy(e, new_e, sizeof e);
        uint64_t lim = 16384, max = 40000;
        if (round == 1) {
            e[1].shape = e[2].shape = s1;
            e[1].nbytes = e[2].nbytes = 1;
            lim = 150;
            max = 1;
        }
        struct rlimit rl = {lim, saved.rlim_max};
        T_CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
        mio_status st = mio_st_save_sharded(dir, e, 3, NULL, 0, max, &ns);
        char msg[600];
        snprintf(msg, sizeof msg, "%s", mio_last_error());
        T_CHECK(setrlimit(RLIMIT_FSIZE, &saved) == 0); /* before any printing to a file */
        printf("save with RLIMIT_FSIZE %llu: %s %s\n", (unsigned long long)lim, mio_status_name(st), msg);
        T_EQ_INT(st, MIO_ERR_IO);
        T_CHECK(strstr(msg, strerror(EFBIG)) != NULL);
        T_CHECK(strstr(msg, round == 0 ? "model-00002-of-00003.safetensors" : "model.safetensors.index.json") != NULL);
        check_old_checkpoint(dir);
        T_EQ_INT(count_tmp(dir), 0);
        T_EQ_INT(st_count_prefix(dir, ""), 2 + 4); /* ., .., 3 old shards, the old index */
    }
    signal(SIGXFSZ, old_handler);

    /* without the limit the same save replaces the checkpoint */
    T_OK(mio_st_save_sharded(dir, new_e, 3, NULL, 0, 40000, &ns));
    T_EQ_INT(ns, 3);
    char p[400];
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    mio_st_file *f = NULL;
    T_OK(mio_st_open(p, 0, &f));
    if (f) {
        static const char *const names[] = {"new1", "new2", "new3"};
        for (int i = 0; i < 3; i++) {
            mio_st_tensor t;
            T_OK(mio_st_tensor_info(f, i, &t));
            T_EQ_MSTR(t.name, names[i]);
            T_CHECK(((const uint8_t *)t.data)[0] == 0xb0 + i);
        }
        mio_st_close(f);
    }
    T_EQ_INT(count_tmp(dir), 0);
    T_EQ_INT(st_count_prefix(dir, ""), 2 + 4);
    st_rmdir(dir);
}

int main(void) {
    test_sharded_roundtrip();
    test_single_and_edges();
    test_failed_save_keeps_old();
    T_DONE();
}
