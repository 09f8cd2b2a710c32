/* Results of running a fixture's examples through environments: a manifest
 * per environment and, per example, what went in (cleaned text, token ids)
 * and what came out (output tensor, decided label, status, timings).
 * results_write() stores them as the documented YAML interchange file
 * (man/parity-results.5); other hosts (a TPU VM) can write the same file. */
#ifndef PARITY_RESULTS_H
#define PARITY_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "parity/envrec.h"
#include "parity/error.h"
#include "parity/fingerprint.h"
#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/proto.h"
#include "parity/shard.h"
#include "parity/version.h"

/* The results formats (PX_RESULTS_*): include/parity/version.h. */

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
/* -1 when the name is unknown. */
int status_from_name(const char *name);

typedef struct px_manifest {
    char *parity_version, *libtorch_version, *device, *device_name, *dtype, *host;
    /* What produced it (protocol READY): the executor ("libtorch" or
     * "python"), the interpreter ("CPython 3.11.2"; NULL for libtorch), the
     * backend modules imported and their versions (", "-separated; NULL when
     * none), and the precision settings in force: tf32 ("on"/"off"; NULL not
     * set), torch's float32 matmul precision, and which of the settings the
     * backend ignores (NULL when none or not known). libtorch_version is
     * torch's version whichever executor ran. */
    char *executor, *runtime, *backend_modules, *backend_versions;
    char *tf32, *matmul_precision, *ignored;
    /* An environment with compile: (fixture.h): torch.compile's backend (a
     * --compile-backend's when given), mode and dynamic ("true", "false",
     * "auto": torch's default); NULL when it ran eager. */
    char *compile_backend, *compile_mode, *compile_dynamic;
    /* How the executor brought the model to dtype, as its user would write
     * it (READY's load, proto.h): "from_pretrained(dtype=torch.bfloat16)",
     * "torch.jit.load().to(torch.bfloat16)", "torch.jit.load()",
     * "torch.export.load().module()"; NULL in a file written before parity
     * recorded it. */
    char *load;
    int threads;
    /* The environment variables that change numerics or compilation, as
     * they were set when its executor started (envrec.h; `env:`); not
     * recorded in a file written before parity recorded them. */
    px_envvars env;
    char model_sha256[PX_SHA256_HEX], vocab_sha256[PX_SHA256_HEX];
    char started_at[32];      /* UTC, ISO 8601 */
    double load_ms;           /* first load; restarts are counted apart */
    double first_forward_ms;  /* the probe forward (the shortest example) */
} px_manifest;

/* One benchmark of one endpoint in one environment (parity bench): how
 * fast, and what the benchmark's outputs were, so that they are judged
 * against the contract like any other (bench.h). Times in milliseconds. */
typedef struct px_bench {
    int batch;                /* examples per forward: 1 is the single endpoint,
                                 N is batch:N (N examples stacked, padded) */
    int warmup, passes;       /* untimed, then timed passes over the examples */
    size_t examples;          /* distinct examples it ran */
    size_t forwards;          /* timed forwards (the warm latency's samples) */
    size_t new_shapes;        /* forwards that were the first of their input shape,
                                 or that the backend says compiled a graph (a
                                 lazy device compiles then): timed apart */
    double new_shapes_ms;     /* their total */
    double p50_ms, p90_ms, p99_ms, min_ms, max_ms;
                              /* warm forward, timed by the executor: the forward
                                 and the copy of its output to the host, without
                                 cleaning, tokenising or the pipe */
    double roundtrip_p50_ms;  /* the same forwards as parity saw them: with the
                                 frames and the pipes */
    double per_s;             /* examples per second over the timed round trips */
    char *stopped;            /* NULL, or why it stopped before its passes */
    int cut;                  /* 1: stopped by the budget or an interrupt (this
                                 run only; the file keeps `stopped`) */
    int train_steps;          /* train-step:N: N (then batch is the labelled
                                 examples a step trains on, every figure is of
                                 a step, forwards are the timed steps after the
                                 first, which is new_shapes); 0: forwards */
    double lr;                /* train-step: the SGD learning rate it used */
    double *loss, *step_ms;   /* train-step: per step, its loss before the
                                 update and its time (n_steps of each; fewer
                                 than train_steps when it stopped) */
    size_t n_steps;
    double **out;             /* per fixture example, its output (n_out values) the
                                 benchmark produced that is farthest from the
                                 run's: a changed label first, then the largest
                                 max |difference|; NULL where it did not run */
    size_t n_out;
} px_bench;

