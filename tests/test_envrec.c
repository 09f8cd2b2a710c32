/* envrec: which environment variables a manifest records (the built-in
 * names and prefixes, an environment's record_env), only those set, the
 * first of a name twice; values redacted as NAME=value; shown on one line
 * with anything odd escaped; compared by name. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/envrec.h"
#include "parity/redact.h"
#include "testlib.h"

static char *const ENV[] = {
    "PATH=/usr/bin",
    "XLA_FLAGS=--xla_a",
    "XLA_FLAGS=--shadowed", /* getenv sees the first */
    "XLA_PYTHON_CLIENT_PREALLOCATE=false",
    "XLAB=not a prefix match",
    "TPU_NAME=my-tpu",
    "TPU_AUTH_TOKEN=tpu-secret-0123456789abcdef",
    "OMP_NUM_THREADS=",
    "OMP_PROC_BIND=true",
    "TORCH_CUDNN_V8_API_ENABLED=1",
    "ONEDNN_MAX_CPU_ISA=AVX2",
    "DNNL_VERBOSE=0",
    "MKL_CBWR=COMPATIBLE",
    "NVIDIA_TF32_OVERRIDE=0",
    "CUBLAS_WORKSPACE_CONFIG=:4096:8",
    "PJRT_DEVICE=TPU",
    "LIBTPU_INIT_ARGS=--xla_tpu_x",
    "PARITY_TESTDEV_NUMERICS=scale:-0.2",
    "PARITY_TESTDEV=/lib.so",
    "MY_KERNELS=fast",
    "MY_DEPLOY_PASSWORD=hunter2hunter2",
    "MY_DUMP=/home/planted/dump",
    "=no name",
    "no equals sign",
    NULL,
};

Test(envrec, the_built_in_names_and_prefixes_and_the_extra_ones)
{
    char *extra[] = {"MY_KERNELS", "MY_UNSET"};
    px_envvars v;
    cr_assert_eq(envrec_capture(&v, ENV, extra, 2, NULL), 0);
    cr_expect_eq(v.recorded, 1);
    const char *want[][2] = {
        {"CUBLAS_WORKSPACE_CONFIG", ":4096:8"},
        {"DNNL_VERBOSE", "0"},
        {"LIBTPU_INIT_ARGS", "--xla_tpu_x"},
        {"MKL_CBWR", "COMPATIBLE"},
        {"MY_KERNELS", "fast"},
        {"NVIDIA_TF32_OVERRIDE", "0"},
        {"OMP_NUM_THREADS", ""},
        {"ONEDNN_MAX_CPU_ISA", "AVX2"},
        {"PARITY_TESTDEV_NUMERICS", "scale:-0.2"},
        {"PJRT_DEVICE", "TPU"},
        {"TORCH_CUDNN_V8_API_ENABLED", "1"},
        {"TPU_AUTH_TOKEN", "tpu-secret-0123456789abcdef"},
        {"TPU_NAME", "my-tpu"},
        {"XLA_FLAGS", "--xla_a"},
        {"XLA_PYTHON_CLIENT_PREALLOCATE", "false"},
    };
    size_t n = sizeof want / sizeof *want;
    cr_assert_eq(v.n, n, "%zu recorded", v.n);
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(v.v[i].name, want[i][0], "in order");
        cr_expect_str_eq(v.v[i].value, want[i][1], "%s", want[i][0]);
    }
    cr_expect_null(envrec_get(&v, "MY_UNSET"));
    cr_expect_null(envrec_get(&v, "XLAB"));
    cr_expect_null(envrec_get(&v, "PATH"));
    envrec_clear(&v);
    cr_expect(envrec_is_builtin("TPU_X") && envrec_is_builtin("XLA_FLAGS") && !envrec_is_builtin("TPU"));
    cr_expect(envrec_valid_name("_A9", 3) && !envrec_valid_name("9A", 2) && !envrec_valid_name("A-B", 3) &&
              !envrec_valid_name("", 0));
}

