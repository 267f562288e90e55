/* SPDX-License-Identifier: MIT */
/* interop_we_write.c — libmodelio writes, ggml reads: random files built with
 * mio_writer (every typed setter, arrays of every element type, string arrays,
 * key replacement, custom alignment, tensors of every type) must open with
 * gguf_init_from_file and show exactly the keys, values, tensor offsets and data
 * offset that were set — computed independently here from the GGUF layout rules. */
#include "interop.h"

#define ITERATIONS 30
#define MAX_KV 48
#define MAX_TENSORS 14

static peer_api G;
static peer_rng R;
static int valid_types[64];
static int n_valid_types;

/* What we expect in the file, one entry per key in file order. */
typedef struct exp_kv {
    char key[96];
    int type;           /* mio_gguf_type */
    int elem;           /* arrays: element type */
    uint64_t n;         /* arrays: element count */
    unsigned char *raw; /* fixed-width payload: scalar value or array elements */
    char **strs;        /* string value (strs[0]) or string array elements, NUL-terminated */
} exp_kv;

static exp_kv KV[MAX_KV];
static int n_kv;

static void kv_clear(exp_kv *e) {
    free(e->raw);
    if (e->strs) {
        uint64_t n = e->type == MIO_GGUF_STRING ? 1 : e->n;
        for (uint64_t k = 0; k < n; k++) free(e->strs[k]);
        free(e->strs);
    }
    memset(e, 0, sizeof *e);
}

static char *rand_cstr(size_t len) {
    char *s = (char *)malloc(len + 1);
    for (size_t k = 0; k < len; k++) s[k] = (char)(1 + peer_below(&R, 255));
    s[len] = 0;
    return s;
}

static size_t rand_len(void) {
    uint64_t r = peer_below(&R, 10);
    if (r == 0) return 0;
    if (r == 9) return (size_t)peer_below(&R, 500);
    return (size_t)peer_below(&R, 32);
}

static int rand_scalar_type(void) {
    static const int types[] = {MIO_GGUF_U8, MIO_GGUF_I8, MIO_GGUF_U16, MIO_GGUF_I16, MIO_GGUF_U32, MIO_GGUF_I32,
                                MIO_GGUF_F32, MIO_GGUF_BOOL, MIO_GGUF_STRING, MIO_GGUF_U64, MIO_GGUF_I64,
                                MIO_GGUF_F64};
    return types[peer_below(&R, sizeof types / sizeof types[0])];
}

