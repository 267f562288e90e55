/* SPDX-License-Identifier: MIT */
/* interop.h — helpers shared by the interop tests (one translation unit each):
 * load the peer or skip, read whole files, and compare a file as parsed by
 * libmodelio with the same file as parsed by ggml's gguf_init_from_file, key by
 * key, value by value and tensor by tensor. */
#ifndef MIO_INTEROP_H
#define MIO_INTEROP_H

#include "modelio.h"
#include "peer.h"
#include "test.h"

#include <math.h>

/* A check with context: on failure prints the formatted message (capped). */
static int ic_printed;
#define IC_CHECK(cond, ...) do { if (cond) t_pass++; else { t_fail++; \
    if (ic_printed++ < 60) { fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } } while (0)

/* Load the peer; skip the test (exit 77) when absent, fail hard when broken. */
static inline void ic_load_peer_or_skip(peer_api *g) {
    char why[8192];
    int rc = peer_load(g, why, sizeof why);
    if (rc > 0) T_SKIP(why);
    if (rc < 0) {
        fprintf(stderr, "FAIL: %s\n", why);
        exit(1);
    }
    printf("peer: %s\n", g->path);
}

/* Whole file into a malloc'd buffer (NULL on failure). */
static inline unsigned char *ic_read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            unsigned char *nb = (unsigned char *)realloc(buf, cap);
            if (!nb) { free(buf); fclose(fp); return NULL; }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) break;
    }
    fclose(fp);
    *len = n;
    return buf;
}

/* Byte size of a fixed-width GGUF value type; 0 for string/array/unknown. */
static inline size_t ic_gguf_type_size(int t) {
    switch (t) {
    case MIO_GGUF_U8: case MIO_GGUF_I8: case MIO_GGUF_BOOL: return 1;
    case MIO_GGUF_U16: case MIO_GGUF_I16: return 2;
    case MIO_GGUF_U32: case MIO_GGUF_I32: case MIO_GGUF_F32: return 4;
    case MIO_GGUF_U64: case MIO_GGUF_I64: case MIO_GGUF_F64: return 8;
    default: return 0;
    }
}

static inline int ic_is_int_type(int t) {
    return t == MIO_GGUF_U8 || t == MIO_GGUF_I8 || t == MIO_GGUF_U16 || t == MIO_GGUF_I16 ||
           t == MIO_GGUF_U32 || t == MIO_GGUF_I32 || t == MIO_GGUF_U64 || t == MIO_GGUF_I64;
}
static inline int ic_is_signed_type(int t) {
    return t == MIO_GGUF_I8 || t == MIO_GGUF_I16 || t == MIO_GGUF_I32 || t == MIO_GGUF_I64;
}

/* Decode one little-endian fixed-width element as i128-ish pair: signed value in
 * *sv when the type is signed, unsigned in *uv otherwise. */
static inline void ic_decode_int(int t, const void *p, int64_t *sv, uint64_t *uv) {
    *sv = 0;
    *uv = 0;
    switch (t) {
    case MIO_GGUF_U8: { uint8_t v; memcpy(&v, p, 1); *uv = v; break; }
    case MIO_GGUF_I8: { int8_t v; memcpy(&v, p, 1); *sv = v; break; }
    case MIO_GGUF_U16: { uint16_t v; memcpy(&v, p, 2); *uv = v; break; }
    case MIO_GGUF_I16: { int16_t v; memcpy(&v, p, 2); *sv = v; break; }
    case MIO_GGUF_U32: { uint32_t v; memcpy(&v, p, 4); *uv = v; break; }
    case MIO_GGUF_I32: { int32_t v; memcpy(&v, p, 4); *sv = v; break; }
    case MIO_GGUF_U64: { uint64_t v; memcpy(&v, p, 8); *uv = v; break; }
    case MIO_GGUF_I64: { int64_t v; memcpy(&v, p, 8); *sv = v; break; }
    case MIO_GGUF_BOOL: { uint8_t v; memcpy(&v, p, 1); *uv = v; break; }
    default: break;
    }
}

