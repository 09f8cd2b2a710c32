/* The earliest stage where an environment parts from the reference, or
 * from what the contract says, in the order they are compared: the model
 * revision, the label map, the cleaned text, the token ids, the output's
 * shape, then the kind's own stages (judge_kind.h: its values, its
 * decision, its generated tokens, its ranking). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/kind.h"
#include "parity/strf.h"
#include "parity/textcell.h"

/* The first difference between two label maps, in words; NULL when equal.
 * `here` and `there` name the two sides. */
char *diverge_labels(char *const *a, size_t na, char *const *b, size_t nb, const char *here, const char *there)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i], b[i]))
            return strf("logit %zu means %s %s, %s %s", i, a[i], here, b[i], there);
    if (na != nb)
        return strf("%zu labels %s, %zu %s", na, here, nb, there);
    return NULL;
}

enum { EXCERPT_COLS = 12, TOKEN_COLS = 24 }; /* the most columns a detail quotes */

/* Where two texts first differ, each side quoted from the character
 * there: cut between characters by columns, its controls shown
 * (textcell_excerpt), never a byte of a character cut in two. */
static char *text_differs(const char *a, const char *b, const char *here, const char *there)
{
    if (!strcmp(a, b))
        return NULL;
    size_t i = 0;
    while (a[i] == b[i])
        i++;
    while (i > 0 && ((unsigned char)a[i] & 0xC0) == 0x80) /* the character both share the start of */
        i--;
    char *qa = textcell_excerpt(a + i, strlen(a + i), EXCERPT_COLS);
    char *qb = textcell_excerpt(b + i, strlen(b + i), EXCERPT_COLS);
    char *d = strf("byte %zu: \"%s\" %s, \"%s\" %s", i, qa ? qa : "?", here, qb ? qb : "?", there);
    free(qa), free(qb);
    return d;
}

/* A vocabulary entry as a detail quotes it (its controls shown). */
static char *token_shown(char *const *tokens, size_t i)
{
    return tokens && tokens[i] ? textcell_excerpt(tokens[i], strlen(tokens[i]), TOKEN_COLS) : strf("?");
}

static char *ids_differ(const px_example_result *x, const int64_t *ids, char *const *tokens, size_t n,
                        const char *here, const char *there)
{
    size_t m = x->n_ids < n ? x->n_ids : n;
    for (size_t i = 0; i < m; i++)
        if (x->ids[i] != ids[i]) {
            char *ta = token_shown(x->tokens, i), *tb = token_shown(tokens, i);
            char *d = strf("token %zu: %lld ('%s') %s, %lld ('%s') %s", i, (long long)x->ids[i], ta ? ta : "?",
                           here, (long long)ids[i], tb ? tb : "?", there);
            free(ta), free(tb);
            return d;
        }
    if (x->n_ids != n)
        return strf("%zu tokens %s, %zu %s", x->n_ids, here, n, there);
    return NULL;
}

/* Did the environment process example k's input as the contract says
 * (cleaned text, rejection, token ids)? NULL when it did or when there is
 * nothing to compare; else the difference, with *stage set. */
char *diverge_input(const jctx *j, size_t e, size_t k, px_div *stage)
{
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    if (!er->expect || x->status == PX_ST_NOT_EVALUATED || x->status == PX_ST_PENDING)
        return NULL;
    /* A training run has no input of its own (its input is its recipe and
     * the contract's pinned data, the same windows for every run): nothing
     * recorded per example to check. */
    if (kind_of(j->f)->trains)
        return NULL;
    const px_prepared *p = &er->expect[k];
    char *d;
    *stage = PX_DIV_CLEAN;
    if (!x->clean_text)
        return strf("no input recorded (clean_text, token_ids): what went in cannot be checked");
    if ((d = text_differs(x->clean_text, p->clean_text, "recorded", "by the contract's cleaning rules")))
        return d;
    *stage = PX_DIV_TOKENS;
    if (p->rejected && x->status != PX_ST_REJECTED)
        return strf("the contract rejects this input (%s) but it was run (%s)", p->reason, status_name(x->status));
    if (!p->rejected && x->status == PX_ST_REJECTED)
        return strf("rejected (%s), but the contract's input processing accepts it", x->detail ? x->detail : "");
    if ((d = ids_differ(x, p->enc.ids, p->enc.pieces, p->enc.n, "recorded", "from the contract's vocabulary")))
        return d;
    return NULL;
}


