/* The review screen's drawing (draw.c): a frame, the screens the mode
 * and the reaction ask for. */
#ifndef PARITY_TUI_DRAW_H
#define PARITY_TUI_DRAW_H

#include "state.h"

/* Draw what the reaction bits ask for (nothing for PX_RE_NONE). */
void tui_draw(tui *t, unsigned what);

#endif