/* Check libmodelio's widening getters on entry i (scalar) whose wire bytes are p. */
static inline void ic_check_widen_scalar(const mio_gguf_file *f, int64_t i, int t, const void *p,
                                         const char *key) {
    if (ic_is_int_type(t) || t == MIO_GGUF_BOOL) {
        int64_t sv, gi = 0;
        uint64_t uv, gu = 0;
        ic_decode_int(t, p, &sv, &uv);
        mio_status si = mio_gguf_kv_i64(f, i, &gi);
        mio_status su = mio_gguf_kv_u64(f, i, &gu);
        if (ic_is_signed_type(t)) {
            IC_CHECK(si == MIO_OK && gi == sv, "key %s: kv_i64 -> %s %lld, want %lld", key,
                     mio_status_name(si), (long long)gi, (long long)sv);
            if (sv < 0)
                IC_CHECK(su == MIO_ERR_OUT_OF_RANGE, "key %s: kv_u64 of %lld -> %s, want out-of-range", key,
                         (long long)sv, mio_status_name(su));
            else
                IC_CHECK(su == MIO_OK && gu == (uint64_t)sv, "key %s: kv_u64 -> %s %llu", key,
                         mio_status_name(su), (unsigned long long)gu);
        } else {
            IC_CHECK(su == MIO_OK && gu == uv, "key %s: kv_u64 -> %s %llu, want %llu", key,
                     mio_status_name(su), (unsigned long long)gu, (unsigned long long)uv);
            if (uv > (uint64_t)INT64_MAX)
                IC_CHECK(si == MIO_ERR_OUT_OF_RANGE, "key %s: kv_i64 of %llu -> %s, want out-of-range", key,
                         (unsigned long long)uv, mio_status_name(si));
            else
                IC_CHECK(si == MIO_OK && gi == (int64_t)uv, "key %s: kv_i64 -> %s %lld", key,
                         mio_status_name(si), (long long)gi);
        }
        if (t == MIO_GGUF_BOOL) {
            int b = -1;
            mio_status sb = mio_gguf_kv_bool(f, i, &b);
            IC_CHECK(sb == MIO_OK && b == (int)uv, "key %s: kv_bool -> %s %d, want %d", key,
                     mio_status_name(sb), b, (int)uv);
        }
    } else if (t == MIO_GGUF_F32 || t == MIO_GGUF_F64) {
        double want, got = 0;
        if (t == MIO_GGUF_F32) { float v; memcpy(&v, p, 4); want = (double)v; }
        else memcpy(&want, p, 8);
        mio_status s = mio_gguf_kv_f64(f, i, &got);
        IC_CHECK(s == MIO_OK && ((isnan(want) && isnan(got)) || memcmp(&want, &got, 8) == 0),
                 "key %s: kv_f64 -> %s %.17g, want %.17g", key, mio_status_name(s), got, want);
        int64_t dummy;
        IC_CHECK(mio_gguf_kv_i64(f, i, &dummy) == MIO_ERR_TYPE_MISMATCH, "key %s: kv_i64 on a float", key);
    }
}

/* Element j of a fixed-width array through the widening array getters. */
static inline void ic_check_widen_elem(const mio_gguf_file *f, int64_t i, uint64_t j, int t, const void *p,
                                       const char *key) {
    if (ic_is_int_type(t) || t == MIO_GGUF_BOOL) {
        int64_t sv, gi = 0;
        uint64_t uv, gu = 0;
        ic_decode_int(t, p, &sv, &uv);
        if (ic_is_signed_type(t)) {
            mio_status s = mio_gguf_arr_i64(f, i, j, &gi);
            IC_CHECK(s == MIO_OK && gi == sv, "key %s[%llu]: arr_i64 -> %s %lld, want %lld", key,
                     (unsigned long long)j, mio_status_name(s), (long long)gi, (long long)sv);
        } else {
            mio_status s = mio_gguf_arr_u64(f, i, j, &gu);
            IC_CHECK(s == MIO_OK && gu == uv, "key %s[%llu]: arr_u64 -> %s %llu, want %llu", key,
                     (unsigned long long)j, mio_status_name(s), (unsigned long long)gu, (unsigned long long)uv);
        }
    } else if (t == MIO_GGUF_F32 || t == MIO_GGUF_F64) {
        double want, got = 0;
        if (t == MIO_GGUF_F32) { float v; memcpy(&v, p, 4); want = (double)v; }
        else memcpy(&want, p, 8);
        mio_status s = mio_gguf_arr_f64(f, i, j, &got);
        IC_CHECK(s == MIO_OK && ((isnan(want) && isnan(got)) || memcmp(&want, &got, 8) == 0),
                 "key %s[%llu]: arr_f64 -> %s %.17g, want %.17g", key, (unsigned long long)j,
                 mio_status_name(s), got, want);
    }
}

