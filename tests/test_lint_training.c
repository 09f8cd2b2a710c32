/* parity lint on a training contract (kind training, issue 40): the test
 * fixture is clean; the data file against its pin, its windows against
 * each recipe, seq_len against the model's positions, the tokenizer's ids
 * against config.json's vocab_size, a batch a parallel environment cannot
 * split and a missing why are each one finding at their place. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/lint.h"
#include "testlib.h"

#define TRAINING "tests/data/training/fixture.yaml"
#define AT "tests/data/training/f.yaml"

/* The findings of the test fixture with `from` replaced by `to` (NULL: as
 * it is), linted as a file beside it. */
static px_lint lint_variant(const char *from, const char *to)
{
    char *text = tl_slurp(TRAINING);
    cr_assert_not_null(text);
    char *v = from ? tl_replace_all(text, from, to) : strdup(text);
    cr_assert(!from || strcmp(v, text), "test bug: '%s' not in the fixture", from);
    px_lint out = {0};
    px_error err = {0};
    cr_assert_eq(lint_parse(AT, v, strlen(v), &out, &err), 0, "%s", err.msg);
    free(v), free(text);
    return out;
}

static void lint_done(px_lint *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].msg);
    free(l->v);
}

/* Exactly one finding, at line:col, holding needle. */
static void expect_one(const char *from, const char *to, int line, int col, const char *needle)
{
    px_lint l = lint_variant(from, to);
    cr_expect_eq(l.n, 1u, "%zu findings for '%s'%s%s", l.n, to, l.n ? ": " : "", l.n ? l.v[0].msg : "");
    for (size_t i = 0; i < l.n; i++)
        if (strstr(l.v[i].msg, needle)) {
            cr_expect(l.v[i].line == line && l.v[i].col == col, "at %d:%d, wanted %d:%d (%s)", l.v[i].line,
                      l.v[i].col, line, col, l.v[i].msg);
            lint_done(&l);
            return;
        }
    cr_expect_fail("no finding holds '%s' (first: %s)", needle, l.n ? l.v[0].msg : "none");
    lint_done(&l);
}

Test(lint_training, the_test_fixture_is_clean)
{
    px_lint l = lint_variant(NULL, NULL);
    cr_expect_eq(l.n, 0u, "%s", l.n ? l.v[0].msg : "");
    lint_done(&l);
    /* and through the binary: exit 0, nothing said */
    cmd_result r = tl_run((const char *[]){"parity", "lint", TRAINING, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_empty(r.out);
    tl_free(&r);
}

Test(lint_training, the_data_must_be_there_and_match_its_pin)
{
    expect_one("path: data.txt", "path: nowhere.txt", 38, 13,
               "training data file tests/data/training/nowhere.txt: ");
    expect_one("9cca1d408a61d597cea3122acfc909354d63f6cf9d29e24c35ba3baf9c2c954a",
               "0cca1d408a61d597cea3122acfc909354d63f6cf9d29e24c35ba3baf9c2c954a", 39, 15,
               "training data tests/data/training/data.txt has sha256 9cca1d40");
}

Test(lint_training, each_recipe_fits_the_data_and_the_model)
{
    /* a window longer than the data, and than the model's positions: both said */
    px_lint l = lint_variant("    seq_len: 16\n", "    seq_len: 400\n");
    cr_assert_eq(l.n, 2u, "%zu findings", l.n);
    cr_expect(l.v[0].line == 26 && l.v[0].col == 14 && l.v[1].line == 26);
    cr_expect(strstr(l.v[0].msg, "contract.train: the data is 309 tokens, not one window of seq_len + 1 = 401"),
              "%s", l.v[0].msg);
    cr_expect(strstr(l.v[1].msg, "contract.train: seq_len 400 is more than the model's 64 positions"), "%s",
              l.v[1].msg);
    lint_done(&l);
    expect_one("    batch_size: 2\n", "    batch_size: 64\n", 26, 14,
               "fewer than a step's batch_size 64: each step trains on some window twice");
    /* an example's own: said at its train: */
    expect_one("    train: {lr: 1.0e-5}", "    train: {lr: 1.0e-5, seq_len: 65}", 58, 12,
               "example 'low-lr' train: seq_len 65 is more than the model's 64 positions");
}

Test(lint_training, the_loaders_refusals_are_findings)
{
    expect_one("{processes: 2, strategy: fsdp}", "{processes: 4, strategy: fsdp}", 51, 93,
               "contract.train.batch_size 2 does not split evenly across 4 processes");
    expect_one("rtol: 0.01, why: \"bfloat16 autocast keeps three digits of a loss near 5\"}", "rtol: 0.01}", 42, 13,
               "contract.compare.train.loss: missing required key 'why'");
    expect_one("    why: \"the contract's recipe as it is: AdamW, two warm-up steps, cosine decay\"\n", "", 53, 5,
               "example 'adamw-warmup' has no why");
}

/* A model whose embedding is narrower than the tokenizer's ids. */
Test(lint_training, the_tokenizers_ids_must_fit_the_models_vocabulary)
{
    char *dir = tl_tmpdir(), cfg[PATH_MAX], link[PATH_MAX], real[PATH_MAX];
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    char *text = tl_slurp("tests/data/training/model/config.json");
    char *small = tl_replace_all(text, "\"vocab_size\": 300", "\"vocab_size\": 100");
    tl_write(cfg, small);
    snprintf(link, sizeof link, "%s/model.safetensors", dir);
    cr_assert(realpath("tests/data/training/model/model.safetensors", real) && !symlink(real, link));
    char from[64], to[PATH_MAX + 16];
    snprintf(from, sizeof from, "    path: model\n");
    snprintf(to, sizeof to, "    path: %s\n", dir);
    px_lint l = lint_variant(from, to);
    int found = 0;
    for (size_t i = 0; i < l.n; i++)
        found |= strstr(l.v[i].msg, "config.json has vocab_size 100") != NULL && l.v[i].line == 21;
    cr_expect(found, "%zu findings, none of the vocabulary at line 21 (first: %s)", l.n, l.n ? l.v[0].msg : "");
    lint_done(&l);
    unlink(cfg), unlink(link), rmdir(dir);
    free(dir), free(text), free(small);
}
