/* parity decide: record review decisions in the fixture file. Every decision
 * goes to the journal first (fsync'd); then the fixture is spliced in memory,
 * verified, checked unchanged on disk, and replaced atomically; then the
 * journal goes. */
#define _GNU_SOURCE /* strdup in C11 mode, getenv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "parity/decision.h"
#include "parity/writeback.h"
#include "parity/cli.h"
#include "parity/fixture.h"
#include "parity/journal.h"
#include "parity/results.h"
#include "parity/splice.h"

#define MAX_DECISIONS 256

typedef struct decide_args {
    const char *fixture;
    px_decision d[MAX_DECISIONS];
    size_t n;
    const char *reviewer, *env, *results;
    int recover;
    /* What the decisions write: each one's whole review, and whether the
     * old review must be cleared first (it has a key the new one drops). */
    px_decision full[2 * MAX_DECISIONS];
    size_t n_full;
    char hashes[MAX_DECISIONS][PX_SHA256_HEX];
} decide_args;

/* One argument (cli_parse): the fixture, then example ids, each taking
 * the --decision and --note after it. */
static int on_arg(void *ctx, const px_option *o, const char *v)
{
    decide_args *a = ctx;
    const px_command *c = cli_command("decide");
    if (!o) {
        if (!a->fixture)
            a->fixture = v;
        else if (a->n == MAX_DECISIONS)
            return cli_usage_error(c, "at most %d decisions at once", MAX_DECISIONS);
        else
            a->d[a->n++].id = v;
        return 0;
    }
    px_opt id = cli_opt_id(o);
    if ((id == PX_OPT_DECISION || id == PX_OPT_NOTE) && a->n == 0)
        return cli_usage_error(c, "--%s needs an example id before it", o->long_name);
    switch (id) {
    case PX_OPT_DECISION: a->d[a->n - 1].review.decision = v; break;
    case PX_OPT_NOTE: a->d[a->n - 1].review.note = v; break;
    case PX_OPT_REVIEWER: a->reviewer = v; break;
    case PX_OPT_ENV: a->env = v; break;
    case PX_OPT_RESULTS: a->results = v; break;
    case PX_OPT_RECOVER: a->recover = 1; break;
    default: return cli_usage_error(c, "--%s is not an option of decide", o->long_name);
    }
    return 0;
}

/* CLI_PARSED, or the exit status. */
static int parse(int argc, char **argv, decide_args *a)
{
    const px_command *c = cli_command("decide");
    memset(a, 0, sizeof *a);
    int rc = cli_parse(c, argc, argv, on_arg, a);
    if (rc != CLI_PARSED)
        return rc;
    if (!a->fixture)
        return cli_usage_error(c, "which fixture?");
    if (a->recover && a->n)
        return cli_usage_error(c, "--recover applies the journal; give no example ids with it");
    if (!a->recover && !a->n)
        return cli_usage_error(c, "which example? parity decide FIXTURE ID --decision D");
    if (a->results && !a->env)
        return cli_usage_error(c, "--results says what the decision was made on: name the environment with --env "
                                  "too");
    if (a->recover && (a->env || a->results || a->reviewer))
        return cli_usage_error(c, "--recover applies the journal as it was recorded; give no --env, --results or "
                                  "--reviewer");
    for (size_t i = 0; i < a->n; i++)
        if (!a->d[i].review.decision)
            return cli_usage_error(c, "example '%s' has no --decision", a->d[i].id);
    return CLI_PARSED;
}

static void stamp(decide_args *a, char *at, size_t size)
{
    writeback_now(at, size);
    const char *by = a->reviewer ? a->reviewer : getenv("USER");
    for (size_t i = 0; i < a->n; i++) {
        a->d[i].review.at = at;
        a->d[i].review.by = by && *by ? by : "unknown";
    }
}

/* What each decision was made on: --env, and with --results the hash of
 * that environment's results for the example. */
static int made_on(decide_args *a, const px_fixture *f, px_error *err)
{
    px_results *r = a->results ? results_load(a->results, f, err) : NULL;
    if (a->results && !r)
        return -1;
    const px_env_result *e = NULL;
    for (size_t i = 0; r && i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, a->env))
            e = &r->envs[i];
    int rc = 0;
    if (a->env && !fixture_env(f, a->env))
        rc = px_error_set(err, PX_ERR_NOT_FOUND, f->path, 0, 0, "--env: no environment '%s' in the fixture", a->env);
    else if (r && !e)
        rc = px_error_set(err, PX_ERR_NOT_FOUND, a->results, 0, 0, "holds no environment '%s'", a->env);
    for (size_t i = 0; !rc && i < a->n; i++) {
        a->d[i].review.env = a->env;
        long k = fixture_example_index(f, a->d[i].id);
        if (!e || k < 0)
            continue;
        const px_example_result *x = &e->ex[k];
        if (x->status == PX_ST_NOT_EVALUATED || x->status == PX_ST_PENDING)
            rc = px_error_set(err, PX_ERR_NOT_FOUND, a->results, 0, 0, "environment '%s' has no result for '%s'", a->env,
                              a->d[i].id);
        results_example_sha256(e, x, a->d[i].id, a->hashes[i]);
        a->d[i].review.results = a->hashes[i];
    }
    results_free(r);
    return rc;
}

