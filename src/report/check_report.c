#include "parity/check_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/emit.h"
#include "parity/proto.h"
#include "parity/report_kind.h"
#include "parity/story.h"
#include "parity/textcell.h"

enum { ID_COLS = 20 }; /* the example id's column in the text */

/* s[0..len) as a terminal shows it: its controls marked, never sent (a
 * tab "→", an escape "␛": textcell_sanitize, as the review screen does). */
static void put_text_len(FILE *o, const char *s, size_t len)
{
    char *safe = textcell_sanitize(s, len);
    fputs(safe ? safe : "?", o);
    free(safe);
}

static void put_text(FILE *o, const char *s)
{
    put_text_len(o, s ? s : "", s ? strlen(s) : 0);
}

/* "  " and s padded to cols display columns, then a space: the start of
 * an example's line (a wide id is never cut, and CJK keeps the column). */
static void put_id(FILE *o, const char *s)
{
    char *safe = textcell_sanitize(s, strlen(s));
    int w = safe ? textcell_width(safe) : 1;
    fprintf(o, "  %s%*s ", safe ? safe : "?", w < ID_COLS ? ID_COLS - w : 0, "");
    free(safe);
}

/* The environment's role as the fixture gives it; one without a role: key
 * that is the fixture's reference (an environment named reference) is the
 * reference, not a candidate. */
static const char *env_role(const px_fixture *f, const px_env_result *e)
{
    const char *role = f->envs[e->env_index].role;
    return role ? role : (int)e->env_index == fixture_reference(f) ? "reference" : "candidate";
}

static void text_ladder(FILE *o, const px_env_verdict *ev)
{
    fprintf(o, "  ladder:");
    for (int r = 0; r < PX_RUNG_COUNT; r++) {
        const char *mark = ev->rung[r] == PX_RS_PASSED   ? "ok"
                           : ev->rung[r] == PX_RS_FAILED ? "FAILED"
                           : ev->rung[r] == PX_RS_NOT_REACHED ? "not reached"
                                                              : "not measured";
        fprintf(o, "%s %s [%s]", r ? " ->" : "", rung_name((px_rung)r), mark);
    }
    fputc('\n', o);
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        if (ev->rung[r] == PX_RS_FAILED)
            fprintf(o, "  %s failed: %s\n", rung_name((px_rung)r), ev->rung_detail[r]);
        else if (r < PX_RUNG_PERF && ev->rung[r] == PX_RS_NOT_REACHED && ev->rung_detail[r])
            fprintf(o, "  %s not reached: %s\n", rung_name((px_rung)r), ev->rung_detail[r]);
    /* The second question's answer, when a benchmark gave one (parity
     * bench): what was measured, or why its figures do not count. */
    if (ev->rung_detail[PX_RUNG_PERF])
        fprintf(o, "  performance: %s\n", ev->rung_detail[PX_RUNG_PERF]);
}

/* Text that may hold more than one line (a rejection's reason from a
 * results file), with every line after the first under the first, each
 * as a terminal shows it. */
static void text_indented(FILE *o, const char *s)
{
    size_t end = strlen(s);
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    for (size_t i = 0; i <= end;) {
        const char *nl = memchr(s + i, '\n', end - i);
        size_t line = nl ? (size_t)(nl - s) : end;
        put_text_len(o, s + i, line - i);
        if (!nl)
            break;
        fprintf(o, "\n  %-*s   ", ID_COLS, "");
        i = line + 1;
    }
    fputc('\n', o);
}

static void text_counts(FILE *o, const px_env_verdict *ev)
{
    fprintf(o, "  counts:");
    const char *sep = " ";
    for (int k = 0; k < PX_OC_COUNT; k++)
        if (ev->counts[k]) {
            fprintf(o, "%s%d %s", sep, ev->counts[k], outcome_name((px_outcome)k));
            sep = ", ";
        }
    fputc('\n', o);
}

/* How an environment's results came to be judged, in words. */
static const char *env_state(const px_env_verdict *ev)
{
    if (!ev->selected)
        return "not-selected";
    if (ev->absent)
        return "no-results";
    return ev->down ? "down" : "up";
}

