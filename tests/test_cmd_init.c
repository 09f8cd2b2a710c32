/* parity init: the first fixture, pinned and loadable, with what only a
 * person can write left to write (lint names the tolerance's why, the
 * examples' whys and expectations, the undecided ambiguous example); never over an existing fixture; bad input
 * is one line and nothing written. */
#include <criterion/criterion.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/hash.h"
#include "parity/results.h"
#include "testlib.h"

#define MODEL "fixtures/campus-club/model.pt"
#define VOCAB "fixtures/campus-club/vocab.txt"
#define LABELS "film,volunteer,sports,music,social"

static char *fixture_in(const char *dir)
{
    char *p = malloc(strlen(dir) + 32);
    sprintf(p, "%s/new/fixture.yaml", dir);
    return p;
}

Test(init, writes_a_pinned_loadable_fixture_and_leaves_the_whys_to_write, .timeout = 120)
{
    char *dir = tl_tmpdir(), target[300], *fx = fixture_in(dir);
    snprintf(target, sizeof target, "%s/new", dir);
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", MODEL, "--vocab", VOCAB, "--labels",
                                           LABELS, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s:%d: %s", err.file, err.line, err.msg);
    char model_sha[PX_SHA256_HEX], vocab_sha[PX_SHA256_HEX];
    cr_assert_eq(hash_file(MODEL, model_sha, &err), 0);
    cr_assert_eq(hash_file(VOCAB, vocab_sha, &err), 0);
    cr_expect_str_eq(f->model_sha256, model_sha);
    cr_expect_str_eq(f->vocab_sha256, vocab_sha);
    cr_expect_eq(f->n_labels, 5);
    cr_expect_str_eq(f->labels[2], "sports");
    cr_expect_eq(f->n_envs, 2);
    cr_expect_str_eq(f->envs[1].dtype, "bfloat16");
    cr_expect_str_eq(f->envs[1].role, "twin");
    static const char *const kinds[] = {"normal", "short", "long", "reject", "ambiguous"};
    cr_assert_eq(f->n_examples, 5);
    for (size_t i = 0; i < 5; i++)
        cr_expect_str_eq(f->examples[i].kind, kinds[i]);
    cr_expect(f->logits_tol.present && !f->logits_tol.why, "the tolerance's why is left to write");
    fixture_free(f);
    /* lint names what is left: the tolerance's why, the ambiguous example,
     * the placeholders' whys and their accept-anything expectations. */
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "contract.compare.logits has no why"), "%s", r.out);
    cr_expect(strstr(r.out, "ambiguous example 'ambiguous' has no review.decision"), "%s", r.out);
    cr_expect(strstr(r.out, "example 'normal' has no why"), "%s", r.out);
    cr_expect(strstr(r.out, "example 'ambiguous' has no why"), "%s", r.out);
    cr_expect(strstr(r.out, "example 'normal' accepts every label (expect.any_of lists all 5)"), "%s", r.out);
    cr_expect(!strstr(r.out, "example 'reject' accepts every label"), "%s", r.out);
    tl_free(&r);
    /* It runs. */
    char out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    /* Never over an existing fixture. */
    char *before = tl_slurp(fx);
    r = tl_run((const char *[]){"parity", "init", target, "--model", MODEL, "--vocab", VOCAB, "--labels", "a,b", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "already exists: parity init never overwrites a fixture"), "%s", r.err);
    tl_free(&r);
    char *after = tl_slurp(fx);
    cr_expect_str_eq(after, before);
    free(before), free(after), free(fx), free(dir);
}

Test(init, one_example_per_line_of_texts_and_a_tokenizer_json)
{
    char *dir = tl_tmpdir(), target[300], texts[300], *fx = fixture_in(dir);
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(texts, sizeof texts, "%s/texts.txt", dir);
    tl_write(texts, "Film night: Casablanca\n\n\"Quoted\" #hash & more\nÜber-long café text\n");
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", MODEL, "--tokenizer",
                                           "tests/data/campus-tokenizer.json", "--labels", LABELS, "--texts", texts,
                                           NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_expect_eq(f->tokenizer_hf, 1);
    cr_assert_eq(f->n_examples, 3, "blank lines are not examples");
    cr_expect_str_eq(f->examples[0].text, "Film night: Casablanca");
    cr_expect_str_eq(f->examples[1].text, "\"Quoted\" #hash & more");
    cr_expect_str_eq(f->examples[2].text, "Über-long café text");
    cr_expect_eq(f->examples[0].expect.n_any_of, 5, "the expectation starts as any label, to narrow");
    fixture_free(f);
    free(fx), free(dir);
}

