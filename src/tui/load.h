/* Where the review screen's results come from, as they come (load.c). */
#ifndef PARITY_TUI_LOAD_H
#define PARITY_TUI_LOAD_H

#include "state.h"

/* Every environment the contract names, from where its results come
 * (session.h), opened as so says: with results files, read in the
 * background (a stand-in shown meanwhile); the environments to run here
 * start in the background.
 * -1 with *err when that cannot start. */
int tui_gather(tui *t, const px_session_opts *so, px_error *err);
/* The last good configurations, shown on the ladder (once the results are
 * there); one that cannot be read is said on the status line. */
void tui_load_history(tui *t);
/* Judge the results again (under the runner's lock when one runs). */
void tui_rejudge(tui *t);
/* Empty the runner's wake pipe and judge again; returns PX_RE_ALL
 * (PX_RE_QUIT when the results files could not be read). */
unsigned tui_drain_wake(tui *t);
/* Wait for the results files being read, and take them; what to redraw
 * (PX_RE_QUIT when they could not be read). */
unsigned tui_load_wait(tui *t);

#endif
