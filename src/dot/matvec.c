/* SPDX-License-Identifier: MIT */
/* matvec.c — mio_vec_dot_type, mio_vec_dot, mio_matvec, mio_matmul: argument
 * checks, the kernel table, activation quantization (the library's byte-exact
 * encoders: q8_0 / q8_1 / q8_K, or the f16 / bf16 casts) and the row split
 * over the persistent workers of core/pool.h. Rows are split in contiguous
 * ranges; every output element is computed by one kernel call whose arithmetic
 * does not depend on the split, so results are identical for every thread
 * count. */
#include "core/core.h"
#include "core/pool.h"
#include "dot/dot_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_TYPES MIO_TYPE_GGML_COUNT
#define MAX_THREADS 256

static dot_kernel g_tab[N_TYPES];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void tab_init(void) {
    mio_dot_register_float(g_tab);
    mio_dot_register_legacy(g_tab);
    mio_dot_register_kquants(g_tab);
    /* the level core/cpu.c chose: its kernels replace the portable ones (a
     * refused MIO_ISA gives the portable table; every call fails in resolve()) */
    const mio_kernels *kt = mio_kernels_table();
    for (int t = 0; t < N_TYPES; t++)
        if (g_tab[t].fn && kt->dot[t]) g_tab[t].fn = kt->dot[t];
}

const dot_kernel *mio_dot_kernel_get(int wtype) {
    if (wtype < 0 || wtype >= N_TYPES) return NULL;
    pthread_once(&g_once, tab_init);
    return g_tab[wtype].fn ? &g_tab[wtype] : NULL;
}

int mio_vec_dot_type(int wtype) {
    const dot_kernel *k = mio_dot_kernel_get(wtype);
    return k ? k->atype : -1;
}

mio_status mio_dot_resolve(const char *fn, int wtype, uint64_t n, const dot_kernel **k, uint64_t *nb, uint64_t *w_bytes,
                          uint64_t *a_bytes) {
    const char *name = wtype >= 0 && wtype < N_TYPES ? mio_type_name(wtype) : NULL;
    if (!name || mio_type_block_size(wtype) <= 0) return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: unknown weight type code %d", fn, wtype);
    *k = mio_dot_kernel_get(wtype);
    const mio_kernels *kt;
    mio_status st = mio_kernels_get(&kt); /* a refused MIO_ISA: every call says so */
    if (st) return mio_err_prefix(st, "%s", fn);
    if (!*k)
        return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE,
                           "%s: no dot-product kernel for weight type %s (%d); see mio_vec_dot_type", fn, name, wtype);
    uint64_t blk = (uint64_t)mio_type_block_size(wtype);
    if (n % blk)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: %s row length %llu is not a multiple of the block size %llu", fn,
                           name, (unsigned long long)n, (unsigned long long)blk);
    *nb = n / blk;
    if (!ck_mul(*nb, mio_type_block_bytes(wtype), w_bytes) ||
        !ck_mul(*nb, mio_type_block_bytes((*k)->atype), a_bytes) || *w_bytes > SIZE_MAX || *a_bytes > SIZE_MAX)
        return mio_err_set(MIO_ERR_OVERFLOW, "%s: a %s row of %llu elements overflows the address space", fn, name,
                           (unsigned long long)n);
    return MIO_OK;
}

mio_status mio_vec_dot(int wtype, size_t n, const void *w_row, const void *act_row, float *out) {
    if (!w_row) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_vec_dot: w_row is NULL");
    if (!act_row) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_vec_dot: act_row is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "mio_vec_dot: out is NULL");
    const dot_kernel *k = NULL;
    uint64_t nb = 0, wb = 0, ab = 0;
    mio_status st = mio_dot_resolve("mio_vec_dot", wtype, n, &k, &nb, &wb, &ab);
    if (st) return st;
    float r;
    k->fn((const uint8_t *)w_row, (size_t)nb, (const uint8_t *)act_row, (size_t)ab, 1, &r);
    *out = r;
    return MIO_OK;
}

/* --- threads: part p computes rows [r0, r1) of W for all m activation rows --- */
typedef struct mm_job {
    const dot_kernel *k;
    kern_dotx_fn fx;   /* non-NULL: the kernel taking the activation scales as floats, ad */
    const float *ad;
    size_t ads;
    const uint8_t *w, *act;
    size_t nb, w_row_bytes, a_row_bytes, rows, m, nparts;
    float *y, *scratch; /* scratch: m floats per part, parts sstride floats apart */
    size_t sstride;     /* m rounded up to a cache line: the kernels write their
                           accumulators there, and parts sharing a line would
                           make the cores fight over it (2 threads ran a 4096²
                           matvec 0.8-1.1x as fast as one) */
} mm_job;

static void mm_part(void *arg, int part) {
    const mm_job *j = arg;
    size_t p = (size_t)part, per = j->rows / j->nparts, extra = j->rows % j->nparts;
    size_t r0 = p * per + (p < extra ? p : extra), r1 = r0 + per + (p < extra);
    float *scratch = j->scratch + p * j->sstride;
    for (size_t r = r0; r < r1; r++) {
        if (j->fx) j->fx(j->w + r * j->w_row_bytes, j->nb, j->act, j->a_row_bytes, j->ad, j->ads, j->m, scratch);
        else j->k->fn(j->w + r * j->w_row_bytes, j->nb, j->act, j->a_row_bytes, j->m, scratch);
        for (size_t i = 0; i < j->m; i++) j->y[i * j->rows + r] = scratch[i];
    }
}

