/* The image kind's report part (rk_image.c), on the image contract of
 * tests/data/image/shapes.yaml (two environments, two pictures and a
 * class to reject), results made here in memory (each picture a pattern
 * of its own, the latents recorded at four steps) and the judge's own
 * judgement of them (judge_image.c): the HTML report shows, per candidate
 * example, the reference's picture, the candidate's and their difference
 * map as data: PNGs that decode to those very pixels, with the divergence
 * curve's parting step marked; check's JSON and text hold the figures and
 * the judge's words; run's table gives the PSNR; an export carries the
 * PNGs (decoding to the pictures) and the curve as CSV. The same results
 * written to a file make `parity report`, `check` and `export` of it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/bundle.h"
#include "parity/check_report.h"
#include "parity/fixture.h"
#include "parity/imagecmp.h"
#include "parity/judge.h"
#include "parity/report_html.h"
#include "parity/report_kind.h"
#include "parity/report_md.h"
#include "parity/results.h"
#include "parity/story.h"
#include "parity/strf.h"
#include "pngdecode.h"
#include "testlib.h"

#define FIXTURE "tests/data/image/shapes.yaml"
/* contract.image: size [32, 24]; latents recorded every 5 steps of 20. */
enum { H = 32, W = 24, C = 3, REC = 4, LAT = 16, PARTS = 14 };
enum { EX_CIRCLE, EX_SQUARE, EX_DRAGON };
static const int rec_step[REC] = {4, 9, 14, 19};
/* The candidate's first example's latents, this far from the reference's
 * (0.5) at each recorded step: compare.latents (0.02 + 0.02 x 0.5) holds
 * the first two and not the third, step 14. */
static const double curve[REC] = {0, 1e-4, 0.05, 0.3};
#define NOISE "1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f"

static px_fixture *f;
static px_results *r;
static px_judgement j;
static px_story *story;

/* Example k's picture: a pattern of its own; the candidate's first
 * example has a 16x16 block 60 apart in green (it fails every check). */
static double *picture(size_t k, int changed)
{
    double *v = malloc(H * W * C * sizeof *v);
    for (int i = 0; i < H * W * C; i++)
        v[i] = (double)((i * 13 + (int)k * 29) % 150 + 20) / 255.0;
    if (changed)
        for (int y = 4; y < 20; y++)
            for (int x = 4; x < 20; x++)
                v[(y * W + x) * C + 1] += 60.0 / 255.0;
    return v;
}

static void image_of(size_t e, size_t k, px_image8 *m)
{
    const px_example_result *x = &r->envs[e].ex[k];
    cr_assert_eq(image8_from_unit(x->values, H, W, C, m, NULL), 0);
}

/* Its noise's digest and its latent at each recorded step: 0.5, off by
 * curve[] where `off` says so. */
static px_image_out *latents(int off)
{
    px_image_out *g = calloc(1, sizeof *g);
    memcpy(g->noise_sha256, NOISE, 64);
    g->latent_shape[0] = 1, g->latent_shape[1] = 4, g->latent_shape[2] = 2, g->latent_shape[3] = 2;
    g->latent_count = LAT, g->n_steps = REC, g->steps = 20, g->first_ms = 12.5;
    g->step = malloc(REC * sizeof *g->step);
    g->latents = malloc(REC * LAT * sizeof *g->latents);
    for (int s = 0; s < REC; s++) {
        g->step[s] = rec_step[s];
        for (int i = 0; i < LAT; i++)
            g->latents[s * LAT + i] = 0.5 + (off && i == 3 ? curve[s] : 0);
    }
    return g;
}

/* The results (environment 0 the reference, 1 the bfloat16 twin): the
 * pictures, the latents, the class not in contract.labels rejected. */
