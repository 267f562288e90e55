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
#include <stdarg.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static char *fmt(const char *f, ...) MIO_PRINTF(1, 2);
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    return s;
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

/* huggingface_hub's _normalize_etag: drop a weak "W/" and the quotes. */
static char *norm_etag(const char *e) {
    if (!e) return NULL;
    if (strncmp(e, "W/", 2) == 0) e += 2;
    size_t n = strlen(e);
    if (n >= 2 && e[0] == '"' && e[n - 1] == '"') { e++; n -= 2; }
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, e, n);
    s[n] = 0;
    return s;
}

typedef struct pull_file {
    char *path;      /* in the repo */
    char *etag;      /* sha256 (LFS) or git sha1 */
    char *url;       /* where the bytes are (the CDN for LFS files) */
    bool url_auth;   /* the token goes there */
    uint64_t size;
    bool lfs;
} pull_file;

typedef struct pull_job {
    const mio_hub_pull_params *p;
    mio_hub_ref ref;
    char *token;
    char *repo_dir, *locks_dir, *commit;
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
    if (b->n + n + 1 > b->cap) {
        size_t c = (b->n + n + 1) * 2;
        char *q = realloc(b->p, c);
        if (!q) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
    return MIO_OK;
}

/* The repo's files at the revision: GET /api/{kind}s/{repo}/revision/{rev}. */
static mio_status list_files(pull_job *j, mio_json **root_out) {
    const char *plural = strcmp(j->ref.kind, "dataset") == 0 ? "datasets" : strcmp(j->ref.kind, "space") == 0 ? "spaces" : "models";
    char enc[768];
    size_t k = 0;
    for (const unsigned char *c = (const unsigned char *)j->ref.revision; *c && k + 4 < sizeof enc; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-_.~", *c))
            enc[k++] = (char)*c;
        else
            k += (size_t)snprintf(enc + k, sizeof enc - k, "%%%02X", *c);
    }
    enc[k] = 0;
    char *url = fmt("%s/api/%s/%s/revision/%s", mio_hub_endpoint(), plural, j->ref.repo_id, enc);
    if (!url) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    char name[1024];
    mio_hub_ref_name(&j->ref, name, sizeof name);
    body_buf b = {0};
    mio_http_resp r;
    mio_http_req q = {.url = url, .bearer = j->token, .max_body = API_CAP, .sink = sink_mem, .user = &b, .what = name};
    mio_status st = mio_http_do(&q, &r);
    free(url);
    if (!st && r.status != 200) st = mio_hub_error(&j->ref, &r, j->token != NULL);
    mio_http_resp_free(&r);
    if (st) { free(b.p); return st; }
    mio_json *root = b.p ? mio_json_parse(b.p, b.n, NULL) : NULL;
    free(b.p);
    mio_json *sha = root ? mio_json_get(root, "sha") : NULL;
    mio_json *sib = root ? mio_json_get(root, "siblings") : NULL;
    if (!sha || !mio_json_is_cstring(sha) || !is_hex(sha->valuestring, 40) || !sib || !mio_json_is_array(sib)) {
        mio_json_free(root);
        return mio_err_set(MIO_ERR_NETWORK, "%s: the Hub's repo information is not what huggingface_hub reads (a \"sha\" "
                           "of 40 hex digits and a \"siblings\" list)", name);
    }
    *root_out = root;
    return MIO_OK;
}

/* huggingface_hub's filter_repo_objects: fnmatch, a pattern ending in '/' is a folder. */
static bool glob_match(const char *pat, const char *path) {
    size_t n = strlen(pat);
    if (n && pat[n - 1] == '/') {
        char *p2 = fmt("%s*", pat);
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

/* HEAD the file at the commit: etag, size and where its bytes are. A redirect on
 * the same origin (a renamed repo) is followed; one to another origin (an LFS
 * file's CDN) is where the bytes are, and its headers are the file's. */
static mio_status head_file(pull_job *j, pull_file *f) {
    mio_hub_ref r = j->ref;
    r.path = f->path;
    char name[1024];
    mio_hub_ref_name(&r, name, sizeof name);
    char *url = mio_hub_resolve_url(&r, j->commit);
    if (!url) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = MIO_OK;
    mio_http_resp resp;
    for (int hop = 0;; hop++) {
        mio_http_req q = {.url = url, .head = true, .bearer = j->token, .what = name};
        st = mio_http_do(&q, &resp);
        if (st) break;
        if (resp.status >= 300 && resp.status < 400 && resp.location) {
            char *next = NULL;
            if (resp.location[0] == '/' && resp.location[1] != '/') {
                size_t on = strstr(url, "://") ? (size_t)(strstr(url, "://") + 3 - url) + strcspn(strstr(url, "://") + 3, "/?#") : 0;
                next = fmt("%.*s%s", (int)on, url, resp.location);
            } else if (mio_hub_same_origin(resp.location, url)) {
                next = strdup(resp.location);
            }
            if (next && hop + 1 < 10 && !resp.linked_etag) {
                free(url);
                url = next;
                mio_http_resp_free(&resp);
                continue;
            }
            free(next);
            /* the CDN: the bytes are there, without the token */
            f->url = strdup(resp.location);
            f->url_auth = mio_hub_same_origin(resp.location, url);
            break;
        }
        if (resp.status != 200) {
            st = mio_hub_error(&r, &resp, j->token != NULL);
            break;
        }
        f->url = strdup(url);
        f->url_auth = true;
        break;
    }
    free(url);
    if (st) return st;
    char *etag = norm_etag(resp.linked_etag ? resp.linked_etag : resp.etag);
    bool has_size = resp.has_linked_size || resp.has_length;
    f->size = resp.has_linked_size ? resp.linked_size : resp.content_length;
    const char *commit = resp.repo_commit;
    if (!f->url || !etag || !has_size || !(is_hex(etag, 64) || is_hex(etag, 40)) || (commit && strcmp(commit, j->commit) != 0)) {
        st = mio_err_set(MIO_ERR_NETWORK, "%s: the Hub's answer lacks %s", name,
                         !f->url ? "a location" : !etag ? "an ETag" : !has_size ? "the file's size"
                         : !(is_hex(etag, 64) || is_hex(etag, 40)) ? "a usable ETag (40 or 64 hex digits)"
                         : "the commit asked for (X-Repo-Commit differs)");
        free(etag);
    } else {
        f->etag = etag;
        f->lfs = strlen(etag) == 64;
    }
    mio_http_resp_free(&resp);
    return st;
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
    for (size_t i = 0; i < ups; i++) { memcpy(s + k, "../", 3); k += 3; }
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
    char *tmp = fmt("%s.%ld.link", pointer, (long)getpid());
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
    mio_status st = head_file(j, f);
    if (st) return st;
    pthread_mutex_lock(&j->mu);
    j->bytes_total += f->size;
    pthread_mutex_unlock(&j->mu);
    char *blob = fmt("%s/blobs/%s", j->repo_dir, f->etag);
    char *pointer = fmt("%s/snapshots/%s/%s", j->repo_dir, j->commit, f->path);
    char *lock = fmt("%s/%s.lock", j->locks_dir, f->etag);
    char *part = fmt("%s/blobs/%s.incomplete", j->repo_dir, f->etag);
    char *link = blob_link(f->path, f->etag);
    int lfd = -1, fd = -1;
    if (!blob || !pointer || !lock || !part || !link) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto out; }
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
        for (int attempt = 0; d.at < f->size; attempt++) {
            if (lseek(fd, (off_t)d.at, SEEK_SET) < 0) { st = mio_err_set(MIO_ERR_IO, "cannot seek in %s", part); goto out; }
            mio_http_resp resp;
            mio_http_req q = {.url = f->url, .bearer = f->url_auth ? j->token : NULL, .has_range = d.at > 0,
                              .range_first = d.at, .range_last = UINT64_MAX, .max_body = f->size - d.at,
                              .sink = sink_file, .user = &d, .what = name};
            uint64_t before = d.at;
            st = mio_http_do(&q, &resp);
            if (!st && !(resp.status == 200 || resp.status == 206)) {
                st = mio_hub_error(&r, &resp, f->url_auth && j->token);
            } else if (!st && resp.status == 200 && before > 0) {
                st = mio_err_set(MIO_ERR_NETWORK, "%s: the server ignores Range requests; cannot continue at byte %llu",
                                 name, (unsigned long long)before);
            } else if (!st && resp.status == 206 && (!resp.has_range || resp.range_first != before ||
                                                     (resp.range_total != UINT64_MAX && resp.range_total != f->size))) {
                st = mio_err_set(MIO_ERR_NETWORK, "%s: the server answered another range than bytes %llu- of %llu", name,
                                 (unsigned long long)before, (unsigned long long)f->size);
            }
            mio_http_resp_free(&resp);
            if (st == MIO_ERR_NETWORK && d.at > before && attempt + 1 < ATTEMPTS && !atomic_load(&j->stop)) {
                /* a dropped connection that brought bytes: continue where it stopped */
                st = MIO_OK;
                continue;
            }
            if (st == MIO_ERR_NETWORK && attempt + 1 < ATTEMPTS && !atomic_load(&j->stop) && d.at == before) {
                struct timespec ts = {0, 200000000L * (attempt + 1)};
                nanosleep(&ts, NULL);
                st = MIO_OK;
                continue;
            }
            if (st) goto out;
            if (d.at < f->size) {
                st = mio_err_set(MIO_ERR_NETWORK, "%s: the connection ended after %llu of %llu bytes", name,
                                 (unsigned long long)d.at, (unsigned long long)f->size);
                if (attempt + 1 < ATTEMPTS) { st = MIO_OK; continue; }
                goto out;
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

/* refs/REV holding the commit, written atomically (REV may hold '/'). */
static mio_status write_ref(pull_job *j) {
    char *ref = fmt("%s/refs/%s", j->repo_dir, j->ref.revision);
    if (!ref) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    mio_status st = mkdirs_parent(ref);
    mio_atomic_file af;
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
        char *ref = fmt("%s/refs/%s", j->repo_dir, j->ref.revision);
        FILE *fp = ref ? fopen(ref, "rb") : NULL;
        free(ref);
        if (fp) {
            size_t got = fread(commit, 1, 40, fp);
            commit[got] = 0;
            fclose(fp);
        }
    }
    char *snap = is_hex(commit, 40) ? fmt("%s/snapshots/%s", j->repo_dir, commit) : NULL;
    struct stat sb;
    if (!snap || stat(snap, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        free(snap);
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: offline mode (HF_HUB_OFFLINE=1) and revision '%s' of %s is not in the "
                           "cache (%s); unset HF_HUB_OFFLINE to pull it", name, j->ref.revision, j->ref.repo_id, j->repo_dir);
    }
    if (j->ref.path[0]) {
        char *file = fmt("%s/%s", snap, j->ref.path);
        bool ok = file && stat(file, &sb) == 0 && S_ISREG(sb.st_mode);
        free(file);
        if (!ok) {
            free(snap);
            return mio_err_set(MIO_ERR_NOT_FOUND, "%s: offline mode (HF_HUB_OFFLINE=1) and the file is not in the cache "
                               "(%s)", name, j->repo_dir);
        }
    }
    *out = snap;
    return MIO_OK;
}

mio_status mio_hub_pull(const char *uri, const mio_hub_pull_params *p, char **snapshot_dir) {
    if (!uri || !snapshot_dir) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !uri ? "uri" : "snapshot_dir");
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
        j.locks_dir = fmt("%s/.locks/%s", cache, base ? base + 1 : j.repo_dir);
    }
    free(cache);
    mio_json *root = NULL;
    if (!j.repo_dir || !j.locks_dir) {
        st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (mio_hub_offline()) {
        st = pull_offline(&j, snapshot_dir);
        goto done;
    }
    j.token = mio_hub_token();
    if ((st = list_files(&j, &root))) goto done;
    j.commit = strdup(mio_json_get(root, "sha")->valuestring);
    mio_json *sib = mio_json_get(root, "siblings");
    size_t n = 0;
    for (mio_json *e = sib->child; e; e = e->next) n++;
    j.f = calloc(n ? n : 1, sizeof *j.f);
    if (!j.commit || !j.f) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    for (mio_json *e = sib->child; e; e = e->next) {
        mio_json *rf = mio_json_get(e, "rfilename");
        if (!rf || !mio_json_is_cstring(rf)) continue;
        const char *path = rf->valuestring;
        mio_hub_ref chk;
        char *probe = fmt("hf://%s/%s", j.ref.repo_id, path);
        mio_status ps = probe ? mio_hub_parse(probe, &chk) : MIO_ERR_NOMEM;
        free(probe);
        if (ps) {
            st = mio_err_prefix(MIO_ERR_NETWORK, "%s: the Hub lists a file name that cannot be a path: ", name);
            goto done;
        }
        mio_hub_ref_free(&chk);
        bool want = j.ref.path[0] ? strcmp(path, j.ref.path) == 0 : wanted(p, path);
        if (want && !(j.f[j.n].path = strdup(path))) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        if (want) j.n++;
    }
    if (j.ref.path[0] && j.n == 0) {
        st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: file '%s' not found in %s '%s' at revision '%s'", name, j.ref.path,
                         j.ref.kind, j.ref.repo_id, j.ref.revision);
        goto done;
    }
    if (strcmp(j.ref.revision, j.commit) != 0 && (st = write_ref(&j))) goto done;
    char *snap = fmt("%s/snapshots/%s", j.repo_dir, j.commit);
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
        char *file = fmt("%s/%s", snap, j.ref.path);
        free(snap);
        if (!file) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        snap = file;
    }
    *snapshot_dir = snap;
done:
    mio_json_free(root);
    for (size_t i = 0; i < j.n; i++) {
        free(j.f[i].path);
        free(j.f[i].etag);
        free(j.f[i].url);
    }
    free(j.f);
    free(j.msg);
    free(j.commit);
    free(j.repo_dir);
    free(j.locks_dir);
    mio_hub_token_free(j.token);
    mio_hub_ref_free(&j.ref);
    pthread_mutex_destroy(&j.mu);
    return st;
}
