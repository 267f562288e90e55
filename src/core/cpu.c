/* SPDX-License-Identifier: MIT */
/* cpu.c — CPU feature detection and the instruction-set choice (see cpu.h).
 * Compiled with the baseline flags only: nothing here may run an instruction
 * the detection has not vouched for. */
#include "core/cpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
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
    (void)d7; (void)b71; (void)c71; (void)d71;
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

/* The features a level needs that the CPU lacks, as "a, b" into buf (empty: none). */
static void missing(mio_isa isa, const cpu_features *f, char *buf, size_t cap) {
    struct { bool need, have; const char *name; } req[] = {
        {isa == MIO_ISA_AVX2 || isa == MIO_ISA_AVX512, f->avx2, "avx2"},
        {isa == MIO_ISA_AVX2 || isa == MIO_ISA_AVX512, f->fma, "fma"},
        {isa == MIO_ISA_AVX2 || isa == MIO_ISA_AVX512, f->f16c, "f16c"},
        {isa == MIO_ISA_AVX512, f->avx512f, "avx512f"},
        {isa == MIO_ISA_AVX512, f->avx512bw, "avx512bw"},
        {isa == MIO_ISA_AVX512, f->avx512dq, "avx512dq"},
        {isa == MIO_ISA_AVX512, f->avx512vl, "avx512vl"},
        {isa == MIO_ISA_AVX512, f->avx512vnni, "avx512_vnni"},
        {isa == MIO_ISA_NEON, f->neon, "asimd"},
        {isa == MIO_ISA_NEON, f->dotprod, "asimddp"},
    };
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (req[i].need && !req[i].have && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", req[i].name);
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
