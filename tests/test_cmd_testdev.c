/* An out-of-tree device in CI: the demo model through both executors on the
 * PrivateUse1 library of tests/backend/parity_testdev.cpp, judged by `parity
 * check`. On torch 2 the device is `tpu`, as a TPU user names it: the C++
 * executor loads the library with --backend-lib and names it
 * (c10::register_privateuse1_backend), the Python executor imports
 * tests/backend/parity_testdev_tpu.py with --backend-module, which loads it
 * and renames it the way TorchTPU presents itself. Torch 1.13 cannot rename
 * PrivateUse1: there the same tests run on a copy of the fixture that says
 * privateuseone (both executors with --backend-lib), so that 1.13 stays
 * proven, and a fixture saying tpu is down with the torch it needs.
 *   exact        the device rung passes and the outputs are the CPU's bits;
 *   bf16-matmul  the device changes a decision the way the CPU bfloat16 twin
 *                does: attributed to precision (the twin of torch 1.13; that
 *                of 2.13 keeps it: twin_flips_near_tie);
 *   scale:-0.2   the device changes a decision the twin keeps: attributed to
 *                the device, and the contract is not met;
 *   a bad value  the library refuses it: the environment is down.
 * The Python executor loads the same library with torch.ops.load_library
 * and must give the C++ executor's bits in every mode. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/results.h"
#include "testlib.h"

#define FIXTURE "tests/data/testdev.yaml"

static char python_fixture[128], fixture_113[128];

static void remove_made(void)
{
    if (python_fixture[0])
        tl_unlink_fixture(python_fixture);
    if (fixture_113[0])
        tl_unlink_fixture(fixture_113);
}

/* Whether the torch under test can rename PrivateUse1 (torch 2). */
static int renames(void)
{
    return atoi(tl_torch_version()) >= 2;
}

/* The device's name as the fixture says it and the manifest records it. */
static const char *devname(void)
{
    return renames() ? "tpu" : "privateuseone";
}

/* text with its first `from` replaced by `to`: malloc'd. */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "%s", from);
    char *out = malloc(strlen(text) + strlen(to) + 1);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* The round trip's fixture for the torch under test: tests/data/testdev.yaml
 * (device: tpu) on torch 2, a privateuseone copy of it on 1.13. */
static const char *fixture(void)
{
    if (renames())
        return FIXTURE;
    if (fixture_113[0])
        return fixture_113;
    atexit(remove_made);
    snprintf(fixture_113, sizeof fixture_113, "tests/data/.testdev-113-%d.yaml", (int)getpid());
    char *text = tl_slurp(FIXTURE), *out = replaced(text, "  device: {device: tpu", "  device: {device: privateuseone");
    tl_write(fixture_113, out);
    free(text), free(out);
    return fixture_113;
}

static const char *testdev(void)
{
    static char abs[4096];
    const char *p = getenv("PARITY_TESTDEV");
    if (p)
        return p;
    cr_assert_not_null(realpath("build/torch/libparity_testdev.so", abs), "build it: make");
    return abs;
}

/* The fixture with the device environment on the Python executor. */
static const char *with_python(void)
{
    if (python_fixture[0])
        return python_fixture;
    const char *base = fixture();
    atexit(remove_made);
    snprintf(python_fixture, sizeof python_fixture, "tests/data/.python-testdev-%d.yaml", (int)getpid());
    char from[64], to[80];
    snprintf(from, sizeof from, "  device: {device: %s", devname());
    snprintf(to, sizeof to, "  device: {executor: python, device: %s", devname());
    char *text = tl_slurp(base), *out = replaced(text, from, to);
    tl_write(python_fixture, out);
    free(text), free(out);
    return python_fixture;
}

/* How a run reaches the device: the C++ executor, and the Python one on
 * 1.13, load the library (--backend-lib); on torch 2 the Python executor
 * imports the module that loads it from $PARITY_TESTDEV and renames it
 * (--backend-module, found on PYTHONPATH). by_lib forces the library. Fills
 * argv from *n on with the options; NULL-terminates. */
static void device_args(const char **argv, int *n, const char *fixture, int by_lib)
{
    setenv("PARITY_TESTDEV", testdev(), 1);
    setenv("PYTHONPATH", "tests/backend", 1);
    if (!by_lib && renames() && fixture == python_fixture)
        argv[(*n)++] = "--backend-module", argv[(*n)++] = "parity_testdev_tpu";
    else
        argv[(*n)++] = "--backend-lib", argv[(*n)++] = testdev();
    argv[(*n)++] = "--python", argv[(*n)++] = tl_python();
    argv[*n] = NULL;
}

