/* A fixture: the correctness contract, the environments to run it in, and
 * the hand-reviewed examples, loaded from one YAML file. Loading validates
 * the schema strictly: an unknown key, a wrong type or a missing field is an
 * error naming file:line:col. Paths inside the fixture are resolved relative
 * to the fixture's directory. */
#ifndef PARITY_FIXTURE_H
#define PARITY_FIXTURE_H

#include <stddef.h>

#include "parity/decision.h"
#include "parity/error.h"
#include "parity/hash.h"
#include "parity/modeldir.h"

#define PX_FIXTURE_VERSION 1

typedef struct px_loc {
    int line, col; /* 1-based; 0 when absent */
} px_loc;

typedef struct px_clean_rule {
    char *pattern, *replace, *why;
    px_loc loc;
} px_clean_rule;

/* A pattern of the fixture's `redact:` list: what else must never leave
 * the machine (a project name, an internal host), with why. */
typedef struct px_redact_rule {
    char *pattern, *why;
    px_loc loc;
} px_redact_rule;

typedef struct px_tolerance {
    int present;
    double rtol, atol;
    char *stat; /* elementwise | max | mean | quantile */
    double q;   /* for quantile */
    double oracle_factor; /* k of the oracle rule; 0 when not stated */
    char *why;  /* NULL when not written (a lint finding) */
    px_loc loc;
} px_tolerance;

/* contract.train: the training step parity bench's train-step:N endpoint
 * takes (SGD at a fixed learning rate, cross-entropy on the labelled
 * examples) and how far a loss curve may part from the reference's:
 * |a - b| <= atol + rtol * |b| at every step, with why (required). */
typedef struct px_train {
    int present;
    double lr, atol, rtol;
    char *why;
    px_loc loc;
} px_train;

typedef struct px_pattern {
    char *text;   /* PCRE2 pattern; NULL when absent */
    px_loc loc;
} px_pattern;
/* contract.generate: a generator's output settings, fixed by the contract
 * and shown wherever outputs are. Decoding runs in each executor on its own
 * logits (include/parity/proto.h, GENERATE): greedy, or sampling on the
 * host with the seed (never a device's generator), from the top_k logits
 * at temperature; at most max_new_tokens; a stop token ends it (recorded,
 * not part of the text), and so does a stop string, found by the host in
 * the decoded text. The text is the contract's tokenizer's decode of the
 * ids (skip_special_tokens as said, default true). */
enum px_decoding { PX_DECODE_GREEDY = 1, PX_DECODE_SAMPLE = 2 };

typedef struct px_generate {
    int present;
    enum px_decoding decoding;
    double temperature;  /* sample: > 0 */
    int top_k;           /* sample: 0 the whole vocabulary */
    unsigned long long seed; /* sample */
    int max_new_tokens;
    char **stop;         /* each a stop token (tokenizer_stop_id: the executor
                            stops on it) or a stop string (the text is cut
                            before it, and the ids after the one that
                            completes it dropped: prep_gen_text) */
    size_t n_stop;
    int skip_special;    /* skip_special_tokens when decoding (default 1) */
    px_loc loc, stop_loc;
} px_generate;

enum px_model_kind { PX_MODEL_CLASSIFIER, PX_MODEL_GENERATOR, PX_MODEL_EMBEDDING, PX_MODEL_IMAGE, PX_MODEL_TRAINING };

