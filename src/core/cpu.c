/* SPDX-License-Identifier: MIT */
/* cpu.c — CPU feature detection and the instruction-set choice (see cpu.h).
 * Compiled with the baseline flags only: nothing here may run an instruction
 * the detection has not vouched for. */
#include "core/cpu.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>
#define CPU_X86 1
#elif defined(__aarch64__)
#include <sys/auxv.h>
#define CPU_ARM64 1
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif
#endif

static const char *const g_names[MIO_ISA_COUNT] = {"scalar", "avx2", "avx512", "neon"};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cpu_features g_feat;
static mio_isa g_isa;
static char g_refused[512]; /* non-empty: MIO_ISA was refused, the message */

const char *mio_cpu_isa_name(mio_isa isa) { return isa >= 0 && isa < MIO_ISA_COUNT ? g_names[isa] : "?"; }

bool mio_cpu_isa_includes(mio_isa have, mio_isa want) {
    if (want == MIO_ISA_SCALAR || have == want) return true;
    return have == MIO_ISA_AVX512 && want == MIO_ISA_AVX2;
}

#ifdef CPU_X86
static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* Why AMX is not used, into f->amx_why: the CPU, the OS's XCR0, and whether
 * Linux offers the tile data state (asked, not requested: a request grows every
 * signal frame of the process). */
static void amx_check(cpu_features *f, bool tile_bit, bool int8_bit, bool tiles_xcr0) {
    if (!tile_bit || !int8_bit) {
        snprintf(f->amx_why, sizeof f->amx_why, "this CPU lacks %s%s%s", tile_bit ? "" : "amx_tile",
                 !tile_bit && !int8_bit ? ", " : "", int8_bit ? "" : "amx_int8");
        return;
    }
    if (!tiles_xcr0) {
        snprintf(f->amx_why, sizeof f->amx_why, "the OS does not enable the tile state (XCR0 bits 17-18)");
        return;
    }
#if defined(__linux__) && defined(SYS_arch_prctl)
    unsigned long supp = 0;
    if (syscall(SYS_arch_prctl, 0x1021 /* ARCH_GET_XCOMP_SUPP */, &supp) != 0) {
        snprintf(f->amx_why, sizeof f->amx_why, "Linux does not offer the tile state (arch_prctl ARCH_GET_XCOMP_SUPP: %s)",
                 strerror(errno));
        return;
    }
    if (!((supp >> 18) & 1ul)) {
        snprintf(f->amx_why, sizeof f->amx_why,
                 "Linux does not offer the tile state (XFEATURE_XTILEDATA not in ARCH_GET_XCOMP_SUPP)");
        return;
    }
    snprintf(f->amx_why, sizeof f->amx_why, "this build has no AMX kernels (docs/KERNELS.md, section 9)");
#else
    snprintf(f->amx_why, sizeof f->amx_why, "this build cannot ask the OS for the tile state (not Linux)");
#endif
}

static void detect(cpu_features *f) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    const bool osxsave = (c >> 27) & 1u;
    const bool fma = (c >> 12) & 1u, avx = (c >> 28) & 1u, f16c = (c >> 29) & 1u;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    const bool ymm = (xcr0 & 0x6) == 0x6;         /* XMM and YMM state */
    const bool zmm = ymm && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM_Hi256, Hi16_ZMM */
    f->avx = avx && ymm;
    f->fma = fma && f->avx;
    f->f16c = f16c && f->avx;
    unsigned a7 = 0, b7 = 0, c7 = 0, d7 = 0, a71 = 0, b71 = 0, c71 = 0, d71 = 0;
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a7, b7, c7, d7);
        if (a7 >= 1) __cpuid_count(7, 1, a71, b71, c71, d71);
    }
    f->avx2 = f->avx && ((b7 >> 5) & 1u);
    f->bmi2 = (b7 >> 8) & 1u;
    f->avx512f = zmm && ((b7 >> 16) & 1u);
    f->avx512dq = f->avx512f && ((b7 >> 17) & 1u);
    f->avx512bw = f->avx512f && ((b7 >> 30) & 1u);
    f->avx512vl = f->avx512f && ((b7 >> 31) & 1u);
    f->avx512vnni = f->avx512f && ((c7 >> 11) & 1u);
    f->avx512bf16 = f->avx512f && ((a71 >> 5) & 1u);
    (void)b71; (void)c71; (void)d71;
    const bool tiles = (xcr0 & 0x60000) == 0x60000; /* XTILECFG, XTILEDATA */
    f->amx_tile = tiles && ((d7 >> 24) & 1u);
    f->amx_int8 = f->amx_tile && ((d7 >> 25) & 1u);
    f->amx_bf16 = f->amx_tile && ((d7 >> 22) & 1u);
    amx_check(f, (d7 >> 24) & 1u, (d7 >> 25) & 1u, tiles);
}
#elif defined(CPU_ARM64)
static void detect(cpu_features *f) {
    unsigned long hw = getauxval(AT_HWCAP);
    f->neon = (hw & HWCAP_ASIMD) != 0;
    f->dotprod = f->neon && (hw & HWCAP_ASIMDDP) != 0;
}
#else
static void detect(cpu_features *f) { (void)f; }
#endif

