/* SPDX-License-Identifier: MIT */
/* packed.c — packed weights (docs/KERNELS.md §8): mio_pack_weights copies a
 * GGUF-layout matrix into the tile layout of kernels/packed_kernels.h when the
 * level's kernel table has a packed kernel for the type, else into a plain copy;
 * mio_packed_matmul quantizes the activations once (mio_matmul's byte-exact
 * q8_0 encoder; activation rows split over the pool), splits them per block
 * for the kernels, and runs the tiles on the pool, each part a contiguous
 * range of tiles. Every output element is
 * computed by one kernel pass whose arithmetic depends neither on m nor on the
 * split, so results are identical for every thread count. */
#include "core/core.h"
#include "core/pool.h"
#include "dot/dot_internal.h"

#include <stdlib.h>
#include <string.h>

struct mio_packed {
    int wtype;
    size_t rows, cols, nb;
    const pk_kernel *k; /* NULL: a plain copy of the GGUF rows */
    size_t tile;        /* packed: rows per tile */
    size_t tile_bytes;  /* packed: bytes of one tile */
    uint8_t *data;
};

/* --- the layouts (kernels/packed_kernels.h) --- */
typedef struct pk_layout {
    size_t wb; /* GGUF block bytes */
    size_t tb; /* bytes of one row's share of a tile-block (a tile-block is T times as many) */
    /* row j of a tile of T rows: its block at src into the tile-block at dst */
    void (*block)(const uint8_t *src, int j, int T, uint8_t *dst);
} pk_layout;

static void blk_q4_0(const uint8_t *src, int j, int T, uint8_t *dst) {
    memcpy(dst + 2 * j, src, 2);
    for (int g = 0; g < 4; g++) memcpy(dst + 2 * T + 4 * T * g + 4 * j, src + 2 + 4 * g, 4);
}
static void blk_q8_0(const uint8_t *src, int j, int T, uint8_t *dst) {
    memcpy(dst + 2 * j, src, 2);
    for (int g = 0; g < 8; g++)
        for (int i = 0; i < 4; i++) dst[2 * T + 4 * T * g + 4 * j + i] = (uint8_t)(src[2 + 4 * g + i] ^ 0x80u);
}
/* q4_K: d, dmin, scales[12] (8 6-bit scale/min pairs), qs[128]; q5_K: qh[32]
 * before qs, kept as 8 vectors ahead of the qs ones */
static void blk_q45_K(const uint8_t *src, int j, int T, uint8_t *dst, int five) {
    memcpy(dst + 2 * j, src, 2);
    memcpy(dst + 2 * T + 2 * j, src + 2, 2);
    const uint8_t *q = src + 4;
    for (int s = 0; s < 8; s++) {
        int sc = s < 4 ? q[s] & 63 : (q[s + 4] & 15) | ((q[s - 4] >> 6) << 4);
        int mn = s < 4 ? q[s + 4] & 63 : (q[s + 4] >> 4) | ((q[s] >> 6) << 4);
        dst[4 * T + T * s + j] = (uint8_t)sc;
        dst[12 * T + T * s + j] = (uint8_t)mn;
    }
    if (five)
        for (int g = 0; g < 8; g++) memcpy(dst + 20 * T + 4 * T * g + 4 * j, src + 16 + 4 * g, 4);
    const int qs = five ? 48 : 16, to = five ? 52 : 20;
    for (int v = 0; v < 32; v++) memcpy(dst + to * T + 4 * T * v + 4 * j, src + qs + 4 * v, 4);
}
static void blk_q4_K(const uint8_t *src, int j, int T, uint8_t *dst) { blk_q45_K(src, j, T, dst, 0); }
static void blk_q5_K(const uint8_t *src, int j, int T, uint8_t *dst) { blk_q45_K(src, j, T, dst, 1); }
/* q6_K: ql[128], qh[64], int8 scales[16], f16 d. Element 128h + 32s + l has
 * the 6-bit code (nibble s / 2 of ql[64h + 32(s % 2) + l]) | (bits 2s..2s+1 of
 * qh[32h + l]) << 4; the tile keeps codes 0 and 2 whole, with the top bits of
 * codes 1 and 3 above them, and the low nibbles of 1 and 3 in a third byte. */
