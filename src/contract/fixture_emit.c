/* A loaded fixture written back as a fixture file. Every string goes
 * through emit_yaml_string (double-quoted, escaped: it reads back byte for
 * byte), every number the loader parses as a double through
 * emit_yaml_double (the fewest digits that read back to the same value),
 * counts as integers. The layout is block style, two spaces a level; no
 * key the loader would refuse is written, and a default only where the
 * loader's default could differ from the value or the reader should not
 * have to know it (the contract's input limits, a runnable environment's
 * dtype and threads). */
#define _POSIX_C_SOURCE 200809L
#include "parity/fixture_emit.h"
#include "parity/decision.h"
#include "parity/emit.h"
#include "parity/kind.h"
#include "parity/version.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* libyaml refuses a simple (implicit) key longer than 1024 characters; an
 * escaped string takes at most 4 characters a byte, plus its quotes. */
#define SIMPLE_KEY_MAX_BYTES 255

static void key(FILE *o, int ind, const char *k) { fprintf(o, "%*s%s:", ind, "", k); }

static void kv_str(FILE *o, int ind, const char *k, const char *v)
{
    if (!v)
        return;
    key(o, ind, k);
    fputc(' ', o);
    emit_yaml_string(o, v);
    fputc('\n', o);
}

static void kv_num(FILE *o, int ind, const char *k, double v)
{
    key(o, ind, k);
    fputc(' ', o);
    emit_yaml_double(o, v);
    fputc('\n', o);
}

static void kv_bool(FILE *o, int ind, const char *k, int v)
{
    key(o, ind, k);
    fputs(v ? " true\n" : " false\n", o);
}

static void kv_list(FILE *o, int ind, const char *k, char *const *v, size_t n)
{
    key(o, ind, k);
    fputs(" [", o);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", o);
        emit_yaml_string(o, v[i]);
    }
    fputs("]\n", o);
}

/* A logits tolerance: rtol, atol and stat always (what they are is the
 * point of writing one), q with stat quantile or when set, oracle_factor
 * when stated. */
static void put_tolerance(FILE *o, int ind, const px_tolerance *t, const char *name)
{
    key(o, ind, name);
    fputc('\n', o);
    ind += 2;
    kv_num(o, ind, "rtol", t->rtol);
    kv_num(o, ind, "atol", t->atol);
    kv_str(o, ind, "stat", t->stat ? t->stat : "elementwise");
    if (t->q != 0 || (t->stat && !strcmp(t->stat, "quantile")))
        kv_num(o, ind, "q", t->q);
    if (t->oracle_factor != 0)
        kv_num(o, ind, "oracle_factor", t->oracle_factor);
    kv_str(o, ind, "why", t->why);
}

/* An embedding's similar_to_reference: {min_cosine, why}. */
static void put_similar(FILE *o, int ind, const px_similar *s)
{
    key(o, ind, "similar_to_reference");
    fputc('\n', o);
    kv_num(o, ind + 2, "min_cosine", s->min_cosine);
    kv_str(o, ind + 2, "why", s->why);
}

/* {path, sha256}: an environment's own model or vocab. */
static void put_file(FILE *o, int ind, const char *k, const char *path, const char *sha)
{
    key(o, ind, k);
    fputc('\n', o);
    kv_str(o, ind + 2, "path", path ? path : "");
    kv_str(o, ind + 2, "sha256", sha);
}

/* A model's format (when not TorchScript, the default) and its pins:
 * sha256, or a Transformers directory's files: (whose digest sha256 is). */
