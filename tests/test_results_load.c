/* results_load: results files read back, matched to a fixture. What the
 * built binary writes through real libtorch must read back to the same
 * bytes when written again; a hand-written foreign file (plain scalars, keys
 * left out, special floats) must read as its author meant; and every kind of
 * mistake must be one error naming its line and column. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/results_schema.h"
#include "parity/ydoc.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"
#define PLANTED "tests/data/planted.yaml"
#define MINIMAL "tests/data/results-minimal.yaml"

static px_fixture *fixture(const char *path)
{
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return f;
}

static px_results *load_ok(const char *path, const px_fixture *f)
{
    px_error err = {0};
    px_results *r = results_load(path, f, &err);
    cr_assert_not_null(r, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return r;
}

static void write_ok(const px_results *r, const px_fixture *f, const char *path)
{
    px_error err = {0};
    cr_assert_eq(results_write(r, f, path, &err), 0, "%s", err.msg);
}

/* Byte-for-byte equality, reported as the first line that differs (the
 * files are too long for an assertion message). */
static void expect_same_file(const char *a, const char *b)
{
    char *ta = tl_slurp(a), *tb = tl_slurp(b);
    cr_assert(ta && tb);
    size_t i = 0;
    int line = 1;
    for (; ta[i] && ta[i] == tb[i]; i++)
        line += ta[i] == '\n';
    cr_expect(ta[i] == tb[i], "%s and %s differ at line %d:\n  %.120s\n  %.120s", a, b, line,
              ta + i - (i && ta[i - 1] != '\n' ? 1 : 0), tb + i);
    free(ta);
    free(tb);
}

static const px_env_result *env_named(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment '%s' in the loaded results", name);
    return NULL;
}

static const px_example_result *ex(const px_results *r, const px_fixture *f, const char *env, const char *id)
{
    for (size_t k = 0; k < f->n_examples; k++)
        if (!strcmp(f->examples[k].id, id))
            return &env_named(r, env)->ex[k];
    cr_assert_fail("no example '%s' in the fixture", id);
    return NULL;
}

/* Run the fixture through the built binary, read the results back and
 * write them again: the same bytes, so nothing the writer records is lost
 * or changed by the reader. The caller checks fields and frees. */
static px_results *round_trip(const px_fixture *f, int want_status)
{
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/run.yaml", dir);
    snprintf(b, sizeof b, "%s/again.yaml", dir);
    cmd_result run = tl_run((const char *[]){"parity", "run", f->path, "-q", "-o", a, NULL});
    cr_assert_eq(run.status, want_status, "status %d: %s", run.status, run.err);
    tl_free(&run);
    px_results *r = load_ok(a, f);
    write_ok(r, f, b);
    expect_same_file(a, b);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
    return r;
}

Test(results_load, demo_run_reads_back_to_the_same_file, .timeout = 300)
{
    px_fixture *f = fixture(DEMO);
    px_results *r = round_trip(f, 0);
    cr_assert_eq(r->n_envs, 2);
    cr_expect_eq(r->n_examples, f->n_examples);
    cr_expect_str_eq(r->envs[r->reference].name, "reference");
    cr_expect_eq(env_named(r, "cpu-bf16")->env_index, 1);
    const px_example_result *x = ex(r, f, "cpu-bf16", "film-night");
    cr_expect_eq(x->status, PX_ST_OK);
    cr_expect_str_eq(f->labels[x->label], "film");
    cr_expect_str_eq(x->dtype, "bfloat16");
    cr_expect_eq(x->n_values, 5);
    cr_expect_eq(x->ndim, 2);
    cr_expect(x->n_ids > 2 && !strcmp(x->tokens[0], "[CLS]") && x->ids[0] == 2);
    cr_expect_eq(ex(r, f, "reference", "service-weekend")->status, PX_ST_REJECTED);
    cr_expect_eq(ex(r, f, "reference", "service-weekend")->label, -1);
    cr_expect_eq(strlen(env_named(r, "reference")->m.model_sha256), 64);
    results_free(r);
    fixture_free(f);
}

/* The variables that change numerics, as a run records them, read back to
 * the same file. */
Test(results_load, recorded_environment_reads_back_to_the_same_file, .timeout = 300)
{
    px_fixture *f = fixture(DEMO);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("XLA_FLAGS", "--xla_cpu_fast_math=false \"quoted\"\\tab\t", 1);
    setenv("LIBTPU_INIT_ARGS", "", 1);
    px_results *r = round_trip(f, 0);
    const px_envvars *v = &env_named(r, "cpu-bf16")->m.env;
    cr_expect_eq(v->recorded, 1);
    cr_expect_str_eq(envrec_get(v, "OMP_NUM_THREADS"), "1");
    cr_expect_str_eq(envrec_get(v, "XLA_FLAGS"), "--xla_cpu_fast_math=false \"quoted\"\\tab\t");
    cr_expect_str_eq(envrec_get(v, "LIBTPU_INIT_ARGS"), "");
    results_free(r);
    fixture_free(f);
}

/* The planted fixture has every outcome, a down environment, restarts and
 * an environment with its own label map. */
Test(results_load, planted_run_reads_back_to_the_same_file, .timeout = 600)
{
    px_fixture *f = fixture(PLANTED);
    px_results *r = round_trip(f, 3);
    cr_assert_eq(r->n_envs, f->n_envs);
    const px_env_result *down = env_named(r, "no-device");
    cr_expect_eq(down->state, PX_ENV_DOWN);
    cr_expect_eq(down->down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(down->down_msg, "tpu9") != NULL, "%s", down->down_msg);
    cr_expect_null(down->m.libtorch_version);
    cr_expect_eq(down->m.load_ms, -1);
    cr_expect_eq(ex(r, f, "no-device", "jazz")->status, PX_ST_NOT_EVALUATED);
    const px_example_result *x = ex(r, f, "crash", "film-night");
    cr_expect_eq(x->status, PX_ST_CRASH);
    cr_expect_str_eq(x->detail, "SIGSEGV");
    cr_expect_not_null(x->stderr_tail);
    cr_expect_gt(env_named(r, "crash")->restarts, 0);
    cr_expect_eq(ex(r, f, "sleepy", "film-night")->status, PX_ST_TIMEOUT);
    cr_expect_eq(ex(r, f, "raises", "film-night")->status, PX_ST_EXCEPTION);
    cr_expect_eq(ex(r, f, "no-bf16", "film-night")->status, PX_ST_UNSUPPORTED);
    cr_expect_eq(ex(r, f, "width4", "film-night")->status, PX_ST_BAD_SHAPE);
    x = ex(r, f, "empty-out", "film-night");
    cr_expect(x->status == PX_ST_EMPTY && x->ndim == 2 && x->shape[1] == 0 && x->n_values == 0);
    /* swapped lists volunteer first: its label index is into its own map. */
    x = ex(r, f, "swapped", "film-night");
    cr_expect_eq(x->label, 0);
    cr_expect_str_eq(fixture_env(f, "swapped")->labels[x->label], "volunteer");
    results_free(r);
    fixture_free(f);
}

Test(results_load, a_hand_written_file_reads_as_meant)
{
    px_fixture *f = fixture(PLANTED);
    px_results *r = load_ok(MINIMAL, f);
    cr_assert_eq(r->n_envs, 2, "only the file's environments");
    cr_expect_eq(r->reference, 0);
    const px_env_result *e = env_named(r, "reference");
    cr_expect_eq(e->env_index, 0);
    cr_expect_eq(e->state, PX_ENV_UP);
    cr_expect_str_eq(e->m.libtorch_version, "2.3.0");
    cr_expect_str_eq(e->m.device_name, "TPU v5 lite");
    cr_expect_null(e->m.parity_version);
    cr_expect_null(e->m.host);
    cr_expect_eq(e->m.threads, 4);
    cr_expect_eq(e->m.load_ms, 1000);
    cr_expect_eq(e->m.first_forward_ms, -1);
    cr_expect_str_eq(e->m.model_sha256, "");
    cr_expect_eq(e->restarts, 1);

    const px_example_result *x = ex(r, f, "reference", "film-night");
    cr_assert_eq(x->n_values, 5);
    cr_expect_eq(x->values[0], 1.0e-05);
    cr_expect(isnan(x->values[1]));
    cr_expect(isinf(x->values[2]) && x->values[2] > 0);
    cr_expect(isinf(x->values[3]) && x->values[3] < 0);
    cr_expect_eq(x->values[4], -2.5);
    cr_expect_str_eq(e->labels[x->label], "volunteer", "torch.argmax: the first NaN");
    cr_expect_eq(x->forward_ms, 0.25);
    cr_expect_null(x->clean_text);
    x = ex(r, f, "reference", "jazz");
    cr_expect_eq(x->status, PX_ST_CRASH);
    cr_expect_str_eq(x->stderr_tail, "Fatal Python error: Segmentation fault");
    cr_expect(x->n_ids == 3 && x->ids[1] == 226 && !strcmp(x->tokens[1], "jazz"));
    cr_expect(x->label == -1 && x->forward_ms == -1 && !x->dtype);
    x = ex(r, f, "reference", "empty");
    cr_expect(x->status == PX_ST_REJECTED && !strcmp(x->clean_text, "") && x->n_ids == 0);
    x = ex(r, f, "reference", "near-tie");
    cr_expect_eq(x->status, PX_ST_NOT_EVALUATED);
    cr_expect_str_eq(x->detail, "not in the results file");

    e = env_named(r, "no-device");
    cr_expect_eq(e->env_index, 11);
    cr_expect(e->state == PX_ENV_DOWN && e->down_stage == PX_STAGE_DEVICE);
    cr_expect_str_eq(e->down_msg, "unknown device 'tpu9'");
    for (size_t k = 0; k < f->n_examples; k++)
        cr_expect_eq(e->ex[k].status, PX_ST_NOT_EVALUATED);
    results_free(r);
    fixture_free(f);
}

