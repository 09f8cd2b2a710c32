/* The Python executor (src/executor/parity_torch.py) against the C++ one,
 * through the real parity binary and a Python with torch (Debian's
 * /usr/bin/python3, the same libtorch as parity-torch; $PARITY_PYTHON in
 * make check's torch 2.13 pass, beside parity-torch built on that wheel): the same
 * fixture run through each gives bit-identical logits and the same outcome
 * for every planted fault (exception, unsupported, crash, timeout, bad
 * shape, NaN, unknown device). Then what only the Python path has: backend
 * modules (tests/backend/parity_planted.py: chatter on stdout, abort, a
 * raising import), an interpreter without torch, a missing interpreter, an
 * executor that speaks another protocol, and the precision settings in the
 * manifest. The first forward of each new input length has its own timeout
 * (a lazy device compiles it). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "testlib.h"

#define PY tl_python()
#define DEMO "fixtures/campus-club/fixture.yaml"
#define PLANTED "tests/data/planted.yaml"

static char made[6][160];

static void remove_made(void)
{
    for (int i = 0; i < 6; i++)
        if (made[i][0])
            tl_unlink_fixture(made[i]);
}

/* A copy of a fixture in tests/data (so its relative paths keep working
 * after the given rewrites), removed when the test ends. pairs: from, to,
 * ..., NULL. */
