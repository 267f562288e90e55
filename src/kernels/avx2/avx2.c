/* SPDX-License-Identifier: MIT */
/* avx2.c — the AVX2 back end's table entries (kernels/kernels.h). Runs only
 * after core/cpu.c found AVX2, FMA and F16C with the OS saving YMM state. */
#include "kernels/avx2/avx2.h"

void mio_kernels_fill_avx2(mio_kernels *k) {
    mio_avx2_fill_convert(k);
    mio_avx2_fill_legacy(k);
    mio_avx2_fill_kquants(k);
    mio_avx2_fill_iq(k);
    mio_avx2_fill_iq4(k);
    mio_avx2_fill_fp4(k);
    mio_avx2_fill_dec(k);
    mio_avx2_fill_dot(k);
    mio_avx2_fill_packed(k);
    mio_avx2_fill_ptqtp(k);
}
