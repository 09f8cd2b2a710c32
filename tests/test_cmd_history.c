/* parity check and the last good configuration, end to end with real
 * libtorch on copies of the demo: check records each environment that met
 * the contract; a later check lists exactly what changed since; --since-good
 * fails only for an environment that met the contract before and does not
 * now; a history that cannot be written never changes the verdict. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/history.h"
#include "testlib.h"

static void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A copy of the demo in a fresh directory; its fixture's path. */
static char *demo_copy(char *fixture, size_t size)
{
    char *dir = tl_tmpdir();
    sh("cp fixtures/campus-club/fixture.yaml fixtures/campus-club/model.pt fixtures/campus-club/vocab.txt '%s'%s", dir,
       "");
    snprintf(fixture, size, "%s/fixture.yaml", dir);
    return dir;
}

/* Replace the first `from` in the file with `to`. */
static void edit(const char *path, const char *from, const char *to)
{
    char *text = tl_slurp(path), *at = text ? strstr(text, from) : NULL;
    cr_assert_not_null(at, "%s lacks '%s'", path, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    tl_write(path, out);
    free(text), free(out);
}

static void history_of(const char *fixture, px_history *h)
{
    char path[1024];
    px_error err = {0};
    history_path(fixture, path, sizeof path);
    cr_assert_eq(history_load(path, h, &err), 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

/* Lines of s that contain sub. */
static int count(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, sub)); p += strlen(sub))
        n++;
    return n;
}

/* The tolerance the twin's bfloat16 cannot meet. */
#define TIGHT "rtol: 0.0000001\n      atol: 0.000001"
#define LOOSE "rtol: 0.016\n      atol: 0.05"

Test(history, check_records_then_lists_exactly_what_changed, .timeout = 300)
{
    char fx[512], path[1024];
    char *dir = demo_copy(fx, sizeof fx);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_eq(count(r.out, "last good"), 0, "nothing to compare yet: %s", r.out);
    cr_expect_str_eq(r.err, "");
    tl_free(&r);
    px_history h;
    history_of(fx, &h);
    cr_assert_eq(h.n, 2);
    cr_expect_str_eq(history_find(&h, "cpu-bf16")->config.v[PX_CF_DTYPE], "bfloat16");
    cr_expect_str_eq(history_find(&h, "reference")->config.v[PX_CF_THREADS], "1");
    cr_expect_null(history_find(&h, "reference")->results, "run here");
    history_free(&h);

    /* The same again: met as before, nothing said. */
    r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect_eq(count(r.out, "last good"), 0, "%s", r.out);
    tl_free(&r);

    /* The twin in float32, the reference on two threads: exactly that. */
    edit(fx, "dtype: bfloat16", "dtype: float32");
    edit(fx, "threads: 1", "threads: 2");
    r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_eq(count(r.out, "differs from the last good configuration"), 2, "%s", r.out);
    cr_expect_eq(count(r.out, " → "), 2, "exactly two changes: %s", r.out);
    char *ref = strstr(r.out, "\nreference "), *twin = strstr(r.out, "\ncpu-bf16 ");
    cr_assert(ref && twin && ref < twin, "%s", r.out);
    char *threads = strstr(r.out, "\n    threads: 1 → 2\n"), *dtype = strstr(r.out, "\n    dtype: bfloat16 → float32\n");
    cr_expect(threads && threads > ref && threads < twin, "the reference's threads: %s", r.out);
    cr_expect(dtype && dtype > twin, "the twin's dtype: %s", r.out);
    tl_free(&r);

    /* JSON says the same (the history now holds the float32 twin: back
     * to bfloat16 is the change). */
    edit(fx, "dtype: float32\n    threads: 1\n    role: twin", "dtype: bfloat16\n    threads: 1\n    role: twin");
    snprintf(path, sizeof path, "%s/check.json", dir);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--format", "json", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_write(path, r.out);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
             "e={x[\"name\"]:x for x in d[\"environments\"]};"
             "t=e[\"cpu-bf16\"][\"last_good\"]; f=e[\"reference\"][\"last_good\"];"
             "assert t[\"same\"] is False and t[\"regressed\"] is False, t;"
             "assert t[\"changes\"]==[{\"field\":\"dtype\",\"name\":\"dtype\",\"last\":\"float32\",\"now\":\"bfloat16\"}], t;"
             "assert t[\"configuration\"][\"dtype\"]==\"float32\" and t[\"configuration\"][\"libtorch_version\"];"
             "assert f[\"same\"] is True and f[\"changes\"]==[] and f[\"results\"] is None, f;"
             "' %s",
             path);
    cr_expect_eq(system(cmd), 0, "JSON: %s", r.out);
    tl_free(&r);
    /* TAP: a diagnostic line, the plan as before. */
    edit(fx, "threads: 2", "threads: 3");
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--format", "tap", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\n# reference: changed since the last good configuration: threads: 2 → 3\n"), "%s", r.out);
    cr_expect(!strncmp(r.out, "TAP version 13\n1..18\n", 21), "%s", r.out);
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

