/* SPDX-License-Identifier: MIT */
/* yaml_dump.c — mio_yaml_parse of a file, printed as JSON for
 * test_yaml_peer.py: a plain scalar as {"$plain": text, "$kind": resolved kind}
 * (mio_yaml_plain_kind), everything else as it is; on failure "ERROR line N:
 * reason" and exit 1. */
#include "core/yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(mio_yaml_kind k) {
    static const char *const n[] = {"str", "null", "true", "false", "int", "float", "zero", "date"};
    return (unsigned)k < 8 ? n[k] : "?";
}

static void mark(mio_json *j) {
    for (mio_json *c = j ? j->child : NULL; c; c = c->next) mark(c);
    if (j && j->type == MIO_JSON_RAW) {
        mio_json *o = mio_json_new_object();
        if (!o) exit(2);
        mio_json_add_string(o, "$plain", j->valuestring);
        mio_json_add_string(o, "$kind", kind_name(mio_yaml_plain_kind(j->valuestring)));
        /* move o's members into j, which becomes the object (it keeps its key and place) */
        free(j->valuestring);
        j->valuestring = NULL;
        j->type = MIO_JSON_OBJECT;
        j->child = o->child;
        o->child = NULL;
        mio_json_free(o);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: yaml_dump FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    mio_yaml_error e;
    mio_json *j = mio_yaml_parse(buf, n, &e);
    if (!j) {
        printf("ERROR line %zu: %s\n", e.line, e.reason);
        return 1;
    }
    mark(j);
    char *s = mio_json_print(j, false);
    printf("%s\n", s ? s : "null");
    free(s);
    mio_json_free(j);
    return 0;
}
