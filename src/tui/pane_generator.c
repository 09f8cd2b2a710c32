/* A generator's pane: the reference's side and the candidate's, each its
 * generated text where a classifier has its labels, marked where the
 * verdict matched or broke the expectation and where the candidate parts
 * from the reference; then how it ended and its verdict. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/story.h"
#include "parity/textcell.h"
#include "paint.h"
#include "pane.h"
#include "badge.h"

/* Rows a generated text may take: all of it with three labels' room or
 * details, three with one, one when compact. */
static int gen_cap(const tui *t) { return t->details || t->side_labels >= 3 ? 0 : t->side_labels == 1 ? 3 : 1; }

/* Environment e's generated text on example k cut into the pieces to mark
 * (story.h): its own verdict's spans, and the token where the shown
 * candidate parts from the reference marked on both sides. */
static size_t gen_spans(const tui *t, int e, size_t k, const char *text, px_span *out)
{
    const px_verdict *v = t->judged ? &t->j.envs[e].ex[k] : NULL;
    int cand = t->rv.candidate;
    const px_verdict *cv = t->judged && cand >= 0 && cand != t->res->reference ? &t->j.envs[cand].ex[k] : NULL;
    const px_text_verdict *tv = v ? v->text : NULL;
    return story_spans(text, tv ? tv->matches : NULL, tv ? tv->n_matches : 0, tv ? tv->bad_at : -1,
                       tv ? tv->bad_end : -1, cv && cv->div == PX_DIV_GENERATED && cv->text ? cv->text->diverged_at : -1,
                       out);
}

static int span_element(px_span_kind k)
{
    return k == PX_SPAN_MATCH ? PX_EL_SEARCH_MATCH : k == PX_SPAN_BAD ? PX_EL_FAIL : k == PX_SPAN_DIVERGED ? PX_EL_CHANGED
                                                                                                       : PX_EL_NORMAL;
}

/* The text sanitized piece by piece (each piece's place in the safe text
 * in at[i], at[i+1]), so the marks land on what they marked. NULL when out
 * of memory. */
static char *gen_safe(const char *text, const px_span *sp, size_t n, size_t *at)
{
    px_sbuf out = PX_SBUF_INIT;
    sbuf_add(&out, "");
    for (size_t i = 0; i < n; i++) {
        at[i] = out.len;
        char *piece = textcell_sanitize(text + sp[i].at, sp[i].end - sp[i].at);
        if (!piece) {
            sbuf_free(&out);
            return NULL;
        }
        sbuf_add(&out, piece);
        free(piece);
    }
    at[n] = out.len;
    if (sbuf_failed(&out)) {
        sbuf_free(&out);
        return NULL;
    }
    return sbuf_take(&out);
}

/* Rows environment e's generated text takes at w columns (capped). */
static int gen_text_rows(const tui *t, const px_generated *g, int w)
{
    const char *text = g->text && *g->text ? g->text : "(empty)";
    return tui_rows_of(text, w, gen_cap(t));
}

/* The generated text wrapped into at most room rows of cols columns at (y,
 * x), its pieces in their elements; a text that needs more ends its last
 * row in "…". Returns the rows used. */
static int draw_generated(tui *t, int e, size_t k, const px_generated *g, int y, int x, int cols, int room)
{
    if (room < 1 || cols < 1)
        return 0;
    if (!g->text || !*g->text) {
        tui_put(t, y, x, cols, PX_EL_DIM, "(empty)");
        return 1;
    }
    px_span sp[PX_MAX_SPANS];
    size_t n = gen_spans(t, e, k, g->text, sp), at[PX_MAX_SPANS + 1];
    char *safe = gen_safe(g->text, sp, n, at);
    if (!safe)
        return 0;
    textcell_line lines[64];
    size_t hidden = 0;
    int got = textcell_layout(safe, cols, lines, room < 64 ? room : 64, &hidden);
    for (int i = 0; i < got; i++) {
        wmove(TUI_CV(t), y + i, x);
        if (lines[i].cols > cols) {
            wattrset(TUI_CV(t), tui_style(t, PX_EL_DIM));
            waddstr(TUI_CV(t), "…");
        }
        for (size_t p = 0; lines[i].cols <= cols && p < n; p++) {
            size_t a = at[p] > lines[i].start ? at[p] : lines[i].start;
            size_t z = at[p + 1] < lines[i].end ? at[p + 1] : lines[i].end;
            if (a >= z)
                continue;
            wattrset(TUI_CV(t), tui_style(t, span_element(sp[p].kind)));
            waddnstr(TUI_CV(t), safe + a, (int)(z - a));
        }
        if (hidden && i == got - 1) {
            wattrset(TUI_CV(t), tui_style(t, PX_EL_DIM));
            waddstr(TUI_CV(t), "…");
        }
        wattrset(TUI_CV(t), A_NORMAL);
    }
    free(safe);
    return got > 0 ? got : 0;
}

/* Rows a side takes at width w: heading, the text and how it ended unless
 * compact (a row while it runs), the verdict, what more it said. */
static int side_rows(tui *t, int e, size_t k, int w)
{
    if (e < 0)
        return 0;
    const px_example_result *r = &t->res->envs[e].ex[k];
    int n = pane_side_rows(t, e, k, w);
    if (r->gen)
        n += gen_text_rows(t, r->gen, w) + (t->side_labels != 0);
    else if (r->status == PX_ST_PENDING)
        n++;
    return n;
}

/* One environment's side: its generated text where a classifier has its
 * labels, how it ended, the verdict. Returns the rows used. */
static int draw_side(tui *t, int e, size_t k, int y, int x, int w, int rows)
{
    if (e < 0 || rows < 2)
        return 0;
    const px_example_result *r = &t->res->envs[e].ex[k];
    int used = 0;
    pane_side_head(t, e, y + used++, x, w);
    if (r->status == PX_ST_PENDING) {
        pane_side_waiting(t, e, y + used++, x, w);
        return used;
    }
    if (r->gen) {
        int cap = gen_cap(t), room = rows - used;
        used += draw_generated(t, e, k, r->gen, y + used, x, w, cap && cap < room ? cap : room);
        if (t->side_labels && used < rows)
            tui_putf(t, y + used++, x, w, PX_EL_DIM, "end: %s after %zu token%s", generated_end_name(r->gen->end),
                     r->gen->n, r->gen->n == 1 ? "" : "s");
    }
    return used + tui_draw_verdict(t, e, k, y + used, x, w, rows - used);
}

static int rows(tui *t, size_t k, int w) { return pane_sides_rows(t, k, w, side_rows); }

static int draw(tui *t, size_t k, int y, int x, int w, int end) { return pane_sides_draw(t, k, y, x, w, end, draw_side); }

/* How the text was generated (the contract's generate: block). */
static char *output(const tui *t, size_t k)
{
    (void)k;
    char words[1024], *s = NULL;
    story_generate_words(&t->f->gen, words, sizeof words);
    return asprintf(&s, "output: %s", words) < 0 ? NULL : s;
}

const tui_pane tui_pane_generator = {rows, draw, output, NULL};
