/* Gathering what is judged: one result per environment the contract names,
 * from exactly one place each. A run here, a results file given with
 * --results (any number), or the file a fixture environment names with
 * `results:` (a TPU run, captured on the TPU host). An environment left out
 * with -e is kept, marked not selected; one that nobody provided is kept
 * with the reason, and judged not-evaluated. Results read from a file are
 * then checked against what parity itself makes of the fixture (cleaned
 * text, token ids) exactly as a run here is. */
#ifndef PARITY_EVIDENCE_H
#define PARITY_EVIDENCE_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"

typedef struct px_sources {
    const char *const *results; /* --results files, in the order given */
    size_t n_results;
    const char *const *envs;    /* -e names; none: every environment */
    size_t n_envs;
    int no_run;                 /* --no-run: what no file provides is not
                                   run here but not evaluated */
} px_sources;

/* One result per fixture environment, in the fixture's order (envs[i] is
 * fixture environment i; reference: the fixture's). Origin FILE for each
 * environment a file provides; otherwise origin RUN (pending) for one that
 * can run here (it has a device), unless no_run; origin NONE otherwise,
 * with the reason in source. So `check FIXTURE --results tpu.yaml` runs
 * the reference and the twin here and judges the tpu beside them.
 * NULL with *err (PX_EXIT_USAGE) for an -e name the fixture lacks, a file
 * that cannot be read or is not a results file (a `results:` file that does
 * not exist yet leaves its environment NONE), one file given twice, or two
 * places for one environment (both named). inputs: NULL, or the array
 * evidence_inputs takes next (one per fixture environment, zeroed): a
 * file's environment then has its input processing made while it is read,
 * and each example whose recorded input is exactly parity's borrows it
 * instead of keeping a copy (results_load_with), so evidence_inputs_close
 * comes after the last use of the results. */
px_results *evidence_gather(const px_fixture *f, const px_sources *s, px_env_input *inputs, px_error *err);

/* 1 when some environment of res is to run here. */
int evidence_runs(const px_results *res);

/* Input processing for every selected environment with results, into
 * inputs[] (one per environment of res, which holds every fixture
 * environment in order as evidence_gather makes it; zeroed, or as
 * evidence_gather left it): with the model's pin
 * checked for one that runs here, without the model for one read from a
 * file; then each one's expect points at its processed examples. One read
 * from a file whose vocabulary (path and pin) another one has shares that
 * one's examples (its inputs[] entry stays closed). -1 with *err
 * (PX_EXIT_USAGE) when a vocabulary, pin or cleaning rule fails. */
int evidence_inputs(const px_fixture *f, px_results *res, px_env_input *inputs, px_error *err);
void evidence_inputs_close(const px_fixture *f, const px_results *res, px_env_input *inputs);
/* The same without results (evidence_gather failed after opening some). */
void evidence_inputs_close_all(const px_fixture *f, px_env_input *inputs);

#endif
