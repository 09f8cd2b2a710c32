/* parity lint: static checks of a fixture. The strict loader stops at the
 * first duplicate example id or bad label list, so those are found by
 * walking libyaml's document first; the typed fixture from fixture_parse
 * then feeds every other check. A loader error becomes a finding of its own
 * (it has a line), and the checks that need the typed fixture are skipped. */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include "parity/lint.h"

#include <errno.h>
#include <jansson.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "parity/decision.h"
#include "parity/clean.h"
#include "parity/fixture.h"
#include "parity/kind.h"
#include "parity/prepare.h"
#include "parity/strf.h"
#include "parity/strmap.h"
#include "parity/tokenizer.h"
#include "parity/ydoc.h"

typedef struct lctx {
    yaml_document_t doc;
    yaml_node_t *root;
    px_lint *out;
    size_t cap;
    int oom; /* a finding could not be stored: the whole lint fails */
    px_lint_describe_fn describe; /* NULL: models are not described */
    void *describe_ctx;
    px_loc max_tokens_at; /* contract.input.max_tokens, or the input */
    px_loc dim_at;        /* contract.model.dim, or the model */
} lctx;

const char px_init_task[] = "say in one sentence what the model is for";
const char *const px_init_texts[5] = {"an ordinary text of the task", "two words",
                                      "a long text near max_tokens, as long as real inputs get", "   ",
                                      "a text a person could label two ways"};

/* A finding is one line whatever a scalar in it holds. */
static char *escape_line(const char *s)
{
    char *out = malloc(strlen(s) * 4 + 1), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\n')
            o += sprintf(o, "\\n");
        else if (ch == '\t')
            o += sprintf(o, "\\t");
        else if (ch < 0x20 || ch == 0x7f)
            o += sprintf(o, "\\x%02X", ch);
        else
            *o++ = (char)ch;
    }
    *o = '\0';
    return out;
}

static void add(lctx *c, px_loc at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(lctx *c, px_loc at, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    px_lint *l = c->out;
    if (l->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        px_finding *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            c->oom = 1;
            return;
        }
        l->v = v;
        c->cap = cap;
    }
    char *m = escape_line(msg);
    if (!m) {
        c->oom = 1;
        return;
    }
    l->v[l->n++] = (px_finding){at.line, at.col, m};
}

static int found_at(const px_lint *l, int line, int col)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].line == line && l->v[i].col == col)
            return 1;
    return 0;
}

static int finding_cmp(const void *a, const void *b)
{
    const px_finding *x = a, *y = b;
    return x->line != y->line ? (x->line > y->line) - (x->line < y->line) : (x->col > y->col) - (x->col < y->col);
}

/* Stable, so findings on one line keep the order the checks found them in
 * (the missing kinds in their documented order): a merge sort, since a
 * hostile fixture can have a finding per example. */
static void sort_findings(px_lint *l)
{
    px_finding *tmp = malloc((l->n ? l->n : 1) * sizeof *tmp);
    if (!tmp)
        return;
    for (size_t w = 1; w < l->n; w *= 2) {
        for (size_t lo = 0; lo < l->n; lo += 2 * w) {
            size_t mid = lo + w < l->n ? lo + w : l->n, hi = lo + 2 * w < l->n ? lo + 2 * w : l->n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = finding_cmp(&l->v[j], &l->v[i]) < 0 ? l->v[j++] : l->v[i++];
            while (i < mid)
                tmp[k++] = l->v[i++];
            while (j < hi)
                tmp[k++] = l->v[j++];
        }
        memcpy(l->v, tmp, l->n * sizeof *tmp);
    }
    free(tmp);
}

/* ---- the document: libyaml marks are 0-based, columns in characters ---- */

static px_loc loc_of(const yaml_node_t *n)
{
    return (px_loc){(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The key node of `key` in map; NULL when map is not a mapping or lacks it. */
static yaml_node_t *key_node(lctx *c, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(&c->doc, p->key));
        if (k && !strcmp(k, key))
            return yaml_document_get_node(&c->doc, p->key);
    }
    return NULL;
}

/* "X has no Y" points at X's key: a block mapping itself starts at its
 * first key, a line below the name the finding gives. */
static px_loc key_loc(lctx *c, yaml_node_t *map, const char *key, px_loc fallback)
{
    yaml_node_t *k = key_node(c, map, key);
    return k ? loc_of(k) : fallback;
}

static yaml_node_t *get(lctx *c, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(&c->doc, p->key));
        if (k && !strcmp(k, key))
            return yaml_document_get_node(&c->doc, p->value);
    }
    return NULL;
}

static size_t seq_len(const yaml_node_t *n)
{
    return n && n->type == YAML_SEQUENCE_NODE ? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)
                                              : 0;
}

static yaml_node_t *seq_item(lctx *c, const yaml_node_t *n, size_t i)
{
    return yaml_document_get_node(&c->doc, n->data.sequence.items.start[i]);
}

/* ---- checks on the document: what the strict loader stops at ---- */

static void walk_labels(lctx *c, yaml_node_t *list, const char *what)
{
    if (!list || list->type != YAML_SEQUENCE_NODE)
        return; /* absent or not a list: the loader says so */
    size_t n = seq_len(list);
    if (n == 0)
        add(c, loc_of(list), "%s is empty: list the labels in the model's output order", what);
    px_strmap *seen = strmap_new(n);
    if (!seen) {
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *it = seq_item(c, list, i);
        long j = -1;
        int dup = scalar(it) ? strmap_put(seen, scalar(it), (long)i, &j) : 0;
        if (dup < 0)
            c->oom = 1;
        else if (dup)
            add(c, loc_of(it), "label '%s' is listed twice in %s (first at line %d)", scalar(it), what,
                loc_of(seq_item(c, list, (size_t)j)).line);
    }
    strmap_free(seen);
}

