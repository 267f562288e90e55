/* SPDX-License-Identifier: MIT */
/* mk_dtype_models.c — writes the small GGUF inputs of test_export_dtype.sh (one tensor per
 * --dtype policy branch, a quantized matrix, NaN/inf at known elements, wide rows for the
 * thread checks) and of test_tool_defects.sh (a two-part split model, a part renamed,
 * tensor names carrying terminal escape sequences) with libmodelio's writer.
 * Usage: mk_dtype_models DIR          the --dtype models
 *        mk_dtype_models DIR defects  the split and escape-sequence models
 *        mk_dtype_models DIR big      big.gguf: 48 f32 matrices of 256 x 4096 (192 MiB), for
 *                                     interrupting a conversion mid-write
 *        mk_dtype_models DIR ptqtp    ptqtp.gguf: the --ptqtp model of test_export_ptqtp.sh */
#include <modelio.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x64747970652d7473ull;

/* mio_writer_add_tensor borrows the data until the write: keep it here. */
#define MAX_BUFS 64
static void *bufs[MAX_BUFS];
static int n_bufs;

static float next_float(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0) * 0.1f;
}

/* Tensor of ne0 x ne1 x ne2 (ne1 = 0: 1-D; ne2 = 0: 2-D) of the given type
 * (f32/f16/bf16/q8_0) from fresh values; element bad_at (if >= 0) is set to bad
 * before encoding. */
static mio_status add3(mio_writer *w, const char *name, int type, int64_t ne0, int64_t ne1, int64_t ne2,
                       int64_t bad_at, float bad) {
    int64_t ne[3] = {ne0, ne1, ne2};
    uint32_t n_dims = ne2 ? 3u : ne1 ? 2u : 1u;
    size_t n = (size_t)ne0 * (size_t)(ne1 ? ne1 : 1) * (size_t)(ne2 ? ne2 : 1);
    float *x = malloc(n * sizeof *x);
    uint64_t nbytes = 0;
    mio_status st = mio_type_nbytes(type, n_dims, ne, &nbytes);
    unsigned char *buf = malloc((size_t)nbytes + 1);
    if (!x || !buf || st != MIO_OK || n_bufs == MAX_BUFS) {
        free(x);
        free(buf);
        return st != MIO_OK ? st : MIO_ERR_NOMEM;
    }
    for (size_t k = 0; k < n; k++) x[k] = next_float();
    if (bad_at >= 0) x[bad_at] = bad;
    if (type == MIO_TYPE_F32) {
        memcpy(buf, x, n * 4);
    } else if (type == MIO_TYPE_F16 || type == MIO_TYPE_BF16) {
        for (size_t k = 0; k < n; k++) {
            uint16_t h = type == MIO_TYPE_F16 ? mio_f32_to_fp16(x[k]) : mio_f32_to_bf16(x[k]);
            memcpy(buf + 2 * k, &h, 2);
        }
    } else {
        st = mio_encode_f32(type, x, n, buf, (size_t)nbytes);
    }
    if (st == MIO_OK) st = mio_writer_add_tensor(w, name, type, n_dims, ne, buf, (size_t)nbytes);
    free(x);
    bufs[n_bufs++] = buf;
    return st;
}
static mio_status add(mio_writer *w, const char *name, int type, int64_t ne0, int64_t ne1, int64_t bad_at, float bad) {
    return add3(w, name, type, ne0, ne1, 0, bad_at, bad);
}

static int write_model(const char *dir, const char *file, mio_status (*fill)(mio_writer *)) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(MIO_WRITER_DEFAULT, &w);
    if (st == MIO_OK) st = mio_writer_set_str(w, "general.architecture", "llama", 5);
    if (st == MIO_OK) st = mio_writer_set_u32(w, "general.file_type", 0);
    if (st == MIO_OK) st = fill(w);
    if (st == MIO_OK) st = mio_writer_write_file(w, path);
    mio_writer_free(w);
    while (n_bufs > 0) free(bufs[--n_bufs]);
    if (st != MIO_OK) {
        fprintf(stderr, "mk_dtype_models: %s: %s\n", path, mio_last_error());
        return 1;
    }
    return 0;
}

