/* A training run's examples (judge_kind.h): each example is one run of its
 * recipe (fixture.h px_recipe), its loss curve the example's values
 * ([1, steps]) and its per-step gradient and update norms, learning rates
 * and tensor groups in x->train (results.h px_train_out).
 *
 * The run's own checks, in every environment (the reference too): its
 * loss and gradient norm finite at every step (loss-not-finite, naming the
 * first step), a curve of its recipe's steps with a norm for each
 * (bad-shape), and its expect.loss_at_most against the mean loss of its
 * last tenth of steps (not-learning). Then, in a candidate, against the
 * reference's run of the same example (compare.train): its drop (the
 * first step's loss less the mean of the last tenth) against
 * learning.min_fraction of the reference's (not-learning first: a run that
 * learns nothing is the finding), then its loss, gradient norm and update
 * norm step by step and each tensor group's parameters at the end
 * (curve-changed), else pass (the curve and both norms bit for bit the
 * reference's) or pass-within-tolerance.
 *
 * It parts from the reference at the first step its loss is beyond
 * compare.train.loss (else its gradient norm, else its update norm; the
 * parameters alone: the last step). The twin tells precision from the
 * device by where its own run parts: at or before max(2, steps / 20)
 * steps after the candidate's parting step is precision (twin_slack).
 * Steps are 0-based in the verdict, 1-based in words ("step 7 of 50").
 *
 * Another number of steps: a run that recorded other than its recipe's
 * steps is bad-shape (its own check: not the run the contract asks for,
 * and a drop over 40 steps is not one over 50), its common steps still
 * compared; a candidate whose reference did so is not compared (never
 * blamed for the reference's run). Where no recipe says the steps,
 * another number than the reference's is curve-changed ("ran 40 steps,
 * the reference 50"), the common steps compared. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/judge.h"
#include "parity/recipe.h"
#include "parity/sbuf.h"
#include "parity/strf.h"

/* How close the twin's parting step must be to the candidate's for the
 * two to part "the same way": at or before max(TWIN_SLACK_MIN, steps /
 * TWIN_SLACK_DIV) steps after it. A run's difference from the reference
 * grows step by step from where the arithmetic first differs; where it
 * crosses a tolerance depends on how large the first difference was, so
 * precision's own (the twin's) may cross a step or two later than a
 * candidate whose rounding differs alike. 5% of the run, at least 2
 * steps: a twin that keeps to the reference longer than that kept to it
 * where the candidate parted (the device). */
enum { TWIN_SLACK_MIN = 2, TWIN_SLACK_DIV = 20 };

/* learning.min_fraction where it is not a fraction (the loader gives
 * 0.1 when compare.train.learning is not written, and refuses anything
 * outside [0, 1]; 0, written, holds a run only to a loss that does not
 * rise). */
#define LEARNING_DEFAULT 0.1

static long twin_slack(size_t steps)
{
    long s = (long)(steps / TWIN_SLACK_DIV);
    return s > TWIN_SLACK_MIN ? s : TWIN_SLACK_MIN;
}

static double learning_fraction(const px_train_checks *c)
{
    double fr = c->learning_min_fraction;
    return fr >= 0 && fr <= 1 ? fr : LEARNING_DEFAULT;
}

/* The recipe's steps for example k; 0 when not known. */
static int recipe_steps(const px_fixture *f, size_t k)
{
    const px_recipe *r = f->examples[k].recipe;
    return r && r->steps > 0 ? r->steps : 0;
}

/* The steps a run's words count ("of 50"): the recipe's, else n. */
static long steps_said(const px_fixture *f, size_t k, size_t n)
{
    int s = recipe_steps(f, k);
    return s ? s : (long)n;
}

/* A curve to judge: a loss per step ([1, n], n >= 1) and a gradient and an
 * update norm for each. */
static int has_curve(const px_example_result *x)
{
    const px_train_out *t = x->train;
    return x->values && x->n_values >= 1 && x->ndim == 2 && x->shape[0] == 1 &&
           x->shape[1] == (int64_t)x->n_values && t && t->n_steps == x->n_values && t->grad_norm &&
           t->update_norm;
}

/* The curve of the recipe's steps. */
static int run_whole(const px_fixture *f, size_t k, const px_example_result *x)
{
    int s = recipe_steps(f, k);
    return has_curve(x) && (!s || x->n_values == (size_t)s);
}

/* The first step whose loss or gradient norm is a NaN or an infinity; -1
 * when none. *grad: 1 when the loss there is finite (the norm is not). */
