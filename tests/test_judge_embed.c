/* An embedding's verdicts (contract.model.kind: embedding), judged from
 * hand-made results files (tests/data/embed/): the vector against the
 * reference's (elements, cosine), each query's search against its
 * expectation and a candidate's first k against the reference's, the
 * earliest divergence, and precision or device told by the twin; the
 * results file of an embedding (format 6, whole vectors) read back as
 * strictly as a local run, and refused for a contract of another kind. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parity/evidence.h"
#include "parity/judge.h"
#include "parity/story.h"
#include "testlib.h"

#define SEARCH "tests/data/embed/search.yaml"
#define SEARCH_RESULTS "tests/data/embed/search-results.yaml"

typedef struct judged {
    px_fixture *f;
    px_env_input *in;
    px_results *res;
    px_judgement j;
} judged;

/* As `parity check FIXTURE --results FILE --no-run` gathers and judges:
 * each environment's input checked against parity's own processing. */
static void judge_file(judged *p, const char *fixture, const char *results)
{
    px_error err = {0};
    p->f = fixture_load(fixture, &err);
    cr_assert_not_null(p->f, "%s:%d: %s", err.file, err.line, err.msg);
    p->in = calloc(p->f->n_envs, sizeof *p->in);
    const char *files[] = {results};
    px_sources s = {.results = files, .n_results = 1, .no_run = 1};
    p->res = evidence_gather(p->f, &s, p->in, &err);
    cr_assert_not_null(p->res, "%s:%d: %s", err.file, err.line, err.msg);
    cr_assert_eq(evidence_inputs(p->f, p->res, p->in, &err), 0, "%s", err.msg);
    cr_assert_eq(judge_results(p->f, p->res, &p->j, &err), 0, "%s", err.msg);
}

static void judged_free(judged *p)
{
    judgement_free(&p->j);
    evidence_inputs_close(p->f, p->res, p->in);
    results_free(p->res);
    free(p->in);
    fixture_free(p->f);
}

static size_t env_at(const judged *p, const char *name)
{
    for (size_t e = 0; e < p->res->n_envs; e++)
        if (!strcmp(p->res->envs[e].name, name))
            return e;
    cr_assert_fail("no environment %s", name);
    return 0;
}

static size_t ex_at(const judged *p, const char *id)
{
    long k = fixture_example_index(p->f, id);
    cr_assert_geq(k, 0, "no example %s", id);
    return (size_t)k;
}

static const px_verdict *verdict(const judged *p, const char *env, const char *id)
{
    const px_verdict *v = &p->j.envs[env_at(p, env)].ex[ex_at(p, id)];
    cr_assert_not_null(v->embed, "%s/%s: no embedding verdict", env, id);
    return v;
}

static char *cause(const judged *p, const char *env, const char *id)
{
    return judgement_cause_words(&p->j, env_at(p, env), ex_at(p, id));
}

/* The search as ids, "a,b,c" (the first n). */
static void ranked_ids(const judged *p, const px_embed_verdict *em, size_t n, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < em->n_ranked; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "", p->f->examples[em->doc[i]].id);
}

/* Ranks 2 and 3 swap in the TPU and in the bfloat16 twin alike: the
 * TPU's changed search is precision's doing; its vectors are within every
 * tolerance, yet the query fails (order exact). */
