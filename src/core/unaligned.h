/* SPDX-License-Identifier: MIT */
/* unaligned.h — little-endian loads and stores at any alignment (memcpy, which
 * compilers turn into one move). The library runs on little-endian hosts only
 * (CMakeLists.txt refuses others), so these are also the file byte order. */
#ifndef MIO_CORE_UNALIGNED_H
#define MIO_CORE_UNALIGNED_H

#include <stdint.h>

static inline uint16_t ld16(const void *p) { uint16_t v; __builtin_memcpy(&v, p, 2); return v; }
static inline uint32_t ld32(const void *p) { uint32_t v; __builtin_memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const void *p) { uint64_t v; __builtin_memcpy(&v, p, 8); return v; }
static inline float ldf32(const void *p) { float v; __builtin_memcpy(&v, p, 4); return v; }
static inline void st16(void *p, uint16_t v) { __builtin_memcpy(p, &v, 2); }
static inline void st32(void *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }
static inline void st64(void *p, uint64_t v) { __builtin_memcpy(p, &v, 8); }
static inline void stf32(void *p, float v) { __builtin_memcpy(p, &v, 4); }

#endif
