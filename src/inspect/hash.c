/* SPDX-License-Identifier: MIT */
/* hash.c — per-tensor and whole-model hashes (xxh64, xxh3, sha256), the
 * manifest format of mio-inspect --hash (written and checked) and the
 * read-everything check of --verify. Tensors are read in file order by up to 8
 * threads, each with its own 4 MiB buffer; when reads fail, the failure of the
 * first such tensor in file order is the one reported. See docs/INSPECT.md. */
#include "inspect_internal.h"

#include "core/xxhash.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* caller-allocated outputs: a new field needs a _sized call (docs/ABI.md) */
ABI_FROZEN(mio_check_result, ok);

#define HASH_THREADS 8
/* Manifest lines longer than this are refused as malformed. */
#define MANIFEST_LINE_MAX ((size_t)1 << 20)
#define MANIFEST_HEADER "# mio-inspect manifest v1 "

static const char *const ALG_NAMES[] = {"xxh64", "xxh3", "sha256"};

MIO_API int mio_hash_alg_from_name(const char *s) {
    for (int a = 0; s && a < 3; a++)
        if (strcmp(s, ALG_NAMES[a]) == 0) return a;
    return -1;
}
MIO_API const char *mio_hash_alg_name(int alg) { return alg >= 0 && alg < 3 ? ALG_NAMES[alg] : NULL; }
MIO_API size_t mio_hash_digest_size(int alg) { return alg == MIO_HASH_SHA256 ? 32 : alg >= 0 && alg < 3 ? 8 : 0; }

/* one algorithm's streaming state (no allocation): hasher_reset starts a digest */
typedef struct hasher {
    int alg;
    union {
        mio_xxh64_state x64;
        mio_xxh3_state x3;
        mio_sha256_ctx sha;
    } u;
} hasher;

static void hasher_reset(hasher *h) {
    if (h->alg == MIO_HASH_XXH64)
        mio_xxh64_init(&h->u.x64, 0);
    else if (h->alg == MIO_HASH_XXH3)
        mio_xxh3_init(&h->u.x3);
    else
        mio_sha256_init(&h->u.sha);
}
static void hasher_update(hasher *h, const void *p, size_t n) {
    if (h->alg == MIO_HASH_XXH64)
        mio_xxh64_update(&h->u.x64, p, n);
    else if (h->alg == MIO_HASH_XXH3)
        mio_xxh3_update(&h->u.x3, p, n);
    else
        mio_sha256_update(&h->u.sha, p, n);
}
/* xxh values in their canonical (big-endian) form: the hex xxhsum prints */
static void hasher_final(hasher *h, unsigned char *out) {
    if (h->alg == MIO_HASH_SHA256) {
        mio_sha256_final(&h->u.sha, out);
        return;
    }
    uint64_t v = h->alg == MIO_HASH_XXH64 ? mio_xxh64_digest(&h->u.x64) : mio_xxh3_digest(&h->u.x3);
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)(v >> (56 - 8 * i));
}

static mio_status bad_alg(int alg) {
    return mio_err_set(MIO_ERR_INVALID_ARG, "unknown hash algorithm %d (known: xxh64, xxh3, sha256)", alg);
}

MIO_API mio_status mio_hash_bytes(int alg, const void *p, size_t n, unsigned char *digest) {
    if (alg < 0 || alg > 2) return bad_alg(alg);
    if (!p && n) return mio_err_set(MIO_ERR_INVALID_ARG, "p is NULL");
    if (!digest) return mio_err_set(MIO_ERR_INVALID_ARG, "digest is NULL");
    hasher h = {.alg = alg};
    hasher_reset(&h);
    if (n) hasher_update(&h, p, n);
    hasher_final(&h, digest);
    return MIO_OK;
}

static void hex(char *dst, const unsigned char *d, size_t n) {
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = hx[d[i] >> 4];
        dst[2 * i + 1] = hx[d[i] & 15];
    }
    dst[2 * n] = '\0';
}

