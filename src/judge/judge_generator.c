/* A generator's examples (judge_kind.h): the text it generated, decoded
 * here from its ids (never the executor's or a file's word), held to the
 * example's text expectation (patterns, non_empty, max_chars,
 * same_as_reference); it parts from the reference at the first token it
 * chooses otherwise ("diverged at token N", with the margin); the twin
 * tells whether another path is precision's doing or the device's. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/hf_decode.h"
#include "parity/sbuf.h"
#include "parity/strf.h"
#include "parity/textcell.h"
#include "parity/utf8.h"

#include <utf8proc.h>

static char *token_words(const px_tokenizer *tok, int64_t id);

/* The most columns of a text a one-line detail quotes: an excerpt is cut
 * between characters and shows its controls (textcell_excerpt). */
enum { EXCERPT_COLS = 40 };

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
    const px_example_result *ref = judge_result_at(j, j->ref, k), *x = &j->r->envs[e].ex[k];
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
        char *last = token_words(er->tok, g->ids[g->n - 1]);
        v->outcome = PX_OC_CONSTRAINT_VIOLATED;
        v->detail = strf("it ended on token %s, which is not one of contract.generate.stop and completes no stop "
                         "string",
                         last ? last : "?");
        free(last);
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
        if (!m) {
            char *pat = textcell_excerpt(t->must_match[i].text, strlen(t->must_match[i].text), INT_MAX);
            *why = strf("must_match '%s' does not match", pat ? pat : "?");
            free(pat);
        }
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
            char *pat = textcell_excerpt(t->must_not_match[i].text, strlen(t->must_not_match[i].text), INT_MAX);
            char *seen = textcell_excerpt(text + at, (size_t)(end - at), EXCERPT_COLS);
            *why = strf("must_not_match '%s' matches \"%s\" at byte %ld", pat ? pat : "?", seen ? seen : "?", at);
            free(pat), free(seen);
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
static int generator_judge(const jctx *j, size_t e, size_t k, px_verdict *v)
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
        char *was = textcell_excerpt(g->text, strlen(g->text), EXCERPT_COLS);
        char *is = textcell_excerpt(text, strlen(text), EXCERPT_COLS);
        v->detail = strf("the recorded text is not what its ids decode to (\"%s\" recorded, \"%s\" decoded)",
                         was ? was : "?", is ? is : "?");
        free(was), free(is);
        free(text);
        return 0;
    }
    if (ex->expect.kind == PX_EXPECT_REJECTED) {
        v->outcome = PX_OC_NOT_REJECTED;
        char *said = textcell_excerpt(text, strlen(text), EXCERPT_COLS + 20);
        v->detail = strf("generated \"%s\"; the contract says reject", said ? said : "?");
        free(said);
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
    const px_example_result *ref = (int)e == j->ref ? NULL : judge_result_at(j, j->ref, k);
    int same = !ref || !ref->gen || first_difference(ref->gen, g) < 0;
    v->outcome = same ? PX_OC_PASS : PX_OC_PASS_TOL;
    /* The text itself is shown beside the verdict: not repeated here. */
    v->detail = same ? strf("%zu chars, every constraint holds", chars)
                     : strf("other words, every constraint holds (%zu chars)", chars);
    free(text);
    return 0;
}

/* The bytes a token stands for, malloc'd (*len of them), when decoding it
 * alone loses some (a token that holds part of a character decodes to
 * U+FFFD): a byte-fallback "<0xEC>" is that byte, a ByteLevel entry each
 * character's byte. NULL when the decoded text is the token's whole. */
static char *token_bytes(const char *entry, const char *decoded, size_t *len)
{
    static const char fffd[] = "\xef\xbf\xbd";
    unsigned hex;
    char tail;
    if (!strstr(decoded, fffd) || strstr(entry, fffd))
        return NULL;
    size_t n = strlen(entry);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    if (n == 6 && sscanf(entry, "<0x%2X%c", &hex, &tail) == 2 && tail == '>') {
        out[0] = (char)hex, *len = 1;
        return out;
    }
    *len = 0;
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)entry + i, (utf8proc_ssize_t)(n - i), &cp);
        int b = k > 0 ? hf_bytelevel_byte((uint32_t)cp) : -1;
        if (b < 0) {
            free(out);
            return NULL;
        }
        out[(*len)++] = (char)b, i += (size_t)k;
    }
    return out;
}

/* s[0..n) quoted for a one-line detail: its characters as the terminal
 * shows them (textcell_sanitize: a newline "↵", a tab "→"), a quote
 * escaped, a byte that is no character (part of one) as "<0xEC>". */
static void quote_bytes(px_sbuf *b, const char *s, size_t n)
{
    sbuf_addc(b, '\'');
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0) {
            sbuf_addf(b, "<0x%02X>", (unsigned char)s[i++]);
            continue;
        }
        char *shown = cp == '\'' ? NULL : textcell_sanitize(s + i, (size_t)k);
        sbuf_add(b, cp == '\'' ? "\\'" : shown ? shown : "?");
        free(shown);
        i += (size_t)k;
    }
    sbuf_addc(b, '\'');
}

enum { TOKEN_COLS = 32 }; /* the most of a token's text a detail shows */

