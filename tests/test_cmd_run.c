/* parity run end to end, through the built binary and real libtorch: the
 * demo in both environments, and every kind of bad input the command must
 * turn into one clear line and a documented exit code. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "yamlq.h"

#define DEMO "fixtures/campus-club/fixture.yaml"

/* The demo fixture's text with `from` replaced by `to` (or as is when from is
 * NULL), written into a fresh directory with the model and vocab paths made
 * absolute; returns the fixture path. */
static char *demo_variant(const char *from, const char *to)
{
    char *text = tl_slurp(DEMO), cwd[PATH_MAX];
    cr_assert_not_null(text);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    char *dir = tl_tmpdir();
    size_t cap = strlen(text) + 4 * PATH_MAX + (to ? strlen(to) : 0);
    char *out = malloc(cap);
    char abs_model[PATH_MAX + 64], abs_vocab[PATH_MAX + 64];
    snprintf(abs_model, sizeof abs_model, "path: %s/fixtures/campus-club/model.pt", cwd);
    snprintf(abs_vocab, sizeof abs_vocab, "vocab: %s/fixtures/campus-club/vocab.txt", cwd);
    const char *pairs[3][2] = {{"path: model.pt", abs_model}, {"vocab: vocab.txt", abs_vocab}, {from, to}};
    for (int i = 0; i < 3; i++) {
        if (!pairs[i][0])
            continue;
        char *at = strstr(text, pairs[i][0]);
        cr_assert_not_null(at, "test bug: '%s' not in the demo fixture", pairs[i][0]);
        snprintf(out, cap, "%.*s%s%s", (int)(at - text), text, pairs[i][1], at + strlen(pairs[i][0]));
        free(text);
        text = strdup(out);
    }
    char *path = malloc(strlen(dir) + 32);
    sprintf(path, "%s/fixture.yaml", dir);
    tl_write(path, text);
    free(text);
    free(out);
    free(dir);
    return path;
}

static char *results_path(const char *fixture)
{
    char *p = malloc(strlen(fixture) + 32);
    sprintf(p, "%s.results.yaml", fixture);
    return p;
}

static cmd_result run_fixture(const char *fixture, const char *out, const char *extra)
{
    return tl_run((const char *[]){"parity", "run", fixture, "-q", "-o", out, extra, NULL});
}

static void expect_usage_error(const char *from, const char *to, const char *needle)
{
    char *fx = demo_variant(from, to), *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_expect_eq(r.status, 2, "status %d, stderr: %s", r.status, r.err);
    cr_expect_eq(tl_lines(r.err), 1, "one line: %s", r.err);
    cr_expect(strstr(r.err, needle) != NULL, "stderr '%s' lacks '%s'", r.err, needle);
    cr_expect(access(out, F_OK) != 0, "no results file may be written");
    tl_free(&r);
    free(fx);
    free(out);
}