static const char *variant(int slot, const char *src, const char *const *pairs)
{
    static int registered;
    if (!registered++)
        atexit(remove_made);
    snprintf(made[slot], sizeof made[slot], "tests/data/.python-%d-%d.yaml", (int)getpid(), slot);
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

/* The demo with every environment on the Python executor. */
static const char *demo_python(int slot)
{
    return variant(slot, DEMO,
                   (const char *[]){"path: model.pt", "path: ../../fixtures/campus-club/model.pt", "vocab: vocab.txt",
                                    "vocab: ../../fixtures/campus-club/vocab.txt", "    device: cpu\n",
                                    "    device: cpu\n    executor: python\n", NULL});
}

/* A path in this test's own directory under /tmp (removed when the test
 * ends); a name given twice gets a second file. Static: no caller frees. */
static char *tmp_file(const char *name)
{
    static char paths[16][256];
    static int n;
    cr_assert_lt(n, 16, "test bug: too many temporary files");
    snprintf(paths[n], sizeof paths[n], "%s/%d-%s", tl_test_dir(), n, name);
    return paths[n++];
}

static px_results *load(const char *results, const char *fixture, px_fixture **f)
{
    px_error err = {0};
    *f = fixture_load(fixture, &err);
    cr_assert_not_null(*f, "%s: %s", fixture, err.msg);
    px_results *r = results_load(results, *f, &err);
    cr_assert_not_null(r, "%s:%d: %s", results, err.line, err.msg);
    return r;
}

static const px_env_result *env_of(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment %s in the results", name);
    return NULL;
}

/* Runs a fixture; returns the results file's path. */
static char *run(const char *fixture, int want_status, const char *const *extra)
{
    char *out = tmp_file("results.yaml");
    const char *argv[32] = {"parity", "run", fixture, "-q", "-o", out, "--python", PY};
    int n = 8;
    for (int i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    cmd_result r = tl_run(argv);
    cr_assert_eq(r.status, want_status, "parity run %s: exit %d, want %d\n%s", fixture, r.status, want_status, r.err);
    tl_free(&r);
    return out;
}

/* Every environment of a, every example: the same outcome and, where there
 * is an output, the same bits. Returns how many outputs were compared. */
static int expect_same(const px_results *a, const px_results *b, const px_fixture *f)
{
    int outputs = 0;
    cr_assert_eq(a->n_envs, b->n_envs);
    for (size_t i = 0; i < a->n_envs; i++) {
        const px_env_result *ea = &a->envs[i], *eb = env_of(b, ea->name);
        cr_expect_eq(ea->state, eb->state, "%s: state %d vs %d", ea->name, ea->state, eb->state);
        if (ea->state == PX_ENV_DOWN && eb->state == PX_ENV_DOWN) {
            cr_expect_eq(ea->down_stage, eb->down_stage, "%s: down at %s vs %s", ea->name,
                         proto_stage_name(ea->down_stage), proto_stage_name(eb->down_stage));
            cr_expect_str_eq(ea->down_msg, eb->down_msg, "%s", ea->name);
        }
        for (size_t k = 0; k < f->n_examples; k++) {
            const px_example_result *x = &ea->ex[k], *y = &eb->ex[k];
            cr_expect_eq(x->status, y->status, "%s/%s: libtorch %s, python %s (%s)", ea->name, f->examples[k].id,
                         status_name(x->status), status_name(y->status), y->detail ? y->detail : "");
            cr_expect_eq(x->label, y->label, "%s/%s: label %d vs %d", ea->name, f->examples[k].id, x->label,
                         y->label);
            /* The same words for the same failure (the exception text, the
             * signal, the timeout), not just the same outcome. */
            if (x->status != PX_ST_NOT_EVALUATED)
                cr_expect_str_eq(x->detail ? x->detail : "", y->detail ? y->detail : "", "%s/%s",
                                 ea->name, f->examples[k].id);
            cr_expect_eq(x->n_values, y->n_values, "%s/%s", ea->name, f->examples[k].id);
            if (x->n_values && x->n_values == y->n_values) {
                cr_expect_eq(memcmp(x->values, y->values, x->n_values * sizeof *x->values), 0,
                             "%s/%s: the outputs differ in their bits", ea->name, f->examples[k].id);
                outputs++;
            }
        }
    }
    return outputs;
}

Test(python_executor, demo_logits_are_bit_identical_to_libtorch, .timeout = 180)
{
    char *cpp = run(DEMO, 0, NULL), *py = run(demo_python(0), 0, NULL);
    px_fixture *fa, *fb;
    px_results *a = load(cpp, DEMO, &fa), *b = load(py, made[0], &fb);
    cr_expect_geq(expect_same(a, b, fa), 12, "two environments with six forwards each");
    for (size_t i = 0; i < b->n_envs; i++) {
        const px_manifest *m = &b->envs[i].m, *c = &env_of(a, b->envs[i].name)->m;
        cr_expect_str_eq(m->executor, "python");
        cr_expect_str_eq(c->executor, "libtorch");
        cr_expect(m->runtime && !strncmp(m->runtime, "CPython 3.", 10), "runtime %s", m->runtime);
        cr_expect_null(c->runtime);
        /* The interpreter's torch, and the same release beneath parity-torch
         * (whose version has no local tag: "1.13.0" for "1.13.0a0",
         * "2.13.0" for "2.13.0+cpu"). */
        cr_expect_str_eq(m->libtorch_version, tl_torch_version());
        cr_expect(c->libtorch_version && !strncmp(c->libtorch_version, m->libtorch_version, strlen(c->libtorch_version)),
                  "libtorch %s, python %s", c->libtorch_version, m->libtorch_version);
        cr_expect_str_eq(m->device, "cpu");
        cr_expect_str_eq(m->device_name, c->device_name);
        cr_expect_str_eq(m->dtype, c->dtype);
        cr_expect_str_eq(m->matmul_precision, "highest");
        cr_expect_null(m->backend_modules);
        cr_expect_null(m->ignored, "no setting was given: %s", m->ignored);
    }
    results_free(a), results_free(b), fixture_free(fa), fixture_free(fb);
}

/* Every planted fault of tests/data/planted.yaml, through both executors. */
Test(python_executor, planted_faults_give_the_same_outcomes, .timeout = 400)
{
    char *cpp = run(PLANTED, 3, NULL);
    char *py = run(variant(0, PLANTED, (const char *[]){"{device: ", "{executor: python, device: ", NULL}), 3, NULL);
    px_fixture *fa, *fb;
    px_results *a = load(cpp, PLANTED, &fa), *b = load(py, made[0], &fb);
    cr_expect_geq(expect_same(a, b, fa), 40);
    /* The faults are really there (not all the same outcome). */
    int seen[PX_ST_COUNT] = {0};
    for (size_t i = 0; i < b->n_envs; i++)
        for (size_t k = 0; k < fb->n_examples; k++)
            seen[b->envs[i].ex[k].status]++;
    const px_status want[] = {PX_ST_OK, PX_ST_REJECTED, PX_ST_EXCEPTION, PX_ST_UNSUPPORTED, PX_ST_CRASH,
                              PX_ST_TIMEOUT, PX_ST_BAD_SHAPE, PX_ST_EMPTY, PX_ST_NOT_EVALUATED};
    for (size_t s = 0; s < sizeof want / sizeof *want; s++)
        cr_expect_gt(seen[want[s]], 0, "no %s outcome through the Python executor", status_name(want[s]));
    const px_env_result *crash = env_of(b, "crash"), *dev = env_of(b, "no-device");
    cr_expect_str_eq(crash->ex[0].detail, "SIGSEGV");
    cr_expect_eq(dev->state, PX_ENV_DOWN);
    cr_expect_eq(dev->down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(dev->down_msg, "tpu9"), "the device error names the device: %s", dev->down_msg);
    results_free(a), results_free(b), fixture_free(fa), fixture_free(fb);
}

static void plant(const char *what)
{
    setenv("PYTHONPATH", "tests/backend", 1);
    setenv("PARITY_PLANTED", what, 1);
}

/* A backend module that prints while imported: the executor moved its own
 * stdout away first, so the protocol stream is untouched; the manifest names
 * the module and its version. */
Test(python_executor, backend_module_chatter_on_stdout_is_harmless, .timeout = 120)
{
    plant("print");
    const char *fx = demo_python(0);
    char *py = run(fx, 0, (const char *[]){"--backend-module", "reference=parity_planted", "-e", "reference", NULL});
    px_fixture *f;
    px_results *r = load(py, fx, &f);
    const px_manifest *m = &env_of(r, "reference")->m;
    cr_expect_str_eq(m->backend_modules, "parity_planted");
    cr_expect_str_eq(m->backend_versions, "0.0.1-planted");
    cr_expect_eq(env_of(r, "reference")->ex[0].status, PX_ST_OK);
    results_free(r), fixture_free(f);
}

/* A module that aborts, raises or exits while imported: the environment is
 * down, at start-up, with what happened; never a stall or a guess. */
static const px_env_result *down_with(const char *what, px_results **r, px_fixture **f)
{
    plant(what);
    const char *fx = demo_python(0);
    char *py = run(fx, 3, (const char *[]){"--backend-module", "reference=parity_planted", "-e", "reference", NULL});
    *r = load(py, fx, f);
    const px_env_result *e = env_of(*r, "reference");
    cr_assert_eq(e->state, PX_ENV_DOWN, "%s: not down", what);
    for (size_t k = 0; k < (*f)->n_examples; k++)
        cr_expect(e->ex[k].status == PX_ST_NOT_EVALUATED || e->ex[k].status == PX_ST_REJECTED);
    return e;
}

Test(python_executor, backend_module_that_raises_fails_at_the_device_stage, .timeout = 120)
{
    px_results *r;
    px_fixture *f;
    const px_env_result *e = down_with("raise", &r, &f);
    cr_expect_eq(e->down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(e->down_msg, "backend module 'parity_planted'") &&
                  strstr(e->down_msg, "no TPU runtime found on this host"),
              "%s", e->down_msg);
    results_free(r), fixture_free(f);
}

Test(python_executor, backend_module_that_exits_fails_at_the_device_stage, .timeout = 120)
{
    px_results *r;
    px_fixture *f;
    const px_env_result *e = down_with("exit", &r, &f);
    cr_expect_eq(e->down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(e->down_msg, "SystemExit"), "%s", e->down_msg);
    results_free(r), fixture_free(f);
}

Test(python_executor, missing_backend_module_fails_at_the_device_stage, .timeout = 120)
{
    const char *fx = demo_python(0);
    char *py = run(fx, 3, (const char *[]){"--backend-module", "reference=parity_no_such_backend", "-e", "reference", NULL});
    px_fixture *f;
    px_results *r = load(py, fx, &f);
    const px_env_result *e = env_of(r, "reference");
    cr_expect_eq(e->state, PX_ENV_DOWN);
    cr_expect_eq(e->down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(e->down_msg, "No module named 'parity_no_such_backend'"), "%s", e->down_msg);
    results_free(r), fixture_free(f);
}

/* A hang while the backend starts is a timeout of start-up, not a stall.
 * (12 s: torch's own import comes first, and took over 3 s on a loaded
 * 2-core machine, so a 3 s limit ran out before the backend's import and
 * the words could not name it.) */
Test(python_executor, backend_module_that_hangs_times_out_at_start_up, .timeout = 120)
{
    plant("hang");
    px_error err = {0};
    px_fixture *f = fixture_load(demo_python(0), &err);
    cr_assert_not_null(f, "%s", err.msg);
    int idx = 0;
    px_env_input in = {0};
    cr_assert_eq(env_input_open(&in, f, &f->envs[0], &err), 0, "%s", err.msg);
    px_results *res = results_new(f, &idx, 1);
    /* Its device is cpu: the module goes to it by name (issue 38). */
    const char *mods[] = {"reference=parity_planted"};
    px_runner_opts o = {.load_timeout_s = 12, .backend_modules = mods, .n_backend_modules = 1};
    runner_locate(&o, NULL, PY);
    free((char *)o.script);
    char *script = strdup(tl_parity()), *slash = strrchr(script, '/');
    cr_assert_not_null(slash);
    o.script = malloc(strlen(script) + 32);
    sprintf((char *)o.script, "%.*s/parity_torch.py", (int)(slash - script), script);
    free(script);
    px_runner *run = runner_start(f, &in, res, &o, &err);
    cr_assert_not_null(run, "%s", err.msg);
    cr_expect_eq(runner_wait(run, &err), 0, "%s", err.msg);
    cr_expect_eq(res->envs[0].state, PX_ENV_DOWN);
    /* The import is the device stage's, and says so. */
    cr_expect_eq(res->envs[0].down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(res->envs[0].down_msg,
                     "importing backend module parity_planted did not finish within startup_timeout 12 s"),
              "%s", res->envs[0].down_msg);
    runner_free(run);
    runner_locate_free(&o);
    results_free(res);
    env_input_close(&in, f->n_examples);
    fixture_free(f);
}

/* The demo with a third environment, `tpu`, on the Python executor,
 * beside the reference and the twin on parity-torch. */
static const char *demo_with_python_env(int slot)
{
    return variant(slot, DEMO,
                   (const char *[]){"path: model.pt", "path: ../../fixtures/campus-club/model.pt", "vocab: vocab.txt",
                                    "vocab: ../../fixtures/campus-club/vocab.txt", "  cpu-bf16:\n",
                                    "  tpu:\n    device: cpu\n    executor: python\n    role: candidate\n  cpu-bf16:\n",
                                    NULL});
}

/* One environment that cannot start is down at `stage` with `needles` in
 * its words; every other one ran (results for its first example) and the
 * file was written; exit 3. */
static void expect_only_down(const char *fixture, const char *results, const char *const *down, int stage,
                             const char *const *needles)
{
    px_fixture *f;
    px_results *r = load(results, fixture, &f);
    for (size_t i = 0; i < r->n_envs; i++) {
        const px_env_result *e = &r->envs[i];
        int is_down = 0;
        for (int d = 0; down[d]; d++)
            is_down |= !strcmp(e->name, down[d]);
        if (!is_down) {
            cr_expect_eq(e->state, PX_ENV_UP, "%s is not up: %s", e->name, e->down_msg ? e->down_msg : "");
            cr_expect_eq(e->ex[0].status, PX_ST_OK, "%s: %s", e->name, status_name(e->ex[0].status));
            continue;
        }
        cr_expect_eq(e->state, PX_ENV_DOWN, "%s is not down", e->name);
        cr_expect_eq(e->down_stage, stage, "%s: down at %s", e->name, proto_stage_name(e->down_stage));
        for (int k = 0; needles[k]; k++)
            cr_expect(e->down_msg && strstr(e->down_msg, needles[k]), "%s: '%s' not in: %s", e->name, needles[k],
                      e->down_msg);
        cr_expect_eq(e->ex[0].status, PX_ST_NOT_EVALUATED);
    }
    results_free(r), fixture_free(f);
}

/* Runs `parity run FIXTURE -o OUT extra...`: exit 3, and the words of the
 * environment that is down on stdout. Returns OUT. */
static char *run_with_one_down(const char *fixture, const char *const *extra, const char *said)
{
    char *out = tmp_file("results.yaml");
    const char *argv[32] = {"parity", "run", fixture, "-q", "-o", out};
    int n = 6;
    for (int i = 0; extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    cmd_result r = tl_run(argv);
    cr_expect_eq(r.status, 3, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.out, said), "'%s' not in:\n%s\n%s", said, r.out, r.err);
    tl_free(&r);
    cr_assert_eq(access(out, F_OK), 0, "the results file is written");
    return out;
}

/* An interpreter without torch takes its environment down at load; the
 * reference and the twin still run and are written. */
Test(python_executor, interpreter_without_torch_is_one_environment_down, .timeout = 180)
{
    /* The tests' Python without its site packages: no torch there. */
    char *shim = tmp_file("python-without-torch"), text[PATH_MAX + 64];
    snprintf(text, sizeof text, "#!/bin/sh\nexec %s -S \"$@\"\n", tl_python());
    tl_write(shim, text);
    chmod(shim, 0755);
    const char *fx = demo_with_python_env(0);
    char *out = run_with_one_down(fx, (const char *[]){"--python", shim, NULL}, "DOWN at load");
    expect_only_down(fx, out, (const char *[]){"tpu", NULL}, PX_STAGE_LOAD,
                     (const char *[]){"cannot import torch", "--python PATH or PARITY_PYTHON", NULL});
    /* Through the environment variable, and in check, the same. */
    char *was = strdup(tl_python());
    setenv("PARITY_PYTHON", shim, 1);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    setenv("PARITY_PYTHON", was, 1);
    free(was);
    cr_expect_eq(r.status, 3, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.out, "cannot import torch"), "%s\n%s", r.out, r.err);
    tl_free(&r);
}

Test(python_executor, missing_interpreter_is_one_environment_down, .timeout = 180)
{
    const char *fx = demo_with_python_env(0);
    char *out = run_with_one_down(fx, (const char *[]){"--python", "/nonexistent/python3", NULL}, "DOWN at load");
    expect_only_down(fx, out, (const char *[]){"tpu", NULL}, PX_STAGE_LOAD,
                     (const char *[]){"/nonexistent/python3", "cannot start this Python interpreter", "--python PATH",
                                      NULL});
}

/* A missing parity-torch takes down the environments that need it; the
 * one on the Python executor runs. */
Test(python_executor, missing_executor_leaves_the_python_environment_running, .timeout = 180)
{
    const char *fx = demo_with_python_env(0);
    char *out = run_with_one_down(
        fx, (const char *[]){"--python", PY, "--executor", "/nonexistent/parity-torch", NULL}, "DOWN at load");
    expect_only_down(fx, out, (const char *[]){"reference", "cpu-bf16", NULL}, PX_STAGE_LOAD,
                     (const char *[]){"/nonexistent/parity-torch", "cannot run the executor", "--executor", NULL});
}

/* A parity_torch.py that cannot be read: the environment on it is down at
 * load, naming the file; the others run (through the runner, where the
 * script's place can be chosen). */
Test(python_executor, unreadable_python_executor_is_one_environment_down, .timeout = 120)
{
    px_error err = {0};
    px_fixture *f = fixture_load(demo_with_python_env(0), &err);
    cr_assert_not_null(f, "%s", err.msg);
    int idx[8];
    px_env_input in[8] = {0};
    cr_assert_leq(f->n_envs, 8);
    for (size_t i = 0; i < f->n_envs; i++) {
        idx[i] = (int)i;
        cr_assert_eq(env_input_open(&in[i], f, &f->envs[i], &err), 0, "%s", err.msg);
    }
    px_results *res = results_new(f, idx, f->n_envs);
    px_runner_opts o = {0};
    runner_locate(&o, getenv("PARITY_TORCH"), PY);
    free((char *)o.script);
    o.script = strdup("/nonexistent/parity_torch.py");
    px_runner *run = runner_start(f, in, res, &o, &err);
    cr_assert_not_null(run, "%s", err.msg);
    cr_expect_eq(runner_wait(run, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < res->n_envs; i++) {
        const px_env_result *e = &res->envs[i];
        if (strcmp(e->name, "tpu")) {
            cr_expect_eq(e->state, PX_ENV_UP, "%s: %s", e->name, e->down_msg ? e->down_msg : "");
            continue;
        }
        cr_expect_eq(e->state, PX_ENV_DOWN);
        cr_expect_eq(e->down_stage, PX_STAGE_LOAD);
        cr_expect(e->down_msg && strstr(e->down_msg, "/nonexistent/parity_torch.py: cannot read the Python executor, "
                                                     "which environment 'tpu' needs"),
                  "%s", e->down_msg);
    }
    runner_free(run);
    runner_locate_free(&o);
    results_free(res);
    for (size_t i = 0; i < f->n_envs; i++)
        env_input_close(&in[i], f->n_examples);
    fixture_free(f);
}

/* An executor of another parity: refused by its READY, with what to do;
 * the environments on it are down, the Python one runs. */
Test(python_executor, another_protocol_version_is_refused, .timeout = 120)
{
    char *fake = tmp_file("parity-torch-v1");
    tl_write(fake, "#!/usr/bin/python3\n"
                   "import struct, sys\n"
                   "def s(t): b = t.encode(); return struct.pack('<I', len(b)) + b\n"
                   "p = struct.pack('<I', 1) + s('libtorch') + s('')\n"
                   "sys.stdout.buffer.write(struct.pack('<II', 0x59444552, len(p)) + p)\n"
                   "sys.stdout.flush()\n"
                   "sys.stdin.read()\n");
    chmod(fake, 0755);
    const char *fx = demo_with_python_env(0);
    /* Spawned, not forked by a server of that fake. */
    setenv("PARITY_FORK_SERVER", "0", 1);
    char *out = run_with_one_down(fx, (const char *[]){"--python", PY, "--executor", fake, NULL}, "DOWN at load");
    unsetenv("PARITY_FORK_SERVER");
    char speaks[64];
    snprintf(speaks, sizeof speaks, "this parity speaks %u", PX_PROTO_VERSION);
    expect_only_down(fx, out, (const char *[]){"reference", "cpu-bf16", NULL}, PX_STAGE_LOAD,
                     (const char *[]){fake, "another protocol", "version 1", speaks, NULL});
}

/* startup_timeout is the environment's own: a backend module whose import
 * outlasts it takes that environment down at the device stage, naming the
 * module; the reference and the twin (on parity-torch, which imports no
 * module) run. 10 s: the interpreter imports torch first. */
Test(python_executor, backend_module_import_outlasting_startup_timeout_is_down_at_device, .timeout = 120)
{
    plant("hang");
    const char *fx = variant(1, demo_with_python_env(0),
                             (const char *[]){"    executor: python\n", "    executor: python\n    startup_timeout: 10\n",
                                              NULL});
    char *out = run_with_one_down(fx, (const char *[]){"--python", PY, "--backend-module", "tpu=parity_planted", NULL},
                                  "DOWN at device");
    expect_only_down(fx, out, (const char *[]){"tpu", NULL}, PX_STAGE_DEVICE,
                     (const char *[]){"importing backend module parity_planted did not finish within "
                                      "startup_timeout 10 s",
                                      NULL});
}

/* A module that kills the interpreter while imported: down at the device
 * stage too, naming the module. */
Test(python_executor, backend_module_that_aborts_names_the_module, .timeout = 120)
{
    px_results *r;
    px_fixture *f;
    const px_env_result *e = down_with("abort", &r, &f);
    cr_expect_eq(e->down_stage, PX_STAGE_DEVICE);
    cr_expect(strstr(e->down_msg, "executor ended while importing backend module parity_planted (SIGABRT)"), "%s",
              e->down_msg);
    results_free(r), fixture_free(f);
}

/* The precision settings are recorded; a backend that does not read one
 * says so, in both executors. Which backend reads it depends on the torch:
 * 1.13 reads matmul_precision for CUDA only, so on the CPU it is ignored;
 * torch 2 reads it on the CPU too (oneDNN's bfloat16 matmuls for "medium"),
 * so there nothing is ignored, and the executors set it through torch 2's
 * per-backend settings: the manifest names the one the CPU reads,
 * torch.backends.mkldnn.matmul.fp32_precision, and its value, bf16. */
Test(python_executor, precision_settings_are_recorded, .timeout = 120)
{
    const char *fx = variant(1, DEMO,
                             (const char *[]){"path: model.pt", "path: ../../fixtures/campus-club/model.pt",
                                              "vocab: vocab.txt", "vocab: ../../fixtures/campus-club/vocab.txt",
                                              "    dtype: float32\n",
                                              "    dtype: float32\n    matmul_precision: medium\n",
                                              NULL});
    const char *fy = variant(2, fx, (const char *[]){"    device: cpu\n", "    device: cpu\n    executor: python\n",
                                                     NULL});
    const char *fixtures[] = {fx, fy};
    for (int i = 0; i < 2; i++) {
        char *out = run(fixtures[i], 0, (const char *[]){"-e", "reference", NULL});
        px_fixture *f;
        px_results *r = load(out, fixtures[i], &f);
        const px_manifest *m = &env_of(r, "reference")->m;
        cr_expect_str_eq(m->matmul_precision,
                         atoi(tl_torch_version()) < 2 ? "medium" : "medium (mkldnn.matmul.fp32_precision bf16)", "%s",
                         fixtures[i]);
        cr_expect_null(m->tf32);
        if (atoi(tl_torch_version()) < 2)
            cr_expect(m->ignored && !strncmp(m->ignored, "matmul_precision: ", 18) && strstr(m->ignored, "CPU"),
                      "%s: ignored says %s", m->executor, m->ignored);
        else
            cr_expect_null(m->ignored, "%s on torch %s: ignored says %s", m->executor, tl_torch_version(),
                           m->ignored);
        results_free(r), fixture_free(f);
    }
}

/* slow.pt computes for seconds on inputs of more than six tokens. With a
 * timeout of 1 s and a generous first_forward_timeout, the first long input
 * (a new length: a lazy device would compile it) finishes; the second of
 * the same length must answer within the ordinary timeout, and does not. */
Test(python_executor, first_forward_of_a_new_length_has_its_own_timeout, .timeout = 300)
{
    const char *fx = variant(1, "tests/data/slow.yaml",
                             (const char *[]){"  - id: quick-2",
                                              "  - id: slow-again\n    kind: long\n"
                                              "    text: an evening concert of choral music in the chapel with free tea\n"
                                              "    expect: {label: music}\n    why: same length as slow\n"
                                              "  - id: quick-2",
                                              "impatient: {device: cpu, dtype: float32, threads: 1, timeout: 1, "
                                              "first_forward_timeout: 1,",
                                              "impatient: {executor: python, device: cpu, dtype: float32, threads: 1, "
                                              "timeout: 1, first_forward_timeout: 120,",
                                              NULL});
    char *out = run(fx, 0, (const char *[]){"-e", "impatient", NULL});
    px_fixture *f;
    px_results *r = load(out, fx, &f);
    const px_env_result *e = env_of(r, "impatient");
    long slow = fixture_example_index(f, "slow"), again = fixture_example_index(f, "slow-again");
    cr_assert(slow >= 0 && again >= 0);
    cr_expect_eq(e->ex[slow].n_ids, e->ex[again].n_ids, "the two long inputs must have one length");
    cr_expect_eq(e->ex[slow].status, PX_ST_OK, "%s %s", status_name(e->ex[slow].status), e->ex[slow].detail);
    cr_expect_eq(e->ex[again].status, PX_ST_TIMEOUT, "%s", status_name(e->ex[again].status));
    cr_expect_str_eq(e->ex[again].detail, "after 1 s");
    cr_expect_eq(e->ex[fixture_example_index(f, "quick-2")].status, PX_ST_OK, "runs on in a new executor");
    results_free(r), fixture_free(f);
}

/* A backend module is for the Python executor: given when nothing selected
 * runs through it, it is a mistake worth one line, not silence. */
Test(python_executor, backend_module_without_a_python_environment_is_refused, .timeout = 60)
{
    cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "-o", "-", "--backend-module", "torch_tpu",
                                           NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, "--backend-module") && strstr(r.err, "executor: python"), "%s", r.err);
    cr_expect_eq(r.out[0], '\0', "nothing ran: %s", r.out);
    tl_free(&r);
}

