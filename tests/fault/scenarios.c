/* SPDX-License-Identifier: MIT */
/* scenarios.c — the entry points under fault injection, each used the way a
 * program uses it (build, call, clean up), on a tiny model written in setup():
 *   in.gguf   llama-like: 5 tensors (f32, f16; rows of 256 so every k-quant
 *             applies), string, u32, f32-array and string-array keys
 *   sp-*.gguf in.gguf split in 3 parts (2 tensors a part)
 *   in.safetensors, src/ (a sharded checkpoint of 3 shards + index)
 *   peft/     a PEFT adapter (adapter_config.json + adapter_model.safetensors)
 *             for blk.0.ffn_down; fuc.safetensors a Fucina one for blk.0.attn_q
 * and destinations that already hold KNOWN_BYTES (out.gguf, out.safetensors,
 * ckpt/model.safetensors, part-00002-of-00003.gguf), which a failed call must
 * leave as they are. */
#include "harness.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"

/* ------------------------------------------------------------- helpers */
outbuf g_mem;
int g_fd = -1;

void buf_put(outbuf *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->len + n) c *= 2;
        uint8_t *q = fault_real_realloc(b->p, c);
        if (!q) { perror("buf_put"); exit(1); }
        b->p = q;
        b->cap = c;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}
void out_put(const void *p, size_t n) { buf_put(&g_mem, p, n); }

