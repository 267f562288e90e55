/* SPDX-License-Identifier: MIT */
/* test_out_params.c — the out-parameter contract of modelio.h and README.md
 * ("Outputs on failure"): a call that fails writes none of its outputs. Every
 * output below is filled with the byte 0xA5 before a call made to fail in a
 * known way; the test asserts that exact status and that every byte of every
 * output is still 0xA5 afterwards (handles, scalars, structs, views, counts and
 * destination buffers), then that the same call succeeding does write them. */
#include "modelio.h"
#include "test.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#define SENT 0xA5
#define FILL(x) memset(&(x), SENT, sizeof(x))
static int untouched_(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != SENT) return 0;
    return 1;
}
#define UNTOUCHED(x) untouched_(&(x), sizeof(x))
/* fill one (or two) outputs, make the call, expect the status and untouched outputs */
#define FAIL1(x, call, status) do { FILL(x); T_STATUS(call, status); \
    if (!UNTOUCHED(x)) { t_fail++; fprintf(stderr, "%s:%d: %s wrote %s on failure\n", __FILE__, __LINE__, #call, #x); } \
    else t_pass++; } while (0)
#define FAIL2(x, y, call, status) do { FILL(y); FAIL1(x, call, status); \
    if (!UNTOUCHED(y)) { t_fail++; fprintf(stderr, "%s:%d: %s wrote %s on failure\n", __FILE__, __LINE__, #call, #y); } \
    else t_pass++; } while (0)

static membuf g_img;
static mio_gguf_file *g_f;
static int64_t k_s, k_u, k_big, k_neg, k_ai, k_as;

static void make_gguf(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    const int32_t ai[2] = {-1, 7};
    const char *const as[1] = {"x"};
    const int64_t ne1[1] = {4}, ne2[2] = {4, 2};
    static const float d1[4] = {1, 2, 3, 4}, d2[8] = {0};
    T_OK(mio_writer_set_str(w, "s", "hello", 5));
    T_OK(mio_writer_set_u32(w, "u", 7));
    T_OK(mio_writer_set_u64(w, "big", (uint64_t)1 << 63));
    T_OK(mio_writer_set_i32(w, "neg", -3));
    T_OK(mio_writer_set_arr(w, "ai", MIO_GGUF_I32, ai, 2));
    T_OK(mio_writer_set_arr_str(w, "as", as, NULL, 1));
    T_OK(mio_writer_add_tensor(w, "v", MIO_TYPE_F32, 1, ne1, d1, sizeof d1));
    T_OK(mio_writer_add_tensor(w, "m", MIO_TYPE_F32, 2, ne2, d2, sizeof d2));
    T_OK(mio_writer_write_cb(w, mem_sink, &g_img));
    T_OK(mio_writer_write_file(w, "out_params.gguf"));
    mio_writer_free(w);
    T_OK(mio_gguf_open_buffer(g_img.p, g_img.len, MIO_BUFFER_BORROW, &g_f));
    if (!g_f) { fprintf(stderr, "fixture: %s\n", mio_last_error()); exit(1); }
    k_s = mio_gguf_find_key(g_f, "s");
    k_u = mio_gguf_find_key(g_f, "u");
    k_big = mio_gguf_find_key(g_f, "big");
    k_neg = mio_gguf_find_key(g_f, "neg");
    k_ai = mio_gguf_find_key(g_f, "ai");
    k_as = mio_gguf_find_key(g_f, "as");
    T_CHECK(k_s == 0 && k_u == 1 && k_big == 2 && k_neg == 3 && k_ai == 4 && k_as == 5);
}

static void test_handles(void) {
    mio_gguf_file *f;
    mio_st_file *sf;
    mio_writer *w;
    mio_kv_edit *e;
    FAIL1(f, mio_gguf_open("out_params-none.gguf", 0, &f), MIO_ERR_NOT_FOUND);
    FAIL1(f, mio_gguf_open("out_params-none-00001-of-00002.gguf", MIO_OPEN_SPLITS, &f), MIO_ERR_NOT_FOUND);
    FAIL1(f, mio_gguf_open("out_params.gguf", 0x40, &f), MIO_ERR_INVALID_ARG);
    static const uint8_t junk[16] = "GGUX\3\0\0\0";
    FAIL1(f, mio_gguf_open_buffer(junk, sizeof junk, 0, &f), MIO_ERR_BAD_MAGIC);
    FAIL1(f, mio_gguf_open_buffer(g_img.p, 20, 0, &f), MIO_ERR_TRUNCATED);
    FAIL1(w, mio_writer_new(0x80, &w), MIO_ERR_INVALID_ARG);
    FAIL1(e, mio_kv_edit_parse("a=int", &e), MIO_ERR_INVALID_ARG);
    FAIL1(e, mio_kv_edit_parse("a=u8:256", &e), MIO_ERR_OUT_OF_RANGE);
    FAIL1(sf, mio_st_open("out_params-none.safetensors", 0, &sf), MIO_ERR_NOT_FOUND);
    FAIL1(sf, mio_st_open_buffer("abc", 3, 0, &sf), MIO_ERR_HEADER_TOO_SMALL);
    FAIL1(sf, mio_st_read_frame_fd(-1, &sf), MIO_ERR_INVALID_ARG);
    int p[2];
    T_CHECK(pipe(p) == 0);
    T_CHECK(write(p[1], "\x10\0\0\0", 4) == 4);
    close(p[1]);
    FAIL1(sf, mio_st_read_frame_fd(p[0], &sf), MIO_ERR_HEADER_TOO_SMALL);
    close(p[0]);
    /* success writes them */
    f = (mio_gguf_file *)&f;
    T_OK(mio_gguf_open("out_params.gguf", 0, &f));
    T_CHECK(f != (mio_gguf_file *)&f && mio_gguf_tensor_count(f) == 2);
    mio_gguf_close(f);
}

static void test_values(void) {
    int64_t i64;
    uint64_t u64;
    double f64;
    int b;
    uint32_t part;
    uint64_t off;
    mio_str s;
    mio_gguf_value v, arr, elem, sval;
    mio_gguf_tensor t;
    int64_t rows, cols;
    const int64_t ne[1] = {3};

    FAIL1(u64, mio_type_nbytes(99, 1, ne, &u64), MIO_ERR_UNSUPPORTED_TYPE);
    FAIL1(u64, mio_type_nbytes(MIO_TYPE_Q4_0, 1, ne, &u64), MIO_ERR_INVALID_TENSOR_INFO);
    FAIL2(part, off, mio_gguf_find_nonzero_padding(g_f, &part, &off), MIO_ERR_NOT_FOUND);

    FAIL1(v, mio_gguf_kv_value(g_f, 99, &v), MIO_ERR_INVALID_ARG);
    FAIL1(v, mio_gguf_kv_value_sized(g_f, -1, &v, sizeof v), MIO_ERR_INVALID_ARG);
    FAIL1(s, mio_gguf_kv_raw(g_f, 99, &s), MIO_ERR_INVALID_ARG);
    FAIL1(i64, mio_gguf_kv_i64(g_f, k_s, &i64), MIO_ERR_TYPE_MISMATCH);
    FAIL1(i64, mio_gguf_kv_i64(g_f, k_big, &i64), MIO_ERR_OUT_OF_RANGE);
    FAIL1(u64, mio_gguf_kv_u64(g_f, k_neg, &u64), MIO_ERR_OUT_OF_RANGE);
    FAIL1(u64, mio_gguf_kv_u64(g_f, 99, &u64), MIO_ERR_INVALID_ARG);
    FAIL1(f64, mio_gguf_kv_f64(g_f, k_u, &f64), MIO_ERR_TYPE_MISMATCH);
    FAIL1(b, mio_gguf_kv_bool(g_f, k_u, &b), MIO_ERR_TYPE_MISMATCH);
    FAIL1(s, mio_gguf_kv_str(g_f, k_u, &s), MIO_ERR_TYPE_MISMATCH);
    FAIL1(i64, mio_gguf_arr_i64(g_f, k_ai, 2, &i64), MIO_ERR_OUT_OF_RANGE);
    FAIL1(i64, mio_gguf_arr_i64(g_f, k_u, 0, &i64), MIO_ERR_TYPE_MISMATCH);
    FAIL1(u64, mio_gguf_arr_u64(g_f, k_ai, 0, &u64), MIO_ERR_OUT_OF_RANGE); /* -1 */
    FAIL1(f64, mio_gguf_arr_f64(g_f, k_ai, 0, &f64), MIO_ERR_TYPE_MISMATCH);
    FAIL1(s, mio_gguf_arr_str(g_f, k_ai, 0, &s), MIO_ERR_TYPE_MISMATCH);
    FAIL1(s, mio_gguf_arr_str(g_f, k_as, 1, &s), MIO_ERR_OUT_OF_RANGE);

    T_OK(mio_gguf_kv_value(g_f, k_ai, &arr));
    T_OK(mio_gguf_kv_value(g_f, k_s, &sval));
    FAIL1(elem, mio_gguf_value_elem(&arr, 2, &elem), MIO_ERR_OUT_OF_RANGE);
    FAIL1(elem, mio_gguf_value_elem_sized(&sval, 0, &elem, sizeof elem), MIO_ERR_TYPE_MISMATCH);
    T_OK(mio_gguf_value_elem(&arr, 0, &elem)); /* -1 */
    FAIL1(i64, mio_gguf_value_i64(&sval, &i64), MIO_ERR_TYPE_MISMATCH);
    FAIL1(u64, mio_gguf_value_u64(&elem, &u64), MIO_ERR_OUT_OF_RANGE);
    FAIL1(f64, mio_gguf_value_f64(&elem, &f64), MIO_ERR_TYPE_MISMATCH);

    FAIL1(t, mio_gguf_tensor_info(g_f, 2, &t), MIO_ERR_INVALID_ARG);
    FAIL1(t, mio_gguf_tensor_info_sized(g_f, -1, &t, sizeof t), MIO_ERR_INVALID_ARG);
    T_OK(mio_gguf_tensor_info(g_f, 0, &t)); /* "v", 1-D */
    FAIL2(rows, cols, mio_gguf_tensor_shape2d(&t, &rows, &cols), MIO_ERR_INVALID_TENSOR_INFO);

    void *addr;
    size_t len;
    FAIL2(addr, len, mio_gguf_take_mapping(NULL, &addr, &len), MIO_ERR_INVALID_ARG);

    /* the same calls succeeding write their outputs */
    FILL(i64);
    T_OK(mio_gguf_value_i64(&elem, &i64));
    T_EQ_INT(i64, -1);
    FILL(u64);
    T_OK(mio_gguf_kv_u64(g_f, k_big, &u64));
    T_EQ_U64(u64, (uint64_t)1 << 63);
    T_OK(mio_gguf_tensor_info(g_f, 1, &t));
    FILL(rows);
    FILL(cols);
    T_OK(mio_gguf_tensor_shape2d(&t, &rows, &cols));
    T_EQ_INT(rows, 2);
    T_EQ_INT(cols, 4);
}

static void test_buffers(void) {
    float src[256], imat[256], dec[32];
    uint8_t q8[34], q4k[144];
    for (int i = 0; i < 256; i++) { src[i] = (float)(i % 9) - 4.0f; imat[i] = 1.0f; }
    uint8_t good[34];
    T_OK(mio_encode_f32(MIO_TYPE_Q8_0, src, 32, good, sizeof good));
    src[31] = NAN;
    FAIL1(q8, mio_encode_f32(MIO_TYPE_Q8_0, src, 32, q8, sizeof q8), MIO_ERR_NON_FINITE);
    FAIL1(q8, mio_encode_f32_mt(MIO_TYPE_Q8_0, src, 32, q8, sizeof q8, 2), MIO_ERR_NON_FINITE);
    src[31] = 3.0f;
    imat[7] = INFINITY;
    FAIL1(q4k, mio_encode_f32_imatrix(MIO_TYPE_Q4_K, src, 256, 256, imat, q4k, sizeof q4k), MIO_ERR_NON_FINITE);
    FAIL1(q8, mio_encode_f32(MIO_TYPE_Q8_0, src, 32, q8, 33), MIO_ERR_SIZE_MISMATCH);
    FAIL1(dec, mio_decode_f32(MIO_TYPE_Q8_0, good, 33, dec, 32), MIO_ERR_SIZE_MISMATCH);
    FAIL1(dec, mio_decode_f32_mt(MIO_TYPE_Q8_0, good, sizeof good, dec, 31, 2), MIO_ERR_SIZE_MISMATCH);
    FAIL1(dec, mio_decode_f32(MIO_TYPE_IQ2_XXS + 100, good, sizeof good, dec, 32), MIO_ERR_UNSUPPORTED_TYPE);
}

static void test_safetensors(void) {
    static const uint64_t shape[2] = {2, 3};
    static const float data[6] = {1, 2, 3, 4, 5, 6};
    mio_st_entry ent[2] = {{"w", MIO_ST_F32, 2, shape, data, sizeof data}, {"w", MIO_ST_F32, 2, shape, data, sizeof data}};
    const mio_st_meta meta[1] = {{"format", "pt"}};
    void *buf;
    size_t len;
    uint32_t n;
    FAIL2(buf, len, mio_st_save_buffer(ent, 2, meta, 1, &buf, &len), MIO_ERR_DUPLICATE_TENSOR);
    FAIL2(buf, len, mio_st_save_buffer_sized(ent, 1, 8, meta, 1, &buf, &len), MIO_ERR_INVALID_ARG);
    FAIL1(n, mio_st_save_sharded("out_params_sharded", ent, 2, meta, 1, 1000, &n), MIO_ERR_DUPLICATE_TENSOR);
    struct stat sb;
    T_CHECK(stat("out_params_sharded", &sb) != 0); /* created for the save, removed again */
    FAIL1(n, mio_st_save_sharded_sized("out_params_sharded", ent, 2, sizeof ent[0], meta, 1, 0, &n), MIO_ERR_INVALID_ARG);

    T_OK(mio_st_save_buffer(ent, 1, meta, 1, &buf, &len));
    mio_st_file *sf = NULL;
    T_OK(mio_st_open_buffer(buf, len, MIO_BUFFER_TAKE, &sf));
    mio_st_tensor t;
    mio_str k, v;
    FAIL1(t, mio_st_tensor_info(sf, 1, &t), MIO_ERR_INVALID_ARG);
    FAIL1(t, mio_st_tensor_info_sized(sf, -1, &t, sizeof t), MIO_ERR_INVALID_ARG);
    FAIL2(k, v, mio_st_meta_at(sf, 1, &k, &v), MIO_ERR_INVALID_ARG);
    FAIL1(v, mio_st_find_meta(sf, "nope", &v), MIO_ERR_NOT_FOUND);
    uint8_t dst[24];
    size_t written;
    const uint64_t s0[1] = {0}, e9[1] = {9}, e2[1] = {2}, s2[1] = {2}, e1[1] = {1};
    FAIL2(dst, written, mio_st_slice(sf, 0, 1, s0, e9, dst, sizeof dst, &written), MIO_ERR_OUT_OF_RANGE);
    FAIL2(dst, written, mio_st_slice(sf, 0, 1, s2, e1, dst, sizeof dst, &written), MIO_ERR_INVALID_ARG);
    FAIL2(dst, written, mio_st_slice(sf, 0, 1, s0, e2, dst, 23, &written), MIO_ERR_SIZE_MISMATCH);
    FAIL2(dst, written, mio_st_slice(sf, 0, 3, s0, e2, dst, sizeof dst, &written), MIO_ERR_INVALID_ARG);
    /* success: row 1 of the [2, 3] tensor, 12 bytes */
    FILL(written);
    T_OK(mio_st_slice(sf, 0, 1, e1, e2, dst, sizeof dst, &written));
    T_EQ_U64(written, 12);
    float row[3];
    memcpy(row, dst, 12);
    T_CHECK(row[0] == 4 && row[1] == 5 && row[2] == 6);
    mio_st_close(sf);
}

static void test_split(void) {
    mio_gguf_split_params p;
    mio_gguf_split_default_params(&p);
    uint32_t n;
    /* fails after its parameters were checked: the part count was once set to 0 here */
    FAIL1(n, mio_gguf_split("out_params-none.gguf", "out_params_split", &p, &n), MIO_ERR_NOT_FOUND);
    p.max_tensors = 0;
    p.max_bytes = 16; /* the first tensor (16 bytes, 32 padded) alone passes it */
    FAIL1(n, mio_gguf_split("out_params.gguf", "out_params_split", &p, &n), MIO_ERR_LIMIT);
    p.max_bytes = 32;
    p.dry_run = 1;
    FILL(n);
    T_OK(mio_gguf_split("out_params.gguf", "out_params_split", &p, &n));
    T_EQ_INT(n, 2);
}

int main(void) {
    make_gguf();
    test_handles();
    test_values();
    test_buffers();
    test_safetensors();
    test_split();
    mio_gguf_close(g_f);
    free(g_img.p);
    unlink("out_params.gguf");
    T_DONE();
}
