/* SPDX-License-Identifier: MIT */
/* interop_split.c — mio_gguf_split against llama.cpp's loader: mio-make-sample's
 * llama model (argv[1] writes it) is split several ways (--split-max-tensors,
 * --split-max-size, --no-tensor-first-split) and the peer's libllama must load
 * every split from its part 1 with the parameter count of the unsplit model; a
 * split with a part missing must not load. Skipped without the peer. */
#include "interop.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static peer_api G;

/* llama_model_params by value: an oversized opaque stand-in, as in
 * interop_llama_export.c (x86-64 SysV: class MEMORY, hidden pointer / stack copy). */
typedef struct {
    unsigned char bytes[512];
} llama_params_t;

static struct {
    void *ggml, *llama;
    void (*backend_free)(void);
    llama_params_t (*model_default_params)(void);
    void *(*model_load_from_file)(const char *path, llama_params_t params);
    void (*model_free)(void *model);
    uint64_t (*model_n_params)(const void *model);
} L;

static void *sym(void *h, const char *name) { return h ? dlsym(h, name) : NULL; }
#define BIND(dst, h, name) do { void *_p = sym((h), (name)); memcpy(&(dst), &_p, sizeof _p); } while (0)

static int load_llama(char *why, size_t why_len) {
    char dir[4096];
    int rc = peer_llama_start(&G, dir, &L.ggml, &L.llama, why, why_len);
    if (rc) return rc;
    BIND(L.backend_free, L.llama, "llama_backend_free");
    BIND(L.model_default_params, L.llama, "llama_model_default_params");
    BIND(L.model_load_from_file, L.llama, "llama_model_load_from_file");
    BIND(L.model_free, L.llama, "llama_model_free");
    BIND(L.model_n_params, L.llama, "llama_model_n_params");
    if (!L.model_default_params ||
        !L.model_load_from_file || !L.model_free || !L.model_n_params) {
        snprintf(why, why_len, "llama.cpp peer in %s lacks a required symbol", dir);
        return -1;
    }
    return 0;
}

/* llama_model_n_params of path, or 0 when it does not load. */
static uint64_t llama_params(const char *path) {
    llama_params_t p = L.model_default_params();
    void *m = L.model_load_from_file(path, p);
    if (!m) return 0;
    uint64_t n = L.model_n_params(m);
    L.model_free(m);
    return n;
}

static void remove_parts(const char *prefix, uint32_t n) {
    for (uint32_t k = 1; k <= n; k++) {
        char p[256];
        snprintf(p, sizeof p, "%s-%05u-of-%05u.gguf", prefix, k, n);
        remove(p);
    }
}

static void check_split(const char *prefix, int64_t max_tensors, uint64_t max_bytes, int no_first, uint32_t want_parts,
                        uint64_t want_params) {
    mio_gguf_split_params sp;
    mio_gguf_split_default_params(&sp);
    sp.max_tensors = max_tensors;
    sp.max_bytes = max_bytes;
    sp.no_tensor_first_split = no_first;
    uint32_t n = 0;
    T_OK(mio_gguf_split("split_in.gguf", prefix, &sp, &n));
    T_EQ_INT(n, want_parts);
    char first[256];
    snprintf(first, sizeof first, "%s-00001-of-%05u.gguf", prefix, n);
    unsigned before = *peer_log_count();
    uint64_t got = llama_params(first);
    IC_CHECK(got == want_params, "%s: llama counts %llu parameters, want %llu", first, (unsigned long long)got,
             (unsigned long long)want_params);
    if (got != want_params && *peer_log_count() > before) peer_dump_log();
    remove_parts(prefix, n);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH_TO_mio-make-sample\n", argv[0]);
        return 2;
    }
    ic_load_peer_or_skip(&G);
    char why[8192];
    int lr = load_llama(why, sizeof why);
    if (lr > 0) T_SKIP(why);
    if (lr < 0) { fprintf(stderr, "FAIL: %s\n", why); return 1; }

    pid_t pid;
    char *av[] = {argv[1], (char *)"split_in.gguf", NULL};
    T_CHECK(posix_spawn(&pid, argv[1], NULL, NULL, av, environ) == 0);
    int ws = 0;
    waitpid(pid, &ws, 0);
    T_CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);

    uint64_t whole = llama_params("split_in.gguf");
    T_EQ_U64(whole, 1328384); /* mio-make-sample's elements, all 21 tensors */
    if (!whole) T_DONE();

    check_split("split_t8", 8, 0, 0, 3, whole);          /* 8 + 8 + 5 tensors */
    check_split("split_t1", 1, 0, 0, 21, whole);         /* one tensor a part */
    check_split("split_m1", 0, 1000000, 0, 3, whole);    /* --split-max-size 1M */
    check_split("split_nf", 10, 0, 1, 4, whole);         /* metadata-only part 1, then 10 + 10 + 1 */

    /* the check has teeth: without its last part the split does not load */
    mio_gguf_split_params sp;
    mio_gguf_split_default_params(&sp);
    sp.max_tensors = 8;
    T_OK(mio_gguf_split("split_in.gguf", "split_cut", &sp, NULL));
    remove("split_cut-00003-of-00003.gguf");
    void *m = L.model_load_from_file("split_cut-00001-of-00003.gguf", L.model_default_params());
    IC_CHECK(m == NULL, "llama.cpp loaded a split with a part missing");
    if (m) L.model_free(m);
    remove_parts("split_cut", 3);
    remove("split_in.gguf");
    if (L.backend_free) L.backend_free();
    T_DONE();
}