void out_printf(const char *fmt, ...) {
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    out_put(b, n < 0 ? 0 : (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

int out_sink(void *user, const void *data, size_t len) {
    (void)user;
    out_put(data, len);
    return 0;
}

void write_bytes(const char *path, const void *p, size_t n) {
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp) != 0) { perror(path); exit(1); }
}

void *read_bytes(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    *n = 0;
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    void *p = malloc(len > 0 ? (size_t)len : 1);
    if (!p || (len > 0 && fread(p, 1, (size_t)len, fp) != (size_t)len)) { perror(path); exit(1); }
    fclose(fp);
    *n = (size_t)len;
    return p;
}

static void must(mio_status st, const char *what) {
    if (st) { fprintf(stderr, "setup: %s: %s\n", what, mio_last_error()); exit(1); }
}

static void known(const char *path) { write_bytes(path, KNOWN_BYTES, strlen(KNOWN_BYTES)); }

/* ------------------------------------------------------------- the model */
#define NE0 256
#define NE1 4
static float g_w[5][NE0 * NE1];
static uint16_t g_h[NE0 * NE1];
static const char *const g_tok[3] = {"<s>", "hello", "w\xc3\xb6rld"};
static const float g_rope[3] = {1.0f, 0.5f, 0.25f};
static const char *const g_names[5] = {"token_embd.weight", "blk.0.attn_q.weight", "blk.0.ffn_down.weight",
                                       "output.weight", "output_norm.weight"};

static void fill_values(void) {
    uint32_t s = 12345;
    for (int t = 0; t < 5; t++)
        for (int i = 0; i < NE0 * NE1; i++) {
            s = s * 1664525u + 1013904223u;
            g_w[t][i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * (float)(t + 1);
        }
    for (int i = 0; i < NE0 * NE1; i++) g_h[i] = mio_f32_to_fp16(g_w[2][i]);
}

/* The writer of in.gguf (every call checked: a failure is returned). */
static mio_status build_writer(mio_writer **out) {
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(0, &w);
    if (st) return st;
    const int64_t ne[2] = {NE0, NE1}, ne1[1] = {NE0};
    if (!st) st = mio_writer_set_str(w, "general.architecture", "llama", 5);
    if (!st) st = mio_writer_set_str(w, "general.name", "fault model", 11);
    if (!st) st = mio_writer_set_u32(w, "llama.attention.head_count", 2);
    if (!st) st = mio_writer_set_u32(w, "llama.attention.head_count_kv", 1);
    if (!st) st = mio_writer_set_arr(w, "llama.rope.factors", MIO_GGUF_F32, g_rope, 3);
    if (!st) st = mio_writer_set_arr_str(w, "tokenizer.ggml.tokens", g_tok, NULL, 3);
    if (!st) st = mio_writer_set_u32(w, "general.file_type", 0);
    for (int t = 0; t < 5 && !st; t++) {
        if (t == 2) st = mio_writer_add_tensor(w, g_names[t], MIO_TYPE_F16, 2, ne, g_h, sizeof g_h);
        else if (t == 4) st = mio_writer_add_tensor(w, g_names[t], MIO_TYPE_F32, 1, ne1, g_w[t], NE0 * 4);
        else st = mio_writer_add_tensor(w, g_names[t], MIO_TYPE_F32, 2, ne, g_w[t], sizeof g_w[t]);
    }
    if (st) { mio_writer_free(w); return st; }
    *out = w;
    return MIO_OK;
}

static const uint64_t g_shape[2] = {NE1, NE0}, g_shape1[1] = {NE0};
static const mio_st_meta g_meta[2] = {{"format", "pt"}, {"note", "fault injection"}};
static void st_entries(mio_st_entry e[5]) {
    for (int t = 0; t < 5; t++)
        e[t] = (mio_st_entry){.name = g_names[t], .dtype = t == 2 ? MIO_ST_F16 : MIO_ST_F32, .n_dims = t == 4 ? 1 : 2,
                              .shape = t == 4 ? g_shape1 : g_shape, .data = t == 2 ? (const void *)g_h : g_w[t],
                              .nbytes = t == 2 ? sizeof g_h : t == 4 ? NE0 * 4 : sizeof g_w[t]};
}

static void setup_common(void) {
    fill_values();
    mio_writer *w = NULL;
    must(build_writer(&w), "writer");
    must(mio_writer_write_file(w, "in.gguf"), "in.gguf");
    mio_writer_free(w);
    known("out.gguf");
}

static void setup_split(void) {
    setup_common();
    mio_gguf_split_params sp;
    mio_gguf_split_default_params(&sp);
    sp.max_tensors = 2;
    must(mio_gguf_split("in.gguf", "sp", &sp, NULL), "split");
    known("part-00002-of-00003.gguf");
}

static void setup_st(void) {
    setup_common();
    mio_st_entry e[5];
    st_entries(e);
    must(mio_st_save_file("in.safetensors", e, 5, g_meta, 2), "in.safetensors");
    must(mio_st_save_sharded("src", e, 5, g_meta, 2, 2 * sizeof g_w[0], NULL), "src/");
    known("out.safetensors");
    mkdir("ckpt", 0777);
    known("ckpt/model.safetensors");
}

/* rt.safetensors: in.gguf converted, with the __gguf__ layout that brings it back */
static void setup_roundtrip(void) {
    setup_common();
    mio_convert_params p;
    mio_convert_default_params(&p);
    must(mio_gguf_to_st("in.gguf", "rt.safetensors", &p), "rt.safetensors");
}

/* imatrix.dat (llama.cpp's legacy format) and imatrix.gguf, entries for the 4 matrices */
static void setup_imatrix(void) {
    setup_common();
    static float v[NE0];
    for (int i = 0; i < NE0; i++) v[i] = 1.0f + (float)(i % 5);
    static uint8_t b[4 * (4 + 32 + 8 + NE0 * 4) + 64];
    size_t n = 0;
#define PUT(p, len) (memcpy(b + n, (p), (len)), n += (len))
    int32_t i32 = 4;
    PUT(&i32, 4);
    for (int t = 0; t < 4; t++) {
        int32_t l = (int32_t)strlen(g_names[t]), ncall = 1, nval = NE0;
        PUT(&l, 4);
        PUT(g_names[t], (size_t)l);
        PUT(&ncall, 4);
        PUT(&nval, 4);
        PUT(v, sizeof v);
    }
    i32 = 1;
    PUT(&i32, 4);
    i32 = 4;
    PUT(&i32, 4);
    PUT("wiki", 4);
#undef PUT
    write_bytes("imatrix.dat", b, n);
    mio_writer *w = NULL;
    must(mio_writer_new(0, &w), "imatrix writer");
    must(mio_writer_set_str(w, "general.type", "imatrix", 7), "general.type");
    static const char *const ds[1] = {"wiki"};
    must(mio_writer_set_arr_str(w, "imatrix.datasets", ds, NULL, 1), "datasets");
    must(mio_writer_set_u32(w, "imatrix.chunk_count", 1), "chunk_count");
    must(mio_writer_set_u32(w, "imatrix.chunk_size", 512), "chunk_size");
    static const float one[1] = {1};
    for (int t = 0; t < 4; t++) {
        char name[96];
        const int64_t ne_s[2] = {NE0, 1}, ne_c[2] = {1, 1};
        snprintf(name, sizeof name, "%s.in_sum2", g_names[t]);
        must(mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne_s, v, sizeof v), name);
        snprintf(name, sizeof name, "%s.counts", g_names[t]);
        must(mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne_c, one, sizeof one), name);
    }
    must(mio_writer_write_file(w, "imatrix.gguf"), "imatrix.gguf");
    mio_writer_free(w);
}

