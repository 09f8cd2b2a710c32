/* PNG files of 8-bit images (imagecmp.h's px_image8), written with libpng:
 * the image kind's pictures in the HTML report (data: URIs) and in export
 * bundles. The bytes are deterministic: no tIME or text chunk, fixed
 * compression and filters, so the same pixels always make the same file
 * (a report or a bundle made twice is the same, and its SHA256SUMS too).
 * libpng's errors (its longjmp) are caught inside and come back as values;
 * nothing here prints or exits. */
#ifndef PARITY_PNG_H
#define PARITY_PNG_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/imagecmp.h"

/* The largest side written: as the decoders' default limits (libpng's
 * user limit is 1 000 000), far above any image the kind holds. */
#define PX_PNG_MAX_SIDE 65535

/* The PNG of m (1 grey, 2 grey and alpha, 3 RGB or 4 RGBA channels of 8
 * bits): 0 with *out (malloc'd) and *len, or -1 with *err (PX_ERR_INTERNAL
 * for an image that is not one: no pixels, a side of 0 or over
 * PX_PNG_MAX_SIDE, another channel count; PX_ERR_NO_MEMORY). */
int image_png_encode(const px_image8 *m, unsigned char **out, size_t *len, px_error *err);

/* m as a data: URI, "data:image/png;base64,..." (malloc'd); NULL with
 * *err as image_png_encode says. */
char *image_png_data_uri(const px_image8 *m, px_error *err);

/* m written as a PNG file at path, atomically (atomic.h): 0, or -1 with
 * *err (PX_ERR_WRITE names the file; the old file, if any, is untouched). */
int image_png_write(const char *path, const px_image8 *m, px_error *err);

#endif
