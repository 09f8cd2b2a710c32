/* A training run's report parts (report_kind.h): its steps and its loss
 * from first to last in run's table, and the step where each candidate's
 * loss parts from the reference's; in check's text the outcome's words, a
 * "curve:" line (the first parting step of the loss, gradient norm and
 * update, its drop against the reference's, the parameters' worst group)
 * and the per-step figures around the parting step, and in check's JSON
 * every per-step figure ("training"); the recipe and compare.train in
 * words in the story; in the HTML report every environment's loss curve
 * drawn one over another (SVG, no script: the report's
 * Content-Security-Policy holds) with the parting step marked, and a table
 * of the figures; in Markdown the figures only (no picture: a report.md
 * stands alone, as an image's does); in export and repro bundles each
 * environment's per-step figures as CSV.
 *
 * Steps are said from 1 ("step 7 of 10"), as the judge's words say them;
 * check's JSON and the CSVs count from 0, as the results file does.
 * The parting step shown is the judge's (px_train_verdict.loss_step);
 * run's table, which has no judgement, finds it the way compare.train.loss
 * states it: the first step with |a - b| > atol + rtol·|b|. */
#include "parity/report_kind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"
#include "parity/emit.h"
#include "parity/recipe.h"
#include "parity/story.h"
#include "parity/textcell.h"

/* ---- the figures ---- */

/* Example k's loss curve in environment e (its values), NULL when it has
 * none; *n its steps. */
static const double *loss_of(const px_example_result *x, size_t *n)
{
    *n = 0;
    if (x->status != PX_ST_OK || !x->values || !x->n_values)
        return NULL;
    *n = x->n_values;
    return x->values;
}

static const px_train_verdict *train_verdict(const px_judgement *j, size_t e, size_t k)
{
    if (!j || e >= j->n_envs || k >= j->n_examples || !j->envs[e].ex)
        return NULL;
    return j->envs[e].ex[k].train;
}

/* Whether a parts from the reference's b under t (NULL or not present:
 * any difference parts); one finite and the other not parts. */
static int parts(const px_step_tol *t, double a, double b)
{
    if (isnan(a) && isnan(b))
        return 0;
    if (!isfinite(a) || !isfinite(b))
        return a != b;
    if (!t || !t->present)
        return a != b;
    return fabs(a - b) > t->atol + t->rtol * fabs(b);
}

/* The first step whose loss parts from the reference's under
 * compare.train.loss; -1 when none (over the shorter run; a run shorter
 * than the reference's parts at its end). *same: the curves are equal. */
static long first_parting(const px_fixture *f, const double *a, size_t na, const double *b, size_t nb, int *same)
{
    size_t n = na < nb ? na : nb;
    *same = na == nb;
    for (size_t s = 0; s < n; s++) {
        if (a[s] != b[s] && !(isnan(a[s]) && isnan(b[s])))
            *same = 0;
        if (parts(&f->train_cmp.loss, a[s], b[s]))
            return (long)s;
    }
    return na < nb ? (long)na : -1;
}

/* The mean of the last tenth of the steps (at least one), the judge's
 * "end of the run". */
static size_t tail_of(size_t n) { return n / 10 ? n / 10 : 1; }

static double tail_mean(const double *l, size_t n)
{
    double sum = 0;
    for (size_t s = n - tail_of(n); s < n; s++)
        sum += l[s];
    return sum / (double)tail_of(n);
}

/* The loss's drop as compare.train.learning measures it: the first step's
 * loss less the mean of the last tenth of the steps (at least one); NAN
 * when not finite or no steps. */
static double drop_of(const double *l, size_t n)
{
    if (!l || !n)
        return NAN;
    double d = l[0] - tail_mean(l, n);
    return isfinite(d) ? d : NAN;
}

/* The parameters' group farthest from the reference's: its index, -1 when
 * none was compared. */
static long worst_group(const px_train_verdict *tv)
{
    long w = -1;
    for (size_t g = 0; tv && tv->param_rel && g < tv->n_groups; g++)
        if (!isnan(tv->param_rel[g]) && (w < 0 || tv->param_rel[g] > tv->param_rel[w] || isinf(tv->param_rel[g])))
            w = (long)g;
    return w;
}

/* "4.21" (or nan, inf) with 3 significant digits. */
static void num(px_sbuf *b, double v) { sbuf_addf(b, "%.3g", v); }

/* ---- run's table ---- */

/* "50 steps, loss 4.21→1.83"; "no loss curve" without one. */
static void run_cell(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k)
{
    (void)f;
    size_t n;
    const double *l = loss_of(&e->ex[k], &n);
    if (!l) {
        sbuf_add(b, "no loss curve");
        return;
    }
    sbuf_addf(b, "%zu step%s, loss ", n, n == 1 ? "" : "s");
    num(b, l[0]), sbuf_add(b, "→"), num(b, l[n - 1]);
}

/* Each candidate's first step whose loss parts from the reference's:
 * "step 13"; "=" the same curve; "held" within compare.train.loss at
 * every step; "-" nothing to compare. */
