/* The engine (judge.h): each environment's examples judged (its status,
 * then its kind's judgement, judge_kind.h), their earliest divergence, the
 * ladder, then the twin's cause once every ladder is known. The concepts
 * are each a file of src/judge/: verdict.c (the words), pattern.c,
 * numbers.c, diverge.c, ladder.c, attribute.c, fit.c, and one file a kind
 * (judge_classifier.c, judge_generator.c, judge_embed.c, judge_image.c;
 * judge_kind.c their table). A kind's own part of a verdict (v->text,
 * v->embed, v->image) is made and freed by its row's verdict_init and
 * verdict_free: the engine names none of them. */
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/decision.h"
#include "parity/judge.h"
#include "parity/sbuf.h"
#include "parity/strf.h"

const px_example_result *judge_result_at(const jctx *j, int e, size_t k)
{
    return e >= 0 ? &j->r->envs[e].ex[k] : NULL;
}

int judge_recorded(const px_example_result *x)
{
    return x->status != PX_ST_PENDING && x->status != PX_ST_NOT_EVALUATED;
}

/* TorchScript prefixes the error with its interpreter traceback; the last
 * line is the error itself. The results keep the whole text. */
char *judge_last_line(const char *s)
{
    size_t end = strlen(s);
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == ' ' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start > 0 && s[start - 1] != '\n')
        start--;
    return strf("%.*s", (int)(end - start), s + start);
}

/* An example that gave no output (raised, crashed, timed out, a bad
 * shape) in both a and b, with the same status and the same last line of
 * its error: one failure, told once. */
int judge_failed_alike(const px_example_result *a, const px_example_result *b)
{
    if (!a || !b || a->status != b->status || a->status == PX_ST_OK || a->status == PX_ST_REJECTED ||
        a->status == PX_ST_PENDING || a->status == PX_ST_NOT_EVALUATED)
        return 0;
    char *la = judge_last_line(a->detail ? a->detail : ""), *lb = judge_last_line(b->detail ? b->detail : "");
    int same = la && lb && !strcmp(la, lb);
    free(la), free(lb);
    return same;
}

char *judge_shape_words(const px_example_result *x)
{
    if (!x->dtype) /* why is its verdict's (the error's last line): not repeated */
        return strf("none (%s)", status_name(x->status));
    px_sbuf b = PX_SBUF_INIT;
    sbuf_add(&b, "[");
    for (int i = 0; i < x->ndim; i++)
        sbuf_addf(&b, "%s%lld", i ? "," : "", (long long)x->shape[i]);
    sbuf_add(&b, "]");
    return sbuf_take(&b);
}

static px_outcome from_status(px_status s)
{
    switch (s) {
    case PX_ST_EXCEPTION: return PX_OC_EXCEPTION;
    case PX_ST_UNSUPPORTED: return PX_OC_UNSUPPORTED;
    case PX_ST_CRASH: return PX_OC_CRASH;
    case PX_ST_TIMEOUT: return PX_OC_TIMEOUT;
    case PX_ST_BAD_SHAPE: return PX_OC_BAD_SHAPE;
    case PX_ST_EMPTY: return PX_OC_EMPTY;
    default: return PX_OC_NOT_EVALUATED;
    }
}

/* An example that gave no output to judge: not evaluated, rejected (as the
 * contract wants or not), or failed. 1 with v's outcome and detail set, 0
 * when it ran (status ok), -1 with j->err when the reason's pattern cannot
 * be matched. */
