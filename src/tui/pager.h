/* The review screen's pager (pager.c): the one scrolled screen the help,
 * the whole example (v) and the summary are. A head on row 0, "FIRST-LAST
 * of N" on row 1 when it scrolls, the body below; the moving keys scroll
 * it, written once here. */
#ifndef PARITY_TUI_PAGER_H
#define PARITY_TUI_PAGER_H

#include "state.h"

/* The body's rows on this screen (below the head and its count). */
size_t pager_body(void);
/* A moving key (down, up, a page, the first, the last) scrolls p and
 * returns 1; any other key is the screen's own: 0. */
int pager_key(tui_pager *p, px_action a);
/* The text has n rows: p's top is kept so that the last page is full.
 * Returns whether it scrolls (it does not fit the body). */
int pager_fit(tui_pager *p, size_t n);
/* The head (a line of the screen's own words) and, when it scrolls, which
 * of its rows are in sight. After pager_fit. */
void pager_head(tui *t, const tui_pager *p, const char *head);
/* A head that names the screen and the keys that scroll it
 * (" parity review: TITLE  (j/k scroll, any other key returns)"), malloc'd. */
char *pager_title(const char *title, px_action down, px_action up);

#endif