static void run_diff(FILE *o, const px_fixture *f, const px_results *r, size_t k, size_t n_cand)
{
    const char *sep = "  ";
    size_t nb = 0;
    const double *b = r->reference >= 0 ? loss_of(&r->envs[r->reference].ex[k], &nb) : NULL;
    for (size_t i = 0; r->reference >= 0 && i < r->n_envs; i++) {
        if ((int)i == r->reference)
            continue;
        size_t na;
        const double *a = loss_of(&r->envs[i].ex[k], &na);
        fputs(sep, o), sep = ", ";
        if (!a || !b) {
            fputs("-", o);
            continue;
        }
        int same;
        long at = first_parting(f, a, na, b, nb, &same);
        if (at >= 0)
            fprintf(o, "step %ld", at + 1);
        else
            fputs(same ? "=" : "held", o);
    }
    fprintf(o, "%s\n", n_cand ? "" : "  -");
}

/* ---- the words ---- */

/* "loss parts at step 13 (grad_norm at step 12, update within); drop 2.38
 * against the reference's 2.41; params' worst group attention 0.012": a
 * candidate's curve against the reference's. */
static void curve_words(px_sbuf *b, const px_train_verdict *tv)
{
    if (tv->nonfinite_step >= 0)
        sbuf_addf(b, "not finite from step %ld; ", tv->nonfinite_step + 1);
    if (tv->loss_step >= 0)
        sbuf_addf(b, "loss parts at step %ld of %zu", tv->loss_step + 1, tv->n_steps);
    else
        sbuf_addf(b, "loss within compare.train.loss over %zu step%s", tv->n_steps, tv->n_steps == 1 ? "" : "s");
    const char *sep = " (";
    if (tv->grad_step >= 0)
        sbuf_addf(b, "%sgrad_norm at step %ld", sep, tv->grad_step + 1), sep = ", ";
    if (tv->update_step >= 0)
        sbuf_addf(b, "%supdate at step %ld", sep, tv->update_step + 1), sep = ", ";
    if (*sep == ',')
        sbuf_add(b, ")");
    if (!isnan(tv->drop) || !isnan(tv->ref_drop)) {
        sbuf_add(b, "; drop "), num(b, tv->drop);
        sbuf_add(b, " against the reference's "), num(b, tv->ref_drop);
    }
    long w = worst_group(tv);
    if (w >= 0) {
        sbuf_add(b, "; params' worst group ");
        sbuf_add(b, tv->group && tv->group[w] ? tv->group[w] : "?");
        sbuf_addf(b, " %.3g", tv->param_rel[w]);
    }
}

/* The reference's (or a run without a verdict of its own): "50 steps,
 * loss 4.21 → 1.83 (the last 5 steps' mean), drop 2.38": the end is the
 * mean the judge's drop is taken from, not the last step's loss, so that
 * the words and the drop are one figure. */
static void run_words(px_sbuf *b, const double *l, size_t n)
{
    sbuf_addf(b, "%zu step%s, loss ", n, n == 1 ? "" : "s");
    num(b, l[0]), sbuf_add(b, " → "), num(b, tail_mean(l, n));
    if (tail_of(n) > 1)
        sbuf_addf(b, " (the last %zu steps' mean)", tail_of(n));
    sbuf_add(b, ", drop "), num(b, drop_of(l, n));
}

/* ---- the story ---- */

/* The cell's copy of the run's figures (story.h px_story_train). */
static void story_cell(px_story_ctx *b, size_t e, size_t k, px_story_cell *c)
{
    const px_example_result *x = &b->r->envs[e].ex[k];
    size_t n;
    const double *l = loss_of(x, &n);
    if (!l)
        return;
    px_story_train *t = malloc(sizeof *t + 5 * n * sizeof(double));
    if (!t) {
        b->oom = 1;
        return;
    }
    memset(t, 0, sizeof *t);
    double *v = (double *)(t + 1);
    t->n = n;
    t->loss = v, t->grad_norm = v + n, t->update_norm = v + 2 * n, t->lr = v + 3 * n, t->step_ms = v + 4 * n;
    const px_train_out *o = x->train;
    for (size_t s = 0; s < n; s++) {
        int has = o && s < o->n_steps;
        t->loss[s] = l[s];
        t->grad_norm[s] = has && o->grad_norm ? o->grad_norm[s] : NAN;
        t->update_norm[s] = has && o->update_norm ? o->update_norm[s] : NAN;
        t->lr[s] = has && o->lr ? o->lr[s] : NAN;
        t->step_ms[s] = has && o->step_ms ? o->step_ms[s] : NAN;
    }
    t->startup_ms = o ? o->startup_ms : NAN;
    t->processes = o ? o->processes : 0;
    t->loss_step = t->grad_step = t->update_step = t->nonfinite_step = -1;
    t->drop = drop_of(l, n), t->ref_drop = NAN;
    t->worst_rel = NAN;
    const px_train_verdict *tv = train_verdict(b->j, e, k);
    int is_ref = (int)e == b->r->reference;
    if (tv) {
        t->loss_step = tv->loss_step, t->grad_step = tv->grad_step, t->update_step = tv->update_step;
        t->nonfinite_step = tv->nonfinite_step;
        if (!isnan(tv->drop))
            t->drop = tv->drop;
        t->ref_drop = tv->ref_drop;
        long w = worst_group(tv);
        if (w >= 0) {
            snprintf(t->worst_group, sizeof t->worst_group, "%s", tv->group && tv->group[w] ? tv->group[w] : "?");
            t->worst_rel = tv->param_rel[w];
        }
    } else if (!is_ref && b->r->reference >= 0) {
        /* No verdict of its own: where it parts, as run's table finds it. */
        size_t nb;
        const double *rl = loss_of(&b->r->envs[b->r->reference].ex[k], &nb);
        int same;
        if (rl)
            t->loss_step = first_parting(b->f, l, n, rl, nb, &same), t->ref_drop = drop_of(rl, nb);
    }
    for (size_t s = 0; s < n && t->nonfinite_step < 0 && !tv; s++)
        if (!isfinite(t->loss[s]))
            t->nonfinite_step = (long)s;
    c->train = t;
    const px_verdict *vd = &b->j->envs[e].ex[k];
    if (tv && !vd->has_cmp && !vd->not_compared && !is_ref) {
        px_sbuf w = PX_SBUF_INIT;
        curve_words(&w, tv);
        c->diff_words = sbuf_failed(&w) ? NULL : rk_red(b, sbuf_str(&w));
        b->oom |= sbuf_failed(&w);
        sbuf_free(&w);
    }
}

