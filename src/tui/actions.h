/* The review screen's actions (actions.c): what a key does, answered to the
 * loop as a reaction (state.h) that it applies; none calls back into it. */
#ifndef PARITY_TUI_ACTIONS_H
#define PARITY_TUI_ACTIONS_H

#include "state.h"

/* Run action a (PX_ACT_NONE: nothing); demo mode refuses the ones that
 * change the fixture or the journal here. Returns what to redraw, and
 * PX_RE_JUDGE when the results are to be judged again. */
unsigned tui_act(tui *t, px_action a);
/* Write the decisions; a fixture changed on disk since it was read asks
 * first (M_RELOAD). */
unsigned tui_write(tui *t);
/* Read the fixture again and write the decisions on top. */
unsigned tui_reload_and_write(tui *t);
/* Write the report (HTML; Markdown for a .md path) or the export bundle
 * to path; says what happened. */
unsigned tui_write_report(tui *t, const char *path);
unsigned tui_write_export(tui *t, const char *path);

#endif
