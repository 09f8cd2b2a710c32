/* A classifier's report parts (report_kind.h): its label in run's table,
 * its logits' difference from the reference in figures and in words. The
 * label-shaped expectations and the probabilities are story.c's own (every
 * kind may be asked for a label). */
#include "parity/report_kind.h"

void rk_label_cell(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k)
{
    char *const *labels = f->envs[e->env_index].labels;
    const px_example_result *x = &e->ex[k];
    sbuf_add(b, x->label >= 0 ? labels[x->label] : "?");
}

void rk_max_diffs(FILE *o, const px_fixture *f, const px_results *r, size_t k, size_t n_cand)
{
    (void)f;
    const char *sep = "  ";
    for (size_t i = 0; r->reference >= 0 && i < r->n_envs; i++) {
        if ((int)i == r->reference)
            continue;
        double d = results_max_abs_diff(&r->envs[r->reference].ex[k], &r->envs[i].ex[k]);
        if (d >= 0)
            fprintf(o, "%s%.4g", sep, d);
        else
            fprintf(o, "%s-", sep);
        sep = ", ";
    }
    fprintf(o, "%s\n", n_cand ? "" : "  -");
}

char *rk_tolerance_words(px_story_ctx *b, const px_verdict *v, const char *of)
{
    return rk_fmt(b, "%s |Δ%s| %.4g %s %.4g allowed%s", v->stat, of, v->cmp.value,
                  v->cmp.identical ? "(identical), within"
                  : v->cmp.pass    ? "within"
                                   : "over",
                  v->cmp.threshold, v->has_oracle ? " (judged against the oracle instead)" : "");
}

static char *logit_words(px_story_ctx *b, const px_verdict *v)
{
    return rk_tolerance_words(b, v, "logit");
}

const px_report_kind rk_classifier = {
    .run_cell = rk_label_cell,
    .run_diff = rk_max_diffs,
    .diff_per_candidate = 1,
    .story_diff = logit_words,
};
