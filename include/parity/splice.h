/* Writing review decisions back into a hand-written fixture without
 * touching anything else: a surgical splice of the original bytes at the
 * review node's span (libyaml marks count characters and skip a BOM, so they
 * are converted to byte offsets first), then a re-parse that proves every
 * other node reads exactly as before and the decision reads back as written.
 * Comments, blank lines, key order, quoting, anchors, flow style, CRLF, a
 * BOM and a missing final newline all survive, because none of those bytes
 * are rewritten.
 *
 * Cost: the fixture is parsed once as libyaml events (onto a flat record of
 * them, no document tree) to locate the edit, and the result once to verify
 * it; with several decisions, each verifying parse also records the text
 * for the next one. Input is refused in time linear in its size, as
 * ydoc_load refuses it (nesting past PX_YAML_MAX_DEPTH, an anchor defined
 * twice, an alias to no anchor before it, a second document or none). */
#ifndef PARITY_SPLICE_H
#define PARITY_SPLICE_H

#include <stddef.h>

#include "parity/decision.h"
#include "parity/error.h"

/* A decision (px_decision) writes the review fields it names, in the
 * review record's order (PX_REVIEW_RECORD, include/parity/decision.h). */

/* 1 when d is a decision word decide accepts (clear included). */
int splice_is_decision(const char *d);

/* Apply the decisions in order to text (len bytes); on success *out is the
 * new text (malloc'd, NUL-terminated, length *out_len). Nothing is written
 * anywhere. Errors (PX_EXIT_USAGE, located in `path`): unparsable text, an
 * unknown example id, a review node that is not a mapping, a field that is
 * not a scalar, and a result that does not verify. */
int splice_apply(const char *path, const char *text, size_t len, const px_decision *d, size_t n, char **out,
                   size_t *out_len, px_error *err);

/* The check splice_apply runs on its own result, for tests and the fuzz
 * harness: 0 when new_text reads as old with exactly decision d applied to
 * its example's review. Every node outside that review reads as before, in
 * order (kind, style, anchor, tag, scalars byte for byte, aliases naming the
 * same node; comments and layout may differ); the review keeps every pair it
 * had, as it was, but the fields d writes, which read back exactly as d
 * gives them; a clear leaves no review. Else -1 with *err (PX_EXIT_USAGE):
 * old unparsable or without the example, or new_text that does not verify. */
int splice_verify(const char *path, const char *old, size_t old_len, const char *new_text, size_t new_len,
                    const px_decision *d, px_error *err);

#endif