/* What changed since the last good configuration, one field a line. */
static void text_since(FILE *o, const px_fixture *f, const px_env_result *er, const px_env_verdict *ev, const px_since *s)
{
    char where[1024], line[1024];
    if (!s || !ev->selected)
        return;
    if (!s->last) {
        if (!ev->met && !ev->absent)
            fprintf(o, "  last good: none recorded (it has not met the contract here before)\n");
        return;
    }
    history_where(s->last, where, sizeof where);
    if (s->regressed)
        fprintf(o, "  REGRESSION: it met the contract before (%s), not now\n", where);
    else if (!s->compared)
        fprintf(o, "  last good: %s; not compared (%s)\n", where, ev->absent ? "no results now" : "down");
    if (!s->compared)
        return;
    if (!s->changed) {
        if (s->regressed)
            fprintf(o, "  the configuration is the same as the last good one\n");
        return;
    }
    px_config now;
    if (history_config_for(f, er, &now))
        return;
    if (s->regressed)
        fprintf(o, "  changed since the last good configuration:\n");
    else
        fprintf(o, "  differs from the last good configuration (%s):\n", where);
    for (int c = 0; c < PX_CF_COUNT; c++)
        if (s->changed & (1u << c)) {
            history_change_text((px_cfg_field)c, &s->last->config, &now, line, sizeof line);
            fprintf(o, "    %s\n", line);
        }
    history_config_clear(&now);
}

/* What the environment is beyond its device and dtype, written after its
 * state: its threads and executor (two that differ only in threads read
 * apart), and its own note as the fixture writes it. */
static void env_identity_lines(FILE *o, const px_fixture *f, const px_env_result *er)
{
    char *id = story_env_identity(f, er);
    fprintf(o, "  environment: %s\n", id ? id : "?");
    free(id);
    const char *note = f->envs[er->env_index].note;
    if (note)
        fprintf(o, "  note: %s\n", note);
}

/* A down environment's reason, once, with how many of its examples it
 * left unjudged; each of them then says only "X down". When a rung of
 * the ladder failed, its line above has said why: not said again.
 * Returns that count (0: not down, or every example judged). */
static size_t text_down(FILE *o, const px_env_result *er, const px_env_verdict *ev, size_t n_examples)
{
    size_t n = 0;
    for (size_t k = 0; ev->down && k < n_examples; k++)
        n += ev->ex[k].outcome == PX_OC_NOT_EVALUATED;
    if (!n)
        return 0;
    int said = 0;
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        said |= ev->rung[r] == PX_RS_FAILED && ev->rung_detail[r] && er->down_msg &&
                strstr(ev->rung_detail[r], er->down_msg);
    fputs("  ", o), put_text(o, er->name);
    fprintf(o, " down at %s (%zu example%s not evaluated)", proto_stage_name(er->down_stage), n, n == 1 ? "" : "s");
    if (!said)
        fputs(": ", o), put_text(o, er->down_msg ? er->down_msg : "no reason recorded");
    fputc('\n', o);
    return n;
}

static const char *origin_name(px_origin o)
{
    return o == PX_ORIGIN_RUN ? "run" : o == PX_ORIGIN_FILE ? "file" : "none";
}

