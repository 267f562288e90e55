/* SPDX-License-Identifier: MIT */
/* cpu.h — the one place that knows which CPU the library runs on: features read
 * once (CPUID leaves 1 and 7 with XGETBV checks that the OS saves the AVX and
 * AVX-512 register state on x86-64; getauxval(AT_HWCAP) on aarch64), the
 * MIO_ISA override, and the instruction-set level every kernel table is built
 * from (kernels/dispatch.c). Nothing else reads MIO_ISA or CPUID. */
#ifndef MIO_CORE_CPU_H
#define MIO_CORE_CPU_H

#include "core/core.h"

#include <stdbool.h>

/* Levels. On x86-64 they nest: avx512 implies avx2 implies scalar; on aarch64
 * neon implies scalar. A level's kernel table holds its own kernels plus those
 * of the levels it implies (kernels/dispatch.c). */
typedef enum { MIO_ISA_SCALAR = 0, MIO_ISA_AVX2 = 1, MIO_ISA_AVX512 = 2, MIO_ISA_NEON = 3, MIO_ISA_COUNT } mio_isa;

/* What the CPU (and the OS: register state enabled in XCR0) offers. */
typedef struct cpu_features {
    bool avx, avx2, fma, f16c, bmi2;                        /* avx/avx2/fma/f16c need OS YMM state */
    bool avx512f, avx512bw, avx512dq, avx512vl, avx512vnni, avx512bf16; /* need OS ZMM/opmask state */
    bool neon, dotprod;                                     /* aarch64: HWCAP_ASIMD, HWCAP_ASIMDDP */
    /* AMX (CPUID 7.0 EDX bits 24, 25, 22; XCR0 bits 17-18 XTILECFG/XTILEDATA) */
    bool amx_tile, amx_int8, amx_bf16;
    /* why AMX is not used here (x86-64; also tells whether Linux's
     * arch_prctl(ARCH_GET_XCOMP_SUPP) offers XFEATURE_XTILEDATA) */
    char amx_why[160];
} cpu_features;

/* Detected features (read once, thread-safe). */
const cpu_features *mio_cpu_features_get(void);

/* Name of a level ("scalar", "avx2", "avx512", "neon"). */
const char *mio_cpu_isa_name(mio_isa isa);

/* 1 if level `have` includes level `want` (avx512 includes avx2 and scalar, ...). */
bool mio_cpu_isa_includes(mio_isa have, mio_isa want);

/* 1 if this CPU (and OS) can run level isa on this architecture, whatever
 * MIO_ISA says (for tests that compare every back end the CPU runs). */
bool mio_cpu_isa_runs(mio_isa isa);

/* The level in use: the best one this CPU and this build support, or the one
 * MIO_ISA names. MIO_OK and *isa set; or, when MIO_ISA names no level or one
 * this CPU/build cannot run, MIO_ERR_INVALID_ARG with mio_last_error() naming
 * MIO_ISA, the missing features and the accepted values (every call fails the
 * same way: the choice is made once per process). */
mio_status mio_cpu_isa_level(mio_isa *isa);
/* The same without touching mio_last_error(): true and *isa set, or false
 * (MIO_ISA refused; *isa is MIO_ISA_SCALAR). */
bool mio_cpu_isa_peek(mio_isa *isa);

#endif
