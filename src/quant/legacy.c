/* legacy.c — codecs for q4_0 q4_1 q5_0 q5_1 q8_0 q8_1.
 * (Being written; until then these types report no encoder/decoder.) */
#include "codec.h"

void codec_register_legacy(mio_codec *tab) { (void)tab; }
