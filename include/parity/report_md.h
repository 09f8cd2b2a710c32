/* A report a person can be handed (parity report): the story
 * (include/parity/story.h) as Markdown. It says the same things in the same
 * order as the HTML report (report_html.h) and never shows a redacted
 * value. */
#ifndef PARITY_REPORT_MD_H
#define PARITY_REPORT_MD_H

#include <stdio.h>

#include "parity/story.h"

void report_markdown(FILE *o, const px_story *s);
/* The same, with what the story does not hold taken from the judgement it
 * was told from (j NULL: as report_markdown): an embedding's searches,
 * each query's first k per environment. */
void report_markdown_judged(FILE *o, const px_story *s, const px_judgement *j);

#endif