/* Set key in the writer with a random value of the given type; record it in e. */
static void set_random(mio_writer *w, exp_kv *e, const char *key, int type) {
    kv_clear(e);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->type = type;
    e->elem = -1;
    e->n = 1;
    size_t es = ic_gguf_type_size(type);
    mio_status st = MIO_OK;
    if (type == MIO_GGUF_STRING) {
        e->strs = (char **)malloc(sizeof *e->strs);
        e->strs[0] = rand_cstr(rand_len());
        st = mio_writer_set_str(w, key, e->strs[0], strlen(e->strs[0]));
    } else if (type == MIO_GGUF_ARRAY) {
        int et = rand_scalar_type();
        uint64_t n = peer_below(&R, 6) == 0 ? peer_below(&R, 2500) : peer_below(&R, 30);
        e->elem = et;
        e->n = n;
        if (et == MIO_GGUF_STRING) {
            e->strs = (char **)malloc((size_t)(n ? n : 1) * sizeof *e->strs);
            size_t *lens = (size_t *)malloc((size_t)(n ? n : 1) * sizeof *lens);
            for (uint64_t k = 0; k < n; k++) {
                e->strs[k] = rand_cstr(rand_len() % 48);
                lens[k] = strlen(e->strs[k]);
            }
            /* both calling conventions: explicit lengths, or NUL-terminated */
            st = mio_writer_set_arr_str(w, key, (const char *const *)e->strs, peer_below(&R, 2) ? lens : NULL, n);
            free(lens);
        } else {
            size_t ees = ic_gguf_type_size(et);
            e->raw = (unsigned char *)malloc((size_t)n * ees + 1);
            if (et == MIO_GGUF_BOOL)
                for (uint64_t k = 0; k < n; k++) e->raw[k] = (unsigned char)peer_below(&R, 2);
            else
                peer_fill(&R, e->raw, (size_t)n * ees);
            st = mio_writer_set_arr(w, key, et, e->raw, n);
        }
    } else {
        e->raw = (unsigned char *)calloc(1, 8);
        peer_fill(&R, e->raw, es);
        switch (type) {
        case MIO_GGUF_U8: { uint8_t x; memcpy(&x, e->raw, 1); st = mio_writer_set_u8(w, key, x); break; }
        case MIO_GGUF_I8: { int8_t x; memcpy(&x, e->raw, 1); st = mio_writer_set_i8(w, key, x); break; }
        case MIO_GGUF_U16: { uint16_t x; memcpy(&x, e->raw, 2); st = mio_writer_set_u16(w, key, x); break; }
        case MIO_GGUF_I16: { int16_t x; memcpy(&x, e->raw, 2); st = mio_writer_set_i16(w, key, x); break; }
        case MIO_GGUF_U32: { uint32_t x; memcpy(&x, e->raw, 4); st = mio_writer_set_u32(w, key, x); break; }
        case MIO_GGUF_I32: { int32_t x; memcpy(&x, e->raw, 4); st = mio_writer_set_i32(w, key, x); break; }
        case MIO_GGUF_F32: { float x; memcpy(&x, e->raw, 4); st = mio_writer_set_f32(w, key, x); break; }
        case MIO_GGUF_U64: { uint64_t x; memcpy(&x, e->raw, 8); st = mio_writer_set_u64(w, key, x); break; }
        case MIO_GGUF_I64: { int64_t x; memcpy(&x, e->raw, 8); st = mio_writer_set_i64(w, key, x); break; }
        case MIO_GGUF_F64: { double x; memcpy(&x, e->raw, 8); st = mio_writer_set_f64(w, key, x); break; }
        case MIO_GGUF_BOOL: e->raw[0] = (unsigned char)peer_below(&R, 2); st = mio_writer_set_bool(w, key, e->raw[0]); break;
        default: break;
        }
    }
    IC_CHECK(st == MIO_OK, "setting %s (%s) -> %s: %s", key, mio_gguf_type_name(type), mio_status_name(st),
             mio_last_error());
}

/* Serialized size of one KV entry (GGUF v3 layout). */
static uint64_t kv_wire_size(const exp_kv *e) {
    uint64_t s = 8 + strlen(e->key) + 4;
    if (e->type == MIO_GGUF_STRING) return s + 8 + strlen(e->strs[0]);
    if (e->type != MIO_GGUF_ARRAY) return s + ic_gguf_type_size(e->type);
    s += 4 + 8;
    if (e->elem == MIO_GGUF_STRING) {
        for (uint64_t k = 0; k < e->n; k++) s += 8 + strlen(e->strs[k]);
        return s;
    }
    return s + e->n * ic_gguf_type_size(e->elem);
}

