/* An image's verdicts (contract.model.kind: image), judged from results
 * made here in memory: a reference, a bfloat16 twin and a candidate
 * ("tpu") drawing 32x32 pictures of a disc, each with its initial noise's
 * digest and its latent after every one of 20 steps. The picture held to
 * the contract (finite, its size, not one colour) and to the reference's
 * by compare.image's checks; the earliest divergence at the noise, the
 * first latent beyond compare.latents, or the picture; the twin telling
 * precision from the device by the step where it parts.
 *
 * (The fixture is a classifier's text made an image's contract in memory:
 * the loader of contract.image is written beside this, and the judge
 * reads only the fields set here.) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parity/imagecmp.h"
#include "parity/judge_kind.h"
#include "parity/judge.h"
#include "parity/strf.h"
#include "testlib.h"

#define H 32
#define W 32
#define C 3
#define N (H * W * C)
#define STEPS 20
#define LAT 256 /* [1, 4, 8, 8] */
#define PIN "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define NOISE "1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f"
#define OTHER_NOISE "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffee0000"

static const char FIXTURE[] =
    "parity: 1\n"
    "contract:\n"
    "  task: draw the shape a class names\n"
    "  model: {path: model.pt, sha256: \"" PIN "\"}\n"
    "  input:\n"
    "    tokenizer: {kind: wordpiece, vocab: ../../fixtures/campus-club/vocab.txt, sha256: "
    "\"35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318\"}\n"
    "  labels: [circle, square, triangle, cross, ring]\n"
    "environments:\n"
    "  reference: {device: cpu, dtype: float32, threads: 1, role: reference}\n"
    "  cpu-bf16: {device: cpu, dtype: bfloat16, threads: 1, role: twin}\n"
    "  tpu: {device: cpu, dtype: float32, threads: 1}\n"
    "examples:\n"
    "  - {id: same, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: one-level, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: precision, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: device, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: nan, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: black, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: noise, text: circle, expect: {label: circle}, why: w}\n"
    "  - {id: dragon, text: dragon, expect: {rejected: true}, why: w}\n"
    "  - {id: square, text: square, expect: {label: square}, why: w}\n"
    "  - {id: small, text: circle, expect: {label: circle}, why: w}\n";

enum { EX_SAME, EX_ONE, EX_PREC, EX_DEV, EX_NAN, EX_BLACK, EX_NOISE, EX_DRAGON, EX_SQUARE, EX_SMALL, N_EX };
enum { REF, TWIN, TPU };

/* The contract of an image (what fixture.c's contract.image and
 * compare.image give): 32x32 RGB, 20 steps, the checks. */
static px_fixture *image_fixture(void)
{
    px_error err = {0};
    px_fixture *f = fixture_parse("tests/data/image-judge.yaml", FIXTURE, strlen(FIXTURE), &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    f->kind = PX_MODEL_IMAGE;
    /* An image's input is a class: no vocabulary. */
    free(f->vocab_path), free(f->vocab_sha256);
    f->vocab_path = f->vocab_sha256 = NULL;
    for (size_t e = 0; e < f->n_envs; e++) {
        free(f->envs[e].vocab_path), free(f->envs[e].vocab_sha256);
        f->envs[e].vocab_path = f->envs[e].vocab_sha256 = NULL;
    }
    f->image = (px_image_spec){.present = 1, .height = H, .width = W, .channels = C, .steps = STEPS,
                               .guidance_scale = 4, .seed = 42, .latent_every = 1};
    f->image_cmp.psnr = (px_image_bound){.present = 1, .limit = 30};
    f->image_cmp.ssim = (px_image_bound){.present = 1, .limit = 0.95};
    f->image_cmp.mean_abs = (px_image_bound){.present = 1, .limit = 2};
    f->image_cmp.max_abs = (px_image_bound){.present = 1, .limit = 48};
    f->image_cmp.latents = (px_tolerance){.present = 1, .atol = 0.02, .rtol = 0.02};
    return f;
}

/* A picture's bytes: a gradient ground and a disc at (cy, cx). */
static void disc_bytes(uint8_t *px, int cy, int cx)
{
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            int in = (i - cy) * (i - cy) + (j - cx) * (j - cx) < 64;
            for (int k = 0; k < C; k++)
                px[(i * W + j) * C + k] = (uint8_t)(in ? 200 - 60 * k : 20 + 3 * i + 2 * j + 10 * k);
        }
}

