/* SPDX-License-Identifier: MIT */
/* bench_quantize.c — mio_quantize against llama.cpp's llama_model_quantize, side
 * by side in one program: the same input file, the same preset, the same thread
 * count. Every quantization runs in a forked child so each side has a peak RSS
 * of its own (wait4's ru_maxrss) and the wall time covers exactly one call;
 * the runs are interleaved (ours, llama.cpp, ours, llama.cpp, ...) and the table
 * quotes medians, the ratios llama.cpp/ours for time and peak RSS, and whether
 * the two output files are byte-identical (compared after every round); a
 * second table gives each child's CPU time (user + system), which a shared
 * machine disturbs less. The children are named q-libmodelio / q-llama.cpp for
 * perf (perf report --comm ...).
 *
 * The input is a llama-shaped f16 model written here with libmodelio's writer,
 * streamed a chunk at a time (default 18 blocks, n_embd 1024, n_ff 2816, 16
 * heads, vocabulary 32000: 296.8 M parameters, 594 MB), with the real
 * SentencePiece vocabulary of tests/data/vocab-llama-spm.gguf so llama.cpp
 * accepts it as a llama model. It is generated once into $TMPDIR (default /tmp)
 * under a name that encodes its shape, reused when present, and removed at exit
 * unless --keep. The outputs go to a fresh directory there, removed at exit.
 *
 * With --imatrix both sides get the same importance matrix: positive pseudo-random
 * values for every weight matrix of the input (as many as its rows are long),
 * written as a legacy .dat file for mio_quantize and handed to
 * llama_model_quantize as its list of entries, together with the
 * quantize.imatrix.* keys llama-quantize adds (so the files can match); the
 * presets that require one (IQ2_S, IQ2_XXS, IQ1_S, ...) need it. With --scaling
 * every round also runs mio_quantize on one thread, and a third table gives the
 * speed-up of the --threads run over it.
 *
 * The issues' targets, printed as met / NOT met (never asserted: a benchmark does
 * not fail on timing): ≥3x faster for Q4_K_M, Q4_K_S, IQ4_XS, IQ3_S and IQ2_S,
 * ≥1.3x for Q8_0, a peak RSS at most 1/4 of llama_model_quantize's, and with
 * --scaling ≥1.8x on two threads over one for the IQ presets. The exit status is 1 only when
 * a quantization fails or the outputs differ, 77 when the peer is absent.
 *
 * llama.cpp comes from $MIO_PEER_DIR (or the MIO_PEER_DIR configured at build
 * time): libggml.v0.5.0.so + libllama.v0.5.0.so of @node-llama-cpp/linux-x64,
 * loaded with dlopen; no llama.cpp header or code is used. The layout of
 * llama_model_quantize_params (64 bytes; int32 nthread at 0, int32 ftype at 4)
 * is checked against llama_model_quantize_default_params at run time.
 *
 * Usage: bench_quantize [--runs N] [--threads T] [--layers L] [--embd E] [--ff F]
 *          [--heads H] [--kv-heads K] [--vocab V] [--presets Q4_K_M,Q4_K_S,Q8_0]
 *          [--model FILE.gguf] [--allow-requantize] [--imatrix] [--scaling] [--dir DIR] [--keep]
 * --allow-requantize lets both sides decode a quantized input (a real public
 * model: scripts/fetch-bench-model.sh prints SmolLM2-135M-Instruct's Q4_1 GGUF). */
#include "modelio.h"
#include "../tests/interop/peer.h"
#include "bench_util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MIO_BENCH_VOCAB_FILE
#define MIO_BENCH_VOCAB_FILE "tests/data/vocab-llama-spm.gguf"
#endif

#define MAX_RUNS 1000
#define MAX_PRESETS 16

/* ------------------------------------------------------------------ llama.cpp */

/* llama_model_quantize_params of this build: 64 bytes (the caller must reserve
 * all of them); only nthread and ftype are set here, the rest stay defaults. */
enum { QP_NTHREAD = 0x00, QP_FTYPE = 0x04, QP_ALLOW_REQ = 0x10, QP_IMATRIX = 0x18, QP_KV_OVERRIDES = 0x20, QP_SIZE = 0x40 };
typedef struct { unsigned char b[QP_SIZE]; } qparams;
typedef void (*llama_log_fn)(int level, const char *text, void *user);

static struct {
    void *ggml, *llama;
    qparams (*quantize_default_params)(void);
    uint32_t (*model_quantize)(const char *in, const char *out, const qparams *p);
} L;

/* llama.cpp's log, kept (not printed) so a failed run can show its tail */

#define BIND(dst, h, name) do { void *_p = dlsym((h), (name)); memcpy(&(dst), &_p, sizeof _p); } while (0)

/* 0 loaded, 1 absent (skip), -1 present but unusable; dir gets the peer dir.
 * The libraries are opened as the interop tests open them (peer.h). */
