/* SPDX-License-Identifier: MIT */
/* test_io.c — what the library does with odd paths (issue 7, items 2, 5, 7, 12):
 * reading a FIFO fails at once instead of blocking; a path write never
 * replaces a device, FIFO or /dev/stdout-style symlink, follows a symlink to a
 * regular file, keeps the old permission bits, works for names near the
 * 255-byte limit; mio_cancel_writes removes the temp file of a write in
 * progress and that write then fails with MIO_ERR_CANCELLED. */
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char g_dir[64];

static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "test_io: an open blocked for 10 s (FIFO opened in blocking mode)\n";
    (void)!write(2, m, sizeof m - 1);
    _exit(1);
}

static void path_in(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", g_dir, name); }

/* Number of directory entries whose name contains sub. */
static int count_names(const char *sub) {
    DIR *d = opendir(g_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, sub)) n++;
    if (d) closedir(d);
    return n;
}

static mio_writer *small_writer(void) {
    static const float data[4] = {1, 2, 3, 4};
    int64_t ne[1] = {4};
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_u32(w, "x.val", 7));
    T_OK(mio_writer_add_tensor(w, "t", MIO_TYPE_F32, 1, ne, data, sizeof data));
    return w;
}

/* Bytes of the small writer's file: 24 header + kv (8+5+4+4) + tensor info
 * (8+1+4+8+4+8) = 78, padded to 96, + 16 data bytes padded to 32 = 128. */
#define SMALL_FILE_SIZE 128

static void test_fifo_reads(void) {
    char p[128];
    path_in(p, sizeof p, "fifo.gguf");
    T_CHECK(mkfifo(p, 0600) == 0);
    mio_gguf_file *f = NULL;
    alarm(10);
    T_STATUS(mio_gguf_open(p, 0, &f), MIO_ERR_IO);
    T_MSG_HAS("is not a regular file (it is a FIFO (named pipe))");
    T_STATUS(mio_gguf_open(p, MIO_OPEN_READ, &f), MIO_ERR_IO);
    T_MSG_HAS("FIFO");
    mio_st_file *s = NULL;
    T_STATUS(mio_st_open(p, 0, &s), MIO_ERR_IO);
    T_MSG_HAS("FIFO");
    alarm(0);
    T_CHECK(f == NULL && s == NULL);
    unlink(p);

    /* a FIFO named as part 2 of a split */
    char p1[128], p2[128];
    path_in(p1, sizeof p1, "m-00001-of-00002.gguf");
    path_in(p2, sizeof p2, "m-00002-of-00002.gguf");
    mio_writer *w = small_writer();
    T_OK(mio_writer_set_u16(w, "split.no", 0));
    T_OK(mio_writer_set_u16(w, "split.count", 2));
    T_OK(mio_writer_write_file(w, p1));
    mio_writer_free(w);
    T_CHECK(mkfifo(p2, 0600) == 0);
    alarm(10);
    T_STATUS(mio_gguf_open(p1, MIO_OPEN_SPLITS, &f), MIO_ERR_IO);
    T_MSG_HAS("m-00002-of-00002.gguf' is not a regular file (it is a FIFO");
    alarm(0);
    unlink(p1);
    unlink(p2);

    /* a FIFO named as a shard of a safetensors index */
    char idx[128], sh[128];
    path_in(idx, sizeof idx, "model.safetensors.index.json");
    path_in(sh, sizeof sh, "s1.safetensors");
    FILE *o = fopen(idx, "w");
    T_CHECK(o != NULL);
    if (o) { fputs("{\"weight_map\": {\"a\": \"s1.safetensors\"}}\n", o); fclose(o); }
    T_CHECK(mkfifo(sh, 0600) == 0);
    alarm(10);
    T_STATUS(mio_st_open(idx, 0, &s), MIO_ERR_IO);
    T_MSG_HAS("FIFO");
    alarm(0);
    unlink(idx);
    unlink(sh);
}

