/* An embedding's report parts (report_kind.h): a query's first document
 * in run's table; its search beside the reference's, what each
 * environment does to the searches, its vectors' difference and its
 * expectation in words; its search in check's text and JSON; each query's
 * first k per environment in the reports, a table in Markdown and a bump
 * chart in HTML. */
#include "parity/report_kind.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"
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

/* ---- the reports ---- */

static void md_output(FILE *o, const px_story *s) { fputs("Output: ", o), md_text(o, s->embedding); }

static void html_output(FILE *o, const px_story *s) { fputs("Output: ", o), html_text(o, s->embedding); }

/* A query's search in words (story_search_words); "—" for a document. */
static void md_search_cell(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    md_cell_text(o, c->search ? c->search : "—");
}

static void html_search_cell(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    if (c->search)
        html_text(o, c->search);
    else
        fputs("—", o);
}

/* Environment e's search for example k, from the judgement the story was
 * told from; NULL when it has none. */
static const px_embed_verdict *search_of(const px_story *s, const px_judgement *j, size_t e, size_t k)
{
    if (!j || e >= j->n_envs || k >= j->n_examples || k >= s->n_examples || !s->examples[k].cells[e].present)
        return NULL;
    return j->envs[e].ex[k].embed;
}

/* The widest first k of example k's searches; 0 when it is no query, or
 * without a judgement. */
static size_t search_window(const px_story *s, const px_judgement *j, size_t k)
{
    size_t win = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_embed_verdict *em = search_of(s, j, e, k);
        if (em && em->k > 0 && (size_t)em->k > win)
            win = (size_t)em->k;
    }
    return win;
}

/* ---- the reports: a query's searches as a Markdown table ---- */

/* What left each candidate's first k against the reference's. */
static void md_left(FILE *o, const px_story *s, const px_judgement *j, size_t k, const px_embed_verdict *ref,
                    size_t win)
{
    for (size_t e = 0; ref && ref->n_ranked && e < s->n_envs; e++) {
        const px_embed_verdict *em = search_of(s, j, e, k);
        if ((int)e == s->reference || !em || !em->n_ranked)
            continue;
        int left = 0;
        for (size_t i = 0; i < win && i < ref->n_ranked; i++) {
            long now = embed_rank_of(em, ref->doc[i], SIZE_MAX);
            if (now >= 0 && now < (long)win)
                continue;
            fputs(left++ ? ", " : "- Left the first k in ", o);
            if (left == 1)
                md_text(o, s->envs[e].name), fputs(": ", o);
            md_text(o, s->examples[ref->doc[i]].id);
        }
        if (left)
            fputc('\n', o);
    }
}

/* A query's first k per environment, rank by environment: each document
 * with its cosine to the query and, in a candidate, its rank in the
 * reference where that differs ("↑3"; "new": not in the reference's first
 * k); then what left each candidate's first k. Nothing for an example
 * that is no query, or without a judgement. */
static void md_searches(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    size_t win = search_window(s, j, k);
    if (!win)
        return;
    const px_embed_verdict *ref = s->reference >= 0 ? search_of(s, j, (size_t)s->reference, k) : NULL;
    fprintf(o, "First %zu by cosine to the query (↑/↓ N: at rank N in the reference; new: not in the reference's "
               "first %zu):\n\n| Rank |",
            win, win);
    for (size_t e = 0; e < s->n_envs; e++)
        fputs(" ", o), md_cell_text(o, s->envs[e].name), fputs(" |", o);
    fputs("\n|---|", o);
    for (size_t e = 0; e < s->n_envs; e++)
        fputs("---|", o);
    fputc('\n', o);
    for (size_t i = 0; i < win; i++) {
        fprintf(o, "| %zu |", i + 1);
        for (size_t e = 0; e < s->n_envs; e++) {
            const px_embed_verdict *em = search_of(s, j, e, k);
            fputs(" ", o);
            if (!em || !em->n_ranked)
                fputs(i ? "" : "no ranking", o);
            else if (i < em->n_ranked) {
                md_cell_text(o, s->examples[em->doc[i]].id);
                fprintf(o, " %.4f", em->score[i]);
                long was = (int)e == s->reference ? (long)i : embed_rank_of(ref, em->doc[i], SIZE_MAX);
                if (!ref || !ref->n_ranked || was == (long)i)
                    ;
                else if (was < 0 || was >= (long)win)
                    fputs(" **new**", o);
                else
                    fprintf(o, " **%s%ld**", was > (long)i ? "↑" : "↓", was + 1);
            }
            fputs(" |", o);
        }
        fputc('\n', o);
    }
    fputc('\n', o);
    md_left(o, s, j, k, ref, win);
}

