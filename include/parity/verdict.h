/* A judgement's words and shapes: the outcome of an example in an
 * environment, the stage where it first parts from the reference, the cause
 * the twin tells, an environment's checkpoint ladder, and the verdicts that
 * hold them (judge.h turns results into these). A header of its own so that
 * the kind interface of the judge (judge_kind.h) can speak of verdicts
 * below the engine that calls it. */
#ifndef PARITY_VERDICT_H
#define PARITY_VERDICT_H

#include <stddef.h>

#include "parity/compare.h"

typedef enum px_outcome {
    PX_OC_PASS,
    PX_OC_PASS_TOL,
    PX_OC_WRONG_LABEL,
    PX_OC_NUMERIC_DRIFT,
    PX_OC_BAD_SHAPE,
    PX_OC_EMPTY,
    PX_OC_NON_FINITE,   /* a NaN or an infinity in the output: never a pass */
    PX_OC_EXCEPTION,
    PX_OC_CRASH,
    PX_OC_TIMEOUT,
    PX_OC_UNSUPPORTED,
    PX_OC_REJECTED_OK,
    PX_OC_NOT_REJECTED,
    PX_OC_WRONGLY_REJECTED,
    PX_OC_NOT_EVALUATED,
    PX_OC_CONSTRAINT_VIOLATED, /* a generator's text breaks its expectation */
    PX_OC_WRONG_RANKING,  /* an embedding's query: its search misses a document
                             its expect.top names within k, or (order exact)
                             ranks them otherwise */
    PX_OC_RANKING_CHANGED, /* an embedding's query in a candidate: its first k
                              differ from the reference's (in order, for
                              order exact), whatever its numbers */
    PX_OC_KNOWN_DEFECT,   /* an example a reviewer decided `defect` (the
                             model is wrong on it, known and kept) that
                             fails here as it does in the reference: the
                             reference itself, or a candidate that parts
                             from it at no stage. Meets the contract; the
                             detail keeps the outcome it stands for. A
                             candidate that parts keeps its own outcome. */
    PX_OC_BLANK_IMAGE,    /* an image that is one colour (black, say):
                             the pipeline made nothing */
    PX_OC_IMAGE_CHANGED,  /* a candidate's image fails a compare.image
                             check against the reference's: another picture */
    PX_OC_LOSS_NOT_FINITE, /* a training run's loss (or gradient norm) is a
                              NaN or an infinity at some step */
    PX_OC_NOT_LEARNING,   /* a training run whose loss does not go down
                             when the reference's does (compare.train
                             .learning), or (any environment) is above its
                             expect.loss_at_most: it silently learns nothing */
    PX_OC_CURVE_CHANGED,  /* a candidate's training run parts from the
                             reference's beyond compare.train (its loss,
                             gradient norm or update at some step, or a
                             tensor group's parameters at the end) */
    PX_OC_COUNT
} px_outcome;

const char *outcome_name(px_outcome o);
/* What the outcome means, in one line (the report's legend). */
const char *outcome_meaning(px_outcome o);
/* 1 when the outcome meets the contract. */
int outcome_met(px_outcome o);
/* What parity(1)'s VERDICTS list says beyond the meaning (plain text), or
 * NULL. */
const char *outcome_more(px_outcome o);

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
    PX_DIV_GENERATED,   /* a generator's: its chosen tokens part from the
                           reference's (diverged-at-token N) */
    PX_DIV_RANKING,     /* an embedding query's: its first k documents part
                           from the reference's ("rank 2 and 3 swap") */
    PX_DIV_LATENT,      /* an image's: a recorded latent parts beyond
                           compare.latents (diverged at step N) */
    PX_DIV_STEP,        /* a training run's: the first step whose loss
                           parts beyond compare.train.loss (or, the loss
                           within, its gradient norm or update) */
    PX_DIV_COUNT
} px_div;
const char *div_name(px_div d);

/* Why a candidate parts from the reference, told by the bfloat16 twin (role
 * twin): precision when the twin parts the same way, the device when the
 * twin keeps to the reference; unknown when the twin cannot tell (it did
 * not pass "forward ran", is down, has no results, has no result for the
 * example): judgement_cause_words says why. None: nothing to attribute
 * (no change, no reference, no twin in the fixture). */
typedef enum px_attr { PX_ATTR_NONE, PX_ATTR_PRECISION, PX_ATTR_DEVICE, PX_ATTR_UNKNOWN } px_attr;
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

#define PX_MAX_MATCH_SPANS 8

/* A generator's verdict's own part (allocated only for a generator's
 * examples: 10 000 examples in 4 environments hold 40 000 verdicts). */