static long first_nonfinite(const px_example_result *x, int *grad)
{
    const px_train_out *t = x->train;
    size_t ng = t && t->grad_norm ? t->n_steps : 0, n = x->values ? x->n_values : 0;
    size_t m = n > ng ? n : ng;
    for (size_t i = 0; i < m; i++) {
        int lb = i < n && !isfinite(x->values[i]), gb = i < ng && !isfinite(t->grad_norm[i]);
        if (lb || gb) {
            *grad = !lb;
            return (long)i;
        }
    }
    *grad = 0;
    return -1;
}

/* The reference's run to compare with: ran whole and finite. */
static int ref_usable(const px_fixture *f, size_t k, const px_example_result *x)
{
    int grad;
    return x && x->status == PX_ST_OK && run_whole(f, k, x) && first_nonfinite(x, &grad) < 0;
}

/* The steps the mean at the end is taken over: the last tenth (n / 10),
 * at least one. */
static size_t tail_len(size_t n)
{
    size_t t = n / 10;
    return t ? t : 1;
}

static double tail_mean(const double *loss, size_t n)
{
    size_t t = tail_len(n);
    double s = 0;
    for (size_t i = n - t; i < n; i++)
        s += loss[i];
    return s / (double)t;
}

/* The first step's loss less the mean of the last tenth. */
static double drop_of(const double *loss, size_t n) { return n ? loss[0] - tail_mean(loss, n) : NAN; }

static const char *num_word(double y) { return isnan(y) ? "nan" : y > 0 ? "inf" : "-inf"; }

/* Two figures with the fewest significant digits (4 up) that tell them
 * apart (the same when they are equal). */
static void pair_str(char *a, char *b, size_t size, double x, double y)
{
    for (int d = 4; d <= 17; d++) {
        snprintf(a, size, "%.*g", d, x);
        snprintf(b, size, "%.*g", d, y);
        if (x == y || strcmp(a, b))
            break;
    }
}

/* The first step (bad) whose loss, or gradient norm (grad), is not
 * finite, in words: "the loss is nan at step 7 of 50". */
static char *nonfinite_words(const px_example_result *x, long bad, int grad, long steps)
{
    if (grad)
        return strf("the gradient norm is %s at step %ld of %ld (loss %.6g)", num_word(x->train->grad_norm[bad]),
                    bad + 1, steps, x->values[bad]);
    return strf("the loss is %s at step %ld of %ld", num_word(x->values[bad]), bad + 1, steps);
}

/* The quantities compared step by step. */
enum { Q_LOSS, Q_GRAD, Q_UPDATE, Q_COUNT };
static const char *const q_name[Q_COUNT] = {"loss", "grad_norm", "update_norm"};

static const px_step_tol *q_tol(const px_train_checks *c, int q)
{
    return q == Q_LOSS ? &c->loss : q == Q_GRAD ? &c->grad_norm : &c->update;
}

static const double *q_values(const px_example_result *x, int q)
{
    return q == Q_LOSS ? x->values : q == Q_GRAD ? x->train->grad_norm : x->train->update_norm;
}

/* |a - b| <= atol + rtol * |b| (b the reference's); a NaN against a NaN,
 * an infinity against the same, are alike (compare.h's rule). */
static int step_within(double a, double b, const px_step_tol *t)
{
    if (!isfinite(a) || !isfinite(b))
        return (isnan(a) && isnan(b)) || a == b;
    return fabs(a - b) <= t->atol + t->rtol * fabs(b);
}

/* Quantity q beyond its tolerance at step i of n (a here, b the
 * reference's), in words: "loss parts at step 13 of 50: 3.412 vs the
 * reference's 3.398 (|Δ| 0.014 > 0.005 + 0.001·|b|); 38 of 50 steps
 * beyond". */
static char *step_words(int q, const px_step_tol *t, long i, long steps, const double *a, const double *b, size_t n)
{
    size_t beyond = 0;
    for (size_t s = 0; s < n; s++)
        beyond += !step_within(a[s], b[s], t);
    char sa[40], sb[40];
    pair_str(sa, sb, sizeof sa, a[i], b[i]);
    if (!isfinite(a[i]) || !isfinite(b[i]))
        return strf("%s parts at step %ld of %ld: %s vs the reference's %s (no tolerance covers a NaN or an "
                    "infinity on one side); %zu of %zu steps beyond",
                    q_name[q], i + 1, steps, sa, sb, beyond, n);
    return strf("%s parts at step %ld of %ld: %s vs the reference's %s (|Δ| %.3g > %g + %g·|b|); %zu of %zu steps "
                "beyond",
                q_name[q], i + 1, steps, sa, sb, fabs(a[i] - b[i]), t->atol, t->rtol, beyond, n);
}

