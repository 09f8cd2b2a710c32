/* Reports a person can be handed (parity report): the story
 * (include/parity/story.h) as Markdown (src/report_md.c) or as one
 * self-contained HTML file (src/report_html.c). Both say the same things in
 * the same order; neither shows a redacted value. */
#ifndef PARITY_REPORT_DOC_H
#define PARITY_REPORT_DOC_H

#include <stdio.h>

#include "parity/story.h"

void report_markdown(FILE *o, const px_story *s);
/* Inline CSS (light, dark and print), inline SVG, no script, nothing
 * fetched from anywhere; every text escaped. */
void report_html(FILE *o, const px_story *s);

#endif