static int judge_status(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_example *ex = &j->f->examples[k];
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    int want_reject = ex->expect.kind == PX_EXPECT_REJECTED;
    if (!er->selected || er->origin == PX_ORIGIN_NONE) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("%s", !er->selected ? "not selected (-e)" : er->source ? er->source : "no results");
        return 1;
    }
    if (x->status == PX_ST_NOT_EVALUATED || x->status == PX_ST_PENDING) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("%s", x->detail ? x->detail : "not run");
        return 1;
    }
    if (x->status == PX_ST_REJECTED) {
        v->outcome = want_reject ? PX_OC_REJECTED_OK : PX_OC_WRONGLY_REJECTED;
        if (want_reject && ex->expect.reason.text) {
            int m = pattern_match(j->f, &ex->expect.reason, x->detail ? x->detail : "", j->err);
            if (m < 0)
                return -1;
            if (!m)
                v->outcome = PX_OC_WRONGLY_REJECTED;
        }
        v->detail = strf("%s", x->detail ? x->detail : "rejected");
        return 1;
    }
    if (x->status != PX_ST_OK) {
        v->outcome = from_status(x->status);
        char *last = judge_last_line(x->detail ? x->detail : outcome_name(v->outcome));
        /* The reference failed the same way: one failure, said once. */
        if (last && (int)e != j->ref && judge_failed_alike(x, judge_result_at(j, j->ref, k))) {
            int raised = x->status == PX_ST_EXCEPTION || x->status == PX_ST_UNSUPPORTED;
            v->detail = strf("%s: %s", raised ? "both raised" : "the reference too", last);
            free(last);
        } else {
            v->detail = last;
        }
        return 1;
    }
    return 0;
}

/* Its status first (what gave no output is judged alike for every kind),
 * then its kind's judgement. */
static int judge_example(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    int st = judge_status(j, e, k, v);
    if (st)
        return st < 0 ? -1 : 0;
    return j->kind->judge(j, e, k, v);
}

/* A reviewer's `defect`: the model is wrong on the example, and the
 * fixture keeps it so. Where this environment answers it as the reference
 * does (the reference itself; a candidate whose answer parts from the
 * reference's at no stage), the error is the model's, not the move's: a
 * known defect, which meets the contract. A candidate that parts from the
 * reference keeps its own outcome: what the model gets wrong has changed.
 * Only an answer is covered (it ran, or was rejected): what raised,
 * crashed or timed out fails "forward ran" whatever was decided. */
static int known_defect(const jctx *j, size_t e, size_t k, const px_verdict *v)
{
    const px_example_result *x = &j->r->envs[e].ex[k], *rx = judge_result_at(j, j->ref, k);
    if (decision_kind(j->f->examples[k].review.decision) != PX_DEC_DEFECT || outcome_met(v->outcome) ||
        v->outcome == PX_OC_NOT_EVALUATED || v->not_compared || !rx ||
        (x->status != PX_ST_OK && x->status != PX_ST_REJECTED))
        return 0;
    return (int)e == j->ref || (v->div == PX_DIV_NONE && judge_recorded(rx));
}

/* v becomes a known defect; its detail keeps the outcome it stands for. */
static int mark_known_defect(const jctx *j, size_t e, px_verdict *v)
{
    char *d = strf("%s%s: %s", outcome_name(v->outcome), (int)e == j->ref ? "" : ", as in the reference",
                   v->detail ? v->detail : "");
    if (!d)
        return -1;
    free(v->detail);
    v->detail = d;
    v->outcome = PX_OC_KNOWN_DEFECT;
    return 0;
}

static int find_role(const px_fixture *f, const px_results *r, const char *role, int any)
{
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env *fe = &f->envs[r->envs[e].env_index];
        if (fe->role && !strcmp(fe->role, role) &&
            (any || (r->envs[e].state == PX_ENV_UP && r->envs[e].selected && r->envs[e].origin != PX_ORIGIN_NONE)))
            return (int)e;
    }
    return -1;
}

static void add_finding(px_judgement *out, char *s)
{
    char **v = realloc(out->findings, (out->n_findings + 1) * sizeof *v);
    if (!v) {
        free(s);
        return;
    }
    out->findings = v;
    out->findings[out->n_findings++] = s;
}

