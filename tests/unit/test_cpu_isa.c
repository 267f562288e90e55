/* SPDX-License-Identifier: MIT */
/* test_cpu_isa.c — the ISA dispatch (core/cpu.c, docs/KERNELS.md): mio_cpu_isa()
 * agrees with the CPU flags of /proc/cpuinfo; MIO_ISA overrides it; a name that
 * is no level, or a level this CPU cannot run, is refused with a message (and
 * every codec call fails, writing nothing) instead of crashing. The choice is
 * made once per process, so each MIO_ISA value runs in a child process:
 * `test_cpu_isa child EXPECT [SUBSTRING...]` with EXPECT a level name or
 * "refused" and the substrings the refusal message must contain. */
#include "modelio.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_flags[8192]; /* " flag1 flag2 ... " of the first cpu */

/* x86: "flags\t\t: fpu vme ..."; aarch64: "Features\t: fp asimd ..." */
#if defined(__aarch64__)
static const char k_key[] = "Features";
#else
static const char k_key[] = "flags";
#endif

static void read_flags(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) T_SKIP("no /proc/cpuinfo");
    char line[8192];
    g_flags[0] = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, k_key, strlen(k_key))) continue;
        const char *c = strchr(line, ':');
        if (!c) continue;
        snprintf(g_flags, sizeof g_flags, " %s", c + 1);
        size_t n = strlen(g_flags);
        while (n && (g_flags[n - 1] == '\n' || g_flags[n - 1] == ' ')) g_flags[--n] = 0;
        strcat(g_flags, " ");
        break;
    }
    fclose(f);
    if (g_flags[0]) return;
    /* qemu-user shows the host's /proc/cpuinfo (another architecture's): the
     * runner (tests/neon/run_neon.sh) names the emulated CPU's features */
    const char *env = getenv("MIO_TEST_CPU_FEATURES");
    if (env) snprintf(g_flags, sizeof g_flags, " %s ", env);
#if defined(__x86_64__) || defined(__aarch64__)
    else T_SKIP("/proc/cpuinfo has no Features/flags line of this architecture (under qemu-user? set MIO_TEST_CPU_FEATURES)");
#endif
}

static int has(const char *flag) {
    char w[64];
    snprintf(w, sizeof w, " %s ", flag);
    return strstr(g_flags, w) != NULL;
}

/* The level the dispatch must pick by itself on this CPU. */
static const char *expected_isa(void) {
#if defined(__x86_64__)
    int avx2 = has("avx2") && has("fma") && has("f16c");
    int avx512 = avx2 && has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl") && has("avx512_vnni");
    return avx512 ? "avx512" : avx2 ? "avx2" : "scalar";
#elif defined(__aarch64__)
    return has("asimd") && has("asimddp") ? "neon" : "scalar";
#else
    return "scalar";
#endif
}