static void put_model_pins(FILE *o, int ind, enum px_model_format fmt, const char *sha, const px_model_file *v,
                           size_t n)
{
    if (fmt != PX_FORMAT_TORCHSCRIPT)
        kv_str(o, ind, "format", fixture_format_name(fmt));
    if (fmt != PX_FORMAT_TRANSFORMERS && fmt != PX_FORMAT_DIFFUSERS) {
        kv_str(o, ind, "sha256", sha);
        return;
    }
    if (!n)
        return;
    key(o, ind, "files");
    fputc('\n', o);
    for (size_t i = 0; i < n; i++) {
        fprintf(o, "%*s", ind + 2, "");
        emit_yaml_string(o, v[i].name);
        fputs(": ", o);
        emit_yaml_string(o, v[i].sha256);
        fputc('\n', o);
    }
}

/* One of compare.image's checks: {min|max: X, why}. */
static void put_image_bound(FILE *o, const char *k, const char *limit, const px_image_bound *b)
{
    if (!b->present)
        return;
    key(o, 6, k);
    fputc('\n', o);
    kv_num(o, 8, limit, b->limit);
    kv_str(o, 8, "why", b->why);
}

/* An image's contract.image, every key (what the pipeline is called with). */
static void put_image(FILE *o, const px_image_spec *im)
{
    fprintf(o, "  image:\n    size: [%d, %d]\n    channels: %d\n    steps: %d\n", im->height, im->width,
            im->channels, im->steps);
    kv_num(o, 4, "guidance_scale", im->guidance_scale);
    fprintf(o, "    seed: %llu\n    noise: cpu\n", im->seed);
    kv_str(o, 4, "scheduler", im->scheduler ? im->scheduler : "");
    fprintf(o, "    latents:\n      every: %d\n", im->latent_every);
}

static int image_compares(const px_image_checks *ic)
{
    return ic->psnr.present || ic->ssim.present || ic->mean_abs.present || ic->max_abs.present ||
           ic->latents.present;
}

/* compare.image's checks and compare.latents: a tolerance element by
 * element, {rtol, atol, why} only (the loader refuses stat, q and
 * oracle_factor there: the judge would not read them). */
static void put_image_compare(FILE *o, const px_image_checks *ic)
{
    if (ic->psnr.present || ic->ssim.present || ic->mean_abs.present || ic->max_abs.present) {
        fputs("    image:\n", o);
        put_image_bound(o, "psnr", "min", &ic->psnr);
        put_image_bound(o, "ssim", "min", &ic->ssim);
        put_image_bound(o, "mean_abs", "max", &ic->mean_abs);
        put_image_bound(o, "max_abs", "max", &ic->max_abs);
    }
    if (ic->latents.present) {
        fputs("    latents:\n", o);
        kv_num(o, 6, "rtol", ic->latents.rtol);
        kv_num(o, 6, "atol", ic->latents.atol);
        kv_str(o, 6, "why", ic->latents.why);
    }
}

/* A training run's recipe: the contract's every key (base NULL; an
 * optimizer's own keys only where that optimizer runs, decay_min only with
 * a decay), or an example's keys that differ from the contract's (base). */
static void put_recipe(FILE *o, int ind, const px_recipe *r, const px_recipe *base)
{
#define DIFF(m) (!base || r->m != base->m)
    if (DIFF(steps))
        fprintf(o, "%*ssteps: %d\n", ind, "", r->steps);
    if (DIFF(batch_size))
        fprintf(o, "%*sbatch_size: %d\n", ind, "", r->batch_size);
    if (DIFF(seq_len))
        fprintf(o, "%*sseq_len: %d\n", ind, "", r->seq_len);
    if (DIFF(optimizer))
        kv_str(o, ind, "optimizer", r->optimizer == PX_OPT_SGD ? "sgd" : "adamw");
    if (DIFF(lr))
        kv_num(o, ind, "lr", r->lr);
    if ((DIFF(beta1) || DIFF(beta2)) && r->optimizer == PX_OPT_ADAMW) {
        fprintf(o, "%*sbetas: [", ind, "");
        emit_yaml_double(o, r->beta1);
        fputs(", ", o);
        emit_yaml_double(o, r->beta2);
        fputs("]\n", o);
    }
    if (DIFF(eps) && r->optimizer == PX_OPT_ADAMW)
        kv_num(o, ind, "eps", r->eps);
    if (DIFF(weight_decay))
        kv_num(o, ind, "weight_decay", r->weight_decay);
    if (DIFF(momentum) && r->optimizer == PX_OPT_SGD)
        kv_num(o, ind, "momentum", r->momentum);
    if (DIFF(warmup_steps))
        fprintf(o, "%*swarmup_steps: %d\n", ind, "", r->warmup_steps);
    if (DIFF(decay))
        kv_str(o, ind, "decay", r->decay == PX_DECAY_LINEAR ? "linear" : r->decay == PX_DECAY_COSINE ? "cosine" : "none");
    if (DIFF(decay_min) && r->decay != PX_DECAY_NONE)
        kv_num(o, ind, "decay_min", r->decay_min);
    if (DIFF(clip_grad_norm))
        kv_num(o, ind, "clip_grad_norm", r->clip_grad_norm);
    if (DIFF(seed))
        fprintf(o, "%*sseed: %llu\n", ind, "", r->seed);
#undef DIFF
}