static void setup_lora(void) {
    setup_common();
    mkdir("peft", 0777);
    const char *cfg = "{\"peft_type\": \"LORA\", \"r\": 1, \"lora_alpha\": 2, \"target_modules\": [\"down_proj\"]}";
    write_bytes("peft/adapter_config.json", cfg, strlen(cfg));
    static float a[NE0], b[NE1] = {1, -1, 0.5f, 2};
    for (int i = 0; i < NE0; i++) a[i] = (float)(i % 7) / 8;
    const uint64_t sa[2] = {1, NE0}, sb[2] = {NE1, 1};
    mio_st_entry e[2] = {
        {.name = "base_model.model.model.layers.0.mlp.down_proj.lora_A.weight", .dtype = MIO_ST_F32, .n_dims = 2,
         .shape = sa, .data = a, .nbytes = sizeof a},
        {.name = "base_model.model.model.layers.0.mlp.down_proj.lora_B.weight", .dtype = MIO_ST_F32, .n_dims = 2,
         .shape = sb, .data = b, .nbytes = sizeof b}};
    must(mio_st_save_file("peft/adapter_model.safetensors", e, 2, NULL, 0), "peft");
    e[0].name = "layers.0.q.lora_a";
    e[1].name = "layers.0.q.lora_b";
    must(mio_st_save_file("fuc.safetensors", e, 2, NULL, 0), "fucina");
}

/* ------------------------------------------------------------- readers */
/* What a handle reports, into g_mem: every key (name, type, scalar/string
 * value), every tensor (name, type, dims, a checksum of its bytes). */
static void walk_gguf(const mio_gguf_file *f) {
    int64_t nk = mio_gguf_kv_count(f), nt = mio_gguf_tensor_count(f);
    out_printf("kv %lld tensors %lld parts %u\n", (long long)nk, (long long)nt, mio_gguf_part_count(f));
    for (int64_t i = 0; i < nk; i++) {
        mio_str k = mio_gguf_kv_key(f, i), s;
        uint64_t u;
        out_printf("%.*s %d", (int)k.len, k.ptr, mio_gguf_kv_type(f, i));
        if (mio_gguf_kv_str(f, i, &s) == MIO_OK) out_printf(" '%.*s'", (int)s.len, s.ptr);
        else if (mio_gguf_kv_u64(f, i, &u) == MIO_OK) out_printf(" %llu", (unsigned long long)u);
        out_printf("\n");
    }
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(f, i, &t)) { out_printf("tensor %lld: error\n", (long long)i); continue; }
        uint32_t sum = 0;
        for (uint64_t j = 0; j < t.nbytes; j++) sum = sum * 31 + ((const uint8_t *)t.data)[j];
        out_printf("%.*s type %d ne %lld %lld sum %08x\n", (int)t.name.len, t.name.ptr, t.type, (long long)t.ne[0],
                   (long long)t.ne[1], sum);
    }
}

static mio_status open_gguf(const char *path, uint32_t flags) {
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open(path, flags, &f);
    if (st) return st;
    walk_gguf(f);
    mio_gguf_close(f);
    return MIO_OK;
}
static mio_status run_gguf_open_mmap(void) { return open_gguf("in.gguf", MIO_OPEN_MMAP); }
static mio_status run_gguf_open_read(void) { return open_gguf("in.gguf", MIO_OPEN_READ); }
/* A real tokenizer file (50k strings, 1.7 MB): the large tables (mio_mem_big_calloc) */
static mio_status run_gguf_open_vocab(void) { return open_gguf(MIO_TEST_DATA "/vocab-gpt-2.gguf", MIO_OPEN_MMAP); }
static mio_status run_gguf_open_splits(void) { return open_gguf("sp-00001-of-00003.gguf", MIO_OPEN_SPLITS); }
static mio_status run_gguf_open_splits_read(void) {
    return open_gguf("sp-00001-of-00003.gguf", MIO_OPEN_SPLITS | MIO_OPEN_READ);
}

static uint8_t *g_img;
static size_t g_img_len;
static void prep_image(void) {
    if (!g_img) g_img = read_bytes("in.gguf", &g_img_len);
}
static mio_status run_gguf_open_buffer(void) {
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open_buffer(g_img, g_img_len, MIO_BUFFER_BORROW, &f);
    if (st) return st;
    walk_gguf(f);
    mio_gguf_close(f);
    return MIO_OK;
}
/* MIO_BUFFER_TAKE: the handle frees the buffer on close and on a failed open;
 * the buffer is made inside the armed window, so a missed free is a leak. */
static mio_status run_gguf_open_buffer_take(void) {
    void *copy = fault_real_realloc(NULL, g_img_len);
    memcpy(copy, g_img, g_img_len);
    fault_track(copy);
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open_buffer(copy, g_img_len, MIO_BUFFER_TAKE, &f);
    if (st) return st;
    walk_gguf(f);
    mio_gguf_close(f);
    return MIO_OK;
}

