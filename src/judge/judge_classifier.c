/* A classifier's examples (judge_kind.h): its logits decide a label, held
 * to the example's expectation and, in a candidate, its logits to the
 * reference's under the contract's tolerance; it parts from the reference
 * at its values, then at its decision; the twin tells whether a changed
 * label (or logits beyond the tolerance) is precision's doing or the
 * device's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/results.h"
#include "parity/sbuf.h"
#include "parity/strf.h"

/* Labels are named by the label map the environment's outputs were decided
 * with (as recorded); comparing that map with the contract's is a stage of
 * its own. */
static const char *label_of(const px_results *r, size_t e, int label)
{
    const px_env_result *er = &r->envs[e];
    return label >= 0 && (size_t)label < er->n_labels ? er->labels[label] : NULL;
}

/* Rank of the expected label among the output's logits (0 = best). */
static int rank_of(const px_example_result *x, char *const *labels, size_t n, const char *want)
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
            *why = strf("gave %s, expected %s", got, f->labels[e->label]);
    } else if (e->kind == PX_EXPECT_LABEL) {
        int rank = rank_of(x, labels, n_labels, f->labels[e->label]);
        ok = rank < e->top_k;
        if (!ok)
            *why = strf("%s is not among the %d best (gave %s)", f->labels[e->label], e->top_k, got);
    } else if (e->kind == PX_EXPECT_ANY_OF) {
        ok = 0;
        for (size_t i = 0; i < e->n_any_of; i++)
            ok |= !strcmp(got, f->labels[e->any_of[i]]);
        if (!ok) {
            px_sbuf list = PX_SBUF_INIT;
            for (size_t i = 0; i < e->n_any_of; i++)
                sbuf_addf(&list, "%s%s", i ? ", " : "", f->labels[e->any_of[i]]);
            *why = strf("gave %s, expected any of %s", got, sbuf_str(&list));
            sbuf_free(&list);
        }
    }
    int m;
    if (ok && e->must_match.text) {
        if ((m = pattern_match(f, &e->must_match, got, err)) < 0)
            return -1;
        if (!m)
            *why = strf("%s does not match must_match '%s'", got, e->must_match.text), ok = 0;
    }
    if (ok && e->must_not_match.text) {
        if ((m = pattern_match(f, &e->must_not_match, got, err)) < 0)
            return -1;
        if (m)
            *why = strf("%s matches must_not_match '%s'", got, e->must_not_match.text), ok = 0;
    }
    return ok;
    return ok;
}

/* A classifier's example that ran: a NaN or an infinity, a label where the
 * contract says reject, the label against the expectation, then (a
 * candidate) its logits against the reference's. */
static int classifier_judge(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    /* A NaN or an infinity is a failure of its own, in the reference as in
     * a candidate: never compared away as "equal to the reference's NaN". */
    long bad = numbers_first_non_finite(x);
    if (bad >= 0) {
        v->outcome = PX_OC_NON_FINITE;
        v->detail = strf("logit %ld (%s) is %s", bad, label_of(j->r, e, (int)bad) ? label_of(j->r, e, (int)bad) : "?",
                        isnan(x->values[bad]) ? "nan" : x->values[bad] > 0 ? "inf" : "-inf");
        return 0;
    }
    const char *got = label_of(j->r, e, x->label);
    if (ex->expect.kind == PX_EXPECT_REJECTED) {
        v->outcome = PX_OC_NOT_REJECTED;
        v->detail = strf("gave %s; the contract says reject", got ? got : "?");
        return 0;
    }
    char *why = NULL;
    int ok = label_meets(f, ex, x, er->labels, er->n_labels, got ? got : "", &why, j->err);
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
        v->detail = strf("%s", got);
        return 0;
    }
    const px_example_result *ref = judge_result_at(j, j->ref, k), *oracle = judge_result_at(j, j->oracle, k);
    int num_ok = numbers_ok(f, ex, x, ref, oracle, v);
    if (!v->has_cmp || v->cmp.identical) {
        v->outcome = PX_OC_PASS;
        v->detail = strf("%s", got);
        return 0;
    }
    v->outcome = num_ok ? PX_OC_PASS_TOL : PX_OC_NUMERIC_DRIFT;
    char *words = numbers_words(v, x, ref, oracle, numbers_tolerance(f, ex), num_ok, "logit");
    v->detail = strf("%s; %s", got, words ? words : "");
    free(words);
    return 0;
}

/* Its logits, then the label they decide. */
static px_div classifier_diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail)
{
    if (diverge_values(j, e, k, v, "logit", j->r->envs[j->ref].labels, j->r->envs[j->ref].n_labels, detail) == PX_DIV_VALUES)
        return PX_DIV_VALUES;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    const char *la = label_of(j->r, (size_t)j->ref, xa->label), *lb = label_of(j->r, e, xb->label);
    if (la && lb && strcmp(la, lb)) {
        *detail = strf("%s vs %s", la, lb);
        return PX_DIV_DECISION;
    }
    return PX_DIV_NONE;
}

/* A changed label is precision's doing when the twin changes it the same
 * way, the device's when the twin keeps the reference's label;
 * numeric-drift (the label kept, the logits beyond the tolerance) is
 * precision's when the twin drifts alike, the device's when it stays
 * within the tolerance. */
static px_attr classifier_attribute(const jctx *j, size_t e, size_t k, const px_example_result *ref,
                                    const px_verdict *v)
{
    const px_example_result *x = &j->r->envs[e].ex[k], *tw;
    const char *lr = label_of(j->r, (size_t)j->ref, ref->label), *lx = label_of(j->r, e, x->label);
    if (!lr || !lx)
        return PX_ATTR_NONE;
    int drift = !strcmp(lr, lx);
    if (drift && v->outcome != PX_OC_NUMERIC_DRIFT)
        return PX_ATTR_NONE;
    px_attr said = attribute_twin_first(j, e, k, &tw);
    if (said != PX_ATTR_NONE)
        return said;
    if (drift) {
        /* The twin against the reference, under the example's tolerance. */
        px_verdict tv = {0};
        int within = numbers_ok(j->f, &j->f->examples[k], tw, ref, judge_result_at(j, j->oracle, k), &tv);
        if (!tv.has_cmp)
            return PX_ATTR_UNKNOWN;
        return within ? PX_ATTR_DEVICE : PX_ATTR_PRECISION;
    }
    const char *lt = label_of(j->r, (size_t)j->twin, tw->label);
    return lt && !strcmp(lt, lx) ? PX_ATTR_PRECISION : PX_ATTR_DEVICE;
}

static char *classifier_forward(const px_fixture *f, const px_env_result *er)
{
    (void)f;
    return strf("every example's output is [1,%zu]", er->n_labels);
}

/* Its output's argmax, as the run's own label. */
static int classifier_bench_label(const double *out, size_t n) { return results_argmax(out, n); }

const px_judge_kind judge_classifier = {
    .judge = classifier_judge,
    .diverge = classifier_diverge,
    .attribute = classifier_attribute,
    .twin_same = "changes it the same way",
    .twin_other = "keeps the reference's decision",
    .forward_words = classifier_forward,
    .partial_shape = "[1,labels]",
    .bench_label = classifier_bench_label,
};
