/* history: the last good configuration of each environment. The file reads
 * back what it was written as; every kind of mistake in it (an unknown key,
 * a wrong type, a newer format, an environment twice, a truncated file) is
 * one error naming file:line:col, in time linear in its size; comparing
 * lists exactly the fields that differ; recording keeps the last good of an
 * environment that did not meet the contract now. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/ydoc.h"
#include "testlib.h"

#define SAMPLE "tests/data/campus-history.yaml"
#define SHA_MODEL "e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426"

static void parse_ok(const char *text, px_history *h)
{
    px_error err = {0};
    int rc = history_parse("h.yaml", text, strlen(text), h, &err);
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

Test(history, the_sample_reads_as_written)
{
    px_history h;
    px_error err = {0};
    cr_assert_eq(history_load(SAMPLE, &h, &err), 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_assert_eq(h.n, 2);
    const px_history_entry *r = history_find(&h, "reference"), *b = history_find(&h, "cpu-bf16");
    cr_assert(r && b);
    cr_expect_str_eq(r->host, "vm");
    cr_expect_str_eq(r->results, "campus-results.yaml");
    cr_expect_str_eq(r->config.v[PX_CF_DTYPE], "float32");
    cr_expect_str_eq(r->config.v[PX_CF_THREADS], "1");
    cr_expect_str_eq(r->config.v[PX_CF_MODEL], SHA_MODEL);
    cr_expect_null(r->config.v[PX_CF_TF32], "null reads as not recorded");
    cr_expect_null(b->results, "a run: no results file");
    cr_expect_null(b->config.v[PX_CF_EXECUTOR], "an absent key reads as not recorded");
    cr_expect_str_eq(b->config.v[PX_CF_THREADS], "4");
    cr_expect_null(history_find(&h, "tpu"));
    /* Written and read again: the same entries, and the same text. */
    size_t len;
    char *text = history_text(&h, "fixture.yaml", &len);
    cr_assert_not_null(text);
    px_history again;
    parse_ok(text, &again);
    cr_assert_eq(again.n, 2);
    for (size_t i = 0; i < 2; i++) {
        cr_expect_str_eq(again.v[i].env, h.v[i].env);
        cr_expect_eq(history_compare(&again.v[i].config, &h.v[i].config), 0u);
    }
    size_t len2;
    char *text2 = history_text(&again, "fixture.yaml", &len2);
    cr_expect_str_eq(text2, text);
    free(text), free(text2);
    history_free(&again);
    history_free(&h);
}