/* A training run's recipe (kind training, issue 40): contract.train holds
 * the contract's, and an example (a run) may override any of its keys in
 * its own `train:`. A causal LM (format transformers: AutoModelForCausalLM)
 * is trained on a copy (the model files are never written) for `steps`
 * optimizer steps. The data is contract.train.data, a pinned text file
 * (at most PX_TRAIN_DATA_MAX bytes, prepare.h) tokenized by the contract's
 * tokenizer (parity does it, once, the same ids for every environment),
 * the whole file as one text, as tokenizer(text) encodes it: with the
 * tokenizer's post-processor, so a Llama tokenizer's one BOS (or BERT's
 * [CLS] ... [SEP]) at the start and end of the file, none between windows
 * (a user's tokenizer(open(path).read())["input_ids"]; the same ids
 * whatever the window), and cut into windows of seq_len + 1 tokens
 * (window w: ids[w*seq_len .. w*seq_len + seq_len]); step s trains on the
 * windows (s*batch_size + j) mod n_windows, j < batch_size, in that fixed
 * order: the inputs a window's first seq_len ids, the targets its last
 * seq_len, the loss their mean cross-entropy in float32. The learning rate
 * of each step is parity's (recipe_lr): linear warm-up over warmup_steps
 * (step s < warmup: lr * (s + 1) / (warmup + 1)), then constant, linear or
 * cosine decay to decay_min * lr at the last step. Gradients are clipped
 * to a total L2 norm of clip_grad_norm (0: not clipped); the norm recorded
 * is before clipping. Dropout is off (p 0) in every environment: a
 * device's generator draws other masks, another experiment, as an image's
 * noise would be. */
enum px_optimizer { PX_OPT_ADAMW = 1, PX_OPT_SGD = 2 };
enum px_lr_decay { PX_DECAY_NONE = 0, PX_DECAY_LINEAR, PX_DECAY_COSINE };
#define PX_TRAIN_RUN_MAX_STEPS 100000 /* a recipe's steps */
typedef struct px_recipe {
    int steps, batch_size, seq_len;
    enum px_optimizer optimizer;     /* default adamw */
    double lr;
    double beta1, beta2, eps, weight_decay; /* adamw (torch's defaults:
                                               0.9, 0.999, 1e-8, 0.01) */
    double momentum;                 /* sgd (default 0) */
    int warmup_steps;                /* default 0 */
    enum px_lr_decay decay;          /* default none */
    double decay_min;                /* the last step's lr / lr (default 0) */
    double clip_grad_norm;           /* 0: none */
    unsigned long long seed;         /* torch.manual_seed before training
                                        (nothing random remains with dropout
                                        off; kept for a model that draws) */
    px_loc loc;
} px_recipe;

/* The training data (contract.train.data): a text file, pinned. */
typedef struct px_train_data {
    char *path;      /* resolved */
    char *sha256;
    px_loc loc, sha_loc;
} px_train_data;

/* One per-step quantity's tolerance against the reference (compare.train:
 * loss, grad_norm, update): |a - b| <= atol + rtol * |b| at every step,
 * with why (required). */
typedef struct px_step_tol {
    int present;
    double atol, rtol;
    char *why;
    px_loc loc;
} px_step_tol;

typedef struct px_train_checks {
    px_step_tol loss, grad_norm, update;
    /* params: each tensor group's parameters at the end, relative to the
     * reference's, ||p - p_ref|| / ||p_ref|| <= max_rel (estimated from
     * the groups' sketches: results.h px_train_group), with why. */
    int params_present;
    double params_max_rel;
    char *params_why;
    px_loc params_loc;
    /* learning: a run not-learning when the reference's loss drops and its
     * own drops less than min_fraction of the reference's drop (the drop:
     * the first step's loss less the mean of the last tenth of steps,
     * at least one); default 0.1, with why when written. */
    double learning_min_fraction;
    char *learning_why;
    px_loc learning_loc;
} px_train_checks;

/* An environment's parallel plan (parallel:): processes ranks launched as
 * torchrun launches them, torch.distributed with backend (gloo on the CPU,
 * nccl on cuda, else said), the batch split across ranks by strategy. */
enum px_strategy { PX_PAR_NONE = 0, PX_PAR_DDP, PX_PAR_FSDP };
typedef struct px_parallel {
    int processes;                   /* 0: not parallel (one process) */
    enum px_strategy strategy;
    char *backend;                   /* NULL: the device's default */
    px_loc loc;
} px_parallel;

