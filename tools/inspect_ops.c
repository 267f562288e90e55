/* SPDX-License-Identifier: MIT */
/* inspect_ops.c — mio-inspect --hash / --check / --stats / --diff / --verify
 * over GGUF files (a split model given as its first part: all parts),
 * safetensors files and sharded safetensors (*.index.json) alike.
 *
 * The library opens the model (header, tensor table, sizes checked); every
 * tensor byte is then read with pread through descriptors this file opens
 * itself, a few MiB at a time, so memory stays bounded and a file that is
 * truncated, replaced or unreadable after the open is reported with the tensor
 * and the byte offsets, never a SIGBUS. See docs/TOOLS-inspect-ops.md for the
 * manifest format and the exact definition of every number. */
#define _POSIX_C_SOURCE 200809L
#include "inspect_ops.h"

#include <modelio.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <xxhash.h>

#include "cli.h"
#include "sha256.h"

#define PROG "mio-inspect"
/* Bytes read at a time for --hash / --verify. */
#define READ_CHUNK ((size_t)4 << 20)
/* Elements decoded at a time for --stats / --diff (a multiple of every block size). */
#define ELEM_CHUNK ((size_t)1 << 18)
/* --check / --diff: problems listed one by one before "... and N more". */
#define SHOW_MAX 20
/* Manifest lines longer than this are refused as malformed. */
#define MANIFEST_LINE_MAX ((size_t)1 << 20)
#define MANIFEST_HEADER "# mio-inspect manifest v1 "

void (*inspect_ops_after_open)(const char *path) = NULL;

/* ------------------------------------------------------------------------- */
/* The model: tensors with the file and absolute offset of their bytes        */
/* ------------------------------------------------------------------------- */

typedef struct op_file {
    char *path;
    int fd;
} op_file;

typedef struct op_tensor {
    const char *name;
    size_t name_len;
    int type;              /* library type code (ggml codes; safetensors-only codes from 1000) */
    uint32_t n_dims;
    const uint64_t *shape; /* outermost first */
    uint64_t n_elems;
    uint64_t nbytes;
    uint32_t file;         /* index into op_model.files */
    uint64_t off;          /* absolute offset of the first byte in that file */
} op_tensor;

typedef struct op_model {
    const char *path;
    int gguf;
    mio_gguf_file *g;
    mio_st_file *s;
    op_file *files;
    uint32_t n_files;
    op_tensor *t;
    int64_t n;
    uint64_t *shapes;      /* GGUF: reversed ne[], 4 per tensor */
} op_model;

static void model_close(op_model *m)
{
    for (uint32_t i = 0; i < m->n_files; i++) {
        if (m->files[i].fd >= 0)
            close(m->files[i].fd);
        free(m->files[i].path);
    }
    free(m->files);
    free(m->t);
    free(m->shapes);
    mio_gguf_close(m->g);
    mio_st_close(m->s);
    memset(m, 0, sizeof *m);
}

static void oom(void)
{
    fprintf(stderr, PROG ": out of memory\n");
}

/* "mio-inspect: PATH: " + printf text, escaped path. */
static void errf(const char *path, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, PROG ": ");
    if (path) {
        cli_esc_str(stderr, path);
        fputs(": ", stderr);
    }
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void put_name(FILE *o, const op_tensor *t)
{
    fputc('\'', o);
    cli_esc(o, t->name, t->name_len);
    fputc('\'', o);
}

/* Where tensor_err writes: stderr, or (hashing threads) a buffer of the
 * thread's own, so that only the first failing tensor is reported. */
static _Thread_local FILE *t_err;

/* "mio-inspect: FILEPATH: tensor 'NAME' (bytes A..B): " + printf text. */
static void tensor_err(const op_model *m, const op_tensor *t, const char *fmt, ...)
{
    va_list ap;
    FILE *o = t_err ? t_err : stderr;
    fprintf(o, PROG ": ");
    cli_esc_str(o, m->files[t->file].path);
    fputs(": tensor ", o);
    put_name(o, t);
    fprintf(o, " (data at bytes %" PRIu64 "..%" PRIu64 " of that file): ", t->off, t->off + t->nbytes);
    va_start(ap, fmt);
    vfprintf(o, fmt, ap);
    va_end(ap);
    fputc('\n', o);
}

/* Open path for pread and make sure it is the very file the library parsed. */
static int attach_file(op_model *m, uint32_t k, const char *path)
{
    op_file *f = &m->files[k];
    f->path = strdup(path);
    if (!f->path) {
        oom();
        return -1;
    }
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        errf(path, "cannot open for reading: %s", strerror(errno));
        return -1;
    }
    /* /proc/self/fd/N names exactly this descriptor's file (no race with a
     * rename); the plain path where /proc is not there */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
    int same = m->gguf ? (mio_gguf_uses_file(m->g, proc) || mio_gguf_uses_file(m->g, path))
                       : (mio_st_uses_file(m->s, proc) || mio_st_uses_file(m->s, path));
    if (!same) {
        errf(path, "the file was replaced after it was opened; run again");
        return -1;
    }
    return 0;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t pos, size_t *got)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(pos + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            *got = done;
            return -1;
        }
        if (r == 0)
            break;
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

/* safetensors shard k: its data buffer starts after the 8-byte length and the header. */
static int st_data_base(op_model *m, uint32_t k, uint64_t *base)
{
    unsigned char b[8];
    size_t got;
    if (pread_all(m->files[k].fd, b, 8, 0, &got) != 0) {
        errf(m->files[k].path, "cannot read the header length: %s", strerror(errno));
        return -1;
    }
    if (got != 8) {
        errf(m->files[k].path, "the file is now %zu bytes long, too short for a header (changed after it was opened?)",
             got);
        return -1;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | b[i];
    *base = 8 + n;
    return 0;
}

/* Shard files of an index in the library's order: the weight_map's file names,
 * sorted and each once, in the index's directory. */
static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int st_index_files(op_model *m)
{
    FILE *fp = fopen(m->path, "rb");
    if (!fp) {
        errf(m->path, "cannot open: %s", strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nt = realloc(text, nc);
            if (!nt) {
                free(text);
                fclose(fp);
                oom();
                return -1;
            }
            text = nt;
            cap = nc;
        }
        size_t r = fread(text + len, 1, cap - len, fp);
        len += r;
        if (r == 0)
            break;
    }
    int bad = ferror(fp);
    fclose(fp);
    cJSON *root = bad ? NULL : cJSON_ParseWithLength(text, len);
    free(text);
    cJSON *wm = root ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
    if (!wm || !cJSON_IsObject(wm)) {
        cJSON_Delete(root);
        errf(m->path, "cannot read the index again (it changed after it was opened?)");
        return -1;
    }
    size_t n = 0;
    for (cJSON *e = wm->child; e; e = e->next)
        n++;
    char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names) {
        cJSON_Delete(root);
        oom();
        return -1;
    }
    size_t k = 0;
    for (cJSON *e = wm->child; e; e = e->next)
        names[k++] = cJSON_IsString(e) ? e->valuestring : (char *)"";
    qsort(names, n, sizeof *names, cmp_cstr);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || strcmp(names[u - 1], names[i]) != 0)
            names[u++] = names[i];
    int rc = 0;
    if (u != mio_st_shard_count(m->s)) {
        errf(m->path, "the index lists %zu shard files but %u were opened (it changed after it was opened?)", u,
             mio_st_shard_count(m->s));
        rc = -1;
    }
    const char *slash = strrchr(m->path, '/');
    size_t dl = slash ? (size_t)(slash - m->path + 1) : 0;
    m->files = calloc(u ? u : 1, sizeof *m->files);
    if (!rc && !m->files) {
        oom();
        rc = -1;
    }
    for (size_t i = 0; i < u && !rc; i++)
        m->files[i].fd = -1;
    for (size_t i = 0; i < u && !rc; i++) {
        size_t nl = strlen(names[i]);
        char *p = malloc(dl + nl + 1);
        if (!p) {
            oom();
            rc = -1;
            break;
        }
        memcpy(p, m->path, dl);
        memcpy(p + dl, names[i], nl + 1);
        m->n_files = (uint32_t)i + 1;
        rc = attach_file(m, (uint32_t)i, p);
        free(p);
    }
    free(names);
    cJSON_Delete(root);
    return rc;
}

/* Whole small file (an index, a header) into memory; NULL with a message. */
static char *slurp(const char *path, uint64_t off, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *b = malloc(len + 1);
    size_t got = 0;
    if (b && (pread_all(fd, b, len, off, &got) != 0 || got != len)) {
        free(b);
        b = NULL;
    }
    if (b)
        b[len] = '\0';
    close(fd);
    return b;
}

/* A safetensors file whose data is shorter than its header says (the library
 * reports only the byte counts): name the first tensor, in data order, whose
 * bytes run past the end. Prints a line and returns 1 when it found one. */
