/* SPDX-License-Identifier: MIT */
/* test_deprecated.c — the 0.1 names kept until 1.0 (the "Deprecated names"
 * section of modelio.h) still work: each old call gives what its new name
 * gives (values checked by hand, not only old == new), the old type names are
 * the new types, and NULL arguments are refused as the new calls refuse them.
 * The one place in the project allowed to use the old names, so the
 * deprecation warning is switched off for this file only. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static char g_dir[] = "/tmp/mio_deprecated_XXXXXX";

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_dir, name); }

static void rm_dir(void) {
    DIR *d = opendir(g_dir);
    if (!d) return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        path_in(p, sizeof p, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(g_dir);
}

static void test_type_nbytes(void) {
    const int64_t ne[2] = {256, 3};
    uint64_t a = 0, b = 0;
    T_OK(mio_tensor_nbytes(MIO_TYPE_Q4_K, 2, ne, &a));
    T_OK(mio_type_nbytes(MIO_TYPE_Q4_K, 2, ne, &b));
    T_EQ_U64(a, 3 * 144); /* 3 rows of one 144-byte q4_K block */
    T_EQ_U64(b, a);
    T_STATUS(mio_tensor_nbytes(MIO_TYPE_Q4_K, 2, ne, NULL), MIO_ERR_INVALID_ARG);
    const int64_t odd[1] = {100};
    T_STATUS(mio_tensor_nbytes(MIO_TYPE_Q4_K, 1, odd, &a), MIO_ERR_INVALID_TENSOR_INFO);
}

static void test_mapping(void) {
    T_OK(mio_unmap(NULL, 4096)); /* what take_mapping gives for heap loads */
    long pg = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    T_CHECK(p != MAP_FAILED);
    if (p != MAP_FAILED) T_OK(mio_unmap(p, (size_t)pg));
    /* a mapping of a real GGUF: the hints are no-ops for the caller, the views stay */
    mio_writer *w = NULL;
    float v[4] = {1, 2, 3, 4};
    const int64_t ne[1] = {4};
    char path[512];
    path_in(path, sizeof path, "map.gguf");
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_add_tensor(w, "t", MIO_TYPE_F32, 1, ne, v, sizeof v));
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(path, MIO_OPEN_MMAP, &f));
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, 0, &t));
    mio_prefetch(f, t.data, (size_t)t.nbytes);
    mio_release(f, t.data, (size_t)t.nbytes);
    mio_prefetch(NULL, t.data, 16);
    mio_release(f, NULL, 16);
    T_CHECK(memcmp(t.data, v, sizeof v) == 0);
    void *addr = NULL;
    size_t len = 0;
    T_OK(mio_gguf_take_mapping(f, &addr, &len));
    mio_gguf_close(f);
    T_CHECK(addr != NULL && len > 0);
    T_OK(mio_unmap(addr, len));
}

static void plan_cb(void *user, const mio_split_part *part) { *(uint32_t *)user += part->count; }

static void test_split(void) {
    /* the old type names are the new types (assignable without a cast), and
     * the struct tag keeps its 0.1 spelling */
    mio_split_params old;
    mio_gguf_split_params *same = &old;
    struct mio_split_params *tag = same;
    mio_split_plan_fn fn = plan_cb;
    mio_gguf_split_plan_fn fn2 = fn;
    memset(&old, 0xff, sizeof old);
    mio_split_default_params(tag);
    T_EQ_U64(old.size, sizeof old);
    T_EQ_INT(old.max_tensors, 128); /* gguf-split's default */
    T_EQ_U64(old.max_bytes, 0);
    T_CHECK(old.plan == NULL && old.dry_run == 0);
    struct { mio_gguf_split_params p; uint64_t future; } big;
    memset(&big, 0xff, sizeof big);
    T_OK(mio_split_default_params_sized(&big.p, sizeof big));
    T_EQ_U64(big.p.size, sizeof big);
    T_EQ_INT(big.p.max_tensors, 128);
    T_EQ_U64(big.future, 0);
    T_STATUS(mio_split_default_params_sized(&big.p, 1), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_split_default_params_sized(NULL, sizeof big.p), MIO_ERR_INVALID_ARG);

    /* a dry run of mio_gguf_split through the old names: 3 tensors, 1 a part */
    char in[512], prefix[512];
    path_in(in, sizeof in, "split_in.gguf");
    path_in(prefix, sizeof prefix, "split_out");
    mio_writer *w = NULL;
    float v[4] = {1, 2, 3, 4};
    const int64_t ne[1] = {4};
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_add_tensor(w, "a", MIO_TYPE_F32, 1, ne, v, sizeof v));
    T_OK(mio_writer_add_tensor(w, "b", MIO_TYPE_F32, 1, ne, v, sizeof v));
    T_OK(mio_writer_add_tensor(w, "c", MIO_TYPE_F32, 1, ne, v, sizeof v));
    T_OK(mio_writer_write_file(w, in));
    mio_writer_free(w);
    mio_split_default_params(&old);
    old.max_tensors = 1;
    old.dry_run = 1;
    uint32_t sum = 0, n_parts = 0;
    old.plan = fn2;
    old.plan_user = &sum;
    T_OK(mio_gguf_split(in, prefix, &old, &n_parts));
    T_EQ_INT(n_parts, 3);
    T_EQ_INT(sum, 9); /* three parts, each reporting count 3 */
}

