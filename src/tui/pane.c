/* The example's pane for the fixture's kind of model: the table of the
 * kinds' panes, and the two sides the classifier's and the generator's
 * share. A new kind adds its file (pane_<kind>.c) and its row here. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "pane.h"

#include <curses.h>
#include <stdlib.h>

#include "paint.h"
#include "badge.h"

static const tui_pane *const panes[] = {
    [PX_MODEL_CLASSIFIER] = &tui_pane_classifier,
    [PX_MODEL_GENERATOR] = &tui_pane_generator,
    [PX_MODEL_EMBEDDING] = &tui_pane_embed,
    [PX_MODEL_IMAGE] = &tui_pane_image,
    [PX_MODEL_TRAINING] = &tui_pane_training,
};

const tui_pane *tui_pane_of(const tui *t)
{
    size_t kind = (size_t)t->f->kind;
    return kind < sizeof panes / sizeof *panes && panes[kind] ? panes[kind] : &tui_pane_classifier;
}

int pane_side_el(const tui *t, int e) { return e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE; }

void pane_side_head(tui *t, int e, int y, int x, int w)
{
    const px_env_result *er = &t->res->envs[e];
    tui_putf(t, y, x, w, pane_side_el(t, e), "%s (%s %s)", er->name, results_env_device(t->f, er),
             results_env_dtype(t->f, er));
}

void pane_side_waiting(tui *t, int e, int y, int x, int w)
{
    px_sbuf why = PX_SBUF_INIT;
    const char *ww = tui_waiting(t, &t->res->envs[e], &why);
    tui_put(t, y, x, w, ww[0] == 'n' ? PX_EL_NOT_EVALUATED : PX_EL_RUNNING, ww);
    sbuf_free(&why);
}

int pane_side_rows(const tui *t, int e, size_t k, int w)
{
    char *v = tui_verdict_line(t, e, k);
    int n = 1 + tui_rows_of(v, w, t->verdict_cap) + (v && tui_said_more(&t->res->envs[e].ex[k]) > 0);
    free(v);
    return n;
}

int pane_sides_rows(tui *t, size_t k, int w, tui_side_rows rows)
{
    int stacked = w < 2 * TUI_SIDE_MIN + 1, half = w / 2, ref = t->res->reference, cand = t->rv.candidate;
    int a = ref < 0 ? 0 : rows(t, ref, k, stacked ? w : half - 1);
    int b = cand < 0 ? 0 : rows(t, cand, k, stacked ? w : w - half);
    return stacked ? a + (cand >= 0 ? (t->side_labels ? 1 : 0) + b : 0) : a > b ? a : b;
}

int pane_sides_draw(tui *t, size_t k, int y, int x, int w, int end, tui_side_draw side)
{
    int stacked = w < 2 * TUI_SIDE_MIN + 1, half = w / 2, y0 = y, ref = t->res->reference, cand = t->rv.candidate;
    if (stacked) {
        y += side(t, ref, k, y, x, w, end - y);
        int gap = t->side_labels ? 1 : 0;
        if (cand >= 0 && y + gap < end)
            y += gap + side(t, cand, k, y + gap, x, w, end - y - gap);
    } else {
        int a = side(t, ref, k, y, x, half - 1, end - y);
        int b = side(t, cand, k, y, x + half, w - half, end - y);
        y += a > b ? a : b;
    }
    return y - y0;
}