/* ------------------------------------------------------------------------- */
/* Reading every tensor on up to 8 threads                                    */
/* ------------------------------------------------------------------------- */

typedef struct hash_job {
    const mio_model *m;
    int alg;
    unsigned char *dig;  /* n * digest size, or NULL (verify) */
    size_t dlen;
    uint64_t bytes;      /* total bytes read */
    pthread_mutex_t mu;
    int64_t next;        /* next tensor to hand out */
    int64_t failed;      /* lowest failing tensor, or INT64_MAX */
    mio_status fst;      /* its status and message */
    char msg[1024];
    int oom;
} hash_job;

static void *hash_worker(void *arg) {
    hash_job *j = arg;
    const mio_model *m = j->m;
    hasher h = {.alg = j->alg};
    int have_h = j->alg >= 0;
    unsigned char *buf = malloc(INSPECT_READ_CHUNK);
    if (!buf) {
        pthread_mutex_lock(&j->mu);
        j->oom = 1;
        j->failed = -1;
        pthread_mutex_unlock(&j->mu);
        free(buf);
        return NULL;
    }
    uint64_t done = 0;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int64_t i = j->next < m->n && j->failed == INT64_MAX ? j->next++ : -1;
        pthread_mutex_unlock(&j->mu);
        if (i < 0) break;
        const mio_model_tensor *t = &m->t[i];
        if (have_h) hasher_reset(&h);
        mio_status st = MIO_OK;
        int stop = 0;
        for (uint64_t pos = 0; pos < t->nbytes && st == MIO_OK && !stop; pos += INSPECT_READ_CHUNK) {
            size_t len = t->nbytes - pos < INSPECT_READ_CHUNK ? (size_t)(t->nbytes - pos) : INSPECT_READ_CHUNK;
            st = mio_model_read(m, i, pos, buf, len);
            if (st == MIO_OK) {
                done += len;
                if (have_h) hasher_update(&h, buf, len);
            }
            /* an earlier tensor failed: this one no longer matters */
            pthread_mutex_lock(&j->mu);
            stop = j->failed < i;
            pthread_mutex_unlock(&j->mu);
        }
        if (st != MIO_OK) {
            pthread_mutex_lock(&j->mu);
            if (i < j->failed) {
                j->failed = i;
                j->fst = st;
                snprintf(j->msg, sizeof j->msg, "%s", mio_last_error());
            }
            pthread_mutex_unlock(&j->mu);
            break;
        }
        if (stop) break;
        if (have_h) hasher_final(&h, j->dig + (size_t)i * j->dlen);
    }
    pthread_mutex_lock(&j->mu);
    j->bytes += done;
    pthread_mutex_unlock(&j->mu);
    free(buf);
    return NULL;
}

static mio_status read_all(const mio_model *m, int alg, int n_threads, unsigned char *dig, uint64_t *bytes) {
    hash_job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.alg = alg;
    j.dig = dig;
    j.dlen = alg >= 0 ? mio_hash_digest_size(alg) : 0;
    j.failed = INT64_MAX;
    if (pthread_mutex_init(&j.mu, NULL) != 0) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    long cores = n_threads > 0 ? n_threads : sysconf(_SC_NPROCESSORS_ONLN);
    int64_t nt = cores < 1 ? 1 : cores > HASH_THREADS ? HASH_THREADS : cores;
    if (nt > m->n) nt = m->n ? m->n : 1;
    pthread_t th[HASH_THREADS];
    int started[HASH_THREADS] = {0};
    for (int64_t k = 1; k < nt; k++) started[k] = pthread_create(&th[k], NULL, hash_worker, &j) == 0;
    hash_worker(&j);
    for (int64_t k = 1; k < nt; k++)
        if (started[k]) pthread_join(th[k], NULL);
    pthread_mutex_destroy(&j.mu);
    if (j.oom) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (j.failed != INT64_MAX) return mio_err_set(j.fst, "%s", j.msg);
    if (bytes) *bytes = j.bytes;
    return MIO_OK;
}

