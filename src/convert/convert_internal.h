/* SPDX-License-Identifier: MIT */
/* convert_internal.h — the text encoding of GGUF metadata inside a
 * safetensors __metadata__ map (metacodec.c), used by the GGUF <-> safetensors
 * converter (convert.c). The encoding is specified in docs/CONVERT.md. */
#ifndef MIO_CONVERT_INTERNAL_H
#define MIO_CONVERT_INTERNAL_H

#include "core/core.h"
#include "gguf/gguf_internal.h"

/* The __metadata__ key holding the GGUF layout document. */
#define MC_LAYOUT_KEY "__gguf__"
/* Prefix of GGUF keys that carry safetensors metadata (a file converted from
 * safetensors); scalar (shape []) tensors are listed under MC_SCALARS_KEY. */
#define MC_ST_PREFIX "safetensors.metadata."
#define MC_SCALARS_KEY "safetensors.scalar_tensors"

/* A growable byte buffer; oom is sticky. */
typedef struct mc_buf {
    char *p;
    size_t n, cap;
    bool oom;
} mc_buf;
void mio_mc_put(mc_buf *b, const void *s, size_t n);
void mio_mc_str(mc_buf *b, const char *s);
/* A JSON string literal for n bytes of valid UTF-8 (quotes included). */
void mio_mc_json_str(mc_buf *b, const char *s, size_t n);
/* NUL-terminate and hand over (NULL after an allocation failure). */
char *mio_mc_take(mc_buf *b);

/* 1 if the n bytes are valid UTF-8 without NUL bytes. */
bool mio_mc_plain_text(const uint8_t *p, size_t n);

/* The text form of one GGUF value: *type_name is the layout type ("u32",
 * "str", "f32[]", "str/base64", "raw/base64", ...) and *text a malloc'd,
 * NUL-terminated UTF-8 string. */
mio_status mio_mc_encode_value(const gguf_kv *kv, const char **type_name, char **text);
/* The inverse, for text_len bytes of text: the wire type and wire bytes
 * (malloc'd) of a value. Messages name key. */
mio_status mio_mc_decode_value(const char *key, const char *type_name, const char *text, size_t text_len, int *type,
                               uint8_t **raw, size_t *raw_len);

#endif
