/* parity lint FIXTURE: the findings on stdout, one line each, so they can be
 * piped or read by an editor; exit 0 none, 1 some, 2 when there is no
 * fixture to lint (unreadable, not YAML, bad command line). */
#include <stdio.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/error.h"
#include "parity/lint.h"

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "parity lint: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try parity lint --help)\n");
    return PX_EXIT_USAGE;
}

int cmd_lint(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        /* lint takes no options; "-" alone is a file name like any other */
        if (argv[i][0] == '-' && argv[i][1])
            return usage_error("unknown option: %s", argv[i]);
        if (path)
            return usage_error("one fixture at a time (got '%s' too)", argv[i]);
        path = argv[i];
    }
    if (!path)
        return usage_error("which fixture?%s", "");
    px_error err = {0};
    px_lint l;
    if (lint_fixture(path, &l, &err)) {
        char line[2048];
        px_error_format(&err, line, sizeof line);
        fprintf(stderr, "parity: %s\n", line);
        return PX_EXIT_USAGE;
    }
    lint_print(stdout, path, &l);
    int rc = l.n ? PX_EXIT_FAILED : PX_EXIT_OK;
    lint_free(&l);
    /* Output is only written when there are findings, so a failed write
     * cannot turn them into a pass: the status is 1 either way. */
    return rc;
}
