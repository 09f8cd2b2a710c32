/* parity bench's second question, kept apart from the first: is this
 * execution path fast enough, while it still gives the answers the contract
 * asks for. The figures come from the runner (px_bench in results.h); here
 * the outputs a benchmark produced are judged against the contract, so that
 * figures from a path that changed the answers are never compared. */
#ifndef PARITY_BENCH_H
#define PARITY_BENCH_H

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/results.h"

/* Each benchmark's verdict (px_env_verdict.bench) and each environment's
 * performance rung, from the run's judgement j (judge_results, which leaves
 * them to this): a benchmark's farthest outputs (px_bench.out) take the
 * place of the run's and are judged as check judges them, and compared
 * with j; the rung is measured when a benchmark ran and none of its outputs
 * changed a verdict, and never changes whether the contract is met (the two
 * questions stay apart). -1 with *err, j freed, when the judging cannot be
 * done (a pattern that does not compile, no memory). */
int bench_judge(const px_fixture *f, const px_results *r, px_judgement *j, px_error *err);

/* train-step:N: judge bench `bench` of environment `env`'s loss curve
 * against the reference environment's train-step:N curve, step by step:
 * |a - b| <= contract.train's atol + rtol * |b|; the reference's own curve
 * only for being finite. Fills v->curve (a break: the first step that
 * parts, both losses, the why; comparable becomes 0) or v->curve_note (why
 * nothing was compared). -1 only when out of memory. */
int bench_judge_curve(const px_fixture *f, const px_results *r, size_t env, size_t bench, px_bench_verdict *v,
                      px_error *err);

/* The endpoint in words: "train step, 5 examples per step, SGD lr 0.05,
 * preparation outside" (malloc'd); NULL for a forward endpoint. */
char *bench_train_words(const px_bench *b);

/* One line of an environment's figures for an endpoint: what was timed and
 * whether preparation is inside it, in words (malloc'd). */
char *bench_line(const px_bench *b);

#endif
