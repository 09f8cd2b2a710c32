/* A report a person can be handed (parity report): the story
 * (include/parity/story.h) as one self-contained HTML file. It says the
 * same things in the same order as the Markdown report (report_md.h) and
 * never shows a redacted value. */
#ifndef PARITY_REPORT_HTML_H
#define PARITY_REPORT_HTML_H

#include <stdio.h>

#include "parity/story.h"

/* Inline CSS (light, dark and print), inline SVG, no script, nothing
 * fetched from anywhere; every text escaped. */
void report_html(FILE *o, const px_story *s);
/* The same, with what the story does not hold taken from the judgement it
 * was told from (j NULL: as report_html): an embedding's searches, each
 * query's first k per environment as a bump chart. */
void report_html_judged(FILE *o, const px_story *s, const px_judgement *j);

#endif
