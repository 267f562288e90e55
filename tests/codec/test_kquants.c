/* SPDX-License-Identifier: MIT */
/* test_kquants.c — q2_K..q6_K and q8_K codecs: byte-exact interop with ggml's
 * quantizers (plain and importance-weighted) and bit-exact with its
 * dequantizers when the peer is present, on both the AVX2 and the scalar path
 * (the test re-runs itself with MIO_ISA=scalar); round-trip error bounds,
 * hand-checked bytes and argument errors without the peer. */
#include "codec_peer.h"
#include "modelio.h"
#include "test.h"

#include <sys/wait.h>
#include <unistd.h>

static const int KTYPES[] = {MIO_TYPE_Q2_K, MIO_TYPE_Q3_K, MIO_TYPE_Q4_K, MIO_TYPE_Q5_K, MIO_TYPE_Q6_K, MIO_TYPE_Q8_K};
#define NKTYPES (int)(sizeof KTYPES / sizeof KTYPES[0])

static size_t wire(int type, size_t n) { return n / 256 * mio_type_block_bytes(type); }

static float h2f(uint16_t h) {
    float f;
    uint16_t in = h;
    mio_decode_f32(MIO_TYPE_F16, &in, 2, &f, 1);
    return f;
}

/* ---------------- checks without the peer ---------------- */

static void check_layout(void) {
    T_EQ_U64(mio_type_block_bytes(MIO_TYPE_Q2_K), 84);
    T_EQ_U64(mio_type_block_bytes(MIO_TYPE_Q3_K), 110);
    T_EQ_U64(mio_type_block_bytes(MIO_TYPE_Q4_K), 144);
    T_EQ_U64(mio_type_block_bytes(MIO_TYPE_Q5_K), 176);
    T_EQ_U64(mio_type_block_bytes(MIO_TYPE_Q6_K), 210);
    T_EQ_U64(mio_type_block_bytes(MIO_TYPE_Q8_K), 292);
    for (int t = 0; t < NKTYPES; t++) {
        T_EQ_INT(mio_type_can_encode(KTYPES[t]), 1);
        T_EQ_INT(mio_type_can_decode(KTYPES[t]), 1);
        T_EQ_INT(mio_type_can_encode_imatrix(KTYPES[t]), KTYPES[t] != MIO_TYPE_Q8_K);
    }
}

/* q8_K of x[j] = j - 128: max |x| is x[0] = -128, iscale = -127/-128 */
static void check_q8_K_bytes(void) {
    float x[256];
    uint8_t b[292];
    for (int j = 0; j < 256; j++) x[j] = (float)(j - 128);
    T_OK(mio_encode_f32(MIO_TYPE_Q8_K, x, 256, b, sizeof b));
    float d;
    memcpy(&d, b, 4);
    T_CHECK(d == 1.0f / (127.f / 128.f));
    T_EQ_INT((int8_t)b[4 + 0], -127);   /* -128 * 0.9921875 = -127 */
    T_EQ_INT((int8_t)b[4 + 1], -126);   /* -127 * 0.9921875 = -126.008 */
    T_EQ_INT((int8_t)b[4 + 128], 0);
    T_EQ_INT((int8_t)b[4 + 255], 126);  /* 127 * 0.9921875 = 126.008 */
    int16_t s0;
    memcpy(&s0, b + 260, 2);
    T_EQ_INT(s0, -1912); /* -127 + sum_{j=1..15} (j - 127) */
}

/* all-zero input gives all-zero blocks */
static void check_zero_blocks(void) {
    float x[512] = {0};
    uint8_t b[2 * 292], zero[2 * 292] = {0};
    for (int t = 0; t < NKTYPES; t++) {
        memset(b, 0xAA, sizeof b);
        size_t len = wire(KTYPES[t], 512);
        T_OK(mio_encode_f32(KTYPES[t], x, 512, b, len));
        T_CHECK(memcmp(b, zero, len) == 0);
    }
}