static void refused(const char *const *argv, const char *needle)
{
    cmd_result r = tl_run(argv);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, needle), "'%s' not in: %s", needle, r.err);
    tl_free(&r);
}

Test(init, bad_input_is_one_line_and_nothing_written)
{
    char *dir = tl_tmpdir(), target[300], texts[300], *fx = fixture_in(dir);
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(texts, sizeof texts, "%s/texts.txt", dir);
    tl_write(texts, "fine\nnot \xff utf-8\n");
    refused((const char *[]){"parity", "init", target, "--model", MODEL, "--vocab", VOCAB, NULL}, "--labels");
    refused((const char *[]){"parity", "init", target, "--model", "no-such.pt", "--vocab", VOCAB, "--labels", "a",
                             NULL},
            "no-such.pt");
    refused((const char *[]){"parity", "init", target, "--model", MODEL, "--labels", "a", NULL}, "--vocab");
    refused((const char *[]){"parity", "init", target, "--model", MODEL, "--vocab", VOCAB, "--labels", "a,a,b,c,d",
                             NULL},
            "twice");
    refused((const char *[]){"parity", "init", target, "--model", MODEL, "--vocab", VOCAB, "--labels", LABELS,
                             "--texts", texts, NULL},
            ":2:5: not UTF-8");
    cr_expect_neq(access(fx, F_OK), 0, "nothing written");
    free(fx), free(dir);
}

/* --propose: the reference runs first; its answer is each example's expect,
 * flagged as a proposal that lint lists and the review screen shows until a
 * reviewer decides. */
Test(init, propose_writes_the_reference_answers_as_proposals, .timeout = 180)
{
    char *dir = tl_tmpdir(), target[300], *fx = fixture_in(dir);
    snprintf(target, sizeof target, "%s/new", dir);
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", MODEL, "--vocab", VOCAB, "--labels",
                                           LABELS, "--propose", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    /* What the reference says now is what was proposed. */
    char out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-e", "reference", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s", err.msg);
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_example *x = &f->examples[k];
        const px_example_result *got = &res->envs[0].ex[k];
        if (got->status == PX_ST_REJECTED)
            cr_expect_eq(x->expect.kind, PX_EXPECT_REJECTED, "%s", x->id);
        else
            cr_expect(x->expect.kind == PX_EXPECT_LABEL && x->expect.label == got->label, "%s", x->id);
        cr_expect_str_eq(x->review.decision, "flag");
        cr_expect_str_eq(x->review.note, PX_PROPOSAL_NOTE);
    }
    results_free(res);
    fixture_free(f);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect(strstr(r.out, "example 'normal' still carries the reference run's proposal"), "%s", r.out);
    tl_free(&r);
    /* The review screen says so (off-screen, the first example). */
    char keys[300], cmd[5200];
    snprintf(keys, sizeof keys, "%s/keys", dir);
    tl_write(keys, "dump screen\nq\n");
    snprintf(cmd, sizeof cmd, "cd '%s' && PARITY_KEYS=keys PARITY_DUMP_DIR=. '%s' review new/fixture.yaml --results "
             "results.yaml -e reference > /dev/null 2>&1 && grep -q 'proposal: from the reference run, confirm (a)' screen",
             dir, tl_parity());
    cr_expect_eq(system(cmd), 0, "the review screen does not show the proposal");
    /* A reviewer's decision ends it. */
    r = tl_run((const char *[]){"parity", "decide", fx, "normal", "--decision", "accept", "-r", "sam", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect(!strstr(r.out, "example 'normal' still carries"), "%s", r.out);
    cr_expect(strstr(r.out, "example 'short' still carries"), "%s", r.out);
    tl_free(&r);
    free(fx), free(dir);
}

/* Issue 27: a new user's own model (tests/models/ticket: three inputs, a
 * dict output, a tokenizer.json from the tokenizers library, 128
 * positions, four labels). */
#define TICKET "tests/models/ticket/"
#define TICKET_LABELS "billing,bug,account,feature"

static cmd_result init_ticket(const char *target, const char *model, const char *labels, int propose)
{
    return tl_run((const char *[]){"parity", "init", target, "--model", model, "--tokenizer", TICKET "tokenizer.json",
                                   "--labels", labels, "--texts", TICKET "texts.txt", propose ? "--propose" : NULL,
                                   NULL});
}

/* A fresh directory (*dir) and `parity init DIR/new` on a ticket model,
 * which must succeed: the draft's path (malloc'd). */
static char *ticket_draft(const char *model, int propose, char **dir)
{
    char target[300];
    *dir = tl_tmpdir();
    snprintf(target, sizeof target, "%s/new", *dir);
    cmd_result r = init_ticket(target, model, TICKET_LABELS, propose);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.err, "no proposal"), "%s", r.err);
    tl_free(&r);
    return fixture_in(*dir);
}

