/* ternary.c — codecs for tq1_0 tq2_0 q1_0 q2_0.
 * (Being written; until then these types report no encoder/decoder.) */
#include "codec.h"

void codec_register_ternary(mio_codec *tab) { (void)tab; }
