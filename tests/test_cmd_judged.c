/* What is judged against what, end to end through the built binary and real
 * libtorch, on results files made by real runs of the demo and then changed
 * the way a broken device changes them (every logit scaled by 1.5: the
 * labels stay, the numbers are far beyond the tolerance):
 *
 * - nothing is judged against what is not there: a candidate without a
 *   reference result is "not compared: no reference", its task checks still
 *   judged, it does not meet the contract, exit 3, no last good record;
 * - blame only from a valid twin: numeric-drift is precision's when the
 *   twin drifts alike, the device's when the twin stays within the
 *   tolerance, unknown (with why) when the twin's own ladder failed;
 * - one shard's file checked alone is partial, never a regression. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* A copy of the demo in a fresh directory (its history stays there), with
 * a third environment "tpu" (a candidate: cpu bfloat16, no role). */
static char *demo_copy(void)
{
    char *dir = tl_tmpdir(), cmd[1024], path[512];
    snprintf(cmd, sizeof cmd, "cp fixtures/campus-club/fixture.yaml fixtures/campus-club/model.pt "
                              "fixtures/campus-club/vocab.txt '%s/'",
             dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    char *text = tl_slurp(path), *at = strstr(text, "\nenvironments:\n");
    cr_assert_not_null(at);
    at += strlen("\nenvironments:\n");
    char *grown = NULL;
    cr_assert_geq(asprintf(&grown, "%.*s  tpu:\n    device: cpu\n    dtype: bfloat16\n    threads: 1\n%s",
                           (int)(at - text), text, at),
                  0);
    tl_write(path, grown);
    free(grown), free(text);
    return dir;
}

static void cleanup(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* `parity run fixture.yaml -e ENV -o OUT` in dir. */
static void run_env(const char *dir, const char *env, const char *out)
{
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "run", "fixture.yaml", "-q", "-e", env, "-o", out, NULL});
    cr_assert_eq(r.status, 0, "run -e %s: %s%s", env, r.out, r.err);
    tl_free(&r);
}

/* Every output value of a results file times 1.5 (the labels stay), and
 * the manifest's device replaced when device is given. */
static void doctor(const char *dir, const char *in, const char *out, const char *device)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && python3 -c 'import re,sys; s=open(sys.argv[1]).read();"
             "s=re.sub(r\"values: \\[([^\\]]*)\\]\", lambda m: \"values: [\"+\", \".join(repr(float(v)*1.5) "
             "for v in m.group(1).split(\",\"))+\"]\", s);"
             "s=s.replace(\"device: \\x22cpu\\x22\", \"device: \\x22\"+sys.argv[3]+\"\\x22\") if sys.argv[3] else s;"
             "open(sys.argv[2],\"w\").write(s)' '%s' '%s' '%s'",
             dir, in, out, device ? device : "");
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static int history_names(const char *dir, const char *env)
{
    char path[512], needle[128];
    snprintf(path, sizeof path, "%s/.fixture.yaml.parity-history.yaml", dir);
    snprintf(needle, sizeof needle, "name: \"%s\"", env);
    char *h = tl_slurp(path);
    int found = h && strstr(h, needle);
    free(h);
    return found;
}

