/* SPDX-License-Identifier: MIT */
/* gen-iq-tables.c — regenerates src/quant/iq_tables.c, the IQ codebooks, by
 * asking ggml's own dequantizers (libggml-base.so, loaded at run time) what each
 * grid entry decodes to: one crafted block per batch of grid indices (scale 1,
 * no signs), values read back and packed into our own compact layout.
 * Build and run:
 *   cc -O1 -o /tmp/gen-iq-tables scripts/gen-iq-tables.c -ldl -lm
 *   /tmp/gen-iq-tables "$MIO_PEER_DIR/libggml-base.so" > src/quant/iq_tables.c
 * It also prints each table's FNV-1a 64 checksum to stderr (pinned in
 * tests/codec/test_iq.c). */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*to_float_fn)(const void *x, float *y, int64_t n);
typedef struct {
    const char *type_name;
    int64_t blck_size;
    int64_t blck_size_interleave;
    size_t type_size;
    bool is_quantized;
    to_float_fn to_float;
} traits_t;

static const traits_t *(*get_traits)(int type);

enum { T_IQ2_XXS = 16, T_IQ2_XS = 17, T_IQ3_XXS = 18, T_IQ1_S = 19, T_IQ4_NL = 20, T_IQ3_S = 21, T_IQ2_S = 22 };

static void die(const char *m) { fprintf(stderr, "gen-iq-tables: %s\n", m); exit(1); }

/* Decode one block of `type` (bytes blk) into out. */
static void decode(int type, const uint8_t *blk, float *out) {
    const traits_t *t = get_traits(type);
    if (!t || !t->to_float) die("peer has no to_float for an IQ type");
    t->to_float(blk, out, t->blck_size);
}

/* Raw recovered grids: values per entry. */
static uint8_t g2[3][1024][8]; /* iq2_xxs, iq2_xs, iq2_s */
static uint8_t g3[2][512][4];  /* iq3_xxs, iq3_s */
static int8_t g1[2048][8];     /* iq1_s */
static uint8_t sign7[128];
static int8_t nl4[16];
static float delta1;

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static int to_int_exact(float v, float mul) {
    float s = v * mul;
    if (s != floorf(s) || s < -128 || s > 255) die("grid value is not a small integer");
    return (int)s;
}