static int load_llama(char dir[4096], char *why, size_t why_len) {
    static peer_api G;
    int rc = peer_load(&G, why, why_len);
    if (rc != 0) return rc;
    if ((rc = peer_llama_start(&G, dir, &L.ggml, &L.llama, why, why_len)) != 0) return rc;
    BIND(L.quantize_default_params, L.llama, "llama_model_quantize_default_params");
    BIND(L.model_quantize, L.llama, "llama_model_quantize");
    if (!L.quantize_default_params || !L.model_quantize) {
        snprintf(why, why_len, "llama.cpp peer in %s lacks a required symbol", dir);
        return -1;
    }
    /* the defaults this layout was read from: nthread 0, ftype 7 (Q8_0) */
    qparams d = L.quantize_default_params();
    int32_t nt, ft;
    memcpy(&nt, d.b + QP_NTHREAD, 4);
    memcpy(&ft, d.b + QP_FTYPE, 4);
    if (nt != 0 || ft != MIO_PRESET_Q8_0) {
        snprintf(why, why_len, "llama_model_quantize_params of the peer in %s is not the layout this benchmark was "
                 "written for (nthread %d, ftype %d by default)", dir, nt, ft);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the model */

typedef struct shape {
    int n_layer, n_head, n_head_kv;
    int64_t n_embd, n_ff, n_vocab;
} shape;

static int64_t n_params(const shape *s) {
    const int64_t E = s->n_embd, F = s->n_ff, KV = s->n_embd * s->n_head_kv / s->n_head;
    return 2 * s->n_vocab * E + E + (int64_t)s->n_layer * (2 * E + 2 * E * E + 2 * E * KV + 3 * E * F);
}

/* Values for the weights: 2^16 gaussian fp16 numbers (std 0.02) picked by a
 * xorshift stream, four to a 64-bit draw — generating 300 M of them costs
 * about a second, and the quantizers see weight-like data. */
static uint16_t *g_table;
static uint64_t g_rng = 0x6d696f2d62656e63ull;
static uint64_t xorshift(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}
static double unit01(void) { return ((double)(xorshift() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
static double gauss(void) { return sqrt(-2.0 * log(unit01())) * cos(6.283185307179586 * unit01()); }

typedef struct tdesc {
    char name[64];
    uint32_t n_dims;
    int64_t ne[2];
    int type; /* F16 matrix or F32 norm */
} tdesc;

static int tensor_list(const shape *s, tdesc *t, int cap) {
    const int64_t E = s->n_embd, F = s->n_ff, KV = s->n_embd * s->n_head_kv / s->n_head;
    int n = 0;
#define ADD(nm, a, b, ty) do { if (n < cap) { t[n] = (tdesc){"", (b) ? 2u : 1u, {(a), (b) ? (b) : 1}, (ty)}; \
        snprintf(t[n].name, sizeof t[n].name, "%s", (nm)); } n++; } while (0)
    char nm[64];
    ADD("token_embd.weight", E, s->n_vocab, MIO_TYPE_F16);
    for (int l = 0; l < s->n_layer; l++) {
#define NM(sfx) (snprintf(nm, sizeof nm, "blk.%d." sfx, l), nm)
        ADD(NM("attn_norm.weight"), E, 0, MIO_TYPE_F32);
        ADD(NM("attn_q.weight"), E, E, MIO_TYPE_F16);
        ADD(NM("attn_k.weight"), E, KV, MIO_TYPE_F16);
        ADD(NM("attn_v.weight"), E, KV, MIO_TYPE_F16);
        ADD(NM("attn_output.weight"), E, E, MIO_TYPE_F16);
        ADD(NM("ffn_norm.weight"), E, 0, MIO_TYPE_F32);
        ADD(NM("ffn_gate.weight"), E, F, MIO_TYPE_F16);
        ADD(NM("ffn_up.weight"), E, F, MIO_TYPE_F16);
        ADD(NM("ffn_down.weight"), F, E, MIO_TYPE_F16);
#undef NM
    }
    ADD("output_norm.weight", E, 0, MIO_TYPE_F32);
    ADD("output.weight", E, s->n_vocab, MIO_TYPE_F16);
#undef ADD
    return n;
}

/* The tokenizer of vocab-llama-spm.gguf (32000 tokens): copied as it is, or its
 * first n_vocab tokens. */
static mio_status set_vocab(mio_writer *w, int64_t n_vocab) {
    mio_gguf_file *v = NULL;
    mio_status st = mio_gguf_open(MIO_BENCH_VOCAB_FILE, 0, &v);
    if (st) return st;
    int64_t kt = mio_gguf_find_key(v, "tokenizer.ggml.tokens");
    mio_gguf_value tv;
    if (kt < 0 || mio_gguf_kv_value(v, kt, &tv) != MIO_OK || (int64_t)tv.count < n_vocab) {
        fprintf(stderr, "bench_quantize: %s has fewer than %lld tokens\n", MIO_BENCH_VOCAB_FILE, (long long)n_vocab);
        mio_gguf_close(v);
        return MIO_ERR_INVALID_ARG;
    }
    const bool whole = (int64_t)tv.count == n_vocab;
    mio_str *toks = NULL;
    size_t *lens = NULL;
    const char **ptrs = NULL;
    float *scores = NULL;
    int32_t *types = NULL;
    for (int64_t i = 0; i < mio_gguf_kv_count(v) && !st; i++) {
        mio_str k = mio_gguf_kv_key(v, i);
        if (k.len < 10 || memcmp(k.ptr, "tokenizer.", 10)) continue;
        if (whole || mio_gguf_kv_type(v, i) != MIO_GGUF_ARRAY) { st = mio_writer_copy_kv(w, v, i); continue; }
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)k.len, k.ptr);
        size_t n = (size_t)n_vocab;
        if (!strcmp(key, "tokenizer.ggml.tokens")) {
            lens = malloc(n * sizeof *lens);
            ptrs = malloc(n * sizeof *ptrs);
            toks = malloc(n * sizeof *toks);
            for (size_t j = 0; j < n && !st; j++) {
                st = mio_gguf_arr_str(v, i, j, &toks[j]);
                ptrs[j] = toks[j].ptr;
                lens[j] = toks[j].len;
            }
            if (!st) st = mio_writer_set_arr_str(w, key, ptrs, lens, n);
        } else if (!strcmp(key, "tokenizer.ggml.scores")) {
            scores = malloc(n * sizeof *scores);
            for (size_t j = 0; j < n && !st; j++) {
                double d = 0;
                st = mio_gguf_arr_f64(v, i, j, &d);
                scores[j] = (float)d;
            }
            if (!st) st = mio_writer_set_arr(w, key, MIO_GGUF_F32, scores, n);
        } else if (!strcmp(key, "tokenizer.ggml.token_type")) {
            types = malloc(n * sizeof *types);
            for (size_t j = 0; j < n && !st; j++) {
                int64_t x = 0;
                st = mio_gguf_arr_i64(v, i, j, &x);
                types[j] = (int32_t)x;
            }
            if (!st) st = mio_writer_set_arr(w, key, MIO_GGUF_I32, types, n);
        } /* other arrays (merges) are not per-token: a SentencePiece vocabulary has none */
    }
    free(toks);
    free(lens);
    free(ptrs);
    free(scores);
    free(types);
    mio_gguf_close(v);
    return st;
}

static void model_tag(const shape *s, char *buf, size_t n) {
    snprintf(buf, n, "mio-bench-quantize-L%d-E%lld-F%lld-H%d-K%d-V%lld", s->n_layer, (long long)s->n_embd,
             (long long)s->n_ff, s->n_head, s->n_head_kv, (long long)s->n_vocab);
}

/* Write the model to path (atomically: the writer renames a finished temp file). */
static int write_model(const shape *s, const char *path) {
    enum { CAP = 4096 };
    tdesc *t = calloc(CAP, sizeof *t);
    int n = t ? tensor_list(s, t, CAP) : CAP + 1;
    if (n > CAP) { fprintf(stderr, "bench_quantize: too many tensors\n"); free(t); return -1; }
    char tag[160];
    model_tag(s, tag, sizeof tag);
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(MIO_WRITER_DEFAULT, &w);
#define S(e) do { if (!st) st = (e); } while (0)
    S(mio_writer_set_str(w, "general.architecture", "llama", 5));
    S(mio_writer_set_str(w, "general.name", tag, strlen(tag)));
    S(mio_writer_set_u32(w, "llama.vocab_size", (uint32_t)s->n_vocab));
    S(mio_writer_set_u32(w, "llama.context_length", 2048));
    S(mio_writer_set_u32(w, "llama.embedding_length", (uint32_t)s->n_embd));
    S(mio_writer_set_u32(w, "llama.feed_forward_length", (uint32_t)s->n_ff));
    S(mio_writer_set_u32(w, "llama.block_count", (uint32_t)s->n_layer));
    S(mio_writer_set_u32(w, "llama.attention.head_count", (uint32_t)s->n_head));
    S(mio_writer_set_u32(w, "llama.attention.head_count_kv", (uint32_t)s->n_head_kv));
    S(mio_writer_set_u32(w, "llama.rope.dimension_count", (uint32_t)(s->n_embd / s->n_head)));
    S(mio_writer_set_f32(w, "llama.rope.freq_base", 10000.0f));
    S(mio_writer_set_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f));
    S(mio_writer_set_u32(w, "general.file_type", 1)); /* MOSTLY_F16 */
    S(set_vocab(w, s->n_vocab));
    for (int k = 0; k < n; k++) S(mio_writer_declare_tensor(w, t[k].name, t[k].type, t[k].n_dims, t[k].ne));
    S(mio_writer_begin_file(w, path));
    enum { CHUNK = 1 << 20 };
    uint16_t *h = malloc(CHUNK * sizeof *h);
    float *f = malloc(CHUNK * sizeof *f);
    if (!h || !f) S(MIO_ERR_NOMEM);
    for (int k = 0; k < n && !st; k++) {
        size_t total = (size_t)(t[k].ne[0] * t[k].ne[1]);
        for (size_t done = 0; done < total && !st; done += CHUNK) {
            size_t m = total - done < CHUNK ? total - done : CHUNK;
            if (t[k].type == MIO_TYPE_F16) {
                for (size_t j = 0; j < m; j += 4) {
                    uint64_t r = xorshift();
                    for (size_t q = 0; q < 4 && j + q < m; q++) h[j + q] = g_table[(r >> (16 * q)) & 0xffff];
                }
                st = mio_writer_write_tensor_part(w, h, m * sizeof *h);
            } else {
                for (size_t j = 0; j < m; j++) f[j] = (float)(1.0 + 0.05 * gauss());
                st = mio_writer_write_tensor_part(w, f, m * sizeof *f);
            }
        }
    }
    S(mio_writer_finish(w));
#undef S
    if (st) fprintf(stderr, "bench_quantize: writing %s: %s\n", path, mio_last_error());
    free(h);
    free(f);
    free(t);
    mio_writer_free(w);
    return st ? -1 : 0;
}