static void blk_q6_K(const uint8_t *src, int j, int T, uint8_t *dst) {
    memcpy(dst + 2 * j, src + 208, 2);
    for (int k = 0; k < 16; k++) dst[2 * T + T * k + j] = src[192 + k];
    for (int h = 0; h < 2; h++)
        for (int g = 0; g < 8; g++) {
            uint8_t *v = dst + 18 * T + 12 * T * (8 * h + g) + 4 * j;
            for (int i = 0; i < 4; i++) {
                int l = 4 * g + i, c[4];
                for (int s4 = 0; s4 < 4; s4++)
                    c[s4] = ((src[64 * h + 32 * (s4 % 2) + l] >> (4 * (s4 / 2))) & 15) |
                            (((src[128 + 32 * h + l] >> (2 * s4)) & 3) << 4);
                v[i] = (uint8_t)(c[0] | (c[1] >> 4) << 6);
                v[4 * T + i] = (uint8_t)(c[2] | (c[3] >> 4) << 6);
                v[8 * T + i] = (uint8_t)((c[1] & 15) | (c[3] & 15) << 4);
            }
        }
}

/* iq4_xs: f16 d, u16 scales_h, scales_l[4], qs[128]; the scales as int8 (the
 * 6-bit value - 32), the qs bytes of sub-block g as 4 vectors */
static void blk_iq4_xs(const uint8_t *src, int j, int T, uint8_t *dst) {
    memcpy(dst + 2 * j, src, 2);
    const unsigned sh = (unsigned)src[2] | (unsigned)src[3] << 8;
    for (int g = 0; g < 8; g++) {
        int v = ((src[4 + g / 2] >> (4 * (g % 2))) & 15) | (int)((sh >> (2 * g)) & 3) << 4;
        dst[2 * T + T * g + j] = (uint8_t)(int8_t)(v - 32);
    }
    for (int v = 0; v < 32; v++) memcpy(dst + 10 * T + 4 * T * v + 4 * j, src + 8 + 4 * v, 4);
}

static const pk_layout *layout_of(int wtype) {
    static const pk_layout q4_0 = {18, 18, blk_q4_0}, q8_0 = {34, 34, blk_q8_0}, q4_K = {144, 148, blk_q4_K},
                           q5_K = {176, 180, blk_q5_K},
                           q6_K = {210, 210, blk_q6_K}, iq4_xs = {136, 138, blk_iq4_xs};
    switch (wtype) {
    case MIO_TYPE_Q4_0: return &q4_0;
    case MIO_TYPE_Q8_0: return &q8_0;
    case MIO_TYPE_IQ4_NL: return &q4_0; /* the same bytes: the kernels look the nibbles up */
    case MIO_TYPE_Q4_K: return &q4_K;
    case MIO_TYPE_Q5_K: return &q5_K;
    case MIO_TYPE_Q6_K: return &q6_K;
    case MIO_TYPE_IQ4_XS: return &iq4_xs;
    default: return NULL;
    }
}

static size_t ntiles_of(size_t rows, size_t T) { return rows / T + (rows % T != 0); }