static void make_results(void)
{
    r = results_new(f, (const int[]){0, 1}, 2);
    cr_assert_not_null(r);
    cr_assert_eq(r->reference, 0);
    cr_assert_eq(r->n_examples, 3);
    cr_assert_not_null(f->model_sha256, "the pipeline's pins' digest");
    for (size_t e = 0; e < 2; e++) {
        px_env_result *er = &r->envs[e];
        er->origin = PX_ORIGIN_RUN;
        snprintf(er->m.model_sha256, sizeof er->m.model_sha256, "%s", f->model_sha256);
        for (size_t k = 0; k < r->n_examples; k++) {
            px_example_result *x = &er->ex[k];
            x->forward_ms = 40;
            if (k == EX_DRAGON) {
                x->status = PX_ST_REJECTED;
                x->detail = strdup("class dragon is not one of contract.labels (circle, square, triangle)");
                continue;
            }
            x->status = PX_ST_OK;
            x->values = picture(k, e == 1 && k == EX_CIRCLE);
            x->n_values = H * W * C;
            x->dtype = results_dtype("float32");
            x->ndim = 4;
            x->shape[0] = 1, x->shape[1] = H, x->shape[2] = W, x->shape[3] = C;
            x->img = latents(e == 1 && k == EX_CIRCLE);
        }
        r->envs[e].state = PX_ENV_UP;
    }
}

