/* parity run and parity check: prepare every example, run it through each
 * environment in executor children (background thread); run prints the table
 * and writes the results, check judges them against the contract. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_check.h"
#include "parity/bench.h"
#include "parity/cli.h"
#include "parity/compare.h"
#include "parity/evidence.h"
#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/prepare.h"
#include "parity/check_report.h"
#include "parity/results.h"
#include "parity/run_table.h"
#include "parity/runner.h"
#include "parity/session.h"

/* An environment up whose every forward failed (raised, unsupported,
 * crashed, timed out, or gave an output that is not the contract's) ran
 * nothing the contract can judge: said on stderr with the first failure,
 * and run's status is PX_EXIT_ENV, as for an environment that could not
 * start. Rejected examples never reached a forward; an environment with no
 * forward at all (every example rejected or cut short) is not this. */
static int every_forward_failed(const px_fixture *f, const px_results *res, const px_env_result *e)
{
    size_t failed = 0, ran = 0, first = 0;
    for (size_t k = 0; k < res->n_examples; k++) {
        px_status st = e->ex[k].status;
        if (!shard_holds(res->shard, f->examples[k].id) || st == PX_ST_REJECTED || st == PX_ST_NOT_EVALUATED ||
            st == PX_ST_PENDING)
            continue;
        ran++;
        if (st != PX_ST_OK && !failed++)
            first = k;
    }
    if (!ran || failed < ran)
        return 0;
    /* A traceback's last line says what was raised */
    const char *detail = e->ex[first].detail ? e->ex[first].detail : "no detail", *end = detail + strlen(detail);
    while (end > detail && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    const char *line = end;
    while (line > detail && line[-1] != '\n')
        line--;
    fprintf(stderr, "parity: %s: every forward failed (%zu of %zu; the first, '%s': %s: %.*s): nothing to judge; "
                    "the results file keeps each one whole\n",
            e->name, failed, ran, f->examples[first].id, status_name(e->ex[first].status), (int)(end - line), line);
    return 1;
}

/* run's own options. */
typedef struct run_opts {
    check_args a;
    px_shard shard; /* --shard I/N; count 0: every example */
} run_opts;

static int opt_shard(const px_command *c, const char *v, void *field)
{
    char why[200];
    if (shard_parse(v, field, why, sizeof why))
        return cli_usage_error(c, "--shard '%s': %s", v, why);
    return 0;
}

static int run_prepare(void *opts, const px_fixture *f, px_session_opts *o)
{
    (void)f;
    o->shard = ((run_opts *)opts)->shard;
    return 0;
}

/* What `run` does with the results: table, counts, results file. */
static int run_finish(const void *opts, px_check *s)
{
    const check_args *a = opts;
    const px_fixture *f = s->f;
    const px_results *res = s->res;
    /* With the results on stdout, the table goes to stderr. */
    FILE *tty = a->output && !strcmp(a->output, "-") ? stderr : stdout;
    if (res->shard.count) {
        size_t mine = 0;
        for (size_t k = 0; k < f->n_examples; k++)
            mine += (size_t)shard_holds(res->shard, f->examples[k].id);
        fprintf(tty, "%s: shard %u/%u: %zu of %zu examples, %zu environments\n", f->path, res->shard.index,
                res->shard.count, mine, f->n_examples, res->n_envs);
    } else {
        fprintf(tty, "%s: %zu examples, %zu environments\n", f->path, f->n_examples, res->n_envs);
    }
    run_table_print(tty, f, res);
    int rc = check_write_results(a, f, res);
    for (size_t i = 0; rc == PX_EXIT_OK && i < res->n_envs; i++)
        if (res->envs[i].state == PX_ENV_DOWN)
            rc = PX_EXIT_ENV;
    for (size_t i = 0; i < res->n_envs; i++)
        if (res->envs[i].state != PX_ENV_DOWN && every_forward_failed(f, res, &res->envs[i]))
            rc = px_exit_worse(rc, PX_EXIT_ENV);
    return check_cut_short_exit(res, rc);
}

/* Record the environments that met the contract as their last good
 * configuration. The verdict stands whatever happens here: a history that
 * cannot be written (a read-only directory, a full disk) is said in one
 * line on stderr and changes no exit status. */
static void record_good(const px_fixture *f, px_history *h, const px_results *res, const px_judgement *j)
{
    px_error err = {0};
    char path[4096], line[2048];
    history_path(f->path, path, sizeof path);
    char *name = strdup(f->path);
    int n = name ? history_record(h, f, res, j, &err) : px_error_oom(&err, NULL);
    if (n > 0)
        n = history_write(h, path, basename(name), &err) ? -1 : n;
    if (n < 0) {
        px_error_format(&err, line, sizeof line);
        fprintf(stderr, "parity: warning: %s (the last good configuration is not recorded; the verdict stands)\n",
                line);
    }
    free(name);
}

/* check's own options. */
typedef struct check_opts {
    check_args a;
    const char *format; /* text (default), json, tap */
    int since_good;     /* --since-good */
} check_opts;

/* What `check` does with the results: judge, compare with the last good
 * configurations, report, record, and the exit code, the worst that
 * applies (px_exit_worse: an environment without results leaves the check
 * incomplete, which is worse than a known failure). */
static int check_finish(const void *opts, px_check *s)
{
    const check_opts *c = opts;
    const px_fixture *f = s->f;
    const px_results *res = s->res;
    px_error err = {0};
    px_verdicts v;
    if (session_judge(s, &v, &err))
        return cli_error(&err);
    int rc = session_exit(res, &v.j, v.since, c->since_good);
    if (c->a.output && results_write(res, f, c->a.output, &err))
        rc = px_exit_worse(rc, cli_error(&err));
    rc = check_cut_short_exit(res, rc);
    const char *format = c->format ? c->format : "text";
    if (!strcmp(format, "json"))
        check_report_json(stdout, f, res, &v.j, v.since, rc);
    else if (!strcmp(format, "tap"))
        check_report_tap(stdout, f, res, &v.j, v.since);
    else
        check_report_text(stdout, f, res, &v.j, v.since);
    fflush(stdout);
    free(v.since), v.since = NULL; /* it borrowed from the history, which recording changes */
    record_good(f, &s->history, res, &v.j);
    verdicts_free(&v);
    return rc;
}

static const opt_bind run_own[] = {
    {PX_OPT_SHARD, offsetof(run_opts, shard), opt_shard},
    {PX_OPT_COUNT, 0, NULL},
};

static const opt_bind check_own[] = {
    {PX_OPT_FORMAT, offsetof(check_opts, format), opt_text},
    {PX_OPT_SINCE_GOOD, offsetof(check_opts, since_good), opt_flag},
    {PX_OPT_COUNT, 0, NULL},
};

/* run runs the fixture's environments; check judges what the contract
 * names, from wherever its results come, against the last good
 * configurations (refused, before anything runs, when they cannot be
 * read). */
static const check_cmd run_cmd = {"run", sizeof(run_opts), run_own, 0, PX_SESSION_RUN, PX_HISTORY_NONE,
                                  "running it", NULL, run_prepare, run_finish};
static const check_cmd check_cmd_ = {"check", sizeof(check_opts), check_own, 0, PX_SESSION_JUDGE, PX_HISTORY_REFUSE,
                                     "judging anything against it", NULL, NULL, check_finish};

int cmd_run(int argc, char **argv) { return check_command(&run_cmd, argc, argv); }
int cmd_check(int argc, char **argv) { return check_command(&check_cmd_, argc, argv); }
