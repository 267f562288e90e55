/* SPDX-License-Identifier: MIT */
/* deprecated_use.c — uses one deprecated name of modelio.h; test_deprecated_warns.sh
 * compiles it and expects the warning that names the replacement. */
#include <modelio.h>

int mio_deprecated_use(void);
int mio_deprecated_use(void) { return (int)mio_unmap(NULL, 0); }
