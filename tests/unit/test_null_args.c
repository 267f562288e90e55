/* SPDX-License-Identifier: MIT */
/* test_null_args.c — every pointer argument of every MIO_API function, passed
 * as NULL with the other arguments valid (a real writer, a GGUF parsed with
 * mio_gguf_open_buffer from a writer-made image, a safetensors file made by
 * mio_st_save_buffer), must not crash. Functions returning a status give
 * MIO_ERR_INVALID_ARG with a message naming the argument ("key is NULL");
 * functions returning a count, size or view give the sentinel documented in
 * modelio.h; arguments documented as optional give MIO_OK; void functions
 * (close/free/madvise hints) are no-ops.
 *
 * The table was checked against include/modelio.h by hand, and main() checks it
 * again mechanically: it parses the header and fails if a pointer parameter of
 * any MIO_API function has no row (or a row names a parameter the header lacks).
 * The deprecated aliases (MIO_DEPRECATED) are left out: they forward to the
 * calls whose rows are here, and test_deprecated.c checks them.
 * Each row runs in a forked child, so a crash fails that row only (with the
 * signal) and the run still reports every other row.
 *
 * Every file the fixtures and the rows write goes under one temporary
 * directory (mkdtemp under $TMPDIR or /tmp): main() changes into it first, so
 * the relative names below are relative to it, and removes it at the end. */
#include "modelio.h"
#include "modelio_inspect.h"
#include "test.h"

#include <ctype.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ fixtures */

/* A mio_read_fn over a byte range; with user NULL it reads g_cursor. */
typedef struct cursor { const uint8_t *p; size_t n, at; } cursor;
static cursor g_cursor;
static int64_t cur_read(void *user, void *buf, size_t len) {
    cursor *c = user ? user : &g_cursor;
    size_t k = c->n - c->at < len ? c->n - c->at : len;
    memcpy(buf, c->p + c->at, k);
    c->at += k;
    return (int64_t)k;
}

#define GGUF_PATH "null_args.gguf"
#define EST_PATH "null_args_est.gguf" /* a llama-shaped model for mio_estimate */
#define ST_PATH "null_args.safetensors"
#define ST_DIR "null_args_sharded"
#define FZT1_PATH "null_args.fzt1"
#define CKPT_DIR "null_args_ckpt"
#define HF_DIR "null_args_hf"
#define HUB_CACHE "null_args_hub"
#define HUB_COMMIT "0123456789abcdef0123456789abcdef01234567"

static float g_tdata[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static char *g_hub_out;
static const int64_t g_ne[2] = {4, 2};            /* f32 [2 x 4]: 32 bytes */
static const int32_t g_ai[3] = {1, 2, 3};
static const float g_af[2] = {0.5f, -2.0f};
static const char *const g_strs[2] = {"x", "yy"};
static const char *const g_skip[1] = {"s"};

static membuf g_gguf;                              /* writer-made GGUF image */
static mio_gguf_file *g_f;                         /* parsed from g_gguf */
static mio_estimate_result g_est;
static mio_gguf_file *g_ffile;                     /* opened from GGUF_PATH (for uses_file) */
#define MANIFEST_PATH "null_args.manifest"         /* mio_hash_manifest of GGUF_PATH */
static mio_model *g_mm;                            /* mio_model_open(GGUF_PATH) */
static mio_model *g_mmo;                           /* an out slot for mio_model_open */
static mio_model_tensor g_mt;
static mio_tensor_stats g_mstats;
static mio_check_result g_check;
static mio_model_summary g_summary;
static mio_model_experts g_experts;
/* mio_escape_text with used NULL: 1 when it made the text (freed here) */
static int escape_made_text(void) {
    char *e = mio_escape_text("ab", 2, 2, 0, NULL);
    int made = e != NULL;
    mio_free(e);
    return made;
}
static unsigned char g_dig[64];
static char *g_text;
static int64_t k_s, k_u, k_f, k_b, k_ai, k_af, k_as;
static mio_gguf_value g_arr, g_elem, g_felem;      /* "ai", "ai"[0], "af"[0] */
static mio_gguf_tensor g_tensor;

static mio_writer *g_w;                            /* idle: a key and a tensor with data */
static mio_writer *g_wdecl;                        /* streaming: one declared tensor, none written */
static mio_writer *g_wadd;                         /* streaming: one added tensor, none written */
static int g_devnull = -1;

static float g_src[256];                           /* codec input */
static float g_imat[256];
static float g_fout[256];
static uint8_t g_q8[34], g_q4k[144];
static mio_packed *g_packed, *g_packed_out; /* g_q8 packed: 1 x 32 */

static const uint64_t g_shape[2] = {2, 3};
static float g_sdata[6] = {1, 2, 3, 4, 5, 6};
static float g_sdd_buf[6];
static mio_state_dict_dest g_sdd[1];
static const mio_state_dict_alias g_sda[1] = {{"w", "w"}};
static const uint64_t g_fzdims[1] = {6};
static mio_fzt1_tensor g_fzt[1];
static void *g_fz_buf;
static size_t g_fz_len;
static mio_fzt1_file *g_fzf, *g_fzo;
static mio_fzt1_tensor g_fzo_t;
static mio_ckpt_save *g_cks, *g_ckso;
static mio_ckpt *g_ckc, *g_ckco;
static char *g_ckp;
static void *g_ckb;
static uint32_t g_ckn;
static mio_st_entry g_ent[1];
static const mio_st_meta g_meta[1] = {{"format", "pt"}};
static void *g_st_buf;
static size_t g_st_len;
static mio_st_file *g_sf;
static mio_st_file *g_sffile;                      /* opened from ST_PATH (for uses_file) */
static int g_st_fd = -1;
static const uint64_t g_starts[1] = {0}, g_ends[1] = {1};
static uint8_t g_dst[64];

/* scratch outputs */
static mio_gguf_file *g_fo;
static mio_st_file *g_sfo;
static mio_gguf_value g_val;
static mio_gguf_tensor g_to;
static mio_st_tensor g_sto;
static mio_str g_str, g_str2;
static int64_t g_i64, g_i64b;
static uint64_t g_u64;
static double g_f64;
static int g_int;
static void *g_addr;
static size_t g_len;
static void *g_buf_out;
static uint32_t g_u32;
static mio_quantize_params g_qparams; /* defaults: a verbatim copy */
static mio_gguf_split_params g_sparams;    /* defaults, dry run: nothing written */
static uint32_t g_nparts;
static mio_lora_params g_lparams;     /* defaults with an adapter path (never reached: NULL is checked first) */
static mio_ptqtp_options g_popt;                 /* defaults: two planes */
static uint8_t g_pl0[66], g_pl1[66];
static void *const g_pplanes[2] = {g_pl0, g_pl1};
static mio_ptqtp_stats g_pstats;
static mio_kv_edit *g_edit;                      /* mio_kv_edit_parse output */
static mio_kv_override *g_override;              /* mio_kv_override_parse output */
static const mio_kv_edit g_edits[1] = {{.key = "general.name", .op = MIO_KV_SET, .type = MIO_GGUF_STRING,
                                        .str = "m", .str_len = 1}};

static long long str_is_null(mio_str s) { return s.ptr == NULL && s.len == 0; }

/* write_tensor(data = NULL) on the streaming writers: a declared tensor has no
 * borrowed bytes to fall back on; an added one does (documented). */
static mio_status write_null_declared(void) { return mio_writer_write_tensor(g_wdecl, NULL, sizeof g_tdata); }
static mio_status write_null_added(void) { return mio_writer_write_tensor(g_wadd, NULL, sizeof g_tdata); }
/* read_frame with user NULL: our reader falls back to g_cursor */
static mio_status read_frame_user_null(void) {
    g_cursor = (cursor){g_st_buf, g_st_len, 0};
    mio_status st = mio_st_read_frame(cur_read, NULL, &g_sfo);
    mio_st_close(g_sfo);
    return st;
}
static mio_status read_frame_out_null(void) {
    cursor c = {g_st_buf, g_st_len, 0};
    return mio_st_read_frame(cur_read, &c, NULL);
}

static void make_estimate_fixture(void) {
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "general.architecture", "llama", 5));
    T_OK(mio_writer_set_u32(w, "llama.block_count", 1));
    T_OK(mio_writer_set_u32(w, "llama.embedding_length", 64));
    T_OK(mio_writer_set_u32(w, "llama.attention.head_count", 4));
    T_OK(mio_writer_add_tensor(w, "t", MIO_TYPE_F32, 2, g_ne, g_tdata, sizeof g_tdata));
    T_OK(mio_writer_write_file(w, EST_PATH));
    mio_writer_free(w);
}

