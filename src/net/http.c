/* SPDX-License-Identifier: MIT */
/* http.c — one HTTP request through libcurl, redirects never followed here.
 * Invariants: a body is delivered only for a 2xx status and never beyond
 * q->max_body bytes (a server that ignores a Range and sends the whole file is
 * stopped at the cap); an error body is read up to 64 KiB and dropped; each
 * header value is capped; the token appears in one header of one request and
 * nowhere else (no verbose output, no message). Easy handles are kept in a
 * small pool so consecutive requests to one host reuse the connection. */
#include "net.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

MIO_API int mio_http_supported(void) { return mio_http_available() ? 1 : 0; }

bool mio_net_is_remote(const char *path) {
    if (!path) return false;
    return strncasecmp(path, "hf://", 5) == 0 || strncasecmp(path, "http://", 7) == 0 ||
           strncasecmp(path, "https://", 8) == 0;
}

void mio_http_resp_free(mio_http_resp *r) {
    if (!r) return;
    free(r->location);
    free(r->etag);
    free(r->linked_etag);
    free(r->repo_commit);
    free(r->error_code);
    free(r->error_message);
    free(r->content_type);
    free(r->link);
    memset(r, 0, sizeof *r);
}

/* Location relative to base: absolute http(s) URLs as they are, "/path" on
 * base's origin, anything else refused (the Hub sends one of the two). */
static char *join_location(const char *base, const char *loc) {
    if (strncasecmp(loc, "http://", 7) == 0 || strncasecmp(loc, "https://", 8) == 0) return strdup(loc);
    if (loc[0] != '/' || loc[1] == '/') return NULL;
    const char *p = strstr(base, "://");
    if (!p) return NULL;
    size_t on = (size_t)(p + 3 - base) + strcspn(p + 3, "/?#");
    size_t n = on + strlen(loc) + 1;
    char *s = malloc(n);
    if (!s) return NULL;
    memcpy(s, base, on);
    memcpy(s + on, loc, strlen(loc) + 1);
    return s;
}

void mio_http_hops_free(mio_http_hops *h) {
    if (!h) return;
    free(h->commit);
    free(h->linked_etag);
    memset(h, 0, sizeof *h);
}

/* an ETag without a weak marker and quotes, heap */
static char *norm_etag(const char *e) {
    if (strncmp(e, "W/", 2) == 0) e += 2;
    size_t n = strlen(e);
    if (n >= 2 && e[0] == '"' && e[n - 1] == '"') { e++; n -= 2; }
    char *s = malloc(n + 1);
    if (s) { memcpy(s, e, n); s[n] = 0; }
    return s;
}

mio_status mio_http_do_follow(const mio_http_req *q, mio_http_resp *r, char **final_url, bool *final_auth,
                              mio_http_hops *hops) {
    const char *what = q->what ? q->what : q->url;
    char *url = strdup(q->url);
    mio_http_hops h = {0};
    bool auth = q->bearer != NULL;
    mio_status st = url ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (int hop = 0; !st; hop++) {
        mio_http_req one = *q;
        one.url = url;
        one.bearer = auth ? q->bearer : NULL;
        st = mio_http_do(&one, r);
        if (st) break;
        if ((!h.commit && r->repo_commit && !(h.commit = strdup(r->repo_commit))) ||
            (!h.linked_etag && r->linked_etag && !(h.linked_etag = norm_etag(r->linked_etag)))) {
            st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
            break;
        }
        if (!h.has_linked_size && r->has_linked_size) {
            h.has_linked_size = true;
            h.linked_size = r->linked_size;
        }
        if (r->status < 300 || r->status >= 400 || r->status == 304) break;
        if (!r->location || hop + 1 >= 10) {
            st = mio_err_set(MIO_ERR_NETWORK, "%s: %s", what, r->location ? "too many redirects" : "a redirect without a Location");
            break;
        }
        char *next = join_location(url, r->location);
        if (!next) {
            st = mio_err_set(MIO_ERR_NETWORK, "%s: the server redirected to an unusable location", what);
            break;
        }
        auth = auth && mio_hub_same_origin(next, url); /* the token never crosses to another origin */
        free(url);
        url = next;
        mio_http_resp_free(r);
    }
    if (st) {
        long status = r->status; /* kept, as mio_http_do keeps it */
        mio_http_resp_free(r);
        r->status = status;
        free(url);
        mio_http_hops_free(&h);
        return st;
    }
    if (final_url) *final_url = url;
    else free(url);
    if (final_auth) *final_auth = auth;
    if (hops) *hops = h;
    else mio_http_hops_free(&h);
    return MIO_OK;
}

#ifndef MIO_HAVE_CURL

bool mio_http_available(void) { return false; }