static char *story_diff(px_story_ctx *b, const px_verdict *v)
{
    if (!v->train)
        return rk_tolerance_words(b, v, "loss");
    px_sbuf w = PX_SBUF_INIT;
    curve_words(&w, v->train);
    char *t = sbuf_failed(&w) ? NULL : rk_red(b, sbuf_str(&w));
    b->oom |= sbuf_failed(&w);
    sbuf_free(&w);
    return t;
}

/* A run's expectation: its curve like the reference's, and its own
 * expect: {loss_at_most} when it has one (found by its expect's place). */
static void story_expect(const px_fixture *f, const px_expect *x, px_sbuf *b)
{
    sbuf_add(b, "a loss curve like the reference's within compare.train, its loss going down as the reference's does");
    for (size_t k = 0; k < f->n_examples; k++)
        if (&f->examples[k].expect == x && !isnan(f->examples[k].loss_at_most))
            sbuf_addf(b, "; its loss over the last tenth of its steps at most %g", f->examples[k].loss_at_most);
}

static const char *no_tolerance(const px_fixture *f)
{
    (void)f;
    return "loss curve: no per-element tolerance: compare.train's per-step checks below decide";
}

static void add_line(px_story_ctx *b, px_strs *l, char *line)
{
    char **v = line ? realloc(l->v, (l->n + 1) * sizeof *v) : NULL;
    if (!v) {
        free(line);
        b->oom = 1;
        return;
    }
    l->v = v;
    l->v[l->n++] = line;
}

static void story_contract(px_story_ctx *b)
{
    const px_fixture *f = b->f;
    const px_recipe *r = &f->recipe;
    b->s->train = rk_fmt(b,
                         "%s, lr %g (warm-up %d step%s, %s%s), clip %g; %d steps of %d windows × %d tokens, "
                         "the same order in every environment; the loss curve (mean cross-entropy, float32) and "
                         "each step's gradient norm and update compared step by step; an example's own train: "
                         "keys override these",
                         recipe_optimizer_name(r->optimizer), r->lr, r->warmup_steps, r->warmup_steps == 1 ? "" : "s",
                         r->decay == PX_DECAY_NONE ? "no" : recipe_decay_name(r->decay),
                         r->decay == PX_DECAY_NONE ? " decay" : " decay to a fraction of it", r->clip_grad_norm, r->steps, r->batch_size, r->seq_len);
    const px_train_checks *ck = &f->train_cmp;
    const struct {
        const px_step_tol *t;
        const char *what;
    } tols[] = {{&ck->loss, "loss"}, {&ck->grad_norm, "gradient norm"}, {&ck->update, "update's norm"}};
    for (size_t i = 0; i < sizeof tols / sizeof *tols; i++)
        if (tols[i].t->present)
            add_line(b, &b->s->tolerances,
                     rk_fmt(b,
                            "%s, each step: |Δ| ≤ atol %g + rtol %g·|reference|; the first step beyond it is the "
                            "earliest divergence: %s",
                            tols[i].what, tols[i].t->atol, tols[i].t->rtol,
                            tols[i].t->why ? tols[i].t->why : "(no why written)"));
    if (ck->params_present)
        add_line(b, &b->s->tolerances,
                 rk_fmt(b, "parameters at the end, each tensor group: ‖p − p_ref‖ / ‖p_ref‖ ≤ %g: %s",
                        ck->params_max_rel, ck->params_why ? ck->params_why : "(no why written)"));
    add_line(b, &b->s->tolerances,
             rk_fmt(b, "learning: the loss drops by at least %g of the reference's drop: %s",
                    ck->learning_min_fraction, ck->learning_why ? ck->learning_why : "(the default)"));
}

