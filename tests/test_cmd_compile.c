/* Compiled environments (issue 25, item 4): an environment's compile:
 * {backend, mode, dynamic} runs the model through torch.compile in the
 * Python executor on torch 2. The demo's compiled twin
 * (fixtures/campus-club/compiled.yaml) holds the demo's contract and is
 * judged with a CPU inductor environment beside the others; the manifest
 * and the last good configuration record the settings; the first forward
 * of each shape compiles and is flagged and timed apart; a bad compile
 * mapping, and compile with the C++ executor, are refused at their line
 * before anything runs; a backend a module registers is chosen only on the
 * command line (tests/backend/parity_compile_backend.py). The runs need
 * torch 2 ($PARITY_PYTHON, make check-torch2); on torch 1.13 they skip and
 * the executor's own refusal is tested instead. */
#define _GNU_SOURCE /* open_memstream */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fingerprint.h"
#include "parity/fixture.h"
#include "parity/fixture_emit.h"
#include "parity/results.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"
#define COMPILED "fixtures/campus-club/compiled.yaml"
#define THE_COMPILE "compile: {backend: inductor, mode: default, dynamic: true}"

static int torch2(void) { return atoi(tl_torch_version()) >= 2; }

#define NEED_TORCH2()                                                                                                 \
    do {                                                                                                              \
        if (!torch2())                                                                                                \
            cr_skip_test("torch.compile needs torch 2: %s has torch %s (make check-torch2 runs this on the venv's)", \
                         tl_python(), tl_torch_version());                                                            \
    } while (0)

/* Replaces the one `from` in s with `to` (malloc'd). */
static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    cr_assert_not_null(at, "no '%s'", from);
    char *out = malloc(strlen(s) - strlen(from) + strlen(to) + 1);
    sprintf(out, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
    return out;
}

/* A private copy of the compiled demo (with its model and vocab, so a
 * check's last good configuration lands there, not in fixtures/), its
 * compile: line replaced by `compile` (NULL: as it is). Returns the
 * fixture's path (static). */
static const char *private_demo(const char *compile)
{
    static char path[PATH_MAX];
    char *dir = tl_tmpdir(), cmd[PATH_MAX + 200];
    snprintf(cmd, sizeof cmd, "cp fixtures/campus-club/model.pt fixtures/campus-club/vocab.txt '%s'/", dir);
    cr_assert_eq(system(cmd), 0);
    char *text = tl_slurp(COMPILED), *v = compile ? replace(text, THE_COMPILE, compile) : strdup(text);
    snprintf(path, sizeof path, "%s/compiled.yaml", dir);
    tl_write(path, v);
    free(text), free(v), free(dir);
    return path;
}

/* "DIR/name" beside fixture (static, one at a time per name slot). */
static const char *beside(const char *fixture, const char *name, int slot)
{
    static char paths[4][PATH_MAX];
    snprintf(paths[slot], sizeof paths[slot], "%.*s/%s", (int)(strrchr(fixture, '/') - fixture), fixture, name);
    return paths[slot];
}

/* Inductor's compiled kernels are cached under build/ (as make demo's):
 * only the first run on a machine pays gcc. */
static void inductor_cache(void)
{
    char cwd[PATH_MAX], dir[PATH_MAX + 40];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(dir, sizeof dir, "%s/build/inductor-cache", cwd);
    setenv("TORCHINDUCTOR_CACHE_DIR", dir, 1);
}

static px_results *load(const char *results, const char *fixture, px_fixture **f)
{
    px_error err = {0};
    *f = fixture_load(fixture, &err);
    cr_assert_not_null(*f, "%s: %s", fixture, err.msg);
    px_results *r = results_load(results, *f, &err);
    cr_assert_not_null(r, "%s: %s", results, err.msg);
    return r;
}

static const px_env_result *env_of(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment %s", name);
    return NULL;
}

/* The compiled demo is the demo: the same contract and examples (every
 * fingerprint), the same environments, and one more, compiled. */
