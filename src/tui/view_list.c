/* The review screen's header and its list of examples. Drawing code asks
 * the theme for semantic elements (theme.h), never for colours; text from
 * a fixture or results goes through textcell (tui_put). */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "view_list.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/sbuf.h"
#include "paint.h"
#include "badge.h"

/* Beside the ladder, where there is room: the environment against its last
 * good configuration ("last good: same", "last good differs: dtype,
 * torch"), a regression first. Nothing when it has none. */
static void draw_since(tui *t, int y, int x, size_t e)
{
    const px_since *s = t->judged && t->since ? &t->since[e] : NULL;
    if (!s || !s->last || x > COLS - 16)
        return;
    px_sbuf cell = PX_SBUF_INIT;
    sbuf_addf(&cell, "%s%s", s->regressed ? "regressed, " : "",
              !s->compared ? "last good: not compared" : s->changed ? "last good differs:" : "last good: same");
    for (int c = 0; s->compared && c < PX_CF_COUNT; c++)
        if (s->changed & (1u << c))
            sbuf_addf(&cell, "%s%s", cell.s[cell.len - 1] == ':' ? " " : ", ", history_field_name((px_cfg_field)c));
    tui_put(t, y, x, COLS - x, s->regressed ? PX_EL_FAIL : s->changed ? PX_EL_CHANGED : PX_EL_DIM, sbuf_str(&cell));
    sbuf_free(&cell);
}

void view_header(tui *t)
{
    tui_putf(t, 0, 0, COLS, PX_EL_HEADER, " parity review  %s  %zu examples  filter: %s%s%s", t->f->path,
             t->f->n_examples, filter_name(t->rv.filter), t->demo ? "  [demo: read-only]" : "",
             t->shown_running ? "  running…" : t->load ? "  loading results…" : "");
    for (size_t e = 0; e < t->res->n_envs && (int)e + 1 < LINES / 3; e++) {
        const px_env_result *er = &t->res->envs[e];
        int el = (int)e == t->res->reference ? PX_EL_REFERENCE : (int)e == t->rv.candidate ? PX_EL_CANDIDATE : PX_EL_DIM;
        tui_putf(t, (int)e + 1, 1, 30, el, "%-12s %s %s", er->name, results_env_device(t->f, er),
                 results_env_dtype(t->f, er));
        int x = 32;
        if (!er->selected || er->origin == PX_ORIGIN_NONE) {
            tui_putf(t, (int)e + 1, x, COLS - x, PX_EL_NOT_EVALUATED, "%s",
                     !er->selected ? "not selected (-e)" : er->source ? er->source : "no results");
            continue;
        }
        if (er->state == PX_ENV_PENDING) {
            tui_put(t, (int)e + 1, x, COLS - x, PX_EL_RUNNING, "starting…");
            continue;
        }
        for (int r = 0; t->judged && r < PX_RUNG_COUNT && x < COLS - 4; r++) {
            px_rung_state s = t->j.envs[e].rung[r];
            int sel = s == PX_RS_PASSED ? PX_EL_PASS : s == PX_RS_FAILED ? PX_EL_FAIL : PX_EL_DIM;
            static const char *const shortname[PX_RUNG_COUNT] = {"device", "model", "input", "forward",
                                                                 "contract", "perf"};
            char cell[48];
            snprintf(cell, sizeof cell, "%s%s ", s == PX_RS_PASSED ? "+" : s == PX_RS_FAILED ? "X" : "-",
                     shortname[r]);
            tui_put(t, (int)e + 1, x, COLS - x, sel, cell);
            x += (int)strlen(cell);
        }
        draw_since(t, (int)e + 1, x, e);
    }
}

static const char *mark_symbol(const px_mark *m)
{
    px_decision_kind k = decision_kind(m->decision);
    return !m->decision ? " " : k == PX_DEC_NONE ? "?" : px_decision_table[k].symbol;
}

int tui_top_rows(const tui *t)
{
    return (int)(t->res->n_envs + 1 < (size_t)LINES / 3 ? t->res->n_envs + 1 : (size_t)LINES / 3) + 1;
}

/* Environment e's badge for example k in the list, at (y, x0). */
static void draw_badge(tui *t, int e, size_t k, int y, int x0)
{
    const px_example_result *x = &t->res->envs[e].ex[k];
    px_sbuf why = PX_SBUF_INIT;
    if (x->status == PX_ST_PENDING && tui_waiting(t, &t->res->envs[e], &why)[0] == 'n')
        tui_put(t, y, x0, 6, PX_EL_NOT_EVALUATED, "-"); /* never coming */
    else if (x->status == PX_ST_PENDING)
        tui_put(t, y, x0, 6, PX_EL_RUNNING, "…");
    else if (t->judged && t->j.envs[e].ex[k].not_compared && t->j.envs[e].ex[k].outcome == PX_OC_PASS)
        /* Its label is right, its numbers were never compared: not "ok". */
        tui_put(t, y, x0, 6, PX_EL_NOT_EVALUATED, "n/c");
    else if (t->judged)
        tui_put(t, y, x0, 6, tui_outcome_el(t->j.envs[e].ex[k].outcome), tui_badge(t->j.envs[e].ex[k].outcome));
    sbuf_free(&why);
}

void view_list(tui *t, int top, int rows, int w)
{
    px_session *rv = &t->rv;
    size_t first = rv->cursor >= (size_t)rows ? rv->cursor - (size_t)rows + 1 : 0;
    for (int r = 0; r < rows && first + (size_t)r < rv->n_visible; r++) {
        size_t k = rv->visible[first + (size_t)r];
        int sel = first + (size_t)r == rv->cursor;
        const px_mark *m = &rv->marks[k];
        attrset(sel ? tui_style(t, PX_EL_SELECTION) : A_NORMAL);
        mvhline(top + r, 0, ' ', w);
        tui_putf(t, top + r, 0, 3, decision_kind(m->decision) == PX_DEC_FLAG ? PX_EL_FLAG : PX_EL_DECISION, "%s%s",
                 mark_symbol(m), m->unwritten ? "*" : " ");
        tui_put(t, top + r, 2, w - 17, sel ? PX_EL_SELECTION : PX_EL_NORMAL, t->f->examples[k].id);
        /* "changed": the shown candidate decides differently from the reference. */
        px_div div = t->judged && t->rv.candidate >= 0 ? t->j.envs[t->rv.candidate].ex[k].div : PX_DIV_NONE;
        if (div == PX_DIV_DECISION || div == PX_DIV_GENERATED || div == PX_DIV_RANKING)
            tui_put(t, top + r, w - 15, 1, PX_EL_CHANGED, "!");
        int cols[2] = {t->res->reference, t->rv.candidate};
        for (int c = 0; c < 2; c++)
            if (cols[c] >= 0)
                draw_badge(t, cols[c], k, top + r, w - 14 + c * 7);
    }
    attrset(tui_style(t, PX_EL_BORDER));
    mvvline(top, w, '|', rows);
    attrset(A_NORMAL);
}