/* A present file is whole (the writer renames only finished files); check that
 * it is the model of this shape. */
static int model_usable(const shape *s, const char *path) {
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(path, 0, &f) != MIO_OK) return 0;
    char tag[160];
    model_tag(s, tag, sizeof tag);
    tdesc dummy;
    int64_t kn = mio_gguf_find_key(f, "general.name");
    mio_str name = {NULL, 0};
    int ok = kn >= 0 && mio_gguf_kv_str(f, kn, &name) == MIO_OK && name.len == strlen(tag) &&
             !memcmp(name.ptr, tag, name.len) && mio_gguf_tensor_count(f) == tensor_list(s, &dummy, 0);
    mio_gguf_close(f);
    return ok;
}

/* ------------------------------------------------------------------ runs */

enum { OURS = 0, PEER = 1 };
static const char *const SIDE[2] = {"libmodelio", "llama.cpp"};

typedef struct run_result {
    double ms;
    double cpu_s; /* the child's user + system time */
    double rss_mib;
    int ok;
} run_result;

/* ------------------------------------------------------------------ imatrix */

/* llama.cpp's imatrix entry (name, values, count; the list ends with name NULL)
 * and llama_model_kv_override of this build (int tag: INT 0, STR 3; char
 * key[128]; at offset 136 a union of int64 / char[128]), as the interop tests
 * pass them. */
