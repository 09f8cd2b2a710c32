/* A training run's verdicts (contract.model.kind: training), judged from
 * results made here in memory: a reference, a bfloat16 twin and a
 * candidate ("tpu") each training 50 steps of every example's recipe, with
 * a loss curve, gradient and update norms per step and three tensor
 * groups' sketches at the end. The run's own checks (finite, whole, its
 * expect.loss_at_most), then against the reference's run by compare.train
 * (the learning drop, each quantity step by step, the groups'
 * parameters), where it parts, and the twin telling precision from the
 * device by the step where its own run parts.
 *
 * (The fixture is a classifier's text made a training contract in memory:
 * the loader of contract.train is written beside this, and the judge
 * reads only the fields set here.) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parity/judge_kind.h"
#include "parity/prepare.h"
#include "parity/judge.h"
#include "parity/strf.h"
#include "testlib.h"

#define STEPS 50
#define PIN "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const char FIXTURE[] =
    "parity: 1\n"
    "contract:\n"
    "  task: train a small causal LM on the bundled text\n"
    "  model: {path: model.pt, sha256: \"" PIN "\"}\n"
    "  input:\n"
    "    tokenizer: {kind: wordpiece, vocab: ../../fixtures/campus-club/vocab.txt, sha256: "
    "\"35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318\"}\n"
    "  labels: [a, b]\n"
    "environments:\n"
    "  reference: {device: cpu, dtype: float32, threads: 1, role: reference}\n"
    "  cpu-bf16: {device: cpu, dtype: bfloat16, threads: 1, role: twin}\n"
    "  tpu: {device: tpu, dtype: float32, threads: 1}\n"
    "examples:\n"
    "  - {id: same, text: x, expect: {label: a}, why: w}\n"
    "  - {id: within, text: x, expect: {label: a}, why: w}\n"
    "  - {id: precision, text: x, expect: {label: a}, why: w}\n"
    "  - {id: device, text: x, expect: {label: a}, why: w}\n"
    "  - {id: grad, text: x, expect: {label: a}, why: w}\n"
    "  - {id: update, text: x, expect: {label: a}, why: w}\n"
    "  - {id: nan, text: x, expect: {label: a}, why: w}\n"
    "  - {id: grad-inf, text: x, expect: {label: a}, why: w}\n"
    "  - {id: flat, text: x, expect: {label: a}, why: w}\n"
    "  - {id: at-most, text: x, expect: {label: a}, why: w}\n"
    "  - {id: params, text: x, expect: {label: a}, why: w}\n"
    "  - {id: short, text: x, expect: {label: a}, why: w}\n";

enum {
    EX_SAME,
    EX_WITHIN,
    EX_PREC,
    EX_DEV,
    EX_GRAD,
    EX_UPDATE,
    EX_NAN,
    EX_GINF,
    EX_FLAT,
    EX_ATMOST,
    EX_PARAMS,
    EX_SHORT,
    N_EX
};
enum { REF, TWIN, TPU };

/* The reference's run. */
static double ref_loss(int s) { return 2 + 2 * exp(-s / 10.0); }
static double ref_grad(int s) { return 1 + 0.5 * exp(-s / 15.0); }
static double ref_update(int s) { return 0.02 * (1 + 0.1 * sin(s)); }

/* How a run differs from the reference's: a tiny offset everywhere
 * (within every tolerance) or none (bit for bit), a quantity beyond from
 * a step on (by a constant), a NaN or an infinity, a flat loss, fewer steps, a group's
 * parameters. -1: never. */
typedef struct spec {
    int tiny;
    int loss_from, grad_from, update_from;
    int nan_at, ginf_at;
    int flat, steps;
    int params_off;
} spec;

static spec plain(int tiny)
{
    return (spec){.tiny = tiny, .loss_from = -1, .grad_from = -1, .update_from = -1, .nan_at = -1, .ginf_at = -1,
                  .steps = STEPS};
}

static const char *const group_name[] = {"embed", "attention", "mlp"};
static const double group_norm[] = {10, 20, 30};

static void set_run(px_example_result *x, spec s)
{
    int n = s.steps;
    x->status = PX_ST_OK;
    x->dtype = results_dtype("float64");
    x->ndim = 2;
    x->shape[0] = 1, x->shape[1] = n;
    x->n_values = (size_t)n;
    x->values = malloc(n * sizeof *x->values);
    x->forward_ms = 1;
    px_train_out *t = calloc(1, sizeof *t);
    t->n_steps = (size_t)n;
    t->grad_norm = malloc(n * sizeof *t->grad_norm);
    t->update_norm = malloc(n * sizeof *t->update_norm);
    t->lr = malloc(n * sizeof *t->lr);
    t->step_ms = malloc(n * sizeof *t->step_ms);
    t->processes = 1;
    double tiny = s.tiny ? 1 : 0;
    for (int i = 0; i < n; i++) {
        double l = s.flat ? 4.0 - 0.0005 * i : ref_loss(i) + 1e-4 * tiny;
        if (s.loss_from >= 0 && i >= s.loss_from)
            l += 0.05;
        x->values[i] = i == s.nan_at ? NAN : l;
        double g = ref_grad(i) + 1e-4 * tiny;
        if (s.grad_from >= 0 && i >= s.grad_from)
            g += 0.1;
        t->grad_norm[i] = i == s.ginf_at ? INFINITY : g;
        double u = ref_update(i) + 1e-7 * tiny;
        if (s.update_from >= 0 && i >= s.update_from)
            u += 0.01;
        t->update_norm[i] = u;
        t->lr[i] = 1e-3;
        t->step_ms[i] = 10;
    }
    t->n_groups = 3;
    t->groups = calloc(3, sizeof *t->groups);
    for (int g = 0; g < 3; g++) {
        px_train_group *p = &t->groups[g];
        p->name = strdup(group_name[g]);
        p->numel = 1000 * (g + 1);
        p->norm = group_norm[g];
        p->delta_norm = 1;
        for (int k = 0; k < PX_TRAIN_SKETCH; k++)
            p->sketch[k] = sin(k + g) + (s.tiny ? 1e-6 : 0) + (s.params_off && g == 1 ? 0.5 : 0);
    }
    x->train = t;
}