/* What the writer makes of a foreign file is a fixed point: written, read
 * and written again, the same bytes (NaN and infinities included). */
Test(results_load, writing_what_was_read_is_a_fixed_point)
{
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    px_results *r = load_ok(MINIMAL, f);
    write_ok(r, f, a);
    results_free(r);
    r = load_ok(a, f);
    write_ok(r, f, b);
    expect_same_file(a, b);
    cr_expect(isnan(ex(r, f, "reference", "film-night")->values[1]));
    results_free(r);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

/* A small valid file for the planted fixture; each error case changes one
 * piece of it. Lines: 1 version, 2 the label map, 4 the environment, 5
 * state, 7 the example's id, 8 outcome, 9 output, 10 label. */
static const char base[] = "parity_results: 1\n"
                           "labels: [film, volunteer, sports, music, social]\n"
                           "environments:\n"
                           "  reference:\n"
                           "    state: up\n"
                           "    examples:\n"
                           "      - id: jazz\n"
                           "        outcome: ok\n"
                           "        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n"
                           "        label: music\n";

typedef struct bad_case {
    const char *from, *to; /* from NULL: `to` is the whole file */
    int line, col;
    const char *needle;
} bad_case;

/* Load `from` replaced by `to` in base and expect one error at line:col. */
static void expect_error(const px_fixture *f, const bad_case *b)
{
    char *dir = tl_tmpdir(), path[300], *text;
    snprintf(path, sizeof path, "%s/results.yaml", dir);
    if (b->from) {
        const char *at = strstr(base, b->from);
        cr_assert_not_null(at, "test bug: '%s' not in base", b->from);
        text = malloc(sizeof base + strlen(b->to));
        sprintf(text, "%.*s%s%s", (int)(at - base), base, b->to, at + strlen(b->from));
    } else {
        text = strdup(b->to);
    }
    tl_write(path, text);
    px_error err = {0};
    px_results *r = results_load(path, f, &err);
    cr_expect_null(r, "'%s' -> '%s' must not load", b->from, b->to);
    results_free(r);
    char shown[1600], want[400];
    px_error_format(&err, shown, sizeof shown);
    snprintf(want, sizeof want, "%s:%d:%d: ", path, b->line, b->col);
    cr_expect_eq(err.code, PX_EXIT_USAGE, "%s", shown);
    cr_expect(!strncmp(shown, want, strlen(want)), "'%s' -> '%s': want %s..., got %s", b->from, b->to, want, shown);
    cr_expect(strstr(err.msg, b->needle) != NULL, "'%s' -> '%s': '%s' lacks '%s'", b->from, b->to, err.msg,
              b->needle);
    free(text);
    unlink(path), rmdir(dir);
    free(dir);
}

static void expect_errors(const bad_case *cases, size_t n)
{
    px_fixture *f = fixture(PLANTED);
    for (size_t i = 0; i < n; i++)
        expect_error(f, &cases[i]);
    fixture_free(f);
}

Test(results_load, base_file_loads)
{
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/results.yaml", dir);
    tl_write(path, base);
    px_results *r = load_ok(path, f);
    cr_expect_eq(r->n_envs, 1);
    cr_expect_eq(r->reference, -1, "no reference key: none");
    results_free(r);
    fixture_free(f);
    unlink(path), rmdir(dir);
    free(dir);
}

Test(results_load, schema_errors_name_line_and_column)
{
    static const bad_case cases[] = {
        {"outcome: ok", "outcme: ok", 8, 9, "unknown key 'outcme' in an example in environment 'reference'"},
        {"        label: music\n", "        label: music\n        label: film\n", 11, 9, "duplicate key 'label'"},
        {"parity_results: 1", "parity_results: 9", 1, 17, "results format 9 is newer than this parity reads (8)"},
        {"parity_results: 1", "parity_results: 1.5", 1, 17, "parity_results: 1.5 is not a results format version"},
        {"parity_results: 1", "parity_results: \"1\"", 1, 17, "is not a results format version"},
        {"parity_results: 1", "parity_results: 0", 1, 17, "is not a results format version"},
        {"values: [1, 2, 3, 5, 4]", "values: 1.5", 9, 57, "output.values must be a list, not a scalar"},
        {"state: up", "state: [up]", 5, 12, "state must be a scalar, not a list"},
        {"state: up", "state: sideways", 5, 12, "state must be up or down, not 'sideways'"},
        {"state: up", "state: down", 5, 12, "environment 'reference' is down but has no down"},
        {"state: up", "state: down\n    down: {stage: warp}", 6, 19, "down.stage must be device, load or forward"},
        {"state: up", "state: up\n    down: {stage: load}", 6, 11, "down only goes with state: down"},
        {"    state: up\n", "    state: up\n    manifest: {threads: many}\n", 6, 25,
         "manifest.threads must be a whole number, not 'many'"},
        {"    state: up\n", "    state: up\n    manifest: {model_sha256: abc}\n", 6, 30,
         "model_sha256 must be 64 hex digits"},
        {"        label: music\n", "", 7, 9, "outcome ok needs a label"},
        {"        label: music\n", "        label: music\n        token_ids: [2, 3]\n        tokens: [a]\n", 12, 17,
         "1 tokens for 2 token_ids"},
        {"        label: music\n", "        label: music\n        tokens: [a]\n", 11, 17,
         "token_ids and tokens go together"},
        {"values: [1, 2, 3, 5, 4]", "values: [1, 2, 3]", 9, 57, "output has 3 values; its shape holds 5"},
        {"shape: [1, 5]", "shape: [1, -5]", 9, 45, "must be between 0 and"},
        {"dtype: float32, ", "", 9, 17, "missing required key 'dtype'"},
        {"        label: music\n", "        label: music\n        forward_ms: -1\n", 11, 21,
         "forward_ms must be a duration of 0 or more"},
        {"        label: music\n", "        label: music\n        compiled: yes\n", 11, 19,
         "compiled must be true or false, not 'yes'"},
        {"        label: music\n", "        label: music\n        compiled: \"true\"\n", 11, 19,
         "compiled must be true or false"},
        {"    state: up\n", "    state: up\n    manifest: {executor: [python]}\n", 6, 26, "must be a scalar"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
}

Test(results_load, names_the_fixture_lacks_are_errors)
{
    static const bad_case cases[] = {
        {"outcome: ok", "outcome: fine", 8, 18, "unknown outcome 'fine' (expected one of: ok, rejected,"},
        {"  reference:", "  refrence:", 4, 3, "environment 'refrence' is not in the fixture tests/data/planted.yaml"},
        {"label: music", "label: jazz", 10, 16, "label 'jazz' is not in the environment's recorded label map"},
        {"label: music", "label: \"null\"", 10, 16, "label 'null' is not in the environment's recorded"},
        {"        label: music\n", "        label: music\n      - id: jazz\n        outcome: crash\n", 11, 13,
         "example 'jazz' is listed twice in environment 'reference'"},
        {"        label: music\n", "        label: music\n  reference:\n    state: up\n", 11, 3,
         "environment 'reference' is listed twice"},
        {"parity_results: 1\n", "parity_results: 1\nreference: twin\n", 2, 12,
         "reference 'twin' is not an environment in this file"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
}

/* A results file is evidence, not a verdict: a label that is not its own
 * logits' argmax, or an ok outcome whose output is not [1, labels], is a
 * file that contradicts itself, refused and never trusted. */
Test(results_load, a_file_that_contradicts_itself_is_refused)
{
    static const bad_case cases[] = {
        {"label: music", "label: social", 10, 16,
         "label 'social' is not the argmax of its own logits ('music', logit 3 is 5): an inconsistent file"},
        {"shape: [1, 5], values: [1, 2, 3, 5, 4]", "shape: [1, 4], values: [1, 2, 3, 5]", 9, 41,
         "outcome ok, but the output is not [1, 5] for the 5 recorded labels"},
        {"shape: [1, 5], values: [1, 2, 3, 5, 4]", "shape: [1, 0], values: []", 9, 41, "is not [1, 5]"},
        {"        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n", "", 7, 9,
         "outcome ok needs its output, so that its label can be checked"},
        /* torch.argmax: a NaN counts as the largest, the first one wins. */
        {"values: [1, 2, 3, 5, 4]", "values: [1, .nan, 3, .nan, 4]", 10, 16,
         "label 'music' is not the argmax of its own logits ('volunteer', logit 1 is nan)"},
        {"outcome: ok", "outcome: timeout", 10, 16, "a label only goes with outcome ok, not timeout"},
        {"parity_results: 1\nlabels: [film, volunteer, sports, music, social]\n", "parity_results: 1\n", 4, 5,
         "environment 'reference' records no label map (labels:)"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
}

Test(results_load, argmax_is_torch_argmax)
{
    double v[] = {1, 2, 2, NAN, 3, NAN};
    cr_expect_eq(results_argmax(v, 3), 1, "ties: the first largest");
    cr_expect_eq(results_argmax(v, 6), 3, "the first NaN, as torch.argmax");
    cr_expect_eq(results_argmax(v + 4, 1), 0);
    cr_expect_eq(results_argmax(v, 0), -1);
    double inf[] = {-INFINITY, INFINITY, INFINITY};
    cr_expect_eq(results_argmax(inf, 3), 1);
}

/* An example the fixture no longer has is a change of the contract since
 * the run: named in a warning, not a reason to refuse the rest. */
Test(results_load, an_example_removed_since_is_a_warning)
{
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/results.yaml", dir);
    char *text = strdup(base), *at = strstr(text, "id: jazz");
    memcpy(at, "id: jaz ", 8);
    tl_write(path, text);
    px_results *r = load_ok(path, f);
    int named = 0;
    for (size_t i = 0; i < r->n_warnings; i++)
        named += strstr(r->warnings[i], ":7: example 'jaz' in environment 'reference' is not in the fixture any more") != NULL;
    cr_expect_eq(named, 1);
    cr_expect_eq(ex(r, f, "reference", "jazz")->status, PX_ST_NOT_EVALUATED);
    results_free(r);
    fixture_free(f);
    unlink(path), rmdir(dir);
    free(dir), free(text);
}

Test(results_load, values_must_be_yaml_numbers)
{
    static const bad_case cases[] = {
        {"1, 2, 3, 5, 4", "1, 2, \"3\", 4, 5", 9, 64, "a value of output.values must be a number, not '3'"},
        {"1, 2, 3, 5, 4", "1, 2, 3.3.3, 4, 5", 9, 64, "must be a number, not '3.3.3'"},
        {"1, 2, 3, 5, 4", "1, 2, nan, 4, 5", 9, 64, "must be a number, not 'nan'"},
        {"1, 2, 3, 5, 4", "1, 2, 0x10, 4, 5", 9, 64, "must be a number, not '0x10'"},
        {"1, 2, 3, 5, 4", "1, 2, 1e999, 4, 5", 9, 64, "must be a number, not '1e999'"},
        {"1, 2, 3, 5, 4", "1, 2, [3], 4, 5", 9, 64, "a value of output.values must be a scalar, not a list"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
}

Test(results_load, files_that_are_not_results_are_errors)
{
    static const bad_case cases[] = {
        {NULL, "", 1, 1, "empty file: not a parity results file"},
        {NULL, "just some text\n", 1, 1, "a results file must be a mapping, not a scalar"},
        {NULL, "environments: {}\n", 1, 1, "not a parity results file (no parity_results: 8)"},
        {"state: up", "state: [up", 5, 12, "a '[' opened at 5:12 is not closed"},
        {"state: up", "state: u\xffp", 5, 13, "byte 0xFF is not UTF-8"},
        {"        label: music\n", "        label: music\n---\nparity_results: 1\n", 11, 1, "a second YAML document"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
}

static int keep_all(void *ctx, yaml_document_t *doc, int map, int key, size_t pos)
{
    (void)ctx, (void)doc, (void)map, (void)key, (void)pos;
    return 0;
}

static int no_item(void *ctx, yaml_document_t *item, size_t pos, px_error *err)
{
    (void)ctx, (void)item, (void)pos, (void)err;
    return -1;
}

/* A file that is not YAML, given in memory (results_parse, fixture_load):
 * ydoc_load_stream says what is wrong at once, as ydoc_load would, instead
 * of asking for the whole input to be read again (which doubled the cost of
 * every such input); and what results_parse says is byte for byte what
 * results_load says of the same bytes in a file. */
Test(results_load, a_yaml_error_in_memory_is_said_once_and_as_a_file_says_it)
{
    static const char *const tails[] = {
        "    bogus: [1, 2\n",          "    bogus: u\xffp\n",         "    bogus: a: b\n",
        "    bogus: ]\n", "    bogus: \"open\n",       "\t- tab\n",
        "    bogus: 'x' y\n",          "    bogus: {a: 1\n",
    };
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/results.yaml", dir);
    for (size_t i = 0; i <= sizeof tails / sizeof *tails; i++) {
        char text[sizeof base + 64];
        snprintf(text, sizeof text, "%s%s", i ? base : "", i ? tails[i - 1] : "");
        tl_write(path, text);
        px_error a = {0}, b = {0}, c = {0}, d = {0};
        cr_expect_null(results_load(path, f, &a), "case %zu", i);
        cr_expect_null(results_parse(path, text, strlen(text), f, &b), "case %zu", i);
        char sa[1600], sb[1600], sc[1600], sd[1600];
        px_error_format(&a, sa, sizeof sa), px_error_format(&b, sb, sizeof sb);
        cr_expect_str_eq(sb, sa, "case %zu", i);
        cr_expect(a.line > 0 && strstr(sa, path), "case %zu: %s", i, sa);
        yaml_document_t doc;
        ydoc_divert dv = {"environments/*/examples", keep_all, no_item, NULL};
        cr_expect_eq(ydoc_load_stream(path, NULL, text, strlen(text), "results file", &doc, &dv, &c), -1,
                     "case %zu: said at once, not YDOC_AGAIN", i);
        cr_expect_eq(ydoc_load(path, text, strlen(text), "results file", &doc, &d), -1, "case %zu", i);
        px_error_format(&c, sc, sizeof sc), px_error_format(&d, sd, sizeof sd);
        cr_expect_str_eq(sc, sd, "case %zu", i);
    }
    fixture_free(f);
    unlink(path), rmdir(dir);
    free(dir);
}

Test(results_load, a_fixture_given_as_results_is_named_as_such)
{
    px_fixture *f = fixture(PLANTED);
    px_error err = {0};
    cr_expect_null(results_load(PLANTED, f, &err));
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_eq(err.line, 5, "the first key, after the comments");
    cr_expect_eq(err.col, 1);
    cr_expect(strstr(err.msg, "not a parity results file"), "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_expect_null(results_load("tests/data/no-such-results.yaml", f, &err));
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_str_eq(err.file, "tests/data/no-such-results.yaml");
    cr_expect(strstr(err.msg, "cannot read results file: No such file"), "%s", err.msg);
    fixture_free(f);
}

/* Format 3: what produced a file (executor, interpreter, backend modules,
 * precision settings) and whether a forward compiled are read as written,
 * and written back the same. */
Test(results_load, executor_fields_read_and_write_back)
{
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    tl_write(a, "parity_results: 3\n"
                "labels: [film, volunteer, sports, music, social]\n"
                "environments:\n"
                "  reference:\n"
                "    state: up\n"
                "    manifest:\n"
                "      executor: python\n"
                "      runtime: CPython 3.10.12\n"
                "      libtorch_version: 2.6.0\n"
                "      backend_modules: torch_tpu, torch_xla\n"
                "      backend_versions: 0.1.0, 2.6.0\n"
                "      device: tpu:0\n"
                "      matmul_precision: medium\n"
                "      ignored: null\n"
                "    examples:\n"
                "      - id: jazz\n"
                "        outcome: ok\n"
                "        output: {dtype: bfloat16, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n"
                "        label: music\n"
                "        compiled: true\n"
                "      - id: film-night\n"
                "        outcome: ok\n"
                "        output: {dtype: bfloat16, shape: [1, 5], values: [5, 2, 3, 1, 4]}\n"
                "        label: film\n"
                "        compiled: false\n");
    px_results *r = load_ok(a, f);
    const px_env_result *e = env_named(r, "reference");
    cr_expect_str_eq(e->m.executor, "python");
    cr_expect_str_eq(e->m.runtime, "CPython 3.10.12");
    cr_expect_str_eq(e->m.backend_modules, "torch_tpu, torch_xla");
    cr_expect_str_eq(e->m.backend_versions, "0.1.0, 2.6.0");
    cr_expect_str_eq(e->m.matmul_precision, "medium");
    cr_expect_null(e->m.tf32);
    cr_expect_null(e->m.ignored);
    cr_expect_eq(ex(r, f, "reference", "jazz")->compiled, PX_COMPILED_YES);
    cr_expect_eq(ex(r, f, "reference", "film-night")->compiled, PX_COMPILED_NO);
    cr_expect_eq(ex(r, f, "reference", "near-tie")->compiled, PX_COMPILED_UNKNOWN);
    write_ok(r, f, b);
    results_free(r);
    char *text = tl_slurp(b);
    cr_expect(strstr(text, "      executor: \"python\"\n      runtime: \"CPython 3.10.12\"\n"), "%s", text);
    cr_expect(strstr(text, "        compiled: true\n") && strstr(text, "        compiled: false\n"), "%s", text);
    free(text);
    r = load_ok(b, f);
    write_ok(r, f, a);
    expect_same_file(a, b);
    results_free(r);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

/* Format 4: a shard file (parity run --shard I/N) holds its shard's
 * examples only; the others read as not evaluated, with where they ran. In
 * the planted fixture jazz, empty, reference-wrong and near-tie are shard
 * 0/2's, the others 1/2's. */
static const char shard_base[] = "parity_results: 4\n"
                                 "shard: \"0/2\"\n"
                                 "labels: [film, volunteer, sports, music, social]\n"
                                 "environments:\n"
                                 "  reference:\n"
                                 "    state: up\n"
                                 "    examples:\n"
                                 "      - id: jazz\n"
                                 "        outcome: ok\n"
                                 "        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n"
                                 "        label: music\n";

Test(results_load, a_shard_file_reads_as_partial_and_writes_back_the_same)
{
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    tl_write(a, shard_base);
    px_results *r = load_ok(a, f);
    cr_expect_eq(r->shard.count, 2);
    cr_expect_eq(r->shard.index, 0);
    cr_expect_eq(r->shard.line, 2);
    cr_expect_eq(ex(r, f, "reference", "jazz")->status, PX_ST_OK);
    const px_example_result *other = ex(r, f, "reference", "film-night"), *mine = ex(r, f, "reference", "empty");
    cr_expect_eq(other->status, PX_ST_NOT_EVALUATED);
    cr_expect_str_eq(other->detail, "run in shard 1/2, not in this shard's file");
    cr_expect_eq(mine->status, PX_ST_NOT_EVALUATED);
    cr_expect_str_eq(mine->detail, "not in the results file", "its own example, left out: said as such");
    write_ok(r, f, b);
    results_free(r);
    char *text = tl_slurp(b);
    cr_expect(strstr(text, "\nshard: \"0/2\"\n"), "%s", text);
    cr_expect(strstr(text, "id: \"jazz\"") && strstr(text, "id: \"empty\""), "its own examples are written");
    cr_expect(!strstr(text, "id: \"film-night\"") && !strstr(text, "id: \"tight\""),
              "another shard's examples are not written: %s", text);
    free(text);
    r = load_ok(b, f);
    write_ok(r, f, a);
    expect_same_file(a, b);
    results_free(r);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

static void expect_shard_error(const char *from, const char *to, int line, int col, const char *needle)
{
    const char *at = strstr(shard_base, from);
    cr_assert_not_null(at, "test bug: '%s' not in shard_base", from);
    char *text = malloc(sizeof shard_base + strlen(to));
    sprintf(text, "%.*s%s%s", (int)(at - shard_base), shard_base, to, at + strlen(from));
    bad_case b = {NULL, text, line, col, needle};
    px_fixture *f = fixture(PLANTED);
    expect_error(f, &b);
    fixture_free(f);
    free(text);
}

Test(results_load, a_shard_is_refused_where_it_is_wrong)
{
    expect_shard_error("shard: \"0/2\"", "shard: \"1/2\"", 8, 13,
                       "example 'jazz' belongs to shard 0/2, but this file is shard 1/2");
    expect_shard_error("shard: \"0/2\"", "shard: \"2/2\"", 2, 8, "I counts from 0 to N-1");
    expect_shard_error("shard: \"0/2\"", "shard: \"0/0\"", 2, 8, "at least 1");
    expect_shard_error("shard: \"0/2\"", "shard: \"0 / 2\"", 2, 8, "two whole numbers");
    expect_shard_error("shard: \"0/2\"", "shard: [0, 2]", 2, 8, "shard must be a scalar");
    expect_shard_error("parity_results: 4", "parity_results: 3", 2, 8, "results format 3 has no shard:");
    expect_shard_error("environments:", "merged_from: []\nenvironments:", 4, 14,
                       "shard: and merged_from: do not go together");
}

/* A merged file (parity merge) names its shard files; read strictly and
 * written back the same. */
Test(results_load, merged_from_reads_and_writes_back)
{
    static const char merged[] = "parity_results: 4\n"
                                 "labels: [film, volunteer, sports, music, social]\n"
                                 "merged_from:\n"
                                 "  - shard: \"0/2\"\n"
                                 "    file: \"runs/s0.yaml\"\n"
                                 "    host: \"node-a\"\n"
                                 "    started_at: \"2026-12-03T08:30:27Z\"\n"
                                 "  - {shard: \"1/2\", file: \"runs/s1.yaml\", host: null}\n"
                                 "environments:\n"
                                 "  reference:\n"
                                 "    state: up\n"
                                 "    examples: []\n";
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    tl_write(a, merged);
    px_results *r = load_ok(a, f);
    cr_assert_eq(r->n_merged_from, 2);
    cr_expect_eq(r->shard.count, 0, "a merged file is no shard");
    cr_expect_str_eq(r->merged_from[0].file, "runs/s0.yaml");
    cr_expect_str_eq(r->merged_from[0].host, "node-a");
    cr_expect_str_eq(r->merged_from[0].started_at, "2026-12-03T08:30:27Z");
    cr_expect_eq(r->merged_from[1].shard.index, 1);
    cr_expect_null(r->merged_from[1].host);
    write_ok(r, f, b);
    results_free(r);
    char *text = tl_slurp(b);
    cr_expect(strstr(text, "written by `parity merge`"), "%s", text);
    cr_expect(strstr(text, "merged_from:\n  - shard: \"0/2\"\n    file: \"runs/s0.yaml\"\n"), "%s", text);
    free(text);
    r = load_ok(b, f);
    write_ok(r, f, a);
    expect_same_file(a, b);
    results_free(r);
    /* Strict like the rest. */
    static const bad_case cases[] = {
        {NULL, "parity_results: 4\nmerged_from:\n  - {shard: \"0/2\", file: a, hots: x}\nenvironments: {}\n", 3, 29,
         "unknown key 'hots' in an entry of merged_from"},
        {NULL, "parity_results: 4\nmerged_from:\n  - {shard: \"0/2\"}\nenvironments: {}\n", 3, 5,
         "merged_from: missing required key 'file'"},
        {NULL, "parity_results: 4\nmerged_from:\n  - {shard: \"3/2\", file: a}\nenvironments: {}\n", 3, 13,
         "I counts from 0 to N-1"},
        {NULL, "parity_results: 3\nmerged_from: []\nenvironments: {}\n", 2, 14,
         "results format 3 has no merged_from:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_error(f, &cases[i]);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

/* Format 4: an environment whose run stopped early says why; older formats
 * cannot say it, and a file that claims to is refused where it does. */
Test(results_load, cut_short_reads_back_and_needs_format_4)
{
    static const bad_case cases[] = {
        {"    state: up\n", "    state: up\n    cut_short: interrupted\n", 6, 16,
         "cut_short is written from format 4 on, this file says 1"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    char *text = malloc(sizeof base + 64);
    sprintf(text, "parity_results: 4\n%s", strstr(base, "labels:"));
    char *at = strstr(text, "    state: up\n") + strlen("    state: up\n");
    char *full = malloc(strlen(text) + 64);
    sprintf(full, "%.*s    cut_short: interrupted\n%s", (int)(at - text), text, at);
    tl_write(a, full);
    px_results *r = load_ok(a, f);
    cr_expect_str_eq(env_named(r, "reference")->cut_short, "interrupted");
    write_ok(r, f, b);
    results_free(r);
    char *back = tl_slurp(b);
    cr_expect(strstr(back, "    cut_short: \"interrupted\"\n"), "%s", back);
    free(back), free(text), free(full);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

/* Format 4: parity bench's records are read strictly, and figures that
 * contradict themselves are refused like a label that is not the argmax. */
/* Each edit of `text` (the first `from` made `to`), written to path, is
 * refused at line:col with an error that contains needle. */
typedef struct bad_edit {
    const char *from, *to;
    int line, col;
    const char *needle;
} bad_edit;

static void expect_edits_refused(const px_fixture *f, const char *path, const char *text, const bad_edit *bad,
                                 size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *at = strstr(text, bad[i].from);
        cr_assert_not_null(at, "%s", bad[i].from);
        char *edited = malloc(strlen(text) + strlen(bad[i].to) + 1);
        sprintf(edited, "%.*s%s%s", (int)(at - text), text, bad[i].to, at + strlen(bad[i].from));
        tl_write(path, edited);
        px_error err = {0};
        cr_expect_null(results_load(path, f, &err), "%s", bad[i].to);
        cr_expect_eq(err.code, PX_EXIT_USAGE, "%s", bad[i].to);
        cr_expect(err.line == bad[i].line && err.col == bad[i].col, "%s: at %d:%d, want %d:%d (%s)", bad[i].to,
                  err.line, err.col, bad[i].line, bad[i].col, err.msg);
        cr_expect(strstr(err.msg, bad[i].needle), "%s: %s", bad[i].to, err.msg);
        free(edited);
    }
}

Test(results_load, bench_records_are_read_strictly)
{
    static const char v4[] = "parity_results: 4\n"
                             "labels: [film, volunteer, sports, music, social]\n"
                             "environments:\n"
                             "  reference:\n"
                             "    state: up\n"
                             "    bench:\n"
                             "      - endpoint: batch:2\n"
                             "        warmup: 1\n"
                             "        passes: 3\n"
                             "        forwards: 6\n"
                             "        p50_ms: 2\n"
                             "        p90_ms: 3\n"
                             "        p99_ms: 4\n"
                             "        min_ms: 1\n"
                             "        max_ms: 5\n"
                             "        outputs:\n"
                             "          jazz: [1, 2, 3, 5, 4]\n"
                             "    examples:\n"
                             "      - id: jazz\n"
                             "        outcome: ok\n"
                             "        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n"
                             "        label: music\n";
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/r.yaml", dir);
    tl_write(path, v4);
    px_results *r = load_ok(path, f);
    const px_env_result *e = env_named(r, "reference");
    cr_assert_eq(e->n_bench, 1);
    cr_expect_eq(e->bench[0].batch, 2);
    cr_expect_eq(e->bench[0].forwards, 6);
    cr_expect_float_eq(e->bench[0].p90_ms, 3, 1e-12);
    long jazz = fixture_example_index(f, "jazz");
    cr_assert(jazz >= 0 && e->bench[0].out[jazz]);
    cr_expect_float_eq(e->bench[0].out[jazz][3], 5, 1e-12);
    results_free(r);
    static const bad_edit bad[] = {
        {"parity_results: 4", "parity_results: 3", 7, 7, "bench is written from format 4 on, this file says 3"},
        {"endpoint: batch:2", "endpoint: batch:1", 7, 19, "endpoint must be single, batch:N (N from 2) or train-step:N (N from 1 to 10000), not 'batch:1'"},
        {"endpoint: batch:2", "endpoint: batch:2x", 7, 19, "not 'batch:2x'"},
        {"p90_ms: 3", "p90_ms: 1.5", 7, 9, "the latencies must read min <= p50 <= p90 <= p99 <= max"},
        {"p50_ms: 2", "p50_ms: -2", 11, 17, "p50_ms must be a finite number of 0 or more"},
        {"jazz: [1, 2, 3, 5, 4]", "jazz: [1, 2, 3]", 17, 17, "'jazz' has 3 values, the environment has 5 labels"},
        {"jazz: [1, 2, 3, 5, 4]", "jazz: [1, 2, 3, x, 4]", 17, 27, "must be a number, not 'x'"},
        {"        warmup: 1\n", "        warmup: 1\n        speed: 3\n", 9, 9, "speed"},
    };
    expect_edits_refused(f, path, v4, bad, sizeof bad / sizeof *bad);
    fixture_free(f);
    unlink(path), rmdir(dir);
    free(dir);
}

/* A train-step:N record's own fields (format 4, optional keys): read back
 * from a real bench to the same bytes, then every bad value located. */
Test(results_load, train_step_records_round_trip_and_are_read_strictly, .timeout = 300)
{
    px_fixture *f = fixture("tests/data/train.yaml");
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/bench.yaml", dir);
    snprintf(b, sizeof b, "%s/again.yaml", dir);
    cmd_result run = tl_run((const char *[]){"parity", "bench", f->path, "-e", "reference", "--endpoint",
                                             "train-step:3", "-o", a, NULL});
    cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
    tl_free(&run);
    px_results *r = load_ok(a, f);
    const px_bench *t = &r->envs[0].bench[0];
    cr_expect_eq(t->train_steps, 3);
    cr_expect_eq(t->n_steps, 3);
    cr_expect_eq(t->batch, 5);
    write_ok(r, f, b);
    expect_same_file(a, b);
    results_free(r);
    static const char v4[] = "parity_results: 4\n"
                             "labels: [film, volunteer, sports, music, social]\n"
                             "environments:\n"
                             "  reference:\n"
                             "    state: up\n"
                             "    bench:\n"
                             "      - endpoint: train-step:3\n"
                             "        examples: 1\n"
                             "        lr: 0.05\n"
                             "        loss: [0.5, 0.4, 0.3]\n"
                             "        step_ms: [3, 2, 2]\n"
                             "    examples:\n"
                             "      - id: film-night\n"
                             "        outcome: ok\n"
                             "        output: {dtype: float32, shape: [1, 5], values: [5, 2, 3, 1, 4]}\n"
                             "        label: film\n";
    tl_write(a, v4);
    r = load_ok(a, f);
    t = &r->envs[0].bench[0];
    cr_expect_eq(t->train_steps, 3);
    cr_expect_eq(t->n_steps, 3);
    cr_expect_float_eq(t->loss[2], 0.3, 1e-12);
    cr_expect_float_eq(t->step_ms[0], 3, 1e-12);
    results_free(r);
    static const bad_edit bad[] = {
        {"train-step:3", "train-step:0", 7, 19, "train-step:N (N from 1 to 10000), not 'train-step:0'"},
        {"train-step:3", "train-step:3x", 7, 19, "not 'train-step:3x'"},
        {"train-step:3", "single", 9, 13, "bench.lr belongs to a train-step:N endpoint only"},
        {"        lr: 0.05\n", "", 7, 9, "missing required key 'lr'"},
        {"lr: 0.05", "lr: 0", 9, 13, "lr must be a learning rate above 0, not '0'"},
        {"loss: [0.5, 0.4, 0.3]", "loss: [0.5, 0.4, 0.3, 0.2]", 10, 15, "loss has 4 steps, the endpoint 3"},
        {"loss: [0.5, 0.4, 0.3]", "loss: [0.5, x, 0.3]", 10, 21, "must be a number, not 'x'"},
        {"loss: [0.5, 0.4, 0.3]", "loss: 0.5", 10, 15, "loss must be a list"},
        {"step_ms: [3, 2, 2]", "step_ms: [3, 2]", 11, 18, "step_ms has 2 steps, loss 3"},
        {"step_ms: [3, 2, 2]", "step_ms: [3, -2, 2]", 11, 22, "durations of 0 or more milliseconds, not '-2'"},
        {"step_ms: [3, 2, 2]", "step_ms: [3, .inf, 2]", 11, 22, "not '.inf'"},
    };
    expect_edits_refused(f, a, v4, bad, sizeof bad / sizeof *bad);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

/* results_load streams a file (its examples are read one at a time, not
 * kept as a document), which stands for reading it whole only when the
 * label map and shard come before the examples, as the writer puts them.
 * A file in any other order, or with anchors in its examples, reads as
 * the same file in the writer's order would, errors included. */
static px_results *load_text(const px_fixture *f, const char *text, px_error *err)
{
    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/results.yaml", dir);
    tl_write(path, text);
    px_results *r = results_load(path, f, err);
    unlink(path), rmdir(dir);
    free(dir);
    return r;
}

static const char jazz_ok[] = "      - id: jazz\n"
                              "        outcome: ok\n"
                              "        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n";

Test(results_load, a_file_in_any_order_reads_as_in_the_writers_order)
{
    px_fixture *f = fixture(PLANTED);
    px_error err = {0};
    char text[2048];
    /* The environment's own label map after its examples: the label is
     * read with it, not with the file's. */
    snprintf(text, sizeof text,
             "parity_results: 1\nlabels: [film, volunteer, sports, music, social]\nenvironments:\n  reference:\n"
             "    state: up\n    examples:\n%s        label: social\n    labels: [film, volunteer, sports, social, music]\n",
             jazz_ok);
    px_results *r = load_text(f, text, &err);
    cr_assert_not_null(r, "%d:%d: %s", err.line, err.col, err.msg);
    cr_expect_eq(ex(r, f, "reference", "jazz")->label, 3);
    cr_expect_str_eq(results_label(env_named(r, "reference"), ex(r, f, "reference", "jazz")), "social");
    results_free(r);
    /* shard: after the environments: an example of the other shard is
     * refused where it is, as in a file that says its shard first. */
    snprintf(text, sizeof text,
             "parity_results: 4\nlabels: [film, volunteer, sports, music, social]\nenvironments:\n  reference:\n"
             "    state: up\n    examples:\n%s        label: music\n      - id: film-night\n        outcome: crash\n"
             "shard: \"0/2\"\n",
             jazz_ok);
    cr_expect_null(load_text(f, text, &err));
    cr_expect_eq(err.line, 11, "%d:%d: %s", err.line, err.col, err.msg);
    cr_expect_eq(err.col, 13);
    cr_expect(strstr(err.msg, "example 'film-night' belongs to shard 1/2, but this file is shard 0/2"), "%s", err.msg);
    /* Anchors and aliases, in the examples and around them. */
    snprintf(text, sizeof text,
             "parity_results: 1\nlabels: &l [film, volunteer, sports, music, social]\nenvironments:\n  reference:\n"
             "    labels: *l\n    state: up\n    examples:\n%s        label: &m music\n"
             "  twin:\n    state: up\n    examples:\n      - id: jazz\n        outcome: ok\n"
             "        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n        label: *m\n",
             jazz_ok);
    r = load_text(f, text, &err);
    cr_assert_not_null(r, "%d:%d: %s", err.line, err.col, err.msg);
    cr_expect_eq(ex(r, f, "reference", "jazz")->label, 3);
    cr_expect_eq(ex(r, f, "twin", "jazz")->label, 3);
    results_free(r);
    fixture_free(f);
}

/* An environment's keys are read in one order whatever the file's: its
 * manifest before its examples, so a bad manifest after bad examples is
 * the error said, as when the file is read whole; and the first
 * environment's error before the second's. */
Test(results_load, errors_are_said_in_the_same_order_as_ever)
{
    px_fixture *f = fixture(PLANTED);
    px_error err = {0};
    char text[2048];
    snprintf(text, sizeof text,
             "parity_results: 1\nlabels: [film, volunteer, sports, music, social]\nenvironments:\n  reference:\n"
             "    state: up\n    examples:\n      - id: jazz\n        outcme: ok\n    manifest: {threads: many}\n");
    cr_expect_null(load_text(f, text, &err));
    cr_expect_eq(err.line, 9);
    cr_expect(strstr(err.msg, "manifest.threads must be a whole number"), "%s", err.msg);
    snprintf(text, sizeof text,
             "parity_results: 1\nlabels: [film, volunteer, sports, music, social]\nenvironments:\n  reference:\n"
             "    state: up\n    examples:\n      - id: jazz\n        outcme: ok\n"
             "  twin:\n    state: up\n    examples:\n      - id: jazz\n        outcome: sideways\n");
    cr_expect_null(load_text(f, text, &err));
    cr_expect_eq(err.line, 8);
    cr_expect_eq(err.col, 9);
    cr_expect(strstr(err.msg, "unknown key 'outcme' in an example in environment 'reference'"), "%s", err.msg);
    fixture_free(f);
}

/* The nesting limit counts from the document's root inside a streamed
 * example too. */
Test(results_load, nesting_in_an_example_counts_from_the_root)
{
    px_fixture *f = fixture(PLANTED);
    char text[4096], deep[200];
    memset(deep, '[', 70);
    snprintf(deep + 70, sizeof deep - 70, "x");
    memset(deep + 71, ']', 70);
    deep[141] = '\0';
    snprintf(text, sizeof text, "%s        detail: %s\n", base, deep);
    px_error err = {0};
    cr_expect_null(load_text(f, text, &err));
    cr_expect_eq(err.line, 11);
    cr_expect_eq(err.col, 17 + 59, "%d:%d: %s", err.line, err.col, err.msg); /* 5 collections open before it */
    cr_expect(strstr(err.msg, "nesting deeper than 64 levels"), "%s", err.msg);
    fixture_free(f);
}

/* results_load_with: an example whose recorded input is exactly parity's
 * borrows parity's (no second copy), one that differs keeps its own, and
 * what is read writes back to the same bytes either way. */
typedef struct expect_ctx {
    const px_fixture *f;
    px_env_input in[4];
    int asked[4];
} expect_ctx;

static const px_prepared *expect_for(void *arg, int env)
{
    expect_ctx *c = arg;
    px_error err = {0};
    cr_assert(env >= 0 && env < 4);
    if (!c->asked[env]++)
        cr_assert_eq(env_input_open_text(&c->in[env], c->f, &c->f->envs[env], &err), 0, "%s", err.msg);
    return c->in[env].examples;
}

Test(results_load, recorded_inputs_equal_to_paritys_are_shared_not_copied)
{
    px_fixture *f = fixture(DEMO);
    cr_assert(f->n_envs <= 4);
    /* One token of film-night changed (and its id with it: the file is
     * still consistent, the judge would find the difference). */
    char *text = tl_slurp("tests/data/campus-results.yaml");
    cr_assert_not_null(text);
    char *at = strstr(text, "\"screening\"");
    cr_assert_not_null(at);
    memcpy(at, "\"screenin!\"", 11);
    char path[] = "/tmp/parity-share-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    free(text);
    expect_ctx c = {.f = f};
    px_error err = {0};
    px_results *r = results_load_with(path, f, expect_for, &c, &err);
    cr_assert_not_null(r, "%s", err.msg);
    size_t shared = 0, own = 0;
    for (size_t e = 0; e < r->n_envs; e++)
        for (size_t k = 0; k < f->n_examples; k++) {
            const px_example_result *x = &r->envs[e].ex[k];
            const px_prepared *p = &c.in[r->envs[e].env_index].examples[k];
            if (!x->clean_text)
                continue;
            if (x->shared_input) {
                cr_expect(x->tokens == p->enc.pieces && x->ids == p->enc.ids && x->clean_text == p->clean_text);
                shared++;
            } else {
                own++;
                cr_expect_str_eq(f->examples[k].id, "film-night", "%s kept its own copy", f->examples[k].id);
                cr_expect(x->tokens != p->enc.pieces);
            }
        }
    cr_expect_eq(own, 1, "the changed example in the environment it was changed in");
    cr_expect_gt(shared, 10);
    char out[] = "/tmp/parity-share-out-XXXXXX";
    close(mkstemp(out));
    write_ok(r, f, out);
    px_results *plain = load_ok(path, f);
    char again[] = "/tmp/parity-share-again-XXXXXX";
    close(mkstemp(again));
    write_ok(plain, f, again);
    expect_same_file(again, out);
    results_free(r);
    results_free(plain);
    for (int e = 0; e < 4; e++)
        if (c.asked[e])
            env_input_close(&c.in[e], f->n_examples);
    unlink(path), unlink(out), unlink(again);
    fixture_free(f);
}

/* manifest.env: the environment variables that changed numerics, by name;
 * "" is set to empty, a name left out is not set, and a manifest without
 * env (a file from before parity recorded them) is not recorded, which is
 * not the same as none set ({}). Read as written, written back the same. */
Test(results_load, manifest_env_reads_and_writes_back)
{
    px_fixture *f = fixture(PLANTED);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    static const char head[] = "parity_results: 4\n"
                               "labels: [film, volunteer, sports, music, social]\n"
                               "environments:\n"
                               "  reference:\n"
                               "    state: up\n"
                               "    manifest:\n"
                               "      threads: 1\n";
    static const char tail[] = "    examples:\n"
                               "      - id: jazz\n"
                               "        outcome: ok\n"
                               "        output: {dtype: float32, shape: [1, 5], values: [1, 2, 3, 5, 4]}\n"
                               "        label: music\n";
    char text[2048];
    /* Out of order and plain: read sorted; written quoted, in order. */
    snprintf(text, sizeof text, "%s      env:\n        XLA_FLAGS: --xla_foo=1\n        OMP_NUM_THREADS: \"4\"\n"
                                "        LIBTPU_INIT_ARGS: \"\"\n%s",
             head, tail);
    tl_write(a, text);
    px_results *r = load_ok(a, f);
    const px_envvars *v = &env_named(r, "reference")->m.env;
    cr_expect_eq(v->recorded, 1);
    cr_assert_eq(v->n, 3);
    cr_expect_str_eq(v->v[0].name, "LIBTPU_INIT_ARGS");
    cr_expect_str_eq(v->v[0].value, "", "set to empty");
    cr_expect_str_eq(envrec_get(v, "OMP_NUM_THREADS"), "4");
    cr_expect_str_eq(envrec_get(v, "XLA_FLAGS"), "--xla_foo=1");
    cr_expect_null(envrec_get(v, "TPU_NAME"), "not set");
    write_ok(r, f, b);
    results_free(r);
    char *out = tl_slurp(b);
    cr_expect(strstr(out, "      threads: 1\n      env:\n        \"LIBTPU_INIT_ARGS\": \"\"\n        \"OMP_NUM_THREADS\": "
                          "\"4\"\n        \"XLA_FLAGS\": \"--xla_foo=1\"\n      model_sha256:"),
              "%s", out);
    free(out);
    r = load_ok(b, f);
    write_ok(r, f, a);
    expect_same_file(a, b);
    results_free(r);

    /* None set: {} both ways. */
    snprintf(text, sizeof text, "%s      env: {}\n%s", head, tail);
    tl_write(a, text);
    r = load_ok(a, f);
    cr_expect_eq(env_named(r, "reference")->m.env.recorded, 1);
    cr_expect_eq(env_named(r, "reference")->m.env.n, 0);
    write_ok(r, f, b);
    results_free(r);
    out = tl_slurp(b);
    cr_expect(strstr(out, "      threads: 1\n      env: {}\n"), "%s", out);
    free(out);

    /* Not recorded: no env written back, so an earlier parity's file reads
     * and writes as it did. */
    snprintf(text, sizeof text, "%s%s", head, tail);
    tl_write(a, text);
    r = load_ok(a, f);
    cr_expect_eq(env_named(r, "reference")->m.env.recorded, 0);
    write_ok(r, f, b);
    results_free(r);
    out = tl_slurp(b);
    cr_expect_null(strstr(out, "env:"), "%s", out);
    free(out);
    fixture_free(f);
    unlink(a), unlink(b), rmdir(dir);
    free(dir);
}

Test(results_load, manifest_env_errors_name_line_and_column)
{
    static const bad_case cases[] = {
        {"    state: up\n", "    state: up\n    manifest: {env: [XLA_FLAGS]}\n", 6, 21,
         "environment 'reference'.manifest.env must be a mapping, not a list"},
        {"    state: up\n", "    state: up\n    manifest: {env: {\"XLA FLAGS\": x}}\n", 6, 22,
         "'XLA FLAGS' is not an environment variable's name"},
        {"    state: up\n", "    state: up\n    manifest: {env: {1X: x}}\n", 6, 22,
         "'1X' is not an environment variable's name"},
        {"    state: up\n", "    state: up\n    manifest: {env: {XLA_FLAGS: null}}\n", 6, 33,
         "manifest.env.XLA_FLAGS must be a string (\"\" when set to empty; a variable not set is left out), not null"},
        {"    state: up\n", "    state: up\n    manifest: {env: {XLA_FLAGS: [a]}}\n", 6, 33,
         "manifest.env.XLA_FLAGS must be a string"},
        {"    state: up\n", "    state: up\n    manifest: {env: {A: x, B: y, A: z}}\n", 6, 34,
         "duplicate key 'A' in environment 'reference'.manifest.env"},
        {"    state: up\n", "    state: up\n    manifest: {env: {A: \"x\\0y\"}}\n", 6, 25,
         "manifest.env.A contains a NUL character"},
        {"    state: up\n", "    state: up\n    manifest: {env: {? [A] : x}}\n", 6, 24,
         "manifest.env: a key must be an environment variable's name, not a list"},
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
}

/* results_schema's tables drive both the writer and the reader: every field
 * they describe (all but those with code of their own), set to a value of
 * its own, is written and reads back the same. A field the writer writes
 * and the reader forgets (or the reverse) reads back as not known and
 * fails here; a field added to a table is covered without a change. A
 * generator's generated: (text, first_ms) is not in a classifier's file;
 * tests/test_cmd_generate.c round-trips it. */
static void schema_fill(const px_rrecord *rec, void *base, int seed)
{
    for (size_t i = 0; i < rec->n; i++) {
        const px_rfield *fld = &rec->fields[i];
        void *at = results_schema_at(fld, base);
        int v = seed + (int)i;
        char text[80];
        switch (fld->type) {
        case PX_RF_OWN:
            break;
        case PX_RF_STR:
            snprintf(text, sizeof text, "%s of record %d", fld->key, v);
            free(*(char **)at);
            cr_assert_not_null(*(char **)at = strdup(text));
            break;
        case PX_RF_FIXED:
            snprintf(at, fld->size, "f%d", v);
            break;
        case PX_RF_SHA:
            snprintf(at, fld->size, "%064x", v);
            break;
        case PX_RF_INT:
            *(int *)at = 3 + v;
            break;
        case PX_RF_SIZE:
            *(size_t *)at = (size_t)(5 + v);
            break;
        case PX_RF_MS:
        case PX_RF_FIGURE:
            *(double *)at = 0.5 + v;
            break;
        case PX_RF_ENVVARS:
            snprintf(text, sizeof text, "v%d", v);
            envrec_clear(at);
            cr_assert_eq(envrec_add(at, "XLA_FLAGS", text), 0);
            ((px_envvars *)at)->recorded = 1;
            break;
        }
    }
}

static void schema_expect(const px_rrecord *rec, const void *want, const void *got, const char *where)
{
    for (size_t i = 0; i < rec->n; i++) {
        const px_rfield *fld = &rec->fields[i];
        const void *a = results_schema_cat(fld, want), *b = results_schema_cat(fld, got);
        const char *sa = NULL, *sb = NULL;
        switch (fld->type) {
        case PX_RF_OWN:
            continue;
        case PX_RF_STR:
            sa = *(char *const *)a, sb = *(char *const *)b;
            break;
        case PX_RF_FIXED:
        case PX_RF_SHA:
            sa = a, sb = b;
            break;
        case PX_RF_INT:
            cr_expect_eq(*(const int *)a, *(const int *)b, "%s.%s: %d, read back %d", where, fld->key,
                         *(const int *)a, *(const int *)b);
            continue;
        case PX_RF_SIZE:
            cr_expect_eq(*(const size_t *)a, *(const size_t *)b, "%s.%s: %zu, read back %zu", where, fld->key,
                         *(const size_t *)a, *(const size_t *)b);
            continue;
        case PX_RF_MS:
        case PX_RF_FIGURE:
            cr_expect_eq(*(const double *)a, *(const double *)b, "%s.%s: %g, read back %g", where, fld->key,
                         *(const double *)a, *(const double *)b);
            continue;
        case PX_RF_ENVVARS:
            cr_expect_null(envrec_diff(a, b), "%s.%s: not read back as written", where, fld->key);
            continue;
        }
        cr_expect(sa && sb && !strcmp(sa, sb), "%s.%s: '%s', read back '%s'", where, fld->key, sa ? sa : "(null)",
                  sb ? sb : "(null)");
    }
}

Test(results_load, every_field_of_the_schema_is_written_and_read_back)
{
    px_fixture *f = fixture(DEMO);
    int idx[] = {0, 1};
    px_results *r = results_new(f, idx, 2);
    cr_assert_not_null(r);
    int seed = 0;
    for (size_t i = 0; i < r->n_envs; i++) {
        px_env_result *e = &r->envs[i];
        e->state = i ? PX_ENV_DOWN : PX_ENV_UP;
        e->down_stage = PX_STAGE_LOAD;
        schema_fill(&px_rs_env, e, seed += 100);
        schema_fill(&px_rs_manifest, e, seed += 100);
        if (e->state == PX_ENV_DOWN)
            schema_fill(&px_rs_down, e, seed += 100);
        for (size_t k = 0; k < r->n_examples; k++) {
            e->ex[k].status = PX_ST_EXCEPTION;
            schema_fill(&px_rs_example, &e->ex[k], seed += 100);
        }
    }
    /* One benchmark; its latencies in the order the reader insists on. */
    px_env_result *e0 = &r->envs[0];
    cr_assert_not_null(e0->bench = calloc(1, sizeof *e0->bench));
    e0->n_bench = 1;
    e0->bench->batch = 1;
    schema_fill(&px_rs_bench, e0->bench, seed += 100);
    e0->bench->min_ms = 0.25;
    /* A merged file's record of its shards. */
    cr_assert_not_null(r->merged_from = calloc(1, sizeof *r->merged_from));
    r->n_merged_from = 1;
    r->merged_from->shard = (px_shard){.index = 0, .count = 2};
    cr_assert_not_null(r->merged_from->file = strdup("shard-0.yaml"));
    schema_fill(&px_rs_merged_from, r->merged_from, seed += 100);

    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/schema.yaml", dir);
    write_ok(r, f, path);
    px_results *back = load_ok(path, f);
    cr_assert_eq(back->n_envs, r->n_envs);
    for (size_t i = 0; i < r->n_envs; i++) {
        const px_env_result *a = &r->envs[i], *b = &back->envs[i];
        schema_expect(&px_rs_env, a, b, a->name);
        schema_expect(&px_rs_manifest, a, b, a->name);
        if (a->state == PX_ENV_DOWN)
            schema_expect(&px_rs_down, a, b, a->name);
        for (size_t k = 0; k < r->n_examples; k++)
            schema_expect(&px_rs_example, &a->ex[k], &b->ex[k], f->examples[k].id);
    }
    cr_assert_eq(back->envs[0].n_bench, 1);
    schema_expect(&px_rs_bench, e0->bench, back->envs[0].bench, "bench");
    cr_assert_eq(back->n_merged_from, 1);
    schema_expect(&px_rs_merged_from, r->merged_from, back->merged_from, "merged_from");
    unlink(path), rmdir(dir);
    free(dir);
    results_free(back);
    results_free(r);
    fixture_free(f);
}

/* Every key a table lists is one the reader accepts and no key twice; every
 * field's format version is one that exists. */
Test(results_load, schema_tables_are_well_formed)
{
    for (size_t t = 0; t < px_rs_count; t++) {
        const px_rrecord *rec = px_rs_all[t];
        for (size_t i = 0; i < rec->n; i++) {
            const px_rfield *fld = &rec->fields[i];
            cr_expect(fld->since >= PX_RESULTS_OLDEST && fld->since <= PX_RESULTS_VERSION, "%s.%s: format %d",
                      rec->name, fld->key, fld->since);
            cr_expect_eq(results_schema_field(rec, fld->key), fld, "%s.%s is listed twice", rec->name, fld->key);
            cr_expect(fld->type == PX_RF_OWN || rec->base != PX_RB_NONE, "%s.%s has no struct to be in", rec->name,
                      fld->key);
            cr_expect(!fld->gate || results_schema_field(rec, fld->gate), "%s.%s: gate %s is not a field",
                      rec->name, fld->key, fld->gate);
        }
    }
}

/* ---- an image's results (kind image, format 7) ---- */

#define IMAGE_FIXTURE "tests/data/image/shapes.yaml"

/* Results of the image fixture as a run makes them: red-circle drew a
 * 32x24x3 picture (a NaN and an infinity among its values, which must
 * survive the file) with 5 recorded latents of [1, 4, 2, 3]; dragon was
 * rejected; square never ran. */
static px_results *image_results(const px_fixture *f)
{
    int envs[] = {0};
    px_results *r = results_new(f, envs, 1);
    cr_assert_not_null(r);
    px_env_result *e = &r->envs[0];
    e->state = PX_ENV_UP;
    e->m.dtype = strdup("float32"), e->m.device = strdup("cpu");
    px_example_result *x = &e->ex[0];
    x->status = PX_ST_OK;
    x->dtype = results_dtype("float32");
    x->ndim = 4;
    x->shape[0] = 1, x->shape[1] = 32, x->shape[2] = 24, x->shape[3] = 3;
    x->n_values = 32 * 24 * 3;
    x->values = malloc(x->n_values * sizeof *x->values);
    for (size_t i = 0; i < x->n_values; i++)
        x->values[i] = (double)((i * 37) % 256) / 255.0 + 1e-9 * (double)i;
    x->values[5] = NAN, x->values[6] = INFINITY;
    x->forward_ms = 12.5;
    px_image_out *im = x->img = calloc(1, sizeof *im);
    memset(im->noise_sha256, 'a', 64);
    im->latent_shape[0] = 1, im->latent_shape[1] = 4, im->latent_shape[2] = 2, im->latent_shape[3] = 3;
    im->latent_count = 24, im->steps = 20, im->first_ms = 3.25, im->n_steps = 5;
    im->step = malloc(5 * sizeof *im->step);
    im->latents = malloc(5 * 24 * sizeof *im->latents);
    for (int s = 0; s < 5; s++) {
        im->step[s] = s == 4 ? 19 : 4 * s + 4;
        for (int i = 0; i < 24; i++)
            im->latents[s * 24 + i] = (s - 2) * 0.1 + i / 3.0;
    }
    px_example_result *d = &e->ex[2];
    d->status = PX_ST_REJECTED;
    d->detail = strdup("class 'dragon' is not in contract.labels (circle, square, triangle)");
    return r;
}

Test(results_load, an_image_round_trips_exactly)
{
    px_fixture *f = fixture(IMAGE_FIXTURE);
    px_results *r = image_results(f);
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/image.yaml", dir);
    snprintf(b, sizeof b, "%s/again.yaml", dir);
    write_ok(r, f, a);
    char *text = tl_slurp(a);
    cr_expect(strstr(text, "\nparity_results: 7\nkind: image\n"), "%.200s", text);
    cr_expect(strstr(text, "          shape: [1, 32, 24, 3]\n"));
    cr_expect(strstr(text, "            - step: 19\n"));
    px_results *back = load_ok(a, f);
    const px_example_result *x = ex(back, f, "reference", "red-circle"), *w = &r->envs[0].ex[0];
    cr_assert_eq(x->status, PX_ST_OK);
    cr_assert_eq(x->n_values, w->n_values);
    cr_expect(isnan(x->values[5]) && isinf(x->values[6]) && x->values[6] > 0, "non-finite values survive");
    for (size_t i = 0; i < x->n_values; i++)
        if (i != 5)
            cr_assert_eq(x->values[i], w->values[i], "value %zu", i);
    cr_assert_not_null(x->img);
    cr_expect_str_eq(x->img->noise_sha256, w->img->noise_sha256);
    cr_expect_eq(x->img->steps, 20);
    cr_expect_eq(x->img->first_ms, 3.25);
    cr_expect_eq(x->img->latent_count, 24);
    cr_expect_eq(x->img->latent_shape[1], 4);
    cr_assert_eq(x->img->n_steps, 5);
    cr_expect_eq(x->img->step[4], 19);
    for (size_t i = 0; i < 5 * 24; i++)
        cr_assert_eq(x->img->latents[i], w->img->latents[i], "latent value %zu", i);
    cr_expect_eq(ex(back, f, "reference", "dragon")->status, PX_ST_REJECTED);
    cr_expect(ex(back, f, "reference", "square")->status != PX_ST_OK && !ex(back, f, "reference", "square")->img);
    /* and the hash a reviewer's decision pins covers the latents */
    char h1[PX_SHA256_HEX], h2[PX_SHA256_HEX];
    results_example_sha256(&back->envs[0], x, "red-circle", h1);
    ((px_example_result *)x)->img->latents[7] += 1e-6;
    results_example_sha256(&back->envs[0], x, "red-circle", h2);
    cr_expect_str_neq(h1, h2, "a latent's change changes the example's hash");
    ((px_example_result *)x)->img->latents[7] -= 1e-6;
    write_ok(back, f, b);
    expect_same_file(a, b);
    results_free(back);
    results_free(r);
    unlink(a), unlink(b), rmdir(dir);
    free(dir), free(text);
    fixture_free(f);
}

/* The written file, with `from` replaced by `to`, refused at line:col. */
static void expect_image_error(const char *text, const char *from, const char *to, int line, int col,
                               const char *needle)
{
    px_fixture *f = fixture(IMAGE_FIXTURE);
    cr_assert(strstr(text, from), "test bug: '%s' not in the file", from);
    char *bad = tl_replace_all(text, from, to);
    px_error err = {0};
    px_results *r = results_parse("r.yaml", bad, strlen(bad), f, &err);
    cr_expect_null(r, "loaded with '%s'", to);
    results_free(r);
    cr_expect_eq(err.line, line, "line %d:%d, wanted %d (%s)", err.line, err.col, line, err.msg);
    if (col)
        cr_expect_eq(err.col, col, "col %d, wanted %d (%s)", err.col, col, err.msg);
    cr_expect(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
    free(bad);
    fixture_free(f);
}

/* The line (1-based) of the first occurrence of s in text. */
static int line_of(const char *text, const char *s)
{
    const char *at = strstr(text, s);
    cr_assert(at, "'%s'", s);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

Test(results_load, an_image_is_read_strictly)
{
    px_fixture *f = fixture(IMAGE_FIXTURE);
    px_results *r = image_results(f);
    char *dir = tl_tmpdir(), a[300];
    snprintf(a, sizeof a, "%s/image.yaml", dir);
    write_ok(r, f, a);
    char *t = tl_slurp(a);
    int img = line_of(t, "        image:\n") + 1, noise = line_of(t, "noise_sha256:"), steps = line_of(t, "          steps: 20"),
        shape = line_of(t, "latent_shape:"), s19 = line_of(t, "- step: 19");
    expect_image_error(t, "          steps: 20\n", "          steps: 20\n          zzz: 1\n", steps + 1, 11,
                       "unknown key 'zzz'");
    expect_image_error(t, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaag", noise, 25, "64 hex digits");
    expect_image_error(t, "- step: 19", "- step: 8", s19, 21, "the steps must ascend");
    expect_image_error(t, "- step: 19", "- step: 20", s19, 21, "between 0 and 19");
    expect_image_error(t, "latent_shape: [1, 4, 2, 3]", "latent_shape: [1, 4, 2, 4]", line_of(t, "- step: 4") + 1, 23,
                       "step 4 has 24 values; latent_shape holds 32");
    expect_image_error(t, "latent_shape: [1, 4, 2, 3]", "latent_shape: [2, 4, 2, 3]", shape, 26, "between 1 and 1");
    expect_image_error(t, "latent_shape: [1, 4, 2, 3]", "latent_shape: [1, 4096, 4096, 1]", shape, 25,
                       "more than 65536 values");
    expect_image_error(t, "          shape: [1, 32, 24, 3]", "          shape: [1, 24, 32, 3]",
                       line_of(t, "shape: [1, 32"), 18, "not [1, 32, 24, 3] (contract.image)");
    expect_image_error(t, "parity_results: 7\nkind: image", "parity_results: 6\nkind: image", 4, 7,
                       "kind: image is written from format 7 on, this file says 6");
    expect_image_error(t, "\nkind: image\n", "\n", 3, 17, "no kind: image");
    expect_image_error(t, "kind: image", "kind: embedding", 4, 7, "an embedding's results (kind: embedding)");
    expect_image_error(t, "kind: image", "kind: imagery", 4, 7, "not a kind a results file says");
    /* an ok outcome needs its image: record; an image: needs its output */
    int out = line_of(t, "        output:\n");
    char *cut = strdup(t);
    char *from = strstr(cut, "        image:\n"), *to = strstr(from, "        label:");
    memmove(from, to, strlen(to) + 1);
    expect_image_error(cut, "        label: null\n        forward_ms: 12.5", "        label: null\n        forward_ms: 12.5",
                       line_of(t, "- id: \"red-circle\""), 9, "outcome ok needs its image: record");
    free(cut);
    cut = strdup(t);
    from = strstr(cut, "        output:\n"), to = strstr(from, "        image:");
    memmove(from, to, strlen(to) + 1);
    expect_image_error(cut, "        image:\n", "        image:\n", out + 1, 11, "image without its output");
    free(cut);
    (void)img;
    results_free(r);
    unlink(a), rmdir(dir);
    free(dir), free(t);
    fixture_free(f);
}

Test(results_load, latents_past_the_bound_are_refused_before_they_are_read)
{
    px_fixture *f = fixture(IMAGE_FIXTURE);
    px_results *r = image_results(f);
    char *dir = tl_tmpdir(), a[300];
    snprintf(a, sizeof a, "%s/image.yaml", dir);
    write_ok(r, f, a);
    char *t = tl_slurp(a);
    /* 257 latents of no values each, after a shape of one value */
    char *many = malloc(257 * 40 + 64), *p = many;
    p += sprintf(p, "          latents:\n");
    for (int s = 0; s < PX_IMAGE_MAX_RECORDED + 1; s++)
        p += sprintf(p, "            - {step: %d, values: [0]}\n", s);
    char *head = strdup(t), *at = strstr(head, "          latents:\n"), *end = strstr(at, "        label:");
    size_t n = strlen(head) + strlen(many) + 1;
    char *bad = malloc(n);
    snprintf(bad, n, "%.*s%s%s", (int)(at - head), head, many, end);
    char *bad2 = tl_replace_all(bad, "latent_shape: [1, 4, 2, 3]", "latent_shape: [1, 1, 1, 1]");
    char *bad3 = tl_replace_all(bad2, "          steps: 20", "          steps: 1000");
    px_error err = {0};
    px_results *got = results_parse("r.yaml", bad3, strlen(bad3), f, &err);
    cr_expect_null(got);
    cr_expect(strstr(err.msg, "257 latents; at most 256"), "%s", err.msg);
    cr_expect_eq(err.line, line_of(bad3, "          latents:\n") + 1, "%d: %s", err.line, err.msg);
    results_free(got);
    free(many), free(head), free(bad), free(bad2), free(bad3), free(t);
    results_free(r);
    unlink(a), rmdir(dir), free(dir);
    fixture_free(f);
}

/* A file recorded under another image contract (contract.image's steps,
 * compare.latents' tolerance) is warned about, part by part. */
Test(results_load, an_image_recorded_under_another_contract_is_warned_about)
{
    px_fixture *f = fixture(IMAGE_FIXTURE);
    px_results *r = image_results(f);
    char *dir = tl_tmpdir(), a[300];
    snprintf(a, sizeof a, "%s/image.yaml", dir);
    write_ok(r, f, a);
    char *text = tl_slurp(IMAGE_FIXTURE);
    char *v = tl_replace_all(text, "    steps: 20\n", "    steps: 25\n");
    char *w = tl_replace_all(v, "{atol: 0.02, rtol: 0.02,", "{atol: 0.05, rtol: 0.02,");
    px_error err = {0};
    px_fixture *g = fixture_parse(IMAGE_FIXTURE, w, strlen(w), &err);
    cr_assert_not_null(g, "%s", err.msg);
    px_results *back = load_ok(a, g);
    int input = 0, compare = 0;
    for (size_t i = 0; i < back->n_warnings; i++)
        input |= strstr(back->warnings[i], "contract.image") != NULL,
            compare |= strstr(back->warnings[i], "compare") != NULL;
    cr_expect(input && compare, "%zu warnings: %s", back->n_warnings, back->n_warnings ? back->warnings[0] : "");
    results_free(back);
    fixture_free(g);
    px_results *same = load_ok(a, f);
    cr_expect_eq(same->n_warnings, 0, "%s", same->n_warnings ? same->warnings[0] : "");
    results_free(same);
    results_free(r);
    unlink(a), rmdir(dir);
    free(dir), free(text), free(v), free(w);
    fixture_free(f);
}