Test(history, since_good_fails_only_for_a_regression, .timeout = 300)
{
    char fx[512];
    char *dir = demo_copy(fx, sizeof fx);
    /* Never good: the twin fails a tight tolerance from the start. Without
     * the option that fails the check; with it, nothing regressed. */
    edit(fx, LOOSE, TIGHT);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.out, "last good: none recorded (it has not met the contract here before)"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--since-good", NULL});
    cr_expect_eq(r.status, 0, "only a never-good environment fails: %s%s", r.out, r.err);
    cr_expect(strstr(r.out, "contract NOT met"), "the verdict is still said: %s", r.out);
    cr_expect_null(strstr(r.out, "REGRESSION"), "%s", r.out);
    tl_free(&r);
    px_history h;
    history_of(fx, &h);
    cr_expect_eq(h.n, 1, "only the reference met the contract");
    cr_expect_null(history_find(&h, "cpu-bf16"));
    history_free(&h);

    /* Good once (the demo's tolerance), then tightened: a regression. */
    edit(fx, TIGHT, LOOSE);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--since-good", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    history_of(fx, &h);
    char started[64];
    snprintf(started, sizeof started, "%s", history_find(&h, "cpu-bf16")->started_at);
    history_free(&h);
    edit(fx, LOOSE, TIGHT);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--since-good", NULL});
    cr_expect_eq(r.status, 1, "the twin met the contract before: %s%s", r.out, r.err);
    cr_expect(strstr(r.out, "  REGRESSION: it met the contract before ("), "%s", r.out);
    cr_expect(strstr(r.out, "  the configuration is the same as the last good one\n"), "%s", r.out);
    cr_expect(strstr(r.out, "\nregressions since the last good configuration: cpu-bf16\n"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--since-good", "--format", "json", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, "\"exit\":1,"), "%s", r.out);
    cr_expect(strstr(r.out, "\"regressed\":true"), "%s", r.out);
    tl_free(&r);
    /* A result that does not meet the contract never overwrites the last
     * good. */
    history_of(fx, &h);
    cr_expect_str_eq(history_find(&h, "cpu-bf16")->started_at, started);
    history_free(&h);
    /* -e the reference alone: the twin is not judged, so not counted. */
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--since-good", "-e", "reference", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

/* A results file from another machine counts as a run here does, and says
 * where the last good came from. */
Test(history, a_results_file_counts_and_is_named, .timeout = 120)
{
    char fx[512], res[1024];
    char *dir = demo_copy(fx, sizeof fx);
    snprintf(res, sizeof res, "%s/campus-results.yaml", dir);
    sh("cp tests/data/campus-results.yaml '%s'%s", res, "");
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "--results", res, "--executor", "/nonexistent", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    px_history h;
    history_of(fx, &h);
    cr_assert_eq(h.n, 2);
    const px_history_entry *e = history_find(&h, "reference");
    cr_expect_str_eq(e->results, res);
    cr_expect_str_eq(e->host, "vm");
    cr_expect_str_eq(e->started_at, "2026-12-02T14:34:04Z");
    cr_expect_str_eq(e->config.v[PX_CF_TORCH], "1.13.0");
    history_free(&h);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

Test(history, a_bad_history_is_refused_and_an_unwritable_one_keeps_the_verdict, .timeout = 300)
{
    char fx[512], path[1024];
    char *dir = demo_copy(fx, sizeof fx);
    history_path(fx, path, sizeof path);
    tl_write(path, "parity_history: 1\nenvironments:\n  - name: \"reference\"\n    configuration: {dtype: 32bit, gpu: 1}\n");
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, ".fixture.yaml.parity-history.yaml:4:35: unknown key 'gpu' in configuration"), "%s", r.err);
    cr_expect_str_eq(r.out, "", "refused before anything runs");
    tl_free(&r);
    /* Written through a link into a directory that does not exist: the
     * write fails, the check says so in one line and keeps its verdict. */
    unlink(path);
    cr_assert_eq(symlink("no-such-dir/history.yaml", path), 0);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, "parity: warning: ") &&
                  strstr(r.err, "(the last good configuration is not recorded; the verdict stands)"),
              "%s", r.err);
    cr_expect(strstr(r.out, "contract met in every selected environment"), "%s", r.out);
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