static void walk_st(const mio_st_file *f) {
    int64_t nt = mio_st_tensor_count(f), nm = mio_st_meta_count(f);
    out_printf("tensors %lld meta %lld shards %u\n", (long long)nt, (long long)nm, mio_st_shard_count(f));
    for (int64_t i = 0; i < nm; i++) {
        mio_str k, v;
        if (!mio_st_meta_at(f, i, &k, &v)) out_printf("%.*s=%.*s\n", (int)k.len, k.ptr, (int)v.len, v.ptr);
    }
    for (int64_t i = 0; i < nt; i++) {
        mio_st_tensor t;
        if (mio_st_tensor_info(f, i, &t)) continue;
        uint32_t sum = 0;
        for (uint64_t j = 0; j < t.nbytes; j++) sum = sum * 31 + ((const uint8_t *)t.data)[j];
        out_printf("%.*s dtype %d shard %u sum %08x\n", (int)t.name.len, t.name.ptr, t.dtype, t.shard, sum);
    }
}
static mio_status open_st(const char *path, uint32_t flags) {
    mio_st_file *f = NULL;
    mio_status st = mio_st_open(path, flags, &f);
    if (st) return st;
    walk_st(f);
    mio_st_close(f);
    return MIO_OK;
}
static mio_status run_st_open_mmap(void) { return open_st("in.safetensors", MIO_OPEN_MMAP); }
static mio_status run_st_open_read(void) { return open_st("in.safetensors", MIO_OPEN_READ); }
static mio_status run_st_open_index(void) { return open_st("src/model.safetensors.index.json", MIO_OPEN_MMAP); }

static uint8_t *g_st_img;
static size_t g_st_img_len;
static void prep_st_image(void) {
    if (!g_st_img) g_st_img = read_bytes("in.safetensors", &g_st_img_len);
}
static mio_status run_st_open_buffer_take(void) {
    void *copy = fault_real_realloc(NULL, g_st_img_len);
    memcpy(copy, g_st_img, g_st_img_len);
    fault_track(copy);
    mio_st_file *f = NULL;
    mio_status st = mio_st_open_buffer(copy, g_st_img_len, MIO_BUFFER_TAKE, &f);
    if (st) return st;
    walk_st(f);
    mio_st_close(f);
    return MIO_OK;
}

static int g_in_fd = -1;
static void prep_frame_fd(void) {
    if (g_in_fd >= 0) close(g_in_fd);
    g_in_fd = open("in.safetensors", O_RDONLY | O_CLOEXEC);
}
static mio_status run_st_read_frame_fd(void) {
    mio_st_file *f = NULL;
    mio_status st = mio_st_read_frame_fd(g_in_fd, &f);
    if (st) return st;
    walk_st(f);
    mio_st_close(f);
    return MIO_OK;
}

/* ------------------------------------------------------------- GGUF writers */
static mio_status run_writer_file(void) {
    mio_writer *w = NULL;
    mio_status st = build_writer(&w);
    if (st) return st;
    st = mio_writer_write_file(w, "out.gguf");
    mio_writer_free(w);
    return st;
}
static mio_status run_writer_fd(void) {
    mio_writer *w = NULL;
    mio_status st = build_writer(&w);
    if (st) return st;
    st = mio_writer_write_fd(w, g_fd);
    mio_writer_free(w);
    return st;
}
static mio_status run_writer_cb(void) {
    mio_writer *w = NULL;
    mio_status st = build_writer(&w);
    if (st) return st;
    st = mio_writer_write_cb(w, out_sink, NULL);
    mio_writer_free(w);
    return st;
}
/* Streaming: the header first, then each tensor in pieces of 1000 bytes. */
static mio_status run_writer_stream(void) {
    mio_writer *w = NULL;
    mio_status st = build_writer(&w);
    if (st) return st;
    st = mio_writer_begin_file(w, "out.gguf");
    for (int t = 0; t < 5 && !st; t++) {
        const uint8_t *p = t == 2 ? (const uint8_t *)g_h : (const uint8_t *)g_w[t];
        size_t n = t == 2 ? sizeof g_h : t == 4 ? NE0 * 4 : sizeof g_w[t];
        for (size_t o = 0; o < n && !st; o += 1000)
            st = mio_writer_write_tensor_part(w, p + o, n - o < 1000 ? n - o : 1000);
    }
    if (!st) st = mio_writer_finish(w);
    mio_writer_free(w);
    return st;
}
/* Copy an opened file: its keys verbatim, its tensors from the mapping. */
static mio_status run_writer_copy(void) {
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open("in.gguf", 0, &f);
    if (st) return st;
    mio_writer *w = NULL;
    st = mio_writer_new(0, &w);
    if (!st) st = mio_writer_copy_all_kv(w, f, NULL, 0);
    for (int64_t i = 0; i < mio_gguf_tensor_count(f) && !st; i++) {
        mio_gguf_tensor t;
        st = mio_gguf_tensor_info(f, i, &t);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
        if (!st) st = mio_writer_add_tensor(w, name, t.type, t.n_dims, t.ne, t.data, (size_t)t.nbytes);
    }
    if (!st) st = mio_writer_write_file(w, "out.gguf");
    mio_writer_free(w);
    mio_gguf_close(f);
    return st;
}

