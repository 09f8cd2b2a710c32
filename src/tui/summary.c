/* The summary screen (demo's first screen, and i in the review): the story
 * (include/parity/story.h) the reports tell, so the screen and a report
 * never say different things: the task, the verdict, each environment for
 * what it is, the conditions with their whys, the decisions taken, what was
 * not evaluated, what waits in the journal. Wrapped to the screen's width,
 * never cut; it scrolls when it does not fit. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/sbuf.h"
#include "parity/story.h"
#include "parity/textcell.h"
#include "summary.h"
#include "pager.h"
#include "paint.h"
#include "pane.h"

typedef struct para {
    char *text;
    int el, indent;
} para;

typedef struct paras {
    para *v;
    size_t n;
} paras;

static void add(paras *p, int el, int indent, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(paras *p, int el, int indent, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    para *v = n < 0 ? NULL : realloc(p->v, (p->n + 1) * sizeof *v);
    if (!v) {
        free(n < 0 ? NULL : s);
        return;
    }
    p->v = v;
    p->v[p->n++] = (para){s, el, indent};
}

static int state_el(const px_story_env *e)
{
    return !e->selected || !e->evaluated ? PX_EL_NOT_EVALUATED : e->met ? PX_EL_PASS : PX_EL_FAIL;
}

/* An environment against its last good configuration (the story's
 * words): nothing when there is nothing to say. */
static void tell_last_good(paras *p, const px_story_env *v)
{
    if (!v->last_good)
        return;
    px_sbuf list = PX_SBUF_INIT;
    for (size_t i = 0; i < v->changed.n; i++)
        sbuf_addf(&list, "%s%s", i ? "; " : ": ", v->changed.v[i]);
    add(p, v->regressed ? PX_EL_FAIL : v->changed.n ? PX_EL_CHANGED : PX_EL_DIM, 4, "%s%s", v->last_good,
        sbuf_str(&list));
    sbuf_free(&list);
}

/* What the kind's pane says of environment e here (an embedding's
 * searches); nothing for most kinds. */
static void tell_kind(paras *p, const tui *t, size_t e)
{
    const tui_pane *pane = tui_pane_of(t);
    int el = PX_EL_DIM;
    char *s = pane->summary ? pane->summary(t, e, &el) : NULL;
    if (s)
        add(p, el, 4, "%s", s);
    free(s);
}

/* An environment for what it is: where it ran, its state, its ladder,
 * what failed and against its last good configuration. */
static void tell_env(paras *p, const px_story *s, size_t e, const tui *t)
{
    const px_story_env *v = &s->envs[e];
    add(p, e == (size_t)s->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE, 2, "%s: %s", v->name, v->what);
    add(p, PX_EL_DIM, 4, "%s%s%s%s %s, %s%s, %s, torch %s%s%s; %s, %s", v->device, *v->device_name ? " (" : "",
        v->device_name, *v->device_name ? ")" : "", v->dtype, *v->threads ? v->threads : "threads not recorded",
        !*v->threads ? "" : strcmp(v->threads, "1") ? " threads" : " thread",
        *v->executor ? v->executor : "executor not recorded", *v->torch ? v->torch : "not recorded",
        *v->backends ? ", " : "", v->backends, *v->host ? v->host : "host not recorded",
        *v->date ? v->date : "time not recorded");
    if (*v->settings)
        add(p, PX_EL_DIM, 4, "%s", v->settings);
    add(p, state_el(v), 4, "%s %s%s%s", !v->selected || !v->evaluated ? "–" : v->met ? "✓" : "✗", v->state,
        *v->counts ? ": " : "", v->counts);
    tell_kind(p, t, e);
    /* as the header writes it: + passed, X failed, - not reached or
     * not measured */
    static const char *const mark[] = {"+", "X", "-", "-"};
    static const char *const rung[PX_RUNG_COUNT] = {"device", "model", "input", "forward", "contract", "perf"};
    if (v->selected) {
        char ladder[128] = ""; /* six rungs' words, bounded */
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            snprintf(ladder + strlen(ladder), sizeof ladder - strlen(ladder), "%s%s%s", r ? " " : "",
                     mark[v->rung[r]], rung[r]);
        add(p, PX_EL_DIM, 4, "ladder: %s%s", ladder,
            v->rung[PX_RUNG_PERF] == PX_RS_NOT_MEASURED ? " (performance not measured)" : "");
    }
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        if (v->rung_detail[r])
            add(p, PX_EL_FAIL, 4, "%s failed: %s", rung_name((px_rung)r), v->rung_detail[r]);
    tell_last_good(p, v);
}