/* ---- the reports: a query's searches as a bump chart ---- */

/* The bump chart's: drawn only where a query has a search. */
static const char *html_css(const px_story *s, const px_judgement *j)
{
    for (size_t k = 0; k < s->n_examples; k++)
        if (search_window(s, j, k))
            return "svg .doc{fill:var(--card);stroke:var(--line)}svg .doc.moved{stroke:var(--bad);stroke-width:2}"
                   "svg .doc.reordered{stroke:var(--warn);stroke-width:2}"
                   "svg .bump{stroke:var(--muted);stroke-width:1.5;fill:none}svg .bump.moved{stroke:var(--bad);"
                   "stroke-width:2.5}svg .bump.reordered{stroke:var(--warn);stroke-width:2.5}svg .left{fill:var(--bad)}";
    return NULL;
}

/* How a document at rank i of environment e's search stands against the
 * reference's first win: "" the same rank (or e is the reference),
 * "moved" at another rank or new to the first win where the first win
 * changed, "reordered" at another rank where they held (order: set). */
static const char *moved_class(const px_story *s, const px_embed_verdict *ref, const px_embed_verdict *em, size_t e,
                               size_t i, size_t win)
{
    if ((int)e == s->reference || !ref || !ref->n_ranked)
        return "";
    if (embed_rank_of(ref, em->doc[i], win) == (long)i)
        return "";
    return em->held == 1 ? " reordered" : " moved";
}

/* The chart's title: the documents at another rank than in the
 * reference, each once. */
static void bump_title(FILE *o, const px_story *s, const px_judgement *j, size_t k, const px_embed_verdict *ref,
                       size_t win)
{
    px_sbuf moved = PX_SBUF_INIT;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_embed_verdict *em = search_of(s, j, e, k);
        for (size_t i = 0; em && i < em->n_ranked && i < win; i++)
            if (*moved_class(s, ref, em, e, i, win) && !strstr(sbuf_str(&moved), s->examples[em->doc[i]].id))
                sbuf_addf(&moved, "%s%s", moved.len ? ", " : "", s->examples[em->doc[i]].id);
    }
    fputs("<title>", o);
    html_text(o, s->examples[k].id);
    fprintf(o, ": the first %zu documents by cosine in each environment", win);
    if (moved.len)
        fputs("; at another rank than in the reference: ", o), html_text(o, sbuf_str(&moved));
    else
        fputs("; every environment ranks them as the reference does", o);
    fputs("</title>", o);
    sbuf_free(&moved);
}

enum { COLW = 170, BOXW = 130, ROWH = 26, TOP = 22 };

/* The lines joining the same document across neighbouring columns, drawn
 * first, under the boxes. */
static void bump_lines(FILE *o, const px_story *s, const px_judgement *j, size_t k, const px_embed_verdict *ref,
                       size_t win)
{
    for (size_t e = 0; e + 1 < s->n_envs; e++) {
        const px_embed_verdict *a = search_of(s, j, e, k), *b = search_of(s, j, e + 1, k);
        for (size_t i = 0; a && b && i < a->n_ranked && i < win; i++) {
            long to = embed_rank_of(b, a->doc[i], win);
            if (to < 0)
                continue;
            const char *cls = moved_class(s, ref, b, e + 1, (size_t)to, win);
            fprintf(o, "<line class=\"bump%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", cls, (int)e * COLW + BOXW,
                    TOP + (int)i * ROWH + 10, (int)(e + 1) * COLW, TOP + (int)to * ROWH + 10);
        }
    }
}