void check_report_text(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since)
{
    const px_report_kind *rk = report_kind_of(f);
    fprintf(o, "%s: %zu examples, %zu environments, reference %s\n", f->path, r->n_examples, r->n_envs,
            r->reference >= 0 ? r->envs[r->reference].name : "(none)");
    for (size_t i = 0; i < r->n_warnings; i++)
        fputs("warning: ", o), text_indented(o, r->warnings[i]);
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env_result *er = &r->envs[e];
        const px_env_verdict *ev = &j->envs[e];
        fprintf(o, "\n%s (%s) %s %s", er->name, env_role(f, er), results_env_device(f, er), results_env_dtype(f, er));
        if (er->origin == PX_ORIGIN_FILE)
            fprintf(o, " from %s", er->source);
        if (!ev->selected) {
            fprintf(o, ": not selected (-e): not judged, not counted\n");
            continue;
        }
        if (ev->absent) {
            fprintf(o, ": NOT EVALUATED: %s\n", er->source ? er->source : "no results");
            env_identity_lines(o, f, er);
            text_ladder(o, ev);
            text_since(o, f, er, ev, since ? &since[e] : NULL);
            continue;
        }
        /* Not judged in full (no reference, examples without results) is
         * not a known failure, and never a pass. */
        fprintf(o, ": %s\n", ev->met ? "meets the contract"
                             : ev->incomplete ? "NOT JUDGED IN FULL: it does not meet the contract"
                                              : "DOES NOT meet the contract");
        env_identity_lines(o, f, er);
        if (ev->not_compared)
            fprintf(o, "  not compared: no reference (%s): its numbers, decisions, earliest divergence and "
                       "causes are not evaluated; its task checks are\n",
                    ev->not_compared);
        text_ladder(o, ev);
        text_since(o, f, er, ev, since ? &since[e] : NULL);
        text_counts(o, ev);
        size_t n_down = text_down(o, er, ev, r->n_examples);
        for (size_t k = 0; k < r->n_examples; k++) {
            const px_verdict *v = &ev->ex[k];
            const px_review *rv = &f->examples[k].review;
            px_fit fit = ev->is_reference ? PX_FIT_NONE
                                          : decision_fit(rv->decision, rv->env, rv->results, er, &er->ex[k],
                                                         f->examples[k].id);
            /* The model and the label map part from the reference for every
             * example alike: the ladder says it once. A decision made on
             * something else is never carried over silently. */
            int show = !outcome_met(v->outcome) || v->outcome == PX_OC_KNOWN_DEFECT || v->div == PX_DIV_DECISION || v->div == PX_DIV_CLEAN ||
                       v->div == PX_DIV_TOKENS;
            /* More the kind has to say (an embedding query's search, always:
             * what it returns is the task). */
            int always = 0;
            char *search = rk->check_words ? rk->check_words(f, r, j, e, k, &always) : NULL;
            show |= always;
            if (!show)
                free(search);
            if (!show && (fit == PX_FIT_NONE || fit == PX_FIT_HERE))
                continue;
            put_id(o, f->examples[k].id);
            fprintf(o, "%s: ", outcome_name(v->outcome));
            if (n_down && v->outcome == PX_OC_NOT_EVALUATED) {
                /* why is said once, above */
                put_text(o, er->name), fputs(" down\n", o);
            } else
                text_indented(o, v->detail ? v->detail : "");
            if (search)
                fprintf(o, "  %-*s %s: ", ID_COLS, "", rk->check_words_label ? rk->check_words_label : "more"),
                    put_text(o, search), fputc('\n', o);
            free(search);
            if (rk->check_lines)
                rk->check_lines(o, f, r, j, e, k, ID_COLS + 3);
            if (fit != PX_FIT_NONE) {
                char *w = decision_words(fit, rv->decision, rv->env, er->name);
                fprintf(o, "  %-*s review: ", ID_COLS, ""), put_text(o, w);
                fputs(" (by ", o), put_text(o, rv->by ? rv->by : "?"), fputs(")\n", o);
                free(w);
            }
            if (v->div != PX_DIV_NONE) {
                fprintf(o, "  %-*s parts from the %s at %s: ", ID_COLS, "", v->div_contract ? "contract" : "reference",
                        div_name(v->div));
                put_text(o, v->div_detail), fputc('\n', o);
            }
            char *cause = judgement_cause_words(j, e, k);
            if (cause)
                fprintf(o, "  %-*s cause: ", ID_COLS, ""), put_text(o, cause), fputc('\n', o);
            free(cause);
        }
    }
    /* An embedding's: what each environment does to the searches. */
    char **lines;
    int tw;
    size_t nl = story_search_lines(f, r, j, &lines, &tw);
    if (nl)
        fprintf(o, "\nsearches:\n");
    for (size_t i = 0; i < nl; i++) {
        fprintf(o, "  - %s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    if (j->n_findings)
        fprintf(o, "\nfindings:\n");
    for (size_t i = 0; i < j->n_findings; i++)
        fputs("  - ", o), put_text(o, j->findings[i]), fputc('\n', o);
    const char *sep = "\nregressions since the last good configuration: ";
    for (size_t e = 0; since && e < r->n_envs; e++)
        if (since[e].regressed) {
            fprintf(o, "%s%s", sep, r->envs[e].name);
            sep = ", ";
        }
    if (sep[0] != '\n')
        fputc('\n', o);
    fprintf(o, "\n%s\n", j->all_met ? "contract met in every selected environment" : "contract NOT met");
}

#define json_key rk_json_key
#define json_str_or_null rk_json_str_or_null

/* The reviewer's decision, and whether it applies to this environment's
 * results as they are (decision_fit). */
static void json_review(FILE *o, const px_fixture *f, const px_results *r, size_t e, size_t k)
{
    const px_review *rv = &f->examples[k].review;
    json_key(o, "review");
    if (!rv->decision) {
        fputs("null", o);
        return;
    }
    fputc('{', o);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) /* every field of the record (PX_REVIEW_RECORD) */
        json_key(o, px_review_keys[i]), json_str_or_null(o, review_field(rv, i)), fputc(',', o);
    const px_env_result *er = &r->envs[e];
    json_key(o, "applies");
    emit_json_string(o, fit_name(decision_fit(rv->decision, rv->env, rv->results, er, &er->ex[k], f->examples[k].id)));
    fputc('}', o);
}