/* every policy branch */
static mio_status fill_mixed(mio_writer *w) {
    mio_status st;
    if ((st = add(w, "a.weight", MIO_TYPE_F32, 64, 4, -1, 0)) != MIO_OK) return st;      /* converted */
    if ((st = add(w, "b.weight", MIO_TYPE_F16, 64, 2, -1, 0)) != MIO_OK) return st;      /* converted */
    if ((st = add(w, "c.weight", MIO_TYPE_BF16, 64, 2, -1, 0)) != MIO_OK) return st;     /* converted */
    if ((st = add(w, "vec.weight", MIO_TYPE_F32, 64, 0, -1, 0)) != MIO_OK) return st;    /* 1-D */
    if ((st = add(w, "lin.bias", MIO_TYPE_F32, 64, 2, -1, 0)) != MIO_OK) return st;      /* not a .weight */
    if ((st = add(w, "q_norm.weight", MIO_TYPE_F32, 64, 2, -1, 0)) != MIO_OK) return st; /* norm */
    if ((st = add(w, "odd.weight", MIO_TYPE_F32, 48, 2, -1, 0)) != MIO_OK) return st;    /* 48: not whole q8_0 blocks */
    return add(w, "d3.weight", MIO_TYPE_F16, 32, 3, -1, 0);                               /* converted for 32-blocks */
}

/* a quantized 1-D tensor (kept, fine) then a quantized matrix (refused) */
static mio_status fill_quant(mio_writer *w) {
    mio_status st;
    if ((st = add(w, "scale.weight", MIO_TYPE_Q8_0, 64, 0, -1, 0)) != MIO_OK) return st;
    if ((st = add(w, "ok.weight", MIO_TYPE_F32, 64, 2, -1, 0)) != MIO_OK) return st;
    return add(w, "blk.0.attn_q.weight", MIO_TYPE_Q8_0, 64, 2, -1, 0);
}

static mio_status fill_nan(mio_writer *w) {
    mio_status st;
    if ((st = add(w, "ok.weight", MIO_TYPE_F32, 64, 2, -1, 0)) != MIO_OK) return st;
    return add(w, "blk.3.ffn_up.weight", MIO_TYPE_F32, 64, 4, 70, NAN);
}

static mio_status fill_inf(mio_writer *w) {
    return add(w, "output.weight", MIO_TYPE_F16, 64, 2, 5, -INFINITY);
}

/* non-finite values only in tensors the policy keeps: nothing to refuse */
static mio_status fill_nan_kept(mio_writer *w) {
    mio_status st;
    if ((st = add(w, "norm_nan.weight", MIO_TYPE_F32, 64, 2, 3, NAN)) != MIO_OK) return st;
    if ((st = add(w, "vec.weight", MIO_TYPE_F32, 64, 0, 0, INFINITY)) != MIO_OK) return st;
    return add(w, "w.weight", MIO_TYPE_F32, 64, 2, -1, 0);
}

/* wide rows and odd row counts, for the thread-count invariance checks */
static mio_status fill_wide(mio_writer *w) {
    mio_status st;
    if ((st = add(w, "big.weight", MIO_TYPE_F32, 256, 97, -1, 0)) != MIO_OK) return st;
    if ((st = add(w, "big_norm.weight", MIO_TYPE_F32, 256, 0, -1, 0)) != MIO_OK) return st;
    return add(w, "big2.weight", MIO_TYPE_F16, 512, 33, -1, 0);
}

/* a model split in two parts the way gguf-split writes them: split.no (u16,
 * 0-based), split.count (u16), split.tensors.count (i32) in every part */
static mio_status split_keys(mio_writer *w, uint16_t no) {
    mio_status st = mio_writer_set_u16(w, "split.no", no);
    if (st == MIO_OK) st = mio_writer_set_u16(w, "split.count", 2);
    if (st == MIO_OK) st = mio_writer_set_i32(w, "split.tensors.count", 3);
    return st;
}
static mio_status fill_split1(mio_writer *w) {
    mio_status st;
    if ((st = split_keys(w, 0)) != MIO_OK) return st;
    if ((st = add(w, "a.weight", MIO_TYPE_F32, 256, 2, -1, 0)) != MIO_OK) return st;
    return add(w, "b.weight", MIO_TYPE_F32, 256, 0, -1, 0);
}
static mio_status fill_split2(mio_writer *w) {
    mio_status st;
    if ((st = split_keys(w, 1)) != MIO_OK) return st;
    return add(w, "c.weight", MIO_TYPE_F16, 256, 3, -1, 0);
}