int mio_dot_threads(int n_threads, size_t parts) {
    if (n_threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = n > 0 ? (int)n : 1;
    }
    if (n_threads > MAX_THREADS) n_threads = MAX_THREADS;
    if ((size_t)n_threads > parts) n_threads = (int)(parts ? parts : 1);
    return n_threads;
}

mio_status mio_dot_matmul(const char *fn, int wtype, const void *w, size_t rows, size_t cols, const float *x, size_t m,
                         float *y, int n_threads) {
    if (!w) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: w is NULL", fn);
    if (!x) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: x is NULL", fn);
    if (!y) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: y is NULL", fn);
    const dot_kernel *k = NULL;
    uint64_t nb = 0, wb = 0, ab = 0, t = 0;
    mio_status st = mio_dot_resolve(fn, wtype, cols, &k, &nb, &wb, &ab);
    if (st) return st;
    if (!ck_mul(wb, rows, &t) || t > SIZE_MAX || !ck_mul(ab, m, &t) || t > SIZE_MAX || !ck_mul(cols, m, &t) ||
        !ck_mul(t, sizeof(float), &t) || t > SIZE_MAX || !ck_mul(rows, m, &t) || !ck_mul(t, sizeof(float), &t) ||
        t > SIZE_MAX)
        return mio_err_set(MIO_ERR_OVERFLOW, "%s: %zu x %zu weights with %zu activation rows overflow the address space",
                           fn, rows, cols, m);
    if (rows == 0 || m == 0) return MIO_OK;

    /* Activations in the dot type: f32 weights use x as it is. */
    const uint8_t *act = (const uint8_t *)x;
    void *abuf = NULL;
    if (k->atype != MIO_TYPE_F32) {
        abuf = malloc(ab * m != 0 ? (size_t)(ab * m) : 1);
        if (!abuf) return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for %zu quantized activation rows", fn, m);
        st = mio_encode_f32(k->atype, x, cols * m, abuf, (size_t)(ab * m));
        if (st) {
            free(abuf);
            return mio_err_prefix(st, "%s: quantizing x to %s", fn, mio_type_name(k->atype));
        }
        act = abuf;
    }

    /* q8_0 / q8_1 / q8_K activations: their block scales (and q8_1's s) as floats;
     * f16 / bf16 ones: their values as floats; once per call, for a back end
     * with a kern_dotx_fn (kernels/kernels.h) */
    kern_dotx_fn fx = NULL;
    float *ad = NULL;
    size_t ads = 0;
    const mio_kernels *kt = mio_kernels_table();
    if ((k->atype == MIO_TYPE_F16 || k->atype == MIO_TYPE_BF16) && (fx = kt->dotx[wtype]) != NULL) {
        ads = (size_t)nb; /* elements */
        ad = malloc(sizeof(float) * ads * m);
        if (!ad) {
            free(abuf);
            return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for %zu activation rows as floats", fn, m);
        }
        if (k->atype == MIO_TYPE_F16) kt->f16_to_f32(act, ad, (int64_t)(ads * m));
        else kt->bf16_to_f32(act, ad, (int64_t)(ads * m));
    } else if ((k->atype == MIO_TYPE_Q8_0 || k->atype == MIO_TYPE_Q8_1 || k->atype == MIO_TYPE_Q8_K) &&
               (fx = kt->dotx[wtype]) != NULL) {
        const int q81 = k->atype == MIO_TYPE_Q8_1, q8k = k->atype == MIO_TYPE_Q8_K;
        const size_t abk = q8k ? 292 : q81 ? 36 : 34;
        ads = (size_t)nb * (q81 ? 2 : 1);
        ad = malloc(sizeof(float) * ads * m);
        if (!ad) {
            free(abuf);
            return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for %zu activation rows' scales", fn, m);
        }
        for (size_t i = 0; i < m; i++)
            for (size_t b = 0; b < (size_t)nb; b++) {
                const uint8_t *blk = act + i * (size_t)ab + b * abk;
                if (q8k) memcpy(&ad[i * ads + b], blk, 4); /* q8_K's d is an f32 */
                else ad[i * ads + b] = dot_f16p(blk);
                if (q81) ad[i * ads + (size_t)nb + b] = dot_f16p(blk + 2);
            }
    }

    n_threads = mio_dot_threads(n_threads, rows);
    const size_t sstride = (m + 15) / 16 * 16; /* 64 bytes */
    float *scratch = aligned_alloc(64, sizeof(float) * sstride * (size_t)n_threads);
    if (!scratch) {
        free(abuf), free(ad);
        return mio_err_set(MIO_ERR_NOMEM, "%s: no memory for %d x %zu accumulators", fn, n_threads, m);
    }
    mm_job job = {k, fx, ad, ads, (const uint8_t *)w, act, (size_t)nb, (size_t)wb, (size_t)ab, rows, m,
                  (size_t)n_threads, y, scratch, sstride};
    mio_pool_run(mm_part, &job, n_threads);
    free(scratch);
    free(abuf), free(ad);
    return MIO_OK;
}

mio_status mio_matvec(int wtype, const void *w, size_t rows, size_t cols, const float *x, float *y, int n_threads) {
    return mio_dot_matmul("mio_matvec", wtype, w, rows, cols, x, 1, y, n_threads);
}

mio_status mio_matmul(int wtype, const void *w, size_t rows, size_t cols, const float *x, size_t m, float *y,
                      int n_threads) {
    return mio_dot_matmul("mio_matmul", wtype, w, rows, cols, x, m, y, n_threads);
}
