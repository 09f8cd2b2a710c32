/* A training run's results (kind training, format 8): tests/data/training/
 * results.yaml reads as written; what is written reads back to the same
 * bytes, every double exact (a NaN and an infinity too); the train: record
 * is read strictly and bounded, every mistake one error at line:col. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/kind.h"
#include "parity/results.h"
#include "parity/results_schema.h"
#include "testlib.h"

#define TRAINING "tests/data/training/fixture.yaml"
#define TRAINING_RESULTS "tests/data/training/results.yaml"

static px_fixture *fixture(const char *path)
{
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return f;
}

static px_results *load_ok(const char *path, const px_fixture *f)
{
    px_error err = {0};
    px_results *r = results_load(path, f, &err);
    cr_assert_not_null(r, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return r;
}

static void write_ok(const px_results *r, const px_fixture *f, const char *path)
{
    px_error err = {0};
    cr_assert_eq(results_write(r, f, path, &err), 0, "%s", err.msg);
}

static void expect_same_file(const char *a, const char *b)
{
    char *ta = tl_slurp(a), *tb = tl_slurp(b);
    cr_assert(ta && tb);
    size_t i = 0;
    int line = 1;
    for (; ta[i] && ta[i] == tb[i]; i++)
        line += ta[i] == '\n';
    cr_expect(ta[i] == tb[i], "%s and %s differ at line %d:\n  %.120s\n  %.120s", a, b, line, ta + i, tb + i);
    free(ta), free(tb);
}

static const px_example_result *ex(const px_results *r, const px_fixture *f, const char *env, const char *id)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, env))
            for (size_t k = 0; k < f->n_examples; k++)
                if (!strcmp(f->examples[k].id, id))
                    return &r->envs[i].ex[k];
    cr_assert_fail("no %s/%s", env, id);
    return NULL;
}

static int line_of(const char *text, const char *s)
{
    const char *at = strstr(text, s);
    cr_assert(at, "'%s'", s);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* The test file: every environment, both runs, 10 steps; bf16-weights'
 * low-lr run a NaN from step 7 on; fsdp-2 two processes. */
Test(results_training, the_test_results_file_reads_as_written)
{
    px_fixture *f = fixture(TRAINING);
    px_results *r = load_ok(TRAINING_RESULTS, f);
    cr_assert_eq(r->n_envs, 4u);
    const px_example_result *x = ex(r, f, "reference", "adamw-warmup");
    cr_assert_eq(x->status, PX_ST_OK);
    cr_expect(x->ndim == 2 && x->shape[0] == 1 && x->shape[1] == 10 && x->n_values == 10);
    cr_expect_eq(x->values[0], 5.7);
    cr_expect_eq(x->label, -1);
    const px_train_out *t = x->train;
    cr_assert_not_null(t);
    cr_expect_eq(t->n_steps, 10u);
    cr_expect_eq(t->grad_norm[0], 2.4);
    cr_expect_eq(t->lr[2], 0.001);
    cr_expect_eq(t->processes, 1);
    cr_expect(t->startup_ms > 0 && t->total_ms > 0);
    cr_assert_eq(t->n_groups, 5u);
    cr_expect_str_eq(t->groups[0].name, "embed");
    cr_expect_eq(t->groups[0].numel, 9600);
    cr_expect_eq(t->groups[4].numel, 9600);
    const px_example_result *n = ex(r, f, "bf16-weights", "low-lr");
    cr_assert_not_null(n->train);
    cr_expect(!isnan(n->values[6]) && isnan(n->values[7]) && isnan(n->values[9]));
    cr_expect(isnan(n->train->grad_norm[7]) && isnan(n->train->update_norm[8]));
    cr_expect_eq(ex(r, f, "fsdp-2", "adamw-warmup")->train->processes, 2);
    results_free(r);
    fixture_free(f);
}