/* ---- check ---- */

/* The curve's words (a candidate's), or the run's (the reference's, or
 * one without a verdict); always shown: how the curve went is what one
 * reads check for. */
static char *check_words(const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                         int *show)
{
    size_t n;
    const double *l = loss_of(&r->envs[e].ex[k], &n);
    const px_train_verdict *tv = train_verdict(j, e, k);
    px_sbuf b = PX_SBUF_INIT;
    int cand = r->reference >= 0 && (size_t)r->reference != e;
    /* A verdict of no steps compared no curve (a run not evaluated, its
     * environment down): nothing to say of one. */
    if (tv && cand && tv->n_steps)
        curve_words(&b, tv);
    else if (l) {
        run_words(&b, l, n);
        /* A candidate without a verdict of its own: where it parts, as
         * run's table finds it. */
        size_t nb;
        const double *rl = cand ? loss_of(&r->envs[r->reference].ex[k], &nb) : NULL;
        int same;
        long at = rl ? first_parting(f, l, n, rl, nb, &same) : -1;
        if (at >= 0)
            sbuf_addf(&b, "; loss parts from the reference's at step %ld of %zu", at + 1, n);
    }
    if (!b.len || sbuf_failed(&b)) {
        sbuf_free(&b);
        return NULL;
    }
    *show = 1;
    return sbuf_take(&b);
}

/* The step a candidate's figures are shown around: the loss's parting
 * step, else the gradient norm's or the update's, else the first not
 * finite; -1 none. */
static long focus_step(const px_train_verdict *tv)
{
    if (!tv)
        return -1;
    return tv->loss_step >= 0     ? tv->loss_step
           : tv->grad_step >= 0   ? tv->grad_step
           : tv->update_step >= 0 ? tv->update_step
                                  : tv->nonfinite_step;
}

enum { AROUND = 2 }; /* steps shown before and after the parting one */

/* The per-step figures around the parting step: the steps before it and
 * after, the reference's loss beside the candidate's. */
static void check_lines(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                        int indent)
{
    (void)f;
    const px_train_verdict *tv = train_verdict(j, e, k);
    long at = focus_step(tv);
    size_t n, nb = 0;
    const double *l = loss_of(&r->envs[e].ex[k], &n);
    const double *rl = r->reference >= 0 ? loss_of(&r->envs[r->reference].ex[k], &nb) : NULL;
    if (at < 0 || !l || (r->reference >= 0 && (size_t)r->reference == e))
        return;
    const px_train_out *t = r->envs[e].ex[k].train;
    /* (|Δloss| padded by hand: printf pads bytes, Δ is two.) */
    fprintf(o, "%*s%-6s %-11s %-11s |Δloss|    %-10s %-10s %s\n", indent, "", "step", "loss", "reference", "grad_norm",
            "update", "lr");
    long from = at > AROUND ? at - AROUND : 0, to = at + AROUND;
    for (long s = from; s <= to && (size_t)s < n; s++) {
        double ref = rl && (size_t)s < nb ? rl[s] : NAN;
        int ht = t && (size_t)s < t->n_steps;
        fprintf(o, "%*s%-6ld %-11.6g %-11.6g %-10.3g %-10.4g %-10.4g %.3g%s\n", indent, "", s + 1, l[s], ref,
                fabs(l[s] - ref), ht && t->grad_norm ? t->grad_norm[s] : NAN,
                ht && t->update_norm ? t->update_norm[s] : NAN, ht && t->lr ? t->lr[s] : NAN,
                s == at ? "  ← parts" : "");
    }
}

static void json_doubles(FILE *o, const double *v, size_t n)
{
    fputc('[', o);
    for (size_t i = 0; v && i < n; i++) {
        if (i)
            fputc(',', o);
        rk_json_double_or_null(o, v[i]);
    }
    fputc(']', o);
}

static void json_step(FILE *o, const char *key, long s)
{
    rk_json_key(o, key);
    if (s >= 0)
        fprintf(o, "%ld,", s);
    else
        fputs("null,", o);
}

/* "training": every per-step figure, the reference's loss beside it, the
 * verdict's steps and drops, the groups' relative difference; null when
 * it has neither a loss curve nor a verdict. */
