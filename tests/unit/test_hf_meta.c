/* SPDX-License-Identifier: MIT */
/* test_hf_meta.c — src/hf/meta.c (general.* keys and the default file name of
 * the Hugging Face converter) against tests/data/hf/meta-reference.json, which
 * scripts/make-hf-meta-reference.py made with convert_hf_to_gguf.py's own
 * gguf-py: each case's directory is recreated under a temp dir, its keys are
 * written, read back through mio_gguf_open_buffer and compared entry by entry
 * (key, type, value; f32 by bits), then the file names. Hand-checked values
 * first. Linked with the modelio_internal archive (meta.c is not exported). */
#include "hf/hf_internal.h"

#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[256];

static char *fmt_path(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", a, b);
    return p;
}

static bool write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return false;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, fp) == n;
    return fclose(fp) == 0 && ok;
}

static void rm_tree(const char *path) {
    DIR *d = opendir(path);
    if (!d) { unlink(path); return; }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = fmt_path(path, e->d_name);
        if (p) rm_tree(p);
        free(p);
    }
    closedir(d);
    rmdir(path);
}

/* ------------------------------------------------ hand-checkable values */

static void check_label(int64_t t, int64_t s, int64_t e, int64_t n, const char *want) {
    char *got = mio_hf_size_label(t, s, e, n);
    T_EQ_STR(got, want);
    free(got);
}

/* Write the keys of a directory made of the given files and read them back. */
typedef struct run_out {
    mio_status st;
    membuf buf;
    mio_gguf_file *f;
    hf_meta m;
} run_out;

static void run(const char *dir, const mio_json *config, const char *model_name, const hf_meta_tensor *t, size_t nt,
                run_out *r) {
    memset(r, 0, sizeof *r);
    mio_writer *w = NULL;
    if (mio_writer_new(MIO_WRITER_NO_EMPTY_PAD, &w) != MIO_OK) { r->st = MIO_ERR_NOMEM; return; }
    hf_meta_in in = {.dir = dir, .config = config, .model_name = model_name, .tensors = t, .n_tensors = nt};
    r->st = mio_hf_meta_write(w, &in, &r->m);
    if (r->st == MIO_OK) {
        r->st = mio_writer_write_cb(w, mem_sink, &r->buf);
        if (r->st == MIO_OK) r->st = mio_gguf_open_buffer(r->buf.p, r->buf.len, 0, &r->f);
    }
    mio_writer_free(w);
}

static void run_free(run_out *r) {
    mio_gguf_close(r->f);
    free(r->buf.p);
    mio_hf_meta_free(&r->m);
}

