/* SPDX-License-Identifier: MIT */
/* iq_tables.h — the IQ format constants (codebooks, sign table, iq4_nl values)
 * in our own packed layout; the data is generated into iq_tables.c by
 * scripts/gen-iq-tables.c from ggml's decoded output. */
#ifndef MIO_QUANT_IQ_TABLES_H
#define MIO_QUANT_IQ_TABLES_H

#include <stdint.h>

extern const uint8_t mio_iq_lv2[3];          /* value of each 2-bit level code */
extern const uint8_t mio_iq_lv3xxs[8];       /* value of each 3-bit level code, iq3_xxs grid */
extern const uint8_t mio_iq_lv3s[8];         /* value of each 3-bit level code, iq3_s grid */
extern const uint16_t mio_iq_grid2_256[256];  /* iq2_xxs: 8 x 2-bit codes per entry */
extern const uint16_t mio_iq_grid2_512[512];  /* iq2_xs */
extern const uint16_t mio_iq_grid2_1024[1024]; /* iq2_s */
extern const uint16_t mio_iq_grid3_256[256];  /* iq3_xxs: 4 x 3-bit codes per entry */
extern const uint16_t mio_iq_grid3_512[512];  /* iq3_s */
extern const uint16_t mio_iq_grid1_2048[2048]; /* iq1_s/iq1_m: 8 x 2-bit codes, value = code - 1 */
extern const uint8_t mio_iq_sign8[128];      /* 7 stored sign bits -> 8 (parity bit added) */
extern const int8_t mio_iq_nl4[16];          /* iq4_nl / iq4_xs values */
extern const uint32_t mio_iq_delta1_bits;    /* iq1 grid offset, float bits */

#endif
