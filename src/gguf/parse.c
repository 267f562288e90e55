/* SPDX-License-Identifier: MIT */
/* parse.c — GGUF v2/v3 header parsing and validation.
 * Invariants: every length or count read from the file is checked against the
 * bytes that remain before it sizes an allocation or a loop; nothing is copied
 * (keys, values, names and tensor data stay views into the region); a failure
 * frees everything and leaves a message naming the entry and the numbers. */
#include "gguf_internal.h"
#include "net/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_KV_BYTES 14u     /* key len (8) + 1 key byte + type (4) + 1 value byte */
#define MIN_TENSOR_BYTES 33u /* name len (8) + 1 name byte + n_dims (4) + ne (8) + type (4) + offset (8) */

const char *mio_gguf_type_name(int type) {
    static const char *names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool",
                                  "string", "array", "u64", "i64", "f64"};
    return (type >= 0 && type <= MIO_GGUF_F64) ? names[type] : NULL;
}

mio_status mio_gguf_skip_value(const uint8_t *p, const uint8_t *end, int type, uint32_t depth, uint64_t *len,
                               const char *what, gguf_str_index *idx) {
    size_t rem = (size_t)(end - p);
    size_t fs = gguf_type_size(type);
    if (fs) {
        if (rem < fs) return mio_err_set(MIO_ERR_TRUNCATED, "%s: %s value needs %zu bytes, %zu remain", what,
                                         mio_gguf_type_name(type), fs, rem);
        if (type == MIO_GGUF_BOOL && p[0] > 1)
            return mio_err_set(MIO_ERR_INVALID_KV, "%s: bool byte is %u (must be 0 or 1)", what, p[0]);
        *len = fs;
        return MIO_OK;
    }
    if (type == MIO_GGUF_STRING) {
        if (rem < 8) return mio_err_set(MIO_ERR_TRUNCATED, "%s: string length needs 8 bytes, %zu remain", what, rem);
        uint64_t n = ld64(p);
        if (n > MIO_GGUF_MAX_LEN)
            return mio_err_set(MIO_ERR_LIMIT, "%s: string length %llu exceeds the cap of %llu bytes", what,
                               (unsigned long long)n, (unsigned long long)MIO_GGUF_MAX_LEN);
        if (n > rem - 8)
            return mio_err_set(MIO_ERR_TRUNCATED, "%s: string of %llu bytes runs past the end (%zu bytes remain)", what,
                               (unsigned long long)n, rem - 8);
        *len = 8 + n;
        return MIO_OK;
    }
    if (type == MIO_GGUF_ARRAY) {
        if (depth >= MIO_GGUF_MAX_ARRAY_DEPTH)
            return mio_err_set(MIO_ERR_INVALID_KV, "%s: arrays nested deeper than %d levels", what, MIO_GGUF_MAX_ARRAY_DEPTH);
        if (rem < 12) return mio_err_set(MIO_ERR_TRUNCATED, "%s: array header needs 12 bytes, %zu remain", what, rem);
        int32_t et = (int32_t)ld32(p);
        uint64_t n = ld64(p + 4);
        if (!mio_gguf_type_name(et))
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: unknown array element type %d", what, et);
        if (n > MIO_GGUF_MAX_LEN)
            return mio_err_set(MIO_ERR_LIMIT, "%s: array count %llu exceeds the cap of %llu elements", what,
                               (unsigned long long)n, (unsigned long long)MIO_GGUF_MAX_LEN);
        const uint8_t *q = p + 12;
        size_t erem = rem - 12;
        size_t es = gguf_type_size(et);
        if (es) {
            if (n > erem / es)
                return mio_err_set(MIO_ERR_TRUNCATED, "%s: array of %llu %s (%llu bytes) runs past the end (%zu bytes remain)",
                                   what, (unsigned long long)n, mio_gguf_type_name(et), (unsigned long long)n * es, erem);
            if (et == MIO_GGUF_BOOL) {
                for (uint64_t k = 0; k < n; k++)
                    if (q[k] > 1)
                        return mio_err_set(MIO_ERR_INVALID_KV, "%s: element %llu: bool byte is %u (must be 0 or 1)", what,
                                           (unsigned long long)k, q[k]);
            }
            *len = 12 + n * es;
            return MIO_OK;
        }
        /* Variable-size elements: every element takes at least 8 (string) or 12 (array) bytes. */
        uint64_t min_el = et == MIO_GGUF_STRING ? 8 : 12;
        if (n > erem / min_el)
            return mio_err_set(MIO_ERR_TRUNCATED, "%s: array claims %llu %s elements but only %zu bytes remain", what,
                               (unsigned long long)n, mio_gguf_type_name(et), erem);
        if (et == MIO_GGUF_STRING) {
            /* Hot loop for vocabularies: inline the string check, and record each
             * element's offset (32-bit when the bytes allow) for O(1) access. */
            uint32_t *o32 = NULL;
            uint64_t *o64 = NULL;
            if (idx) {
                /* mem_big_*: warm, prefaulted blocks reused across opens (vocabularies are large) */
                bool narrow = erem <= UINT32_MAX;
                size_t bytes = (size_t)(n ? n : 1) * (narrow ? 4 : 8);
                void *o = mio_mem_big_calloc(bytes);
                if (!o) return mio_err_set(MIO_ERR_NOMEM, "%s: cannot allocate the index of %llu strings", what,
                                           (unsigned long long)n);
                *idx = (gguf_str_index){o, bytes, narrow};
                if (narrow) o32 = o; else o64 = o;
            }
            const uint8_t *base = q;
            for (uint64_t k = 0; k < n; k++) {
                if (o32) o32[k] = (uint32_t)(q - base);
                else if (o64) o64[k] = (uint64_t)(q - base);
                size_t r = (size_t)(end - q);
                if (r < 8) return mio_err_set(MIO_ERR_TRUNCATED, "%s: element %llu: string length needs 8 bytes, %zu remain",
                                              what, (unsigned long long)k, r);
                uint64_t sl = ld64(q);
                if (sl > MIO_GGUF_MAX_LEN)
                    return mio_err_set(MIO_ERR_LIMIT, "%s: element %llu: string length %llu exceeds the cap of %llu bytes",
                                       what, (unsigned long long)k, (unsigned long long)sl,
                                       (unsigned long long)MIO_GGUF_MAX_LEN);
                if (sl > r - 8)
                    return mio_err_set(MIO_ERR_TRUNCATED, "%s: element %llu: string of %llu bytes runs past the end (%zu bytes remain)",
                                       what, (unsigned long long)k, (unsigned long long)sl, r - 8);
                q += 8 + sl;
            }
        } else {
            for (uint64_t k = 0; k < n; k++) {
                uint64_t l;
                char sub[200];
                snprintf(sub, sizeof sub, "%s[%llu]", what, (unsigned long long)k);
                mio_status st = mio_gguf_skip_value(q, end, et, depth + 1, &l, sub, NULL);
                if (st) return st;
                q += l;
            }
        }
        *len = (uint64_t)(q - p);
        return MIO_OK;
    }
    return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "%s: unknown value type %d", what, type);
}

