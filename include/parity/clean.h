/* The contract's cleaning rules: PCRE2 substitutions applied in order to an
 * example's text before it is tokenized. Each rule has a written "why". */
#ifndef PARITY_CLEAN_H
#define PARITY_CLEAN_H

#include <stddef.h>

#include "parity/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct px_cleaner px_cleaner;

/* Create an empty rule list. */
px_cleaner *cleaner_new(void);
void cleaner_free(px_cleaner *c);

/* Compile and append a rule (UTF + UCP; the replacement uses PCRE2's
 * extended substitution syntax, all matches replaced). On a compile error
 * fills *err with the pattern offset in the message, e.g.
 * "pattern '(ab': missing closing parenthesis at offset 3"; the caller adds
 * file/line. Match and depth limits are set so a hostile pattern cannot hang. */
int cleaner_add(px_cleaner *c, const char *pattern, const char *replace, px_error *err);
size_t cleaner_count(const px_cleaner *c);

/* Apply all rules in order. Returns a malloc'd NUL-terminated string (length in
 * *out_len), or NULL with *err (match limit hit, invalid UTF-8 input). */
char *cleaner_apply(const px_cleaner *c, const char *text, size_t len,
                    size_t *out_len, px_error *err);

#ifdef __cplusplus
}
#endif
#endif
