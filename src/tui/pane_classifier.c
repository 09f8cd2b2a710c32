/* A classifier's pane: the reference's side and the candidate's, each its
 * best labels with their probabilities as bars, then its verdict. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <math.h>
#include <string.h>

#include "paint.h"
#include "pane.h"
#include "badge.h"

/* How many label rows a side shows: three, or with details every logit. */
static int side_labels(const tui *t, int e, size_t k)
{
    if (e < 0)
        return 0;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    if (r->status != PX_ST_OK || r->n_values != er->n_labels)
        return r->status == PX_ST_PENDING;
    int n = t->details ? (int)r->n_values : t->side_labels;
    return n < (int)r->n_values ? n : (int)r->n_values;
}

/* Rows a side takes at width w: heading, labels, the verdict wrapped (up
 * to 3 rows; every row with details), and the row that says there is more
 * to what it said. */
static int side_rows(tui *t, int e, size_t k, int w)
{
    if (e < 0)
        return 0;
    return pane_side_rows(t, e, k, w) + (t->side_labels ? side_labels(t, e, k) : 0);
}

/* A side's labels: the `want` best (three, or with details every logit),
 * best first, each with its probability as a bar, the percentage and the
 * logit, in at most `room` rows. Returns the rows used. */
static int draw_labels(tui *t, const px_env_result *er, const px_example_result *r, int want, int y, int x, int w,
                       int room)
{
    int used = 0;
    double mx = r->values[0], sum = 0;
    for (size_t i = 1; i < r->n_values; i++)
        mx = r->values[i] > mx ? r->values[i] : mx;
    for (size_t i = 0; i < r->n_values; i++)
        sum += exp(r->values[i] - mx);
    int shown[64];
    for (int top = 0; top < want && top < 64; top++) {
        int best = -1;
        for (size_t i = 0; i < r->n_values; i++) {
            int seen = 0;
            for (int s = 0; s < top; s++)
                seen |= shown[s] == (int)i;
            if (!seen && (best < 0 || r->values[i] > r->values[best]))
                best = (int)i;
        }
        shown[top] = best;
        double p = exp(r->values[best] - mx) / sum;
        int width = w >= 50 ? 10 : 5, bar = (int)(p * width + 0.5);
        char bars[16] = "";
        for (int b = 0; b < width; b++)
            strcat(bars, b < bar ? "#" : ".");
        if (used < room)
            tui_putf(t, y + used++, x, w, top == 0 ? PX_EL_NORMAL : PX_EL_DIM, "%-9.9s %s %5.1f%% %+.3f",
                     er->labels[best], bars, p * 100, r->values[best]);
    }
    return used;
}

/* Compact: the name, the best label and where it ran, on one row. */
static int draw_compact(tui *t, int e, size_t k, int y, int x, int w)
{
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    int el = pane_side_el(t, e);
    int best = r->status == PX_ST_OK && r->n_values == er->n_labels ? results_argmax(r->values, r->n_values) : -1;
    double mx = best >= 0 ? r->values[best] : 0, sum = 0;
    for (size_t i = 0; best >= 0 && i < r->n_values; i++)
        sum += exp(r->values[i] - mx);
    if (best >= 0 && sum > 0 && isfinite(sum)) {
        tui_putf(t, y, x, w, el, "%s: %s %.1f%% (%s %s)", er->name, er->labels[best], 100 / sum,
                 results_env_device(t->f, er), results_env_dtype(t->f, er));
    } else {
        px_sbuf why = PX_SBUF_INIT;
        tui_putf(t, y, x, w, el, "%s (%s %s)%s%s", er->name, results_env_device(t->f, er),
                 results_env_dtype(t->f, er), r->status != PX_ST_PENDING ? "" : ": ",
                 r->status != PX_ST_PENDING ? "" : tui_waiting(t, er, &why));
        sbuf_free(&why);
    }
    return 1;
}

/* One environment's side: its top labels with probability bars and the
 * verdict (wrapped, its word first). Returns the rows used. */
static int draw_side(tui *t, int e, size_t k, int y, int x, int w, int rows)
{
    if (e < 0 || rows < 2)
        return 0;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    int used = 0;
    if (t->side_labels == 0) {
        used += draw_compact(t, e, k, y, x, w);
        return used + tui_draw_verdict(t, e, k, y + used, x, w, rows - used);
    }
    pane_side_head(t, e, y + used++, x, w);
    if (r->status == PX_ST_PENDING) {
        pane_side_waiting(t, e, y + used++, x, w);
        return used;
    }
    if (r->status == PX_ST_OK && r->n_values == er->n_labels)
        used += draw_labels(t, er, r, side_labels(t, e, k), y + used, x, w, rows - used);
    return used + tui_draw_verdict(t, e, k, y + used, x, w, rows - used);
}

static int rows(tui *t, size_t k, int w) { return pane_sides_rows(t, k, w, side_rows); }

static int draw(tui *t, size_t k, int y, int x, int w, int end) { return pane_sides_draw(t, k, y, x, w, end, draw_side); }

const tui_pane tui_pane_classifier = {rows, draw, NULL, NULL};
