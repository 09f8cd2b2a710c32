/* An image's examples (judge_kind.h): the picture a diffusion pipeline
 * drew (the example's values, [1, H, W, C] floats in [0, 1]) held to the
 * contract's size and to being a picture at all (finite, not one colour),
 * then against the reference's picture by compare.image's checks on the
 * 8-bit images a user sees (imagecmp.h: PSNR, SSIM, mean and max |Δ|).
 * It parts from the reference at its initial noise (another experiment),
 * then at the first recorded latent beyond compare.latents, then at the
 * picture itself (the decoder); the twin tells precision from the device
 * by the step where it parts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/imagecmp.h"
#include "parity/judge.h"
#include "parity/sbuf.h"
#include "parity/strf.h"

/* The contract's shape: [1, height, width, channels]. */
static int image_shape_ok(const px_fixture *f, const px_example_result *x)
{
    const px_image_spec *s = &f->image;
    return x->ndim == 4 && x->shape[0] == 1 && x->shape[1] == s->height && x->shape[2] == s->width &&
           x->shape[3] == s->channels &&
           x->n_values == (size_t)s->height * (size_t)s->width * (size_t)s->channels && x->values;
}

/* A picture to compare with: it ran, of the contract's shape, finite. */
static int image_usable(const px_fixture *f, const px_example_result *x)
{
    return x && x->status == PX_ST_OK && image_shape_ok(f, x) && numbers_first_non_finite(x) < 0;
}

/* Its 8-bit image (x usable): 0, or -1 out of memory. */
static int image_of(const px_fixture *f, const px_example_result *x, px_image8 *m)
{
    return image8_from_unit(x->values, f->image.height, f->image.width, f->image.channels, m, NULL);
}

/* Both recorded which noise they started from, and it is not the same:
 * two experiments, not one computed twice. */
static int noise_differs(const px_example_result *a, const px_example_result *b)
{
    return a && b && a->img && b->img && a->img->noise_sha256[0] && b->img->noise_sha256[0] &&
           strcmp(a->img->noise_sha256, b->img->noise_sha256);
}

/* A channel's name for a count of channels. */
static const char *channel_name(int64_t c, int64_t n)
{
    static const char *const rgba[] = {"red", "green", "blue", "alpha"};
    if (n == 1)
        return "grey";
    return (n == 3 || n == 4) && c >= 0 && c < n ? rgba[c] : NULL;
}

/* Value i, not finite, in words: its pixel and channel when the output is
 * [1, H, W, C] ("pixel (row 3, column 5), green, is nan"), else its index. */
static char *non_finite_words(const px_example_result *x, long i)
{
    double y = x->values[i];
    const char *what = isnan(y) ? "nan" : y > 0 ? "inf" : "-inf";
    if (x->ndim == 4 && x->shape[0] == 1 && x->shape[1] > 0 && x->shape[2] > 0 && x->shape[3] > 0 &&
        (size_t)(x->shape[1] * x->shape[2] * x->shape[3]) == x->n_values) {
        int64_t c = x->shape[3], w = x->shape[2], px = i / c, ch = i % c;
        const char *name = channel_name(ch, c);
        if (name)
            return strf("pixel (row %lld, column %lld), %s, is %s", (long long)(px / w), (long long)(px % w), name,
                        what);
        return strf("pixel (row %lld, column %lld), channel %lld, is %s", (long long)(px / w), (long long)(px % w),
                    (long long)ch, what);
    }
    return strf("value %ld is %s", i, what);
}

/* A one-colour image in words: "every pixel is rgb(0, 0, 0): black". */
static char *blank_words(const px_image8 *m)
{
    px_sbuf b = PX_SBUF_INIT;
    int all0 = 1, all255 = 1;
    sbuf_add(&b, m->c == 1 ? "every pixel is grey " : m->c == 3 ? "every pixel is rgb(" : "every pixel is (");
    for (int i = 0; i < m->c; i++) {
        sbuf_addf(&b, "%s%d", i ? ", " : "", m->px[i]);
        /* Alpha does not make a colour black or white. */
        if (i < 3)
            all0 &= m->px[i] == 0, all255 &= m->px[i] == 255;
    }
    sbuf_add(&b, m->c == 1 ? "" : ")");
    sbuf_add(&b, all0 ? ": black" : all255 ? ": white" : ": one colour");
    sbuf_add(&b, ", the pipeline drew nothing");
    return sbuf_take(&b);
}