/* Write to dest (expected to be refused), then check that what is there is unchanged. */
static void refused(const char *dest, const char *kind) {
    mio_writer *w = small_writer();
    T_STATUS(mio_writer_write_file(w, dest), MIO_ERR_IO);
    T_MSG_HAS("refusing to write");
    T_MSG_HAS(kind);
    T_STATUS(mio_writer_begin_file(w, dest), MIO_ERR_IO);
    mio_writer_free(w);
    static const float x[2] = {1, 2};
    uint64_t shape[1] = {2};
    mio_st_entry e = {.name = "x", .dtype = MIO_ST_F32, .n_dims = 1, .shape = shape, .data = x, .nbytes = sizeof x};
    T_STATUS(mio_st_save_file(dest, &e, 1, NULL, 0), MIO_ERR_IO);
    T_MSG_HAS(kind);
    T_EQ_INT(count_names(".tmp-"), 0);
}

static void test_destinations(void) {
    char p[128];
    struct stat st;

    /* a symlink to /dev/null (how /dev/stdout is made): the device survives */
    path_in(p, sizeof p, "null-link.gguf");
    T_CHECK(symlink("/dev/null", p) == 0);
    refused(p, "it exists and is a character device, not a regular file");
    T_CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
    T_CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    unlink(p);

    /* a FIFO */
    path_in(p, sizeof p, "out.fifo");
    T_CHECK(mkfifo(p, 0600) == 0);
    refused(p, "a FIFO (named pipe)");
    T_CHECK(stat(p, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(p);

    /* a directory */
    path_in(p, sizeof p, "adir");
    T_CHECK(mkdir(p, 0700) == 0);
    refused(p, "a directory");
    rmdir(p);

    /* a character device node (root only: mknod) */
    if (geteuid() == 0) {
        path_in(p, sizeof p, "nulldev");
        T_CHECK(mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0);
        refused(p, "a character device");
        T_CHECK(stat(p, &st) == 0 && S_ISCHR(st.st_mode));
        unlink(p);
    } else {
        printf("note: not root, the mknod case is skipped\n");
    }

    /* the permission bits of the file replaced are kept */
    path_in(p, sizeof p, "private.gguf");
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    T_CHECK(fd >= 0);
    if (fd >= 0) { (void)!write(fd, "old", 3); fchmod(fd, 0600); close(fd); }
    mio_writer *w = small_writer();
    T_OK(mio_writer_write_file(w, p));
    T_CHECK(stat(p, &st) == 0);
    T_EQ_INT(st.st_mode & 07777, 0600);
    T_EQ_INT(st.st_size, SMALL_FILE_SIZE);
    T_CHECK(chmod(p, 0640) == 0);
    T_OK(mio_writer_write_file(w, p));
    T_CHECK(stat(p, &st) == 0);
    T_EQ_INT(st.st_mode & 07777, 0640);
    unlink(p);
    /* a new file: 0666 minus the umask */
    mode_t um = umask(022);
    T_OK(mio_writer_write_file(w, p));
    T_CHECK(stat(p, &st) == 0);
    T_EQ_INT(st.st_mode & 07777, 0644);
    umask(um);
    unlink(p);

    /* a symlink to a regular file: the target is replaced, the link stays */
    char target[128];
    path_in(target, sizeof target, "target.gguf");
    path_in(p, sizeof p, "link.gguf");
    fd = open(target, O_CREAT | O_WRONLY, 0644);
    T_CHECK(fd >= 0);
    if (fd >= 0) { (void)!write(fd, "old", 3); close(fd); }
    T_CHECK(symlink("target.gguf", p) == 0);
    T_OK(mio_writer_write_file(w, p));
    T_CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
    T_CHECK(stat(target, &st) == 0);
    T_EQ_INT(st.st_size, SMALL_FILE_SIZE);
    unlink(p);
    unlink(target);

    /* names near the 255-byte limit: a 250-byte name leaves no room for ".tmp-XXXXXX" */
    char name[251], lp[512];
    memset(name, 'n', 250);
    memcpy(name + 245, ".gguf", 6);
    snprintf(lp, sizeof lp, "%s/%s", g_dir, name);
    T_OK(mio_writer_write_file(w, lp));
    T_CHECK(stat(lp, &st) == 0);
    T_EQ_INT(st.st_size, SMALL_FILE_SIZE);
    T_EQ_INT(count_names(".mio-"), 0);
    T_EQ_INT(count_names(".tmp-"), 0);
    unlink(lp);
    mio_writer_free(w);
}

static void test_cancel(void) {
    char p[128];
    path_in(p, sizeof p, "cancel.gguf");
    static const float data[4] = {1, 2, 3, 4};
    int64_t ne[1] = {4};
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_declare_tensor(w, "a", MIO_TYPE_F32, 1, ne));
    T_OK(mio_writer_declare_tensor(w, "b", MIO_TYPE_F32, 1, ne));
    T_EQ_INT(mio_cancel_writes(), 0); /* nothing in flight */
    T_OK(mio_writer_begin_file(w, p));
    T_OK(mio_writer_write_tensor(w, data, sizeof data));
    T_EQ_INT(count_names("cancel.gguf.tmp-"), 1);
    T_EQ_INT(mio_cancel_writes(), 1);
    T_EQ_INT(count_names("cancel.gguf"), 0); /* the temp file is gone, no destination */
    T_STATUS(mio_writer_write_tensor(w, data, sizeof data), MIO_ERR_CANCELLED);
    T_MSG_HAS("cancelled");
    T_STATUS(mio_writer_finish(w), MIO_ERR_STATE);
    T_EQ_INT(mio_cancel_writes(), 0);
    /* the writer can be used again after a cancelled stream */
    T_OK(mio_writer_begin_file(w, p));
    T_OK(mio_writer_write_tensor(w, data, sizeof data));
    T_OK(mio_writer_write_tensor(w, data, sizeof data));
    T_EQ_INT(mio_cancel_writes(), 1); /* after the last tensor, before finish */
    T_STATUS(mio_writer_finish(w), MIO_ERR_CANCELLED);
    T_EQ_INT(count_names("cancel.gguf"), 0);
    /* and an existing destination is untouched by a cancelled write */
    T_OK(mio_writer_begin_file(w, p));
    T_OK(mio_writer_write_tensor(w, data, sizeof data));
    T_OK(mio_writer_write_tensor(w, data, sizeof data));
    T_OK(mio_writer_finish(w));
    struct stat st;
    T_CHECK(stat(p, &st) == 0);
    T_OK(mio_writer_set_u32(w, "x.val", 9));
    T_OK(mio_writer_begin_file(w, p));
    T_EQ_INT(mio_cancel_writes(), 1);
    T_STATUS(mio_writer_write_tensor(w, data, sizeof data), MIO_ERR_CANCELLED);
    struct stat st2;
    T_CHECK(stat(p, &st2) == 0 && st2.st_ino == st.st_ino && st2.st_size == st.st_size);
    T_EQ_INT(count_names(".tmp-"), 0);
    mio_writer_free(w);
    unlink(p);
    T_EQ_STR(mio_status_name(MIO_ERR_CANCELLED), "MIO_ERR_CANCELLED");
}

/* mio_gguf_read_tensor / mio_st_read_tensor: bytes through pread, and a file
 * truncated after it was mapped is an error, not a SIGBUS (docs/SECURITY.md). */
static void test_read_tensor(void) {
    char gp[96], sp[96];
    snprintf(gp, sizeof gp, "%s/rt.gguf", g_dir);
    snprintf(sp, sizeof sp, "%s/rt.safetensors", g_dir);
    float v[1024];
    for (int i = 0; i < 1024; i++) v[i] = (float)i;
    mio_writer *w;
    T_OK(mio_writer_new(0, &w));
    int64_t ne[1] = {1024};
    T_OK(mio_writer_add_tensor(w, "a", MIO_TYPE_F32, 1, ne, v, sizeof v));
    T_OK(mio_writer_add_tensor(w, "b", MIO_TYPE_F32, 1, ne, v, sizeof v));
    T_OK(mio_writer_write_file(w, gp));
    mio_writer_free(w);

    mio_gguf_file *f;
    T_OK(mio_gguf_open(gp, 0, &f));
    float got[1024];
    T_OK(mio_gguf_read_tensor(f, 1, 0, got, sizeof got));
    T_CHECK(memcmp(got, v, sizeof v) == 0);
    float two[2] = {0, 0};
    T_OK(mio_gguf_read_tensor(f, 1, 400, two, 8)); /* elements 100 and 101 */
    T_CHECK(two[0] == 100.0f && two[1] == 101.0f);
    T_STATUS(mio_gguf_read_tensor(f, 1, 4090, two, 8), MIO_ERR_OUT_OF_RANGE);
    T_MSG_HAS("tensor 'b': bytes 4090..4098 are outside its 4096 bytes");
    T_STATUS(mio_gguf_read_tensor(f, 2, 0, two, 8), MIO_ERR_INVALID_ARG);
    T_OK(mio_gguf_read_tensor(f, 0, 0, NULL, 0));
    /* cut the file 100 bytes into b's data: a read through the mapping would be SIGBUS */
    mio_gguf_tensor tb;
    T_OK(mio_gguf_tensor_info(f, 1, &tb));
    uint64_t b_at = mio_gguf_part_data_offset(f, 0) + tb.offset;
    T_EQ_INT(truncate(gp, (off_t)(b_at + 100)), 0);
    T_STATUS(mio_gguf_read_tensor(f, 1, 0, got, sizeof got), MIO_ERR_TRUNCATED);
    char want[160];
    snprintf(want, sizeof want, "tensor 'b': the file is now %llu bytes long", (unsigned long long)(b_at + 100));
    T_MSG_HAS(want);
    snprintf(want, sizeof want, "bytes %llu..%llu are gone", (unsigned long long)(b_at + 100),
             (unsigned long long)(b_at + 4096));
    T_MSG_HAS(want);
    T_OK(mio_gguf_read_tensor(f, 1, 0, got, 100)); /* what is still there reads */
    T_CHECK(memcmp(got, v, 100) == 0);
    T_OK(mio_gguf_read_tensor(f, 0, 0, got, sizeof got));
    T_CHECK(memcmp(got, v, sizeof v) == 0);
    mio_gguf_close(f);

    /* safetensors: the same through the shard's descriptor */
    uint64_t shape[1] = {1024};
    mio_st_entry e[2] = {{"a", MIO_ST_F32, 1, shape, v, sizeof v}, {"b", MIO_ST_F32, 1, shape, v, sizeof v}};
    T_OK(mio_st_save_file(sp, e, 2, NULL, 0));
    mio_st_file *s;
    T_OK(mio_st_open(sp, 0, &s));
    int64_t ib = mio_st_find_tensor(s, "b");
    T_CHECK(ib >= 0);
    T_OK(mio_st_read_tensor(s, ib, 8, two, 8));
    T_CHECK(two[0] == 2.0f && two[1] == 3.0f);
    mio_st_tensor st;
    T_OK(mio_st_tensor_info(s, ib, &st));
    struct stat sb;
    T_EQ_INT(stat(sp, &sb), 0);
    T_EQ_INT(truncate(sp, sb.st_size - 4), 0); /* b's last element is gone */
    T_STATUS(mio_st_read_tensor(s, ib, 0, got, sizeof got), MIO_ERR_TRUNCATED);
    T_MSG_HAS("tensor 'b': the file is now");
    T_OK(mio_st_read_tensor(s, ib, 0, got, sizeof got - 4));
    T_CHECK(memcmp(got, v, sizeof v - 4) == 0);
    mio_st_close(s);

    /* a handle opened from a buffer copies from memory */
    void *buf = NULL;
    size_t blen = 0;
    T_OK(mio_st_save_buffer(e, 2, NULL, 0, &buf, &blen));
    T_OK(mio_st_open_buffer(buf, blen, MIO_BUFFER_TAKE, &s));
    T_OK(mio_st_read_tensor(s, mio_st_find_tensor(s, "a"), 4092, two, 4));
    T_CHECK(two[0] == 1023.0f);
    mio_st_close(s);
    unlink(gp);
    unlink(sp);
}

int main(void) {
    signal(SIGALRM, on_alarm);
    snprintf(g_dir, sizeof g_dir, "/tmp/mio-test-io-XXXXXX");
    if (!mkdtemp(g_dir)) T_SKIP("cannot create a temporary directory");
    test_fifo_reads();
    test_destinations();
    test_cancel();
    test_read_tensor();
    rmdir(g_dir);
    T_DONE();
}
