/* An embedding's report parts (report_kind.h): a query's first document
 * in run's table; its search beside the reference's, what each
 * environment does to the searches, its vectors' difference and its
 * expectation in words; its search in check's text and JSON. */
#include "parity/report_kind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parity/compare.h"
#include "parity/emit.h"
#include "parity/story.h"
#include "parity/strf.h"

/* ---- run's table ---- */

/* A query: the document its search puts first in the same environment
 * (what the search returns, at a glance; the judge ranks them all). A
 * document: "vector". */
static void first_document(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k)
{
    const px_example_result *x = &e->ex[k];
    if (f->examples[k].role != PX_ROLE_QUERY) {
        sbuf_add(b, "vector");
        return;
    }
    double best = -2;
    long at = -1;
    for (size_t d = 0; d < f->n_examples; d++) {
        if (f->examples[d].role != PX_ROLE_DOCUMENT)
            continue;
        const px_example_result *y = &e->ex[d];
        if (y->status != PX_ST_OK || y->n_values != x->n_values) {
            sbuf_addf(b, "(no vector for %s)", f->examples[d].id);
            return;
        }
        double c = compare_cosine(x->values, y->values, x->n_values);
        if (c > best)
            best = c, at = (long)d;
    }
    if (at >= 0)
        sbuf_addf(b, "%s %.3f", f->examples[at].id, best);
    else
        sbuf_add(b, "ok");
}

/* ---- a search in words ---- */

static void first_k_into(px_sbuf *b, const px_fixture *f, const px_embed_verdict *em)
{
    size_t n = (size_t)em->k < em->n_ranked ? (size_t)em->k : em->n_ranked;
    for (size_t i = 0; i < n; i++)
        sbuf_addf(b, "%s%s %.4g", i ? ", " : "", f->examples[em->doc[i]].id, em->score[i]);
}

const px_embed_verdict *story_reference_embed(const px_results *r, const px_judgement *j, size_t e, size_t k)
{
    if (r->reference < 0 || (size_t)r->reference == e || !j->envs[r->reference].ex)
        return NULL;
    return j->envs[r->reference].ex[k].embed;
}

char *story_search_words(const px_fixture *f, const px_embed_verdict *em, const px_embed_verdict *ref)
{
    if (!em->n_ranked)
        return strf("no ranking: %s", em->rank_note ? em->rank_note : "no search");
    px_sbuf b = PX_SBUF_INIT;
    sbuf_addf(&b, "top %d ", em->k);
    first_k_into(&b, f, em);
    px_sbuf there = PX_SBUF_INIT;
    if (ref && ref != em && ref->n_ranked)
        first_k_into(&there, f, ref);
    if (there.len)
        sbuf_add(&b, " | reference "), sbuf_add(&b, sbuf_str(&there));
    b.failed |= there.failed;
    sbuf_free(&there);
    if (em->held == 0)
        sbuf_addf(&b, " | changed: %s", em->moved ? em->moved : "its first k differ");
    else if (em->held == 1)
        sbuf_add(&b, " | held");
    if (isfinite(em->cosine))
        sbuf_addf(&b, " | cosine %.6g to the reference's vector", em->cosine);
    return sbuf_take(&b);
}

/* "top 3", or "top k" when the queries' windows differ. */
static void window_words(const px_fixture *f, char *buf, size_t size)
{
    int k = -1;
    for (size_t i = 0; i < f->n_examples; i++) {
        const px_expect *x = &f->examples[i].expect;
        if (x->kind != PX_EXPECT_RETRIEVAL)
            continue;
        k = k < 0 || k == x->retrieval->k ? x->retrieval->k : 0;
    }
    if (k > 0)
        snprintf(buf, size, "top %d", k);
    else
        snprintf(buf, size, "top k");
}

/* One environment's line of what it does to the queries' searches; NULL
 * when it has no query. */