static void put_step_tol(FILE *o, const char *k, const px_step_tol *t)
{
    if (!t->present)
        return;
    fprintf(o, "      %s:\n", k);
    kv_num(o, 8, "atol", t->atol);
    kv_num(o, 8, "rtol", t->rtol);
    kv_str(o, 8, "why", t->why ? t->why : "");
}

/* A training run's contract.train (the recipe and its data) and
 * compare.train. */
static void put_training(FILE *o, const px_fixture *f)
{
    fputs("  train:\n", o);
    put_recipe(o, 4, &f->recipe, NULL);
    fputs("    data:\n", o);
    kv_str(o, 6, "path", f->train_data.path ? f->train_data.path : "");
    kv_str(o, 6, "sha256", f->train_data.sha256);
    const px_train_checks *tc = &f->train_cmp;
    fputs("  compare:\n    train:\n", o);
    put_step_tol(o, "loss", &tc->loss);
    put_step_tol(o, "grad_norm", &tc->grad_norm);
    put_step_tol(o, "update", &tc->update);
    if (tc->params_present) {
        fputs("      params:\n", o);
        kv_num(o, 8, "max_rel", tc->params_max_rel);
        kv_str(o, 8, "why", tc->params_why ? tc->params_why : "");
    }
    /* the default 0.1 said when a why was, or when it is not the default */
    if (tc->learning_why || tc->learning_min_fraction != 0.1) {
        fputs("      learning:\n", o);
        kv_num(o, 8, "min_fraction", tc->learning_min_fraction);
        kv_str(o, 8, "why", tc->learning_why ? tc->learning_why : "");
    }
}

/* contract.input: the cleaning rules, the tokenizer and the limits. */
static void put_input(FILE *o, const px_fixture *f, const px_emit_opts *opts)
{
    fputs("  input:\n", o);
    if (f->n_rules) {
        fputs("    clean:\n", o);
        for (size_t i = 0; i < f->n_rules; i++) {
            const px_clean_rule *r = &f->rules[i];
            fputs("      - pattern: ", o);
            emit_yaml_string(o, r->pattern ? r->pattern : "");
            fputc('\n', o);
            kv_str(o, 8, "replace", r->replace ? r->replace : "");
            kv_str(o, 8, "why", r->why);
        }
    }
    fputs("    tokenizer:\n", o);
    int training = kind_of(f)->trains;
    const char *vocab = opts->vocab_path ? opts->vocab_path : f->vocab_path;
    /* huggingface: the tokenizer.json says the rest, and lowercase is refused. */
    kv_str(o, 6, "kind", f->tokenizer_hf ? "huggingface" : f->tokenizer_chars ? "chars" : "wordpiece");
    kv_str(o, 6, f->tokenizer_hf ? "file" : "vocab", vocab ? vocab : "");
    kv_str(o, 6, "sha256", f->vocab_sha256);
    if (!f->tokenizer_hf && !f->tokenizer_chars)
        kv_bool(o, 6, "lowercase", f->lowercase);
    if (training) /* its tokenizer alone: the data is cut into windows */
        return;
    fprintf(o, "    max_tokens: %zu\n", f->max_tokens);
    if (f->pad_to)
        fprintf(o, "    pad_to: %zu\n", f->pad_to);
    kv_str(o, 4, "empty", f->empty_reject ? "reject" : "allow");
}