typedef struct { const char *name; const float *data; size_t size; } peer_imatrix;
typedef struct { unsigned char b[264]; } peer_kv;
static peer_imatrix *g_im;  /* NULL: no imatrix */
static peer_kv g_im_kv[5];
static char g_im_path[4400];
static int g_requant; /* --allow-requantize */

static void kv_set(peer_kv *o, int tag, const char *key, const char *sv, int64_t iv) {
    memset(o, 0, sizeof *o);
    memcpy(o->b, &tag, 4);
    snprintf((char *)o->b + 4, 128, "%s", key);
    if (sv) snprintf((char *)o->b + 136, 128, "%s", sv);
    else memcpy(o->b + 136, &iv, 8);
}

/* Positive pseudo-random weights for every matrix of the model (rows of ne[0]
 * values; ne[0]*ne[2] for a stack of experts), a legacy .dat file at path (one
 * call per entry, so the values read back exactly; 10 chunks, dataset
 * "bench.txt") and the peer's entry list and key overrides. 0 on success. */
static int make_imatrix(const char *model, const char *path) {
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(model, 0, &f) != MIO_OK) { fprintf(stderr, "bench_quantize: %s\n", mio_last_error()); return 1; }
    int64_t nt = mio_gguf_tensor_count(f);
    g_im = calloc((size_t)nt + 1, sizeof *g_im);
    FILE *fp = fopen(path, "wb");
    if (!g_im || !fp) { mio_gguf_close(f); if (fp) fclose(fp); return 1; }
    int32_t n = 0;
    uint64_t s = 0x696d6174726978ull;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(f, i, &t) != MIO_OK || t.n_dims < 2) continue;
        size_t nv = (size_t)(t.ne[0] * t.ne[2]);
        float *v = malloc(nv * sizeof *v);
        char *name = malloc(t.name.len + 1);
        if (!v || !name) { free(v); free(name); break; }
        memcpy(name, t.name.ptr, t.name.len);
        name[t.name.len] = 0;
        for (size_t k = 0; k < nv; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            v[k] = 0.05f + expf(3.f * (float)((double)(s >> 11) * (1.0 / 9007199254740992.0)) - 1.5f);
        }
        g_im[n++] = (peer_imatrix){name, v, nv};
    }
    mio_gguf_close(f);
    fwrite(&n, 4, 1, fp);
    for (int32_t i = 0; i < n; i++) {
        int32_t nl = (int32_t)strlen(g_im[i].name), one = 1, nv = (int32_t)g_im[i].size;
        fwrite(&nl, 4, 1, fp);
        fwrite(g_im[i].name, 1, (size_t)nl, fp);
        fwrite(&one, 4, 1, fp);
        fwrite(&nv, 4, 1, fp);
        fwrite(g_im[i].data, 4, g_im[i].size, fp);
    }
    int32_t chunks = 10, dl = 9;
    fwrite(&chunks, 4, 1, fp);
    fwrite(&dl, 4, 1, fp);
    fwrite("bench.txt", 1, 9, fp);
    if (fclose(fp) != 0) return 1;
    snprintf(g_im_path, sizeof g_im_path, "%s", path);
    kv_set(&g_im_kv[0], 3, "quantize.imatrix.file", path, 0);
    kv_set(&g_im_kv[1], 3, "quantize.imatrix.dataset", "bench.txt", 0);
    kv_set(&g_im_kv[2], 0, "quantize.imatrix.entries_count", NULL, n);
    kv_set(&g_im_kv[3], 0, "quantize.imatrix.chunks_count", NULL, chunks);
    memset(&g_im_kv[4], 0, sizeof g_im_kv[4]);
    printf("imatrix: %d entries, %s\n", n, path);
    return 0;
}

