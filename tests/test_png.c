/* png.c: what it writes is a PNG that libpng's own reader decodes to the
 * same pixels (grey, RGB, RGBA), the same bytes every time (no time
 * chunk), as a data: URI too, and as a file written atomically; what is
 * no image is an error value, never a crash. */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parity/png.h"
#include "pngdecode.h"
#include "testlib.h"

/* An image whose every pixel value differs from its neighbours' (so that
 * a swapped row, channel or column shows). */
static px_image8 pattern(int h, int w, int c)
{
    px_image8 m = {h, w, c, malloc((size_t)h * w * c)};
    for (int i = 0; i < h * w * c; i++)
        m.px[i] = (uint8_t)(i * 37 + i / 7);
    return m;
}

static void round_trip(int h, int w, int c)
{
    px_image8 m = pattern(h, w, c), back;
    unsigned char *png;
    size_t n;
    px_error err = {0};
    cr_assert_eq(image_png_encode(&m, &png, &n, &err), 0, "%s", err.msg);
    cr_assert_gt(n, 8);
    cr_expect_eq(memcmp(png, "\x89PNG\r\n\x1a\n", 8), 0, "the PNG signature");
    cr_assert_eq(tl_png_decode(png, n, &back), 0, "libpng reads it back");
    cr_expect_eq(back.h, h);
    cr_expect_eq(back.w, w);
    cr_expect_eq(back.c, c, "%d channels", c);
    cr_expect_eq(memcmp(back.px, m.px, (size_t)h * w * c), 0, "the same pixels (%dx%dx%d)", h, w, c);
    /* No tIME (nor any text) chunk: nothing that changes between runs. */
    cr_expect_null(memmem(png, n, "tIME", 4));
    cr_expect_null(memmem(png, n, "tEXt", 4));
    free(png), image8_free(&back), image8_free(&m);
}

Test(png, grey_rgb_and_rgba_decode_to_the_same_pixels)
{
    round_trip(5, 7, 1);
    round_trip(32, 32, 3);
    round_trip(3, 2, 4);
    round_trip(1, 1, 3);
}

Test(png, the_same_pixels_make_the_same_bytes)
{
    px_image8 m = pattern(16, 9, 3);
    unsigned char *a, *b;
    size_t na, nb;
    px_error err = {0};
    cr_assert_eq(image_png_encode(&m, &a, &na, &err), 0);
    cr_assert_eq(image_png_encode(&m, &b, &nb, &err), 0);
    cr_expect_eq(na, nb);
    cr_expect_eq(memcmp(a, b, na), 0);
    m.px[5] ^= 1; /* and other pixels other bytes */
    free(b);
    cr_assert_eq(image_png_encode(&m, &b, &nb, &err), 0);
    cr_expect(na != nb || memcmp(a, b, na), "one pixel changed, the PNG did");
    free(a), free(b), image8_free(&m);
}

Test(png, a_data_uri_holds_the_png_in_base64)
{
    px_image8 m = pattern(4, 6, 3), back;
    px_error err = {0};
    char *uri = image_png_data_uri(&m, &err);
    cr_assert_not_null(uri, "%s", err.msg);
    cr_expect_eq(strncmp(uri, "data:image/png;base64,iVBORw0KGgo", 33), 0, "%s", uri);
    cr_expect_eq((strlen(uri) - 22) % 4, 0, "base64 is padded to 4");
    cr_assert_eq(tl_png_decode_uri(uri, &back), 0);
    cr_expect_eq(memcmp(back.px, m.px, 4 * 6 * 3), 0);
    free(uri), image8_free(&back), image8_free(&m);
}

Test(png, a_file_is_written_whole_and_replaces_the_old_one)
{
    char *dir = tl_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/a.png", dir);
    tl_write(path, "old bytes");
    px_image8 m = pattern(8, 8, 1), back;
    px_error err = {0};
    cr_assert_eq(image_png_write(path, &m, &err), 0, "%s", err.msg);
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    cr_assert_eq(tl_png_decode(buf, n, &back), 0);
    cr_expect_eq(memcmp(back.px, m.px, 64), 0);
    /* A directory that is not there: an error naming the file, the old
     * file untouched elsewhere. */
    snprintf(path, sizeof path, "%s/no/such/dir/a.png", dir);
    cr_expect_eq(image_png_write(path, &m, &err), -1);
    cr_expect_eq(err.reason, PX_ERR_WRITE, "%s", err.msg);
    image8_free(&back), image8_free(&m);
    free(dir);
}

Test(png, what_is_no_image_is_an_error_value)
{
    uint8_t px[12] = {0};
    unsigned char *png = (unsigned char *)"x";
    size_t n = 1;
    px_error err = {0};
    px_image8 bad[] = {{0, 4, 3, px}, {4, 0, 3, px}, {1, 4, 5, px}, {1, 4, 0, px}, {2, 2, 3, NULL},
                       {PX_PNG_MAX_SIDE + 1, 1, 1, px}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&err, 0, sizeof err);
        cr_expect_eq(image_png_encode(&bad[i], &png, &n, &err), -1, "case %zu", i);
        cr_expect_null(png);
        cr_expect_eq(n, 0);
        cr_expect_eq(err.reason, PX_ERR_INTERNAL, "case %zu", i);
    }
    cr_expect_null(image_png_data_uri(&bad[0], &err));
}

Test(png, the_heat_ramp_runs_black_red_yellow_white)
{
    uint8_t c[3];
    imagecmp_heat(0, c);
    cr_expect(c[0] == 0 && c[1] == 0 && c[2] == 0, "equal is black");
    imagecmp_heat(1, c);
    cr_expect(c[0] >= 40 && c[1] == 0 && c[2] == 0, "1 apart is visibly red: %d %d %d", c[0], c[1], c[2]);
    imagecmp_heat(28, c);
    cr_expect(c[0] >= 250 && c[1] < 8 && c[2] == 0, "28 apart is red: %d %d %d", c[0], c[1], c[2]);
    imagecmp_heat(113, c);
    cr_expect(c[0] == 255 && c[1] >= 250 && c[2] < 8, "113 apart is yellow: %d %d %d", c[0], c[1], c[2]);
    imagecmp_heat(255, c);
    cr_expect(c[0] == 255 && c[1] == 255 && c[2] == 255, "255 apart is white");
    /* brighter as the difference grows */
    int last = -1;
    for (int d = 0; d < 256; d++) {
        imagecmp_heat((uint8_t)d, c);
        int sum = c[0] + c[1] + c[2];
        cr_expect_geq(sum, last, "d %d", d);
        last = sum;
    }
}
