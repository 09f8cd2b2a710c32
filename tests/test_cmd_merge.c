/* parity run --shard I/N and parity merge, end to end through the built
 * binary and real libtorch: the demo cut in two shards and merged is judged
 * exactly as one whole run (verdicts, JSON, every recorded output); a shard
 * alone never passes; and each way a set of shard files can fail to be one
 * run is refused with one line naming the file. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "parity/shard.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"

static void run_ok(const char *out, const char *shard, const char *env)
{
    cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "-o", out, shard ? "--shard" : NULL, shard,
                                           env ? "-e" : NULL, env, NULL});
    cr_assert_eq(r.status, 0, "run %s: status %d: %s", shard ? shard : "", r.status, r.err);
    tl_free(&r);
}

/* check -f json of one results file, with the file's name (its source)
 * taken out, so two files' verdicts can be compared as text. */
/* check's JSON with no last good configuration recorded before it (check
 * records one beside the fixture: each call starts from none). Of a copy of
 * the demo in dir, not the demo itself: another suite's check of the demo,
 * running beside this one (make check runs two at a time), records beside
 * the demo whenever it ends. */
static char *check_json(const char *dir, const char *results, int *status)
{
    char fx[PATH_MAX], cmd[3 * PATH_MAX], hist[PATH_MAX];
    snprintf(fx, sizeof fx, "%s/demo/fixture.yaml", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/demo' && cp " DEMO " fixtures/campus-club/model.pt "
             "fixtures/campus-club/vocab.txt '%s/demo/'", dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(hist, sizeof hist, "%s/demo/.fixture.yaml.parity-history.yaml", dir);
    unlink(hist);
    cmd_result r = tl_run((const char *[]){"parity", "check", fx, "--results", results, "-f", "json", NULL});
    *status = r.status;
    char *s = r.out, *at;
    while ((at = strstr(s, results)))
        memmove(at, at + strlen(results), strlen(at + strlen(results)) + 1);
    free(r.err);
    return s;
}

static px_results *load(const px_fixture *f, const char *path)
{
    px_error err = {0};
    px_results *r = results_load(path, f, &err);
    cr_assert_not_null(r, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return r;
}

/* What one environment recorded of one example, all of it but the time. */
static void expect_same_example(const px_example_result *a, const px_example_result *b, const char *what)
{
    cr_expect_eq(a->status, b->status, "%s: outcome", what);
    cr_expect_str_eq(a->detail ? a->detail : "", b->detail ? b->detail : "", "%s: detail", what);
    cr_expect_str_eq(a->clean_text ? a->clean_text : "", b->clean_text ? b->clean_text : "", "%s", what);
    cr_expect_eq(a->n_ids, b->n_ids, "%s: token ids", what);
    for (size_t i = 0; i < a->n_ids && i < b->n_ids; i++)
        cr_expect_eq(a->ids[i], b->ids[i], "%s: token %zu", what, i);
    cr_expect_eq(a->n_values, b->n_values, "%s: output", what);
    for (size_t i = 0; i < a->n_values && i < b->n_values; i++)
        cr_expect_eq(a->values[i], b->values[i], "%s: logit %zu: %.17g vs %.17g", what, i, a->values[i],
                     b->values[i]);
    cr_expect_eq(a->label, b->label, "%s: label", what);
    cr_expect(a->has_def == b->has_def && !memcmp(a->def_sha256, b->def_sha256, sizeof a->def_sha256),
              "%s: definition", what);
}

Test(merge, two_shards_merged_are_judged_as_one_whole_run, .timeout = 600)
{
    char *dir = tl_tmpdir(), whole[300], s0[300], s1[300], merged[300];
    snprintf(whole, sizeof whole, "%s/whole.yaml", dir);
    snprintf(s0, sizeof s0, "%s/shard-0.yaml", dir);
    snprintf(s1, sizeof s1, "%s/shard-1.yaml", dir);
    snprintf(merged, sizeof merged, "%s/merged.yaml", dir);
    run_ok(whole, NULL, NULL);
    run_ok(s0, "0/2", NULL);
    run_ok(s1, "1/2", NULL);
    px_error err = {0};
    px_fixture *f = fixture_load(DEMO, &err);
    cr_assert_not_null(f, "%s", err.msg);
    /* A shard file holds its own examples only, and says which shard. */
    size_t in0 = 0;
    char *text = tl_slurp(s0);
    cr_expect(strstr(text, "\nshard: \"0/2\"\n"), "%s", text);
    for (size_t k = 0; k < f->n_examples; k++) {
        char want[200];
        snprintf(want, sizeof want, "id: \"%s\"\n", f->examples[k].id);
        int mine = shard_of(f->examples[k].id, 2) == 0;
        in0 += (size_t)mine;
        cr_expect_eq(strstr(text, want) != NULL, mine, "%s in shard 0's file: %d", f->examples[k].id, mine);
    }
    free(text);
    cr_assert(in0 > 0 && in0 < f->n_examples, "test bug: the demo's examples must fall in both shards");
    /* A shard alone never looks like a complete pass: the other shard's
     * examples are not evaluated there, and a warning says to merge. */
    cmd_result r = tl_run((const char *[]){"parity", "check", DEMO, "--results", s1, NULL});
    cr_expect_eq(r.status, 3, "a shard alone is partial, not judged in full (never a pass): %s", r.out);
    cr_expect(strstr(r.out, "contract satisfied not reached: partial: "), "%s", r.out);
    cr_expect(strstr(r.out, "not-evaluated: run in shard 0/2"), "%s", r.out);
    cr_expect(strstr(r.out, "shard 1/2 of a run") && strstr(r.out, "parity merge"), "%s", r.out);
    tl_free(&r);
    /* Merged in any order: exit 0, what was merged named. */
    r = tl_run((const char *[]){"parity", "merge", DEMO, s1, s0, "-o", merged, NULL});
    cr_assert_eq(r.status, 0, "merge: %s", r.err);
    cr_expect(strstr(r.out, "2 shards merged") && strstr(r.out, merged), "%s", r.out);
    cr_expect_str_eq(r.err, "");
    tl_free(&r);
    /* The verdicts are a whole run's: the same exit, the same JSON but for
     * the file's name. */
    int st_whole, st_merged;
    char *jw = check_json(dir, whole, &st_whole), *jm = check_json(dir, merged, &st_merged);
    cr_expect_eq(st_merged, st_whole);
    cr_expect_eq(st_merged, 0, "the demo meets its contract");
    cr_expect_str_eq(jm, jw);
    free(jw), free(jm);
    /* Every recorded input and output is the whole run's (a deterministic
     * CPU model); the merged file is no shard and names its shards. */
    px_results *a = load(f, whole), *b = load(f, merged);
    cr_expect_eq(b->shard.count, 0);
    cr_assert_eq(b->n_merged_from, 2);
    cr_expect_str_eq(b->merged_from[0].file, s0, "in shard order");
    cr_expect_str_eq(b->merged_from[1].file, s1);
    cr_assert_eq(a->n_envs, b->n_envs);
    for (size_t e = 0; e < a->n_envs; e++) {
        cr_expect_str_eq(a->envs[e].name, b->envs[e].name);
        cr_expect_str_eq(a->envs[e].m.dtype, b->envs[e].m.dtype);
        cr_expect_str_eq(a->envs[e].m.model_sha256, b->envs[e].m.model_sha256);
        for (size_t k = 0; k < f->n_examples; k++) {
            char what[200];
            snprintf(what, sizeof what, "%s/%s", a->envs[e].name, f->examples[k].id);
            expect_same_example(&a->envs[e].ex[k], &b->envs[e].ex[k], what);
        }
    }
    /* The merged manifest's timings are shard 0's. */
    px_results *first = load(f, s0);
    cr_expect_eq(b->envs[0].m.load_ms, first->envs[0].m.load_ms);
    cr_expect_str_eq(b->envs[0].m.started_at, first->envs[0].m.started_at);
    results_free(first);
    results_free(a);
    results_free(b);
    /* A merged file is merged already. */
    r = tl_run((const char *[]){"parity", "merge", DEMO, merged, "-o", whole, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "not a shard file") && strstr(r.err, "merged already"), "%s", r.err);
    tl_free(&r);
    fixture_free(f);
    char rm[PATH_MAX];
    snprintf(rm, sizeof rm, "rm -rf '%s/demo'", dir);
    cr_expect_eq(system(rm), 0, "%s", rm);
    unlink(whole), unlink(s0), unlink(s1), unlink(merged), rmdir(dir);
    free(dir);
}

/* `from` replaced by `to` in the file at src, written to dst. */
static void edit(const char *src, const char *dst, const char *from, const char *to)
{
    char *text = tl_slurp(src), *at = text ? strstr(text, from) : NULL;
    cr_assert_not_null(at, "test bug: '%s' not in %s", from, src);
    FILE *o = fopen(dst, "w");
    cr_assert_not_null(o);
    fprintf(o, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    fclose(o);
    free(text);
}

/* parity merge ARGS... refused: exit 2, one line on stderr, starting with
 * "parity: WHERE" and holding needle. */
static void expect_refused(const char *const *argv, const char *where, const char *needle)
{
    cmd_result r = tl_run(argv);
    cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
    cr_expect_eq(tl_lines(r.err), 1, "one line: %s", r.err);
    char want[600];
    snprintf(want, sizeof want, "parity: %s", where);
    cr_expect(!strncmp(r.err, want, strlen(want)), "stderr '%s' does not start with '%s'", r.err, want);
    cr_expect(strstr(r.err, needle), "stderr '%s' lacks '%s'", r.err, needle);
    tl_free(&r);
}

/* The line (1-based) of the first occurrence of needle in the file. */
static int line_of(const char *path, const char *needle)
{
    char *text = tl_slurp(path), *at = text ? strstr(text, needle) : NULL;
    cr_assert_not_null(at, "test bug: '%s' not in %s", needle, path);
    int line = 1;
    for (char *p = text; p < at; p++)
        line += *p == '\n';
    free(text);
    return line;
}

/* The demo fixture with `from` replaced by `to`, in its own directory, with
 * the model and vocabulary paths absolute. */
static char *demo_variant(const char *dir, const char *from, const char *to)
{
    char cwd[PATH_MAX], model[PATH_MAX + 64], vocab[PATH_MAX + 64], *path = malloc(strlen(dir) + 32);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(model, sizeof model, "path: %s/fixtures/campus-club/model.pt", cwd);
    snprintf(vocab, sizeof vocab, "vocab: %s/fixtures/campus-club/vocab.txt", cwd);
    sprintf(path, "%s/fixture.yaml", dir);
    edit(DEMO, path, "path: model.pt", model);
    edit(path, path, "vocab: vocab.txt", vocab);
    edit(path, path, from, to);
    return path;
}

Test(merge, shards_of_another_run_are_refused, .timeout = 600)
{
    char *dir = tl_tmpdir(), s0[300], s1[300], p[300], q[300], out[300];
    snprintf(s0, sizeof s0, "%s/shard-0.yaml", dir);
    snprintf(s1, sizeof s1, "%s/shard-1.yaml", dir);
    snprintf(p, sizeof p, "%s/edited.yaml", dir);
    snprintf(q, sizeof q, "%s/other.yaml", dir);
    snprintf(out, sizeof out, "%s/merged.yaml", dir);
    run_ok(s0, "0/2", NULL);
    run_ok(s1, "1/2", NULL);
    char where[400];
    /* Not a shard: the results of a whole run. */
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, "tests/data/campus-results.yaml", "-o", out, NULL},
                   "tests/data/campus-results.yaml: ", "not a shard file (no shard:): the results of a whole run");
    /* Another configuration: one shard's bfloat16 environment ran float16. */
    edit(s1, p, "\n      dtype: \"bfloat16\"", "\n      dtype: \"float16\"");
    snprintf(where, sizeof where, "%s:%d:14: ", p, line_of(p, "      dtype: \"float16\""));
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, "-o", out, NULL}, where,
                   "environment 'cpu-bf16': manifest.dtype is 'float16' here but 'bfloat16' in");
    /* ... or on another CPU model, or with another thread count. */
    edit(s1, p, "device_name: \"", "device_name: \"Another ");
    snprintf(where, sizeof where, "%s:%d:", p, line_of(p, "device_name: \"Another "));
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, "-o", out, NULL}, where,
                   "manifest.device_name is 'Another ");
    edit(s1, p, "threads: 1", "threads: 4");
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, "-o", out, NULL}, p,
                   "manifest.threads is 4 here but 1 in");
    /* Another fixture: the contract (a tolerance) changed. */
    char *vdir = tl_tmpdir(), *variant = demo_variant(vdir, "atol: 0.05", "atol: 0.06");
    cmd_result r = tl_run((const char *[]){"parity", "run", variant, "-q", "--shard", "1/2", "-o", q, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    snprintf(where, sizeof where, "%s:%d:", q, line_of(q, "      compare: "));
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, q, "-o", out, NULL}, where,
                   "was run under another contract than " DEMO "'s now (contract.compare differs");
    /* Another set of environments (-e). */
    r = tl_run((const char *[]){"parity", "run", DEMO, "-q", "--shard", "1/2", "-e", "reference", "-o", q, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, q, "-o", out, NULL}, q,
                   "has no environment 'cpu-bf16', which");
    /* Overlapping: one shard twice (under two names), or a shard file that
     * claims another shard's examples. */
    edit(s0, p, "parity_results", "parity_results");
    snprintf(where, sizeof where, "%s:5:8: ", p);
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, s1, "-o", out, NULL}, where,
                   "shard 0/2 again: ");
    edit(s1, p, "shard: \"1/2\"", "shard: \"0/2\"");
    snprintf(where, sizeof where, "%s:%d:", p, line_of(p, "id: \"film-night\""));
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, "-o", out, NULL}, where,
                   "example 'film-night' belongs to shard 1/2, but this file is shard 0/2");
    /* Cut in another N. */
    edit(s1, p, "shard: \"1/2\"", "shard: \"1/3\"");
    /* (film-night is shard 0/3's: the edited file is refused as it is read,
     * naming the example, before the N is compared) */
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, "-o", out, NULL}, p, "belongs to shard");
    /* Benchmark figures in a shard (a file made by hand: parity bench
     * never runs in shards): refused, never dropped in the merge. */
    edit(s1, p, "\n    examples:",
         "\n    bench:\n      - endpoint: \"single\"\n        warmup: 0\n        passes: 1\n        examples: 0\n"
         "        forwards: 0\n        new_shapes: 0\n        new_shapes_ms: null\n        p50_ms: null\n"
         "        p90_ms: null\n        p99_ms: null\n        min_ms: null\n        max_ms: null\n"
         "        roundtrip_p50_ms: null\n        examples_per_s: null\n        stopped: \"no example ran\"\n"
         "        outputs: {}\n    examples:");
    snprintf(where, sizeof where, "%s:%d:5: ", p, line_of(p, "    bench:"));
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, p, "-o", out, NULL}, where,
                   "environment 'reference' holds benchmark figures (bench:), which a shard never does");
    /* A shard missing. */
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, "-o", out, NULL}, "shard 1/2 is missing",
                   "1 of 2 shard files given");
    cr_expect(access(out, F_OK) != 0, "nothing was written");
    /* Usage. */
    r = tl_run((const char *[]){"parity", "merge", DEMO, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "parity merge: which shard files?") && tl_lines(r.err) == 1, "%s", r.err);
    tl_free(&r);
    /* Cannot write: exit 4, nothing half-written. */
    r = tl_run((const char *[]){"parity", "merge", DEMO, s0, s1, "-o", "/nonexistent/dir/merged.yaml", NULL});
    cr_expect_eq(r.status, 4, "%s", r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    tl_free(&r);
    unlink(variant), rmdir(vdir);
    free(variant), free(vdir);
    unlink(s0), unlink(s1), unlink(p), unlink(q), rmdir(dir);
    free(dir);
}

