/* Why a candidate parts from the reference, told by the twin (role twin):
 * precision when the twin parts the same way, the device when it keeps to
 * the reference; unknown when it cannot tell. What counts as the same way
 * is the kind's (judge_kind.h); when the twin can tell at all, and the
 * cause in words, are here. */
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/judge.h"
#include "parity/strf.h"

/* A decision change in a candidate is precision's doing when the bfloat16
 * twin changes it the same way, the device's when the twin keeps the
 * reference's decision (the kind says what its decision is: a label, a
 * generated path, a search). numeric-drift (the decision kept, the numbers
 * beyond the tolerance): precision's when the twin drifts alike (it is
 * beyond the tolerance too), the device's when the twin stays within it.
 * The twin tells only when its own ladder passed "forward ran" and it has
 * an output for the example: else the cause is unknown (the judgement says
 * why). */
static px_attr attribute(const jctx *j, size_t e, size_t k)
{
    const px_example_result *ref = judge_result_at(j, j->ref, k), *x = &j->r->envs[e].ex[k];
    if (!ref || ref->status != PX_ST_OK || x->status != PX_ST_OK || j->twin < 0)
        return PX_ATTR_NONE;
    return j->kind->attribute(j, e, k, ref, &j->out->envs[e].ex[k]);
}

px_attr attribute_twin_first(const jctx *j, size_t e, size_t k, const px_example_result **tw)
{
    *tw = NULL;
    if (j->twin_bad)
        return PX_ATTR_UNKNOWN;
    if ((int)e == j->twin)
        return PX_ATTR_PRECISION;
    *tw = judge_result_at(j, j->twin, k);
    if (!*tw || (*tw)->status != PX_ST_OK)
        return PX_ATTR_UNKNOWN;
    return PX_ATTR_NONE;
}

/* Precision or device, once every ladder is known (the twin's among them),
 * for each candidate example that parts from the reference. */
void attribute_env(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    if (ev->is_reference || !er->selected || ev->absent || j->ref < 0)
        return;
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_verdict *v = &ev->ex[k];
        /* Precision or device is the question only when the two ran the
         * same model on the same input. */
        int same_inputs = v->div == PX_DIV_NONE || v->div >= PX_DIV_SHAPE;
        v->attr = same_inputs ? attribute(j, e, k) : PX_ATTR_NONE;
    }
}

/* Why the twin cannot tell a cause (malloc'd), NULL when it can: it must
 * have results here and its own ladder must have passed "forward ran". */
char *attribute_twin_unusable(const jctx *j, const px_judgement *out)
{
    const px_env_result *tw = &j->r->envs[j->twin];
    const px_env_verdict *ev = &out->envs[j->twin];
    if (!tw->selected)
        return strf("the twin %s is not selected (-e)", tw->name);
    if (tw->origin == PX_ORIGIN_NONE)
        return strf("the twin %s has no results (%s)", tw->name, tw->source ? tw->source : "none given");
    for (int r = 0; r <= PX_RUNG_FORWARD; r++)
        if (ev->rung[r] != PX_RS_PASSED)
            return strf("the twin %s did not pass '%s': %s", tw->name, rung_name((px_rung)r),
                       ev->rung_detail[r] ? ev->rung_detail[r]
                       : tw->state == PX_ENV_DOWN ? (tw->down_msg ? tw->down_msg : "down")
                                                  : rung_state_name(ev->rung[r]));
    return NULL;
}

/* Why the twin cannot tell example k's cause: it is unusable, or has no
 * `what` (output, search) for the example. */
char *attribute_unknown_words(const px_judgement *j, size_t k, const char *what)
{
    if (j->twin_unusable)
        return strf("unknown: %s", j->twin_unusable);
    if (j->twin >= 0) {
        const px_verdict *tv = &j->envs[j->twin].ex[k];
        return strf("unknown: the twin has no %s for it (%s%s%s)", what, outcome_name(tv->outcome),
                    tv->detail ? ": " : "", tv->detail ? tv->detail : "");
    }
    return strf("unknown");
}

char *attribute_words(const px_judgement *j, size_t e, size_t k, const px_judge_kind *kind)
{
    const px_verdict *v = &j->envs[e].ex[k];
    int drift = v->outcome == PX_OC_NUMERIC_DRIFT;
    switch (v->attr) {
    case PX_ATTR_PRECISION:
        if ((int)e == j->twin)
            return strf("precision (this is the %s twin)", j->twin_dtype ? j->twin_dtype : "reduced-precision");
        return strf("precision (the %s twin %s)", j->twin_dtype ? j->twin_dtype : "reduced-precision",
                    drift ? "drifts alike, beyond the tolerance too" : kind->twin_same);
    case PX_ATTR_DEVICE: return strf("device (the twin %s)", drift ? "stays within the tolerance" : kind->twin_other);
    case PX_ATTR_UNKNOWN: return attribute_unknown_words(j, k, "output");
    default: return NULL;
    }
}

char *judgement_cause_words(const px_judgement *j, size_t e, size_t k)
{
    const px_judge_kind *kind = j->kind ? j->kind : &judge_classifier;
    return kind->cause_words ? kind->cause_words(j, e, k) : attribute_words(j, e, k, kind);
}
