#define _GNU_SOURCE /* vasprintf */
#include "parity/strf.h"

#include <stdarg.h>
#include <stdio.h>

char *strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}