Test(judge_embed, swap_in_candidate_and_twin_is_precision)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    const px_verdict *ref = verdict(&p, "reference", "q-swap"), *tpu = verdict(&p, "tpu", "q-swap"),
                     *tw = verdict(&p, "cpu-bf16", "q-swap");
    char ids[256];
    ranked_ids(&p, ref->embed, 4, ids, sizeof ids);
    cr_expect_str_eq(ids, "go-night,chess-club,film-night,lantern-walk");
    cr_expect_eq(ref->outcome, PX_OC_PASS, "%s", ref->detail);
    cr_expect_eq(ref->embed->held, -1);
    ranked_ids(&p, tpu->embed, 3, ids, sizeof ids);
    cr_expect_str_eq(ids, "go-night,film-night,chess-club");
    cr_expect_eq(tpu->embed->n_ranked, 4);
    cr_expect_eq(tpu->embed->k, 3);
    /* Scores are the cosines, best first. */
    for (size_t i = 1; i < tpu->embed->n_ranked; i++)
        cr_expect_geq(tpu->embed->score[i - 1], tpu->embed->score[i]);
    cr_expect_eq(tpu->outcome, PX_OC_RANKING_CHANGED, "%s: %s", outcome_name(tpu->outcome), tpu->detail);
    cr_expect_eq(tpu->embed->held, 0);
    cr_expect_str_eq(tpu->embed->moved, "rank 2 and 3 swap: film-night, chess-club");
    cr_expect(tpu->embed->cosine > 0.999 && tpu->embed->cosine < 1, "cosine %g", tpu->embed->cosine);
    cr_expect_float_eq(tpu->embed->min_cosine, 0.999, 1e-12);
    cr_expect(strstr(tpu->detail, "rank 2 and 3 swap: film-night, chess-club"), "%s", tpu->detail);
    cr_expect_eq(tpu->div, PX_DIV_RANKING, "%s: %s", div_name(tpu->div), tpu->div_detail);
    cr_expect_eq(tpu->attr, PX_ATTR_PRECISION);
    char *c = cause(&p, "tpu", "q-swap");
    cr_expect_str_eq(c, "precision (rank 2 and 3 swap: film-night, chess-club in the bfloat16 twin as well)");
    free(c);
    cr_expect_eq(tw->outcome, PX_OC_RANKING_CHANGED);
    cr_expect_eq(tw->attr, PX_ATTR_PRECISION);
    judged_free(&p);
}

/* lantern-walk enters the TPU's top 3 while the twin keeps the
 * reference's: the device's doing, a task failure with every vector
 * within the tolerance. */
Test(judge_embed, change_only_in_candidate_is_the_device)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    const px_verdict *tpu = verdict(&p, "tpu", "q-enter"), *tw = verdict(&p, "cpu-bf16", "q-enter");
    cr_expect_eq(tpu->outcome, PX_OC_RANKING_CHANGED, "%s: %s", outcome_name(tpu->outcome), tpu->detail);
    cr_expect(tpu->has_cmp && tpu->cmp.pass, "the vector is within the tolerance");
    cr_expect(tpu->embed->cosine >= tpu->embed->min_cosine);
    cr_expect_str_eq(tpu->embed->moved, "lantern-walk enters at rank 3, film-night leaves");
    cr_expect_eq(tpu->attr, PX_ATTR_DEVICE);
    char *c = cause(&p, "tpu", "q-enter");
    cr_expect_str_eq(c, "device (the twin keeps the reference's top 3)");
    free(c);
    cr_expect_eq(tw->embed->held, 1);
    cr_expect_eq(tw->outcome, PX_OC_PASS_TOL, "%s: %s", outcome_name(tw->outcome), tw->detail);
    judged_free(&p);
}

/* The TPU's query vector drifts past min_cosine and the element
 * tolerance, but its top 2 hold: numeric-drift, saying that the ranking
 * held; the earliest divergence is the values (an element, not a logit). */
Test(judge_embed, drift_with_the_ranking_held_says_so)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    const px_verdict *v = verdict(&p, "tpu", "q-drift");
    cr_expect_eq(v->outcome, PX_OC_NUMERIC_DRIFT, "%s: %s", outcome_name(v->outcome), v->detail);
    cr_expect_eq(v->embed->held, 1);
    cr_expect_null(v->embed->moved);
    cr_expect(v->embed->cosine < 0.999 && v->embed->cosine > 0.99, "cosine %g", v->embed->cosine);
    cr_expect(strstr(v->detail, "cosine 0.99225"), "%s", v->detail);
    cr_expect(strstr(v->detail, "cosine 0.992253 to the reference's vector < 0.999;"), "%s", v->detail);
    cr_expect(strstr(v->detail, "but its top 2 held"), "%s", v->detail);
    cr_expect(!strstr(v->detail, "logit"), "%s", v->detail);
    cr_expect_eq(v->div, PX_DIV_VALUES);
    cr_expect(strstr(v->div_detail, "element 3: 0.5 vs 0.62"), "%s", v->div_detail);
    /* The twin stays within: the device's. */
    cr_expect_eq(v->attr, PX_ATTR_DEVICE);
    cr_expect_float_eq(v->embed->norm, sqrt(0.01 + 1 + 0.62 * 0.62), 1e-12);
    judged_free(&p);
}

/* Order set: the TPU ranks chess-club and go-night the other way round,
 * which as a set is the same top 2 (held, within tolerance); the same
 * reordering under order exact (q-swap) is a change. */
