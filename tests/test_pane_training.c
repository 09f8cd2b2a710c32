/* The training kind's review pane: its loss curves made braille cells
 * (braille.h) as data, without a terminal: the dots of known lines, the
 * shared range, min/max down-sampling keeping a spike, NaN and infinite
 * points left out and counted, the marker's dot column, the owners of a
 * cell, a dotted series. Then the pane itself (pane_training.c) drawn
 * off-screen into a pad from in-memory results and a verdict, read back
 * cell by cell: braille glyphs in the theme's elements, the marker under
 * the right column, the axes' ranges, the figures, the failed checks,
 * monochrome drawn otherwise, and narrow pads. */
#include <criterion/criterion.h>
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "parity/braille.h"
#include "parity/theme.h"
#include "../src/tui/pane.h"

/* Whether dot (x, y) of the plot is one of the series'. */
static int dot(const px_bplot *p, int x, int y)
{
    const px_bcell *c = &p->cells[(size_t)(y / 4) * p->cols + x / 2];
    return (c->dots & braille_bit(x % 2, y % 4)) != 0;
}

/* The dot columns that have any dot, as a bit mask (up to 32 columns). */
static unsigned columns_with_dots(const px_bplot *p)
{
    unsigned m = 0;
    for (int x = 0; x < 2 * p->cols; x++)
        for (int y = 0; y < 4 * p->rows; y++)
            if (dot(p, x, y))
                m |= 1u << x;
    return m;
}

Test(braille, glyphs_and_dot_bits)
{
    char g[4];
    braille_glyph(0, g);
    cr_expect_str_eq(g, "\u2800");
    braille_glyph(0xFF, g);
    cr_expect_str_eq(g, "⣿");
    braille_glyph(0x47, g);
    cr_expect_str_eq(g, "⡇", "the left column whole");
    braille_glyph(0xB8, g);
    cr_expect_str_eq(g, "⢸", "the right column whole");
    cr_expect_eq(braille_bit(0, 0), 0x01);
    cr_expect_eq(braille_bit(0, 3), 0x40);
    cr_expect_eq(braille_bit(1, 0), 0x08);
    cr_expect_eq(braille_bit(1, 3), 0x80);
    cr_expect_eq(braille_bit(2, 0), 0);
}

Test(braille, a_rising_line_is_one_dot_a_column)
{
    double y[4] = {0, 1, 2, 3};
    px_bseries s = {y, 4, 0};
    px_bplot p;
    cr_assert_eq(braille_plot(&s, 1, 2, 1, -1, &p), 0);
    /* 4 steps on 4 dot columns; 0 at the bottom row, 3 at the top */
    cr_expect_eq(p.cells[0].dots, 0x40 | 0x20, "cell 0: %#x", p.cells[0].dots);
    cr_expect_eq(p.cells[1].dots, 0x02 | 0x08, "cell 1: %#x", p.cells[1].dots);
    cr_expect_eq(p.cells[0].owners, 1);
    cr_expect_eq(p.cells[1].mark, 0);
    cr_expect(p.lo == 0 && p.hi == 3);
    cr_expect_eq(p.steps, 4);
    cr_expect_eq(p.sampled, 0);
    cr_expect_eq(p.marker_col, -1);
    braille_free(&p);
}

Test(braille, a_steep_drop_is_joined)
{
    double y[2] = {3, 0};
    px_bseries s = {y, 2, 0};
    px_bplot p;
    cr_assert_eq(braille_plot(&s, 1, 1, 1, -1, &p), 0);
    /* the top-left dot, then the right column from the row under it down */
    cr_expect_eq(p.cells[0].dots, 0x01 | 0x10 | 0x20 | 0x80, "%#x", p.cells[0].dots);
    braille_free(&p);
    /* few steps on many columns: spread over the width, interpolated */
    double z[2] = {0, 0};
    s = (px_bseries){z, 2, 0};
    cr_assert_eq(braille_plot(&s, 1, 4, 1, -1, &p), 0);
    cr_expect_eq(columns_with_dots(&p), 0xFFu, "every one of the 8 dot columns: %#x", columns_with_dots(&p));
    braille_free(&p);
}

