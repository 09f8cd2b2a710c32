/* parity lint FIXTURE: the findings on stdout, one line each, so they can be
 * piped or read by an editor; exit 0 none, 1 some, 2 when there is no
 * fixture to lint (unreadable, not YAML, bad command line). */
#include <stdio.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/describe.h"
#include "parity/error.h"
#include "parity/lint.h"

static int on_arg(void *ctx, const px_option *o, const char *v)
{
    const char **path = ctx;
    const px_command *c = cli_command("lint");
    if (o) /* lint takes none of the table's: cli_parse said so already */
        return cli_usage_error(c, "--%s is not an option of lint", o->long_name);
    if (*path)
        return cli_usage_error(c, "one fixture at a time, got '%s' too", v);
    *path = v;
    return 0;
}

/* lint's describer: the model's own executor, found as run finds it,
 * asked DESCRIBE (describe.h); an export needs the Python one. Any failure
 * (no executor here, a model this torch cannot load) leaves the model
 * undescribed: run says those, lint does not guess. Its stderr is quiet. */
static int describe_for_lint(void *ctx, const char *path, enum px_model_format fmt, enum px_model_kind kind,
                             px_lint_model *m)
{
    (void)ctx;
    px_describe d = {0};
    px_error err = {0};
    if (describe_model_kind(path, fmt, kind, fmt != PX_FORMAT_TORCHSCRIPT, NULL, 60, &d, &err))
        return -1;
    m->head = d.head;
    m->max_positions = d.max_positions;
    m->hidden = d.hidden;
    describe_free(&d);
    return 0;
}

int cmd_lint(int argc, char **argv)
{
    const px_command *c = cli_command("lint");
    const char *path = NULL;
    int rc = cli_parse(c, argc, argv, on_arg, &path);
    if (rc != CLI_PARSED)
        return rc;
    if (!path)
        return cli_usage_error(c, "which fixture?");
    px_error err = {0};
    px_lint l;
    if (lint_fixture_described(path, describe_for_lint, NULL, &l, &err)) {
        cli_error(&err);
        return PX_EXIT_USAGE;
    }
    lint_print(stdout, path, &l);
    rc = l.n ? PX_EXIT_FAILED : PX_EXIT_OK;
    lint_free(&l);
    /* Output is only written when there are findings, so a failed write
     * cannot turn them into a pass: the status is 1 either way. */
    return rc;
}
