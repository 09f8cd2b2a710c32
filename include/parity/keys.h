/* The review screen's keys: one table, from which come the key handling
 * (key_action), the actions (src/tui/actions.c), demo mode's refusals, the
 * `?` help screen, the status line's hints, the key names of key scripts
 * (PARITY_KEYS) and the check of the man page's KEYS section
 * (tests/test_tui.c, both ways).
 *
 *     X(ID, name, codes, shown, help, flags, hint)
 *
 *   ID     the action is PX_ACT_ID
 *   name   its name; src/tui/actions.c implements it as act_<name>
 *   codes  the keys bound to it, in parentheses: characters and curses
 *          KEY_* codes (used only where <curses.h> is included); the man
 *          page lists every one, by its name in PX_KEY_NAMES
 *   shown  its keys as the `?` screen shows them (by the same names)
 *   help   what it does, as the `?` screen and the man page say it
 *   flags  PX_KEY_* (enum px_key_flag)
 *   hint   PX_HINT(review, demo, keys, word): its place among the status
 *          line's hints in the review and in demo mode (1 first, 0 not
 *          shown); keys: the names of the keys the hint shows (NULL: the
 *          first of shown); word: what it says after them. Actions with one
 *          place share one hint: "j/k move". */
#ifndef PARITY_KEYS_H
#define PARITY_KEYS_H

#include <stddef.h>

#define PX_HINT(review, demo, keys, word) review, demo, keys, word
#define PX_NO_HINT PX_HINT(0, 0, NULL, NULL)

#define PX_KEY_TABLE(X)                                                                                               \
    X(DOWN, down, ('j', KEY_DOWN), "j Down",                                                                          \
      "next example", 0, PX_HINT(1, 2, NULL, "move"))                                                                 \
    X(UP, up, ('k', KEY_UP), "k Up",                                                                                  \
      "previous example", 0, PX_HINT(1, 2, NULL, "move"))                                                             \
    X(FIRST, first, ('g', KEY_HOME), "g Home",                                                                        \
      "first example", 0, PX_NO_HINT)                                                                                 \
    X(LAST, last, ('G', KEY_END), "G End",                                                                            \
      "last example", 0, PX_NO_HINT)                                                                                  \
    X(PAGE_DOWN, page_down, (KEY_NPAGE), "PgDn",                                                                      \
      "a page down", 0, PX_NO_HINT)                                                                                   \
    X(PAGE_UP, page_up, (KEY_PPAGE), "PgUp",                                                                          \
      "a page up", 0, PX_NO_HINT)                                                                                     \
    X(SCROLL_DOWN, scroll_down, ('J'), "J",                                                                           \
      "scroll the example's pane down (also the help, summary and v)", 0, PX_NO_HINT)                                 \
    X(SCROLL_UP, scroll_up, ('K'), "K",                                                                               \
      "scroll the example's pane up", 0, PX_NO_HINT)                                                                  \
    X(CANDIDATE, candidate, ('\t'), "Tab",                                                                            \
      "next candidate beside the reference", 0, PX_HINT(2, 3, NULL, "candidate"))                                     \
    X(DETAILS, details, ('\n', KEY_ENTER, ' ', KEY_RIGHT), "Enter Space ->",                                          \
      "toggle details: cleaned text, tokens, all logits (demo: next)", 0, PX_HINT(0, 1, "Space Right", "next"))       \
    X(WHOLE, whole, ('v'), "v",                                                                                       \
      "view the example whole: text, outputs, tracebacks (scrolls)", 0, PX_NO_HINT)                                   \
    X(SEARCH, search, ('/'), "/",                                                                                     \
      "search ids and texts (PCRE2)", 0, PX_HINT(8, 0, NULL, "search"))                                               \
    X(SEARCH_NEXT, search_next, ('n'), "n",                                                                           \
      "next match", 0, PX_NO_HINT)                                                                                    \
    X(SEARCH_PREV, search_prev, ('N'), "N",                                                                           \
      "previous match", 0, PX_NO_HINT)                                                                                \
    X(FILTER, filter, ('f'), "f",                                                                                     \
      "cycle filter: all, failures, differences, undecided, flagged", 0, PX_HINT(7, 0, NULL, "filter"))               \
    X(ACCEPT, accept, ('a'), "a",                                                                                     \
      "accept: it meets the contract as the reviewer reads it",                                                       \
      PX_KEY_CHANGES, PX_HINT(3, 0, NULL, "decide"))                                                                  \
    X(DEFECT, defect, ('x'), "x",                                                                                     \
      "defect", PX_KEY_CHANGES, PX_HINT(3, 0, NULL, "decide"))                                                        \
    X(UNSUPPORTED, unsupported, ('u'), "u",                                                                           \
      "unsupported: outside the backend's documented support", PX_KEY_CHANGES, PX_HINT(3, 0, NULL, "decide"))         \
    X(NEEDS_RULE, needs_rule, ('p'), "p",                                                                             \
      "needs a product rule (ambiguous)", PX_KEY_CHANGES, PX_HINT(3, 0, NULL, "decide"))                              \
    X(FLAG, flag, ('m'), "m",                                                                                         \
      "flag for later", PX_KEY_CHANGES, PX_HINT(3, 0, NULL, "decide"))                                                \
    X(CLEAR, clear, ('c'), "c",                                                                                       \
      "clear the decision", PX_KEY_CHANGES, PX_HINT(3, 0, NULL, "decide"))                                            \
    X(NOTE, note, ('e'), "e",                                                                                         \
      "edit the note (Enter saves, Esc cancels)", PX_KEY_CHANGES, PX_HINT(4, 0, NULL, "note"))                        \
    X(UNDO, undo, ('z'), "z",                                                                                         \
      "undo the last decision", PX_KEY_CHANGES, PX_HINT(5, 0, NULL, "undo"))                                          \
    X(RERUN, rerun, ('r'), "r",                                                                                       \
      "run this example again, in the executor still up", 0, PX_NO_HINT)                                              \
    X(RERUN_ALL, rerun_all, ('R'), "R",                                                                               \
      "run every example again, in the executors still up", 0, PX_NO_HINT)                                            \
    X(WRITE, write, ('w'), "w",                                                                                       \
      "write the decisions into the fixture", PX_KEY_CHANGES | PX_KEY_DEMO_QUIET, PX_HINT(6, 0, NULL, "write"))       \
    X(THEME, theme, ('t'), "t",                                                                                       \
      "next theme", 0, PX_NO_HINT)                                                                                    \
    X(LIST, list, ('L'), "L",                                                                                         \
      "hide or show the list (the example gets the full width)", 0, PX_NO_HINT)                                       \
    X(SUMMARY, summary, ('i'), "i",                                                                                   \
      "summary: task, environments, conditions, not evaluated", 0, PX_NO_HINT)                                        \
    X(REPORT, report, ('o'), "o",                                                                                     \
      "write a report: HTML, or Markdown for a .md path (asks where)", 0, PX_NO_HINT)                                 \
    X(EXPORT, export, ('O'), "O",                                                                                     \
      "export a bundle with the reports and SHA256SUMS (asks where)", 0, PX_NO_HINT)                                  \
    X(BADGES, badges, ('b'), "b",                                                                                     \
      "what the list's badges and marks mean (the end of this help)", 0, PX_NO_HINT)                                  \
    X(HELP, help, ('?'), "?",                                                                                         \
      "this help", 0, PX_HINT(9, 4, NULL, "help"))                                                                    \
    X(QUIT, quit, ('q'), "q",                                                                                         \
      "quit (asks first when decisions are unwritten)", 0, PX_HINT(10, 5, NULL, "quit"))

