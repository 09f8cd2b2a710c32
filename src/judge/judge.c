#define PCRE2_CODE_UNIT_WIDTH 8
#include "parity/judge.h"
#include "parity/utf8.h"
#include "parity/prepare.h"

#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/strf.h"
#include "parity/decision.h"

static const struct {
    const char *name, *meaning;
    int met;
} outcomes[PX_OC_COUNT] = {
    [PX_OC_PASS] = {"pass", "the expected decision, with the reference's numbers exactly", 1},
    [PX_OC_PASS_TOL] = {"pass-within-tolerance", "the expected decision; numbers differ within the stated tolerance", 1},
    [PX_OC_WRONG_LABEL] = {"wrong-label", "a plausible label, but not the expected one", 0},
    [PX_OC_NUMERIC_DRIFT] = {"numeric-drift", "the label is right, the numbers are outside the tolerance", 0},
    [PX_OC_BAD_SHAPE] = {"bad-shape", "the output shape is not the one the contract says", 0},
    [PX_OC_EMPTY] = {"empty", "the output has no elements", 0},
    [PX_OC_NON_FINITE] = {"non-finite", "the output holds a NaN or an infinity", 0},
    [PX_OC_EXCEPTION] = {"exception", "the forward raised an error", 0},
    [PX_OC_CRASH] = {"crash", "the executor process died", 0},
    [PX_OC_TIMEOUT] = {"timeout", "no answer within the environment's timeout", 0},
    [PX_OC_UNSUPPORTED] = {"unsupported", "the backend does not implement an operation or dtype", 0},
    [PX_OC_REJECTED_OK] = {"rejected-as-expected", "the contract says reject, and it was", 1},
    [PX_OC_NOT_REJECTED] = {"not-rejected", "the contract says reject, but a label came out", 0},
    [PX_OC_WRONGLY_REJECTED] = {"wrongly-rejected", "rejected, though the contract expects a label", 0},
    [PX_OC_NOT_EVALUATED] = {"not-evaluated", "not judged: environment down, without results, or stopped", 0},
    [PX_OC_CONSTRAINT_VIOLATED] = {"constraint-violated",
                                   "the generated text breaks the example's expectation (which one is said)", 0},
    [PX_OC_WRONG_RANKING] = {"wrong-ranking",
                             "the query's search misses a document its expectation names, or ranks them otherwise", 0},
    [PX_OC_RANKING_CHANGED] = {"ranking-changed",
                               "the query's first k documents differ from the reference's, whatever the numbers", 0},
};

const char *outcome_name(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].name : "?"; }
const char *outcome_meaning(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].meaning : "?"; }
int outcome_met(px_outcome o) { return o < PX_OC_COUNT && outcomes[o].met; }

const char *div_name(px_div d)
{
    static const char *const n[PX_DIV_COUNT] = {"none",          "model revision", "label map",
                                                "cleaned text",  "token ids",      "output shape",
                                                "output values", "decision",       "generated tokens",
                                                "ranking"};
    return d < PX_DIV_COUNT ? n[d] : "?";
}

const char *attr_name(px_attr a)
{
    return a == PX_ATTR_PRECISION ? "precision" : a == PX_ATTR_DEVICE ? "device" : a == PX_ATTR_UNKNOWN ? "unknown" : "none";
}

const char *rung_name(px_rung r)
{
    static const char *const n[PX_RUNG_COUNT] = {"device recognised", "model loaded", "input processed",
                                                 "forward ran", "contract satisfied", "performance"};
    return r < PX_RUNG_COUNT ? n[r] : "?";
}

const char *rung_state_name(px_rung_state s)
{
    static const char *const n[] = {"passed", "failed", "not-reached", "not-measured"};
    return n[s];
}

/* PCRE2 match with limits, so a hostile pattern cannot hang a review.
 * Returns 1 match, 0 no match, -1 with *err on a compile or limit error. */
static int pattern_span(const px_fixture *f, const px_pattern *p, const char *subject, long *at, long *end,
                        px_error *err);

static int pattern_match(const px_fixture *f, const px_pattern *p, const char *subject, px_error *err)
{
    long at, end;
    return pattern_span(f, p, subject, &at, &end, err);
}

/* The same, with the first match's byte span in *at, *end (-1 when none). */
static int pattern_span(const px_fixture *f, const px_pattern *p, const char *subject, long *at, long *end,
                        px_error *err)
{
    *at = *end = -1;
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p->text, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return px_error_set(err, PX_ERR_MALFORMED, f->path, p->loc.line, p->loc.col,
                            "pattern '%s': %s at offset %zu", p->text, (char *)msg, (size_t)off);
    }
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mc, 1000000);
    pcre2_set_depth_limit(mc, 10000);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0, md, mc);
    if (rc >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        *at = (long)ov[0], *end = (long)ov[1];
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    return px_error_set(err, PX_ERR_MALFORMED, f->path, p->loc.line, p->loc.col, "pattern '%s': %s", p->text,
                        (char *)msg);
}

/* Labels are named by the label map the environment's outputs were decided
 * with (as recorded); comparing that map with the contract's is a stage of
 * its own. */
static const char *label_of(const px_results *r, size_t e, int label)
{
    const px_env_result *er = &r->envs[e];
    return label >= 0 && (size_t)label < er->n_labels ? er->labels[label] : NULL;
}

/* Rank of the expected label among the output's logits (0 = best). */
static int rank_of(const px_example_result *x, char *const *labels, size_t n, const char *want)
{
    int idx = -1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(labels[i], want))
            idx = (int)i;
    if (idx < 0 || (size_t)idx >= x->n_values)
        return 1 << 30;
    int rank = 0;
    for (size_t i = 0; i < x->n_values; i++)
        rank += x->values[i] > x->values[idx];
    return rank;
}

/* Does a decided label meet the example's expectation? 1 yes, 0 no (with
 * *why), -1 pattern error. */
static int label_meets(const px_fixture *f, const px_example *ex, const px_example_result *x, char *const *labels,
                       size_t n_labels, const char *got, char **why, px_error *err)
{
    const px_expect *e = &ex->expect;
    int ok = 1;
    if (e->kind == PX_EXPECT_LABEL && !e->top_k) {
        ok = !strcmp(got, f->labels[e->label]);
        if (!ok)
            *why = strf("gave %s, expected %s", got, f->labels[e->label]);
    } else if (e->kind == PX_EXPECT_LABEL) {
        int rank = rank_of(x, labels, n_labels, f->labels[e->label]);
        ok = rank < e->top_k;
        if (!ok)
            *why = strf("%s is not among the %d best (gave %s)", f->labels[e->label], e->top_k, got);
    } else if (e->kind == PX_EXPECT_ANY_OF) {
        ok = 0;
        for (size_t i = 0; i < e->n_any_of; i++)
            ok |= !strcmp(got, f->labels[e->any_of[i]]);
        if (!ok) {
            char list[1024] = "";
            for (size_t i = 0; i < e->n_any_of; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                         f->labels[e->any_of[i]]);
            *why = strf("gave %s, expected any of %s", got, list);
        }
    }
    int m;
    if (ok && e->must_match.text) {
        if ((m = pattern_match(f, &e->must_match, got, err)) < 0)
            return -1;
        if (!m)
            *why = strf("%s does not match must_match '%s'", got, e->must_match.text), ok = 0;
    }
    if (ok && e->must_not_match.text) {
        if ((m = pattern_match(f, &e->must_not_match, got, err)) < 0)
            return -1;
        if (m)
            *why = strf("%s matches must_not_match '%s'", got, e->must_not_match.text), ok = 0;
    }
    return ok;
}

static px_outcome from_status(px_status s)
{
    switch (s) {
    case PX_ST_EXCEPTION: return PX_OC_EXCEPTION;
    case PX_ST_UNSUPPORTED: return PX_OC_UNSUPPORTED;
    case PX_ST_CRASH: return PX_OC_CRASH;
    case PX_ST_TIMEOUT: return PX_OC_TIMEOUT;
    case PX_ST_BAD_SHAPE: return PX_OC_BAD_SHAPE;
    case PX_ST_EMPTY: return PX_OC_EMPTY;
    default: return PX_OC_NOT_EVALUATED;
    }
}

static const px_tolerance *tolerance_for(const px_fixture *f, const px_example *ex)
{
    return ex->tol.present ? &ex->tol : &f->logits_tol;
}

/* Compare with the reference's numbers; sets v->cmp and returns 1 when
 * within tolerance (or by the oracle rule). */
