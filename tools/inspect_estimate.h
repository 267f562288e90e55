/* SPDX-License-Identifier: MIT */
/* inspect_estimate.h — mio-inspect --estimate: the memory llama.cpp's CPU back
 * end needs for a GGUF model and a context (mio_estimate, docs/ESTIMATE.md). */
#ifndef MIO_INSPECT_ESTIMATE_H
#define MIO_INSPECT_ESTIMATE_H

/* 1 if argv asks for --estimate (then inspect_estimate_main runs the whole command line). */
int inspect_estimate_wanted(int argc, char **argv);

/* Run the command line; returns the exit status (0 ok / 1 failure / 2 usage error). */
int inspect_estimate_main(int argc, char **argv);

#endif