/* Each decision becomes the whole review it leaves. A note given with it
 * is signed by its decider; without one, the example's note stays with the
 * author it had (note_by/note_at, taken from the old by/at when the note
 * predates them), so a later decision never signs someone else's note. A
 * key of the old review the new one drops (env, results_sha256, a note
 * author) is cleared first rather than left to mislead. */
static void complete(decide_args *a, const px_fixture *f)
{
    a->n_full = 0;
    for (size_t i = 0; i < a->n; i++) {
        px_decision *d = &a->d[i];
        px_review *r = &d->review;
        long k = fixture_example_index(f, d->id);
        const px_review *old = k >= 0 ? &f->examples[k].review : NULL;
        /* An earlier decision in this same command is the old review. */
        const px_decision *prev = NULL;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(a->d[j].id, d->id))
                prev = &a->d[j];
        const px_review *was = prev ? &prev->review : old;
        const char *o_note = was ? was->note : NULL;
        const char *o_by = was ? was->by : NULL, *o_at = was ? was->at : NULL;
        const char *o_nby = was ? was->note_by : NULL;
        const char *o_nat = was ? was->note_at : NULL;
        if (decision_kind(r->decision) != PX_DEC_CLEAR) {
            if (r->note)
                r->note_by = r->by, r->note_at = r->at;
            else if (o_note)
                r->note = o_note, r->note_by = o_nby ? o_nby : o_by, r->note_at = o_nby ? o_nat : o_at;
        }
        int drops = 0;
        if (!prev && old && decision_kind(r->decision) != PX_DEC_CLEAR)
            for (int fi = 0; fi < PX_REVIEW_FIELDS; fi++)
                drops |= review_field(old, fi) && !review_field(r, fi);
        if (prev && decision_kind(r->decision) != PX_DEC_CLEAR)
            drops = 1; /* simplest: the earlier one's keys are all rewritten */
        if (drops)
            a->full[a->n_full++] =
                (px_decision){.id = d->id, .review.decision = px_decision_table[PX_DEC_CLEAR].name};
        a->full[a->n_full++] = *d;
    }
}

static int commit(px_writeback *s, char *out, size_t out_len, size_t n)
{
    px_error err = {0};
    if (writeback_commit(s, out, out_len, &err))
        return cli_error(&err);
    printf("%s: %zu decision%s written\n", s->path, n, n == 1 ? "" : "s");
    return 0;
}

int cmd_decide(int argc, char **argv)
{
    decide_args a;
    int parsed = parse(argc, argv, &a);
    if (parsed != CLI_PARSED)
        return parsed;
    px_error err = {0};
    px_writeback s;
    char at[32];
    if (writeback_open(&s, a.fixture, &err))
        return cli_error(&err);
    px_journal j;
    int rc = journal_read(s.journal, &j, &err) ? cli_error(&err) : 0;
    if (!rc && j.n && !a.recover) {
        fprintf(stderr, "parity: %s: %zu decision%s from an interrupted session wait in %s: run parity decide %s "
                        "--recover first\n", a.fixture, j.n, j.n == 1 ? "" : "s", s.journal, a.fixture);
        rc = PX_EXIT_USAGE;
    } else if (!rc && a.recover && !j.n) {
        /* A journal with no whole line holds nothing acknowledged (a kill
         * tore its first line): it goes. */
        rc = journal_remove(s.journal, &err) ? cli_error(&err) : 0;
        if (!rc)
            printf("%s: nothing to recover\n", a.fixture);
    } else if (!rc && writeback_writable(&s, &err)) {
        rc = cli_error(&err);
    } else if (!rc) {
        const px_decision *d = a.recover ? j.d : a.full;
        size_t n = a.recover ? j.n : 0;
        px_fixture *f = NULL;
        if (!a.recover) {
            stamp(&a, at, sizeof at);
            if (!(f = fixture_parse(s.path, s.text, s.len, &err)) || made_on(&a, f, &err))
                rc = cli_error(&err);
            else
                complete(&a, f), n = a.n_full;
        }
        size_t out_len = 0;
        /* Edited before anything is journaled, so a typo is never recorded. */
        char *out = rc ? NULL : writeback_edit(&s, d, n, &out_len, &err);
        if (!rc && !out)
            rc = cli_error(&err);
        for (size_t i = 0; !rc && !a.recover && i < n; i++) {
            if (journal_append(s.journal, &d[i], &err))
                rc = cli_error(&err);
            else if (decision_kind(d[i].review.decision) != PX_DEC_CLEAR || i + 1 == n || strcmp(d[i + 1].id, d[i].id))
                printf("recorded: %s %s\n", d[i].id, d[i].review.decision);
        }
        fixture_free(f);
        fflush(stdout);
        /* Fault injection for the tests: hold the recorded decisions
         * before writing, as a long review session would. */
        const char *pause = getenv("PARITY_TEST_PAUSE_BEFORE_WRITE");
        if (!rc && pause)
            nanosleep(&(struct timespec){atoi(pause), 0}, NULL);
        if (!rc)
            rc = commit(&s, out, out_len, a.recover ? j.n : a.n);
        else
            free(out);
    }
    journal_free(&j);
    writeback_close(&s);
    return rc;
}
