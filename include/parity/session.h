/* One check session: what every command (run, bench, check, report,
 * export, repro) and the review screen do between reading a fixture and
 * showing a judgement, written once.
 *
 *   session_open    decide for each environment where its result comes
 *                   from: a results file that provides it (--results, or
 *                   the environment's results:), else a run here (unless
 *                   --no-run, or its executor is not here: then it is not
 *                   evaluated, with that reason); process the inputs
 *   session_start   run what runs here, in the background (the runner);
 *                   one environment down is one environment down
 *   session_wait    until the run is over
 *   session_judge   judge (judge.h) and time (bench.h): never against what
 *                   is not there; and each environment against its last
 *                   good configuration (history.h), read by session_open
 *   session_exit    the exit status the judgement calls for
 *
 * The rules of where a result comes from live in evidence.c; the rules of
 * judging in judge.c; this module puts them in order so that no command
 * assembles them by hand. Nothing here prints or exits. */
#ifndef PARITY_SESSION_H
#define PARITY_SESSION_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "parity/shard.h"

typedef enum px_session_kind {
    /* check, review, report, export, repro: every environment the contract
     * names, each from exactly one place. */
    PX_SESSION_JUDGE,
    /* run, bench: the environments that run here (all of them, or those
     * named with -e, in that order); their results are what is written. */
    PX_SESSION_RUN,
} px_session_kind;

/* The last good configurations (history.h, the file beside the fixture):
 * whether the session reads them, and what an unreadable one does. */
typedef enum px_session_history {
    PX_HISTORY_NONE,    /* run, bench: not read */
    PX_HISTORY_REFUSE,  /* check: read before anything else, refused like
                           any other file (session_open fails) */
    PX_HISTORY_NOTE,    /* review, report, export, repro: one that cannot be
                           read is kept as a note (px_check.history_err),
                           the judging goes on without it */
} px_session_history;

typedef struct px_session_opts {
    px_session_kind kind;
    px_session_history history;
    const char *const *results; /* --results, in the order given */
    size_t n_results;
    const char *const *envs;    /* -e, in the order given; none: all */
    size_t n_envs;
    int no_run;                 /* --no-run: nothing runs here */
    px_shard shard;             /* run --shard I/N; count 0: every example */
    const char *executor;       /* --executor, --python (NULL: not given) */
    const char *python;
    const char *doing;          /* for the unpinned model's refusal: "running
                                   it", "judging anything against it" */
    px_runner_opts runner;      /* how to run (budget, bench, backend modules,
                                   keep_alive, notify_fd): executor, python
                                   and script are located by session_open */
} px_session_opts;

typedef struct px_check {
    const px_fixture *f;
    px_results *res;            /* one per environment (JUDGE: every fixture
                                   environment, in its order) */
    px_env_input *inputs;       /* parallel to res->envs */
    px_runner_opts ropts;       /* located */
    px_runner *run;             /* NULL: nothing runs (yet) */
    char *skip;                 /* run --shard: the other shards' examples */
    px_session_kind kind;
    px_history history;         /* the last good configurations (empty: none) */
    int history_read;           /* 1: history is the file's (a missing file
                                   reads as empty) */
    px_error history_err;       /* PX_HISTORY_NOTE: why it could not be read
                                   (code 0: it was, or it was not asked) */
} px_check;

/* What a check session's results come to, in one call (session_judge). */
typedef struct px_verdicts {
    px_judgement j;             /* judge_results, then bench_judge (bench.h) */
    px_since *since;            /* each environment against its last good
                                   configuration, parallel to res->envs; it
                                   borrows from the session's history. NULL
                                   when the session read none */
} px_verdicts;

/* Everything up to running: NULL-free on success, *err (the history that
 * cannot be read, with PX_HISTORY_REFUSE; PX_EXIT_USAGE for a bad -e, an unreadable or contradictory results file, an unpinned
 * model; PX_EXIT_ENV for what cannot run at all) otherwise, with s left
 * closed. */
int session_open(px_check *s, const px_fixture *f, const px_session_opts *o, px_error *err);
/* 1 when some environment of the session runs here. */
int session_runs(const px_check *s);
/* Start what runs here in the background (nothing to do: 0, no runner). */
int session_start(px_check *s, px_error *err);
/* Wait for the run (none: 0 at once); -1 with *err when the run as a
 * whole had to stop (runner_wait). */
int session_wait(px_check *s, px_error *err);
/* Run the examples again (the review screen's r/R): in the live
 * executors when they serve, else in a new run. */
int session_rerun(px_check *s, int all, size_t example, px_error *err);
/* The judgement, the benchmark verdicts and the last good comparison of
 * the session's results (v filled); -1 with *err (v then holds nothing)
 * when judging fails or memory runs out. */
int session_judge(const px_check *s, px_verdicts *v, px_error *err);
void verdicts_free(px_verdicts *v);
void session_close(px_check *s);

/* check's exit status: since_good, only regressions fail (1); an
 * environment without results, down, or judged only in part (not compared
 * for want of a reference, a shard) leaves the check incomplete (3), which is worse than a known
 * failure (1); else 0 when every selected environment meets the contract. */
int session_exit(const px_results *r, const px_judgement *j, const px_since *since, int since_good);

/* The environment the review screen opens on beside the reference: the
 * first selected one read from a results file (what was carried home),
 * else the first selected candidate with results, else any selected one;
 * -1 when none. */
int session_first_candidate(const px_results *res);

#endif