static void put_contract(FILE *o, const px_fixture *f, const px_emit_opts *opts)
{
    fputs("contract:\n", o);
    kv_str(o, 2, "task", f->task ? f->task : "");

    fputs("  model:\n", o);
    const char *model = opts->model_path ? opts->model_path : f->model_path;
    kv_str(o, 4, "path", model ? model : "");
    put_model_pins(o, 4, f->model_format, f->model_sha256, f->model_files, f->n_model_files);
    /* Not written, not made explicit: inputs_auto reads the model's signature. */
    if (f->n_inputs && !f->inputs_auto)
        kv_list(o, 4, "inputs", f->inputs, f->n_inputs);
    kv_str(o, 4, "output", f->output);
    if (f->kind == PX_MODEL_GENERATOR)
        kv_str(o, 4, "kind", "generator");
    if (f->kind == PX_MODEL_EMBEDDING) {
        kv_str(o, 4, "kind", "embedding");
        fprintf(o, "    dim: %d\n", f->dim);
        kv_str(o, 4, "pooling", fixture_pooling_name(f->pooling));
        kv_bool(o, 4, "normalize", f->normalize);
    }
    if (f->image.present)
        kv_str(o, 4, "kind", "image");
    if (kind_of(f)->trains)
        kv_str(o, 4, "kind", "training");
    /* An image's contract has no input: (no text, no tokenizer). */
    if (!f->image.present)
        put_input(o, f, opts);
    if (f->kind == PX_MODEL_CLASSIFIER || f->image.present)
        kv_list(o, 2, "labels", f->labels, f->n_labels);
    if (f->image.present)
        put_image(o, &f->image);
    if (kind_of(f)->trains)
        put_training(o, f);

    const px_generate *g = &f->gen;
    if (g->present) {
        fputs("  generate:\n", o);
        kv_str(o, 4, "decoding", g->decoding == PX_DECODE_SAMPLE ? "sample" : "greedy");
        if (g->decoding == PX_DECODE_SAMPLE) {
            kv_num(o, 4, "temperature", g->temperature);
            fprintf(o, "    top_k: %d\n    seed: %llu\n", g->top_k, g->seed);
        }
        fprintf(o, "    max_new_tokens: %d\n", g->max_new_tokens);
        if (!g->skip_special)
            fprintf(o, "    skip_special_tokens: false\n");
        if (g->n_stop)
            kv_list(o, 4, "stop", g->stop, g->n_stop);
    }

    /* decision absent and decision: exact judge alike, but the compare
     * fingerprint tells them apart: written exactly when it was. */
    if (f->logits_tol.present || f->decision || f->similar.present || image_compares(&f->image_cmp)) {
        fputs("  compare:\n", o);
        put_image_compare(o, &f->image_cmp);
        if (f->logits_tol.present)
            put_tolerance(o, 4, &f->logits_tol, kind_of(f)->values);
        if (f->similar.present)
            put_similar(o, 4, &f->similar);
        kv_str(o, 4, "decision", f->decision);
    }
    if (f->train.present) {
        fputs("  train:\n    lr: ", o);
        emit_yaml_double(o, f->train.lr);
        fputs("\n    atol: ", o);
        emit_yaml_double(o, f->train.atol);
        fputs("\n    rtol: ", o);
        emit_yaml_double(o, f->train.rtol);
        fputc('\n', o);
        kv_str(o, 4, "why", f->train.why);
    }
}

