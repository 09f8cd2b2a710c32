/* The fork server (parity-torch --serve, include/parity/proto.h): libtorch
 * executors are forked by one server per run, not spawned by parity; a
 * crash is still that example's outcome with its signal, and the other
 * environment is unaffected; the server itself never starts a thread; and
 * parity spawns executors itself with PARITY_FORK_SERVER=0 or when the
 * executor cannot serve. (Killing parity leaves neither the server nor an
 * executor behind: tests/test_cmd_stop.c, executors_die_with_parity.) */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "testlib.h"

static const char *executor(void)
{
    const char *p = getenv("PARITY_TORCH");
    return p ? p : "build/parity-torch";
}

/* The parent of pid, from /proc/PID/stat (after the command's
 * parentheses); 0 when pid is gone. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    cr_assert_not_null(p);
    char state;
    int ppid = 0;
    cr_assert_eq(sscanf(p + 1, " %c %d", &state, &ppid), 2);
    return (pid_t)ppid;
}

/* A line of /proc/PID/status ("Threads"), as a number. */
static long status_field(pid_t pid, const char *name)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    long v = -1;
    size_t n = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == ':')
            v = atol(line + n + 1);
    fclose(f);
    return v;
}

/* /proc/PID/cmdline with the NULs as spaces. */
static char *cmdline_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    char *buf = calloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    fclose(f);
    for (size_t i = 0; i + 1 < n; i++)
        buf[i] = buf[i] ? buf[i] : ' ';
    return buf;
}

typedef struct harness {
    px_fixture *f;
    px_env_input in;
    px_results *res;
    px_runner *run;
} harness;

static void start(harness *h, const char *fixture, const char *env, const char *exe)
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
    px_runner_opts o = {.executor = exe};
    h->run = runner_start(h->f, &h->in, h->res, &o, &err);
    cr_assert_not_null(h->run, "%s", err.msg);
}

static void finish(harness *h)
{
    px_error err = {0};
    cr_expect_eq(runner_wait(h->run, &err), 0, "%s", err.msg);
    runner_free(h->run);
    results_free(h->res);
    env_input_close(&h->in, h->f->n_examples);
    fixture_free(h->f);
}

static const px_example_result *result(harness *h, const char *id)
{
    long i = fixture_example_index(h->f, id);
    cr_assert_geq(i, 0, "no example %s", id);
    return &h->res->envs[0].ex[i];
}

