/* The example under the cursor, in detail (view_detail.c). */
#ifndef PARITY_TUI_VIEW_DETAIL_H
#define PARITY_TUI_VIEW_DETAIL_H

#include "state.h"

/* The example's pane, in rows rows at (top, x), w wide: its title, its
 * text, its kind's pane (pane.h), the difference, where it parts, the
 * cause, the decision and the note. Drawn whole into a pad, its rows from
 * t->detail_top copied to the screen; when it needs more rows than it
 * has, its last row says how many more and which keys scroll. */
void view_detail(tui *t, int top, int rows, int x, int w);

#endif
