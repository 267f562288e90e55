/* SPDX-License-Identifier: MIT */
/* net.h — remote files: the HTTP client over libcurl (http.c), the Hugging Face
 * Hub's rules (hub.c: hf:// URIs, endpoint, token, revisions, error codes,
 * offline mode, the cache layout) and remote files read with bounded range
 * requests (remote.c). Everything read from the network is hostile input: sizes
 * are checked against what was asked, bodies are capped, headers are bounded.
 * Without libcurl (MIO_HAVE_CURL undefined) every request fails with
 * MIO_ERR_UNSUPPORTED "built without HTTP support". docs/HUB.md. */
#ifndef MIO_NET_H
#define MIO_NET_H

#include "core/core.h"

/* 1 for "hf://...", "http://..." and "https://..." (ASCII case-insensitive scheme). */
bool mio_net_is_remote(const char *path);

/* ---------------------------------------------------------------- http.c */

/* A response's status and the headers the Hub rules read (NULL when absent).
 * Header values are capped at 8 KiB each; more is an error. */
typedef struct mio_http_resp {
    long status;
    char *location, *etag, *linked_etag, *repo_commit, *error_code, *error_message, *content_type, *link;
    bool has_linked_size, has_range, has_length;
    uint64_t linked_size;
    uint64_t range_first, range_last, range_total; /* Content-Range: bytes F-L/T (T = UINT64_MAX for '*') */
    uint64_t content_length;
    uint64_t body_bytes; /* body bytes received (2xx only; error bodies are dropped) */
} mio_http_resp;

/* The body sink: called with each piece of a 2xx body; a failure status (with
 * its message set) stops the transfer and is what mio_http_do returns. */
typedef mio_status (*mio_http_sink)(void *user, const void *p, size_t n);

typedef struct mio_http_req {
    const char *url;
    bool head;                 /* HEAD instead of GET */
    const char *bearer;        /* token for "Authorization: Bearer", or NULL (never logged) */
    bool has_range;            /* Range: bytes=first-last, or bytes=first- when last is UINT64_MAX */
    uint64_t range_first, range_last;
    uint64_t max_body;         /* a 2xx body longer than this stops the transfer (0: no body wanted) */
    mio_http_sink sink;
    void *user;
    const char *what;          /* names the request in messages ("hf://org/repo/x.gguf") */
} mio_http_req;

/* One request, no redirect followed (the caller decides where a Location goes
 * and whether the token goes with it). MIO_OK whenever a response arrived,
 * whatever its status; MIO_ERR_NETWORK when none did (connection refused,
 * timeout, a stalled body, a dropped connection: the message names the
 * request and curl's reason); the sink's own status when it stopped the body.
 * On a failure r->status still holds the status received (0: none). A 200
 * answer to a range starting past byte 0 delivers no byte (MIO_ERR_NETWORK,
 * status 200): the caller may start again from byte 0.
 * Timeouts: HF_HUB_ETAG_TIMEOUT (connect, default 10 s) and
 * HF_HUB_DOWNLOAD_TIMEOUT (no byte for that long stops a body, default 10 s). */
mio_status mio_http_do(const mio_http_req *q, mio_http_resp *r);
void mio_http_resp_free(mio_http_resp *r);
/* What the Hub said on the way through redirects: the first X-Repo-Commit,
 * X-Linked-Etag (normalized: no W/, no quotes) and X-Linked-Size seen (heap
 * strings or NULL; free with mio_http_hops_free). */
typedef struct mio_http_hops {
    char *commit, *linked_etag;
    bool has_linked_size;
    uint64_t linked_size;
} mio_http_hops;
void mio_http_hops_free(mio_http_hops *h);

/* mio_http_do following redirects by hand (at most 10): a Location on the same
 * origin (scheme, host, port) keeps q->bearer, one on another origin (an LFS
 * file's CDN) drops it for good. *r is the last response; *final_url (heap,
 * may be NULL when not wanted) the URL it came from, *final_auth whether the
 * token went there; *hops (may be NULL) what the Hub's answers said. */
mio_status mio_http_do_follow(const mio_http_req *q, mio_http_resp *r, char **final_url, bool *final_auth,
                              mio_http_hops *hops);
/* 1 when the library was built with libcurl. */
bool mio_http_available(void);

/* ---------------------------------------------------------------- hub.c */

/* An hf:// URI: hf://[datasets/|spaces/]ORG/REPO[@REVISION][/PATH]. */
typedef struct mio_hub_ref {
    char *kind;      /* "model", "dataset" or "space" */
    char *repo_id;   /* "ORG/REPO" */
    char *revision;  /* "main" unless given */
    char *path;      /* the file in the repo ("" for the whole repo) */
    bool rev_given;
} mio_hub_ref;