static void test_convert(void) {
    char gguf[512], st[512], st_fd[512], back[512], back_fd[512];
    path_in(gguf, sizeof gguf, "in.gguf");
    path_in(st, sizeof st, "out.safetensors");
    path_in(st_fd, sizeof st_fd, "out_fd.safetensors");
    path_in(back, sizeof back, "back.gguf");
    path_in(back_fd, sizeof back_fd, "back_fd.gguf");
    mio_writer *w = NULL;
    float v[6] = {1, 2, 3, 4, 5, 6};
    const int64_t ne[2] = {3, 2};
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.name", "dep", 3));
    T_OK(mio_writer_add_tensor(w, "w", MIO_TYPE_F32, 2, ne, v, sizeof v));
    T_OK(mio_writer_write_file(w, gguf));
    mio_writer_free(w);

    T_OK(mio_gguf_to_safetensors(gguf, st, NULL));
    mio_st_file *sf = NULL;
    T_OK(mio_st_open(st, 0, &sf));
    mio_st_tensor t;
    T_OK(mio_st_tensor_info(sf, 0, &t));
    T_EQ_MSTR(t.name, "w");
    T_EQ_INT(t.dtype, MIO_ST_F32);
    T_CHECK(t.n_dims == 2 && t.shape[0] == 2 && t.shape[1] == 3); /* outermost first */
    T_CHECK(t.nbytes == sizeof v && memcmp(t.data, v, sizeof v) == 0);
    mio_st_close(sf);
    int fd = open(st_fd, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_OK(mio_gguf_to_safetensors_fd(gguf, fd, NULL));
    close(fd);
    size_t na = 0, nb = 0;
    uint8_t *a = t_read_file(st, &na), *b = t_read_file(st_fd, &nb);
    T_CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);

    /* back to GGUF through the old names: the identical file (docs/CONVERT.md) */
    T_OK(mio_safetensors_to_gguf(st, back, NULL));
    fd = open(back_fd, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_OK(mio_safetensors_to_gguf_fd(st, fd, NULL));
    close(fd);
    uint8_t *g0 = t_read_file(gguf, &na), *g1 = t_read_file(back, &nb);
    T_CHECK(g0 && g1 && na == nb && memcmp(g0, g1, na) == 0);
    free(g1);
    g1 = t_read_file(back_fd, &nb);
    T_CHECK(g0 && g1 && na == nb && memcmp(g0, g1, na) == 0);
    free(g0);
    free(g1);

    /* NULL arguments and bad descriptors, as the new names */
    T_STATUS(mio_gguf_to_safetensors(NULL, st, NULL), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_gguf_to_safetensors(gguf, NULL, NULL), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("out is NULL");
    T_STATUS(mio_gguf_to_safetensors_fd(gguf, -1, NULL), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_safetensors_to_gguf(st, NULL, NULL), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("out_path is NULL");
    T_STATUS(mio_safetensors_to_gguf_fd(st, -1, NULL), MIO_ERR_INVALID_ARG);
}

int main(void) {
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 1; }
    test_type_nbytes();
    test_mapping();
    test_split();
    test_convert();
    rm_dir();
    T_DONE();
}
