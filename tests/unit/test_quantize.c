/* SPDX-License-Identifier: MIT */
/* test_quantize.c — mio_quantize through the public API, the parts that do not
 * need llama.cpp to judge them (the presets are proven byte-identical against
 * the peer in tests/interop): parameter checks, the --dtype policy's decisions
 * and reasons as the plan callback reports them, --experts-dtype re-encoding
 * pre-quantized experts, kv overrides and mio_kv_override_parse, the
 * normalisation llama-quantize applies (prune list sorted and de-duplicated,
 * --tensor-type patterns lower-cased, both on copies), the progress callback
 * cancelling, and the output to a descriptor. */
#include "modelio.h"
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define IN "q_in.gguf"
#define OUT "q_out.gguf"

static float g_exps[256 * 8 * 4], g_attn[256 * 16], g_norm[256];
static uint8_t g_exps_q8[256 * 8 * 4 / 32 * 34];
static uint16_t g_attn_f16[256 * 16];

static void write_model(void) {
    uint32_t x = 7;
    for (size_t i = 0; i < sizeof g_exps / sizeof *g_exps; i++) {
        x = x * 1664525u + 1013904223u;
        g_exps[i] = ((float)(x >> 8) / 16777216.0f - 0.5f) * 0.3f;
    }
    for (size_t i = 0; i < sizeof g_attn / sizeof *g_attn; i++) {
        g_attn[i] = g_exps[i] * 0.5f;
        g_attn_f16[i] = mio_f32_to_fp16(g_attn[i]);
    }
    for (size_t i = 0; i < 256; i++) g_norm[i] = 1.0f + (float)i / 256.0f;
    T_OK(mio_encode_f32(MIO_TYPE_Q8_0, g_exps, sizeof g_exps / sizeof *g_exps, g_exps_q8, sizeof g_exps_q8));
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_set_u32(w, "llama.block_count", 1));
    int64_t ne_e[3] = {256, 8, 4}, ne_a[2] = {256, 16}, ne_n[1] = {256};
    T_OK(mio_writer_add_tensor(w, "blk.0.ffn_up_exps.weight", MIO_TYPE_Q8_0, 3, ne_e, g_exps_q8, sizeof g_exps_q8));
    T_OK(mio_writer_add_tensor(w, "blk.0.attn_q.weight", MIO_TYPE_F16, 2, ne_a, g_attn_f16, sizeof g_attn_f16));
    T_OK(mio_writer_add_tensor(w, "blk.0.attn_norm.weight", MIO_TYPE_F32, 1, ne_n, g_norm, sizeof g_norm));
    unlink(IN);
    T_OK(mio_writer_write_file(w, IN));
    mio_writer_free(w);
}

typedef struct seen {
    int n;
    char name[4][64];
    int out_type[4];
    char why[4][64];
} seen;

static void on_plan(void *user, const mio_quant_decision *d) {
    seen *s = user;
    if (s->n >= 4) return;
    snprintf(s->name[s->n], 64, "%.*s", (int)d->name.len, d->name.ptr);
    s->out_type[s->n] = d->out_type;
    snprintf(s->why[s->n], 64, "%s", d->why);
    s->n++;
}

static int cancel_at_first(void *user, int64_t done, int64_t total, uint64_t b, uint64_t bt) {
    (void)user; (void)total; (void)b; (void)bt;
    return done >= 1;
}

static void test_params(void) {
    mio_quantize_params p;
    memset(&p, 0, sizeof p);
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("p->size is 0; fill the parameters with mio_quantize_default_params first");
    mio_quantize_default_params(&p);
    T_EQ_U64(p.size, sizeof p);
    T_EQ_INT(p.preset, MIO_PRESET_NONE);
    T_EQ_INT(p.dtype, -1);
    T_EQ_INT(p.output_tensor_type, -1);
    const char *names[1] = {"x"};
    p.include_weights = names;
    p.n_include_weights = 1;
    p.exclude_weights = names;
    p.n_exclude_weights = 1;
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("include_weights and exclude_weights cannot be used together");
    mio_quantize_default_params(&p);
    p.dtype = MIO_TYPE_Q8_K; /* an activation format */
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("dtype 15 (q8_K) is not a target type");
    mio_quantize_default_params(&p);
    p.preset = 4; /* llama_ftype 4 was removed */
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("preset 4 is not a llama.cpp quantization type");
    T_CHECK(access(OUT, F_OK) != 0);
    T_EQ_INT(mio_type_file_type(MIO_TYPE_Q4_K), 14);
    T_EQ_INT(mio_type_file_type(MIO_TYPE_Q8_0), 7);
    T_EQ_INT(mio_type_file_type(MIO_TYPE_Q8_K), -1);
}

