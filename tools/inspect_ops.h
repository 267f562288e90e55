/* SPDX-License-Identifier: MIT */
/* inspect_ops.h — mio-inspect's whole-model operations: --hash, --check,
 * --stats, --diff and --verify (the llama-gguf-hash / gguf-dump replacement),
 * over the library's inspect API (modelio_inspect.h). */
#ifndef MIO_INSPECT_OPS_H
#define MIO_INSPECT_OPS_H

/* 1 if argv asks for one of the operations above (then inspect_ops_main runs
 * the whole command line). */
int inspect_ops_wanted(int argc, char **argv);

/* Run the command line; returns the exit status (0 ok / 1 failure or
 * difference / 2 usage error). */
int inspect_ops_main(int argc, char **argv);

#endif
