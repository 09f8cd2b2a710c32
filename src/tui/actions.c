/* The review screen's actions: one function per entry of the binding table
 * (parity/keys.h), act_<name>, each returning what to redraw. Demo mode
 * refuses the ones that change the fixture or the journal in tui_act,
 * before any of them runs. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/atomic.h"
#include "parity/bundle.h"
#include "parity/decision.h"
#include "parity/report_html.h"
#include "parity/report_md.h"
#include "parity/story.h"
#include "actions.h"
#include "paint.h"
#include "summary.h"
#include "view_list.h"

static unsigned move_by(tui *t, long delta)
{
    review_move(&t->rv, delta);
    return PX_RE_CURSOR;
}

/* A page: the list's rows, less one kept in sight. */
static long page(const tui *t) { return LINES - tui_top_rows(t) - 2; }

static unsigned act_down(tui *t) { return move_by(t, 1); }
static unsigned act_up(tui *t) { return move_by(t, -1); }
static unsigned act_page_down(tui *t) { return move_by(t, page(t)); }
static unsigned act_page_up(tui *t) { return move_by(t, -page(t)); }

static unsigned act_first(tui *t)
{
    review_move_to(&t->rv, 0);
    return PX_RE_CURSOR;
}

static unsigned act_last(tui *t)
{
    review_move_to(&t->rv, t->rv.n_visible ? t->rv.n_visible - 1 : 0);
    return PX_RE_CURSOR;
}

/* The header, the list's badges and the example all show the candidate. */
static unsigned act_candidate(tui *t)
{
    review_next_candidate(&t->rv);
    return PX_RE_ALL;
}

/* Demo mode walks the examples with it instead. */
static unsigned act_details(tui *t)
{
    if (t->demo)
        return move_by(t, 1);
    t->details = !t->details;
    t->detail_top = 0;
    return PX_RE_DETAIL;
}

/* J, K: the example's pane, a row at a time, in every mode (list, details,
 * L, demo); drawing keeps it within what there is. */
static unsigned act_scroll_down(tui *t)
{
    if (t->detail_more > 0)
        t->detail_top++;
    return PX_RE_DETAIL;
}

static unsigned act_scroll_up(tui *t)
{
    t->detail_top -= t->detail_top > 0;
    return PX_RE_DETAIL;
}

/* v: the example whole, on a screen of its own that scrolls. */
static unsigned act_whole(tui *t)
{
    if (review_current(&t->rv) < 0)
        return PX_RE_NONE;
    t->mode = M_WHOLE;
    t->whole.top = 0;
    return PX_RE_ALL;
}

/* Opens the editor on the status line for a mode (M_SEARCH, M_NOTE). */
static unsigned edit(tui *t, enum mode mode, const char *initial)
{
    lineedit_init(&t->ed, initial);
    t->ed_first = 0;
    t->mode = mode;
    return PX_RE_STATUS;
}

static unsigned act_search(tui *t) { return edit(t, M_SEARCH, ""); }

static unsigned search_again(tui *t, int dir)
{
    px_error err = {0};
    char key[16];
    if (!t->search[0]) {
        tui_say(t, "no search yet: %s starts one", key_first(PX_ACT_SEARCH, key, sizeof key));
        return PX_RE_STATUS;
    }
    if (review_search(&t->rv, t->search, dir, &err) > 0)
        tui_say(t, "/%s: no match", t->search);
    else if (err.code)
        tui_say(t, "%s", err.msg);
    return PX_RE_CURSOR;
}

static unsigned act_search_next(tui *t) { return search_again(t, 1); }
static unsigned act_search_prev(tui *t) { return search_again(t, -1); }

/* The header names the filter. */
static unsigned act_filter(tui *t)
{
    review_set_filter(&t->rv, (px_filter)((t->rv.filter + 1) % PX_FILTER_COUNT));
    tui_say(t, "filter: %s (%zu examples)", filter_name(t->rv.filter), t->rv.n_visible);
    return PX_RE_ALL;
}

static unsigned decide(tui *t, px_decision_kind kind)
{
    px_error err = {0};
    char w[16];
    const char *decision = px_decision_table[kind].name;
    long k = review_current(&t->rv); /* the list may change under the decision */
    if (review_decide(&t->rv, decision, NULL, &err))
        tui_say(t, "%s", err.msg);
    else
        tui_say(t, "recorded: %s %s (journaled; %s writes it into the fixture)", t->f->examples[k].id, decision,
                key_first(PX_ACT_WRITE, w, sizeof w));
    return PX_RE_CURSOR;
}

