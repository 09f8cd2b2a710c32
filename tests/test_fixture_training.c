/* A training contract (kind training, issue 40): tests/data/training/
 * fixture.yaml loads with every field; contract.train's recipe and an
 * example's overrides, compare.train, an environment's precision recipe
 * and parallel plan; every bad one refused in one line at file:line:col.
 * The classifier's contract.train (parity bench's train-step) is
 * unchanged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/fingerprint.h"
#include "parity/fixture.h"
#include "parity/kind.h"
#include "parity/recipe.h"
#include "testlib.h"

#define TRAINING "tests/data/training/fixture.yaml"
#define AT "tests/data/training/f.yaml"

/* Replace the first occurrence of `from` in base by `to`. */
static char *variant_of(const char *base, const char *from, const char *to)
{
    const char *at = strstr(base, from);
    cr_assert_not_null(at, "test bug: '%s' not in the base fixture", from);
    size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    return s;
}

/* The training fixture with `from` replaced by `to` (NULL: as it is),
 * parsed as a file beside it (its model directory and data are found). */
static px_fixture *training_variant(const char *from, const char *to, px_error *err)
{
    char *text = tl_slurp(TRAINING);
    cr_assert_not_null(text);
    char *v = from ? variant_of(text, from, to) : strdup(text);
    memset(err, 0, sizeof *err);
    px_fixture *f = fixture_parse(AT, v, strlen(v), err);
    free(v), free(text);
    return f;
}

