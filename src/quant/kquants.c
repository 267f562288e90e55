/* kquants.c — codecs for q2_K q3_K q4_K q5_K q6_K q8_K.
 * (Being written; until then these types report no encoder/decoder.) */
#include "codec.h"

void codec_register_kquants(mio_codec *tab) { (void)tab; }