typedef struct px_text_verdict {
    long diverged_at;     /* PX_DIV_GENERATED: the step (0-based) where the
                             generated tokens part, -1 otherwise */
    /* The constraint spans in its text (bytes), for display: what each
     * must_match pattern matched (matches: at, end pairs, the first
     * PX_MAX_MATCH_SPANS patterns' in their order; NULL when none), and
     * what a must_not_match one matched (the violation; -1 none). */
    long *matches;
    size_t n_matches;
    long bad_at, bad_end;
} px_text_verdict;

/* An embedding's verdict's own part (allocated for every example of an
 * embedding, NULL otherwise; judgement_free frees it). Its vector is
 * held to the reference's by the per-element tolerance (compare.vectors,
 * or the example's own; without one, exactly, unless a
 * similar_to_reference is its only rule: then by the cosine alone) and by
 * min_cosine; v->cmp, v->stat hold the element comparison ("cosine" when
 * there was none). A query's outcome, first that applies: its status, a
 * non-finite element ("element N is nan"), its shape, wrong-ranking (its
 * search misses its expect.top), ranking-changed (a candidate's first k
 * are not the reference's: held 0), numeric-drift (with ", but its top k
 * held" when held 1), pass-within-tolerance, pass. A query without a
 * ranking here (a document has no vector: rank_note) is not-evaluated
 * unless its own vector failed. */
typedef struct px_embed_verdict {
    double cosine;       /* this vector against the reference environment's
                            for the example; NAN when not compared */
    double min_cosine;   /* the similar_to_reference floor that applied; NAN
                            when none */
    double norm;         /* this vector's L2 norm; NAN when no vector */
    /* A query's search in this environment (role query, its vector and
     * every document's here): the documents by cosine to the query, best
     * first, ties by fixture order. n_ranked 0: no ranking (rank_note says
     * why, e.g. a document raised here). */
    size_t n_ranked;
    long *doc;           /* n_ranked example indices */
    double *score;       /* their cosines to the query */
    int k;               /* the window: expect.k */
    int held;            /* a candidate's first k against the reference's: 1
                            the same, 0 changed, -1 not compared */
    char *moved;         /* what moved against the reference's first k, in
                            words ("rank 2 and 3 swap: go-night, chess-club";
                            "lantern-walk enters at rank 3, film-night
                            leaves"); held under order: set, the order
                            that changed within the first k ("rank 4 and 5
                            swap: ..."); NULL when nothing did or not
                            compared */
    char *rank_note;     /* why there is no ranking; NULL when there is */
} px_embed_verdict;

/* An image's verdict's own part (NULL for other kinds): its checks
 * against the reference's image (NAN where not compared), and the path. */
typedef struct px_image_verdict {
    double psnr, ssim, mean_abs, max_abs; /* on the 8-bit images */
    int blank;            /* every pixel the same */
    long diverged_step;   /* PX_DIV_LATENT: the first recorded step beyond
                             compare.latents; -1 none or not compared. -1
                             with div PX_DIV_LATENT: it started from other
                             noise than the reference (the latent before
                             step 0; another experiment, nothing compared) */
    size_t n_curve;       /* the divergence curve: per recorded step */
    int *curve_step;      /* its step */
    double *curve;        /* max |a - b| of its latent against the reference's */
    char *failed;         /* the checks that failed, in words; NULL none */
} px_image_verdict;

/* A training run's verdict's own part (NULL for other kinds): the curve
 * against the reference's step by step (NAN where not compared) and the
 * first step each quantity parts; the groups' relative difference. */
typedef struct px_train_verdict {
    size_t n_steps;       /* compared: the shorter run's steps */
    double *loss_diff;    /* |a - b| per step */
    long loss_step, grad_step, update_step; /* first step beyond its
                             compare.train tolerance, 0-based; -1 none or
                             not compared */
    long nonfinite_step;  /* the first step whose loss or gradient norm is
                             not finite; -1 none */
    double drop, ref_drop; /* the loss's drop here and the reference's
                             (compare.train.learning); NAN not known */
    size_t n_groups;
    char **group;         /* names (borrowed from the results) */
    double *param_rel;    /* estimated ||p - p_ref|| / ||p_ref|| per group;
                             NAN where not compared */
    char *failed;         /* the checks that failed, in words; NULL none */
    char *own_cause;      /* a candidate on the reference's own device: the
                             twin is not asked, its cause is told by what
                             differs (its precision recipe: own_attr
                             precision; nothing but its plan: unknown), in
                             words; NULL otherwise */
    int own_attr;         /* px_attr of own_cause */
} px_train_verdict;

