/* SPDX-License-Identifier: MIT */
/* pull.c — mio_hub_pull: a repo's files into huggingface_hub's own cache.
 * Layout (huggingface_hub's file_download.py): CACHE/models--ORG--REPO/
 *   refs/REV        the commit REV resolved to (written when REV is not a commit)
 *   blobs/ETAG      the file's bytes, named by its etag (sha256 for LFS files,
 *                   the git blob sha1 otherwise)
 *   snapshots/COMMIT/PATH  a relative symlink to ../../blobs/ETAG
 * and CACHE/.locks/models--ORG--REPO/ETAG.lock, taken with flock as
 * huggingface_hub's filelock takes it, so a pull and a Python download of the
 * same blob wait for each other. Invariants: a blob exists under its final
 * name only complete and (LFS) with the sha256 its etag names; until then it is
 * BLOB.incomplete, which the next attempt (a dropped connection in this run, or
 * a later run after a kill) continues with Range: bytes=N-; a checksum mismatch
 * removes it. Every etag, commit and file name from the server is checked
 * before it becomes a path. */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"

#define API_CAP ((size_t)64 << 20)
#define ATTEMPTS 5

ABI_FROZEN(mio_hub_pull_params, progress_user);

void mio_hub_pull_default_params(mio_hub_pull_params *p) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
}

mio_status mio_hub_pull_default_params_sized(mio_hub_pull_params *p, size_t size) {
    mio_hub_pull_params d;
    mio_hub_pull_default_params(&d);
    return mio_abi_defaults_sized(p, size, &d, sizeof d, "mio_hub_pull_params");
}

static bool is_hex(const char *s, size_t n) {
    if (strlen(s) != n) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

/* mkdir -p path (0755); MIO_ERR_IO naming the directory. */
static mio_status mkdirs(const char *path) {
    char *p = strdup(path);
    if (!p) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                int e = errno;
                mio_status st = mio_err_set(MIO_ERR_IO, "cannot create the directory %s: %s", p, strerror(e));
                free(p);
                return st;
            }
            *s = c;
            if (!c) break;
        }
    }
    free(p);
    return MIO_OK;
}

static mio_status mkdirs_parent(const char *path) {
    char *d = strdup(path);
    if (!d) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    char *slash = strrchr(d, '/');
    mio_status st = MIO_OK;
    if (slash && slash != d) {
        *slash = 0;
        st = mkdirs(d);
    }
    free(d);
    return st;
}

typedef struct pull_file {
    char *path;      /* in the repo */
    char *etag;      /* the blob's name: the LFS sha256, else the git blob sha1 */
    char *oid;       /* the git blob id (for an LFS file: of its pointer) */
    char *xet;       /* a xet hash, kept for the tree cache */
    uint64_t size;   /* the file's bytes */
    uint64_t tree_size; /* the listing's "size" (an LFS pointer's for some servers) */
    bool lfs;
} pull_file;

typedef struct pull_job {
    const mio_hub_pull_params *p;
    mio_hub_ref ref;
    char *token;
    char *cache, *repo_dir, *locks_dir, *commit;
    pull_file *f;
    size_t n;
    atomic_size_t next;
    atomic_bool stop;
    pthread_mutex_t mu;
    mio_status st;          /* the first failure */
    char *msg;              /* its message (errors are per thread) */
    uint64_t bytes_done, bytes_total;
    int64_t files_done;
} pull_job;

static void job_fail(pull_job *j, mio_status st) {
    pthread_mutex_lock(&j->mu);
    if (!j->st) {
        j->st = st;
        j->msg = strdup(mio_last_error());
    }
    atomic_store(&j->stop, true);
    pthread_mutex_unlock(&j->mu);
}

/* Progress: bytes of the files (those already cached count at once). Returns
 * MIO_ERR_CANCELLED when the callback asks to stop. */
static mio_status job_progress(pull_job *j, uint64_t bytes, int64_t files) {
    pthread_mutex_lock(&j->mu);
    j->bytes_done += bytes;
    j->files_done += files;
    int stop = j->p && j->p->progress
                   ? j->p->progress(j->p->progress_user, j->files_done, (int64_t)j->n, j->bytes_done, j->bytes_total)
                   : 0;
    pthread_mutex_unlock(&j->mu);
    if (stop || atomic_load(&j->stop)) {
        atomic_store(&j->stop, true);
        return mio_err_set(MIO_ERR_CANCELLED, "the pull was cancelled (what was fetched stays as .incomplete files; the next "
                           "pull continues them)");
    }
    return MIO_OK;
}

typedef struct body_buf {
    char *p;
    size_t n, cap;
} body_buf;