/* --dtype q4_0: the quantized expert tensor is refused like any quantized matrix... */
static void test_dtype(void) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.dtype = MIO_TYPE_Q4_0;
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_UNSUPPORTED_TYPE);
    T_MSG_HAS("tensor 'blk.0.ffn_up_exps.weight' is q8_0: only f32/f16/bf16 sources can be transcoded");
    /* ...unless --experts-dtype takes the experts: then they are decoded and re-encoded */
    seen s = {0};
    p.experts_type = MIO_TYPE_Q4_K;
    p.plan = on_plan;
    p.plan_user = &s;
    mio_kv_override kv[2] = {{.key = "x.answer", .type = MIO_GGUF_I64, .i64 = -42},
                             {.key = "x.name", .type = MIO_GGUF_STRING, .str = "mio"}};
    p.kv_overrides = kv;
    p.n_kv_overrides = 2;
    T_OK(mio_quantize(IN, OUT, &p));
    T_EQ_INT(s.n, 3);
    T_EQ_STR(s.name[0], "blk.0.ffn_up_exps.weight");
    T_EQ_INT(s.out_type[0], MIO_TYPE_Q4_K);
    T_EQ_STR(s.why[0], "--experts-dtype");
    T_EQ_INT(s.out_type[1], MIO_TYPE_Q4_0);
    T_EQ_STR(s.why[1], "converted");
    T_EQ_INT(s.out_type[2], MIO_TYPE_F32);
    T_EQ_STR(s.why[2], "1-D");
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(OUT, 0, &f));
    if (!f) return;
    /* experts: q4_K of the decoded q8_0 values (144 bytes per 256 weights, 32 rows) */
    static float dec[256 * 8 * 4];
    static uint8_t want[32 * 144];
    T_OK(mio_decode_f32(MIO_TYPE_Q8_0, g_exps_q8, sizeof g_exps_q8, dec, 256 * 8 * 4));
    T_OK(mio_encode_f32(MIO_TYPE_Q4_K, dec, 256 * 8 * 4, want, sizeof want));
    mio_gguf_tensor t;
    T_OK(mio_gguf_tensor_info(f, 0, &t));
    T_EQ_INT(t.type, MIO_TYPE_Q4_K);
    T_EQ_U64(t.nbytes, sizeof want);
    T_CHECK(t.nbytes == sizeof want && memcmp(t.data, want, sizeof want) == 0);
    T_OK(mio_gguf_tensor_info(f, 2, &t));
    T_CHECK(t.nbytes == sizeof g_norm && memcmp(t.data, g_norm, sizeof g_norm) == 0); /* copied */
    /* keys: the input's two, general.file_type (q4_0 -> 2), then the overrides; an int override
     * is written as llama.cpp writes it, a u32 of the absolute value */
    T_EQ_INT(mio_gguf_kv_count(f), 5);
    T_EQ_MSTR(mio_gguf_kv_key(f, 2), "general.file_type");
    uint64_t u;
    T_OK(mio_gguf_kv_u64(f, 2, &u));
    T_EQ_U64(u, 2);
    T_EQ_MSTR(mio_gguf_kv_key(f, 3), "x.answer");
    T_EQ_INT(mio_gguf_kv_type(f, 3), MIO_GGUF_U32);
    T_OK(mio_gguf_kv_u64(f, 3, &u));
    T_EQ_U64(u, 42);
    mio_str v;
    T_OK(mio_gguf_kv_str(f, 4, &v));
    T_EQ_MSTR(v, "mio");
    mio_gguf_close(f);
    unlink(OUT);
}

/* with a preset, --experts-dtype acts as a first --tensor-type rule for the
 * experts that may requantize: the q8_0 experts become q4_K without
 * allow_requantize, the rest follows the Q4_K_M preset */
