/* The image kind's review pane: its pictures made cells (halfblock.h) as
 * data, without a terminal: half blocks with the upper pixel as the
 * foreground and the lower as the background, area-average down-sampling,
 * the xterm 256-colour palette, the monochrome difference map marking
 * exactly the cells that differ, a NaN image refused with words. Then the
 * pane itself (pane_image.c) drawn off-screen into a pad from an in-memory
 * fixture and results, read back cell by cell: its titles, its words for
 * what is not a picture, its colour pairs, and a pane too small. */
#include <criterion/criterion.h>
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "parity/halfblock.h"
#include "parity/imagecmp.h"
#include "parity/theme.h"
#include "../src/tui/pane.h"
#include "testlib.h"

static px_image8 image(int h, int w, int c)
{
    px_image8 m = {h, w, c, calloc((size_t)h * w * c, 1)};
    cr_assert_not_null(m.px);
    return m;
}

static void put(px_image8 *m, int y, int x, uint8_t r, uint8_t g, uint8_t b)
{
    uint8_t *p = m->px + ((size_t)y * m->w + x) * m->c;
    p[0] = r, p[1] = g, p[2] = b;
}

#define RGB_EQ(a, R, G, B) cr_expect((a).r == (R) && (a).g == (G) && (a).b == (B), \
                                     #a " is (%d, %d, %d), not (%d, %d, %d)", (a).r, (a).g, (a).b, R, G, B)

Test(halfblock, red_over_blue_rows_are_half_blocks)
{
    /* rows red, blue, red, blue: each cell's upper pixel red, lower blue */
    px_image8 m = image(4, 4, 3);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            put(&m, y, x, y % 2 ? 0 : 255, 0, y % 2 ? 255 : 0);
    px_hcell c[8];
    cr_assert_eq(halfblock_image(&m, 4, 2, PX_COLOURS_TRUE, c), 0);
    for (int i = 0; i < 8; i++) {
        cr_expect_str_eq(c[i].ch, "▀");
        RGB_EQ(c[i].fg, 255, 0, 0);
        RGB_EQ(c[i].bg, 0, 0, 255);
    }
    /* left half red, right half blue: by column, both halves alike */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            put(&m, y, x, x < 2 ? 255 : 0, 0, x < 2 ? 0 : 255);
    cr_assert_eq(halfblock_image(&m, 4, 2, PX_COLOURS_256, c), 0);
    for (int i = 0; i < 8; i++) {
        int red = i % 4 < 2;
        RGB_EQ(c[i].fg, red ? 255 : 0, 0, red ? 0 : 255);
        RGB_EQ(c[i].bg, red ? 255 : 0, 0, red ? 0 : 255);
    }
    image8_free(&m);
}

Test(halfblock, down_sampling_averages_areas)
{
    px_image8 m = image(4, 4, 1), s;
    for (int i = 0; i < 16; i++)
        m.px[i] = (uint8_t)(i * 10); /* row y: 40y, 40y+10, ... */
    cr_assert_eq(halfblock_shrink(&m, 2, 2, &s), 0);
    cr_assert_eq(s.h, 2);
    cr_assert_eq(s.w, 2);
    /* the top-left quarter: 0, 10, 40, 50 */
    cr_expect_eq(s.px[0], 25);
    cr_expect_eq(s.px[1], 45);
    cr_expect_eq(s.px[2], 105);
    cr_expect_eq(s.px[3], 125);
    image8_free(&s);
    image8_free(&m);
    /* three pixels into two: each output pixel covers one and a half */
    px_image8 row = image(1, 3, 1);
    row.px[0] = 0, row.px[1] = 90, row.px[2] = 180;
    cr_assert_eq(halfblock_shrink(&row, 1, 2, &s), 0);
    cr_expect_eq(s.px[0], 30);  /* (0 + 90 / 2) / 1.5 */
    cr_expect_eq(s.px[1], 150); /* (90 / 2 + 180) / 1.5 */
    image8_free(&s);
    image8_free(&row);
}

