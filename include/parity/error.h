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

/* Why something failed: what a caller may act on (the review screen tells a
 * fixture that changed on disk from one that is malformed by this, never by
 * the text of the message). Each reason has one exit status, in one table
 * (px_reason_table); values are apart from the exit statuses so that one
 * passed for the other is caught (px_error_set makes it "internal"). */
typedef enum px_reason {
    PX_ERR_NONE = 0,
    PX_ERR_USAGE = 16,  /* the command line, or an action not possible now */
    PX_ERR_NOT_FOUND,   /* a file, environment or example named does not exist or cannot be read */
    PX_ERR_MALFORMED,   /* a file's content is refused: syntax, schema, encoding, a contradiction */
    PX_ERR_TOO_LARGE,   /* a file is over its size limit (refused before parsing) */
    PX_ERR_MISMATCH,    /* a file or model is not what the fixture says (sha256 pin, label count) */
    PX_ERR_STALE,       /* a file changed on disk since it was read */
    PX_ERR_ENV,         /* an environment or its executor could not start or run */
    PX_ERR_WRITE,       /* a file could not be written (the old one is untouched) */
    PX_ERR_NO_MEMORY,   /* out of memory, wherever it happens */
    PX_ERR_INTERNAL,    /* a bug in parity: please report it */
    PX_ERR_END
} px_reason;

typedef struct px_reason_info {
    px_reason reason;
    const char *name; /* as in a JSON report or a test: "not-found" */
    int code;         /* the exit status */
} px_reason_info;

extern const px_reason_info px_reason_table[];
extern const int px_reason_count;
/* The name of a reason ("not-found"); "internal" for an unknown one. */
const char *px_reason_name(px_reason r);
/* The exit status of a reason (PX_EXIT_INTERNAL for an unknown one). */
int px_reason_exit(px_reason r);

typedef struct px_error {
    px_reason reason;    /* PX_ERR_NONE: no error */
    int code;            /* the exit status of the reason (px_reason_exit);
                            0 means "no error" */
    char file[512];      /* "" when not tied to a file */
    int line;            /* 1-based; 0 when unknown */
    int col;             /* 1-based; 0 when unknown */
    char msg[1024];
} px_error;

/* Running out of memory, wherever it happens: one reason
 * (PX_ERR_NO_MEMORY, exit PX_EXIT_INTERNAL), one message. Returns -1. */
int px_error_oom(px_error *err, const char *file);
/* Set *err (if not NULL); returns -1 so callers can `return px_error_set(...)`. */
int px_error_set(px_error *err, px_reason reason, const char *file, int line, int col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Render "file:line:col: msg" into buf (always NUL-terminated). */
void px_error_format(const px_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
