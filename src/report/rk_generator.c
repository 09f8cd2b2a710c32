/* A generator's report parts (report_kind.h): its text in run's table and
 * where it parts from the reference's, its text and marks in the story,
 * its expectation and output settings in words, its text in check's JSON,
 * its text and marks in the reports. */
#include "parity/report_kind.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"
#include "parity/emit.h"
#include "parity/story.h"
#include "parity/textcell.h"

/* ---- run's table ---- */

/* Its text, quoted; the table shows it on one line (its newlines and
 * tabs as marks: run_table's put_cell). */
static void text_cell(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k)
{
    const px_example_result *x = &e->ex[k];
    if (!x->gen) {
        rk_label_cell(b, f, e, k);
        return;
    }
    sbuf_addf(b, "\"%s\"", x->gen->text ? x->gen->text : "");
}

/* The first step where b's tokens part from a's; -1 when they do not. */
static long parts_at(const px_generated *a, const px_generated *b)
{
    for (size_t t = 0; t < a->n || t < b->n; t++)
        if (t >= a->n || t >= b->n || a->ids[t] != b->ids[t])
            return (long)t;
    return -1;
}

/* Where each candidate's tokens part from the reference's: "token 3";
 * with several candidates, each that parts named ("tpu token 3, cpu-bf16
 * token 5"), since the column's title names none. "-" when none parts. */
static void first_other_token(FILE *o, const px_fixture *f, const px_results *r, size_t k, size_t n_cand)
{
    (void)f;
    const px_example_result *a = r->reference >= 0 ? &r->envs[r->reference].ex[k] : NULL;
    const char *sep = "  ";
    for (size_t i = 0; a && a->gen && i < r->n_envs; i++) {
        const px_generated *b = r->envs[i].ex[k].gen;
        long at = (int)i != r->reference && b ? parts_at(a->gen, b) : -1;
        if (at < 0)
            continue;
        fputs(sep, o), sep = ", ";
        if (n_cand > 1) {
            char *name = textcell_sanitize(r->envs[i].name, strlen(r->envs[i].name));
            fprintf(o, "%s ", name ? name : "?");
            free(name);
        }
        fprintf(o, "token %ld", at);
    }
    fputs(*sep == ',' ? "\n" : "  -\n", o);
}

/* ---- its text and its marks ---- */

static int continuation(unsigned char ch) { return (ch & 0xC0) == 0x80; }

/* The byte offset of the n-th code point of t (len when past it). */
static size_t char_offset(const char *t, size_t len, long n)
{
    size_t o = 0;
    for (long i = 0; i < n && o < len; i++)
        for (o++; o < len && continuation((unsigned char)t[o]); o++)
            ;
    return o;
}

