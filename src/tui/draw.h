/* The review screen's drawing (draw.c). */
#ifndef PARITY_TUI_DRAW_H
#define PARITY_TUI_DRAW_H

#include "state.h"

/* Draw what the reaction bits ask for (nothing for PX_RE_NONE). */
void tui_draw(tui *t, unsigned what);
/* The rows above the list: the header and a blank. */
int tui_top_rows(const tui *t);

#endif