Test(braille, the_range_is_shared_and_a_flat_one_is_the_middle_row)
{
    double a[2] = {1, 2}, b[2] = {5, -1};
    px_bseries s[2] = {{a, 2, 0}, {b, 2, 0}};
    px_bplot p;
    cr_assert_eq(braille_plot(s, 2, 4, 2, -1, &p), 0);
    cr_expect(p.lo == -1 && p.hi == 5, "%g .. %g", p.lo, p.hi);
    /* b's 5 at the top row, its -1 at the bottom; a between */
    cr_expect(dot(&p, 0, 0) && dot(&p, 7, 7));
    cr_expect(!dot(&p, 0, 7));
    braille_free(&p);
    double flat[3] = {2, 2, 2};
    px_bseries f = {flat, 3, 0};
    cr_assert_eq(braille_plot(&f, 1, 3, 2, -1, &p), 0);
    for (int x = 0; x < 6; x++)
        for (int y = 0; y < 8; y++)
            cr_expect_eq(dot(&p, x, y), y == 4, "dot (%d, %d)", x, y);
    braille_free(&p);
    /* nothing finite: no range, no dots */
    double none[2] = {NAN, INFINITY};
    px_bseries n = {none, 2, 0};
    cr_assert_eq(braille_plot(&n, 1, 2, 1, -1, &p), 0);
    cr_expect(isnan(p.lo) && isnan(p.hi));
    cr_expect_eq(columns_with_dots(&p), 0);
    cr_expect_eq(p.skipped[0], 2);
    braille_free(&p);
}

Test(braille, down_sampling_keeps_a_spike)
{
    double y[100];
    for (int i = 0; i < 100; i++)
        y[i] = 1;
    y[60] = 10; /* one step; a mean of its 25 would be 1.36 */
    px_bseries s = {y, 100, 0};
    px_bplot p;
    cr_assert_eq(braille_plot(&s, 1, 2, 2, 60, &p), 0);
    cr_expect_eq(p.sampled, 1);
    cr_expect_eq(p.steps, 100);
    /* 4 dot columns of 25 steps: the third holds the spike, top to bottom */
    for (int r = 0; r < 8; r++) {
        cr_expect(dot(&p, 2, r), "column 2 row %d", r);
        cr_expect_eq(dot(&p, 1, r), r == 7, "column 1 row %d", r);
        cr_expect_eq(dot(&p, 3, r), r == 7, "column 3 row %d", r);
    }
    cr_expect_eq(p.marker_dot, 2, "step 60 is in the third column's steps");
    cr_expect_eq(braille_dot_col(&p, 0), 0);
    cr_expect_eq(braille_dot_col(&p, 24), 0);
    cr_expect_eq(braille_dot_col(&p, 25), 1);
    cr_expect_eq(braille_dot_col(&p, 99), 3);
    cr_expect_eq(braille_dot_col(&p, 100), -1);
    braille_free(&p);
}

Test(braille, points_not_finite_are_left_out_and_counted)
{
    double y[5] = {1, NAN, 3, INFINITY, 2};
    px_bseries s = {y, 5, 0};
    px_bplot p;
    cr_assert_eq(braille_plot(&s, 1, 5, 1, -1, &p), 0);
    cr_expect_eq(p.skipped[0], 2);
    cr_expect_eq(p.first_skipped[0], 1);
    cr_expect(p.lo == 1 && p.hi == 3, "the infinity is no part of the range: %g .. %g", p.lo, p.hi);
    /* steps at dot columns 0, 2, 5, 7, 9: no line across a gap */
    cr_expect_eq(columns_with_dots(&p), 1u << 0 | 1u << 5 | 1u << 9, "%#x", columns_with_dots(&p));
    braille_free(&p);
}

Test(braille, the_marker_is_one_dot_column_top_to_bottom)
{
    double y[10];
    for (int i = 0; i < 10; i++)
        y[i] = i;
    px_bseries s = {y, 10, 0};
    px_bplot p;
    cr_assert_eq(braille_plot(&s, 1, 5, 2, 4, &p), 0);
    /* 10 steps on 10 dot columns: step 4 is dot column 4, cell 2's left */
    cr_expect_eq(p.marker_dot, 4);
    cr_expect_eq(p.marker_col, 2);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 5; c++)
            cr_expect_eq(p.cells[r * 5 + c].mark, c == 2 ? 0x47 : 0, "cell (%d, %d): %#x", r, c,
                         p.cells[r * 5 + c].mark);
    braille_free(&p);
    cr_assert_eq(braille_plot(&s, 1, 5, 2, 5, &p), 0);
    cr_expect_eq(p.cells[2].mark, 0xB8, "step 5: the right column");
    braille_free(&p);
    cr_assert_eq(braille_plot(&s, 1, 5, 2, 10, &p), 0);
    cr_expect_eq(p.marker_col, -1, "past the steps: no marker");
    braille_free(&p);
}

