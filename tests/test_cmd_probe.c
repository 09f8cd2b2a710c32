/* The probe forward before the examples (issue 38, item 1), through the
 * real parity binary. The probe is a real input (the shortest example),
 * never the empty text alone: a tokenizer that adds no special tokens
 * (Qwen's byte-level BPE) gives the empty text no token, and a model fails
 * on none. A wrong label count is then refused before any example, exit 2,
 * as for a BERT fixture, naming what was sent; and when the probe gives no
 * output, the examples' outputs are held to the same rule until one fits.
 * A healthy run's header says the first forward's time, never "no forward
 * gave an output".
 *
 * The models are made here, from configs, with the venv's Python: a tiny
 * Qwen2 sequence classifier (a Transformers directory) on the byte-level
 * BPE tokenizer of tests/data, and a TorchScript classifier that raises on
 * the shortest input. Torch 2 with transformers only; skipped otherwise,
 * saying so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define PY tl_python()
#define BYTELEVEL "tests/data/bpe-bytelevel-small.json"

static int torch2(void) { return tl_torch_version()[0] >= '2'; }

static void need_transformers(void)
{
    if (!torch2())
        cr_skip_test("needs torch 2 and transformers; %s has torch %s", PY, tl_torch_version());
}

/* Runs the Python program text in dir (HF offline); asserts it exits 0. */
static void python_in(const char *dir, const char *program)
{
    char path[512], cmd[4096], here[2048];
    snprintf(path, sizeof path, "%s/make.py", dir);
    tl_write(path, program);
    cr_assert_not_null(getcwd(here, sizeof here));
    const char *py = PY;
    char abs[2600];
    snprintf(abs, sizeof abs, "%s%s%s", py[0] == '/' || !strchr(py, '/') ? "" : here,
             py[0] == '/' || !strchr(py, '/') ? "" : "/", py);
    snprintf(cmd, sizeof cmd, "cd '%s' && HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 '%s' make.py > make.log 2>&1", dir,
             abs);
    int st = system(cmd);
    if (st) {
        snprintf(path, sizeof path, "%s/make.log", dir);
        char *log = tl_slurp(path);
        cr_assert_fail("make.py failed:\n%s", log ? log : "?");
    }
}

/* The sha256 of path, hex. */
static void sha256_of(const char *path, char hex[65])
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    cr_assert(p && fscanf(p, "%64s", hex) == 1, "sha256sum %s", path);
    pclose(p);
}

static void remove_dir(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* A Qwen2 sequence classifier with num_labels outputs, saved with
 * save_pretrained into dir/model with the byte-level BPE tokenizer (no
 * template: the empty text is no token). */
static void make_qwen(const char *dir, int num_labels)
{
    char here[2048], tok[2200], prog[4096];
    cr_assert_not_null(getcwd(here, sizeof here));
    snprintf(tok, sizeof tok, "%s/%s", here, BYTELEVEL);
    snprintf(prog, sizeof prog,
             "import shutil, torch\n"
             "from transformers import Qwen2Config, Qwen2ForSequenceClassification\n"
             "torch.manual_seed(38)\n"
             "c = Qwen2Config(vocab_size=2560, hidden_size=16, intermediate_size=32, num_hidden_layers=1,\n"
             "                num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=128,\n"
             "                num_labels=%d, pad_token_id=0)\n"
             "Qwen2ForSequenceClassification(c).eval().save_pretrained('model')\n"
             "shutil.copy('%s', 'model/tokenizer.json')\n",
             num_labels, tok);
    python_in(dir, prog);
}

/* dir/fixture.yaml for dir/model, the labels given, with a twin (so that
 * a run whose every example is bad-shape would exit 0, as the issue saw). */
static char *qwen_fixture(const char *dir, const char *labels)
{
    static const char *const files[] = {"config.json", "model.safetensors", "tokenizer.json"};
    char sums[3][65], path[600];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/model/%s", dir, files[i]);
        sha256_of(path, sums[i]);
    }
    char *fx = malloc(4096);
    snprintf(fx, 4096,
             "parity: 1\n"
             "contract:\n"
             "  task: Sort a text into one of its kinds (a test of the probe).\n"
             "  model:\n"
             "    format: transformers\n"
             "    path: model\n"
             "    files:\n"
             "      config.json: %s\n"
             "      model.safetensors: %s\n"
             "      tokenizer.json: %s\n"
             "  input:\n"
             "    tokenizer: {kind: huggingface, file: model/tokenizer.json, sha256: %s}\n"
             "    max_tokens: 64\n"
             "    empty: reject\n"
             "  labels: %s\n"
             "environments:\n"
             "  reference: {executor: python, device: cpu, dtype: float32, threads: 1, role: reference}\n"
             "  twin: {executor: python, device: cpu, dtype: float32, threads: 1, role: twin}\n"
             "examples:\n"
             "  - {id: greeting, text: \"Hello there, world, and hello again\", expect: {label: yes}, why: a plain "
             "text}\n"
             "  - {id: short, text: \"Another one\", expect: {label: no}, why: the shortest}\n",
             sums[0], sums[1], sums[2], sums[2], labels);
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    tl_write(path, fx);
    free(fx);
    return strdup(path);
}

