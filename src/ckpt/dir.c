/* SPDX-License-Identifier: MIT */
/* dir.c — training-checkpoint directories (docs/CHECKPOINTS.md).
 *
 * Save: mio_ckpt_begin makes a fresh hidden directory next to the target
 * (".NAME.tmp-XXXXXX"); each file added is written there atomically (temp
 * file, fsync, rename) and its size and XXH3-64 recorded; mio_ckpt_commit
 * writes trainer_state.json, then the sentinel (checkpoint.json: every file's
 * name, size and hash), fsyncs the directory, and only then puts it at the
 * target: rename(2) when nothing is there, else renameat2(RENAME_EXCHANGE),
 * which swaps the old and the new directory in one step (then the old one is
 * removed); where the file system refuses the exchange, two renames (the old
 * one aside to ".NAME.old-XXXXXX", the new one in), and mio_ckpt_open puts
 * the old one back if a crash fell between them. So the target always holds
 * the old complete checkpoint or the new complete one.
 *
 * Load: mio_ckpt_open reads the sentinel, checks every file it lists (a
 * regular file of that size and hash) and parses trainer_state.json; a
 * directory without a valid sentinel is refused, naming what is missing. */
#include "ckpt/ckpt_internal.h"
#include "core/xxhash.h"

#include "core/json.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SENTINEL_FORMAT "libmodelio.checkpoint"
#define TRAINER_FORMAT "fucina.training_checkpoint"
#define MAX_JSON (16u << 20) /* sentinel / trainer_state.json size cap */

struct mio_ckpt_save {
    char *dir, *parent, *base, *tmp;
    ck_file *files;
    size_t n, cap;
};

struct mio_ckpt {
    char *dir;
    ck_file *files;
    size_t n;
    uint64_t step, seed;
    char *extra; /* the optional fields as one JSON object */
};

/* ------------------------------------------------------------------ small helpers */
void mio_ckpt_files_free(ck_file *f, size_t n) {
    for (size_t i = 0; f && i < n; i++) free(f[i].name);
    free(f);
}

/* parent and base of dir (no trailing slashes; "." when there is no slash) */
static mio_status split_path(const char *fn, const char *dir, char **parent, char **base) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    const char *e = dir + n, *s = e;
    while (s > dir && s[-1] != '/') s--;
    if (s == e || (e - s == 1 && s[0] == '.') || (e - s == 2 && s[0] == '.' && s[1] == '.'))
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%s' does not end in a directory name", fn, dir);
    *base = strndup(s, (size_t)(e - s));
    size_t pl = (size_t)(s - dir);
    while (pl > 1 && dir[pl - 1] == '/') pl--;
    *parent = pl ? strndup(dir, pl) : strdup(".");
    if (!*base || !*parent) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
    return MIO_OK;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}
/* Remove a directory tree (symlinks removed, never followed). */
static int rm_tree(const char *p) { return nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* A file name a checkpoint may hold: one path component, no leading dot
 * (the save's own hidden names), not the sentinel. */
static mio_status check_name(const char *fn, const char *name) {
    if (!name || !*name) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: %s file name", fn, name ? "an empty" : "a NULL");
    size_t n = strlen(name);
    if (n > 255 || strchr(name, '/') || name[0] == '.')
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%.80s' is not a plain file name (no '/', no leading '.', at most 255 bytes)",
                           fn, name);
    if (strcmp(name, MIO_CKPT_SENTINEL) == 0)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%s' is the sentinel's name, written by mio_ckpt_commit", fn, name);
    return MIO_OK;
}

static const ck_file *find_file(const ck_file *f, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0) return &f[i];
    return NULL;
}

/* size and XXH3-64 of the file at fd, read to its end */
static mio_status hash_fd(int fd, const char *what, uint64_t *size, uint64_t *hash) {
    mio_xxh3_state h;
    uint8_t *buf = malloc(1u << 20);
    mio_status st = MIO_OK;
    if (!buf) st = mio_err_set(MIO_ERR_NOMEM, "out of memory hashing %s", what);
    uint64_t total = 0;
    mio_xxh3_init(&h);
    while (!st) {
        ssize_t r = read(fd, buf, 1u << 20);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) st = mio_err_set(MIO_ERR_IO, "reading %s: %s", what, strerror(errno));
        if (r <= 0) break;
        mio_xxh3_update(&h, buf, (size_t)r);
        total += (uint64_t)r;
    }
    if (!st) *size = total, *hash = mio_xxh3_digest(&h);
    free(buf);
    return st;
}

static mio_status hash_path(const char *path, uint64_t *size, uint64_t *hash) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return mio_err_set(MIO_ERR_IO, "%s: %s", path, strerror(errno));
    mio_status st = hash_fd(fd, path, size, hash);
    close(fd);
    return st;
}

/* ------------------------------------------------------------------ saving */
static void recover(const char *dir);