static void walk_env_labels(lctx *c)
{
    yaml_node_t *envs = get(c, c->root, "environments");
    if (!envs || envs->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *p = envs->data.mapping.pairs.start; p < envs->data.mapping.pairs.top; p++) {
        const char *name = scalar(yaml_document_get_node(&c->doc, p->key));
        char what[256];
        snprintf(what, sizeof what, "environment '%s'.labels", name ? name : "?");
        walk_labels(c, get(c, yaml_document_get_node(&c->doc, p->value), "labels"), what);
    }
}

static void walk_ids(lctx *c)
{
    yaml_node_t *ex = get(c, c->root, "examples");
    size_t n = seq_len(ex);
    px_strmap *seen = strmap_new(n);
    if (!seen) {
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *id = get(c, seq_item(c, ex, i), "id");
        long j = -1;
        int dup = scalar(id) ? strmap_put(seen, scalar(id), (long)i, &j) : 0;
        if (dup < 0)
            c->oom = 1;
        else if (dup) /* the line of the first example, as the loader names it */
            add(c, loc_of(id), "duplicate example id '%s' (first at line %d)", scalar(id),
                loc_of(seq_item(c, ex, (size_t)j)).line);
    }
    strmap_free(seen);
}

/* Edit distance of a and b, 3 when it is more than 2 (all that matters). */
static int near(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > 2 || la > 64 || lb > 64)
        return 3;
    int row[65], prev[65];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int d = prev[j - 1] + (a[i - 1] != b[j - 1]), up = prev[j] + 1, left = row[j - 1] + 1;
            row[j] = d < up ? (d < left ? d : left) : (up < left ? up : left);
        }
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb] > 2 ? 3 : prev[lb];
}

/* The labels an example's expect names: expect.label, and each of
 * expect.any_of; n (at most max) of them into out. */
static size_t expect_labels(lctx *c, yaml_node_t *x, yaml_node_t **out, size_t max)
{
    yaml_node_t *e = get(c, x, "expect"), *l = get(c, e, "label"), *any = get(c, e, "any_of");
    size_t n = 0;
    if (scalar(l) && n < max)
        out[n++] = l;
    for (size_t i = 0; i < seq_len(any) && n < max; i++)
        if (scalar(seq_item(c, any, i)))
            out[n++] = seq_item(c, any, i);
    return n;
}

/* Every label an example expects that contract.labels lacks, each at its
 * own place with the valid labels. When it is close (edit distance at
 * most 2) to a listed label that no example uses, the list is the likely
 * typo: said at the list's entry, naming both. */
static void walk_example_labels(lctx *c)
{
    yaml_node_t *list = get(c, get(c, c->root, "contract"), "labels"), *ex = get(c, c->root, "examples");
    size_t n = seq_len(list), n_ex = seq_len(ex);
    if (!list || list->type != YAML_SEQUENCE_NODE || !n)
        return;
    char valid[1024] = "";
    int *used = calloc(n, sizeof *used), *said = calloc(n, sizeof *said);
    if (!used || !said) {
        free(used), free(said);
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (scalar(seq_item(c, list, i)))
            snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "",
                     scalar(seq_item(c, list, i)));
    yaml_node_t *names[64];
    for (size_t i = 0; i < n_ex; i++) {
        size_t k = expect_labels(c, seq_item(c, ex, i), names, 64);
        for (size_t j = 0; j < k; j++)
            for (size_t l = 0; l < n; l++)
                if (scalar(seq_item(c, list, l)) && !strcmp(scalar(seq_item(c, list, l)), scalar(names[j])))
                    used[l] = 1;
    }
    for (size_t i = 0; i < n_ex; i++) {
        yaml_node_t *x = seq_item(c, ex, i);
        const char *id = scalar(get(c, x, "id"));
        size_t k = expect_labels(c, x, names, 64);
        for (size_t j = 0; j < k; j++) {
            const char *want = scalar(names[j]);
            long closest = -1, unused = -1;
            int known = 0;
            for (size_t l = 0; l < n && !known; l++) {
                const char *have = scalar(seq_item(c, list, l));
                if (!have)
                    continue;
                known = !strcmp(have, want);
                if (!known && near(have, want) <= 2) {
                    if (closest < 0)
                        closest = (long)l;
                    if (!used[l] && unused < 0)
                        unused = (long)l;
                }
            }
            if (known)
                continue;
            if (unused >= 0) {
                yaml_node_t *entry = seq_item(c, list, (size_t)unused);
                if (!said[unused])
                    add(c, loc_of(entry),
                        "contract.labels has '%s', which no example expects, and example '%s' (line %d) expects "
                        "'%s': if the list has the typo, write '%s' here; else correct the example",
                        scalar(entry), id ? id : "?", loc_of(names[j]).line, want, want);
                said[unused] = 1;
            } else if (closest >= 0) {
                add(c, loc_of(names[j]), "label '%s' is not in contract.labels: did you mean '%s'? (the labels: %s)",
                    want, scalar(seq_item(c, list, (size_t)closest)), valid);
            } else {
                add(c, loc_of(names[j]), "label '%s' is not in contract.labels (the labels: %s)", want, valid);
            }
        }
    }
    free(used), free(said);
}

/* ---- checks on the typed fixture ---- */

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

static void check_why(lctx *c, const char *why, px_loc at, const char *what, const char *ask)
{
    if (!why)
        add(c, at, "%s has no why: %s", what, ask);
    else if (blank(why))
        add(c, at, "%s has an empty why: %s", what, ask);
}

