/* An image's report parts (report_kind.h): its size in run's table and
 * each candidate's PSNR against the reference; its figures (PSNR, SSIM,
 * mean and max |Δpixel|), the checks it fails and the step its latents
 * part at, in the story, check's text and JSON; the contract's image
 * settings and compare.image's checks in words; in the HTML report the
 * reference's picture, the candidate's and their difference map side by
 * side (PNG, data: URIs) with the figures beside them, and the per-step
 * divergence of the latents as a chart; in export and repro bundles the
 * same as PNG files and the curve as CSV. Every figure comes from
 * imagecmp.h, as the judge's and the review pane's do. */
#include "parity/report_kind.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"
#include "parity/emit.h"
#include "parity/imagecmp.h"
#include "parity/png.h"
#include "parity/story.h"

/* ---- the pictures ---- */

/* Example k's picture in environment e as 8-bit (imagecmp.h): its shape
 * [1, H, W, C] as recorded, else the contract's size. 0, or -1 when it
 * has none (no output, another count of values, not finite, no memory). */
static int picture_of(const px_fixture *f, const px_example_result *x, px_image8 *out)
{
    memset(out, 0, sizeof *out);
    if (x->status != PX_ST_OK || !x->values)
        return -1;
    int h = f->image.height, w = f->image.width, c = f->image.channels;
    if (x->ndim == 4 && x->shape[0] == 1 && x->shape[1] > 0 && x->shape[2] > 0 && x->shape[3] > 0 &&
        x->shape[1] <= PX_PNG_MAX_SIDE && x->shape[2] <= PX_PNG_MAX_SIDE && x->shape[3] <= 4)
        h = (int)x->shape[1], w = (int)x->shape[2], c = (int)x->shape[3];
    if (h <= 0 || w <= 0 || c <= 0 || (size_t)h * (size_t)w * (size_t)c != x->n_values)
        return -1;
    return image8_from_unit(x->values, h, w, c, out, NULL);
}

/* The difference map of a against the reference b in the heat ramp
 * (imagecmp_heat), RGB: 0 with *out, -1 when the sizes differ or out of
 * memory. */