typedef struct checked {
    int status;
    px_fixture *f;
    px_results *r;
    px_judgement j;
    size_t dev; /* the device environment's index */
} checked;

/* parity check with the given numerics; its results read back and judged. */
static void check(checked *c, const char *fixture, const char *numerics, int want_status)
{
    setenv("PARITY_TESTDEV_NUMERICS", numerics, 1);
    char *dir = tl_tmpdir(), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    const char *argv[16] = {"parity", "check", fixture, "-q", "-o", out};
    int n = 6;
    device_args(argv, &n, fixture, 0);
    cmd_result r = tl_run(argv);
    cr_assert_eq(r.status, want_status, "check with %s: exit %d, want %d\n%s%s", numerics, r.status, want_status,
                 r.out, r.err);
    c->status = r.status;
    tl_free(&r);
    px_error err = {0};
    c->f = fixture_load(fixture, &err);
    cr_assert_not_null(c->f, "%s", err.msg);
    c->r = results_load(out, c->f, &err);
    cr_assert_not_null(c->r, "%s:%d: %s", out, err.line, err.msg);
    cr_assert_eq(judge_results(c->f, c->r, &c->j, &err), 0, "%s", err.msg);
    for (c->dev = 0; strcmp(c->r->envs[c->dev].name, "device"); c->dev++)
        cr_assert_lt(c->dev + 1, c->r->n_envs);
    unlink(out), rmdir(dir), free(dir);
}

static void done(checked *c)
{
    judgement_free(&c->j);
    results_free(c->r);
    fixture_free(c->f);
}

static size_t example(const checked *c, const char *id)
{
    long k = fixture_example_index(c->f, id);
    cr_assert_geq(k, 0, "%s", id);
    return (size_t)k;
}

static const px_example_result *output(const checked *c, size_t env, const char *id)
{
    return &c->r->envs[env].ex[example(c, id)];
}

static size_t env_named(const checked *c, const char *name)
{
    for (size_t i = 0; i < c->r->n_envs; i++)
        if (!strcmp(c->r->envs[i].name, name))
            return i;
    cr_assert_fail("no %s", name);
    return 0;
}

static int same_bits(const px_example_result *a, const px_example_result *b)
{
    return a->status == PX_ST_OK && b->status == PX_ST_OK && a->n_values == b->n_values &&
           !memcmp(a->values, b->values, a->n_values * sizeof *a->values);
}

static const char *const ran[] = {"film-night", "bouldering", "near-tie"};

/* The CPU bfloat16 twin's own near-tie decision depends on the torch under
 * test, while the device's does not (its products are the float32 CPU
 * kernels' rounded to bfloat16: the same bits on both). Torch 1.13's CPU
 * bfloat16 kernels give music (film 1.344, music 1.375); torch 2.13's give
 * film (film 1.359, music 1.352): its bfloat16 arithmetic moved the tie. So
 * on 1.13 a device that flips the near tie to music does what the twin does
 * (precision); on 2.13 the twin keeps film, and the same flip is the
 * device's. The attribution must follow the twin, either way. */
static int twin_flips_near_tie(void)
{
    return atoi(tl_torch_version()) < 2;
}

/* Off: the device is a device (rung passed, recorded under its own name,
 * tpu on torch 2) and computes what the CPU computes, bit for bit, in both
 * executors. */
Test(testdev, exact_numerics_give_the_cpus_bits, .timeout = 180)
{
    checked c[2];
    check(&c[0], fixture(), "exact", 0);
    check(&c[1], with_python(), "exact", 0);
    for (int i = 0; i < 2; i++) {
        const px_env_verdict *v = &c[i].j.envs[c[i].dev];
        cr_expect_eq(v->rung[PX_RUNG_DEVICE], PX_RS_PASSED);
        cr_expect_eq(v->rung[PX_RUNG_CONTRACT], PX_RS_PASSED);
        cr_expect_str_eq(c[i].r->envs[c[i].dev].m.device, devname());
        /* On torch 2 the Python executor's device came from the module. */
        if (i && renames())
            cr_expect_str_eq(c[i].r->envs[c[i].dev].m.backend_modules, "parity_testdev_tpu");
        cr_expect_str_eq(c[i].r->envs[c[i].dev].m.executor, i ? "python" : "libtorch");
        /* The switch that changed its numerics is in its manifest. */
        cr_expect_str_eq(envrec_get(&c[i].r->envs[c[i].dev].m.env, "PARITY_TESTDEV_NUMERICS"), "exact");
        size_t ref = env_named(&c[i], "reference");
        for (size_t k = 0; k < 3; k++)
            cr_expect(same_bits(output(&c[i], ref, ran[k]), output(&c[i], c[i].dev, ran[k])),
                      "%s: the device's output is not the CPU's", ran[k]);
    }
    done(&c[0]), done(&c[1]);
}

