/* The review screen's pager: its scroll, the keys that move it, its head.
 * Drawing keeps the last page full, so a key may scroll past the end (the
 * last: to SIZE_MAX) and pager_fit brings it back. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "pager.h"

#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paint.h"

size_t pager_body(void) { return LINES > 3 ? (size_t)LINES - 3 : 1; }

int pager_key(tui_pager *p, px_action a)
{
    size_t page = LINES > 6 ? (size_t)LINES - 4 : 1;
    switch (a) {
    case PX_ACT_DOWN: case PX_ACT_SCROLL_DOWN: p->top += p->top < SIZE_MAX; break;
    case PX_ACT_UP: case PX_ACT_SCROLL_UP: p->top -= p->top > 0; break;
    case PX_ACT_PAGE_DOWN: p->top = p->top < SIZE_MAX - page ? p->top + page : SIZE_MAX; break;
    case PX_ACT_PAGE_UP: p->top = p->top > page ? p->top - page : 0; break;
    case PX_ACT_FIRST: p->top = 0; break;
    case PX_ACT_LAST: p->top = SIZE_MAX; break;
    default: return 0;
    }
    return 1;
}

int pager_fit(tui_pager *p, size_t n)
{
    size_t body = pager_body(), last = n > body ? n - body : 0;
    p->rows = n;
    if (p->top > last)
        p->top = last;
    return last > 0;
}

void pager_head(tui *t, const tui_pager *p, const char *head)
{
    size_t body = pager_body();
    attrset(A_NORMAL);
    tui_put(t, 0, 0, COLS, PX_EL_HEADER, head);
    if (p->rows <= body)
        return;
    char more[96];
    snprintf(more, sizeof more, " %zu-%zu of %zu ", p->top + 1, p->top + body, p->rows);
    tui_put(t, 1, COLS - (int)strlen(more) - 1, (int)strlen(more), PX_EL_DIM, more);
}

char *pager_title(const char *title, px_action down_act, px_action up_act)
{
    char down[16], up[16], *s = NULL;
    if (asprintf(&s, " parity review: %s  (%s/%s scroll, any other key returns)", title,
                 key_first(down_act, down, sizeof down), key_first(up_act, up, sizeof up)) < 0)
        return NULL;
    return s;
}
