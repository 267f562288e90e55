/* SPDX-License-Identifier: MIT */
/* test_state_dict.c — named state dicts (docs/CHECKPOINTS.md): the exact bytes
 * of a saved frame, the save-time rules (nothing written on a refusal), loads
 * through aliases, strict and lenient matching, frames inside a longer stream,
 * and the transactional load: for every validation rule a failing load leaves
 * every destination byte as it was (the failing tensor comes after a valid
 * one, so a load that copied as it went would show). */
#include "modelio.h"
#include "test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[] = "/tmp/mio_sd_XXXXXX";

/* 2 tensors: "a" I64 [1] = 7, "b" F32 [2] = {1.5, -2} */
static const int64_t k_a[1] = {7};
static const float k_b[2] = {1.5f, -2.0f};
static const uint64_t k_sa[1] = {1}, k_sb[2] = {2, 1};

static void two_entries(mio_st_entry e[2]) {
    e[0] = (mio_st_entry){"b", MIO_ST_F32, 2, k_sb, k_b, sizeof k_b};
    e[1] = (mio_st_entry){"a", MIO_ST_I64, 1, k_sa, k_a, sizeof k_a};
}

static void test_bytes(void) {
    mio_st_entry e[2];
    two_entries(e);
    void *buf = NULL;
    size_t len = 0;
    T_OK(mio_state_dict_save_buffer(e, 2, sizeof *e, &buf, &len));
    /* upstream's canonical form: dtype descending (I64 before F32), no __metadata__,
     * the header padded with spaces to a multiple of 8 */
    const char *json = "{\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                       "\"b\":{\"dtype\":\"F32\",\"shape\":[2,1],\"data_offsets\":[8,16]}}";
    size_t jl = strlen(json), hl = (jl + 7) / 8 * 8;
    T_EQ_U64(jl, 110);
    T_EQ_U64(hl, 112);
    T_EQ_U64(len, 8 + 112 + 16);
    const uint8_t *p = buf;
    if (len == 8 + 112 + 16) {
        uint64_t h;
        memcpy(&h, p, 8);
        T_EQ_U64(h, 112);
        T_CHECK(memcmp(p + 8, json, jl) == 0);
        T_CHECK(memcmp(p + 8 + jl, "      ", hl - jl) == 0);
        T_EQ_INT(p[120], 7); /* a = 7, little-endian */
        T_CHECK(memcmp(p + 128, "\x00\x00\xc0\x3f\x00\x00\x00\xc0", 8) == 0); /* 1.5f, -2.0f */
    }
    mio_free(buf);
}