Test(braille, cells_know_their_series_and_a_dotted_one_keeps_every_other_dot)
{
    double a[2] = {0, 0}, b[4] = {NAN, NAN, 1, 1}, c[4] = {0, 0, 1, 1};
    px_bseries s[3] = {{a, 2, 0}, {b, 4, 0}, {c, 4, 0}};
    px_bplot p;
    cr_assert_eq(braille_plot(s, 3, 2, 1, -1, &p), 0);
    /* a on the bottom row of cell 0, b on the top row of cell 1; c on a's
     * then on b's */
    cr_expect_eq(p.cells[0].owners, 1 | 4, "%#x", p.cells[0].owners);
    cr_expect_eq(p.cells[1].owners, 2 | 4, "%#x", p.cells[1].owners);
    braille_free(&p);
    px_bseries same[2] = {{c, 4, 0}, {c, 4, 0}};
    cr_assert_eq(braille_plot(same, 2, 2, 1, -1, &p), 0);
    cr_expect_eq(p.cells[0].owners, 3);
    cr_expect_eq(p.cells[1].owners, 3);
    cr_expect_eq(p.cells[0].dots, 0x40 | 0x80, "%#x", p.cells[0].dots);
    braille_free(&p);
    double lo[4] = {0, 0, 0, 0}, hi[4] = {1, 1, 1, 1};
    px_bseries d[2] = {{lo, 4, 1}, {hi, 4, 1}};
    cr_assert_eq(braille_plot(d, 2, 2, 1, -1, &p), 0);
    /* x + y even: the top row's dots at x 0 and 2, the bottom row's (y 3) at 1 and 3 */
    cr_expect_eq(p.cells[0].dots, 0x01 | 0x80, "%#x", p.cells[0].dots);
    cr_expect_eq(p.cells[1].dots, 0x01 | 0x80, "%#x", p.cells[1].dots);
    braille_free(&p);
    cr_expect_eq(braille_plot(s, 9, 2, 1, -1, &p), -1, "more series than a cell can own");
    cr_expect_eq(braille_plot(s, 1, 0, 1, -1, &p), -1);
}

/* The pane, drawn into a pad from an in-memory fixture (kind training) and
 * results of three environments: the reference, a candidate whose loss
 * parts at step 31 (0-based 30), and the twin. */
#define STEPS 50
typedef struct scene {
    px_fixture f;
    px_env envs[3];
    px_example ex;
    px_results res;
    px_env_result er[3];
    px_example_result xr[3];
    double loss[3][STEPS];
    px_verdict v[3];
    px_env_verdict ev[3];
    px_train_verdict tv;
    char *groups[2];
    double rel[2];
    tui t;
    WINDOW *pad;
    SCREEN *scr;
    FILE *out, *in;
} scene;

static scene *sc;

