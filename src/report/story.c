/* The content model shared by reports and the summary screen. See
 * include/parity/story.h. */
#define _GNU_SOURCE
#include "parity/story.h"
#include "parity/bench.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parity/decision.h"
#include "parity/history.h"
#include "parity/kind.h"
#include "parity/report_kind.h"
#include "parity/redact.h"
#include "parity/sbuf.h"
#include "parity/strf.h"
#include "parity/version.h"

/* The story's inputs and what it is built into (report_kind.h: a kind's
 * parts are built with it too). */
typedef px_story_ctx bctx;
#define fmt rk_fmt
#define dup rk_dup
#define red rk_red

static size_t markers(const char *s)
{
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, PX_REDACTED)); p += strlen(PX_REDACTED))
        n++;
    return n;
}

static void push(bctx *b, px_strs *l, char *s)
{
    if (!s) {
        b->oom = 1;
        return;
    }
    char **v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v) {
        free(s);
        b->oom = 1;
        return;
    }
    l->v = v;
    l->v[l->n++] = s;
}

static void strs_free(px_strs *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static px_story *story_tell(const px_fixture *f, const px_results *r, const px_judgement *j,
                            const px_journal *journal, const px_since *since, px_error *err);

void story_now(char out[32])
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    long long v = e ? strtoll(e, &end, 10) : 0;
    time_t t = e && *e && end && !*end && v >= 0 ? (time_t)v : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int story_env_threads(const px_fixture *f, const px_env_result *er)
{
    if (er->m.threads > 0)
        return er->m.threads;
    const px_env *fe = &f->envs[er->env_index];
    return er->origin != PX_ORIGIN_FILE && fe->threads > 0 ? fe->threads : 0;
}

const char *story_env_executor(const px_fixture *f, const px_env_result *er)
{
    if (er->m.executor)
        return er->m.executor;
    if (er->origin == PX_ORIGIN_FILE || f->envs[er->env_index].results)
        return NULL;
    return f->envs[er->env_index].python ? "python" : "libtorch";
}

char *story_env_identity(const px_fixture *f, const px_env_result *er)
{
    int threads = story_env_threads(f, er);
    const char *ex = story_env_executor(f, er);
    char th[48];
    if (threads > 0)
        snprintf(th, sizeof th, "%d thread%s", threads, threads == 1 ? "" : "s");
    else
        snprintf(th, sizeof th, "threads not recorded");
    char *s = NULL;
    if (asprintf(&s, "%s %s, %s, %s%s", results_env_device(f, er), results_env_dtype(f, er), th,
                 ex ? ex : "executor not recorded", ex ? " executor" : "") < 0)
        return NULL;
    return s;
}

/* What an environment is, in words, from its role, device and dtype: a
 * twin is named by its own dtype and device and is never called the
 * target (nor a TPU: it is not one); its own note is said as written. */
static char *what_env(bctx *b, const px_env_result *er)
{
    const px_env *fe = &b->f->envs[er->env_index];
    const char *dev = results_env_device(b->f, er), *dtype = results_env_dtype(b->f, er);
    const char *role = fe->role ? fe->role : "candidate";
    char *what;
    if ((int)(er - b->r->envs) == b->r->reference)
        what = fmt(b, "reference, not truth: the environment the others are compared with");
    else if (!strcmp(role, "twin") && !strncmp(dev, "cpu", 3))
        what = fmt(b, "CPU %s twin: the target's %s numerics on the CPU, not the target device", dtype, dtype);
    else if (!strcmp(role, "twin"))
        what = fmt(b, "%s %s twin, not the target device", dev, dtype);
    else if (!strcmp(role, "oracle"))
        what = fmt(b, "oracle: the same computation at higher precision (%s), the yardstick for drift", dtype);
    else
        what = fmt(b, "candidate: %s %s", dev, dtype);
    if (!what || !fe->note)
        return what;
    char *note = red(b, fe->note), *s = fmt(b, "%s; note: %s", what, note ? note : "");
    free(note), free(what);
    return s;
}

static char *counts_of(bctx *b, const px_env_verdict *ev)
{
    char buf[1024] = "";
    for (int o = 0; o < PX_OC_COUNT; o++)
        if (ev->counts[o])
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d %s", buf[0] ? ", " : "", ev->counts[o],
                     outcome_name((px_outcome)o));
    return dup(b, buf);
}

