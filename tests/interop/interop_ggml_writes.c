/* SPDX-License-Identifier: MIT */
/* interop_ggml_writes.c — ggml writes, libmodelio reads: random GGUF files built
 * with ggml's own writer (every value type, arrays of every element type, strings
 * of arbitrary bytes, tensors of every ggml type, custom alignments) must parse
 * identically with mio_gguf_open and re-emit byte-identically with mio_writer. */
#include "interop.h"

#define ITERATIONS 30
#define MAX_TENSORS 14

static peer_api G;
static peer_rng R;
static int valid_types[64];
static int n_valid_types;
static int n_custom_align, n_identical, n_no_tensors;

/* Random NUL-free string (ggml's setters take C strings) of length len. */
static char *rand_cstr(size_t len) {
    char *s = (char *)malloc(len + 1);
    for (size_t k = 0; k < len; k++) s[k] = (char)(1 + peer_below(&R, 255));
    s[len] = 0;
    return s;
}

static size_t rand_len(void) {
    uint64_t r = peer_below(&R, 10);
    if (r == 0) return 0;
    if (r == 9) return (size_t)peer_below(&R, 600);
    return (size_t)peer_below(&R, 40);
}

static void rand_fixed(int t, void *dst, size_t n) {
    size_t es = ic_gguf_type_size(t);
    unsigned char *p = (unsigned char *)dst;
    if (t == MIO_GGUF_BOOL) {
        for (size_t k = 0; k < n; k++) p[k] = (unsigned char)peer_below(&R, 2);
        return;
    }
    peer_fill(&R, p, es * n);
    /* sprinkle edge values: 0, all-ones, the sign bit */
    for (size_t k = 0; k < n; k++) {
        uint64_t e = peer_below(&R, 8);
        if (e == 0) memset(p + k * es, 0, es);
        else if (e == 1) memset(p + k * es, 0xff, es);
        else if (e == 2) { memset(p + k * es, 0, es); p[k * es + es - 1] = 0x80; }
    }
}

static int rand_scalar_type(void) {
    static const int types[] = {MIO_GGUF_U8, MIO_GGUF_I8, MIO_GGUF_U16, MIO_GGUF_I16, MIO_GGUF_U32, MIO_GGUF_I32,
                                MIO_GGUF_F32, MIO_GGUF_BOOL, MIO_GGUF_STRING, MIO_GGUF_U64, MIO_GGUF_I64,
                                MIO_GGUF_F64};
    return types[peer_below(&R, sizeof types / sizeof types[0])];
}

/* One random KV into the ggml context. */
static void add_random_kv(void *gc, int idx, int type) {
    char key[128];
    /* unique prefix, then arbitrary (NUL-free) bytes */
    int pre = snprintf(key, sizeof key, "k%03d.%s.", idx, mio_gguf_type_name(type));
    size_t extra = (size_t)peer_below(&R, 20);
    for (size_t k = 0; k < extra && (size_t)pre + k + 1 < sizeof key; k++) key[(size_t)pre + k] = (char)(1 + peer_below(&R, 255));
    key[(size_t)pre + extra] = 0;

    unsigned char v[8];
    switch (type) {
    case MIO_GGUF_U8: rand_fixed(type, v, 1); G.gguf_set_val_u8(gc, key, v[0]); break;
    case MIO_GGUF_I8: rand_fixed(type, v, 1); G.gguf_set_val_i8(gc, key, (int8_t)v[0]); break;
    case MIO_GGUF_U16: { uint16_t x; rand_fixed(type, &x, 1); G.gguf_set_val_u16(gc, key, x); break; }
    case MIO_GGUF_I16: { int16_t x; rand_fixed(type, &x, 1); G.gguf_set_val_i16(gc, key, x); break; }
    case MIO_GGUF_U32: { uint32_t x; rand_fixed(type, &x, 1); G.gguf_set_val_u32(gc, key, x); break; }
    case MIO_GGUF_I32: { int32_t x; rand_fixed(type, &x, 1); G.gguf_set_val_i32(gc, key, x); break; }
    case MIO_GGUF_F32: { float x; rand_fixed(type, &x, 1); G.gguf_set_val_f32(gc, key, x); break; }
    case MIO_GGUF_U64: { uint64_t x; rand_fixed(type, &x, 1); G.gguf_set_val_u64(gc, key, x); break; }
    case MIO_GGUF_I64: { int64_t x; rand_fixed(type, &x, 1); G.gguf_set_val_i64(gc, key, x); break; }
    case MIO_GGUF_F64: { double x; rand_fixed(type, &x, 1); G.gguf_set_val_f64(gc, key, x); break; }
    case MIO_GGUF_BOOL: G.gguf_set_val_bool(gc, key, peer_below(&R, 2) != 0); break;
    case MIO_GGUF_STRING: { char *s = rand_cstr(rand_len()); G.gguf_set_val_str(gc, key, s); free(s); break; }
    case MIO_GGUF_ARRAY: {
        int et = rand_scalar_type();
        size_t n = peer_below(&R, 6) == 0 ? (size_t)peer_below(&R, 3000) : (size_t)peer_below(&R, 40);
        if (et == MIO_GGUF_STRING) {
            char **strs = (char **)malloc((n ? n : 1) * sizeof *strs);
            for (size_t k = 0; k < n; k++) strs[k] = rand_cstr(rand_len() % 64);
            G.gguf_set_arr_str(gc, key, (const char **)strs, n);
            for (size_t k = 0; k < n; k++) free(strs[k]);
            free(strs);
        } else {
            size_t es = ic_gguf_type_size(et);
            void *d = malloc(n * es + 1);
            rand_fixed(et, d, n);
            G.gguf_set_arr_data(gc, key, et, d, n);
            free(d);
        }
        break;
    }
    default: break;
    }
}