/* The pid of the executor running the slow example, once it runs it. */
static pid_t executor_in_slow_forward(harness *h)
{
    long slow = fixture_example_index(h->f, "slow");
    int env, ex = -1;
    pid_t pid = 0;
    for (int i = 0; i < 6000; i++) {
        runner_progress(h->run, &env, &ex, &pid);
        if (ex == slow && pid > 0)
            break;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    cr_assert_eq(ex, slow, "the slow example never started");
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    return pid;
}

/* The executor's parent is the server, whose parent is this process (the
 * runner's); the server runs `parity-torch --serve` on one thread (no
 * OpenMP or intra-op pool was started before it forks), the executor is
 * in its own process group; a segfault there is a crash with its signal,
 * and the next example runs in an executor the same server forks. */
Test(forksrv, executors_are_forked_by_the_server_and_crashes_keep_their_signal, .timeout = 180)
{
    unsetenv("PARITY_FORK_SERVER");
    harness h;
    start(&h, "tests/data/slow.yaml", "patient", executor());
    pid_t pid = executor_in_slow_forward(&h);
    pid_t server = parent_of(pid);
    cr_expect_neq(server, getpid(), "the executor must be the server's child, not parity's");
    cr_expect_eq(parent_of(server), getpid(), "the server is parity's child");
    char *cmd = cmdline_of(server);
    cr_expect(strstr(cmd, "parity-torch --serve"), "the parent is the fork server: %s", cmd);
    free(cmd);
    cr_expect_eq(status_field(server, "Threads"), 1, "the server started no thread");
    cr_expect_eq(getpgid(pid), pid, "the executor has its own process group");
    cr_assert_eq(kill(pid, SIGSEGV), 0);
    /* The restarted executor comes from the same server (0: it ended
     * before it could be looked at). */
    int env, ex, looked = 0;
    pid_t next = 0;
    for (int i = 0; i < 30000 && !runner_done(h.run) && !looked; i++) {
        runner_progress(h.run, &env, &ex, &next);
        if (next > 0 && next != pid) {
            pid_t pp = parent_of(next);
            cr_expect(pp == server || pp == 0, "restarted by the same server: parent %d", (int)pp);
            looked = 1;
        }
        nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    px_error err = {0};
    cr_expect_eq(runner_wait(h.run, &err), 0, "%s", err.msg);
    const px_example_result *x = result(&h, "slow");
    cr_expect_eq(x->status, PX_ST_CRASH, "got %s", status_name(x->status));
    cr_expect_str_eq(x->detail, "SIGSEGV");
    cr_expect_eq(result(&h, "quick-1")->status, PX_ST_OK);
    cr_expect_eq(result(&h, "quick-2")->status, PX_ST_OK, "the next example runs in a restarted executor");
    cr_expect_eq(h.res->envs[0].restarts, 1);
    finish(&h);
    cr_expect_eq(kill(server, 0), -1, "the server ends with the run");
}

/* PARITY_FORK_SERVER=0: parity spawns each executor itself, as before, and
 * a crash is still the crash with its signal. */
Test(forksrv, without_the_server_parity_spawns_executors, .timeout = 180)
{
    setenv("PARITY_FORK_SERVER", "0", 1);
    harness h;
    start(&h, "tests/data/slow.yaml", "patient", executor());
    pid_t pid = executor_in_slow_forward(&h);
    cr_expect_eq(parent_of(pid), getpid(), "spawned by parity");
    char *cmd = cmdline_of(pid);
    cr_expect(strstr(cmd, "--model") && !strstr(cmd, "--serve"), "%s", cmd);
    free(cmd);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    px_error err = {0};
    cr_expect_eq(runner_wait(h.run, &err), 0, "%s", err.msg);
    cr_expect_eq(result(&h, "slow")->status, PX_ST_CRASH);
    cr_expect_str_eq(result(&h, "slow")->detail, "SIGKILL");
    cr_expect_eq(result(&h, "quick-2")->status, PX_ST_OK);
    finish(&h);
}

/* An executor that cannot serve (one of an older parity: --serve is a usage
 * error) costs nothing but its try: parity spawns executors itself. */
Test(forksrv, an_executor_that_cannot_serve_is_spawned_instead, .timeout = 180)
{
    unsetenv("PARITY_FORK_SERVER");
    char *dir = tl_tmpdir(), path[600], text[4300], real[4096];
    cr_assert_not_null(realpath(executor(), real));
    snprintf(path, sizeof path, "%s/old-parity-torch", dir);
    snprintf(text, sizeof text, "#!/bin/sh\n[ \"$1\" = --serve ] && exit 2\nexec %s \"$@\"\n", real);
    tl_write(path, text);
    chmod(path, 0755);
    harness h;
    start(&h, "tests/data/slow.yaml", "patient", path);
    pid_t pid = executor_in_slow_forward(&h);
    cr_expect_eq(parent_of(pid), getpid(), "spawned by parity");
    cr_assert_eq(kill(pid, SIGABRT), 0);
    px_error err = {0};
    cr_expect_eq(runner_wait(h.run, &err), 0, "%s", err.msg);
    cr_expect_eq(result(&h, "quick-1")->status, PX_ST_OK);
    cr_expect_eq(result(&h, "slow")->status, PX_ST_CRASH);
    cr_expect_str_eq(result(&h, "slow")->detail, "SIGABRT");
    cr_expect_eq(result(&h, "quick-2")->status, PX_ST_OK);
    finish(&h);
    unlink(path), rmdir(dir);
    free(dir);
}

/* Two environments through one server: the one whose model segfaults gets
 * crash (SIGSEGV) on its long input and answers the short one in a
 * restarted executor; the reference beside it is untouched. */
Test(forksrv, a_crash_in_one_environment_leaves_the_other_alone, .timeout = 300)
{
    unsetenv("PARITY_FORK_SERVER");
    const char *fixture = "tests/data/planted.yaml";
    char *dir = tl_tmpdir(), out[600];
    snprintf(out, sizeof out, "%s/r.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fixture, "-e", "crash", "-e", "reference", "-q", "-o",
                                           out, NULL});
    cr_expect(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    px_error err = {0};
    px_fixture *f = fixture_load(fixture, &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s:%d: %s", err.file, err.line, err.msg);
    long film = fixture_example_index(f, "film-night"), jazz = fixture_example_index(f, "jazz");
    int seen = 0;
    for (size_t i = 0; i < res->n_envs; i++) {
        const px_env_result *e = &res->envs[i];
        if (!strcmp(e->name, "crash")) {
            seen |= 1;
            cr_expect_eq(e->ex[film].status, PX_ST_CRASH, "%s", status_name(e->ex[film].status));
            cr_expect_str_eq(e->ex[film].detail, "SIGSEGV");
            cr_expect_eq(e->ex[jazz].status, PX_ST_OK, "the restarted executor answers");
            cr_expect_geq(e->restarts, 1);
        } else if (!strcmp(e->name, "reference")) {
            seen |= 2;
            cr_expect_eq(e->state, PX_ENV_UP);
            cr_expect_eq(e->restarts, 0);
            for (size_t k = 0; k < res->n_examples; k++)
                cr_expect(e->ex[k].status == PX_ST_OK || e->ex[k].status == PX_ST_REJECTED, "%s: %s",
                          f->examples[k].id, status_name(e->ex[k].status));
        }
    }
    cr_expect_eq(seen, 3, "both environments ran");
    results_free(res), fixture_free(f), tl_free(&r);
    unlink(out), rmdir(dir);
    free(dir);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The review screen's executors stay up after the run; at its end they are
 * killed and the server's word on each ends the wait for it at once (an
 * EXITED that arrived must end the wait: missing it cost the whole 10 s cap
 * per executor before the runner gave up on it). */
Test(forksrv, keep_alive_executors_end_at_once_with_the_run, .timeout = 180)
{
    unsetenv("PARITY_FORK_SERVER");
    harness h;
    start(&h, "fixtures/campus-club/fixture.yaml", "reference", executor());
    finish(&h); /* a first runner without keep_alive: the model loads, warm */
    px_error err = {0};
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
    pid_t server = parent_of(pid);
    cr_expect_neq(server, getpid(), "forked by the server");
    double t0 = now_s();
    cr_expect_eq(runner_wait(h.run, &err), 0, "%s", err.msg);
    double took = now_s() - t0;
    cr_expect_lt(took, 8.0, "ending a live executor took %.1f s: the server's EXITED was missed", took);
    cr_expect_neq(kill(pid, 0), 0, "the executor is gone");
    cr_expect_neq(kill(server, 0), 0, "the server is gone");
    runner_free(h.run);
    results_free(h.res);
    env_input_close(&h.in, h.f->n_examples);
    fixture_free(h.f);
}
