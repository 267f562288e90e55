/* SPDX-License-Identifier: MIT */
/* fuzz_kv_edit.c — libFuzzer target: metadata edit specs (KEY=TYPE:VALUE, the
 * strings mio-transcode --set takes from its command line) through
 * mio_kv_edit_parse; an accepted edit is applied to a writer, which must then
 * serialize. The input is cut at its first NUL (a C string). */
#include <modelio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int drop(void *user, const void *data, size_t len) {
    (void)user, (void)data, (void)len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *spec = malloc(size + 1);
    if (!spec) abort();
    memcpy(spec, data, size);
    spec[size] = 0;
    mio_kv_edit *e = NULL;
    if (mio_kv_edit_parse(spec, &e) == MIO_OK) {
        mio_writer *w;
        if (mio_writer_new(0, &w) != MIO_OK) abort();
        if (mio_writer_apply_edits(w, e, 1) == MIO_OK && mio_writer_write_cb(w, drop, NULL) != MIO_OK) abort();
        mio_writer_free(w);
        mio_free(e);
    }
    free(spec);
    return 0;
}
