/* The review screen's header and list of examples (view_list.c). */
#ifndef PARITY_TUI_VIEW_LIST_H
#define PARITY_TUI_VIEW_LIST_H

#include "state.h"

/* The header: the fixture, the filter, each environment with its ladder
 * and against its last good configuration. */
void view_header(tui *t);
/* The rows above the list: the header and a blank. */
int tui_top_rows(const tui *t);
/* The list of examples in rows rows from top, w wide: each one's mark,
 * its id, and the reference's badge and the candidate's. */
void view_list(tui *t, int top, int rows, int w);

#endif