Test(judged, nothing_is_judged_against_what_is_not_there, .timeout = 300)
{
    char *dir = demo_copy(), path[600];
    run_env(dir, "cpu-bf16", "bf16.yaml");
    doctor(dir, "bf16.yaml", "scaled.yaml", NULL);
    /* The scaled twin alone: its labels are right, its numbers are never
     * compared: not a pass, exit 3, not recorded as last good. */
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "scaled.yaml", "-e",
                                                    "cpu-bf16", NULL});
    cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "cpu-bf16 (twin) cpu bfloat16 from scaled.yaml: NOT JUDGED IN FULL"), "%s", r.out);
    cr_expect(strstr(r.out, "  not compared: no reference (the reference environment reference is not selected (-e))"),
              "%s", r.out);
    cr_expect(strstr(r.out, "contract satisfied [not reached]"), "%s", r.out);
    cr_expect(strstr(r.out, "film-night") == NULL || strstr(r.out, "pass: film; not compared: no reference"), "%s",
              r.out);
    cr_expect(strstr(r.out, "contract NOT met"), "%s", r.out);
    cr_expect_null(strstr(r.out, "contract met in every"), "%s", r.out);
    cr_expect_not(history_names(dir, "cpu-bf16"), "no last good configuration from an uncompared run");
    tl_free(&r);
    /* JSON and TAP say it too. */
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "scaled.yaml", "-e", "cpu-bf16",
                                        "--format", "json", NULL});
    cr_expect_eq(r.status, 3);
    snprintf(path, sizeof path, "%s/check.json", dir);
    tl_write(path, r.out);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
             "assert d[\"exit\"]==3 and d[\"met\"] is False;"
             "e={x[\"name\"]:x for x in d[\"environments\"]}[\"cpu-bf16\"];"
             "assert e[\"not_compared\"]==\"the reference environment reference is not selected (-e)\", e;"
             "assert e[\"incomplete\"] is True and e[\"met\"] is False;"
             "x={x[\"id\"]:x for x in e[\"examples\"]};"
             "assert x[\"film-night\"][\"compare\"] is None and x[\"film-night\"][\"cause\"] is None;"
             "assert x[\"film-night\"][\"not_compared\"] is True;"
             "assert x[\"film-night\"][\"detail\"].endswith(\"not compared: no reference\")"
             "' '%s'",
             path);
    cr_expect_eq(system(cmd), 0, "%s", r.out);
    tl_free(&r);
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "scaled.yaml", "-e", "cpu-bf16",
                                        "--format", "tap", NULL});
    cr_expect_eq(r.status, 3);
    cr_expect(strstr(r.out, "# cpu-bf16: not compared: no reference ("), "%s", r.out);
    cr_expect(strstr(r.out, "not ok 9 - cpu-bf16: contract - not compared: no reference"), "%s", r.out);
    tl_free(&r);
    /* Its task checks are still judged: a wrong label is still wrong
     * (film-night, the first example, made to say social). */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && python3 -c 'import re; s=open(\"scaled.yaml\").read();"
             "s=re.sub(r\"values: \\[[^\\]]*\\]\", \"values: [0.0, 0.0, 0.0, 0.0, 5.0]\", s, count=1);"
             "s=s.replace(\"label: \\x22film\\x22\", \"label: \\x22social\\x22\", 1);"
             "open(\"wrong.yaml\",\"w\").write(s)'",
             dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "wrong.yaml", "-e", "cpu-bf16",
                                        NULL});
    cr_expect_eq(r.status, 3, "still not compared: %s%s", r.out, r.err);
    cr_expect(strstr(r.out, "film-night           wrong-label: gave social, expected film"), "%s", r.out);
    cr_expect(strstr(r.out, "cpu-bf16 (twin) cpu bfloat16 from wrong.yaml: DOES NOT meet the contract"), "%s", r.out);
    tl_free(&r);
    /* With the reference present the same file is numeric-drift: exit 1. */
    run_env(dir, "reference", "ref.yaml");
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "ref.yaml", "--results",
                                        "scaled.yaml", "-e", "reference", "-e", "cpu-bf16", NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "film-night           numeric-drift: film;"), "%s", r.out);
    cr_expect_null(strstr(r.out, "not compared"), "%s", r.out);
    tl_free(&r);
    cleanup(dir);
}

/* numeric-drift's cause, from the twin: it drifts alike (precision), it
 * stays within the tolerance (device); and a twin whose own ladder failed
 * tells nothing (unknown, with why). */