/* "single", "batch:N" or "train-step:N" into buf. */
const char *bench_endpoint_name(const px_bench *b, char *buf, size_t size);
void bench_clear(px_bench *b, size_t n_examples);

/* What a generator generated for one example (protocol GENERATE): each
 * chosen id and, per step, the top r ids of that step's logits with their
 * values; the text is parity's decoding of the ids (never an executor's). */
/* How many of each step's largest logits parity asks for and keeps: the
 * margin where two environments' paths part is read from them. */
#define PX_GEN_REPORT_TOP 5

typedef struct px_generated {
    int64_t *ids;             /* n chosen ids, the stop id (end stop) included */
    size_t n;
    int r;                    /* top ids reported per step */
    int64_t *top_ids;         /* n * r */
    double *top_logits;       /* n * r */
    int end;                  /* 1: a stop token; 2: max_new_tokens reached */
    double first_ms;          /* the first step's forward (any compilation) */
    char *text;               /* the decoded text, without the stop token */
} px_generated;

void generated_free(px_generated *g);
/* "stop" | "length". */
const char *generated_end_name(int end);

/* What an image pipeline recorded for one example (protocol DENOISE,
 * kind image) beside its image, which is the example's values: height x
 * width x channels floats in [0, 1] (the pipeline's output before it is
 * made 8-bit), shape [1, H, W, C]. The digest proves which noise it started
 * from; the latents are the denoising path, compared step by step. */
#define PX_IMAGE_MAX_RECORDED 256   /* latents recorded per example */
#define PX_IMAGE_MAX_LATENT 65536   /* values in one latent */
typedef struct px_image_out {
    char noise_sha256[PX_SHA256_HEX]; /* of the initial noise, float32 bytes */
    int64_t latent_shape[4];  /* [1, C, h, w] */
    size_t latent_count;      /* values per recorded latent */
    size_t n_steps;           /* latents recorded */
    int *step;                /* each one's step, 0-based, ascending */
    double *latents;          /* n_steps * latent_count */
    int steps;                /* the steps that ran */
    double first_ms;          /* the first step (any compilation) */
} px_image_out;

void image_out_free(px_image_out *g);

/* What a training run recorded (protocol TRAINRUN, kind training) beside
 * its loss curve, which is the example's values: loss[n_steps], shape
 * [1, n_steps], each step's loss before its update as a float64. Per step
 * also the gradients' total L2 norm before clipping, the update's (the
 * parameters after the step less before, total L2 norm, in float32), the
 * learning rate it ran at, and its time. At the end, per tensor group
 * (parameters grouped by name: embed, attention, mlp, norm, head, other),
 * the parameters' norm, their change's norm and a sketch of the change:
 * PX_TRAIN_SKETCH fixed Gaussian projections of it (torch.Generator("cpu")
 * seeded by the group's index, the same in every environment), so that
 * ||change_a - change_b|| (= ||p_a - p_b||, both from the same model) is
 * estimated between two environments without either's weights: the
 * sketches' distance / sqrt(PX_TRAIN_SKETCH) (within about 20% at 95%
 * for 64 projections, Johnson-Lindenstrauss). */
#define PX_TRAIN_SKETCH 64
#define PX_TRAIN_MAX_GROUPS 16
typedef struct px_train_group {
    char *name;
    int64_t numel;
    double norm, delta_norm;
    double sketch[PX_TRAIN_SKETCH];
} px_train_group;

typedef struct px_train_out {
    size_t n_steps;           /* that ran (loss[] is the values) */
    double *grad_norm;        /* n_steps, before clipping */
    double *update_norm;      /* n_steps */
    double *lr;               /* n_steps, as run */
    double *step_ms;          /* n_steps, each step timed (the loss's copy
                                 to the host included) */
    double startup_ms;        /* TRAINRUN received to the first step: the
                                 copy, the optimizer, any process group */
    double total_ms;          /* the whole run */
    int processes;            /* ranks (1: one process) */
    px_train_group *groups;
    size_t n_groups;
} px_train_out;