/* In a child: the dispatch's answer for the inherited MIO_ISA. */
static int child(int argc, char **argv) {
    const char *want = argv[2];
    if (strcmp(want, "refused") == 0) {
        /* first contact with the codecs through a call that needs no kernel: it
         * answers and leaves the last error (here: a GGUF refusal) alone */
        mio_gguf_file *g = NULL;
        T_CHECK(mio_gguf_open_buffer("XXXXXXXX", 8, 0, &g) != MIO_OK);
        T_CHECK(strstr(mio_last_error(), "MIO_ISA") == NULL);
        T_EQ_INT(mio_type_can_encode(MIO_TYPE_Q8_0), 1);
        T_EQ_INT(mio_type_can_decode(MIO_TYPE_Q4_K), 1);
        T_CHECK(strstr(mio_last_error(), "MIO_ISA") == NULL);
    }
    const char *got = mio_cpu_isa();
    float x[32];
    for (int i = 0; i < 32; i++) x[i] = (float)i;
    uint8_t q[34], dst[34];
    memset(q, 0xAA, sizeof q);
    printf("MIO_ISA=%s -> %s\n", getenv("MIO_ISA") ? getenv("MIO_ISA") : "(unset)", got ? got : "NULL");
    if (strcmp(want, "refused") == 0) {
        T_CHECK(got == NULL);
        printf("  message: %s\n", mio_last_error());
        for (int i = 3; i < argc; i++) T_MSG_HAS(argv[i]);
        /* every codec call is refused the same way and writes nothing */
        T_STATUS(mio_encode_f32(MIO_TYPE_Q8_0, x, 32, q, sizeof q), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("MIO_ISA=");
        T_STATUS(mio_encode_f32_mt(MIO_TYPE_Q8_0, x, 32, q, sizeof q, 2), MIO_ERR_INVALID_ARG);
        T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q8_0, x, 32, 32, x, q, sizeof q), MIO_ERR_INVALID_ARG);
        float y[32];
        memset(dst, 0, sizeof dst);
        T_STATUS(mio_decode_f32(MIO_TYPE_Q8_0, dst, sizeof dst, y, 32), MIO_ERR_INVALID_ARG);
        T_STATUS(mio_decode_f32_mt(MIO_TYPE_Q8_0, dst, sizeof dst, y, 32, 2), MIO_ERR_INVALID_ARG);
        T_MSG_HAS("MIO_ISA=");
        int untouched = 1;
        for (size_t i = 0; i < sizeof q; i++) untouched &= q[i] == 0xAA;
        T_CHECK(untouched);
        T_STATUS(mio_encode_f32(-1, x, 32, q, sizeof q), MIO_ERR_INVALID_ARG); /* the refusal comes first */
        T_MSG_HAS("MIO_ISA=");
    } else {
        T_EQ_STR(got, want);
        T_CHECK(mio_cpu_isa() == got); /* one choice per process */
        /* q8_0 of 0..31: d = 31/127 (f16 0x33d0), codes round(i * 127/31) */
        T_OK(mio_encode_f32(MIO_TYPE_Q8_0, x, 32, q, sizeof q));
        T_EQ_INT(q[0] | q[1] << 8, 0x33d0);
        T_EQ_INT(q[2], 0);
        T_EQ_INT(q[3], 4);   /* 1 * 127/31 = 4.097 */
        T_EQ_INT(q[33], 127); /* 31 */
    }
    T_DONE();
}

/* Run this program as a child with MIO_ISA=isa (NULL: unset) and the expectation. */
static void run(char **argv, const char *isa, const char *const *args) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (isa) setenv("MIO_ISA", isa, 1);
        else unsetenv("MIO_ISA");
        /* MIO_TEST_REEXEC: a command (words split at spaces) that runs this
         * program, for qemu-user, where /proc/self/exe is qemu itself to execve */
        char *av[40], pre[1024] = "", self[4096];
        int n = 0;
        const char *wrap = getenv("MIO_TEST_REEXEC");
        if (wrap) {
            snprintf(pre, sizeof pre, "%s", wrap);
            for (char *tok = strtok(pre, " "); tok && n < 30; tok = strtok(NULL, " ")) av[n++] = tok;
            ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
            if (len <= 0) _exit(126);
            self[len] = 0;
            av[n++] = self;
        } else
            av[n++] = argv[0];
        av[n++] = (char *)"child";
        for (int i = 0; args[i] && i < 5; i++) av[n++] = (char *)args[i];
        av[n] = NULL;
        if (wrap) execvp(av[0], av);
        else execv("/proc/self/exe", av);
        _exit(127);
    }
    int status = 0;
    T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status)) printf("child MIO_ISA=%s died (signal %d)\n", isa ? isa : "(unset)", WTERMSIG(status));
    T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* mio_cpu_features() against /proc/cpuinfo: every feature it names is a flag
 * there, every flag of its list that is there is named (the OS saves every
 * register state here), the level is mio_cpu_isa()'s, and on x86-64 the AMX
 * reason matches the flags. */
