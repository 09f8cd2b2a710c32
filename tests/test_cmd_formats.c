/* The model formats a torch-2 user has (issue 25, item 2), through the real
 * parity binary: fixtures/bert-formats judges one BERT-family classifier as
 * a Transformers directory (the reference), a TorchScript trace (the Python
 * executor and parity-torch) and a torch.export program; they agree bit for
 * bit where they run the same graph and within the contract's tolerance of
 * the eager directory. On torch 1.13 the same fixture is down at load, in
 * words that say which torch is needed. Then what needs no torch: a wrong
 * pin of one file of the directory and a file no pin names refuse the run
 * and lint names them; an export model with executor libtorch is refused by
 * lint at its line and by run before anything starts. And inputs by name:
 * a model whose forward takes token_type_ids (tests/models/segments.pt, in
 * an order of its own) runs without contract.model.inputs, and init
 * --propose proposes from it. Runs in make check's torch 2.13 pass too
 * (TORCH2_SUITES). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

#define PY tl_python()
#define OWNNAMES_PIN "9871f0495f6587b704484585cc1ada42f7ecc07558999b115e1fc69eb09b2aa7"
#define SEGMENTS_PIN "ecc2a71cd982b7dcc88f39e63a4cb951aaedac20445c1396fba1c8baa3441b4d"
#define FORMATS "fixtures/bert-formats/fixture.yaml"
#define TPU_FORMATS "fixtures/bert-formats/tpu.yaml"
#define SAFETENSORS_PIN "13b060c727ff4e4d1cb4a32e12563c3ec5376be7c40c19d9645180d6a0a11a0e"

static char made[8][200];

static void remove_made(void)
{
    for (int i = 0; i < 8; i++)
        if (made[i][0])
            tl_unlink_fixture(made[i]);
}

/* made[slot] as dir/.formats-PID-SLOT.yaml, removed when the test ends
 * (a failed assertion ends it too). */
static const char *made_in(int slot, const char *dir, int len)
{
    static int registered;
    if (!registered++)
        atexit(remove_made);
    snprintf(made[slot], sizeof made[slot], "%.*s/.formats-%d-%d.yaml", len, dir, (int)getpid(), slot);
    return made[slot];
}

/* A copy of src beside it (its relative paths keep working) with the given
 * rewrites (from, to, ..., NULL), removed when the test ends. */
static const char *variant(int slot, const char *src, const char *const *pairs)
{
    const char *slash = strrchr(src, '/');
    made_in(slot, src, (int)(slash - src));
    char *text = tl_slurp(src);
    cr_assert_not_null(text, "%s", src);
    for (int i = 0; pairs && pairs[i]; i += 2) {
        cr_assert_not_null(strstr(text, pairs[i]), "%s has no '%s'", src, pairs[i]);
        char *next = tl_replace_all(text, pairs[i], pairs[i + 1]);
        free(text);
        text = next;
    }
    tl_write(made[slot], text);
    free(text);
    return made[slot];
}

/* The 1-based line of the first `needle` in the file at path. */
static int line_of(const char *path, const char *needle)
{
    char *text = tl_slurp(path);
    char *at = text ? strstr(text, needle) : NULL;
    cr_assert_not_null(at, "%s has no '%s'", path, needle);
    int line = 1;
    for (char *p = text; p < at; p++)
        line += *p == '\n';
    free(text);
    return line;
}

static int torch2(void) { return tl_torch_version()[0] >= '2'; }

static const px_env_result *env_named(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment '%s' in the results", name);
    return NULL;
}

/* Bit for bit: the same values, compared as bytes (NaN and -0 included). */
static void expect_identical(const px_fixture *f, const px_env_result *a, const px_env_result *b)
{
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_example_result *x = &a->ex[k], *y = &b->ex[k];
        cr_expect_eq(x->status, y->status, "%s: %s vs %s", f->examples[k].id, a->name, b->name);
        if (x->status != PX_ST_OK)
            continue;
        cr_assert_eq(x->n_values, y->n_values);
        cr_expect_eq(memcmp(x->values, y->values, x->n_values * sizeof *x->values), 0,
                     "%s: %s and %s are not bit for bit the same", f->examples[k].id, a->name, b->name);
    }
}