static int st_cut_hint(const char *path)
{
    struct stat sb;
    unsigned char b8[8];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t got = 0;
    int ok = fstat(fd, &sb) == 0 && pread_all(fd, b8, 8, 0, &got) == 0 && got == 8;
    close(fd);
    if (!ok)
        return 0;
    uint64_t n = 0, size = (uint64_t)sb.st_size;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | b8[i];
    if (n > MIO_ST_MAX_HEADER || 8 + n > size)
        return 0;
    char *h = slurp(path, 8, (size_t)n);
    cJSON *root = h ? cJSON_ParseWithLength(h, (size_t)n) : NULL;
    free(h);
    if (!root)
        return 0;
    uint64_t avail = size - 8 - n, best_s = UINT64_MAX, best_e = 0, cut = 0;
    const char *best = NULL;
    for (cJSON *e = root->child; e; e = e->next) {
        cJSON *o = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
        if (!e->string || strcmp(e->string, "__metadata__") == 0 || cJSON_GetArraySize(o) != 2)
            continue;
        double ds = cJSON_GetArrayItem(o, 0)->valuedouble, de = cJSON_GetArrayItem(o, 1)->valuedouble;
        if (!(ds >= 0 && de >= ds && de < 18446744073709551616.0))
            continue;
        uint64_t s0 = (uint64_t)ds, e0 = (uint64_t)de;
        if (e0 <= avail)
            continue;
        cut++;
        if (s0 < best_s) {
            best_s = s0;
            best_e = e0;
            best = e->string;
        }
    }
    if (best) {
        fprintf(stderr, PROG ": ");
        cli_esc_str(stderr, path);
        fprintf(stderr, ": tensor '");
        cli_esc_str(stderr, best);
        fprintf(stderr,
                "' (data at bytes %" PRIu64 "..%" PRIu64 " of the file) is cut short: the file ends at byte %" PRIu64,
                8 + n + best_s, 8 + n + best_e, size);
        if (cut > 1)
            fprintf(stderr, "; %" PRIu64 " more %s run past the end", cut - 1, cli_plural(cut - 1, "tensor", "tensors"));
        fputc('\n', stderr);
    }
    cJSON_Delete(root);
    return best != NULL;
}

/* The same for every shard of an index. */
static void st_index_cut_hint(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || sb.st_size > (1 << 28))
        return;
    char *text = slurp(path, 0, (size_t)sb.st_size);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON *wm = root ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path + 1) : 0;
    /* each shard once (the map repeats them; a shard already named is skipped) */
    for (cJSON *e = wm ? wm->child : NULL; e; e = e->next) {
        if (!cJSON_IsString(e) || strchr(e->valuestring, '/'))
            continue;
        int seen = 0;
        for (cJSON *p = wm->child; p != e; p = p->next)
            if (cJSON_IsString(p) && strcmp(p->valuestring, e->valuestring) == 0)
                seen = 1;
        if (seen)
            continue;
        size_t nl = strlen(e->valuestring);
        char *sp = malloc(dl + nl + 1);
        if (!sp)
            break;
        memcpy(sp, path, dl);
        memcpy(sp + dl, e->valuestring, nl + 1);
        st_cut_hint(sp);
        free(sp);
    }
    cJSON_Delete(root);
}

static int model_open(const char *path, op_model *m)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    cli_format fmt = cli_detect_format(path);
    mio_status st;
    /* opened through locals: m's other fields stay visibly zero to the analyzers */
    if (fmt == CLI_FMT_ST || fmt == CLI_FMT_ST_INDEX) {
        mio_st_file *s = NULL;
        st = mio_st_open(path, MIO_OPEN_MMAP, &s);
        m->s = s;
    } else {
        mio_gguf_file *g = NULL;
        m->gguf = 1;
        st = mio_gguf_open(path, MIO_OPEN_SPLITS, &g);
        m->g = g;
    }
    if (st != MIO_OK) {
        cli_report(PROG, path, mio_last_error());
        if (st == MIO_ERR_INCOMPLETE_BUFFER && fmt == CLI_FMT_ST)
            st_cut_hint(path);
        else if (st == MIO_ERR_INCOMPLETE_BUFFER)
            st_index_cut_hint(path);
        return -1;
    }
    if (inspect_ops_after_open)
        inspect_ops_after_open(path);
    m->n = m->gguf ? mio_gguf_tensor_count(m->g) : mio_st_tensor_count(m->s);
    m->t = calloc(m->n ? (size_t)m->n : 1, sizeof *m->t);
    if (m->gguf)
        m->shapes = calloc(m->n ? (size_t)m->n * 4 : 1, sizeof *m->shapes);
    if (!m->t || (m->gguf && !m->shapes)) {
        oom();
        goto fail;
    }

    if (m->gguf) {
        uint32_t parts = mio_gguf_part_count(m->g);
        m->files = calloc(parts, sizeof *m->files);
        if (!m->files) {
            oom();
            goto fail;
        }
        for (uint32_t k = 0; k < parts; k++)
            m->files[k].fd = -1;
        m->n_files = parts;
        size_t pl = strlen(path);
        if (parts > 1 && (pl < 20 || !cli_ends_with(path, ".gguf"))) {
            errf(path, "a split model opened from a name without -00001-of-NNNNN.gguf");
            goto fail;
        }
        for (uint32_t k = 0; k < parts; k++) {
            char *pp = malloc(pl + 1);
            if (!pp) {
                oom();
                goto fail;
            }
            memcpy(pp, path, pl + 1);
            if (parts > 1) {
                char sfx[48];
                int sl = snprintf(sfx, sizeof sfx, "-%05u-of-%05u.gguf", k + 1, parts);
                if (sl != 20) {
                    free(pp);
                    errf(path, "a split model of %u parts: more than the name pattern can hold", parts);
                    goto fail;
                }
                memcpy(pp + pl - 20, sfx, 21);
            }
            int rc = attach_file(m, k, pp);
            free(pp);
            if (rc)
                goto fail;
        }
        for (int64_t i = 0; i < m->n; i++) {
            mio_gguf_tensor gt;
            if (mio_gguf_tensor_info(m->g, i, &gt) != MIO_OK) {
                cli_report(PROG, path, mio_last_error());
                goto fail;
            }
            op_tensor *t = &m->t[i];
            uint64_t *sh = m->shapes + 4 * i;
            t->name = gt.name.ptr;
            t->name_len = gt.name.len;
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
            t->off = mio_gguf_part_data_offset(m->g, gt.part) + gt.offset;
        }
    } else {
        if (fmt == CLI_FMT_ST_INDEX) {
            if (st_index_files(m))
                goto fail;
        } else {
            m->files = calloc(1, sizeof *m->files);
            if (!m->files) {
                oom();
                goto fail;
            }
            m->files[0].fd = -1;
            m->n_files = 1;
            if (attach_file(m, 0, path))
                goto fail;
        }
        uint64_t *bases = calloc(m->n_files ? m->n_files : 1, sizeof *bases); /* calloc(0) may return NULL */
        if (!bases) {
            oom();
            goto fail;
        }
        for (uint32_t k = 0; k < m->n_files; k++)
            if (st_data_base(m, k, &bases[k])) {
                free(bases);
                goto fail;
            }
        for (int64_t i = 0; i < m->n; i++) {
            mio_st_tensor stt;
            if (mio_st_tensor_info(m->s, i, &stt) != MIO_OK || stt.shard >= m->n_files) {
                free(bases);
                cli_report(PROG, path, mio_last_error());
                goto fail;
            }
            op_tensor *t = &m->t[i];
            t->name = stt.name.ptr;
            t->name_len = stt.name.len;
            t->type = stt.type;
            t->n_dims = stt.n_dims;
            t->shape = stt.shape;
            t->n_elems = 1;
            for (uint32_t d = 0; d < stt.n_dims; d++)
                t->n_elems *= stt.shape[d];
            t->nbytes = stt.nbytes;
            t->file = stt.shard;
            t->off = bases[stt.shard] + stt.data_start;
        }
        free(bases);
    }
    return 0;
fail:
    model_close(m);
    return -1;
}

/* Read len bytes of tensor t starting rel bytes into its data. */
static int read_tensor(const op_model *m, const op_tensor *t, uint64_t rel, void *buf, size_t len)
{
    const op_file *f = &m->files[t->file];
    size_t got = 0;
    if (pread_all(f->fd, buf, len, t->off + rel, &got) != 0) {
        tensor_err(m, t, "read error at byte %" PRIu64 ": %s", t->off + rel + got, strerror(errno));
        return -1;
    }
    if (got < len) {
        struct stat sb;
        uint64_t size = fstat(f->fd, &sb) == 0 ? (uint64_t)sb.st_size : t->off + rel + got;
        tensor_err(m, t,
                   "the file ends at byte %" PRIu64 ", %" PRIu64 " bytes into the tensor's data (it was truncated "
                   "after it was opened?)",
                   size, size > t->off ? size - t->off : 0);
        return -1;
    }
    return 0;
}

static const char *type_text(int type, char *buf, size_t cap)
{
    const char *n = mio_type_name(type);
    if (n)
        return n;
    snprintf(buf, cap, "type_%d", type);
    return buf;
}

