/* The runner against real executors and planted TorchScript models
 * (tests/models, made by make_models.py): a child killed mid-forward is a
 * crash of that example and the next example runs in a restarted child; a
 * forward past the timeout is a timeout; a raising model is an exception
 * and the child lives on. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner.h"

typedef struct harness {
    px_fixture *f;
    px_env_input in;
    px_results *res;
    px_runner *run;
} harness;

static const char *executor(void)
{
    const char *p = getenv("PARITY_TORCH");
    return p ? p : "build/parity-torch";
}

static void start(harness *h, const char *fixture, const char *env)
{
    px_error err = {0};
    memset(h, 0, sizeof *h);
    h->f = fixture_load(fixture, &err);
    cr_assert_not_null(h->f, "%s:%d: %s", err.file, err.line, err.msg);
    const px_env *e = fixture_env(h->f, env);
    cr_assert_not_null(e);
    int idx = (int)(e - h->f->envs);
    cr_assert_eq(env_input_open(&h->in, h->f, e, &err), 0, "%s", err.msg);
    h->res = results_new(h->f, &idx, 1);
    px_runner_opts o = {.executor = executor()};
    h->run = runner_start(h->f, &h->in, h->res, &o, &err);
    cr_assert_not_null(h->run, "%s", err.msg);
}

static void finish(harness *h)
{
    px_error err = {0};
    cr_expect_eq(runner_wait(h->run, &err), 0, "%s", err.msg);
}

static void cleanup(harness *h)
{
    runner_free(h->run);
    results_free(h->res);
    env_input_close(&h->in, h->f->n_examples);
    fixture_free(h->f);
}

static const px_example_result *result(harness *h, const char *id)
{
    for (size_t i = 0; i < h->f->n_examples; i++)
        if (!strcmp(h->f->examples[i].id, id))
            return &h->res->envs[0].ex[i];
    cr_assert_fail("no example %s", id);
    return NULL;
}

static int index_of(harness *h, const char *id)
{
    for (size_t i = 0; i < h->f->n_examples; i++)
        if (!strcmp(h->f->examples[i].id, id))
            return (int)i;
    return -1;
}

Test(runner, child_killed_mid_forward_is_a_crash_and_the_run_goes_on, .timeout = 180)
{
    harness h;
    start(&h, "tests/data/slow.yaml", "patient");
    int slow = index_of(&h, "slow"), env, ex;
    pid_t pid = 0;
    /* Wait until the slow example is in flight, then kill its executor. */
    for (int i = 0; i < 6000; i++) {
        runner_progress(h.run, &env, &ex, &pid);
        if (ex == slow && pid > 0)
            break;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    cr_assert_eq(ex, slow, "the slow example never started");
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    finish(&h);
    const px_example_result *x = result(&h, "slow");
    cr_expect_eq(x->status, PX_ST_CRASH, "got %s", status_name(x->status));
    cr_expect_str_eq(x->detail, "SIGKILL");
    cr_expect_eq(result(&h, "quick-1")->status, PX_ST_OK);
    const px_example_result *after = result(&h, "quick-2");
    cr_expect_eq(after->status, PX_ST_OK, "the next example runs in a restarted child: %s %s",
                 status_name(after->status), after->detail ? after->detail : "");
    cr_expect_eq(h.res->envs[0].restarts, 1);
    cr_expect_eq(h.res->envs[0].state, PX_ENV_UP);
    cleanup(&h);
}

Test(runner, forward_past_the_timeout_is_a_timeout, .timeout = 180)
{
    harness h;
    start(&h, "tests/data/slow.yaml", "impatient");
    finish(&h);
    const px_example_result *x = result(&h, "slow");
    cr_expect_eq(x->status, PX_ST_TIMEOUT, "got %s", status_name(x->status));
    cr_expect_str_eq(x->detail, "after 1 s");
    cr_expect_eq(result(&h, "quick-2")->status, PX_ST_OK);
    cr_expect_eq(h.res->envs[0].restarts, 1);
    cleanup(&h);
}