static mio_status sink_mem(void *user, const void *p, size_t n) {
    body_buf *b = user;
    if (n > API_CAP - b->n) return mio_err_set(MIO_ERR_LIMIT, "the Hub's answer is over %zu MiB", API_CAP >> 20);
    if (!b->p || b->n + n + 1 > b->cap) {
        size_t c = (b->n + n + 1) * 2;
        char *q = realloc(b->p, c);
        if (!q) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        b->p = q;
        b->cap = c;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
    return MIO_OK;
}

static const char *plural(const mio_hub_ref *r) {
    return strcmp(r->kind, "dataset") == 0 ? "datasets" : strcmp(r->kind, "space") == 0 ? "spaces" : "models";
}

/* The URL of the Link header's rel="next" entry (RFC 8288: comma-separated
 * "<URL>; param; ..." entries, in any order), heap; NULL when there is none. */
static char *next_link(const char *l) {
    while (l && *l) {
        while (*l == ' ' || *l == ',') l++;
        if (*l != '<') return NULL;
        const char *e = strchr(l, '>');
        if (!e) return NULL;
        const char *end = strchr(e, ',');
        size_t plen = end ? (size_t)(end - e) : strlen(e);
        const char *rel = memmem(e, plen, "rel=", 4);
        if (rel) {
            rel += 4;
            if (*rel == '"') rel++;
            if (strncmp(rel, "next", 4) == 0 && (rel[4] == '"' || rel[4] == ';' || rel[4] == ',' || rel[4] == ' ' || !rel[4]))
                return mio_strfmt("%.*s", (int)(e - l - 1), l + 1);
        }
        l = end;
    }
    return NULL;
}

/* GET url (the Hub's API) into *body (NUL-terminated); a Hub error becomes its message. */
static mio_status api_get(pull_job *j, const char *url, body_buf *b, char **link) {
    char name[1024];
    mio_hub_ref_name(&j->ref, name, sizeof name);
    mio_http_resp r;
    mio_http_req q = {.url = url, .bearer = j->token, .max_body = API_CAP, .sink = sink_mem, .user = b, .what = name};
    mio_status st = mio_http_do_follow(&q, &r, NULL, NULL, NULL);
    if (st) return st;
    if (r.status != 200) st = mio_hub_error(&j->ref, &r, j->token != NULL);
    if (!st && link) *link = next_link(r.link);
    mio_http_resp_free(&r);
    if (!st && !b->p) st = sink_mem(b, "", 0) ? mio_err_set(MIO_ERR_NOMEM, "out of memory") : MIO_OK;
    return st;
}

/* The commit the revision names: the revision itself when it is one (no
 * request, as huggingface_hub), else GET /api/{kind}s/{repo}/revision/{rev}. */
static mio_status resolve_commit(pull_job *j) {
    if (is_hex(j->ref.revision, 40)) {
        j->commit = strdup(j->ref.revision);
        return j->commit ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    char *rev = mio_hub_quote(j->ref.revision, "");
    char *url = rev ? mio_strfmt("%s/api/%s/%s/revision/%s", mio_hub_endpoint(), plural(&j->ref), j->ref.repo_id, rev) : NULL;
    free(rev);
    if (!url) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    body_buf b = {0};
    mio_status st = api_get(j, url, &b, NULL);
    free(url);
    if (st) { free(b.p); return st; }
    mio_json *root = mio_json_parse(b.p, b.n, NULL);
    free(b.p);
    mio_json *sha = root ? mio_json_get(root, "sha") : NULL;
    if (!sha || !mio_json_is_cstring(sha) || !is_hex(sha->valuestring, 40)) {
        mio_json_free(root);
        char name[1024];
        return mio_err_set(MIO_ERR_NETWORK, "%s: the Hub's repo information has no \"sha\" of 40 hex digits",
                           mio_hub_ref_name(&j->ref, name, sizeof name));
    }
    j->commit = strdup(sha->valuestring);
    mio_json_free(root);
    return j->commit ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
}

/* Add a file of the listing (path, size, blob id, LFS sha256 and size, xet hash)
 * when the patterns want it; names that cannot be paths are refused. */
static mio_status add_entry(pull_job *j, const char *path, double size, const char *oid, const char *lfs_oid, double lfs_size,
                            const char *xet, size_t *cap) {
    char name[1024];
    mio_hub_ref_name(&j->ref, name, sizeof name);
    mio_hub_ref chk;
    char *probe = mio_strfmt("hf://%s/%s", j->ref.repo_id, path);
    mio_status ps = probe ? mio_hub_parse(probe, &chk) : MIO_ERR_NOMEM;
    free(probe);
    if (ps) return mio_err_prefix(MIO_ERR_NETWORK, "%s: the Hub lists a file name that cannot be a path: ", name);
    mio_hub_ref_free(&chk);
    const char *etag = lfs_oid ? lfs_oid : oid;
    double sz = lfs_oid ? lfs_size : size;
    if (!etag || !(lfs_oid ? is_hex(etag, 64) : is_hex(etag, 40)) || !(sz >= 0 && sz < 0x1p63))
        return mio_err_set(MIO_ERR_NETWORK, "%s: the Hub's listing of '%s' has no usable %s", name, path,
                           !etag ? "id" : !(sz >= 0 && sz < 0x1p63) ? "size" : "id (40 or 64 hex digits)");
    if (j->n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        pull_file *nf = realloc(j->f, c * sizeof *nf);
        if (!nf) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        j->f = nf;
        *cap = c;
    }
    pull_file *f = &j->f[j->n];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    f->etag = strdup(etag);
    f->oid = oid ? strdup(oid) : NULL;
    f->xet = xet && is_hex(xet, 64) ? strdup(xet) : NULL;
    f->tree_size = (uint64_t)size;
    f->size = (uint64_t)sz;
    f->lfs = lfs_oid != NULL;
    j->n++;
    if (!f->path || !f->etag || (oid && !f->oid)) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    return MIO_OK;
}

static const char *jstr(mio_json *o, const char *k) {
    mio_json *v = o ? mio_json_get(o, k) : NULL;
    return v && mio_json_is_cstring(v) ? v->valuestring : NULL;
}
static double jnum(mio_json *o, const char *k) {
    mio_json *v = o ? mio_json_get(o, k) : NULL;
    return v && mio_json_is_number(v) ? v->valuedouble : -1;
}

/* The files at the commit: huggingface_hub's tree cache (trees/COMMIT.json)
 * when it is there, else the Hub's recursive tree listing, page by page. */
static mio_status list_files(pull_job *j, bool *from_cache) {
    size_t cap = 0;
    char *cached = mio_strfmt("%s/trees/%s.json", j->repo_dir, j->commit);
    if (!cached) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_region reg;
    *from_cache = false;
    if (mio_region_read(cached, &reg) == MIO_OK) {
        mio_json *root = mio_json_parse((const char *)reg.data, reg.size, NULL);
        mio_region_free(&reg);
        mio_json *files = root ? mio_json_get(root, "files") : NULL;
        if (files && mio_json_is_object(files) && jnum(root, "format_version") == 1) {
            mio_status st = MIO_OK;
            for (mio_json *e = files->child; e && !st; e = e->next)
                st = add_entry(j, e->string, jnum(e, "size"), jstr(e, "blob_id"), jstr(e, "lfs_sha256"), jnum(e, "lfs_size"),
                               jstr(e, "xet_hash"), &cap);
            mio_json_free(root);
            free(cached);
            *from_cache = true;
            return st;
        }
        mio_json_free(root);
    }
    free(cached);
    char *url = mio_strfmt("%s/api/%s/%s/tree/%s?recursive=true&expand=false", mio_hub_endpoint(), plural(&j->ref), j->ref.repo_id,
                    j->commit);
    mio_status st = url ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (int page = 0; url && !st; page++) {
        body_buf b = {0};
        char *next = NULL;
        st = api_get(j, url, &b, &next);
        free(url);
        url = NULL;
        mio_json *root = st ? NULL : mio_json_parse(b.p, b.n, NULL);
        free(b.p);
        if (!st && (!root || !mio_json_is_array(root))) {
            char name[1024];
            st = mio_err_set(MIO_ERR_NETWORK, "%s: the Hub's tree listing is not a JSON list",
                             mio_hub_ref_name(&j->ref, name, sizeof name));
        }
        for (mio_json *e = root && !st ? root->child : NULL; e && !st; e = e->next) {
            const char *type = jstr(e, "type");
            if (!type || strcmp(type, "file") != 0) continue;
            mio_json *lfs = mio_json_get(e, "lfs");
            st = add_entry(j, jstr(e, "path") ? jstr(e, "path") : "", jnum(e, "size"), jstr(e, "oid"),
                           lfs ? (jstr(lfs, "oid") ? jstr(lfs, "oid") : "") : NULL, lfs ? jnum(lfs, "size") : -1,
                           jstr(e, "xetHash"), &cap);
        }
        mio_json_free(root);
        if (!st && next && page > 100000) st = mio_err_set(MIO_ERR_LIMIT, "the tree listing runs past 100000 pages");
        if (next && next[0] == '/') {
            /* a Link relative to the Hub's origin */
            const char *ep = mio_hub_endpoint();
            const char *h = strstr(ep, "://");
            size_t on = h ? (size_t)(h + 3 - ep) + strcspn(h + 3, "/") : strlen(ep);
            char *abs = mio_strfmt("%.*s%s", (int)on, ep, next);
            free(next);
            next = abs;
            if (!next) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
        url = next;
    }
    free(url);
    return st;
}

/* JSON string as Python's json.dump writes it (ensure_ascii). 0 on bad UTF-8. */
static int put_json_str(FILE *o, const char *s) {
    fputc('"', o);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = *p;
        int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!n) return 0;
        if (n > 1) c &= 0x3f >> (n - 1);
        for (int k = 1; k < n; k++) {
            if ((p[k] & 0xc0) != 0x80) return 0;
            c = c << 6 | (p[k] & 0x3f);
        }
        p += n;
        if (c == '"' || c == '\\') fprintf(o, "\\%c", (char)c);
        else if (c == '\n') fputs("\\n", o);
        else if (c == '\r') fputs("\\r", o);
        else if (c == '\t') fputs("\\t", o);
        else if (c == '\b') fputs("\\b", o);
        else if (c == '\f') fputs("\\f", o);
        else if (c < 0x20 || (c >= 0x7f && c < 0x10000)) fprintf(o, "\\u%04x", c);
        else if (c >= 0x10000) fprintf(o, "\\u%04x\\u%04x", 0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
        else fputc((int)c, o);
    }
    fputc('"', o);
    return 1;
}

static int cmp_file(const void *a, const void *b) { return strcmp(((const pull_file *)a)->path, ((const pull_file *)b)->path); }

/* trees/COMMIT.json as huggingface_hub writes it (json.dump, indent 1): its
 * offline checks then know the snapshot's files. Best effort, as there. */
static void write_tree_cache(pull_job *j) {
    char *path = mio_strfmt("%s/trees/%s.json", j->repo_dir, j->commit);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = path ? open_memstream(&buf, &len) : NULL;
    if (!o) { free(path); return; }
    pull_file *sorted = malloc((j->n ? j->n : 1) * sizeof *sorted);
    int ok = sorted != NULL;
    if (ok) {
        memcpy(sorted, j->f, j->n * sizeof *sorted);
        qsort(sorted, j->n, sizeof *sorted, cmp_file);
        fputs("{\n \"format_version\": 1,\n \"files\": {", o);
        for (size_t i = 0; i < j->n && ok; i++) {
            const pull_file *f = &sorted[i];
            fputs(i ? ",\n  " : "\n  ", o);
            ok = put_json_str(o, f->path);
            fprintf(o, ": {\n   \"size\": %llu,\n   \"blob_id\": ", (unsigned long long)f->tree_size);
            ok = ok && put_json_str(o, f->oid ? f->oid : "");
            if (f->lfs) fprintf(o, ",\n   \"lfs_sha256\": \"%s\",\n   \"lfs_size\": %llu", f->etag, (unsigned long long)f->size);
            if (f->xet) fprintf(o, ",\n   \"xet_hash\": \"%s\"", f->xet);
            fputs("\n  }", o);
        }
        fputs(j->n ? "\n }\n}" : "}\n}", o);
    }
    free(sorted);
    fclose(o);
    mio_atomic_file af = {.fd = -1, .slot = -1};
    if (ok && mkdirs_parent(path) == MIO_OK && mio_atomic_open(path, &af) == MIO_OK) {
        if (mio_fd_write_all(af.fd, buf, len, path) == MIO_OK) (void)mio_atomic_commit(&af);
        else mio_atomic_abort(&af);
    }
    free(buf);
    free(path);
}

/* huggingface_hub's filter_repo_objects: fnmatch, a pattern ending in '/' is a folder. */
static bool glob_match(const char *pat, const char *path) {
    size_t n = strlen(pat);
    if (n && pat[n - 1] == '/') {
        char *p2 = mio_strfmt("%s*", pat);
        bool m = p2 && fnmatch(p2, path, 0) == 0;
        free(p2);
        return m;
    }
    return fnmatch(pat, path, 0) == 0;
}

static bool wanted(const mio_hub_pull_params *p, const char *path) {
    if (!p) return true;
    bool in = p->n_include == 0;
    for (size_t i = 0; i < p->n_include && !in; i++) in = p->include[i] && glob_match(p->include[i], path);
    for (size_t i = 0; i < p->n_exclude && in; i++) in = !(p->exclude[i] && glob_match(p->exclude[i], path));
    return in;
}

typedef struct dl_sink {
    int fd;
    uint64_t at;
    mio_sha256_ctx sha;
    bool hash;
    pull_job *j;
    const char *what;
} dl_sink;

static mio_status sink_file(void *user, const void *p, size_t n) {
    dl_sink *d = user;
    mio_status st = mio_fd_write_all(d->fd, p, n, d->what);
    if (st) return st;
    if (d->hash) mio_sha256_update(&d->sha, p, n);
    d->at += n;
    return job_progress(d->j, n, 0);
}

/* Hash the bytes already in fd (a resumed download), up to n. */
static mio_status hash_existing(int fd, uint64_t n, mio_sha256_ctx *sha, const char *what) {
    char *buf = malloc(1 << 20);
    if (!buf) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    uint64_t at = 0;
    while (at < n) {
        size_t want = n - at < (1u << 20) ? (size_t)(n - at) : (1u << 20);
        ssize_t r = pread(fd, buf, want, (off_t)at);
        if (r <= 0) {
            free(buf);
            return mio_err_set(MIO_ERR_IO, "%s: cannot read the partial download: %s", what, r < 0 ? strerror(errno) : "short");
        }
        mio_sha256_update(sha, buf, (size_t)r);
        at += (uint64_t)r;
    }
    free(buf);
    return MIO_OK;
}

/* relpath from the pointer's directory to the blob: "../" per level + "blobs/ETAG" */
static char *blob_link(const char *path, const char *etag) {
    size_t ups = 2;
    for (const char *c = path; *c; c++) ups += *c == '/';
    size_t n = ups * 3 + strlen(etag) + 8;
    char *s = malloc(n);
    if (!s) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < ups; i++) k += (size_t)snprintf(s + k, n - k, "../");
    snprintf(s + k, n - k, "blobs/%s", etag);
    return s;
}

/* snapshots/COMMIT/PATH -> the blob, replacing a wrong or broken link atomically. */
static mio_status place_link(const char *pointer, const char *target) {
    char cur[4096];
    ssize_t n = readlink(pointer, cur, sizeof cur - 1);
    if (n >= 0) {
        cur[n] = 0;
        struct stat sb;
        if (strcmp(cur, target) == 0 && stat(pointer, &sb) == 0) return MIO_OK;
    }
    char *tmp = mio_strfmt("%s.%ld.link", pointer, (long)getpid());
    if (!tmp) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    unlink(tmp);
    mio_status st = MIO_OK;
    if (symlink(target, tmp) != 0 || rename(tmp, pointer) != 0) {
        st = mio_err_set(MIO_ERR_IO, "cannot link %s to %s: %s", pointer, target, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return st;
}

static mio_status fetch_file(pull_job *j, pull_file *f) {
    mio_hub_ref r = j->ref;
    r.path = f->path;
    char name[1024];
    mio_hub_ref_name(&r, name, sizeof name);
    mio_status st = MIO_OK;
    char *url = mio_hub_resolve_url(&r, j->commit);
    char *blob = mio_strfmt("%s/blobs/%s", j->repo_dir, f->etag);
    char *pointer = mio_strfmt("%s/snapshots/%s/%s", j->repo_dir, j->commit, f->path);
    char *lock = mio_strfmt("%s/%s.lock", j->locks_dir, f->etag);
    char *part = mio_strfmt("%s/blobs/%s.incomplete", j->repo_dir, f->etag);
    char *link = blob_link(f->path, f->etag);
    int lfd = -1, fd = -1;
    if (!url || !blob || !pointer || !lock || !part || !link) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto out; }
    struct stat sb;
    if (stat(pointer, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == f->size) {
        /* already in the snapshot (ours or huggingface_hub's): nothing to fetch */
        st = job_progress(j, f->size, 1);
        goto out;
    }
    if ((st = mkdirs_parent(blob)) || (st = mkdirs_parent(pointer)) || (st = mkdirs(j->locks_dir))) goto out;
    lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        st = mio_err_set(MIO_ERR_IO, "cannot lock %s: %s", lock, strerror(errno));
        goto out;
    }
    if (stat(blob, &sb) != 0 || (uint64_t)sb.st_size != f->size) {
        /* fetch into BLOB.incomplete, continuing what is there */
        fd = open(part, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || fstat(fd, &sb) != 0) {
            st = mio_err_set(MIO_ERR_IO, "cannot open %s: %s", part, strerror(errno));
            goto out;
        }
        dl_sink d = {.fd = fd, .at = (uint64_t)sb.st_size, .hash = f->lfs, .j = j, .what = part};
        if (d.at > f->size) {
            if (ftruncate(fd, 0) != 0) { st = mio_err_set(MIO_ERR_IO, "cannot truncate %s", part); goto out; }
            d.at = 0;
        }
        mio_sha256_init(&d.sha);
        if (d.hash && d.at && (st = hash_existing(fd, d.at, &d.sha, part))) goto out;
        if (d.at && (st = job_progress(j, d.at, 0))) goto out;
        /* a dropped or stalled connection (or a 5xx) is tried again, continuing
         * at the bytes that arrived; the Hub's refusals are final */
        for (int attempt = 0; d.at < f->size; attempt++) {
            if (attempt >= ATTEMPTS || atomic_load(&j->stop)) {
                st = atomic_load(&j->stop) ? mio_err_set(MIO_ERR_CANCELLED, "%s: stopped", name)
                                           : mio_err_prefix(MIO_ERR_NETWORK, "after %d attempts: ", ATTEMPTS);
                goto out;
            }
            if (lseek(fd, (off_t)d.at, SEEK_SET) < 0) { st = mio_err_set(MIO_ERR_IO, "cannot seek in %s", part); goto out; }
            /* the resolve URL at the commit, its redirect to the CDN followed without the token */
            mio_http_resp resp;
            mio_http_req q = {.url = url, .bearer = j->token, .has_range = d.at > 0, .range_first = d.at,
                              .range_last = UINT64_MAX, .max_body = f->size - d.at, .sink = sink_file, .user = &d,
                              .what = name};
            uint64_t before = d.at;
            mio_http_hops hops = {0};
            mio_status rs = mio_http_do_follow(&q, &resp, NULL, NULL, &hops);
            if (!rs && ((hops.linked_etag && strcmp(hops.linked_etag, f->etag) != 0) ||
                        (hops.has_linked_size && hops.linked_size != f->size))) {
                /* the listing and the file's own headers must name one file: a mismatch is never retried */
                rs = mio_err_set(MIO_ERR_INVALID_METADATA, "%s: the Hub's listing says %s, %llu bytes, but the file is "
                                 "%s, %llu bytes (X-Linked-Etag / X-Linked-Size)", name, f->etag,
                                 (unsigned long long)f->size, hops.linked_etag ? hops.linked_etag : f->etag,
                                 (unsigned long long)(hops.has_linked_size ? hops.linked_size : f->size));
            } else if (!rs && !(resp.status == 200 || resp.status == 206)) {
                rs = mio_hub_error(&r, &resp, j->token != NULL);
            } else if (!rs && resp.status == 206 && (!resp.has_range || resp.range_first != before ||
                                                     (resp.range_total != UINT64_MAX && resp.range_total != f->size))) {
                rs = mio_err_set(MIO_ERR_NETWORK, "%s: the server answered another range than bytes %llu- of %llu", name,
                                 (unsigned long long)before, (unsigned long long)f->size);
            } else if (!rs && d.at < f->size) {
                rs = mio_err_set(MIO_ERR_NETWORK, "%s: the connection ended after %llu of %llu bytes", name,
                                 (unsigned long long)d.at, (unsigned long long)f->size);
            }
            bool restart = rs == MIO_ERR_NETWORK && resp.status == 200 && before > 0;
            mio_http_resp_free(&resp);
            mio_http_hops_free(&hops);
            if (restart) {
                /* the server does not continue a file: fetch it again from byte 0 */
                if (ftruncate(fd, 0) != 0) { st = mio_err_set(MIO_ERR_IO, "cannot truncate %s", part); goto out; }
                pthread_mutex_lock(&j->mu);
                j->bytes_done -= before; /* counted again as they come back */
                pthread_mutex_unlock(&j->mu);
                d.at = 0;
                mio_sha256_init(&d.sha);
                continue;
            }
            if (rs && rs != MIO_ERR_NETWORK) {
                st = rs;
                goto out;
            }
            if (rs && d.at == before) {
                /* nothing arrived: a pause before the next attempt */
                struct timespec ts = {0, 200000000L * (attempt + 1)};
                nanosleep(&ts, NULL);
            }
        }
        if (d.hash) {
            unsigned char dig[32];
            char hex[65];
            mio_sha256_final(&d.sha, dig);
            for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", dig[i]);
            if (strcmp(hex, f->etag) != 0) {
                close(fd);
                fd = -1;
                unlink(part);
                st = mio_err_set(MIO_ERR_CHECKSUM, "%s: the downloaded bytes have sha256 %s, but the Hub's etag says %s: "
                                 "the download is corrupt and was removed; pull again", name, hex, f->etag);
                goto out;
            }
        }
        if (fsync(fd) != 0 || close(fd) != 0) {
            fd = -1;
            st = mio_err_set(MIO_ERR_IO, "cannot write %s: %s", part, strerror(errno));
            goto out;
        }
        fd = -1;
        if (rename(part, blob) != 0) {
            st = mio_err_set(MIO_ERR_IO, "cannot rename %s to %s: %s", part, blob, strerror(errno));
            goto out;
        }
        mio_fsync_parent(blob);
        if ((st = job_progress(j, 0, 0))) goto out;
    } else {
        if ((st = job_progress(j, f->size, 0))) goto out;
    }
    st = place_link(pointer, link);
    if (!st) st = job_progress(j, 0, 1);
out:
    if (fd >= 0) close(fd);
    if (lfd >= 0) close(lfd); /* releases the lock */
    free(url);
    free(blob);
    free(pointer);
    free(lock);
    free(part);
    free(link);
    return st;
}

static void *worker(void *arg) {
    pull_job *j = arg;
    for (;;) {
        if (atomic_load(&j->stop)) break;
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n) break;
        mio_status st = fetch_file(j, &j->f[i]);
        if (st) {
            job_fail(j, st);
            break;
        }
    }
    return NULL;
}

/* CACHEDIR.TAG at the cache's root, as huggingface_hub leaves one (the
 * bford.info/cachedir signature: backup tools skip the cache); never replaced. */
static void write_cachedir_tag(const char *cache) {
    char *path = mio_strfmt("%s/CACHEDIR.TAG", cache);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        static const char tag[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
                                  "# This file is a cache directory tag created by libmodelio (mio-pull) in\n"
                                  "# huggingface_hub's cache. For information about cache directory tags, see:\n"
                                  "#\thttps://bford.info/cachedir/\n";
        if (write(fd, tag, sizeof tag - 1) < 0) { /* best effort */ }
        close(fd);
    }
    free(path);
}

/* refs/REV holding the commit, written atomically (REV may hold '/'). */
static mio_status write_ref(pull_job *j) {
    char *ref = mio_strfmt("%s/refs/%s", j->repo_dir, j->ref.revision);
    if (!ref) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = mkdirs_parent(ref);
    mio_atomic_file af = {.fd = -1, .slot = -1};
    if (!st) st = mio_atomic_open(ref, &af);
    if (!st) {
        st = mio_fd_write_all(af.fd, j->commit, 40, ref);
        if (st) mio_atomic_abort(&af);
        else st = mio_atomic_commit(&af);
    }
    free(ref);
    return st;
}

/* Offline: the commit the cache knows for the revision, and its snapshot. */
static mio_status pull_offline(pull_job *j, char **out) {
    char name[1024];
    mio_hub_ref_name(&j->ref, name, sizeof name);
    char commit[41] = "";
    if (is_hex(j->ref.revision, 40)) {
        memcpy(commit, j->ref.revision, 41);
    } else {
        char *ref = mio_strfmt("%s/refs/%s", j->repo_dir, j->ref.revision);
        FILE *fp = ref ? fopen(ref, "rb") : NULL;
        free(ref);
        if (fp) {
            size_t got = fread(commit, 1, 40, fp);
            commit[got] = 0;
            fclose(fp);
        }
    }
    char *snap = is_hex(commit, 40) ? mio_strfmt("%s/snapshots/%s", j->repo_dir, commit) : NULL;
    struct stat sb;
    if (!snap || stat(snap, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        free(snap);
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: offline mode (HF_HUB_OFFLINE=1) and revision '%s' of %s is not in the "
                           "cache (%s); unset HF_HUB_OFFLINE to pull it", name, j->ref.revision, j->ref.repo_id, j->repo_dir);
    }
    if (j->ref.path[0]) {
        /* one file: its path in the snapshot, as online */
        char *file = mio_strfmt("%s/%s", snap, j->ref.path);
        bool ok = file && stat(file, &sb) == 0 && S_ISREG(sb.st_mode);
        free(snap);
        if (!ok) {
            free(file);
            return mio_err_set(MIO_ERR_NOT_FOUND, "%s: offline mode (HF_HUB_OFFLINE=1) and the file is not in the cache "
                               "(%s)", name, j->repo_dir);
        }
        snap = file;
    }
    *out = snap;
    return MIO_OK;
}

mio_status mio_hub_local_copy(const char *uri, char **local) {
    if (strncasecmp(uri, "hf://", 5) != 0)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s: a URL is read only through its header (MIO_OPEN_HEADER: "
                           "mio-inspect); download it to work on its tensors", uri);
    return mio_hub_pull(uri, NULL, local);
}

mio_status mio_hub_pull(const char *uri, const mio_hub_pull_params *p, char **out) {
    return mio_hub_pull_want(uri, p, NULL, NULL, out);
}

mio_status mio_hub_pull_want(const char *uri, const mio_hub_pull_params *p, mio_hub_want_fn want_fn, void *want_user,
                             char **snapshot_dir) {
    if (!uri || !snapshot_dir) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !uri ? "uri" : "out");
    mio_hub_pull_params dp;
    mio_hub_pull_default_params(&dp);
    if (p) {
        mio_status st = mio_abi_params_merge(&dp, sizeof dp, p, sizeof dp, "mio_hub_pull_params", "mio_hub_pull_default_params");
        if (st) return st;
    }
    p = &dp;
    pull_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    pthread_mutex_init(&j.mu, NULL);
    mio_status st = mio_hub_parse(uri, &j.ref);
    if (st) { pthread_mutex_destroy(&j.mu); return st; }
    char name[1024];
    mio_hub_ref_name(&j.ref, name, sizeof name);
    char *cache = p && p->cache_dir ? strdup(p->cache_dir) : mio_hub_cache_dir();
    j.repo_dir = cache ? mio_hub_repo_dir(cache, &j.ref) : NULL;
    if (j.repo_dir) {
        const char *base = strrchr(j.repo_dir, '/');
        j.locks_dir = mio_strfmt("%s/.locks/%s", cache, base ? base + 1 : j.repo_dir);
    }
    j.cache = cache;
    if (!j.repo_dir || !j.locks_dir) {
        st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (mio_hub_offline()) {
        st = pull_offline(&j, snapshot_dir);
        goto done;
    }
    j.token = mio_hub_token();
    bool from_cache = false;
    if ((st = resolve_commit(&j)) || (st = list_files(&j, &from_cache))) goto done;
    if (!from_cache) write_tree_cache(&j);
    /* what is asked: the one file of the URI, or the patterns' files */
    size_t keep = 0;
    for (size_t i = 0; i < j.n; i++) {
        bool want = j.ref.path[0] ? strcmp(j.f[i].path, j.ref.path) == 0
                    : want_fn     ? want_fn(want_user, j.f[i].path)
                                  : wanted(p, j.f[i].path);
        if (want) {
            pull_file t = j.f[keep];
            j.f[keep++] = j.f[i];
            j.f[i] = t;
        }
    }
    for (size_t i = keep; i < j.n; i++) {
        free(j.f[i].path);
        free(j.f[i].etag);
        free(j.f[i].oid);
        free(j.f[i].xet);
    }
    j.n = keep;
    for (size_t i = 0; i < j.n; i++) j.bytes_total += j.f[i].size;
    if (j.ref.path[0] && j.n == 0) {
        st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: file '%s' not found in %s '%s' at revision '%s'", name, j.ref.path,
                         j.ref.kind, j.ref.repo_id, j.ref.revision);
        goto done;
    }
    if ((st = mkdirs(j.repo_dir))) goto done;
    write_cachedir_tag(j.cache);
    if (strcmp(j.ref.revision, j.commit) != 0 && (st = write_ref(&j))) goto done;
    char *snap = mio_strfmt("%s/snapshots/%s", j.repo_dir, j.commit);
    if (!snap || (st = mkdirs(snap))) {
        if (!snap) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        free(snap);
        goto done;
    }
    int nt = p && p->n_threads > 0 ? p->n_threads : 8;
    if ((size_t)nt > j.n) nt = (int)(j.n ? j.n : 1);
    pthread_t th[64];
    if (nt > 64) nt = 64;
    int started = 0;
    for (int t = 1; t < nt; t++)
        if (pthread_create(&th[t], NULL, worker, &j) == 0) started = t;
        else break;
    worker(&j);
    for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
    if (j.st) {
        st = mio_err_set(j.st, "%s", j.msg ? j.msg : "pull failed");
        free(snap);
        goto done;
    }
    if (j.ref.path[0]) {
        /* one file: its path in the snapshot */
        char *file = mio_strfmt("%s/%s", snap, j.ref.path);
        free(snap);
        if (!file) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        snap = file;
    }
    *snapshot_dir = snap;
done:
    for (size_t i = 0; i < j.n; i++) {
        free(j.f[i].path);
        free(j.f[i].etag);
        free(j.f[i].oid);
        free(j.f[i].xet);
    }
    free(j.f);
    free(j.msg);
    free(j.commit);
    free(j.cache);
    free(j.repo_dir);
    free(j.locks_dir);
    mio_hub_token_free(j.token);
    mio_hub_ref_free(&j.ref);
    pthread_mutex_destroy(&j.mu);
    return st;
}