static void check_tolerances(lctx *c, const px_fixture *f)
{
    static const char ask[] = "write down why the tolerance is this wide";
    static const char ask_cos[] = "write down why the vectors may be this far apart";
    const char *tk = kind_of(f)->values;
    yaml_node_t *cmp = get(c, get(c, c->root, "contract"), "compare");
    char what[256];
    snprintf(what, sizeof what, "contract.compare.%s", tk);
    if (f->logits_tol.present)
        check_why(c, f->logits_tol.why, key_loc(c, cmp, tk, f->logits_tol.loc), what, ask);
    if (f->similar.present)
        check_why(c, f->similar.why, f->similar.loc, "contract.compare.similar_to_reference", ask_cos);
    /* An image's checks load only with their why; without compare.latents
     * its pictures are judged, but where two environments parted is not. */
    if (kind_of(f)->denoises && !f->image_cmp.latents.present)
        add(c, cmp ? loc_of(cmp) : key_loc(c, get(c, c->root, "contract"), "image", f->image.loc),
            "contract.compare.latents is not set: the pictures are still checked, but no earliest divergence by "
            "latent is found (which step two environments parted at); give it {atol, rtol, why}%s",
            "");
    yaml_node_t *ex = get(c, c->root, "examples");
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_example *x = &f->examples[i];
        snprintf(what, sizeof what, "example '%s' compare.%s", x->id, tk);
        cmp = get(c, seq_item(c, ex, i), "compare");
        if (x->tol && x->tol->present)
            check_why(c, x->tol->why, key_loc(c, cmp, tk, x->tol->loc), what, ask);
        snprintf(what, sizeof what, "example '%s' similar_to_reference", x->id);
        if (x->similar && x->similar->present)
            check_why(c, x->similar->why, x->similar->loc, what, ask_cos);
    }
}

/* Compiled by the cleaner itself, so lint and run agree on what compiles
 * (it refuses \C, for one). */
static void check_rules(lctx *c, const px_fixture *f)
{
    px_cleaner *cl = cleaner_new();
    if (!cl) {
        c->oom = 1;
        return;
    }
    for (size_t i = 0; i < f->n_rules; i++) {
        const px_clean_rule *r = &f->rules[i];
        char what[64];
        snprintf(what, sizeof what, "cleaning rule %zu", i + 1);
        check_why(c, r->why, r->loc, what, "write down why the text may change this way");
        px_error err = {0};
        if (cleaner_add(cl, r->pattern, r->replace, &err) == 0)
            continue;
        if (err.reason == PX_ERR_NO_MEMORY)
            c->oom = 1;
        else
            add(c, r->loc, "%s: %s", what, err.msg);
    }
    cleaner_free(cl);
    for (size_t i = 0; i < f->n_redact; i++) {
        char what[64];
        snprintf(what, sizeof what, "redact pattern %zu", i + 1);
        check_why(c, f->redact[i].why, f->redact[i].loc, what, "write down what it keeps from leaving the machine");
    }
}

static void check_pattern(lctx *c, const px_pattern *p, const char *key)
{
    if (!p->text)
        return;
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p->text, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &off, NULL);
    if (re) {
        pcre2_code_free(re);
        return;
    }
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    add(c, p->loc, "expect.%s: pattern '%s': %s at offset %zu", key, p->text, (const char *)msg, (size_t)off);
}

static void check_kinds(lctx *c, const px_fixture *f)
{
    static const char *const kinds[] = {"normal", "short", "long", "reject", "ambiguous"};
    /* A training run's examples are recipes, not cases of a text task. */
    if (kind_of(f)->trains)
        return;
    /* An image's input is a class: no text is short or long, and a class
     * is not ambiguous; what it needs is a class drawn and one refused. */
    if (kind_of(f)->denoises) {
        yaml_node_t *at = key_node(c, c->root, "examples");
        int drawn = 0, refused = 0;
        for (size_t i = 0; i < f->n_examples; i++)
            drawn |= f->examples[i].expect.kind != PX_EXPECT_REJECTED,
                refused |= f->examples[i].expect.kind == PX_EXPECT_REJECTED;
        if (at && !drawn)
            add(c, loc_of(at), "no example draws a picture (every one expects rejected: true)%s", "");
        if (at && !refused)
            add(c, loc_of(at), "no example must be rejected (a class not in contract.labels, expect: {rejected: "
                               "true}): input processing's refusal is untested%s", "");
        return;
    }
    yaml_node_t *key = key_node(c, c->root, "examples");
    if (!key)
        return; /* the loader already refused it */
    /* An embedding's kinds are its queries': a document is what is searched,
     * not a case of the task. */
    int emb = kind_of(f)->searches;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int seen = 0;
        for (size_t i = 0; i < f->n_examples; i++)
            seen |= (!emb || f->examples[i].role == PX_ROLE_QUERY) && !strcmp(f->examples[i].kind, kinds[k]);
        if (!seen && emb)
            add(c, loc_of(key),
                "no query of kind '%s' (a search fixture needs queries of kind normal, short, long, reject and "
                "ambiguous)",
                kinds[k]);
        else if (!seen)
            add(c, loc_of(key), "no example of kind '%s' (a fixture needs normal, short, long, reject and ambiguous)",
                kinds[k]);
    }
}

/* An embedding's search: queries to judge it by, documents for them to
 * find, and a query marked ambiguous whose window lets either of its
 * close documents come first (order exact on an ambiguous query judges a
 * tie as a failure). */
