/* The command line: one table of commands and options from which --help is
 * printed, against which the man page is checked (tests/test_cli.c), and by
 * which every command's argv is parsed (cli_parse). */
#ifndef PARITY_CLI_H
#define PARITY_CLI_H

#include <stdio.h>

#include "parity/error.h"

/* The options, in the table's order: cli_options[PX_OPT_ENV] is --env. */
typedef enum px_opt {
    PX_OPT_ENV,
    PX_OPT_OUTPUT,
    PX_OPT_EXECUTOR,
    PX_OPT_BACKEND_LIB,
    PX_OPT_PYTHON,
    PX_OPT_BACKEND_MODULE,
    PX_OPT_COMPILE_BACKEND,
    PX_OPT_QUIET,
    PX_OPT_FORMAT,
    PX_OPT_DECISION,
    PX_OPT_NOTE,
    PX_OPT_REVIEWER,
    PX_OPT_RECOVER,
    PX_OPT_RESULTS,
    PX_OPT_DEMO,
    PX_OPT_THEME,
    PX_OPT_COLOR,
    PX_OPT_MAX_SIZE,
    PX_OPT_MODEL,
    PX_OPT_VOCAB,
    PX_OPT_CASED,
    PX_OPT_TOKENIZER,
    PX_OPT_LABELS,
    PX_OPT_TEXTS,
    PX_OPT_PROPOSE,
    PX_OPT_BUDGET,
    PX_OPT_MAX_EXAMPLES,
    PX_OPT_ENDPOINT,
    PX_OPT_WARMUP,
    PX_OPT_ITERS,
    PX_OPT_MIN_TIME,
    PX_OPT_SHARD,
    PX_OPT_SINCE_GOOD,
    PX_OPT_NO_RUN,
    PX_OPT_COUNT
} px_opt;

/* How many times a repeatable option may be given (the commands' arrays). */
#define CLI_REPEAT_MAX 64

typedef struct px_option {
    char short_name;     /* 0 when none */
    const char *long_name;
    const char *arg;     /* NULL for a flag */
    const char *help;
    const char *choices; /* the values it takes, "a|b|c"; NULL: any (a
                            command's list may name others: px_command) */
    int max;             /* repeatable up to this many times; 0: once (a
                            later one replaces an earlier one) */
} px_option;

typedef struct px_command {
    const char *name;
    const char *synopsis;
    const char *help;
    int (*run)(int argc, char **argv);
    const char *options; /* the long names of its options, space-separated
                            (--max-size and --help go with every command);
                            "NAME=a|b" gives the values it takes here */
} px_command;

/* A duration as --budget and --min-time take it: a number of seconds, or
 * numbers with units ms, s, m, h, in decreasing order ("90s", "5m", "1h",
 * "1h30m", "2.5s", "250ms"; a bare "90" is seconds). 0 and *seconds set, or
 * -1 when it is not one or not above 0. */
int cli_duration(const char *s, double *seconds);
/* A whole number from 1 to max ("3"); 0 and *n set, or -1. */
int cli_count(const char *s, long max, long *n);

/* PX_OPT_COUNT entries, then one with long_name NULL. */
extern const px_option cli_options[];
extern const px_command cli_commands[];

void cli_usage(FILE *out);
/* parity COMMAND --help: its synopsis, what it does, its options. */
void cli_command_usage(FILE *out, const px_command *c);
/* Whether the command's list names the option (by long name). */
int cli_command_has_option(const px_command *c, const char *long_name);
/* The values the option takes in the command ("a|b|c": the command's list's,
 * else the table's), NULL for any; c NULL: the table's. */
const char *cli_choices(const px_command *c, const px_option *o);
/* Whether the command takes the option: its list's, or one every command
 * takes (--max-size). */
int cli_command_takes(const px_command *c, const px_option *o);
const px_command *cli_command(const char *name);
/* The option of the table with this long name, NULL when none. */
const px_option *cli_option(const char *long_name);
static inline px_opt cli_opt_id(const px_option *o) { return (px_opt)(o - cli_options); }

/* Called for each argument in the order given: opt NULL and value the word
 * for a positional; else the option and its value (NULL for a flag).
 * Returns 0 to go on, or the exit status to stop with, having said why
 * (cli_usage_error). */
typedef int (*cli_on_arg)(void *ctx, const px_option *opt, const char *value);

/* What cli_parse returns when the command is to run. */
#define CLI_PARSED (-1)

/* Parses the arguments of command c, argv[1] to argv[argc - 1] (argv[0],
 * the command's name, is skipped), in order, calling fn for each:
 * "--long VALUE", "--long=VALUE", "-x VALUE", flags ("--flag", "-x"; an
 * "=VALUE" on a flag is refused), "--" (every word after it is a
 * positional) and "-" alone (a positional: standard input or output).
 * An option's value is checked against its choices and its repeats against
 * its max. --max-size MIB is taken here (ydoc_set_max_mb), never passed
 * to fn. --help or -h anywhere (before "--") prints the command's usage
 * on stdout and nothing else is done.
 * Returns CLI_PARSED when the command is to run; else the exit status to
 * return at once: PX_EXIT_OK after --help, PX_EXIT_USAGE after a refused
 * command line (one line on stderr, cli_usage_error's), or what fn
 * returned. */
int cli_parse(const px_command *c, int argc, char **argv, cli_on_arg fn, void *ctx);

/* Say err on stderr, one line ("parity: file:line:col: message"); its exit
 * status. */
int cli_error(const px_error *err);

/* parity [--max-size MIB]... WORD ...: takes the options that go before a
 * command (the ones every command takes) as cli_parse would. Returns the
 * index of the first other word (argc when there is none), or -1 after a
 * usage error (reported). */
int cli_parse_leading(int argc, char **argv);

/* A usage error of command c (NULL: of parity itself), in the one shape:
 * "parity CMD: MESSAGE (try parity CMD --help)", one line on stderr.
 * Returns PX_EXIT_USAGE. */
int cli_usage_error(const px_command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_review(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