static int judge_env(const jctx *j, size_t e, px_judgement *out)
{
    px_env_verdict *ev = &out->envs[e];
    const px_env_result *er = &j->r->envs[e];
    ev->ex = calloc(j->r->n_examples ? j->r->n_examples : 1, sizeof *ev->ex);
    ev->is_reference = (int)e == j->ref;
    ev->selected = er->selected;
    ev->absent = er->selected && er->origin == PX_ORIGIN_NONE;
    ev->down = er->selected && er->state == PX_ENV_DOWN;
    int judged = er->selected && !ev->absent;
    /* Nothing is judged against what is not there. */
    if (judged && !ev->down && !ev->is_reference && j->no_ref && !(ev->not_compared = strf("%s", j->no_ref)))
        return px_error_oom(j->err, NULL);
    size_t uncompared = 0, first_uncompared = 0;
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_verdict *v = &ev->ex[k];
        if (j->kind->verdict_init && j->kind->verdict_init(j->f, k, v))
            return px_error_oom(j->err, NULL);
        if (judge_example(j, e, k, v))
            return -1;
        /* Only what was recorded can be compared; a down environment
         * recorded no inputs. */
        if (judged && !ev->down)
            v->div = diverge(j, e, k, v, &v->div_detail, &v->div_contract);
        /* A candidate's example that ran, with nothing of the reference's
         * to compare it with: judged by its task checks only. */
        const px_example_result *x = &er->ex[k], *rx = judge_result_at(j, j->ref, k);
        if (judged && !ev->down && !ev->is_reference && v->outcome != PX_OC_NOT_EVALUATED && judge_recorded(x) &&
            (j->ref < 0 || (x->status == PX_ST_OK && rx->status != PX_ST_OK))) {
            v->not_compared = 1;
            if (!uncompared++)
                first_uncompared = k;
        }
        if (judged && !ev->down && known_defect(j, e, k, v) && mark_known_defect(j, e, v))
            return px_error_oom(j->err, NULL);
        if (v->not_compared && v->outcome == PX_OC_PASS) {
            /* Its task checks hold; its numbers were not compared. */
            char *d = strf("%s; not compared: %s", v->detail ? v->detail : "",
                          j->ref < 0 ? "no reference" : "the reference has no output for it");
            if (d)
                free(v->detail), v->detail = d;
        }
        if (er->selected)
            ev->counts[v->outcome]++;
        if (ev->is_reference && judged && !outcome_met(v->outcome) && v->outcome != PX_OC_NOT_EVALUATED)
            add_finding(out, strf("the reference itself disagrees with the expectation on %s: %s (%s)",
                                 j->f->examples[k].id, outcome_name(v->outcome), v->detail ? v->detail : ""));
        /* A stale defect would hide the next real error on its example. */
        if (ev->is_reference && judged && decision_kind(j->f->examples[k].review.decision) == PX_DEC_DEFECT &&
            (v->outcome == PX_OC_PASS || v->outcome == PX_OC_REJECTED_OK))
            add_finding(out, strf("%s is decided a defect, but the reference now meets its expectation: the defect "
                                 "is gone; clear the decision (parity decide %s %s --decision clear)",
                                 j->f->examples[k].id, j->f->path, j->f->examples[k].id));
    }
    if (uncompared && !ev->not_compared) {
        /* The reference is there, but not for every example (cut short,
         * another shard's file, a failure of its own). */
        const px_example_result *rx = judge_result_at(j, j->ref, first_uncompared);
        char *last = rx->detail ? judge_last_line(rx->detail) : NULL;
        ev->not_compared = strf("the reference has no output for %zu example(s), first %s (%s%s%s)", uncompared,
                               j->f->examples[first_uncompared].id, status_name(rx->status), last ? ": " : "",
                               last ? last : "");
        free(last);
        if (!ev->not_compared)
            return px_error_oom(j->err, NULL);
    }
    ladder(j, e, ev);
    /* Met: every rung up to "contract satisfied" passed. */
    ev->met = judged && !ev->down;
    int failed = 0;
    for (int r = 0; r <= PX_RUNG_CONTRACT; r++) {
        ev->met &= ev->rung[r] == PX_RS_PASSED;
        failed |= ev->rung[r] == PX_RS_FAILED;
    }
    for (int o = 0; o < PX_OC_COUNT; o++)
        if (ev->counts[o] && !outcome_met((px_outcome)o))
            ev->met = 0;
    /* Not met, yet nothing known to be wrong: only something missing. */
    ev->incomplete = judged && !ev->down && !ev->met && !failed;
    return 0;
}

