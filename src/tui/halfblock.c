/* Pictures as terminal cells: fitting, area-average down-sampling, the
 * half-block grid, the difference map's marks and heat, the xterm
 * 256-colour palette. No curses here (halfblock.h): the pane paints what
 * this makes. */
#include "parity/halfblock.h"

#include "parity/imagecmp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Luma ramp, dark to light, and the difference marks (halfblock.h). */
static const char *const shades[] = {" ", "\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93", "\xe2\x96\x88"};

void halfblock_fit(int h, int w, int max_cols, int max_rows, int *cols, int *rows)
{
    *cols = *rows = 0;
    if (h < 1 || w < 1 || max_cols < 1)
        return;
    int c = w < max_cols ? w : max_cols;
    /* rows of two pixels for c columns, the shape kept: h * c / w pixels */
    int r = (int)(((long long)h * c + w - 1) / w + 1) / 2;
    if (max_rows > 0 && r > max_rows) {
        r = max_rows;
        c = (int)((long long)w * 2 * r / h);
        c = c < 1 ? 1 : c > w ? w : c > max_cols ? max_cols : c;
    }
    *cols = c;
    *rows = r < 1 ? 1 : r;
}

/* The source span [a, b) output o of on covers in a length of n. */
static void span_of(int o, int on, int n, double *a, double *b)
{
    *a = (double)o * n / on;
    *b = (double)(o + 1) * n / on;
}

int halfblock_shrink(const px_image8 *m, int oh, int ow, px_image8 *out)
{
    memset(out, 0, sizeof *out);
    if (!m || !m->px || oh < 1 || ow < 1 || m->h < 1 || m->w < 1 || m->c < 1 || m->c > 4)
        return -1;
    out->px = malloc((size_t)oh * ow * m->c);
    if (!out->px)
        return -1;
    out->h = oh, out->w = ow, out->c = m->c;
    for (int oy = 0; oy < oh; oy++) {
        double y0, y1;
        span_of(oy, oh, m->h, &y0, &y1);
        for (int ox = 0; ox < ow; ox++) {
            double x0, x1, sum[4] = {0}, area = 0;
            span_of(ox, ow, m->w, &x0, &x1);
            for (int y = (int)y0; y < m->h && y < y1; y++) {
                double wy = fmin(y1, y + 1) - fmax(y0, y);
                for (int x = (int)x0; x < m->w && x < x1; x++) {
                    double wgt = wy * (fmin(x1, x + 1) - fmax(x0, x));
                    const uint8_t *p = m->px + ((size_t)y * m->w + x) * m->c;
                    for (int ch = 0; ch < m->c; ch++)
                        sum[ch] += wgt * p[ch];
                    area += wgt;
                }
            }
            uint8_t *q = out->px + ((size_t)oy * ow + ox) * m->c;
            for (int ch = 0; ch < m->c; ch++)
                q[ch] = (uint8_t)lround(area > 0 ? sum[ch] / area : 0);
        }
    }
    return 0;
}

/* Pixel i's colour: grey as it is, RGBA's alpha left out (the pipeline's
 * picture, not how it would blend). */
static px_rgb pixel_rgb(const px_image8 *m, size_t i)
{
    const uint8_t *p = m->px + i * m->c;
    return m->c >= 3 ? (px_rgb){p[0], p[1], p[2]} : (px_rgb){p[0], p[0], p[0]};
}

/* BT.601 luma, as imagecmp's SSIM takes it. */
static double luma(px_rgb c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b; }

/* A colour as the mode shows it: the 256-colour mode's nearest palette
 * colour (so that cells compare equal when the terminal shows them so). */
static px_rgb shown(px_rgb c, px_colours mode)
{
    return mode == PX_COLOURS_256 ? halfblock_xterm_rgb(halfblock_xterm256(c)) : c;
}

int halfblock_image(const px_image8 *m, int cols, int rows, px_colours mode, px_hcell *out)
{
    px_image8 s;
    if (cols < 1 || rows < 1 || halfblock_shrink(m, 2 * rows, cols, &s))
        return -1;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            px_rgb up = pixel_rgb(&s, (size_t)(2 * r) * cols + c), low = pixel_rgb(&s, (size_t)(2 * r + 1) * cols + c);
            px_hcell *cell = &out[(size_t)r * cols + c];
            if (mode == PX_COLOURS_MONO) {
                double y = (luma(up) + luma(low)) / 2;
                *cell = (px_hcell){shades[(int)(y * 5 / 256)], {0, 0, 0}, {0, 0, 0}};
            } else {
                *cell = (px_hcell){PX_HALF_BLOCK, shown(up, mode), shown(low, mode)};
            }
        }
    image8_free(&s);
    return 0;
}

/* The largest value of map (h x w) in the area output (oy, ox) of oh x ow
 * covers, partly covered pixels included. */