static int numbers_ok(const px_fixture *f, const px_example *ex, const px_example_result *x,
                      const px_example_result *ref, const px_example_result *oracle, px_verdict *v)
{
    if (!ref || ref->status != PX_ST_OK || ref->n_values != x->n_values)
        return 1; /* nothing to compare with: judged on the decision alone */
    const px_tolerance *t = tolerance_for(f, ex);
    px_stat stat = t->present ? (px_stat)compare_stat_from_name(t->stat) : PX_STAT_ELEMENTWISE;
    v->stat = t->present ? t->stat : "elementwise";
    if (compare_values(x->values, ref->values, x->n_values, stat, t->q, t->present ? t->atol : 0,
                       t->present ? t->rtol : 0, &v->cmp))
        return 0;
    v->has_cmp = 1;
    if (t->present && t->oracle_factor > 0 && oracle && oracle->status == PX_ST_OK &&
        oracle->n_values == x->n_values) {
        int pass = 0;
        compare_oracle(x->values, ref->values, oracle->values, x->n_values, t->oracle_factor, &pass,
                       &v->oracle_ratio);
        v->has_oracle = 1;
        return pass;
    }
    return v->cmp.pass;
}

/* TorchScript prefixes the error with its interpreter traceback; the last
 * line is the error itself. The results keep the whole text. */
static char *last_line(const char *s)
{
    size_t end = strlen(s);
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == ' ' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start > 0 && s[start - 1] != '\n')
        start--;
    return strf("%.*s", (int)(end - start), s + start);
}

/* An example that gave no output (raised, crashed, timed out, a bad
 * shape) in both a and b, with the same status and the same last line of
 * its error: one failure, told once. */
static int failed_alike(const px_example_result *a, const px_example_result *b)
{
    if (!a || !b || a->status != b->status || a->status == PX_ST_OK || a->status == PX_ST_REJECTED ||
        a->status == PX_ST_PENDING || a->status == PX_ST_NOT_EVALUATED)
        return 0;
    char *la = last_line(a->detail ? a->detail : ""), *lb = last_line(b->detail ? b->detail : "");
    int same = la && lb && !strcmp(la, lb);
    free(la), free(lb);
    return same;
}

/* The oracle rule's own figures, in words (malloc'd): the candidate's
 * root-mean-square difference to the oracle against the reference's times
 * the factor, and their ratio. */
static char *oracle_words(const px_example_result *x, const px_example_result *ref, const px_example_result *oracle,
                          double factor, int pass)
{
    double rc = compare_rms(x->values, oracle->values, x->n_values);
    double rr = compare_rms(ref->values, oracle->values, x->n_values);
    if (!isfinite(rr))
        return strf("oracle rule: the reference's rms |Δ| to the oracle is not finite: the rule has nothing to "
                    "hold this to");
    if (!isfinite(rc))
        return strf("oracle rule: the rms |Δ| to the oracle is not finite here");
    if (rr == 0)
        return rc == 0 ? strf("oracle rule: the oracle's numbers exactly, as the reference's")
                       : strf("oracle rule: rms |Δ| to the oracle %.3g, and the reference's is 0 (%g × 0 allows "
                              "none)",
                              rc, factor);
    return strf("oracle rule: rms |Δ| to the oracle %.3g %s %g × the reference's %.3g = %.3g (ratio %.3g %s %g)", rc,
                pass ? "within" : ">", factor, rr, factor * rr, rc / rr, pass ? "≤" : ">", factor);
}

typedef struct jctx {
    const px_fixture *f;
    const px_results *r;
    int ref, twin, oracle; /* indices into r->envs, -1 when absent (twin: when
                              the fixture has none; twin_bad says whether it
                              can be used) */
    px_error *err;
    const char *no_ref;    /* why there is no reference result; NULL: there is */
    const char *twin_bad;  /* why the twin cannot tell a cause; NULL: it can */
    const px_judgement *out;
} jctx;

static const px_example_result *result_at(const jctx *j, int e, size_t k)
{
    return e >= 0 ? &j->r->envs[e].ex[k] : NULL;
}

/* The first element that is NaN or infinite, -1 when every one is finite. */
static long first_non_finite(const px_example_result *x)
{
    for (size_t i = 0; i < x->n_values; i++)
        if (!isfinite(x->values[i]))
            return (long)i;
    return -1;
}

/* ---- a generator's examples ---- */

/* Code points, as max_chars counts them (the text is valid UTF-8: parity
 * decoded it). */
static size_t chars_of(const char *s) { return utf8_chars(s, strlen(s)); }

static int only_space(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Token edits (insert, delete, substitute) from a to b: two rows of the
 * usual table, at most max_new_tokens squared steps. */
static size_t edit_distance(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    size_t *prev = malloc((nb + 1) * sizeof *prev), *cur = malloc((nb + 1) * sizeof *cur), d;
    if (!prev || !cur) {
        free(prev), free(cur);
        return (size_t)-1;
    }
    for (size_t jx = 0; jx <= nb; jx++)
        prev[jx] = jx;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = i;
        for (size_t jx = 1; jx <= nb; jx++) {
            size_t best = prev[jx - 1] + (a[i - 1] != b[jx - 1]);
            if (prev[jx] + 1 < best)
                best = prev[jx] + 1;
            if (cur[jx - 1] + 1 < best)
                best = cur[jx - 1] + 1;
            cur[jx] = best;
        }
        size_t *t = prev;
        prev = cur, cur = t;
    }
    d = prev[nb];
    free(prev), free(cur);
    return d;
}

/* Whether id is one of the contract's stop tokens. */
static int stop_token(const px_fixture *f, const px_tokenizer *tok, int64_t id)
{
    for (size_t i = 0; tok && i < f->gen.n_stop; i++)
        if (tokenizer_stop_id(tok, f->gen.stop[i]) == id)
            return 1;
    return 0;
}

/* The ids that make the text: a stop token left out (a stop string's
 * last token holds text and stays). */
static size_t text_ids(const jctx *j, size_t e, const px_generated *g)
{
    return g->n - (g->end == 1 && g->n && stop_token(j->f, j->r->envs[e].tok, g->ids[g->n - 1]));
}

/* The first step where two generations choose differently; -1 when one is
 * the other (the same ids, to the end of both). */
static long first_difference(const px_generated *a, const px_generated *b)
{
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++)
        if (a->ids[i] != b->ids[i])
            return (long)i;
    return a->n == b->n ? -1 : (long)n;
}

/* Whether the generated text holds to same_as_reference; *why when not. */
static int same_as_reference(const jctx *j, size_t e, size_t k, const px_text_expect *t, char **why)
{
    /* Without a reference result nothing is judged against it: the
     * environment is "not compared" as a whole (not_compared). */
    if (t->same == PX_SAME_ANY || (int)e == j->ref || j->ref < 0)
        return 1;
    const px_example_result *ref = result_at(j, j->ref, k), *x = &j->r->envs[e].ex[k];
    if (!ref || ref->status != PX_ST_OK || !ref->gen) {
        *why = strf("same_as_reference: the reference has no generated text for it to be compared with");
        return 0;
    }
    const px_generated *a = ref->gen, *b = x->gen;
    long at = first_difference(a, b);
    if (t->same == PX_SAME_EXACT && at >= 0) {
        *why = strf("same_as_reference exact: the tokens part from the reference's at token %ld", at);
        return 0;
    }
    if (t->same == PX_SAME_PREFIX && at >= 0 && at < t->same_n) {
        *why = strf("same_as_reference prefix %d: the tokens part from the reference's at token %ld", t->same_n, at);
        return 0;
    }
    if (t->same == PX_SAME_EDITS) {
        size_t d = edit_distance(a->ids, text_ids(j, (size_t)j->ref, a), b->ids, text_ids(j, e, b));
        if (d > (size_t)t->same_n) {
            *why = strf("same_as_reference: %zu token edits from the reference's text, more than %d", d, t->same_n);
            return 0;
        }
    }
    return 1;
}

/* What is wrong with a generation before its text is read: nothing
 * generated, a logit that is not finite, an end on a token that is not a
 * stop token. 1 with v's outcome and detail set; 0 when none of these. */
static int generation_broken(const px_fixture *f, const px_env_result *er, const px_generated *g, px_verdict *v)
{
    if (!g) {
        v->outcome = PX_OC_EMPTY;
        v->detail = strf("nothing was generated");
        return 1;
    }
    for (size_t s = 0; s < g->n; s++)
        for (int i = 0; i < g->r; i++) {
            double l = g->top_logits[s * (size_t)g->r + (size_t)i];
            if (!isfinite(l)) {
                v->outcome = PX_OC_NON_FINITE;
                v->detail = strf("step %zu: the logit of token %lld is %s", s, (long long)g->top_ids[s * (size_t)g->r + (size_t)i],
                                isnan(l) ? "nan" : l > 0 ? "inf" : "-inf");
                return 1;
            }
        }
    if (g->end == 1 && !stop_token(f, er->tok, g->ids[g->n - 1])) {
        /* It stopped: on one of the contract's stop tokens, or at the token
         * that completes a stop string in the text. */
        size_t n = 0;
        int end = 0;
        char *text = NULL;
        px_error err = {0};
        if (er->tok && !prep_gen_text(f, er->tok, g->ids, g->n, 2, &n, &end, &text, &err) && end == 1 && n == g->n) {
            free(text);
            return 0;
        }
        free(text);
        const char *last = er->tok ? tokenizer_token(er->tok, g->ids[g->n - 1]) : NULL;
        v->outcome = PX_OC_CONSTRAINT_VIOLATED;
        v->detail = strf("it ended on token %lld ('%s'), which is not one of contract.generate.stop and completes "
                         "no stop string",
                         (long long)g->ids[g->n - 1], last ? last : "?");
        return 1;
    }
    return 0;
}

