/* SPDX-License-Identifier: MIT */
/* test_concurrency.c — the library used from many threads at once, as real
 * programs do (README "Threads"). Every check compares with the result of the
 * same work done on one thread. Run in the normal suite, and in the
 * ThreadSanitizer build (scripts/test.sh), where a data race is a failure:
 *  1. first use from 8 threads released together: the ISA choice, the codec and
 *     kernel tables, the dot table and the worker pool are built under
 *     pthread_once — every thread sees the same, complete tables;
 *  2. one opened GGUF read from 8 threads: metadata, tensor views, decoding;
 *  3. encoding and decoding with threads (the _mt calls) from 4 threads;
 *  4. writers and safetensors savers on different files from 6 threads, each
 *     file read back and compared;
 *  5. mio_matvec with 2 workers from 4 threads (the pool serializes jobs);
 *  6. mio_last_error is per thread: a failure in one thread is not seen in
 *     another. */
#include "modelio.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define NT 8

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
static void fill(float *x, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) x[i] = (float)((double)(rng_next(&seed) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

/* ------------------------------------------------------------------ 1. first use */
static pthread_barrier_t g_bar;
enum { FN = 4096 };
static float g_x[FN];
typedef struct first {
    const char *isa;
    uint8_t enc[FN / 256 * 144];
    float dec[FN];
    float mv[16];
    int dot_type;
} first;

static void *first_use(void *arg) {
    first *r = arg;
    pthread_barrier_wait(&g_bar);
    r->isa = mio_cpu_isa();
    r->dot_type = mio_vec_dot_type(MIO_TYPE_Q4_K);
    if (mio_encode_f32(MIO_TYPE_Q4_K, g_x, FN, r->enc, sizeof r->enc)) r->isa = NULL;
    if (mio_decode_f32(MIO_TYPE_Q4_K, r->enc, sizeof r->enc, r->dec, FN)) r->isa = NULL;
    if (mio_matvec(MIO_TYPE_Q4_K, r->enc, 16, 256, g_x, r->mv, 2)) r->isa = NULL;
    return NULL;
}

static void test_first_use(void) {
    static first res[NT];
    pthread_t th[NT];
    fill(g_x, FN, 1);
    pthread_barrier_init(&g_bar, NULL, NT);
    for (int i = 0; i < NT; i++) T_CHECK(pthread_create(&th[i], NULL, first_use, &res[i]) == 0);
    for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_bar);
    for (int i = 0; i < NT; i++) {
        T_CHECK(res[i].isa != NULL);
        T_EQ_STR(res[i].isa, res[0].isa);
        T_EQ_INT(res[i].dot_type, MIO_TYPE_Q8_K);
        T_CHECK(memcmp(res[i].enc, res[0].enc, sizeof res[0].enc) == 0);
        T_CHECK(memcmp(res[i].dec, res[0].dec, sizeof res[0].dec) == 0);
        T_CHECK(memcmp(res[i].mv, res[0].mv, sizeof res[0].mv) == 0);
    }
    /* and the same as now, single-threaded */
    first one;
    pthread_barrier_init(&g_bar, NULL, 1);
    first_use(&one);
    pthread_barrier_destroy(&g_bar);
    T_CHECK(memcmp(one.enc, res[0].enc, sizeof one.enc) == 0);
    T_CHECK(memcmp(one.mv, res[0].mv, sizeof one.mv) == 0);
}

/* ------------------------------------------------------------------ 2. one file, many readers */
typedef struct reader {
    const mio_gguf_file *f;
    uint64_t sum; /* a digest of everything read */
} reader;

static uint64_t mix(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static void *read_all(void *arg) {
    reader *r = arg;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < mio_gguf_kv_count(r->f); i++) {
        mio_str k = mio_gguf_kv_key(r->f, i);
        h = mix(h, k.ptr, k.len);
        mio_gguf_value v;
        if (mio_gguf_kv_value(r->f, i, &v) == MIO_OK) h = mix(h, v.data, v.size > 4096 ? 4096 : v.size);
        mio_str s;
        if (mio_gguf_kv_str(r->f, i, &s) == MIO_OK) h = mix(h, s.ptr, s.len);
    }
    for (int64_t i = 0; i < mio_gguf_tensor_count(r->f); i++) {
        mio_gguf_tensor t;
        if (mio_gguf_tensor_info(r->f, i, &t) != MIO_OK) continue;
        h = mix(h, t.name.ptr, t.name.len);
        size_t n = 1;
        for (uint32_t d = 0; d < t.n_dims; d++) n *= (size_t)t.ne[d];
        if (n <= (1u << 20) && mio_type_can_decode(t.type)) {
            float *y = malloc(sizeof(float) * n + 1);
            if (y && mio_decode_f32(t.type, t.data, (size_t)t.nbytes, y, n) == MIO_OK) h = mix(h, y, sizeof(float) * n);
            free(y);
        }
    }
    r->sum = h;
    return NULL;
}

static void test_shared_file(void) {
    mio_gguf_file *f;
    mio_status st = mio_gguf_open(MIO_TEST_DATA "/vocab-llama-spm.gguf", 0, &f);
    T_OK(st);
    if (st) return;
    reader one = {f, 0}, rs[NT];
    read_all(&one);
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        rs[i] = (reader){f, 0};
        T_CHECK(pthread_create(&th[i], NULL, read_all, &rs[i]) == 0);
    }
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        T_EQ_U64(rs[i].sum, one.sum);
    }
    mio_gguf_close(f);
}

