/* PNG encoding with libpng (png.h). */
#include "parity/png.h"

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/atomic.h"

/* Where libpng writes, and what went wrong: on the heap, so that nothing
 * the longjmp crosses lives in a register. */
typedef struct sink {
    unsigned char *buf;
    size_t len, cap;
    int oom;
    char msg[200];
} sink;

static void on_error(png_structp p, png_const_charp msg)
{
    sink *s = png_get_error_ptr(p);
    snprintf(s->msg, sizeof s->msg, "%s", msg ? msg : "libpng failed");
    png_longjmp(p, 1);
}

/* libpng's warnings are about chunks we never write: nothing to say. */
static void on_warning(png_structp p, png_const_charp msg) { (void)p, (void)msg; }

static void on_write(png_structp p, png_bytep data, png_size_t n)
{
    sink *s = png_get_io_ptr(p);
    if (n > s->cap - s->len) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap - s->len < n) {
            if (cap > SIZE_MAX / 2) {
                s->oom = 1;
                png_error(p, "out of memory");
            }
            cap *= 2;
        }
        unsigned char *b = realloc(s->buf, cap);
        if (!b) {
            s->oom = 1;
            png_error(p, "out of memory");
        }
        s->buf = b, s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
}

static void on_flush(png_structp p) { (void)p; }

static int color_type(int c)
{
    return c == 1 ? PNG_COLOR_TYPE_GRAY
           : c == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
           : c == 3 ? PNG_COLOR_TYPE_RGB
           : c == 4 ? PNG_COLOR_TYPE_RGB_ALPHA
                    : -1;
}

/* The encoding itself, its setjmp alone in this frame: 0, -1 with s->msg
 * (and s->oom). rows is the caller's, filled. */
static int encode(const px_image8 *m, png_bytep *rows, sink *s)
{
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, s, on_error, on_warning);
    if (!p) {
        s->oom = 1;
        return -1;
    }
    png_infop info = png_create_info_struct(p);
    if (!info) {
        png_destroy_write_struct(&p, NULL);
        s->oom = 1;
        return -1;
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        return -1;
    }
    png_set_write_fn(p, s, on_write, on_flush);
    /* Fixed choices, whatever libpng's defaults become: the same pixels,
     * the same bytes. */
    png_set_compression_level(p, 9);
    png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_IHDR(p, info, (png_uint_32)m->w, (png_uint_32)m->h, 8, color_type(m->c), PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    png_write_image(p, rows);
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    return 0;
}

int image_png_encode(const px_image8 *m, unsigned char **out, size_t *len, px_error *err)
{
    *out = NULL, *len = 0;
    if (!m || !m->px || m->h <= 0 || m->w <= 0 || m->h > PX_PNG_MAX_SIDE || m->w > PX_PNG_MAX_SIDE ||
        color_type(m->c) < 0)
        return px_error_set(err, PX_ERR_INTERNAL, "png", 0, 0, "not an image to write as a PNG: %s",
                            m && m->px ? "its size or channels" : "no pixels");
    png_bytep *rows = malloc((size_t)m->h * sizeof *rows);
    sink *s = calloc(1, sizeof *s);
    if (!rows || !s) {
        free(rows), free(s);
        return px_error_oom(err, "png");
    }
    for (int y = 0; y < m->h; y++)
        rows[y] = m->px + (size_t)y * (size_t)m->w * (size_t)m->c;
    int rc = encode(m, rows, s);
    free(rows);
    if (rc) {
        rc = s->oom ? px_error_oom(err, "png")
                    : px_error_set(err, PX_ERR_INTERNAL, "png", 0, 0, "libpng could not encode the image: %s", s->msg);
        free(s->buf);
    } else
        *out = s->buf, *len = s->len;
    free(s);
    return rc;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *image_png_data_uri(const px_image8 *m, px_error *err)
{
    unsigned char *png;
    size_t n;
    if (image_png_encode(m, &png, &n, err))
        return NULL;
    static const char head[] = "data:image/png;base64,";
    size_t hl = sizeof head - 1;
    char *uri = malloc(hl + 4 * ((n + 2) / 3) + 1);
    if (!uri) {
        free(png);
        px_error_oom(err, "png");
        return NULL;
    }
    memcpy(uri, head, hl);
    char *o = uri + hl;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)png[i] << 16 | (i + 1 < n ? (uint32_t)png[i + 1] << 8 : 0) |
                     (i + 2 < n ? png[i + 2] : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    free(png);
    return uri;
}

int image_png_write(const char *path, const px_image8 *m, px_error *err)
{
    unsigned char *png;
    size_t n;
    if (image_png_encode(m, &png, &n, err))
        return -1;
    int rc = atomic_write(path, png, n, err);
    free(png);
    return rc;
}
