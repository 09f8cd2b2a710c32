/* The example under the cursor, in detail: planned to fit the rows in
 * sight (what gives way first is written in plan_detail), drawn into a pad
 * so that what does not fit scrolls. The kind's own part (a classifier's
 * labels, a generator's text, an embedding's searches) is its pane's
 * (pane.h); this file never asks which kind it draws. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "view_detail.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/sbuf.h"
#include "parity/textcell.h"
#include "paint.h"
#include "pane.h"

/* What the detail says of example k besides its text and its kind's pane,
 * in words: measured before the text is laid out, so the text gets the
 * rows the rest leaves. Each text malloc'd; NULL when it says nothing. */
typedef struct detail {
    const px_example *ex;
    const px_mark *m;
    const tui_pane *pane;
    int cand, ref, shown; /* the candidate, the reference; the one a decision is weighed on */
    int proposal;         /* the decision is a proposal to confirm */
    char *diff, *div, *cause, *note, *decided, *output;
    char *fit_words;      /* how the decision fits the results shown */
} detail;

static char *words(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *words(const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

static void detail_free(detail *d)
{
    free(d->diff), free(d->div), free(d->cause), free(d->note), free(d->decided), free(d->output);
    free(d->fit_words);
}

/* The difference against the tolerance, where it parts, its cause. */
static void detail_judged(tui *t, size_t k, detail *d)
{
    int cand = d->cand;
    const px_verdict *v = t->judged && cand >= 0 ? &t->j.envs[cand].ex[k] : NULL;
    const px_tolerance *tol = d->ex->tol && d->ex->tol->present ? d->ex->tol : &t->f->logits_tol;
    char *why = v ? judgement_cause_words(&t->j, (size_t)cand, k) : NULL;
    if (why)
        d->cause = words("cause: %s", why);
    free(why);
    if (v && v->has_cmp)
        d->diff = words("%s |Δ| %.4g vs %.4g allowed: %s", v->stat, v->cmp.value, v->cmp.threshold,
                        tol->why ? tol->why : "no written why");
    else if (v && v->not_compared && t->j.envs[cand].not_compared)
        /* Nothing is judged against what is not there: said, not left blank. */
        d->diff = words("not compared: no reference (%s)", t->j.envs[cand].not_compared);
    if (v && v->div != PX_DIV_NONE)
        d->div = words("parts from the reference at %s: %s", div_name(v->div), v->div_detail ? v->div_detail : "");
}

static void detail_words(tui *t, size_t k, detail *d)
{
    char key[16];
    memset(d, 0, sizeof *d);
    const px_example *ex = d->ex = &t->f->examples[k];
    const px_mark *m = d->m = &t->rv.marks[k];
    d->pane = tui_pane_of(t);
    d->cand = t->rv.candidate, d->ref = t->res->reference;
    int proposal = d->proposal =
        decision_kind(m->decision) == PX_DEC_FLAG && m->note && !strcmp(m->note, PX_PROPOSAL_NOTE);
    detail_judged(t, k, d);
    if (proposal)
        d->decided = words("proposal: from the reference run, confirm (%s)", key_first(PX_ACT_ACCEPT, key, sizeof key));
    else
        d->decided = words("decision: %s%s%s%s%s", m->decision ? m->decision : "(none)", m->by ? " by " : "",
                           m->by ? m->by : "", m->at ? " at " : "", m->at ? m->at : "");
    int shown = d->shown = d->cand >= 0 ? d->cand : d->ref;
    if (m->decision && !proposal && shown >= 0) {
        const px_env_result *er = &t->res->envs[shown];
        d->fit_words = decision_words(decision_fit(m->decision, m->env, m->results, er, &er->ex[k], ex->id),
                                      m->decision, m->env, er->name);
    }
    if (m->note) {
        int other = m->note_by && (!m->by || strcmp(m->note_by, m->by));
        d->note = words("note: %s%s%s%s", m->note, other ? " (" : "", other ? m->note_by : "", other ? ")" : "");
    }
    d->output = d->pane->output ? d->pane->output(t, k) : NULL;
}

/* The plan, in the order of what gives way: first everything whole
 * (three labels a side); then the long lines capped (the text keeps at
 * least three rows); then, where the sides stack, one label a side:
 * the verdict, the difference and the decision never give way to a
 * label; last (four environments at 80x24), the long lines one row each,
 * the verdicts two and the text one (and its hint), so the decision and
 * its note are in sight. Details show everything, all labels, uncapped.
 * Whatever does not fit still has its rows: the pane scrolls to them.
 * Sets t->side_labels, t->verdict_cap, t->line_cap and t->text_min;
 * returns the cap on the long lines (0: none) and in *below the rows
 * under the text. */
static int plan_detail(tui *t, const detail *d, size_t k, int w, int rows, int *below)
{
    const px_example *ex = d->ex;
    int details = t->details, cap = details ? 0 : 3;
    t->verdict_cap = cap;
    char *safe_text = textcell_sanitize(ex->text, ex->text_len);
    int text_rows = textcell_wrap(safe_text ? safe_text : "", w - 2, NULL, 0);
    free(safe_text);
    int planned = 0;
    *below = 0;
    /* labels: 3, then 1, then 0: compact, each side's name and best label
     * on one row and no blank between stacked sides; then tight */
    for (int level = 0; !planned && level < 7; level++) {
        int labels = level < 2 ? 3 : level < 4 ? 1 : 0, tight = level == 6;
        int c = details ? 0 : level % 2 || tight ? 3 : 0, lc = tight ? 1 : 2;
        t->side_labels = labels;
        t->verdict_cap = tight ? 2 : c;
        t->line_cap = lc;
        t->text_min = tight ? 2 : 3;
        int fixed = 1 + 1 + tui_rows_of(d->output, w, c ? lc : 0) + tui_rows_of(d->diff, w, c ? lc : 0) +
                    tui_rows_of(d->div, w, c ? lc : 0) + tui_rows_of(d->cause, w, c ? lc : 0) +
                    tui_rows_of(d->decided, w, lc) + tui_rows_of(d->fit_words, w - 2, lc) +
                    tui_rows_of(d->note, w, c) + 1;
        int why = ex->why ? tui_rows_of(ex->why, w - 5, c ? lc : 0) : 0;
        int sides = d->pane->rows(t, k, w);
        int text = c ? (text_rows < t->text_min ? text_rows : t->text_min) : text_rows;
        *below = fixed + sides - 1;
        if (details || fixed + why + sides + text <= rows || tight) {
            cap = c;
            planned = 1;
        }
    }
    return cap;
}

/* Under the kind's pane: the difference, where it parts, the cause, the
 * decision and how it fits, the note; long ones capped at cap rows. */
static int draw_under(tui *t, const detail *d, size_t k, int y, int x, int w, int end, int cap)
{
    const px_mark *m = d->m;
    int lc = t->line_cap;
    if (d->diff && y < end)
        y += tui_put_wrapped(t, y, x, w, cap ? (end - y < lc ? end - y : lc) : end - y, PX_EL_NORMAL, d->diff);
    if (d->div && y < end)
        y += tui_put_wrapped(t, y, x, w, cap ? (end - y < lc ? end - y : lc) : end - y, PX_EL_CHANGED, d->div);
    if (d->cause && y < end)
        y += tui_put_wrapped(t, y, x, w, cap ? (end - y < lc ? end - y : lc) : end - y, PX_EL_NORMAL, d->cause);
    if (y < end)
        y += tui_put_wrapped(t, y, x, w, end - y < lc ? end - y : lc, d->proposal ? PX_EL_CHANGED : PX_EL_DECISION,
                             d->decided);
    /* A decision made on another environment, or on results that changed
     * since, is said to be so beside the candidate shown: never carried
     * over silently. */
    if (d->fit_words && y < end) {
        const px_env_result *er = &t->res->envs[d->shown];
        px_fit fit = decision_fit(m->decision, m->env, m->results, er, &er->ex[k], d->ex->id);
        y += tui_put_wrapped(t, y, x + 2, w - 2, end - y < lc ? end - y : lc,
                             fit == PX_FIT_HERE ? PX_EL_DECISION : PX_EL_CHANGED, d->fit_words);
    }
    if (d->note && y < end)
        y += tui_put_wrapped(t, y, x, w, cap ? (end - y < 3 ? end - y : 3) : end - y, PX_EL_DECISION, d->note);
    return y;
}

/* With details, what the reference made of the text: its cleaned text
 * and its tokens. Returns the rows used. */
static int draw_tokens(tui *t, const px_example_result *rx, int y, int w, int end)
{
    px_sbuf toks = PX_SBUF_INIT;
    for (size_t i = 0; i < rx->n_ids; i++)
        sbuf_addf(&toks, "%s%s", i ? " " : "", rx->tokens[i]);
    int used = tui_put_wrappedf(t, y, 0, w, end - y, PX_EL_DIM, "cleaned: %s", rx->clean_text);
    used += tui_put_wrappedf(t, y + used, 0, w, end - y - used, PX_EL_DIM, "tokens: %s", sbuf_str(&toks));
    sbuf_free(&toks);
    return used;
}

/* Example k's pane, drawn from the canvas's row 0 at width w; rows: those
 * in sight, which the plan fits it to (without details: the text gets
 * what the rest leaves in them; with details everything is whole, and the
 * pane scrolls). Returns the rows drawn. */
static int detail_body(tui *t, size_t k, int rows, int w)
{
    detail d;
    detail_words(t, k, &d);
    const px_example *ex = d.ex;
    int end = TUI_PAD_ROWS, y = 0, below, details = t->details;
    int cap = plan_detail(t, &d, k, w, rows, &below);
    const px_example_result *rx = d.ref >= 0 ? &t->res->envs[d.ref].ex[k] : NULL;
    tui_putf(t, y++, 0, w, PX_EL_TITLE, "%s  (%s)", ex->id, ex->kind);
    if (ex->why)
        y += tui_put_wrappedf(t, y, 0, w, cap ? t->line_cap : end - y, PX_EL_DIM, "why: %s", ex->why);
    int room = details ? end - y : rows - y - below;
    char *safe = textcell_sanitize(ex->text, ex->text_len);
    y += tui_put_text(t, safe ? safe : "", y, 2, w - 2, room > t->text_min ? room : t->text_min);
    free(safe);
    if (d.output)
        y += tui_put_wrapped(t, y, 0, w, cap ? t->line_cap : end - y, PX_EL_DIM, d.output);
    /* (A contract without a vocabulary, an image's, makes no tokens: its
     * input is a class.) */
    if (details && rx && rx->clean_text && t->f->vocab_path)
        y += draw_tokens(t, rx, y, w, end);
    y++;
    y += d.pane->draw(t, k, y, 0, w, end);
    y++;
    y = draw_under(t, &d, k, y, 0, w, end, cap);
    detail_free(&d);
    return y < end ? y : end;
}

void view_detail(tui *t, int top, int rows, int x, int w)
{
    long k = review_current(&t->rv);
    char key[16], up[16];
    t->detail_more = 0;
    if (k < 0) {
        tui_putf(t, top, x, w, PX_EL_DIM, "no example passes this filter (%s changes it)",
                 key_first(PX_ACT_FILTER, key, sizeof key));
        return;
    }
    if (k != t->detail_k)
        t->detail_k = k, t->detail_top = 0; /* another example: from its top */
    /* A pad of the pane's own rows first, as most examples fit: one of
     * TUI_PAD_ROWS is 1.3 MiB of cells at 50 columns, the review's largest
     * allocation after the results. One that needs more is drawn again
     * into a pad of the rows it needs (detail_body counts them whatever
     * the pad's height). */
    WINDOW *pad = rows > 1 && w > 0 ? newpad(rows, w) : NULL;
    if (!pad)
        return;
    t->canvas = pad;
    int used = detail_body(t, (size_t)k, rows, w);
    if (used > rows) {
        delwin(pad);
        if (!(t->canvas = pad = newpad(used, w)))
            return;
        detail_body(t, (size_t)k, rows, w);
    }
    t->canvas = NULL;
    int view = used > rows ? rows - 1 : rows, last = used > rows ? used - view : 0;
    t->detail_top = t->detail_top > last ? last : t->detail_top < 0 ? 0 : t->detail_top;
    copywin(pad, stdscr, t->detail_top, 0, top, x, top + view - 1, x + w - 1, FALSE);
    delwin(pad);
    if (used <= rows)
        return;
    int more = t->detail_more = used - t->detail_top - view;
    key_first(PX_ACT_SCROLL_DOWN, key, sizeof key), key_first(PX_ACT_SCROLL_UP, up, sizeof up);
    if (more)
        tui_putf(t, top + view, x, w, PX_EL_DIM, "(%d more row%s: %s%s%s)", more, more == 1 ? "" : "s", key,
                 t->detail_top ? "; up: " : "", t->detail_top ? up : "");
    else
        tui_putf(t, top + view, x, w, PX_EL_DIM, "(the end; %d row%s above: %s)", t->detail_top,
                 t->detail_top == 1 ? "" : "s", up);
}
