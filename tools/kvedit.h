/* SPDX-License-Identifier: MIT */
/* kvedit.h — the metadata-edit options shared by the tools (--set, --remove,
 * --chat-template-file, --general-name, --general-description): parsed into a
 * list of mio_kv_edit, then applied while copying a GGUF or in place. */
#ifndef MIO_KVEDIT_H
#define MIO_KVEDIT_H

#include <modelio.h>
#include <stdio.h>

typedef struct kvedit_mem {
    void *p;
    int lib; /* 1: from mio_kv_edit_parse (mio_free), 0: malloc (free) */
} kvedit_mem;

typedef struct kvedit_list {
    mio_kv_edit *e; /* the edits, in command-line order */
    size_t n, cap;
    kvedit_mem *owned; /* memory the edits point into (parsed specs, file contents) */
    size_t n_owned, cap_owned;
} kvedit_list;

/* If argv[*i] is an edit option, consume it and its value (advancing *i), add
 * the edit to l and return 1, with *rc = 0 on success or, after a message on
 * stderr, CLI_EXIT_USAGE (bad spec, missing value) or CLI_EXIT_FAIL (a
 * template file that cannot be read or is not UTF-8). 0: not an edit option. */
int kvedit_option(kvedit_list *l, const char *prog, int argc, char **argv, int *i, int *rc);
/* The options' help lines. */
void kvedit_usage(FILE *o);
/* Copy the GGUF in to out with the edits, none included (mio_gguf_copy_edit; out
 * "-" or /dev/stdout: mio_gguf_copy_edit_fd to standard output), or edit path in
 * place (mio_gguf_edit_in_place, with SIGINT/SIGTERM/SIGHUP held off during the
 * write). A --remove of a key the input lacks is a no-op, noted on stderr
 * unless quiet. Report errors; return an exit status. */
int kvedit_copy(const kvedit_list *l, const char *prog, const char *in, const char *out, int quiet);
int kvedit_in_place(const kvedit_list *l, const char *prog, const char *path, int quiet);
void kvedit_free(kvedit_list *l);

#endif
