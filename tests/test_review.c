/* The review screen's model (review.h) with real data: the campus-club demo
 * fixture, copied into a temporary directory for anything that writes, and a
 * real results file of the demo (tests/data/campus-results.yaml), judged.
 * What a reviewer relies on: the filters list what they say, the cursor stays
 * on its example, every decision is journaled before it shows, undo journals
 * what it restores, a write puts the model's decisions into the fixture, and
 * a session killed before writing loses nothing. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/writeback.h"
#include "parity/fixture.h"
#include "parity/journal.h"
#include "parity/judge.h"
#include "parity/results.h"
#include "parity/review.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"
#define RESULTS "tests/data/campus-results.yaml"
#define NOW "2026-12-03T09:15:00Z"
#define REVIEWER "robin"

/* Example indices in the demo fixture, in file order. */
enum { FILM, VOLLEY, BOULDER, WINTER, SERVICE, EMPTY, CHARITY, CAFE, N_DEMO };

typedef struct ctx {
    char *dir, *fx;       /* the copy, when writable */
    px_fixture *f;
    px_results *r;
    px_judgement j;
    int judged;
    px_writeback store;
    int has_store;
    px_session rv;
} ctx;

static px_fixture *load(const char *path)
{
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return f;
}

static void judge(ctx *c)
{
    if (c->judged)
        judgement_free(&c->j);
    px_error err = {0};
    cr_assert_eq(judge_results(c->f, c->r, &c->j, &err), 0, "%s", err.msg);
    c->judged = 1;
    c->rv.j = &c->j;
    review_refilter(&c->rv);
}

/* The fixture copied into a fresh directory (writable: a decide store on
 * the copy) or read straight from the demo (read-only: no store). The
 * session is not started; start() does that, so a test can leave a journal
 * first. */
