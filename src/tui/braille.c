/* Curves as braille cells: the shared range, the steps onto dot columns
 * (spread and interpolated, or min/max down-sampled), each column joined
 * to the one before, the owners of each cell, the marker. No curses here
 * (braille.h): the pane paints what this makes. */
#include "parity/braille.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint8_t braille_bit(int dx, int dy)
{
    static const uint8_t bits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    return dx < 0 || dx > 1 || dy < 0 || dy > 3 ? 0 : bits[dx][dy];
}

void braille_glyph(uint8_t dots, char out[4])
{
    /* U+2800 + dots: E2, A0 + the top two bits, 80 + the low six */
    out[0] = (char)0xE2;
    out[1] = (char)(0xA0 | dots >> 6);
    out[2] = (char)(0x80 | (dots & 0x3F));
    out[3] = 0;
}

/* Dot column step i of n spread over d columns (no more steps than
 * columns): round(i * (d - 1) / (n - 1)), in integers. */
static int spread_col(size_t i, size_t n, int d)
{
    if (n < 2)
        return 0;
    unsigned long long num = 2ull * i * (unsigned long long)(d - 1) + (n - 1);
    return (int)(num / (2ull * (n - 1)));
}

/* The first step of down-sampled column c (of d) over n steps. */
static size_t bucket_start(int c, size_t n, int d) { return (size_t)((unsigned long long)c * n / (unsigned)d); }

int braille_dot_col(const px_bplot *p, long step)
{
    int d = 2 * p->cols;
    if (step < 0 || (size_t)step >= p->steps || d < 1)
        return -1;
    if (!p->sampled)
        return spread_col((size_t)step, p->steps, d);
    int c = (int)((unsigned long long)step * (unsigned)d / p->steps);
    while (c > 0 && bucket_start(c, p->steps, d) > (size_t)step)
        c--;
    while (c < d - 1 && bucket_start(c + 1, p->steps, d) <= (size_t)step)
        c++;
    return c;
}

/* The dot row (0 at the top) of a finite y in p's range, unrounded: the
 * middle row for a flat range. */
static double frow(const px_bplot *p, double y)
{
    int h = 4 * p->rows;
    return p->hi > p->lo ? (p->hi - y) / (p->hi - p->lo) * (h - 1) : h / 2;
}

/* A row rounded onto the canvas. */
static int row_at(const px_bplot *p, double r)
{
    long v = lround(r);
    return v < 0 ? 0 : v >= 4 * p->rows ? 4 * p->rows - 1 : (int)v;
}

static void put_dot(px_bplot *p, int s, int dotted, int x, int y)
{
    if (x < 0 || y < 0 || x >= 2 * p->cols || y >= 4 * p->rows || (dotted && (x + y) % 2))
        return;
    px_bcell *c = &p->cells[(size_t)(y / 4) * p->cols + x / 2];
    c->dots |= braille_bit(x % 2, y % 4);
    c->owners |= (uint8_t)(1u << s);
}

/* One column of a series: whether it has a point, its top and bottom dot
 * rows (the greatest value's and the least's) and its last point's row. */
typedef struct colv {
    int has, top, bot, last;
} colv;

static void col_add(colv *c, int r)
{
    if (!c->has)
        c->top = c->bot = r;
    c->top = r < c->top ? r : c->top;
    c->bot = r > c->bot ? r : c->bot;
    c->last = r;
    c->has = 1;
}

/* Series s's columns into v (2 * cols of them). */
static void series_cols(const px_bplot *p, const px_bseries *s, colv *v)
{
    int d = 2 * p->cols;
    memset(v, 0, (size_t)d * sizeof *v);
    if (p->sampled) {
        for (int c = 0; c < d; c++)
            for (size_t i = bucket_start(c, p->steps, d); i < bucket_start(c + 1, p->steps, d) && i < s->n; i++)
                if (isfinite(s->y[i]))
                    col_add(&v[c], row_at(p, frow(p, s->y[i])));
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->y[i]))
            continue;
        int x0 = spread_col(i, p->steps, d);
        double r0 = frow(p, s->y[i]);
        col_add(&v[x0], row_at(p, r0));
        if (i + 1 >= s->n || !isfinite(s->y[i + 1]))
            continue;
        /* the columns up to the next point, on the line between them */
        int x1 = spread_col(i + 1, p->steps, d);
        double r1 = frow(p, s->y[i + 1]);
        for (int x = x0 + 1; x < x1; x++)
            col_add(&v[x], row_at(p, r0 + (r1 - r0) * (x - x0) / (x1 - x0)));
    }
}

int braille_plot(const px_bseries *s, int n, int cols, int rows, long marker, px_bplot *out)
{
    memset(out, 0, sizeof *out);
    out->lo = out->hi = NAN;
    out->marker_col = out->marker_dot = -1;
    if (n < 0 || n > PX_BRAILLE_MAX_SERIES || cols < 1 || rows < 1 || cols > 100000 || rows > 100000)
        return -1;
    out->cells = calloc((size_t)cols * rows, sizeof *out->cells);
    colv *v = calloc((size_t)2 * cols, sizeof *v);
    if (!out->cells || !v) {
        free(v);
        braille_free(out);
        return -1;
    }
    out->cols = cols, out->rows = rows;
    for (int k = 0; k < n; k++) {
        out->first_skipped[k] = -1;
        out->steps = s[k].n > out->steps ? s[k].n : out->steps;
        for (size_t i = 0; i < s[k].n; i++) {
            double y = s[k].y[i];
            if (!isfinite(y)) {
                if (!out->skipped[k]++)
                    out->first_skipped[k] = (long)i;
                continue;
            }
            out->lo = isnan(out->lo) || y < out->lo ? y : out->lo;
            out->hi = isnan(out->hi) || y > out->hi ? y : out->hi;
        }
    }
    int d = 2 * cols, h = 4 * rows;
    out->sampled = out->steps > (size_t)d;
    for (int k = 0; k < n && !isnan(out->lo); k++) {
        series_cols(out, &s[k], v);
        for (int x = 0; x < d; x++) {
            if (!v[x].has)
                continue;
            int a = v[x].top, b = v[x].bot;
            /* joined to the column before: reach one row short of its last */
            if (x > 0 && v[x - 1].has) {
                int l = v[x - 1].last;
                a = l < a - 1 ? l + 1 : a;
                b = l > b + 1 ? l - 1 : b;
            }
            for (int y = a; y <= b; y++)
                put_dot(out, k, s[k].dotted, x, y);
        }
    }
    free(v);
    int mc = braille_dot_col(out, marker);
    if (mc >= 0) {
        out->marker_dot = mc, out->marker_col = mc / 2;
        for (int y = 0; y < h; y++)
            out->cells[(size_t)(y / 4) * cols + mc / 2].mark |= braille_bit(mc % 2, y % 4);
    }
    return 0;
}

void braille_free(px_bplot *p)
{
    free(p->cells);
    p->cells = NULL;
}