/* The floats a pipeline gives for those bytes (exactly them, made 8-bit). */
static double *unit_of(const uint8_t *px, size_t n)
{
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = px[i] / 255.0;
    return v;
}

static void set_image(px_example_result *x, double *v, int h, int w)
{
    x->status = PX_ST_OK;
    x->dtype = results_dtype("float32");
    x->ndim = 4;
    x->shape[0] = 1, x->shape[1] = h, x->shape[2] = w, x->shape[3] = C;
    x->values = v;
    x->n_values = (size_t)h * w * C;
    x->forward_ms = 1;
}

/* The reference's latent at step s. */
static double ref_latent(int s, int i) { return 0.5 * sin(0.37 * i + 0.21 * s); }

/* Latents after every step: the reference's, off by 0.001 (within
 * compare.latents) before step `from`, and from it on by 0.1 per step
 * past it on every 7th value (beyond); from < 0: never beyond. */
static void set_latents(px_example_result *x, const char *noise, int from)
{
    px_image_out *g = calloc(1, sizeof *g);
    memcpy(g->noise_sha256, noise, 64);
    g->latent_shape[0] = 1, g->latent_shape[1] = 4, g->latent_shape[2] = 8, g->latent_shape[3] = 8;
    g->latent_count = LAT;
    g->n_steps = STEPS;
    g->steps = STEPS;
    g->step = malloc(STEPS * sizeof *g->step);
    g->latents = malloc(STEPS * LAT * sizeof *g->latents);
    for (int s = 0; s < STEPS; s++) {
        g->step[s] = s;
        for (int i = 0; i < LAT; i++) {
            double d = from >= 0 && s >= from && i % 7 == 0 ? 0.1 * (s - from + 1) : 0.001;
            g->latents[s * LAT + i] = ref_latent(s, i) + d;
        }
    }
    x->img = g;
}

static void set_reference_latents(px_example_result *x, const char *noise)
{
    set_latents(x, noise, -1);
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < LAT; i++)
            x->img->latents[s * LAT + i] = ref_latent(s, i);
}

static void set_rejected(px_example_result *x, const char *cls)
{
    x->status = PX_ST_REJECTED;
    x->detail = strf("class %s is not one of contract.labels (circle, square, triangle, cross, ring)", cls);
}

typedef struct judged {
    px_fixture *f;
    px_results *r;
    px_judgement j;
} judged;

/* The results: every example of every environment as its name says. */
static void build(judged *p)
{
    p->f = image_fixture();
    int idx[] = {0, 1, 2};
    p->r = results_new(p->f, idx, 3);
    cr_assert_not_null(p->r);
    cr_assert_eq(p->r->reference, REF);
    uint8_t base[N], shifted[N], black[N];
    disc_bytes(base, 14, 14);
    disc_bytes(shifted, 14, 19);
    memset(black, 0, sizeof black);
    for (int e = 0; e < 3; e++) {
        px_env_result *er = &p->r->envs[e];
        er->state = PX_ENV_UP;
        er->origin = PX_ORIGIN_RUN;
        memcpy(er->m.model_sha256, PIN, 65);
        for (int k = 0; k < N_EX; k++) {
            px_example_result *x = &er->ex[k];
            if (k == EX_DRAGON && e != TPU) {
                set_rejected(x, "dragon");
                continue;
            }
            if (k == EX_SQUARE && e == TPU) {
                set_rejected(x, "square");
                continue;
            }
            const uint8_t *px = k == EX_BLACK && e != TWIN ? black : base;
            /* The candidate's pictures that part, and the twin's that
             * part with it (precision). */
            if ((k == EX_PREC && e != REF) || (k == EX_DEV && e == TPU))
                px = shifted;
            double *v = unit_of(px, N);
            if (k == EX_ONE && e == TPU) /* one level up in five values */
                for (int i = 0; i < 5; i++)
                    v[100 + 37 * i] = (px[100 + 37 * i] + 1) / 255.0;
            if (k == EX_NAN && e == TPU)
                v[(2 * W + 5) * C + 1] = NAN; /* row 2, column 5, green */
            if (k == EX_SMALL && e == TPU) {
                free(v);
                uint8_t small[16 * 16 * C];
                memset(small, 90, sizeof small);
                set_image(x, unit_of(small, sizeof small), 16, 16);
            } else {
                set_image(x, v, H, W);
            }
            int from = -1;
            if (k == EX_PREC && e != REF)
                from = 3;
            if (k == EX_DEV && e == TPU)
                from = 5;
            if (e == REF)
                set_reference_latents(x, NOISE);
            else
                set_latents(x, k == EX_NOISE && e == TPU ? OTHER_NOISE : NOISE, from);
        }
    }
}

