/* Recording review decisions in a fixture safely, for `parity decide` and
 * the review screen alike: the fixture's bytes and hash as read; each
 * decision journaled (journal.h) before anything else; the edit spliced and
 * verified in memory (splice.h) and proved still a fixture; written only
 * if the file is unchanged on disk since it was read, atomically; then the
 * journal removed. */
#ifndef PARITY_WRITEBACK_H
#define PARITY_WRITEBACK_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/hash.h"
#include "parity/splice.h"

typedef struct px_writeback {
    char *path;
    char *text;               /* the fixture as read (or as last written);
                                 NULL once writeback_lean dropped it */
    size_t len;
    int lean;                 /* writeback_lean: the text is read again (and
                                 checked against hash) at each edit */
    char hash[PX_SHA256_HEX];
    char journal[4200];
} px_writeback;

int writeback_open(px_writeback *s, const char *path, px_error *err);
void writeback_close(px_writeback *s);
/* Keep only the hash from now on (the review screen holds a session open
 * for as long as it runs: a 10 000-example fixture's text is 2 MiB): each
 * edit reads the file again, refusing it as changed on disk (PX_EXIT_USAGE)
 * unless it still has the hash. */
void writeback_lean(px_writeback *s);

/* PX_EXIT_IO when the fixture is read-only (a reviewer's "hands off",
 * honoured even for root, whom a rename would let through). */
int writeback_writable(const px_writeback *s, px_error *err);

/* The edited text (malloc'd), or NULL with *err. Nothing is written. */
char *writeback_edit(const px_writeback *s, const px_decision *d, size_t n, size_t *out_len, px_error *err);

/* Write `out` (taken over) over the fixture unless it changed on disk since
 * it was read (PX_EXIT_USAGE, journal kept) or the write fails (PX_EXIT_IO,
 * journal kept, original untouched); then remove the journal and keep the
 * new text as the one read. */
int writeback_commit(px_writeback *s, char *out, size_t out_len, px_error *err);

/* "2026-12-02T14:00:00Z" for now. */
void writeback_now(char *buf, size_t size);

#endif