static void build_env(bctx *b, size_t e, px_story_env *se)
{
    const px_env_result *er = &b->r->envs[e];
    const px_env_verdict *ev = &b->j->envs[e];
    const px_manifest *m = &er->m;
    se->name = dup(b, er->name);
    se->what = what_env(b, er);
    se->device = dup(b, results_env_device(b->f, er));
    se->device_name = red(b, m->device_name ? m->device_name : "");
    se->dtype = dup(b, results_env_dtype(b->f, er));
    int threads = story_env_threads(b->f, er);
    se->threads = threads > 0 ? fmt(b, "%d", threads) : dup(b, "");
    const char *ex = story_env_executor(b->f, er);
    se->executor = dup(b, ex ? ex : "");
    se->torch = dup(b, m->libtorch_version ? m->libtorch_version : "");
    se->backends = red(b, m->backend_versions   ? m->backend_versions
                          : m->backend_modules ? m->backend_modules
                                               : "");
    se->host = dup(b, m->host ? m->host : "");
    se->date = dup(b, m->started_at);
    px_sbuf set = PX_SBUF_INIT;
    if (m->tf32)
        sbuf_addf(&set, "tf32 %s", m->tf32);
    if (m->matmul_precision)
        sbuf_addf(&set, "%smatmul precision %s", set.len ? ", " : "", m->matmul_precision);
    if (m->ignored)
        sbuf_addf(&set, "%s(ignored by the backend: %s)", set.len ? " " : "", m->ignored);
    /* A compiled path (compile:), named by a results file's manifest too:
     * redacted as any other of its words. */
    if (m->compile_backend)
        sbuf_addf(&set, "%storch.compile %s, mode %s, dynamic %s", set.len ? "; " : "", m->compile_backend,
                  m->compile_mode ? m->compile_mode : "?", m->compile_dynamic ? m->compile_dynamic : "?");
    b->oom |= sbuf_failed(&set);
    se->settings = m->compile_backend ? red(b, sbuf_str(&set)) : dup(b, sbuf_str(&set));
    sbuf_free(&set);
    se->selected = ev->selected;
    se->is_reference = ev->is_reference;
    /* Judged only in part (no reference to compare with, examples without
     * results) with nothing found wrong: not evaluated in full, never a
     * pass nor a failure. */
    se->evaluated = ev->selected && !ev->absent && !ev->down && !ev->incomplete;
    se->met = ev->selected && ev->met;
    if (er->origin == PX_ORIGIN_RUN)
        se->source = dup(b, "run here");
    else if (er->origin == PX_ORIGIN_FILE) {
        char *p = red(b, er->source);
        se->source = fmt(b, "results file %s", p ? p : "");
        free(p);
    } else
        se->source = red(b, er->source ? er->source : "no results");
    if (!ev->selected)
        se->state = dup(b, "not selected (-e): not judged, not counted");
    else if (ev->absent)
        se->state = fmt(b, "not evaluated: no results (%s)", se->source ? se->source : "");
    else if (er->state == PX_ENV_DOWN) {
        char *msg = red(b, er->down_msg);
        se->state = fmt(b, "not evaluated: could not run (%s: %s)", proto_stage_name(er->down_stage),
                        msg ? msg : "down");
        free(msg);
    } else if (ev->incomplete) {
        char *why = red(b, ev->rung_detail[PX_RUNG_CONTRACT]);
        se->state = fmt(b, "not judged in full: %s", why ? why : "");
        free(why);
    } else if (ev->not_compared) {
        char *why = red(b, ev->not_compared);
        se->state = fmt(b, "does NOT meet the contract; not compared: no reference (%s)", why ? why : "");
        free(why);
    } else
        se->state = dup(b, ev->met ? "meets the contract" : "does NOT meet the contract");
    se->counts = counts_of(b, ev);
    for (int r = 0; r < PX_RUNG_COUNT; r++) {
        se->rung[r] = ev->rung[r];
        if (ev->rung[r] == PX_RS_FAILED && ev->rung_detail[r])
            se->rung_detail[r] = red(b, ev->rung_detail[r]);
    }
}