void train_out_free(px_train_out *t);

typedef struct px_example_result {
    /* (Ordered to leave no padding: 10 000 examples in 4 environments hold
     * 40 000 of these.) */
    char *detail;             /* reason, exception text, signal, ... */
    char *stderr_tail;        /* the executor's last stderr lines on a crash */
    char *clean_text;
    int64_t *ids;
    char **tokens;
    size_t n_ids;
    char *token_text;         /* NULL, or the block tokens[] point into (one
                                 allocation for them all: read from a file) */
    char *dtype;              /* output dtype as the model produced it
                                 (results_dtype: the usual names are not
                                 copied) */
    int64_t shape[PX_MAX_DIMS]; /* a generator's: its first step's output */
    px_generated *gen;        /* a generator's (NULL: nothing generated) */
    px_image_out *img;        /* an image's (NULL: none made) */
    px_train_out *train;      /* a training run's (NULL: none ran) */
    double *values;
    size_t n_values;
    double forward_ms;        /* -1 when not run */
    px_status status;
    int label;                /* index into the environment result's labels
                                 (the argmax, as torch.argmax: the first NaN,
                                 else the first largest), -1 when none */
    int8_t ndim;              /* 0 .. PX_MAX_DIMS */
    int8_t compiled;          /* enum px_compiled: whether this forward
                                 compiled a graph (a lazy device) */
    uint8_t shared_input;     /* 1: clean_text, ids and tokens are parity's own
                                 processed input's (a file recorded exactly
                                 those), borrowed: never freed or changed here */
    uint8_t has_def;          /* def_sha256 is known */
    uint8_t def_sha256[32];   /* the example's definition when recorded
                                 (fingerprint_example), as bytes */
} px_example_result;

enum px_env_state { PX_ENV_PENDING, PX_ENV_UP, PX_ENV_DOWN };

/* Where an environment's results come from. Each comes from exactly one
 * place; an environment the contract names that nobody provided is judged
 * not-evaluated, never left out. */
typedef enum px_origin {
    PX_ORIGIN_RUN,  /* run here, now */
    PX_ORIGIN_FILE, /* read from a results file (source) */
    PX_ORIGIN_NONE, /* no results (source says why) */
} px_origin;

typedef struct px_env_result {
    char *name;
    int env_index;            /* into the fixture's environments */
    enum px_env_state state;
    int down_stage;           /* enum px_stage, when down */
    char *down_msg;
    int restarts;
    px_manifest m;
    px_example_result *ex;    /* one per fixture example */
    px_origin origin;
    char *source;             /* FILE: the results file; NONE: why there are none */
    int selected;             /* 0: left out with -e: shown as such, never judged */
    char **labels;            /* the label map its outputs were decided with: the
                                 fixture environment's for a run, as recorded
                                 for a file */
    size_t n_labels;
    px_fingerprint recorded;  /* the contract it was recorded under ("": not
                                 recorded; a run's is the fixture's now) */
    char *cut_short;          /* the run of this environment stopped before its
                                 end: why, in words ("interrupted", "budget 90s
                                 ran out", "--max-examples 3"); NULL: whole */
    px_bench *bench;          /* parity bench: one per endpoint (none: not measured) */
    size_t n_bench;
    const px_tokenizer *tok;  /* the vocabulary expect was made with
                                       (borrowed): a generator's ids are
                                       decoded with it */
    const px_prepared *expect; /* what parity's own input processing makes of
                                  each example for this environment (borrowed;
                                  NULL: not computed, not compared) */
} px_env_result;

/* One shard file a merged results file was made from (parity merge). */
typedef struct px_merged_from {
    char *file;               /* the shard file as it was named to merge */
    px_shard shard;
    char *host;               /* its first recorded manifest's host and start */
    char started_at[32];
} px_merged_from;

typedef struct px_results {
    px_env_result *envs;
    size_t n_envs, n_examples;
    int reference;            /* index into envs, -1 when not run */
    char **warnings;          /* said before judging: the contract changed
                                 since a file was recorded, ... */
    size_t n_warnings;
    px_shard shard;           /* count > 0: a shard file's results (run
                                 --shard): only the examples shard_holds
                                 are written; the others are not evaluated */
    px_merged_from *merged_from; /* parity merge: the shard files, by index */
    size_t n_merged_from;
} px_results;