/* decoders on hand-built blocks */
static void check_decode_bytes(void) {
    uint8_t b4[144] = {0};
    float y[256];
    b4[0] = 0x00; b4[1] = 0x3C;  /* d = 1.0 */
    b4[2] = 0x00; b4[3] = 0x38;  /* dmin = 0.5 */
    b4[4 + 0] = 2;               /* sub-block 0 scale 2 */
    b4[4 + 4] = 3;               /* sub-block 0 min 3 */
    b4[16] = 0x57;               /* level 7 (sub-block 0), level 5 (sub-block 1) */
    T_OK(mio_decode_f32(MIO_TYPE_Q4_K, b4, sizeof b4, y, 256));
    T_CHECK(y[0] == 12.5f);  /* 1*2*7 - 0.5*3 */
    T_CHECK(y[1] == -1.5f);  /* 1*2*0 - 0.5*3 */
    T_CHECK(y[32] == 0.0f);  /* sub-block 1: scale 0, min 0 */

    uint8_t b6[210] = {0};
    b6[0] = 0x05;            /* ql: low 4 bits of element 0 */
    b6[128] = 0x01;          /* qh: bits 4-5 of element 0 = 1 */
    b6[192] = (uint8_t)-2;   /* scale of sub-block 0 */
    b6[208] = 0x00; b6[209] = 0x3C; /* d = 1.0 */
    T_OK(mio_decode_f32(MIO_TYPE_Q6_K, b6, sizeof b6, y, 256));
    T_CHECK(y[0] == 22.0f);  /* 1 * -2 * ((5 | 16) - 32) */
    T_CHECK(y[1] == 64.0f);  /* 1 * -2 * (0 - 32) */

    uint8_t b2[84] = {0};
    b2[0] = 0x21;                     /* scale 1, min 2 */
    b2[16] = 0x03;                    /* element 0 level 3 */
    b2[80] = 0x00; b2[81] = 0x40;     /* d = 2 */
    b2[82] = 0x00; b2[83] = 0x3C;     /* dmin = 1 */
    T_OK(mio_decode_f32(MIO_TYPE_Q2_K, b2, sizeof b2, y, 256));
    T_CHECK(y[0] == 4.0f);   /* 2*1*3 - 1*2 */
    T_CHECK(y[1] == -2.0f);
}

/* decode(encode(x)) stays within a per-type fraction of the block's spread */
static void check_roundtrip(void) {
    /* relative RMS error bounds (error RMS / signal RMS) on Gaussian data */
    static const double bound[NKTYPES] = {0.45, 0.25, 0.12, 0.06, 0.03, 0.012};
    const int64_t n = 256 * 64;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    uint8_t *q = malloc(wire(MIO_TYPE_Q8_K, (size_t)n));
    fill_input(IN_GAUSS, 12345, x, n, 256);
    for (int t = 0; t < NKTYPES; t++) {
        int type = KTYPES[t];
        T_OK(mio_encode_f32(type, x, (size_t)n, q, wire(type, (size_t)n)));
        T_OK(mio_decode_f32(type, q, wire(type, (size_t)n), y, (size_t)n));
        double se = 0, sx = 0, worst = 0;
        for (int64_t i = 0; i < n; i++) {
            double e = (double)y[i] - x[i];
            se += e * e;
            sx += (double)x[i] * x[i];
            if (fabs(e) > worst) worst = fabs(e);
        }
        double rel = sqrt(se / sx);
        printf("round trip %-5s rel rms %.5f max abs %.4f\n", mio_type_name(type), rel, worst);
        T_CHECK(rel < bound[t]);
    }
    /* q8_K: every element within half a step of d */
    T_OK(mio_encode_f32(MIO_TYPE_Q8_K, x, (size_t)n, q, wire(MIO_TYPE_Q8_K, (size_t)n)));
    T_OK(mio_decode_f32(MIO_TYPE_Q8_K, q, wire(MIO_TYPE_Q8_K, (size_t)n), y, (size_t)n));
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        float d;
        memcpy(&d, q + (size_t)(i / 256) * 292, 4);
        if (fabsf(y[i] - x[i]) > 0.5f * fabsf(d) * 1.0001f) bad = i;
    }
    T_EQ_INT(bad, -1);
    /* q6_K: error within half a sub-block step d*scale (+ rounding slack) */
    T_OK(mio_encode_f32(MIO_TYPE_Q6_K, x, (size_t)n, q, wire(MIO_TYPE_Q6_K, (size_t)n)));
    T_OK(mio_decode_f32(MIO_TYPE_Q6_K, q, wire(MIO_TYPE_Q6_K, (size_t)n), y, (size_t)n));
    bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        const uint8_t *blk = q + (size_t)(i / 256) * 210;
        uint16_t dh;
        memcpy(&dh, blk + 208, 2);
        float step = fabsf(h2f(dh) * (float)(int8_t)blk[192 + (i % 256) / 16]);
        /* levels are -32..31: values beyond the top level clip */
        if (fabsf(y[i] - x[i]) > 0.5f * step * 1.001f + 1e-6f && fabsf(x[i]) < 31.0f * step) bad = i;
    }
    T_EQ_INT(bad, -1);
    free(x);
    free(y);
    free(q);
}