/* Names that try to drive the terminal: an OSC title sequence ended by BEL,
 * and a CSI clear-screen. */
#define ESC_OSC "\x1b]0;PWNED\x07"
#define ESC_CSI "\x1b[2J"
static mio_status fill_esc_nan(mio_writer *w) {
    return add(w, ESC_OSC "x.weight", MIO_TYPE_F32, 64, 2, 3, NAN);
}
static mio_status fill_esc_quant(mio_writer *w) {
    return add(w, ESC_CSI "q.weight", MIO_TYPE_Q8_0, 64, 2, -1, 0);
}

static mio_status fill_big(mio_writer *w) {
    mio_status st = MIO_OK;
    char name[64];
    for (int i = 0; i < 48 && st == MIO_OK; i++) {
        snprintf(name, sizeof name, "blk.%d.ffn_up.weight", i);
        st = add(w, name, MIO_TYPE_F32, 256, 4096, -1, 0);
    }
    return st;
}

/* --ptqtp (test_export_ptqtp.sh): an expert stack, a quantized source, a NaN,
 * a name carrying a terminal escape sequence, the kept-by-default names */
static mio_status fill_ptqtp(mio_writer *w) {
    mio_status st;
    if ((st = add(w, "token_embd.weight", MIO_TYPE_F16, 256, 4, -1, 0)) != MIO_OK) return st;
    if ((st = add(w, "blk.0.attn_norm.weight", MIO_TYPE_F32, 256, 0, -1, 0)) != MIO_OK) return st;
    if ((st = add(w, "blk.0.attn_q.weight", MIO_TYPE_Q8_0, 256, 4, -1, 0)) != MIO_OK) return st;
    if ((st = add(w, "blk.0.attn_v.weight", MIO_TYPE_F32, 512, 2, 3, NAN)) != MIO_OK) return st;
    if ((st = add3(w, "blk.0.ffn_up_exps.weight", MIO_TYPE_F16, 256, 2, 3, -1, 0)) != MIO_OK) return st;
    if ((st = add3(w, "blk.0.ffn_down_exps.weight", MIO_TYPE_F16, 128, 2, 3, -1, 0)) != MIO_OK) return st;
    if ((st = add(w, ESC_CSI "x.weight", MIO_TYPE_F32, 256, 1, -1, 0)) != MIO_OK) return st;
    return add(w, "output.weight", MIO_TYPE_F32, 256, 4, -1, 0);
}

int main(int argc, char **argv) {
    if (argc != 2 && !(argc == 3 && (strcmp(argv[2], "big") == 0 || strcmp(argv[2], "defects") == 0 ||
                                     strcmp(argv[2], "ptqtp") == 0))) {
        fprintf(stderr, "usage: mk_dtype_models DIR [defects|big|ptqtp]\n");
        return 2;
    }
    int rc = 0;
    if (argc == 3 && strcmp(argv[2], "big") == 0) return write_model(argv[1], "big.gguf", fill_big);
    if (argc == 3 && strcmp(argv[2], "ptqtp") == 0) return write_model(argv[1], "ptqtp.gguf", fill_ptqtp);
    if (argc == 3) {
        rc |= write_model(argv[1], "m-00001-of-00002.gguf", fill_split1);
        rc |= write_model(argv[1], "m-00002-of-00002.gguf", fill_split2);
        rc |= write_model(argv[1], "renamed-part.gguf", fill_split1);
        rc |= write_model(argv[1], "esc_nan.gguf", fill_esc_nan);
        rc |= write_model(argv[1], "esc_quant.gguf", fill_esc_quant);
        return rc;
    }
    rc |= write_model(argv[1], "mixed.gguf", fill_mixed);
    rc |= write_model(argv[1], "quant.gguf", fill_quant);
    rc |= write_model(argv[1], "nan.gguf", fill_nan);
    rc |= write_model(argv[1], "inf.gguf", fill_inf);
    rc |= write_model(argv[1], "nan_kept.gguf", fill_nan_kept);
    rc |= write_model(argv[1], "wide.gguf", fill_wide);
    return rc;
}