static void json_training(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e,
                          size_t k, const px_verdict *v)
{
    (void)f, (void)j;
    const px_example_result *x = &r->envs[e].ex[k];
    const px_train_out *t = x->train;
    const px_train_verdict *tv = v->train;
    size_t n, nb = 0;
    const double *l = loss_of(x, &n);
    const double *rl = r->reference >= 0 ? loss_of(&r->envs[r->reference].ex[k], &nb) : NULL;
    rk_json_key(o, "training");
    if (!l && !tv && !t) {
        fputs("null,", o);
        return;
    }
    size_t steps = l ? n : t ? t->n_steps : 0;
    fputc('{', o);
    rk_json_key(o, "steps"), fprintf(o, "%zu,", steps);
    rk_json_key(o, "loss"), json_doubles(o, l, n), fputc(',', o);
    rk_json_key(o, "grad_norm"), json_doubles(o, t ? t->grad_norm : NULL, t ? t->n_steps : 0), fputc(',', o);
    rk_json_key(o, "update_norm"), json_doubles(o, t ? t->update_norm : NULL, t ? t->n_steps : 0), fputc(',', o);
    rk_json_key(o, "lr"), json_doubles(o, t ? t->lr : NULL, t ? t->n_steps : 0), fputc(',', o);
    rk_json_key(o, "step_ms"), json_doubles(o, t ? t->step_ms : NULL, t ? t->n_steps : 0), fputc(',', o);
    rk_json_key(o, "reference_loss");
    if (rl && (size_t)r->reference != e)
        json_doubles(o, rl, nb);
    else
        fputs("null", o);
    fputc(',', o);
    rk_json_key(o, "loss_diff");
    if (tv && tv->loss_diff)
        json_doubles(o, tv->loss_diff, tv->n_steps);
    else
        fputs("null", o);
    fputc(',', o);
    json_step(o, "loss_step", tv ? tv->loss_step : -1);
    json_step(o, "grad_step", tv ? tv->grad_step : -1);
    json_step(o, "update_step", tv ? tv->update_step : -1);
    long nf = tv ? tv->nonfinite_step : -1;
    for (size_t s = 0; !tv && l && s < n && nf < 0; s++)
        if (!isfinite(l[s]))
            nf = (long)s;
    json_step(o, "nonfinite_step", nf);
    rk_json_key(o, "drop"), rk_json_double_or_null(o, tv && !isnan(tv->drop) ? tv->drop : drop_of(l, n)),
        fputc(',', o);
    rk_json_key(o, "ref_drop"), rk_json_double_or_null(o, tv ? tv->ref_drop : NAN), fputc(',', o);
    rk_json_key(o, "params"), fputc('{', o);
    for (size_t g = 0; tv && tv->param_rel && g < tv->n_groups; g++) {
        fputs(g ? "," : "", o);
        rk_json_key(o, tv->group && tv->group[g] ? tv->group[g] : "?");
        rk_json_double_or_null(o, tv->param_rel[g]);
    }
    fputs("},", o);
    rk_json_key(o, "startup_ms"), rk_json_double_or_null(o, t ? t->startup_ms : NAN), fputc(',', o);
    rk_json_key(o, "failed"), rk_json_str_or_null(o, tv ? tv->failed : NULL);
    fputs("},", o);
}

/* ---- the reports: words ---- */

static void md_output(FILE *o, const px_story *s) { fputs("Training: ", o), md_text(o, s->train ? s->train : ""); }

static void html_output(FILE *o, const px_story *s)
{
    fputs("Training: ", o), html_text(o, s->train ? s->train : "");
}

/* "50 steps, loss 4.21→1.83"; "no loss curve". */
static void cell_words(char *buf, size_t size, const px_story_cell *c)
{
    const px_story_train *t = c->train;
    if (!t || !t->n)
        snprintf(buf, size, "no loss curve");
    else
        snprintf(buf, size, "%zu step%s, loss %.3g→%.3g", t->n, t->n == 1 ? "" : "s", t->loss[0], t->loss[t->n - 1]);
}

static void md_cell(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    char w[96];
    cell_words(w, sizeof w, c);
    md_cell_text(o, w);
}

static void html_cell(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    char w[96];
    cell_words(w, sizeof w, c);
    html_text(o, w);
}

/* ---- the reports: figures ---- */

static const px_story_train *cell_train(const px_story *s, size_t e, size_t k)
{
    const px_story_cell *c = &s->examples[k].cells[e];
    return c->present ? c->train : NULL;
}

/* A step or "—". */
static void step_text(char *buf, size_t size, long s)
{
    if (s >= 0)
        snprintf(buf, size, "step %ld", s + 1);
    else
        snprintf(buf, size, "—");
}

/* The mean of the finite values of v[0..n) (NAN: none). */
static double mean_of(const double *v, size_t n)
{
    double sum = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            sum += v[i], m++;
    return m ? sum / (double)m : NAN;
}

/* One environment's figures, as cells: steps, first and last loss, drop,
 * where loss, gradient norm and update part, the worst group, start-up
 * and mean step time. */
enum { N_FIG = 10 };
static const char *const fig_titles[N_FIG] = {"Steps",          "Loss first",  "Loss last",  "Drop",
                                              "Loss parts at",  "grad_norm at", "update at", "Worst group",
                                              "Start-up ms",    "Mean step ms"};