static const px_train_group *group_named(const px_train_out *t, const char *name)
{
    for (size_t i = 0; i < t->n_groups; i++)
        if (t->groups[i].name && name && !strcmp(t->groups[i].name, name))
            return &t->groups[i];
    return NULL;
}

/* ||p - p_ref|| / ||p_ref|| estimated from the two sketches: the
 * sketches' distance / sqrt(PX_TRAIN_SKETCH), over the reference's norm.
 * NAN when the groups hold another number of parameters (not the same
 * tensors). */
static double group_rel(const px_train_group *a, const px_train_group *b)
{
    if (a->numel != b->numel)
        return NAN;
    double d[PX_TRAIN_SKETCH];
    for (int i = 0; i < PX_TRAIN_SKETCH; i++)
        d[i] = a->sketch[i] - b->sketch[i];
    double est = compare_norm(d, PX_TRAIN_SKETCH) / sqrt((double)PX_TRAIN_SKETCH);
    if (b->norm > 0)
        return est / b->norm;
    return est == 0 ? 0 : isnan(est) ? NAN : INFINITY;
}

/* The tensor groups against the reference's, matched by name: each
 * group's estimate into tv (when not NULL: group, param_rel, n_groups),
 * and, when compare.train.params is present, the groups beyond
 * params.max_rel (a NaN is beyond), of another size, or on one side only,
 * in words into b ("params: mlp ≈ 0.031 > 0.01"). 1 when one failed. 0,
 * or -1 out of memory. */
static int params_check(const px_train_checks *c, const px_train_out *x, const px_train_out *ref,
                        px_train_verdict *tv, px_sbuf *b, int *failed)
{
    *failed = 0;
    if (tv && x->n_groups) {
        tv->group = calloc(x->n_groups, sizeof *tv->group);
        tv->param_rel = malloc(x->n_groups * sizeof *tv->param_rel);
        if (!tv->group || !tv->param_rel)
            return -1;
        tv->n_groups = x->n_groups;
    }
    for (size_t i = 0; i < x->n_groups; i++) {
        const px_train_group *g = &x->groups[i], *r = group_named(ref, g->name);
        double rel = r ? group_rel(g, r) : NAN;
        if (tv)
            tv->group[i] = g->name, tv->param_rel[i] = rel;
        if (!c->params_present || rel <= c->params_max_rel)
            continue;
        *failed = 1;
        if (!b)
            continue;
        sbuf_add(b, b->len ? "; " : "");
        if (!r)
            sbuf_addf(b, "params: group %s here, none in the reference", g->name);
        else if (g->numel != r->numel)
            sbuf_addf(b, "params: group %s holds %lld parameters here, %lld in the reference", g->name,
                      (long long)g->numel, (long long)r->numel);
        else
            sbuf_addf(b, "params: %s ||p - p_ref|| / ||p_ref|| ≈ %.3g > %g", g->name, rel, c->params_max_rel);
    }
    for (size_t i = 0; c->params_present && i < ref->n_groups; i++)
        if (!group_named(x, ref->groups[i].name)) {
            *failed = 1;
            if (b)
                sbuf_addf(b, "%sparams: group %s in the reference, none here", b->len ? "; " : "",
                          ref->groups[i].name);
        }
    return 0;
}

enum {
    F_NONFINITE = 1,
    F_SHAPE = 2,
    F_AT_MOST = 4,
    F_LEARNING = 8,
    F_STEPS = 16, /* another number of steps than the reference's */
    F_QUANTITY = 32, /* a per-step quantity beyond (<< q) */
    F_PARAMS = 256,
};

static void add_failed(px_sbuf *b, char *words)
{
    if (!words) {
        b->failed = 1;
        return;
    }
    sbuf_add(b, b->len ? "; " : "");
    sbuf_add(b, words);
    free(words);
}

/* The loss's course in words: "4.12 → 2.31". */
static char *course_words(const double *loss, size_t n)
{
    return strf("%.4g → %.4g", loss[0], tail_mean(loss, n));
}

/* A run that learns less than the reference's, in words: "its loss drops
 * 0.0235 (4 → 3.976), less than 0.1 of the reference's drop 1.98 (4 →
 * 2.018)"; "its loss rises 0.42 (4 → 4.42) where the reference's drops
 * 1.98 (4 → 2.018)". */