/* The generated text against the example's text expectation t: its
 * patterns (the spans each matched kept in v->text for display), non_empty,
 * max_chars, same_as_reference. *why says the first it breaks (NULL: none);
 * -1 with j->err when a pattern cannot be matched. */
static int text_constraints(const jctx *j, size_t e, size_t k, const px_text_expect *t, const char *text,
                            px_verdict *v, char **why)
{
    const px_fixture *f = j->f;
    long at, end;
    *why = NULL;
    for (size_t i = 0; t && !*why && i < t->n_must_match; i++) {
        int m = pattern_span(f, &t->must_match[i], text, &at, &end, j->err);
        if (m < 0)
            return -1;
        if (!m)
            *why = strf("must_match '%s' does not match", t->must_match[i].text);
        else if (v->text && v->text->n_matches < PX_MAX_MATCH_SPANS) {
            px_text_verdict *tv = v->text;
            long *grown = realloc(tv->matches, (tv->n_matches + 1) * 2 * sizeof *grown);
            if (grown) {
                tv->matches = grown;
                grown[2 * tv->n_matches] = at, grown[2 * tv->n_matches + 1] = end;
                tv->n_matches++;
            }
        }
    }
    for (size_t i = 0; t && !*why && i < t->n_must_not_match; i++) {
        int m = pattern_span(f, &t->must_not_match[i], text, &at, &end, j->err);
        if (m < 0)
            return -1;
        if (m) {
            *why = strf("must_not_match '%s' matches \"%.*s\" at byte %ld", t->must_not_match[i].text,
                       (int)(end - at > 40 ? 40 : end - at), text + at, at);
            if (v->text)
                v->text->bad_at = at, v->text->bad_end = end;
        }
    }
    size_t chars = chars_of(text);
    if (!*why && t && t->non_empty && only_space(text))
        *why = strf("non_empty: the generated text is empty");
    if (!*why && t && t->max_chars && chars > (size_t)t->max_chars)
        *why = strf("max_chars %d: the generated text has %zu", t->max_chars, chars);
    if (!*why && t)
        same_as_reference(j, e, k, t, why);
    return 0;
}

/* A generator's example that ran: its text (decoded here from its ids:
 * never the executor's or a file's word) against the expectation. */
static int judge_text(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    const px_generated *g = x->gen;
    if (generation_broken(f, er, g, v))
        return 0;
    px_error derr = {0};
    char *text = NULL;
    size_t n_stop = g->n;
    int end_stop = g->end;
    if (er->tok && prep_gen_text(f, er->tok, g->ids, g->n, g->end, &n_stop, &end_stop, &text, &derr))
        text = NULL;
    if (text && (n_stop != g->n || end_stop != g->end)) {
        /* Held to the rule a local run applies: a results file whose ids go
         * on past a stop string is wrong, wherever it was made. */
        v->outcome = PX_OC_CONSTRAINT_VIOLATED;
        v->detail = n_stop == g->n ? strf("its text ends in a stop string, yet it is recorded as ended by length")
                                   : strf("the ids go on past a stop string: its text holds one after %zu of the %zu "
                                          "tokens",
                                          n_stop, g->n);
        free(text);
        return 0;
    }
    if (!text) {
        v->outcome = PX_OC_CONSTRAINT_VIOLATED;
        v->detail = strf("the generated ids cannot be decoded with the contract's vocabulary%s%s",
                        er->tok ? ": " : "", er->tok ? derr.msg : "");
        return 0;
    }
    if (g->text && strcmp(text, g->text)) {
        v->outcome = PX_OC_CONSTRAINT_VIOLATED;
        v->detail = strf("the recorded text is not what its ids decode to (\"%.40s\" recorded, \"%.40s\" decoded)",
                        g->text, text);
        free(text);
        return 0;
    }
    if (ex->expect.kind == PX_EXPECT_REJECTED) {
        v->outcome = PX_OC_NOT_REJECTED;
        v->detail = strf("generated \"%.60s\"; the contract says reject", text);
        free(text);
        return 0;
    }
    char *why = NULL;
    if (text_constraints(j, e, k, ex->expect.text, text, v, &why)) {
        free(text);
        return -1;
    }
    size_t chars = chars_of(text);
    if (why) {
        v->outcome = PX_OC_CONSTRAINT_VIOLATED;
        v->detail = why;
        free(text);
        return 0;
    }
    const px_example_result *ref = (int)e == j->ref ? NULL : result_at(j, j->ref, k);
    int same = !ref || !ref->gen || first_difference(ref->gen, g) < 0;
    v->outcome = same ? PX_OC_PASS : PX_OC_PASS_TOL;
    /* The text itself is shown beside the verdict: not repeated here. */
    v->detail = same ? strf("%zu chars, every constraint holds", chars)
                     : strf("other words, every constraint holds (%zu chars)", chars);
    free(text);
    return 0;
}

/* What the comparison with the reference found, in words that say which
 * rule decided (malloc'd): the oracle rule's own figures when it decides;
 * else the statistic against what the tolerance allows. Elementwise, the
 * logit nearest its bound (or past it), since each logit has its own
 * bound; a NaN or an infinity on one side only, which no tolerance covers. */
static char *numbers_words(const px_verdict *v, const px_example_result *x, const px_example_result *ref,
                           const px_example_result *oracle, const px_tolerance *t, int pass, const char *noun)
{
    if (v->has_oracle)
        return oracle_words(x, ref, oracle, t->oracle_factor, pass);
    size_t w = v->cmp.worst;
    if (isinf(v->cmp.value))
        return strf("%s %zu is %.6g here, %.6g in the reference: no tolerance covers a NaN or an infinity on one "
                    "side",
                    noun, w, x->values[w], ref->values[w]);
    int elementwise = !strcmp(v->stat, "elementwise");
    double d = elementwise ? fabs(x->values[w] - ref->values[w]) : v->cmp.value;
    if (pass) {
        if (!elementwise || d == v->cmp.value)
            return strf("%s |Δ| %.3g within %.3g", v->stat, d, v->cmp.threshold);
        return strf("elementwise, every %s within its tolerance (largest |Δ| %.3g; nearest its bound: %s %zu, "
                    "|Δ| %.3g within %.3g)",
                    noun, v->cmp.value, noun, w, d, v->cmp.threshold);
    }
    if (elementwise && v->cmp.n_failing > 1)
        return strf("elementwise |Δ| %.3g > %.3g at %s %zu, %zu of %zu %ss beyond (smallest atol that passes: "
                    "%.3g)",
                    d, v->cmp.threshold, noun, w, v->cmp.n_failing, x->n_values, noun, v->cmp.smallest_atol);
    if (elementwise)
        return strf("elementwise |Δ| %.3g > %.3g at %s %zu (smallest atol that passes: %.3g)", d,
                    v->cmp.threshold, noun, w, v->cmp.smallest_atol);
    return strf("%s |Δ| %.3g > %.3g (smallest atol that passes: %.3g)", v->stat, d, v->cmp.threshold,
                v->cmp.smallest_atol);
}

/* An example that gave no output to judge: not evaluated, rejected (as the
 * contract wants or not), or failed. 1 with v's outcome and detail set, 0
 * when it ran (status ok), -1 with j->err when the reason's pattern cannot
 * be matched. */