static void prepare(ctx *c, int writable)
{
    memset(c, 0, sizeof *c);
    setenv("PARITY_NOW", NOW, 1);
    const char *path = DEMO;
    if (writable) {
        c->dir = tl_tmpdir();
        c->fx = malloc(strlen(c->dir) + 32);
        sprintf(c->fx, "%s/fixture.yaml", c->dir);
        char *text = tl_slurp(DEMO);
        cr_assert_not_null(text);
        tl_write(c->fx, text);
        free(text);
        path = c->fx;
        px_error err = {0};
        cr_assert_eq(writeback_open(&c->store, c->fx, &err), 0, "%s", err.msg);
        /* As the review screen holds it: the hash only, the text read
         * again at each write (parity decide keeps the text). */
        writeback_lean(&c->store);
        cr_assert_null(c->store.text);
        c->has_store = 1;
    }
    c->f = load(path);
    cr_assert_eq(c->f->n_examples, N_DEMO);
    px_error err = {0};
    c->r = results_load(RESULTS, c->f, &err);
    cr_assert_not_null(c->r, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

static void start(ctx *c)
{
    cr_assert_eq(review_init(&c->rv, c->f, c->r, c->has_store ? &c->store : NULL, REVIEWER), 0);
    judge(c);
}

static void setup(ctx *c, int writable)
{
    prepare(c, writable);
    start(c);
}

static void teardown(ctx *c)
{
    review_free(&c->rv);
    if (c->judged)
        judgement_free(&c->j);
    results_free(c->r);
    fixture_free(c->f);
    if (c->has_store) {
        unlink(c->store.journal);
        rmdir(c->store.journal); /* where a test put a directory in its way */
        writeback_close(&c->store);
    }
    if (c->fx)
        unlink(c->fx), free(c->fx);
    if (c->dir)
        rmdir(c->dir), free(c->dir);
}

static const char *id_of(const ctx *c, long k) { return k < 0 ? "(none)" : c->f->examples[k].id; }

/* Put the cursor on example k (it must be listed). */
static void go(ctx *c, size_t k)
{
    for (size_t i = 0; i < c->rv.n_visible; i++)
        if (c->rv.visible[i] == k) {
            review_move_to(&c->rv, i);
            cr_assert_eq(review_current(&c->rv), (long)k);
            return;
        }
    cr_assert_fail("%s is not listed under filter %s", id_of(c, (long)k), filter_name(c->rv.filter));
}

static void listed(const ctx *c, const size_t *want, size_t n)
{
    cr_assert_eq(c->rv.n_visible, n, "filter %s lists %zu, want %zu", filter_name(c->rv.filter), c->rv.n_visible, n);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(c->rv.visible[i], want[i], "filter %s, row %zu: %s, want %s", filter_name(c->rv.filter), i,
                     id_of(c, (long)c->rv.visible[i]), id_of(c, (long)want[i]));
}

static px_journal read_journal(const ctx *c)
{
    px_journal j;
    px_error err = {0};
    cr_assert_eq(journal_read(c->store.journal, &j, &err), 0, "%s", err.msg);
    return j;
}

static size_t journal_lines(const ctx *c)
{
    px_journal j = read_journal(c);
    size_t n = j.n;
    journal_free(&j);
    return n;
}

static int journal_exists(const ctx *c) { return access(c->store.journal, F_OK) == 0; }

static void str_or_null_eq(const char *got, const char *want, const char *what)
{
    if (!want)
        cr_expect_null(got, "%s: '%s', want none", what, got);
    else if (!got)
        cr_expect_fail("%s: none, want '%s'", what, want);
    else
        cr_expect_str_eq(got, want, "%s", what);
}

/* The journal's last line is exactly this decision. */
static void last_journaled(const ctx *c, const char *id, const char *decision, const char *note, const char *by,
                           const char *at)
{
    px_journal j = read_journal(c);
    cr_assert_gt(j.n, 0, "the journal is empty");
    const px_decision *d = &j.d[j.n - 1];
    str_or_null_eq(d->id, id, "journaled id");
    str_or_null_eq(d->review.decision, decision, "journaled decision");
    str_or_null_eq(d->review.note, note, "journaled note");
    str_or_null_eq(d->review.by, by, "journaled by");
    str_or_null_eq(d->review.at, at, "journaled at");
    journal_free(&j);
}

static void mark_is(const px_mark *m, const char *decision, const char *note, const char *by, const char *at,
                    int unwritten)
{
    str_or_null_eq(m->decision, decision, "decision");
    str_or_null_eq(m->note, note, "note");
    str_or_null_eq(m->by, by, "by");
    str_or_null_eq(m->at, at, "at");
    cr_expect_eq(m->unwritten, unwritten, "unwritten %d, want %d", m->unwritten, unwritten);
}

static const char *const CHARITY_NOTE = "either label is right until the product decides on multi-label; any_of is the rule";

/* ---- init ---- */

Test(review, init_reads_the_fixtures_decisions)
{
    ctx c;
    setup(&c, 1);
    mark_is(&c.rv.marks[CHARITY], "accept", CHARITY_NOTE, "fixture author", "2026-12-02T13:30:00Z", 0);
    for (size_t k = 0; k < N_DEMO; k++)
        if (k != CHARITY)
            mark_is(&c.rv.marks[k], NULL, NULL, NULL, NULL, 0);
    cr_expect_eq(c.rv.n_unwritten, 0);
    cr_expect_eq(c.rv.n_undo, 0);
    cr_expect_eq(c.rv.filter, PX_FILTER_ALL);
    cr_expect_eq(c.rv.n_visible, N_DEMO);
    cr_expect_eq(review_current(&c.rv), FILM);
    cr_expect_str_eq(c.rv.reviewer, REVIEWER);
    cr_expect_eq(c.rv.candidate, 1, "the candidate is cpu-bf16, not the reference");
    cr_expect_str_eq(c.r->envs[c.rv.candidate].name, "cpu-bf16");
    cr_expect_not(journal_exists(&c), "starting a session journals nothing");
    teardown(&c);
}

Test(review, init_without_a_reviewer_says_unknown)
{
    ctx c;
    prepare(&c, 0);
    cr_assert_eq(review_init(&c.rv, c.f, c.r, NULL, ""), 0);
    cr_expect_str_eq(c.rv.reviewer, "unknown");
    review_free(&c.rv);
    cr_assert_eq(review_init(&c.rv, c.f, c.r, NULL, NULL), 0);
    cr_expect_str_eq(c.rv.reviewer, "unknown");
    teardown(&c);
}

/* ---- filters ---- */

Test(review, filter_names)
{
    cr_expect_str_eq(filter_name(PX_FILTER_ALL), "all");
    cr_expect_str_eq(filter_name(PX_FILTER_FAILURES), "failures");
    cr_expect_str_eq(filter_name(PX_FILTER_DIFFERENCES), "differences");
    cr_expect_str_eq(filter_name(PX_FILTER_UNDECIDED), "undecided");
    cr_expect_str_eq(filter_name(PX_FILTER_FLAGGED), "flagged");
    cr_expect_str_eq(filter_name(PX_FILTER_COUNT), "?");
}

Test(review, all_and_undecided)
{
    ctx c;
    setup(&c, 0);
    listed(&c, (size_t[]){FILM, VOLLEY, BOULDER, WINTER, SERVICE, EMPTY, CHARITY, CAFE}, 8);
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    cr_expect_eq(c.rv.filter, PX_FILTER_UNDECIDED);
    listed(&c, (size_t[]){FILM, VOLLEY, BOULDER, WINTER, SERVICE, EMPTY, CAFE}, 7);
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    cr_expect_eq(c.rv.n_visible, 0, "nothing is flagged in the demo");
    cr_expect_eq(review_current(&c.rv), -1);
    review_set_filter(&c.rv, PX_FILTER_ALL);
    cr_expect_eq(c.rv.n_visible, N_DEMO);
    teardown(&c);
}

Test(review, flagged_and_undecided_follow_decisions)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, WINTER);
    cr_assert_eq(review_decide(&c.rv, "flag", NULL, &err), 0, "%s", err.msg);
    go(&c, EMPTY);
    cr_assert_eq(review_decide(&c.rv, "defect", NULL, &err), 0, "%s", err.msg);
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    listed(&c, (size_t[]){WINTER}, 1);
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    listed(&c, (size_t[]){FILM, VOLLEY, BOULDER, SERVICE, CAFE}, 5);
    /* Clearing under the flagged filter takes it off the list at once. */
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    cr_assert_eq(review_decide(&c.rv, "clear", NULL, &err), 0, "%s", err.msg);
    cr_expect_eq(c.rv.n_visible, 0);
    cr_expect_eq(review_current(&c.rv), -1);
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    listed(&c, (size_t[]){FILM, VOLLEY, BOULDER, WINTER, SERVICE, CAFE}, 6);
    teardown(&c);
}

Test(review, failures_and_differences_come_from_the_judgement)
{
    ctx c;
    setup(&c, 0);
    /* The demo's results meet the contract everywhere and agree. */
    review_set_filter(&c.rv, PX_FILTER_FAILURES);
    cr_expect_eq(c.rv.n_visible, 0);
    review_set_filter(&c.rv, PX_FILTER_DIFFERENCES);
    cr_expect_eq(c.rv.n_visible, 0);

    /* cpu-bf16 decides film for bouldering (expected sports): a failure and
     * a difference. It decides sports for charity-run where the reference
     * says volunteer: any_of allows both, so a difference, not a failure. */
    cr_assert_str_eq(c.r->envs[1].name, "cpu-bf16");
    c.r->envs[1].ex[BOULDER].label = fixture_label_index(c.f, "film");
    c.r->envs[1].ex[CHARITY].label = fixture_label_index(c.f, "sports");
    cr_assert_eq(c.r->envs[0].ex[CHARITY].label, fixture_label_index(c.f, "volunteer"));
    judge(&c);
    cr_assert_eq(c.j.envs[1].ex[BOULDER].outcome, PX_OC_WRONG_LABEL);
    cr_assert(outcome_met(c.j.envs[1].ex[CHARITY].outcome));
    listed(&c, (size_t[]){BOULDER, CHARITY}, 2);
    review_set_filter(&c.rv, PX_FILTER_FAILURES);
    listed(&c, (size_t[]){BOULDER}, 1);
    review_set_filter(&c.rv, PX_FILTER_ALL);
    cr_expect_eq(c.rv.n_visible, N_DEMO);

    /* Without a judgement nothing is known to fail or differ. */
    c.rv.j = NULL;
    review_set_filter(&c.rv, PX_FILTER_FAILURES);
    cr_expect_eq(c.rv.n_visible, 0);
    review_set_filter(&c.rv, PX_FILTER_DIFFERENCES);
    cr_expect_eq(c.rv.n_visible, 0);
    teardown(&c);
}

