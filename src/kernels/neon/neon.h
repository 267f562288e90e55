/* SPDX-License-Identifier: MIT */
/* neon.h — the NEON back end (AdvSIMD + dotprod, -march=armv8.2-a+dotprod):
 * internal interface between its files. */
#ifndef MIO_KERNELS_NEON_H
#define MIO_KERNELS_NEON_H

#include "kernels/kernels.h"

void mio_neon_fill_dot(mio_kernels *k);
void mio_neon_fill_act(mio_kernels *k);
void mio_neon_fill_packed(mio_kernels *k);

#endif