/* softmax, computed stably; NULL unless every value is finite. */
static double *softmax(const double *v, size_t n)
{
    if (!n)
        return NULL;
    double mx = v[0];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return NULL;
        mx = v[i] > mx ? v[i] : mx;
    }
    double *p = malloc(n * sizeof *p), sum = 0;
    if (!p)
        return NULL;
    for (size_t i = 0; i < n; i++)
        sum += p[i] = exp(v[i] - mx);
    for (size_t i = 0; i < n; i++)
        p[i] /= sum;
    return p;
}

static void build_cell(bctx *b, size_t e, size_t k, px_story_cell *c)
{
    const px_env_verdict *ev = &b->j->envs[e];
    const px_env_result *er = &b->r->envs[e];
    if (!ev->selected || ev->absent)
        return;
    const px_verdict *v = &ev->ex[k];
    const px_example_result *x = &er->ex[k];
    c->present = 1;
    c->outcome = v->outcome;
    /* Without a reference, an example's task checks are judged but not
     * the rest: it never "meets the contract". */
    c->not_compared = v->not_compared && outcome_met(v->outcome);
    c->met = outcome_met(v->outcome) && !c->not_compared;
    const char *label = results_label(er, x);
    c->label = label ? dup(b, label) : NULL;
    if (x->status == PX_ST_OK && x->n_values == er->n_labels && x->n_values) {
        c->probs = softmax(x->values, x->n_values);
        c->n_probs = c->probs ? x->n_values : 0;
    }
    c->detail = red(b, v->detail);
    const px_report_kind *rk = report_kind_of(b->f);
    if (rk->story_cell)
        rk->story_cell(b, e, k, c);
    if (v->has_cmp) {
        c->has_diff = 1;
        c->diff = v->cmp.value;
        c->limit = v->cmp.threshold;
        c->diff_words = rk->story_diff(b, v);
    }
    if (v->div != PX_DIV_NONE) {
        char *d = red(b, v->div_detail);
        c->divergence = fmt(b, "parts from the %s at %s%s%s", v->div_contract ? "contract" : "reference",
                            div_name(v->div), d ? ": " : "", d ? d : "");
        free(d);
    }
    if (v->not_compared && !v->has_cmp)
        c->diff_words = dup(b, "not compared: no reference");
    char *cause = judgement_cause_words(b->j, e, k);
    if (cause) {
        c->cause = red(b, cause);
        free(cause);
    }
}

static char *expect_words(bctx *b, const px_expect *x)
{
    px_sbuf w = PX_SBUF_INIT;
    char *const *l = b->f->labels;
    const px_report_kind *rk = report_kind_of(b->f);
    switch (x->kind) {
    case PX_EXPECT_LABEL:
        sbuf_add(&w, l[x->label]);
        break;
    case PX_EXPECT_ANY_OF:
        sbuf_add(&w, "any of ");
        for (size_t i = 0; i < x->n_any_of; i++)
            sbuf_addf(&w, "%s%s", i ? ", " : "", l[x->any_of[i]]);
        break;
    case PX_EXPECT_REJECTED:
        sbuf_addf(&w, "rejected%s%s%s", x->reason.text ? " (reason matching " : "", x->reason.text ? x->reason.text : "",
                  x->reason.text ? ")" : "");
        break;
    default: /* the kind's own: a generator's text, a search's documents */
        if (rk->story_expect)
            rk->story_expect(b->f, x, &w);
        else
            sbuf_add(&w, "(nothing stated)");
    }
    if (x->top_k)
        sbuf_addf(&w, ", in the top %d", x->top_k);
    if (x->must_match.text)
        sbuf_addf(&w, ", label matching /%s/", x->must_match.text);
    if (x->must_not_match.text)
        sbuf_addf(&w, ", label not matching /%s/", x->must_not_match.text);
    b->oom |= sbuf_failed(&w);
    char *t = dup(b, sbuf_str(&w));
    sbuf_free(&w);
    return t;
}