size_t story_spans(const char *text, const long *matches, size_t n_matches, long bad_at, long bad_end,
                   long diverged_at, px_span out[PX_MAX_SPANS])
{
    size_t len = strlen(text);
    enum { MAX = PX_MAX_MATCH_SPANS + 2 };
    /* In order of who wins: a later one over an earlier one (the matches,
     * then the divergence, then the violation). */
    long sp[MAX][2];
    px_span_kind kind[MAX];
    size_t ns = 0;
    for (size_t i = 0; i < n_matches && i < PX_MAX_MATCH_SPANS; i++, ns++)
        sp[ns][0] = matches[2 * i], sp[ns][1] = matches[2 * i + 1], kind[ns] = PX_SPAN_MATCH;
    sp[ns][0] = sp[ns][1] = -1, kind[ns] = PX_SPAN_DIVERGED;
    if (diverged_at >= 0 && diverged_at < LONG_MAX) {
        sp[ns][0] = (long)char_offset(text, len, diverged_at);
        sp[ns][1] = (long)char_offset(text, len, diverged_at + 1);
    }
    ns++;
    sp[ns][0] = bad_at, sp[ns][1] = bad_end, kind[ns++] = PX_SPAN_BAD;
    size_t cut[2 * MAX + 2] = {0, len}, n = 2;
    int ok[MAX];
    for (size_t i = 0; i < ns; i++) {
        long a = sp[i][0], z = sp[i][1];
        ok[i] = a >= 0 && a < z && (size_t)z <= len && !continuation((unsigned char)text[a]) &&
                ((size_t)z == len || !continuation((unsigned char)text[z]));
        if (ok[i])
            cut[n++] = (size_t)a, cut[n++] = (size_t)z;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: a few dozen at most */
        for (size_t j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            size_t t = cut[j];
            cut[j] = cut[j - 1], cut[j - 1] = t;
        }
    size_t m = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (cut[i] == cut[i + 1])
            continue;
        px_span_kind k = PX_SPAN_PLAIN;
        for (size_t s = 0; s < ns; s++)
            if (ok[s] && (size_t)sp[s][0] <= cut[i] && cut[i + 1] <= (size_t)sp[s][1])
                k = kind[s];
        if (m && out[m - 1].kind == k)
            out[m - 1].end = cut[i + 1];
        else
            out[m++] = (px_span){cut[i], cut[i + 1], k};
    }
    if (!m)
        out[m++] = (px_span){0, len, PX_SPAN_PLAIN};
    return m;
}

/* A token as the contract writes it, quoted, its control characters
 * escaped. */
static void token_quoted(px_sbuf *b, const char *t)
{
    sbuf_addc(b, '\'');
    for (; *t; t++) {
        unsigned char ch = (unsigned char)*t;
        if (ch == '\n')
            sbuf_add(b, "\\n");
        else if (ch == '\t')
            sbuf_add(b, "\\t");
        else if (ch == '\'')
            sbuf_add(b, "\\'");
        else if (ch < 0x20 || ch == 0x7F)
            sbuf_addf(b, "\\x%02x", ch);
        else
            sbuf_addc(b, (char)ch);
    }
    sbuf_addc(b, '\'');
}

static void generate_words(px_sbuf *b, const px_generate *g)
{
    if (g->decoding == PX_DECODE_SAMPLE)
        sbuf_addf(b, "sample (temperature %g, top_k %d%s, seed %llu), at most %d new tokens", g->temperature,
                  g->top_k, g->top_k ? "" : ": the whole vocabulary", g->seed, g->max_new_tokens);
    else
        sbuf_addf(b, "greedy, at most %d new tokens", g->max_new_tokens);
    sbuf_add(b, g->n_stop ? ", stops at " : ", no stop token");
    for (size_t i = 0; i < g->n_stop; i++) {
        sbuf_add(b, i == 0 ? "" : i + 1 == g->n_stop ? " or " : ", ");
        token_quoted(b, g->stop[i]);
    }
}

void story_generate_words(const px_generate *g, char *buf, size_t size)
{
    if (!size)
        return;
    px_sbuf b = PX_SBUF_INIT;
    generate_words(&b, g);
    snprintf(buf, size, "%s", sbuf_str(&b));
    sbuf_free(&b);
}

/* The generated text, its end and its marks (the divergence on a
 * candidate's: the reference parts from no one). */
static void story_text(px_story_ctx *b, size_t e, size_t k, px_story_cell *c)
{
    const px_verdict *v = &b->j->envs[e].ex[k];
    const px_generated *g = b->r->envs[e].ex[k].gen;
    if (!g)
        return;
    const char *t = g->text ? g->text : "";
    c->generated = rk_red(b, t);
    c->gen_end = generated_end_name(g->end);
    c->gen_tokens = g->n;
    const px_text_verdict *tv = v->text;
    c->gen_diverged = v->div == PX_DIV_GENERATED && tv ? tv->diverged_at : -1;
    /* Against the reference, in words, as a tolerance is for a classifier. */
    if ((int)e != b->r->reference) {
        c->diff_words = c->gen_diverged >= 0 ? rk_fmt(b, "diverged at token %ld", c->gen_diverged)
                                             : rk_fmt(b, "the same tokens");
    }
    if (!c->generated)
        return;
    if (strcmp(c->generated, t)) {
        c->spans[0] = (px_span){0, strlen(c->generated), PX_SPAN_PLAIN};
        c->n_spans = 1;
        return;
    }
    c->n_spans = story_spans(t, tv ? tv->matches : NULL, tv ? tv->n_matches : 0, tv ? tv->bad_at : -1,
                             tv ? tv->bad_end : -1, (int)e == b->r->reference ? -1 : c->gen_diverged, c->spans);
}