static int judge_status(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_example *ex = &j->f->examples[k];
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    int want_reject = ex->expect.kind == PX_EXPECT_REJECTED;
    if (!er->selected || er->origin == PX_ORIGIN_NONE) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("%s", !er->selected ? "not selected (-e)" : er->source ? er->source : "no results");
        return 1;
    }
    if (x->status == PX_ST_NOT_EVALUATED || x->status == PX_ST_PENDING) {
        v->outcome = PX_OC_NOT_EVALUATED;
        v->detail = strf("%s", x->detail ? x->detail : "not run");
        return 1;
    }
    if (x->status == PX_ST_REJECTED) {
        v->outcome = want_reject ? PX_OC_REJECTED_OK : PX_OC_WRONGLY_REJECTED;
        if (want_reject && ex->expect.reason.text) {
            int m = pattern_match(j->f, &ex->expect.reason, x->detail ? x->detail : "", j->err);
            if (m < 0)
                return -1;
            if (!m)
                v->outcome = PX_OC_WRONGLY_REJECTED;
        }
        v->detail = strf("%s", x->detail ? x->detail : "rejected");
        return 1;
    }
    if (x->status != PX_ST_OK) {
        v->outcome = from_status(x->status);
        char *last = last_line(x->detail ? x->detail : outcome_name(v->outcome));
        /* The reference failed the same way: one failure, said once. */
        if (last && (int)e != j->ref && failed_alike(x, result_at(j, j->ref, k))) {
            int raised = x->status == PX_ST_EXCEPTION || x->status == PX_ST_UNSUPPORTED;
            v->detail = strf("%s: %s", raised ? "both raised" : "the reference too", last);
            free(last);
        } else {
            v->detail = last;
        }
        return 1;
    }
    return 0;
}

/* ---- an embedding's examples ---- */

static char *shape_str(const px_example_result *x);

/* A vector to judge or to rank by: ran, [1, dim], every element finite. */
static int vector_usable(const px_fixture *f, const px_example_result *x)
{
    return x && x->status == PX_ST_OK && x->ndim == 2 && x->shape[0] == 1 && x->shape[1] == f->dim &&
           x->n_values == (size_t)f->dim && first_non_finite(x) < 0;
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
    char *last = last_line(x->detail ? x->detail : "");
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
    char buf[1024] = "";
    size_t o = 0;
#define ADD(...) (o += (size_t)snprintf(buf + o, o < sizeof buf ? sizeof buf - o : 0, __VA_ARGS__), \
                  o = o < sizeof buf ? o : sizeof buf - 1)
    /* Documents in both, at other ranks (only when the order counts). */
    size_t moved[64], nm = 0;
    for (size_t i = 0; exact && i < k && nm < 64; i++)
        if (a[i] != b[i] && rank_in(a, k, b[i]) >= 0)
            moved[nm++] = i;
    if (nm == 2 && b[moved[0]] == a[moved[1]] && b[moved[1]] == a[moved[0]]) {
        ADD("rank %zu and %zu swap: %s, %s", moved[0] + 1, moved[1] + 1, f->examples[b[moved[0]]].id,
            f->examples[b[moved[1]]].id);
    } else if (nm) {
        ADD("reordered:");
        for (size_t i = 0; i < nm; i++)
            ADD("%s %s from rank %ld to %zu", i ? "," : "", f->examples[b[moved[i]]].id,
                rank_in(a, k, b[moved[i]]) + 1, moved[i] + 1);
    }
    for (size_t i = 0; i < k; i++)
        if (rank_in(a, k, b[i]) < 0)
            ADD("%s%s enters at rank %zu", o ? ", " : "", f->examples[b[i]].id, i + 1);
    for (size_t i = 0; i < k; i++)
        if (rank_in(b, k, a[i]) < 0)
            ADD("%s%s leaves", o ? ", " : "", f->examples[a[i]].id);
#undef ADD
    return o ? strf("%s", buf) : NULL;
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
    char buf[1024] = "";
    size_t o = 0, k = (size_t)em->k < em->n_ranked ? (size_t)em->k : em->n_ranked;
    for (size_t i = 0; i < k && o < sizeof buf - 1; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s %.4g", i ? ", " : "", f->examples[em->doc[i]].id,
                              em->score[i]);
    return strf("%s", buf);
}

static const px_similar *similar_for(const px_fixture *f, const px_example *ex)
{
    return ex->similar.present ? &ex->similar : f->similar.present ? &f->similar : NULL;
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
    const px_tolerance *t = tolerance_for(f, ex);
    int elem_ok = 1, cos_ok = 1;
    if (t->present || !sim)
        elem_ok = numbers_ok(f, ex, x, ref, result_at(j, j->oracle, k), v);
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
        nw = numbers_words(v, x, ref, result_at(j, j->oracle, k), t, elem_ok, "element");
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
static int judge_embed(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_example_result *x = &j->r->envs[e].ex[k];
    px_embed_verdict *em = v->embed;
    if (x->ndim != 2 || x->shape[0] != 1 || x->shape[1] != f->dim || x->n_values != (size_t)f->dim) {
        char *sh = shape_str(x);
        v->outcome = PX_OC_BAD_SHAPE;
        v->detail = strf("the output is %s, not [1,%d] (contract.model.dim)", sh ? sh : "?", f->dim);
        free(sh);
        return 0;
    }
    long bad = first_non_finite(x);
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
    const px_example_result *ref = (int)e == j->ref ? NULL : result_at(j, j->ref, k);
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

static int judge_example(const jctx *j, size_t e, size_t k, px_verdict *v)
{
    const px_fixture *f = j->f;
    const px_example *ex = &f->examples[k];
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    int want_reject = ex->expect.kind == PX_EXPECT_REJECTED;
    int st = judge_status(j, e, k, v);
    if (st)
        return st < 0 ? -1 : 0;
    if (f->kind == PX_MODEL_GENERATOR)
        return judge_text(j, e, k, v);
    if (f->kind == PX_MODEL_EMBEDDING)
        return judge_embed(j, e, k, v);
    /* A NaN or an infinity is a failure of its own, in the reference as in
     * a candidate: never compared away as "equal to the reference's NaN". */
    long bad = first_non_finite(x);
    if (bad >= 0) {
        v->outcome = PX_OC_NON_FINITE;
        v->detail = strf("logit %ld (%s) is %s", bad, label_of(j->r, e, (int)bad) ? label_of(j->r, e, (int)bad) : "?",
                        isnan(x->values[bad]) ? "nan" : x->values[bad] > 0 ? "inf" : "-inf");
        return 0;
    }
    const char *got = label_of(j->r, e, x->label);
    if (want_reject) {
        v->outcome = PX_OC_NOT_REJECTED;
        v->detail = strf("gave %s; the contract says reject", got ? got : "?");
        return 0;
    }
    char *why = NULL;
    int ok = label_meets(f, ex, x, er->labels, er->n_labels, got ? got : "", &why, j->err);
    if (ok < 0)
        return -1;
    if (!ok) {
        v->outcome = PX_OC_WRONG_LABEL;
        v->detail = why;
        return 0;
    }
    free(why);
    if ((int)e == j->ref) {
        v->outcome = PX_OC_PASS;
        v->detail = strf("%s", got);
        return 0;
    }
    const px_example_result *ref = result_at(j, j->ref, k), *oracle = result_at(j, j->oracle, k);
    int num_ok = numbers_ok(f, ex, x, ref, oracle, v);
    if (!v->has_cmp || v->cmp.identical) {
        v->outcome = PX_OC_PASS;
        v->detail = strf("%s", got);
        return 0;
    }
    v->outcome = num_ok ? PX_OC_PASS_TOL : PX_OC_NUMERIC_DRIFT;
    char *words = numbers_words(v, x, ref, oracle, tolerance_for(f, ex), num_ok, "logit");
    v->detail = strf("%s; %s", got, words ? words : "");
    free(words);
    return 0;
}

static char *shape_str(const px_example_result *x)
{
    if (!x->dtype) /* why is its verdict's (the error's last line): not repeated */
        return strf("none (%s)", status_name(x->status));
    char buf[128];
    int o = snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < x->ndim && o < 100; i++)
        o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%lld", i ? "," : "", (long long)x->shape[i]);
    snprintf(buf + o, sizeof buf - (size_t)o, "]");
    return strf("%s", buf);
}

/* ---- what an environment's results say against what the contract says ---- */

/* Something was recorded for the example: it ran, or was rejected. */
static int recorded(const px_example_result *x)
{
    return x->status != PX_ST_PENDING && x->status != PX_ST_NOT_EVALUATED;
}

/* The first difference between two label maps, in words; NULL when equal.
 * `here` and `there` name the two sides. */
static char *labels_differ(char *const *a, size_t na, char *const *b, size_t nb, const char *here, const char *there)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i], b[i]))
            return strf("logit %zu means %s %s, %s %s", i, a[i], here, b[i], there);
    if (na != nb)
        return strf("%zu labels %s, %zu %s", na, here, nb, there);
    return NULL;
}

static char *text_differs(const char *a, const char *b, const char *here, const char *there)
{
    if (!strcmp(a, b))
        return NULL;
    size_t i = 0;
    while (a[i] == b[i])
        i++;
    return strf("byte %zu: \"%.12s\" %s, \"%.12s\" %s", i, a + i, here, b + i, there);
}

