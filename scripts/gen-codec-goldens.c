/* SPDX-License-Identifier: MIT */
/* gen-codec-goldens.c — writes tests/data/codec/<type>.bin, the committed golden
 * vectors that let CI check libmodelio's block codecs byte/bit-exact against
 * ggml without the ggml library. Run once against the peer (libggml-base.so from
 * @node-llama-cpp/linux-x64, see scripts/fetch-ggml-peer.sh); not part of the build.
 *
 *   gcc -std=c11 -O2 -D_GNU_SOURCE -Itests/codec -o /tmp/gen-codec-goldens scripts/gen-codec-goldens.c -ldl -lm && MIO_PEER_DIR=/tmp/peer/package/bins/linux-x64 /tmp/gen-codec-goldens tests/data/codec
 *
 * File layout (little-endian):
 *   header  "MIOGOLD1" | u32 type | u32 block_size | u32 block_bytes | u32 n_records | u64 seed | char name[16]
 *   record  u32 tag (1 = encode, 2 = decode) | u32 n_per_row | u32 nrows | char kind[24], then
 *           encode: n floats (input) + ggml's bytes;  decode: bytes (input) + ggml's n floats,
 *           with n = n_per_row * nrows and bytes = n / block_size * block_bytes.
 * Encode records: every adversarial input kind of codec_peer.h, one block (1 row)
 * and a multi-row case (2 or 3 rows of 256), through ggml_quantize_chunk
 * (the exported quantize_row_q8_1_ref / quantize_row_q8_K_ref for q8_1 / q8_K, which
 * ggml_quantize_chunk does not take; the exported quantize_q2_0 for q2_0, which the
 * peer's type table lacks).
 * Decode records: random block bytes, and bytes biased to NaN/inf/subnormal
 * patterns, through to_float (the exported dequantize_row_q8_K
 * / dequantize_row_q2_0 for q8_K, whose traits lack to_float, and q2_0).
 * Each type is generated in a child process, so a peer abort loses only that type. */
#include "codec_peer.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#define GOLD_SEED 0x60d1c0dec5eedull

typedef struct gtype {
    int type;
    const char *name;
    int64_t bs;
    size_t bb;
    int enc; /* 0 none, 1 ggml_quantize_chunk, 2 exported quantize_row_<name>_ref, 3 exported quantize_<name> */
    int dec; /* 0 none, 1 to_float, 2 exported dequantize_row_<name> */
} gtype;

static const gtype g_types[] = {
    {1, "f16", 1, 2, 1, 1},          {30, "bf16", 1, 2, 1, 1},
    {2, "q4_0", 32, 18, 1, 1},       {3, "q4_1", 32, 20, 1, 1},      {6, "q5_0", 32, 22, 1, 1},
    {7, "q5_1", 32, 24, 1, 1},       {8, "q8_0", 32, 34, 1, 1},      {9, "q8_1", 32, 36, 2, 0},
    {10, "q2_K", 256, 84, 1, 1},     {11, "q3_K", 256, 110, 1, 1},   {12, "q4_K", 256, 144, 1, 1},
    {13, "q5_K", 256, 176, 1, 1},    {14, "q6_K", 256, 210, 1, 1},   {15, "q8_K", 256, 292, 2, 2},
    {16, "iq2_xxs", 256, 66, 0, 1},  {17, "iq2_xs", 256, 74, 0, 1},  {18, "iq3_xxs", 256, 98, 1, 1},
    {19, "iq1_s", 256, 50, 0, 1},    {20, "iq4_nl", 32, 18, 1, 1},   {21, "iq3_s", 256, 110, 1, 1},
    {22, "iq2_s", 256, 82, 1, 1},    {23, "iq4_xs", 256, 136, 1, 1}, {29, "iq1_m", 256, 56, 0, 1},
    {34, "tq1_0", 256, 54, 1, 1},    {35, "tq2_0", 256, 66, 1, 1},   {39, "mxfp4", 32, 17, 1, 1},
    {40, "nvfp4", 64, 36, 1, 1},     {41, "q1_0", 128, 18, 1, 1},    {42, "q2_0", 64, 18, 3, 2},
};
#define N_TYPES (int)(sizeof g_types / sizeof g_types[0])

static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }

static void put_record_head(FILE *f, uint32_t tag, int64_t npr, int64_t nrows, const char *kind) {
    char k[24] = {0};
    snprintf(k, sizeof k, "%s", kind);
    put32(f, tag);
    put32(f, (uint32_t)npr);
    put32(f, (uint32_t)nrows);
    fwrite(k, 1, sizeof k, f);
}