/* bfloat16 matrix products: the near tie goes the twin's way, which names
 * precision as the cause; the device itself is blamed for nothing. On torch
 * 2 the twin keeps the near tie (twin_flips_near_tie): the device's music
 * there is the device's, and only there. */
Test(testdev, what_the_twin_reproduces_is_precision, .timeout = 180)
{
    checked c[2];
    check(&c[0], fixture(), "bf16-matmul", 0);
    check(&c[1], with_python(), "bf16-matmul", 0);
    for (int i = 0; i < 2; i++) {
        size_t nt = example(&c[i], "near-tie");
        const px_example_result *x = &c[i].r->envs[c[i].dev].ex[nt];
        cr_expect_str_eq(results_label(&c[i].r->envs[c[i].dev], x), "music");
        cr_expect_str_eq(results_label(&c[i].r->envs[env_named(&c[i], "reference")],
                                       output(&c[i], env_named(&c[i], "reference"), "near-tie")),
                         "film");
        size_t twin = env_named(&c[i], "twin");
        cr_expect_str_eq(results_label(&c[i].r->envs[twin], output(&c[i], twin, "near-tie")),
                         twin_flips_near_tie() ? "music" : "film", "torch %s", tl_torch_version());
        cr_expect_eq(c[i].j.envs[c[i].dev].ex[nt].attr, twin_flips_near_tie() ? PX_ATTR_PRECISION : PX_ATTR_DEVICE,
                     "torch %s", tl_torch_version());
        for (size_t k = 0; k < c[i].f->n_examples; k++)
            if (k != nt)
                cr_expect_neq(c[i].j.envs[c[i].dev].ex[k].attr, PX_ATTR_DEVICE, "%s", c[i].f->examples[k].id);
        /* Really another arithmetic, not the CPU's bits. */
        cr_expect_not(same_bits(output(&c[i], env_named(&c[i], "reference"), "film-night"),
                                output(&c[i], c[i].dev, "film-night")));
    }
    for (size_t k = 0; k < 3; k++)
        cr_expect(same_bits(output(&c[0], c[0].dev, ran[k]), output(&c[1], c[1].dev, ran[k])),
                  "%s: the executors disagree on the device", ran[k]);
    done(&c[0]), done(&c[1]);
}

/* Matrix products 20% low: bouldering flips to music on the device while the
 * twin keeps sports, so the device is the cause and the contract fails. */
Test(testdev, a_decision_the_twin_keeps_is_the_devices, .timeout = 180)
{
    checked c[2];
    check(&c[0], fixture(), "scale:-0.2", 1);
    check(&c[1], with_python(), "scale:-0.2", 1);
    for (int i = 0; i < 2; i++) {
        size_t b = example(&c[i], "bouldering"), twin = env_named(&c[i], "twin");
        const px_verdict *v = &c[i].j.envs[c[i].dev].ex[b];
        cr_expect_str_eq(results_label(&c[i].r->envs[c[i].dev], &c[i].r->envs[c[i].dev].ex[b]), "music");
        cr_expect_str_eq(results_label(&c[i].r->envs[twin], &c[i].r->envs[twin].ex[b]), "sports");
        cr_expect_eq(v->attr, PX_ATTR_DEVICE);
        cr_expect_eq(v->outcome, PX_OC_WRONG_LABEL);
        cr_expect_eq(v->div, PX_DIV_DECISION);
        cr_expect_eq(c[i].j.envs[c[i].dev].rung[PX_RUNG_CONTRACT], PX_RS_FAILED);
        cr_expect_eq(c[i].j.envs[c[i].dev].ex[example(&c[i], "near-tie")].attr,
                     twin_flips_near_tie() ? PX_ATTR_PRECISION : PX_ATTR_DEVICE, "torch %s", tl_torch_version());
    }
    for (size_t k = 0; k < 3; k++)
        cr_expect(same_bits(output(&c[0], c[0].dev, ran[k]), output(&c[1], c[1].dev, ran[k])),
                  "%s: the executors disagree on the device", ran[k]);
    done(&c[0]), done(&c[1]);
}