static void put_shape(FILE *o, const op_tensor *t)
{
    fputc('[', o);
    for (uint32_t d = 0; d < t->n_dims; d++)
        fprintf(o, "%s%" PRIu64, d ? ", " : "", t->shape[d]);
    fputc(']', o);
}

/* Order tensors (or any named things) by raw name bytes; a prefix sorts first. */
static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

static const op_tensor *g_sort_t;
static int cmp_tensor_idx(const void *a, const void *b)
{
    const op_tensor *x = &g_sort_t[*(const int64_t *)a], *y = &g_sort_t[*(const int64_t *)b];
    return name_cmp(x->name, x->name_len, y->name, y->name_len);
}

/* Tensor indices of m sorted by name (malloc'd). */
static int64_t *sorted_idx(const op_model *m)
{
    int64_t *idx = malloc((m->n ? (size_t)m->n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    for (int64_t i = 0; i < m->n; i++)
        idx[i] = i;
    g_sort_t = m->t;
    qsort(idx, (size_t)m->n, sizeof *idx, cmp_tensor_idx);
    return idx;
}

/* Index of the tensor named (p, n) in m via the sorted index, or -1. */
static int64_t find_sorted(const op_model *m, const int64_t *idx, const char *p, size_t n)
{
    int64_t lo = 0, hi = m->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const op_tensor *t = &m->t[idx[mid]];
        int c = name_cmp(t->name, t->name_len, p, n);
        if (c == 0)
            return idx[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* ------------------------------------------------------------------------- */
/* Hashing                                                                    */
/* ------------------------------------------------------------------------- */

enum { ALG_XXH64, ALG_XXH3, ALG_SHA256 };
static const char *const ALG_NAMES[] = {"xxh64", "xxh3", "sha256"};
#define DIGEST_MAX 32

static int alg_from_name(const char *s)
{
    for (int a = 0; a < 3; a++)
        if (strcmp(s, ALG_NAMES[a]) == 0)
            return a;
    return -1;
}

static size_t alg_len(int alg)
{
    return alg == ALG_SHA256 ? 32 : 8;
}

typedef struct hasher {
    int alg;
    XXH64_state_t *x64;
    XXH3_state_t *x3;
    sha256_ctx sha;
} hasher;

static int hasher_new(hasher *h, int alg)
{
    memset(h, 0, sizeof *h);
    h->alg = alg;
    if (alg == ALG_XXH64 && !(h->x64 = XXH64_createState()))
        return -1;
    if (alg == ALG_XXH3 && !(h->x3 = XXH3_createState()))
        return -1;
    return 0;
}

static void hasher_free(hasher *h)
{
    if (h->x64)
        XXH64_freeState(h->x64);
    if (h->x3)
        XXH3_freeState(h->x3);
}

static void hasher_reset(hasher *h)
{
    if (h->alg == ALG_XXH64)
        XXH64_reset(h->x64, 0);
    else if (h->alg == ALG_XXH3)
        XXH3_64bits_reset(h->x3);
    else
        sha256_init(&h->sha);
}

static void hasher_update(hasher *h, const void *p, size_t n)
{
    if (h->alg == ALG_XXH64)
        XXH64_update(h->x64, p, n);
    else if (h->alg == ALG_XXH3)
        XXH3_64bits_update(h->x3, p, n);
    else
        sha256_update(&h->sha, p, n);
}

/* The digest bytes; xxh values in their canonical (big-endian) form, so the
 * hex is what xxhsum and llama-gguf-hash print. */
static void hasher_final(hasher *h, unsigned char *out)
{
    if (h->alg == ALG_SHA256) {
        sha256_final(&h->sha, out);
        return;
    }
    XXH64_hash_t v = h->alg == ALG_XXH64 ? XXH64_digest(h->x64) : XXH3_64bits_digest(h->x3);
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(v >> (56 - 8 * i));
}

static void hex(char *dst, const unsigned char *d, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = hx[d[i] >> 4];
        dst[2 * i + 1] = hx[d[i] & 15];
    }
    dst[2 * n] = '\0';
}

/* Read (and, alg >= 0, hash) every tensor's data bytes. Tensors are handed
 * out in file order to up to HASH_THREADS threads, each with its own 4 MiB
 * buffer; dig (n * DIGEST_MAX bytes, may be NULL when alg < 0) receives the
 * digests. When reads fail, only the failure of the first such tensor in file
 * order is reported (the threads keep their messages until the end). */
#define HASH_THREADS 8

typedef struct hash_job {
    const op_model *m;
    int alg;
    unsigned char *dig;
    uint64_t *bytes;     /* total bytes read */
    pthread_mutex_t mu;
    int64_t next;        /* next tensor to hand out */
    int64_t failed;      /* lowest failing tensor, or INT64_MAX */
    char *msg;           /* its message */
    int oom;
} hash_job;

static void job_fail(hash_job *j, int64_t i, char *msg)
{
    pthread_mutex_lock(&j->mu);
    if (i < j->failed) {
        j->failed = i;
        free(j->msg);
        j->msg = msg;
        msg = NULL;
    }
    pthread_mutex_unlock(&j->mu);
    free(msg);
}

static void *hash_worker(void *arg)
{
    hash_job *j = arg;
    const op_model *m = j->m;
    hasher h;
    int have_h = 0;
    unsigned char *buf = malloc(READ_CHUNK);
    if (!buf || (j->alg >= 0 && hasher_new(&h, j->alg) != 0)) {
        pthread_mutex_lock(&j->mu);
        j->oom = 1;
        j->failed = -1;
        pthread_mutex_unlock(&j->mu);
        free(buf);
        return NULL;
    }
    have_h = j->alg >= 0;
    uint64_t done = 0;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int64_t i = j->next < m->n && j->failed == INT64_MAX ? j->next++ : -1;
        pthread_mutex_unlock(&j->mu);
        if (i < 0)
            break;
        const op_tensor *t = &m->t[i];
        if (have_h)
            hasher_reset(&h);
        char *msg = NULL;
        size_t msg_len = 0;
        t_err = open_memstream(&msg, &msg_len);
        int rc = 0, stop = 0;
        for (uint64_t pos = 0; pos < t->nbytes && !rc && !stop; pos += READ_CHUNK) {
            size_t len = t->nbytes - pos < READ_CHUNK ? (size_t)(t->nbytes - pos) : READ_CHUNK;
            rc = read_tensor(m, t, pos, buf, len);
            if (!rc) {
                done += len;
                if (have_h)
                    hasher_update(&h, buf, len);
            }
            /* an earlier tensor failed: this one no longer matters */
            pthread_mutex_lock(&j->mu);
            stop = j->failed < i;
            pthread_mutex_unlock(&j->mu);
        }
        if (t_err) {
            fclose(t_err);
            t_err = NULL;
        } else if (rc) {
            msg = NULL; /* no memory stream: the message went to stderr */
        }
        if (rc) {
            job_fail(j, i, msg);
            break;
        }
        free(msg);
        if (stop)
            break;
        if (have_h)
            hasher_final(&h, j->dig + (size_t)i * DIGEST_MAX);
    }
    pthread_mutex_lock(&j->mu);
    *j->bytes += done;
    pthread_mutex_unlock(&j->mu);
    if (have_h)
        hasher_free(&h);
    free(buf);
    return NULL;
}

static int read_all_tensors(const op_model *m, int alg, unsigned char *dig, uint64_t *bytes)
{
    hash_job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.alg = alg;
    j.dig = dig;
    j.bytes = bytes;
    j.failed = INT64_MAX;
    *bytes = 0;
    if (pthread_mutex_init(&j.mu, NULL) != 0) {
        oom();
        return -1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t nt = cores < 1 ? 1 : cores > HASH_THREADS ? HASH_THREADS : cores;
    if (nt > m->n)
        nt = m->n ? m->n : 1;
    pthread_t th[HASH_THREADS];
    int started[HASH_THREADS] = {0};
    for (int64_t k = 1; k < nt; k++)
        started[k] = pthread_create(&th[k], NULL, hash_worker, &j) == 0;
    hash_worker(&j);
    for (int64_t k = 1; k < nt; k++)
        if (started[k])
            pthread_join(th[k], NULL);
    pthread_mutex_destroy(&j.mu);
    if (j.oom) {
        free(j.msg);
        oom();
        return -1;
    }
    if (j.failed != INT64_MAX) {
        if (j.msg)
            fputs(j.msg, stderr);
        free(j.msg);
        return -1;
    }
    return 0;
}

static int hash_tensors(const op_model *m, int alg, unsigned char *dig)
{
    uint64_t bytes;
    return read_all_tensors(m, alg, dig, &bytes);
}

/* A name for a manifest line: sha256sum's escapes (\\ \n \r) plus \xHH for
 * other control bytes (C0, DEL, C1) and for bytes that are not valid UTF-8.
 * *escaped says whether any escape was needed (the line then starts with a
 * backslash). malloc'd, NUL terminated. */
static char *escape_name(const char *p, size_t n, int *escaped)
{
    char *o = malloc(4 * n + 1), *q = o;
    if (!o)
        return NULL;
    *escaped = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int valid;
        size_t k = cli_utf8_next((const unsigned char *)p + i, n - i, &cp, &valid);
        unsigned char c = (unsigned char)p[i];
        if (valid && cp >= 0xa0) {
            memcpy(q, p + i, k);
            q += k;
            i += k;
            continue;
        }
        if (valid && cp >= 0x20 && cp < 0x7f && c != '\\') {
            *q++ = (char)c;
            i++;
            continue;
        }
        *escaped = 1;
        if (c == '\\' || c == '\n' || c == '\r') {
            *q++ = '\\';
            *q++ = c == '\\' ? '\\' : c == '\n' ? 'n' : 'r';
            i++;
            continue;
        }
        /* a control character (one byte, or the two bytes of a C1 code point)
         * or an invalid byte: every byte as \xHH */
        for (size_t j = 0; j < k; j++) {
            q += sprintf(q, "\\x%02x", (unsigned char)p[i + j]);
        }
        i += k;
    }
    *q = '\0';
    return o;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Undo escape_name in place; -1 on an unknown escape. */
static int unescape_name(char *s, size_t *len)
{
    size_t n = *len, j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            s[j++] = s[i];
            continue;
        }
        if (i + 1 >= n)
            return -1;
        char c = s[++i];
        if (c == '\\')
            s[j++] = '\\';
        else if (c == 'n')
            s[j++] = '\n';
        else if (c == 'r')
            s[j++] = '\r';
        else if (c == 'x' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            s[j++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else
            return -1;
    }
    *len = j;
    return 0;
}

/* The manifest line of one tensor ("HEX  NAME\n", backslash first when the
 * name is escaped). malloc'd. */
static char *manifest_line(const unsigned char *d, size_t dlen, const char *name, size_t nlen)
{
    int escaped;
    char *en = escape_name(name, nlen, &escaped);
    if (!en)
        return NULL;
    size_t el = strlen(en);
    char *line = malloc(1 + 2 * dlen + 2 + el + 2);
    if (line) {
        char *q = line;
        if (escaped)
            *q++ = '\\';
        hex(q, d, dlen);
        q += 2 * dlen;
        *q++ = ' ';
        *q++ = ' ';
        memcpy(q, en, el);
        q += el;
        *q++ = '\n';
        *q = '\0';
    }
    free(en);
    return line;
}

/* The sorted tensor lines and the whole-model digest. lines: n entries. */
static int manifest_lines(const op_model *m, int alg, const unsigned char *dig, const int64_t *idx, char **lines,
                          unsigned char *model_digest)
{
    hasher h;
    if (hasher_new(&h, alg) != 0) {
        oom();
        return -1;
    }
    hasher_reset(&h);
    size_t dlen = alg_len(alg);
    for (int64_t k = 0; k < m->n; k++) {
        const op_tensor *t = &m->t[idx[k]];
        lines[k] = manifest_line(dig + (size_t)idx[k] * DIGEST_MAX, dlen, t->name, t->name_len);
        if (!lines[k]) {
            hasher_free(&h);
            oom();
            return -1;
        }
        hasher_update(&h, lines[k], strlen(lines[k]));
    }
    hasher_final(&h, model_digest);
    hasher_free(&h);
    return 0;
}

static int op_hash(const char *alg_name, const char *path)
{
    int alg = alg_from_name(alg_name);
    if (alg < 0) {
        fprintf(stderr, PROG ": unknown hash algorithm '");
        cli_esc_str(stderr, alg_name);
        fprintf(stderr, "' (known: xxh64, xxh3, sha256)\n");
        return CLI_EXIT_USAGE;
    }
    op_model m;
    if (model_open(path, &m))
        return CLI_EXIT_FAIL;
    int rc = CLI_EXIT_FAIL;
    unsigned char *dig = malloc((m.n ? (size_t)m.n : 1) * DIGEST_MAX);
    int64_t *idx = sorted_idx(&m);
    char **lines = calloc(m.n ? (size_t)m.n : 1, sizeof *lines);
    unsigned char md[DIGEST_MAX];
    if (!dig || !idx || !lines) {
        oom();
        goto out;
    }
    /* everything is computed before the first line is printed: a failure
     * leaves no partial manifest */
    if (hash_tensors(&m, alg, dig) || manifest_lines(&m, alg, dig, idx, lines, md))
        goto out;
    char mh[2 * DIGEST_MAX + 1];
    hex(mh, md, alg_len(alg));
    printf(MANIFEST_HEADER "%s\n", ALG_NAMES[alg]);
    for (int64_t k = 0; k < m.n; k++)
        fputs(lines[k], stdout);
    printf("model  %s\n", mh);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        goto out;
    }
    rc = CLI_EXIT_OK;
out:
    if (lines)
        for (int64_t k = 0; k < m.n; k++)
            free(lines[k]);
    free(lines);
    free(idx);
    free(dig);
    model_close(&m);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* --check                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct man_entry {
    char *name;
    size_t len;
    unsigned char d[DIGEST_MAX];
    long line;
} man_entry;

typedef struct manifest {
    int alg;
    man_entry *e;
    size_t n, cap;
    int has_model;
    unsigned char model[DIGEST_MAX];
} manifest;

static void manifest_free(manifest *mf)
{
    for (size_t i = 0; i < mf->n; i++)
        free(mf->e[i].name);
    free(mf->e);
}

static int parse_hex(const char *s, size_t n, unsigned char *out)
{
    for (size_t i = 0; i < n; i++) {
        int a = hexval(s[2 * i]), b = hexval(s[2 * i + 1]);
        if (a < 0 || b < 0)
            return -1;
        out[i] = (unsigned char)(a * 16 + b);
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const man_entry *x = a, *y = b;
    return name_cmp(x->name, x->len, y->name, y->len);
}

/* Read MANIFEST; a message and -1 when it is unreadable or malformed. */
static int manifest_read(const char *path, manifest *mf)
{
    memset(mf, 0, sizeof *mf);
    mf->alg = -1;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        errf(path, "cannot open the manifest: %s", strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    int rc = 0;
    size_t dlen = 0;
    while (!rc && (len = getline(&line, &cap, fp)) >= 0) {
        no++;
        if ((size_t)len > MANIFEST_LINE_MAX) {
            errf(path, "line %ld: longer than %zu bytes: not a manifest line", no, MANIFEST_LINE_MAX);
            rc = -1;
            break;
        }
        if (len == 0 || line[len - 1] != '\n') {
            errf(path, "line %ld: the last line has no newline (the manifest is cut short?)", no);
            rc = -1;
            break;
        }
        line[--len] = '\0';
        /* CRLF (a manifest edited on Windows): a CR in a name is always
         * written escaped, so a raw one at the end is the line ending */
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        if (no == 1) {
            size_t hl = strlen(MANIFEST_HEADER);
            if ((size_t)len < hl || memcmp(line, MANIFEST_HEADER, hl) != 0) {
                errf(path, "line 1: not a mio-inspect manifest (the first line must be '" MANIFEST_HEADER
                           "ALGORITHM', as written by " PROG " --hash)");
                rc = -1;
                break;
            }
            mf->alg = alg_from_name(line + hl);
            if (mf->alg < 0) {
                fprintf(stderr, PROG ": ");
                cli_esc_str(stderr, path);
                fprintf(stderr, ": line 1: unknown hash algorithm '");
                cli_esc(stderr, line + hl, (size_t)len - hl);
                fprintf(stderr, "' (known: xxh64, xxh3, sha256)\n");
                rc = -1;
                break;
            }
            dlen = alg_len(mf->alg);
            continue;
        }
        if (line[0] == '#')
            continue;
        if (strncmp(line, "model  ", 7) == 0) {
            if (mf->has_model) {
                errf(path, "line %ld: a second 'model' line", no);
                rc = -1;
            } else if ((size_t)len != 7 + 2 * dlen || parse_hex(line + 7, dlen, mf->model) != 0) {
                errf(path, "line %ld: malformed 'model' line: expected 'model  ' and %zu hex digits (%s)", no,
                     2 * dlen, ALG_NAMES[mf->alg]);
                rc = -1;
            }
            mf->has_model = 1;
            continue;
        }
        int esc = line[0] == '\\';
        char *p = line + esc;
        size_t pl = (size_t)len - (size_t)esc;
        man_entry e = {0};
        e.line = no;
        if (pl < 2 * dlen + 3 || parse_hex(p, dlen, e.d) != 0 || p[2 * dlen] != ' ' || p[2 * dlen + 1] != ' ') {
            errf(path,
                 "line %ld: malformed line: expected '%zu hex digits (%s), two spaces, tensor name', or "
                 "'model  HEX'",
                 no, 2 * dlen, ALG_NAMES[mf->alg]);
            rc = -1;
            break;
        }
        e.len = pl - 2 * dlen - 2;
        e.name = malloc(e.len + 1);
        if (!e.name) {
            oom();
            rc = -1;
            break;
        }
        memcpy(e.name, p + 2 * dlen + 2, e.len);
        e.name[e.len] = '\0';
        if (esc && unescape_name(e.name, &e.len) != 0) {
            free(e.name);
            errf(path, "line %ld: bad escape in the tensor name (known: \\\\ \\n \\r \\xHH)", no);
            rc = -1;
            break;
        }
        if (mf->n == mf->cap) {
            size_t nc = mf->cap ? mf->cap * 2 : 64;
            man_entry *ne = realloc(mf->e, nc * sizeof *ne);
            if (!ne) {
                free(e.name);
                oom();
                rc = -1;
                break;
            }
            mf->e = ne;
            mf->cap = nc;
        }
        mf->e[mf->n++] = e;
    }
    if (!rc && ferror(fp)) {
        errf(path, "read error: %s", strerror(errno));
        rc = -1;
    }
    if (!rc && no == 0) {
        errf(path, "empty file: not a mio-inspect manifest");
        rc = -1;
    }
    if (!rc && !mf->has_model) {
        errf(path, "no 'model  HEX' line: the manifest is incomplete");
        rc = -1;
    }
    free(line);
    fclose(fp);
    if (!rc && mf->n > 1) {
        /* duplicates: check on a sorted copy, keep the file order for reporting */
        man_entry *c = malloc(mf->n * sizeof *c);
        if (!c) {
            oom();
            rc = -1;
        } else {
            memcpy(c, mf->e, mf->n * sizeof *c);
            qsort(c, mf->n, sizeof *c, cmp_entry);
            for (size_t i = 1; i < mf->n && !rc; i++)
                if (cmp_entry(&c[i - 1], &c[i]) == 0) {
                    fprintf(stderr, PROG ": ");
                    cli_esc_str(stderr, path);
                    fprintf(stderr, ": line %ld: tensor '", c[i - 1].line > c[i].line ? c[i - 1].line : c[i].line);
                    cli_esc(stderr, c[i].name, c[i].len);
                    fprintf(stderr, "' is listed twice\n");
                    rc = -1;
                }
            free(c);
        }
    }
    if (rc)
        manifest_free(mf);
    return rc;
}

static int op_check(const char *mpath, const char *path)
{
    manifest mf;
    if (manifest_read(mpath, &mf))
        return CLI_EXIT_FAIL;
    op_model m;
    if (model_open(path, &m)) {
        manifest_free(&mf);
        return CLI_EXIT_FAIL;
    }
    int rc = CLI_EXIT_FAIL;
    size_t dlen = alg_len(mf.alg);
    unsigned char *dig = malloc((m.n ? (size_t)m.n : 1) * DIGEST_MAX);
    int64_t *idx = sorted_idx(&m);
    char **lines = calloc(m.n ? (size_t)m.n : 1, sizeof *lines);
    unsigned char *seen = calloc(m.n ? (size_t)m.n : 1, 1);
    unsigned char md[DIGEST_MAX];
    if (!dig || !idx || !lines || !seen) {
        oom();
        goto out;
    }
    if (hash_tensors(&m, mf.alg, dig) || manifest_lines(&m, mf.alg, dig, idx, lines, md))
        goto out;
    uint64_t differ = 0, missing = 0, extra = 0, shown = 0;
    for (size_t i = 0; i < mf.n; i++) {
        const man_entry *e = &mf.e[i];
        int64_t ti = find_sorted(&m, idx, e->name, e->len);
        if (ti >= 0)
            seen[ti] = 1;
        if (ti >= 0 && memcmp(dig + (size_t)ti * DIGEST_MAX, e->d, dlen) == 0)
            continue;
        if (ti >= 0)
            differ++;
        else
            missing++;
        if (shown++ >= SHOW_MAX)
            continue;
        fprintf(stderr, PROG ": ");
        cli_esc_str(stderr, path);
        fprintf(stderr, ": tensor '");
        cli_esc(stderr, e->name, e->len);
        if (ti >= 0) {
            char a[2 * DIGEST_MAX + 1], b[2 * DIGEST_MAX + 1];
            hex(a, e->d, dlen);
            hex(b, dig + (size_t)ti * DIGEST_MAX, dlen);
            fprintf(stderr, "': %s differs (manifest line %ld: %s, file: %s)\n", ALG_NAMES[mf.alg], e->line, a, b);
        } else {
            fprintf(stderr, "' (manifest line %ld) is missing from the file\n", e->line);
        }
    }
    for (int64_t k = 0; k < m.n; k++) {
        const op_tensor *t = &m.t[idx[k]];
        if (seen[idx[k]])
            continue;
        extra++;
        if (shown++ >= SHOW_MAX)
            continue;
        fprintf(stderr, PROG ": ");
        cli_esc_str(stderr, path);
        fprintf(stderr, ": tensor ");
        put_name(stderr, t);
        fprintf(stderr, " is not in the manifest\n");
    }
    if (shown > SHOW_MAX)
        fprintf(stderr, PROG ": ... and %" PRIu64 " more\n", shown - SHOW_MAX);
    if (differ || missing || extra) {
        errf(path, "does not match the manifest: %" PRIu64 " of %zu %s differ, %" PRIu64 " missing, %" PRIu64 " extra%s",
             differ, mf.n, cli_plural(mf.n, "tensor", "tensors"), missing, extra,
             differ + missing == mf.n && mf.n > 0 ? " (is the manifest for another model?)" : "");
        goto out;
    }
    if (memcmp(md, mf.model, dlen) != 0) {
        errf(path,
             "every tensor matches but the manifest's 'model' line does not (the manifest was edited)");
        goto out;
    }
    fputs(PROG ": ", stdout);
    cli_esc_str(stdout, path);
    printf(": OK: %" PRId64 " %s and the whole-model %s match\n", m.n, cli_plural((uint64_t)m.n, "tensor", "tensors"),
           ALG_NAMES[mf.alg]);
    rc = CLI_EXIT_OK;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        rc = CLI_EXIT_FAIL;
    }
out:
    if (lines)
        for (int64_t k = 0; k < m.n; k++)
            free(lines[k]);
    free(lines);
    free(seen);
    free(idx);
    free(dig);
    model_close(&m);
    manifest_free(&mf);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* --verify                                                                   */
/* ------------------------------------------------------------------------- */

static int op_verify(const char *path)
{
    op_model m;
    if (model_open(path, &m))
        return CLI_EXIT_FAIL;
    uint64_t total = 0;
    int rc = read_all_tensors(&m, -1, NULL, &total);
    if (!rc) {
        char hs[32];
        fputs(PROG ": ", stdout);
        cli_esc_str(stdout, path);
        printf(": OK: %" PRId64 " %s, %" PRIu64 " bytes (%s) of tensor data read from %u %s\n", m.n,
               cli_plural((uint64_t)m.n, "tensor", "tensors"), total, cli_human_size(hs, sizeof hs, total), m.n_files,
               cli_plural(m.n_files, "file", "files"));
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, PROG ": error writing output\n");
            rc = -1;
        }
    }
    model_close(&m);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------- */
/* Values: a tensor's elements as doubles, a chunk at a time                  */
/* ------------------------------------------------------------------------- */

static float f8_e4m3(unsigned b)
{
    /* OCP FP8 E4M3 (FN): bias 7, no infinities, S.1111.111 is NaN */
    float s = (b & 0x80) ? -1.0f : 1.0f;
    unsigned e = (b >> 3) & 15, f = b & 7;
    if ((b & 0x7f) == 0x7f)
        return NAN;
    if (e == 0)
        return s * ldexpf((float)f, -9);
    return s * ldexpf((float)(8 + f), (int)e - 10);
}

static float f8_e8m0(unsigned b)
{
    /* OCP MX E8M0: 2^(b-127), 0xff is NaN */
    return b == 0xff ? NAN : ldexpf(1.0f, (int)b - 127);
}

/* 1 if the elements of type can be read as numbers. */
static int type_decodable(int type)
{
    switch (type) {
    case MIO_TYPE_F32: case MIO_TYPE_F64: case MIO_TYPE_I8: case MIO_TYPE_I16: case MIO_TYPE_I32:
    case MIO_TYPE_I64: case MIO_TYPE_U8: case MIO_TYPE_U16: case MIO_TYPE_U32: case MIO_TYPE_U64:
    case MIO_TYPE_BOOL: case MIO_TYPE_F8_E5M2: case MIO_TYPE_F8_E4M3: case MIO_TYPE_F8_E8M0:
        return 1;
    default:
        return mio_type_can_decode(type);
    }
}

typedef struct reader {
    const op_model *m;
    const op_tensor *t;
    uint64_t elem;       /* next element */
    unsigned char *raw;  /* ELEM_CHUNK elements of wire bytes */
    float *f;
    double *d;           /* the decoded chunk */
} reader;

static int reader_init(reader *r, const op_model *m, const op_tensor *t)
{
    memset(r, 0, sizeof *r);
    r->m = m;
    r->t = t;
    size_t bs = (size_t)mio_type_block_size(t->type), bb = mio_type_block_bytes(t->type);
    r->raw = malloc(ELEM_CHUNK / bs * bb);
    r->f = malloc(ELEM_CHUNK * sizeof *r->f);
    r->d = malloc(ELEM_CHUNK * sizeof *r->d);
    if (!r->raw || !r->f || !r->d) {
        oom();
        return -1;
    }
    return 0;
}

static void reader_free(reader *r)
{
    free(r->raw);
    free(r->f);
    free(r->d);
}

static uint64_t rd_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Decode the next chunk into r->d; *n receives the element count (0 at the end). */
static int reader_next(reader *r, size_t *n)
{
    const op_tensor *t = r->t;
    uint64_t left = t->n_elems - r->elem;
    size_t k = left < ELEM_CHUNK ? (size_t)left : ELEM_CHUNK;
    *n = k;
    if (!k)
        return 0;
    uint64_t bs = (uint64_t)mio_type_block_size(t->type), bb = mio_type_block_bytes(t->type);
    uint64_t boff = r->elem / bs * bb;
    size_t blen = (size_t)(k / bs * bb);
    if (read_tensor(r->m, t, boff, r->raw, blen))
        return -1;
    const unsigned char *p = r->raw;
    double *d = r->d;
    switch (t->type) {
    case MIO_TYPE_F32:
        for (size_t i = 0; i < k; i++) {
            float v;
            memcpy(&v, p + 4 * i, 4);
            d[i] = v;
        }
        break;
    case MIO_TYPE_F64:
        for (size_t i = 0; i < k; i++)
            memcpy(&d[i], p + 8 * i, 8);
        break;
    case MIO_TYPE_I8:
        for (size_t i = 0; i < k; i++)
            d[i] = (int8_t)p[i];
        break;
    case MIO_TYPE_I16:
        for (size_t i = 0; i < k; i++)
            d[i] = (int16_t)(uint16_t)rd_le(p + 2 * i, 2);
        break;
    case MIO_TYPE_I32:
        for (size_t i = 0; i < k; i++)
            d[i] = (int32_t)(uint32_t)rd_le(p + 4 * i, 4);
        break;
    case MIO_TYPE_I64:
        for (size_t i = 0; i < k; i++)
            d[i] = (double)(int64_t)rd_le(p + 8 * i, 8);
        break;
    case MIO_TYPE_U8:
    case MIO_TYPE_BOOL:
        for (size_t i = 0; i < k; i++)
            d[i] = p[i];
        break;
    case MIO_TYPE_U16:
        for (size_t i = 0; i < k; i++)
            d[i] = (double)rd_le(p + 2 * i, 2);
        break;
    case MIO_TYPE_U32:
        for (size_t i = 0; i < k; i++)
            d[i] = (double)rd_le(p + 4 * i, 4);
        break;
    case MIO_TYPE_U64:
        for (size_t i = 0; i < k; i++)
            d[i] = (double)rd_le(p + 8 * i, 8);
        break;
    case MIO_TYPE_F8_E5M2:
        for (size_t i = 0; i < k; i++)
            d[i] = mio_fp16_to_f32((uint16_t)(p[i] << 8));
        break;
    case MIO_TYPE_F8_E4M3:
        for (size_t i = 0; i < k; i++)
            d[i] = f8_e4m3(p[i]);
        break;
    case MIO_TYPE_F8_E8M0:
        for (size_t i = 0; i < k; i++)
            d[i] = f8_e8m0(p[i]);
        break;
    default:
        if (mio_decode_f32_mt(t->type, p, blen, r->f, k, 0) != MIO_OK) {
            tensor_err(r->m, t, "cannot decode: %s", mio_last_error());
            return -1;
        }
        for (size_t i = 0; i < k; i++)
            d[i] = r->f[i];
        break;
    }
    r->elem += k;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* --stats                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct tstats {
    int decoded;
    uint64_t n, finite, nan, inf, zeros;
    double min, max, mean, m2;
} tstats;

static int tensor_stats(const op_model *m, const op_tensor *t, tstats *s)
{
    memset(s, 0, sizeof *s);
    s->n = t->n_elems;
    if (!type_decodable(t->type))
        return 0;
    s->decoded = 1;
    s->min = INFINITY;
    s->max = -INFINITY;
    reader r;
    if (reader_init(&r, m, t)) {
        reader_free(&r);
        return -1;
    }
    int rc = 0;
    size_t k;
    while ((rc = reader_next(&r, &k)) == 0 && k) {
        /* the chunk's own count, mean and sum of squared deviations (two
         * passes over values in memory), merged into the running ones with
         * Chan et al.'s pairwise update */
        uint64_t c = 0;
        double sum = 0;
        for (size_t i = 0; i < k; i++) {
            double v = r.d[i];
            if (isnan(v)) {
                s->nan++;
                continue;
            }
            if (isinf(v)) {
                s->inf++;
                continue;
            }
            if (v == 0)
                s->zeros++;
            if (v < s->min)
                s->min = v;
            if (v > s->max)
                s->max = v;
            sum += v;
            c++;
        }
        if (!c)
            continue;
        double mc = sum / (double)c, m2c = 0;
        for (size_t i = 0; i < k; i++) {
            double v = r.d[i];
            if (isfinite(v))
                m2c += (v - mc) * (v - mc);
        }
        uint64_t nn = s->finite + c;
        double delta = mc - s->mean;
        s->mean += delta * (double)c / (double)nn;
        s->m2 += m2c + delta * delta * (double)s->finite * (double)c / (double)nn;
        s->finite = nn;
    }
    reader_free(&r);
    return rc;
}

static void put_num(FILE *o, double v, int json)
{
    char b[48];
    if (json)
        fputs(cli_fmt_f64(b, sizeof b, v), o);
    else
        fprintf(o, "%12.6g", v);
}

static int op_stats(const char *path, int json)
{
    op_model m;
    if (model_open(path, &m))
        return CLI_EXIT_FAIL;
    tstats *s = calloc(m.n ? (size_t)m.n : 1, sizeof *s);
    if (!s) {
        oom();
        model_close(&m);
        return CLI_EXIT_FAIL;
    }
    int rc = 0;
    for (int64_t i = 0; i < m.n && !rc; i++)
        rc = tensor_stats(&m, &m.t[i], &s[i]);
    if (rc) {
        free(s);
        model_close(&m);
        return CLI_EXIT_FAIL;
    }
    FILE *o = stdout;
    char tb[32];
    if (json) {
        fputs("{\n  \"file\": ", o);
        char *q = cli_json_quote(path, strlen(path));
        fputs(q ? q : "\"\"", o);
        free(q);
        fputs(",\n  \"tensors\": [", o);
    } else {
        fprintf(o, "%-8s %12s %12s %12s %12s %8s %8s %8s  %s\n", "type", "min", "max", "mean", "std", "nan", "inf",
                "zerofrac", "name [shape]");
    }
    for (int64_t i = 0; i < m.n; i++) {
        const op_tensor *t = &m.t[i];
        const tstats *x = &s[i];
        double mean = x->finite ? x->mean : NAN, sd = x->finite ? sqrt(x->m2 / (double)x->finite) : NAN;
        double mn = x->finite ? x->min : NAN, mx = x->finite ? x->max : NAN;
        double zf = x->n ? (double)x->zeros / (double)x->n : 0;
        if (json) {
            char *q = cli_json_quote(t->name, t->name_len);
            fprintf(o, "%s\n    {\"name\": %s, \"type\": \"%s\", \"shape\": ", i ? "," : "", q ? q : "\"\"",
                    type_text(t->type, tb, sizeof tb));
            free(q);
            put_shape(o, t);
            fprintf(o, ", \"elements\": %" PRIu64 ", \"decoded\": %s", x->n, x->decoded ? "true" : "false");
            if (x->decoded) {
                fputs(", \"min\": ", o);
                put_num(o, mn, 1);
                fputs(", \"max\": ", o);
                put_num(o, mx, 1);
                fputs(", \"mean\": ", o);
                put_num(o, mean, 1);
                fputs(", \"std\": ", o);
                put_num(o, sd, 1);
                fprintf(o, ", \"nan\": %" PRIu64 ", \"inf\": %" PRIu64 ", \"zeros\": %" PRIu64 ", \"zero_fraction\": ",
                        x->nan, x->inf, x->zeros);
                put_num(o, zf, 1);
            }
            fputc('}', o);
        } else {
            fprintf(o, "%-8s ", type_text(t->type, tb, sizeof tb));
            if (x->decoded) {
                put_num(o, mn, 0);
                fputc(' ', o);
                put_num(o, mx, 0);
                fputc(' ', o);
                put_num(o, mean, 0);
                fputc(' ', o);
                put_num(o, sd, 0);
                fprintf(o, " %8" PRIu64 " %8" PRIu64 " %8.4f  ", x->nan, x->inf, zf);
            } else {
                fprintf(o, "%12s %12s %12s %12s %8s %8s %8s  ", "-", "-", "-", "-", "-", "-", "-");
            }
            cli_esc(o, t->name, t->name_len);
            fputc(' ', o);
            put_shape(o, t);
            if (!x->decoded)
                fputs(" (not decoded: no float view of this type)", o);
            fputc('\n', o);
        }
    }
    if (json)
        fputs(m.n ? "\n  ]\n}\n" : "]\n}\n", o);
    free(s);
    model_close(&m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------- */
/* --diff                                                                     */
/* ------------------------------------------------------------------------- */

/* A short text for a GGUF value: the scalar, a quoted string (60 bytes at
 * most), or "array of N TYPE". */
static void put_gguf_value(FILE *o, const mio_gguf_file *f, int64_t i)
{
    mio_gguf_value v;
    if (mio_gguf_kv_value(f, i, &v) != MIO_OK) {
        fputs("?", o);
        return;
    }
    const char *tn = mio_gguf_type_name(v.type);
    fprintf(o, "%s ", tn ? tn : "?");
    if (v.type == MIO_GGUF_STRING) {
        fputc('"', o);
        size_t used = cli_print_escaped(o, v.data, v.size, 60, 1);
        fputc('"', o);
        if (used < v.size)
            fprintf(o, "... (%zu bytes)", v.size);
    } else if (v.type == MIO_GGUF_ARRAY) {
        const char *en = mio_gguf_type_name(v.elem_type);
        fprintf(o, "[%" PRIu64 " %s]", v.count, en ? en : "?");
    } else if (v.type == MIO_GGUF_F32 || v.type == MIO_GGUF_F64) {
        double d = 0;
        char b[48];
        mio_gguf_value_f64(&v, &d);
        fputs(v.type == MIO_GGUF_F32 ? cli_fmt_f32(b, sizeof b, (float)d) : cli_fmt_f64(b, sizeof b, d), o);
    } else if (v.type == MIO_GGUF_U64 || v.type == MIO_GGUF_U32 || v.type == MIO_GGUF_U16 || v.type == MIO_GGUF_U8) {
        uint64_t u = 0;
        mio_gguf_value_u64(&v, &u);
        fprintf(o, "%" PRIu64, u);
    } else {
        int64_t s = 0;
        mio_gguf_value_i64(&v, &s);
        if (v.type == MIO_GGUF_BOOL)
            fputs(s ? "true" : "false", o);
        else
            fprintf(o, "%" PRId64, s);
    }
}

static void put_st_value(FILE *o, mio_str v)
{
    fputc('"', o);
    size_t used = cli_print_escaped(o, v.ptr, v.len, 60, 1);
    fputc('"', o);
    if (used < v.len)
        fprintf(o, "... (%zu bytes)", v.len);
}

typedef struct keyref {
    const char *p;
    size_t n;
    int64_t i;
} keyref;

static int cmp_keyref(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    return name_cmp(x->p, x->n, y->p, y->n);
}

static keyref *model_keys(const op_model *m, int64_t *count)
{
    int64_t n = m->gguf ? mio_gguf_kv_count(m->g) : mio_st_meta_count(m->s);
    keyref *k = malloc((n > 0 ? (size_t)n : 1) * sizeof *k);
    if (!k)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        mio_str s = {NULL, 0};
        if (m->gguf)
            s = mio_gguf_kv_key(m->g, i);
        else
            mio_st_meta_at(m->s, i, &s, NULL);
        k[i] = (keyref){s.ptr, s.len, i};
    }
    qsort(k, (size_t)n, sizeof *k, cmp_keyref);
    *count = n;
    return k;
}

static int same_value(const op_model *a, int64_t ia, const op_model *b, int64_t ib)
{
    mio_str va, vb;
    if (a->gguf) {
        if (mio_gguf_kv_type(a->g, ia) != mio_gguf_kv_type(b->g, ib) || mio_gguf_kv_raw(a->g, ia, &va) != MIO_OK ||
            mio_gguf_kv_raw(b->g, ib, &vb) != MIO_OK)
            return 0;
    } else if (mio_st_meta_at(a->s, ia, NULL, &va) != MIO_OK || mio_st_meta_at(b->s, ib, NULL, &vb) != MIO_OK) {
        return 0;
    }
    return va.len == vb.len && memcmp(va.ptr, vb.ptr, va.len) == 0;
}

static void put_value(FILE *o, const op_model *m, int64_t i)
{
    if (m->gguf) {
        put_gguf_value(o, m->g, i);
    } else {
        mio_str v = {NULL, 0};
        mio_st_meta_at(m->s, i, NULL, &v);
        put_st_value(o, v);
    }
}

/* Metadata differences (printed); -1 on allocation failure. */
static int64_t diff_meta(const op_model *a, const op_model *b)
{
    if (a->gguf != b->gguf) {
        printf("metadata: not compared: %s is %s and %s is %s (GGUF key-value metadata and the safetensors "
               "__metadata__ strings are different things); tensors are compared\n",
               "A", a->gguf ? "GGUF" : "safetensors", "B", b->gguf ? "GGUF" : "safetensors");
        return 0;
    }
    int64_t na, nb, d = 0;
    keyref *ka = model_keys(a, &na), *kb = model_keys(b, &nb);
    if (!ka || !kb) {
        free(ka);
        free(kb);
        oom();
        return -1;
    }
    const char *what = a->gguf ? "key" : "__metadata__ key";
    int64_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : name_cmp(ka[i].p, ka[i].n, kb[j].p, kb[j].n);
        if (c < 0) {
            printf("- %s '", what);
            cli_esc(stdout, ka[i].p, ka[i].n);
            printf("' only in A: ");
            put_value(stdout, a, ka[i].i);
            putchar('\n');
            d++;
            i++;
        } else if (c > 0) {
            printf("+ %s '", what);
            cli_esc(stdout, kb[j].p, kb[j].n);
            printf("' only in B: ");
            put_value(stdout, b, kb[j].i);
            putchar('\n');
            d++;
            j++;
        } else {
            if (!same_value(a, ka[i].i, b, kb[j].i)) {
                printf("~ %s '", what);
                cli_esc(stdout, ka[i].p, ka[i].n);
                printf("': ");
                put_value(stdout, a, ka[i].i);
                printf(" -> ");
                put_value(stdout, b, kb[j].i);
                putchar('\n');
                d++;
            }
            i++;
            j++;
        }
    }
    free(ka);
    free(kb);
    return d;
}

static int same_shape(const op_tensor *x, const op_tensor *y)
{
    if (x->n_dims != y->n_dims)
        return 0;
    for (uint32_t d = 0; d < x->n_dims; d++)
        if (x->shape[d] != y->shape[d])
            return 0;
    return 1;
}

/* Compare the bytes of two tensors of one type and size: 1 equal, 0 differ
 * (*first: offset of the first differing byte), -1 error. */
static int same_bytes(const op_model *a, const op_tensor *ta, const op_model *b, const op_tensor *tb, unsigned char *ba,
                      unsigned char *bb, uint64_t *first)
{
    for (uint64_t pos = 0; pos < ta->nbytes; pos += READ_CHUNK) {
        size_t len = ta->nbytes - pos < READ_CHUNK ? (size_t)(ta->nbytes - pos) : READ_CHUNK;
        if (read_tensor(a, ta, pos, ba, len) || read_tensor(b, tb, pos, bb, len))
            return -1;
        if (memcmp(ba, bb, len) != 0) {
            size_t k = 0;
            while (ba[k] == bb[k])
                k++;
            *first = pos + k;
            return 0;
        }
    }
    return 1;
}

/* Decode both to numbers and compare element by element. */
static int diff_values(const op_model *a, const op_tensor *ta, const op_model *b, const op_tensor *tb)
{
    reader ra, rb;
    int ia = reader_init(&ra, a, ta), ib = ia ? -1 : reader_init(&rb, b, tb);
    if (ia || ib) {
        reader_free(&ra);
        if (!ia)
            reader_free(&rb);
        return -1;
    }
    uint64_t differ = 0, nonfinite = 0, at = 0, idx = 0;
    double maxd = -1, va = 0, vb = 0;
    int rc = 0;
    for (;;) {
        size_t ka, kb;
        if ((rc = reader_next(&ra, &ka)) != 0 || (rc = reader_next(&rb, &kb)) != 0 || !ka)
            break;
        /* kb == ka: both tensors have n_elems elements (the callers check), read in equal chunks */
        for (size_t i = 0; i < ka; i++, idx++) {
            double x = ra.d[i], y = rb.d[i]; /* NOLINT(clang-analyzer-core.uninitialized.Assign) */
            if (x == y || (isnan(x) && isnan(y)))
                continue;
            differ++;
            if (!isfinite(x) || !isfinite(y)) {
                nonfinite++;
                continue;
            }
            double dd = fabs(x - y);
            if (dd > maxd) {
                maxd = dd;
                at = idx;
                va = x;
                vb = y;
            }
        }
    }
    reader_free(&ra);
    reader_free(&rb);
    if (rc)
        return -1;
    if (!differ) {
        printf(", values equal\n");
        return 0;
    }
    printf(", %" PRIu64 " of %" PRIu64 " elements differ", differ, ta->n_elems);
    if (maxd >= 0) {
        char x[48], y[48], d[48];
        printf(", max abs diff %s (element %" PRIu64 ": %s -> %s)", cli_fmt_f64(d, sizeof d, maxd), at,
               cli_fmt_f64(x, sizeof x, va), cli_fmt_f64(y, sizeof y, vb));
    }
    if (nonfinite)
        printf(", %" PRIu64 " of them NaN/inf on one side", nonfinite);
    putchar('\n');
    return 0;
}

static int op_diff(const char *pa, const char *pb)
{
    op_model a, b;
    if (model_open(pa, &a))
        return CLI_EXIT_USAGE;
    if (model_open(pb, &b)) {
        model_close(&a);
        return CLI_EXIT_USAGE;
    }
    int rc = CLI_EXIT_USAGE;
    int64_t *ia = sorted_idx(&a), *ib = sorted_idx(&b);
    unsigned char *ba = malloc(READ_CHUNK), *bb = malloc(READ_CHUNK);
    char t1[32], t2[32];
    if (!ia || !ib || !ba || !bb) {
        oom();
        goto out;
    }
    fputs("A: ", stdout);
    cli_esc_str(stdout, pa);
    printf(" (%s, %" PRId64 " %s)\nB: ", a.gguf ? "GGUF" : "safetensors", a.n, cli_plural((uint64_t)a.n, "tensor", "tensors"));
    cli_esc_str(stdout, pb);
    printf(" (%s, %" PRId64 " %s)\n", b.gguf ? "GGUF" : "safetensors", b.n, cli_plural((uint64_t)b.n, "tensor", "tensors"));
    int64_t dm = diff_meta(&a, &b);
    if (dm < 0)
        goto out;
    uint64_t dt = 0;
    int64_t i = 0, j = 0;
    const int64_t na = a.n, nb = b.n;
    while (i < na || j < nb) {
        const op_tensor *x = i < na ? &a.t[ia[i]] : NULL, *y = j < nb ? &b.t[ib[j]] : NULL;
        int c = i >= na ? 1 : j >= nb ? -1 : name_cmp(x->name, x->name_len, y->name, y->name_len);
        if (c < 0) {
            printf("- tensor ");
            put_name(stdout, x);
            printf(" only in A: %s ", type_text(x->type, t1, sizeof t1));
            put_shape(stdout, x);
            putchar('\n');
            dt++;
            i++;
            continue;
        }
        if (c > 0) {
            printf("+ tensor ");
            put_name(stdout, y);
            printf(" only in B: %s ", type_text(y->type, t2, sizeof t2));
            put_shape(stdout, y);
            putchar('\n');
            dt++;
            j++;
            continue;
        }
        i++;
        j++;
        int st = same_shape(x, y), ty = x->type == y->type;
        if (st && ty) {
            uint64_t first = 0;
            int s = same_bytes(&a, x, &b, y, ba, bb, &first);
            if (s < 0)
                goto out;
            if (s == 1)
                continue;
            dt++;
            printf("~ tensor ");
            put_name(stdout, x);
            printf(": data differ from byte %" PRIu64 " of %" PRIu64, first, x->nbytes);
            if (!type_decodable(x->type)) {
                printf(" (%s: not decoded)\n", type_text(x->type, t1, sizeof t1));
                continue;
            }
            if (diff_values(&a, x, &b, y))
                goto out;
            continue;
        }
        dt++;
        printf("~ tensor ");
        put_name(stdout, x);
        printf(":");
        if (!ty)
            printf(" type %s -> %s", type_text(x->type, t1, sizeof t1), type_text(y->type, t2, sizeof t2));
        if (!st) {
            printf("%s shape ", ty ? "" : ",");
            put_shape(stdout, x);
            printf(" -> ");
            put_shape(stdout, y);
        }
        if (x->n_elems == y->n_elems && type_decodable(x->type) && type_decodable(y->type)) {
            if (diff_values(&a, x, &b, y))
                goto out;
        } else {
            putchar('\n');
        }
    }
    if (dm == 0 && dt == 0) {
        printf("identical: %" PRId64 " %s with the same type, shape and bytes%s\n", a.n,
               cli_plural((uint64_t)a.n, "tensor", "tensors"),
               a.gguf == b.gguf ? (a.gguf ? ", the same metadata" : ", the same __metadata__") : "");
        rc = CLI_EXIT_OK;
    } else {
        printf("different: %" PRId64 " metadata %s, %" PRIu64 " %s\n", dm, cli_plural((uint64_t)dm, "key", "keys"), dt,
               cli_plural(dt, "tensor", "tensors"));
        rc = CLI_EXIT_FAIL;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": error writing output\n");
        rc = CLI_EXIT_USAGE;
    }
out:
    free(ia);
    free(ib);
    free(ba);
    free(bb);
    model_close(&a);
    model_close(&b);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Command line                                                               */
/* ------------------------------------------------------------------------- */

static void ops_usage(FILE *o)
{
    fprintf(o, "usage: " PROG " --hash xxh64|xxh3|sha256 FILE > MANIFEST\n"
               "       " PROG " --check MANIFEST FILE\n"
               "       " PROG " --stats [--json] FILE\n"
               "       " PROG " --diff A B\n"
               "       " PROG " --verify FILE\n"
               "  FILE: GGUF (a split model as its first part), safetensors, or *.index.json\n"
               "exit status: --diff 0 identical, 1 different, 2 error; others 0 ok, 1 failure or mismatch,\n"
               "2 usage error\n");
}

static int is_op(const char *a)
{
    static const char *const ops[] = {"--hash", "--check", "--stats", "--diff", "--verify"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k]);
        if (strncmp(a, ops[k], n) == 0 && (a[n] == '\0' || (a[n] == '=' && k < 2)))
            return 1;
    }
    return 0;
}

int inspect_ops_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (is_op(argv[i]))
            return 1;
    }
    return 0;
}

static void on_sigbus(int sig)
{
    static const char msg[] = PROG ": bus error: a file was truncated or changed while its mapping was read; "
                              "run again\n";
    (void)sig;
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(CLI_EXIT_FAIL);
}

enum { OP_NONE, OP_HASH, OP_CHECK, OP_STATS, OP_DIFF, OP_VERIFY };

int inspect_ops_main(int argc, char **argv)
{
    int op = OP_NONE, json = 0, npos = 0;
    const char *value = NULL, *pos[3] = {NULL, NULL, NULL};
    static const char *const names[] = {"", "--hash", "--check", "--stats", "--diff", "--verify"};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int this_op = OP_NONE, r;
        if ((r = cli_opt_value(argc, argv, &i, "--hash", &v)) != 0) {
            this_op = OP_HASH;
        } else if ((r = cli_opt_value(argc, argv, &i, "--check", &v)) != 0) {
            this_op = OP_CHECK;
        } else if (cli_is(a, "--stats")) {
            this_op = OP_STATS;
        } else if (cli_is(a, "--diff")) {
            this_op = OP_DIFF;
        } else if (cli_is(a, "--verify")) {
            this_op = OP_VERIFY;
        } else if (cli_is(a, "--json")) {
            json = 1;
            continue;
        } else if (cli_is(a, "-h") || cli_is(a, "--help")) {
            ops_usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(a, "--")) {
            for (i++; i < argc; i++) {
                if (npos == 3) {
                    fprintf(stderr, PROG ": too many files\n");
                    ops_usage(stderr);
                    return CLI_EXIT_USAGE;
                }
                pos[npos++] = argv[i];
            }
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, PROG ": option '");
            cli_esc_str(stderr, a);
            fprintf(stderr, "' cannot be combined with --hash, --check, --stats, --diff or --verify\n");
            ops_usage(stderr);
            return CLI_EXIT_USAGE;
        } else {
            if (npos == 3) {
                fprintf(stderr, PROG ": too many files\n");
                ops_usage(stderr);
                return CLI_EXIT_USAGE;
            }
            pos[npos++] = a;
            continue;
        }
        if (r < 0) {
            fprintf(stderr, PROG ": %s needs a value\n", names[this_op]);
            ops_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        if (op != OP_NONE) {
            fprintf(stderr, PROG ": only one of --hash, --check, --stats, --diff, --verify may be given\n");
            ops_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        op = this_op;
        value = v;
    }
    int want = op == OP_DIFF ? 2 : 1;
    if (npos != want) {
        fprintf(stderr, PROG ": %s takes %s\n", names[op],
                op == OP_DIFF ? "two files, A and B" : op == OP_CHECK ? "MANIFEST and one FILE" : "one FILE");
        ops_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (json && op != OP_STATS) {
        fprintf(stderr, PROG ": --json goes with --stats only here\n");
        ops_usage(stderr);
        return CLI_EXIT_USAGE;
    }

    /* Tensor bytes are read with pread; only the headers are mapped. A header
     * cut short while it is read would raise SIGBUS: say what happened. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);

    switch (op) {
    case OP_HASH:
        return op_hash(value, pos[0]);
    case OP_CHECK:
        return op_check(value, pos[0]);
    case OP_STATS:
        return op_stats(pos[0], json);
    case OP_DIFF:
        return op_diff(pos[0], pos[1]);
    default:
        return op_verify(pos[0]);
    }
}
