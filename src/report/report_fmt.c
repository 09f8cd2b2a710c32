/* The reports' text as Markdown and as HTML (report_fmt.h). */
#include "report_fmt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "parity/textcell.h"

/* Sanitized, then every character Markdown or a forge's HTML would act
 * on escaped; in a table cell (cell = 1), | too. */
static void md_put(FILE *o, const char *s, int cell)
{
    if (!s)
        return;
    char *v = textcell_sanitize(s, strlen(s));
    const char *t = v ? v : "?";
    for (const char *p = t; *p; p++) {
        /* _ and * inside a word emphasize nothing: left as they are */
        int inword = (*p == '_' || *p == '*') && p > t && isalnum((unsigned char)p[-1]) &&
                     isalnum((unsigned char)p[1]);
        if ((strchr("\\`*_[]<>&~", *p) && !inword) || (cell && *p == '|'))
            fputc('\\', o);
        fputc(*p, o);
    }
    free(v);
}

void md_text(FILE *o, const char *s) { md_put(o, s, 0); }
void md_cell_text(FILE *o, const char *s) { md_put(o, s, 1); }

void html_text(FILE *o, const char *s)
{
    if (!s)
        return;
    char *v = textcell_sanitize(s, strlen(s));
    for (const char *p = v ? v : "?"; *p; p++)
        switch (*p) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        case '\'': fputs("&#39;", o); break;
        default: fputc(*p, o);
        }
    free(v);
}

void html_tag(FILE *o, const char *open, const char *s, const char *close)
{
    fputs(open, o);
    html_text(o, s);
    fputs(close, o);
}

void report_safe_name(char *out, size_t size, const char *s)
{
    size_t n = 0;
    for (; s[n] && n + 1 < size && n < 80; n++) {
        char ch = s[n];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                 ch == '_' || (ch == '.' && n);
        out[n] = ok ? ch : '_';
    }
    out[n] = '\0';
}
