/* A reviewer's decisions: one table of what each is called in a fixture,
 * the symbol the review list shows, the words for it, and whether it
 * settles an ambiguous example. Everything that names, shows or tests a
 * decision reads this table (fixture loader, write-back, lint, the review
 * screen, reports); px_review keeps the name as written. */
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

/* PX_DEC_NONE for NULL or an unknown name. */
px_decision_kind decision_kind(const char *name);
/* "accept, defect, unsupported, needs-rule, flag" (stored: without clear),
 * or with "or clear" (given on a command line). */
const char *decision_list(int with_clear);

#endif