/* init reads what the model takes: the inputs its forward names, max_tokens
 * within its 128 positions; the paths are relative to the fixture. */
Test(init, reads_the_models_inputs_and_positions_and_writes_relative_paths, .timeout = 120)
{
    char *dir, *fx = ticket_draft(TICKET "model.pt", 0, &dir);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_assert_eq(f->n_inputs, 3, "the forward takes three inputs");
    cr_expect_eq(f->inputs_auto, 0, "written, not left to the default");
    cr_expect_str_eq(f->inputs[0], "input_ids");
    cr_expect_str_eq(f->inputs[1], "attention_mask");
    cr_expect_str_eq(f->inputs[2], "token_type_ids");
    cr_expect(f->max_tokens >= 1 && f->max_tokens <= 128, "max_tokens %zu > the model's 128 positions", f->max_tokens);
    fixture_free(f);
    char *text = tl_slurp(fx);
    cr_expect(strstr(text, "path: \"../"), "the model's path is relative to the fixture:\n%s", text);
    cr_expect(strstr(text, "file: \"../"), "the tokenizer's path is relative to the fixture:\n%s", text);
    cr_expect(!strstr(text, ": \"/"), "no absolute path:\n%s", text);
    free(text), free(fx), free(dir);
}

/* --propose on the ticket model: a label for every example but the
 * over-long one, rejected; the draft then runs and is met, in the reference
 * and in the bfloat16 twin. */
Test(init, propose_on_a_three_input_dict_model_proposes_every_example, .timeout = 180)
{
    char *dir, *fx = ticket_draft(TICKET "model.pt", 1, &dir), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r;
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_assert_eq(f->n_examples, 12);
    /* a label for each, the closest call both of its top labels */
    for (size_t k = 0; k < 11; k++)
        cr_expect(f->examples[k].expect.kind == PX_EXPECT_LABEL ||
                      (!strcmp(f->examples[k].kind, "ambiguous") && f->examples[k].expect.kind == PX_EXPECT_ANY_OF &&
                       f->examples[k].expect.n_any_of == 2),
                  "%s has no proposed label", f->examples[k].id);
    cr_expect_eq(f->examples[11].expect.kind, PX_EXPECT_REJECTED, "the over-long ticket is rejected");
    /* the kinds the answers suggest, so that every kind lint asks for is
     * there: two words or fewer, the longest answered, the rejected one,
     * one closest call */
    cr_expect_str_eq(f->examples[8].kind, "short");
    cr_expect_str_eq(f->examples[9].kind, "short");
    cr_expect_str_eq(f->examples[10].kind, "long");
    cr_expect_str_eq(f->examples[11].kind, "reject");
    size_t ambiguous = 0;
    for (size_t k = 0; k < 12; k++)
        ambiguous += !strcmp(f->examples[k].kind, "ambiguous");
    cr_expect_eq(ambiguous, 1);
    fixture_free(f);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "contract met"), "%s", r.out);
    cr_expect(strstr(r.out, "169 tokens > max_tokens 128"), "%s", r.out);
    tl_free(&r);
    free(fx), free(dir);
}

/* A model whose every forward raises: --propose names each example and its
 * reason, fails (exit 3) and leaves nothing behind. */