/* Environment e's column: its name, its first win as labelled boxes, and
 * "left:" what left them against the reference's. */
static void bump_column(FILE *o, const px_story *s, const px_judgement *j, size_t k, const px_embed_verdict *ref,
                        size_t win, size_t e)
{
    const px_embed_verdict *em = search_of(s, j, e, k);
    int x = (int)e * COLW;
    fprintf(o, "<text x=\"%d\" y=\"12\" font-weight=\"bold\">", x);
    html_text(o, s->envs[e].name);
    fputs("</text>", o);
    if (!em || !em->n_ranked) {
        fprintf(o, "<text x=\"%d\" y=\"%d\">no ranking</text>", x, TOP + 14);
        return;
    }
    for (size_t i = 0; i < em->n_ranked && i < win; i++) {
        const char *cls = moved_class(s, ref, em, e, i, win), *id = s->examples[em->doc[i]].id;
        long was = embed_rank_of(ref, em->doc[i], win);
        int y = TOP + (int)i * ROWH;
        fputs("<g><title>", o);
        html_text(o, id);
        fprintf(o, ": rank %zu in ", i + 1);
        html_text(o, s->envs[e].name);
        fprintf(o, ", cosine %.4f", em->score[i]);
        if (*cls && was >= 0)
            fprintf(o, "; rank %ld in the reference", was + 1);
        else if (*cls)
            fprintf(o, "; not in the reference's first %zu", win);
        fprintf(o, "</title><rect class=\"doc%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"20\" rx=\"3\"/>"
                   "<text x=\"%d\" y=\"%d\">%zu. ",
                cls, x, y, BOXW, x + 4, y + 14, i + 1);
        html_text(o, id);
        fprintf(o, " %.3f%s</text></g>", em->score[i],
                *cls ? (was >= 0 ? (was > (long)i ? " ↑" : " ↓") : " new") : "");
    }
    px_sbuf left = PX_SBUF_INIT;
    for (size_t i = 0; (int)e != s->reference && ref && i < ref->n_ranked && i < win; i++)
        if (embed_rank_of(em, ref->doc[i], win) < 0)
            sbuf_addf(&left, "%s%s", left.len ? ", " : "left: ", s->examples[ref->doc[i]].id);
    if (left.len) {
        fprintf(o, "<text class=\"left\" x=\"%d\" y=\"%d\">", x, TOP + (int)win * ROWH + 12);
        html_text(o, sbuf_str(&left));
        fputs("</text>", o);
    }
    sbuf_free(&left);
}

/* A query's first k per environment as a bump chart: one column per
 * environment, one row per rank, each document a labelled box with its
 * cosine to the query, a line joining the same document across
 * neighbouring columns; what moved against the reference drawn in the
 * bad colour (the warning's where the first k held as a set), and said in
 * words too: the box's title, and "left:" under a column for what left
 * its first k. */
static void bump_chart(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    size_t win = search_window(s, j, k);
    if (!win)
        return;
    const px_embed_verdict *ref = s->reference >= 0 ? search_of(s, j, (size_t)s->reference, k) : NULL;
    int height = TOP + (int)(ROWH * win) + 22, width = COLW * (int)s->n_envs;
    fprintf(o, "<figure class=\"chart\" style=\"margin:.3rem 0\"><svg class=\"bump-chart\" role=\"img\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">",
            width, height, width, height);
    bump_title(o, s, j, k, ref, win);
    bump_lines(o, s, j, k, ref, win);
    for (size_t e = 0; e < s->n_envs; e++)
        bump_column(o, s, j, k, ref, win, e);
    fputs("</svg></figure>\n", o);
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
    .check_words_label = "search",
    .check_json_example = json_embedding,
    .cell_title = "Search",
    .md_output = md_output,
    .html_output = html_output,
    .md_cell = md_search_cell,
    .html_cell = html_search_cell,
    .md_example_extra = md_searches,
    .html_example_extra = bump_chart,
    .html_css = html_css,
};
