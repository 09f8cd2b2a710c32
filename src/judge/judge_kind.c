/* The judge's kinds of model, one row each (judge_kind.h): the table the
 * engine asks, indexed by the contract's kind. */
#include "parity/judge_kind.h"

static const px_judge_kind *const kinds[] = {
    [PX_MODEL_CLASSIFIER] = &judge_classifier,
    [PX_MODEL_GENERATOR] = &judge_generator,
    [PX_MODEL_EMBEDDING] = &judge_embedding,
    [PX_MODEL_IMAGE] = &judge_image,
    [PX_MODEL_TRAINING] = &judge_training,
};

const px_judge_kind *judge_kind_of(const px_fixture *f)
{
    size_t n = sizeof kinds / sizeof *kinds;
    return (size_t)f->kind < n && kinds[f->kind] ? kinds[f->kind] : &judge_classifier;
}
