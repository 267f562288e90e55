/* SPDX-License-Identifier: MIT */
/* gguf_builder.h — a tiny growable byte buffer for crafting GGUF images in
 * tests: little-endian integers, GGUF strings, KV headers and tensor infos,
 * so each hostile case states exactly which bytes it puts on the wire. */
#ifndef MIO_TEST_GGUF_BUILDER_H
#define MIO_TEST_GGUF_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gbuf {
    uint8_t *p;
    size_t n, cap;
} gbuf;

static void gb_put(gbuf *b, const void *src, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) { fprintf(stderr, "out of memory in test builder\n"); exit(1); }
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void gb_u8(gbuf *b, uint8_t v) { gb_put(b, &v, 1); }
static void gb_u32(gbuf *b, uint32_t v) {
    uint8_t x[4];
    for (int i = 0; i < 4; i++) x[i] = (uint8_t)(v >> (8 * i));
    gb_put(b, x, 4);
}
static void gb_u64(gbuf *b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    gb_put(b, x, 8);
}
static void gb_i64(gbuf *b, int64_t v) { gb_u64(b, (uint64_t)v); }
/* GGUF string: u64 length + bytes. */
static void gb_strn(gbuf *b, const char *s, size_t n) { gb_u64(b, n); gb_put(b, s, n); }
static void gb_str(gbuf *b, const char *s) { gb_strn(b, s, strlen(s)); }
/* File header: magic, version, n_tensors, n_kv. */
static void gb_header(gbuf *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    gb_put(b, "GGUF", 4);
    gb_u32(b, version);
    gb_u64(b, n_tensors);
    gb_u64(b, n_kv);
}
/* KV prefix: key string + value type; the caller appends the value. */
static void gb_kv(gbuf *b, const char *key, uint32_t type) { gb_str(b, key); gb_u32(b, type); }
static void gb_kv_u32(gbuf *b, const char *key, uint32_t v) { gb_kv(b, key, 4); gb_u32(b, v); }
static void gb_kv_str(gbuf *b, const char *key, const char *v) { gb_kv(b, key, 8); gb_str(b, v); }
/* Tensor info: name, n_dims, ne[n_dims], type, offset. */
static void gb_tinfo_n(gbuf *b, const char *name, size_t name_len, uint32_t n_dims, const int64_t *ne, int32_t type,
                       uint64_t offset) {
    gb_strn(b, name, name_len);
    gb_u32(b, n_dims);
    for (uint32_t d = 0; d < n_dims; d++) gb_i64(b, ne[d]);
    gb_u32(b, (uint32_t)type);
    gb_u64(b, offset);
}
static void gb_tinfo(gbuf *b, const char *name, uint32_t n_dims, const int64_t *ne, int32_t type, uint64_t offset) {
    gb_tinfo_n(b, name, strlen(name), n_dims, ne, type, offset);
}
/* Zero bytes up to the next multiple of align. */
static void gb_pad(gbuf *b, size_t align) {
    static const uint8_t z[64];
    while (b->n % align) gb_put(b, z, (align - b->n % align) < sizeof z ? align - b->n % align : sizeof z);
}
/* n bytes of value v. */
static void gb_fill(gbuf *b, uint8_t v, size_t n) {
    for (size_t i = 0; i < n; i++) gb_u8(b, v);
}
static void gb_free(gbuf *b) {
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

#endif