static char *ids_differ(const px_example_result *x, const int64_t *ids, char *const *tokens, size_t n,
                        const char *here, const char *there)
{
    size_t m = x->n_ids < n ? x->n_ids : n;
    for (size_t i = 0; i < m; i++)
        if (x->ids[i] != ids[i])
            return strf("token %zu: %lld ('%s') %s, %lld ('%s') %s", i, (long long)x->ids[i],
                       x->tokens ? x->tokens[i] : "?", here, (long long)ids[i], tokens ? tokens[i] : "?", there);
    if (x->n_ids != n)
        return strf("%zu tokens %s, %zu %s", x->n_ids, here, n, there);
    return NULL;
}

/* Did the environment process example k's input as the contract says
 * (cleaned text, rejection, token ids)? NULL when it did or when there is
 * nothing to compare; else the difference, with *stage set. */
static char *input_vs_contract(const jctx *j, size_t e, size_t k, px_div *stage)
{
    const px_env_result *er = &j->r->envs[e];
    const px_example_result *x = &er->ex[k];
    if (!er->expect || x->status == PX_ST_NOT_EVALUATED || x->status == PX_ST_PENDING)
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

/* The contract's pins and label map, and the environment's own (its
 * overrides), against what its results record. */
static const char *model_pin(const jctx *j, size_t e) { return j->f->envs[j->r->envs[e].env_index].model_sha256; }
static const char *vocab_pin(const jctx *j, size_t e) { return j->f->envs[j->r->envs[e].env_index].vocab_sha256; }

static px_div diverge_inputs(const jctx *j, size_t e, size_t k, char **detail, int *vs_contract)
{
    const px_fixture *f = j->f;
    const px_env_result *b = &j->r->envs[e], *a = j->ref >= 0 && (int)e != j->ref ? &j->r->envs[j->ref] : NULL;
    if (a && !recorded(&a->ex[k]))
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
    if (a && (*detail = labels_differ(a->labels, a->n_labels, b->labels, b->n_labels, "in the reference", "here")))
        return PX_DIV_LABELS;
    *vs_contract = 1;
    if ((*detail = labels_differ(b->labels, b->n_labels, f->labels, f->n_labels, "here", "in the contract")))
        return PX_DIV_LABELS;
    *vs_contract = 0;
    if (xa && xa->clean_text && xb->clean_text &&
        (*detail = text_differs(xa->clean_text, xb->clean_text, "in the reference", "here")))
        return PX_DIV_CLEAN;
    px_div stage = PX_DIV_NONE;
    char *d = input_vs_contract(j, e, k, &stage);
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

/* Token id as its text ('\n' and the like escaped), for a one-line detail. */
static void token_words(const px_tokenizer *tok, int64_t id, char *buf, size_t size)
{
    const char *t = tok ? tokenizer_token(tok, id) : NULL;
    if (!t) {
        snprintf(buf, size, "#%lld", (long long)id);
        return;
    }
    size_t o = 0;
    o += (size_t)snprintf(buf, size, "'");
    for (; *t && o + 6 < size; t++)
        o += (size_t)(*t == '\n' ? snprintf(buf + o, size - o, "\\n") : *t == '\'' ? snprintf(buf + o, size - o, "\\'")
                                                                      : snprintf(buf + o, size - o, "%c", *t));
    snprintf(buf + o, size - o, "'");
}

/* A step's logit of an id from its top list; 0 when the id is not in it
 * (*in 0), with *floor the list's last logit. */
static double top_logit(const px_generated *g, size_t step, int64_t id, int *in, double *floor)
{
    *in = 0, *floor = g->r ? g->top_logits[step * (size_t)g->r + (size_t)g->r - 1] : 0;
    for (int i = 0; i < g->r; i++)
        if (g->top_ids[step * (size_t)g->r + (size_t)i] == id) {
            *in = 1;
            return g->top_logits[step * (size_t)g->r + (size_t)i];
        }
    return 0;
}

/* "diverged at token N: 'b' here, 'a' in the reference; margin here
 * logit('b') - logit('a') = m" (the reference's token beyond the top list:
 * the margin is at least the distance to its last logit). */
static char *diverged_words(const jctx *j, size_t e, const px_generated *a, const px_generated *b, long at)
{
    const px_tokenizer *tok = j->r->envs[e].tok;
    char ta[48] = "(ended)", tb[48] = "(ended)";
    if ((size_t)at < a->n)
        token_words(tok, a->ids[at], ta, sizeof ta);
    if ((size_t)at < b->n)
        token_words(tok, b->ids[at], tb, sizeof tb);
    if ((size_t)at >= a->n || (size_t)at >= b->n)
        return strf("diverged at token %ld: %s here, %s in the reference", at, tb, ta);
    int in;
    double floor, mine = top_logit(b, (size_t)at, b->ids[at], &in, &floor);
    double theirs = top_logit(b, (size_t)at, a->ids[at], &in, &floor);
    if (!in)
        return strf("diverged at token %ld: %s here, %s in the reference; margin here > %.4g (the reference's token "
                   "is not among this step's %d largest)",
                   at, tb, ta, mine - floor, b->r);
    return strf("diverged at token %ld: %s here, %s in the reference; margin here %.4g (logits %.6g vs %.6g)", at, tb,
               ta, mine - theirs, mine, theirs);
}

static px_div diverge(const jctx *j, size_t e, size_t k, const px_verdict *v, char **detail, int *vs_contract)
{
    if (!recorded(&j->r->envs[e].ex[k]))
        return PX_DIV_NONE;
    px_div d = diverge_inputs(j, e, k, detail, vs_contract);
    if (d != PX_DIV_NONE || j->ref < 0 || (int)e == j->ref || !recorded(&j->r->envs[j->ref].ex[k]))
        return d;
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    if (xa->status == PX_ST_REJECTED && xb->status == PX_ST_REJECTED)
        return PX_DIV_NONE;
    if (failed_alike(xa, xb))
        return PX_DIV_NONE; /* it fails as the reference does: its verdict says so */
    int same_shape = xa->dtype && xb->dtype && xa->ndim == xb->ndim;
    for (int i = 0; same_shape && i < xa->ndim; i++)
        same_shape = xa->shape[i] == xb->shape[i];
    if (!same_shape) {
        char *sa = shape_str(xa), *sb = shape_str(xb);
        *detail = strf("%s vs %s", sa, sb);
        free(sa), free(sb);
        return PX_DIV_SHAPE;
    }
    if (xa->gen && xb->gen) {
        long at = first_difference(xa->gen, xb->gen);
        if (at < 0)
            return PX_DIV_NONE;
        *detail = diverged_words(j, e, xa->gen, xb->gen, at);
        if (v->text)
            v->text->diverged_at = at;
        return PX_DIV_GENERATED;
    }
    const char *noun = v->embed ? "element" : "logit";
    if (v->has_cmp && !v->cmp.pass && !v->has_oracle) {
        size_t w = v->cmp.worst;
        double d = strcmp(v->stat, "elementwise") ? v->cmp.value : fabs(xb->values[w] - xa->values[w]);
        if (isinf(v->cmp.value))
            *detail = strf("%s %zu: %.6g vs %.6g (no tolerance covers a NaN or an infinity on one side)", noun, w,
                          xa->values[w], xb->values[w]);
        else
            *detail = strf("%s %zu: %.6g vs %.6g (%s |Δ| %.3g > %.3g)", noun, w, xa->values[w], xb->values[w],
                          v->stat, d, v->cmp.threshold);
        return PX_DIV_VALUES;
    }
    if (v->embed) {
        /* An embedding's: its vector's direction, then its search. */
        const px_embed_verdict *em = v->embed;
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
    const char *la = label_of(j->r, (size_t)j->ref, xa->label), *lb = label_of(j->r, e, xb->label);
    if (la && lb && strcmp(la, lb)) {
        *detail = strf("%s vs %s", la, lb);
        return PX_DIV_DECISION;
    }
    return PX_DIV_NONE;
}

/* An embedding's: a query whose first k changed from the reference's is
 * precision's when the twin's first k are the candidate's (the same
 * change), the device's when the twin's are the reference's, unknown when
 * the twin changed them another way or has no search; a vector that
 * drifted (the search held) as a classifier's logits: precision's when
 * the twin drifts beyond the same rules, the device's when it stays
 * within them. */
static px_attr attribute_embed(const jctx *j, size_t e, size_t k, const px_example_result *ref, const px_verdict *v)
{
    const px_embed_verdict *em = v->embed;
    const px_example *ex = &j->f->examples[k];
    int changed = em->held == 0, drift = !changed && v->outcome == PX_OC_NUMERIC_DRIFT;
    if (!changed && !drift)
        return PX_ATTR_NONE;
    if (j->twin_bad)
        return PX_ATTR_UNKNOWN;
    if ((int)e == j->twin)
        return PX_ATTR_PRECISION;
    const px_example_result *tw = result_at(j, j->twin, k);
    if (!tw || tw->status != PX_ST_OK || !vector_usable(j->f, tw))
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

/* A decision change in a candidate is precision's doing when the bfloat16
 * twin changes it the same way, the device's when the twin keeps the
 * reference's decision. A generator's: a generated path that parts from
 * the reference's is precision's when the twin generates the same path,
 * the device's when the twin's is another. numeric-drift (the decision
 * kept, the numbers beyond the tolerance): precision's when the twin drifts
 * alike (it is beyond the tolerance too), the device's when the twin stays
 * within it. The twin tells only when its own ladder passed "forward ran"
 * and it has an output for the example: else the cause is unknown (the
 * judgement says why). */
static px_attr attribute(const jctx *j, size_t e, size_t k)
{
    const px_example_result *ref = result_at(j, j->ref, k), *x = &j->r->envs[e].ex[k];
    if (!ref || ref->status != PX_ST_OK || x->status != PX_ST_OK || j->twin < 0)
        return PX_ATTR_NONE;
    const px_verdict *v = &j->out->envs[e].ex[k];
    if (v->embed)
        return attribute_embed(j, e, k, ref, v);
    int gen = ref->gen || x->gen, drift = 0;
    const char *lr = NULL, *lx = NULL;
    if (gen) {
        /* A generator's: the path it generated, instead of the label. */
        if (!ref->gen || !x->gen || first_difference(ref->gen, x->gen) < 0)
            return PX_ATTR_NONE;
    } else {
        lr = label_of(j->r, (size_t)j->ref, ref->label), lx = label_of(j->r, e, x->label);
        if (!lr || !lx)
            return PX_ATTR_NONE;
        drift = !strcmp(lr, lx);
        if (drift && v->outcome != PX_OC_NUMERIC_DRIFT)
            return PX_ATTR_NONE;
    }
    if (j->twin_bad)
        return PX_ATTR_UNKNOWN;
    if ((int)e == j->twin)
        return PX_ATTR_PRECISION;
    const px_example_result *tw = result_at(j, j->twin, k);
    if (!tw || tw->status != PX_ST_OK)
        return PX_ATTR_UNKNOWN;
    if (gen) {
        if (!tw->gen)
            return PX_ATTR_UNKNOWN;
        return first_difference(tw->gen, x->gen) < 0 ? PX_ATTR_PRECISION : PX_ATTR_DEVICE;
    }
    if (drift) {
        /* The twin against the reference, under the example's tolerance. */
        px_verdict tv = {0};
        int within = numbers_ok(j->f, &j->f->examples[k], tw, ref, result_at(j, j->oracle, k), &tv);
        if (!tv.has_cmp)
            return PX_ATTR_UNKNOWN;
        return within ? PX_ATTR_DEVICE : PX_ATTR_PRECISION;
    }
    const char *lt = label_of(j->r, (size_t)j->twin, tw->label);
    return lt && !strcmp(lt, lx) ? PX_ATTR_PRECISION : PX_ATTR_DEVICE;
}

static void set_rung(px_env_verdict *ev, px_rung r, px_rung_state s, char *detail)
{
    ev->rung[r] = s;
    free(ev->rung_detail[r]);
    ev->rung_detail[r] = detail;
}

/* Device recognised: for results read from a file, also the device type
 * and dtype it claims are the ones the fixture gives the environment. */
static char *device_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const px_env *fe = &j->f->envs[er->env_index];
    if (er->origin != PX_ORIGIN_FILE)
        return NULL;
    if (fe->dtype && (!er->m.dtype || strcmp(er->m.dtype, fe->dtype)))
        return strf("recorded dtype %s, but the environment is %s", er->m.dtype ? er->m.dtype : "(none)", fe->dtype);
    if (fe->device && er->m.device) {
        size_t n = strcspn(fe->device, ":"), m = strcspn(er->m.device, ":");
        if (n != m || strncmp(fe->device, er->m.device, n))
            return strf("recorded device %s, but the environment is %s", er->m.device, fe->device);
    }
    return NULL;
}

/* Model loaded: the recorded revision is the environment's pinned one, and
 * its outputs were decided with the environment's label map. */
static char *model_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const px_env *fe = &j->f->envs[er->env_index];
    const char *pin = model_pin(j, e);
    if (!pin)
        return strf("no pinned revision to check the recorded one against");
    if (!er->m.model_sha256[0])
        return strf("no model revision recorded: it cannot be checked against the pinned %.12s…", pin);
    if (strcmp(er->m.model_sha256, pin))
        return strf("revision %s is not the pinned %s (once the new revision is reviewed, `parity pin %s` "
                    "pins it)",
                    er->m.model_sha256, pin, j->f->path);
    return labels_differ(er->labels, er->n_labels, fe->labels, fe->n_labels, "here", "in the fixture");
}

/* Input processed: the recorded vocabulary is the pinned one and every
 * example went in as the contract's processing makes it. */
static char *input_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const char *pin = vocab_pin(j, e);
    if (!pin)
        return strf("no pinned vocabulary to check the recorded one against");
    if (!er->m.vocab_sha256[0])
        return strf("no vocabulary sha256 recorded: it cannot be checked against the pinned %.12s…", pin);
    if (strcmp(er->m.vocab_sha256, pin))
        return strf("vocabulary %s is not the pinned %s (once the new vocabulary is reviewed, `parity pin %s` "
                    "pins it)",
                    er->m.vocab_sha256, pin, j->f->path);
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_div stage;
        char *d = input_vs_contract(j, e, k, &stage);
        if (d) {
            char *s = strf("%s: %s differs: %s", j->f->examples[k].id, div_name(stage), d);
            free(d);
            return s;
        }
    }
    return NULL;
}