static char *learning_words(const px_example_result *x, const px_example_result *ref, const px_train_verdict *tv,
                            double fr)
{
    char *ours = course_words(x->values, x->n_values), *theirs = course_words(ref->values, ref->n_values);
    char *w = tv->drop < 0 ? strf("its loss rises %.3g (%s) where the reference's drops %.3g (%s)", -tv->drop,
                                  ours ? ours : "?", tv->ref_drop, theirs ? theirs : "?")
                           : strf("its loss drops %.3g (%s), less than %g of the reference's drop %.3g (%s)",
                                  tv->drop, ours ? ours : "?", fr, tv->ref_drop, theirs ? theirs : "?");
    free(ours), free(theirs);
    return w;
}

/* x (a curve) against the reference's run ref (usable): tv's figures, the
 * failed checks' words into b, their F_ bits into *bits, *identical when
 * the loss, gradient norm and update norm are the reference's bit for bit.
 * 0, or -1 out of memory. */
static int train_compare(const jctx *j, size_t k, const px_example_result *x, const px_example_result *ref,
                         px_train_verdict *tv, px_sbuf *b, unsigned *bits, int *identical)
{
    const px_train_checks *c = &j->f->train_cmp;
    size_t na = x->n_values, nb = ref->n_values, n = na < nb ? na : nb;
    long steps = steps_said(j->f, k, nb);
    tv->n_steps = n;
    if (!(tv->loss_diff = malloc(n * sizeof *tv->loss_diff)))
        return -1;
    for (size_t i = 0; i < n; i++)
        tv->loss_diff[i] = fabs(x->values[i] - ref->values[i]);
    *identical = na == nb;
    if (na != nb) {
        *bits |= F_STEPS;
        add_failed(b, strf("ran %zu steps, the reference %zu", na, nb));
    }
    long *first[Q_COUNT] = {&tv->loss_step, &tv->grad_step, &tv->update_step};
    for (int q = 0; q < Q_COUNT; q++) {
        const double *a = q_values(x, q), *r = q_values(ref, q);
        *identical &= !memcmp(a, r, n * sizeof *a);
        const px_step_tol *t = q_tol(c, q);
        *first[q] = -1;
        for (size_t i = 0; t->present && i < n && *first[q] < 0; i++)
            if (!step_within(a[i], r[i], t))
                *first[q] = (long)i;
        if (*first[q] >= 0) {
            *bits |= F_QUANTITY << q;
            add_failed(b, step_words(q, t, *first[q], steps, a, r, n));
        }
    }
    tv->ref_drop = drop_of(ref->values, nb);
    double fr = learning_fraction(c);
    if (!isnan(tv->drop) && tv->ref_drop > 0 && !(tv->drop >= fr * tv->ref_drop)) {
        *bits |= F_LEARNING;
        char *w = learning_words(x, ref, tv, fr);
        add_failed(b, w ? strf("learning: %s", w) : NULL);
        free(w);
    }
    int pf;
    if (params_check(c, x->train, ref->train, tv, b, &pf))
        return -1;
    if (pf)
        *bits |= F_PARAMS;
    return sbuf_failed(b) ? -1 : 0;
}

/* The figures of a run within every check: "every step within
 * compare.train (max loss |Δ| 0.0021 at step 40 of 50); loss 4.12 → 2.31,
 * the reference's 4.12 → 2.30; params ≈ 0.0012 at most (mlp)". */
static char *within_words(const jctx *j, size_t k, const px_example_result *x, const px_example_result *ref,
                          const px_train_verdict *tv)
{
    size_t w = 0;
    for (size_t i = 1; i < tv->n_steps; i++)
        if (tv->loss_diff[i] > tv->loss_diff[w])
            w = i;
    long steps = steps_said(j->f, k, ref->n_values);
    char *ours = course_words(x->values, x->n_values), *theirs = course_words(ref->values, ref->n_values);
    px_sbuf b = PX_SBUF_INIT;
    sbuf_addf(&b, "every step within compare.train (max loss |Δ| %.3g at step %zu of %ld); loss %s, the reference's %s",
              tv->loss_diff[w], w + 1, steps, ours ? ours : "?", theirs ? theirs : "?");
    free(ours), free(theirs);
    long g = -1;
    for (size_t i = 0; i < tv->n_groups; i++)
        if (!isnan(tv->param_rel[i]) && (g < 0 || tv->param_rel[i] > tv->param_rel[g]))
            g = (long)i;
    if (g >= 0)
        sbuf_addf(&b, "; params ≈ %.3g at most (%s)", tv->param_rel[g], tv->group[g]);
    return sbuf_take(&b);
}

