/* SPDX-License-Identifier: MIT */
/* hub.c — the Hugging Face Hub's rules as huggingface_hub 2.x follows them:
 * hf:// URIs, HF_ENDPOINT, the token (HF_TOKEN, the token file), HF_HUB_OFFLINE,
 * the cache directories, resolve URLs, and error responses turned into messages
 * naming the repo, revision or file. Repo ids and paths are checked before they
 * reach a URL or a cache path: no "..", no absolute path, no control bytes. The
 * token is never put in a message. */
#include "net.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void mio_hub_ref_free(mio_hub_ref *r) {
    if (!r) return;
    free(r->kind);
    free(r->repo_id);
    free(r->revision);
    free(r->path);
    memset(r, 0, sizeof *r);
}

static char *dupn(const char *p, size_t n) {
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static int hexv(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decode p[0..n) into a new string; NULL on a bad escape or a NUL. */
static char *pct_decode(const char *p, size_t n) {
    char *s = malloc(n + 1);
    if (!s) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%') {
            if (i + 2 >= n) { free(s); return NULL; }
            int h = hexv((unsigned char)p[i + 1]), l = hexv((unsigned char)p[i + 2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0)) { free(s); return NULL; }
            s[k++] = (char)(h * 16 + l);
            i += 2;
        } else {
            s[k++] = p[i];
        }
    }
    s[k] = 0;
    return s;
}

/* huggingface_hub's validate_repo_id: [\w.-]+ on each side of at most one '/',
 * no "--" or "..", not starting or ending with '-' or '.', at most 96 chars. */
static bool repo_id_ok(const char *id) {
    size_t n = strlen(id);
    if (n == 0 || n > 96 || strstr(id, "--") || strstr(id, "..")) return false;
    int slashes = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)id[i];
        if (c == '/') {
            if (++slashes > 1 || i == 0 || i + 1 == n) return false;
            continue;
        }
        if (!(isalnum(c) || c == '_' || c == '-' || c == '.')) return false;
    }
    for (const char *seg = id; seg;) {
        const char *e = strchr(seg, '/');
        size_t sl = e ? (size_t)(e - seg) : strlen(seg);
        if (seg[0] == '-' || seg[0] == '.' || seg[sl - 1] == '-' || seg[sl - 1] == '.') return false;
        seg = e ? e + 1 : NULL;
    }
    return slashes == 1;
}

/* A path inside a repo: relative, '/'-separated, no empty, "." or ".." part, no
 * control byte or backslash (it becomes a path under the cache). */
static bool repo_path_ok(const char *p) {
    if (!*p) return true;
    if (p[0] == '/') return false;
    for (const char *seg = p; seg;) {
        const char *e = strchr(seg, '/');
        size_t sl = e ? (size_t)(e - seg) : strlen(seg);
        if (sl == 0 || (sl == 1 && seg[0] == '.') || (sl == 2 && seg[0] == '.' && seg[1] == '.')) return false;
        seg = e ? e + 1 : NULL;
    }
    for (const unsigned char *c = (const unsigned char *)p; *c; c++)
        if (*c < 0x20 || *c == 0x7f || *c == '\\') return false;
    return true;
}

/* A revision: a branch, tag or commit; no control bytes, no "..", not absolute
 * (refs/REV becomes a file name under the cache). */
static bool revision_ok(const char *r) {
    if (!*r || r[0] == '/' || strstr(r, "..")) return false;
    for (const unsigned char *c = (const unsigned char *)r; *c; c++)
        if (*c < 0x20 || *c == 0x7f || *c == '\\') return false;
    return true;
}

