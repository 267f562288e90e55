/* SPDX-License-Identifier: MIT */
/* inspect_ops.h — mio-inspect's whole-model operations: --hash, --check,
 * --stats, --diff and --verify (issue 9: the llama-gguf-hash / gguf-dump
 * replacement). Every tensor byte is read with pread through the tool's own
 * descriptors, never through the library's mapping, so a file truncated or
 * damaged while it is read is a clear error naming the tensor, not a SIGBUS. */
#ifndef MIO_INSPECT_OPS_H
#define MIO_INSPECT_OPS_H

/* 1 if argv asks for one of the operations above (then inspect_ops_main runs
 * the whole command line). */
int inspect_ops_wanted(int argc, char **argv);

/* Run the command line; returns the exit status (0 ok / 1 failure or
 * difference / 2 usage error). */
int inspect_ops_main(int argc, char **argv);

/* Test seam: when set, called with the model path after the library opened
 * the model and before the tool opens its own descriptors and reads the first
 * tensor byte (tests truncate or replace the file there). NULL in the tool. */
extern void (*inspect_ops_after_open)(const char *path);

#endif
