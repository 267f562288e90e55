/* SPDX-License-Identifier: MIT */
/* json.h — the library's JSON document model: a strict RFC 8259 parser, the
 * tree it builds (and that callers build), lookups, edits, deep copy and
 * compare, and the printer whose bytes the tools and writers emit.
 *
 * The tree: every value is a mio_json node. An array's or an object's elements
 * are its `child` list, linked by `next` (`prev` of the first element points at
 * the last one, for appends; walk with `next` only). An object's member keeps
 * its key in `string` (NUL-terminated, `stringlen` bytes). Fields are read
 * directly; change a tree only through the functions below.
 *
 * Decisions (docs: the comments here are the reference):
 * - Strings are stored as decoded bytes, NUL-terminated, with their byte
 *   length in `valuelen`. An escaped \u0000 is kept (valuelen counts it, the
 *   printer writes it back as \u0000); a caller reading valuestring as a C
 *   string sees the text up to it. Raw bytes >= 0x80 are copied as they are
 *   (UTF-8 is not validated; callers that need valid UTF-8 check it).
 * - \u escapes: a surrogate pair becomes one 4-byte UTF-8 sequence; a lone
 *   surrogate (high without a following \uDC00-\uDFFF, or a low one alone) is
 *   refused.
 * - Nesting: at most MIO_JSON_MAX_DEPTH arrays/objects inside one another;
 *   one more is refused (the parser recurses once per level, no deeper).
 * - Duplicate keys are kept in document order; mio_json_get returns the first.
 * - Numbers: the RFC grammar only (no '+', no leading zero, no NaN/Infinity,
 *   digits on both sides of '.'), converted with strtod in the "C" notation
 *   whatever the locale. valueint is the double saturated to int (truncated
 *   toward zero); a plain non-negative integer token that fits in 64 bits also
 *   sets has_u64 and valueu64 (exact, beyond 2^53).
 * - Whitespace is space, tab, LF and CR only; a leading UTF-8 byte-order mark
 *   is skipped; anything but whitespace after the value is refused (unless the
 *   caller parses a prefix, mio_json_parse_prefix).
 * - Memory: one node per value, and string bytes no more than the input's;
 *   allocation failure is reported as such (err->nomem), not as bad JSON.
 */
#ifndef MIO_CORE_JSON_H
#define MIO_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MIO_JSON_MAX_DEPTH 1000

typedef enum mio_json_type {
    MIO_JSON_INVALID = 0,
    MIO_JSON_NULL,
    MIO_JSON_FALSE,
    MIO_JSON_TRUE,
    MIO_JSON_NUMBER,
    MIO_JSON_STRING,
    MIO_JSON_ARRAY,
    MIO_JSON_OBJECT,
    MIO_JSON_RAW, /* valuestring printed verbatim (never produced by the parser) */
} mio_json_type;

typedef struct mio_json {
    struct mio_json *next, *prev, *child;
    mio_json_type type;
    bool has_u64;        /* NUMBER parsed from a non-negative integer token < 2^64 */
    bool in_arena;       /* the node and its strings live in a mio_json_arena: mio_json_free leaves them */
    int valueint;        /* NUMBER: valuedouble saturated to int */
    double valuedouble;  /* NUMBER */
    uint64_t valueu64;   /* NUMBER with has_u64: the token's exact value */
    char *valuestring;   /* STRING, RAW: the bytes, NUL-terminated */
    size_t valuelen;     /* STRING, RAW: their length (a STRING may hold NUL bytes) */
    char *string;        /* an object member's key, NUL-terminated (NULL otherwise) */
    size_t stringlen;
} mio_json;

/* Why a parse failed: the byte offset in the input where it was detected and
 * a fixed reason ("expected ':'", "nesting deeper than 1000", ...); nomem when
 * an allocation failed (then the input may well be valid). */
typedef struct mio_json_error {
    size_t offset;
    const char *reason;
    bool nomem;
} mio_json_error;

/* Parse len bytes (no NUL needed) holding one JSON value and nothing but
 * whitespace after it. NULL on failure (err, when not NULL, says where and why). */
mio_json *mio_json_parse(const char *text, size_t len, mio_json_error *err);
/* A parse whose nodes and strings are carved from a few large blocks: for a
 * big read-only document (a 30 MB tokenizer.json is millions of nodes), it
 * saves an allocation per node and per string and frees everything at once.
 * end as for mio_json_parse_prefix (NULL: nothing but whitespace may follow).
 * *arena receives the blocks (free them with mio_json_arena_free, which
 * invalidates the tree). mio_json_free on any node of such a tree does
 * nothing; a node added to it later is not freed with it (add none). */
typedef struct mio_json_arena mio_json_arena;
mio_json *mio_json_parse_arena(const char *text, size_t len, size_t *end, mio_json_error *err, mio_json_arena **arena);
void mio_json_arena_free(mio_json_arena *a);
/* mio_json_parse of a NUL-terminated text. */
mio_json *mio_json_parse_str(const char *text, mio_json_error *err);
/* One JSON value at the start of text (after whitespace); whatever follows it
 * is left unread: *end (when not NULL) is the offset just past the value. */
mio_json *mio_json_parse_prefix(const char *text, size_t len, size_t *end, mio_json_error *err);