Test(compile, the_compiled_demo_holds_the_demo_contract)
{
    px_error err = {0};
    px_fixture *a = fixture_load(DEMO, &err), *b = fixture_load(COMPILED, &err);
    cr_assert(a && b, "%s", err.msg);
    px_fingerprint fa, fb;
    fingerprint_contract(a, &fa), fingerprint_contract(b, &fb);
    for (int p = 0; p < PX_PART_COUNT; p++)
        cr_expect_str_eq(fa.part[p], fb.part[p], "compiled.yaml's %s part differs from fixture.yaml's",
                         fingerprint_part_name((px_part)p));
    cr_assert_eq(b->n_envs, a->n_envs + 1);
    for (size_t i = 0; i < a->n_envs; i++) {
        const px_env *x = &a->envs[i], *y = fixture_env(b, x->name);
        cr_assert_not_null(y, "compiled.yaml lacks %s", x->name);
        cr_expect_str_eq(y->device, x->device);
        cr_expect_str_eq(y->dtype, x->dtype);
        cr_expect_eq(y->threads, x->threads);
        cr_expect_eq(y->python, x->python);
        cr_expect_not(y->compile.present);
    }
    const px_env *c = fixture_env(b, "cpu-inductor");
    cr_assert_not_null(c);
    cr_expect(c->python && c->compile.present);
    cr_expect_str_eq(c->compile.backend, "inductor");
    cr_expect_str_eq(c->compile.mode, "default");
    cr_expect_eq(c->compile.dynamic, 1);
    cr_expect_str_eq(c->dtype, "float32");
    fixture_free(a), fixture_free(b);
}

/* Written back (init, decide's splice tools), compile: reads the same. */
Test(compile, compile_survives_emit_and_defaults_are_torchs)
{
    px_error err = {0};
    char *text = tl_slurp(COMPILED), *v = replace(text, THE_COMPILE, "compile: {}");
    px_fixture *f = fixture_parse(COMPILED, v, strlen(v), &err);
    cr_assert_not_null(f, "%s", err.msg);
    const px_env *c = fixture_env(f, "cpu-inductor");
    cr_expect_str_eq(c->compile.backend, "inductor");
    cr_expect_str_eq(c->compile.mode, "default");
    cr_expect_eq(c->compile.dynamic, -1, "dynamic not said is torch's None");
    fixture_free(f);
    f = fixture_load(COMPILED, &err);
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    cr_assert_eq(fixture_emit(o, f, NULL), 0);
    fclose(o);
    cr_expect(strstr(out, "    compile:\n      backend: \"inductor\"\n      mode: \"default\"\n      dynamic: true\n"),
              "%s", out);
    px_fixture *g = fixture_parse("fixtures/campus-club/x.yaml", out, len, &err);
    cr_assert_not_null(g, "%s\n%s", err.msg, out);
    const px_env *d = fixture_env(g, "cpu-inductor");
    cr_expect(d->compile.present && d->compile.dynamic == 1 && !strcmp(d->compile.backend, "inductor"));
    fixture_free(f), fixture_free(g), free(out), free(text), free(v);
}

/* The 1-based line and column of `needle` in text (the first after the
 * compile: line's start). */
static void where(const char *text, const char *needle, int *line, int *col)
{
    const char *at = strstr(text, "    compile:");
    cr_assert_not_null(at);
    at = strstr(at, needle);
    cr_assert_not_null(at, "no '%s'", needle);
    *line = 1;
    const char *bol = text;
    for (const char *p = text; p < at; p++)
        if (*p == '\n')
            (*line)++, bol = p + 1;
    *col = (int)(at - bol) + 1;
}

