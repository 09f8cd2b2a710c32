/* The report layer's part of a kind's interface (kind.h): what each kind
 * of model adds to run's table, check's text and JSON, the story the
 * reports and the summary screen tell, and the reports' cells and
 * sections (Markdown and HTML). One file a kind,
 * src/report/rk_<kind>.c, and one row each in report_kind.c's table; the
 * rest of src/report asks the row, never which kind it holds.
 *
 * A part a kind has nothing for is NULL. */
#ifndef PARITY_REPORT_KIND_H
#define PARITY_REPORT_KIND_H

#include <stdio.h>

#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/redact.h"
#include "parity/results.h"
#include "parity/sbuf.h"

/* A file of an export or repro bundle (bundle.c), rel inside it: 0, or
 * -1 with the bundle's error set. */
typedef int (*px_bundle_put)(void *ctx, const char *rel, const void *data, size_t len);

/* story.h's (which includes this one's users, not this header). */
struct px_story;
struct px_story_cell;

/* What the story is built from and into (story.c), for a kind's parts:
 * out of memory is remembered in oom, checked once at the end. */
typedef struct px_story_ctx {
    const px_fixture *f;
    const px_results *r;
    const px_judgement *j;
    px_redactor *rd;
    struct px_story *s;
    int oom;
    const char *twin_search; /* the twin's line of s->searches, NULL: none */
} px_story_ctx;

/* malloc'd text for the story; NULL (and b->oom) when out of memory.
 * rk_red redacts text that came from a run, a file or a person (NULL
 * stays NULL); rk_dup copies ("" for NULL). */
char *rk_fmt(px_story_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *rk_dup(px_story_ctx *b, const char *s);
char *rk_red(px_story_ctx *b, const char *s);

/* check's JSON, for a kind's keys: a key and its colon; a string or null;
 * a finite number or null. */
void rk_json_key(FILE *o, const char *k);
void rk_json_str_or_null(FILE *o, const char *s);
void rk_json_double_or_null(FILE *o, double v);

typedef struct px_report_kind {
    /* ---- run's table (run_table.c) ---- */
    /* The cell of an example that gave an output (x->status ok) in
     * environment e: a label, the generated text, a query's first
     * document. */
    void (*run_cell)(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k);
    /* The row's last column against the reference (kind.h's diff_title),
     * its leading spaces and the newline: n_cand candidates. */
    void (*run_diff)(FILE *o, const px_fixture *f, const px_results *r, size_t k, size_t n_cand);
    int diff_per_candidate; /* one figure per candidate, named in the header */

    /* ---- the story (story.c) ---- */
    /* A cell's kind-specific parts (the generated text, a query's search),
     * before its difference is put in words. */
    void (*story_cell)(px_story_ctx *b, size_t e, size_t k, struct px_story_cell *c);
    /* A compared output's difference from the reference in words (v->has_cmp). */
    char *(*story_diff)(px_story_ctx *b, const px_verdict *v);
    /* An expectation that is not a label's (the switch in story.c has
     * those) in words into out: a generator's text, a search's documents. */
    void (*story_expect)(const px_fixture *f, const px_expect *x, px_sbuf *out);
    /* When the contract states no tolerance on its values: what decides
     * instead (NULL: any difference counts, said by story.c). */
    const char *(*story_no_tolerance)(const px_fixture *f);
    /* The contract's words for its output (s->generate, s->embedding). */
    void (*story_contract)(px_story_ctx *b);
    /* What each environment does to its searches (story_search_lines). */
    size_t (*search_lines)(const px_fixture *f, const px_results *r, const px_judgement *j, char ***out,
                           int *twin_at);

    /* ---- check's text and JSON (check_report.c) ---- */
    /* More about example k in environment e, one line's words (malloc'd,
     * NULL: none), and *show set when the example is to be shown however
     * it was judged. */
    char *(*check_words)(const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                         int *show);
    /* The word before check_words' line ("search"). */
    const char *check_words_label;
    /* More lines after it, when the example is shown (a training run's
     * per-step figures around its parting step), each begun with indent
     * spaces and ended by a newline; numbers only, or text made safe. */
    void (*check_lines)(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                        int indent);
    /* The kind's keys in an example's JSON object, each with its comma. */
    void (*check_json_example)(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e,
                               size_t k, const px_verdict *v);

    /* ---- the reports (report_md.c, report_html.c) ----
     * Each text escaped as its report's (report_fmt.h); j is the judgement
     * the story was told from, NULL when the report was not given it. */
    /* The title of the example table's column the cell fills: "Label". */
    const char *cell_title;
    /* The contract's item for the model's output, between the report's
     * bullet and the item's end: "Labels, in the model's output order:
     * ...". */
    void (*md_output)(FILE *o, const struct px_story *s);
    void (*html_output)(FILE *o, const struct px_story *s);
    /* An example's cell in an environment that has results (c->present):
     * its label and probability, its generated text, its search. */
    void (*md_cell)(FILE *o, const struct px_story *s, const struct px_story_cell *c);
    void (*html_cell)(FILE *o, const struct px_story *s, const struct px_story_cell *c);
    /* What follows example k's table: an embedding's searches, as a table
     * or a bump chart. */
    void (*md_example_extra)(FILE *o, const struct px_story *s, const px_judgement *j, size_t k);
    void (*html_example_extra)(FILE *o, const struct px_story *s, const px_judgement *j, size_t k);
    /* The CSS the HTML report adds for what the kind draws ("" or NULL:
     * none). */
    const char *(*html_css)(const struct px_story *s, const px_judgement *j);
    /* Its HTML embeds images as data: URIs (an image's PNGs): the report's
     * Content-Security-Policy allows img-src data: (nothing fetched still). */
    int html_images;

    /* ---- export and repro bundles (bundle.c) ---- */
    /* Files of its own a bundle carries for example k (an image's PNGs,
     * difference maps and divergence curves), each given to put; for the
     * environments with want[e] set (NULL: every one). The files written
     * (0: none), or -1 with *err (put's error is the bundle's: err then
     * is left as put set it). */
    int (*export_example)(const px_fixture *f, const px_results *r, const px_judgement *j, size_t k,
                          const unsigned char *want, px_bundle_put put, void *ctx, px_error *err);
    /* The bundle README's item for those files, after "- " (NULL: none). */
    const char *export_readme;
} px_report_kind;

/* The fixture's kind's report parts (never NULL); by the kind itself, for
 * a story (px_story's model_kind). */
const px_report_kind *report_kind_of(const px_fixture *f);
const px_report_kind *report_kind_for(enum px_model_kind kind);

/* The rows, one file a kind (rk_<kind>.c). */
extern const px_report_kind rk_classifier, rk_generator, rk_embedding, rk_image, rk_training;

/* Shared by the rows: a label as the cell (the classifier's, and what a
 * generator's shows without a text); each candidate's max |Δ| from the
 * reference, ", " between ("-": nothing to compare); a compared output's
 * difference as a tolerance says it ("max |Δlogit| 0.01 within 0.05"). */
void rk_label_cell(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k);
void rk_max_diffs(FILE *o, const px_fixture *f, const px_results *r, size_t k, size_t n_cand);
char *rk_tolerance_words(px_story_ctx *b, const px_verdict *v, const char *of);
/* The reports' label cell (the classifier's, and what a generator's HTML
 * shows without a text): the decided label and its probability, "film
 * (94.8%)"; "—" without a label. */
void rk_md_label(FILE *o, const struct px_story *s, const struct px_story_cell *c);
void rk_html_label(FILE *o, const struct px_story *s, const struct px_story_cell *c);

#endif