static void check_search(lctx *c, const px_fixture *f)
{
    if (!kind_of(f)->searches)
        return;
    size_t queries = 0;
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_example *x = &f->examples[i];
        queries += x->role == PX_ROLE_QUERY && x->expect.kind == PX_EXPECT_RETRIEVAL;
        const px_retrieval *r = x->expect.retrieval;
        if (r && r->exact && !strcmp(x->kind, "ambiguous"))
            add(c, r->loc,
                "ambiguous query '%s' has order: exact: a near tie between its documents would fail it either way; "
                "use order: set (or decide it is not ambiguous)",
                x->id);
    }
    yaml_node_t *key = key_node(c, c->root, "examples");
    px_loc at = key ? loc_of(key) : (px_loc){1, 1};
    if (!queries)
        add(c, at, "no query with expect.top: an embedding's fixture judges its search by what its queries find "
                   "(role: query, expect: {top: [document ids], k})");
    if (f->n_documents < 2)
        add(c, at, "%s: a search needs at least two (role: document) for a ranking to mean anything",
            f->n_documents ? "only one document" : "no document");
}

/* An ambiguous example is only a test once someone decided what it means;
 * needs-rule and flag say that decision is still open. */
static void check_ambiguous(lctx *c, const px_fixture *f)
{
    static const char ask[] = "decide it (accept, defect or unsupported)";
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_example *x = &f->examples[i];
        const char *d = x->review.decision;
        if (strcmp(x->kind, "ambiguous"))
            continue;
        if (!d)
            add(c, x->loc, "ambiguous example '%s' has no review.decision: %s", x->id, ask);
        else if (decision_kind(d) != PX_DEC_NONE && !px_decision_table[decision_kind(d)].settles)
            add(c, x->loc, "ambiguous example '%s' is undecided (review.decision: %s): %s", x->id, d, ask);
    }
}

/* Every example says what it stands for; an expectation that accepts every
 * one of three or more labels checks nothing (parity init writes both for
 * the author to fill in; with two labels, "either" is a fair ambiguous
 * expectation). */
static void check_examples(lctx *c, const px_fixture *f)
{
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_example *x = &f->examples[i];
        char what[160];
        snprintf(what, sizeof what, "example '%s'", x->id);
        check_why(c, x->why, x->loc, what, "write down what it stands for, and what a change in it would mean");
        if (x->expect.kind != PX_EXPECT_ANY_OF || f->n_labels < 3)
            continue;
        size_t covered = 0;
        for (size_t l = 0; l < f->n_labels; l++)
            for (size_t j = 0; j < x->expect.n_any_of; j++)
                if (x->expect.any_of[j] == (int)l) {
                    covered++;
                    break;
                }
        if (covered == f->n_labels)
            add(c, x->expect.loc, "example '%s' accepts every label (expect.any_of lists all %zu): narrow it to the "
                                  "labels it may be given",
                x->id, f->n_labels);
    }
}

/* parity init --propose wrote the reference's answer as the expectation,
 * flagged: until a person confirms it, it is the program's word, not a
 * reviewer's. */
static void check_proposals(lctx *c, const px_fixture *f)
{
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_review *r = &f->examples[i].review;
        if (decision_kind(r->decision) == PX_DEC_FLAG && r->note && !strcmp(r->note, PX_PROPOSAL_NOTE))
            add(c, f->examples[i].loc,
                "example '%s' still carries the reference run's proposal: confirm its expect (parity decide, or a "
                "in the review screen) or correct it",
                f->examples[i].id);
    }
}

/* The env's own model: or vocab: key (the typed env keeps no place for it);
 * the typed environments are in the document's order. */
static px_loc env_override_loc(lctx *c, const px_env *e, size_t env, const char *key)
{
    yaml_node_t *envs = get(c, c->root, "environments");
    yaml_node_pair_t *p = envs->data.mapping.pairs.start + env;
    return key_loc(c, yaml_document_get_node(&c->doc, p->value), key, e->loc);
}

static void check_pins(lctx *c, const px_fixture *f)
{
    yaml_node_t *contract = get(c, c->root, "contract");
    if (!f->model_sha256)
        add(c, key_loc(c, contract, "model", f->model_loc),
            f->model_format == PX_FORMAT_TRANSFORMERS || f->model_format == PX_FORMAT_DIFFUSERS
                ? "contract.model has no files: pin each file of the model directory (sha256sum) the examples were "
                  "reviewed with"
                : "contract.model has no sha256: pin the model revision the examples were reviewed with");
    if (!f->vocab_sha256 && f->vocab_path) /* an image's contract has no tokenizer */
        add(c, key_loc(c, get(c, contract, "input"), "tokenizer", f->tokenizer_loc),
            "contract.input.tokenizer has no sha256: pin the vocabulary revision");
    for (size_t i = 0; i < f->n_envs; i++) {
        const px_env *e = &f->envs[i];
        if (e->own_model && !e->model_sha256)
            add(c, env_override_loc(c, e, i, "model"), "environment '%s'.model has no %s: pin the model revision",
                e->name,
                e->model_format == PX_FORMAT_TRANSFORMERS || e->model_format == PX_FORMAT_DIFFUSERS
                    ? "files: (each file's sha256)"
                    : "sha256");
        if (e->own_vocab && !e->vocab_sha256)
            add(c, env_override_loc(c, e, i, "vocab"),
                "environment '%s'.vocab has no sha256: pin the vocabulary revision", e->name);
    }
}

/* ---- what run loads: the files, their pins, the tokenizer ---- */

static void report_dir(void *ctx, const px_error *err)
{
    add(ctx, (px_loc){err->line, err->col}, "%s", err->msg);
}

