/* parity: is the result on the new accelerator still the same result?
 * main only dispatches; each command lives in its own file. */
#include <stdio.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/version.h"

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
            if (cli_command_takes(c, o))
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
    /* parity [--max-size MIB] WORD ...: argv[k] is the word. */
    int k = cli_parse_leading(argc, argv);
    if (k < 0)
        return PX_EXIT_USAGE;
    if (k == argc) {
        cli_usage(stderr);
        return PX_EXIT_USAGE;
    }
    const char *w = argv[k];
    if (!strcmp(w, "__complete"))
        return complete(argc - k + 1, argv + k - 1);
    if (!strcmp(w, "--version") || !strcmp(w, "-V")) {
        printf("parity %s\n", PX_VERSION);
        return PX_EXIT_OK;
    }
    if (!strcmp(w, "--help") || !strcmp(w, "-h") || (!strcmp(w, "help") && k + 1 == argc)) {
        cli_usage(stdout);
        return PX_EXIT_OK;
    }
    /* parity COMMAND ...: its own parser (cli_parse) sees argv[k + 1] on,
     * its --help included. */
    const px_command *c = cli_command(w);
    if (c)
        return c->run(argc - k, argv + k);
    /* parity help COMMAND */
    if (k + 2 == argc && !strcmp(w, "help") && (c = cli_command(argv[k + 1]))) {
        cli_command_usage(stdout, c);
        return PX_EXIT_OK;
    }
    /* parity FIXTURE: the review screen. */
    if (w[0] != '-' && (strstr(w, ".yaml") || strstr(w, ".yml") || strchr(w, '/')))
        return cmd_review(argc - k + 1, argv + k - 1);
    return cli_usage_error(NULL, "unknown command '%s'", w);
}
