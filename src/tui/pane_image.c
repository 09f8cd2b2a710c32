/* An image's pane: the reference's picture, the candidate's and the map
 * of where they differ, side by side (stacked where they do not fit),
 * each under its title; then the figures against the reference (PSNR,
 * SSIM, mean and largest |Δ| of 255), the checks that failed, the latents'
 * divergence by step as a sparkline, and the verdicts. The pictures are
 * made cells by halfblock.c (no curses there, tested as data); this file
 * lays them out and paints the cells, in true colour (a terminal whose
 * terminfo has 2^24 colours: TERM=xterm-direct), else the xterm 256
 * colours, else (no colour: NO_COLOR, --color never, fewer than 256
 * colours) shade characters. Measured by drawing dry, so what is counted
 * is what is drawn. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/halfblock.h"
#include "parity/imagecmp.h"
#include "parity/sbuf.h"
#include "paint.h"
#include "pane.h"
#include "badge.h"

/* A picture narrower than this says nothing: the pane says it is too small. */
#define MIN_COLS 8
#define MIN_ROWS 4
#define GAP 2
/* Rows a panel's words (what it shows instead of a picture) may take. */
#define WORD_ROWS 4

/* A panel: an environment's picture (e >= 0) or the difference map
 * (e < 0); drawable when img.px (a picture) or map (the map), else why
 * says what there is instead. */
typedef struct panel {
    int e;
    px_image8 img;
    uint8_t *map;
    int h, w;        /* the picture's or the map's pixels */
    int cols, rows;  /* its cells, once laid out */
    char why[512];
    int why_el;
} panel;

typedef struct layout {
    panel p[3];
    int n, stacked, pw;   /* panels, stacked or side by side, each pw wide */
    int ref, cand;
    px_colours mode;
} layout;

static px_colours colours_of(const tui *t)
{
    if (!t->color || !has_colors())
        return PX_COLOURS_MONO;
    return COLORS >= 0x1000000 ? PX_COLOURS_TRUE : COLORS >= 256 ? PX_COLOURS_256 : PX_COLOURS_MONO;
}

/* Environment e's picture of example k, or what it has instead. */
static void panel_env(tui *t, int e, size_t k, panel *p)
{
    memset(p, 0, sizeof *p);
    p->e = e;
    p->why_el = PX_EL_NOT_EVALUATED;
    const px_env_result *er = &t->res->envs[e];
    const px_example_result *r = &er->ex[k];
    const px_image_spec *is = &t->f->image;
    if (r->status == PX_ST_PENDING) {
        px_sbuf why = PX_SBUF_INIT;
        snprintf(p->why, sizeof p->why, "%s", tui_waiting(t, er, &why));
        p->why_el = PX_EL_RUNNING;
        sbuf_free(&why);
    } else if (r->status != PX_ST_OK) {
        snprintf(p->why, sizeof p->why, "%s%s%s", status_name(r->status), r->detail ? ": " : "",
                 r->detail ? r->detail : "");
        p->why_el = r->status == PX_ST_REJECTED ? PX_EL_REJECTED : PX_EL_ERROR;
    } else if (halfblock_picture(r->values, r->n_values, r->ndim, r->shape, is->present ? is->height : 0, is->width,
                                 is->channels, &p->img, p->why, sizeof p->why) == 0) {
        p->h = p->img.h, p->w = p->img.w;
        if (image8_blank(&p->img)) {
            const uint8_t *px = p->img.px;
            snprintf(p->why, sizeof p->why, "blank: every pixel #%02x%02x%02x", px[0],
                     p->img.c >= 3 ? px[1] : px[0], p->img.c >= 3 ? px[2] : px[0]);
            image8_free(&p->img);
            p->why_el = PX_EL_ERROR;
        }
    } else {
        p->why_el = PX_EL_ERROR;
    }
}

/* The shown environments' panels and, where both pictures are there, the
 * map of where they differ. */