/* Without -o a shard's file is named for its shard, beside the fixture:
 * shards sharing a directory never write over each other, and none is
 * taken for a whole run's results.yaml. */
Test(merge, a_shard_s_default_file_is_named_for_it, .timeout = 300)
{
    char *dir = tl_tmpdir(), cwd[PATH_MAX], fx[PATH_MAX + 64], model[PATH_MAX + 64], vocab[PATH_MAX + 64];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    snprintf(model, sizeof model, "path: %s/fixtures/campus-club/model.pt", cwd);
    snprintf(vocab, sizeof vocab, "vocab: %s/fixtures/campus-club/vocab.txt", cwd);
    edit(DEMO, fx, "path: model.pt", model);
    edit(fx, fx, "vocab: vocab.txt", vocab);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-e", "reference", "--shard", "1/3", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    char want[PATH_MAX + 64], whole[PATH_MAX + 64];
    snprintf(want, sizeof want, "%s/results.shard-1-of-3.yaml", dir);
    snprintf(whole, sizeof whole, "%s/results.yaml", dir);
    cr_expect(strstr(r.out, want), "%s", r.out);
    cr_expect(access(want, F_OK) == 0 && access(whole, F_OK) != 0);
    tl_free(&r);
    unlink(want), unlink(fx), rmdir(dir);
    free(dir);
}

