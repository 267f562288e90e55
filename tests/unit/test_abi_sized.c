/* SPDX-License-Identifier: MIT */
/* test_abi_sized.c — the growth paths of docs/ABI.md, exercised as programs
 * built against an older or a newer modelio.h would use them:
 *  - sized outputs (mio_gguf_kv_value_sized, mio_gguf_value_elem_sized,
 *    mio_gguf_tensor_info_sized, mio_st_tensor_info_sized): a smaller struct
 *    gets only its prefix, a larger one the library's struct and zeros after it;
 *  - sized mio_st_entry arrays (mio_st_save_*_sized): a larger entry whose
 *    unknown tail is zero saves the same bytes as the unsized call, a set tail
 *    byte is refused naming the entry and the byte;
 *  - sized mio_kv_edit arrays (mio_writer_apply_edits_sized, mio_gguf_copy_edit
 *    _sized/_fd_sized, mio_gguf_edit_in_place_sized): the same rules;
 *  - params structs with a leading size: a larger struct with a zero tail is
 *    read, a set tail byte is refused, a size below the 0.1 one is refused;
 *  - the runtime counts mio_type_count / mio_st_dtype_count. */
#include "modelio.h"
#include "test.h"

#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#define SENT 0xA5
static int all_bytes(const void *p, size_t n, int v) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v) return 0;
    return 1;
}

static membuf g_img;
static mio_gguf_file *g_f;

static void make_gguf(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    const int32_t ai[3] = {5, -6, 7};
    const int64_t ne[2] = {4, 2};
    static const float d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    T_OK(mio_writer_set_arr(w, "ai", MIO_GGUF_I32, ai, 3));
    T_OK(mio_writer_add_tensor(w, "m", MIO_TYPE_F32, 2, ne, d, sizeof d));
    T_OK(mio_writer_write_cb(w, mem_sink, &g_img));
    T_OK(mio_writer_write_file(w, "abi_sized.gguf"));
    mio_writer_free(w);
    T_OK(mio_gguf_open_buffer(g_img.p, g_img.len, MIO_BUFFER_BORROW, &g_f));
    if (!g_f) exit(1);
}

static void test_counts(void) {
    T_EQ_INT(mio_type_count(), MIO_TYPE_GGML_COUNT);
    T_EQ_INT(mio_type_count(), 43);
    T_EQ_STR(mio_type_name(mio_type_count() - 1), "q2_0"); /* the highest code it knows */
    T_CHECK(mio_type_name(mio_type_count()) == NULL);
    T_EQ_INT(mio_st_dtype_count(), MIO_ST_DTYPE_COUNT);
    T_EQ_INT(mio_st_dtype_count(), 22);
    T_EQ_STR(mio_st_dtype_name(mio_st_dtype_count() - 1), "U64");
    T_CHECK(mio_st_dtype_name(mio_st_dtype_count()) == NULL);
}

/* A struct of a "newer header": the library's struct and 16 more bytes. */
typedef struct { mio_gguf_value v; unsigned char future[16]; } value_plus;
typedef struct { mio_gguf_tensor t; unsigned char future[16]; } tensor_plus;
typedef struct { mio_st_tensor t; unsigned char future[16]; } st_tensor_plus;