static void layout_panels(tui *t, size_t k, layout *l)
{
    memset(l, 0, sizeof *l);
    l->ref = t->res->reference;
    l->cand = t->rv.candidate == l->ref ? -1 : t->rv.candidate;
    l->mode = colours_of(t);
    if (l->ref >= 0)
        panel_env(t, l->ref, k, &l->p[l->n++]);
    if (l->cand >= 0)
        panel_env(t, l->cand, k, &l->p[l->n++]);
    if (l->n == 2 && l->p[0].img.px && l->p[1].img.px) {
        panel *d = &l->p[l->n++];
        memset(d, 0, sizeof *d);
        d->e = -1;
        d->why_el = PX_EL_NOT_EVALUATED;
        d->map = imagecmp_diff_map(&l->p[1].img, &l->p[0].img);
        d->h = l->p[0].h, d->w = l->p[0].w;
        if (!d->map)
            snprintf(d->why, sizeof d->why, "no difference map: the two images are not the same size");
    }
}

static void layout_free(layout *l)
{
    for (int i = 0; i < l->n; i++) {
        image8_free(&l->p[i].img);
        free(l->p[i].map);
    }
}

/* Each panel's width and cells at width w: side by side where each gets
 * MIN_COLS, else stacked; a picture at most a third of the screen tall
 * (whole with details). 0, or -1 when not even one fits (the pane says so). */
static int layout_fit(const tui *t, layout *l, int w)
{
    l->pw = l->n ? (w - GAP * (l->n - 1)) / l->n : w;
    l->stacked = l->pw < MIN_COLS;
    if (l->stacked)
        l->pw = w;
    if (l->pw < MIN_COLS)
        return -1;
    int cap = t->details ? 0 : LINES / 3 > MIN_ROWS ? LINES / 3 : MIN_ROWS;
    for (int i = 0; i < l->n; i++) {
        panel *p = &l->p[i];
        if (p->img.px || p->map)
            halfblock_fit(p->h, p->w, l->pw, cap, &p->cols, &p->rows);
    }
    return 0;
}

/* The pane's own pair cache: the theme has pairs 1..PX_EL_COUNT
 * (paint.c); the pictures take the pairs above them, one a colour pair
 * they show, given out afresh each frame (the pane is drawn whole each
 * time, and nothing else uses them), never more than the terminal has. */
static struct pairs {
    uint64_t *key; /* key + 1; 0: empty */
    int *pair;
    size_t slots;  /* a power of two, at least twice cap */
    int cap, n;
} pairs;

static int pairs_cap(void)
{
    long cap = (long)COLOR_PAIRS - 1 - PX_EL_COUNT;
    cap = cap > 32767 - 1 - PX_EL_COUNT ? 32767 - 1 - PX_EL_COUNT : cap;
    return cap < 0 ? 0 : (int)(cap > 16384 ? 16384 : cap);
}

/* Start a frame: no pair given out. -1 when none can be (no memory). */
static int pairs_reset(void)
{
    int cap = pairs_cap();
    if (cap != pairs.cap || !pairs.key) {
        size_t slots = 16;
        while (slots < 2 * (size_t)cap)
            slots *= 2;
        free(pairs.key), free(pairs.pair);
        pairs.key = calloc(slots, sizeof *pairs.key);
        pairs.pair = calloc(slots, sizeof *pairs.pair);
        pairs.slots = slots, pairs.cap = cap;
        if (!pairs.key || !pairs.pair) {
            free(pairs.key), free(pairs.pair);
            pairs.key = NULL, pairs.pair = NULL, pairs.cap = 0;
            return -1;
        }
    } else {
        memset(pairs.key, 0, pairs.slots * sizeof *pairs.key);
    }
    pairs.n = 0;
    return 0;
}

/* A colour as the terminal numbers it: the 256-colour index, or the RGB
 * value itself under direct colour, where 0-7 are still the eight ANSI
 * colours: a blue of 0-7 (black to 7/255 blue) is shown as (1, 1, 1)'s
 * near-black instead, which no one can tell from it. */
static int colour_number(px_rgb c, px_colours mode)
{
    if (mode == PX_COLOURS_256)
        return halfblock_xterm256(c);
    int v = c.r << 16 | c.g << 8 | c.b;
    return v < 8 ? 0x010101 : v;
}

/* The pair for fg on bg (given out when new, if init is set): -1 when the
 * pairs are all given out this frame. */
