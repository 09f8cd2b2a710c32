/* What a comparison shows, told for someone who was not there: one content
 * model for `parity report` (Markdown, HTML) and the review screen's
 * summary, so that the screen and the report never say different things.
 *
 * Built once from the fixture, the results (run here or recorded
 * elsewhere), their judgement and any decisions still waiting in the
 * journal. In order: the task and the verdict; each environment named for
 * what it is (the reference is "reference, not truth"; a twin by its own
 * device and dtype, "CPU float16 twin: ..., not the target device"; its
 * threads, executor and its own note beside); the contract in brief (pins, the
 * cleaning rules and the tolerances with their whys, the rule for
 * ambiguous examples); each example in each environment; the ladders; what
 * was not evaluated; the decisions not yet written. Every text that came
 * from a run, a file or a person has been redacted (include/parity/redact.h);
 * how many values were is counted, never shown. */
#ifndef PARITY_STORY_H
#define PARITY_STORY_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/imagecmp.h"
#include "parity/journal.h"
#include "parity/judge.h"
#include "parity/results.h"

typedef struct px_strs {
    char **v;
    size_t n;
} px_strs;

typedef struct px_story_env {
    char *name;
    char *what;        /* what it is, in words: "reference, not truth",
                          "CPU float16 twin: the target's float16 numerics
                          on the CPU, not the target device", "candidate:
                          cpu float32", ...; then "; note: " and the
                          environment's own note (redacted) when it has one */
    char *device, *device_name, *dtype, *executor, *torch, *backends, *host, *date; /* "" when unknown */
    char *threads;     /* "2": the threads it ran with (recorded, else the
                          fixture's); "" when not known */
    char *settings;    /* precision settings in force ("tf32 off, matmul
                          highest"), "" when none recorded */
    char *source;      /* "run here", "results file PATH", or why there are none */
    char *state;       /* "meets the contract", "does NOT meet the contract",
                          "not evaluated: ...", "not selected (-e)" */
    int selected, evaluated, met, is_reference;
    char *counts;      /* "7 pass, 1 pass-within-tolerance"; "" when none */
    px_rung_state rung[PX_RUNG_COUNT];
    char *rung_detail[PX_RUNG_COUNT]; /* NULL unless failed */
    /* Against its last good configuration (history.h, the file beside the
     * fixture that check keeps): one line, NULL when there is nothing to
     * say (never met the contract and not evaluated, or met it now with
     * no history yet); what differs, one field a line ("dtype: float32 →
     * bfloat16"). */
    char *last_good;
    int regressed;     /* it met the contract before, not now */
    px_strs changed;
} px_story_env;

/* A generator's text in pieces to show differently (bytes into the
 * text): what a must_match pattern matched, what a must_not_match one
 * matched (the violation), the first token that parts from the
 * reference's. Pieces are in order, cover the whole text and cut it only
 * between code points; a violation wins over a divergence over a match. */
typedef enum px_span_kind { PX_SPAN_PLAIN, PX_SPAN_MATCH, PX_SPAN_BAD, PX_SPAN_DIVERGED } px_span_kind;

typedef struct px_span {
    size_t at, end;
    px_span_kind kind;
} px_span;

#define PX_MAX_SPANS (2 * (PX_MAX_MATCH_SPANS + 2) + 1)

/* text cut into pieces by the verdict's spans (judge.h: the matches, at
 * most PX_MAX_MATCH_SPANS at, end pairs; bad_at/end, bytes, -1 none) and
 * the token where it parts from the
 * reference (diverged_at, -1 none: with the chars vocabulary a token is
 * one code point of the text, so it is the diverged_at-th code point,
 * clamped to the text). A span out of the text or not on code point
 * boundaries is left out. Returns the pieces written to out. */
size_t story_spans(const char *text, const long *matches, size_t n_matches, long bad_at, long bad_end,
                   long diverged_at, px_span out[PX_MAX_SPANS]);

/* contract.generate in words: "greedy, at most 48 new tokens, stops at
 * '[EOS]'" ('\n' and the like escaped). */
void story_generate_words(const px_generate *g, char *buf, size_t size);

