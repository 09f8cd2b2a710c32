/* parity: is the result on the new accelerator still the same result?
 * main only dispatches; each command lives in its own file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/version.h"
#include "parity/ydoc.h"

/* --max-size MIB (or --max-size=MIB), anywhere on the command line of any
 * command: the size limit for every fixture and results file read. Taken
 * out of argv here so each command's parser never sees it. 0: parsed; 2:
 * a bad value (reported). */
static int take_max_size(int *argc, char **argv)
{
    for (int i = 1; i < *argc; i++) {
        const char *v = NULL;
        int used = 0;
        if (!strcmp(argv[i], "--max-size") && i + 1 < *argc)
            v = argv[i + 1], used = 2;
        else if (!strncmp(argv[i], "--max-size=", 11))
            v = argv[i] + 11, used = 1;
        else if (!strcmp(argv[i], "--max-size")) {
            fprintf(stderr, "parity: --max-size needs a size in MiB (try parity --help)\n");
            return PX_EXIT_USAGE;
        }
        if (!used)
            continue;
        char *end;
        errno = 0;
        double mb = strtod(v, &end);
        if (end == v || *end || errno || !(mb > 0) || mb > 1048576) {
            fprintf(stderr, "parity: --max-size must be a size in MiB above 0 (up to 1048576), not '%s'\n", v);
            return PX_EXIT_USAGE;
        }
        ydoc_set_max_mb(mb);
        memmove(&argv[i], &argv[i + used], (size_t)(*argc - i - used + 1) * sizeof *argv);
        *argc -= used;
        i--;
    }
    return 0;
}

/* parity __complete WHAT [ARG]: the words bash completion offers
 * (src/completion/parity.bash): commands, a command's options, and the
 * environment names or example ids of a fixture, read by the real loader.
 * Quiet on a fixture that does not load: completion must not print errors
 * into a command line. */
static int complete(int argc, char **argv)
{
    const char *what = argc > 2 ? argv[2] : "";
    if (!strcmp(what, "commands")) {
        for (const px_command *c = cli_commands; c->name; c++)
            printf("%s\n", c->name);
        return PX_EXIT_OK;
    }
    if (!strcmp(what, "options") && argc > 3) {
        const px_command *c = cli_command(argv[3]);
        for (const px_option *o = cli_options; c && o->long_name; o++)
            if (cli_command_has_option(c, o->long_name) || !strcmp(o->long_name, "max-size"))
                printf("--%s\n", o->long_name);
        printf("--help\n");
        return PX_EXIT_OK;
    }
    if ((!strcmp(what, "envs") || !strcmp(what, "ids")) && argc > 3) {
        px_error err = {0};
        px_fixture *f = fixture_load(argv[3], &err);
        for (size_t i = 0; f && what[0] == 'e' && i < f->n_envs; i++)
            printf("%s\n", f->envs[i].name);
        for (size_t i = 0; f && what[0] == 'i' && i < f->n_examples; i++)
            printf("%s\n", f->examples[i].id);
        fixture_free(f);
        return PX_EXIT_OK;
    }
    return PX_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (take_max_size(&argc, argv))
        return PX_EXIT_USAGE;
    if (argc < 2) {
        cli_usage(stderr);
        return PX_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "__complete"))
        return complete(argc, argv);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("parity %s\n", PX_VERSION);
        return PX_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc == 2)) {
        cli_usage(stdout);
        return PX_EXIT_OK;
    }
    const px_command *c = cli_command(argv[1]);
    /* parity COMMAND --help (anywhere on its line), or -h first. */
    for (int i = 2; c && i < argc; i++)
        if (!strcmp(argv[i], "--help") || (i == 2 && !strcmp(argv[i], "-h"))) {
            cli_command_usage(stdout, c);
            return PX_EXIT_OK;
        }
    if (c)
        return c->run(argc - 1, argv + 1);
    /* parity help COMMAND */
    if (argc == 3 && !strcmp(argv[1], "help") && (c = cli_command(argv[2]))) {
        cli_command_usage(stdout, c);
        return PX_EXIT_OK;
    }
    /* parity FIXTURE: the review screen. */
    if (argv[1][0] != '-' && (strstr(argv[1], ".yaml") || strstr(argv[1], ".yml") || strchr(argv[1], '/')))
        return cmd_review(argc, argv);
    fprintf(stderr, "parity: unknown command '%s' (try parity --help)\n", argv[1]);
    return PX_EXIT_USAGE;
}