enum { CHECK_PSNR = 1, CHECK_SSIM = 2, CHECK_MEAN = 4, CHECK_MAX = 8 };
static const char *const check_name[] = {"PSNR", "SSIM", "mean |Δ|", "max |Δ|"};

/* A figure in words (buf), with the fewest digits from `digits` up
 * (decimals when fixed, else significant) that keep it on its side of
 * `mark` (a limit, or 1 for SSIM): never "SSIM 1" for 0.99998, nor
 * "PSNR 30.0 dB < 30". */
static const char *figure_str(char *buf, size_t size, double x, int fixed, int digits, double mark)
{
    for (int d = digits; d <= 17; d++) {
        snprintf(buf, size, fixed ? "%.*f" : "%.*g", d, x);
        double y = strtod(buf, NULL);
        if ((y < mark) == (x < mark) && (y == mark) == (x == mark))
            break;
    }
    return buf;
}

/* The compare.image checks the figures fail (CHECK_* bits), and in words
 * (*words malloc'd, "PSNR 21.3 dB < 30; SSIM 0.81 < 0.95"; NULL when none
 * failed or words is NULL). A NaN figure fails its check. */
static unsigned failed_checks(const px_image_checks *c, const px_image_verdict *im, char **words)
{
    px_sbuf b = PX_SBUF_INIT;
    unsigned bits = 0;
    char f[48];
    if (c->psnr.present && !(im->psnr >= c->psnr.limit)) {
        bits |= CHECK_PSNR;
        sbuf_addf(&b, "PSNR %s dB < %g", figure_str(f, sizeof f, im->psnr, 1, 1, c->psnr.limit), c->psnr.limit);
    }
    if (c->ssim.present && !(im->ssim >= c->ssim.limit)) {
        bits |= CHECK_SSIM;
        sbuf_addf(&b, "%sSSIM %s < %g", b.len ? "; " : "", figure_str(f, sizeof f, im->ssim, 0, 4, c->ssim.limit),
                  c->ssim.limit);
    }
    if (c->mean_abs.present && !(im->mean_abs <= c->mean_abs.limit)) {
        bits |= CHECK_MEAN;
        sbuf_addf(&b, "%smean |Δ| %s > %g", b.len ? "; " : "",
                  figure_str(f, sizeof f, im->mean_abs, 0, 3, c->mean_abs.limit), c->mean_abs.limit);
    }
    if (c->max_abs.present && !(im->max_abs <= c->max_abs.limit)) {
        bits |= CHECK_MAX;
        sbuf_addf(&b, "%smax |Δ| %.0f > %g", b.len ? "; " : "", im->max_abs, c->max_abs.limit);
    }
    if (words && bits)
        *words = sbuf_take(&b);
    else
        sbuf_free(&b);
    return bits;
}

/* The names of the checks a failed list ("PSNR 21.3 dB < 30; SSIM ...")
 * holds: "PSNR, SSIM" (malloc'd). */
static char *failed_names(const char *failed)
{
    px_sbuf b = PX_SBUF_INIT;
    for (const char *p = failed; p && *p;) {
        for (int i = 0; i < 4; i++)
            if (!strncmp(p, check_name[i], strlen(check_name[i])))
                sbuf_addf(&b, "%s%s", b.len ? ", " : "", check_name[i]);
        const char *next = strstr(p, "; ");
        p = next ? next + 2 : NULL;
    }
    return sbuf_take(&b);
}

/* Every figure: "PSNR 48.1 dB, SSIM 0.9991, mean |Δ| 0.0117, max |Δ| 1 (of
 * 255)". */
static char *figure_words(const px_image_verdict *im)
{
    char psnr[48], ssim[48], mean[48];
    if (isinf(im->psnr))
        snprintf(psnr, sizeof psnr, "∞");
    else
        snprintf(psnr, sizeof psnr, "%.1f dB", im->psnr);
    return strf("PSNR %s, SSIM %s, mean |Δ| %s, max |Δ| %.0f (of 255)", psnr,
                figure_str(ssim, sizeof ssim, im->ssim, 0, 4, 1), figure_str(mean, sizeof mean, im->mean_abs, 0, 3, 0),
                im->max_abs);
}

