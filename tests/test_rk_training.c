/* The training kind's report part (rk_training.c) and the last good
 * configuration's recipe (history.c), on results made here in memory: the
 * four-environment fixture of tests/data/four-envs made a training
 * contract (its examples are the runs, three of its environments the
 * reference, a bfloat16 twin with mixed precision and a 2-process FSDP
 * candidate), each run's loss curve of 20 steps and its per-step figures,
 * and each run's training verdict filled here as the judge
 * (judge_training.c) fills it: the candidate's first run parts at step 12,
 * the twin's second run is not finite from step 15. Run's table, check's
 * text and JSON, the HTML report's SVG and the Markdown report's figures,
 * export's CSVs and the history's recipe are each read back. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/check_report.h"
#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/report_html.h"
#include "parity/report_kind.h"
#include "parity/report_md.h"
#include "parity/results.h"
#include "parity/run_table.h"
#include "parity/story.h"
#include "testlib.h"

#define FIXTURE "tests/data/four-envs/fixture.yaml"
enum { N = 20, PARTS = 12, NONFINITE = 15, E_REF = 0, E_TWIN = 1, E_CAND = 2 };
enum { K_PARTS, K_NAN };

static px_fixture *f;
static px_results *r;
static px_judgement j;
static px_story *story;

/* The reference's loss at step s: 4 down by 0.1 a step. */
static double ref_loss(size_t s) { return 4.0 - 0.1 * (double)s; }

/* Environment e's loss curve of run k: the reference's; the twin's a
 * thousandth off (within compare.train.loss's 0.01), not finite from
 * NONFINITE in run K_NAN; the candidate's parting at PARTS in run
 * K_PARTS. */
static double loss_at(size_t e, size_t k, size_t s)
{
    double l = ref_loss(s);
    if (e == E_TWIN)
        l += 0.001;
    if (e == E_TWIN && k == K_NAN && s >= NONFINITE)
        l = NAN;
    if (e == E_CAND && k == K_PARTS && s >= PARTS)
        l += 0.05 * (double)(s - PARTS + 1);
    return l;
}

static px_train_out *train_out(size_t e, size_t k)
{
    px_train_out *t = calloc(1, sizeof *t);
    t->n_steps = N;
    t->grad_norm = malloc(N * sizeof(double)), t->update_norm = malloc(N * sizeof(double));
    t->lr = malloc(N * sizeof(double)), t->step_ms = malloc(N * sizeof(double));
    for (size_t s = 0; s < N; s++) {
        t->grad_norm[s] = 2.0 + 0.01 * (double)s + (e == E_CAND && k == K_PARTS && s >= PARTS - 1 ? 0.5 : 0);
        t->update_norm[s] = 0.02;
        t->lr[s] = 0.001 * (double)(s + 1) / 21.0;
        t->step_ms[s] = 10 + (double)e;
    }
    t->startup_ms = 250 + 100 * (double)e;
    t->total_ms = 500;
    t->processes = e == E_CAND ? 2 : 1;
    return t;
}

static const char *const groups[] = {"embed", "attention", "mlp"};

