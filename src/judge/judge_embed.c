/* An embedding's examples (judge_kind.h): its vector (shape, finite)
 * against the reference's (the per-element tolerance, the cosine and its
 * floor), and a query's search (the documents by cosine) against its
 * expectation and, in a candidate, its first k against the reference's;
 * it parts from the reference at its values, then its ranking; the twin
 * tells whether a changed search or a drifted vector is precision's doing
 * or the device's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/judge.h"
#include "parity/sbuf.h"
#include "parity/strf.h"

/* A vector to judge or to rank by: ran, [1, dim], every element finite. */
static int vector_usable(const px_fixture *f, const px_example_result *x)
{
    return x && x->status == PX_ST_OK && x->ndim == 2 && x->shape[0] == 1 && x->shape[1] == f->dim &&
           x->n_values == (size_t)f->dim && numbers_first_non_finite(x) < 0;
}

/* Why an example has no vector to rank by, in words (malloc'd). */
static char *no_vector_words(const jctx *j, size_t e, size_t d)
{
    const px_example_result *x = &j->r->envs[e].ex[d];
    const char *id = j->f->examples[d].id;
    if (x->status == PX_ST_OK) {
        if (x->ndim != 2 || x->shape[0] != 1 || x->shape[1] != j->f->dim || x->n_values != (size_t)j->f->dim)
            return strf("document %s has no [1,%d] vector here", id, j->f->dim);
        return strf("document %s's vector is not finite here", id);
    }
    if (x->status == PX_ST_PENDING || x->status == PX_ST_NOT_EVALUATED)
        return strf("document %s was not run here%s%s", id, x->detail ? ": " : "", x->detail ? x->detail : "");
    char *last = judge_last_line(x->detail ? x->detail : "");
    char *s = strf("document %s has no vector here (%s%s%s)", id, status_name(x->status), last && *last ? ": " : "",
                   last ? last : "");
    free(last);
    return s;
}

/* A document and its cosine to the query: best first, a NaN last, ties
 * by fixture order. */
struct ranked {
    long doc;
    double cos;
};

static int ranked_cmp(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    int na = isnan(a->cos), nb = isnan(b->cos);
    if (na != nb)
        return na - nb;
    if (!na && a->cos != b->cos)
        return a->cos > b->cos ? -1 : 1;
    return (a->doc > b->doc) - (a->doc < b->doc);
}

/* A query's search in environment e: the fixture's documents by cosine
 * to its vector there, best first, ties by fixture order (a NaN cosine
 * last). 0 with the ranking; 1 with *note when there is none (the query
 * or a document has no vector there); -1 out of memory. */
static int embed_rank(const jctx *j, size_t e, size_t k, long **doc, double **score, size_t *n, char **note)
{
    const px_fixture *f = j->f;
    const px_env_result *er = &j->r->envs[e];
    *doc = NULL, *score = NULL, *n = 0, *note = NULL;
    if (!vector_usable(f, &er->ex[k])) {
        *note = strf("the query has no vector here");
        return 1;
    }
    for (size_t d = 0; d < j->r->n_examples; d++)
        if (f->examples[d].role == PX_ROLE_DOCUMENT && !vector_usable(f, &er->ex[d])) {
            *note = no_vector_words(j, e, d);
            return 1;
        }
    long *ds = malloc((f->n_documents ? f->n_documents : 1) * sizeof *ds);
    double *sc = malloc((f->n_documents ? f->n_documents : 1) * sizeof *sc);
    if (!ds || !sc) {
        free(ds), free(sc);
        return -1;
    }
    size_t m = 0;
    struct ranked *rk = malloc((f->n_documents ? f->n_documents : 1) * sizeof *rk);
    if (!rk) {
        free(ds), free(sc);
        return -1;
    }
    for (size_t d = 0; d < j->r->n_examples && m < f->n_documents; d++)
        if (f->examples[d].role == PX_ROLE_DOCUMENT)
            rk[m++] = (struct ranked){(long)d, compare_cosine(er->ex[k].values, er->ex[d].values, (size_t)f->dim)};
    /* Sorted, not inserted: a corpus of thousands is ranked in n log n. */
    qsort(rk, m, sizeof *rk, ranked_cmp);
    for (size_t i = 0; i < m; i++)
        ds[i] = rk[i].doc, sc[i] = rk[i].cos;
    free(rk);
    *doc = ds, *score = sc, *n = m;
    return 0;
}