/* ---- cursor ---- */

Test(review, the_cursor_stays_on_its_example_across_filters)
{
    ctx c;
    setup(&c, 0);
    go(&c, CAFE);
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    cr_expect_eq(review_current(&c.rv), CAFE, "got %s", id_of(&c, review_current(&c.rv)));
    cr_expect_eq(c.rv.cursor, 6);
    review_set_filter(&c.rv, PX_FILTER_ALL);
    cr_expect_eq(review_current(&c.rv), CAFE);
    cr_expect_eq(c.rv.cursor, 7);
    /* New verdicts keep it too. */
    go(&c, WINTER);
    judge(&c);
    cr_expect_eq(review_current(&c.rv), WINTER);
    teardown(&c);
}

Test(review, the_cursor_clamps_when_its_example_leaves_the_list)
{
    ctx c;
    setup(&c, 0);
    go(&c, CHARITY); /* row 6 of 8 */
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    cr_assert_eq(c.rv.n_visible, 7);
    cr_expect_lt(c.rv.cursor, c.rv.n_visible);
    cr_expect_eq(c.rv.cursor, 6, "row 6 still exists in a list of 7: the cursor keeps it, not %zu (%s)", c.rv.cursor,
                 id_of(&c, review_current(&c.rv)));
    teardown(&c);
}

/* A reviewer working down the undecided list: each decision takes the
 * example off it, and the cursor should land on the next one in place, not
 * jump back to the top. */
Test(review, deciding_under_undecided_moves_on_to_the_next)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    go(&c, WINTER); /* row 3 of 7 */
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.rv.n_visible, 6);
    cr_expect_eq(review_current(&c.rv), SERVICE, "after deciding row 3 the cursor is on %s, want service-weekend",
                 id_of(&c, review_current(&c.rv)));
    /* The last row decided: the cursor clamps to the new last row. */
    go(&c, CAFE);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.rv.n_visible, 5);
    cr_expect_eq(review_current(&c.rv), EMPTY, "after deciding the last row the cursor is on %s, want empty",
                 id_of(&c, review_current(&c.rv)));
    teardown(&c);
}

Test(review, move_stays_within_the_list)
{
    ctx c;
    setup(&c, 0);
    review_move(&c.rv, -1);
    cr_expect_eq(c.rv.cursor, 0);
    review_move(&c.rv, 1);
    cr_expect_eq(review_current(&c.rv), VOLLEY);
    review_move(&c.rv, 100);
    cr_expect_eq(c.rv.cursor, 7);
    cr_expect_eq(review_current(&c.rv), CAFE);
    review_move(&c.rv, 1);
    cr_expect_eq(c.rv.cursor, 7);
    review_move(&c.rv, -3);
    cr_expect_eq(review_current(&c.rv), SERVICE);
    review_move(&c.rv, -100);
    cr_expect_eq(c.rv.cursor, 0);
    review_move(&c.rv, (long)1 << 40);
    cr_expect_eq(c.rv.cursor, 7);
    review_move_to(&c.rv, 2);
    cr_expect_eq(review_current(&c.rv), BOULDER);
    review_move_to(&c.rv, 100);
    cr_expect_eq(c.rv.cursor, 7);
    review_move_to(&c.rv, (size_t)-1);
    cr_expect_eq(c.rv.cursor, 7);
    /* An empty list: nothing moves, nothing is current. */
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    review_move(&c.rv, 1);
    review_move(&c.rv, -1);
    review_move_to(&c.rv, 3);
    cr_expect_eq(review_current(&c.rv), -1);
    teardown(&c);
}

/* ---- candidate ---- */

Test(review, next_candidate_skips_the_reference)
{
    ctx c;
    setup(&c, 0);
    cr_assert_eq(c.r->reference, 0);
    cr_expect_eq(c.rv.candidate, 1);
    review_next_candidate(&c.rv);
    cr_expect_eq(c.rv.candidate, 1, "cpu-bf16 is the only candidate");
    review_free(&c.rv);

    /* Three environments with the reference in the middle: 0, 2, 0, ... */
    px_env_result e3[3] = {c.r->envs[0], c.r->envs[1], c.r->envs[1]};
    px_results three = {.envs = e3, .n_envs = 3, .n_examples = c.r->n_examples, .reference = 1};
    cr_assert_eq(review_init(&c.rv, c.f, &three, NULL, REVIEWER), 0);
    cr_expect_eq(c.rv.candidate, 0);
    review_next_candidate(&c.rv);
    cr_expect_eq(c.rv.candidate, 2);
    review_next_candidate(&c.rv);
    cr_expect_eq(c.rv.candidate, 0);
    review_next_candidate(&c.rv);
    cr_expect_eq(c.rv.candidate, 2);
    review_free(&c.rv);

    /* Only the reference, or no results yet: no candidate. */
    px_results alone = {.envs = c.r->envs, .n_envs = 1, .n_examples = c.r->n_examples, .reference = 0};
    cr_assert_eq(review_init(&c.rv, c.f, &alone, NULL, REVIEWER), 0);
    cr_expect_eq(c.rv.candidate, -1);
    review_next_candidate(&c.rv);
    cr_expect_eq(c.rv.candidate, -1);
    review_free(&c.rv);
    cr_assert_eq(review_init(&c.rv, c.f, NULL, NULL, REVIEWER), 0);
    cr_expect_eq(c.rv.candidate, -1);
    review_next_candidate(&c.rv);
    cr_expect_eq(c.rv.candidate, -1);
    c.rv.j = NULL;
    teardown(&c);
}

