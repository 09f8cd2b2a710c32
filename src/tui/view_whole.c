/* The example whole (v): drawn into a pad as tall as it needs, the rows
 * the pager has in sight copied to the screen. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "view_whole.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "parity/textcell.h"
#include "paint.h"
#include "pager.h"
#include "pane.h"
#include "badge.h"

/* Environment e's part of example k from row y: where it ran, its
 * verdict, what it said in full. Returns the rows used. */
static int draw_env(tui *t, size_t e, size_t k, int y, int w)
{
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    int y0 = y;
    y++;
    pane_side_head(t, (int)e, y++, 0, w);
    char *v = tui_verdict_line(t, (int)e, k);
    if (v) {
        y += tui_put_wrapped(t, y, 2, w - 2, TUI_PAD_ROWS - y, tui_outcome_el(t->j.envs[e].ex[k].outcome), v);
    } else if (r->status == PX_ST_PENDING) {
        px_sbuf why = PX_SBUF_INIT;
        tui_putf(t, y++, 2, w - 2, PX_EL_RUNNING, "%s", tui_waiting(t, er, &why));
        sbuf_free(&why);
    }
    free(v);
    if (r->status != PX_ST_OK && r->status != PX_ST_PENDING && r->detail && strchr(r->detail, '\n')) {
        tui_putf(t, y++, 2, w - 2, PX_EL_DIM, "%s, whole:", status_name(r->status));
        y += tui_put_lines(t, y, 4, w - 4, PX_EL_NORMAL, r->detail);
    }
    if (r->stderr_tail && *r->stderr_tail) {
        tui_putf(t, y++, 2, w - 2, PX_EL_DIM, "the executor's stderr, its last lines:");
        y += tui_put_lines(t, y, 4, w - 4, PX_EL_NORMAL, r->stderr_tail);
    }
    return y - y0;
}

void view_whole(tui *t)
{
    long k = review_current(&t->rv);
    int w = COLS - 2;
    size_t body = pager_body();
    WINDOW *pad = k >= 0 ? newpad(TUI_PAD_ROWS, w) : NULL;
    if (!pad)
        return;
    t->canvas = pad;
    const px_example *ex = &t->f->examples[k];
    int y = 0;
    tui_putf(t, y++, 0, w, PX_EL_TITLE, "%s  (%s)", ex->id, ex->kind);
    char *safe = textcell_sanitize(ex->text, ex->text_len);
    y += tui_put_text(t, safe ? safe : "", y, 2, w - 2, TUI_PAD_ROWS - y);
    free(safe);
    for (size_t e = 0; e < t->res->n_envs && y < TUI_PAD_ROWS - 2; e++)
        y += draw_env(t, e, (size_t)k, y, w);
    t->canvas = NULL;
    pager_fit(&t->whole, (size_t)(y < TUI_PAD_ROWS ? y : TUI_PAD_ROWS));
    copywin(pad, stdscr, (int)t->whole.top, 0, 2, 1, 1 + (int)body, w, FALSE);
    delwin(pad);
    char *head = pager_title("the example whole", PX_ACT_SCROLL_DOWN, PX_ACT_SCROLL_UP);
    pager_head(t, &t->whole, head);
    free(head);
}