static double max_diff(const px_fixture *f, const px_env_result *a, const px_env_result *b)
{
    double worst = 0;
    for (size_t k = 0; k < f->n_examples; k++)
        for (size_t i = 0; a->ex[k].status == PX_ST_OK && i < a->ex[k].n_values; i++)
            worst = fmax(worst, fabs(a->ex[k].values[i] - b->ex[k].values[i]));
    return worst;
}

/* The three formats as four environments: run, then check. On torch 2:
 * every one meets the contract; torchscript, export and
 * torchscript-libtorch bit for bit alike (the same traced graph of the
 * same aten operators, one thread); each within the contract's 1e-5 of the
 * eager directory. On torch 1.13: the directory and the program are down
 * at load, saying which torch and package they need. */
Test(formats, three_formats_judged_as_three_environments, .timeout = 600)
{
    const char *fx = variant(0, FORMATS, NULL);
    char *dir = tl_tmpdir(), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "--python", PY, "-o", out, NULL});
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s\n%s\n%s", err.msg, r.out, r.err);
    const px_env_result *ref = env_named(res, "reference"), *ts = env_named(res, "torchscript"),
                        *ex = env_named(res, "export"), *lib = env_named(res, "torchscript-libtorch");
    if (!torch2()) {
        cr_expect_neq(r.status, 0);
        cr_expect_eq(ref->state, PX_ENV_DOWN);
        cr_expect_eq(ref->down_stage, PX_STAGE_LOAD);
        cr_expect(ref->down_msg && strstr(ref->down_msg, "format transformers needs torch 2"), "%s", ref->down_msg);
        cr_expect_eq(ex->state, PX_ENV_DOWN);
        cr_expect(ex->down_msg && strstr(ex->down_msg, "format export (a torch.export program) needs torch 2.1"),
                  "%s", ex->down_msg);
        goto done;
    }
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    expect_identical(f, ts, ex);
    expect_identical(f, ts, lib);
    double d = max_diff(f, ref, ts);
    cr_expect(d <= 1e-5, "torchscript is %g from the directory, beyond the contract's 1e-5", d);
    fprintf(stderr, "formats: largest |logit difference| from the Transformers directory: %.3g\n", d);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--no-run", "--results", out, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "contract met in every selected environment"), "%s", r.out);
    cr_expect(strstr(r.out, "export (candidate) cpu float32 from"), "%s", r.out);
    cr_expect(!strstr(r.out, "a different task"), "a converted model is the contract's: %s", r.out);
    /* A repro carries the directory, file by file, and judges as recorded. */
    tl_free(&r);
    char repro[400], file[500];
    snprintf(repro, sizeof repro, "%s/repro", dir);
    r = tl_run((const char *[]){"parity", "repro", fx, "film-night", "-e", "export", "--results", out, "-o", repro,
                                NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    static const char *const carried[] = {"bert/config.json", "bert/model.safetensors", "bert/tokenizer.json",
                                          "models/export-model.pt2"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(file, sizeof file, "%s/%s", repro, carried[i]);
        cr_expect_eq(access(file, R_OK), 0, "the repro lacks %s", carried[i]);
    }
    tl_free(&r);
    r = tl_run_in(repro, (const char *[]){"parity", "check", "fixture.yaml", "--results", "reference.yaml", "--results",
                                          "observed.yaml", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    char rm[500];
    snprintf(rm, sizeof rm, "rm -rf '%s'", repro);
    cr_expect_eq(system(rm), 0);
done:
    tl_free(&r);
    results_free(res);
    fixture_free(f);
    unlink(out), rmdir(dir), free(dir);
}

/* A pin of one file of the directory that is not its sha256: the run is
 * refused at that pin's line, naming the file, before anything starts; lint
 * says the same at the same place. */
Test(formats, a_wrong_pin_of_one_file_is_refused_naming_it, .timeout = 60)
{
    const char *wrong = "\"0000000000000000000000000000000000000000000000000000000000000000\"";
    const char *fx = variant(1, FORMATS, (const char *[]){"\"" SAFETENSORS_PIN "\"", wrong, NULL});
    int line = line_of(fx, "model.safetensors: ");
    char at[64];
    snprintf(at, sizeof at, ":%d:26: ", line);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "--python", PY, "-o", "/dev/null", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, at) && strstr(r.err, "bert/model.safetensors has sha256 13b060c727ff"), "%s", r.err);
    cr_expect(strstr(r.err, "not the pinned 000000000000"), "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, at) && strstr(r.out, "lint: model file") && strstr(r.out, "model.safetensors"), "%s",
              r.out);
    tl_free(&r);
}

/* A file in the directory that no pin names (a vocab.txt beside the
 * tokenizer.json: Transformers may read it) refuses the run at files:,
 * naming it; lint says the same. */
Test(formats, a_file_no_pin_names_is_refused, .timeout = 60)
{
    char *dir = tl_tmpdir(), cmd[1024], bert[300];
    snprintf(bert, sizeof bert, "%s/bert", dir);
    snprintf(cmd, sizeof cmd, "cp -r fixtures/bert-formats/bert '%s' && echo '[PAD]' > '%s/vocab.txt'", dir, bert);
    cr_assert_eq(system(cmd), 0);
    const char *fx = variant(2, FORMATS, (const char *[]){"    path: bert\n", "    path: BERT\n", NULL});
    char *text = tl_slurp(fx), *next = tl_replace_all(text, "BERT", bert);
    tl_write(fx, next);
    free(text), free(next);
    int line = line_of(fx, "    files:");
    char at[64];
    snprintf(at, sizeof at, ":%d:7: ", line + 1);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "--python", PY, "-o", "/dev/null", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, at) && strstr(r.err, "holds vocab.txt, which no pin in files: names"), "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, at) && strstr(r.out, "vocab.txt"), "%s", r.out);
    tl_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* A model directory that moved (issue 38, item 9): run refuses it, and
 * lint names it, at the model's path: value, the one thing to correct, not
 * at a line inside files: (where run used to point). */
Test(formats, a_moved_directory_is_said_at_path, .timeout = 60)
{
    const char *fx = variant(7, FORMATS, (const char *[]){"    path: bert\n", "    path: moved-bert\n", NULL});
    char at[64];
    snprintf(at, sizeof at, ":%d:11: model directory ", line_of(fx, "    path: moved-bert"));
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "--python", PY, "-o", "/dev/null", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, at) && strstr(r.err, "moved-bert: No such file or directory: correct path:"), "%s",
              r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--python", PY, NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, at), "%s", r.err);
    tl_free(&r);
    snprintf(at, sizeof at, ":%d:11: lint: model directory ", line_of(fx, "    path: moved-bert"));
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, at), "%s", r.out);
    tl_free(&r);
}