Test(init, propose_with_every_forward_raising_fails_naming_each_example, .timeout = 120)
{
    char *dir = tl_tmpdir(), target[300];
    snprintf(target, sizeof target, "%s/new", dir);
    cmd_result r = init_ticket(target, TICKET "raises.pt", TICKET_LABELS, 1);
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(strstr(r.err, "example-1: no proposal: exception: "), "%s", r.err);
    cr_expect(strstr(r.err, "example-10: no proposal: exception: "), "%s", r.err);
    cr_expect(strstr(r.err, "planted failure: this ticket model always raises\n"), "%s", r.err);
    cr_expect(strstr(r.err, "gave a label to none of the 12 examples"), "%s", r.err);
    cr_expect(!strstr(r.err, "example-12: no proposal"), "the rejected one is no failure: %s", r.err);
    tl_free(&r);
    cr_expect_neq(access(target, F_OK), 0, "%s is left behind", target);
    free(dir);
}

/* Nothing left behind: a --texts file that is not there, a model that is
 * not there, labels that do not match the model's head. */
Test(init, a_failed_init_leaves_no_directory, .timeout = 120)
{
    char *dir = tl_tmpdir(), target[300], missing[300];
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(missing, sizeof missing, "%s/no-texts.txt", dir);
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", TICKET "model.pt", "--tokenizer",
                                           TICKET "tokenizer.json", "--labels", TICKET_LABELS, "--texts", missing,
                                           NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "no-texts.txt: cannot open"), "%s", r.err);
    tl_free(&r);
    cr_expect_neq(access(target, F_OK), 0, "missing --texts: %s is left behind", target);
    r = tl_run((const char *[]){"parity", "init", target, "--model", "no-such.pt", "--tokenizer",
                                TICKET "tokenizer.json", "--labels", TICKET_LABELS, NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    tl_free(&r);
    cr_expect_neq(access(target, F_OK), 0, "missing --model: %s is left behind", target);
    /* The head has four outputs: three labels are refused, in words. */
    r = init_ticket(target, TICKET "model.pt", "billing,bug,account", 0);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "--labels names 3 labels, but the model's head gives 4 outputs"), "%s", r.err);
    tl_free(&r);
    cr_expect_neq(access(target, F_OK), 0, "labels refused: %s is left behind", target);
    free(dir);
}

/* contract.model.output: the dict key the logits are, honoured by both
 * executors; a dict without it is named by its keys. */
Test(init, output_names_the_dict_key_and_a_missing_key_names_the_keys, .timeout = 180)
{
    char *dir, *fx = ticket_draft(TICKET "scores.pt", 0, &dir), out[300], cmd[600];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r;
    /* The twin on the Python executor: both executors read output:. */
    char *text = tl_slurp(fx), *py = tl_replace_all(text, "    role: twin\n", "    role: twin\n    executor: python\n");
    tl_write(fx, py);
    /* output: logits (init's), and the model gives scores and hidden. */
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), NULL});
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, NULL});
    cr_expect_neq(r.status, 0, "%s", r.out);
    tl_free(&r);
    snprintf(cmd, sizeof cmd, "grep -c \"model returned a dict with keys scores, hidden, not 'logits': name one in "
                              "contract.model.output\" '%s'", out);
    FILE *p = popen(cmd, "r");
    int n = 0;
    cr_assert(p && fscanf(p, "%d", &n) == 1);
    pclose(p);
    cr_expect_eq(n, 22, "eleven examples in each executor name the keys, not %d", n);
    /* No output: at all: a dict without 'logits' names its keys too. */
    char *none = tl_replace_all(py, "    output: logits\n", "");
    tl_write(fx, none);
    unlink(out);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), NULL});
    tl_free(&r);
    snprintf(cmd, sizeof cmd, "grep -c \"model returned a dict with keys scores, hidden: name one in "
                              "contract.model.output\" '%s'", out);
    p = popen(cmd, "r");
    n = 0;
    cr_assert(p && fscanf(p, "%d", &n) == 1);
    pclose(p);
    cr_expect_eq(n, 22, "without output:, eleven examples in each executor name the keys, not %d", n);
    free(none);
    /* output: scores: met in both. */
    char *scores = tl_replace_all(py, "    output: logits\n", "    output: scores\n");
    tl_write(fx, scores);
    unlink(out);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, NULL});
    /* Every example ran in both (the long one is rejected before the model). */
    const char *first = strstr(r.out, "counts: 11 pass");
    cr_expect(first && strstr(first + 1, "counts: 11 pass"), "%s", r.out);
    cr_expect(!strstr(r.out, "exception"), "%s", r.out);
    tl_free(&r);
    free(text), free(py), free(scores), free(fx), free(dir);
}

