/* SPDX-License-Identifier: MIT */
/* dot_neon.c — NEON dotprod dot-product kernels (dot/dot_internal.h). */
#include "kernels/neon/neon.h"

void neon_fill_dot(mio_kernels *k) { (void)k; }
