/* parity: is the result on the new accelerator still the same result?
 * main only dispatches; each command lives in its own file. */
#include <stdio.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/version.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return PX_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("parity %s\n", PX_VERSION);
        return PX_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        cli_usage(stdout);
        return PX_EXIT_OK;
    }
    for (const px_command *c = cli_commands; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->run(argc - 1, argv + 1);
    /* parity FIXTURE: the review screen. */
    if (argv[1][0] != '-' && (strstr(argv[1], ".yaml") || strstr(argv[1], ".yml") || strchr(argv[1], '/')))
        return cmd_review(argc, argv);
    fprintf(stderr, "parity: unknown command '%s' (try parity --help)\n", argv[1]);
    return PX_EXIT_USAGE;
}
