/* The commands that judge or run a fixture (run, check, bench, report,
 * export, repro; private to src/cmd, cmd_check.c): parse the command line
 * into the command's own options, load the fixture, open the check session
 * (include/parity/session.h: one result per environment, run here or read
 * from results files; what runs here runs), then call the command's
 * finish with the session.
 *
 * A command is data, a check_cmd: its options struct (check_args first,
 * then its own fields), a table binding each of its own options to a
 * field (as git's parse-options does), the session it opens, and its
 * steps. Nothing here asks which command it is by name. */
#ifndef PARITY_CMD_CHECK_H
#define PARITY_CMD_CHECK_H

#include <stddef.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/results.h"
#include "parity/session.h"

/* A repeatable option's values, in the order given (one place more: repro
 * adds the reference beside the environment named). */
typedef struct cmd_list {
    const char *v[CLI_REPEAT_MAX + 1];
    int n;
} cmd_list;

typedef struct check_cmd check_cmd;

/* What every one of these commands takes; each command's options struct
 * begins with it. */
typedef struct check_args {
    const check_cmd *cmd;
    const px_command *command; /* its row of the CLI table (cli.h) */
    const char *fixture, *output, *executor, *python, *backend_lib;
    cmd_list envs, results, modules, compile_backends; /* --compile-backend ENV=NAME */
    int quiet;
    int no_run;         /* --no-run: nothing runs here */
    double budget_s;    /* --budget; 0: none */
    long max_examples;  /* --max-examples; 0: none */
} check_args;

/* Sets the field at `field` from an option's value (NULL for a flag): 0,
 * or the exit status after saying why (cli_usage_error of c). */
typedef int (*opt_set_fn)(const px_command *c, const char *v, void *field);

/* One option bound to a field of a command's options struct. */
typedef struct opt_bind {
    px_opt opt;
    size_t at;      /* offsetof the field */
    opt_set_fn set;
} opt_bind;

/* The setters of plain fields: const char * (a later one replaces an
 * earlier one), int flag, cmd_list. */
int opt_text(const px_command *c, const char *v, void *field);
int opt_flag(const px_command *c, const char *v, void *field);
int opt_list(const px_command *c, const char *v, void *field);

struct check_cmd {
    const char *name;          /* its row of the CLI table */
    size_t size;               /* its options struct, check_args first */
    const opt_bind *own;       /* its own options (beyond check_args'), up
                                  to one with opt PX_OPT_COUNT */
    size_t id_at;              /* FIXTURE ID: the second word's field (a
                                  const char *); 0: one word only */
    px_session_kind kind;      /* what the session runs */
    px_session_history history;
    const char *doing;         /* for the unpinned model's refusal */
    /* After the command line: what it must name (NULL: nothing more);
     * CLI_PARSED, or the exit status after saying why. */
    int (*parsed)(const void *opts);
    /* With the fixture read, before the session opens: refuse what it
     * cannot do, add to the session's options (NULL: nothing); 0, or the
     * exit status after saying why. */
    int (*prepare)(void *opts, const px_fixture *f, px_session_opts *o);
    /* With the session's results: what the command does; its exit status. */
    int (*finish)(const void *opts, px_check *s);
};

/* run's and bench's results file: -o, else results.yaml beside the
 * fixture ("-": stdout); says where on stdout. 0, or the exit status. */
int check_write_results(const check_args *a, const px_fixture *f, const px_results *res);
/* Exit 5 when some environment's run was cut short (here or in a results
 * file), said once per environment on stderr; else rc. */
int check_cut_short_exit(const px_results *res, int rc);

/* The whole command: its exit status. */
int check_command(const check_cmd *cmd, int argc, char **argv);

#endif
