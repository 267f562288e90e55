/* SPDX-License-Identifier: MIT */
/**
 * modelio_inspect.h — libmodelio's inspection API: format detection, tensor and
 * whole-model hashes with their manifest format, tensor statistics, model diff,
 * the model description mio-inspect prints, and "will it fit?" memory
 * estimates. A second public header beside modelio.h (as zstd keeps zdict.h):
 * everything here follows modelio.h's conventions (mio_status results,
 * mio_last_error() messages, outputs untouched on failure, NULL arguments never
 * crash) and is exported from the same libmodelio.so / libmodelio.a.
 */
#ifndef MODELIO_INSPECT_H
#define MODELIO_INSPECT_H

#include <modelio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** Memory estimates ("will it fit?")                                         */
/* ------------------------------------------------------------------------- */

#ifdef __cplusplus
}
#endif

#endif
