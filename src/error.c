#include "parity/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int px_error_set(px_error *err, int code, const char *file, int line, int col,
                 const char *fmt, ...)
{
    if (!err)
        return -1;
    err->code = code;
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
