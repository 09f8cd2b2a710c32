/* Results of running a fixture's examples through environments: a manifest
 * per environment and, per example, what went in (cleaned text, token ids)
 * and what came out (output tensor, decided label, status, timings).
 * results_write() stores them as the documented YAML interchange file
 * (man/parity-results.5); other hosts (a TPU VM) can write the same file. */
#ifndef PARITY_RESULTS_H
#define PARITY_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/proto.h"

/* What happened to one example in one environment, before any judgement
 * against the contract. Never collapsed into one "failed". */
typedef enum px_status {
    PX_ST_PENDING = 0,    /* not run yet */
    PX_ST_OK,             /* forward ran; output has the contract's shape */
    PX_ST_REJECTED,       /* input processing rejected it (empty, over limit) */
    PX_ST_EXCEPTION,      /* forward raised */
    PX_ST_UNSUPPORTED,    /* the backend lacks the op or dtype */
    PX_ST_CRASH,          /* the executor died (signal) */
    PX_ST_TIMEOUT,        /* no answer within the environment's timeout */
    PX_ST_BAD_SHAPE,      /* output shape is not [1, labels] */
    PX_ST_EMPTY,          /* output has no elements */
    PX_ST_NOT_EVALUATED,  /* environment down, or run cancelled */
    PX_ST_COUNT
} px_status;

const char *status_name(px_status s);
/* One line: what the status means. */
const char *status_meaning(px_status s);
/* -1 when the name is unknown. */
int status_from_name(const char *name);

typedef struct px_manifest {
    char *parity_version, *libtorch_version, *device, *device_name, *dtype, *host;
    int threads;
    char model_sha256[PX_SHA256_HEX], vocab_sha256[PX_SHA256_HEX];
    char started_at[32];      /* UTC, ISO 8601 */
    double load_ms;           /* first load; restarts are counted apart */
    double first_forward_ms;  /* the probe forward ([CLS] [SEP]) */
} px_manifest;

typedef struct px_example_result {
    px_status status;
    char *detail;             /* reason, exception text, signal, ... */
    char *stderr_tail;        /* the executor's last stderr lines on a crash */
    char *clean_text;
    int64_t *ids;
    char **tokens;
    size_t n_ids;
    char *dtype;              /* output dtype as the model produced it */
    int ndim;
    int64_t shape[PX_MAX_DIMS];
    double *values;
    size_t n_values;
    int label;                /* argmax index, -1 when none */
    double forward_ms;        /* -1 when not run */
} px_example_result;

enum px_env_state { PX_ENV_PENDING, PX_ENV_UP, PX_ENV_DOWN };

typedef struct px_env_result {
    char *name;
    int env_index;            /* into the fixture's environments */
    enum px_env_state state;
    int down_stage;           /* enum px_stage, when down */
    char *down_msg;
    int restarts;
    px_manifest m;
    px_example_result *ex;    /* one per fixture example */
} px_env_result;

typedef struct px_results {
    px_env_result *envs;
    size_t n_envs, n_examples;
    int reference;            /* index into envs, -1 when not run */
} px_results;

/* Results for the given fixture environments (indices), all pending. */
px_results *results_new(const px_fixture *f, const int *env_indices, size_t n);
void results_free(px_results *r);
void example_result_clear(px_example_result *x);

/* Write atomically (temp file, fsync, rename, fsync dir); "-" is stdout. */
int results_write(const px_results *r, const px_fixture *f, const char *path, px_error *err);

/* Read a results file back (src/results_load.c), matched to the fixture by
 * environment name and example id: the file's environments, in its order;
 * a fixture example the file lacks is not-evaluated. Strict like
 * fixture_load: NULL with *err (code PX_EXIT_USAGE, file:line:col) on an
 * unknown key, outcome, environment, example or label. The file's
 * fixture.sha256 is not compared with f's: a fixture that gained review
 * decisions since the run still reads its results. */
px_results *results_load(const char *path, const px_fixture *f, px_error *err);
/* The same, from bytes in memory (path only names it in errors). */
px_results *results_parse(const char *path, const char *data, size_t len, const px_fixture *f, px_error *err);

/* Max |a-b| between two examples' outputs; -1 when not comparable. */
double results_max_abs_diff(const px_example_result *a, const px_example_result *b);

#endif
