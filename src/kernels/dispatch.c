/* SPDX-License-Identifier: MIT */
/* dispatch.c — builds the codec kernel table (kernels.h) once, from the level
 * core/cpu.c chose. A back end compiled into this build announces itself with
 * MIO_KERNELS_<ISA> (set by src/CMakeLists.txt next to its object library). */
#include "kernels/kernels.h"

#include <pthread.h>
#include <string.h>

static const struct backend {
    mio_isa isa;
    void (*fill)(mio_kernels *k);
} g_backends[] = {
    /* lowest level first: a higher level's entries override the lower ones */
#ifdef MIO_KERNELS_AVX2
    {MIO_ISA_AVX2, mio_kernels_fill_avx2},
#endif
#ifdef MIO_KERNELS_AVX512
    {MIO_ISA_AVX512, mio_kernels_fill_avx512},
#endif
#ifdef MIO_KERNELS_NEON
    {MIO_ISA_NEON, mio_kernels_fill_neon},
#endif
    {MIO_ISA_SCALAR, NULL}, /* the portable C: no entries */
};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static mio_kernels g_tab; /* all NULL until built: the portable table */

void mio_kernels_apply(mio_kernels *k, void (*fill)(mio_kernels *k)) {
    kern_dot_fn dot[MIO_TYPE_GGML_COUNT];
    kern_dotx_fn dotx[MIO_TYPE_GGML_COUNT];
    memcpy(dot, k->dot, sizeof dot);
    memcpy(dotx, k->dotx, sizeof dotx);
    fill(k);
    for (int t = 0; t < MIO_TYPE_GGML_COUNT; t++)
        if (k->dot[t] != dot[t] && k->dotx[t] == dotx[t]) k->dotx[t] = NULL;
}

static void build(void) {
    mio_isa isa;
    if (!mio_cpu_isa_peek(&isa)) return; /* refused: stay portable */
    for (size_t i = 0; i < sizeof g_backends / sizeof g_backends[0]; i++)
        if (g_backends[i].fill && mio_cpu_isa_includes(isa, g_backends[i].isa)) mio_kernels_apply(&g_tab, g_backends[i].fill);
}

const mio_kernels *mio_kernels_table(void) {
    pthread_once(&g_once, build);
    return &g_tab;
}

mio_status mio_kernels_get(const mio_kernels **k) {
    pthread_once(&g_once, build);
    *k = &g_tab;
    mio_isa isa;
    return mio_cpu_isa_level(&isa);
}