/* Contract satisfied also means the contract's own task: an environment
 * that runs another model, vocabulary or label map than the contract pins
 * (an override, or a file recorded with one) is a different task. */
static char *task_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const px_fixture *f = j->f;
    /* The contract's model in another format (a TorchScript trace or an
     * exported program of its Transformers directory) has other bytes by
     * nature: the environment pins them itself (the model rung checked
     * them), and its outputs are judged against the reference's as any. */
    int other_format = f->envs[er->env_index].model_format != f->model_format;
    if (f->model_sha256 && !other_format && strcmp(er->m.model_sha256, f->model_sha256))
        return strf("it runs model %.12s…, not the contract's pinned %.12s…: a different task", er->m.model_sha256,
                   f->model_sha256);
    if (f->vocab_sha256 && strcmp(er->m.vocab_sha256, f->vocab_sha256))
        return strf("it uses vocabulary %.12s…, not the contract's pinned %.12s…: a different task",
                   er->m.vocab_sha256, f->vocab_sha256);
    char *d = labels_differ(er->labels, er->n_labels, f->labels, f->n_labels, "here", "in the contract");
    if (d) {
        char *s = strf("its label map is not the contract's (%s): a different task", d);
        free(d);
        return s;
    }
    return NULL;
}

/* The rungs before any forward: device recognised, model loaded, input
 * processed. 1 when one failed (the ladder stops there), 0 when all
 * passed. */
static int setup_rungs(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    char *bad;
    if (er->state == PX_ENV_DOWN && er->down_stage == PX_STAGE_DEVICE) {
        set_rung(ev, PX_RUNG_DEVICE, PX_RS_FAILED, strf("%s", er->down_msg ? er->down_msg : "down"));
        return 1;
    }
    if ((bad = device_mismatch(j, e))) {
        set_rung(ev, PX_RUNG_DEVICE, PX_RS_FAILED, bad);
        return 1;
    }
    set_rung(ev, PX_RUNG_DEVICE, PX_RS_PASSED, strf("%s", results_env_device(j->f, er)));
    if (er->state == PX_ENV_DOWN && er->down_stage == PX_STAGE_LOAD) {
        set_rung(ev, PX_RUNG_MODEL, PX_RS_FAILED, strf("%s", er->down_msg ? er->down_msg : "down"));
        return 1;
    }
    if ((bad = model_mismatch(j, e))) {
        set_rung(ev, PX_RUNG_MODEL, PX_RS_FAILED, bad);
        return 1;
    }
    set_rung(ev, PX_RUNG_MODEL, PX_RS_PASSED, strf("sha256 %.12s…", er->m.model_sha256));
    if ((bad = input_mismatch(j, e))) {
        set_rung(ev, PX_RUNG_INPUT, PX_RS_FAILED, bad);
        return 1;
    }
    set_rung(ev, PX_RUNG_INPUT, PX_RS_PASSED, strf("vocab sha256 %.12s…", er->m.vocab_sha256));
    return 0;
}

/* Contract satisfied: every evaluated example meets it and the environment
 * runs the contract's own task; not reached when examples were not
 * evaluated (missing, the first at first_missing) or nothing is compared. */