static bool str_is(const mio_gguf_file *f, const char *key, const char *want) {
    int64_t i = mio_gguf_find_key(f, key);
    mio_str s;
    if (i < 0 || mio_gguf_kv_str(f, i, &s) != MIO_OK) return false;
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static void hand_checks(void) {
    check_label(135000000, 135000000, 0, 0, "135M");
    check_label(134515008, 134515008, 0, 0, "135M");
    check_label(7241732096, 7241732096, 0, 0, "7.2B");
    check_label(0, 1602203648, 5637144576, 8, "8x7.2B");
    check_label(0, 1000000000, 6000000000, 8, "8x7.0B");
    check_label(0, 0, 0, 0, "0.00K");
    check_label(999, 999, 0, 0, "1.0K");
    check_label(1000000000000, 1, 0, 0, "1000B");
    check_label(1500000000000, 1, 0, 0, "1.5T");

    /* a directory named like the 135M SmolLM2, with 135,000,000 parameters */
    char *dir = fmt_path(g_root, "SmolLM2-135M-Instruct");
    T_CHECK(dir && mkdir(dir, 0755) == 0);
    hf_meta_tensor t = {.name = "token_embd.weight", .n_dims = 2, .ne = {1000, 135000}};
    run_out r;
    run(dir, NULL, NULL, &t, 1, &r);
    T_OK(r.st);
    if (r.st == MIO_OK) {
        T_EQ_INT(mio_gguf_kv_count(r.f), 4);
        T_CHECK(str_is(r.f, "general.name", "SmolLM2 135M Instruct"));
        T_CHECK(str_is(r.f, "general.finetune", "Instruct"));
        T_CHECK(str_is(r.f, "general.basename", "SmolLM2"));
        T_CHECK(str_is(r.f, "general.size_label", "135M"));
        T_EQ_INT(r.m.total_params, 135000000);
        char *fn = mio_hf_default_filename(&r.m, "BF16", false);
        T_EQ_STR(fn, "SmolLM2-135M-Instruct-BF16");
        free(fn);
        fn = mio_hf_default_filename(&r.m, "BF16", true);
        T_EQ_STR(fn, "SmolLM2-Instruct-vocab");
        free(fn);
    }
    run_free(&r);

    /* 8 experts of 7B: "8x7B" from the name; a computed "8x..." without one */
    hf_meta_tensor moe[2] = {{.name = "blk.0.ffn_up_exps.weight", .n_dims = 3, .ne = {1000, 7000000, 8}},
                             {.name = "blk.0.attn_q.weight", .n_dims = 2, .ne = {1000, 1000}}};
    run(dir, NULL, NULL, moe, 2, &r);
    T_OK(r.st);
    T_EQ_INT(r.m.expert_count, 8);
    T_EQ_INT(r.m.expert_params, 7000000000);
    T_EQ_INT(r.m.shared_params, 1000000);
    T_EQ_INT(r.m.total_params, 56001000000);
    run_free(&r);
    char *moedir = fmt_path(g_root, "Mixtral-8x7B-v0.1");
    T_CHECK(moedir && mkdir(moedir, 0755) == 0);
    run(moedir, NULL, NULL, moe, 2, &r);
    T_OK(r.st);
    if (r.st == MIO_OK) {
        T_CHECK(str_is(r.f, "general.size_label", "8x7B"));
        T_CHECK(str_is(r.f, "general.version", "v0.1"));
        char *fn = mio_hf_default_filename(&r.m, "Q8_0", false);
        T_EQ_STR(fn, "Mixtral-8x7B-v0.1-Q8_0");
        free(fn);
    }
    run_free(&r);
    char *plain = fmt_path(g_root, "moe");
    T_CHECK(plain && mkdir(plain, 0755) == 0);
    run(plain, NULL, NULL, moe, 2, &r);
    T_OK(r.st);
    if (r.st == MIO_OK) T_CHECK(str_is(r.f, "general.size_label", "8x7.0B"));
    run_free(&r);

    /* the model card's front matter (load_model_card + apply_metadata_heuristic) */
    char *readme = fmt_path(dir, "README.md");
    T_CHECK(readme && write_text(readme,
                                 "---\n"
                                 "license: [mit, apache-2.0]   # a list is joined with ','\n"
                                 "model_name: Card Name\n"
                                 "author: 'Jane O''Doe'\n"
                                 "version: 0        # falsy: blocks the name's version, writes nothing\n"
                                 "tags:\n"
                                 "- alpha\n"
                                 "- 7\n"
                                 "pipeline_tag: text-generation\n"
                                 "language: en\n"
                                 "base_model:\n"
                                 "  - some-org/Base-Model-7B\n"
                                 "  - name: Other\n"
                                 "    url: \"https://example.com/x\"\n"
                                 "description: |\n"
                                 "  two\n"
                                 "  lines\n"
                                 "---\n"
                                 "# card\n"));
    run(dir, NULL, NULL, &t, 1, &r);
    T_OK(r.st);
    if (r.st == MIO_OK) {
        T_CHECK(r.m.model_card_read && !r.m.card_warning[0]);
        T_CHECK(str_is(r.f, "general.license", "mit,apache-2.0"));
        T_CHECK(str_is(r.f, "general.name", "Card Name")); /* as written: no title-casing */
        T_CHECK(str_is(r.f, "general.author", "Jane O'Doe"));
        T_CHECK(mio_gguf_find_key(r.f, "general.version") < 0);
        T_CHECK(str_is(r.f, "general.description", "two\nlines\n"));
        mio_str a;
        int64_t k = mio_gguf_find_key(r.f, "general.tags");
        T_CHECK(k >= 0 && mio_gguf_kv_count(r.f) > 0);
        const char *const want_tags[] = {"alpha", "7", "text-generation"};
        for (uint64_t j = 0; j < 3 && k >= 0; j++)
            T_CHECK(mio_gguf_arr_str(r.f, k, j, &a) == MIO_OK && a.len == strlen(want_tags[j]) &&
                    memcmp(a.ptr, want_tags[j], a.len) == 0);
        k = mio_gguf_find_key(r.f, "general.languages");
        T_CHECK(k >= 0 && mio_gguf_arr_str(r.f, k, 0, &a) == MIO_OK && a.len == 2 && memcmp(a.ptr, "en", 2) == 0);
        uint64_t u = 0;
        T_OK(mio_gguf_kv_u64(r.f, mio_gguf_find_key(r.f, "general.base_model.count"), &u));
        T_EQ_U64(u, 2);
        T_CHECK(str_is(r.f, "general.base_model.0.name", "Base Model 7B"));
        T_CHECK(str_is(r.f, "general.base_model.0.organization", "Some Org"));
        T_CHECK(str_is(r.f, "general.base_model.0.repo_url", "https://huggingface.co/some-org/Base-Model-7B"));
        T_CHECK(str_is(r.f, "general.base_model.1.name", "Other"));
        T_CHECK(str_is(r.f, "general.base_model.1.url", "https://example.com/x"));
        /* set_gguf_meta_model's order: name, author, ..., description, size label, license, ... tags, languages */
        T_CHECK(mio_gguf_find_key(r.f, "general.author") == mio_gguf_find_key(r.f, "general.name") + 1);
        T_CHECK(mio_gguf_find_key(r.f, "general.license") > mio_gguf_find_key(r.f, "general.size_label"));
        T_CHECK(mio_gguf_find_key(r.f, "general.languages") > mio_gguf_find_key(r.f, "general.tags"));
    }
    run_free(&r);
    /* a front matter that is not YAML this reads: a warning naming the line, no key from it */
    T_CHECK(write_text(readme, "---\nlicense: mit\nname: &anchor x\n---\n"));
    run(dir, NULL, NULL, &t, 1, &r);
    T_OK(r.st);
    T_CHECK(!r.m.model_card_read && strstr(r.m.card_warning, "README.md: the model card's front matter is not read "
                                                              "(line 2: anchors, aliases and tags are not read)"));
    if (r.st == MIO_OK) T_CHECK(mio_gguf_find_key(r.f, "general.license") < 0);
    run_free(&r);
    T_CHECK(write_text(readme, "# no front matter\n---\nlicense: mit\n---\n"));
    run(dir, NULL, NULL, &t, 1, &r);
    T_CHECK(!r.m.model_card_read && !r.m.card_warning[0]);
    run_free(&r);
    unlink(readme);
    free(readme);

    /* errors name the file and key */
    char *gen = fmt_path(dir, "generation_config.json");
    T_CHECK(gen && write_text(gen, "{\"top_k\": 1e10}"));
    run(dir, NULL, NULL, &t, 1, &r);
    T_EQ_INT(r.st, MIO_ERR_OUT_OF_RANGE);
    T_MSG_HAS("generation_config.json: \"top_k\"");
    run_free(&r);
    unlink(gen);
    free(gen);

    /* --outfile templates */
    char *o = NULL;
    T_OK(mio_hf_fill_templated_filename("m-{ftype}-{FTYPE}-{outtype}-{OUTTYPE}-{}-{{x}}.gguf", "Q8_0", &o));
    T_EQ_STR(o, "m-q8_0-Q8_0-q8_0-Q8_0-q8_0-{x}.gguf");
    free(o);
    o = NULL;
    T_OK(mio_hf_fill_templated_filename("{0}{0}.gguf", "BF16", &o));
    T_EQ_STR(o, "bf16bf16.gguf");
    free(o);
    o = NULL;
    T_STATUS(mio_hf_fill_templated_filename("{name}.gguf", "F16", &o), MIO_ERR_INVALID_ARG);
    T_MSG_HAS("{name}");
    T_STATUS(mio_hf_fill_templated_filename("{}{0}", "F16", &o), MIO_ERR_INVALID_ARG);
    T_STATUS(mio_hf_fill_templated_filename("a}b", "F16", &o), MIO_ERR_INVALID_ARG);
    T_CHECK(o == NULL);

    free(dir);
    free(moedir);
    free(plain);
}

/* ------------------------------------------------------ the reference table */

static const char *type_name(int t) {
    switch (t) {
    case MIO_GGUF_STRING: return "STRING";
    case MIO_GGUF_I32: return "INT32";
    case MIO_GGUF_F32: return "FLOAT32";
    case MIO_GGUF_U32: return "UINT32";
    case MIO_GGUF_BOOL: return "BOOL";
    case MIO_GGUF_ARRAY: return "ARRAY";
    default: return "?";
    }
}

/* The first difference between the written keys and the expected ones, into
 * msg; false when they are identical. */
static bool kv_diff(const mio_gguf_file *f, const mio_json *kv, char *msg, size_t msz) {
    int64_t n = mio_gguf_kv_count(f);
    int64_t want = mio_json_size(kv);
    for (int64_t i = 0; i < n || i < want; i++) {
        const mio_json *e = i < want ? mio_json_at(kv, (int)i) : NULL;
        if (i >= n) { snprintf(msg, msz, "entry %lld: missing %s", (long long)i, mio_json_at(e, 0)->valuestring); return true; }
        mio_str k = mio_gguf_kv_key(f, i);
        if (!e) { snprintf(msg, msz, "entry %lld: extra key %.*s", (long long)i, (int)k.len, k.ptr); return true; }
        const char *wk = mio_json_at(e, 0)->valuestring, *wt = mio_json_at(e, 1)->valuestring;
        const mio_json *wv = mio_json_at(e, 2);
        if (k.len != strlen(wk) || memcmp(k.ptr, wk, k.len) != 0) {
            snprintf(msg, msz, "entry %lld: key %.*s, expected %s", (long long)i, (int)k.len, k.ptr, wk);
            return true;
        }
        int t = mio_gguf_kv_type(f, i);
        if (strcmp(type_name(t), wt) != 0) { snprintf(msg, msz, "%s: type %s, expected %s", wk, type_name(t), wt); return true; }
        mio_gguf_value v;
        if (mio_gguf_kv_value(f, i, &v) != MIO_OK) { snprintf(msg, msz, "%s: unreadable", wk); return true; }
        if (t == MIO_GGUF_STRING) {
            mio_str s;
            mio_gguf_kv_str(f, i, &s);
            if (s.len != strlen(wv->valuestring) || memcmp(s.ptr, wv->valuestring, s.len) != 0) {
                snprintf(msg, msz, "%s: \"%.*s\", expected \"%s\"", wk, (int)s.len, s.ptr, wv->valuestring);
                return true;
            }
        } else if (t == MIO_GGUF_F32) {
            uint32_t bits;
            memcpy(&bits, v.data, 4);
            double wb = mio_json_get(wv, "f32_bits")->valuedouble;
            if ((double)bits != wb) { snprintf(msg, msz, "%s: f32 bits 0x%08x, expected 0x%08llx", wk, bits, (unsigned long long)wb); return true; }
        } else if (t == MIO_GGUF_I32) {
            int32_t x;
            memcpy(&x, v.data, 4);
            double wx = mio_json_is_bool(wv) ? (double)mio_json_is_true(wv) : wv->valuedouble;
            if ((double)x != wx) { snprintf(msg, msz, "%s: %d, expected %.17g", wk, x, wx); return true; }
        } else {
            snprintf(msg, msz, "%s: type %s not compared", wk, wt);
            return true;
        }
    }
    return false;
}

static void reference_cases(void) {
    size_t len = 0;
    char *text = (char *)t_read_file(MIO_TEST_DATA "/hf/meta-reference.json", &len);
    T_CHECK(text != NULL);
    if (!text) return;
    mio_json *root = mio_json_parse_str(text, NULL);
    free(text);
    T_CHECK(root != NULL);
    if (!root) return;

    const mio_json *sl;
    int n_sl = 0, ok_sl = 0;
    MIO_JSON_FOR_EACH(sl, mio_json_get(root, "size_labels")) {
        int64_t a[4];
        for (int k = 0; k < 4; k++) a[k] = (int64_t)mio_json_at(sl, k)->valuedouble;
        const char *want = mio_json_at(sl, 4)->valuestring;
        char *got = mio_hf_size_label(a[0], a[1], a[2], a[3]);
        n_sl++;
        if (got && strcmp(got, want) == 0) ok_sl++;
        else if (ok_sl + 1 == n_sl) /* print the first mismatch */
            fprintf(stderr, "size_label(%lld, %lld, %lld, %lld): \"%s\", expected \"%s\"\n", (long long)a[0],
                    (long long)a[1], (long long)a[2], (long long)a[3], got ? got : "(null)", want);
        free(got);
    }
    printf("size_label: %d of %d reference values identical\n", ok_sl, n_sl);
    T_EQ_INT(ok_sl, n_sl);

    const mio_json *types = mio_json_get(root, "output_types");
    int n = 0, same = 0, idx = 0;
    const mio_json *c;
    MIO_JSON_FOR_EACH(c, mio_json_get(root, "cases")) {
        idx++;
        const char *dname = mio_json_get(c, "dir")->valuestring;
        const char *suffix = mio_json_get(c, "dir_suffix")->valuestring;
        const mio_json *config = mio_json_get(c, "config");
        const mio_json *gen = mio_json_get(c, "generation_config_text");
        const mio_json *mn = mio_json_get(c, "model_name");
        const mio_json *error = mio_json_get(c, "error");
        char sub[32];
        snprintf(sub, sizeof sub, "case%d", idx); /* one parent per case: names repeat */
        char *parent = fmt_path(g_root, sub);
        char *dir = parent ? fmt_path(parent, dname) : NULL;
        if (!dir || mkdir(parent, 0755) != 0 || mkdir(dir, 0755) != 0) {
            T_CHECK(!"cannot create the case directory");
            free(parent);
            free(dir);
            continue;
        }
        if (mio_json_is_string(gen)) {
            char *g = fmt_path(dir, "generation_config.json");
            T_CHECK(g && write_text(g, gen->valuestring));
            free(g);
        }
        size_t full_n = strlen(dir) + strlen(suffix) + 1;
        char *full = malloc(full_n);
        snprintf(full, full_n, "%s%s", dir, suffix);

        const mio_json *tl = mio_json_get(c, "tensors");
        int nt = mio_json_size(tl);
        hf_meta_tensor *t = calloc((size_t)nt + 1, sizeof *t);
        for (int k = 0; k < nt; k++) {
            const mio_json *e = mio_json_at(tl, k), *ne = mio_json_at(e, 1);
            t[k].name = mio_json_at(e, 0)->valuestring;
            t[k].n_dims = (uint32_t)mio_json_size(ne);
            for (uint32_t d = 0; d < t[k].n_dims && d < 4; d++) t[k].ne[d] = (int64_t)mio_json_at(ne, (int)d)->valuedouble;
        }
        run_out r;
        run(full, mio_json_is_null(config) ? NULL : config, mio_json_is_string(mn) ? mn->valuestring : NULL, t, (size_t)nt, &r);

        char msg[512] = "";
        bool bad = false;
        if (error) {
            if (r.st == MIO_OK) { snprintf(msg, sizeof msg, "succeeded; the reference fails (%s)", error->valuestring); bad = true; }
        } else if (r.st != MIO_OK) {
            snprintf(msg, sizeof msg, "%s: %s", mio_status_name(r.st), mio_last_error());
            bad = true;
        } else {
            const mio_json *pa = mio_json_get(c, "params");
            int64_t got[4] = {r.m.total_params, r.m.shared_params, r.m.expert_params, r.m.expert_count};
            for (int k = 0; k < 4 && !bad; k++)
                if ((double)got[k] != mio_json_at(pa, k)->valuedouble) {
                    snprintf(msg, sizeof msg, "parameter count %d: %lld, expected %.17g", k, (long long)got[k],
                             mio_json_at(pa, k)->valuedouble);
                    bad = true;
                }
            if (!bad) bad = kv_diff(r.f, mio_json_get(c, "kv"), msg, sizeof msg);
            const mio_json *fns = mio_json_get(c, "filenames"), *ty;
            MIO_JSON_FOR_EACH(ty, types) {
                if (bad) break;
                char *fn = mio_hf_default_filename(&r.m, ty->valuestring, false);
                const char *want = mio_json_get(fns, ty->valuestring)->valuestring;
                if (!fn || strcmp(fn, want) != 0) {
                    snprintf(msg, sizeof msg, "file name (%s): \"%s\", expected \"%s\"", ty->valuestring, fn ? fn : "(null)", want);
                    bad = true;
                }
                free(fn);
            }
            if (!bad) {
                char *fn = mio_hf_default_filename(&r.m, NULL, true);
                const char *want = mio_json_get(fns, "vocab")->valuestring;
                if (!fn || strcmp(fn, want) != 0) {
                    snprintf(msg, sizeof msg, "vocab file name: \"%s\", expected \"%s\"", fn ? fn : "(null)", want);
                    bad = true;
                }
                free(fn);
            }
        }
        n++;
        if (!bad) same++;
        else if (same + 1 == n || getenv("MIO_TEST_VERBOSE"))
            fprintf(stderr, "case %d (dir \"%s%s\"): %s\n", idx, dname, suffix, msg);
        run_free(&r);
        free(t);
        free(full);
        free(dir);
        free(parent);
    }
    printf("general.* metadata: %d of %d reference cases identical\n", same, n);
    T_EQ_INT(same, n);
    T_CHECK(n >= 100);
    mio_json_free(root);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(g_root, sizeof g_root, "%s/test_hf_meta.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_root)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    hand_checks();
    reference_cases();
    rm_tree(g_root);
    T_DONE();
}