static char *search_line(const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, const char *win)
{
    const px_env_verdict *ev = &j->envs[e];
    int tw = j->twin;
    size_t queries = 0, compared = 0, changed = 0, prec = 0, dev = 0, reordered = 0;
    px_sbuf which = PX_SBUF_INIT, order = PX_SBUF_INIT;
    for (size_t k = 0; k < r->n_examples; k++) {
        const px_verdict *v = &ev->ex[k];
        if (!v->embed || !v->embed->k)
            continue;
        queries++;
        compared += v->embed->held >= 0;
        if (v->embed->held == 1 && v->embed->moved) { /* held as a set, in another order */
            reordered++;
            sbuf_addf(&order, "%s%s: %s", order.len ? "; " : "", f->examples[k].id, v->embed->moved);
        }
        if (v->embed->held != 0)
            continue;
        changed++;
        prec += v->attr == PX_ATTR_PRECISION, dev += v->attr == PX_ATTR_DEVICE;
        sbuf_addf(&which, "%s%s: %s", which.len ? "; " : "", f->examples[k].id,
                  v->embed->moved ? v->embed->moved : "changed");
    }
    const px_env_result *er = &r->envs[e];
    char *line = NULL;
    if (!queries)
        ;
    else if (!compared)
        line = strf("%s: no query's search is compared (%zu without a ranking here or in the reference)", er->name,
                    queries);
    else {
        const char *dt = results_env_dtype(f, er), *wh = sbuf_str(&which);
        char nc[64] = "";
        if (compared < queries)
            snprintf(nc, sizeof nc, " (%zu not compared)", queries - compared);
        if ((int)e == tw)
            line = changed ? strf("%zu of %zu queries' %s change in the %s twin %s%s: precision (%s)", changed,
                                  compared, win, dt, er->name, nc, wh)
                           : strf("No query's %s changes in the %s twin %s%s: the searches hold in %s", win, dt,
                                  er->name, nc, dt);
        else if (!changed)
            line = strf("%s: no query's %s changes%s", er->name, win, nc);
        else
            line = strf("%s: %zu of %zu queries' %s change%s: %zu as in the twin (precision), %zu only here "
                        "(device)%s (%s)",
                        er->name, changed, compared, win, nc, prec, dev,
                        changed > prec + dev ? ", the others' cause unknown" : "", wh);
        if (line && reordered) {
            char *more = strf("%s; %zu held as a set in another order (%s)", line, reordered, sbuf_str(&order));
            free(line);
            line = more;
        }
    }
    sbuf_free(&which), sbuf_free(&order);
    return line;
}

/* What each environment does to the queries' searches (the twin first):
 * how many of the compared queries' first k change, which, and why. */
static size_t search_lines(const px_fixture *f, const px_results *r, const px_judgement *j, char ***out, int *twin_at)
{
    *out = NULL, *twin_at = -1;
    if (r->reference < 0)
        return 0;
    char win[32];
    window_words(f, win, sizeof win);
    int tw = j->twin;
    size_t n = 0;
    char **lines = calloc(r->n_envs ? r->n_envs : 1, sizeof *lines);
    if (!lines)
        return 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t e = 0; e < r->n_envs; e++) {
            const px_env_verdict *ev = &j->envs[e];
            if ((pass == 0) != ((int)e == tw) || ev->is_reference || !ev->selected || ev->absent || ev->down || !ev->ex)
                continue;
            char *line = search_line(f, r, j, e, win);
            if (!line)
                continue;
            if ((int)e == tw)
                *twin_at = (int)n;
            lines[n++] = line;
        }
    *out = lines;
    return n;
}

/* ---- the story ---- */

static void story_search(px_story_ctx *b, size_t e, size_t k, px_story_cell *c)
{
    const px_verdict *v = &b->j->envs[e].ex[k];
    if (v->embed && b->f->examples[k].role == PX_ROLE_QUERY && v->embed->k) {
        char *sw = story_search_words(b->f, v->embed, story_reference_embed(b->r, b->j, e, k));
        b->oom |= !sw;
        c->search = rk_red(b, sw);
        free(sw);
    }
}

/* Its vector against the reference's: the cosine when that decides, else
 * the tolerance's figures with the cosine after. */
static char *vector_words(px_story_ctx *b, const px_verdict *v)
{
    if (v->embed && !strcmp(v->stat, "cosine"))
        return rk_fmt(b, "cosine %.6g to the reference's vector%s", v->embed->cosine,
                      v->cmp.identical ? " (identical)" : "");
    char *w = rk_tolerance_words(b, v, v->embed ? "" : "logit");
    if (v->embed && isfinite(v->embed->cosine)) {
        char *more = rk_fmt(b, "%s; cosine %.6g to the reference's vector", w ? w : "", v->embed->cosine);
        free(w);
        w = more;
    }
    return w;
}

/* A query's expected documents; a document is what they search. */
static void search_expect(const px_fixture *f, const px_expect *x, px_sbuf *b)
{
    (void)f;
    if (x->kind == PX_EXPECT_RETRIEVAL) {
        const px_retrieval *rt = x->retrieval;
        sbuf_addf(b, "%s in the top %d:", rt->exact ? "in this order" : "each", rt->k);
        for (size_t i = 0; i < rt->n_top; i++)
            sbuf_addf(b, "%s %s", i ? "," : "", rt->top[i]);
    } else if (x->kind == PX_EXPECT_NONE)
        sbuf_add(b, "a document the queries search");
    else
        sbuf_add(b, "(nothing stated)");
}

static const char *no_tolerance(const px_fixture *f)
{
    return f->similar.present ? "vectors: no per-element tolerance stated: the cosine below decides" : NULL;
}