/* x (usable) against the reference's picture ref (usable): the figures
 * into im, and the outcome: image-changed when a check fails, pass when
 * the 8-bit images are the same, else pass-within-tolerance. 0, or -1 out
 * of memory. */
static int image_compare(const jctx *j, const px_image8 *m, const px_example_result *ref, px_verdict *v)
{
    px_image_verdict *im = v->image;
    px_image8 r;
    px_image_figures fig;
    if (image_of(j->f, ref, &r))
        return -1;
    int rc = imagecmp_figures(m, &r, &fig);
    image8_free(&r);
    if (rc)
        return -1;
    im->psnr = fig.psnr, im->ssim = fig.ssim, im->mean_abs = fig.mean_abs, im->max_abs = fig.max_abs;
    char *figs = figure_words(im);
    if (!figs)
        return -1;
    if (failed_checks(&j->f->image_cmp, im, &im->failed)) {
        v->outcome = PX_OC_IMAGE_CHANGED;
        /* The checks that failed carry their figures: the others are in
         * v->image, which every view shows beside the detail. */
        v->detail = strf("%s%s", im->failed,
                         j->f->image_cmp.latents.present ? ""
                                                         : "; no compare.latents: the step where it parts is not told");
    } else if (fig.max_abs == 0) {
        v->outcome = PX_OC_PASS;
        v->detail = strf("the reference's image, pixel for pixel (8-bit)");
    } else {
        v->outcome = PX_OC_PASS_TOL;
        v->detail = strf("%s", figs);
    }
    free(figs);
    return v->detail ? 0 : -1;
}

/* An image's example that ran. Precedence: non-finite (naming the pixel
 * and channel), bad-shape, not-rejected, blank-image (in the reference as
 * in a candidate), then against the reference's picture: image-changed
 * (the checks that failed), pass (the same 8-bit image),
 * pass-within-tolerance. Started from other noise than the reference's:
 * image-changed, not compared as a picture (another experiment). */
static int image_judge(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example_result *x = &j->r->envs[e].ex[k];
    px_image_verdict *im = v->image;
    long bad = x->values ? numbers_first_non_finite(x) : -1;
    if (bad >= 0) {
        v->outcome = PX_OC_NON_FINITE;
        v->detail = non_finite_words(x, bad);
        return v->detail ? 0 : px_error_oom(j->err, NULL);
    }
    if (!image_shape_ok(f, x)) {
        char *sh = judge_shape_words(x);
        v->outcome = PX_OC_BAD_SHAPE;
        v->detail = strf("the image is %s, not [1,%d,%d,%d] (contract.image: size [%d, %d], channels %d)",
                         sh ? sh : "?", f->image.height, f->image.width, f->image.channels, f->image.height,
                         f->image.width, f->image.channels);
        free(sh);
        return v->detail ? 0 : px_error_oom(j->err, NULL);
    }
    if (f->examples[k].expect.kind == PX_EXPECT_REJECTED) {
        v->outcome = PX_OC_NOT_REJECTED;
        v->detail = strf("drew a %dx%d image; the contract says reject", f->image.width, f->image.height);
        return v->detail ? 0 : px_error_oom(j->err, NULL);
    }
    px_image8 m;
    if (image_of(f, x, &m))
        return px_error_oom(j->err, NULL);
    const px_example_result *ref = (int)e == j->ref ? NULL : judge_result_at(j, j->ref, k);
    int rc = 0;
    if ((im->blank = image8_blank(&m))) {
        v->outcome = PX_OC_BLANK_IMAGE;
        v->detail = blank_words(&m);
    } else if (!ref || ref->status != PX_ST_OK) {
        /* The reference itself, or nothing of the reference's to compare
         * with (the engine says not compared). */
        v->outcome = PX_OC_PASS;
        v->detail = strf("a %dx%d image", f->image.width, f->image.height);
    } else if (noise_differs(ref, x)) {
        v->outcome = PX_OC_IMAGE_CHANGED;
        im->failed = strf("started from other noise");
        v->detail = strf("started from other noise (sha256 %.12s… here, %.12s… in the reference): another "
                         "experiment, its image not compared",
                         x->img->noise_sha256, ref->img->noise_sha256);
    } else if (!image_usable(f, ref)) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("not compared: the reference's image is %s",
                         image_shape_ok(f, ref) ? "not finite" : "not of the contract's shape");
    } else {
        rc = image_compare(j, &m, ref, v);
    }
    image8_free(&m);
    return rc || !v->detail ? px_error_oom(j->err, NULL) : 0;
}

