/* parity review: the review screen. The runner thread fills the results and
 * wakes this thread through a pipe polled together with the keyboard, so the
 * first frame appears before any executor is ready and the screen never
 * blocks on one. Drawing code asks the theme for semantic elements. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "parity/decision.h"
#include "parity/evidence.h"
#include "parity/keys.h"
#include "parity/lineedit.h"
#include "parity/review.h"
#include "parity/runner.h"
#include "parity/textcell.h"
#include "parity/theme.h"
#include "parity/tui.h"

enum mode { M_LIST, M_SEARCH, M_NOTE, M_HELP, M_QUIT, M_SUMMARY, M_RELOAD };

typedef struct tui {
    const px_fixture *f;
    px_results *res;
    px_runner *run;
    px_env_input *inputs;        /* what each environment is sent, kept for re-runs */
    px_runner_opts ropts;
    px_session rv;
    px_judgement j;
    int judged;
    px_theme theme;
    char themes[16][64];
    size_t n_themes, theme_i;
    const char *theme_dirs[3]; /* the user's, the ones that came with parity, NULL */
    int color, wake;
    FILE *script;
    const char *dump_dir;
    enum mode mode;
    px_lineedit ed;
    size_t ed_first;             /* the edit field's scroll, kept between frames */
    char search[256], msg[1200];
    int details, demo, quit;
} tui;

static const char *badge(px_outcome o)
{
    static const char *const b[PX_OC_COUNT] = {
        [PX_OC_PASS] = "ok",          [PX_OC_PASS_TOL] = "ok~",       [PX_OC_WRONG_LABEL] = "WRONG",
        [PX_OC_NUMERIC_DRIFT] = "DRIFT", [PX_OC_BAD_SHAPE] = "SHAPE", [PX_OC_EMPTY] = "EMPTY",
        [PX_OC_NON_FINITE] = "NaN",   [PX_OC_EXCEPTION] = "EXC",      [PX_OC_CRASH] = "CRASH",
        [PX_OC_TIMEOUT] = "TIME",     [PX_OC_UNSUPPORTED] = "UNSUP",  [PX_OC_REJECTED_OK] = "rej",
        [PX_OC_NOT_REJECTED] = "NOREJ", [PX_OC_WRONGLY_REJECTED] = "WREJ", [PX_OC_NOT_EVALUATED] = "n/e"};
    return o < PX_OC_COUNT ? b[o] : "?";
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
    case PX_OC_WRONG_LABEL: case PX_OC_NOT_REJECTED: case PX_OC_WRONGLY_REJECTED: return PX_EL_FAIL;
    default: return PX_EL_ERROR;
    }
}

/* Theme -> curses: pair i+1 for element i. */
static void apply_theme(tui *t)
{
    if (t->color && has_colors()) {
        start_color();
        use_default_colors();
        for (int i = 0; i < PX_EL_COUNT; i++) {
            int fg = t->theme.style[i].fg, bg = t->theme.style[i].bg;
            init_pair((short)(i + 1), (short)(fg < COLORS ? fg : -1), (short)(bg < COLORS ? bg : -1));
        }
    }
}

static attr_t style(tui *t, int el)
{
    const px_style *s = &t->theme.style[el];
    attr_t a = A_NORMAL;
    if (s->attrs & PX_ATTR_BOLD) a |= A_BOLD;
    if (s->attrs & PX_ATTR_DIM) a |= A_DIM;
    if (s->attrs & PX_ATTR_REVERSE) a |= A_REVERSE;
    if (s->attrs & PX_ATTR_UNDERLINE) a |= A_UNDERLINE;
    if (t->color && has_colors())
        a |= COLOR_PAIR(el + 1);
    return a;
}

/* Untrusted text, made safe and cut to cols columns. */
static void put(tui *t, int y, int x, int cols, int el, const char *s)
{
    if (cols <= 0 || y >= LINES)
        return;
    char *safe = textcell_sanitize(s ? s : "", s ? strlen(s) : 0), buf[2048];
    textcell_fit(safe ? safe : "", cols, buf, sizeof buf);
    attrset(style(t, el));
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
    free(safe);
}

static void putf(tui *t, int y, int x, int cols, int el, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void putf(tui *t, int y, int x, int cols, int el, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(t, y, x, cols, el, buf);
}

static void rejudge(tui *t)
{
    px_error err = {0};
    if (t->judged)
        judgement_free(&t->j);
    t->judged = judge_results(t->f, t->res, &t->j, &err) == 0;
    t->rv.j = t->judged ? &t->j : NULL;
    if (!t->judged)
        snprintf(t->msg, sizeof t->msg, "%s", err.msg);
    review_refilter(&t->rv);
}

static int env_running(const px_env_result *e) { return e->state == PX_ENV_PENDING; }

static void draw_header(tui *t)
{
    putf(t, 0, 0, COLS, PX_EL_HEADER, " parity review  %s  %zu examples  filter: %s%s%s", t->f->path, t->f->n_examples,
         filter_name(t->rv.filter), t->demo ? "  [demo: read-only]" : "", t->run && !runner_done(t->run) ? "  running…" : "");
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
        if (env_running(er)) {
            put(t, (int)e + 1, x, COLS - x, PX_EL_RUNNING, "starting…");
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
            put(t, (int)e + 1, x, COLS - x, sel, cell);
            x += (int)strlen(cell);
        }
    }
}

