/* The command line shared by run, bench, check, report, export and repro
 * (private to src/cmd): parse it, load the fixture, open the check session
 * (include/parity/session.h: one result per environment, run here or read
 * from results files; what runs here runs), then call the command's
 * finish with the results. */
#ifndef PARITY_CMD_CHECK_H
#define PARITY_CMD_CHECK_H

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/results.h"

typedef struct run_args run_args;
struct run_args {
    const px_command *command;
    const char *fixture, *id, *output, *executor, *python, *backend_lib, *format;
    const char *envs[CLI_REPEAT_MAX + 1], *results[CLI_REPEAT_MAX], *modules[CLI_REPEAT_MAX]; /* each repeatable */
    int n_envs, n_results, n_modules, quiet;
    const char *compile_backends[CLI_REPEAT_MAX]; /* --compile-backend ENV=NAME */
    int n_compile_backends;
    int no_run;               /* --no-run: nothing runs here */
    double budget_s;          /* --budget; 0: none */
    long max_examples;        /* --max-examples; 0: none */
    int batches[5];           /* bench: --endpoint, repeatable (1 single, N batch:N,
                                 -N train-step:N) */
    int n_endpoints;
    long warmup, iters;       /* bench: -1 when not given */
    double min_time_s;        /* bench: 0 when not given */
    px_shard shard; /* run --shard I/N; count 0: every example */
    int since_good;                 /* check --since-good */
    struct px_history *history;     /* check: the last good configurations, read before anything runs */
    int (*finish)(const run_args *a, const px_fixture *f, const px_results *res);
};

typedef int (*run_finish_fn)(const run_args *a, const px_fixture *f, const px_results *res);

/* run's and bench's results file: -o, else results.yaml beside the
 * fixture ("-": stdout); says where on stdout. 0, or the exit status. */
int check_write_results(const run_args *a, const px_fixture *f, const px_results *res);
/* Exit 5 when some environment's run was cut short (here or in a results
 * file), said once per environment on stderr; else rc. */
int check_cut_short_exit(const px_results *res, int rc);

/* The whole command: its exit status. */
int check_command(const char *command, int argc, char **argv, run_finish_fn finish);

#endif
