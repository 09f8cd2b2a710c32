/* parity lint: the demo fixture is clean; each hand-written fixture in
 * tests/data/lint-*.yaml plants the problems of one check, and the whole
 * output is compared line by line (place and wording are the interface);
 * exit 0 clean, 1 findings, 2 nothing to lint. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/lint.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"
#define WHY "tests/data/lint-why.yaml"
#define KINDS "tests/data/lint-kinds.yaml"
#define IDS "tests/data/lint-ids.yaml"
#define LABELS "tests/data/lint-labels.yaml"
#define PINS "tests/data/lint-pins.yaml"
#define PATTERNS "tests/data/lint-patterns.yaml"
#define SCHEMA "tests/data/lint-schema.yaml"
#define SEARCH "tests/data/lint-search.yaml"

#define DECIDE ": decide it (accept, defect or unsupported)"
#define EX_WHY ": write down what it stands for, and what a change in it would mean"
#define KIND_NEEDED " (a fixture needs normal, short, long, reject and ambiguous)"

/* stdout must be exactly the lines of want (NULL-terminated), each ending
 * in a newline; stderr stays empty. */
static void expect_lines(const char *out, const char *const *want)
{
    size_t i = 0;
    for (const char *s = out; *s; i++) {
        const char *eol = strchr(s, '\n');
        cr_assert_not_null(eol, "unterminated last line: %s", s);
        int len = (int)(eol - s);
        cr_expect_not_null(want[i], "unexpected line: %.*s", len, s);
        if (!want[i])
            return;
        cr_expect(strlen(want[i]) == (size_t)len && !strncmp(s, want[i], (size_t)len),
                  "line %zu:\n  got  %.*s\n  want %s", i + 1, len, s, want[i]);
        s = eol + 1;
    }
    cr_expect_null(want[i], "missing line %zu: %s", i + 1, want[i]);
}

static void expect_lint(const char *path, int status, const char *const *want)
{
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, status, "status %d, wanted %d; stderr: %s", r.status, status, r.err);
    cr_expect_str_empty(r.err);
    expect_lines(r.out, want);
    tl_free(&r);
}

/* parity lint on a file holding text: exit 2, one line on stderr naming
 * the file, nothing on stdout. */
static void expect_unlintable(const char *text, const char *needle)
{
    char *dir = tl_tmpdir(), path[256];
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    if (text)
        tl_write(path, text);
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 2, "status %d; stdout: %s", r.status, r.out);
    cr_expect_str_empty(r.out);
    cr_expect_eq(tl_lines(r.err), 1, "one line: %s", r.err);
    cr_expect(!strncmp(r.err, "parity: ", 8) && strstr(r.err, path) && strstr(r.err, needle),
              "stderr '%s' lacks '%s'", r.err, needle);
    tl_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* The demo's model and vocabulary beside a copy of its fixture in dir. */
static void link_demo_files(const char *dir)
{
    static const char *const names[] = {"model.pt", "vocab.txt"};
    for (size_t i = 0; i < 2; i++) {
        char from[PATH_MAX], real[PATH_MAX], to[PATH_MAX];
        snprintf(from, sizeof from, "fixtures/campus-club/%s", names[i]);
        snprintf(to, sizeof to, "%s/%s", dir, names[i]);
        cr_assert(realpath(from, real) && symlink(real, to) == 0, "cannot link %s", to);
    }
}

static void unlink_demo_files(const char *dir)
{
    char to[PATH_MAX];
    snprintf(to, sizeof to, "%s/model.pt", dir);
    unlink(to);
    snprintf(to, sizeof to, "%s/vocab.txt", dir);
    unlink(to);
}

