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
/* The state-dict rules for n entries entry_size bytes apart (the dtype; the
 * writer checks the names): *use is the library-layout array to save from,
 * *copy what to free afterwards (NULL when t is used as it is). */
mio_status mio_sd_check_entries(const char *fn, const mio_st_entry *t, size_t n, size_t entry_size,
                                const mio_st_entry **use, mio_st_entry **copy);

/* One file of a checkpoint's sentinel. */
typedef struct ck_file {
    char *name;
    uint64_t size, hash; /* bytes, XXH3-64 */
} ck_file;
/* Free n files (their names) and the array; f may be NULL. */
void mio_ckpt_files_free(ck_file *f, size_t n);
/* The parsers of dir.c, for the fuzz target: the sentinel (its files, owned
 * by the caller: free each name and the array) and trainer_state.json (step,
 * seed, the other members as one JSON object to free()). text[len] is NUL. */
mio_status mio_ckpt_parse_sentinel(const char *text, size_t len, ck_file **files, size_t *n_files);
mio_status mio_ckpt_parse_trainer_state(const char *text, size_t len, uint64_t *step, uint64_t *seed, char **extra);

#endif
