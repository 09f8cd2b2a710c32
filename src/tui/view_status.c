/* The review screen's status line: the editor on it, or what it says. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "view_status.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "paint.h"

/* The editor of a mode that edits, its label first, the cursor in it. */
static void draw_editor(tui *t, int y)
{
    int cur = 0;
    const char *label = t->mode == M_SEARCH   ? "/"
                        : t->mode == M_NOTE   ? "note: "
                        : t->mode == M_REPORT ? "report to: "
                                              : "export to: ";
    int lw = (int)strlen(label);
    int n = lineedit_view(&t->ed, COLS - lw - 1, &t->ed_first, &cur);
    tui_put(t, y, 0, lw, PX_EL_STATUS, label);
    attrset(tui_style(t, PX_EL_STATUS));
    mvaddnstr(y, lw, t->ed.buf + t->ed_first, n > 0 ? n : 0);
    attrset(A_NORMAL);
    move(y, lw + cur);
    curs_set(1);
}

void view_status(tui *t)
{
    int y = LINES - 1;
    attrset(tui_style(t, PX_EL_STATUS));
    mvhline(y, 0, ' ', COLS);
    attrset(A_NORMAL);
    if (t->mode == M_SEARCH || t->mode == M_NOTE || t->mode == M_REPORT || t->mode == M_EXPORT) {
        draw_editor(t, y);
        return;
    }
    char hint[1300], keys[512], w[16], q[16];
    if (t->msg[0])
        snprintf(hint, sizeof hint, "%s", t->msg);
    else if (t->mode == M_QUIT)
        snprintf(hint, sizeof hint, "%zu decisions not yet written: %s write and quit, %s quit without, Esc stay",
                 t->rv.n_unwritten, key_first(PX_ACT_WRITE, w, sizeof w), key_first(PX_ACT_QUIT, q, sizeof q));
    else if (t->demo)
        snprintf(hint, sizeof hint, "demo (read-only): %s", key_hints(1, keys, sizeof keys));
    else
        snprintf(hint, sizeof hint, "%s%s", key_hints(0, keys, sizeof keys),
                 t->rv.n_unwritten ? "  | unwritten decisions" : "");
    char n[64] = "";
    if (t->rv.n_unwritten)
        snprintf(n, sizeof n, " %zu unwritten ", t->rv.n_unwritten);
    tui_put(t, y, 0, COLS - (int)strlen(n), PX_EL_STATUS, hint);
    if (n[0])
        tui_put(t, y, COLS - (int)strlen(n), (int)strlen(n), PX_EL_FLAG, n);
}
