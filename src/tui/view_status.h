/* The review screen's status line (view_status.c). */
#ifndef PARITY_TUI_VIEW_STATUS_H
#define PARITY_TUI_VIEW_STATUS_H

#include "state.h"

/* The bottom row: the editor of the mode that edits (search, note, a
 * path), else the message, the question or the keys, and how many
 * decisions are not yet written. */
void view_status(tui *t);

#endif