Test(history, a_missing_file_is_an_empty_history_and_an_empty_one_writes_back)
{
    px_history h;
    px_error err = {0};
    cr_assert_eq(history_load("tests/data/no-such-history.yaml", &h, &err), 0, "%s", err.msg);
    cr_expect_eq(h.n, 0);
    char *dir = tl_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/.f.yaml.parity-history.yaml", dir);
    cr_assert_eq(history_write(&h, path, "f.yaml", &err), 0, "%s", err.msg);
    cr_assert_eq(history_load(path, &h, &err), 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_expect_eq(h.n, 0);
    history_free(&h);
    unlink(path), rmdir(dir);
    free(dir);
}

Test(history, beside_the_fixture_named_after_it)
{
    char buf[512];
    history_path("fixtures/campus-club/fixture.yaml", buf, sizeof buf);
    cr_expect_str_eq(buf, "fixtures/campus-club/.fixture.yaml.parity-history.yaml");
    history_path("tpu.yaml", buf, sizeof buf);
    cr_expect_str_eq(buf, "./.tpu.yaml.parity-history.yaml");
}

#define HEAD "parity_history: 1\nenvironments:\n  - name: \"reference\"\n"

static const struct {
    const char *text;
    int line, col;
    const char *msg;
} bad[] = {
    {"parity_history: 1\nenvironments: []\nextra: 1\n", 3, 1, "unknown key 'extra' in a parity history file"},
    {"parity_history: 2\nenvironments: []\n", 1, 17, "format 2: this parity reads format 1 (written by a newer parity)"},
    {"parity_history: one\nenvironments: []\n", 1, 17, "parity_history must be a format number"},
    {"environments: []\n", 1, 1, "missing required key 'parity_history'"},
    {"parity_history: 1\n", 1, 1, "missing required key 'environments'"},
    {"parity_history: 1\nenvironments: {reference: {}}\n", 2, 15, "environments must be a list, not a mapping"},
    {"parity_history: 1\nenvironments:\n  - reference\n", 3, 5, "must be a mapping, not a scalar"},
    {HEAD "    configuration: {}\n  - name: \"reference\"\n    configuration: {}\n", 5, 11,
     "environment 'reference' is in the history twice"},
    {HEAD "    configuration: {colour: red}\n", 4, 21, "unknown key 'colour' in configuration"},
    {HEAD "    hostname: x\n    configuration: {}\n", 4, 5, "unknown key 'hostname' in an environment of the history"},
    {"parity_history: 1\nenvironments:\n  - configuration: {}\n", 3, 5, "missing required key 'name'"},
    {HEAD "    host: \"vm\"\n", 3, 5, "missing required key 'configuration'"},
    {HEAD "    configuration: {threads: many}\n", 4, 30, "configuration.threads must be a whole number"},
    {HEAD "    configuration: {threads: -1}\n", 4, 30, "configuration.threads must be a whole number"},
    {HEAD "    configuration: {threads: \"2\"}\n", 4, 30, "configuration.threads must be a whole number"},
    {HEAD "    configuration: {model_sha256: \"abc\"}\n", 4, 35, "configuration.model_sha256 must be 64 hex digits"},
    {HEAD "    configuration: {dtype: [float32]}\n", 4, 28, "configuration.dtype must be a scalar, not a list"},
    {HEAD "    configuration: {dtype: \"float\\u001b[31m\"}\n", 4, 28, "configuration.dtype contains a control character"},
    {HEAD "    configuration: {dtype: \"a\\0b\"}\n", 4, 28, "configuration.dtype contains a control character"},
    {"parity_history: 1\nenvironments:\n  - name: \"\"\n    configuration: {}\n", 3, 11, "name must not be empty"},
    {"parity_history: 1\nenvironments:\n  - name: null\n    configuration: {}\n", 3, 11, "name must not be null"},
    {"", 1, 1, "empty file: not a parity history file"},
    {"parity_history: 1\nenvironments: [\n", 3, 1, "YAML:"},
    {"- 1\n- 2\n", 1, 1, "a parity history file must be a mapping, not a list"},
    {"parity_history: 1\nenvironments: []\n---\nparity_history: 1\n", 3, 1, "a second YAML document"},
    {"parity_history: 1\nparity_history: 1\nenvironments: []\n", 2, 1, "duplicate key 'parity_history'"},
    {"parity_history: 1\nenvironments: [*a]\n", 2, 16, "alias '*a' names no anchor"},
    {"parity_history: 1\nenvironments:\n  - name: \"r\xff\"\n", 3, 13, "byte 0xFF is not UTF-8"},
    {HEAD "    configuration: {env: [XLA_FLAGS]}\n", 4, 26, "configuration.env must be a mapping, not a list"},
    {HEAD "    configuration: {env: {\"XLA FLAGS\": x}}\n", 4, 27,
     "configuration.env: 'XLA FLAGS' is not an environment variable's name"},
    {HEAD "    configuration: {env: {A: null}}\n", 4, 30, "configuration.env.A must be a string"},
    {HEAD "    configuration: {env: {A: x, A: y}}\n", 4, 33, "duplicate key 'A' in configuration.env"},
};

Test(history, every_mistake_is_refused_with_its_line_and_column)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        px_history h;
        px_error err = {0};
        memset(&h, 0x5a, sizeof h);
        int rc = history_parse("h.yaml", bad[i].text, strlen(bad[i].text), &h, &err);
        cr_expect_eq(rc, -1, "%zu: accepted:\n%s", i, bad[i].text);
        if (rc != -1)
            continue;
        cr_expect_eq(err.code, PX_EXIT_USAGE, "%zu: %s", i, err.msg);
        cr_expect_str_eq(err.file, "h.yaml");
        cr_expect(err.line == bad[i].line && err.col == bad[i].col, "%zu: at %d:%d, expected %d:%d: %s", i, err.line,
                  err.col, bad[i].line, bad[i].col, err.msg);
        cr_expect(strstr(err.msg, bad[i].msg), "%zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
        cr_expect_null(strchr(err.msg, '\n'), "%zu: one line", i);
        cr_expect_eq(h.n, 0, "%zu: nothing kept", i);
        cr_expect_null(h.v);
    }
}

