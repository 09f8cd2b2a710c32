/* A training run's pane: the loss curves of the reference, the candidate
 * shown and (where the fixture has one) the twin, one over another in
 * braille (braille.c: no curses there, tested as data), on one y range
 * written beside it (the loss's greatest and least) and the steps 1 and N
 * under it, the first parting step marked by a column of dots and an
 * arrow; below: the figures (the loss at the end of each run, the
 * candidate's drop against the reference's, the first step its loss, its
 * gradient norm and its update part, the worst tensor group), the checks
 * that failed, and the verdicts.
 *
 * Colours come from the theme's own elements (its pairs 1..PX_EL_COUNT;
 * the pane makes no pair of its own): the reference in "reference", the
 * candidate in "candidate", the twin in "drift", a cell two curves share
 * in "normal" bold, the marker alone in "fail". Without colour (NO_COLOR,
 * --color never, a terminal of fewer than 8 colours) the curves are told
 * apart by their dots and weight: the reference is a dotted outline (every
 * other dot) in plain type, the candidate a solid line in bold, and the
 * twin is not drawn (three curves in one colour are not told apart: its
 * figures are still written).
 *
 * Narrow panes get a narrower plot; one with no room for PLOT_MIN cells
 * beside the range gets the figures alone, the range in words. Measured
 * by drawing dry, so what is counted is what is drawn. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/braille.h"
#include "parity/keys.h"
#include "parity/recipe.h"
#include "parity/sbuf.h"
#include "parity/textcell.h"
#include "paint.h"
#include "pane.h"
#include "badge.h"

/* Cells a plot needs at the least beside its range's labels. */
#define PLOT_MIN 10
/* Its rows: a third of the screen, between these. */
#define PLOT_ROWS_MIN 3
#define PLOT_ROWS_MAX 8
#define PLOT_ROWS_DETAILS 16

/* The elements (theme.h) each part is drawn in. */
#define EL_TWIN PX_EL_DRIFT
#define EL_SHARED PX_EL_NORMAL
#define EL_MARKER PX_EL_FAIL

/* A shown environment's loss curve (its example's values), or what it
 * has instead. */
typedef struct curve {
    int e;
    const char *role;  /* reference, candidate, twin */
    int el;            /* its element in colour */
    const double *y;
    size_t n;
    int plotted;       /* its index among the plotted series; -1 not */
    char why[512];     /* n == 0: what there is instead */
    int why_el;
} curve;

typedef struct tlayout {
    curve c[3];
    int n, mono;
    int ref, cand, twin;  /* indices into c, -1 none */
    const px_verdict *cv; /* the candidate's verdict (NULL: not judged) */
    const px_train_verdict *tv;
    long marker;          /* the first parting step (0-based); -1 none */
    const char *marker_what;
    /* the plot, once fitted */
    int label_w, plot_w, plot_h, has_plot;
    char hi[32], lo[32];
    px_bplot p;
    int series_of[PX_BRAILLE_MAX_SERIES]; /* plotted series -> curve */
    int n_series;
} tlayout;

static int mono_of(const tui *t) { return !t->color || !has_colors() || COLORS < 8; }

/* The twin: the judgement's, else the results' environment whose role is
 * twin; -1 none. */
static int twin_of(const tui *t)
{
    if (t->judged)
        return t->j.twin;
    for (size_t i = 0; i < t->res->n_envs; i++) {
        int fi = t->res->envs[i].env_index;
        if (fi >= 0 && (size_t)fi < t->f->n_envs && t->f->envs[fi].role && !strcmp(t->f->envs[fi].role, "twin"))
            return (int)i;
    }
    return -1;
}