/* ---- decisions ---- */

Test(review, each_decision_is_journaled_and_shown)
{
    ctx c;
    setup(&c, 1);
    static const char *const kinds[] = {"accept", "defect", "unsupported", "needs-rule", "flag", "clear"};
    go(&c, BOULDER);
    for (size_t i = 0; i < 6; i++) {
        px_error err = {0};
        cr_assert_eq(review_decide(&c.rv, kinds[i], NULL, &err), 0, "%s: %s", kinds[i], err.msg);
        int clear = !strcmp(kinds[i], "clear");
        mark_is(&c.rv.marks[BOULDER], clear ? NULL : kinds[i], NULL, clear ? NULL : REVIEWER, clear ? NULL : NOW, 1);
        cr_expect_eq(c.rv.n_unwritten, 1, "%s", kinds[i]);
        cr_expect_eq(c.rv.n_undo, i + 1);
        cr_expect_eq(journal_lines(&c), i + 1, "%s: one journal line per decision", kinds[i]);
        last_journaled(&c, "bouldering", kinds[i], NULL, clear ? NULL : REVIEWER, clear ? NULL : NOW);
        cr_expect_eq(review_current(&c.rv), BOULDER);
    }
    /* The fixture itself is untouched until a write. */
    px_fixture *f = load(c.fx);
    cr_expect_null(f->examples[BOULDER].review.decision);
    fixture_free(f);
    teardown(&c);
}

Test(review, a_decision_carries_its_note_or_keeps_the_old_one)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, FILM);
    cr_assert_eq(review_decide(&c.rv, "defect", "label: \"b\"\tand\na second line \\ too", &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[FILM], "defect", "label: \"b\"\tand\na second line \\ too", REVIEWER, NOW, 1);
    last_journaled(&c, "film-night", "defect", "label: \"b\"\tand\na second line \\ too", REVIEWER, NOW);
    /* Without a note the fixture's note stays with the new decision. */
    go(&c, CHARITY);
    cr_assert_eq(review_decide(&c.rv, "needs-rule", NULL, &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[CHARITY], "needs-rule", CHARITY_NOTE, REVIEWER, NOW, 1);
    last_journaled(&c, "charity-run", "needs-rule", CHARITY_NOTE, REVIEWER, NOW);
    cr_expect_eq(c.rv.n_unwritten, 2);
    teardown(&c);
}

Test(review, a_failing_journal_changes_nothing)
{
    ctx c;
    setup(&c, 1);
    cr_assert_eq(mkdir(c.store.journal, 0700), 0, "%s", strerror(errno));
    static const char *const kinds[] = {"accept", "defect", "unsupported", "needs-rule", "flag", "clear"};
    for (size_t i = 0; i < 6; i++) {
        px_error err = {0};
        go(&c, CHARITY);
        cr_expect_eq(review_decide(&c.rv, kinds[i], "why", &err), -1, "%s", kinds[i]);
        cr_expect_eq(err.code, PX_EXIT_IO, "%s: code %d", kinds[i], err.code);
        cr_expect_eq(err.reason, PX_ERR_WRITE, "%s: %s", kinds[i], px_reason_name(err.reason));
        cr_expect(strstr(err.msg, "journal"), "%s", err.msg);
        mark_is(&c.rv.marks[CHARITY], "accept", CHARITY_NOTE, "fixture author", "2026-12-02T13:30:00Z", 0);
        go(&c, FILM);
        err = (px_error){0};
        cr_expect_eq(review_decide(&c.rv, kinds[i], NULL, &err), -1, "%s", kinds[i]);
        mark_is(&c.rv.marks[FILM], NULL, NULL, NULL, NULL, 0);
    }
    px_error err = {0};
    go(&c, CHARITY);
    cr_expect_eq(review_note(&c.rv, "a note", &err), -1);
    mark_is(&c.rv.marks[CHARITY], "accept", CHARITY_NOTE, "fixture author", "2026-12-02T13:30:00Z", 0);
    cr_expect_eq(c.rv.n_unwritten, 0);
    cr_expect_eq(c.rv.n_undo, 0, "a refused decision leaves nothing to undo");
    teardown(&c);
}

Test(review, a_failing_journal_refuses_undo_too)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, FILM);
    cr_assert_eq(review_decide(&c.rv, "flag", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(unlink(c.store.journal), 0);
    cr_assert_eq(mkdir(c.store.journal, 0700), 0, "%s", strerror(errno));
    cr_expect_eq(review_undo(&c.rv, &err), -1);
    cr_expect_eq(err.code, PX_EXIT_IO);
    mark_is(&c.rv.marks[FILM], "flag", NULL, REVIEWER, NOW, 1);
    cr_expect_eq(c.rv.n_undo, 1, "the undo is still there to try again");
    cr_assert_eq(rmdir(c.store.journal), 0);
    err = (px_error){0};
    cr_expect_eq(review_undo(&c.rv, &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[FILM], NULL, NULL, NULL, NULL, 1);
    teardown(&c);
}

Test(review, a_note_needs_a_decision)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, FILM);
    cr_expect_eq(review_note(&c.rv, "no decision yet", &err), -1);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "decide first"), "%s", err.msg);
    mark_is(&c.rv.marks[FILM], NULL, NULL, NULL, NULL, 0);
    cr_expect_not(journal_exists(&c));
    /* With a decision the note changes and the decision stays, signed by
     * whoever decided it: the note is signed by its own author. */
    go(&c, CHARITY);
    err = (px_error){0};
    cr_assert_eq(review_note(&c.rv, "multi-label after all", &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[CHARITY], "accept", "multi-label after all", "fixture author", "2026-12-02T13:30:00Z", 1);
    str_or_null_eq(c.rv.marks[CHARITY].note_by, REVIEWER, "note_by");
    str_or_null_eq(c.rv.marks[CHARITY].note_at, NOW, "note_at");
    cr_expect_eq(journal_lines(&c), 1);
    last_journaled(&c, "charity-run", "accept", "multi-label after all", "fixture author", "2026-12-02T13:30:00Z");
    /* An empty list has no example to note. */
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    cr_expect_eq(review_note(&c.rv, "x", &err), -1);
    cr_expect_eq(review_decide(&c.rv, "accept", NULL, &err), -1);
    cr_expect_eq(journal_lines(&c), 1);
    teardown(&c);
}

