/* SPDX-License-Identifier: MIT */
/* gen_imatrix.c — writes an importance matrix for a model GGUF, in llama.cpp's
 * legacy .dat layout or its GGUF form, with random positive values (seeded), so
 * the same imatrix can be fed to llama_model_quantize and to mio_quantize and the
 * outputs compared byte for byte. Entries: every tensor of >= 2 dims whose name
 * ends in "weight" except the token embeddings (llama-imatrix never sees those),
 * ne[0] columns times ne[2]*ne[3] matrices (experts). Public API only.
 *
 * Usage: gen_imatrix MODEL.gguf OUT [--format dat|gguf] [--seed N] [--dataset NAME]
 *                    [--chunks N] [--chunk-size N] [--zero-expert] [--all]
 *   --format      default: gguf if OUT ends in .gguf, else dat
 *   --chunks      chunk count written (default 10); the legacy ncall of every entry
 *   --chunk-size  GGUF imatrix.chunk_size (default 512)
 *   --zero-expert GGUF: the last expert of each multi-expert entry gets count 0
 *                 (llama-quantize then uses 1.0 for its columns)
 *   --all         also the token embeddings */
#include <modelio.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [lo, hi) */
static float next_float(float lo, float hi) {
    return lo + (hi - lo) * (float)((double)(next_u64() >> 11) * (1.0 / 9007199254740992.0));
}

typedef struct ent {
    char name[64];
    int64_t ne0, n_mat;
} ent;

static int ent_cmp(const void *a, const void *b) { return strcmp(((const ent *)a)->name, ((const ent *)b)->name); }

static int fail(const char *what, mio_status st) {
    fprintf(stderr, "gen_imatrix: %s: %s (%s)\n", what, mio_last_error(), mio_status_name(st));
    return 1;
}

static int usage(void) {
    fprintf(stderr, "usage: gen_imatrix MODEL.gguf OUT [--format dat|gguf] [--seed N] [--dataset NAME] "
                    "[--chunks N] [--chunk-size N] [--zero-expert] [--all]\n");
    return 2;
}

static int write_dat(const char *out, const ent *e, size_t n, int32_t chunks, const char *dataset) {
    FILE *f = fopen(out, "wb");
    if (!f) { perror(out); return 1; }
    int32_t v = (int32_t)n;
    fwrite(&v, 4, 1, f);
    for (size_t i = 0; i < n; i++) {
        int32_t len = (int32_t)strlen(e[i].name), ncall = chunks > 0 ? chunks : 1;
        int32_t nval = (int32_t)(e[i].ne0 * e[i].n_mat);
        fwrite(&len, 4, 1, f);
        fwrite(e[i].name, 1, (size_t)len, f);
        fwrite(&ncall, 4, 1, f);
        fwrite(&nval, 4, 1, f);
        /* stored as mean * ncall, as llama-imatrix does: llama-quantize divides by ncall */
        for (int32_t j = 0; j < nval; j++) {
            float x = next_float(0.01f, 4.0f) * (float)ncall;
            fwrite(&x, 4, 1, f);
        }
    }
    int32_t len = (int32_t)strlen(dataset);
    fwrite(&chunks, 4, 1, f);
    fwrite(&len, 4, 1, f);
    fwrite(dataset, 1, (size_t)len, f);
    if (fclose(f) != 0) { perror(out); return 1; }
    return 0;
}