/* The story as paragraphs, in the report's order. */
static void tell(paras *p, const px_story *s, const tui *t)
{
    add(p, PX_EL_TITLE, 0, "Task: %s", s->task);
    add(p, s->met > 0 ? PX_EL_PASS : s->met == 0 ? PX_EL_FAIL : PX_EL_NOT_EVALUATED, 0, "%s %s",
        s->met > 0 ? "✓" : s->met == 0 ? "✗" : "–", s->verdict);
    add(p, PX_EL_NORMAL, 0, "%s", "");
    add(p, PX_EL_TITLE, 0, "Environments");
    for (size_t e = 0; e < s->n_envs; e++)
        tell_env(p, s, e, t);
    add(p, PX_EL_NORMAL, 0, "%s", "");
    add(p, PX_EL_TITLE, 0, "Conditions");
    if (s->generate)
        add(p, PX_EL_NORMAL, 2, "output: %s", s->generate);
    for (size_t i = 0; i < s->pins.n; i++)
        add(p, PX_EL_NORMAL, 2, "pinned: %s", s->pins.v[i]);
    for (size_t i = 0; i < s->rules.n; i++)
        add(p, PX_EL_NORMAL, 2, "cleaning: %s", s->rules.v[i]);
    for (size_t i = 0; i < s->tolerances.n; i++)
        add(p, PX_EL_NORMAL, 2, "tolerance: %s", s->tolerances.v[i]);
    add(p, PX_EL_NORMAL, 2, "ambiguous: %s", s->ambiguous_rule);
    int decided = 0;
    for (size_t k = 0; k < s->n_examples; k++)
        decided |= s->examples[k].decision != NULL;
    if (decided) {
        add(p, PX_EL_NORMAL, 0, "%s", "");
        add(p, PX_EL_TITLE, 0, "Decisions taken");
        for (size_t k = 0; k < s->n_examples; k++) {
            const px_story_example *x = &s->examples[k];
            if (!x->decision)
                continue;
            add(p, PX_EL_DECISION, 2, "%s: %s%s%s%s%s%s%s", x->id, x->proposal ? "a proposal to confirm" : x->decision,
                x->by ? " by " : "", x->by ? x->by : "", x->at ? " at " : "", x->at ? x->at : "",
                x->decision_words ? "; " : "", x->decision_words ? x->decision_words : "");
            if (x->note && !x->proposal)
                add(p, PX_EL_DIM, 4, "note: %s", x->note);
        }
    }
    add(p, PX_EL_NORMAL, 0, "%s", "");
    add(p, PX_EL_TITLE, 0, "Not evaluated");
    if (!s->not_evaluated.n)
        add(p, PX_EL_DIM, 2, "everything the contract names was evaluated");
    for (size_t i = 0; i < s->not_evaluated.n; i++)
        add(p, PX_EL_NOT_EVALUATED, 2, "- %s", s->not_evaluated.v[i]);
    if (s->pending.n) {
        add(p, PX_EL_NORMAL, 0, "%s", "");
        add(p, PX_EL_TITLE, 0, "Decisions waiting in the journal (not yet in the fixture)");
        for (size_t i = 0; i < s->pending.n; i++)
            add(p, PX_EL_FLAG, 2, "- %s", s->pending.v[i]);
    }
    for (size_t i = 0; i < s->warnings.n; i++)
        add(p, PX_EL_CHANGED, 0, "warning: %s", s->warnings.v[i]);
    if (s->redacted)
        add(p, PX_EL_DIM, 0, "%zu value%s redacted", s->redacted, s->redacted == 1 ? "" : "s");
}