static void test_save_refusals(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/refused.safetensors", g_dir);
    mio_st_entry e[2];
    two_entries(e);
    static const int32_t i32[2] = {1, 2};
    mio_st_entry bad = {"c", MIO_ST_I32, 1, k_sb, i32, sizeof i32};
    mio_st_entry three[3] = {e[0], e[1], bad};
    T_STATUS(mio_state_dict_save_file(path, three, 3, sizeof *three), MIO_ERR_UNSUPPORTED_TYPE);
    T_MSG_HAS("tensor #2 ('c') has dtype I32");
    T_CHECK(access(path, F_OK) != 0);
    e[1].name = "";
    T_STATUS(mio_state_dict_save_file(path, e, 2, sizeof *e), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("empty name");
    e[1].name = "__metadata__";
    T_STATUS(mio_state_dict_save_file(path, e, 2, sizeof *e), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("__metadata__");
    e[1].name = "b";
    e[1].dtype = MIO_ST_F32, e[1].n_dims = 2, e[1].shape = k_sb, e[1].data = k_b, e[1].nbytes = sizeof k_b;
    T_STATUS(mio_state_dict_save_file(path, e, 2, sizeof *e), MIO_ERR_DUPLICATE_TENSOR);
    T_MSG_HAS("'b' is given twice");
    e[1].name = "b\xff";
    T_STATUS(mio_state_dict_save_file(path, e, 2, sizeof *e), MIO_ERR_INVALID_UTF8);
    T_CHECK(access(path, F_OK) != 0);
    /* the good pair goes through */
    two_entries(e);
    T_OK(mio_state_dict_save_file(path, e, 2, sizeof *e));
    T_CHECK(access(path, F_OK) == 0);
    unlink(path);
}

/* destinations filled with 0xAB */
typedef struct dst {
    int64_t a[1];
    float b[2];
    mio_state_dict_dest d[2];
} dst;
static void dst_init(dst *x) {
    memset(x->a, 0xAB, sizeof x->a);
    memset(x->b, 0xAB, sizeof x->b);
    x->d[0] = (mio_state_dict_dest){"a", MIO_ST_I64, 1, k_sa, x->a, sizeof x->a};
    x->d[1] = (mio_state_dict_dest){"b", MIO_ST_F32, 2, k_sb, x->b, sizeof x->b};
}
static int untouched(const dst *x) {
    const uint8_t *p = (const uint8_t *)x->a, *q = (const uint8_t *)x->b;
    for (size_t i = 0; i < sizeof x->a; i++)
        if (p[i] != 0xAB) return 0;
    for (size_t i = 0; i < sizeof x->b; i++)
        if (q[i] != 0xAB) return 0;
    return 1;
}

static mio_st_file *open_mem(const mio_st_entry *e, size_t n, const mio_st_meta *meta, size_t n_meta, void **img) {
    size_t len;
    mio_st_file *f = NULL;
    if (mio_st_save_buffer(e, n, meta, n_meta, img, &len) || mio_st_open_buffer(*img, len, MIO_BUFFER_BORROW, &f)) {
        fprintf(stderr, "setup: %s\n", mio_last_error());
        exit(1);
    }
    return f;
}

static void test_load(void) {
    mio_st_entry e[2];
    two_entries(e);
    void *img;
    mio_st_file *f = open_mem(e, 2, NULL, 0, &img);
    dst x;
    dst_init(&x);
    size_t nl = 99;
    T_OK(mio_state_dict_load(f, x.d, 2, sizeof x.d[0], NULL, 0, 0, &nl));
    T_EQ_U64(nl, 2);
    T_EQ_INT(x.a[0], 7);
    T_CHECK(x.b[0] == 1.5f && x.b[1] == -2.0f);
    mio_st_close(f);
    mio_free(img);

    /* aliases: the file's "old.b" fills "b"; metadata in the file is ignored */
    mio_st_entry r[2] = {e[0], e[1]};
    r[0].name = "old.b";
    mio_st_meta meta = {"format", "pt"};
    f = open_mem(r, 2, &meta, 1, &img);
    dst_init(&x);
    mio_state_dict_alias al = {"old.b", "b"};
    T_OK(mio_state_dict_load(f, x.d, 2, sizeof x.d[0], &al, 1, 0, &nl));
    T_EQ_U64(nl, 2);
    T_CHECK(x.b[1] == -2.0f);
    /* without the alias: strict refuses the unexpected name, lenient fills only "a" */
    dst_init(&x);
    T_STATUS(mio_state_dict_load(f, x.d, 2, sizeof x.d[0], NULL, 0, 0, &nl), MIO_ERR_NOT_FOUND);
    T_MSG_HAS("unexpected tensor 'old.b'");
    T_EQ_U64(nl, 0);
    T_CHECK(untouched(&x));
    T_OK(mio_state_dict_load(f, x.d, 2, sizeof x.d[0], NULL, 0, MIO_STATE_DICT_LENIENT, &nl));
    T_EQ_U64(nl, 1);
    T_EQ_INT(x.a[0], 7);
    T_CHECK(((const uint8_t *)x.b)[0] == 0xAB); /* missing: left as it was */
    mio_st_close(f);
    mio_free(img);
}

/* One failing load per rule: status, message, destinations untouched. */
static void expect_fail(mio_st_file *f, dst *x, size_t n, const mio_state_dict_alias *al, size_t n_al, uint32_t flags,
                        mio_status want, const char *msg) {
    size_t nl = 99;
    T_STATUS(mio_state_dict_load(f, x->d, n, sizeof x->d[0], al, n_al, flags, &nl), want);
    T_MSG_HAS(msg);
    T_EQ_U64(nl, 0);
    T_CHECK(untouched(x));
}

static void test_transactional(void) {
    mio_st_entry e[2];
    two_entries(e);
    void *img;
    mio_st_file *f = open_mem(e, 2, NULL, 0, &img);
    dst x;
    /* a missing tensor: the destination list has a third one */
    float c[1];
    memset(c, 0xAB, sizeof c);
    static const uint64_t s1[1] = {1};
    mio_state_dict_dest d3[3];
    dst_init(&x);
    memcpy(d3, x.d, sizeof x.d);
    d3[2] = (mio_state_dict_dest){"c", MIO_ST_F32, 1, s1, c, sizeof c};
    size_t nl;
    T_STATUS(mio_state_dict_load(f, d3, 3, sizeof d3[0], NULL, 0, 0, &nl), MIO_ERR_NOT_FOUND);
    T_MSG_HAS("tensor 'c' (destination #2) is missing from the file");
    T_CHECK(untouched(&x));
    /* an unexpected tensor: only "a" as destination */
    dst_init(&x);
    expect_fail(f, &x, 1, NULL, 0, 0, MIO_ERR_NOT_FOUND, "unexpected tensor 'b'");
    /* doubly mapped: "a" renamed to "b" while "b" is there too */
    dst_init(&x);
    mio_state_dict_alias ab = {"a", "b"};
    expect_fail(f, &x, 2, &ab, 1, MIO_STATE_DICT_LENIENT, MIO_ERR_DUPLICATE_TENSOR, "destination 'b' is mapped twice");
    /* an alias to a name no destination has */
    dst_init(&x);
    mio_state_dict_alias az = {"b", "z"};
    expect_fail(f, &x, 2, &az, 1, 0, MIO_ERR_NOT_FOUND, "renamed 'z' by the aliases, has no destination");
    /* dtype: "b" is F32 in the file, BF16 in the destination (same byte count) */
    dst_init(&x);
    static const uint64_t s4[1] = {4};
    x.d[1].dtype = MIO_ST_BF16, x.d[1].n_dims = 1, x.d[1].shape = s4;
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_TYPE_MISMATCH, "tensor 'b' is F32 in the file, BF16 in the destination");
    /* shape: [1, 2] against the file's [2, 1] */
    dst_init(&x);
    static const uint64_t s12[2] = {1, 2};
    x.d[1].shape = s12;
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_SIZE_MISMATCH, "shape [2, 1] in the file, [1, 2] in the destination");
    /* the destination's own byte count */
    dst_init(&x);
    x.d[1].nbytes = 4;
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_SIZE_MISMATCH, "destination 'b' is 4 bytes, its dtype and shape make 8");
    dst_init(&x);
    x.d[1].data = NULL;
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_INVALID_ARG, "destination 'b' has a NULL data pointer");
    dst_init(&x);
    x.d[1].name = "a";
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_DUPLICATE_TENSOR, "destinations #0 and #1 are both named 'a'");
    dst_init(&x);
    x.d[1].dtype = MIO_ST_I32;
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_UNSUPPORTED_TYPE, "destination 'b' has dtype 15");
    dst_init(&x);
    mio_state_dict_alias twice[2] = {{"a", "x"}, {"a", "y"}};
    expect_fail(f, &x, 2, twice, 2, 0, MIO_ERR_DUPLICATE_KEY, "aliases #0 and #1 both rename 'a'");
    dst_init(&x);
    expect_fail(f, &x, 2, NULL, 0, 4u, MIO_ERR_INVALID_ARG, "unknown flags 0x4");
    dst_init(&x);
    T_STATUS(mio_state_dict_load(f, x.d, 2, 8, NULL, 0, 0, NULL), MIO_ERR_INVALID_ARG); /* dest_size too small */
    T_CHECK(untouched(&x));
    mio_st_close(f);
    mio_free(img);

    /* a file tensor of another dtype (I32: written by the plain safetensors writer) */
    static const int32_t i32[2] = {1, 2};
    mio_st_entry e3[2] = {e[1], {"b", MIO_ST_I32, 1, k_sb, i32, sizeof i32}};
    f = open_mem(e3, 2, NULL, 0, &img);
    dst_init(&x);
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_UNSUPPORTED_TYPE, "tensor 'b' of the file is I32");
    mio_st_close(f);
    mio_free(img);

    /* a NUL inside a file tensor's name (JSON "\u0000"): hand-made frame */
    const char *json = "{\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                       "\"b\\u0000\":{\"dtype\":\"F32\",\"shape\":[2,1],\"data_offsets\":[8,16]}}";
    size_t jl = strlen(json), hl = (jl + 7) / 8 * 8, len = 8 + hl + 16;
    uint8_t *raw = calloc(1, len);
    uint64_t h = hl;
    memcpy(raw, &h, 8), memcpy(raw + 8, json, jl), memset(raw + 8 + jl, ' ', hl - jl);
    memcpy(raw + 8 + hl, k_a, 8), memcpy(raw + 16 + hl, k_b, 8);
    T_OK(mio_st_open_buffer(raw, len, MIO_BUFFER_BORROW, &f));
    dst_init(&x);
    expect_fail(f, &x, 2, NULL, 0, 0, MIO_ERR_INVALID_TENSOR_INFO, "has a NUL byte in its name");
    mio_st_close(f);
    free(raw);
}