/* An environment that met the contract before and cannot run now (its
 * device is gone) is a regression too: --since-good exits 1 for it, where a
 * plain check says 3 (an environment could not run). */
Test(history, since_good_counts_a_good_environment_now_down, .timeout = 300)
{
    char fixture[1024];
    char *dir = demo_copy(fixture, sizeof fixture);
    cmd_result r = tl_run((const char *[]){"parity", "check", fixture, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    edit(fixture, "  cpu-bf16:\n    device: cpu\n", "  cpu-bf16:\n    device: tpu9\n");
    r = tl_run((const char *[]){"parity", "check", fixture, NULL});
    cr_expect_eq(r.status, 3, "without --since-good, a down environment is exit 3: %s%s", r.out, r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fixture, "--since-good", NULL});
    cr_expect_eq(r.status, 1, "it met the contract before: a regression: %s%s", r.out, r.err);
    cr_expect(strstr(r.out, "REGRESSION"), "%s", r.out);
    tl_free(&r);
    px_history h = {0};
    history_of(fixture, &h);
    cr_expect_eq(h.n, 2, "the down run overwrote nothing");
    history_free(&h);
    free(dir);
}

/* What is handed to someone who was not there says it too: report (md and
 * html) and so export's bundle list each environment against its last good
 * configuration, from the history check kept; an unreadable history is a
 * warning there, never a failed report. */
Test(history, the_report_tells_what_changed_since_the_last_good, .timeout = 120)
{
    char fx[512], res[1024], moved[1024], path[1024];
    char *dir = demo_copy(fx, sizeof fx);
    snprintf(res, sizeof res, "%s/campus-results.yaml", dir);
    snprintf(moved, sizeof moved, "%s/four-threads.yaml", dir);
    sh("cp tests/data/campus-results.yaml '%s'%s", res, "");
    const char *report[] = {"parity", "report", fx, "--results", moved, "--executor", "/nonexistent", NULL};
    sh("sed '0,/threads: 1/s//threads: 4/' tests/data/campus-results.yaml > '%s'%s", moved, "");
    /* No history yet: no section. */
    cmd_result r = tl_run(report);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_null(strstr(r.out, "last good"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--results", res, "--executor", "/nonexistent", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);

    r = tl_run(report);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "## Since the last good configuration\n\n"), "%s", r.out);
    cr_expect(strstr(r.out, "- **reference**: differs from the last good configuration (2026-12-02T14:34:04Z on vm, "
                            "from "),
              "%s", r.out);
    cr_expect(strstr(r.out, "\n  - threads: 1 → 4\n"), "%s", r.out);
    cr_expect(strstr(r.out, "- **cpu-bf16**: last good: the same configuration (2026-12-02T14:34:04Z on vm"), "%s",
              r.out);
    char *sec = strstr(r.out, "## Since the last good"), *end = sec ? strstr(sec, "\n## ") : NULL;
    cr_assert(sec && end, "%s", r.out);
    *end = 0;
    cr_expect_eq(count(sec, " → "), 1, "exactly one change: %s", sec);
    tl_free(&r);
    const char *html[] = {"parity", "report", fx, "--results", moved, "--executor", "/nonexistent", "-f", "html", NULL};
    r = tl_run(html);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "<h2 id=\"last-good\">Since the last good configuration</h2>"), "%s", r.out);
    cr_expect(strstr(r.out, "<li>threads: 1 → 4</li>"), "%s", r.out);
    tl_free(&r);

    /* A history that does not read: the report says why and goes on. */
    history_path(fx, path, sizeof path);
    tl_write(path, "parity_history: 1\nenvironments: {}\n");
    r = tl_run(report);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "the last good configurations are not shown: ") &&
                  strstr(r.out, "parity-history.yaml:2:15: "),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "## Since the last good"), "%s", r.out);
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