static int heat_map(const px_image8 *a, const px_image8 *b, px_image8 *out)
{
    memset(out, 0, sizeof *out);
    uint8_t *d = imagecmp_diff_map(a, b);
    if (!d)
        return -1;
    size_t n = (size_t)a->h * (size_t)a->w;
    out->px = malloc(3 * n);
    if (!out->px) {
        free(d);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        imagecmp_heat(d[i], out->px + 3 * i);
    free(d);
    out->h = a->h, out->w = a->w, out->c = 3;
    return 0;
}

/* "41.2 dB", "inf (identical)". */
static void psnr_words(px_sbuf *b, double psnr)
{
    if (isinf(psnr) && psnr > 0)
        sbuf_add(b, "inf (identical)");
    else
        sbuf_addf(b, "%.1f dB", psnr);
}

/* The figures in words: "PSNR 41.2 dB, SSIM 0.9871, mean |Δ| 0.41, max
 * |Δ| 12 of 255"; those not compared (NAN) left out; "" when none is. */
static void figure_words(px_sbuf *b, double psnr, double ssim, double mean_abs, double max_abs)
{
    size_t at = b->len;
    if (!isnan(psnr))
        sbuf_add(b, "PSNR "), psnr_words(b, psnr);
    if (!isnan(ssim))
        sbuf_addf(b, "%sSSIM %.4f", b->len > at ? ", " : "", ssim);
    if (!isnan(mean_abs))
        sbuf_addf(b, "%smean |Δ| %.3g", b->len > at ? ", " : "", mean_abs);
    if (!isnan(max_abs))
        sbuf_addf(b, "%smax |Δ| %.0f", b->len > at ? ", " : "", max_abs);
    if (!isnan(mean_abs) || !isnan(max_abs))
        sbuf_add(b, " of 255");
}

/* Started from other noise than the reference's (the judge's stage
 * latent before step 0): another experiment, its picture not compared. */
static int other_noise(const px_verdict *v)
{
    return v->image && v->div == PX_DIV_LATENT && v->image->diverged_step < 0;
}

/* Where its picture stands, after the figures: blank, started from other
 * noise, the checks it fails (the judge's words), and where it parts from
 * the reference's: at a recorded latent (stage latent), or in the
 * picture with every recorded latent within compare.latents (stage
 * values: the decoder, or a step between those recorded). */
static void path_words(px_sbuf *b, const px_verdict *v)
{
    const px_image_verdict *im = v->image;
    const char *sep = b->len ? "; " : "";
    if (im->blank)
        sbuf_addf(b, "%sblank: one colour", sep), sep = "; ";
    if (other_noise(v)) {
        sbuf_addf(b, "%sstarted from other noise than the reference's: another experiment, its picture not "
                     "compared",
                  sep);
        return;
    }
    if (im->failed)
        sbuf_addf(b, "%sfails %s", sep, im->failed), sep = "; ";
    if (im->diverged_step >= 0)
        sbuf_addf(b, "%slatents part from the reference's at step %ld", sep, im->diverged_step);
    else if (v->div == PX_DIV_VALUES && im->n_curve)
        sbuf_addf(b, "%slatents within compare.latents at every recorded step: it parts in the picture", sep);
}

/* A verdict's part in words (figures, then path_words), malloc'd; NULL
 * when it says nothing or out of memory. */
static char *verdict_words(const px_verdict *v)
{
    const px_image_verdict *im = v->image;
    px_sbuf b = PX_SBUF_INIT;
    figure_words(&b, im->psnr, im->ssim, im->mean_abs, im->max_abs);
    path_words(&b, v);
    if (!b.len) {
        sbuf_free(&b);
        return NULL;
    }
    return sbuf_take(&b);
}

/* ---- run's table ---- */

/* "32x32 RGB", "32x32 RGB, blank"; "no picture" when its values are no
 * picture of the contract's size. */
static void size_cell(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k)
{
    px_image8 m;
    if (picture_of(f, &e->ex[k], &m)) {
        sbuf_add(b, "no picture");
        return;
    }
    sbuf_addf(b, "%dx%d %s%s", m.h, m.w, m.c == 1 ? "grey" : m.c == 3 ? "RGB" : m.c == 4 ? "RGBA" : "grey+alpha",
              image8_blank(&m) ? ", blank" : "");
    image8_free(&m);
}

/* Each candidate's PSNR against the reference's picture: "41.2 dB", "="
 * where they are the same picture, "-" where either has none. */
static void psnr_diffs(FILE *o, const px_fixture *f, const px_results *r, size_t k, size_t n_cand)
{
    const char *sep = "  ";
    px_image8 ref;
    int have_ref = r->reference >= 0 && !picture_of(f, &r->envs[r->reference].ex[k], &ref);
    for (size_t i = 0; r->reference >= 0 && i < r->n_envs; i++) {
        if ((int)i == r->reference)
            continue;
        px_image8 m;
        px_image_figures fig;
        if (have_ref && !picture_of(f, &r->envs[i].ex[k], &m)) {
            if (imagecmp_figures(&m, &ref, &fig))
                fprintf(o, "%sother size", sep);
            else if (isinf(fig.psnr))
                fprintf(o, "%s=", sep);
            else
                fprintf(o, "%s%.1f dB", sep, fig.psnr);
            image8_free(&m);
        } else
            fprintf(o, "%s-", sep);
        sep = ", ";
    }
    if (have_ref)
        image8_free(&ref);
    fprintf(o, "%s\n", n_cand ? "" : "  -");
}

/* ---- the story ---- */

static const px_image_verdict *image_verdict(const px_judgement *j, size_t e, size_t k)
{
    if (!j || e >= j->n_envs || k >= j->n_examples || !j->envs[e].ex)
        return NULL;
    return j->envs[e].ex[k].image;
}

/* The cell's picture, and the figures in words when the judge compared
 * without a tolerance's statistic (has_cmp: story_diff says them). */
static void story_picture(px_story_ctx *b, size_t e, size_t k, px_story_cell *c)
{
    px_image8 m;
    if (!picture_of(b->f, &b->r->envs[e].ex[k], &m)) {
        c->image = malloc(sizeof *c->image);
        if (c->image)
            *c->image = m;
        else
            image8_free(&m), b->oom = 1;
    }
    const px_verdict *v = &b->j->envs[e].ex[k];
    if (v->image && !v->has_cmp && !v->not_compared && (int)e != b->r->reference) {
        char *w = verdict_words(v);
        if (w)
            c->diff_words = rk_dup(b, w);
        free(w);
    }
}

static char *picture_diff_words(px_story_ctx *b, const px_verdict *v)
{
    if (!v->image)
        return rk_tolerance_words(b, v, "pixel");
    char *w = verdict_words(v);
    char *t = rk_dup(b, w ? w : "compared");
    free(w);
    return t;
}

/* An image example's expectation: a picture like the reference's. */
static void picture_expect(const px_fixture *f, const px_expect *x, px_sbuf *b)
{
    (void)f;
    if (x->kind == PX_EXPECT_NONE)
        sbuf_add(b, "a picture, the reference's within compare.image");
    else
        sbuf_add(b, "(nothing stated)");
}

static const char *no_tolerance(const px_fixture *f)
{
    (void)f;
    return "pixels: no per-element tolerance: compare.image's checks below decide";
}

/* One more line of the story's tolerances (out of memory: b->oom). */
static void add_tolerance(px_story_ctx *b, char *line)
{
    px_strs *l = &b->s->tolerances;
    char **v = line ? realloc(l->v, (l->n + 1) * sizeof *v) : NULL;
    if (!v) {
        free(line);
        b->oom = 1;
        return;
    }
    l->v = v;
    l->v[l->n++] = line;
}

static void story_contract(px_story_ctx *b)
{
    const px_fixture *f = b->f;
    const px_image_spec *im = &f->image;
    b->s->image = rk_fmt(b,
                         "a %dx%d %s picture; %d %s steps, guidance scale %g, seed %llu (an example's own seed "
                         "overrides it); the initial noise drawn once on the CPU and handed to every environment; "
                         "the latents recorded every %d step%s and after the last",
                         im->height, im->width,
                         im->channels == 1 ? "grey" : im->channels == 3 ? "RGB" : im->channels == 4 ? "RGBA" : "",
                         im->steps, im->scheduler ? im->scheduler : "(scheduler not named)", im->guidance_scale,
                         im->seed, im->latent_every > 0 ? im->latent_every : 1, im->latent_every > 1 ? "s" : "");
    const px_image_checks *ck = &f->image_cmp;
    const struct {
        const px_image_bound *bd;
        const char *what;
    } checks[] = {{&ck->psnr, "PSNR at least %g dB"},
                  {&ck->ssim, "SSIM at least %g"},
                  {&ck->mean_abs, "mean |Δpixel| at most %g of 255"},
                  {&ck->max_abs, "max |Δpixel| at most %g of 255"}};
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
        const px_image_bound *bd = checks[i].bd;
        if (!bd->present)
            continue;
        char what[80];
        snprintf(what, sizeof what, checks[i].what, bd->limit);
        add_tolerance(b, rk_fmt(b, "picture, every example: %s against the reference's: %s", what,
                                bd->why ? bd->why : "(no why written)"));
    }
    const px_tolerance *lt = &ck->latents;
    if (lt->present)
        add_tolerance(b, rk_fmt(b,
                                "latents, each recorded step: |Δ| within atol %g + rtol %g × |reference|; the first "
                                "step beyond it is the earliest divergence: %s",
                                lt->atol, lt->rtol, lt->why ? lt->why : "(no why written)"));
}