/* The JSON text of a tree, malloc()ed and NUL-terminated (free() it); NULL on
 * allocation failure or on a node of type MIO_JSON_INVALID. Compact: no
 * whitespace at all. Formatted: each object member on its own line, indented
 * with one tab per level, `"key":<TAB>value`; arrays on one line, ", " between
 * elements; an empty object is "{\n" + the indent + "}". Numbers: NaN and
 * infinities print as null, others with %1.15g, or %1.17g when the 15 digits
 * do not read back to the same double. Strings: '"', '\\', \b \f \n \r \t
 * escaped, other bytes below 0x20 as \u00xx, all else as it is. */
char *mio_json_print(const mio_json *j, bool formatted);

/* Free a tree (NULL is fine). A node still linked into a parent must be
 * detached first. */
void mio_json_free(mio_json *j);

/* --- construction: NULL on allocation failure --- */
mio_json *mio_json_new_null(void);
mio_json *mio_json_new_bool(bool b);
mio_json *mio_json_new_number(double d);
mio_json *mio_json_new_string(const char *s);                /* s NULL: NULL */
mio_json *mio_json_new_string_n(const char *s, size_t len);  /* may hold NUL bytes */
mio_json *mio_json_new_raw(const char *text);                /* text NULL: NULL */
mio_json *mio_json_new_array(void);
mio_json *mio_json_new_object(void);

/* Append item to an array (or an object, keeping item's key). The parent owns
 * item afterwards. false (item not taken) when either is NULL or item is the
 * parent. */
bool mio_json_append(mio_json *arr, mio_json *item);
/* Append item to obj under key (a copy of key replaces any key item had).
 * false (item not taken, still the caller's) on NULL arguments or allocation
 * failure. */
bool mio_json_add(mio_json *obj, const char *key, mio_json *item);
/* mio_json_add of a new string; the new node, or NULL on failure. */
mio_json *mio_json_add_string(mio_json *obj, const char *key, const char *s);
/* Replace obj's first member named key by item (which takes the key). false
 * (item not taken) when there is no such member, or on allocation failure. */
bool mio_json_replace(mio_json *obj, const char *key, mio_json *item);
/* Unlink obj's first member named key and return it (the caller frees it);
 * NULL when there is none. */
mio_json *mio_json_detach(mio_json *obj, const char *key);
/* Unlink and free obj's first member named key (nothing when there is none). */
void mio_json_remove(mio_json *obj, const char *key);

/* --- lookup --- */
/* The first member of obj whose key is exactly key (bytes, case-sensitive);
 * NULL when obj is NULL or not an object, or has no such member. */
mio_json *mio_json_get(const mio_json *obj, const char *key);
/* The number of elements of an array (members of an object); 0 for NULL and
 * scalars. */
int mio_json_size(const mio_json *arr);
/* The i-th element of an array (member of an object); NULL when out of range. */
mio_json *mio_json_at(const mio_json *arr, int i);
/* Each element of an array (member of an object) in turn; arr may be NULL. */
#define MIO_JSON_FOR_EACH(el, arr) for ((el) = (arr) ? (arr)->child : NULL; (el); (el) = (el)->next)

/* A deep copy of j (its key too); NULL on allocation failure or j NULL. */
mio_json *mio_json_dup(const mio_json *j);
/* Deep equality: same types; numbers equal as doubles; strings and raw texts
 * byte for byte; arrays element by element; objects with the same number of
 * members, each member of a equal to b's first member of that key and every
 * key of b present in a (for objects without repeated keys: the same members
 * both ways). Linear in the nodes (large objects: n log n). NULL equals
 * nothing (not even NULL). */
bool mio_json_equal(const mio_json *a, const mio_json *b);

/* --- type tests (j may be NULL: false) --- */
static inline bool mio_json_is_null(const mio_json *j) { return j && j->type == MIO_JSON_NULL; }
static inline bool mio_json_is_false(const mio_json *j) { return j && j->type == MIO_JSON_FALSE; }
static inline bool mio_json_is_true(const mio_json *j) { return j && j->type == MIO_JSON_TRUE; }
static inline bool mio_json_is_bool(const mio_json *j) {
    return j && (j->type == MIO_JSON_TRUE || j->type == MIO_JSON_FALSE);
}
static inline bool mio_json_is_number(const mio_json *j) { return j && j->type == MIO_JSON_NUMBER; }
static inline bool mio_json_is_string(const mio_json *j) { return j && j->type == MIO_JSON_STRING; }
static inline bool mio_json_is_array(const mio_json *j) { return j && j->type == MIO_JSON_ARRAY; }
static inline bool mio_json_is_object(const mio_json *j) { return j && j->type == MIO_JSON_OBJECT; }
static inline bool mio_json_is_raw(const mio_json *j) { return j && j->type == MIO_JSON_RAW; }
/* j's string (NULL unless j is a string) */
static inline const char *mio_json_string(const mio_json *j) { return mio_json_is_string(j) ? j->valuestring : NULL; }
/* A string whose C string is all of it (no escaped NUL byte), and a member
 * whose key is: what a file or tensor name read from JSON must be, or its C
 * string would name something else ("a\u0000b" as "a"). */
static inline bool mio_json_is_cstring(const mio_json *j) {
    return mio_json_is_string(j) && strlen(j->valuestring) == j->valuelen;
}
static inline bool mio_json_key_is_cstring(const mio_json *m) { return m && m->string && strlen(m->string) == m->stringlen; }

#endif