static void make_fixtures(void) {
    make_estimate_fixture();
    /* GGUF: written by the writer, parsed from memory */
    mio_writer *w = NULL;
    T_OK(mio_writer_new(0, &w));
    T_OK(mio_writer_set_str(w, "s", "hello", 5));
    T_OK(mio_writer_set_u32(w, "u", 7));
    T_OK(mio_writer_set_f32(w, "f", 1.5f));
    T_OK(mio_writer_set_bool(w, "b", 1));
    T_OK(mio_writer_set_arr(w, "ai", MIO_GGUF_I32, g_ai, 3));
    T_OK(mio_writer_set_arr(w, "af", MIO_GGUF_F32, g_af, 2));
    T_OK(mio_writer_set_arr_str(w, "as", g_strs, NULL, 2));
    T_OK(mio_writer_add_tensor(w, "t", MIO_TYPE_F32, 2, g_ne, g_tdata, sizeof g_tdata));
    T_OK(mio_writer_write_cb(w, mem_sink, &g_gguf));
    T_OK(mio_writer_write_file(w, GGUF_PATH));
    mio_writer_free(w);
    T_OK(mio_gguf_open_buffer(g_gguf.p, g_gguf.len, MIO_BUFFER_BORROW, &g_f));
    if (!g_f) { fprintf(stderr, "fixture GGUF did not parse: %s\n", mio_last_error()); exit(1); }
    k_s = mio_gguf_find_key(g_f, "s");
    k_u = mio_gguf_find_key(g_f, "u");
    k_f = mio_gguf_find_key(g_f, "f");
    k_b = mio_gguf_find_key(g_f, "b");
    k_ai = mio_gguf_find_key(g_f, "ai");
    k_af = mio_gguf_find_key(g_f, "af");
    k_as = mio_gguf_find_key(g_f, "as");
    T_CHECK(k_s >= 0 && k_u >= 0 && k_f >= 0 && k_b >= 0 && k_ai >= 0 && k_af >= 0 && k_as >= 0);
    T_OK(mio_gguf_kv_value(g_f, k_ai, &g_arr));
    T_OK(mio_gguf_value_elem(&g_arr, 0, &g_elem));
    mio_gguf_value af;
    T_OK(mio_gguf_kv_value(g_f, k_af, &af));
    T_OK(mio_gguf_value_elem(&af, 0, &g_felem));
    T_OK(mio_gguf_tensor_info(g_f, 0, &g_tensor));
    T_OK(mio_gguf_open(GGUF_PATH, 0, &g_ffile));
    T_OK(mio_model_open(GGUF_PATH, &g_mm));
    {
        char *man = NULL;
        size_t man_len = 0;
        T_OK(mio_hash_manifest(GGUF_PATH, MIO_HASH_SHA256, 1, &man, &man_len));
        FILE *mf = fopen(MANIFEST_PATH, "wb");
        T_CHECK(mf && fwrite(man, 1, man_len, mf) == man_len);
        if (mf) fclose(mf);
        mio_free(man);
    }
    mio_quantize_default_params(&g_qparams);
    mio_gguf_split_default_params(&g_sparams);
    g_sparams.dry_run = 1;
    mio_ptqtp_default_options(&g_popt);
    mio_lora_default_params(&g_lparams);
    g_lparams.adapters = "null_args_no_such_adapter";
    T_EQ_INT(mio_gguf_uses_file(g_ffile, GGUF_PATH), 1); /* so that its 0 for NULL below means something */

    /* writers */
    T_OK(mio_writer_new(0, &g_w));
    T_OK(mio_writer_set_str(g_w, "general.name", "n", 1));
    T_OK(mio_writer_add_tensor(g_w, "t", MIO_TYPE_F32, 2, g_ne, g_tdata, sizeof g_tdata));
    T_OK(mio_writer_new(0, &g_wdecl));
    T_OK(mio_writer_declare_tensor(g_wdecl, "t", MIO_TYPE_F32, 2, g_ne));
    T_OK(mio_writer_begin_cb(g_wdecl, mem_sink, NULL));
    T_OK(mio_writer_new(0, &g_wadd));
    T_OK(mio_writer_add_tensor(g_wadd, "t", MIO_TYPE_F32, 2, g_ne, g_tdata, sizeof g_tdata));
    T_OK(mio_writer_begin_cb(g_wadd, mem_sink, NULL));
    g_devnull = open("/dev/null", O_WRONLY);
    T_CHECK(g_devnull >= 0);

    /* codecs */
    for (int i = 0; i < 256; i++) { g_src[i] = (float)(i % 17) - 8.0f; g_imat[i] = 1.0f + (float)(i % 3); }
    T_OK(mio_encode_f32(MIO_TYPE_Q8_0, g_src, 32, g_q8, sizeof g_q8));
    T_OK(mio_pack_weights(MIO_TYPE_Q8_0, g_q8, 1, 32, &g_packed));
    T_OK(mio_encode_f32(MIO_TYPE_Q4_K, g_src, 256, g_q4k, sizeof g_q4k));

    /* safetensors: saved to memory and to a file, parsed from memory */
    g_ent[0] = (mio_st_entry){"w", MIO_ST_F32, 2, g_shape, g_sdata, sizeof g_sdata};
    T_OK(mio_st_save_buffer(g_ent, 1, g_meta, 1, &g_st_buf, &g_st_len));
    T_OK(mio_st_save_file(ST_PATH, g_ent, 1, g_meta, 1));
    T_OK(mio_st_open_buffer(g_st_buf, g_st_len, MIO_BUFFER_BORROW, &g_sf));
    if (!g_sf) { fprintf(stderr, "fixture safetensors did not parse: %s\n", mio_last_error()); exit(1); }
    T_OK(mio_st_open(ST_PATH, 0, &g_sffile));
    T_EQ_INT(mio_st_uses_file(g_sffile, ST_PATH), 1);
    g_st_fd = open(ST_PATH, O_RDONLY);
    /* state dicts and FZT1 */
    g_sdd[0] = (mio_state_dict_dest){"w", MIO_ST_F32, 2, g_shape, g_sdd_buf, sizeof g_sdd_buf};
    g_fzt[0] = (mio_fzt1_tensor){1, g_fzdims, g_sdata, 6};
    T_OK(mio_fzt1_save_buffer(g_fzt, 1, sizeof g_fzt[0], &g_fz_buf, &g_fz_len));
    T_OK(mio_fzt1_save_file(FZT1_PATH, g_fzt, 1, sizeof g_fzt[0]));
    T_OK(mio_fzt1_open_buffer(g_fz_buf, g_fz_len, &g_fzf));
    /* checkpoints: one committed and open, one save begun */
    T_OK(mio_ckpt_begin(CKPT_DIR, &g_cks));
    T_OK(mio_ckpt_add_file(g_cks, "blob", "x", 1));
    T_OK(mio_ckpt_commit(g_cks, 1, 2, NULL));
    T_OK(mio_ckpt_open(CKPT_DIR, &g_ckc));
    T_OK(mio_ckpt_begin(CKPT_DIR "_2", &g_cks));
    T_CHECK(g_st_fd >= 0);
    mkdir(ST_DIR, 0755);

    /* a Hugging Face checkpoint: llama, hidden 4, one layer, a 4-token
     * byte-level BPE vocabulary (GPT-2's pre-tokenizer) */
    mkdir(HF_DIR, 0755);
    FILE *fp = fopen(HF_DIR "/config.json", "w");
    if (fp) {
        fputs("{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":4,\"intermediate_size\":4,"
              "\"num_hidden_layers\":1,\"num_attention_heads\":1,\"vocab_size\":4,\"tie_word_embeddings\":true}", fp);
        fclose(fp);
    }
    fp = fopen(HF_DIR "/tokenizer.json", "w");
    if (fp) {
        fputs("{\"added_tokens\":[],\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
              "\"trim_offsets\":true,\"use_regex\":true},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,"
              "\"ab\":2,\"\\u0120\":3},\"merges\":[\"a b\"]}}", fp);
        fclose(fp);
    }
    static const char *const hf_names[] = {"model.embed_tokens.weight", "model.norm.weight",
        "model.layers.0.input_layernorm.weight", "model.layers.0.post_attention_layernorm.weight",
        "model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
        "model.layers.0.self_attn.v_proj.weight", "model.layers.0.self_attn.o_proj.weight",
        "model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.down_proj.weight"};
    static const uint64_t mat[2] = {4, 4}, vec[1] = {4};
    static float hf_data[16];
    mio_st_entry he[11];
    for (int i = 0; i < 11; i++) {
        int is_vec = i >= 1 && i <= 3;
        he[i] = (mio_st_entry){hf_names[i], MIO_ST_F32, is_vec ? 1u : 2u, is_vec ? vec : mat, hf_data,
                               is_vec ? 16u : 64u};
    }
    T_OK(mio_st_save_file(HF_DIR "/model.safetensors", he, 11, NULL, 0));

    /* a Hub cache holding hf://org/repo at main (the checkpoint above as its
     * snapshot), read in offline mode: the Hub rows make no request */
    mkdir(HUB_CACHE, 0755);
    mkdir(HUB_CACHE "/models--org--repo", 0755);
    mkdir(HUB_CACHE "/models--org--repo/refs", 0755);
    mkdir(HUB_CACHE "/models--org--repo/snapshots", 0755);
    fp = fopen(HUB_CACHE "/models--org--repo/refs/main", "w");
    if (fp) {
        fputs(HUB_COMMIT, fp);
        fclose(fp);
    }
    T_CHECK(symlink("../../../" HF_DIR, HUB_CACHE "/models--org--repo/snapshots/" HUB_COMMIT) == 0);
    setenv("HF_HUB_CACHE", HUB_CACHE, 1);
    setenv("HF_HUB_OFFLINE", "1", 1);
}

/* ------------------------------------------------------------------ the table
 * X(kind, function, parameter, variant, sentinel, message, call)
 *   ST   the call returns MIO_ERR_INVALID_ARG and the message names the parameter:
 *        it contains "<parameter> is NULL" (or `message` when that is not NULL)
 *   OK   the parameter is documented as optional: MIO_OK
 *   SV   the call returns `sentinel`
 *   VOID no return value: a no-op
 * `variant` only tells apart two rows for one parameter. */