static void features_line(void) {
    const char *line = mio_cpu_features();
    printf("mio_cpu_features: %s\n", line);
    T_CHECK(strncmp(line, "features: ", 10) == 0);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line + 10);
    char *end = strchr(buf, ';');
    T_CHECK(end != NULL);
    if (!end) return;
    *end = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        if (strcmp(tok, "none") == 0) continue;
        if (!has(tok)) printf("  %s is not a flag of /proc/cpuinfo\n", tok);
        T_CHECK(has(tok));
    }
    static const char *const known[] = {"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                                        "amx_int8", "asimd", "asimddp"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char w[64];
        snprintf(w, sizeof w, " %s", known[i]);
        const char *hit = strstr(line, w);
        const int named = hit && hit < strchr(line, ';') && (hit[strlen(w)] == ' ' || hit[strlen(w)] == ';');
#if defined(__x86_64__)
        const int here = has(known[i]) && strncmp(known[i], "asimd", 5) != 0;
#else
        const int here = has(known[i]) && strncmp(known[i], "asimd", 5) == 0;
#endif
        if (named != here) printf("  %s: cpuinfo %d, mio_cpu_features %d\n", known[i], here, named);
        T_EQ_INT(named, here);
    }
    char lv[64];
    snprintf(lv, sizeof lv, "; level: %s", expected_isa());
    T_CHECK(strstr(line, lv) != NULL);
#if defined(__x86_64__)
    if (!has("amx_tile")) T_CHECK(strstr(line, "; amx: not used (this CPU lacks amx_tile") != NULL);
    else T_CHECK(strstr(line, "; amx: not used (") != NULL);
#else
    T_CHECK(strstr(line, "amx") == NULL);
#endif
    T_CHECK(mio_cpu_features() == line); /* one string per process */
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 3 && strcmp(argv[1], "child") == 0) return child(argc, argv);
    read_flags();
    const char *auto_isa = expected_isa();
    printf("cpuinfo says: %s\n", auto_isa);

    run(argv, NULL, (const char *const[]){auto_isa, NULL});
    run(argv, "", (const char *const[]){auto_isa, NULL}); /* empty: as unset */
    run(argv, "scalar", (const char *const[]){"scalar", NULL});
    if (!getenv("MIO_ISA")) features_line();
#if defined(__x86_64__)
    static const char accepted[] = "accepted values are scalar, avx2, avx512";
    run(argv, "bogus", (const char *const[]){"refused", "MIO_ISA=bogus", accepted, NULL});
    run(argv, "AVX2", (const char *const[]){"refused", "MIO_ISA=AVX2", accepted, NULL}); /* names are lower-case */
    /* a level of another architecture: above anything this CPU runs */
    run(argv, "neon", (const char *const[]){"refused", "MIO_ISA=neon", "x86-64", accepted, NULL});
    /* amx: a known name, never a level of this build: refused saying why (docs/KERNELS.md section 9) */
    if (!has("amx_tile"))
        run(argv, "amx", (const char *const[]){"refused", "MIO_ISA=amx: this CPU lacks amx_tile", accepted, NULL});
    else
        run(argv, "amx", (const char *const[]){"refused", "MIO_ISA=amx: ", accepted, NULL});
    /* the x86 levels: chosen when the CPU has them, else refused naming what is missing */
    if (strcmp(auto_isa, "scalar") != 0) run(argv, "avx2", (const char *const[]){"avx2", NULL});
    else run(argv, "avx2", (const char *const[]){"refused", "MIO_ISA=avx2", "lacks", "avx2", NULL});
    if (strcmp(auto_isa, "avx512") == 0) run(argv, "avx512", (const char *const[]){"avx512", NULL});
    else run(argv, "avx512", (const char *const[]){"refused", "MIO_ISA=avx512", "lacks", "avx512", NULL});
#elif defined(__aarch64__)
    static const char accepted[] = "accepted values are scalar, neon";
    run(argv, "bogus", (const char *const[]){"refused", "MIO_ISA=bogus", accepted, NULL});
    run(argv, "avx2", (const char *const[]){"refused", "MIO_ISA=avx2", "aarch64", accepted, NULL});
    if (strcmp(auto_isa, "neon") == 0) run(argv, "neon", (const char *const[]){"neon", NULL});
    else run(argv, "neon", (const char *const[]){"refused", "MIO_ISA=neon", "lacks", NULL});
#endif
    T_DONE();
}