static void curve_of(tui *t, int e, size_t k, const char *role, int el, curve *c)
{
    memset(c, 0, sizeof *c);
    c->e = e, c->role = role, c->el = el, c->plotted = -1;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    if (r->status == PX_ST_PENDING) {
        px_sbuf why = PX_SBUF_INIT;
        snprintf(c->why, sizeof c->why, "%s: %s", er->name, tui_waiting(t, er, &why));
        c->why_el = PX_EL_RUNNING;
        sbuf_free(&why);
    } else if (r->values && r->n_values) {
        c->y = r->values, c->n = r->n_values;
    } else {
        snprintf(c->why, sizeof c->why, "%s: no loss curve (%s%s%s)", er->name, status_name(r->status),
                 r->detail ? ": " : "", r->detail ? r->detail : "");
        c->why_el = r->status == PX_ST_REJECTED ? PX_EL_REJECTED : PX_EL_ERROR;
    }
}

/* The first parting step: the loss's, else (the stage is the training
 * step) the earliest of the gradient norm's, the update's and the first
 * step not finite. */
static void marker_of(tlayout *l)
{
    l->marker = -1, l->marker_what = NULL;
    const px_train_verdict *tv = l->tv;
    if (!tv)
        return;
    if (tv->loss_step >= 0) {
        l->marker = tv->loss_step, l->marker_what = "loss";
        return;
    }
    if (!l->cv || l->cv->div != PX_DIV_STEP)
        return;
    long s[3] = {tv->grad_step, tv->update_step, tv->nonfinite_step};
    const char *w[3] = {"grad norm", "update", "not finite"};
    for (int i = 0; i < 3; i++)
        if (s[i] >= 0 && (l->marker < 0 || s[i] < l->marker))
            l->marker = s[i], l->marker_what = w[i];
}

static void layout_curves(tui *t, size_t k, tlayout *l)
{
    memset(l, 0, sizeof *l);
    l->mono = mono_of(t);
    l->ref = l->cand = l->twin = -1;
    int ref = t->res->reference, cand = t->rv.candidate == ref ? -1 : t->rv.candidate, twin = twin_of(t);
    if (twin == ref || twin == cand)
        twin = -1;
    if (ref >= 0)
        l->ref = l->n, curve_of(t, ref, k, "reference", PX_EL_REFERENCE, &l->c[l->n++]);
    if (cand >= 0)
        l->cand = l->n, curve_of(t, cand, k, "candidate", PX_EL_CANDIDATE, &l->c[l->n++]);
    if (twin >= 0)
        l->twin = l->n, curve_of(t, twin, k, "twin", EL_TWIN, &l->c[l->n++]);
    l->cv = t->judged && cand >= 0 ? &t->j.envs[cand].ex[k] : NULL;
    l->tv = l->cv ? l->cv->train : NULL;
    marker_of(l);
}

/* A loss as the pane writes it. */
static void num(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "%.4g", v);
}

/* The plot at width w: the curves as series (in mono the twin left out,
 * the reference dotted where the candidate is drawn too), their range's
 * labels, its cells. 0 with it fitted, -1 without one (no curve, no room). */
static int layout_plot(const tui *t, tlayout *l, int w)
{
    px_bseries s[3];
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        curve *c = &l->c[i];
        if (!c->n || (l->mono && i == l->twin))
            continue;
        c->plotted = n;
        l->series_of[n] = i;
        s[n++] = (px_bseries){c->y, c->n, l->mono && i == l->ref && l->cand >= 0 && l->c[l->cand].n};
    }
    l->n_series = n;
    if (!n)
        return -1;
    /* the range first (a 1x1 plot), for its labels' width */
    px_bplot probe;
    if (braille_plot(s, n, 1, 1, -1, &probe))
        return -1;
    double lo = probe.lo, hi = probe.hi;
    braille_free(&probe);
    if (isnan(lo))
        return -1;
    num(hi, l->hi, sizeof l->hi), num(lo, l->lo, sizeof l->lo);
    int a = textcell_width(l->hi), b = textcell_width(l->lo);
    l->label_w = a > b ? a : b;
    l->plot_w = w - l->label_w - 1;
    if (l->plot_w < PLOT_MIN)
        return -1;
    int cap = t->details ? PLOT_ROWS_DETAILS : PLOT_ROWS_MAX;
    l->plot_h = LINES / 3 < PLOT_ROWS_MIN ? PLOT_ROWS_MIN : LINES / 3 > cap ? cap : LINES / 3;
    if (braille_plot(s, n, l->plot_w, l->plot_h, l->marker, &l->p))
        return -1;
    l->has_plot = 1;
    return 0;
}