/* The contract of a training run: 50 steps, compare.train's checks. */
static px_fixture *training_fixture(void)
{
    px_error err = {0};
    px_fixture *f = fixture_parse("tests/data/training-judge.yaml", FIXTURE, strlen(FIXTURE), &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    f->kind = PX_MODEL_TRAINING;
    free(f->vocab_path), free(f->vocab_sha256);
    f->vocab_path = f->vocab_sha256 = NULL;
    for (size_t e = 0; e < f->n_envs; e++) {
        free(f->envs[e].vocab_path), free(f->envs[e].vocab_sha256);
        f->envs[e].vocab_path = f->envs[e].vocab_sha256 = NULL;
    }
    f->recipe = (px_recipe){.steps = STEPS, .batch_size = 4, .seq_len = 64, .optimizer = PX_OPT_ADAMW, .lr = 1e-3};
    for (size_t k = 0; k < f->n_examples; k++) {
        f->examples[k].recipe = malloc(sizeof *f->examples[k].recipe);
        *f->examples[k].recipe = f->recipe;
        f->examples[k].loss_at_most = NAN;
    }
    f->examples[EX_ATMOST].loss_at_most = 1.5; /* every run ends near 2.0 */
    px_train_checks *c = &f->train_cmp;
    c->loss = (px_step_tol){.present = 1, .atol = 0.005, .rtol = 0.001};
    c->grad_norm = (px_step_tol){.present = 1, .atol = 0.01, .rtol = 0.01};
    c->update = (px_step_tol){.present = 1, .atol = 1e-4, .rtol = 0.01};
    c->params_present = 1;
    c->params_max_rel = 0.01;
    c->learning_min_fraction = 0.1; /* the loader's default */
    return f;
}

typedef struct judged {
    px_fixture *f;
    px_results *r;
    px_judgement j;
} judged;

/* What each environment ran for each example. */
static spec spec_of(int e, int k)
{
    spec s = plain(e == TWIN || (e == TPU && k != EX_SAME));
    if (e == REF)
        return s;
    switch (k) {
    case EX_PREC:
        /* The candidate parts at step 12, the twin at 13. */
        s.loss_from = e == TPU ? 12 : 13;
        break;
    case EX_DEV:
        if (e == TPU)
            s.loss_from = 12;
        break;
    case EX_GRAD:
        if (e == TPU)
            s.grad_from = 8, s.update_from = 20;
        break;
    case EX_UPDATE:
        if (e == TPU)
            s.update_from = 30;
        break;
    case EX_NAN:
        if (e == TPU)
            s.nan_at = 6;
        break;
    case EX_GINF:
        if (e == TPU)
            s.ginf_at = 9;
        break;
    case EX_FLAT:
        if (e == TPU)
            s.flat = 1;
        break;
    case EX_PARAMS:
        if (e == TPU)
            s.params_off = 1;
        break;
    case EX_SHORT:
        if (e == TPU)
            s.steps = 40;
        break;
    }
    return s;
}

static void build(judged *p)
{
    p->f = training_fixture();
    int idx[] = {0, 1, 2};
    p->r = results_new(p->f, idx, 3);
    cr_assert_not_null(p->r);
    cr_assert_eq(p->r->reference, REF);
    for (int e = 0; e < 3; e++) {
        px_env_result *er = &p->r->envs[e];
        er->state = PX_ENV_UP;
        er->origin = PX_ORIGIN_RUN;
        memcpy(er->m.model_sha256, PIN, 65);
        for (int k = 0; k < N_EX; k++)
            set_run(&er->ex[k], spec_of(e, k));
    }
}

static void judge(judged *p)
{
    px_error err = {0};
    cr_assert_eq(judge_results(p->f, p->r, &p->j, &err), 0, "%s", err.msg);
}

static void judged_free(judged *p)
{
    judgement_free(&p->j);
    results_free(p->r);
    /* The recipes are the test's (the loader's own are freed with it). */
    for (size_t k = 0; k < p->f->n_examples; k++)
        free(p->f->examples[k].recipe), p->f->examples[k].recipe = NULL;
    fixture_free(p->f);
}

static const px_verdict *verdict(const judged *p, int e, int k)
{
    const px_verdict *v = &p->j.envs[e].ex[k];
    cr_assert_not_null(v->train, "%d/%d: no training verdict", e, k);
    return v;
}

#define EXPECT_OUTCOME(v, o) cr_expect_eq((v)->outcome, (o), "%s: %s", outcome_name((v)->outcome), (v)->detail)

static char *cause(const judged *p, int e, int k) { return judgement_cause_words(&p->j, e, k); }

/* The reference's drop: loss[0] less the mean of its last 5 steps. */
static double ref_drop(void)
{
    double m = 0;
    for (int s = STEPS - 5; s < STEPS; s++)
        m += ref_loss(s);
    return ref_loss(0) - m / 5;
}

Test(judge_training, bit_identical_passes)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_SAME), *r = verdict(&p, REF, EX_SAME);
    EXPECT_OUTCOME(v, PX_OC_PASS);
    cr_expect(strstr(v->detail, "bit for bit"), "%s", v->detail);
    cr_expect_eq(v->div, PX_DIV_NONE, "%s: %s", div_name(v->div), v->div_detail);
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    const px_train_verdict *t = v->train;
    cr_expect_eq(t->n_steps, STEPS);
    for (size_t i = 0; i < t->n_steps; i++)
        cr_expect_eq(t->loss_diff[i], 0);
    cr_expect(t->loss_step == -1 && t->grad_step == -1 && t->update_step == -1 && t->nonfinite_step == -1);
    cr_expect_float_eq(t->drop, ref_drop(), 1e-12);
    cr_expect_float_eq(t->ref_drop, ref_drop(), 1e-12);
    cr_expect_null(t->failed, "%s", t->failed);
    cr_assert_eq(t->n_groups, 3);
    for (int g = 0; g < 3; g++) {
        cr_expect_str_eq(t->group[g], group_name[g]);
        cr_expect_eq(t->param_rel[g], 0);
    }
    /* The reference: its own checks only. */
    EXPECT_OUTCOME(r, PX_OC_PASS);
    cr_expect(strstr(r->detail, "trained 50 steps: loss 4 → "), "%s", r->detail);
    cr_expect_eq(r->train->n_steps, 0);
    cr_expect(isnan(r->train->ref_drop));
    cr_expect_float_eq(r->train->drop, ref_drop(), 1e-12);
    judged_free(&p);
}