static void setup(void)
{
    px_error err = {0};
    f = fixture_load(FIXTURE, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_assert_eq(f->image.height, H);
    cr_assert_eq(f->image.width, W);
    make_results();
    cr_assert_eq(judge_results(f, r, &j, &err), 0, "%s", err.msg);
    story = story_build(f, r, &j, NULL, NULL, &err);
    cr_assert_not_null(story, "%s", err.msg);
}

static void teardown(void)
{
    story_free(story);
    judgement_free(&j);
    results_free(r);
    fixture_free(f);
}

static char *written(void (*w)(FILE *, const px_story *, const px_judgement *), const px_judgement *jj)
{
    static char *text; /* static: gcc takes the stream's &text for a dangling pointer otherwise */
    static size_t len;
    text = NULL;
    FILE *o = open_memstream(&text, &len);
    w(o, story, jj);
    fclose(o);
    return text;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* The n-th data: PNG from at, decoded. */
static void nth_img(const char *at, int n, px_image8 *m)
{
    const char *p = at;
    for (int i = 0; i <= n; i++) {
        p = strstr(p, "<img src=\"data:image/png;base64,");
        cr_assert_not_null(p, "image %d", n);
        p += 10;
    }
    cr_assert_eq(tl_png_decode_uri(p, m), 0, "image %d decodes", n);
}

static void expect_same(const px_image8 *a, const px_image8 *b, const char *what)
{
    cr_assert_eq(a->h, b->h, "%s", what);
    cr_assert_eq(a->w, b->w, "%s", what);
    cr_assert_eq(a->c, b->c, "%s", what);
    cr_expect_eq(memcmp(a->px, b->px, (size_t)a->h * a->w * a->c), 0, "%s: the same pixels", what);
}

/* The heat map of a against b, as the report must draw it. */
static void heat_of(const px_image8 *a, const px_image8 *b, px_image8 *out)
{
    uint8_t *d = imagecmp_diff_map(a, b);
    cr_assert_not_null(d);
    *out = (px_image8){a->h, a->w, 3, malloc((size_t)a->h * a->w * 3)};
    for (int i = 0; i < a->h * a->w; i++)
        imagecmp_heat(d[i], out->px + 3 * i);
    free(d);
}

TestSuite(rk_image, .init = setup, .fini = teardown);

Test(rk_image, html_shows_reference_candidate_and_difference_map_per_example)
{
    char *html = written(report_html_judged, &j);
    cr_expect_not_null(strstr(html, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""),
                       "the CSP allows the embedded pictures, nothing fetched");
    cr_expect_eq(count(html, "<img src=\"data:image/png;base64,"), 3 * 2,
                 "three pictures per candidate example (the rejected one has none)");
    cr_expect_not_null(strstr(html, "image-rendering:pixelated"));
    /* The first example: reference, candidate, difference map. */
    const char *ex1 = strstr(html, "id=\"ex-1\"");
    cr_assert_not_null(ex1);
    px_image8 ref, cand, heat, got;
    image_of(0, 0, &ref), image_of(1, 0, &cand);
    heat_of(&cand, &ref, &heat);
    nth_img(ex1, 0, &got), expect_same(&got, &ref, "the reference's"), image8_free(&got);
    nth_img(ex1, 1, &got), expect_same(&got, &cand, "the candidate's"), image8_free(&got);
    nth_img(ex1, 2, &got), expect_same(&got, &heat, "the difference map"), image8_free(&got);
    /* The map is black where they are equal, not where they differ. */
    cr_expect(heat.px[0] == 0 && heat.px[1] == 0 && heat.px[2] == 0);
    size_t at = (size_t)(4 * W + 4) * 3;
    cr_expect_gt(heat.px[at], 200, "60 apart is bright");
    /* Scaled up by a whole factor (32x24 -> 4x: 128 / 32). */
    cr_expect_not_null(strstr(ex1, "width=\"96\" height=\"128\""));
    /* The figures beside them: the judge's PSNR. */
    char psnr[32];
    snprintf(psnr, sizeof psnr, "PSNR %.1f dB", j.envs[1].ex[0].image->psnr);
    const char *ex2 = strstr(html, "id=\"ex-2\"");
    cr_expect(strstr(ex1, psnr) && strstr(ex1, psnr) < ex2, "%s in example 1", psnr);
    /* The judge's words for what fails, and where the latents part. */
    cr_expect_not_null(strstr(ex1, "fails PSNR "));
    cr_expect_not_null(strstr(ex1, "latents part from the reference&#39;s at step 14"), "%.400s", ex1);
    /* Identical pictures read as such. */
    cr_expect(strstr(ex2, "PSNR inf (identical)") != NULL);
    image8_free(&ref), image8_free(&cand), image8_free(&heat);
    free(html);
}

Test(rk_image, the_curve_marks_the_step_the_latents_part_at)
{
    char *html = written(report_html_judged, &j);
    const char *ex1 = strstr(html, "id=\"ex-1\""), *ex2 = strstr(html, "id=\"ex-2\"");
    const char *svg = strstr(ex1, "<svg class=\"curve-chart\"");
    cr_assert(svg && svg < ex2, "example 1 has its curve");
    cr_expect(strstr(svg, "parts at step 14") != NULL);
    /* The marker's x is step 2's point of the polyline. */
    const char *pts = strstr(svg, "points=\"");
    cr_assert_not_null(pts);
    double x[REC], y[REC];
    cr_assert_eq(sscanf(pts + 8, "%lf,%lf %lf,%lf %lf,%lf %lf,%lf", &x[0], &y[0], &x[1], &y[1], &x[2], &y[2], &x[3],
                        &y[3]),
                 8);
    double lx;
    const char *line = strstr(svg, "<line class=\"part\" x1=\"");
    cr_assert_not_null(line);
    cr_assert_eq(sscanf(line + 23, "%lf", &lx), 1);
    cr_expect_float_eq(lx, x[2], 0.05, "step 14 is the third recorded");
    /* Log scale: each larger difference drawn higher (smaller y), the
     * step with none at the bottom. */
    cr_expect_gt(y[0], y[1]);
    cr_expect_gt(y[1], y[2]);
    cr_expect_gt(y[2], y[3]);
    /* An example that did not part has its curve (the judge draws one
     * wherever both recorded latents) and no marker. */
    const char *ex3 = strstr(html, "id=\"ex-3\""), *svg2 = strstr(ex2, "<svg class=\"curve-chart\"");
    cr_assert_not_null(ex3);
    cr_expect(svg2 && svg2 < ex3, "example 2 has its curve");
    const char *mark = strstr(ex2, "class=\"part\"");
    cr_expect(!mark || mark > ex3, "and no parting marker");
    free(html);
}

Test(rk_image, without_a_judgement_the_figures_are_computed_the_same)
{
    char *html = written(report_html_judged, NULL);
    cr_expect_eq(count(html, "<img src=\"data:image/png;base64,"), 3 * 2);
    char psnr[32];
    snprintf(psnr, sizeof psnr, "PSNR %.1f dB", j.envs[1].ex[0].image->psnr);
    cr_expect_not_null(strstr(html, psnr));
    cr_expect_null(strstr(html, "curve-chart\""), "no curve without the judge's");
    free(html);
}

Test(rk_image, markdown_gives_the_figures_and_the_curve_in_words)
{
    char *md = written(report_markdown_judged, &j);
    cr_expect_not_null(strstr(md, "| Picture |"));
    cr_expect_not_null(strstr(md, "32x24 RGB"));
    cr_expect_not_null(strstr(md, "cpu-bf16: 4 0, 9 0.0001, **14 0.05** (parts), 19 0.3"), "%s", md);
    cr_expect_not_null(strstr(md, "PSNR at least 30 dB against the reference's: a reviewer cannot tell"));
    cr_expect_not_null(strstr(md, "a 32x24 RGB picture; 20 DDIMScheduler steps, guidance scale 4.5, seed 42"));
    free(md);
}

Test(rk_image, check_json_and_text_hold_the_figures)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    check_report_json(o, f, r, &j, NULL, 1);
    fclose(o);
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    cr_assert_not_null(doc, "%s\n%s", e.text, text);
    json_t *im = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "environments"), 1),
                                                                "examples"),
                                                0),
                                 "image");
    cr_assert(json_is_object(im));
    const px_image_verdict *v = j.envs[1].ex[0].image;
    cr_expect_float_eq(json_real_value(json_object_get(im, "psnr")), v->psnr, 1e-9);
    cr_expect_float_eq(json_real_value(json_object_get(im, "ssim")), v->ssim, 1e-9);
    cr_expect_float_eq(json_number_value(json_object_get(im, "max_abs")), 60, 1e-9);
    cr_expect_eq(json_integer_value(json_object_get(im, "diverged_step")), PARTS);
    cr_assert_not_null(v->failed);
    cr_expect_str_eq(json_string_value(json_object_get(im, "failed")), v->failed);
    cr_expect(json_is_false(json_object_get(im, "other_noise")));
    json_t *cv = json_object_get(im, "curve");
    cr_assert_eq(json_array_size(cv), REC);
    cr_expect_float_eq(json_number_value(json_object_get(json_array_get(cv, 2), "max_abs_delta")), 0.05, 1e-12);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(cv, 3), "step")), 19);
    cr_expect_eq(strlen(json_string_value(json_object_get(im, "noise_sha256"))), 64);
    json_t *same = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "environments"), 1),
                                                                  "examples"),
                                                  1),
                                   "image");
    cr_expect_str_eq(json_string_value(json_object_get(same, "psnr")), "inf", "identical pictures");
    json_decref(doc);
    free(text);
    o = open_memstream(&text, &len);
    check_report_text(o, f, r, &j, NULL);
    fclose(o);
    char want[128];
    snprintf(want, sizeof want, "picture: PSNR %.1f dB, SSIM", v->psnr);
    cr_expect_not_null(strstr(text, want), "%s", text);
    char *fails = strf("fails %s; latents part from the reference's at step 14", v->failed);
    cr_expect_not_null(strstr(text, fails), "%s", text);
    free(fails);
    free(text);
}