long embed_rank_of(const px_embed_verdict *em, long doc, size_t within)
{
    for (size_t i = 0; em && i < em->n_ranked && i < within; i++)
        if (em->doc[i] == doc)
            return (long)i;
    return -1;
}

/* The window a query's search is judged in. */
static size_t embed_k(const px_example *ex, size_t n_ranked)
{
    size_t k = ex->expect.retrieval ? (size_t)ex->expect.retrieval->k : 0;
    return k < n_ranked ? k : n_ranked;
}

/* Whether two searches' first k agree: in order (exact) or as a set. */
static int first_k_same(const long *a, size_t na, const long *b, size_t nb, size_t k, int exact)
{
    if (na < k || nb < k)
        return na == nb;
    for (size_t i = 0; i < k; i++) {
        int found = 0;
        if (exact)
            found = a[i] == b[i];
        else
            for (size_t m = 0; m < k && !found; m++)
                found = a[i] == b[m];
        if (!found)
            return 0;
    }
    return 1;
}

static long rank_in(const long *doc, size_t n, long d)
{
    for (size_t i = 0; i < n; i++)
        if (doc[i] == d)
            return (long)i;
    return -1;
}

/* What moved from the reference's first k (a) to this one's (b), in words
 * (malloc'd; NULL when nothing did): documents that enter and leave, and
 * (exact) the ranks whose documents changed places: "rank 2 and 3 swap:
 * go-night, chess-club", "lantern-walk enters at rank 3, film-night
 * leaves". */
static char *moved_words(const px_fixture *f, const long *a, const long *b, size_t k, int exact)
{
    px_sbuf o = PX_SBUF_INIT;
    /* Documents in both, at other ranks (only when the order counts). */
    size_t *moved = exact && k ? malloc(k * sizeof *moved) : NULL, nm = 0;
    if (exact && k && !moved)
        return NULL;
    for (size_t i = 0; exact && i < k; i++)
        if (a[i] != b[i] && rank_in(a, k, b[i]) >= 0)
            moved[nm++] = i;
    if (nm == 2 && b[moved[0]] == a[moved[1]] && b[moved[1]] == a[moved[0]]) {
        sbuf_addf(&o, "rank %zu and %zu swap: %s, %s", moved[0] + 1, moved[1] + 1, f->examples[b[moved[0]]].id,
                  f->examples[b[moved[1]]].id);
    } else if (nm) {
        sbuf_add(&o, "reordered:");
        for (size_t i = 0; i < nm; i++)
            sbuf_addf(&o, "%s %s from rank %ld to %zu", i ? "," : "", f->examples[b[moved[i]]].id,
                      rank_in(a, k, b[moved[i]]) + 1, moved[i] + 1);
    }
    free(moved);
    for (size_t i = 0; i < k; i++)
        if (rank_in(a, k, b[i]) < 0)
            sbuf_addf(&o, "%s%s enters at rank %zu", o.len ? ", " : "", f->examples[b[i]].id, i + 1);
    for (size_t i = 0; i < k; i++)
        if (rank_in(b, k, a[i]) < 0)
            sbuf_addf(&o, "%s%s leaves", o.len ? ", " : "", f->examples[a[i]].id);
    if (!o.len) {
        sbuf_free(&o);
        return NULL;
    }
    return sbuf_take(&o);
}

/* Does the search meet the query's expectation? 1 yes; 0 no, with *why:
 * "missed film-night (rank 5, cosine 0.41) within k 3" (set), "rank 1 is
 * chess-club, expected go-night" (exact). */