/* Off by 1e-4 everywhere: within every tolerance, not bit for bit. */
Test(judge_training, within_tolerance_passes_within_tolerance)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_WITHIN);
    EXPECT_OUTCOME(v, PX_OC_PASS_TOL);
    cr_expect(strstr(v->detail, "every step within compare.train (max loss |Δ| 0.0001 at step"), "%s", v->detail);
    cr_expect(strstr(v->detail, "; params ≈ 1e-07 at most (embed)"), "%s", v->detail);
    cr_expect_float_eq(v->train->loss_diff[17], 1e-4, 1e-12);
    cr_expect_float_eq(v->train->param_rel[0], 1e-6 / 10, 1e-15);
    cr_expect_eq(v->div, PX_DIV_NONE);
    cr_expect_null(v->train->failed);
    judged_free(&p);
}

/* The loss parts at step 12 (0-based; 13 in words), the twin's at 13:
 * curve-changed, the step and the figures named; precision. */
Test(judge_training, loss_parting_with_the_twin_is_precision)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    const px_train_verdict *t = v->train;
    cr_expect_eq(t->loss_step, 12);
    cr_expect_eq(t->grad_step, -1);
    cr_expect_eq(t->update_step, -1);
    cr_expect_float_eq(t->loss_diff[11], 1e-4, 1e-12);
    cr_expect_float_eq(t->loss_diff[12], 0.05 + 1e-4, 1e-12);
    cr_expect_eq(v->div, PX_DIV_STEP, "%s: %s", div_name(v->div), v->div_detail);
    char want[160];
    snprintf(want, sizeof want, "loss parts at step 13 of 50: %.4g vs the reference's %.4g (|Δ| 0.0501 > 0.005 + "
             "0.001·|b|); 38 of 50 steps beyond",
             ref_loss(12) + 1e-4 + 0.05, ref_loss(12));
    cr_expect_str_eq(v->div_detail, want);
    cr_expect_str_eq(t->failed, want);
    cr_expect(strstr(v->detail, "loss parts at step 13 of 50"), "%s", v->detail);
    cr_expect_eq(verdict(&p, TWIN, EX_PREC)->train->loss_step, 13);
    cr_expect_eq(v->attr, PX_ATTR_PRECISION);
    char *c = cause(&p, TPU, EX_PREC);
    cr_expect_str_eq(c, "precision (the bfloat16 twin parts at step 14, within 2 steps of this at step 13)");
    free(c);
    c = cause(&p, TWIN, EX_PREC);
    cr_expect_str_eq(c, "precision (this is the bfloat16 twin)");
    free(c);
    judged_free(&p);
}

/* The candidate parts at step 12 while the twin keeps to the reference's
 * curve: the device. */
