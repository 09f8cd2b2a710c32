/* The training demo (fixtures/llm-train, issue 40 item 5) end to end: its
 * claims, as the fixture's header and the README state them, held against
 * the real executor. The float32 reference learns visibly from about ln 512;
 * the CPU twin (autocast over float32 masters) keeps to it in both runs
 * tried; bfloat16 weights without masters keep to it on the default recipe
 * but part on small-lr, later than the start and for good, their first
 * update already smaller, while still learning. The tolerance is the
 * fixture's own compare.train.loss atol, read from it. (The judge's words
 * for these are its own tests'; this holds the numbers the demo stands on.) */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

#define VENV_PY "build/venv/bin/python"
#define FIXTURE "fixtures/llm-train/fixture.yaml"

static double tail_mean(const double *v, size_t n)
{
    size_t k = n / 10 ? n / 10 : 1;
    double s = 0;
    for (size_t i = n - k; i < n; i++)
        s += v[i];
    return s / (double)k;
}

/* The first step where |a - b| > tol (-1: none); *max the largest. */
static long parts_at(const double *a, const double *b, size_t n, double tol, double *max)
{
    long at = -1;
    *max = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (d > *max)
            *max = d;
        if (d > tol && at < 0)
            at = (long)i;
    }
    return at;
}

static const px_example_result *run_of(const px_results *r, const px_fixture *f, const char *env, const char *id)
{
    for (size_t e = 0; e < r->n_envs; e++) {
        if (strcmp(r->envs[e].name, env))
            continue;
        for (size_t k = 0; k < f->n_examples; k++)
            if (!strcmp(f->examples[k].id, id))
                return &r->envs[e].ex[k];
    }
    return NULL;
}

Test(demo_training, the_finding_holds, .timeout = 600)
{
    TL_ONCE_PER_CHECK();
    if (access(VENV_PY, X_OK))
        cr_skip_test("no %s (make deps builds the venv with torch 2 and transformers)", VENV_PY);
    char out[800], py[1200], cwd[512], dir[700], fx[800], cmd[4000];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    /* a copy beside links to the model and the text: a run records its
     * history beside the fixture, never in the source tree */
    snprintf(dir, sizeof dir, "%s/llm-train", tl_test_dir());
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && cp " FIXTURE " '%s/' && ln -s '%s/fixtures/llm-train/model' '%s/model' && "
             "ln -s '%s/fixtures/llm-train/corpus.txt' '%s/corpus.txt'",
             dir, dir, cwd, dir, cwd, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    snprintf(py, sizeof py, "%s/%s", cwd, VENV_PY);
    /* the first two runs (adamw-cosine, small-lr); fsdp-2 is
     * test_cmd_training's */
    cmd_result cr = tl_run((const char *[]){"parity", "run", fx, "-e", "reference", "-e", "cpu-bf16", "-e",
                                            "bf16-weights", "--max-examples", "2", "-q", "-o", out, "--python", py,
                                            NULL});
    cr_assert(access(out, R_OK) == 0, "run wrote no results: exit %d: %s", cr.status, cr.err);
    tl_free(&cr);

    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *r = results_load(out, f, &err);
    cr_assert_not_null(r, "%s", err.msg);
    double tol = f->train_cmp.loss.atol;
    cr_assert(tol > 0, "compare.train.loss.atol %g", tol);

    const char *envs[] = {"reference", "cpu-bf16", "bf16-weights"};
    const char *ids[] = {"adamw-cosine", "small-lr"};
    const px_example_result *x[3][2];
    for (int e = 0; e < 3; e++)
        for (int k = 0; k < 2; k++) {
            x[e][k] = run_of(r, f, envs[e], ids[k]);
            cr_assert_not_null(x[e][k], "%s %s", envs[e], ids[k]);
            cr_assert_eq(x[e][k]->status, PX_ST_OK, "%s %s did not run: %s", envs[e], ids[k],
                         x[e][k]->detail ? x[e][k]->detail : "");
            cr_assert_not_null(x[e][k]->train, "%s %s: no train record", envs[e], ids[k]);
            cr_assert_eq(x[e][k]->n_values, (size_t)(k ? 100 : 50), "%s %s: %zu steps", envs[e], ids[k],
                         x[e][k]->n_values);
        }

    /* the reference learns visibly from about ln 512 */
    const double *ref = x[0][0]->values;
    cr_expect(fabs(ref[0] - log(512.0)) < 0.1, "first loss %g, not about ln 512", ref[0]);
    cr_expect(tail_mean(ref, 50) < 5.5, "default recipe ends at %g", tail_mean(ref, 50));
    cr_expect(ref[0] - tail_mean(x[0][1]->values, 100) > 0.15, "small-lr learns %g",
              ref[0] - tail_mean(x[0][1]->values, 100));

    double max;
    /* the twin keeps to the reference in both */
    for (int k = 0; k < 2; k++) {
        long at = parts_at(x[1][k]->values, x[0][k]->values, x[0][k]->n_values, tol, &max);
        cr_expect_eq(at, -1, "twin parts on %s at step %ld (max %g)", ids[k], at, max);
    }
    /* bfloat16 weights keep to it on the default recipe ... */
    long at = parts_at(x[2][0]->values, x[0][0]->values, 50, tol, &max);
    cr_expect_eq(at, -1, "bf16-weights parts on adamw-cosine at step %ld (max %g)", at, max);
    /* ... and part on small-lr: not at once, for good, still learning */
    at = parts_at(x[2][1]->values, x[0][1]->values, 100, tol, &max);
    cr_expect(at >= 20 && at <= 70, "bf16-weights parts on small-lr at step %ld (measured 37)", at);
    cr_expect(fabs(x[2][1]->values[99] - x[0][1]->values[99]) > tol, "the curves came back together");
    cr_expect(max > 2 * tol, "at most %g apart (measured 0.121)", max);
    double drop_ref = x[0][1]->values[0] - tail_mean(x[0][1]->values, 100);
    double drop_bf = x[2][1]->values[0] - tail_mean(x[2][1]->values, 100);
    cr_expect(drop_bf > 0.25 * drop_ref && drop_bf < 0.75 * drop_ref,
              "bf16-weights drop %g against %g (measured half)", drop_bf, drop_ref);
    /* the cause shows from the first step: its updates smaller */
    double u_ref = x[0][1]->train->update_norm[0], u_bf = x[2][1]->train->update_norm[0];
    cr_expect(u_bf < 0.95 * u_ref, "first update %g against %g (measured 13%% smaller)", u_bf, u_ref);

    results_free(r);
    fixture_free(f);
}
