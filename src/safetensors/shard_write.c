/* SPDX-License-Identifier: MIT */
/* shard_write.c — mio_st_save_sharded: a checkpoint as Hugging Face's
 * save_pretrained writes it. Tensors are split exactly like huggingface_hub's
 * split_state_dict_into_shards, every shard goes through the single-file writer
 * (mio_st_save_tmp, write.c) to a temp name, the index
 * (model.safetensors.index.json) is written last, and all are renamed into
 * place together. */
#include "st_internal.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Python json.dumps string (ensure_ascii=True). */
static void py_json_str(FILE *o, const char *s) {
    fputc('"', o);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        uint32_t cp;
        int len;
        if (c < 0x80) { cp = c; len = 1; }
        else if (c < 0xe0) { cp = (c & 0x1f) << 6 | (p[1] & 0x3f); len = 2; }
        else if (c < 0xf0) { cp = (c & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f); len = 3; }
        else { cp = (c & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 | (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f); len = 4; }
        p += len;
        switch (cp) {
        case '"': fputs("\\\"", o); continue;
        case '\\': fputs("\\\\", o); continue;
        case '\n': fputs("\\n", o); continue;
        case '\r': fputs("\\r", o); continue;
        case '\t': fputs("\\t", o); continue;
        case '\b': fputs("\\b", o); continue;
        case '\f': fputs("\\f", o); continue;
        default: break;
        }
        if (cp < 0x20 || (cp >= 0x7f && cp < 0x10000)) fprintf(o, "\\u%04x", cp);
        else if (cp >= 0x10000) {
            cp -= 0x10000;
            fprintf(o, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else fputc((int)cp, o);
    }
    fputc('"', o);
}

/* If n is exactly "model-DDDDD-of-DDDDD.safetensors" (five decimal digits each,
 * 32 bytes), set *of to the second number. Stricter than sscanf("%5u"), which
 * also takes signs, spaces and shorter numbers. */
static bool shard_name_count(const char *n, uint32_t *of) {
    static const char pat[] = "model-#####-of-#####.safetensors";
    if (strlen(n) != sizeof pat - 1) return false;
    uint32_t v = 0;
    for (size_t i = 0; i < sizeof pat - 1; i++) {
        if (pat[i] != '#') { if (n[i] != pat[i]) return false; continue; }
        if (n[i] < '0' || n[i] > '9') return false;
        if (i >= 15) v = v * 10 + (uint32_t)(n[i] - '0'); /* the second number starts at byte 15 */
    }
    *of = v;
    return true;
}

/* After a successful save, remove what an earlier save_sharded into the same
 * directory left that the new layout does not use (as save_pretrained does):
 * shard files of another shard count, the index when there is now a single
 * shard, model.safetensors when there are now several. Only these exact
 * names are touched. */
static void remove_stale(const char *dir, uint32_t ns) {
    /* The file of the other layout, which a loader would read instead of the
     * new checkpoint, is removed by name first: also when the directory cannot
     * be listed (opendir out of memory). */
    char p[4096];
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, ns > 1 ? "model.safetensors" : "model.safetensors.index.json") <
        sizeof p)
        unlink(p);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        uint32_t of;
        bool stale = false;
        if (shard_name_count(n, &of)) stale = of != ns || ns == 1;
        else if (strcmp(n, "model.safetensors.index.json") == 0) stale = ns == 1;
        else if (strcmp(n, "model.safetensors") == 0) stale = ns > 1;
        if (stale && (size_t)snprintf(p, sizeof p, "%s/%s", dir, n) < sizeof p) unlink(p);
    }
    closedir(d);
}

/* weight_map order: (name, entry) pairs sorted by name. The comparator reads
 * only its arguments, so concurrent saves are independent (no file-scope state). */
typedef struct name_ix { const char *name; size_t i; } name_ix;
static int cmp_name_ix(const void *a, const void *b) {
    return strcmp(((const name_ix *)a)->name, ((const name_ix *)b)->name);
}

mio_status mio_st_save_sharded(const char *dir, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                               uint64_t max_shard_bytes, uint32_t *n_shards) {
    return mio_st_save_sharded_src(dir, t, n, meta, n_meta, max_shard_bytes, NULL, n_shards);
}