Test(judge_training, twin_holding_is_the_device)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_DEV), *tw = verdict(&p, TWIN, EX_DEV);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_eq(v->train->loss_step, 12);
    EXPECT_OUTCOME(tw, PX_OC_PASS_TOL);
    cr_expect_eq(v->attr, PX_ATTR_DEVICE);
    char *c = cause(&p, TPU, EX_DEV);
    cr_expect_str_eq(c, "device (the twin keeps to the reference's run through all 50 steps; this parts at step 13)");
    free(c);
    judged_free(&p);
}

/* A twin that parts too, but long after (step 40): it kept to the
 * reference where the candidate parted, the device; one that parts just
 * before is precision. */
Test(judge_training, how_close_the_twin_must_part)
{
    judged p;
    build(&p);
    px_example_result *tw = &p.r->envs[TWIN].ex[EX_DEV];
    for (int s = 40; s < STEPS; s++)
        tw->values[s] += 0.05;
    px_example_result *tw2 = &p.r->envs[TWIN].ex[EX_PREC];
    for (int s = 10; s < 13; s++) /* now from step 10, before the candidate's 12 */
        tw2->values[s] += 0.05;
    judge(&p);
    cr_expect_eq(verdict(&p, TWIN, EX_DEV)->train->loss_step, 40);
    cr_expect_eq(verdict(&p, TPU, EX_DEV)->attr, PX_ATTR_DEVICE);
    char *c = cause(&p, TPU, EX_DEV);
    cr_expect_str_eq(c, "device (the twin keeps to the reference's curve until step 41, long after this parts at "
                        "step 13)");
    free(c);
    cr_expect_eq(verdict(&p, TPU, EX_PREC)->attr, PX_ATTR_PRECISION);
    c = cause(&p, TPU, EX_PREC);
    cr_expect_str_eq(c, "precision (the bfloat16 twin parts at step 11, this at step 13)");
    free(c);
    /* Two steps after the candidate's: within the slack of 2 (of 50
     * steps), precision; three: past it, the device. */
    for (int s = 10; s < 13; s++)
        tw2->values[s] -= 0.05;
    for (int s = 13; s < STEPS; s++)
        tw2->values[s] = ref_loss(s) + 1e-4 + (s >= 14 ? 0.05 : 0);
    judgement_free(&p.j);
    judge(&p);
    cr_expect_eq(verdict(&p, TWIN, EX_PREC)->train->loss_step, 14);
    cr_expect_eq(verdict(&p, TPU, EX_PREC)->attr, PX_ATTR_PRECISION);
    c = cause(&p, TPU, EX_PREC);
    cr_expect_str_eq(c, "precision (the bfloat16 twin parts at step 15, within 2 steps of this at step 13)");
    free(c);
    for (int s = 13; s < STEPS; s++)
        tw2->values[s] = ref_loss(s) + 1e-4 + (s >= 15 ? 0.05 : 0);
    judgement_free(&p.j);
    judge(&p);
    cr_expect_eq(verdict(&p, TWIN, EX_PREC)->train->loss_step, 15);
    cr_expect_eq(verdict(&p, TPU, EX_PREC)->attr, PX_ATTR_DEVICE);
    judged_free(&p);
}

/* The loss within, the gradient norm parts at step 8 and the update norm
 * at 20: each quantity's first step, the divergence at the gradient's. */
Test(judge_training, first_parting_step_of_each_quantity)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_GRAD);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_eq(v->train->loss_step, -1);
    cr_expect_eq(v->train->grad_step, 8);
    cr_expect_eq(v->train->update_step, 20);
    cr_expect_eq(v->div, PX_DIV_STEP);
    cr_expect(!strncmp(v->div_detail, "grad_norm parts at step 9 of 50: ", 33), "%s", v->div_detail);
    cr_expect(strstr(v->train->failed, "grad_norm parts at step 9 of 50") &&
                  strstr(v->train->failed, "; update_norm parts at step 21 of 50"),
              "%s", v->train->failed);
    /* The twin keeps to the reference: the device, at the gradient's step. */
    cr_expect_eq(v->attr, PX_ATTR_DEVICE);
    const px_verdict *u = verdict(&p, TPU, EX_UPDATE);
    EXPECT_OUTCOME(u, PX_OC_CURVE_CHANGED);
    cr_expect(u->train->loss_step == -1 && u->train->grad_step == -1);
    cr_expect_eq(u->train->update_step, 30);
    cr_expect(!strncmp(u->div_detail, "update_norm parts at step 31 of 50: ", 36), "%s", u->div_detail);
    /* A quantity with no tolerance is not checked. */
    p.f->train_cmp.grad_norm.present = 0;
    judgement_free(&p.j);
    judge(&p);
    v = verdict(&p, TPU, EX_GRAD);
    cr_expect_eq(v->train->grad_step, -1);
    cr_expect_eq(v->train->update_step, 20);
    cr_expect(!strncmp(v->div_detail, "update_norm parts at step 21 of 50", 34), "%s", v->div_detail);
    judged_free(&p);
}

/* A NaN loss at step 6 (step 7 in words), an infinite gradient norm at
 * step 9: loss-not-finite, the step named, in the reference as anywhere. */
