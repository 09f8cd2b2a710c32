#define _GNU_SOURCE /* vasprintf */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "parity/judge.h"

#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *meaning;
    int met;
} outcomes[PX_OC_COUNT] = {
    [PX_OC_PASS] = {"pass", "the expected decision, with the reference's numbers exactly", 1},
    [PX_OC_PASS_TOL] = {"pass-within-tolerance", "the expected decision; numbers differ within the stated tolerance", 1},
    [PX_OC_WRONG_LABEL] = {"wrong-label", "a plausible label, but not the expected one", 0},
    [PX_OC_NUMERIC_DRIFT] = {"numeric-drift", "the label is right, the numbers are outside the tolerance", 0},
    [PX_OC_BAD_SHAPE] = {"bad-shape", "the output shape is not the one the contract says", 0},
    [PX_OC_EMPTY] = {"empty", "the output has no elements", 0},
    [PX_OC_EXCEPTION] = {"exception", "the forward raised an error", 0},
    [PX_OC_CRASH] = {"crash", "the executor process died", 0},
    [PX_OC_TIMEOUT] = {"timeout", "no answer within the environment's timeout", 0},
    [PX_OC_UNSUPPORTED] = {"unsupported", "the backend does not implement an operation or dtype", 0},
    [PX_OC_REJECTED_OK] = {"rejected-as-expected", "the contract says reject, and it was", 1},
    [PX_OC_NOT_REJECTED] = {"not-rejected", "the contract says reject, but a label came out", 0},
    [PX_OC_WRONGLY_REJECTED] = {"wrongly-rejected", "rejected, though the contract expects a label", 0},
    [PX_OC_NOT_EVALUATED] = {"not-evaluated", "not judged: environment down, excluded or stopped", 0},
};

const char *outcome_name(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].name : "?"; }
const char *outcome_meaning(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].meaning : "?"; }
int outcome_met(px_outcome o) { return o < PX_OC_COUNT && outcomes[o].met; }

const char *div_name(px_div d)
{
    static const char *const n[PX_DIV_COUNT] = {"none", "model revision", "label map", "cleaned text",
                                                "token ids", "output shape", "output values", "decision"};
    return d < PX_DIV_COUNT ? n[d] : "?";
}

const char *attr_name(px_attr a) { return a == PX_ATTR_PRECISION ? "precision" : a == PX_ATTR_DEVICE ? "device" : "none"; }

const char *rung_name(px_rung r)
{
    static const char *const n[PX_RUNG_COUNT] = {"device recognised", "model loaded", "input processed",
                                                 "forward ran", "contract satisfied", "performance"};
    return r < PX_RUNG_COUNT ? n[r] : "?";
}

const char *rung_state_name(px_rung_state s)
{
    static const char *const n[] = {"passed", "failed", "not-reached", "not-measured"};
    return n[s];
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* PCRE2 match with limits, so a hostile pattern cannot hang a review.
 * Returns 1 match, 0 no match, -1 with *err on a compile or limit error. */
static int pattern_match(const px_fixture *f, const px_pattern *p, const char *subject, px_error *err)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p->text, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return px_error_set(err, PX_EXIT_USAGE, f->path, p->loc.line, p->loc.col,
                            "pattern '%s': %s at offset %zu", p->text, (char *)msg, (size_t)off);
    }
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mc, 1000000);
    pcre2_set_depth_limit(mc, 10000);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0, md, mc);
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    return px_error_set(err, PX_EXIT_USAGE, f->path, p->loc.line, p->loc.col, "pattern '%s': %s", p->text,
                        (char *)msg);
}

static const char *label_of(const px_fixture *f, const px_results *r, size_t e, int label)
{
    const px_env *fe = &f->envs[r->envs[e].env_index];
    return label >= 0 && (size_t)label < fe->n_labels ? fe->labels[label] : NULL;
}

/* Rank of the expected label among the output's logits (0 = best). */
static int rank_of(const px_example_result *x, const char *const *labels, size_t n, const char *want)
{
    int idx = -1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(labels[i], want))
            idx = (int)i;
    if (idx < 0 || (size_t)idx >= x->n_values)
        return 1 << 30;
    int rank = 0;
    for (size_t i = 0; i < x->n_values; i++)
        rank += x->values[i] > x->values[idx];
    return rank;
}

/* Does a decided label meet the example's expectation? 1 yes, 0 no (with
 * *why), -1 pattern error. */