Test(halfblock, fit_keeps_the_shape_and_never_upscales)
{
    int c, r;
    halfblock_fit(32, 32, 200, 0, &c, &r);
    cr_expect(c == 32 && r == 16, "32x32 in a wide pane: %dx%d, not 32x16 (one pixel a half cell)", c, r);
    halfblock_fit(32, 32, 25, 0, &c, &r);
    cr_expect(c == 25 && r == 13, "32x32 in 25 columns: %dx%d", c, r);
    halfblock_fit(32, 32, 200, 8, &c, &r);
    cr_expect(c == 16 && r == 8, "32x32 in 8 rows: %dx%d", c, r);
    halfblock_fit(16, 64, 32, 0, &c, &r);
    cr_expect(c == 32 && r == 4, "16x64 in 32 columns: %dx%d", c, r);
    halfblock_fit(32, 32, 0, 0, &c, &r);
    cr_expect(c == 0 && r == 0);
}

Test(halfblock, xterm_256_colours)
{
    cr_expect_eq(halfblock_xterm256((px_rgb){255, 0, 0}), 196);
    cr_expect_eq(halfblock_xterm256((px_rgb){0, 0, 255}), 21);
    cr_expect_eq(halfblock_xterm256((px_rgb){0, 0, 0}), 16);
    cr_expect_eq(halfblock_xterm256((px_rgb){255, 255, 255}), 231);
    cr_expect_eq(halfblock_xterm256((px_rgb){95, 135, 175}), 67);
    /* greys go to the grey ramp, which is finer than the cube's greys */
    cr_expect_eq(halfblock_xterm256((px_rgb){128, 128, 128}), 244);
    cr_expect_eq(halfblock_xterm256((px_rgb){30, 30, 30}), 234);
    px_rgb g = halfblock_xterm_rgb(244);
    RGB_EQ(g, 128, 128, 128);
}

Test(halfblock, heat_runs_black_red_yellow_white)
{
    px_rgb z = halfblock_heat(0), one = halfblock_heat(1), mid = halfblock_heat(128), top = halfblock_heat(255);
    RGB_EQ(z, 0, 0, 0);
    cr_expect(one.r > 0 && one.g == 0 && one.b == 0, "a difference of 1 shows (red %d)", one.r);
    cr_expect(mid.r == 255 && mid.g >= 128 && mid.b < 128, "128 apart is yellow (%d,%d,%d)", mid.r, mid.g, mid.b);
    RGB_EQ(top, 255, 255, 255);
    /* The pane's map and the report's are one scale. */
    for (int d = 0; d < 256; d++) {
        uint8_t rgb[3];
        imagecmp_heat((uint8_t)d, rgb);
        px_rgb h = halfblock_heat(d);
        cr_assert(h.r == rgb[0] && h.g == rgb[1] && h.b == rgb[2], "difference %d: pane and report differ", d);
    }
}

Test(halfblock, monochrome_map_marks_exactly_the_differing_cells)
{
    px_image8 a = image(8, 8, 3), b = image(8, 8, 3);
    put(&b, 5, 2, 200, 0, 0); /* one large difference: cell (2, 2) at 8x4 */
    put(&b, 0, 7, 0, 3, 0);   /* one small one: cell (0, 7) */
    put(&b, 3, 4, 0, 0, 20);  /* one in between: cell (1, 4) */
    uint8_t *map = imagecmp_diff_map(&b, &a);
    cr_assert_not_null(map);
    px_hcell c[32];
    cr_assert_eq(halfblock_diff(map, 8, 8, 8, 4, PX_COLOURS_MONO, c), 0);
    for (int r = 0; r < 4; r++)
        for (int x = 0; x < 8; x++) {
            const char *want = r == 2 && x == 2 ? "█" : r == 0 && x == 7 ? "░" : r == 1 && x == 4 ? "▒" : " ";
            cr_expect_str_eq(c[r * 8 + x].ch, want, "cell (%d, %d)", r, x);
        }
    /* made four times smaller, the single pixel still shows (the largest,
     * not the mean, of each area) */
    cr_assert_eq(halfblock_diff(map, 8, 8, 2, 1, PX_COLOURS_MONO, c), 0);
    cr_expect_str_eq(c[0].ch, "█");
    cr_expect_str_eq(c[1].ch, "▒");
    /* in colour: equal halves black, the large one hot */
    cr_assert_eq(halfblock_diff(map, 8, 8, 8, 4, PX_COLOURS_TRUE, c), 0);
    RGB_EQ(c[0].fg, 0, 0, 0);
    px_rgb hot = halfblock_heat(200);
    RGB_EQ(c[2 * 8 + 2].bg, hot.r, hot.g, hot.b); /* pixel (5, 2): lower half of cell row 2 */
    cr_expect(hot.r == 255 && hot.g == 255, "200 apart is near white");
    RGB_EQ(c[2 * 8 + 2].fg, 0, 0, 0);
    free(map);
    image8_free(&a);
    image8_free(&b);
}

