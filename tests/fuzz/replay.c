/* SPDX-License-Identifier: MIT */
/* replay.c — runs a fuzz target (linked beside it) over files given on the
 * command line, without libFuzzer: CTest replays the seed corpus through both
 * targets on every build (and under ASan/UBSan in CI), so the targets keep
 * compiling and every accessor walk they do stays clean. Prints the plain
 * "N passed, N failed" line; a target that finds a bug aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* optional, as with libFuzzer: run once before the first input */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv) {
    int n = 0, bad = 0;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        if (!fp) { fprintf(stderr, "cannot open %s\n", argv[i]); bad++; continue; }
        fseek(fp, 0, SEEK_END);
        long len = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf || fread(buf, 1, (size_t)len, fp) != (size_t)len) { fclose(fp); free(buf); bad++; continue; }
        fclose(fp);
        /* the whole file, then every 7th prefix of its first 4 KiB (truncations) */
        LLVMFuzzerTestOneInput(buf, (size_t)len);
        for (long cut = 0; cut < len && cut < 4096; cut += 7) LLVMFuzzerTestOneInput(buf, (size_t)cut);
        free(buf);
        n++;
    }
    printf("%d passed, %d failed\n", n, bad);
    return bad ? 1 : 0;
}
