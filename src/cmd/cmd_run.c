/* parity run and parity check: prepare every example, run it through each
 * environment in executor children (background thread); run prints the table
 * and writes the results, check judges them against the contract. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* One argument of parity run or check (cli_parse). */
static int on_arg(void *ctx, const px_option *o, const char *v)
{
    run_args *a = ctx;
    if (!o) {
        /* repro FIXTURE ID */
        if (a->fixture && !a->id && !strcmp(a->command->name, "repro")) {
            a->id = v;
            return 0;
        }
        if (a->fixture)
            return cli_usage_error(a->command, "one fixture at a time, got '%s' too", v);
        a->fixture = v;
        return 0;
    }
    switch (cli_opt_id(o)) {
    case PX_OPT_ENV: a->envs[a->n_envs++] = v; break;
    case PX_OPT_OUTPUT: a->output = v; break;
    case PX_OPT_QUIET: a->quiet = 1; break;
    case PX_OPT_FORMAT: a->format = v; break;
    case PX_OPT_EXECUTOR: a->executor = v; break;
    case PX_OPT_BACKEND_LIB: a->backend_lib = v; break;
    case PX_OPT_PYTHON: a->python = v; break;
    case PX_OPT_BACKEND_MODULE: a->modules[a->n_modules++] = v; break;
    case PX_OPT_COMPILE_BACKEND: a->compile_backends[a->n_compile_backends++] = v; break;
    case PX_OPT_RESULTS: a->results[a->n_results++] = v; break;
    case PX_OPT_BUDGET:
        if (cli_duration(v, &a->budget_s))
            return cli_usage_error(a->command, "--budget must be a duration above 0 such as 90s, 5m or 1h30m, not '%s'",
                                   v);
        break;
    case PX_OPT_MAX_EXAMPLES:
        if (cli_count(v, 1000000000L, &a->max_examples))
            return cli_usage_error(a->command, "--max-examples must be a whole number above 0, not '%s'", v);
        break;
    case PX_OPT_ENDPOINT: {
        char *end = NULL;
        long n = !strncmp(v, "batch:", 6) && v[6] >= '0' && v[6] <= '9' ? strtol(v + 6, &end, 10) : 0;
        int train = !strncmp(v, "train-step:", 11);
        if (train)
            n = v[11] >= '0' && v[11] <= '9' ? strtol(v + 11, &end, 10) : 0;
        if (strcmp(v, "single") && !(end && !*end && n >= (train ? 1 : 2) && n <= (train ? 10000 : 4096)))
            return cli_usage_error(a->command,
                                   "--endpoint must be single, batch:N with N from 2 to 4096 or train-step:N with "
                                   "N from 1 to 10000, not '%s'",
                                   v);
        a->batches[a->n_endpoints++] = !strcmp(v, "single") ? 1 : train ? -(int)n : (int)n;
        break;
    }
    case PX_OPT_WARMUP:
        if (strcmp(v, "0") && cli_count(v, 100000L, &a->warmup))
            return cli_usage_error(a->command, "--warmup must be a whole number from 0 to 100000, not '%s'", v);
        if (!strcmp(v, "0"))
            a->warmup = 0;
        break;
    case PX_OPT_ITERS:
        if (cli_count(v, 1000000L, &a->iters))
            return cli_usage_error(a->command, "--iters must be a whole number from 1 to 1000000, not '%s'", v);
        break;
    case PX_OPT_MIN_TIME:
        if (cli_duration(v, &a->min_time_s))
            return cli_usage_error(a->command, "--min-time must be a duration above 0 such as 2s or 500ms, not '%s'",
                                   v);
        break;
    case PX_OPT_SHARD: {
        char why[200];
        if (shard_parse(v, &a->shard, why, sizeof why))
            return cli_usage_error(a->command, "--shard '%s': %s", v, why);
        break;
    }
    case PX_OPT_SINCE_GOOD: a->since_good = 1; break;
    case PX_OPT_NO_RUN: a->no_run = 1; break;
    default: return cli_usage_error(a->command, "--%s is not an option of %s", o->long_name, a->command->name);
    }
    return 0;
}