/* parity-torch loads TorchScript only: an environment that would run the
 * export program with executor libtorch is named by lint at its line, and
 * run refuses it before starting any executor. */
Test(formats, an_export_model_with_executor_libtorch_is_refused, .timeout = 60)
{
    const char *fx = variant(3, FORMATS,
                             (const char *[]){"  export:\n    executor: python\n", "  export:\n    executor: libtorch\n",
                                              NULL});
    int line = line_of(fx, "    executor: libtorch") , fmt = line_of(fx, "      format: export");
    char at[64], what[200];
    snprintf(at, sizeof at, "%s:%d:15: lint: ", fx, line);
    snprintf(what, sizeof what,
             "environment 'export' would run a torch.export program (format: export, line %d) with executor "
             "libtorch: parity-torch loads TorchScript only; use executor: python",
             fmt);
    cmd_result r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, at) && strstr(r.out, what), "%s", r.out);
    cr_expect_eq(tl_lines(r.out), 1, "one finding: %s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "run", fx, "--python", PY, "-o", "/dev/null", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, what), "%s", r.err);
    cr_expect(!strstr(r.out, "reference"), "nothing started: %s", r.out);
    tl_free(&r);
}

/* A model whose forward takes token_type_ids, in an order of its own
 * (segments.pt raises unless each argument is what its name says), runs
 * without contract.model.inputs through both executors, alike bit for bit;
 * listing only input_ids and attention_mask fails it in the model's own
 * words. */
