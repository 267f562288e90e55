/* SPDX-License-Identifier: MIT */
/* vocab_internal.h — what the parts of the tokenizer conversion share:
 * vocab.c (the driver: tokenizer.json / tokenizer_config.json / config.json,
 * the reference's set_vocab paths, SpecialVocab), vocab_spm.c (the
 * SentencePiece ModelProto reader) and vocab_pre.c (the pre-tokenizer table).
 * Nothing here is exported. */
#ifndef MIO_HF_VOCAB_INTERNAL_H
#define MIO_HF_VOCAB_INTERNAL_H

#include "hf/hf_internal.h"

#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Status values: malformed JSON and schema errors are MIO_ERR_INVALID_JSON,
 * malformed protobuf is MIO_ERR_TRUNCATED (cut short) or
 * MIO_ERR_INVALID_METADATA, and what is not converted MIO_ERR_UNSUPPORTED. */
#define HF_ERR_JSON MIO_ERR_INVALID_JSON
#define HF_ERR_PROTO MIO_ERR_INVALID_METADATA
#define HF_ERR_PROTO_CUT MIO_ERR_TRUNCATED
#define HF_ERR_UNSUPPORTED MIO_ERR_UNSUPPORTED

/* gguf-py's TokenType (and SentencePiece's piece types 1..6, the same numbers) */
enum { HF_TOK_NORMAL = 1, HF_TOK_UNKNOWN = 2, HF_TOK_CONTROL = 3, HF_TOK_USER_DEFINED = 4, HF_TOK_UNUSED = 5,
       HF_TOK_BYTE = 6 };

/* Bounds on what a file may announce (beyond them the input is refused). */
#define HF_MAX_TOKENS ((uint64_t)1 << 24)  /* 16.7M tokens: 60x the largest real vocabulary */
#define HF_MAX_FILE ((uint64_t)1 << 31)    /* 2 GiB: tokenizer.json, tokenizer.model, configs */

/* --- SentencePiece ModelProto (vocab_spm.c) --- */
typedef struct hf_spm_piece {
    const uint8_t *text; /* view into the model bytes (not NUL-terminated) */
    uint32_t len;
    float score;         /* 0 when absent (proto2 default) */
    int32_t type;        /* SentencePiece Type: 1 NORMAL (default), 2 UNKNOWN, 3 CONTROL, 4 USER_DEFINED, 5 UNUSED, 6 BYTE */
} hf_spm_piece;

typedef struct hf_spm_model {
    hf_spm_piece *pieces; /* malloc()ed */
    uint64_t n;
    int32_t model_type;   /* TrainerSpec.model_type: 1 UNIGRAM (default), 2 BPE, 3 WORD, 4 CHAR */
} hf_spm_model;

/* Parse a ModelProto (pieces = field 1, TrainerSpec = field 2) from data (borrowed:
 * the pieces point into it). what names the file in messages; malformed input
 * (truncated varint or length, wrong wire type, group wire types, a field past
 * its message) is MIO_ERR_TRUNCATED (cut short) or MIO_ERR_INVALID_METADATA, with
 * the byte offset. */
mio_status mio_hf_spm_parse(const uint8_t *data, size_t size, const char *what, hf_spm_model *out);
void mio_hf_spm_free(hf_spm_model *m);

/* --- pre-tokenizer identification (vocab_pre.c) --- */
typedef struct hf_pre_match {
    const char *name;     /* tokenizer.ggml.pre under which llama.cpp tokenizes like HF */
    const char *ref_name; /* what convert_hf_to_gguf.py's fingerprint gives for the tokenizer this
                             entry was taken from ("" when not known) */
} hf_pre_match;

/* Identify tokenizer.json's pre-tokenizer (root = the parsed file) from its
 * pre_tokenizer, normalizer, model and post_processor. adds_bos: whether the
 * post-processor puts a token first (the reference's fingerprint sees it).
 * MIO_ERR_UNSUPPORTED naming the configuration and --pre when not in the table. */
mio_status mio_hf_pre_identify(const mio_json *root, const char *path, bool adds_bos, hf_pre_match *out);
/* Whether llama.cpp (src/llama-vocab.cpp of the pinned reference) knows name. */
bool mio_hf_pre_known(const char *name);

/* --- small helpers shared by the files --- */
/* Python truthiness of a JSON value (NULL, null, false, 0, "", [], {} are false). */
bool mio_hf_json_truthy(const mio_json *v);

#endif