Test(runner, raising_model_is_an_exception_and_the_child_lives_on, .timeout = 180)
{
    harness h;
    start(&h, "tests/data/raises.yaml", "reference");
    finish(&h);
    const px_example_result *x = result(&h, "slow");
    cr_expect_eq(x->status, PX_ST_EXCEPTION, "got %s", status_name(x->status));
    cr_expect(x->detail && strstr(x->detail, "planted failure"), "%s", x->detail);
    cr_expect(!strstr(x->detail, "Exception raised from"), "no C++ backtrace in the message");
    cr_expect_eq(result(&h, "quick-2")->status, PX_ST_OK);
    cr_expect_eq(h.res->envs[0].restarts, 0);
    cleanup(&h);
}

/* The review screen's r and R: with keep_alive the executor stays up after
 * the run, and running an example again is one forward in that same
 * process (no start-up, no load, no restart); runner_wait ends it. */
Test(runner, keep_alive_runs_again_in_the_live_executor, .timeout = 180)
{
    px_error err = {0};
    harness h;
    memset(&h, 0, sizeof h);
    h.f = fixture_load("fixtures/campus-club/fixture.yaml", &err);
    cr_assert_not_null(h.f, "%s", err.msg);
    int idx = fixture_reference(h.f);
    cr_assert_eq(env_input_open(&h.in, h.f, &h.f->envs[idx], &err), 0, "%s", err.msg);
    h.res = results_new(h.f, &idx, 1);
    px_runner_opts o = {.executor = executor(), .keep_alive = 1};
    h.run = runner_start(h.f, &h.in, h.res, &o, &err);
    cr_assert_not_null(h.run, "%s", err.msg);
    while (!runner_done(h.run))
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    pid_t pid = runner_child_pid(h.run, 0);
    cr_assert_gt(pid, 0, "the executor stays up after the run");
    cr_expect_eq(kill(pid, 0), 0);
    int k = index_of(&h, "winter-concert");
    cr_assert_eq(h.res->envs[0].ex[k].status, PX_ST_OK);
    double before[16];
    size_t n = h.res->envs[0].ex[k].n_values;
    cr_assert(n > 0 && n <= 16);
    memcpy(before, h.res->envs[0].ex[k].values, n * sizeof *before);
    for (int all = 0; all < 2; all++) {
        runner_lock(h.run);
        for (size_t i = 0; i < h.f->n_examples; i++)
            if (all || (int)i == k)
                example_result_clear(&h.res->envs[0].ex[i]);
        runner_unlock(h.run);
        cr_assert_eq(runner_rerun(h.run, all, (size_t)k), 0);
        while (!runner_done(h.run))
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        const px_example_result *x = &h.res->envs[0].ex[k];
        cr_expect_eq(x->status, PX_ST_OK, "%s", status_name(x->status));
        cr_expect(x->n_values == n && !memcmp(x->values, before, n * sizeof *before), "the same numbers again");
        for (size_t i = 0; all && i < h.f->n_examples; i++)
            cr_expect_neq(h.res->envs[0].ex[i].status, PX_ST_PENDING, "R runs every example again");
        cr_expect_eq(runner_child_pid(h.run, 0), pid, "the same executor process");
        cr_expect_eq(h.res->envs[0].restarts, 0, "no restart");
    }
    finish(&h);
    cr_expect_eq(runner_child_pid(h.run, 0), 0);
    cr_expect_neq(kill(pid, 0), 0, "ended with the runner");
    cleanup(&h);
}

/* While a re-run is in flight (slow.pt's slow example: seconds) the runner
 * is busy and takes no second request. */
Test(runner, keep_alive_takes_one_request_at_a_time, .timeout = 180)
{
    px_error err = {0};
    harness h;
    memset(&h, 0, sizeof h);
    h.f = fixture_load("tests/data/slow.yaml", &err);
    cr_assert_not_null(h.f, "%s", err.msg);
    const px_env *e = fixture_env(h.f, "patient");
    int idx = (int)(e - h.f->envs);
    cr_assert_eq(env_input_open(&h.in, h.f, e, &err), 0, "%s", err.msg);
    h.res = results_new(h.f, &idx, 1);
    px_runner_opts o = {.executor = executor(), .keep_alive = 1};
    h.run = runner_start(h.f, &h.in, h.res, &o, &err);
    cr_assert_not_null(h.run, "%s", err.msg);
    while (!runner_done(h.run))
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    int k = index_of(&h, "slow");
    runner_lock(h.run);
    example_result_clear(&h.res->envs[0].ex[k]);
    runner_unlock(h.run);
    cr_assert_eq(runner_rerun(h.run, 0, (size_t)k), 0);
    cr_expect_not(runner_done(h.run), "busy until the example ran again");
    cr_expect_eq(runner_rerun(h.run, 1, 0), -1, "one request at a time");
    while (!runner_done(h.run))
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    cr_expect_eq(result(&h, "slow")->status, PX_ST_OK, "%s", status_name(result(&h, "slow")->status));
    cr_expect_eq(h.res->envs[0].restarts, 0);
    finish(&h);
    cleanup(&h);
}

