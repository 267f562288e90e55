/* SPDX-License-Identifier: MIT */
/* codec.h — the internal codec table behind mio_encode_f32 / mio_decode_f32.
 * Each family file (scalar.c, legacy.c, kquants.c, iq.c, ternary.c, fp4.c)
 * fills the rows of the types it implements from its codec_register_* function;
 * codec.c validates arguments, checks finiteness, splits work over threads and
 * dispatches. Family code never sees a partial block and never validates
 * lengths: it gets whole blocks only.
 * Rules for family code: src floats and dst bytes may have any alignment — read
 * and write multi-byte fields with memcpy (or byte by byte), never through
 * casted struct pointers; no global mutable state except tables built once. */
#ifndef MIO_QUANT_CODEC_H
#define MIO_QUANT_CODEC_H

#include "core/core.h"
#include "core/unaligned.h" /* ld16/ld32/ldf32/st16/st32/stf32 for family code */

typedef struct mio_codec {
    /* nb whole blocks: x holds nb * block_size floats, y nb * block_bytes bytes. */
    void (*enc)(const float *x, void *y, int64_t nb);
    /* One row of n_per_row elements with its importance weights qw (n_per_row
     * floats, never NULL): ggml's quantize_<type>(..., imatrix) for one row. */
    void (*enc_w)(const float *x, void *y, int64_t n_per_row, const float *qw);
    void (*dec)(const void *x, float *y, int64_t nb);
    /* Why enc is NULL (shown to the user), e.g. "iq2_xxs needs an importance matrix". */
    const char *no_enc;
    /* Block types refuse NaN/inf input; plain casts (f16, bf16) do not. */
    bool check_finite;
} mio_codec;

/* Builds the grid tables an IQ encoder searches (iq.c, once per process):
 * false when they cannot be allocated (nothing is kept; a later call tries
 * again). True for every other type. codec.c calls it before an encoder runs. */
bool mio_iq_encoder_ready(int type);

/* Families fill their rows; those with SIMD kernels keep k (the dispatch's
 * table, kernels/kernels.h, built once) and test its entries for NULL. */
struct mio_kernels;
void mio_codec_register_scalar(mio_codec *tab, const struct mio_kernels *k);
void mio_codec_register_legacy(mio_codec *tab, const struct mio_kernels *k);
void mio_codec_register_kquants(mio_codec *tab, const struct mio_kernels *k);
void mio_codec_register_iq(mio_codec *tab, const struct mio_kernels *k);
void mio_codec_register_ternary(mio_codec *tab);
void mio_codec_register_fp4(mio_codec *tab, const struct mio_kernels *k);
/* The safetensors-only dtypes with a float view (bool, u8..u64, the OCP FP8
 * types), in a table indexed by type - MIO_TYPE_BOOL (CODEC_ST_COUNT rows). */
#define CODEC_ST_COUNT (MIO_TYPE_U64 - MIO_TYPE_BOOL + 1)
void mio_codec_register_scalar_st(mio_codec *st_tab);


#endif
