/* SPDX-License-Identifier: MIT */
/* test_fzt1.c — FZT1 (docs/CHECKPOINTS.md): the exact bytes of a written file,
 * reading them back, the write-time checks (nothing written on a refusal), and
 * one hostile input per parser rule with the error it must give. */
#include "modelio.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a scalar 1.5 and a [2, 1] tensor {-2, 0.25} */
static const float k_s[1] = {1.5f}, k_m[2] = {-2.0f, 0.25f};
static const uint64_t k_dm[2] = {2, 1};
static const uint8_t k_file[] = {
    'F', 'Z', 'T', '1', 2, 0, 0, 0,                   /* magic, count 2 */
    0, 0, 0, 0, 0x00, 0x00, 0xc0, 0x3f,               /* rank 0, 1.5f */
    2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, /* rank 2, dims 2, 1 */
    0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x80, 0x3e,   /* -2.0f, 0.25f */
};

static void test_write_read(void) {
    mio_fzt1_tensor t[2] = {{0, NULL, k_s, 1}, {2, k_dm, k_m, 2}};
    void *buf = NULL;
    size_t len = 0;
    T_OK(mio_fzt1_save_buffer(t, 2, sizeof t[0], &buf, &len));
    T_EQ_U64(len, sizeof k_file);
    T_CHECK(len == sizeof k_file && memcmp(buf, k_file, len) == 0);
    mio_free(buf);

    mio_fzt1_file *f = NULL;
    T_OK(mio_fzt1_open_buffer(k_file, sizeof k_file, &f));
    T_EQ_INT(mio_fzt1_count(f), 2);
    mio_fzt1_tensor r;
    T_OK(mio_fzt1_tensor_info(f, 0, &r));
    T_EQ_INT(r.n_dims, 0);
    T_EQ_U64(r.n_elements, 1);
    T_CHECK(r.data == k_file + 12);
    T_OK(mio_fzt1_tensor_info(f, 1, &r));
    T_EQ_INT(r.n_dims, 2);
    T_EQ_U64(r.dims[0], 2);
    T_EQ_U64(r.dims[1], 1);
    T_EQ_U64(r.n_elements, 2);
    float v[2];
    memcpy(v, r.data, sizeof v);
    T_CHECK(v[0] == -2.0f && v[1] == 0.25f);
    T_STATUS(mio_fzt1_tensor_info(f, 2, &r), MIO_ERR_INVALID_ARG);
    mio_fzt1_close(f);

    /* an empty file list is 8 bytes */
    T_OK(mio_fzt1_save_buffer(NULL, 0, sizeof t[0], &buf, &len));
    T_EQ_U64(len, 8);
    T_OK(mio_fzt1_open_buffer(buf, len, &f));
    T_EQ_INT(mio_fzt1_count(f), 0);
    mio_fzt1_close(f);
    mio_free(buf);

    /* the file form: written atomically, read back */
    char dir[] = "/tmp/mio_fzt1_XXXXXX", path[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/p.fzt1", dir);
    mio_fzt1_tensor bad = {2, k_dm, k_m, 3};
    T_STATUS(mio_fzt1_save_file(path, &bad, 1, sizeof bad), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("tensor #0 has n_elements 3, its dims make 2");
    T_CHECK(access(path, F_OK) != 0);
    bad.n_elements = 2, bad.data = NULL;
    T_STATUS(mio_fzt1_save_file(path, &bad, 1, sizeof bad), MIO_ERR_INVALID_ARG);
    T_CHECK(access(path, F_OK) != 0);
    T_OK(mio_fzt1_save_file(path, t, 2, sizeof t[0]));
    size_t flen = 0;
    uint8_t *got = t_read_file(path, &flen);
    T_CHECK(got && flen == sizeof k_file && memcmp(got, k_file, flen) == 0);
    free(got);
    T_OK(mio_fzt1_open(path, &f));
    T_EQ_INT(mio_fzt1_count(f), 2);
    mio_fzt1_close(f);
    unlink(path);
    rmdir(dir);
}

/* k_file with bytes [at, at + n) replaced, cut to len */
static mio_status parse_variant(size_t len, size_t at, const void *bytes, size_t n) {
    uint8_t b[sizeof k_file + 16];
    memcpy(b, k_file, sizeof k_file);
    memset(b + sizeof k_file, 0, 16);
    if (n) memcpy(b + at, bytes, n);
    mio_fzt1_file *f = NULL;
    mio_status st = mio_fzt1_open_buffer(b, len, &f);
    T_CHECK(st ? f == NULL : f != NULL);
    mio_fzt1_close(f);
    return st;
}

static void test_hostile(void) {
    const size_t L = sizeof k_file;
    T_STATUS(parse_variant(L, 0, "FZT2", 4), MIO_ERR_BAD_MAGIC);
    T_MSG_HAS("magic \"FZT1\"");
    T_STATUS(parse_variant(3, 0, NULL, 0), MIO_ERR_BAD_MAGIC);
    T_MSG_HAS("shorter than 4 bytes");
    T_STATUS(parse_variant(6, 0, NULL, 0), MIO_ERR_TRUNCATED);
    T_MSG_HAS("ends before the tensor count");
    /* a count the bytes cannot hold: refused before any allocation */
    T_STATUS(parse_variant(L, 4, "\xff\xff\xff\xff", 4), MIO_ERR_TRUNCATED);
    T_MSG_HAS("4294967295 tensors announced, but only 36 bytes follow the count");
    T_STATUS(parse_variant(L, 4, "\x03\x00\x00\x00", 4), MIO_ERR_TRUNCATED);
    T_MSG_HAS("tensor 2: the file ends before its rank (offset 44)");
    /* a rank whose dims cannot fit */
    T_STATUS(parse_variant(L, 16, "\x00\x00\x00\x10", 4), MIO_ERR_TRUNCATED);
    T_MSG_HAS("tensor 1 (offset 16): rank 268435456 needs 2147483648 bytes of dims, 24 remain");
    /* dims whose product overflows u64 */
    T_STATUS(parse_variant(L, 20, "\x00\x00\x00\x00\x00\x01\x00\x00", 8), MIO_ERR_TRUNCATED);
    T_MSG_HAS("tensor 1 (offset 16): 4398046511104 bytes of data announced, 8 remain");
    T_STATUS(parse_variant(L, 20, "\x00\x00\x00\x00\x00\x00\x00\x80", 8), MIO_ERR_OVERFLOW);
    T_MSG_HAS("9223372036854775808 f32 elements overflow a byte count");
    T_STATUS(parse_variant(L, 20, "\x00\x00\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x80", 16), MIO_ERR_OVERFLOW);
    T_MSG_HAS("the element count overflows at dim 1");
    /* data cut short; trailing bytes */
    T_STATUS(parse_variant(L - 1, 0, NULL, 0), MIO_ERR_TRUNCATED);
    T_MSG_HAS("8 bytes of data announced, 7 remain");
    T_STATUS(parse_variant(L + 3, 0, NULL, 0), MIO_ERR_INCOMPLETE_BUFFER);
    T_MSG_HAS("3 bytes after the last tensor (offset 44)");
    T_OK(parse_variant(L, 0, NULL, 0));
}

int main(void) {
    test_write_read();
    test_hostile();
    T_DONE();
}
