/* SPDX-License-Identifier: MIT */
/* test_checkpoint.c — training-checkpoint directories (docs/CHECKPOINTS.md):
 * the bytes of trainer_state.json and the sentinel, a save replacing an
 * earlier one, every load-time refusal (no sentinel, a missing, truncated or
 * changed file, a bad trainer state), names, abort, rotation, and the recovery
 * of the two-rename fallback. Crashes in the middle of a save are
 * tests/fault/test_ckpt_crash.c. Links the internal archive for the two
 * parsers (trainer_state.json, the sentinel). */
#include "modelio.h"
#include "test.h"

#include "ckpt/ckpt_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[] = "/tmp/mio_ckpt_XXXXXX";
static char g_ck[128];

static const float k_w[4] = {1, 2, 3, 4};
static const uint64_t k_sw[2] = {2, 2};
static const uint8_t k_opt[5] = {'F', 'Z', 'O', '3', 0};

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}
static void rm_tree(const char *p) { nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* the names in dir, sorted, joined by spaces */
static const char *listing(const char *dir) {
    static char out[1024];
    struct dirent **v;
    int n = scandir(dir, &v, NULL, alphasort);
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, "..")) {
            if (out[0]) strcat(out, " ");
            strncat(out, v[i]->d_name, sizeof out - strlen(out) - 2);
        }
        free(v[i]);
    }
    free(v);
    return out;
}

static char *slurp(const char *path) {
    size_t n;
    uint8_t *b = t_read_file(path, &n);
    if (!b) return NULL;
    char *s = realloc(b, n + 1);
    if (s) s[n] = 0;
    return s;
}

static mio_status save(const char *dir, uint64_t step, const char *extra) {
    mio_ckpt_save *s = NULL;
    mio_status st = mio_ckpt_begin(dir, &s);
    if (st) return st;
    mio_st_entry e = {"w", MIO_ST_F32, 2, k_sw, k_w, sizeof k_w};
    st = mio_ckpt_add_state_dict(s, MIO_CKPT_MODEL, &e, 1, sizeof e);
    if (!st) st = mio_ckpt_add_file(s, MIO_CKPT_OPTIMIZER, k_opt, sizeof k_opt);
    if (st) {
        mio_ckpt_abort(s);
        return st;
    }
    return mio_ckpt_commit(s, step, 9223372036854775813ull, extra);
}

