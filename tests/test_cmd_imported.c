/* Imported results are judged exactly as strictly as a run here. Each rule
 * a run here obeys is exercised twice: once by an environment override in
 * the fixture (a real run through the executor), once by reading that run's
 * results file back into the same fixture without the override, the way a
 * TPU host's results arrive. Both must give the same outcome per example,
 * the same earliest-divergence stage, the same `met`, and the same exit
 * status. Then: every way a ladder rung can fail leaves the environment
 * unmet; where results come from (results: environments, repeated
 * --results, -e); the contract changing since a file was recorded; NaN. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define BASE "tests/data/imported-base.yaml"

static char paths[4][128];

/* Each test runs in a process of its own: what it wrote beside the base
 * goes when it ends. */
static void remove_variants(void)
{
    for (int i = 0; i < 4; i++)
        if (paths[i][0])
            tl_unlink_fixture(paths[i]);
}

/* The audited fixture with `cand` defined as given, beside the base (its
 * paths are relative to it). Returns the path (static per slot). */
static const char *variant(int slot, const char *cand, int max_tokens)
{
    static int registered;
    if (!registered++)
        atexit(remove_variants);
    snprintf(paths[slot], sizeof paths[slot], "tests/data/.imported-%d-%d.yaml", (int)getpid(), slot);
    char *base = tl_slurp(BASE), mt[16], *text = malloc(strlen(base) + strlen(cand) + 64);
    cr_assert(base && text);
    snprintf(mt, sizeof mt, "%d", max_tokens);
    char *at = strstr(base, "MAX_TOKENS"), *c = strstr(base, "CAND");
    cr_assert(at && c && at < c);
    sprintf(text, "%.*s%s%.*s%s%s", (int)(at - base), base, mt, (int)(c - at - 10), at + 10, cand, c + 4);
    tl_write(paths[slot], text);
    free(base), free(text);
    return paths[slot];
}

/* The verdict of `cand` in a check's JSON, as one comparable line:
 * "met=B exit=N | id:outcome:stage ...". Python's json reads the report. */
static char *summary(const char *json, int exit_code)
{
    char *dir = tl_tmpdir(), in[300], out[300], cmd[1400];
    snprintf(in, sizeof in, "%s/check.json", dir);
    snprintf(out, sizeof out, "%s/summary", dir);
    tl_write(in, json);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
             "e=[x for x in d[\"environments\"] if x[\"name\"]==\"cand\"][0];"
             "print(\"met=%%s exit=%%d |\" %% (e[\"met\"], d[\"exit\"]), \" \".join("
             "\"%%s:%%s:%%s\" %% (x[\"id\"], x[\"outcome\"], x[\"divergence\"][\"stage\"]) for x in e[\"examples\"]))"
             "' %s > %s",
             in, out);
    cr_assert_eq(system(cmd), 0, "not a check report: %s", json);
    char *s = tl_slurp(out);
    cr_assert_not_null(s);
    s[strcspn(s, "\n")] = '\0';
    char *line = malloc(strlen(s) + 32);
    sprintf(line, "%s (status %d)", s, exit_code);
    free(s);
    unlink(in), unlink(out), rmdir(dir);
    free(dir);
    return line;
}

/* Run the mutation here, then read its results file back into the fixture
 * without it: the same verdict for cand. Returns the verdict for further
 * checks (malloc'd). */
static char *same_both_ways(const char *rule, const char *override, int max_tokens)
{
    char *dir = tl_tmpdir(), res[300];
    snprintf(res, sizeof res, "%s/results.yaml", dir);
    const char *local = variant(0, override, max_tokens);
    cmd_result a = tl_run((const char *[]){"parity", "check", local, "-q", "--format", "json", "-o", res, NULL});
    cr_assert(a.status == 0 || a.status == 1 || a.status == 3, "%s: here: exit %d: %s", rule, a.status, a.err);
    const char *home = variant(1, "{device: cpu}", max_tokens);
    cmd_result b = tl_run((const char *[]){"parity", "check", home, "--results", res, "--format", "json", NULL});
    char *va = summary(a.out, a.status), *vb = summary(b.out, b.status);
    cr_expect_str_eq(va, vb, "%s: a run here and its results file read back differ:\n  here:     %s\n  imported: %s", rule,
                     va, vb);
    cr_expect(strstr(va, "met=False"), "%s: the mutation must not meet the contract: %s", rule, va);
    tl_free(&a), tl_free(&b);
    tl_unlink_fixture(local), tl_unlink_fixture(home), unlink(res), rmdir(dir);
    free(dir), free(vb);
    return va;
}