/* A training run's figures in one environment (a copy: one allocation,
 * the arrays after the struct): its loss and the other per-step figures
 * (NAN where not recorded), where it parts from the reference's (the
 * judge's steps, -1 none or not compared), its drop and the reference's,
 * and its parameters' worst group against the reference's. */
typedef struct px_story_train {
    size_t n;          /* steps */
    double *loss, *grad_norm, *update_norm, *lr, *step_ms;
    double startup_ms; /* NAN: not recorded */
    long loss_step, grad_step, update_step, nonfinite_step;
    double drop, ref_drop; /* NAN: not known */
    char worst_group[64]; /* "" none compared */
    double worst_rel;
    int processes;
} px_story_train;

/* One example in one environment. */
typedef struct px_story_cell {
    int present;       /* 0: the environment was not selected or has no results */
    px_outcome outcome;
    int met;
    int not_compared;  /* its task checks were judged, its numbers never
                          compared: no reference (met is 0 then) */
    char *label;       /* the decided label, NULL when none */
    double *probs;     /* softmax of the output, one per label (NULL: none) */
    size_t n_probs;
    char *detail;      /* the verdict in one line */
    int has_diff;      /* compared with the reference under a tolerance */
    double diff, limit; /* the statistic and what the tolerance allows */
    char *diff_words;  /* "max |Δlogit| 0.0123 within 0.05 (atol 0.05, rtol 0.01)";
                          a generator's (has_diff 0): "diverged at token 4" or
                          "the same tokens" */
    char *divergence;  /* earliest divergence, with what it parts from; NULL when none */
    char *cause;       /* precision or device, in words; NULL when not known */
    /* A generator's: the generated text (redacted; NULL when nothing was
     * generated), how it ended ("stop", "length") after how many tokens,
     * and its pieces to mark (one plain piece when anything in it was
     * redacted: the spans were found in the text before). */
    char *generated;
    const char *gen_end;
    size_t gen_tokens;
    long gen_diverged; /* the token where it parts from the reference's, -1 none */
    px_span spans[PX_MAX_SPANS];
    size_t n_spans;
    /* An embedding's query: its search here beside the reference's, what
     * moved, its vector's cosine to the reference's (story_search_words);
     * NULL for a document, or when not judged as a query. */
    char *search;
    /* An image's: the picture it made, 8-bit (imagecmp.h), for the HTML
     * report to show; NULL when none (another kind, no output, not
     * finite). */
    px_image8 *image;
    /* A training run's figures (NULL: another kind, or it did not run). */
    px_story_train *train;
} px_story_cell;

typedef struct px_story_example {
    char *id, *kind, *why, *text; /* why: NULL when not written */
    char *expect;      /* "film", "any of film, talk", "rejected (reason ~ empty)" */
    px_story_cell *cells; /* parallel to the story's envs */
    char *decision, *note, *by, *at; /* the fixture's review; NULL when none */
    char *decision_words; /* what the decision covers, beside the candidate */
    char *pending;     /* a journalled decision not yet written, in words */
    int proposal;      /* init --propose's proposal, not confirmed */
    int undecided;     /* ambiguous and not settled */
} px_story_example;