static mio_status save_sharded(const char *dir, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                               uint64_t max_shard_bytes, const st_source *src, uint32_t *n_shards);

/* dir is created when missing (its parent must exist), as save_pretrained's
 * makedirs does, and removed again when the save fails. */
mio_status mio_st_save_sharded_src(const char *dir, const mio_st_entry *t, size_t n, const mio_st_meta *meta,
                                   size_t n_meta, uint64_t max_shard_bytes, const st_source *src, uint32_t *n_shards) {
    if (!dir) return mio_err_set(MIO_ERR_INVALID_ARG, "dir is NULL");
    struct stat sb;
    bool made = false;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0)
            return mio_err_set(MIO_ERR_IO, "cannot create the directory '%s': %s", dir, strerror(errno));
        made = true;
    } else if (!S_ISDIR(sb.st_mode)) {
        return mio_err_set(MIO_ERR_IO, "'%s' exists and is %s, not a directory", dir, mio_file_kind(sb.st_mode));
    }
    mio_status st = save_sharded(dir, t, n, meta, n_meta, max_shard_bytes, src, n_shards);
    if (st && made) rmdir(dir);
    return st;
}

static mio_status save_sharded(const char *dir, const mio_st_entry *t, size_t n, const mio_st_meta *meta, size_t n_meta,
                               uint64_t max_shard_bytes, const st_source *src, uint32_t *n_shards) {
    if (!dir) return mio_err_set(MIO_ERR_INVALID_ARG, "dir is NULL");
    if (n && !t) return mio_err_set(MIO_ERR_INVALID_ARG, "tensor list t is NULL (n %zu)", n);
    if (max_shard_bytes == 0) return mio_err_set(MIO_ERR_INVALID_ARG, "max_shard_bytes is 0");
    /* Validate the whole set once (names unique across shards, sizes) before writing anything. */
    mio_status st = mio_st_validate_entries(t, n, meta, n_meta, src != NULL);
    if (st) return st;
    /* huggingface_hub's split, in list order: a tensor over the limit gets a shard of its own,
     * appended at once; the open shard is appended when the next tensor would overflow it and
     * at the end. Shards are numbered in that append order. */
    uint32_t *shard_of = malloc((n ? n : 1) * sizeof *shard_of);
    uint32_t *final_id = malloc((n ? n : 1) * sizeof *final_id);
    if (!shard_of || !final_id) { free(shard_of); free(final_id); return mio_err_set(MIO_ERR_NOMEM, "out of memory"); }
    uint32_t groups = 0, ns = 0;
    int64_t cur = -1;
    uint64_t cur_size = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t sz = t[i].nbytes;
        total += sz;
        if (sz > max_shard_bytes) {
            shard_of[i] = groups;
            final_id[groups++] = ns++;
            continue;
        }
        if (cur >= 0 && cur_size + sz > max_shard_bytes) { final_id[cur] = ns++; cur = -1; }
        if (cur < 0) { cur = groups++; cur_size = 0; }
        shard_of[i] = (uint32_t)cur;
        cur_size += sz;
    }
    if (cur >= 0) final_id[cur] = ns++;
    for (size_t i = 0; i < n; i++) shard_of[i] = final_id[shard_of[i]];
    free(final_id);
    if (ns == 0) ns = 1;
    /* Every file goes to a temp name first (shards, then the index) and is renamed into
     * place only once all of them are written and fsynced, the index last: a failure
     * before the renames (a full disk, a bad write) leaves the checkpoint that was there
     * untouched and no temp file behind. (Renaming each shard as soon as it was written
     * put new shards under the old index, which then no longer opened.) */
    size_t dl = strlen(dir);
    char *path = malloc(dl + 64);
    mio_st_entry *sub = malloc((n ? n : 1) * sizeof *sub);
    size_t *sub_index = malloc((n ? n : 1) * sizeof *sub_index); /* sub[k] is t[sub_index[k]] */
    mio_atomic_file *af = malloc(((size_t)ns + 1) * sizeof *af); /* ns shards + the index */
    size_t *first = calloc((size_t)ns + 1, sizeof *first);
    if (!path || !sub || !sub_index || !af || !first) {
        free(path); free(sub); free(sub_index); free(af); free(first); free(shard_of);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    /* Group the tensors by shard, keeping list order within a shard (a stable counting
     * sort: one pass, however many shards there are). */
    for (size_t i = 0; i < n; i++) first[shard_of[i] + 1]++;
    for (uint32_t s = 0; s < ns; s++) first[s + 1] += first[s];
    {
        size_t *fill = malloc(((size_t)ns + 1) * sizeof *fill);
        if (!fill) {
            free(path); free(sub); free(sub_index); free(af); free(first); free(shard_of);
            return mio_err_set(MIO_ERR_NOMEM, "out of memory");
        }
        memcpy(fill, first, ((size_t)ns + 1) * sizeof *fill);
        for (size_t i = 0; i < n; i++) {
            size_t k = fill[shard_of[i]]++;
            sub[k] = t[i];
            sub_index[k] = i;
        }
        free(fill);
    }
    uint32_t n_tmp = 0; /* af[0..n_tmp) hold closed temp files, not yet renamed */
    for (uint32_t s = 0; s < ns && !st; s++) {
        size_t m = first[s + 1] - first[s];
        if (ns == 1) snprintf(path, dl + 64, "%s/model.safetensors", dir);
        else snprintf(path, dl + 64, "%s/model-%05u-of-%05u.safetensors", dir, s + 1, ns);
        st_source shard_src;
        if (src) shard_src = (st_source){src->fill, src->user, sub_index + first[s]};
        st = mio_st_save_tmp(path, sub + first[s], m, meta, n_meta, src ? &shard_src : NULL, &af[n_tmp]);
        if (!st) n_tmp++;
    }
    if (!st && ns > 1) {
        /* The index, as transformers writes it: json.dumps(indent=2, sort_keys=True) + "\n". */
        name_ix *ord = malloc((n ? n : 1) * sizeof *ord);
        char *buf = NULL;
        size_t blen = 0;
        FILE *o = open_memstream(&buf, &blen);
        if (!ord || !o) st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
        else {
            for (size_t i = 0; i < n; i++) ord[i] = (name_ix){t[i].name, i};
            qsort(ord, n, sizeof *ord, cmp_name_ix);
            fprintf(o, "{\n  \"metadata\": {\n    \"total_size\": %llu\n  },\n  \"weight_map\": {", (unsigned long long)total);
            for (size_t k = 0; k < n; k++) {
                fputs(k ? ",\n    " : "\n    ", o);
                py_json_str(o, ord[k].name);
                fprintf(o, ": \"model-%05u-of-%05u.safetensors\"", shard_of[ord[k].i] + 1, ns);
            }
            fputs(n ? "\n  }\n}\n" : "}\n}\n", o);
        }
        if (o && fclose(o) != 0 && !st) st = mio_err_set(MIO_ERR_NOMEM, "out of memory building the index");
        if (!st) {
            snprintf(path, dl + 64, "%s/model.safetensors.index.json", dir);
            st = mio_atomic_open(path, &af[n_tmp]);
            if (!st) {
                st = mio_fd_write_all(af[n_tmp].fd, buf, blen, path);
                if (st) mio_atomic_abort(&af[n_tmp]);
                else st = mio_atomic_close_tmp(&af[n_tmp]); /* aborts on failure */
                if (!st) n_tmp++;
            }
        }
        free(buf);
        free(ord);
    }
    /* Shards first, the index last, renamed back to back with SIGINT/SIGTERM held
     * (an interrupted save leaves the old checkpoint or the new one, never new shards
     * under the old index); a cancel found before the first rename abandons them all.
     * Renames do not fail on a healthy file system; if one does, the rest are
     * abandoned (temp files removed). */
    if (!st) st = mio_atomic_rename_all(af, n_tmp);
    else
        for (uint32_t k = 0; k < n_tmp; k++) mio_atomic_abort(&af[k]);
    free(af);
    if (!st) remove_stale(dir, ns); /* only after success: a failed save deletes nothing */
    free(path);
    free(sub);
    free(sub_index);
    free(first);
    free(shard_of);
    if (!st && n_shards) *n_shards = ns;
    return st;
}