Test(halfblock, monochrome_picture_is_a_luma_ramp)
{
    px_image8 m = image(2, 3, 3);
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 2; y++)
            put(&m, y, x, (uint8_t)(x * 100), (uint8_t)(x * 100), (uint8_t)(x * 100));
    px_hcell c[3];
    cr_assert_eq(halfblock_image(&m, 3, 1, PX_COLOURS_MONO, c), 0);
    cr_expect_str_eq(c[0].ch, " ");
    cr_expect_str_eq(c[1].ch, "░"); /* 100 of 255 */
    cr_expect_str_eq(c[2].ch, "▓"); /* 200 */
    image8_free(&m);
}

Test(halfblock, what_is_not_a_picture_is_said)
{
    double v[12];
    for (int i = 0; i < 12; i++)
        v[i] = 0.5;
    int64_t shape[4] = {1, 2, 2, 3};
    px_image8 m;
    char why[256];
    cr_assert_eq(halfblock_picture(v, 12, 4, shape, 2, 2, 3, &m, why, sizeof why), 0);
    cr_expect_eq(m.px[0], 128);
    image8_free(&m);
    v[7] = NAN; /* pixel (1, 0), channel 1 */
    cr_expect_eq(halfblock_picture(v, 12, 4, shape, 2, 2, 3, &m, why, sizeof why), -1);
    cr_expect_null(m.px);
    cr_expect_str_eq(why, "not finite: pixel (1, 0) channel 1 is nan");
    v[7] = 0.5;
    int64_t flat[2] = {1, 12};
    cr_expect_eq(halfblock_picture(v, 12, 2, flat, 2, 2, 3, &m, why, sizeof why), -1);
    cr_expect_str_eq(why, "bad shape: [1, 12] (12 values), not an image [1, height, width, channels]");
    cr_expect_eq(halfblock_picture(v, 12, 4, shape, 4, 4, 3, &m, why, sizeof why), -1);
    cr_expect_str_eq(why, "bad shape: 2x2, 3 channels; the contract's image is 4x4, 3 channels");
    cr_expect_eq(halfblock_picture(v, 11, 4, shape, 0, 0, 0, &m, why, sizeof why), -1);
    cr_expect(strstr(why, "bad shape: [1, 2, 2, 3] (11 values)"), "%s", why);
}

/* The pane, drawn into a pad from an in-memory fixture (kind image, 8x8
 * pictures) and results of two environments. */
typedef struct scene {
    px_fixture f;
    px_env envs[2];
    px_example ex;
    px_results res;
    px_env_result er[2];
    px_example_result xr[2];
    double pic[2][8 * 8 * 3];
    tui t;
    WINDOW *pad;
    SCREEN *scr;
    FILE *out, *in;
} scene;

static scene *sc;

static void scene_start(const char *term, int colour)
{
    setlocale(LC_ALL, "C.UTF-8"); /* as the screen sets it (tui.c) */
    sc = calloc(1, sizeof *sc);
    cr_assert_not_null(sc);
    sc->out = fopen("/dev/null", "w"), sc->in = fopen("/dev/null", "r");
    sc->scr = newterm((char *)term, sc->out, sc->in);
    cr_assert_not_null(sc->scr, "no terminfo for %s", term);
    resize_term(40, 120);
    px_fixture *f = &sc->f;
    f->kind = PX_MODEL_IMAGE;
    f->image = (px_image_spec){.present = 1, .height = 8, .width = 8, .channels = 3, .steps = 4};
    sc->envs[0] = (px_env){.name = "reference", .device = "cpu", .dtype = "float32"};
    sc->envs[1] = (px_env){.name = "cpu-bf16", .device = "cpu", .dtype = "bfloat16"};
    f->envs = sc->envs, f->n_envs = 2;
    sc->ex = (px_example){.id = "red-circle", .kind = "normal"};
    f->examples = &sc->ex, f->n_examples = 1;
    for (int e = 0; e < 2; e++) {
        px_example_result *x = &sc->xr[e];
        for (int i = 0; i < 8 * 8; i++) /* a red square on blue; the candidate's top-left pixel green */
            sc->pic[e][3 * i] = (i / 8 >= 2 && i / 8 < 6 && i % 8 >= 2 && i % 8 < 6),
            sc->pic[e][3 * i + 2] = 1 - sc->pic[e][3 * i];
        if (e == 1)
            sc->pic[1][1] = 1, sc->pic[1][2] = 0;
        *x = (px_example_result){.status = PX_ST_OK, .values = sc->pic[e], .n_values = 8 * 8 * 3, .ndim = 4,
                                 .shape = {1, 8, 8, 3}, .label = -1};
        sc->er[e] = (px_env_result){.name = sc->envs[e].name, .env_index = e, .ex = x, .origin = PX_ORIGIN_RUN};
    }
    sc->res = (px_results){.envs = sc->er, .n_envs = 2, .n_examples = 1, .reference = 0};
    tui *t = &sc->t;
    t->f = f, t->res = &sc->res, t->rv.candidate = 1, t->color = colour;
    t->side_labels = 3, t->verdict_cap = 3, t->line_cap = 2, t->text_min = 3;
    theme_default(&t->theme);
    if (colour) {
        start_color();
        use_default_colors();
    }
    sc->pad = newpad(60, 120);
    t->canvas = sc->pad;
}