static int label_meets(const px_fixture *f, const px_example *ex, const px_example_result *x, char *const *labels,
                       size_t n_labels, const char *got, char **why, px_error *err)
{
    const px_expect *e = &ex->expect;
    int ok = 1;
    if (e->kind == PX_EXPECT_LABEL && !e->top_k) {
        ok = !strcmp(got, f->labels[e->label]);
        if (!ok)
            *why = fmt("gave %s, expected %s", got, f->labels[e->label]);
    } else if (e->kind == PX_EXPECT_LABEL) {
        int rank = rank_of(x, (const char *const *)labels, n_labels, f->labels[e->label]);
        ok = rank < e->top_k;
        if (!ok)
            *why = fmt("%s is not among the %d best (gave %s)", f->labels[e->label], e->top_k, got);
    } else if (e->kind == PX_EXPECT_ANY_OF) {
        ok = 0;
        for (size_t i = 0; i < e->n_any_of; i++)
            ok |= !strcmp(got, f->labels[e->any_of[i]]);
        if (!ok)
            *why = fmt("gave %s, expected any of the reviewed labels", got);
    }
    int m;
    if (ok && e->must_match.text) {
        if ((m = pattern_match(f, &e->must_match, got, err)) < 0)
            return -1;
        if (!m)
            *why = fmt("%s does not match must_match '%s'", got, e->must_match.text), ok = 0;
    }
    if (ok && e->must_not_match.text) {
        if ((m = pattern_match(f, &e->must_not_match, got, err)) < 0)
            return -1;
        if (m)
            *why = fmt("%s matches must_not_match '%s'", got, e->must_not_match.text), ok = 0;
    }
    return ok;
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

static const px_tolerance *tolerance_for(const px_fixture *f, const px_example *ex)
{
    return ex->tol.present ? &ex->tol : &f->logits_tol;
}

/* Compare with the reference's numbers; sets v->cmp and returns 1 when
 * within tolerance (or by the oracle rule). */
static int numbers_ok(const px_fixture *f, const px_example *ex, const px_example_result *x,
                      const px_example_result *ref, const px_example_result *oracle, px_verdict *v)
{
    if (!ref || ref->status != PX_ST_OK || ref->n_values != x->n_values)
        return 1; /* nothing to compare with: judged on the decision alone */
    const px_tolerance *t = tolerance_for(f, ex);
    px_stat stat = t->present ? (px_stat)compare_stat_from_name(t->stat) : PX_STAT_ELEMENTWISE;
    v->stat = t->present ? t->stat : "elementwise";
    if (compare_values(x->values, ref->values, x->n_values, stat, t->q, t->present ? t->atol : 0,
                       t->present ? t->rtol : 0, &v->cmp))
        return 0;
    v->has_cmp = 1;
    if (t->present && t->oracle_factor > 0 && oracle && oracle->status == PX_ST_OK &&
        oracle->n_values == x->n_values) {
        int pass = 0;
        compare_oracle(x->values, ref->values, oracle->values, x->n_values, t->oracle_factor, &pass,
                       &v->oracle_ratio);
        v->has_oracle = 1;
        return pass;
    }
    return v->cmp.pass;
}

/* TorchScript prefixes the error with its interpreter traceback; the last
 * line is the error itself. The results keep the whole text. */
static char *last_line(const char *s)
{
    size_t end = strlen(s);
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && s[start - 1] != '\n')
        start--;
    return fmt("%.*s", (int)(end - start), s + start);
}

typedef struct jctx {
    const px_fixture *f;
    const px_results *r;
    int ref, twin, oracle; /* indices into r->envs, -1 when absent */
    px_error *err;
} jctx;

static const px_example_result *result_at(const jctx *j, int e, size_t k)
{
    return e >= 0 ? &j->r->envs[e].ex[k] : NULL;
}