Test(judge_embed, order_set_holds_where_exact_would_not)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    const px_verdict *v = verdict(&p, "tpu", "q-set"), *r = verdict(&p, "reference", "q-set");
    char a[128], b[128];
    ranked_ids(&p, r->embed, 2, a, sizeof a);
    ranked_ids(&p, v->embed, 2, b, sizeof b);
    cr_expect_str_eq(a, "chess-club,go-night");
    cr_expect_str_eq(b, "go-night,chess-club");
    cr_expect_eq(v->embed->held, 1);
    cr_expect_eq(v->outcome, PX_OC_PASS_TOL, "%s: %s", outcome_name(v->outcome), v->detail);
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    /* Held as a set, in another order: said, not failed. */
    cr_expect(v->embed->moved && !strcmp(v->embed->moved, "rank 1 and 2 swap: go-night, chess-club"), "%s",
              v->embed->moved ? v->embed->moved : "(none)");
    cr_expect(strstr(v->detail, "top 2 held as a set (rank 1 and 2 swap: go-night, chess-club)"), "%s", v->detail);
    char **lines;
    int tw;
    size_t n = story_search_lines(p.f, p.res, &p.j, &lines, &tw);
    int said = 0;
    for (size_t i = 0; i < n; i++) {
        said |= !strncmp(lines[i], "tpu: ", 5) && strstr(lines[i], "held as a set in another order (q-set: rank 1 "
                                                                  "and 2 swap: go-night, chess-club)");
        free(lines[i]);
    }
    free(lines);
    cr_expect(said, "the story's line for tpu says the reordering within q-set's window");
    judged_free(&p);
}

/* The reference itself ranks go-night first where the query expects
 * chess-club: wrong-ranking there, and a finding. */
Test(judge_embed, reference_missing_its_expectation_is_a_finding)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    const px_verdict *v = verdict(&p, "reference", "q-miss");
    cr_expect_eq(v->outcome, PX_OC_WRONG_RANKING, "%s: %s", outcome_name(v->outcome), v->detail);
    cr_expect(strstr(v->detail, "rank 1 is go-night, expected chess-club"), "%s", v->detail);
    int found = 0;
    for (size_t i = 0; i < p.j.n_findings; i++)
        found |= strstr(p.j.findings[i], "q-miss") && strstr(p.j.findings[i], "wrong-ranking");
    cr_expect(found, "no finding for q-miss");
    cr_expect_eq(p.j.envs[env_at(&p, "reference")].met, 0);
    judged_free(&p);
}

/* A document raised in the GPU: no query has a search there, so each is
 * not-evaluated, and says which document and why. */
Test(judge_embed, a_document_that_raised_leaves_queries_not_evaluated)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    const px_verdict *d = verdict(&p, "gpu", "lantern-walk"), *q = verdict(&p, "gpu", "q-swap");
    cr_expect_eq(d->outcome, PX_OC_EXCEPTION);
    cr_expect_eq(q->outcome, PX_OC_NOT_EVALUATED, "%s: %s", outcome_name(q->outcome), q->detail);
    cr_expect_eq(q->embed->n_ranked, 0);
    cr_expect(q->embed->rank_note && strstr(q->embed->rank_note, "document lantern-walk") &&
                  strstr(q->embed->rank_note, "layer_norm"),
              "%s", q->embed->rank_note ? q->embed->rank_note : "(null)");
    cr_expect_eq(p.j.envs[env_at(&p, "gpu")].counts[PX_OC_NOT_EVALUATED], 5);
    /* A document that ran is judged on its vector alone. */
    cr_expect_eq(verdict(&p, "gpu", "chess-club")->outcome, PX_OC_PASS);
    judged_free(&p);
}

/* What results_write writes for an embedding (format 6, kind: embedding,
 * each vector whole, label null) reads back to the same numbers, bit for
 * bit, and judges the same. */