/* bench --endpoint train-step:N through both executors: the Python one's
 * loss curve (a deepcopy made under no_grad, torch.optim.SGD) is judged
 * within contract.train's tolerance of the C++ reference's, and is in fact
 * the same to float32 rounding; the forwards after it are the run's. */
Test(python_executor, train_step_curve_matches_libtorch, .timeout = 300)
{
    const char *fx = variant(1, "tests/data/train.yaml",
                             (const char *[]){"    device: cpu\n    dtype: bfloat16\n",
                                              "    device: cpu\n    dtype: float32\n    executor: python\n", NULL});
    char *out = tmp_file("train.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "bench", fx, "--python", PY, "--endpoint", "train-step:4",
                                           "--endpoint", "single", "--warmup", "0", "--iters", "1", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "within contract.train's tolerance of the reference's curve"), "%s", r.out);
    px_fixture *f;
    px_results *res = load(out, fx, &f);
    const px_env_result *cpp = env_of(res, "reference"), *py = env_of(res, "cpu-bf16");
    cr_expect_str_eq(py->m.executor, "python");
    const px_bench *a = &cpp->bench[0], *b = &py->bench[0];
    cr_assert_eq(a->n_steps, 4, "%s", a->stopped);
    cr_assert_eq(b->n_steps, 4, "%s", b->stopped);
    for (size_t s = 0; s < 4; s++)
        cr_expect(fabs(a->loss[s] - b->loss[s]) <= 1e-5 * fabs(a->loss[s]), "step %zu: libtorch %.9g, python %.9g",
                  s + 1, a->loss[s], b->loss[s]);
    cr_expect_lt(b->loss[3], b->loss[0]);
    for (size_t k = 0; k < res->n_examples; k++)
        if (py->ex[k].status == PX_ST_OK)
            cr_expect_eq(memcmp(py->bench[1].out[k], py->ex[k].values, py->bench[1].n_out * sizeof(double)), 0,
                         "%s: the loaded model changed", f->examples[k].id);
    results_free(res), fixture_free(f);
    tl_free(&r);
}

