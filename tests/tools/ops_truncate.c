/* SPDX-License-Identifier: MIT */
/* ops_truncate.c — runs mio-inspect's operations (tools/inspect_ops.c) with
 * the library's test seam set (mio_inspect_after_open, src/inspect/; linked
 * from the static internals): right after the library parsed the model's
 * headers, before mio_model_open opens its own descriptors and reads the first tensor byte, the file
 * named by OPS_TRUNCATE_FILE is truncated to OPS_TRUNCATE_SIZE bytes. So a file cut short while it is being read can be
 * tested: the tool must name the tensor, not die of SIGBUS. With
 * OPS_REPLACE_WITH=G instead, G is renamed over the model path there (a file
 * replaced between the library's open and the tool's own).
 * usage: OPS_TRUNCATE_FILE=F OPS_TRUNCATE_SIZE=N ops_truncate --verify MODEL
 *        OPS_REPLACE_WITH=G ops_truncate --verify MODEL */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "inspect_ops.h"
#include "inspect/inspect_internal.h"

static void cut(const char *path)
{
    const char *f = getenv("OPS_TRUNCATE_FILE"), *n = getenv("OPS_TRUNCATE_SIZE");
    const char *g = getenv("OPS_REPLACE_WITH");
    if (g && rename(g, path) != 0) {
        perror("ops_truncate: rename");
        exit(3);
    }
    if (f && n && truncate(f, (off_t)strtoll(n, NULL, 10)) != 0) {
        perror("ops_truncate: truncate");
        exit(3);
    }
}

int main(int argc, char **argv)
{
    mio_inspect_after_open = cut;
    return inspect_ops_main(argc, argv);
}