Test(run, demo_through_real_libtorch, .timeout = 300)
{
    char *dir = tl_tmpdir(), out[256];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = run_fixture(DEMO, out, NULL);
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "film-night") && strstr(r.out, "max|Δlogit| vs reference"), "%s", r.out);
    yq q;
    cr_assert_eq(yq_load(&q, out), 0, "results file must parse as YAML");
    /* The ordinary examples are classified as the reviewer said. */
    const char *normal[][2] = {{"film-night", "film"}, {"volleyball-tryouts", "sports"}};
    for (int i = 0; i < 2; i++) {
        yaml_node_t *e = yq_example(&q, "reference", normal[i][0]);
        cr_assert_not_null(e, "%s missing", normal[i][0]);
        cr_expect_str_eq(yq_str(yq_key(&q, e, "outcome")), "ok");
        cr_expect_str_eq(yq_str(yq_key(&q, e, "label")), normal[i][1], "%s", normal[i][0]);
    }
    /* Empty and over-limit texts are rejected, in every environment, with a reason. */
    const char *envs[] = {"reference", "cpu-bf16"}, *rejected[] = {"empty", "service-weekend"};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            yaml_node_t *e = yq_example(&q, envs[k], rejected[i]);
            cr_expect_str_eq(yq_str(yq_key(&q, e, "outcome")), "rejected", "%s/%s", envs[k], rejected[i]);
            cr_expect_null(yq_key(&q, e, "output"), "a rejected example never reaches the model");
        }
    const char *reason = yq_str(yq_key(&q, yq_example(&q, "reference", "service-weekend"), "detail"));
    cr_expect(reason && strstr(reason, "> max_tokens 128"), "%s", reason);
    /* bfloat16 logits differ from float32 ones somewhere, and dtypes are recorded. */
    int differ = 0, compared = 0;
    yaml_node_t *ex = yq_key(&q, yq_key(&q, yq_key(&q, yq_root(&q), "environments"), "reference"), "examples");
    for (size_t i = 0; i < yq_len(ex); i++) {
        const char *id = yq_str(yq_key(&q, yq_at(&q, ex, i), "id"));
        yaml_node_t *a = yq_key(&q, yq_example(&q, "reference", id), "output");
        yaml_node_t *b = yq_key(&q, yq_example(&q, "cpu-bf16", id), "output");
        if (!a || !b)
            continue;
        cr_expect_str_eq(yq_str(yq_key(&q, a, "dtype")), "float32");
        cr_expect_str_eq(yq_str(yq_key(&q, b, "dtype")), "bfloat16");
        yaml_node_t *va = yq_key(&q, a, "values"), *vb = yq_key(&q, b, "values");
        cr_assert_eq(yq_len(va), 5);
        cr_assert_eq(yq_len(vb), 5);
        compared++;
        for (size_t k = 0; k < 5; k++)
            differ += strtod(yq_str(yq_at(&q, va, k)), NULL) != strtod(yq_str(yq_at(&q, vb, k)), NULL);
    }
    cr_expect_geq(compared, 5);
    cr_expect_gt(differ, 0, "bfloat16 must not give float32's logits bit for bit");
    /* The manifest says what ran. */
    yaml_node_t *m = yq_key(&q, yq_key(&q, yq_key(&q, yq_root(&q), "environments"), "cpu-bf16"), "manifest");
    cr_expect_str_eq(yq_str(yq_key(&q, m, "dtype")), "bfloat16");
    cr_expect_str_eq(yq_str(yq_key(&q, m, "device")), "cpu");
    cr_expect_eq(strlen(yq_str(yq_key(&q, m, "model_sha256"))), 64);
    cr_expect(yq_str(yq_key(&q, m, "libtorch_version"))[0] != '\0');
    cr_expect(strtod(yq_str(yq_key(&q, m, "load_ms")), NULL) > 0);
    yq_free(&q);
    tl_free(&r);
    unlink(out), rmdir(dir);
    free(dir);
}

Test(run, unknown_device_and_dtype_fail_that_environment_only, .timeout = 300)
{
    char *fx = demo_variant("  cpu-bf16:\n",
                            "  tpu-typo:\n    device: tpuu\n  f8:\n    device: cpu\n    dtype: float8\n"
                            "  cpu-bf16:\n");
    char *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_expect_eq(r.status, 3, "status %d: %s", r.status, r.err);
    yq q;
    cr_assert_eq(yq_load(&q, out), 0, "the results of the other environments are written");
    yaml_node_t *envs = yq_key(&q, yq_root(&q), "environments");
    yaml_node_t *t = yq_key(&q, envs, "tpu-typo"), *f8 = yq_key(&q, envs, "f8");
    cr_expect_str_eq(yq_str(yq_key(&q, t, "state")), "down");
    cr_expect_str_eq(yq_str(yq_key(&q, yq_key(&q, t, "down"), "stage")), "device");
    cr_expect(strstr(yq_str(yq_key(&q, yq_key(&q, t, "down"), "message")), "unknown device 'tpuu'"));
    cr_expect_str_eq(yq_str(yq_key(&q, yq_key(&q, f8, "down"), "stage")), "device");
    cr_expect(strstr(yq_str(yq_key(&q, yq_key(&q, f8, "down"), "message")), "unknown dtype 'float8'"));
    cr_expect_str_eq(yq_str(yq_key(&q, yq_example(&q, "tpu-typo", "film-night"), "outcome")), "not-evaluated");
    cr_expect_str_eq(yq_str(yq_key(&q, yq_example(&q, "reference", "film-night"), "label")), "film");
    cr_expect_str_eq(yq_str(yq_key(&q, yq_example(&q, "cpu-bf16", "film-night"), "outcome")), "ok");
    yq_free(&q);
    tl_free(&r);
    free(fx);
    free(out);
}