static void build_example(bctx *b, size_t k, px_story_example *se)
{
    const px_example *x = &b->f->examples[k];
    se->id = dup(b, x->id);
    se->kind = dup(b, x->kind);
    se->why = x->why ? dup(b, x->why) : NULL;
    se->text = malloc(x->text_len + 1);
    if (se->text) {
        memcpy(se->text, x->text, x->text_len);
        se->text[x->text_len] = '\0';
    }
    b->oom |= !se->text;
    se->expect = expect_words(b, &x->expect);
    se->cells = calloc(b->r->n_envs ? b->r->n_envs : 1, sizeof *se->cells);
    b->oom |= !se->cells;
    for (size_t e = 0; se->cells && e < b->r->n_envs; e++)
        build_cell(b, e, k, &se->cells[e]);
    const px_review *rv = &x->review;
    se->decision = rv->decision ? dup(b, rv->decision) : NULL;
    se->note = rv->note ? red(b, rv->note) : NULL;
    se->by = rv->by ? red(b, rv->by) : NULL;
    se->at = rv->at ? dup(b, rv->at) : NULL;
    se->proposal = decision_kind(rv->decision) == PX_DEC_FLAG && rv->note && !strcmp(rv->note, PX_PROPOSAL_NOTE);
    se->undecided = !strcmp(x->kind, "ambiguous") &&
                    (!rv->decision || !px_decision_table[decision_kind(rv->decision)].settles);
    /* What the decision covers, beside the first candidate that ran. */
    for (size_t e = 0; rv->decision && !se->proposal && e < b->r->n_envs; e++) {
        const px_env_result *er = &b->r->envs[e];
        if ((int)e == b->r->reference || !b->j->envs[e].selected || b->j->envs[e].absent)
            continue;
        px_fit fit = decision_fit(rv->decision, rv->env, rv->results, er, &er->ex[k], x->id);
        se->decision_words = decision_words(fit, rv->decision, rv->env, er->name);
        break;
    }
}

static void build_contract(bctx *b)
{
    const px_fixture *f = b->f;
    px_story *s = b->s;
    const char *mslash = strrchr(f->model_path, '/'), *mname = mslash ? mslash + 1 : f->model_path;
    /* A model directory (transformers, diffusers) is pinned file by file. */
    if (f->model_sha256)
        push(b, &s->pins, fmt(b, "model %s: sha256 %.12s…", mname, f->model_sha256));
    else if (f->n_model_files)
        push(b, &s->pins, fmt(b, "model %s/: %zu files, each pinned by sha256", mname, f->n_model_files));
    else
        push(b, &s->pins, fmt(b, "model %s: NOT pinned", mname));
    /* An image's pipeline reads no text: it has no vocabulary. */
    if (f->vocab_path) {
        const char *vslash = strrchr(f->vocab_path, '/'), *vname = vslash ? vslash + 1 : f->vocab_path;
        const char *what = f->tokenizer_hf ? "tokenizer" : "vocabulary";
        push(b, &s->pins, f->vocab_sha256 ? fmt(b, "%s %s: sha256 %.12s…", what, vname, f->vocab_sha256)
                                          : fmt(b, "%s %s: NOT pinned", what, vname));
    }
    for (size_t i = 0; i < f->n_rules; i++) {
        const px_clean_rule *r = &f->rules[i];
        push(b, &s->rules, fmt(b, "'%s' → '%s': %s", r->pattern, r->replace, r->why ? r->why : "(no why written)"));
    }
    const px_tolerance *t = &f->logits_tol;
    const char *what = kind_of(f)->values;
    const px_report_kind *rk = report_kind_of(f);
    const char *instead = rk->story_no_tolerance ? rk->story_no_tolerance(f) : NULL;
    if (t->present)
        push(b, &s->tolerances, fmt(b, "%s, every example: %s |Δ| within atol %g + rtol %g × |reference|: %s", what,
                                    t->stat ? t->stat : "elementwise", t->atol, t->rtol,
                                    t->why ? t->why : "(no why written)"));
    else if (instead)
        push(b, &s->tolerances, dup(b, instead));
    else
        push(b, &s->tolerances, fmt(b, "%s: none stated, so any difference from the reference counts", what));
    if (f->similar.present)
        push(b, &s->tolerances, fmt(b, "vectors, every example: cosine to the reference's at least %g: %s",
                                    f->similar.min_cosine, f->similar.why ? f->similar.why : "(no why written)"));
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_tolerance *x = f->examples[k].tol;
        if (x && x->present)
            push(b, &s->tolerances, fmt(b, "%s, example %s: %s |Δ| within atol %g + rtol %g × |reference|: %s",
                                        what, f->examples[k].id, x->stat ? x->stat : "elementwise", x->atol, x->rtol,
                                        x->why ? x->why : "(no why written)"));
        const px_similar *sim = f->examples[k].similar;
        if (sim && sim->present)
            push(b, &s->tolerances, fmt(b, "vectors, example %s: cosine to the reference's at least %g: %s",
                                        f->examples[k].id, sim->min_cosine, sim->why ? sim->why : "(no why written)"));
    }
    s->ambiguous_rule = dup(b, "an ambiguous example counts once a reviewer decided it (accept, defect or "
                               "unsupported); needs-rule and flag leave it open");
    if (rk->story_contract)
        rk->story_contract(b);
}