Test(imported, another_model_revision, .timeout = 300)
{
    char *v = same_both_ways("model revision",
                             "{device: cpu, model: {path: ../models/unsupported.pt, sha256: "
                             "\"69c897018b5af1d2a0c2e1a2099d890393b988bf98e60ec65c0ad7a65cd4c7e8\"}}",
                             128);
    cr_expect(strstr(v, "film-night:") && strstr(v, ":model revision") && strstr(v, "exit=1"), "%s", v);
    free(v);
}

Test(imported, another_vocabulary, .timeout = 300)
{
    char *v = same_both_ways("vocabulary",
                             "{device: cpu, vocab: {path: vocab-changed.txt, sha256: "
                             "\"dbc93d245f2559a8b0758116e6d3184e9febe7d88c696bab9b16b45fad832b24\"}}",
                             128);
    cr_expect(strstr(v, "film-night:") && strstr(v, ":token ids") && strstr(v, "exit=1"), "%s", v);
    free(v);
}

Test(imported, another_label_map, .timeout = 300)
{
    char *v = same_both_ways("label map", "{device: cpu, labels: [volunteer, film, sports, music, social]}", 128);
    cr_expect(strstr(v, "film-night:wrong-label:label map"), "%s", v);
    free(v);
}

Test(imported, an_output_of_the_wrong_shape, .timeout = 300)
{
    char *v = same_both_ways("shape",
                             "{device: cpu, model: {path: ../models/width4.pt, sha256: "
                             "\"9ab440e3eb6cf0fca09962be9ceedd30231981da2fb871155adc0667abe0c9d2\"}}",
                             128);
    cr_expect(strstr(v, "jazz:bad-shape:model revision"), "%s", v);
    free(v);
}

Test(imported, a_nan_in_the_output, .timeout = 300)
{
    char *v = same_both_ways("non-finite",
                             "{device: cpu, model: {path: ../models/nonfinite.pt, sha256: "
                             "\"07c08ceb88ee25117596d7003ddf9e4f95b4615ddafcebd3d4da776596a7eb59\"}}",
                             128);
    cr_expect(strstr(v, "film-night:non-finite:"), "%s", v);
    free(v);
}

/* The contract's max_tokens rejects film-night (24 tokens > 20); a smaller
 * vocabulary makes it 15 tokens, so the candidate ran it. */
Test(imported, the_max_tokens_rejection, .timeout = 300)
{
    char *v = same_both_ways("max_tokens",
                             "{device: cpu, vocab: {path: vocab-small.txt, sha256: "
                             "\"c8434896c9bd13729a21492e64a0fff448b59976d4e1b90bfeb438b3575674d5\"}}",
                             20);
    cr_expect(strstr(v, "film-night:") && strstr(v, ":token ids"), "%s", v);
    free(v);
}

Test(imported, an_environment_that_could_not_run, .timeout = 300)
{
    char *v = same_both_ways("down", "{device: tpu9}", 128);
    cr_expect(strstr(v, "exit=3") && strstr(v, "jazz:not-evaluated:none"), "%s", v);
    free(v);
}

/* ---- a results file mutated by hand: every way a rung can fail ----
 * (forward ran and contract satisfied fail in runs here too: the planted
 * cases of test_cmd_check.c, where every failed rung is checked to be unmet.) */

/* A run of the base fixture, written once, reused by the mutations. */
static const char *recorded_run(void)
{
    static char path[300];
    if (path[0])
        return path;
    char *dir = tl_tmpdir();
    snprintf(path, sizeof path, "%s/run.yaml", dir);
    free(dir);
    const char *fx = variant(2, "{device: cpu, dtype: bfloat16, role: twin}", 128);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", path, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    return path;
}