Test(lint, demo_has_no_findings)
{
    px_lint l;
    px_error err = {0};
    cr_assert_eq(lint_fixture(DEMO, &l, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < l.n; i++)
        cr_expect_fail("%d:%d: %s", l.v[i].line, l.v[i].col, l.v[i].msg);
    lint_free(&l);
    expect_lint(DEMO, 0, (const char *[]){NULL});
}

/* The demo's ambiguous example without its review block is a finding:
 * the check holds on the real fixture, not only on hand-made ones. */
Test(lint, demo_without_its_review_is_undecided)
{
    char *text = tl_slurp(DEMO);
    cr_assert_not_null(text);
    char *ex = strstr(text, "  - id: charity-run\n"), *rev = ex ? strstr(ex, "    review:\n") : NULL;
    cr_assert(ex && rev, "test bug: the demo's charity-run review is not where expected");
    char *end = strstr(rev, "\n\n");
    memmove(rev, end + 1, strlen(end + 1) + 1);
    int line = 1;
    for (const char *s = text; s < ex; s++)
        line += *s == '\n';
    char *dir = tl_tmpdir(), path[256], want[512];
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    tl_write(path, text);
    link_demo_files(dir);
    snprintf(want, sizeof want, "%s:%d:5: lint: ambiguous example 'charity-run' has no review.decision%s", path,
             line, DECIDE);
    expect_lint(path, 1, (const char *[]){want, NULL});
    unlink_demo_files(dir);
    unlink(path);
    rmdir(dir);
    free(dir);
    free(text);
}

Test(lint, tolerances_rules_and_examples_need_a_why_and_a_narrow_expect)
{
    expect_lint(WHY, 1, (const char *[]){
        WHY ":8:9: lint: cleaning rule 1 has no why: write down why the text may change this way",
        WHY ":9:9: lint: cleaning rule 2 has an empty why: write down why the text may change this way",
        WHY ":14:5: lint: contract.compare.logits has no why: write down why the tolerance is this wide",
        WHY ":20:5: lint: example 'n' has no why" EX_WHY,
        WHY ":21:5: lint: example 's' has an empty why" EX_WHY,
        WHY ":21:66: lint: example 's' compare.logits has an empty why: write down why the tolerance is this wide",
        WHY ":25:54: lint: example 'wide' accepts every label (expect.any_of lists all 5): narrow it to the labels it "
            "may be given",
        WHY ":27:5: lint: redact pattern 1 has no why: write down what it keeps from leaving the machine",
        NULL});
}

Test(lint, every_kind_and_every_ambiguous_example_decided)
{
    expect_lint(KINDS, 1, (const char *[]){
        KINDS ":12:1: lint: no example of kind 'short'" KIND_NEEDED,
        KINDS ":12:1: lint: no example of kind 'long'" KIND_NEEDED,
        KINDS ":12:1: lint: no example of kind 'reject'" KIND_NEEDED,
        KINDS ":15:5: lint: ambiguous example 'no-review' has no review.decision" DECIDE,
        KINDS ":20:5: lint: ambiguous example 'no-decision' has no review.decision" DECIDE,
        KINDS ":26:5: lint: ambiguous example 'needs-rule' is undecided (review.decision: needs-rule)" DECIDE,
        KINDS ":27:5: lint: ambiguous example 'flagged' is undecided (review.decision: flag)" DECIDE,
        NULL});
}

/* The loader stops at the first repeat (line 18) with the same place: it
 * is reported once. */
Test(lint, duplicate_ids_all_found_once_each)
{
    expect_lint(IDS, 1, (const char *[]){
        IDS ":18:9: lint: duplicate example id 'hello' (first at line 13)",
        IDS ":23:10: lint: duplicate example id 's' (first at line 17)",
        IDS ":24:10: lint: duplicate example id 'hello' (first at line 13)",
        NULL});
}

Test(lint, labels_empty_or_listed_twice)
{
    expect_lint(LABELS, 1, (const char *[]){
        LABELS ":12:7: lint: label 'a' is listed twice in contract.labels (first at line 10)",
        LABELS ":13:7: lint: label 'a' is listed twice in contract.labels (first at line 10)",
        LABELS ":16:31: lint: environment 'none'.labels is empty: list the labels in the model's output order",
        LABELS ":17:39: lint: label 'b' is listed twice in environment 'twice'.labels (first at line 17)",
        NULL});
}

Test(lint, every_revision_pinned)
{
    expect_lint(PINS, 1, (const char *[]){
        PINS ":5:3: lint: contract.model has no sha256: pin the model revision the examples were reviewed with",
        PINS ":8:5: lint: contract.input.tokenizer has no sha256: pin the vocabulary revision",
        PINS ":12:28: lint: environment 'old-model'.model has no sha256: pin the model revision",
        PINS ":15:5: lint: environment 'old-vocab'.vocab has no sha256: pin the vocabulary revision",
        NULL});
}

Test(lint, patterns_compile)
{
    expect_lint(PATTERNS, 1, (const char *[]){
        PATTERNS ":9:9: lint: cleaning rule 1: pattern '(ab': missing closing parenthesis at offset 3",
        PATTERNS ":10:9: lint: cleaning rule 2: pattern 'a\\C': using \\C is disabled by the application at offset 3",
        PATTERNS ":17:71: lint: expect.must_match: pattern '[a-': missing terminating ] for character class at offset 3",
        PATTERNS ":18:71: lint: expect.must_not_match: pattern 'x{2,1}': numbers out of order in {} quantifier at offset 5",
        PATTERNS ":20:70: lint: expect.reason: pattern '*empty': quantifier does not follow a repeatable item at offset 0",
        NULL});
}

/* The typo is the loader's error, as a finding; the document's checks still
 * run (the repeated id), the loaded fixture's cannot (the unpinned model). */
Test(lint, loader_error_is_a_finding)
{
    expect_lint(SCHEMA, 1, (const char *[]){
        SCHEMA ":12:28: lint: unknown key 'dtyp' in environment 'reference' (expected one of: device, dtype, "
               "threads, timeout, first_forward_timeout, startup_timeout, tf32, matmul_precision, executor, role, note, "
               "results, model, vocab, labels, record_env, compile, mixed_precision_param, mixed_precision_reduce, "
               "parallel)",
        SCHEMA ":15:10: lint: duplicate example id 'n' (first at line 14)",
        NULL});
}

/* Through the library: a contract with no labels, and a scalar holding a
 * newline still makes a one-line finding. */
Test(lint, library_empty_labels_and_one_line_findings)
{
    const char *text = "parity: 1\n"
                       "contract:\n"
                       "  task: t\n"
                       "  model: {path: m.pt}\n"
                       "  input: {tokenizer: {kind: wordpiece, vocab: v.txt}}\n"
                       "  labels: []\n"
                       "environments: {reference: {device: cpu}}\n"
                       "examples:\n"
                       "  - {id: \"a\\nb\", text: x, expect: {rejected: true}}\n"
                       "  - {id: \"a\\nb\", text: y, expect: {rejected: true}}\n";
    px_lint l;
    px_error err = {0};
    cr_assert_eq(lint_parse("f.yaml", text, strlen(text), &l, &err), 0, "%s", err.msg);
    cr_assert_eq(l.n, 2);
    cr_expect_eq(l.v[0].line, 6);
    cr_expect_eq(l.v[0].col, 11);
    cr_expect_str_eq(l.v[0].msg, "contract.labels is empty: list the labels in the model's output order");
    cr_expect_eq(l.v[1].line, 10);
    cr_expect_eq(l.v[1].col, 10);
    cr_expect_str_eq(l.v[1].msg, "duplicate example id 'a\\nb' (first at line 9)");
    lint_free(&l);
}

Test(lint, nothing_to_lint_is_exit_2)
{
    expect_unlintable(NULL, "cannot read fixture: No such file or directory");
    expect_unlintable("parity: 1\ncontract: [a,,\n", ":2:14: YAML: did not find expected node content");
    expect_unlintable("parity: 1\ncontract: {task: caf\xe9}\n", ":2:21: byte 0xE9 is not UTF-8");
    expect_unlintable("", "empty file: not a parity fixture");
    cmd_result r = tl_run((const char *[]){"parity", "lint", "tests/data", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "parity: tests/data: cannot read fixture: Is a directory"), "%s", r.err);
    tl_free(&r);
}

Test(lint, usage_errors_are_exit_2)
{
    const char *const *cases[] = {
        (const char *[]){"parity", "lint", NULL},
        (const char *[]){"parity", "lint", DEMO, DEMO, NULL},
        (const char *[]){"parity", "lint", "--quiet", DEMO, NULL},
    };
    const char *needles[] = {"which fixture?", "one fixture at a time", "--quiet is not an option of lint"};
    for (size_t i = 0; i < 3; i++) {
        cmd_result r = tl_run(cases[i]);
        cr_expect_eq(r.status, 2, "case %zu: status %d", i, r.status);
        cr_expect_str_empty(r.out);
        cr_expect(strstr(r.err, needles[i]) && tl_lines(r.err) == 1, "case %zu: %s", i, r.err);
        tl_free(&r);
    }
}

/* A fixture written into a fresh directory beside the demo's model (and,
 * when vocab, its vocabulary); the caller frees dir and removes it with
 * remove_dir. */
static char *fixture_dir(const char *text, char *path, size_t size)
{
    char *dir = tl_tmpdir();
    snprintf(path, size, "%s/fixture.yaml", dir);
    tl_write(path, text);
    link_demo_files(dir);
    return dir;
}

static void remove_dir(char *dir)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

#define DEMO_MODEL_SHA "e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426"
/* The same first 12 digits, another file. */
#define WRONG_MODEL_SHA "e4aefc63a712ffffffffffffffffffffffffffffffffffffffffffffffffffff"

static const char *const RUN_REFUSES =
    "parity: 1\n"
    "contract:\n"
    "  task: say in one sentence what the model is for\n"
    "  model:\n"
    "    path: model.pt\n"
    "    sha256: \"" WRONG_MODEL_SHA "\"\n"
    "  input:\n"
    "    tokenizer: {kind: huggingface, file: tokenizer.json}\n"
    "  labels: [a, b, c3, d4, e5]\n"
    "environments:\n"
    "  reference: {device: cpu}\n"
    "  other: {device: cpu, model: {path: gone.pt, sha256: \"" DEMO_MODEL_SHA "\"}}\n"
    "examples:\n"
    "  - {id: n, kind: normal, text: an ordinary text of the task, expect: {label: a}, why: w}\n"
    "  - {id: s, kind: short, text: hi, expect: {label: a}, why: w}\n"
    "  - {id: l, kind: long, text: a long one, expect: {label: b}, why: w}\n"
    "  - {id: r, kind: reject, text: \"\", expect: {rejected: true}, why: w}\n"
    "  - {id: m, kind: ambiguous, text: a or b, expect: {any_of: [a, b]}, review: {decision: accept}, why: w}\n";

/* What run refuses, lint finds, every one in one run, each at its line:
 * the wrong pin (both hashes whole, and how to re-pin), a missing
 * tokenizer.json called a tokenizer file, a missing environment model, and
 * init's placeholders. */
Test(lint, what_run_would_refuse_is_found_all_at_once)
{
    char path[512], want[6][2048];
    char *dir = fixture_dir(RUN_REFUSES, path, sizeof path);
    snprintf(want[0], sizeof want[0], "%s:3:9: lint: contract.task is still parity init's placeholder: write in one "
             "sentence what the task is", path);
    snprintf(want[1], sizeof want[1], "%s:6:13: lint: model %s/model.pt has sha256 " DEMO_MODEL_SHA ", not the pinned "
             WRONG_MODEL_SHA ": a different file is a different task: re-pin after review with: parity pin %s",
             path, dir, path);
    snprintf(want[2], sizeof want[2], "%s:8:5: lint: contract.input.tokenizer has no sha256: pin the vocabulary "
             "revision", path);
    snprintf(want[3], sizeof want[3], "%s:8:42: lint: tokenizer file %s/tokenizer.json: cannot open: No such file or "
             "directory: run would refuse it; correct the path (relative to the fixture)", path, dir);
    snprintf(want[4], sizeof want[4], "%s:12:38: lint: model file %s/gone.pt: cannot open: No such file or directory: "
             "run would refuse it; correct the path (relative to the fixture)", path, dir);
    snprintf(want[5], sizeof want[5], "%s:14:33: lint: example 'n' still has parity init's placeholder text: put a "
             "real normal text of the task here", path);
    expect_lint(path, 1, (const char *[]){want[0], want[1], want[2], want[3], want[4], want[5], NULL});
    unlink_demo_files(dir);
    remove_dir(dir);
}

/* A tokenizer.json parity cannot read is a finding at its line, and the
 * other checks still run (the loader used to stop at it). */
Test(lint, an_unreadable_tokenizer_is_a_finding_and_the_rest_still_checked)
{
    char path[PATH_MAX], tok[PATH_MAX + 32];
    char *text = strdup(RUN_REFUSES);
    char *dir = fixture_dir(text, path, sizeof path);
    snprintf(tok, sizeof tok, "%s/tokenizer.json", dir);
    tl_write(tok, "{\"model\": {\"type\": \"Unigram\"}}\n");
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    char at[PATH_MAX + 64];
    snprintf(at, sizeof at, "%s:8:42: lint: the tokenizer cannot be read: ", path);
    cr_expect(strstr(r.out, at), "no unreadable-tokenizer finding at 8:42:\n%s", r.out);
    cr_expect(strstr(r.out, "not the pinned " WRONG_MODEL_SHA), "the wrong pin is still found:\n%s", r.out);
    cr_expect(strstr(r.out, "placeholder"), "the placeholders are still found:\n%s", r.out);
    tl_free(&r);
    unlink(tok);
    unlink_demo_files(dir);
    remove_dir(dir);
    free(text);
}

/* A Transformers directory: every wrong pin said (not the first only),
 * and its config.json's outputs against the labels. */
Test(lint, a_model_directory_every_wrong_pin_and_its_label_count)
{
    char *dir = tl_tmpdir(), p[PATH_MAX], path[PATH_MAX];
    snprintf(p, sizeof p, "%s/bert", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/bert/config.json", dir);
    tl_write(p, "{\"id2label\": {\"0\": \"a\", \"1\": \"b\", \"2\": \"c\"}}\n");
    snprintf(p, sizeof p, "%s/bert/model.safetensors", dir);
    tl_write(p, "w\n");
    char fx[2048];
    snprintf(fx, sizeof fx,
             "parity: 1\n"
             "contract:\n"
             "  task: t\n"
             "  model:\n"
             "    path: bert\n"
             "    format: transformers\n"
             "    files:\n"
             "      config.json: \"%s\"\n"
             "      model.safetensors: \"%s\"\n"
             "  input:\n"
             "    tokenizer: {kind: wordpiece, vocab: vocab.txt}\n"
             "  labels: [a, b]\n"
             "environments:\n"
             "  reference: {device: cpu, executor: python}\n"
             "examples:\n"
             "  - {id: n, kind: normal, text: hello, expect: {label: a}, why: w}\n",
             WRONG_MODEL_SHA, DEMO_MODEL_SHA);
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    tl_write(path, fx);
    link_demo_files(dir);
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 1);
    char want[PATH_MAX + 128];
    snprintf(want, sizeof want, "%s:8:20: lint: model file %s/bert/config.json has sha256 ", path, dir);
    cr_expect(strstr(r.out, want), "config.json's wrong pin:\n%s", r.out);
    snprintf(want, sizeof want, "%s:9:26: lint: model file %s/bert/model.safetensors has sha256 ", path, dir);
    cr_expect(strstr(r.out, want), "model.safetensors's wrong pin too:\n%s", r.out);
    snprintf(want, sizeof want, "%s:12:11: lint: 2 labels for a model whose config.json gives 3 outputs", path);
    cr_expect(strstr(r.out, want), "the label count:\n%s", r.out);
    tl_free(&r);
    unlink_demo_files(dir);
    remove_dir(dir);
}

/* A Transformers directory m/ of dir (a config.json of vocab_size, weights
 * that are one line, and tests/data/bpe-bytelevel-small.json as its own
 * tokenizer.json, ids 0..2462) with every file pinned, and a fixture whose
 * tokenizer is the file tok of dir (pinned); its path into path. */
static void tokenizer_beside_dir(const char *dir, long vocab_size, const char *tok, char *path, size_t size)
{
    char p[PATH_MAX], cmd[PATH_MAX * 2], pin[4][PX_SHA256_HEX];
    static const char *const names[] = {"m/config.json", "m/model.safetensors", "m/tokenizer.json", NULL};
    snprintf(p, sizeof p, "%s/m", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/m/config.json", dir);
    snprintf(cmd, sizeof cmd, "{\"num_labels\": 2, \"vocab_size\": %ld}\n", vocab_size);
    tl_write(p, cmd);
    snprintf(p, sizeof p, "%s/m/model.safetensors", dir);
    tl_write(p, "w\n");
    snprintf(cmd, sizeof cmd, "cp tests/data/bpe-bytelevel-small.json '%s/m/tokenizer.json'", dir);
    cr_assert_eq(system(cmd), 0);
    for (int i = 0; i < 4; i++) {
        px_error err = {0};
        snprintf(p, sizeof p, "%s/%s", dir, names[i] ? names[i] : tok);
        cr_assert_eq(hash_file(p, pin[i], &err), 0, "%s", err.msg);
    }
    char fx[4096];
    snprintf(fx, sizeof fx,
             "parity: 1\n"
             "contract:\n"
             "  task: t\n"
             "  model:\n"
             "    path: m\n"
             "    format: transformers\n"
             "    files:\n"
             "      config.json: \"%s\"\n"
             "      model.safetensors: \"%s\"\n"
             "      tokenizer.json: \"%s\"\n"
             "  input:\n"
             "    tokenizer:\n"
             "      kind: huggingface\n"
             "      file: %s\n"
             "      sha256: \"%s\"\n"
             "  labels: [a, b]\n"
             "environments:\n"
             "  reference: {device: cpu, executor: python}\n"
             "examples:\n"
             "  - {id: n, kind: normal, text: hello, expect: {label: a}, why: w}\n",
             pin[0], pin[1], pin[2], tok, pin[3]);
    snprintf(path, size, "%s/fixture.yaml", dir);
    tl_write(path, fx);
}

/* Issue 38, item 3: a tokenizer: that is not the model directory's own
 * tokenizer.json (both pinned) is said at its file:, naming both files and
 * what to do; the same tokenizer saved again (other bytes, the same JSON
 * document) is not. */
Test(lint, a_tokenizer_other_than_the_directorys_own_is_found)
{
    char *dir = tl_tmpdir(), path[PATH_MAX], cmd[PATH_MAX * 2], want[PATH_MAX * 6];
    snprintf(cmd, sizeof cmd, "cp tests/data/bpe-fallback-small.json '%s/other.json'", dir);
    cr_assert_eq(system(cmd), 0);
    tokenizer_beside_dir(dir, 0, "other.json", path, sizeof path);
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 1);
    snprintf(want, sizeof want,
             "%s:14:13: lint: the tokenizer %s/other.json is not the model directory's own tokenizer.json "
             "(%s/m/tokenizer.json, pinned at line 10): it gives other ids than the model was saved with; point "
             "file: at %s/m/tokenizer.json and re-pin (parity pin %s)\n",
             path, dir, dir, dir, path);
    cr_expect(strstr(r.out, want), "missing:\n  %s\nin:\n%s", want, r.out);
    tl_free(&r);
    /* The directory's tokenizer.json again, with other spacing */
    snprintf(cmd, sizeof cmd, "(printf '\\n  '; cat '%s/m/tokenizer.json') > '%s/again.json'", dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/m'", dir);
    cr_assert_eq(system(cmd), 0);
    tokenizer_beside_dir(dir, 0, "again.json", path, sizeof path);
    r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect(!strstr(r.out, "not the model directory's own"), "the same tokenizer, other bytes:\n%s", r.out);
    tl_free(&r);
    remove_dir(dir);
}

/* Issue 38, item 3: a tokenizer whose ids pass the config's vocab_size
 * (the rows of the embedding) is one line of lint at its file: (the
 * tokenizer, its largest id with the added tokens, vocab_size), and run
 * refuses it the same before any model starts (exit 2), where every
 * forward used to fail with "index out of range in self". */
Test(lint, a_tokenizer_past_the_configs_vocab_size_is_found_and_refused, .timeout = 60)
{
    char *dir = tl_tmpdir(), path[PATH_MAX], want[PATH_MAX * 4];
    tokenizer_beside_dir(dir, 2000, "m/tokenizer.json", path, sizeof path);
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 1);
    snprintf(want, sizeof want,
             "%s:14:13: lint: tokenizer %s/m/tokenizer.json gives ids up to 2462 (added tokens included), but "
             "%s/m/config.json has vocab_size 2000: the model has no embedding row for ids 2000 to 2462, and a forward "
             "that meets one fails with \"index out of range in self\": use the tokenizer the model was trained "
             "with, or resize its embeddings to 2463 (resize_token_embeddings) and save it again\n",
             path, dir, dir);
    cr_expect(strstr(r.out, want), "missing:\n  %s\nin:\n%s", want, r.out);
    cr_expect(!strstr(r.out, "not the model directory's own"), "its own tokenizer.json:\n%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "run", path, "-q", "-o", "/dev/null", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "gives ids up to 2462 (added tokens included)") && strstr(r.err, "vocab_size 2000"),
              "%s", r.err);
    tl_free(&r);
    remove_dir(dir);
    /* 2463 rows hold every id: nothing said */
    dir = tl_tmpdir();
    tokenizer_beside_dir(dir, 2463, "m/tokenizer.json", path, sizeof path);
    r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect(!strstr(r.out, "vocab_size"), "%s", r.out);
    tl_free(&r);
    remove_dir(dir);
}

/* Three label typos, each found at its place with the valid labels; the
 * one whose likely typo is in contract.labels (close to a listed label no
 * example uses) is said at the list's entry. */
Test(lint, every_label_typo_at_its_place)
{
    static const char text[] =
        "parity: 1\n"
        "contract:\n"
        "  task: t\n"
        "  model: {path: model.pt, sha256: \"" DEMO_MODEL_SHA "\"}\n"
        "  input:\n"
        "    tokenizer: {kind: wordpiece, vocab: vocab.txt}\n"
        "  labels:\n"
        "    - billing\n"
        "    - acount\n"
        "    - technical\n"
        "environments:\n"
        "  reference: {device: cpu}\n"
        "examples:\n"
        "  - {id: n, kind: normal, text: hello, expect: {label: biling}, why: w}\n"
        "  - {id: s, kind: short, text: hi, expect: {label: billing}, why: w}\n"
        "  - {id: l, kind: long, text: a long one, expect: {label: account}, why: w}\n"
        "  - {id: r, kind: reject, text: x, expect: {any_of: [technical, refund]}, why: w}\n";
    char path[512], want[4][2048];
    char *dir = fixture_dir(text, path, sizeof path);
    snprintf(want[0], sizeof want[0], "%s:6:5: lint: contract.input.tokenizer has no sha256: pin the vocabulary "
             "revision", path);
    snprintf(want[1], sizeof want[1], "%s:9:7: lint: contract.labels has 'acount', which no example expects, and "
             "example 'l' (line 16) expects 'account': if the list has the typo, write 'account' here; else correct "
             "the example", path);
    snprintf(want[2], sizeof want[2], "%s:14:56: lint: label 'biling' is not in contract.labels: did you mean "
             "'billing'? (the labels: billing, acount, technical)", path);
    snprintf(want[3], sizeof want[3], "%s:17:65: lint: label 'refund' is not in contract.labels (the labels: "
             "billing, acount, technical)", path);
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 1);
    for (size_t i = 0; i < 4; i++)
        cr_expect(strstr(r.out, want[i]), "missing:\n  %s\nin:\n%s", want[i], r.out);
    tl_free(&r);
    unlink_demo_files(dir);
    remove_dir(dir);
}