static void json_verdict(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                         const px_verdict *v)
{
    const px_example_result *x = &r->envs[e].ex[k];
    fputc('{', o);
    json_key(o, "id"), emit_json_string(o, f->examples[k].id), fputc(',', o);
    json_key(o, "outcome"), emit_json_string(o, outcome_name(v->outcome)), fputc(',', o);
    json_key(o, "met"), fputs(outcome_met(v->outcome) ? "true," : "false,", o);
    /* Judged by its task checks only: nothing of the reference's to
     * compare it with. */
    json_key(o, "not_compared"), fputs(v->not_compared ? "true," : "false,", o);
    json_key(o, "detail"), json_str_or_null(o, v->detail), fputc(',', o);
    /* What it raised, whole (a TorchScript traceback with it), as the
     * results keep it; detail has its last line. null when it gave an
     * output or was rejected. */
    int failed = x->status != PX_ST_OK && x->status != PX_ST_REJECTED && x->status != PX_ST_PENDING &&
                 x->status != PX_ST_NOT_EVALUATED;
    json_key(o, "error"), json_str_or_null(o, failed ? x->detail : NULL), fputc(',', o);
    json_key(o, "label"), json_str_or_null(o, results_label(&r->envs[e], x)), fputc(',', o);
    const px_report_kind *rk = report_kind_of(f);
    if (rk->check_json_example)
        rk->check_json_example(o, f, r, j, e, k, v);
    json_key(o, "compare");
    if (v->has_cmp) {
        fputc('{', o);
        json_key(o, "stat"), emit_json_string(o, v->stat), fputc(',', o);
        json_key(o, "value"), emit_json_double(o, v->cmp.value), fputc(',', o);
        json_key(o, "threshold"), emit_json_double(o, v->cmp.threshold), fputc(',', o);
        json_key(o, "pass"), fputs(v->cmp.pass ? "true," : "false,", o);
        json_key(o, "smallest_passing_atol"), emit_json_double(o, v->cmp.smallest_atol), fputc(',', o);
        json_key(o, "oracle_ratio");
        if (v->has_oracle)
            emit_json_double(o, v->oracle_ratio);
        else
            fputs("null", o);
        fputc('}', o);
    } else {
        fputs("null", o);
    }
    fputc(',', o);
    json_key(o, "divergence");
    fputc('{', o);
    json_key(o, "stage"), emit_json_string(o, div_name(v->div)), fputc(',', o);
    json_key(o, "against");
    json_str_or_null(o, v->div == PX_DIV_NONE ? NULL : v->div_contract ? "contract" : "reference");
    fputc(',', o);
    json_key(o, "detail"), json_str_or_null(o, v->div_detail);
    fputs("},", o);
    json_key(o, "cause");
    json_str_or_null(o, v->attr == PX_ATTR_NONE ? NULL : attr_name(v->attr));
    fputc(',', o);
    /* The cause in words, with why it is unknown when it is. */
    char *cause = judgement_cause_words(j, e, k);
    json_key(o, "cause_detail"), json_str_or_null(o, cause), fputc(',', o);
    free(cause);
    json_review(o, f, r, e, k);
    fputc('}', o);
}