static void free_imatrix(void) {
    for (peer_imatrix *e = g_im; e && e->name; e++) { free((void *)e->name); free((void *)e->data); }
    free(g_im);
    g_im = NULL;
}

static int quantize_ours(const char *in, const char *out, int preset, int threads) {
    mio_quantize_params q;
    mio_quantize_default_params(&q);
    q.preset = preset;
    q.n_threads = threads;
    if (g_im) q.imatrix_path = g_im_path;
    q.allow_requantize = g_requant;
    if (mio_quantize(in, out, &q) != MIO_OK) {
        fprintf(stderr, "mio_quantize(%s): %s\n", mio_preset_name(preset), mio_last_error());
        return 1;
    }
    return 0;
}

static int quantize_peer(const char *in, const char *out, int preset, int threads) {
    qparams p = L.quantize_default_params();
    int32_t nt = threads, ft = preset;
    memcpy(p.b + QP_NTHREAD, &nt, 4);
    memcpy(p.b + QP_FTYPE, &ft, 4);
    p.b[QP_ALLOW_REQ] = (unsigned char)g_requant;
    if (g_im) {
        const void *im = g_im, *kv = g_im_kv;
        memcpy(p.b + QP_IMATRIX, &im, sizeof im);
        memcpy(p.b + QP_KV_OVERRIDES, &kv, sizeof kv);
    }
    uint32_t rc = L.model_quantize(in, out, &p);
    if (rc != 0) {
        fprintf(stderr, "llama_model_quantize(%s) returned %u\n", mio_preset_name(preset), rc);
        peer_dump_log();
        return 1;
    }
    return 0;
}

/* One quantization in a child of its own: wall time around fork..wait4, and the
 * child's peak RSS (ru_maxrss, KiB). */
static run_result run_child(int side, const char *in, const char *out, int preset, int threads) {
    run_result r = {0, 0, 0, 0};
    fflush(stdout);
    fflush(stderr);
    double t0 = bench_now_ms();
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return r; }
    if (pid == 0) {
        /* named apart for perf / top (threads inherit it): perf record -- bench_quantize ...; perf report --sort comm,dso,sym */
        prctl(PR_SET_NAME, side == OURS ? "q-libmodelio" : "q-llama.cpp", 0, 0, 0);
        int rc = side == OURS ? quantize_ours(in, out, preset, threads) : quantize_peer(in, out, preset, threads);
        fflush(stderr);
        _exit(rc);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w;
    while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR) {}
    r.ms = bench_now_ms() - t0;
    r.rss_mib = (double)ru.ru_maxrss / 1024.0;
    r.cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    r.ok = w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!r.ok && w == pid && WIFSIGNALED(status))
        fprintf(stderr, "%s child killed by signal %d\n", SIDE[side], WTERMSIG(status));
    return r;
}

/* 1 identical, 0 different (*off = first differing byte), -1 unreadable */
static int same_bytes(const char *a, const char *b, uint64_t *off, uint64_t *size) {
    static unsigned char ba[1 << 20], bb[1 << 20];
    int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
    int res = -1;
    *off = 0;
    *size = 0;
    if (fa >= 0 && fb >= 0) {
        for (;;) {
            ssize_t na = read(fa, ba, sizeof ba), nb = 0;
            while (na >= 0 && nb < na) { /* the same number of bytes from b */
                ssize_t k = read(fb, bb + nb, (size_t)(na - nb));
                if (k <= 0) break;
                nb += k;
            }
            if (na < 0 || nb < 0) break;
            if (na == 0) { /* a ended: identical if b ends too */
                res = read(fb, bb, 1) == 0;
                break;
            }
            ssize_t i = 0;
            while (i < nb && ba[i] == bb[i]) i++;
            if (i < na) { *off += (uint64_t)i; res = 0; break; }
            *off += (uint64_t)na;
        }
        *size = *off;
    }
    if (fa >= 0) close(fa);
    if (fb >= 0) close(fb);
    return res;
}

static double self_rss_mib(void) {
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (!strncmp(line, "VmRSS:", 6)) v = atof(line + 6) / 1024.0;
    if (fp) fclose(fp);
    return v;
}