static void judge(judged *p)
{
    px_error err = {0};
    cr_assert_eq(judge_results(p->f, p->r, &p->j, &err), 0, "%s", err.msg);
}

static void judged_free(judged *p)
{
    judgement_free(&p->j);
    results_free(p->r);
    fixture_free(p->f);
}

static const px_verdict *verdict(const judged *p, int e, int k)
{
    const px_verdict *v = &p->j.envs[e].ex[k];
    cr_assert_not_null(v->image, "%d/%d: no image verdict", e, k);
    return v;
}

#define EXPECT_OUTCOME(v, o) cr_expect_eq((v)->outcome, (o), "%s: %s", outcome_name((v)->outcome), (v)->detail)

Test(judge_image, identical_images_pass)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_SAME), *r = verdict(&p, REF, EX_SAME);
    EXPECT_OUTCOME(v, PX_OC_PASS);
    cr_expect(isinf(v->image->psnr), "psnr %g", v->image->psnr);
    cr_expect_float_eq(v->image->ssim, 1, 1e-15);
    cr_expect_eq(v->image->max_abs, 0);
    cr_expect_null(v->image->failed);
    cr_expect_eq(v->div, PX_DIV_NONE, "%s: %s", div_name(v->div), v->div_detail);
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    /* The reference: its own checks only, no figures. */
    EXPECT_OUTCOME(r, PX_OC_PASS);
    cr_expect(isnan(r->image->psnr));
    /* Every latent within: the curve is there, under the tolerance. */
    cr_expect_eq(v->image->n_curve, STEPS);
    for (size_t i = 0; i < v->image->n_curve; i++) {
        cr_expect_eq(v->image->curve_step[i], (int)i);
        cr_expect_float_eq(v->image->curve[i], 0.001, 1e-9);
    }
    cr_expect_eq(v->image->diverged_step, -1);
    judged_free(&p);
}

/* Five values one level up: pass-within-tolerance with the figures that
 * five |Δ| of 1 in 3072 give. */
Test(judge_image, one_level_change_passes_within_tolerance)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_ONE);
    EXPECT_OUTCOME(v, PX_OC_PASS_TOL);
    cr_expect_eq(v->image->max_abs, 1);
    cr_expect_float_eq(v->image->mean_abs, 5.0 / N, 1e-15);
    cr_expect_float_eq(v->image->psnr, 10 * log10(255.0 * 255.0 / (5.0 / N)), 1e-9);
    cr_expect(v->image->ssim < 1 && v->image->ssim > 0.99, "ssim %.17g", v->image->ssim);
    cr_expect(strstr(v->detail, "PSNR 76.0 dB, SSIM 0.99"), "%s", v->detail);
    cr_expect(strstr(v->detail, "max |Δ| 1 (of 255)"), "%s", v->detail);
    cr_expect_null(v->image->failed);
    judged_free(&p);
}

/* The disc moved: image-changed, naming the checks that failed with
 * figure and limit; the latents part at step 3 (the curve says how far at
 * each step); the twin parts at step 3 too: precision. */