/* The library refuses a value it does not know, in its own words; the
 * environment is down, and so is the check. */
Test(testdev, a_bad_numerics_value_takes_the_device_down, .timeout = 180)
{
    const char *fixtures[] = {fixture(), with_python()};
    for (int i = 0; i < 2; i++) {
        checked c;
        check(&c, fixtures[i], "scale:lots", 3);
        const px_env_result *e = &c.r->envs[c.dev];
        cr_expect_eq(e->state, PX_ENV_DOWN);
        cr_expect(strstr(e->down_msg, "PARITY_TESTDEV_NUMERICS") && strstr(e->down_msg, "scale:lots"), "%s",
                  e->down_msg);
        done(&c);
    }
}

/* Without the library the device is unknown to torch: down at the device
 * stage, both executors in the same words (torch 2: tpu is no device type of
 * torch's own; 1.13: privateuseone has no backend). */
Test(testdev, without_the_library_the_device_is_unknown, .timeout = 120)
{
    const char *fixtures[] = {fixture(), with_python()};
    char *said[2];
    for (int i = 0; i < 2; i++) {
        char *dir = tl_tmpdir(), out[300];
        snprintf(out, sizeof out, "%s/results.yaml", dir);
        cmd_result r = tl_run((const char *[]){"parity", "run", fixtures[i], "-q", "-e", "device", "-o", out,
                                               "--python", tl_python(), NULL});
        cr_expect_eq(r.status, 3, "%s", r.err);
        tl_free(&r);
        px_error err = {0};
        px_fixture *f = fixture_load(fixtures[i], &err);
        px_results *res = results_load(out, f, &err);
        cr_assert_not_null(res, "%s", err.msg);
        cr_expect_eq(res->envs[0].down_stage, PX_STAGE_DEVICE);
        if (renames())
            cr_expect(!strncmp(res->envs[0].down_msg, "unknown device 'tpu': ", 22) &&
                          strstr(res->envs[0].down_msg, "device string: tpu"),
                      "%s", res->envs[0].down_msg);
        else
            cr_expect_str_eq(res->envs[0].down_msg, "PyTorch is not linked with support for privateuseone devices");
        said[i] = strdup(res->envs[0].down_msg);
        results_free(res), fixture_free(f);
        unlink(out), rmdir(dir), free(dir);
    }
    cr_expect_str_eq(said[0], said[1]);
    free(said[0]), free(said[1]);
}

/* `parity run -e device` of fx (a fixture of this suite) with extra options
 * and PARITY_TESTDEV_* set by the caller: its results, read back (the
 * fixture in *f). */
