/* SPDX-License-Identifier: MIT */
/* test_gguf_stream.c — the streaming writer (begin/write_tensor/finish to a path,
 * callback or fd) produces the same bytes as the one-shot writer; its three
 * stream errors; atomic path writes (old file intact, no temp file left behind),
 * I/O failures (missing directory, failing callback) and data sections that
 * would pass 2^64 bytes (refused when declared and again at begin). */
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

/* fails once more than `limit` bytes have been offered */
typedef struct failsink { size_t seen, limit; int calls; } failsink;
static int fail_sink(void *user, const void *data, size_t len) {
    failsink *s = user;
    (void)data;
    s->calls++;
    if (s->seen + len > s->limit) return -1;
    s->seen += len;
    return 0;
}

static int compare_bytes(const char *what, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "%s: first difference at offset %zu, sizes %zu vs %zu\n", what, i, alen, blen);
            return 1;
        }
    if (alen != blen) {
        fprintf(stderr, "%s: sizes differ %zu vs %zu\n", what, alen, blen);
        return 1;
    }
    return 0;
}

static int file_equals(const char *path, const membuf *ref) {
    size_t len = 0;
    uint8_t *p = t_read_file(path, &len);
    if (!p) { fprintf(stderr, "%s: cannot read\n", path); return 0; }
    int same = compare_bytes(path, p, len, ref->p, ref->len) == 0;
    free(p);
    return same;
}