static void layout_free(tlayout *l) { braille_free(&l->p); }

/* The series a cell's owners are drawn as: its curve's element, two
 * curves' shared one, or the marker's. */
static attr_t cell_style(const tui *t, const tlayout *l, const px_bcell *c)
{
    int owners = c->owners, count = 0, only = -1;
    for (int s = 0; s < l->n_series; s++)
        if (owners >> s & 1)
            count++, only = l->series_of[s];
    if (l->mono) {
        /* the candidate's (shared or not) bold; the reference's and the
         * marker's plain */
        int cand = l->cand >= 0 && l->c[l->cand].plotted >= 0 && owners >> l->c[l->cand].plotted & 1;
        return cand ? A_BOLD : A_NORMAL;
    }
    if (!count)
        return tui_style(t, EL_MARKER);
    if (count > 1)
        return tui_style(t, EL_SHARED) | A_BOLD;
    return tui_style(t, l->c[only].el);
}

static void paint_plot(tui *t, const tlayout *l, int y, int x, int end)
{
    WINDOW *win = TUI_CV(t);
    int px = x + l->label_w + 1;
    for (int r = 0; r < l->plot_h && y + r < end; r++) {
        const char *label = r == 0 ? l->hi : r == l->plot_h - 1 ? l->lo : "";
        int lw = textcell_width(label);
        tui_put(t, y + r, x + l->label_w - lw, lw, PX_EL_DIM, label);
        tui_put(t, y + r, x + l->label_w, 1, PX_EL_BORDER, *label ? "┤" : "│");
        for (int i = 0; i < l->plot_w; i++) {
            const px_bcell *c = &l->p.cells[(size_t)r * l->plot_w + i];
            if (!(c->dots | c->mark))
                continue;
            char g[4];
            braille_glyph(c->dots | c->mark, g);
            wattrset(win, cell_style(t, l, c));
            mvwaddstr(win, y + r, px + i, g);
        }
    }
    wattrset(win, A_NORMAL);
}

/* The steps under the plot: 1 at its left, N at its right, the marker's
 * arrow under its column with the step beside it where there is room. */
static void paint_axis(tui *t, const tlayout *l, int y, int x)
{
    int px = x + l->label_w + 1, w = l->plot_w;
    char n[32];
    snprintf(n, sizeof n, "%zu", l->p.steps);
    int nw = (int)strlen(n);
    tui_put(t, y, x + l->label_w, 1, PX_EL_BORDER, "└");
    tui_put(t, y, px, 1, PX_EL_DIM, "1");
    if (nw + 2 <= w)
        tui_put(t, y, px + w - nw, nw, PX_EL_DIM, n);
    if (l->p.marker_col < 0)
        return;
    char s[32];
    int mc = l->p.marker_col, sw = snprintf(s, sizeof s, "%ld", l->marker + 1);
    tui_put(t, y, px + mc, 1, EL_MARKER, "↑");
    if (mc + 1 + sw < w - nw - 1)
        tui_put(t, y, px + mc + 1, sw, EL_MARKER, s);
    else if (mc - sw > 1)
        tui_put(t, y, px + mc - sw, sw, EL_MARKER, s);
}

/* The line over the plot: each plotted curve's sample and name, in its
 * style; a shared cell's; what the marker is. Cut at w. */
