/* SPDX-License-Identifier: MIT */
/* test_st_write.c — the safetensors writer: validation before any byte (no file
 * created, callback never called), upstream's canonical order (dtype descending,
 * then name), serde_json escaping and space padding checked byte for byte,
 * mio_st_save_cb, mio_st_save_fd, and the atomic path save under an injected
 * EFBIG failure. */
#include "st_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

typedef struct sink { uint8_t buf[1 << 16]; size_t n; int calls; int fail_at; } sink;
static int sink_fn(void *user, const void *data, size_t len) {
    sink *s = user;
    s->calls++;
    if (s->fail_at && s->calls == s->fail_at) return 1;
    if (s->n + len > sizeof s->buf) return 1;
    memcpy(s->buf + s->n, data, len);
    s->n += len;
    return 0;
}

static const uint64_t g_s2[] = {2}, g_s4[] = {4}, g_s3[] = {3};
static const uint8_t g_bytes[64] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* ------------------------------ validation ------------------------------ */
typedef struct bad_case {
    const char *label;
    mio_st_entry e[2];
    size_t n;
    mio_st_meta m[2];
    size_t n_meta;
    mio_status expect;
    const char *msg;
} bad_case;

static void test_validation(void) {
    const bad_case c[] = {
        {"empty name", {{"", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_INVALID_ARG, "empty name"},
        {"NULL name", {{NULL, MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_INVALID_ARG, NULL},
        {"__metadata__ name", {{"__metadata__", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_INVALID_ARG, "__metadata__"},
        {"duplicate names", {{"w", MIO_ST_U8, 1, g_s2, g_bytes, 2}, {"w", MIO_ST_F32, 1, g_s2, g_bytes, 8}}, 2, {{0}}, 0,
         MIO_ERR_DUPLICATE_TENSOR, "'w'"},
        {"data length short", {{"w", MIO_ST_F32, 1, g_s2, g_bytes, 7}}, 1, {{0}}, 0, MIO_ERR_SIZE_MISMATCH, "'w'"},
        {"data length long", {{"w", MIO_ST_F32, 1, g_s2, g_bytes, 9}}, 1, {{0}}, 0, MIO_ERR_SIZE_MISMATCH, "8"},
        {"data NULL", {{"w", MIO_ST_F32, 1, g_s2, NULL, 8}}, 1, {{0}}, 0, MIO_ERR_INVALID_ARG, NULL},
        {"unknown dtype", {{"w", 22, 1, g_s2, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_UNSUPPORTED_TYPE, NULL},
        {"F4 odd count", {{"w", MIO_ST_F4, 1, g_s3, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_MISALIGNED_SLICE, NULL},
        {"invalid UTF-8 name", {{"bad\xff", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_INVALID_UTF8, NULL},
        {"surrogate in name (CESU)", {{"\xed\xa0\x80", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{0}}, 0, MIO_ERR_INVALID_UTF8, NULL},
        {"invalid UTF-8 metadata key", {{"w", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{"k\xc3", "v"}}, 1, MIO_ERR_INVALID_UTF8, NULL},
        {"invalid UTF-8 metadata value", {{"w", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{"k", "\x80"}}, 1, MIO_ERR_INVALID_UTF8, NULL},
        {"duplicate metadata key", {{"w", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{"k", "1"}, {"k", "2"}}, 2, MIO_ERR_INVALID_METADATA,
         "'k'"},
        {"NULL metadata value", {{"w", MIO_ST_U8, 1, g_s2, g_bytes, 2}}, 1, {{"k", NULL}}, 1, MIO_ERR_INVALID_ARG, NULL},
        /* the bad entry is the second one: still nothing written */
        {"second entry bad", {{"ok", MIO_ST_U8, 1, g_s2, g_bytes, 2}, {"w", MIO_ST_U8, 1, g_s2, g_bytes, 3}}, 2, {{0}}, 0,
         MIO_ERR_SIZE_MISMATCH, "'w'"},
    };
    char *dir = st_tmpdir("st_write_val");
    char path[300], old_path[300];
    snprintf(path, sizeof path, "%s/out.safetensors", dir);
    snprintf(old_path, sizeof old_path, "%s/old.safetensors", dir);
    T_CHECK(st_write_all(old_path, "OLD CONTENT", 11) == 0);
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        mio_status st = mio_st_save_file(path, c[i].e, c[i].n, c[i].m, c[i].n_meta);
        printf("writer refuses %-30s %-28s %s\n", c[i].label, mio_status_name(st), mio_last_error());
        if (st != c[i].expect) {
            fprintf(stderr, "writer '%s': got %s, expected %s (%s)\n", c[i].label, mio_status_name(st), mio_status_name(c[i].expect),
                    mio_last_error());
            t_fail++;
        } else t_pass++;
        if (c[i].msg) T_MSG_HAS(c[i].msg);
        T_CHECK(!st_file_exists(path));
        T_EQ_INT(st_count_prefix(dir, "out"), 0);
        /* an existing file is untouched by a refused save */
        T_EQ_INT(mio_st_save_file(old_path, c[i].e, c[i].n, c[i].m, c[i].n_meta), c[i].expect);
        size_t ol;
        uint8_t *ob = t_read_file(old_path, &ol);
        T_CHECK(ob && ol == 11 && memcmp(ob, "OLD CONTENT", 11) == 0);
        free(ob);
        /* callback: never called */
        sink *s = calloc(1, sizeof *s);
        T_EQ_INT(mio_st_save_cb(c[i].e, c[i].n, c[i].m, c[i].n_meta, sink_fn, s), c[i].expect);
        T_EQ_INT(s->calls, 0);
        free(s);
        void *out = (void *)0x1;
        size_t out_len = 77;
        T_EQ_INT(mio_st_save_buffer(c[i].e, c[i].n, c[i].m, c[i].n_meta, &out, &out_len), c[i].expect);
        T_CHECK(out == (void *)0x1 && out_len == 77);
    }
    T_EQ_INT(st_count_prefix(dir, ""), 3); /* ., .., old.safetensors */
    st_rmdir(dir);
    /* argument errors */
    void *out;
    size_t ol;
    T_STATUS(mio_st_save_buffer(NULL, 1, NULL, 0, &out, &ol), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_save_buffer(NULL, 0, NULL, 0, NULL, &ol), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_save_cb(NULL, 0, NULL, 0, NULL, NULL), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_save_file("", NULL, 0, NULL, 0), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_st_save_file("./no-such-dir-st/x.safetensors", NULL, 0, NULL, 0), MIO_ERR_IO);
}

/* ------------------------------ order ------------------------------ */
static void test_order(void) {
    static const uint8_t d[64] = {0};
    mio_st_entry e[] = {
        {"b", MIO_ST_F32, 1, g_s2, d, 8},   {"a", MIO_ST_F32, 1, g_s2, d, 8},    {"c", MIO_ST_U8, 1, g_s3, d, 3},
        {"z", MIO_ST_BF16, 1, g_s2, d, 4},  {"y", MIO_ST_U64, 1, g_s2, d, 16},   {"B", MIO_ST_F32, 1, g_s4, d, 16},
        {"\xc3\xa9", MIO_ST_F32, 0, NULL, d, 4}, /* é sorts after ASCII bytewise */
        {"k", MIO_ST_BOOL, 1, g_s2, d, 2},  {"f", MIO_ST_F4, 1, g_s2, d, 1},     {"i", MIO_ST_I64, 1, g_s2, d, 16},
        {"x", MIO_ST_C64, 1, g_s2, d, 16},
    };
    size_t n = sizeof e / sizeof *e;
    /* expected: U64 y, I64 i, C64 x, F32 B a b é, BF16 z, U8 c, F4 f, BOOL k */
    static const struct { const char *name; uint64_t s, e; } want[] = {
        {"y", 0, 16},  {"i", 16, 32}, {"x", 32, 48}, {"B", 48, 64}, {"a", 64, 72}, {"b", 72, 80},
        {"\xc3\xa9", 80, 84}, {"z", 84, 88}, {"c", 88, 91}, {"f", 91, 92}, {"k", 92, 94},
    };
    char *dir = st_tmpdir("st_write_order");
    char path[300];
    snprintf(path, sizeof path, "%s/order.safetensors", dir);
    T_OK(mio_st_save_file(path, e, n, NULL, 0));
    mio_st_file *f = NULL;
    T_OK(mio_st_open(path, 0, &f));
    if (f) {
        T_EQ_INT(mio_st_tensor_count(f), (int64_t)n);
        for (size_t i = 0; i < n; i++) {
            mio_st_tensor t;
            T_OK(mio_st_tensor_info(f, (int64_t)i, &t));
            T_EQ_MSTR(t.name, want[i].name);
            T_EQ_U64(t.data_start, want[i].s);
            T_EQ_U64(t.data_end, want[i].e);
        }
        mio_st_close(f);
    }
    /* the header text itself, in that order */
    size_t len;
    uint8_t *b = t_read_file(path, &len);
    const char *expect_prefix = "{\"y\":{\"dtype\":\"U64\",\"shape\":[2],\"data_offsets\":[0,16]},"
                                "\"i\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[16,32]},";
    T_CHECK(b && memcmp(b + 8, expect_prefix, strlen(expect_prefix)) == 0);
    const char *scalar = "\"\xc3\xa9\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[80,84]}";
    T_CHECK(b && memmem(b, len, scalar, strlen(scalar)) != NULL);
    free(b);
    st_rmdir(dir);
}

/* ------------------------------ escaping, padding ------------------------------ */
static void test_escaping(void) {
    const char *name = "q\"b\\n\nt\tb\bf\fr\ru\x1f\x01" "d\x7f\xc3\xa9/\xf0\x9f\x98\x80";
    mio_st_entry e = {name, MIO_ST_U8, 1, g_s2, g_bytes, 2};
    mio_st_meta m[] = {{"z\x0b", "line1\nline2"}, {"a", "\"quoted\" \\ back"}};
    void *out = NULL;
    size_t out_len = 0;
    T_OK(mio_st_save_buffer(&e, 1, m, 2, &out, &out_len));
    const char *json = "{\"__metadata__\":{\"a\":\"\\\"quoted\\\" \\\\ back\",\"z\\u000b\":\"line1\\nline2\"},"
                       "\"q\\\"b\\\\n\\nt\\tb\\bf\\fr\\ru\\u001f\\u0001d\x7f\xc3\xa9/\xf0\x9f\x98\x80\":"
                       "{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}";
    size_t jl = strlen(json), padded = (jl + 7) / 8 * 8;
    T_EQ_U64(out_len, 8 + padded + 2);
    const uint8_t *o = out;
    if (out && out_len == 8 + padded + 2) {
        uint64_t hl = 0;
        for (int k = 0; k < 8; k++) hl |= (uint64_t)o[k] << (8 * k);
        T_EQ_U64(hl, padded);
        int same = memcmp(o + 8, json, jl) == 0;
        if (!same) fprintf(stderr, "escaped header:\n got  %.*s\n want %s\n", (int)jl, (const char *)o + 8, json);
        T_CHECK(same);
        int spaces = 1;
        for (size_t k = jl; k < padded; k++) spaces &= o[8 + k] == ' ';
        T_CHECK(spaces);
        T_EQ_INT(o[8 + padded], 0);
        T_EQ_INT(o[8 + padded + 1], 1);
        /* and it reads back to the same bytes */
        mio_st_file *f = NULL;
        T_OK(mio_st_open_buffer(out, out_len, 0, &f));
        if (f) {
            mio_st_tensor t;
            T_OK(mio_st_tensor_info(f, 0, &t));
            T_CHECK(st_str_eq(t.name, name, strlen(name)));
            T_EQ_INT(mio_st_find_tensor(f, name), 0);
            mio_str v;
            T_OK(mio_st_find_meta(f, "z\x0b", &v));
            T_EQ_MSTR(v, "line1\nline2");
            mio_st_close(f);
        }
    }
    mio_free(out);

    /* padding: 31 JSON bytes -> one space; 32 -> none; "{}" -> six */
    struct { const char *val; uint64_t hl; size_t pad; } p[] = {{"vvvvvv", 32, 1}, {"vvvvvvv", 32, 0}, {"vvvvvvvv", 40, 7}};
    for (int i = 0; i < 3; i++) {
        mio_st_meta mm = {"k", p[i].val};
        T_OK(mio_st_save_buffer(NULL, 0, &mm, 1, &out, &out_len));
        T_EQ_U64(out_len, 8 + p[i].hl);
        o = out;
        if (out && out_len == 8 + p[i].hl) {
            T_EQ_INT(o[0], (int)p[i].hl);
            T_EQ_INT(o[1], 0);
            size_t jl2 = 8 + p[i].hl - p[i].pad;
            T_EQ_INT(o[jl2 - 1], '}');
            for (size_t k = jl2; k < out_len; k++) T_EQ_INT(o[k], ' ');
        }
        mio_free(out);
    }
    T_OK(mio_st_save_buffer(NULL, 0, NULL, 0, &out, &out_len));
    T_EQ_U64(out_len, 16);
    T_CHECK(out && memcmp(out, "\x08\0\0\0\0\0\0\0{}      ", 16) == 0);
    mio_free(out);
    /* a scalar and a zero-sized tensor */
    static const uint64_t zero[] = {0, 5};
    mio_st_entry ez[] = {{"s", MIO_ST_F32, 0, NULL, "\0\0\x80?", 4}, {"e", MIO_ST_F32, 2, zero, NULL, 0}};
    T_OK(mio_st_save_buffer(ez, 2, NULL, 0, &out, &out_len));
    const char *jz = "{\"e\":{\"dtype\":\"F32\",\"shape\":[0,5],\"data_offsets\":[0,0]},"
                     "\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}";
    T_CHECK(out && out_len == 8 + (strlen(jz) + 7) / 8 * 8 + 4 && memcmp((uint8_t *)out + 8, jz, strlen(jz)) == 0);
    mio_free(out);
}

/* ------------------------------ save_cb ------------------------------ */
static void test_cb(void) {
    mio_st_entry e[] = {{"w", MIO_ST_U16, 1, g_s2, g_bytes, 4}, {"v", MIO_ST_U8, 1, g_s3, g_bytes + 10, 3}};
    mio_st_meta m = {"format", "pt"};
    void *out = NULL;
    size_t out_len = 0;
    T_OK(mio_st_save_buffer(e, 2, &m, 1, &out, &out_len));
    sink *s = calloc(1, sizeof *s);
    T_OK(mio_st_save_cb(e, 2, &m, 1, sink_fn, s));
    T_EQ_U64(s->n, out_len);
    T_CHECK(out && s->n == out_len && memcmp(s->buf, out, out_len) == 0);
    /* data order: U16 w first, then U8 v */
    T_CHECK(s->n == out_len && s->buf[out_len - 7] == 0 && s->buf[out_len - 3] == 10 && s->buf[out_len - 1] == 12);
    /* a failing callback: MIO_ERR_IO, no further calls */
    memset(s, 0, sizeof *s);
    s->fail_at = 2;
    T_STATUS(mio_st_save_cb(e, 2, &m, 1, sink_fn, s), MIO_ERR_IO);
    T_EQ_INT(s->calls, 2);
    free(s);
    mio_free(out);
}

/* ------------------------------ save_fd ------------------------------ */
static void test_fd(void) {
    char *dir = st_tmpdir("st_write_fd");
    char path[300];
    snprintf(path, sizeof path, "%s/out.safetensors", dir);
    mio_st_entry e[] = {{"w", MIO_ST_U16, 1, g_s2, g_bytes, 4}, {"v", MIO_ST_U8, 1, g_s3, g_bytes + 10, 3}};
    mio_st_meta m = {"format", "pt"};
    void *out = NULL;
    size_t out_len = 0;
    T_OK(mio_st_save_buffer(e, 2, &m, 1, &out, &out_len));

    /* written from the descriptor's position: a prefix already there stays */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_CHECK(fd >= 0);
    T_CHECK(write(fd, "XY", 2) == 2);
    T_OK(mio_st_save_fd(fd, e, 2, &m, 1));
    close(fd);
    size_t n = 0;
    uint8_t *got = t_read_file(path, &n);
    T_EQ_U64(n, 2 + out_len);
    T_CHECK(got && n == 2 + out_len && memcmp(got, "XY", 2) == 0 && memcmp(got + 2, out, out_len) == 0);
    /* by hand: the 8-byte little-endian header length, then the JSON, then U16 w
     * (bytes 0..3) before U8 v (bytes 10..12) */
    if (got && n == 2 + out_len) {
        uint64_t hl = 0;
        for (int i = 7; i >= 0; i--) hl = hl << 8 | got[2 + i];
        T_EQ_U64(8 + hl + 7, out_len);
        T_CHECK(got[2 + 8] == '{');
        static const uint8_t data[7] = {0, 1, 2, 3, 10, 11, 12};
        T_CHECK(memcmp(got + n - 7, data, 7) == 0);
    }
    free(got);

    /* the sized form with a larger, zero-tailed entry */
    struct big_entry { mio_st_entry e; uint64_t future; } be[2] = {{e[0], 0}, {e[1], 0}};
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_OK(mio_st_save_fd_sized(fd, &be[0].e, 2, sizeof be[0], &m, 1));
    close(fd);
    got = t_read_file(path, &n);
    T_CHECK(got && n == out_len && memcmp(got, out, out_len) == 0);
    free(got);

    /* invalid entries: refused before the first byte */
    mio_st_entry bad = {"", MIO_ST_U8, 1, g_s2, g_bytes, 2};
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_STATUS(mio_st_save_fd(fd, &bad, 1, NULL, 0), MIO_ERR_INVALID_ARG);
    struct stat sb;
    T_CHECK(fstat(fd, &sb) == 0 && sb.st_size == 0);
    close(fd);

    /* bad descriptors */
    T_STATUS(mio_st_save_fd(-1, e, 2, &m, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("file descriptor -1 is invalid");
    int ro = open(path, O_RDONLY);
    T_CHECK(ro >= 0);
    T_STATUS(mio_st_save_fd(ro, e, 2, &m, 1), MIO_ERR_IO);
    T_MSG_HAS("write to the output descriptor failed");
    close(ro);
    T_STATUS(mio_st_save_fd(ro, e, 2, &m, 1), MIO_ERR_IO); /* closed now: EBADF */
    T_MSG_HAS(strerror(EBADF));
    mio_free(out);
    st_rmdir(dir);
}

/* ------------------------------ atomic save ------------------------------ */
static void test_atomic(void) {
    char *dir = st_tmpdir("st_write_atomic");
    char path[300];
    snprintf(path, sizeof path, "%s/target.safetensors", dir);
    size_t big_n = 1 << 20;
    uint8_t *big = malloc(big_n);
    for (size_t i = 0; i < big_n; i++) big[i] = (uint8_t)(i * 7);
    uint64_t shape[] = {big_n};
    mio_st_entry e = {"big", MIO_ST_U8, 1, shape, big, big_n};

    /* the old file */
    mio_st_entry old = {"old", MIO_ST_U8, 1, g_s4, g_bytes, 4};
    T_OK(mio_st_save_file(path, &old, 1, NULL, 0));
    size_t ol;
    uint8_t *oldb = t_read_file(path, &ol);
    T_CHECK(oldb != NULL);

    /* a save that dies with EFBIG in a child limited to 64 KiB files */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {65536, 65536};
        setrlimit(RLIMIT_FSIZE, &rl);
        mio_status st = mio_st_save_file(path, &e, 1, NULL, 0);
        printf("save under RLIMIT_FSIZE=64KiB: %s %s\n", mio_status_name(st), mio_last_error());
        fflush(stdout);
        /* MIO_ERR_IO carries the errno text (modelio.h): "File too large" */
        _exit(st != MIO_ERR_IO ? 10 + (int)st : strstr(mio_last_error(), strerror(EFBIG)) ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    T_CHECK(WIFEXITED(status));
    T_EQ_INT(WEXITSTATUS(status), 0);
    size_t nl;
    uint8_t *nowb = t_read_file(path, &nl);
    T_CHECK(nowb && nl == ol && memcmp(nowb, oldb, ol) == 0);
    free(nowb);
    T_EQ_INT(st_count_prefix(dir, "target.safetensors.tmp"), 0);
    T_EQ_INT(st_count_prefix(dir, ""), 3); /* ., .., target.safetensors */

    /* a successful save replaces the file; no temp left */
    T_OK(mio_st_save_file(path, &e, 1, NULL, 0));
    mio_st_file *f = NULL;
    T_OK(mio_st_open(path, MIO_OPEN_READ, &f));
    if (f) {
        mio_st_tensor t;
        T_OK(mio_st_tensor_info(f, 0, &t));
        T_EQ_MSTR(t.name, "big");
        T_EQ_U64(t.nbytes, big_n);
        T_CHECK(memcmp(t.data, big, big_n) == 0);
        mio_st_close(f);
    }
    T_EQ_INT(st_count_prefix(dir, "target.safetensors.tmp"), 0);
    struct stat sb;
    T_CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0644); /* 0666 & ~umask (022, set in main) */
    free(oldb);
    free(big);
    st_rmdir(dir);
}

int main(void) {
    umask(022);
    test_validation();
    test_order();
    test_escaping();
    test_cb();
    test_fd();
    test_atomic();
    T_DONE();
}
