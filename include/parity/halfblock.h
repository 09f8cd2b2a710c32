/* Pictures as terminal cells (src/tui/halfblock.c), for the image kind's
 * review pane: pixels in, a grid of cells (a glyph, its foreground and
 * background colour) out, with no terminal in sight, so that what the
 * pane draws is tested as data; the pane (pane_image.c) only paints the
 * grid.
 *
 * In colour each cell shows two pixels stacked: U+2580 '▀' with the upper
 * pixel as its foreground and the lower as its background, so a cell (about
 * twice as tall as it is wide) holds two square pixels. In monochrome (no
 * colour: NO_COLOR, --color never, a terminal of fewer than 256 colours) a
 * picture is a luma ramp of shade characters (' ░▒▓█', dark to light) and
 * the difference map marks each cell by how far it parts (' ' equal, '░'
 * 1-7, '▒' 8-63, '█' 64 and more, of 255), so where two images differ
 * shows without colour. */
#ifndef PARITY_HALFBLOCK_H
#define PARITY_HALFBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "parity/imagecmp.h"

typedef struct px_rgb {
    uint8_t r, g, b;
} px_rgb;

/* A cell: its glyph (a static UTF-8 string, one column wide) and colours
 * (unused in monochrome). */
typedef struct px_hcell {
    const char *ch;
    px_rgb fg, bg;
} px_hcell;

typedef enum px_colours {
    PX_COLOURS_MONO, /* shade characters, no colour */
    PX_COLOURS_256,  /* the xterm 256-colour cube and grey ramp */
    PX_COLOURS_TRUE, /* 24-bit colour */
} px_colours;

/* The glyph of a colour cell: the upper half block. */
#define PX_HALF_BLOCK "\xe2\x96\x80"

/* The difference map's thresholds in monochrome (of 255): from SMALL a
 * cell is '░', from MID '▒', from LARGE '█'. */
#define PX_DIFF_SMALL 1
#define PX_DIFF_MID 8
#define PX_DIFF_LARGE 64

/* The cells (*cols x *rows) an h x w picture takes within max_cols x
 * max_rows (max_rows <= 0: no limit), its shape kept: one pixel a column,
 * two a row. Never larger than the picture (a pixel is never spread over
 * several cells: the pane would only show bigger squares); 0 x 0 when the
 * limit leaves no cell. */
void halfblock_fit(int h, int w, int max_cols, int max_rows, int *cols, int *rows);

/* m down-sampled to oh x ow pixels (each no larger than m's) by area
 * averaging: each output pixel the mean of the source area it covers,
 * partly covered pixels weighted by how much. 0, or -1 when out of memory
 * or the size is bad. out->px malloc'd. */
int halfblock_shrink(const px_image8 *m, int oh, int ow, px_image8 *out);

/* m in cols x rows cells (out: cols * rows, row-major), down-sampled to
 * cols x 2*rows pixels. 0, or -1 (out of memory, a bad size). */
int halfblock_image(const px_image8 *m, int cols, int rows, px_colours mode, px_hcell *out);

/* A difference map (h * w values of 0..255, imagecmp_diff_map's) in cols x
 * rows cells: each half cell the LARGEST difference in the area it covers
 * (never the mean: one differing pixel must not vanish when the map is
 * made smaller), coloured by halfblock_heat, or in monochrome the cell's
 * larger half as a mark. 0, or -1. */
int halfblock_diff(const uint8_t *map, int h, int w, int cols, int rows, px_colours mode, px_hcell *out);

/* A difference's colour: the HTML report's scale (imagecmp_heat: black
 * when equal, through red and yellow to white at 255, on the square root
 * of the difference, so that a difference of 1 is already a dark red). */
px_rgb halfblock_heat(int d);

/* The xterm 256-colour index nearest c: of the 6x6x6 cube (16-231) and
 * the grey ramp (232-255); never the 16 system colours, which a terminal's
 * theme recolours. */
int halfblock_xterm256(px_rgb c);

/* The colour a 256-colour index shows (16-255). */
px_rgb halfblock_xterm_rgb(int i);

/* Whether n values with shape shape[0..ndim) are an image the pane can
 * draw: [1, H, W, C], C 1, 3 or 4, n = H*W*C, every value finite, and
 * (want_h > 0) of the contract's H x W x C. 0 with *out filled (8-bit, as
 * imagecmp makes it; out->px malloc'd), or -1 with what it is instead in
 * why ("not finite: pixel (3, 4) channel 0 is nan"; "bad shape: ..."). */
int halfblock_picture(const double *v, size_t n, int ndim, const int64_t *shape, int want_h, int want_w, int want_c,
                      px_image8 *out, char *why, size_t size);

#endif