MIO_API mio_status mio_model_verify(const mio_model *m, int n_threads, uint64_t *bytes) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    return read_all(m, -1, n_threads, NULL, bytes);
}

MIO_API mio_status mio_model_hash(const mio_model *m, int alg, int n_threads, unsigned char *digests) {
    if (!m) return mio_err_set(MIO_ERR_INVALID_ARG, "model m is NULL");
    if (alg < 0 || alg > 2) return bad_alg(alg);
    if (!digests) return mio_err_set(MIO_ERR_INVALID_ARG, "digests is NULL");
    size_t dl = mio_hash_digest_size(alg);
    unsigned char *tmp = malloc((m->n ? (size_t)m->n : 1) * dl); /* outputs untouched on failure */
    if (!tmp) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = read_all(m, alg, n_threads, tmp, NULL);
    if (st == MIO_OK) memcpy(digests, tmp, (size_t)m->n * dl);
    free(tmp);
    return st;
}

/* ------------------------------------------------------------------------- */
/* The manifest                                                               */
/* ------------------------------------------------------------------------- */

/* A name for a manifest line: sha256sum's escapes (\\ \n \r) plus \xHH for
 * other control bytes (C0, DEL, C1) and for bytes that are not valid UTF-8.
 * *escaped says whether any escape was needed (the line then starts with a
 * backslash). */
static void put_escaped_name(FILE *o, const char *p, size_t n, int *escaped) {
    *escaped = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int valid;
        size_t k = mio_utf8_next((const unsigned char *)p + i, n - i, &cp, &valid);
        unsigned char c = (unsigned char)p[i];
        if (valid && cp >= 0xa0) {
            fwrite(p + i, 1, k, o);
            i += k;
            continue;
        }
        if (valid && cp >= 0x20 && cp < 0x7f && c != '\\') {
            fputc(c, o);
            i++;
            continue;
        }
        *escaped = 1;
        if (c == '\\' || c == '\n' || c == '\r') {
            fputc('\\', o);
            fputc(c == '\\' ? '\\' : c == '\n' ? 'n' : 'r', o);
            i++;
            continue;
        }
        /* a control character (one byte, or the two bytes of a C1 code point)
         * or an invalid byte: every byte as \xHH */
        for (size_t j = 0; j < k; j++) fprintf(o, "\\x%02x", (unsigned char)p[i + j]);
        i += k;
    }
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Undo the name escapes in place; -1 on an unknown escape. */
static int unescape_name(char *s, size_t *len) {
    size_t n = *len, j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            s[j++] = s[i];
            continue;
        }
        if (i + 1 >= n) return -1;
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

/* The manifest line of one tensor ("HEX  NAME\n", a backslash first when the
 * name is escaped), malloc'd. */
static char *manifest_line(const unsigned char *d, size_t dlen, mio_str name) {
    char *nb = NULL, *out = NULL;
    size_t nl = 0, ol = 0;
    FILE *o = open_memstream(&nb, &nl);
    if (!o) return NULL;
    int escaped;
    put_escaped_name(o, name.ptr, name.len, &escaped);
    int bad = ferror(o);
    if (fclose(o) != 0 || bad || !nb) {
        free(nb);
        return NULL;
    }
    char hx[2 * MIO_HASH_MAX_DIGEST + 1];
    hex(hx, d, dlen);
    ol = (size_t)escaped + 2 * dlen + 2 + nl + 2;
    out = malloc(ol);
    if (out) snprintf(out, ol, "%s%s  %s\n", escaped ? "\\" : "", hx, nb);
    free(nb);
    return out;
}