/* Results for the given fixture environments (indices), all pending, to be
 * run here (origin RUN, selected, the fixture environment's labels). */
px_results *results_new(const px_fixture *f, const int *env_indices, size_t n);
void results_free(px_results *r);
void example_result_clear(px_example_result *x);
/* Free x's own recorded input (clean_text, ids, tokens) and forget it. */
void example_result_free_input(px_example_result *x);
/* A copy of an output dtype's name for x->dtype: the usual ones (float32,
 * bfloat16, ...) are shared constants, not copies; NULL when out of
 * memory. results_dtype_free frees what it made. */
char *results_dtype(const char *name);
void results_dtype_free(char *dtype);
/* Free what an environment result owns and zero it. */
void env_result_clear(px_env_result *e, size_t n_examples);
/* Add a warning (printf-style); ignored when out of memory. */
void results_warn(px_results *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The decided label as torch.argmax decides it: the index of the first NaN
 * when there is one (NaN counts as the largest), else of the first largest
 * value; -1 when n is 0. */
int results_argmax(const double *v, size_t n);

/* How to name an environment's device and dtype: what its manifest records
 * for results read from a file (the fixture says nothing of an imported
 * environment's device), else what the fixture says. Never NULL. */
const char *results_env_device(const px_fixture *f, const px_env_result *e);
const char *results_env_dtype(const px_fixture *f, const px_env_result *e);

/* The label name of an example's decision, NULL when none. */
const char *results_label(const px_env_result *e, const px_example_result *x);

/* SHA-256 of what one environment recorded for one example (outcome,
 * detail, input, output, label; a generator's generated ids and top
 * lists): what a reviewer saw when deciding. */
void results_example_sha256(const px_env_result *e, const px_example_result *x, const char *id,
                            char out[PX_SHA256_HEX]);

/* Write atomically (temp file, fsync, rename, fsync dir); "-" is stdout.
 * Environments with results (run here or read from a file) are written
 * (of a shard, only the shard's examples, and `shard:`);
 * the contract fingerprint is the fixture's now for a run, as recorded for
 * a file. */
int results_write(const px_results *r, const px_fixture *f, const char *path, px_error *err);

/* One environment's manifest as the keys a results file holds under
 * `manifest:`, at the left margin (a bundle's manifests/ENV.yaml). */
void results_write_manifest(FILE *o, const px_env_result *e);

/* Read a results file back (src/results/results_read.c), matched to the fixture by
 * environment name and example id: the file's environments, in its order
 * (origin FILE, source path); a fixture example the file lacks is
 * not-evaluated. Strict like fixture_load: NULL with *err (code
 * PX_EXIT_USAGE, file:line:col) on an unknown key, outcome or environment, a
 * newer format, and on a file that contradicts itself (a shard file listing
 * an example of another shard, too): a label that is not
 * the argmax of its own logits, an ok outcome whose output is not
 * [1, labels]. A shard file's examples of other shards are not-evaluated
 * ("run in shard K/N"), and its shard is in r->shard. The file's fixture.sha256 is not compared with f's (review
 * decisions change it); the recorded contract fingerprint is, and each part
 * that changed since, and each example the fixture no longer has, becomes a
 * warning. */
px_results *results_load(const char *path, const px_fixture *f, px_error *err);
/* What parity's own input processing makes of every example for fixture
 * environment env_index (NULL: not known). */
typedef const px_prepared *(*px_expect_fn)(void *arg, int env_index);
/* results_load, where an example's recorded input (clean_text, token_ids,
 * tokens) that is exactly what expect gives is not kept twice: the result
 * borrows it (shared_input), which must then outlive the results' use. The
 * results are the same as results_load's in every other way. */
px_results *results_load_with(const char *path, const px_fixture *f, px_expect_fn expect, void *arg,
                              px_error *err);
/* The same, from bytes in memory (path only names it in errors). */
px_results *results_parse(const char *path, const char *data, size_t len, const px_fixture *f, px_error *err);

/* Max |a-b| between two examples' outputs; -1 when not comparable. */
double results_max_abs_diff(const px_example_result *a, const px_example_result *b);

#endif
