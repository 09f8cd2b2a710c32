/* parity review FIXTURE (also plain `parity FIXTURE`): the command line of
 * the review screen. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/tui.h"

/* The table's repeat limit is what the options' arrays hold. */
_Static_assert(sizeof ((px_tui_opts *)0)->envs / sizeof *((px_tui_opts *)0)->envs == CLI_REPEAT_MAX &&
                   sizeof ((px_tui_opts *)0)->results / sizeof *((px_tui_opts *)0)->results == CLI_REPEAT_MAX &&
                   sizeof ((px_tui_opts *)0)->modules / sizeof *((px_tui_opts *)0)->modules == CLI_REPEAT_MAX &&
                   sizeof ((px_tui_opts *)0)->compile_backends / sizeof *((px_tui_opts *)0)->compile_backends ==
                       CLI_REPEAT_MAX,
               "px_tui_opts holds CLI_REPEAT_MAX of each repeatable option");

static int on_arg(void *ctx, const px_option *opt, const char *v)
{
    px_tui_opts *o = ctx;
    if (!opt) {
        if (o->fixture)
            return cli_usage_error(cli_command("review"), "one fixture at a time, got '%s' too", v);
        o->fixture = v;
        return 0;
    }
    switch (cli_opt_id(opt)) {
    case PX_OPT_DEMO: o->demo = 1; break;
    case PX_OPT_COLOR: o->color = v; break;
    case PX_OPT_THEME: o->theme = v; break;
    case PX_OPT_REVIEWER: o->reviewer = v; break;
    case PX_OPT_EXECUTOR: o->executor = v; break;
    case PX_OPT_BACKEND_LIB: o->backend_lib = v; break;
    case PX_OPT_PYTHON: o->python = v; break;
    case PX_OPT_RESULTS: o->results[o->n_results++] = v; break;
    case PX_OPT_ENV: o->envs[o->n_envs++] = v; break;
    case PX_OPT_NO_RUN: o->no_run = 1; break;
    case PX_OPT_BACKEND_MODULE: o->modules[o->n_modules++] = v; break;
    case PX_OPT_COMPILE_BACKEND: o->compile_backends[o->n_compile_backends++] = v; break;
    default: return cli_usage_error(cli_command("review"), "--%s is not an option of review", opt->long_name);
    }
    return 0;
}

int cmd_review(int argc, char **argv)
{
    const px_command *c = cli_command("review");
    px_tui_opts o = {0};
    int rc = cli_parse(c, argc, argv, on_arg, &o);
    if (rc != CLI_PARSED)
        return rc;
    if (!o.fixture)
        return cli_usage_error(c, "which fixture?");
    return tui_main(&o);
}
