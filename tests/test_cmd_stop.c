/* Stopping a run before its end, end to end through the built parity and
 * real executors: --max-examples, --budget, Ctrl-C (SIGINT to the
 * foreground process group, as a terminal sends it) at random moments, a
 * second Ctrl-C, and SIGKILL. Each time the exit status says what happened
 * (5: cut short), the results file is whole and reads back, the examples not
 * reached say why, and no executor process is left behind. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

/* tests/models/make_models.py's slow.pt and slower.pt */
#define SLOW_SHA "d132e9c4b327d53ebfdae401a146f7df3daddf259aa2f8aaf98cdf62fc6e1b87"
#define SLOWER_SHA "76b1887a02cdef67a7729e1ba26a335b009f9568a7360051a4754f6ba8c3609b"

/* A directory of its own holding `fixture` (a repository path) as
 * fixture.yaml, with the model and vocabulary it names copied beside it.
 * Every process of the run has this directory in its environment
 * (PARITY_STOP_TEST, set here and inherited) and a spawned executor also in
 * its command line: that is how the test finds one left behind, whether
 * parity spawned it or the fork server forked it (whose command line is the
 * server's, parity-torch --serve). */
static char *private_fixture(const char *fixture, const char *model, const char *vocab, char **dir_out)
{
    char *dir = tl_tmpdir(), cmd[4096], *path = malloc(strlen(dir) + 32);
    snprintf(cmd, sizeof cmd, "cp %s %s/model.pt && cp %s %s/vocab.txt", model, dir, vocab, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *text = tl_slurp(fixture);
    cr_assert_not_null(text, "%s", fixture);
    /* The paths the fixture names, whatever they are, become the copies. */
    const char *keys[] = {"path: ", "vocab: "}, *to[] = {"model.pt", "vocab.txt"};
    for (int i = 0; i < 2; i++) {
        char *at = strstr(text, keys[i]);
        cr_assert_not_null(at, "test bug: no '%s' in %s", keys[i], fixture);
        at += strlen(keys[i]);
        size_t n = strcspn(at, ",}\n");
        char *out = malloc(strlen(text) + 32);
        sprintf(out, "%.*s%s%s", (int)(at - text), text, to[i], at + n);
        free(text);
        text = out;
    }
    sprintf(path, "%s/fixture.yaml", dir);
    tl_write(path, text);
    setenv("PARITY_STOP_TEST", dir, 1);
    free(text);
    *dir_out = dir;
    return path;
}

static char *demo(char **dir)
{
    return private_fixture("fixtures/campus-club/fixture.yaml", "fixtures/campus-club/model.pt",
                           "fixtures/campus-club/vocab.txt", dir);
}

/* tests/data/slow.yaml on slower.pt, pinned: its "slow" example computes
 * for a minute or more on any torch (slow.pt's few seconds are 1.5 s on
 * torch 2), so that it is still in flight when a test interrupts, cuts or
 * kills it. */
static char *slow(char **dir)
{
    char *fx = private_fixture("tests/data/slow.yaml", "tests/models/slower.pt", "fixtures/campus-club/vocab.txt", dir);
    char *text = tl_slurp(fx), *pinned = tl_replace_all(text, SLOW_SHA, SLOWER_SHA);
    cr_assert(strcmp(text, pinned), "test bug: slow.yaml does not pin slow.pt as %s", SLOW_SHA);
    tl_write(fx, pinned);
    free(text), free(pinned);
    return fx;
}

/* Whether /proc/PID/what (NUL-separated strings) mentions dir. */
static int proc_file_mentions(const char *pid, const char *what, const char *dir)
{
    char p[300], buf[65536];
    snprintf(p, sizeof p, "/proc/%s/%s", pid, what);
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    for (size_t i = 0; i < got; i++)
        buf[i] = buf[i] ? buf[i] : ' ';
    buf[got] = '\0';
    return strstr(buf, dir) != NULL;
}

/* Processes (other than this one) whose command line or environment
 * mentions dir (a zombie has neither: it is gone). */
static int processes_mentioning(const char *dir)
{
    int n = 0;
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
            continue;
        n += proc_file_mentions(e->d_name, "cmdline", dir) || proc_file_mentions(e->d_name, "environ", dir);
    }
    closedir(d);
    return n;
}

