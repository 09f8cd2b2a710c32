/* Writing a loaded fixture back out as a fixture file: `parity repro` (one
 * example, the same contract and pins, for a backend bug report) and
 * bundles. What is written loads back (fixture_parse) to the same contract
 * fingerprint, the same example fingerprints, environments, reviews and
 * redact patterns; emitting that again gives the same bytes. */
#ifndef PARITY_FIXTURE_EMIT_H
#define PARITY_FIXTURE_EMIT_H

#include <stddef.h>
#include <stdio.h>

#include "parity/fixture.h"

typedef struct px_emit_opts {
    const char *model_path;   /* what to write as contract.model.path (NULL: f->model_path as loaded, which is resolved against f->dir) */
    const char *vocab_path;   /* contract.input.tokenizer vocab (or file, for kind huggingface) likewise */
    const int *envs; size_t n_envs;      /* indices of the environments to keep, in this order (envs NULL: all) */
    const int *examples; size_t n_examples; /* indices of the examples to keep (NULL: all) */
    int keep_results_keys;    /* 0: leave out each environment's `results:` key */
    int keep_reviews;         /* 0: leave out each example's review: */
} px_emit_opts;

/* Write f as a fixture file (parity: 1) to o: every key the loader reads that is set (tolerances with
 * their whys, cleaning rules with theirs, redact:, each environment's settings and its own model/vocab/labels
 * overrides (their paths written as loaded, or made relative by the caller), each example with its expect,
 * why, own compare and review). A header comment line says what wrote it. Returns 0, or -1 on a write error.
 *
 * Paths (an environment's own model and vocab, an imported environment's
 * results file) are written as loaded, that is resolved against f->dir: the
 * output reads back to the same paths when it is parsed from a path without
 * a directory (fixture_parse("x.yaml", ...) run from the same working
 * directory) or when they are absolute.
 *
 * An imported environment (results:, no device) cannot be written without
 * its results: key, so keep_results_keys 0 leaves such environments out.
 * opts NULL: every environment and example, with results: and review:.
 *
 * -1 with errno EINVAL, before anything is written, when the output could
 * not load: an index out of range or given twice, or no environment left. */
int fixture_emit(FILE *o, const px_fixture *f, const px_emit_opts *opts);

#endif
