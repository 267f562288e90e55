/* SPDX-License-Identifier: MIT */
/* remote.c — remote files read with bounded range requests.
 * A file is resolved once: its first request (bytes 0..STEP-1) follows the
 * Hub's redirects by hand — the token goes only to the endpoint's origin, never
 * to the CDN an LFS file redirects to — and learns the size from Content-Range.
 * Every later read asks exactly the bytes it needs from the URL the redirects
 * ended at (re-resolved once if that URL has expired). Invariants: no request is
 * open-ended; a response must carry exactly the range asked for and the size
 * the file had when opened (else "changed on the server"); the header prefix
 * only grows, by the missing tail. Opens of one URI in a process share one
 * object, and a few closed ones are kept so that a tool opening the same file
 * again (inspect, describe, estimate) fetches nothing twice. */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEEP_CLOSED 16

struct mio_remote {
    char *uri;
    int refs;
    struct mio_remote *next;
    int fd;               /* a cached copy read locally, else -1 */
    bool is_hf;
    mio_hub_ref ref;
    char *token;          /* hf:// only; wiped on close */
    char *start_url;      /* the resolve URL (hf://) or the URL itself */
    char *data_url;       /* where the redirects ended */
    bool data_auth;       /* the token goes to data_url (same origin as the endpoint) */
    char *commit;
    uint64_t size;
    uint8_t *prefix;
    size_t have;
    pthread_mutex_t mu;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static mio_remote *g_list;
static _Atomic uint64_t g_received;

uint64_t mio_remote_bytes_received(void) { return atomic_load(&g_received); }
uint64_t mio_remote_size(const mio_remote *r) { return r->size; }
const char *mio_remote_commit(const mio_remote *r) { return r->commit; }

static void remote_free(mio_remote *r) {
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    free(r->uri);
    mio_hub_ref_free(&r->ref);
    mio_hub_token_free(r->token);
    free(r->start_url);
    free(r->data_url);
    free(r->commit);
    free(r->prefix);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

typedef struct sink_buf {
    uint8_t *dst;
    size_t at, cap;
} sink_buf;

static mio_status sink_copy(void *user, const void *p, size_t n) {
    sink_buf *b = user;
    if (n > b->cap - b->at) return mio_err_set(MIO_ERR_NETWORK, "more bytes than asked for");
    memcpy(b->dst + b->at, p, n);
    b->at += n;
    atomic_fetch_add(&g_received, (uint64_t)n);
    return MIO_OK;
}

static const char *rname(const mio_remote *r) { return r->uri; }

/* Turn a non-2xx final response into a message. */
static mio_status http_error(const mio_remote *r, const mio_http_resp *resp) {
    if (r->is_hf) return mio_hub_error(&r->ref, resp, r->token != NULL);
    if (resp->status == 404) return mio_err_set(MIO_ERR_NOT_FOUND, "%s: not found (HTTP 404)", rname(r));
    if (resp->status == 401 || resp->status == 403)
        return mio_err_set(MIO_ERR_AUTH, "%s: access refused (HTTP %ld)", rname(r), resp->status);
    return mio_err_set(MIO_ERR_NETWORK, "%s: the server answered HTTP %ld", rname(r), resp->status);
}

/* GET bytes [first, last] into dst, from the data URL when known, else from the
 * start URL following redirects (recording the data URL, the commit and, on the
 * first request, the size). resolving: the first request of an open, where the
 * size is learned from the response. Called with r->mu held. */
static mio_status get_range(mio_remote *r, uint64_t first, uint64_t last, uint8_t *dst, bool resolving, size_t *got) {
    bool fresh = r->data_url == NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        sink_buf sb = {dst, 0, (size_t)(last - first + 1)};
        mio_http_req q = {.url = fresh ? r->start_url : r->data_url,
                          .bearer = (fresh ? r->is_hf : r->data_auth) ? r->token : NULL, .has_range = true,
                          .range_first = first, .range_last = last, .max_body = sb.cap, .sink = sink_copy, .user = &sb,
                          .what = rname(r)};
        mio_http_resp resp;
        char *url = NULL;
        bool auth = false;
        mio_http_hops hops = {0};
        mio_status st = mio_http_do_follow(&q, &resp, &url, &auth, &hops);
        if (st) return st;
        if (fresh && r->is_hf && hops.commit && !r->commit) {
            r->commit = hops.commit;
            hops.commit = NULL;
        }
        bool linked = hops.has_linked_size;
        uint64_t linked_size = hops.linked_size;
        mio_http_hops_free(&hops);
        long s = resp.status;
        if (!fresh && attempt == 0 && (s == 401 || s == 403 || s == 404 || s == 410)) {
            /* a signed CDN URL that no longer works: resolve again, once */
            mio_http_resp_free(&resp);
            free(url);
            fresh = true;
            continue;
        }
        if (s == 416 && resolving && resp.has_range && resp.range_total == 0) {
            /* "Range Not Satisfiable" for bytes 0-..: an empty file */
            r->size = 0;
            *got = 0;
        } else if (s == 206) {
            if (!resp.has_range || resp.range_first != first || resp.range_total == UINT64_MAX ||
                (resolving ? resp.range_last != (last < resp.range_total ? last : resp.range_total - 1)
                           : (resp.range_last != last || resp.range_total != r->size))) {
                st = mio_err_set(MIO_ERR_NETWORK, "%s: the server answered bytes %llu-%llu of %llu to a request for bytes "
                                 "%llu-%llu of %llu (the file changed on the server?)", rname(r),
                                 (unsigned long long)resp.range_first, (unsigned long long)resp.range_last,
                                 (unsigned long long)resp.range_total, (unsigned long long)first,
                                 (unsigned long long)last, (unsigned long long)r->size);
            } else if (resolving && linked && linked_size != resp.range_total) {
                /* the Hub's X-Linked-Size and the CDN's Content-Range must name one file */
                st = mio_err_set(MIO_ERR_NETWORK, "%s: the Hub says the file has %llu bytes (X-Linked-Size), the server "
                                 "that holds it %llu", rname(r), (unsigned long long)linked_size,
                                 (unsigned long long)resp.range_total);
            } else {
                if (resolving) r->size = resp.range_total;
                if (sb.at != resp.range_last - first + 1)
                    st = mio_err_set(MIO_ERR_NETWORK, "%s: the connection ended after %zu of %llu bytes", rname(r), sb.at,
                                     (unsigned long long)(resp.range_last - first + 1));
                *got = sb.at;
            }
        } else if (s == 200 && resolving && first == 0) {
            /* no range support, but the whole (small) file fit in what was asked */
            if (resp.has_length && resp.content_length != sb.at)
                st = mio_err_set(MIO_ERR_NETWORK, "%s: the connection ended after %zu of %llu bytes", rname(r), sb.at,
                                 (unsigned long long)resp.content_length);
            r->size = sb.at;
            *got = sb.at;
        } else if (s == 200) {
            st = mio_err_set(MIO_ERR_NETWORK, "%s: the server ignores Range requests (HTTP 200 to a range)", rname(r));
        } else {
            st = http_error(r, &resp);
        }
        if (!st && fresh) {
            free(r->data_url);
            r->data_url = url;
            r->data_auth = auth;
            url = NULL;
        }
        free(url);
        mio_http_resp_free(&resp);
        return st;
    }
    return MIO_OK; /* not reached */
}

static mio_status open_fd(mio_remote *r, const char *path) {
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (r->fd < 0 || fstat(r->fd, &sb) != 0)
        return mio_err_set(MIO_ERR_IO, "%s: cannot open its cached copy %s: %s", rname(r), path, strerror(errno));
    r->size = (uint64_t)sb.st_size;
    return MIO_OK;
}

static mio_status remote_init(mio_remote *r) {
    if (r->is_hf) {
        mio_status st = mio_hub_parse(r->uri, &r->ref);
        if (st) return st;
        if (!r->ref.path[0])
            return mio_err_set(MIO_ERR_INVALID_ARG, "%s names a repo, not a file in it (hf://ORG/REPO[@REV]/PATH)", r->uri);
        char *cached = mio_hub_cached_file(&r->ref);
        bool commit = strlen(r->ref.revision) == 40 && strspn(r->ref.revision, "0123456789abcdef") == 40;
        if (mio_hub_offline() || (cached && commit)) {
            /* offline, or a commit already in the cache: no request at all */
            if (!cached) {
                char *cache = mio_hub_cache_dir();
                st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: offline mode (HF_HUB_OFFLINE=1) and the file is not in the cache "
                                 "(%s); unset HF_HUB_OFFLINE or pull it first (mio-pull)", r->uri, cache ? cache : "?");
                free(cache);
                return st;
            }
            st = open_fd(r, cached);
            free(cached);
            return st;
        }
        free(cached);
        r->token = mio_hub_token();
        r->start_url = mio_hub_resolve_url(&r->ref, NULL);
    } else {
        r->start_url = strdup(r->uri);
    }
    if (!r->start_url) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    /* the first request resolves the file and brings its first STEP bytes */
    r->prefix = malloc(MIO_REMOTE_STEP);
    if (!r->prefix) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    size_t got = 0;
    mio_status st = get_range(r, 0, MIO_REMOTE_STEP - 1, r->prefix, true, &got);
    if (st) return st;
    r->have = got;
    return MIO_OK;
}

