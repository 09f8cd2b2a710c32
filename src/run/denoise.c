/* DENOISE encoded, DENOISED decoded strictly (include/parity/denoise.h). */
#include "parity/denoise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void denoise_request_encode(px_buf *b, const px_denoise_req *q)
{
    proto_begin(b, PX_FRAME_DENOISE);
    buf_put_u32(b, q->class_id);
    buf_put_i64(b, (int64_t)q->seed);
    buf_put_u32(b, q->steps);
    buf_put_f64(b, q->guidance_scale);
    buf_put_u32(b, q->height);
    buf_put_u32(b, q->width);
    buf_put_u32(b, q->latent_every);
    proto_end(b);
}

static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

static size_t left(const px_buf *p) { return p->bad || p->pos > p->len ? 0 : p->len - p->pos; }

/* n doubles, refused before allocating when the frame has not that many
 * bytes left. */
static double *get_f64s(px_buf *p, size_t n)
{
    if (n > left(p) / 8)
        return NULL;
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = buf_get_f64(p);
    return v;
}

static int is_hex64(const char *s)
{
    size_t i = 0;
    for (; s && s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return i == 64;
}

/* The latent's shape, [1, C, h, w], into g; its element count at most
 * PX_IMAGE_MAX_LATENT. */
static int get_latent_shape(px_buf *p, px_image_out *g, char *why, size_t n)
{
    uint32_t ndim = buf_get_u32(p);
    if (p->bad || ndim != 4)
        return refuse(why, n, "latent of %u dimensions, not [1, C, h, w]", ndim);
    size_t count = 1;
    for (int i = 0; i < 4; i++) {
        int64_t d = buf_get_i64(p);
        if (p->bad || d < 1 || d > PX_IMAGE_MAX_LATENT || (i == 0 && d != 1))
            return refuse(why, n, "latent dimension %d is %lld", i, (long long)d);
        g->latent_shape[i] = d;
        count *= (size_t)d;
        if (count > PX_IMAGE_MAX_LATENT)
            return refuse(why, n, "latent of more than %u values", PX_IMAGE_MAX_LATENT);
    }
    g->latent_count = count;
    return 0;
}

/* The recorded latents: at most PX_IMAGE_MAX_RECORDED, steps ascending. */
static int get_recorded(px_buf *p, px_image_out *g, char *why, size_t n)
{
    uint32_t k = buf_get_u32(p);
    if (p->bad || k < 1 || k > PX_IMAGE_MAX_RECORDED || k > left(p) / (4 + 8 * g->latent_count))
        return refuse(why, n, "%u recorded latents (1 .. %u, each in the frame)", k, PX_IMAGE_MAX_RECORDED);
    g->step = malloc(k * sizeof *g->step);
    g->latents = malloc(k * g->latent_count * sizeof *g->latents);
    if (!g->step || !g->latents)
        return refuse(why, n, "out of memory");
    for (uint32_t i = 0; i < k; i++) {
        uint32_t s = buf_get_u32(p);
        if (s >= PX_IMAGE_MAX_STEPS || (i && s <= (uint32_t)g->step[i - 1]))
            return refuse(why, n, "recorded step %u after %d: steps ascend below %u", s, i ? g->step[i - 1] : -1,
                          PX_IMAGE_MAX_STEPS);
        g->step[i] = (int)s;
        for (size_t j = 0; j < g->latent_count; j++)
            g->latents[i * g->latent_count + j] = buf_get_f64(p);
    }
    g->n_steps = k;
    return p->bad ? refuse(why, n, "truncated latents") : 0;
}

/* The tail: steps (the last recorded one is the last step), the timings. */
static int get_tail(px_buf *p, px_image_out *g, px_example_result *x, char *why, size_t n)
{
    uint32_t steps = buf_get_u32(p);
    g->first_ms = buf_get_f64(p);
    x->forward_ms = buf_get_f64(p);
    uint32_t compiled = buf_get_u32(p);
    if (p->bad)
        return refuse(why, n, "truncated after the latents");
    if (steps < 1 || steps > PX_IMAGE_MAX_STEPS || (uint32_t)g->step[g->n_steps - 1] != steps - 1)
        return refuse(why, n, "%u steps, the last recorded %d (the last step is recorded)", steps,
                      g->step[g->n_steps - 1]);
    if (!isfinite(g->first_ms) || !isfinite(x->forward_ms) || g->first_ms < 0 || x->forward_ms < 0)
        return refuse(why, n, "timings %g and %g ms", g->first_ms, x->forward_ms);
    g->steps = (int)steps;
    x->compiled = compiled <= PX_COMPILED_YES ? (int8_t)compiled : PX_COMPILED_UNKNOWN;
    if (p->pos != p->len)
        return refuse(why, n, "%zu bytes after its fields", p->len - p->pos);
    return 0;
}

/* The image: H x W x C doubles, each side 1 .. PX_IMAGE_MAX_SIDE, 1 to 4
 * channels (grey, grey and alpha, RGB, RGBA). */
static int get_image(px_buf *p, px_example_result *x, char *why, size_t n)
{
    uint32_t h = buf_get_u32(p), w = buf_get_u32(p), c = buf_get_u32(p);
    if (p->bad || h < 1 || w < 1 || h > PX_IMAGE_MAX_SIDE || w > PX_IMAGE_MAX_SIDE || c < 1 || c > 4)
        return refuse(why, n, "image %u x %u x %u (sides 1 .. %u, 1 .. 4 channels)", h, w, c, PX_IMAGE_MAX_SIDE);
    size_t count = (size_t)h * w * c;
    if (!(x->values = get_f64s(p, count)))
        return refuse(why, n, "image of %zu values in a frame with %zu bytes left", count, left(p));
    x->n_values = count;
    x->ndim = 4;
    x->shape[0] = 1, x->shape[1] = h, x->shape[2] = w, x->shape[3] = c;
    return 0;
}

int denoised_decode(px_buf *p, px_example_result *x, char *why, size_t n)
{
    px_example_result y = *x;
    px_image_out *g = calloc(1, sizeof *g);
    char *dtype = buf_get_str(p), *digest = NULL;
    y.values = NULL;
    int rc = !g ? refuse(why, n, "out of memory") : !dtype ? refuse(why, n, "truncated dtype") : 0;
    rc = rc ? rc : get_image(p, &y, why, n);
    if (!rc) {
        digest = buf_get_str(p);
        if (!is_hex64(digest))
            rc = refuse(why, n, "noise digest not 64 lowercase hex digits");
        else
            memcpy(g->noise_sha256, digest, 65);
    }
    rc = rc ? rc : get_latent_shape(p, g, why, n);
    rc = rc ? rc : get_recorded(p, g, why, n);
    rc = rc ? rc : get_tail(p, g, &y, why, n);
    free(digest);
    if (rc) {
        free(y.values);
        image_out_free(g);
        free(dtype);
        return -1;
    }
    y.dtype = results_dtype(dtype);
    free(dtype);
    y.img = g;
    *x = y;
    return 0;
}
