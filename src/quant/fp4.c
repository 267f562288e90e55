/* fp4.c — codecs for mxfp4 nvfp4.
 * (Being written; until then these types report no encoder/decoder.) */
#include "codec.h"

void codec_register_fp4(mio_codec *tab) { (void)tab; }