/* The man page's synopsis of init is --help's (cli.c's usage string). */
Test(init, the_man_pages_synopsis_is_the_helps)
{
    cmd_result r = tl_run((const char *[]){"parity", "init", "--help", NULL});
    cr_assert_eq(r.status, 0);
    const char *u = strstr(r.out, "usage: parity ");
    cr_assert_not_null(u, "%s", r.out);
    char help[600];
    snprintf(help, sizeof help, "%.*s", (int)strcspn(u + 7, "\n"), u + 7);
    tl_free(&r);
    FILE *p = popen("mandoc -T ascii -O width=400 man/parity.1 | col -b", "r");
    cr_assert_not_null(p);
    char line[2048], man[600] = "";
    int in = 0;
    while (fgets(line, sizeof line, p)) {
        if (!strncmp(line, "SYNOPSIS", 8))
            in = 1;
        else if (in && line[0] != ' ' && line[0] != '\n')
            in = 0;
        const char *s = line + strspn(line, " ");
        if (in && !strncmp(s, "parity init ", 12)) {
            snprintf(man, sizeof man, "%.*s", (int)strcspn(s, "\n"), s);
            while (strlen(man) && man[strlen(man) - 1] == ' ')
                man[strlen(man) - 1] = '\0';
        }
    }
    pclose(p);
    cr_expect_str_eq(man, help, "man/parity.1's SYNOPSIS and `parity init --help` differ");
}

/* contract.model.output as a tuple's index: tuple.pt returns (hidden,
 * logits); output: 1 is met in both executors, an index past the tuple's
 * end names its length. */
Test(init, output_as_a_tuple_index, .timeout = 180)
{
    char *dir, *fx = ticket_draft(TICKET "tuple.pt", 0, &dir), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r;
    char *text = tl_slurp(fx), *py = tl_replace_all(text, "    role: twin\n", "    role: twin\n    executor: python\n");
    char *one = tl_replace_all(py, "    output: logits\n", "    output: \"1\"\n");
    tl_write(fx, one);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, NULL});
    const char *first = strstr(r.out, "counts: 11 pass");
    cr_expect(first && strstr(first + 1, "counts: 11 pass"), "%s", r.out);
    tl_free(&r);
    char *two = tl_replace_all(py, "    output: logits\n", "    output: \"2\"\n");
    tl_write(fx, two);
    unlink(out);
    r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", tl_python(), NULL});
    tl_free(&r);
    char *res = tl_slurp(out);
    cr_assert_not_null(res);
    size_t n = 0;
    for (const char *p = res; (p = strstr(p, "model returned a tuple of 2, and output 2 is out of range: name an index "
                                             "0..1 in contract.model.output"));
         p++)
        n++;
    cr_expect_eq(n, 22, "eleven examples in each executor name the tuple's length, not %zu:\n%s", n, res);
    free(res), free(text), free(py), free(one), free(two), free(fx), free(dir);
}

/* An executor that cannot describe the model here: without --propose a
 * one-line warning and the defaults (the model may run elsewhere); with
 * --propose (the reference cannot run here either) exit 3, nothing left. */
Test(init, a_model_not_described_here_keeps_the_defaults_or_fails_propose, .timeout = 60)
{
    char *dir = tl_tmpdir(), target[300], *fx = fixture_in(dir);
    snprintf(target, sizeof target, "%s/new", dir);
    cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", TICKET "model.pt", "--tokenizer",
                                           TICKET "tokenizer.json", "--labels", TICKET_LABELS, "--executor",
                                           "/nonexistent/parity-torch", "--propose", NULL});
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(strstr(r.err, "cannot read what the model takes (/nonexistent/parity-torch: cannot start the executor"),
              "%s", r.err);
    tl_free(&r);
    cr_expect_neq(access(target, F_OK), 0, "%s is left behind", target);
    r = tl_run((const char *[]){"parity", "init", target, "--model", TICKET "model.pt", "--tokenizer",
                                TICKET "tokenizer.json", "--labels", TICKET_LABELS, "--executor",
                                "/nonexistent/parity-torch", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "parity init: warning: ") && strstr(r.err, "left at their defaults") &&
                  tl_lines(r.err) == 1,
              "%s", r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_expect(f->inputs_auto, "no inputs: list");
    cr_expect_eq(f->max_tokens, 512);
    fixture_free(f);
    free(fx), free(dir);
}