static int judge_example(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_example_result *x = &j->r->envs[e].ex[k];
    const px_env *fe = &f->envs[j->r->envs[e].env_index];
    int want_reject = ex->expect.kind == PX_EXPECT_REJECTED;
    if (x->status == PX_ST_NOT_EVALUATED || x->status == PX_ST_PENDING) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = fmt("%s", x->detail ? x->detail : "not run");
        return 0;
    }
    if (x->status == PX_ST_REJECTED) {
        v->outcome = want_reject ? PX_OC_REJECTED_OK : PX_OC_WRONGLY_REJECTED;
        if (want_reject && ex->expect.reason.text) {
            int m = pattern_match(f, &ex->expect.reason, x->detail ? x->detail : "", j->err);
            if (m < 0)
                return -1;
            if (!m)
                v->outcome = PX_OC_WRONGLY_REJECTED;
        }
        v->detail = fmt("%s", x->detail ? x->detail : "rejected");
        return 0;
    }
    if (x->status != PX_ST_OK) {
        v->outcome = from_status(x->status);
        v->detail = last_line(x->detail ? x->detail : outcome_name(v->outcome));
        return 0;
    }
    const char *got = label_of(f, j->r, e, x->label);
    if (want_reject) {
        v->outcome = PX_OC_NOT_REJECTED;
        v->detail = fmt("gave %s; the contract says reject", got ? got : "?");
        return 0;
    }
    char *why = NULL;
    int ok = label_meets(f, ex, x, fe->labels, fe->n_labels, got ? got : "", &why, j->err);
    if (ok < 0)
        return -1;
    if (!ok) {
        v->outcome = PX_OC_WRONG_LABEL;
        v->detail = why;
        return 0;
    }
    free(why);
    if ((int)e == j->ref) {
        v->outcome = PX_OC_PASS;
        v->detail = fmt("%s", got);
        return 0;
    }
    int num_ok = numbers_ok(f, ex, x, result_at(j, j->ref, k), result_at(j, j->oracle, k), v);
    if (!v->has_cmp || v->cmp.identical) {
        v->outcome = PX_OC_PASS;
        v->detail = fmt("%s", got);
    } else if (num_ok) {
        v->outcome = PX_OC_PASS_TOL;
        v->detail = fmt("%s; %s |Δ| %.3g within %.3g", got, v->stat, v->cmp.value, v->cmp.threshold);
    } else {
        v->outcome = PX_OC_NUMERIC_DRIFT;
        v->detail = fmt("%s; %s |Δ| %.3g > %.3g (smallest atol that passes: %.3g)", got, v->stat, v->cmp.value,
                        v->cmp.threshold, v->cmp.smallest_atol);
    }
    return 0;
}

static char *shape_str(const px_example_result *x)
{
    if (!x->dtype)
        return fmt("none (%s%s%s)", status_name(x->status), x->detail ? ": " : "", x->detail ? x->detail : "");
    char buf[128];
    int o = snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < x->ndim && o < 100; i++)
        o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%lld", i ? "," : "", (long long)x->shape[i]);
    snprintf(buf + o, sizeof buf - (size_t)o, "]");
    return fmt("%s", buf);
}

static px_div diverge_inputs(const jctx *j, size_t e, size_t k, char **detail)
{
    const px_env_result *a = &j->r->envs[j->ref], *b = &j->r->envs[e];
    const px_env *fa = &j->f->envs[a->env_index], *fb = &j->f->envs[b->env_index];
    const px_example_result *xa = &a->ex[k], *xb = &b->ex[k];
    if (strcmp(a->m.model_sha256, b->m.model_sha256)) {
        *detail = fmt("model sha256 %.12s… vs %.12s…", a->m.model_sha256, b->m.model_sha256);
        return PX_DIV_MODEL;
    }
    size_t n = fa->n_labels < fb->n_labels ? fa->n_labels : fb->n_labels;
    for (size_t i = 0; i < n || fa->n_labels != fb->n_labels; i++) {
        if (i >= n) {
            *detail = fmt("%zu labels vs %zu", fa->n_labels, fb->n_labels);
            return PX_DIV_LABELS;
        }
        if (strcmp(fa->labels[i], fb->labels[i])) {
            *detail = fmt("logit %zu means %s vs %s", i, fa->labels[i], fb->labels[i]);
            return PX_DIV_LABELS;
        }
    }
    if (xa->clean_text && xb->clean_text && strcmp(xa->clean_text, xb->clean_text)) {
        size_t i = 0;
        while (xa->clean_text[i] == xb->clean_text[i])
            i++;
        *detail = fmt("byte %zu: \"%.12s\" vs \"%.12s\"", i, xa->clean_text + i, xb->clean_text + i);
        return PX_DIV_CLEAN;
    }
    size_t m = xa->n_ids < xb->n_ids ? xa->n_ids : xb->n_ids;
    for (size_t i = 0; i < m; i++)
        if (xa->ids[i] != xb->ids[i]) {
            *detail = fmt("token %zu: %lld vs %lld ('%s' vs '%s')", i, (long long)xa->ids[i], (long long)xb->ids[i],
                          xa->tokens ? xa->tokens[i] : "?", xb->tokens ? xb->tokens[i] : "?");
            return PX_DIV_TOKENS;
        }
    if (xa->n_ids != xb->n_ids) {
        *detail = fmt("%zu tokens vs %zu", xa->n_ids, xb->n_ids);
        return PX_DIV_TOKENS;
    }
    return PX_DIV_NONE;
}

