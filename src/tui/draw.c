/* The review screen's drawing. Drawing code asks the theme for semantic
 * elements (theme.h), never for colours; text from a fixture or results
 * goes through textcell, so it never reaches the terminal unsanitized. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/story.h"
#include "parity/textcell.h"
#include "draw.h"
#include "paint.h"
#include "summary.h"

/* Where the example's pane draws: a pad as tall as it needs, whose rows
 * in sight are copied to the screen (draw_detail), so the pane scrolls. */
#define CV ((WINDOW *)(t->canvas ? t->canvas : stdscr))

/* The pad the example's pane and the whole view draw into: rows enough
 * for any example (what would need more is cut). */
#define PAD_ROWS 1000

/* A verdict's badge in the list, from the table the legend comes from
 * (parity/keys.h; its NONE rows are marks, no verdict's). */
enum { PX_OC_NONE = -1 };
static const char *const badges[] = {
#define PX_BADGE_TEXT(oc, text, help) text,
    PX_BADGE_TABLE(PX_BADGE_TEXT)
#undef PX_BADGE_TEXT
};
static const int badge_oc[] = {
#define PX_BADGE_OC(oc, text, help) PX_OC_##oc,
    PX_BADGE_TABLE(PX_BADGE_OC)
#undef PX_BADGE_OC
};

static const char *badge(px_outcome o)
{
    for (size_t i = 0; i < sizeof badge_oc / sizeof *badge_oc; i++)
        if (badge_oc[i] == (int)o)
            return badges[i];
    return "?";
}

static int element_of(px_outcome o)
{
    switch (o) {
    case PX_OC_PASS: return PX_EL_PASS;
    case PX_OC_PASS_TOL: return PX_EL_PASS_TOL;
    case PX_OC_NUMERIC_DRIFT: return PX_EL_DRIFT;
    case PX_OC_UNSUPPORTED: return PX_EL_UNSUPPORTED;
    case PX_OC_REJECTED_OK: return PX_EL_REJECTED;
    case PX_OC_NOT_EVALUATED: return PX_EL_NOT_EVALUATED;
    case PX_OC_WRONG_LABEL: case PX_OC_NOT_REJECTED: case PX_OC_WRONGLY_REJECTED: case PX_OC_CONSTRAINT_VIOLATED:
    case PX_OC_WRONG_RANKING: case PX_OC_RANKING_CHANGED:
        return PX_EL_FAIL;
    default: return PX_EL_ERROR;
    }
}