Test(judge_image, shifted_picture_parting_with_the_twin_is_precision)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_IMAGE_CHANGED);
    const px_image_verdict *im = v->image;
    cr_assert_not_null(im->failed);
    cr_expect(!strncmp(im->failed, "PSNR ", 5) && strstr(im->failed, " dB < 30; SSIM ") &&
                  strstr(im->failed, " < 0.95"),
              "%s", im->failed);
    cr_expect(im->psnr < 30 && im->ssim < 0.95, "psnr %g ssim %g", im->psnr, im->ssim);
    char want[64];
    snprintf(want, sizeof want, "PSNR %.1f dB < 30", im->psnr);
    cr_expect(strstr(v->detail, want), "%s", v->detail);
    cr_expect(!strstr(v->detail, "(PSNR"), "the figures said twice: %s", v->detail);
    /* Figures as imagecmp gives them on the 8-bit images. */
    px_image8 a, b;
    px_image_figures fig;
    cr_assert_eq(image8_from_unit(p.r->envs[TPU].ex[EX_PREC].values, H, W, C, &a, NULL), 0);
    cr_assert_eq(image8_from_unit(p.r->envs[REF].ex[EX_PREC].values, H, W, C, &b, NULL), 0);
    cr_assert_eq(imagecmp_figures(&a, &b, &fig), 0);
    cr_expect_eq(im->psnr, fig.psnr);
    cr_expect_eq(im->ssim, fig.ssim);
    cr_expect_eq(im->mean_abs, fig.mean_abs);
    cr_expect_eq(im->max_abs, fig.max_abs);
    image8_free(&a), image8_free(&b);
    /* Its latents part at step 3. */
    cr_expect_eq(v->div, PX_DIV_LATENT, "%s: %s", div_name(v->div), v->div_detail);
    cr_expect_eq(im->diverged_step, 3);
    cr_expect(strstr(v->div_detail, "latent at step 3 of 20: 37 of 256 values beyond 0.02 + 0.02·|b|"), "%s",
              v->div_detail);
    cr_assert_eq(im->n_curve, STEPS);
    for (int s = 0; s < STEPS; s++) {
        cr_expect_eq(im->curve_step[s], s);
        cr_expect_float_eq(im->curve[s], s < 3 ? 0.001 : 0.1 * (s - 2), 1e-9, "step %d: %g", s, im->curve[s]);
    }
    /* The twin parts there too. */
    cr_expect_eq(verdict(&p, TWIN, EX_PREC)->image->diverged_step, 3);
    cr_expect_eq(v->attr, PX_ATTR_PRECISION);
    char *c = judgement_cause_words(&p.j, TPU, EX_PREC);
    cr_expect_str_eq(c, "precision (the bfloat16 twin parts at step 3 too)");
    free(c);
    judged_free(&p);
}

/* The candidate parts at step 5 while the twin keeps to the reference's
 * latents there (and draws the reference's picture): the device. */
Test(judge_image, twin_holding_is_the_device)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_DEV), *tw = verdict(&p, TWIN, EX_DEV);
    EXPECT_OUTCOME(v, PX_OC_IMAGE_CHANGED);
    cr_expect_eq(v->div, PX_DIV_LATENT);
    cr_expect_eq(v->image->diverged_step, 5);
    cr_expect(strstr(v->div_detail, "latent at step 5 of 20:"), "%s", v->div_detail);
    cr_expect_eq(tw->image->diverged_step, -1);
    EXPECT_OUTCOME(tw, PX_OC_PASS);
    cr_expect_eq(v->attr, PX_ATTR_DEVICE);
    char *c = judgement_cause_words(&p.j, TPU, EX_DEV);
    cr_expect_str_eq(c, "device (the twin keeps to the reference's latents at step 5, where this parts)");
    free(c);
    judged_free(&p);
}

/* A NaN names its pixel and channel; a picture of one colour is
 * blank-image in the reference as in a candidate (and the reference's
 * finding says so); another size is bad-shape. */
Test(judge_image, non_finite_blank_and_bad_shape)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_NAN);
    EXPECT_OUTCOME(v, PX_OC_NON_FINITE);
    cr_expect_str_eq(v->detail, "pixel (row 2, column 5), green, is nan");
    const px_verdict *rb = verdict(&p, REF, EX_BLACK), *cb = verdict(&p, TPU, EX_BLACK);
    EXPECT_OUTCOME(rb, PX_OC_BLANK_IMAGE);
    EXPECT_OUTCOME(cb, PX_OC_BLANK_IMAGE);
    cr_expect(rb->image->blank && cb->image->blank);
    cr_expect(strstr(rb->detail, "every pixel is rgb(0, 0, 0): black"), "%s", rb->detail);
    int said = 0;
    for (size_t i = 0; i < p.j.n_findings; i++)
        said |= strstr(p.j.findings[i], "reference itself disagrees with the expectation on black: blank-image") !=
                NULL;
    cr_expect(said, "the reference's blank image is a finding");
    /* The twin drew the disc where the reference drew nothing: not
     * blank; compared with a blank reference it fails. */
    EXPECT_OUTCOME(verdict(&p, TWIN, EX_BLACK), PX_OC_IMAGE_CHANGED);
    const px_verdict *s = verdict(&p, TPU, EX_SMALL);
    EXPECT_OUTCOME(s, PX_OC_BAD_SHAPE);
    cr_expect_str_eq(s->detail, "the image is [1,16,16,3], not [1,32,32,3] (contract.image: size [32, 32], "
                                "channels 3)");
    cr_expect_eq(s->div, PX_DIV_SHAPE);
    judged_free(&p);
}