/* Two environments of slow.yaml, `patient` (index 0 of the results) and
 * `reference` (1), started with opts; the caller cancels and waits. */
typedef struct pair {
    px_fixture *f;
    px_env_input in[2];
    px_results *res;
    px_runner *run;
    long slow, quick;
} pair;

static void start_pair(pair *p, px_runner_opts o)
{
    px_error err = {0};
    memset(p, 0, sizeof *p);
    p->f = fixture_load("tests/data/slow.yaml", &err);
    cr_assert_not_null(p->f, "%s", err.msg);
    int idx[2] = {(int)(fixture_env(p->f, "patient") - p->f->envs), (int)(fixture_env(p->f, "reference") - p->f->envs)};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(env_input_open(&p->in[i], p->f, &p->f->envs[idx[i]], &err), 0, "%s", err.msg);
    p->res = results_new(p->f, idx, 2);
    o.executor = executor();
    p->run = runner_start(p->f, p->in, p->res, &o, &err);
    cr_assert_not_null(p->run, "%s", err.msg);
    p->slow = fixture_example_index(p->f, "slow");
    p->quick = fixture_example_index(p->f, "quick-1");
}

/* Until the first environment's slow example or the second's first quick
 * one has a result: whether the quick one came first (the second
 * environment ran while the first was busy), and what the first had then. */
static int second_ran_while_first_was_busy(pair *p, int *first_benched)
{
    int slow_done = 0, quick_done = 0;
    while (!slow_done && !quick_done && !runner_done(p->run)) {
        nanosleep(&(struct timespec){0, 5000000}, NULL);
        runner_lock(p->run);
        slow_done = p->res->envs[0].ex[p->slow].status != PX_ST_PENDING;
        quick_done = p->res->envs[1].ex[p->quick].status != PX_ST_PENDING;
        *first_benched = p->res->envs[0].n_bench > 0;
        runner_unlock(p->run);
    }
    return quick_done && !slow_done;
}

static void stop_pair(pair *p)
{
    runner_cancel(p->run);
    px_error err = {0};
    cr_expect_eq(runner_wait(p->run, &err), 0, "%s", err.msg);
    runner_free(p->run);
    results_free(p->res);
    for (int i = 0; i < 2; i++)
        env_input_close(&p->in[i], p->f->n_examples);
    fixture_free(p->f);
}

/* Environments run side by side (each holds one of the machine's cores):
 * while the first is in its slow forward (seconds), the second runs its
 * examples. Not a timing: which result comes first. */
Test(runner, environments_run_side_by_side, .timeout = 180)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        cr_skip_test("one core: environments of one thread each run one after another");
    pair p;
    start_pair(&p, (px_runner_opts){0});
    int benched = 0;
    cr_expect(second_ran_while_first_was_busy(&p, &benched),
              "the second environment ran an example while the first was in its slow forward");
    stop_pair(&p);
}

/* parity bench times one environment at a time: the second starts only
 * once the first has run and been timed. */
Test(runner, bench_runs_one_environment_at_a_time, .timeout = 180)
{
    static const int batches[] = {1};
    pair p;
    start_pair(&p, (px_runner_opts){.bench_batches = batches, .n_bench = 1, .bench_warmup = 0, .bench_passes = 1});
    int benched = 0;
    cr_expect_not(second_ran_while_first_was_busy(&p, &benched), "the second environment waited");
    /* The second's quick example then ran after the first's benchmark. */
    while (!runner_done(p.run)) {
        runner_lock(p.run);
        int quick_done = p.res->envs[1].ex[p.quick].status != PX_ST_PENDING;
        benched = p.res->envs[0].n_bench > 0;
        runner_unlock(p.run);
        if (quick_done)
            break;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    cr_expect(benched, "the first environment's benchmark came before the second's examples");
    stop_pair(&p);
}