/* An image's contract (kind image, contract.image; issue 39): what must
 * survive the move of a Diffusers pipeline, fixed for every environment.
 * The example's class (its `class:`, one of contract.labels: the
 * pipeline's class ids in order) conditions it; the pipeline directory's
 * pinned files fix the denoiser, the VAE and the scheduler's settings, and
 * scheduler names the class its scheduler_config.json must hold. The
 * initial noise is drawn once, on the CPU, in float32, from the example's
 * seed (its own `seed:`, else seed) with torch.Generator("cpu"), and handed
 * to the pipeline in every environment (noise: cpu, the only value: a
 * contract that lets each device draw its own noise is refused), so that
 * environments differ only by how they compute. The latent after every
 * latent_every-th step (and the last) is recorded, at most
 * PX_IMAGE_MAX_RECORDED of them. */
typedef struct px_image_spec {
    int present;
    int height, width, channels;
    int steps;               /* num_inference_steps */
    double guidance_scale;   /* classifier-free guidance; 1: none */
    unsigned long long seed;
    char *scheduler;         /* the scheduler's class name, e.g. DDIMScheduler */
    int latent_every;        /* default 1 */
    px_loc loc, noise_loc, scheduler_loc;
} px_image_spec;

/* One of an image's checks against the reference (compare.image): a floor
 * (psnr, ssim) or a ceiling (mean_abs, max_abs: of 255), with why. */
typedef struct px_image_bound {
    int present;
    double limit;
    char *why;               /* required when present */
    px_loc loc;
} px_image_bound;

typedef struct px_image_checks {
    px_image_bound psnr, ssim, mean_abs, max_abs;
    /* compare.latents: |a - b| <= atol + rtol*|b| for every element of a
     * recorded latent; the first recorded step beyond it is the earliest
     * divergence (PX_DIV_LATENT). */
    px_tolerance latents;
} px_image_checks;

/* An embedding's pooling (contract.model.pooling): none, the model returns
 * the vector [1, D] itself; mean, the mean of its token states [1, T, D]
 * over the attention mask (sentence-transformers' mean pooling); cls, the
 * first token's state. The executor pools, in float32 on the output as the
 * model gave it, then (normalize) divides by the L2 norm: the pooling is
 * the contract's fixed arithmetic, the same in every environment, so what
 * differs between environments is the model's. */
enum px_pooling { PX_POOL_NONE = 0, PX_POOL_MEAN, PX_POOL_CLS };
/* "none", "mean", "cls". */
const char *fixture_pooling_name(enum px_pooling p);

/* similar_to_reference: an embedding's vector against the reference
 * environment's, by cosine (the contract's, compare.similar_to_reference,
 * or an example's own). */
typedef struct px_similar {
    int present;
    double min_cosine;
    char *why;   /* NULL when not written (a lint finding) */
    px_loc loc;
} px_similar;

/* An environment's `compile:`: torch.compile around the model (the Python
 * executor on torch 2 only). backend is one of torch's own (inductor,
 * aot_eager, eager; a backend a module registers is chosen only on the
 * command line, --compile-backend ENV=NAME: a fixture never chooses code),
 * mode one of torch.compile's, dynamic -1 when not said (torch's default,
 * None: static, then dynamic after a recompile). */
typedef struct px_compile {
    int present;
    char *backend, *mode; /* defaults: inductor, default */
    int dynamic;          /* -1 not said, 0 false, 1 true */
    px_loc loc;
} px_compile;

/* contract.model.format (and an environment's model.format): what the
 * model file is and so how an executor loads it. torchscript: a file of
 * torch.jit.save (both executors); export: a .pt2 of torch.export.save
 * (the Python executor, torch 2); transformers: a model directory of
 * save_pretrained (the Python executor with transformers), pinned file by
 * file (px_model_file, include/parity/modeldir.h): its model_sha256 is the
 * digest of those pins. */