/* One file run hashes before it loads it: there, readable, and (when
 * pinned) the pinned revision. 1 when it is there. */
static int check_file(lctx *c, const px_fixture *f, const char *what, const char *path, const char *pinned,
                      px_loc path_at, px_loc pin_at)
{
    char hex[PX_SHA256_HEX];
    px_error e = {0};
    if (hash_file(path, hex, &e)) {
        add(c, path_at, "%s file %s: %s: run would refuse it; correct the path (relative to the fixture)", what, path,
            e.msg);
        return 0;
    }
    if (pinned && strcmp(hex, pinned))
        add(c, pin_at,
            "%s %s has sha256 %s, not the pinned %s: a different file is a different task: re-pin after review "
            "with: parity pin %s",
            what, path, hex, pinned, f->path);
    return 1;
}

/* The number of outputs a Transformers directory's config.json gives
 * (id2label's size, else num_labels); 0 when it says none. */
static size_t config_labels(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    json_t *cfg = json_load_file(path, 0, NULL);
    size_t n = 0;
    json_t *id2label = json_object_get(cfg, "id2label"), *num = json_object_get(cfg, "num_labels");
    if (json_is_object(id2label))
        n = json_object_size(id2label);
    else if (json_is_integer(num) && json_integer_value(num) > 0)
        n = (size_t)json_integer_value(num);
    json_decref(cfg);
    return n;
}

/* An embedding's width and a model's positions, from its config.json (a
 * Transformers directory) or its executor's DESCRIBE. The width only where
 * the vector is pooled from the hidden states (mean, cls): a model that
 * returns its own vector (pooling none) may project it to another. */
static void check_shape_fits(lctx *c, const px_fixture *f, long width, long positions)
{
    if (kind_of(f)->pools && f->pooling != PX_POOL_NONE && width > 0 && width != f->dim)
        add(c, c->dim_at,
            "contract.model.dim %d, but the model's hidden states are %ld wide: every output would be bad-shape; "
            "set dim: %ld",
            f->dim, width, width);
    /* a training run's windows are its seq_len, not max_tokens (check_training) */
    if (positions > 0 && f->max_tokens > (size_t)positions && !kind_of(f)->trains)
        add(c, c->max_tokens_at,
            "max_tokens %zu is more than the model's %ld positions: a text that long would raise in the model "
            "instead of being rejected; set max_tokens: %ld",
            f->max_tokens, positions, positions);
}

/* A model as run loads it: a file (hashed against its pin) or a
 * Transformers directory (each file against its pin, every problem said,
 * and its config.json's outputs against the labels). */
static void check_model_files(lctx *c, const px_fixture *f, const char *what, const char *path,
                              enum px_model_format fmt, const char *sha, px_loc sha_loc, const px_model_file *files,
                              size_t n_files, px_loc path_at, size_t n_labels, px_loc labels_at)
{
    if (fmt != PX_FORMAT_TRANSFORMERS && fmt != PX_FORMAT_DIFFUSERS) {
        check_file(c, f, what, path, sha, path_at, sha_loc);
    } else if (sha) {
        char digest[PX_SHA256_HEX];
        px_error err = {0};
        modeldir_at at = {f->path, path_at.line, path_at.col, sha_loc.line, sha_loc.col};
        if (modeldir_check_each(&at, path, files, n_files, digest, report_dir, c, &err) &&
            err.reason != PX_ERR_MISMATCH) /* a mismatch was reported already */
            add(c, path_at, "%s", err.msg);
    }
    if (fmt == PX_FORMAT_TRANSFORMERS && kind_of(f)->decides_label && n_labels) {
        size_t outputs = config_labels(path);
        if (outputs && outputs != n_labels)
            add(c, labels_at,
                "%zu labels for a model whose config.json gives %zu outputs (id2label, num_labels): run would refuse "
                "it; list one label per output, in the model's order",
                n_labels, outputs);
    }
    if (fmt == PX_FORMAT_TRANSFORMERS && !access(path, R_OK))
        check_shape_fits(c, f, modeldir_config_long(path, "hidden_size"),
                         modeldir_config_long(path, "max_position_embeddings"));
    /* A model file there, described where an executor here can load it */
    px_lint_model m = {-1, -1, -1};
    if (fmt == PX_FORMAT_TRANSFORMERS || fmt == PX_FORMAT_DIFFUSERS || !c->describe || access(path, R_OK) ||
        c->describe(c->describe_ctx, path, fmt, f->kind, &m))
        return;
    if (kind_of(f)->decides_label && n_labels && m.head > 0 && (size_t)m.head != n_labels)
        add(c, labels_at,
            "%zu labels for a model whose classifier head gives %ld outputs: run would refuse it; list one label "
            "per output, in the model's order",
            n_labels, m.head);
    check_shape_fits(c, f, m.hidden, m.max_positions);
}

static px_tokenizer *tokenizer_of(const px_fixture *f, const char *path, px_error *err)
{
    return f->tokenizer_hf      ? tokenizer_load_hf(path, err)
           : f->tokenizer_chars ? tokenizer_load_chars(path, err)
                                : tokenizer_load(path, f->lowercase, err);
}

/* The tokenizer's ids against the rows of the embedding of the
 * Transformers directory it feeds (model_dir; NULL for a model file, whose
 * config lint cannot read): run refuses the same before any model starts. */
static void check_vocab_fits(lctx *c, const px_fixture *f, const px_tokenizer *tok, const char *path,
                             const char *model_dir, px_loc at)
{
    px_error err = {0};
    if (model_dir && modeldir_vocab_check(f->path, at.line, at.col, model_dir, path, tokenizer_vocab_size(tok), &err))
        add(c, at, "%s", err.msg);
}

