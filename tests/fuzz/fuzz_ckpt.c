/* SPDX-License-Identifier: MIT */
/* fuzz_ckpt.c — libFuzzer target: the checkpoint module's parsers
 * (docs/CHECKPOINTS.md). The first byte picks the parser, the rest is its
 * input (its value mod 4): 0, FZT1 (mio_fzt1_open_buffer, every tensor
 * walked, its last data byte read); 1, a state dict (a safetensors frame)
 * loaded into destinations built from its own tensors — strictly, leniently,
 * and with one alias that renames the first tensor onto the second (doubly
 * mapped) — whose buffers are checked to be filled exactly or left untouched;
 * 2, trainer_state.json (its optional fields must print as a JSON object that
 * parses again); 3, a checkpoint sentinel (every listed name a plain file
 * name). The JSON parsers are internal (ckpt_internal.h). */
#include <modelio.h>

#include "ckpt/ckpt_internal.h"

#include "core/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fzt1(const uint8_t *p, size_t n) {
    mio_fzt1_file *f;
    if (mio_fzt1_open_buffer(p, n, &f) != MIO_OK) return;
    volatile uint64_t acc = 0;
    for (int64_t i = 0; i < mio_fzt1_count(f); i++) {
        mio_fzt1_tensor t;
        if (mio_fzt1_tensor_info(f, i, &t) != MIO_OK) abort();
        for (uint32_t k = 0; k < t.n_dims; k++) acc += t.dims[k];
        if (t.n_elements) acc += ((const volatile uint8_t *)t.data)[4 * t.n_elements - 1];
    }
    (void)acc;
    mio_fzt1_close(f);
}

#define MAXD 64
static void state_dict(const uint8_t *p, size_t n) {
    mio_st_file *f;
    if (mio_st_open_buffer(p, n, MIO_BUFFER_BORROW, &f) != MIO_OK) return;
    int64_t nt = mio_st_tensor_count(f);
    if (nt > MAXD) nt = MAXD;
    mio_state_dict_dest d[MAXD];
    char names[MAXD][64];
    size_t total = 0, nd = 0;
    for (int64_t i = 0; i < nt; i++) {
        mio_st_tensor t;
        if (mio_st_tensor_info(f, i, &t) != MIO_OK) abort();
        if (t.nbytes > (1u << 20) || t.name.len >= sizeof names[0]) continue;
        memcpy(names[nd], t.name.ptr, t.name.len);
        names[nd][t.name.len] = 0;
        d[nd] = (mio_state_dict_dest){names[nd], t.dtype, t.n_dims, t.shape, NULL, (size_t)t.nbytes};
        total += (size_t)t.nbytes;
        nd++;
    }
    uint8_t *buf = malloc(total + 1);
    if (!buf) abort();
    for (int mode = 0; mode < 3; mode++) {
        memset(buf, 0xA5, total + 1);
        size_t o = 0;
        for (size_t j = 0; j < nd; j++) d[j].data = buf + o, o += d[j].nbytes;
        mio_state_dict_alias al = {nd > 1 ? names[0] : "x", nd > 1 ? names[1] : "y"};
        size_t loaded = 0;
        mio_status st = mio_state_dict_load(f, d, nd, sizeof d[0], mode == 2 ? &al : NULL, mode == 2,
                                            mode == 1 ? MIO_STATE_DICT_LENIENT : 0, &loaded);
        if (st != MIO_OK) { /* the transactional rule: nothing written */
            for (size_t k = 0; k < total; k++)
                if (buf[k] != 0xA5) abort();
        } else if (loaded > nd) abort();
        if (buf[total] != 0xA5) abort();
    }
    free(buf);
    mio_st_close(f);
}

/* the input as a NUL-terminated string (the parsers take text[len] == 0) */
static char *text_of(const uint8_t *p, size_t n) {
    char *t = malloc(n + 1);
    if (!t) abort();
    memcpy(t, p, n);
    t[n] = 0;
    return t;
}

static void trainer_state(const uint8_t *p, size_t n) {
    char *t = text_of(p, n), *extra = NULL;
    uint64_t step = 0, seed = 0;
    if (mio_ckpt_parse_trainer_state(t, n, &step, &seed, &extra) == MIO_OK) {
        mio_json *j = mio_json_parse_str(extra, NULL);
        if (!j || !mio_json_is_object(j)) abort();
        mio_json_free(j);
        free(extra);
    } else if (extra) abort(); /* no output on failure */
    free(t);
}

static void sentinel(const uint8_t *p, size_t n) {
    char *t = text_of(p, n);
    ck_file *f = NULL;
    size_t nf = 0;
    if (mio_ckpt_parse_sentinel(t, n, &f, &nf) == MIO_OK) {
        for (size_t i = 0; i < nf; i++)
            if (!f[i].name[0] || strchr(f[i].name, '/') || f[i].name[0] == '.') abort();
        mio_ckpt_files_free(f, nf);
    } else if (f || nf) abort();
    free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!size) return 0;
    switch (data[0] % 4) {
    case 0: fzt1(data + 1, size - 1); break;
    case 1: state_dict(data + 1, size - 1); break;
    case 2: trainer_state(data + 1, size - 1); break;
    default: sentinel(data + 1, size - 1); break;
    }
    return 0;
}