/* Compare the file at path as parsed by libmodelio (f) and by ggml (g ctx gc).
 * Checks version, alignment, data offset, every key (name, type, value, array
 * element type/count/elements, every string), every tensor (name, dims, type,
 * offset, size) and that libmodelio's tensor data views hold exactly the file's
 * bytes at ggml's offsets. */
static inline void ic_compare(const peer_api *g, const void *gc, const mio_gguf_file *f,
                              const unsigned char *file, size_t file_len, const char *what) {
    IC_CHECK(mio_gguf_version(f) == g->gguf_get_version(gc), "%s: version %u vs ggml %u", what,
             mio_gguf_version(f), g->gguf_get_version(gc));
    IC_CHECK((size_t)mio_gguf_alignment(f) == g->gguf_get_alignment(gc), "%s: alignment %u vs ggml %zu", what,
             mio_gguf_alignment(f), g->gguf_get_alignment(gc));
    /* Measured: for a file without tensors, ggml reports the end of the header
     * (unpadded) as the data offset, padded file or not; libmodelio reports the
     * header size rounded up to the alignment (the documented rule). */
    uint64_t g_off = (uint64_t)g->gguf_get_data_offset(gc);
    int no_data = g->gguf_get_n_tensors(gc) == 0 && g_off == mio_gguf_header_size(f);
    IC_CHECK(mio_gguf_data_offset(f) == g_off || no_data, "%s: data offset %llu vs ggml %llu", what,
             (unsigned long long)mio_gguf_data_offset(f), (unsigned long long)g_off);
    if (no_data) {
        uint64_t a = mio_gguf_alignment(f);
        IC_CHECK(mio_gguf_data_offset(f) == (g_off + a - 1) / a * a, "%s: data offset %llu, header %llu", what,
                 (unsigned long long)mio_gguf_data_offset(f), (unsigned long long)g_off);
    }
    IC_CHECK(mio_gguf_file_size(f) == (uint64_t)file_len, "%s: file size %llu vs %zu", what,
             (unsigned long long)mio_gguf_file_size(f), file_len);

    int64_t n_kv = g->gguf_get_n_kv(gc);
    IC_CHECK(mio_gguf_kv_count(f) == n_kv, "%s: kv count %lld vs ggml %lld", what,
             (long long)mio_gguf_kv_count(f), (long long)n_kv);
    if (mio_gguf_kv_count(f) != n_kv) return;

    for (int64_t i = 0; i < n_kv; i++) {
        const char *key = g->gguf_get_key(gc, i);
        mio_str k = mio_gguf_kv_key(f, i);
        IC_CHECK(k.len == strlen(key) && memcmp(k.ptr, key, k.len) == 0, "%s: key %lld: \"%.*s\" vs ggml \"%s\"",
                 what, (long long)i, (int)k.len, k.ptr ? k.ptr : "", key);
        IC_CHECK(mio_gguf_find_key(f, key) == i, "%s: find_key(%s) = %lld, want %lld", what, key,
                 (long long)mio_gguf_find_key(f, key), (long long)i);
        int gt = g->gguf_get_kv_type(gc, i);
        int mt = mio_gguf_kv_type(f, i);
        IC_CHECK(mt == gt, "%s: key %s: type %d vs ggml %d", what, key, mt, gt);
        if (mt != gt) continue;
        mio_gguf_value v;
        mio_status st = mio_gguf_kv_value(f, i, &v);
        IC_CHECK(st == MIO_OK, "%s: key %s: kv_value -> %s (%s)", what, key, mio_status_name(st), mio_last_error());
        if (st != MIO_OK) continue;
        IC_CHECK(v.type == gt, "%s: key %s: value.type %d", what, key, v.type);

        if (gt == MIO_GGUF_STRING) {
            const char *gs = g->gguf_get_val_str(gc, i);
            mio_str s = {0};
            mio_status ss = mio_gguf_kv_str(f, i, &s);
            IC_CHECK(ss == MIO_OK && s.len == strlen(gs) && memcmp(s.ptr, gs, s.len) == 0,
                     "%s: key %s: string differs (len %zu vs ggml %zu)", what, key, s.len, strlen(gs));
            IC_CHECK(v.size == strlen(gs) && memcmp(v.data, gs, v.size) == 0, "%s: key %s: value view of string",
                     what, key);
        } else if (gt == MIO_GGUF_ARRAY) {
            int get = g->gguf_get_arr_type(gc, i);
            uint64_t gn = (uint64_t)g->gguf_get_arr_n(gc, i);
            IC_CHECK(v.elem_type == get, "%s: key %s: array elem type %d vs ggml %d", what, key, v.elem_type, get);
            IC_CHECK(v.count == gn, "%s: key %s: array count %llu vs ggml %llu", what, key,
                     (unsigned long long)v.count, (unsigned long long)gn);
            IC_CHECK(v.depth == 1, "%s: key %s: depth %u", what, key, v.depth);
            if (v.elem_type != get || v.count != gn) continue;
            if (get == MIO_GGUF_STRING) {
                for (uint64_t j = 0; j < gn; j++) {
                    const char *gs = g->gguf_get_arr_str(gc, i, (size_t)j);
                    size_t gl = strlen(gs);
                    mio_str s = {0};
                    mio_status ss = mio_gguf_arr_str(f, i, j, &s);
                    IC_CHECK(ss == MIO_OK && s.len == gl && memcmp(s.ptr, gs, gl) == 0,
                             "%s: key %s[%llu]: \"%.*s\" vs ggml \"%s\" (%s)", what, key, (unsigned long long)j,
                             (int)s.len, s.ptr ? s.ptr : "", gs, mio_status_name(ss));
                }
                /* element views agree with the indexed getter (first and last) */
                if (gn > 0) {
                    mio_gguf_value e;
                    mio_status se = mio_gguf_value_elem(&v, gn - 1, &e);
                    const char *gs = g->gguf_get_arr_str(gc, i, (size_t)(gn - 1));
                    IC_CHECK(se == MIO_OK && e.type == MIO_GGUF_STRING && e.size == strlen(gs) &&
                                 memcmp(e.data, gs, e.size) == 0,
                             "%s: key %s: value_elem(last) -> %s", what, key, mio_status_name(se));
                }
            } else {
                size_t es = ic_gguf_type_size(get);
                IC_CHECK(es > 0, "%s: key %s: unexpected element type %d", what, key, get);
                if (es == 0) continue;
                IC_CHECK(v.size == es * gn, "%s: key %s: array span %zu, want %llu", what, key, v.size,
                         (unsigned long long)(es * gn));
                if (gn > 0) {
                    const unsigned char *gd = (const unsigned char *)g->gguf_get_arr_data(gc, i);
                    IC_CHECK(v.size == es * gn && memcmp(v.data, gd, es * gn) == 0,
                             "%s: key %s: array bytes differ", what, key);
                    for (uint64_t j = 0; j < gn; j++) ic_check_widen_elem(f, i, j, get, gd + j * es, key);
                }
            }
        } else {
            unsigned char gv[8];
            size_t es = ic_gguf_type_size(gt);
            switch (gt) {
            case MIO_GGUF_U8: { uint8_t x = g->gguf_get_val_u8(gc, i); memcpy(gv, &x, 1); break; }
            case MIO_GGUF_I8: { int8_t x = g->gguf_get_val_i8(gc, i); memcpy(gv, &x, 1); break; }
            case MIO_GGUF_U16: { uint16_t x = g->gguf_get_val_u16(gc, i); memcpy(gv, &x, 2); break; }
            case MIO_GGUF_I16: { int16_t x = g->gguf_get_val_i16(gc, i); memcpy(gv, &x, 2); break; }
            case MIO_GGUF_U32: { uint32_t x = g->gguf_get_val_u32(gc, i); memcpy(gv, &x, 4); break; }
            case MIO_GGUF_I32: { int32_t x = g->gguf_get_val_i32(gc, i); memcpy(gv, &x, 4); break; }
            case MIO_GGUF_F32: { float x = g->gguf_get_val_f32(gc, i); memcpy(gv, &x, 4); break; }
            case MIO_GGUF_U64: { uint64_t x = g->gguf_get_val_u64(gc, i); memcpy(gv, &x, 8); break; }
            case MIO_GGUF_I64: { int64_t x = g->gguf_get_val_i64(gc, i); memcpy(gv, &x, 8); break; }
            case MIO_GGUF_F64: { double x = g->gguf_get_val_f64(gc, i); memcpy(gv, &x, 8); break; }
            case MIO_GGUF_BOOL: { uint8_t x = g->gguf_get_val_bool(gc, i) ? 1 : 0; memcpy(gv, &x, 1); break; }
            default: IC_CHECK(0, "%s: key %s: unexpected type %d", what, key, gt); continue;
            }
            IC_CHECK(v.count == 1 && v.size == es && memcmp(v.data, gv, es) == 0,
                     "%s: key %s: %s value bytes differ", what, key, mio_gguf_type_name(gt));
            ic_check_widen_scalar(f, i, gt, gv, key);
        }
    }

    int64_t n_t = g->gguf_get_n_tensors(gc);
    IC_CHECK(mio_gguf_tensor_count(f) == n_t, "%s: tensor count %lld vs ggml %lld", what,
             (long long)mio_gguf_tensor_count(f), (long long)n_t);
    if (mio_gguf_tensor_count(f) != n_t) return;
    uint64_t data_off = (uint64_t)g->gguf_get_data_offset(gc);
    for (int64_t i = 0; i < n_t; i++) {
        const char *name = g->gguf_get_tensor_name(gc, i);
        mio_gguf_tensor t;
        mio_status st = mio_gguf_tensor_info(f, i, &t);
        IC_CHECK(st == MIO_OK, "%s: tensor %lld: %s", what, (long long)i, mio_last_error());
        if (st != MIO_OK) continue;
        IC_CHECK(t.name.len == strlen(name) && memcmp(t.name.ptr, name, t.name.len) == 0,
                 "%s: tensor %lld: name \"%.*s\" vs ggml \"%s\"", what, (long long)i, (int)t.name.len,
                 t.name.ptr ? t.name.ptr : "", name);
        IC_CHECK(mio_gguf_find_tensor(f, name) == i, "%s: find_tensor(%s)", what, name);
        IC_CHECK(t.type == g->gguf_get_tensor_type(gc, i), "%s: tensor %s: type %d vs ggml %d", what, name, t.type,
                 g->gguf_get_tensor_type(gc, i));
        IC_CHECK(t.offset == (uint64_t)g->gguf_get_tensor_offset(gc, i), "%s: tensor %s: offset %llu vs ggml %zu",
                 what, name, (unsigned long long)t.offset, g->gguf_get_tensor_offset(gc, i));
        IC_CHECK(t.nbytes == (uint64_t)g->gguf_get_tensor_size(gc, i), "%s: tensor %s: nbytes %llu vs ggml %zu",
                 what, name, (unsigned long long)t.nbytes, g->gguf_get_tensor_size(gc, i));
        IC_CHECK(t.part == 0, "%s: tensor %s: part %u", what, name, t.part);
        if (g->gguf_get_tensor_ne) {
            const int64_t *ne = g->gguf_get_tensor_ne(gc, i);
            uint32_t nd = 4;
            while (nd > 1 && ne[nd - 1] == 1) nd--;
            IC_CHECK(t.ne[0] == ne[0] && t.ne[1] == ne[1] && t.ne[2] == ne[2] && t.ne[3] == ne[3],
                     "%s: tensor %s: ne [%lld,%lld,%lld,%lld] vs ggml [%lld,%lld,%lld,%lld]", what, name,
                     (long long)t.ne[0], (long long)t.ne[1], (long long)t.ne[2], (long long)t.ne[3],
                     (long long)ne[0], (long long)ne[1], (long long)ne[2], (long long)ne[3]);
            /* ggml's n_dims drops trailing 1s; the file may carry more dims of size 1 */
            uint32_t md = t.n_dims;
            while (md > 1 && t.ne[md - 1] == 1) md--;
            IC_CHECK(md == nd, "%s: tensor %s: n_dims %u (%u significant) vs ggml %u", what, name, t.n_dims, md, nd);
        }
        uint64_t nb = 0;
        mio_status sn = mio_type_nbytes(t.type, t.n_dims, t.ne, &nb);
        IC_CHECK(sn == MIO_OK && nb == t.nbytes, "%s: tensor %s: mio_type_nbytes %llu vs %llu", what, name,
                 (unsigned long long)nb, (unsigned long long)t.nbytes);
        if (file) {
            uint64_t at = data_off + t.offset;
            IC_CHECK(at + t.nbytes <= file_len && t.data && memcmp(t.data, file + at, (size_t)t.nbytes) == 0,
                     "%s: tensor %s: data view differs from file bytes at %llu", what, name,
                     (unsigned long long)at);
        }
    }
}

#endif