static const char *mark_symbol(const px_mark *m)
{
    px_decision_kind k = decision_kind(m->decision);
    return !m->decision ? " " : k == PX_DEC_NONE ? "?" : px_decision_table[k].symbol;
}

static int top_rows(tui *t) { return (int)(t->res->n_envs + 1 < (size_t)LINES / 3 ? t->res->n_envs + 1 : (size_t)LINES / 3) + 1; }

static void draw_list(tui *t, int top, int rows, int w)
{
    px_session *rv = &t->rv;
    size_t first = rv->cursor >= (size_t)rows ? rv->cursor - (size_t)rows + 1 : 0;
    for (int r = 0; r < rows && first + (size_t)r < rv->n_visible; r++) {
        size_t k = rv->visible[first + (size_t)r];
        int sel = first + (size_t)r == rv->cursor;
        const px_mark *m = &rv->marks[k];
        attrset(sel ? style(t, PX_EL_SELECTION) : A_NORMAL);
        mvhline(top + r, 0, ' ', w);
        putf(t, top + r, 0, 3, decision_kind(m->decision) == PX_DEC_FLAG ? PX_EL_FLAG : PX_EL_DECISION, "%s%s",
             mark_symbol(m), m->unwritten ? "*" : " ");
        put(t, top + r, 2, w - 17, sel ? PX_EL_SELECTION : PX_EL_NORMAL, t->f->examples[k].id);
        /* "changed": the shown candidate decides differently from the reference. */
        if (t->judged && t->rv.candidate >= 0 && t->j.envs[t->rv.candidate].ex[k].div == PX_DIV_DECISION)
            put(t, top + r, w - 15, 1, PX_EL_CHANGED, "!");
        int cols[2] = {t->res->reference, t->rv.candidate};
        for (int c = 0; c < 2; c++) {
            int e = cols[c];
            if (e < 0)
                continue;
            const px_example_result *x = &t->res->envs[e].ex[k];
            int x0 = w - 14 + c * 7;
            if (x->status == PX_ST_PENDING)
                put(t, top + r, x0, 6, PX_EL_RUNNING, "…");
            else if (t->judged)
                put(t, top + r, x0, 6, element_of(t->j.envs[e].ex[k].outcome), badge(t->j.envs[e].ex[k].outcome));
        }
    }
    attrset(style(t, PX_EL_BORDER));
    mvvline(top, w, '|', rows);
    attrset(A_NORMAL);
}

/* One environment's side: its top labels with probability bars, the
 * decision and the verdict. Returns the rows used. */
static int draw_side(tui *t, int e, size_t k, int y, int x, int w, int rows)
{
    if (e < 0 || rows < 2)
        return 0;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    int used = 0;
    putf(t, y + used++, x, w, e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE, "%s (%s %s)", er->name,
         results_env_device(t->f, er), results_env_dtype(t->f, er));
    if (r->status == PX_ST_PENDING) {
        put(t, y + used++, x, w, PX_EL_RUNNING, "running…");
        return used;
    }
    if (r->status == PX_ST_OK && r->n_values == er->n_labels) {
        double mx = r->values[0], sum = 0;
        for (size_t i = 1; i < r->n_values; i++)
            mx = r->values[i] > mx ? r->values[i] : mx;
        for (size_t i = 0; i < r->n_values; i++)
            sum += exp(r->values[i] - mx);
        /* The three best, or with details on every logit, best first. */
        int shown[64], want = t->details ? (int)r->n_values : 3;
        for (int top = 0; top < want && top < (int)r->n_values && top < 64; top++) {
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
            int width = COLS >= 120 ? 10 : 5, bar = (int)(p * width + 0.5);
            char bars[16] = "";
            for (int b = 0; b < width; b++)
                strcat(bars, b < bar ? "#" : ".");
            if (used < rows)
                putf(t, y + used++, x, w, top == 0 ? PX_EL_NORMAL : PX_EL_DIM, "%-9.9s %s %5.1f%% %+.3f",
                     er->labels[best], bars, p * 100, r->values[best]);
        }
    }
    if (t->judged && used < rows) {
        const px_verdict *v = &t->j.envs[e].ex[k];
        putf(t, y + used++, x, w, element_of(v->outcome), "%s: %s", outcome_name(v->outcome), v->detail ? v->detail : "");
    }
    return used;
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
            put(t, y + i, x, cols, PX_EL_DIM, "…");
            continue;
        }
        attrset(style(t, PX_EL_NORMAL));
        mvaddnstr(y + i, x, s + lines[i].start, (int)(lines[i].end - lines[i].start));
        attrset(style(t, PX_EL_DIM));
        if (hidden && i == got - 1)
            addstr("…");
        attrset(A_NORMAL);
    }
    free(lines);
    if (!hidden || got >= room)
        return got;
    putf(t, y + got, x, cols, PX_EL_DIM, "(text continues: %zu more character%s)", hidden,
         hidden == 1 ? "" : "s");
    return got + 1;
}