/* Parses the command line of parity run or check; CLI_PARSED or the exit
 * status. */
static int parse_args(const char *command, int argc, char **argv, run_args *a)
{
    memset(a, 0, sizeof *a);
    a->warmup = a->iters = -1;
    a->command = cli_command(command);
    int rc = cli_parse(a->command, argc, argv, on_arg, a);
    if (rc == CLI_PARSED && !a->fixture)
        rc = cli_usage_error(a->command, "which fixture?");
    else if (rc == CLI_PARSED && !strcmp(command, "repro") && (!a->id || a->n_envs != 1))
        rc = cli_usage_error(a->command, "which example, and on which environment? (repro FIXTURE ID -e ENV)");
    else if (rc == CLI_PARSED && (!strcmp(command, "export") || !strcmp(command, "repro")) && !a->output)
        rc = cli_usage_error(a->command, "where? -o DIR or -o FILE.tar.gz (never over an existing one)");
    return rc;
}

/* Ctrl-C (or SIGTERM) during a run: the first stops it cleanly (the
 * examples in flight and left are not-evaluated, the results file is
 * written whole, exit 5); a second ends parity at once, its executors
 * killed, nothing written (what was there before is untouched: writes are
 * atomic). */
static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig)
{
    (void)sig;
    if (++interrupts < 2)
        return;
    runner_kill_children();
    static const char msg[] = "\nparity: interrupted again: stopped at once, nothing written\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(PX_EXIT_CUT_SHORT);
}

