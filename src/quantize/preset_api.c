/* SPDX-License-Identifier: MIT */
/* preset_api.c — the public preset-name functions (the table lives in policy.c). */
#include "quantize/quantize_internal.h"
#include "core/core.h"

int mio_preset_from_name(const char *name) { return mio_qz_preset_from_name(name); }

const char *mio_preset_name(int preset) { return mio_qz_preset_name(preset); }

const char *mio_preset_suggest(const char *name) { return mio_qz_preset_suggest(name); }