mio_status mio_remote_open(const char *uri, mio_remote **out) {
    if (!uri || !out) return mio_err_set(MIO_ERR_INVALID_ARG, "%s is NULL", !uri ? "uri" : "out");
    if (!mio_net_is_remote(uri)) return mio_err_set(MIO_ERR_INVALID_ARG, "'%s' is not an hf:// or http(s):// URI", uri);
    pthread_mutex_lock(&g_mu);
    for (mio_remote *r = g_list; r; r = r->next)
        if (strcmp(r->uri, uri) == 0) {
            r->refs++;
            pthread_mutex_unlock(&g_mu);
            *out = r;
            return MIO_OK;
        }
    pthread_mutex_unlock(&g_mu);
    mio_remote *r = calloc(1, sizeof *r);
    if (!r) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    r->fd = -1;
    pthread_mutex_init(&r->mu, NULL);
    r->is_hf = strncasecmp(uri, "hf://", 5) == 0;
    r->uri = strdup(uri);
    mio_status st = r->uri ? remote_init(r) : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    if (st) {
        remote_free(r);
        return st;
    }
    r->refs = 1;
    pthread_mutex_lock(&g_mu);
    r->next = g_list;
    g_list = r;
    pthread_mutex_unlock(&g_mu);
    *out = r;
    return MIO_OK;
}

