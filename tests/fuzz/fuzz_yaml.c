/* SPDX-License-Identifier: MIT */
/* fuzz_yaml.c — libFuzzer target: the model-card YAML reader (src/core/yaml.c)
 * on any bytes, every plain scalar of the result resolved (mio_yaml_plain_kind)
 * and the tree printed; a failure must say where and why. */
#include "core/yaml.h"

#include <stdint.h>
#include <stdlib.h>

static void walk(const mio_json *j) {
    for (const mio_json *c = j->child; c; c = c->next) walk(c);
    if (j->type == MIO_JSON_RAW && (unsigned)mio_yaml_plain_kind(j->valuestring) > MIO_YAML_DATE) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mio_yaml_error err;
    mio_json *j = mio_yaml_parse((const char *)data, size, &err);
    if (!j) {
        if (!err.reason) abort();
        return 0;
    }
    walk(j);
    free(mio_json_print(j, false));
    mio_json_free(j);
    return 0;
}