static void scene_start(const char *term, int colour)
{
    setlocale(LC_ALL, "C.UTF-8");
    sc = calloc(1, sizeof *sc);
    cr_assert_not_null(sc);
    sc->out = fopen("/dev/null", "w"), sc->in = fopen("/dev/null", "r");
    sc->scr = newterm((char *)term, sc->out, sc->in);
    cr_assert_not_null(sc->scr, "no terminfo for %s", term);
    resize_term(40, 120);
    px_fixture *f = &sc->f;
    f->kind = PX_MODEL_TRAINING;
    f->recipe = (px_recipe){.steps = STEPS, .batch_size = 4, .seq_len = 32, .optimizer = PX_OPT_ADAMW, .lr = 1e-3,
                            .warmup_steps = 5, .clip_grad_norm = 1};
    f->train_cmp.params_present = 1, f->train_cmp.params_max_rel = 0.01;
    sc->envs[0] = (px_env){.name = "reference", .device = "cpu", .dtype = "float32", .role = "reference"};
    sc->envs[1] = (px_env){.name = "cpu-bf16", .device = "cpu", .dtype = "bfloat16", .role = "candidate"};
    sc->envs[2] = (px_env){.name = "twin", .device = "cpu", .dtype = "bfloat16", .role = "twin"};
    f->envs = sc->envs, f->n_envs = 3;
    sc->ex = (px_example){.id = "fifty-steps", .kind = "normal", .recipe = &f->recipe, .loss_at_most = NAN};
    f->examples = &sc->ex, f->n_examples = 1;
    for (int e = 0; e < 3; e++) {
        for (int i = 0; i < STEPS; i++)
            sc->loss[e][i] = 4 * exp(-i / 15.0) + 1 + (e == 1 && i >= 30 ? 0.5 : 0) - (e == 2 && i >= 10 ? 0.4 : 0);
        sc->xr[e] = (px_example_result){.status = PX_ST_OK, .values = sc->loss[e], .n_values = STEPS, .ndim = 2,
                                        .shape = {1, STEPS}, .label = -1};
        sc->er[e] = (px_env_result){.name = sc->envs[e].name, .env_index = e, .ex = &sc->xr[e],
                                    .origin = PX_ORIGIN_RUN};
    }
    sc->res = (px_results){.envs = sc->er, .n_envs = 3, .n_examples = 1, .reference = 0};
    tui *t = &sc->t;
    t->f = f, t->res = &sc->res, t->rv.candidate = 1, t->color = colour;
    t->side_labels = 3, t->verdict_cap = 3, t->line_cap = 2, t->text_min = 3;
    theme_default(&t->theme);
    if (colour && has_colors()) {
        start_color();
        use_default_colors();
    }
    sc->pad = newpad(80, 160);
    t->canvas = sc->pad;
}

/* The candidate judged: its loss parts at step 30 (0-based), its gradient
 * norm at 28, the mlp group furthest. */
static void judge_scene(void)
{
    sc->groups[0] = "embed", sc->groups[1] = "mlp";
    sc->rel[0] = 0.004, sc->rel[1] = 0.02;
    sc->tv = (px_train_verdict){.n_steps = STEPS, .loss_step = 30, .grad_step = 28, .update_step = -1,
                                .nonfinite_step = -1, .drop = 3.1, .ref_drop = 3.8, .n_groups = 2,
                                .group = sc->groups, .param_rel = sc->rel,
                                .failed = "loss at step 31: 2.34 against 1.84 (atol 0.01)"};
    sc->v[0] = (px_verdict){.outcome = PX_OC_PASS, .detail = "the reference"};
    sc->v[1] = (px_verdict){.outcome = PX_OC_CURVE_CHANGED, .div = PX_DIV_STEP, .detail = "loss parts at step 31",
                            .train = &sc->tv};
    sc->v[2] = (px_verdict){.outcome = PX_OC_PASS, .detail = "keeps to the reference"};
    for (int e = 0; e < 3; e++)
        sc->ev[e].ex = &sc->v[e];
    sc->t.j.envs = sc->ev, sc->t.j.n_envs = 3, sc->t.j.twin = 2;
    sc->t.judged = 1;
}

static void scene_end(void)
{
    delwin(sc->pad);
    endwin();
    delscreen(sc->scr);
    fclose(sc->out), fclose(sc->in);
    free(sc);
}

/* Cell (y, x): its character, attributes and pair. */
static wchar_t cell_at(int y, int x, attr_t *a, int *pair)
{
    cchar_t c;
    wchar_t w[CCHARW_MAX + 1] = {0};
    short p;
    int pp = 0;
    attr_t aa = 0;
    if (mvwin_wch(sc->pad, y, x, &c) == ERR || getcchar(&c, w, &aa, &p, &pp) == ERR)
        return 0;
    if (a)
        *a = aa;
    if (pair)
        *pair = pp;
    return w[0];
}

static char *row_text(int y, int x, int n);

/* PARITY_PANE_DUMP=1: the pad's first rows on stderr, to be read by eye. */
static void dump(int rows, int w)
{
    if (!getenv("PARITY_PANE_DUMP"))
        return;
    for (int y = 0; y < rows; y++)
        fprintf(stderr, "|%s\n", row_text(y, 0, w));
}

