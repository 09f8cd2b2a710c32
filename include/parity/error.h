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

/* Exit codes of the parity command (documented in man/parity.1). */
enum px_exit {
    PX_EXIT_OK = 0,       /* ran; results written */
    PX_EXIT_FAILED = 1,   /* (check) some example does not meet the contract */
    PX_EXIT_USAGE = 2,    /* bad command line, fixture, model or vocab */
    PX_EXIT_ENV = 3,      /* an environment could not run at all */
    PX_EXIT_IO = 4,       /* results could not be written */
};

typedef struct px_error {
    int code;            /* one of enum px_exit; 0 means "no error" */
    char file[512];      /* "" when not tied to a file */
    int line;            /* 1-based; 0 when unknown */
    int col;             /* 1-based; 0 when unknown */
    char msg[1024];
} px_error;

/* Set *err (if not NULL); returns -1 so callers can `return px_error_set(...)`. */
int px_error_set(px_error *err, int code, const char *file, int line, int col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Render "file:line:col: msg" into buf (always NUL-terminated). */
void px_error_format(const px_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