/* Issue 27's "done when": a new user's own model (three inputs, a dict
 * output, a tokenizer.json) goes from init --propose to a met contract and
 * a report, with nothing edited but the whys (and the task's sentence) and
 * the decisions, made with parity decide. Before, every forward raised on
 * init's two inputs, the examples were all of kind normal, and lint named
 * the missing kinds for the user to write. */
Test(init, a_new_users_model_goes_from_propose_to_a_met_contract_and_a_report, .timeout = 240)
{
    char *dir, *fx = ticket_draft(TICKET "model.pt", 1, &dir), md[300];
    snprintf(md, sizeof md, "%s/report.md", dir);
    cmd_result r;
    /* what lint asks of a person, and nothing else */
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 1);
    const char *asks[] = {"contract.task is still parity init's placeholder", "contract.compare.logits has no why",
                          "has no why", "still carries the reference run's proposal", "is undecided"};
    size_t asked = 0;
    for (char *line = r.out, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        int known = 0;
        for (size_t i = 0; i < sizeof asks / sizeof *asks; i++)
            known |= strstr(line, asks[i]) && (!end || strstr(line, asks[i]) < end);
        cr_expect(known, "lint asks for more than whys and decisions: %.*s", end ? (int)(end - line) : 80, line);
        asked++;
    }
    cr_expect_geq(asked, 12);
    tl_free(&r);
    /* the whys, written */
    char *text = tl_slurp(fx);
    char *a = tl_replace_all(text, "  task: say in one sentence what the model is for\n",
                             "  task: Route a customer support ticket to the team that handles it.\n");
    char *b = tl_replace_all(a, "      # why: say why these numbers are right for this task (lint asks until it is "
                                "written)\n",
                             "      why: bfloat16 keeps 8 significant bits; the labels win by wide margins\n");
    char *c = tl_replace_all(b, "    # why: what this example stands for, and what a change in it would mean\n",
                             "    why: a ticket of the kind support sees every day\n");
    cr_assert(strcmp(b, a) && strcmp(c, b), "test bug: init's why comments changed:\n%s", text);
    tl_write(fx, c);
    /* the decisions, made */
    const char *argv[64] = {"parity", "decide", fx};
    int n = 3;
    char ids[12][16];
    for (int i = 0; i < 12; i++) {
        snprintf(ids[i], sizeof ids[i], "example-%d", i + 1);
        argv[n++] = ids[i], argv[n++] = "--decision", argv[n++] = "accept";
    }
    argv[n] = NULL;
    r = tl_run(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_eq(r.status, 0, "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "contract met in every selected environment"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "report", fx, "-f", "md", "-o", md, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *report = tl_slurp(md);
    cr_expect(report && strstr(report, "# parity report: Route a customer support ticket") &&
                  strstr(report, "The contract is met in every selected environment"),
              "%s", report);
    tl_free(&r);
    free(report), free(text), free(a), free(b), free(c), free(fx), free(dir);
}

/* Issue 38, item 9: the max_tokens comment says which special tokens the
 * tokenizer really adds (what it makes of an empty text), not "[CLS] and
 * [SEP]" for a tokenizer that has neither; with the positions unknown too. */
Test(init, the_max_tokens_comment_names_the_tokenizers_own_special_tokens, .timeout = 120)
{
    static const struct {
        const char *tok, *says;
    } cases[] = {
        {"tests/data/bpe-bytelevel-small.json", "(the tokenizer adds no special tokens)"},
        {TICKET "tokenizer.json", "[CLS] and [SEP] included"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int described = 0; described < 2; described++) {
            char *dir = tl_tmpdir(), target[300], *fx = fixture_in(dir);
            snprintf(target, sizeof target, "%s/new", dir);
            cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", TICKET "model.pt",
                                                   "--tokenizer", cases[i].tok, "--labels", TICKET_LABELS,
                                                   described ? NULL : "--executor", "/nonexistent/parity-torch",
                                                   NULL});
            cr_assert_eq(r.status, 0, "%s", r.err);
            tl_free(&r);
            char *text = tl_slurp(fx), *line = text ? strstr(text, "    max_tokens: ") : NULL;
            cr_assert_not_null(line, "%s", text);
            char *end = strchr(line, '\n');
            *end = '\0';
            cr_expect(strstr(line, cases[i].says), "%s: %s", cases[i].tok, line);
            cr_expect(described ? strstr(line, "128 positions") != NULL : strstr(line, "could not be read") != NULL,
                      "%s", line);
            if (i == 0)
                cr_expect(!strstr(line, "[CLS]"), "%s", line);
            free(text), free(fx), free(dir);
        }
}