/* Remove the hidden leftovers of crashed saves of parent/base (".base.tmp-*",
 * ".base.old-*"): with one saver per path they belong to no running save, and
 * the path itself was recovered first if a crash had left it empty. */
static void sweep_leftovers(const char *parent, const char *base) {
    DIR *d = opendir(parent);
    char *t = mio_strfmt(".%s.tmp-", base), *o = mio_strfmt(".%s.old-", base);
    struct dirent *e;
    while (d && t && o && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, t, strlen(t)) != 0 && strncmp(e->d_name, o, strlen(o)) != 0) continue;
        char *p = mio_strfmt("%s/%s", parent, e->d_name);
        if (p) rm_tree(p);
        free(p);
    }
    if (d) closedir(d);
    free(t), free(o);
}

mio_status mio_ckpt_begin(const char *dir, mio_ckpt_save **out) {
    static const char fn[] = "mio_ckpt_begin";
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!dir) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: dir is NULL", fn);
    mio_ckpt_save *s = calloc(1, sizeof *s);
    if (!s) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
    mio_status st = split_path(fn, dir, &s->parent, &s->base);
    struct stat sb;
    const int pe = st ? 0 : stat(s->parent, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? 0 : ENOTDIR;
    if (pe)
        st = mio_err_set(MIO_ERR_IO, "%s: the parent directory '%s' of '%s' %s", fn, s->parent, dir,
                         pe == ENOENT ? "does not exist" : strerror(pe));
    if (!st && lstat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
        st = mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%s' exists and is not a directory", fn, dir);
    if (!st) {
        if (lstat(dir, &sb) != 0 && errno == ENOENT) recover(dir);
        sweep_leftovers(s->parent, s->base);
    }
    if (!st) {
        s->dir = strdup(dir);
        s->tmp = mio_strfmt("%s/.%s.tmp-XXXXXX", s->parent, s->base);
        if (!s->dir || !s->tmp) st = mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
    }
    if (!st && !mkdtemp(s->tmp)) {
        st = mio_err_set(MIO_ERR_IO, "%s: creating a temporary directory next to '%s': %s", fn, dir, strerror(errno));
        free(s->tmp), s->tmp = NULL;
    }
    if (st) {
        mio_ckpt_abort(s);
        return st;
    }
    *out = s;
    return MIO_OK;
}

static mio_status add_record(mio_ckpt_save *s, const char *name, uint64_t size, uint64_t hash) {
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 8;
        ck_file *nf = realloc(s->files, nc * sizeof *nf);
        if (!nf) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        s->files = nf, s->cap = nc;
    }
    ck_file *f = &s->files[s->n];
    f->name = strdup(name);
    if (!f->name) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    f->size = size, f->hash = hash;
    s->n++;
    return MIO_OK;
}

static mio_status check_add(const char *fn, mio_ckpt_save *s, const char *name) {
    if (!s) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: s is NULL", fn);
    if (!s->tmp) return mio_err_set(MIO_ERR_STATE, "%s: the save was aborted by an earlier error", fn);
    mio_status st = check_name(fn, name);
    if (!st && find_file(s->files, s->n, name))
        st = mio_err_set(MIO_ERR_DUPLICATE_KEY, "%s: '%s' was already added to this checkpoint", fn, name);
    return st;
}

/* A mio_write_fn that writes to fd and hashes what it writes. */
typedef struct hash_sink {
    int fd;
    mio_xxh3_state h;
    uint64_t size;
    const char *what;
    char err[512]; /* the write's own message (errno text), which the writer would replace */
} hash_sink;
static int hash_write(void *user, const void *data, size_t len) {
    hash_sink *k = user;
    if (mio_fd_write_all(k->fd, data, len, k->what)) {
        snprintf(k->err, sizeof k->err, "%s", mio_last_error());
        return 1;
    }
    mio_xxh3_update(&k->h, data, len);
    k->size += len;
    return 0;
}

/* write len bytes to the save's directory as name, atomically; record it */
static mio_status put_bytes(mio_ckpt_save *s, const char *name, const void *data, size_t len) {
    char *path = mio_strfmt("%s/%s", s->tmp, name);
    if (!path) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_atomic_file af;
    mio_status st = mio_atomic_open(path, &af);
    if (!st) {
        st = mio_fd_write_all(af.fd, data, len, path);
        if (st) mio_atomic_abort(&af);
        else st = mio_atomic_commit(&af);
    }
    if (!st) st = add_record(s, name, len, mio_xxh3_64(data, len));
    if (st) unlink(path); /* no file the sentinel would not list (a no-op when the write failed) */
    free(path);
    return st;
}

