/* SPDX-License-Identifier: MIT */
/* interop_types.c — the tensor type table against ggml's: for every type code
 * ggml names (0..41; codes >= 42 crash this ggml build, so they are not asked),
 * mio_type_name, mio_type_block_size and mio_type_block_bytes equal ggml_type_name,
 * ggml_blck_size and ggml_type_size; removed codes have no name on our side. */
#include "interop.h"

int main(void) {
    peer_api g;
    ic_load_peer_or_skip(&g);
    int compared = 0, removed = 0;
    for (int t = 0; t < 42; t++) {
        const char *gn = g.ggml_type_name(t);
        if (!gn || strncmp(gn, "DEPRECATED", 10) == 0 || strncmp(gn, "TYPE_", 5) == 0) {
            /* ggml keeps placeholders for removed codes (4, 5, 31..33, 36..38) */
            IC_CHECK(mio_type_name(t) == NULL, "code %d: ggml calls it \"%s\" (removed) but mio_type_name says \"%s\"",
                     t, gn ? gn : "(null)", mio_type_name(t));
            IC_CHECK(mio_type_block_size(t) == 0 && mio_type_block_bytes(t) == 0, "code %d: removed type has sizes", t);
            removed++;
            continue;
        }
        const char *mn = mio_type_name(t);
        IC_CHECK(mn && strcmp(mn, gn) == 0, "code %d: mio_type_name \"%s\" vs ggml \"%s\"", t, mn ? mn : "(null)", gn);
        IC_CHECK(mio_type_block_size(t) == g.ggml_blck_size(t), "type %s: block size %lld vs ggml %lld", gn,
                 (long long)mio_type_block_size(t), (long long)g.ggml_blck_size(t));
        IC_CHECK(mio_type_block_bytes(t) == g.ggml_type_size(t), "type %s: block bytes %zu vs ggml %zu", gn,
                 mio_type_block_bytes(t), g.ggml_type_size(t));
        IC_CHECK(mio_type_from_name(gn) == t, "type %s: mio_type_from_name -> %d", gn, mio_type_from_name(gn));
        compared++;
    }
    printf("compared %d types, %d removed codes\n", compared, removed);
    /* values a reader can check by hand against ggml's table */
    T_EQ_INT(compared, 34);
    T_EQ_INT(removed, 8);
    T_EQ_STR(g.ggml_type_name(12), "q4_K");
    T_EQ_INT(g.ggml_blck_size(12), 256);
    T_EQ_U64(g.ggml_type_size(12), 144);
    T_EQ_STR(mio_type_name(12), "q4_K");
    T_EQ_STR(mio_type_name(40), "nvfp4");
    T_EQ_U64(mio_type_block_bytes(40), 36);
    T_DONE();
}