static int ranking_meets(const px_fixture *f, const px_retrieval *rt, const long *doc, const double *score, size_t n,
                         char **why)
{
    size_t k = (size_t)rt->k < n ? (size_t)rt->k : n;
    for (size_t i = 0; i < rt->n_top; i++) {
        long want = rt->top_idx[i];
        if (rt->exact) {
            if (i >= n || doc[i] != want) {
                *why = i < n ? strf("rank %zu is %s, expected %s", i + 1, f->examples[doc[i]].id, f->examples[want].id)
                             : strf("rank %zu is missing, expected %s", i + 1, f->examples[want].id);
                return 0;
            }
        } else {
            long r = rank_in(doc, n, want);
            if (r < 0 || (size_t)r >= k) {
                *why = r < 0 ? strf("missed %s (not ranked) within k %zu", f->examples[want].id, k)
                             : strf("missed %s (rank %ld, cosine %.4g) within k %zu", f->examples[want].id, r + 1,
                                    score[r], k);
                return 0;
            }
        }
    }
    return 1;
}

/* "go-night 0.91, chess-club 0.88, film-night 0.42" (the first k). */
static char *first_k_words(const px_fixture *f, const px_embed_verdict *em)
{
    px_sbuf o = PX_SBUF_INIT;
    size_t k = (size_t)em->k < em->n_ranked ? (size_t)em->k : em->n_ranked;
    for (size_t i = 0; i < k; i++)
        sbuf_addf(&o, "%s%s %.4g", i ? ", " : "", f->examples[em->doc[i]].id, em->score[i]);
    return sbuf_take(&o);
}

static const px_similar *similar_for(const px_fixture *f, const px_example *ex)
{
    return ex->similar && ex->similar->present ? ex->similar : f->similar.present ? &f->similar : NULL;
}

/* An embedding's vector x against the reference's ref: the per-element
 * tolerance (compare.vectors; without one, exact unless similar_to_reference
 * is the contract's only rule for it) into v->cmp, and the cosine with its
 * floor into em. 1 within both, 0 beyond one of them (*words says which;
 * NULL when words is); nothing compared (v->has_cmp 0, em->cosine NaN): 1. */
static int embed_numbers(const jctx *j, size_t k, const px_example_result *x, const px_example_result *ref,
                         px_verdict *v, px_embed_verdict *em, char **words)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    if (words)
        *words = NULL;
    if (!vector_usable(f, ref) || !vector_usable(f, x))
        return 1;
    const px_similar *sim = similar_for(f, ex);
    const px_tolerance *t = numbers_tolerance(f, ex);
    int elem_ok = 1, cos_ok = 1;
    if (t->present || !sim)
        elem_ok = numbers_ok(f, ex, x, ref, judge_result_at(j, j->oracle, k), v);
    em->cosine = compare_cosine(x->values, ref->values, x->n_values);
    if (!v->has_cmp) {
        /* The cosine alone: still say whether the vectors are one. */
        compare_values(x->values, ref->values, x->n_values, PX_STAT_MAX, 0, 0, 0, &v->cmp);
        v->has_cmp = 1, v->stat = "cosine";
        v->cmp.pass = 1;
    }
    if (sim) {
        em->min_cosine = sim->min_cosine;
        cos_ok = !(em->cosine < sim->min_cosine) && !isnan(em->cosine);
    }
    if (!words)
        return elem_ok && cos_ok;
    char *cw = NULL, *nw = NULL;
    if (sim)
        cw = strf("cosine %.6g to the reference's vector %s %.6g", em->cosine, cos_ok ? "≥" : "<", sim->min_cosine);
    else
        cw = strf("cosine %.6g to the reference's vector", em->cosine);
    if (strcmp(v->stat, "cosine") && !v->cmp.identical)
        nw = numbers_words(v, x, ref, judge_result_at(j, j->oracle, k), t, elem_ok, "element");
    /* What failed first; the cosine first when both did or neither. */
    if (!elem_ok && cos_ok)
        *words = strf("%s; %s", nw ? nw : "", cw);
    else if (nw && (!elem_ok || cos_ok))
        *words = strf("%s; %s", cw, nw);
    else
        *words = strf("%s", cw);
    free(cw), free(nw);
    return elem_ok && cos_ok;
}