static int pair_of(px_rgb fg, px_rgb bg, px_colours mode, int init)
{
    int f = colour_number(fg, mode), b = colour_number(bg, mode);
    uint64_t key = ((uint64_t)(unsigned)f << 32 | (unsigned)b) + 1;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (pairs.slots - 1);
    for (; pairs.key && pairs.key[i]; i = (i + 1) & (pairs.slots - 1))
        if (pairs.key[i] == key)
            return pairs.pair[i];
    if (!pairs.key || pairs.n >= pairs.cap)
        return -1;
    int p = PX_EL_COUNT + 1 + pairs.n++;
    pairs.key[i] = key, pairs.pair[i] = p;
    if (init)
        init_extended_pair(p, f, b);
    return p;
}

/* Whether the pairs the cells need fit in the terminal's: counted, not
 * given out. */
static int pairs_fit(const px_hcell *const *cells, const int *count, int n, px_colours mode)
{
    if (mode == PX_COLOURS_MONO)
        return 1;
    if (pairs_reset())
        return 0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < count[i]; c++)
            if (pair_of(cells[i][c].fg, cells[i][c].bg, mode, 0) < 0)
                return 0;
    return pairs_reset() == 0;
}

/* The cells of panel p in mode (malloc'd); NULL when out of memory. */
static px_hcell *panel_cells(const panel *p, px_colours mode)
{
    px_hcell *c = calloc((size_t)p->cols * p->rows, sizeof *c);
    int bad = !c || (p->map ? halfblock_diff(p->map, p->h, p->w, p->cols, p->rows, mode, c)
                            : halfblock_image(&p->img, p->cols, p->rows, mode, c));
    if (bad) {
        free(c);
        return NULL;
    }
    return c;
}

/* Cells at (y, x) of the canvas. */
static void paint_cells(tui *t, const px_hcell *c, int cols, int rows, int y, int x, px_colours mode)
{
    WINDOW *win = TUI_CV(t);
    for (int r = 0; r < rows && y + r < getmaxy(win); r++)
        for (int i = 0; i < cols; i++) {
            const px_hcell *cell = &c[(size_t)r * cols + i];
            if (mode == PX_COLOURS_MONO) {
                wattrset(win, tui_style(t, PX_EL_NORMAL));
                mvwaddstr(win, y + r, x + i, cell->ch);
                continue;
            }
            int pair = pair_of(cell->fg, cell->bg, mode, 1);
            wchar_t wch[2] = {0x2580, 0};
            cchar_t cc;
            setcchar(&cc, wch, A_NORMAL, 0, &pair);
            mvwadd_wch(win, y + r, x + i, &cc);
        }
    wattrset(win, A_NORMAL);
}

/* Every drawable panel painted, in l->mode or, where the terminal's pairs
 * cannot hold that many colours, in the next plainer mode. */
static void paint_panels(tui *t, layout *l, const int *py, const int *px)
{
    px_hcell *cells[3] = {0};
    int count[3] = {0};
    for (;;) {
        for (int i = 0; i < l->n; i++) {
            const panel *p = &l->p[i];
            cells[i] = p->cols && (p->img.px || p->map) ? panel_cells(p, l->mode) : NULL;
            count[i] = cells[i] ? p->cols * p->rows : 0;
        }
        if (l->mode == PX_COLOURS_MONO || pairs_fit((const px_hcell *const *)cells, count, l->n, l->mode))
            break;
        for (int i = 0; i < l->n; i++)
            free(cells[i]);
        l->mode = l->mode == PX_COLOURS_TRUE ? PX_COLOURS_256 : PX_COLOURS_MONO;
    }
    for (int i = 0; i < l->n; i++) {
        if (cells[i])
            paint_cells(t, cells[i], l->p[i].cols, l->p[i].rows, py[i], px[i], l->mode);
        free(cells[i]);
    }
}

/* A panel's title: the environment's heading, or the map's. */
static void panel_title(tui *t, const layout *l, const panel *p, int y, int x)
{
    if (p->e >= 0)
        pane_side_head(t, p->e, y, x, l->pw);
    else
        tui_putf(t, y, x, l->pw, PX_EL_TITLE, "|Δ| %s vs %s", t->res->envs[l->cand].name,
                 t->res->envs[l->ref].name);
}

/* Rows panel p takes under its title. */
static int panel_rows(const layout *l, const panel *p)
{
    return p->cols ? p->rows : tui_rows_of(p->why, l->pw, WORD_ROWS);
}