/* ------------------------------------------------------------- safetensors writers */
static mio_status run_st_save_file(void) {
    mio_st_entry e[5];
    st_entries(e);
    return mio_st_save_file("out.safetensors", e, 5, g_meta, 2);
}
static mio_status run_st_save_buffer(void) {
    mio_st_entry e[5];
    st_entries(e);
    void *p = NULL;
    size_t n = 0;
    mio_status st = mio_st_save_buffer(e, 5, g_meta, 2, &p, &n);
    if (st) return st;
    out_put(p, n);
    mio_free(p);
    return MIO_OK;
}
static mio_status run_st_save_cb(void) {
    mio_st_entry e[5];
    st_entries(e);
    return mio_st_save_cb(e, 5, g_meta, 2, out_sink, NULL);
}
/* 3 shards of at most 2 tensors + the index into ckpt/, which holds a
 * model.safetensors (a single-shard save's) that a failed save must keep. */
static mio_status run_st_save_sharded(void) {
    mio_st_entry e[5];
    st_entries(e);
    uint32_t ns = 0;
    mio_status st = mio_st_save_sharded("ckpt", e, 5, g_meta, 2, 2 * sizeof g_w[0], &ns);
    if (!st) out_printf("shards %u\n", ns);
    return st;
}
/* Checkpoints (docs/CHECKPOINTS.md): "run/ck" holds a complete checkpoint of
 * step 1; a failed save must leave it (and nothing else) as it was. */
static mio_status save_ckpt(const char *dir, uint64_t step, const char *extra) {
    mio_st_entry e[5];
    st_entries(e);
    mio_ckpt_save *s = NULL;
    mio_status st = mio_ckpt_begin(dir, &s);
    if (st) return st;
    st = mio_ckpt_add_state_dict(s, MIO_CKPT_MODEL, e, 5, sizeof e[0]);
    if (!st) st = mio_ckpt_add_file(s, MIO_CKPT_OPTIMIZER, g_h, sizeof g_h);
    if (st) {
        mio_ckpt_abort(s);
        return st;
    }
    return mio_ckpt_commit(s, step, 42, extra);
}
static void setup_ckpt(void) {
    setup_common();
    mkdir("run", 0777);
    must(save_ckpt("run/ck", 1, NULL), "run/ck");
}
static mio_status run_ckpt_replace(void) { return save_ckpt("run/ck", 2, NULL); }
static mio_status run_ckpt_new(void) { return save_ckpt("run/new", 2, "{\"lr\": 0.5}"); }
static mio_status run_ckpt_open(void) {
    mio_ckpt *c = NULL;
    mio_status st = mio_ckpt_open("run/ck", &c);
    if (st) return st;
    void *b = NULL;
    size_t n = 0;
    st = mio_ckpt_read_file(c, MIO_CKPT_OPTIMIZER, &b, &n);
    if (!st) out_printf("step %llu, %lld files, extra %s, optimizer %zu bytes\n", (unsigned long long)mio_ckpt_step(c),
                        (long long)mio_ckpt_file_count(c), mio_ckpt_extra_json(c), n);
    mio_free(b);
    mio_ckpt_close(c);
    return st;
}
static mio_status run_state_dict_load(void) {
    static float w[5][NE0 * NE1];
    static uint16_t h[NE0 * NE1];
    mio_st_entry e[5];
    st_entries(e);
    mio_state_dict_dest d[5];
    for (int t = 0; t < 5; t++)
        d[t] = (mio_state_dict_dest){e[t].name, e[t].dtype, e[t].n_dims, e[t].shape, t == 2 ? (void *)h : (void *)w[t],
                                     e[t].nbytes};
    size_t n = 0;
    mio_status st = mio_state_dict_load_file("in.safetensors", d, 5, sizeof d[0], NULL, 0, 0, &n);
    if (!st) out_printf("loaded %zu\n", n);
    return st;
}

/* Into a directory that does not exist yet: a failure must remove it again. */
static mio_status run_st_save_sharded_new(void) {
    mio_st_entry e[5];
    st_entries(e);
    return mio_st_save_sharded("newckpt", e, 5, g_meta, 2, 2 * sizeof g_w[0], NULL);
}