/* A training run that ran (status ok). Precedence: loss-not-finite (the
 * first step), bad-shape (not a curve of its recipe's steps), not-learning
 * (above expect.loss_at_most), then against the reference's run:
 * not-evaluated (the reference's own run is not whole or not finite: not
 * compared, never blamed on this one), not-learning (its drop below
 * learning.min_fraction of the reference's), curve-changed (a step, or a
 * group's parameters, beyond compare.train; or, where the recipe does not
 * say its steps, another number of steps than the reference's), pass (the
 * reference's curve bit for bit), pass-within-tolerance. The figures
 * (v->train) are filled wherever the two can be compared, whatever the
 * outcome; v->train->failed lists every check that failed. */
static void own_cause(const jctx *j, size_t e, px_train_verdict *tv);

static int train_judge(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_example_result *x = &j->r->envs[e].ex[k];
    const px_example_result *ref = (int)e == j->ref ? NULL : judge_result_at(j, j->ref, k);
    px_train_verdict *tv = v->train;
    own_cause(j, e, tv);
    px_sbuf b = PX_SBUF_INIT;
    unsigned bits = 0;
    char *own = NULL; /* the first own check that failed, in words */
    long steps = steps_said(f, k, x->n_values);
    int grad;
    long bad = first_nonfinite(x, &grad);
    if (bad >= 0) {
        bits |= F_NONFINITE;
        tv->nonfinite_step = bad;
        own = nonfinite_words(x, bad, grad, steps);
    } else if (!run_whole(f, k, x)) {
        bits |= F_SHAPE;
        char *sh = judge_shape_words(x);
        if (!has_curve(x) && x->values && x->n_values && (!x->train || x->train->n_steps != x->n_values))
            own = strf("a loss for %zu steps but %s", x->n_values,
                       x->train ? "another number of gradient and update norms" : "no gradient or update norms");
        else if (!has_curve(x))
            own = strf("the loss curve is %s, not [1,steps]", sh ? sh : "?");
        else
            own = strf("the loss curve is %s, not [1,%d]: it ran %zu of its recipe's %d steps", sh ? sh : "?",
                       recipe_steps(f, k), x->n_values, recipe_steps(f, k));
        free(sh);
    }
    if (bad < 0 && has_curve(x))
        tv->drop = drop_of(x->values, x->n_values);
    if (!(bits & (F_NONFINITE | F_SHAPE)) && !isnan(ex->loss_at_most)) {
        double m = tail_mean(x->values, x->n_values);
        if (!(m <= ex->loss_at_most)) {
            bits |= F_AT_MOST;
            own = strf("the mean loss of its last %zu of %zu steps is %.4g, above expect.loss_at_most %g",
                       tail_len(x->n_values), x->n_values, m, ex->loss_at_most);
        }
    }
    if (bits && !own)
        return px_error_oom(j->err, NULL);
    if (own)
        add_failed(&b, strf("%s", own));
    /* Against the reference's run. */
    int compared = 0, identical = 0;
    char *not_compared = NULL;
    if (ref && ref->status == PX_ST_OK) {
        int rgrad;
        long rbad = first_nonfinite(ref, &rgrad);
        if (!ref_usable(f, k, ref))
            not_compared = rbad >= 0 ? nonfinite_words(ref, rbad, rgrad, steps_said(f, k, ref->n_values))
                                     : strf("it is not a whole run of the recipe's steps");
        else if (has_curve(x)) {
            if (train_compare(j, k, x, ref, tv, &b, &bits, &identical)) {
                free(own), sbuf_free(&b);
                return px_error_oom(j->err, NULL);
            }
            compared = 1;
        }
    }
    if (sbuf_failed(&b) || (ref && ref->status == PX_ST_OK && !ref_usable(f, k, ref) && !not_compared)) {
        free(own), free(not_compared), sbuf_free(&b);
        return px_error_oom(j->err, NULL);
    }
    if (b.len)
        tv->failed = sbuf_take(&b);
    else
        sbuf_free(&b);
    if (bits & F_NONFINITE) {
        v->outcome = PX_OC_LOSS_NOT_FINITE;
        v->detail = own, own = NULL;
    } else if (bits & F_SHAPE) {
        v->outcome = PX_OC_BAD_SHAPE;
        v->detail = own, own = NULL;
    } else if (bits & F_AT_MOST) {
        v->outcome = PX_OC_NOT_LEARNING;
        v->detail = own, own = NULL;
    } else if (!ref || ref->status != PX_ST_OK) {
        /* The reference itself, or nothing of the reference's to compare
         * with (the engine says not compared). */
        char *course = course_words(x->values, x->n_values);
        v->outcome = PX_OC_PASS;
        size_t t = tail_len(x->n_values);
        v->detail = t == 1 ? strf("trained %zu steps: loss %s (the mean of its last step)", x->n_values,
                                  course ? course : "?")
                           : strf("trained %zu steps: loss %s (the mean of its last %zu)", x->n_values,
                                  course ? course : "?", t);
        free(course);
    } else if (not_compared) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("not compared: the reference's own run is not usable (%s)", not_compared);
    } else if (!compared) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("not compared: no curve");
    } else if (bits & F_LEARNING) {
        v->outcome = PX_OC_NOT_LEARNING;
        v->detail = learning_words(x, ref, tv, learning_fraction(&f->train_cmp));
    } else if (bits) {
        v->outcome = PX_OC_CURVE_CHANGED;
        v->detail = strf("%s", tv->failed ? tv->failed : "");
    } else if (identical) {
        v->outcome = PX_OC_PASS;
        v->detail = strf("the reference's curve bit for bit: loss, grad_norm and update_norm at every one of %zu "
                         "steps",
                         tv->n_steps);
    } else {
        v->outcome = PX_OC_PASS_TOL;
        v->detail = within_words(j, k, x, ref, tv);
    }
    free(own), free(not_compared);
    return v->detail ? 0 : px_error_oom(j->err, NULL);
}