/* Each wrong compile: is refused where it is wrong, in one line. */
Test(compile, a_bad_compile_mapping_is_refused_at_its_line)
{
    static const struct {
        const char *compile, *at, *says;
    } bad[] = {
        {"compile: {backend: tvm}", "tvm", "compile.backend must be inductor, aot_eager or eager, not 'tvm'"},
        {"compile: {backend: parity_test_backend}", "parity_test_backend",
         "--compile-backend cpu-inductor=NAME"},
        {"compile: {backend: inductor, mode: fast}", "fast", "compile.mode must be default, reduce-overhead"},
        {"compile: {backend: inductor, dynamic: maybe}", "maybe", "must be true or false"},
        {"compile: {backend: inductor, fullgraph: true}", "fullgraph", "unknown key 'fullgraph'"},
        {"compile: inductor", "inductor", "compile"},
        {"compile: {backend: eager, mode: max-autotune}", "max-autotune", "inductor's"},
    };
    char *text = tl_slurp(COMPILED);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *v = replace(text, THE_COMPILE, bad[i].compile);
        px_error err = {0};
        px_fixture *f = fixture_parse(COMPILED, v, strlen(v), &err);
        cr_expect_null(f, "%s was taken", bad[i].compile);
        int line, col;
        where(v, bad[i].at, &line, &col);
        cr_expect_eq(err.line, line, "%s: line %d, not %d (%s)", bad[i].compile, err.line, line, err.msg);
        cr_expect_eq(err.col, col, "%s: column %d, not %d (%s)", bad[i].compile, err.col, col, err.msg);
        cr_expect(strstr(err.msg, bad[i].says) && !strchr(err.msg, '\n'), "%s: %s", bad[i].compile, err.msg);
        fixture_free(f), free(v);
    }
    free(text);
}

/* parity-torch (C++) has no torch.compile: lint and run refuse the
 * environment at its compile: line, saying what to write, before anything
 * starts. */
Test(compile, compile_with_the_libtorch_executor_is_refused_by_lint_and_run)
{
    const char *fx = private_demo(NULL);
    char *text = tl_slurp(fx), *v = replace(text, "    executor: python\n    compile:", "    compile:");
    tl_write(fx, v);
    int line, col;
    where(v, "{", &line, &col);
    char at[64], out[PATH_MAX + 20];
    snprintf(at, sizeof at, "compiled.yaml:%d:%d:", line, col);
    cmd_result l = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_neq(l.status, 0);
    cr_expect(strstr(l.out, at) || strstr(l.err, at), "lint does not name %s:\n%s%s", at, l.out, l.err);
    cr_expect(strstr(l.out, "say executor: python") || strstr(l.err, "say executor: python"), "%s%s", l.out, l.err);
    snprintf(out, sizeof out, "%s.results.yaml", fx);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), NULL});
    cr_expect_eq(r.status, 2, "run: exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.err, at) && strstr(r.err, "libtorch executor"), "%s", r.err);
    cr_expect_neq(access(out, F_OK), 0, "run wrote results although the fixture is refused");
    tl_free(&l), tl_free(&r), free(text), free(v);
}

/* The demo's compiled environment, judged beside the others by check: it
 * meets the contract within its tolerance; the manifest and the last good
 * configuration record the compile settings; the probe compiled the one
 * dynamic graph, so no example's forward compiles again. */
Test(compile, the_compiled_demo_is_judged, .timeout = 600)
{
    NEED_TORCH2();
    inductor_cache();
    const char *fx = private_demo(NULL), *res = beside(fx, "results.yaml", 0);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", "-f", "json", "-o", res, "--python",
                                           tl_python(), NULL});
    cr_assert_eq(r.status, 0, "check: exit %d\n%s\n%s", r.status, r.out, r.err);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je), *envs = json_object_get(j, "environments"), *e = NULL;
    cr_assert_not_null(j, "%s", je.text);
    for (size_t i = 0; i < json_array_size(envs); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(envs, i), "name")), "cpu-inductor"))
            e = json_array_get(envs, i);
    cr_assert_not_null(e);
    cr_expect(json_is_true(json_object_get(e, "met")));
    json_t *counts = json_object_get(e, "counts");
    cr_expect_eq(json_integer_value(json_object_get(counts, "pass")) +
                     json_integer_value(json_object_get(counts, "pass-within-tolerance")),
                 6);
    cr_expect_eq(json_integer_value(json_object_get(counts, "rejected-as-expected")), 2);
    json_t *exs = json_object_get(e, "examples");
    for (size_t k = 0; k < json_array_size(exs); k++) {
        json_t *c = json_object_get(json_array_get(exs, k), "compare");
        if (json_is_object(c))
            cr_expect(json_is_true(json_object_get(c, "pass")) &&
                          json_real_value(json_object_get(c, "value")) <= json_real_value(json_object_get(c, "threshold")),
                      "example %zu", k);
    }
    json_decref(j);
    px_fixture *f;
    px_results *rs = load(res, fx, &f);
    const px_env_result *er = env_of(rs, "cpu-inductor");
    cr_expect_str_eq(er->m.executor, "python");
    cr_expect_str_eq(er->m.compile_backend, "inductor");
    cr_expect_str_eq(er->m.compile_mode, "default");
    cr_expect_str_eq(er->m.compile_dynamic, "true");
    cr_expect_null(env_of(rs, "reference")->m.compile_backend, "an eager environment records no compile");
    cr_expect_gt(er->m.first_forward_ms, 0);
    for (size_t k = 0; k < rs->n_examples; k++)
        if (er->ex[k].status == PX_ST_OK)
            cr_expect_eq(er->ex[k].compiled, PX_COMPILED_NO, "%s compiled again", f->examples[k].id);
    char *hist = tl_slurp(beside(fx, ".compiled.yaml.parity-history.yaml", 1));
    cr_assert_not_null(hist);
    cr_expect(strstr(hist, "compile: \"inductor, mode default, dynamic true\""), "%s", hist);
    /* The report a colleague reads names the compiled path. */
    cmd_result md = tl_run((const char *[]){"parity", "report", fx, "--results", res, "--no-run", "-o", "-", NULL});
    cr_expect(strstr(md.out, "torch.compile inductor, mode default, dynamic true"), "%s", md.out);
    free(hist), results_free(rs), fixture_free(f), tl_free(&r), tl_free(&md);
}