/* ------------------------------------------------------------- codecs */
static float g_x[NE0 * 64];
static uint8_t g_q[NE0 * 64], g_qsrc[NE0 * 64];
static void prep_codec(void) {
    uint32_t s = 99;
    for (size_t i = 0; i < sizeof g_x / sizeof g_x[0]; i++) {
        s = s * 1664525u + 1013904223u;
        g_x[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    size_t qn = sizeof g_x / sizeof g_x[0] / 256 * 144;
    if (mio_encode_f32(MIO_TYPE_Q4_K, g_x, sizeof g_x / sizeof g_x[0], g_qsrc, qn)) exit(1);
}
static mio_status run_encode_mt(void) {
    size_t n = sizeof g_x / sizeof g_x[0], qn = n / 256 * 144;
    mio_status st = mio_encode_f32_mt(MIO_TYPE_Q4_K, g_x, n, g_q, qn, 4);
    if (!st) out_put(g_q, qn);
    return st;
}
static mio_status run_decode_mt(void) {
    static float y[NE0 * 64];
    size_t n = sizeof y / sizeof y[0], qn = n / 256 * 144;
    mio_status st = mio_decode_f32_mt(MIO_TYPE_Q4_K, g_qsrc, qn, y, n, 4);
    if (!st) out_put(y, sizeof y);
    return st;
}

/* The IQ3_XXS encoder's grid tables are built on first use (fault_first_use). */
mio_status scenario_iq_first_use(void) {
    static float x[256];
    static uint8_t q[98];
    for (int i = 0; i < 256; i++) x[i] = (float)((i * 37) % 101) / 50 - 1;
    mio_status st = mio_encode_f32(MIO_TYPE_IQ3_XXS, x, 256, q, sizeof q);
    if (!st) out_put(q, sizeof q);
    return st;
}

/* y = W x and Y = X W^T with q4_K weights on 4 threads (the worker pool) */
static float g_act[NE0 * 4], g_y[64 * 4];
static void prep_matvec(void) {
    prep_codec();
    for (int i = 0; i < NE0 * 4; i++) g_act[i] = (float)((i * 13) % 17) / 8 - 1;
}
static mio_status run_matvec(void) {
    mio_status st = mio_matvec(MIO_TYPE_Q4_K, g_qsrc, 64, NE0, g_act, g_y, 4);
    if (!st) out_put(g_y, 64 * sizeof(float));
    return st;
}
static mio_status run_matmul(void) {
    mio_status st = mio_matmul(MIO_TYPE_Q4_K, g_qsrc, 64, NE0, g_act, 4, g_y, 4);
    if (!st) out_put(g_y, sizeof g_y);
    return st;
}
/* The worker pool, started by the first multi-threaded product in a process. */
mio_status scenario_matvec_first_use(void) {
    prep_matvec();
    return run_matvec();
}

/* ------------------------------------------------------------- quantize */
static mio_status quantize(int preset, int threads, const char *tt_pattern, int fd) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = preset;
    p.n_threads = threads;
    mio_tensor_type_override o = {tt_pattern, MIO_TYPE_Q8_0};
    mio_kv_override kv = {.key = "general.name", .type = MIO_GGUF_STRING, .str = "quantized"};
    if (tt_pattern) {
        p.tensor_types = &o;
        p.n_tensor_types = 1;
        p.kv_overrides = &kv;
        p.n_kv_overrides = 1;
    }
    return fd >= 0 ? mio_quantize_fd("in.gguf", fd, &p) : mio_quantize("in.gguf", "out.gguf", &p);
}
static mio_status run_quantize_q8(void) { return quantize(MIO_PRESET_Q8_0, 1, NULL, -1); }
static mio_status run_quantize_q4km(void) { return quantize(MIO_PRESET_Q4_K_M, 2, "attn_q", -1); }
static mio_status run_quantize_fd(void) { return quantize(MIO_PRESET_Q4_0, 2, NULL, g_fd); }
/* blk.* tensors to iq3_s (an IQ encoder: its grid tables, threads) */
static mio_status run_quantize_iq3(void) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = MIO_PRESET_Q8_0;
    p.n_threads = 2;
    mio_tensor_type_override o = {"^blk\\.", MIO_TYPE_IQ3_S};
    p.tensor_types = &o;
    p.n_tensor_types = 1;
    return mio_quantize("in.gguf", "out.gguf", &p);
}
/* keep_split: a split input gives split outputs, renamed together */
static mio_status run_quantize_keep_split(void) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = MIO_PRESET_Q8_0;
    p.n_threads = 1;
    p.keep_split = 1;
    return mio_quantize("sp-00001-of-00003.gguf", "part.gguf", &p);
}
static mio_status quantize_imatrix(int preset, const char *imatrix) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = preset;
    p.n_threads = 2;
    p.imatrix_path = imatrix;
    return mio_quantize("in.gguf", "out.gguf", &p);
}
static mio_status run_quantize_imatrix_dat(void) { return quantize_imatrix(MIO_PRESET_Q4_K_M, "imatrix.dat"); }
static mio_status run_quantize_imatrix_gguf(void) { return quantize_imatrix(MIO_PRESET_IQ2_XXS, "imatrix.gguf"); }
static mio_status run_quantize_split(void) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = MIO_PRESET_Q8_0;
    p.n_threads = 1;
    return mio_quantize("sp-00001-of-00003.gguf", "out.gguf", &p);
}

