/* SPDX-License-Identifier: MIT */
/* test_golden.c — checks mio_encode_f32 / mio_decode_f32 against the committed
 * golden vectors in tests/data/codec/<type>.bin (written once from ggml by
 * scripts/gen-codec-goldens.c; layout described there): byte-exact encodes over
 * every adversarial input kind, bit-exact decodes of random block bytes. Runs
 * without the ggml library. Types the library cannot encode/decode yet are
 * listed as "not implemented yet" and do not fail the test. */
#include "modelio.h"
#include "test.h"

#include <dirent.h>
#include <stdint.h>

#define GOLD_DIR MIO_TEST_DATA "/codec"

typedef struct reader {
    const uint8_t *p;
    size_t len, off;
    int bad;
} reader;

static const void *take(reader *r, size_t n) {
    if (r->bad || n > r->len - r->off) { r->bad = 1; return NULL; }
    const void *p = r->p + r->off;
    r->off += n;
    return p;
}
static uint32_t take32(reader *r) {
    uint32_t v = 0;
    const void *p = take(r, 4);
    if (p) memcpy(&v, p, 4);
    return v;
}

typedef struct tally {
    int files, enc_ok, enc_types, dec_types, pending;
} tally;

/* Check one golden file; returns the number of mismatching records. */
static int check_file(const char *path, tally *t) {
    size_t len;
    uint8_t *buf = t_read_file(path, &len);
    T_CHECK(buf != NULL);
    if (!buf) return 1;
    reader r = {buf, len, 0, 0};
    const void *magic = take(&r, 8);
    T_CHECK(magic && memcmp(magic, "MIOGOLD1", 8) == 0);
    int type = (int)take32(&r);
    int64_t bs = take32(&r);
    size_t bb = take32(&r);
    uint32_t n_rec = take32(&r);
    take(&r, 8); /* seed */
    const char *name = take(&r, 16);
    if (r.bad || !magic || memcmp(magic, "MIOGOLD1", 8) != 0) { free(buf); return 1; }
    char nm[17] = {0};
    memcpy(nm, name, 16);
    /* the library's type table agrees with ggml's on the block geometry */
    T_EQ_STR(mio_type_name(type), nm);
    T_EQ_INT(mio_type_block_size(type), bs);
    T_EQ_U64(mio_type_block_bytes(type), bb);
    int can_enc = mio_type_can_encode(type), can_dec = mio_type_can_decode(type);
    int n_enc = 0, n_dec = 0, enc_pass = 0, dec_pass = 0, fails = 0;
    for (uint32_t k = 0; k < n_rec && !r.bad; k++) {
        uint32_t tag = take32(&r), npr = take32(&r), nrows = take32(&r);
        char kind[25] = {0};
        const void *kp = take(&r, 24);
        if (kp) memcpy(kind, kp, 24);
        size_t n = (size_t)npr * nrows;
        if (bs <= 0 || n % (size_t)bs) { r.bad = 1; break; }
        size_t bytes = n / (size_t)bs * bb;
        if (tag == 1) {
            const void *x = take(&r, n * 4), *want = take(&r, bytes);
            if (r.bad) break;
            n_enc++;
            if (!can_enc) continue;
            float *xa = malloc(n * 4); /* the file's floats may be unaligned: hand over an aligned copy */
            uint8_t *got = malloc(bytes);
            memcpy(xa, x, n * 4);
            mio_status st = mio_encode_f32(type, xa, n, got, bytes);
            if (st != MIO_OK) {
                printf("FAIL %s encode (%s, %u x %u): %s %s\n", nm, kind, nrows, npr, mio_status_name(st), mio_last_error());
                fails++;
            } else {
                size_t d = 0;
                while (d < bytes && got[d] == ((const uint8_t *)want)[d]) d++;
                if (d < bytes) {
                    printf("FAIL %s encode (%s, %u x %u): first differing byte %zu (block %zu): ggml %02x ours %02x\n", nm,
                           kind, nrows, npr, d, d / bb, ((const uint8_t *)want)[d], got[d]);
                    fails++;
                } else enc_pass++;
            }
            free(xa);
            free(got);
        } else if (tag == 2) {
            const void *q = take(&r, bytes), *want = take(&r, n * 4);
            if (r.bad) break;
            n_dec++;
            if (!can_dec) continue;
            float *got = malloc(n * 4);
            mio_status st = mio_decode_f32(type, q, bytes, got, n);
            if (st != MIO_OK) {
                printf("FAIL %s decode (%s): %s %s\n", nm, kind, mio_status_name(st), mio_last_error());
                fails++;
            } else {
                size_t d = 0;
                while (d < n && memcmp((const uint8_t *)got + 4 * d, (const uint8_t *)want + 4 * d, 4) == 0) d++;
                if (d < n) {
                    uint32_t a, b;
                    memcpy(&a, (const uint8_t *)want + 4 * d, 4);
                    memcpy(&b, got + d, 4);
                    printf("FAIL %s decode (%s): first differing element %zu (block %zu): ggml %08x ours %08x\n", nm, kind,
                           d, d / (size_t)bs, a, b);
                    fails++;
                } else dec_pass++;
            }
            free(got);
        } else {
            r.bad = 1;
        }
    }
    T_CHECK(!r.bad && r.off == r.len); /* every record parsed, nothing left over */
    if (r.bad || r.off != r.len) printf("FAIL %s: malformed golden file %s\n", nm, path);
    char enc_s[64], dec_s[64];
    if (!n_enc) snprintf(enc_s, sizeof enc_s, "no encoder in ggml");
    else if (!can_enc) snprintf(enc_s, sizeof enc_s, "encode not implemented yet");
    else snprintf(enc_s, sizeof enc_s, "encode %d/%d byte-exact", enc_pass, n_enc);
    if (!n_dec) snprintf(dec_s, sizeof dec_s, "no ggml decoder");
    else if (!can_dec) snprintf(dec_s, sizeof dec_s, "decode not implemented yet");
    else snprintf(dec_s, sizeof dec_s, "decode %d/%d bit-exact", dec_pass, n_dec);
    printf("%-8s %s, %s\n", nm, enc_s, dec_s);
    t->files++;
    t->enc_types += n_enc && can_enc;
    t->dec_types += n_dec && can_dec;
    t->pending += (n_enc && !can_enc) + (n_dec && !can_dec);
    free(buf);
    return fails + (r.bad || r.off != r.len);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
    DIR *d = opendir(GOLD_DIR);
    T_CHECK(d != NULL);
    if (!d) { printf("no golden directory %s\n", GOLD_DIR); T_DONE(); }
    char *names[256];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".bin") == 0) names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof names[0], by_name);
    tally t = {0};
    int fails = 0;
    for (int i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", GOLD_DIR, names[i]);
        fails += check_file(path, &t);
        free(names[i]);
    }
    printf("%d golden files: %d types encode-checked, %d decode-checked, %d codec directions not implemented yet\n", t.files,
           t.enc_types, t.dec_types, t.pending);
    T_CHECK(t.files >= 29); /* every type scripts/gen-codec-goldens.c writes */
    T_EQ_INT(fails, 0);
    T_DONE();
}
