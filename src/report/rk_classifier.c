/* A classifier's report parts (report_kind.h): its label in run's table
 * and the reports, its logits' difference from the reference in figures
 * and in words, its labels in the reports' contract. The label-shaped
 * expectations and the probabilities are story.c's own (every kind may be
 * asked for a label), and so are the HTML report's charts of them. */
#include "parity/report_kind.h"

#include <string.h>

#include "report_fmt.h"
#include "parity/story.h"

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

/* ---- the reports ---- */

/* The decided label's probability, " (94.8%)". */
static void label_percent(FILE *o, const px_story *s, const px_story_cell *c)
{
    for (size_t i = 0; c->probs && i < c->n_probs && i < s->n_labels; i++)
        if (!strcmp(s->labels[i], c->label))
            fprintf(o, " (%.1f%%)", 100 * c->probs[i]);
}

void rk_md_label(FILE *o, const px_story *s, const px_story_cell *c)
{
    md_cell_text(o, c->label ? c->label : "—");
    if (c->label)
        label_percent(o, s, c);
}

void rk_html_label(FILE *o, const px_story *s, const px_story_cell *c)
{
    if (!c->label) {
        fputs("—", o);
        return;
    }
    html_text(o, c->label);
    label_percent(o, s, c);
}

static void md_labels(FILE *o, const px_story *s)
{
    fputs("Labels, in the model's output order: ", o);
    for (size_t i = 0; i < s->n_labels; i++)
        fputs(i ? ", " : "", o), md_text(o, s->labels[i]);
}

static void html_labels(FILE *o, const px_story *s)
{
    fputs("Labels, in the model's output order: ", o);
    for (size_t i = 0; i < s->n_labels; i++)
        html_tag(o, i ? ", <code>" : "<code>", s->labels[i], "</code>");
}

const px_report_kind rk_classifier = {
    .run_cell = rk_label_cell,
    .run_diff = rk_max_diffs,
    .diff_per_candidate = 1,
    .story_diff = logit_words,
    .cell_title = "Label",
    .md_output = md_labels,
    .html_output = html_labels,
    .md_cell = rk_md_label,
    .html_cell = rk_html_label,
};
