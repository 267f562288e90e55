/* SPDX-License-Identifier: MIT */
/* kvedit.c — metadata-edit options for the tools: each option becomes one
 * mio_kv_edit (the library parses KEY=TYPE:VALUE and applies the list); this
 * file owns the command-line side: option names, reading a template file,
 * messages and exit statuses. */
#define _POSIX_C_SOURCE 200809L
#include "kvedit.h"

#include <modelio_inspect.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void kvedit_usage(FILE *o) {
    fprintf(o, "  metadata edits (applied in order to the GGUF key-values; also with --in-place):\n"
               "  --set KEY=TYPE:VALUE  set KEY (an existing key keeps its place, a new one is appended);\n"
               "                        TYPE: int (i32, i64 if needed), float (f32), bool (true/false/1/0),\n"
               "                        str, or u8 i8 u16 i16 u32 i32 u64 i64 f32 f64; repeatable\n"
               "  --remove KEY          remove KEY (a key the input lacks: a note, nothing else)\n"
               "  --general-name S      set general.name to S\n"
               "  --general-description S  set general.description to S\n"
               "  --chat-template-file F  set tokenizer.chat_template to the contents of F (UTF-8, no NUL)\n"
               "  --in-place            edit FILE.gguf's header where it is (no OUT): refused when the new\n"
               "                        header would not end in the same alignment window as the old one\n");
}

static int push(kvedit_list *l, const mio_kv_edit *e, void *owned, int lib) {
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        mio_kv_edit *ne = realloc(l->e, nc * sizeof *ne);
        if (!ne) return 0;
        l->e = ne;
        l->cap = nc;
    }
    if (owned && l->n_owned == l->cap_owned) {
        size_t nc = l->cap_owned ? l->cap_owned * 2 : 8;
        kvedit_mem *no = realloc(l->owned, nc * sizeof *no);
        if (!no) return 0;
        l->owned = no;
        l->cap_owned = nc;
    }
    if (owned) l->owned[l->n_owned++] = (kvedit_mem){.p = owned, .lib = lib};
    l->e[l->n++] = *e;
    return 1;
}

/* The whole file as a string value: at most 2^30 bytes, valid UTF-8, no NUL
 * byte (llama.cpp reads the template as a C string). NULL after a message. */
static char *read_template(const char *prog, const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    struct stat sb;
    if (!fp) {
        fprintf(stderr, "%s: --chat-template-file ", prog);
        cli_esc_str(stderr, path);
        fprintf(stderr, ": %s\n", strerror(errno));
        return NULL;
    }
    if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "%s: --chat-template-file ", prog);
        cli_esc_str(stderr, path);
        fprintf(stderr, ": is a directory\n");
        fclose(fp);
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = cap > (size_t)MIO_GGUF_MAX_LEN ? NULL : realloc(buf, nc + 1);
            if (!nb) {
                fprintf(stderr, "%s: --chat-template-file ", prog);
                cli_esc_str(stderr, path);
                fprintf(stderr, cap > (size_t)MIO_GGUF_MAX_LEN ? ": larger than the 2^30-byte string cap\n"
                                                               : ": out of memory\n");
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0) break;
    }
    int rerr = ferror(fp);
    fclose(fp);
    const char *why = rerr ? "read error" : NULL;
    char at[96] = "";
    if (!why && n > (size_t)MIO_GGUF_MAX_LEN) why = "larger than the 2^30-byte string cap";
    if (!why) {
        const char *z = memchr(buf, '\0', n);
        if (z) {
            why = "holds a NUL byte";
            snprintf(at, sizeof at, " at offset %zu", (size_t)(z - buf));
        }
    }
    size_t bad = why ? n : mio_utf8_check(buf, n);
    if (bad < n) {
        why = "is not valid UTF-8";
        snprintf(at, sizeof at, " (byte 0x%02x at offset %zu)", (unsigned char)buf[bad], bad);
    }
    if (why) {
        fprintf(stderr, "%s: --chat-template-file ", prog);
        cli_esc_str(stderr, path);
        fprintf(stderr, ": %s%s\n", why, at);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int kvedit_option(kvedit_list *l, const char *prog, int argc, char **argv, int *i, int *rc) {
    static const char *const names[] = {"--set", "--remove", "--general-name", "--general-description",
                                        "--chat-template-file"};
    const char *v = NULL;
    int which = -1, r = 0;
    for (int k = 0; k < 5 && which < 0; k++)
        if ((r = cli_opt_value(argc, argv, i, names[k], &v)) != 0) which = k;
    if (which < 0) return 0;
    *rc = CLI_EXIT_USAGE;
    if (r < 0) {
        fprintf(stderr, "%s: %s needs a value\n", prog, names[which]);
        return 1;
    }
    mio_kv_edit e;
    memset(&e, 0, sizeof e);
    void *owned = NULL;
    switch (which) {
    case 0: {
        mio_kv_edit *p = NULL;
        if (mio_kv_edit_parse(v, &p) != MIO_OK) {
            fprintf(stderr, "%s: --set: ", prog);
            cli_esc_str(stderr, mio_last_error());
            fputc('\n', stderr);
            return 1;
        }
        e = *p;
        owned = p;
        break;
    }
    case 1:
        if (!*v || strlen(v) > MIO_GGUF_MAX_KEY) {
            fprintf(stderr, "%s: --remove: %s\n", prog, *v ? "the key is longer than 65535 bytes" : "the key is empty");
            return 1;
        }
        e.key = v;
        e.op = MIO_KV_REMOVE;
        break;
    case 2:
    case 3:
        e.key = which == 2 ? "general.name" : "general.description";
        e.type = MIO_GGUF_STRING;
        e.str = v;
        e.str_len = strlen(v);
        break;
    default: {
        size_t len = 0;
        char *t = read_template(prog, v, &len);
        if (!t) {
            *rc = CLI_EXIT_FAIL;
            return 1;
        }
        e.key = "tokenizer.chat_template";
        e.type = MIO_GGUF_STRING;
        e.str = t;
        e.str_len = len;
        owned = t;
        break;
    }
    }
    if (!push(l, &e, owned, which == 0)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        if (which == 0)
            mio_free(owned);
        else
            free(owned);
        *rc = CLI_EXIT_FAIL;
        return 1;
    }
    *rc = CLI_EXIT_OK;
    return 1;
}

/* Note each --remove whose key the input does not hold at that point. */
static void note_missing(const kvedit_list *l, const char *prog, const char *in) {
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(in, MIO_OPEN_SPLITS, &f) != MIO_OK) return; /* the edit call reports the problem */
    for (size_t k = 0; k < l->n; k++) {
        if (l->e[k].op != MIO_KV_REMOVE) continue;
        int present = mio_gguf_find_key(f, l->e[k].key) >= 0;
        for (size_t j = 0; j < k; j++)
            if (strcmp(l->e[j].key, l->e[k].key) == 0) present = l->e[j].op == MIO_KV_SET;
        if (!present) {
            fprintf(stderr, "%s: note: --remove ", prog);
            cli_esc_str(stderr, l->e[k].key);
            fprintf(stderr, ": ");
            cli_esc_str(stderr, in);
            fprintf(stderr, " has no such key; nothing removed\n");
        }
    }
    mio_gguf_close(f);
}

