/* The kinds of model (src/contract/kind.c): one row each, found by name,
 * and the one shape rule the wire and the results reader both apply. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "parity/kind.h"

Test(kind, every_kind_has_its_row_and_is_found_by_its_name)
{
    size_t n;
    const px_kind *all = kind_all(&n);
    cr_assert_eq(n, 5u);
    for (size_t k = 0; k < n; k++) {
        cr_expect_eq((size_t)all[k].id, k, "row %zu holds kind %d", k, all[k].id);
        cr_expect_eq(kind_named(all[k].name), &all[k], "%s", all[k].name);
        cr_expect_not_null(all[k].shape_fits, "%s", all[k].name);
        cr_expect_not_null(all[k].probe_misfit, "%s", all[k].name);
        cr_expect(all[k].article && strstr(all[k].article, all[k].name), "%s", all[k].name);
    }
    cr_expect_null(kind_named("picture"));
    cr_expect_null(kind_named(NULL));
    px_fixture f = {.kind = PX_MODEL_EMBEDDING};
    cr_expect_str_eq(kind_of(&f)->name, "embedding");
    /* the image kind (issue 39): its examples run DENOISE, its results are
     * format 7 and say kind: image */
    f.kind = PX_MODEL_IMAGE;
    cr_expect_eq(kind_of(&f), kind_named("image"));
    cr_expect(kind_of(&f)->denoises);
    cr_expect_eq(kind_of(&f)->results_format, 7);
    for (size_t k = 0; k < n; k++)
        cr_expect(!all[k].denoises || all[k].id == PX_MODEL_IMAGE, "%s denoises", all[k].name);
    /* the training kind (issue 40): its examples are runs (TRAINRUN), its
     * results format 8, its output the loss curve */
    f.kind = PX_MODEL_TRAINING;
    cr_expect_eq(kind_of(&f), kind_named("training"));
    cr_expect(kind_of(&f)->trains);
    cr_expect_eq(kind_of(&f)->results_format, 8);
    cr_expect_str_eq(kind_of(&f)->values, "loss");
    for (size_t k = 0; k < n; k++)
        cr_expect(!all[k].trains || all[k].id == PX_MODEL_TRAINING, "%s trains", all[k].name);
}

/* A loss curve: [1, N], N from 1 to PX_TRAIN_RUN_MAX_STEPS; no probe
 * forward, so a misfit is never the contract's error. */
Test(kind, a_training_runs_shape_is_its_loss_curve)
{
    px_fixture f = {.kind = PX_MODEL_TRAINING};
    px_shape_want w = {0};
    const int64_t good[] = {1, 10}, one[] = {1, 1}, col[] = {10, 1}, three[] = {1, 10, 1},
                  huge[] = {1, PX_TRAIN_RUN_MAX_STEPS + 1};
    char *why = NULL;
    const px_kind *k = kind_of(&f);
    cr_expect_eq(k->shape_fits(&f, &w, 2, good, 10, &why), PX_SHAPE_FITS);
    cr_expect_null(why);
    cr_expect_eq(k->shape_fits(&f, &w, 2, one, 1, &why), PX_SHAPE_FITS);
    cr_expect_eq(k->shape_fits(&f, &w, 2, col, 10, &why), PX_SHAPE_BAD);
    cr_expect_str_eq(why, "output shape [10,1], a training run's loss curve is [1,N], one loss a step, N from 1 to "
                          "100000");
    free(why);
    cr_expect_eq(k->shape_fits(&f, &w, 3, three, 10, &why), PX_SHAPE_BAD);
    free(why);
    cr_expect_eq(k->shape_fits(&f, &w, 2, huge, 1, &why), PX_SHAPE_BAD);
    free(why);
    cr_expect_eq(k->shape_fits(&f, &w, 2, good, 0, &why), PX_SHAPE_EMPTY);
    cr_expect_str_eq(why, "the loss curve has no steps");
    free(why);
    px_error err = {0};
    px_env e = {.name = "x"};
    cr_expect_eq(k->probe_misfit(&f, &e, PX_SHAPE_BAD, 2, col, NULL, "step 1", &err), 0);
    cr_expect_eq(err.code, 0);
}