/* ---- check ---- */

/* A candidate's figures, the checks it fails and the step its latents
 * part at (malloc'd); NULL for the reference or without a comparison.
 * Shown always: how far the picture moved is what one reads check for. */
static char *check_picture(const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                           int *show)
{
    (void)f;
    if (!image_verdict(j, e, k) || (r->reference >= 0 && (size_t)r->reference == e))
        return NULL;
    char *w = verdict_words(&j->envs[e].ex[k]);
    *show = w != NULL;
    return w;
}

/* "image": {psnr, ssim, mean_abs, max_abs, blank, failed, diverged_step,
 * other_noise, curve: [{step, max_abs_delta}], noise_sha256}; null when it has no
 * verdict of its own. */
static void json_picture(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                         const px_verdict *v)
{
    (void)f, (void)j;
    const px_image_verdict *im = v->image;
    const px_image_out *out = r->envs[e].ex[k].img;
    rk_json_key(o, "image");
    if (!im) {
        fputs("null,", o);
        return;
    }
    fputc('{', o);
    /* PSNR of equal pictures is infinite: JSON has no such number, so
     * "inf" says it. */
    rk_json_key(o, "psnr");
    if (isinf(im->psnr) && im->psnr > 0)
        emit_json_string(o, "inf");
    else
        rk_json_double_or_null(o, im->psnr);
    fputc(',', o);
    rk_json_key(o, "ssim"), rk_json_double_or_null(o, im->ssim), fputc(',', o);
    rk_json_key(o, "mean_abs"), rk_json_double_or_null(o, im->mean_abs), fputc(',', o);
    rk_json_key(o, "max_abs"), rk_json_double_or_null(o, im->max_abs), fputc(',', o);
    rk_json_key(o, "blank"), fputs(im->blank ? "true," : "false,", o);
    rk_json_key(o, "failed"), rk_json_str_or_null(o, im->failed), fputc(',', o);
    rk_json_key(o, "diverged_step");
    if (im->diverged_step >= 0)
        fprintf(o, "%ld,", im->diverged_step);
    else
        fputs("null,", o);
    rk_json_key(o, "other_noise"), fputs(other_noise(v) ? "true," : "false,", o);
    rk_json_key(o, "curve"), fputc('[', o);
    for (size_t i = 0; im->curve && im->curve_step && i < im->n_curve; i++) {
        fputs(i ? ",{" : "{", o);
        rk_json_key(o, "step"), fprintf(o, "%d,", im->curve_step[i]);
        rk_json_key(o, "max_abs_delta"), rk_json_double_or_null(o, im->curve[i]), fputc('}', o);
    }
    fputs("],", o);
    rk_json_key(o, "noise_sha256"), rk_json_str_or_null(o, out && out->noise_sha256[0] ? out->noise_sha256 : NULL);
    fputs("},", o);
}

