/* The review screen's keys: one table from which the key handling, the `?`
 * help screen and the man page's KEYS section come (tests/test_tui.c fails
 * when the man page drifts from it). X(action, keys as shown, help). */
#ifndef PARITY_KEYS_H
#define PARITY_KEYS_H

#define PX_KEY_TABLE(X)                                                                            \
    X(DOWN, "j Down", "next example")                                                             \
    X(UP, "k Up", "previous example")                                                             \
    X(FIRST, "g Home", "first example")                                                            \
    X(LAST, "G End", "last example")                                                               \
    X(PAGE_DOWN, "PgDn", "a page down")                                                             \
    X(PAGE_UP, "PgUp", "a page up")                                                                 \
    X(CANDIDATE, "Tab", "next candidate beside the reference")                                     \
    X(DETAILS, "Enter Space", "toggle details: cleaned text, tokens, all logits (demo: next)")     \
    X(SEARCH, "/", "search ids and texts (PCRE2)")                                                 \
    X(SEARCH_NEXT, "n", "next match")                                                              \
    X(SEARCH_PREV, "N", "previous match")                                                          \
    X(FILTER, "f", "cycle filter: all, failures, differences, undecided, flagged")                 \
    X(ACCEPT, "a", "accept: the candidate meets the contract as the reviewer reads it")           \
    X(DEFECT, "x", "defect")                                                                       \
    X(UNSUPPORTED, "u", "unsupported: outside the backend's documented support")                   \
    X(NEEDS_RULE, "p", "needs a product rule (ambiguous)")                                         \
    X(FLAG, "m", "flag for later")                                                                 \
    X(CLEAR, "c", "clear the decision")                                                            \
    X(NOTE, "e", "edit the note (Enter saves, Esc cancels)")                                       \
    X(UNDO, "z", "undo the last decision")                                                         \
    X(RERUN, "r", "run this example again")                                                        \
    X(RERUN_ALL, "R", "run every example again")                                                   \
    X(WRITE, "w", "write the decisions into the fixture")                                          \
    X(THEME, "t", "next theme")                                                                    \
    X(HELP, "?", "this help")                                                                      \
    X(QUIT, "q", "quit (asks first when decisions are unwritten)")

typedef enum px_action {
#define PX_KEY_ENUM(name, keys, help) PX_ACT_##name,
    PX_KEY_TABLE(PX_KEY_ENUM)
#undef PX_KEY_ENUM
    PX_ACT_COUNT,
    PX_ACT_NONE = -1
} px_action;

typedef struct px_keydef {
    const char *keys, *help;
} px_keydef;

extern const px_keydef key_defs[PX_ACT_COUNT];

/* The action of a curses key code (getch), or PX_ACT_NONE. */
px_action key_action(int ch);

#endif