/* ---- undo ---- */

Test(review, undo_restores_and_journals_what_it_restores)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, FILM);
    cr_assert_eq(review_decide(&c.rv, "flag", "look again", &err), 0, "%s", err.msg);
    cr_assert_eq(review_decide(&c.rv, "defect", NULL, &err), 0, "%s", err.msg);
    go(&c, CHARITY);
    cr_assert_eq(review_decide(&c.rv, "defect", "no", &err), 0, "%s", err.msg);
    cr_expect_eq(journal_lines(&c), 3);

    /* Last in, first out: charity-run gets the fixture's review back. */
    cr_assert_eq(review_undo(&c.rv, &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[CHARITY], "accept", CHARITY_NOTE, "fixture author", "2026-12-02T13:30:00Z", 1);
    cr_expect_eq(journal_lines(&c), 4);
    last_journaled(&c, "charity-run", "accept", CHARITY_NOTE, "fixture author", "2026-12-02T13:30:00Z");

    cr_assert_eq(review_undo(&c.rv, &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[FILM], "flag", "look again", REVIEWER, NOW, 1);
    cr_expect_eq(journal_lines(&c), 5);
    last_journaled(&c, "film-night", "flag", "look again", REVIEWER, NOW);

    /* Back to no decision: journaled as clear. */
    cr_assert_eq(review_undo(&c.rv, &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[FILM], NULL, NULL, NULL, NULL, 1);
    cr_expect_eq(journal_lines(&c), 6);
    last_journaled(&c, "film-night", "clear", NULL, NULL, NULL);
    cr_expect_eq(c.rv.n_undo, 0);

    err = (px_error){0};
    cr_expect_eq(review_undo(&c.rv, &err), -1);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "nothing to undo"), "%s", err.msg);
    cr_expect_eq(journal_lines(&c), 6, "a refused undo journals nothing");
    teardown(&c);
}

Test(review, undo_refilters)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, VOLLEY);
    cr_assert_eq(review_decide(&c.rv, "flag", NULL, &err), 0, "%s", err.msg);
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    listed(&c, (size_t[]){VOLLEY}, 1);
    cr_assert_eq(review_undo(&c.rv, &err), 0, "%s", err.msg);
    cr_expect_eq(c.rv.n_visible, 0);
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    cr_expect_eq(c.rv.n_visible, 7);
    teardown(&c);
}

/* ---- write ---- */

