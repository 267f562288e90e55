/* SPDX-License-Identifier: MIT */
/* codec.c — public entry points of the block codecs: argument and length
 * validation, the finiteness check (one vectorizable pass), multi-threaded
 * splitting (by whole blocks or rows, so results equal the single-threaded
 * call), and dispatch to the family tables registered once at first use. */
#include "codec.h"
#include "kernels/kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mio_codec g_tab[MIO_TYPE_GGML_COUNT];
static mio_codec g_st_tab[CODEC_ST_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_table(void) {
    /* The kernels of the level core/cpu.c chose; a refused MIO_ISA gives the
     * portable table here, and every call below fails on kernels_ok() first. */
    const mio_kernels *k = mio_kernels_table();
    mio_codec_register_scalar(g_tab, k);
    mio_codec_register_legacy(g_tab, k);
    mio_codec_register_kquants(g_tab, k);
    mio_codec_register_iq(g_tab, k);
    mio_codec_register_ternary(g_tab);
    mio_codec_register_fp4(g_tab, k);
    mio_codec_register_scalar_st(g_st_tab);
}

/* Row for a type code, or NULL. */
static const mio_codec *codec_get(int type) {
    if (type >= MIO_TYPE_BOOL && type < MIO_TYPE_BOOL + CODEC_ST_COUNT && mio_type_name(type)) {
        pthread_once(&g_once, init_table);
        return &g_st_tab[type - MIO_TYPE_BOOL];
    }
    if (type < 0 || type >= MIO_TYPE_GGML_COUNT || !mio_type_name(type)) return NULL;
    pthread_once(&g_once, init_table);
    return &g_tab[type];
}

int mio_type_can_encode(int type) { const mio_codec *c = codec_get(type); return c && c->enc; }
int mio_type_can_encode_imatrix(int type) {
    const mio_codec *c = codec_get(type);
    return c && (c->enc_w || (c->enc && !c->check_finite)); /* casts: the imatrix is ignored */
}
int mio_type_can_decode(int type) { const mio_codec *c = codec_get(type); return c && c->dec; }

/* Index of the first NaN/inf in x, or -1. Whole 256-element chunks are screened
 * with a branch-free max over the exponent bits (fixed trip count: the compiler
 * vectorizes it); the first chunk that holds a NaN/inf, and the tail, are
 * scanned element by element. */
static int64_t first_non_finite(const float *x, size_t n) {
    enum { CH = 256 };
    size_t i = 0;
    for (; i + CH <= n; i += CH) {
        /* exponent + one exponent step carries into bit 31 only for an all-ones
         * exponent (inf/NaN): three plain vector ops per element */
        uint32_t m = 0;
        for (int k = 0; k < CH; k++) {
            uint32_t u;
            memcpy(&u, x + i + k, 4);
            m |= (u & 0x7f800000u) + 0x00800000u;
        }
        if (m & 0x80000000u) break;
    }
    for (; i < n; i++) {
        uint32_t u;
        memcpy(&u, x + i, 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return (int64_t)i;
    }
    return -1;
}

/* MIO_OK, or the refusal of MIO_ISA (core/cpu.h) for every call that runs a kernel. */
static mio_status kernels_ok(void) {
    const mio_kernels *k;
    return mio_kernels_get(&k);
}

/* Common checks; on success *c is the codec, *nb the block count. Both outputs
 * are written on every path: the failures return mio_err_set()'s status, which the
 * compiler cannot see is non-zero, so at -O3 it would otherwise warn that the
 * callers may read *nb uninitialized. */
enum { NEED_DEC, NEED_ENC, NEED_ENC_W };

static mio_status check(int type, size_t n, size_t bytes, const void *a, const void *b, int need, const mio_codec **c,
                        int64_t *nb) {
    const char *name = mio_type_name(type);
    bool enc = need != NEED_DEC;
    *nb = 0;
    *c = codec_get(type);
    mio_status st = kernels_ok();
    if (st) return st;
    if (!*c) return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "unknown ggml type code %d", type);
    if (need == NEED_ENC_W && !(*c)->enc_w)
        return mio_err_set(MIO_ERR_ENCODER_UNAVAILABLE, "no importance-weighted encoder for %s", name);
    if (need == NEED_ENC && !(*c)->enc)
        return mio_err_set(MIO_ERR_ENCODER_UNAVAILABLE, "no encoder for %s: %s", name,
                           (*c)->no_enc ? (*c)->no_enc : "not implemented");
    if (!enc && !(*c)->dec) return mio_err_set(MIO_ERR_DECODER_UNAVAILABLE, "%s has no float view", name);
    if (enc && !mio_iq_encoder_ready(type))
        return mio_err_set(MIO_ERR_NOMEM, "out of memory building the %s encoder's grid tables", name);
    int64_t bs = mio_type_block_size(type);
    size_t bb = mio_type_block_bytes(type);
    if (n % (uint64_t)bs)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%zu elements is not a whole number of %s blocks (%lld per block)", n, name,
                           (long long)bs);
    uint64_t want;
    if (!ck_mul(n / (uint64_t)bs, bb, &want)) return mio_err_set(MIO_ERR_OVERFLOW, "%zu elements of %s overflow", n, name);
    if (want != bytes)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "%zu elements of %s take %llu bytes, %zu given", n, name,
                           (unsigned long long)want, bytes);
    /* a is src and b is dst in every caller (encode and decode alike) */
    if (n && (!a || !b)) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL (n %zu)", !a ? "src" : "dst", n);
    *nb = (int64_t)(n / (uint64_t)bs);
    return MIO_OK;
}