/* parity pin: the demo with both pins spoiled (the model's after its 12th
 * digit) reads back byte for byte as the demo once re-pinned, comments and
 * all; each change printed with both values; a second run changes nothing;
 * a file that cannot be read leaves the fixture as it was (exit 2). */
Test(pin, re_pins_in_place_keeping_everything_else)
{
    char *demo = tl_slurp(DEMO), path[512];
    cr_assert_not_null(demo);
    char *text = strdup(demo);
    char *model = strstr(text, "sha256: \"" DEMO_MODEL_SHA "\"");
    cr_assert_not_null(model, "test bug: the demo's model pin");
    model[9 + 12] = model[9 + 12] == '0' ? '1' : '0';
    char *vocab = strstr(strstr(text, "tokenizer:"), "sha256: \"") + 9;
    char old_vocab[65];
    memcpy(old_vocab, vocab, 64);
    old_vocab[64] = '\0';
    vocab[63] = vocab[63] == '0' ? '1' : '0';
    char spoiled_vocab[65];
    memcpy(spoiled_vocab, vocab, 64);
    spoiled_vocab[64] = '\0';
    char *dir = fixture_dir(text, path, sizeof path);
    cmd_result r = tl_run((const char *[]){"parity", "pin", path, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err);
    char want[2048];
    snprintf(want, sizeof want, "%s:11:13: contract.model.sha256: e4aefc63a712%c6878ed90f08a8f6e532d3d70b2bc7ce117ae9851a"
             "44f0a1c426 → " DEMO_MODEL_SHA "\n%s:21:15: contract.input.tokenizer.sha256: %s → %s\n",
             path, model[9 + 12], path, spoiled_vocab, old_vocab);
    cr_expect_str_eq(r.out, want);
    tl_free(&r);
    char *after = tl_slurp(path);
    cr_expect_str_eq(after, demo, "the re-pinned demo is not the demo byte for byte");
    free(after);
    r = tl_run((const char *[]){"parity", "pin", path, NULL});
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "nothing to re-pin"), "%s", r.out);
    tl_free(&r);
    /* The model gone: refused, nothing written. */
    tl_write(path, text);
    char m[600];
    snprintf(m, sizeof m, "%s/model.pt", dir);
    unlink(m);
    r = tl_run((const char *[]){"parity", "pin", path, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, ":11:13: contract.model.sha256: ") && strstr(r.err, "cannot open"), "%s", r.err);
    cr_expect(strstr(r.err, "nothing re-pinned"), "%s", r.err);
    tl_free(&r);
    after = tl_slurp(path);
    cr_expect_str_eq(after, text, "a failed pin wrote the fixture");
    free(after);
    unlink_demo_files(dir);
    remove_dir(dir);
    free(text), free(demo);
}