mio_status mio_ckpt_add_file(mio_ckpt_save *s, const char *name, const void *data, size_t len) {
    static const char fn[] = "mio_ckpt_add_file";
    mio_status st = check_add(fn, s, name);
    if (!st && !data && len) st = mio_err_set(MIO_ERR_INVALID_ARG, "%s: data is NULL with len = %zu", fn, len);
    if (!st && strcmp(name, MIO_CKPT_TRAINER_STATE) == 0)
        st = mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%s' is written by mio_ckpt_commit from its step, seed and fields", fn, name);
    if (st) return st;
    st = put_bytes(s, name, data ? data : "", len);
    return st ? mio_err_prefix(st, "%s: ", fn) : MIO_OK;
}

mio_status mio_ckpt_add_state_dict(mio_ckpt_save *s, const char *name, const mio_st_entry *t, size_t n,
                                   size_t entry_size) {
    static const char fn[] = "mio_ckpt_add_state_dict";
    mio_status st = check_add(fn, s, name);
    if (!st && strcmp(name, MIO_CKPT_TRAINER_STATE) == 0)
        st = mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%s' is the trainer state's name", fn, name);
    if (st) return st;
    const mio_st_entry *use;
    mio_st_entry *copy;
    st = mio_sd_check_entries(fn, t, n, entry_size, &use, &copy);
    if (st) return st;
    /* the canonical writer into the atomic file, hashed as it goes out (no second read) */
    char *path = mio_strfmt("%s/%s", s->tmp, name);
    hash_sink hs = {.fd = -1, .what = path};
    mio_xxh3_init(&hs.h);
    mio_atomic_file af;
    st = path ? mio_atomic_open(path, &af) : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!st) {
        hs.fd = af.fd;
        st = mio_st_save_cb(use, n, NULL, 0, hash_write, &hs);
        if (st && hs.err[0]) st = mio_err_set(st, "%s", hs.err);
        if (st) mio_atomic_abort(&af);
        else st = mio_atomic_commit(&af);
    }
    if (!st) {
        st = add_record(s, name, hs.size, mio_xxh3_digest(&hs.h));
        if (st) unlink(path);
    }
    free(path), free(copy);
    return st ? mio_err_prefix(st, "%s: ", fn) : MIO_OK;
}

/* trainer_state.json: the marker, the version, step and seed, then each
 * member of extra (a JSON object) whose value is not null */
static mio_status trainer_json(uint64_t step, uint64_t seed, const char *extra, char **out) {
    *out = NULL;
    mio_json *ex = NULL;
    if (extra) {
        mio_json_error je;
        ex = mio_json_parse_str(extra, &je);
        if (!ex && je.nomem) return mio_err_set(MIO_ERR_NOMEM, "out of memory parsing extra_json");
        if (!ex || !mio_json_is_object(ex)) {
            mio_json_free(ex);
            return mio_err_set(MIO_ERR_INVALID_JSON, "extra_json is not a JSON object");
        }
    }
    size_t cap = 256, len = 0;
    char *b = malloc(cap);
    mio_status st = b ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!st)
        len = (size_t)snprintf(b, cap, "{\n  \"format\": \"" TRAINER_FORMAT "\",\n  \"version\": 1,\n  \"step\": %" PRIu64
                                         ",\n  \"seed\": %" PRIu64,
                               step, seed);
    for (mio_json *m = ex ? ex->child : NULL; m && !st; m = m->next) {
        if (!strcmp(m->string, "format") || !strcmp(m->string, "version") || !strcmp(m->string, "step") ||
            !strcmp(m->string, "seed")) {
            st = mio_err_set(MIO_ERR_INVALID_ARG, "extra_json sets \"%s\", which the checkpoint writes itself", m->string);
            break;
        }
        if (mio_json_is_null(m)) continue; /* optional fields are omitted when null */
        mio_json *ks = mio_json_new_string(m->string); /* the key, escaped as JSON */
        char *k = ks ? mio_json_print(ks, false) : NULL;
        char *v = mio_json_print(m, false);
        mio_json_free(ks);
        size_t need = len + (k ? strlen(k) : 0) + (v ? strlen(v) : 0) + 16;
        if (!k || !v) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        if (!st && need > cap) {
            while (cap < need) cap *= 2;
            char *nb = realloc(b, cap);
            if (!nb) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
            else b = nb;
        }
        if (!st) len += (size_t)snprintf(b + len, cap - len, ",\n  %s: %s", k, v);
        free(k), free(v);
    }
    if (!st && len + 4 > cap) {
        char *nb = realloc(b, len + 4);
        if (!nb) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        else b = nb;
    }
    if (!st) memcpy(b + len, "\n}\n", 4);
    mio_json_free(ex);
    if (st) free(b);
    else *out = b;
    return st;
}

