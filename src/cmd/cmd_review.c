/* parity review FIXTURE (also plain `parity FIXTURE`): argument parsing for
 * the review screen. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/tui.h"

int cmd_review(int argc, char **argv)
{
    px_tui_opts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--demo"))
            o.demo = 1;
        else if (!strncmp(a, "--color=", 8))
            o.color = a + 8;
        else if ((!strcmp(a, "--results") || !strcmp(a, "--theme") || !strcmp(a, "--reviewer") || !strcmp(a, "-r") ||
                  !strcmp(a, "--executor") || !strcmp(a, "--backend-lib") || !strcmp(a, "-e") ||
                  !strcmp(a, "--env") || !strcmp(a, "--python") || !strcmp(a, "--backend-module")) && v) {
            i++;
            if ((!strcmp(a, "--results") && o.n_results == 64) || ((a[1] == 'e' || !strcmp(a, "--env")) && o.n_envs == 64) ||
                (!strcmp(a, "--backend-module") && o.n_modules == 64)) {
                fprintf(stderr, "parity review: at most 64 %s options\n", a);
                return PX_EXIT_USAGE;
            }
            if (!strcmp(a, "--results")) o.results[o.n_results++] = v;
            else if (!strcmp(a, "--theme")) o.theme = v;
            else if (!strcmp(a, "--executor")) o.executor = v;
            else if (!strcmp(a, "--backend-lib")) o.backend_lib = v;
            else if (!strcmp(a, "--python")) o.python = v;
            else if (!strcmp(a, "--backend-module")) o.modules[o.n_modules++] = v;
            else if (a[1] == 'e' || !strcmp(a, "--env")) o.envs[o.n_envs++] = v;
            else o.reviewer = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "parity review: unknown option or missing value: %s (try parity review --help)\n", a);
            return PX_EXIT_USAGE;
        } else if (!o.fixture) {
            o.fixture = a;
        } else {
            fprintf(stderr, "parity review: one fixture at a time (got '%s' too)\n", a);
            return PX_EXIT_USAGE;
        }
    }
    if (!o.fixture) {
        fprintf(stderr, "parity review: which fixture? (try parity review --help)\n");
        return PX_EXIT_USAGE;
    }
    if (o.color && strcmp(o.color, "auto") && strcmp(o.color, "always") && strcmp(o.color, "never")) {
        fprintf(stderr, "parity review: --color must be auto, always or never, not '%s'\n", o.color);
        return PX_EXIT_USAGE;
    }
    return tui_main(&o);
}
