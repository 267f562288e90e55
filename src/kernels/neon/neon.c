/* SPDX-License-Identifier: MIT */
/* neon.c — the NEON back end's table entries (kernels/kernels.h). Runs only
 * after core/cpu.c found AdvSIMD with the dot-product extension (HWCAP_ASIMDDP). */
#include "kernels/neon/neon.h"

void kernels_fill_neon(mio_kernels *k) {
    neon_fill_dot(k);
    neon_fill_act(k);
}