Test(judge_training, nan_at_step_k)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_NAN);
    EXPECT_OUTCOME(v, PX_OC_LOSS_NOT_FINITE);
    cr_expect_str_eq(v->detail, "the loss is nan at step 7 of 50");
    cr_expect_eq(v->train->nonfinite_step, 6);
    cr_expect(strstr(v->train->failed, "the loss is nan at step 7 of 50"), "%s", v->train->failed);
    /* Still compared: the NaN parts from the reference's loss there. */
    cr_expect_eq(v->train->loss_step, 6);
    cr_expect_eq(v->div, PX_DIV_STEP);
    const px_verdict *g = verdict(&p, TPU, EX_GINF);
    EXPECT_OUTCOME(g, PX_OC_LOSS_NOT_FINITE);
    cr_expect(!strncmp(g->detail, "the gradient norm is inf at step 10 of 50 (loss ", 48), "%s", g->detail);
    cr_expect_eq(g->train->nonfinite_step, 9);
    /* The reference's own NaN: its finding, and nothing compared with it. */
    p.r->envs[REF].ex[EX_SAME].values[3] = NAN;
    judgement_free(&p.j);
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, REF, EX_SAME), PX_OC_LOSS_NOT_FINITE);
    int said = 0;
    for (size_t i = 0; i < p.j.n_findings; i++)
        said |= strstr(p.j.findings[i], "reference itself disagrees with the expectation on same: loss-not-finite") !=
                NULL;
    cr_expect(said, "the reference's NaN is a finding");
    const px_verdict *c = verdict(&p, TPU, EX_SAME);
    EXPECT_OUTCOME(c, PX_OC_NOT_EVALUATED);
    cr_expect_str_eq(c->detail, "not compared: the reference's own run is not usable (the loss is nan at step 4 of "
                                "50)");
    cr_expect_eq(c->train->n_steps, 0);
    judged_free(&p);
}

/* A flat loss against a reference that learns: not-learning, before the
 * curve's change (which is listed too). */
Test(judge_training, not_learning_against_a_learning_reference)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_FLAT);
    EXPECT_OUTCOME(v, PX_OC_NOT_LEARNING);
    const px_train_verdict *t = v->train;
    double m = 0;
    for (int s = STEPS - 5; s < STEPS; s++)
        m += 4.0 - 0.0005 * s;
    cr_expect_float_eq(t->drop, 4.0 - m / 5, 1e-12);
    cr_expect_float_eq(t->ref_drop, ref_drop(), 1e-12);
    cr_expect(t->drop < 0.1 * t->ref_drop);
    cr_expect(strstr(v->detail, "less than 0.1 of the reference's drop"), "%s", v->detail);
    cr_expect(strstr(t->failed, "learning: its loss drops") && strstr(t->failed, "loss parts at step 2 of 50"), "%s",
              t->failed);
    cr_expect_eq(v->div, PX_DIV_STEP);
    cr_expect_eq(v->attr, PX_ATTR_DEVICE, "the twin learns");
    /* A fraction that a drop of 0.0235 meets: the curve's change is left. */
    p.f->train_cmp.learning_min_fraction = 0.01;
    judgement_free(&p.j);
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_FLAT), PX_OC_CURVE_CHANGED);
    /* 0: only a loss that rises fails. */
    p.f->train_cmp.learning_min_fraction = 0;
    p.r->envs[TPU].ex[EX_FLAT].values[STEPS - 1] = 4.5;
    judgement_free(&p.j);
    judge(&p);
    v = verdict(&p, TPU, EX_FLAT);
    EXPECT_OUTCOME(v, PX_OC_NOT_LEARNING);
    cr_expect(v->train->drop < 0, "%g", v->train->drop);
    /* The last five: 3.9775, 3.977, 3.9765, 3.976 and 4.5. */
    cr_expect_str_eq(v->detail, "its loss rises 0.0814 (4 → 4.081) where the reference's drops 1.98 (4 → 2.018)");
    p.r->envs[TPU].ex[EX_FLAT].values[STEPS - 1] = 4.0 - 0.0005 * (STEPS - 1);
    judgement_free(&p.j);
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_FLAT), PX_OC_CURVE_CHANGED);
    /* No per-step tolerance: told by learning alone, the twin learning. */
    p.f->train_cmp.learning_min_fraction = 0.1;
    p.f->train_cmp.loss.present = p.f->train_cmp.grad_norm.present = p.f->train_cmp.update.present = 0;
    p.f->train_cmp.params_present = 0;
    judgement_free(&p.j);
    judge(&p);
    v = verdict(&p, TPU, EX_FLAT);
    EXPECT_OUTCOME(v, PX_OC_NOT_LEARNING);
    cr_expect_eq(v->div, PX_DIV_NONE);
    cr_expect_eq(v->attr, PX_ATTR_DEVICE);
    char *c = cause(&p, TPU, EX_FLAT);
    cr_assert_not_null(c);
    cr_expect(!strncmp(c, "device (the twin learns as the reference does: its loss drops 1.9", 65), "%s", c);
    free(c);
    judged_free(&p);
}

/* expect.loss_at_most 1.5 where every run ends near 2.0: not-learning in
 * every environment, the reference's a finding. */