static int image_verdict_init(const px_fixture *f, size_t k, px_verdict *v)
{
    (void)f, (void)k;
    if (!(v->image = calloc(1, sizeof *v->image)))
        return -1;
    v->image->psnr = v->image->ssim = v->image->mean_abs = v->image->max_abs = NAN;
    v->image->diverged_step = -1;
    return 0;
}

static void image_verdict_free(px_verdict *v)
{
    if (v->image)
        free(v->image->curve_step), free(v->image->curve), free(v->image->failed);
    free(v->image);
    v->image = NULL;
}

/* The recorded latent of step s in g, NULL when none. */
static const double *latent_at(const px_image_out *g, int s)
{
    for (size_t i = 0; i < g->n_steps; i++)
        if (g->step[i] == s)
            return g->latents + i * g->latent_count;
    return NULL;
}

static int same_latent_shape(const px_image_out *a, const px_image_out *b)
{
    return a->latent_count == b->latent_count && !memcmp(a->latent_shape, b->latent_shape, sizeof a->latent_shape);
}

/* A recorded latent beyond compare.latents, in words: "latent at step 7 of
 * 20: 12 of 256 values beyond 0.02 + 0.02·|b| (value 17: |Δ| 0.31 > 0.022);
 * max|Δ| 0.35". */
static char *latent_words(const px_tolerance *t, int step, int steps, const double *a, const double *b, size_t n,
                          const px_cmp *c)
{
    size_t w = c->worst;
    if (isinf(c->value))
        return strf("latent at step %d of %d: value %zu is %.6g here, %.6g in the reference (no tolerance covers a "
                    "NaN or an infinity on one side)",
                    step, steps, w, b[w], a[w]);
    return strf("latent at step %d of %d: %zu of %zu values beyond %g + %g·|b| (value %zu: |Δ| %.3g > %.3g); "
                "max|Δ| %.3g",
                step, steps, c->n_failing, n, t->atol, t->rtol, w, fabs(b[w] - a[w]), c->threshold, c->value);
}

/* Where an image parts from the reference: its initial noise (another
 * experiment: the latent before step 0, diverged_step -1), then the first
 * recorded step whose latent is beyond compare.latents (diverged_step),
 * then, when its picture changed with every latent within, the picture
 * itself (the decoder). The curve (max|Δ| per step both recorded) is
 * filled whenever both have latents, with or without compare.latents. */