void mio_remote_close(mio_remote *r) {
    if (!r) return;
    pthread_mutex_lock(&g_mu);
    r->refs--;
    /* keep the most recent closed ones (their header bytes); free the rest */
    int closed = 0;
    mio_remote **pp = &g_list;
    while (*pp) {
        mio_remote *x = *pp;
        if (x->refs == 0 && ++closed > KEEP_CLOSED) {
            *pp = x->next;
            remote_free(x);
            continue;
        }
        pp = &x->next;
    }
    pthread_mutex_unlock(&g_mu);
}

mio_status mio_remote_prefix(mio_remote *r, size_t want, const uint8_t **data, size_t *have) {
    pthread_mutex_lock(&r->mu);
    mio_status st = MIO_OK;
    uint64_t target = want < r->size ? want : r->size;
    if (r->fd >= 0) {
        if (target > r->have) {
            uint8_t *p = realloc(r->prefix, (size_t)target ? (size_t)target : 1);
            if (!p) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
            else {
                r->prefix = p;
                ssize_t n = pread(r->fd, p + r->have, (size_t)target - r->have, (off_t)r->have);
                if (n < 0 || (size_t)n != (size_t)target - r->have)
                    st = mio_err_set(MIO_ERR_IO, "%s: short read of its cached copy", rname(r));
                else r->have = (size_t)target;
            }
        }
    } else if (target > r->have) {
        uint8_t *p = realloc(r->prefix, (size_t)target);
        if (!p) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        else {
            r->prefix = p;
            size_t got = 0;
            st = get_range(r, r->have, target - 1, p + r->have, false, &got);
            if (!st) r->have = (size_t)target;
        }
    }
    *data = r->prefix;
    *have = r->have;
    pthread_mutex_unlock(&r->mu);
    return st;
}

mio_status mio_remote_read(mio_remote *r, uint64_t pos, void *buf, size_t len, const char *what) {
    if (len == 0) return MIO_OK;
    if (pos > r->size || len > r->size - pos)
        return mio_err_set(MIO_ERR_TRUNCATED, "%s: %s: bytes %llu..%llu lie past the end of the file (%llu bytes)", rname(r),
                           what, (unsigned long long)pos, (unsigned long long)(pos + len), (unsigned long long)r->size);
    if (r->fd >= 0) {
        size_t done = 0;
        while (done < len) {
            ssize_t n = pread(r->fd, (char *)buf + done, len - done, (off_t)(pos + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return mio_err_set(MIO_ERR_IO, "%s: %s: cannot read its cached copy", rname(r), what);
            done += (size_t)n;
        }
        return MIO_OK;
    }
    pthread_mutex_lock(&r->mu);
    if (pos + len <= r->have) {
        memcpy(buf, r->prefix + pos, len);
        pthread_mutex_unlock(&r->mu);
        return MIO_OK;
    }
    size_t got = 0;
    mio_status st = get_range(r, pos, pos + len - 1, buf, false, &got);
    pthread_mutex_unlock(&r->mu);
    if (st) return mio_err_prefix(st, "%s: ", what);
    return MIO_OK;
}