/* ------------------------------------------------------------- convert */
static mio_status run_to_st(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    p.n_threads = 1;
    return mio_gguf_to_st("in.gguf", "out.safetensors", &p);
}
static mio_status run_to_st_sharded(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    p.n_threads = 1;
    p.max_shard_bytes = 2 * sizeof g_w[0];
    return mio_gguf_to_st("in.gguf", "ckpt/", &p);
}
static mio_status run_to_st_fd(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    p.dtype = MIO_TYPE_BF16;
    p.n_threads = 2;
    return mio_gguf_to_st_fd("in.gguf", g_fd, &p);
}
static mio_status run_to_gguf(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    const char *from[1] = {"output.weight"}, *to[1] = {"output.renamed"};
    p.rename_from = from;
    p.rename_to = to;
    p.n_rename = 1;
    return mio_st_to_gguf("in.safetensors", "out.gguf", &p);
}
/* back to the identical GGUF: the layout is parsed as JSON (core/json.h) */
static mio_status run_to_gguf_layout(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    return mio_st_to_gguf("rt.safetensors", "out.gguf", &p);
}
static mio_status run_to_gguf_fd(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    p.dtype = MIO_TYPE_F16;
    return mio_st_to_gguf_fd("in.safetensors", g_fd, &p);
}
static mio_status run_to_gguf_index(void) {
    mio_convert_params p;
    mio_convert_default_params(&p);
    return mio_st_to_gguf("src/model.safetensors.index.json", "out.gguf", &p);
}

/* ------------------------------------------------------------- LoRA */
static mio_status run_lora_merge_peft(void) {
    mio_lora_params p;
    mio_lora_default_params(&p);
    p.adapters = "peft";
    return mio_lora_merge("in.gguf", "out.gguf", &p);
}
static mio_status run_lora_merge_fucina(void) {
    mio_lora_params p;
    mio_lora_default_params(&p);
    p.adapters = "fuc.safetensors";
    p.alpha_set = 1;
    p.alpha = 0.5;
    return mio_lora_merge("in.gguf", "out.gguf", &p);
}
static mio_status run_lora_merge_fd(void) {
    mio_lora_params p;
    mio_lora_default_params(&p);
    p.adapters = "peft";
    return mio_lora_merge_fd("in.gguf", g_fd, &p);
}
static mio_status run_lora_to_gguf(void) {
    mio_lora_params p;
    mio_lora_default_params(&p);
    p.adapters = "peft/adapter_model.safetensors";
    return mio_lora_to_gguf("in.gguf", "out.gguf", &p);
}

/* ------------------------------------------------------------- metadata edits */
static mio_status parse_edits(mio_kv_edit *e[3]) {
    static const char *const spec[3] = {"general.name=str:edited", "llama.attention.head_count=u32:4",
                                        "general.new=f64:0.5"};
    e[0] = e[1] = e[2] = NULL;
    for (int k = 0; k < 3; k++) {
        mio_status st = mio_kv_edit_parse(spec[k], &e[k]);
        if (st) {
            for (int j = 0; j < k; j++) mio_free(e[j]);
            return st;
        }
    }
    return MIO_OK;
}
static mio_status run_copy_edit(void) {
    mio_kv_edit *e[3];
    mio_status st = parse_edits(e);
    if (st) return st;
    mio_kv_edit ev[3] = {*e[0], *e[1], *e[2]};
    st = mio_gguf_copy_edit("in.gguf", "out.gguf", ev, 3);
    for (int k = 0; k < 3; k++) mio_free(e[k]);
    return st;
}
static mio_status run_copy_edit_fd(void) {
    mio_kv_edit ed = {.key = "general.name", .op = MIO_KV_REMOVE};
    return mio_gguf_copy_edit_fd("in.gguf", g_fd, &ed, 1);
}
/* A split input merged into one file (the edits applied on the way). */
static mio_status run_merge_split(void) {
    mio_kv_edit ed = {.key = "general.name", .op = MIO_KV_SET, .type = MIO_GGUF_STRING, .str = "merged", .str_len = 6};
    return mio_gguf_copy_edit("sp-00001-of-00003.gguf", "out.gguf", &ed, 1);
}
static void setup_in_place(void) {
    setup_common();
    size_t n;
    void *p = read_bytes("in.gguf", &n);
    write_bytes("ed.gguf", p, n);
    free(p);
}
/* The destination is the file itself: a failure must leave it as it was and no backup. */
static mio_status run_edit_in_place(void) {
    mio_kv_edit ed[2] = {
        {.key = "general.name", .op = MIO_KV_SET, .type = MIO_GGUF_STRING, .str = "fault mode", .str_len = 10},
        {.key = "llama.attention.head_count", .op = MIO_KV_SET, .type = MIO_GGUF_U32, .u64 = 8}};
    return mio_gguf_edit_in_place("ed.gguf", ed, 2);
}