/* A tokenizer parity cannot read fails init before anything is made: a
 * fixture with it could never run. */
Test(init, an_unreadable_tokenizer_fails_before_anything_is_made)
{
    char *dir = tl_tmpdir(), target[300], tok[300];
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(tok, sizeof tok, "%s/tokenizer.json", dir);
    tl_write(tok, "{\"model\": {\"type\": \"Unigram\"}}\n");
    refused((const char *[]){"parity", "init", target, "--model", TICKET "model.pt", "--tokenizer", tok, "--labels",
                             TICKET_LABELS, NULL},
            tok);
    cr_expect_neq(access(target, F_OK), 0, "%s is made", target);
    free(dir);
}

/* An interpreter without torch: init names the one it tried and how to
 * choose another (--python PATH, PARITY_PYTHON), as run does. */
Test(init, an_interpreter_without_torch_is_told_how_to_choose_another, .timeout = 120)
{
    char *dir = tl_tmpdir(), target[300], shim[300], text[PATH_MAX + 64];
    snprintf(target, sizeof target, "%s/new", dir);
    snprintf(shim, sizeof shim, "%s/python-without-torch", dir);
    snprintf(text, sizeof text, "#!/bin/sh\nexec %s -S \"$@\"\n", tl_python());
    tl_write(shim, text);
    chmod(shim, 0755);
    for (int propose = 0; propose < 2; propose++) {
        snprintf(target, sizeof target, "%s/new%d", dir, propose);
        cmd_result r = tl_run((const char *[]){"parity", "init", target, "--model", "tests/models/gen_llama",
                                               "--tokenizer", TICKET "tokenizer.json", "--labels", "a,b", "--python",
                                               shim, propose ? "--propose" : NULL, NULL});
        cr_expect_eq(r.status, propose ? 3 : 0, "%s", r.err);
        cr_expect(strstr(r.err, "cannot import torch") && strstr(r.err, "--python PATH or PARITY_PYTHON"), "%s",
                  r.err);
        cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
        tl_free(&r);
    }
    free(dir);
}

/* A device torch does not know (`tpu`) asked for with no backend: the
 * message names what opens it, --backend-module with the package that
 * provides tpu (torch_tpu) on the Python executor, or --backend-lib; the
 * same words from parity-torch and the Python executor. */
Test(init, an_unknown_device_names_what_opens_it, .timeout = 180)
{
    char *dir, *fx = ticket_draft(TICKET "model.pt", 0, &dir), out[300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    char *text = tl_slurp(fx);
    static const char *const envs[] = {
        "  tpu:\n    device: tpu\n    executor: python\n    note: n\n",
        "  tpu:\n    device: tpu\n    note: n\n",
    };
    static const char *const says[][2] = {
        {"--backend-module torch_tpu (the package that provides 'tpu') on executor: python", "--backend-lib PATH"},
        {"--backend-module torch_tpu (the package that provides 'tpu') on executor: python", "--backend-lib PATH"},
    };
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(text) + strlen(envs[i]) + 1;
        char *env = malloc(n), *at = strstr(text, "environments:\n") + strlen("environments:\n");
        snprintf(env, n, "%.*s%s%s", (int)(at - text), text, envs[i], at);
        tl_write(fx, env);
        cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-e", "tpu", "-q", "-o", out, "--python",
                                               tl_python(), NULL});
        cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
        cr_expect(strstr(r.out, "unknown device 'tpu'") && strstr(r.out, says[i][0]) && strstr(r.out, says[i][1]),
                  "%s", r.out);
        tl_free(&r);
        free(env);
    }
    free(text), free(fx), free(dir);
}