static void test_preset_experts(void) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = MIO_PRESET_Q4_K_M;
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_TYPE_MISMATCH); /* the q8_0 experts would be re-encoded */
    T_MSG_HAS("requantizing from type q8_0 is disabled");
    p.experts_type = MIO_TYPE_Q4_K;
    seen s = {0};
    p.plan = on_plan;
    p.plan_user = &s;
    T_OK(mio_quantize(IN, OUT, &p));
    T_EQ_INT(s.n, 3);
    /* llama.cpp's order: block tensors by name */
    T_EQ_STR(s.name[0], "blk.0.attn_norm.weight");
    T_EQ_STR(s.name[1], "blk.0.attn_q.weight");
    T_EQ_INT(s.out_type[1], MIO_TYPE_Q4_K);
    T_EQ_STR(s.name[2], "blk.0.ffn_up_exps.weight");
    T_EQ_INT(s.out_type[2], MIO_TYPE_Q4_K);
    T_EQ_STR(s.why[2], "--experts-type");
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open(OUT, 0, &f));
    mio_gguf_tensor t;
    if (f && mio_gguf_tensor_info(f, 2, &t) == MIO_OK) {
        static float dec[256 * 8 * 4];
        static uint8_t want[32 * 144];
        T_OK(mio_decode_f32(MIO_TYPE_Q8_0, g_exps_q8, sizeof g_exps_q8, dec, 256 * 8 * 4));
        T_OK(mio_encode_f32(MIO_TYPE_Q4_K, dec, 256 * 8 * 4, want, sizeof want));
        T_CHECK(t.nbytes == sizeof want && memcmp(t.data, want, sizeof want) == 0);
    }
    mio_gguf_close(f);
    unlink(OUT);
}