/* What changes numerics without changing the fixture (an environment
 * variable: XLA_FLAGS, OMP_NUM_THREADS, a device's own switch) is part of
 * the configuration: a check after it changed says which variable, by name,
 * never "the same as the last good one". */
Test(history, a_changed_environment_variable_is_named, .timeout = 300)
{
    char fx[512];
    char *dir = demo_copy(fx, sizeof fx);
    edit(fx, "    role: twin\n", "    role: twin\n    record_env: [MY_KERNEL_SWITCH]\n");
    setenv("OMP_NUM_THREADS", "1", 1);
    unsetenv("XLA_FLAGS");
    unsetenv("MY_KERNEL_SWITCH");
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    px_history h;
    history_of(fx, &h);
    const px_history_entry *e = history_find(&h, "cpu-bf16");
    cr_assert_not_null(e);
    cr_expect_eq(e->config.env.recorded, 1);
    cr_expect_str_eq(envrec_get(&e->config.env, "OMP_NUM_THREADS"), "1");
    cr_expect_null(envrec_get(&e->config.env, "MY_KERNEL_SWITCH"), "not set");
    history_free(&h);
    char path[1024];
    history_path(fx, path, sizeof path);
    char *text = tl_slurp(path);
    cr_expect(strstr(text, "      env:\n        \"OMP_NUM_THREADS\": \"1\"\n"), "the history carries them: %s", text);
    free(text);

    /* Only the variables changed: each named, with both values; an empty
     * value is set (''), not the same as not set. */
    setenv("OMP_NUM_THREADS", "2", 1);
    setenv("XLA_FLAGS", "", 1);
    setenv("MY_KERNEL_SWITCH", "fast", 1);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_eq(count(r.out, "differs from the last good configuration"), 2, "%s", r.out);
    char *twin = strstr(r.out, "\ncpu-bf16 ");
    cr_assert_not_null(twin, "%s", r.out);
    cr_expect(strstr(twin, "\n    MY_KERNEL_SWITCH: not set → 'fast'; OMP_NUM_THREADS: '1' → '2'; XLA_FLAGS: not set "
                           "→ ''\n"),
              "the twin's, with its own record_env: %s", r.out);
    cr_expect(strstr(r.out, "\n    OMP_NUM_THREADS: '1' → '2'; XLA_FLAGS: not set → ''\n"),
              "the reference's, without the twin's record_env: %s", r.out);
    tl_free(&r);

    /* The case: the numerics changed and the contract is not met
     * any more; the regression says what changed, not "the same". */
    edit(fx, LOOSE, TIGHT);
    setenv("OMP_NUM_THREADS", "3", 1);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--since-good", NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "  REGRESSION: it met the contract before ("), "%s", r.out);
    cr_expect(strstr(r.out, "  changed since the last good configuration:\n    OMP_NUM_THREADS: '2' → '3'\n"), "%s",
              r.out);
    cr_expect_null(strstr(r.out, "the configuration is the same as the last good one"), "%s", r.out);
    tl_free(&r);
    /* JSON: the change is the field env, the variables as their text. */
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--format", "json", NULL});
    cr_expect(strstr(r.out, "{\"field\":\"env\",\"name\":\"environment variables\",\"last\":\"MY_KERNEL_SWITCH='fast' "
                            "OMP_NUM_THREADS='2' XLA_FLAGS=''\",\"now\":\"MY_KERNEL_SWITCH='fast' OMP_NUM_THREADS='3' "
                            "XLA_FLAGS=''\"}"),
              "%s", r.out);
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}