static mio_status sentinel_json(const mio_ckpt_save *s, char **out) {
    size_t cap = 128 + s->n * 320, len = 0;
    char *b = malloc(cap);
    if (!b) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    len += (size_t)snprintf(b, cap, "{\n  \"format\": \"" SENTINEL_FORMAT "\",\n  \"version\": 1,\n  \"files\": [");
    for (size_t i = 0; i < s->n; i++) {
        mio_json *ks = mio_json_new_string(s->files[i].name);
        char *k = ks ? mio_json_print(ks, false) : NULL;
        mio_json_free(ks);
        if (!k || len + strlen(k) + 96 > cap) { /* names are at most 255 bytes, escaped at most 6x */
            size_t nc = cap * 2 + (k ? strlen(k) : 0) + 96;
            char *nb = k ? realloc(b, nc) : NULL;
            if (!nb) {
                free(k), free(b);
                return mio_err_set(MIO_ERR_NOMEM, "out of memory");
            }
            b = nb, cap = nc;
        }
        len += (size_t)snprintf(b + len, cap - len, "%s\n    {\"name\": %s, \"size\": %" PRIu64 ", \"xxh3_64\": \"%016" PRIx64 "\"}",
                                i ? "," : "", k, s->files[i].size, s->files[i].hash);
        free(k);
    }
    if (len + 8 > cap) {
        char *nb = realloc(b, len + 8);
        if (!nb) {
            free(b);
            return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
        b = nb;
    }
    memcpy(b + len, "\n  ]\n}\n", 8);
    *out = b;
    return MIO_OK;
}

/* Put the finished directory at s->dir (see the top of the file). */
static mio_status swap_in(mio_ckpt_save *s) {
    if (rename(s->tmp, s->dir) == 0) { /* nothing there (or an empty directory) */
        free(s->tmp), s->tmp = NULL;
        mio_fsync_dir(s->parent);
        return MIO_OK;
    }
    if (errno != EEXIST && errno != ENOTEMPTY)
        return mio_err_set(MIO_ERR_IO, "putting the checkpoint at '%s': %s", s->dir, strerror(errno));
    if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->dir, RENAME_EXCHANGE) == 0) {
        mio_fsync_dir(s->parent);
        rm_tree(s->tmp); /* the old checkpoint, now at the temporary name */
        free(s->tmp), s->tmp = NULL;
        return MIO_OK;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return mio_err_set(MIO_ERR_IO, "exchanging the checkpoint at '%s': %s", s->dir, strerror(errno));
    /* no exchange on this file system: the old one aside, the new one in;
     * mio_ckpt_open recovers the old one if a crash comes in between */
    char *old = mio_strfmt("%s/.%s.old-XXXXXX", s->parent, s->base);
    if (!old) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (!mkdtemp(old)) {
        mio_status st = mio_err_set(MIO_ERR_IO, "creating a directory next to '%s': %s", s->dir, strerror(errno));
        free(old);
        return st;
    }
    if (rename(s->dir, old) != 0) { /* over the empty directory just made */
        mio_status st = mio_err_set(MIO_ERR_IO, "moving the old checkpoint '%s' aside: %s", s->dir, strerror(errno));
        rmdir(old), free(old);
        return st;
    }
    if (rename(s->tmp, s->dir) != 0) {
        mio_status st = mio_err_set(MIO_ERR_IO, "putting the checkpoint at '%s': %s", s->dir, strerror(errno));
        rename(old, s->dir); /* the old one back */
        free(old);
        return st;
    }
    mio_fsync_dir(s->parent);
    rm_tree(old);
    free(old), free(s->tmp), s->tmp = NULL;
    return MIO_OK;
}

mio_status mio_ckpt_commit(mio_ckpt_save *s, uint64_t step, uint64_t seed, const char *extra_json) {
    static const char fn[] = "mio_ckpt_commit";
    if (!s) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: s is NULL", fn);
    mio_status st = s->tmp ? MIO_OK : mio_err_set(MIO_ERR_STATE, "the save was aborted by an earlier error");
    char *ts = NULL, *sent = NULL;
    if (!st) st = trainer_json(step, seed, extra_json, &ts);
    if (!st) st = put_bytes(s, MIO_CKPT_TRAINER_STATE, ts, strlen(ts));
    if (!st) st = sentinel_json(s, &sent);
    if (!st) { /* the sentinel last, then the directory entries made durable */
        char *path = mio_strfmt("%s/%s", s->tmp, MIO_CKPT_SENTINEL);
        mio_atomic_file af;
        st = path ? mio_atomic_open(path, &af) : mio_err_set(MIO_ERR_NOMEM, "out of memory");
        if (!st) {
            st = mio_fd_write_all(af.fd, sent, strlen(sent), path);
            if (st) mio_atomic_abort(&af);
            else st = mio_atomic_commit(&af);
        }
        free(path);
    }
    if (!st) mio_fsync_dir(s->tmp);
    if (!st) st = swap_in(s);
    free(ts), free(sent);
    mio_ckpt_abort(s); /* frees s; removes the temporary directory if it is still there */
    return st ? mio_err_prefix(st, "%s: ", fn) : MIO_OK;
}

void mio_ckpt_abort(mio_ckpt_save *s) {
    if (!s) return;
    if (s->tmp) rm_tree(s->tmp);
    mio_ckpt_files_free(s->files, s->n);
    free(s->dir), free(s->parent), free(s->base), free(s->tmp), free(s);
}

