/* The commands that judge or run a fixture, up to their finish (see
 * cmd_check.h): the command line bound into the command's own options,
 * the fixture, the check session, the run followed on the terminal, and
 * an interrupt passed on to it. */
#define _POSIX_C_SOURCE 200809L
#include "cmd_check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parity/runner.h"
#include "parity/sbuf.h"

int opt_text(const px_command *c, const char *v, void *field)
{
    (void)c;
    *(const char **)field = v;
    return 0;
}

int opt_flag(const px_command *c, const char *v, void *field)
{
    (void)c, (void)v;
    *(int *)field = 1;
    return 0;
}

int opt_list(const px_command *c, const char *v, void *field)
{
    (void)c;
    cmd_list *l = field;
    l->v[l->n++] = v; /* cli_parse holds it to the option's max */
    return 0;
}

static int opt_budget(const px_command *c, const char *v, void *field)
{
    if (cli_duration(v, field))
        return cli_usage_error(c, "--budget must be a duration above 0 such as 90s, 5m or 1h30m, not '%s'", v);
    return 0;
}

static int opt_max_examples(const px_command *c, const char *v, void *field)
{
    if (cli_count(v, 1000000000L, field))
        return cli_usage_error(c, "--max-examples must be a whole number above 0, not '%s'", v);
    return 0;
}

/* The options every one of these commands binds the same way (the CLI
 * table says which of them each command takes). */
static const opt_bind common[] = {
    {PX_OPT_ENV, offsetof(check_args, envs), opt_list},
    {PX_OPT_OUTPUT, offsetof(check_args, output), opt_text},
    {PX_OPT_QUIET, offsetof(check_args, quiet), opt_flag},
    {PX_OPT_EXECUTOR, offsetof(check_args, executor), opt_text},
    {PX_OPT_BACKEND_LIB, offsetof(check_args, backend_lib), opt_text},
    {PX_OPT_PYTHON, offsetof(check_args, python), opt_text},
    {PX_OPT_BACKEND_MODULE, offsetof(check_args, modules), opt_list},
    {PX_OPT_COMPILE_BACKEND, offsetof(check_args, compile_backends), opt_list},
    {PX_OPT_RESULTS, offsetof(check_args, results), opt_list},
    {PX_OPT_BUDGET, offsetof(check_args, budget_s), opt_budget},
    {PX_OPT_MAX_EXAMPLES, offsetof(check_args, max_examples), opt_max_examples},
    {PX_OPT_NO_RUN, offsetof(check_args, no_run), opt_flag},
    {PX_OPT_COUNT, 0, NULL},
};

static const opt_bind *bound(const opt_bind *t, px_opt id)
{
    for (; t && t->opt != PX_OPT_COUNT; t++)
        if (t->opt == id)
            return t;
    return NULL;
}

/* One argument of the command (cli_parse): ctx is its options struct. */
static int on_arg(void *ctx, const px_option *o, const char *v)
{
    check_args *a = ctx;
    if (!o) {
        if (a->fixture && a->cmd->id_at && !*(const char **)((char *)ctx + a->cmd->id_at)) {
            *(const char **)((char *)ctx + a->cmd->id_at) = v;
            return 0;
        }
        if (a->fixture)
            return cli_usage_error(a->command, "one fixture at a time, got '%s' too", v);
        a->fixture = v;
        return 0;
    }
    const opt_bind *b = bound(common, cli_opt_id(o));
    if (!b)
        b = bound(a->cmd->own, cli_opt_id(o));
    if (!b)
        return cli_usage_error(a->command, "--%s is not an option of %s", o->long_name, a->command->name);
    return b->set(a->command, v, (char *)ctx + b->at);
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
            /* A training run: its steps as they come. */
            int done, of;
            runner_progress_steps(run, env, &done, &of);
            if (env >= 0 && ex >= 0 && of > 0)
                fprintf(stderr, ", step %d/%d", done, of);
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
    px_sbuf b = PX_SBUF_INIT;
    sbuf_addf(&b, "%s%s", f->dir, f->dir[0] ? "/" : "");
    if (s.count)
        sbuf_addf(&b, "results.shard-%u-of-%u.yaml", s.index, s.count);
    else
        sbuf_add(&b, "results.yaml");
    return sbuf_take(&b);
}

int check_write_results(const check_args *a, const px_fixture *f, const px_results *res)
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

/* The command's session options, from what every one of them takes. */
static px_session_opts session_opts_of(const check_args *a)
{
    const check_cmd *c = a->cmd;
    px_session_opts o = {.kind = c->kind, .history = c->history, .results = a->results.v,
                         .n_results = (size_t)a->results.n, .envs = a->envs.v, .n_envs = (size_t)a->envs.n,
                         .no_run = a->no_run, .executor = a->executor, .python = a->python, .doing = c->doing};
    o.runner = (px_runner_opts){.backend_lib = a->backend_lib, .backend_modules = a->modules.v,
                                .n_backend_modules = (size_t)a->modules.n, .budget_s = a->budget_s,
                                .compile_backends = a->compile_backends.v,
                                .n_compile_backends = (size_t)a->compile_backends.n,
                                .max_examples = (size_t)a->max_examples};
    return o;
}

/* The command's check session (session.h): open it, run what runs here
 * while showing progress, then finish; the exit code. */
static int session_main(const check_args *a, const px_session_opts *o, const px_fixture *f)
{
    px_error err = {0};
    px_check s;
    if (session_open(&s, f, o, &err))
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
        rc = session_wait(&s, &err) ? cli_error(&err) : a->cmd->finish(a, &s);
    }
    if (runs) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    fflush(stdout);
    session_close(&s);
    return rc;
}

/* The fixture, the command's own steps and its session. */
static int command_main(check_args *a)
{
    px_error err = {0};
    px_fixture *f = fixture_load(a->fixture, &err);
    if (!f)
        return cli_error(&err);
    px_session_opts o = session_opts_of(a);
    int rc = a->cmd->prepare ? a->cmd->prepare(a, f, &o) : 0;
    if (rc == 0)
        rc = session_main(a, &o, f);
    fixture_free(f);
    return rc;
}

int check_command(const check_cmd *cmd, int argc, char **argv)
{
    check_args *a = calloc(1, cmd->size);
    if (!a) {
        px_error err = {0};
        return cli_error((px_error_oom(&err, NULL), &err));
    }
    a->cmd = cmd;
    a->command = cli_command(cmd->name);
    int rc = cli_parse(a->command, argc, argv, on_arg, a);
    if (rc == CLI_PARSED && !a->fixture)
        rc = cli_usage_error(a->command, "which fixture?");
    else if (rc == CLI_PARSED && cmd->parsed)
        rc = cmd->parsed(a);
    if (rc == CLI_PARSED)
        rc = command_main(a);
    free(a);
    return rc;
}
