/* An out-of-tree device in CI: the demo model through both executors on the
 * PrivateUse1 library of tests/backend/parity_testdev.cpp (device
 * privateuseone, loaded with --backend-lib), judged by `parity check`.
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

static char python_fixture[128];

static void remove_made(void)
{
    if (python_fixture[0])
        tl_unlink_fixture(python_fixture);
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
    atexit(remove_made);
    snprintf(python_fixture, sizeof python_fixture, "tests/data/.python-testdev-%d.yaml", (int)getpid());
    char *text = tl_slurp(FIXTURE), *at = strstr(text, "  device: {device: privateuseone");
    cr_assert_not_null(at);
    char *out = malloc(strlen(text) + 64);
    sprintf(out, "%.*s  device: {executor: python, device: privateuseone%s", (int)(at - text), text,
            at + strlen("  device: {device: privateuseone"));
    tl_write(python_fixture, out);
    free(text), free(out);
    return python_fixture;
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
    cmd_result r = tl_run((const char *[]){"parity", "check", fixture, "-q", "-o", out, "--backend-lib", testdev(),
                                           "--python", tl_python(), NULL});
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

/* Off: the device is a device (rung passed, recorded as privateuseone) and
 * computes what the CPU computes, bit for bit, in both executors. */
Test(testdev, exact_numerics_give_the_cpus_bits, .timeout = 180)
{
    checked c[2];
    check(&c[0], FIXTURE, "exact", 0);
    check(&c[1], with_python(), "exact", 0);
    for (int i = 0; i < 2; i++) {
        const px_env_verdict *v = &c[i].j.envs[c[i].dev];
        cr_expect_eq(v->rung[PX_RUNG_DEVICE], PX_RS_PASSED);
        cr_expect_eq(v->rung[PX_RUNG_CONTRACT], PX_RS_PASSED);
        cr_expect_str_eq(c[i].r->envs[c[i].dev].m.device, "privateuseone");
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
    check(&c[0], FIXTURE, "bf16-matmul", 0);
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
    check(&c[0], FIXTURE, "scale:-0.2", 1);
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
    const char *fixtures[] = {FIXTURE, with_python()};
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
 * stage, both executors in the same words. */
Test(testdev, without_the_library_the_device_is_unknown, .timeout = 120)
{
    const char *fixtures[] = {FIXTURE, with_python()};
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
        cr_expect_str_eq(res->envs[0].down_msg, "PyTorch is not linked with support for privateuseone devices");
        results_free(res), fixture_free(f);
        unlink(out), rmdir(dir), free(dir);
    }
}