/* The review list's badges, and the marks beside them: one table, from
 * which come the badges the list draws (src/tui/draw.c), the legend at the
 * end of the `?` screen (key b goes to it) and the check of the man page's
 * BADGES section (tests/test_tui.c, both ways).
 *
 *     X(OUTCOME, badge, help)
 *
 *   OUTCOME  the verdict it stands for: PX_OC_OUTCOME (judge.h); NONE for
 *            a mark that is no verdict's badge
 *   badge    as the list draws it
 *   help     what it means, as the legend and the man page say it
 *
 * The decisions' marks come after these, from parity/decision.h's table. */
#define PX_BADGE_TABLE(X)                                                                                             \
    X(PASS, "ok", "pass: the expected label, the reference's numbers exactly")                                        \
    X(PASS_TOL, "ok~", "pass-within-tolerance: the expected label, numbers within tolerance")                         \
    X(NONE, "n/c", "the label is right; its numbers were not compared (no reference)")                                \
    X(WRONG_LABEL, "WRONG", "wrong-label: a plausible label, not the expected one")                                   \
    X(NUMERIC_DRIFT, "DRIFT", "numeric-drift: the right label, numbers outside tolerance")                            \
    X(BAD_SHAPE, "SHAPE", "bad-shape: not the output shape the contract says")                                        \
    X(EMPTY, "EMPTY", "empty: the output has no elements")                                                            \
    X(NON_FINITE, "NaN", "non-finite: the output holds a NaN or an infinity")                                         \
    X(EXCEPTION, "EXC", "exception: the forward raised (v shows the traceback whole)")                                \
    X(CRASH, "CRASH", "crash: the executor process died")                                                             \
    X(TIMEOUT, "TIME", "timeout: no answer within the environment's timeout")                                         \
    X(UNSUPPORTED, "UNSUP", "unsupported: the backend lacks an operation or dtype")                                   \
    X(REJECTED_OK, "rej", "rejected-as-expected: the contract says reject, and it was")                               \
    X(NOT_REJECTED, "NOREJ", "not-rejected: the contract says reject, a label came out")                              \
    X(WRONGLY_REJECTED, "WREJ", "wrongly-rejected: rejected, the contract expects a label")                           \
    X(CONSTRAINT_VIOLATED, "CONSTR", "constraint-violated: the generated text breaks an expectation")                 \
    X(WRONG_RANKING, "RANK", "wrong-ranking: a query's search misses what its expectation names")                     \
    X(RANKING_CHANGED, "MOVED", "ranking-changed: a query's first k differ from the reference's")                     \
    X(KNOWN_DEFECT, "defect", "known-defect: decided defect; the model's error, as the reference has it")             \
    X(BLANK_IMAGE, "BLANK", "blank-image: the image is one colour; the pipeline made no picture")                     \
    X(IMAGE_CHANGED, "PICT", "image-changed: the picture fails a compare.image check against the reference's")        \
    X(LOSS_NOT_FINITE, "LOSS", "loss-not-finite: the training run's loss or gradient norm is a NaN or an infinity")   \
    X(NOT_LEARNING, "FLAT", "not-learning: the training run's loss does not go down as the reference's does")         \
    X(CURVE_CHANGED, "CURVE", "curve-changed: the training run parts from the reference's beyond compare.train")      \
    X(NOT_EVALUATED, "n/e", "not-evaluated: environment down, without results, or stopped")                           \
    X(NONE, "-", "no result, and none coming (not selected, no results, down)")                                       \
    X(NONE, "…", "running or loading: its result is coming")                                                          \
    X(NONE, "!", "the candidate decides differently from the reference")                                              \
    X(NONE, "?", "a decision whose name is not one of parity's")                                                      \
    X(NONE, "*", "(after a decision's mark) the decision is not yet written")