enum px_model_format { PX_FORMAT_TORCHSCRIPT = 0, PX_FORMAT_EXPORT, PX_FORMAT_TRANSFORMERS, PX_FORMAT_DIFFUSERS };
/* "torchscript", "export", "transformers", "diffusers" (a Diffusers
 * pipeline directory of save_pretrained: model_index.json and a folder per
 * component, pinned file by file as a Transformers directory is). */
const char *fixture_format_name(enum px_model_format fmt);


typedef struct px_env {
    char *name;
    char *device;       /* NULL for an imported environment */
    char *dtype;        /* as written (float32 when a runnable one says nothing;
                           NULL when an imported one says nothing) */
    int threads;        /* 0: libtorch's default */
    double timeout_s;   /* per forward */
    double first_forward_timeout_s; /* the first forward of each new input
                                       shape in one executor (a lazy device
                                       such as XLA compiles it then) */
    double startup_timeout_s; /* start-up: the executor, its backend modules
                                 and the model until READY (default 120) */
    int tf32;           /* -1 unset, 0 off, 1 on (CUDA matmuls) */
    char *matmul_precision; /* highest | high | medium; NULL: not set */
    int python;         /* executor: python (parity_torch.py) rather than
                           libtorch (parity-torch) */
    px_compile compile; /* compile: (present 0: eager) */
    /* A training run's precision recipe, named as TorchTitan's settings
     * are: the weights (and the optimizer's state) in dtype; with
     * mixed_precision_param bfloat16 the forward and backward compute in it
     * over float32 master weights (torch.autocast in one process, FSDP's
     * MixedPrecisionPolicy(param_dtype) in several); mixed_precision_reduce
     * the gradients' reduction across ranks. NULL: not said. */
    char *mixed_precision_param, *mixed_precision_reduce;
    px_parallel parallel; /* parallel: (processes 0: one process) */
    char *role;         /* reference | twin | candidate | oracle; NULL when
                           not said (a candidate), but the reference
                           (fixture_reference) always has "reference" */
    char *note;
    char *results;      /* imported results file (not runnable) */
    char **record_env;  /* record_env: the environment variables its manifest
                           records beside the built-in ones (envrec.h) */
    size_t n_record_env;
    /* What the environment runs: the contract's model, vocab and labels
     * unless it overrides them (a re-exported model, another tokenizer
     * revision, another label map); earliest divergence names the stage. */
    char *model_path, *model_sha256, *vocab_path, *vocab_sha256;
    enum px_model_format model_format; /* the contract's unless its model says */
    px_model_file *model_files; /* transformers: the pinned files */
    size_t n_model_files;
    char **labels;
    size_t n_labels;
    int own_model, own_vocab, own_labels;
    px_loc model_sha_loc, vocab_sha_loc, labels_loc;
    px_loc model_path_loc;   /* its model's path: value (the contract's
                                unless it overrides the model) */
    px_loc model_format_loc; /* where its format was said (the contract's
                                format key, or its own); 0 when not written */
    px_loc executor_loc;     /* its executor key; 0 when not written */
    px_loc loc;
} px_env;

enum px_expect_kind { PX_EXPECT_NONE, PX_EXPECT_LABEL, PX_EXPECT_ANY_OF, PX_EXPECT_REJECTED, PX_EXPECT_TEXT,
                      PX_EXPECT_RETRIEVAL };

/* An embedding's query (role query) and what its search must return
 * (expect kind RETRIEVAL): the fixture's documents (role document) ranked
 * by cosine to the query's vector in the same environment, best first
 * (ties by the documents' order in the fixture). order set: every
 * document named in top is among the first k; order exact: the first
 * n_top are top's, in that order. k defaults to n_top and is at least
 * n_top. A candidate whose first k differ from the reference's (as a set,
 * or in order for exact) changed the search: a task failure whatever its
 * numbers. */