static void expect_error(const char *from, const char *to, int line, int col, const char *needle)
{
    px_error err;
    px_fixture *f = training_variant(from, to, &err);
    cr_assert_null(f, "expected an error for: %s", to);
    cr_expect_eq(err.code, PX_EXIT_USAGE, "%s", to);
    cr_expect_str_eq(err.file, AT);
    cr_expect_eq(err.line, line, "line %d, wanted %d (%s)", err.line, line, err.msg);
    cr_expect_eq(err.col, col, "col %d, wanted %d (%s)", err.col, col, err.msg);
    cr_expect(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
    char line_buf[2048];
    px_error_format(&err, line_buf, sizeof line_buf);
    cr_expect(strchr(line_buf, '\n') == NULL, "error must be one line: %s", line_buf);
}

Test(fixture_training, the_test_fixture_loads_with_every_field)
{
    px_error err;
    px_fixture *f = training_variant(NULL, NULL, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_expect_eq(f->kind, PX_MODEL_TRAINING);
    cr_expect(kind_of(f)->trains);
    cr_expect_eq(f->model_format, PX_FORMAT_TRANSFORMERS);
    cr_expect_eq(f->n_model_files, 3u);
    cr_expect(f->tokenizer_hf);
    cr_expect_str_eq(f->vocab_sha256, "3b284f74f3c6c3912821ee72e6eec1680861459a4020efc059b5f526999c43f8");
    cr_expect_eq(f->n_labels, 0u);
    cr_expect_eq(f->n_inputs, 0u, "a training run has no forward inputs of the contract's");
    const px_recipe *r = &f->recipe;
    cr_expect(r->steps == 10 && r->batch_size == 2 && r->seq_len == 16);
    cr_expect_eq(r->optimizer, PX_OPT_ADAMW);
    cr_expect(r->lr == 0.001 && r->beta1 == 0.9 && r->beta2 == 0.95 && r->eps == 1e-8 && r->weight_decay == 0.1);
    cr_expect(r->warmup_steps == 2 && r->decay == PX_DECAY_COSINE && r->decay_min == 0.1);
    cr_expect(r->clip_grad_norm == 1.0 && r->seed == 40ULL && r->momentum == 0);
    cr_expect_eq(r->loc.line, 24);
    cr_expect_str_eq(f->train_data.path, "tests/data/training/data.txt");
    cr_expect_str_eq(f->train_data.sha256, "9cca1d408a61d597cea3122acfc909354d63f6cf9d29e24c35ba3baf9c2c954a");
    cr_expect_eq(f->train_data.sha_loc.line, 39);
    const px_train_checks *tc = &f->train_cmp;
    cr_expect(tc->loss.present && tc->loss.atol == 0.02 && tc->loss.rtol == 0.01);
    cr_expect(tc->grad_norm.present && tc->grad_norm.atol == 0.05 && tc->grad_norm.rtol == 0.05);
    cr_expect(tc->update.present && tc->update.atol == 0.001 && tc->update.rtol == 0.1);
    cr_expect(tc->params_present && tc->params_max_rel == 0.05 && tc->params_why);
    cr_expect(tc->learning_min_fraction == 0.1 && tc->learning_why);
    cr_expect(strstr(tc->loss.why, "three digits"));
    cr_expect_eq(tc->loss.loc.line, 42);
    cr_expect_null(f->train.why, "the classifier's train-step settings stay unset");
    cr_assert_eq(f->n_envs, 4u);
    const px_env *ref = fixture_env(f, "reference"), *twin = fixture_env(f, "cpu-bf16"),
                 *w16 = fixture_env(f, "bf16-weights"), *fsdp = fixture_env(f, "fsdp-2");
    cr_assert(ref && twin && w16 && fsdp);
    cr_expect_null(ref->mixed_precision_param);
    cr_expect_eq(ref->parallel.processes, 0);
    cr_expect_str_eq(twin->mixed_precision_param, "bfloat16");
    cr_expect_str_eq(twin->dtype, "float32");
    cr_expect_str_eq(twin->role, "twin");
    cr_expect_str_eq(w16->dtype, "bfloat16");
    cr_expect_null(w16->mixed_precision_param);
    cr_expect_eq(fsdp->parallel.processes, 2);
    cr_expect_eq(fsdp->parallel.strategy, PX_PAR_FSDP);
    cr_expect_null(fsdp->parallel.backend);
    cr_expect_eq(fsdp->parallel.loc.line, 51);
    cr_assert_eq(f->n_examples, 2u);
    const px_example *a = &f->examples[0], *b = &f->examples[1];
    cr_assert_not_null(a->recipe);
    cr_assert_not_null(b->recipe);
    cr_expect_str_eq(a->text, "", "a run has no text");
    cr_expect_eq(a->recipe->lr, 0.001, "the contract's recipe as it is");
    cr_expect_eq(a->recipe->steps, 10);
    cr_expect(isnan(a->loss_at_most));
    cr_expect_eq(b->recipe->lr, 1e-5, "its own lr");
    cr_expect(b->recipe->steps == 10 && b->recipe->beta2 == 0.95 && b->recipe->decay == PX_DECAY_COSINE,
              "the rest the contract's");
    cr_expect_eq(b->recipe->loc.line, 58);
    cr_expect_eq(b->loss_at_most, 6.0);
    cr_expect_eq(f->recipe.lr, 0.001, "an example's train: never changes the contract's");
    fixture_free(f);
}

/* Defaults (fixture.h): adamw with torch's betas, eps and weight decay, no
 * warm-up, no decay, no clipping, seed 0; sgd with its momentum. */
Test(fixture_training, the_recipe_takes_its_defaults_and_sgd)
{
    px_error err;
    px_fixture *f = training_variant("    optimizer: adamw\n    lr: 0.001\n    betas: [0.9, 0.95]\n    eps: 1.0e-8\n"
                                     "    weight_decay: 0.1\n    warmup_steps: 2\n    decay: cosine\n    decay_min: 0.1\n"
                                     "    clip_grad_norm: 1.0\n    seed: 40\n",
                                     "    lr: 0.001\n", &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    const px_recipe *r = &f->recipe;
    cr_expect(r->optimizer == PX_OPT_ADAMW && r->beta1 == 0.9 && r->beta2 == 0.999 && r->eps == 1e-8 &&
              r->weight_decay == 0.01);
    cr_expect(r->warmup_steps == 0 && r->decay == PX_DECAY_NONE && r->decay_min == 0 && r->clip_grad_norm == 0 &&
              r->seed == 0);
    double lr[10];
    recipe_lr(r, lr);
    cr_expect(lr[0] == 0.001 && lr[9] == 0.001);
    fixture_free(f);
    /* an example switching to SGD with momentum (the contract's betas are
     * the contract's, unused by it) */
    f = training_variant("    train: {lr: 1.0e-5}", "    train: {optimizer: sgd, momentum: 0.9, lr: 0.1, steps: 4}", &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    r = f->examples[1].recipe;
    cr_expect(r->optimizer == PX_OPT_SGD && r->momentum == 0.9 && r->lr == 0.1 && r->steps == 4);
    cr_expect_eq(f->examples[0].recipe->optimizer, PX_OPT_ADAMW);
    fixture_free(f);
}

/* An example's own recipe enters its fingerprint; the contract's recipe and
 * its data pin enter the contract's compare part. */
Test(fixture_training, the_recipe_and_the_data_pin_enter_the_fingerprints)
{
    px_error err;
    px_fixture *f = training_variant(NULL, NULL, &err);
    cr_assert_not_null(f);
    px_fingerprint fp0, fp1;
    char ex0[PX_SHA256_HEX], ex1[PX_SHA256_HEX];
    fingerprint_contract(f, &fp0);
    fingerprint_example(f, 1, ex0);
    f->examples[1].recipe->lr = 2e-5;
    fingerprint_example(f, 1, ex1);
    cr_expect_str_neq(ex0, ex1, "an example's own lr is part of its definition");
    f->examples[1].recipe->lr = 1e-5;
    fingerprint_example(f, 1, ex1);
    cr_expect_str_eq(ex0, ex1);
    f->examples[1].recipe->clip_grad_norm = 0.5;
    fingerprint_example(f, 1, ex1);
    cr_expect_str_neq(ex0, ex1, "and every other key of it");
    f->examples[1].recipe->clip_grad_norm = 1.0;
    f->examples[1].loss_at_most = 5.0;
    fingerprint_example(f, 1, ex1);
    cr_expect_str_neq(ex0, ex1, "its expect");
    f->examples[1].loss_at_most = 6.0;
    f->recipe.seed = 41;
    fingerprint_contract(f, &fp1);
    cr_expect_str_neq(fp0.part[PX_PART_COMPARE], fp1.part[PX_PART_COMPARE], "the contract's recipe");
    f->recipe.seed = 40;
    f->train_data.sha256[0] = f->train_data.sha256[0] == 'a' ? 'b' : 'a';
    fingerprint_contract(f, &fp1);
    cr_expect_str_neq(fp0.part[PX_PART_INPUT], fp1.part[PX_PART_INPUT], "the data's pin");
    f->train_data.sha256[0] = '9';
    f->train_cmp.loss.atol = 0.5;
    fingerprint_contract(f, &fp1);
    cr_expect_str_neq(fp0.part[PX_PART_COMPARE], fp1.part[PX_PART_COMPARE], "a tolerance");
    f->train_cmp.loss.atol = 0.02;
    fingerprint_contract(f, &fp1);
    for (int p = 0; p < PX_PART_COUNT; p++)
        cr_expect_str_eq(fp0.part[p], fp1.part[p], "part %d back as it was", p);
    fixture_free(f);
}

Test(fixture_training, a_bad_recipe_is_refused_at_its_place)
{
    expect_error("    steps: 10\n", "    steps: 0\n", 24, 12, "contract.train.steps must be between 1 and 100000");
    expect_error("    steps: 10\n", "    steps: 100001\n", 24, 12, "must be between 1 and 100000");
    expect_error("    steps: 10\n", "    steps: 2.5\n", 24, 12, "contract.train.steps must be a whole number");
    expect_error("    steps: 10\n", "", 24, 5, "missing required key 'steps'");
    expect_error("    lr: 0.001\n", "    lr: 0\n", 28, 9, "contract.train.lr must be between");
    expect_error("    lr: 0.001\n", "    lr: .nan\n", 28, 9, "contract.train.lr must be a number");
    expect_error("    lr: 0.001\n", "    lr: .inf\n", 28, 9, "contract.train.lr must be a number");
    expect_error("    lr: 0.001\n", "", 24, 5, "missing required key 'lr'");
    expect_error("    batch_size: 2\n", "    batch_size: 0\n", 25, 17, "contract.train.batch_size must be between");
    expect_error("    seq_len: 16\n", "    seq_len: -1\n", 26, 14, "contract.train.seq_len must be between");
    expect_error("optimizer: adamw", "optimizer: lion", 27, 16, "contract.train.optimizer must be adamw or sgd, not 'lion'");
    expect_error("optimizer: adamw", "optimizer: sgd", 29, 12, "contract.train.betas is AdamW's, but this run's optimizer is sgd");
    expect_error("    seed: 40\n", "    seed: 40\n    momentum: 0.9\n", 37, 15,
                 "contract.train.momentum is SGD's, but this run's optimizer is adamw");
    expect_error("betas: [0.9, 0.95]", "betas: [0.9]", 29, 12, "contract.train.betas must be [beta1, beta2]");
    expect_error("betas: [0.9, 0.95]", "betas: [0.9, 1.0]", 29, 18, "beta2 must be a number from 0 to below 1");
    expect_error("betas: [0.9, 0.95]", "betas: 0.9", 29, 12, "contract.train.betas must be a list");
    expect_error("eps: 1.0e-8", "eps: 0", 30, 10, "contract.train.eps must be between");
    expect_error("weight_decay: 0.1", "weight_decay: -0.1", 31, 19, "contract.train.weight_decay must be between");
    expect_error("warmup_steps: 2", "warmup_steps: 11", 32, 19, "warmup_steps is more than the run's steps");
    expect_error("decay: cosine", "decay: step", 33, 12, "contract.train.decay must be none, linear or cosine, not 'step'");
    expect_error("decay: cosine", "decay: none", 34, 16, "decay_min goes with decay linear or cosine");
    expect_error("decay_min: 0.1", "decay_min: 1.5", 34, 16, "contract.train.decay_min must be between 0 and 1");
    expect_error("clip_grad_norm: 1.0", "clip_grad_norm: -1", 35, 21, "clip_grad_norm must be between");
    expect_error("seed: 40", "seed: -4", 36, 11, "contract.train.seed must be a whole number from 0 to 2^63-1");
    expect_error("    seed: 40\n", "    seed: 40\n    schedule: cosine\n", 37, 5, "unknown key 'schedule' in contract.train");
    /* the data: a pinned text file */
    expect_error("    data:\n      path: data.txt\n      sha256: \"9cca1d408a61d597cea3122acfc909354d63f6cf9d29e24c35ba3baf9c2c954a\"\n",
                 "", 24, 5, "missing required key 'data'");
    expect_error("      sha256: \"9cca1d408a61d597cea3122acfc909354d63f6cf9d29e24c35ba3baf9c2c954a\"\n", "", 38, 7,
                 "missing required key 'sha256'");
    expect_error("      sha256: \"9cca1d408a61d597cea3122acfc909354d63f6cf9d29e24c35ba3baf9c2c954a\"\n",
                 "      sha256: \"9cca\"\n", 39, 15, "contract.train.data.sha256 must be 64 hex digits");
    expect_error("  train:\n", "  tr:\n", 23, 3, "unknown key 'tr' in contract");
}

Test(fixture_training, a_bad_contract_of_kind_training_is_refused_at_its_place)
{
    expect_error("    path: model\n", "    path: model\n    inputs: [input_ids]\n", 14, 13,
                 "contract.model.inputs is a forward's; a training run calls the causal LM");
    expect_error("      kind: huggingface\n      file: tokenizer.json\n", "      kind: wordpiece\n      vocab: tokenizer.json\n",
                 20, 13, "a training run's tokenizer is kind huggingface");
    expect_error("      sha256: \"3b284f74f3c6c3912821ee72e6eec1680861459a4020efc059b5f526999c43f8\"\n", "", 20, 7,
                 "missing required key 'sha256'");
    expect_error("  input:\n", "  input:\n    max_tokens: 64\n", 19, 17,
                 "contract.input.max_tokens is not a training run's: its data is contract.train.data");
    expect_error("  train:\n", "  labels: [a, b]\n  train:\n", 23, 11, "contract.labels is not a training run's");
    expect_error("  train:\n", "  generate: {decoding: greedy, max_new_tokens: 4}\n  train:\n", 23, 13,
                 "contract.generate is not a training run's");
    expect_error("  compare:\n    train:\n", "  compare:\n    logits: {atol: 1}\n    train:\n", 41, 13,
                 "contract.compare.logits is not a training run's");
    expect_error("  train:\n    steps: 10\n", "  tr:\n    steps: 10\n", 23, 3, "unknown key 'tr' in contract");
    /* compare.train: loss required, every why required */
    expect_error("      loss: {atol: 0.02, rtol: 0.01, why: \"bfloat16 autocast keeps three digits of a loss near 5\"}\n", "",
                 42, 7, "missing required key 'loss'");
    expect_error("rtol: 0.01, why: \"bfloat16 autocast keeps three digits of a loss near 5\"}", "rtol: 0.01}", 42, 13,
                 "contract.compare.train.loss: missing required key 'why'");
    expect_error("why: \"bfloat16 autocast keeps three digits of a loss near 5\"}", "why: \" \"}", 42, 43,
                 "contract.compare.train.loss.why is empty");
    expect_error("{atol: 0.02, rtol: 0.01, why:", "{why:", 42, 13, "contract.compare.train.loss needs atol, rtol or both");
    expect_error("atol: 0.05, rtol: 0.05, why: \"a gradient", "atol: -1, rtol: 0.05, why: \"a gradient", 43, 25,
                 "contract.compare.train.grad_norm.atol must be between");
    expect_error("update: {atol: 0.001, rtol: 0.1, why: \"AdamW's step is lr-sized; a tenth of it is rounding\"}",
                 "update: {atol: 0.001, rtol: 0.1}", 44, 15, "contract.compare.train.update: missing required key 'why'");
    expect_error("params: {max_rel: 0.05, why: \"ten steps at lr 1e-3 move a parameter by about that much\"}",
                 "params: {why: \"x\"}", 45, 15, "missing required key 'max_rel'");
    expect_error("params: {max_rel: 0.05, why: \"ten steps at lr 1e-3 move a parameter by about that much\"}",
                 "params: {max_rel: 0.05}", 45, 15, "contract.compare.train.params: missing required key 'why'");
    expect_error("min_fraction: 0.1, why", "min_fraction: 2, why", 46, 32,
                 "contract.compare.train.learning.min_fraction must be between 0 and 1");
    expect_error("learning: {min_fraction: 0.1, why: \"a run that keeps a tenth of the reference's drop still learns\"}",
                 "learning: {min_fraction: 0.1}", 46, 17, "contract.compare.train.learning: missing required key 'why'");
    expect_error("      learning:", "      curve: {}\n      learning:", 46, 7, "unknown key 'curve' in contract.compare.train");
}

Test(fixture_training, compare_train_is_required_and_only_a_training_runs)
{
    char *text = tl_slurp(TRAINING);
    cr_assert_not_null(text);
    const char *cmp = strstr(text, "  compare:\n"), *envs = strstr(text, "environments:\n");
    cr_assert(cmp && envs);
    size_t n = strlen(text);
    char *v = malloc(n + 1);
    snprintf(v, n + 1, "%.*s%s", (int)(cmp - text), text, envs);
    px_error err = {0};
    px_fixture *f = fixture_parse(AT, v, strlen(v), &err);
    cr_expect_null(f);
    cr_expect(strstr(err.msg, "needs contract.compare.train.loss"), "%s", err.msg);
    cr_expect(err.line == 7 && err.col == 3, "at the contract: %d:%d", err.line, err.col);
    fixture_free(f);
    free(v), free(text);
    /* on a classifier: refused, and its own contract.train is as it was */
    static const char *const clf = "parity: 1\n"
                                   "contract:\n"
                                   "  task: t\n"
                                   "  model: {path: m.pt}\n"
                                   "  input:\n"
                                   "    tokenizer: {kind: wordpiece, vocab: v.txt}\n"
                                   "  labels: [a, b]\n"
                                   "  compare:\n"
                                   "    train: {loss: {atol: 1, why: w}}\n"
                                   "  train: {lr: 0.1, atol: 0.01, rtol: 0, why: one SGD step}\n"
                                   "environments:\n"
                                   "  reference: {device: cpu, parallel: {processes: 2, strategy: ddp}}\n"
                                   "examples:\n"
                                   "  - id: one\n"
                                   "    text: hello\n"
                                   "    train: {lr: 0.1}\n"
                                   "    expect: {label: a}\n";
    f = fixture_parse("f.yaml", clf, strlen(clf), &err);
    cr_expect_null(f);
    cr_expect_eq(err.line, 9);
    cr_expect(strstr(err.msg, "contract.compare.train is for a training run"), "%s", err.msg);
    char *c2 = variant_of(clf, "  compare:\n    train: {loss: {atol: 1, why: w}}\n", "");
    f = fixture_parse("f.yaml", c2, strlen(c2), &err);
    cr_expect_null(f);
    cr_expect_eq(err.line, 10);
    cr_expect(strstr(err.msg, "parallel is for a training run"), "%s", err.msg);
    char *c3 = variant_of(c2, ", parallel: {processes: 2, strategy: ddp}", "");
    f = fixture_parse("f.yaml", c3, strlen(c3), &err);
    cr_expect_null(f);
    cr_expect_eq(err.line, 14);
    cr_expect(strstr(err.msg, "an example's train: is for a training run"), "%s", err.msg);
    char *c4 = variant_of(c3, "    train: {lr: 0.1}\n", "");
    f = fixture_parse("f.yaml", c4, strlen(c4), &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_expect(f->train.present && f->train.lr == 0.1 && f->train.atol == 0.01, "the classifier's train-step");
    cr_expect_null(f->examples[0].recipe);
    cr_expect(isnan(f->examples[0].loss_at_most));
    fixture_free(f);
    free(c2), free(c3), free(c4);
}

Test(fixture_training, a_bad_environment_is_refused_at_its_place)
{
    const char *twin = "mixed_precision_param: bfloat16, executor";
    expect_error(twin, "mixed_precision_param: float16, executor", 49, 66, "mixed_precision_param must be bfloat16");
    expect_error("dtype: float32, mixed_precision_param", "dtype: bfloat16, mixed_precision_param", 49, 67,
                 "over float32 master weights: environment 'cpu-bf16' says dtype bfloat16");
    expect_error(twin, "mixed_precision_reduce: bfloat16, executor", 49, 67,
                 "mixed_precision_reduce is how gradients are reduced across ranks");
    expect_error("{processes: 2, strategy: fsdp}}", "{processes: 2, strategy: fsdp}, mixed_precision_reduce: float16}",
                 51, 137, "mixed_precision_reduce must be float32 or bfloat16");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 1, strategy: fsdp}", 51, 93,
                 "parallel.processes must be between 2 and 64");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 65, strategy: fsdp}", 51, 93, "between 2 and 64");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 2, strategy: tp}", 51, 106,
                 "parallel.strategy must be ddp or fsdp, not 'tp'");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 2}", 51, 81, "missing required key 'strategy'");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 2, strategy: fsdp, backend: \"\"}", 51, 121,
                 "parallel.backend is empty");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 2, strategy: fsdp, mesh: [2]}", 51, 112,
                 "unknown key 'mesh'");
    expect_error("executor: python, threads: 1, parallel", "executor: libtorch, threads: 1, parallel", 51, 83,
                 "runs on several processes (parallel:), launched as torchrun launches them: say executor: python");
    expect_error("{processes: 2, strategy: fsdp}", "{processes: 3, strategy: fsdp}", 51, 93,
                 "contract.train.batch_size 2 does not split evenly across 3 processes");
    expect_error("  bf16-weights:", "  imported: {results: r.yaml, parallel: {processes: 2, strategy: ddp}}\n  bf16-weights:",
                 50, 41, "environment 'imported' is imported (results:)");
    expect_error("  bf16-weights: {device: cpu, dtype: bfloat16,",
                 "  bf16-weights: {model: {path: m.pt, format: torchscript, sha256: \""
                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}, device: cpu, dtype: bfloat16,",
                 50, 46, "environment 'bf16-weights'.model: a training run trains a Transformers causal LM");
    /* an example's batch that the ranks cannot split: said at its train: */
    expect_error("    train: {lr: 1.0e-5}", "    train: {lr: 1.0e-5, batch_size: 3}", 58, 12,
                 "example 'low-lr' trains on batch_size 3, which environment 'fsdp-2' cannot split evenly across its 2 "
                 "processes");
    /* ddp and a backend load */
    px_error err;
    px_fixture *f = training_variant("{processes: 2, strategy: fsdp}",
                                     "{processes: 2, strategy: ddp, backend: gloo}, mixed_precision_reduce: float32", &err);
    cr_assert_not_null(f, "%s", err.msg);
    const px_env *e = fixture_env(f, "fsdp-2");
    cr_expect(e->parallel.strategy == PX_PAR_DDP && !strcmp(e->parallel.backend, "gloo"));
    cr_expect_str_eq(e->mixed_precision_reduce, "float32");
    fixture_free(f);
}