mio_str mio_gguf_kv_key_at(const void *f, uint64_t i) { return ((const mio_gguf_file *)f)->kv[i].key; }
mio_str mio_gguf_tensor_name_at(const void *f, uint64_t i) { return ((const mio_gguf_file *)f)->tensors[i].name; }

void mio_gguf_file_free(mio_gguf_file *f) {
    if (!f) return;
    for (uint64_t i = 0; i < f->n_kv; i++) mio_mem_big_free(f->kv[i].str_index.p, f->kv[i].str_index.bytes);
    free(f->kv);
    free(f->tensors);
    mio_namehash_free(&f->kv_hash);
    mio_namehash_free(&f->t_hash);
    for (uint32_t p = 0; p < f->n_parts; p++) {
        mio_region_free(&f->parts[p].region);
        mio_remote_close(f->parts[p].remote);
    }
    free(f->parts);
    free(f);
}

mio_status mio_gguf_index_tensors(mio_gguf_file *f) {
    mio_namehash_free(&f->t_hash);
    mio_status st = mio_namehash_init(&f->t_hash, f->n_tensors);
    if (st) return st;
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        uint64_t dup;
        const mio_str *nm = &f->tensors[i].name;
        if (!mio_namehash_insert(&f->t_hash, nm->ptr, nm->len, i, mio_gguf_tensor_name_at, f, &dup)) {
            char b[160];
            return mio_err_set(MIO_ERR_DUPLICATE_TENSOR, "tensor #%llu '%s' duplicates the name of tensor #%llu",
                               (unsigned long long)i, mio_esc_bytes(b, sizeof b, nm->ptr, nm->len), (unsigned long long)dup);
        }
    }
    return MIO_OK;
}