static void test_sized_outputs(void) {
    mio_gguf_value ref, small;
    value_plus big;
    T_OK(mio_gguf_kv_value(g_f, 0, &ref));
    T_EQ_INT(ref.type, MIO_GGUF_ARRAY);
    T_EQ_INT(ref.count, 3);
    /* larger: the library's bytes, then zeros */
    memset(&big, SENT, sizeof big);
    T_OK(mio_gguf_kv_value_sized(g_f, 0, &big.v, sizeof big));
    T_CHECK(memcmp(&big.v, &ref, sizeof ref) == 0);
    T_CHECK(all_bytes(big.future, sizeof big.future, 0));
    /* smaller (an "older header" that ends after count): only those bytes */
    memset(&small, SENT, sizeof small);
    size_t upto_count = offsetof(mio_gguf_value, count) + sizeof small.count;
    T_OK(mio_gguf_kv_value_sized(g_f, 0, &small, upto_count));
    T_EQ_INT(small.type, MIO_GGUF_ARRAY);
    T_EQ_INT(small.elem_type, MIO_GGUF_I32);
    T_EQ_U64(small.count, 3);
    T_CHECK(all_bytes((unsigned char *)&small + upto_count, sizeof small - upto_count, SENT));
    /* size 0: nothing written, MIO_OK */
    memset(&small, SENT, sizeof small);
    T_OK(mio_gguf_kv_value_sized(g_f, 0, &small, 0));
    T_CHECK(all_bytes(&small, sizeof small, SENT));

    /* element 1 (-6) */
    mio_gguf_value eref;
    T_OK(mio_gguf_value_elem(&ref, 1, &eref));
    memset(&big, SENT, sizeof big);
    T_OK(mio_gguf_value_elem_sized(&ref, 1, &big.v, sizeof big));
    T_CHECK(memcmp(&big.v, &eref, sizeof eref) == 0);
    T_CHECK(all_bytes(big.future, sizeof big.future, 0));
    int64_t x = 0;
    T_OK(mio_gguf_value_i64(&big.v, &x));
    T_EQ_INT(x, -6);

    mio_gguf_tensor tref;
    tensor_plus tb;
    T_OK(mio_gguf_tensor_info(g_f, 0, &tref));
    memset(&tb, SENT, sizeof tb);
    T_OK(mio_gguf_tensor_info_sized(g_f, 0, &tb.t, sizeof tb));
    T_CHECK(memcmp(&tb.t, &tref, sizeof tref) == 0);
    T_CHECK(all_bytes(tb.future, sizeof tb.future, 0));
    T_EQ_MSTR(tb.t.name, "m");
    T_EQ_INT(tb.t.ne[1], 2);
    T_EQ_U64(tb.t.nbytes, 32);
    /* only the name */
    mio_gguf_tensor ts;
    memset(&ts, SENT, sizeof ts);
    T_OK(mio_gguf_tensor_info_sized(g_f, 0, &ts, sizeof(mio_str)));
    T_EQ_MSTR(ts.name, "m");
    T_CHECK(all_bytes(&ts.n_dims, sizeof ts - sizeof(mio_str), SENT));

    /* safetensors */
    static const uint64_t shape[2] = {2, 3};
    static const float d[6] = {1, 2, 3, 4, 5, 6};
    const mio_st_entry e[1] = {{"w", MIO_ST_F32, 2, shape, d, sizeof d}};
    void *buf = NULL;
    size_t len = 0;
    T_OK(mio_st_save_buffer(e, 1, NULL, 0, &buf, &len));
    mio_st_file *sf = NULL;
    T_OK(mio_st_open_buffer(buf, len, MIO_BUFFER_TAKE, &sf));
    mio_st_tensor sref;
    st_tensor_plus sb;
    T_OK(mio_st_tensor_info(sf, 0, &sref));
    memset(&sb, SENT, sizeof sb);
    T_OK(mio_st_tensor_info_sized(sf, 0, &sb.t, sizeof sb));
    T_CHECK(memcmp(&sb.t, &sref, sizeof sref) == 0);
    T_CHECK(all_bytes(sb.future, sizeof sb.future, 0));
    T_EQ_INT(sb.t.dtype, MIO_ST_F32);
    T_EQ_U64(sb.t.shape[1], 3);
    T_EQ_U64(sb.t.nbytes, 24);
    mio_st_close(sf);
}

/* An entry of a "newer header": the 0.1 fields and one more. */
typedef struct { mio_st_entry e; uint64_t future; } entry_plus;

static int count_sink(void *user, const void *data, size_t len) { return mem_sink(user, data, len); }