/* The sorted tensor lines (n entries) and the whole-model digest. */
static mio_status manifest_lines(const mio_model *m, int alg, const unsigned char *dig, const int64_t *idx,
                                 char **lines, unsigned char *model_digest) {
    hasher h = {.alg = alg};
    hasher_reset(&h);
    size_t dlen = mio_hash_digest_size(alg);
    for (int64_t k = 0; k < m->n; k++) {
        lines[k] = manifest_line(dig + (size_t)idx[k] * dlen, dlen, m->t[idx[k]].name);
        if (!lines[k]) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        hasher_update(&h, lines[k], strlen(lines[k]));
    }
    hasher_final(&h, model_digest);
    return MIO_OK;
}

/* Hash m and build its lines: dig (n * dlen), idx (sorted), lines, model digest. */
typedef struct hashed {
    unsigned char *dig;
    int64_t *idx;
    char **lines;
    int64_t n;
    unsigned char md[MIO_HASH_MAX_DIGEST];
} hashed;

static void hashed_free(hashed *h) {
    if (h->lines)
        for (int64_t k = 0; k < h->n; k++) free(h->lines[k]);
    free(h->lines);
    free(h->idx);
    free(h->dig);
}

static mio_status hash_model(const mio_model *m, int alg, int n_threads, hashed *h) {
    memset(h, 0, sizeof *h);
    h->n = m->n;
    size_t n = m->n ? (size_t)m->n : 1;
    h->dig = malloc(n * mio_hash_digest_size(alg));
    h->idx = mio_insp_sorted_idx(m);
    h->lines = calloc(n, sizeof *h->lines);
    if (!h->dig || !h->idx || !h->lines) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = read_all(m, alg, n_threads, h->dig, NULL);
    if (st == MIO_OK) st = manifest_lines(m, alg, h->dig, h->idx, h->lines, h->md);
    return st;
}

MIO_API mio_status mio_hash_manifest(const char *path, int alg, int n_threads, char **text, size_t *len) {
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    if (!text) return mio_err_set(MIO_ERR_INVALID_ARG, "text is NULL");
    if (alg < 0 || alg > 2) return bad_alg(alg);
    mio_model *m = NULL;
    mio_status st = mio_model_open(path, &m);
    if (st != MIO_OK) return st;
    hashed h;
    /* everything is computed before the text is made: a failure gives none */
    st = hash_model(m, alg, n_threads, &h);
    if (st == MIO_OK) {
        char *buf = NULL;
        size_t blen = 0;
        FILE *o = open_memstream(&buf, &blen);
        if (!o) {
            st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        } else {
            char mh[2 * MIO_HASH_MAX_DIGEST + 1];
            hex(mh, h.md, mio_hash_digest_size(alg));
            fprintf(o, MANIFEST_HEADER "%s\n", ALG_NAMES[alg]);
            for (int64_t k = 0; k < m->n; k++) fputs(h.lines[k], o);
            fprintf(o, "model  %s\n", mh);
            st = mio_insp_stream_done(o, &buf, &blen, text, len);
        }
    }
    hashed_free(&h);
    mio_model_close(m);
    return st;
}

/* ------------------------------------------------------------------------- */
/* Checking a manifest                                                        */
/* ------------------------------------------------------------------------- */

typedef struct man_entry {
    char *name;
    size_t len;
    unsigned char d[MIO_HASH_MAX_DIGEST];
    long line;
} man_entry;

typedef struct manifest {
    int alg;
    man_entry *e;
    size_t n, cap;
    int has_model;
    unsigned char model[MIO_HASH_MAX_DIGEST];
} manifest;

static void manifest_free(manifest *mf) {
    for (size_t i = 0; i < mf->n; i++) free(mf->e[i].name);
    free(mf->e);
}