static int gen_type(const gtype *t, const char *dir) {
    const peer_type_traits *tr = t->type <= 41 ? g_peer.traits(t->type) : NULL;
    if (tr && (tr->blck_size != t->bs || tr->type_size != t->bb)) {
        fprintf(stderr, "%s: peer block %lld/%zu, expected %lld/%zu\n", t->name, (long long)tr->blck_size, tr->type_size,
                (long long)t->bs, t->bb);
        return 1;
    }
    char sym[64];
    size_t (*q_direct)(const float *, void *, int64_t, int64_t, const float *) = NULL;
    peer_to_float_fn dq = NULL;
    if (t->enc == 3) {
        snprintf(sym, sizeof sym, "quantize_%s", t->name);
        *(void **)&q_direct = dlsym(g_peer.h, sym);
        if (!q_direct) { fprintf(stderr, "%s: peer lacks %s\n", t->name, sym); return 1; }
    }
    if (t->dec == 1) dq = tr ? tr->to_float : NULL;
    if (t->dec == 2) {
        snprintf(sym, sizeof sym, "dequantize_row_%s", t->name);
        *(void **)&dq = dlsym(g_peer.h, sym);
    }
    if (t->dec && !dq) { fprintf(stderr, "%s: peer has no decoder\n", t->name); return 1; }
    peer_from_float_fn q_ref = NULL;
    if (t->enc == 2) {
        snprintf(sym, sizeof sym, "quantize_row_%s_ref", t->name);
        *(void **)&q_ref = dlsym(g_peer.h, sym);
        if (!q_ref) { fprintf(stderr, "%s: peer lacks %s\n", t->name, sym); return 1; }
    }

    /* records: two row shapes per input kind, one decode record */
    int64_t shapes[2][2] = {{t->bs, 1}, {256, t->bs == 256 ? 3 : 2}};
    uint32_t n_records = (t->enc ? 2u * CODEC_INPUT_KINDS : 0u) + (t->dec ? 2u : 0u);

    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.bin", dir, t->name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) { fprintf(stderr, "%s: %s\n", tmp, strerror(errno)); return 1; }
    char name[16] = {0};
    snprintf(name, sizeof name, "%s", t->name);
    fwrite("MIOGOLD1", 1, 8, f);
    put32(f, (uint32_t)t->type);
    put32(f, (uint32_t)t->bs);
    put32(f, (uint32_t)t->bb);
    put32(f, n_records);
    uint64_t seed = GOLD_SEED;
    fwrite(&seed, 8, 1, f);
    fwrite(name, 1, sizeof name, f);

    for (int kind = 0; t->enc && kind < CODEC_INPUT_KINDS; kind++)
        for (int s = 0; s < 2; s++) {
            int64_t npr = shapes[s][0], nrows = shapes[s][1], n = npr * nrows;
            size_t bytes = (size_t)(n / t->bs) * t->bb;
            float *x = malloc((size_t)n * 4);
            uint8_t *y = calloc(1, bytes);
            fill_input(kind, GOLD_SEED + (uint64_t)(kind * 2 + s) * 1000003u + (uint64_t)t->type, x, n, t->bs);
            if (t->enc == 1) {
                size_t got = peer_quantize(t->type, x, y, nrows, npr, NULL);
                if (got != bytes) { fprintf(stderr, "%s: quantize_chunk wrote %zu, expected %zu\n", t->name, got, bytes); return 1; }
            } else if (t->enc == 2) {
                q_ref(x, y, n);
            } else {
                size_t got = q_direct(x, y, nrows, npr, NULL);
                if (got != bytes) { fprintf(stderr, "%s: quantize wrote %zu, expected %zu\n", t->name, got, bytes); return 1; }
            }
            put_record_head(f, 1, npr, nrows, input_kind_name[kind]);
            fwrite(x, 4, (size_t)n, f);
            fwrite(y, 1, bytes, f);
            free(x);
            free(y);
        }
    for (int pass = 0; t->dec && pass < 2; pass++) {
        /* pass 1 draws bytes from values that make any f16/bf16/f32 field NaN
         * (signalling and quiet), inf, subnormal or zero, whatever the layout */
        static const uint8_t special[] = {0x00, 0x01, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0xfc, 0xfd, 0xfe, 0xff, 0x03};
        int64_t nb = t->bs >= 256 ? 2 : 512 / t->bs, n = nb * t->bs;
        size_t bytes = (size_t)nb * t->bb;
        uint8_t *q = malloc(bytes);
        float *y = malloc((size_t)n * 4);
        uint64_t s = GOLD_SEED ^ (uint64_t)t->type << 40 ^ (uint64_t)pass;
        for (size_t j = 0; j < bytes; j++) {
            uint64_t r = rng_next(&s);
            q[j] = pass && (r >> 32) % 3 ? special[(r >> 8) % sizeof special] : (uint8_t)r;
        }
        dq(q, y, n);
        put_record_head(f, 2, n, 1, pass ? "nan-inf-bytes" : "random-bytes");
        fwrite(q, 1, bytes, f);
        fwrite(y, 4, (size_t)n, f);
        free(q);
        free(y);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) { fprintf(stderr, "%s: write failed\n", path); return 1; }
    printf("%-8s %u records -> %s\n", t->name, n_records, path);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s OUTPUT_DIR (with MIO_PEER_DIR set)\n", argv[0]); return 2; }
    if (!peer_codec_load()) return 1;
    int failed = 0;
    for (int i = 0; i < N_TYPES; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) _exit(gen_type(&g_types[i], argv[1]));
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "%s: FAILED (status %d)\n", g_types[i].name, st);
            failed++;
        }
    }
    (void)peer_to_float;
    (void)first_diff;
    (void)first_float_diff;
    (void)test_seed;
    return failed ? 1 : 0;
}
