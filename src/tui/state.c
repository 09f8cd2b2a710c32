/* The review screen's state (state.h): what the status line says. */
#include "state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "parity/redact.h"

void tui_say(tui *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    /* What the screen says may be shown to a colleague or on a shared
     * screen: secrets and the home directory are redacted here too. */
    char *red = t->rd ? redact_text(t->rd, t->msg) : NULL;
    if (red)
        snprintf(t->msg, sizeof t->msg, "%s", red);
    free(red);
}
