/* SPDX-License-Identifier: MIT */
/* model.c — format detection and mio_model: a GGUF (every part of a split
 * model), a safetensors file or a sharded index as one list of tensors whose
 * bytes are read with pread through descriptors opened here and checked to be
 * the files the readers parsed (never through a mapping: a file truncated or
 * replaced after the open is a message naming the tensor, not a SIGBUS). */
#include "inspect_internal.h"

#include "core/json.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* caller-allocated outputs: a new field needs a _sized call (docs/ABI.md) */
ABI_FROZEN(mio_model_tensor, offset);

void (*mio_inspect_after_open)(const char *path) = NULL;

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

MIO_API mio_format mio_detect_format(const char *path) {
    unsigned char b[9];
    if (!path) return MIO_FORMAT_UNREADABLE;
    if (ends_with(path, ".index.json")) return MIO_FORMAT_ST_INDEX;
    /* a remote file by its name (no request): the readers check the bytes */
    if (mio_net_is_remote(path)) return ends_with(path, ".safetensors") ? MIO_FORMAT_SAFETENSORS : MIO_FORMAT_GGUF;
    /* O_NONBLOCK and a regular-file check first: reading a FIFO or a device
     * could block forever; the readers name what it is. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return MIO_FORMAT_UNREADABLE;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return MIO_FORMAT_UNREADABLE;
    }
    size_t n = 0;
    while (n < sizeof b) {
        ssize_t r = read(fd, b + n, sizeof b - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return MIO_FORMAT_UNREADABLE;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (n >= 4 && memcmp(b, "GGUF", 4) == 0) return MIO_FORMAT_GGUF;
    if (n == 9 && (b[8] == '{' || b[8] == ' ' || b[8] == '\t' || b[8] == '\n' || b[8] == '\r'))
        return MIO_FORMAT_SAFETENSORS;
    if (ends_with(path, ".safetensors")) return MIO_FORMAT_SAFETENSORS;
    return MIO_FORMAT_UNKNOWN;
}

MIO_API const char *mio_format_name(mio_format f) {
    switch (f) {
    case MIO_FORMAT_GGUF: return "GGUF";
    case MIO_FORMAT_SAFETENSORS: return "safetensors";
    case MIO_FORMAT_ST_INDEX: return "safetensors index";
    default: return "unknown";
    }
}

/* ------------------------------------------------------------------------- */

MIO_API void mio_model_close(mio_model *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->n_files; i++) {
        if (m->files[i].fd >= 0) close(m->files[i].fd);
        mio_remote_close(m->files[i].remote);
        free(m->files[i].path);
    }
    free(m->files);
    free(m->t);
    free(m->shapes);
    mio_gguf_close(m->g);
    mio_st_close(m->s);
    free(m->path);
    free(m);
}

static int pread_all(int fd, void *buf, size_t len, uint64_t pos, size_t *got) {
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(pos + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            *got = done;
            return -1;
        }
        if (r == 0) break;
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

static mio_status oom(void) { return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }

/* Open path for pread and make sure it is the very file the reader parsed. */
static mio_status attach_file(mio_model *m, uint32_t k, const char *path) {
    insp_file *f = &m->files[k];
    f->path = strdup(path);
    if (!f->path) return oom();
    if (mio_net_is_remote(path)) return mio_remote_open(path, &f->remote); /* the readers' object: no new request */
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) return mio_err_set(MIO_ERR_IO, "%s: cannot open for reading: %s", path, strerror(errno));
    /* /proc/self/fd/N names exactly this descriptor's file (no race with a
     * rename); the plain path where /proc is not there */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
    int same = m->g ? (mio_gguf_uses_file(m->g, proc) || mio_gguf_uses_file(m->g, path))
                    : (mio_st_uses_file(m->s, proc) || mio_st_uses_file(m->s, path));
    if (!same) return mio_err_set(MIO_ERR_IO, "%s: the file was replaced after it was opened; run again", path);
    return MIO_OK;
}

/* safetensors shard k: its data buffer starts after the 8-byte length and the header. */
static mio_status st_data_base(mio_model *m, uint32_t k, uint64_t *base) {
    unsigned char b[8];
    size_t got;
    if (m->files[k].remote) {
        mio_status st = mio_remote_read(m->files[k].remote, 0, b, 8, "the header length");
        if (st) return st;
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--) n = n << 8 | b[i];
        *base = 8 + n;
        return MIO_OK;
    }
    if (pread_all(m->files[k].fd, b, 8, 0, &got) != 0)
        return mio_err_set(MIO_ERR_IO, "%s: cannot read the header length: %s", m->files[k].path, strerror(errno));
    if (got != 8)
        return mio_err_set(MIO_ERR_TRUNCATED,
                           "%s: the file is now %zu bytes long, too short for a header (changed after it was opened?)",
                           m->files[k].path, got);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | b[i];
    *base = 8 + n;
    return MIO_OK;
}