#define SEGMENTS                                                                                                        \
    "parity: 1\n"                                                                                                      \
    "contract:\n"                                                                                                      \
    "  task: t\n"                                                                                                      \
    "  model: {path: ../models/segments.pt, sha256: \"%s\"}\n"                                                                         \
    "  input:\n"                                                                                                       \
    "    tokenizer: {kind: wordpiece, vocab: ../../fixtures/campus-club/vocab.txt}\n"                                   \
    "    max_tokens: 128\n"                                                                                            \
    "  labels: [film, volunteer, sports, music, social]\n"                                                             \
    "environments:\n"                                                                                                  \
    "  reference: {device: cpu, role: reference}\n"                                                                   \
    "  python: {device: cpu, executor: python}\n"                                                                      \
    "examples:\n"                                                                                                      \
    "  - {id: one, kind: normal, text: Film night on Friday, expect: {any_of: [film, sports]}, why: w}\n"                                                \
    "  - {id: two, kind: short, text: Tryouts, expect: {any_of: [film, sports]}, why: w}\n"

Test(formats, a_model_taking_token_type_ids_runs_without_inputs, .timeout = 180)
{
    const char *path = made_in(5, "tests/data", 10);
    char *text = tl_replace_all(SEGMENTS, "%s", SEGMENTS_PIN);
    tl_write(path, text);
    char *dir = tl_tmpdir(), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", path, "-q", "--python", PY, "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s", err.msg);
    for (size_t e = 0; e < 2; e++)
        for (size_t k = 0; k < 2; k++)
            cr_expect_eq(res->envs[e].ex[k].status, PX_ST_OK, "%s %s: %s", res->envs[e].name, f->examples[k].id,
                         res->envs[e].ex[k].detail ? res->envs[e].ex[k].detail : "");
    expect_identical(f, &res->envs[0], &res->envs[1]);
    results_free(res);
    fixture_free(f);
    /* Listed without it: the forward is missing an argument. */
    char *listed = tl_replace_all(text, "\"}\n", "\", inputs: [input_ids, attention_mask]}\n");
    free(text);
    tl_write(path, listed);
    free(listed);
    r = tl_run((const char *[]){"parity", "run", path, "-q", "--python", PY, "-o", out, "-e", "reference", NULL});
    tl_free(&r);
    text = tl_slurp(out);
    cr_expect(text && strstr(text, "outcome: \"exception\"") && strstr(text, "token_type_ids"), "%s", text);
    free(text);
    /* A forward with names of its own, forward(ids, mask): in order, as
     * before names were read, token_type_ids left out. */
    char *own = tl_replace_all(SEGMENTS, "segments.pt", "ownnames.pt");
    text = tl_replace_all(own, "%s", OWNNAMES_PIN);
    tl_write(path, text);
    free(own), free(text);
    r = tl_run((const char *[]){"parity", "run", path, "-q", "--python", PY, "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s", err.msg);
    for (size_t e = 0; e < 2; e++)
        for (size_t k = 0; k < 2; k++)
            cr_expect_eq(res->envs[e].ex[k].status, PX_ST_OK, "ownnames %s %s: %s", res->envs[e].name,
                         f->examples[k].id, res->envs[e].ex[k].detail ? res->envs[e].ex[k].detail : "");
    expect_identical(f, &res->envs[0], &res->envs[1]);
    results_free(res);
    fixture_free(f);
    tl_unlink_fixture(path);
    unlink(out), rmdir(dir), free(dir);
}

/* init --propose on that model: the fixture it writes lists the three inputs, and
 * the reference's answer is proposed for every example (it proposed
 * nothing, silently, when every forward lacked token_type_ids). */
Test(formats, init_propose_works_on_a_model_taking_token_type_ids, .timeout = 180)
{
    char *dir = tl_tmpdir(), target[300], fx[320];
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", target);
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", "tests/models/segments.pt", "--vocab",
                                           "fixtures/campus-club/vocab.txt", "--labels",
                                           "film,volunteer,sports,music,social", "--propose", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.err, "no proposal"), "%s", r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_expect(!f->inputs_auto && f->n_inputs == 3 && !strcmp(f->inputs[1], "token_type_ids"),
              "init lists the inputs the forward's signature names, in its order");
    size_t proposed = 0;
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_expect *x = &f->examples[k].expect;
        proposed += x->kind == PX_EXPECT_LABEL || x->kind == PX_EXPECT_REJECTED;
    }
    cr_expect_eq(proposed, f->n_examples, "%zu of %zu examples proposed", proposed, f->n_examples);
    fixture_free(f);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* ---- the README's recipe, "Your own Transformers model", run as written ---- */