static unsigned act_accept(tui *t) { return decide(t, PX_DEC_ACCEPT); }
static unsigned act_defect(tui *t) { return decide(t, PX_DEC_DEFECT); }
static unsigned act_unsupported(tui *t) { return decide(t, PX_DEC_UNSUPPORTED); }
static unsigned act_needs_rule(tui *t) { return decide(t, PX_DEC_NEEDS_RULE); }
static unsigned act_flag(tui *t) { return decide(t, PX_DEC_FLAG); }
static unsigned act_clear(tui *t) { return decide(t, PX_DEC_CLEAR); }

static unsigned act_note(tui *t)
{
    long k = review_current(&t->rv);
    if (k < 0 || !t->rv.marks[k].decision) {
        tui_say(t, "decide first: a note goes with a decision");
        return PX_RE_STATUS;
    }
    return edit(t, M_NOTE, t->rv.marks[k].note ? t->rv.marks[k].note : "");
}

static unsigned act_undo(tui *t)
{
    px_error err = {0};
    if (review_undo(&t->rv, &err))
        tui_say(t, "%s", err.msg);
    else
        tui_say(t, "undone (journaled)");
    return PX_RE_CURSOR;
}

unsigned tui_write(tui *t)
{
    px_error err = {0};
    size_t n = t->rv.n_unwritten;
    if (review_write(&t->rv, &err) == 0) {
        tui_say(t, "%zu decision%s written to %s", n, n == 1 ? "" : "s", t->f->path);
    } else if (err.reason == PX_ERR_STALE) {
        /* Someone else saved the fixture: offer to take their version and
         * apply this session's decisions on top (they are in the journal). */
        t->mode = M_RELOAD;
        tui_say(t, "%s changed on disk: y reload it and apply your %zu decisions on top, Esc keep them unwritten",
                t->f->path, n);
    } else {
        tui_say(t, "%s", err.msg);
    }
    return PX_RE_CURSOR; /* the list's unwritten marks */
}

unsigned tui_reload_and_write(tui *t)
{
    px_error err = {0};
    px_writeback *s = t->rv.store;
    char *path = strdup(s->path);
    writeback_close(s);
    unsigned r = PX_RE_STATUS;
    if (writeback_open(s, path, &err))
        tui_say(t, "%s", err.msg);
    else
        writeback_lean(s), r = tui_write(t);
    free(path);
    return r;
}

static unsigned act_write(tui *t) { return tui_write(t); }

/* r / R: run one example, or all, again: in the executors still up from
 * the run (one forward each, not a start-up and a load), else in fresh
 * ones. A run still in flight finishes first. */
/* The results a re-run replaces: pending until it gives them again. */
static void clear_for_rerun(tui *t, int all, long k)
{
    for (size_t e = 0; e < t->res->n_envs; e++)
        for (size_t i = 0; t->res->envs[e].origin == PX_ORIGIN_RUN && t->res->envs[e].selected &&
                           i < t->res->n_examples; i++)
            if (all || i == (size_t)k)
                example_result_clear(&t->res->envs[e].ex[i]);
}

static unsigned rerun(tui *t, int all)
{
    long k = review_current(&t->rv);
    if (!session_runs(&t->cs)) {
        tui_say(t, "nothing to run here: these results come from files");
        return PX_RE_STATUS;
    }
    if (t->run && !runner_done(t->run)) {
        tui_say(t, "a run is still in progress");
        return PX_RE_STATUS;
    }
    if (!all && k < 0)
        return PX_RE_NONE;
    if (t->run)
        runner_lock(t->run);
    clear_for_rerun(t, all, k);
    if (t->run)
        runner_unlock(t->run);
    /* In the live executors when they serve, else in a new run. */
    px_error err = {0};
    int rc = session_rerun(&t->cs, all, all ? 0 : (size_t)k, &err);
    t->run = t->cs.run;
    if (rc)
        tui_say(t, "%s", err.msg);
    else
        tui_say(t, all ? "running every example again%s" : "running %s again", all ? "" : t->f->examples[k].id);
    return PX_RE_ALL | PX_RE_JUDGE;
}

static unsigned act_rerun(tui *t) { return rerun(t, 0); }
static unsigned act_rerun_all(tui *t) { return rerun(t, 1); }

/* Colours and attributes are in every cell drawn. */
static unsigned act_theme(tui *t)
{
    if (!t->n_themes)
        return PX_RE_NONE;
    t->theme_i = (t->theme_i + 1) % t->n_themes;
    px_error err = {0};
    if (theme_load(t->themes[t->theme_i], t->theme_dirs, 2, &t->theme, &err))
        tui_say(t, "%s", err.msg);
    else
        tui_say(t, "theme: %s", t->themes[t->theme_i]);
    tui_apply_theme(t);
    return PX_RE_ALL;
}