Test(run, missing_or_unreadable_fixture)
{
    cmd_result r = tl_run((const char *[]){"parity", "run", "/nonexistent/fixture.yaml", "-q", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_eq(tl_lines(r.err), 1);
    cr_expect(strstr(r.err, "/nonexistent/fixture.yaml: cannot read fixture"), "%s", r.err);
    tl_free(&r);
}

Test(run, malformed_yaml_names_the_place)
{
    expect_usage_error("  labels: [film,", "  labels: [film,,", "fixture.yaml:");
    expect_usage_error("    max_tokens: 128", "    max_tokens: 128\n    maxtokens: 3", ":24:5: unknown key 'maxtokens'");
}

Test(run, model_missing_or_not_the_pinned_one)
{
    expect_usage_error("/model.pt", "/no-model.pt", "model file: cannot open");
    expect_usage_error("sha256: \"", "sha256: \"1", "sha256 must be 64 hex digits");
    char *fx = demo_variant(NULL, NULL);
    char *text = tl_slurp(fx);
    char *at = strstr(text, "sha256: \"") + 9; /* the model's pin comes first */
    *at = *at == '0' ? '1' : '0';
    tl_write(fx, text);
    char *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, ":11:13: model ") && strstr(r.err, "not the pinned"), "%s", r.err);
    cr_expect(access(out, F_OK) != 0);
    tl_free(&r);
    free(text), free(fx), free(out);
}

Test(run, model_not_pinned_is_refused)
{
    char *fx = demo_variant(NULL, NULL);
    char *text = tl_slurp(fx);
    char *at = strstr(text, "    sha256: \""), *eol = strchr(at, '\n');
    memmove(at, eol + 1, strlen(eol + 1) + 1); /* drop the model's pin line */
    tl_write(fx, text);
    char *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no sha256: pin the model revision"), "%s", r.err);
    tl_free(&r);
    free(text), free(fx), free(out);
}

Test(run, vocab_missing_or_changed)
{
    expect_usage_error("/vocab.txt", "/no-vocab.txt", "vocab file: cannot open");
    char *fx = demo_variant(NULL, NULL);
    char *text = tl_slurp(fx);
    char *at = strstr(strstr(text, "tokenizer:"), "sha256: \"") + 9;
    *at = *at == '0' ? '1' : '0';
    tl_write(fx, text);
    char *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, ": vocab ") && strstr(r.err, "not the pinned"), "%s", r.err);
    tl_free(&r);
    free(text), free(fx), free(out);
}

Test(run, label_count_must_match_the_model_width, .timeout = 300)
{
    expect_usage_error("labels: [film, volunteer, sports, music, social]", "labels: [film, volunteer, sports, music]",
                       "contract lists 4 labels but the model gives 5 outputs");
}

Test(run, bad_cleaning_rule_is_located)
{
    expect_usage_error("pattern: '\\s+'", "pattern: '(\\s+'", ":16:9: cleaning rule:");
}

Test(run, imported_environment_cannot_be_run_here)
{
    char *fx = demo_variant("  cpu-bf16:\n", "  tpu:\n    results: runs/tpu.yaml\n  cpu-bf16:\n");
    char *out = results_path(fx);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "-e", "tpu", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "environment 'tpu' is imported"), "%s", r.err);
    tl_free(&r);
    free(fx), free(out);
}