static int64_t row_unit(int type) { return G.ggml_blck_size(type); }

/* One full iteration; returns nothing, records checks. */
static void one_iteration(int it) {
    char path[64], meta_path[64], out_path[64], what[64];
    snprintf(path, sizeof path, "interop_ggml_%d.gguf", it);
    snprintf(meta_path, sizeof meta_path, "interop_ggml_%d.meta.gguf", it);
    snprintf(out_path, sizeof out_path, "interop_ggml_%d.mio.gguf", it);
    snprintf(what, sizeof what, "iteration %d", it);

    static const uint32_t aligns[] = {1, 2, 4, 8, 16, 64, 128, 256, 1024, 4096};
    int custom_align = peer_below(&R, 3) == 0;
    uint32_t align = 32;
    void *gc;
    if (custom_align) {
        /* ggml's writer pads with the context's alignment, which only
         * gguf_init_from_file sets from general.alignment: seed the context from a
         * file that carries the key (this is how ggml itself rewrites files). */
        align = aligns[peer_below(&R, sizeof aligns / sizeof aligns[0])];
        n_custom_align++;
        void *g0 = G.gguf_init_empty();
        G.gguf_set_val_u32(g0, "general.alignment", align);
        T_CHECK(G.gguf_write_to_file(g0, meta_path, false));
        G.gguf_free(g0);
        peer_gguf_params p = {true, NULL};
        gc = G.gguf_init_from_file(meta_path, p);
        remove(meta_path);
        T_CHECK(gc != NULL);
        if (!gc) return;
        T_EQ_U64(G.gguf_get_alignment(gc), align);
    } else {
        gc = G.gguf_init_empty();
    }

    /* metadata: every type at least once in the first iterations, then random */
    int n_kv = (int)peer_below(&R, 40);
    if (it < 3) n_kv = 13 + (int)peer_below(&R, 20);
    for (int k = 0; k < n_kv; k++) {
        int type = k < 13 && it < 3 ? k : (int)peer_below(&R, 13);
        add_random_kv(gc, k, type);
    }
    if (custom_align && peer_below(&R, 2)) G.gguf_set_val_u32(gc, "general.alignment", align); /* move it last */

    /* tensors */
    int n_t = (int)peer_below(&R, MAX_TENSORS + 1);
    if (it < 3) n_t = MAX_TENSORS; /* the first iterations cover every type in turn */
    peer_ggml_params gp = {(size_t)(n_t + 1) * G.ggml_tensor_overhead(), NULL, true};
    void *ggml_ctx = G.ggml_init(gp);
    T_CHECK(ggml_ctx != NULL);
    unsigned char *bufs[MAX_TENSORS] = {0};
    size_t lens[MAX_TENSORS] = {0};
    for (int k = 0; k < n_t; k++) {
        int type = it < 3 ? valid_types[(it * MAX_TENSORS + k) % n_valid_types]
                          : valid_types[peer_below(&R, (uint64_t)n_valid_types)];
        int n_dims = 1 + (int)peer_below(&R, 4);
        int64_t ne[4] = {1, 1, 1, 1};
        int64_t bs = row_unit(type);
        ne[0] = bs == 1 ? 1 + (int64_t)peer_below(&R, 48) : bs * (1 + (int64_t)peer_below(&R, 3));
        for (int d = 1; d < n_dims; d++) ne[d] = 1 + (int64_t)peer_below(&R, 4);
        size_t nbytes = (size_t)(ne[0] / bs) * G.ggml_type_size(type) * (size_t)(ne[1] * ne[2] * ne[3]);
        char name[64];
        int pre = snprintf(name, sizeof name, "t%02d.", k);
        size_t extra = (size_t)peer_below(&R, (uint64_t)(63 - pre + 1));
        for (size_t c = 0; c < extra; c++) name[(size_t)pre + c] = (char)(33 + peer_below(&R, 94));
        name[(size_t)pre + extra] = 0;
        void *t = G.ggml_new_tensor(ggml_ctx, type, n_dims, ne);
        G.ggml_set_name(t, name);
        G.gguf_add_tensor(gc, t);
        bufs[k] = (unsigned char *)malloc(nbytes + 1);
        lens[k] = nbytes;
        peer_fill(&R, bufs[k], nbytes);
        G.gguf_set_tensor_data(gc, name, bufs[k]);
        T_EQ_U64(G.gguf_get_tensor_size(gc, k), nbytes);
    }
    T_CHECK(G.gguf_write_to_file(gc, path, false));
    G.gguf_free(gc);
    if (n_t == 0) n_no_tensors++;
    G.ggml_free(ggml_ctx);

    /* read back with both */
    size_t flen = 0;
    unsigned char *file = ic_read_file(path, &flen);
    T_CHECK(file != NULL);
    peer_gguf_params p = {true, NULL};
    void *gr = G.gguf_init_from_file(path, p);
    IC_CHECK(gr != NULL, "%s: ggml cannot read its own file %s", what, path);
    mio_gguf_file *f = NULL;
    mio_status st = mio_gguf_open(path, MIO_OPEN_MMAP, &f);
    IC_CHECK(st == MIO_OK, "%s: mio_gguf_open(%s) -> %s: %s", what, path, mio_status_name(st), mio_last_error());
    if (gr && f && file) {
        ic_compare(&G, gr, f, file, flen, what);
        T_EQ_U64(mio_gguf_alignment(f), align);
        T_EQ_INT(mio_gguf_tensor_count(f), n_t);
        for (int k = 0; k < n_t && k < mio_gguf_tensor_count(f); k++) {
            mio_gguf_tensor t;
            if (mio_gguf_tensor_info(f, k, &t) != MIO_OK) continue;
            IC_CHECK(t.nbytes == lens[k] && memcmp(t.data, bufs[k], lens[k]) == 0,
                     "%s: tensor %d data differs from what was handed to ggml", what, k);
        }

        /* re-emit with our writer: must be byte-identical to ggml's file */
        mio_writer *w = NULL;
        T_OK(mio_writer_new(MIO_WRITER_DEFAULT, &w));
        if (w) {
            T_OK(mio_writer_copy_all_kv(w, f, NULL, 0));
            for (int64_t k = 0; k < mio_gguf_tensor_count(f); k++) {
                mio_gguf_tensor t;
                if (mio_gguf_tensor_info(f, k, &t) != MIO_OK) continue;
                char name[80];
                snprintf(name, sizeof name, "%.*s", (int)t.name.len, t.name.ptr);
                T_OK(mio_writer_add_tensor(w, name, t.type, t.n_dims, t.ne, t.data, (size_t)t.nbytes));
            }
            T_EQ_U64(mio_writer_alignment(w), align);
            T_OK(mio_writer_write_file(w, out_path));
            mio_writer_free(w);
            size_t olen = 0;
            unsigned char *out = ic_read_file(out_path, &olen);
            size_t diff = 0;
            if (out) while (diff < olen && diff < flen && out[diff] == file[diff]) diff++;
            IC_CHECK(out && olen == flen && diff == flen,
                     "%s: re-emitted file differs from ggml's: sizes %zu vs %zu, first difference at byte %zu",
                     what, olen, flen, diff);
            if (out && olen == flen && diff == flen) {
                n_identical++;
                remove(out_path);
            }
            free(out);
        }
    }
    if (f) mio_gguf_close(f);
    if (gr) G.gguf_free(gr);
    if (t_fail == 0) remove(path);
    free(file);
    for (int k = 0; k < n_t; k++) free(bufs[k]);
}

int main(void) {
    ic_load_peer_or_skip(&G);
    peer_rng_seed(&R, peer_seed("interop_ggml_writes"));

    /* every tensor type both sides know (ggml names it, we know it) */
    for (int t = 0; t < 42; t++) {
        const char *n = G.ggml_type_name(t);
        if (!n || strncmp(n, "DEPRECATED", 10) == 0 || strncmp(n, "TYPE_", 5) == 0) continue;
        if (!mio_type_name(t) || G.ggml_blck_size(t) <= 0) continue;
        valid_types[n_valid_types++] = t;
    }
    printf("tensor types exercised: %d\n", n_valid_types);
    T_CHECK(n_valid_types >= 30);

    for (int it = 0; it < ITERATIONS; it++) one_iteration(it);
    printf("%d ggml-written files (%d with a custom general.alignment, %d without tensors); "
           "%d re-emitted byte-identically\n", ITERATIONS, n_custom_align, n_no_tensors, n_identical);
    T_EQ_INT(n_identical, ITERATIONS);
    T_DONE();
}
