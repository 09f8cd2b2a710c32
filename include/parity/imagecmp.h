/* Comparing two pictures as a person porting a diffusion pipeline does:
 * on the 8-bit images a user sees (the pipeline's [0, 1] floats made 8-bit
 * as diffusers' numpy_to_pil does: round(x * 255) after clamping), by
 * PSNR, SSIM and the mean and largest absolute pixel difference, and a
 * difference map to show where they part. Used by the image kind's judge,
 * its reports and its review pane alike, so that every place shows the
 * same figures. */
#ifndef PARITY_IMAGECMP_H
#define PARITY_IMAGECMP_H

#include <stddef.h>
#include <stdint.h>

/* An image: h x w pixels of c channels (1 grey, 3 RGB, 4 RGBA), row-major,
 * channels last, 8-bit. */
typedef struct px_image8 {
    int h, w, c;
    uint8_t *px; /* h * w * c */
} px_image8;

/* The 8-bit image of n = h*w*c floats in [0, 1]: 0 with *out filled
 * (px malloc'd), -1 when a value is not finite (nothing allocated; *bad,
 * when not NULL, gets its index) or out of memory (*bad = -1). */
int image8_from_unit(const double *v, int h, int w, int c, px_image8 *out, long *bad);
void image8_free(px_image8 *m);

/* 1 when every pixel is the same colour (a black image, or one of any
 * single colour): the pipeline drew nothing. */
int image8_blank(const px_image8 *m);

typedef struct px_image_figures {
    double psnr;     /* dB over every channel, peak 255; INFINITY when equal */
    double ssim;     /* on luma (BT.601), imagecmp_ssim */
    double mean_abs; /* mean |a - b| over every channel value, of 255 */
    double max_abs;  /* largest |a - b|, of 255 */
} px_image_figures;

/* a against b (the reference): both the same h, w, c (else -1). */
int imagecmp_figures(const px_image8 *a, const px_image8 *b, px_image_figures *out);

/* SSIM (Wang, Bovik, Sheikh and Simoncelli 2004, as their reference
 * ssim_index.m computes it): luma Y = 0.299 R + 0.587 G + 0.114 B (grey
 * as it is), an 11 x 11 Gaussian window of sigma 1.5 (narrowed to the
 * largest odd side that fits an image smaller than 11), 'valid' positions
 * only, C1 = (0.01 * 255)^2, C2 = (0.03 * 255)^2, the mean of the map.
 * 1 for equal images. -1 when the sizes differ or out of memory. */
double imagecmp_ssim(const px_image8 *a, const px_image8 *b);

/* The difference map: per pixel, the largest |a - b| over its channels
 * (0..255), h * w bytes (malloc'd); NULL when the sizes differ or out of
 * memory. */
uint8_t *imagecmp_diff_map(const px_image8 *a, const px_image8 *b);

/* A difference map's colour, the same in the HTML report, an export's
 * PNGs and the review pane: d, a pixel's |a - b| of 255, as a "hot" ramp,
 * black (0: equal) through red (28 apart) and yellow (113) to white
 * (255 apart). The ramp runs on sqrt(d / 255) so that a difference of 1
 * is already visibly dark red, not lost in black: t = round(765 *
 * sqrt(d / 255)), R = min(t, 255), G = min(max(t - 255, 0), 255), B =
 * max(t - 510, 0). */
void imagecmp_heat(uint8_t d, uint8_t rgb[3]);

#endif
