/* Redaction end to end: secrets planted where a real run meets them (an
 * exception a model raises, an environment variable a failing backend
 * module echoes, a note in the fixture) never reach the results file that
 * `parity run` writes; the home directory shows as ~; the fixture's own
 * `redact:` pattern applies too. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define HOME_PLANTED "/home/parity-planted"

static char repo[PATH_MAX];

/* A fixture for tests/models/leaks.pt in a fresh directory: a reference
 * on libtorch and, when python is set, a Python-executor environment. */
static char *leaky_fixture(const char *dir, int python)
{
    if (!repo[0])
        cr_assert_not_null(getcwd(repo, sizeof repo));
    char text[16384], *path = malloc(strlen(dir) + 32);
    snprintf(text, sizeof text,
             "parity: 1\n"
             "contract:\n"
             "  task: classify an event, while the model leaks what it should not\n"
             "  model: {path: %s/tests/models/leaks.pt, sha256: "
             "\"73379090b1873d8e71cbebf9aff931684e18ac548e992c7cf1cd20c65bea433e\"}\n"
             "  input:\n"
             "    tokenizer: {kind: wordpiece, vocab: %s/fixtures/campus-club/vocab.txt, sha256: "
             "\"35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318\"}\n"
             "  labels: [film, volunteer, sports, music, social]\n"
             "environments:\n"
             "  reference: {device: cpu, threads: 1, note: \"pulled with token=abcd1234efgh5678ijkl from the "
             "internal.example.org mirror\"}\n"
             "%s"
             "examples:\n"
             "  - {id: long, kind: long, text: a film night in the union cinema on friday, expect: {label: film}, "
             "why: long enough to make the model raise}\n"
             "redact:\n"
             "  - {pattern: 'internal\\.example\\.org', why: our mirror's name stays here}\n",
             repo, repo,
             python ? "  py: {executor: python, device: cpu, threads: 1}\n" : "");
    sprintf(path, "%s/fixture.yaml", dir);
    tl_write(path, text);
    return path;
}

static void absent(const char *text, const char *secret)
{
    cr_expect_null(strstr(text, secret), "'%s' leaked into:\n%s", secret, text);
}

Test(redact_cmd, a_models_exception_and_a_note_reach_the_results_file_redacted, .timeout = 120)
{
    char *dir = tl_tmpdir(), *fx = leaky_fixture(dir, 0), out[512];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    setenv("HOME", HOME_PLANTED, 1);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, NULL});
    /* its only forward raised: exit 3, said on stderr, redacted there too */
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(strstr(r.err, "every forward failed"), "%s", r.err);
    absent(r.err, "sk-planted0123456789");
    absent(r.err, "abcd1234efgh5678ijkl");
    absent(r.err, HOME_PLANTED);
    tl_free(&r);
    char *res = tl_slurp(out);
    cr_assert_not_null(res);
    cr_expect_not_null(strstr(res, "outcome: \"exception\"") ? res : strstr(res, "outcome: exception"),
                       "the model raised: %s", res);
    absent(res, "hunter2hunter2");
    absent(res, "sk-planted0123456789");
    absent(res, "abcd1234efgh5678ijkl");
    absent(res, "internal.example.org");
    absent(res, HOME_PLANTED);
    cr_expect_not_null(strstr(res, "https://[redacted]@models.example.org/w.bin"), "%s", res);
    cr_expect_not_null(strstr(res, "api_key=[redacted]"), "%s", res);
    cr_expect_not_null(strstr(res, "cache ~/.cache/w.bin"), "the home directory as ~: %s", res);
    cr_expect_not_null(strstr(res, "token=[redacted] from the [redacted] mirror"), "%s", res);
    free(res), free(fx), free(dir);
}

Test(redact_cmd, a_backend_module_echoing_its_environment_is_redacted, .timeout = 120)
{
    char *dir = tl_tmpdir(), *fx = leaky_fixture(dir, 1), out[512];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    setenv("HOME", HOME_PLANTED, 1);
    setenv("PYTHONPATH", "tests/backend", 1);
    setenv("PARITY_PLANTED", "leak", 1);
    setenv("PARITY_PLANTED_SECRET", "tpu-secret-0123456789abcdef", 1);
    cmd_result r =
        tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), "--backend-module",
                                "py=parity_planted", NULL});
    cr_expect_eq(r.status, 3, "the Python environment is down: %s", r.err);
    absent(r.err, "tpu-secret-0123456789abcdef");
    char *res = tl_slurp(out);
    cr_assert_not_null(res, "no results file: %s", r.err);
    tl_free(&r);
    cr_expect_not_null(strstr(res, "TPU_AUTH_TOKEN=[redacted]"), "%s", res);
    cr_expect_not_null(strstr(res, "HF_HOME=~/.cache/huggingface"), "%s", res);
    absent(res, "tpu-secret-0123456789abcdef");
    absent(res, HOME_PLANTED);
    free(res), free(fx), free(dir);
}

/* The environment variables a manifest records (manifest.env) pass through
 * the redactor as NAME=value: a token in a TPU_ variable, a password in one
 * the fixture's record_env names, the fixture's own pattern and the home
 * directory in others. */
Test(redact_cmd, recorded_environment_variables_are_redacted, .timeout = 120)
{
    char *dir = tl_tmpdir(), *fx = leaky_fixture(dir, 0), out[512];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    char *text = tl_slurp(fx), *at = strstr(text, "threads: 1, note:"), edited[20000];
    cr_assert_not_null(at);
    snprintf(edited, sizeof edited, "%.*sthreads: 1, record_env: [MY_DEPLOY_PASSWORD, MY_MIRROR], note:%s",
             (int)(at - text), text, at + strlen("threads: 1, note:"));
    tl_write(fx, edited);
    free(text);
    setenv("HOME", HOME_PLANTED, 1);
    setenv("TPU_AUTH_TOKEN", "tpu-secret-0123456789abcdef", 1);
    setenv("MY_DEPLOY_PASSWORD", "hunter2hunter2", 1);
    setenv("MY_MIRROR", "https://internal.example.org/models", 1);
    setenv("XLA_FLAGS", "--xla_dump_to=" HOME_PLANTED "/xla-dump", 1);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, NULL});
    cr_expect_eq(r.status, 3, "its only forward raises: %s", r.err);
    tl_free(&r);
    char *res = tl_slurp(out);
    cr_assert_not_null(res);
    absent(res, "tpu-secret-0123456789abcdef");
    absent(res, "hunter2hunter2");
    absent(res, "internal.example.org");
    absent(res, HOME_PLANTED);
    cr_expect_not_null(strstr(res, "        \"TPU_AUTH_TOKEN\": \"[redacted]\"\n"), "%s", res);
    cr_expect_not_null(strstr(res, "        \"MY_DEPLOY_PASSWORD\": \"[redacted]\"\n"), "%s", res);
    cr_expect_not_null(strstr(res, "        \"MY_MIRROR\": \"https://[redacted]/models\"\n"), "%s", res);
    cr_expect_not_null(strstr(res, "        \"XLA_FLAGS\": \"--xla_dump_to=~/xla-dump\"\n"), "%s", res);
    free(res), free(fx), free(dir);
}