/* lint asks the model's executor what it is (DESCRIBE, no forward): a label
 * list longer than the head and a max_tokens past the positions are what
 * run would refuse or a long text would raise on (issue 27, item 3). */
Test(lint, the_model_itself_is_checked_against_labels_and_max_tokens, .timeout = 120)
{
    char *dir = tl_tmpdir(), target[300], fx[320];
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", target);
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", "tests/models/ticket/model.pt",
                                           "--tokenizer", "tests/models/ticket/tokenizer.json", "--labels",
                                           "billing,bug,account,feature", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    char *text = tl_slurp(fx), *a = tl_replace_all(text, "\"feature\"]", "\"feature\", \"praise\"]");
    char *b = tl_replace_all(a, "    max_tokens: 128", "    max_tokens: 512");
    cr_assert(strcmp(text, a) && strcmp(a, b), "test bug: init's text changed:\n%s", text);
    tl_write(fx, b);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, "lint: 5 labels for a model whose classifier head gives 4 outputs"), "%s", r.out);
    cr_expect(strstr(r.out, "lint: max_tokens 512 is more than the model's 128 positions"), "%s", r.out);
    tl_free(&r);
    free(text), free(a), free(b), free(dir);
}

/* An embedding's fixture: its dim against the real model's config.json,
 * max_tokens against its positions, the whys of its vector tolerance and
 * cosine floors, the kinds counted among its queries, too few documents,
 * and an ambiguous query that order: exact would fail on a near tie. */
