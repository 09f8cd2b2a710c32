/* The review screen's key-script driver for tests (script.c). */
#ifndef PARITY_TUI_SCRIPT_H
#define PARITY_TUI_SCRIPT_H

#include "state.h"

/* One line of the key script: keys go into queue (at most 256). Returns
 * what to redraw, or -1 at the end of the script. */
int tui_script_step(tui *t, key_ev *queue, size_t *nq);

#endif