/* An image's shape: [1, H, W, C] as contract.image says, channels last. */
Test(kind, an_images_shape_is_the_contracts_size_and_channels)
{
    px_fixture f = {.kind = PX_MODEL_IMAGE, .image = {.present = 1, .height = 32, .width = 24, .channels = 3}};
    px_shape_want w = {0};
    const int64_t good[] = {1, 32, 24, 3}, swapped[] = {1, 24, 32, 3}, first[] = {1, 3, 32, 24}, flat[] = {32, 72};
    char *why = NULL;
    cr_expect_eq(kind_of(&f)->shape_fits(&f, &w, 4, good, 32 * 24 * 3, &why), PX_SHAPE_FITS);
    cr_expect_null(why);
    cr_expect_eq(kind_of(&f)->shape_fits(&f, &w, 4, swapped, 32 * 24 * 3, &why), PX_SHAPE_BAD);
    cr_expect_str_eq(why, "output shape [1,24,32,3], contract says [1,32,24,3] (contract.image: size [32, 24], "
                          "channels 3)");
    free(why);
    cr_expect_eq(kind_of(&f)->shape_fits(&f, &w, 4, first, 32 * 24 * 3, &why), PX_SHAPE_BAD, "channels first");
    free(why);
    cr_expect_eq(kind_of(&f)->shape_fits(&f, &w, 2, flat, 32 * 72, &why), PX_SHAPE_BAD);
    free(why);
    cr_expect_eq(kind_of(&f)->shape_fits(&f, &w, 4, good, 0, &why), PX_SHAPE_EMPTY);
    cr_expect_str_eq(why, "the image has no pixels");
    free(why);
}

static px_shape_fit fits(enum px_model_kind kind, int dim, const px_shape_want *w, int ndim, const int64_t *shape,
                         size_t n_values, char **why)
{
    px_fixture f = {.kind = kind, .dim = dim};
    *why = NULL;
    return kind_of(&f)->shape_fits(&f, w, ndim, shape, n_values, why);
}

Test(kind, the_shape_rule_says_what_the_output_is_and_what_the_contract_says)
{
    char *why;
    px_shape_want w = {.labels = 5, .tokens = 4, .vocab = 100};
    const int64_t row5[] = {1, 5}, row3[] = {1, 3}, seq[] = {1, 4, 128}, narrow[] = {1, 4, 99};
    cr_expect_eq(fits(PX_MODEL_CLASSIFIER, 0, &w, 2, row5, 5, &why), PX_SHAPE_FITS);
    cr_expect_null(why);
    cr_expect_eq(fits(PX_MODEL_CLASSIFIER, 0, &w, 2, row3, 3, &why), PX_SHAPE_BAD);
    cr_expect_str_eq(why, "output shape [1,3], contract says [1,5]");
    free(why);
    cr_expect_eq(fits(PX_MODEL_CLASSIFIER, 0, &w, 2, row5, 0, &why), PX_SHAPE_EMPTY);
    cr_expect_str_eq(why, "output has no elements");
    free(why);
    /* An embedding's width is contract.model.dim, never the labels. */
    cr_expect_eq(fits(PX_MODEL_EMBEDDING, 3, &w, 2, row3, 3, &why), PX_SHAPE_FITS);
    cr_expect_eq(fits(PX_MODEL_EMBEDDING, 384, &w, 2, row5, 5, &why), PX_SHAPE_BAD);
    cr_expect_str_eq(why, "output shape [1,5], contract says [1,384] (contract.model.dim)");
    free(why);
    /* A generator's vocabulary may be wider than the tokenizer's, not narrower. */
    cr_expect_eq(fits(PX_MODEL_GENERATOR, 0, &w, 3, seq, 4 * 128, &why), PX_SHAPE_FITS);
    cr_expect_eq(fits(PX_MODEL_GENERATOR, 0, &w, 3, narrow, 4 * 99, &why), PX_SHAPE_BAD);
    cr_expect_str_eq(why, "output shape [1,4,99], a generator gives [1,4,V] with V at least the tokenizer's 100");
    free(why);
    cr_expect_eq(fits(PX_MODEL_GENERATOR, 0, &w, 2, row5, 0, &why), PX_SHAPE_EMPTY);
    free(why);
}