/* Cut anywhere, the sample is either refused with a place or reads as a
 * smaller history: never a crash, never a half entry. */
Test(history, a_truncated_file_is_refused_with_a_place)
{
    char *text = tl_slurp(SAMPLE);
    cr_assert_not_null(text);
    size_t n = strlen(text), refused = 0;
    for (size_t cut = 0; cut < n; cut++) {
        px_history h;
        px_error err = {0};
        if (history_parse("cut.yaml", text, cut, &h, &err)) {
            refused++;
            cr_expect(err.line >= 1 && err.col >= 1, "cut at %zu: no place: %s", cut, err.msg);
            continue;
        }
        for (size_t i = 0; i < h.n; i++)
            cr_expect_not_null(h.v[i].env);
        history_free(&h);
    }
    cr_expect_gt(refused, n / 2, "most cuts leave no whole history");
    free(text);
}

/* Many environments and a duplicate at the end: refused in time linear in
 * the size (a hashed set, not a pairwise comparison). */
Test(history, many_environments_read_in_linear_time, .timeout = 60)
{
    size_t n = 40000, cap = n * 80 + 256, at = 0;
    char *text = malloc(cap);
    at += (size_t)snprintf(text + at, cap - at, "parity_history: 1\nenvironments:\n");
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(text + at, cap - at, "  - {name: \"env-%zu\", configuration: {threads: %zu}}\n", i, i);
    at += (size_t)snprintf(text + at, cap - at, "  - {name: \"env-7\", configuration: {}}\n");
    px_history h;
    px_error err = {0};
    clock_t t0 = clock();
    cr_expect_eq(history_parse("big.yaml", text, at, &h, &err), -1);
    cr_expect(strstr(err.msg, "'env-7' is in the history twice"), "%s", err.msg);
    cr_expect_eq(err.line, (int)n + 3);
    cr_expect_lt((double)(clock() - t0) / CLOCKS_PER_SEC, 20.0);
    free(text);
}

Test(history, a_file_over_the_size_limit_is_refused_before_parsing)
{
    ydoc_set_max_mb(0.0009765625); /* 1 KiB: the sample is larger */
    px_history h;
    px_error err = {0};
    cr_expect_eq(history_load(SAMPLE, &h, &err), -1);
    ydoc_set_max_mb(0);
    cr_expect_eq(err.reason, PX_ERR_TOO_LARGE, "%s", err.msg);
    cr_expect(strstr(err.msg, "a history file of more than 1024 bytes"), "%s", err.msg);
    cr_expect_gt(err.line, 1);
}

static px_manifest manifest(const char *dtype, int threads, const char *torch)
{
    px_manifest m = {0};
    m.device = "cpu", m.device_name = "AMD EPYC", m.dtype = (char *)dtype, m.libtorch_version = (char *)torch;
    m.executor = "libtorch", m.matmul_precision = "highest", m.parity_version = "0.1.0", m.threads = threads;
    m.host = "ci", m.tf32 = NULL;
    snprintf(m.model_sha256, sizeof m.model_sha256, "%s", SHA_MODEL);
    return m;
}

