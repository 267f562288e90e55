/* SPDX-License-Identifier: MIT */
/* types.c — the type table (ggml codes, then safetensors-only codes from 1000): names, block sizes and bytes per block, keyed
 * by ggml's wire codes (verified against libggml-base's ggml_type_name /
 * ggml_blck_size / ggml_type_size in tests/interop). Removed codes have no row. */
#include "core/core.h"

#include <ctype.h>
#include <string.h>

typedef struct type_row { const char *name; int64_t blck; size_t bytes; } type_row;

static const type_row g_types[MIO_TYPE_GGML_COUNT] = {
    [MIO_TYPE_F32] = {"f32", 1, 4},          [MIO_TYPE_F16] = {"f16", 1, 2},
    [MIO_TYPE_Q4_0] = {"q4_0", 32, 18},      [MIO_TYPE_Q4_1] = {"q4_1", 32, 20},
    [MIO_TYPE_Q5_0] = {"q5_0", 32, 22},      [MIO_TYPE_Q5_1] = {"q5_1", 32, 24},
    [MIO_TYPE_Q8_0] = {"q8_0", 32, 34},      [MIO_TYPE_Q8_1] = {"q8_1", 32, 36},
    [MIO_TYPE_Q2_K] = {"q2_K", 256, 84},     [MIO_TYPE_Q3_K] = {"q3_K", 256, 110},
    [MIO_TYPE_Q4_K] = {"q4_K", 256, 144},    [MIO_TYPE_Q5_K] = {"q5_K", 256, 176},
    [MIO_TYPE_Q6_K] = {"q6_K", 256, 210},    [MIO_TYPE_Q8_K] = {"q8_K", 256, 292},
    [MIO_TYPE_IQ2_XXS] = {"iq2_xxs", 256, 66}, [MIO_TYPE_IQ2_XS] = {"iq2_xs", 256, 74},
    [MIO_TYPE_IQ3_XXS] = {"iq3_xxs", 256, 98}, [MIO_TYPE_IQ1_S] = {"iq1_s", 256, 50},
    [MIO_TYPE_IQ4_NL] = {"iq4_nl", 32, 18},  [MIO_TYPE_IQ3_S] = {"iq3_s", 256, 110},
    [MIO_TYPE_IQ2_S] = {"iq2_s", 256, 82},   [MIO_TYPE_IQ4_XS] = {"iq4_xs", 256, 136},
    [MIO_TYPE_I8] = {"i8", 1, 1},            [MIO_TYPE_I16] = {"i16", 1, 2},
    [MIO_TYPE_I32] = {"i32", 1, 4},          [MIO_TYPE_I64] = {"i64", 1, 8},
    [MIO_TYPE_F64] = {"f64", 1, 8},          [MIO_TYPE_IQ1_M] = {"iq1_m", 256, 56},
    [MIO_TYPE_BF16] = {"bf16", 1, 2},        [MIO_TYPE_TQ1_0] = {"tq1_0", 256, 54},
    [MIO_TYPE_TQ2_0] = {"tq2_0", 256, 66},   [MIO_TYPE_MXFP4] = {"mxfp4", 32, 17},
    [MIO_TYPE_NVFP4] = {"nvfp4", 64, 36},    [MIO_TYPE_Q1_0] = {"q1_0", 128, 18},
    [MIO_TYPE_Q2_0] = {"q2_0", 64, 18},
};

/* safetensors dtypes ggml has no code for; sub-byte types as the smallest
 * whole-byte group (F4: 2 per byte, F6: 4 per 3 bytes). */