/* A small file (an index, a header) into memory, NUL-terminated; NULL on failure. */
static char *slurp(const char *path, uint64_t off, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *b = malloc(len + 1);
    size_t got = 0;
    if (b && (pread_all(fd, b, len, off, &got) != 0 || got != len)) {
        free(b);
        b = NULL;
    }
    if (b) b[len] = '\0';
    close(fd);
    return b;
}

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Shard files of an index in the reader's order: the weight_map's file names,
 * sorted and each once, in the index's directory. */
static mio_status st_index_files(mio_model *m) {
    struct stat sb;
    char *text = NULL;
    size_t tlen = 0;
    if (mio_net_is_remote(m->path)) {
        /* the reader's copy of the index (no new request) */
        mio_remote *rf = NULL;
        const uint8_t *p;
        if (mio_remote_open(m->path, &rf) == MIO_OK &&
            mio_remote_prefix(rf, (size_t)mio_remote_size(rf), &p, &tlen) == MIO_OK && (text = malloc(tlen + 1))) {
            memcpy(text, p, tlen);
            text[tlen] = 0;
        }
        mio_remote_close(rf);
    } else if (stat(m->path, &sb) == 0 && sb.st_size >= 0 && (uint64_t)sb.st_size <= MIO_ST_MAX_HEADER) {
        text = slurp(m->path, 0, (size_t)sb.st_size);
        tlen = (size_t)sb.st_size;
    }
    mio_json *root = text ? mio_json_parse(text, tlen, NULL) : NULL;
    free(text);
    mio_json *wm = root ? mio_json_get(root, "weight_map") : NULL;
    if (!wm || !mio_json_is_object(wm)) {
        mio_json_free(root);
        return mio_err_set(MIO_ERR_IO, "%s: cannot read the index again (it changed after it was opened?)", m->path);
    }
    size_t n = 0;
    for (mio_json *e = wm->child; e; e = e->next) n++;
    char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names) {
        mio_json_free(root);
        return oom();
    }
    size_t k = 0;
    for (mio_json *e = wm->child; e; e = e->next) names[k++] = mio_json_is_string(e) ? e->valuestring : (char *)"";
    qsort(names, n, sizeof *names, cmp_cstr);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || strcmp(names[u - 1], names[i]) != 0) names[u++] = names[i];
    mio_status st = MIO_OK;
    if (u != mio_st_shard_count(m->s))
        st = mio_err_set(MIO_ERR_IO, "%s: the index lists %zu shard files but %u were opened (it changed after it was opened?)",
                         m->path, u, mio_st_shard_count(m->s));
    const char *slash = strrchr(m->path, '/');
    size_t dl = slash ? (size_t)(slash - m->path + 1) : 0;
    if (st == MIO_OK && !(m->files = calloc(u ? u : 1, sizeof *m->files))) st = oom();
    for (size_t i = 0; i < u && st == MIO_OK; i++) m->files[i].fd = -1;
    for (size_t i = 0; i < u && st == MIO_OK; i++) {
        size_t nl = strlen(names[i]);
        char *p = malloc(dl + nl + 1);
        if (!p) {
            st = oom();
            break;
        }
        memcpy(p, m->path, dl);
        memcpy(p + dl, names[i], nl + 1);
        m->n_files = (uint32_t)i + 1;
        st = attach_file(m, (uint32_t)i, p);
        free(p);
    }
    free(names);
    mio_json_free(root);
    return st;
}

/* A safetensors file whose data is shorter than its header says (the reader
 * reports only the byte counts): append to the message the first tensor, in
 * data order, whose bytes run past the end. 1 when it found one. */