static void test_save_open(void) {
    T_OK(save(g_ck, 100, "{\"lr\": 0.001, \"note\": null, \"es_noise\": 2}"));
    T_EQ_STR(listing(g_dir), "ck");
    T_EQ_STR(listing(g_ck), "checkpoint.json model.safetensors optimizer.fucina trainer_state.json");
    char p[256];
    snprintf(p, sizeof p, "%s/trainer_state.json", g_ck);
    char *ts = slurp(p);
    T_EQ_STR(ts, "{\n  \"format\": \"fucina.training_checkpoint\",\n  \"version\": 1,\n  \"step\": 100,\n"
                 "  \"seed\": 9223372036854775813,\n  \"lr\": 0.001,\n  \"es_noise\": 2\n}\n");
    free(ts);
    snprintf(p, sizeof p, "%s/checkpoint.json", g_ck);
    char *sent = slurp(p);
    T_CHECK(sent && strncmp(sent, "{\n  \"format\": \"libmodelio.checkpoint\",\n  \"version\": 1,\n  \"files\": [\n"
                                  "    {\"name\": \"model.safetensors\", \"size\": 88, \"xxh3_64\": \"", 126) == 0);
    T_CHECK(sent && strstr(sent, "{\"name\": \"optimizer.fucina\", \"size\": 5, \"xxh3_64\": \""));
    T_CHECK(sent && strstr(sent, "{\"name\": \"trainer_state.json\", \"size\": 139, \"xxh3_64\": \""));
    free(sent);

    mio_ckpt *c = NULL;
    T_OK(mio_ckpt_open(g_ck, &c));
    T_EQ_U64(mio_ckpt_step(c), 100);
    T_EQ_U64(mio_ckpt_seed(c), 9223372036854775813ull); /* above 2^53: exact */
    T_EQ_STR(mio_ckpt_extra_json(c), "{\"lr\":0.001,\"es_noise\":2}");
    T_EQ_INT(mio_ckpt_file_count(c), 3);
    T_EQ_STR(mio_ckpt_file_name(c, 1), "optimizer.fucina");
    T_EQ_U64(mio_ckpt_file_size(c, 1), 5);
    T_CHECK(mio_ckpt_file_name(c, 3) == NULL);
    void *blob = NULL;
    size_t len = 0;
    T_OK(mio_ckpt_read_file(c, MIO_CKPT_OPTIMIZER, &blob, &len));
    T_CHECK(len == 5 && memcmp(blob, k_opt, 5) == 0);
    mio_free(blob);
    char *mp = NULL;
    T_OK(mio_ckpt_file_path(c, MIO_CKPT_MODEL, &mp));
    float w[4] = {0};
    mio_state_dict_dest d = {"w", MIO_ST_F32, 2, k_sw, w, sizeof w};
    T_OK(mio_state_dict_load_file(mp, &d, 1, sizeof d, NULL, 0, 0, NULL));
    T_CHECK(w[3] == 4.0f);
    mio_free(mp);
    T_STATUS(mio_ckpt_file_path(c, "absent", &mp), MIO_ERR_NOT_FOUND);
    mio_ckpt_close(c);

    /* a second save replaces the first; nothing else stays in the parent, and
     * the hidden leftovers of crashed saves of this path are swept */
    char lo[200];
    snprintf(lo, sizeof lo, "%s/.ck.tmp-AbC123", g_dir);
    T_EQ_INT(mkdir(lo, 0700), 0);
    snprintf(lo, sizeof lo, "%s/.ck.old-XyZ789", g_dir);
    T_EQ_INT(mkdir(lo, 0700), 0);
    snprintf(lo, sizeof lo, "%s/.ck.old-XyZ789/sub", g_dir);
    T_EQ_INT(mkdir(lo, 0700), 0);
    snprintf(lo, sizeof lo, "%s/.other.tmp-AbC123", g_dir);
    T_EQ_INT(mkdir(lo, 0700), 0);
    T_OK(save(g_ck, 200, NULL));
    T_EQ_STR(listing(g_dir), ".other.tmp-AbC123 ck");
    T_EQ_INT(rmdir(lo), 0);
    T_EQ_STR(listing(g_dir), "ck");
    T_OK(mio_ckpt_open(g_ck, &c));
    T_EQ_U64(mio_ckpt_step(c), 200);
    T_EQ_STR(mio_ckpt_extra_json(c), "{}");
    mio_ckpt_close(c);

    /* refused commits leave the checkpoint as it was and no temporary directory */
    T_STATUS(save(g_ck, 300, "[1]"), MIO_ERR_INVALID_JSON);
    T_STATUS(save(g_ck, 300, "{\"step\": 5}"), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("extra_json sets \"step\"");
    T_EQ_STR(listing(g_dir), "ck");
    T_OK(mio_ckpt_open(g_ck, &c));
    T_EQ_U64(mio_ckpt_step(c), 200);
    mio_ckpt_close(c);
}

/* each damage in a copy of the checkpoint, then the load's error */
static void damaged(const char *what, void (*hurt)(const char *dir), mio_status want, const char *msg) {
    char d[160], cmd[512];
    snprintf(d, sizeof d, "%s/dmg", g_dir);
    rm_tree(d);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", g_ck, d);
    if (system(cmd) != 0) { fprintf(stderr, "cp failed\n"); exit(1); }
    hurt(d);
    mio_ckpt *c = NULL;
    mio_status st = mio_ckpt_open(d, &c);
    if (st != want) fprintf(stderr, "%s: ", what);
    T_STATUS(st, want);
    T_MSG_HAS(msg);
    T_CHECK(c == NULL);
    rm_tree(d);
}
static void at(char *p, size_t n, const char *dir, const char *name) { snprintf(p, n, "%s/%s", dir, name); }
static void no_sentinel(const char *d) { char p[256]; at(p, sizeof p, d, "checkpoint.json"); unlink(p); }
static void no_model(const char *d) { char p[256]; at(p, sizeof p, d, "model.safetensors"); unlink(p); }
static void cut_opt(const char *d) { char p[256]; at(p, sizeof p, d, "optimizer.fucina"); T_EQ_INT(truncate(p, 3), 0); }
static void flip_opt(const char *d) {
    char p[256];
    at(p, sizeof p, d, "optimizer.fucina");
    int fd = open(p, O_WRONLY);
    T_EQ_INT(pwrite(fd, "X", 1, 0), 1);
    close(fd);
}
static void bad_sentinel(const char *d) {
    char p[256];
    at(p, sizeof p, d, "checkpoint.json");
    FILE *f = fopen(p, "w");
    fputs("{\"format\": \"libmodelio.checkpoint\", \"ver", f); /* cut short */
    fclose(f);
}

/* the sentinel names "optimizer.fucina\u0000x": read as a C string it would
 * be the real file, so the entry is refused */
static void nul_name(const char *d) {
    char p[256];
    at(p, sizeof p, d, "checkpoint.json");
    size_t n = 0;
    char *t = (char *)t_read_file(p, &n), *q = t ? strstr(t, "\"optimizer.fucina\"") : NULL;
    FILE *f = q ? fopen(p, "w") : NULL;
    if (!f) {
        free(t);
        return;
    }
    fwrite(t, 1, (size_t)(q - t) + 17, f);
    fputs("\\u0000x", f);
    fputs(q + 17, f);
    fclose(f);
    free(t);
}

static void test_refusals(void) {
    damaged("no sentinel", no_sentinel, MIO_ERR_INCOMPLETE, "has no sentinel (checkpoint.json)");
    damaged("no model", no_model, MIO_ERR_INCOMPLETE, "model.safetensors' is missing: the sentinel lists it (88 bytes)");
    damaged("cut", cut_opt, MIO_ERR_TRUNCATED, "optimizer.fucina' is 3 bytes, the sentinel says 5");
    damaged("flip", flip_opt, MIO_ERR_INVALID_ARG, "optimizer.fucina' does not match the sentinel: xxh3_64");
    damaged("bad sentinel", bad_sentinel, MIO_ERR_INVALID_JSON, "the sentinel is not a JSON object");
    damaged("NUL in a name", nul_name, MIO_ERR_INVALID_JSON, "sentinel entry 1 lacks a name, a size or an xxh3_64");
    mio_ckpt *c = NULL;
    T_STATUS(mio_ckpt_open("/nonexistent/ck", &c), MIO_ERR_NOT_FOUND);
}

static void test_trainer_state(void) {
    uint64_t step = 1, seed = 1;
    char *extra = NULL;
#define TS(text) mio_ckpt_parse_trainer_state(text, strlen(text), &step, &seed, &extra)
    T_OK(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"step\":18446744073709551615,\"seed\":0}"));
    T_EQ_U64(step, 18446744073709551615ull);
    T_EQ_U64(seed, 0);
    T_EQ_STR(extra, "{}");
    free(extra);
    T_STATUS(TS("{\"format\":\"fucina.checkpoint\",\"version\":1,\"step\":1,\"seed\":2}"), MIO_ERR_BAD_MAGIC);
    T_MSG_HAS("\"format\" is not \"fucina.training_checkpoint\"");
    T_STATUS(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":2,\"step\":1,\"seed\":2}"), MIO_ERR_UNSUPPORTED_VERSION);
    T_MSG_HAS("version 2 (this library reads version 1)");
    T_STATUS(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"seed\":2}"), MIO_ERR_INVALID_JSON);
    T_MSG_HAS("\"step\" is missing or not a u64");
    T_STATUS(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"step\":-1,\"seed\":2}"), MIO_ERR_INVALID_JSON);
    T_STATUS(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"step\":1.5,\"seed\":2}"), MIO_ERR_INVALID_JSON);
    T_STATUS(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"step\":18446744073709551616,\"seed\":2}"),
             MIO_ERR_INVALID_JSON);
    T_STATUS(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"step\":1,\"seed\":2,\"a\":1,\"a\":2}"),
             MIO_ERR_DUPLICATE_KEY);
    T_STATUS(TS("[]"), MIO_ERR_INVALID_JSON);
    /* a nested "step" does not count; the top-level one does */
    T_OK(TS("{\"format\":\"fucina.training_checkpoint\",\"version\":1,\"x\":{\"step\":7},\"step\":3,\"seed\":4}"));
    T_EQ_U64(step, 3);
    T_EQ_STR(extra, "{\"x\":{\"step\":7}}");
    free(extra);
