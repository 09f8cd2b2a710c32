/* The review session's model, apart from curses so it can be tested on its
 * own: which examples are listed (filter, search), which candidate is shown
 * beside the reference, and the reviewer's decisions, kept apart from the
 * automatic verdicts. Every decision reaches the journal before the model
 * shows it as recorded; undo journals the state it restores. */
#ifndef PARITY_REVIEW_H
#define PARITY_REVIEW_H

#include <stddef.h>

#include "parity/decision.h"
#include "parity/writeback.h"
#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/results.h"

typedef enum px_filter {
    PX_FILTER_ALL,
    PX_FILTER_FAILURES,    /* some environment does not meet the contract */
    PX_FILTER_DIFFERENCES, /* some candidate parts from the reference */
    PX_FILTER_UNDECIDED,   /* no reviewer decision */
    PX_FILTER_FLAGGED,     /* decision: flag */
    PX_FILTER_COUNT
} px_filter;
const char *filter_name(px_filter f);

/* An example's review as the session holds it: the review record's fields
 * (PX_REVIEW_RECORD in decision.h, owned here; NULL: none) and whether it
 * is journaled but not yet in the fixture. */
typedef struct px_mark {
#define PX_MARK_MEMBER(e, m, k) char *m;
    PX_REVIEW_RECORD(PX_MARK_MEMBER)
#undef PX_MARK_MEMBER
    int unwritten;
} px_mark;

typedef struct px_undo {
    size_t example;
    px_mark before;
} px_undo;

typedef struct px_session {
    const px_fixture *f;
    const px_results *res;       /* may be filled in while the runner runs */
    const px_judgement *j;       /* NULL until judged */
    px_mark *marks;              /* one per example */
    px_undo *undo;
    size_t n_undo, cap_undo;
    size_t *visible, n_visible;  /* example indices the filter lets through */
    size_t cursor;               /* index into visible */
    px_filter filter;
    int candidate;               /* results environment shown beside the reference */
    size_t n_unwritten;
    const char *reviewer;
    px_writeback *store;            /* where decisions go; NULL: read-only (demo, results file) */
} px_session;

int review_init(px_session *rv, const px_fixture *f, const px_results *res, px_writeback *store, const char *reviewer);
void review_free(px_session *rv);

/* Recompute the visible list (after a filter change or new verdicts),
 * keeping the cursor on the same example when it is still listed. */
void review_refilter(px_session *rv);
void review_set_filter(px_session *rv, px_filter f);
/* The example under the cursor, or -1 when the list is empty. */
long review_current(const px_session *rv);
void review_move(px_session *rv, long delta);
void review_move_to(px_session *rv, size_t visible_index);
/* Next candidate environment (not the reference). */
void review_next_candidate(px_session *rv);

/* Decide the current example (decision "clear" clears). The decision is
 * journaled first; -1 with *err when that fails (nothing changes). */
int review_decide(px_session *rv, const char *decision, const char *note, px_error *err);
/* Set the current example's note, keeping its decision. */
int review_note(px_session *rv, const char *note, px_error *err);
int review_undo(px_session *rv, px_error *err);
/* Write every unwritten decision to the fixture (writeback.h). */
int review_write(px_session *rv, px_error *err);

/* Move to the next (dir 1) or previous (-1) listed example whose id or text
 * matches the PCRE2 pattern; 0 found, 1 none, -1 bad pattern (*err). */
int review_search(px_session *rv, const char *pattern, int dir, px_error *err);

#endif