static int is_braille(wchar_t c) { return c >= 0x2800 && c <= 0x28FF; }

static char *row_text(int y, int x, int n)
{
    static char buf[4096];
    size_t len = 0;
    mbstate_t st = {0};
    for (int i = 0; i < n; i++) {
        cchar_t c;
        wchar_t w[CCHARW_MAX + 1] = {0};
        attr_t a;
        short p;
        if (mvwin_wch(sc->pad, y, x + i, &c) == ERR || getcchar(&c, w, &a, &p, NULL) == ERR)
            break;
        for (int k = 0; w[k] && len + 8 < sizeof buf; k++) {
            size_t b = wcrtomb(buf + len, w[k], &st);
            len += b == (size_t)-1 ? 0 : b;
        }
    }
    while (len && buf[len - 1] == ' ')
        len--;
    buf[len] = 0;
    return buf;
}

/* The first row at or after y whose text holds s; -1 none. */
static int find_row(const char *s, int w)
{
    for (int y = 0; y < 80; y++)
        if (strstr(row_text(y, 0, w), s))
            return y;
    return -1;
}

/* The column of the y axis (its "┤" on the plot's top row). */
static int axis_col(int y, int w)
{
    for (int x = 0; x < w; x++)
        if (cell_at(y, x, NULL, NULL) == L'┤')
            return x;
    return -1;
}

/* Braille cells in rows [y0, y1) drawn in pair `pair` (-1: any). */
static int braille_cells(int y0, int y1, int w, int pair)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            int p = 0;
            if (is_braille(cell_at(y, x, NULL, &p)) && (pair < 0 || p == pair))
                n++;
        }
    return n;
}

Test(pane_training, the_table_has_its_row, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    cr_expect_eq(tui_pane_of(&sc->t), &tui_pane_training);
    char *o = tui_pane_training.output(&sc->t, 0);
    cr_assert_not_null(o);
    cr_expect_str_eq(o, "output: a loss curve of 50 steps, adamw at lr 0.001, 5 warm-up, batch 4 x 32 tokens, "
                        "clipped to 1");
    free(o);
    /* A run with its own train: keys says its own recipe, not the
     * contract's. */
    px_recipe own = sc->f.recipe;
    own.steps = 20, own.lr = 0.01, own.warmup_steps = 0;
    sc->ex.recipe = &own;
    o = tui_pane_training.output(&sc->t, 0);
    cr_assert_not_null(o);
    cr_expect_str_eq(o, "output: a loss curve of 20 steps, adamw at lr 0.01, batch 4 x 32 tokens, clipped to 1");
    free(o);
    sc->ex.recipe = &sc->f.recipe;
}