static int area_max(const uint8_t *map, int h, int w, int oy, int oh, int ox, int ow)
{
    double y0, y1, x0, x1;
    span_of(oy, oh, h, &y0, &y1);
    span_of(ox, ow, w, &x0, &x1);
    int best = 0;
    for (int y = (int)y0; y < h && y < y1; y++)
        for (int x = (int)x0; x < w && x < x1; x++)
            best = map[(size_t)y * w + x] > best ? map[(size_t)y * w + x] : best;
    return best;
}

static const char *diff_mark(int d)
{
    return d >= PX_DIFF_LARGE ? shades[4] : d >= PX_DIFF_MID ? shades[2] : d >= PX_DIFF_SMALL ? shades[1] : shades[0];
}

int halfblock_diff(const uint8_t *map, int h, int w, int cols, int rows, px_colours mode, px_hcell *out)
{
    if (!map || h < 1 || w < 1 || cols < 1 || rows < 1)
        return -1;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int up = area_max(map, h, w, 2 * r, 2 * rows, c, cols), low = area_max(map, h, w, 2 * r + 1, 2 * rows, c, cols);
            px_hcell *cell = &out[(size_t)r * cols + c];
            if (mode == PX_COLOURS_MONO)
                *cell = (px_hcell){diff_mark(up > low ? up : low), {0, 0, 0}, {0, 0, 0}};
            else
                *cell = (px_hcell){PX_HALF_BLOCK, shown(halfblock_heat(up), mode), shown(halfblock_heat(low), mode)};
        }
    return 0;
}

/* The report's scale (imagecmp_heat), so that a difference map looks the
 * same in the review pane and in the HTML report. */
px_rgb halfblock_heat(int d)
{
    uint8_t rgb[3];
    imagecmp_heat((uint8_t)(d < 0 ? 0 : d > 255 ? 255 : d), rgb);
    return (px_rgb){rgb[0], rgb[1], rgb[2]};
}

static const int cube[6] = {0, 95, 135, 175, 215, 255};

static int nearest_level(int v)
{
    int best = 0;
    for (int i = 1; i < 6; i++)
        if (abs(cube[i] - v) < abs(cube[best] - v))
            best = i;
    return best;
}

static long dist2(px_rgb a, px_rgb b)
{
    long dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
    return dr * dr + dg * dg + db * db;
}

int halfblock_xterm256(px_rgb c)
{
    int ci = 16 + 36 * nearest_level(c.r) + 6 * nearest_level(c.g) + nearest_level(c.b);
    int g = (int)lround(((c.r + c.g + c.b) / 3.0 - 8) / 10);
    int gi = 232 + (g < 0 ? 0 : g > 23 ? 23 : g);
    return dist2(c, halfblock_xterm_rgb(gi)) < dist2(c, halfblock_xterm_rgb(ci)) ? gi : ci;
}

px_rgb halfblock_xterm_rgb(int i)
{
    if (i >= 232) {
        uint8_t v = (uint8_t)(8 + 10 * (i - 232 > 23 ? 23 : i - 232));
        return (px_rgb){v, v, v};
    }
    i = i < 16 ? 0 : i - 16;
    return (px_rgb){(uint8_t)cube[i / 36], (uint8_t)cube[i / 6 % 6], (uint8_t)cube[i % 6]};
}

int halfblock_picture(const double *v, size_t n, int ndim, const int64_t *shape, int want_h, int want_w, int want_c,
                      px_image8 *out, char *why, size_t size)
{
    memset(out, 0, sizeof *out);
    int image = ndim == 4 && shape[0] == 1 && shape[1] >= 1 && shape[2] >= 1 && shape[1] <= 65536 &&
                shape[2] <= 65536 && (shape[3] == 1 || shape[3] == 3 || shape[3] == 4) &&
                (size_t)(shape[1] * shape[2] * shape[3]) == n && v;
    if (!image) {
        char dims[128] = "";
        for (int i = 0, at = 0; i < ndim && i < 8 && at < (int)sizeof dims - 24; i++)
            at += snprintf(dims + at, sizeof dims - at, "%s%lld", i ? ", " : "", (long long)shape[i]);
        snprintf(why, size, "bad shape: [%s] (%zu values), not an image [1, height, width, channels]", dims, n);
        return -1;
    }
    int h = (int)shape[1], w = (int)shape[2], c = (int)shape[3];
    if (want_h > 0 && (h != want_h || w != want_w || c != want_c)) {
        snprintf(why, size, "bad shape: %dx%d, %d channel%s; the contract's image is %dx%d, %d channel%s", h, w, c,
                 c == 1 ? "" : "s", want_h, want_w, want_c, want_c == 1 ? "" : "s");
        return -1;
    }
    long bad = 0;
    if (image8_from_unit(v, h, w, c, out, &bad)) {
        if (bad < 0)
            snprintf(why, size, "out of memory for a %dx%d image", h, w);
        else
            snprintf(why, size, "not finite: pixel (%ld, %ld) channel %ld is %s", bad / c / w, bad / c % w, bad % c,
                     isnan(v[bad]) ? "nan" : v[bad] > 0 ? "inf" : "-inf");
        return -1;
    }
    return 0;
}
