/* parity bench end to end, through the built binary and real libtorch: the
 * figures per endpoint and what they time, the results file that carries
 * them (and reads back), the outputs judged against the contract (a model
 * that ignores its attention mask changes its answers when stacked: found by
 * bench, never by check), the performance rung, the report, the stopping
 * conditions, and bad options. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"
#define UNMASKED "tests/data/unmasked.yaml"

static char *out_path(const char *name)
{
    char *dir = tl_tmpdir(), *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    free(dir);
    return p;
}

static px_results *load(const char *fixture, const char *results, px_fixture **f)
{
    px_error err = {0};
    *f = fixture_load(fixture, &err);
    cr_assert_not_null(*f, "%s", err.msg);
    px_results *r = results_load(results, *f, &err);
    cr_assert_not_null(r, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return r;
}

Test(bench, demo_single_and_batch_are_timed_and_judged, .timeout = 300)
{
    char *out = out_path("bench.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "bench", DEMO, "--endpoint", "single", "--endpoint", "batch:4",
                                           "--warmup", "1", "--iters", "3", "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    /* What every figure times is said, in words. */
    cr_expect(strstr(r.out, "cleaning and tokenising are outside them"), "%s", r.out);
    cr_expect(strstr(r.out, "first forward") && strstr(r.out, "lazy compilation"), "%s", r.out);
    cr_expect(strstr(r.out, "model load"), "%s", r.out);
    cr_expect(!strstr(r.out, "NOT COMPARABLE") && !strstr(r.out, "BROKE"), "%s", r.out);
    px_fixture *f;
    px_results *res = load(DEMO, out, &f);
    for (size_t i = 0; i < res->n_envs; i++) {
        const px_env_result *e = &res->envs[i];
        cr_assert_eq(e->n_bench, 2, "%s", e->name);
        size_t ran = 0;
        for (size_t k = 0; k < res->n_examples; k++)
            ran += e->ex[k].status == PX_ST_OK;
        const px_bench *single = &e->bench[0], *batch = &e->bench[1];
        cr_expect_eq(single->batch, 1);
        cr_expect_eq(batch->batch, 4);
        /* 3 timed passes; every shape was seen in the warm-up pass or
         * the run, so none is timed apart among them. */
        cr_expect_eq(single->passes, 3);
        cr_expect_eq(single->examples, ran);
        cr_expect_eq(single->forwards, 3 * ran, "%zu forwards for %zu examples", single->forwards, ran);
        cr_expect_eq(batch->forwards, 3 * ((ran + 3) / 4), "%zu", batch->forwards);
        cr_expect_gt(batch->new_shapes, 0, "a stack is a shape the run never had");
        for (size_t b = 0; b < 2; b++) {
            const px_bench *x = &e->bench[b];
            cr_expect(x->min_ms > 0 && x->min_ms <= x->p50_ms && x->p50_ms <= x->p90_ms && x->p90_ms <= x->p99_ms &&
                      x->p99_ms <= x->max_ms);
            cr_expect(x->roundtrip_p50_ms >= x->min_ms, "a round trip holds the forward");
            cr_expect_gt(x->per_s, 0);
            cr_expect_null(x->stopped, "%s", x->stopped);
            /* The output of every example that ran is kept, to be judged. */
            for (size_t k = 0; k < res->n_examples; k++)
                cr_expect_eq(x->out[k] != NULL, e->ex[k].status == PX_ST_OK, "%s %zu", e->name, k);
        }
    }
    results_free(res), fixture_free(f);
    /* check reads the figures from the file: the performance rung is
     * measured, and the contract's verdict is the same as without them. */
    cmd_result c = tl_run((const char *[]){"parity", "check", DEMO, "--results", out, "-f", "json", NULL});
    cr_expect_eq(c.status, 0, "%s", c.err);
    cr_expect(strstr(c.out, "\"rung\":\"performance\",\"state\":\"passed\",\"detail\":\"measured: single p50 "),
              "%s", c.out);
    /* The report puts the environments' figures side by side. */
    cmd_result m = tl_run((const char *[]){"parity", "report", DEMO, "--results", out, NULL});
    cr_expect_eq(m.status, 0, "%s", m.err);
    cr_expect(strstr(m.out, "## Performance") && strstr(m.out, "- reference, single (1 example a forward)") &&
                  strstr(m.out, "- cpu-bf16, batch:4 (4 examples a forward)"),
              "%s", m.out);
    tl_free(&r), tl_free(&c), tl_free(&m);
    free(out);
}

/* unmasked.pt pools over padding: stacked, the short example's answer
 * changes. The run (one example a forward) meets the contract, so check does
 * too; bench says the batch's outputs broke the contract and that batching
 * changed the numbers, and its figures are not comparable. */