Test(judge_training, loss_at_most)
{
    judged p;
    build(&p);
    judge(&p);
    for (int e = 0; e < 3; e++) {
        const px_verdict *v = verdict(&p, e, EX_ATMOST);
        EXPECT_OUTCOME(v, PX_OC_NOT_LEARNING);
        cr_expect(!strncmp(v->detail, "the mean loss of its last 5 of 50 steps is 2.0", 46), "%s", v->detail);
        cr_expect(strstr(v->detail, ", above expect.loss_at_most 1.5"), "%s", v->detail);
    }
    cr_expect_eq(verdict(&p, TPU, EX_ATMOST)->attr, PX_ATTR_NONE, "it parts from the reference nowhere");
    int said = 0;
    for (size_t i = 0; i < p.j.n_findings; i++)
        said |= strstr(p.j.findings[i], "on at-most: not-learning") != NULL;
    cr_expect(said, "the reference above its loss_at_most is a finding");
    /* Within it: its checks hold. */
    p.f->examples[EX_ATMOST].loss_at_most = 2.5;
    judgement_free(&p.j);
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, REF, EX_ATMOST), PX_OC_PASS);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_ATMOST), PX_OC_PASS_TOL);
    judged_free(&p);
}

/* Every step within, one group's parameters beyond params.max_rel:
 * curve-changed at the last step, the group and the figure named. */
Test(judge_training, params_only_failure)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PARAMS);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    const px_train_verdict *t = v->train;
    cr_expect(t->loss_step == -1 && t->grad_step == -1 && t->update_step == -1);
    /* Every sketch value off by 0.5 (and 1e-6): distance 0.5·8, over
     * sqrt(64), over the reference's norm 20. */
    cr_expect_float_eq(t->param_rel[1], (0.5 + 1e-6) / 20, 1e-12);
    cr_expect_float_eq(t->param_rel[0], 1e-6 / 10, 1e-15);
    cr_expect_str_eq(t->failed, "params: attention ||p - p_ref|| / ||p_ref|| ≈ 0.025 > 0.01");
    cr_expect_eq(v->div, PX_DIV_STEP);
    cr_expect_str_eq(v->div_detail, "the parameters at the end (step 50 of 50), with every step's loss and norms "
                                    "within: params: attention ||p - p_ref|| / ||p_ref|| ≈ 0.025 > 0.01");
    cr_expect_eq(v->attr, PX_ATTR_DEVICE);
    char *c = cause(&p, TPU, EX_PARAMS);
    cr_expect_str_eq(c, "device (the twin keeps to the reference's run through all 50 steps; this parts at its "
                        "parameters (step 50, the end))");
    free(c);
    /* The twin's parameters part there too: precision. */
    for (int i = 0; i < PX_TRAIN_SKETCH; i++)
        p.r->envs[TWIN].ex[EX_PARAMS].train->groups[1].sketch[i] += 0.5;
    judgement_free(&p.j);
    judge(&p);
    v = verdict(&p, TPU, EX_PARAMS);
    cr_expect_eq(v->attr, PX_ATTR_PRECISION);
    c = cause(&p, TPU, EX_PARAMS);
    cr_expect_str_eq(c, "precision (the bfloat16 twin parts at its parameters (step 50, the end) too)");
    free(c);
    /* A group missing here, one the reference lacks. */
    free(p.r->envs[TPU].ex[EX_SAME].train->groups[2].name);
    p.r->envs[TPU].ex[EX_SAME].train->groups[2].name = strdup("head");
    judgement_free(&p.j);
    judge(&p);
    v = verdict(&p, TPU, EX_SAME);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_str_eq(v->train->failed, "params: group head here, none in the reference; params: group mlp in the "
                                       "reference, none here");
    cr_expect(isnan(v->train->param_rel[2]));
    /* Without compare.train.params the groups are not checked (still
     * estimated). */
    p.f->train_cmp.params_present = 0;
    judgement_free(&p.j);
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_PARAMS), PX_OC_PASS_TOL);
    cr_expect_float_eq(verdict(&p, TPU, EX_PARAMS)->train->param_rel[1], (0.5 + 1e-6) / 20, 1e-12);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_SAME), PX_OC_PASS);
    judged_free(&p);
}

/* 40 of the recipe's 50 steps: bad-shape (not the contract's run), the
 * first 40 still compared; the divergence is the shape. */
Test(judge_training, another_number_of_steps)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_SHORT);
    EXPECT_OUTCOME(v, PX_OC_BAD_SHAPE);
    cr_expect_str_eq(v->detail, "the loss curve is [1,40], not [1,50]: it ran 40 of its recipe's 50 steps");
    cr_expect_eq(v->div, PX_DIV_SHAPE);
    cr_expect_str_eq(v->div_detail, "[1,50] vs [1,40]");
    cr_expect_eq(v->train->n_steps, 40);
    cr_expect(strstr(v->train->failed, "ran 40 steps, the reference 50"), "%s", v->train->failed);
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    /* No recipe's steps to hold it to: another number than the
     * reference's is a changed curve. */
    p.f->examples[EX_SHORT].recipe->steps = 0;
    judgement_free(&p.j);
    judge(&p);
    v = verdict(&p, TPU, EX_SHORT);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_str_eq(v->detail, "ran 40 steps, the reference 50");
    cr_expect_eq(v->train->n_steps, 40);
    judged_free(&p);
    /* The reference cut short: its own bad-shape; the candidate's whole
     * run is not compared with it, not blamed. */
    build(&p);
    px_example_result *rx = &p.r->envs[REF].ex[EX_WITHIN];
    rx->n_values = rx->train->n_steps = 45;
    rx->shape[1] = 45;
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, REF, EX_WITHIN), PX_OC_BAD_SHAPE);
    v = verdict(&p, TPU, EX_WITHIN);
    EXPECT_OUTCOME(v, PX_OC_NOT_EVALUATED);
    cr_expect_str_eq(v->detail, "not compared: the reference's own run is not usable (it is not a whole run of the "
                                "recipe's steps)");
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    judged_free(&p);
}

