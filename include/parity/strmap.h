/* A string-keyed hash map from a key to a non-negative index, for the
 * lookups that must stay linear on hostile input: duplicate example ids and
 * environment names, anchors, a results file's examples matched to the
 * fixture's. Keys are borrowed (they must outlive the map). The hash is
 * SipHash-2-4 with a per-process random key, so crafted keys cannot all
 * collide. */
#ifndef PARITY_STRMAP_H
#define PARITY_STRMAP_H

#include <stddef.h>

typedef struct px_strmap px_strmap;

/* NULL when out of memory. */
px_strmap *strmap_new(size_t expected);
void strmap_free(px_strmap *m);

/* Insert key -> value unless key is there: 0 inserted, 1 already there
 * (*old, when not NULL, is its value; nothing changes), -1 out of memory. */
int strmap_put(px_strmap *m, const char *key, long value, long *old);

/* The value of key, or -1 when absent. */
long strmap_get(const px_strmap *m, const char *key);

#endif
