/* iq.c — codecs for iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq1_s iq1_m iq4_nl iq4_xs.
 * (Being written; until then these types report no encoder/decoder.) */
#include "codec.h"

void codec_register_iq(mio_codec *tab) { (void)tab; }
