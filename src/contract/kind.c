/* The kinds of model, one row each (kind.h): names, formats, words, and the
 * shape rule an output must meet, written once for the wire and the
 * results reader. */
#include "parity/kind.h"

#include <string.h>

#include "parity/sbuf.h"
#include "parity/version.h"

static void put_shape(px_sbuf *b, int ndim, const int64_t *shape)
{
    sbuf_add(b, "output shape [");
    for (int i = 0; i < ndim; i++)
        sbuf_addf(b, "%s%lld", i ? "," : "", (long long)shape[i]);
    sbuf_add(b, "]");
}

/* [1, width]: `whose` names where the width comes from. */
static px_shape_fit fits_row(int ndim, const int64_t *shape, size_t n_values, size_t width, const char *whose,
                             char **why)
{
    px_sbuf b = PX_SBUF_INIT;
    px_shape_fit fit;
    if (n_values == 0) {
        sbuf_add(&b, "output has no elements");
        fit = PX_SHAPE_EMPTY;
    } else if (ndim != 2 || shape[0] != 1 || shape[1] != (int64_t)width) {
        put_shape(&b, ndim, shape);
        sbuf_addf(&b, ", contract says [1,%zu]%s", width, whose);
        fit = PX_SHAPE_BAD;
    } else {
        return PX_SHAPE_FITS;
    }
    *why = sbuf_take(&b);
    return fit;
}

static px_shape_fit classifier_shape(const px_fixture *f, const px_shape_want *w, int ndim, const int64_t *shape,
                                     size_t n_values, char **why)
{
    (void)f;
    return fits_row(ndim, shape, n_values, w->labels, "", why);
}

static px_shape_fit embedding_shape(const px_fixture *f, const px_shape_want *w, int ndim, const int64_t *shape,
                                    size_t n_values, char **why)
{
    (void)w;
    return fits_row(ndim, shape, n_values, (size_t)f->dim, " (contract.model.dim)", why);
}

/* A generator's forward (the probe): [1, T, V]. A model's vocabulary may be
 * wider than its tokenizer's (Qwen and Gemma pad their embeddings): ids
 * past the tokenizer decode to nothing, as in the library. Narrower cannot
 * be the tokenizer's model. */
static px_shape_fit generator_shape(const px_fixture *f, const px_shape_want *w, int ndim, const int64_t *shape,
                                    size_t n_values, char **why)
{
    (void)f;
    if (ndim == 3 && shape[0] == 1 && shape[1] == (int64_t)w->tokens && shape[2] >= (int64_t)w->vocab)
        return PX_SHAPE_FITS;
    px_sbuf b = PX_SBUF_INIT;
    put_shape(&b, ndim, shape);
    sbuf_addf(&b, ", a generator gives [1,%zu,V] with V at least the tokenizer's %zu", w->tokens, w->vocab);
    *why = sbuf_take(&b);
    return n_values ? PX_SHAPE_BAD : PX_SHAPE_EMPTY;
}

/* A classifier's output of [1, N] with N other than its labels: the
 * labels the contract (or the environment) lists are wrong for the model. */
static int classifier_misfit(const px_fixture *f, const px_env *e, px_shape_fit fit, int ndim, const int64_t *shape,
                             const char *detail, const char *which, px_error *err)
{
    (void)f, (void)detail;
    if (fit != PX_SHAPE_BAD || ndim != 2 || shape[0] != 1 || shape[1] <= 0)
        return 0;
    px_error_set(err, PX_ERR_MISMATCH, f->path, e->labels_loc.line, e->labels_loc.col,
                 "%s lists %zu labels but the model gives %lld outputs (in '%s': %s)",
                 e->own_labels ? "the environment" : "contract", e->n_labels, (long long)shape[1], e->name, which);
    return 1;
}

static int generator_misfit(const px_fixture *f, const px_env *e, px_shape_fit fit, int ndim, const int64_t *shape,
                            const char *detail, const char *which, px_error *err)
{
    (void)fit, (void)ndim, (void)shape;
    px_error_set(err, PX_ERR_MISMATCH, f->path, f->model_loc.line, f->model_loc.col,
                 "contract.model.kind is generator, but the model's output does not fit: %s (in '%s': %s)",
                 detail ? detail : "?", e->name, which);
    return 1;
}

static int embedding_misfit(const px_fixture *f, const px_env *e, px_shape_fit fit, int ndim, const int64_t *shape,
                            const char *detail, const char *which, px_error *err)
{
    (void)fit, (void)ndim, (void)shape;
    px_error_set(err, PX_ERR_MISMATCH, f->path, f->model_loc.line, f->model_loc.col,
                 "contract.model.dim is %d but the model's vector does not fit: %s (in '%s': %s)", f->dim,
                 detail ? detail : "?", e->name, which);
    return 1;
}

/* An image: [1, H, W, C], contract.image's size and channels (the
 * pipeline's output as output_type "np" gives it, channels last). */
static px_shape_fit image_shape(const px_fixture *f, const px_shape_want *w, int ndim, const int64_t *shape,
                                size_t n_values, char **why)
{
    (void)w;
    const px_image_spec *im = &f->image;
    px_sbuf b = PX_SBUF_INIT;
    px_shape_fit fit;
    if (n_values == 0) {
        sbuf_add(&b, "the image has no pixels");
        fit = PX_SHAPE_EMPTY;
    } else if (ndim != 4 || shape[0] != 1 || shape[1] != im->height || shape[2] != im->width ||
               shape[3] != im->channels) {
        put_shape(&b, ndim, shape);
        sbuf_addf(&b, ", contract says [1,%d,%d,%d] (contract.image: size [%d, %d], channels %d)", im->height,
                  im->width, im->channels, im->height, im->width, im->channels);
        fit = PX_SHAPE_BAD;
    } else {
        return PX_SHAPE_FITS;
    }
    *why = sbuf_take(&b);
    return fit;
}