static void paint_legend(tui *t, const tlayout *l, int y, int x, int w)
{
    int at = 0;
    tui_put(t, y, x, w, PX_EL_DIM, "loss by step:");
    at += 13;
    char solid[4], dotted[4];
    braille_glyph(braille_bit(0, 3) | braille_bit(1, 3), solid);
    braille_glyph(braille_bit(1, 3), dotted);
    for (int s = 0; s < l->n_series && at + 2 < w; s++) {
        const curve *c = &l->c[l->series_of[s]];
        px_bcell cell = {0, (uint8_t)(1u << s), 0};
        int dot = l->mono && l->series_of[s] == l->ref && l->cand >= 0 && l->c[l->cand].plotted >= 0;
        char sample[16];
        snprintf(sample, sizeof sample, "%s%s", dot ? dotted : solid, dot ? dotted : solid);
        wattrset(TUI_CV(t), cell_style(t, l, &cell));
        mvwaddstr(TUI_CV(t), y, x + at + 1, sample);
        wattrset(TUI_CV(t), A_NORMAL);
        char *name = textcell_sanitize(t->res->envs[c->e].name, strlen(t->res->envs[c->e].name)), word[600];
        const char *how = !l->mono ? "" : dot ? " (dotted)" : c->el == PX_EL_CANDIDATE ? " (bold)" : "";
        snprintf(word, sizeof word, "%s%s", name ? name : "", how);
        free(name);
        tui_put(t, y, x + at + 4, w - at - 4, l->mono ? PX_EL_NORMAL : c->el, word);
        at += 4 + textcell_width(word) + 1;
    }
    if (!l->mono && l->n_series > 1 && at + 10 < w) {
        px_bcell both = {0, 3, 0};
        wattrset(TUI_CV(t), cell_style(t, l, &both));
        mvwaddstr(TUI_CV(t), y, x + at + 1, solid);
        wattrset(TUI_CV(t), A_NORMAL);
        tui_put(t, y, x + at + 3, w - at - 3, PX_EL_DIM, "shared");
        at += 10;
    }
    if (l->mono && l->twin >= 0 && l->c[l->twin].n && at + 8 < w) {
        tui_put(t, y, x + at + 1, w - at - 1, PX_EL_DIM, "(twin: figures only)");
        at += 22;
    }
}

/* The loss at the end of a run: the mean of its last tenth of steps (at
 * least one), as expect.loss_at_most and the drop take it; NAN when none
 * or not finite. */
static double end_loss(const double *y, size_t n)
{
    if (!n)
        return NAN;
    size_t k = n / 10 ? n / 10 : 1;
    double sum = 0;
    for (size_t i = n - k; i < n; i++)
        sum += y[i];
    return isfinite(sum) ? sum / (double)k : NAN;
}

static double drop_of(const curve *c) { return c->n && isfinite(c->y[0]) ? c->y[0] - end_loss(c->y, c->n) : NAN; }

/* One line of the figures at (y, x) cut to w, or counted. */
static int line(tui *t, int dry, int y, int x, int w, int end, int el, const char *s)
{
    if (!s || y >= end)
        return 0;
    if (!dry)
        tui_put(t, y, x, w, el, s);
    return 1;
}

static void step_words(long s, char *buf, size_t size)
{
    if (s < 0)
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "step %ld", s + 1);
}