/* Replace the n-th (1-based) occurrence of `from` after the line that
 * starts cand's record with `to`, write it to a new file, check it against
 * the fixture with cand a bfloat16 twin. */
static cmd_result check_mutated(const char *from, const char *to, int nth, const char *format, char **file_out)
{
    char *text = tl_slurp(recorded_run());
    cr_assert_not_null(text);
    char *at = strstr(text, "\n  \"cand\":");
    cr_assert_not_null(at);
    for (int i = 0; i < nth; i++) {
        at = strstr(at + (i ? 1 : 0), from);
        cr_assert_not_null(at, "test bug: '%s' #%d not in cand's record", from, nth);
    }
    char *m = malloc(strlen(text) + strlen(to) + 1);
    sprintf(m, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    char *dir = tl_tmpdir(), *path = malloc(300);
    snprintf(path, 300, "%s/mutated.yaml", dir);
    tl_write(path, m);
    const char *fx = variant(2, "{device: cpu, dtype: bfloat16, role: twin}", 128);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "--results", path, "--format", format, NULL});
    free(text), free(m), free(dir);
    *file_out = path;
    return r;
}

static const struct {
    const char *rung, *from, *to, *why;
    int nth;
} rung_cases[] = {
    {"device recognised", "dtype: \"bfloat16\"", "dtype: \"float32\"", "recorded dtype float32, but the environment is bfloat16", 1},
    {"device recognised", "device: \"cpu\"", "device: \"cuda:0\"", "recorded device cuda:0, but the environment is cpu", 1},
    {"model loaded", "model_sha256: \"e4ae", "model_sha256: \"f4ae", "revision f4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426 is not the pinned "
     "e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426 (once the new revision is reviewed, `parity "
     "pin ", 1},
    {"model loaded", "model_sha256: \"e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426\"",
     "model_sha256: null", "no model revision recorded", 1},
    {"model loaded", "\"music\", \"social\"]", "\"music\", \"party\"]", "logit 4 means party here, social in the fixture",
     1},
    {"input processed", "vocab_sha256: \"35ff", "vocab_sha256: \"45ff", "vocabulary 45ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318 is not the pinned "
     "35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318 (once the new vocabulary is reviewed, "
     "`parity pin ", 1},
    {"input processed", "clean_text: \"Free screening", "clean_text: \"Free  screening",
     "film-night: cleaned text differs: byte 5", 1},
    {"input processed", "token_ids: [2, ", "token_ids: [3, ", "film-night: token ids differs: token 0: 3", 1},
    {"input processed", "outcome: \"rejected\"", "outcome: \"crash\"",
     "empty: token ids differs: the contract rejects this input", 1},
};

Test(imported, every_failed_rung_leaves_the_environment_unmet, .timeout = 300)
{
    for (size_t i = 0; i < sizeof rung_cases / sizeof *rung_cases; i++) {
        char *file = NULL;
        cmd_result r = check_mutated(rung_cases[i].from, rung_cases[i].to, rung_cases[i].nth, "text", &file);
        char want[300];
        snprintf(want, sizeof want, "%s failed: %s", rung_cases[i].rung, rung_cases[i].why);
        cr_expect(strstr(r.out, "cand (twin)") && strstr(r.out, "DOES NOT meet the contract"), "case %zu: %s", i,
                  r.out);
        cr_expect(strstr(r.out, want), "case %zu: '%s' not in:\n%s%s", i, want, r.out, r.err);
        cr_expect_eq(r.status, 1, "case %zu: exit %d: %s", i, r.status, r.err);
        tl_free(&r);
        unlink(file);
        free(file);
    }
}

/* ---- where results come from ---- */

