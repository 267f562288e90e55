/* SPDX-License-Identifier: MIT */
/* fuzz_ckpt.c — libFuzzer target: the checkpoint module's parsers
 * (docs/CHECKPOINTS.md). The first byte picks the parser, the rest is its
 * input: 0, FZT1 (mio_fzt1_open_buffer, every tensor walked, its last data
 * byte read); 1, a state dict (a safetensors frame) loaded into destinations
 * built from its own tensors — strictly, leniently, and with one alias that
 * renames the first tensor onto the second (doubly mapped) — whose buffers
 * are checked to be filled exactly or left untouched. */
#include <modelio.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!size) return 0;
    if (data[0] % 2 == 0) fzt1(data + 1, size - 1);
    else state_dict(data + 1, size - 1);
    return 0;
}