static void putf(tui *t, int y, int x, int cols, int el, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void putf(tui *t, int y, int x, int cols, int el, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_put(t, y, x, cols, el, buf);
}

/* What a side says while it has no result for the example: "loading…" or
 * "running…" only when one is coming; an environment that will not run
 * (not selected, no results, down) says so at once instead of waiting. */
static const char *waiting_words(const tui *t, const px_env_result *er, char *buf, size_t size)
{
    if (t->load)
        return "loading…";
    if (!er->selected)
        return "not selected (-e): not evaluated";
    if (er->origin == PX_ORIGIN_NONE) {
        snprintf(buf, size, "not evaluated: %s", er->source ? er->source : "no results");
        return buf;
    }
    if (er->state == PX_ENV_DOWN) {
        snprintf(buf, size, "not evaluated: down at %s", proto_stage_name(er->down_stage));
        return buf;
    }
    return "running…";
}

/* Beside the ladder, where there is room: the environment against its last
 * good configuration ("last good: same", "last good differs: dtype,
 * torch"), a regression first. Nothing when it has none. */
static void draw_since(tui *t, int y, int x, size_t e)
{
    const px_since *s = t->judged && t->since ? &t->since[e] : NULL;
    if (!s || !s->last || x > COLS - 16)
        return;
    char cell[512];
    snprintf(cell, sizeof cell, "%s%s", s->regressed ? "regressed, " : "",
             !s->compared ? "last good: not compared" : s->changed ? "last good differs:" : "last good: same");
    for (int c = 0; s->compared && c < PX_CF_COUNT; c++)
        if (s->changed & (1u << c))
            snprintf(cell + strlen(cell), sizeof cell - strlen(cell), "%s%s", cell[strlen(cell) - 1] == ':' ? " " : ", ",
                     history_field_name((px_cfg_field)c));
    tui_put(t, y, x, COLS - x, s->regressed ? PX_EL_FAIL : s->changed ? PX_EL_CHANGED : PX_EL_DIM, cell);
}

static void draw_header(tui *t)
{
    putf(t, 0, 0, COLS, PX_EL_HEADER, " parity review  %s  %zu examples  filter: %s%s%s", t->f->path, t->f->n_examples,
         filter_name(t->rv.filter), t->demo ? "  [demo: read-only]" : "",
         t->shown_running ? "  running…" : t->load ? "  loading results…" : "");
    for (size_t e = 0; e < t->res->n_envs && (int)e + 1 < LINES / 3; e++) {
        const px_env_result *er = &t->res->envs[e];
        int el = (int)e == t->res->reference ? PX_EL_REFERENCE : (int)e == t->rv.candidate ? PX_EL_CANDIDATE : PX_EL_DIM;
        putf(t, (int)e + 1, 1, 30, el, "%-12s %s %s", er->name, results_env_device(t->f, er), results_env_dtype(t->f, er));
        int x = 32;
        if (!er->selected || er->origin == PX_ORIGIN_NONE) {
            putf(t, (int)e + 1, x, COLS - x, PX_EL_NOT_EVALUATED, "%s",
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

static void draw_list(tui *t, int top, int rows, int w)
{
    px_session *rv = &t->rv;
    size_t first = rv->cursor >= (size_t)rows ? rv->cursor - (size_t)rows + 1 : 0;
    for (int r = 0; r < rows && first + (size_t)r < rv->n_visible; r++) {
        size_t k = rv->visible[first + (size_t)r];
        int sel = first + (size_t)r == rv->cursor;
        const px_mark *m = &rv->marks[k];
        attrset(sel ? tui_style(t, PX_EL_SELECTION) : A_NORMAL);
        mvhline(top + r, 0, ' ', w);
        putf(t, top + r, 0, 3, decision_kind(m->decision) == PX_DEC_FLAG ? PX_EL_FLAG : PX_EL_DECISION, "%s%s",
             mark_symbol(m), m->unwritten ? "*" : " ");
        tui_put(t, top + r, 2, w - 17, sel ? PX_EL_SELECTION : PX_EL_NORMAL, t->f->examples[k].id);
        /* "changed": the shown candidate decides differently from the reference. */
        if (t->judged && t->rv.candidate >= 0 && (t->j.envs[t->rv.candidate].ex[k].div == PX_DIV_DECISION ||
                                                  t->j.envs[t->rv.candidate].ex[k].div == PX_DIV_GENERATED ||
                                                  t->j.envs[t->rv.candidate].ex[k].div == PX_DIV_RANKING))
            tui_put(t, top + r, w - 15, 1, PX_EL_CHANGED, "!");
        int cols[2] = {t->res->reference, t->rv.candidate};
        for (int c = 0; c < 2; c++) {
            int e = cols[c];
            if (e < 0)
                continue;
            const px_example_result *x = &t->res->envs[e].ex[k];
            int x0 = w - 14 + c * 7;
            char why[600];
            if (x->status == PX_ST_PENDING && waiting_words(t, &t->res->envs[e], why, sizeof why)[0] == 'n')
                tui_put(t, top + r, x0, 6, PX_EL_NOT_EVALUATED, "-"); /* never coming */
            else if (x->status == PX_ST_PENDING)
                tui_put(t, top + r, x0, 6, PX_EL_RUNNING, "…");
            else if (t->judged && t->j.envs[e].ex[k].not_compared && t->j.envs[e].ex[k].outcome == PX_OC_PASS)
                /* Its label is right, its numbers were never compared: not "ok". */
                tui_put(t, top + r, x0, 6, PX_EL_NOT_EVALUATED, "n/c");
            else if (t->judged)
                tui_put(t, top + r, x0, 6, element_of(t->j.envs[e].ex[k].outcome), badge(t->j.envs[e].ex[k].outcome));
        }
    }
    attrset(tui_style(t, PX_EL_BORDER));
    mvvline(top, w, '|', rows);
    attrset(A_NORMAL);
}

/* Rows s takes wrapped to cols (sanitized first), at most cap (0: no cap). */
static int rows_of(const char *s, int cols, int cap)
{
    if (!s || !*s || cols < 1)
        return 0;
    char *safe = textcell_sanitize(s, strlen(s));
    int n = textcell_wrap(safe ? safe : "", cols, NULL, 0);
    free(safe);
    return cap && n > cap ? cap : n;
}

/* s wrapped into at most room rows of cols columns at (y, x), in el; a
 * text that needs more ends its last row in "…" (only then). Returns the
 * rows used. */
static int put_wrapped(tui *t, int y, int x, int cols, int room, int el, const char *s)
{
    if (!s || room < 1 || cols < 1)
        return 0;
    char *safe = textcell_sanitize(s, strlen(s));
    const char *v = safe ? safe : "";
    textcell_line lines[64];
    size_t hidden = 0;
    int got = textcell_layout(v, cols, lines, room < 64 ? room : 64, &hidden);
    for (int i = 0; i < got; i++) {
        wattrset(CV, tui_style(t, el));
        if (lines[i].cols > cols)
            mvwaddstr(CV, y + i, x, "…");
        else
            mvwaddnstr(CV, y + i, x, v + lines[i].start, (int)(lines[i].end - lines[i].start));
        if (hidden && i == got - 1) {
            wattrset(CV, tui_style(t, PX_EL_DIM));
            waddstr(CV, "…");
        }
        wattrset(CV, A_NORMAL);
    }
    free(safe);
    return got > 0 ? got : 0;
}

static int put_wrappedf(tui *t, int y, int x, int cols, int room, int el, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static int put_wrappedf(tui *t, int y, int x, int cols, int room, int el, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    int used = put_wrapped(t, y, x, cols, room, el, s);
    free(s);
    return used;
}

/* The verdict line of environment e on example k ("pass: film; ..."),
 * malloc'd; NULL when not judged yet. */
static char *verdict_line(const tui *t, int e, size_t k)
{
    if (!t->judged || e < 0)
        return NULL;
    const px_verdict *v = &t->j.envs[e].ex[k];
    char *s = NULL;
    return asprintf(&s, "%s: %s", outcome_name(v->outcome), v->detail ? v->detail : "") < 0 ? NULL : s;
}

/* ---- a generator's side: its generated text, marked ---- */

static int generator(const tui *t) { return t->f->kind == PX_MODEL_GENERATOR; }

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
    char *out = strdup("");
    size_t len = 0;
    for (size_t i = 0; out && i < n; i++) {
        at[i] = len;
        char *piece = textcell_sanitize(text + sp[i].at, sp[i].end - sp[i].at);
        char *grown = piece ? realloc(out, len + strlen(piece) + 1) : NULL;
        if (!grown) {
            free(piece), free(out);
            return NULL;
        }
        out = grown;
        memcpy(out + len, piece, strlen(piece) + 1);
        len += strlen(piece);
        free(piece);
    }
    at[n] = len;
    return out;
}

/* Rows environment e's generated text takes at w columns (capped). */
static int gen_text_rows(const tui *t, const px_generated *g, int w)
{
    const char *text = g->text && *g->text ? g->text : "(empty)";
    return rows_of(text, w, gen_cap(t));
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
        wmove(CV, y + i, x);
        if (lines[i].cols > cols) {
            wattrset(CV, tui_style(t, PX_EL_DIM));
            waddstr(CV, "…");
        }
        for (size_t p = 0; lines[i].cols <= cols && p < n; p++) {
            size_t a = at[p] > lines[i].start ? at[p] : lines[i].start;
            size_t z = at[p + 1] < lines[i].end ? at[p + 1] : lines[i].end;
            if (a >= z)
                continue;
            wattrset(CV, tui_style(t, span_element(sp[p].kind)));
            waddnstr(CV, safe + a, (int)(z - a));
        }
        if (hidden && i == got - 1) {
            wattrset(CV, tui_style(t, PX_EL_DIM));
            waddstr(CV, "…");
        }
        wattrset(CV, A_NORMAL);
    }
    free(safe);
    return got > 0 ? got : 0;
}

/* How many label rows a side shows: three, or with details every logit. */
static int side_labels(const tui *t, int e, size_t k)
{
    if (e < 0 || generator(t))
        return 0;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    if (r->status != PX_ST_OK || r->n_values != er->n_labels)
        return r->status == PX_ST_PENDING;
    int n = t->details ? (int)r->n_values : t->side_labels;
    return n < (int)r->n_values ? n : (int)r->n_values;
}

/* The lines of what an environment said when it failed (an exception's
 * traceback, a crash's stderr) beyond the verdict's one: 0 when nothing
 * more; v shows them whole. */
static int said_more(const px_example_result *r)
{
    if (r->status == PX_ST_OK || r->status == PX_ST_PENDING || r->status == PX_ST_REJECTED)
        return 0;
    int n = 0;
    for (const char *p = r->detail; p && *p; p++)
        n += *p == '\n' && p[1 + strspn(p + 1, " \n")] != '\0';
    return n ? n + 1 : r->stderr_tail && *r->stderr_tail;
}

/* Rows a side takes at width w: heading, labels, the verdict wrapped (up
 * to 3 rows; every row with details), and the row that says there is more
 * to what it said. */
static int side_rows(const tui *t, int e, size_t k, int w)
{
    if (e < 0)
        return 0;
    char *v = verdict_line(t, e, k);
    const px_example_result *r = &t->res->envs[e].ex[k];
    int n = 1 + (t->side_labels ? side_labels(t, e, k) : 0) + rows_of(v, w, t->verdict_cap) + (v && said_more(r) > 0);
    free(v);
    if (generator(t) && r->gen) /* the text, and how it ended unless compact */
        n += gen_text_rows(t, r->gen, w) + (t->side_labels != 0);
    else if (generator(t) && r->status == PX_ST_PENDING)
        n++;
    return n;
}

/* Environment e's verdict on example k, its word first, wrapped into at
 * most rows rows (and t->verdict_cap, when set). Returns the rows used. */
static int draw_verdict(tui *t, int e, size_t k, int y, int x, int w, int rows)
{
    char *v = verdict_line(t, e, k);
    int used = 0;
    if (v && rows > 0) {
        int room = t->verdict_cap && rows > t->verdict_cap ? t->verdict_cap : rows;
        used = put_wrapped(t, y, x, w, room, element_of(t->j.envs[e].ex[k].outcome), v);
    }
    int more = v ? said_more(&t->res->envs[e].ex[k]) : 0;
    char key[16];
    if (more > 1 && used < rows)
        putf(t, y + used++, x, w, PX_EL_DIM, "(all %d lines of it: %s)", more, key_first(PX_ACT_WHOLE, key, sizeof key));
    else if (more && used < rows)
        putf(t, y + used++, x, w, PX_EL_DIM, "(its stderr: %s)", key_first(PX_ACT_WHOLE, key, sizeof key));
    free(v);
    return used;
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
            putf(t, y + used++, x, w, top == 0 ? PX_EL_NORMAL : PX_EL_DIM, "%-9.9s %s %5.1f%% %+.3f",
                 er->labels[best], bars, p * 100, r->values[best]);
    }
    return used;
}

/* One environment's side: its top labels with probability bars, the
 * decision and the verdict (wrapped, its word first). Returns the rows
 * used. */
static int draw_side(tui *t, int e, size_t k, int y, int x, int w, int rows)
{
    if (e < 0 || rows < 2)
        return 0;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    int used = 0;
    int el = e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE;
    if (generator(t)) { /* the generated text where a classifier has its labels */
        putf(t, y + used++, x, w, el, "%s (%s %s)", er->name, results_env_device(t->f, er),
             results_env_dtype(t->f, er));
        if (r->status == PX_ST_PENDING) {
            char why[600];
            const char *ww = waiting_words(t, er, why, sizeof why);
            tui_put(t, y + used++, x, w, ww[0] == 'n' ? PX_EL_NOT_EVALUATED : PX_EL_RUNNING, ww);
            return used;
        }
        if (r->gen) {
            int cap = gen_cap(t), room = rows - used;
            used += draw_generated(t, e, k, r->gen, y + used, x, w, cap && cap < room ? cap : room);
            if (t->side_labels && used < rows)
                putf(t, y + used++, x, w, PX_EL_DIM, "end: %s after %zu token%s", generated_end_name(r->gen->end),
                     r->gen->n, r->gen->n == 1 ? "" : "s");
        }
        return used + draw_verdict(t, e, k, y + used, x, w, rows - used);
    }
    if (t->side_labels == 0) { /* compact: the name, the best label and where it ran, on one row */
        int best = r->status == PX_ST_OK && r->n_values == er->n_labels ? results_argmax(r->values, r->n_values) : -1;
        double mx = best >= 0 ? r->values[best] : 0, sum = 0;
        for (size_t i = 0; best >= 0 && i < r->n_values; i++)
            sum += exp(r->values[i] - mx);
        if (best >= 0 && sum > 0 && isfinite(sum))
            putf(t, y + used++, x, w, el, "%s: %s %.1f%% (%s %s)", er->name, er->labels[best], 100 / sum,
                 results_env_device(t->f, er), results_env_dtype(t->f, er));
        else
        {
            char why[600];
            putf(t, y + used++, x, w, el, "%s (%s %s)%s%s", er->name, results_env_device(t->f, er),
                 results_env_dtype(t->f, er), r->status != PX_ST_PENDING ? "" : ": ",
                 r->status != PX_ST_PENDING ? "" : waiting_words(t, er, why, sizeof why));
        }
        return used + draw_verdict(t, e, k, y + used, x, w, rows - used);
    }
    putf(t, y + used++, x, w, el, "%s (%s %s)", er->name, results_env_device(t->f, er),
         results_env_dtype(t->f, er));
    if (r->status == PX_ST_PENDING) {
        char why[600];
        const char *ww = waiting_words(t, er, why, sizeof why);
        tui_put(t, y + used++, x, w, ww[0] == 'n' ? PX_EL_NOT_EVALUATED : PX_EL_RUNNING, ww);
        return used;
    }
    if (r->status == PX_ST_OK && r->n_values == er->n_labels)
        used += draw_labels(t, er, r, side_labels(t, e, k), y + used, x, w, rows - used);
    return used + draw_verdict(t, e, k, y + used, x, w, rows - used);
}

/* Sanitized text in at most room rows of cols columns, every character
 * shown; a text that needs more rows ends its last one in "…" and gives
 * the row after it to how much is left out. Returns the rows used. */
static int draw_text(tui *t, const char *s, int y, int x, int cols, int room)
{
    int n = textcell_wrap(s, cols, NULL, 0), want = n <= room ? n : room > 1 ? room - 1 : room;
    textcell_line *lines = want > 0 ? calloc((size_t)want, sizeof *lines) : NULL;
    size_t hidden = 0;
    int got = lines ? textcell_layout(s, cols, lines, want, &hidden) : 0;
    for (int i = 0; i < got; i++) {
        if (lines[i].cols > cols) { /* one glyph wider than the pane */
            tui_put(t, y + i, x, cols, PX_EL_DIM, "…");
            continue;
        }
        wattrset(CV, tui_style(t, PX_EL_NORMAL));
        mvwaddnstr(CV, y + i, x, s + lines[i].start, (int)(lines[i].end - lines[i].start));
        wattrset(CV, tui_style(t, PX_EL_DIM));
        if (hidden && i == got - 1)
            waddstr(CV, "…");
        wattrset(CV, A_NORMAL);
    }
    free(lines);
    if (!hidden || got >= room)
        return got;
    char key[16];
    putf(t, y + got, x, cols, PX_EL_DIM, "(%zu more character%s: %s)", hidden, hidden == 1 ? "" : "s",
         key_first(PX_ACT_WHOLE, key, sizeof key));
    return got + 1;
}

/* The two sides fit beside each other when each has this many columns:
 * a label, a bar, a percentage and a logit ("volunteer #####  94.8% +3.714"). */
#define SIDE_MIN 31

/* What the detail says of example k besides its text and its sides, in
 * words: measured before the text is laid out, so the text gets the rows
 * the rest leaves. */
typedef struct detail {
    const px_example *ex;
    const px_mark *m;
    int cand, ref, shown; /* the candidate, the reference; the one a decision is weighed on */
    int proposal;         /* the decision is a proposal to confirm */
    char diff[1400], div[1400], cause[1400], note[1400], decided[600], output[1100];
    char *fit_words;      /* how the decision fits the results shown (malloc'd); NULL: none */
} detail;

static void detail_words(tui *t, size_t k, detail *d)
{
    char key[16];
    const px_example *ex = d->ex = &t->f->examples[k];
    const px_mark *m = d->m = &t->rv.marks[k];
    int cand = d->cand = t->rv.candidate, ref = d->ref = t->res->reference;
    const px_verdict *v = t->judged && cand >= 0 ? &t->j.envs[cand].ex[k] : NULL;
    const px_tolerance *tol = ex->tol.present ? &ex->tol : &t->f->logits_tol;
    int proposal = d->proposal =
        decision_kind(m->decision) == PX_DEC_FLAG && m->note && !strcmp(m->note, PX_PROPOSAL_NOTE);
    d->diff[0] = d->div[0] = d->cause[0] = d->note[0] = d->output[0] = '\0';
    d->fit_words = NULL;
    char *why = v ? judgement_cause_words(&t->j, (size_t)cand, k) : NULL;
    if (why)
        snprintf(d->cause, sizeof d->cause, "cause: %s", why);
    free(why);
    if (v && v->has_cmp)
        snprintf(d->diff, sizeof d->diff, "%s |Δ| %.4g vs %.4g allowed: %s", v->stat, v->cmp.value,
                 v->cmp.threshold, tol->why ? tol->why : "no written why");
    else if (v && v->not_compared && t->j.envs[cand].not_compared)
        /* Nothing is judged against what is not there: said, not left blank. */
        snprintf(d->diff, sizeof d->diff, "not compared: no reference (%s)", t->j.envs[cand].not_compared);
    if (v && v->div != PX_DIV_NONE)
        snprintf(d->div, sizeof d->div, "parts from the reference at %s: %s", div_name(v->div),
                 v->div_detail ? v->div_detail : "");
    if (proposal)
        snprintf(d->decided, sizeof d->decided, "proposal: from the reference run, confirm (%s)",
                 key_first(PX_ACT_ACCEPT, key, sizeof key));
    else
        snprintf(d->decided, sizeof d->decided, "decision: %s%s%s%s%s", m->decision ? m->decision : "(none)",
                 m->by ? " by " : "", m->by ? m->by : "", m->at ? " at " : "", m->at ? m->at : "");
    int shown = d->shown = cand >= 0 ? cand : ref;
    if (m->decision && !proposal && shown >= 0) {
        const px_env_result *er = &t->res->envs[shown];
        d->fit_words = decision_words(decision_fit(m->decision, m->env, m->results, er, &er->ex[k], ex->id),
                                      m->decision, m->env, er->name);
    }
    if (m->note) {
        int other = m->note_by && (!m->by || strcmp(m->note_by, m->by));
        snprintf(d->note, sizeof d->note, "note: %s%s%s%s", m->note, other ? " (" : "", other ? m->note_by : "",
                 other ? ")" : "");
    }
    if (generator(t)) {
        char words[1024];
        story_generate_words(&t->f->gen, words, sizeof words);
        snprintf(d->output, sizeof d->output, "output: %s", words);
    }
}

/* ---- an embedding's pane: the ranked documents side by side ---- */

static int embedding(const tui *t) { return t->f->kind == PX_MODEL_EMBEDDING; }

static const px_embed_verdict *embed_of(const tui *t, int e, size_t k)
{
    return t->judged && e >= 0 ? t->j.envs[e].ex[k].embed : NULL;
}

/* The environments an embedding's pane shows, in their order: the
 * reference, the candidate shown, the twin (which tells precision from
 * the device); each once. Returns how many. */
static int embed_envs(const tui *t, int out[3])
{
    int want[3] = {t->res->reference, t->rv.candidate, t->judged ? t->j.twin : -1}, n = 0;
    for (int i = 0; i < 3; i++) {
        int dup = want[i] < 0;
        for (int j = 0; j < n; j++)
            dup |= out[j] == want[i];
        if (!dup)
            out[n++] = want[i];
    }
    return n;
}

/* One line wrapped at (y, x), or only counted (dry): the rows it takes,
 * at most room. */
static int embed_line(tui *t, int dry, int y, int x, int w, int room, int el, const char *s)
{
    if (!s || !*s || room < 1)
        return 0;
    return dry ? rows_of(s, w, room) : put_wrapped(t, y, x, w, room, el, s);
}

/* A number as the pane writes it, with `digits` decimals (a document's
 * cosine to the query four; a vector against the reference's six, where
 * the floor is 0.999): "—" when none. */
static void cosine_words(double c, int digits, char *buf, size_t size)
{
    if (isnan(c))
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "%.*f", digits, c);
}

/* Each shown environment's verdict on example k, its name and outcome
 * first; a candidate's move in the judge's words when the verdict's do
 * not say it; why there is no ranking. Returns the rows. */
static int embed_verdicts(tui *t, size_t k, const int *envs, int n, int y, int x, int w, int end, int dry)
{
    int y0 = y;
    for (int i = 0; i < n && y < end; i++) {
        int e = envs[i];
        const px_env_result *er = &t->res->envs[e];
        const px_verdict *v = t->judged ? &t->j.envs[e].ex[k] : NULL;
        char *s = NULL, why[600];
        if (!v) {
            if (asprintf(&s, "%s: %s", er->name, waiting_words(t, er, why, sizeof why)) < 0)
                s = NULL;
        } else if (asprintf(&s, "%s: %s: %s", er->name, outcome_name(v->outcome), v->detail ? v->detail : "") < 0)
            s = NULL;
        int room = t->verdict_cap && end - y > t->verdict_cap ? t->verdict_cap : end - y;
        y += embed_line(t, dry, y, x, w, room, v ? element_of(v->outcome) : PX_EL_RUNNING, s);
        free(s);
        const px_embed_verdict *em = v ? v->embed : NULL;
        if (em && em->moved && !(v->detail && strstr(v->detail, em->moved)) && y < end) {
            char *m = NULL;
            if (asprintf(&m, "  moved: %s", em->moved) >= 0)
                y += embed_line(t, dry, y, x, w, end - y < t->line_cap ? end - y : t->line_cap, PX_EL_CHANGED, m);
            free(m);
        }
        if (em && em->rank_note && !(v->detail && strstr(v->detail, em->rank_note)) && y < end) {
            char *m = NULL;
            if (asprintf(&m, "  no ranking: %s", em->rank_note) >= 0)
                y += embed_line(t, dry, y, x, w, end - y < t->line_cap ? end - y : t->line_cap, PX_EL_NOT_EVALUATED,
                                m);
            free(m);
        }
    }
    return y - y0;
}

/* A query's searches: one column per environment shown (as many side by
 * side as fit, the rest below), one row per rank, each document with its
 * cosine to the query; in a candidate, a document at another rank than in
 * the reference marked with the reference's rank (↑3: it was third), one
 * new to the first k "new"; ranks beyond the window k dimmed; then each
 * column's query against the reference's query ("vs ref"), and the
 * verdicts. Returns the rows (dry: only counts them). */
static int draw_query(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    int envs[3], n = embed_envs(t, envs), y0 = y;
    const px_example *ex = &t->f->examples[k];
    const px_embed_verdict *ref = embed_of(t, t->res->reference, k);
    int win = ex->expect.retrieval ? ex->expect.retrieval->k : ref ? ref->k : 0;
    int per = (w - 4) / 24, cols = n < (per > 0 ? per : 1) ? n : per > 0 ? per : 1, cw = (w - 4) / (cols ? cols : 1);
    size_t ids = 4; /* the widest document id, for the columns */
    for (size_t i = 0; i < t->f->n_examples; i++)
        if (t->f->examples[i].role == PX_ROLE_DOCUMENT && strlen(t->f->examples[i].id) > ids)
            ids = strlen(t->f->examples[i].id);
    /* a column: the id, its cosine, its mark ("↑3", "new") and a gap */
    int iw = cw - 12 < (int)ids ? cw - 12 : (int)ids;
    cw = cw > iw + 14 ? iw + 14 : cw;
    for (int b = 0; b < n && y < end; b += cols) {
        int m = n - b < cols ? n - b : cols;
        size_t rows = 1;
        for (int c = 0; c < m; c++) {
            const px_embed_verdict *em = embed_of(t, envs[b + c], k);
            rows = em && em->n_ranked > rows ? em->n_ranked : rows;
        }
        if (!dry) {
            tui_put(t, y, x, 4, PX_EL_DIM, "rank");
            for (int c = 0; c < m; c++) {
                int e = envs[b + c];
                tui_put(t, y, x + 5 + c * cw, cw - 1, e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE,
                        t->res->envs[e].name);
            }
        }
        y++;
        for (size_t i = 0; i < rows && y < end; i++, y++) {
            if (dry)
                continue;
            int beyond = win > 0 && (long)i >= win;
            putf(t, y, x, 4, PX_EL_DIM, "%3zu", i + 1);
            for (int c = 0; c < m; c++) {
                int e = envs[b + c], cx = x + 5 + c * cw;
                const px_embed_verdict *em = embed_of(t, e, k);
                const px_example_result *r = &t->res->envs[e].ex[k];
                char why[600], cell[64];
                if (!em || !em->n_ranked) {
                    if (i == 0)
                        tui_put(t, y, cx, cw - 1, PX_EL_NOT_EVALUATED,
                                r->status == PX_ST_PENDING ? waiting_words(t, &t->res->envs[e], why, sizeof why)
                                                           : "no ranking");
                    continue;
                }
                if (i >= em->n_ranked)
                    continue;
                tui_put(t, y, cx, iw, beyond ? PX_EL_DIM : PX_EL_NORMAL, t->f->examples[em->doc[i]].id);
                cosine_words(em->score[i], 4, cell, sizeof cell);
                tui_put(t, y, cx + iw + 1, 7, PX_EL_DIM, cell);
                long was = e == t->res->reference ? (long)i : embed_rank_of(ref, em->doc[i], SIZE_MAX);
                if (was == (long)i || !ref || !ref->n_ranked)
                    continue;
                int entered = (long)i < win && (was < 0 || was >= win);
                if (entered)
                    snprintf(cell, sizeof cell, "new");
                else
                    snprintf(cell, sizeof cell, "%s%ld", was > (long)i ? "↑" : "↓", was + 1);
                /* a reordering an order: set query forgives is shown, not alarmed */
                int held = em->held == 1;
                tui_put(t, y, cx + iw + 8, 3, held || beyond ? PX_EL_DIM : PX_EL_CHANGED, cell);
            }
        }
        if (y < end && !dry) {
            tui_put(t, y, x, 4, PX_EL_DIM, "vs");
            for (int c = 0; c < m; c++) {
                int e = envs[b + c];
                const px_embed_verdict *em = embed_of(t, e, k);
                char cell[64], cos[32];
                cosine_words(em ? em->cosine : NAN, 6, cos, sizeof cos);
                if (e == t->res->reference)
                    snprintf(cell, sizeof cell, "(the reference)");
                else
                    snprintf(cell, sizeof cell, "ref cos %s", cos);
                int low = em && !isnan(em->min_cosine) && !isnan(em->cosine) && em->cosine < em->min_cosine;
                tui_put(t, y, x + 5 + c * cw, cw - 1, low ? PX_EL_DRIFT : PX_EL_DIM, cell);
            }
        }
        y += y < end;
    }
    return y - y0 + embed_verdicts(t, k, envs, n, y, x, w, end, dry);
}

/* A document: per environment its vector's cosine to the reference's and
 * its norm, then which queries rank it in their first k in the
 * reference, and the verdicts. Returns the rows (dry: only counts). */
static int draw_document(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    int envs[3], n = embed_envs(t, envs), y0 = y;
    int nw = 12;
    if (!dry && y < end) {
        tui_put(t, y, x, nw, PX_EL_DIM, "environment");
        tui_put(t, y, x + nw + 1, w - nw - 1, PX_EL_DIM, "cos to ref  norm");
    }
    y += y < end;
    for (int i = 0; i < n && y < end; i++, y++) {
        if (dry)
            continue;
        int e = envs[i];
        const px_embed_verdict *em = embed_of(t, e, k);
        char cos[32], norm[32], cell[96];
        cosine_words(em ? em->cosine : NAN, 6, cos, sizeof cos);
        cosine_words(em ? em->norm : NAN, 4, norm, sizeof norm);
        tui_put(t, y, x, nw, e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE, t->res->envs[e].name);
        snprintf(cell, sizeof cell, "%-10s  %s", e == t->res->reference ? "(the ref)" : cos, norm);
        int low = em && !isnan(em->min_cosine) && !isnan(em->cosine) && em->cosine < em->min_cosine;
        tui_put(t, y, x + nw + 1, w - nw - 1, low ? PX_EL_DRIFT : PX_EL_NORMAL, cell);
    }
    /* the queries that find it, in the reference */
    char in[1024] = "";
    size_t nq = 0;
    for (size_t q = 0; q < t->f->n_examples; q++) {
        const px_embed_verdict *em = embed_of(t, t->res->reference, q);
        if (t->f->examples[q].role != PX_ROLE_QUERY || !em)
            continue;
        long r = embed_rank_of(em, (long)k, SIZE_MAX);
        if (r >= 0 && r < em->k && strlen(in) < sizeof in - 80)
            snprintf(in + strlen(in), sizeof in - strlen(in), "%s%s (%ld)", nq++ ? ", " : "",
                     t->f->examples[q].id, r + 1);
    }
    char *s = NULL;
    if (t->judged && t->res->reference >= 0 &&
        asprintf(&s, "the reference ranks it in the first k of: %s", nq ? in : "no query") < 0)
        s = NULL;
    if (y < end)
        y += embed_line(t, dry, y, x, w, end - y < t->line_cap ? end - y : t->line_cap, PX_EL_DIM, s);
    free(s);
    return y - y0 + embed_verdicts(t, k, envs, n, y, x, w, end, dry);
}

/* An embedding's example: a query's searches, or a document's vectors. */
static int draw_embedding(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    return t->f->examples[k].role == PX_ROLE_QUERY ? draw_query(t, k, y, x, w, end, dry)
                                                    : draw_document(t, k, y, x, w, end, dry);
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
    int details = t->details, cap = details ? 0 : 3, cand = d->cand, ref = d->ref;
    t->verdict_cap = cap;
    int stacked = w < 2 * SIDE_MIN + 1, half = w / 2;
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
        int fixed = 1 + 1 + rows_of(d->output, w, c ? lc : 0) + rows_of(d->diff, w, c ? lc : 0) +
                    rows_of(d->div, w, c ? lc : 0) + rows_of(d->cause, w, c ? lc : 0) +
                    rows_of(d->decided, w, lc) + rows_of(d->fit_words, w - 2, lc) + rows_of(d->note, w, c) + 1;
        int why = ex->why ? rows_of(ex->why, w - 5, c ? lc : 0) : 0;
        int a_rows = side_rows(t, ref, k, stacked ? w : half - 1);
        int b_rows = side_rows(t, cand, k, stacked ? w : w - half);
        int sides = stacked ? a_rows + (cand >= 0 ? (labels ? 1 : 0) + b_rows : 0) : (a_rows > b_rows ? a_rows : b_rows);
        if (embedding(t)) /* the searches or the vectors where a classifier has its sides */
            sides = draw_embedding(t, k, 0, 0, w, PAD_ROWS, 1);
        int text = c ? (text_rows < t->text_min ? text_rows : t->text_min) : text_rows;
        *below = fixed + sides - 1;
        if (details || fixed + why + sides + text <= rows || tight) {
            cap = c;
            planned = 1;
        }
    }
    return cap;
}

/* The reference's side and the candidate's: beside each other, or stacked
 * where they do not fit so. Returns the rows used. */
static int draw_sides(tui *t, const detail *d, size_t k, int y, int x, int w, int end)
{
    int stacked = w < 2 * SIDE_MIN + 1, half = w / 2, y0 = y;
    if (stacked) {
        y += draw_side(t, d->ref, k, y, x, w, end - y);
        int gap = t->side_labels ? 1 : 0;
        if (d->cand >= 0 && y + gap < end)
            y += gap + draw_side(t, d->cand, k, y + gap, x, w, end - y - gap);
    } else {
        int a = draw_side(t, d->ref, k, y, x, half - 1, end - y);
        int b = draw_side(t, d->cand, k, y, x + half, w - half, end - y);
        y += a > b ? a : b;
    }
    return y - y0;
}

/* Under the sides: the difference, where it parts, the cause, the
 * decision and how it fits, the note; long ones capped at cap rows. */
static int draw_under(tui *t, const detail *d, size_t k, int y, int x, int w, int end, int cap)
{
    const px_mark *m = d->m;
    int lc = t->line_cap;
    if (d->diff[0] && y < end)
        y += put_wrapped(t, y, x, w, cap ? (end - y < lc ? end - y : lc) : end - y, PX_EL_NORMAL, d->diff);
    if (d->div[0] && y < end)
        y += put_wrapped(t, y, x, w, cap ? (end - y < lc ? end - y : lc) : end - y, PX_EL_CHANGED, d->div);
    if (d->cause[0] && y < end)
        y += put_wrapped(t, y, x, w, cap ? (end - y < lc ? end - y : lc) : end - y, PX_EL_NORMAL, d->cause);
    if (y < end)
        y += put_wrapped(t, y, x, w, end - y < lc ? end - y : lc, d->proposal ? PX_EL_CHANGED : PX_EL_DECISION,
                         d->decided);
    /* A decision made on another environment, or on results that changed
     * since, is said to be so beside the candidate shown: never carried
     * over silently. */
    if (d->fit_words && y < end) {
        const px_env_result *er = &t->res->envs[d->shown];
        px_fit fit = decision_fit(m->decision, m->env, m->results, er, &er->ex[k], d->ex->id);
        y += put_wrapped(t, y, x + 2, w - 2, end - y < lc ? end - y : lc,
                         fit == PX_FIT_HERE ? PX_EL_DECISION : PX_EL_CHANGED, d->fit_words);
    }
    if (d->note[0] && y < end)
        y += put_wrapped(t, y, x, w, cap ? (end - y < 3 ? end - y : 3) : end - y, PX_EL_DECISION, d->note);
    return y;
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
    int end = PAD_ROWS, y = 0, below, details = t->details;
    int cap = plan_detail(t, &d, k, w, rows, &below);
    const px_example_result *rx = d.ref >= 0 ? &t->res->envs[d.ref].ex[k] : NULL;
    char toks[4096] = "";
    for (size_t i = 0; details && rx && rx->clean_text && i < rx->n_ids && strlen(toks) < 3900; i++)
        snprintf(toks + strlen(toks), sizeof toks - strlen(toks), "%s%s", i ? " " : "", rx->tokens[i]);
    putf(t, y++, 0, w, PX_EL_TITLE, "%s  (%s)", ex->id, ex->kind);
    if (ex->why)
        y += put_wrappedf(t, y, 0, w, cap ? t->line_cap : end - y, PX_EL_DIM, "why: %s", ex->why);
    int room = details ? end - y : rows - y - below;
    char *safe = textcell_sanitize(ex->text, ex->text_len);
    y += draw_text(t, safe ? safe : "", y, 2, w - 2, room > t->text_min ? room : t->text_min);
    free(safe);
    if (d.output[0])
        y += put_wrapped(t, y, 0, w, cap ? t->line_cap : end - y, PX_EL_DIM, d.output);
    if (details && rx && rx->clean_text) {
        y += put_wrappedf(t, y, 0, w, end - y, PX_EL_DIM, "cleaned: %s", rx->clean_text);
        y += put_wrappedf(t, y, 0, w, end - y, PX_EL_DIM, "tokens: %s", toks);
    }
    y++;
    y += embedding(t) ? draw_embedding(t, k, y, 0, w, end, 0) : draw_sides(t, &d, k, y, 0, w, end);
    y++;
    y = draw_under(t, &d, k, y, 0, w, end, cap);
    free(d.fit_words);
    return y < end ? y : end;
}

/* The example's pane, in rows rows at (top, x), w wide: drawn whole into a
 * pad, its rows from t->detail_top copied to the screen; when it needs more
 * rows than it has, its last row says how many more and which keys scroll. */
static void draw_detail(tui *t, int top, int rows, int x, int w)
{
    long k = review_current(&t->rv);
    char key[16], up[16];
    t->detail_more = 0;
    if (k < 0) {
        putf(t, top, x, w, PX_EL_DIM, "no example passes this filter (%s changes it)",
             key_first(PX_ACT_FILTER, key, sizeof key));
        return;
    }
    if (k != t->detail_k)
        t->detail_k = k, t->detail_top = 0; /* another example: from its top */
    WINDOW *pad = rows > 1 && w > 0 ? newpad(PAD_ROWS, w) : NULL;
    if (!pad)
        return;
    t->canvas = pad;
    int used = detail_body(t, (size_t)k, rows, w);
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
        putf(t, top + view, x, w, PX_EL_DIM, "(%d more row%s: %s%s%s)", more, more == 1 ? "" : "s", key,
             t->detail_top ? "; up: " : "", t->detail_top ? up : "");
    else
        putf(t, top + view, x, w, PX_EL_DIM, "(the end; %d row%s above: %s)", t->detail_top,
             t->detail_top == 1 ? "" : "s", up);
}

static void draw_status(tui *t)
{
    int y = LINES - 1;
    attrset(tui_style(t, PX_EL_STATUS));
    mvhline(y, 0, ' ', COLS);
    attrset(A_NORMAL);
    if (t->mode == M_SEARCH || t->mode == M_NOTE || t->mode == M_REPORT || t->mode == M_EXPORT) {
        int cur = 0;
        const char *label = t->mode == M_SEARCH   ? "/"
                            : t->mode == M_NOTE   ? "note: "
                            : t->mode == M_REPORT ? "report to: "
                                                  : "export to: ";
        int lw = (int)strlen(label);
        int n = lineedit_view(&t->ed, COLS - lw - 1, &t->ed_first, &cur);
        tui_put(t, y, 0, lw, PX_EL_STATUS, label);
        attrset(tui_style(t, PX_EL_STATUS));
        mvaddnstr(y, lw, t->ed.buf + t->ed_first, n > 0 ? n : 0);
        attrset(A_NORMAL);
        move(y, lw + cur);
        curs_set(1);
        return;
    }
    char hint[1300], keys[512], w[16], q[16];
    if (t->msg[0])
        snprintf(hint, sizeof hint, "%s", t->msg);
    else if (t->mode == M_QUIT)
        snprintf(hint, sizeof hint, "%zu decisions not yet written: %s write and quit, %s quit without, Esc stay",
                 t->rv.n_unwritten, key_first(PX_ACT_WRITE, w, sizeof w), key_first(PX_ACT_QUIT, q, sizeof q));
    else if (t->demo)
        snprintf(hint, sizeof hint, "demo (read-only): %s", key_hints(1, keys, sizeof keys));
    else
        snprintf(hint, sizeof hint, "%s%s", key_hints(0, keys, sizeof keys),
                 t->rv.n_unwritten ? "  | unwritten decisions" : "");
    char n[64] = "";
    if (t->rv.n_unwritten)
        snprintf(n, sizeof n, " %zu unwritten ", t->rv.n_unwritten);
    tui_put(t, y, 0, COLS - (int)strlen(n), PX_EL_STATUS, hint);
    if (n[0])
        tui_put(t, y, COLS - (int)strlen(n), (int)strlen(n), PX_EL_FLAG, n);
}

/* A scrolled screen's header: its title with the keys that scroll it, and
 * "FIRST-LAST of N" on the line below when it scrolls (top is SIZE_MAX
 * when all of it fits). */
static void scroll_head(tui *t, const char *title, px_action down_act, px_action up_act, size_t top, size_t body,
                        size_t n)
{
    char down[16], up[16], head[200];
    snprintf(head, sizeof head, " parity review: %s  (%s/%s scroll, any other key returns)", title,
             key_first(down_act, down, sizeof down), key_first(up_act, up, sizeof up));
    tui_put(t, 0, 0, COLS, PX_EL_HEADER, head);
    if (top == SIZE_MAX)
        return;
    char more[64];
    snprintf(more, sizeof more, " %zu-%zu of %zu ", top + 1, top + body, n);
    tui_put(t, 1, COLS - (int)strlen(more) - 1, (int)strlen(more), PX_EL_DIM, more);
}

/* Every binding, then the legend of the list's badges and marks (where b
 * opens it), scrolled when the screen is shorter than they are. */
static void draw_help(tui *t)
{
    px_legend legend[64];
    size_t n_legend = key_legend(legend, 64), legend_at = PX_ACT_COUNT + 1;
    n_legend = n_legend < 64 ? n_legend : 64;
    size_t n = legend_at + 1 + n_legend, body = LINES > 3 ? (size_t)LINES - 3 : 1;
    size_t last = n > body ? n - body : 0;
    if (t->help_badges)
        t->help_top = legend_at, t->help_badges = 0;
    if (t->help_top > last)
        t->help_top = last;
    scroll_head(t, "keys", PX_ACT_DOWN, PX_ACT_UP, last ? t->help_top : SIZE_MAX, body, n);
    for (size_t y = 0; y < body && t->help_top + y < n; y++) {
        size_t i = t->help_top + y;
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

/* Text of many lines (a traceback) at (y, x), each line wrapped to cols
 * with its indentation kept. Returns the rows used. */
static int put_lines(tui *t, int y, int x, int cols, int el, const char *s)
{
    int y0 = y;
    size_t len = strlen(s);
    while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
        len--;
    for (const char *p = s; p < s + len && y < PAD_ROWS;) {
        size_t l = strcspn(p, "\n");
        if (p + l > s + len)
            l = (size_t)(s + len - p);
        size_t ind = strspn(p, " ");
        ind = ind < l ? ind : 0;
        char *line = strndup(p + ind, l - ind);
        int at = x + ((int)ind < cols / 2 ? (int)ind : cols / 2);
        int used = line && *line ? put_wrapped(t, y, at, cols - (at - x), PAD_ROWS - y, el, line) : 0;
        y += used ? used : 1;
        free(line);
        p += l + (p[l] == '\n');
    }
    return y - y0;
}

/* v: the example whole: its text, then each environment's output, its
 * verdict, and what it said in full (an exception's traceback, a crash's
 * stderr); scrolled like the help. */
static void draw_whole(tui *t)
{
    long k = review_current(&t->rv);
    int w = COLS - 2;
    size_t body = LINES > 3 ? (size_t)LINES - 3 : 1;
    WINDOW *pad = k >= 0 ? newpad(PAD_ROWS, w) : NULL;
    if (!pad)
        return;
    t->canvas = pad;
    const px_example *ex = &t->f->examples[k];
    int y = 0;
    putf(t, y++, 0, w, PX_EL_TITLE, "%s  (%s)", ex->id, ex->kind);
    char *safe = textcell_sanitize(ex->text, ex->text_len);
    y += draw_text(t, safe ? safe : "", y, 2, w - 2, PAD_ROWS - y);
    free(safe);
    for (size_t e = 0; e < t->res->n_envs && y < PAD_ROWS - 2; e++) {
        const px_env_result *er = &t->res->envs[e];
        const px_example_result *r = &er->ex[k];
        y++;
        putf(t, y++, 0, w, (int)e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE, "%s (%s %s)", er->name,
             results_env_device(t->f, er), results_env_dtype(t->f, er));
        char *v = verdict_line(t, (int)e, (size_t)k), why[600];
        if (v)
            y += put_wrapped(t, y, 2, w - 2, PAD_ROWS - y, element_of(t->j.envs[e].ex[k].outcome), v);
        else if (r->status == PX_ST_PENDING)
            putf(t, y++, 2, w - 2, PX_EL_RUNNING, "%s", waiting_words(t, er, why, sizeof why));
        free(v);
        if (r->status != PX_ST_OK && r->status != PX_ST_PENDING && r->detail && strchr(r->detail, '\n')) {
            putf(t, y++, 2, w - 2, PX_EL_DIM, "%s, whole:", status_name(r->status));
            y += put_lines(t, y, 4, w - 4, PX_EL_NORMAL, r->detail);
        }
        if (r->stderr_tail && *r->stderr_tail) {
            putf(t, y++, 2, w - 2, PX_EL_DIM, "the executor's stderr, its last lines:");
            y += put_lines(t, y, 4, w - 4, PX_EL_NORMAL, r->stderr_tail);
        }
    }
    t->canvas = NULL;
    size_t n = (size_t)(y < PAD_ROWS ? y : PAD_ROWS), last = n > body ? n - body : 0;
    t->whole_rows = n;
    if (t->whole_top > last)
        t->whole_top = last;
    copywin(pad, stdscr, (int)t->whole_top, 0, 2, 1, 1 + (int)body, w, FALSE);
    delwin(pad);
    scroll_head(t, "the example whole", PX_ACT_SCROLL_DOWN, PX_ACT_SCROLL_UP,
                last ? t->whole_top : SIZE_MAX, body, n);
}

/* The list's width: 3/10 of the screen, 28 to 48 columns. */
static int list_width(void)
{
    int w = COLS * 3 / 10;
    return w < 28 ? 28 : w > 48 ? 48 : w;
}

/* Blank a pane before it is drawn again on its own. */
static void blank(int top, int rows, int x, int cols)
{
    attrset(A_NORMAL);
    for (int r = 0; r < rows; r++)
        mvhline(top + r, x, ' ', cols);
}

/* The list and the example beside it (demo mode: the example alone, full
 * width, with room around it, for showing a colleague), those of them
 * what asks for. */
static void draw_panes(tui *t, unsigned what)
{
    int top = tui_top_rows(t), rows = LINES - top - 1, w = list_width();
    int all = what & PX_RE_ALL;
    if (t->demo) {
        if (!(what & (PX_RE_ALL | PX_RE_LIST | PX_RE_DETAIL)))
            return;
        if (!all)
            blank(top, rows, 0, COLS);
        long k = review_current(&t->rv);
        putf(t, top, 2, COLS - 4, PX_EL_DIM, "example %ld of %zu", k + 1, t->rv.n_visible);
        draw_detail(t, top + 2, rows - 2, 4, COLS - 8);
        return;
    }
    if (t->hide_list) { /* L: the example alone, full width */
        if (!(what & (PX_RE_ALL | PX_RE_LIST | PX_RE_DETAIL)))
            return;
        if (!all)
            blank(top, rows, 0, COLS);
        draw_detail(t, top, rows, 1, COLS - 2);
        return;
    }
    if (what & (PX_RE_ALL | PX_RE_LIST)) {
        if (!all)
            blank(top, rows, 0, w);
        draw_list(t, top, rows, w);
    }
    if (what & (PX_RE_ALL | PX_RE_DETAIL)) {
        if (!all)
            blank(top, rows, w + 1, COLS - w - 1);
        draw_detail(t, top, rows, w + 2, COLS - w - 3);
    }
}

void tui_draw(tui *t, unsigned what)
{
    if (!(what & (PX_RE_STATUS | PX_RE_LIST | PX_RE_DETAIL | PX_RE_ALL)))
        return;
    if (LINES < 24 || COLS < 80) {
        erase();
        putf(t, 0, 0, COLS, PX_EL_FAIL, "terminal too small: parity needs 80x24 (now %dx%d)", COLS, LINES);
        refresh();
        return;
    }
    if (t->mode == M_HELP || t->mode == M_SUMMARY || t->mode == M_WHOLE)
        what |= PX_RE_ALL; /* their own screens, always whole */
    if (what & PX_RE_ALL) {
        erase();
        t->shown_running = t->run && !runner_done(t->run);
    }
    if (t->res && t->run)
        runner_lock(t->run);
    if (t->mode == M_HELP) {
        draw_help(t);
    } else if (t->mode == M_SUMMARY) {
        tui_draw_summary(t);
    } else if (t->mode == M_WHOLE) {
        draw_whole(t);
    } else {
        if (what & PX_RE_ALL)
            draw_header(t);
        draw_panes(t, what);
    }
    draw_status(t);
    if (t->res && t->run)
        runner_unlock(t->run);
    refresh();
}