typedef struct px_story {
    enum px_model_kind model_kind; /* the fixture's: its reports' parts
                                      (report_kind_for) */
    char *task;
    char *verdict;     /* one line */
    int met;           /* 1: met everywhere selected; 0: not met somewhere;
                          -1: not judged in full (an environment not evaluated) */
    char *fixture;     /* its path, redacted */
    char *fixture_sha256;
    char *generated;   /* "parity 0.x, 2026-12-03T10:00:00Z" (SOURCE_DATE_EPOCH) */
    char **labels;     /* borrowed from the fixture */
    size_t n_labels;
    px_story_env *envs;
    size_t n_envs;
    int reference;     /* index into envs, -1 when none */
    px_strs pins;      /* "model model.pt: sha256 5c3b1e…" */
    px_strs rules;     /* "'\s+' → ' ': why" */
    px_strs tolerances; /* "logits: max |Δ| ≤ atol 0.05 + rtol 0.01·|ref|: why" */
    char *ambiguous_rule;
    char *generate;    /* a generator's output settings, in words
                          (story_generate_words); NULL for a classifier */
    char *embedding;   /* an embedding's output, in words ("a vector [1, 384]:
                          mean pooling over the attention mask, normalised;
                          14 documents searched"); NULL otherwise */
    char *image;       /* an image's output settings, in words ("32x32 RGB,
                          20 DDIMScheduler steps, ..."); NULL otherwise */
    char *train;       /* a training run's recipe, in words; NULL otherwise */
    px_story_example *examples;
    size_t n_examples;
    px_strs not_evaluated; /* what was not evaluated, one line each */
    px_strs performance; /* parity bench's figures, one line per environment
                            and endpoint, the not comparable said first */
    px_strs searches;  /* an embedding's: what each environment does to the
                          queries' searches, the twin first ("2 of 5
                          queries' top 3 change in the bfloat16 twin
                          cpu-bf16: precision"); the verdict line ends with
                          the twin's */
    size_t n_last_good; /* environments with a last_good line */
    px_strs pending;   /* decisions in the journal, not in the fixture */
    px_strs warnings;  /* said before judging */
    size_t redacted;   /* values redacted in what this story holds */
} px_story;

/* The story of f judged from r as j, with the decisions waiting in f's
 * journal (journal.h; an unreadable journal reads as none) and each
 * environment against its last good configuration as the check session
 * compared it (session.h: since, NULL when none was read; history_err,
 * when its code is set, why the history could not be read: a warning of
 * the story). NULL with *err when out of memory or a `redact:` pattern
 * fails. */
px_story *story_build(const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since,
                      const px_error *history_err, px_error *err);
void story_free(px_story *s);

/* 1 when some example's cell in s has outcome o: the reports' legend
 * explains the outcomes the report shows, not every kind's. */
int story_outcome_shown(const px_story *s, px_outcome o);

/* An environment's threads: what its results record, else (run here) what
 * the fixture sets; 0 when neither says. Its executor: "libtorch" or
 * "python", as recorded, else as the fixture gives it; NULL for results
 * from a file that does not say. */
int story_env_threads(const px_fixture *f, const px_env_result *er);
const char *story_env_executor(const px_fixture *f, const px_env_result *er);

/* What an environment is, in one line, for check and the summary: "cpu
 * float16, 2 threads, libtorch executor" (malloc'd; NULL when out of
 * memory): two environments that differ only in threads read apart. */
char *story_env_identity(const px_fixture *f, const px_env_result *er);

/* An embedding query's search in words (malloc'd; NULL when out of
 * memory): its first k with their cosines beside the reference's (ref
 * NULL: none to show), held or changed and what moved, its vector's cosine
 * to the reference's: "top 3 go-night 0.87, film-night 0.59, chess-club
 * 0.58 | reference go-night 0.87, chess-club 0.59, film-night 0.57 |
 * changed: rank 2 and 3 swap: film-night, chess-club | cosine 0.99978 to
 * the reference's vector"; "no ranking: document x has no vector here
 * (...)" when it has none. */
char *story_search_words(const px_fixture *f, const px_embed_verdict *em, const px_embed_verdict *ref);
/* The reference environment's embedding verdict for example k, to set
 * beside environment e's; NULL when e is the reference, or there is none. */
const px_embed_verdict *story_reference_embed(const px_results *r, const px_judgement *j, size_t e, size_t k);

/* What each environment does to an embedding's searches, one line each
 * (malloc'd, *out malloc'd; 0 lines for another kind or without a
 * reference), the twin's first (its index in *twin_at, -1 when none):
 * "2 of 5 queries' top 3 change in the bfloat16 twin cpu-bf16: precision
 * (q-swap: rank 2 and 3 swap: ...)", "tpu: 2 of 5 queries' top 3 change:
 * 1 as in the twin (precision), 1 only here (device) (...)". Not
 * redacted (story_build redacts its own copy). */
size_t story_search_lines(const px_fixture *f, const px_results *r, const px_judgement *j, char ***out, int *twin_at);

/* The time reports say they were made: SOURCE_DATE_EPOCH when set (for
 * reproducible reports and golden tests), else now; ISO 8601 UTC. */
void story_now(char out[32]);

#endif