static void fig_cells(const px_story_train *t, int is_ref, char out[N_FIG][96])
{
    snprintf(out[0], 96, "%zu", t->n);
    snprintf(out[1], 96, "%.4g", t->loss[0]);
    snprintf(out[2], 96, "%.4g", t->loss[t->n - 1]);
    snprintf(out[3], 96, "%.3g", t->drop);
    if (is_ref) {
        snprintf(out[4], 96, "(reference)");
        snprintf(out[5], 96, "—"), snprintf(out[6], 96, "—");
    } else {
        step_text(out[4], 96, t->loss_step);
        step_text(out[5], 96, t->grad_step);
        step_text(out[6], 96, t->update_step);
    }
    if (t->worst_group[0] && !is_ref)
        snprintf(out[7], 96, "%s %.3g", t->worst_group, t->worst_rel);
    else
        snprintf(out[7], 96, "—");
    snprintf(out[8], 96, "%.0f", t->startup_ms);
    snprintf(out[9], 96, "%.1f", mean_of(t->step_ms, t->n));
}

/* The candidate whose loss parts first and that step (-1: none parts). */
static long first_parting_env(const px_story *s, size_t k, size_t *env)
{
    long at = -1;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_train *t = cell_train(s, e, k);
        if ((int)e != s->reference && t && t->loss_step >= 0 && (at < 0 || t->loss_step < at))
            at = t->loss_step, *env = e;
    }
    return at;
}

static void md_table_head(FILE *o, const char *const *t, size_t n)
{
    fputs("|", o);
    for (size_t i = 0; i < n; i++)
        fputs(" ", o), md_cell_text(o, t[i]), fputs(" |", o);
    fputs("\n|", o);
    for (size_t i = 0; i < n; i++)
        fputs("---|", o);
    fputc('\n', o);
}

/* Whether some environment has a step of example k to show. */
static int any_figures(const px_story *s, size_t k)
{
    for (size_t e = 0; e < s->n_envs; e++)
        if (cell_train(s, e, k) && cell_train(s, e, k)->n)
            return 1;
    return 0;
}

/* Example k's figures in Markdown: a table of every environment's, then
 * the losses at the steps around the first parting step. No picture:
 * the curves are in the HTML report and an export's training/ CSVs. */
static void md_extra(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    (void)j;
    if (!any_figures(s, k))
        return;
    fputs("Training figures (the loss curves are drawn in the HTML report; every step is in an export's "
          "`training/`):\n\n",
          o);
    const char *head[N_FIG + 1] = {"Environment"};
    for (size_t i = 0; i < N_FIG; i++)
        head[i + 1] = fig_titles[i];
    md_table_head(o, head, N_FIG + 1);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_train *t = cell_train(s, e, k);
        if (!t || !t->n)
            continue;
        char c[N_FIG][96];
        fig_cells(t, (int)e == s->reference, c);
        fputs("| ", o), md_cell_text(o, s->envs[e].name);
        for (size_t i = 0; i < N_FIG; i++)
            fputs(" | ", o), md_cell_text(o, c[i]);
        fputs(" |\n", o);
    }
    fputc('\n', o);
    size_t pe = 0;
    long at = first_parting_env(s, k, &pe);
    if (at < 0)
        return;
    fputs("Loss at the steps around the first parting step (", o);
    md_text(o, s->envs[pe].name);
    fprintf(o, ", step %ld):\n\n| Step |", at + 1);
    size_t cols = 1;
    for (size_t e = 0; e < s->n_envs; e++)
        if (cell_train(s, e, k))
            fputs(" ", o), md_cell_text(o, s->envs[e].name), fputs(" |", o), cols++;
    fputs("\n|", o);
    for (size_t i = 0; i < cols; i++)
        fputs("---|", o);
    fputc('\n', o);
    for (long st = at > AROUND ? at - AROUND : 0; st <= at + AROUND; st++) {
        int row = 0;
        for (size_t e = 0; e < s->n_envs; e++)
            row |= cell_train(s, e, k) && (size_t)st < cell_train(s, e, k)->n;
        if (!row)
            break;
        fprintf(o, "| %s%ld%s |", st == at ? "**" : "", st + 1, st == at ? "**" : "");
        for (size_t e = 0; e < s->n_envs; e++) {
            const px_story_train *t = cell_train(s, e, k);
            if (!t)
                continue;
            if ((size_t)st < t->n)
                fprintf(o, " %.6g |", t->loss[st]);
            else
                fputs(" — |", o);
        }
        fputc('\n', o);
    }
    fputc('\n', o);
}

enum { SW = 560, SH = 240, SL = 56, SR = 12, ST = 12, SB = 40 }; /* the chart, its margins */
enum { N_COLOURS = 6 };

/* Every environment's loss curve, one over another: the reference solid,
 * each candidate dashed in its own colour, a legend, the axes with the
 * step and loss ranges, each candidate's parting step a vertical line
 * with its label. A step whose loss is not finite breaks its line. */