Test(imported, a_results_environment_is_loaded_and_judged, .timeout = 300)
{
    const char *run = recorded_run(), *fx;
    char cand[600];
    /* The fixture at home: cand's results come from the TPU host's file. */
    snprintf(cand, sizeof cand, "{results: %s, dtype: bfloat16, role: twin, note: captured elsewhere}", run);
    fx = variant(3, cand, 128);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "cand (twin) cpu bfloat16 from ") && strstr(r.out, run), "device and dtype from the "
              "manifest, the file named: %s", r.out);
    cr_expect(strstr(r.out, "reference (reference) cpu float32: meets"), "the reference ran here: %s", r.out);
    tl_free(&r);

    /* Not there yet: not evaluated, never absent, exit 3. */
    snprintf(cand, sizeof cand, "{results: no-such-run.yaml, dtype: bfloat16}");
    fx = variant(3, cand, 128);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--format", "tap", NULL});
    cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "# cand: not evaluated: no results yet") && strstr(r.out, "not ok 10 - cand: contract - not evaluated"),
              "%s", r.out);
    cr_expect(strstr(r.out, "not ok 6 - cand/film-night: not-evaluated"), "%s", r.out);
    tl_free(&r);

    /* Two places for one environment: an error naming both. */
    snprintf(cand, sizeof cand, "{results: %s, dtype: bfloat16}", run);
    fx = variant(3, cand, 128);
    r = tl_run((const char *[]){"parity", "check", fx, "-q", "--results", run, NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "environment 'cand' comes from two places") && strstr(r.err, "(--results)") &&
                  strstr(r.err, "(the fixture's results: for 'cand')"),
              "%s", r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    tl_free(&r);
}

/* The fixture calls the imported environment tpu-v5; the host's file
 * holds it as cand (issue 27, item 12): the message names both, the
 * fixture's line that reads the file, and how to make them agree. */
Test(imported, a_results_environment_named_otherwise_in_the_file_names_both, .timeout = 300)
{
    const char *run = recorded_run();
    char cand[600];
    snprintf(cand, sizeof cand, "{results: %s, dtype: bfloat16, role: twin}", run);
    const char *fx = variant(3, cand, 128);
    char *text = tl_slurp(fx), *renamed = tl_replace_all(text, "\n  cand: ", "\n  tpu-v5: ");
    tl_write(fx, renamed);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "-q", NULL});
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "environment 'cand' is not in the fixture") &&
                  strstr(r.err, "whose environment 'tpu-v5' reads this file") &&
                  strstr(r.err, "rename 'tpu-v5' to 'cand'"),
              "%s", r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(strncmp(r.err, "parity: ", 8) == 0 && strncmp(r.err + 8, run, strlen(run)) == 0 &&
                  r.err[8 + strlen(run)] == ':',
              "at the file's line: %s", r.err);
    tl_free(&r);
    free(text), free(renamed);
}

Test(imported, one_file_twice_and_a_file_that_lacks_an_environment, .timeout = 300)
{
    const char *run = recorded_run(), *fx = variant(2, "{device: cpu, dtype: bfloat16, role: twin}", 128);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "--results", run, "--results", run, NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "the same results file is given twice"), "%s", r.err);
    tl_free(&r);
    /* A file with the reference only: cand, which can run here, runs
     * here beside it (the check session: a file that provides it, else a
     * run here). */
    char *text = tl_slurp(run), *cut = strstr(text, "\n  \"cand\":");
    cr_assert_not_null(cut);
    cut[1] = '\0';
    char *dir = tl_tmpdir(), only[300];
    snprintf(only, sizeof only, "%s/reference-only.yaml", dir);
    tl_write(only, text);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", only, "--format", "json", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"name\":\"cand\",\"role\":\"twin\",\"state\":\"up\",\"origin\":\"run\"") &&
                  strstr(r.out, "\"name\":\"reference\",\"role\":\"reference\",\"state\":\"up\",\"origin\":\"file\""),
              "%s", r.out);
    tl_free(&r);
    /* With --no-run: cand is not evaluated, not "met", said in one line. */
    r = tl_run((const char *[]){"parity", "check", fx, "--results", only, "--no-run", "--format", "json", NULL});
    cr_expect_eq(r.status, 3, "%s", r.err);
    cr_expect(strstr(r.out, "not run here (--no-run)"), "%s", r.out);
    cr_expect(strstr(r.out, "\"name\":\"cand\",\"role\":\"twin\",\"state\":\"no-results\",\"origin\":\"none\"") &&
                  strstr(r.out, "\"met\":false"),
              "%s", r.out);
    tl_free(&r);
    /* Left out with -e: shown as not selected, never counted. */
    r = tl_run((const char *[]){"parity", "check", fx, "--results", only, "-e", "reference", NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "cand (twin) cpu bfloat16: not selected (-e): not judged, not counted"), "%s", r.out);
    tl_free(&r);
    unlink(only), rmdir(dir);
    free(dir), free(text);
}

