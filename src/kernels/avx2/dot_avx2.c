/* SPDX-License-Identifier: MIT */
/* dot_avx2.c — AVX2 dot-product kernels and activation quantizers (dot/dot_internal.h). */
#include "kernels/avx2/avx2.h"

void avx2_fill_dot(mio_kernels *k) { (void)k; }