/* The figures, the curves' words and the checks that failed. */
static int draw_figures(tui *t, const tlayout *l, int y, int x, int w, int end, int dry)
{
    int y0 = y;
    px_sbuf b = PX_SBUF_INIT;
    char v[64];
    /* no plot: the range in words */
    if (!l->has_plot && l->n_series) {
        px_bplot p;
        px_bseries s[3];
        for (int i = 0; i < l->n_series; i++)
            s[i] = (px_bseries){l->c[l->series_of[i]].y, l->c[l->series_of[i]].n, 0};
        if (braille_plot(s, l->n_series, 1, 1, -1, &p) == 0 && !isnan(p.lo)) {
            char lo[32], hi[32];
            num(p.lo, lo, sizeof lo), num(p.hi, hi, sizeof hi);
            sbuf_addf(&b, "loss %s to %s over steps 1 to %zu (no room to draw it)", lo, hi, p.steps);
            y += line(t, dry, y, x, w, end, PX_EL_DIM, sbuf_str(&b));
            sbuf_reset(&b);
        }
        braille_free(&p);
    }
    /* what a curve has instead; its points left out of the plot */
    for (int i = 0; i < l->n; i++) {
        const curve *c = &l->c[i];
        if (!c->n) {
            y += line(t, dry, y, x, w, end, c->why_el, c->why);
            continue;
        }
        size_t k = 0, first = 0;
        for (size_t i = c->n; i-- > 0;)
            if (!isfinite(c->y[i]))
                k++, first = i;
        if (k) {
            sbuf_addf(&b, "%s: %zu step%s not finite, left out (the first: step %zu)", t->res->envs[c->e].name, k,
                      k == 1 ? "" : "s", first + 1);
            y += line(t, dry, y, x, w, end, PX_EL_FAIL, sbuf_str(&b));
            sbuf_reset(&b);
        }
    }
    /* the loss at the end of each */
    int any = 0;
    for (int i = 0; i < l->n; i++)
        if (l->c[i].n) {
            num(end_loss(l->c[i].y, l->c[i].n), v, sizeof v);
            sbuf_addf(&b, "%s%s %s", any++ ? "  " : "loss at the end: ", t->res->envs[l->c[i].e].name, v);
        }
    if (any) {
        y += line(t, dry, y, x, w, end, PX_EL_NORMAL, sbuf_str(&b));
        sbuf_reset(&b);
    }
    /* the candidate's drop against the reference's */
    if (l->cand >= 0 && l->c[l->cand].n) {
        double d = l->tv ? l->tv->drop : drop_of(&l->c[l->cand]);
        double rd = l->tv ? l->tv->ref_drop : l->ref >= 0 ? drop_of(&l->c[l->ref]) : NAN;
        char rv[64];
        num(d, v, sizeof v), num(rd, rv, sizeof rv);
        sbuf_addf(&b, "drop: %s %s", t->res->envs[l->c[l->cand].e].name, v);
        if (!isnan(rd))
            sbuf_addf(&b, " against the reference's %s", rv);
        if (isfinite(d) && isfinite(rd) && rd > 0)
            sbuf_addf(&b, " (%.0f%%)", 100 * d / rd);
        y += line(t, dry, y, x, w, end, PX_EL_NORMAL, sbuf_str(&b));
        sbuf_reset(&b);
    }
    const px_train_verdict *tv = l->tv;
    if (tv) {
        char a[32], g[32], u[32];
        step_words(tv->loss_step, a, sizeof a), step_words(tv->grad_step, g, sizeof g),
            step_words(tv->update_step, u, sizeof u);
        sbuf_addf(&b, "parts at: loss %s, grad norm %s, update %s", a, g, u);
        if (tv->nonfinite_step >= 0)
            sbuf_addf(&b, "; not finite from step %ld", tv->nonfinite_step + 1);
        int parted = tv->loss_step >= 0 || tv->grad_step >= 0 || tv->update_step >= 0 || tv->nonfinite_step >= 0;
        y += line(t, dry, y, x, w, end, parted ? PX_EL_CHANGED : PX_EL_NORMAL, sbuf_str(&b));
        sbuf_reset(&b);
        size_t worst = tv->n_groups;
        for (size_t i = 0; i < tv->n_groups; i++)
            if (isfinite(tv->param_rel[i]) && (worst == tv->n_groups || tv->param_rel[i] > tv->param_rel[worst]))
                worst = i;
        if (worst < tv->n_groups) {
            sbuf_addf(&b, "worst group: %s, parameters %.3g apart (relative)",
                        tv->group && tv->group[worst] ? tv->group[worst] : "?", tv->param_rel[worst]);
            if (t->f->train_cmp.params_present)
                sbuf_addf(&b, "; compare.train.params %.3g", t->f->train_cmp.params_max_rel);
            int over = t->f->train_cmp.params_present && tv->param_rel[worst] > t->f->train_cmp.params_max_rel;
            y += line(t, dry, y, x, w, end, over ? PX_EL_FAIL : PX_EL_NORMAL, sbuf_str(&b));
            sbuf_reset(&b);
        }
        if (tv->failed && y < end) {
            sbuf_addf(&b, "failed: %s", tv->failed);
            int room = t->line_cap && end - y > t->line_cap ? t->line_cap : end - y;
            y += dry ? tui_rows_of(sbuf_str(&b), w, room) : tui_put_wrapped(t, y, x, w, room, PX_EL_FAIL, sbuf_str(&b));
            sbuf_reset(&b);
        }
    }
    sbuf_free(&b);
    return y - y0;
}

