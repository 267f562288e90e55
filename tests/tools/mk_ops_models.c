/* SPDX-License-Identifier: MIT */
/* mk_ops_models.c — the small models test_inspect_ops.sh runs mio-inspect
 * --hash/--check/--stats/--diff/--verify on, written with libmodelio:
 *   ops.gguf, ops.safetensors   the same five tensors (same bytes, another order)
 *   ops_split-0000K-of-00003.gguf   ops.gguf split two tensors a part
 *   ops_sharded/                model.safetensors.index.json over 2+ shards
 *   ops_meta.gguf               ops.gguf with general.name changed and a key added
 *   vec.safetensors             "abc" (u8 [3], the bytes a b c), "empty" (u8 [0]) and
 *                               "f8" (F8_E4M3 [4], the bytes 38 7e 01 b8)
 *   pad.safetensors             u8 tensors nL of L = 1..1000 bytes (i * 7 mod 256)
 *   names.gguf                  f32 [1] tensors named with bytes to escape (tab,
 *                               ESC, invalid UTF-8, U+0085, \\, CR, LF, '#', "model  x"),
 *                               tensor k holding the value k
 *   conv.safetensors            w.f32 as F16 (same values), b.f16 as F32 0.5 -1 2.25
 *   q8.gguf                     "q" q8_0 [64] encoding (i - 32) / 4
 * Tensor values (row-major):
 *   w.f32   f32 [2, 4]  1 2 3 4 NaN inf 0 0
 *   b.f16   f16 [3]     0.5 -1 2
 *   i.i32   i32 [2]     7 -3
 *   "odd\nname\\é"  f32 [1]  42
 *   big     f32 [1100000]  -1 +1 -1 +1 ... (element i: i odd ? 1 : -1)
 * usage: mk_ops_models OUTDIR */
#define _POSIX_C_SOURCE 200809L
#include <modelio.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BIG 1100000