static px_div diverge(const jctx *j, size_t e, size_t k, const px_verdict *v, char **detail)
{
    px_div d = diverge_inputs(j, e, k, detail);
    if (d != PX_DIV_NONE)
        return d;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    if (xa->status == PX_ST_REJECTED && xb->status == PX_ST_REJECTED)
        return PX_DIV_NONE;
    int same_shape = xa->dtype && xb->dtype && xa->ndim == xb->ndim;
    for (int i = 0; same_shape && i < xa->ndim; i++)
        same_shape = xa->shape[i] == xb->shape[i];
    if (!same_shape) {
        char *sa = shape_str(xa), *sb = shape_str(xb);
        *detail = fmt("%s vs %s", sa, sb);
        free(sa), free(sb);
        return PX_DIV_SHAPE;
    }
    if (v->has_cmp && !v->cmp.pass && !v->has_oracle) {
        *detail = fmt("logit %zu: %.6g vs %.6g (%s |Δ| %.3g > %.3g)", v->cmp.worst, xa->values[v->cmp.worst],
                      xb->values[v->cmp.worst], v->stat, v->cmp.value, v->cmp.threshold);
        return PX_DIV_VALUES;
    }
    const char *la = label_of(j->f, j->r, (size_t)j->ref, xa->label), *lb = label_of(j->f, j->r, e, xb->label);
    if (la && lb && strcmp(la, lb)) {
        *detail = fmt("%s vs %s", la, lb);
        return PX_DIV_DECISION;
    }
    return PX_DIV_NONE;
}

/* A decision change in a candidate is precision's doing when the bfloat16
 * twin changes it the same way, the device's when the twin keeps the
 * reference's decision. */
static px_attr attribute(const jctx *j, size_t e, size_t k)
{
    const px_example_result *ref = result_at(j, j->ref, k), *x = &j->r->envs[e].ex[k];
    if (!ref || ref->status != PX_ST_OK || x->status != PX_ST_OK)
        return PX_ATTR_NONE;
    const char *lr = label_of(j->f, j->r, (size_t)j->ref, ref->label), *lx = label_of(j->f, j->r, e, x->label);
    if (!lr || !lx || !strcmp(lr, lx))
        return PX_ATTR_NONE;
    if ((int)e == j->twin)
        return PX_ATTR_PRECISION;
    const px_example_result *tw = result_at(j, j->twin, k);
    if (!tw || tw->status != PX_ST_OK)
        return PX_ATTR_NONE;
    const char *lt = label_of(j->f, j->r, (size_t)j->twin, tw->label);
    return lt && !strcmp(lt, lx) ? PX_ATTR_PRECISION : PX_ATTR_DEVICE;
}

static void set_rung(px_env_verdict *ev, px_rung r, px_rung_state s, char *detail)
{
    ev->rung[r] = s;
    free(ev->rung_detail[r]);
    ev->rung_detail[r] = detail;
}

/* The first failing rung stops the ladder: nothing after it is shown as
 * passed. */
static void ladder(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    const px_env *fe = &j->f->envs[er->env_index];
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        ev->rung[r] = PX_RS_NOT_REACHED;
    ev->rung[PX_RUNG_PERF] = PX_RS_NOT_MEASURED;
    if (er->state == PX_ENV_DOWN && er->down_stage == PX_STAGE_DEVICE) {
        set_rung(ev, PX_RUNG_DEVICE, PX_RS_FAILED, fmt("%s", er->down_msg));
        return;
    }
    set_rung(ev, PX_RUNG_DEVICE, PX_RS_PASSED, fmt("%s", er->m.device ? er->m.device : fe->device));
    if (er->state == PX_ENV_DOWN && er->down_stage == PX_STAGE_LOAD) {
        set_rung(ev, PX_RUNG_MODEL, PX_RS_FAILED, fmt("%s", er->down_msg));
        return;
    }
    if (fe->model_sha256 && strcmp(er->m.model_sha256, fe->model_sha256)) {
        set_rung(ev, PX_RUNG_MODEL, PX_RS_FAILED,
                 fmt("revision %.12s… is not the pinned %.12s…", er->m.model_sha256, fe->model_sha256));
        return;
    }
    set_rung(ev, PX_RUNG_MODEL, PX_RS_PASSED, fmt("sha256 %.12s…", er->m.model_sha256));
    set_rung(ev, PX_RUNG_INPUT, PX_RS_PASSED, fmt("vocab sha256 %.12s…", er->m.vocab_sha256));
    size_t bad = j->r->n_examples;
    for (size_t k = 0; k < j->r->n_examples && bad == j->r->n_examples; k++) {
        px_status s = er->ex[k].status;
        if (s != PX_ST_OK && s != PX_ST_REJECTED)
            bad = k;
    }
    if (er->state == PX_ENV_DOWN || bad < j->r->n_examples) {
        const px_example_result *x = bad < j->r->n_examples ? &er->ex[bad] : NULL;
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_FAILED,
                 x ? fmt("%s: %s: %s", j->f->examples[bad].id, status_name(x->status), ev->ex[bad].detail)
                   : fmt("%s", er->down_msg));
        return;
    }
    set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED, fmt("every example's output is [1,%zu]", fe->n_labels));
    int unmet = 0;
    const char *first = NULL;
    for (size_t k = 0; k < j->r->n_examples; k++)
        if (!outcome_met(ev->ex[k].outcome) && !unmet++)
            first = j->f->examples[k].id;
    if (unmet)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_FAILED, fmt("%d example(s) do not meet it, first %s", unmet, first));
    else
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_PASSED, fmt("all %zu examples", j->r->n_examples));
}