static void draw_detail(tui *t, int top, int rows, int x, int w)
{
    long k = review_current(&t->rv);
    if (k < 0) {
        put(t, top, x, w, PX_EL_DIM, "no example passes this filter (f changes it)");
        return;
    }
    const px_example *ex = &t->f->examples[k];
    int y = top;
    putf(t, y++, x, w, PX_EL_TITLE, "%s  (%s)", ex->id, ex->kind);
    if (ex->why)
        putf(t, y++, x, w, PX_EL_DIM, "why: %s", ex->why);
    char *safe = textcell_sanitize(ex->text, ex->text_len);
    /* The text gets the rows the rest leaves, at least 4. The rest: a blank,
     * the sides (heading, three labels, verdict), a blank, the comparison
     * lines, the decision and a row on it if there is one, the note;
     * draw_side leaves 4 rows below the sides however few follow, and
     * details take 2 more. */
    const px_mark *mk = &t->rv.marks[k];
    int left = top + rows - y, below = 8 + (mk->decision != NULL) + (mk->note != NULL);
    if (t->judged && t->rv.candidate >= 0) {
        const px_verdict *v = &t->j.envs[t->rv.candidate].ex[k];
        below += (v->has_cmp != 0) + (v->div != PX_DIV_NONE) + (v->attr != PX_ATTR_NONE);
    }
    below = (below > 10 ? below : 10) + (t->details ? 2 : 0);
    y += draw_text(t, safe ? safe : "", y, x + 2, w - 2, left - below > 4 ? left - below : left < 4 ? left : 4);
    free(safe);
    const px_example_result *ref = t->res->reference >= 0 ? &t->res->envs[t->res->reference].ex[k] : NULL;
    if (t->details && ref && ref->clean_text && y + 2 < top + rows) {
        putf(t, y++, x, w, PX_EL_DIM, "cleaned: %s", ref->clean_text);
        char toks[1024] = "";
        for (size_t i = 0; i < ref->n_ids && strlen(toks) < 900; i++)
            snprintf(toks + strlen(toks), sizeof toks - strlen(toks), "%s%s", i ? " " : "", ref->tokens[i]);
        putf(t, y++, x, w, PX_EL_DIM, "tokens: %s", toks);
    }
    y++;
    int half = w / 2;
    int a = draw_side(t, t->res->reference, (size_t)k, y, x, half - 1, top + rows - y - 4);
    int b = draw_side(t, t->rv.candidate, (size_t)k, y, x + half, w - half, top + rows - y - 4);
    y += (a > b ? a : b) + 1;
    if (t->judged && t->rv.candidate >= 0 && y < top + rows) {
        const px_verdict *v = &t->j.envs[t->rv.candidate].ex[k];
        const px_tolerance *tol = ex->tol.present ? &ex->tol : &t->f->logits_tol;
        if (v->has_cmp && y < top + rows)
            putf(t, y++, x, w, PX_EL_NORMAL, "%s |Δ| %.4g vs %.4g allowed (%s)", v->stat, v->cmp.value,
                 v->cmp.threshold, tol->why ? tol->why : "no written why");
        if (v->div != PX_DIV_NONE && y < top + rows)
            putf(t, y++, x, w, PX_EL_CHANGED, "parts from the reference at %s: %s", div_name(v->div),
                 v->div_detail ? v->div_detail : "");
        if (v->attr != PX_ATTR_NONE && y < top + rows)
            putf(t, y++, x, w, PX_EL_NORMAL, "cause: %s", attr_name(v->attr));
    }
    const px_mark *m = &t->rv.marks[k];
    int proposal = decision_kind(m->decision) == PX_DEC_FLAG && m->note && !strcmp(m->note, PX_PROPOSAL_NOTE);
    if (proposal && y < top + rows)
        put(t, y++, x, w, PX_EL_CHANGED, "proposal: from the reference run, confirm (a)");
    else if (y < top + rows)
        putf(t, y++, x, w, PX_EL_DECISION, "decision: %s%s%s%s%s", m->decision ? m->decision : "(none)",
             m->by ? " by " : "", m->by ? m->by : "", m->at ? " at " : "", m->at ? m->at : "");
    /* A decision made on another environment, or on results that changed
     * since, is said to be so beside the candidate shown: never carried
     * over silently. */
    int shown = t->rv.candidate >= 0 ? t->rv.candidate : t->res->reference;
    if (m->decision && !proposal && shown >= 0 && y < top + rows) {
        const px_env_result *er = &t->res->envs[shown];
        px_fit fit = decision_fit(m->decision, m->env, m->results, er, &er->ex[k], ex->id);
        char *words = decision_words(fit, m->decision, m->env, er->name);
        if (words)
            put(t, y++, x + 2, w - 2, fit == PX_FIT_HERE ? PX_EL_DECISION : PX_EL_CHANGED, words);
        free(words);
    }
    if (m->note && y < top + rows) {
        int other = m->note_by && (!m->by || strcmp(m->note_by, m->by));
        putf(t, y++, x, w, PX_EL_DECISION, "note: %s%s%s%s", m->note, other ? " (" : "", other ? m->note_by : "",
             other ? ")" : "");
    }
}