static void scene_end(void)
{
    delwin(sc->pad);
    endwin();
    delscreen(sc->scr);
    fclose(sc->out), fclose(sc->in);
    free(sc);
}

/* Row y of the pad from column x, n columns, as UTF-8. */
static char *row_text(int y, int x, int n)
{
    static char buf[2048];
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

/* The colours cell (y, x) is drawn in, as 256-colour indices. */
static void cell_colours(int y, int x, int *fg, int *bg)
{
    cchar_t c;
    wchar_t w[CCHARW_MAX + 1];
    attr_t a;
    short p;
    int pair = 0;
    cr_assert_neq(mvwin_wch(sc->pad, y, x, &c), ERR);
    cr_assert_neq(getcchar(&c, w, &a, &p, &pair), ERR);
    cr_assert_gt(pair, PX_EL_COUNT, "cell (%d, %d): pair %d is the theme's", y, x, pair);
    cr_assert_neq(extended_pair_content(pair, fg, bg), ERR);
}

/* The output line: the contract's recipe and the example's own seed, else
 * the contract's. */
Test(pane_image, the_output_line_names_the_example_s_seed, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    sc->f.image.seed = 7, sc->f.image.guidance_scale = 1;
    char *o = tui_pane_image.output(&sc->t, 0);
    cr_expect_str_eq(o, "output: a 8x8 image, 4 steps of the pipeline's scheduler, guidance 1, seed 7");
    free(o);
    sc->ex.has_seed = 1, sc->ex.seed = 12345678901ULL;
    o = tui_pane_image.output(&sc->t, 0);
    cr_expect_str_eq(o, "output: a 8x8 image, 4 steps of the pipeline's scheduler, guidance 1, seed 12345678901");
    free(o);
}

Test(pane_image, draws_both_pictures_and_the_map_in_256_colours, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    int used = tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    cr_expect_eq(used, tui_pane_image.rows(&sc->t, 0, 90), "what is counted is what is drawn");
    /* three panels of (90 - 4) / 3 = 28 columns: 8x8 pictures whole (8x4) */
    cr_expect_str_eq(row_text(0, 0, 28), "reference (cpu float32)");
    cr_expect_str_eq(row_text(0, 30, 28), "cpu-bf16 (cpu bfloat16)");
    cr_expect_str_eq(row_text(0, 60, 28), "|Δ| cpu-bf16 vs reference");
    cr_expect_str_eq(row_text(1, 0, 28), "▀▀▀▀▀▀▀▀");
    cr_expect_str_eq(row_text(4, 0, 28), "▀▀▀▀▀▀▀▀", "four rows of cells for eight pixel rows");
    int fg, bg;
    cell_colours(1, 0, &fg, &bg); /* blue on blue, the reference's corner */
    cr_expect(fg == 21 && bg == 21, "%d on %d", fg, bg);
    cell_colours(2, 3, &fg, &bg); /* pixel rows 2 and 3: red over red */
    cr_expect(fg == 196 && bg == 196, "%d on %d", fg, bg);
    cell_colours(1, 30, &fg, &bg); /* the candidate's green corner over blue */
    cr_expect(fg == 46 && bg == 21, "%d on %d", fg, bg);
    cell_colours(1, 60, &fg, &bg); /* the map: white where they part, black where not */
    cr_expect(fg == 231 && bg == 16, "%d on %d", fg, bg);
    cell_colours(1, 61, &fg, &bg);
    cr_expect(fg == 16 && bg == 16, "%d on %d", fg, bg);
    /* not judged yet: imagecmp's own figures on the two pictures */
    cr_expect(strstr(row_text(5, 0, 90), "map: black equal"), "%s", row_text(5, 0, 90));
    cr_expect(strstr(row_text(6, 0, 90), "PSNR "), "%s", row_text(6, 0, 90));
    cr_expect(strstr(row_text(6, 0, 90), "max |Δ| 255 (of 255)"), "%s", row_text(6, 0, 90));
}

Test(pane_image, without_colour_shades_and_marks, .fini = scene_end)
{
    scene_start("xterm-256color", 0);
    tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    /* blue is dark (luma 29): ' '; the red square (luma 76) '░' */
    cr_expect_str_eq(row_text(2, 0, 28), "  ░░░░");
    cr_expect_str_eq(row_text(1, 60, 28), "█", "the map marks the one differing cell only");
    for (int y = 2; y <= 4; y++)
        cr_expect_str_eq(row_text(y, 60, 28), "");
    cr_expect(strstr(row_text(5, 0, 90), "map: ' ' equal"), "%s", row_text(5, 0, 90));
}

Test(pane_image, says_what_is_not_a_picture, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    sc->pic[1][10] = NAN; /* pixel (0, 3), channel 1 */
    sc->xr[0] = (px_example_result){.status = PX_ST_REJECTED, .detail = "class 'dragon' is not one of the labels"};
    int used = tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    cr_expect_eq(used, tui_pane_image.rows(&sc->t, 0, 90));
    cr_expect_str_eq(row_text(1, 0, 28), "rejected: class 'dragon' is");
    cr_expect_str_eq(row_text(1, 46, 44), "not finite: pixel (0, 3) channel 1 is nan");
    cr_expect(!strstr(row_text(0, 0, 90), "|Δ|"), "no map without two pictures: %s", row_text(0, 0, 90));
}

Test(pane_image, the_candidate_alone_without_a_reference, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    sc->res.reference = -1;
    tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    cr_expect_str_eq(row_text(0, 0, 45), "cpu-bf16 (cpu bfloat16)");
    cr_expect_str_eq(row_text(1, 0, 45), "▀▀▀▀▀▀▀▀");
    cr_expect_str_eq(row_text(5, 0, 90), "no reference result: the candidate alone, nothing to compare it with");
}

Test(pane_image, a_blank_picture_is_said, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    for (int i = 0; i < 8 * 8 * 3; i++)
        sc->pic[1][i] = 0;
    tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    cr_expect_str_eq(row_text(1, 46, 44), "blank: every pixel #000000");
}

Test(pane_image, narrow_panes_stack_and_tiny_ones_say_so, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    int used = tui_pane_image.draw(&sc->t, 0, 0, 0, 20, 60);
    cr_expect_eq(used, tui_pane_image.rows(&sc->t, 0, 20));
    cr_expect_str_eq(row_text(0, 0, 20), "reference (cpu floa…");
    cr_expect_str_eq(row_text(1, 0, 20), "▀▀▀▀▀▀▀▀");
    cr_expect_str_eq(row_text(6, 0, 20), "cpu-bf16 (cpu bfloa…");
    werase(sc->pad);
    cr_expect_eq(tui_pane_image.draw(&sc->t, 0, 0, 0, 7, 60), 1);
    cr_expect_eq(tui_pane_image.rows(&sc->t, 0, 7), 1);
    cr_expect_str_eq(row_text(0, 0, 7), "pane t…");
}

Test(pane_image, judged_figures_failed_checks_and_the_latents_curve, .fini = scene_end)
{
    scene_start("xterm-256color", 1);
    static px_verdict v[2];
    static px_env_verdict ev[2];
    int steps[6] = {0, 1, 2, 3, 4, 5};
    double curve[6] = {0, 0.01, 0.02, 0.2, 0.4, 0.8};
    px_image_verdict iv = {.psnr = 24.5, .ssim = 0.91, .mean_abs = 3.25, .max_abs = 120, .diverged_step = 3,
                           .n_curve = 6, .curve_step = steps, .curve = curve, .failed = "psnr 24.50 < 30"};
    v[0] = (px_verdict){.outcome = PX_OC_PASS, .detail = "the reference"};
    v[1] = (px_verdict){.outcome = PX_OC_IMAGE_CHANGED, .detail = "psnr 24.50 below 30", .image = &iv};
    ev[0].ex = &v[0], ev[1].ex = &v[1];
    sc->t.j.envs = ev, sc->t.j.n_envs = 2;
    sc->t.judged = 1;
    int used = tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    cr_expect_eq(used, tui_pane_image.rows(&sc->t, 0, 90));
    cr_expect_str_eq(row_text(6, 0, 90), "PSNR 24.50 dB  SSIM 0.9100  mean |Δ| 3.25  max |Δ| 120 (of 255)",
                     "the judge's figures, not recomputed");
    cr_expect_str_eq(row_text(7, 0, 90), "failed: psnr 24.50 < 30");
    cr_expect_str_eq(row_text(8, 0, 90), "latent |Δ| by step ▁▁▁▃▅█ max 0.8; parts at step 3");
    cr_expect_str_eq(row_text(9, 0, 90), "pass: the reference");
    cr_expect_str_eq(row_text(10, 0, 90), "image-changed: psnr 24.50 below 30");
    sc->t.j.envs = NULL, sc->t.judged = 0;
}

Test(pane_image, a_terminal_of_eight_colours_gets_shades, .fini = scene_end)
{
    scene_start("xterm", 1);
    tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    cr_expect_str_eq(row_text(2, 0, 28), "  ░░░░");
    cr_expect(strstr(row_text(5, 0, 90), "map: ' ' equal"), "%s", row_text(5, 0, 90));
}

/* A direct-colour terminal (xterm-direct's colours, compiled here with
 * tic: Debian's ncurses-base does not ship it): the pair holds the RGB
 * values themselves, black moved off the eight ANSI colours. */
Test(pane_image, true_colour_pairs_hold_the_rgb_values, .fini = scene_end)
{
    char *dir = tl_tmpdir(), src[4096], cmd[8192];
    snprintf(src, sizeof src, "%s/direct.src", dir);
    FILE *o = fopen(src, "w");
    cr_assert_not_null(o);
    fputs("xterm-direct|direct colour for the test,\n\tuse=xterm-256color, colors#0x1000000, pairs#0x10000, RGB,\n"
          "\tsetaf=\\E[38:2::%p1%{65536}%/%d:%p1%{256}%/%{255}%&%d:%p1%{255}%&%dm,\n"
          "\tsetab=\\E[48:2::%p1%{65536}%/%d:%p1%{256}%/%{255}%&%d:%p1%{255}%&%dm,\n",
          o);
    fclose(o);
    snprintf(cmd, sizeof cmd, "tic -x -o '%s' '%s' 2>/dev/null", dir, src);
    if (system(cmd) != 0)
        cr_skip_test("tic could not compile a direct-colour terminfo");
    setenv("TERMINFO", dir, 1);
    scene_start("xterm-direct", 1);
    unsetenv("TERMINFO");
    cr_assert_geq(COLORS, 0x1000000);
    tui_pane_image.draw(&sc->t, 0, 0, 0, 90, 60);
    int fg, bg;
    cell_colours(2, 3, &fg, &bg);
    cr_expect(fg == 0xff0000 && bg == 0xff0000, "%#x on %#x", fg, bg);
    cell_colours(1, 30, &fg, &bg);
    cr_expect(fg == 0x00ff00 && bg == 0x0000ff, "%#x on %#x", fg, bg);
    cell_colours(1, 61, &fg, &bg); /* equal: black, as (1, 1, 1), not ANSI colour 0 */
    cr_expect(fg == 0x010101 && bg == 0x010101, "%#x on %#x", fg, bg);
}

/* Every outcome has its own badge in the review list and a legend line
 * (keys.h's table): an outcome added without one was drawn as "?" (the
 * image kind's two were, until this test). */
#include "../src/tui/badge.h"
Test(badges, every_outcome_has_a_badge_of_its_own)
{
    for (int o = 0; o < PX_OC_COUNT; o++) {
        const char *b = tui_badge((px_outcome)o);
        cr_expect_str_neq(b, "?", "%s has no badge", outcome_name((px_outcome)o));
        for (int p = 0; p < o; p++)
            cr_expect_str_neq(b, tui_badge((px_outcome)p), "%s and %s share a badge", outcome_name((px_outcome)o),
                              outcome_name((px_outcome)p));
    }
    cr_expect_eq(tui_outcome_el(PX_OC_IMAGE_CHANGED), tui_outcome_el(PX_OC_WRONG_LABEL), "another picture is a failure");
}