/* ggml's view of key i equals the expectation. */
static void check_kv(const void *gc, int64_t i, const exp_kv *e, const char *what) {
    const char *gk = G.gguf_get_key(gc, i);
    IC_CHECK(strcmp(gk, e->key) == 0, "%s: key %lld: ggml \"%s\", want \"%s\"", what, (long long)i, gk, e->key);
    int gt = G.gguf_get_kv_type(gc, i);
    IC_CHECK(gt == e->type, "%s: key %s: ggml type %d, want %d", what, e->key, gt, e->type);
    if (gt != e->type) return;
    if (e->type == MIO_GGUF_STRING) {
        IC_CHECK(strcmp(G.gguf_get_val_str(gc, i), e->strs[0]) == 0, "%s: key %s: string differs", what, e->key);
        return;
    }
    if (e->type == MIO_GGUF_ARRAY) {
        IC_CHECK(G.gguf_get_arr_type(gc, i) == e->elem, "%s: key %s: elem type %d, want %d", what, e->key,
                 G.gguf_get_arr_type(gc, i), e->elem);
        IC_CHECK((uint64_t)G.gguf_get_arr_n(gc, i) == e->n, "%s: key %s: count %zu, want %llu", what, e->key,
                 G.gguf_get_arr_n(gc, i), (unsigned long long)e->n);
        if (G.gguf_get_arr_type(gc, i) != e->elem || (uint64_t)G.gguf_get_arr_n(gc, i) != e->n) return;
        if (e->elem == MIO_GGUF_STRING) {
            for (uint64_t k = 0; k < e->n; k++)
                IC_CHECK(strcmp(G.gguf_get_arr_str(gc, i, (size_t)k), e->strs[k]) == 0, "%s: key %s[%llu] differs",
                         what, e->key, (unsigned long long)k);
        } else if (e->n) {
            IC_CHECK(memcmp(G.gguf_get_arr_data(gc, i), e->raw, (size_t)e->n * ic_gguf_type_size(e->elem)) == 0,
                     "%s: key %s: array bytes differ", what, e->key);
        }
        return;
    }
    unsigned char gv[8] = {0};
    switch (e->type) {
    case MIO_GGUF_U8: { uint8_t x = G.gguf_get_val_u8(gc, i); memcpy(gv, &x, 1); break; }
    case MIO_GGUF_I8: { int8_t x = G.gguf_get_val_i8(gc, i); memcpy(gv, &x, 1); break; }
    case MIO_GGUF_U16: { uint16_t x = G.gguf_get_val_u16(gc, i); memcpy(gv, &x, 2); break; }
    case MIO_GGUF_I16: { int16_t x = G.gguf_get_val_i16(gc, i); memcpy(gv, &x, 2); break; }
    case MIO_GGUF_U32: { uint32_t x = G.gguf_get_val_u32(gc, i); memcpy(gv, &x, 4); break; }
    case MIO_GGUF_I32: { int32_t x = G.gguf_get_val_i32(gc, i); memcpy(gv, &x, 4); break; }
    case MIO_GGUF_F32: { float x = G.gguf_get_val_f32(gc, i); memcpy(gv, &x, 4); break; }
    case MIO_GGUF_U64: { uint64_t x = G.gguf_get_val_u64(gc, i); memcpy(gv, &x, 8); break; }
    case MIO_GGUF_I64: { int64_t x = G.gguf_get_val_i64(gc, i); memcpy(gv, &x, 8); break; }
    case MIO_GGUF_F64: { double x = G.gguf_get_val_f64(gc, i); memcpy(gv, &x, 8); break; }
    case MIO_GGUF_BOOL: gv[0] = G.gguf_get_val_bool(gc, i) ? 1 : 0; break;
    default: break;
    }
    IC_CHECK(memcmp(gv, e->raw, ic_gguf_type_size(e->type)) == 0, "%s: key %s: %s value differs", what, e->key,
             mio_gguf_type_name(e->type));
}

