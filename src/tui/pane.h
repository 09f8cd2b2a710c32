/* The example's pane for the fixture's kind of model (pane.c): one ops
 * struct a kind (tig's struct view_ops), chosen by the kind in one table,
 * the one place in the review screen that names the kinds. One file a
 * kind: pane_classifier.c, pane_generator.c, pane_embed.c, pane_image.c
 * (its pictures made cells by halfblock.c), pane_training.c (its loss
 * curves made braille cells by braille.c). The parts the
 * classifier's and the generator's panes share (their two sides, beside
 * each other or stacked) are here too. */
#ifndef PARITY_TUI_PANE_H
#define PARITY_TUI_PANE_H

#include "state.h"

typedef struct tui_pane {
    /* The rows the kind's part of example k's detail takes at width w,
     * under the plan in t (side_labels, verdict_cap, line_cap). */
    int (*rows)(tui *t, size_t k, int w);
    /* The kind's part, from (y, x), w wide, in the rows before end: for a
     * classifier and a generator the reference's side and the candidate's,
     * for an embedding its searches or its vectors. Returns the rows used. */
    int (*draw)(tui *t, size_t k, int y, int x, int w, int end);
    /* The row under example k's text that says how its output was made
     * ("output: greedy, at most 20 tokens"; a training run's own recipe),
     * malloc'd; NULL for none. */
    char *(*output)(const tui *t, size_t k);
    /* The summary's line on environment e beside its state (an
     * embedding's searches), malloc'd, its element at *el; NULL for none. */
    char *(*summary)(const tui *t, size_t e, int *el);
} tui_pane;

/* The pane of the fixture's kind (never NULL). */
const tui_pane *tui_pane_of(const tui *t);

extern const tui_pane tui_pane_classifier, tui_pane_generator, tui_pane_embed, tui_pane_image, tui_pane_training;

/* The two sides fit beside each other when each has this many columns:
 * a label, a bar, a percentage and a logit ("volunteer #####  94.8% +3.714"). */
#define TUI_SIDE_MIN 31

/* One environment's side of example k, from (y, x), w wide, in at most
 * rows rows; and the rows it takes at width w (e < 0: none). */
typedef int (*tui_side_draw)(tui *t, int e, size_t k, int y, int x, int w, int rows);
typedef int (*tui_side_rows)(tui *t, int e, size_t k, int w);

/* The reference's side and the candidate's: beside each other, or stacked
 * where they do not fit so. The rows they take; the rows drawn. */
int pane_sides_rows(tui *t, size_t k, int w, tui_side_rows rows);
int pane_sides_draw(tui *t, size_t k, int y, int x, int w, int end, tui_side_draw side);
/* The rows every side has: its heading, its verdict wrapped (up to the
 * plan's cap), and the row that says there is more to what it said. */
int pane_side_rows(const tui *t, int e, size_t k, int w);
/* A side's heading, "NAME (DEVICE DTYPE)", in the environment's element. */
void pane_side_head(tui *t, int e, int y, int x, int w);
/* What a side with no result says (running, or why it never will). */
void pane_side_waiting(tui *t, int e, int y, int x, int w);
/* The side's element: the reference's, or a candidate's. */
int pane_side_el(const tui *t, int e);

#endif