static void cpu_name(char *buf, size_t n) {
    FILE *fp = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, n, "unknown CPU");
    while (fp && fgets(line, sizeof line, fp))
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + (c[1] == ' ');
                c[strcspn(c, "\n")] = 0;
                snprintf(buf, n, "%s", c);
            }
            break;
        }
    if (fp) fclose(fp);
}

static void rm_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[4608];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* ------------------------------------------------------------------ main */

static void usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--runs N] [--threads T] [--layers L] [--embd E] [--ff F] [--heads H] [--kv-heads K]\n"
            "          [--vocab V] [--presets Q4_K_M,Q4_K_S,Q8_0] [--model FILE.gguf] [--allow-requantize] [--imatrix] [--scaling]\n"
            "          [--dir DIR] [--keep]\n"
            "  --runs N      rounds of interleaved runs, medians quoted (default 3)\n"
            "  --threads T   threads of both quantizers (default: online CPUs)\n"
            "  --layers/--embd/--ff/--heads/--kv-heads/--vocab  the generated llama model\n"
            "                (default 18 / 1024 / 2816 / 16 / = heads / 32000: 296.8 M parameters)\n"
            "  --model FILE  quantize this f16/f32/bf16 GGUF instead (never deleted)\n"
            "  --allow-requantize  let both sides requantize a quantized --model\n"
            "                (scripts/fetch-bench-model.sh: SmolLM2-135M-Instruct, Q4_1)\n"
            "  --imatrix     the same synthetic importance matrix for both (IQ2_S, IQ2_XXS, IQ1_S, ... need one)\n"
            "  --scaling     also run libmodelio on one thread: the speed-up of --threads over it\n"
            "  --dir DIR     where the model and the outputs go (default $TMPDIR or /tmp)\n"
            "  --keep        keep the generated model (it is reused by the next run of the same shape)\n"
            "llama.cpp is loaded from $MIO_PEER_DIR (scripts/fetch-ggml-peer.sh).\n",
            argv0);
}

static int parse_int(const char *s, long lo, long hi, long *out) {
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv) {
    long runs = 3, threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    long layers = 18, heads = 16, kv_heads = -1, embd = 1024, ff = 2816, vocab = 32000;
    const char *model_arg = NULL, *dir_arg = NULL, *presets_arg = "Q4_K_M,Q4_K_S,Q8_0";
    int keep = 0, with_imatrix = 0, scaling = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x = 0;
#define NUM(opt, lo, hi, dst) else if (!strcmp(a, opt)) { if (!parse_int(v, lo, hi, &x)) { \
            fprintf(stderr, "%s: %s needs a number in %ld..%ld\n", argv[0], opt, (long)(lo), (long)(hi)); return 2; } \
            dst = x; i++; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(argv[0]); return 0; }
        NUM("--runs", 1, MAX_RUNS, runs)
        NUM("--threads", 1, 512, threads)
        NUM("--layers", 1, 400, layers)
        NUM("--embd", 32, 65536, embd)
        NUM("--ff", 32, 262144, ff)
        NUM("--heads", 1, 1024, heads)
        NUM("--kv-heads", 1, 1024, kv_heads)
        NUM("--vocab", 260, 1 << 20, vocab)
        else if (!strcmp(a, "--presets") && v) { presets_arg = v; i++; }
        else if (!strcmp(a, "--model") && v) { model_arg = v; i++; }
        else if (!strcmp(a, "--dir") && v) { dir_arg = v; i++; }
        else if (!strcmp(a, "--keep")) keep = 1;
        else if (!strcmp(a, "--imatrix")) with_imatrix = 1;
        else if (!strcmp(a, "--scaling")) scaling = 1;
        else if (!strcmp(a, "--allow-requantize")) g_requant = 1;
        else { usage(argv[0]); return 2; }