Test(review, write_puts_the_decisions_into_the_fixture)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, FILM);
    cr_assert_eq(review_decide(&c.rv, "flag", "check the \"Stalker\" # title", &err), 0, "%s", err.msg);
    go(&c, BOULDER);
    cr_assert_eq(review_decide(&c.rv, "defect", NULL, &err), 0, "%s", err.msg);
    go(&c, CHARITY);
    cr_assert_eq(review_decide(&c.rv, "clear", NULL, &err), 0, "%s", err.msg);
    go(&c, SERVICE);
    cr_assert_eq(review_decide(&c.rv, "unsupported", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(review_undo(&c.rv, &err), 0, "%s", err.msg); /* service-weekend: clear, never in the file */
    cr_expect_eq(c.rv.n_unwritten, 4);
    cr_assert(journal_exists(&c));

    cr_assert_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    cr_expect_eq(c.rv.n_unwritten, 0);
    for (size_t k = 0; k < N_DEMO; k++)
        cr_expect_eq(c.rv.marks[k].unwritten, 0, "%s", id_of(&c, (long)k));
    cr_expect_not(journal_exists(&c), "the journal goes once written");

    px_fixture *f = load(c.fx);
    const px_review *r = &f->examples[FILM].review;
    cr_expect_str_eq(r->decision, "flag");
    cr_expect_str_eq(r->note, "check the \"Stalker\" # title");
    cr_expect_str_eq(r->by, REVIEWER);
    cr_expect_str_eq(r->at, NOW);
    cr_expect_str_eq(f->examples[BOULDER].review.decision, "defect");
    cr_expect_null(f->examples[BOULDER].review.note);
    cr_expect_null(f->examples[CHARITY].review.decision);
    cr_expect_null(f->examples[CHARITY].review.note);
    cr_expect_null(f->examples[SERVICE].review.decision);
    for (size_t k = 0; k < N_DEMO; k++) {
        cr_expect_str_eq(f->examples[k].id, c.f->examples[k].id);
        cr_expect_str_eq(f->examples[k].text, c.f->examples[k].text);
    }
    fixture_free(f);

    /* The session goes on: a second write applies on top of the first. */
    go(&c, CAFE);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_expect_eq(c.rv.n_unwritten, 1);
    cr_assert_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    f = load(c.fx);
    cr_expect_str_eq(f->examples[CAFE].review.decision, "accept");
    cr_expect_str_eq(f->examples[FILM].review.decision, "flag");
    fixture_free(f);
    cr_expect_not(journal_exists(&c));

    /* Nothing unwritten: a write is a no-op that succeeds. */
    char *before = tl_slurp(c.fx);
    cr_expect_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    char *after = tl_slurp(c.fx);
    cr_expect_str_eq(after, before);
    free(before), free(after);
    teardown(&c);
}

/* What the model shows is what the file holds after a write: clearing
 * charity-run drops its note, so flagging it again without a note must not
 * bring the fixture's old note back. */
Test(review, write_matches_the_model_after_clear_then_decide)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, CHARITY);
    cr_assert_eq(review_decide(&c.rv, "clear", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(review_decide(&c.rv, "flag", NULL, &err), 0, "%s", err.msg);
    mark_is(&c.rv.marks[CHARITY], "flag", NULL, REVIEWER, NOW, 1);
    cr_assert_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    px_fixture *f = load(c.fx);
    cr_expect_str_eq(f->examples[CHARITY].review.decision, "flag");
    cr_expect_null(f->examples[CHARITY].review.note, "the model shows no note, the file has '%s'",
                   f->examples[CHARITY].review.note);
    fixture_free(f);
    teardown(&c);
}

/* The same decisions recovered from the journal (parity decide --recover
 * semantics, applied in order) and written by the session agree. */
Test(review, write_agrees_with_recovering_the_journal)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, CHARITY);
    cr_assert_eq(review_decide(&c.rv, "clear", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(review_decide(&c.rv, "flag", NULL, &err), 0, "%s", err.msg);
    px_journal j = read_journal(&c);
    char *recovered = NULL;
    size_t len = 0;
    char *before = tl_slurp(c.fx);
    cr_assert_eq(splice_apply(c.fx, before, strlen(before), j.d, j.n, &recovered, &len, &err), 0, "%s",
                 err.msg);
    free(before);
    journal_free(&j);
    cr_assert_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    char *written = tl_slurp(c.fx);
    cr_expect_str_eq(written, recovered);
    free(written), free(recovered);
    teardown(&c);
}

Test(review, a_write_refused_keeps_the_decisions_unwritten)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, FILM);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    /* Someone else edits the fixture meanwhile. */
    char *text = tl_slurp(c.fx), *edited = malloc(strlen(text) + 32);
    sprintf(edited, "# edited elsewhere\n%s", text);
    tl_write(c.fx, edited);
    cr_expect_eq(review_write(&c.rv, &err), -1);
    cr_expect(strstr(err.msg, "changed on disk"), "%s", err.msg);
    /* The screen offers a reload on this reason, not on the message's words. */
    cr_expect_eq(err.reason, PX_ERR_STALE, "%s", px_reason_name(err.reason));
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_eq(c.rv.n_unwritten, 1);
    cr_expect_eq(c.rv.marks[FILM].unwritten, 1);
    cr_expect(journal_exists(&c), "the decisions wait in the journal");
    char *after = tl_slurp(c.fx);
    cr_expect_str_eq(after, edited);
    free(text), free(edited), free(after);
    teardown(&c);
}

/* ---- read-only ---- */

Test(review, a_read_only_session_refuses_decisions)
{
    ctx c;
    setup(&c, 0);
    cr_assert_null(c.rv.store);
    char jp[4200];
    journal_path(DEMO, jp, sizeof jp);
    cr_assert(access(jp, F_OK) != 0, "no journal beside the demo to start with");
    static const char *const kinds[] = {"accept", "defect", "unsupported", "needs-rule", "flag", "clear"};
    for (size_t i = 0; i < 6; i++) {
        px_error err = {0};
        go(&c, CHARITY);
        cr_expect_eq(review_decide(&c.rv, kinds[i], NULL, &err), -1, "%s", kinds[i]);
        cr_expect_eq(err.code, PX_EXIT_USAGE);
        cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);
        mark_is(&c.rv.marks[CHARITY], "accept", CHARITY_NOTE, "fixture author", "2026-12-02T13:30:00Z", 0);
    }
    px_error err = {0};
    cr_expect_eq(review_note(&c.rv, "n", &err), -1);
    cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);
    err = (px_error){0};
    cr_expect_eq(review_undo(&c.rv, &err), -1);
    cr_expect(strstr(err.msg, "nothing to undo"), "%s", err.msg);
    err = (px_error){0};
    cr_expect_eq(review_write(&c.rv, &err), -1);
    cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);
    cr_expect_eq(c.rv.n_unwritten, 0);
    cr_expect_eq(c.rv.n_undo, 0);
    cr_expect(access(jp, F_OK) != 0, "nothing journaled beside the demo");
    teardown(&c);
}

/* ---- a journal left by an earlier session ---- */

static void append(ctx *c, const char *id, const char *decision, const char *note, const char *by, const char *at)
{
    px_error err = {0};
    px_decision d = {id, {decision, note, by, at, NULL, NULL, NULL, NULL}};
    cr_assert_eq(journal_append(c->store.journal, &d, &err), 0, "%s", err.msg);
}

Test(review, a_left_journal_comes_back_unwritten)
{
    ctx c;
    prepare(&c, 1);
    append(&c, "film-night", "flag", "from before", "kim", "2026-12-01T10:00:00Z");
    append(&c, "bouldering", "accept", NULL, "kim", "2026-12-01T10:01:00Z");
    append(&c, "bouldering", "defect", "changed my mind", "kim", "2026-12-01T10:02:00Z");
    append(&c, "charity-run", "clear", NULL, NULL, NULL);
    append(&c, "no-such-example", "accept", NULL, "kim", "2026-12-01T10:03:00Z");
    start(&c);
    mark_is(&c.rv.marks[FILM], "flag", "from before", "kim", "2026-12-01T10:00:00Z", 1);
    mark_is(&c.rv.marks[BOULDER], "defect", "changed my mind", "kim", "2026-12-01T10:02:00Z", 1);
    mark_is(&c.rv.marks[CHARITY], NULL, NULL, NULL, NULL, 1);
    mark_is(&c.rv.marks[VOLLEY], NULL, NULL, NULL, NULL, 0);
    cr_expect_eq(c.rv.n_unwritten, 3);
    cr_expect_eq(c.rv.n_undo, 0);
    cr_expect_eq(journal_lines(&c), 5, "adopting reads the journal, it does not rewrite it");
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    listed(&c, (size_t[]){FILM}, 1);
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    listed(&c, (size_t[]){VOLLEY, WINTER, SERVICE, EMPTY, CHARITY, CAFE}, 6);
    teardown(&c);
}