/* The tokenizer as run loads it, and every example through it (cleaning,
 * encoding): what run would refuse before starting a model. */
static void check_tokenizer(lctx *c, const px_fixture *f, const char *path, px_loc at, int examples,
                            const char *model_dir)
{
    px_error err = {0};
    px_tokenizer *tok = tokenizer_of(f, path, &err);
    if (!tok) {
        char why[sizeof err.msg + 600];
        px_error_format(&err, why, sizeof why);
        add(c, at, "the tokenizer cannot be read: %.700s", why);
        return;
    }
    check_vocab_fits(c, f, tok, path, model_dir, at);
    px_prep p = {.tok = tok, .cleaner = examples ? cleaner_new() : NULL};
    int ok = p.cleaner != NULL;
    for (size_t i = 0; ok && i < f->n_rules; i++) {
        px_error rerr = {0};
        ok = !cleaner_add(p.cleaner, f->rules[i].pattern, f->rules[i].replace, &rerr); /* check_rules says why */
    }
    for (size_t i = 0; ok && i < f->n_examples; i++) {
        const px_example *x = &f->examples[i];
        px_prepared out;
        px_error xerr = {0};
        if (prep_example(&p, f, x->text, x->text_len, &out, &xerr))
            add(c, x->text_loc, "example '%s': %s", x->id, xerr.msg);
        else
            prepared_free(&out);
    }
    prep_close(&p);
}

static px_loc node_loc(yaml_node_t *n, px_loc fallback) { return n ? loc_of(n) : fallback; }

static const char *transformers_dir(enum px_model_format fmt, const char *path)
{
    return fmt == PX_FORMAT_TRANSFORMERS ? path : NULL;
}