#define ST_FIRST MIO_TYPE_BOOL
static const type_row g_st_types[] = {
    [MIO_TYPE_BOOL - ST_FIRST] = {"bool", 1, 1},         [MIO_TYPE_F4 - ST_FIRST] = {"f4", 2, 1},
    [MIO_TYPE_F6_E2M3 - ST_FIRST] = {"f6_e2m3", 4, 3},   [MIO_TYPE_F6_E3M2 - ST_FIRST] = {"f6_e3m2", 4, 3},
    [MIO_TYPE_U8 - ST_FIRST] = {"u8", 1, 1},             [MIO_TYPE_F8_E5M2 - ST_FIRST] = {"f8_e5m2", 1, 1},
    [MIO_TYPE_F8_E4M3 - ST_FIRST] = {"f8_e4m3", 1, 1},   [MIO_TYPE_F8_E8M0 - ST_FIRST] = {"f8_e8m0", 1, 1},
    [MIO_TYPE_F8_E4M3FNUZ - ST_FIRST] = {"f8_e4m3fnuz", 1, 1},
    [MIO_TYPE_F8_E5M2FNUZ - ST_FIRST] = {"f8_e5m2fnuz", 1, 1},
    [MIO_TYPE_U16 - ST_FIRST] = {"u16", 1, 2},           [MIO_TYPE_U32 - ST_FIRST] = {"u32", 1, 4},
    [MIO_TYPE_C64 - ST_FIRST] = {"c64", 1, 8},           [MIO_TYPE_U64 - ST_FIRST] = {"u64", 1, 8},
};
#define ST_COUNT (int)(sizeof g_st_types / sizeof g_st_types[0])

static const type_row *row(int type) {
    if (type >= ST_FIRST && type < ST_FIRST + ST_COUNT) return &g_st_types[type - ST_FIRST];
    if (type < 0 || type >= MIO_TYPE_GGML_COUNT || !g_types[type].name) return NULL;
    return &g_types[type];
}

int mio_type_count(void) { return MIO_TYPE_GGML_COUNT; }
const char *mio_type_name(int type) { const type_row *r = row(type); return r ? r->name : NULL; }
int64_t mio_type_block_size(int type) { const type_row *r = row(type); return r ? r->blck : 0; }
size_t mio_type_block_bytes(int type) { const type_row *r = row(type); return r ? r->bytes : 0; }

int mio_type_from_name(const char *name) {
    if (!name) return -1;
    for (int k = 0; k < MIO_TYPE_GGML_COUNT + ST_COUNT; k++) {
        int t = k < MIO_TYPE_GGML_COUNT ? k : ST_FIRST + (k - MIO_TYPE_GGML_COUNT);
        const char *n = row(t) ? row(t)->name : NULL;
        if (!n) continue;
        size_t i = 0;
        while (n[i] && name[i] && tolower((unsigned char)n[i]) == tolower((unsigned char)name[i])) i++;
        if (!n[i] && !name[i]) return t;
    }
    return -1;
}

mio_status mio_type_nbytes(int type, uint32_t n_dims, const int64_t *ne, uint64_t *out) {
    const type_row *r = row(type);
    if (!r) return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "unknown ggml type code %d", type);
    if (n_dims < 1 || n_dims > 4) return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "n_dims %u is not in 1..4", n_dims);
    if (!ne) return mio_err_set(MIO_ERR_INVALID_ARG, "ne is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    uint64_t n = 1;
    for (uint32_t d = 0; d < n_dims; d++) {
        if (ne[d] < 0) return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "dimension %u is negative (%lld)", d, (long long)ne[d]);
        if (!ck_mul(n, (uint64_t)ne[d], &n) || n > (uint64_t)INT64_MAX)
            return mio_err_set(MIO_ERR_OVERFLOW, "element count overflows at dimension %u (%lld)", d, (long long)ne[d]);
    }
    if (ne[0] % r->blck != 0)
        return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "row length %lld is not a multiple of the %s block size %lld",
                           (long long)ne[0], r->name, (long long)r->blck);
    uint64_t bytes;
    if (!ck_mul(n / (uint64_t)r->blck, r->bytes, &bytes))
        return mio_err_set(MIO_ERR_OVERFLOW, "byte size overflows (%llu elements of %s)", (unsigned long long)n, r->name);
    *out = bytes;
    return MIO_OK;
}
/* the 0.1 name, deprecated (removed in 1.0) */
mio_status mio_tensor_nbytes(int type, uint32_t n_dims, const int64_t *ne, uint64_t *out) {
    return mio_type_nbytes(type, n_dims, ne, out);
}
