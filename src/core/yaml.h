/* SPDX-License-Identifier: MIT */
/* yaml.h — the YAML a Hugging Face model card's front matter uses, read into
 * the JSON tree of json.h (docs/HF_CONVERT.md "The model card"):
 *   - block mappings and sequences by indentation (a sequence may sit at its
 *     key's indentation), "- key: value" items, flow [..] and {..};
 *   - plain, 'single' and "double" quoted scalars (over several lines too),
 *     literal | and folded > block scalars with their chomping and indentation
 *     indicators, # comments.
 * A plain scalar becomes a MIO_JSON_RAW node (its text, unresolved: see
 * mio_yaml_plain_kind), a quoted or block scalar a MIO_JSON_STRING, a mapping
 * an object (a repeated key: the last wins, as PyYAML), a sequence an array.
 * Anchors, aliases, tags, directives, several documents and complex keys are
 * refused (model cards do not use them), as is anything malformed: NULL with
 * the line and the reason. Bounded: nesting depth, text size. Only libc. */
#ifndef MIO_CORE_YAML_H
#define MIO_CORE_YAML_H

#include "core/json.h"

#include <stddef.h>

#define MIO_YAML_MAX_DEPTH 64
#define MIO_YAML_MAX_BYTES ((size_t)1 << 20) /* 1 MiB of YAML */

typedef struct mio_yaml_error {
    size_t line;        /* 1-based line of the YAML text */
    const char *reason; /* a fixed string */
    bool nomem;
} mio_yaml_error;

/* Parse len bytes of YAML (one document, no "---" lines). NULL on failure. */
mio_json *mio_yaml_parse(const char *text, size_t len, mio_yaml_error *err);

/* What PyYAML's resolver (YAML 1.1) makes of a plain scalar. */
typedef enum {
    MIO_YAML_STR = 0,
    MIO_YAML_NULL,  /* "", ~, null */
    MIO_YAML_TRUE,  /* true, yes, on (any of their three spellings) */
    MIO_YAML_FALSE, /* false, no, off */
    MIO_YAML_INT,
    MIO_YAML_FLOAT,
    MIO_YAML_ZERO,  /* an int or float equal to 0 (falsy in Python) */
    MIO_YAML_DATE,  /* a timestamp */
} mio_yaml_kind;

mio_yaml_kind mio_yaml_plain_kind(const char *s);

#endif