static void put_env(FILE *o, const px_env *e, int keep_results)
{
    if (strlen(e->name) <= SIMPLE_KEY_MAX_BYTES) {
        fputs("  ", o);
        emit_yaml_string(o, e->name);
        fputs(":\n", o);
    } else {
        fputs("  ? ", o);
        emit_yaml_string(o, e->name);
        fputs("\n  :\n", o);
    }
    /* The loader refuses device with results; one that has a device runs. */
    kv_str(o, 4, "device", e->device);
    if (keep_results && !e->device)
        kv_str(o, 4, "results", e->results);
    kv_str(o, 4, "dtype", e->dtype);
    if (e->python)
        kv_str(o, 4, "executor", "python");
    /* Threads shape a CPU run's reductions: said for every runnable one. */
    if (e->device || e->threads != 1)
        fprintf(o, "    threads: %d\n", e->threads);
    if (e->timeout_s != 30)
        kv_num(o, 4, "timeout", e->timeout_s);
    /* Unless written, it follows timeout (300, or timeout when longer). */
    double first = e->timeout_s > 300 ? e->timeout_s : 300;
    if (e->first_forward_timeout_s != first)
        kv_num(o, 4, "first_forward_timeout", e->first_forward_timeout_s);
    if (e->startup_timeout_s != 120)
        kv_num(o, 4, "startup_timeout", e->startup_timeout_s);
    /* tf32 and matmul_precision are one setting on CUDA: never both. */
    if (e->matmul_precision)
        kv_str(o, 4, "matmul_precision", e->matmul_precision);
    else if (e->tf32 >= 0)
        kv_bool(o, 4, "tf32", e->tf32);
    if (e->compile.present && e->device) { /* the loader refuses it on an imported one */
        fputs("    compile:\n", o);
        kv_str(o, 6, "backend", e->compile.backend);
        kv_str(o, 6, "mode", e->compile.mode);
        if (e->compile.dynamic >= 0)
            kv_bool(o, 6, "dynamic", e->compile.dynamic);
    }
    kv_str(o, 4, "mixed_precision_param", e->mixed_precision_param);
    kv_str(o, 4, "mixed_precision_reduce", e->mixed_precision_reduce);
    if (e->parallel.processes) {
        fprintf(o, "    parallel:\n      processes: %d\n", e->parallel.processes);
        kv_str(o, 6, "strategy", e->parallel.strategy == PX_PAR_FSDP ? "fsdp" : "ddp");
        kv_str(o, 6, "backend", e->parallel.backend);
    }
    kv_str(o, 4, "role", e->role);
    kv_str(o, 4, "note", e->note);
    if (e->n_record_env)
        kv_list(o, 4, "record_env", e->record_env, e->n_record_env);
    if (e->own_model) {
        key(o, 4, "model");
        fputc('\n', o);
        kv_str(o, 6, "path", e->model_path ? e->model_path : "");
        put_model_pins(o, 6, e->model_format, e->model_sha256, e->model_files, e->n_model_files);
    }
    if (e->own_vocab)
        put_file(o, 4, "vocab", e->vocab_path, e->vocab_sha256);
    if (e->own_labels)
        kv_list(o, 4, "labels", e->labels, e->n_labels);
}

static const char *label_name(const px_fixture *f, int i)
{
    return i >= 0 && (size_t)i < f->n_labels ? f->labels[i] : "";
}

static void put_patterns(FILE *o, const char *k, const px_pattern *p, size_t n)
{
    if (!n)
        return;
    key(o, 6, k);
    fputs(" [", o);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", o);
        emit_yaml_string(o, p[i].text);
    }
    fputs("]\n", o);
}