mio_status mio_pack_weights(int wtype, const void *w, size_t rows, size_t cols, mio_packed **out) {
    static const char fn[] = "mio_pack_weights";
    if (out) *out = NULL;
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: w is NULL", fn);
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: out is NULL", fn);
    const dot_kernel *dk = NULL;
    uint64_t nb = 0, wb = 0, ab = 0, total = 0;
    mio_status st = mio_dot_resolve(fn, wtype, cols, &dk, &nb, &wb, &ab);
    if (st) return st;
    const mio_kernels *kt = mio_kernels_table();
    const pk_kernel *pk = kt->packed[wtype].fn ? &kt->packed[wtype] : NULL;
    const pk_layout *lay = pk && pk->tile > 0 && pk->tile <= PK_TILE_MAX ? layout_of(wtype) : NULL;
    size_t T = lay ? (size_t)pk->tile : 0;
    uint64_t tile_bytes = 0;
    if (lay) {
        if (!ck_mul(nb, lay->tb * T, &tile_bytes) || !ck_mul(tile_bytes, ntiles_of(rows, T), &total))
            total = UINT64_MAX;
    } else if (!ck_mul(wb, rows, &total)) {
        total = UINT64_MAX;
    }
    if (total > SIZE_MAX - 64)
        return mio_err_set(MIO_ERR_OVERFLOW, "%s: %zu x %zu %s weights overflow the address space", fn, rows, cols,
                           mio_type_name(wtype));
    mio_packed *p = calloc(1, sizeof *p);
    size_t alloc = ((size_t)total + 63) / 64 * 64;
    uint8_t *data = aligned_alloc(64, alloc ? alloc : 64);
    if (!p || !data) {
        free(p);
        free(data);
        return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for %zu bytes of packed %s weights", fn, (size_t)total,
                           mio_type_name(wtype));
    }
    *p = (mio_packed){wtype, rows, cols, (size_t)nb, lay ? pk : NULL, T, (size_t)tile_bytes, NULL};
    p->data = data;
    const uint8_t *src = w;
    if (!lay) {
        if (total) memcpy(data, src, (size_t)total);
    } else {
        memset(data, 0, alloc); /* padding rows of the last tile: zero scales */
        for (size_t r = 0; r < rows; r++) {
            uint8_t *tile = data + (r / T) * (size_t)tile_bytes;
            const uint8_t *row = src + r * (size_t)wb;
            for (size_t b = 0; b < nb; b++) lay->block(row + b * lay->wb, (int)(r % T), (int)T, tile + b * lay->tb * T);
        }
    }
    *out = p;
    return MIO_OK;
}

const char *mio_packed_layout(const mio_packed *p) {
    if (!p) return NULL;
    return p->k ? p->k->name : "copy";
}

void mio_packed_free(mio_packed *p) {
    if (!p) return;
    free(p->data);
    free(p);
}

/* --- the multiplication --- */
/* The activations: rows of x in q8_0 or q8_K wire blocks (wq), then split per
 * block into codes q, scales d and offset words s (kernels/packed_kernels.h).
 * The rows are independent: the pool does them in parts too. */
typedef struct pk_prep {
    const mio_packed *p;
    const float *x;
    size_t m, nparts;
    int atype;
    size_t qk, ab, ns; /* elements, wire bytes and offset words of an activation block */
    size_t nb;         /* activation blocks per row */
    uint8_t *wq;
    int8_t *q;
    float *d;
    int32_t *s;
    int failed; /* a part's encoder refused its rows (non-finite x) */
} pk_prep;

static void prep_part(void *arg, int part) {
    pk_prep *j = arg;
    const mio_packed *p = j->p;
    size_t q = (size_t)part, per = j->m / j->nparts, extra = j->m % j->nparts;
    size_t i0 = q * per + (q < extra ? q : extra), i1 = i0 + per + (q < extra);
    size_t b0 = i0 * j->nb, b1 = i1 * j->nb;
    if (mio_encode_f32(j->atype, j->x + i0 * p->cols, (i1 - i0) * p->cols, j->wq + b0 * j->ab, (b1 - b0) * j->ab)) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    const int32_t mul = -p->k->act_sum_mul;
    for (size_t b = b0; b < b1; b++) {
        const uint8_t *blk = j->wq + b * j->ab;
        int8_t *qb = j->q + b * j->qk;
        if (j->atype == MIO_TYPE_Q8_K) { /* f32 d, 256 codes, 16 int16 sums = 8 words */
            memcpy(qb, blk + 4, 256);
            j->d[b] = dot_ldf(blk);
            memcpy(j->s + b * 8, blk + 260, 32);
        } else { /* f16 d, 32 codes */
            memcpy(qb, blk + 2, 32);
            int32_t sum = 0;
            for (int i = 0; i < 32; i++) sum += qb[i];
            j->d[b] = dot_f16p(blk);
            j->s[b] = mul * sum;
        }
    }
}