Test(run, missing_executor_is_exit_3)
{
    char *dir = tl_tmpdir(), out[256];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "-o", out, "--executor",
                                           "/nonexistent/parity-torch", NULL});
    cr_expect_eq(r.status, 3);
    /* Each environment is down, with the words, and the file says so. */
    cr_expect(strstr(r.out, "DOWN at load: /nonexistent/parity-torch: cannot run the executor"), "%s\n%s", r.out,
              r.err);
    tl_free(&r);
    cr_expect_eq(access(out, F_OK), 0);
    unlink(out), rmdir(dir);
    free(dir);
}

Test(run, non_utf8_example_text_is_located)
{
    expect_usage_error("text: Bouldering tonight", "text: Boulder\xe9ing tonight", ":65:18: byte 0xE9 is not UTF-8");
}

Test(run, backend_library_comes_from_the_command_line, .timeout = 300)
{
    char *dir = tl_tmpdir(), out[256];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    /* A library that cannot be loaded takes the environment down at "device". */
    cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "-o", out, "-e", "reference",
                                           "--backend-lib", "/nonexistent/libbackend.so", NULL});
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(strstr(r.out, "DOWN at device: backend library: /nonexistent/libbackend.so"), "%s", r.out);
    tl_free(&r);
    /* One that loads is loaded before the device opens, and the run goes on. */
    r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "-o", out, "-e", "reference", "--backend-lib",
                                "libm.so.6", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    unlink(out), rmdir(dir);
    free(dir);
}

Test(run, results_on_stdout_keep_the_table_on_stderr, .timeout = 300)
{
    cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "-e", "reference", "-o", "-", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "# parity results", 16) == 0, "stdout is the results file only");
    cr_expect(strstr(r.out, "max|Δlogit|") == NULL);
    cr_expect(strstr(r.err, "max|Δlogit|") != NULL, "%s", r.err);
    tl_free(&r);
}

/* What changes numerics is recorded in each manifest (manifest.env): the
 * built-in variables that are set (an empty one as ""), and those the
 * environment's record_env names (its own, not the other's); nothing else of
 * parity's environment. */
