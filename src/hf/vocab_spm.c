/* SPDX-License-Identifier: MIT */
/* vocab_spm.c — a small protobuf reader for SentencePiece's ModelProto
 * (sentencepiece_model.proto): the pieces (field 1: piece = 1, score = 2,
 * type = 3) and TrainerSpec.model_type (field 2 -> 3); everything else is
 * skipped by wire type. Two message levels, no recursion; every varint,
 * length and fixed field is checked against the bytes left, and a failure
 * names the byte offset. */
#include "hf/vocab_internal.h"

#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb {
    const uint8_t *p;
    size_t pos, end; /* absolute offsets into the file */
    const char *what;
} pb;

static mio_status pb_fail(const pb *b, size_t at, const char *msg) {
    return mio_err_set(strncmp(msg, "truncated", 9) == 0 || strstr(msg, "runs past") ? HF_ERR_PROTO_CUT : HF_ERR_PROTO, "%s: malformed protobuf at byte %zu: %s", b->what, at, msg);
}

static mio_status pb_varint(pb *b, uint64_t *v) {
    size_t at = b->pos;
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (b->pos >= b->end) return pb_fail(b, at, "truncated varint");
        uint8_t c = b->p[b->pos++];
        if (shift == 63 && (c & 0x7e)) return pb_fail(b, at, "varint longer than 64 bits");
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = r;
            return MIO_OK;
        }
    }
    return pb_fail(b, at, "varint longer than 10 bytes");
}

/* Read a field key; wire types 3 and 4 (groups) and 6, 7 are refused. */
static mio_status pb_key(pb *b, uint32_t *field, uint32_t *wt) {
    size_t at = b->pos;
    uint64_t k = 0;
    mio_status st = pb_varint(b, &k);
    if (st) return st;
    *wt = (uint32_t)(k & 7);
    if (k >> 3 == 0 || k >> 3 > 0x1fffffff) return pb_fail(b, at, "field number 0 or above 2^29-1");
    *field = (uint32_t)(k >> 3);
    if (*wt != 0 && *wt != 1 && *wt != 2 && *wt != 5) {
        char m[128];
        snprintf(m, sizeof m, "field %u has wire type %u (groups and types 6/7 are not accepted)", *field, *wt);
        return pb_fail(b, at, m);
    }
    return MIO_OK;
}

/* The length of a length-delimited field, checked against the enclosing message. */
static mio_status pb_len(pb *b, size_t *len) {
    size_t at = b->pos;
    uint64_t l = 0;
    mio_status st = pb_varint(b, &l);
    if (st) return st;
    if (l > b->end - b->pos) {
        char m[96];
        snprintf(m, sizeof m, "length %llu runs past the end of its message (%zu bytes left)", (unsigned long long)l,
                 b->end - b->pos);
        return pb_fail(b, at, m);
    }
    *len = (size_t)l;
    return MIO_OK;
}

static mio_status pb_skip(pb *b, uint32_t wt) {
    size_t at = b->pos, len = 0;
    uint64_t v = 0;
    switch (wt) {
    case 0: return pb_varint(b, &v);
    case 1:
        if (b->end - b->pos < 8) return pb_fail(b, at, "truncated fixed64");
        b->pos += 8;
        return MIO_OK;
    case 5:
        if (b->end - b->pos < 4) return pb_fail(b, at, "truncated fixed32");
        b->pos += 4;
        return MIO_OK;
    default: {
        mio_status st = pb_len(b, &len);
        if (st) return st;
        b->pos += len;
        return MIO_OK;
    }
    }
}

static mio_status pb_expect(const pb *b, size_t at, uint32_t field, uint32_t wt, uint32_t want, const char *name) {
    if (wt == want) return MIO_OK;
    char m[112];
    snprintf(m, sizeof m, "%s (field %u) has wire type %u, expected %u", name, field, wt, want);
    return pb_fail(b, at, m);
}