/* The line of "  labels:" in a fixture qwen_fixture wrote. */
#define LABELS_LINE 15

Test(probe, a_wrong_label_count_is_refused_when_the_tokenizer_adds_no_special_tokens, .timeout = 300)
{
    need_transformers();
    char *dir = tl_tmpdir();
    make_qwen(dir, 3);
    char *fx = qwen_fixture(dir, "[yes, no]");
    char out[600];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "--python", PY, "-o", out, NULL});
    cr_expect_eq(r.status, 2, "a wrong label count runs: exit %d\n%s%s", r.status, r.out, r.err);
    char want[200];
    snprintf(want, sizeof want, "fixture.yaml:%d:11: contract lists 2 labels but the model gives 3 outputs",
             LABELS_LINE);
    cr_expect(strstr(r.err, want), "want '%s' in:\n%s", want, r.err);
    /* It names what was sent: the shortest example, never "[CLS] [SEP]". */
    cr_expect(strstr(r.err, "the probe forward of example 'short', 3 tokens"), "%s", r.err);
    cr_expect_null(strstr(r.err, "[CLS]"), "%s", r.err);
    cr_expect_null(strstr(r.out, "bad-shape"), "every example marked bad-shape:\n%s", r.out);
    tl_free(&r);
    free(fx);
    remove_dir(dir);
}

/* The same model with the right labels: it runs, and the header says the
 * first forward's time (the probe is an example; the empty text is no
 * token and was never sent). */
Test(probe, a_right_label_count_runs_and_the_header_has_the_first_forward, .timeout = 300)
{
    need_transformers();
    char *dir = tl_tmpdir();
    make_qwen(dir, 2);
    char *fx = qwen_fixture(dir, "[yes, no]");
    char out[600];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "--python", PY, "-o", out, NULL});
    cr_expect(r.status == 0 || r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    cr_expect_null(strstr(r.out, "bad-shape"), "%s", r.out);
    cr_expect_null(strstr(r.out, "no forward gave an output"), "%s", r.out);
    cr_expect(strstr(r.out, "first forward "), "%s", r.out);
    tl_free(&r);
    free(fx);
    remove_dir(dir);
}

/* A TorchScript classifier of 3 outputs that raises on inputs of at most 3
 * tokens: the probe (the shortest example, [CLS] word [SEP]) gives no
 * output, and the label check falls to the first example that gives one. */
