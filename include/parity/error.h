/* Errors are values: a library function that can fail fills a px_error and
 * returns a non-zero status; only main (or the TUI) decides how to show it.
 * The rendered form is one line: "file:line:col: message" when a location is
 * known, "file: message" when only the file is, and "message" otherwise. */
#ifndef PARITY_ERROR_H
#define PARITY_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of the parity command: one table (px_exit_table, below), from
 * which --help prints them and against which man/parity.1 is checked.
 * Scripts depend on these numbers: they never change meaning. */
enum px_exit {
    PX_EXIT_OK = 0,        /* the contract is met (run: ran, results written) */
    PX_EXIT_FAILED = 1,    /* the contract is not met (lint: findings) */
    PX_EXIT_USAGE = 2,     /* bad input or usage: command line, fixture, results
                              file, theme, model or vocab */
    PX_EXIT_ENV = 3,       /* an environment could not run, or has no results */
    PX_EXIT_IO = 4,        /* a file could not be written (results, fixture) */
    PX_EXIT_CUT_SHORT = 5, /* the run was cut short (budget, --max-examples,
                              interrupt) */
    PX_EXIT_INTERNAL = 70, /* an internal error, such as running out of memory */
};

typedef struct px_exit_info {
    int code;
    const char *meaning;
} px_exit_info;

/* Every exit code, from the most to the least precedent: when several apply,
 * the one listed first is returned (px_exit_worse). */
extern const px_exit_info px_exit_table[];
extern const int px_exit_count;

/* Of two exit codes, the one that takes precedence. */
int px_exit_worse(int a, int b);

typedef struct px_error {
    int code;            /* one of enum px_exit; 0 means "no error" */
    char file[512];      /* "" when not tied to a file */
    int line;            /* 1-based; 0 when unknown */
    int col;             /* 1-based; 0 when unknown */
    char msg[1024];
} px_error;

/* Running out of memory, wherever it happens: one exit status
 * (PX_EXIT_INTERNAL), one message. Returns -1. */
int px_error_oom(px_error *err, const char *file);
/* Set *err (if not NULL); returns -1 so callers can `return px_error_set(...)`. */
int px_error_set(px_error *err, int code, const char *file, int line, int col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Render "file:line:col: msg" into buf (always NUL-terminated). */
void px_error_format(const px_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
