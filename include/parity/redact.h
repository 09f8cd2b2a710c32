/* Redaction: what leaves the machine (results files as run writes them,
 * reports, bundles, the review screen's error panes) passes through here
 * first. Built-in patterns for common secret shapes, the home directory
 * shown as ~, and the fixture's own `redact:` patterns (each with a why).
 * What was redacted is counted, never shown.
 *
 * Every pattern runs under a PCRE2 match limit, so redacting a message is
 * bounded in time whatever a fixture's pattern is. */
#ifndef PARITY_REDACT_H
#define PARITY_REDACT_H

#include <stddef.h>

#include "parity/error.h"

/* What replaces a secret. */
#define PX_REDACTED "[redacted]"

typedef struct px_redact_builtin {
    const char *name;    /* "bearer token" */
    const char *pattern; /* PCRE2 */
    const char *replace; /* pcre2_substitute syntax: keeps a key, drops its value */
} px_redact_builtin;

extern const px_redact_builtin px_redact_builtins[];
extern const size_t px_redact_builtin_count;

typedef struct px_redactor px_redactor;

/* A redactor with the built-in patterns, `home` (when not NULL and longer
 * than "/") shown as ~, and each of the n patterns in extra (the fixture's
 * `redact:`; a match is replaced by PX_REDACTED). NULL with *err when one of
 * extra does not compile (PX_ERR_MALFORMED; the message names its index:
 * the caller adds the fixture's place) or when out of memory. */
px_redactor *redact_new(const char *const *extra, size_t n, const char *home, px_error *err);
void redact_free(px_redactor *r);

/* 0 when pattern compiles as a redact pattern; else -1 with PCRE2's
 * message and offset in msg. */
int redact_check(const char *pattern, char *msg, size_t size);

/* A copy of s (NULL: NULL) with every secret replaced and the home
 * directory as ~; the count of replacements grows. A pattern that hits its
 * match limit on s leaves s unreadable rather than unredacted: the whole
 * text becomes PX_REDACTED (and counts once). NULL only when out of memory. */
char *redact_text(px_redactor *r, const char *s);
/* Replace *s by its redacted copy (free the old); -1 when out of memory,
 * leaving *s as it was. */
int redact_in_place(px_redactor *r, char **s);
/* How many values were redacted so far. */
size_t redact_count(const px_redactor *r);

#endif