/* The section's indented blocks (4 spaces, blank lines inside kept), each
 * without its indentation; n gets how many. */
static char **readme_blocks(const char *title, int *n)
{
    char *text = tl_slurp("README.md");
    cr_assert_not_null(text);
    char *start = strstr(text, title);
    cr_assert_not_null(start, "README.md has no '%s'", title);
    start += strlen(title);
    char *end = strstr(start, "\n## ");
    if (end)
        *end = '\0';
    char **blocks = calloc(16, sizeof *blocks);
    *n = 0;
    size_t cap = strlen(start) + 1;
    int in = 0;
    for (char *line = start, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        int code = !strncmp(line, "    ", 4), blank = !*line;
        if (code && !in) {
            cr_assert_lt(*n, 15);
            blocks[(*n)++] = calloc(cap, 1);
            in = 1;
        }
        if (in && (code || blank)) {
            strcat(blocks[*n - 1], code ? line + 4 : "");
            strcat(blocks[*n - 1], "\n");
        } else if (!code && !blank) {
            in = 0;
        }
    }
    free(text);
    return blocks;
}

/* sh -c cmd in dir with this build's parity first on PATH and no hub;
 * the exit status, the output in *out. */
static int sh_in(const char *dir, const char *cmd, char **out)
{
    char log[400], script[400], line[8192];
    snprintf(log, sizeof log, "%s/.log", dir);
    snprintf(script, sizeof script, "%s/.cmd.sh", dir);
    tl_write(script, cmd);
    char bin[4096];
    snprintf(bin, sizeof bin, "%s", tl_parity());
    char *slash = strrchr(bin, '/');
    if (slash)
        *slash = '\0';
    snprintf(line, sizeof line, "cd '%s' && PATH='%s':\"$PATH\" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 sh .cmd.sh > .log 2>&1",
             dir, bin);
    int st = system(line);
    *out = tl_slurp(log);
    unlink(log), unlink(script);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The sha256 sha256sum printed for name ("" when none). */
static const char *printed_sum(const char *sums, const char *name)
{
    static char hex[65];
    hex[0] = '\0';
    for (const char *p = sums; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len == 66 + strlen(name) && !strncmp(p + 66, name, strlen(name)))
            memcpy(hex, p, 64), hex[64] = '\0';
        p = eol ? eol + 1 : NULL;
    }
    return hex;
}

/* tl_python() usable from another directory (not resolved: a venv's
 * python is a link that must stay one). */
static const char *python_abs(void)
{
    static char abs[4096];
    const char *py = tl_python();
    if (py[0] == '/' || !strchr(py, '/'))
        return py;
    char here[2048];
    cr_assert_not_null(getcwd(here, sizeof here));
    snprintf(abs, sizeof abs, "%s/%s", here, py);
    return abs;
}

/* Every step of the recipe as a reader does it, in a fresh directory: the
 * Python that saves the model (the checkpoint: fixtures/bert-formats/bert),
 * sha256sum, the fixture with the printed sums put in, then lint, run and
 * check, each exiting 0. Torch 2 with transformers only. */
