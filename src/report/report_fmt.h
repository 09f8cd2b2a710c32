/* The reports' text as Markdown and as HTML (report_fmt.c): how report_md.c,
 * report_html.c and the kinds' report parts (rk_<kind>.c) write a text that
 * came from a fixture, a run or a person, so that each kind's cell and
 * section is escaped as the rest of its report. */
#ifndef PARITY_REPORT_FMT_H
#define PARITY_REPORT_FMT_H

#include <stdio.h>

/* s as Markdown text: sanitized (control and bidi characters as visible
 * escapes), every character Markdown or a forge's HTML would act on
 * backslash-escaped; md_cell_text for a table's cell escapes | too. NULL
 * writes nothing. */
void md_text(FILE *o, const char *s);
void md_cell_text(FILE *o, const char *s);

/* s as HTML text: sanitized, then & < > " ' as entities (NULL writes
 * nothing); html_tag puts it between open and close, written as they are. */
void html_text(FILE *o, const char *s);
void html_tag(FILE *o, const char *open, const char *s, const char *close);

/* s as a name in a bundle's path (a kind's export_example: an example's
 * id, an environment's name): letters, digits, '.', '-' and '_' kept,
 * anything else '_' (a leading '.' too), at most 80 bytes. */
void report_safe_name(char *out, size_t size, const char *s);

#endif