static void interrupts_catch(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupts = 0;
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

/* Waits for the run, passing an interrupt on to it; shows what it does
 * on a terminal. */
static void follow_run(px_runner *run, int quiet)
{
    int show = !quiet && isatty(2), said = 0;
    for (int tick = 0; !runner_done(run); tick++) {
        if (interrupts && !said) {
            runner_stop(run, PX_STOP_INTERRUPT);
            said = 1;
            if (show)
                fprintf(stderr, "\r\033[Kinterrupted: ending the executors (Ctrl-C again to stop at once)");
        }
        if (show && !said && tick % 5 == 0) {
            int env, ex;
            pid_t pid;
            runner_progress(run, &env, &ex, &pid);
            if (env >= 0)
                fprintf(stderr, "\r\033[K%s: %s", runner_env_name(run, env), ex < 0 ? "starting" : "running");
            if (env >= 0 && ex >= 0)
                fprintf(stderr, " %d/%zu", ex + 1, runner_example_count(run));
        }
        /* A signal cuts the sleep short: the stop is passed on at once. */
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    if (show)
        fprintf(stderr, "\r\033[K");
}

int check_cut_short_exit(const px_results *res, int rc)
{
    for (size_t i = 0; i < res->n_envs; i++)
        if (res->envs[i].selected && res->envs[i].origin != PX_ORIGIN_NONE && res->envs[i].cut_short) {
            size_t left = 0;
            for (size_t k = 0; k < res->n_examples; k++)
                left += res->envs[i].ex[k].status == PX_ST_NOT_EVALUATED;
            if (left)
                fprintf(stderr, "parity: %s: cut short (%s): %zu of %zu examples not evaluated\n", res->envs[i].name,
                        res->envs[i].cut_short, left, res->n_examples);
            else /* every example ran: what was cut is the benchmark */
                fprintf(stderr, "parity: %s: cut short (%s): every example ran, the benchmark was not measured in "
                                "full\n",
                        res->envs[i].name, res->envs[i].cut_short);
            rc = px_exit_worse(rc, PX_EXIT_CUT_SHORT);
        }
    return rc;
}

/* results.yaml beside the fixture; a shard's is results.shard-I-of-N.yaml,
 * so that shards sharing a directory never write over each other or pass
 * for a whole run's file. */
static char *default_output(const px_fixture *f, px_shard s)
{
    char name[64] = "results.yaml";
    if (s.count)
        snprintf(name, sizeof name, "results.shard-%u-of-%u.yaml", s.index, s.count);
    size_t n = strlen(f->dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", f->dir, f->dir[0] ? "/" : "", name);
    return p;
}

/* The command's check session (session.h): open it, run what runs here
 * while showing progress, then finish; the exit code. */
static int session_main(const run_args *a, const px_fixture *f, px_session_kind kind)
{
    px_error err = {0};
    px_session_opts o = {.kind = kind, .results = a->results, .n_results = (size_t)a->n_results, .envs = a->envs,
                         .n_envs = (size_t)a->n_envs, .no_run = a->no_run, .shard = a->shard,
                         .executor = a->executor, .python = a->python,
                         .doing = kind == PX_SESSION_RUN ? "running it" : "judging anything against it"};
    o.runner = (px_runner_opts){.backend_lib = a->backend_lib, .backend_modules = a->modules,
                                .n_backend_modules = (size_t)a->n_modules, .budget_s = a->budget_s,
                                .compile_backends = a->compile_backends,
                                .n_compile_backends = (size_t)a->n_compile_backends,
                                .max_examples = (size_t)a->max_examples};
    static const int single = 1;
    if (!strcmp(a->command->name, "bench")) {
        o.runner.bench_batches = a->n_endpoints ? a->batches : &single;
        o.runner.n_bench = a->n_endpoints ? (size_t)a->n_endpoints : 1;
        o.runner.bench_warmup = a->warmup >= 0 ? (int)a->warmup : 2;
        o.runner.bench_passes = a->iters > 0 ? (int)a->iters : 0;
        o.runner.bench_min_time_s = a->min_time_s > 0 ? a->min_time_s : 1.0;
    }
    px_check s;
    if (session_open(&s, f, &o, &err))
        return cli_error(&err);
    /* An interrupt is said as one from before the first executor starts
     * until the results are written. Before (loading, preparing) and in
     * sessions that run nothing, Ctrl-C ends parity as it ends any
     * program: nothing runs yet, nothing is written. */
    int runs = session_runs(&s), rc;
    struct sigaction old_int, old_term;
    if (runs)
        interrupts_catch(&old_int, &old_term);
    if (session_start(&s, &err)) {
        rc = cli_error(&err);
    } else {
        if (s.run)
            follow_run(s.run, a->quiet);
        rc = session_wait(&s, &err) ? cli_error(&err) : a->finish(a, f, s.res);
    }
    if (runs) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    fflush(stdout);
    session_close(&s);
    return rc;
}

int check_write_results(const run_args *a, const px_fixture *f, const px_results *res)
{
    px_error err = {0};
    char *out = a->output ? strdup(a->output) : default_output(f, res->shard);
    int rc = PX_EXIT_OK;
    if (!out)
        rc = cli_error((px_error_oom(&err, NULL), &err));
    else if (results_write(res, f, out, &err))
        rc = cli_error(&err);
    else if (strcmp(out, "-"))
        fprintf(stdout, "results: %s\n", out);
    free(out);
    return rc;
}

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

/* What `run` does with the results: table, counts, results file. */
static int run_finish(const run_args *a, const px_fixture *f, const px_results *res)
{
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
    char path[4096], name[4096], line[2048];
    history_path(f->path, path, sizeof path);
    snprintf(name, sizeof name, "%s", f->path);
    int n = history_record(h, res, j, &err);
    if (n > 0)
        n = history_write(h, path, basename(name), &err) ? -1 : n;
    if (n < 0) {
        px_error_format(&err, line, sizeof line);
        fprintf(stderr, "parity: warning: %s (the last good configuration is not recorded; the verdict stands)\n",
                line);
    }
}

/* What `check` does with the results: judge, compare with the last good
 * configurations, report, record, and the exit code, the worst that
 * applies (px_exit_worse: an environment without results leaves the check
 * incomplete, which is worse than a known failure). */
static int check_finish(const run_args *a, const px_fixture *f, const px_results *res)
{
    px_error err = {0};
    px_judgement j;
    if (judge_results(f, res, &j, &err) || bench_judge(f, res, &j, &err))
        return cli_error(&err);
    px_since *since = calloc(res->n_envs ? res->n_envs : 1, sizeof *since);
    if (!since || history_since(a->history, res, &j, since, &err)) {
        free(since);
        judgement_free(&j);
        if (!err.code)
            px_error_oom(&err, NULL);
        return cli_error(&err);
    }
    int rc = session_exit(res, &j, since, a->since_good);
    if (a->output && results_write(res, f, a->output, &err))
        rc = px_exit_worse(rc, cli_error(&err));
    rc = check_cut_short_exit(res, rc);
    const char *format = a->format ? a->format : "text";
    if (!strcmp(format, "json"))
        check_report_json(stdout, f, res, &j, since, rc);
    else if (!strcmp(format, "tap"))
        check_report_tap(stdout, f, res, &j, since);
    else
        check_report_text(stdout, f, res, &j, since);
    fflush(stdout);
    free(since); /* it borrowed from the history, which recording changes */
    record_good(f, a->history, res, &j);
    judgement_free(&j);
    return rc;
}

static int command_main(const char *command, const run_args *ap);

int check_command(const char *command, int argc, char **argv, run_finish_fn finish)
{
    run_args a;
    int parsed = parse_args(command, argc, argv, &a);
    if (parsed != CLI_PARSED)
        return parsed;
    a.finish = finish;
    return command_main(command, &a);
}

static int command_main(const char *command, const run_args *ap)
{
    run_args a = *ap;
    px_error err = {0};
    px_fixture *f = fixture_load(a.fixture, &err);
    if (!f)
        return cli_error(&err);
    int rc;
    /* repro: that environment beside the reference. */
    int ref = fixture_reference(f);
    if (!strcmp(command, "repro") && ref >= 0 && strcmp(a.envs[0], f->envs[ref].name))
        a.envs[a.n_envs++] = f->envs[ref].name;
    px_history history = {0};
    char hpath[4096];
    history_path(f->path, hpath, sizeof hpath);
    if (a.finish == check_finish && history_load(hpath, &history, &err)) {
        /* Refused like any other file read, before anything runs. */
        rc = cli_error(&err);
    } else if (strcmp(command, "run") && strcmp(command, "bench")) {
        /* run and bench run the fixture's environments; the others judge
         * what the contract names, from wherever its results come. */
        a.history = &history;
        rc = session_main(&a, f, PX_SESSION_JUDGE);
    } else {
        rc = 0;
        if (f->kind == PX_MODEL_GENERATOR && !strcmp(command, "bench"))
            rc = cli_usage_error(a.command,
                                 "%s is a generator's contract: parity bench measures a classifier's forwards and "
                                 "training steps, and has no generation endpoint yet (parity run times each "
                                 "generation: forward_ms)",
                                 f->path);
        for (int i = 0; rc == 0 && i < a.n_endpoints; i++)
            if (a.batches[i] < 0 && !f->train.present)
                rc = cli_usage_error(a.command,
                                     "--endpoint train-step:%d needs the training step in %s: add contract.train: "
                                     "{lr: 0.05, atol: A, rtol: R, why: \"...\"}",
                                     -a.batches[i], f->path);
        if (rc == 0)
            rc = session_main(&a, f, PX_SESSION_RUN);
    }
    history_free(&history);
    fixture_free(f);
    return rc;
}

int cmd_run(int argc, char **argv) { return check_command("run", argc, argv, run_finish); }
int cmd_check(int argc, char **argv) { return check_command("check", argc, argv, check_finish); }