/* ---- the reports: words ---- */

static void md_output(FILE *o, const px_story *s) { fputs("Output: ", o), md_text(o, s->image ? s->image : ""); }

static void html_output(FILE *o, const px_story *s) { fputs("Output: ", o), html_text(o, s->image ? s->image : ""); }

/* "32x32 RGB"; "32x32 RGB, blank"; "no picture". */
static void cell_words(char *buf, size_t size, const px_story_cell *c)
{
    const px_image8 *m = c->image;
    if (!m)
        snprintf(buf, size, "no picture");
    else
        snprintf(buf, size, "%dx%d %s%s", m->h, m->w,
                 m->c == 1   ? "grey"
                 : m->c == 3 ? "RGB"
                 : m->c == 4 ? "RGBA"
                             : "grey+alpha",
                 image8_blank(m) ? ", blank" : "");
}

static void md_picture_cell(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    char w[64];
    cell_words(w, sizeof w, c);
    md_cell_text(o, w);
}

static void html_picture_cell(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    char w[64];
    cell_words(w, sizeof w, c);
    html_text(o, w);
}

/* Environment e's image verdict for example k in the story's judgement. */
static const px_image_verdict *story_verdict(const px_story *s, const px_judgement *j, size_t e, size_t k)
{
    if (!j || j->n_envs != s->n_envs || !s->examples[k].cells[e].present)
        return NULL;
    return image_verdict(j, e, k);
}

/* The candidates of example k with a picture to set beside the
 * reference's, and the reference's picture (NULL: none). */
static const px_image8 *reference_picture(const px_story *s, size_t k)
{
    if (s->reference < 0)
        return NULL;
    const px_story_cell *c = &s->examples[k].cells[s->reference];
    return c->present ? c->image : NULL;
}

/* The per-step divergence of example k's latents in each candidate, as
 * text: "cpu-bf16: step 0 0, 1 0.0012, ... **5 0.041** (parts)". The
 * pictures are not in Markdown: a report.md stands alone (written by
 * `parity report` where no PNG lies beside it); the HTML report shows
 * them, and an export carries them as files (images/). */