/* dynamic: false: every new input length compiles its own graph; each
 * such forward says so (compiled: true) and the run's line counts them
 * apart from the warm ones. (backend eager: dynamo's capture without
 * inductor's gcc, so the test is quick.) */
Test(compile, each_new_shape_compiles_and_is_told_apart, .timeout = 300)
{
    NEED_TORCH2();
    const char *fx = private_demo("compile: {backend: eager, dynamic: false}"), *res = beside(fx, "r.yaml", 0);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-e", "cpu-inductor", "-o", res, "--python",
                                           tl_python(), NULL});
    cr_assert_eq(r.status, 0, "run: exit %d\n%s\n%s", r.status, r.out, r.err);
    /* The probe is the shortest example, bouldering (issue 38): its length
     * compiled there, so its own forward is warm; the other five compile. */
    cr_expect(strstr(r.out, "compile eager, mode default, dynamic false: the first forward compiled; 5 example "
                            "forwards compiled again"),
              "%s", r.out);
    px_fixture *f;
    px_results *rs = load(res, fx, &f);
    const px_env_result *er = env_of(rs, "cpu-inductor");
    cr_expect_str_eq(er->m.compile_dynamic, "false");
    size_t ok = 0;
    for (size_t k = 0; k < rs->n_examples; k++) {
        if (er->ex[k].status != PX_ST_OK) {
            cr_expect_eq(er->ex[k].compiled, PX_COMPILED_UNKNOWN);
            continue;
        }
        ok++;
        if (!strcmp(f->examples[k].id, "bouldering"))
            cr_expect_eq(er->ex[k].compiled, PX_COMPILED_NO, "the probe's length compiled again");
        else
            cr_expect_eq(er->ex[k].compiled, PX_COMPILED_YES, "%s: a new length did not compile", f->examples[k].id);
    }
    cr_expect_eq(ok, 6);
    char *text = tl_slurp(res);
    cr_expect(strstr(text, "      compile_backend: \"eager\"\n      compile_mode: \"default\"\n      compile_dynamic: "
                           "\"false\"\n"),
              "%s", text);
    cr_expect(strstr(text, "        compiled: true\n"));
    free(text), results_free(rs), fixture_free(f), tl_free(&r);
}

/* A backend from a module: the fixture cannot name it (above), the command
 * line can, for an environment the fixture compiles; the executor compiles
 * through it (its log) and the manifest names it. */
