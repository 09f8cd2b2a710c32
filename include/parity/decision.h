/* A reviewer's decisions: one table of what each is called in a fixture,
 * the symbol the review list shows, the words for it, and whether it
 * settles an ambiguous example. Everything that names, shows or tests a
 * decision reads this table (fixture loader, write-back, lint, the review
 * screen, reports); px_review keeps the name as written.
 *
 * And the review record that carries a decision: one table of its fields
 * (PX_REVIEW_RECORD), one struct (px_review). The fixture's reader, the
 * splice that writes a decision back, the emitter, the journal and the
 * check report all walk the table, so a field added to it is read,
 * written, journaled and reported without further edits (see the table
 * for what does need one). */
#ifndef PARITY_DECISION_H
#define PARITY_DECISION_H

/* X(ENUM, name, symbol, done, settles) */
#define PX_DECISIONS(X)                                                     \
    X(ACCEPT, "accept", "A", "accepted", 1)                                 \
    X(DEFECT, "defect", "X", "marked a defect", 1)                          \
    X(UNSUPPORTED, "unsupported", "U", "marked unsupported", 1)             \
    X(NEEDS_RULE, "needs-rule", "P", "marked as needing a product rule", 0) \
    X(FLAG, "flag", "M", "flagged", 0)                                      \
    X(CLEAR, "clear", " ", "cleared", 0)

typedef enum px_decision_kind {
    PX_DEC_NONE = -1, /* no decision, or a name not in the table */
#define PX_DEC_ENUM(e, n, s, d, st) PX_DEC_##e,
    PX_DECISIONS(PX_DEC_ENUM)
#undef PX_DEC_ENUM
    PX_DEC_COUNT
} px_decision_kind;

typedef struct px_decision_info {
    const char *name;   /* as written in review.decision */
    const char *symbol; /* in the review list */
    const char *done;   /* "accepted", ... */
    int settles;        /* settles an ambiguous example */
} px_decision_info;

extern const px_decision_info px_decision_table[PX_DEC_COUNT];

/* The review record's fields, in the order they are written (fixture,
 * splice, emitter, journal, JSON report; the review screen's marks hold
 * them too, review.h): X(ENUM, member, key).
 *   decision        one of PX_DECISIONS' names (clear is never stored)
 *   note            the reviewer's words; it keeps its own author
 *   by, at          who decided, and when
 *   note_by/_at     who wrote the note, and when: a later decision by
 *                   someone else does not sign it
 *   env, results    what the decision was made on: the environment shown
 *                   and the hash of its results for the example
 *                   (results_example_sha256)
 * A new field needs a hand only where its meaning matters: a check in the
 * fixture's reader (as results_sha256 and decision have), the journal's
 * line version (its fields are counted: journal.c), what decide fills in (the note's
 * author: cmd_decide.c), the Markdown/HTML story and the text report,
 * which show chosen fields, not all of them, and parity-fixture(5). */
#define PX_REVIEW_RECORD(X)               \
    X(DECISION, decision, "decision")     \
    X(NOTE, note, "note")                 \
    X(BY, by, "by")                       \
    X(AT, at, "at")                       \
    X(NOTE_BY, note_by, "note_by")        \
    X(NOTE_AT, note_at, "note_at")        \
    X(ENV, env, "env")                    \
    X(RESULTS, results, "results_sha256")

enum {
#define PX_RV_ENUM(e, m, k) PX_RV_##e,
    PX_REVIEW_RECORD(PX_RV_ENUM)
#undef PX_RV_ENUM
    PX_REVIEW_FIELDS /* how many */
};

/* A review: in a loaded fixture the example's record (strings owned by the
 * fixture); in a decision what it writes (strings borrowed). NULL: the field
 * is absent (in a decision: left as it is). */
typedef struct px_review {
#define PX_RV_MEMBER(e, m, k) const char *m;
    PX_REVIEW_RECORD(PX_RV_MEMBER)
#undef PX_RV_MEMBER
} px_review;

/* A decision on one example: the review fields it writes (NULL: left as
 * they are); review.decision may also be clear, which removes the review. */
typedef struct px_decision {
    const char *id;
    px_review review;
} px_decision;

/* The fields' keys in the table's order, NULL-terminated (an allowed-keys
 * list for the reader). */
extern const char *const px_review_keys[PX_REVIEW_FIELDS + 1];

/* Field i (table order) of r, or NULL (out of range too). */
const char *review_field(const px_review *r, int i);
/* Where field i of r is kept, for setting it; NULL out of range. */
const char **review_slot(px_review *r, int i);
/* 1 when r has no field at all. */
int review_empty(const px_review *r);
/* Frees the fields of a review that owns them, and empties it. */
void review_clear(px_review *r);

/* PX_DEC_NONE for NULL or an unknown name. */
px_decision_kind decision_kind(const char *name);
/* "accept, defect, unsupported, needs-rule, flag" (stored: without clear),
 * or with "or clear" (given on a command line). */
const char *decision_list(int with_clear);

#endif
