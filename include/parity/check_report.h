/* Showing a judgement: text for a person at a terminal, JSON (a stable
 * shape documented in parity(1)) and TAP for CI. */
#ifndef PARITY_CHECK_REPORT_H
#define PARITY_CHECK_REPORT_H

#include <stdio.h>

#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/results.h"

#define PX_CHECK_JSON_VERSION 1

/* check --format json's keys, object by object, each with what it holds in
 * one line: X(object, key, doc). parity(1)'s JSON section is made from
 * this table (tests/man_tables.c, `make man-tables` in `make check`), and
 * tests/test_man_tables.c holds every key the writer prints to it. A new
 * key is a row here, in its object, in the order it is written. */
#define PX_CHECK_JSON_KEYS(X)                                                                                          \
    X("the object", "parity_check", "1, the version of this shape")                                                   \
    X("the object", "fixture", "the fixture's path")                                                                   \
    X("the object", "reference", "the reference environment's name, or null")                                        \
    X("the object", "met", "true when every selected environment meets the contract")                                \
    X("the object", "exit", "the exit status (see EXIT STATUS)")                                                      \
    X("the object", "warnings", "what was said before judging, strings")                                             \
    X("the object", "findings", "e.g. the reference disagrees with an expectation, strings")                         \
    X("the object", "searches", "an embedding's: what each environment, the twin first, does to the queries' "       \
                                "searches, one string each")                                                          \
    X("the object", "environments", "one object per environment the fixture names")                                 \
    X("environments[]", "name", "the environment's name")                                                             \
    X("environments[]", "role", "reference, twin, oracle, or null")                                                  \
    X("environments[]", "state", "up, down, no-results or not-selected")                                             \
    X("environments[]", "origin", "run, file or none")                                                                \
    X("environments[]", "source", "the results file, or why there are none")                                         \
    X("environments[]", "device", "as the manifest records it for results read from a file")                         \
    X("environments[]", "dtype", "likewise")                                                                          \
    X("environments[]", "threads", "as recorded, else as the fixture sets it; null when neither says")              \
    X("environments[]", "executor", "likewise")                                                                       \
    X("environments[]", "note", "the environment's own note, or null")                                               \
    X("environments[]", "met", "whether it meets the contract; null when not selected")                             \
    X("environments[]", "cut_short", "why its run stopped early, or null (see STOPPING EARLY)")                     \
    X("environments[]", "not_compared", "why a candidate was judged without a reference result (its numbers, "     \
                                        "decisions, divergence and causes not evaluated; its task checks are), "   \
                                        "or null")                                                                    \
    X("environments[]", "incomplete", "true when it does not meet the contract only for want of something (no "   \
                                      "reference, examples not evaluated): nothing is known to be wrong; exit 3") \
    X("environments[]", "ladder", "its checkpoint ladder: a list of {rung, state, detail}")                          \
    X("environments[]", "last_good", "its last good configuration, or null when none is recorded")                 \
    X("environments[]", "counts", "every verdict's name (see VERDICTS) with its count")                              \
    X("environments[]", "examples", "one object per example")                                                         \
    X("ladder[]", "rung", "the rung's name")                                                                          \
    X("ladder[]", "state", "passed, failed, not-reached or not-measured")                                            \
    X("ladder[]", "detail", "why, in words, or null")                                                                 \
    X("last_good", "host", "where it was recorded")                                                                   \
    X("last_good", "started_at", "when its run started")                                                              \
    X("last_good", "results", "its results file")                                                                     \
    X("last_good", "configuration", "the fields of the history file")                                                \
    X("last_good", "same", "whether the configuration now is that one; null when none now")                         \
    X("last_good", "changes", "what changed: a list of {field, name, last, now}")                                    \
    X("last_good", "regressed", "true when it met the contract then and does not now")                              \
    X("examples[]", "id", "the example's id")                                                                         \
    X("examples[]", "outcome", "its verdict (see VERDICTS)")                                                          \
    X("examples[]", "met", "whether that verdict meets the contract")                                                \
    X("examples[]", "not_compared", "true when it ran and was judged by its task checks only: no reference "        \
                                    "result for it")                                                                  \
    X("examples[]", "detail", "what failed, in one line (an error by its last line)")                               \
    X("examples[]", "error", "the whole text the example raised, its traceback with it, or null when it gave an "  \
                             "output or was rejected")                                                               \
    X("examples[]", "label", "the decided label, or null")                                                            \
    X("examples[]", "generated", "a generator's: null or {text, end, tokens, ids, diverged_at}")                  \
    X("generated", "text", "the text parity decoded from its ids")                                                   \
    X("generated", "end", "stop or length")                                                                          \
    X("generated", "tokens", "how many tokens it chose")                                                             \
    X("generated", "ids", "the token ids it chose, an array of integers (a stop token's included)")                 \
    X("generated", "diverged_at", "the token where it parts from the reference's, or null")                         \
    X("examples[]", "embedding", "an embedding's: {role, norm, cosine, min_cosine, search}")                         \
    X("examples[]", "image", "an image's: {psnr, ssim, mean_abs, max_abs, blank, failed, diverged_step, "             \
                             "other_noise, curve, noise_sha256}, or null")                                                             \
    X("examples[]", "training", "a training run's: {steps, loss, grad_norm, update_norm, lr, step_ms, "               \
                                "reference_loss, loss_diff, loss_step, grad_step, update_step, nonfinite_step, drop, " \
                                "ref_drop, params, startup_ms, failed}, or null")                                      \
    X("examples[]", "compare", "null, or {stat, value, threshold, pass, smallest_passing_atol, oracle_ratio}")       \
    X("examples[]", "divergence", "{stage, against, detail}; against: reference, contract, or null")                \
    X("examples[]", "cause", "precision, device, unknown, or null")                                                  \
    X("examples[]", "cause_detail", "the cause in words, with why it is unknown when it is; null when none")        \
    X("examples[]", "review", "null, or the example's review keys (see parity-fixture(5)) with applies: here, "     \
                              "other-environment, other-results or not-recorded")                                   \
    X("embedding", "role", "document or query")                                                                       \
    X("embedding", "norm", "its vector's L2 norm, or null")                                                           \
    X("embedding", "cosine", "its vector's cosine to the reference's, or null")                                      \
    X("embedding", "min_cosine", "the floor that applied, or null")                                                  \
    X("embedding", "search", "null for a document, else {k, order, top, reference_top, held, moved, note}")          \
    X("search", "k", "the window, expect.k")                                                                           \
    X("search", "order", "set or exact")                                                                              \
    X("search", "top", "its first k documents here, each {id, cosine}; null without a ranking")                     \
    X("search", "reference_top", "the same in the reference, each {id, cosine}")                                     \
    X("search", "held", "true when its first k are the reference's, false when they changed, null when not "       \
                        "compared")                                                                                   \
    X("search", "moved", "what moved, in words, or null")                                                            \
    X("search", "note", "why it has no ranking, or null")                                                          \
    X("image", "psnr", "its PSNR against the reference's picture in dB, \"inf\" when they are the same picture, "   \
                       "null when not compared")                                                                 \
    X("image", "ssim", "its SSIM against the reference's (on luma, 11x11 Gaussian window), or null")                \
    X("image", "mean_abs", "the mean absolute pixel difference, of 255, or null")                                    \
    X("image", "max_abs", "the largest absolute pixel difference, of 255, or null")                                  \
    X("image", "blank", "true when every pixel is the same colour")                                                  \
    X("image", "failed", "the compare.image checks it fails, in words (\"started from other noise\" when it "      \
                         "did), or null")                                                                            \
    X("image", "diverged_step", "the first recorded step whose latent parts beyond compare.latents, or null")       \
    X("image", "other_noise", "true when it started from other noise than the reference's (another experiment, "  \
                              "its picture not compared; divergence stage latent, diverged_step null)")          \
    X("image", "curve", "the largest |Δlatent| against the reference at each recorded step, each {step, "          \
                        "max_abs_delta}")                                                                             \
    X("image", "noise_sha256", "the sha256 of the initial noise it was handed (float32 bytes), or null")                 \
    X("curve[]", "step", "the step, from 0")                                                                          \
    X("curve[]", "max_abs_delta", "the largest absolute difference of its latent from the reference's, or null")                                                                                                   \
    X("training", "steps", "the steps it ran")                                                                        \
    X("training", "loss", "its loss at each step, before the step's update (null where not finite)")               \
    X("training", "grad_norm", "the gradients' total L2 norm at each step, before clipping")                       \
    X("training", "update_norm", "the update's total L2 norm at each step (the parameters after less before)")      \
    X("training", "lr", "the learning rate each step ran at")                                                       \
    X("training", "step_ms", "each step's time in milliseconds")                                                     \
    X("training", "reference_loss", "the reference's loss at each step, or null (the reference itself)")            \
    X("training", "loss_diff", "|loss - reference's| at each step compared, or null when not compared")             \
    X("training", "loss_step", "the first step whose loss parts beyond compare.train.loss (from 0), or null")        \
    X("training", "grad_step", "the first step whose gradient norm parts beyond compare.train.grad_norm, or null")   \
    X("training", "update_step", "the first step whose update parts beyond compare.train.update, or null")           \
    X("training", "nonfinite_step", "the first step whose loss or gradient norm is not finite, or null")             \
    X("training", "drop", "its loss's drop: the first step's less the mean of the last tenth, or null")            \
    X("training", "ref_drop", "the reference's drop, or null")                                                      \
    X("training", "params", "each tensor group's parameters at the end against the reference's, "                    \
                            "{group: ||p - p_ref|| / ||p_ref||} (estimated from sketches; null: not compared)")    \
    X("training", "startup_ms", "from the run's start to its first step (the copy, the optimizer, any process "      \
                                "group), or null")                                                                   \
    X("training", "failed", "the compare.train checks it fails, in words, or null")

/* since: each environment beside its last good configuration (history.h),
 * parallel to r->envs; NULL when not known. Text says what changed (and a
 * regression) per environment and nothing when it meets the contract as it
 * did last; JSON has "last_good" per environment; TAP diagnostics. */
void check_report_text(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since);
void check_report_json(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since,
                 int exit_code);
void check_report_tap(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since);

#endif