static const px_model_file *pin_named(const px_model_file *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

/* Whether the files a and b are one tokenizer: 1, 0, or -1 when one cannot
 * be read (another finding says why). Not their bytes: a tokenizer.json
 * saved again may order its keys, space and escape otherwise, so it is the
 * same JSON document once parsed; a vocab.txt, the same token at each id. */
static int same_tokenizer(const px_fixture *f, const char *a, const char *b)
{
    if (f->tokenizer_hf) {
        json_t *x = json_load_file(a, 0, NULL), *y = x ? json_load_file(b, 0, NULL) : NULL;
        int same = x && y ? json_equal(x, y) : -1;
        json_decref(x), json_decref(y);
        return same;
    }
    px_error err = {0};
    px_tokenizer *x = tokenizer_of(f, a, &err), *y = x ? tokenizer_of(f, b, &err) : NULL;
    int same = x && y ? tokenizer_vocab_size(x) == tokenizer_vocab_size(y) : -1;
    for (size_t i = 0; same == 1 && i < tokenizer_vocab_size(x); i++) {
        const char *s = tokenizer_token(x, (int64_t)i), *t = tokenizer_token(y, (int64_t)i);
        same = s && t ? !strcmp(s, t) : s == t;
    }
    tokenizer_free(x), tokenizer_free(y);
    return same;
}

/* The tokenizer against the one the Transformers directory it feeds was
 * saved with (its pinned tokenizer.json, or vocab.txt for a wordpiece
 * tokenizer): another one gives other ids, and every forward, proposal and
 * verdict would be of inputs the model was never meant to see. Equal pins
 * are the same file; else the contents are compared (same_tokenizer). */
static void check_own_tokenizer(lctx *c, const px_fixture *f, const char *vocab, const char *vocab_sha,
                                const char *model_dir, const px_model_file *files, size_t n_files, px_loc at)
{
    const char *name = f->tokenizer_hf ? "tokenizer.json" : "vocab.txt";
    const px_model_file *own = model_dir && !f->tokenizer_chars ? pin_named(files, n_files, name) : NULL;
    if (!own || (vocab_sha && !strcmp(vocab_sha, own->sha256)))
        return;
    char *theirs = strf("%s/%s", model_dir, name);
    if (!theirs) {
        c->oom = 1;
        return;
    }
    if (same_tokenizer(f, vocab, theirs) == 0)
        add(c, at,
            "the tokenizer %s is not the model directory's own %s (%s, pinned at line %d): it gives other ids than "
            "the model was saved with; point %s at %s and re-pin (parity pin %s)",
            vocab, name, theirs, own->line, f->tokenizer_hf ? "file:" : "vocab:", theirs, f->path);
    free(theirs);
}

/* An environment's own model directory against the tokenizer it is fed:
 * the contract's, or its own (a tokenizer revision under test is meant to
 * differ from the directory's file, but its ids must still fit). */
static void check_env_tokenizer(lctx *c, const px_fixture *f, const px_env *e, px_loc model_at, px_loc vocab_at)
{
    const char *dir = e->own_model ? transformers_dir(e->model_format, e->model_path) : NULL;
    if (!dir || !e->vocab_path || access(e->vocab_path, R_OK))
        return;
    if (!e->own_vocab)
        check_own_tokenizer(c, f, e->vocab_path, e->vocab_sha256, dir, e->model_files, e->n_model_files, model_at);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_of(f, e->vocab_path, &err);
    if (tok)
        check_vocab_fits(c, f, tok, e->vocab_path, dir, e->own_vocab ? vocab_at : model_at);
    tokenizer_free(tok);
}

static void check_files(lctx *c, const px_fixture *f)
{
    yaml_node_t *contract = get(c, c->root, "contract"), *m = get(c, contract, "model");
    yaml_node_t *t = get(c, get(c, contract, "input"), "tokenizer");
    px_loc model_at = node_loc(get(c, m, "path"), f->model_loc);
    px_loc tok_at = node_loc(get(c, t, f->tokenizer_hf ? "file" : "vocab"), f->tokenizer_loc);
    const char *tok_what = f->tokenizer_hf ? "tokenizer" : "vocab";
    yaml_node_t *input = get(c, contract, "input");
    c->max_tokens_at = node_loc(get(c, input, "max_tokens"), node_loc(input, f->tokenizer_loc));
    c->dim_at = node_loc(get(c, m, "dim"), f->model_loc);
    check_model_files(c, f, "model", f->model_path, f->model_format, f->model_sha256, f->model_sha_loc,
                      f->model_files, f->n_model_files, model_at, f->n_labels,
                      node_loc(get(c, contract, "labels"), f->labels_loc));
    const char *dir = transformers_dir(f->model_format, f->model_path);
    if (f->vocab_path && check_file(c, f, tok_what, f->vocab_path, f->vocab_sha256, tok_at, f->vocab_sha_loc)) {
        /* a training run has no example text: its data is checked apart */
        check_tokenizer(c, f, f->vocab_path, tok_at, !kind_of(f)->trains, dir);
        check_own_tokenizer(c, f, f->vocab_path, f->vocab_sha256, dir, f->model_files, f->n_model_files, tok_at);
    }
    yaml_node_t *envs = get(c, c->root, "environments");
    for (size_t i = 0; i < f->n_envs; i++) {
        const px_env *e = &f->envs[i];
        yaml_node_t *en = yaml_document_get_node(&c->doc, (envs->data.mapping.pairs.start + i)->value);
        if (!e->device)
            continue; /* imported: run loads nothing of it */
        if (e->own_model || (e->own_labels && e->model_format == PX_FORMAT_TRANSFORMERS))
            check_model_files(c, f, "model", e->model_path, e->model_format, e->own_model ? e->model_sha256 : NULL,
                              e->model_sha_loc, e->model_files, e->n_model_files,
                              node_loc(get(c, get(c, en, "model"), "path"), e->loc),
                              e->own_model || e->own_labels ? e->n_labels : 0, e->labels_loc);
        px_loc at = node_loc(get(c, get(c, en, "vocab"), "path"), e->loc);
        if (e->own_vocab && check_file(c, f, tok_what, e->vocab_path, e->vocab_sha256, at, e->vocab_sha_loc))
            check_tokenizer(c, f, e->vocab_path, at, 0, e->own_model ? NULL : dir);
        check_env_tokenizer(c, f, e, node_loc(get(c, get(c, en, "model"), "path"), e->loc), at);
    }
}

/* ---- a training run's contract (kind training) ---- */

/* The data's token count with the contract's tokenizer, -1 when it cannot
 * be read (another finding says why). Read whole, at most 256 MiB. */
static long data_tokens(const px_fixture *f)
{
    enum { MOST = 256 << 20 };
    FILE *fp = fopen(f->train_data.path, "rb");
    if (!fp)
        return -1;
    char *text = malloc(MOST + 1);
    size_t len = text ? fread(text, 1, MOST + 1, fp) : 0;
    int bad = !text || ferror(fp) || len > MOST;
    fclose(fp);
    px_error err = {0};
    px_tokenizer *tok = bad ? NULL : tokenizer_of(f, f->vocab_path, &err);
    px_encoding enc = {0};
    long n = tok && !tokenizer_encode(tok, text, len, 0, 0, &enc, &err) ? (long)enc.n : -1;
    if (n >= 0)
        encoding_free(&enc);
    tokenizer_free(tok);
    free(text);
    return n;
}

/* One recipe against the data and the model: a window of seq_len + 1
 * tokens at least, a step's batch without repeats, seq_len within the
 * model's positions. */
static void check_recipe(lctx *c, const px_recipe *r, const char *whose, long tokens, long positions, px_loc at)
{
    long windows = tokens >= 2 ? (tokens - 1) / r->seq_len : 0;
    if (tokens >= 0 && windows == 0)
        add(c, at, "%s: the data is %ld tokens, not one window of seq_len + 1 = %d: run would refuse it; give more "
                   "text or a shorter seq_len",
            whose, tokens, r->seq_len + 1);
    else if (tokens >= 0 && windows < r->batch_size)
        add(c, at, "%s: the data makes %ld windows of seq_len + 1 = %d tokens, fewer than a step's batch_size %d: "
                   "each step trains on some window twice; give more text or a smaller batch",
            whose, windows, r->seq_len + 1, r->batch_size);
    if (positions > 0 && r->seq_len > positions)
        add(c, at, "%s: seq_len %d is more than the model's %ld positions (config.json max_position_embeddings): "
                   "every step would raise; set seq_len to at most %ld",
            whose, r->seq_len, positions, positions);
}

/* The data file there and its pin; every recipe's windows and positions;
 * the tokenizer's ids below the model's vocab_size is check_tokenizer's
 * (check_vocab_fits), a batch that a parallel environment cannot split
 * and a compare.train check without its why are the loader's. */
static void check_training(lctx *c, const px_fixture *f)
{
    if (!kind_of(f)->trains)
        return;
    yaml_node_t *contract = get(c, c->root, "contract"), *t = get(c, contract, "train");
    yaml_node_t *d = get(c, t, "data");
    px_loc path_at = node_loc(get(c, d, "path"), f->train_data.loc);
    if (!f->train_data.path || !check_file(c, f, "training data", f->train_data.path, f->train_data.sha256, path_at,
                                           f->train_data.sha_loc))
        return;
    long tokens = f->vocab_path && !access(f->vocab_path, R_OK) ? data_tokens(f) : -1;
    long positions = f->model_format == PX_FORMAT_TRANSFORMERS && !access(f->model_path, R_OK)
                         ? modeldir_config_long(f->model_path, "max_position_embeddings")
                         : -1;
    check_recipe(c, &f->recipe, "contract.train", tokens, positions, node_loc(get(c, t, "seq_len"), f->recipe.loc));
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_recipe *r = f->examples[i].recipe;
        if (!r || (r->seq_len == f->recipe.seq_len && r->batch_size == f->recipe.batch_size))
            continue; /* the contract's windows: said once */
        char whose[300];
        snprintf(whose, sizeof whose, "example '%.200s' train", f->examples[i].id);
        check_recipe(c, r, whose, tokens, positions, r->loc);
    }
}

