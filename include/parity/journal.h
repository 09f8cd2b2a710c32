/* The decision journal: before a decision touches the fixture it is
 * appended, one line, to a journal beside it and fsync'd; only then is it
 * reported as recorded. A session killed at any moment leaves the journal,
 * and `parity decide FIXTURE --recover` applies what it holds. After a
 * successful write the journal is removed.
 *
 * File: "<dir>/.<fixture name>.parity-journal". Each line is
 *     parity-journal 2 TAB id TAB decision TAB note TAB by TAB at
 *         TAB note_by TAB note_at TAB env TAB results_sha256 LF
 * with backslash escapes (\\ \t \n \r) and "\-" for an absent field; a
 * "parity-journal 1" line (id to at) left by an older parity is still read.
 * A last line without its LF was torn by a kill before it was acknowledged
 * and is ignored. */
#ifndef PARITY_JOURNAL_H
#define PARITY_JOURNAL_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/decision.h"

typedef struct px_journal {
    px_decision *d; /* strings owned by the journal */
    size_t n;
} px_journal;

void journal_path(const char *fixture, char *buf, size_t size);
int journal_append(const char *path, const px_decision *d, px_error *err);
/* A missing journal reads as empty (0 entries). */
int journal_read(const char *path, px_journal *out, px_error *err);
int journal_remove(const char *path, px_error *err);
void journal_free(px_journal *j);

#endif