static int parse_hex(const char *s, size_t n, unsigned char *out) {
    for (size_t i = 0; i < n; i++) {
        int a = hexval(s[2 * i]), b = hexval(s[2 * i + 1]);
        if (a < 0 || b < 0) return -1;
        out[i] = (unsigned char)(a * 16 + b);
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b) {
    const man_entry *x = a, *y = b;
    return mio_insp_name_cmp(x->name, x->len, y->name, y->len);
}

#define BAD(...) mio_err_set(MIO_ERR_INVALID_METADATA, __VA_ARGS__)

/* One line (without its newline) of the manifest; line 1 is the header. */
static mio_status manifest_line_in(manifest *mf, const char *path, char *line, size_t len, long no) {
    size_t dlen = mf->alg >= 0 ? mio_hash_digest_size(mf->alg) : 0;
    if (no == 1) {
        size_t hl = strlen(MANIFEST_HEADER);
        if (len < hl || memcmp(line, MANIFEST_HEADER, hl) != 0)
            return BAD("%s: line 1: not a mio-inspect manifest (the first line must be '" MANIFEST_HEADER
                       "ALGORITHM', as written by mio-inspect --hash)", path);
        mf->alg = mio_hash_alg_from_name(line + hl);
        if (mf->alg < 0) {
            char *e = mio_escape_text(line + hl, len - hl, SIZE_MAX, 0, NULL);
            mio_status st = BAD("%s: line 1: unknown hash algorithm '%s' (known: xxh64, xxh3, sha256)", path, e ? e : "?");
            free(e);
            return st;
        }
        return MIO_OK;
    }
    if (line[0] == '#') return MIO_OK;
    if (strncmp(line, "model  ", 7) == 0) {
        if (mf->has_model) return BAD("%s: line %ld: a second 'model' line", path, no);
        if (len != 7 + 2 * dlen || parse_hex(line + 7, dlen, mf->model) != 0)
            return BAD("%s: line %ld: malformed 'model' line: expected 'model  ' and %zu hex digits (%s)", path, no,
                       2 * dlen, ALG_NAMES[mf->alg]);
        mf->has_model = 1;
        return MIO_OK;
    }
    int esc = line[0] == '\\';
    char *p = line + esc;
    size_t pl = len - (size_t)esc;
    man_entry e = {0};
    e.line = no;
    if (pl < 2 * dlen + 3 || parse_hex(p, dlen, e.d) != 0 || p[2 * dlen] != ' ' || p[2 * dlen + 1] != ' ')
        return BAD("%s: line %ld: malformed line: expected '%zu hex digits (%s), two spaces, tensor name', or "
                   "'model  HEX'", path, no, 2 * dlen, ALG_NAMES[mf->alg]);
    e.len = pl - 2 * dlen - 2;
    if (!(e.name = malloc(e.len + 1))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    memcpy(e.name, p + 2 * dlen + 2, e.len);
    e.name[e.len] = '\0';
    if (esc && unescape_name(e.name, &e.len) != 0) {
        free(e.name);
        return BAD("%s: line %ld: bad escape in the tensor name (known: \\\\ \\n \\r \\xHH)", path, no);
    }
    if (mf->n == mf->cap) {
        size_t nc = mf->cap ? mf->cap * 2 : 64;
        man_entry *ne = realloc(mf->e, nc * sizeof *ne);
        if (!ne) {
            free(e.name);
            return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
        mf->e = ne;
        mf->cap = nc;
    }
    mf->e[mf->n++] = e;
    return MIO_OK;
}

static mio_status manifest_read(const char *path, manifest *mf) {
    memset(mf, 0, sizeof *mf);
    mf->alg = -1;
    FILE *fp = fopen(path, "rb");
    if (!fp) return mio_err_set(MIO_ERR_IO, "%s: cannot open the manifest: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    mio_status st = MIO_OK;
    while (st == MIO_OK && (len = getline(&line, &cap, fp)) >= 0) {
        no++;
        if ((size_t)len > MANIFEST_LINE_MAX) {
            st = BAD("%s: line %ld: longer than %zu bytes: not a manifest line", path, no, MANIFEST_LINE_MAX);
            break;
        }
        if (len == 0 || line[len - 1] != '\n') {
            st = BAD("%s: line %ld: the last line has no newline (the manifest is cut short?)", path, no);
            break;
        }
        line[--len] = '\0';
        /* CRLF (a manifest edited on Windows): a CR in a name is always
         * written escaped, so a raw one at the end is the line ending */
        if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
        st = manifest_line_in(mf, path, line, (size_t)len, no);
    }
    if (st == MIO_OK && ferror(fp)) st = mio_err_set(MIO_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (st == MIO_OK && no == 0) st = BAD("%s: empty file: not a mio-inspect manifest", path);
    if (st == MIO_OK && !mf->has_model) st = BAD("%s: no 'model  HEX' line: the manifest is incomplete", path);
    free(line);
    fclose(fp);
    if (st == MIO_OK && mf->n > 1) {
        /* duplicates: check on a sorted copy, keep the file order for reporting */
        man_entry *c = malloc(mf->n * sizeof *c);
        if (!c) {
            st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        } else {
            memcpy(c, mf->e, mf->n * sizeof *c);
            qsort(c, mf->n, sizeof *c, cmp_entry);
            for (size_t i = 1; i < mf->n && st == MIO_OK; i++)
                if (cmp_entry(&c[i - 1], &c[i]) == 0) {
                    char *e = mio_escape_text(c[i].name, c[i].len, SIZE_MAX, 0, NULL);
                    st = BAD("%s: line %ld: tensor '%s' is listed twice", path,
                             c[i - 1].line > c[i].line ? c[i - 1].line : c[i].line, e ? e : "?");
                    free(e);
                }
            free(c);
        }
    }
    if (st != MIO_OK) manifest_free(mf);
    return st;
}

MIO_API mio_status mio_hash_check(const char *mpath, const char *path, int n_threads, mio_check_fn fn, void *user,
                                  mio_check_result *res) {
    if (!mpath) return mio_err_set(MIO_ERR_INVALID_ARG, "manifest_path is NULL");
    if (!path) return mio_err_set(MIO_ERR_INVALID_ARG, "path is NULL");
    if (!res) return mio_err_set(MIO_ERR_INVALID_ARG, "res is NULL");
    manifest mf;
    mio_status st = manifest_read(mpath, &mf);
    if (st != MIO_OK) return st;
    mio_model *m = NULL;
    if ((st = mio_model_open(path, &m)) != MIO_OK) {
        manifest_free(&mf);
        return st;
    }
    size_t dlen = mio_hash_digest_size(mf.alg);
    hashed h;
    unsigned char *seen = calloc(m->n ? (size_t)m->n : 1, 1);
    st = seen ? hash_model(m, mf.alg, n_threads, &h) : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (st == MIO_OK) {
        mio_check_result r = {0};
        r.alg = mf.alg;
        r.n_tensors = m->n;
        r.n_entries = mf.n;
        for (size_t i = 0; i < mf.n; i++) {
            const man_entry *e = &mf.e[i];
            int64_t ti = mio_insp_find_sorted(m, h.idx, e->name, e->len);
            if (ti >= 0) seen[ti] = 1;
            const unsigned char *d = ti >= 0 ? h.dig + (size_t)ti * dlen : NULL;
            if (d && memcmp(d, e->d, dlen) == 0) continue;
            if (d)
                r.differ++;
            else
                r.missing++;
            mio_check_item it = {d ? MIO_CHECK_DIFFERS : MIO_CHECK_MISSING, {e->name, e->len}, e->line, e->d, d, mf.alg};
            if (fn) fn(user, &it);
        }
        for (int64_t k = 0; k < m->n; k++) {
            int64_t ti = h.idx[k];
            if (seen[ti]) continue;
            r.extra++;
            mio_check_item it = {MIO_CHECK_EXTRA, m->t[ti].name, 0, NULL, h.dig + (size_t)ti * dlen, mf.alg};
            if (fn) fn(user, &it);
        }
        r.model_matches = memcmp(h.md, mf.model, dlen) == 0;
        r.ok = !r.differ && !r.missing && !r.extra && r.model_matches;
        *res = r;
    }
    if (seen) hashed_free(&h);
    free(seen);
    mio_model_close(m);
    manifest_free(&mf);
    return st;
}