static void recover(void) {
    uint8_t b[128];
    float y[256], y2[256];
    /* iq2_xxs: d=1, per 32: 4 grid bytes + 4 bytes signs/scale (0 -> scale 0.125, no signs) */
    for (int base = 0; base < 256; base += 32) {
        memset(b, 0, sizeof b);
        put16(b, 0x3c00);
        for (int ib = 0; ib < 8; ib++)
            for (int l = 0; l < 4; l++) b[2 + 8 * ib + l] = (uint8_t)(base + 4 * ib + l);
        decode(T_IQ2_XXS, b, y);
        for (int e = 0; e < 32; e++)
            for (int j = 0; j < 8; j++) g2[0][base + e][j] = (uint8_t)to_int_exact(y[8 * e + j], 8.0f);
    }
    /* sign table via iq2_xxs: grid entry 0 everywhere, sign field s in slot l */
    for (int s0 = 0; s0 < 128; s0 += 32) {
        memset(b, 0, sizeof b);
        put16(b, 0x3c00);
        for (int ib = 0; ib < 8; ib++) {
            uint32_t aux = 0;
            for (int l = 0; l < 4; l++) aux |= (uint32_t)(s0 + 4 * ib + l) << (7 * l);
            memcpy(b + 2 + 8 * ib + 4, &aux, 4);
        }
        decode(T_IQ2_XXS, b, y);
        for (int e = 0; e < 32; e++) {
            uint8_t m = 0;
            for (int j = 0; j < 8; j++) if (signbit(y[8 * e + j])) m |= (uint8_t)(1u << j);
            sign7[s0 + e] = m;
        }
    }
    /* iq2_xs: 32 uint16 (9-bit index, signs 0), scales 0 -> 0.125 */
    for (int base = 0; base < 512; base += 32) {
        memset(b, 0, sizeof b);
        put16(b, 0x3c00);
        for (int e = 0; e < 32; e++) put16(b + 2 + 2 * e, (uint16_t)(base + e));
        decode(T_IQ2_XS, b, y);
        for (int e = 0; e < 32; e++)
            for (int j = 0; j < 8; j++) g2[1][base + e][j] = (uint8_t)to_int_exact(y[8 * e + j], 8.0f);
    }
    /* iq2_s: qs low bytes at 2, signs at 34, qh at 66 (2 bits per entry), scales 0 */
    for (int base = 0; base < 1024; base += 32) {
        memset(b, 0, sizeof b);
        put16(b, 0x3c00);
        for (int e = 0; e < 32; e++) {
            int idx = base + e;
            b[2 + e] = (uint8_t)(idx & 255);
            b[66 + e / 4] |= (uint8_t)((idx >> 8) << (2 * (e % 4)));
        }
        decode(T_IQ2_S, b, y);
        for (int e = 0; e < 32; e++)
            for (int j = 0; j < 8; j++) g2[2][base + e][j] = (uint8_t)to_int_exact(y[8 * e + j], 8.0f);
    }
    /* iq3_xxs: 64 grid bytes at 2, scales/signs 0 -> 0.25 */
    for (int base = 0; base < 256; base += 64) {
        memset(b, 0, sizeof b);
        put16(b, 0x3c00);
        for (int e = 0; e < 64; e++) b[2 + e] = (uint8_t)(base + e);
        decode(T_IQ3_XXS, b, y);
        for (int e = 0; e < 64; e++)
            for (int j = 0; j < 4; j++) g3[0][base + e][j] = (uint8_t)to_int_exact(y[4 * e + j], 4.0f);
    }
    /* iq3_s: qs at 2, qh at 66 (1 bit per entry), scales 0 -> 1 */
    for (int base = 0; base < 512; base += 64) {
        memset(b, 0, sizeof b);
        put16(b, 0x3c00);
        for (int e = 0; e < 64; e++) {
            int idx = base + e;
            b[2 + e] = (uint8_t)(idx & 255);
            b[66 + e / 8] |= (uint8_t)((idx >> 8) << (e % 8));
        }
        decode(T_IQ3_S, b, y);
        for (int e = 0; e < 64; e++)
            for (int j = 0; j < 4; j++) g3[1][base + e][j] = (uint8_t)to_int_exact(y[4 * e + j], 1.0f);
    }
    /* iq1_s: qs at 2, qh (uint16 x 8) at 34: 3 high bits per entry, bit 15 = delta sign */
    for (int base = 0; base < 2048; base += 32) {
        for (int neg = 0; neg < 2; neg++) {
            memset(b, 0, sizeof b);
            put16(b, 0x3c00);
            for (int ib = 0; ib < 8; ib++) {
                uint16_t h = neg ? 0x8000 : 0;
                for (int l = 0; l < 4; l++) {
                    int idx = base + 4 * ib + l;
                    b[2 + 4 * ib + l] = (uint8_t)(idx & 255);
                    h |= (uint16_t)((idx >> 8) << (3 * l));
                }
                put16(b + 34 + 2 * ib, h);
            }
            decode(T_IQ1_S, b, neg ? y2 : y);
        }
        for (int e = 0; e < 32; e++)
            for (int j = 0; j < 8; j++) {
                float p = y[8 * e + j], m = y2[8 * e + j];
                g1[base + e][j] = (int8_t)to_int_exact((p + m) * 0.5f, 1.0f);
                float dl = (p - m) * 0.5f;
                if (base == 0 && e == 0 && j == 0) delta1 = dl;
                else if (dl != delta1) die("iq1_s delta is not constant");
            }
    }
    /* iq4_nl: d=1, nibble j in the low half */
    memset(b, 0, sizeof b);
    put16(b, 0x3c00);
    for (int j = 0; j < 16; j++) b[2 + j] = (uint8_t)(j | ((15 - j) << 4));
    decode(T_IQ4_NL, b, y);
    for (int j = 0; j < 16; j++) {
        nl4[j] = (int8_t)to_int_exact(y[j], 1.0f);
        if ((int8_t)to_int_exact(y[16 + 15 - j], 1.0f) != nl4[j]) die("iq4_nl high nibble disagrees");
    }
}

/* Sorted distinct values of a set; returns count. */
static int levels(const uint8_t *v, size_t n, uint8_t *lv, int max) {
    int c = 0;
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < c && lv[k] != v[i]) k++;
        if (k == c) {
            if (c == max) { fprintf(stderr, "value %d\n", v[i]); die("too many distinct grid values"); }
            lv[c++] = v[i];
        }
    }
    for (int i = 1; i < c; i++)
        for (int j = i; j > 0 && lv[j - 1] > lv[j]; j--) { uint8_t t = lv[j]; lv[j] = lv[j - 1]; lv[j - 1] = t; }
    return c;
}

static int rank(const uint8_t *lv, int c, uint8_t v) {
    for (int i = 0; i < c; i++) if (lv[i] == v) return i;
    die("value not in level set");
    return -1;
}

static uint64_t fnv(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ull; }
    return h;
}

static void emit_u16(const char *name, const uint16_t *v, int n, const char *doc) {
    uint8_t le[4096];
    for (int i = 0; i < n; i++) put16(le + 2 * i, v[i]);
    printf("/* %s */\nconst uint16_t %s[%d] = {", doc, name, n);
    for (int i = 0; i < n; i++) printf("%s0x%04x,", i % 12 ? " " : "\n    ", v[i]);
    printf("\n};\n\n");
    fprintf(stderr, "%-14s fnv1a64 0x%016llxull\n", name, (unsigned long long)fnv(le, 2 * (size_t)n));
}

static void emit_u8(const char *name, const char *ctype, const uint8_t *v, int n, const char *doc) {
    printf("/* %s */\nconst %s %s[%d] = {", doc, ctype, name, n);
    for (int i = 0; i < n; i++) {
        if (ctype[0] == 'i') printf("%s%d,", i % 16 ? " " : "\n    ", (int8_t)v[i]);
        else printf("%s0x%02x,", i % 16 ? " " : "\n    ", v[i]);
    }
    printf("\n};\n\n");
    fprintf(stderr, "%-14s fnv1a64 0x%016llxull\n", name, (unsigned long long)fnv(v, (size_t)n));
}