mio_status mio_hub_parse(const char *uri, mio_hub_ref *out) {
    memset(out, 0, sizeof *out);
    if (!uri || strncasecmp(uri, "hf://", 5) != 0)
        return mio_err_set(MIO_ERR_INVALID_ARG, "'%s' is not an hf:// URI", uri ? uri : "(null)");
    const char *p = uri + 5;
    const char *kind = "model";
    if (strncmp(p, "datasets/", 9) == 0) { kind = "dataset"; p += 9; }
    else if (strncmp(p, "spaces/", 7) == 0) { kind = "space"; p += 7; }
    else if (strncmp(p, "models/", 7) == 0) p += 7;
    /* ORG/REPO: up to the second '/' or an '@' */
    const char *s1 = strchr(p, '/');
    mio_status st = MIO_OK;
    if (!s1) {
        return mio_err_set(MIO_ERR_INVALID_ARG, "'%s': an hf:// URI names ORG/REPO (hf://ORG/REPO[@REVISION][/PATH])", uri);
    }
    size_t idn = strcspn(s1 + 1, "/@") + (size_t)(s1 + 1 - p);
    out->kind = strdup(kind);
    out->repo_id = dupn(p, idn);
    if (!out->kind || !out->repo_id) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto fail; }
    if (!repo_id_ok(out->repo_id)) {
        st = mio_err_set(MIO_ERR_INVALID_ARG, "'%s': '%s' is not a valid repo id (ORG/REPO: letters, digits, '-', '_', '.'; "
                         "no '--' or '..'; at most 96 characters)", uri, out->repo_id);
        goto fail;
    }
    p += idn;
    if (*p == '@') {
        p++;
        size_t rn;
        if (strncmp(p, "refs/pr/", 8) == 0 || strncmp(p, "refs/convert/", 13) == 0) {
            const char *after = p + (p[5] == 'p' ? 8 : 13);
            rn = (size_t)(after - p) + strcspn(after, "/");
        } else {
            rn = strcspn(p, "/");
        }
        out->revision = pct_decode(p, rn);
        out->rev_given = true;
        if (!out->revision || !revision_ok(out->revision)) {
            st = mio_err_set(MIO_ERR_INVALID_ARG, "'%s': bad revision after '@' (a branch, tag or commit; percent-encode a '/' as "
                             "%%2F)", uri);
            goto fail;
        }
        p += rn;
    } else {
        out->revision = strdup("main");
    }
    if (*p == '/') p++;
    out->path = pct_decode(p, strlen(p));
    if (!out->revision || !out->path) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto fail; }
    if (!repo_path_ok(out->path)) {
        st = mio_err_set(MIO_ERR_INVALID_ARG, "'%s': '%s' is not a path inside the repo (relative, no '.' or '..' parts, no "
                         "backslash or control characters)", uri, out->path);
        goto fail;
    }
    return MIO_OK;
fail:
    mio_hub_ref_free(out);
    return st;
}

const char *mio_hub_ref_name(const mio_hub_ref *r, char *buf, size_t n) {
    const char *pre = strcmp(r->kind, "dataset") == 0 ? "datasets/" : strcmp(r->kind, "space") == 0 ? "spaces/" : "";
    snprintf(buf, n, "hf://%s%s%s%s%s%s", pre, r->repo_id, r->rev_given ? "@" : "", r->rev_given ? r->revision : "",
             r->path[0] ? "/" : "", r->path);
    return buf;
}

const char *mio_hub_endpoint(void) {
    static _Thread_local char buf[512];
    const char *e = getenv("HF_ENDPOINT");
    if (!e || !*e) return "https://huggingface.co";
    size_t n = strlen(e);
    while (n && e[n - 1] == '/') n--;
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, e, n);
    buf[n] = 0;
    return buf;
}

static bool env_true(const char *name) {
    const char *v = getenv(name);
    if (!v) return false;
    return strcasecmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0;
}

bool mio_hub_offline(void) { return env_true("HF_HUB_OFFLINE"); }

static char *path_join(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface (heap). */
static char *hf_home(void) {
    const char *h = getenv("HF_HOME");
    if (h && *h) return strdup(h);
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && *x) return path_join(x, "huggingface");
    const char *home = getenv("HOME");
    return path_join(home && *home ? home : "/", ".cache/huggingface");
}

char *mio_hub_cache_dir(void) {
    const char *c = getenv("HF_HUB_CACHE");
    if (c && *c) return strdup(c);
    c = getenv("HUGGINGFACE_HUB_CACHE"); /* the older name huggingface_hub still reads */
    if (c && *c) return strdup(c);
    char *home = hf_home();
    if (!home) return NULL;
    char *d = path_join(home, "hub");
    free(home);
    return d;
}

