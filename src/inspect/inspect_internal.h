/* SPDX-License-Identifier: MIT */
/* inspect_internal.h — what the inspect module's files share: the model
 * (model.c), text helpers (text.c), the chunked value reader (values.c). */
#ifndef MIO_INSPECT_INTERNAL_H
#define MIO_INSPECT_INTERNAL_H

#include "core/core.h"
#include "modelio_inspect.h"
#include "net/net.h"

#include <stdio.h>

/* Bytes read at a time (hashing, byte comparison). */
#define INSPECT_READ_CHUNK ((size_t)4 << 20)
/* Elements decoded at a time (statistics, value diff): a multiple of every block size. */
#define INSPECT_ELEM_CHUNK ((size_t)1 << 18)

typedef struct insp_file {
    char *path;
    int fd;
    mio_remote *remote;   /* a remote file (hf://, http(s)://): read with range requests; fd is -1 */
} insp_file;

struct mio_model {
    char *path;
    mio_format fmt;
    mio_gguf_file *g;
    mio_st_file *s;
    insp_file *files;
    uint32_t n_files;
    mio_model_tensor *t;
    int64_t n;
    uint64_t *shapes;      /* GGUF: reversed ne[], 4 per tensor */
};

/* Test seam (tests/tools/ops_truncate.c, linked with the static archive):
 * called with the model path after the headers were parsed and before the
 * model opens its own descriptors. NULL otherwise. */
extern void (*mio_inspect_after_open)(const char *path);

/* The metadata part of mio_model_summary_get (architecture, name, context,
 * layers, embedding, heads, vocabulary) from a GGUF file, into *out. */
void mio_insp_summary_meta(const mio_gguf_file *g, mio_model_summary *out);
/* The mixture-of-experts facts of a GGUF file (mio_model_experts_get). */
void mio_insp_experts(const mio_gguf_file *g, mio_model_experts *out);

/* Order by raw name bytes; a prefix sorts first. */
int mio_insp_name_cmp(const char *a, size_t al, const char *b, size_t bl);
/* Tensor indices of m sorted by name (malloc'd), NULL when out of memory. */
int64_t *mio_insp_sorted_idx(const mio_model *m);
/* Index of the tensor named (p, n) through the sorted index, or -1. */
int64_t mio_insp_find_sorted(const mio_model *m, const int64_t *idx, const char *p, size_t n);

/* UTF-8: one sequence at p (n bytes available): bytes consumed (1..4), the
 * code point in *cp; an invalid or truncated sequence consumes one byte and
 * yields U+FFFD with *valid 0. */
size_t mio_utf8_next(const unsigned char *p, size_t n, uint32_t *cp, int *valid);
/* mio_escape_text into a stream. */
size_t mio_insp_put_escaped(FILE *out, const char *p, size_t n, size_t max_bytes, int quoted);
/* "type_N" for a code without a name. */
const char *mio_insp_type_text(int type, char *buf, size_t cap);
/* Close the memstream o (opened on *buf, *blen): its text becomes the outputs
 * (text, len) of a call; MIO_ERR_NOMEM (nothing output, *buf freed) when the
 * stream failed. */
mio_status mio_insp_stream_done(FILE *o, char **buf, size_t *blen, char **text, size_t *len);

/* A tensor's elements as doubles, a chunk at a time. */
typedef struct insp_reader {
    const mio_model *m;
    int64_t ti;
    const mio_model_tensor *t;
    uint64_t elem;       /* next element */
    unsigned char *raw;  /* INSPECT_ELEM_CHUNK elements of wire bytes */
    float *f;
    double *d;           /* the decoded chunk */
} insp_reader;
mio_status mio_insp_reader_init(insp_reader *r, const mio_model *m, int64_t i);
void mio_insp_reader_free(insp_reader *r);
/* Decode the next chunk into r->d; *n the element count (0 at the end). */
mio_status mio_insp_reader_next(insp_reader *r, size_t *n);

#endif