mio_status mio_http_do(const mio_http_req *q, mio_http_resp *r) {
    memset(r, 0, sizeof *r);
    return mio_err_set(MIO_ERR_UNSUPPORTED, "%s: libmodelio was built without HTTP support (libcurl); rebuild with "
                       "libcurl's development files installed to read remote files", q && q->what ? q->what : "remote file");
}

#else

/* libcurl is loaded at run time (dlopen), not linked: the library's only
 * dependencies stay the C library's, a wheel stays manylinux-clean, and a
 * machine without libcurl gets a message, not a loader error. The build needs
 * libcurl's headers only (its types and option numbers, a stable ABI). */
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} g_curl;
static char g_load_error[512];

/* MIO_LIBCURL names the library to load; else libcurl.so.4 (the OpenSSL
 * flavour), else libcurl-gnutls.so.4 (Debian's other one). */
static bool load_curl(void) {
    const char *env = getenv("MIO_LIBCURL");
    const char *names[] = {env && *env ? env : "libcurl.so.4", env && *env ? NULL : "libcurl-gnutls.so.4"};
    void *h = NULL;
    for (size_t i = 0; i < 2 && !h && names[i]; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(g_load_error, sizeof g_load_error, "cannot load libcurl (%s): %s; install it (Debian: libcurl4) or name "
                 "it with MIO_LIBCURL", names[0], e ? e : "not found");
        return false;
    }
    struct { void **slot; const char *name; } syms[] = {
        {(void **)&g_curl.global_init, "curl_global_init"},   {(void **)&g_curl.easy_init, "curl_easy_init"},
        {(void **)&g_curl.easy_cleanup, "curl_easy_cleanup"}, {(void **)&g_curl.easy_reset, "curl_easy_reset"},
        {(void **)&g_curl.easy_setopt, "curl_easy_setopt"},   {(void **)&g_curl.easy_perform, "curl_easy_perform"},
        {(void **)&g_curl.easy_getinfo, "curl_easy_getinfo"}, {(void **)&g_curl.easy_strerror, "curl_easy_strerror"},
        {(void **)&g_curl.slist_append, "curl_slist_append"}, {(void **)&g_curl.slist_free_all, "curl_slist_free_all"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(h, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(g_load_error, sizeof g_load_error, "%s lacks %s (libcurl 7.x or 8.x is needed)", names[0],
                     syms[i].name);
            return false; /* the handle stays open: dlclose of a half-used library buys nothing */
        }
    }
    return true;
}
#define curl_global_init g_curl.global_init
#define curl_easy_init g_curl.easy_init
#define curl_easy_cleanup g_curl.easy_cleanup
#define curl_easy_reset g_curl.easy_reset
#undef curl_easy_setopt  /* curl.h's argument-count or type-check macros */
#undef curl_easy_getinfo
#define curl_easy_setopt g_curl.easy_setopt
#define curl_easy_perform g_curl.easy_perform
#define curl_easy_getinfo g_curl.easy_getinfo
#define curl_easy_strerror g_curl.easy_strerror
#define curl_slist_append g_curl.slist_append
#define curl_slist_free_all g_curl.slist_free_all

#define HDR_CAP 8192u
#define ERR_BODY_CAP 65536u
#define POOL 8

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CURLcode g_init_rc = CURLE_OK;
static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static CURL *g_pool[POOL];
static int g_pool_n;

static bool g_loaded;
static void global_init(void) {
    g_loaded = load_curl();
    if (g_loaded) g_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

bool mio_http_available(void) {
    pthread_once(&g_once, global_init);
    return g_loaded && g_init_rc == CURLE_OK;
}

static CURL *handle_get(void) {
    CURL *h = NULL;
    pthread_mutex_lock(&g_pool_mu);
    if (g_pool_n > 0) h = g_pool[--g_pool_n];
    pthread_mutex_unlock(&g_pool_mu);
    if (h) curl_easy_reset(h);
    else h = curl_easy_init();
    return h;
}

static void handle_put(CURL *h) {
    pthread_mutex_lock(&g_pool_mu);
    if (g_pool_n < POOL) {
        g_pool[g_pool_n++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&g_pool_mu);
    if (h) curl_easy_cleanup(h);
}

typedef struct xfer {
    const mio_http_req *q;
    mio_http_resp *r;
    long status;            /* of the response being received */
    mio_status sink_st;     /* set when the sink or a cap stopped the body */
    uint64_t err_body;
    bool bad_header;
    bool stalled;           /* no byte for stall_s seconds */
    long stall_s;
    double last_t;          /* when a byte last arrived (or the request started) */
    curl_off_t last_now;
} xfer;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A body that stalls: no byte for HF_HUB_DOWNLOAD_TIMEOUT seconds stops it
 * (curl's low-speed limit averages over several seconds; this does not). */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)ultotal; (void)ulnow;
    xfer *x = user;
    double t = now_s();
    if (dlnow != x->last_now) {
        x->last_now = dlnow;
        x->last_t = t;
        return 0;
    }
    if (t - x->last_t > (double)x->stall_s) {
        x->stalled = true;
        return 1;
    }
    return 0;
}

/* Environment timeouts as huggingface_hub reads them (seconds, default 10). */
static long env_seconds(const char *name, long dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    double d = mio_strtod_c(v, &end);
    if (end == v || !(d > 0) || d > 86400) return dflt;
    return d < 1 ? 1 : (long)(d + 0.5);
}

static char *dup_trim(const char *p, size_t n) {
    while (n && (p[0] == ' ' || p[0] == '\t')) { p++; n--; }
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n')) n--;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static bool parse_u64(const char *s, const char **end, uint64_t *v) {
    uint64_t x = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (x > (UINT64_MAX - 9) / 10) return false;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *v = x;
    *end = p;
    return true;
}

/* "bytes F-L/T", or "bytes F-L/" and a star */
static bool parse_content_range(const char *v, mio_http_resp *r) {
    const char *p = v;
    if (strncasecmp(p, "bytes ", 6) != 0) return false;
    p += 6;
    uint64_t f, l, t = UINT64_MAX;
    if (!parse_u64(p, &p, &f) || *p++ != '-' || !parse_u64(p, &p, &l) || *p++ != '/') return false;
    if (*p == '*') p++;
    else if (!parse_u64(p, &p, &t)) return false;
    if (*p || l < f || (t != UINT64_MAX && l >= t)) return false;
    r->range_first = f;
    r->range_last = l;
    r->range_total = t;
    r->has_range = true;
    return true;
}

static size_t on_header(char *buf, size_t size, size_t n, void *user) {
    xfer *x = user;
    size_t len = size * n;
    mio_http_resp *r = x->r;
    if (len >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        mio_http_resp_free(r); /* a new response (after a 100 Continue): start over */
        return len;
    }
    const char *colon = memchr(buf, ':', len);
    if (!colon) return len;
    size_t kl = (size_t)(colon - buf), vl = len - kl - 1;
    if (vl > HDR_CAP) { x->bad_header = true; return 0; }
    static const struct { const char *name; size_t off; } want[] = {
        {"location", offsetof(mio_http_resp, location)},
        {"etag", offsetof(mio_http_resp, etag)},
        {"x-linked-etag", offsetof(mio_http_resp, linked_etag)},
        {"x-repo-commit", offsetof(mio_http_resp, repo_commit)},
        {"x-error-code", offsetof(mio_http_resp, error_code)},
        {"x-error-message", offsetof(mio_http_resp, error_message)},
        {"content-type", offsetof(mio_http_resp, content_type)},
        {"link", offsetof(mio_http_resp, link)},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        if (strlen(want[k].name) != kl || strncasecmp(buf, want[k].name, kl) != 0) continue;
        char **slot = (char **)((char *)r + want[k].off);
        free(*slot);
        *slot = dup_trim(colon + 1, vl);
        if (!*slot) return 0;
        return len;
    }
    char *v = NULL;
    if ((kl == 13 && strncasecmp(buf, "x-linked-size", 13) == 0) || (kl == 14 && strncasecmp(buf, "content-length", 14) == 0) ||
        (kl == 13 && strncasecmp(buf, "content-range", 13) == 0)) {
        v = dup_trim(colon + 1, vl);
        if (!v) return 0;
        const char *end;
        uint64_t u;
        if (kl == 13 && strncasecmp(buf, "content-range", 13) == 0) {
            if (!parse_content_range(v, r)) x->bad_header = true;
        } else if (parse_u64(v, &end, &u) && !*end) {
            if (kl == 14) { r->content_length = u; r->has_length = true; }
            else { r->linked_size = u; r->has_linked_size = true; }
        } else {
            x->bad_header = true;
        }
        free(v);
        if (x->bad_header) return 0;
    }
    return len;
}

static size_t on_body(char *p, size_t size, size_t n, void *user) {
    xfer *x = user;
    size_t len = size * n;
    if (x->status < 200 || x->status >= 300) {
        x->err_body += len;
        return x->err_body > ERR_BODY_CAP ? 0 : len;
    }
    const mio_http_req *q = x->q;
    if (x->status == 200 && q->has_range && q->range_first > 0) {
        /* the whole file where a tail was asked: nothing of it is delivered (the caller sees status 200) */
        x->sink_st = mio_err_set(MIO_ERR_NETWORK, "%s: the server ignores Range requests (HTTP 200 to bytes %llu-)",
                                 q->what ? q->what : q->url, (unsigned long long)q->range_first);
        return 0;
    }
    if (len > q->max_body - x->r->body_bytes) {
        x->sink_st = mio_err_set(MIO_ERR_NETWORK, "%s: the server sent more than the %llu bytes asked for (it ignored the "
                                 "Range request?); stopped", q->what ? q->what : q->url, (unsigned long long)q->max_body);
        return 0;
    }
    x->r->body_bytes += len;
    if (q->sink && (x->sink_st = q->sink(q->user, p, len)) != MIO_OK) return 0;
    return len;
}

/* libcurl calls the body callback only after the status line and headers, so the
 * status is read there once per response. */
typedef struct xfer_h {
    xfer x;
    CURL *h;
} xfer_h;
static size_t on_body_status(char *p, size_t size, size_t n, void *user) {
    xfer_h *xh = user;
    if (xh->x.status == 0) curl_easy_getinfo(xh->h, CURLINFO_RESPONSE_CODE, &xh->x.status);
    return on_body(p, size, n, &xh->x);
}

mio_status mio_http_do(const mio_http_req *q, mio_http_resp *r) {
    memset(r, 0, sizeof *r);
    pthread_once(&g_once, global_init);
    const char *what = q->what ? q->what : q->url;
    if (!g_loaded) return mio_err_set(MIO_ERR_UNSUPPORTED, "%s: %s", what, g_load_error);
    if (g_init_rc != CURLE_OK)
        return mio_err_set(MIO_ERR_NETWORK, "%s: libcurl failed to initialise: %s", what, curl_easy_strerror(g_init_rc));
    CURL *h = handle_get();
    if (!h) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory for an HTTP handle", what);
    xfer_h xh = {{q, r, 0, MIO_OK, 0, false, false, env_seconds("HF_HUB_DOWNLOAD_TIMEOUT", 10), now_s(), 0}, h};
    struct curl_slist *hdrs = NULL;
    char *auth = NULL;
    mio_status st = MIO_OK;
    char range[64];
    if (q->bearer) {
        size_t n = strlen(q->bearer) + 32;
        auth = malloc(n);
        if (!auth) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        snprintf(auth, n, "Authorization: Bearer %s", q->bearer);
        struct curl_slist *t = curl_slist_append(hdrs, auth);
        if (!t) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        hdrs = t;
    }
    {
        /* identity: the byte counts asked for are the byte counts on the wire */
        struct curl_slist *t = curl_slist_append(hdrs, "Accept-Encoding: identity");
        if (!t) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        hdrs = t;
    }
    curl_easy_setopt(h, CURLOPT_URL, q->url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    char agent[64];
    snprintf(agent, sizeof agent, "libmodelio/%s", mio_version());
    curl_easy_setopt(h, CURLOPT_USERAGENT, agent);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, env_seconds("HF_HUB_ETAG_TIMEOUT", 10));
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &xh.x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &xh.x);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body_status);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &xh);
    if (q->head) curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    if (q->has_range) {
        if (q->range_last == UINT64_MAX)
            snprintf(range, sizeof range, "%llu-", (unsigned long long)q->range_first);
        else
            snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)q->range_first, (unsigned long long)q->range_last);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    }
    CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
    if (rc != CURLE_OK) {
        if (xh.x.sink_st != MIO_OK) st = xh.x.sink_st;
        else if (xh.x.bad_header)
            st = mio_err_set(MIO_ERR_NETWORK, "%s: the server sent a malformed or oversized header (Content-Range, "
                             "Content-Length, X-Linked-Size, or a value over %u bytes)", what, HDR_CAP);
        else if (rc == CURLE_WRITE_ERROR && xh.x.err_body > ERR_BODY_CAP)
            st = MIO_OK; /* the error status is what matters; its body is dropped */
        else if (xh.x.stalled)
            st = mio_err_set(MIO_ERR_NETWORK, "%s: timed out: no byte for %ld s (HF_HUB_DOWNLOAD_TIMEOUT sets the limit)",
                             what, xh.x.stall_s);
        else if (rc == CURLE_OPERATION_TIMEDOUT)
            st = mio_err_set(MIO_ERR_NETWORK, "%s: timed out connecting (%s; HF_HUB_ETAG_TIMEOUT sets the limit)", what,
                             curl_easy_strerror(rc));
        else
            st = mio_err_set(MIO_ERR_NETWORK, "%s: %s", what, curl_easy_strerror(rc));
    }
done:
    curl_slist_free_all(hdrs);
    if (auth) {
        volatile char *w = auth;
        for (size_t i = 0; w[i]; i++) w[i] = 0;
        free(auth);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    handle_put(h);
    if (st) {
        long status = r->status; /* kept: a caller may act on it (a 200 where a range was asked) */
        mio_http_resp_free(r);
        r->status = status;
    }
    return st;
}

#endif