static char *logit_words(px_story_ctx *b, const px_verdict *v)
{
    return rk_tolerance_words(b, v, "logit");
}

/* A generator's expectation: "text matching /Friday/ and /19:00/, not
 * matching /[$£]\s*\d/, at most 60 characters, not empty, the same as the
 * reference's (exact)". */
static void text_expect(const px_fixture *f, const px_expect *x, px_sbuf *b)
{
    (void)f;
    const px_text_expect *t = x->kind == PX_EXPECT_TEXT ? x->text : NULL;
    size_t at = b->len;
    for (size_t i = 0; t && i < t->n_must_match; i++)
        sbuf_addf(b, "%s/%s/", i == 0 ? "text matching " : i + 1 == t->n_must_match ? " and " : ", ",
                  t->must_match[i].text);
    for (size_t i = 0; t && i < t->n_must_not_match; i++)
        sbuf_addf(b, "%s/%s/",
                  i == 0 ? (b->len > at ? ", not matching " : "text not matching ")
                  : i + 1 == t->n_must_not_match ? " nor "
                                                 : ", ",
                  t->must_not_match[i].text);
    if (t && t->max_chars)
        sbuf_addf(b, "%sat most %d characters", b->len > at ? ", " : "", t->max_chars);
    if (t && t->non_empty)
        sbuf_addf(b, "%snot empty", b->len > at ? ", " : "");
    if (t && t->same == PX_SAME_EXACT)
        sbuf_addf(b, "%sthe same tokens as the reference's", b->len > at ? ", " : "");
    else if (t && t->same == PX_SAME_PREFIX)
        sbuf_addf(b, "%sthe reference's first %d tokens", b->len > at ? ", " : "", t->same_n);
    else if (t && t->same == PX_SAME_EDITS)
        sbuf_addf(b, "%sat most %d token edits from the reference's", b->len > at ? ", " : "", t->same_n);
    if (b->len == at)
        sbuf_add(b, "(nothing stated)");
}

static const char *no_tolerance(const px_fixture *f)
{
    (void)f;
    return "generated text: each example's expectation says what may differ from the reference (no tolerance on "
           "logits)";
}

static void story_contract(px_story_ctx *b)
{
    px_sbuf w = PX_SBUF_INIT;
    generate_words(&w, &b->f->gen);
    b->oom |= sbuf_failed(&w);
    b->s->generate = rk_dup(b, sbuf_str(&w));
    sbuf_free(&w);
}

/* What it generated: its text, how it ended, its ids (an array of
 * integers, the stop token's included) and their count, and where it
 * parts from the reference (null: it does not, or nothing was generated). */
static void json_generated(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, size_t e,
                           size_t k, const px_verdict *v)
{
    (void)f, (void)j;
    const px_example_result *x = &r->envs[e].ex[k];
    rk_json_key(o, "generated");
    if (x->gen) {
        fputc('{', o);
        rk_json_key(o, "text"), rk_json_str_or_null(o, x->gen->text), fputc(',', o);
        rk_json_key(o, "end"), emit_json_string(o, generated_end_name(x->gen->end)), fputc(',', o);
        rk_json_key(o, "tokens"), fprintf(o, "%zu,", x->gen->n);
        /* the ids it chose, the stop token's included: tokens of them */
        rk_json_key(o, "ids"), fputc('[', o);
        for (size_t t = 0; t < x->gen->n; t++)
            fprintf(o, "%s%lld", t ? "," : "", (long long)x->gen->ids[t]);
        fputs("],", o);
        rk_json_key(o, "diverged_at");
        if (v->div == PX_DIV_GENERATED && v->text)
            fprintf(o, "%ld", v->text->diverged_at);
        else
            fputs("null", o);
        fputc('}', o);
    } else {
        fputs("null", o);
    }
    fputc(',', o);
}

