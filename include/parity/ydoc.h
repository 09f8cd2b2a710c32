/* Reading libyaml documents strictly, with located errors: shared by the
 * fixture loader, the results reader and lint. libyaml marks are 0-based
 * and count characters, which is what an editor shows as the column. */
#ifndef PARITY_YDOC_H
#define PARITY_YDOC_H

#include <yaml.h>

#include "parity/error.h"

/* The value of key in a mapping, or NULL. */
yaml_node_t *ydoc_get(yaml_document_t *d, yaml_node_t *map, const char *key);

/* The value of a required key, or NULL with *err at the mapping. */
yaml_node_t *ydoc_require(yaml_document_t *d, const char *path, yaml_node_t *map, const char *key, const char *what,
                          px_error *err);

/* Every key of the mapping is a scalar in `allowed` (NULL-terminated) and
 * appears once: a typo is never silently ignored. -1 with *err (code 2,
 * path:line:col of the key) otherwise. */
int ydoc_check_keys(yaml_document_t *d, const char *path, yaml_node_t *map, const char *what,
                    const char *const *allowed, px_error *err);

#endif