Test(run, manifest_records_the_variables_that_change_numerics, .timeout = 300)
{
    char *fx = demo_variant("    role: twin\n", "    role: twin\n    record_env: [MY_KERNEL_SWITCH, MY_UNSET]\n");
    char *out = results_path(fx);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("XLA_FLAGS", "", 1);
    setenv("TPU_TEST_TOPOLOGY", "2x2", 1);
    setenv("MY_KERNEL_SWITCH", "fast", 1);
    setenv("NOT_A_NUMERICS_VAR", "x", 1);
    unsetenv("MY_UNSET");
    cmd_result r = run_fixture(fx, out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    yq q;
    cr_assert_eq(yq_load(&q, out), 0);
    yaml_node_t *envs = yq_key(&q, yq_root(&q), "environments");
    yaml_node_t *twin = yq_key(&q, yq_key(&q, yq_key(&q, envs, "cpu-bf16"), "manifest"), "env");
    yaml_node_t *ref = yq_key(&q, yq_key(&q, yq_key(&q, envs, "reference"), "manifest"), "env");
    cr_assert_not_null(twin);
    cr_assert_not_null(ref);
    cr_expect_str_eq(yq_str(yq_key(&q, twin, "OMP_NUM_THREADS")), "1");
    cr_expect_str_eq(yq_str(yq_key(&q, twin, "XLA_FLAGS")), "", "set to empty");
    cr_expect_str_eq(yq_str(yq_key(&q, twin, "TPU_TEST_TOPOLOGY")), "2x2");
    cr_expect_str_eq(yq_str(yq_key(&q, twin, "MY_KERNEL_SWITCH")), "fast");
    cr_expect_null(yq_key(&q, twin, "MY_UNSET"), "not set: left out");
    cr_expect_null(yq_key(&q, twin, "NOT_A_NUMERICS_VAR"));
    cr_expect_str_eq(yq_str(yq_key(&q, ref, "OMP_NUM_THREADS")), "1");
    cr_expect_null(yq_key(&q, ref, "MY_KERNEL_SWITCH"), "record_env is the twin's");
    yq_free(&q);
    unlink(out);
    tl_unlink_fixture(fx);
    free(fx), free(out);
}

Test(run, record_env_names_are_checked_at_their_place)
{
    expect_usage_error("    role: twin\n", "    role: twin\n    record_env: [MY_VAR, \"MY VAR\"]\n",
                       "fixture.yaml:48:26: record_env: 'MY VAR' is not an environment variable's name");
    expect_usage_error("    role: twin\n", "    role: twin\n    record_env: [MY_VAR, MY_VAR]\n",
                       "fixture.yaml:48:26: record_env: 'MY_VAR' is listed twice");
    expect_usage_error("    role: twin\n", "    role: twin\n    record_env: MY_VAR\n",
                       "fixture.yaml:48:17: environment 'cpu-bf16'.record_env must be a list");
}

/* The demo's fixture on tests/models/segments.pt, whose forward takes
 * (input_ids, token_type_ids, attention_mask) and raises without
 * token_type_ids: with `inputs: [input_ids, attention_mask]` every forward
 * raises (issue 27: init's draft on such a model), and run must not call
 * that a success. */
Test(run, every_forward_raising_is_exit_3_with_the_first_reason, .timeout = 300)
{
    char cwd[PATH_MAX];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    char *fx = demo_variant("sha256: \"e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426\"",
                            "sha256: \"ecc2a71cd982b7dcc88f39e63a4cb951aaedac20445c1396fba1c8baa3441b4d\"");
    char *text = tl_slurp(fx), model[PATH_MAX + 64], seg[PATH_MAX + 64];
    snprintf(model, sizeof model, "path: %s/fixtures/campus-club/model.pt", cwd);
    snprintf(seg, sizeof seg, "path: %s/tests/models/segments.pt", cwd);
    char *t2 = tl_replace_all(text, model, seg);
    tl_write(fx, t2);
    char *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_expect_eq(r.status, 3, "status %d: %s", r.status, r.err);
    /* said per environment, with the first example's reason, the
     * traceback's last line */
    cr_expect(strstr(r.err, "parity: reference: every forward failed (") &&
                  strstr(r.err, "parity: cpu-bf16: every forward failed ("),
              "%s", r.err);
    cr_expect(strstr(r.err, "'film-night': exception: ") && strstr(r.err, "token_type_ids"), "%s", r.err);
    /* no "-1.0 ms" for a forward that never gave an output */
    cr_expect(strstr(r.out, "no forward gave an output") && !strstr(r.out, "-1.0 ms"), "%s", r.out);
    /* the evidence is written all the same */
    cr_expect_eq(access(out, F_OK), 0, "the results file is written");
    tl_free(&r);
    free(text), free(t2), free(fx), free(out);
}

/* With two candidates, run's last column says which figure is whose. */
Test(run, the_difference_column_names_each_candidate, .timeout = 300)
{
    char *fx = demo_variant("examples:\n", "  cpu-bf16-2t:\n    device: cpu\n    dtype: bfloat16\n    threads: 2\n"
                                          "    role: candidate\n\nexamples:\n");
    char *out = results_path(fx);
    cmd_result r = run_fixture(fx, out, NULL);
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "max|Δlogit| vs reference: cpu-bf16, cpu-bf16-2t\n"), "%s", r.out);
    /* each row holds two figures, in that order */
    const char *row = strstr(r.out, "\nfilm-night ");
    cr_assert_not_null(row, "%s", r.out);
    const char *eol = strchr(row + 1, '\n');
    int commas = 0;
    for (const char *c = row; c < eol; c++)
        commas += *c == ',';
    cr_expect_eq(commas, 1, "%.*s", (int)(eol - row), row);
    tl_free(&r);
    free(fx), free(out);
}
