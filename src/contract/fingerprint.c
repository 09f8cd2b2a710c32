#define _GNU_SOURCE /* open_memstream */
#include "parity/fingerprint.h"
#include "parity/kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fingerprint_part_name(px_part p)
{
    static const char *const n[PX_PART_COUNT] = {"model", "input", "labels", "compare", "examples"};
    return p < PX_PART_COUNT ? n[p] : "?";
}

const char *fingerprint_part_meaning(px_part p)
{
    static const char *const n[PX_PART_COUNT] = {
        "the model's pinned sha256, inputs or output",
        "a cleaning rule, the tokenizer, its pin or a limit (an image's: contract.image; a training run's: its data's pin)",
        "the label list", "a tolerance, the decision rule, the training step or recipe, or the output settings",
        "an example's id, kind, text, expectation, tolerance or recipe"};
    return p < PX_PART_COUNT ? n[p] : "?";
}

/* Length-prefixed fields, so no two different contracts serialise alike. */
static void put_str(FILE *o, const char *s)
{
    if (!s) {
        fputs("-;", o);
        return;
    }
    fprintf(o, "%zu:", strlen(s));
    fputs(s, o);
    fputc(';', o);
}

static void put_num(FILE *o, double v) { fprintf(o, "%.17g;", v); }

static void put_tolerance(FILE *o, const px_tolerance *t)
{
    put_num(o, t->present);
    if (!t->present)
        return;
    put_num(o, t->rtol), put_num(o, t->atol), put_str(o, t->stat), put_num(o, t->q), put_num(o, t->oracle_factor);
}

typedef void (*writer)(FILE *o, const px_fixture *f, size_t k);

static void hash_with(writer w, const px_fixture *f, size_t k, char out[PX_SHA256_HEX])
{
    px_hasher h;
    if (hasher_open(&h))
        w(h.o, f, k);
    hasher_close(&h, out);
}

static void write_model(FILE *o, const px_fixture *f, size_t k)
{
    (void)k;
    put_str(o, f->model_sha256);
    put_num(o, (double)f->n_inputs);
    for (size_t i = 0; i < f->n_inputs; i++)
        put_str(o, f->inputs[i]);
    put_str(o, f->output);
    /* Only for a generator: a classifier's keeps its old bytes. */
    if (kind_of(f)->generates)
        put_str(o, kind_of(f)->name);
    /* An embedding's vector: its width and the pooling that makes it. */
    if (kind_of(f)->pools)
        put_str(o, kind_of(f)->name), put_num(o, f->dim), put_str(o, fixture_pooling_name(f->pooling)),
            put_num(o, f->normalize);
    /* A format change is a model change (the sha256 of a directory is its
     * pins' digest); TorchScript keeps its old bytes. */
    if (f->model_format != PX_FORMAT_TORCHSCRIPT)
        put_str(o, fixture_format_name(f->model_format));
}

/* An image's input: what its pipeline is called with (contract.image);
 * noise is always cpu, the only value the loader takes. */
static void write_image(FILE *o, const px_image_spec *im)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", im->seed);
    put_str(o, "image"), put_num(o, im->height), put_num(o, im->width), put_num(o, im->channels);
    put_num(o, im->steps), put_num(o, im->guidance_scale), put_str(o, seed), put_str(o, "noise:cpu");
    put_str(o, im->scheduler), put_num(o, im->latent_every);
}

/* A training run's recipe, every key (the contract's, or an example's
 * own over it): results recorded under another recipe are warned about. */
static void write_recipe(FILE *o, const px_recipe *r)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", r->seed);
    put_str(o, "recipe"), put_num(o, r->steps), put_num(o, r->batch_size), put_num(o, r->seq_len);
    put_num(o, r->optimizer), put_num(o, r->lr), put_num(o, r->beta1), put_num(o, r->beta2), put_num(o, r->eps);
    put_num(o, r->weight_decay), put_num(o, r->momentum), put_num(o, r->warmup_steps), put_num(o, r->decay);
    put_num(o, r->decay_min), put_num(o, r->clip_grad_norm), put_str(o, seed);
}

static void put_step_tol(FILE *o, const char *name, const px_step_tol *t)
{
    put_str(o, name), put_num(o, t->present), put_num(o, t->atol), put_num(o, t->rtol);
}

static void write_input(FILE *o, const px_fixture *f, size_t k)
{
    (void)k;
    /* A training run's data: its pin (the tokenizer's follows, below). */
    if (kind_of(f)->trains)
        put_str(o, "train.data"), put_str(o, f->train_data.sha256);
    if (f->image.present) { /* no text, no tokenizer */
        write_image(o, &f->image);
        return;
    }
    put_num(o, (double)f->n_rules);
    for (size_t i = 0; i < f->n_rules; i++)
        put_str(o, f->rules[i].pattern), put_str(o, f->rules[i].replace);
    /* The wordpiece kind keeps its old bytes: recorded fingerprints stay valid. */
    if (f->tokenizer_hf)
        put_str(o, "huggingface"), put_str(o, f->vocab_sha256);
    else if (f->tokenizer_chars)
        put_str(o, "chars"), put_str(o, f->vocab_sha256);
    else
        put_str(o, "wordpiece"), put_str(o, f->vocab_sha256), put_num(o, f->lowercase);
    put_num(o, (double)f->max_tokens), put_num(o, (double)f->pad_to), put_num(o, f->empty_reject);
}

static void write_labels(FILE *o, const px_fixture *f, size_t k)
{
    (void)k;
    put_num(o, (double)f->n_labels);
    for (size_t i = 0; i < f->n_labels; i++)
        put_str(o, f->labels[i]);
}