/* An embedding's example that ran: its vector (shape, finite), against
 * the reference's (elements, cosine), and a query's search (against its
 * expectation, and a candidate's first k against the reference's).
 * Precedence: non-finite, wrong-ranking, ranking-changed, numeric-drift,
 * pass-within-tolerance, pass. */
static int embed_judge(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_example_result *x = &j->r->envs[e].ex[k];
    px_embed_verdict *em = v->embed;
    if (x->ndim != 2 || x->shape[0] != 1 || x->shape[1] != f->dim || x->n_values != (size_t)f->dim) {
        char *sh = judge_shape_words(x);
        v->outcome = PX_OC_BAD_SHAPE;
        v->detail = strf("the output is %s, not [1,%d] (contract.model.dim)", sh ? sh : "?", f->dim);
        free(sh);
        return 0;
    }
    long bad = numbers_first_non_finite(x);
    if (bad >= 0) {
        v->outcome = PX_OC_NON_FINITE;
        v->detail = strf("element %ld is %s", bad, isnan(x->values[bad]) ? "nan" : x->values[bad] > 0 ? "inf" : "-inf");
        return 0;
    }
    em->norm = compare_norm(x->values, x->n_values);
    if (ex->expect.kind == PX_EXPECT_REJECTED) {
        v->outcome = PX_OC_NOT_REJECTED;
        v->detail = strf("gave a vector (norm %.4g); the contract says reject", em->norm);
        return 0;
    }
    const px_example_result *ref = (int)e == j->ref ? NULL : judge_result_at(j, j->ref, k);
    char *nwords = NULL;
    int num_ok = embed_numbers(j, k, x, ref, v, em, &nwords);
    const px_retrieval *rt = ex->role == PX_ROLE_QUERY && ex->expect.kind == PX_EXPECT_RETRIEVAL
                                 ? ex->expect.retrieval : NULL;
    char *rwhy = NULL, *top = NULL, *ref_note = NULL;
    int met = 1, held = -1;
    if (rt) {
        em->k = rt->k;
        int rc = embed_rank(j, e, k, &em->doc, &em->score, &em->n_ranked, &em->rank_note);
        if (rc < 0) {
            free(nwords);
            return px_error_oom(j->err, NULL);
        }
        if (rc) {
            /* No search here: not known, unless its own vector failed. */
            v->outcome = num_ok ? PX_OC_NOT_EVALUATED : PX_OC_NUMERIC_DRIFT;
            v->detail = num_ok ? strf("no ranking: %s", em->rank_note)
                               : strf("%s; no ranking: %s", nwords ? nwords : "", em->rank_note);
            free(nwords);
            return 0;
        }
        met = ranking_meets(f, rt, em->doc, em->score, em->n_ranked, &rwhy);
        top = first_k_words(f, em);
        /* A candidate's first k against the reference's. */
        long *rdoc = NULL;
        double *rscore = NULL;
        size_t rn = 0;
        char *rnote = NULL;
        if (ref && vector_usable(f, ref)) {
            int rrc = embed_rank(j, (size_t)j->ref, k, &rdoc, &rscore, &rn, &rnote);
            if (rrc < 0) {
                free(nwords), free(rwhy), free(top);
                return px_error_oom(j->err, NULL);
            }
            if (rrc == 1) {
                ref_note = rnote, rnote = NULL;
            } else if (!rrc) {
                size_t kk = embed_k(ex, em->n_ranked);
                held = first_k_same(rdoc, rn, em->doc, em->n_ranked, kk, rt->exact);
                if (!held)
                    em->moved = moved_words(f, rdoc, em->doc, kk, rt->exact);
                if (!held && !em->moved)
                    em->moved = strf("its top %zu differ from the reference's", kk);
                /* Held as a set, in another order: not a change of the
                 * task, but worth saying (held stays 1). */
                if (held && !rt->exact)
                    em->moved = moved_words(f, rdoc, em->doc, kk, 1);
            }
            free(rdoc), free(rscore), free(rnote);
        }
        em->held = held;
    }
    if (!met) {
        v->outcome = PX_OC_WRONG_RANKING;
        v->detail = strf("%s (top %d: %s)", rwhy, rt->k, top ? top : "");
    } else if (held == 0) {
        v->outcome = PX_OC_RANKING_CHANGED;
        v->detail = strf("its top %d changed from the reference's: %s (%s)", rt->k, em->moved,
                         nwords ? nwords : "");
    } else if (!num_ok) {
        v->outcome = PX_OC_NUMERIC_DRIFT;
        v->detail = rt && held == 1 && em->moved
                        ? strf("%s, but its top %d held as a set (%s)", nwords ? nwords : "", rt->k, em->moved)
                    : rt && held == 1 ? strf("%s, but its top %d held", nwords ? nwords : "", rt->k)
                                    : strf("%s", nwords ? nwords : "");
    } else if (!ref || !v->has_cmp || v->cmp.identical) {
        v->outcome = PX_OC_PASS;
        v->detail = rt ? strf("top %d: %s", rt->k, top ? top : "") : strf("norm %.6g", em->norm);
    } else {
        v->outcome = PX_OC_PASS_TOL;
        v->detail = rt && held == 1 && em->moved
                        ? strf("top %d held as a set (%s); %s", rt->k, em->moved, nwords ? nwords : "")
                    : rt && held == 1 ? strf("top %d held; %s", rt->k, nwords ? nwords : "")
                    : rt            ? strf("top %d: %s; %s", rt->k, top ? top : "", nwords ? nwords : "")
                                    : strf("%s", nwords ? nwords : "");
    }
    if (ref_note && v->detail && held < 0) {
        /* Its search is its own; against the reference's it is not known. */
        char *d = strf("%s; its top %d not compared: the reference has no ranking (%s)", v->detail, rt->k, ref_note);
        free(v->detail);
        v->detail = d;
    }
    free(nwords), free(rwhy), free(top), free(ref_note);
    return v->detail ? 0 : px_error_oom(j->err, NULL);
}