static void md_curves(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    int said = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_image_verdict *im = story_verdict(s, j, e, k);
        if ((int)e == s->reference || !im || !im->n_curve || !im->curve || !im->curve_step)
            continue;
        if (!said++)
            fputs("Largest |Δlatent| against the reference at each recorded step (the first beyond compare.latents "
                  "in bold; the pictures are in the HTML report and in an export's images/):\n\n",
                  o);
        fputs("- ", o), md_text(o, s->envs[e].name), fputs(":", o);
        for (size_t i = 0; i < im->n_curve; i++) {
            int parts = im->diverged_step >= 0 && im->curve_step[i] == im->diverged_step;
            fprintf(o, "%s %s%d %.3g%s", i ? "," : "", parts ? "**" : "", im->curve_step[i], im->curve[i],
                    parts ? "** (parts)" : "");
        }
        fputc('\n', o);
    }
    if (said)
        fputc('\n', o);
}

/* ---- the reports: pictures ---- */

enum { SHOW_SIDE = 128 }; /* a picture's shown side in CSS pixels, about */

/* One picture as <figure><img src="data:..."><figcaption>: scaled up by
 * a whole factor, pixelated, to about SHOW_SIDE; "(cannot show: why)"
 * when it cannot be encoded. */
static void html_picture(FILE *o, const px_image8 *m, const char *caption, const char *alt)
{
    px_error err = {0};
    char *uri = image_png_data_uri(m, &err);
    int big = m->h > m->w ? m->h : m->w, scale = big < SHOW_SIDE ? SHOW_SIDE / big : 1;
    fputs("<figure>", o);
    if (uri)
        fprintf(o, "<img src=\"%s\" width=\"%d\" height=\"%d\" alt=\"", uri, m->w * scale, m->h * scale),
            html_text(o, alt), fputs("\">", o);
    else
        html_tag(o, "<span class=\"unmet\">(cannot show: ", err.msg, ")</span>");
    html_tag(o, "<figcaption>", caption, "</figcaption></figure>");
    free(uri);
}

enum { CW = 300, CH = 120, CL = 46, CB = 18 }; /* the curve's box, its left and bottom margins */

/* The divergence curve: max |Δlatent| per recorded step, on a log scale
 * (a step with none drawn at the bottom, a decade under the smallest: 0
 * has no logarithm), the first
 * step beyond compare.latents marked with a dashed line and its words. */
static void html_curve(FILE *o, const char *env, const px_image_verdict *im)
{
    if (!im->n_curve || !im->curve || !im->curve_step)
        return;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < im->n_curve; i++)
        if (isfinite(im->curve[i]) && im->curve[i] > 0)
            lo = im->curve[i] < lo ? im->curve[i] : lo, hi = im->curve[i] > hi ? im->curve[i] : hi;
    int first = im->curve_step[0], last = im->curve_step[im->n_curve - 1], span = last > first ? last - first : 1;
    /* A decade below the smallest difference: a step with none (0) lies
     * under every one with some. */
    double l0 = hi > 0 ? floor(log10(lo)) - 1 : -6, l1 = hi > 0 ? ceil(log10(hi)) : 0;
    if (l1 <= l0)
        l1 = l0 + 1;
    l0 += 0.0, l1 += 0.0; /* ceil(-0.5) is -0: "1e0", not "1e-0" */
    int pw = CW - CL - 8, ph = CH - CB - 16;
    fprintf(o, "<figure class=\"chart\"><svg class=\"curve-chart\" role=\"img\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
            CW, CH, CW, CH);
    html_text(o, env);
    fputs(": largest |Δlatent| against the reference at each recorded step", o);
    if (im->diverged_step >= 0)
        fprintf(o, "; parts beyond compare.latents at step %ld", im->diverged_step);
    fputs("</title>", o);
    fprintf(o, "<text x=\"0\" y=\"10\">1e%.0f</text><text x=\"0\" y=\"%d\">1e%.0f</text>"
               "<text x=\"%d\" y=\"%d\">step %d</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">step %d</text>"
               "<rect class=\"track\" x=\"%d\" y=\"6\" width=\"%d\" height=\"%d\"/><polyline class=\"curve\" points=\"",
            l1, ph + 6, l0, CL, CH - 4, first, CW - 8, CH - 4, last, CL, pw, ph);
    for (size_t i = 0; i < im->n_curve; i++) {
        double v = im->curve[i], y = isfinite(v) && v > 0 ? (log10(v) - l0) / (l1 - l0) : 0;
        fprintf(o, "%s%.1f,%.1f", i ? " " : "", CL + pw * (double)(im->curve_step[i] - first) / span,
                6 + ph * (1 - (y < 0 ? 0 : y > 1 ? 1 : y)));
    }
    fputs("\"/>", o);
    if (im->diverged_step >= 0) {
        double x = CL + pw * (double)(im->diverged_step - first) / span;
        fprintf(o, "<line class=\"part\" x1=\"%.1f\" x2=\"%.1f\" y1=\"6\" y2=\"%d\"/><text class=\"part\" "
                   "x=\"%.1f\" y=\"16\">parts at step %ld</text>",
                x, x, ph + 6, x + 3 > CW - 90 ? x - 90 : x + 3, im->diverged_step);
    }
    fputs("</svg></figure>", o);
}