char *mio_hub_token(void) {
    if (env_true("HF_HUB_DISABLE_IMPLICIT_TOKEN")) return NULL;
    const char *t = getenv("HF_TOKEN");
    char *buf = NULL;
    if (t && *t) {
        buf = strdup(t);
    } else {
        const char *tp = getenv("HF_TOKEN_PATH");
        char *path = NULL;
        if (tp && *tp) path = strdup(tp);
        else {
            char *home = hf_home();
            path = home ? path_join(home, "token") : NULL;
            free(home);
        }
        if (!path) return NULL;
        FILE *f = fopen(path, "rb");
        free(path);
        if (!f) return NULL;
        buf = calloc(1, 4097);
        size_t n = buf ? fread(buf, 1, 4096, f) : 0;
        fclose(f);
        if (buf) buf[n] = 0;
    }
    if (!buf) return NULL;
    /* trimmed; a token is one line of printable ASCII (anything else is not sent) */
    char *s = buf;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) n--;
    bool ok = n > 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e) ok = false;
    char *tok = ok ? dupn(s, n) : NULL;
    mio_hub_token_free(buf);
    return tok;
}

void mio_hub_token_free(char *t) {
    if (!t) return;
    volatile char *w = t;
    for (size_t i = 0; w[i]; i++) w[i] = 0;
    free(t);
}

static const char *kind_plural(const mio_hub_ref *r) {
    return strcmp(r->kind, "dataset") == 0 ? "datasets" : strcmp(r->kind, "space") == 0 ? "spaces" : "models";
}

char *mio_hub_repo_dir(const char *cache, const mio_hub_ref *r) {
    /* models--ORG--REPO: '/' becomes "--" (repo ids never hold "--") */
    size_t n = strlen(cache) + strlen(r->repo_id) * 2 + 32;
    char *s = malloc(n);
    if (!s) return NULL;
    int k = snprintf(s, n, "%s/%s--", cache, kind_plural(r));
    for (const char *p = r->repo_id; *p; p++) {
        if (*p == '/') { s[k++] = '-'; s[k++] = '-'; }
        else s[k++] = *p;
    }
    s[k] = 0;
    return s;
}

/* Python's urllib.parse.quote: unreserved bytes and those in safe stay. */
static size_t quote(char *dst, const char *src, const char *safe) {
    static const char hx[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
        if (isalnum(*p) || *p == '_' || *p == '.' || *p == '-' || *p == '~' || (*p && strchr(safe, *p))) {
            if (dst) dst[k] = (char)*p;
            k++;
        } else {
            if (dst) { dst[k] = '%'; dst[k + 1] = hx[*p >> 4]; dst[k + 2] = hx[*p & 15]; }
            k += 3;
        }
    }
    return k;
}

char *mio_hub_quote(const char *s, const char *safe) {
    char *d = malloc(quote(NULL, s, safe) + 1);
    if (d) d[quote(d, s, safe)] = 0;
    return d;
}

char *mio_hub_resolve_url(const mio_hub_ref *r, const char *rev) {
    if (!rev) rev = r->revision;
    const char *ep = mio_hub_endpoint();
    const char *pre = strcmp(r->kind, "dataset") == 0 ? "datasets/" : strcmp(r->kind, "space") == 0 ? "spaces/" : "";
    size_t n = strlen(ep) + strlen(pre) + strlen(r->repo_id) + quote(NULL, rev, "") + quote(NULL, r->path, "/") + 16;
    char *s = malloc(n);
    if (!s) return NULL;
    int k = snprintf(s, n, "%s/%s%s/resolve/", ep, pre, r->repo_id);
    k += (int)quote(s + k, rev, "");
    s[k++] = '/';
    k += (int)quote(s + k, r->path, "/");
    s[k] = 0;
    return s;
}

/* scheme://host[:port] of url: its length, 0 when url is not absolute http(s). */
static size_t origin_len(const char *url) {
    const char *p = strstr(url, "://");
    if (!p) return 0;
    p += 3;
    return (size_t)(p - url) + strcspn(p, "/?#");
}