/* "last_good": null when none is recorded; else where it came from, the
 * configuration, whether the one now is the same (null: none now), what
 * changed, and whether this is a regression. */
static void json_since(FILE *o, const px_fixture *f, const px_env_result *er, const px_since *s)
{
    json_key(o, "last_good");
    if (!s || !s->last) {
        fputs("null", o);
        return;
    }
    const px_history_entry *l = s->last;
    fputc('{', o);
    json_key(o, "host"), json_str_or_null(o, l->host), fputc(',', o);
    json_key(o, "started_at"), json_str_or_null(o, l->started_at), fputc(',', o);
    json_key(o, "results"), json_str_or_null(o, l->results), fputc(',', o);
    json_key(o, "configuration"), fputc('{', o);
    for (int c = 0; c < PX_CF_COUNT; c++) {
        fputs(c ? "," : "", o);
        json_key(o, history_field_key((px_cfg_field)c)), json_str_or_null(o, l->config.v[c]);
    }
    fputs("},", o);
    json_key(o, "same"), fputs(!s->compared ? "null," : s->changed ? "false," : "true,", o);
    json_key(o, "changes"), fputc('[', o);
    px_config now;
    if (s->compared && s->changed && !history_config_for(f, er, &now)) {
        const char *sep = "";
        for (int c = 0; c < PX_CF_COUNT; c++)
            if (s->changed & (1u << c)) {
                fputs(sep, o), sep = ",";
                fputc('{', o);
                json_key(o, "field"), emit_json_string(o, history_field_key((px_cfg_field)c)), fputc(',', o);
                json_key(o, "name"), emit_json_string(o, history_field_name((px_cfg_field)c)), fputc(',', o);
                json_key(o, "last"), json_str_or_null(o, l->config.v[c]), fputc(',', o);
                json_key(o, "now"), json_str_or_null(o, now.v[c]), fputc('}', o);
            }
        history_config_clear(&now);
    }
    fputs("],", o);
    json_key(o, "regressed"), fputs(s->regressed ? "true" : "false", o);
    fputc('}', o);
}