static const char *const kinds[] = {"normal", "short", "long", "reject", "ambiguous"};

/* The second question on its own page: each environment's benchmarks,
 * side by side, and first what makes figures not comparable. */
static void build_performance(bctx *b)
{
    for (size_t e = 0; e < b->r->n_envs; e++) {
        const px_env_result *er = &b->r->envs[e];
        const px_env_verdict *ev = &b->j->envs[e];
        for (size_t k = 0; k < ev->n_bench; k++) {
            const px_bench_verdict *v = &ev->bench[k];
            char *line = bench_line(&er->bench[k]), name[32];
            bench_endpoint_name(&er->bench[k], name, sizeof name);
            if (v->curve)
                push(b, &b->s->performance,
                     fmt(b, "%s, %s: NOT COMPARABLE, its loss curve %s: %s", er->name, name,
                         ev->is_reference ? "is not finite" : "parts from the reference's", v->curve));
            else if (!v->comparable)
                push(b, &b->s->performance,
                     fmt(b, "%s, %s: NOT COMPARABLE, the benchmark's outputs broke the contract: %s", er->name, name,
                         v->broken));
            if (v->batching)
                push(b, &b->s->performance,
                     fmt(b, "%s, %s: batching changed the numbers: %s", er->name, name, v->batching));
            if (!ev->met)
                push(b, &b->s->performance,
                     fmt(b, "%s, %s: timed, but the contract is not met there: not a result", er->name, name));
            push(b, &b->s->performance, fmt(b, "%s, %s", er->name, line ? line : "?"));
            if (v->curve_note)
                push(b, &b->s->performance, fmt(b, "%s, %s: %s", er->name, name, v->curve_note));
            free(line);
        }
    }
}

/* Each environment against its last good configuration, worded as check
 * words it (check_report.c) and redacted like everything else from a run. */
static void build_last_good(bctx *b, const px_since *since)
{
    for (size_t e = 0; since && e < b->r->n_envs; e++) {
        const px_since *s = &since[e];
        const px_env_verdict *ev = &b->j->envs[e];
        px_story_env *se = &b->s->envs[e];
        if (!ev->selected)
            continue;
        if (!s->last) {
            if (!ev->met && !ev->absent)
                se->last_good = dup(b, "last good: none recorded (it has not met the contract here before)");
            b->s->n_last_good += se->last_good != NULL;
            continue;
        }
        char where[1024], line[1024];
        history_where(s->last, where, sizeof where);
        char *w = red(b, where);
        se->regressed = s->regressed;
        if (s->regressed)
            se->last_good = fmt(b, "REGRESSION: it met the contract before (%s), not now", w ? w : "");
        else if (!s->compared)
            se->last_good = fmt(b, "last good: %s; not compared (%s)", w ? w : "", ev->absent ? "no results now" : "down");
        else if (!s->changed)
            se->last_good = fmt(b, "last good: the same configuration (%s)", w ? w : "");
        else
            se->last_good = fmt(b, "differs from the last good configuration (%s)", w ? w : "");
        free(w);
        b->s->n_last_good += se->last_good != NULL;
        px_config now;
        if (!s->compared || !s->changed)
            continue;
        if (history_config_for(b->f, &b->r->envs[e], &now)) {
            b->oom = 1;
            continue;
        }
        for (int c = 0; c < PX_CF_COUNT; c++)
            if (s->changed & (1u << c)) {
                history_change_text((px_cfg_field)c, &s->last->config, &now, line, sizeof line);
                push(b, &se->changed, red(b, line));
            }
        history_config_clear(&now);
    }
}