static void draw_status(tui *t)
{
    int y = LINES - 1;
    attrset(style(t, PX_EL_STATUS));
    mvhline(y, 0, ' ', COLS);
    attrset(A_NORMAL);
    if (t->mode == M_SEARCH || t->mode == M_NOTE) {
        int cur = 0;
        const char *label = t->mode == M_SEARCH ? "/" : "note: ";
        int lw = (int)strlen(label);
        int n = lineedit_view(&t->ed, COLS - lw - 1, &t->ed_first, &cur);
        put(t, y, 0, lw, PX_EL_STATUS, label);
        attrset(style(t, PX_EL_STATUS));
        mvaddnstr(y, lw, t->ed.buf + t->ed_first, n > 0 ? n : 0);
        attrset(A_NORMAL);
        move(y, lw + cur);
        curs_set(1);
        return;
    }
    char hint[1300];
    if (t->msg[0])
        snprintf(hint, sizeof hint, "%s", t->msg);
    else if (t->mode == M_QUIT)
        snprintf(hint, sizeof hint, "%zu decisions not yet written: w write and quit, q quit without, Esc stay",
                 t->rv.n_unwritten);
    else if (t->demo)
        snprintf(hint, sizeof hint, "demo (read-only): Space/-> next  j/k move  Tab candidate  ? help  q quit");
    else
        snprintf(hint, sizeof hint, "j/k move  Tab candidate  a x u p m c decide  e note  z undo  w write  f filter  "
                                    "/ search  ? help  q quit%s",
                 t->rv.n_unwritten ? "  | unwritten decisions" : "");
    char n[64] = "";
    if (t->rv.n_unwritten)
        snprintf(n, sizeof n, " %zu unwritten ", t->rv.n_unwritten);
    put(t, y, 0, COLS - (int)strlen(n), PX_EL_STATUS, hint);
    if (n[0])
        put(t, y, COLS - (int)strlen(n), (int)strlen(n), PX_EL_FLAG, n);
}

static void draw_help(tui *t)
{
    put(t, 0, 0, COLS, PX_EL_HEADER, " parity review: keys  (any key returns)");
    for (int i = 0; i < PX_ACT_COUNT && i + 2 < LINES; i++) {
        put(t, i + 2, 2, 14, PX_EL_HELP_KEY, key_defs[i].keys);
        put(t, i + 2, 17, COLS - 18, PX_EL_NORMAL, key_defs[i].help);
    }
}

static void draw_summary(tui *t)
{
    put(t, 0, 0, COLS, PX_EL_HEADER, " parity: what this fixture shows  (Space: walk the examples)");
    int y = 2;
    for (size_t e = 0; e < t->res->n_envs && y < LINES - 2; e++) {
        const px_env_result *er = &t->res->envs[e];
        const px_env *fe = &t->f->envs[er->env_index];
        putf(t, y++, 1, COLS - 2, PX_EL_TITLE, "%s  %s %s%s%s", er->name, results_env_device(t->f, er),
             results_env_dtype(t->f, er), fe->note ? "  — " : "", fe->note ? fe->note : "");
        if (!t->judged) {
            put(t, y++, 3, COLS - 4, PX_EL_RUNNING, "running…");
            continue;
        }
        char line[512] = "";
        for (int o = 0; o < PX_OC_COUNT; o++)
            if (t->j.envs[e].counts[o])
                snprintf(line + strlen(line), sizeof line - strlen(line), "%d %s  ", t->j.envs[e].counts[o],
                         outcome_name((px_outcome)o));
        put(t, y++, 3, COLS - 4, t->j.envs[e].met ? PX_EL_PASS : PX_EL_FAIL, line);
        for (int r = 0; r < PX_RUNG_COUNT && y < LINES - 2; r++)
            if (t->j.envs[e].rung[r] == PX_RS_FAILED)
                putf(t, y++, 3, COLS - 4, PX_EL_FAIL, "%s failed: %s", rung_name((px_rung)r), t->j.envs[e].rung_detail[r]);
        if (er->state == PX_ENV_DOWN && y < LINES - 2)
            putf(t, y++, 3, COLS - 4, PX_EL_NOT_EVALUATED, "not evaluated: %s", er->down_msg ? er->down_msg : "down");
        y++;
    }
}

static void draw(tui *t)
{
    erase();
    if (LINES < 24 || COLS < 80) {
        putf(t, 0, 0, COLS, PX_EL_FAIL, "terminal too small: parity needs 80x24 (now %dx%d)", COLS, LINES);
        refresh();
        return;
    }
    if (t->res && t->run)
        runner_lock(t->run);
    if (t->mode == M_HELP)
        draw_help(t);
    else if (t->mode == M_SUMMARY)
        draw_summary(t);
    else {
        draw_header(t);
        int top = top_rows(t), rows = LINES - top - 1, w = COLS * 3 / 10 < 28 ? 28 : COLS * 3 / 10 > 48 ? 48 : COLS * 3 / 10;
        if (t->demo) {
            /* Showing a colleague: one example at a time, full width, with
             * room around it. */
            long k = review_current(&t->rv);
            putf(t, top, 2, COLS - 4, PX_EL_DIM, "example %ld of %zu", k + 1, t->rv.n_visible);
            draw_detail(t, top + 2, rows - 2, 4, COLS - 8);
        } else {
            draw_list(t, top, rows, w);
            draw_detail(t, top, rows, w + 2, COLS - w - 3);
        }
    }
    draw_status(t);
    if (t->res && t->run)
        runner_unlock(t->run);
    refresh();
}

