/* Picture comparison (src/judge/imagecmp.c): the 8-bit conversion as
 * diffusers' numpy_to_pil makes it (clamped, halves to even), a blank
 * image, PSNR, SSIM, mean and max |Δ| and the difference map, held to
 * what they are by construction (equal images, constant images, whose
 * SSIM and PSNR have closed forms), and SSIM on pictures with shapes,
 * gradients and noise held to an independent computation written from
 * Wang et al.'s paper with numpy alone (tests/ssim_ref.py). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/imagecmp.h"
#include "testlib.h"

#define VENV_PY "build/venv/bin/python"

static px_image8 image_new(int h, int w, int c)
{
    px_image8 m = {h, w, c, calloc((size_t)h * w * c, 1)};
    cr_assert_not_null(m.px);
    return m;
}

static px_image8 constant(int h, int w, int c, uint8_t v)
{
    px_image8 m = image_new(h, w, c);
    memset(m.px, v, (size_t)h * w * c);
    return m;
}

/* A picture with something in it: a gradient sky, a disc, a checker
 * texture and pseudo-random grain (a fixed LCG), channel by channel. */
static px_image8 picture(int h, int w, int c, unsigned seed)
{
    px_image8 m = image_new(h, w, c);
    unsigned s = seed * 2654435761u + 1;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            for (int k = 0; k < c; k++) {
                double v = 40 + 150.0 * i / h + 30.0 * j / w + 17 * k;
                double di = i - h * 0.45, dj = j - w * 0.55;
                if (di * di + dj * dj < (h * w) / 10.0)
                    v = 220 - 60 * k;
                if (((i / 3) + (j / 3)) % 2 && i > h * 2 / 3)
                    v -= 35;
                s = s * 1103515245u + 12345u;
                v += (double)((s >> 16) % 21) - 10;
                m.px[((size_t)i * w + j) * c + k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    return m;
}

/* a, changed as a pipeline on another device might: grain of up to
 * ±amp (its own LCG), shifted right by `shift` columns, scaled in
 * contrast by `gain`. */
static px_image8 changed(const px_image8 *a, int amp, int shift, double gain, unsigned seed)
{
    px_image8 m = image_new(a->h, a->w, a->c);
    unsigned s = seed * 40503u + 7;
    for (int i = 0; i < a->h; i++)
        for (int j = 0; j < a->w; j++)
            for (int k = 0; k < a->c; k++) {
                int sj = j - shift < 0 ? 0 : j - shift;
                double v = 128 + gain * (a->px[((size_t)i * a->w + sj) * a->c + k] - 128.0);
                s = s * 1103515245u + 12345u;
                if (amp)
                    v += (double)((int)((s >> 16) % (unsigned)(2 * amp + 1)) - amp);
                m.px[((size_t)i * a->w + j) * a->c + k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
            }
    return m;
}

static void write_image(const char *path, const px_image8 *m)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "%d %d %d\n", m->h, m->w, m->c);
    fwrite(m->px, 1, (size_t)m->h * m->w * m->c, f);
    fclose(f);
}

/* ---- the 8-bit conversion ---- */

/* (x * 255).round() after clamping to [0, 1], as numpy rounds: a half
 * goes to the even neighbour (0.5 -> 0, 1.5 -> 2, 2.5 -> 2); the expected
 * bytes are numpy's own for these inputs. */
Test(imagecmp, unit_to_8bit_as_numpy_to_pil)
{
    const double x[] = {0.5 / 255,   1.5 / 255, 2.5 / 255, 3.5 / 255, 254.5 / 255, 127.5 / 255,
                        128.5 / 255, -0.1,      1.7,       0.0,       1.0,         0.2};
    const uint8_t want[] = {0, 2, 2, 4, 254, 128, 128, 0, 255, 0, 255, 51};
    px_image8 m;
    long bad = 99;
    cr_assert_eq(image8_from_unit(x, 1, 4, 3, &m, &bad), 0);
    for (size_t i = 0; i < sizeof want; i++)
        cr_expect_eq(m.px[i], want[i], "value %zu (%.17g): %d, numpy gives %d", i, x[i], m.px[i], want[i]);
    cr_expect_eq(bad, 99, "bad is left alone on success");
    image8_free(&m);
    cr_expect_null(m.px);
}

/* A NaN or an infinity is refused with its index, nothing allocated. */
Test(imagecmp, non_finite_refused_with_its_index)
{
    double x[12];
    for (int i = 0; i < 12; i++)
        x[i] = i / 12.0;
    x[7] = NAN;
    px_image8 m = {1, 1, 1, (uint8_t *)x};
    long bad = -5;
    cr_expect_eq(image8_from_unit(x, 2, 2, 3, &m, &bad), -1);
    cr_expect_eq(bad, 7);
    cr_expect_null(m.px);
    x[7] = 0.3, x[10] = -INFINITY;
    cr_expect_eq(image8_from_unit(x, 2, 2, 3, &m, &bad), -1);
    cr_expect_eq(bad, 10);
    cr_expect_eq(image8_from_unit(x, 0, 2, 3, &m, &bad), -1);
    cr_expect_eq(bad, -1, "no size: refused, no index");
}

Test(imagecmp, blank_is_one_colour_of_every_channel)
{
    px_image8 black = constant(5, 4, 3, 0), red = constant(5, 4, 3, 0);
    for (int i = 0; i < 20; i++)
        red.px[i * 3] = 200;
    cr_expect(image8_blank(&black));
    cr_expect(image8_blank(&red), "one colour, not black, is blank too");
    red.px[19 * 3 + 2] = 1; /* the last pixel's blue */
    cr_expect(!image8_blank(&red));
    image8_free(&black), image8_free(&red);
}

/* ---- figures with closed forms ---- */

Test(imagecmp, equal_images_psnr_infinite_ssim_one)
{
    px_image8 a = picture(32, 32, 3, 1), b = picture(32, 32, 3, 1);
    px_image_figures fig;
    cr_assert_eq(imagecmp_figures(&a, &b, &fig), 0);
    cr_expect(isinf(fig.psnr) && fig.psnr > 0, "psnr %g", fig.psnr);
    cr_expect_float_eq(fig.ssim, 1.0, 1e-15);
    cr_expect_eq(fig.mean_abs, 0);
    cr_expect_eq(fig.max_abs, 0);
    image8_free(&a), image8_free(&b);
}

/* Two constant grey images a and b: every window has no variance, so SSIM
 * is its luminance term alone, (2ab + C1) / (a² + b² + C1), and the MSE is
 * (a - b)². */
Test(imagecmp, constant_images_closed_form)
{
    const int pairs[][2] = {{100, 110}, {0, 255}, {30, 31}, {200, 90}};
    const double c1 = (0.01 * 255) * (0.01 * 255);
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
        int a = pairs[p][0], b = pairs[p][1];
        px_image8 x = constant(16, 20, 1, (uint8_t)a), y = constant(16, 20, 1, (uint8_t)b);
        px_image_figures fig;
        cr_assert_eq(imagecmp_figures(&x, &y, &fig), 0);
        double ssim = (2.0 * a * b + c1) / ((double)a * a + (double)b * b + c1);
        cr_expect_float_eq(fig.ssim, ssim, 1e-12, "%d vs %d: ssim %.17g, closed form %.17g", a, b, fig.ssim, ssim);
        cr_expect_float_eq(fig.psnr, 10 * log10(255.0 * 255.0 / ((a - b) * (a - b))), 1e-12);
        cr_expect_eq(fig.mean_abs, abs(a - b));
        cr_expect_eq(fig.max_abs, abs(a - b));
        image8_free(&x), image8_free(&y);
    }
}