typedef struct pk_job {
    const mio_packed *p;
    const pk_act *a;
    size_t m, ntiles, nparts;
    float *y;
} pk_job;

static void pk_part(void *arg, int part) {
    const pk_job *j = arg;
    size_t q = (size_t)part, per = j->ntiles / j->nparts, extra = j->ntiles % j->nparts;
    size_t t0 = q * per + (q < extra ? q : extra), t1 = t0 + per + (q < extra);
    const mio_packed *p = j->p;
    p->k->fn(p->data, p->tile_bytes, t0, t1, p->nb, j->a, j->m, j->y, p->rows, p->rows);
}

mio_status mio_packed_matmul(const mio_packed *p, const float *x, size_t m, float *y, int n_threads) {
    static const char fn[] = "mio_packed_matmul";
    if (!p) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: p is NULL", fn);
    if (!p->k) return mio_dot_matmul(fn, p->wtype, p->data, p->rows, p->cols, x, m, y, n_threads);
    if (!x) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: x is NULL", fn);
    if (!y) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: y is NULL", fn);
    const int k8 = p->k->atype == MIO_TYPE_Q8_K;
    pk_prep prep = {p, x, m, 0, k8 ? MIO_TYPE_Q8_K : MIO_TYPE_Q8_0, k8 ? 256 : 32, k8 ? 292 : 34, k8 ? 8 : 1,
                    p->cols / (k8 ? 256 : 32), NULL, NULL, NULL, NULL, 0};
    /* the activation buffers: per block the wire bytes, the codes, d and the offset words */
    const size_t per_blk = prep.ab + prep.qk + sizeof(float) + sizeof(int32_t) * prep.ns;
    uint64_t t = 0, wire = 0;
    if (!ck_mul(p->cols, m, &t) || !ck_mul(t, sizeof(float), &t) || t > SIZE_MAX || !ck_mul(p->rows, m, &t) ||
        !ck_mul(t, sizeof(float), &t) || t > SIZE_MAX || !ck_mul(prep.nb, m, &t) || !ck_mul(t, per_blk, &wire) ||
        wire > SIZE_MAX)
        return mio_err_set(MIO_ERR_OVERFLOW, "%s: %zu activation rows of %zu overflow the address space", fn, m,
                           p->cols);
    if (p->rows == 0 || m == 0) return MIO_OK;

    size_t nbm = prep.nb * m;
    uint8_t *buf = malloc(nbm * (prep.ab + prep.qk)); /* the wire blocks, then the codes */
    float *d = malloc(nbm * sizeof(float));
    int32_t *s = malloc(nbm * prep.ns * sizeof(int32_t));
    if (!buf || !d || !s) {
        free(buf), free(d), free(s);
        return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for %zu quantized activation rows", fn, m);
    }
    prep.wq = buf, prep.q = (int8_t *)(buf + nbm * prep.ab), prep.d = d, prep.s = s;
    prep.nparts = (size_t)mio_dot_threads(n_threads, m);
    mio_pool_run(prep_part, &prep, (int)prep.nparts);
    if (prep.failed) { /* again in this thread, for the encoder's message */
        mio_status st = mio_encode_f32(prep.atype, x, p->cols * m, prep.wq, nbm * prep.ab);
        free(buf), free(d), free(s);
        return mio_err_prefix(st ? st : MIO_ERR_INVALID_ARG, "%s: quantizing x to %s", fn, mio_type_name(prep.atype));
    }
    pk_act act = {prep.q, prep.d, prep.s, prep.nb * prep.qk, prep.nb, prep.nb * prep.ns};
    size_t ntiles = ntiles_of(p->rows, p->tile);
    int nt = mio_dot_threads(n_threads, ntiles);
    pk_job job = {p, &act, m, ntiles, (size_t)nt, y};
    mio_pool_run(pk_part, &job, nt);
    free(buf), free(d), free(s);
    return MIO_OK;
}