int kvedit_copy(const kvedit_list *l, const char *prog, const char *in, const char *out, int quiet) {
    double t0 = cli_now();
    if (!quiet) note_missing(l, prog, in);
    int to_stdout = cli_is_stdout(out);
    mio_status st =
        to_stdout ? mio_gguf_copy_edit_fd(in, STDOUT_FILENO, l->e, l->n) : mio_gguf_copy_edit(in, out, l->e, l->n);
    if (st != MIO_OK) {
        cli_report(prog, in, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    if (!quiet) {
        fprintf(stderr, "%s: wrote ", prog);
        cli_esc_str(stderr, to_stdout ? "standard output" : out);
        if (l->n) fprintf(stderr, " with %zu metadata %s", l->n, cli_plural(l->n, "edit", "edits"));
        fprintf(stderr, " in %.3f s\n", cli_now() - t0);
    }
    return CLI_EXIT_OK;
}

int kvedit_in_place(const kvedit_list *l, const char *prog, const char *path, int quiet) {
    if (!quiet) note_missing(l, prog, path);
    /* the library holds SIGINT/SIGTERM/SIGHUP while the header is rewritten */
    mio_status st = mio_gguf_edit_in_place(path, l->e, l->n);
    if (st != MIO_OK) {
        cli_report(prog, path, mio_last_error());
        return CLI_EXIT_FAIL;
    }
    if (!quiet) {
        mio_gguf_file *f = NULL;
        fprintf(stderr, "%s: edited ", prog);
        cli_esc_str(stderr, path);
        fprintf(stderr, " in place (%zu metadata %s", l->n, cli_plural(l->n, "edit", "edits"));
        if (mio_gguf_open(path, MIO_OPEN_MMAP, &f) == MIO_OK)
            fprintf(stderr, "; header %" PRIu64 " bytes, tensor data still at %" PRIu64, mio_gguf_header_size(f),
                    mio_gguf_data_offset(f));
        mio_gguf_close(f);
        fprintf(stderr, ")\n");
    }
    return CLI_EXIT_OK;
}

void kvedit_free(kvedit_list *l) {
    for (size_t k = 0; k < l->n_owned; k++) {
        if (l->owned[k].lib)
            mio_free(l->owned[k].p);
        else
            free(l->owned[k].p);
    }
    free(l->owned);
    free(l->e);
    memset(l, 0, sizeof *l);
}