/* Rejected as the contract says; a class the candidate drew although the
 * contract rejects it; a class it rejected that the contract accepts. */
Test(judge_image, rejections)
{
    judged p;
    build(&p);
    judge(&p);
    EXPECT_OUTCOME(verdict(&p, REF, EX_DRAGON), PX_OC_REJECTED_OK);
    EXPECT_OUTCOME(verdict(&p, TWIN, EX_DRAGON), PX_OC_REJECTED_OK);
    const px_verdict *v = verdict(&p, TPU, EX_DRAGON);
    EXPECT_OUTCOME(v, PX_OC_NOT_REJECTED);
    cr_expect_str_eq(v->detail, "drew a 32x32 image; the contract says reject");
    const px_verdict *w = verdict(&p, TPU, EX_SQUARE);
    EXPECT_OUTCOME(w, PX_OC_WRONGLY_REJECTED);
    cr_expect(strstr(w->detail, "class square is not one of"), "%s", w->detail);
    judged_free(&p);
}

/* Another noise digest: another experiment. Not compared as pictures (no
 * figures), the divergence is the noise (the latent before step 0), and
 * no cause is asked of the twin. */
Test(judge_image, other_noise_is_not_a_comparison_of_pictures)
{
    judged p;
    build(&p);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_NOISE);
    EXPECT_OUTCOME(v, PX_OC_IMAGE_CHANGED);
    cr_expect(isnan(v->image->psnr) && isnan(v->image->ssim) && isnan(v->image->max_abs));
    cr_expect(strstr(v->detail, "started from other noise (sha256 c0ffeec0ffee… here, 1f1f1f1f1f1f… in the "
                                "reference)"),
              "%s", v->detail);
    cr_expect_eq(v->div, PX_DIV_LATENT);
    cr_expect_eq(v->image->diverged_step, -1);
    cr_expect(strstr(v->div_detail, "started from other noise") &&
                  strstr(v->div_detail, "not a comparison of pictures"),
              "%s", v->div_detail);
    cr_expect_eq(v->image->n_curve, 0, "latents of other noise are not compared");
    cr_expect_eq(v->attr, PX_ATTR_NONE);
    judged_free(&p);
}

/* The ladder: no vocabulary to check (an image's input is a class), and
 * forward ran says the contract's image shape. */
Test(judge_image, ladder_words)
{
    judged p;
    build(&p);
    judge(&p);
    const px_env_verdict *ev = &p.j.envs[REF];
    cr_expect_eq(ev->rung[PX_RUNG_INPUT], PX_RS_PASSED, "%s", ev->rung_detail[PX_RUNG_INPUT]);
    cr_expect_str_eq(ev->rung_detail[PX_RUNG_INPUT], "no vocabulary: 5 labels (contract.labels)");
    cr_expect_eq(ev->rung[PX_RUNG_FORWARD], PX_RS_PASSED);
    cr_expect_str_eq(ev->rung_detail[PX_RUNG_FORWARD], "every example's image is [1,32,32,3]");
    cr_expect_eq(p.j.kind->bench_label(p.r->envs[REF].ex[0].values, N), -1);
    cr_expect_null(p.j.twin_unusable, "%s", p.j.twin_unusable);
    judged_free(&p);
}

/* The twin is down: the cause is unknown, and says why. */
Test(judge_image, twin_down_is_unknown)
{
    judged p;
    build(&p);
    px_env_result *tw = &p.r->envs[TWIN];
    tw->state = PX_ENV_DOWN;
    tw->down_stage = PX_STAGE_DEVICE;
    tw->down_msg = strdup("bfloat16 is not supported here");
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_IMAGE_CHANGED);
    cr_expect_eq(v->attr, PX_ATTR_UNKNOWN);
    char *c = judgement_cause_words(&p.j, TPU, EX_PREC);
    cr_expect_str_eq(c, "unknown: the twin cpu-bf16 did not pass 'device recognised': bfloat16 is not supported here");
    free(c);
    judged_free(&p);
}

