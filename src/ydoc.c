#include "parity/ydoc.h"

#include <stdio.h>
#include <string.h>

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

yaml_node_t *ydoc_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key))
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static int fail(const char *path, const yaml_node_t *n, px_error *err, const char *msg)
{
    return px_error_set(err, PX_EXIT_USAGE, path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s",
                        msg);
}

yaml_node_t *ydoc_require(yaml_document_t *d, const char *path, yaml_node_t *map, const char *key, const char *what,
                          px_error *err)
{
    yaml_node_t *n = ydoc_get(d, map, key);
    if (!n) {
        char msg[512];
        snprintf(msg, sizeof msg, "%.200s: missing required key '%.200s'", what, key);
        fail(path, map, err, msg);
    }
    return n;
}

int ydoc_check_keys(yaml_document_t *d, const char *path, yaml_node_t *map, const char *what,
                    const char *const *allowed, px_error *err)
{
    char msg[1024];
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type != YAML_SCALAR_NODE) {
            snprintf(msg, sizeof msg, "%s: keys must be plain names", what);
            return fail(path, k, err, msg);
        }
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= strcmp(*a, scalar(k)) == 0;
        if (!ok) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, a == allowed ? "" : ", ", sizeof list - strlen(list) - 1);
                strncat(list, *a, sizeof list - strlen(list) - 1);
            }
            snprintf(msg, sizeof msg, "unknown key '%.200s' in %.200s (expected one of: %s)", scalar(k), what, list);
            return fail(path, k, err, msg);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k2 = yaml_document_get_node(d, q->key);
            if (k2->type == YAML_SCALAR_NODE && !strcmp(scalar(k2), scalar(k))) {
                snprintf(msg, sizeof msg, "duplicate key '%.200s' in %.200s", scalar(k), what);
                return fail(path, k, err, msg);
            }
        }
    }
    return 0;
}