static int write_gguf(const char *out, const ent *e, size_t n, uint32_t chunks, uint32_t chunk_size,
                      const char *dataset, int zero_expert) {
    mio_writer *w = NULL;
    mio_status st = mio_writer_new(MIO_WRITER_DEFAULT, &w);
    if (st) return fail("writer", st);
    const char *ds[1] = {dataset};
    if ((st = mio_writer_set_str(w, "general.type", "imatrix", 7)) ||
        (st = mio_writer_set_arr_str(w, "imatrix.datasets", ds, NULL, 1)) ||
        (st = mio_writer_set_u32(w, "imatrix.chunk_count", chunks)) ||
        (st = mio_writer_set_u32(w, "imatrix.chunk_size", chunk_size))) {
        mio_writer_free(w);
        return fail("metadata", st);
    }
    /* the writer borrows tensor data until the write: keep every buffer */
    float **bufs = calloc(2 * n + 1, sizeof *bufs);
    int rc = 1;
    if (!bufs) goto out;
    for (size_t i = 0; i < n; i++) {
        int64_t ne0 = e[i].ne0, nm = e[i].n_mat;
        float *sums = malloc((size_t)(ne0 * nm) * sizeof *sums), *counts = malloc((size_t)nm * sizeof *counts);
        bufs[2 * i] = sums;
        bufs[2 * i + 1] = counts;
        if (!sums || !counts) goto out;
        for (int64_t m = 0; m < nm; m++) {
            /* whole activation-row counts, like llama-imatrix's */
            float c = (float)(1 + next_u64() % (uint64_t)(chunk_size ? 4 * chunk_size : 2048));
            if (zero_expert && nm > 1 && m == nm - 1) c = 0;
            counts[m] = c;
            for (int64_t k = 0; k < ne0; k++) sums[m * ne0 + k] = c > 0 ? next_float(0.01f, 4.0f) * c : 0.0f;
        }
        char nm_s[80], nm_c[80];
        snprintf(nm_s, sizeof nm_s, "%s.in_sum2", e[i].name);
        snprintf(nm_c, sizeof nm_c, "%s.counts", e[i].name);
        int64_t ne_s[2] = {ne0, nm}, ne_c[2] = {1, nm};
        if ((st = mio_writer_add_tensor(w, nm_s, MIO_TYPE_F32, 2, ne_s, sums, (size_t)(ne0 * nm) * 4)) ||
            (st = mio_writer_add_tensor(w, nm_c, MIO_TYPE_F32, 2, ne_c, counts, (size_t)nm * 4))) {
            rc = fail(e[i].name, st);
            goto out;
        }
    }
    st = mio_writer_write_file(w, out);
    rc = st ? fail(out, st) : 0;
out:
    if (bufs)
        for (size_t i = 0; i < 2 * n; i++) free(bufs[i]);
    free(bufs);
    mio_writer_free(w);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 3) return usage();
    const char *model = argv[1], *out = argv[2], *format = NULL, *dataset = "gen_imatrix.txt";
    unsigned long long seed = 1;
    long chunks = 10, chunk_size = 512;
    int zero_expert = 0, all = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) format = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--dataset") && i + 1 < argc) dataset = argv[++i];
        else if (!strcmp(argv[i], "--chunks") && i + 1 < argc) chunks = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--chunk-size") && i + 1 < argc) chunk_size = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--zero-expert")) zero_expert = 1;
        else if (!strcmp(argv[i], "--all")) all = 1;
        else return usage();
    }
    if (!format) {
        size_t l = strlen(out);
        format = l >= 5 && !strcmp(out + l - 5, ".gguf") ? "gguf" : "dat";
    }
    if (strcmp(format, "dat") && strcmp(format, "gguf")) return usage();
    if (chunks < 0 || chunks > 0x7fffffff || chunk_size < 0 || chunk_size > 0x7fffffff) return usage();
    rng = seed;

    mio_gguf_file *g = NULL;
    mio_status st = mio_gguf_open(model, MIO_OPEN_SPLITS, &g);
    if (st) st = mio_gguf_open(model, MIO_OPEN_MMAP, &g);
    if (st) return fail(model, st);
    int64_t nt = mio_gguf_tensor_count(g);
    ent *e = calloc((size_t)(nt > 0 ? nt : 1), sizeof *e);
    if (!e) { mio_gguf_close(g); return 1; }
    size_t n = 0;
    for (int64_t i = 0; i < nt; i++) {
        mio_gguf_tensor t;
        if ((st = mio_gguf_tensor_info(g, i, &t))) { free(e); mio_gguf_close(g); return fail("tensor", st); }
        if (t.n_dims < 2 || t.name.len < 6 || memcmp(t.name.ptr + t.name.len - 6, "weight", 6)) continue;
        bool is_embd = (t.name.len == 17 && !memcmp(t.name.ptr, "token_embd.weight", 17)) ||
                       (t.name.len == 27 && !memcmp(t.name.ptr, "per_layer_token_embd.weight", 27));
        if (is_embd && !all) continue;
        if (!strcmp(format, "gguf") && t.name.len > 55) {
            fprintf(stderr, "gen_imatrix: skipping '%.*s': NAME.in_sum2 would not fit a GGUF tensor name\n",
                    (int)t.name.len, t.name.ptr);
            continue;
        }
        memcpy(e[n].name, t.name.ptr, t.name.len);
        e[n].name[t.name.len] = 0;
        e[n].ne0 = t.ne[0];
        e[n].n_mat = t.ne[2] * t.ne[3];
        n++;
    }
    mio_gguf_close(g);
    qsort(e, n, sizeof *e, ent_cmp);   /* llama-imatrix writes entries in name order */
    int rc = !strcmp(format, "dat") ? write_dat(out, e, n, (int32_t)chunks, dataset)
                                    : write_gguf(out, e, n, (uint32_t)chunks, (uint32_t)chunk_size, dataset, zero_expert);
    if (!rc) printf("gen_imatrix: %zu entries -> %s (%s)\n", n, out, format);
    free(e);
    return rc;
}