static int st_cut_hint(const char *path) {
    struct stat sb;
    unsigned char b8[8];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t got = 0;
    int ok = fstat(fd, &sb) == 0 && pread_all(fd, b8, 8, 0, &got) == 0 && got == 8;
    close(fd);
    if (!ok) return 0;
    uint64_t n = 0, size = (uint64_t)sb.st_size;
    for (int i = 7; i >= 0; i--) n = n << 8 | b8[i];
    if (n > MIO_ST_MAX_HEADER || 8 + n > size) return 0;
    char *h = slurp(path, 8, (size_t)n);
    mio_json *root = h ? mio_json_parse_prefix(h, (size_t)n, NULL, NULL) : NULL;
    free(h);
    if (!root) return 0;
    uint64_t avail = size - 8 - n, best_s = UINT64_MAX, best_e = 0, cut = 0;
    const char *best = NULL;
    for (mio_json *e = root->child; e; e = e->next) {
        mio_json *o = mio_json_get(e, "data_offsets");
        if (!e->string || strcmp(e->string, "__metadata__") == 0 || mio_json_size(o) != 2) continue;
        double ds = mio_json_at(o, 0)->valuedouble, de = mio_json_at(o, 1)->valuedouble;
        if (!(ds >= 0 && de >= ds && de < 18446744073709551616.0)) continue;
        uint64_t s0 = (uint64_t)ds, e0 = (uint64_t)de;
        if (e0 <= avail) continue;
        cut++;
        if (s0 < best_s) {
            best_s = s0;
            best_e = e0;
            best = e->string;
        }
    }
    if (best) {
        /* a second line of the message, escaped for a terminal as the tools print it */
        char *ep = mio_escape_text(path, strlen(path), SIZE_MAX, 0, NULL);
        char *en = mio_escape_text(best, strlen(best), SIZE_MAX, 0, NULL);
        mio_err_append("\n%s: tensor '%s' (data at bytes %" PRIu64 "..%" PRIu64 " of the file) is cut short: the file "
                       "ends at byte %" PRIu64, ep ? ep : "?", en ? en : "?", 8 + n + best_s, 8 + n + best_e, size);
        free(ep);
        free(en);
        if (cut > 1) mio_err_append("; %" PRIu64 " more %s run past the end", cut - 1, cut - 1 == 1 ? "tensor" : "tensors");
    }
    mio_json_free(root);
    return best != NULL;
}

/* The same for every shard of an index. */
static void st_index_cut_hint(const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0 || sb.st_size > (1 << 28)) return;
    char *text = slurp(path, 0, (size_t)sb.st_size);
    mio_json *root = text ? mio_json_parse_str(text, NULL) : NULL;
    free(text);
    mio_json *wm = root ? mio_json_get(root, "weight_map") : NULL;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path + 1) : 0;
    /* each shard once (the map repeats them; a shard already named is skipped) */
    for (mio_json *e = wm ? wm->child : NULL; e; e = e->next) {
        if (!mio_json_is_string(e) || strchr(e->valuestring, '/')) continue;
        int seen = 0;
        for (mio_json *p = wm->child; p != e; p = p->next)
            if (mio_json_is_string(p) && strcmp(p->valuestring, e->valuestring) == 0) seen = 1;
        if (seen) continue;
        size_t nl = strlen(e->valuestring);
        char *sp = malloc(dl + nl + 1);
        if (!sp) break;
        memcpy(sp, path, dl);
        memcpy(sp + dl, e->valuestring, nl + 1);
        st_cut_hint(sp);
        free(sp);
    }
    mio_json_free(root);
}

static mio_status open_gguf_files(mio_model *m) {
    const char *path = m->path;
    uint32_t parts = mio_gguf_part_count(m->g);
    m->files = calloc(parts ? parts : 1, sizeof *m->files);
    if (!m->files) return oom();
    for (uint32_t k = 0; k < parts; k++) m->files[k].fd = -1;
    m->n_files = parts;
    size_t pl = strlen(path);
    if (parts > 1 && (pl < 20 || !ends_with(path, ".gguf")))
        return mio_err_set(MIO_ERR_SPLIT, "%s: a split model opened from a name without -00001-of-NNNNN.gguf", path);
    for (uint32_t k = 0; k < parts; k++) {
        char *pp = malloc(pl + 1);
        if (!pp) return oom();
        memcpy(pp, path, pl + 1);
        if (parts > 1) {
            char sfx[48];
            int sl = snprintf(sfx, sizeof sfx, "-%05u-of-%05u.gguf", k + 1, parts);
            if (sl != 20) {
                free(pp);
                return mio_err_set(MIO_ERR_SPLIT, "%s: a split model of %u parts: more than the name pattern can hold", path,
                                   parts);
            }
            memcpy(pp + pl - 20, sfx, 21);
        }
        mio_status st = attach_file(m, k, pp);
        free(pp);
        if (st != MIO_OK) return st;
    }
    for (int64_t i = 0; i < m->n; i++) {
        mio_gguf_tensor gt;
        mio_status st = mio_gguf_tensor_info(m->g, i, &gt);
        if (st != MIO_OK) return st;
        mio_model_tensor *t = &m->t[i];
        uint64_t *sh = m->shapes + 4 * i;
        t->name = gt.name;
        t->type = gt.type;
        t->n_dims = gt.n_dims;
        t->n_elems = 1;
        for (uint32_t d = 0; d < gt.n_dims && d < 4; d++) {
            sh[d] = (uint64_t)gt.ne[gt.n_dims - 1 - d];
            t->n_elems *= (uint64_t)gt.ne[d];
        }
        t->shape = sh;
        t->nbytes = gt.nbytes;
        t->file = gt.part;
        t->offset = mio_gguf_part_data_offset(m->g, gt.part) + gt.offset;
    }
    return MIO_OK;
}