Test(fixture_training, a_bad_run_is_refused_at_its_place)
{
    const char *own = "    train: {lr: 1.0e-5}";
    expect_error(own, "    text: hello", 58, 11, "a training run has no text: it trains on contract.train.data");
    expect_error(own, "    seed: 4", 58, 11, "a training run's seed is a recipe key: say train: {seed: N}");
    expect_error(own, "    class: a", 58, 12, "a training run has no class");
    expect_error(own, "    train: {lr: 0}", 58, 17, "example train.lr must be between");
    expect_error(own, "    train: {data: {path: x, sha256: y}}", 58, 19, "example train.data: every run trains on contract.train.data");
    expect_error(own, "    train: {momentum: 0.9}", 58, 23, "example train.momentum is SGD's, but this run's optimizer is adamw");
    expect_error(own, "    train: {optimizer: sgd, eps: 1.0e-6}", 58, 34, "example train.eps is AdamW's");
    expect_error(own, "    train: {steps: 1}", 58, 20, "example train: warmup_steps is more than the run's steps");
    expect_error(own, "    train: {warmup: 3}", 58, 13, "unknown key 'warmup' in example train");
    expect_error(own, "    train: 3", 58, 12, "example train must be a mapping");
    expect_error("{loss_at_most: 6.0}", "{loss_at_most: .nan}", 59, 28, "expect.loss_at_most must be a number");
    expect_error("{loss_at_most: 6.0}", "{loss_at_most: -1}", 59, 28, "expect.loss_at_most must be between");
    expect_error("{loss_at_most: 6.0}", "{label: a}", 59, 14, "unknown key 'label' in expect (a training run's)");
    expect_error("{loss_at_most: 6.0}", "{}", 59, 13, "missing required key 'loss_at_most'");
    expect_error("{loss_at_most: 6.0}", "rejected", 59, 13, "expect must be a mapping");
}
