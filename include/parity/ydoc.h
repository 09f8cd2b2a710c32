/* Reading libyaml documents strictly, with located errors: shared by the
 * fixture loader, the results reader, lint and the decision splice. libyaml
 * marks are 0-based and count characters, which is what an editor shows as
 * the column.
 *
 * Every file parity reads may be hostile (a results file comes from another
 * machine), and libyaml's own loader is quadratic in nesting depth and in
 * the number of anchors. ydoc_read and ydoc_load refuse in time linear in
 * the input: a size limit before parsing, and a document built here from
 * libyaml's event stream with a nesting limit and a hashed anchor table. */
#ifndef PARITY_YDOC_H
#define PARITY_YDOC_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "parity/error.h"

/* Collections nested deeper than this are refused (a fixture or results
 * file needs 6). */
#define PX_YAML_MAX_DEPTH 64
/* Default size limits, in MiB; --max-size raises or lowers both. */
#define PX_FIXTURE_MAX_MB 16
#define PX_RESULTS_MAX_MB 64

/* Override the size limit for every file read from now on (MiB; 0: the
 * defaults). Set once by the command line before anything is read. */
void ydoc_set_max_mb(double mb);
/* The limit in bytes for a kind of file ("fixture", "results file", ...). */
size_t ydoc_max_bytes(const char *kind);

/* A whole file, NUL-terminated (one spare byte), refused past the size
 * limit for its kind: "PATH:L:C: KIND is larger than N MiB ..." naming where
 * the limit falls. NULL with *err (PX_EXIT_USAGE) when unreadable or too big. */
char *ydoc_read(const char *path, const char *kind, size_t *len, px_error *err);

/* Parse one YAML document from data into *doc (yaml_document_delete it).
 * -1 with *err (PX_EXIT_USAGE, path:line:col) on a syntax or encoding error,
 * nesting deeper than PX_YAML_MAX_DEPTH, an undefined or duplicate anchor,
 * a second document, or no document at all; *doc is then empty. `kind`
 * words the messages ("fixture", "results file"). */
int ydoc_load(const char *path, const char *data, size_t len, const char *kind, yaml_document_t *doc,
              px_error *err);

/* Reading a large file without keeping all of it: the items of each
 * sequence at `path` ("examples": ROOT.examples; "environments/ * /examples"
 * (no spaces): ROOT.environments.ENV.examples, * any key) are not kept in
 * the document. Each is built as a document of its own, handed to item()
 * and freed, in the file's order; the sequence stays in the document,
 * empty. take() decides at each such item's start (1 take it, 0 keep it in
 * the document, -1 out of memory): `doc` is the document so far (the
 * mappings on the path hold the pairs before it), `map` the id of the
 * mapping that holds the sequence, `key` the id of the key the path's
 * second collection hangs under (the environment's name; 0 for a path of
 * one key) and pos the index of that pair in its mapping.
 * item() returns 0, or -1 to stop with *err. */
typedef struct ydoc_divert {
    const char *path;
    int (*take)(void *ctx, yaml_document_t *doc, int map, int key, size_t pos);
    int (*item)(void *ctx, yaml_document_t *item, size_t pos, px_error *err);
    void *ctx;
} ydoc_divert;

/* Returned by ydoc_load_stream when the input must be read whole with
 * ydoc_read and ydoc_load, which say exactly what is wrong with it: it is
 * not a YAML document (syntax, encoding, nesting, anchors, a second
 * document, none), or an anchor or alias appears in an item. When data
 * holds the whole input (fp NULL), a YAML syntax or encoding error and an
 * empty input are said at once, as ydoc_load says them. */
#define YDOC_AGAIN 1

/* ydoc_load from fp, read in chunks (or from data when fp is NULL), items
 * diverted as dv says (dv must not be NULL). 0, -1 with *err (out of
 * memory, or item()'s error), or YDOC_AGAIN. The caller checks the size
 * limit first (ydoc_max_bytes). */
int ydoc_load_stream(const char *path, FILE *fp, const char *data, size_t len, const char *kind,
                     yaml_document_t *doc, const ydoc_divert *dv, px_error *err);

/* The value of key in a mapping, or NULL. */
yaml_node_t *ydoc_get(yaml_document_t *d, yaml_node_t *map, const char *key);

/* The value of a required key, or NULL with *err at the mapping. */
yaml_node_t *ydoc_require(yaml_document_t *d, const char *path, yaml_node_t *map, const char *key, const char *what,
                          px_error *err);

/* "a scalar", "a list", "a mapping" ("nothing" for no node). */
const char *ydoc_type_name(yaml_node_type_t t);
/* 0 when n is of type t; else -1 with *err at n: "WHAT must be a list,
 * not a scalar". */
int ydoc_want(const char *path, const yaml_node_t *n, yaml_node_type_t t, const char *what, px_error *err);
/* YAML's null: only a plain scalar (empty, ~, null, Null, NULL), since the
 * writers quote every string and a value may well be called "null". */
int ydoc_is_null(const yaml_node_t *n);

/* Every key of the mapping is a scalar in `allowed` (NULL-terminated) and
 * appears once: a typo is never silently ignored. -1 with *err (code 2,
 * path:line:col of the key) otherwise. */
int ydoc_check_keys(yaml_document_t *d, const char *path, yaml_node_t *map, const char *what,
                    const char *const *allowed, px_error *err);

#endif