/* A pipeline whose image is not the contract's size with the contract's
 * own pipeline: contract.image.size (or channels) is wrong for it, whatever
 * the environment: the run stops there. */
static int image_misfit(const px_fixture *f, const px_env *e, px_shape_fit fit, int ndim, const int64_t *shape,
                        const char *detail, const char *which, px_error *err)
{
    (void)fit, (void)ndim, (void)shape;
    px_loc at = f->image.loc.line ? f->image.loc : f->model_loc;
    px_error_set(err, PX_ERR_MISMATCH, f->path, at.line, at.col,
                 "contract.image.size is [%d, %d] with %d channels, but the pipeline's image does not fit: %s (in "
                 "'%s': %s)",
                 f->image.height, f->image.width, f->image.channels, detail ? detail : "?", e->name, which);
    return 1;
}

/* A training run's loss curve: [1, N], one loss a step, N >= 1 (as many
 * as ran: a run that stopped early has fewer than its recipe's, which the
 * judge says, and the results reader holds N to the run's recipe). */
static px_shape_fit training_shape(const px_fixture *f, const px_shape_want *w, int ndim, const int64_t *shape,
                                   size_t n_values, char **why)
{
    (void)f, (void)w;
    px_sbuf b = PX_SBUF_INIT;
    px_shape_fit fit;
    if (n_values == 0) {
        sbuf_add(&b, "the loss curve has no steps");
        fit = PX_SHAPE_EMPTY;
    } else if (ndim != 2 || shape[0] != 1 || shape[1] < 1 || shape[1] > PX_TRAIN_RUN_MAX_STEPS) {
        put_shape(&b, ndim, shape);
        sbuf_addf(&b, ", a training run's loss curve is [1,N], one loss a step, N from 1 to %d",
                  PX_TRAIN_RUN_MAX_STEPS);
        fit = PX_SHAPE_BAD;
    } else {
        return PX_SHAPE_FITS;
    }
    *why = sbuf_take(&b);
    return fit;
}

/* A training run has no probe forward: its first TRAINSTEP is its first
 * output. A loss curve of another shape with the contract's own model is
 * the executor's fault, not the contract's: the environment's outcome. */
static int training_misfit(const px_fixture *f, const px_env *e, px_shape_fit fit, int ndim, const int64_t *shape,
                           const char *detail, const char *which, px_error *err)
{
    (void)f, (void)e, (void)fit, (void)ndim, (void)shape, (void)detail, (void)which, (void)err;
    return 0;
}

static const px_kind kinds[] = {
    [PX_MODEL_CLASSIFIER] = {.id = PX_MODEL_CLASSIFIER,
                             .name = "classifier",
                             .article = "a classifier",
                             .results_format = PX_RESULTS_CLASSIFIER,
                             .diff_title = "max|Δlogit|",
                             .values = "logits",
                             .decides_label = 1,
                             .shape_fits = classifier_shape,
                             .probe_misfit = classifier_misfit},
    [PX_MODEL_GENERATOR] = {.id = PX_MODEL_GENERATOR,
                            .name = "generator",
                            .article = "a generator",
                            .results_format = PX_RESULTS_GENERATOR,
                            .diff_title = "first other token",
                            .values = "logits",
                            .generates = 1,
                            .shape_fits = generator_shape,
                            .probe_misfit = generator_misfit},
    [PX_MODEL_EMBEDDING] = {.id = PX_MODEL_EMBEDDING,
                            .name = "embedding",
                            .article = "an embedding",
                            .results_format = PX_RESULTS_EMBEDDING,
                            .diff_title = "max|Δ|",
                            .values = "vectors",
                            .shape_fits = embedding_shape,
                            .searches = 1,
                            .pools = 1,
                            .probe_misfit = embedding_misfit},
    [PX_MODEL_IMAGE] = {.id = PX_MODEL_IMAGE,
                        .name = "image",
                        .article = "an image",
                        .results_format = PX_RESULTS_IMAGE,
                        .diff_title = "PSNR",
                        .values = "pixels",
                        .denoises = 1,
                        .shape_fits = image_shape,
                        .probe_misfit = image_misfit},
    [PX_MODEL_TRAINING] = {.id = PX_MODEL_TRAINING,
                           .name = "training",
                           .article = "a training run",
                           .results_format = PX_RESULTS_TRAINING,
                           .diff_title = "loss parts at",
                           .values = "loss",
                           .trains = 1,
                           .shape_fits = training_shape,
                           .probe_misfit = training_misfit},
};

const px_kind *kind_of(const px_fixture *f)
{
    size_t k = (size_t)f->kind;
    return k < sizeof kinds / sizeof *kinds ? &kinds[k] : &kinds[PX_MODEL_CLASSIFIER];
}

const px_kind *kind_named(const char *name)
{
    for (size_t k = 0; name && k < sizeof kinds / sizeof *kinds; k++)
        if (!strcmp(kinds[k].name, name))
            return &kinds[k];
    return NULL;
}

const px_kind *kind_all(size_t *n)
{
    *n = sizeof kinds / sizeof *kinds;
    return kinds;
}