static void build_not_evaluated(bctx *b)
{
    px_story *s = b->s;
    int perf_everywhere = 1, any_selected = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        const px_env_verdict *ev = &b->j->envs[e];
        if (!se->selected) {
            push(b, &s->not_evaluated, fmt(b, "%s: not selected (-e)", se->name));
            continue;
        }
        any_selected = 1;
        if (se->evaluated && ev->not_compared) {
            char *why = red(b, ev->not_compared);
            push(b, &s->not_evaluated, fmt(b, "%s: not compared: no reference (%s)", se->name, why ? why : ""));
            free(why);
        }
        if (!se->evaluated) {
            push(b, &s->not_evaluated, fmt(b, "%s: %s", se->name, se->state));
            perf_everywhere = 0;
            continue;
        }
        char reached[256] = "";
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            if (ev->rung[r] == PX_RS_NOT_REACHED)
                snprintf(reached + strlen(reached), sizeof reached - strlen(reached), "%s%s",
                         reached[0] ? ", " : "", rung_name((px_rung)r));
        if (reached[0])
            push(b, &s->not_evaluated, fmt(b, "%s: not reached: %s", se->name, reached));
        perf_everywhere &= ev->rung[PX_RUNG_PERF] == PX_RS_NOT_MEASURED;
        for (size_t k = 0; k < s->n_examples; k++) {
            const px_story_cell *c = &s->examples[k].cells[e];
            if (c->present && c->outcome == PX_OC_NOT_EVALUATED)
                push(b, &s->not_evaluated, fmt(b, "%s: example %s not evaluated (%s)", se->name,
                                               s->examples[k].id, c->detail ? c->detail : "no result"));
        }
    }
    if (any_selected && perf_everywhere)
        push(b, &s->not_evaluated, dup(b, "performance: not measured in any environment (correctness only)"));
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        int seen = 0;
        for (size_t k = 0; k < b->f->n_examples; k++)
            seen |= !strcmp(b->f->examples[k].kind, kinds[i]);
        if (!seen)
            push(b, &s->not_evaluated, fmt(b, "no example of kind '%s' in the fixture", kinds[i]));
    }
    for (size_t k = 0; k < s->n_examples; k++) {
        const px_story_example *x = &s->examples[k];
        if (x->undecided)
            push(b, &s->not_evaluated,
                 fmt(b, "ambiguous example %s is undecided (%s)", x->id, x->decision ? x->decision : "no decision"));
        if (x->proposal)
            push(b, &s->not_evaluated,
                 fmt(b, "example %s: its expectation is the reference run's proposal, not yet confirmed", x->id));
    }
}

static void build_pending(bctx *b, const px_journal *jn)
{
    for (size_t i = 0; jn && i < jn->n; i++) {
        const px_decision *d = &jn->d[i];
        const px_review *rv = &d->review;
        char *note = red(b, rv->note), *by = red(b, rv->by);
        char *line = fmt(b, "%s: %s%s%s%s%s%s%s", d->id, rv->decision ? rv->decision : "?", by ? " by " : "",
                         by ? by : "", rv->at ? " at " : "", rv->at ? rv->at : "", note ? ": " : "", note ? note : "");
        free(note), free(by);
        push(b, &b->s->pending, line);
        for (size_t k = 0; line && k < b->s->n_examples; k++)
            if (!strcmp(b->s->examples[k].id, d->id)) {
                free(b->s->examples[k].pending);
                b->s->examples[k].pending = dup(b, line + strlen(d->id) + 2);
            }
    }
}