/* Levels this build knows on this architecture, best first. */
#ifdef CPU_X86
static const mio_isa g_levels[] = {MIO_ISA_AVX512, MIO_ISA_AVX2, MIO_ISA_SCALAR};
static const char g_accepted[] = "scalar, avx2, avx512";
#elif defined(CPU_ARM64)
static const mio_isa g_levels[] = {MIO_ISA_NEON, MIO_ISA_SCALAR};
static const char g_accepted[] = "scalar, neon";
#else
static const mio_isa g_levels[] = {MIO_ISA_SCALAR};
static const char g_accepted[] = "scalar";
#endif

/* Every feature the library reads: its name as Linux's /proc/cpuinfo writes it,
 * where cpu_features keeps it, and the levels that need it (bit per mio_isa). */
#define NEED(isa) (1u << (isa))
#define X86_AVX2 (NEED(MIO_ISA_AVX2) | NEED(MIO_ISA_AVX512))
static const struct feature {
    const char *name;
    size_t off;
    unsigned levels;
} k_features[] = {
    {"avx", offsetof(cpu_features, avx), 0},
    {"avx2", offsetof(cpu_features, avx2), X86_AVX2},
    {"fma", offsetof(cpu_features, fma), X86_AVX2},
    {"f16c", offsetof(cpu_features, f16c), X86_AVX2},
    {"bmi2", offsetof(cpu_features, bmi2), 0},
    {"avx512f", offsetof(cpu_features, avx512f), NEED(MIO_ISA_AVX512)},
    {"avx512bw", offsetof(cpu_features, avx512bw), NEED(MIO_ISA_AVX512)},
    {"avx512dq", offsetof(cpu_features, avx512dq), NEED(MIO_ISA_AVX512)},
    {"avx512vl", offsetof(cpu_features, avx512vl), NEED(MIO_ISA_AVX512)},
    {"avx512_vnni", offsetof(cpu_features, avx512vnni), NEED(MIO_ISA_AVX512)},
    {"avx512_bf16", offsetof(cpu_features, avx512bf16), 0},
    {"amx_tile", offsetof(cpu_features, amx_tile), 0},
    {"amx_int8", offsetof(cpu_features, amx_int8), 0},
    {"amx_bf16", offsetof(cpu_features, amx_bf16), 0},
    {"asimd", offsetof(cpu_features, neon), NEED(MIO_ISA_NEON)},
    {"asimddp", offsetof(cpu_features, dotprod), NEED(MIO_ISA_NEON)},
};
static bool feature_has(const cpu_features *f, const struct feature *e) {
    bool v;
    memcpy(&v, (const char *)f + e->off, sizeof v);
    return v;
}

/* The features a level needs that the CPU lacks, as "a, b" into buf (empty: none). */
static void missing(mio_isa isa, const cpu_features *f, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof k_features / sizeof k_features[0]; i++)
        if ((k_features[i].levels & NEED(isa)) && !feature_has(f, &k_features[i]) && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", k_features[i].name);
}

static bool known_here(mio_isa isa) {
    for (size_t i = 0; i < sizeof g_levels / sizeof g_levels[0]; i++)
        if (g_levels[i] == isa) return true;
    return false;
}