static void json_env(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since,
                     size_t e)
{
    const px_env_verdict *ev = &j->envs[e];
    fputc('{', o);
    json_key(o, "name"), emit_json_string(o, r->envs[e].name), fputc(',', o);
    const px_env_result *er = &r->envs[e];
    json_key(o, "role"), emit_json_string(o, env_role(f, er)), fputc(',', o);
    json_key(o, "state"), emit_json_string(o, env_state(ev)), fputc(',', o);
    json_key(o, "origin"), emit_json_string(o, origin_name(er->origin)), fputc(',', o);
    json_key(o, "source"), json_str_or_null(o, er->source), fputc(',', o);
    json_key(o, "device"), emit_json_string(o, results_env_device(f, er)), fputc(',', o);
    json_key(o, "dtype"), emit_json_string(o, results_env_dtype(f, er)), fputc(',', o);
    int threads = story_env_threads(f, er);
    json_key(o, "threads");
    if (threads > 0)
        fprintf(o, "%d,", threads);
    else
        fputs("null,", o);
    json_key(o, "executor"), json_str_or_null(o, story_env_executor(f, er)), fputc(',', o);
    json_key(o, "note"), json_str_or_null(o, f->envs[er->env_index].note), fputc(',', o);
    json_key(o, "met"), fputs(!ev->selected ? "null," : ev->met ? "true," : "false,", o);
    json_key(o, "cut_short"), json_str_or_null(o, er->cut_short), fputc(',', o);
    /* Judged without a reference result: why (null: compared, or the
     * reference); incomplete: not met only for want of something. */
    json_key(o, "not_compared"), json_str_or_null(o, ev->not_compared), fputc(',', o);
    json_key(o, "incomplete"), fputs(judgement_env_incomplete(ev) ? "true," : "false,", o);
    json_since(o, f, er, since ? &since[e] : NULL);
    fputc(',', o);
    json_key(o, "ladder"), fputc('[', o);
    for (int k = 0; k < PX_RUNG_COUNT; k++) {
        fputs(k ? ",{" : "{", o);
        json_key(o, "rung"), emit_json_string(o, rung_name((px_rung)k)), fputc(',', o);
        json_key(o, "state"), emit_json_string(o, rung_state_name(ev->rung[k])), fputc(',', o);
        json_key(o, "detail"), json_str_or_null(o, ev->rung_detail[k]), fputc('}', o);
    }
    fputs("],", o);
    json_key(o, "counts"), fputc('{', o);
    for (int k = 0; k < PX_OC_COUNT; k++) {
        fputs(k ? "," : "", o);
        json_key(o, outcome_name((px_outcome)k));
        fprintf(o, "%d", ev->counts[k]);
    }
    fputs("},", o);
    json_key(o, "examples"), fputc('[', o);
    for (size_t k = 0; k < r->n_examples; k++) {
        fputs(k ? "," : "", o);
        json_verdict(o, f, r, j, e, k, &ev->ex[k]);
    }
    fputs("]}", o);
}

void check_report_json(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since,
                 int exit_code)
{
    fputc('{', o);
    json_key(o, "parity_check"), fprintf(o, "%d,", PX_CHECK_JSON_VERSION);
    json_key(o, "fixture"), emit_json_string(o, f->path), fputc(',', o);
    json_key(o, "reference"), json_str_or_null(o, r->reference >= 0 ? r->envs[r->reference].name : NULL);
    fputc(',', o);
    json_key(o, "met"), fputs(j->all_met ? "true," : "false,", o);
    json_key(o, "exit"), fprintf(o, "%d,", exit_code);
    json_key(o, "warnings"), fputc('[', o);
    for (size_t i = 0; i < r->n_warnings; i++) {
        fputs(i ? "," : "", o);
        emit_json_string(o, r->warnings[i]);
    }
    fputs("],", o);
    json_key(o, "findings"), fputc('[', o);
    for (size_t i = 0; i < j->n_findings; i++) {
        fputs(i ? "," : "", o);
        emit_json_string(o, j->findings[i]);
    }
    fputs("],", o);
    if (report_kind_of(f)->search_lines) {
        /* An embedding's: what each environment does to the searches. */
        char **lines;
        int tw;
        size_t nl = story_search_lines(f, r, j, &lines, &tw);
        json_key(o, "searches"), fputc('[', o);
        for (size_t i = 0; i < nl; i++) {
            fputs(i ? "," : "", o);
            emit_json_string(o, lines[i]);
            free(lines[i]);
        }
        free(lines);
        fputs("],", o);
    }
    json_key(o, "environments"), fputc('[', o);
    for (size_t e = 0; e < r->n_envs; e++) {
        fputs(e ? "," : "", o);
        json_env(o, f, r, j, since, e);
    }
    fputs("]}\n", o);
}

/* TAP 13: one test per environment and example, then one per environment
 * for its ladder (an environment can fail the contract with every example
 * right: another model revision, say); failed rungs, warnings, findings
 * and the environments left out with -e as diagnostics. */
/* The last good configuration as TAP diagnostics: a regression, and what
 * changed, on one line each. */