#undef NUM
    }
    if (kv_heads < 0) kv_heads = heads;
    const shape s = {(int)layers, (int)heads, (int)kv_heads, embd, ff, vocab};
    if (s.n_embd % s.n_head || s.n_head % s.n_head_kv) {
        fprintf(stderr, "%s: n_embd %% heads and heads %% kv-heads must be 0\n", argv[0]);
        return 2;
    }
    int presets[MAX_PRESETS], n_presets = 0;
    {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", presets_arg);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            int p = mio_preset_from_name(tok);
            if (p == MIO_PRESET_NONE || n_presets == MAX_PRESETS) {
                fprintf(stderr, "%s: '%s' is not a preset\n", argv[0], tok);
                return 2;
            }
            presets[n_presets++] = p;
        }
    }

    /* the peer first: skipping must not cost a model */
    char why[8192], peer_dir[4096];
    int lr = load_llama(peer_dir, why, sizeof why);
    if (lr != 0) {
        fprintf(stderr, "bench_quantize: %s%s\n", lr > 0 ? "SKIP: " : "", why);
        return lr > 0 ? 77 : 1;
    }

    const char *tmp = dir_arg ? dir_arg : getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char model[4200], outdir[4300];
    int generated = 0;
    if (model_arg) {
        snprintf(model, sizeof model, "%s", model_arg);
    } else {
        char tag[160];
        model_tag(&s, tag, sizeof tag);
        snprintf(model, sizeof model, "%s/%s.gguf", tmp, tag);
        if (model_usable(&s, model)) {
            printf("reusing %s\n", model);
        } else {
            /* written by a child, so the parent's heap stays what it was and the
             * measured children start from the same small baseline */
            g_table = malloc(65536 * sizeof *g_table);
            if (!g_table) return 1;
            for (int k = 0; k < 65536; k++) g_table[k] = mio_f32_to_fp16((float)(0.02 * gauss()));
            printf("writing %s (%.1f M parameters) ...", model, (double)n_params(&s) / 1e6);
            fflush(stdout);
            double t0 = bench_now_ms();
            pid_t pid = fork();
            if (pid == 0) _exit(write_model(&s, model) ? 1 : 0);
            int status = 0;
            while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            free(g_table);
            if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "\nbench_quantize: could not write the model\n");
                return 1;
            }
            printf(" %.1f s\n", (bench_now_ms() - t0) / 1e3);
        }
        generated = !keep;
    }
    struct stat sb;
    if (stat(model, &sb) != 0) { fprintf(stderr, "bench_quantize: %s: %s\n", model, strerror(errno)); return 1; }
    snprintf(outdir, sizeof outdir, "%s/mio_bench_quantize.XXXXXX", tmp);
    if (!mkdtemp(outdir)) { fprintf(stderr, "bench_quantize: mkdtemp in %s: %s\n", tmp, strerror(errno)); return 1; }
    if (with_imatrix) {
        char ip[4400];
        snprintf(ip, sizeof ip, "%s/bench.imatrix.dat", outdir);
        if (make_imatrix(model, ip)) {
            fprintf(stderr, "bench_quantize: could not make the imatrix\n");
            rm_dir(outdir);
            return 1;
        }
    }

    char cpu_model[256];
    cpu_name(cpu_model, sizeof cpu_model);
    printf("input:   %s (%.1f MB)\n", model, (double)sb.st_size / 1e6);
    if (!model_arg)
        printf("model:   llama, %d blocks, n_embd %lld, n_ff %lld, heads %d/%d, vocab %lld, f16: %.1f M parameters\n",
               s.n_layer, (long long)s.n_embd, (long long)s.n_ff, s.n_head, s.n_head_kv, (long long)s.n_vocab,
               (double)n_params(&s) / 1e6);
    printf("machine: %s, %ld online CPUs; %ld threads each; %ld interleaved rounds, medians\n", cpu_model,
           sysconf(_SC_NPROCESSORS_ONLN), threads, runs);
    printf("peer:    %s/libllama.v0.5.0.so (llama_model_quantize)\n", peer_dir);
    printf("baseline: the parent's RSS at fork, %.1f MiB, is in both sides' peaks\n\n", self_rss_mib());

    static double ms[MAX_PRESETS][2][MAX_RUNS], cpu[MAX_PRESETS][2][MAX_RUNS], rss[MAX_PRESETS][2][MAX_RUNS];
    static double ms1[MAX_PRESETS][MAX_RUNS]; /* --scaling: ours on one thread */
    int identical[MAX_PRESETS], failed = 0;
    uint64_t out_size[MAX_PRESETS];
    for (int p = 0; p < n_presets; p++) identical[p] = 1, out_size[p] = 0;
    char out[2][4400];
    for (long r = 0; r < runs && !failed; r++) {
        for (int p = 0; p < n_presets && !failed; p++) {
            const char *pn = mio_preset_name(presets[p]);
            for (int side = 0; side < 2 && !failed; side++) {
                snprintf(out[side], sizeof out[side], "%s/%s.%s.gguf", outdir, pn, side == OURS ? "mio" : "llama");
                unlink(out[side]);
                run_result rr = run_child(side, model, out[side], presets[p], (int)threads);
                if (!rr.ok) {
                    fprintf(stderr, "bench_quantize: %s %s failed (round %ld)\n", SIDE[side], pn, r + 1);
                    failed = 1;
                    break;
                }
                ms[p][side][r] = rr.ms;
                cpu[p][side][r] = rr.cpu_s;
                rss[p][side][r] = rr.rss_mib;
            }
            if (!failed && scaling) {
                snprintf(out[OURS], sizeof out[OURS], "%s/%s.mio1.gguf", outdir, pn);
                unlink(out[OURS]);
                run_result rr = run_child(OURS, model, out[OURS], presets[p], 1);
                if (!rr.ok) {
                    fprintf(stderr, "bench_quantize: libmodelio %s on one thread failed (round %ld)\n", pn, r + 1);
                    failed = 1;
                }
                ms1[p][r] = rr.ms;
                unlink(out[OURS]);
                snprintf(out[OURS], sizeof out[OURS], "%s/%s.mio.gguf", outdir, pn);
            }
            if (failed) break;
            uint64_t off = 0, size = 0;
            int same = same_bytes(out[OURS], out[PEER], &off, &size);
            if (same != 1) {
                identical[p] = 0;
                if (same == 0)
                    fprintf(stderr, "\n*** %s: NOT BYTE-IDENTICAL: the outputs first differ at byte %llu (round %ld) ***\n\n",
                            pn, (unsigned long long)off, r + 1);
                else
                    fprintf(stderr, "*** %s: could not compare the outputs (round %ld) ***\n", pn, r + 1);
            } else {
                out_size[p] = size;
            }
            printf("round %ld %-7s libmodelio %6.2f s (cpu %6.2f s) %6.1f MiB | llama.cpp %6.2f s (cpu %6.2f s) %6.1f MiB"
                   " | %s\n", r + 1, pn, ms[p][OURS][r] / 1e3, cpu[p][OURS][r], rss[p][OURS][r], ms[p][PEER][r] / 1e3,
                   cpu[p][PEER][r], rss[p][PEER][r], same == 1 ? "identical" : "DIFFERENT");
            unlink(out[OURS]);
            unlink(out[PEER]);
        }
    }
    rm_dir(outdir);
    free_imatrix();
    if (generated) unlink(model);
    if (failed) return 1;

    /* the targets of the issue: time ratio per preset, RSS ratio ≥ 4 everywhere */
    printf("\n| preset | libmodelio s | llama.cpp s | time llama/ours | target | libmodelio peak RSS MiB | "
           "llama.cpp peak RSS MiB | RSS llama/ours | target (≥ 4×) | output MB | byte-identical |\n");
    printf("|---|---:|---:|---:|---|---:|---:|---:|---|---:|---|\n");
    int all_same = 1;
    for (int p = 0; p < n_presets; p++) {
        double mt[2], mr[2];
        for (int side = 0; side < 2; side++) {
            mt[side] = bench_median(ms[p][side], (int)runs);
            mr[side] = bench_median(rss[p][side], (int)runs);
        }
        double tr = mt[PEER] / mt[OURS], rr = mr[PEER] / mr[OURS];
        int pr = presets[p];
        double want = pr == MIO_PRESET_Q4_K_M || pr == MIO_PRESET_Q4_K_S || pr == MIO_PRESET_IQ4_XS ||
                              pr == MIO_PRESET_IQ3_S || pr == MIO_PRESET_IQ2_S
                          ? 3.0
                      : pr == MIO_PRESET_Q8_0 ? 1.3
                                              : 0;
        char tt[48];
        if (want > 0) snprintf(tt, sizeof tt, "≥ %.1f×: %s", want, tr >= want ? "met" : "NOT met");
        else snprintf(tt, sizeof tt, "(none)");
        printf("| %s | %.2f | %.2f | %.2f× | %s | %.1f | %.1f | %.2f× | %s | %.1f | %s |\n", mio_preset_name(presets[p]),
               mt[OURS] / 1e3, mt[PEER] / 1e3, tr, tt, mr[OURS], mr[PEER], rr, rr >= 4.0 ? "met" : "NOT met",
               (double)out_size[p] / 1e6, identical[p] ? "yes" : "**NO**");
        all_same &= identical[p];
    }
    printf("\nCPU time (user + system of the child; less sensitive to a shared machine than wall time):\n\n");
    printf("| preset | libmodelio CPU s | llama.cpp CPU s | CPU llama/ours |\n|---|---:|---:|---:|\n");
    for (int p = 0; p < n_presets; p++) {
        double c0 = bench_median(cpu[p][OURS], (int)runs), c1 = bench_median(cpu[p][PEER], (int)runs);
        printf("| %s | %.2f | %.2f | %.2f× |\n", mio_preset_name(presets[p]), c0, c1, c1 / c0);
    }
    if (scaling) {
        printf("\nlibmodelio on %ld threads against itself on one (wall time):\n\n", threads);
        printf("| preset | 1 thread s | %ld threads s | speed-up | target |\n|---|---:|---:|---:|---|\n", threads);
        for (int p = 0; p < n_presets; p++) {
            double t1 = bench_median(ms1[p], (int)runs), tn = bench_median(ms[p][OURS], (int)runs);
            const char *nm = mio_preset_name(presets[p]);
            int iq = nm && nm[0] == 'I' && nm[1] == 'Q';
            char tt[48];
            if (iq && threads == 2) snprintf(tt, sizeof tt, "≥ 1.8×: %s", t1 / tn >= 1.8 ? "met" : "NOT met");
            else snprintf(tt, sizeof tt, "(none)");
            printf("| %s | %.2f | %.2f | %.2f× | %s |\n", nm, t1 / 1e3, tn / 1e3, t1 / tn, tt);
        }
    }
    printf("\n(medians of %ld; wall time of the forked child from fork to wait4, peak RSS = its ru_maxrss)\n", runs);
    if (!all_same) {
        printf("\n*** OUTPUTS ARE NOT BYTE-IDENTICAL for at least one preset: a bug in libmodelio ***\n");
        return 1;
    }
    return 0;
}
