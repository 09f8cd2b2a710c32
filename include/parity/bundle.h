/* Bundles that outlive the machine: `parity export` (everything needed to
 * explain the experiment later) and `parity repro` (one example, for a
 * backend's maintainers). Both are built in a temporary directory beside
 * the target and appear whole or not at all: renamed into place, or packed
 * with tar into FILE.tar.gz (one top-level directory, sorted, fixed owner
 * and times). Neither ever replaces an existing file or directory. Every
 * file that carries text from a run or a person is redacted
 * (include/parity/redact.h), and SHA256SUMS lists every file. */
#ifndef PARITY_BUNDLE_H
#define PARITY_BUNDLE_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/results.h"
#include "parity/story.h"

typedef struct px_bundle_in {
    const px_fixture *f;
    const px_results *res;  /* the judged evidence (run here or read) */
    const px_judgement *j;
    const px_story *story;
    const char *const *results_files; /* --results, as given */
    size_t n_results_files;
} px_bundle_in;

/* 1 when out names a .tar.gz (or .tgz) to write, 0 for a directory. */
int bundle_is_archive(const char *out);

/* parity export: the fixture and the files it names (vocabulary or
 * tokenizer.json, results: files), every results file (a run here is
 * written as results/run.yaml), report.md and report.html, each
 * environment's manifest, the journal if decisions wait in one, a README
 * and SHA256SUMS. The README lists each results file where it is (a
 * fixture's results: file beside it, the others under results/) with the
 * environments it holds, and prints the `parity check|review` commands
 * that judge them inside the bundle without libtorch: every file the
 * fixture does not name given with --results, and -e for the environments
 * with results when some have none, so nothing would run here. */
int bundle_export(const px_bundle_in *in, const char *out, px_error *err);

/* parity repro: example k as seen by the reference and environment e: a
 * one-example fixture with the same contract and pins, the vocabulary or
 * tokenizer.json, the model when it is at most 50 MB (else its path and
 * sha256 in the README), a results file with both environments' recorded
 * inputs and outputs, both manifests, and a README: expected against
 * observed, the earliest divergence, the versions, the commands that judge
 * it again and run it again. reference.yaml and observed.yaml are whole
 * results files of the one-example fixture (read back before the bundle is
 * sealed); an imported environment is runnable in it as its manifest
 * recorded it (device, executor, dtype, threads), so that the README's
 * `parity run` (with --python PYTHON / --backend-module MODULE /
 * --backend-lib LIB placeholders where it needs them) runs it again on its
 * host. -1 with *err (PX_ERR_ENV) when the reference or e has no results. */
#define PX_REPRO_MODEL_MAX (50u * 1024 * 1024)
int bundle_repro(const px_bundle_in *in, size_t k, size_t e, const char *out, px_error *err);

#endif