static void check_errors(void) {
    float x[512];
    uint8_t b[2 * 292 + 8];
    fill_input(IN_GAUSS, 7, x, 512, 256);
    T_STATUS(mio_encode_f32(MIO_TYPE_Q4_K, x, 300, b, 144), MIO_ERR_SIZE_MISMATCH);
    T_MSG_HAS("300 elements");
    T_STATUS(mio_encode_f32(MIO_TYPE_Q4_K, x, 256, b, 143), MIO_ERR_SIZE_MISMATCH);
    T_STATUS(mio_decode_f32(MIO_TYPE_Q6_K, b, 211, x, 256), MIO_ERR_SIZE_MISMATCH);
    x[300] = NAN;
    T_STATUS(mio_encode_f32(MIO_TYPE_Q5_K, x, 512, b, 352), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 300");
    x[300] = 1.0f;
    x[7] = -INFINITY;
    T_STATUS(mio_encode_f32(MIO_TYPE_Q2_K, x, 512, b, 168), MIO_ERR_NON_FINITE);
    T_MSG_HAS("element 7");
    T_MSG_HAS("-inf");
    x[7] = 0.5f;
    float qw[256];
    for (int i = 0; i < 256; i++) qw[i] = 1.0f;
    T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q8_K, x, 256, 256, qw, b, 292), MIO_ERR_ENCODER_UNAVAILABLE);
    T_STATUS(mio_encode_f32_imatrix(MIO_TYPE_Q4_K, x, 512, 384, qw, b, 288), MIO_ERR_SIZE_MISMATCH);
}

/* unaligned buffers and the threaded entry point give the same bytes */
static void check_alignment_threads(void) {
    const size_t n = 256 * 9;
    float *x = malloc(n * 4 + 8);
    uint8_t *a = malloc(wire(MIO_TYPE_Q8_K, n) + 8), *c = malloc(wire(MIO_TYPE_Q8_K, n) + 8);
    fill_input(IN_HEAVY_TAILS, 99, x, (int64_t)n, 256);
    float *xu = (float *)(void *)((uint8_t *)malloc(n * 4 + 8) + 1);
    memcpy(xu, x, n * 4);
    for (int t = 0; t < NKTYPES; t++) {
        size_t len = wire(KTYPES[t], n);
        T_OK(mio_encode_f32(KTYPES[t], x, n, a, len));
        T_OK(mio_encode_f32(KTYPES[t], xu, n, c + 3, len));
        T_CHECK(memcmp(a, c + 3, len) == 0);
        T_OK(mio_encode_f32_mt(KTYPES[t], x, n, c, len, 3));
        T_CHECK(memcmp(a, c, len) == 0);
    }
    free((uint8_t *)(void *)xu - 1);
    free(x);
    free(a);
    free(c);
}

/* ---------------- interop with the peer ---------------- */

static int g_fail_reported;

static void report(const char *what, int type, uint64_t seed, int kind, int64_t n_per_row, int64_t off,
                   const uint8_t *ours, const uint8_t *theirs) {
    t_fail++;
    if (g_fail_reported++ > 20) return;
    fprintf(stderr, "MISMATCH %s %s seed=%llu input=%s n_per_row=%lld: first differing byte %lld (ours %02x, ggml %02x)\n",
            what, mio_type_name(type), (unsigned long long)seed, kind >= 0 ? input_kind_name[kind] : "-",
            (long long)n_per_row, (long long)off, ours[off], theirs[off]);
}

static void interop_encode(uint64_t seed) {
    static const int64_t lens[] = {256, 512, 1280, 4096};
    static const int64_t rows[] = {1, 3, 2, 2};
    int ok = 0, total = 0;
    /* ggml_quantize_chunk has no q8_K case: its reference row quantizer is the judge */
    peer_from_float_fn q8k_ref;
    *(void **)&q8k_ref = dlsym(g_peer.h, "quantize_row_q8_K_ref");
    T_CHECK(q8k_ref != NULL);
    if (!q8k_ref) return;
    for (int t = 0; t < NKTYPES; t++) {
        int type = KTYPES[t];
        for (int kind = 0; kind < CODEC_INPUT_KINDS; kind++) {
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                int64_t npr = lens[li], nr = rows[li], n = npr * nr;
                uint64_t s = seed + (uint64_t)(kind * 131 + (int)li * 7 + t * 1009);
                float *x = malloc((size_t)n * 4), *qw = malloc((size_t)npr * 4);
                size_t len = wire(type, (size_t)n);
                uint8_t *a = calloc(1, len), *b = calloc(1, len);
                fill_input(kind, s, x, n, 256);
                /* plain */
                if (type == MIO_TYPE_Q8_K) {
                    q8k_ref(x, b, n);
                } else {
                    peer_quantize(type, x, b, nr, npr, NULL);
                }
                mio_status st = mio_encode_f32(type, x, (size_t)n, a, len);
                total++;
                int64_t d = st ? 0 : first_diff(a, b, len);
                if (st || d >= 0) report("encode", type, s, kind, npr, d < 0 ? 0 : d, a, b);
                else { ok++; t_pass++; }
                /* importance-weighted */
                if (type != MIO_TYPE_Q8_K) {
                    uint64_t ws = s ^ 0x5555;
                    for (int64_t i = 0; i < npr; i++) {
                        float u = rng_unit(&ws);
                        /* some zero weights; in the longest rows a run of zeros covering whole sub-blocks */
                        qw[i] = ((li == 1 && u < 0.1f) || (li == 3 && i < 48)) ? 0.0f : u * u * 4.0f + (li == 2 ? 1e-3f : 0.0f);
                    }
                    memset(a, 0, len);
                    memset(b, 0, len);
                    peer_quantize(type, x, b, nr, npr, qw);
                    st = mio_encode_f32_imatrix(type, x, (size_t)n, npr, qw, a, len);
                    total++;
                    d = st ? 0 : first_diff(a, b, len);
                    if (st || d >= 0) report("encode_imatrix", type, s, kind, npr, d < 0 ? 0 : d, a, b);
                    else { ok++; t_pass++; }
                }
                free(x); free(qw); free(a); free(b);
            }
        }
    }
    printf("interop encode: %d/%d cases byte-exact\n", ok, total);
}

