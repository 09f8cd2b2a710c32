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

static const px_kind kinds[] = {
    [PX_MODEL_CLASSIFIER] = {PX_MODEL_CLASSIFIER, "classifier", "a classifier", PX_RESULTS_CLASSIFIER, "max|Δlogit|",
                             "logits", 1, 0, classifier_shape, 0, 0},
    [PX_MODEL_GENERATOR] = {PX_MODEL_GENERATOR, "generator", "a generator", PX_RESULTS_GENERATOR,
                            "first other token", "logits", 0, 1, generator_shape, 0, 0},
    [PX_MODEL_EMBEDDING] = {PX_MODEL_EMBEDDING, "embedding", "an embedding", PX_RESULTS_VERSION, "max|Δ|", "vectors",
                            0, 0, embedding_shape, 1, 1},
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