static px_results *run_device(const char *fx, int by_lib, int want_status, px_fixture **f)
{
    char *dir = tl_tmpdir(), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    const char *argv[16] = {"parity", "run", fx, "-q", "-e", "device", "-o", out};
    int n = 8;
    device_args(argv, &n, fx, by_lib);
    cmd_result r = tl_run(argv);
    cr_expect_eq(r.status, want_status, "%s: exit %d\n%s%s", fx, r.status, r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    *f = fixture_load(fx, &err);
    cr_assert_not_null(*f, "%s", err.msg);
    px_results *res = results_load(out, *f, &err);
    cr_assert_not_null(res, "%s", err.msg);
    unlink(out), rmdir(dir), free(dir);
    return res;
}

/* Torch 1.13 cannot rename PrivateUse1: a fixture that says tpu, with the
 * library given, is down at the device stage in words that say which torch
 * can, in both executors (never a crash). */
Test(testdev, a_tpu_takes_torch_2, .timeout = 120)
{
    if (renames())
        cr_skip_test("torch %s renames PrivateUse1 (the round trip above runs on tpu)", tl_torch_version());
    char py[128];
    snprintf(py, sizeof py, "tests/data/.tpu-113-%d.yaml", (int)getpid());
    char *text = tl_slurp(FIXTURE), *out = replaced(text, "  device: {device: tpu", "  device: {executor: python, device: tpu");
    tl_write(py, out);
    free(text), free(out);
    const char *fixtures[] = {FIXTURE, py};
    for (int i = 0; i < 2; i++) {
        px_fixture *f;
        px_results *res = run_device(fixtures[i], 1, 3, &f);
        cr_expect_eq(res->envs[0].state, PX_ENV_DOWN);
        cr_expect_eq(res->envs[0].down_stage, PX_STAGE_DEVICE);
        cr_expect(res->envs[0].down_msg && strstr(res->envs[0].down_msg, "unknown device 'tpu'") &&
                      strstr(res->envs[0].down_msg, "takes torch 2") && strstr(res->envs[0].down_msg, "1.13"),
                  "%s", res->envs[0].down_msg);
        results_free(res), fixture_free(f);
    }
    tl_unlink_fixture(py);
}

/* The number of times `pattern` (trace lines) occurs in the trace file. */
static int occurrences(const char *trace, const char *pattern)
{
    int n = 0;
    for (const char *p = trace; (p = strstr(p, pattern)); p++)
        if (p == trace || p[-1] == '\n')
            n++;
    return n;
}

/* Timing on an asynchronous device: each executor synchronizes the device
 * after the inputs' upload and before it starts the forward's clock, and
 * again after the output's copy to the host, before it reads the clock
 * (torch.accelerator.synchronize / the device guard's synchronizeDevice; on
 * 1.13 its synchronizeStream). The test device is synchronous (its work is
 * done when a call returns), so the figures themselves cannot show it;
 * its trace (PARITY_TESTDEV_TRACE: uploads, downloads and synchronizes, in
 * order) does: every forward of a run and of a bench is "upload upload
 * (input_ids, attention_mask) sync ... download sync". Without the
 * synchronizes there is no "sync" at all. The three ways to the device:
 * C++ with the library, and on torch 2 Python with the library and Python
 * with the renamed device's module (torch 1.13's Python has no way to
 * synchronize a PrivateUse1 device: no torch.accelerator, no device
 * module). */
Test(testdev, clocks_are_read_after_a_synchronize, .timeout = 300)
{
    char *dir = tl_tmpdir(), trace[300];
    snprintf(trace, sizeof trace, "%s/trace", dir);
    setenv("PARITY_TESTDEV_TRACE", trace, 1);
    setenv("PARITY_TESTDEV_NUMERICS", "exact", 1);
    const char *per_forward = "upload\nupload\nsync\ndownload\nsync\n";
    struct {
        const char *fx;
        int by_lib;
    } ways[] = {{fixture(), 1}, {with_python(), 1}, {with_python(), 0}};
    for (int w = 0; w < (renames() ? 3 : 1); w++) {
        unlink(trace);
        px_fixture *f;
        px_results *res = run_device(ways[w].fx, ways[w].by_lib, 0, &f);
        results_free(res), fixture_free(f);
        char *t = tl_slurp(trace);
        cr_assert_not_null(t, "no trace: the device was not used");
        /* film-night, bouldering, near-tie (the empty one is rejected before
         * any device), and the probe forward. */
        cr_expect_geq(occurrences(t, per_forward), 3, "way %d: forwards not synchronized around their clock:\n%s", w,
                      t);
        free(t);

        /* parity bench: 2 timed passes over the 3 examples, 1 warm-up. */
        unlink(trace);
        char bench[320];
        snprintf(bench, sizeof bench, "%s/bench.yaml", dir);
        const char *argv[24] = {"parity", "bench", ways[w].fx, "-e", "reference", "-e", "device", "--iters", "2",
                                "--warmup", "1", "-o", bench};
        int n = 13;
        device_args(argv, &n, ways[w].fx, ways[w].by_lib);
        cmd_result r = tl_run(argv);
        cr_expect(r.status == 0 || r.status == 1, "bench way %d: exit %d\n%s%s", w, r.status, r.out, r.err);
        tl_free(&r);
        t = tl_slurp(trace);
        cr_assert_not_null(t);
        cr_expect_geq(occurrences(t, per_forward), 9, "bench way %d: forwards not synchronized:\n%s", w, t);
        free(t);
        unlink(bench);
    }
    unsetenv("PARITY_TESTDEV_TRACE");
    unlink(trace), rmdir(dir), free(dir);
}

/* An operator the device lacks (PARITY_TESTDEV_LACKS=index_select, which the
 * embedding needs): torch's dispatcher says "Could not run
 * 'aten::index_select' with arguments from the 'PrivateUse1' backend" (torch
 * 2 with the device renamed: "... from the 'tpu' backend"), a
 * NotImplementedError in Python; each executor calls it unsupported (the
 * backend lacks something), not an exception (a defect), and records the
 * dispatcher's words. */
Test(testdev, a_missing_operator_is_unsupported, .timeout = 180)
{
    setenv("PARITY_TESTDEV_NUMERICS", "exact", 1);
    setenv("PARITY_TESTDEV_LACKS", "index_select", 1);
    char want[128];
    snprintf(want, sizeof want, "Could not run 'aten::index_select' with arguments from the '%s' backend",
             renames() ? "tpu" : "PrivateUse1");
    const char *fixtures[] = {fixture(), with_python()};
    for (int i = 0; i < 2; i++) {
        px_fixture *f;
        /* every forward unsupported: nothing ran, exit 3 (the file is written) */
        px_results *res = run_device(fixtures[i], 0, 3, &f);
        const px_env_result *e = &res->envs[0];
        cr_assert_neq(e->state, PX_ENV_DOWN, "%s", e->down_msg);
        int seen = 0;
        for (size_t k = 0; k < f->n_examples; k++) {
            if (e->ex[k].status == PX_ST_REJECTED)
                continue;
            seen++;
            cr_expect_eq(e->ex[k].status, PX_ST_UNSUPPORTED, "%s, %s: %s (%s)", fixtures[i], f->examples[k].id,
                         status_name(e->ex[k].status), e->ex[k].detail);
            cr_expect(e->ex[k].detail && strstr(e->ex[k].detail, want), "%s: %s", fixtures[i], e->ex[k].detail);
        }
        cr_expect_eq(seen, 3);
        results_free(res), fixture_free(f);
    }
    unsetenv("PARITY_TESTDEV_LACKS");
}

/* A backend that refuses inference tensors (PARITY_TESTDEV_REFUSE_INFERENCE,
 * as some out-of-tree backends do): the executors run its forwards under
 * no_grad, not inference_mode (which they keep for the CPU and CUDA), so
 * the device still gives the CPU's bits, in both. */
Test(testdev, a_device_that_refuses_inference_tensors_runs, .timeout = 180)
{
    setenv("PARITY_TESTDEV_REFUSE_INFERENCE", "1", 1);
    checked c[2];
    check(&c[0], fixture(), "exact", 0);
    check(&c[1], with_python(), "exact", 0);
    for (int i = 0; i < 2; i++) {
        size_t ref = env_named(&c[i], "reference");
        for (size_t k = 0; k < 3; k++)
            cr_expect(same_bits(output(&c[i], ref, ran[k]), output(&c[i], c[i].dev, ran[k])),
                      "%s: the device's output is not the CPU's", ran[k]);
    }
    done(&c[0]), done(&c[1]);
    unsetenv("PARITY_TESTDEV_REFUSE_INFERENCE");
}

/* A repro of the device's fault (scale:-0.2 flips bouldering) says how to
 * run it again: the library the device needs (--backend-lib LIB, what LIB
 * is), whether the device is called privateuseone or, on torch 2, tpu (a
 * name torch does not know, which the library's device is given); and no
 * "both at once with libtorch" as if the device were built in. */
Test(testdev, a_repro_of_the_device_names_its_library, .timeout = 180)
{
    setenv("PARITY_TESTDEV_NUMERICS", "scale:-0.2", 1);
    char *dir = tl_tmpdir(), res[300], out[300], path[340];
    snprintf(res, sizeof res, "%s/results.yaml", dir);
    snprintf(out, sizeof out, "%s/repro", dir);
    const char *argv[20] = {"parity", "run", fixture(), "-q", "-o", res};
    int n = 6;
    device_args(argv, &n, fixture(), 1);
    cmd_result r = tl_run(argv);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "repro", fixture(), "bouldering", "-e", "device", "--results", res,
                                "--no-run", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    snprintf(path, sizeof path, "%s/README.md", out);
    char *readme = tl_slurp(path);
    cr_assert_not_null(readme);
    cr_expect(strstr(readme, "    parity run fixture.yaml -e device --backend-lib LIB -o observed-again.yaml\n"), "%s",
              readme);
    cr_expect(strstr(readme, "LIB is the PrivateUse1 backend library it loaded"), "%s", readme);
    cr_expect_null(strstr(readme, "Or both at once"), "%s", readme);
    /* The twin is judged with the two (the cause needs it; issue 38's walk
     * found "the twin is not selected (-e)" with no -e given) and left out
     * of the bundle, which holds one environment beside the reference. */
    cr_expect(strstr(readme, "- Cause in device: device"), "%s", readme);
    cr_expect_null(strstr(readme, "not selected"), "%s", readme);
    free(readme);
    snprintf(path, sizeof path, "%s/observed.yaml", out);
    char *observed = tl_slurp(path);
    cr_expect(observed && !strstr(observed, "\n  twin:\n") && !strstr(observed, "\n  \"twin\":\n"), "%s",
              observed ? observed : "");
    free(observed);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}
