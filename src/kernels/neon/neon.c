/* SPDX-License-Identifier: MIT */
/* neon.c — the NEON back end's table entries (kernels/kernels.h). Runs only
 * after core/cpu.c found AdvSIMD with the dot-product extension (HWCAP_ASIMDDP). */
#include "kernels/neon/neon.h"

void mio_kernels_fill_neon(mio_kernels *k) {
    mio_neon_fill_dot(k);
    mio_neon_fill_act(k);
    mio_neon_fill_packed(k);
}