Test(formats, the_readme_recipe_for_your_own_transformers_model_runs_as_written, .timeout = 600)
{
    if (!torch2())
        cr_skip_test("the recipe needs torch 2 and transformers; %s has torch %s", PY, tl_torch_version());
    int n;
    char **b = readme_blocks("## Your own Transformers model\n", &n);
    cr_assert_eq(n, 4, "the recipe's blocks: Python, sha256sum, the fixture, the commands (%d)", n);
    cr_assert(strstr(b[0], "save_pretrained(\"mytask/model\")"), "%s", b[0]);
    cr_assert(!strncmp(b[1], "cd mytask/model && sha256sum *", 30), "%s", b[1]);
    char *dir = tl_tmpdir(), ckpt[4096], *out = NULL;
    cr_assert_not_null(realpath("fixtures/bert-formats/bert", ckpt));
    /* 1. Save it. */
    char *py = tl_replace_all(b[0], "path/to/your/checkpoint", ckpt), path[400], cmd[8192];
    snprintf(path, sizeof path, "%s/save.py", dir);
    tl_write(path, py);
    snprintf(cmd, sizeof cmd, "'%s' save.py", python_abs());
    int st = sh_in(dir, cmd, &out);
    cr_assert_eq(st, 0, "%s", out);
    free(out), free(py);
    /* 2. Pin it. */
    st = sh_in(dir, b[1], &out);
    cr_assert_eq(st, 0, "%s", out);
    char *sums = out;
    /* 3. The fixture, each "SHA256" the sum printed for its file. */
    char *fx = strdup(b[2]);
    static const char *const files[] = {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"};
    for (size_t i = 0; i < 4; i++) {
        char from[80], to[160];
        snprintf(from, sizeof from, " %s: \"SHA256\"", files[i]);
        cr_assert(*printed_sum(sums, files[i]), "sha256sum printed no %s:\n%s", files[i], sums);
        snprintf(to, sizeof to, " %s: \"%s\"", files[i], printed_sum(sums, files[i]));
        char *next = tl_replace_all(fx, from, to);
        cr_assert(strcmp(next, fx), "the fixture has no '%s'", from);
        free(fx), fx = next;
    }
    char *next = tl_replace_all(fx, "sha256: \"SHA256\"", "sha256: \"TOKENIZER\"");
    free(fx), fx = tl_replace_all(next, "TOKENIZER", printed_sum(sums, "tokenizer.json"));
    free(next), free(sums);
    cr_assert_null(strstr(fx, "SHA256"), "a sum left to fill: %s", fx);
    snprintf(path, sizeof path, "%s/mytask/fixture.yaml", dir);
    tl_write(path, fx);
    free(fx);
    /* 4. Lint, run, check, as printed (the venv's interpreter: this pass's). */
    char *cmds = tl_replace_all(b[3], "build/venv/bin/python", python_abs());
    int ran = 0;
    for (char *line = strtok(cmds, "\n"); line; line = strtok(NULL, "\n")) {
        if (!*line)
            continue;
        cr_assert(!strncmp(line, "parity ", 7), "%s", line);
        st = sh_in(dir, line, &out);
        cr_expect_eq(st, 0, "`%s`: exit %d\n%s", line, st, out);
        if (!strncmp(line, "parity check", 12))
            cr_expect(strstr(out, "contract met in every selected environment"), "%s", out);
        free(out);
        ran++;
    }
    cr_expect_eq(ran, 3, "lint, run, check");
    free(cmds);
    for (int i = 0; i < n; i++)
        free(b[i]);
    free(b);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* init --model DIR: a Transformers model directory is written as one
 * (format: transformers, every file pinned, the environments on the Python
 * executor), loads, and lint finds nothing about the model; with --propose
 * on torch 2 the reference's answers are proposed. */
Test(formats, init_writes_a_transformers_directory_pinned_file_by_file, .timeout = 300)
{
    char *dir = tl_tmpdir(), target[300], fx[320];
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", target);
    const char *argv[] = {"parity", "init", target, "--model", "fixtures/bert-formats/bert", "--tokenizer",
                          "fixtures/bert-formats/bert/tokenizer.json", "--labels", "film,volunteer,sports,music,social",
                          torch2() ? "--propose" : NULL, NULL};
    cmd_result r = tl_run(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.err, "gave no label"), "%s", r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_expect_eq(f->model_format, PX_FORMAT_TRANSFORMERS);
    cr_expect_eq(f->n_model_files, 3);
    /* Its positions, from DESCRIBE or (no executor here loads it) its config.json. */
    cr_expect_eq(f->max_tokens, 128, "max_tokens %zu", f->max_tokens);
    px_fixture *g = fixture_load(FORMATS, &err);
    cr_assert_not_null(g, "%s", err.msg);
    cr_expect_str_eq(f->model_sha256, g->model_sha256, "the same directory, the same pins");
    fixture_free(g);
    for (size_t i = 0; i < f->n_envs; i++)
        cr_expect(f->envs[i].python, "%s: executor python", f->envs[i].name);
    size_t proposed = 0;
    for (size_t k = 0; k < f->n_examples; k++)
        proposed += f->examples[k].review.note && !strcmp(f->examples[k].review.note, PX_PROPOSAL_NOTE);
    cr_expect_eq(proposed, torch2() ? f->n_examples : 0, "%zu proposed", proposed);
    fixture_free(f);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect(!strstr(r.out, "model") && !strstr(r.out, "executor"), "%s", r.out);
    tl_free(&r);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* A directory without files: is unpinned: lint names it, run refuses it. */
Test(formats, a_directory_without_pins_is_refused, .timeout = 60)
{
    char *text = tl_slurp(FORMATS);
    cr_assert_not_null(text);
    char *files = strstr(text, "    files:\n"), *end = files ? strstr(files, "    # no inputs") : NULL;
    cr_assert(files && end);
    char *cut = malloc(strlen(text) + 1);
    snprintf(cut, strlen(text) + 1, "%.*s%s", (int)(files - text), text, end);
    free(text);
    const char *fx = variant(4, FORMATS, NULL);
    tl_write(fx, cut);
    free(cut);
    cmd_result r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, "contract.model has no files: pin each file of the model directory"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "run", fx, "--python", PY, "-o", "/dev/null", NULL});
    cr_expect_neq(r.status, 0);
    cr_expect(strstr(r.err, "contract.model has no files: (each file's sha256)"), "%s", r.err);
    tl_free(&r);
}

/* The environments a TPU user writes (fixtures/bert-formats/tpu.yaml): the
 * directory, the TorchScript trace and the export program on device: tpu
 * (the test device renamed by --backend-module parity_testdev_tpu, float32),
 * and the directory compiled (aot_eager: torch 2.13's inductor compiles for
 * a device named tpu with its Pallas backend, which needs jax and a real
 * TPU), and the trace in parity-torch too (--backend-lib), judged by
 * parity check against the CPU reference.
 * Each is up, its manifest says tpu, and each meets the contract within its
 * 1e-5: the device's attention is the math path of
 * scaled_dot_product_attention, not the CPU's flash kernel, so not the
 * reference's bits (4.8e-07 at most when measured). The trace (in both
 * executors) and the program run the same aten graph on the device: bit
 * for bit alike. Without
 * move_to_device_pass the program failed every forward ("Tensor device
 * mismatch! Expected: cpu"); without model.pt's device being the inputs'
 * the trace did ("... tpu:0 and cpu!"). Torch 2 only: 1.13 cannot rename
 * PrivateUse1 (test_cmd_testdev.c's a_tpu_takes_torch_2). */
Test(formats, the_three_formats_run_on_device_tpu_eager_and_compiled, .timeout = 600)
{
    if (!torch2())
        cr_skip_test("torch %s under %s cannot rename PrivateUse1 to tpu: device tpu needs torch 2 "
                     "(run with PARITY_PYTHON=build/venv/bin/python)",
                     tl_torch_version(), PY);
    static char lib[4096];
    const char *testdev = getenv("PARITY_TESTDEV");
    if (!testdev)
        testdev = realpath("build/torch2/libparity_testdev.so", lib);
    cr_assert_not_null(testdev, "build it: make (build/torch2/libparity_testdev.so)");
    setenv("PARITY_TESTDEV", testdev, 1);
    setenv("PARITY_TESTDEV_NUMERICS", "exact", 1);
    setenv("PYTHONPATH", "tests/backend", 1);
    const char *fx = variant(6, TPU_FORMATS, NULL);
    char *dir = tl_tmpdir(), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    setenv("PARITY_TORCH", getenv("PARITY_TORCH") ? getenv("PARITY_TORCH") : "build/torch2/parity-torch", 1);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", "-o", out, "--python", PY, "--backend-module",
                                           "parity_testdev_tpu", "--backend-lib", testdev, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "contract met in every selected environment"), "%s", r.out);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s\n%s\n%s", err.msg, r.out, r.err);
    const px_env_result *ref = env_named(res, "reference");
    cr_expect_str_eq(ref->m.device, "cpu");
    static const char *const tpus[] = {"tpu", "tpu-torchscript", "tpu-export", "tpu-compiled", "tpu-libtorch"};
    for (size_t i = 0; i < 5; i++) {
        const px_env_result *e = env_named(res, tpus[i]);
        cr_assert_eq(e->state, PX_ENV_UP, "%s is down: %s", tpus[i], e->down_msg ? e->down_msg : "");
        cr_expect_str_eq(e->m.device, "tpu", "%s", tpus[i]);
        if (strcmp(tpus[i], "tpu-libtorch"))
            cr_expect_str_eq(e->m.backend_modules, "parity_testdev_tpu", "%s", tpus[i]);
        for (size_t k = 0; k < f->n_examples; k++)
            cr_expect_eq(e->ex[k].status, ref->ex[k].status, "%s %s: %s", tpus[i], f->examples[k].id,
                         e->ex[k].detail ? e->ex[k].detail : "");
        double d = max_diff(f, ref, e);
        cr_expect(d <= 1e-5, "%s is %g from the reference, beyond the contract's 1e-5", tpus[i], d);
        fprintf(stderr, "formats on tpu: %-16s max |logit difference| from the CPU reference %.3g\n", tpus[i], d);
    }
    const px_env_result *compiled = env_named(res, "tpu-compiled");
    cr_expect(compiled->m.compile_backend && !strcmp(compiled->m.compile_backend, "aot_eager"), "%s",
              compiled->m.compile_backend ? compiled->m.compile_backend : "(none)");
    expect_identical(f, env_named(res, "tpu-torchscript"), env_named(res, "tpu-export"));
    expect_identical(f, env_named(res, "tpu-torchscript"), env_named(res, "tpu-libtorch"));
    tl_free(&r);
    results_free(res);
    fixture_free(f);
    unlink(out), rmdir(dir), free(dir);
}