Test(compile, a_module_backend_only_from_the_command_line, .timeout = 300)
{
    const char *fx = private_demo(NULL);
    static const struct {
        const char *arg, *says;
    } bad[] = {
        {"reference=parity_test_backend", "no compile: in environment 'reference'"},
        {"nosuch=parity_test_backend", "no environment 'nosuch'"},
        {"cpu-inductor", "wants ENV=NAME"},
        {"cpu-inductor=a b", "wants ENV=NAME"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", "-", "--python", tl_python(),
                                               "--compile-backend", bad[i].arg, NULL});
        cr_expect_eq(r.status, 2, "%s: exit %d", bad[i].arg, r.status);
        cr_expect(strstr(r.err, bad[i].says), "%s: %s", bad[i].arg, r.err);
        tl_free(&r);
    }
    NEED_TORCH2();
    const char *res = beside(fx, "m.yaml", 0), *log = beside(fx, "backend.log", 1);
    setenv("PYTHONPATH", "tests/backend", 1);
    setenv("PARITY_COMPILE_BACKEND_LOG", log, 1);
    /* Not registered without its module: down at load, in words. */
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-e", "cpu-inductor", "-o", res, "--python",
                                           tl_python(), "--compile-backend", "cpu-inductor=parity_test_backend",
                                           NULL});
    cr_expect_eq(r.status, 3, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.out, "DOWN at load") && strstr(r.out, "no backend 'parity_test_backend'"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-e", "cpu-inductor", "-o", res, "--python", tl_python(),
                                "--backend-module", "parity_compile_backend", "--compile-backend",
                                "cpu-inductor=parity_test_backend", NULL});
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    px_fixture *f;
    px_results *rs = load(res, fx, &f);
    const px_env_result *er = env_of(rs, "cpu-inductor");
    cr_expect_str_eq(er->m.compile_backend, "parity_test_backend");
    cr_expect_str_eq(er->m.backend_modules, "parity_compile_backend");
    for (size_t k = 0; k < rs->n_examples; k++)
        cr_expect(er->ex[k].status == PX_ST_OK || er->ex[k].status == PX_ST_REJECTED);
    char *said = tl_slurp(log);
    cr_expect(said && strstr(said, "graph of"), "the module's backend compiled nothing: %s", said ? said : "no log");
    /* repro's command that runs it again says the backend again. */
    const char *rep = beside(fx, "repro", 2);
    cmd_result p = tl_run((const char *[]){"parity", "repro", fx, "film-night", "--env", "cpu-inductor", "--output",
                                           rep, "--results", res, "-q", NULL});
    cr_expect_eq(p.status, 0, "repro: exit %d\n%s", p.status, p.err);
    char readme[PATH_MAX + 20];
    snprintf(readme, sizeof readme, "%s/README.md", rep);
    char *words = tl_slurp(readme);
    cr_expect(words && strstr(words, "--backend-module MODULE --compile-backend cpu-inductor=parity_test_backend -o"),
              "%s", words ? words : "no README.md");
    unsetenv("PARITY_COMPILE_BACKEND_LOG"), unsetenv("PYTHONPATH");
    free(words), free(said), results_free(rs), fixture_free(f), tl_free(&r), tl_free(&p);
}

/* Torch 1.x has no torch.compile: the compiled environment is down at
 * load, saying which torch it needs and which it found; the others run. */
Test(compile, torch_1_says_torch_2_is_needed, .timeout = 300)
{
    if (torch2())
        cr_skip_test("%s has torch %s: torch.compile is there", tl_python(), tl_torch_version());
    const char *fx = private_demo(NULL), *res = beside(fx, "t1.yaml", 0);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-e", "cpu-inductor", "-e", "reference", "-o",
                                           res, "--python", tl_python(), NULL});
    cr_expect_eq(r.status, 3, "exit %d\n%s", r.status, r.err);
    px_fixture *f;
    px_results *rs = load(res, fx, &f);
    const px_env_result *er = env_of(rs, "cpu-inductor");
    cr_expect_eq(er->state, PX_ENV_DOWN);
    cr_expect_eq(er->down_stage, PX_STAGE_LOAD);
    cr_expect(strstr(er->down_msg, "torch.compile needs torch 2.0 or newer") &&
                  strstr(er->down_msg, tl_torch_version()),
              "%s", er->down_msg);
    cr_expect_eq(env_of(rs, "reference")->state, PX_ENV_UP);
    results_free(rs), fixture_free(f), tl_free(&r);
}
