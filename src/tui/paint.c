/* The review screen's cells: the theme onto curses (colour pair el+1 for
 * element el), and untrusted text, made safe, into them. Drawing code asks
 * for semantic elements (theme.h), never for colours. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "paint.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "parity/textcell.h"

/* Theme -> curses: pair i+1 for element i. */
void tui_apply_theme(tui *t)
{
    if (t->color && has_colors()) {
        start_color();
        use_default_colors();
        for (int i = 0; i < PX_EL_COUNT; i++) {
            int fg = t->theme.style[i].fg, bg = t->theme.style[i].bg;
            init_pair((short)(i + 1), (short)(fg < COLORS ? fg : -1), (short)(bg < COLORS ? bg : -1));
        }
    }
}

attr_t tui_style(const tui *t, int el)
{
    const px_style *s = &t->theme.style[el];
    attr_t a = A_NORMAL;
    if (s->attrs & PX_ATTR_BOLD) a |= A_BOLD;
    if (s->attrs & PX_ATTR_DIM) a |= A_DIM;
    if (s->attrs & PX_ATTR_REVERSE) a |= A_REVERSE;
    if (s->attrs & PX_ATTR_UNDERLINE) a |= A_UNDERLINE;
    if (t->color && has_colors())
        a |= COLOR_PAIR(el + 1);
    return a;
}

/* Untrusted text, made safe and cut to cols columns. */
void tui_put(tui *t, int y, int x, int cols, int el, const char *s)
{
    WINDOW *w = t->canvas ? t->canvas : stdscr;
    if (cols <= 0 || y >= getmaxy(w))
        return;
    char *safe = textcell_sanitize(s ? s : "", s ? strlen(s) : 0), buf[2048];
    textcell_fit(safe ? safe : "", cols, buf, sizeof buf);
    wattrset(w, tui_style(t, el));
    mvwaddstr(w, y, x, buf);
    wattrset(w, A_NORMAL);
    free(safe);
}