/* The verdict the judge would give run k in environment e. */
static void fill_verdict(size_t e, size_t k, px_verdict *v)
{
    px_train_verdict *tv = calloc(1, sizeof *tv);
    tv->n_steps = N;
    tv->loss_step = tv->grad_step = tv->update_step = tv->nonfinite_step = -1;
    tv->loss_diff = malloc(N * sizeof(double));
    for (size_t s = 0; s < N; s++)
        tv->loss_diff[s] = fabs(loss_at(e, k, s) - ref_loss(s));
    /* compare.train.learning's drop: the first step's loss less the mean
     * of the last tenth. */
    tv->drop = loss_at(e, k, 0) - (loss_at(e, k, N - 2) + loss_at(e, k, N - 1)) / 2;
    tv->ref_drop = ref_loss(0) - (ref_loss(N - 2) + ref_loss(N - 1)) / 2;
    tv->n_groups = 3;
    tv->group = malloc(3 * sizeof *tv->group);
    tv->param_rel = malloc(3 * sizeof *tv->param_rel);
    for (size_t g = 0; g < 3; g++)
        tv->group[g] = (char *)groups[g], tv->param_rel[g] = e == E_REF ? 0 : 0.001 * (double)(g + 1);
    free(v->detail), free(v->div_detail);
    v->detail = v->div_detail = NULL;
    v->has_cmp = 0;
    v->div = PX_DIV_NONE;
    v->outcome = PX_OC_PASS;
    if (e == E_CAND && k == K_PARTS) {
        tv->loss_step = PARTS, tv->grad_step = PARTS - 1;
        tv->param_rel[1] = 0.03;
        tv->failed = strdup("loss beyond compare.train.loss from step 12; params attention 0.03 > 0.02");
        v->outcome = PX_OC_CURVE_CHANGED;
        v->detail = strdup("its loss parts from the reference's at step 12");
        v->div = PX_DIV_STEP;
        v->div_detail = strdup("step 12: loss 2.85 against 2.8");
    }
    if (e == E_TWIN && k == K_NAN) {
        tv->nonfinite_step = NONFINITE, tv->loss_step = NONFINITE;
        tv->drop = NAN;
        v->outcome = PX_OC_LOSS_NOT_FINITE;
        v->detail = strdup("its loss is not finite from step 15");
    }
    v->train = tv;
}

static void free_verdicts(void)
{
    for (size_t e = 0; e < j.n_envs; e++)
        for (size_t k = 0; j.envs[e].ex && k < j.n_examples; k++) {
            px_train_verdict *tv = j.envs[e].ex[k].train;
            if (!tv)
                continue;
            free(tv->loss_diff), free(tv->group), free(tv->param_rel), free(tv->failed), free(tv);
            j.envs[e].ex[k].train = NULL;
        }
}

static px_recipe *recipe_copy(void)
{
    px_recipe *c = malloc(sizeof *c);
    *c = f->recipe;
    return c;
}

/* The fixture as a training contract: the recipe, compare.train, the
 * environments' precision recipes and plans (their strings freed by
 * unmake, as contract's fixture_free will once it knows them). */
static void make_training(void)
{
    f->kind = PX_MODEL_TRAINING;
    px_recipe *rc = &f->recipe;
    memset(rc, 0, sizeof *rc);
    rc->steps = N, rc->batch_size = 4, rc->seq_len = 32, rc->optimizer = PX_OPT_ADAMW, rc->lr = 0.001;
    rc->beta1 = 0.9, rc->beta2 = 0.999, rc->eps = 1e-8, rc->weight_decay = 0.01, rc->warmup_steps = 20;
    rc->clip_grad_norm = 1.0;
    for (size_t k = 0; k < f->n_examples; k++)
        f->examples[k].recipe = recipe_copy(), f->examples[k].loss_at_most = NAN;
    f->examples[K_NAN].loss_at_most = 3.5;
    px_train_checks *ck = &f->train_cmp;
    ck->loss = (px_step_tol){.present = 1, .atol = 0.01, .rtol = 0, .why = strdup("bf16 moves the loss by 1e-3")};
    ck->grad_norm = (px_step_tol){.present = 1, .atol = 0.1, .rtol = 0.05, .why = strdup("norms move more")};
    ck->params_present = 1, ck->params_max_rel = 0.02, ck->params_why = strdup("a group moves 1% in bf16");
    ck->learning_min_fraction = 0.1;
    f->envs[2].mixed_precision_param = strdup("bfloat16");
    f->envs[2].mixed_precision_reduce = strdup("float32");
    f->envs[3].parallel = (px_parallel){.processes = 2, .strategy = PX_PAR_FSDP, .backend = strdup("gloo")};
}

static void unmake_training(void)
{
    for (size_t k = 0; k < f->n_examples; k++)
        free(f->examples[k].recipe), f->examples[k].recipe = NULL;
    px_train_checks *ck = &f->train_cmp;
    free(ck->loss.why), free(ck->grad_norm.why), free(ck->params_why);
    memset(ck, 0, sizeof *ck);
    free(f->envs[2].mixed_precision_param), free(f->envs[2].mixed_precision_reduce), free(f->envs[3].parallel.backend);
    f->envs[2].mixed_precision_param = f->envs[2].mixed_precision_reduce = NULL;
    memset(&f->envs[3].parallel, 0, sizeof f->envs[3].parallel);
}