static px_div image_diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail)
{
    const px_fixture *f = j->f;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    px_image_verdict *im = v->image;
    if (!im)
        return PX_DIV_NONE;
    if (noise_differs(xa, xb)) {
        im->diverged_step = -1;
        *detail = strf("started from other noise (sha256 %.12s… here, %.12s… in the reference): not a comparison "
                       "of pictures",
                       xb->img->noise_sha256, xa->img->noise_sha256);
        return PX_DIV_LATENT;
    }
    const px_image_out *a = xa->img, *b = xb->img;
    const px_tolerance *t = &f->image_cmp.latents;
    int steps = f->image.steps > 0 ? f->image.steps : b && b->steps > 0 ? b->steps : 0;
    int last = -1;
    if (a && b && a->n_steps && b->n_steps && a->latent_count && same_latent_shape(a, b)) {
        free(im->curve_step), free(im->curve);
        im->n_curve = 0;
        im->curve_step = malloc(b->n_steps * sizeof *im->curve_step);
        im->curve = malloc(b->n_steps * sizeof *im->curve);
        if (!im->curve_step || !im->curve) {
            free(im->curve_step), free(im->curve);
            im->curve_step = NULL, im->curve = NULL;
            return PX_DIV_NONE;
        }
        for (size_t i = 0; i < b->n_steps; i++) {
            const double *lb = b->latents + i * b->latent_count, *la = latent_at(a, b->step[i]);
            px_cmp c;
            if (!la || compare_values(lb, la, b->latent_count, PX_STAT_ELEMENTWISE, 0, t->present ? t->atol : 0,
                                      t->present ? t->rtol : 0, &c))
                continue;
            im->curve_step[im->n_curve] = b->step[i];
            im->curve[im->n_curve++] = c.value;
            last = b->step[i];
            if (t->present && !c.pass && im->diverged_step < 0) {
                im->diverged_step = b->step[i];
                *detail = latent_words(t, b->step[i], steps, la, lb, b->latent_count, &c);
            }
        }
        if (im->diverged_step >= 0)
            return PX_DIV_LATENT;
    } else if (a && b && a->n_steps && b->n_steps && t->present) {
        /* Latents of another shape: another pipeline, parted from the start. */
        im->diverged_step = b->step[0];
        *detail = strf("latent at step %d of %d is [%lld,%lld,%lld,%lld], the reference's [%lld,%lld,%lld,%lld]",
                       b->step[0], steps, (long long)b->latent_shape[0], (long long)b->latent_shape[1],
                       (long long)b->latent_shape[2], (long long)b->latent_shape[3], (long long)a->latent_shape[0],
                       (long long)a->latent_shape[1], (long long)a->latent_shape[2], (long long)a->latent_shape[3]);
        return PX_DIV_LATENT;
    }
    if (v->outcome != PX_OC_IMAGE_CHANGED || !im->failed)
        return PX_DIV_NONE;
    /* The picture changed with no latent beyond: the decoder, or a step
     * between those recorded, or not told. */
    if (!t->present)
        *detail = strf("the image: %s (no compare.latents: the step where it parts is not told)", im->failed);
    else if (last >= 0)
        *detail = strf("the image: %s, with every recorded latent within compare.latents (the last at step %d of %d)",
                       im->failed, last, steps);
    else
        *detail = strf("the image: %s (no latents recorded to compare)", im->failed);
    return PX_DIV_VALUES;
}

/* What example k's change is, for the twin to tell: the step its latents
 * part at (-1: none told), and the checks its picture fails. 0 when it did
 * not change (its picture meets every check against the reference's) or
 * started from other noise (another experiment: nothing to attribute). */
static int image_change(const px_fixture *f, const px_verdict *v, long *step, unsigned *checks)
{
    const px_image_verdict *im = v->image;
    *step = -1, *checks = 0;
    if (!im || v->outcome != PX_OC_IMAGE_CHANGED || (v->div == PX_DIV_LATENT && im->diverged_step < 0))
        return 0;
    *step = v->div == PX_DIV_LATENT ? im->diverged_step : -1;
    *checks = failed_checks(&f->image_cmp, im, NULL);
    return 1;
}

/* The twin's latents kept to the reference's at step s: it recorded step s
 * (its curve has it) and does not part there or before. */
static int twin_keeps_at(const px_image_verdict *tim, long s)
{
    if (tim->diverged_step >= 0 && tim->diverged_step <= s)
        return 0;
    for (size_t i = 0; i < tim->n_curve; i++)
        if (tim->curve_step[i] == s)
            return 1;
    return 0;
}

/* A candidate whose picture changed: precision's when the twin's latents
 * part at the same step or earlier, or its picture fails the same checks;
 * the device's when the twin keeps to the reference's latents at the step
 * where the candidate parts (or, with no step told, its picture meets
 * every check); unknown otherwise (the twin has no picture, started from
 * other noise, recorded no latent at that step, or fails other checks). */