int judge_results(const px_fixture *f, const px_results *r, px_judgement *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    out->envs = calloc(r->n_envs ? r->n_envs : 1, sizeof *out->envs);
    out->n_envs = r->n_envs;
    out->n_examples = r->n_examples;
    jctx j = {f, r, r->reference, find_role(f, r, "twin", 1), find_role(f, r, "oracle", 0), err, NULL, NULL, out,
              judge_kind_of(f)};
    out->twin = j.twin;
    out->kind = j.kind;
    if (j.twin >= 0 && !(out->twin_dtype = strf("%s", results_env_dtype(f, &r->envs[j.twin])))) {
        free(out->envs);
        memset(out, 0, sizeof *out);
        return px_error_oom(err, NULL);
    }
    char *no_ref = NULL;
    if (j.ref >= 0) {
        const px_env_result *re = &r->envs[j.ref];
        if (!re->selected)
            no_ref = strf("the reference environment %s is not selected (-e)", re->name);
        else if (re->origin == PX_ORIGIN_NONE || re->state != PX_ENV_UP)
            no_ref = strf("the reference environment %s %s", re->name,
                         re->origin == PX_ORIGIN_NONE ? "has no results" : "is down");
        if (no_ref) {
            add_finding(out, strf("%s: nothing is compared with it", no_ref));
            j.ref = -1;
        }
    } else {
        /* Results of some environments only (run -e, bench -e): the
         * reference is not among them. */
        int fr = fixture_reference(f);
        no_ref = fr >= 0 ? strf("the reference environment %s is not selected (-e)", f->envs[fr].name)
                         : strf("the fixture has no reference environment");
    }
    j.no_ref = no_ref;
    out->all_met = 1;
    for (size_t e = 0; e < r->n_envs; e++) {
        if (judge_env(&j, e, out)) {
            free(no_ref);
            judgement_free(out);
            return -1;
        }
        if (!out->envs[e].selected)
            continue;
        out->all_met &= out->envs[e].met;
        out->any_down |= out->envs[e].down || out->envs[e].absent;
        out->any_incomplete |= judgement_env_incomplete(&out->envs[e]);
    }
    free(no_ref);
    j.no_ref = NULL;
    /* The twin's own ladder is known now: blame only from a valid twin. */
    if (j.twin >= 0)
        j.twin_bad = out->twin_unusable = attribute_twin_unusable(&j, out);
    for (size_t e = 0; e < r->n_envs; e++)
        attribute_env(&j, e, &out->envs[e]);
    return 0;
}

int judgement_env_incomplete(const px_env_verdict *ev)
{
    return ev->selected && (ev->down || ev->absent || ev->not_compared || ev->incomplete);
}

char *judgement_not_compared_words(const px_judgement *j, size_t e)
{
    const px_env_verdict *ev = &j->envs[e];
    return ev->not_compared ? strf("not compared: no reference (%s)", ev->not_compared) : NULL;
}

void judgement_free(px_judgement *j)
{
    for (size_t e = 0; e < j->n_envs; e++) {
        px_env_verdict *ev = &j->envs[e];
        for (size_t k = 0; ev->ex && k < j->n_examples; k++) {
            free(ev->ex[k].detail);
            free(ev->ex[k].div_detail);
            if (j->kind && j->kind->verdict_free)
                j->kind->verdict_free(&ev->ex[k]);
        }
        free(ev->ex);
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            free(ev->rung_detail[r]);
        for (size_t b = 0; b < ev->n_bench; b++) /* bench_judge's */
            free(ev->bench[b].broken), free(ev->bench[b].batching), free(ev->bench[b].curve),
                free(ev->bench[b].curve_note);
        free(ev->bench);
        free(ev->not_compared);
    }
    free(j->envs);
    free(j->twin_unusable);
    free(j->twin_dtype);
    for (size_t i = 0; i < j->n_findings; i++)
        free(j->findings[i]);
    free(j->findings);
    memset(j, 0, sizeof *j);
}
