/* SPDX-License-Identifier: MIT */
/* dot_avx512.c — AVX-512 VNNI dot-product kernels (dot/dot_internal.h). */
#include "kernels/avx512/avx512.h"

void avx512_fill_dot(mio_kernels *k) { (void)k; }