Test(rk_image, runs_table_gives_each_candidates_psnr)
{
    const px_report_kind *rk = report_kind_for(PX_MODEL_IMAGE);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    rk->run_diff(o, f, r, 0, 1);
    rk->run_diff(o, f, r, 1, 1);
    fclose(o);
    char want[64];
    snprintf(want, sizeof want, "  %.1f dB\n  =\n", j.envs[1].ex[0].image->psnr);
    cr_expect_str_eq(text, want);
    free(text);
    px_sbuf b = PX_SBUF_INIT;
    rk->run_cell(&b, f, &r->envs[1], 0);
    cr_expect_str_eq(sbuf_str(&b), "32x24 RGB");
    sbuf_free(&b);
}

static char *slurp_n(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = malloc(1 << 16);
    *n = fread(buf, 1, 1 << 16, fp);
    fclose(fp);
    return buf;
}

Test(rk_image, export_carries_the_pngs_and_the_curve)
{
    char *dir = tl_tmpdir(), out[4200], path[4400];
    snprintf(out, sizeof out, "%s/bundle", dir);
    px_bundle_in in = {f, r, &j, story, NULL, 0};
    px_error err = {0};
    cr_assert_eq(bundle_export(&in, out, &err), 0, "%s: %s", err.file, err.msg);
    px_image8 ref, cand, heat, got;
    image_of(0, 0, &ref), image_of(1, 0, &cand);
    heat_of(&cand, &ref, &heat);
    const struct {
        const char *file;
        const px_image8 *want;
    } files[] = {{"reference.png", &ref}, {"cpu-bf16.png", &cand}, {"cpu-bf16-diff.png", &heat}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/images/1-red-circle/%s", out, files[i].file);
        size_t n;
        char *png = slurp_n(path, &n);
        cr_assert_not_null(png, "%s", path);
        cr_assert_eq(tl_png_decode(png, n, &got), 0, "%s", path);
        expect_same(&got, files[i].want, files[i].file);
        image8_free(&got), free(png);
    }
    snprintf(path, sizeof path, "%s/images/1-red-circle/cpu-bf16-curve.csv", out);
    char *csv = tl_slurp(path);
    cr_assert_not_null(csv);
    cr_expect_str_eq(csv, "step,max_abs_delta\n4,0\n9,0.0001\n14,0.05\n19,0.3\n");
    free(csv);
    /* Every example's pictures and curves; the reference has no
     * difference map of its own; a rejected example, no picture. */
    snprintf(path, sizeof path, "%s/images/2-square/cpu-bf16-diff.png", out);
    cr_expect_eq(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/images/2-square/cpu-bf16-curve.csv", out);
    cr_expect_eq(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/images/1-red-circle/reference-diff.png", out);
    cr_expect_neq(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/images/3-dragon", out);
    cr_expect_neq(access(path, F_OK), 0);
    /* Listed in SHA256SUMS, named in the README. */
    snprintf(path, sizeof path, "%s/SHA256SUMS", out);
    char *sums = tl_slurp(path);
    cr_expect_not_null(strstr(sums, "  images/1-red-circle/cpu-bf16-diff.png\n"));
    free(sums);
    snprintf(path, sizeof path, "%s/README.md", out);
    char *readme = tl_slurp(path);
    cr_expect_not_null(strstr(readme, "`images/`"));
    free(readme);
    image8_free(&ref), image8_free(&cand), image8_free(&heat);
    free(dir);
}

/* The judgement again, of the results as they now are. */
static void rejudge(void)
{
    px_error err = {0};
    story_free(story);
    judgement_free(&j);
    cr_assert_eq(judge_results(f, r, &j, &err), 0, "%s", err.msg);
    story = story_build(f, r, &j, NULL, NULL, &err);
    cr_assert_not_null(story, "%s", err.msg);
}

static char *check_output(int json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (json)
        check_report_json(o, f, r, &j, NULL, 1);
    else
        check_report_text(o, f, r, &j, NULL);
    fclose(o);
    return text;
}

/* The candidate's second example drawn from other noise: the judge's
 * stage latent before step 0; told as another experiment, not as a
 * failed check, in check's text and JSON and beside the pictures. */
Test(rk_image, other_noise_is_another_experiment_not_a_failed_check)
{
    memcpy(r->envs[1].ex[EX_SQUARE].img->noise_sha256, "c0ffee", 6);
    rejudge();
    const px_verdict *v = &j.envs[1].ex[EX_SQUARE];
    cr_assert_eq(v->div, PX_DIV_LATENT);
    cr_assert_eq(v->image->diverged_step, -1);
    char *text = check_output(0);
    cr_expect_not_null(strstr(text, "started from other noise than the reference's: another experiment"), "%s", text);
    cr_expect_null(strstr(text, "fails started"), "%s", text);
    free(text);
    text = check_output(1);
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    cr_assert_not_null(doc, "%s", e.text);
    json_t *envs = json_object_get(doc, "environments");
    json_t *im = json_object_get(json_array_get(json_object_get(json_array_get(envs, 1), "examples"), 1), "image");
    cr_expect(json_is_true(json_object_get(im, "other_noise")));
    cr_expect(json_is_null(json_object_get(im, "diverged_step")));
    cr_expect(json_is_null(json_object_get(im, "psnr")), "not compared");
    im = json_object_get(json_array_get(json_object_get(json_array_get(envs, 1), "examples"), 0), "image");
    cr_expect(json_is_false(json_object_get(im, "other_noise")));
    json_decref(doc);
    free(text);
    char *html = written(report_html_judged, &j);
    const char *ex2 = strstr(html, "id=\"ex-2\""), *ex3 = strstr(html, "id=\"ex-3\"");
    cr_assert(ex2 && ex3);
    const char *said = strstr(ex2, "started from other noise than the reference&#39;s");
    cr_expect(said && said < ex3);
    free(html);
}

/* The candidate's second example changed with every latent within
 * compare.latents: the judge's stage values, told as parting in the
 * picture (the decoder, or between the recorded steps). */
Test(rk_image, a_picture_that_parts_with_its_latents_within)
{
    free(r->envs[1].ex[EX_SQUARE].values);
    r->envs[1].ex[EX_SQUARE].values = picture(EX_SQUARE, 1);
    rejudge();
    const px_verdict *v = &j.envs[1].ex[EX_SQUARE];
    cr_assert_eq(v->outcome, PX_OC_IMAGE_CHANGED);
    cr_assert_eq(v->div, PX_DIV_VALUES);
    char *text = check_output(0);
    cr_expect_not_null(strstr(text, "latents within compare.latents at every recorded step: it parts in the picture"),
                       "%s", text);
    free(text);
}

/* Every data: PNG in html decodes; how many. */
static int decodable_pngs(const char *html)
{
    int n = 0;
    for (const char *p = html; (p = strstr(p, "<img src=\"data:image/png;base64,")); n++) {
        px_image8 m;
        p += 10;
        cr_assert_eq(tl_png_decode_uri(p, &m), 0, "picture %d decodes", n);
        cr_expect(m.h == H && m.w == W && m.c == 3, "picture %d is 32x24 RGB", n);
        image8_free(&m);
    }
    return n;
}

/* The same results written to a file (results_write) and read back
 * (results_load), judged and reported from the fixture file and that
 * file alone, as `parity report --results` does after its input
 * processing: the HTML holds the pictures as PNGs that decode, check's
 * JSON the judge's figures, and an export the PNGs and the results file
 * beside the fixture. */
Test(rk_image, report_and_export_of_an_image_fixture_and_its_results_file)
{
    char *dir = tl_tmpdir(), res[4200], out[4200], path[4400];
    snprintf(res, sizeof res, "%s/shapes-results.yaml", dir);
    snprintf(out, sizeof out, "%s/bundle", dir);
    px_error err = {0};
    cr_assert_eq(results_write(r, f, res, &err), 0, "%s", err.msg);
    px_results *back = results_load(res, f, &err);
    cr_assert_not_null(back, "%s: %s", err.file, err.msg);
    px_judgement jb;
    cr_assert_eq(judge_results(f, back, &jb, &err), 0, "%s", err.msg);
    cr_expect_eq(jb.envs[1].ex[0].outcome, PX_OC_IMAGE_CHANGED);
    cr_expect_eq(jb.envs[1].ex[0].image->diverged_step, PARTS, "the latents read back part where they did");
    px_story *sb = story_build(f, back, &jb, NULL, NULL, &err);
    cr_assert_not_null(sb, "%s", err.msg);
    char *html = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&html, &len);
    report_html_judged(o, sb, &jb);
    fclose(o);
    cr_expect_eq(decodable_pngs(html), 3 * 2, "reference, candidate and difference map per candidate example");
    cr_expect_not_null(strstr(html, "parts at step 14"));
    free(html);

    const char *files[] = {res}; /* as --results names it */
    px_bundle_in in = {f, back, &jb, sb, files, 1};
    cr_assert_eq(bundle_export(&in, out, &err), 0, "%s: %s", err.file, err.msg);
    snprintf(path, sizeof path, "%s/images/1-red-circle/cpu-bf16-diff.png", out);
    size_t n;
    char *png = slurp_n(path, &n);
    cr_assert_not_null(png, "%s", path);
    px_image8 got, ref, cand, heat;
    cr_assert_eq(tl_png_decode(png, n, &got), 0);
    image_of(0, 0, &ref), image_of(1, 0, &cand);
    heat_of(&cand, &ref, &heat);
    expect_same(&got, &heat, "the exported difference map");
    image8_free(&got), image8_free(&ref), image8_free(&cand), image8_free(&heat), free(png);
    /* The bundle's fixture (the file as it is: it names no vocabulary) is
     * the same image contract, and the results file beside it reads. */
    snprintf(path, sizeof path, "%s/shapes.yaml", out);
    px_fixture *again = fixture_load(path, &err);
    cr_assert_not_null(again, "%s: %s", err.file, err.msg);
    cr_expect_eq(again->image.height, H);
    cr_expect_eq(again->image.latent_every, 5);
    cr_expect_null(again->vocab_path);
    snprintf(path, sizeof path, "%s/results/shapes-results.yaml", out);
    px_results *inside = results_load(path, again, &err);
    cr_expect_not_null(inside, "%s: %s", err.file, err.msg);
    results_free(inside);
    fixture_free(again);
    story_free(sb);
    judgement_free(&jb);
    results_free(back);
    free(dir);
}