Test(judge_embed, written_results_read_back_judge_identically)
{
    judged a, b;
    judge_file(&a, SEARCH, SEARCH_RESULTS);
    char *dir = tl_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/again.yaml", dir);
    px_error err = {0};
    cr_assert_eq(results_write(a.res, a.f, path, &err), 0, "%s", err.msg);
    char *text = tl_slurp(path);
    cr_expect(strstr(text, "\nparity_results: 6\nkind: embedding\n"), "%.300s", text);
    cr_expect(strstr(text, "shape: [1, 4]"), "%.300s", text);
    cr_expect(!strstr(text, "label: \""), "an embedding's example has no label");
    free(text);
    judge_file(&b, SEARCH, path);
    cr_assert_eq(a.res->n_envs, b.res->n_envs);
    for (size_t e = 0; e < a.res->n_envs; e++) {
        size_t eb = env_at(&b, a.res->envs[e].name);
        for (size_t k = 0; k < a.f->n_examples; k++) {
            const px_example_result *xa = &a.res->envs[e].ex[k], *xb = &b.res->envs[eb].ex[k];
            cr_expect_eq(xa->n_values, xb->n_values);
            for (size_t i = 0; i < xa->n_values && i < xb->n_values; i++)
                cr_expect(memcmp(&xa->values[i], &xb->values[i], sizeof(double)) == 0, "%s/%s[%zu]",
                          a.res->envs[e].name, a.f->examples[k].id, i);
            const px_verdict *va = &a.j.envs[e].ex[k], *vb = &b.j.envs[eb].ex[k];
            cr_expect_eq(va->outcome, vb->outcome, "%s/%s", a.res->envs[e].name, a.f->examples[k].id);
            cr_expect_str_eq(va->detail ? va->detail : "", vb->detail ? vb->detail : "");
            cr_expect_eq(va->attr, vb->attr);
            cr_expect_eq(va->embed->held, vb->embed->held);
            /* The review decision's hash covers the vector. */
            char ha[PX_SHA256_HEX], hb[PX_SHA256_HEX];
            results_example_sha256(&a.res->envs[e], xa, a.f->examples[k].id, ha);
            results_example_sha256(&b.res->envs[eb], xb, a.f->examples[k].id, hb);
            cr_expect_str_eq(ha, hb);
        }
    }
    judged_free(&b);
    judged_free(&a);
    unlink(path);
    rmdir(dir);
    free(dir);
}