static void html_curves(FILE *o, const px_story *s, size_t k)
{
    size_t max_n = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_train *t = cell_train(s, e, k);
        for (size_t i = 0; t && i < t->n; i++)
            if (isfinite(t->loss[i]))
                lo = t->loss[i] < lo ? t->loss[i] : lo, hi = t->loss[i] > hi ? t->loss[i] : hi;
        if (t && t->n > max_n)
            max_n = t->n;
    }
    if (!max_n)
        return;
    if (!(lo <= hi))
        lo = 0, hi = 1;
    if (hi - lo < 1e-12)
        lo -= 0.5, hi += 0.5;
    double pad = (hi - lo) * 0.05;
    lo -= pad, hi += pad;
    int pw = SW - SL - SR, ph = SH - ST - SB;
    double span = max_n > 1 ? (double)(max_n - 1) : 1;
    fprintf(o, "<figure class=\"chart\"><svg class=\"loss-chart\" role=\"img\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
            SW, SH, SW, SH);
    fputs("The loss at each step in every environment", o);
    size_t pe = 0;
    long first = first_parting_env(s, k, &pe);
    if (first >= 0)
        fputs("; ", o), html_text(o, s->envs[pe].name), fprintf(o, " parts from the reference at step %ld", first + 1);
    fputs("</title>", o);
    /* Axes: the loss's range on the left, the steps below. */
    fprintf(o, "<rect class=\"track\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", SL, ST, pw, ph);
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>", SL - 4, ST + 10, hi);
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>", SL - 4, ST + ph, lo);
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"axis\">loss</text>", SL - 4, ST + ph / 2);
    fprintf(o, "<text x=\"%d\" y=\"%d\">step 1</text>", SL, ST + ph + 14);
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">step %zu</text>", SL + pw, ST + ph + 14, max_n);
    /* The curves: the reference last, drawn over the others. */
    size_t colour = 0, drawn = 0;
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t e = 0; e < s->n_envs; e++) {
            const px_story_train *t = cell_train(s, e, k);
            int is_ref = (int)e == s->reference;
            if (!t || !t->n || (pass == 0) == is_ref)
                continue;
            size_t c = is_ref ? 0 : 1 + colour++ % (N_COLOURS - 1);
            fprintf(o, "<path class=\"loss c%zu%s\" d=\"", c, is_ref ? "" : " cand");
            int pen = 0;
            for (size_t i = 0; i < t->n; i++) {
                if (!isfinite(t->loss[i])) {
                    pen = 0;
                    continue;
                }
                double y = (t->loss[i] - lo) / (hi - lo);
                fprintf(o, "%s%.1f %.1f", pen ? " L" : (i ? " M" : "M"), SL + pw * (double)i / span,
                        ST + ph * (1 - y));
                pen = 1;
            }
            fputs("\"><title>", o), html_text(o, s->envs[e].name), fputs("</title></path>", o);
            /* Its legend: a sample of its line and its name, below the axis. */
            double lx = SL + (double)(drawn % 3) * (pw / 3.0), ly = ST + ph + 28 + (double)(drawn / 3) * 12;
            if (drawn < 6) {
                fprintf(o, "<line class=\"loss c%zu%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", c,
                        is_ref ? "" : " cand", lx, lx + 18, ly - 4, ly - 4);
                fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">", lx + 22, ly), html_text(o, s->envs[e].name);
                if (is_ref)
                    fputs(" (reference)", o);
                fputs("</text>", o);
            }
            drawn++;
            if (!is_ref && t->loss_step >= 0 && (size_t)t->loss_step < max_n) {
                double x = SL + pw * (double)t->loss_step / span;
                fprintf(o, "<line class=\"part c%zu\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", c, x, x, ST,
                        ST + ph);
                fprintf(o, "<text class=\"part\" x=\"%.1f\" y=\"%.1f\"%s>", x + (x > SL + pw / 2 ? -3 : 3),
                        (double)ST + 10 + 11 * (double)(colour - 1 < 8 ? colour - 1 : 8),
                        x > SL + pw / 2 ? " text-anchor=\"end\"" : "");
                html_text(o, s->envs[e].name);
                fprintf(o, " parts at step %ld</text>", t->loss_step + 1);
            }
        }
    fputs("</svg></figure>\n", o);
}

/* Example k's loss curves and a table of their figures, then the losses
 * around the first parting step. */