static int find_role(const px_fixture *f, const px_results *r, const char *role)
{
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env *fe = &f->envs[r->envs[e].env_index];
        if (fe->role && !strcmp(fe->role, role) && r->envs[e].state == PX_ENV_UP)
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
    ev->ex = calloc(j->r->n_examples ? j->r->n_examples : 1, sizeof *ev->ex);
    ev->is_reference = (int)e == j->ref;
    ev->down = j->r->envs[e].state == PX_ENV_DOWN;
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_verdict *v = &ev->ex[k];
        if (judge_example(j, e, k, v))
            return -1;
        /* Only what both environments recorded can be compared. */
        if (j->ref >= 0 && !ev->is_reference && !ev->down)
            v->div = diverge(j, e, k, v, &v->div_detail);
        /* Precision or device is the question only when the two ran the
         * same model on the same input. */
        int same_inputs = v->div == PX_DIV_NONE || v->div >= PX_DIV_SHAPE;
        v->attr = ev->is_reference || !same_inputs ? PX_ATTR_NONE : attribute(j, e, k);
        ev->counts[v->outcome]++;
        if (ev->is_reference && !outcome_met(v->outcome) && v->outcome != PX_OC_NOT_EVALUATED)
            add_finding(out, fmt("the reference itself disagrees with the expectation on %s: %s (%s)",
                                 j->f->examples[k].id, outcome_name(v->outcome), v->detail ? v->detail : ""));
    }
    ladder(j, e, ev);
    ev->met = !ev->down;
    for (int o = 0; o < PX_OC_COUNT; o++)
        if (ev->counts[o] && !outcome_met((px_outcome)o))
            ev->met = 0;
    return 0;
}

int judge_results(const px_fixture *f, const px_results *r, px_judgement *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    out->envs = calloc(r->n_envs ? r->n_envs : 1, sizeof *out->envs);
    out->n_envs = r->n_envs;
    out->n_examples = r->n_examples;
    jctx j = {f, r, r->reference, find_role(f, r, "twin"), find_role(f, r, "oracle"), err};
    if (j.ref >= 0 && r->envs[j.ref].state != PX_ENV_UP)
        add_finding(out, fmt("the reference environment %s is down: nothing is compared with it", r->envs[j.ref].name));
    if (j.ref >= 0 && r->envs[j.ref].state != PX_ENV_UP)
        j.ref = -1;
    out->all_met = 1;
    for (size_t e = 0; e < r->n_envs; e++) {
        if (judge_env(&j, e, out)) {
            judgement_free(out);
            return -1;
        }
        out->all_met &= out->envs[e].met;
        out->any_down |= out->envs[e].down;
    }
    return 0;
}

void judgement_free(px_judgement *j)
{
    for (size_t e = 0; e < j->n_envs; e++) {
        px_env_verdict *ev = &j->envs[e];
        for (size_t k = 0; ev->ex && k < j->n_examples; k++) {
            free(ev->ex[k].detail);
            free(ev->ex[k].div_detail);
        }
        free(ev->ex);
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            free(ev->rung_detail[r]);
    }
    free(j->envs);
    for (size_t i = 0; i < j->n_findings; i++)
        free(j->findings[i]);
    free(j->findings);
    memset(j, 0, sizeof *j);
}