Test(lint, an_embeddings_search_fixture_is_checked_against_its_model_and_queries)
{
    static const char *const q = " (a search fixture needs queries of kind normal, short, long, reject and ambiguous)";
    char k[5][200];
    const char *kinds[] = {"normal", "short", "long", "reject"};
    for (int i = 0; i < 4; i++)
        snprintf(k[i], sizeof k[i], SEARCH ":23:1: lint: no query of kind '%s'%s", kinds[i], q);
    const char *want[] = {
        SEARCH ":8:3: lint: contract.model has no files: pin each file of the model directory (sha256sum) the "
               "examples were reviewed with",
        SEARCH ":12:10: lint: contract.model.dim 300, but the model's hidden states are 384 wide: every output would "
               "be bad-shape; set dim: 384",
        SEARCH ":16:5: lint: contract.input.tokenizer has no sha256: pin the vocabulary revision",
        SEARCH ":17:17: lint: max_tokens 600 is more than the model's 512 positions: a text that long would raise in "
               "the model instead of being rejected; set max_tokens: 512",
        SEARCH ":19:5: lint: contract.compare.vectors has no why: write down why the tolerance is this wide",
        SEARCH ":20:27: lint: contract.compare.similar_to_reference has no why: write down why the vectors may be "
               "this far apart",
        k[0], k[1], k[2], k[3],
        SEARCH ":23:1: lint: only one document: a search needs at least two (role: document) for a ranking to mean "
               "anything",
        SEARCH ":33:27: lint: example 'games' similar_to_reference has no why: write down why the vectors may be "
               "this far apart",
        SEARCH ":34:13: lint: ambiguous query 'games' has order: exact: a near tie between its documents would fail "
               "it either way; use order: set (or decide it is not ambiguous)",
        NULL};
    expect_lint(SEARCH, 1, want);
}

