/* SPDX-License-Identifier: MIT */
/* interop_dot.c — mio_matvec against ggml's own CPU kernels (the peer package's
 * libggml-cpu-haswell.so, and libggml-cpu-zen4.so too when the CPU has the
 * AVX-512 features that build needs): for every weight type libmodelio has a
 * kernel for, random weights encoded by libmodelio, random activations encoded
 * to ggml's vec_dot_type (which must equal mio_vec_dot_type) by mio_encode_f32
 * (byte-exact with ggml's reference quantizers, as mio_matvec's activations
 * are; ggml's x86 from_float rounds exact ties to even instead), and ggml's
 * vec_dot gives each row's dot product. mio_matvec's rows (at the level
 * the library picked, or MIO_ISA) must agree within a relative L2 error
 * (||ours - ggml|| / ||ggml||) of 1e-3 over all rows of a matrix, against each
 * ggml build; so must mio_packed_matmul's (the packed tiles of the level, or a
 * copy), for the same weights packed with mio_pack_weights. SKIP (77) without the peer or on a CPU without AVX2; without the
 * AVX-512 features only the haswell build is checked (said on stdout). Built for
 * aarch64 (tests/neon/, under qemu) it checks ggml's arm64 dotprod build instead. */
#include "modelio.h"
#include "ggml_cpu_peer.h"
#include "../test.h"

#include <math.h>

static const int k_types[] = {MIO_TYPE_F32,  MIO_TYPE_F16,   MIO_TYPE_BF16,  MIO_TYPE_Q4_0,  MIO_TYPE_Q4_1,
                              MIO_TYPE_Q5_0, MIO_TYPE_Q5_1,  MIO_TYPE_Q8_0,  MIO_TYPE_Q2_K,  MIO_TYPE_Q3_K,
                              MIO_TYPE_Q4_K, MIO_TYPE_Q5_K,  MIO_TYPE_Q6_K,  MIO_TYPE_TQ1_0, MIO_TYPE_TQ2_0,
                              MIO_TYPE_IQ4_NL, MIO_TYPE_IQ4_XS, MIO_TYPE_MXFP4};

/* Every type against one ggml CPU build; 0 when it could be loaded. */
static int check_variant(const peer_api *api, const char *variant, uint64_t seed) {
    peer_cpu cpu;
    char why[4400];
    if (peer_cpu_load(api, variant, &cpu, why, sizeof why)) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    peer_rng rng;
    peer_rng_seed(&rng, seed);
    static const size_t lens[] = {256, 768, 4096};
    const size_t rows = 7;
    for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; t++) {
        int type = k_types[t];
        const peer_type_traits_cpu *tr = cpu.traits(type);
        if (!tr || !tr->vec_dot || !cpu.traits(tr->vec_dot_type)->from_float) {
            fprintf(stderr, "%s: ggml %s has no vec_dot/from_float\n", mio_type_name(type), variant);
            t_fail++;
            continue;
        }
        T_EQ_INT(mio_vec_dot_type(type), tr->vec_dot_type);
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            size_t n = lens[k];
            size_t wrb = n / (size_t)mio_type_block_size(type) * mio_type_block_bytes(type);
            size_t arb = n / (size_t)mio_type_block_size(tr->vec_dot_type) * mio_type_block_bytes(tr->vec_dot_type);
            float *wf = malloc(sizeof(float) * n * rows), *x = malloc(sizeof(float) * n), y[7], yp[7];
            uint8_t *w = malloc(wrb * rows), *a = malloc(arb);
            for (size_t i = 0; i < n * rows; i++)
                wf[i] = (float)((double)(peer_next(&rng) >> 11) * 0x1.0p-53 * 2 - 1) * (float)(1 + i % 5);
            for (size_t i = 0; i < n; i++) x[i] = (float)((double)(peer_next(&rng) >> 11) * 0x1.0p-53 * 6 - 3);
            T_OK(mio_encode_f32(type, wf, n * rows, w, wrb * rows));
            T_OK(mio_matvec(type, w, rows, n, x, y, 1));
            mio_packed *p = NULL;
            T_OK(mio_pack_weights(type, w, rows, n, &p));
            T_OK(mio_packed_matmul(p, x, 1, yp, 1));
            /* ggml's vec_dot on the activation bytes mio_matvec uses: the
             * portable encoder's (ggml's reference quantizer's: roundf). ggml's
             * own x86 from_float rounds half to even, so on the rare exact tie
             * its codes differ by one, which over a short row can exceed the
             * tolerance by itself (seed 3696244983719234225: mxfp4 n=256 at
             * 1.04e-3); the kernels are what this test compares. */
            T_OK(mio_encode_f32(tr->vec_dot_type, x, n, a, arb));
            double num = 0, den = 0, nump = 0;
            for (size_t r = 0; r < rows; r++) {
                float g = 0;
                tr->vec_dot((int)n, &g, 0, w + r * wrb, 0, a, 0, 1);
                num += ((double)y[r] - g) * ((double)y[r] - g);
                nump += ((double)yp[r] - g) * ((double)yp[r] - g);
                den += (double)g * g;
            }
            double rel = den > 0 ? sqrt(num / den) : sqrt(num), relp = den > 0 ? sqrt(nump / den) : sqrt(nump);
            if (rel <= 1e-3) t_pass++;
            else {
                t_fail++;
                fprintf(stderr, "%s n=%zu: relative L2 error %.3g against ggml %s's vec_dot (limit 1e-3)\n",
                        mio_type_name(type), n, rel, variant);
            }
            if (relp <= 1e-3) t_pass++;
            else {
                t_fail++;
                fprintf(stderr, "%s n=%zu, packed %s: relative L2 error %.3g against ggml %s's vec_dot (limit 1e-3)\n",
                        mio_type_name(type), n, mio_packed_layout(p), relp, variant);
            }
            if (n == 4096)
                printf("%-7s n=%zu relative L2 error vs ggml %s: %.2e, packed (%s) %.2e\n", mio_type_name(type), n,
                       variant, rel, mio_packed_layout(p), relp);
            mio_packed_free(p);
            free(wf), free(x), free(w), free(a);
        }
    }
    return 0;
}