/* What is read is written back byte for byte; what is written reads back. */
Test(results_training, a_training_run_round_trips_exactly)
{
    px_fixture *f = fixture(TRAINING);
    px_results *r = load_ok(TRAINING_RESULTS, f);
    /* an infinity and a subnormal among the figures, which must survive */
    px_example_result *x = (px_example_result *)ex(r, f, "cpu-bf16", "adamw-warmup");
    x->train->grad_norm[3] = INFINITY;
    x->train->groups[1].sketch[5] = -INFINITY;
    x->train->groups[2].delta_norm = 4.9e-324;
    x->values[4] = 5.123456789012345;
    char *dir = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/train.yaml", dir);
    snprintf(b, sizeof b, "%s/again.yaml", dir);
    write_ok(r, f, a);
    char *text = tl_slurp(a);
    cr_expect(strstr(text, "\nparity_results: 8\nkind: training\n"), "%.300s", text);
    cr_expect(strstr(text, "          shape: [1, 10]\n"));
    cr_expect(strstr(text, "          processes: 2\n"));
    cr_expect(strstr(text, "          grad_norm: [2.4, "));
    px_results *back = load_ok(a, f);
    const px_example_result *y = ex(back, f, "cpu-bf16", "adamw-warmup");
    cr_assert_not_null(y->train);
    cr_expect(isinf(y->train->grad_norm[3]) && y->train->grad_norm[3] > 0);
    cr_expect(isinf(y->train->groups[1].sketch[5]) && y->train->groups[1].sketch[5] < 0);
    cr_expect_eq(y->train->groups[2].delta_norm, 4.9e-324);
    cr_expect_eq(y->values[4], 5.123456789012345);
    for (size_t e = 0; e < r->n_envs; e++)
        for (size_t k = 0; k < f->n_examples; k++) {
            const px_train_out *p = r->envs[e].ex[k].train, *q = back->envs[e].ex[k].train;
            cr_assert(p && q);
            cr_assert_eq(p->n_steps, q->n_steps);
            for (size_t s = 0; s < p->n_steps; s++)
                cr_expect(memcmp(&p->update_norm[s], &q->update_norm[s], sizeof(double)) == 0 &&
                              memcmp(&p->step_ms[s], &q->step_ms[s], sizeof(double)) == 0 &&
                              memcmp(&p->lr[s], &q->lr[s], sizeof(double)) == 0,
                          "%s step %zu", r->envs[e].name, s);
            cr_assert_eq(p->n_groups, q->n_groups);
            for (size_t g = 0; g < p->n_groups; g++)
                cr_expect(!memcmp(p->groups[g].sketch, q->groups[g].sketch, sizeof p->groups[g].sketch) &&
                          p->groups[g].norm == q->groups[g].norm && p->groups[g].numel == q->groups[g].numel);
        }
    /* the hash a reviewer's decision pins covers the train: record */
    char h1[PX_SHA256_HEX], h2[PX_SHA256_HEX];
    px_example_result *z = (px_example_result *)y;
    results_example_sha256(&back->envs[1], z, "adamw-warmup", h1);
    z->train->groups[0].sketch[63] += 1e-9;
    results_example_sha256(&back->envs[1], z, "adamw-warmup", h2);
    cr_expect_str_neq(h1, h2, "a sketch's change changes the example's hash");
    z->train->groups[0].sketch[63] -= 1e-9;
    z->train->step_ms[0] += 1;
    results_example_sha256(&back->envs[1], z, "adamw-warmup", h2);
    cr_expect_str_neq(h1, h2, "a step's time too");
    z->train->step_ms[0] -= 1;
    write_ok(back, f, b);
    expect_same_file(a, b);
    results_free(back), results_free(r);
    unlink(a), unlink(b), rmdir(dir);
    free(dir), free(text);
    fixture_free(f);
}