/* Keys by name, as `shown`, the man page and key scripts write them:
 * X(name, code, terse) where terse is how the status line's hints write it
 * (NULL: the name). A character not here is named by itself ("j", "?").
 * Two codes may share a name (the keypad's Enter); the name stands for the
 * first. Esc, Left, Backspace and the C- keys are the editor's (search,
 * note). */
#define PX_KEY_NAMES(X)                                                                                               \
    X("Enter", '\n', NULL) X("Enter", KEY_ENTER, NULL) X("Space", ' ', NULL)                                          \
    X("Tab", '\t', NULL) X("Esc", 27, NULL) X("Up", KEY_UP, NULL)                                                     \
    X("Down", KEY_DOWN, NULL) X("Left", KEY_LEFT, NULL) X("Right", KEY_RIGHT, "->")                                   \
    X("Home", KEY_HOME, NULL) X("End", KEY_END, NULL) X("PgUp", KEY_PPAGE, NULL)                                      \
    X("PgDn", KEY_NPAGE, NULL) X("Backspace", KEY_BACKSPACE, NULL) X("C-u", 0x15, NULL)                               \
    X("C-w", 0x17, NULL) X("C-a", 0x01, NULL) X("C-e", 0x05, NULL)

typedef enum px_action {
#define PX_KEY_ENUM(id, ...) PX_ACT_##id,
    PX_KEY_TABLE(PX_KEY_ENUM)
#undef PX_KEY_ENUM
    PX_ACT_COUNT,
    PX_ACT_NONE = -1
} px_action;

enum px_key_flag {
    PX_KEY_CHANGES = 1u << 0,    /* changes the fixture or the journal (a decision, a note, undo,
                                    writing): demo mode refuses it, saying "demo mode is read-only" */
    PX_KEY_DEMO_QUIET = 1u << 1, /* demo mode refuses it without a word (w, as it always has) */
};

typedef struct px_keydef {
    const char *name, *keys, *help; /* keys: as shown */
    const int *codes;
    size_t n_codes;
    unsigned flags;
    int hint_review, hint_demo;     /* place among the status line's hints; 0: none */
    const char *hint_keys, *hint_word;
} px_keydef;

extern const px_keydef key_defs[PX_ACT_COUNT];

/* The action of a curses key code (getch: a character or KEY_*), or
 * PX_ACT_NONE. */
px_action key_action(int code);

/* The code of a key name ("Enter", "PgDn", "C-u", "j", or a terse one: "->"), or -1. */
int key_code_of(const char *name);

/* The names of every key bound to a, each once, space-separated, as the man
 * page lists them ("Enter Space Right"). Returns buf. */
const char *key_names(px_action a, char *buf, size_t size);
/* The first key shown for a ("j" for PX_ACT_DOWN), for messages that name
 * it. Returns buf. */
const char *key_first(px_action a, char *buf, size_t size);

/* The legend: every badge and mark of the list (PX_BADGE_TABLE), then each
 * decision's mark ("A", "accepted"), as the `?` screen and the man page's
 * BADGES list them. Returns how many there are; the first max in out. */
typedef struct px_legend {
    const char *badge, *help;
} px_legend;
size_t key_legend(px_legend *out, size_t max);

/* The status line's hints in the review (demo 0) or in demo mode:
 * "j/k move  Tab candidate  ...". Returns buf. */
const char *key_hints(int demo, char *buf, size_t size);

#endif
