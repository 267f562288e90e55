/* SPDX-License-Identifier: MIT */
/* avx512.c — the AVX-512 back end's table entries (kernels/kernels.h). Runs
 * only after core/cpu.c found AVX-512 F/BW/DQ/VL/VNNI with the OS saving the
 * ZMM and opmask state. */
#include "kernels/avx512/avx512.h"

void kernels_fill_avx512(mio_kernels *k) {
    avx512_fill_dec(k);
    avx512_fill_dot(k);
    avx512_fill_ptqtp(k);
}