Test(merge, shard_is_i_of_n_counted_from_0)
{
    static const char *const bad[][2] = {
        {"2/2", "I counts from 0 to N-1 (1 here)"},
        {"1/0", "at least 1"},
        {"-1/2", "two whole numbers"},
        {"a/b", "two whole numbers"},
        {"1", "a shard is I/N"},
        {"0/2x", "two whole numbers"},
        {" 0/2", "two whole numbers"},
        {"0/100001", "two whole numbers (N from 1 to 100000)"},
        {"", "a shard is I/N"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cmd_result r = tl_run((const char *[]){"parity", "run", DEMO, "--shard", bad[i][0], "-o", "/nonexistent/x", NULL});
        cr_expect_eq(r.status, 2, "--shard '%s': %d", bad[i][0], r.status);
        cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
        cr_expect(strstr(r.err, "parity run: --shard '") && strstr(r.err, bad[i][1]), "--shard '%s': %s", bad[i][0],
                  r.err);
        tl_free(&r);
    }
    /* check judges whole results (--results a merged file): no --shard. */
    cmd_result r = tl_run((const char *[]){"parity", "check", DEMO, "--shard", "0/2", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--shard is not an option of check"), "%s", r.err);
    tl_free(&r);
    px_shard s;
    char msg[200];
    cr_expect_eq(shard_parse("0/1", &s, msg, sizeof msg), 0, "one shard: the whole run, as a shard file");
    cr_expect_eq(shard_parse("99999/100000", &s, msg, sizeof msg), 0);
    cr_expect(s.index == 99999 && s.count == 100000);
}

/* The assignment is part of the format (parity-results(5)): the first 8
 * bytes of SHA-256 of the id, big-endian, modulo N. Pinned, so another
 * program can compute it and a change is caught. */
Test(merge, an_example_s_shard_depends_on_its_id_alone)
{
    /* python3 -c 'import hashlib; print(int(hashlib.sha256(b"film-night").hexdigest()[:16], 16) % N)' */
    cr_expect_eq(shard_of("film-night", 2), 1);
    cr_expect_eq(shard_of("film-night", 3), 0);
    cr_expect_eq(shard_of("film-night", 4), 3);
    cr_expect_eq(shard_of("empty", 2), 0);
    cr_expect_eq(shard_of("charity-run", 3), 2);
    cr_expect_eq(shard_of("bouldering", 7), 5);
    cr_expect_eq(shard_of("anything", 1), 0);
}

/* Shards run with other values of a variable that changes numerics are two
 * configurations, not one run: refused, naming the variable, both values
 * and both files, at the variable's place. */
Test(merge, shards_run_with_other_numerics_variables_are_refused, .timeout = 300)
{
    char *dir = tl_tmpdir(), s0[300], s1[300], out[300], where[400];
    snprintf(s0, sizeof s0, "%s/shard-0.yaml", dir);
    snprintf(s1, sizeof s1, "%s/shard-1.yaml", dir);
    snprintf(out, sizeof out, "%s/merged.yaml", dir);
    setenv("OMP_NUM_THREADS", "1", 1);
    run_ok(s0, "0/2", NULL);
    setenv("OMP_NUM_THREADS", "2", 1);
    run_ok(s1, "1/2", NULL);
    snprintf(where, sizeof where, "%s:%d:28: ", s1, line_of(s1, "        \"OMP_NUM_THREADS\": \"2\""));
    char needle[700];
    snprintf(needle, sizeof needle,
             "environment 'reference': environment variable OMP_NUM_THREADS is '2' here but '1' in %s: shards of "
             "another configuration",
             s0);
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, s1, "-o", out, NULL}, where, needle);
    /* Set in one shard only. */
    unsetenv("OMP_NUM_THREADS");
    run_ok(s1, "1/2", NULL);
    snprintf(needle, sizeof needle, "environment variable OMP_NUM_THREADS is not set here but '1' in %s", s0);
    expect_refused((const char *[]){"parity", "merge", DEMO, s0, s1, "-o", out, NULL}, s1, needle);
    cr_expect(access(out, F_OK) != 0, "nothing merged");
    /* The same again: merged, and the merged manifest keeps them. */
    setenv("OMP_NUM_THREADS", "1", 1);
    run_ok(s1, "1/2", NULL);
    cmd_result r = tl_run((const char *[]){"parity", "merge", DEMO, s0, s1, "-o", out, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    char *text = tl_slurp(out);
    cr_expect(text && strstr(text, "      env:\n        \"OMP_NUM_THREADS\": \"1\"\n"), "%s", text);
    free(text);
    unlink(s0), unlink(s1), unlink(out), rmdir(dir);
    free(dir);
}
