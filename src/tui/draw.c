/* The review screen's drawing: which of its screens a frame draws, for the
 * mode, and where the list and the example go on the review's own screen.
 * Each screen has its own file (state.h lists them); drawing never calls
 * back into the loop. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "draw.h"

#include <curses.h>

#include "paint.h"
#include "summary.h"
#include "view_detail.h"
#include "view_help.h"
#include "view_list.h"
#include "view_status.h"
#include "view_whole.h"

/* The list's width: 3/10 of the screen, 28 to 48 columns. */
static int list_width(void)
{
    int w = COLS * 3 / 10;
    return w < 28 ? 28 : w > 48 ? 48 : w;
}

/* Blank a pane before it is drawn again on its own. */
static void blank(int top, int rows, int x, int cols)
{
    attrset(A_NORMAL);
    for (int r = 0; r < rows; r++)
        mvhline(top + r, x, ' ', cols);
}

/* The list and the example beside it (demo mode: the example alone, full
 * width, with room around it, for showing a colleague), those of them
 * what asks for. */
static void draw_panes(tui *t, unsigned what)
{
    int top = tui_top_rows(t), rows = LINES - top - 1, w = list_width();
    int all = what & PX_RE_ALL;
    if (t->demo) {
        if (!(what & (PX_RE_ALL | PX_RE_LIST | PX_RE_DETAIL)))
            return;
        if (!all)
            blank(top, rows, 0, COLS);
        long k = review_current(&t->rv);
        tui_putf(t, top, 2, COLS - 4, PX_EL_DIM, "example %ld of %zu", k + 1, t->rv.n_visible);
        view_detail(t, top + 2, rows - 2, 4, COLS - 8);
        return;
    }
    if (t->hide_list) { /* L: the example alone, full width */
        if (!(what & (PX_RE_ALL | PX_RE_LIST | PX_RE_DETAIL)))
            return;
        if (!all)
            blank(top, rows, 0, COLS);
        view_detail(t, top, rows, 1, COLS - 2);
        return;
    }
    if (what & (PX_RE_ALL | PX_RE_LIST)) {
        if (!all)
            blank(top, rows, 0, w);
        view_list(t, top, rows, w);
    }
    if (what & (PX_RE_ALL | PX_RE_DETAIL)) {
        if (!all)
            blank(top, rows, w + 1, COLS - w - 1);
        view_detail(t, top, rows, w + 2, COLS - w - 3);
    }
}

void tui_draw(tui *t, unsigned what)
{
    if (!(what & (PX_RE_STATUS | PX_RE_LIST | PX_RE_DETAIL | PX_RE_ALL)))
        return;
    if (LINES < 24 || COLS < 80) {
        erase();
        tui_putf(t, 0, 0, COLS, PX_EL_FAIL, "terminal too small: parity needs 80x24 (now %dx%d)", COLS, LINES);
        refresh();
        return;
    }
    if (t->mode == M_HELP || t->mode == M_SUMMARY || t->mode == M_WHOLE)
        what |= PX_RE_ALL; /* their own screens, always whole */
    if (what & PX_RE_ALL) {
        erase();
        t->shown_running = t->run && !runner_done(t->run);
    }
    if (t->res && t->run)
        runner_lock(t->run);
    if (t->mode == M_HELP) {
        view_help(t);
    } else if (t->mode == M_SUMMARY) {
        tui_draw_summary(t);
    } else if (t->mode == M_WHOLE) {
        view_whole(t);
    } else {
        if (what & PX_RE_ALL)
            view_header(t);
        draw_panes(t, what);
    }
    view_status(t);
    if (t->res && t->run)
        runner_unlock(t->run);
    refresh();
}