static void say(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(tui *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
}

static void decide(tui *t, const char *decision)
{
    px_error err = {0};
    long k = review_current(&t->rv); /* the list may change under the decision */
    if (t->demo)
        say(t, "demo mode is read-only");
    else if (review_decide(&t->rv, decision, NULL, &err))
        say(t, "%s", err.msg);
    else
        say(t, "recorded: %s %s (journaled; w writes it into the fixture)", t->f->examples[k].id, decision);
}

static void write_out(tui *t)
{
    px_error err = {0};
    size_t n = t->rv.n_unwritten;
    if (review_write(&t->rv, &err) == 0) {
        say(t, "%zu decision%s written to %s", n, n == 1 ? "" : "s", t->f->path);
    } else if (err.reason == PX_ERR_STALE) {
        /* Someone else saved the fixture: offer to take their version and
         * apply this session's decisions on top (they are in the journal). */
        t->mode = M_RELOAD;
        say(t, "%s changed on disk: y reload it and apply your %zu decisions on top, Esc keep them unwritten",
            t->f->path, n);
    } else {
        say(t, "%s", err.msg);
    }
}

static void reload_and_write(tui *t)
{
    px_error err = {0};
    px_decide *s = t->rv.store;
    char *path = strdup(s->path);
    decide_close(s);
    if (decide_open(s, path, &err))
        say(t, "%s", err.msg);
    else
        write_out(t);
    free(path);
}

static void next_theme(tui *t)
{
    if (!t->n_themes)
        return;
    t->theme_i = (t->theme_i + 1) % t->n_themes;
    px_error err = {0};
    if (theme_load(t->themes[t->theme_i], t->theme_dirs, 2, &t->theme, &err))
        say(t, "%s", err.msg);
    else
        say(t, "theme: %s", t->themes[t->theme_i]);
    apply_theme(t);
}

/* r / R: run one example, or all, again in fresh executors. A run still
 * in flight finishes first. */
static void rerun(tui *t, int all)
{
    long k = review_current(&t->rv);
    if (!t->inputs || !evidence_runs(t->res)) {
        say(t, "nothing to run here: these results come from files");
        return;
    }
    if (t->run && !runner_done(t->run)) {
        say(t, "a run is still in progress");
        return;
    }
    if (!all && k < 0)
        return;
    runner_free(t->run);
    t->run = NULL;
    for (size_t e = 0; e < t->res->n_envs; e++)
        for (size_t i = 0; t->res->envs[e].origin == PX_ORIGIN_RUN && t->res->envs[e].selected &&
                           i < t->res->n_examples; i++)
            if (all || i == (size_t)k)
                example_result_clear(&t->res->envs[e].ex[i]);
    t->ropts.one_example = !all;
    t->ropts.example = all ? 0 : (size_t)k;
    px_error err = {0};
    t->run = runner_start(t->f, t->inputs, t->res, &t->ropts, &err);
    if (!t->run)
        say(t, "%s", err.msg);
    else
        say(t, all ? "running every example again" : "running %s again", all ? "" : t->f->examples[k].id);
    if (t->run)
        runner_lock(t->run);
    rejudge(t);
    if (t->run)
        runner_unlock(t->run);
}

static void act(tui *t, px_action a)
{
    long page = LINES - top_rows(t) - 2;
    px_error err = {0};
    switch (a) {
    case PX_ACT_DOWN: review_move(&t->rv, 1); break;
    case PX_ACT_UP: review_move(&t->rv, -1); break;
    case PX_ACT_FIRST: review_move_to(&t->rv, 0); break;
    case PX_ACT_LAST: review_move_to(&t->rv, t->rv.n_visible ? t->rv.n_visible - 1 : 0); break;
    case PX_ACT_PAGE_DOWN: review_move(&t->rv, page); break;
    case PX_ACT_PAGE_UP: review_move(&t->rv, -page); break;
    case PX_ACT_CANDIDATE: review_next_candidate(&t->rv); break;
    case PX_ACT_DETAILS:
        if (t->demo)
            review_move(&t->rv, 1);
        else
            t->details = !t->details;
        break;
    case PX_ACT_SEARCH:
        lineedit_init(&t->ed, "");
        t->ed_first = 0;
        t->mode = M_SEARCH;
        break;
    case PX_ACT_SEARCH_NEXT: case PX_ACT_SEARCH_PREV:
        if (!t->search[0])
            say(t, "no search yet: / starts one");
        else if (review_search(&t->rv, t->search, a == PX_ACT_SEARCH_NEXT ? 1 : -1, &err) > 0)
            say(t, "/%s: no match", t->search);
        else if (err.code)
            say(t, "%s", err.msg);
        break;
    case PX_ACT_FILTER:
        review_set_filter(&t->rv, (px_filter)((t->rv.filter + 1) % PX_FILTER_COUNT));
        say(t, "filter: %s (%zu examples)", filter_name(t->rv.filter), t->rv.n_visible);
        break;
    case PX_ACT_ACCEPT: decide(t, px_decision_table[PX_DEC_ACCEPT].name); break;
    case PX_ACT_DEFECT: decide(t, px_decision_table[PX_DEC_DEFECT].name); break;
    case PX_ACT_UNSUPPORTED: decide(t, px_decision_table[PX_DEC_UNSUPPORTED].name); break;
    case PX_ACT_NEEDS_RULE: decide(t, px_decision_table[PX_DEC_NEEDS_RULE].name); break;
    case PX_ACT_FLAG: decide(t, px_decision_table[PX_DEC_FLAG].name); break;
    case PX_ACT_CLEAR: decide(t, px_decision_table[PX_DEC_CLEAR].name); break;
    case PX_ACT_NOTE: {
        long k = review_current(&t->rv);
        if (t->demo || k < 0 || !t->rv.marks[k].decision) {
            say(t, t->demo ? "demo mode is read-only" : "decide first: a note goes with a decision");
            break;
        }
        lineedit_init(&t->ed, t->rv.marks[k].note ? t->rv.marks[k].note : "");
        t->ed_first = 0;
        t->mode = M_NOTE;
        break;
    }
    case PX_ACT_UNDO:
        if (t->demo || review_undo(&t->rv, &err))
            say(t, "%s", t->demo ? "demo mode is read-only" : err.msg);
        else
            say(t, "undone (journaled)");
        break;
    case PX_ACT_WRITE:
        if (!t->demo)
            write_out(t);
        break;
    case PX_ACT_THEME: next_theme(t); break;
    case PX_ACT_RERUN: rerun(t, 0); break;
    case PX_ACT_RERUN_ALL: rerun(t, 1); break;
    case PX_ACT_HELP: t->mode = M_HELP; break;
    case PX_ACT_QUIT:
        if (t->rv.n_unwritten && !t->demo)
            t->mode = M_QUIT;
        else
            t->quit = 1;
        break;
    default: break;
    }
}

typedef struct key_ev {
    int fn;     /* 1: a curses KEY_* code */
    wint_t ch;
} key_ev;

static int le_key(key_ev k)
{
    if (k.fn)
        switch (k.ch) {
        case KEY_LEFT: return PX_KEY_LEFT;
        case KEY_RIGHT: return PX_KEY_RIGHT;
        case KEY_HOME: return PX_KEY_HOME;
        case KEY_END: return PX_KEY_END;
        case KEY_BACKSPACE: return PX_KEY_BACKSPACE;
        case KEY_DC: return PX_KEY_DELETE;
        case KEY_ENTER: return PX_KEY_ENTER;
        default: return -1;
        }
    return k.ch < 0x20 || k.ch == 0x7F ? (int)k.ch : PX_KEY_CHAR;
}

static void edit_key(tui *t, key_ev k)
{
    char u[8] = "";
    int key = le_key(k);
    if (key == PX_KEY_CHAR) {
        mbstate_t st = {0};
        size_t n = wcrtomb(u, (wchar_t)k.ch, &st);
        u[n == (size_t)-1 ? 0 : n] = '\0';
    }
    if (key < 0)
        return;
    int r = lineedit_key(&t->ed, key, u);
    if (r == PX_LE_CONTINUE)
        return;
    px_error err = {0};
    if (r == PX_LE_DONE && t->mode == M_SEARCH) {
        snprintf(t->search, sizeof t->search, "%s", t->ed.buf);
        int found = review_search(&t->rv, t->search, 1, &err);
        if (found < 0)
            say(t, "%s", err.msg);
        else if (found > 0)
            say(t, "/%s: no match", t->search);
    } else if (r == PX_LE_DONE && t->mode == M_NOTE) {
        if (review_note(&t->rv, t->ed.buf, &err))
            say(t, "%s", err.msg);
        else
            say(t, "note recorded (journaled; w writes it)");
    }
    lineedit_free(&t->ed);
    t->mode = M_LIST;
    curs_set(0);
}

static void handle(tui *t, key_ev k)
{
    if (!k.fn || k.ch != KEY_RESIZE)
        t->msg[0] = '\0';
    if (k.fn && k.ch == KEY_RESIZE)
        return;
    if (t->mode == M_SEARCH || t->mode == M_NOTE) {
        edit_key(t, k);
        return;
    }
    if (t->mode == M_HELP) {
        t->mode = M_LIST;
        return;
    }
    if (t->mode == M_SUMMARY) {
        if (!k.fn && k.ch == 'q')
            t->quit = 1;
        else
            t->mode = M_LIST;
        return;
    }
    if (t->mode == M_RELOAD) {
        t->mode = M_LIST;
        if (!k.fn && k.ch == 'y')
            reload_and_write(t);
        return;
    }
    if (t->mode == M_QUIT) {
        if (!k.fn && k.ch == 'w') {
            write_out(t);
            t->quit = t->rv.n_unwritten == 0;
        } else if (!k.fn && k.ch == 'q') {
            t->quit = 1;
        }
        if (!t->quit)
            t->mode = M_LIST;
        return;
    }
    act(t, k.fn || k.ch < 128 ? key_action((int)k.ch) : PX_ACT_NONE);
}

/* Screen as text, one line a row, trailing blanks trimmed. */
static void dump(const char *path)
{
    FILE *o = fopen(path, "w");
    if (!o)
        return;
    for (int y = 0; y < LINES; y++) {
        wchar_t w[1024];
        int n = mvinnwstr(y, 0, w, COLS < 1023 ? COLS : 1023);
        char line[4096];
        size_t len = 0;
        mbstate_t st = {0};
        for (int i = 0; i < n && len + 8 < sizeof line; i++) {
            size_t b = wcrtomb(line + len, w[i], &st);
            len += b == (size_t)-1 ? 0 : b;
        }
        while (len && line[len - 1] == ' ')
            len--;
        fprintf(o, "%.*s\n", (int)len, line);
    }
    fclose(o);
}

static void drain_wake(tui *t)
{
    char buf[256];
    while (read(t->wake, buf, sizeof buf) > 0)
        ;
    if (t->run)
        runner_lock(t->run);
    rejudge(t);
    if (t->run)
        runner_unlock(t->run);
}

static const struct {
    const char *name;
    int fn;
    wint_t ch;
} names[] = {{"Enter", 0, '\n'},  {"Space", 0, ' '},       {"Tab", 0, '\t'},          {"Esc", 0, 27},
             {"Up", 1, KEY_UP},   {"Down", 1, KEY_DOWN},   {"Left", 1, KEY_LEFT},     {"Right", 1, KEY_RIGHT},
             {"Home", 1, KEY_HOME}, {"End", 1, KEY_END},   {"PgUp", 1, KEY_PPAGE},    {"PgDn", 1, KEY_NPAGE},
             {"Backspace", 1, KEY_BACKSPACE}, {"C-u", 0, 0x15}, {"C-w", 0, 0x17}, {"C-a", 0, 0x01}, {"C-e", 0, 0x05}};

/* One step of a key script (PARITY_KEYS): a key name or character per
 * line, or a command: "type TEXT", "wait" (until every run is done),
 * "sh COMMAND" (run it),
 * "dump NAME" (screen to $PARITY_DUMP_DIR/NAME), "resize COLSxROWS". Keys
 * typed by "type" are queued; "#" starts a comment (the key '#' is not
 * bound). Returns 0 at the end of the script. */
static int script_step(tui *t, key_ev *queue, size_t *nq)
{
    char line[1024];
    if (!fgets(line, sizeof line, t->script))
        return 0;
    line[strcspn(line, "\n")] = '\0';
    if (!strncmp(line, "type ", 5)) {
        mbstate_t st = {0};
        const char *p = line + 5;
        wchar_t wc;
        size_t n;
        while (*p && *nq < 256 && (n = mbrtowc(&wc, p, strlen(p), &st)) > 0 && n < (size_t)-2) {
            queue[(*nq)++] = (key_ev){0, (wint_t)wc};
            p += n;
        }
    } else if (!strncmp(line, "sh ", 3)) {
        /* For scenarios that need the world to change mid-session (another
         * editor saving the fixture). */
        int rc = system(line + 3);
        (void)rc;
    } else if (!strcmp(line, "wait")) {
        while (t->run && !runner_done(t->run))
            poll(&(struct pollfd){t->wake, POLLIN, 0}, 1, 100);
        drain_wake(t);
    } else if (!strncmp(line, "dump ", 5)) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", t->dump_dir ? t->dump_dir : ".", line + 5);
        draw(t);
        dump(path);
    } else if (!strncmp(line, "resize ", 7)) {
        int c = 80, r = 24;
        sscanf(line + 7, "%dx%d", &c, &r);
        resize_term(r, c);
        queue[(*nq)++] = (key_ev){1, KEY_RESIZE};
    } else if (line[0] && line[0] != '#') { /* '#' starts a comment line */
        key_ev k = {0, (unsigned char)line[0]};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (!strcmp(line, names[i].name))
                k = (key_ev){names[i].fn, names[i].ch};
        queue[(*nq)++] = k;
    }
    return 1;
}