static px_attr image_attribute(const jctx *j, size_t e, size_t k, const px_example_result *ref, const px_verdict *v)
{
    long step;
    unsigned checks;
    if (!image_change(j->f, v, &step, &checks))
        return PX_ATTR_NONE;
    const px_example_result *tw;
    px_attr said = attribute_twin_first(j, e, k, &tw);
    if (said != PX_ATTR_NONE)
        return said;
    const px_verdict *tv = &j->out->envs[j->twin].ex[k];
    const px_image_verdict *tim = tv->image;
    if (!tim || !image_usable(j->f, tw) || noise_differs(ref, tw) ||
        (tv->outcome != PX_OC_PASS && tv->outcome != PX_OC_PASS_TOL && tv->outcome != PX_OC_IMAGE_CHANGED))
        return PX_ATTR_UNKNOWN;
    unsigned tchecks = tv->outcome == PX_OC_IMAGE_CHANGED ? failed_checks(&j->f->image_cmp, tim, NULL) : 0;
    if (step >= 0 && tim->diverged_step >= 0 && tim->diverged_step <= step)
        return PX_ATTR_PRECISION;
    if (checks && (tchecks & checks) == checks)
        return PX_ATTR_PRECISION;
    if (step >= 0 ? twin_keeps_at(tim, step) : !tchecks)
        return PX_ATTR_DEVICE;
    return PX_ATTR_UNKNOWN;
}

/* The cause, in steps: "precision (the bfloat16 twin parts at step 5
 * too)", "device (the twin keeps to the reference's latents at step 7)". */
static char *image_cause(const px_judgement *j, size_t e, size_t k)
{
    const px_verdict *v = &j->envs[e].ex[k];
    const char *dt = j->twin_dtype ? j->twin_dtype : "reduced-precision";
    const px_verdict *tv = j->twin >= 0 && j->envs[j->twin].ex ? &j->envs[j->twin].ex[k] : NULL;
    const px_image_verdict *im = v->image, *tim = tv ? tv->image : NULL;
    long step = v->div == PX_DIV_LATENT && im ? im->diverged_step : -1;
    switch (v->attr) {
    case PX_ATTR_PRECISION:
        if ((int)e == j->twin)
            return strf("precision (this is the %s twin)", dt);
        if (step >= 0 && tim && tim->diverged_step >= 0 && tim->diverged_step <= step)
            return tim->diverged_step == step
                       ? strf("precision (the %s twin parts at step %ld too)", dt, step)
                       : strf("precision (the %s twin parts at step %ld, before this at %ld)", dt,
                              tim->diverged_step, step);
        if (tim && tim->failed) {
            char *names = failed_names(tim->failed);
            char *s = strf("precision (the %s twin's image fails %s too)", dt, names ? names : "the same checks");
            free(names);
            return s;
        }
        return strf("precision (the %s twin's image fails the same checks)", dt);
    case PX_ATTR_DEVICE:
        if (step >= 0)
            return strf("device (the twin keeps to the reference's latents at step %ld, where this parts)", step);
        return strf("device (the twin's image meets every check)");
    case PX_ATTR_UNKNOWN:
        if (j->twin_unusable || !tv || !tim || (tv->outcome != PX_OC_PASS && tv->outcome != PX_OC_PASS_TOL &&
                                                tv->outcome != PX_OC_IMAGE_CHANGED))
            return attribute_unknown_words(j, k, "image");
        if (tv->div == PX_DIV_LATENT && tim->diverged_step < 0)
            return strf("unknown: the twin started from other noise than the reference");
        if (step >= 0 && tim->diverged_step > step)
            return strf("unknown: the twin parts later, at step %ld, and records no latent at step %ld",
                        tim->diverged_step, step);
        if (step >= 0 && tim->diverged_step < 0)
            return strf("unknown: the twin records no latent at step %ld to compare", step);
        return strf("unknown: the twin's image changes another way (%s)", tim->failed ? tim->failed : "");
    default: return NULL;
    }
}

static char *image_forward(const px_fixture *f, const px_env_result *er)
{
    (void)er;
    return strf("every example's image is [1,%d,%d,%d]", f->image.height, f->image.width, f->image.channels);
}

/* A picture decides no label. */
static int image_bench_label(const double *out, size_t n)
{
    (void)out, (void)n;
    return -1;
}

const px_judge_kind judge_image = {
    .verdict_init = image_verdict_init,
    .verdict_free = image_verdict_free,
    .judge = image_judge,
    .diverge = image_diverge,
    .attribute = image_attribute,
    .cause_words = image_cause,
    .twin_same = "parts at the same step",
    .twin_other = "keeps to the reference's latents",
    .forward_words = image_forward,
    .partial_shape = "[1,H,W,C]",
    .bench_label = image_bench_label,
};