size_t story_search_lines(const px_fixture *f, const px_results *r, const px_judgement *j, char ***out, int *twin_at)
{
    const px_report_kind *rk = report_kind_of(f);
    *out = NULL, *twin_at = -1;
    return rk->search_lines ? rk->search_lines(f, r, j, out, twin_at) : 0;
}

static void build_searches(bctx *b)
{
    char **lines;
    int tw;
    size_t n = story_search_lines(b->f, b->r, b->j, &lines, &tw);
    for (size_t i = 0; i < n; i++) {
        push(b, &b->s->searches, red(b, lines[i]));
        if ((int)i == tw && b->s->searches.n)
            b->twin_search = b->s->searches.v[b->s->searches.n - 1];
        free(lines[i]);
    }
    free(lines);
}

static char *verdict_words(bctx *b, size_t sel, size_t met, size_t down, size_t partial, const char *failing);

static char *verdict_line(bctx *b)
{
    size_t sel = 0, met = 0, down = 0, partial = 0;
    px_sbuf failing = PX_SBUF_INIT;
    for (size_t e = 0; e < b->s->n_envs; e++) {
        const px_story_env *se = &b->s->envs[e];
        if (!se->selected)
            continue;
        sel++;
        if (!se->evaluated)
            down++, partial += b->j->envs[e].incomplete;
        else if (se->met)
            met++;
        else
            sbuf_addf(&failing, "%s%s", failing.len ? ", " : "", se->name);
    }
    b->s->met = b->j->all_met && !down ? 1 : failing.len ? 0 : -1;
    /* An embedding's: what the twin does to the searches, after. */
    b->oom |= sbuf_failed(&failing);
    char *line = verdict_words(b, sel, met, down, partial, sbuf_str(&failing));
    sbuf_free(&failing);
    if (!line || !b->twin_search)
        return line;
    char *both = fmt(b, "%s %s.", line, b->twin_search);
    free(line);
    return both;
}

static char *verdict_words(bctx *b, size_t sel, size_t met, size_t down, size_t partial, const char *failing)
{
    if (b->j->all_met && !down)
        return fmt(b, "The contract is met in every selected environment (%zu of %zu).", met, sel);
    if (failing[0])
        return fmt(b, "The contract is NOT met: %s %s not meet it%s.", failing, strchr(failing, ',') ? "do" : "does",
                   down ? "; some environments were not evaluated" : "");
    return fmt(b, "Not judged in full: %zu of %zu selected environments were not evaluated%s.", down, sel,
               partial ? " in full (no reference to compare with, or examples without results)" : "");
}

px_story *story_build(const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since,
                      const px_error *history_err, px_error *err)
{
    /* The decisions waiting in the fixture's journal; an unreadable one
     * reads as none (the fixture stands; the review screen says why). */
    char path[4200];
    journal_path(f->path, path, sizeof path);
    px_journal jn = {0};
    px_error ignored = {0};
    if (journal_read(path, &jn, &ignored))
        memset(&jn, 0, sizeof jn);
    px_story *s = story_tell(f, r, j, &jn, since, err);
    if (s && history_err && history_err->code) {
        bctx b = {f, r, j, fixture_redactor(f, &ignored), s, 0, NULL};
        char m[2048];
        px_error_format(history_err, m, sizeof m);
        char *rm = b.rd ? red(&b, m) : NULL;
        if (rm)
            push(&b, &s->warnings, fmt(&b, "the last good configurations are not shown: %s", rm));
        free(rm);
        s->redacted += b.rd ? redact_count(b.rd) : 0;
        redact_free(b.rd);
    }
    journal_free(&jn);
    return s;
}