static void expect_refused(const char *fixture, const char *results_text, const char *needle, int line)
{
    px_error err = {0};
    px_fixture *f = fixture_load(fixture, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *r = results_parse("r.yaml", results_text, strlen(results_text), f, &err);
    cr_expect_null(r, "loaded: %s", needle);
    cr_expect(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
    cr_expect(!strchr(err.msg, '\n'), "one line: %s", err.msg);
    if (line)
        cr_expect_eq(err.line, line, "%s at line %d, want %d", err.msg, err.line, line);
    results_free(r);
    fixture_free(f);
}

/* A results file of another kind of task is refused whole, in one line:
 * an embedding's vectors for a classifier's contract, a classifier's
 * logits for an embedding's; and an embedding's own file that contradicts
 * the contract (a vector of another width, a label). */
Test(judge_embed, results_of_another_kind_or_shape_are_refused)
{
    char *text = tl_slurp(SEARCH_RESULTS);
    cr_assert_not_null(text);
    expect_refused("tests/data/planted.yaml", text, "an embedding's results (kind: embedding), but the contract's "
                                                     "model is a classifier",
                   5);
    char *classifier = tl_slurp("tests/data/results-minimal.yaml");
    expect_refused(SEARCH, classifier, "a classifier's or a generator's results (format 1, no kind: embedding), "
                                       "but the contract's model is an embedding",
                   0);
    char *narrow = tl_replace_all(text, "shape: [1, 4], values: [1.0, 0.0, 0.0, 0.0]",
                                  "shape: [1, 3], values: [1.0, 0.0, 0.0]");
    cr_assert(strcmp(narrow, text));
    expect_refused(SEARCH, narrow, "outcome ok, but the output is not [1, 4] (contract.model.dim)", 0);
    char *labelled = tl_replace_all(text, "values: [1.0, 0.0, 0.0, 0.0]}\n        label: null",
                                    "values: [1.0, 0.0, 0.0, 0.0]}\n        label: chess");
    cr_assert(strcmp(labelled, text));
    expect_refused(SEARCH, labelled, "label 'chess' is not in the environment's recorded label map", 0);
    char *old = tl_replace_all(text, "parity_results: 6\nkind: embedding", "parity_results: 5\nkind: embedding");
    expect_refused(SEARCH, old, "kind is written from format 6 on, this file says 5", 5);
    free(old), free(labelled), free(narrow), free(classifier), free(text);
}

static json_t *json_env(json_t *root, const char *name)
{
    json_t *envs = json_object_get(root, "environments"), *e;
    size_t i;
    json_array_foreach(envs, i, e) if (!strcmp(json_string_value(json_object_get(e, "name")), name)) return e;
    cr_assert_fail("no environment %s in the JSON", name);
    return NULL;
}

static json_t *json_example(json_t *env, const char *id)
{
    json_t *xs = json_object_get(env, "examples"), *x;
    size_t i;
    json_array_foreach(xs, i, x) if (!strcmp(json_string_value(json_object_get(x, "id")), id)) return x;
    cr_assert_fail("no example %s in the JSON", id);
    return NULL;
}

static void top_ids(json_t *list, char *buf, size_t size)
{
    json_t *d;
    size_t i;
    buf[0] = '\0';
    json_array_foreach(list, i, d)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "",
                 json_string_value(json_object_get(d, "id")));
}

/* `parity check --format json`: per query the environment's first k with
 * their cosines beside the reference's, held or not, what moved, the
 * cosine to the reference's vector; the two new outcomes counted; what
 * each environment does to the searches. */
Test(judge_embed, check_json_shows_the_searches)
{
    const char *argv[] = {"parity", "check", SEARCH, "--results", SEARCH_RESULTS, "--no-run", "--format", "json", NULL};
    cmd_result r = tl_run(argv);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    json_error_t je;
    json_t *root = json_loads(r.out, 0, &je);
    cr_assert_not_null(root, "%s: %.300s", je.text, r.out);
    json_t *tpu = json_env(root, "tpu");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(tpu, "counts"), "ranking-changed")), 2);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(tpu, "counts"), "wrong-ranking")), 1);
    json_t *q = json_example(tpu, "q-swap"), *em = json_object_get(q, "embedding"),
           *search = json_object_get(em, "search");
    cr_assert(json_is_object(search), "q-swap has no search in the JSON");
    char ids[256];
    top_ids(json_object_get(search, "top"), ids, sizeof ids);
    cr_expect_str_eq(ids, "go-night,film-night,chess-club");
    top_ids(json_object_get(search, "reference_top"), ids, sizeof ids);
    cr_expect_str_eq(ids, "go-night,chess-club,film-night");
    cr_expect(json_is_real(json_object_get(json_array_get(json_object_get(search, "top"), 0), "cosine")));
    cr_expect(json_is_false(json_object_get(search, "held")));
    cr_expect_str_eq(json_string_value(json_object_get(search, "moved")), "rank 2 and 3 swap: film-night, chess-club");
    cr_expect_str_eq(json_string_value(json_object_get(search, "order")), "exact");
    cr_expect_eq(json_integer_value(json_object_get(search, "k")), 3);
    double c = json_real_value(json_object_get(em, "cosine"));
    cr_expect(c > 0.999 && c < 1, "cosine %g", c);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(q, "divergence"), "stage")), "ranking");
    cr_expect_str_eq(json_string_value(json_object_get(q, "cause")), "precision");
    /* A document has a vector, no search. */
    json_t *d = json_object_get(json_example(tpu, "chess-club"), "embedding");
    cr_expect(json_is_null(json_object_get(d, "search")));
    cr_expect_str_eq(json_string_value(json_object_get(d, "role")), "document");
    /* The gpu's queries have no ranking, and say why. */
    json_t *g = json_object_get(json_object_get(json_example(json_env(root, "gpu"), "q-set"), "embedding"), "search");
    cr_expect(json_is_null(json_object_get(g, "top")));
    cr_expect(strstr(json_string_value(json_object_get(g, "note")), "lantern-walk"));
    json_t *lines = json_object_get(root, "searches");
    cr_assert_eq(json_array_size(lines), 3);
    cr_expect_str_eq(json_string_value(json_array_get(lines, 0)),
                     "1 of 5 queries' top k change in the bfloat16 twin cpu-bf16: precision (q-swap: rank 2 and 3 "
                     "swap: film-night, chess-club)");
    cr_expect(strstr(json_string_value(json_array_get(lines, 1)), "tpu: 2 of 5 queries' top k change: 1 as in the "
                                                                  "twin (precision), 1 only here (device)"));
    json_decref(root);
    tl_free(&r);
    /* The text shows each search beside the reference's. */
    const char *targv[] = {"parity", "check", SEARCH, "--results", SEARCH_RESULTS, "--no-run", NULL};
    r = tl_run(targv);
    cr_expect(strstr(r.out, "search: top 3 go-night 0.8082, film-night 0.5773, chess-club 0.5715 | reference "
                            "go-night 0.8191, chess-club 0.585, film-night 0.5616 | changed: rank 2 and 3 swap: "
                            "film-night, chess-club | cosine 0.999783 to the reference's vector"),
              "%s", r.out);
    cr_expect(strstr(r.out, "\nsearches:\n  - 1 of 5 queries' top k change in the bfloat16 twin"), "%s", r.out);
    tl_free(&r);
}

