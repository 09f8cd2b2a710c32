/* The review screen's summary (summary.c): the story the reports tell. */
#ifndef PARITY_TUI_SUMMARY_H
#define PARITY_TUI_SUMMARY_H

#include "state.h"

/* The story (story.h) of what the screen shows now; NULL with *err while a
 * run is still going. */
struct px_story *tui_story(tui *t, px_error *err);
/* The summary screen, scrolled to t->summary_top. */
void tui_draw_summary(tui *t);

#endif