typedef struct px_retrieval {
    char **top;         /* document ids, as written */
    long *top_idx;      /* their example indices */
    px_loc *top_loc;    /* where each was written */
    size_t n_top;
    int k;
    int exact;          /* order: exact (0: set) */
    px_loc loc;
} px_retrieval;

/* An embedding's example: a document the queries search, or a query. */
enum px_role { PX_ROLE_NONE = 0, PX_ROLE_DOCUMENT, PX_ROLE_QUERY };

/* A generator's expectation of its generated text (expect kind TEXT):
 * every must_match pattern matches it, no must_not_match pattern does, it
 * is at most max_chars characters and (non_empty) not empty, and
 * same_as_reference: the same as the reference environment's text
 * (exact), the same first N tokens (prefix N), or at most D token edits
 * from it (tokens-edit-distance <= D). */
enum px_same { PX_SAME_ANY, PX_SAME_EXACT, PX_SAME_PREFIX, PX_SAME_EDITS };

typedef struct px_text_expect {
    struct px_pattern *must_match, *must_not_match;
    size_t n_must_match, n_must_not_match;
    int max_chars;      /* 0: no limit */
    int non_empty;
    enum px_same same;
    int same_n;         /* PREFIX: N tokens; EDITS: D */
    px_loc max_chars_loc, non_empty_loc, same_loc;
} px_text_expect;

typedef struct px_expect {
    enum px_expect_kind kind;
    int label;          /* index into labels */
    int *any_of;        /* label indices */
    size_t n_any_of;
    int top_k;          /* 0: not stated */
    px_pattern reason;          /* rejected: the reason must match */
    px_pattern must_match;      /* on the decided label */
    px_pattern must_not_match;
    px_text_expect *text;       /* kind TEXT (a generator's example) */
    px_retrieval *retrieval;    /* kind RETRIEVAL (an embedding's query) */
    px_loc loc;
} px_expect;

/* The note `parity init --propose` writes beside the reference's label,
 * with decision flag: a proposal until a reviewer decides (lint lists every
 * example that still carries it). */
#define PX_PROPOSAL_NOTE "proposed from the reference run: confirm"

typedef struct px_example {
    char *id;
    char *kind;         /* normal | short | long | reject | ambiguous | ... */
    char *text;
    size_t text_len;
    px_expect expect;
    /* The example's own logits tolerance and an embedding's own
     * similar_to_reference; NULL: the contract's. Pointers, as few examples
     * have one: 80 bytes an example in a 10 000-example review. */
    px_tolerance *tol;
    px_similar *similar;
    enum px_role role;  /* an embedding's: document or query (role:); none otherwise */
    int has_seed;       /* an image's own `seed:` (else contract.image.seed) */
    unsigned long long seed;
    px_recipe *recipe;  /* a training run's: the contract's recipe with its
                           own train: keys over it (always set for kind
                           training; NULL otherwise) */
    double loss_at_most; /* a training run's expect: {loss_at_most: X}:
                            the mean loss of its last tenth of steps; NAN
                            when not said */
    char *why;
    px_review review;   /* the reviewer's record (include/parity/decision.h): owned */
    px_loc loc, text_loc;
} px_example;

struct px_strmap;