/* Each candidate of example k beside the reference: the reference's
 * picture, the candidate's and their difference map (imagecmp_heat's
 * ramp), the figures beside them, then the divergence curve of its
 * latents. Without a judgement the figures are computed here, by the
 * judge's own functions. */
static void html_pictures(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    const px_image8 *ref = reference_picture(s, k);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &s->examples[k].cells[e];
        if ((int)e == s->reference || !c->present || !c->image || !ref)
            continue;
        px_image8 heat;
        int have_heat = !heat_map(c->image, ref, &heat);
        fputs("<div class=\"pictures\">", o);
        html_picture(o, ref, s->envs[s->reference].name, "the reference's picture");
        html_picture(o, c->image, s->envs[e].name, "the candidate's picture");
        if (have_heat)
            html_picture(o, &heat, "|Δ|: black equal, white 255 apart", "their difference map");
        else
            fputs("<figure><figcaption>no difference map: the pictures' sizes differ</figcaption></figure>", o);
        const px_image_verdict *im = story_verdict(s, j, e, k);
        px_sbuf w = PX_SBUF_INIT;
        px_image_figures fig;
        if (im)
            figure_words(&w, im->psnr, im->ssim, im->mean_abs, im->max_abs);
        else if (!imagecmp_figures(c->image, ref, &fig))
            figure_words(&w, fig.psnr, fig.ssim, fig.mean_abs, fig.max_abs);
        html_tag(o, "<div class=\"figures\"><b>", s->envs[e].name, "</b> against the reference<br>");
        html_text(o, w.len ? sbuf_str(&w) : "not compared");
        if (im) {
            px_sbuf p = PX_SBUF_INIT;
            path_words(&p, &j->envs[e].ex[k]);
            if (p.len)
                fprintf(o, "<br><span class=\"%s\">", im->failed || im->blank ? "unmet" : "path"),
                    html_text(o, sbuf_str(&p)), fputs("</span>", o);
            sbuf_free(&p);
        }
        fputs("</div>", o);
        sbuf_free(&w);
        if (im)
            html_curve(o, s->envs[e].name, im);
        fputs("</div>\n", o);
        if (have_heat)
            image8_free(&heat);
    }
}

static const char *html_css(const px_story *s, const px_judgement *j)
{
    (void)s, (void)j;
    return ".pictures{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-start;margin:.5rem 0}"
           ".pictures figure{margin:0}.pictures img{image-rendering:pixelated;image-rendering:crisp-edges;"
           "border:1px solid var(--line);background:var(--bg)}.pictures figcaption{font-size:.85rem;"
           "color:var(--muted)}.figures{max-width:14rem;font-size:.9rem}"
           "svg .curve{stroke:var(--bar);stroke-width:1.5;fill:none}svg .part{stroke:var(--bad);stroke-width:2;"
           "stroke-dasharray:4 2}svg text.part{fill:var(--bad);stroke:none}";
}

