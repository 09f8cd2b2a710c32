/* What a model takes and gives, read without a forward and without a
 * person: its executor is started on the CPU (float32, one thread), asked
 * DESCRIBE (proto.h) after its READY, and ended. parity init writes a
 * fixture's contract.model.inputs and max_tokens from it and checks
 * --labels against its head; lint can check a fixture's labels the same
 * way. */
#ifndef PARITY_DESCRIBE_H
#define PARITY_DESCRIBE_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/runner_opts.h"

typedef struct px_describe {
    int args_known;      /* 1: args are the forward's argument names */
    char **args;         /* in order, self left out (malloc'd) */
    size_t n_args;
    char *returns;       /* the declared return type ("" when none) */
    long max_positions;  /* the most positions an input may have; -1 unknown */
    long head;           /* the classifier head's width; -1 unknown */
    long hidden;         /* the hidden width (config.hidden_size, else the
                            word embeddings' columns): an embedding's vector
                            width when it pools token states; -1 unknown */
    char *executor;      /* READY's: "libtorch" or "python" */
    char *torch_version; /* READY's */
} px_describe;

/* Describes the model at path (a TorchScript file, a .pt2 or a Transformers
 * directory: fmt), a classifier (describe_model_kind: of that kind, which
 * for a Transformers directory is the class it is loaded as: an embedding
 * AutoModel, a classifier AutoModelForSequenceClassification). python: 1 for the Python executor
 * (parity_torch.py under the interpreter), 0 for parity-torch. where: the
 * executors as runner_locate finds them (--executor, --python), or NULL to
 * locate them here ($PARITY_TORCH, $PARITY_PYTHON, beside parity). Waits at
 * most timeout_s (<= 0: 120 s) for the answer. 0 with *d filled (free it
 * with describe_free), or -1 with *err: the executor could not start, could
 * not load the model (its own message), or does not answer DESCRIBE (an
 * executor of another parity). */
int describe_model(const char *path, enum px_model_format fmt, int python, const px_runner_opts *where, double timeout_s,
                   px_describe *d, px_error *err);
int describe_model_kind(const char *path, enum px_model_format fmt, enum px_model_kind kind, int python,
                        const px_runner_opts *where, double timeout_s, px_describe *d, px_error *err);
void describe_free(px_describe *d);

/* Whether the forward takes an argument named name (0 when not known). */
int describe_takes(const px_describe *d, const char *name);

#endif