/* ------------------------------------------------------------------ loading */
/* the whole (small) file at path, NUL-terminated; MIO_ERR_NOT_FOUND if absent */
static mio_status read_small(const char *path, const char *what, char **out, size_t *len) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return mio_err_set(errno == ENOENT ? MIO_ERR_NOT_FOUND : MIO_ERR_IO, "%s '%s': %s", what, path, strerror(errno));
    struct stat sb;
    mio_status st = MIO_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        st = mio_err_set(MIO_ERR_IO, "%s '%s' is not a regular file", what, path);
    else if ((uint64_t)sb.st_size > MAX_JSON)
        st = mio_err_set(MIO_ERR_LIMIT, "%s '%s' is %lld bytes, more than the %u-byte cap", what, path, (long long)sb.st_size,
                         MAX_JSON);
    char *b = st ? NULL : malloc((size_t)sb.st_size + 1);
    if (!st && !b) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    size_t got = 0;
    while (!st && got < (size_t)sb.st_size) {
        ssize_t r = read(fd, b + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) st = mio_err_set(MIO_ERR_IO, "reading %s '%s': %s", what, path, r ? strerror(errno) : "file shrank");
        else got += (size_t)r;
    }
    close(fd);
    if (st) {
        free(b);
        return st;
    }
    b[got] = 0;
    *out = b, *len = got;
    return MIO_OK;
}

