/* SPDX-License-Identifier: MIT */
/* abi.c — the growth rules of docs/ABI.md for caller-allocated structs: sized
 * outputs (the caller says how many bytes its struct has) and sized inputs
 * (a leading size field, or an element size for arrays). */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mio_abi_copy_out(void *out, size_t out_size, const void *src, size_t known) {
    size_t n = out_size < known ? out_size : known;
    memcpy(out, src, n);
    if (out_size > known) memset((char *)out + known, 0, out_size - known);
}

/* MIO_OK when the bytes [known, size) of p (fields this library does not know)
 * are all zero; else MIO_ERR_INVALID_ARG naming `what` and the first set byte. */
static mio_status abi_check_tail(const void *p, size_t size, size_t known, const char *what) {
    const unsigned char *b = p;
    for (size_t i = known; i < size; i++)
        if (b[i])
            return mio_err_set(MIO_ERR_INVALID_ARG,
                               "%s is %zu bytes and byte %zu is set, but this libmodelio (%s) knows only its first %zu "
                               "bytes: the program uses a field of a newer modelio.h (check mio_version_number())",
                               what, size, i, mio_version(), known);
    return MIO_OK;
}

mio_status mio_abi_params_merge(void *dst, size_t known, const void *src, size_t min_size, const char *what,
                                const char *defaults_fn) {
    size_t size;
    memcpy(&size, src, sizeof size);
    if (size < min_size || size > ABI_MAX_STRUCT)
        return mio_err_set(MIO_ERR_INVALID_ARG, "p->size is %zu; fill the parameters with %s first", size, defaults_fn);
    mio_status st = abi_check_tail(src, size, known, what);
    if (st) return st;
    memcpy(dst, src, size < known ? size : known);
    memcpy(dst, &known, sizeof known);
    return MIO_OK;
}

mio_status mio_abi_array_in(const void *t, size_t n, size_t elem_size, size_t known, const char *elem_name,
                            const char *type_name, const void **use, void **copy) {
    *use = t;
    *copy = NULL;
    if (elem_size < known || elem_size > ABI_MAX_STRUCT)
        return mio_err_set(MIO_ERR_INVALID_ARG, "%s_size is %zu; pass sizeof(%s) (%zu in this library, at most %zu)",
                           elem_name, elem_size, type_name, known, ABI_MAX_STRUCT);
    if (elem_size == known || !t || !n) return MIO_OK;
    unsigned char *c = malloc(n * known);
    if (!c) return mio_err_set(MIO_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        const unsigned char *e = (const unsigned char *)t + k * elem_size;
        char what[64];
        snprintf(what, sizeof what, "%s %zu", elem_name, k);
        mio_status st = abi_check_tail(e, elem_size, known, what);
        if (st) { free(c); return st; }
        memcpy(c + k * known, e, known);
    }
    *use = *copy = c;
    return MIO_OK;
}

mio_status mio_abi_defaults_sized(void *p, size_t size, const void *defaults, size_t known, const char *type_name) {
    if (!p) return mio_err_set(MIO_ERR_INVALID_ARG, "p is NULL");
    if (size < known || size > ABI_MAX_STRUCT)
        return mio_err_set(MIO_ERR_INVALID_ARG, "size is %zu; pass sizeof(%s) (%zu in this library, at most %zu)", size,
                           type_name, known, ABI_MAX_STRUCT);
    mio_abi_copy_out(p, size, defaults, known);
    memcpy(p, &size, sizeof size);
    return MIO_OK;
}