/* Without compare.latents there is no latent stage: the picture is where
 * it parts (said), the curve is still drawn, and the twin tells by its
 * picture failing the same checks. */
Test(judge_image, no_latent_tolerance_parts_at_the_picture)
{
    judged p;
    build(&p);
    p.f->image_cmp.latents.present = 0;
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_IMAGE_CHANGED);
    cr_expect(strstr(v->detail, "no compare.latents: the step where it parts is not told"), "%s", v->detail);
    cr_expect_eq(v->div, PX_DIV_VALUES, "%s: %s", div_name(v->div), v->div_detail);
    cr_expect(strstr(v->div_detail, "no compare.latents"), "%s", v->div_detail);
    cr_expect_eq(v->image->diverged_step, -1);
    cr_expect_eq(v->image->n_curve, STEPS);
    cr_expect_float_eq(v->image->curve[7], 0.5, 1e-9);
    cr_expect_eq(v->attr, PX_ATTR_PRECISION);
    char *c = judgement_cause_words(&p.j, TPU, EX_PREC);
    cr_expect_str_eq(c, "precision (the bfloat16 twin's image fails PSNR, SSIM, mean |Δ|, max |Δ| too)");
    free(c);
    /* The device's picture: the twin draws the reference's. */
    cr_expect_eq(verdict(&p, TPU, EX_DEV)->attr, PX_ATTR_DEVICE);
    c = judgement_cause_words(&p.j, TPU, EX_DEV);
    cr_expect_str_eq(c, "device (the twin's image meets every check)");
    free(c);
    judged_free(&p);
}

/* The latents held at every recorded step, the picture changed: the
 * decoder (the picture is where it parts, said so). */
Test(judge_image, picture_changed_with_latents_held)
{
    judged p;
    build(&p);
    px_example_result *x = &p.r->envs[TPU].ex[EX_DEV];
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < LAT; i++)
            x->img->latents[s * LAT + i] = ref_latent(s, i);
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_DEV);
    EXPECT_OUTCOME(v, PX_OC_IMAGE_CHANGED);
    cr_expect_eq(v->div, PX_DIV_VALUES, "%s: %s", div_name(v->div), v->div_detail);
    cr_expect(strstr(v->div_detail, "with every recorded latent within compare.latents (the last at step 19 of 20)"),
              "%s", v->div_detail);
    cr_expect_eq(v->attr, PX_ATTR_DEVICE, "the twin's picture meets every check");
    judged_free(&p);
}

/* No reference result: judged by its own checks only, not compared. */
Test(judge_image, no_reference_not_compared)
{
    judged p;
    build(&p);
    p.r->envs[REF].selected = 0;
    judge(&p);
    const px_verdict *v = verdict(&p, TPU, EX_PREC);
    EXPECT_OUTCOME(v, PX_OC_PASS);
    cr_expect(v->not_compared);
    cr_expect(strstr(v->detail, "not compared"), "%s", v->detail);
    cr_expect(isnan(v->image->psnr));
    EXPECT_OUTCOME(verdict(&p, TPU, EX_BLACK), PX_OC_BLANK_IMAGE);
    judged_free(&p);
}

/* A reviewer's defect: the model draws nothing for this class, known and
 * kept. The reference's blank image and a candidate's that parts from it
 * at no stage are known defects; the twin, which draws a picture there,
 * parts (at the picture) and keeps its own outcome. */
Test(judge_image, blank_decided_defect_is_known)
{
    judged p;
    build(&p);
    p.f->examples[EX_BLACK].review.decision = strdup("defect");
    judge(&p);
    const px_verdict *r = verdict(&p, REF, EX_BLACK), *v = verdict(&p, TPU, EX_BLACK),
                     *tw = verdict(&p, TWIN, EX_BLACK);
    EXPECT_OUTCOME(r, PX_OC_KNOWN_DEFECT);
    cr_expect(!strncmp(r->detail, "blank-image: every pixel is rgb(0, 0, 0)", 40), "%s", r->detail);
    EXPECT_OUTCOME(v, PX_OC_KNOWN_DEFECT);
    cr_expect(!strncmp(v->detail, "blank-image, as in the reference: ", 34), "%s", v->detail);
    EXPECT_OUTCOME(tw, PX_OC_IMAGE_CHANGED);
    cr_expect_eq(tw->div, PX_DIV_VALUES, "%s: %s", div_name(tw->div), tw->div_detail);
    judged_free(&p);
}