static void story_contract(px_story_ctx *b)
{
    const px_fixture *f = b->f;
    b->s->embedding = rk_fmt(b, "a vector [1, %d]%s%s; each query ranks the %zu documents by cosine", f->dim,
                             f->pooling == PX_POOL_MEAN  ? ": mean pooling of the token states over the attention mask"
                             : f->pooling == PX_POOL_CLS ? ": the first token's state"
                                                         : " (the model's own)",
                             f->normalize ? ", normalised" : "", f->n_documents);
}

/* ---- check ---- */

/* A query's search, in words (malloc'd): its first k here beside the
 * reference's, what moved, its vector's cosine to the reference's: "top 3:
 * go-night 0.87, film-night 0.59, chess-club 0.58; reference: go-night
 * 0.87, chess-club 0.59, film-night 0.57; changed: rank 2 and 3 swap:
 * film-night, chess-club; cosine 0.99978 to the reference's vector". NULL
 * when the example is not a query, was not judged as one, or has no
 * ranking (its verdict says why). Shown always, as is the reference's
 * detail (its first k). */
static char *check_search(const px_fixture *f, const px_results *r, const px_judgement *j, size_t e, size_t k,
                          int *show)
{
    const px_embed_verdict *em = j->envs[e].ex[k].embed;
    char *w = NULL;
    if (!em || f->examples[k].role != PX_ROLE_QUERY || !em->k || !em->n_ranked)
        w = NULL; /* no ranking: its verdict says why */
    else if (r->reference >= 0 && (size_t)r->reference == e)
        w = NULL; /* the reference's verdict says its first k */
    else
        w = story_search_words(f, em, story_reference_embed(r, j, e, k));
    *show = w != NULL || (em && em->n_ranked);
    return w;
}

/* The first k of a search: [{id, cosine}, ...]. */
static void json_first_k(FILE *o, const px_fixture *f, const px_embed_verdict *em)
{
    size_t n = (size_t)em->k < em->n_ranked ? (size_t)em->k : em->n_ranked;
    fputc('[', o);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",{" : "{", o);
        rk_json_key(o, "id"), emit_json_string(o, f->examples[em->doc[i]].id), fputc(',', o);
        rk_json_key(o, "cosine"), rk_json_double_or_null(o, em->score[i]), fputc('}', o);
    }
    fputc(']', o);
}

/* "embedding": {role, norm, cosine, min_cosine, search}, search null for
 * a document, else {k, order, top, reference_top, held, moved, note}. */
static void json_embedding(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e,
                           size_t k, const px_verdict *v)
{
    const px_embed_verdict *em = v->embed;
    const px_example *ex = &f->examples[k];
    rk_json_key(o, "embedding");
    if (!em) {
        fputs("null,", o);
        return;
    }
    fputc('{', o);
    rk_json_key(o, "role"), emit_json_string(o, ex->role == PX_ROLE_QUERY ? "query" : "document"), fputc(',', o);
    rk_json_key(o, "norm"), rk_json_double_or_null(o, em->norm), fputc(',', o);
    rk_json_key(o, "cosine"), rk_json_double_or_null(o, em->cosine), fputc(',', o);
    rk_json_key(o, "min_cosine"), rk_json_double_or_null(o, em->min_cosine), fputc(',', o);
    rk_json_key(o, "search");
    if (ex->role != PX_ROLE_QUERY || !em->k) {
        fputs("null},", o);
        return;
    }
    const px_embed_verdict *rm = story_reference_embed(r, j, e, k);
    fputc('{', o);
    rk_json_key(o, "k"), fprintf(o, "%d,", em->k);
    rk_json_key(o, "order");
    emit_json_string(o, ex->expect.retrieval && ex->expect.retrieval->exact ? "exact" : "set");
    fputc(',', o);
    rk_json_key(o, "top");
    if (em->n_ranked)
        json_first_k(o, f, em);
    else
        fputs("null", o);
    fputc(',', o);
    rk_json_key(o, "reference_top");
    if (rm && rm->n_ranked)
        json_first_k(o, f, rm);
    else
        fputs("null", o);
    fputc(',', o);
    rk_json_key(o, "held"), fputs(em->held < 0 ? "null," : em->held ? "true," : "false,", o);
    rk_json_key(o, "moved"), rk_json_str_or_null(o, em->moved), fputc(',', o);
    rk_json_key(o, "note"), rk_json_str_or_null(o, em->rank_note);
    fputs("}},", o);
}

const px_report_kind rk_embedding = {
    .run_cell = first_document,
    .run_diff = rk_max_diffs,
    .diff_per_candidate = 1,
    .story_cell = story_search,
    .story_diff = vector_words,
    .story_expect = search_expect,
    .story_no_tolerance = no_tolerance,
    .story_contract = story_contract,
    .search_lines = search_lines,
    .check_words = check_search,
    .check_json_example = json_embedding,
};