static void tap_since(FILE *o, const px_fixture *f, const px_env_result *er, const px_since *s)
{
    char where[1024], line[1024];
    if (!s || !s->last)
        return;
    history_where(s->last, where, sizeof where);
    if (s->regressed)
        fprintf(o, "# %s: REGRESSION: it met the contract before (%s), not now\n", er->name, where);
    px_config now;
    if (!s->compared || !s->changed || history_config_for(f, er, &now))
        return;
    fprintf(o, "# %s: changed since the last good configuration:", er->name);
    const char *sep = " ";
    for (int c = 0; c < PX_CF_COUNT; c++)
        if (s->changed & (1u << c)) {
            history_change_text((px_cfg_field)c, &s->last->config, &now, line, sizeof line);
            fprintf(o, "%s%s", sep, line);
            sep = "; ";
        }
    fputc('\n', o);
    history_config_clear(&now);
}

enum { TAP_REASON_COLS = 200 };

/* A reason on a TAP line: one line, no '#' (which would start a
 * directive), its controls shown, cut between characters. */
static void tap_reason(FILE *o, const char *detail)
{
    char *flat = strdup(detail);
    for (char *c = flat; c && *c; c++)
        if (*c == '\n' || *c == '#')
            *c = ' ';
    char *cut = flat ? textcell_excerpt(flat, strlen(flat), TAP_REASON_COLS) : NULL;
    fputs(cut ? cut : "?", o);
    free(flat), free(cut);
}

void check_report_tap(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since)
{
    size_t selected = 0;
    for (size_t e = 0; e < r->n_envs; e++)
        selected += j->envs[e].selected;
    fprintf(o, "TAP version 13\n1..%zu\n", selected * (r->n_examples + 1));
    for (size_t e = 0; e < r->n_envs; e++)
        if (!j->envs[e].selected)
            fprintf(o, "# %s: not selected (-e): not judged\n", r->envs[e].name);
    for (size_t i = 0; i < r->n_warnings; i++) {
        fputs("# warning: ", o);
        for (const char *c = r->warnings[i]; *c; c++)
            fputc(*c == '\n' ? ' ' : *c, o);
        fputc('\n', o);
    }
    size_t n = 0;
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env_verdict *ev = &j->envs[e];
        if (!ev->selected)
            continue;
        if (ev->absent)
            fprintf(o, "# %s: not evaluated: %s\n", r->envs[e].name, r->envs[e].source ? r->envs[e].source : "");
        if (ev->not_compared)
            fprintf(o, "# %s: not compared: no reference (%s): task checks only\n", r->envs[e].name, ev->not_compared);
        tap_since(o, f, &r->envs[e], since ? &since[e] : NULL);
        for (int k = 0; k < PX_RUNG_COUNT; k++)
            if (ev->rung[k] == PX_RS_FAILED)
                fprintf(o, "# %s: %s failed: %s\n", r->envs[e].name, rung_name((px_rung)k), ev->rung_detail[k]);
        for (size_t k = 0; k < r->n_examples; k++) {
            const px_verdict *v = &ev->ex[k];
            fprintf(o, "%s %zu - %s/%s: %s", outcome_met(v->outcome) ? "ok" : "not ok", ++n, r->envs[e].name,
                    f->examples[k].id, outcome_name(v->outcome));
            if (!outcome_met(v->outcome) && v->detail) {
                /* A directive-free one-line reason: '#' would start one. */
                fputs(" - ", o);
                tap_reason(o, v->detail);
            }
            fputc('\n', o);
        }
        int failed = -1;
        for (int k = 0; k < PX_RUNG_COUNT && failed < 0; k++)
            if (ev->rung[k] == PX_RS_FAILED)
                failed = k;
        fprintf(o, "%s %zu - %s: contract%s%s\n", ev->met ? "ok" : "not ok", ++n, r->envs[e].name,
                ev->met ? "" : " - ", ev->met ? "" : ev->absent ? "not evaluated" : failed >= 0 ? rung_name((px_rung)failed)
                                                    : ev->not_compared ? "not compared: no reference"
                                                    : ev->incomplete   ? "partial: examples not evaluated"
                                                                       : "not met");
    }
    for (size_t i = 0; i < j->n_findings; i++)
        fprintf(o, "# finding: %s\n", j->findings[i]);
}