static void choose(void) {
    detect(&g_feat);
    char miss[160];
    mio_isa best = MIO_ISA_SCALAR;
    for (size_t i = 0; i < sizeof g_levels / sizeof g_levels[0]; i++) {
        missing(g_levels[i], &g_feat, miss, sizeof miss);
        if (!miss[0]) { best = g_levels[i]; break; }
    }
    g_isa = best;
    const char *req = getenv("MIO_ISA");
    if (!req || !req[0]) return;
    int want = -1;
    for (int i = 0; i < MIO_ISA_COUNT; i++)
        if (strcmp(req, g_names[i]) == 0) want = i;
#ifdef CPU_X86
    if (strcmp(req, "amx") == 0) { /* known, never a level of this build: say why it is not used */
        snprintf(g_refused, sizeof g_refused, "MIO_ISA=amx: %s; accepted values are %s (best on this CPU: %s)",
                 g_feat.amx_why, g_accepted, g_names[best]);
        return;
    }
#endif
    if (want < 0) {
        snprintf(g_refused, sizeof g_refused, "MIO_ISA=%.64s is not an instruction set: accepted values are %s",
                 req, g_accepted);
        return;
    }
    if (!known_here((mio_isa)want)) {
        snprintf(g_refused, sizeof g_refused,
                 "MIO_ISA=%s: this build runs on %s, where accepted values are %s (best on this CPU: %s)", req,
#ifdef CPU_X86
                 "x86-64",
#elif defined(CPU_ARM64)
                 "aarch64",
#else
                 "this architecture",
#endif
                 g_accepted, g_names[best]);
        return;
    }
    missing((mio_isa)want, &g_feat, miss, sizeof miss);
    if (miss[0]) {
        snprintf(g_refused, sizeof g_refused,
                 "MIO_ISA=%s: this CPU (or the OS register state) lacks %s; the best this CPU runs is %s", req, miss,
                 g_names[best]);
        return;
    }
    g_isa = (mio_isa)want;
}

static pthread_once_t g_line_once = PTHREAD_ONCE_INIT;
static char g_line[800];

static void build_line(void) {
    pthread_once(&g_once, choose);
    const cpu_features *f = &g_feat;
    size_t len = (size_t)snprintf(g_line, sizeof g_line, "features:");
    int any = 0;
    for (size_t i = 0; i < sizeof k_features / sizeof k_features[0]; i++)
        if (feature_has(f, &k_features[i]) && len < sizeof g_line)
            len += (size_t)snprintf(g_line + len, sizeof g_line - len, " %s", k_features[i].name), any = 1;
    if (!any && len < sizeof g_line) len += (size_t)snprintf(g_line + len, sizeof g_line - len, " none");
    if (len < sizeof g_line) {
        if (g_refused[0]) len += (size_t)snprintf(g_line + len, sizeof g_line - len, "; level: refused (%s)", g_refused);
        else len += (size_t)snprintf(g_line + len, sizeof g_line - len, "; level: %s", g_names[g_isa]);
    }
#ifdef CPU_X86
    if (len < sizeof g_line)
        snprintf(g_line + len, sizeof g_line - len, "; amx: not used (%s)", f->amx_why[0] ? f->amx_why : "CPUID gave no answer");
#endif
}

const char *mio_cpu_features(void) {
    pthread_once(&g_line_once, build_line);
    return g_line;
}

const cpu_features *mio_cpu_features_get(void) {
    pthread_once(&g_once, choose);
    return &g_feat;
}

bool mio_cpu_isa_runs(mio_isa isa) {
    pthread_once(&g_once, choose);
    char miss[160];
    if ((int)isa < 0 || (int)isa >= (int)MIO_ISA_COUNT || !known_here(isa)) return false;
    missing(isa, &g_feat, miss, sizeof miss);
    return !miss[0];
}

bool mio_cpu_isa_peek(mio_isa *isa) {
    pthread_once(&g_once, choose);
    *isa = g_refused[0] ? MIO_ISA_SCALAR : g_isa;
    return !g_refused[0];
}

mio_status mio_cpu_isa_level(mio_isa *isa) {
    pthread_once(&g_once, choose);
    if (g_refused[0]) {
        *isa = MIO_ISA_SCALAR;
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s", g_refused);
    }
    *isa = g_isa;
    return MIO_OK;
}

const char *mio_cpu_isa(void) {
    mio_isa isa;
    return mio_cpu_isa_level(&isa) ? NULL : g_names[isa];
}
