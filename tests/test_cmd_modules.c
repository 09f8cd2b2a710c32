/* Which environments a --backend-module goes to (issue 38, item 5),
 * through the real parity binary. A backend's Python package is imported
 * where its device is: into each environment with executor: python on a
 * device torch does not open itself (tpu), never into the CPU reference
 * beside it, whose results then record no backend module and whose repro
 * command loads none. ENV=NAME imports into ENV alone; a module that no
 * environment running here would import is refused, saying how to name one.
 *
 * The device is the test device of tests/backend renamed tpu by the module
 * parity_testdev_tpu (torch 2 only: torch 1.13 cannot rename; skipped there,
 * saying so). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

#define BASE "tests/data/testdev.yaml"

static char fixture[256];

static void remove_fixture(void)
{
    if (fixture[0])
        tl_unlink_fixture(fixture);
}

/* testdev.yaml with both environments left on the Python executor (the
 * twin dropped): tests/data/.modules-PID.yaml. */
static const char *python_fixture(void)
{
    if (!fixture[0]) {
        snprintf(fixture, sizeof fixture, "tests/data/.modules-%d.yaml", (int)getpid());
        atexit(remove_fixture);
    }
    char *text = tl_slurp(BASE);
    cr_assert_not_null(text);
    char *a = tl_replace_all(text, "  reference: {device: cpu,", "  reference: {executor: python, device: cpu,");
    char *b = tl_replace_all(a, "  twin: {device: cpu, dtype: bfloat16, role: twin, note: the CPU bfloat16 twin}\n", "");
    char *c = tl_replace_all(b, "  device: {device: tpu,", "  device: {executor: python, device: tpu,");
    cr_assert(strcmp(text, a) && strcmp(a, b) && strcmp(b, c), "testdev.yaml changed: this test must follow");
    tl_write(fixture, c);
    free(text), free(a), free(b), free(c);
    return fixture;
}

static void need_torch2(void)
{
    if (tl_torch_version()[0] < '2')
        cr_skip_test("renaming the test device tpu needs torch 2; %s has torch %s", tl_python(), tl_torch_version());
    const char *lib = getenv("PARITY_TESTDEV");
    if (!lib || access(lib, R_OK))
        setenv("PARITY_TESTDEV", "build/torch2/libparity_testdev.so", 1); /* torch 2's */
    setenv("PYTHONPATH", "tests/backend", 1);
    setenv("PARITY_TESTDEV_NUMERICS", "exact", 1);
}

static const px_env_result *env_of(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment %s", name);
    return NULL;
}

Test(modules, a_backend_module_goes_to_the_device_not_to_the_cpu_reference, .timeout = 300)
{
    need_torch2();
    const char *fx = python_fixture();
    char *dir = tl_tmpdir(), out[300], repro[300], readme[340];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(),
                                           "--backend-module", "parity_testdev_tpu", NULL});
    cr_assert_eq(r.status, 0, "exit %d\n%s%s", r.status, r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s", err.msg);
    const px_env_result *ref = env_of(res, "reference"), *dev = env_of(res, "device");
    cr_expect_null(ref->m.backend_modules, "the CPU reference imported %s", ref->m.backend_modules);
    cr_expect_null(ref->m.backend_versions, "the CPU reference records %s", ref->m.backend_versions);
    cr_expect(dev->m.backend_modules && !strcmp(dev->m.backend_modules, "parity_testdev_tpu"), "%s",
              dev->m.backend_modules ? dev->m.backend_modules : "(none)");
    results_free(res), fixture_free(f);
    /* The repro re-runs the reference without it, the device with it. */
    snprintf(repro, sizeof repro, "%s/repro", dir);
    r = tl_run((const char *[]){"parity", "repro", fx, "film-night", "-e", "device", "--results", out, "--no-run", "-o",
                                repro, "-q", NULL});
    cr_assert_eq(r.status, 0, "exit %d\n%s%s", r.status, r.out, r.err);
    tl_free(&r);
    snprintf(readme, sizeof readme, "%s/README.md", repro);
    char *text = tl_slurp(readme);
    cr_assert_not_null(text, "%s", readme);
    cr_expect(strstr(text, "-e reference --python PYTHON -o"), "the reference's command, no module:\n%s", text);
    cr_expect_null(strstr(text, "-e reference --python PYTHON --backend-module"), "%s", text);
    cr_expect(strstr(text, "-e device --python PYTHON --backend-module MODULE -o"), "%s", text);
    free(text);
    snprintf(readme, sizeof readme, "rm -rf '%s'", dir);
    cr_expect_eq(system(readme), 0);
    free(dir);
}

/* ENV=NAME imports into ENV alone, whatever its device; a module that no
 * environment running here would import is refused before anything runs
 * (exit 2), naming the form that would. */
Test(modules, a_module_goes_where_it_is_named_or_is_refused, .timeout = 300)
{
    need_torch2();
    const char *fx = python_fixture();
    char *dir = tl_tmpdir(), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "-e", "reference", "--python",
                                           tl_python(), "--backend-module", "parity_testdev_tpu", NULL});
    cr_expect_eq(r.status, 2, "exit %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.err, "--backend-module parity_testdev_tpu: no environment that runs here imports it") &&
                  strstr(r.err, "--backend-module ENV=parity_testdev_tpu"),
              "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "-e", "reference", "--python", tl_python(),
                                "--backend-module", "nowhere=parity_testdev_tpu", NULL});
    cr_expect_eq(r.status, 2, "exit %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.err, "--backend-module nowhere=parity_testdev_tpu: no environment 'nowhere'"), "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "-e", "reference", "--python", tl_python(),
                                "--backend-module", "reference=parity_testdev_tpu", NULL});
    cr_assert_eq(r.status, 0, "exit %d\n%s%s", r.status, r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s", err.msg);
    const px_env_result *ref = env_of(res, "reference");
    cr_expect(ref->m.backend_modules && !strcmp(ref->m.backend_modules, "parity_testdev_tpu"), "%s",
              ref->m.backend_modules ? ref->m.backend_modules : "(none)");
    results_free(res), fixture_free(f);
    char cmd[340];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}
