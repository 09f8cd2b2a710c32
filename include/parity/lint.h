/* parity lint: static checks of a fixture, without running any model.
 * Each finding names the line and column it is about and is rendered as
 * "FILE:LINE:COL: lint: MESSAGE". The checks: a tolerance or a cleaning rule
 * without a written why, a missing example kind (normal, short, long,
 * reject, ambiguous), an ambiguous example without a decided review,
 * duplicate example ids, an unpinned model or vocabulary, a Transformers
 * directory against its pinned files (a wrong pin, an unpinned file), a
 * tokenizer that is not the directory's own or whose ids pass its
 * config.json's vocab_size, an
 * export or Transformers model with executor libtorch, an empty or
 * repeated label, a pattern that does not compile, and whatever the strict
 * loader rejects. */
#ifndef PARITY_LINT_H
#define PARITY_LINT_H

#include <stddef.h>
#include <stdio.h>

#include "parity/error.h"
#include "parity/fixture.h"

typedef struct px_finding {
    int line, col; /* 1-based */
    char *msg;     /* one line: control characters are escaped */
} px_finding;

typedef struct px_lint {
    px_finding *v; /* sorted by line, then column, then as found */
    size_t n;
} px_lint;

/* What parity init writes for a person to replace, by example kind
 * (normal, short, long, reject, ambiguous), and its task: lint names each
 * one left (the reject's blank text is meant). */
extern const char px_init_task[];
extern const char *const px_init_texts[5];

/* What a model says of itself without a forward (describe.h, in the run
 * layer, above this one): its classifier head's width and the most
 * positions an input may have, -1 where not known. A describer returns 0
 * with *m filled, or -1 when the model could not be described here (no
 * executor, a model this machine cannot load): lint then says nothing of
 * it, as lint never guesses. */
typedef struct px_lint_model {
    long head, max_positions;
    long hidden; /* an embedding's: the hidden width, -1 not known */
} px_lint_model;
typedef int (*px_lint_describe_fn)(void *ctx, const char *path, enum px_model_format fmt, enum px_model_kind kind,
                                   px_lint_model *m);

/* Lint the fixture at path. 0 with *out filled (n may be 0); -1 with *err
 * (code PX_EXIT_USAGE) only when the file cannot be read, is not YAML, or
 * holds no document: there is then no line a finding could name. */
int lint_fixture(const char *path, px_lint *out, px_error *err);
/* Same, with each model run would load (a file run hashes, not a
 * Transformers directory, whose config.json lint reads itself) described
 * by fn: the labels against its head, max_tokens against its positions. */
int lint_fixture_described(const char *path, px_lint_describe_fn fn, void *ctx, px_lint *out, px_error *err);
/* Same, from bytes in memory (path names it and places relative paths). */
int lint_parse(const char *path, const char *data, size_t len, px_lint *out, px_error *err);
/* One "path:line:col: lint: msg" line per finding. */
void lint_print(FILE *fp, const char *path, const px_lint *l);
void lint_free(px_lint *l);

#endif
