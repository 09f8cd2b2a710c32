/* The review screen's help (view_help.c). */
#ifndef PARITY_TUI_VIEW_HELP_H
#define PARITY_TUI_VIEW_HELP_H

#include "state.h"

/* Every binding, then the legend of the list's badges and marks (where b
 * opens it): a pager (t->help). */
void view_help(tui *t);

#endif