/* Environment e's verdict on example k, its name first (the pane has no
 * headings), wrapped into the plan's verdict_cap rows, and the row that
 * says there is more to what it said (as tui_draw_verdict). */
static int draw_verdict(tui *t, int e, size_t k, int y, int x, int w, int end, int dry)
{
    char *v = tui_verdict_line(t, e, k), *s = NULL;
    if (!v || asprintf(&s, "%s: %s", t->res->envs[e].name, v) < 0) {
        free(v);
        return 0;
    }
    free(v);
    int room = t->verdict_cap && end - y > t->verdict_cap ? t->verdict_cap : end - y;
    int used = dry ? tui_rows_of(s, w, room)
                   : tui_put_wrapped(t, y, x, w, room, tui_outcome_el(t->j.envs[e].ex[k].outcome), s);
    free(s);
    int more = tui_said_more(&t->res->envs[e].ex[k]);
    if (more && y + used < end) {
        char key[16];
        if (!dry && more > 1)
            tui_putf(t, y + used, x, w, PX_EL_DIM, "(all %d lines of it: %s)", more,
                     key_first(PX_ACT_WHOLE, key, sizeof key));
        else if (!dry)
            tui_putf(t, y + used, x, w, PX_EL_DIM, "(its stderr: %s)", key_first(PX_ACT_WHOLE, key, sizeof key));
        used++;
    }
    return used;
}

/* The pane (dry: only counted). */
static int draw_training(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    tlayout l;
    layout_curves(t, k, &l);
    int y0 = y;
    if (w < 1) {
        layout_free(&l);
        return 0;
    }
    if (layout_plot(t, &l, w) == 0 && y + 2 + l.plot_h <= end) {
        if (!dry) {
            paint_legend(t, &l, y, x, w);
            paint_plot(t, &l, y + 1, x, end);
            paint_axis(t, &l, y + 1 + l.plot_h, x);
        }
        y += 2 + l.plot_h;
    } else {
        l.has_plot = 0;
    }
    y += draw_figures(t, &l, y, x, w, end, dry);
    for (int i = 0; i < l.n && y < end; i++)
        y += draw_verdict(t, l.c[i].e, k, y, x, w, end, dry);
    layout_free(&l);
    return y - y0;
}

static int rows(tui *t, size_t k, int w) { return draw_training(t, k, 0, 0, w, TUI_PAD_ROWS, 1); }

static int draw(tui *t, size_t k, int y, int x, int w, int end) { return draw_training(t, k, y, x, w, end, 0); }

/* The recipe run k followed: the contract's with the run's own train:
 * keys over it (the example's recipe). */
static char *output(const tui *t, size_t k)
{
    const px_recipe *r = t->f->examples[k].recipe ? t->f->examples[k].recipe : &t->f->recipe;
    px_sbuf b = PX_SBUF_INIT;
    if (r->steps < 1)
        return NULL;
    sbuf_addf(&b, "output: a loss curve of %d steps, %s at lr %g", r->steps, recipe_optimizer_name(r->optimizer),
                r->lr);
    if (r->warmup_steps)
        sbuf_addf(&b, ", %d warm-up", r->warmup_steps);
    if (r->decay != PX_DECAY_NONE)
        sbuf_addf(&b, ", %s decay", recipe_decay_name(r->decay));
    sbuf_addf(&b, ", batch %d x %d tokens", r->batch_size, r->seq_len);
    if (r->clip_grad_norm > 0)
        sbuf_addf(&b, ", clipped to %g", r->clip_grad_norm);
    return sbuf_take(&b);
}

const tui_pane tui_pane_training = {rows, draw, output, NULL};