Test(judged, blame_only_from_a_valid_twin, .timeout = 300)
{
    char *dir = demo_copy();
    run_env(dir, "reference", "ref.yaml");
    run_env(dir, "cpu-bf16", "bf16.yaml");
    run_env(dir, "tpu", "tpu.yaml");
    doctor(dir, "tpu.yaml", "tpu-scaled.yaml", NULL);
    doctor(dir, "bf16.yaml", "bf16-scaled.yaml", NULL);
    /* The twin within the tolerance: the device drifts. */
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "ref.yaml",
                                                    "--results", "bf16.yaml", "--results", "tpu-scaled.yaml", NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    const char *tpu = strstr(r.out, "\ntpu (candidate)");
    cr_assert_not_null(tpu, "%s", r.out);
    cr_expect(strstr(tpu, "film-night           numeric-drift: film;"), "%s", r.out);
    cr_expect(strstr(tpu, "cause: device (the twin stays within the tolerance)"), "%s", r.out);
    cr_expect_null(strstr(tpu, "cause: precision"), "%s", r.out);
    tl_free(&r);
    /* The twin drifts alike: precision. */
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "ref.yaml", "--results",
                                        "bf16-scaled.yaml", "--results", "tpu-scaled.yaml", NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    tpu = strstr(r.out, "\ntpu (candidate)");
    cr_assert_not_null(tpu, "%s", r.out);
    cr_expect(strstr(tpu, "cause: precision (the bfloat16 twin drifts alike, beyond the tolerance too)"), "%s", r.out);
    cr_expect_null(strstr(tpu, "cause: device"), "%s", r.out);
    tl_free(&r);
    /* A twin recorded on another device fails its own ladder: no blame. */
    doctor(dir, "bf16.yaml", "bf16-elsewhere.yaml", "privateuseone");
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "ref.yaml", "--results",
                                        "bf16-elsewhere.yaml", "--results", "tpu-scaled.yaml", NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "device recognised failed: recorded device privateuseone, but the environment is cpu"),
              "%s", r.out);
    tpu = strstr(r.out, "\ntpu (candidate)");
    cr_assert_not_null(tpu, "%s", r.out);
    cr_expect(strstr(tpu, "cause: unknown: the twin cpu-bf16 did not pass 'device recognised': recorded device "
                          "privateuseone, but the environment is cpu"),
              "%s", r.out);
    cr_expect_null(strstr(tpu, "cause: precision"), "%s", r.out);
    cr_expect_null(strstr(tpu, "cause: device"), "%s", r.out);
    tl_free(&r);
    /* The same in JSON: the cause and its words. */
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "ref.yaml", "--results",
                                        "bf16-elsewhere.yaml", "--results", "tpu-scaled.yaml", "--format", "json",
                                        NULL});
    cr_expect(strstr(r.out, "\"cause\":\"unknown\",\"cause_detail\":\"unknown: the twin cpu-bf16 did not pass"), "%s",
              r.out);
    tl_free(&r);
    cleanup(dir);
}

/* One shard's file checked alone: partial (exit 3), never a regression,
 * with or without --since-good, after the whole run was recorded good. */
Test(judged, one_shard_alone_is_partial_never_a_regression, .timeout = 300)
{
    char *dir = demo_copy();
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "-q", "-e", "reference", "-e",
                                                    "cpu-bf16", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(history_names(dir, "reference") && history_names(dir, "cpu-bf16"));
    tl_free(&r);
    r = tl_run_in(dir, (const char *[]){"parity", "run", "fixture.yaml", "-q", "-e", "reference", "-e", "cpu-bf16",
                                        "--shard", "0/2", "-o", "s0.yaml", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    for (int since = 0; since < 2; since++) {
        r = since ? tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--since-good", "--results",
                                                    "s0.yaml", "-e", "reference", "-e", "cpu-bf16", NULL})
                  : tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "s0.yaml", "-e",
                                                    "reference", "-e", "cpu-bf16", NULL});
        cr_expect_eq(r.status, 3, "%d: %s%s", since, r.out, r.err);
        cr_expect_null(strstr(r.out, "REGRESSION"), "%d: %s", since, r.out);
        cr_expect_null(strstr(r.out, "regressions since"), "%d: %s", since, r.out);
        cr_expect(strstr(r.out, "contract satisfied not reached: partial: "), "%d: %s", since, r.out);
        tl_free(&r);
    }
    /* The last good configurations stand. */
    cr_expect(history_names(dir, "reference") && history_names(dir, "cpu-bf16"));
    cleanup(dir);
}

/* A generator's candidate without its reference: same_as_reference is not
 * judged against nothing (it was "constraint-violated: the reference has
 * no generated text"); its own constraints still are (must_not_match). */
