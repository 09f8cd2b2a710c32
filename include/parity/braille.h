/* Curves as braille cells (src/tui/braille.c), for the training kind's
 * review pane: several series of y values, one a step, drawn onto a canvas
 * of cols x rows cells, each cell 2 x 4 dots (U+2800 plus the cell's dot
 * bits), with no terminal in sight, so that what the pane draws is tested
 * as data; the pane (pane_training.c) only paints the cells.
 *
 * The series share one y range: the least and the greatest finite value
 * of them all (the bottom dot row and the top one; a flat range puts every
 * point on the middle row). A point that is a NaN or an infinity is left
 * out and counted, per series, with its first step: the curve has a gap
 * there, never a point at an edge.
 *
 * x is the step: steps 0 .. steps-1, steps the longest series', across
 * the 2 * cols dot columns. With no more steps than dot columns, step i
 * is dot column round(i * (D - 1) / (steps - 1)) (D dot columns; the
 * curve fills the width) and the columns between two finite points are
 * interpolated, so the curve is a line. With more steps than dot columns
 * it is down-sampled by min/max: dot column c stands for the steps
 * [c * steps / D, (c + 1) * steps / D) and draws every dot row from the
 * least to the greatest of their finite values, so that a one-step spike
 * stays visible (a mean would flatten it). Either way each column is
 * joined to the one before it: its dots reach the previous column's last
 * value, so that a steep drop is a line, not scattered dots.
 *
 * Every cell says which series put a dot in it (owners, one bit a
 * series), so that the pane colours a cell by its series and shows a cell
 * two series share apart. A series may be dotted: it keeps only the dots
 * (x, y) with x + y even, an outline beside a solid curve where there is
 * no colour to tell them apart. The marker is one dot column at a step (the
 * first step where two curves part), from the top row to the bottom,
 * kept apart from the series' dots (mark). */
#ifndef PARITY_BRAILLE_H
#define PARITY_BRAILLE_H

#include <stddef.h>
#include <stdint.h>

#define PX_BRAILLE_MAX_SERIES 8

typedef struct px_bseries {
    const double *y; /* y[i]: step i's value (NULL when n is 0) */
    size_t n;
    int dotted;      /* keep only the dots with x + y even */
} px_bseries;

/* A cell: dot bits are Unicode's (dot 1 0x01, 2 0x02, 3 0x04 down the left
 * column, 4 0x08, 5 0x10, 6 0x20 down the right, 7 0x40 and 8 0x80 the
 * bottom row's left and right); braille_bit gives them by place. */
typedef struct px_bcell {
    uint8_t dots;   /* the series' dots */
    uint8_t owners; /* bit s: series s has a dot in this cell */
    uint8_t mark;   /* the marker's dots */
} px_bcell;

typedef struct px_bplot {
    int cols, rows;
    px_bcell *cells;     /* rows x cols, row-major, row 0 at the top */
    double lo, hi;       /* the y range: the bottom dot row lo, the top hi;
                            NAN when no series has a finite point */
    size_t steps;        /* the longest series' steps */
    int sampled;         /* more steps than dot columns: min/max per column */
    size_t skipped[PX_BRAILLE_MAX_SERIES];      /* points not finite, left out */
    long first_skipped[PX_BRAILLE_MAX_SERIES];  /* the first one's step; -1 none */
    int marker_col;      /* the cell column the marker is in; -1 none */
    int marker_dot;      /* its dot column (0 .. 2 * cols - 1); -1 none */
} px_bplot;

/* The dot bit at dot (dx, dy) of a cell: dx 0 or 1, dy 0 (top) to 3. */
uint8_t braille_bit(int dx, int dy);

/* The glyph of dots as UTF-8 (three bytes and a NUL) into out. */
void braille_glyph(uint8_t dots, char out[4]);

/* The dot column step stands for in p (its bucket's when down-sampled);
 * -1 when p has no such step. */
int braille_dot_col(const px_bplot *p, long step);

/* The n series (at most PX_BRAILLE_MAX_SERIES) plotted on cols x rows
 * cells, the marker at step marker (< 0 or past the steps: none). 0 with
 * out filled (out->cells malloc'd: braille_free), or -1 (a bad size, too
 * many series, out of memory) with out empty. */
int braille_plot(const px_bseries *s, int n, int cols, int rows, long marker, px_bplot *out);

void braille_free(px_bplot *p);

#endif