static int fail(const char *what)
{
    fprintf(stderr, "mk_ops_models: %s: %s\n", what, mio_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mk_ops_models OUTDIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char path[4096];

    float w[8] = {1, 2, 3, 4, NAN, INFINITY, 0, 0};
    uint16_t b[3] = {mio_f32_to_fp16(0.5f), mio_f32_to_fp16(-1.0f), mio_f32_to_fp16(2.0f)};
    int32_t iv[2] = {7, -3};
    float odd[1] = {42};
    float *big = malloc(BIG * sizeof *big);
    if (!big)
        return 1;
    for (size_t i = 0; i < BIG; i++)
        big[i] = (i & 1) ? 1.0f : -1.0f;
    const char *odd_name = "odd\nname\\\xc3\xa9";

    /* GGUF: file order big, w.f32, odd, i.i32, b.f16 */
    for (int variant = 0; variant < 2; variant++) {
        mio_writer *wr;
        if (mio_writer_new(0, &wr))
            return fail("writer");
        const char *gname = variant ? "other" : "ops";
        int64_t ne_big[1] = {BIG}, ne_w[2] = {4, 2}, ne_b[1] = {3}, ne_i[1] = {2}, ne_o[1] = {1};
        if (mio_writer_set_str(wr, "general.architecture", "test", 4) ||
            mio_writer_set_str(wr, "general.name", gname, strlen(gname)) ||
            (variant && mio_writer_set_u32(wr, "x.extra", 5)) ||
            mio_writer_add_tensor(wr, "big", MIO_TYPE_F32, 1, ne_big, big, sizeof(float) * BIG) ||
            mio_writer_add_tensor(wr, "w.f32", MIO_TYPE_F32, 2, ne_w, w, sizeof w) ||
            mio_writer_add_tensor(wr, odd_name, MIO_TYPE_F32, 1, ne_o, odd, sizeof odd) ||
            mio_writer_add_tensor(wr, "i.i32", MIO_TYPE_I32, 1, ne_i, iv, sizeof iv) ||
            mio_writer_add_tensor(wr, "b.f16", MIO_TYPE_F16, 1, ne_b, b, sizeof b))
            return fail("gguf tensors");
        snprintf(path, sizeof path, "%s/%s", dir, variant ? "ops_meta.gguf" : "ops.gguf");
        if (mio_writer_write_file(wr, path))
            return fail(path);
        mio_writer_free(wr);
    }
    /* split: two tensors a part */
    {
        mio_gguf_split_params sp;
        mio_gguf_split_default_params(&sp);
        sp.max_tensors = 2;
        char prefix[4096];
        snprintf(path, sizeof path, "%s/ops.gguf", dir);
        snprintf(prefix, sizeof prefix, "%s/ops_split", dir);
        uint32_t parts = 0;
        if (mio_gguf_split(path, prefix, &sp, &parts) || parts != 3)
            return fail("split");
    }
    /* safetensors: the same tensors (the writer orders them its own way) */
    {
        uint64_t s_big[1] = {BIG}, s_w[2] = {2, 4}, s_b[1] = {3}, s_i[1] = {2}, s_o[1] = {1};
        mio_st_entry e[5] = {
            {"b.f16", MIO_ST_F16, 1, s_b, b, sizeof b},
            {"i.i32", MIO_ST_I32, 1, s_i, iv, sizeof iv},
            {odd_name, MIO_ST_F32, 1, s_o, odd, sizeof odd},
            {"w.f32", MIO_ST_F32, 2, s_w, w, sizeof w},
            {"big", MIO_ST_F32, 1, s_big, big, sizeof(float) * BIG},
        };
        mio_st_meta meta[1] = {{"format", "pt"}};
        snprintf(path, sizeof path, "%s/ops.safetensors", dir);
        if (mio_st_save_file(path, e, 5, meta, 1))
            return fail(path);
        snprintf(path, sizeof path, "%s/ops_sharded", dir);
        mkdir(path, 0777);
        uint32_t shards = 0;
        if (mio_st_save_sharded(path, e, 5, meta, 1, 1024, &shards) || shards < 2)
            return fail("sharded");
        /* conv.safetensors: w.f32 stored as F16 (every value exact in f16),
         * b.f16 as F32 with its last value 2 -> 2.25 */
        uint16_t w16[8];
        for (int k = 0; k < 8; k++)
            w16[k] = mio_f32_to_fp16(w[k]);
        float b32[3] = {0.5f, -1.0f, 2.25f};
        mio_st_entry c[2] = {{"w.f32", MIO_ST_F16, 2, s_w, w16, sizeof w16}, {"b.f16", MIO_ST_F32, 1, s_b, b32, sizeof b32}};
        snprintf(path, sizeof path, "%s/conv.safetensors", dir);
        if (mio_st_save_file(path, c, 2, meta, 1))
            return fail(path);
        uint64_t s3[1] = {3}, s0[1] = {0};
        uint64_t s4[1] = {4};
        static const unsigned char f8[4] = {0x38, 0x7e, 0x01, 0xb8};
        mio_st_entry v[3] = {{"abc", MIO_ST_U8, 1, s3, "abc", 3}, {"empty", MIO_ST_U8, 1, s0, NULL, 0},
                             {"f8", MIO_ST_F8_E4M3, 1, s4, f8, 4}};
        snprintf(path, sizeof path, "%s/vec.safetensors", dir);
        if (mio_st_save_file(path, v, 3, NULL, 0))
            return fail(path);
    }
    /* pad.safetensors: u8 tensors "nL" of L bytes (byte i = i * 7 mod 256) for
     * every length around SHA-256's padding boundaries */
    {
        static const uint64_t lens[] = {1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000};
        enum { NL = sizeof lens / sizeof lens[0] };
        unsigned char bytes[1000];
        for (int i = 0; i < 1000; i++)
            bytes[i] = (unsigned char)(i * 7);
        mio_st_entry e[NL];
        char names[NL][16];
        for (int k = 0; k < NL; k++) {
            snprintf(names[k], sizeof names[k], "n%llu", (unsigned long long)lens[k]);
            e[k] = (mio_st_entry){names[k], MIO_ST_U8, 1, &lens[k], bytes, (size_t)lens[k]};
        }
        snprintf(path, sizeof path, "%s/pad.safetensors", dir);
        if (mio_st_save_file(path, e, NL, NULL, 0))
            return fail(path);
    }
    /* names.gguf: names with bytes a manifest line must escape; tensor k
     * (f32 [1]) holds the value k */
    {
        static const char *const names[] = {"tab\there", "esc\x1b[31m", "bad\xff\xfe", "c1\xc2\x85", "back\\slash",
                                            "cr\rlf\n", "plain \xc3\xa9", "#hash", "model  x"};
        mio_writer *wr;
        if (mio_writer_new(0, &wr))
            return fail("writer");
        float vals[9];
        int64_t ne[1] = {1};
        for (int k = 0; k < 9; k++) {
            vals[k] = (float)k;
            if (mio_writer_add_tensor(wr, names[k], MIO_TYPE_F32, 1, ne, &vals[k], sizeof(float)))
                return fail("names");
        }
        snprintf(path, sizeof path, "%s/names.gguf", dir);
        if (mio_writer_write_file(wr, path))
            return fail(path);
        mio_writer_free(wr);
    }
    /* q8_0 */
    {
        float x[64];
        unsigned char q[68];
        for (int i = 0; i < 64; i++)
            x[i] = (float)(i - 32) / 4;
        if (mio_encode_f32(MIO_TYPE_Q8_0, x, 64, q, sizeof q))
            return fail("q8_0");
        mio_writer *wr;
        int64_t ne[1] = {64};
        if (mio_writer_new(0, &wr) || mio_writer_add_tensor(wr, "q", MIO_TYPE_Q8_0, 1, ne, q, sizeof q))
            return fail("q8 writer");
        snprintf(path, sizeof path, "%s/q8.gguf", dir);
        if (mio_writer_write_file(wr, path))
            return fail(path);
        mio_writer_free(wr);
    }
    free(big);
    return 0;
}