/* The text given, refused at line:col in one line. */
static void expect_refused(const char *bad, int line, int col, const char *needle)
{
    px_fixture *f = fixture(TRAINING);
    px_error err = {0};
    px_results *r = results_parse("r.yaml", bad, strlen(bad), f, &err);
    cr_expect_null(r, "loaded (wanted '%s')", needle);
    results_free(r);
    cr_expect_eq(err.line, line, "line %d:%d, wanted %d (%s)", err.line, err.col, line, err.msg);
    if (col)
        cr_expect_eq(err.col, col, "col %d, wanted %d (%s)", err.col, col, err.msg);
    cr_expect(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
    char one[2048];
    px_error_format(&err, one, sizeof one);
    cr_expect(!strchr(one, '\n'), "one line: %s", one);
    fixture_free(f);
}

/* The test file with every `from` replaced by `to`, refused at line:col. */
static void expect_error(const char *text, const char *from, const char *to, int line, int col, const char *needle)
{
    cr_assert(*from && strstr(text, from), "test bug: '%s' not in the file", from);
    char *bad = tl_replace_all(text, from, to);
    expect_refused(bad, line, col, needle);
    free(bad);
}

/* Only the first occurrence of `from` (the reference's adamw-warmup run). */
static char *replace_first(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert(at, "test bug: '%s'", from);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return s;
}

static void expect_first_error(const char *text, const char *from, const char *to, int line, int col,
                               const char *needle)
{
    char *bad = replace_first(text, from, to);
    expect_refused(bad, line, col, needle);
    free(bad);
}

Test(results_training, a_training_record_is_read_strictly)
{
    char *t = tl_slurp(TRAINING_RESULTS);
    cr_assert_not_null(t);
    int tr = line_of(t, "        train:\n"), gn = line_of(t, "          grad_norm:"),
        sm = line_of(t, "          step_ms:"), pr = line_of(t, "          processes: 1"),
        grp = line_of(t, "          groups:"), sk = line_of(t, "              sketch:"),
        shape = line_of(t, "          shape: [1, 10]"), numel = line_of(t, "              numel: 9600");
    expect_first_error(t, "          processes: 1\n", "          processes: 1\n          zzz: 1\n", pr + 1, 11,
                       "unknown key 'zzz'");
    expect_first_error(t, "          processes: 1\n", "", tr + 1, 11, "missing required key 'processes'");
    expect_first_error(t, "          processes: 1\n", "          processes: 0\n", pr, 22, "processes must be");
    expect_first_error(t, "          processes: 1\n", "          processes: 65\n", pr, 22, "at most 64");
    expect_first_error(t, "          grad_norm: [2.4, ", "          grad_norm: [", gn, 22,
                       "grad_norm has 9 values, the loss curve 10 steps");
    expect_first_error(t, "          grad_norm: [2.4, ", "          grad_norm: [2.4, 2.4, ", gn, 22,
                       "grad_norm has 11 values");
    expect_first_error(t, "          grad_norm: [2.4, ", "          grad_norm: [two, ", gn, 23, "must be a number");
    /* the first step's time, as the file has it */
    char ms0[64], from_ms[96], to_ms[96];
    cr_assert_eq(sscanf(strstr(t, "          step_ms: [") + 20, "%63[^,]", ms0), 1);
    snprintf(from_ms, sizeof from_ms, "          step_ms: [%s,", ms0);
    snprintf(to_ms, sizeof to_ms, "          step_ms: [-1,");
    expect_first_error(t, from_ms, to_ms, sm, 21, "step_ms must be durations of 0 or more milliseconds, not '-1'");
    snprintf(to_ms, sizeof to_ms, "          step_ms: [.nan,");
    expect_first_error(t, from_ms, to_ms, sm, 21, "durations of 0 or more");
    expect_first_error(t, "              sketch: [", "              sketch: [0.5, ", sk, 23,
                       "group 'embed' has a sketch of 65 values, not 64");
    expect_first_error(t, "              numel: 9600", "              numel: -1", numel, 22, "between 0 and");
    expect_first_error(t, "- name: \"attention\"", "- name: \"embed\"", line_of(t, "- name: \"attention\""), 21,
                       "group 'embed' is listed twice");
    expect_first_error(t, "              norm: ", "              zorm: ", numel + 1, 15, "unknown key 'zorm'");
    expect_first_error(t, "          shape: [1, 10]", "          shape: [1, 11]", shape + 1, 19,
                       "output has 10 values; its shape holds 11");
    expect_error(t, "parity_results: 8\nkind: training", "parity_results: 7\nkind: training", 5, 7,
                 "kind: training is written from format 8 on, this file says 7");
    expect_error(t, "\nkind: training\n", "\n", 4, 17, "no kind: training");
    expect_error(t, "kind: training", "kind: image", 5, 7, "an image's results (kind: image)");
    /* more groups than are recorded: refused before they are read */
    char *many = malloc(17 * 64 + 64), *p = many;
    p += sprintf(p, "          groups:\n");
    for (int g = 0; g < PX_TRAIN_MAX_GROUPS + 1; g++)
        p += sprintf(p, "            - {name: g%d}\n", g);
    char *head = strdup(t), *at = strstr(head, "          groups:\n"), *end = strstr(at, "        label:");
    size_t n = strlen(head) + strlen(many) + 1;
    char *bad = malloc(n);
    snprintf(bad, n, "%.*s%s%s", (int)(at - head), head, many, end);
    px_fixture *f = fixture(TRAINING);
    px_error err = {0};
    px_results *got = results_parse("r.yaml", bad, strlen(bad), f, &err);
    cr_expect_null(got);
    cr_expect(strstr(err.msg, "17 groups; at most 16"), "%s", err.msg);
    cr_expect_eq(err.line, grp + 1, "%d: %s", err.line, err.msg);
    results_free(got);
    fixture_free(f);
    free(many), free(head), free(bad), free(t);
}

/* An ok run needs its train: record and a curve of [1, N], N at most its
 * recipe's steps; a train: needs its curve; a label is refused. */
Test(results_training, an_ok_run_is_consistent)
{
    char *t = tl_slurp(TRAINING_RESULTS);
    int first = line_of(t, "      - id: \"adamw-warmup\""), shape = line_of(t, "          shape: [1, 10]");
    char *cut = strdup(t);
    char *from = strstr(cut, "        train:\n"), *to = strstr(from, "        label:");
    memmove(from, to, strlen(to) + 1);
    expect_refused(cut, first, 9, "outcome ok needs its train: record");
    free(cut);
    cut = strdup(t);
    from = strstr(cut, "        output:\n"), to = strstr(from, "        train:");
    memmove(from, to, strlen(to) + 1);
    expect_refused(cut, shape - 1, 11, "train without its output");
    free(cut);
    /* a curve of 11 steps, each list 11 long: more than the run's 10 */
    char *v = replace_first(t, "          values: [5.7, ", "          values: [5.7, 5.7, ");
    char *w = replace_first(v, "          shape: [1, 10]", "          shape: [1, 11]");
    free(v);
    static const char *const lists[] = {"          grad_norm: [", "          update_norm: [", "          lr: [",
                                        "          step_ms: ["};
    for (int i = 0; i < 4; i++) {
        char to_s[64];
        snprintf(to_s, sizeof to_s, "%s1, ", lists[i]);
        v = replace_first(w, lists[i], to_s);
        free(w);
        w = v;
    }
    expect_refused(w, shape, 18, "not [1, N] with N from 1 to the run's 10 steps");
    free(w);
    expect_first_error(t, "        label: null\n", "        label: x\n", line_of(t, "        label: null"), 16,
                 "not in the environment's recorded label map");
    free(t);
}