static void test_cancel_and_fd(void) {
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.dtype = MIO_TYPE_Q8_0;
    p.experts_type = MIO_TYPE_Q4_K;
    p.progress = cancel_at_first;
    T_STATUS(mio_quantize(IN, OUT, &p), MIO_ERR_CANCELLED);
    T_MSG_HAS("cancelled by the progress callback after 1 of 3 tensors");
    T_CHECK(access(OUT, F_OK) != 0);
    /* to a descriptor: the same bytes as to a path */
    p.progress = NULL;
    T_OK(mio_quantize(IN, OUT, &p));
    int fd = open("q_fd.gguf", O_CREAT | O_TRUNC | O_WRONLY, 0644);
    T_CHECK(fd >= 0);
    T_OK(mio_quantize_fd(IN, fd, &p));
    close(fd);
    FILE *a = fopen(OUT, "rb"), *b = fopen("q_fd.gguf", "rb");
    int same = a && b;
    while (same) {
        int ca = fgetc(a), cb = fgetc(b);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    T_CHECK(same);
    if (a) fclose(a);
    if (b) fclose(b);
    T_STATUS(mio_quantize_fd(IN, -1, &p), MIO_ERR_INVALID_ARG);
    unlink(OUT);
    unlink("q_fd.gguf");
}

/* --override-kv KEY=TYPE:VALUE: llama-quantize's four types, values by hand */
static void test_override_parse(void) {
    mio_kv_override *o = NULL;
    T_OK(mio_kv_override_parse("x.n=int:-7", &o));
    if (o) {
        T_EQ_STR(o->key, "x.n");
        T_EQ_INT(o->type, MIO_GGUF_I64);
        T_EQ_INT(o->i64, -7);
        mio_free(o);
    }
    o = NULL;
    T_OK(mio_kv_override_parse("x.big=int:5000000000", &o)); /* past i32: still an int (i64) */
    if (o) {
        T_EQ_INT(o->type, MIO_GGUF_I64);
        T_CHECK(o->i64 == 5000000000LL);
        mio_free(o);
    }
    o = NULL;
    T_OK(mio_kv_override_parse("x.f=float:0.5", &o));
    if (o) {
        T_EQ_INT(o->type, MIO_GGUF_F64);
        T_CHECK(o->f64 == 0.5);
        mio_free(o);
    }
    o = NULL;
    T_OK(mio_kv_override_parse("x.b=bool:true", &o));
    if (o) {
        T_EQ_INT(o->type, MIO_GGUF_BOOL);
        T_EQ_INT(o->b, 1);
        mio_free(o);
    }
    o = NULL;
    T_OK(mio_kv_override_parse("x.b=bool:0", &o));
    if (o) {
        T_EQ_INT(o->b, 0);
        mio_free(o);
    }
    o = NULL;
    T_OK(mio_kv_override_parse("x.s=str:a=b:c", &o)); /* VALUE is everything after the first ':' */
    if (o) {
        T_EQ_STR(o->key, "x.s");
        T_EQ_INT(o->type, MIO_GGUF_STRING);
        T_EQ_STR(o->str, "a=b:c");
        mio_free(o);
    }
    /* refusals: status, message, *out untouched */
    static const struct { const char *spec; mio_status st; const char *msg; } bad[] = {
        {"x=number:1", MIO_ERR_INVALID_ARG, "key 'x': unknown type 'number' (one of int float bool str)"},
        {"x=u32:1", MIO_ERR_INVALID_ARG, "key 'x': unknown type 'u32' (one of int float bool str)"},
        {"x=string:1", MIO_ERR_INVALID_ARG, "unknown type 'string'"},
        {"x=int:abc", MIO_ERR_INVALID_ARG, "key 'x': 'abc' is not a decimal integer (int)"},
        {"x=int:99999999999999999999", MIO_ERR_OUT_OF_RANGE, "key 'x': 99999999999999999999 is out of range for int"},
        {"x=float:1e39", MIO_ERR_OUT_OF_RANGE, "key 'x': 1e39 is out of range for f32"},
        {"x=bool:yes", MIO_ERR_INVALID_ARG, "key 'x': 'yes' is not a bool (true, false, 1 or 0)"},
        {"x=int", MIO_ERR_INVALID_ARG, "key 'x': expected TYPE:VALUE after '=', with TYPE one of int float bool str"},
        {"x", MIO_ERR_INVALID_ARG, "kv override 'x': expected KEY=TYPE:VALUE (there is no '=')"},
        {"=int:1", MIO_ERR_INVALID_KV, "kv override '=int:1': the key before '=' is empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mio_kv_override *sentinel = (mio_kv_override *)&t_pass, *got = sentinel;
        T_STATUS(mio_kv_override_parse(bad[i].spec, &got), bad[i].st);
        T_CHECK(got == sentinel);
        T_MSG_HAS(bad[i].msg);
    }
}

/* A llama model of 5 blocks (attn_v 256x4 and attn_norm per block) */
#define NORM_IN "q_norm_in.gguf"
static float g_v[5][256 * 4];
static void write_blocks_model(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_set_u32(w, "llama.block_count", 5));
    int64_t ne_v[2] = {256, 4}, ne_n[1] = {256};
    char name[64];
    for (int b = 0; b < 5; b++) {
        for (int i = 0; i < 256 * 4; i++) g_v[b][i] = (float)((i * 7 + b * 13) % 29) / 29.0f - 0.5f;
        snprintf(name, sizeof name, "blk.%d.attn_v.weight", b);
        T_OK(mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne_v, g_v[b], sizeof g_v[b]));
        snprintf(name, sizeof name, "blk.%d.attn_norm.weight", b);
        T_OK(mio_writer_add_tensor(w, name, MIO_TYPE_F32, 1, ne_n, g_norm, sizeof g_norm));
    }
    unlink(NORM_IN);
    T_OK(mio_writer_write_file(w, NORM_IN));
    mio_writer_free(w);
}

static uint8_t *slurp(const char *path, size_t *n) {
    *n = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    uint8_t *b = NULL;
    size_t cap = 0;
    for (;;) {
        if (*n == cap) {
            uint8_t *nb = realloc(b, cap = cap ? cap * 2 : 65536);
            if (!nb) break;
            b = nb;
        }
        size_t k = fread(b + *n, 1, cap - *n, fp);
        if (k == 0) break;
        *n += k;
    }
    fclose(fp);
    return b;
}