/* ------------------------------------------------------------------ 3. _mt codecs from many threads */
enum { MN = 256 * 64 };
static float g_mx[MN];
static uint8_t g_menc[MN / 256 * 210];
typedef struct mtjob {
    int ok;
} mtjob;

static void *mt_run(void *arg) {
    mtjob *j = arg;
    uint8_t *enc = malloc(sizeof g_menc);
    float *dec = malloc(sizeof(float) * MN), *ref = malloc(sizeof(float) * MN);
    j->ok = enc && dec && ref;
    for (int it = 0; j->ok && it < 3; it++) {
        if (mio_encode_f32_mt(MIO_TYPE_Q6_K, g_mx, MN, enc, sizeof g_menc, 3) || memcmp(enc, g_menc, sizeof g_menc))
            j->ok = 0;
        if (mio_decode_f32(MIO_TYPE_Q6_K, enc, sizeof g_menc, ref, MN) ||
            mio_decode_f32_mt(MIO_TYPE_Q6_K, enc, sizeof g_menc, dec, MN, 3) || memcmp(dec, ref, sizeof(float) * MN))
            j->ok = 0;
    }
    free(enc), free(dec), free(ref);
    return NULL;
}

static void test_mt_codecs(void) {
    fill(g_mx, MN, 3);
    T_OK(mio_encode_f32(MIO_TYPE_Q6_K, g_mx, MN, g_menc, sizeof g_menc));
    pthread_t th[4];
    mtjob js[4];
    for (int i = 0; i < 4; i++) T_CHECK(pthread_create(&th[i], NULL, mt_run, &js[i]) == 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        T_EQ_INT(js[i].ok, 1);
    }
}

/* ------------------------------------------------------------------ 4. writers on different files */
static char g_dir[64];
typedef struct wjob {
    int id, ok;
} wjob;

