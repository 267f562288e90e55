/* SPDX-License-Identifier: MIT */
/* test_st_threads.c — the save functions are reentrant (README): four threads
 * each run many mio_st_save_sharded calls at once, into their own directories,
 * with tensor name sets of different sizes; every index written must list
 * exactly that thread's names, sorted, each mapped to the shard the split puts
 * it in, and must reopen with the right shard and data byte for every tensor.
 * (Issue 7 item 6: the index sort went through an unlocked global, so threads
 * sorted with each other's name arrays — a heap-buffer-overflow under ASan and
 * unsorted or wrong weight_maps without it.) */
#include "st_util.h"

#include <pthread.h>

#define N_THREADS 4
#define N_SAVES 30
#define PER_SHARD 700 /* 1-byte tensors, max_shard_bytes 700: 700 tensors a shard */

typedef struct job {
    int k;          /* thread number */
    int n;          /* tensors: 1000 + 300 k (2 shards for k = 0, 3 for k = 3) */
    int fails;      /* checks that failed in this thread */
    char first_fail[512];
} job;

static void job_fail(job *j, const char *fmt, const char *a, long long b) {
    if (!j->fails++) snprintf(j->first_fail, sizeof j->first_fail, fmt, a, b);
}

/* Entry j is named t<k>.w<m> with m = n-1-j: the given order is the reverse of
 * the sorted one, so an index written unsorted cannot pass. Its shard (1-based)
 * is j / 700 + 1; its one data byte is j & 0xff. */
static void check_index(job *jb, const char *dir, int ns) {
    char p[400];
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    size_t len = 0;
    uint8_t *b = t_read_file(p, &len);
    if (!b) { job_fail(jb, "cannot read %s%lld", p, 0); return; }
    b[len] = 0;
    const char *s = strstr((const char *)b, "\"weight_map\": {\n");
    if (!s) { job_fail(jb, "%s: no weight_map (%lld)", p, 0); free(b); return; }
    s += strlen("\"weight_map\": {\n");
    for (int m = 0; m < jb->n; m++) {
        /* line m of the map: '    "t<k>.w<mmmm>": "model-0000S-of-0000N.safetensors",' */
        int j = jb->n - 1 - m;
        char want[128];
        snprintf(want, sizeof want, "    \"t%d.w%04d\": \"model-%05d-of-%05d.safetensors\"%s\n", jb->k, m, j / PER_SHARD + 1, ns,
                 m + 1 < jb->n ? "," : "");
        size_t wl = strlen(want);
        if (strncmp(s, want, wl) != 0) {
            char got[128];
            snprintf(got, sizeof got, "%.*s", (int)strcspn(s, "\n"), s);
            job_fail(jb, "weight_map line differs: got '%s' at sorted position %lld", got, m);
            break;
        }
        s += wl;
    }
    if (!jb->fails && strcmp(s, "  }\n}\n") != 0) job_fail(jb, "weight_map has more lines: '%.60s' (%lld)", s, 0);
    free(b);

    mio_st_file *f = NULL;
    if (mio_st_open(p, 0, &f) != MIO_OK) { job_fail(jb, "reopen: %s (%lld)", mio_last_error(), 0); return; }
    if (mio_st_tensor_count(f) != jb->n) job_fail(jb, "reopen: %s%lld tensors", "", mio_st_tensor_count(f));
    for (int j = 0; j < jb->n && !jb->fails; j++) {
        char name[32];
        snprintf(name, sizeof name, "t%d.w%04d", jb->k, jb->n - 1 - j);
        mio_st_tensor t;
        int64_t i = mio_st_find_tensor(f, name);
        if (i < 0 || mio_st_tensor_info(f, i, &t) != MIO_OK) { job_fail(jb, "reopen: no tensor %s (%lld)", name, i); break; }
        if (t.shard != (uint32_t)(j / PER_SHARD)) job_fail(jb, "reopen: %s is in shard index %lld", name, t.shard);
        if (t.nbytes != 1 || ((const uint8_t *)t.data)[0] != (uint8_t)j)
            job_fail(jb, "reopen: %s holds a wrong byte (%lld)", name, t.nbytes ? ((const uint8_t *)t.data)[0] : -1);
    }
    mio_st_close(f);
}

static void *run(void *arg) {
    job *jb = arg;
    int n = jb->n;
    static const uint64_t one[] = {1};
    mio_st_entry *e = calloc((size_t)n, sizeof *e);
    char (*names)[32] = calloc((size_t)n, sizeof *names);
    uint8_t *data = malloc((size_t)n);
    if (!e || !names || !data) abort();
    for (int j = 0; j < n; j++) {
        snprintf(names[j], sizeof names[j], "t%d.w%04d", jb->k, n - 1 - j);
        data[j] = (uint8_t)j;
        e[j] = (mio_st_entry){names[j], MIO_ST_U8, 1, one, &data[j], 1};
    }
    int want_ns = (n + PER_SHARD - 1) / PER_SHARD;
    char dir[64];
    snprintf(dir, sizeof dir, "./st_threads-%d-XXXXXX", jb->k);
    if (!mkdtemp(dir)) abort();
    for (int r = 0; r < N_SAVES && !jb->fails; r++) {
        uint32_t ns = 0;
        mio_status st = mio_st_save_sharded(dir, e, (size_t)n, NULL, 0, PER_SHARD, &ns);
        if (st != MIO_OK) { job_fail(jb, "save: %s (round %lld)", mio_last_error(), r); break; }
        if ((int)ns != want_ns) { job_fail(jb, "save: %s%lld shards", "", ns); break; }
        check_index(jb, dir, want_ns);
    }
    st_rmdir(dir);
    free(e);
    free(names);
    free(data);
    return NULL;
}

int main(void) {
    job jobs[N_THREADS];
    pthread_t th[N_THREADS];
    for (int k = 0; k < N_THREADS; k++) {
        memset(&jobs[k], 0, sizeof jobs[k]);
        jobs[k].k = k;
        jobs[k].n = 1000 + 300 * k;
        T_CHECK(pthread_create(&th[k], NULL, run, &jobs[k]) == 0);
    }
    for (int k = 0; k < N_THREADS; k++) T_CHECK(pthread_join(th[k], NULL) == 0);
    for (int k = 0; k < N_THREADS; k++) {
        printf("thread %d: %d tensors, %d saves: %s\n", k, jobs[k].n, N_SAVES, jobs[k].fails ? jobs[k].first_fail : "all indexes right");
        T_EQ_INT(jobs[k].fails, 0);
    }
    T_DONE();
}
