/* The command line: one table of commands and options from which --help is
 * printed and against which the man page is checked (tests/test_cli.c). */
#ifndef PARITY_CLI_H
#define PARITY_CLI_H

#include <stdio.h>

typedef struct px_option {
    char short_name;     /* 0 when none */
    const char *long_name;
    const char *arg;     /* NULL for a flag */
    const char *help;
} px_option;

typedef struct px_command {
    const char *name;
    const char *synopsis;
    const char *help;
    int (*run)(int argc, char **argv);
    const char *options; /* the long names of its options, space-separated
                            (--max-size and --help go with every command) */
} px_command;

extern const px_option cli_options[];
extern const px_command cli_commands[];

void cli_usage(FILE *out);
/* parity COMMAND --help: its synopsis, what it does, its options. */
void cli_command_usage(FILE *out, const px_command *c);
/* Whether the command takes the option (by long name). */
int cli_command_has_option(const px_command *c, const char *long_name);
const px_command *cli_command(const char *name);
/* The option of the table with this long name, NULL when none. */
const px_option *cli_option(const char *long_name);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_review(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_init(int argc, char **argv);

#endif