static void interop_decode(uint64_t seed) {
    for (int t = 0; t < NKTYPES; t++) {
        int type = KTYPES[t];
        peer_to_float_fn tf = peer_to_float(type);
        /* q8_K has no to_float in ggml's type traits; its exported dequantize_row_q8_K is the judge */
        if (!tf && type == MIO_TYPE_Q8_K) *(void **)&tf = dlsym(g_peer.h, "dequantize_row_q8_K");
        if (!tf) { printf("ggml has no to_float for %s: decoder interop skipped\n", mio_type_name(type)); continue; }
        const size_t nb = 64;
        size_t bb = mio_type_block_bytes(type), len = bb * nb;
        uint8_t *q = malloc(len);
        float *ya = malloc(nb * 256 * 4), *yb = malloc(nb * 256 * 4);
        uint64_t s = seed + (uint64_t)t;
        for (size_t i = 0; i < len; i++) q[i] = (uint8_t)rng_next(&s);
        /* some blocks with inf/NaN/subnormal scales */
        static const uint16_t special[] = {0x7c00, 0xfc00, 0x7e01, 0xfd55, 0x0001, 0x8000};
        for (int k = 0; k < 6; k++) {
            uint8_t *blk = q + bb * (size_t)(k + 1);
            size_t off = type == MIO_TYPE_Q2_K ? 80 : type == MIO_TYPE_Q3_K ? 108 : type == MIO_TYPE_Q6_K ? 208 : 0;
            memcpy(blk + off, &special[k], 2);
            if (type == MIO_TYPE_Q2_K || type == MIO_TYPE_Q4_K || type == MIO_TYPE_Q5_K) memcpy(blk + off + 2, &special[5 - k], 2);
        }
        tf(q, yb, nb * 256);
        T_OK(mio_decode_f32(type, q, len, ya, (size_t)nb * 256));
        int64_t d = first_float_diff(ya, yb, (size_t)nb * 256);
        if (d >= 0) {
            t_fail++;
            uint32_t ua, ub;
            memcpy(&ua, ya + d, 4);
            memcpy(&ub, yb + d, 4);
            fprintf(stderr, "MISMATCH decode %s seed=%llu: first differing float %lld (ours %08x, ggml %08x)\n",
                    mio_type_name(type), (unsigned long long)seed, (long long)d, ua, ub);
        } else t_pass++;
        free(q); free(ya); free(yb);
    }
}

int main(int argc, char **argv) {
    (void)argc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *isa = getenv("MIO_ISA");
    printf("ISA path: %s (MIO_ISA %s)\n", mio_cpu_isa() ? mio_cpu_isa() : "refused", isa ? isa : "unset");
    uint64_t seed = test_seed();
    check_layout();
    check_q8_K_bytes();
    check_zero_blocks();
    check_decode_bytes();
    check_roundtrip();
    check_errors();
    check_alignment_threads();
    if (peer_codec_load()) {
        interop_encode(seed);
        interop_decode(seed);
    } else {
        printf("interop part skipped (no peer)\n");
    }
    /* the same checks again on the scalar path, in a child process */
    if (!isa) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            char sbuf[32];
            snprintf(sbuf, sizeof sbuf, "%llu", (unsigned long long)seed);
            setenv("MIO_ISA", "scalar", 1);
            setenv("MIO_SEED", sbuf, 1);
            execv("/proc/self/exe", argv);
            _exit(127);
        }
        int status = 0;
        T_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    T_DONE();
}
