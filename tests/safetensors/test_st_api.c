/* SPDX-License-Identifier: MIT */
/* test_st_api.c — the safetensors reader API: metadata access (sorted, find),
 * tensor lookup and info fields, mio_st_slice on a 3-D tensor with hand-computed
 * values, MIO_BUFFER_TAKE ownership, and the stream reader (several frames in
 * one file/pipe, a byte-at-a-time callback, truncated streams). */
#include "st_util.h"

#include <fcntl.h>
#include <sys/wait.h>

/* ------------------------------ metadata ------------------------------ */
static void test_metadata(void) {
    mio_st_file *f = NULL;
    T_OK(st_try("{\"__metadata__\":{\"zeta\":\"1\",\"alpha\":\"two\",\"\":\"empty key\",\"mid\":\"\",\"Zeta\":\"cap\"},"
                "\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2, &f));
    if (!f) return;
    T_EQ_INT(mio_st_meta_count(f), 5);
    /* sorted by key, bytewise: "", "Zeta", "alpha", "mid", "zeta" */
    const char *keys[] = {"", "Zeta", "alpha", "mid", "zeta"};
    const char *vals[] = {"empty key", "cap", "two", "", "1"};
    for (int i = 0; i < 5; i++) {
        mio_str k, v;
        T_OK(mio_st_meta_at(f, i, &k, &v));
        T_EQ_MSTR(k, keys[i]);
        T_EQ_MSTR(v, vals[i]);
        mio_str v2 = {0};
        T_OK(mio_st_find_meta(f, keys[i], &v2));
        T_EQ_MSTR(v2, vals[i]);
    }
    mio_str v;
    T_STATUS(mio_st_find_meta(f, "beta", &v), MIO_ERR_NOT_FOUND);
    T_MSG_HAS("beta");
    T_STATUS(mio_st_find_meta(f, "zet", &v), MIO_ERR_NOT_FOUND);
    T_STATUS(mio_st_find_meta(f, "zetaa", &v), MIO_ERR_NOT_FOUND);
    T_STATUS(mio_st_find_meta(f, "w", &v), MIO_ERR_NOT_FOUND); /* tensors are not metadata */
    T_STATUS(mio_st_meta_at(f, 5, &v, &v), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_meta_at(f, -1, &v, &v), MIO_ERR_INVALID_ARG);
    T_OK(mio_st_meta_at(f, 0, NULL, &v)); /* either output may be NULL */
    T_STATUS(mio_st_find_meta(NULL, "a", &v), MIO_ERR_INVALID_ARG);
    T_EQ_INT(mio_st_find_tensor(f, "__metadata__"), -1);
    mio_st_close(f);
    /* no metadata at all */
    f = NULL;
    T_OK(st_try("{}", 0, &f));
    if (f) {
        T_EQ_INT(mio_st_meta_count(f), 0);
        T_STATUS(mio_st_find_meta(f, "", &v), MIO_ERR_NOT_FOUND);
        T_STATUS(mio_st_meta_at(f, 0, &v, &v), MIO_ERR_INVALID_ARG);
        mio_st_close(f);
    }
    /* NULL handles */
    T_EQ_INT(mio_st_tensor_count(NULL), -1);
    T_EQ_INT(mio_st_meta_count(NULL), -1);
    T_EQ_INT(mio_st_find_tensor(NULL, "a"), -1);
    T_EQ_U64(mio_st_header_size(NULL), 0);
    mio_st_close(NULL);
}

/* ------------------------------ tensor info ------------------------------ */
static void test_tensor_info(void) {
    /* two tensors, JSON order reversed from data order */
    const char *json = "{\"emb\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[4,16]},"
                       "\"bias\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    size_t len;
    uint8_t data[16];
    for (int i = 0; i < 16; i++) data[i] = (uint8_t)(0xa0 + i);
    uint8_t *b = st_build(json, strlen(json), data, 16, &len);
    mio_st_file *f = NULL;
    T_OK(mio_st_open_buffer(b, len, MIO_BUFFER_BORROW, &f));
    if (f) {
        T_EQ_INT(mio_st_tensor_count(f), 2);
        T_EQ_U64(mio_st_header_size(f), strlen(json));
        T_EQ_U64(mio_st_file_size(f), len);
        T_EQ_INT(mio_st_shard_count(f), 1);
        mio_st_tensor t;
        T_EQ_INT(mio_st_find_tensor(f, "emb"), 1);
        T_EQ_INT(mio_st_find_tensor(f, "bias"), 0);
        T_EQ_INT(mio_st_find_tensor(f, "em"), -1);
        T_EQ_INT(mio_st_find_tensor(f, "embx"), -1);
        T_OK(mio_st_tensor_info(f, 1, &t));
        T_EQ_MSTR(t.name, "emb");
        T_EQ_INT(t.dtype, MIO_ST_BF16);
        T_EQ_INT(t.type, MIO_TYPE_BF16);
        T_EQ_INT(t.n_dims, 2);
        T_CHECK(t.shape[0] == 2 && t.shape[1] == 3);
        T_EQ_U64(t.data_start, 4);
        T_EQ_U64(t.data_end, 16);
        T_EQ_U64(t.nbytes, 12);
        T_EQ_INT(t.shard, 0);
        /* zero copy: the view is inside the caller's buffer */
        T_CHECK((const uint8_t *)t.data == b + 8 + strlen(json) + 4);
        T_EQ_INT(((const uint8_t *)t.data)[0], 0xa4);
        /* the name view points into the header bytes (no escapes) */
        T_CHECK((const uint8_t *)t.name.ptr > b && (const uint8_t *)t.name.ptr < b + 8 + strlen(json));
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_EQ_MSTR(t.name, "bias");
        T_EQ_INT(t.type, MIO_TYPE_I32);
        int32_t v;
        memcpy(&v, t.data, 4);
        T_EQ_INT(v, (int32_t)0xa3a2a1a0);
        T_STATUS(mio_st_tensor_info(f, 2, &t), MIO_ERR_INVALID_ARG);
        T_STATUS(mio_st_tensor_info(f, -1, &t), MIO_ERR_INVALID_ARG);
        T_STATUS(mio_st_tensor_info(f, 0, NULL), MIO_ERR_INVALID_ARG);
        T_STATUS(mio_st_tensor_info(NULL, 0, &t), MIO_ERR_INVALID_ARG);
        mio_st_close(f);
    }
    free(b); /* borrowed: still ours */
    /* bad arguments to the openers */
    f = NULL;
    T_STATUS(mio_st_open_buffer(NULL, 10, 0, &f), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_open_buffer("x", 1, 0, NULL), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_open_buffer("x", 1, 1u << 9, &f), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_open(NULL, 0, &f), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_open(MIO_TEST_DATA "/safetensors/golden/scalar.safetensors", 1u << 9, &f), MIO_ERR_INVALID_ARG);
    T_CHECK(f == NULL);
}

/* ------------------------------ MIO_BUFFER_TAKE ------------------------------ */
/* The handle free()s a taken buffer exactly once: on close, or on a failed open.
 * (A leak or double free shows under ASan/LSan/valgrind.) */
static void test_take(void) {
    const char *json = "{\"t\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    size_t len;
    uint8_t *b = st_build(json, strlen(json), "\x01\x02\x03\x04", 4, &len);
    mio_st_file *f = NULL;
    T_OK(mio_st_open_buffer(b, len, MIO_BUFFER_TAKE, &f));
    if (f) {
        mio_st_tensor t;
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_CHECK((const uint8_t *)t.data == b + 8 + strlen(json)); /* no copy taken */
        uint16_t v[2];
        memcpy(v, t.data, 4);
        T_EQ_INT(v[0], 0x0201);
        T_EQ_INT(v[1], 0x0403);
        mio_st_close(f); /* frees b */
    }
    /* failed open with TAKE: the buffer is freed by the library */
    b = st_build(json, strlen(json), "\x01\x02\x03", 3, &len);
    f = NULL;
    T_STATUS(mio_st_open_buffer(b, len, MIO_BUFFER_TAKE, &f), MIO_ERR_INCOMPLETE_BUFFER);
    T_CHECK(f == NULL);
    b = st_build("{}", 2, NULL, 0, &len);
    T_STATUS(mio_st_open_buffer(b, len, MIO_BUFFER_TAKE, NULL), MIO_ERR_INVALID_ARG);
    b = st_build("{}", 2, NULL, 0, &len);
    T_STATUS(mio_st_open_buffer(b, len, MIO_BUFFER_TAKE | (1u << 9), &f), MIO_ERR_INVALID_ARG);
    /* a 7-byte taken buffer */
    b = malloc(7);
    memset(b, 0, 7);
    T_STATUS(mio_st_open_buffer(b, 7, MIO_BUFFER_TAKE, &f), MIO_ERR_HEADER_TOO_SMALL);
}

/* ------------------------------ slicing ------------------------------ */
/* I32 tensor of shape [3,4,5] whose element (a,b,c) holds 20a+5b+c. */
static mio_st_file *make_cube(void) {
    int32_t v[60];
    for (int i = 0; i < 60; i++) v[i] = i;
    const char *json = "{\"cube\":{\"dtype\":\"I32\",\"shape\":[3,4,5],\"data_offsets\":[0,240]},"
                       "\"nib\":{\"dtype\":\"F4\",\"shape\":[2,2],\"data_offsets\":[240,242]},"
                       "\"sc\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[242,246]}}";
    uint8_t data[246];
    memcpy(data, v, 240);
    data[240] = 0x12;
    data[241] = 0x34;
    float one = 1.0f;
    memcpy(data + 242, &one, 4);
    size_t len;
    uint8_t *b = st_build(json, strlen(json), data, sizeof data, &len);
    mio_st_file *f = NULL;
    T_OK(mio_st_open_buffer(b, len, MIO_BUFFER_TAKE, &f));
    return f;
}

static void expect_vals(const int32_t *got, size_t n_got, const int32_t *want, size_t n_want, const char *what) {
    int ok = n_got == n_want && memcmp(got, want, n_want * 4) == 0;
    if (!ok) {
        fprintf(stderr, "slice %s: got %zu values:", what, n_got);
        for (size_t i = 0; i < n_got && i < 64; i++) fprintf(stderr, " %d", got[i]);
        fprintf(stderr, "\n");
    }
    T_CHECK(ok);
}

static void test_slice(void) {
    mio_st_file *f = make_cube();
    if (!f) return;
    int64_t cube = mio_st_find_tensor(f, "cube");
    T_EQ_INT(cube, 0);
    int32_t out[80];
    size_t w = 0;
    /* one range: axis 0 [1,3) -> elements 20..59 */
    {
        uint64_t s[] = {1}, e[] = {3};
        T_OK(mio_st_slice(f, cube, 1, s, e, out, sizeof out, &w));
        T_EQ_U64(w, 160);
        int32_t want[40];
        for (int i = 0; i < 40; i++) want[i] = 20 + i;
        expect_vals(out, w / 4, want, 40, "[1:3]");
    }
    /* two ranges: [0,3) x [1,3) -> 20a + 5b + c for b in {1,2}, c in 0..4 */
    {
        uint64_t s[] = {0, 1}, e[] = {3, 3};
        T_OK(mio_st_slice(f, cube, 2, s, e, out, sizeof out, &w));
        T_EQ_U64(w, 120);
        int32_t want[30];
        int k = 0;
        for (int a = 0; a < 3; a++)
            for (int bb = 1; bb < 3; bb++)
                for (int c = 0; c < 5; c++) want[k++] = 20 * a + 5 * bb + c;
        expect_vals(out, w / 4, want, 30, "[0:3,1:3]");
        T_EQ_INT(out[0], 5);
        T_EQ_INT(out[29], 54);
    }
    /* three ranges: [1,2) x [2,4) x [1,4) -> 31 32 33 36 37 38 */
    {
        uint64_t s[] = {1, 2, 1}, e[] = {2, 4, 4};
        T_OK(mio_st_slice(f, cube, 3, s, e, out, sizeof out, &w));
        T_EQ_U64(w, 24);
        int32_t want[] = {31, 32, 33, 36, 37, 38};
        expect_vals(out, w / 4, want, 6, "[1:2,2:4,1:4]");
    }
    /* three ranges across two outer indices: [0,3) x [3,4) x [4,5) -> 19 39 59 */
    {
        uint64_t s[] = {0, 3, 4}, e[] = {3, 4, 5};
        T_OK(mio_st_slice(f, cube, 3, s, e, out, sizeof out, &w));
        T_EQ_U64(w, 12);
        int32_t want[] = {19, 39, 59};
        expect_vals(out, w / 4, want, 3, "[:,3,4]");
    }
    /* empty range on any axis: 0 bytes, OK, dst untouched */
    {
        uint64_t s[] = {1, 2}, e[] = {3, 2};
        out[0] = -7;
        w = 99;
        T_OK(mio_st_slice(f, cube, 2, s, e, out, sizeof out, &w));
        T_EQ_U64(w, 0);
        T_EQ_INT(out[0], -7);
        uint64_t s0[] = {2}, e0[] = {2};
        T_OK(mio_st_slice(f, cube, 1, s0, e0, NULL, 0, &w));
        T_EQ_U64(w, 0);
    }
    /* full: no ranges, and all three full ranges */
    {
        int32_t want[60];
        for (int i = 0; i < 60; i++) want[i] = i;
        T_OK(mio_st_slice(f, cube, 0, NULL, NULL, out, 240, &w));
        T_EQ_U64(w, 240);
        expect_vals(out, w / 4, want, 60, "full (0 ranges)");
        uint64_t s[] = {0, 0, 0}, e[] = {3, 4, 5};
        memset(out, 0, sizeof out);
        T_OK(mio_st_slice(f, cube, 3, s, e, out, 240, &w));
        expect_vals(out, w / 4, want, 60, "full (3 ranges)");
    }
    /* scalar: 0 ranges copies its 4 bytes; 1 range is more than its rank */
    {
        int64_t sc = mio_st_find_tensor(f, "sc");
        float x = 0;
        T_OK(mio_st_slice(f, sc, 0, NULL, NULL, &x, 4, &w));
        T_EQ_U64(w, 4);
        T_CHECK(x == 1.0f);
        uint64_t s[] = {0}, e[] = {1};
        T_STATUS(mio_st_slice(f, sc, 1, s, e, &x, 4, &w), MIO_ERR_INVALID_ARG);
    }
    /* errors */
    {
        uint64_t s[] = {0, 0, 0, 0}, e[] = {1, 1, 1, 1};
        T_STATUS(mio_st_slice(f, cube, 4, s, e, out, sizeof out, &w), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("cube");
        uint64_t s2[] = {2, 0}, e2[] = {1, 4};
        T_STATUS(mio_st_slice(f, cube, 2, s2, e2, out, sizeof out, &w), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("start > end");
        uint64_t s3[] = {0, 0, 0}, e3[] = {3, 4, 6};
        T_STATUS(mio_st_slice(f, cube, 3, s3, e3, out, sizeof out, &w), MIO_ERR_OUT_OF_RANGE);
        T_MSG_HAS("axis 2");
        uint64_t s4[] = {3}, e4[] = {4};
        T_STATUS(mio_st_slice(f, cube, 1, s4, e4, out, sizeof out, &w), MIO_ERR_OUT_OF_RANGE);
        uint64_t s5[] = {0}, e5[] = {1};
        T_STATUS(mio_st_slice(f, mio_st_find_tensor(f, "nib"), 1, s5, e5, out, sizeof out, &w), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("F4");
        /* dst one byte too small */
        uint64_t s6[] = {1, 2, 1}, e6[] = {2, 4, 4};
        out[0] = -7;
        T_STATUS(mio_st_slice(f, cube, 3, s6, e6, out, 23, &w), MIO_ERR_SIZE_MISMATCH);
        T_MSG_HAS("24");
        T_EQ_INT(out[0], -7);
        T_STATUS(mio_st_slice(f, cube, 0, NULL, NULL, out, 239, &w), MIO_ERR_SIZE_MISMATCH);
        T_STATUS(mio_st_slice(f, 3, 0, NULL, NULL, out, sizeof out, &w), MIO_ERR_INVALID_ARG);
        T_STATUS(mio_st_slice(NULL, 0, 0, NULL, NULL, out, sizeof out, &w), MIO_ERR_INVALID_ARG);
    }
    mio_st_close(f);
}

/* ------------------------------ stream frames ------------------------------ */
static uint8_t *frame(int which, size_t *len) {
    static float fa[6] = {1, 2, 3, 4, 5, 6};
    static uint8_t ub[5] = {9, 8, 7, 6, 5};
    static const uint64_t sa[] = {2, 3}, sb[] = {5};
    mio_st_entry ea = {"a", MIO_ST_F32, 2, sa, fa, 24};
    mio_st_entry eb = {"b", MIO_ST_U8, 1, sb, ub, 5};
    mio_st_meta m = {"k", "v"};
    void *out = NULL;
    mio_status st;
    if (which == 0) st = mio_st_save_buffer(&ea, 1, &m, 1, &out, len);
    else if (which == 1) st = mio_st_save_buffer(NULL, 0, NULL, 0, &out, len);
    else st = mio_st_save_buffer(&eb, 1, NULL, 0, &out, len);
    T_OK(st);
    return out;
}

static void check_frame(mio_st_file *f, int which) {
    if (!f) { T_CHECK(0); return; }
    mio_st_tensor t;
    if (which == 0) {
        T_EQ_INT(mio_st_tensor_count(f), 1);
        T_EQ_U64(mio_st_header_size(f), 88);
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_EQ_MSTR(t.name, "a");
        float x[6];
        memcpy(x, t.data, 24);
        T_CHECK(x[0] == 1.0f && x[5] == 6.0f);
        mio_str v;
        T_OK(mio_st_find_meta(f, "k", &v));
        T_EQ_MSTR(v, "v");
    } else if (which == 1) {
        T_EQ_INT(mio_st_tensor_count(f), 0);
        T_EQ_U64(mio_st_header_size(f), 8);
    } else {
        T_EQ_INT(mio_st_tensor_count(f), 1);
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_EQ_MSTR(t.name, "b");
        T_EQ_INT(((const uint8_t *)t.data)[0], 9);
        T_EQ_INT(((const uint8_t *)t.data)[4], 5);
        T_EQ_U64(mio_st_file_size(f), 69);
    }
}

typedef struct memsrc { const uint8_t *p; size_t n, pos; int calls; int fail_at; } memsrc;
static int64_t one_byte(void *user, void *buf, size_t len) {
    memsrc *m = user;
    m->calls++;
    if (m->fail_at && m->calls == m->fail_at) return -1;
    if (m->pos >= m->n || len == 0) return 0;
    *(uint8_t *)buf = m->p[m->pos++];
    return 1;
}

/* as much as asked for, as a pipe or file would give */
static int64_t chunks(void *user, void *buf, size_t len) {
    memsrc *m = user;
    size_t k = m->n - m->pos < len ? m->n - m->pos : len;
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return (int64_t)k;
}

static void test_stream(void) {
    size_t len[3];
    uint8_t *fr[3];
    for (int i = 0; i < 3; i++) fr[i] = frame(i, &len[i]);
    T_EQ_U64(len[0], 120); /* 8 + 82 JSON bytes padded to 88 + 24 */
    T_EQ_U64(len[1], 16);  /* 8 + "{}" padded to 8 */
    T_EQ_U64(len[2], 69);  /* 8 + 53 padded to 56 + 5 */
    size_t total = len[0] + len[1] + len[2];
    uint8_t *all = malloc(total);
    memcpy(all, fr[0], len[0]);
    memcpy(all + len[0], fr[1], len[1]);
    memcpy(all + len[0] + len[1], fr[2], len[2]);

    /* a temp file with three frames back to back */
    char *dir = st_tmpdir("st_api");
    char p[300];
    snprintf(p, sizeof p, "%s/frames.bin", dir);
    T_CHECK(st_write_all(p, all, total) == 0);
    int fd = open(p, O_RDONLY);
    T_CHECK(fd >= 0);
    off_t expect = 0;
    for (int i = 0; i < 3; i++) {
        mio_st_file *f = NULL;
        T_OK(mio_st_read_frame_fd(fd, &f));
        expect += (off_t)len[i];
        T_EQ_INT(lseek(fd, 0, SEEK_CUR), expect);
        check_frame(f, i);
        mio_st_close(f);
    }
    mio_st_file *f = NULL;
    T_STATUS(mio_st_read_frame_fd(fd, &f), MIO_ERR_HEADER_TOO_SMALL); /* clean end of stream */
    T_CHECK(f == NULL);
    close(fd);

    /* the same through a pipe, written by a child */
    int pfd[2];
    T_CHECK(pipe(pfd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        for (size_t i = 0; i < total; i += 7) {
            size_t n = total - i < 7 ? total - i : 7;
            if (write(pfd[1], all + i, n) != (ssize_t)n) _exit(1);
        }
        _exit(0);
    }
    close(pfd[1]);
    for (int i = 0; i < 3; i++) {
        f = NULL;
        T_OK(mio_st_read_frame_fd(pfd[0], &f));
        check_frame(f, i);
        mio_st_close(f);
    }
    T_STATUS(mio_st_read_frame_fd(pfd[0], &f), MIO_ERR_HEADER_TOO_SMALL);
    close(pfd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* a callback returning one byte at a time; the source ends exactly after each frame */
    memsrc m = {all, total, 0, 0, 0};
    for (int i = 0; i < 3; i++) {
        f = NULL;
        T_OK(mio_st_read_frame(one_byte, &m, &f));
        check_frame(f, i);
        T_EQ_U64(m.pos, i == 0 ? len[0] : i == 1 ? len[0] + len[1] : total);
        mio_st_close(f);
    }
    T_STATUS(mio_st_read_frame(one_byte, &m, &f), MIO_ERR_HEADER_TOO_SMALL);

    /* truncated streams: inside the length field, inside the header, inside the data. The
     * message counts what arrived of what the frame announced (frame 0: an 88-byte header,
     * 24 data bytes), never a read buffer's chunk */
    size_t cut[] = {5, 40, len[0] - 1, 0};
    mio_status want[] = {MIO_ERR_HEADER_TOO_SMALL, MIO_ERR_INVALID_HEADER_LENGTH, MIO_ERR_TRUNCATED, MIO_ERR_HEADER_TOO_SMALL};
    const char *want_msg[] = {
        "stream ended after 5 of the 8 bytes of the header length",
        "stream ended after 32 of the 88 header bytes the length field announces",
        "stream ended after 23 of the 24 data bytes the header announces",
        "stream ended after 0 of the 8 bytes of the header length",
    };
    for (int i = 0; i < 4; i++) {
        memsrc t = {all, cut[i], 0, 0, 0};
        f = NULL;
        mio_status st = mio_st_read_frame(one_byte, &t, &f);
        printf("stream cut at %zu: %s %s\n", cut[i], mio_status_name(st), mio_last_error());
        T_STATUS(st, want[i]);
        T_CHECK(f == NULL);
        T_EQ_STR(mio_last_error(), want_msg[i]);
    }
    /* truncated file through the fd reader: frame 0's data is short by 1 */
    snprintf(p, sizeof p, "%s/short.bin", dir);
    T_CHECK(st_write_all(p, all, len[0] - 1) == 0);
    fd = open(p, O_RDONLY);
    f = NULL;
    T_STATUS(mio_st_read_frame_fd(fd, &f), MIO_ERR_TRUNCATED);
    T_EQ_STR(mio_last_error(), "stream ended after 23 of the 24 data bytes the header announces");
    close(fd);
    /* a read error from the source: in the length field (3rd call), in the data (101st call:
     * 8 length + 88 header bytes, then 4 data bytes arrived) */
    memsrc e = {all, total, 0, 0, 3};
    T_STATUS(mio_st_read_frame(one_byte, &e, &f), MIO_ERR_IO);
    T_EQ_STR(mio_last_error(), "reading the stream failed after 2 of the 8 bytes of the header length");
    memsrc e2 = {all, total, 0, 0, 101};
    T_STATUS(mio_st_read_frame(one_byte, &e2, &f), MIO_ERR_IO);
    T_EQ_STR(mio_last_error(), "reading the stream failed after 4 of the 24 data bytes the header announces");
    /* issue 7 item 15: a header announcing 100,000,000 data bytes, then 1000 of them and the
     * end of the stream, read in large chunks (as from a pipe). The message used to be "after 0
     * of 100000000 bytes: stream ended after 1000 of the 1048568 bytes" (1048568: the first
     * buffer chunk). With 3,000,000 bytes sent the data spans three buffer growths: the
     * count is still the frame's */
    {
        const char *j = "{\"h\":{\"dtype\":\"U8\",\"shape\":[100000000],\"data_offsets\":[0,100000000]}}";
        const size_t sent[] = {1000, 3000000};
        const char *msg[] = {"stream ended after 1000 of the 100000000 data bytes the header announces",
                             "stream ended after 3000000 of the 100000000 data bytes the header announces"};
        uint8_t *d = calloc(1, sent[1]);
        for (int i = 0; i < 2 && d; i++) {
            size_t bl;
            uint8_t *hb = st_build(j, strlen(j), d, sent[i], &bl);
            memsrc h = {hb, bl, 0, 0, 0};
            f = NULL;
            mio_status st = mio_st_read_frame(chunks, &h, &f);
            printf("frame announcing 1e8 data bytes, %zu sent: %s %s\n", sent[i], mio_status_name(st), mio_last_error());
            T_STATUS(st, MIO_ERR_TRUNCATED);
            T_EQ_STR(mio_last_error(), msg[i]);
            T_CHECK(f == NULL);
            free(hb);
        }
        free(d);
    }
    /* a bad header inside the stream is reported with the reader's codes */
    {
        size_t bl;
        uint8_t *bad = st_build("{\"a\":1}", 7, NULL, 0, &bl);
        memsrc b = {bad, bl, 0, 0, 0};
        T_STATUS(mio_st_read_frame(one_byte, &b, &f), MIO_ERR_INVALID_JSON);
        free(bad);
        uint8_t big[8] = {0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0};
        memsrc g = {big, 8, 0, 0, 0};
        T_STATUS(mio_st_read_frame(one_byte, &g, &f), MIO_ERR_HEADER_TOO_LARGE);
    }
    /* a header announcing 2^40 data bytes, then end of stream: an error, not a crash or hang */
    {
        const char *j = "{\"h\":{\"dtype\":\"U8\",\"shape\":[1099511627776],\"data_offsets\":[0,1099511627776]}}";
        size_t bl;
        uint8_t *hb = st_build(j, strlen(j), "xyz", 3, &bl);
        memsrc h = {hb, bl, 0, 0, 0};
        f = NULL;
        mio_status st = mio_st_read_frame(one_byte, &h, &f);
        printf("frame announcing 2^40 data bytes: %s %s\n", mio_status_name(st), mio_last_error());
        /* the buffer grows only as bytes arrive (1 MiB first): the stream ends long before memory does */
        T_EQ_INT(st, MIO_ERR_TRUNCATED);
        T_MSG_HAS("stream ended after 3 of the 1099511627776 data bytes the header announces");
        T_CHECK(f == NULL);
        free(hb);
    }
    T_STATUS(mio_st_read_frame_fd(-1, &f), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_read_frame(NULL, NULL, &f), MIO_ERR_INVALID_ARG);
    st_rmdir(dir);
    for (int i = 0; i < 3; i++) mio_free(fr[i]);
    free(all);
}

int main(void) {
    test_metadata();
    test_tensor_info();
    test_take();
    test_slice();
    test_stream();
    T_DONE();
}
