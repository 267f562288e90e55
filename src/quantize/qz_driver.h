/* qz_driver.h — what the quantize driver (quantize.c) shares with the type
 * policy (policy.c) and the imatrix reader (imatrix.c): the per-tensor plan
 * item and the calls the driver makes. Internal. */
#ifndef MIO_QZ_DRIVER_H
#define MIO_QZ_DRIVER_H

#include "gguf/gguf_internal.h"
#include "quantize/imatrix.h"

/* One output tensor. The driver fills t (and src) for every input tensor in
 * input order; a plan reorders the items, may drop some (prune) and sets the
 * rest. */
typedef struct qz_item {
    mio_gguf_tensor t;      /* the source tensor (view into the input) */
    int64_t src;            /* its index in the input */
    char out_name[64];      /* name in the output when it differs (prune renumbering), else "" */
    int out_type;
    uint64_t out_bytes;     /* set by the driver */
    const char *why;        /* static reason; NULL = converted by the --dtype policy */
    int use_imatrix;        /* the imatrix applies to this tensor (include/exclude weights) */
} qz_item;

/* A llama.cpp preset: decide every tensor (items[0..*n) in input order on entry;
 * on return the output order, *n output tensors). */
mio_status qz_preset_plan(const mio_gguf_file *f, const mio_quantize_params *p, const qz_imatrix *im, qz_item *items,
                          int64_t *n);
/* Keys the preset path sets last, after the overrides (block_count after a prune). */
mio_status qz_preset_extra_kv(const mio_gguf_file *f, const mio_quantize_params *p, mio_writer *w);

#endif