static void put_text_expect(FILE *o, const px_text_expect *t)
{
    put_patterns(o, "must_match", t->must_match, t->n_must_match);
    put_patterns(o, "must_not_match", t->must_not_match, t->n_must_not_match);
    if (t->max_chars)
        fprintf(o, "      max_chars: %d\n", t->max_chars);
    if (t->non_empty)
        kv_bool(o, 6, "non_empty", 1);
    if (t->same == PX_SAME_EXACT)
        kv_str(o, 6, "same_as_reference", "exact");
    else if (t->same != PX_SAME_ANY)
        fprintf(o, "      same_as_reference: \"%s %d\"\n",
                t->same == PX_SAME_PREFIX ? "prefix" : "tokens-edit-distance <=", t->same_n);
}

static void put_expect(FILE *o, const px_fixture *f, const px_expect *x)
{
    fputs("    expect:\n", o);
    switch (x->kind) {
    case PX_EXPECT_LABEL:
        kv_str(o, 6, "label", label_name(f, x->label));
        break;
    case PX_EXPECT_ANY_OF:
        fputs("      any_of: [", o);
        for (size_t i = 0; i < x->n_any_of; i++) {
            if (i)
                fputs(", ", o);
            emit_yaml_string(o, label_name(f, x->any_of[i]));
        }
        fputs("]\n", o);
        break;
    case PX_EXPECT_REJECTED:
    case PX_EXPECT_NONE: /* not from the loader: it needs exactly one */
        kv_bool(o, 6, "rejected", 1);
        break;
    case PX_EXPECT_TEXT:
        put_text_expect(o, x->text);
        return;
    case PX_EXPECT_RETRIEVAL:
        kv_list(o, 6, "top", x->retrieval->top, x->retrieval->n_top);
        fprintf(o, "      k: %d\n", x->retrieval->k);
        kv_str(o, 6, "order", x->retrieval->exact ? "exact" : "set");
        return;
    }
    if (x->top_k)
        fprintf(o, "      top_k: %d\n", x->top_k);
    /* The loader refuses reason beside any_of (and takes it beside label:
     * it is part of the example's fingerprint, so it is kept there). */
    if (x->kind != PX_EXPECT_ANY_OF)
        kv_str(o, 6, "reason", x->reason.text);
    kv_str(o, 6, "must_match", x->must_match.text);
    kv_str(o, 6, "must_not_match", x->must_not_match.text);
}

/* The fields present, in the review record's order (PX_REVIEW_RECORD). */
static void put_review(FILE *o, const px_review *r)
{
    if (review_empty(r))
        return;
    fputs("    review:\n", o);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        kv_str(o, 6, px_review_keys[i], review_field(r, i));
}

static void put_example(FILE *o, const px_fixture *f, const px_example *x, int keep_review)
{
    fputs("  - id: ", o);
    emit_yaml_string(o, x->id ? x->id : "");
    fputc('\n', o);
    kv_str(o, 4, "kind", x->kind ? x->kind : "normal");
    /* A training run: no text; its own recipe keys, its expect. */
    if (kind_of(f)->trains) {
        size_t at = 0;
        char *buf = NULL;
        FILE *m = x->recipe ? open_memstream(&buf, &at) : NULL;
        if (m) {
            put_recipe(m, 6, x->recipe, &f->recipe);
            fclose(m);
        }
        if (buf && at)
            fprintf(o, "    train:\n%s", buf);
        free(buf);
        if (!isnan(x->loss_at_most)) {
            fputs("    expect:\n", o);
            kv_num(o, 6, "loss_at_most", x->loss_at_most);
        }
        kv_str(o, 4, "why", x->why);
        if (keep_review)
            put_review(o, &x->review);
        return;
    }
    /* An image's example draws a class (kept as its text), with its seed. */
    kv_str(o, 4, f->image.present ? "class" : "text", x->text ? x->text : "");
    if (x->has_seed)
        fprintf(o, "    seed: %llu\n", x->seed);
    if (x->role != PX_ROLE_NONE)
        kv_str(o, 4, "role", x->role == PX_ROLE_DOCUMENT ? "document" : "query");
    if (x->similar && x->similar->present)
        put_similar(o, 4, x->similar);
    if (x->role != PX_ROLE_DOCUMENT && !(f->image.present && x->expect.kind == PX_EXPECT_NONE))
        put_expect(o, f, &x->expect);
    kv_str(o, 4, "why", x->why);
    if (x->tol && x->tol->present) {
        fputs("    compare:\n", o);
        put_tolerance(o, 6, x->tol, kind_of(f)->values);
    }
    if (keep_review)
        put_review(o, &x->review);
}