mio_status mio_hub_parse(const char *uri, mio_hub_ref *out);
void mio_hub_ref_free(mio_hub_ref *r);
/* "hf://ORG/REPO@REV/PATH" for messages, in buf. */
const char *mio_hub_ref_name(const mio_hub_ref *r, char *buf, size_t n);

/* HF_ENDPOINT without a trailing '/', else "https://huggingface.co" (static or
 * environment storage: do not free). */
const char *mio_hub_endpoint(void);
/* HF_TOKEN, else the token file (HF_TOKEN_PATH, else $HF_HOME/token, else
 * ~/.cache/huggingface/token), trimmed; NULL when none. Heap copy: free with
 * mio_hub_token_free (which wipes it). */
char *mio_hub_token(void);
void mio_hub_token_free(char *t);
/* HF_HUB_OFFLINE set to a true value ("1", "ON", "YES", "TRUE"). */
bool mio_hub_offline(void);
/* The cache root: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub (heap). */
char *mio_hub_cache_dir(void);
/* "<cache>/models--ORG--REPO" (heap). */
char *mio_hub_repo_dir(const char *cache, const mio_hub_ref *r);
/* Python's urllib.parse.quote(s, safe) (heap). */
char *mio_hub_quote(const char *s, const char *safe);
/* The resolve URL of r (at revision rev, NULL for r->revision), heap. */
char *mio_hub_resolve_url(const mio_hub_ref *r, const char *rev);
/* 1 if url has the same scheme, host and port as the endpoint (the token goes
 * only there). */
bool mio_hub_same_origin(const char *a, const char *b);
/* Turn a Hub error response into a message naming the repo, revision or file:
 * RepoNotFound (also the Hub's 401 for a repo it hides) / RevisionNotFound /
 * EntryNotFound -> MIO_ERR_NOT_FOUND, GatedRepo and other 401 / 403 ->
 * MIO_ERR_AUTH, anything else -> MIO_ERR_NETWORK. */
mio_status mio_hub_error(const mio_hub_ref *r, const mio_http_resp *resp, bool had_token);
/* The file's path in the local cache when the revision resolves there (a
 * commit hash, or refs/REV holding one) and the snapshot has the file; NULL
 * otherwise. Reads only the file system. */
char *mio_hub_cached_file(const mio_hub_ref *r);

/* ---------------------------------------------------------------- pull.c */

/* mio_hub_pull with the files chosen by want(user, path) instead of the
 * params' patterns (a URI naming a file still pulls that file only). */
typedef bool (*mio_hub_want_fn)(void *user, const char *path);
mio_status mio_hub_pull_want(const char *uri, const mio_hub_pull_params *p, mio_hub_want_fn want, void *user, char **out);

/* The readers' whole-file open of a remote path (no MIO_OPEN_HEADER): an
 * hf:// file is pulled into the cache (mio_hub_pull; nothing fetched when it is
 * there) and *local is its path there (heap); an http(s):// URL is refused
 * (there is no cache for it). */
mio_status mio_hub_local_copy(const char *uri, char **local);

/* ---------------------------------------------------------------- remote.c */

/* A remote file: an hf:// or http(s):// URI resolved once (redirects followed,
 * the token kept to the Hub's origin), its size known, read with range
 * requests. In offline mode an hf:// file is its cached copy, read locally.
 * Opens of the same URI in one process share one object and its header bytes. */
typedef struct mio_remote mio_remote;

mio_status mio_remote_open(const char *uri, mio_remote **out);
void mio_remote_close(mio_remote *r);
uint64_t mio_remote_size(const mio_remote *r);
/* The commit the Hub resolved the file at (X-Repo-Commit), or NULL. */
const char *mio_remote_commit(const mio_remote *r);
/* The first min(want, size) bytes, fetched once and kept (only the missing
 * tail is requested when want grows); *data stays valid until the next call
 * on r or its close. */
mio_status mio_remote_prefix(mio_remote *r, size_t want, const uint8_t **data, size_t *have);
/* Bytes [pos, pos + len) of the file into buf (one range request). */
mio_status mio_remote_read(mio_remote *r, uint64_t pos, void *buf, size_t len, const char *what);
/* Bytes transferred for remote files since the process started (bodies only). */
uint64_t mio_remote_bytes_received(void);

/* The most header bytes a remote open fetches before giving up. */
#define MIO_REMOTE_HEADER_MAX ((size_t)256 << 20)
/* The step in which a GGUF header's prefix grows. */
#define MIO_REMOTE_STEP ((size_t)1 << 20)

#endif
