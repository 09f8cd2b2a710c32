/* The check pipeline shared by check, report, export and repro (private
 * to src/cmd): parse the command line, load the fixture, gather one result
 * per environment (run here, or read from results files), run what runs
 * here, then call the command's finish with the results. */
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
    int since_good;                 /* check --since-good */
    struct px_history *history;     /* check: the last good configurations, read before anything runs */
    int (*finish)(const run_args *a, const px_fixture *f, const px_results *res);
};

typedef int (*run_finish_fn)(const run_args *a, const px_fixture *f, const px_results *res);

/* The whole command: its exit status. */
int check_command(const char *command, int argc, char **argv, run_finish_fn finish);

#endif