Test(probe, a_probe_without_output_leaves_the_label_check_to_the_examples, .timeout = 300)
{
    need_transformers();
    char *dir = tl_tmpdir(), here[2048], path[2600], sum[65], vsum[65];
    cr_assert_not_null(getcwd(here, sizeof here));
    python_in(dir, "import torch\n"
                   "class M(torch.nn.Module):\n"
                   "    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:\n"
                   "        if input_ids.size(1) <= 3:\n"
                   "            raise RuntimeError('planted: too short')\n"
                   "        return torch.zeros(input_ids.size(0), 3)\n"
                   "torch.jit.script(M()).save('model.pt')\n");
    snprintf(path, sizeof path, "%s/model.pt", dir);
    sha256_of(path, sum);
    snprintf(path, sizeof path, "%s/fixtures/campus-club/vocab.txt", here);
    sha256_of(path, vsum);
    char fx[4096];
    snprintf(fx, sizeof fx,
             "parity: 1\n"
             "contract:\n"
             "  task: a test of the label check when the probe gives no output\n"
             "  model: {path: model.pt, sha256: \"%s\"}\n"
             "  input:\n"
             "    tokenizer: {kind: wordpiece, vocab: %s, sha256: \"%s\"}\n"
             "    max_tokens: 64\n"
             "  labels: [film, music]\n"
             "environments:\n"
             "  reference: {device: cpu, dtype: float32, threads: 1, executor: python}\n"
             "examples:\n"
             "  - {id: one-word, text: film, expect: {label: film}, why: \"the probe, raises\"}\n"
             "  - {id: longer, text: an evening concert of choral music, expect: {label: music}, why: \"gives 3\"}\n",
             sum, path, vsum);
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    tl_write(path, fx);
    char out[2700];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", path, "-q", "--python", PY, "-o", out, NULL});
    cr_expect_eq(r.status, 2, "exit %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.err, "fixture.yaml:8:11: contract lists 2 labels but the model gives 3 outputs (in "
                            "'reference': the forward of example 'longer')"),
              "%s", r.err);
    tl_free(&r);
    remove_dir(dir);
}

/* A healthy generator on a tokenizer that adds no special tokens (a tiny
 * Qwen2 causal LM, the byte-level BPE): its header says the first
 * forward's time; before, the probe was the empty text, no token, and
 * every such generator's header said "no forward gave an output" above
 * its generations. */
Test(probe, a_healthy_generator_without_special_tokens_has_its_first_forward, .timeout = 300)
{
    need_transformers();
    char *dir = tl_tmpdir(), here[2048], tok[2200], prog[4096];
    cr_assert_not_null(getcwd(here, sizeof here));
    snprintf(tok, sizeof tok, "%s/%s", here, BYTELEVEL);
    snprintf(prog, sizeof prog,
             "import shutil, torch\n"
             "from transformers import Qwen2Config, Qwen2ForCausalLM\n"
             "torch.manual_seed(38)\n"
             "c = Qwen2Config(vocab_size=2560, hidden_size=16, intermediate_size=32, num_hidden_layers=1,\n"
             "                num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=128)\n"
             "Qwen2ForCausalLM(c).eval().save_pretrained('model')\n"
             "shutil.copy('%s', 'model/tokenizer.json')\n",
             tok);
    python_in(dir, prog);
    static const char *const files[] = {"config.json", "generation_config.json", "model.safetensors",
                                        "tokenizer.json"};
    char sums[4][65], path[600];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/model/%s", dir, files[i]);
        sha256_of(path, sums[i]);
    }
    char fx[4096];
    snprintf(fx, sizeof fx,
             "parity: 1\n"
             "contract:\n"
             "  task: Continue a prompt (a test of the probe).\n"
             "  model:\n"
             "    format: transformers\n"
             "    kind: generator\n"
             "    path: model\n"
             "    files:\n"
             "      config.json: %s\n"
             "      generation_config.json: %s\n"
             "      model.safetensors: %s\n"
             "      tokenizer.json: %s\n"
             "  input:\n"
             "    tokenizer: {kind: huggingface, file: model/tokenizer.json, sha256: %s}\n"
             "    max_tokens: 64\n"
             "  generate:\n"
             "    decoding: greedy\n"
             "    max_new_tokens: 4\n"
             "environments:\n"
             "  reference: {executor: python, device: cpu, dtype: float32, threads: 1}\n"
             "examples:\n"
             "  - {id: hello, text: \"Hello, world\", expect: {non_empty: true}, why: a plain prompt}\n",
             sums[0], sums[1], sums[2], sums[3], sums[3]);
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    tl_write(path, fx);
    char out[700];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", path, "-q", "--python", PY, "-o", out, NULL});
    cr_expect(r.status == 0 || r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    cr_expect_null(strstr(r.out, "no forward gave an output"), "%s", r.out);
    cr_expect(strstr(r.out, ", first forward "), "%s", r.out);
    tl_free(&r);
    remove_dir(dir);
}
