/* A known defect is kept (issue 38): an example a reviewer decided
 * `defect` (the model is wrong on it, and the fixture says so) meets the
 * contract where the environment answers it as the reference does, is its
 * own outcome (known-defect, counted apart, the outcome it stands for kept
 * in its detail), and fails again the moment a candidate parts from the
 * reference on it. On the demo's real results (tests/data/campus-results.yaml)
 * with film-night expected to be "music": the model says film, everywhere. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/judge.h"
#include "parity/results.h"
#include "testlib.h"

#define RESULTS "tests/data/campus-results.yaml"
#define EXPECT "    expect: {label: film}\n    why: the ordinary case"

typedef struct judged {
    char *dir;
    px_fixture *f;
    px_results *r;
    px_judgement j;
    int ref, twin; /* environments */
    size_t k;      /* film-night */
} judged;

/* The demo fixture in a fresh directory with film-night expecting `label`,
 * decided `decision` (NULL: undecided), judged against results. */
static void judge_as(judged *t, const char *label, const char *decision, const char *results)
{
    char cmd[1024], path[512];
    t->dir = tl_tmpdir();
    snprintf(cmd, sizeof cmd, "cp fixtures/campus-club/fixture.yaml fixtures/campus-club/model.pt "
                              "fixtures/campus-club/vocab.txt '%s/'",
             t->dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/fixture.yaml", t->dir);
    char *text = tl_slurp(path), *at = strstr(text, EXPECT), *grown = NULL;
    cr_assert_not_null(at);
    const char *review = "";
    char rv[256];
    if (decision) {
        snprintf(rv, sizeof rv, "    review: {decision: %s, note: the model calls it film, by: kim, at: '2026-12-01T10:00:00Z'}\n",
                 decision);
        review = rv;
    }
    cr_assert_geq(asprintf(&grown, "%.*s    expect: {label: %s}\n%s%s", (int)(at - text), text, label, review,
                           at + strlen("    expect: {label: film}\n")),
                  0);
    tl_write(path, grown);
    free(grown), free(text);
    px_error err = {0};
    t->f = fixture_load(path, &err);
    cr_assert_not_null(t->f, "%s", err.msg);
    t->r = results_load(results, t->f, &err);
    cr_assert_not_null(t->r, "%s", err.msg);
    cr_assert_eq(judge_results(t->f, t->r, &t->j, &err), 0, "%s", err.msg);
    t->ref = t->twin = -1;
    for (size_t e = 0; e < t->r->n_envs; e++)
        if (!strcmp(t->r->envs[e].name, "reference"))
            t->ref = (int)e;
        else if (!strcmp(t->r->envs[e].name, "cpu-bf16"))
            t->twin = (int)e;
    cr_assert(t->ref >= 0 && t->twin >= 0);
    for (t->k = 0; strcmp(t->f->examples[t->k].id, "film-night"); t->k++)
        ;
}

/* Expecting music: the model's answer, film, is its error. */
static void judge_with(judged *t, const char *decision, const char *results)
{
    judge_as(t, "music", decision, results);
}

static void judged_free(judged *t)
{
    char cmd[600];
    judgement_free(&t->j);
    results_free(t->r);
    fixture_free(t->f);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    cr_expect_eq(system(cmd), 0);
    free(t->dir);
}

/* Undecided, the model's error fails the contract everywhere (as before). */
Test(defect, an_undecided_model_error_is_not_met)
{
    judged t;
    judge_with(&t, NULL, RESULTS);
    cr_expect_eq(t.j.envs[t.ref].ex[t.k].outcome, PX_OC_WRONG_LABEL);
    cr_expect_eq(t.j.envs[t.twin].ex[t.k].outcome, PX_OC_WRONG_LABEL);
    cr_expect_not(t.j.all_met);
    judged_free(&t);
}

/* Decided defect, with every environment answering as the reference: met,
 * and the defect is there to see, counted apart. */
Test(defect, a_known_defect_answered_as_the_reference_is_met)
{
    judged t;
    judge_with(&t, "defect", RESULTS);
    for (int e = 0; e < 2; e++) {
        const px_env_verdict *ev = &t.j.envs[e ? t.twin : t.ref];
        const px_verdict *v = &ev->ex[t.k];
        cr_expect_eq(v->outcome, PX_OC_KNOWN_DEFECT, "%s", outcome_name(v->outcome));
        cr_expect(outcome_met(v->outcome));
        cr_expect_eq(ev->counts[PX_OC_KNOWN_DEFECT], 1);
        cr_expect_eq(ev->counts[PX_OC_WRONG_LABEL], 0);
        cr_expect(ev->met, "%s", ev->rung_detail[PX_RUNG_CONTRACT] ? ev->rung_detail[PX_RUNG_CONTRACT] : "");
        cr_expect(v->detail && !strncmp(v->detail, "wrong-label", 11), "%s", v->detail);
    }
    cr_expect(strstr(t.j.envs[t.twin].ex[t.k].detail, "as in the reference"), "%s", t.j.envs[t.twin].ex[t.k].detail);
    cr_expect_str_eq(outcome_name(PX_OC_KNOWN_DEFECT), "known-defect");
    cr_expect(t.j.all_met);
    /* Not a finding: the reference's disagreement is the decided one. */
    for (size_t i = 0; i < t.j.n_findings; i++)
        cr_expect_null(strstr(t.j.findings[i], "film-night"), "%s", t.j.findings[i]);
    judged_free(&t);
}

/* Any other decision keeps it failing: only `defect` says the model is
 * known to be wrong. */
Test(defect, accept_does_not_hide_a_wrong_label)
{
    judged t;
    judge_with(&t, "accept", RESULTS);
    cr_expect_eq(t.j.envs[t.twin].ex[t.k].outcome, PX_OC_WRONG_LABEL);
    cr_expect_not(t.j.all_met);
    judged_free(&t);
}

/* The candidate parts from the reference on the known defect (it decides
 * music: what the model gets wrong has changed): not met. */
Test(defect, a_candidate_that_parts_on_a_known_defect_is_not_met)
{
    char *dir = tl_tmpdir(), path[512], *text = tl_slurp(RESULTS);
    const char *old = "values: [3.71875, -0.70703125, -0.4609375, -0.61328125, -0.57421875]\n        label: \"film\"";
    char *at = strstr(text, old), *changed = NULL;
    cr_assert_not_null(at, "the twin's film-night in " RESULTS);
    cr_assert_geq(asprintf(&changed, "%.*svalues: [-0.70703125, 3.71875, -0.4609375, -0.61328125, -0.57421875]\n"
                                     "        label: \"volunteer\"%s",
                           (int)(at - text), text, at + strlen(old)),
                  0);
    snprintf(path, sizeof path, "%s/results.yaml", dir);
    tl_write(path, changed);
    free(changed), free(text);
    judged t;
    judge_with(&t, "defect", path);
    cr_expect_eq(t.j.envs[t.ref].ex[t.k].outcome, PX_OC_KNOWN_DEFECT);
    const px_verdict *v = &t.j.envs[t.twin].ex[t.k];
    cr_expect_eq(v->outcome, PX_OC_WRONG_LABEL, "%s", outcome_name(v->outcome));
    cr_expect_neq(v->div, PX_DIV_NONE);
    cr_expect_not(t.j.envs[t.twin].met);
    cr_expect_not(t.j.all_met);
    judged_free(&t);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    cr_expect_eq(system(path), 0);
    free(dir);
}

/* A defect the model no longer has (the reference now meets the
 * expectation) is said once, as a finding with the command that clears
 * it: a stale decision would otherwise hide the next real error there. */
Test(defect, a_defect_the_reference_no_longer_has_is_a_finding)
{
    judged t;
    judge_as(&t, "film", "defect", RESULTS);
    cr_expect_eq(t.j.envs[t.ref].ex[t.k].outcome, PX_OC_PASS);
    cr_expect(t.j.all_met);
    int said = 0;
    for (size_t i = 0; i < t.j.n_findings; i++)
        said += strstr(t.j.findings[i], "film-night is decided a defect, but the reference now meets its expectation") &&
                strstr(t.j.findings[i], "--decision clear");
    cr_expect_eq(said, 1);
    judged_free(&t);
    /* A defect still there is no such finding. */
    judge_with(&t, "defect", RESULTS);
    for (size_t i = 0; i < t.j.n_findings; i++)
        cr_expect_null(strstr(t.j.findings[i], "no longer"), "%s", t.j.findings[i]);
    judged_free(&t);
}