Test(pane_training, three_curves_in_the_themes_colours, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    int used = tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 90), "what is counted is what is drawn");
    cr_expect(strstr(row_text(0, 0, 90), "loss by step:"), "%s", row_text(0, 0, 90));
    cr_expect(strstr(row_text(0, 0, 90), "reference"), "%s", row_text(0, 0, 90));
    cr_expect(strstr(row_text(0, 0, 90), "cpu-bf16"), "%s", row_text(0, 0, 90));
    cr_expect(strstr(row_text(0, 0, 90), "twin"), "%s", row_text(0, 0, 90));
    /* the plot: 8 rows (a third of 40, at most 8), the range beside it */
    int ax = axis_col(1, 90);
    cr_assert_geq(ax, 1, "no y axis: %s", row_text(1, 0, 90));
    cr_expect_str_eq(row_text(1, 0, ax), "     5", "the loss's greatest, step 1's, right-aligned");
    char lo[32];
    snprintf(lo, sizeof lo, "%.4g", sc->loss[2][STEPS - 1]);
    cr_expect_str_eq(row_text(8, 0, ax), lo, "the least, the twin's last");
    cr_expect_eq(cell_at(9, ax, NULL, NULL), L'└');
    cr_expect_eq(cell_at(9, ax + 1, NULL, NULL), L'1');
    cr_expect(strstr(row_text(9, 0, 90), "50"), "%s", row_text(9, 0, 90));
    /* braille in each curve's element: the theme's pairs, none of its own */
    cr_expect_gt(braille_cells(1, 9, 90, PX_EL_REFERENCE + 1), 0);
    cr_expect_gt(braille_cells(1, 9, 90, PX_EL_CANDIDATE + 1), 0);
    cr_expect_gt(braille_cells(1, 9, 90, PX_EL_DRIFT + 1), 0, "the twin in the third");
    cr_expect_gt(braille_cells(1, 9, 90, PX_EL_NORMAL + 1), 0, "cells two curves share");
    cr_expect_eq(braille_cells(1, 9, 90, -1),
                 braille_cells(1, 9, 90, PX_EL_REFERENCE + 1) + braille_cells(1, 9, 90, PX_EL_CANDIDATE + 1) +
                     braille_cells(1, 9, 90, PX_EL_DRIFT + 1) + braille_cells(1, 9, 90, PX_EL_NORMAL + 1),
                 "every cell in a theme's pair");
    /* the candidate's last steps lie above the reference's: its own cells there */
    int top_cand = 99, top_ref = 99;
    for (int y = 1; y < 9; y++) {
        int p = 0;
        if (is_braille(cell_at(y, 89, NULL, &p)) && p == PX_EL_CANDIDATE + 1 && y < top_cand)
            top_cand = y;
        if (is_braille(cell_at(y, 89, NULL, &p)) && p != PX_EL_CANDIDATE + 1 && y < top_ref)
            top_ref = y;
    }
    cr_expect_lt(top_cand, top_ref, "the candidate's end over the reference's (rows %d, %d)", top_cand, top_ref);
    /* not judged: the figures from the curves themselves */
    cr_expect(find_row("loss at the end: reference ", 90) >= 0);
    cr_expect(find_row("drop: cpu-bf16 ", 90) >= 0);
    cr_expect_eq(find_row("parts at:", 90), -1, "no verdict, no parting step");
}

Test(pane_training, the_first_parting_step_is_marked_and_the_figures_written, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    judge_scene();
    int used = tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    dump(used, 90);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 90));
    int ax = axis_col(1, 90), pw = 90 - ax - 1;
    /* step 30 of 50 on 2 * pw dot columns: round(30 * (2pw - 1) / 49) */
    int dcol = (int)lround(30.0 * (2 * pw - 1) / 49), col = ax + 1 + dcol / 2;
    cr_expect_eq(cell_at(9, col, NULL, NULL), L'↑', "the arrow under column %d: %s", col, row_text(9, 0, 90));
    cr_expect(strstr(row_text(9, col, 10), "↑31"), "1-based, as the axis: %s", row_text(9, col, 10));
    uint8_t bits = dcol % 2 ? 0xB8 : 0x47;
    for (int y = 1; y < 9; y++) {
        wchar_t c = cell_at(y, col, NULL, NULL);
        cr_expect(is_braille(c) && ((c - 0x2800) & bits) == bits, "row %d, column %d: U+%04X", y, col, (unsigned)c);
    }
    /* the marker's column only */
    int marked = 0;
    for (int x = ax + 1; x < 90; x++) {
        int full = 1;
        for (int y = 1; y < 9; y++) {
            wchar_t c = cell_at(y, x, NULL, NULL);
            full &= is_braille(c) && (((c - 0x2800) & 0x47) == 0x47 || ((c - 0x2800) & 0xB8) == 0xB8);
        }
        marked += full;
    }
    cr_expect_eq(marked, 1);
    /* the figures */
    char want[256];
    snprintf(want, sizeof want, "loss at the end: reference %.4g  cpu-bf16 %.4g  twin %.4g",
             (sc->loss[0][45] + sc->loss[0][46] + sc->loss[0][47] + sc->loss[0][48] + sc->loss[0][49]) / 5,
             (sc->loss[1][45] + sc->loss[1][46] + sc->loss[1][47] + sc->loss[1][48] + sc->loss[1][49]) / 5,
             (sc->loss[2][45] + sc->loss[2][46] + sc->loss[2][47] + sc->loss[2][48] + sc->loss[2][49]) / 5);
    cr_expect_geq(find_row(want, 90), 0, "%s", want);
    cr_expect_geq(find_row("drop: cpu-bf16 3.1 against the reference's 3.8 (82%)", 90), 0, "the verdict's drops");
    int parts = find_row("parts at: loss step 31, grad norm step 29, update —", 90);
    cr_expect_geq(parts, 0);
    int a = 0;
    cell_at(parts, 0, NULL, &a);
    cr_expect_eq(a, PX_EL_CHANGED + 1);
    int worst = find_row("worst group: mlp, parameters 0.02 apart (relative); compare.train.params 0.01", 90);
    cr_expect_geq(worst, 0);
    cell_at(worst, 0, NULL, &a);
    cr_expect_eq(a, PX_EL_FAIL + 1, "over the contract's bound");
    int failed = find_row("failed: loss at step 31: 2.34 against 1.84 (atol 0.01)", 90);
    cr_expect_geq(failed, 0);
    cr_expect_geq(find_row("cpu-bf16: curve-changed: loss parts at step 31", 90), failed, "then the verdicts");
    cr_expect_geq(find_row("twin: pass: keeps to the reference", 90), 0, "the twin's too");
}