/* Count "EF BF BD" (U+FFFD) sequences: their presence in a file that fails to
 * parse points at a text-mode transfer that replaced invalid UTF-8. */
static uint64_t count_replacement_chars(const uint8_t *p, size_t n) {
    uint64_t c = 0;
    for (const uint8_t *e = p + n; p + 2 < e;) {
        const uint8_t *q = memchr(p, 0xef, (size_t)(e - p - 2));
        if (!q) break;
        if (q[1] == 0xbf && q[2] == 0xbd) { c++; p = q + 3; } else p = q + 1;
    }
    return c;
}

typedef struct cursor {
    const uint8_t *base, *p, *end;
} cursor;

static size_t cur_rem(const cursor *c) { return (size_t)(c->end - c->p); }
static uint64_t cur_off(const cursor *c) { return (uint64_t)(c->p - c->base); }

/* " (3.00 kB)", " (33.55 MB)", " (17.18 GB)": the decimal unit that keeps the
 * value at 1.00 or more, so a shortfall never reads "0.00 GB"; "" below 1000
 * bytes, where the exact count the message prints already says it all. */
static const char *human_size(char *buf, size_t n, uint64_t bytes) {
    static const struct { double scale; const char *unit; } u[] = {{1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
    buf[0] = 0;
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
        if ((double)bytes >= u[k].scale) {
            mio_snprintf_c(buf, n, " (%.2f %s)", (double)bytes / u[k].scale, u[k].unit);
            break;
        }
    return buf;
}

/* Parse the header in base[0..size) of a file of file_size bytes (size <
 * file_size: a prefix fetched from a remote file; tensors past it get a NULL
 * data pointer). *cut: the prefix ended inside the header (more bytes may parse). */
static mio_status parse_header(mio_gguf_file *f, const uint8_t *base, size_t size, uint64_t file_size, bool *cut) {
    cursor c = {base, base, base + size};
    *cut = false;
    if (size < file_size && size < 24) { *cut = true; return mio_err_set(MIO_ERR_TRUNCATED, "header cut"); }
    if (size < 4 || memcmp(base, "GGUF", 4) != 0) {
        char b[40];
        return mio_err_set(MIO_ERR_BAD_MAGIC, "not a GGUF file: magic is '%s' (expected 'GGUF')",
                           mio_esc_bytes(b, sizeof b, base, size < 4 ? size : 4));
    }
    if (size < 24) return mio_err_set(MIO_ERR_TRUNCATED, "file has %zu bytes, a GGUF header needs at least 24", size);
    uint32_t version = ld32(base + 4);
    if (version != 0 && (version & 0xffffu) == 0 && __builtin_bswap32(version) <= 3)
        return mio_err_set(MIO_ERR_BYTE_ORDER,
                           "version field reads 0x%08x: this is a big-endian (byte-swapped) GGUF v%u file; only "
                           "little-endian GGUF is supported",
                           version, __builtin_bswap32(version));
    if (version == 1)
        return mio_err_set(MIO_ERR_UNSUPPORTED_VERSION,
                           "GGUF version 1 (the 2023 pre-release format with 32-bit counts) is not supported; re-convert "
                           "the model with a current converter");
    if (version != 2 && version != 3)
        return mio_err_set(MIO_ERR_UNSUPPORTED_VERSION, "unsupported GGUF version %u (supported: 2 and 3)", version);
    f->version = version;
    uint64_t n_tensors = ld64(base + 8), n_kv = ld64(base + 16);
    c.p = base + 24;
    /* Counts against the bytes that remain, before any allocation sized by them. */
    uint64_t need_kv = 0, need_t = 0, need = 0;
    if (!ck_mul(n_kv, MIN_KV_BYTES, &need_kv) || !ck_mul(n_tensors, MIN_TENSOR_BYTES, &need_t) ||
        !ck_add(need_kv, need_t, &need) || need > file_size - 24) {
        char need_s[32];
        bool over = n_kv > UINT64_MAX / MIN_KV_BYTES || n_tensors > UINT64_MAX / MIN_TENSOR_BYTES ||
                    need_kv + need_t < need_kv;
        if (over) snprintf(need_s, sizeof need_s, "more than 2^64");
        else snprintf(need_s, sizeof need_s, "at least %llu", (unsigned long long)need_kv + need_t);
        return mio_err_set(MIO_ERR_TRUNCATED,
                           "header claims %llu metadata entries and %llu tensors, which need %s bytes, but only %llu bytes "
                           "follow",
                           (unsigned long long)n_kv, (unsigned long long)n_tensors, need_s,
                           (unsigned long long)(file_size - 24));
    }
    *cut = size < file_size; /* from here on, a truncation may be the prefix's end */
    f->alignment = GGUF_DEFAULT_ALIGNMENT;
    f->kv = calloc(n_kv ? (size_t)n_kv : 1, sizeof *f->kv);
    f->tensors = calloc(n_tensors ? (size_t)n_tensors : 1, sizeof *f->tensors);
    if (!f->kv || !f->tensors) return mio_err_set(MIO_ERR_NOMEM, "out of memory for %llu entries and %llu tensors",
                                                  (unsigned long long)n_kv, (unsigned long long)n_tensors);
    mio_status st = mio_namehash_init(&f->kv_hash, n_kv);
    if (st) return st;

    for (uint64_t i = 0; i < n_kv; i++) {
        gguf_kv *kv = &f->kv[i];
        f->n_kv = i + 1; /* counted from the start so a failure frees what this entry allocated */
        uint64_t at = cur_off(&c);
        if (cur_rem(&c) < 8)
            return mio_err_set(MIO_ERR_TRUNCATED, "metadata entry #%llu at byte %llu: key length needs 8 bytes, %zu remain",
                               (unsigned long long)i, (unsigned long long)at, cur_rem(&c));
        uint64_t kl = ld64(c.p);
        if (kl == 0) return mio_err_set(MIO_ERR_INVALID_KV, "metadata entry #%llu at byte %llu has an empty key",
                                        (unsigned long long)i, (unsigned long long)at);
        if (kl > MIO_GGUF_MAX_LEN)
            return mio_err_set(MIO_ERR_LIMIT, "metadata entry #%llu at byte %llu: key length %llu exceeds the cap of %llu bytes",
                               (unsigned long long)i, (unsigned long long)at, (unsigned long long)kl,
                               (unsigned long long)MIO_GGUF_MAX_LEN);
        if (kl > cur_rem(&c) - 8)
            return mio_err_set(MIO_ERR_TRUNCATED, "metadata entry #%llu at byte %llu: key of %llu bytes runs past the end",
                               (unsigned long long)i, (unsigned long long)at, (unsigned long long)kl);
        kv->key.ptr = (const char *)c.p + 8;
        kv->key.len = (size_t)kl;
        c.p += 8 + kl;
        char kb[160], what[220];
        mio_esc_bytes(kb, sizeof kb, kv->key.ptr, kv->key.len);
        snprintf(what, sizeof what, "key '%s' (entry #%llu)", kb, (unsigned long long)i);
        uint64_t dup;
        if (!mio_namehash_insert(&f->kv_hash, kv->key.ptr, kv->key.len, i, mio_gguf_kv_key_at, f, &dup))
            return mio_err_set(MIO_ERR_DUPLICATE_KEY, "%s duplicates entry #%llu", what, (unsigned long long)dup);
        if (cur_rem(&c) < 4) return mio_err_set(MIO_ERR_TRUNCATED, "%s: value type needs 4 bytes, %zu remain", what, cur_rem(&c));
        kv->type = (int32_t)ld32(c.p);
        c.p += 4;
        uint64_t vl;
        st = mio_gguf_skip_value(c.p, c.end, kv->type, 0, &vl, what, &kv->str_index);
        if (st) return st;
        kv->raw = c.p;
        kv->raw_len = (size_t)vl;
        kv->elem_type = -1;
        kv->count = 1;
        if (kv->type == MIO_GGUF_ARRAY) {
            kv->elem_type = (int32_t)ld32(c.p);
            kv->count = ld64(c.p + 4);
            kv->val = c.p + 12;
            kv->val_len = (size_t)vl - 12;
            kv->depth = 1;
            for (const uint8_t *q = c.p; ld32(q) == MIO_GGUF_ARRAY && ld64(q + 4) > 0; q += 12) kv->depth++;
        } else if (kv->type == MIO_GGUF_STRING) {
            kv->val = c.p + 8;
            kv->val_len = (size_t)vl - 8;
        } else {
            kv->val = c.p;
            kv->val_len = (size_t)vl;
        }
        c.p += vl;
        if (kv->key.len == 17 && memcmp(kv->key.ptr, "general.alignment", 17) == 0) {
            if (kv->type != MIO_GGUF_U32)
                return mio_err_set(MIO_ERR_INVALID_ALIGNMENT, "general.alignment has type %s (must be u32)",
                                   mio_gguf_type_name(kv->type) ? mio_gguf_type_name(kv->type) : "?");
            uint32_t a = ld32(kv->val);
            if (a == 0 || (a & (a - 1)) != 0 || a > GGUF_MAX_ALIGNMENT)
                return mio_err_set(MIO_ERR_INVALID_ALIGNMENT,
                                   "general.alignment is %u (must be a power of two between 1 and %u)", a,
                                   GGUF_MAX_ALIGNMENT);
            f->alignment = a;
        }
    }

    for (uint64_t i = 0; i < n_tensors; i++) {
        mio_gguf_tensor *t = &f->tensors[i];
        uint64_t at = cur_off(&c);
        if (cur_rem(&c) < 8)
            return mio_err_set(MIO_ERR_TRUNCATED, "tensor info #%llu at byte %llu: name length needs 8 bytes, %zu remain",
                               (unsigned long long)i, (unsigned long long)at, cur_rem(&c));
        uint64_t nl = ld64(c.p);
        if (nl > cur_rem(&c) - 8)
            return mio_err_set(MIO_ERR_TRUNCATED, "tensor info #%llu at byte %llu: name of %llu bytes runs past the end",
                               (unsigned long long)i, (unsigned long long)at, (unsigned long long)nl);
        t->name.ptr = (const char *)c.p + 8;
        t->name.len = (size_t)nl;
        c.p += 8 + nl;
        char nb_[160];
        /* the name escaped for a message, formatted only on an error path */
#define nb mio_esc_bytes(nb_, sizeof nb_, t->name.ptr, t->name.len)
        if (nl == 0) return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor info #%llu has an empty name", (unsigned long long)i);
        if (nl >= GGUF_MAX_NAME)
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor #%llu '%s': name is %llu bytes (must be under %u)",
                               (unsigned long long)i, nb, (unsigned long long)nl, GGUF_MAX_NAME);
        if (cur_rem(&c) < 4)
            return mio_err_set(MIO_ERR_TRUNCATED, "tensor '%s': n_dims needs 4 bytes, %zu remain", nb, cur_rem(&c));
        uint32_t nd = ld32(c.p);
        c.p += 4;
        if (nd < 1 || nd > 4)
            return mio_err_set(MIO_ERR_INVALID_TENSOR_INFO, "tensor '%s': n_dims is %u (must be 1..4)", nb, nd);
        if (cur_rem(&c) < (size_t)nd * 8 + 12)
            return mio_err_set(MIO_ERR_TRUNCATED, "tensor '%s': dims, type and offset need %u bytes, %zu remain", nb,
                               nd * 8 + 12, cur_rem(&c));
        t->n_dims = nd;
        for (uint32_t d = 0; d < 4; d++) t->ne[d] = 1;
        for (uint32_t d = 0; d < nd; d++, c.p += 8) t->ne[d] = (int64_t)ld64(c.p);
        t->type = (int32_t)ld32(c.p);
        t->offset = ld64(c.p + 4);
        c.p += 12;
        if (t->type < 0 || t->type >= MIO_TYPE_GGML_COUNT || !mio_type_name(t->type))
            return mio_err_set(MIO_ERR_UNSUPPORTED_TYPE, "tensor '%s': unknown ggml type code %d", nb, t->type);
        st = mio_type_nbytes(t->type, nd, t->ne, &t->nbytes);
        if (st) return mio_err_prefix(st, "tensor '%s': ", nb);
#undef nb
        f->n_tensors = i + 1;
    }
    st = mio_gguf_index_tensors(f);
    if (st) return st;

    /* Data section and tensor offsets: exactly the running padded sum, as llama.cpp requires. */
    gguf_part *part = &f->parts[0];
    part->header_size = cur_off(&c);
    *cut = false;
    if (!ck_pad(part->header_size, f->alignment, &part->data_offset))
        return mio_err_set(MIO_ERR_OVERFLOW, "data offset overflows");
    uint64_t run = 0;
    for (uint64_t i = 0; i < n_tensors; i++) {
        mio_gguf_tensor *t = &f->tensors[i];
        char nb[160];
        if (t->offset != run)
            return mio_err_set(MIO_ERR_INVALID_OFFSET,
                               "tensor '%s' (#%llu) has data offset %llu, expected %llu (previous tensors padded to %u)",
                               mio_esc_bytes(nb, sizeof nb, t->name.ptr, t->name.len), (unsigned long long)i,
                               (unsigned long long)t->offset, (unsigned long long)run, f->alignment);
        uint64_t padded;
        if (!ck_pad(t->nbytes, f->alignment, &padded) || !ck_add(run, padded, &run))
            return mio_err_set(MIO_ERR_OVERFLOW, "data section size overflows at tensor #%llu", (unsigned long long)i);
    }
    for (uint64_t i = 0; i < n_tensors; i++) {
        mio_gguf_tensor *t = &f->tensors[i];
        uint64_t start, endb;
        if (!ck_add(part->data_offset, t->offset, &start) || !ck_add(start, t->nbytes, &endb))
            return mio_err_set(MIO_ERR_OVERFLOW, "tensor data end overflows at tensor #%llu", (unsigned long long)i);
        if (endb > file_size) {
            const mio_gguf_tensor *last = &f->tensors[n_tensors - 1];
            uint64_t last_end = part->data_offset + last->offset + last->nbytes;
            uint64_t miss = last_end - file_size;
            char nb[160], hb[32];
            return mio_err_set(MIO_ERR_TRUNCATED,
                               "tensor '%s' (#%llu of %llu) ends at byte %llu but the file has %llu bytes: %llu bytes%s "
                               "of tensor data are missing — a truncated download?",
                               mio_esc_bytes(nb, sizeof nb, t->name.ptr, t->name.len), (unsigned long long)i,
                               (unsigned long long)n_tensors, (unsigned long long)endb, (unsigned long long)file_size,
                               (unsigned long long)miss,
                               human_size(hb, sizeof hb, miss));
        }
        t->data = endb <= size ? base + start : NULL;
        t->part = 0;
    }
    return MIO_OK;
}

/* Parse one GGUF image in region (ownership of region moves into *out, also on failure). */
static mio_status gguf_parse_region(mio_region *region, mio_gguf_file **out) {
    mio_gguf_file *f = calloc(1, sizeof *f);
    gguf_part *parts = calloc(1, sizeof *parts);
    if (!f || !parts) {
        free(f);
        free(parts);
        mio_region_free(region);
        return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    }
    f->parts = parts;
    f->n_parts = 1;
    parts[0].region = *region;
    parts[0].file_size = region->size;
    memset(region, 0, sizeof *region);
    bool cut;
    mio_status st = parse_header(f, parts[0].region.data, parts[0].region.size, parts[0].region.size, &cut);
    if (st) {
        uint64_t bad = count_replacement_chars(parts[0].region.data, parts[0].region.size);
        if (bad && st != MIO_ERR_BAD_MAGIC && st != MIO_ERR_NOMEM)
            mio_err_append(" (the file contains %llu U+FFFD sequences 'ef bf bd': damage by a text-mode transfer "
                           "that replaced invalid UTF-8 would explain this; re-download in binary mode)",
                           (unsigned long long)bad);
        mio_gguf_file_free(f);
        return st;
    }
    *out = f;
    return MIO_OK;
}

mio_status mio_gguf_open_buffer(const void *data, size_t len, uint32_t flags, mio_gguf_file **out) {
    bool take = (flags & MIO_BUFFER_TAKE) != 0;
    if (!out || (!data && len) || (flags & ~MIO_BUFFER_TAKE)) {
        if (take) free((void *)(uintptr_t)data);
        return mio_err_set(MIO_ERR_INVALID_ARG, !out ? "out is NULL" : !data ? "data is NULL" : "unknown flags 0x%x",
                           flags);
    }
    mio_region r = {0};
    r.data = data;
    r.size = len;
    if (take) r.heap = (void *)(uintptr_t)data;
    return gguf_parse_region(&r, out);
}

/* The header of a remote GGUF: its prefix grows by MIO_REMOTE_STEP until the
 * header parses (bytes fetched stay within the header + one step). The handle
 * keeps a heap copy of the prefix and the remote file for mio_model_read. */
static mio_status open_remote(const char *uri, mio_gguf_file **out) {
    mio_remote *rf = NULL;
    mio_status st = mio_remote_open(uri, &rf);
    if (st) return st;
    uint64_t size = mio_remote_size(rf);
    size_t want = MIO_REMOTE_STEP;
    for (;;) {
        const uint8_t *p;
        size_t have;
        st = mio_remote_prefix(rf, want, &p, &have);
        if (st) break;
        mio_gguf_file *f = calloc(1, sizeof *f);
        gguf_part *parts = calloc(1, sizeof *parts);
        uint8_t *copy = malloc(have ? have : 1);
        if (!f || !parts || !copy) {
            free(f); free(parts); free(copy);
            st = mio_err_set(MIO_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(copy, p, have);
        f->parts = parts;
        f->n_parts = 1;
        parts[0].region.data = copy;
        parts[0].region.size = have;
        parts[0].region.heap = copy;
        parts[0].file_size = size;
        bool cut = false;
        st = parse_header(f, copy, have, size, &cut);
        if (st == MIO_OK) {
            parts[0].remote = rf;
            *out = f;
            return MIO_OK;
        }
        mio_gguf_file_free(f);
        if (!(st == MIO_ERR_TRUNCATED && cut)) break;
        if (have >= MIO_REMOTE_HEADER_MAX) {
            st = mio_err_set(MIO_ERR_LIMIT, "the header runs past its first %zu MiB; refusing to fetch more",
                             MIO_REMOTE_HEADER_MAX >> 20);
            break;
        }
        want = have + MIO_REMOTE_STEP;
    }
    mio_remote_close(rf);
    return mio_err_prefix(st, "%s: ", uri);
}

mio_status mio_gguf_open_single(const char *path, uint32_t flags, mio_gguf_file **out) {
    if (mio_net_is_remote(path)) {
        if (flags & MIO_OPEN_HEADER) return open_remote(path, out);
        /* the whole file: from huggingface_hub's cache, pulled there first */
        char *local = NULL;
        mio_status st = mio_hub_local_copy(path, &local);
        if (!st) st = mio_gguf_open_single(local, flags, out);
        free(local);
        return st;
    }
    mio_region r;
    mio_status st = (flags & MIO_OPEN_READ) ? mio_region_read(path, &r) : mio_region_map(path, &r);
    if (st) return st;
    st = gguf_parse_region(&r, out);
    if (st) return mio_err_prefix(st, "%s: ", path);
    return MIO_OK;
}

void mio_gguf_close(mio_gguf_file *f) { mio_gguf_file_free(f); }
