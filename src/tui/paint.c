/* The review screen's cells: the theme onto curses (colour pair el+1 for
 * element el), and untrusted text, made safe, into them. Drawing code asks
 * for semantic elements (theme.h), never for colours. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "paint.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
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

void tui_putf(tui *t, int y, int x, int cols, int el, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    tui_put(t, y, x, cols, el, n < 0 ? "" : s);
    free(n < 0 ? NULL : s);
}

int tui_rows_of(const char *s, int cols, int cap)
{
    if (!s || !*s || cols < 1)
        return 0;
    char *safe = textcell_sanitize(s, strlen(s));
    int n = textcell_wrap(safe ? safe : "", cols, NULL, 0);
    free(safe);
    return cap && n > cap ? cap : n;
}

int tui_put_wrapped(tui *t, int y, int x, int cols, int room, int el, const char *s)
{
    if (!s || room < 1 || cols < 1)
        return 0;
    char *safe = textcell_sanitize(s, strlen(s));
    const char *v = safe ? safe : "";
    textcell_line lines[64];
    size_t hidden = 0;
    int got = textcell_layout(v, cols, lines, room < 64 ? room : 64, &hidden);
    for (int i = 0; i < got; i++) {
        wattrset(TUI_CV(t), tui_style(t, el));
        if (lines[i].cols > cols)
            mvwaddstr(TUI_CV(t), y + i, x, "…");
        else
            mvwaddnstr(TUI_CV(t), y + i, x, v + lines[i].start, (int)(lines[i].end - lines[i].start));
        if (hidden && i == got - 1) {
            wattrset(TUI_CV(t), tui_style(t, PX_EL_DIM));
            waddstr(TUI_CV(t), "…");
        }
        wattrset(TUI_CV(t), A_NORMAL);
    }
    free(safe);
    return got > 0 ? got : 0;
}

int tui_put_wrappedf(tui *t, int y, int x, int cols, int room, int el, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    int used = tui_put_wrapped(t, y, x, cols, room, el, s);
    free(s);
    return used;
}

int tui_put_text(tui *t, const char *s, int y, int x, int cols, int room)
{
    int n = textcell_wrap(s, cols, NULL, 0), want = n <= room ? n : room > 1 ? room - 1 : room;
    textcell_line *lines = want > 0 ? calloc((size_t)want, sizeof *lines) : NULL;
    size_t hidden = 0;
    int got = lines ? textcell_layout(s, cols, lines, want, &hidden) : 0;
    for (int i = 0; i < got; i++) {
        if (lines[i].cols > cols) { /* one glyph wider than the pane */
            tui_put(t, y + i, x, cols, PX_EL_DIM, "…");
            continue;
        }
        wattrset(TUI_CV(t), tui_style(t, PX_EL_NORMAL));
        mvwaddnstr(TUI_CV(t), y + i, x, s + lines[i].start, (int)(lines[i].end - lines[i].start));
        wattrset(TUI_CV(t), tui_style(t, PX_EL_DIM));
        if (hidden && i == got - 1)
            waddstr(TUI_CV(t), "…");
        wattrset(TUI_CV(t), A_NORMAL);
    }
    free(lines);
    if (!hidden || got >= room)
        return got;
    char key[16];
    tui_putf(t, y + got, x, cols, PX_EL_DIM, "(%zu more character%s: %s)", hidden, hidden == 1 ? "" : "s",
             key_first(PX_ACT_WHOLE, key, sizeof key));
    return got + 1;
}

int tui_put_lines(tui *t, int y, int x, int cols, int el, const char *s)
{
    int y0 = y;
    size_t len = strlen(s);
    while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
        len--;
    for (const char *p = s; p < s + len && y < TUI_PAD_ROWS;) {
        size_t l = strcspn(p, "\n");
        if (p + l > s + len)
            l = (size_t)(s + len - p);
        size_t ind = strspn(p, " ");
        ind = ind < l ? ind : 0;
        char *line = strndup(p + ind, l - ind);
        int at = x + ((int)ind < cols / 2 ? (int)ind : cols / 2);
        int used = line && *line ? tui_put_wrapped(t, y, at, cols - (at - x), TUI_PAD_ROWS - y, el, line) : 0;
        y += used ? used : 1;
        free(line);
        p += l + (p[l] == '\n');
    }
    return y - y0;
}