Test(history, comparing_lists_exactly_what_changed)
{
    px_manifest a = manifest("float32", 1, "1.13.0"), b = manifest("bfloat16", 1, "2.5.1");
    px_config ca, cb;
    cr_assert_eq(history_config_of(&a, &ca), 0);
    cr_assert_eq(history_config_of(&b, &cb), 0);
    cr_expect_eq(history_compare(&ca, &ca), 0u);
    cr_expect_eq(history_compare(&ca, &cb), (1u << PX_CF_DTYPE) | (1u << PX_CF_TORCH));
    char line[256];
    history_change_text(PX_CF_DTYPE, &ca, &cb, line, sizeof line);
    cr_expect_str_eq(line, "dtype: float32 → bfloat16");
    history_change_text(PX_CF_TORCH, &ca, &cb, line, sizeof line);
    cr_expect_str_eq(line, "torch: 1.13.0 → 2.5.1");
    /* A field recorded on one side only differs; hashes are shortened. */
    px_manifest c = manifest("float32", -1, "1.13.0");
    c.tf32 = "on";
    snprintf(c.model_sha256, sizeof c.model_sha256, "%s", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    px_config cc;
    cr_assert_eq(history_config_of(&c, &cc), 0);
    cr_expect_null(cc.v[PX_CF_THREADS], "-1 threads: not recorded");
    cr_expect_null(cc.v[PX_CF_VOCAB], "an empty hash: not recorded");
    cr_expect_eq(history_compare(&ca, &cc), (1u << PX_CF_THREADS) | (1u << PX_CF_TF32) | (1u << PX_CF_MODEL));
    history_change_text(PX_CF_THREADS, &ca, &cc, line, sizeof line);
    cr_expect_str_eq(line, "threads: 1 → not recorded");
    history_change_text(PX_CF_TF32, &ca, &cc, line, sizeof line);
    cr_expect_str_eq(line, "tf32: not recorded → on");
    history_change_text(PX_CF_MODEL, &ca, &cc, line, sizeof line);
    cr_expect_str_eq(line, "model: e4aefc63a712… → 0123456789ab…");
    history_config_clear(&ca), history_config_clear(&cb), history_config_clear(&cc);
}

/* A check of the demo's two environments, made by hand: each up, from a run
 * here, every example ok, met or not as asked. */
typedef struct fake {
    px_fixture *f;
    px_results *r;
    px_judgement j;
} fake;

static void fake_check(fake *k, const char *ref_dtype, int ref_met, int bf16_met)
{
    px_error err = {0};
    k->f = fixture_load("fixtures/campus-club/fixture.yaml", &err);
    cr_assert_not_null(k->f, "%s", err.msg);
    int idx[2] = {0, 1};
    k->r = results_new(k->f, idx, 2);
    memset(&k->j, 0, sizeof k->j);
    k->j.n_envs = 2;
    k->j.envs = calloc(2, sizeof *k->j.envs);
    const char *dtypes[2] = {ref_dtype, "bfloat16"};
    int met[2] = {ref_met, bf16_met};
    for (int e = 0; e < 2; e++) {
        px_env_result *er = &k->r->envs[e];
        px_manifest m = manifest(dtypes[e], 1, "1.13.0");
        er->state = PX_ENV_UP;
        er->m.device = strdup(m.device), er->m.device_name = strdup(m.device_name), er->m.dtype = strdup(m.dtype);
        er->m.libtorch_version = strdup(m.libtorch_version), er->m.executor = strdup(m.executor);
        er->m.host = strdup("ci"), er->m.threads = 1;
        snprintf(er->m.started_at, sizeof er->m.started_at, "2026-12-0%dT00:00:00Z", e + 1);
        for (size_t x = 0; x < k->r->n_examples; x++)
            er->ex[x].status = PX_ST_OK;
        k->j.envs[e].selected = 1;
        k->j.envs[e].met = met[e];
    }
}

static void fake_free(fake *k)
{
    free(k->j.envs);
    results_free(k->r);
    fixture_free(k->f);
}

Test(history, only_environments_that_met_the_contract_are_recorded)
{
    px_history h = {0};
    px_error err = {0};
    fake k;
    fake_check(&k, "float32", 1, 0);
    cr_expect_eq(history_record(&h, k.f, k.r, &k.j, &err), 1, "the twin did not meet it");
    cr_expect_not_null(history_find(&h, "reference"));
    cr_expect_null(history_find(&h, "cpu-bf16"));
    cr_expect_eq(history_record(&h, k.f, k.r, &k.j, &err), 0, "the same again changes nothing");
    /* Since: the reference meets it as it did; the twin never did. */
    px_since s[2];
    cr_assert_eq(history_since(&h, k.f, k.r, &k.j, s, &err), 0);
    cr_expect(s[0].last && s[0].compared && !s[0].changed && !s[0].regressed);
    cr_expect(!s[1].last && !s[1].regressed);
    fake_free(&k);

    /* Now the reference runs bfloat16 and does not meet it: a regression,
     * dtype changed, and its last good stays float32. */
    fake_check(&k, "bfloat16", 0, 1);
    cr_assert_eq(history_since(&h, k.f, k.r, &k.j, s, &err), 0);
    cr_expect(s[0].regressed && s[0].compared);
    cr_expect_eq(s[0].changed, 1u << PX_CF_DTYPE);
    cr_expect_eq(history_record(&h, k.f, k.r, &k.j, &err), 1, "only the twin");
    cr_expect_str_eq(history_find(&h, "reference")->config.v[PX_CF_DTYPE], "float32");
    cr_expect_str_eq(history_find(&h, "cpu-bf16")->started_at, "2026-12-02T00:00:00Z");
    fake_free(&k);

    /* A run cut short (an example never ran) or down never counts, even
     * if judged met; one not selected (-e) neither. */
    fake_check(&k, "bfloat16", 1, 1);
    k.r->envs[0].ex[3].status = PX_ST_NOT_EVALUATED;
    k.r->envs[1].selected = 0;
    k.j.envs[1].selected = 0;
    cr_expect_eq(history_record(&h, k.f, k.r, &k.j, &err), 0);
    cr_expect_str_eq(history_find(&h, "reference")->config.v[PX_CF_DTYPE], "float32");
    cr_assert_eq(history_since(&h, k.f, k.r, &k.j, s, &err), 0);
    cr_expect(s[0].regressed, "cut short: it does not meet the contract now");
    cr_expect(!s[1].regressed, "not selected: not judged");
    k.r->envs[0].ex[3].status = PX_ST_OK;
    k.r->envs[0].state = PX_ENV_DOWN;
    k.j.envs[0].down = 1;
    cr_assert_eq(history_since(&h, k.f, k.r, &k.j, s, &err), 0);
    cr_expect(s[0].regressed && !s[0].compared, "down: a regression, nothing to compare");
    cr_expect_eq(history_record(&h, k.f, k.r, &k.j, &err), 0);
    /* No results at all: nothing known, not a regression. */
    k.r->envs[0].state = PX_ENV_PENDING;
    k.r->envs[0].origin = PX_ORIGIN_NONE;
    k.j.envs[0].down = 0, k.j.envs[0].absent = 1;
    cr_assert_eq(history_since(&h, k.f, k.r, &k.j, s, &err), 0);
    cr_expect(!s[0].regressed && !s[0].compared && s[0].last);
    fake_free(&k);
    history_free(&h);
}

/* The environment variables that change numerics are part of the
 * configuration: compared and told by name, with both values; a side that
 * did not record them (a manifest or history from before) differs from one
 * that did, even with none set. The file carries them as a mapping and reads
 * back the same; a history without them reads as not recorded. */
Test(history, environment_variables_are_compared_by_name)
{
    px_manifest a = manifest("float32", 1, "1.13.0"), b = a, old = a;
    cr_assert_eq(envrec_add(&a.env, "XLA_FLAGS", "--xla_a"), 0);
    cr_assert_eq(envrec_add(&a.env, "OMP_NUM_THREADS", "1"), 0);
    envrec_sort(&a.env);
    a.env.recorded = 1;
    cr_assert_eq(envrec_add(&b.env, "XLA_FLAGS", "--xla_b"), 0);
    cr_assert_eq(envrec_add(&b.env, "LIBTPU_INIT_ARGS", ""), 0);
    cr_assert_eq(envrec_add(&b.env, "OMP_NUM_THREADS", "1"), 0);
    envrec_sort(&b.env);
    b.env.recorded = 1;
    px_config ca, cb, co;
    cr_assert_eq(history_config_of(&a, &ca), 0);
    cr_assert_eq(history_config_of(&b, &cb), 0);
    cr_assert_eq(history_config_of(&old, &co), 0);
    cr_expect_str_eq(ca.v[PX_CF_ENV], "OMP_NUM_THREADS='1' XLA_FLAGS='--xla_a'");
    cr_expect_null(co.v[PX_CF_ENV], "not recorded");
    cr_expect_eq(history_compare(&ca, &ca), 0u);
    cr_expect_eq(history_compare(&ca, &cb), 1u << PX_CF_ENV, "nothing else changed");
    char line[512];
    history_change_text(PX_CF_ENV, &ca, &cb, line, sizeof line);
    cr_expect_str_eq(line, "LIBTPU_INIT_ARGS: not set → ''; XLA_FLAGS: '--xla_a' → '--xla_b'");
    cr_expect_eq(history_compare(&co, &ca), 1u << PX_CF_ENV);
    history_change_text(PX_CF_ENV, &co, &ca, line, sizeof line);
    cr_expect_str_eq(line, "environment variables: not recorded → OMP_NUM_THREADS='1' XLA_FLAGS='--xla_a'");
    px_manifest none = old;
    none.env.recorded = 1;
    px_config cn;
    cr_assert_eq(history_config_of(&none, &cn), 0);
    cr_expect_eq(history_compare(&co, &cn), 1u << PX_CF_ENV, "none set is not not recorded");
    history_change_text(PX_CF_ENV, &co, &cn, line, sizeof line);
    cr_expect_str_eq(line, "environment variables: not recorded → none set");

    /* Written and read back: recorded with values (one with a control
     * character), recorded with none, not recorded. */
    px_history h = {0};
    const px_config *cfgs[] = {&cb, &cn, &co};
    const char *names[] = {"b", "none", "old"};
    h.v = calloc(3, sizeof *h.v);
    h.cap = 3;
    for (int i = 0; i < 3; i++) {
        h.v[i].env = strdup(names[i]);
        cr_assert_eq(envrec_copy(&h.v[i].config.env, &cfgs[i]->env), 0);
        for (int c = 0; c < PX_CF_COUNT; c++)
            h.v[i].config.v[c] = cfgs[i]->v[c] ? strdup(cfgs[i]->v[c]) : NULL;
        h.n++;
    }
    free(h.v[0].config.env.v[2].value);
    h.v[0].config.env.v[2].value = strdup("--xla_b\ttab");
    free(h.v[0].config.v[PX_CF_ENV]);
    h.v[0].config.v[PX_CF_ENV] = envrec_text(&h.v[0].config.env);
    size_t len;
    char *text = history_text(&h, "f.yaml", &len);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "      parity_version: \"0.1.0\"\n      env:\n        \"LIBTPU_INIT_ARGS\": \"\"\n        "
                           "\"OMP_NUM_THREADS\": \"1\"\n        \"XLA_FLAGS\": \"--xla_b\\ttab\"\n"),
              "%s", text);
    cr_expect(strstr(text, "      env: {}\n"), "%s", text);
    px_history again;
    parse_ok(text, &again);
    cr_assert_eq(again.n, 3);
    for (size_t i = 0; i < 3; i++)
        cr_expect_eq(history_compare(&again.v[i].config, &h.v[i].config), 0u, "%s", h.v[i].env);
    cr_expect_eq(again.v[2].config.env.recorded, 0);
    cr_expect_str_eq(again.v[0].config.v[PX_CF_ENV], "LIBTPU_INIT_ARGS='' OMP_NUM_THREADS='1' XLA_FLAGS='--xla_b\\x09tab'");
    char *text2 = history_text(&again, "f.yaml", &len);
    cr_expect_str_eq(text2, text);
    free(text), free(text2);
    history_free(&again);
    history_free(&h);
    /* The sample, from before: not recorded. */
    cr_assert_eq(history_load(SAMPLE, &h, &(px_error){0}), 0);
    cr_expect_eq(history_find(&h, "reference")->config.env.recorded, 0);
    history_free(&h);
    history_config_clear(&ca), history_config_clear(&cb), history_config_clear(&co), history_config_clear(&cn);
    envrec_clear(&a.env), envrec_clear(&b.env);
}
