/* libFuzzer harness: the results-file reader, the file that crosses
 * machines, must turn any bytes into results matched to the fixture or a
 * located usage error, never a crash, leak or hang. The fixture is
 * fixtures/campus-club/fixture.yaml, or for a file that says generated:
 * (a generator's results) tests/data/gen/fixture.yaml, or for one that says
 * kind: embedding tests/data/embed/search.yaml, for one that says kind: image
 * tests/data/image/shapes.yaml, for one that says kind: training
 * tests/data/training/fixture.yaml (run from the repository root). */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/results.h"

static px_fixture *fixture, *classifier, *generator, *embedding, *image, *training;

static px_fixture *load(const char *path)
{
    px_error err = {0};
    char msg[2048];
    px_fixture *f = fixture_load(path, &err);
    if (!f) {
        px_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "fuzz_results (run it from the repository root): %s\n", msg);
        exit(1);
    }
    return f;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    classifier = load("fixtures/campus-club/fixture.yaml");
    generator = load("tests/data/gen/fixture.yaml");
    embedding = load("tests/data/embed/search.yaml");
    image = load("tests/data/image/shapes.yaml");
    training = load("tests/data/training/fixture.yaml");
    return 0;
}

/* What results.h promises of a file that reads: one slot per fixture
 * example, environments the fixture names, a reference among the file's
 * environments, known outcomes; of a shard file, the other shards'
 * examples not evaluated. */
static void check(const px_results *r)
{
    if (r->n_examples != fixture->n_examples || r->reference < -1 || r->reference >= (int)r->n_envs)
        abort();
    for (size_t i = 0; i < r->n_envs; i++) {
        const px_env_result *e = &r->envs[i];
        if (e->env_index < 0 || (size_t)e->env_index >= fixture->n_envs ||
            strcmp(e->name, fixture->envs[e->env_index].name))
            abort();
        for (size_t k = 0; k < r->n_examples; k++) {
            const px_example_result *x = &e->ex[k];
            if ((unsigned)x->status >= PX_ST_COUNT || x->label < -1 || x->ndim < 0 ||
                x->ndim > PX_MAX_DIMS)
                abort();
            /* A training run's record: as many figures a step as its
             * curve has steps, its groups and sketches bounded. */
            const px_train_out *t = x->train;
            if (t && (t->n_steps != x->n_values || t->n_groups > PX_TRAIN_MAX_GROUPS || t->processes < 1 ||
                      !t->grad_norm || !t->update_norm || !t->lr || !t->step_ms))
                abort();
            for (size_t s = 0; t && s < t->n_steps; s++)
                if (!(t->step_ms[s] >= 0))
                    abort();
            /* A shard file never holds another shard's example. */
            if (!shard_holds(r->shard, fixture->examples[k].id) && x->status != PX_ST_NOT_EVALUATED)
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_error err = {0};
    fixture = memmem(data, size, "generated:", 10)           ? generator
              : memmem(data, size, "kind: embedding", 15) ? embedding
              : memmem(data, size, "kind: image", 11)     ? image
              : memmem(data, size, "kind: training", 14)  ? training
                                                          : classifier;
    px_results *r = results_parse("fuzz-results.yaml", (const char *)data, size, fixture, &err);
    if (r)
        check(r);
    else if (err.code != PX_EXIT_USAGE || !err.msg[0])
        abort();
    results_free(r);
    return 0;
}
