/* SPDX-License-Identifier: MIT */
/* harness.h — what the fault loops (test_fault.c) need from a scenario
 * (scenarios.c): a scenario is one use of a public entry point the way a
 * program makes it — build, call, clean up — run in a directory of its own
 * that setup() filled with its inputs and with a destination file holding
 * known bytes. run() makes every library call (so every allocation and I/O
 * it does is under the armed fault) and frees everything it made; its
 * in-memory results (a callback's bytes, what an open handle reports) go to
 * g_mem, a descriptor output to g_fd. */
#ifndef MIO_FAULT_HARNESS_H
#define MIO_FAULT_HARNESS_H

#include "modelio.h"

#include <stddef.h>
#include <stdint.h>

typedef struct scenario {
    const char *name;
    void (*setup)(void);   /* inputs (and pre-existing destinations) in the current directory */
    void (*prep)(void);    /* optional, before every run, disarmed (e.g. open an input descriptor) */
    mio_status (*run)(void);
} scenario;

extern const scenario g_scenarios[];
extern const size_t g_n_scenarios;

/* Result bytes of a run (real allocator: never counted, never failed). */
typedef struct outbuf { uint8_t *p; size_t len, cap; } outbuf;
extern outbuf g_mem;
void buf_put(outbuf *b, const void *p, size_t n);
void out_put(const void *p, size_t n); /* into g_mem */
void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int out_sink(void *user, const void *data, size_t len); /* mio_write_fn into g_mem */
/* A memfd the _fd scenarios write to; emptied before every run. */
extern int g_fd;
/* The bytes of the known destination files setup() creates. */
#define KNOWN_BYTES "known destination bytes: a failed write must leave them as they are\n"
void write_bytes(const char *path, const void *p, size_t n);
void *read_bytes(const char *path, size_t *n); /* malloc()ed, NULL if absent */

/* First-use scenarios (each N in a fresh child: the IQ grid tables and the
 * worker pool are made once per process, on first use). */
mio_status scenario_iq_first_use(void);
mio_status scenario_matvec_first_use(void);

#endif
