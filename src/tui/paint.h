/* The review screen's cells (paint.c): the theme onto curses, and text
 * into cells. */
#ifndef PARITY_TUI_PAINT_H
#define PARITY_TUI_PAINT_H

#include <curses.h>

#include "state.h"

/* The theme onto curses: pair i+1 for element i (again after a change). */
void tui_apply_theme(tui *t);
/* The curses attributes of element el in the theme. */
attr_t tui_style(const tui *t, int el);
/* Untrusted text, made safe and cut to cols columns, in element el. */
void tui_put(tui *t, int y, int x, int cols, int el, const char *s);

#endif