Test(pane_training, a_parting_stage_without_a_loss_step_marks_the_earliest, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    judge_scene();
    sc->tv.loss_step = -1, sc->tv.grad_step = 40, sc->tv.update_step = 12;
    tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    cr_expect(strstr(row_text(9, 0, 90), "↑13"), "%s", row_text(9, 0, 90));
    werase(sc->pad);
    sc->v[1].div = PX_DIV_NONE; /* the groups alone part: no step to mark */
    tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    cr_expect(!strstr(row_text(9, 0, 90), "↑"), "%s", row_text(9, 0, 90));
}

/* Without colour the reference is dotted and plain, the candidate solid
 * and bold, the twin left out of the plot. */
static void expect_mono(void)
{
    int used = tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    dump(used, 90);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 90));
    const char *legend = row_text(0, 0, 90);
    cr_expect(strstr(legend, "reference (dotted)"), "%s", legend);
    cr_expect(strstr(legend, "cpu-bf16 (bold)"), "%s", legend);
    cr_expect(strstr(legend, "(twin: figures only)"), "%s", legend);
    cr_expect(!strstr(legend, "shared"), "%s", legend);
    int bold = 0, plain = 0, pairs = 0;
    for (int y = 1; y < 9; y++)
        for (int x = 0; x < 90; x++) {
            attr_t a = 0;
            int p = 0;
            if (!is_braille(cell_at(y, x, &a, &p)))
                continue;
            pairs += p != 0;
            if (a & A_BOLD)
                bold++;
            else
                plain++;
        }
    cr_expect_gt(bold, 0);
    cr_expect_gt(plain, 0);
    cr_expect_eq(pairs, 0, "no colour pair at all");
    /* the reference's first steps, before the candidate parts: its dots
     * are the candidate's, so bold; after step 31 the reference's alone,
     * dotted: no cell of it has two dots side by side in a row */
    int ax = axis_col(1, 90);
    for (int y = 1; y < 9; y++) {
        attr_t a = 0;
        wchar_t c = cell_at(y, 89, &a, NULL);
        if (is_braille(c) && !(a & A_BOLD)) {
            unsigned d = (unsigned)(c - 0x2800);
            for (int r = 0; r < 4; r++)
                cr_expect(!((d & braille_bit(0, r)) && (d & braille_bit(1, r))), "row %d U+%04X dotted", y,
                          (unsigned)c);
        }
    }
    cr_expect_geq(ax, 1);
}

Test(pane_training, without_colour_the_curves_differ_by_dots_and_weight, .fini = scene_end)
{
    scene_start("xterm-256color", 0);
    expect_mono();
}

Test(pane_training, a_terminal_without_eight_colours_is_monochrome, .fini = scene_end)
{
    scene_start("vt100", 1);
    expect_mono();
}

Test(pane_training, monochrome_draws_other_cells_than_colour, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    char colour[8][512];
    for (int y = 1; y < 9; y++)
        snprintf(colour[y - 1], sizeof colour[0], "%s", row_text(y, 0, 90));
    werase(sc->pad);
    sc->t.color = 0;
    tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    int differ = 0;
    for (int y = 1; y < 9; y++)
        differ += strcmp(colour[y - 1], row_text(y, 0, 90)) != 0;
    cr_expect_gt(differ, 0, "the dotted reference and the twin left out change the glyphs");
}

