/* The runner's options and the reasons a run stops: types only, below the
 * runner's own parts (src/run/: the children's supervision, the benchmarks),
 * which read them without including the runner (parity/runner.h, which
 * includes this). */
#ifndef PARITY_RUNNER_OPTS_H
#define PARITY_RUNNER_OPTS_H

#include <stddef.h>

typedef struct px_runner_opts {
    const char *executor;     /* path of parity-torch (executor: libtorch) */
    const char *python;       /* the interpreter for executor: python (a path,
                                 or a name looked up on PATH) */
    const char *script;       /* path of parity_torch.py */
    const char *backend_lib;  /* --backend-lib, from the command line only */
    const char *const *backend_modules; /* --backend-module, imported by the
                                 Python executor before it opens the device */
    size_t n_backend_modules;
    const char *const *compile_backends; /* --compile-backend ENV=NAME: the
                                 torch.compile backend of an environment
                                 with compile: (a module's, by name),
                                 instead of the fixture's; checked by
                                 runner_check */
    size_t n_compile_backends;
    double load_timeout_s;    /* > 0: how long every environment's start-up
                                 (the executor, its backend modules, the
                                 model) may take, instead of each one's
                                 startup_timeout (the fixture's, default
                                 120 s) */
    int notify_fd;            /* > 0: a byte is written here whenever results change
                                 (the review screen polls it with the keyboard) */
    int one_example;          /* 1: run only `example`, leave the others' results */
    size_t example;
    int keep_alive;           /* the review screen: after the run each executor
                                 stays up, and runner_rerun runs examples again
                                 in it (one forward, not a load) until
                                 runner_wait or runner_stop */
    double budget_s;          /* > 0: stop this long after the start (--budget) */
    size_t max_examples;      /* > 0: run at most this many examples in each
                                 environment (--max-examples) */
    /* parity bench: after an environment's run, each endpoint (examples per
     * forward: 1 single, N batch:N; -N is train-step:N, N SGD steps on the
     * labelled examples that ran, in one TRAIN) is timed over the examples that ran
     * (warmup untimed passes, then `passes` timed ones, or as many as
     * min_time_s takes and at least 5), into its px_env_result.bench. */
    const int *bench_batches;
    size_t n_bench;
    int bench_warmup, bench_passes;
    double bench_min_time_s;
    const char *skip;         /* NULL, or one per example: 1 leaves that
                                 example pending (another shard's, run --shard) */
} px_runner_opts;

/* Why a run stopped before its end. The examples not run are not-evaluated
 * with the reason's words, and each environment that lost some records it
 * (px_env_result.cut_short), as one stopped by --max-examples does. */
typedef enum px_stop {
    PX_STOP_NONE,
    PX_STOP_CANCEL,    /* the review screen cancelled it */
    PX_STOP_INTERRUPT, /* Ctrl-C (SIGINT) or SIGTERM */
    PX_STOP_BUDGET,    /* --budget ran out */
} px_stop;

#endif