/* The panels, from (y, x): side by side or stacked. Returns the rows. */
static int draw_panels(tui *t, layout *l, int y, int x, int end, int dry)
{
    int y0 = y, py[3] = {0}, px[3] = {0}, tallest = 0;
    for (int i = 0; i < l->n && y < end; i++) {
        const panel *p = &l->p[i];
        int at = l->stacked ? x : x + i * (l->pw + GAP), top = l->stacked ? y : y0;
        int rows = panel_rows(l, p);
        if (!dry) {
            panel_title(t, l, p, top, at);
            if (!p->cols)
                tui_put_wrapped(t, top + 1, at, l->pw, WORD_ROWS, p->why_el, p->why);
        }
        py[i] = top + 1, px[i] = at;
        if (l->stacked)
            y += 1 + rows + (i + 1 < l->n);
        tallest = 1 + rows > tallest ? 1 + rows : tallest;
    }
    if (!dry)
        paint_panels(t, l, py, px);
    return l->stacked ? y - y0 : tallest;
}

/* The figures against the reference: the verdict's (the judge's, from
 * imagecmp), else, not judged yet, imagecmp's own on the two pictures. */
static int draw_figures(tui *t, const layout *l, const px_image_verdict *iv, int y, int x, int w, int end, int dry)
{
    px_image_figures fg = {NAN, NAN, NAN, NAN};
    if (iv)
        fg = (px_image_figures){iv->psnr, iv->ssim, iv->mean_abs, iv->max_abs};
    else if (l->n == 3 && l->p[2].map)
        imagecmp_figures(&l->p[1].img, &l->p[0].img, &fg);
    if (isnan(fg.psnr) && isnan(fg.ssim) && isnan(fg.mean_abs) && isnan(fg.max_abs))
        return 0;
    char psnr[32];
    if (isinf(fg.psnr))
        snprintf(psnr, sizeof psnr, "∞ (equal)");
    else
        snprintf(psnr, sizeof psnr, "%.2f dB", fg.psnr);
    char *s = NULL;
    if (asprintf(&s, "PSNR %s  SSIM %.4f  mean |Δ| %.2f  max |Δ| %.0f (of 255)", psnr, fg.ssim, fg.mean_abs,
                 fg.max_abs) < 0)
        return 0;
    int used = dry ? tui_rows_of(s, w, end - y) : tui_put_wrapped(t, y, x, w, end - y, PX_EL_NORMAL, s);
    free(s);
    s = NULL;
    if (iv && iv->failed && y + used < end && asprintf(&s, "failed: %s", iv->failed) >= 0) {
        int room = end - y - used < t->line_cap || !t->line_cap ? end - y - used : t->line_cap;
        used += dry ? tui_rows_of(s, w, room) : tui_put_wrapped(t, y + used, x, w, room, PX_EL_FAIL, s);
        free(s);
    }
    return used;
}

/* The latents' largest |Δ| against the reference's at each recorded step,
 * as a sparkline (each character the largest of the steps it stands
 * for), from the step they part on in the changed element. One row; none
 * when there is no curve or no room for one. */
static int draw_curve(tui *t, const px_image_verdict *iv, int y, int x, int w, int end, int dry)
{
    static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    if (!iv || !iv->n_curve || y >= end)
        return 0;
    double top = 0;
    for (size_t i = 0; i < iv->n_curve; i++)
        top = isfinite(iv->curve[i]) && iv->curve[i] > top ? iv->curve[i] : top;
    char head[64], tail[96];
    snprintf(head, sizeof head, "latent |Δ| by step ");
    if (iv->diverged_step >= 0)
        snprintf(tail, sizeof tail, " max %.3g; parts at step %ld", top, iv->diverged_step);
    else
        snprintf(tail, sizeof tail, " max %.3g", top);
    int room = w - 19 - (int)strlen(tail); /* the head is 19 columns (Δ one) */
    if (room < 4)
        return 0;
    if (dry)
        return 1;
    int n = (int)iv->n_curve < room ? (int)iv->n_curve : room;
    tui_put(t, y, x, 19, PX_EL_DIM, head);
    for (int c = 0; c < n; c++) {
        size_t a = (size_t)c * iv->n_curve / n, b = (size_t)(c + 1) * iv->n_curve / n;
        double v = 0;
        int nan = 0, parted = 0;
        for (size_t i = a; i < b; i++) {
            nan |= !isfinite(iv->curve[i]);
            v = isfinite(iv->curve[i]) && iv->curve[i] > v ? iv->curve[i] : v;
            parted |= iv->diverged_step >= 0 && iv->curve_step[i] >= iv->diverged_step;
        }
        int lvl = top > 0 ? (int)(v / top * 7 + 0.5) : 0;
        tui_put(t, y, x + 19 + c, 1, parted ? PX_EL_CHANGED : PX_EL_BAR, nan ? "?" : bars[lvl > 7 ? 7 : lvl]);
    }
    tui_put(t, y, x + 19 + n, w - 19 - n, iv->diverged_step >= 0 ? PX_EL_CHANGED : PX_EL_DIM, tail);
    return 1;
}

