#include "parity/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const px_reason_info px_reason_table[] = {
    {PX_ERR_USAGE, "usage", PX_EXIT_USAGE},
    {PX_ERR_NOT_FOUND, "not-found", PX_EXIT_USAGE},
    {PX_ERR_MALFORMED, "malformed", PX_EXIT_USAGE},
    {PX_ERR_TOO_LARGE, "too-large", PX_EXIT_USAGE},
    {PX_ERR_MISMATCH, "mismatch", PX_EXIT_USAGE},
    {PX_ERR_STALE, "stale", PX_EXIT_USAGE},
    {PX_ERR_ENV, "environment", PX_EXIT_ENV},
    {PX_ERR_WRITE, "write", PX_EXIT_IO},
    {PX_ERR_NO_MEMORY, "no-memory", PX_EXIT_INTERNAL},
    {PX_ERR_INTERNAL, "internal", PX_EXIT_INTERNAL},
};
const int px_reason_count = (int)(sizeof px_reason_table / sizeof *px_reason_table);

static const px_reason_info *reason_info(px_reason r)
{
    for (int i = 0; i < px_reason_count; i++)
        if (px_reason_table[i].reason == r)
            return &px_reason_table[i];
    return NULL;
}

const char *px_reason_name(px_reason r)
{
    const px_reason_info *i = reason_info(r);
    return i ? i->name : "internal";
}

int px_reason_exit(px_reason r)
{
    const px_reason_info *i = reason_info(r);
    return i ? i->code : PX_EXIT_INTERNAL;
}

int px_error_set(px_error *err, px_reason reason, const char *file, int line, int col,
                 const char *fmt, ...)
{
    if (!err)
        return -1;
    err->reason = reason_info(reason) ? reason : PX_ERR_INTERNAL;
    err->code = px_reason_exit(err->reason);
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void px_error_format(const px_error *err, char *buf, size_t size)
{
    if (!size)
        return;
    if (err->file[0] && err->line > 0 && err->col > 0)
        snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line, err->col, err->msg);
    else if (err->file[0] && err->line > 0)
        snprintf(buf, size, "%s:%d: %s", err->file, err->line, err->msg);
    else if (err->file[0])
        snprintf(buf, size, "%s: %s", err->file, err->msg);
    else
        snprintf(buf, size, "%s", err->msg);
}

/* Precedence: what was asked could not even start (2) or parity itself
 * failed (70) before anything the run says; a file the caller asked for is
 * missing (4); a partial run (5) or an environment without results (3)
 * leave the verdict incomplete, which is worse than a known failure (1). */
const px_exit_info px_exit_table[] = {
    {PX_EXIT_USAGE, "bad input or usage: the command line, a fixture, a results file or a theme (the message names "
                    "file:line:column), an unpinned or mismatching model or vocabulary"},
    {PX_EXIT_INTERNAL, "an internal error, such as running out of memory"},
    {PX_EXIT_IO, "a file could not be written (results, fixture); the previous one is untouched"},
    {PX_EXIT_CUT_SHORT, "the run was cut short (a budget, --max-examples, an interrupt)"},
    {PX_EXIT_ENV, "an environment could not run, or the contract names one that has no results"},
    {PX_EXIT_FAILED, "the contract is not met in some environment (lint: there are findings)"},
    {PX_EXIT_OK, "the contract is met in every selected environment (run: it ran and the results were written)"},
};
const int px_exit_count = (int)(sizeof px_exit_table / sizeof *px_exit_table);

static int rank_of(int code)
{
    for (int i = 0; i < px_exit_count; i++)
        if (px_exit_table[i].code == code)
            return i;
    return 0; /* unknown: treat as the most severe */
}

int px_exit_worse(int a, int b) { return rank_of(a) <= rank_of(b) ? a : b; }

int px_error_oom(px_error *err, const char *file)
{
    return px_error_set(err, PX_ERR_NO_MEMORY, file, 0, 0, "out of memory");
}