static px_story *story_tell(const px_fixture *f, const px_results *r, const px_judgement *j,
                            const px_journal *journal, const px_since *since, px_error *err)
{
    bctx b = {f, r, j, NULL, calloc(1, sizeof(px_story)), 0, NULL};
    if (!b.s)
        return px_error_oom(err, f->path), NULL;
    if (!(b.rd = fixture_redactor(f, err))) {
        free(b.s);
        return NULL;
    }
    px_story *s = b.s;
    s->model_kind = f->kind;
    s->task = dup(&b, f->task);
    s->fixture = red(&b, f->path);
    s->fixture_sha256 = dup(&b, f->sha256);
    char now[32];
    story_now(now);
    s->generated = fmt(&b, "parity %s, %s", PX_VERSION, now);
    s->labels = f->labels;
    s->n_labels = f->n_labels;
    s->reference = r->reference;
    s->n_envs = r->n_envs;
    s->envs = calloc(r->n_envs ? r->n_envs : 1, sizeof *s->envs);
    s->n_examples = f->n_examples;
    s->examples = calloc(f->n_examples ? f->n_examples : 1, sizeof *s->examples);
    if (!s->envs || !s->examples) {
        b.oom = 1;
        s->n_envs = s->n_examples = 0;
    }
    size_t already = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_env_result *er = &r->envs[e];
        already += markers(er->down_msg);
        for (size_t k = 0; k < r->n_examples; k++)
            already += markers(er->ex[k].detail) + markers(er->ex[k].stderr_tail);
        build_env(&b, e, &s->envs[e]);
    }
    build_last_good(&b, since);
    for (size_t k = 0; k < s->n_examples; k++)
        build_example(&b, k, &s->examples[k]);
    build_contract(&b);
    build_not_evaluated(&b);
    build_performance(&b);
    build_pending(&b, journal);
    for (size_t i = 0; i < r->n_warnings; i++)
        push(&b, &s->warnings, red(&b, r->warnings[i]));
    build_searches(&b);
    s->verdict = verdict_line(&b);
    s->redacted = already + redact_count(b.rd);
    redact_free(b.rd);
    if (b.oom) {
        story_free(s);
        px_error_oom(err, f->path);
        return NULL;
    }
    return s;
}

int story_outcome_shown(const px_story *s, px_outcome o)
{
    for (size_t k = 0; k < s->n_examples; k++)
        for (size_t e = 0; s->examples[k].cells && e < s->n_envs; e++)
            if (s->examples[k].cells[e].present && s->examples[k].cells[e].outcome == o)
                return 1;
    return 0;
}

void story_free(px_story *s)
{
    if (!s)
        return;
    for (size_t e = 0; e < s->n_envs; e++) {
        px_story_env *se = &s->envs[e];
        char *v[] = {se->name,     se->what, se->device, se->device_name, se->dtype,  se->executor, se->torch,
                     se->backends, se->host, se->date,   se->settings,    se->source, se->state,    se->counts,
                     se->threads};
        for (size_t i = 0; i < sizeof v / sizeof *v; i++)
            free(v[i]);
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            free(se->rung_detail[r]);
        free(se->last_good);
        strs_free(&se->changed);
    }
    free(s->envs);
    for (size_t k = 0; k < s->n_examples; k++) {
        px_story_example *x = &s->examples[k];
        for (size_t e = 0; x->cells && e < s->n_envs; e++) {
            px_story_cell *c = &x->cells[e];
            free(c->label), free(c->probs), free(c->detail), free(c->diff_words), free(c->divergence), free(c->cause);
            free(c->generated), free(c->search);
            if (c->image)
                image8_free(c->image), free(c->image);
            free(c->train);
        }
        free(x->cells);
        char *v[] = {x->id, x->kind, x->why, x->text, x->expect, x->decision, x->note, x->by, x->at,
                     x->decision_words, x->pending};
        for (size_t i = 0; i < sizeof v / sizeof *v; i++)
            free(v[i]);
    }
    free(s->examples);
    strs_free(&s->pins), strs_free(&s->rules), strs_free(&s->tolerances), strs_free(&s->not_evaluated);
    strs_free(&s->performance), strs_free(&s->searches);
    strs_free(&s->pending), strs_free(&s->warnings);
    free(s->task), free(s->verdict), free(s->fixture), free(s->fixture_sha256), free(s->generated);
    free(s->ambiguous_rule), free(s->generate), free(s->embedding), free(s->image), free(s->train);
    free(s);
}
