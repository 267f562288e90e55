/* SPDX-License-Identifier: MIT */
/* qcli.h — the quantizer flags mio-quantize and mio-export-gguf share: each
 * flag fills a field of mio_quantize_params (the policy lives in the library;
 * this only parses), and qcli owns the lists and strings the fields point to. */
#ifndef MIO_QCLI_H
#define MIO_QCLI_H

#include <modelio.h>

#include <stddef.h>

typedef struct qcli {
    mio_quantize_params p;
    mio_tensor_type_override *tt;
    size_t n_tt, cap_tt;
    mio_kv_override *kv; /* copies of the parsed overrides (kv_blocks hold their strings) */
    void **kv_blocks;    /* mio_kv_override_parse's blocks, released with mio_free */
    size_t n_kv, cap_kv, cap_kv_blocks;
    int32_t *prune;
    size_t n_prune;
    const char **incl, **excl;
    size_t n_incl, n_excl, cap_incl, cap_excl;
    char **owned; /* strings to free */
    size_t n_owned, cap_owned;
    int tensor_log; /* qcli_run: a line per tensor on stderr (not on a terminal, where the bar runs) */
} qcli;

void qcli_init(qcli *q);
void qcli_free(qcli *q);

/* If argv[*i] is a quantizer flag, consume it (and its value) into q and
 * return 1; return 0 when it is not one; on a bad value print
 * "prog: message" on stderr and return -1. Flags: --imatrix F,
 * --include-weights N, --exclude-weights N, --output-tensor-type T,
 * --token-embedding-type T, --tensor-type REGEX=T, --tensor-type-file F,
 * --leave-output-tensor, --allow-requantize, --pure, --keep-split,
 * --override-kv KEY=TYPE:VALUE, --prune-layers L,..., --experts-dtype T,
 * --dry-run. */
int qcli_flag(qcli *q, const char *prog, int argc, char **argv, int *i);

/* "q4_K" -> MIO_TYPE_Q4_K: a ggml type name, case-insensitive; -1 if none. */
int qcli_type(const char *name);

/* Print "prog: unknown quantization type 'x'; did you mean 'Y'? valid: ..." */
void qcli_unknown_preset(const char *prog, const char *name);

#endif

/* Run the quantizer with q's parameters and report like every tool does: the
 * per-tensor plan (dry run), a progress bar on a terminal, a warning when
 * nothing was converted, the one-line summary and notes on stderr. out "-" or
 * "/dev/stdout" streams to standard output. mode is the policy as the user
 * wrote it, for the plan ("--dtype q8_0"); label names the result in the
 * summary ("q8_0", "Q4_K_M"). Returns the exit status (0, 1, or 2 when the
 * library calls the arguments invalid or OUT is an input). */
int qcli_run(qcli *q, const char *prog, const char *in, const char *out, const char *mode, const char *label,
             int quiet);