static int fail_line(const px_error *err)
{
    char line[2048];
    px_error_format(err, line, sizeof line);
    fprintf(stderr, "parity: %s\n", line);
    return err->code ? err->code : PX_EXIT_USAGE;
}

/* -1 with *err when the theme asked for with --theme cannot be used: a
 * reviewer who names a theme is told, before anything starts, rather than
 * given another one. */
static int init_theme(tui *t, const px_tui_opts *o, px_error *err)
{
    /* The user's themes, then the ones that came with this parity, found
     * from where it runs: installed (PREFIX/bin/parity:
     * ../share/parity/themes), or the source tree's (build/parity: ../themes;
     * a sanitizer build, build/san-x/parity: ../../themes). */
    static char user[1024], beside[4096];
    theme_user_dir(user, sizeof user);
    ssize_t k = readlink("/proc/self/exe", beside, sizeof beside - 40);
    beside[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(beside, '/');
    static const char *const tails[] = {"/../share/parity/themes", "/../themes", "/../../themes"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(slash ? slash : beside, 40, "%s", tails[i]);
        if (access(beside, R_OK) == 0)
            break;
    }
    t->theme_dirs[0] = user, t->theme_dirs[1] = beside, t->theme_dirs[2] = NULL;
    t->n_themes = theme_list(t->theme_dirs, 2, t->themes, 16);
    t->color = theme_color_wanted(o->color, getenv("PARITY_KEYS") ? 1 : isatty(1));
    if (o->theme && theme_load(o->theme, t->theme_dirs, 2, &t->theme, err))
        return -1;
    px_error ignored = {0};
    const char *name = t->color ? (o->theme ? o->theme : "default") : "mono";
    if (theme_load(name, t->theme_dirs, 2, &t->theme, &ignored)) {
        if (t->color)
            theme_default(&t->theme);
        else
            theme_mono(&t->theme);
    }
    for (size_t i = 0; i < t->n_themes; i++)
        if (!strcmp(t->themes[i], t->theme.name))
            t->theme_i = i;
    return 0;
}

static void start_curses(tui *t)
{
    setlocale(LC_ALL, "");
    if (strcmp(nl_langinfo(CODESET), "UTF-8"))
        setlocale(LC_CTYPE, "C.UTF-8");
    const char *keys = getenv("PARITY_KEYS");
    if (keys) {
        t->script = fopen(keys, "r");
        t->dump_dir = getenv("PARITY_DUMP_DIR");
        FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
        const char *term = getenv("TERM");
        newterm(term && *term && strcmp(term, "dumb") ? (char *)term : "xterm", out, in);
        int c = 80, r = 24;
        const char *size = getenv("PARITY_SIZE");
        if (size)
            sscanf(size, "%dx%d", &c, &r);
        resize_term(r, c);
    } else {
        initscr();
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    apply_theme(t);
}

static void loop(tui *t)
{
    key_ev queue[256];
    size_t nq = 0, qi = 0;
    while (!t->quit) {
        draw(t);
        if (t->script) {
            if (qi == nq) {
                qi = nq = 0;
                if (!script_step(t, queue, &nq))
                    break;
            }
            if (poll(&(struct pollfd){t->wake, POLLIN, 0}, 1, 0) > 0)
                drain_wake(t);
            if (qi < nq)
                handle(t, queue[qi++]);
            continue;
        }
        struct pollfd p[2] = {{0, POLLIN, 0}, {t->wake, POLLIN, 0}};
        if (poll(p, 2, 500) < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            drain_wake(t);
        wint_t ch;
        int rc;
        while ((rc = get_wch(&ch)) != ERR && !t->quit)
            handle(t, (key_ev){rc == KEY_CODE_YES, ch});
    }
}

/* Every environment the contract names, from where its results come
 * (evidence.h); the ones to run here start in the background. */
static int gather(tui *t, const px_tui_opts *o, px_env_input **inputs, int wake_w, px_error *err)
{
    px_sources s = {o->results, (size_t)o->n_results, o->envs, (size_t)o->n_envs};
    if (!t->f->model_sha256)
        return px_error_set(err, PX_ERR_MISMATCH, t->f->path, t->f->model_loc.line, t->f->model_loc.col,
                            "contract.model has no sha256: pin the model revision before reviewing against it");
    if (!(t->res = evidence_gather(t->f, &s, err)))
        return -1;
    *inputs = calloc(t->res->n_envs ? t->res->n_envs : 1, sizeof **inputs);
    if (!*inputs)
        return px_error_oom(err, NULL);
    if (evidence_inputs(t->f, t->res, *inputs, err)) {
        free(*inputs);
        *inputs = NULL;
        return -1;
    }
    t->inputs = *inputs;
    if (!evidence_runs(t->res))
        return 0;
    t->ropts = (px_runner_opts){.backend_lib = o->backend_lib, .backend_modules = o->modules,
                                .n_backend_modules = (size_t)o->n_modules, .notify_fd = wake_w};
    runner_locate(&t->ropts, o->executor, o->python);
    if (runner_check(&t->ropts, t->f, t->res, err))
        return -1;
    t->run = runner_start(t->f, *inputs, t->res, &t->ropts, err);
    return t->run ? 0 : -1;
}

int tui_main(const px_tui_opts *o)
{
    tui t;
    memset(&t, 0, sizeof t);
    px_error err = {0};
    px_fixture *f = fixture_load(o->fixture, &err);
    if (!f)
        return fail_line(&err);
    t.f = f, t.demo = o->demo;
    px_decide store, *sp = NULL;
    if (!o->demo && decide_open(&store, o->fixture, &err) == 0)
        sp = &store;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
        fixture_free(f);
        return PX_EXIT_ENV;
    }
    t.wake = pipefd[0];
    px_env_input *inputs = NULL;
    int rc = 0;
    if (init_theme(&t, o, &err) || gather(&t, o, &inputs, pipefd[1], &err)) {
        runner_free(t.run);
        t.run = NULL;
        if (inputs)
            evidence_inputs_close(f, t.res, inputs);
        free(inputs);
        inputs = NULL;
        results_free(t.res);
        t.res = NULL;
        rc = fail_line(&err);
    } else {
        review_init(&t.rv, f, t.res, sp, o->reviewer ? o->reviewer : getenv("USER"));
        if (t.rv.n_unwritten)
            snprintf(t.msg, sizeof t.msg, "%zu decisions recovered from an interrupted session: w writes them",
                     t.rv.n_unwritten);
        if (o->demo)
            t.mode = M_SUMMARY;
        drain_wake(&t);
        start_curses(&t);
        loop(&t);
        endwin();
        px_error fatal = {0};
        if (t.run && (runner_cancel(t.run), runner_wait(t.run, &fatal)))
            rc = fail_line(&fatal); /* the whole run had to stop: said once more, below the screen */
    }
    runner_free(t.run);
    runner_locate_free(&t.ropts);
    if (t.judged)
        judgement_free(&t.j);
    if (t.res)
        review_free(&t.rv);
    if (inputs)
        evidence_inputs_close(f, t.res, inputs);
    free(inputs);
    results_free(t.res);
    if (t.script)
        fclose(t.script);
    close(pipefd[0]), close(pipefd[1]);
    if (sp)
        decide_close(sp);
    fixture_free(f);
    return rc;
}