static mio_status finite(const mio_codec *c, int type, const float *src, size_t n) {
    if (!c->check_finite) return MIO_OK;
    int64_t bad = first_non_finite(src, n);
    if (bad < 0) return MIO_OK;
    float v;
    memcpy(&v, src + bad, 4);
    return mio_err_set(MIO_ERR_NON_FINITE, "element %lld is %s; %s blocks need finite input", (long long)bad,
                       v != v ? "NaN" : v > 0 ? "+inf" : "-inf", mio_type_name(type));
}

mio_status mio_encode_f32(int type, const float *src, size_t n, void *dst, size_t dst_len) {
    const mio_codec *c;
    int64_t nb;
    mio_status st = check(type, n, dst_len, src, dst, NEED_ENC, &c, &nb);
    if (!st) st = finite(c, type, src, n);
    if (st) return st;
    if (nb) c->enc(src, dst, nb);
    return MIO_OK;
}

mio_status mio_decode_f32(int type, const void *src, size_t src_len, float *dst, size_t n) {
    const mio_codec *c;
    int64_t nb;
    mio_status st = check(type, n, src_len, src, dst, NEED_DEC, &c, &nb);
    if (st) return st;
    if (nb) c->dec(src, dst, nb);
    return MIO_OK;
}

mio_status mio_encode_f32_imatrix(int type, const float *src, size_t n, int64_t n_per_row, const float *imatrix,
                                  void *dst, size_t dst_len) {
    if (!imatrix) return mio_encode_f32(type, src, n, dst, dst_len);
    mio_status st = kernels_ok();
    if (st) return st;
    const mio_codec *c = codec_get(type);
    if (!c) return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "unknown ggml type code %d", type);
    /* ggml ignores the importance matrix for the plain casts (f32/f16/bf16). */
    if (!c->enc_w && c->enc && !c->check_finite) return mio_encode_f32(type, src, n, dst, dst_len);
    int64_t bs = mio_type_block_size(type);
    if (n_per_row <= 0 || n_per_row % bs || n % (uint64_t)n_per_row)
        return mio_err_set(MIO_ERR_SIZE_MISMATCH, "n_per_row %lld must be a positive multiple of the %s block size %lld dividing n = %zu",
                           (long long)n_per_row, mio_type_name(type), (long long)bs, n);
    int64_t nb;
    st = check(type, n, dst_len, src, dst, NEED_ENC_W, &c, &nb);
    if (!st) st = finite(c, type, src, n);
    if (!st && (st = finite(c, type, imatrix, (size_t)n_per_row)) != MIO_OK) mio_err_prefix(st, "imatrix: ");
    if (st) return st;
    size_t row_bytes = (size_t)(n_per_row / bs) * mio_type_block_bytes(type);
    for (size_t r = 0; r < n / (uint64_t)n_per_row; r++)
        c->enc_w(src + r * (size_t)n_per_row, (uint8_t *)dst + r * row_bytes, n_per_row, imatrix);
    return MIO_OK;
}

/* --- threads: ranges of blocks claimed dynamically (core/core.h) --- */
typedef struct job {
    const mio_codec *c;
    bool enc;
    const uint8_t *in;
    uint8_t *out;
    size_t in_stride, out_stride; /* bytes per block */
} job;

static void run_range(void *ctx, int64_t b0, int64_t b1) {
    const job *j = ctx;
    const uint8_t *in = j->in + (size_t)b0 * j->in_stride;
    uint8_t *out = j->out + (size_t)b0 * j->out_stride;
    if (j->enc) j->c->enc((const float *)(const void *)in, out, b1 - b0);
    else j->c->dec(in, (float *)(void *)out, b1 - b0);
}

static int cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* About 16 ranges per thread: small enough that a slow range cannot keep the
 * others waiting long, large enough that claiming costs nothing (an encoder
 * sees whole blocks either way, so the bytes do not depend on the split). */
static mio_status run_threads(const mio_codec *c, bool enc, const void *in, void *out, int64_t nb, size_t in_stride,
                              size_t out_stride, int n_threads) {
    if (n_threads <= 0) n_threads = cores();
    if (n_threads > 256) n_threads = 256;
    job j = {c, enc, in, out, in_stride, out_stride};
    int64_t grain = nb / ((int64_t)n_threads * 16);
    mio_core_parallel_ranges(run_range, &j, nb, grain, n_threads);
    return MIO_OK;
}

mio_status mio_encode_f32_mt(int type, const float *src, size_t n, void *dst, size_t dst_len, int n_threads) {
    const mio_codec *c;
    int64_t nb;
    mio_status st = check(type, n, dst_len, src, dst, NEED_ENC, &c, &nb);
    if (!st) st = finite(c, type, src, n);
    if (st || !nb) return st;
    return run_threads(c, true, src, dst, nb, (size_t)mio_type_block_size(type) * sizeof(float), mio_type_block_bytes(type),
                       n_threads);
}

mio_status mio_decode_f32_mt(int type, const void *src, size_t src_len, float *dst, size_t n, int n_threads) {
    const mio_codec *c;
    int64_t nb;
    mio_status st = check(type, n, src_len, src, dst, NEED_DEC, &c, &nb);
    if (st || !nb) return st;
    return run_threads(c, false, src, dst, nb, mio_type_block_bytes(type), (size_t)mio_type_block_size(type) * sizeof(float),
                       n_threads);
}