/* The summary's story says what the twin does to the searches, in its
 * verdict line, and each query's cell carries its search. */
Test(judge_embed, story_says_what_the_twin_does_to_the_searches)
{
    judged p;
    judge_file(&p, SEARCH, SEARCH_RESULTS);
    px_error err = {0};
    px_story *s = story_build(p.f, p.res, &p.j, NULL, NULL, &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_expect(strstr(s->verdict, "1 of 5 queries' top k change in the bfloat16 twin cpu-bf16: precision"), "%s",
              s->verdict);
    cr_expect_eq(s->searches.n, 3);
    size_t tpu = env_at(&p, "tpu"), q = ex_at(&p, "q-enter");
    const char *w = s->examples[q].cells[tpu].search;
    cr_assert_not_null(w);
    cr_expect(strstr(w, "changed: lantern-walk enters at rank 3, film-night leaves"), "%s", w);
    cr_expect(strstr(s->examples[q].expect, "each in the top 3: go-night"), "%s", s->examples[q].expect);
    cr_expect_null(s->examples[ex_at(&p, "chess-club")].cells[tpu].search);
    story_free(s);
    judged_free(&p);
}

/* A NaN in a vector is a failure of its own, named by its element (not a
 * logit), and the query is never ranked as if it were a number. */
Test(judge_embed, a_non_finite_element_is_named_as_an_element)
{
    char *text = tl_slurp(SEARCH_RESULTS);
    /* The TPU's q-set vector (the only one with 0.34). */
    char *bad = tl_replace_all(text, "values: [1.0, 0.34, 0.0, 0.0]", "values: [1.0, .nan, 0.0, 0.0]");
    cr_assert(strcmp(bad, text));
    char *dir = tl_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/nan.yaml", dir);
    tl_write(path, bad);
    judged p;
    judge_file(&p, SEARCH, path);
    const px_verdict *v = verdict(&p, "tpu", "q-set");
    cr_expect_eq(v->outcome, PX_OC_NON_FINITE, "%s: %s", outcome_name(v->outcome), v->detail);
    cr_expect_str_eq(v->detail, "element 1 is nan");
    cr_expect_eq(v->embed->n_ranked, 0);
    judged_free(&p);
    unlink(path);
    rmdir(dir);
    free(dir), free(bad), free(text);
}

/* The reference's own document raised: a candidate's query still has its
 * search, but nothing to hold it to: held is not known, and it says so. */
Test(judge_embed, without_the_references_ranking_a_search_is_not_compared)
{
    char *text = tl_slurp(SEARCH_RESULTS);
    const char *ok = "outcome: ok\n", *vec = "        output: {dtype: float32, shape: [1, 4], values: [1.0, 0.0, 0.0, "
                                               "0.0]}\n";
    /* The reference comes first, chess-club first in it. */
    char *at = strstr(text, ok), *out = strstr(text, vec);
    cr_assert(at && out && at < out);
    char *bad = malloc(strlen(text) + 100);
    sprintf(bad, "%.*soutcome: exception\n        detail: \"RuntimeError: boom\"\n%.*s%s", (int)(at - text), text,
            (int)(out - at - strlen(ok)), at + strlen(ok), out + strlen(vec));
    char *dir = tl_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/refdoc.yaml", dir);
    tl_write(path, bad);
    judged p;
    judge_file(&p, SEARCH, path);
    const px_verdict *r = verdict(&p, "reference", "q-swap"), *v = verdict(&p, "tpu", "q-swap");
    cr_expect_eq(r->outcome, PX_OC_NOT_EVALUATED, "%s", r->detail);
    cr_expect_eq(v->embed->held, -1);
    cr_expect_gt(v->embed->n_ranked, 0);
    cr_expect_eq(v->outcome, PX_OC_PASS_TOL, "%s: %s", outcome_name(v->outcome), v->detail);
    cr_expect(strstr(v->detail, "its top 3 not compared: the reference has no ranking (document chess-club"), "%s",
              v->detail);
    cr_expect(!strstr(v->detail, "held"), "%s", v->detail);
    judged_free(&p);
    unlink(path);
    rmdir(dir);
    free(dir), free(bad), free(text);
}