int main(void) {
    if (!mio_cpu_isa()) T_SKIP("MIO_ISA names a level this CPU cannot run");
    peer_api api;
    char why[4400];
    int rc = peer_load(&api, why, sizeof why);
    if (rc > 0) T_SKIP(why);
    if (rc < 0) { fprintf(stderr, "%s\n", why); return 1; }
    uint64_t seed = peer_seed("interop_dot");
    printf("libmodelio level: %s\n", mio_cpu_isa());
#if defined(__aarch64__)
    /* under qemu or on an arm64 machine (tests/neon/): ggml's dotprod build */
    if (check_variant(&api, PEER_CPU_ARM64_DOTPROD, seed)) T_SKIP("ggml's arm64 dotprod CPU back end is absent");
#else
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") || !__builtin_cpu_supports("f16c"))
        T_SKIP("this CPU lacks AVX2/FMA/F16C: ggml's haswell back end cannot run here");
    if (check_variant(&api, "haswell", seed)) T_SKIP("ggml's haswell CPU back end is absent");
    /* ggml's zen4 build is compiled for AVX-512 F/CD/VL/DQ/BW + VBMI + VNNI + BF16 */
    const char *missing = !__builtin_cpu_supports("avx512f")      ? "avx512f"
                          : !__builtin_cpu_supports("avx512cd")   ? "avx512cd"
                          : !__builtin_cpu_supports("avx512vl")   ? "avx512vl"
                          : !__builtin_cpu_supports("avx512dq")   ? "avx512dq"
                          : !__builtin_cpu_supports("avx512bw")   ? "avx512bw"
                          : !__builtin_cpu_supports("avx512vbmi") ? "avx512vbmi"
                          : !__builtin_cpu_supports("avx512vnni") ? "avx512vnni"
                          : !__builtin_cpu_supports("avx512bf16") ? "avx512bf16"
                                                                  : NULL;
    if (missing) printf("ggml zen4 not checked: this CPU lacks %s\n", missing);
    else if (check_variant(&api, "zen4", seed)) t_fail++; /* the package ships it: absent is an error */
#endif
    T_DONE();
}