/* ------------------------------------------------------------- split */
static mio_status run_split(void) {
    mio_gguf_split_params sp;
    mio_gguf_split_default_params(&sp);
    sp.max_tensors = 2;
    uint32_t n = 0;
    mio_status st = mio_gguf_split("in.gguf", "part", &sp, &n);
    if (!st) out_printf("parts %u\n", n);
    return st;
}

/* ------------------------------------------------------------- the table */
#define SC(n, s, p) {#n, s, p, run_##n}
const scenario g_scenarios[] = {
    SC(gguf_open_mmap, setup_common, NULL),
    SC(gguf_open_read, setup_common, NULL),
    SC(gguf_open_buffer, setup_common, prep_image),
    SC(gguf_open_buffer_take, setup_common, prep_image),
    SC(gguf_open_vocab, setup_common, NULL),
    SC(gguf_open_splits, setup_split, NULL),
    SC(gguf_open_splits_read, setup_split, NULL),
    SC(writer_file, setup_common, NULL),
    SC(writer_fd, setup_common, NULL),
    SC(writer_cb, setup_common, NULL),
    SC(writer_stream, setup_common, NULL),
    SC(writer_copy, setup_common, NULL),
    SC(st_open_mmap, setup_st, NULL),
    SC(st_open_read, setup_st, NULL),
    SC(st_open_index, setup_st, NULL),
    SC(st_open_buffer_take, setup_st, prep_st_image),
    SC(st_read_frame_fd, setup_st, prep_frame_fd),
    SC(st_save_file, setup_st, NULL),
    SC(st_save_buffer, setup_st, NULL),
    SC(st_save_cb, setup_st, NULL),
    SC(st_save_sharded, setup_st, NULL),
    SC(st_save_sharded_new, setup_st, NULL),
    SC(encode_mt, setup_common, prep_codec),
    SC(decode_mt, setup_common, prep_codec),
    SC(matvec, setup_common, prep_matvec),
    SC(matmul, setup_common, prep_matvec),
    SC(quantize_q8, setup_common, NULL),
    SC(quantize_q4km, setup_common, NULL),
    SC(quantize_fd, setup_common, NULL),
    SC(quantize_split, setup_split, NULL),
    SC(quantize_keep_split, setup_split, NULL),
    SC(quantize_iq3, setup_common, NULL),
    SC(quantize_imatrix_dat, setup_imatrix, NULL),
    SC(quantize_imatrix_gguf, setup_imatrix, NULL),
    SC(to_st, setup_st, NULL),
    SC(to_st_sharded, setup_st, NULL),
    SC(to_st_fd, setup_st, NULL),
    SC(to_gguf, setup_st, NULL),
    SC(to_gguf_layout, setup_roundtrip, NULL),
    SC(to_gguf_fd, setup_st, NULL),
    SC(to_gguf_index, setup_st, NULL),
    SC(lora_merge_peft, setup_lora, NULL),
    SC(lora_merge_fucina, setup_lora, NULL),
    SC(lora_merge_fd, setup_lora, NULL),
    SC(lora_to_gguf, setup_lora, NULL),
    SC(copy_edit, setup_common, NULL),
    SC(copy_edit_fd, setup_common, NULL),
    SC(merge_split, setup_split, NULL),
    SC(edit_in_place, setup_in_place, NULL),
    SC(split, setup_split, NULL),
    SC(ckpt_replace, setup_ckpt, NULL),
    SC(ckpt_new, setup_ckpt, NULL),
    SC(ckpt_open, setup_ckpt, NULL),
    SC(state_dict_load, setup_st, NULL),
};
const size_t g_n_scenarios = sizeof g_scenarios / sizeof g_scenarios[0];