/* directory entries of "." whose name starts with prefix (excluding an exact `keep`) */
static int leftovers(const char *prefix, const char *keep) {
    DIR *d = opendir(".");
    if (!d) return -1;
    int n = 0;
    size_t pl = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, pl) != 0) continue;
        if (keep && strcmp(e->d_name, keep) == 0) continue;
        fprintf(stderr, "leftover entry: %s\n", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

/* --- the model: 3 tensors of 40, 12012 and 144 bytes --- */
static float ta[10];
static float tb[3003];
static uint8_t tc[144];
static const size_t k_len[3] = {40, 12012, 144};
static const void *k_data[3] = {ta, tb, tc};

static mio_writer *make(int declare_only) {
    mio_writer *w = NULL;
    if (mio_writer_new(0, &w) != MIO_OK) return NULL;
    mio_writer_set_str(w, "general.architecture", "test", 4);
    mio_writer_set_u32(w, "general.alignment", 64);
    mio_writer_set_u64(w, "x.big", UINT64_MAX);
    const char *toks[3] = {"a", "bb", "ccc"};
    mio_writer_set_arr_str(w, "x.toks", toks, NULL, 3);
    int64_t na[1] = {10}, nb[2] = {1001, 3}, nc[1] = {256};
    if (declare_only) {
        T_OK(mio_writer_declare_tensor(w, "ta", MIO_TYPE_F32, 1, na));
        T_OK(mio_writer_declare_tensor(w, "tb", MIO_TYPE_F32, 2, nb));
        T_OK(mio_writer_declare_tensor(w, "tc", MIO_TYPE_Q4_K, 1, nc));
    } else {
        T_OK(mio_writer_add_tensor(w, "ta", MIO_TYPE_F32, 1, na, ta, sizeof ta));
        T_OK(mio_writer_add_tensor(w, "tb", MIO_TYPE_F32, 2, nb, tb, sizeof tb));
        T_OK(mio_writer_add_tensor(w, "tc", MIO_TYPE_Q4_K, 1, nc, tc, sizeof tc));
    }
    return w;
}

static void stream_all(mio_writer *w) {
    for (int i = 0; i < 3; i++) T_OK(mio_writer_write_tensor(w, k_data[i], k_len[i]));
    T_OK(mio_writer_finish(w));
}

static void test_identical(membuf *ref) {
    for (int i = 0; i < 10; i++) ta[i] = (float)i - 3.5f;
    for (int i = 0; i < 3003; i++) tb[i] = (float)i * 0.25f;
    for (int i = 0; i < 144; i++) tc[i] = (uint8_t)(i * 13);

    mio_writer *w = make(0);
    T_CHECK(w != NULL);
    if (!w) return;
    unlink("s_ref.gguf");
    T_OK(mio_writer_write_file(w, "s_ref.gguf"));
    T_OK(mio_writer_write_cb(w, mem_sink, ref));
    uint64_t hs = mio_writer_header_size(w);
    mio_writer_free(w);
    T_CHECK(file_equals("s_ref.gguf", ref));
    /* layout by hand: data at roundup(hs, 64); tensors 40->64, 12012->12032, 144->192 */
    uint64_t doff = (hs + 63) / 64 * 64;
    T_EQ_U64(ref->len, doff + 64 + 12032 + 192);
    T_CHECK(ref->len > doff + 64 && memcmp(ref->p + doff, ta, 40) == 0);
    T_CHECK(ref->len > doff + 64 + 12012 && memcmp(ref->p + doff + 64, tb, 12012) == 0);
    T_CHECK(ref->len >= doff + 64 + 12032 + 144 && memcmp(ref->p + doff + 64 + 12032, tc, 144) == 0);

    /* begin_file + write_tensor + finish, tensors added with data */
    w = make(0);
    unlink("s_stream.gguf");
    T_OK(mio_writer_begin_file(w, "s_stream.gguf"));
    stream_all(w);
    mio_writer_free(w);
    T_CHECK(file_equals("s_stream.gguf", ref));
    T_EQ_INT(leftovers("s_stream.gguf", "s_stream.gguf"), 0);

    /* NULL data (length 0): use the bytes borrowed by add_tensor */
    w = make(0);
    unlink("s_null.gguf");
    T_OK(mio_writer_begin_file(w, "s_null.gguf"));
    for (int i = 0; i < 3; i++) T_OK(mio_writer_write_tensor(w, NULL, 0));
    T_OK(mio_writer_finish(w));
    mio_writer_free(w);
    T_CHECK(file_equals("s_null.gguf", ref));

    /* declared tensors streamed to a path */
    w = make(1);
    T_STATUS(mio_writer_write_file(w, "s_decl_oneshot.gguf"), MIO_ERR_INCOMPLETE);
    T_CHECK(access("s_decl_oneshot.gguf", F_OK) != 0);
    unlink("s_decl.gguf");
    T_OK(mio_writer_begin_file(w, "s_decl.gguf"));
    /* not visible before finish */
    T_CHECK(access("s_decl.gguf", F_OK) != 0);
    stream_all(w);
    mio_writer_free(w);
    T_CHECK(file_equals("s_decl.gguf", ref));

    /* callback */
    w = make(1);
    membuf m = {0};
    T_OK(mio_writer_begin_cb(w, mem_sink, &m));
    T_EQ_U64(m.len, doff); /* begin writes the whole header (and its padding) at once */
    stream_all(w);
    mio_writer_free(w);
    T_EQ_INT(compare_bytes("begin_cb", m.p, m.len, ref->p, ref->len), 0);
    free(m.p);

    /* fd: streaming and one-shot */
    w = make(1);
    int fd = open("s_fd.gguf", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_CHECK(fd >= 0);
    T_OK(mio_writer_begin_fd(w, fd));
    stream_all(w);
    mio_writer_free(w);
    close(fd);
    T_CHECK(file_equals("s_fd.gguf", ref));
    w = make(0);
    fd = open("s_fd2.gguf", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_OK(mio_writer_write_fd(w, fd));
    close(fd);
    mio_writer_free(w);
    T_CHECK(file_equals("s_fd2.gguf", ref));

    /* the streamed file parses with the expected offsets */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("s_decl.gguf", 0, &f));
    if (f) {
        T_EQ_INT(mio_gguf_alignment(f), 64);
        T_EQ_U64(mio_gguf_data_offset(f), doff);
        mio_gguf_tensor t;
        T_OK(mio_gguf_tensor_info(f, 2, &t));
        T_EQ_U64(t.offset, 64 + 12032);
        T_CHECK(memcmp(t.data, tc, 144) == 0);
        mio_gguf_close(f);
    }
}

static void test_errors(void) {
    /* wrong length */
    mio_writer *w = make(1);
    unlink("s_err1.gguf");
    T_OK(mio_writer_begin_file(w, "s_err1.gguf"));
    T_OK(mio_writer_write_tensor(w, ta, 40));
    T_STATUS(mio_writer_write_tensor(w, tb, 12008), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("tb");
    T_MSG_HAS("12008");
    T_CHECK(mio_writer_write_tensor(w, tb, 12012) != MIO_OK); /* the stream is dead */
    T_CHECK(mio_writer_finish(w) != MIO_OK);
    T_CHECK(access("s_err1.gguf", F_OK) != 0);
    T_EQ_INT(leftovers("s_err1.gguf", NULL), 0);
    mio_writer_free(w);
    T_EQ_INT(leftovers("s_err1.gguf", NULL), 0);

    /* one call too many */
    w = make(1);
    unlink("s_err2.gguf");
    T_OK(mio_writer_begin_file(w, "s_err2.gguf"));
    for (int i = 0; i < 3; i++) T_OK(mio_writer_write_tensor(w, k_data[i], k_len[i]));
    T_STATUS(mio_writer_write_tensor(w, tc, 144), MIO_ERR_TOO_MANY_TENSORS);
    T_CHECK(mio_writer_finish(w) != MIO_OK);
    T_CHECK(access("s_err2.gguf", F_OK) != 0);
    T_EQ_INT(leftovers("s_err2.gguf", NULL), 0);
    mio_writer_free(w);

    /* finish early */
    w = make(1);
    unlink("s_err3.gguf");
    T_OK(mio_writer_begin_file(w, "s_err3.gguf"));
    T_OK(mio_writer_write_tensor(w, ta, 40));
    T_STATUS(mio_writer_finish(w), MIO_ERR_INCOMPLETE);
    T_MSG_HAS("tb");
    T_CHECK(access("s_err3.gguf", F_OK) != 0);
    T_EQ_INT(leftovers("s_err3.gguf", NULL), 0);
    mio_writer_free(w);

    /* finish with no tensor written at all */
    w = make(1);
    membuf m = {0};
    T_OK(mio_writer_begin_cb(w, mem_sink, &m));
    T_STATUS(mio_writer_finish(w), MIO_ERR_INCOMPLETE);
    mio_writer_free(w);
    free(m.p);

    /* free without finish removes the temp file */
    w = make(1);
    unlink("s_err4.gguf");
    T_OK(mio_writer_begin_file(w, "s_err4.gguf"));
    T_OK(mio_writer_write_tensor(w, ta, 40));
    mio_writer_free(w);
    T_CHECK(access("s_err4.gguf", F_OK) != 0);
    T_EQ_INT(leftovers("s_err4.gguf", NULL), 0);

    /* free right after begin */
    w = make(1);
    T_OK(mio_writer_begin_file(w, "s_err5.gguf"));
    mio_writer_free(w);
    T_EQ_INT(leftovers("s_err5.gguf", NULL), 0);

    /* NULL data for a declared tensor: nothing to fall back on, and the message
     * says so (not "needs 40 bytes, 40 given") */
    w = make(1);
    membuf mn = {0};
    T_OK(mio_writer_begin_cb(w, mem_sink, &mn));
    T_STATUS(mio_writer_write_tensor(w, NULL, 40), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("tensor 'ta' (#0) was declared without data and data is NULL");
    T_CHECK(mio_writer_finish(w) != MIO_OK); /* the stream is dead */
    mio_writer_free(w);
    free(mn.p);

    /* calls out of order */
    w = make(1);
    T_STATUS(mio_writer_write_tensor(w, ta, 40), MIO_ERR_STATE);
    T_STATUS(mio_writer_finish(w), MIO_ERR_STATE);
    mio_writer_free(w);
}

static void test_atomic(const membuf *ref) {
    static const char old[] = "OLD CONTENT, not a gguf file\n";
    FILE *fp = fopen("s_atomic.gguf", "wb");
    T_CHECK(fp != NULL);
    if (!fp) return;
    fwrite(old, 1, sizeof old - 1, fp);
    fclose(fp);
    membuf oldm = {(uint8_t *)old, sizeof old - 1, 0};

    /* a stream failing midway leaves the old file intact */
    mio_writer *w = make(1);
    T_OK(mio_writer_begin_file(w, "s_atomic.gguf"));
    T_OK(mio_writer_write_tensor(w, ta, 40));
    T_CHECK(file_equals("s_atomic.gguf", &oldm)); /* untouched while streaming */
    T_STATUS(mio_writer_write_tensor(w, tb, 4), MIO_ERR_SIZE_MISMATCH);
    T_CHECK(file_equals("s_atomic.gguf", &oldm));
    T_EQ_INT(leftovers("s_atomic.gguf", "s_atomic.gguf"), 0);
    mio_writer_free(w);
    T_CHECK(file_equals("s_atomic.gguf", &oldm));

    /* finishing early too */
    w = make(1);
    T_OK(mio_writer_begin_file(w, "s_atomic.gguf"));
    T_STATUS(mio_writer_finish(w), MIO_ERR_INCOMPLETE);
    mio_writer_free(w);
    T_CHECK(file_equals("s_atomic.gguf", &oldm));
    T_EQ_INT(leftovers("s_atomic.gguf", "s_atomic.gguf"), 0);

    /* one-shot write refused (missing data) leaves it intact */
    w = make(1);
    T_CHECK(mio_writer_write_file(w, "s_atomic.gguf") != MIO_OK);
    mio_writer_free(w);
    T_CHECK(file_equals("s_atomic.gguf", &oldm));
    T_EQ_INT(leftovers("s_atomic.gguf", "s_atomic.gguf"), 0);

    /* a successful stream replaces it */
    w = make(1);
    T_OK(mio_writer_begin_file(w, "s_atomic.gguf"));
    stream_all(w);
    mio_writer_free(w);
    T_CHECK(file_equals("s_atomic.gguf", ref));
    T_EQ_INT(leftovers("s_atomic.gguf", "s_atomic.gguf"), 0);
}

static void test_io_errors(void) {
    mio_writer *w = make(0);
    T_STATUS(mio_writer_write_file(w, "s-no-such-dir/x.gguf"), MIO_ERR_IO);
    T_MSG_HAS("s-no-such-dir/x.gguf");
    T_STATUS(mio_writer_begin_file(w, "s-no-such-dir/y.gguf"), MIO_ERR_IO);
    T_MSG_HAS("s-no-such-dir/y.gguf");

    /* a callback that fails immediately, and one that fails in the data section */
    failsink fs = {0, 0, 0};
    T_STATUS(mio_writer_write_cb(w, fail_sink, &fs), MIO_ERR_IO);
    T_CHECK(fs.calls >= 1);
    failsink fs2 = {0, mio_writer_header_size(w) + 100, 0};
    T_STATUS(mio_writer_write_cb(w, fail_sink, &fs2), MIO_ERR_IO);
    T_CHECK(fs2.seen <= fs2.limit);
    mio_writer_free(w);

    w = make(1);
    failsink fs3 = {0, 0, 0};
    T_STATUS(mio_writer_begin_cb(w, fail_sink, &fs3), MIO_ERR_IO);
    mio_writer_free(w);

    w = make(1);
    failsink fs4 = {0, mio_writer_header_size(w) + 30, 0};
    T_OK(mio_writer_begin_cb(w, fail_sink, &fs4));
    T_STATUS(mio_writer_write_tensor(w, ta, 40), MIO_ERR_IO);
    T_CHECK(mio_writer_write_tensor(w, tb, 12012) != MIO_OK);
    mio_writer_free(w);

    /* a read-only fd */
    w = make(0);
    int fd = open("s_ref.gguf", O_RDONLY);
    T_STATUS(mio_writer_write_fd(w, fd), MIO_ERR_IO);
    close(fd);
    mio_writer_free(w);
}

/* Data sections past 2^64 bytes: the writer must refuse them (MIO_ERR_OVERFLOW)
 * instead of emitting offsets that wrap, which its own reader rejects. Nothing
 * here allocates or writes tensor data: only headers are at stake. */
static void test_overflow(void) {
    const int64_t two61 = (int64_t)1 << 61;

    /* declare time: two f32 tensors of 2^61 elements (2^63 bytes each) add up to 2^64 */
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    const int64_t ne_half[1] = {two61};
    T_OK(mio_writer_declare_tensor(w, "a", MIO_TYPE_F32, 1, ne_half));
    T_STATUS(mio_writer_declare_tensor(w, "b", MIO_TYPE_F32, 1, ne_half), MIO_ERR_OVERFLOW);
    T_MSG_HAS("tensor 'b' (#1, 9223372036854775808 bytes)");
    T_MSG_HAS("the tensors before it take 9223372036854775808 bytes");
    T_MSG_HAS("alignment 32");
    T_EQ_INT(mio_writer_tensor_count(w), 1); /* 'b' was not added */
    mio_writer_free(w);

    /* one tensor whose padding alone overflows: i64 x (2^61 - 1) = 2^64 - 8 bytes */
    T_OK(mio_writer_new(0, &w));
    const int64_t ne_huge[1] = {two61 - 1};
    T_STATUS(mio_writer_declare_tensor(w, "huge", MIO_TYPE_I64, 1, ne_huge), MIO_ERR_OVERFLOW);
    T_MSG_HAS("tensor 'huge' (#0, 18446744073709551608 bytes)");
    T_EQ_INT(mio_writer_tensor_count(w), 0);
    mio_writer_free(w);

    /* alignment raised after declaring: 2 x (2^63 - 256) bytes fit at alignment 32
     * (2^64 - 512), but each pads to 2^63 at 2^20 */
    T_OK(mio_writer_new(0, &w));
    const int64_t ne_a[1] = {two61 - 64};
    T_OK(mio_writer_declare_tensor(w, "a", MIO_TYPE_F32, 1, ne_a));
    T_OK(mio_writer_declare_tensor(w, "b", MIO_TYPE_F32, 1, ne_a));
    T_OK(mio_writer_set_u32(w, "general.alignment", 1u << 20));
    membuf m = {0};
    T_STATUS(mio_writer_begin_cb(w, mem_sink, &m), MIO_ERR_OVERFLOW);
    T_MSG_HAS("tensor 'b' (#1, 9223372036854775552 bytes)");
    T_MSG_HAS("the tensors before it take 9223372036854775808 bytes");
    T_MSG_HAS("alignment 1048576");
    T_EQ_U64(m.len, 0); /* not one byte reached the callback */
    T_STATUS(mio_writer_begin_file(w, "s_ovf.gguf"), MIO_ERR_OVERFLOW);
    T_CHECK(access("s_ovf.gguf", F_OK) != 0);
    T_EQ_INT(leftovers("s_ovf.gguf", NULL), 0);
    /* declaring more at that alignment is refused too, naming where it overflows */
    const int64_t ne_1[1] = {1};
    T_STATUS(mio_writer_declare_tensor(w, "c", MIO_TYPE_F32, 1, ne_1), MIO_ERR_OVERFLOW);
    T_MSG_HAS("cannot add tensor 'c'");
    T_MSG_HAS("tensor 'b' (#1");
    /* back to the default alignment the layout fits again: the header (24 + 2 x 33
     * bytes of tensor infos = 90, padded to 96) goes out */
    T_OK(mio_writer_remove_key(w, "general.alignment"));
    T_OK(mio_writer_begin_cb(w, mem_sink, &m));
    T_EQ_U64(m.len, 96);
    mio_writer_free(w);
    free(m.p);

    /* the data fits in 2^64 - 64 bytes, but not after the 96-byte header */
    T_OK(mio_writer_new(0, &w));
    const int64_t ne_c[1] = {two61 - 8}; /* 2^63 - 32 bytes, already a multiple of 32 */
    T_OK(mio_writer_declare_tensor(w, "a", MIO_TYPE_F32, 1, ne_c));
    T_OK(mio_writer_declare_tensor(w, "b", MIO_TYPE_F32, 1, ne_c));
    membuf m2 = {0};
    T_STATUS(mio_writer_begin_cb(w, mem_sink, &m2), MIO_ERR_OVERFLOW);
    T_MSG_HAS("header (96 bytes");
    T_MSG_HAS("18446744073709551552 bytes");
    T_EQ_U64(m2.len, 0);
    mio_writer_free(w);
    free(m2.p);
}

/* write_tensor_part: the same bytes as whole-tensor calls, in pieces of 1, 7
 * and 1000 bytes (pieces never cross a tensor); the errors say where. */
static void test_parts(const membuf *ref) {
    static const size_t piece[3] = {1, 7, 1000};
    for (int k = 0; k < 3; k++) {
        mio_writer *w = make(1);
        membuf m = {0};
        T_OK(mio_writer_begin_cb(w, mem_sink, &m));
        for (int i = 0; i < 3; i++)
            for (size_t off = 0; off < k_len[i]; off += piece[k]) {
                size_t n = k_len[i] - off < piece[k] ? k_len[i] - off : piece[k];
                T_OK(mio_writer_write_tensor_part(w, (const uint8_t *)k_data[i] + off, n));
            }
        T_OK(mio_writer_finish(w));
        T_EQ_U64(m.len, ref->len);
        T_CHECK(m.len == ref->len && memcmp(m.p, ref->p, m.len) == 0);
        free(m.p);
        mio_writer_free(w);
    }
    /* a piece passing the end of the tensor: 30 of ta's 40 bytes, then 11 */
    mio_writer *w = make(1);
    membuf m = {0};
    T_OK(mio_writer_begin_cb(w, mem_sink, &m));
    T_OK(mio_writer_write_tensor_part(w, ta, 30));
    T_STATUS(mio_writer_write_tensor_part(w, ta, 11), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("tensor 'ta' (#0) needs 40 bytes; 30 are written and a piece of 11 would pass the end");
    mio_writer_free(w);
    free(m.p);
    /* a whole-tensor call in the middle of a tensor, and finish with a tensor half written */
    w = make(1);
    m = (membuf){0};
    T_OK(mio_writer_begin_cb(w, mem_sink, &m));
    T_OK(mio_writer_write_tensor_part(w, ta, 16));
    T_STATUS(mio_writer_write_tensor(w, ta, 40), MIO_ERR_STATE);
    T_MSG_HAS("tensor 'ta' (#0) is being written in pieces (16 of 40 bytes so far)");
    mio_writer_free(w);
    free(m.p);
    w = make(1);
    m = (membuf){0};
    T_OK(mio_writer_begin_cb(w, mem_sink, &m));
    T_OK(mio_writer_write_tensor(w, ta, 40));
    T_OK(mio_writer_write_tensor_part(w, tb, 100));
    T_STATUS(mio_writer_finish(w), MIO_ERR_INCOMPLETE);
    T_MSG_HAS("finish after 1 of 3 tensors; tensor 'tb' has 100 of its 12012 bytes");
    mio_writer_free(w);
    free(m.p);
}

int main(void) {
    membuf ref = {0};
    test_identical(&ref);
    test_errors();
    test_atomic(&ref);
    test_io_errors();
    test_overflow();
    test_parts(&ref);
    free(ref.p);
    T_DONE();
}
