/* SPDX-License-Identifier: MIT */
/* hub_convert.c — mio_hub_convert: a checkpoint on the Hugging Face Hub to GGUF,
 * as `convert_hf_to_gguf.py --remote ORG/REPO` does: the conversion of the
 * repo's snapshot directory with general.name the repo id, and without an
 * output path the file ORG-REPO-{ftype}.gguf in the current directory.
 * Only what the conversion reads is fetched: the configuration, tokenizer and
 * card files of the repo's top level (and the sentence-transformers pooling
 * config), then the safetensors the index names (or model.safetensors) —
 * never original/, *.bin, *.pth, *.gguf or another format's files. Both steps
 * pin the commit the first resolved, so a branch that moves in between cannot
 * mix two commits. By default the weights go through huggingface_hub's cache
 * (mio_hub_pull: resumable, verified, reused by Python and by the next
 * conversion); with MIO_HUB_STREAM they are read with range requests and
 * nothing of them is stored (docs/HUB.md says why the cache is the default). */
#include "hf_internal.h"

#include "core/core.h"
#include "net/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* The files the converter reads besides the weights. */
static bool wanted_meta(void *user, const char *path) {
    (void)user;
    const char *slash = strchr(path, '/');
    if (!slash)
        return ends_with(path, ".json") || ends_with(path, ".txt") || ends_with(path, ".jinja") ||
               strcmp(path, "tokenizer.model") == 0 || strcmp(path, "README.md") == 0;
    /* one folder down: the extra chat templates, a sentence-transformers pooling module's config */
    if (strchr(slash + 1, '/')) return false;
    if (strncmp(path, "additional_chat_templates/", 26) == 0) return ends_with(path, ".jinja");
    return strcmp(slash + 1, "config.json") == 0 && memmem(path, (size_t)(slash - path), "Pooling", 7) != NULL;
}

typedef struct name_set {
    char **names;
    size_t n;
} name_set;

static bool wanted_weights(void *user, const char *path) {
    const name_set *s = user;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], path) == 0) return true;
    return false;
}

/* The weight files: the shards model.safetensors.index.json names (each once),
 * else model.safetensors. Names are checked before they become paths. */
static mio_status weight_files(const char *snap, name_set *s) {
    size_t n = strlen(snap) + 40;
    char *ipath = malloc(n);
    if (!ipath) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    snprintf(ipath, n, "%s/model.safetensors.index.json", snap);
    mio_region r;
    mio_status st = mio_region_read(ipath, &r);
    free(ipath);
    if (st == MIO_ERR_NOT_FOUND) {
        s->names = malloc(sizeof *s->names);
        if (!s->names || !(s->names[0] = strdup("model.safetensors"))) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        s->n = 1;
        return MIO_OK;
    }
    if (st) return st;
    mio_json *root = mio_json_parse((const char *)r.data, r.size, NULL);
    mio_region_free(&r);
    mio_json *wm = root ? mio_json_get(root, "weight_map") : NULL;
    if (!wm || !mio_json_is_object(wm)) {
        mio_json_free(root);
        return mio_err_set(MIO_ERR_INVALID_METADATA, "model.safetensors.index.json: no \"weight_map\" object");
    }
    size_t cap = (size_t)mio_json_size(wm);
    s->names = calloc(cap ? cap : 1, sizeof *s->names);
    st = s->names ? MIO_OK : mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (mio_json *e = wm->child; e && !st; e = e->next) {
        if (!mio_json_is_cstring(e) || !e->valuestring[0] || strchr(e->valuestring, '/') ||
            strcmp(e->valuestring, "..") == 0 || strcmp(e->valuestring, ".") == 0) {
            st = mio_err_set(MIO_ERR_INVALID_METADATA,
                             "model.safetensors.index.json: weight_map[\"%s\"] must be a file name in the repo", e->string);
            break;
        }
        if (wanted_weights(s, e->valuestring)) continue;
        if (!(s->names[s->n] = strdup(e->valuestring))) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        else s->n++;
    }
    mio_json_free(root);
    return st;
}