static uint64_t pad_to(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static void one_iteration(int it) {
    char path[64], what[64];
    snprintf(path, sizeof path, "interop_mio_%d.gguf", it);
    snprintf(what, sizeof what, "iteration %d", it);
    uint32_t flags = peer_below(&R, 4) == 0 ? MIO_WRITER_NO_EMPTY_PAD : MIO_WRITER_DEFAULT;
    mio_writer *w = NULL;
    T_OK(mio_writer_new(flags, &w));
    if (!w) return;

    for (int k = 0; k < n_kv; k++) kv_clear(&KV[k]);
    n_kv = 0;
    int want_kv = it < 3 ? 13 + (int)peer_below(&R, 20) : (int)peer_below(&R, 40);
    for (int k = 0; k < want_kv; k++) {
        char key[96];
        int type = it < 3 && k < 13 ? k : (int)peer_below(&R, 13);
        int pre = snprintf(key, sizeof key, "w%03d.%s.", k, mio_gguf_type_name(type));
        size_t extra = (size_t)peer_below(&R, 16);
        for (size_t c = 0; c < extra; c++) key[(size_t)pre + c] = (char)(1 + peer_below(&R, 255));
        key[(size_t)pre + extra] = 0;
        set_random(w, &KV[n_kv++], key, type);
    }
    /* re-set some keys with a new type: replaced in place, file order kept */
    for (int r = 0; n_kv && r < 3; r++) {
        if (peer_below(&R, 2)) continue;
        int k = (int)peer_below(&R, (uint64_t)n_kv);
        char key[96];
        snprintf(key, sizeof key, "%s", KV[k].key);
        set_random(w, &KV[k], key, (int)peer_below(&R, 13));
    }
    uint32_t align = 32;
    if (peer_below(&R, 3) == 0) {
        static const uint32_t aligns[] = {1, 2, 4, 8, 16, 64, 128, 256, 1024, 4096};
        align = aligns[peer_below(&R, sizeof aligns / sizeof aligns[0])];
        exp_kv *e = &KV[n_kv++];
        kv_clear(e);
        snprintf(e->key, sizeof e->key, "general.alignment");
        e->type = MIO_GGUF_U32;
        e->elem = -1;
        e->n = 1;
        e->raw = (unsigned char *)calloc(1, 8);
        memcpy(e->raw, &align, 4);
        T_OK(mio_writer_set_u32(w, "general.alignment", align));
    }
    T_EQ_INT(mio_writer_kv_count(w), n_kv);
    T_EQ_U64(mio_writer_alignment(w), align);

    int n_t = it < 3 ? MAX_TENSORS : (int)peer_below(&R, MAX_TENSORS + 1);
    unsigned char *bufs[MAX_TENSORS] = {0};
    size_t lens[MAX_TENSORS] = {0};
    char names[MAX_TENSORS][64];
    int64_t nes[MAX_TENSORS][4];
    uint32_t ndims[MAX_TENSORS];
    int types[MAX_TENSORS];
    uint64_t header = 4 + 4 + 8 + 8;
    for (int k = 0; k < n_kv; k++) header += kv_wire_size(&KV[k]);
    for (int k = 0; k < n_t; k++) {
        int type = it < 3 ? valid_types[(it * MAX_TENSORS + k) % n_valid_types]
                          : valid_types[peer_below(&R, (uint64_t)n_valid_types)];
        uint32_t nd = 1 + (uint32_t)peer_below(&R, 4);
        int64_t ne[4] = {1, 1, 1, 1};
        int64_t bs = mio_type_block_size(type);
        ne[0] = bs == 1 ? 1 + (int64_t)peer_below(&R, 40) : bs * (1 + (int64_t)peer_below(&R, 3));
        for (uint32_t d = 1; d < nd; d++) ne[d] = 1 + (int64_t)peer_below(&R, 4);
        size_t nbytes = (size_t)(ne[0] / bs) * G.ggml_type_size(type) * (size_t)(ne[1] * ne[2] * ne[3]);
        int pre = snprintf(names[k], 64, "blk.%d.", k);
        size_t extra = (size_t)peer_below(&R, (uint64_t)(63 - pre + 1));
        for (size_t c = 0; c < extra; c++) names[k][(size_t)pre + c] = (char)(33 + peer_below(&R, 94));
        names[k][(size_t)pre + extra] = 0;
        bufs[k] = (unsigned char *)malloc(nbytes + 1);
        lens[k] = nbytes;
        peer_fill(&R, bufs[k], nbytes);
        memcpy(nes[k], ne, sizeof ne);
        ndims[k] = nd;
        types[k] = type;
        T_OK(mio_writer_add_tensor(w, names[k], type, nd, ne, bufs[k], nbytes));
        header += 8 + strlen(names[k]) + 4 + 8ull * nd + 4 + 8;
    }
    IC_CHECK(mio_writer_header_size(w) == header, "%s: writer header size %llu, computed %llu", what,
             (unsigned long long)mio_writer_header_size(w), (unsigned long long)header);
    T_OK(mio_writer_write_file(w, path));
    mio_writer_free(w);

    /* expected layout */
    uint64_t data_off = pad_to(header, align);
    uint64_t offs[MAX_TENSORS];
    uint64_t run = 0;
    for (int k = 0; k < n_t; k++) { offs[k] = run; run += pad_to(lens[k], align); }
    uint64_t want_size = n_t == 0 && (flags & MIO_WRITER_NO_EMPTY_PAD) ? header : data_off + run;

    size_t flen = 0;
    unsigned char *file = ic_read_file(path, &flen);
    IC_CHECK(file && flen == want_size, "%s: file size %zu, want %llu (flags %u, %d tensors)", what, flen,
             (unsigned long long)want_size, flags, n_t);

    peer_gguf_params p = {true, NULL};
    void *gc = G.gguf_init_from_file(path, p);
    IC_CHECK(gc != NULL, "%s: ggml refuses the file %s we wrote", what, path);
    if (gc) {
        T_EQ_U64(G.gguf_get_version(gc), 3);
        T_EQ_U64(G.gguf_get_alignment(gc), align);
        /* ggml skips the alignment seek when there are no tensors */
        T_EQ_U64(G.gguf_get_data_offset(gc), n_t ? data_off : header);
        T_EQ_INT(G.gguf_get_n_kv(gc), n_kv);
        if (G.gguf_get_n_kv(gc) == n_kv)
            for (int k = 0; k < n_kv; k++) check_kv(gc, k, &KV[k], what);
        T_EQ_INT(G.gguf_get_n_tensors(gc), n_t);
        if (G.gguf_get_n_tensors(gc) == n_t) {
            for (int k = 0; k < n_t; k++) {
                IC_CHECK(strcmp(G.gguf_get_tensor_name(gc, k), names[k]) == 0, "%s: tensor %d name", what, k);
                IC_CHECK(G.gguf_get_tensor_type(gc, k) == types[k], "%s: tensor %s type %d, want %d", what, names[k],
                         G.gguf_get_tensor_type(gc, k), types[k]);
                IC_CHECK((uint64_t)G.gguf_get_tensor_offset(gc, k) == offs[k], "%s: tensor %s offset %zu, want %llu",
                         what, names[k], G.gguf_get_tensor_offset(gc, k), (unsigned long long)offs[k]);
                IC_CHECK(G.gguf_get_tensor_size(gc, k) == lens[k], "%s: tensor %s size %zu, want %zu", what,
                         names[k], G.gguf_get_tensor_size(gc, k), lens[k]);
                if (G.gguf_get_tensor_ne) {
                    const int64_t *ne = G.gguf_get_tensor_ne(gc, k);
                    IC_CHECK(memcmp(ne, nes[k], sizeof nes[k]) == 0, "%s: tensor %s dims (n_dims %u)", what, names[k],
                             ndims[k]);
                }
                if (file && data_off + offs[k] + lens[k] <= flen)
                    IC_CHECK(memcmp(file + data_off + offs[k], bufs[k], lens[k]) == 0, "%s: tensor %s bytes", what,
                             names[k]);
            }
        }
        /* and our reader agrees with ggml on the same file */
        mio_gguf_file *f = NULL;
        mio_status st = mio_gguf_open(path, MIO_OPEN_MMAP, &f);
        IC_CHECK(st == MIO_OK, "%s: mio_gguf_open -> %s: %s", what, mio_status_name(st), mio_last_error());
        if (f && file) {
            ic_compare(&G, gc, f, file, flen, what);
            T_EQ_U64(mio_gguf_header_size(f), header);
            mio_gguf_close(f);
        }
        G.gguf_free(gc);
    }
    if (t_fail == 0) remove(path);
    free(file);
    for (int k = 0; k < n_t; k++) free(bufs[k]);
}

int main(void) {
    ic_load_peer_or_skip(&G);
    peer_rng_seed(&R, peer_seed("interop_we_write"));
    for (int t = 0; t < 42; t++) {
        const char *n = G.ggml_type_name(t);
        if (!n || strncmp(n, "DEPRECATED", 10) == 0 || strncmp(n, "TYPE_", 5) == 0) continue;
        if (!mio_type_name(t) || G.ggml_blck_size(t) <= 0) continue;
        valid_types[n_valid_types++] = t;
    }
    T_CHECK(n_valid_types >= 30);
    for (int it = 0; it < ITERATIONS; it++) one_iteration(it);
    for (int k = 0; k < n_kv; k++) kv_clear(&KV[k]);
    T_DONE();
}