bool mio_hub_same_origin(const char *a, const char *b) {
    size_t na = origin_len(a), nb = origin_len(b);
    return na && na == nb && strncasecmp(a, b, na) == 0;
}

mio_status mio_hub_error(const mio_hub_ref *r, const mio_http_resp *resp, bool had_token) {
    char name[1024];
    mio_hub_ref_name(r, name, sizeof name);
    const char *code = resp->error_code ? resp->error_code : "";
    const char *msg = resp->error_message;
    char extra[600] = "";
    if (msg) {
        /* the server's own words, bounded and printable only */
        size_t k = 0;
        k += (size_t)snprintf(extra, sizeof extra, " (the Hub says: ");
        for (const unsigned char *c = (const unsigned char *)msg; *c && k < sizeof extra - 3; c++)
            extra[k++] = (*c >= 0x20 && *c != 0x7f) ? (char)*c : '?';
        extra[k++] = ')';
        extra[k] = 0;
    }
    const char *kind = r->kind;
    if (strcmp(code, "RepoNotFound") == 0 || (resp->status == 401 && strcmp(code, "GatedRepo") != 0 && !had_token))
        return mio_err_set(MIO_ERR_NOT_FOUND,
                           "%s: %s repository '%s' not found on %s (HTTP %ld)%s: check the name; a private or gated repo "
                           "needs a token (HF_TOKEN, or `hf auth login`)%s",
                           name, kind, r->repo_id, mio_hub_endpoint(), resp->status, extra,
                           had_token ? " with access to it" : "");
    if (strcmp(code, "GatedRepo") == 0)
        return mio_err_set(MIO_ERR_AUTH, "%s: access to %s '%s' is restricted (gated, HTTP %ld)%s: accept its conditions "
                           "on the Hub and use a token of that account", name, kind, r->repo_id, resp->status, extra);
    if (strcmp(code, "RevisionNotFound") == 0)
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: revision '%s' not found in %s '%s' (HTTP %ld)%s", name, r->revision,
                           kind, r->repo_id, resp->status, extra);
    if (strcmp(code, "EntryNotFound") == 0)
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: file '%s' not found in %s '%s' at revision '%s' (HTTP %ld)%s", name,
                           r->path, kind, r->repo_id, r->revision, resp->status, extra);
    if (resp->status == 401 || resp->status == 403)
        return mio_err_set(MIO_ERR_AUTH, "%s: HTTP %ld: %s%s", name, resp->status,
                           had_token ? "the token was refused or has no access to this repo" : "this repo needs a token "
                           "(HF_TOKEN, or `hf auth login`)", extra);
    if (resp->status == 404)
        return mio_err_set(MIO_ERR_NOT_FOUND, "%s: not found (HTTP 404)%s", name, extra);
    return mio_err_set(MIO_ERR_NETWORK, "%s: the server answered HTTP %ld%s", name, resp->status, extra);
}

static bool is_commit(const char *s) {
    if (strlen(s) != 40) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
    return true;
}

char *mio_hub_cached_file(const mio_hub_ref *r) {
    char *cache = mio_hub_cache_dir();
    char *repo = cache ? mio_hub_repo_dir(cache, r) : NULL;
    free(cache);
    if (!repo) return NULL;
    char commit[41] = "";
    if (is_commit(r->revision)) {
        memcpy(commit, r->revision, 41);
    } else {
        size_t n = strlen(repo) + strlen(r->revision) + 8;
        char *ref = malloc(n);
        FILE *f = NULL;
        if (ref) {
            snprintf(ref, n, "%s/refs/%s", repo, r->revision);
            f = fopen(ref, "rb");
        }
        free(ref);
        if (f) {
            size_t got = fread(commit, 1, 40, f);
            fclose(f);
            commit[got] = 0;
        }
        if (!is_commit(commit)) { free(repo); return NULL; }
    }
    size_t n = strlen(repo) + strlen(r->path) + 64;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/snapshots/%s/%s", repo, commit, r->path);
    free(repo);
    struct stat sb;
    if (p && (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))) { free(p); p = NULL; }
    return p;
}
