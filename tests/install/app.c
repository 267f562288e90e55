/* SPDX-License-Identifier: MIT */
/* app.c — a program outside the project, built against an installed libmodelio
 * (pkg-config or CMake): opens a GGUF and prints what a user would check. */
#include <modelio.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    if (mio_version_number() != MIO_VERSION_NUMBER) {
        fprintf(stderr, "header %d, library %d\n", MIO_VERSION_NUMBER, mio_version_number());
        return 1;
    }
    mio_gguf_file *f = NULL;
    if (mio_gguf_open(argv[1], MIO_OPEN_MMAP, &f) != MIO_OK) {
        fprintf(stderr, "%s\n", mio_last_error());
        return 1;
    }
    mio_str arch = {0};
    mio_gguf_kv_str(f, mio_gguf_find_key(f, "general.architecture"), &arch);
    printf("version=%s kv=%lld tensors=%lld arch=%.*s\n", mio_version(), (long long)mio_gguf_kv_count(f),
           (long long)mio_gguf_tensor_count(f), (int)arch.len, arch.ptr);
    mio_gguf_close(f);
    return 0;
}