Test(review, an_adopted_journal_is_written_and_removed)
{
    ctx c;
    prepare(&c, 1);
    append(&c, "film-night", "flag", "from before", "kim", "2026-12-01T10:00:00Z");
    append(&c, "charity-run", "defect", NULL, "kim", "2026-12-01T10:01:00Z"); /* note: leave as is */
    start(&c);
    mark_is(&c.rv.marks[CHARITY], "defect", CHARITY_NOTE, "kim", "2026-12-01T10:01:00Z", 1);
    /* The new session adds to the same journal. */
    px_error err = {0};
    go(&c, CAFE);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_expect_eq(journal_lines(&c), 3);
    cr_expect_eq(c.rv.n_unwritten, 3);
    cr_assert_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    cr_expect_not(journal_exists(&c));
    cr_expect_eq(c.rv.n_unwritten, 0);
    px_fixture *f = load(c.fx);
    cr_expect_str_eq(f->examples[FILM].review.decision, "flag");
    cr_expect_str_eq(f->examples[FILM].review.note, "from before");
    cr_expect_str_eq(f->examples[FILM].review.by, "kim");
    cr_expect_str_eq(f->examples[CHARITY].review.decision, "defect");
    cr_expect_str_eq(f->examples[CHARITY].review.note, CHARITY_NOTE);
    cr_expect_str_eq(f->examples[CHARITY].review.by, "kim");
    cr_expect_str_eq(f->examples[CAFE].review.decision, "accept");
    cr_expect_str_eq(f->examples[CAFE].review.by, REVIEWER);
    cr_expect_str_eq(f->examples[CAFE].review.at, NOW);
    fixture_free(f);
    teardown(&c);
}

Test(review, a_torn_last_journal_line_is_not_adopted)
{
    ctx c;
    prepare(&c, 1);
    append(&c, "film-night", "flag", NULL, "kim", "2026-12-01T10:00:00Z");
    FILE *j = fopen(c.store.journal, "a");
    cr_assert_not_null(j);
    fputs("parity-journal 1\tbouldering\tdefect\t\\-\tkim\t2026-12-01T10:0", j); /* killed mid-line */
    fclose(j);
    start(&c);
    mark_is(&c.rv.marks[FILM], "flag", NULL, "kim", "2026-12-01T10:00:00Z", 1);
    mark_is(&c.rv.marks[BOULDER], NULL, NULL, NULL, NULL, 0);
    cr_expect_eq(c.rv.n_unwritten, 1);
    teardown(&c);
}

/* ---- search ---- */

Test(review, search_by_id_and_text)
{
    ctx c;
    setup(&c, 0);
    px_error err = {0};
    cr_expect_eq(review_search(&c.rv, "bouldering", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), BOULDER);
    /* Text, case-insensitively, Unicode included. */
    cr_expect_eq(review_search(&c.rv, "TARKOVSKY", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), FILM, "wrapped around to %s", id_of(&c, review_current(&c.rv)));
    cr_expect_eq(review_search(&c.rv, "CAFÉ ZOË", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), CAFE);
    cr_expect_eq(review_search(&c.rv, "memorial hall", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), WINTER);
    /* A regular expression; the match must be the next one, not the first. */
    cr_expect_eq(review_search(&c.rv, "^(film|charity)-", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), CHARITY);
    cr_expect_eq(review_search(&c.rv, "^(film|charity)-", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), FILM);
    /* The only match is where the cursor is: found there, after a full turn. */
    cr_expect_eq(review_search(&c.rv, "tarkovsky", 1, &err), 0);
    cr_expect_eq(review_current(&c.rv), FILM);
    cr_expect_eq(err.code, 0);
    teardown(&c);
}

Test(review, search_backwards)
{
    ctx c;
    setup(&c, 0);
    px_error err = {0};
    /* film-night and winter-concert match; from film-night backwards the
     * search wraps to winter-concert, then comes back. */
    cr_expect_eq(review_search(&c.rv, "film|concert", -1, &err), 0);
    cr_expect_eq(review_current(&c.rv), WINTER, "got %s", id_of(&c, review_current(&c.rv)));
    cr_expect_eq(review_search(&c.rv, "film|concert", -1, &err), 0);
    cr_expect_eq(review_current(&c.rv), FILM, "got %s", id_of(&c, review_current(&c.rv)));
    go(&c, CAFE);
    cr_expect_eq(review_search(&c.rv, "^(volleyball-tryouts|charity-run)$", -1, &err), 0);
    cr_expect_eq(review_current(&c.rv), CHARITY, "got %s", id_of(&c, review_current(&c.rv)));
    cr_expect_eq(review_search(&c.rv, "^(volleyball-tryouts|charity-run)$", -1, &err), 0);
    cr_expect_eq(review_current(&c.rv), VOLLEY, "got %s", id_of(&c, review_current(&c.rv)));
    teardown(&c);
}

/* From every row of the list, a pattern matching the row before, the row
 * itself and the row after: backwards must land on the row before. */