static px_div diverge_inputs(const jctx *j, size_t e, size_t k, char **detail, int *vs_contract)
{
    const px_fixture *f = j->f;
    const px_env_result *b = &j->r->envs[e], *a = j->ref >= 0 && (int)e != j->ref ? &j->r->envs[j->ref] : NULL;
    if (a && !judge_recorded(&a->ex[k]))
        a = NULL; /* the reference has not run it (yet): nothing to compare with */
    const px_example_result *xa = a ? &a->ex[k] : NULL, *xb = &b->ex[k];
    *vs_contract = 0;
    /* The same model in another format has other bytes by nature: its
     * outputs, compared below, say whether it diverges. */
    enum px_model_format fb = f->envs[b->env_index].model_format;
    if (a && fb == f->envs[a->env_index].model_format && strcmp(a->m.model_sha256, b->m.model_sha256)) {
        *detail = strf("model sha256 %.12s… vs %.12s…", a->m.model_sha256, b->m.model_sha256);
        return PX_DIV_MODEL;
    }
    *vs_contract = 1;
    if (f->model_sha256 && fb == f->model_format && strcmp(b->m.model_sha256, f->model_sha256)) {
        *detail = strf("model sha256 %.12s… recorded, %.12s… pinned by the contract",
                      b->m.model_sha256[0] ? b->m.model_sha256 : "(none)", f->model_sha256);
        return PX_DIV_MODEL;
    }
    *vs_contract = 0;
    if (a && (*detail = diverge_labels(a->labels, a->n_labels, b->labels, b->n_labels, "in the reference", "here")))
        return PX_DIV_LABELS;
    *vs_contract = 1;
    if ((*detail = diverge_labels(b->labels, b->n_labels, f->labels, f->n_labels, "here", "in the contract")))
        return PX_DIV_LABELS;
    *vs_contract = 0;
    if (xa && xa->clean_text && xb->clean_text &&
        (*detail = text_differs(xa->clean_text, xb->clean_text, "in the reference", "here")))
        return PX_DIV_CLEAN;
    px_div stage = PX_DIV_NONE;
    char *d = diverge_input(j, e, k, &stage);
    if (d && stage == PX_DIV_CLEAN) {
        *detail = d, *vs_contract = 1;
        return stage;
    }
    if (xa && xa->clean_text && xb->clean_text) {
        char *t = ids_differ(xb, xa->ids, xa->tokens, xa->n_ids, "here", "in the reference");
        if (t) {
            free(d);
            *detail = t;
            return PX_DIV_TOKENS;
        }
    }
    if (d) {
        *detail = d, *vs_contract = 1;
        return stage;
    }
    /* Same ids from another vocabulary: this example does not show it; the
     * ladder's input rung does. */
    *vs_contract = 0;
    return PX_DIV_NONE;
}

px_div diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail, int *vs_contract)
{
    if (!judge_recorded(&j->r->envs[e].ex[k]))
        return PX_DIV_NONE;
    px_div d = diverge_inputs(j, e, k, detail, vs_contract);
    if (d != PX_DIV_NONE || j->ref < 0 || (int)e == j->ref || !judge_recorded(&j->r->envs[j->ref].ex[k]))
        return d;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    if (xa->status == PX_ST_REJECTED && xb->status == PX_ST_REJECTED)
        return PX_DIV_NONE;
    if (judge_failed_alike(xa, xb))
        return PX_DIV_NONE; /* it fails as the reference does: its verdict says so */
    int same_shape = xa->dtype && xb->dtype && xa->ndim == xb->ndim;
    for (int i = 0; same_shape && i < xa->ndim; i++)
        same_shape = xa->shape[i] == xb->shape[i];
    if (!same_shape) {
        char *sa = judge_shape_words(xa), *sb = judge_shape_words(xb);
        *detail = strf("%s vs %s", sa, sb);
        free(sa), free(sb);
        return PX_DIV_SHAPE;
    }
    return j->kind->diverge(j, e, k, v, detail);
}

/* The values stage, for a kind whose output is numbers (each a `noun`):
 * beyond the tolerance, told at the element that decided. */
px_div diverge_values(const jctx *j, size_t e, size_t k, const px_verdict *v, const char *noun, char *const *names,
                      size_t n_names, char **detail)
{
    if (!v->has_cmp || v->cmp.pass || v->has_oracle)
        return PX_DIV_NONE;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    size_t w = v->cmp.worst;
    double d = strcmp(v->stat, "elementwise") ? v->cmp.value : fabs(xb->values[w] - xa->values[w]);
    /* A classifier's logit is named by its label too: "logit 1
     * (positive)" says which answer moved, not only where. */
    char *what = names && w < n_names ? strf("%s %zu (%s)", noun, w, names[w]) : strf("%s %zu", noun, w);
    if (isinf(v->cmp.value))
        *detail = strf("%s: %.6g vs %.6g (no tolerance covers a NaN or an infinity on one side)", what, xa->values[w],
                       xb->values[w]);
    else
        *detail = strf("%s: %.6g vs %.6g (%s |Δ| %.3g > %.3g)", what, xa->values[w], xb->values[w], v->stat, d,
                       v->cmp.threshold);
    free(what);
    return PX_DIV_VALUES;
}