#undef TS
}

static void test_names_abort(void) {
    char d[160];
    snprintf(d, sizeof d, "%s/aborted", g_dir);
    mio_ckpt_save *s = NULL;
    T_OK(mio_ckpt_begin(d, &s));
    T_STATUS(mio_ckpt_add_file(s, "a/b", "x", 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("'a/b' is not a plain file name");
    T_STATUS(mio_ckpt_add_file(s, ".hidden", "x", 1), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_ckpt_add_file(s, "checkpoint.json", "x", 1), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("the sentinel's name");
    T_STATUS(mio_ckpt_add_file(s, "trainer_state.json", "x", 1), MIO_ERR_INVALID_ARG);
    T_OK(mio_ckpt_add_file(s, "notes.txt", "x", 1));
    T_STATUS(mio_ckpt_add_file(s, "notes.txt", "y", 1), MIO_ERR_DUPLICATE_KEY);
    mio_ckpt_abort(s);
    T_EQ_STR(listing(g_dir), "ck"); /* no "aborted", no temporary directory */
    T_STATUS(mio_ckpt_begin("/nonexistent/x", &s), MIO_ERR_IO);
    T_MSG_HAS("the parent directory '/nonexistent' of '/nonexistent/x' does not exist");
    snprintf(d, sizeof d, "%s/file", g_dir);
    int fd = open(d, O_WRONLY | O_CREAT, 0600);
    close(fd);
    T_STATUS(mio_ckpt_begin(d, &s), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("exists and is not a directory");
    unlink(d);
}

static void test_rotate_recover(void) {
    char runs[160], d[200];
    snprintf(runs, sizeof runs, "%s/run", g_dir);
    mkdir(runs, 0700);
    for (int i = 1; i <= 5; i++) {
        snprintf(d, sizeof d, "%s/step-%d", runs, i * 10);
        T_OK(save(d, (uint64_t)i * 10, NULL));
    }
    snprintf(d, sizeof d, "%s/step-60", runs); /* incomplete: no sentinel */
    mkdir(d, 0700);
    snprintf(d, sizeof d, "%s/stepx", runs);
    mkdir(d, 0700);
    uint32_t removed = 99;
    T_OK(mio_ckpt_rotate(runs, "step-", 2, &removed));
    T_EQ_INT(removed, 3);
    T_EQ_STR(listing(runs), "step-40 step-50 step-60 stepx");
    T_OK(mio_ckpt_rotate(runs, "step-", 2, &removed));
    T_EQ_INT(removed, 0);

    /* the two-rename fallback, crashed between its renames: the old checkpoint
     * is aside under a hidden name and nothing is at the path */
    char aside[200];
    snprintf(d, sizeof d, "%s/step-50", runs);
    snprintf(aside, sizeof aside, "%s/.step-50.old-abc123", runs);
    T_EQ_INT(rename(d, aside), 0);
    mio_ckpt *c = NULL;
    T_OK(mio_ckpt_open(d, &c));
    T_EQ_U64(mio_ckpt_step(c), 50);
    mio_ckpt_close(c);
    T_EQ_STR(listing(runs), "step-40 step-50 step-60 stepx");
    rm_tree(runs);
}

int main(void) {
    if (!mkdtemp(g_dir)) return 1;
    snprintf(g_ck, sizeof g_ck, "%s/ck", g_dir);
    test_save_open();
    test_refusals();
    test_trainer_state();
    test_names_abort();
    test_rotate_recover();
    rm_tree(g_dir);
    T_DONE();
}