static void contract_rung(const jctx *j, size_t e, px_env_verdict *ev, size_t missing, size_t first_missing)
{
    const px_env_result *er = &j->r->envs[e];
    size_t n = j->r->n_examples;
    char *bad;
    int unmet = 0;
    const char *id = NULL;
    for (size_t k = 0; k < n; k++)
        if (!outcome_met(ev->ex[k].outcome) && ev->ex[k].outcome != PX_OC_NOT_EVALUATED && !unmet++)
            id = j->f->examples[k].id;
    if (unmet)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_FAILED, strf("%d example(s) do not meet it, first %s", unmet, id));
    else if ((bad = task_mismatch(j, e)))
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_FAILED, bad);
    else if (missing)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_NOT_REACHED,
                 strf("partial: %zu of %zu examples not evaluated (first %s: %s)", missing, n,
                     j->f->examples[first_missing].id,
                     er->ex[first_missing].detail ? er->ex[first_missing].detail : "no result"));
    else if (ev->not_compared)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_NOT_REACHED, strf("not compared: no reference (%s)", ev->not_compared));
    else
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_PASSED, strf("all %zu examples", n));
}

/* The first failing rung stops the ladder: nothing after it is shown as
 * passed. */
static void ladder(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        ev->rung[r] = PX_RS_NOT_REACHED;
    ev->rung[PX_RUNG_PERF] = PX_RS_NOT_MEASURED;
    if (!er->selected || er->origin == PX_ORIGIN_NONE || setup_rungs(j, e, ev))
        return;
    /* An example without a result (another shard's, or beyond where a run
     * was cut short) did not fail to run: it is not known. Forward ran is
     * judged on the examples that have one; the contract rung is then not
     * reached (partial). */
    size_t n = j->r->n_examples, first = n, missing = 0, first_missing = n;
    for (size_t k = 0; k < n && first == n; k++) {
        if (er->state != PX_ENV_DOWN && !recorded(&er->ex[k])) {
            if (!missing++)
                first_missing = k;
        } else if (er->ex[k].status != PX_ST_OK && er->ex[k].status != PX_ST_REJECTED) {
            first = k;
        }
    }
    if (er->state == PX_ENV_DOWN || first < n) {
        const px_example_result *x = first < n ? &er->ex[first] : NULL;
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_FAILED,
                 x ? strf("%s: %s: %s", j->f->examples[first].id, status_name(x->status), ev->ex[first].detail)
                   : strf("%s", er->down_msg ? er->down_msg : "down"));
        return;
    }
    ev->not_evaluated = missing;
    if (missing)
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED,
                 strf("every evaluated example's output is %s; %zu of %zu not evaluated",
                     j->f->kind == PX_MODEL_GENERATOR   ? "[1,T,V] at each step"
                     : j->f->kind == PX_MODEL_EMBEDDING ? "[1,dim]"
                                                        : "[1,labels]",
                     missing, n));
    else if (j->f->kind == PX_MODEL_GENERATOR)
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED, strf("every example generated, each step's output [1,T,V]"));
    else if (j->f->kind == PX_MODEL_EMBEDDING)
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED, strf("every example's output is [1,%d]", j->f->dim));
    else
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED, strf("every example's output is [1,%zu]", er->n_labels));
    contract_rung(j, e, ev, missing, first_missing);
}

static int find_role(const px_fixture *f, const px_results *r, const char *role, int any)
{
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env *fe = &f->envs[r->envs[e].env_index];
        if (fe->role && !strcmp(fe->role, role) &&
            (any || (r->envs[e].state == PX_ENV_UP && r->envs[e].selected && r->envs[e].origin != PX_ORIGIN_NONE)))
            return (int)e;
    }
    return -1;
}

static void add_finding(px_judgement *out, char *s)
{
    char **v = realloc(out->findings, (out->n_findings + 1) * sizeof *v);
    if (!v) {
        free(s);
        return;
    }
    out->findings = v;
    out->findings[out->n_findings++] = s;
}

static int judge_env(const jctx *j, size_t e, px_judgement *out)
{
    px_env_verdict *ev = &out->envs[e];
    const px_env_result *er = &j->r->envs[e];
    ev->ex = calloc(j->r->n_examples ? j->r->n_examples : 1, sizeof *ev->ex);
    ev->is_reference = (int)e == j->ref;
    ev->selected = er->selected;
    ev->absent = er->selected && er->origin == PX_ORIGIN_NONE;
    ev->down = er->selected && er->state == PX_ENV_DOWN;
    int judged = er->selected && !ev->absent;
    /* Nothing is judged against what is not there. */
    if (judged && !ev->down && !ev->is_reference && j->no_ref && !(ev->not_compared = strf("%s", j->no_ref)))
        return px_error_oom(j->err, NULL);
    size_t uncompared = 0, first_uncompared = 0;
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_verdict *v = &ev->ex[k];
        if (j->f->kind == PX_MODEL_GENERATOR) {
            if (!(v->text = calloc(1, sizeof *v->text)))
                return px_error_oom(j->err, NULL);
            v->text->diverged_at = v->text->bad_at = v->text->bad_end = -1;
        }
        if (j->f->kind == PX_MODEL_EMBEDDING) {
            if (!(v->embed = calloc(1, sizeof *v->embed)))
                return px_error_oom(j->err, NULL);
            v->embed->cosine = v->embed->min_cosine = v->embed->norm = NAN;
            v->embed->held = -1;
            const px_retrieval *rt = j->f->examples[k].expect.retrieval;
            v->embed->k = rt && j->f->examples[k].expect.kind == PX_EXPECT_RETRIEVAL ? rt->k : 0;
        }
        if (judge_example(j, e, k, v))
            return -1;
        /* Only what was recorded can be compared; a down environment
         * recorded no inputs. */
        if (judged && !ev->down)
            v->div = diverge(j, e, k, v, &v->div_detail, &v->div_contract);
        /* A candidate's example that ran, with nothing of the reference's
         * to compare it with: judged by its task checks only. */
        const px_example_result *x = &er->ex[k], *rx = result_at(j, j->ref, k);
        if (judged && !ev->down && !ev->is_reference && v->outcome != PX_OC_NOT_EVALUATED && recorded(x) &&
            (j->ref < 0 || (x->status == PX_ST_OK && rx->status != PX_ST_OK))) {
            v->not_compared = 1;
            if (!uncompared++)
                first_uncompared = k;
        }
        if (v->not_compared && v->outcome == PX_OC_PASS) {
            /* Its task checks hold; its numbers were not compared. */
            char *d = strf("%s; not compared: %s", v->detail ? v->detail : "",
                          j->ref < 0 ? "no reference" : "the reference has no output for it");
            if (d)
                free(v->detail), v->detail = d;
        }
        if (er->selected)
            ev->counts[v->outcome]++;
        if (ev->is_reference && judged && !outcome_met(v->outcome) && v->outcome != PX_OC_NOT_EVALUATED)
            add_finding(out, strf("the reference itself disagrees with the expectation on %s: %s (%s)",
                                 j->f->examples[k].id, outcome_name(v->outcome), v->detail ? v->detail : ""));
    }
    if (uncompared && !ev->not_compared) {
        /* The reference is there, but not for every example (cut short,
         * another shard's file, a failure of its own). */
        const px_example_result *rx = result_at(j, j->ref, first_uncompared);
        char *last = rx->detail ? last_line(rx->detail) : NULL;
        ev->not_compared = strf("the reference has no output for %zu example(s), first %s (%s%s%s)", uncompared,
                               j->f->examples[first_uncompared].id, status_name(rx->status), last ? ": " : "",
                               last ? last : "");
        free(last);
        if (!ev->not_compared)
            return px_error_oom(j->err, NULL);
    }
    ladder(j, e, ev);
    /* Met: every rung up to "contract satisfied" passed. */
    ev->met = judged && !ev->down;
    int failed = 0;
    for (int r = 0; r <= PX_RUNG_CONTRACT; r++) {
        ev->met &= ev->rung[r] == PX_RS_PASSED;
        failed |= ev->rung[r] == PX_RS_FAILED;
    }
    for (int o = 0; o < PX_OC_COUNT; o++)
        if (ev->counts[o] && !outcome_met((px_outcome)o))
            ev->met = 0;
    /* Not met, yet nothing known to be wrong: only something missing. */
    ev->incomplete = judged && !ev->down && !ev->met && !failed;
    return 0;
}

/* Precision or device, once every ladder is known (the twin's among them),
 * for each candidate example that parts from the reference. */
static void attribute_env(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    if (ev->is_reference || !er->selected || ev->absent || j->ref < 0)
        return;
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_verdict *v = &ev->ex[k];
        /* Precision or device is the question only when the two ran the
         * same model on the same input. */
        int same_inputs = v->div == PX_DIV_NONE || v->div >= PX_DIV_SHAPE;
        v->attr = same_inputs ? attribute(j, e, k) : PX_ATTR_NONE;
    }
}