mio_status mio_hub_convert(const char *uri, const char *out, const mio_hf_params *p, uint32_t flags, char **written) {
    if (written) *written = NULL;
    if (!uri) return mio_err_set(MIO_ERR_INVALID_ARG, "uri is NULL");
    if (flags & ~MIO_HUB_STREAM) return mio_err_set(MIO_ERR_INVALID_ARG, "unknown flags 0x%x", flags);
    mio_hub_ref ref;
    mio_status st = mio_hub_parse(uri, &ref);
    if (st) return st;
    if (ref.path[0]) {
        mio_hub_ref_free(&ref);
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s names a file; convert the repo: hf://ORG/REPO[@REVISION]", uri);
    }
    mio_hf_params hp;
    mio_hf_default_params(&hp);
    if (p) {
        st = mio_abi_params_merge(&hp, sizeof hp, p, sizeof hp, "mio_hf_params", "mio_hf_default_params");
        if (st) { mio_hub_ref_free(&ref); return st; }
    }
    mio_hub_pull_params pp;
    mio_hub_pull_default_params(&pp);
    pp.progress = hp.progress;
    pp.progress_user = hp.progress_user;
    char *snap = NULL, *pinned = NULL, *base = NULL;
    name_set ws = {0};
    /* 1. configuration, tokenizer, card, index */
    st = mio_hub_pull_want(uri, &pp, wanted_meta, NULL, &snap);
    if (st) goto done;
    const char *commit = strrchr(snap, '/') ? strrchr(snap, '/') + 1 : snap;
    const char *pre = strcmp(ref.kind, "dataset") == 0 ? "datasets/" : strcmp(ref.kind, "space") == 0 ? "spaces/" : "";
    size_t n = strlen(ref.repo_id) + strlen(commit) + 32;
    pinned = malloc(n);
    base = malloc(n + 1);
    if (!pinned || !base) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
    snprintf(pinned, n, "hf://%s%s@%s", pre, ref.repo_id, commit);
    snprintf(base, n + 1, "%s/", pinned);
    /* 2. the weights, at the same commit */
    if ((st = weight_files(snap, &ws))) goto done;
    if (!(flags & MIO_HUB_STREAM)) {
        char *snap2 = NULL;
        if (mio_hub_offline()) {
            /* offline: the cache must hold them already (nothing to pull) */
            for (size_t i = 0; i < ws.n && !st; i++) {
                char *f = mio_strfmt("%s/%s", snap, ws.names[i]);
                if (!f) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
                else if (access(f, R_OK) != 0)
                    st = mio_err_set(MIO_ERR_NOT_FOUND, "%s: offline mode (HF_HUB_OFFLINE=1) and %s is not in the cache "
                                     "(%s); unset HF_HUB_OFFLINE or pull it first (mio-pull)", uri, ws.names[i], snap);
                free(f);
            }
        } else {
            st = mio_hub_pull_want(pinned, &pp, wanted_weights, &ws, &snap2);
            free(snap2);
        }
        if (st) goto done;
    }
    /* 3. the conversion: general.name the repo id unless --model-name says otherwise */
    if (!hp.model_name) hp.model_name = ref.repo_id;
    char *dflt = NULL;
    if (!out) {
        /* the reference's "./ORG-REPO-{ftype}.gguf" */
        dflt = malloc(strlen(ref.repo_id) + 16);
        if (!dflt) { st = mio_err_set(MIO_ERR_NOMEM, "out of memory"); goto done; }
        size_t k = 0;
        for (const char *c = ref.repo_id; *c; c++) dflt[k++] = *c == '/' ? '-' : *c;
        snprintf(dflt + k, 16, "-{ftype}.gguf");
        out = dflt;
    }
    st = mio_hf_convert_from(snap, (flags & MIO_HUB_STREAM) ? base : NULL, (const char *const *)ws.names, ws.n, out, &hp,
                             written);
    free(dflt);
done:
    for (size_t i = 0; i < ws.n; i++) free(ws.names[i]);
    free(ws.names);
    free(snap);
    free(pinned);
    free(base);
    mio_hub_ref_free(&ref);
    return st;
}