/* An embedding's: a query whose first k changed from the reference's is
 * precision's when the twin's first k are the candidate's (the same
 * change), the device's when the twin's are the reference's, unknown when
 * the twin changed them another way or has no search; a vector that
 * drifted (the search held) as a classifier's logits: precision's when
 * the twin drifts beyond the same rules, the device's when it stays
 * within them. */
static px_attr embed_attribute(const jctx *j, size_t e, size_t k, const px_example_result *ref, const px_verdict *v)
{
    const px_embed_verdict *em = v->embed;
    const px_example *ex = &j->f->examples[k];
    int changed = em->held == 0, drift = !changed && v->outcome == PX_OC_NUMERIC_DRIFT;
    if (!changed && !drift)
        return PX_ATTR_NONE;
    const px_example_result *tw;
    px_attr said = attribute_twin_first(j, e, k, &tw);
    if (said != PX_ATTR_NONE)
        return said;
    if (!vector_usable(j->f, tw))
        return PX_ATTR_UNKNOWN;
    if (drift) {
        px_verdict tv = {0};
        px_embed_verdict tem = {.cosine = NAN, .min_cosine = NAN};
        int within = embed_numbers(j, k, tw, ref, &tv, &tem, NULL);
        if (!tv.has_cmp)
            return PX_ATTR_UNKNOWN;
        return within ? PX_ATTR_DEVICE : PX_ATTR_PRECISION;
    }
    const px_embed_verdict *tem = j->out->envs[j->twin].ex[k].embed;
    if (!tem || !tem->n_ranked || tem->held < 0)
        return PX_ATTR_UNKNOWN;
    size_t kk = embed_k(ex, em->n_ranked);
    if (first_k_same(tem->doc, tem->n_ranked, em->doc, em->n_ranked, kk, ex->expect.retrieval->exact))
        return PX_ATTR_PRECISION;
    return tem->held == 1 ? PX_ATTR_DEVICE : PX_ATTR_UNKNOWN;
}

