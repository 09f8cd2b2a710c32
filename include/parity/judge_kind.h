/* The judge's part of a kind of model's interface (kind.h names the
 * others): how an example of the kind is judged, where its output first
 * parts from the reference's, what the twin says of a change, and the
 * words its verdicts use. The engine (judge.c) and its shared stages
 * (the ladder, divergence, attribution) ask this table and never which
 * kind they hold; each kind is one file, src/judge/judge_<kind>.c, and a
 * row in src/judge/judge_kind.c's table.
 *
 * A new kind writes each function below (none may be NULL unless it says
 * so) and adds its row; the places it touches elsewhere are kind.h's list. */
#ifndef PARITY_JUDGE_KIND_H
#define PARITY_JUDGE_KIND_H

#include <stddef.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "parity/verdict.h"

/* What the engine knows while it judges one set of results (the
 * reference, the twin, the oracle, the judgement so far): defined in
 * src/judge/judge_int.h, opaque to everyone else. */
struct px_judge_ctx;

typedef struct px_judge_kind {
    /* Example k's verdict's own part for the kind (px_verdict.text, .embed),
     * set up before it is judged: 0, or -1 out of memory. NULL: none. */
    int (*verdict_init)(const px_fixture *f, size_t k, px_verdict *v);
    /* Frees what verdict_init made (NULL: nothing). */
    void (*verdict_free)(px_verdict *v);
    /* Example k of environment e, which ran (status ok): its outcome and
     * detail in v. 0, or -1 with the context's error (a pattern that does
     * not compile, out of memory). */
    int (*judge)(const struct px_judge_ctx *j, size_t e, size_t k, px_verdict *v);
    /* The kind's stages of earliest divergence from the reference, asked
     * once its model, label map, input and output shape agree: its values,
     * then its own stage (the decision, the generated tokens, the ranking).
     * PX_DIV_NONE when none parts; else the stage, with *detail (malloc'd). */
    px_div (*diverge)(const struct px_judge_ctx *j, size_t e, size_t k, px_verdict *v, char **detail);
    /* The cause of candidate e's change on example k (both it and the
     * reference `ref` ran), told by the twin: PX_ATTR_NONE when nothing
     * changed that the twin could tell. */
    px_attr (*attribute)(const struct px_judge_ctx *j, size_t e, size_t k, const px_example_result *ref,
                         const px_verdict *v);
    /* The cause in words (judgement_cause_words) where the kind has its
     * own (an embedding's changed search); NULL: the shared words with
     * twin_same and twin_other below. */
    char *(*cause_words)(const px_judgement *j, size_t e, size_t k);
    /* What the twin does to a changed decision, in the cause's words:
     * "changes it the same way" (precision), "keeps the reference's
     * decision" (the device). */
    const char *twin_same, *twin_other;
    /* The "forward ran" rung's words, when every example ran: "every
     * example's output is [1,3]" (malloc'd); and, when some were not
     * evaluated, what every evaluated example's output is ("[1,labels]"). */
    char *(*forward_words)(const px_fixture *f, const px_env_result *er);
    const char *partial_shape;
    /* The label a benchmark's output (n values) decides, as the run's
     * own would; -1 when the kind's output decides none (a vector). */
    int (*bench_label)(const double *out, size_t n);
} px_judge_kind;

/* The fixture's kind's part (never NULL). */
const px_judge_kind *judge_kind_of(const px_fixture *f);

/* The rows, one a kind (src/judge/judge_<kind>.c). */
extern const px_judge_kind judge_classifier;
extern const px_judge_kind judge_generator;
extern const px_judge_kind judge_embedding;
extern const px_judge_kind judge_image;
extern const px_judge_kind judge_training;

#endif