/* Two state dicts back to back in one stream, each loaded from its frame. */
static void test_stream(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/stream.bin", g_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    T_CHECK(fd >= 0);
    if (fd < 0) return;
    mio_st_entry e[2];
    two_entries(e);
    static const float k_c[1] = {42.0f};
    mio_st_entry c = {"c", MIO_ST_F32, 1, k_sa, k_c, sizeof k_c};
    T_OK(mio_state_dict_save_fd(fd, e, 2, sizeof *e));
    T_OK(mio_state_dict_save_fd(fd, &c, 1, sizeof c));
    T_EQ_INT(lseek(fd, 0, SEEK_SET), 0);
    mio_st_file *f = NULL;
    T_OK(mio_st_read_frame_fd(fd, &f));
    dst x;
    dst_init(&x);
    T_OK(mio_state_dict_load(f, x.d, 2, sizeof x.d[0], NULL, 0, 0, NULL));
    T_EQ_INT(x.a[0], 7);
    mio_st_close(f);
    f = NULL;
    T_OK(mio_st_read_frame_fd(fd, &f));
    float got = 0;
    mio_state_dict_dest dc = {"c", MIO_ST_F32, 1, k_sa, &got, sizeof got};
    T_OK(mio_state_dict_load(f, &dc, 1, sizeof dc, NULL, 0, 0, NULL));
    T_CHECK(got == 42.0f);
    mio_st_close(f);
    close(fd);
    unlink(path);
}

static void test_file(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/sd.safetensors", g_dir);
    mio_st_entry e[2];
    two_entries(e);
    T_OK(mio_state_dict_save_file(path, e, 2, sizeof *e));
    dst x;
    dst_init(&x);
    size_t nl;
    T_OK(mio_state_dict_load_file(path, x.d, 2, sizeof x.d[0], NULL, 0, 0, &nl));
    T_EQ_U64(nl, 2);
    T_CHECK(x.b[0] == 1.5f);
    /* a truncated file fails at open, destinations untouched */
    T_EQ_INT(truncate(path, 130), 0);
    dst_init(&x);
    T_STATUS(mio_state_dict_load_file(path, x.d, 2, sizeof x.d[0], NULL, 0, 0, &nl), MIO_ERR_INCOMPLETE_BUFFER);
    T_CHECK(untouched(&x));
    unlink(path);
}

int main(void) {
    if (!mkdtemp(g_dir)) return 1;
    test_bytes();
    test_save_refusals();
    test_load();
    test_transactional();
    test_stream();
    test_file();
    rmdir(g_dir);
    T_DONE();
}