static void setup(void)
{
    px_error err = {0};
    f = fixture_load(FIXTURE, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_assert_geq(f->n_examples, 2);
    make_training();
    r = results_new(f, (const int[]){0, 2, 3}, 3);
    cr_assert_not_null(r);
    cr_assert_eq(r->reference, 0);
    for (size_t e = 0; e < 3; e++) {
        px_env_result *er = &r->envs[e];
        er->origin = PX_ORIGIN_RUN, er->state = PX_ENV_UP;
        er->m.device = strdup("cpu"), er->m.dtype = strdup(e == E_REF ? "float32" : "bfloat16");
        er->m.threads = 1;
        for (size_t k = 0; k < r->n_examples; k++) {
            px_example_result *x = &er->ex[k];
            x->status = PX_ST_OK;
            x->values = malloc(N * sizeof(double));
            for (size_t s = 0; s < N; s++)
                x->values[s] = loss_at(e, k, s);
            x->n_values = N, x->ndim = 2, x->shape[0] = 1, x->shape[1] = N;
            x->dtype = results_dtype("float32");
            x->forward_ms = 300;
            x->train = train_out(e, k);
        }
    }
    cr_assert_eq(judge_results(f, r, &j, &err), 0, "%s", err.msg);
    /* The judge's training part, as judge_training.c gives it. */
    for (size_t e = 0; e < 3; e++) {
        for (size_t k = 0; k < r->n_examples; k++)
            fill_verdict(e, k, &j.envs[e].ex[k]);
        j.envs[e].met = e == E_REF;
    }
    story = story_build(f, r, &j, NULL, NULL, &err);
    cr_assert_not_null(story, "%s", err.msg);
}

static void teardown(void)
{
    story_free(story);
    free_verdicts();
    judgement_free(&j);
    results_free(r);
    unmake_training();
    fixture_free(f);
}

TestSuite(rk_training, .init = setup, .fini = teardown);

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

typedef void (*check_fn)(FILE *o);
static void w_table(FILE *o) { run_table_print(o, f, r); }
static void w_text(FILE *o) { check_report_text(o, f, r, &j, NULL); }
static void w_json(FILE *o) { check_report_json(o, f, r, &j, NULL, 1); }
static void w_md(FILE *o) { report_markdown_judged(o, story, &j); }
static void w_html(FILE *o) { report_html_judged(o, story, &j); }

static char *written(check_fn w)
{
    static char *text;
    static size_t len;
    text = NULL;
    FILE *o = open_memstream(&text, &len);
    w(o);
    fclose(o);
    return text;
}

/* The line of out that holds what, up to its newline (static). */
static const char *line_of(const char *out, const char *what)
{
    static char line[1024];
    const char *p = strstr(out, what);
    if (!p)
        return NULL;
    while (p > out && p[-1] != '\n')
        p--;
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    return line;
}

Test(rk_training, run_table_gives_steps_loss_and_the_parting_step)
{
    char *out = written(w_table);
    const char *row = line_of(out, f->examples[K_PARTS].id);
    cr_assert_not_null(row, "%s", out);
    /* Each environment's cell, then where each candidate parts: the twin
     * within compare.train.loss (held), the candidate at step 12. */
    cr_expect(strstr(row, "20 steps, loss 4→2.1"), "%s", row);
    cr_expect(strstr(row, "20 steps, loss 4→2.5"), "the candidate's last loss: %s", row);
    cr_expect(strstr(row, "  held, step 13"), "steps said from 1: %s", row);
    const char *nan_row = line_of(out, f->examples[K_NAN].id);
    cr_expect(strstr(nan_row, "loss 4→nan"), "%s", nan_row);
    cr_expect(strstr(nan_row, "  step 16, ="), "the twin parts where it is not finite: %s", nan_row);
    /* A run whose curves are the reference's exactly. */
    const char *same = line_of(out, f->examples[2].id);
    cr_expect(strstr(same, "  held, ="), "%s", same);
    free(out);
}

/* A cell wider than the table's column is cut, by display width. */
Test(rk_training, run_cell_is_cut_by_width)
{
    px_sbuf b = PX_SBUF_INIT;
    rk_training.run_cell(&b, f, &r->envs[0], K_PARTS);
    cr_expect_str_eq(sbuf_str(&b), "20 steps, loss 4→2.1");
    sbuf_free(&b);
    px_example_result *x = &r->envs[0].ex[3];
    free(x->values);
    x->values = NULL, x->status = PX_ST_EXCEPTION;
    rk_training.run_cell(&b, f, &r->envs[0], 3);
    cr_expect_str_eq(sbuf_str(&b), "no loss curve");
    sbuf_free(&b);
    char *out = written(w_table);
    for (const char *p = out; *p;) {
        size_t n = strcspn(p, "\n");
        cr_expect_leq(n, 400, "a line of %zu bytes", n);
        p += n + (p[n] == '\n');
    }
    free(out);
}

Test(rk_training, check_text_has_outcome_curve_and_steps_around_the_parting)
{
    char *out = written(w_text);
    cr_expect(strstr(out, "curve-changed: its loss parts from the reference's at step 12"), "%s", out);
    const char *curve = line_of(out, "curve: loss parts at step 13 of 20 (grad_norm at step 12)");
    cr_assert_not_null(curve, "%s", out);
    cr_expect(strstr(curve, "drop 1.48 against the reference's 1.85"), "%s", curve);
    cr_expect(strstr(curve, "params' worst group attention 0.03"), "%s", curve);
    cr_expect_null(strstr(curve, "fails"), "the outcome's line says what fails: %s", curve);
    /* The steps before and after it, the parting one marked. */
    const char *at = line_of(out, "13     2.85 ");
    cr_assert_not_null(at, "the candidate's loss at step 13 (index 12): %s", out);
    cr_expect(strstr(at, "← parts"), "%s", at);
    cr_expect(strstr(at, " 2.8 "), "the reference's: %s", at);
    cr_expect(line_of(out, "                       11     "), "%s", out);
    cr_expect(line_of(out, "                       15     "), "%s", out);
    cr_expect_null(line_of(out, "                       10     "), "two steps before, no more");
    cr_expect(strstr(out, "loss-not-finite: its loss is not finite from step 15"), "%s", out);
    cr_expect(strstr(out, "curve: not finite from step 16; loss parts at step 16 of 20"), "%s", out);
    /* The reference's own runs: their steps, their loss from the first
     * step to the mean of the last tenth (the figure its drop is of). */
    cr_expect(strstr(out, "curve: 20 steps, loss 4 → 2.15 (the last 2 steps' mean), drop 1.85"), "%s", out);
    free(out);
}

/* A run not evaluated (its environment down at load: no curve, a verdict
 * of no steps) has no "curve:" line, not "within ... over 0 steps". */
Test(rk_training, check_text_says_no_curve_of_a_run_not_evaluated)
{
    px_example_result *x = &r->envs[E_CAND].ex[K_PARTS];
    x->status = PX_ST_NOT_EVALUATED;
    px_verdict *v = &j.envs[E_CAND].ex[K_PARTS];
    v->outcome = PX_OC_NOT_EVALUATED;
    free(v->detail);
    v->detail = strdup("cpu-fp16 down");
    v->train->n_steps = 0, v->train->loss_step = v->train->grad_step = -1;
    char *out = written(w_text);
    const char *at = strstr(out, "not-evaluated: cpu-fp16 down");
    cr_assert_not_null(at, "%s", out);
    const char *next = strchr(at, '\n');
    cr_assert_not_null(next);
    cr_expect_null(strstr(out, "over 0 steps"), "%s", out);
    cr_expect(strncmp(next + 1 + strspn(next + 1, " "), "curve:", 6), "a curve line under it: %s", next + 1);
    free(out);
}

Test(rk_training, check_json_has_every_per_step_figure)
{
    char *out = written(w_json);
    json_error_t e;
    json_t *root = json_loads(out, 0, &e);
    cr_assert_not_null(root, "%s: %s", e.text, out);
    json_t *cand = json_array_get(json_object_get(root, "environments"), E_CAND);
    json_t *ex = json_array_get(json_object_get(cand, "examples"), K_PARTS);
    json_t *t = json_object_get(ex, "training");
    cr_assert(json_is_object(t), "%s", out);
    cr_expect_eq(json_integer_value(json_object_get(t, "steps")), N);
    const char *arrays[] = {"loss", "grad_norm", "update_norm", "lr", "step_ms", "reference_loss", "loss_diff"};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        cr_expect_eq(json_array_size(json_object_get(t, arrays[i])), N, "%s", arrays[i]);
    cr_expect_float_eq(json_number_value(json_array_get(json_object_get(t, "loss"), PARTS)), loss_at(E_CAND, 0, PARTS),
                       1e-12);
    cr_expect_float_eq(json_number_value(json_array_get(json_object_get(t, "reference_loss"), PARTS)), ref_loss(PARTS),
                       1e-12);
    cr_expect_float_eq(json_number_value(json_array_get(json_object_get(t, "grad_norm"), 3)), 2.03, 1e-12);
    cr_expect_float_eq(json_number_value(json_array_get(json_object_get(t, "lr"), 0)), 0.001 / 21, 1e-15);
    cr_expect_eq(json_integer_value(json_object_get(t, "loss_step")), PARTS);
    cr_expect_eq(json_integer_value(json_object_get(t, "grad_step")), PARTS - 1);
    cr_expect(json_is_null(json_object_get(t, "update_step")));
    cr_expect(json_is_null(json_object_get(t, "nonfinite_step")));
    cr_expect_float_eq(json_number_value(json_object_get(t, "ref_drop")), 1.85, 1e-9);
    cr_expect_float_eq(json_number_value(json_object_get(json_object_get(t, "params"), "attention")), 0.03, 1e-12);
    cr_expect_eq(json_object_size(json_object_get(t, "params")), 3);
    cr_expect_float_eq(json_number_value(json_object_get(t, "startup_ms")), 450, 1e-9);
    cr_expect(json_is_string(json_object_get(t, "failed")));
    /* The twin's run not finite: its loss null from step 15. */
    json_t *twin = json_array_get(json_object_get(root, "environments"), E_TWIN);
    json_t *tn = json_object_get(json_array_get(json_object_get(twin, "examples"), K_NAN), "training");
    cr_expect(json_is_null(json_array_get(json_object_get(tn, "loss"), NONFINITE)));
    cr_expect_eq(json_integer_value(json_object_get(tn, "nonfinite_step")), NONFINITE);
    cr_expect(json_is_null(json_object_get(tn, "drop")));
    /* The reference's: no reference loss of its own. */
    json_t *ref = json_array_get(json_object_get(root, "environments"), E_REF);
    json_t *tr = json_object_get(json_array_get(json_object_get(ref, "examples"), 0), "training");
    cr_expect(json_is_null(json_object_get(tr, "reference_loss")));
    json_decref(root);
    free(out);
}

/* The first example's part of a report: from its id's heading to the
 * next example's. */
static char *section(const char *doc, const char *from, const char *to)
{
    const char *a = strstr(doc, from);
    cr_assert_not_null(a, "%s", from);
    const char *z = to ? strstr(a + 1, to) : NULL;
    size_t n = z ? (size_t)(z - a) : strlen(a);
    char *s = malloc(n + 1);
    memcpy(s, a, n), s[n] = '\0';
    return s;
}

Test(rk_training, html_draws_every_curve_and_marks_the_parting)
{
    char *html = written(w_html);
    cr_expect_null(strstr(html, "<script"));
    cr_expect_null(strstr(html, "img-src"), "nothing embedded: the CSP stays default-src 'none'");
    cr_expect_null(strstr(html, " style=\""), "no inline style attributes");
    char *svg = section(html, "<svg class=\"loss-chart\"", "</svg>");
    /* One path per environment, each its own colour; the reference solid. */
    cr_expect_eq(count(svg, "<path class=\"loss "), 3, "%s", svg);
    cr_expect_eq(count(svg, "<path class=\"loss c0\""), 1, "the reference, solid");
    cr_expect_eq(count(svg, "<path class=\"loss c1 cand\""), 1);
    cr_expect_eq(count(svg, "<path class=\"loss c2 cand\""), 1);
    /* The legend names each, the reference as such. */
    cr_expect(strstr(svg, ">reference (reference)</text>"), "%s", svg);
    cr_expect(strstr(svg, ">cpu-bf16</text>"));
    cr_expect(strstr(svg, ">cpu-fp16</text>"));
    /* The parting step: a vertical line and its label. */
    cr_expect_eq(count(svg, "<line class=\"part"), 1, "%s", svg);
    cr_expect(strstr(svg, "cpu-fp16 parts at step 13</text>"), "%s", svg);
    /* The axes: the step range and the loss range. */
    cr_expect(strstr(svg, ">step 1</text>") && strstr(svg, ">step 20</text>"));
    cr_expect(strstr(svg, ">loss</text>"));
    free(svg);
    /* The table of figures and the steps around the parting. */
    cr_expect(strstr(html, "<table class=\"train-figures\">"));
    cr_expect(strstr(html, "<td class=\"unmet\">step 13</td>"), "%s", html);
    cr_expect(strstr(html, "<tr class=\"parts\"><td>13</td>"));
    /* The twin's broken line: its path starts again after no step. */
    cr_expect_eq(count(html, "<svg class=\"loss-chart\""), (size_t)f->n_examples);
    /* The legend: the outcomes shown, in the same words as markdown's. */
    const char *legend = strstr(html, "<h2 id=\"outcomes\">");
    cr_assert_not_null(legend);
    cr_expect(strstr(legend, "<tr><td>curve-changed</td>") && strstr(legend, "<tr><td>loss-not-finite</td>"), "%s",
              legend);
    cr_expect_null(strstr(legend, "<tr><td>blank-image</td>"), "%s", legend);
    free(html);
}

Test(rk_training, markdown_has_figures_and_no_picture)
{
    char *md = written(w_md);
    cr_expect_null(strstr(md, "<svg"));
    cr_expect_null(strstr(md, "!["));
    cr_expect_null(strstr(md, "data:"));
    cr_expect(strstr(md, "Training figures"), "%s", md);
    cr_expect(strstr(md, "| cpu-fp16 | 20 | 4 | 2.5 | 1.48 | step 13 | step 12 |"), "%s", md);
    cr_expect(strstr(md, "| step 13 | step 12 |"), "%s", md);
    cr_expect(strstr(md, "| **13** | 2.8 | 2.801 | 2.85 |"), "%s", md);
    cr_expect(strstr(md, "Training: adamw, lr 0.001"), "%s", md);
    cr_expect(strstr(md, "| reference | 20 | 4 | 2.1 | 1.85 | (reference) | — | — | — | 250 | 10.0 |"), "%s", md);
    /* The legend explains the outcomes shown here, no other kind's. */
    const char *legend = strstr(md, "## What the outcomes mean");
    cr_assert_not_null(legend, "%s", md);
    const char *shown[] = {"| pass |", "| curve-changed |", "| loss-not-finite |"};
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
        cr_expect(strstr(legend, shown[i]), "%s missing: %s", shown[i], legend);
    const char *not_shown[] = {"| not-learning |", "| wrong-label |", "| image-changed |", "| ranking-changed |"};
    for (size_t i = 0; i < sizeof not_shown / sizeof *not_shown; i++)
        cr_expect_null(strstr(legend, not_shown[i]), "%s is not shown here: %s", not_shown[i], legend);
    free(md);
    /* A run's own expectation (expect: {loss_at_most}) in its words. */
    px_sbuf b = PX_SBUF_INIT;
    rk_training.story_expect(f, &f->examples[K_NAN].expect, &b);
    cr_expect(strstr(sbuf_str(&b), "; its loss over the last tenth of its steps at most 3.5"), "%s", sbuf_str(&b));
    sbuf_reset(&b);
    rk_training.story_expect(f, &f->examples[K_PARTS].expect, &b);
    cr_expect_null(strstr(sbuf_str(&b), "at most"), "%s", sbuf_str(&b));
    sbuf_free(&b);
}

typedef struct files {
    char name[8][256];
    char *data[8];
    size_t n;
} files;

static int put(void *ctx, const char *rel, const void *data, size_t len)
{
    files *fs = ctx;
    cr_assert_lt(fs->n, 8);
    snprintf(fs->name[fs->n], sizeof fs->name[0], "%s", rel);
    fs->data[fs->n] = strndup(data, len);
    fs->n++;
    return 0;
}

Test(rk_training, export_writes_each_environments_steps)
{
    files fs = {0};
    px_error err = {0};
    cr_assert_eq(rk_training.export_example(f, r, &j, K_PARTS, NULL, put, &fs, &err), 3);
    cr_expect_str_eq(fs.name[0], "training/1-film-night/reference-steps.csv");
    cr_expect_str_eq(fs.name[2], "training/1-film-night/cpu-fp16-steps.csv");
    const char *csv = fs.data[2];
    cr_expect(!strncmp(csv, "step,loss,grad_norm,update_norm,lr,step_ms\n", 43), "%s", csv);
    cr_expect_eq(count(csv, "\n"), N + 1);
    char want[128];
    snprintf(want, sizeof want, "\n12,%.17g,%.17g,0.02,%.17g,12\n", loss_at(E_CAND, 0, 12), 2.0 + 0.01 * 12.0 + 0.5,
             0.001 * 13.0 / 21.0);
    cr_expect(strstr(csv, want), "%s in %s", want, csv);
    for (size_t i = 0; i < fs.n; i++)
        free(fs.data[i]);
    /* Only the environments asked for; a not-finite loss as it was. */
    memset(&fs, 0, sizeof fs);
    unsigned char only_twin[3] = {0, 1, 0};
    cr_assert_eq(rk_training.export_example(f, r, &j, K_NAN, only_twin, put, &fs, &err), 1);
    cr_expect(strstr(fs.data[0], "\n15,nan,"), "%s", fs.data[0]);
    free(fs.data[0]);
    cr_expect(strstr(rk_training.export_readme, "ENV-steps.csv"));
}

Test(rk_training, history_records_the_recipe_and_says_its_change)
{
    char *words;
    char hex[PX_SHA256_HEX], hex2[PX_SHA256_HEX];
    cr_assert_eq(history_recipe(f, &f->envs[3], &words, hex), 0);
    cr_assert_not_null(words);
    cr_expect(strstr(words, "adamw lr 0.001 (betas 0.9, 0.999, eps 1e-08, weight decay 0.01), warm-up 20, clip 1"),
              "%s", words);
    cr_expect(strstr(words, "20 steps, batch 4 x 32 tokens"), "%s", words);
    cr_expect(strstr(words, "2 processes, fsdp, gloo"), "%s", words);
    cr_expect(strstr(words, "no mixed precision"), "%s", words);
    free(words);
    cr_assert_eq(history_recipe(f, &f->envs[2], &words, hex2), 0);
    cr_expect(strstr(words, "mixed precision param bfloat16, reduce float32; one process"), "%s", words);
    cr_expect_str_neq(hex, hex2, "the plan is in the digest");
    free(words);

    /* Recorded for the environments that met the contract; then a run's
     * own recipe changes: its words and its digest differ, and check's
     * "last good" words say so. */
    px_history h = {0};
    px_error err = {0};
    cr_assert_eq(history_record(&h, f, r, &j, &err), 1, "the reference alone met it");
    const px_history_entry *l = history_find(&h, "reference");
    cr_assert_not_null(l);
    cr_expect(strstr(l->config.v[PX_CF_RECIPE], "adamw lr 0.001"));
    cr_expect(l->config.v[PX_CF_RECIPE_SHA] && strlen(l->config.v[PX_CF_RECIPE_SHA]) == 64);
    size_t len;
    char *text = history_text(&h, "fixture.yaml", &len);
    cr_expect(strstr(text, "      train_recipe: "), "%s", text);
    px_history back;
    cr_assert_eq(history_parse("h.yaml", text, len, &back, &err), 0, "%s", err.msg);
    cr_expect_eq(history_compare(&back.v[0].config, &l->config), 0u, "it reads back the same");
    history_free(&back);
    free(text);

    f->examples[1].recipe->lr = 0.002;
    px_since s[3];
    cr_assert_eq(history_since(&h, f, r, &j, s, &err), 0);
    cr_expect_eq(s[0].changed, 1u << PX_CF_RECIPE | 1u << PX_CF_RECIPE_SHA, "%x", s[0].changed);
    char *out = written(w_text);
    (void)out;
    free(out);
    static char *t2;
    static size_t n2;
    t2 = NULL;
    FILE *o = open_memstream(&t2, &n2);
    check_report_text(o, f, r, &j, s);
    fclose(o);
    cr_expect(strstr(t2, "differs from the last good configuration"), "%s", t2);
    cr_expect(strstr(t2, "training recipe: adamw lr 0.001"), "%s", t2);
    cr_expect(strstr(t2, "(1 with its own recipe)"), "%s", t2);
    cr_expect(strstr(t2, "training recipe's digest: "), "%s", t2);
    free(t2);
    /* A fixture of another kind has none: its history is as before. */
    void *rec[16];
    for (size_t k = 0; k < f->n_examples && k < 16; k++)
        rec[k] = f->examples[k].recipe, f->examples[k].recipe = NULL;
    cr_assert_eq(history_recipe(f, &f->envs[0], &words, hex), 0);
    cr_expect_null(words);
    for (size_t k = 0; k < f->n_examples && k < 16; k++)
        f->examples[k].recipe = rec[k];
    history_free(&h);
}

/* The contract's training fixture and its results file (tests/data/training:
 * two runs in four environments, bf16-weights' first run parting, its
 * second's loss a NaN), read as parity reads them: the HTML report draws
 * four curves a run, and an export carries each environment's steps. */
Test(rk_training_file, report_and_export_of_the_training_fixture)
{
    px_error err = {0};
    px_fixture *tf = fixture_load("tests/data/training/fixture.yaml", &err);
    cr_assert_not_null(tf, "%s", err.msg);
    px_results *tr = results_load("tests/data/training/results.yaml", tf, &err);
    cr_assert_not_null(tr, "%s", err.msg);
    cr_assert_eq(tr->n_envs, 4);
    px_judgement tj;
    cr_assert_eq(judge_results(tf, tr, &tj, &err), 0, "%s", err.msg);
    px_story *ts = story_build(tf, tr, &tj, NULL, NULL, &err);
    cr_assert_not_null(ts, "%s", err.msg);
    static char *html;
    static size_t len;
    html = NULL;
    FILE *o = open_memstream(&html, &len);
    report_html_judged(o, ts, &tj);
    fclose(o);
    cr_expect_eq(count(html, "<svg class=\"loss-chart\""), tf->n_examples);
    cr_expect_eq(count(html, "<path class=\"loss "), 4 * tf->n_examples, "four environments, each run");
    cr_expect_null(strstr(html, "<script"));
    free(html);
    files fs = {0};
    cr_assert_eq(rk_training.export_example(tf, tr, &tj, 0, NULL, put, &fs, &err), 4);
    size_t steps = tr->envs[0].ex[0].n_values;
    cr_expect_gt(steps, 1);
    for (size_t i = 0; i < fs.n; i++) {
        cr_expect_eq(count(fs.data[i], "\n"), steps + 1, "%s", fs.name[i]);
        cr_expect_null(strstr(fs.data[i], ",,"), "every figure recorded: %s", fs.name[i]);
        free(fs.data[i]);
    }
    story_free(ts);
    judgement_free(&tj);
    results_free(tr);
    fixture_free(tf);
}