/* An embedding's TorchScript model, described by its executor (DESCRIBE's
 * hidden width): a dim that is not the width its states are pooled from
 * is found before any run; with pooling none the model's own vector may be
 * of another width, and nothing is said of it. */
Test(lint, an_embeddings_dim_is_checked_against_the_described_width, .timeout = 120)
{
    char cwd[PATH_MAX], fx[PATH_MAX + 40];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    char *dir = tl_tmpdir();
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    for (int none = 0; none < 2; none++) {
        char *text = malloc(3 * PATH_MAX);
        snprintf(text, 3 * PATH_MAX,
                 "parity: 1\ncontract:\n  task: t\n"
                 "  model: {path: %s/tests/models/embed/encoder.pt, kind: embedding, dim: 16, pooling: %s}\n"
                 "  input:\n    tokenizer: {kind: wordpiece, vocab: %s/fixtures/campus-club/vocab.txt}\n"
                 "environments:\n  reference: {device: cpu}\nexamples:\n"
                 "  - {id: a, role: document, text: chess club}\n",
                 cwd, none ? "none" : "mean", cwd);
        tl_write(fx, text);
        cmd_result r = tl_run((const char *[]){"parity", "lint", fx, NULL});
        const char *said = strstr(r.out, "contract.model.dim 16, but the model's hidden states are 32 wide");
        if (none)
            cr_expect_null(said, "pooling none: %s", r.out);
        else
            cr_expect(said && strstr(said, "set dim: 32"), "%s", r.out);
        tl_free(&r);
        free(text);
    }
    free(dir);
}