Test(bench, batching_that_changes_the_answers_is_a_finding, .timeout = 300)
{
    char *out = out_path("bench.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "bench", UNMASKED, "--endpoint", "single", "--endpoint",
                                           "batch:2", "--warmup", "0", "--iters", "2", "-o", out, NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "batch:2        OUTPUTS BROKE THE CONTRACT: short (wrong-label, not pass as in the run)"),
              "%s", r.out);
    cr_expect(strstr(r.out, "batching changed the numbers") && strstr(r.out, "short (decides sports, not film)"), "%s",
              r.out);
    cr_expect(strstr(r.out, "performance    not-measured: figures not comparable"), "%s", r.out);
    /* The single endpoint's outputs are the run's: not a finding. */
    cr_expect(!strstr(r.out, "single         OUTPUTS"), "%s", r.out);
    cmd_result c = tl_run((const char *[]){"parity", "check", UNMASKED, "--results", out, "-f", "json", NULL});
    cr_expect_eq(c.status, 0, "the contract is met one example a forward: %s%s", c.out, c.err);
    cr_expect(strstr(c.out, "\"state\":\"not-measured\",\"detail\":\"figures not comparable: batch:2 outputs broke "
                            "the contract: short"),
              "%s", c.out);
    tl_free(&r), tl_free(&c);
    free(out);
}

/* A results file that says the benchmark's outputs were another than the
 * run's is judged as strictly as a run: the outputs kept in it decide, not
 * what the machine that wrote it concluded. */
Test(bench, outputs_recorded_in_a_file_are_judged_again, .timeout = 300)
{
    char *out = out_path("bench.yaml"), *bad = out_path("changed.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "bench", DEMO, "-e", "reference", "--iters", "1", "--warmup",
                                           "0", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    char *text = tl_slurp(out), *at = strstr(text, "        outputs:\n          \"film-night\": [");
    cr_assert_not_null(at, "%s", text);
    at += strlen("        outputs:\n          \"film-night\": [");
    /* film-night's film logit, far below the others: another label. */
    char *comma = strchr(at, ',');
    char *edited = malloc(strlen(text) + 16);
    sprintf(edited, "%.*s-50%s", (int)(at - text), text, comma);
    tl_write(bad, edited);
    cmd_result c = tl_run((const char *[]){"parity", "check", DEMO, "-e", "reference", "--results", bad, "-f", "json",
                                           NULL});
    cr_expect_eq(c.status, 0, "the contract's verdict does not change: %s", c.err);
    cr_expect(strstr(c.out, "figures not comparable: single outputs broke the contract: film-night"), "%s", c.out);
    free(text), free(edited);
    tl_free(&r), tl_free(&c);
    free(out), free(bad);
}

Test(bench, budget_and_limit_stop_it_like_a_run, .timeout = 300)
{
    char *out = out_path("bench.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "bench", DEMO, "-e", "reference", "--max-examples", "2",
                                           "--iters", "2", "-o", out, NULL});
    cr_expect_eq(r.status, 5, "%s%s", r.out, r.err);
    px_fixture *f;
    px_results *res = load(DEMO, out, &f);
    cr_expect_eq(res->envs[0].n_bench, 1);
    cr_expect_leq(res->envs[0].bench[0].examples, 2, "only what ran is timed");
    results_free(res), fixture_free(f);
    /* A budget that runs out in the middle of timing: the endpoint says it
     * stopped, its outputs so far are still judged, exit 5. */
    cmd_result b = tl_run((const char *[]){"parity", "bench", DEMO, "-e", "reference", "--min-time", "1h", "--budget",
                                           "3s", "-o", out, NULL});
    cr_expect_eq(b.status, 5, "%s%s", b.out, b.err);
    res = load(DEMO, out, &f);
    cr_expect_str_eq(res->envs[0].bench[0].stopped, "budget (3 s) ran out");
    cr_expect_gt(res->envs[0].bench[0].forwards, 0);
    cr_expect(strstr(b.out, "stopped early: budget (3 s) ran out"), "%s", b.out);
    results_free(res), fixture_free(f);
    tl_free(&r), tl_free(&b);
    free(out);
}

Test(bench, options_must_make_sense)
{
    const char *bad[][2] = {{"--endpoint", "batch:1"}, {"--endpoint", "batch:"},  {"--endpoint", "batch:x"},
                            {"--endpoint", "double"},  {"--endpoint", "batch:-2"}, {"--iters", "0"},
                            {"--warmup", "-1"},        {"--min-time", "0s"},       {"--min-time", "soon"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cmd_result r = tl_run((const char *[]){"parity", "bench", DEMO, bad[i][0], bad[i][1], NULL});
        cr_expect_eq(r.status, 2, "%s %s: %s", bad[i][0], bad[i][1], r.err);
        cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
        cr_expect(strstr(r.err, bad[i][0]), "%s", r.err);
        tl_free(&r);
    }
    /* Options of bench are not run's. */
    cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "--endpoint", "single", NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    tl_free(&r);
}