static void *write_run(void *arg) {
    wjob *j = arg;
    char gpath[128], spath[128];
    snprintf(gpath, sizeof gpath, "%s/w%d.gguf", g_dir, j->id);
    snprintf(spath, sizeof spath, "%s/s%d.safetensors", g_dir, j->id);
    float v[64];
    for (int i = 0; i < 64; i++) v[i] = (float)(j->id * 100 + i);
    j->ok = 1;
    for (int it = 0; it < 5; it++) {
        mio_writer *w;
        if (mio_writer_new(0, &w)) { j->ok = 0; break; }
        int64_t ne[2] = {16, 4};
        char name[32];
        snprintf(name, sizeof name, "t%d", j->id);
        if (mio_writer_set_u32(w, "test.id", (uint32_t)j->id) || mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne, v, sizeof v) ||
            mio_writer_write_file(w, gpath))
            j->ok = 0;
        mio_writer_free(w);
        uint64_t shape[1] = {64};
        mio_st_entry e = {name, MIO_ST_F32, 1, shape, v, sizeof v};
        if (mio_st_save_file(spath, &e, 1, NULL, 0)) j->ok = 0;
        /* read both back */
        mio_gguf_file *f;
        if (mio_gguf_open(gpath, 0, &f) == MIO_OK) {
            mio_gguf_tensor t;
            if (mio_gguf_tensor_info(f, 0, &t) || t.nbytes != sizeof v || memcmp(t.data, v, sizeof v)) j->ok = 0;
            mio_gguf_close(f);
        } else j->ok = 0;
        mio_st_file *s;
        if (mio_st_open(spath, 0, &s) == MIO_OK) {
            mio_st_tensor t;
            if (mio_st_tensor_info(s, 0, &t) || t.nbytes != sizeof v || memcmp(t.data, v, sizeof v)) j->ok = 0;
            mio_st_close(s);
        } else j->ok = 0;
    }
    unlink(gpath);
    unlink(spath);
    return NULL;
}

static void test_writers(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/mio-conc-XXXXXX");
    T_CHECK(mkdtemp(g_dir) != NULL);
    pthread_t th[6];
    wjob js[6];
    for (int i = 0; i < 6; i++) {
        js[i] = (wjob){i, 0};
        T_CHECK(pthread_create(&th[i], NULL, write_run, &js[i]) == 0);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        T_EQ_INT(js[i].ok, 1);
    }
    T_EQ_INT(rmdir(g_dir), 0); /* nothing left behind: no temp files */
}

/* ------------------------------------------------------------------ 5. the pool from many threads */
static uint8_t g_w[64 * 144];
static float g_y0[64];
static void *mv_run(void *arg) {
    int *ok = arg;
    float y[64];
    *ok = 1;
    for (int it = 0; it < 30; it++)
        if (mio_matvec(MIO_TYPE_Q4_K, g_w, 64, 256, g_x, y, 2) || memcmp(y, g_y0, sizeof y)) *ok = 0;
    return NULL;
}

static void test_pool(void) {
    float wf[64 * 256];
    fill(wf, 64 * 256, 9);
    T_OK(mio_encode_f32(MIO_TYPE_Q4_K, wf, 64 * 256, g_w, sizeof g_w));
    T_OK(mio_matvec(MIO_TYPE_Q4_K, g_w, 64, 256, g_x, g_y0, 1));
    pthread_t th[4];
    int ok[4];
    for (int i = 0; i < 4; i++) T_CHECK(pthread_create(&th[i], NULL, mv_run, &ok[i]) == 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        T_EQ_INT(ok[i], 1);
    }
}

/* ------------------------------------------------------------------ 6. per-thread errors */
static atomic_int g_step;
static void *err_other(void *arg) {
    char *seen = arg;
    while (atomic_load(&g_step) < 1) usleep(100);
    snprintf(seen, 256, "%s", mio_last_error()); /* after the main thread failed */
    atomic_store(&g_step, 2);
    return NULL;
}

static void test_errors(void) {
    static char seen[256];
    pthread_t th;
    T_CHECK(pthread_create(&th, NULL, err_other, seen) == 0);
    float y;
    T_STATUS(mio_matvec(MIO_TYPE_Q4_K, g_w, 1, 100, g_x, &y, 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("row length 100");
    atomic_store(&g_step, 1);
    pthread_join(th, NULL);
    T_CHECK(strstr(seen, "row length 100") == NULL);
    T_MSG_HAS("row length 100"); /* ours is still there */
}

int main(void) {
    test_first_use(); /* first: the tables are built here, by 8 threads at once */
    test_shared_file();
    test_mt_codecs();
    test_writers();
    test_pool();
    test_errors();
    T_DONE();
}
