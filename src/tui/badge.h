/* An environment's verdict on an example as the review screen shows it
 * (badge.c): its badge and element, its line, what a side says while it
 * waits for a result. Shared by the list, the kinds' panes and the whole
 * view. */
#ifndef PARITY_TUI_BADGE_H
#define PARITY_TUI_BADGE_H

#include "parity/sbuf.h"
#include "state.h"

/* A verdict's badge in the list ("ok", "FAIL"), from the legend's table. */
const char *tui_badge(px_outcome o);
/* The theme's element an outcome is drawn in. */
int tui_outcome_el(px_outcome o);
/* What a side says while it has no result for the example: "loading…" or
 * "running…" only when one is coming; an environment that will not run
 * (not selected, no results, down) says so at once instead of waiting,
 * its words starting with "n". Built in buf when they need to be. */
const char *tui_waiting(const tui *t, const px_env_result *er, px_sbuf *buf);
/* The verdict line of environment e on example k ("pass: film; ..."),
 * malloc'd; NULL when not judged yet. */
char *tui_verdict_line(const tui *t, int e, size_t k);
/* The lines of what an environment said when it failed (an exception's
 * traceback, a crash's stderr) beyond the verdict's one: 0 when nothing
 * more; v shows them whole. */
int tui_said_more(const px_example_result *r);
/* Environment e's verdict on example k, its word first, wrapped into at
 * most rows rows (and t->verdict_cap, when set), and the row that says
 * there is more to what it said. Returns the rows used. */
int tui_draw_verdict(tui *t, int e, size_t k, int y, int x, int w, int rows);

#endif