static void test_sized_entries(void) {
    static const uint64_t s1[1] = {2}, s2[2] = {2, 2};
    static const float a[2] = {1, 2}, b[4] = {3, 4, 5, 6};
    const mio_st_entry plain[2] = {{"a", MIO_ST_F32, 1, s1, a, sizeof a}, {"b", MIO_ST_F32, 2, s2, b, sizeof b}};
    entry_plus plus[2] = {{plain[0], 0}, {plain[1], 0}};
    const mio_st_meta meta[1] = {{"format", "pt"}};
    void *ref = NULL, *got = NULL;
    size_t ref_len = 0, got_len = 0;
    T_OK(mio_st_save_buffer(plain, 2, meta, 1, &ref, &ref_len));
    T_OK(mio_st_save_buffer_sized(&plus[0].e, 2, sizeof plus[0], meta, 1, &got, &got_len));
    T_EQ_U64(got_len, ref_len);
    T_CHECK(got && ref && got_len == ref_len && memcmp(got, ref, ref_len) == 0);
    mio_free(got);
    /* the same size as the library's: the array itself */
    got = NULL;
    T_OK(mio_st_save_buffer_sized(plain, 2, sizeof plain[0], meta, 1, &got, &got_len));
    T_CHECK(got && got_len == ref_len && memcmp(got, ref, ref_len) == 0);
    mio_free(got);
    /* callback, file, sharded: the same bytes */
    membuf m = {0};
    T_OK(mio_st_save_cb_sized(&plus[0].e, 2, sizeof plus[0], meta, 1, count_sink, &m));
    T_CHECK(m.len == ref_len && memcmp(m.p, ref, ref_len) == 0);
    free(m.p);
    T_OK(mio_st_save_file_sized("abi_sized.safetensors", &plus[0].e, 2, sizeof plus[0], meta, 1));
    size_t fl = 0;
    uint8_t *fb = t_read_file("abi_sized.safetensors", &fl);
    T_CHECK(fb && fl == ref_len && memcmp(fb, ref, ref_len) == 0);
    free(fb);
    uint32_t ns = 0;
    T_OK(mio_st_save_sharded_sized("abi_sized_dir", &plus[0].e, 2, sizeof plus[0], meta, 1, 1000, &ns));
    T_EQ_INT(ns, 1);
    fb = t_read_file("abi_sized_dir/model.safetensors", &fl);
    T_CHECK(fb && fl == ref_len && memcmp(fb, ref, ref_len) == 0);
    free(fb);

    /* a set field this library does not know: refused, naming the entry and the byte */
    plus[1].future = 1;
    char want[200];
    snprintf(want, sizeof want, "entry 1 is %zu bytes and byte %zu is set", sizeof plus[0], sizeof(mio_st_entry));
    got = NULL;
    T_STATUS(mio_st_save_buffer_sized(&plus[0].e, 2, sizeof plus[0], meta, 1, &got, &got_len), MIO_ERR_INVALID_ARG);
    T_MSG_HAS(want);
    T_MSG_HAS("a newer modelio.h");
    T_CHECK(got == NULL);
    T_STATUS(mio_st_save_file_sized("abi_sized2.safetensors", &plus[0].e, 2, sizeof plus[0], meta, 1), MIO_ERR_INVALID_ARG);
    T_CHECK(access("abi_sized2.safetensors", F_OK) != 0);
    /* an entry size below the library's struct, or absurd */
    T_STATUS(mio_st_save_buffer_sized(plain, 2, sizeof plain[0] - 8, meta, 1, &got, &got_len), MIO_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "entry_size is %zu; pass sizeof(mio_st_entry)", sizeof plain[0] - 8);
    T_MSG_HAS(want);
    T_STATUS(mio_st_save_cb_sized(plain, 2, (size_t)1 << 20, meta, 1, count_sink, NULL), MIO_ERR_INVALID_ARG);
    /* n 0: no entry is read, any valid size */
    got = NULL;
    T_OK(mio_st_save_buffer_sized(NULL, 0, sizeof(entry_plus), NULL, 0, &got, &got_len));
    T_EQ_U64(got_len, 8 + 8); /* "{}" padded with spaces to 8 */
    mio_free(got);
    mio_free(ref);
}

typedef struct { mio_kv_edit e; uint64_t future; } edit_plus;

static int same_file(const char *a, const char *b) {
    size_t la = 0, lb = 0;
    uint8_t *pa = t_read_file(a, &la), *pb = t_read_file(b, &lb);
    int same = pa && pb && la == lb && memcmp(pa, pb, la) == 0;
    free(pa);
    free(pb);
    return same;
}