/* ---- the contract changed since the results were recorded ---- */

Test(imported, a_changed_contract_is_named_before_judging, .timeout = 300)
{
    const char *run = recorded_run();
    static const struct {
        const char *from, *to, *part;
    } changes[] = {
        {"atol: 0.05", "atol: 0.5", "contract.compare changed since environment 'cand' was recorded"},
        {"replace: ' ', why: collapse", "replace: '  ', why: collapse", "contract.input changed"},
        {"labels: [film, volunteer, sports, music, social]", "labels: [film, volunteer, sports, music, party]",
         "contract.labels changed"},
        {"expect: {label: music}", "expect: {label: music, top_k: 2}", "1 example changed since environment 'cand' "
                                                                       "was recorded ('jazz'"},
    };
    for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
        char *base = tl_slurp(variant(2, "{device: cpu, dtype: bfloat16, role: twin}", 128));
        char *at = strstr(base, changes[i].from), fx[160];
        cr_assert_not_null(at, "test bug: %s", changes[i].from);
        char *text = malloc(strlen(base) + 200);
        sprintf(text, "%.*s%s%s", (int)(at - base), base, changes[i].to, at + strlen(changes[i].from));
        snprintf(fx, sizeof fx, "tests/data/.imported-%d-c.yaml", (int)getpid());
        tl_write(fx, text);
        cmd_result r = tl_run((const char *[]){"parity", "check", fx, "--results", run, NULL});
        cr_expect(r.status == 0 || r.status == 1 || r.status == 2, "%s", r.err);
        if (i == 2) {
            /* A label the file's outputs do not know is a label map change. */
            cr_expect(strstr(r.out, "warning: ") && strstr(r.out, changes[i].part), "%s%s", r.out, r.err);
            cr_expect(strstr(r.out, "logit 4 means social here, party in the fixture"), "%s", r.out);
        } else {
            cr_expect(strstr(r.out, "warning: ") && strstr(r.out, changes[i].part), "case %zu: %s%s", i, r.out, r.err);
            char *w = strstr(r.out, "warning: "), *judged = strstr(r.out, "\nreference (");
            cr_expect(w && judged && w < judged, "warned before the verdicts: %s", r.out);
        }
        tl_free(&r);
        tl_unlink_fixture(fx);
        free(base), free(text);
    }
    /* Unchanged: no warning at all. */
    cmd_result r = tl_run((const char *[]){"parity", "check", variant(2, "{device: cpu, dtype: bfloat16, role: twin}", 128),
                                           "--results", run, NULL});
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_null(strstr(r.out, "warning"), "%s", r.out);
    tl_free(&r);
}

/* ---- non-finite numbers never pass, in the reference too ---- */

Test(imported, a_nan_in_the_reference_is_not_a_pass, .timeout = 300)
{
    char *text = tl_slurp(recorded_run());
    /* Both sides NaN at the same place: that used to compare as equal. */
    char *m = text;
    for (int side = 0; side < 2; side++) {
        char *v = strstr(m, "values: [");
        cr_assert_not_null(v);
        char *comma = strchr(v + 9, ',');
        memset(v + 9, ' ', (size_t)(comma - (v + 9)));
        memcpy(v + 9, ".nan", 4);
        m = strstr(v, "\n  \"cand\":");
        if (!m)
            break;
    }
    char *dir = tl_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/nan.yaml", dir);
    tl_write(path, text);
    const char *fx = variant(2, "{device: cpu, dtype: bfloat16, role: twin}", 128);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "--results", path, NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "film-night           non-finite: logit 0 (film) is nan"), "%s", r.out);
    cr_expect(strstr(r.out, "the reference itself disagrees with the expectation on film-night: non-finite"), "%s",
              r.out);
    tl_free(&r);
    unlink(path), rmdir(dir);
    free(dir), free(text);
}
