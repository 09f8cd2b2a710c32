/* The review screen's help: the binding table's keys and what each does
 * (parity/keys.h), then the legend of the list's badges and marks. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "view_help.h"

#include <curses.h>
#include <stdlib.h>

#include "paint.h"
#include "pager.h"

void view_help(tui *t)
{
    px_legend legend[64];
    size_t n_legend = key_legend(legend, 64), legend_at = PX_ACT_COUNT + 1;
    n_legend = n_legend < 64 ? n_legend : 64;
    size_t n = legend_at + 1 + n_legend, body = pager_body();
    if (t->help_badges)
        t->help.top = legend_at, t->help_badges = 0;
    pager_fit(&t->help, n);
    char *head = pager_title("keys", PX_ACT_DOWN, PX_ACT_UP);
    pager_head(t, &t->help, head);
    free(head);
    for (size_t y = 0; y < body && t->help.top + y < n; y++) {
        size_t i = t->help.top + y;
        if (i < PX_ACT_COUNT) {
            tui_put(t, (int)y + 2, 2, 14, PX_EL_HELP_KEY, key_defs[i].keys);
            tui_put(t, (int)y + 2, 17, COLS - 18, PX_EL_NORMAL, key_defs[i].help);
        } else if (i == legend_at) {
            tui_put(t, (int)y + 2, 1, COLS - 2, PX_EL_TITLE, "the list's badges and marks:");
        } else if (i > legend_at) {
            tui_put(t, (int)y + 2, 2, 7, PX_EL_HELP_KEY, legend[i - legend_at - 1].badge);
            tui_put(t, (int)y + 2, 10, COLS - 11, PX_EL_NORMAL, legend[i - legend_at - 1].help);
        }
    }
}
