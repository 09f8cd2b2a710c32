/* The review screen's cells (paint.c): the theme onto curses, and text
 * into cells: cut to a row, wrapped to rows, a text of many lines. Where
 * it goes: t->canvas when set (a pad), else the screen. */
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
void tui_putf(tui *t, int y, int x, int cols, int el, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Where drawing goes: the canvas, else the screen. */
#define TUI_CV(t) ((WINDOW *)((t)->canvas ? (t)->canvas : stdscr))
/* The pad the example's pane and the whole view draw into: rows enough
 * for any example (what would need more is cut). */
#define TUI_PAD_ROWS 1000

/* Rows s takes wrapped to cols (sanitized first), at most cap (0: no cap). */
int tui_rows_of(const char *s, int cols, int cap);
/* s wrapped into at most room rows of cols columns at (y, x), in el; a
 * text that needs more ends its last row in "…" (only then). Returns the
 * rows used. */
int tui_put_wrapped(tui *t, int y, int x, int cols, int room, int el, const char *s);
int tui_put_wrappedf(tui *t, int y, int x, int cols, int room, int el, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* Sanitized text in at most room rows of cols columns, every character
 * shown; a text that needs more rows ends its last one in "…" and gives
 * the row after it to how much is left out. Returns the rows used. */
int tui_put_text(tui *t, const char *s, int y, int x, int cols, int room);
/* Text of many lines (a traceback) at (y, x), each line wrapped to cols
 * with its indentation kept. Returns the rows used. */
int tui_put_lines(tui *t, int y, int x, int cols, int el, const char *s);

#endif
