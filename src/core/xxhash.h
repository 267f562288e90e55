/* SPDX-License-Identifier: MIT */
/* xxhash.h — XXH64 and XXH3-64 (default secret, seed 0), one-shot and
 * streaming, written from the algorithm's public specification (xxHash's
 * doc/xxhash_spec.md, v0.1.1). Values are bit-identical to the reference
 * library's XXH64() / XXH3_64bits() for every input and every way of splitting
 * a stream (tests/unit/test_xxhash.c checks that against libxxhash). Used by
 * the name hash, checkpoint file hashes and mio-inspect --hash.
 *
 * The streaming states are plain structs the caller owns (no allocation):
 * init, then any number of updates (len 0 and p NULL allowed), then digest,
 * which leaves the state as it was (more updates may follow). */
#ifndef MIO_CORE_XXHASH_H
#define MIO_CORE_XXHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t mio_xxh64(const void *p, size_t len, uint64_t seed);
uint64_t mio_xxh3_64(const void *p, size_t len);

typedef struct mio_xxh64_state {
    uint64_t acc[4];
    uint64_t total; /* bytes so far */
    uint64_t seed;
    unsigned char buf[32]; /* a stripe not yet complete */
    unsigned nbuf;
} mio_xxh64_state;
void mio_xxh64_init(mio_xxh64_state *s, uint64_t seed);
void mio_xxh64_update(mio_xxh64_state *s, const void *p, size_t len);
uint64_t mio_xxh64_digest(const mio_xxh64_state *s);

typedef struct mio_xxh3_state {
    uint64_t acc[8];
    uint64_t total;          /* bytes so far */
    unsigned nstripes;       /* stripes accumulated in the current block (0..15) */
    unsigned nbuf;           /* bytes in buf not accumulated yet */
    unsigned char last[64];  /* the last stripe accumulated (the final stripe may reach into it) */
    unsigned char buf[256];  /* the whole input while it is at most 256 bytes */
} mio_xxh3_state;
void mio_xxh3_init(mio_xxh3_state *s);
void mio_xxh3_update(mio_xxh3_state *s, const void *p, size_t len);
uint64_t mio_xxh3_digest(const mio_xxh3_state *s);

#endif