/* Indices in range and each at most once: else the output would not load
 * (a duplicate environment or example id). */
static int check_indices(const int *ix, size_t n, size_t count)
{
    if (!ix)
        return 0;
    char *seen = calloc(count ? count : 1, 1);
    if (!seen)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (ix[i] < 0 || (size_t)ix[i] >= count || seen[ix[i]])
            rc = -1;
        else
            seen[ix[i]] = 1;
    }
    free(seen);
    if (rc)
        errno = EINVAL;
    return rc;
}

/* An imported environment needs its results: key to load. */
static int env_kept(const px_env *e, int keep_results) { return e->device || (keep_results && e->results); }

int fixture_emit(FILE *o, const px_fixture *f, const px_emit_opts *opts)
{
    static const px_emit_opts all = {.keep_results_keys = 1, .keep_reviews = 1};
    if (!opts)
        opts = &all;
    size_t n_envs = opts->envs ? opts->n_envs : f->n_envs;
    size_t n_examples = opts->examples ? opts->n_examples : f->n_examples;
    if (check_indices(opts->envs, opts->n_envs, f->n_envs) ||
        check_indices(opts->examples, opts->n_examples, f->n_examples))
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < n_envs; i++)
        kept += env_kept(&f->envs[opts->envs ? (size_t)opts->envs[i] : i], opts->keep_results_keys);
    if (!kept) {
        errno = EINVAL;
        return -1;
    }

    fprintf(o, "# Written by parity %s (fixture_emit) from a loaded fixture; comments and layout are not kept.\n",
            PX_VERSION);
    fputs("parity: 1\n\n", o);
    put_contract(o, f, opts);
    if (f->n_redact) {
        fputs("\nredact:\n", o);
        for (size_t i = 0; i < f->n_redact; i++) {
            fputs("  - pattern: ", o);
            emit_yaml_string(o, f->redact[i].pattern ? f->redact[i].pattern : "");
            fputc('\n', o);
            kv_str(o, 4, "why", f->redact[i].why);
        }
    }
    fputs("\nenvironments:\n", o);
    for (size_t i = 0; i < n_envs; i++) {
        const px_env *e = &f->envs[opts->envs ? (size_t)opts->envs[i] : i];
        if (env_kept(e, opts->keep_results_keys))
            put_env(o, e, opts->keep_results_keys);
    }
    fputs(n_examples || (opts->examples && f->n_documents) ? "\nexamples:\n" : "\nexamples: []\n", o);
    for (size_t i = 0; i < n_examples; i++) {
        if (i)
            fputc('\n', o);
        put_example(o, f, &f->examples[opts->examples ? (size_t)opts->examples[i] : i], opts->keep_reviews);
    }
    /* An embedding's queries search its documents: a subset keeps them
     * all, or its queries would name documents it lacks. */
    for (size_t d = 0; opts->examples && d < f->n_examples; d++) {
        int in = f->examples[d].role != PX_ROLE_DOCUMENT;
        for (size_t i = 0; !in && i < n_examples; i++)
            in = (size_t)opts->examples[i] == d;
        if (!in) {
            fputc('\n', o);
            put_example(o, f, &f->examples[d], opts->keep_reviews);
        }
    }
    return fflush(o) || ferror(o) ? -1 : 0;
}