Test(pane_training, points_not_finite_and_runs_without_a_curve_are_said, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    for (int i = 40; i < 43; i++)
        sc->loss[1][i] = NAN;
    sc->xr[2] = (px_example_result){.status = PX_ST_CRASH, .detail = "signal 9", .label = -1};
    int used = tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 90));
    cr_expect_geq(find_row("cpu-bf16: 3 steps not finite, left out (the first: step 41)", 90), 0);
    cr_expect_geq(find_row("twin: no loss curve (crash: signal 9)", 90), 0);
    werase(sc->pad);
    tui_pane_training.draw(&sc->t, 0, 0, 0, 12, 80);
    cr_expect_geq(find_row("cpu-bf16: 3…", 12), 0, "said without a plot too");
    cr_expect_eq(braille_cells(1, 9, 90, PX_EL_DRIFT + 1), 0, "no twin's curve");
    sc->xr[1].status = PX_ST_PENDING;
    werase(sc->pad);
    tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    cr_expect_geq(find_row("cpu-bf16: ", 90), 0);
    cr_expect_gt(braille_cells(1, 9, 90, PX_EL_REFERENCE + 1), 0, "the reference alone, drawn");
}

Test(pane_training, narrow_pads_get_a_smaller_plot_then_the_figures_alone, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    judge_scene();
    /* 20 columns: a plot of 20 - 5 - 1 cells */
    int used = tui_pane_training.draw(&sc->t, 0, 0, 0, 20, 80);
    dump(used, 20);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 20));
    int ax = axis_col(1, 20);
    cr_expect_geq(ax, 1);
    cr_expect_gt(braille_cells(1, 9, 20, -1), 0);
    cr_expect_eq(braille_cells(1, 9, 160, -1), braille_cells(1, 9, 20, -1), "nothing past the pane's width");
    for (int y = 0; y < used; y++)
        cr_expect_eq(cell_at(y, 20, NULL, NULL), L' ', "row %d drawn past 20 columns: %s", y, row_text(y, 0, 40));
    /* 12: no room for a plot: the range in words, then the figures */
    werase(sc->pad);
    used = tui_pane_training.draw(&sc->t, 0, 0, 0, 12, 80);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 12));
    cr_expect_eq(braille_cells(0, 80, 160, -1), 0);
    char lo[32], words[128];
    snprintf(lo, sizeof lo, "%.4g", sc->loss[2][STEPS - 1]);
    snprintf(words, sizeof words, "loss %s to 5 over steps 1 to 50 (no room to draw it)", lo);
    cr_expect_str_eq(row_text(0, 0, 12), "loss 0.7525…", "%s", words);
    cr_expect_str_eq(row_text(1, 0, 12), "loss at the…");
    for (int y = 0; y < used; y++)
        cr_expect_eq(cell_at(y, 12, NULL, NULL), L' ', "row %d drawn past 12 columns", y);
    /* tiny and short: nothing past the rows given */
    for (int w = 0; w < 12; w++) {
        werase(sc->pad);
        int u = tui_pane_training.draw(&sc->t, 0, 0, 0, w, 3);
        cr_expect_leq(u, 3, "width %d", w);
        cr_expect_str_eq(row_text(3, 0, 160), "", "width %d: row 3 is past the end", w);
    }
    /* rows enough for the figures but not the plot: the figures alone */
    werase(sc->pad);
    used = tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 6);
    cr_expect_eq(used, 6);
    cr_expect_eq(braille_cells(0, 80, 160, -1), 0);
    cr_expect_str_eq(row_text(0, 0, 90), words);
}

Test(pane_training, the_candidate_alone_without_a_reference, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    sc->res.reference = -1;
    int used = tui_pane_training.draw(&sc->t, 0, 0, 0, 90, 80);
    cr_expect_eq(used, tui_pane_training.rows(&sc->t, 0, 90));
    cr_expect_gt(braille_cells(1, 9, 90, PX_EL_CANDIDATE + 1), 0);
    cr_expect_eq(braille_cells(1, 9, 90, PX_EL_REFERENCE + 1), 0);
    cr_expect(find_row("drop: cpu-bf16 ", 90) >= 0);
    cr_expect_eq(find_row("against the reference", 90), -1);
}