Test(envrec, values_are_redacted_as_name_equals_value)
{
    const char *patterns[] = {"my-tpu"};
    px_error err = {0};
    px_redactor *rd = redact_new(patterns, 1, "/home/planted", &err);
    cr_assert_not_null(rd, "%s", err.msg);
    char *extra[] = {"MY_DEPLOY_PASSWORD", "MY_DUMP"};
    px_envvars v;
    cr_assert_eq(envrec_capture(&v, ENV, extra, 2, rd), 0);
    cr_expect_str_eq(envrec_get(&v, "TPU_AUTH_TOKEN"), PX_REDACTED, "the key=value rule sees the name");
    cr_expect_str_eq(envrec_get(&v, "MY_DEPLOY_PASSWORD"), PX_REDACTED);
    cr_expect_str_eq(envrec_get(&v, "TPU_NAME"), PX_REDACTED, "the fixture's own pattern");
    cr_expect_str_eq(envrec_get(&v, "MY_DUMP"), "~/dump", "the home directory as ~");
    cr_expect_str_eq(envrec_get(&v, "XLA_FLAGS"), "--xla_a", "nothing secret: as it is");
    cr_expect_str_eq(envrec_get(&v, "OMP_NUM_THREADS"), "");
    envrec_clear(&v);
    redact_free(rd);
}

static px_envvars vars(const char *const *kv, size_t n)
{
    px_envvars v = {0};
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(envrec_add(&v, kv[2 * i], kv[2 * i + 1]), 0);
    envrec_sort(&v);
    v.recorded = 1;
    return v;
}

Test(envrec, shown_on_one_line_and_compared_by_name)
{
    char buf[512];
    envrec_show("a'b\\c\n\x01", 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "'a\\'b\\\\c\\x0A\\x01'");
    envrec_show(NULL, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "not set");
    envrec_show("", 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "''");
    envrec_show("abcdé", 5, buf, sizeof buf);
    cr_expect_str_eq(buf, "'abcd'…", "never inside a character");
    envrec_show("0123456789", 4, buf, 6);
    cr_expect_str_eq(buf, "'0123", "cut by the buffer, terminated");

    const char *a_kv[] = {"XLA_FLAGS", "--a", "OMP_NUM_THREADS", "1", "TPU_X", "y"};
    const char *b_kv[] = {"XLA_FLAGS", "--b", "OMP_NUM_THREADS", "1", "LIBTPU_INIT_ARGS", ""};
    px_envvars a = vars(a_kv, 3), b = vars(b_kv, 3), same = vars(a_kv, 3), none = {.recorded = 1}, unrec = {0};
    cr_expect_null(envrec_diff(&a, &same));
    cr_expect_str_eq(envrec_diff(&a, &b), "LIBTPU_INIT_ARGS", "the first in order");
    cr_expect_str_eq(envrec_diff(&a, &unrec), "", "one side not recorded");
    cr_expect_null(envrec_diff(&unrec, &unrec));
    cr_expect_str_eq(envrec_diff(&none, &b), "LIBTPU_INIT_ARGS");
    envrec_changes(&a, &b, buf, sizeof buf);
    cr_expect_str_eq(buf, "LIBTPU_INIT_ARGS: not set → ''; TPU_X: 'y' → not set; XLA_FLAGS: '--a' → '--b'");
    envrec_changes(&a, &same, buf, sizeof buf);
    cr_expect_str_eq(buf, "");
    envrec_changes(&unrec, &none, buf, sizeof buf);
    cr_expect_str_eq(buf, "not recorded → none set");
    char *t = envrec_text(&a);
    cr_expect_str_eq(t, "OMP_NUM_THREADS='1' TPU_X='y' XLA_FLAGS='--a'");
    free(t);
    cr_expect_null(envrec_text(&unrec));
    px_envvars copy;
    cr_assert_eq(envrec_copy(&copy, &b), 0);
    cr_expect_null(envrec_diff(&copy, &b));
    envrec_clear(&copy), envrec_clear(&a), envrec_clear(&b), envrec_clear(&same);
}

/* The man pages name every built-in variable and prefix. */
Test(envrec, the_man_pages_list_the_built_in_ones)
{
    const char *pages[] = {"man/parity-results.5", "man/parity-fixture.5"};
    for (int p = 0; p < 2; p++) {
        char *text = tl_slurp(pages[p]);
        cr_assert_not_null(text);
        for (const char *const *b = px_envrec_builtin; *b; b++) {
            char want[64];
            snprintf(want, sizeof want, " %.*s", (int)strcspn(*b, "*"), *b);
            cr_expect(strstr(text, want), "%s does not name %s", pages[p], *b);
        }
        free(text);
    }
}