mio_status mio_ckpt_parse_trainer_state(const char *text, size_t len, uint64_t *step, uint64_t *seed, char **extra) {
    *extra = NULL;
    if (strlen(text) != len) return mio_err_set(MIO_ERR_INVALID_JSON, "trainer_state.json holds a NUL byte");
    mio_json_error je;
    mio_json *j = mio_json_parse(text, len, &je);
    if (!j && je.nomem) return mio_err_set(MIO_ERR_NOMEM, "out of memory parsing trainer_state.json");
    if (!j || !mio_json_is_object(j)) {
        mio_json_free(j);
        return mio_err_set(MIO_ERR_INVALID_JSON, "trainer_state.json is not a JSON object");
    }
    mio_status st = MIO_OK;
    const mio_json *fmt = mio_json_get(j, "format"), *ver = mio_json_get(j, "version");
    if (!mio_json_is_string(fmt) || strcmp(fmt->valuestring, TRAINER_FORMAT) != 0)
        st = mio_err_set(MIO_ERR_BAD_MAGIC, "trainer_state.json: \"format\" is not \"" TRAINER_FORMAT "\"");
    else if (!mio_json_is_number(ver))
        st = mio_err_set(MIO_ERR_INVALID_JSON, "trainer_state.json: \"version\" is missing or not a number");
    else if (ver->valuedouble != 1.0)
        st = mio_err_set(MIO_ERR_UNSUPPORTED_VERSION, "trainer_state.json: version %g (this library reads version 1)",
                         ver->valuedouble);
    const char *req[2] = {"step", "seed"};
    uint64_t *dst[2] = {step, seed};
    for (int k = 0; k < 2 && !st; k++) {
        const mio_json *m = mio_json_get(j, req[k]);
        if (!mio_json_is_number(m) || !m->has_u64) /* the token's exact value, 2^53 and up included */
            st = mio_err_set(MIO_ERR_INVALID_JSON, "trainer_state.json: \"%s\" is missing or not a u64", req[k]);
        else
            *dst[k] = m->valueu64;
    }
    /* every other member: the optional fields, passed through */
    mio_json *ex = st ? NULL : mio_json_new_object();
    if (!st && !ex) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (mio_json *m = j->child; m && !st; m = m->next) {
        if (!strcmp(m->string, "format") || !strcmp(m->string, "version") || !strcmp(m->string, "step") ||
            !strcmp(m->string, "seed"))
            continue;
        if (mio_json_get(ex, m->string)) {
            st = mio_err_set(MIO_ERR_DUPLICATE_KEY, "trainer_state.json: \"%.60s\" appears twice", m->string);
            break;
        }
        mio_json *c = mio_json_dup(m);
        if (!c || !mio_json_add(ex, m->string, c)) {
            mio_json_free(c);
            st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
    }
    if (!st) {
        *extra = mio_json_print(ex, false);
        if (!*extra) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    mio_json_free(ex);
    mio_json_free(j);
    return st;
}

static bool hex64(const char *s, uint64_t *v) {
    if (strlen(s) != 16) return false;
    uint64_t x = 0;
    for (int i = 0; i < 16; i++) {
        const unsigned char c = (unsigned char)s[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return false;
        x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return true;
}

mio_status mio_ckpt_parse_sentinel(const char *text, size_t len, ck_file **files, size_t *n_files) {
    *files = NULL, *n_files = 0;
    if (strlen(text) != len) return mio_err_set(MIO_ERR_INVALID_JSON, "the sentinel holds a NUL byte");
    mio_json_error je;
    mio_json *j = mio_json_parse(text, len, &je);
    if (!j && je.nomem) return mio_err_set(MIO_ERR_NOMEM, "out of memory parsing the sentinel");
    if (!j || !mio_json_is_object(j)) {
        mio_json_free(j);
        return mio_err_set(MIO_ERR_INVALID_JSON, "the sentinel is not a JSON object (an interrupted or damaged save)");
    }
    mio_status st = MIO_OK;
    const mio_json *fmt = mio_json_get(j, "format"), *ver = mio_json_get(j, "version");
    const mio_json *arr = mio_json_get(j, "files");
    if (!mio_json_is_string(fmt) || strcmp(fmt->valuestring, SENTINEL_FORMAT) != 0)
        st = mio_err_set(MIO_ERR_BAD_MAGIC, "the sentinel's \"format\" is not \"" SENTINEL_FORMAT "\"");
    else if (!mio_json_is_number(ver) || ver->valuedouble != 1.0)
        st = mio_err_set(MIO_ERR_UNSUPPORTED_VERSION, "the sentinel's version is not 1");
    else if (!mio_json_is_array(arr))
        st = mio_err_set(MIO_ERR_INVALID_JSON, "the sentinel has no \"files\" array");
    size_t n = st ? 0 : (size_t)mio_json_size(arr);
    ck_file *f = st ? NULL : calloc(n ? n : 1, sizeof *f);
    if (!st && !f) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (const mio_json *e = st ? NULL : arr->child; e && !st; e = e->next, k++) {
        const mio_json *nm = mio_json_get(e, "name"), *sz = mio_json_get(e, "size");
        const mio_json *hs = mio_json_get(e, "xxh3_64");
        if (!mio_json_is_cstring(nm) || !mio_json_is_number(sz) || !mio_json_is_string(hs))
            st = mio_err_set(MIO_ERR_INVALID_JSON, "sentinel entry %zu lacks a name, a size or an xxh3_64", k);
        else if (check_name("the sentinel", nm->valuestring) != MIO_OK)
            st = mio_err_set(MIO_ERR_INVALID_JSON, "sentinel entry %zu names '%.80s', not a plain file name", k,
                             nm->valuestring);
        else if (!(sz->valuedouble >= 0 && sz->valuedouble < 9007199254740992.0) || sz->valuedouble != (double)(uint64_t)sz->valuedouble)
            st = mio_err_set(MIO_ERR_INVALID_JSON, "sentinel entry '%.80s': size is not a whole number of bytes", nm->valuestring);
        else if (!hex64(hs->valuestring, &f[k].hash))
            st = mio_err_set(MIO_ERR_INVALID_JSON, "sentinel entry '%.80s': xxh3_64 is not 16 lower-case hex digits",
                             nm->valuestring);
        else if (find_file(f, k, nm->valuestring))
            st = mio_err_set(MIO_ERR_DUPLICATE_KEY, "the sentinel lists '%.80s' twice", nm->valuestring);
        else {
            f[k].size = (uint64_t)sz->valuedouble;
            f[k].name = strdup(nm->valuestring);
            if (!f[k].name) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
    }
    mio_json_free(j);
    if (!st && !find_file(f, k, MIO_CKPT_TRAINER_STATE))
        st = mio_err_set(MIO_ERR_INVALID_JSON, "the sentinel does not list " MIO_CKPT_TRAINER_STATE);
    if (st) {
        mio_ckpt_files_free(f, k);
        return st;
    }
    *files = f, *n_files = k;
    return MIO_OK;
}

/* Verify and load the checkpoint at dir into c: every listed file present at
 * its size, and with hash set also read and hashed (rotation only needs to
 * know a checkpoint is complete, not to read every byte of every one). */
static mio_status open_dir(const char *dir, mio_ckpt *c, bool hash_files) {
    char *sp = mio_strfmt("%s/%s", dir, MIO_CKPT_SENTINEL), *text = NULL;
    if (!sp) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    size_t len = 0;
    mio_status st = read_small(sp, "the sentinel", &text, &len);
    free(sp);
    if (st == MIO_ERR_NOT_FOUND)
        return mio_err_set(MIO_ERR_INCOMPLETE, "'%s' has no sentinel (" MIO_CKPT_SENTINEL "): not a complete checkpoint "
                           "(an interrupted save, or not a checkpoint directory)", dir);
    if (!st) st = mio_ckpt_parse_sentinel(text, len, &c->files, &c->n);
    free(text), text = NULL;
    for (size_t i = 0; i < c->n && !st; i++) {
        char *p = mio_strfmt("%s/%s", dir, c->files[i].name);
        if (!p) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        struct stat sb;
        if (lstat(p, &sb) != 0)
            st = mio_err_set(MIO_ERR_INCOMPLETE, "'%s' is missing: the sentinel lists it (%" PRIu64 " bytes)", p, c->files[i].size);
        else if (!S_ISREG(sb.st_mode))
            st = mio_err_set(MIO_ERR_INVALID_ARG, "'%s' is not a regular file", p);
        else if ((uint64_t)sb.st_size != c->files[i].size)
            st = mio_err_set(MIO_ERR_TRUNCATED, "'%s' is %lld bytes, the sentinel says %" PRIu64, p, (long long)sb.st_size,
                             c->files[i].size);
        uint64_t size = c->files[i].size, hash = c->files[i].hash;
        if (!st && hash_files) st = hash_path(p, &size, &hash);
        if (!st && (size != c->files[i].size || hash != c->files[i].hash))
            st = mio_err_set(MIO_ERR_INVALID_ARG, "'%s' does not match the sentinel: xxh3_64 %016" PRIx64 ", expected %016" PRIx64,
                             p, hash, c->files[i].hash);
        free(p);
    }
    if (st) return st;
    char *tp = mio_strfmt("%s/%s", dir, MIO_CKPT_TRAINER_STATE);
    if (!tp) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    st = read_small(tp, "the trainer state", &text, &len);
    free(tp);
    if (!st) st = mio_ckpt_parse_trainer_state(text, len, &c->step, &c->seed, &c->extra);
    free(text);
    return st;
}

/* what open_dir filled in c (the files and the optional fields) */
static void ckpt_clear(mio_ckpt *c) {
    mio_ckpt_files_free(c->files, c->n);
    free(c->extra);
    c->files = NULL, c->n = 0, c->extra = NULL;
}

/* The recovery of swap_in's two-rename fallback: dir missing, a hidden
 * ".NAME.old-*" next to it holding a complete checkpoint goes back. */
static void recover(const char *dir) {
    char *parent = NULL, *base = NULL;
    if (split_path("recover", dir, &parent, &base) != MIO_OK) {
        free(parent), free(base);
        return;
    }
    DIR *d = opendir(parent);
    char *pre = mio_strfmt(".%s.old-", base);
    struct dirent *e;
    while (d && pre && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, pre, strlen(pre)) != 0) continue;
        char *cand = mio_strfmt("%s/%s", parent, e->d_name);
        mio_ckpt c = {0};
        if (cand && open_dir(cand, &c, true) == MIO_OK && rename(cand, dir) == 0) mio_fsync_dir(parent);
        ckpt_clear(&c);
        free(cand);
        if (access(dir, F_OK) == 0) break;
    }
    if (d) closedir(d);
    free(pre), free(parent), free(base);

}

mio_status mio_ckpt_open(const char *dir, mio_ckpt **out) {
    static const char fn[] = "mio_ckpt_open";
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!dir) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: dir is NULL", fn);
    struct stat sb;
    if (stat(dir, &sb) != 0 && errno == ENOENT) recover(dir);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return mio_err_set(errno == ENOENT ? MIO_ERR_NOT_FOUND : MIO_ERR_INVALID_ARG, "%s: '%s' is not a directory%s", fn,
                           dir, errno == ENOENT ? " (it does not exist)" : "");
    mio_ckpt *c = calloc(1, sizeof *c);
    if (!c) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
    c->dir = strdup(dir);
    mio_status st = c->dir ? open_dir(dir, c, true) : mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
    if (st) {
        mio_ckpt_close(c);
        return mio_err_prefix(st, "%s: ", fn);
    }
    *out = c;
    return MIO_OK;
}

void mio_ckpt_close(mio_ckpt *c) {
    if (!c) return;
    ckpt_clear(c);
    free(c->dir), free(c);
}

uint64_t mio_ckpt_step(const mio_ckpt *c) { return c ? c->step : 0; }
uint64_t mio_ckpt_seed(const mio_ckpt *c) { return c ? c->seed : 0; }
const char *mio_ckpt_extra_json(const mio_ckpt *c) { return c ? c->extra : NULL; }
int64_t mio_ckpt_file_count(const mio_ckpt *c) { return c ? (int64_t)c->n : -1; }
const char *mio_ckpt_file_name(const mio_ckpt *c, int64_t i) {
    return c && i >= 0 && (uint64_t)i < c->n ? c->files[i].name : NULL;
}
uint64_t mio_ckpt_file_size(const mio_ckpt *c, int64_t i) {
    return c && i >= 0 && (uint64_t)i < c->n ? c->files[i].size : 0;
}

mio_status mio_ckpt_file_path(const mio_ckpt *c, const char *name, char **out) {
    static const char fn[] = "mio_ckpt_file_path";
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!c || !name) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: %s is NULL", fn, c ? "name" : "c");
    if (!find_file(c->files, c->n, name))
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: the checkpoint '%s' has no file '%.80s'", fn, c->dir, name);
    *out = mio_strfmt("%s/%s", c->dir, name);
    return *out ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
}

mio_status mio_ckpt_read_file(const mio_ckpt *c, const char *name, void **out, size_t *len) {
    static const char fn[] = "mio_ckpt_read_file";
    if (!out || !len) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: %s is NULL", fn, out ? "len" : "out");
    *out = NULL, *len = 0;
    char *p = NULL;
    mio_status st = mio_ckpt_file_path(c, name, &p);
    if (st) return mio_err_prefix(st, "%s: ", fn);
    const ck_file *f = find_file(c->files, c->n, name);
    mio_region r;
    st = f->size > SIZE_MAX ? mio_err_set(MIO_ERR_LIMIT, "%s: '%s' does not fit in memory", fn, p) : mio_region_read(p, &r);
    if (!st && (r.size != f->size || mio_xxh3_64(r.data, r.size) != f->hash)) {
        st = mio_err_set(MIO_ERR_INVALID_ARG, "%s: '%s' changed since the checkpoint was opened (size or xxh3_64)", fn, p);
        mio_region_free(&r);
    }
    if (!st && r.heap && r.data == r.heap) { /* the buffer goes to the caller */
        *out = r.heap, *len = r.size;
    } else if (!st) {
        void *b = malloc(r.size ? r.size : 1);
        if (!b) st = mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
        else {
            if (r.size) memcpy(b, r.data, r.size);
            *out = b, *len = r.size;
        }
        mio_region_free(&r);
    }
    free(p);
    return st;
}

/* ------------------------------------------------------------------ rotation */
typedef struct step_dir {
    uint64_t n;
    char *name;
} step_dir;
static int cmp_step(const void *a, const void *b) {
    uint64_t x = ((const step_dir *)a)->n, y = ((const step_dir *)b)->n;
    return x < y ? -1 : x > y;
}

mio_status mio_ckpt_rotate(const char *parent, const char *prefix, uint32_t keep, uint32_t *n_removed) {
    static const char fn[] = "mio_ckpt_rotate";
    if (n_removed) *n_removed = 0;
    if (!parent || !prefix) return mio_err_set(MIO_ERR_INVALID_ARG, "%s: %s is NULL", fn, parent ? "prefix" : "parent");
    if (!*prefix || strchr(prefix, '/') || prefix[0] == '.')
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: prefix '%.80s' is not the start of a plain file name", fn, prefix);
    DIR *d = opendir(parent);
    if (!d) return mio_err_set(MIO_ERR_IO, "%s: '%s': %s", fn, parent, strerror(errno));
    step_dir *v = NULL;
    size_t n = 0, cap = 0, pl = strlen(prefix);
    mio_status st = MIO_OK;
    struct dirent *e;
    while (!st && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, pl) != 0) continue;
        const char *q = e->d_name + pl;
        uint64_t x = 0;
        bool ok = *q != 0;
        for (; ok && *q; q++)
            ok = *q >= '0' && *q <= '9' && ck_mul(x, 10, &x) && ck_add(x, (uint64_t)(*q - '0'), &x);
        if (!ok) continue;
        char *full = mio_strfmt("%s/%s", parent, e->d_name);
        mio_ckpt c = {0};
        /* only complete checkpoints count and go; their files are not hashed here */
        bool complete = full && open_dir(full, &c, false) == MIO_OK;
        ckpt_clear(&c);
        if (!complete) {
            free(full);
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            step_dir *nv = realloc(v, nc * sizeof *nv);
            if (!nv) {
                free(full);
                st = mio_err_set(MIO_ERR_NOMEM, "%s: out of memory", fn);
                break;
            }
            v = nv, cap = nc;
        }
        v[n++] = (step_dir){x, full};
    }
    closedir(d);
    if (!st && n) qsort(v, n, sizeof *v, cmp_step);
    uint32_t removed = 0;
    for (size_t i = 0; !st && i + keep < n; i++) { /* the oldest first: aside (one rename), then removed */
        char *parent_c = NULL, *base = NULL, *aside = NULL;
        st = split_path(fn, v[i].name, &parent_c, &base);
        if (!st) aside = mio_strfmt("%s/.%s.del-XXXXXX", parent_c, base);
        if (!st && (!aside || !mkdtemp(aside)))
            st = mio_err_set(MIO_ERR_IO, "%s: a directory next to '%s': %s", fn, v[i].name, aside ? strerror(errno) : "no memory");
        if (!st && rename(v[i].name, aside) != 0) {
            st = mio_err_set(MIO_ERR_IO, "%s: moving '%s' aside: %s", fn, v[i].name, strerror(errno));
            rmdir(aside);
        }
        if (!st) {
            mio_fsync_dir(parent_c);
            rm_tree(aside);
            removed++;
        }
        free(parent_c), free(base), free(aside);
    }
    for (size_t i = 0; i < n; i++) free(v[i].name);
    free(v);
    if (n_removed) *n_removed = removed;
    return st;
}
