/* The judge's own, shared by its files (src/judge/): the context one set
 * of results is judged in, and the stages each concept's file gives the
 * others. Not for use outside src/judge/. (It includes no header of the
 * engine's, judge.h: the engine's files include this one.) */
#ifndef PARITY_JUDGE_INT_H
#define PARITY_JUDGE_INT_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/judge_kind.h"
#include "parity/results.h"
#include "parity/verdict.h"

typedef struct px_judge_ctx {
    const px_fixture *f;
    const px_results *r;
    int ref, twin, oracle; /* indices into r->envs, -1 when absent (twin: when
                              the fixture has none; twin_bad says whether it
                              can be used) */
    px_error *err;
    const char *no_ref;    /* why there is no reference result; NULL: there is */
    const char *twin_bad;  /* why the twin cannot tell a cause; NULL: it can */
    const px_judgement *out;
    const px_judge_kind *kind; /* the fixture's kind's part */
} jctx;

/* ---- judge.c: the engine's look-ups ---- */

/* Environment e's result for example k; NULL when e is -1. */
const px_example_result *judge_result_at(const jctx *j, int e, size_t k);
/* Something was recorded for the example: it ran, or was rejected. */
int judge_recorded(const px_example_result *x);
/* The last line of an error's text (malloc'd). */
char *judge_last_line(const char *s);
/* Both gave no output, the same way (status and the error's last line). */
int judge_failed_alike(const px_example_result *a, const px_example_result *b);
/* An output's shape in words, "[1,3]" (malloc'd). */
char *judge_shape_words(const px_example_result *x);

/* ---- pattern.c: the contract's patterns ---- */

int pattern_match(const px_fixture *f, const px_pattern *p, const char *subject, px_error *err);
int pattern_span(const px_fixture *f, const px_pattern *p, const char *subject, long *at, long *end, px_error *err);

/* ---- numbers.c: an output's numbers against the reference's ---- */

const px_tolerance *numbers_tolerance(const px_fixture *f, const px_example *ex);
long numbers_first_non_finite(const px_example_result *x);
int numbers_ok(const px_fixture *f, const px_example *ex, const px_example_result *x, const px_example_result *ref,
               const px_example_result *oracle, px_verdict *v);
char *numbers_words(const px_verdict *v, const px_example_result *x, const px_example_result *ref,
                    const px_example_result *oracle, const px_tolerance *t, int pass, const char *noun);

/* ---- diverge.c: the earliest stage an environment parts ---- */

px_div diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail, int *vs_contract);
/* names: what each value means (a classifier's labels), or NULL. */
px_div diverge_values(const jctx *j, size_t e, size_t k, const px_verdict *v, const char *noun, char *const *names,
                      size_t n_names, char **detail);
char *diverge_labels(char *const *a, size_t na, char *const *b, size_t nb, const char *here, const char *there);
char *diverge_input(const jctx *j, size_t e, size_t k, px_div *stage);

/* ---- ladder.c: an environment's checkpoint ladder ---- */

void ladder(const jctx *j, size_t e, px_env_verdict *ev);

/* ---- attribute.c: precision or the device ---- */

void attribute_env(const jctx *j, size_t e, px_env_verdict *ev);
char *attribute_twin_unusable(const jctx *j, const px_judgement *out);
px_attr attribute_twin_first(const jctx *j, size_t e, size_t k, const px_example_result **tw);
char *attribute_unknown_words(const px_judgement *j, size_t k, const char *what);
char *attribute_words(const px_judgement *j, size_t e, size_t k, const px_judge_kind *kind);

#endif