/* Why the twin cannot tell a cause (malloc'd), NULL when it can: it must
 * have results here and its own ladder must have passed "forward ran". */
static char *twin_unusable(const jctx *j, const px_judgement *out)
{
    const px_env_result *tw = &j->r->envs[j->twin];
    const px_env_verdict *ev = &out->envs[j->twin];
    if (!tw->selected)
        return strf("the twin %s is not selected (-e)", tw->name);
    if (tw->origin == PX_ORIGIN_NONE)
        return strf("the twin %s has no results (%s)", tw->name, tw->source ? tw->source : "none given");
    for (int r = 0; r <= PX_RUNG_FORWARD; r++)
        if (ev->rung[r] != PX_RS_PASSED)
            return strf("the twin %s did not pass '%s': %s", tw->name, rung_name((px_rung)r),
                       ev->rung_detail[r] ? ev->rung_detail[r]
                       : tw->state == PX_ENV_DOWN ? (tw->down_msg ? tw->down_msg : "down")
                                                  : rung_state_name(ev->rung[r]));
    return NULL;
}

int judge_results(const px_fixture *f, const px_results *r, px_judgement *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    out->envs = calloc(r->n_envs ? r->n_envs : 1, sizeof *out->envs);
    out->n_envs = r->n_envs;
    out->n_examples = r->n_examples;
    jctx j = {f, r, r->reference, find_role(f, r, "twin", 1), find_role(f, r, "oracle", 0), err, NULL, NULL, out};
    out->twin = j.twin;
    if (j.twin >= 0 && !(out->twin_dtype = strf("%s", results_env_dtype(f, &r->envs[j.twin])))) {
        free(out->envs);
        memset(out, 0, sizeof *out);
        return px_error_oom(err, NULL);
    }
    char *no_ref = NULL;
    if (j.ref >= 0) {
        const px_env_result *re = &r->envs[j.ref];
        if (!re->selected)
            no_ref = strf("the reference environment %s is not selected (-e)", re->name);
        else if (re->origin == PX_ORIGIN_NONE || re->state != PX_ENV_UP)
            no_ref = strf("the reference environment %s %s", re->name,
                         re->origin == PX_ORIGIN_NONE ? "has no results" : "is down");
        if (no_ref) {
            add_finding(out, strf("%s: nothing is compared with it", no_ref));
            j.ref = -1;
        }
    } else {
        /* Results of some environments only (run -e, bench -e): the
         * reference is not among them. */
        int fr = fixture_reference(f);
        no_ref = fr >= 0 ? strf("the reference environment %s is not selected (-e)", f->envs[fr].name)
                         : strf("the fixture has no reference environment");
    }
    j.no_ref = no_ref;
    out->all_met = 1;
    for (size_t e = 0; e < r->n_envs; e++) {
        if (judge_env(&j, e, out)) {
            free(no_ref);
            judgement_free(out);
            return -1;
        }
        if (!out->envs[e].selected)
            continue;
        out->all_met &= out->envs[e].met;
        out->any_down |= out->envs[e].down || out->envs[e].absent;
        out->any_incomplete |= judgement_env_incomplete(&out->envs[e]);
    }
    free(no_ref);
    j.no_ref = NULL;
    /* The twin's own ladder is known now: blame only from a valid twin. */
    if (j.twin >= 0)
        j.twin_bad = out->twin_unusable = twin_unusable(&j, out);
    for (size_t e = 0; e < r->n_envs; e++)
        attribute_env(&j, e, &out->envs[e]);
    return 0;
}

int judgement_env_incomplete(const px_env_verdict *ev)
{
    return ev->selected && (ev->down || ev->absent || ev->not_compared || ev->incomplete);
}

char *judgement_not_compared_words(const px_judgement *j, size_t e)
{
    const px_env_verdict *ev = &j->envs[e];
    return ev->not_compared ? strf("not compared: no reference (%s)", ev->not_compared) : NULL;
}

/* Why the twin cannot tell example k's cause: it is unusable, or has no
 * `what` (output, search) for the example. */
static char *unknown_words(const px_judgement *j, size_t k, const char *what)
{
    if (j->twin_unusable)
        return strf("unknown: %s", j->twin_unusable);
    if (j->twin >= 0) {
        const px_verdict *tv = &j->envs[j->twin].ex[k];
        return strf("unknown: the twin has no %s for it (%s%s%s)", what, outcome_name(tv->outcome),
                    tv->detail ? ": " : "", tv->detail ? tv->detail : "");
    }
    return strf("unknown");
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
        return unknown_words(j, k, "search");
    default: return NULL;
    }
}

char *judgement_cause_words(const px_judgement *j, size_t e, size_t k)
{
    const px_verdict *v = &j->envs[e].ex[k];
    int drift = v->outcome == PX_OC_NUMERIC_DRIFT, gen = v->text != NULL;
    if (v->embed && v->embed->held == 0 && v->attr != PX_ATTR_NONE)
        return embed_cause_words(j, e, k);
    switch (v->attr) {
    case PX_ATTR_PRECISION:
        if ((int)e == j->twin)
            return strf("precision (this is the %s twin)", j->twin_dtype ? j->twin_dtype : "reduced-precision");
        return strf("precision (the %s twin %s)", j->twin_dtype ? j->twin_dtype : "reduced-precision",
                    drift ? "drifts alike, beyond the tolerance too"
                                                       : gen ? "generates the same path"
                                                             : "changes it the same way");
    case PX_ATTR_DEVICE:
        return strf("device (the twin %s)", drift ? "stays within the tolerance"
                                           : gen ? "generates another path"
                                                 : "keeps the reference's decision");
    case PX_ATTR_UNKNOWN: return unknown_words(j, k, "output");
    default: return NULL;
    }
}

void judgement_free(px_judgement *j)
{
    for (size_t e = 0; e < j->n_envs; e++) {
        px_env_verdict *ev = &j->envs[e];
        for (size_t k = 0; ev->ex && k < j->n_examples; k++) {
            free(ev->ex[k].detail);
            free(ev->ex[k].div_detail);
            if (ev->ex[k].text)
                free(ev->ex[k].text->matches);
            free(ev->ex[k].text);
            if (ev->ex[k].embed)
                free(ev->ex[k].embed->doc), free(ev->ex[k].embed->score), free(ev->ex[k].embed->moved),
                    free(ev->ex[k].embed->rank_note);
            free(ev->ex[k].embed);
        }
        free(ev->ex);
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            free(ev->rung_detail[r]);
        for (size_t b = 0; b < ev->n_bench; b++) /* bench_judge's */
            free(ev->bench[b].broken), free(ev->bench[b].batching), free(ev->bench[b].curve),
                free(ev->bench[b].curve_note);
        free(ev->bench);
        free(ev->not_compared);
    }
    free(j->envs);
    free(j->twin_unusable);
    free(j->twin_dtype);
    for (size_t i = 0; i < j->n_findings; i++)
        free(j->findings[i]);
    free(j->findings);
    memset(j, 0, sizeof *j);
}

px_fit decision_fit(const char *decision, const char *env, const char *results, const px_env_result *e,
                    const px_example_result *x, const char *id)
{
    if (!decision)
        return PX_FIT_NONE;
    if (!env)
        return PX_FIT_UNKNOWN;
    if (strcmp(env, e->name))
        return PX_FIT_OTHER_ENV;
    if (!results)
        return PX_FIT_UNKNOWN;
    char now[PX_SHA256_HEX];
    results_example_sha256(e, x, id, now);
    return strcmp(now, results) ? PX_FIT_OTHER_RESULTS : PX_FIT_HERE;
}

const char *fit_name(px_fit fit)
{
    static const char *const n[] = {"none", "here", "other-environment", "other-results", "not-recorded"};
    return fit <= PX_FIT_UNKNOWN ? n[fit] : "?";
}

char *decision_words(px_fit fit, const char *decision, const char *env, const char *here)
{
    px_decision_kind k = decision_kind(decision);
    const char *done = !decision ? "undecided" : k != PX_DEC_NONE ? px_decision_table[k].done : decision;
    switch (fit) {
    case PX_FIT_HERE: return strf("%s on %s", done, here);
    case PX_FIT_OTHER_ENV: return strf("%s on %s, not yet on %s", done, env, here);
    case PX_FIT_OTHER_RESULTS: return strf("%s on %s's earlier results, not on these", done, here);
    case PX_FIT_UNKNOWN:
        return env ? strf("%s on %s, results not recorded", done, env)
                   : strf("%s, env not recorded; not yet on %s", done, here);
    default: return strf("%s", done);
    }
}