static void html_extra(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    (void)j;
    if (!any_figures(s, k))
        return;
    html_curves(o, s, k);
    fputs("<table class=\"train-figures\"><tr><th>Environment</th>", o);
    for (size_t i = 0; i < N_FIG; i++)
        html_tag(o, "<th>", fig_titles[i], "</th>");
    fputs("</tr>\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_train *t = cell_train(s, e, k);
        if (!t || !t->n)
            continue;
        char c[N_FIG][96];
        fig_cells(t, (int)e == s->reference, c);
        html_tag(o, "<tr><td>", s->envs[e].name, "</td>");
        for (size_t i = 0; i < N_FIG; i++)
            html_tag(o, i == 4 && t->loss_step >= 0 ? "<td class=\"unmet\">" : "<td>", c[i], "</td>");
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
    size_t pe = 0;
    long at = first_parting_env(s, k, &pe);
    if (at < 0)
        return;
    fputs("<table class=\"train-steps\"><tr><th>Step</th>", o);
    for (size_t e = 0; e < s->n_envs; e++)
        if (cell_train(s, e, k))
            html_tag(o, "<th>", s->envs[e].name, " loss</th>");
    fputs("</tr>\n", o);
    for (long st = at > AROUND ? at - AROUND : 0; st <= at + AROUND; st++) {
        int row = 0;
        for (size_t e = 0; e < s->n_envs; e++)
            row |= cell_train(s, e, k) && (size_t)st < cell_train(s, e, k)->n;
        if (!row)
            break;
        fprintf(o, "<tr%s><td>%ld</td>", st == at ? " class=\"parts\"" : "", st + 1);
        for (size_t e = 0; e < s->n_envs; e++) {
            const px_story_train *t = cell_train(s, e, k);
            if (!t)
                continue;
            if ((size_t)st < t->n)
                fprintf(o, "<td>%.6g</td>", t->loss[st]);
            else
                fputs("<td>—</td>", o);
        }
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static const char *html_css(const px_story *s, const px_judgement *j)
{
    (void)s, (void)j;
    return "svg.loss-chart text{font-size:10px;fill:var(--muted)}svg .track{fill:none;stroke:var(--line)}"
           "svg .loss{fill:none;stroke-width:1.5}svg .loss.cand{stroke-dasharray:5 3}"
           "svg .c0{stroke:var(--fg);stroke-width:2}svg .c1{stroke:var(--bar)}svg .c2{stroke:var(--bad)}"
           "svg .c3{stroke:var(--warn)}svg .c4{stroke:var(--bar2)}svg .c5{stroke:var(--ok)}"
           "svg line.part{stroke-width:1.5;stroke-dasharray:2 2}svg text.part{fill:var(--bad)}"
           "tr.parts td{font-weight:600}";
}

/* ---- export and repro bundles ---- */


/* A figure, "nan" or "inf" as it was; an empty field when not recorded. */
static void csv_num(px_sbuf *b, int recorded, double v)
{
    if (recorded)
        sbuf_addf(b, "%.17g", v);
}

/* training/K-ID/ENV-steps.csv for each environment with a loss curve:
 * "step,loss,grad_norm,update_norm,lr,step_ms", one row a step. */
static int export_steps(const px_fixture *f, const px_results *r, const px_judgement *j, size_t k,
                        const unsigned char *want, px_bundle_put put, void *ctx, px_error *err)
{
    (void)j;
    char id[96], env[96], rel[320];
    report_safe_name(id, sizeof id, f->examples[k].id);
    int n_files = 0;
    for (size_t e = 0; e < r->n_envs; e++) {
        size_t n;
        const px_example_result *x = &r->envs[e].ex[k];
        const double *l = loss_of(x, &n);
        if ((want && !want[e]) || !l)
            continue;
        const px_train_out *t = x->train;
        px_sbuf b = PX_SBUF_INIT;
        sbuf_add(&b, "step,loss,grad_norm,update_norm,lr,step_ms\n");
        for (size_t s = 0; s < n; s++) {
            int ht = t && s < t->n_steps;
            sbuf_addf(&b, "%zu,", s), csv_num(&b, 1, l[s]), sbuf_addc(&b, ',');
            csv_num(&b, ht && t->grad_norm, ht && t->grad_norm ? t->grad_norm[s] : 0), sbuf_addc(&b, ',');
            csv_num(&b, ht && t->update_norm, ht && t->update_norm ? t->update_norm[s] : 0), sbuf_addc(&b, ',');
            csv_num(&b, ht && t->lr, ht && t->lr ? t->lr[s] : 0), sbuf_addc(&b, ',');
            csv_num(&b, ht && t->step_ms, ht && t->step_ms ? t->step_ms[s] : 0), sbuf_addc(&b, '\n');
        }
        report_safe_name(env, sizeof env, r->envs[e].name);
        snprintf(rel, sizeof rel, "training/%zu-%s/%s-steps.csv", k + 1, id, env);
        if (sbuf_failed(&b)) {
            sbuf_free(&b);
            return px_error_oom(err, rel);
        }
        int rc = put(ctx, rel, sbuf_str(&b), b.len);
        sbuf_free(&b);
        if (rc)
            return -1;
        n_files++;
    }
    return n_files;
}

const px_report_kind rk_training = {
    .run_cell = run_cell,
    .run_diff = run_diff,
    .diff_per_candidate = 1,
    .story_cell = story_cell,
    .story_diff = story_diff,
    .story_expect = story_expect,
    .story_no_tolerance = no_tolerance,
    .story_contract = story_contract,
    .check_words = check_words,
    .check_words_label = "curve",
    .check_lines = check_lines,
    .check_json_example = json_training,
    .cell_title = "Loss curve",
    .md_output = md_output,
    .html_output = html_output,
    .md_cell = md_cell,
    .html_cell = html_cell,
    .md_example_extra = md_extra,
    .html_example_extra = html_extra,
    .html_css = html_css,
    .export_example = export_steps,
    .export_readme = "`training/`: each training run's per-step figures, one directory each (`N-ID/`): every "
                     "environment's as `ENV-steps.csv` (step,loss,grad_norm,update_norm,lr,step_ms; nan or inf as "
                     "it was, an empty field where it was not recorded; step from 0, as in the results file).",
};