/* ---- the reports ---- */

static void md_settings(FILE *o, const px_story *s)
{
    fputs("Output settings: ", o), md_text(o, s->generate);
}

static void html_settings(FILE *o, const px_story *s)
{
    fputs("Output settings: ", o), html_text(o, s->generate);
}

/* Its text and how it ended; "—" when nothing was generated. */
static void md_generated(FILE *o, const px_story *s, const px_story_cell *c)
{
    (void)s;
    if (!c->generated) {
        fputs("—", o);
        return;
    }
    md_cell_text(o, *c->generated ? c->generated : "(empty)");
    fprintf(o, " (end %s, %zu tokens)", c->gen_end, c->gen_tokens);
}

/* Its text, its pieces marked: <mark class="match"> what a must_match
 * pattern matched, "bad" a must_not_match violation, "diverged" the first
 * token that parts from the reference's; and how it ended. The label's
 * cell when nothing was generated. */
static void html_generated(FILE *o, const px_story *s, const px_story_cell *c)
{
    static const char *const open[] = {
        [PX_SPAN_PLAIN] = "",
        [PX_SPAN_MATCH] = "<mark class=\"match\" title=\"what must_match matched\">",
        [PX_SPAN_BAD] = "<mark class=\"bad\" title=\"what must_not_match matched: the violation\">",
        [PX_SPAN_DIVERGED] = "<mark class=\"diverged\" title=\"the first token that parts from the reference's\">"};
    if (!c->generated) {
        rk_html_label(o, s, c);
        return;
    }
    if (!*c->generated) {
        fputs("<span class=\"muted\">(empty)</span>", o);
    } else {
        fputs("<span class=\"generated\">", o);
        size_t len = strlen(c->generated);
        for (size_t i = 0; i < c->n_spans; i++) {
            const px_span *p = &c->spans[i];
            if (p->end > len || p->at >= p->end)
                continue;
            char *piece = strndup(c->generated + p->at, p->end - p->at);
            html_tag(o, open[p->kind], piece ? piece : "?", p->kind == PX_SPAN_PLAIN ? "" : "</mark>");
            free(piece);
        }
        fputs("</span>", o);
    }
    fprintf(o, " <span class=\"muted\">(end %s, %zu tokens)</span>", c->gen_end, c->gen_tokens);
}

/* The marks in a generated text, each with its own outline or underline
 * as well as its colour, and a title that says what it is. */
static const char *html_css(const px_story *s, const px_judgement *j)
{
    (void)s, (void)j;
    return ".generated{white-space:pre-wrap;overflow-wrap:anywhere}"
           "mark{color:inherit;border-radius:2px}mark.match{background:rgba(26,127,55,.22)}"
           "mark.bad{background:rgba(207,34,46,.25);text-decoration:underline wavy var(--bad)}"
           "mark.diverged{background:rgba(154,103,0,.25);outline:1px solid var(--warn)}";
}

const px_report_kind rk_generator = {
    .run_cell = text_cell,
    .run_diff = first_other_token,
    .diff_per_candidate = 0,
    .story_cell = story_text,
    .story_diff = logit_words,
    .story_expect = text_expect,
    .story_no_tolerance = no_tolerance,
    .story_contract = story_contract,
    .check_json_example = json_generated,
    .cell_title = "Generated text",
    .md_output = md_settings,
    .html_output = html_settings,
    .md_cell = md_generated,
    .html_cell = html_generated,
    .html_css = html_css,
};