/* tf32 on the CPU, torch 2: the executors set it as torch 2's per-backend
 * settings (cuda.matmul and cudnn.conv fp32_precision tf32), which the CPU
 * does not read, and both say so; the oneDNN matmul precision the CPU reads
 * stays what it was. On 1.13, as ever: CUDA only. */
Test(python_executor, tf32_on_the_cpu_is_ignored, .timeout = 120)
{
    const char *fx = variant(1, DEMO,
                             (const char *[]){"path: model.pt", "path: ../../fixtures/campus-club/model.pt",
                                              "vocab: vocab.txt", "vocab: ../../fixtures/campus-club/vocab.txt",
                                              "    dtype: float32\n", "    dtype: float32\n    tf32: true\n", NULL});
    const char *fy = variant(2, fx, (const char *[]){"    device: cpu\n", "    device: cpu\n    executor: python\n",
                                                     NULL});
    const char *fixtures[] = {fx, fy};
    for (int i = 0; i < 2; i++) {
        char *out = run(fixtures[i], 0, (const char *[]){"-e", "reference", NULL});
        px_fixture *f;
        px_results *r = load(out, fixtures[i], &f);
        const px_manifest *m = &env_of(r, "reference")->m;
        cr_expect_str_eq(m->tf32, "on");
        cr_expect(m->ignored && !strncmp(m->ignored, "tf32", 4) && strstr(m->ignored, "CUDA") && strstr(m->ignored, "CPU"),
                  "%s on torch %s: ignored says %s", m->executor, tl_torch_version(), m->ignored);
        if (atoi(tl_torch_version()) >= 2)
            cr_expect_str_eq(m->matmul_precision, "highest (mkldnn.matmul.fp32_precision none)", "%s", m->executor);
        results_free(r), fixture_free(f);
    }
}