/* A token as a person reads it, malloc'd: its decoded text (never the
 * vocabulary's byte-level entry: ' 순', not 'ĠìĪľ'), quoted, and its id:
 * "' 순' (id 12345)"; part of a character as its bytes: "'<0xEC>' (id 10)". */
static char *token_words(const px_tokenizer *tok, int64_t id)
{
    const char *entry = tok ? tokenizer_token(tok, id) : NULL;
    if (!entry)
        return strf("id %lld", (long long)id);
    px_error err = {0};
    size_t len = 0, raw_len = 0;
    char *text = tokenizer_decode_len(tok, &id, 1, 0, &len, &err);
    char *raw = text ? token_bytes(entry, text, &raw_len) : NULL;
    px_sbuf b = PX_SBUF_INIT;
    if (raw)
        quote_bytes(&b, raw, raw_len);
    else if (text)
        quote_bytes(&b, text, len);
    else
        quote_bytes(&b, entry, strlen(entry));
    free(raw), free(text);
    char *quoted = sbuf_take(&b);
    char *cut = quoted ? textcell_excerpt(quoted, strlen(quoted), TOKEN_COLS) : NULL;
    char *w = cut ? strf("%s (id %lld)", cut, (long long)id) : NULL;
    free(quoted), free(cut);
    return w;
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
    char *ta = (size_t)at < a->n ? token_words(tok, a->ids[at]) : strf("(ended)");
    char *tb = (size_t)at < b->n ? token_words(tok, b->ids[at]) : strf("(ended)");
    char *w;
    if (!ta || !tb || (size_t)at >= a->n || (size_t)at >= b->n) {
        w = strf("diverged at token %ld: %s here, %s in the reference", at, tb ? tb : "?", ta ? ta : "?");
        free(ta), free(tb);
        return w;
    }
    int in;
    double floor, mine = top_logit(b, (size_t)at, b->ids[at], &in, &floor);
    double theirs = top_logit(b, (size_t)at, a->ids[at], &in, &floor);
    if (!in)
        w = strf("diverged at token %ld: %s here, %s in the reference; margin here > %.4g (the reference's token "
                 "is not among this step's %d largest)",
                 at, tb, ta, mine - floor, b->r);
    else
        w = strf("diverged at token %ld: %s here, %s in the reference; margin here %.4g (logits %.6g vs %.6g)", at,
                 tb, ta, mine - theirs, mine, theirs);
    free(ta), free(tb);
    return w;
}

/* Its own part of the verdict: where it diverged, the spans its
 * constraints matched. */
static int generator_verdict_init(const px_fixture *f, size_t k, px_verdict *v)
{
    (void)f, (void)k;
    if (!(v->text = calloc(1, sizeof *v->text)))
        return -1;
    v->text->diverged_at = v->text->bad_at = v->text->bad_end = -1;
    return 0;
}

static void generator_verdict_free(px_verdict *v)
{
    if (v->text)
        free(v->text->matches);
    free(v->text);
    v->text = NULL;
}

/* The tokens it chose, against the reference's. */
static px_div generator_diverge(const jctx *j, size_t e, size_t k, px_verdict *v, char **detail)
{
    const px_example_result *xa = &j->r->envs[j->ref].ex[k], *xb = &j->r->envs[e].ex[k];
    if (!xa->gen || !xb->gen)
        return PX_DIV_NONE;
    long at = first_difference(xa->gen, xb->gen);
    if (at < 0)
        return PX_DIV_NONE;
    *detail = diverged_words(j, e, xa->gen, xb->gen, at);
    if (v->text)
        v->text->diverged_at = at;
    return PX_DIV_GENERATED;
}

/* A generated path that parts from the reference's is precision's when
 * the twin generates the same path, the device's when the twin's is
 * another. */
static px_attr generator_attribute(const jctx *j, size_t e, size_t k, const px_example_result *ref,
                                   const px_verdict *v)
{
    (void)v;
    const px_example_result *x = &j->r->envs[e].ex[k], *tw;
    if (!ref->gen || !x->gen || first_difference(ref->gen, x->gen) < 0)
        return PX_ATTR_NONE;
    px_attr said = attribute_twin_first(j, e, k, &tw);
    if (said != PX_ATTR_NONE)
        return said;
    if (!tw->gen)
        return PX_ATTR_UNKNOWN;
    return first_difference(tw->gen, x->gen) < 0 ? PX_ATTR_PRECISION : PX_ATTR_DEVICE;
}

static char *generator_forward(const px_fixture *f, const px_env_result *er)
{
    (void)f, (void)er;
    return strf("every example generated, each step's output [1,T,V]");
}

/* A benchmark's output read as the run reads a forward's: its argmax. */
static int generator_bench_label(const double *out, size_t n) { return results_argmax(out, n); }

const px_judge_kind judge_generator = {
    .verdict_init = generator_verdict_init,
    .verdict_free = generator_verdict_free,
    .judge = generator_judge,
    .diverge = generator_diverge,
    .attribute = generator_attribute,
    .twin_same = "generates the same path",
    .twin_other = "generates another path",
    .forward_words = generator_forward,
    .partial_shape = "[1,T,V] at each step",
    .bench_label = generator_bench_label,
};
