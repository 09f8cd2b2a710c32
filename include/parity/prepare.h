/* Input processing, the part of the contract that runs before any model:
 * check the pinned model and vocab revisions, apply the cleaning rules,
 * tokenize, and reject what the contract says must be rejected (an empty
 * text, a text over max_tokens: never silently cut). The same for every
 * environment, so it runs once per example. */
#ifndef PARITY_PREPARE_H
#define PARITY_PREPARE_H

#include "parity/clean.h"
#include "parity/fixture.h"
#include "parity/tokenizer.h"

typedef struct px_prepared {
    char *clean_text;   /* an image's: its class, as written */
    px_encoding enc;    /* (an image's: none) */
    int rejected;
    char *reason;       /* why rejected, or why processing failed */
    int64_t class_id;   /* an image's class: its index in the environment's
                           labels; -1 for other kinds, or rejected */
    unsigned long long seed; /* an image's: its own seed, else contract.image.seed */
} px_prepared;

typedef struct px_prep {
    px_cleaner *cleaner;
    px_tokenizer *tok;
    int64_t *stop_ids;  /* a generator's contract.generate.stop tokens, as ids
                           (the executor stops on them) */
    size_t n_stop;      /* (its other stops are strings: prep_gen_text) */
    const char *const *labels; /* an image's: the classes (the environment's
                                  labels, borrowed) its examples name */
    size_t n_labels;
    const char *env_labels; /* the environment whose own labels those are;
                               NULL: contract.labels */
    char model_sha256[PX_SHA256_HEX], vocab_sha256[PX_SHA256_HEX];
    /* A training run's data (kind training): contract.train.data's text,
     * read once (at most PX_TRAIN_DATA_MAX bytes), its pin checked, and
     * tokenized by the contract's tokenizer as tokenizer(text) encodes it,
     * post-processor included (fixture.h px_recipe); every id below the
     * model's vocab_size. The wire cuts it into each run's windows. */
    int64_t *train_ids;
    size_t n_train_ids;
    char train_sha256[PX_SHA256_HEX];
} px_prep;

/* contract.train.data's largest text: its windows travel in one TRAINRUN
 * frame (at most 8 bytes an id, within PX_FRAME_MAX). */
#define PX_TRAIN_DATA_MAX (4u << 20)

void prep_close(px_prep *p);

/* A generator's ids as the executor gave them (or as a results file
 * records them), end 1 stop or 2 length: its text, and how many of the ids
 * and which end it has once the contract's stops apply. A stop token (the
 * last id, end 1) is not part of the text; a stop string is searched for in
 * the decoded text (skip_special_tokens as the contract says), the text cut
 * before it and the ids after the one that completes it dropped (*n_out,
 * *end_out 1). Applying it to its own result changes nothing: the judge
 * holds a recorded generation to that. -1 with *err when the ids cannot be
 * decoded. */
int prep_gen_text(const px_fixture *f, const px_tokenizer *tok, const int64_t *ids, size_t n, int end,
                  size_t *n_out, int *end_out, char **text, px_error *err);

/* Process one text (an image's: its class, looked up in p's labels: not
 * there is rejected, naming the class and the labels). Returns 0
 * (possibly rejected) or -1 with *err. */
int prep_example(const px_prep *p, const px_fixture *f, const char *text, size_t len,
                 px_prepared *out, px_error *err);
void prepared_free(px_prepared *x);

/* Everything one environment is sent: its prep, every example processed
 * (index = fixture example), and the probe. */
typedef struct px_env_input {
    px_prep prep;
    px_prepared *examples;
    px_prepared probe;  /* the probe forward's input (prepare.c): the shortest
                           example run, else the empty text; enc.n 0: none;
                           an image's: the first example not rejected
                           (env_input_has_probe) */
    char *probe_words;  /* what it is, for messages ("example 'x', 3 tokens") */
    const px_prepared *shared; /* evidence.c: another entry's examples (the
                                  same vocabulary), this one staying closed */
    const px_tokenizer *shared_tok; /* and that entry's vocabulary */
} px_env_input;

/* Verify the environment's model and vocab (the contract's unless it
 * overrides them) against their pinned sha256 (refuse a different file: it
 * is a different task), compile the rules, load the vocab, process every
 * example and the probe. Errors name the fixture line that pins or states
 * the thing. */
int env_input_open(px_env_input *in, const px_fixture *f, const px_env *e, px_error *err);
/* The same without the model (its pin is not checked, it need not be
 * there): what parity's own input processing makes of each example, to
 * compare with what a results file recorded. */
int env_input_open_text(px_env_input *in, const px_fixture *f, const px_env *e, px_error *err);
void env_input_close(px_env_input *in, size_t n_examples);
/* Whether there is a probe to send (an input with tokens, an image's class). */
int env_input_has_probe(const px_env_input *in);

#endif
