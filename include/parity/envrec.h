/* The environment variables that change what a backend computes or how it
 * compiles (XLA_FLAGS, LIBTPU_INIT_ARGS, OMP_NUM_THREADS, ...), recorded in
 * each environment's manifest (parity-results(5)) beside the device, dtype
 * and versions: an executor inherits parity's environment, so the same
 * model on the same device gives other numbers when one of these changes,
 * and a configuration that leaves them out cannot say why. The last good
 * configuration (history.h) and parity merge compare them by name.
 *
 * Recorded: the built-in names and prefixes below, and those an environment
 * lists in the fixture's `record_env:`; only those set (an empty value is
 * set, to ""), each value passed through the redactor as "NAME=value" (so
 * the key=value rule sees the name: MY_TOKEN=... never leaves). */
#ifndef PARITY_ENVREC_H
#define PARITY_ENVREC_H

#include <stddef.h>
#include <stdio.h>

#include "parity/error.h"

struct px_redactor;
struct yaml_document_s;
struct yaml_node_s;

typedef struct px_envvar {
    char *name, *value;
} px_envvar;

typedef struct px_envvars {
    px_envvar *v;  /* sorted by name (strcmp), each name once */
    size_t n, cap;
    int recorded;  /* 0: not recorded (a manifest or history written before
                      parity recorded them): not the same as none set */
} px_envvars;

/* The built-in list, for the man page and its test: a name, or a prefix
 * ending in '*'. NULL-terminated. */
extern const char *const px_envrec_builtin[];

/* 1 when name (len bytes) is an environment variable's name as a fixture
 * may list it: a letter or _, then letters, digits and _. */
int envrec_valid_name(const char *name, size_t len);
/* 1 when name is one parity records for every environment. */
int envrec_is_builtin(const char *name);

/* Fill *out (recorded) from env ("NAME=value" strings, NULL-terminated, such
 * as environ): the built-in names and each of extra; the first of a name
 * twice is the one getenv sees. Values pass through rd (NULL: as they are).
 * -1 when out of memory, *out then empty and not recorded. */
int envrec_capture(px_envvars *out, char *const *env, char *const *extra, size_t n_extra, struct px_redactor *rd);
void envrec_clear(px_envvars *v);
/* A deep copy (-1 out of memory, *dst empty). */
int envrec_copy(px_envvars *dst, const px_envvars *src);
/* Append copies (unsorted until envrec_sort); -1 out of memory. */
int envrec_add(px_envvars *v, const char *name, const char *value);
void envrec_sort(px_envvars *v);
/* The value of name, NULL when not set. */
const char *envrec_get(const px_envvars *v, const char *name);

/* The first name (in order) whose value differs between a and b, one of
 * them not set included; NULL when the same (both not recorded, or both
 * recorded with the same values). When only one is recorded, "" (the
 * difference is that one is not recorded). */
const char *envrec_diff(const px_envvars *a, const px_envvars *b);

/* A value as shown to a person, on one line: in single quotes, with \, '
 * and control characters escaped; "not set" for NULL; longer ones cut at
 * max bytes (0: no cut) with "…". */
void envrec_show(const char *value, size_t max, char *buf, size_t size);
/* The whole list as one line, in order: "A='1' B=''", "none set" when
 * recorded with none; NULL when not recorded or out of memory (malloc'd). */
char *envrec_text(const px_envvars *v);
/* What differs between last and now, for a person, one line:
 * "XLA_FLAGS: '--a' → '--b'; OMP_NUM_THREADS: not set → '4'", or when one
 * side is not recorded "not recorded → A='1'". "" when the same. */
void envrec_changes(const px_envvars *last, const px_envvars *now, char *buf, size_t size);

/* `KEY:` and the mapping of names to values at indent (the value lines at
 * indent + 2; "KEY: {}" when none set); nothing when not recorded. */
void envrec_write_yaml(FILE *o, int indent, const char *key, const px_envvars *v);

/* Read what envrec_write_yaml wrote: n, a mapping of names to strings
 * (null: not recorded), into *out (sorted, recorded). -1 with *err
 * (PX_ERR_MALFORMED, path:line:col, `what` naming the place, such as
 * "environment 'tpu'.manifest.env") on a key that is not a variable's
 * name, one twice, a value that is not a string (null included: "" is set
 * to empty; a variable not set is left out) or holds a NUL; *out is then
 * empty. Linear in n's size. */
int envrec_read_yaml(struct yaml_document_s *doc, struct yaml_node_s *n, const char *path, const char *what,
                     px_envvars *out, px_error *err);

#endif