static mio_status open_st_files(mio_model *m) {
    mio_status st;
    if (m->fmt == MIO_FORMAT_ST_INDEX) {
        if ((st = st_index_files(m)) != MIO_OK) return st;
    } else {
        if (!(m->files = calloc(1, sizeof *m->files))) return oom();
        m->files[0].fd = -1;
        m->n_files = 1;
        if ((st = attach_file(m, 0, m->path)) != MIO_OK) return st;
    }
    uint64_t *bases = calloc(m->n_files ? m->n_files : 1, sizeof *bases);
    if (!bases) return oom();
    for (uint32_t k = 0; k < m->n_files; k++)
        if ((st = st_data_base(m, k, &bases[k])) != MIO_OK) {
            free(bases);
            return st;
        }
    for (int64_t i = 0; i < m->n; i++) {
        mio_st_tensor stt;
        if ((st = mio_st_tensor_info(m->s, i, &stt)) != MIO_OK || stt.shard >= m->n_files) {
            free(bases);
            return st != MIO_OK ? st : mio_err_set(MIO_ERR_STATE, "%s: tensor %" PRId64 " names shard %u of %u", m->path, i,
                                                   stt.shard, m->n_files);
        }
        mio_model_tensor *t = &m->t[i];
        t->name = stt.name;
        t->type = stt.type;
        t->n_dims = stt.n_dims;
        t->shape = stt.shape;
        t->n_elems = 1;
        for (uint32_t d = 0; d < stt.n_dims; d++) t->n_elems *= stt.shape[d];
        t->nbytes = stt.nbytes;
        t->file = stt.shard;
        t->offset = bases[stt.shard] + stt.data_start;
    }
    free(bases);
    return MIO_OK;
}

MIO_API mio_status mio_model_open(const char *path, mio_model **out) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    mio_model *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path))) {
        free(m);
        return oom();
    }
    mio_format fmt = mio_detect_format(path);
    mio_status st;
    if (fmt == MIO_FORMAT_SAFETENSORS || fmt == MIO_FORMAT_ST_INDEX) {
        mio_st_file *s = NULL;
        st = mio_st_open(path, MIO_OPEN_HEADER, &s);
        m->s = s;
        m->fmt = fmt;
    } else {
        /* GGUF, and anything unrecognised or unreadable: the GGUF reader names the problem */
        mio_gguf_file *g = NULL;
        st = mio_gguf_open(path, MIO_OPEN_SPLITS | MIO_OPEN_HEADER, &g);
        m->g = g;
        m->fmt = MIO_FORMAT_GGUF;
    }
    if (st != MIO_OK) {
        if (mio_net_is_remote(path))
            ; /* the hints re-read local files */
        else if (st == MIO_ERR_INCOMPLETE_BUFFER && fmt == MIO_FORMAT_SAFETENSORS)
            st_cut_hint(path);
        else if (st == MIO_ERR_INCOMPLETE_BUFFER)
            st_index_cut_hint(path);
        mio_model_close(m);
        return st;
    }
    if (mio_inspect_after_open) mio_inspect_after_open(path);
    m->n = m->g ? mio_gguf_tensor_count(m->g) : mio_st_tensor_count(m->s);
    m->t = calloc(m->n ? (size_t)m->n : 1, sizeof *m->t);
    if (m->g) m->shapes = calloc(m->n ? (size_t)m->n * 4 : 1, sizeof *m->shapes);
    if (!m->t || (m->g && !m->shapes))
        st = oom();
    else
        st = m->g ? open_gguf_files(m) : open_st_files(m);
    if (st != MIO_OK) {
        mio_model_close(m);
        return st;
    }
    *out = m;
    return MIO_OK;
}

