/* SPDX-License-Identifier: MIT */
/* sha256.h — SHA-256 (FIPS 180-4), streaming, for mio-inspect --hash. */
#ifndef MIO_TOOLS_SHA256_H
#define MIO_TOOLS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;        /* message length so far */
    unsigned char buf[64]; /* partial block */
    size_t fill;           /* bytes in buf */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
/* Writes the 32-byte digest; c must be re-initialized before reuse. */
void sha256_final(sha256_ctx *c, unsigned char out[32]);

#endif
