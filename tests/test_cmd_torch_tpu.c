/* The real TorchTPU package (torch-tpu 0.2.0 from the Python package index,
 * with libtpu; `make deps` puts it in build/torch-tpu, outside the venv):
 * an environment on `device: tpu` with `--backend-module torch_tpu`, on a
 * host with no TPU, is down at the device stage, with what the package and
 * torch said, and nothing is judged against it. Runs in make check's torch
 * 2.13 pass (check-torch2); torch_tpu needs torch 2.11 to 2.15, so the
 * Debian 1.13 pass skips it, saying so. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

#define TORCH_TPU_DIR "build/torch-tpu"

/* The demo, its model and vocabulary by absolute path, with a `tpu`
 * environment on the Python executor. */
static void write_fixture(const char *path)
{
    char *text = tl_slurp("fixtures/campus-club/fixture.yaml");
    cr_assert_not_null(text);
    char cwd[PATH_MAX], model[PATH_MAX + 64], vocab[PATH_MAX + 64];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(model, sizeof model, "path: %s/fixtures/campus-club/model.pt", cwd);
    snprintf(vocab, sizeof vocab, "vocab: %s/fixtures/campus-club/vocab.txt", cwd);
    const char *pairs[][2] = {
        {"path: model.pt", model},
        {"vocab: vocab.txt", vocab},
        {"environments:\n", "environments:\n  tpu:\n    executor: python\n    device: tpu\n    dtype: bfloat16\n"
                            "    note: TorchTPU, the real package, on a host with no TPU\n"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        cr_assert_not_null(strstr(text, pairs[i][0]), "the demo fixture has no '%s'", pairs[i][0]);
        char *next = tl_replace_all(text, pairs[i][0], pairs[i][1]);
        cr_assert_not_null(next);
        free(text);
        text = next;
    }
    tl_write(path, text);
    free(text);
}

Test(torch_tpu, the_real_package_without_a_tpu_is_down_at_the_device_stage, .timeout = 300)
{
    const char *v = tl_torch_version();
    if (strncmp(v, "2.", 2) != 0)
        cr_skip_test("torch_tpu needs torch 2.11 to 2.15; %s has torch %s (make check's torch 2.13 pass runs this)",
                     tl_python(), v);
    char stamp[PATH_MAX];
    snprintf(stamp, sizeof stamp, "%s/.parity-torch-tpu-0.2.0", TORCH_TPU_DIR);
    cr_assert_eq(access(stamp, F_OK), 0, "%s missing: make deps-torch-tpu", stamp);
    char site[PATH_MAX];
    cr_assert_not_null(realpath(TORCH_TPU_DIR, site));
    setenv("PYTHONPATH", site, 1);

    char *dir = tl_tmpdir(), fx[PATH_MAX], out[PATH_MAX];
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    write_fixture(fx);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(),
                                           "--backend-module", "torch_tpu", NULL});
    /* 3: an environment is down (parity(1), EXIT STATUS). */
    cr_assert_eq(r.status, 3, "exit %d\n%s", r.status, r.err);
    tl_free(&r);

    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s:%d: %s", out, err.line, err.msg);
    const px_env_result *tpu = NULL;
    for (size_t i = 0; i < res->n_envs; i++)
        if (!strcmp(res->envs[i].name, "tpu"))
            tpu = &res->envs[i];
    cr_assert_not_null(tpu);
    cr_expect_eq(tpu->state, PX_ENV_DOWN);
    cr_expect_eq(tpu->down_stage, PX_STAGE_DEVICE, "down at %s", proto_stage_name(tpu->down_stage));
    /* torch_tpu leaves PrivateUse1 unrenamed when it counts no TPU, so torch
     * itself refuses the name; the executor says who was asked first. */
    cr_expect(strstr(tpu->down_msg, "unknown device 'tpu' (imported torch_tpu, which named no device 'tpu'; "
                                     "PrivateUse1 is still 'privateuseone'): "),
              "%s", tpu->down_msg);
    cr_expect(strstr(tpu->down_msg, "device type at start of device string: tpu"), "%s", tpu->down_msg);
    /* Nothing is judged against a device that never opened. */
    for (size_t k = 0; k < f->n_examples; k++)
        cr_expect_eq(tpu->ex[k].status, PX_ST_NOT_EVALUATED, "%s", f->examples[k].id);
    results_free(res);
    fixture_free(f);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}