static void write_compare(FILE *o, const px_fixture *f, size_t k)
{
    (void)k;
    put_tolerance(o, &f->logits_tol);
    put_str(o, f->decision);
    /* Only when present: a contract without train keeps its old bytes, so
     * recorded fingerprints stay valid. */
    if (f->train.present)
        put_str(o, "train"), put_num(o, f->train.lr), put_num(o, f->train.atol), put_num(o, f->train.rtol);
    /* A generator's output settings: what its outputs were made with. */
    const px_generate *g = &f->gen;
    if (g->present) {
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", g->seed);
        put_str(o, "generate"), put_num(o, g->decoding), put_num(o, g->temperature), put_num(o, g->top_k);
        put_str(o, seed), put_num(o, g->max_new_tokens), put_num(o, (double)g->n_stop);
        for (size_t i = 0; i < g->n_stop; i++)
            put_str(o, g->stop[i]);
        if (!g->skip_special) /* said only when not the default: older fingerprints stay */
            put_str(o, "skip_special_tokens: false");
    }
    if (f->similar.present)
        put_str(o, "similar_to_reference"), put_num(o, f->similar.min_cosine);
    /* An image's checks (present only for an image: others keep their bytes). */
    const px_image_checks *ic = &f->image_cmp;
    const px_image_bound *b[] = {&ic->psnr, &ic->ssim, &ic->mean_abs, &ic->max_abs};
    if (b[0]->present || b[1]->present || b[2]->present || b[3]->present || ic->latents.present) {
        put_str(o, "image");
        for (size_t i = 0; i < sizeof b / sizeof *b; i++)
            put_num(o, b[i]->present), put_num(o, b[i]->present ? b[i]->limit : 0);
        put_str(o, "latents"), put_tolerance(o, &ic->latents);
    }
    /* A training run's: the contract's recipe and compare.train. */
    if (kind_of(f)->trains) {
        const px_train_checks *tc = &f->train_cmp;
        write_recipe(o, &f->recipe);
        put_step_tol(o, "loss", &tc->loss), put_step_tol(o, "grad_norm", &tc->grad_norm);
        put_step_tol(o, "update", &tc->update);
        put_num(o, tc->params_present), put_num(o, tc->params_max_rel), put_num(o, tc->learning_min_fraction);
    }
}

/* Labels by name, so that an example reads the same whatever the order of
 * the label list (that is the labels part's business). */
static void write_example(FILE *o, const px_fixture *f, size_t k)
{
    const px_example *x = &f->examples[k];
    const px_expect *e = &x->expect;
    put_str(o, x->id), put_str(o, x->kind);
    fprintf(o, "%zu:", x->text_len);
    fwrite(x->text, 1, x->text_len, o);
    put_num(o, e->kind);
    put_str(o, e->kind == PX_EXPECT_LABEL ? f->labels[e->label] : NULL);
    put_num(o, (double)e->n_any_of);
    for (size_t i = 0; i < e->n_any_of; i++)
        put_str(o, f->labels[e->any_of[i]]);
    put_num(o, e->top_k);
    put_str(o, e->reason.text), put_str(o, e->must_match.text), put_str(o, e->must_not_match.text);
    static const px_tolerance none;
    put_tolerance(o, x->tol ? x->tol : &none);
    const px_text_expect *t = e->text;
    if (t) { /* a generator's: after the rest, which it leaves empty */
        put_num(o, (double)t->n_must_match);
        for (size_t i = 0; i < t->n_must_match; i++)
            put_str(o, t->must_match[i].text);
        put_num(o, (double)t->n_must_not_match);
        for (size_t i = 0; i < t->n_must_not_match; i++)
            put_str(o, t->must_not_match[i].text);
        put_num(o, t->max_chars), put_num(o, t->non_empty), put_num(o, t->same), put_num(o, t->same_n);
    }
    /* An embedding's: its role, its own cosine floor and what its search
     * must return (only for an embedding: older fingerprints stay). */
    /* An image's own seed (its class is its text). */
    if (kind_of(f)->denoises) {
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", x->seed);
        put_num(o, x->has_seed), put_str(o, x->has_seed ? seed : NULL);
    }
    /* A training run's: its recipe (the contract's with its own keys over
     * it) and its loss_at_most. */
    if (kind_of(f)->trains && x->recipe) {
        write_recipe(o, x->recipe);
        put_num(o, isnan(x->loss_at_most) ? -1 : x->loss_at_most);
    }
    if (kind_of(f)->searches) {
        put_num(o, x->role), put_num(o, x->similar ? x->similar->present : 0),
            put_num(o, x->similar ? x->similar->min_cosine : 0);
        const px_retrieval *r = e->retrieval;
        put_num(o, r ? (double)r->n_top : -1);
        for (size_t i = 0; r && i < r->n_top; i++)
            put_str(o, r->top[i]);
        if (r)
            put_num(o, r->k), put_num(o, r->exact);
    }
}

static void write_examples(FILE *o, const px_fixture *f, size_t k)
{
    (void)k;
    char h[PX_SHA256_HEX];
    put_num(o, (double)f->n_examples);
    for (size_t i = 0; i < f->n_examples; i++) {
        fingerprint_example(f, i, h);
        put_str(o, h);
    }
}

void fingerprint_contract(const px_fixture *f, px_fingerprint *out)
{
    static const writer w[PX_PART_COUNT] = {write_model, write_input, write_labels, write_compare, write_examples};
    for (int p = 0; p < PX_PART_COUNT; p++)
        hash_with(w[p], f, 0, out->part[p]);
}

void fingerprint_example(const px_fixture *f, size_t k, char out[PX_SHA256_HEX]) { hash_with(write_example, f, k, out); }
