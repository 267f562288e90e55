/* SPDX-License-Identifier: MIT */
/* ckpt_internal.h — state dicts, FZT1 and training-checkpoint directories
 * (docs/CHECKPOINTS.md): what the module's files share. */
#ifndef MIO_CKPT_INTERNAL_H
#define MIO_CKPT_INTERNAL_H

#include "core/core.h"
#include "modelio.h"

#include <stdbool.h>

/* F32, F16, BF16 or I64: the dtypes a state dict holds (the seed's §12.6). */
bool mio_sd_dtype_ok(int dtype);

#endif