MIO_API mio_format mio_model_format(const mio_model *m) { return m ? m->fmt : MIO_FORMAT_UNKNOWN; }
MIO_API int64_t mio_model_tensor_count(const mio_model *m) { return m ? m->n : -1; }
MIO_API uint32_t mio_model_file_count(const mio_model *m) { return m ? m->n_files : 0; }
MIO_API const char *mio_model_file_path(const mio_model *m, uint32_t k) {
    return m && k < m->n_files ? m->files[k].path : NULL;
}
MIO_API const mio_gguf_file *mio_model_gguf(const mio_model *m) { return m ? m->g : NULL; }
MIO_API const mio_st_file *mio_model_st(const mio_model *m) { return m ? m->s : NULL; }

MIO_API mio_status mio_model_tensor_info(const mio_model *m, int64_t i, mio_model_tensor *out) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (!out) return mio_err_set(MIO_ERR_INVALID_ARG, "out is NULL");
    if (i < 0 || i >= m->n)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %" PRId64 " out of range (%" PRId64 " tensors)", i, m->n);
    *out = m->t[i];
    return MIO_OK;
}

/* "FILEPATH: tensor 'NAME' (data at bytes A..B of that file): " */
#define TENSOR_FMT "%s: tensor '%.*s' (data at bytes %" PRIu64 "..%" PRIu64 " of that file): "
#define TENSOR_ARGS(m, t) (m)->files[(t)->file].path, (int)(t)->name.len, (t)->name.ptr, (t)->offset, \
                          (t)->offset + (t)->nbytes

MIO_API mio_status mio_model_read(const mio_model *m, int64_t i, uint64_t rel, void *buf, size_t len) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (!buf && len) return mio_err_set(MIO_ERR_INVALID_ARG, "buf is NULL");
    if (i < 0 || i >= m->n)
        return mio_err_set(MIO_ERR_INVALID_ARG, "tensor index %" PRId64 " out of range (%" PRId64 " tensors)", i, m->n);
    const mio_model_tensor *t = &m->t[i];
    if (rel > t->nbytes || len > t->nbytes - rel)
        return mio_err_set(MIO_ERR_OUT_OF_RANGE, "tensor '%.*s': bytes %" PRIu64 "..%" PRIu64 " past its %" PRIu64 " bytes",
                           (int)t->name.len, t->name.ptr, rel, rel + len, t->nbytes);
    const insp_file *f = &m->files[t->file];
    size_t got = 0;
    if (f->remote) {
        char what[200];
        snprintf(what, sizeof what, "tensor '%.*s'", (int)(t->name.len < 120 ? t->name.len : 120), t->name.ptr);
        return mio_remote_read(f->remote, t->offset + rel, buf, len, what);
    }
    if (pread_all(f->fd, buf, len, t->offset + rel, &got) != 0)
        return mio_err_set(MIO_ERR_IO, TENSOR_FMT "read error at byte %" PRIu64 ": %s", TENSOR_ARGS(m, t),
                           t->offset + rel + got, strerror(errno));
    if (got < len) {
        struct stat sb;
        uint64_t size = fstat(f->fd, &sb) == 0 ? (uint64_t)sb.st_size : t->offset + rel + got;
        return mio_err_set(MIO_ERR_TRUNCATED,
                           TENSOR_FMT "the file ends at byte %" PRIu64 ", %" PRIu64 " bytes into the tensor's data (it was "
                                  "truncated after it was opened?)",
                           TENSOR_ARGS(m, t), size, size > t->offset ? size - t->offset : 0);
    }
    return MIO_OK;
}

int mio_insp_name_cmp(const char *a, size_t al, const char *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c) return c;
    return al < bl ? -1 : al > bl;
}

typedef struct name_ref {
    const char *p;
    size_t n;
    int64_t i;
} name_ref;

static int cmp_name_ref(const void *a, const void *b) {
    const name_ref *x = a, *y = b;
    return mio_insp_name_cmp(x->p, x->n, y->p, y->n);
}

int64_t *mio_insp_sorted_idx(const mio_model *m) {
    size_t n = (size_t)m->n;
    int64_t *idx = malloc((n ? n : 1) * sizeof *idx);
    name_ref *r = malloc((n ? n : 1) * sizeof *r);
    if (!idx || !r) {
        free(idx);
        free(r);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) r[i] = (name_ref){m->t[i].name.ptr, m->t[i].name.len, (int64_t)i};
    qsort(r, n, sizeof *r, cmp_name_ref);
    for (size_t i = 0; i < n; i++) idx[i] = r[i].i;
    free(r);
    return idx;
}

int64_t mio_insp_find_sorted(const mio_model *m, const int64_t *idx, const char *p, size_t n) {
    int64_t lo = 0, hi = m->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const mio_model_tensor *t = &m->t[idx[mid]];
        int c = mio_insp_name_cmp(t->name.ptr, t->name.len, p, n);
        if (c == 0) return idx[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