#define ROWS(X)                                                                                                  \
    /* types */                                                                                                  \
    X(SV, mio_type_from_name, name, _, -1, NULL, mio_type_from_name(NULL))                                       \
    X(ST, mio_type_nbytes, ne, _, 0, NULL, mio_type_nbytes(MIO_TYPE_F32, 2, NULL, &g_u64))                        \
    X(ST, mio_type_nbytes, out, _, 0, NULL, mio_type_nbytes(MIO_TYPE_F32, 2, g_ne, NULL))                         \
    /* GGUF reader */                                                                                            \
    X(ST, mio_gguf_open, path, _, 0, NULL, mio_gguf_open(NULL, 0, &g_fo))                                             \
    X(ST, mio_gguf_open, out, _, 0, NULL, mio_gguf_open(GGUF_PATH, 0, NULL))                                          \
    X(ST, mio_gguf_open_buffer, data, _, 0, NULL, mio_gguf_open_buffer(NULL, g_gguf.len, 0, &g_fo))                   \
    X(ST, mio_gguf_open_buffer, out, _, 0, NULL, mio_gguf_open_buffer(g_gguf.p, g_gguf.len, 0, NULL))                 \
    X(VOID, mio_gguf_close, f, _, 0, NULL, mio_gguf_close(NULL))                                                      \
    X(SV, mio_gguf_version, f, _, 0, NULL, mio_gguf_version(NULL))                                               \
    X(SV, mio_gguf_alignment, f, _, 0, NULL, mio_gguf_alignment(NULL))                                           \
    X(SV, mio_gguf_header_size, f, _, 0, NULL, mio_gguf_header_size(NULL))                                       \
    X(SV, mio_gguf_data_offset, f, _, 0, NULL, mio_gguf_data_offset(NULL))                                       \
    X(SV, mio_gguf_file_size, f, _, 0, NULL, mio_gguf_file_size(NULL))                                           \
    X(SV, mio_gguf_part_count, f, _, 0, NULL, mio_gguf_part_count(NULL))                                         \
    X(SV, mio_gguf_part_data_offset, f, _, 0, NULL, mio_gguf_part_data_offset(NULL, 0))                          \
    X(SV, mio_gguf_uses_file, f, _, 0, NULL, mio_gguf_uses_file(NULL, GGUF_PATH))                                \
    X(SV, mio_gguf_uses_file, path, _, 0, NULL, mio_gguf_uses_file(g_ffile, NULL))                               \
    X(ST, mio_gguf_find_nonzero_padding, f, _, 0, NULL, mio_gguf_find_nonzero_padding(NULL, &g_u32, &g_u64))     \
    X(ST, mio_gguf_find_nonzero_padding, part, _, 0, NULL, mio_gguf_find_nonzero_padding(g_f, NULL, &g_u64))     \
    X(ST, mio_gguf_find_nonzero_padding, offset, _, 0, NULL, mio_gguf_find_nonzero_padding(g_f, &g_u32, NULL))   \
    X(SV, mio_gguf_kv_count, f, _, -1, NULL, mio_gguf_kv_count(NULL))                                            \
    X(SV, mio_gguf_find_key, f, _, -1, NULL, mio_gguf_find_key(NULL, "u"))                                       \
    X(SV, mio_gguf_find_key, key, _, -1, NULL, mio_gguf_find_key(g_f, NULL))                                     \
    X(SV, mio_gguf_kv_key, f, _, 1, NULL, str_is_null(mio_gguf_kv_key(NULL, k_u)))                               \
    X(SV, mio_gguf_kv_type, f, _, -1, NULL, mio_gguf_kv_type(NULL, k_u))                                         \
    X(ST, mio_gguf_kv_value, f, _, 0, NULL, mio_gguf_kv_value(NULL, k_u, &g_val))                                     \
    X(ST, mio_gguf_kv_value, out, _, 0, NULL, mio_gguf_kv_value(g_f, k_u, NULL))                                      \
    X(ST, mio_gguf_kv_value_sized, f, _, 0, NULL, mio_gguf_kv_value_sized(NULL, k_u, &g_val, sizeof g_val))          \
    X(ST, mio_gguf_kv_value_sized, out, _, 0, NULL, mio_gguf_kv_value_sized(g_f, k_u, NULL, sizeof g_val))           \
    X(ST, mio_gguf_kv_raw, f, _, 0, NULL, mio_gguf_kv_raw(NULL, k_u, &g_str))                                         \
    X(ST, mio_gguf_kv_raw, out, _, 0, NULL, mio_gguf_kv_raw(g_f, k_u, NULL))                                          \
    X(ST, mio_gguf_kv_i64, f, _, 0, NULL, mio_gguf_kv_i64(NULL, k_u, &g_i64))                                         \
    X(ST, mio_gguf_kv_i64, out, _, 0, NULL, mio_gguf_kv_i64(g_f, k_u, NULL))                                          \
    X(ST, mio_gguf_kv_u64, f, _, 0, NULL, mio_gguf_kv_u64(NULL, k_u, &g_u64))                                         \
    X(ST, mio_gguf_kv_u64, out, _, 0, NULL, mio_gguf_kv_u64(g_f, k_u, NULL))                                          \
    X(ST, mio_gguf_kv_f64, f, _, 0, NULL, mio_gguf_kv_f64(NULL, k_f, &g_f64))                                         \
    X(ST, mio_gguf_kv_f64, out, _, 0, NULL, mio_gguf_kv_f64(g_f, k_f, NULL))                                          \
    X(ST, mio_gguf_kv_bool, f, _, 0, NULL, mio_gguf_kv_bool(NULL, k_b, &g_int))                                       \
    X(ST, mio_gguf_kv_bool, out, _, 0, NULL, mio_gguf_kv_bool(g_f, k_b, NULL))                                        \
    X(ST, mio_gguf_kv_str, f, _, 0, NULL, mio_gguf_kv_str(NULL, k_s, &g_str))                                         \
    X(ST, mio_gguf_kv_str, out, _, 0, NULL, mio_gguf_kv_str(g_f, k_s, NULL))                                          \
    X(ST, mio_gguf_arr_i64, f, _, 0, NULL, mio_gguf_arr_i64(NULL, k_ai, 1, &g_i64))                                   \
    X(ST, mio_gguf_arr_i64, out, _, 0, NULL, mio_gguf_arr_i64(g_f, k_ai, 1, NULL))                                    \
    X(ST, mio_gguf_arr_u64, f, _, 0, NULL, mio_gguf_arr_u64(NULL, k_ai, 1, &g_u64))                                   \
    X(ST, mio_gguf_arr_u64, out, _, 0, NULL, mio_gguf_arr_u64(g_f, k_ai, 1, NULL))                                    \
    X(ST, mio_gguf_arr_f64, f, _, 0, NULL, mio_gguf_arr_f64(NULL, k_af, 1, &g_f64))                                   \
    X(ST, mio_gguf_arr_f64, out, _, 0, NULL, mio_gguf_arr_f64(g_f, k_af, 1, NULL))                                    \
    X(ST, mio_gguf_arr_str, f, _, 0, NULL, mio_gguf_arr_str(NULL, k_as, 1, &g_str))                                   \
    X(ST, mio_gguf_arr_str, out, _, 0, NULL, mio_gguf_arr_str(g_f, k_as, 1, NULL))                                    \
    X(ST, mio_gguf_value_elem, arr, _, 0, NULL, mio_gguf_value_elem(NULL, 0, &g_val))                                 \
    X(ST, mio_gguf_value_elem, out, _, 0, NULL, mio_gguf_value_elem(&g_arr, 0, NULL))                                 \
    X(ST, mio_gguf_value_elem_sized, arr, _, 0, NULL, mio_gguf_value_elem_sized(NULL, 0, &g_val, sizeof g_val))      \
    X(ST, mio_gguf_value_elem_sized, out, _, 0, NULL, mio_gguf_value_elem_sized(&g_arr, 0, NULL, sizeof g_val))      \
    X(ST, mio_gguf_value_i64, v, _, 0, NULL, mio_gguf_value_i64(NULL, &g_i64))                                        \
    X(ST, mio_gguf_value_i64, out, _, 0, NULL, mio_gguf_value_i64(&g_elem, NULL))                                     \
    X(ST, mio_gguf_value_u64, v, _, 0, NULL, mio_gguf_value_u64(NULL, &g_u64))                                        \
    X(ST, mio_gguf_value_u64, out, _, 0, NULL, mio_gguf_value_u64(&g_elem, NULL))                                     \
    X(ST, mio_gguf_value_f64, v, _, 0, NULL, mio_gguf_value_f64(NULL, &g_f64))                                        \
    X(ST, mio_gguf_value_f64, out, _, 0, NULL, mio_gguf_value_f64(&g_felem, NULL))                                    \
    X(SV, mio_gguf_tensor_count, f, _, -1, NULL, mio_gguf_tensor_count(NULL))                                    \
    X(ST, mio_gguf_tensor_info, f, _, 0, NULL, mio_gguf_tensor_info(NULL, 0, &g_to))                                  \
    X(ST, mio_gguf_tensor_info, out, _, 0, NULL, mio_gguf_tensor_info(g_f, 0, NULL))                                  \
    X(ST, mio_gguf_tensor_info_sized, f, _, 0, NULL, mio_gguf_tensor_info_sized(NULL, 0, &g_to, sizeof g_to))        \
    X(ST, mio_gguf_tensor_info_sized, out, _, 0, NULL, mio_gguf_tensor_info_sized(g_f, 0, NULL, sizeof g_to))        \
    X(ST, mio_gguf_read_tensor, f, _, 0, NULL, mio_gguf_read_tensor(NULL, 0, 0, &g_u64, 1))                          \
    X(ST, mio_gguf_read_tensor, buf, _, 0, NULL, mio_gguf_read_tensor(g_f, 0, 0, NULL, 1))                           \
    X(SV, mio_gguf_find_tensor, f, _, -1, NULL, mio_gguf_find_tensor(NULL, "t"))                                 \
    X(SV, mio_gguf_find_tensor, name, _, -1, NULL, mio_gguf_find_tensor(g_f, NULL))                              \
    X(ST, mio_gguf_tensor_shape2d, t, _, 0, NULL, mio_gguf_tensor_shape2d(NULL, &g_i64, &g_i64b))                     \
    X(ST, mio_gguf_tensor_shape2d, rows, _, 0, NULL, mio_gguf_tensor_shape2d(&g_tensor, NULL, &g_i64b))               \
    X(ST, mio_gguf_tensor_shape2d, cols, _, 0, NULL, mio_gguf_tensor_shape2d(&g_tensor, &g_i64, NULL))                \
    X(ST, mio_gguf_take_mapping, f, _, 0, NULL, mio_gguf_take_mapping(NULL, &g_addr, &g_len))                         \
    X(ST, mio_gguf_take_mapping, addr, _, 0, NULL, mio_gguf_take_mapping(g_f, NULL, &g_len))                          \
    X(ST, mio_gguf_take_mapping, len, _, 0, NULL, mio_gguf_take_mapping(g_f, &g_addr, NULL))                          \
    X(OK, mio_gguf_unmap, addr, _, 0, NULL, mio_gguf_unmap(NULL, 4096))                                                         \
    X(VOID, mio_gguf_prefetch, f, _, 0, NULL, mio_gguf_prefetch(NULL, g_tensor.data, 32))                                       \
    X(VOID, mio_gguf_prefetch, ptr, _, 0, NULL, mio_gguf_prefetch(g_f, NULL, 32))                                               \
    X(VOID, mio_gguf_release, f, _, 0, NULL, mio_gguf_release(NULL, g_tensor.data, 32))                                         \
    X(VOID, mio_gguf_release, ptr, _, 0, NULL, mio_gguf_release(g_f, NULL, 32))                                                 \
    /* GGUF writer */                                                                                            \
    X(ST, mio_writer_new, out, _, 0, NULL, mio_writer_new(0, NULL))                                                   \
    X(VOID, mio_writer_free, w, _, 0, NULL, mio_writer_free(NULL))                                                    \
    X(ST, mio_writer_set_u8, w, _, 0, NULL, mio_writer_set_u8(NULL, "k", 1))                                          \
    X(ST, mio_writer_set_u8, key, _, 0, NULL, mio_writer_set_u8(g_w, NULL, 1))                                        \
    X(ST, mio_writer_set_i8, w, _, 0, NULL, mio_writer_set_i8(NULL, "k", 1))                                          \
    X(ST, mio_writer_set_i8, key, _, 0, NULL, mio_writer_set_i8(g_w, NULL, 1))                                        \
    X(ST, mio_writer_set_u16, w, _, 0, NULL, mio_writer_set_u16(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_u16, key, _, 0, NULL, mio_writer_set_u16(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_i16, w, _, 0, NULL, mio_writer_set_i16(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_i16, key, _, 0, NULL, mio_writer_set_i16(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_u32, w, _, 0, NULL, mio_writer_set_u32(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_u32, key, _, 0, NULL, mio_writer_set_u32(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_i32, w, _, 0, NULL, mio_writer_set_i32(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_i32, key, _, 0, NULL, mio_writer_set_i32(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_u64, w, _, 0, NULL, mio_writer_set_u64(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_u64, key, _, 0, NULL, mio_writer_set_u64(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_i64, w, _, 0, NULL, mio_writer_set_i64(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_i64, key, _, 0, NULL, mio_writer_set_i64(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_f32, w, _, 0, NULL, mio_writer_set_f32(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_f32, key, _, 0, NULL, mio_writer_set_f32(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_f64, w, _, 0, NULL, mio_writer_set_f64(NULL, "k", 1))                                        \
    X(ST, mio_writer_set_f64, key, _, 0, NULL, mio_writer_set_f64(g_w, NULL, 1))                                      \
    X(ST, mio_writer_set_bool, w, _, 0, NULL, mio_writer_set_bool(NULL, "k", 1))                                      \
    X(ST, mio_writer_set_bool, key, _, 0, NULL, mio_writer_set_bool(g_w, NULL, 1))                                    \
    X(ST, mio_writer_set_str, w, _, 0, NULL, mio_writer_set_str(NULL, "k", "abc", 3))                                 \
    X(ST, mio_writer_set_str, key, _, 0, NULL, mio_writer_set_str(g_w, NULL, "abc", 3))                               \
    X(ST, mio_writer_set_str, s, _, 0, NULL, mio_writer_set_str(g_w, "k", NULL, 3))                                   \
    X(ST, mio_writer_set_arr, w, _, 0, NULL, mio_writer_set_arr(NULL, "k", MIO_GGUF_I32, g_ai, 3))                    \
    X(ST, mio_writer_set_arr, key, _, 0, NULL, mio_writer_set_arr(g_w, NULL, MIO_GGUF_I32, g_ai, 3))                  \
    X(ST, mio_writer_set_arr, data, _, 0, NULL, mio_writer_set_arr(g_w, "k", MIO_GGUF_I32, NULL, 3))                  \
    X(ST, mio_writer_set_arr_str, w, _, 0, NULL, mio_writer_set_arr_str(NULL, "k", g_strs, NULL, 2))                  \
    X(ST, mio_writer_set_arr_str, key, _, 0, NULL, mio_writer_set_arr_str(g_w, NULL, g_strs, NULL, 2))                \
    X(ST, mio_writer_set_arr_str, strs, _, 0, NULL, mio_writer_set_arr_str(g_w, "k", NULL, NULL, 2))                  \
    X(OK, mio_writer_set_arr_str, lens, _, 0, NULL, mio_writer_set_arr_str(g_w, "k", g_strs, NULL, 2))                \
    X(ST, mio_writer_remove_key, w, _, 0, NULL, mio_writer_remove_key(NULL, "general.name"))                          \
    X(ST, mio_writer_remove_key, key, _, 0, NULL, mio_writer_remove_key(g_w, NULL))                                   \
    X(ST, mio_writer_copy_kv, w, _, 0, NULL, mio_writer_copy_kv(NULL, g_f, k_u))                                      \
    X(ST, mio_writer_copy_kv, src, _, 0, "source file src is NULL", mio_writer_copy_kv(g_w, NULL, 0))            \
    X(ST, mio_writer_copy_all_kv, w, _, 0, NULL, mio_writer_copy_all_kv(NULL, g_f, g_skip, 1))                        \
    X(ST, mio_writer_copy_all_kv, src, _, 0, "source file src is NULL", mio_writer_copy_all_kv(g_w, NULL, g_skip, 1)) \
    X(ST, mio_writer_copy_all_kv, skip, _, 0, "skip is NULL (n_skip 3)", mio_writer_copy_all_kv(g_w, g_f, NULL, 3)) \
    /* metadata edits */                                                                                          \
    X(ST, mio_kv_edit_parse, spec, _, 0, NULL, mio_kv_edit_parse(NULL, &g_edit))                                      \
    X(ST, mio_kv_edit_parse, out, _, 0, NULL, mio_kv_edit_parse("a=int:5", NULL))                                     \
    X(ST, mio_kv_override_parse, spec, _, 0, NULL, mio_kv_override_parse(NULL, &g_override))                          \
    X(ST, mio_kv_override_parse, out, _, 0, NULL, mio_kv_override_parse("a=int:5", NULL))                             \
    X(ST, mio_writer_apply_edits, w, _, 0, NULL, mio_writer_apply_edits(NULL, g_edits, 1))                            \
    X(ST, mio_writer_apply_edits, e, _, 0, "e is NULL (n 2)", mio_writer_apply_edits(g_w, NULL, 2))               \
    X(OK, mio_writer_apply_edits, e, n0, 0, NULL, mio_writer_apply_edits(g_w, NULL, 0))                               \
    X(ST, mio_gguf_copy_edit, in_path, _, 0, NULL, mio_gguf_copy_edit(NULL, "null_args_ce.gguf", g_edits, 1))         \
    X(ST, mio_gguf_copy_edit, out_path, _, 0, NULL, mio_gguf_copy_edit(GGUF_PATH, NULL, g_edits, 1))                  \
    X(ST, mio_gguf_copy_edit, e, _, 0, "e is NULL (n 1)", mio_gguf_copy_edit(GGUF_PATH, "null_args_ce.gguf", NULL, 1)) \
    X(ST, mio_gguf_copy_edit_fd, in_path, _, 0, NULL, mio_gguf_copy_edit_fd(NULL, g_devnull, g_edits, 1))            \
    X(ST, mio_gguf_copy_edit_fd, e, _, 0, "e is NULL (n 1)", mio_gguf_copy_edit_fd(GGUF_PATH, g_devnull, NULL, 1))   \
    X(OK, mio_gguf_copy_edit, e, n0, 0, NULL, mio_gguf_copy_edit(GGUF_PATH, "null_args_ce.gguf", NULL, 0))            \
    X(ST, mio_gguf_edit_in_place, path, _, 0, NULL, mio_gguf_edit_in_place(NULL, g_edits, 1))                         \
    X(ST, mio_gguf_edit_in_place, e, _, 0, "e is NULL (n 1)", mio_gguf_edit_in_place(GGUF_PATH, NULL, 1))         \
    X(OK, mio_gguf_edit_in_place, e, n0, 0, NULL, mio_gguf_edit_in_place(GGUF_PATH, NULL, 0))                         \
    X(ST, mio_writer_apply_edits_sized, w, _, 0, NULL, mio_writer_apply_edits_sized(NULL, g_edits, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_writer_apply_edits_sized, e, _, 0, "e is NULL (n 2)", mio_writer_apply_edits_sized(g_w, NULL, 2, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_copy_edit_sized, in_path, _, 0, NULL, mio_gguf_copy_edit_sized(NULL, "null_args_ce.gguf", g_edits, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_copy_edit_sized, out_path, _, 0, NULL, mio_gguf_copy_edit_sized(GGUF_PATH, NULL, g_edits, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_copy_edit_sized, e, _, 0, "e is NULL (n 1)", mio_gguf_copy_edit_sized(GGUF_PATH, "null_args_ce.gguf", NULL, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_copy_edit_fd_sized, in_path, _, 0, NULL, mio_gguf_copy_edit_fd_sized(NULL, g_devnull, g_edits, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_copy_edit_fd_sized, e, _, 0, "e is NULL (n 1)", mio_gguf_copy_edit_fd_sized(GGUF_PATH, g_devnull, NULL, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_edit_in_place_sized, path, _, 0, NULL, mio_gguf_edit_in_place_sized(NULL, g_edits, 1, sizeof(mio_kv_edit))) \
    X(ST, mio_gguf_edit_in_place_sized, e, _, 0, "e is NULL (n 1)", mio_gguf_edit_in_place_sized(GGUF_PATH, NULL, 1, sizeof(mio_kv_edit))) \
    X(SV, mio_writer_kv_count, w, _, -1, NULL, mio_writer_kv_count(NULL))                                        \
    X(SV, mio_writer_alignment, w, _, 0, NULL, mio_writer_alignment(NULL))                                       \
    X(ST, mio_writer_add_tensor, w, _, 0, NULL, mio_writer_add_tensor(NULL, "t2", MIO_TYPE_F32, 2, g_ne, g_tdata, 32)) \
    X(ST, mio_writer_add_tensor, name, _, 0, NULL, mio_writer_add_tensor(g_w, NULL, MIO_TYPE_F32, 2, g_ne, g_tdata, 32)) \
    X(ST, mio_writer_add_tensor, ne, _, 0, NULL, mio_writer_add_tensor(g_w, "t2", MIO_TYPE_F32, 2, NULL, g_tdata, 32)) \
    X(ST, mio_writer_add_tensor, data, _, 0, NULL, mio_writer_add_tensor(g_w, "t2", MIO_TYPE_F32, 2, g_ne, NULL, 32)) \
    X(ST, mio_writer_declare_tensor, w, _, 0, NULL, mio_writer_declare_tensor(NULL, "t2", MIO_TYPE_F32, 2, g_ne))     \
    X(ST, mio_writer_declare_tensor, name, _, 0, NULL, mio_writer_declare_tensor(g_w, NULL, MIO_TYPE_F32, 2, g_ne))   \
    X(ST, mio_writer_declare_tensor, ne, _, 0, NULL, mio_writer_declare_tensor(g_w, "t2", MIO_TYPE_F32, 2, NULL))     \
    X(SV, mio_writer_tensor_count, w, _, -1, NULL, mio_writer_tensor_count(NULL))                                \
    X(SV, mio_writer_header_size, w, _, 0, NULL, mio_writer_header_size(NULL))                                   \
    X(ST, mio_writer_write_file, w, _, 0, NULL, mio_writer_write_file(NULL, "null_args_out.gguf"))                    \
    X(ST, mio_writer_write_file, path, _, 0, NULL, mio_writer_write_file(g_w, NULL))                                  \
    X(ST, mio_writer_write_cb, w, _, 0, NULL, mio_writer_write_cb(NULL, mem_sink, NULL))                              \
    X(ST, mio_writer_write_cb, fn, _, 0, NULL, mio_writer_write_cb(g_w, NULL, NULL))                                  \
    X(OK, mio_writer_write_cb, user, _, 0, NULL, mio_writer_write_cb(g_w, mem_sink, NULL))                            \
    X(ST, mio_writer_write_fd, w, _, 0, NULL, mio_writer_write_fd(NULL, g_devnull))                                   \
    X(ST, mio_writer_begin_file, w, _, 0, NULL, mio_writer_begin_file(NULL, "null_args_out.gguf"))                    \
    X(ST, mio_writer_begin_file, path, _, 0, NULL, mio_writer_begin_file(g_w, NULL))                                  \
    X(ST, mio_writer_begin_cb, w, _, 0, NULL, mio_writer_begin_cb(NULL, mem_sink, NULL))                              \
    X(ST, mio_writer_begin_cb, fn, _, 0, NULL, mio_writer_begin_cb(g_w, NULL, NULL))                                  \
    X(OK, mio_writer_begin_cb, user, _, 0, NULL, mio_writer_begin_cb(g_w, mem_sink, NULL))                            \
    X(ST, mio_writer_begin_fd, w, _, 0, NULL, mio_writer_begin_fd(NULL, g_devnull))                                   \
    X(ST, mio_writer_write_tensor, w, _, 0, NULL, mio_writer_write_tensor(NULL, g_tdata, 32))                         \
    X(ST, mio_writer_write_tensor, data, declared, 0, NULL, write_null_declared())                                    \
    X(OK, mio_writer_write_tensor, data, added, 0, NULL, write_null_added())                                          \
    X(ST, mio_writer_write_tensor_part, w, _, 0, NULL, mio_writer_write_tensor_part(NULL, g_tdata, 32))               \
    X(ST, mio_writer_write_tensor_part, data, _, 0, NULL, mio_writer_write_tensor_part(g_wdecl, NULL, 32))            \
    X(ST, mio_writer_finish, w, _, 0, NULL, mio_writer_finish(NULL))                                                  \
    /* codecs */                                                                                                 \
    X(ST, mio_encode_f32, src, _, 0, NULL, mio_encode_f32(MIO_TYPE_Q8_0, NULL, 32, g_q8, 34))                         \
    X(ST, mio_encode_f32, dst, _, 0, NULL, mio_encode_f32(MIO_TYPE_Q8_0, g_src, 32, NULL, 34))                        \
    X(ST, mio_decode_f32, src, _, 0, NULL, mio_decode_f32(MIO_TYPE_Q8_0, NULL, 34, g_fout, 32))                       \
    X(ST, mio_decode_f32, dst, _, 0, NULL, mio_decode_f32(MIO_TYPE_Q8_0, g_q8, 34, NULL, 32))                         \
    X(ST, mio_encode_f32_imatrix, src, _, 0, NULL, mio_encode_f32_imatrix(MIO_TYPE_Q4_K, NULL, 256, 256, g_imat, g_q4k, 144)) \
    X(OK, mio_encode_f32_imatrix, imatrix, _, 0, NULL, mio_encode_f32_imatrix(MIO_TYPE_Q4_K, g_src, 256, 256, NULL, g_q4k, 144)) \
    X(ST, mio_encode_f32_imatrix, dst, _, 0, NULL, mio_encode_f32_imatrix(MIO_TYPE_Q4_K, g_src, 256, 256, g_imat, NULL, 144)) \
    X(ST, mio_encode_f32_mt, src, _, 0, NULL, mio_encode_f32_mt(MIO_TYPE_Q8_0, NULL, 32, g_q8, 34, 2))                \
    X(ST, mio_encode_f32_mt, dst, _, 0, NULL, mio_encode_f32_mt(MIO_TYPE_Q8_0, g_src, 32, NULL, 34, 2))               \
    X(ST, mio_decode_f32_mt, src, _, 0, NULL, mio_decode_f32_mt(MIO_TYPE_Q8_0, NULL, 34, g_fout, 32, 2))              \
    X(ST, mio_decode_f32_mt, dst, _, 0, NULL, mio_decode_f32_mt(MIO_TYPE_Q8_0, g_q8, 34, NULL, 32, 2))                \
    /* dot products */                                                                                           \
    X(ST, mio_vec_dot, w_row, _, 0, NULL, mio_vec_dot(MIO_TYPE_Q8_0, 32, NULL, g_q8, g_fout))                        \
    X(ST, mio_vec_dot, act_row, _, 0, NULL, mio_vec_dot(MIO_TYPE_Q8_0, 32, g_q8, NULL, g_fout))                      \
    X(ST, mio_vec_dot, out, _, 0, NULL, mio_vec_dot(MIO_TYPE_Q8_0, 32, g_q8, g_q8, NULL))                            \
    X(ST, mio_matvec, w, _, 0, NULL, mio_matvec(MIO_TYPE_Q8_0, NULL, 1, 32, g_src, g_fout, 1))                       \
    X(ST, mio_matvec, x, _, 0, NULL, mio_matvec(MIO_TYPE_Q8_0, g_q8, 1, 32, NULL, g_fout, 1))                        \
    X(ST, mio_matvec, y, _, 0, NULL, mio_matvec(MIO_TYPE_Q8_0, g_q8, 1, 32, g_src, NULL, 1))                         \
    X(ST, mio_matmul, w, _, 0, NULL, mio_matmul(MIO_TYPE_Q8_0, NULL, 1, 32, g_src, 2, g_fout, 1))                    \
    X(ST, mio_matmul, x, _, 0, NULL, mio_matmul(MIO_TYPE_Q8_0, g_q8, 1, 32, NULL, 2, g_fout, 1))                     \
    X(ST, mio_matmul, y, _, 0, NULL, mio_matmul(MIO_TYPE_Q8_0, g_q8, 1, 32, g_src, 2, NULL, 1))                      \
    X(ST, mio_pack_weights, w, _, 0, NULL, mio_pack_weights(MIO_TYPE_Q8_0, NULL, 1, 32, &g_packed_out))              \
    X(ST, mio_pack_weights, out, _, 0, NULL, mio_pack_weights(MIO_TYPE_Q8_0, g_q8, 1, 32, NULL))                     \
    X(ST, mio_packed_matmul, p, _, 0, NULL, mio_packed_matmul(NULL, g_src, 1, g_fout, 1))                             \
    X(ST, mio_packed_matmul, x, _, 0, NULL, mio_packed_matmul(g_packed, NULL, 1, g_fout, 1))                          \
    X(ST, mio_packed_matmul, y, _, 0, NULL, mio_packed_matmul(g_packed, g_src, 1, NULL, 1))                           \
    X(SV, mio_packed_layout, p, _, 0, NULL, mio_packed_layout(NULL))                                                  \
    X(VOID, mio_packed_free, p, _, 0, NULL, mio_packed_free(NULL))                                                    \
    /* PTQTP */                                                                                                  \
    X(VOID, mio_ptqtp_default_options, o, _, 0, NULL, mio_ptqtp_default_options(NULL))                            \
    X(ST, mio_ptqtp_default_options_sized, o, _, 0, NULL, mio_ptqtp_default_options_sized(NULL, sizeof(mio_ptqtp_options))) \
    X(ST, mio_ptqtp_quantize, w, _, 0, NULL, mio_ptqtp_quantize(NULL, 1, 256, &g_popt, g_pplanes, 66, &g_pstats))   \
    X(ST, mio_ptqtp_quantize, o, _, 0, NULL, mio_ptqtp_quantize(g_src, 1, 256, NULL, g_pplanes, 66, &g_pstats))     \
    X(ST, mio_ptqtp_quantize, planes, _, 0, NULL, mio_ptqtp_quantize(g_src, 1, 256, &g_popt, NULL, 66, &g_pstats))  \
    X(OK, mio_ptqtp_quantize, stats, _, 0, NULL, mio_ptqtp_quantize(g_src, 1, 256, &g_popt, g_pplanes, 66, NULL))   \
    /* safetensors */                                                                                            \
    X(SV, mio_st_dtype_from_name, name, _, -1, NULL, mio_st_dtype_from_name(NULL))                               \
    X(ST, mio_st_open, path, _, 0, NULL, mio_st_open(NULL, 0, &g_sfo))                                                \
    X(ST, mio_st_open, out, _, 0, NULL, mio_st_open(ST_PATH, 0, NULL))                                                \
    X(ST, mio_st_open_buffer, data, _, 0, NULL, mio_st_open_buffer(NULL, g_st_len, 0, &g_sfo))                        \
    X(ST, mio_st_open_buffer, out, _, 0, NULL, mio_st_open_buffer(g_st_buf, g_st_len, 0, NULL))                       \
    X(ST, mio_st_read_frame, fn, _, 0, NULL, mio_st_read_frame(NULL, &g_cursor, &g_sfo))                              \
    X(OK, mio_st_read_frame, user, _, 0, NULL, read_frame_user_null())                                                \
    X(ST, mio_st_read_frame, out, _, 0, NULL, read_frame_out_null())                                                  \
    X(ST, mio_st_read_frame_fd, out, _, 0, NULL, mio_st_read_frame_fd(g_st_fd, NULL))                                 \
    X(VOID, mio_st_close, f, _, 0, NULL, mio_st_close(NULL))                                                          \
    X(SV, mio_st_header_size, f, _, 0, NULL, mio_st_header_size(NULL))                                           \
    X(SV, mio_st_file_size, f, _, 0, NULL, mio_st_file_size(NULL))                                               \
    X(SV, mio_st_shard_count, f, _, 0, NULL, mio_st_shard_count(NULL))                                           \
    X(SV, mio_st_uses_file, f, _, 0, NULL, mio_st_uses_file(NULL, ST_PATH))                                      \
    X(SV, mio_st_uses_file, path, _, 0, NULL, mio_st_uses_file(g_sffile, NULL))                                  \
    X(SV, mio_st_tensor_count, f, _, -1, NULL, mio_st_tensor_count(NULL))                                        \
    X(ST, mio_st_tensor_info, f, _, 0, NULL, mio_st_tensor_info(NULL, 0, &g_sto))                                     \
    X(ST, mio_st_tensor_info, out, _, 0, NULL, mio_st_tensor_info(g_sf, 0, NULL))                                     \
    X(ST, mio_st_tensor_info_sized, f, _, 0, NULL, mio_st_tensor_info_sized(NULL, 0, &g_sto, sizeof g_sto))          \
    X(ST, mio_st_tensor_info_sized, out, _, 0, NULL, mio_st_tensor_info_sized(g_sf, 0, NULL, sizeof g_sto))          \
    X(ST, mio_st_read_tensor, f, _, 0, NULL, mio_st_read_tensor(NULL, 0, 0, &g_u64, 1))                              \
    X(ST, mio_st_read_tensor, buf, _, 0, NULL, mio_st_read_tensor(g_sf, 0, 0, NULL, 1))                              \
    X(SV, mio_st_find_tensor, f, _, -1, NULL, mio_st_find_tensor(NULL, "w"))                                     \
    X(SV, mio_st_find_tensor, name, _, -1, NULL, mio_st_find_tensor(g_sf, NULL))                                 \
    X(SV, mio_st_meta_count, f, _, -1, NULL, mio_st_meta_count(NULL))                                            \
    X(ST, mio_st_meta_at, f, _, 0, NULL, mio_st_meta_at(NULL, 0, &g_str, &g_str2))                                    \
    X(OK, mio_st_meta_at, key, _, 0, NULL, mio_st_meta_at(g_sf, 0, NULL, &g_str2))                                    \
    X(OK, mio_st_meta_at, value, _, 0, NULL, mio_st_meta_at(g_sf, 0, &g_str, NULL))                                   \
    X(ST, mio_st_find_meta, f, _, 0, NULL, mio_st_find_meta(NULL, "format", &g_str))                                  \
    X(ST, mio_st_find_meta, key, _, 0, NULL, mio_st_find_meta(g_sf, NULL, &g_str))                                    \
    X(OK, mio_st_find_meta, value, _, 0, NULL, mio_st_find_meta(g_sf, "format", NULL))                                \
    X(ST, mio_st_slice, f, _, 0, NULL, mio_st_slice(NULL, 0, 1, g_starts, g_ends, g_dst, sizeof g_dst, &g_len))       \
    X(ST, mio_st_slice, starts, _, 0, NULL, mio_st_slice(g_sf, 0, 1, NULL, g_ends, g_dst, sizeof g_dst, &g_len))      \
    X(ST, mio_st_slice, ends, _, 0, NULL, mio_st_slice(g_sf, 0, 1, g_starts, NULL, g_dst, sizeof g_dst, &g_len))      \
    X(ST, mio_st_slice, dst, _, 0, NULL, mio_st_slice(g_sf, 0, 1, g_starts, g_ends, NULL, sizeof g_dst, &g_len))      \
    X(OK, mio_st_slice, written, _, 0, NULL, mio_st_slice(g_sf, 0, 1, g_starts, g_ends, g_dst, sizeof g_dst, NULL))   \
    X(ST, mio_st_save_file, path, _, 0, NULL, mio_st_save_file(NULL, g_ent, 1, g_meta, 1))                            \
    X(ST, mio_st_save_file, t, _, 0, NULL, mio_st_save_file("null_args_out.safetensors", NULL, 1, g_meta, 1))         \
    X(ST, mio_st_save_file, meta, _, 0, NULL, mio_st_save_file("null_args_out.safetensors", g_ent, 1, NULL, 1))       \
    X(ST, mio_state_dict_save_file, path, _, 0, NULL, mio_state_dict_save_file(NULL, g_ent, 1, sizeof g_ent[0]))     \
    X(ST, mio_state_dict_save_file, t, _, 0, NULL, mio_state_dict_save_file("null_args_sd.safetensors", NULL, 1, sizeof g_ent[0])) \
    X(ST, mio_state_dict_save_fd, t, _, 0, NULL, mio_state_dict_save_fd(g_devnull, NULL, 1, sizeof g_ent[0]))         \
    X(ST, mio_state_dict_save_buffer, t, _, 0, NULL, mio_state_dict_save_buffer(NULL, 1, sizeof g_ent[0], &g_buf_out, &g_len)) \
    X(ST, mio_state_dict_save_buffer, out, _, 0, NULL, mio_state_dict_save_buffer(g_ent, 1, sizeof g_ent[0], NULL, &g_len)) \
    X(ST, mio_state_dict_save_buffer, out_len, _, 0, NULL, mio_state_dict_save_buffer(g_ent, 1, sizeof g_ent[0], &g_buf_out, NULL)) \
    X(ST, mio_state_dict_load, f, _, 0, NULL, mio_state_dict_load(NULL, g_sdd, 1, sizeof g_sdd[0], g_sda, 1, 0, &g_len)) \
    X(ST, mio_state_dict_load, d, _, 0, NULL, mio_state_dict_load(g_sf, NULL, 1, sizeof g_sdd[0], g_sda, 1, 0, &g_len)) \
    X(ST, mio_state_dict_load, aliases, _, 0, NULL, mio_state_dict_load(g_sf, g_sdd, 1, sizeof g_sdd[0], NULL, 1, 0, &g_len)) \
    X(OK, mio_state_dict_load, n_loaded, _, 0, NULL, mio_state_dict_load(g_sf, g_sdd, 1, sizeof g_sdd[0], g_sda, 1, 0, NULL)) \
    X(ST, mio_state_dict_load_file, path, _, 0, NULL, mio_state_dict_load_file(NULL, g_sdd, 1, sizeof g_sdd[0], g_sda, 1, 0, &g_len)) \
    X(ST, mio_state_dict_load_file, d, _, 0, NULL, mio_state_dict_load_file(ST_PATH, NULL, 1, sizeof g_sdd[0], g_sda, 1, 0, &g_len)) \
    X(ST, mio_state_dict_load_file, aliases, _, 0, NULL, mio_state_dict_load_file(ST_PATH, g_sdd, 1, sizeof g_sdd[0], NULL, 1, 0, &g_len)) \
    X(OK, mio_state_dict_load_file, n_loaded, _, 0, NULL, mio_state_dict_load_file(ST_PATH, g_sdd, 1, sizeof g_sdd[0], g_sda, 1, 0, NULL)) \
    X(ST, mio_fzt1_save_file, path, _, 0, NULL, mio_fzt1_save_file(NULL, g_fzt, 1, sizeof g_fzt[0]))                 \
    X(ST, mio_fzt1_save_file, t, _, 0, NULL, mio_fzt1_save_file("null_args_out.fzt1", NULL, 1, sizeof g_fzt[0]))     \
    X(ST, mio_fzt1_save_buffer, t, _, 0, NULL, mio_fzt1_save_buffer(NULL, 1, sizeof g_fzt[0], &g_buf_out, &g_len))   \
    X(ST, mio_fzt1_save_buffer, out, _, 0, NULL, mio_fzt1_save_buffer(g_fzt, 1, sizeof g_fzt[0], NULL, &g_len))      \
    X(ST, mio_fzt1_save_buffer, out_len, _, 0, NULL, mio_fzt1_save_buffer(g_fzt, 1, sizeof g_fzt[0], &g_buf_out, NULL)) \
    X(ST, mio_fzt1_open, path, _, 0, NULL, mio_fzt1_open(NULL, &g_fzo))                                                \
    X(ST, mio_fzt1_open, out, _, 0, NULL, mio_fzt1_open(FZT1_PATH, NULL))                                              \
    X(ST, mio_fzt1_open_buffer, data, _, 0, NULL, mio_fzt1_open_buffer(NULL, g_fz_len, &g_fzo))                        \
    X(ST, mio_fzt1_open_buffer, out, _, 0, NULL, mio_fzt1_open_buffer(g_fz_buf, g_fz_len, NULL))                       \
    X(VOID, mio_fzt1_close, f, _, 0, NULL, mio_fzt1_close(NULL))                                                      \
    X(SV, mio_fzt1_count, f, _, -1, NULL, mio_fzt1_count(NULL))                                                       \
    X(ST, mio_fzt1_tensor_info, f, _, 0, NULL, mio_fzt1_tensor_info(NULL, 0, &g_fzo_t))                               \
    X(ST, mio_fzt1_tensor_info, out, _, 0, NULL, mio_fzt1_tensor_info(g_fzf, 0, NULL))                                \
    X(ST, mio_ckpt_begin, dir, _, 0, NULL, mio_ckpt_begin(NULL, &g_ckso))                                              \
    X(ST, mio_ckpt_begin, out, _, 0, NULL, mio_ckpt_begin(CKPT_DIR "_3", NULL))                                        \
    X(ST, mio_ckpt_add_state_dict, s, _, 0, NULL, mio_ckpt_add_state_dict(NULL, "m.safetensors", g_ent, 1, sizeof g_ent[0])) \
    X(ST, mio_ckpt_add_state_dict, name, _, 0, "NULL file name", mio_ckpt_add_state_dict(g_cks, NULL, g_ent, 1, sizeof g_ent[0])) \
    X(ST, mio_ckpt_add_state_dict, t, _, 0, NULL, mio_ckpt_add_state_dict(g_cks, "m.safetensors", NULL, 1, sizeof g_ent[0])) \
    X(ST, mio_ckpt_add_file, s, _, 0, NULL, mio_ckpt_add_file(NULL, "b", "x", 1))                                     \
    X(ST, mio_ckpt_add_file, name, _, 0, "NULL file name", mio_ckpt_add_file(g_cks, NULL, "x", 1))                    \
    X(ST, mio_ckpt_add_file, data, _, 0, NULL, mio_ckpt_add_file(g_cks, "b", NULL, 1))                                 \
    X(ST, mio_ckpt_commit, s, _, 0, NULL, mio_ckpt_commit(NULL, 1, 2, "{}"))                                           \
    X(OK, mio_ckpt_commit, extra_json, _, 0, NULL, mio_ckpt_commit(g_cks, 1, 2, NULL))                                 \
    X(VOID, mio_ckpt_abort, s, _, 0, NULL, mio_ckpt_abort(NULL))                                                      \
    X(ST, mio_ckpt_open, dir, _, 0, NULL, mio_ckpt_open(NULL, &g_ckco))                                                \
    X(ST, mio_ckpt_open, out, _, 0, NULL, mio_ckpt_open(CKPT_DIR, NULL))                                               \
    X(VOID, mio_ckpt_close, c, _, 0, NULL, mio_ckpt_close(NULL))                                                      \
    X(SV, mio_ckpt_step, c, _, 0, NULL, mio_ckpt_step(NULL))                                                          \
    X(SV, mio_ckpt_seed, c, _, 0, NULL, mio_ckpt_seed(NULL))                                                          \
    X(SV, mio_ckpt_extra_json, c, _, 0, NULL, mio_ckpt_extra_json(NULL) != NULL)                                      \
    X(SV, mio_ckpt_file_count, c, _, -1, NULL, mio_ckpt_file_count(NULL))                                             \
    X(SV, mio_ckpt_file_name, c, _, 0, NULL, mio_ckpt_file_name(NULL, 0) != NULL)                                      \
    X(SV, mio_ckpt_file_size, c, _, 0, NULL, mio_ckpt_file_size(NULL, 0))                                              \
    X(ST, mio_ckpt_file_path, c, _, 0, NULL, mio_ckpt_file_path(NULL, "blob", &g_ckp))                                 \
    X(ST, mio_ckpt_file_path, name, _, 0, NULL, mio_ckpt_file_path(g_ckc, NULL, &g_ckp))                               \
    X(ST, mio_ckpt_file_path, out, _, 0, NULL, mio_ckpt_file_path(g_ckc, "blob", NULL))                                \
    X(ST, mio_ckpt_read_file, c, _, 0, NULL, mio_ckpt_read_file(NULL, "blob", &g_ckb, &g_len))                         \
    X(ST, mio_ckpt_read_file, name, _, 0, NULL, mio_ckpt_read_file(g_ckc, NULL, &g_ckb, &g_len))                       \
    X(ST, mio_ckpt_read_file, out, _, 0, NULL, mio_ckpt_read_file(g_ckc, "blob", NULL, &g_len))                        \
    X(ST, mio_ckpt_read_file, len, _, 0, NULL, mio_ckpt_read_file(g_ckc, "blob", &g_ckb, NULL))                        \
    X(ST, mio_ckpt_rotate, parent, _, 0, NULL, mio_ckpt_rotate(NULL, "step-", 1, &g_ckn))                              \
    X(ST, mio_ckpt_rotate, prefix, _, 0, NULL, mio_ckpt_rotate(".", NULL, 1, &g_ckn))                                  \
    X(OK, mio_ckpt_rotate, n_removed, _, 0, NULL, mio_ckpt_rotate(".", "step-", 1, NULL))                              \
    X(ST, mio_st_save_fd, t, _, 0, NULL, mio_st_save_fd(g_devnull, NULL, 1, g_meta, 1))                              \
    X(ST, mio_st_save_fd, meta, _, 0, NULL, mio_st_save_fd(g_devnull, g_ent, 1, NULL, 1))                            \
    X(ST, mio_st_save_fd_sized, t, _, 0, NULL, mio_st_save_fd_sized(g_devnull, NULL, 1, sizeof(mio_st_entry), g_meta, 1)) \
    X(ST, mio_st_save_fd_sized, meta, _, 0, NULL, mio_st_save_fd_sized(g_devnull, g_ent, 1, sizeof(mio_st_entry), NULL, 1)) \
    X(ST, mio_st_save_buffer, t, _, 0, NULL, mio_st_save_buffer(NULL, 1, g_meta, 1, &g_buf_out, &g_len))              \
    X(ST, mio_st_save_buffer, meta, _, 0, NULL, mio_st_save_buffer(g_ent, 1, NULL, 1, &g_buf_out, &g_len))            \
    X(ST, mio_st_save_buffer, out, _, 0, NULL, mio_st_save_buffer(g_ent, 1, g_meta, 1, NULL, &g_len))                 \
    X(ST, mio_st_save_buffer, out_len, _, 0, NULL, mio_st_save_buffer(g_ent, 1, g_meta, 1, &g_buf_out, NULL))         \
    X(ST, mio_st_save_cb, t, _, 0, NULL, mio_st_save_cb(NULL, 1, g_meta, 1, mem_sink, NULL))                          \
    X(ST, mio_st_save_cb, meta, _, 0, NULL, mio_st_save_cb(g_ent, 1, NULL, 1, mem_sink, NULL))                        \
    X(ST, mio_st_save_cb, fn, _, 0, NULL, mio_st_save_cb(g_ent, 1, g_meta, 1, NULL, NULL))                            \
    X(OK, mio_st_save_cb, user, _, 0, NULL, mio_st_save_cb(g_ent, 1, g_meta, 1, mem_sink, NULL))                      \
    X(ST, mio_st_save_sharded, dir, _, 0, NULL, mio_st_save_sharded(NULL, g_ent, 1, g_meta, 1, 1000, &g_u32))         \
    X(ST, mio_st_save_sharded, t, _, 0, NULL, mio_st_save_sharded(ST_DIR, NULL, 1, g_meta, 1, 1000, &g_u32))          \
    X(ST, mio_st_save_sharded, meta, _, 0, NULL, mio_st_save_sharded(ST_DIR, g_ent, 1, NULL, 1, 1000, &g_u32))        \
    X(OK, mio_st_save_sharded, n_shards, _, 0, NULL, mio_st_save_sharded(ST_DIR, g_ent, 1, g_meta, 1, 1000, NULL))    \
    X(ST, mio_st_save_file_sized, path, _, 0, NULL, mio_st_save_file_sized(NULL, g_ent, 1, sizeof(mio_st_entry), g_meta, 1)) \
    X(ST, mio_st_save_file_sized, t, _, 0, NULL, mio_st_save_file_sized("null_args_out.safetensors", NULL, 1, sizeof(mio_st_entry), g_meta, 1)) \
    X(ST, mio_st_save_file_sized, meta, _, 0, NULL, mio_st_save_file_sized("null_args_out.safetensors", g_ent, 1, sizeof(mio_st_entry), NULL, 1)) \
    X(ST, mio_st_save_buffer_sized, t, _, 0, NULL, mio_st_save_buffer_sized(NULL, 1, sizeof(mio_st_entry), g_meta, 1, &g_buf_out, &g_len)) \
    X(ST, mio_st_save_buffer_sized, meta, _, 0, NULL, mio_st_save_buffer_sized(g_ent, 1, sizeof(mio_st_entry), NULL, 1, &g_buf_out, &g_len)) \
    X(ST, mio_st_save_buffer_sized, out, _, 0, NULL, mio_st_save_buffer_sized(g_ent, 1, sizeof(mio_st_entry), g_meta, 1, NULL, &g_len)) \
    X(ST, mio_st_save_buffer_sized, out_len, _, 0, NULL, mio_st_save_buffer_sized(g_ent, 1, sizeof(mio_st_entry), g_meta, 1, &g_buf_out, NULL)) \
    X(ST, mio_st_save_cb_sized, t, _, 0, NULL, mio_st_save_cb_sized(NULL, 1, sizeof(mio_st_entry), g_meta, 1, mem_sink, NULL)) \
    X(ST, mio_st_save_cb_sized, meta, _, 0, NULL, mio_st_save_cb_sized(g_ent, 1, sizeof(mio_st_entry), NULL, 1, mem_sink, NULL)) \
    X(ST, mio_st_save_cb_sized, fn, _, 0, NULL, mio_st_save_cb_sized(g_ent, 1, sizeof(mio_st_entry), g_meta, 1, NULL, NULL)) \
    X(OK, mio_st_save_cb_sized, user, _, 0, NULL, mio_st_save_cb_sized(g_ent, 1, sizeof(mio_st_entry), g_meta, 1, mem_sink, NULL)) \
    X(ST, mio_st_save_sharded_sized, dir, _, 0, NULL, mio_st_save_sharded_sized(NULL, g_ent, 1, sizeof(mio_st_entry), g_meta, 1, 1000, &g_u32)) \
    X(ST, mio_st_save_sharded_sized, t, _, 0, NULL, mio_st_save_sharded_sized(ST_DIR, NULL, 1, sizeof(mio_st_entry), g_meta, 1, 1000, &g_u32)) \
    X(ST, mio_st_save_sharded_sized, meta, _, 0, NULL, mio_st_save_sharded_sized(ST_DIR, g_ent, 1, sizeof(mio_st_entry), NULL, 1, 1000, &g_u32)) \
    X(OK, mio_st_save_sharded_sized, n_shards, _, 0, NULL, mio_st_save_sharded_sized(ST_DIR, g_ent, 1, sizeof(mio_st_entry), g_meta, 1, 1000, NULL)) \
    /* quantizer */                                                                                              \
    X(VOID, mio_quantize_default_params, p, _, 0, NULL, mio_quantize_default_params(NULL))                           \
    X(ST, mio_quantize_default_params_sized, p, _, 0, NULL, mio_quantize_default_params_sized(NULL, sizeof(mio_quantize_params))) \
    X(ST, mio_quantize, in_path, _, 0, NULL, mio_quantize(NULL, "null_args_q.gguf", &g_qparams))                      \
    X(ST, mio_quantize, out_path, _, 0, NULL, mio_quantize(GGUF_PATH, NULL, &g_qparams))                              \
    X(ST, mio_quantize, p, _, 0, NULL, mio_quantize(GGUF_PATH, "null_args_q.gguf", NULL))                             \
    X(ST, mio_quantize_fd, in_path, _, 0, NULL, mio_quantize_fd(NULL, g_devnull, &g_qparams))                       \
    X(ST, mio_quantize_fd, p, _, 0, NULL, mio_quantize_fd(GGUF_PATH, g_devnull, NULL))                                \
    X(VOID, mio_gguf_split_default_params, p, _, 0, NULL, mio_gguf_split_default_params(NULL))                                 \
    X(ST, mio_gguf_split_default_params_sized, p, _, 0, NULL, mio_gguf_split_default_params_sized(NULL, sizeof(mio_gguf_split_params))) \
    X(ST, mio_gguf_split, in_path, _, 0, NULL, mio_gguf_split(NULL, "null_args_s", &g_sparams, &g_nparts))             \
    X(ST, mio_gguf_split, prefix, _, 0, NULL, mio_gguf_split(GGUF_PATH, NULL, &g_sparams, &g_nparts))                  \
    X(ST, mio_gguf_split, p, _, 0, NULL, mio_gguf_split(GGUF_PATH, "null_args_s", NULL, &g_nparts))                    \
    X(OK, mio_gguf_split, n_parts, _, 0, NULL, mio_gguf_split(GGUF_PATH, "null_args_s", &g_sparams, NULL))             \
    /* Hugging Face checkpoints (out, p, written optional) */                                                  \
    X(VOID, mio_hf_default_params, p, _, 0, NULL, mio_hf_default_params(NULL))                                    \
    X(ST, mio_hf_default_params_sized, p, _, 0, NULL, mio_hf_default_params_sized(NULL, sizeof(mio_hf_params)))  \
    X(ST, mio_hf_convert, model_dir, _, 0, NULL, mio_hf_convert(NULL, "null_args_h.gguf", NULL, NULL))            \
    X(OK, mio_hf_convert, out, _, 0, NULL, mio_hf_convert(HF_DIR, NULL, NULL, NULL))                              \
    X(OK, mio_hf_convert, p, _, 0, NULL, mio_hf_convert(HF_DIR, "null_args_h.gguf", NULL, NULL))                  \
    X(OK, mio_hf_convert, written, _, 0, NULL, mio_hf_convert(HF_DIR, "null_args_h.gguf", NULL, NULL))            \
    X(SV, mio_hf_architecture, gguf_arch, _, 1, NULL, mio_hf_architecture(0, NULL) != NULL)                        \
    /* memory estimates (modelio_inspect.h; p NULL means the defaults) */                                      \
    X(VOID, mio_estimate_default_params, p, _, 0, NULL, mio_estimate_default_params(NULL))                        \
    X(ST, mio_estimate_default_params_sized, p, _, 0, NULL, mio_estimate_default_params_sized(NULL, sizeof(mio_estimate_params))) \
    X(ST, mio_estimate, path, _, 0, NULL, mio_estimate(NULL, NULL, &g_est))                                      \
    X(ST, mio_estimate, out, _, 0, NULL, mio_estimate(GGUF_PATH, NULL, NULL))                                    \
    X(ST, mio_estimate_sized, path, _, 0, NULL, mio_estimate_sized(NULL, NULL, &g_est, sizeof g_est))            \
    X(ST, mio_estimate_sized, out, _, 0, NULL, mio_estimate_sized(GGUF_PATH, NULL, NULL, sizeof g_est))          \
    X(OK, mio_estimate, p, _, 0, NULL, mio_estimate(EST_PATH, NULL, &g_est))                                     \
    X(OK, mio_estimate_sized, p, _, 0, NULL, mio_estimate_sized(EST_PATH, NULL, &g_est, sizeof g_est))           \
    /* GGUF <-> safetensors (p NULL means the defaults) */                                                       \
    X(VOID, mio_convert_default_params, p, _, 0, NULL, mio_convert_default_params(NULL))                          \
    X(ST, mio_convert_default_params_sized, p, _, 0, NULL, mio_convert_default_params_sized(NULL, sizeof(mio_convert_params))) \
    X(ST, mio_gguf_to_st, in_path, _, 0, NULL, mio_gguf_to_st(NULL, "null_args_c.safetensors", NULL)) \
    X(ST, mio_gguf_to_st, out, _, 0, NULL, mio_gguf_to_st(GGUF_PATH, NULL, NULL))               \
    X(OK, mio_gguf_to_st, p, _, 0, NULL, mio_gguf_to_st(GGUF_PATH, "null_args_c.safetensors", NULL)) \
    X(ST, mio_gguf_to_st_fd, in_path, _, 0, NULL, mio_gguf_to_st_fd(NULL, g_devnull, NULL))     \
    X(OK, mio_gguf_to_st_fd, p, _, 0, NULL, mio_gguf_to_st_fd(GGUF_PATH, g_devnull, NULL))      \
    X(ST, mio_st_to_gguf, in_path, _, 0, NULL, mio_st_to_gguf(NULL, "null_args_c.gguf", NULL))  \
    X(ST, mio_st_to_gguf, out_path, _, 0, NULL, mio_st_to_gguf(ST_PATH, NULL, NULL))            \
    X(OK, mio_st_to_gguf, p, _, 0, NULL, mio_st_to_gguf(ST_PATH, "null_args_c.gguf", NULL))     \
    X(ST, mio_st_to_gguf_fd, in_path, _, 0, NULL, mio_st_to_gguf_fd(NULL, g_devnull, NULL))     \
    X(OK, mio_st_to_gguf_fd, p, _, 0, NULL, mio_st_to_gguf_fd(ST_PATH, g_devnull, NULL))        \
    /* LoRA adapters */                                                                                          \
    X(VOID, mio_lora_default_params, p, _, 0, NULL, mio_lora_default_params(NULL))                                \
    X(ST, mio_lora_default_params_sized, p, _, 0, NULL, mio_lora_default_params_sized(NULL, sizeof(mio_lora_params))) \
    X(ST, mio_lora_merge, base_path, _, 0, NULL, mio_lora_merge(NULL, "null_args_l.gguf", &g_lparams))            \
    X(ST, mio_lora_merge, out_path, _, 0, NULL, mio_lora_merge(GGUF_PATH, NULL, &g_lparams))                      \
    X(ST, mio_lora_merge, p, _, 0, NULL, mio_lora_merge(GGUF_PATH, "null_args_l.gguf", NULL))                     \
    X(ST, mio_lora_merge_fd, base_path, _, 0, NULL, mio_lora_merge_fd(NULL, g_devnull, &g_lparams))               \
    X(ST, mio_lora_merge_fd, p, _, 0, NULL, mio_lora_merge_fd(GGUF_PATH, g_devnull, NULL))                        \
    X(ST, mio_lora_to_gguf, base_path, _, 0, NULL, mio_lora_to_gguf(NULL, "null_args_l.gguf", &g_lparams))        \
    X(ST, mio_lora_to_gguf, out_path, _, 0, NULL, mio_lora_to_gguf(GGUF_PATH, NULL, &g_lparams))                  \
    X(ST, mio_lora_to_gguf, p, _, 0, NULL, mio_lora_to_gguf(GGUF_PATH, "null_args_l.gguf", NULL))                 \
    X(ST, mio_lora_to_gguf_fd, base_path, _, 0, NULL, mio_lora_to_gguf_fd(NULL, g_devnull, &g_lparams))           \
    X(ST, mio_lora_to_gguf_fd, p, _, 0, NULL, mio_lora_to_gguf_fd(GGUF_PATH, g_devnull, NULL))                    \
    /* the Hub (offline, from the fixture's cache: no request; p NULL means the defaults) */                    \
    X(VOID, mio_hub_pull_default_params, p, _, 0, NULL, mio_hub_pull_default_params(NULL))                        \
    X(ST, mio_hub_pull_default_params_sized, p, _, 0, NULL,                                                       \
      mio_hub_pull_default_params_sized(NULL, sizeof(mio_hub_pull_params)))                                       \
    X(ST, mio_hub_pull, uri, _, 0, NULL, mio_hub_pull(NULL, NULL, &g_hub_out))                                    \
    X(OK, mio_hub_pull, p, _, 0, NULL, mio_hub_pull("hf://org/repo", NULL, &g_hub_out))                           \
    X(ST, mio_hub_pull, out, _, 0, NULL, mio_hub_pull("hf://org/repo", NULL, NULL))                               \
    X(ST, mio_hub_convert, uri, _, 0, NULL, mio_hub_convert(NULL, "null_args_u.gguf", NULL, 0, NULL))             \
    X(OK, mio_hub_convert, out, _, 0, NULL, mio_hub_convert("hf://org/repo", NULL, NULL, 0, NULL))                \
    X(OK, mio_hub_convert, p, _, 0, NULL, mio_hub_convert("hf://org/repo", "null_args_u.gguf", NULL, 0, NULL))    \
    X(OK, mio_hub_convert, written, _, 0, NULL, mio_hub_convert("hf://org/repo", "null_args_u.gguf", NULL, 0, NULL)) \
    /* PTQTP export (p NULL means the defaults) */                                                               \
    X(VOID, mio_ptqtp_default_params, p, _, 0, NULL, mio_ptqtp_default_params(NULL))                              \
    X(ST, mio_ptqtp_default_params_sized, p, _, 0, NULL, mio_ptqtp_default_params_sized(NULL, sizeof(mio_ptqtp_params))) \
    X(ST, mio_ptqtp_export, in_path, _, 0, NULL, mio_ptqtp_export(NULL, "null_args_p.gguf", NULL))                \
    X(ST, mio_ptqtp_export, out_path, _, 0, NULL, mio_ptqtp_export(GGUF_PATH, NULL, NULL))                        \
    X(OK, mio_ptqtp_export, p, _, 0, NULL, mio_ptqtp_export(GGUF_PATH, "null_args_p.gguf", NULL))                 \
    X(ST, mio_ptqtp_export_fd, in_path, _, 0, NULL, mio_ptqtp_export_fd(NULL, g_devnull, NULL))                   \
    X(OK, mio_ptqtp_export_fd, p, _, 0, NULL, mio_ptqtp_export_fd(GGUF_PATH, g_devnull, NULL))                    \
    /* quantizer presets (mio_preset_name takes no pointer) */                                                 \
    X(SV, mio_preset_from_name, name, _, MIO_PRESET_NONE, NULL, mio_preset_from_name(NULL))                      \
    X(SV, mio_preset_suggest, name, _, 0, NULL, mio_preset_suggest(NULL) != NULL)                                \
    /* inspect (modelio_inspect.h) */                                                                          \
    X(SV, mio_detect_format, path, _, MIO_FORMAT_UNREADABLE, NULL, mio_detect_format(NULL))                         \
    X(ST, mio_model_open, path, _, 0, NULL, mio_model_open(NULL, &g_mmo))                                            \
    X(ST, mio_model_open, out, _, 0, NULL, mio_model_open(GGUF_PATH, NULL))                                          \
    X(VOID, mio_model_close, m, _, 0, NULL, mio_model_close(NULL))                                                   \
    X(SV, mio_model_format, m, _, MIO_FORMAT_UNKNOWN, NULL, mio_model_format(NULL))                                  \
    X(SV, mio_model_tensor_count, m, _, -1, NULL, mio_model_tensor_count(NULL))                                      \
    X(SV, mio_model_file_count, m, _, 0, NULL, mio_model_file_count(NULL))                                           \
    X(SV, mio_model_file_path, m, _, 0, NULL, mio_model_file_path(NULL, 0) != NULL)                                  \
    X(ST, mio_model_tensor_info, m, _, 0, NULL, mio_model_tensor_info(NULL, 0, &g_mt))                              \
    X(ST, mio_model_tensor_info, out, _, 0, NULL, mio_model_tensor_info(g_mm, 0, NULL))                             \
    X(SV, mio_model_gguf, m, _, 0, NULL, mio_model_gguf(NULL) != NULL)                                               \
    X(SV, mio_model_st, m, _, 0, NULL, mio_model_st(NULL) != NULL)                                                   \
    X(ST, mio_model_read, m, _, 0, NULL, mio_model_read(NULL, 0, 0, g_dig, 4))                                      \
    X(ST, mio_model_read, buf, _, 0, NULL, mio_model_read(g_mm, 0, 0, NULL, 4))                                     \
    X(ST, mio_model_verify, m, _, 0, NULL, mio_model_verify(NULL, 1, &g_u64))                                       \
    X(OK, mio_model_verify, bytes, _, 0, NULL, mio_model_verify(g_mm, 1, NULL))                                     \
    X(SV, mio_hash_alg_from_name, name, _, -1, NULL, mio_hash_alg_from_name(NULL))                                  \
    X(ST, mio_hash_bytes, p, _, 0, NULL, mio_hash_bytes(MIO_HASH_SHA256, NULL, 4, g_dig))                            \
    X(ST, mio_hash_bytes, digest, _, 0, NULL, mio_hash_bytes(MIO_HASH_SHA256, "abcd", 4, NULL))                      \
    X(ST, mio_model_hash, m, _, 0, NULL, mio_model_hash(NULL, MIO_HASH_XXH64, 1, g_dig))                           \
    X(ST, mio_model_hash, digests, _, 0, NULL, mio_model_hash(g_mm, MIO_HASH_XXH64, 1, NULL))                      \
    X(ST, mio_hash_manifest, path, _, 0, NULL, mio_hash_manifest(NULL, MIO_HASH_XXH3, 1, &g_text, NULL))            \
    X(ST, mio_hash_manifest, text, _, 0, NULL, mio_hash_manifest(GGUF_PATH, MIO_HASH_XXH3, 1, NULL, NULL))          \
    X(OK, mio_hash_manifest, len, _, 0, NULL, mio_hash_manifest(GGUF_PATH, MIO_HASH_XXH3, 1, &g_text, NULL))        \
    X(ST, mio_hash_check, manifest_path, _, 0, NULL, mio_hash_check(NULL, GGUF_PATH, 1, NULL, NULL, &g_check))      \
    X(ST, mio_hash_check, path, _, 0, NULL, mio_hash_check(MANIFEST_PATH, NULL, 1, NULL, NULL, &g_check))           \
    X(OK, mio_hash_check, user, _, 0, NULL, mio_hash_check(MANIFEST_PATH, GGUF_PATH, 1, NULL, NULL, &g_check))      \
    X(ST, mio_hash_check, res, _, 0, NULL, mio_hash_check(MANIFEST_PATH, GGUF_PATH, 1, NULL, NULL, NULL))           \
    X(ST, mio_model_tensor_stats, m, _, 0, NULL, mio_model_tensor_stats(NULL, 0, &g_mstats))                        \
    X(ST, mio_model_tensor_stats, out, _, 0, NULL, mio_model_tensor_stats(g_mm, 0, NULL))                           \
    X(ST, mio_stats_json, path, _, 0, NULL, mio_stats_json(NULL, &g_text, NULL))                                    \
    X(ST, mio_stats_json, text, _, 0, NULL, mio_stats_json(GGUF_PATH, NULL, NULL))                                  \
    X(OK, mio_stats_json, len, _, 0, NULL, mio_stats_json(GGUF_PATH, &g_text, NULL))                                \
    X(ST, mio_model_diff, a, _, 0, NULL, mio_model_diff(NULL, g_mm, NULL, NULL, NULL, NULL))                        \
    X(ST, mio_model_diff, b, _, 0, NULL, mio_model_diff(g_mm, NULL, NULL, NULL, NULL, NULL))                        \
    X(OK, mio_model_diff, user, _, 0, NULL, mio_model_diff(g_mm, g_mm, NULL, NULL, &g_u64, &g_u64))                 \
    X(OK, mio_model_diff, n_keys, _, 0, NULL, mio_model_diff(g_mm, g_mm, NULL, NULL, NULL, &g_u64))                 \
    X(OK, mio_model_diff, n_tensors, _, 0, NULL, mio_model_diff(g_mm, g_mm, NULL, NULL, &g_u64, NULL))              \
    X(ST, mio_model_summary_get, m, _, 0, NULL, mio_model_summary_get(NULL, &g_summary))                          \
    X(ST, mio_model_summary_get, out, _, 0, NULL, mio_model_summary_get(g_mm, NULL))                              \
    X(ST, mio_model_experts_get, m, _, 0, NULL, mio_model_experts_get(NULL, &g_experts, sizeof g_experts))        \
    X(ST, mio_model_experts_get, out, _, 0, NULL, mio_model_experts_get(g_mm, NULL, sizeof g_experts))           \
    X(ST, mio_model_kv_text, m, _, 0, NULL, mio_model_kv_text(NULL, 0, &g_text))                                    \
    X(ST, mio_model_kv_text, text, _, 0, NULL, mio_model_kv_text(g_mm, 0, NULL))                                    \
    X(ST, mio_describe_text, path, _, 0, NULL, mio_describe_text(NULL, 0, &g_text, NULL))                           \
    X(ST, mio_describe_text, text, _, 0, NULL, mio_describe_text(GGUF_PATH, 0, NULL, NULL))                         \
    X(OK, mio_describe_text, len, _, 0, NULL, mio_describe_text(GGUF_PATH, 0, &g_text, NULL))                       \
    X(ST, mio_describe_json, path, _, 0, NULL, mio_describe_json(NULL, 0, &g_text, NULL))                           \
    X(ST, mio_describe_json, text, _, 0, NULL, mio_describe_json(GGUF_PATH, 0, NULL, NULL))                         \
    X(OK, mio_describe_json, len, _, 0, NULL, mio_describe_json(GGUF_PATH, 0, &g_text, NULL))                       \
    X(ST, mio_describe_markdown, path, _, 0, NULL, mio_describe_markdown(NULL, 0, &g_text, NULL))                   \
    X(ST, mio_describe_markdown, text, _, 0, NULL, mio_describe_markdown(GGUF_PATH, 0, NULL, NULL))                 \
    X(OK, mio_describe_markdown, len, _, 0, NULL, mio_describe_markdown(GGUF_PATH, 0, &g_text, NULL))               \
    X(SV, mio_utf8_check, p, _, 0, NULL, mio_utf8_check(NULL, 3))                                                   \
    X(SV, mio_escape_text, p, _, 0, NULL, mio_escape_text(NULL, 3, 3, 0, NULL) != NULL)                             \
    X(SV, mio_escape_text, used, _, 1, NULL, escape_made_text())                                                   \
    X(SV, mio_json_quote, p, _, 0, NULL, mio_json_quote(NULL, 3) != NULL)                                           \
    X(SV, mio_format_f64, buf, _, 0, NULL, mio_format_f64(NULL, 48, 1.0) != NULL)                                   \
    X(SV, mio_format_f32, buf, _, 0, NULL, mio_format_f32(NULL, 48, 1.0f) != NULL)                                  \
    X(SV, mio_format_size, buf, _, 0, NULL, mio_format_size(NULL, 48, 1) != NULL)                                   \
    X(VOID, mio_free, p, _, 0, NULL, mio_free(NULL))

enum kind { K_ST, K_OK, K_SV, K_VOID };
#define CALL_ST(e) (long long)(e)
#define CALL_OK(e) (long long)(e)
#define CALL_SV(e) (long long)(e)
#define CALL_VOID(e) ((e), 0LL)
#define THUNK(kind, fn, arg, var, want, msg, ...) \
    static long long call_##fn##__##arg##__##var(void) { return CALL_##kind(__VA_ARGS__); }
ROWS(THUNK)

typedef struct row {
    enum kind kind;
    const char *fn, *arg, *var;
    long long want;
    const char *msg;
    long long (*call)(void);
} row;
#define ENTRY(kind, fn, arg, var, want, msg, ...) {K_##kind, #fn, #arg, #var, want, msg, call_##fn##__##arg##__##var},
static const row k_rows[] = {ROWS(ENTRY)};
#define N_ROWS (sizeof k_rows / sizeof k_rows[0])

/* Runs in the child: 0 if the row holds. */
static int check_row(const row *r) {
    mio_writer *dummy = NULL;
    (void)mio_writer_new(0x80u, &dummy); /* a known, unrelated message: the row's call must replace it */
    long long got = r->call();
    const char *m = mio_last_error();
    switch (r->kind) {
    case K_ST: {
        char want[96];
        snprintf(want, sizeof want, "%s is NULL", r->arg);
        const char *pat = r->msg ? r->msg : want;
        char spaced[100];
        snprintf(spaced, sizeof spaced, " %s", pat);
        if (got != MIO_ERR_INVALID_ARG) {
            fprintf(stderr, "%s(%s = NULL): %s, expected MIO_ERR_INVALID_ARG (%s)\n", r->fn, r->arg,
                    mio_status_name((mio_status)got), m);
            return 1;
        }
        if (strncmp(m, pat, strlen(pat)) != 0 && !strstr(m, spaced)) {
            fprintf(stderr, "%s(%s = NULL): message lacks \"%s\": %s\n", r->fn, r->arg, pat, m);
            return 1;
        }
        return 0;
    }
    case K_OK:
        if (got != MIO_OK) {
            fprintf(stderr, "%s(%s = NULL, documented optional): %s, expected MIO_OK (%s)\n", r->fn, r->arg,
                    mio_status_name((mio_status)got), m);
            return 1;
        }
        return 0;
    case K_SV:
        if (got != r->want) {
            fprintf(stderr, "%s(%s = NULL): returned %lld, expected the sentinel %lld\n", r->fn, r->arg, got, r->want);
            return 1;
        }
        return 0;
    case K_VOID: return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ header coverage */

/* "MIO_API ... name(params);" declarations of the header, comments and
 * preprocessor lines removed; calls fn(name, param) for every pointer parameter
 * (a '*' in its type, or one of the header's function-pointer typedefs).
 * Returns the number of declarations seen. */
static int header_pointer_params(void (*fn)(const char *, const char *)) {
    /* both public headers: modelio.h, then modelio_inspect.h beside it */
    static const char *const headers[] = {MIO_HEADER, MIO_HEADER_INSPECT};
    static char src[1 << 18], txt[1 << 18];
    size_t n = 0;
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        FILE *fp = fopen(headers[h], "rb");
        if (!fp) { fprintf(stderr, "cannot open %s\n", headers[h]); return -1; }
        n += fread(src + n, 1, sizeof src - 1 - n, fp);
        fclose(fp);
        if (n < sizeof src - 1) src[n++] = '\n';
    }
    src[n] = 0;
    size_t o = 0;
    int bol = 1, in_pp = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '/' && src[i + 1] == '*') {
            char *e = strstr(src + i + 2, "*/");
            i = e ? (size_t)(e - src) + 1 : n;
            txt[o++] = ' ';
            continue;
        }
        if (src[i] == '/' && src[i + 1] == '/') { while (i < n && src[i] != '\n') i++; }
        if (bol && !in_pp) {
            size_t j = i;
            while (src[j] == ' ' || src[j] == '\t') j++;
            if (src[j] == '#') in_pp = 1;
        }
        if (src[i] == '\n') {
            bol = 1;
            if (in_pp && !(i > 0 && src[i - 1] == '\\')) in_pp = 0;
            txt[o++] = ' ';
            continue;
        }
        bol = 0;
        if (!in_pp) txt[o++] = src[i];
    }
    txt[o] = 0;
    int decls = 0;
    for (char *p = strstr(txt, "MIO_API"); p; p = strstr(p + 7, "MIO_API")) {
        char *semi = strchr(p, ';'), *lp = strchr(p, '(');
        if (!semi || !lp || lp > semi) continue;
        /* the deprecated aliases forward to the calls they name, whose rows
         * cover them (tests/unit/test_deprecated.c checks that they forward) */
        char *dep = strstr(p, "MIO_DEPRECATED");
        if (dep && dep < semi) continue;
        char name[96];
        char *e = lp;
        while (e > p && e[-1] == ' ') e--;
        char *b = e;
        while (b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
        snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
        decls++;
        char *rp = semi;
        while (rp > lp && *rp != ')') rp--;
        char params[512];
        snprintf(params, sizeof params, "%.*s", (int)(rp - lp - 1), lp + 1);
        for (char *save = NULL, *tok = strtok_r(params, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            bool ptr = strchr(tok, '*') || strstr(tok, "mio_write_fn") || strstr(tok, "mio_read_fn");
            if (!ptr) continue;
            char *te = tok + strlen(tok);
            while (te > tok && te[-1] == ' ') te--;
            char *tb = te;
            while (tb > tok && (isalnum((unsigned char)tb[-1]) || tb[-1] == '_')) tb--;
            char pname[64];
            snprintf(pname, sizeof pname, "%.*s", (int)(te - tb), tb);
            fn(name, pname);
        }
    }
    return decls;
}

static int g_positions, g_missing;
static bool row_exists(const char *fn, const char *arg) {
    for (size_t i = 0; i < N_ROWS; i++)
        if (strcmp(k_rows[i].fn, fn) == 0 && strcmp(k_rows[i].arg, arg) == 0) return true;
    return false;
}
static void need_row(const char *fn, const char *arg) {
    g_positions++;
    if (!row_exists(fn, arg)) { g_missing++; fprintf(stderr, "no row for %s(%s = NULL)\n", fn, arg); }
}
static const char *g_find_fn, *g_find_arg;
static int g_found;
static void find_param(const char *fn, const char *arg) {
    if (strcmp(fn, g_find_fn) == 0 && strcmp(arg, g_find_arg) == 0) g_found = 1;
}

/* The temporary directory every file of this test goes to (see the top). */
static char g_tmpdir[4096];
static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}
static void enter_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/mio-null-args-XXXXXX", base);
    if (!mkdtemp(g_tmpdir) || chdir(g_tmpdir) != 0) {
        perror(g_tmpdir);
        exit(2);
    }
}
static void remove_tmpdir(void) {
    if (chdir("/") != 0 || nftw(g_tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        fprintf(stderr, "cannot remove %s\n", g_tmpdir);
        t_fail++;
    }
}

int main(void) {
    enter_tmpdir();
    make_fixtures();

    /* the table covers the header, and only the header */
    int decls = header_pointer_params(need_row);
    T_CHECK(decls > 100);
    T_EQ_INT(g_missing, 0);
    for (size_t i = 0; i < N_ROWS; i++) {
        g_find_fn = k_rows[i].fn;
        g_find_arg = k_rows[i].arg;
        g_found = 0;
        header_pointer_params(find_param);
        if (!g_found) fprintf(stderr, "row %s(%s) is not a pointer parameter in the header\n", k_rows[i].fn, k_rows[i].arg);
        T_CHECK(g_found);
    }
    printf("%d MIO_API declarations, %d pointer parameters, %zu rows\n", decls, g_positions, N_ROWS);

    for (size_t i = 0; i < N_ROWS; i++) {
        const row *r = &k_rows[i];
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); T_CHECK(pid >= 0); break; }
        if (pid == 0) exit(check_row(r)); /* exit, not _exit: LeakSanitizer checks the child too */
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) { t_pass++; continue; }
        t_fail++;
        if (WIFSIGNALED(ws)) fprintf(stderr, "%s(%s = NULL): crashed with signal %d\n", r->fn, r->arg, WTERMSIG(ws));
        else if (WEXITSTATUS(ws) != 1) fprintf(stderr, "%s(%s = NULL): child exited with %d\n", r->fn, r->arg, WEXITSTATUS(ws));
    }

    mio_gguf_close(g_f);
    mio_gguf_close(g_ffile);
    mio_st_close(g_sf);
    mio_st_close(g_sffile);
    mio_free(g_st_buf);
    mio_fzt1_close(g_fzf);
    mio_free(g_fz_buf);
    mio_ckpt_close(g_ckc);
    mio_ckpt_abort(g_cks);
    free(g_gguf.p);
    mio_packed_free(g_packed);
    mio_writer_free(g_w);
    mio_writer_free(g_wdecl);
    mio_writer_free(g_wadd);
    close(g_devnull);
    close(g_st_fd);
    remove_tmpdir();
    T_DONE();
}