static int train_verdict_init(const px_fixture *f, size_t k, px_verdict *v)
{
    (void)f, (void)k;
    if (!(v->train = calloc(1, sizeof *v->train)))
        return -1;
    px_train_verdict *tv = v->train;
    tv->loss_step = tv->grad_step = tv->update_step = tv->nonfinite_step = -1;
    tv->drop = tv->ref_drop = NAN;
    return 0;
}

static void train_verdict_free(px_verdict *v)
{
    if (v->train)
        free(v->train->loss_diff), free(v->train->group), free(v->train->param_rel), free(v->train->failed),
            free(v->train->own_cause);
    free(v->train);
    v->train = NULL;
}

/* Where a run parts from the reference's (the two of the same steps): the
 * first step its loss is beyond compare.train.loss, else its gradient
 * norm's, else its update norm's; else, its parameters beyond
 * compare.train.params at the end: the last step. */
static px_div train_diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail)
{
    const px_train_verdict *tv = v->train;
    if (!tv || !tv->n_steps)
        return PX_DIV_NONE;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    const px_train_checks *c = &j->f->train_cmp;
    long steps = steps_said(j->f, k, xa->n_values);
    const long first[Q_COUNT] = {tv->loss_step, tv->grad_step, tv->update_step};
    for (int q = 0; q < Q_COUNT; q++)
        if (first[q] >= 0) {
            *detail = step_words(q, q_tol(c, q), first[q], steps, q_values(xb, q), q_values(xa, q), tv->n_steps);
            return PX_DIV_STEP;
        }
    px_sbuf b = PX_SBUF_INIT;
    int failed;
    if (params_check(c, xb->train, xa->train, NULL, &b, &failed) || !failed) {
        sbuf_free(&b);
        return PX_DIV_NONE;
    }
    char *words = sbuf_take(&b);
    *detail = strf("the parameters at the end (step %zu of %ld), with every step's loss and norms within: %s",
                   tv->n_steps, steps, words ? words : "");
    free(words);
    return PX_DIV_STEP;
}

/* Where a run parts (0-based), told by its verdict: its first step
 * beyond, else the last step when it parts at its parameters; -1 none. */
static long parting_step(const px_verdict *v)
{
    const px_train_verdict *tv = v->train;
    if (!tv || !tv->n_steps)
        return -1;
    if (tv->loss_step >= 0)
        return tv->loss_step;
    if (tv->grad_step >= 0)
        return tv->grad_step;
    if (tv->update_step >= 0)
        return tv->update_step;
    return v->div == PX_DIV_STEP ? (long)tv->n_steps - 1 : -1;
}

/* Its drop below learning.min_fraction of the reference's (learning). */
static int not_learning(const px_train_checks *c, const px_train_verdict *tv)
{
    return tv && !isnan(tv->drop) && tv->ref_drop > 0 && !(tv->drop >= learning_fraction(c) * tv->ref_drop);
}

/* A run that gave no whole curve: it raised, crashed, timed out, or
 * recorded fewer (or more) steps than its recipe's. */
static int run_unfinished(px_outcome o)
{
    return o == PX_OC_BAD_SHAPE || o == PX_OC_EXCEPTION || o == PX_OC_CRASH || o == PX_OC_TIMEOUT ||
           o == PX_OC_UNSUPPORTED || o == PX_OC_EMPTY;
}