/* Mean |Δ| over every channel value, max over them; PSNR from the MSE. */
Test(imagecmp, mean_and_max_abs)
{
    px_image8 a = constant(4, 5, 3, 100), b = constant(4, 5, 3, 100);
    b.px[0] = 103;        /* pixel 0, red: 3 */
    b.px[7] = 90;         /* pixel 2, green: 10 */
    b.px[59] = 101;       /* pixel 19, blue: 1 */
    px_image_figures fig;
    cr_assert_eq(imagecmp_figures(&a, &b, &fig), 0);
    cr_expect_float_eq(fig.mean_abs, 14.0 / 60, 1e-15);
    cr_expect_eq(fig.max_abs, 10);
    cr_expect_float_eq(fig.psnr, 10 * log10(255.0 * 255.0 / (110.0 / 60)), 1e-12);
    uint8_t *d = imagecmp_diff_map(&a, &b);
    cr_assert_not_null(d);
    for (int i = 0; i < 20; i++)
        cr_expect_eq(d[i], i == 0 ? 3 : i == 2 ? 10 : i == 19 ? 1 : 0, "pixel %d: %d", i, d[i]);
    free(d);
    image8_free(&a), image8_free(&b);
}

/* The difference map is per pixel, the largest channel's |Δ|, whichever
 * image is the larger. */