static void backwards_from_every_row(ctx *c)
{
    size_t n = c->rv.n_visible;
    px_error err = {0};
    for (size_t start = 0; start < n; start++) {
        size_t prev = (start + n - 1) % n, next = (start + 1) % n;
        char pat[128];
        snprintf(pat, sizeof pat, "^(%s|%s|%s)$", id_of(c, (long)c->rv.visible[prev]),
                 id_of(c, (long)c->rv.visible[start]), id_of(c, (long)c->rv.visible[next]));
        review_move_to(&c->rv, start);
        cr_expect_eq(review_search(&c->rv, pat, -1, &err), 0, "%s", pat);
        cr_expect_eq(c->rv.cursor, prev, "%zu rows (%s): backwards from row %zu landed on row %zu, want %zu", n,
                     filter_name(c->rv.filter), start, c->rv.cursor, prev);
        review_move_to(&c->rv, start);
        cr_expect_eq(review_search(&c->rv, pat, 1, &err), 0, "%s", pat);
        cr_expect_eq(c->rv.cursor, next, "%zu rows (%s): forwards from row %zu landed on row %zu, want %zu", n,
                     filter_name(c->rv.filter), start, c->rv.cursor, next);
    }
}

/* Lists whose length is not a power of two: backwards must still mean the
 * previous rows (8 rows happens to work). */
Test(review, search_backwards_in_lists_of_any_length)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    backwards_from_every_row(&c); /* 8 */
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    cr_assert_eq(c.rv.n_visible, 7);
    go(&c, WINTER); /* row 3 */
    cr_expect_eq(review_search(&c.rv, "^(film-night|service-weekend)$", -1, &err), 0);
    cr_expect_eq(review_current(&c.rv), FILM, "7 rows, backwards from winter-concert: got %s, want film-night",
                 id_of(&c, review_current(&c.rv)));
    backwards_from_every_row(&c); /* 7 */
    go(&c, CAFE);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.rv.n_visible, 6);
    backwards_from_every_row(&c); /* 6 */
    go(&c, EMPTY);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.rv.n_visible, 5);
    backwards_from_every_row(&c); /* 5 */
    go(&c, SERVICE);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    go(&c, WINTER);
    cr_assert_eq(review_decide(&c.rv, "accept", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(c.rv.n_visible, 3);
    backwards_from_every_row(&c); /* 3 */
    teardown(&c);
}

Test(review, search_without_a_match_or_with_a_bad_pattern)
{
    ctx c;
    setup(&c, 0);
    px_error err = {0};
    go(&c, WINTER);
    cr_expect_eq(review_search(&c.rv, "xyzzy", 1, &err), 1);
    cr_expect_eq(review_search(&c.rv, "xyzzy", -1, &err), 1);
    cr_expect_eq(review_current(&c.rv), WINTER, "no match: the cursor stays");
    cr_expect_eq(err.code, 0);
    /* Only listed examples are searched. */
    review_set_filter(&c.rv, PX_FILTER_UNDECIDED);
    cr_expect_eq(review_search(&c.rv, "charity-run|5K", 1, &err), 1);
    cr_expect_eq(review_current(&c.rv), WINTER);
    review_set_filter(&c.rv, PX_FILTER_FLAGGED);
    cr_expect_eq(review_search(&c.rv, "film", 1, &err), 1, "an empty list has no match");
    review_set_filter(&c.rv, PX_FILTER_ALL);
    go(&c, WINTER);

    cr_expect_eq(review_search(&c.rv, "(film", 1, &err), -1);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "/(film"), "names the pattern: %s", err.msg);
    cr_expect(strstr(err.msg, "offset 5"), "says where: %s", err.msg);
    cr_expect(strstr(err.msg, "parenthesis"), "says what: %s", err.msg);
    cr_expect_eq(review_current(&c.rv), WINTER);
    err = (px_error){0};
    cr_expect_eq(review_search(&c.rv, "[a-", -1, &err), -1);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "/[a-"), "%s", err.msg);
    teardown(&c);
}

/* ---- what a decision records about its authors and its evidence ---- */

/* Deciding an example with someone else's note keeps the note signed by
 * them; the decision records the candidate shown and its results' hash,
 * and writing puts all of it into the fixture. */
Test(review, a_decision_keeps_the_notes_author_and_says_what_it_saw)
{
    ctx c;
    setup(&c, 1);
    px_error err = {0};
    go(&c, CHARITY);
    cr_assert_eq(review_decide(&c.rv, "flag", NULL, &err), 0, "%s", err.msg);
    const px_mark *m = &c.rv.marks[CHARITY];
    mark_is(m, "flag", CHARITY_NOTE, REVIEWER, NOW, 1);
    str_or_null_eq(m->note_by, "fixture author", "note_by: the note's own author");
    str_or_null_eq(m->note_at, "2026-12-02T13:30:00Z", "note_at");
    str_or_null_eq(m->env, "cpu-bf16", "made on the candidate shown");
    char want[PX_SHA256_HEX];
    const px_env_result *bf = &c.r->envs[c.rv.candidate];
    results_example_sha256(bf, &bf->ex[CHARITY], "charity-run", want);
    str_or_null_eq(m->results, want, "the hash of what it showed");
    cr_expect_eq(decision_fit(m->decision, m->env, m->results, bf, &bf->ex[CHARITY], "charity-run"), PX_FIT_HERE);
    cr_expect_eq(decision_fit(m->decision, m->env, m->results, &c.r->envs[c.r->reference],
                              &c.r->envs[c.r->reference].ex[CHARITY], "charity-run"),
                 PX_FIT_OTHER_ENV);
    cr_assert_eq(review_write(&c.rv, &err), 0, "%s", err.msg);
    px_fixture *f = fixture_load(c.fx, &err);
    cr_assert_not_null(f, "%s", err.msg);
    const px_review *rv = &f->examples[CHARITY].review;
    cr_expect(!strcmp(rv->decision, "flag") && !strcmp(rv->by, REVIEWER) && !strcmp(rv->note, CHARITY_NOTE) &&
                  !strcmp(rv->note_by, "fixture author") && !strcmp(rv->env, "cpu-bf16") && !strcmp(rv->results, want),
              "written: %s by %s, note by %s, on %s", rv->decision, rv->by, rv->note_by, rv->env);
    fixture_free(f);
    teardown(&c);
}