/* The twin's run, as its verdict says, can tell: it ran whole and was
 * compared with the reference's. */
static int twin_compared(const px_verdict *tv)
{
    return tv->train && tv->train->n_steps && tv->outcome != PX_OC_BAD_SHAPE && tv->outcome != PX_OC_NOT_EVALUATED;
}

/* A candidate's run that parts from the reference's (curve-changed,
 * not-learning, loss-not-finite, with a step where it parts): precision's
 * when the twin's run parts too, at or before twin_slack steps after it;
 * the device's when the twin keeps to the reference's curve past that;
 * unknown when the twin cannot tell (down, no results, its run failed or
 * did not finish). A run that parts at no step but does not learn (no
 * per-step tolerance): precision's when the twin does not learn either,
 * the device's when it does. */
/* An environment's precision recipe: its weights' dtype, its compute's
 * (mixed_precision_param), its reduction's; "float32 weights, bfloat16
 * compute". */
static void precision_words(const px_env *env, char *buf, size_t size)
{
    const char *w = env->dtype ? env->dtype : "float32";
    snprintf(buf, size, "%s weights, %s compute", w, env->mixed_precision_param ? env->mixed_precision_param : w);
}

/* A candidate that runs on the reference's own device (the demo's CPU
 * environments) cannot part by the device: what parts it is its precision
 * recipe where that differs from the reference's, else its plan (its
 * processes). The twin is not asked: it runs the TPU's recipe, which need
 * not be this one. The words in tv->own_cause, the cause in own_attr;
 * nothing for another device or no reference. */
static void own_cause(const jctx *j, size_t e, px_train_verdict *tv)
{
    free(tv->own_cause);
    tv->own_cause = NULL, tv->own_attr = PX_ATTR_NONE;
    if (j->ref < 0 || (int)e == j->ref || (int)e == j->twin)
        return;
    const px_env *a = &j->f->envs[j->r->envs[e].env_index], *r = &j->f->envs[j->r->envs[j->ref].env_index];
    if (!a->device || !r->device || strcmp(a->device, r->device))
        return;
    char wa[128], wr[128];
    precision_words(a, wa, sizeof wa), precision_words(r, wr, sizeof wr);
    if (strcmp(wa, wr)) {
        tv->own_attr = PX_ATTR_PRECISION;
        tv->own_cause = strf("precision (this runs on the reference's own device, %s: what differs is its precision "
                             "recipe, %s, against the reference's %s)",
                             a->device, wa, wr);
    } else {
        tv->own_attr = PX_ATTR_UNKNOWN;
        tv->own_cause = strf("unknown: this runs on the reference's device (%s) in its precision (%s); what differs "
                             "is its plan (%d processes%s%s), neither precision nor the device",
                             a->device, wa, a->parallel.processes > 0 ? a->parallel.processes : 1,
                             a->parallel.processes > 0 ? ", " : "", recipe_strategy_name(a->parallel.strategy));
    }
}

static px_attr train_attribute(const jctx *j, size_t e, size_t k, const px_example_result *ref, const px_verdict *v)
{
    (void)ref;
    if (!v->train || (v->outcome != PX_OC_CURVE_CHANGED && v->outcome != PX_OC_NOT_LEARNING &&
                      v->outcome != PX_OC_LOSS_NOT_FINITE))
        return PX_ATTR_NONE;
    long step = parting_step(v);
    if (step < 0 && !not_learning(&j->f->train_cmp, v->train))
        return PX_ATTR_NONE;
    if (v->train->own_cause)
        return (px_attr)v->train->own_attr;
    const px_example_result *tw;
    px_attr said = attribute_twin_first(j, e, k, &tw);
    if (said != PX_ATTR_NONE)
        return said;
    const px_verdict *tv = &j->out->envs[j->twin].ex[k];
    if (!twin_compared(tv))
        return PX_ATTR_UNKNOWN;
    if (step < 0)
        return not_learning(&j->f->train_cmp, tv->train) ? PX_ATTR_PRECISION : PX_ATTR_DEVICE;
    long ts = parting_step(tv);
    if (ts >= 0 && ts <= step + twin_slack(v->train->n_steps))
        return PX_ATTR_PRECISION;
    /* It kept to the reference's curve where this parted: to its end, or
     * past the slack. */
    if (ts > step || (long)tv->train->n_steps > step)
        return PX_ATTR_DEVICE;
    return PX_ATTR_UNKNOWN;
}

/* Where a run parts, in words: "at step 13", or "at its parameters (step
 * 50, the end)" when only its groups part. */