Test(imagecmp, diff_map_largest_channel)
{
    px_image8 a = picture(6, 7, 3, 3), b = changed(&a, 9, 0, 1.0, 4);
    uint8_t *d = imagecmp_diff_map(&a, &b), *e = imagecmp_diff_map(&b, &a);
    cr_assert(d && e);
    for (int i = 0; i < 42; i++) {
        int m = 0;
        for (int k = 0; k < 3; k++)
            m = abs(a.px[i * 3 + k] - b.px[i * 3 + k]) > m ? abs(a.px[i * 3 + k] - b.px[i * 3 + k]) : m;
        cr_expect_eq(d[i], m);
        cr_expect_eq(e[i], m);
    }
    free(d), free(e);
    image8_free(&a), image8_free(&b);
}

Test(imagecmp, sizes_must_agree)
{
    px_image8 a = constant(8, 8, 3, 1), b = constant(8, 9, 3, 1), g = constant(8, 8, 1, 1);
    px_image_figures fig;
    cr_expect_eq(imagecmp_figures(&a, &b, &fig), -1);
    cr_expect_eq(imagecmp_figures(&a, &g, &fig), -1, "channels differ");
    cr_expect_null(imagecmp_diff_map(&a, &b));
    cr_expect_lt(imagecmp_ssim(&a, &b), -1.5);
    image8_free(&a), image8_free(&b), image8_free(&g);
}

/* An image narrower than the window still has an SSIM (the window
 * narrowed to the largest odd side that fits): 1 when equal, and the
 * closed form of constant images holds; its value is held to the
 * independent computation below. */
Test(imagecmp, small_image)
{
    px_image8 a = constant(6, 9, 1, 50), b = constant(6, 9, 1, 70), p = picture(6, 9, 3, 5);
    const double c1 = (0.01 * 255) * (0.01 * 255);
    cr_expect_float_eq(imagecmp_ssim(&a, &b), (2.0 * 50 * 70 + c1) / (50.0 * 50 + 70.0 * 70 + c1), 1e-12);
    cr_expect_float_eq(imagecmp_ssim(&p, &p), 1.0, 1e-15);
    px_image8 one = constant(1, 1, 3, 9), two = constant(1, 1, 3, 9);
    cr_expect_float_eq(imagecmp_ssim(&one, &two), 1.0, 1e-15, "a single pixel: a 1x1 window");
    image8_free(&a), image8_free(&b), image8_free(&p), image8_free(&one), image8_free(&two);
}

/* ---- SSIM against tests/ssim_ref.py ---- */

/* Pairs of pictures as a pipeline draws them and as another device might
 * redraw them: grain, a shift, a change of contrast; grey, RGB, RGBA, and
 * images narrower than the window. SSIM agrees with the numpy computation
 * to 1e-9. */
Test(imagecmp, ssim_agrees_with_independent_numpy, .timeout = 120)
{
    px_image8 base = picture(32, 32, 3, 11), grey = picture(40, 48, 1, 12), rgba = picture(24, 30, 4, 13),
              small = picture(9, 7, 3, 14);
    px_image8 pairs[][2] = {
        {base, changed(&base, 6, 0, 1.0, 1)},
        {base, changed(&base, 0, 1, 1.0, 2)},
        {base, changed(&base, 2, 0, 0.7, 3)},
        {base, changed(&base, 0, 0, -1.0, 7)}, /* the negative */
        {grey, changed(&grey, 20, 2, 1.1, 4)},
        {rgba, changed(&rgba, 4, 1, 0.9, 5)},
        {small, changed(&small, 8, 0, 1.0, 6)},
    };
    size_t n = sizeof pairs / sizeof *pairs;
    const char *dir = tl_test_dir();
    char cmd[8192];
    int at = snprintf(cmd, sizeof cmd, "%s tests/ssim_ref.py", VENV_PY);
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            char path[512];
            snprintf(path, sizeof path, "%s/pair%zu-%d.img", dir, i, s);
            write_image(path, &pairs[i][s]);
            at += snprintf(cmd + at, sizeof cmd - (size_t)at, " '%s'", path);
        }
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++) {
        double want;
        cr_assert_eq(fscanf(p, "%lf", &want), 1, "tests/ssim_ref.py gave no SSIM for pair %zu (%s)", i, cmd);
        double got = imagecmp_ssim(&pairs[i][0], &pairs[i][1]);
        cr_expect(fabs(got - want) <= 1e-9, "pair %zu: imagecmp %.17g, numpy %.17g", i, got, want);
        /* The pairs span the scale: not all near 1. */
        if (i == 3)
            cr_expect_lt(want, 0.5, "the negative: %g", want);
    }
    cr_expect_eq(pclose(p), 0, "%s", cmd);
    for (size_t i = 0; i < n; i++)
        image8_free(&pairs[i][1]);
    image8_free(&base), image8_free(&grey), image8_free(&rgba), image8_free(&small);
}
