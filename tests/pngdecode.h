/* Reading a PNG back with libpng's own reader (its simplified API), for
 * the tests of what parity writes: png.c's encoder, the image kind's
 * reports and exports. */
#ifndef PARITY_TESTS_PNGDECODE_H
#define PARITY_TESTS_PNGDECODE_H

#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "parity/imagecmp.h"

/* The image in n bytes of PNG, as the file says it is (its channels from
 * its colour type): 0 with *out (px malloc'd), -1 when libpng refuses it. */
static inline int tl_png_decode(const void *data, size_t n, px_image8 *out)
{
    png_image im;
    memset(&im, 0, sizeof im);
    memset(out, 0, sizeof *out);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im, data, n))
        return -1;
    int c = (im.format & PNG_FORMAT_FLAG_COLOR ? 3 : 1) + (im.format & PNG_FORMAT_FLAG_ALPHA ? 1 : 0);
    im.format = c == 1 ? PNG_FORMAT_GRAY : c == 2 ? PNG_FORMAT_GA : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(im));
    if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
        free(px);
        png_image_free(&im);
        return -1;
    }
    out->h = (int)im.height, out->w = (int)im.width, out->c = c, out->px = px;
    return 0;
}

/* The same from a data: URI's base64 ("data:image/png;base64,...", up to
 * its closing quote or the string's end). */
static inline int tl_png_decode_uri(const char *uri, px_image8 *out)
{
    static const char head[] = "data:image/png;base64,";
    if (strncmp(uri, head, sizeof head - 1))
        return -1;
    const char *p = uri + sizeof head - 1;
    size_t n = strcspn(p, "\"' >");
    unsigned char *bin = malloc(n / 4 * 3 + 3);
    size_t o = 0;
    unsigned v = 0;
    int bits = 0;
    for (size_t i = 0; i < n && p[i] != '='; i++) {
        const char *at = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", p[i]);
        if (!at || !*at) {
            free(bin);
            return -1;
        }
        v = v << 6 | (unsigned)(at - "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
        if ((bits += 6) >= 8)
            bits -= 8, bin[o++] = (unsigned char)(v >> bits & 255);
    }
    int rc = tl_png_decode(bin, o, out);
    free(bin);
    return rc;
}

#endif