typedef struct px_verdict {
    /* (Ordered to leave no padding.) */
    px_outcome outcome;
    int has_cmp;          /* numbers compared with the reference */
    unsigned char has_oracle;
    unsigned char not_compared; /* a candidate's example that ran, judged by
                                   its task checks only: no reference result
                                   (the environment's not_compared), or none
                                   for this example (the reference did not
                                   run it, or failed it). Its numbers,
                                   decision against the reference and cause
                                   are not evaluated. (Two bytes where an int
                                   was: the struct keeps its size.) */
    px_div div;           /* earliest divergence from the reference, or from
                             what the contract says (div_contract) */
    int div_contract;     /* 1: the stage differs from the contract (pins,
                             label map, parity's own input processing), 0:
                             from the reference */
    px_attr attr;
    char *detail;         /* why, in one line */
    const char *stat;     /* the statistic used */
    char *div_detail;
    px_cmp cmp;
    double oracle_ratio;
    px_text_verdict *text; /* a generator's (NULL: a classifier's) */
    px_embed_verdict *embed; /* an embedding's (NULL otherwise) */
    px_image_verdict *image; /* an image's (NULL otherwise) */
    px_train_verdict *train; /* a training run's (NULL otherwise) */
} px_verdict;

/* What a benchmark's outputs say against the contract (parity bench;
 * bench_judge in bench.h fills it). */
typedef struct px_bench_verdict {
    int comparable;  /* 1: no output of the benchmark changed its example's
                        verdict (met or not) from the run's */
    char *broken;    /* which did, in words; NULL when none */
    char *batching;  /* batch:N: the examples whose stacked outputs differ from
                        the run's (one example per forward) beyond the
                        contract's tolerance, or decide another label: the
                        batching changed the numbers; NULL when none */
    char *curve;     /* train-step:N: where its loss curve parts from the
                        reference's beyond contract.train's tolerance (or,
                        in the reference, is not finite), with both losses
                        and the why; comparable is then 0. NULL when none */
    char *curve_note; /* train-step:N: why the curve was not compared (no
                         reference curve of as many steps, no contract.train);
                         NULL when it was, or for other endpoints */
} px_bench_verdict;

typedef struct px_env_verdict {
    px_verdict *ex;
    px_rung_state rung[PX_RUNG_COUNT];
    char *rung_detail[PX_RUNG_COUNT];
    int counts[PX_OC_COUNT];
    int is_reference, down, met;
    int selected;         /* 0: left out with -e: not judged, not counted */
    int absent;           /* 1: the contract names it, nobody provided results */
    char *not_compared;   /* a candidate judged without a reference result
                             (the reference not selected, without results,
                             down): why, e.g. "the reference environment
                             reference is not selected (-e)". Its numbers,
                             decision, earliest divergence from the
                             reference and cause are not evaluated; its
                             task checks (label, any_of, rejection,
                             constraints) are; it does not meet the
                             contract ("contract satisfied" not reached).
                             NULL: compared, the reference, or not judged */
    size_t not_evaluated; /* examples without a result in an environment
                             that ran (a shard's file, a run cut short) */
    int incomplete;       /* 1: it does not meet the contract only for want
                             of something (a reference to compare with,
                             examples not evaluated): no rung failed, so
                             nothing is known to be wrong: never a
                             regression, never a pass */
    px_bench_verdict *bench; /* one per benchmark of its results (bench_judge) */
    size_t n_bench;
} px_env_verdict;

typedef struct px_judgement {
    px_env_verdict *envs; /* parallel to the results' environments */
    size_t n_envs, n_examples;
    char **findings;      /* e.g. the reference disagrees with the expectation */
    size_t n_findings;
    int all_met;          /* every selected environment meets the contract */
    int any_down;         /* some selected environment could not run or has
                             no results */
    int any_incomplete;   /* some selected environment was not judged in
                             full: down, without results, not compared (no
                             reference), or partial (judgement_env_incomplete):
                             check's exit status 3 */
    int twin;             /* the twin (role twin) in r->envs, -1 when the
                             fixture has none */
    char *twin_dtype;     /* the twin's dtype, as its cause words name it
                             ("the float16 twin"); NULL when none */
    char *twin_unusable;  /* why the twin cannot tell precision from the
                             device ("the twin cpu-bf16 did not pass 'forward
                             ran': ..."); NULL when it can or there is none */
    const struct px_judge_kind *kind; /* the kind it was judged as
                                         (judge_kind.h); NULL: nothing judged */
} px_judgement;

#endif