static mio_status parse_piece(pb *b, hf_spm_piece *pc) {
    pc->text = NULL;
    pc->len = 0;
    pc->score = 0.0f;
    pc->type = HF_TOK_NORMAL;
    bool have_text = false;
    size_t start = b->pos;
    while (b->pos < b->end) {
        size_t at = b->pos, len = 0;
        uint32_t f = 0, wt = 0;
        uint64_t v = 0;
        mio_status st = pb_key(b, &f, &wt);
        if (st) return st;
        if (f == 1) {
            if ((st = pb_expect(b, at, f, wt, 2, "SentencePiece.piece")) || (st = pb_len(b, &len))) return st;
            if (len > UINT32_MAX) return pb_fail(b, at, "piece longer than 2^32-1 bytes");
            pc->text = b->p + b->pos;
            pc->len = (uint32_t)len;
            b->pos += len;
            have_text = true;
        } else if (f == 2) {
            if ((st = pb_expect(b, at, f, wt, 5, "SentencePiece.score"))) return st;
            if (b->end - b->pos < 4) return pb_fail(b, at, "truncated score (fixed32)");
            memcpy(&pc->score, b->p + b->pos, 4); /* little-endian host (core.h refuses others) */
            b->pos += 4;
        } else if (f == 3) {
            if ((st = pb_expect(b, at, f, wt, 0, "SentencePiece.type")) || (st = pb_varint(b, &v))) return st;
            if (v < 1 || v > 6) {
                char m[64];
                snprintf(m, sizeof m, "piece type %llu is not 1..6", (unsigned long long)v);
                return pb_fail(b, at, m);
            }
            pc->type = (int32_t)v;
        } else if ((st = pb_skip(b, wt))) {
            return st;
        }
    }
    if (!have_text) return pb_fail(b, start, "a SentencePiece without its piece string (field 1)");
    return MIO_OK;
}

static mio_status parse_trainer(pb *b, int32_t *model_type) {
    while (b->pos < b->end) {
        size_t at = b->pos;
        uint32_t f = 0, wt = 0;
        uint64_t v = 0;
        mio_status st = pb_key(b, &f, &wt);
        if (st) return st;
        if (f == 3) {
            if ((st = pb_expect(b, at, f, wt, 0, "TrainerSpec.model_type")) || (st = pb_varint(b, &v))) return st;
            *model_type = (int32_t)(v > 100 ? 100 : v);
        } else if ((st = pb_skip(b, wt))) {
            return st;
        }
    }
    return MIO_OK;
}

mio_status mio_hf_spm_parse(const uint8_t *data, size_t size, const char *what, hf_spm_model *out) {
    memset(out, 0, sizeof *out);
    out->model_type = 1;
    pb b = {data, 0, size, what};
    /* pass 1: count the pieces (each costs at least 2 bytes, so n <= size/2) */
    uint64_t n = 0;
    while (b.pos < b.end) {
        uint32_t f = 0, wt = 0;
        mio_status st = pb_key(&b, &f, &wt);
        if (st) return st;
        if (f == 1 && wt == 2) n++;
        if ((st = pb_skip(&b, wt))) return st;
    }
    if (n == 0) return mio_err_set(HF_ERR_PROTO, "%s: no pieces (ModelProto field 1): not a SentencePiece model", what);
    if (n > HF_MAX_TOKENS)
        return mio_err_set(MIO_ERR_LIMIT, "%s: %llu pieces (more than %llu)", what, (unsigned long long)n,
                           (unsigned long long)HF_MAX_TOKENS);
    out->pieces = calloc((size_t)n, sizeof *out->pieces);
    if (!out->pieces) return mio_err_set(MIO_ERR_NOMEM, "%s: out of memory for %llu pieces", what, (unsigned long long)n);
    b.pos = 0;
    while (b.pos < b.end) {
        size_t at = b.pos, len = 0;
        uint32_t f = 0, wt = 0;
        mio_status st = pb_key(&b, &f, &wt);
        if (!st && (f == 1 || f == 2)) {
            st = pb_expect(&b, at, f, wt, 2, f == 1 ? "ModelProto.pieces" : "ModelProto.trainer_spec");
            if (!st) st = pb_len(&b, &len);
            if (!st) {
                pb sub = {data, b.pos, b.pos + len, what};
                st = f == 1 ? parse_piece(&sub, &out->pieces[out->n++]) : parse_trainer(&sub, &out->model_type);
                b.pos += len;
            }
        } else if (!st) {
            st = pb_skip(&b, wt);
        }
        if (st) {
            mio_hf_spm_free(out);
            return st;
        }
    }
    return MIO_OK;
}

void mio_hf_spm_free(hf_spm_model *m) {
    if (!m) return;
    free(m->pieces);
    m->pieces = NULL;
    m->n = 0;
}