/* What the map's marks or colours mean; a word where there is no
 * reference to compare with. */
static int draw_legend(tui *t, const layout *l, int y, int x, int w, int end, int dry)
{
    char s[160];
    if (l->ref < 0)
        snprintf(s, sizeof s, "no reference result: the candidate alone, nothing to compare it with");
    else if (!(l->n == 3 && l->p[2].map))
        return 0;
    else if (l->mode == PX_COLOURS_MONO)
        snprintf(s, sizeof s, "map: ' ' equal, ░ |Δ| %d-%d, ▒ %d-%d, █ %d-255 (of 255)", PX_DIFF_SMALL,
                 PX_DIFF_MID - 1, PX_DIFF_MID, PX_DIFF_LARGE - 1, PX_DIFF_LARGE);
    else
        snprintf(s, sizeof s, "map: black equal; red, yellow, white as |Δ| grows to 255 (each cell its largest)");
    if (y >= end)
        return 0;
    return dry ? tui_rows_of(s, w, t->line_cap) : tui_put_wrapped(t, y, x, w, t->line_cap ? t->line_cap : end - y,
                                                                  PX_EL_DIM, s);
}

/* The pane (dry: only counted). */
static int draw_image(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    layout l;
    layout_panels(t, k, &l);
    int y0 = y;
    if (layout_fit(t, &l, w)) {
        if (y < end && !dry)
            tui_putf(t, y, x, w, PX_EL_DIM, "pane too small for the images (needs %dx%d)", MIN_COLS, MIN_ROWS + 1);
        layout_free(&l);
        return y < end;
    }
    y += draw_panels(t, &l, y, x, end, dry);
    y += draw_legend(t, &l, y, x, w, end, dry);
    const px_verdict *cv = t->judged && l.cand >= 0 ? &t->j.envs[l.cand].ex[k] : NULL;
    const px_image_verdict *iv = cv ? cv->image : NULL;
    y += draw_figures(t, &l, iv, y, x, w, end, dry);
    y += draw_curve(t, iv, y, x, w, end, dry);
    int shown[2] = {l.ref, l.cand};
    for (int i = 0; i < 2 && y < end; i++) {
        if (shown[i] < 0)
            continue;
        /* pane_side_rows counts the heading the panel's title already is */
        y += dry ? pane_side_rows(t, shown[i], k, w) - 1 : tui_draw_verdict(t, shown[i], k, y, x, w, end - y);
    }
    layout_free(&l);
    return y - y0;
}

static int rows(tui *t, size_t k, int w) { return draw_image(t, k, 0, 0, w, TUI_PAD_ROWS, 1); }

static int draw(tui *t, size_t k, int y, int x, int w, int end) { return draw_image(t, k, y, x, w, end, 0); }

/* How the picture was made: the contract's recipe and the example's own
 * seed (an example's `seed:`, else contract.image.seed). */
static char *output(const tui *t, size_t k)
{
    const px_image_spec *is = &t->f->image;
    const px_example *ex = &t->f->examples[k];
    char *s = NULL;
    if (!is->present ||
        asprintf(&s, "output: a %dx%d image, %d steps of %s, guidance %g, seed %llu", is->height, is->width,
                 is->steps, is->scheduler ? is->scheduler : "the pipeline's scheduler", is->guidance_scale,
                 ex->has_seed ? ex->seed : is->seed) < 0)
        return NULL;
    return s;
}

const tui_pane tui_pane_image = {rows, draw, output, NULL};