/* Starts parity in a process group of its own (a terminal's foreground
 * job), stdout and stderr into files in dir. */
static pid_t start(const char *dir, const char *const *argv)
{
    const char *args[32];
    int n = 0;
    args[n++] = tl_parity();
    for (int i = 1; argv[i] && n < 31; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        setenv("PARITY_STOP_TEST", dir, 1);
        if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
            _exit(126);
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

/* Waits until parity catches SIGINT (its SigCgt in /proc): an interrupt
 * before that finds the program still starting, not a run to stop. */
static void wait_catching(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    for (int i = 0; i < 1000; i++) {
        FILE *f = fopen(path, "r");
        unsigned long long mask = 0;
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "SigCgt:", 7))
                mask = strtoull(line + 7, NULL, 16);
        if (f)
            fclose(f);
        if (mask & (1ull << (SIGINT - 1)))
            return;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    cr_assert_fail("parity never caught SIGINT");
}

static int finish(pid_t pid)
{
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void sleep_s(double s) { nanosleep(&(struct timespec){(time_t)s, (long)((s - (time_t)s) * 1e9)}, NULL); }

/* No executor of this run is left: those still exiting get a moment. */
static void expect_no_children(const char *dir, const char *when)
{
    int n = 0;
    for (int i = 0; i < 50 && (n = processes_mentioning(dir)); i++)
        sleep_s(0.02);
    cr_expect_eq(n, 0, "%s: %d executor process(es) left behind", when, n);
}

static px_results *load(const char *fixture, const char *results, px_fixture **f)
{
    px_error err = {0};
    *f = fixture_load(fixture, &err);
    cr_assert_not_null(*f, "%s", err.msg);
    px_results *r = results_load(results, *f, &err);
    cr_assert_not_null(r, "the results file must read back: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return r;
}

static const px_env_result *env_of(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment %s", name);
    return NULL;
}

Test(stop, max_examples_runs_the_first_n_and_says_so, .timeout = 300)
{
    char *dir, *fx = demo(&dir), out[600];
    snprintf(out, sizeof out, "%s/r.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--max-examples", "3", NULL});
    cr_expect_eq(r.status, 5, "cut short is exit 5: %s", r.err);
    cr_expect(strstr(r.err, "cut short (beyond --max-examples 3)"), "%s", r.err);
    px_fixture *f;
    px_results *res = load(fx, out, &f);
    cr_assert(f->n_examples > 3);
    for (size_t i = 0; i < res->n_envs; i++) {
        const px_env_result *e = &res->envs[i];
        cr_expect_str_eq(e->cut_short, "beyond --max-examples 3", "%s", e->name);
        for (size_t k = 0; k < res->n_examples; k++) {
            if (k < 3) {
                cr_expect_neq(e->ex[k].status, PX_ST_NOT_EVALUATED, "%s %zu", e->name, k);
            } else {
                cr_expect_eq(e->ex[k].status, PX_ST_NOT_EVALUATED, "%s %zu", e->name, k);
                cr_expect_str_eq(e->ex[k].detail, "beyond --max-examples 3");
            }
        }
    }
    /* Judged from the file, it is still cut short: never a pass. */
    cmd_result c = tl_run((const char *[]){"parity", "check", fx, "--results", out, NULL});
    cr_expect_eq(c.status, 5, "%s%s", c.out, c.err);
    /* A limit above the number of examples cuts nothing. */
    cmd_result w = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--max-examples", "100", NULL});
    cr_expect_eq(w.status, 0, "%s", w.err);
    results_free(res), fixture_free(f);
    tl_free(&r), tl_free(&c), tl_free(&w);
    expect_no_children(dir, "after --max-examples");
    free(fx), free(dir);
}

/* The slow example would finish (ok) given its minute of forward:
 * the budget abandons it mid-forward, which is what shows the budget
 * reaches a forward in flight. 4 s leaves the executor's start-up room on a
 * loaded machine (at 1.5 s a slow start-up was cut instead). */
Test(stop, budget_abandons_the_forward_in_flight, .timeout = 300)
{
    char *dir, *fx = slow(&dir), out[600];
    snprintf(out, sizeof out, "%s/r.yaml", dir);
    cmd_result r = tl_run(
        (const char *[]){"parity", "run", fx, "-e", "patient", "-q", "-o", out, "--budget", "4s", NULL});
    cr_expect_eq(r.status, 5, "%s", r.err);
    px_fixture *f;
    px_results *res = load(fx, out, &f);
    const px_env_result *e = env_of(res, "patient");
    long slow_i = fixture_example_index(f, "slow"), after = fixture_example_index(f, "quick-2");
    cr_assert(slow_i >= 0 && after >= 0);
    cr_expect_eq(e->ex[slow_i].status, PX_ST_NOT_EVALUATED, "%s", status_name(e->ex[slow_i].status));
    cr_expect_str_eq(e->ex[slow_i].detail, "budget (4 s) ran out");
    cr_expect_eq(e->ex[after].status, PX_ST_NOT_EVALUATED);
    cr_expect_str_eq(e->cut_short, "budget (4 s) ran out");
    results_free(res), fixture_free(f), tl_free(&r);
    expect_no_children(dir, "after the budget");
    free(fx), free(dir);
}

Test(stop, budget_and_max_examples_must_make_sense)
{
    const char *bad[][2] = {{"--budget", "0"},  {"--budget", "5x"},       {"--budget", "m5"},
                            {"--budget", "-1s"}, {"--budget", "30s1m"}, {"--max-examples", "0"},
                            {"--max-examples", "two"}, {"--max-examples", "-3"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cmd_result r = tl_run((const char *[]){"parity", "run", "fixtures/campus-club/fixture.yaml", bad[i][0],
                                               bad[i][1], NULL});
        cr_expect_eq(r.status, 2, "%s %s: %s", bad[i][0], bad[i][1], r.err);
        cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
        cr_expect(strstr(r.err, bad[i][0]) && strstr(r.err, bad[i][1]), "names the option and value: %s", r.err);
        tl_free(&r);
    }
}

/* Ctrl-C at random moments (start-up, mid-run, the end): the exit status is
 * 5 when something was left (0 when the run had ended), the results file
 * reads back with every example accounted for, and no executor is left. */
Test(stop, ctrl_c_at_random_moments_leaves_nothing_behind, .timeout = 600)
{
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    char *dir, *fx = demo(&dir), *sdir, *sfx = slow(&sdir);
    for (int round = 0; round < 8; round++) {
        int slow_one = round % 2;
        const char *d = slow_one ? sdir : dir, *fixture = slow_one ? sfx : fx;
        char out[600];
        snprintf(out, sizeof out, "%s/r%d.yaml", d, round);
        double at = (rand() % 1500) / 1000.0;
        pid_t pid = start(d, (const char *[]){"parity", "run", fixture, "-q", "-o", out, NULL});
        wait_catching(pid);
        sleep_s(at);
        kill(-pid, SIGINT);
        int st = finish(pid);
        char *err = tl_slurp(strcat(strcpy((char[700]){0}, d), "/stderr"));
        /* 128 + SIGINT: the interrupt came after the results were written,
         * when Ctrl-C ends parity as it ends any program (the fork server
         * made the demo's run short enough for that); the file is whole
         * and nothing in it was interrupted, checked below. */
        cr_expect(st == 5 || st == 0 || st == 128 + SIGINT, "seed %u, round %d, SIGINT after %.3f s: exit %d: %s", seed,
                  round, at, st, err);
        px_fixture *f;
        px_results *res = load(fixture, out, &f);
        int interrupted = 0;
        for (size_t i = 0; i < res->n_envs; i++)
            for (size_t k = 0; k < res->n_examples; k++) {
                const px_example_result *x = &res->envs[i].ex[k];
                cr_expect_neq(x->status, PX_ST_PENDING);
                cr_expect_neq(x->status, PX_ST_CRASH, "an interrupt is not a crash: %s", x->detail);
                if (x->status == PX_ST_NOT_EVALUATED) {
                    interrupted++;
                    cr_expect(x->detail && strstr(x->detail, "interrupted"), "%s", x->detail);
                }
            }
        cr_expect_eq(st == 5, interrupted > 0, "seed %u round %d: exit %d with %d not evaluated", seed, round, st,
                     interrupted);
        results_free(res), fixture_free(f), free(err);
        expect_no_children(d, "after Ctrl-C");
    }
    free(fx), free(dir), free(sfx), free(sdir);
}

/* Two interrupts in a row: the second ends parity at once. parity is
 * held stopped while SIGINT and then SIGTERM (both mean "interrupt"; two
 * SIGINTs would merge into one while it is stopped) are sent, so both are
 * there when it continues: it ends with exit 5, says so, kills the executor
 * in the middle of its slow forward, and writes nothing (the results file
 * only ever appears whole). */
Test(stop, second_interrupt_ends_at_once, .timeout = 300)
{
    char *dir, *fx = slow(&dir), out[600];
    snprintf(out, sizeof out, "%s/r.yaml", dir);
    pid_t pid = start(dir, (const char *[]){"parity", "run", fx, "-e", "patient", "-q", "-o", out, NULL});
    wait_catching(pid);
    sleep_s(2.5); /* inside the slow forward */
    cr_expect_gt(processes_mentioning(dir), 0, "the executor should be running");
    kill(pid, SIGSTOP);
    kill(-pid, SIGINT);
    kill(-pid, SIGTERM);
    kill(pid, SIGCONT);
    cr_expect_eq(finish(pid), 5);
    char err[700];
    snprintf(err, sizeof err, "%s/stderr", dir);
    char *said = tl_slurp(err);
    cr_expect(said && strstr(said, "interrupted again: stopped at once, nothing written"), "%s", said);
    free(said);
    expect_no_children(dir, "after two interrupts");
    cr_expect_neq(access(out, F_OK), 0, "nothing written");
    free(fx), free(dir);
}

/* parity killed outright (SIGKILL: nothing runs in parity) during a
 * forward: its executors die with it (PR_SET_PDEATHSIG), both kinds, and so
 * does the fork server, which the libtorch executor dies with, all within
 * a second. */
Test(stop, executors_die_with_parity, .timeout = 300)
{
    for (int kind = 0; kind < 2; kind++) {
        char *dir, *fx = slow(&dir);
        if (kind == 1) {
            char *text = tl_slurp(fx), *at = strstr(text, "patient: {");
            cr_assert_not_null(at);
            char *out = malloc(strlen(text) + 64);
            sprintf(out, "%.*spatient: {executor: python, %s", (int)(at - text), text, at + strlen("patient: {"));
            tl_write(fx, out);
            free(text), free(out);
        }
        pid_t pid = start(dir, (const char *[]){"parity", "run", fx, "-e", "patient", "-q", "-o", "-", "--python",
                                                tl_python(), NULL});
        sleep_s(kind ? 4 : 2.5);
        /* parity and its executor; for libtorch also the fork server. */
        int n = processes_mentioning(dir);
        cr_expect_geq(n, kind ? 2 : 3, "%s: parity, %sthe executor should be running: %d", kind ? "python" : "libtorch",
                      kind ? "" : "the fork server and ", n);
        kill(pid, SIGKILL);
        cr_expect_eq(finish(pid), 128 + SIGKILL);
        expect_no_children(dir, kind ? "python executor after SIGKILL" : "parity-torch after SIGKILL");
        free(fx), free(dir);
    }
}