int main(int argc, char **argv) {
    if (argc != 2) die("usage: gen-iq-tables /path/to/libggml-base.so > src/quant/iq_tables.c");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) die(dlerror());
    *(void **)&get_traits = dlsym(h, "ggml_get_type_traits");
    if (!get_traits) die("ggml_get_type_traits not found");
    recover();

    uint8_t lv2[4], lv3[8];
    int n2;
    {
        static uint8_t all[(256 + 512 + 1024) * 8];
        memcpy(all, g2[0], 256 * 8);
        memcpy(all + 256 * 8, g2[1], 512 * 8);
        memcpy(all + 768 * 8, g2[2], 1024 * 8);
        n2 = levels(all, sizeof all, lv2, 4);
    }
    uint8_t lv3s[8];
    int n3 = levels(&g3[0][0][0], 256 * 4, lv3, 8), n3s = levels(&g3[1][0][0], 512 * 4, lv3s, 8);
    if (n2 != 3 || n3 != 8 || n3s != 8) die("unexpected level counts");

    static uint16_t p2[3][1024], p3[2][512], p1[2048];
    const int n2g[3] = {256, 512, 1024}, n3g[2] = {256, 512};
    for (int g = 0; g < 3; g++)
        for (int e = 0; e < n2g[g]; e++) {
            uint16_t v = 0;
            for (int j = 0; j < 8; j++) v |= (uint16_t)(rank(lv2, n2, g2[g][e][j]) << (2 * j));
            p2[g][e] = v;
        }
    for (int g = 0; g < 2; g++)
        for (int e = 0; e < n3g[g]; e++) {
            uint16_t v = 0;
            for (int j = 0; j < 4; j++) v |= (uint16_t)(rank(g ? lv3s : lv3, 8, g3[g][e][j]) << (3 * j));
            p3[g][e] = v;
        }
    for (int e = 0; e < 2048; e++) {
        uint16_t v = 0;
        for (int j = 0; j < 8; j++) {
            if (g1[e][j] < -1 || g1[e][j] > 1) die("iq1_s grid value outside -1..1");
            v |= (uint16_t)((g1[e][j] + 1) << (2 * j));
        }
        p1[e] = v;
    }
    uint8_t sg[128];
    for (int i = 0; i < 128; i++) sg[i] = sign7[i];
    uint8_t nl[16];
    memcpy(nl, nl4, 16);
    uint32_t dbits;
    memcpy(&dbits, &delta1, 4);

    printf("/* iq_tables.c — GENERATED by scripts/gen-iq-tables.c from the decoded output of\n"
           " * ggml's dequantizers; do not edit. Layout: each grid entry is packed as level\n"
           " * codes, lowest element in the lowest bits (2 bits each for the 8-wide grids,\n"
           " * 3 bits each for the 4-wide ones); mio_iq_lv2/mio_iq_lv3xxs/mio_iq_lv3s map codes to values. */\n"
           "#include \"iq_tables.h\"\n\n");
    emit_u8("mio_iq_lv2", "uint8_t", lv2, n2, "values of the 2-bit codes in the iq2 grids");
    emit_u8("mio_iq_lv3xxs", "uint8_t", lv3, n3, "values of the 3-bit codes in the iq3_xxs grid");
    emit_u8("mio_iq_lv3s", "uint8_t", lv3s, n3s, "values of the 3-bit codes in the iq3_s grid");
    emit_u16("mio_iq_grid2_256", p2[0], 256, "iq2_xxs grid: 8 x 2-bit codes");
    emit_u16("mio_iq_grid2_512", p2[1], 512, "iq2_xs grid: 8 x 2-bit codes");
    emit_u16("mio_iq_grid2_1024", p2[2], 1024, "iq2_s grid: 8 x 2-bit codes");
    emit_u16("mio_iq_grid3_256", p3[0], 256, "iq3_xxs grid: 4 x 3-bit codes");
    emit_u16("mio_iq_grid3_512", p3[1], 512, "iq3_s grid: 4 x 3-bit codes");
    emit_u16("mio_iq_grid1_2048", p1, 2048, "iq1_s/iq1_m grid: 8 x 2-bit codes, value = code - 1");
    emit_u8("mio_iq_sign8", "uint8_t", sg, 128, "7 stored sign bits -> 8 sign bits (even parity)");
    emit_u8("mio_iq_nl4", "int8_t", nl, 16, "iq4_nl / iq4_xs non-linear 4-bit values");
    printf("/* iq1_s/iq1_m grid offset (%.9g) as float bits */\nconst uint32_t mio_iq_delta1_bits = 0x%08xu;\n", (double)delta1,
           (unsigned)dbits);
    fprintf(stderr, "mio_iq_delta1_bits 0x%08x\n", (unsigned)dbits);
    return 0;
}
