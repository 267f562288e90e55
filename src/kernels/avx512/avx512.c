/* SPDX-License-Identifier: MIT */
/* avx512.c — the AVX-512 back end's table entries (kernels/kernels.h). Runs
 * only after core/cpu.c found AVX-512 F/BW/DQ/VL/VNNI with the OS saving the
 * ZMM and opmask state. */
#include "kernels/avx512/avx512.h"

void mio_kernels_fill_avx512(mio_kernels *k) {
    mio_avx512_fill_dec(k);
    mio_avx512_fill_legacy(k);
    mio_avx512_fill_iq4(k);
    mio_avx512_fill_fp4(k);
    mio_avx512_fill_convert(k);
    mio_avx512_fill_kquants(k);
    mio_avx512_fill_dot(k);
    mio_avx512_fill_packed(k);
    mio_avx512_fill_ptqtp(k);
    mio_avx512_fill_iq(k);
    mio_avx512_fill_iq1(k);
}
