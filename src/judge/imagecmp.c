/* Picture comparison (imagecmp.h): the figures an image's judge, reports
 * and pane show, computed once here. */
#include "parity/imagecmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int image8_from_unit(const double *v, int h, int w, int c, px_image8 *out, long *bad)
{
    memset(out, 0, sizeof *out);
    if (h <= 0 || w <= 0 || c <= 0) {
        if (bad)
            *bad = -1;
        return -1;
    }
    size_t n = (size_t)h * (size_t)w * (size_t)c;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            if (bad)
                *bad = (long)i;
            return -1;
        }
    uint8_t *px = malloc(n);
    if (!px) {
        if (bad)
            *bad = -1;
        return -1;
    }
    /* numpy_to_pil's (x * 255).round(): halves to even. */
    for (size_t i = 0; i < n; i++) {
        double x = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i], y = x * 255.0, f = floor(y), frac = y - f;
        px[i] = (uint8_t)(frac > 0.5 || (frac == 0.5 && fmod(f, 2.0) != 0) ? f + 1 : f);
    }
    out->h = h, out->w = w, out->c = c, out->px = px;
    return 0;
}

void image8_free(px_image8 *m)
{
    free(m->px);
    memset(m, 0, sizeof *m);
}

int image8_blank(const px_image8 *m)
{
    size_t n = (size_t)m->h * (size_t)m->w, c = (size_t)m->c;
    for (size_t i = 1; i < n; i++)
        if (memcmp(m->px + i * c, m->px, c))
            return 0;
    return 1;
}

static int same_size(const px_image8 *a, const px_image8 *b)
{
    return a->h == b->h && a->w == b->w && a->c == b->c && a->h > 0 && a->w > 0 && a->c > 0;
}

int imagecmp_figures(const px_image8 *a, const px_image8 *b, px_image_figures *out)
{
    if (!same_size(a, b))
        return -1;
    size_t n = (size_t)a->h * (size_t)a->w * (size_t)a->c;
    double sum = 0, sq = 0;
    int mx = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a->px[i] - (int)b->px[i]);
        sum += d, sq += (double)d * d;
        if (d > mx)
            mx = d;
    }
    double mse = sq / (double)n;
    out->psnr = mse == 0 ? INFINITY : 10.0 * log10(255.0 * 255.0 / mse);
    out->mean_abs = sum / (double)n;
    out->max_abs = mx;
    out->ssim = imagecmp_ssim(a, b);
    return out->ssim < -1.5 ? -1 : 0;
}

/* BT.601 luma of every pixel, as doubles (grey as it is). */
static double *luma(const px_image8 *m)
{
    size_t n = (size_t)m->h * (size_t)m->w;
    double *y = malloc(n * sizeof *y);
    if (!y)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = m->px + i * (size_t)m->c;
        y[i] = m->c >= 3 ? 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2] : p[0];
    }
    return y;
}

double imagecmp_ssim(const px_image8 *a, const px_image8 *b)
{
    if (!same_size(a, b))
        return -2;
    int side = 11, h = a->h, w = a->w;
    if (h < side)
        side = h;
    if (w < side)
        side = w;
    if (side % 2 == 0)
        side--;
    double win[11 * 11], wsum = 0, sigma = 1.5;
    int r = side / 2;
    for (int i = 0; i < side; i++)
        for (int j = 0; j < side; j++)
            wsum += win[i * side + j] = exp(-((i - r) * (i - r) + (j - r) * (j - r)) / (2 * sigma * sigma));
    for (int i = 0; i < side * side; i++)
        win[i] /= wsum;
    double *x = luma(a), *y = luma(b);
    if (!x || !y) {
        free(x), free(y);
        return -2;
    }
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double total = 0;
    long count = 0;
    for (int i = 0; i + side <= h; i++)
        for (int j = 0; j + side <= w; j++) {
            double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;
            for (int u = 0; u < side; u++)
                for (int v = 0; v < side; v++) {
                    double g = win[u * side + v], p = x[(i + u) * w + j + v], q = y[(i + u) * w + j + v];
                    mx += g * p, my += g * q, sxx += g * p * p, syy += g * q * q, sxy += g * p * q;
                }
            sxx -= mx * mx, syy -= my * my, sxy -= mx * my;
            total += ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2));
            count++;
        }
    free(x), free(y);
    return total / (double)count;
}

uint8_t *imagecmp_diff_map(const px_image8 *a, const px_image8 *b)
{
    if (!same_size(a, b))
        return NULL;
    size_t n = (size_t)a->h * (size_t)a->w, c = (size_t)a->c;
    uint8_t *d = malloc(n);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int m = 0;
        for (size_t k = 0; k < c; k++) {
            int e = abs((int)a->px[i * c + k] - (int)b->px[i * c + k]);
            if (e > m)
                m = e;
        }
        d[i] = (uint8_t)m;
    }
    return d;
}

void imagecmp_heat(uint8_t d, uint8_t rgb[3])
{
    int t = (int)lround(765.0 * sqrt(d / 255.0));
    rgb[0] = (uint8_t)(t < 255 ? t : 255);
    rgb[1] = (uint8_t)(t < 255 ? 0 : t < 510 ? t - 255 : 255);
    rgb[2] = (uint8_t)(t < 510 ? 0 : t - 510);
}