/* The third demo (make demo-search) is a finished fixture: the real model's
 * every file and its tokenizer pinned and found, dim and max_tokens fit the
 * model, every why written, every kind among its queries, its ambiguous
 * query decided. */
Test(lint, the_search_demo_has_no_findings)
{
    expect_lint("fixtures/campus-search/fixture.yaml", 0, (const char *[]){NULL});
}

/* An image's contract: the committed one is clean; one whose pipeline holds
 * a file no pin names (in a component's folder), with no compare.latents
 * and no class to refuse, is told each, at its place. */
Test(lint, an_image_contract)
{
    expect_lint("tests/data/image/shapes.yaml", 0, (const char *const[]){NULL});
    char *dir = tl_tmpdir(), cmd[600], path[300];
    snprintf(cmd, sizeof cmd, "cp -r tests/data/image/pipeline %s/pipeline && echo '{}' > %s/pipeline/vae/extra.json",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    char *text = tl_slurp("tests/data/image/shapes.yaml");
    char *a = tl_replace_all(text, "    latents: {atol: 0.02, rtol: 0.02, why: \"bfloat16 keeps three digits\"}\n", "");
    char *b = tl_replace_all(a, "    expect: {rejected: true}\n", "");
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    FILE *o = fopen(path, "w");
    cr_assert_not_null(o);
    fputs(b, o);
    fclose(o);
    char l1[1400], l2[800], l3[800];
    snprintf(l1, sizeof l1,
             "%s:12:7: lint: model directory %s/pipeline holds vae/extra.json, which no pin in files: names: a file "
             "from_pretrained may read is part of the model; pin it (parity pin %s) or remove it",
             path, dir, path);
    snprintf(l2, sizeof l2,
             "%s:29:5: lint: contract.compare.latents is not set: the pictures are still checked, but no earliest "
             "divergence by latent is found (which step two environments parted at); give it {atol, rtol, why}",
             path);
    snprintf(l3, sizeof l3,
             "%s:37:1: lint: no example must be rejected (a class not in contract.labels, expect: {rejected: true}): "
             "input processing's refusal is untested",
             path);
    cmd_result r = tl_run((const char *[]){"parity", "lint", path, NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    expect_lines(r.out, (const char *const[]){l1, l2, l3, NULL});
    tl_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
    free(a), free(b), free(text), free(dir);
}