static void test_sized_edits(void) {
    const mio_kv_edit plain[2] = {{.key = "general.name", .op = MIO_KV_SET, .type = MIO_GGUF_STRING, .str = "nm", .str_len = 2},
                                  {.key = "ai", .op = MIO_KV_REMOVE}};
    edit_plus plus[2] = {{plain[0], 0}, {plain[1], 0}};
    /* on a writer */
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_u8(w, "ai", 1));
    T_OK(mio_writer_apply_edits_sized(w, &plus[0].e, 2, sizeof plus[0]));
    T_EQ_INT(mio_writer_kv_count(w), 1); /* ai removed, general.name set */
    plus[0].future = (uint64_t)1 << 56;
    T_STATUS(mio_writer_apply_edits_sized(w, &plus[0].e, 2, sizeof plus[0]), MIO_ERR_INVALID_ARG);
    char want[200];
    snprintf(want, sizeof want, "edit 0 is %zu bytes and byte %zu is set", sizeof plus[0], sizeof(mio_kv_edit) + 7);
    T_MSG_HAS(want);
    T_EQ_INT(mio_writer_kv_count(w), 1);
    T_STATUS(mio_writer_apply_edits_sized(w, plain, 2, sizeof plain[0] - 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("edit_size is");
    mio_writer_free(w);
    plus[0].future = 0;
    /* copies: the same bytes as the unsized calls */
    T_OK(mio_gguf_copy_edit("abi_sized.gguf", "abi_sized_e1.gguf", plain, 2));
    T_OK(mio_gguf_copy_edit_sized("abi_sized.gguf", "abi_sized_e2.gguf", &plus[0].e, 2, sizeof plus[0]));
    T_CHECK(same_file("abi_sized_e1.gguf", "abi_sized_e2.gguf"));
    int fd = open("abi_sized_e3.gguf", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_CHECK(fd >= 0);
    T_OK(mio_gguf_copy_edit_fd_sized("abi_sized.gguf", fd, &plus[0].e, 2, sizeof plus[0]));
    close(fd);
    T_CHECK(same_file("abi_sized_e1.gguf", "abi_sized_e3.gguf"));
    /* in place: general.name "nm" -> "xy" (same length, so the header fits) */
    edit_plus ip = {{.key = "general.name", .op = MIO_KV_SET, .type = MIO_GGUF_STRING, .str = "xy", .str_len = 2}, 0};
    T_OK(mio_gguf_edit_in_place_sized("abi_sized_e2.gguf", &ip.e, 1, sizeof ip));
    mio_gguf_file *g = NULL;
    T_OK(mio_gguf_open("abi_sized_e2.gguf", 0, &g));
    mio_str v = {0};
    T_OK(mio_gguf_kv_str(g, mio_gguf_find_key(g, "general.name"), &v));
    T_EQ_MSTR(v, "xy");
    T_EQ_INT(mio_gguf_find_key(g, "ai"), -1);
    mio_gguf_close(g);
    ip.future = 1;
    T_STATUS(mio_gguf_edit_in_place_sized("abi_sized_e2.gguf", &ip.e, 1, sizeof ip), MIO_ERR_INVALID_ARG);
}

typedef struct { mio_gguf_split_params p; uint64_t future; } split_plus;
typedef struct { mio_quantize_params p; uint64_t future; } quantize_plus;
typedef struct { mio_convert_params p; uint64_t future; } convert_plus;
typedef struct { mio_lora_params p; uint64_t future; } lora_plus;
typedef struct { mio_ptqtp_options o; uint64_t future; } ptqtp_options_plus;

static void test_default_params_sized(void) {
    /* a newer header's struct: the library's defaults, zeros after them, the caller's size */
    quantize_plus qp;
    mio_quantize_params qd;
    mio_quantize_default_params(&qd);
    memset(&qp, SENT, sizeof qp);
    T_OK(mio_quantize_default_params_sized(&qp.p, sizeof qp));
    T_EQ_U64(qp.p.size, sizeof qp);
    T_CHECK(memcmp((char *)&qp.p + sizeof(size_t), (char *)&qd + sizeof(size_t), sizeof qd - sizeof(size_t)) == 0);
    T_EQ_U64(qp.future, 0);
    T_EQ_INT(qp.p.preset, MIO_PRESET_NONE);
    T_EQ_INT(qp.p.output_tensor_type, -1);
    /* the library's own size: the same bytes as the unsized call */
    mio_quantize_params q1;
    memset(&q1, SENT, sizeof q1);
    T_OK(mio_quantize_default_params_sized(&q1, sizeof q1));
    T_CHECK(memcmp(&q1, &qd, sizeof qd) == 0);
    T_STATUS(mio_quantize_default_params_sized(&q1, sizeof q1 - 8), MIO_ERR_INVALID_ARG);
    char want[160];
    snprintf(want, sizeof want, "size is %zu; pass sizeof(mio_quantize_params) (%zu in this library", sizeof q1 - 8,
             sizeof q1);
    T_MSG_HAS(want);

    split_plus sp;
    memset(&sp, SENT, sizeof sp);
    T_OK(mio_gguf_split_default_params_sized(&sp.p, sizeof sp));
    T_EQ_U64(sp.p.size, sizeof sp);
    T_EQ_INT(sp.p.max_tensors, 128);
    T_EQ_U64(sp.p.max_bytes, 0);
    T_EQ_U64(sp.future, 0);
    sp.p.dry_run = 1;
    uint32_t n = 0;
    T_OK(mio_gguf_split("abi_sized.gguf", "abi_sized_split", &sp.p, &n)); /* and the size is accepted */
    T_EQ_INT(n, 1);
    T_STATUS(mio_gguf_split_default_params_sized(&sp.p, 8), MIO_ERR_INVALID_ARG);

    convert_plus cp;
    memset(&cp, SENT, sizeof cp);
    T_OK(mio_convert_default_params_sized(&cp.p, sizeof cp));
    T_EQ_U64(cp.p.size, sizeof cp);
    T_EQ_INT(cp.p.dtype, -1);
    T_CHECK(cp.p.edits == NULL && cp.p.n_edits == 0);
    T_EQ_U64(cp.future, 0);
    T_OK(mio_gguf_to_st("abi_sized.gguf", "abi_sized_c4.safetensors", &cp.p));
    T_STATUS(mio_convert_default_params_sized(&cp.p, (size_t)1 << 17), MIO_ERR_INVALID_ARG);

    lora_plus lp;
    mio_lora_params ld;
    mio_lora_default_params(&ld);
    memset(&lp, SENT, sizeof lp);
    T_OK(mio_lora_default_params_sized(&lp.p, sizeof lp));
    T_EQ_U64(lp.p.size, sizeof lp);
    T_CHECK(lp.p.adapters == NULL && lp.p.alpha_set == 0 && lp.p.plan == NULL);
    T_EQ_INT(lp.p.permute_qk, -1);
    T_EQ_U64(lp.future, 0);
    mio_lora_params l1;
    memset(&l1, SENT, sizeof l1);
    T_OK(mio_lora_default_params_sized(&l1, sizeof l1));
    T_CHECK(memcmp(&l1, &ld, sizeof ld) == 0);
    T_STATUS(mio_lora_default_params_sized(&l1, 8), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("pass sizeof(mio_lora_params)");

    ptqtp_options_plus op;
    memset(&op, SENT, sizeof op);
    T_OK(mio_ptqtp_default_options_sized(&op.o, sizeof op));
    T_EQ_U64(op.o.size, sizeof op);
    T_EQ_INT(op.o.planes, 2);
    T_EQ_INT(op.o.tie_scales, 0);
    T_EQ_INT(op.o.n_threads, 0);
    T_EQ_U64(op.future, 0);
    /* and mio_ptqtp_quantize takes that size: one 1 x 256 row, two planes */
    float w[256];
    for (int i = 0; i < 256; i++) w[i] = (float)(i % 7) - 3.0f;
    uint8_t p0[66], p1[66];
    void *const planes[2] = {p0, p1};
    T_OK(mio_ptqtp_quantize(w, 1, 256, &op.o, planes, sizeof p0, NULL));
    op.future = 1;
    T_STATUS(mio_ptqtp_quantize(w, 1, 256, &op.o, planes, sizeof p0, NULL), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_ptqtp_default_options_sized(&op.o, 4), MIO_ERR_INVALID_ARG);
}

static void test_params(void) {
    uint32_t n = 0;
    split_plus sp;
    memset(&sp, 0, sizeof sp);
    mio_gguf_split_default_params(&sp.p);
    T_EQ_U64(sp.p.size, sizeof(mio_gguf_split_params));
    sp.p.size = sizeof sp;
    sp.p.max_tensors = 1;
    sp.p.dry_run = 1;
    T_OK(mio_gguf_split("abi_sized.gguf", "abi_sized_split", &sp.p, &n));
    T_EQ_INT(n, 1);
    sp.future = 7;
    T_STATUS(mio_gguf_split("abi_sized.gguf", "abi_sized_split", &sp.p, &n), MIO_ERR_INVALID_ARG);
    char want[200];
    snprintf(want, sizeof want, "mio_gguf_split_params is %zu bytes and byte %zu is set", sizeof sp, sizeof(mio_gguf_split_params));
    T_MSG_HAS(want);
    sp.p.size = sizeof(mio_gguf_split_params) - 8; /* smaller than any header ever had */
    T_STATUS(mio_gguf_split("abi_sized.gguf", "abi_sized_split", &sp.p, &n), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("fill the parameters with mio_gguf_split_default_params first");

    quantize_plus qp;
    memset(&qp, 0, sizeof qp);
    mio_quantize_default_params(&qp.p);
    qp.p.size = sizeof qp;
    qp.p.dry_run = 1;
    T_OK(mio_quantize("abi_sized.gguf", "abi_sized_q.gguf", &qp.p));
    qp.future = 1;
    T_STATUS(mio_quantize("abi_sized.gguf", "abi_sized_q.gguf", &qp.p), MIO_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "mio_quantize_params is %zu bytes and byte %zu is set", sizeof qp,
             sizeof(mio_quantize_params));
    T_MSG_HAS(want);
    qp.p.size = (size_t)1 << 20; /* garbage */
    T_STATUS(mio_quantize("abi_sized.gguf", "abi_sized_q.gguf", &qp.p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("p->size is 1048576; fill the parameters with mio_quantize_default_params first");

    convert_plus cp;
    memset(&cp, 0, sizeof cp);
    mio_convert_default_params(&cp.p);
    cp.p.size = sizeof cp;
    T_OK(mio_gguf_to_st("abi_sized.gguf", "abi_sized_c.safetensors", &cp.p));
    cp.future = 1;
    T_STATUS(mio_gguf_to_st("abi_sized.gguf", "abi_sized_c2.safetensors", &cp.p), MIO_ERR_INVALID_ARG);
    T_CHECK(access("abi_sized_c2.safetensors", F_OK) != 0);
    /* the size before edits were added (a struct ending at progress_user) is still read */
    mio_convert_default_params(&cp.p);
    cp.p.size = offsetof(mio_convert_params, progress_user) + sizeof(void *);
    cp.p.n_edits = 5; /* past that size: ignored */
    T_OK(mio_gguf_to_st("abi_sized.gguf", "abi_sized_c3.safetensors", &cp.p));

    /* mio_lora_params: a newer header's struct is read when its tail is zero
     * (the call then goes on to the adapter, which does not exist), refused
     * when a byte of it is set (before any file is looked at) */
    lora_plus lp;
    memset(&lp, 0, sizeof lp);
    mio_lora_default_params(&lp.p);
    lp.p.size = sizeof lp;
    lp.p.adapters = "abi_sized_no_such_adapter";
    mio_status st = mio_lora_merge("abi_sized.gguf", "abi_sized_l.gguf", &lp.p);
    T_CHECK(st != MIO_OK && st != MIO_ERR_INVALID_ARG);
    lp.future = 1;
    T_STATUS(mio_lora_merge("abi_sized.gguf", "abi_sized_l.gguf", &lp.p), MIO_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "mio_lora_params is %zu bytes and byte %zu is set", sizeof lp,
             sizeof(mio_lora_params));
    T_MSG_HAS(want);
    T_CHECK(access("abi_sized_l.gguf", F_OK) != 0);
}

int main(void) {
    make_gguf();
    test_counts();
    test_sized_outputs();
    test_sized_entries();
    test_sized_edits();
    test_params();
    test_default_params_sized();
    mio_gguf_close(g_f);
    free(g_img.p);
    T_DONE();
}
