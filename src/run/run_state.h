/* The runner's state (struct px_runner), shared by its parts: the example
 * loop and the public API (runner.c), the benchmarks (bench_run.c) and the
 * executors' supervision (child.c); and what every one of them reads it
 * with: the clock, whether the run must stop and the words for it, the
 * progress the screen shows, redaction of what a child says. The lowest of
 * the runner's parts but the wire (wire.c), which knows no runner. */
#ifndef PARITY_RUN_STATE_H
#define PARITY_RUN_STATE_H

#include <pthread.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/forksrv.h"
#include "parity/prepare.h"
#include "parity/redact.h"
#include "parity/results.h"
#include "parity/runner_opts.h"

typedef struct child child; /* one environment's executor (child.h) */
typedef struct px_runner px_runner;

struct px_runner {
    const px_fixture *f;
    const px_env_input *inputs;
    px_results *res;
    px_runner_opts opts;
    child *kids;
    pthread_t thread;
    pthread_mutex_t mu;
    int started, done;
    int *prog;           /* per environment, under mu: the example it runs
                            (-1 starting or timing, -2 idle) */
    int *steps;          /* per environment, under mu: a training run's
                            steps done and its steps (0: not a training
                            run), two ints an environment */
    int stop;            /* px_stop, atomic: set by runner_stop or the budget */
    int wake[2];         /* runner_stop writes here: child_wait_frame polls it */
    double deadline;     /* monotonic time the budget runs out; 0: none */
    char budget_words[64], limit_words[64];
    pthread_cond_t cv;   /* keep_alive: a request, or the end, arrived */
    int serving;         /* keep_alive: idle, waiting for runner_rerun */
    int req, req_all, end_serving;
    size_t req_example;
    px_error fatal;      /* under mu; halt says it is set */
    int halt;            /* atomic: a fatal error, start nothing more */
    px_redactor *redact; /* what a child says passes through it (under redact_mu) */
    pthread_mutex_t redact_mu;
    px_forksrv *srv;     /* parity-torch --serve, once a libtorch environment
                            started (under srv_mu: its client is one channel) */
    int srv_tried;       /* 1: started, or failed to and executors are spawned */
    pthread_mutex_t srv_mu;
    /* Environments side by side (run_envs), under mu: each one's state
     * (0 waiting, 1 running, 2 done), the cores the running ones hold. */
    int *sched;
    pthread_cond_t sched_cv; /* an environment finished */
    int running, busy, cores;
    int *spawned;        /* the first executor of each was spawned ... */
    px_error *errs;      /* ... or why not */
};

/* Monotonic seconds. */
double state_now(void);
/* Why the run stops (runner_stop, the budget), PX_STOP_NONE while it runs. */
px_stop state_stop_of(px_runner *r);
/* Whether the run must stop now: asked to, or the budget ran out (which
 * then becomes the reason). */
int state_must_stop(px_runner *r);
/* What an example the run did not reach says (its detail). */
const char *state_stop_words(px_runner *r);
/* Wake the UI thread: results changed. A full pipe already says so. */
void state_notify(px_runner *r);
/* Text from a child (an exception, its stderr, what it reports of itself)
 * may hold a secret or a home path: what is kept is the redacted copy
 * (s is freed, the copy returned). */
char *state_scrub(px_runner *r, char *s);
/* What environment env does now: example (>= 0), -1 starting or timing,
 * -2 nothing. */
void state_set_progress(px_runner *r, int env, int example);
/* A training run's steps done of its steps, as its TRAINSTEPs come. */
void state_set_steps(px_runner *r, int env, int done, int of);

#endif