/* While the environments still run: who they are, and that the rest waits. */
static void tell_running(paras *p, const tui *t)
{
    add(p, PX_EL_TITLE, 0, "Task: %s", t->f->task);
    add(p, PX_EL_RUNNING, 0, "running… the verdict and the rest follow when the results are in");
    add(p, PX_EL_NORMAL, 0, "%s", "");
    for (size_t e = 0; e < t->res->n_envs; e++) {
        char *id = story_env_identity(t->f, &t->res->envs[e]);
        add(p, PX_EL_DIM, 2, "%s: %s", t->res->envs[e].name, id ? id : "?");
        free(id);
    }
}

typedef struct row {
    const char *s;
    size_t len;
    int el, indent;
} row;

/* Every paragraph wrapped to cols: the rows (pointing into p). */
static row *lay_out(const paras *p, int cols, size_t *n_rows)
{
    size_t n = 0, cap = 64;
    row *rows = malloc(cap * sizeof *rows);
    for (size_t i = 0; rows && i < p->n; i++) {
        const char *s = p->v[i].text;
        int w = cols - p->v[i].indent;
        int lines = textcell_wrap(s, w > 8 ? w : 8, NULL, 0);
        size_t *starts = malloc((size_t)(lines > 0 ? lines : 1) * sizeof *starts);
        if (!starts)
            break;
        textcell_wrap(s, w > 8 ? w : 8, starts, (size_t)lines);
        for (int l = 0; l < lines; l++) {
            if (n == cap) {
                row *r = realloc(rows, (cap *= 2) * sizeof *rows);
                if (!r)
                    break;
                rows = r;
            }
            size_t end = l + 1 < lines ? starts[l + 1] : strlen(s);
            /* a continued line is indented two more, so it reads as one */
            rows[n++] = (row){s + starts[l], end - starts[l], p->v[i].el, p->v[i].indent + (l ? 2 : 0)};
        }
        free(starts);
    }
    *n_rows = n;
    return rows;
}

px_story *tui_story(tui *t, px_error *err)
{
    if (!t->judged || (t->run && !runner_done(t->run))) {
        px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "still running: wait for the results");
        return NULL;
    }
    return story_build(t->f, t->res, &t->j, t->since, &t->cs.history_err, err);
}

void tui_draw_summary(tui *t)
{
    paras p = {0};
    px_error err = {0};
    px_story *s = tui_story(t, &err);
    if (s)
        tell(&p, s, t);
    else
        tell_running(&p, t);
    /* Sanitized once; wrapping counts what the screen will show. */
    for (size_t i = 0; i < p.n; i++) {
        char *safe = textcell_sanitize(p.v[i].text, strlen(p.v[i].text));
        if (safe) {
            free(p.v[i].text);
            p.v[i].text = safe;
        }
    }
    size_t n = 0, body = pager_body();
    int cols = COLS - 2;
    row *rows = lay_out(&p, cols - 2, &n);
    pager_fit(&t->summary, n);
    char key[16], up[16], down[16], *head = NULL;
    if (asprintf(&head, " parity: what this fixture shows  (%s/%s scroll, %s: the examples)",
                 key_first(PX_ACT_DOWN, down, sizeof down), key_first(PX_ACT_UP, up, sizeof up),
                 t->demo ? "Space" : key_first(PX_ACT_DETAILS, key, sizeof key)) < 0)
        head = NULL;
    pager_head(t, &t->summary, head);
    free(head);
    for (size_t y = 0; y < body && t->summary.top + y < n; y++) {
        const row *r = &rows[t->summary.top + y];
        char *line = strndup(r->s, r->len);
        /* the spaces a break leaves at a line's end are not drawn */
        size_t l = line ? strlen(line) : 0;
        while (l && line[l - 1] == ' ')
            line[--l] = '\0';
        tui_put(t, (int)y + 2, 1 + r->indent, cols - r->indent, r->el, line ? line : "");
        free(line);
    }
    free(rows);
    for (size_t i = 0; i < p.n; i++)
        free(p.v[i].text);
    free(p.v);
    story_free(s);
}