Test(judged, a_generator_without_its_reference_keeps_its_own_constraints, .timeout = 60)
{
    char *dir = tl_tmpdir(), cmd[1024];
    snprintf(cmd, sizeof cmd, "cp tests/data/gen/* '%s/'", dir);
    cr_assert_eq(system(cmd), 0);
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "results.yaml", "-e",
                                                    "cpu-bf16", NULL});
    cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "  not compared: no reference (the reference environment reference is not selected (-e))"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "same_as_reference"), "%s", r.out);
    cr_expect(strstr(r.out, "gig-price            constraint-violated: must_not_match"), "%s", r.out);
    cr_expect(strstr(r.out, "counts: 3 pass, 1 rejected-as-expected, 1 constraint-violated"), "%s", r.out);
    tl_free(&r);
    cleanup(dir);
}

/* The reports say it as check does: the twin alone is not judged in full,
 * each example "task checks hold; not compared: no reference". */
Test(judged, reports_say_not_compared, .timeout = 300)
{
    char *dir = demo_copy(), path[600];
    run_env(dir, "cpu-bf16", "bf16.yaml");
    const char *kinds[] = {"report.md", "report.html"};
    for (int i = 0; i < 2; i++) {
        cmd_result r = tl_run_in(dir, (const char *[]){"parity", "report", "fixture.yaml", "--results", "bf16.yaml",
                                                        "-e", "cpu-bf16", "-o", kinds[i], NULL});
        cr_expect_eq(r.status, 0, "%s: %s%s", kinds[i], r.out, r.err);
        tl_free(&r);
        snprintf(path, sizeof path, "%s/%s", dir, kinds[i]);
        char *text = tl_slurp(path);
        cr_assert_not_null(text, "%s", kinds[i]);
        cr_expect(strstr(text, "Not judged in full: 1 of 1 selected environments were not evaluated in full"), "%s",
                  text);
        cr_expect(strstr(text, "not judged in full: not compared: no reference (the reference environment reference "
                               "is not selected (-e))"),
                  "%s", text);
        cr_expect(strstr(text, "pass (task checks hold; not compared: no reference)"), "%s", text);
        cr_expect_null(strstr(text, "(meets the contract)"), "%s", text);
        free(text);
    }
    cleanup(dir);
}

/* bench of one environment without its reference: its figures are timed,
 * but the contract is not judged in full there (exit 3, never 0 nor 1). */
Test(judged, a_bench_without_its_reference_is_not_judged_in_full, .timeout = 300)
{
    char *dir = demo_copy();
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "bench", "fixture.yaml", "-q", "-e", "cpu-bf16", "--iters",
                                                    "1", "--warmup", "0", "-o", "b.yaml", NULL});
    cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "  contract       not judged in full in this run (not compared: no reference (the"), "%s",
              r.out);
    cr_expect(strstr(r.out, "not yet a result"), "%s", r.out);
    tl_free(&r);
    cleanup(dir);
}

/* The reference there, but not for every example (one shard's file beside
 * a whole run of the twin): the twin's other examples are not compared, so
 * it is not judged in full (exit 3) and not recorded as good. */
Test(judged, examples_the_reference_did_not_run_are_not_compared, .timeout = 300)
{
    char *dir = demo_copy();
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "run", "fixture.yaml", "-q", "-e", "reference", "--shard",
                                                    "0/2", "-o", "ref0.yaml", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    run_env(dir, "cpu-bf16", "bf16.yaml");
    r = tl_run_in(dir, (const char *[]){"parity", "check", "fixture.yaml", "--results", "ref0.yaml", "--results",
                                        "bf16.yaml", "-e", "reference", "-e", "cpu-bf16", NULL});
    cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
    const char *tw = strstr(r.out, "\ncpu-bf16 (twin)");
    cr_assert_not_null(tw, "%s", r.out);
    cr_expect(strstr(tw, ": NOT JUDGED IN FULL"), "%s", r.out);
    cr_expect(strstr(tw, "  not compared: no reference (the reference has no output for "), "%s", r.out);
    cr_expect(strstr(tw, "run in shard 1/2"), "%s", r.out);
    tl_free(&r);
    cr_expect_not(history_names(dir, "cpu-bf16"), "never good without every example compared");
    cleanup(dir);
}