/* The twin cannot tell: down, its run timed out, its run cut short. */
Test(judge_training, twin_unknown)
{
    judged p;
    build(&p);
    px_env_result *tw = &p.r->envs[TWIN];
    tw->state = PX_ENV_DOWN;
    tw->down_stage = PX_STAGE_DEVICE;
    tw->down_msg = strdup("bfloat16 is not supported here");
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_eq(v->attr, PX_ATTR_UNKNOWN);
    char *c = cause(&p, TPU, EX_PREC);
    cr_expect_str_eq(c, "unknown: the twin cpu-bf16 did not pass 'device recognised': bfloat16 is not supported here");
    free(c);
    judged_free(&p);

    build(&p);
    px_example_result *x = &p.r->envs[TWIN].ex[EX_DEV];
    x->n_values = x->train->n_steps = 30;
    x->shape[1] = 30;
    judge(&p);
    v = verdict(&p, TPU, EX_DEV);
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_eq(v->attr, PX_ATTR_UNKNOWN);
    c = cause(&p, TPU, EX_DEV);
    cr_expect(!strncmp(c, "unknown: the twin's run did not finish (bad-shape: the loss curve is [1,30]", 74), "%s",
              c);
    free(c);
    judged_free(&p);
}

/* A twin example that timed out: the twin passes no rung past it, so it
 * tells no cause at all (its ladder says why). */
Test(judge_training, twin_run_timed_out_is_unknown)
{
    judged p;
    build(&p);
    px_example_result *x = &p.r->envs[TWIN].ex[EX_DEV];
    x->status = PX_ST_TIMEOUT;
    x->detail = strdup("timed out after 600 s");
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_DEV);
    cr_expect_eq(v->attr, PX_ATTR_UNKNOWN);
    char *c = cause(&p, TPU, EX_DEV);
    cr_expect(strstr(c, "unknown: ") && strstr(c, "timed out after 600 s"), "%s", c);
    free(c);
    judged_free(&p);
}

/* No reference result: judged by its own checks only, never blamed. */
Test(judge_training, no_reference_not_compared)
{
    judged p;
    build(&p);
    p.r->envs[REF].selected = 0;
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_PASS);
    cr_expect(v->not_compared);
    cr_expect(strstr(v->detail, "not compared"), "%s", v->detail);
    cr_expect_eq(v->train->n_steps, 0);
    cr_expect_eq(v->train->loss_step, -1);
    cr_expect(isnan(v->train->ref_drop));
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    /* A flat run is not blamed without a reference to learn as; a NaN
     * is its own. */
    EXPECT_OUTCOME(verdict(&p, TPU, EX_FLAT), PX_OC_PASS);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_NAN), PX_OC_LOSS_NOT_FINITE);
    EXPECT_OUTCOME(verdict(&p, TPU, EX_ATMOST), PX_OC_NOT_LEARNING);
    cr_expect(p.j.envs[TPU].not_compared);
    judged_free(&p);
}

/* The ladder's words and the row's constants. */
Test(judge_training, ladder_words)
{
    judged p;
    build(&p);
    judge(&p);
    const px_env_verdict *ev = &p.j.envs[REF];
    cr_expect_eq(ev->rung[PX_RUNG_FORWARD], PX_RS_PASSED);
    cr_expect_str_eq(ev->rung_detail[PX_RUNG_FORWARD], "every run's loss curve is [1,50]");
    cr_expect_eq(p.j.kind, &judge_training);
    cr_expect_eq(p.j.kind->bench_label(p.r->envs[REF].ex[0].values, STEPS), -1);
    cr_expect_str_eq(p.j.kind->partial_shape, "[1,steps]");
    p.f->examples[EX_SHORT].recipe->steps = 40;
    char *w = p.j.kind->forward_words(p.f, &p.r->envs[REF]);
    cr_expect_str_eq(w, "every run's loss curve is [1,steps], its recipe's");
    free(w);
    judged_free(&p);
}

/* The contract's test fixture and results file (tests/data/training: four
 * environments, two runs of 10 steps), read and judged as check would. */
#define DATA_FIXTURE "tests/data/training/fixture.yaml"
#define DATA_RESULTS "tests/data/training/results.yaml"

static int env_named(const px_results *r, const char *name)
{
    for (size_t e = 0; e < r->n_envs; e++)
        if (!strcmp(r->envs[e].name, name))
            return (int)e;
    cr_assert_fail("no environment %s", name);
    return -1;
}