typedef struct px_fixture {
    char *path;         /* as given */
    char *dir;          /* its directory, for relative paths */
    char sha256[PX_SHA256_HEX]; /* of the file's bytes as loaded */
    char *task;
    char *model_path;   /* resolved */
    char *model_sha256; /* NULL when not pinned */
    px_loc model_sha_loc, model_loc;
    px_loc model_path_loc; /* contract.model.path's value */
    enum px_model_format model_format; /* contract.model.format */
    px_model_file *model_files; /* transformers: files: name -> sha256 */
    size_t n_model_files;
    px_loc model_format_loc;
    char **inputs;      /* forward argument names, in order */
    size_t n_inputs;
    int inputs_auto;    /* inputs not written (a classifier): input_ids and
                           attention_mask, and token_type_ids (one segment)
                           to a forward whose signature takes it */
    char *output;
    enum px_model_kind kind; /* contract.model.kind */
    /* An embedding's (kind embedding): its vector's width (contract.model.dim,
     * required: the output is [1, dim]), pooling and normalize, and the
     * contract's similar_to_reference (compare.similar_to_reference). Its
     * per-element tolerance is compare.vectors, held in logits_tol. */
    int dim;
    enum px_pooling pooling;
    int normalize;
    px_similar similar;
    size_t n_documents; /* examples of role document */
    px_generate gen;    /* contract.generate (a generator's) */
    px_image_spec image; /* contract.image (an image's) */
    px_image_checks image_cmp; /* compare.image and compare.latents */
    px_recipe recipe;   /* contract.train (a training run's) */
    px_train_data train_data; /* contract.train.data */
    px_train_checks train_cmp; /* compare.train */
    px_clean_rule *rules;
    size_t n_rules;
    px_redact_rule *redact; /* `redact:` (include/parity/redact.h) */
    size_t n_redact;
    char *vocab_path;   /* resolved */
    char *vocab_sha256;
    px_loc vocab_sha_loc, tokenizer_loc;
    int lowercase;
    int tokenizer_hf;   /* kind huggingface: vocab_path is a tokenizer.json */
    int tokenizer_chars; /* kind chars: one code point per token (generators) */
    size_t max_tokens;
    size_t pad_to;
    int empty_reject;   /* 1: an empty (after cleaning) text is rejected */
    char **labels;
    size_t n_labels;
    px_loc labels_loc;
    px_tolerance logits_tol;
    char *decision;     /* exact */
    px_train train;     /* contract.train (parity bench --endpoint train-step:N) */
    px_env *envs;
    size_t n_envs;
    px_example *examples;
    size_t n_examples;
    struct px_strmap *env_index, *example_index; /* name -> index, id -> index */
} px_fixture;

/* A fixture file's bytes, NUL-terminated; NULL with *err when unreadable. */
char *fixture_read(const char *path, size_t *len, px_error *err);

/* Load and validate; NULL with *err (code PX_EXIT_USAGE) on any problem. */
px_fixture *fixture_load(const char *path, px_error *err);
/* Same, from bytes in memory (path only names it in errors). */
px_fixture *fixture_parse(const char *path, const char *data, size_t len, px_error *err);
/* For lint, which says these itself, each at its place, and goes on: an
 * example's label not in contract.labels loads as index -1 (expect.label,
 * or an any_of entry), and a tokenizer.json is not read. Never for a run. */
px_fixture *fixture_parse_lint(const char *path, const char *data, size_t len, px_error *err);
void fixture_free(px_fixture *f);

struct px_redactor;
/* The redactor for what a fixture's run or report lets out (redact.h): the
 * built-ins, the fixture's `redact:` patterns and $HOME. NULL with err set
 * when a pattern does not compile or out of memory. */
struct px_redactor *fixture_redactor(const px_fixture *f, px_error *err);

/* An environment whose executor cannot load its model's format
 * (parity-torch loads TorchScript only): 1 with the one-line reason in msg
 * and its place (the environment's executor key, else its name) in *at;
 * 0 when it can. lint reports it, run refuses it before starting anything. */
int fixture_env_format_refused(const px_env *e, char *msg, size_t size, px_loc *at);

/* -1 when absent. */
int fixture_label_index(const px_fixture *f, const char *label);
const px_env *fixture_env(const px_fixture *f, const char *name);
/* The index of the example with this id, -1 when none (hashed: results
 * files with many examples are matched in linear time). */
long fixture_example_index(const px_fixture *f, const char *id);
/* -1 with *err (PX_EXIT_USAGE): "no environment 'x' (there are: ...)". */
int fixture_unknown_env(const px_fixture *f, const char *name, px_error *err);
/* The environment others are compared with: role reference, else the one
 * named "reference", else the first runnable one. -1 when none. */
int fixture_reference(const px_fixture *f);

#endif