/* What parity init writes for the author to replace (src/cmd/cmd_init.c:
 * keep the two in step): a placeholder left is a fixture not yet written. */
static void check_placeholders(lctx *c, const px_fixture *f)
{
    yaml_node_t *contract = get(c, c->root, "contract");
    if (f->task && !strcmp(f->task, px_init_task))
        add(c, node_loc(get(c, contract, "task"), (px_loc){1, 1}),
            "contract.task is still parity init's placeholder: write in one sentence what the task is");
    for (size_t i = 0; i < f->n_examples; i++)
        for (size_t k = 0; k < 5; k++)
            if (f->examples[i].text && !blank(px_init_texts[k]) && !strcmp(f->examples[i].text, px_init_texts[k]))
                add(c, f->examples[i].text_loc,
                    "example '%s' still has parity init's placeholder text: put a real %s text of the task here",
                    f->examples[i].id, f->examples[i].kind);
}

/* A format the environment's executor cannot load. */
static void check_formats(lctx *c, const px_fixture *f)
{
    for (size_t i = 0; i < f->n_envs; i++) {
        char msg[512];
        px_loc at;
        if (fixture_env_format_refused(&f->envs[i], msg, sizeof msg, &at))
            add(c, at, "%s", msg);
    }
}

static void check_typed(lctx *c, const px_fixture *f)
{
    check_pins(c, f);
    check_files(c, f);
    check_placeholders(c, f);
    check_formats(c, f);
    check_training(c, f);
    check_rules(c, f);
    check_tolerances(c, f);
    check_kinds(c, f);
    check_search(c, f);
    check_ambiguous(c, f);
    check_examples(c, f);
    check_proposals(c, f);
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_expect *x = &f->examples[i].expect;
        check_pattern(c, &x->reason, "reason");
        check_pattern(c, &x->must_match, "must_match");
        check_pattern(c, &x->must_not_match, "must_not_match");
        for (size_t j = 0; x->text && j < x->text->n_must_match; j++)
            check_pattern(c, &x->text->must_match[j], "must_match");
        for (size_t j = 0; x->text && j < x->text->n_must_not_match; j++)
            check_pattern(c, &x->text->must_not_match[j], "must_not_match");
    }
}

/* ---- driving it ---- */

/* The loader gives the typed fixture for the other checks; without one its
 * error is a finding when it has a place (unless a walk finding already
 * stands there: the same duplicate, found twice), else the lint fails. */
static int lint_typed(lctx *c, const char *path, const char *data, size_t len, px_error *err)
{
    px_error perr = {0};
    px_fixture *f = fixture_parse_lint(path, data, len, &perr);
    if (f) {
        check_typed(c, f);
        fixture_free(f);
        return 0;
    }
    if (perr.line <= 0) {
        if (err)
            *err = perr;
        return -1;
    }
    if (!found_at(c->out, perr.line, perr.col))
        add(c, (px_loc){perr.line, perr.col}, "%s", perr.msg);
    return 0;
}

static int lint_run(const char *path, const char *data, size_t len, px_lint_describe_fn fn, void *fn_ctx,
                    px_lint *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    lctx c = {.out = out, .describe = fn, .describe_ctx = fn_ctx};
    /* Not YAML, too deep, or no document: ydoc words the error, with its place. */
    int loaded = ydoc_load(path, data, len, "fixture", &c.doc, err) == 0;
    c.root = loaded ? yaml_document_get_root_node(&c.doc) : NULL;
    int rc = 0;
    if (!c.root) {
        rc = -1;
    } else {
        walk_labels(&c, get(&c, get(&c, c.root, "contract"), "labels"), "contract.labels");
        walk_env_labels(&c);
        walk_ids(&c);
        walk_example_labels(&c);
        rc = lint_typed(&c, path, data, len, err);
    }
    if (loaded)
        yaml_document_delete(&c.doc);
    if (!rc && c.oom)
        rc = px_error_oom(err, path);
    if (rc)
        lint_free(out);
    else
        sort_findings(out);
    return rc;
}


int lint_parse(const char *path, const char *data, size_t len, px_lint *out, px_error *err)
{
    return lint_run(path, data, len, NULL, NULL, out, err);
}

int lint_fixture_described(const char *path, px_lint_describe_fn fn, void *ctx, px_lint *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *data = fixture_read(path, &len, err);
    if (!data)
        return -1;
    int rc = lint_run(path, data, len, fn, ctx, out, err);
    free(data);
    return rc;
}

int lint_fixture(const char *path, px_lint *out, px_error *err) { return lint_fixture_described(path, NULL, NULL, out, err); }

void lint_print(FILE *fp, const char *path, const px_lint *l)
{
    for (size_t i = 0; i < l->n; i++)
        fprintf(fp, "%s:%d:%d: lint: %s\n", path, l->v[i].line, l->v[i].col, l->v[i].msg);
}

void lint_free(px_lint *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].msg);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
