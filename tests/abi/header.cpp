/* SPDX-License-Identifier: MIT */
/* header.c — include the public header alone; compiled as C99, C11 and C++
 * with -Wall -Wextra -pedantic -Werror by tests/abi/CMakeLists.txt. */
#include <modelio.h>
#include <modelio_inspect.h>
#include <stddef.h>

int mio_header_check(void);
int mio_header_check(void) {
    mio_str s = {NULL, 0};
    return (int)s.len + MIO_VERSION_NUMBER + (int)sizeof(mio_gguf_tensor) + (int)sizeof(mio_st_tensor);
}
