/* The contract engine: turns what each environment did (px_results) into
 * verdicts. Per example and environment one outcome, never collapsed into
 * "failed"; per example the earliest stage where an environment parts from
 * the reference or from the contract; per environment a checkpoint ladder;
 * and, where a twin runs, whether a changed decision is precision's doing
 * or the device's. Works from what the results record, checked against
 * what the contract pins and what parity's own input processing gives
 * (px_env_result.expect), so results made elsewhere are judged exactly as
 * strictly as a run here.
 *
 * An environment meets the contract when every rung of its ladder up to
 * "contract satisfied" passed: its device and dtype are the ones it claims,
 * its recorded model revision and label map are its pinned ones, its
 * vocabulary and every example's cleaned text and token ids are what the
 * contract makes of them, every forward ran with the contract's shape,
 * every example meets its expectation, and it runs the contract's own model,
 * vocabulary and label map (an environment that overrides one runs a
 * different task: it never meets the contract, whatever its labels).
 *
 * The verdicts' types and words are verdict.h's; each kind of model's part
 * of the judging is behind judge_kind.h. */
#ifndef PARITY_JUDGE_H
#define PARITY_JUDGE_H

#include "parity/compare.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/results.h"
#include "parity/verdict.h"

/* Where document doc (an example index) stands in a search, 0 first, among
 * its first `within` ranks (SIZE_MAX: all of them); -1 when not there or
 * em is NULL. */
long embed_rank_of(const px_embed_verdict *em, long doc, size_t within);

/* Not judged in full: down, without results, not compared with the
 * reference, or partial (px_env_verdict.incomplete). Exit status 3. */
int judgement_env_incomplete(const px_env_verdict *ev);

/* "not compared: no reference (why)" for environment e (malloc'd); NULL
 * when it was compared (or is the reference, or was not judged). */
char *judgement_not_compared_words(const px_judgement *j, size_t e);

/* Example k's cause in environment e, in words (malloc'd): "precision (the
 * bfloat16 twin changes it the same way)" (the twin named by its own
 * dtype), "device (the twin keeps the
 * reference's decision)", "unknown: the twin cpu-bf16 did not pass 'forward
 * ran': ..."; NULL when the verdict has none (attr PX_ATTR_NONE). */
char *judgement_cause_words(const px_judgement *j, size_t e, size_t k);

/* Does a review decision, made on environment `env` when its results for
 * the example hashed to `results`, apply to what environment e recorded
 * for example `id` now? A decision made while looking at the CPU bfloat16
 * twin never silently covers a TPU's results imported later. */
typedef enum px_fit {
    PX_FIT_NONE,          /* no decision */
    PX_FIT_HERE,          /* made on this environment's results as they are */
    PX_FIT_OTHER_ENV,     /* made on another environment */
    PX_FIT_OTHER_RESULTS, /* made on this environment, on results since changed */
    PX_FIT_UNKNOWN,       /* the decision does not say what it was made on */
} px_fit;
px_fit decision_fit(const char *decision, const char *env, const char *results, const px_env_result *e,
                    const px_example_result *x, const char *id);
/* In words, e.g. "accepted on cpu-bf16, not yet on tpu" (malloc'd). */
char *decision_words(px_fit fit, const char *decision, const char *env, const char *here);
const char *fit_name(px_fit fit);

/* Judge; -1 with *err when a pattern of the fixture does not compile.
 * Benchmarks are left alone (the performance rung not measured, no
 * px_env_verdict.bench): bench_judge (bench.h) judges them from this. */
int judge_results(const px_fixture *f, const px_results *r, px_judgement *out, px_error *err);
void judgement_free(px_judgement *j);

#endif
