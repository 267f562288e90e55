/* abi.c — the growth rules of docs/ABI.md for caller-allocated structs: sized
 * outputs (the caller says how many bytes its struct has) and sized inputs
 * (a leading size field, or an element size for arrays). */
#include "core.h"

#include <string.h>

void abi_copy_out(void *out, size_t out_size, const void *src, size_t known) {
    size_t n = out_size < known ? out_size : known;
    memcpy(out, src, n);
    if (out_size > known) memset((char *)out + known, 0, out_size - known);
}

mio_status abi_check_tail(const void *p, size_t size, size_t known, const char *what) {
    const unsigned char *b = p;
    for (size_t i = known; i < size; i++)
        if (b[i])
            return err_set(MIO_ERR_INVALID_ARG,
                           "%s is %zu bytes and byte %zu is set, but this libmodelio (%s) knows only its first %zu "
                           "bytes: the program uses a field of a newer modelio.h (check mio_version_number())",
                           what, size, i, mio_version(), known);
    return MIO_OK;
}

mio_status abi_params_merge(void *dst, size_t known, const void *src, size_t min_size, const char *what,
                            const char *defaults_fn) {
    size_t size;
    memcpy(&size, src, sizeof size);
    if (size < min_size || size > ABI_MAX_STRUCT)
        return err_set(MIO_ERR_INVALID_ARG, "p->size is %zu; fill the parameters with %s first", size, defaults_fn);
    mio_status st = abi_check_tail(src, size, known, what);
    if (st) return st;
    memcpy(dst, src, size < known ? size : known);
    memcpy(dst, &known, sizeof known);
    return MIO_OK;
}