static int same_file(const char *a, const char *b) {
    size_t na, nb;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* llama-quantize sorts and de-duplicates --prune-layers and lower-cases
 * --tensor-type patterns before llama.cpp sees them; mio_quantize does the
 * same itself, on copies, so every caller gets llama-quantize's file. */
static void test_normalisation(void) {
    write_blocks_model();
    int32_t unsorted[3] = {3, 1, 1}, sorted[2] = {1, 3};
    mio_tensor_type_override upper[1] = {{.pattern = "ATTN_V", .type = MIO_TYPE_Q4_0}};
    mio_tensor_type_override lower[1] = {{.pattern = "attn_v", .type = MIO_TYPE_Q4_0}};
    mio_quantize_params p;
    mio_quantize_default_params(&p);
    p.preset = MIO_PRESET_Q8_0;
    p.prune_layers = sorted;
    p.n_prune_layers = 2;
    p.tensor_types = lower;
    p.n_tensor_types = 1;
    T_OK(mio_quantize(NORM_IN, "q_norm_a.gguf", &p));
    p.prune_layers = unsorted;
    p.n_prune_layers = 3;
    p.tensor_types = upper;
    T_OK(mio_quantize(NORM_IN, "q_norm_b.gguf", &p));
    T_CHECK(same_file("q_norm_a.gguf", "q_norm_b.gguf"));
    /* the caller's arrays are as they were */
    T_EQ_INT(unsorted[0], 3);
    T_EQ_INT(unsorted[1], 1);
    T_EQ_INT(unsorted[2], 1);
    T_EQ_STR(upper[0].pattern, "ATTN_V");
    /* blocks 1 and 3 gone, 0 2 4 renumbered 0 1 2, block_count 3 (llama.cpp's
     * pivot is the list's first entry: unsorted, 3 would have kept block 2's
     * number and left a gap); attn_v q4_0 by the pattern, norms f32 */
    mio_gguf_file *f = NULL;
    T_OK(mio_gguf_open("q_norm_b.gguf", 0, &f));
    if (f) {
        static const char *const want[6] = {"blk.0.attn_norm.weight", "blk.0.attn_v.weight", "blk.1.attn_norm.weight",
                                            "blk.1.attn_v.weight",    "blk.2.attn_norm.weight", "blk.2.attn_v.weight"};
        T_EQ_INT(mio_gguf_tensor_count(f), 6);
        for (int64_t i = 0; i < 6 && i < mio_gguf_tensor_count(f); i++) {
            mio_gguf_tensor t;
            T_OK(mio_gguf_tensor_info(f, i, &t));
            T_EQ_MSTR(t.name, want[i]);
            T_EQ_INT(t.type, (i % 2 ? MIO_TYPE_Q4_0 : MIO_TYPE_F32));
        }
        /* blk.1.attn_v is the input's block 2: its values encoded as q4_0 */
        mio_gguf_tensor t;
        static uint8_t enc[256 * 4 / 32 * 18];
        T_OK(mio_encode_f32(MIO_TYPE_Q4_0, g_v[2], 256 * 4, enc, sizeof enc));
        if (mio_gguf_tensor_info(f, 3, &t) == MIO_OK)
            T_CHECK(t.nbytes == sizeof enc && memcmp(t.data, enc, sizeof enc) == 0);
        int64_t k = mio_gguf_find_key(f, "llama.block_count");
        uint64_t bc = 0;
        T_OK(mio_gguf_kv_u64(f, k, &bc));
        T_EQ_U64(bc, 3);
        T_EQ_INT(mio_gguf_kv_type(f, k), MIO_GGUF_U32);
        mio_gguf_close(f);
    }
    /* a negative block number is refused (llama-quantize: "invalid layer id"), nothing written */
    int32_t neg[2] = {2, -1};
    p.prune_layers = neg;
    p.n_prune_layers = 2;
    T_STATUS(mio_quantize(NORM_IN, "q_norm_c.gguf", &p), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("prune_layers[1] is -1: block numbers are not negative");
    T_CHECK(access("q_norm_c.gguf", F_OK) != 0);
    unlink("q_norm_a.gguf");
    unlink("q_norm_b.gguf");
    unlink(NORM_IN);
}

int main(void) {
    test_override_parse();
    write_model();
    test_normalisation();
    test_params();
    test_dtype();
    test_preset_experts();
    test_cancel_and_fd();
    unlink(IN);
    T_DONE();
}