static void where_str(char *buf, size_t size, const px_verdict *v, long step)
{
    const px_train_verdict *t = v->train;
    if (t && t->loss_step < 0 && t->grad_step < 0 && t->update_step < 0)
        snprintf(buf, size, "at its parameters (step %ld, the end)", step + 1);
    else
        snprintf(buf, size, "at step %ld", step + 1);
}

/* The cause, in steps (1-based): "precision (the bfloat16 twin parts at
 * step 13 too)", "device (the twin keeps to the reference's curve through
 * all 50 steps; this parts at step 13)". */
static char *train_cause(const px_judgement *j, size_t e, size_t k)
{
    const px_verdict *v = &j->envs[e].ex[k];
    const char *dt = j->twin_dtype ? j->twin_dtype : "reduced-precision";
    const px_verdict *tv = j->twin >= 0 && j->envs[j->twin].ex ? &j->envs[j->twin].ex[k] : NULL;
    long step = parting_step(v), ts = tv ? parting_step(tv) : -1;
    size_t n = v->train ? v->train->n_steps : 0;
    char here[64], there[64];
    where_str(here, sizeof here, v, step);
    if (tv)
        where_str(there, sizeof there, tv, ts);
    if (v->train && v->train->own_cause && v->attr == (px_attr)v->train->own_attr)
        return strf("%s", v->train->own_cause);
    switch (v->attr) {
    case PX_ATTR_PRECISION:
        if ((int)e == j->twin)
            return strf("precision (this is the %s twin)", dt);
        if (step < 0 || ts < 0)
            return strf("precision (the %s twin does not learn either: its loss drops %.3g, the reference's %.3g)",
                        dt, tv && tv->train ? tv->train->drop : NAN, v->train ? v->train->ref_drop : NAN);
        if (ts == step && !strcmp(here, there))
            return strf("precision (the %s twin parts %s too)", dt, there);
        if (ts <= step)
            return strf("precision (the %s twin parts %s, this %s)", dt, there, here);
        return strf("precision (the %s twin parts %s, within %ld steps of this %s)", dt, there, twin_slack(n), here);
    case PX_ATTR_DEVICE:
        if (step < 0)
            return strf("device (the twin learns as the reference does: its loss drops %.3g, the reference's %.3g)",
                        tv && tv->train ? tv->train->drop : NAN, v->train ? v->train->ref_drop : NAN);
        if (ts < 0)
            return strf("device (the twin keeps to the reference's run through all %zu steps; this parts %s)",
                        tv && tv->train ? tv->train->n_steps : n, here);
        return strf("device (the twin keeps to the reference's curve until step %ld, long after this parts %s)",
                    ts + 1, here);
    case PX_ATTR_UNKNOWN:
        if (j->twin_unusable || !tv || !tv->train)
            return attribute_unknown_words(j, k, "training run");
        if (run_unfinished(tv->outcome))
            return strf("unknown: the twin's run did not finish (%s%s%s)", outcome_name(tv->outcome),
                        tv->detail ? ": " : "", tv->detail ? tv->detail : "");
        if (!twin_compared(tv))
            return strf("unknown: the twin's run was not compared with the reference's (%s)",
                        tv->detail ? tv->detail : outcome_name(tv->outcome));
        return strf("unknown: the twin's curve was compared over %zu steps, not as far as where this parts (%s)",
                    tv->train->n_steps, here);
    default: return NULL;
    }
}

/* Every run's curve: [1, steps], one figure when every recipe says the
 * same. */
static char *train_forward(const px_fixture *f, const px_env_result *er)
{
    (void)er;
    int s = -1;
    for (size_t k = 0; k < f->n_examples; k++) {
        int r = recipe_steps(f, k);
        if (s < 0)
            s = r;
        else if (r != s)
            s = 0;
    }
    if (s > 0)
        return strf("every run's loss curve is [1,%d]", s);
    return strf("every run's loss curve is [1,steps], its recipe's");
}

/* A training run decides no label. */
static int train_bench_label(const double *out, size_t n)
{
    (void)out, (void)n;
    return -1;
}

const px_judge_kind judge_training = {
    .verdict_init = train_verdict_init,
    .verdict_free = train_verdict_free,
    .judge = train_judge,
    .diverge = train_diverge,
    .attribute = train_attribute,
    .cause_words = train_cause,
    .twin_same = "parts at the same step",
    .twin_other = "keeps to the reference's curve",
    .forward_words = train_forward,
    .partial_shape = "[1,steps]",
    .bench_label = train_bench_label,
};