/* ---- export and repro bundles ---- */


static int put_png(const px_image8 *m, const char *rel, px_bundle_put put, void *ctx, px_error *err)
{
    unsigned char *png;
    size_t n;
    if (image_png_encode(m, &png, &n, err))
        return -1;
    int rc = put(ctx, rel, png, n);
    free(png);
    return rc;
}

/* The curve as CSV: "step,max_abs_delta", a row per recorded step. */
static int put_curve(const px_image_verdict *im, const char *rel, px_bundle_put put, void *ctx, px_error *err)
{
    px_sbuf b = PX_SBUF_INIT;
    sbuf_add(&b, "step,max_abs_delta\n");
    for (size_t i = 0; i < im->n_curve; i++)
        sbuf_addf(&b, "%d,%.9g\n", im->curve_step[i], im->curve[i]);
    if (sbuf_failed(&b)) {
        sbuf_free(&b);
        return px_error_oom(err, rel);
    }
    int rc = put(ctx, rel, sbuf_str(&b), b.len);
    sbuf_free(&b);
    return rc;
}

/* images/K-ID/ENV.png for each environment with a picture, ENV-diff.png
 * (the difference map against the reference's) and ENV-curve.csv for
 * each candidate compared. */
static int export_pictures(const px_fixture *f, const px_results *r, const px_judgement *j, size_t k,
                           const unsigned char *want, px_bundle_put put, void *ctx, px_error *err)
{
    char id[96], env[96], rel[320];
    report_safe_name(id, sizeof id, f->examples[k].id);
    px_image8 ref;
    int have_ref = r->reference >= 0 && !picture_of(f, &r->envs[r->reference].ex[k], &ref), n = 0, rc = 0;
    for (size_t e = 0; !rc && e < r->n_envs; e++) {
        px_image8 m, heat;
        if ((want && !want[e]) || picture_of(f, &r->envs[e].ex[k], &m))
            continue;
        report_safe_name(env, sizeof env, r->envs[e].name);
        snprintf(rel, sizeof rel, "images/%zu-%s/%s.png", k + 1, id, env);
        rc = put_png(&m, rel, put, ctx, err);
        n++;
        int cand = have_ref && (int)e != r->reference;
        if (!rc && cand && !heat_map(&m, &ref, &heat)) {
            snprintf(rel, sizeof rel, "images/%zu-%s/%s-diff.png", k + 1, id, env);
            rc = put_png(&heat, rel, put, ctx, err);
            image8_free(&heat);
            n++;
        }
        const px_image_verdict *im = image_verdict(j, e, k);
        if (!rc && cand && im && im->n_curve && im->curve && im->curve_step) {
            snprintf(rel, sizeof rel, "images/%zu-%s/%s-curve.csv", k + 1, id, env);
            rc = put_curve(im, rel, put, ctx, err);
            n++;
        }
        image8_free(&m);
    }
    if (have_ref)
        image8_free(&ref);
    return rc ? -1 : n;
}

const px_report_kind rk_image = {
    .run_cell = size_cell,
    .run_diff = psnr_diffs,
    .diff_per_candidate = 1,
    .story_cell = story_picture,
    .story_diff = picture_diff_words,
    .story_expect = picture_expect,
    .story_no_tolerance = no_tolerance,
    .story_contract = story_contract,
    .check_words = check_picture,
    .check_words_label = "picture",
    .check_json_example = json_picture,
    .cell_title = "Picture",
    .md_output = md_output,
    .html_output = html_output,
    .md_cell = md_picture_cell,
    .html_cell = html_picture_cell,
    .md_example_extra = md_curves,
    .html_example_extra = html_pictures,
    .html_css = html_css,
    .html_images = 1,
    .export_example = export_pictures,
    .export_readme = "`images/`: each image example's pictures, one directory each (`N-ID/`): every environment's "
                     "as `ENV.png`, a candidate's difference map against the reference's as `ENV-diff.png` (black "
                     "equal, red, yellow, white 255 apart) and the largest |Δlatent| at each recorded step as "
                     "`ENV-curve.csv` (step,max_abs_delta).",
};
