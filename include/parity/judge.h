/* The contract engine: turns what each environment did (px_results) into
 * verdicts. Per example and environment one outcome, never collapsed into
 * "failed"; per example the earliest stage where an environment parts from
 * the reference; per environment a checkpoint ladder; and, where a twin
 * runs, whether a changed decision is precision's doing or the device's.
 * Works only from what the results record, so results made elsewhere are
 * judged the same way. */
#ifndef PARITY_JUDGE_H
#define PARITY_JUDGE_H

#include "parity/compare.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/results.h"

typedef enum px_outcome {
    PX_OC_PASS,
    PX_OC_PASS_TOL,
    PX_OC_WRONG_LABEL,
    PX_OC_NUMERIC_DRIFT,
    PX_OC_BAD_SHAPE,
    PX_OC_EMPTY,
    PX_OC_EXCEPTION,
    PX_OC_CRASH,
    PX_OC_TIMEOUT,
    PX_OC_UNSUPPORTED,
    PX_OC_REJECTED_OK,
    PX_OC_NOT_REJECTED,
    PX_OC_WRONGLY_REJECTED,
    PX_OC_NOT_EVALUATED,
    PX_OC_COUNT
} px_outcome;

const char *outcome_name(px_outcome o);
const char *outcome_meaning(px_outcome o);
/* 1 when the outcome meets the contract. */
int outcome_met(px_outcome o);

/* Stages of earliest divergence, in the order they are compared. */
typedef enum px_div {
    PX_DIV_NONE,
    PX_DIV_MODEL,
    PX_DIV_LABELS,
    PX_DIV_CLEAN,
    PX_DIV_TOKENS,
    PX_DIV_SHAPE,
    PX_DIV_VALUES,
    PX_DIV_DECISION,
    PX_DIV_COUNT
} px_div;
const char *div_name(px_div d);

typedef enum px_attr { PX_ATTR_NONE, PX_ATTR_PRECISION, PX_ATTR_DEVICE } px_attr;
const char *attr_name(px_attr a);

typedef enum px_rung {
    PX_RUNG_DEVICE,   /* device recognised */
    PX_RUNG_MODEL,    /* model loaded, revision matches */
    PX_RUNG_INPUT,    /* input processed */
    PX_RUNG_FORWARD,  /* forward ran with the contract's shape */
    PX_RUNG_CONTRACT, /* contract satisfied */
    PX_RUNG_PERF,     /* performance measured (not yet) */
    PX_RUNG_COUNT
} px_rung;
typedef enum px_rung_state { PX_RS_PASSED, PX_RS_FAILED, PX_RS_NOT_REACHED, PX_RS_NOT_MEASURED } px_rung_state;
const char *rung_name(px_rung r);
const char *rung_state_name(px_rung_state s);

typedef struct px_verdict {
    px_outcome outcome;
    char *detail;         /* why, in one line */
    int has_cmp;          /* numbers compared with the reference */
    px_cmp cmp;
    const char *stat;     /* the statistic used */
    int has_oracle;
    double oracle_ratio;
    px_div div;           /* earliest divergence from the reference */
    char *div_detail;
    px_attr attr;
} px_verdict;

typedef struct px_env_verdict {
    px_verdict *ex;
    px_rung_state rung[PX_RUNG_COUNT];
    char *rung_detail[PX_RUNG_COUNT];
    int counts[PX_OC_COUNT];
    int is_reference, down, met;
} px_env_verdict;

typedef struct px_judgement {
    px_env_verdict *envs; /* parallel to the results' environments */
    size_t n_envs, n_examples;
    char **findings;      /* e.g. the reference disagrees with the expectation */
    size_t n_findings;
    int all_met, any_down;
} px_judgement;

/* Judge; -1 with *err when a pattern of the fixture does not compile. */
int judge_results(const px_fixture *f, const px_results *r, px_judgement *out, px_error *err);
void judgement_free(px_judgement *j);

#endif
