/* The example whole (view_whole.c), v. */
#ifndef PARITY_TUI_VIEW_WHOLE_H
#define PARITY_TUI_VIEW_WHOLE_H

#include "state.h"

/* The example under the cursor whole: its text, then each environment's
 * verdict and what it said in full (an exception's traceback, a crash's
 * stderr): a pager (t->whole). */
void view_whole(tui *t);

#endif