static unsigned act_list(tui *t)
{
    t->hide_list = !t->hide_list;
    return PX_RE_ALL;
}

/* The summary the demo opens on, from the start. */
static unsigned act_summary(tui *t)
{
    t->mode = M_SUMMARY;
    t->summary.top = 0;
    return PX_RE_ALL;
}

/* A path beside the fixture that does not exist yet: the editor's start. */
static void fresh_path(const tui *t, const char *stem, const char *ext, char *buf, size_t size)
{
    const char *dir = t->f->dir[0] ? t->f->dir : ".";
    snprintf(buf, size, "%s/%s%s", dir, stem, ext);
    for (int i = 2; i < 100 && !access(buf, F_OK); i++)
        snprintf(buf, size, "%s/%s-%d%s", dir, stem, i, ext);
}

/* Writing a report or an export changes neither the fixture nor the
 * journal: allowed in demo mode, so a demo ends with something to send. */
static unsigned act_report(tui *t)
{
    char path[4200];
    fresh_path(t, "report", ".html", path, sizeof path);
    return edit(t, M_REPORT, path);
}

static unsigned act_export(tui *t)
{
    char path[4200];
    fresh_path(t, "parity-export", ".tar.gz", path, sizeof path);
    return edit(t, M_EXPORT, path);
}

static unsigned act_help(tui *t)
{
    t->mode = M_HELP;
    t->help.top = 0;
    return PX_RE_ALL;
}

/* b: the help screen at its legend of the badges. */
static unsigned act_badges(tui *t)
{
    act_help(t);
    t->help_badges = 1;
    return PX_RE_ALL;
}

/* Demo mode never has unwritten decisions: nothing there journals. */
static unsigned act_quit(tui *t)
{
    if (!t->rv.n_unwritten)
        return PX_RE_QUIT;
    t->mode = M_QUIT;
    return PX_RE_STATUS;
}

static unsigned (*const actions[PX_ACT_COUNT])(tui *) = {
#define PX_KEY_FN(id, name, ...) [PX_ACT_##id] = act_##name,
    PX_KEY_TABLE(PX_KEY_FN)
#undef PX_KEY_FN
};

unsigned tui_act(tui *t, px_action a)
{
    if (a == PX_ACT_NONE)
        return PX_RE_NONE;
    if (t->demo && (key_defs[a].flags & PX_KEY_CHANGES)) {
        if (!(key_defs[a].flags & PX_KEY_DEMO_QUIET))
            tui_say(t, "demo mode is read-only");
        return PX_RE_STATUS;
    }
    return actions[a](t);
}

/* The story of what the screen shows now; NULL (said why) while a run is
 * still going. */
static px_story *story_now_shown(tui *t)
{
    px_error err = {0};
    px_story *s = tui_story(t, &err);
    if (!s)
        tui_say(t, "%s, then write it", err.msg);
    return s;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

unsigned tui_write_report(tui *t, const char *path)
{
    px_story *s = path[0] ? story_now_shown(t) : NULL;
    if (!s)
        return PX_RE_STATUS;
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    px_error err = {0};
    if (o) {
        if (ends_with(path, ".md"))
            report_markdown_judged(o, s, &t->j);
        else
            report_html_judged(o, s, &t->j);
    }
    if (!o || fclose(o))
        tui_say(t, "out of memory: no report written");
    else if (atomic_write(path, text, len, &err))
        tui_say(t, "%s: %s", path, err.msg);
    else
        tui_say(t, "report written: %s (%zu value%s redacted)", path, s->redacted, s->redacted == 1 ? "" : "s");
    free(text);
    story_free(s);
    return PX_RE_STATUS;
}

unsigned tui_write_export(tui *t, const char *path)
{
    px_story *s = path[0] ? story_now_shown(t) : NULL;
    if (!s)
        return PX_RE_STATUS;
    px_bundle_in in = {t->f, t->res, &t->j, s, t->results_files, t->n_results_files};
    px_error err = {0};
    if (bundle_export(&in, path, &err)) {
        char line[1400];
        px_error_format(&err, line, sizeof line);
        tui_say(t, "%s", line);
    } else
        tui_say(t, "exported: %s (%zu value%s redacted)", path, s->redacted, s->redacted == 1 ? "" : "s");
    story_free(s);
    return PX_RE_STATUS;
}