/* An embedding query's changed search, in words: "precision (rank 2 and
 * 3 swap: go-night, chess-club in the bfloat16 twin as well)". */
static char *embed_cause_words(const px_judgement *j, size_t e, size_t k)
{
    const px_verdict *v = &j->envs[e].ex[k];
    const char *dt = j->twin_dtype ? j->twin_dtype : "reduced-precision";
    const px_embed_verdict *tem = j->twin >= 0 ? j->envs[j->twin].ex[k].embed : NULL;
    switch (v->attr) {
    case PX_ATTR_PRECISION:
        if ((int)e == j->twin)
            return strf("precision (this is the %s twin)", dt);
        return strf("precision (%s in the %s twin as well)", v->embed->moved ? v->embed->moved : "the same change",
                    dt);
    case PX_ATTR_DEVICE: return strf("device (the twin keeps the reference's top %d)", v->embed->k);
    case PX_ATTR_UNKNOWN:
        if (!j->twin_unusable && tem && tem->held == 0)
            return strf("unknown: the twin's top %d change another way (%s)", tem->k, tem->moved ? tem->moved : "");
        return attribute_unknown_words(j, k, "search");
    default: return NULL;
    }
}

static char *embed_cause(const px_judgement *j, size_t e, size_t k)
{
    const px_verdict *v = &j->envs[e].ex[k];
    if (v->embed && v->embed->held == 0 && v->attr != PX_ATTR_NONE)
        return embed_cause_words(j, e, k);
    return attribute_words(j, e, k, &judge_embedding);
}

/* Its own part of the verdict: the cosine, the norm, a query's search. */
static int embed_verdict_init(const px_fixture *f, size_t k, px_verdict *v)
{
    if (!(v->embed = calloc(1, sizeof *v->embed)))
        return -1;
    v->embed->cosine = v->embed->min_cosine = v->embed->norm = NAN;
    v->embed->held = -1;
    const px_retrieval *rt = f->examples[k].expect.retrieval;
    v->embed->k = rt && f->examples[k].expect.kind == PX_EXPECT_RETRIEVAL ? rt->k : 0;
    return 0;
}

static void embed_verdict_free(px_verdict *v)
{
    if (v->embed)
        free(v->embed->doc), free(v->embed->score), free(v->embed->moved), free(v->embed->rank_note);
    free(v->embed);
    v->embed = NULL;
}

/* Its vector's elements, then its direction, then its search. */
static px_div embed_diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail)
{
    if (diverge_values(j, e, k, v, "element", NULL, 0, detail) == PX_DIV_VALUES)
        return PX_DIV_VALUES;
    const px_embed_verdict *em = v->embed;
    if (!em)
        return PX_DIV_NONE;
    if (em->cosine < em->min_cosine) {
        *detail = strf("cosine %.6g to the reference's vector < %.6g", em->cosine, em->min_cosine);
        return PX_DIV_VALUES;
    }
    if (em->held == 0) {
        *detail = strf("top %d: %s", em->k, em->moved ? em->moved : "changed");
        return PX_DIV_RANKING;
    }
    return PX_DIV_NONE;
}

static char *embed_forward(const px_fixture *f, const px_env_result *er)
{
    (void)er;
    return strf("every example's output is [1,%d]", f->dim);
}

/* A vector decides no label. */
static int embed_bench_label(const double *out, size_t n)
{
    (void)out, (void)n;
    return -1;
}

const px_judge_kind judge_embedding = {
    .verdict_init = embed_verdict_init,
    .verdict_free = embed_verdict_free,
    .judge = embed_judge,
    .diverge = embed_diverge,
    .attribute = embed_attribute,
    .cause_words = embed_cause,
    .twin_same = "changes it the same way",
    .twin_other = "keeps the reference's decision",
    .forward_words = embed_forward,
    .partial_shape = "[1,dim]",
    .bench_label = embed_bench_label,
};