/* Issue 38, item 11: the fixture's tokenizer: file is the model
 * directory's own tokenizer.json; a repro carries the directory and held
 * that file twice (bert/tokenizer.json and tokenizer.json). Now one copy,
 * the repro's fixture names it, and the repro still judges as recorded. */
Test(formats, a_repro_holds_the_model_directorys_tokenizer_once, .timeout = 300)
{
    if (!torch2())
        cr_skip_test("the Transformers directory needs torch 2; %s has torch %s", PY, tl_torch_version());
    char *dir = tl_tmpdir(), out[300], repro[400], file[500];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    snprintf(repro, sizeof repro, "%s/repro", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", FORMATS, "-q", "--python", PY, "-e", "reference", "-e",
                                           "torchscript", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "repro", FORMATS, "film-night", "-e", "torchscript", "--results",
                                out, "-o", repro, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    snprintf(file, sizeof file, "%s/bert/tokenizer.json", repro);
    cr_expect_eq(access(file, R_OK), 0, "the repro lacks bert/tokenizer.json");
    snprintf(file, sizeof file, "%s/tokenizer.json", repro);
    cr_expect_neq(access(file, F_OK), 0, "the repro holds the tokenizer twice: bert/ and %s", file);
    /* SHA256SUMS: no two files of the same bytes. */
    snprintf(file, sizeof file, "%s/SHA256SUMS", repro);
    char *sums = tl_slurp(file);
    cr_assert_not_null(sums, "%s", file);
    for (char *line = sums; *line;) {
        char *end = strchr(line, '\n');
        cr_expect(line[64] == ' ', "%s", line);
        char sha[65];
        memcpy(sha, line, 64), sha[64] = '\0';
        char *again = strstr(end ? end : line, sha);
        cr_expect_null(again, "two files of the same bytes in the repro:\n%s", sums);
        line = end ? end + 1 : line + strlen(line);
    }
    free(sums);
    snprintf(file, sizeof file, "%s/fixture.yaml", repro);
    char *fx = tl_slurp(file);
    cr_expect(fx && strstr(fx, "file: \"bert/tokenizer.json\""), "%s", fx);
    free(fx);
    r = tl_run_in(repro, (const char *[]){"parity", "check", "fixture.yaml", "--results", "reference.yaml", "--results",
                                          "observed.yaml", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    char rm[500];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    cr_expect_eq(system(rm), 0);
    free(dir);
}