/* bf16-weights' adamw-warmup parts at step 6 (0-based: "step 7 of 10")
 * while the twin keeps to the reference (the device); its low-lr run's
 * loss is a NaN from step 7 ("step 8 of 10"); the twin and fsdp-2 within
 * every check. */
Test(judge_training, the_contracts_results_file)
{
    px_error err = {0};
    px_fixture *f = fixture_load(DATA_FIXTURE, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    px_results *r = results_load(DATA_RESULTS, f, &err);
    cr_assert_not_null(r, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    /* What parity's own input processing makes of each run, as check
     * hands it over (evidence.c): nothing per run (a training run's input
     * is its recipe and the data), and nothing recorded per run in the
     * file: the input rung has nothing to hold against it. */
    px_prepared *prep = calloc(f->n_examples, sizeof *prep);
    for (size_t e = 0; e < r->n_envs; e++)
        r->envs[e].expect = prep;
    px_judgement j;
    cr_assert_eq(judge_results(f, r, &j, &err), 0, "%s", err.msg);
    for (size_t e = 0; e < r->n_envs; e++) {
        cr_expect_eq(j.envs[e].rung[PX_RUNG_INPUT], PX_RS_PASSED, "%s: %s", r->envs[e].name,
                     j.envs[e].rung_detail[PX_RUNG_INPUT]);
        cr_expect_eq(j.envs[e].ex[0].div == PX_DIV_CLEAN, 0, "%s: %s", r->envs[e].name, j.envs[e].ex[0].div_detail);
        r->envs[e].expect = NULL;
    }
    free(prep);
    int ref = env_named(r, "reference"), twin = env_named(r, "cpu-bf16"), bf = env_named(r, "bf16-weights"),
        fsdp = env_named(r, "fsdp-2");
    enum { WARM, LOW };
    cr_assert_str_eq(f->examples[WARM].id, "adamw-warmup");
    cr_assert_str_eq(f->examples[LOW].id, "low-lr");
    for (int k = WARM; k <= LOW; k++) {
        EXPECT_OUTCOME(&j.envs[ref].ex[k], PX_OC_PASS);
        EXPECT_OUTCOME(&j.envs[twin].ex[k], PX_OC_PASS_TOL);
        EXPECT_OUTCOME(&j.envs[fsdp].ex[k], PX_OC_PASS_TOL);
    }
    cr_expect(strstr(j.envs[ref].ex[WARM].detail, "trained 10 steps: loss 5.7 → 4.845 (the mean of its last step)"),
              "%s", j.envs[ref].ex[WARM].detail);
    const px_verdict *v = &j.envs[bf].ex[WARM];
    EXPECT_OUTCOME(v, PX_OC_CURVE_CHANGED);
    cr_expect_eq(v->train->loss_step, 6);
    cr_expect_eq(v->div, PX_DIV_STEP);
    cr_expect(!strncmp(v->div_detail, "loss parts at step 7 of 10: ", 28), "%s", v->div_detail);
    cr_expect_eq(v->attr, PX_ATTR_PRECISION, "bfloat16 weights on the reference's CPU: their own precision recipe");
    const px_verdict *n = &j.envs[bf].ex[LOW];
    EXPECT_OUTCOME(n, PX_OC_LOSS_NOT_FINITE);
    cr_expect_str_eq(n->detail, "the loss is nan at step 8 of 10");
    cr_expect_eq(n->train->nonfinite_step, 7);
    cr_expect_str_eq(j.envs[ref].rung_detail[PX_RUNG_FORWARD], "every run's loss curve is [1,10]");
    judgement_free(&j);
    results_free(r);
    fixture_free(f);
}

/* A candidate on the reference's own device (the demo's CPU environments)
 * cannot part by the device, and the twin, which runs the TPU's recipe, is
 * not asked about a recipe that is not its own: bfloat16 weights on the
 * CPU parting is their precision recipe, whatever the twin does; the same
 * precision on the same device parting is neither (its plan). Before, a
 * bfloat16-weights run was blamed on the device because the autocast twin
 * held. */
Test(judge_training, a_candidate_on_the_references_device_is_not_blamed_on_the_device)
{
    judged p;
    build(&p);
    px_env *tpu = &p.f->envs[p.r->envs[TPU].env_index];
    free(tpu->device), free(tpu->dtype);
    tpu->device = strdup("cpu"), tpu->dtype = strdup("bfloat16");
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_DEV); /* the twin holds here */
    cr_expect_eq(v->attr, PX_ATTR_PRECISION);
    char *c = cause(&p, TPU, EX_DEV);
    cr_expect_str_eq(c, "precision (this runs on the reference's own device, cpu: what differs is its precision "
                        "recipe, bfloat16 weights, bfloat16 compute, against the reference's float32 weights, float32 "
                        "compute)");
    free(c);
    judgement_free(&p.j);
    free(tpu->dtype);
    tpu->dtype = strdup("float32");
    judge(&p);
    cr_expect_eq(verdict(&p, TPU, EX_DEV)->attr, PX_ATTR_UNKNOWN);
    c = cause(&p, TPU, EX_DEV);
    cr_expect(c && strstr(c, "what differs is its plan (1 processes"), "%s", c ? c : "(none)");
    free(c);
    judged_free(&p);
}
