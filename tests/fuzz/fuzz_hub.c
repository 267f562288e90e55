/* SPDX-License-Identifier: MIT */
/* fuzz_hub.c — libFuzzer target: hf:// URIs (src/net/hub.c) on any bytes. An
 * accepted URI must give a repo id of ORG/REPO, a revision and a path that
 * cannot leave the cache when they become file names (no absolute path, no
 * "." or ".." part, no backslash or control byte), and a resolve URL and a
 * cache directory built from them; a refused one must say why. */
#include "net/net.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void path_safe(const char *p, int allow_empty) {
    if (!*p) {
        if (!allow_empty) abort();
        return;
    }
    if (p[0] == '/') abort();
    for (const char *seg = p; seg;) {
        const char *e = strchr(seg, '/');
        size_t n = e ? (size_t)(e - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) abort();
        seg = e ? e + 1 : NULL;
    }
    for (const unsigned char *c = (const unsigned char *)p; *c; c++)
        if (*c < 0x20 || *c == 0x7f || *c == '\\') abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *uri = malloc(size + 6);
    if (!uri) return 0;
    /* half the inputs as given, half behind "hf://" */
    size_t k = 0;
    if (size && (data[0] & 1)) {
        memcpy(uri, "hf://", 5);
        k = 5;
    }
    memcpy(uri + k, data, size);
    uri[k + size] = 0;
    mio_hub_ref r;
    mio_status st = mio_hub_parse(uri, &r);
    if (st != MIO_OK) {
        if (!mio_last_error()[0]) abort();
        free(uri);
        return 0;
    }
    if (!strchr(r.repo_id, '/') || strstr(r.repo_id, "..") || strstr(r.repo_id, "--")) abort();
    path_safe(r.path, 1);
    if (!r.revision[0] || r.revision[0] == '/' || strstr(r.revision, "..")) abort();
    char name[512];
    mio_hub_ref_name(&r, name, sizeof name);
    char *url = mio_hub_resolve_url(&r, NULL);
    char *dir = mio_hub_repo_dir("/cache", &r);
    if (!url || !dir || strncmp(dir, "/cache/", 7) != 0 || strchr(dir + 7, '/')) abort();
    free(url);
    free(dir);
    mio_hub_ref_free(&r);
    free(uri);
    return 0;
}
