/* A kind of model (contract.model.kind): classifier, generator, embedding.
 * parity grows along this axis, so a kind is a module behind one interface
 * (redis keeps a data type per file, tig a view per struct view_ops), and
 * the rest of the program asks the interface, never which kind it holds.
 *
 * The interface has one part per layer, each a table indexed by the kind,
 * since a lower layer cannot call up into a higher one:
 *
 *   contract  px_kind (this header, src/contract/kind.c): its name, the
 *             results format its files are written in, the words a table
 *             and the contract use for its output, and the shape rule an
 *             output must meet (used by the wire and the results reader
 *             alike, so a file from another host is held to what a run is)
 *   judge     px_judge_kind (judge_kind.h): judge an example, find its
 *             earliest divergence, attribute a cause, its verdict's own
 *             part, the cause and ladder words, a benchmark's label; one
 *             file a kind, src/judge/judge_<kind>.c (judge_embed.c for
 *             the embedding), its row in src/judge/judge_kind.c
 *   report    px_report_kind (report_kind.h): its cells in run's table
 *             (run_table.c), check's lines and JSON, the story the reports
 *             tell and their cells and sections (report_md.c, report_html.c);
 *             src/report/rk_classifier.c, rk_generator.c, rk_embed.c
 *   tui       tui_pane (src/tui/pane.h): its pane in the review screen,
 *             src/tui/pane_<kind>.c, its row in src/tui/pane.c
 *
 * The places a new kind touches (and no others; `make check`'s kind gate,
 * tests/kind_gate.sh, fails when code elsewhere names PX_MODEL_*):
 *
 *   1. enum px_model_kind (fixture.h) and its row in kind.c;
 *   2. the fixture loader and emitter (src/contract/fixture.c,
 *      fixture_emit.c): its contract keys and example keys;
 *   3. the results reader and writer (src/results/): its output's keys;
 *   4. the executors (src/executor/): what --kind NAME runs;
 *   5. src/judge/judge_<kind>.c and its row in judge_kind.c's table; a
 *      verdict part of its own (as px_text_verdict) also its type in
 *      verdict.h's px_verdict;
 *   6. src/report/rk_<kind>.c (as rk_classifier.c, rk_generator.c,
 *      rk_embed.c: run's cell and last column, the story's cell, expectation,
 *      tolerance and output words, check's line and JSON keys, and the
 *      reports' parts: an example's cell and its column's title in the
 *      Markdown and HTML reports, the contract's output item, what follows
 *      an example's table (an embedding's searches table and bump chart),
 *      the CSS for what it draws) and its row in report_kind.c's table;
 *   7. its pane in the review screen: a struct tui_pane (src/tui/pane.h)
 *      in its own file (src/tui/pane_classifier.c, pane_generator.c,
 *      pane_embed.c) and its row in the table in src/tui/pane.c;
 *   8. its man page sections (parity-fixture(5), parity-results(5)).
 *
 * Where the fourth kind, the image (issue 39), had to go beyond the list:
 * px_kind.denoises (its examples run DENOISE, not RUN: the runner and the
 * wire ask it); the report part grew html_images (the HTML report's
 * Content-Security-Policy lets data: pictures in), check_words_label and
 * export_example/export_readme (what a bundle carries for it: bundle.c
 * asks, never names the kind), and a story cell carries a picture; three
 * generic places assumed a vocabulary (the ladder's input rung, the story's
 * pins, the detail view's token line) and now ask the contract whether it
 * has one; the input processing (prepare.c) looks its class up. Its
 * arithmetic is shared, not kind code: imagecmp.h (the figures, the
 * difference map and its colours), png.h, halfblock.h (pictures as
 * terminal cells).
 */
#ifndef PARITY_KIND_H
#define PARITY_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "parity/fixture.h"

/* What an output's shape is held to: an example's, in one environment. */
typedef struct px_shape_want {
    size_t labels;  /* the environment's label count (a classifier) */
    size_t tokens;  /* the prompt's length (a generator's probe) */
    size_t vocab;   /* the tokenizer's vocabulary (a generator's probe) */
} px_shape_want;

typedef enum px_shape_fit { PX_SHAPE_FITS, PX_SHAPE_EMPTY, PX_SHAPE_BAD } px_shape_fit;

typedef struct px_kind {
    enum px_model_kind id;
    const char *name;       /* contract.model.kind's word; the executors' --kind */
    const char *article;    /* "a classifier": the kind in a sentence */
    int results_format;     /* parity_results: N its files are written in */
    const char *diff_title; /* run's last column: "max|Δlogit|" */
    const char *values;     /* the per-element tolerance's key and its
                               values' name: "logits", "vectors" */
    int decides_label;      /* its output's argmax is a label */
    int generates;          /* its examples run GENERATE, not RUN */
    int denoises;           /* its examples run DENOISE (an image pipeline) */
    int trains;             /* its examples are training runs: TRAINRUN
                               (proto.h), each a recipe (px_example.recipe);
                               its output the loss curve [1, steps] */
    /* The shape rule: does an output of ndim dimensions `shape` holding
     * n_values values fit what f and w ask? On a miss, *why (malloc'd)
     * says what it is and what the contract says. */
    px_shape_fit (*shape_fits)(const px_fixture *f, const px_shape_want *w, int ndim, const int64_t *shape,
                               size_t n_values, char **why);
    int searches;           /* its examples are queries and the documents
                               they search (role:), its kinds the queries' */
    /* Its output is one pooled vector of contract.model.dim values (the
     * executors' --pooling and --normalize, contract.model.pooling). */
    int pools;
    /* An output with the contract's own model did not fit (fit:
     * PX_SHAPE_BAD or PX_SHAPE_EMPTY; detail: the wire's words, NULL when
     * none; which: the forward, "the probe forward of example 'x', 3
     * tokens"): the probe's, or an example's while none has fit (the runner).
     * 1 with *err set when that is the contract's error (the run stops), 0
     * when it is the environment's outcome. */
    int (*probe_misfit)(const px_fixture *f, const px_env *e, px_shape_fit fit, int ndim, const int64_t *shape,
                        const char *detail, const char *which, px_error *err);
} px_kind;

/* The fixture's kind's interface (never NULL). */
const px_kind *kind_of(const px_fixture *f);
/* The kind named `name` (contract.model.kind), NULL when none is. */
const px_kind *kind_named(const char *name);
/* Every kind, in enum order, for tables and docs: n at *n. */
const px_kind *kind_all(size_t *n);

#endif
