/* An output's numbers against the reference's, under the tolerance the
 * contract gives the example (or its oracle rule), and what the comparison
 * found in words: shared by the kinds whose output is numbers (a
 * classifier's logits, an embedding's vector). */
#include <math.h>
#include <string.h>

#include "judge_int.h"
#include "parity/strf.h"

/* The example's own tolerance, else the contract's. */
const px_tolerance *numbers_tolerance(const px_fixture *f, const px_example *ex)
{
    return ex->tol && ex->tol->present ? ex->tol : &f->logits_tol;
}

/* Compare with the reference's numbers; sets v->cmp and returns 1 when
 * within tolerance (or by the oracle rule). */
int numbers_ok(const px_fixture *f, const px_example *ex, const px_example_result *x, const px_example_result *ref,
                const px_example_result *oracle, px_verdict *v)
{
    if (!ref || ref->status != PX_ST_OK || ref->n_values != x->n_values)
        return 1; /* nothing to compare with: judged on the decision alone */
    const px_tolerance *t = numbers_tolerance(f, ex);
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

/* The first element that is NaN or infinite, -1 when every one is finite. */
long numbers_first_non_finite(const px_example_result *x)
{
    for (size_t i = 0; i < x->n_values; i++)
        if (!isfinite(x->values[i]))
            return (long)i;
    return -1;
}

/* The oracle rule's own figures, in words (malloc'd): the candidate's
 * root-mean-square difference to the oracle against the reference's times
 * the factor, and their ratio. */
static char *oracle_words(const px_example_result *x, const px_example_result *ref, const px_example_result *oracle,
                          double factor, int pass)
{
    double rc = compare_rms(x->values, oracle->values, x->n_values);
    double rr = compare_rms(ref->values, oracle->values, x->n_values);
    if (!isfinite(rr))
        return strf("oracle rule: the reference's rms |Δ| to the oracle is not finite: the rule has nothing to "
                    "hold this to");
    if (!isfinite(rc))
        return strf("oracle rule: the rms |Δ| to the oracle is not finite here");
    if (rr == 0)
        return rc == 0 ? strf("oracle rule: the oracle's numbers exactly, as the reference's")
                       : strf("oracle rule: rms |Δ| to the oracle %.3g, and the reference's is 0 (%g × 0 allows "
                              "none)",
                              rc, factor);
    return strf("oracle rule: rms |Δ| to the oracle %.3g %s %g × the reference's %.3g = %.3g (ratio %.3g %s %g)", rc,
                pass ? "within" : ">", factor, rr, factor * rr, rc / rr, pass ? "≤" : ">", factor);
}


/* What the comparison with the reference found, in words that say which
 * rule decided (malloc'd): the oracle rule's own figures when it decides;
 * else the statistic against what the tolerance allows. Elementwise, the
 * logit nearest its bound (or past it), since each logit has its own
 * bound; a NaN or an infinity on one side only, which no tolerance covers. */
char *numbers_words(const px_verdict *v, const px_example_result *x, const px_example_result *ref,
                    const px_example_result *oracle, const px_tolerance *t, int pass, const char *noun)
{
    if (v->has_oracle)
        return oracle_words(x, ref, oracle, t->oracle_factor, pass);
    size_t w = v->cmp.worst;
    if (isinf(v->cmp.value))
        return strf("%s %zu is %.6g here, %.6g in the reference: no tolerance covers a NaN or an infinity on one "
                    "side",
                    noun, w, x->values[w], ref->values[w]);
    int elementwise = !strcmp(v->stat, "elementwise");
    double d = elementwise ? fabs(x->values[w] - ref->values[w]) : v->cmp.value;
    if (pass) {
        if (!elementwise || d == v->cmp.value)
            return strf("%s |Δ| %.3g within %.3g", v->stat, d, v->cmp.threshold);
        return strf("elementwise, every %s within its tolerance (largest |Δ| %.3g; nearest its bound: %s %zu, "
                    "|Δ| %.3g within %.3g)",
                    noun, v->cmp.value, noun, w, d, v->cmp.threshold);
    }
    if (elementwise && v->cmp.n_failing > 1)
        return strf("elementwise |Δ| %.3g > %.3g at %s %zu, %zu of %zu %ss beyond (smallest atol that passes: "
                    "%.3g)",
                    d, v->cmp.threshold, noun, w, v->cmp.n_failing, x->n_values, noun, v->cmp.smallest_atol);
    if (elementwise)
        return strf("elementwise |Δ| %.3g > %.3g at %s %zu (smallest atol that passes: %.3g)", d,
                    v->cmp.threshold, noun, w, v->cmp.smallest_atol);
    return strf("%s |Δ| %.3g > %.3g (smallest atol that passes: %.3g)", v->stat, d, v->cmp.threshold,
                v->cmp.smallest_atol);
}
