/* Added tokens (tokenizer/added_vocabulary.rs of the Hugging Face
 * `tokenizers` library, 0.23.2): found in the text leftmost first, then
 * longest (the library's daachorse automaton, MatchKind::LeftmostLongest),
 * the search resuming where the automaton's match ended; a single_word token
 * found inside a word is skipped (its text stays in the stretch); lstrip
 * and rstrip widen the token's split over the white space beside it.
 *
 * A byte trie with hashed edges: built in time linear in the tokens' total
 * length; each text position costs at most the longest token's length. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "parity/hf_pipe.h"
#include "parity/hf_tables.h"

typedef struct edge {
    uint64_t key; /* (node << 8 | byte) + 1; 0 empty */
    uint32_t child;
} edge;

struct hf_added_set {
    edge *edges;
    size_t mask, n_nodes;
    int32_t *term;       /* node -> index in tok, -1 */
    hf_added *tok;       /* the tokens of this set (content: as matched) */
    size_t n_tok;
};

static int64_t child_of(const hf_added_set *a, size_t node, unsigned char b)
{
    uint64_t key = ((uint64_t)node << 8 | b) + 1;
    for (size_t s = hf_mix64(key) & a->mask;; s = (s + 1) & a->mask) {
        if (a->edges[s].key == key)
            return a->edges[s].child;
        if (!a->edges[s].key)
            return -1;
    }
}

/* Insert one token's bytes; -1 on a duplicate (the library's automaton
 * refuses two equal patterns). */
static int trie_add(hf_added_set *a, const char *s, size_t len, int32_t idx, px_error *err)
{
    size_t node = 0;
    for (size_t i = 0; i < len; i++) {
        int64_t c = child_of(a, node, (unsigned char)s[i]);
        if (c < 0) {
            uint64_t key = ((uint64_t)node << 8 | (unsigned char)s[i]) + 1;
            size_t slot = hf_mix64(key) & a->mask;
            while (a->edges[slot].key)
                slot = (slot + 1) & a->mask;
            a->edges[slot] = (edge){key, (uint32_t)a->n_nodes};
            a->term[a->n_nodes] = -1;
            c = (int64_t)a->n_nodes++;
        }
        node = (size_t)c;
    }
    if (a->term[node] >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                            "two added tokens match the same text \"%.*s\" (the library refuses such a file)",
                            (int)(len > 60 ? 60 : len), s);
    a->term[node] = idx;
    return 0;
}

void hf_added_free(hf_added_set *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_tok; i++)
        free(a->tok[i].content);
    free(a->tok), free(a->edges), free(a->term), free(a);
}

/* The token's text as matched: its content, normalized by the file's
 * normalizers when it is a normalized token (add_tokens' normalized_cache). */
static int token_text(const hf_added *t, const hf_normalizer *norm, size_t n_norm, hf_added *dst, px_error *err)
{
    hf_buf b = {0};
    *dst = *t;
    dst->content = NULL;
    if (hf_buf_put(&b, t->content, t->len, err) || (t->normalized && hf_normalize(norm, n_norm, &b, err))) {
        hf_buf_free(&b);
        return -1;
    }
    if (b.n == 0) {
        hf_buf_free(&b);
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                            "the added token \"%.*s\" is empty once normalized (the library refuses such a file)",
                            (int)(t->len > 60 ? 60 : t->len), t->content);
    }
    dst->content = b.p, dst->len = b.n;
    return 0;
}

hf_added_set *hf_added_build(const hf_added *tokens, size_t n, int normalized, const hf_normalizer *norm,
                             size_t n_norm, px_error *err)
{
    size_t total = 0, count = 0;
    for (size_t i = 0; i < n; i++)
        if (!tokens[i].normalized == !normalized && tokens[i].len) /* empty content: ignored */
            total += tokens[i].len, count++;
    hf_added_set *a = calloc(1, sizeof *a);
    if (!a)
        return px_error_oom(err, NULL), NULL;
    total = 0; /* recounted below, once normalized */
    a->tok = calloc(count ? count : 1, sizeof *a->tok);
    int rc = a->tok ? 0 : px_error_oom(err, NULL);
    for (size_t i = 0; !rc && i < n; i++)
        if (!tokens[i].normalized == !normalized && tokens[i].len) {
            rc = token_text(&tokens[i], normalized ? norm : NULL, normalized ? n_norm : 0, &a->tok[a->n_tok], err);
            if (!rc)
                total += a->tok[a->n_tok].len, a->n_tok++;
        }
    size_t slots = 16;
    while (!rc && slots < 2 * total + 2)
        slots *= 2;
    if (!rc) {
        a->mask = slots - 1;
        a->edges = calloc(slots, sizeof *a->edges);
        a->term = malloc((total + 1) * sizeof *a->term);
        rc = a->edges && a->term ? 0 : px_error_oom(err, NULL);
    }
    if (!rc)
        a->term[0] = -1, a->n_nodes = 1;
    for (size_t i = 0; !rc && i < a->n_tok; i++)
        rc = trie_add(a, a->tok[i].content, a->tok[i].len, (int32_t)i, err);
    if (rc) {
        hf_added_free(a);
        return NULL;
    }
    return a;
}

/* The longest token starting at s[i]; -1 when none (*end: its end). */
static int32_t longest_at(const hf_added_set *a, const char *s, size_t len, size_t i, size_t *end)
{
    int32_t best = -1;
    size_t node = 0;
    for (size_t j = i; j < len; j++) {
        int64_t c = child_of(a, node, (unsigned char)s[j]);
        if (c < 0)
            break;
        node = (size_t)c;
        if (a->term[node] >= 0)
            best = a->term[node], *end = j + 1;
    }
    return best;
}

static uint32_t cp_before(const char *s, size_t i)
{
    size_t k = i - 1;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    utf8proc_int32_t cp = 0;
    utf8proc_iterate((const utf8proc_uint8_t *)s + k, (utf8proc_ssize_t)(i - k), &cp);
    return (uint32_t)cp;
}

static uint32_t cp_from(const char *s, size_t len, size_t i, size_t *k)
{
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
    *k = n > 0 ? (size_t)n : 1;
    return (uint32_t)cp;
}

/* The regex crate's \w and \s (the library tests single_word with \w$ and
 * ^\w, lstrip and rstrip with \s*$ and ^\s*): the Whitespace
 * pre-tokenizer's classes, declared in hf_pretok.c. */
static int is_space(uint32_t cp) { return hf_in(hf_split_space_ranges, hf_split_space_count, cp); }

/* find_matches: single_word, lstrip, rstrip applied to the match at
 * [start, stop); 0 when skipped. */
static int widen(const hf_added *t, const char *s, size_t len, size_t start_offset, size_t *start, size_t *stop)
{
    size_t k;
    if (t->single_word) {
        int start_space = *start == 0 || !hf_pretok_is_word(cp_before(s, *start));
        int stop_space = *stop == len || !hf_pretok_is_word(cp_from(s, len, *stop, &k));
        if (!start_space || !stop_space)
            return 0;
    }
    if (t->lstrip) {
        size_t ns = *start;
        while (ns > 0 && is_space(cp_before(s, ns))) {
            size_t b = ns - 1;
            while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
                b--;
            ns = b;
        }
        *start = ns > start_offset ? ns : start_offset;
    }
    if (t->rstrip)
        while (*stop < len && is_space(cp_from(s, len, *stop, &k)))
            *stop += k;
    return 1;
}

int hf_added_split(const hf_added_set *a, const char *text, size_t len, hf_splits *out, px_error *err)
{
    if (len == 0)
        return 0; /* one empty stretch, which the library drops */
    if (!a || a->n_tok == 0)
        return hf_splits_push(out, text, len, -1, err);
    size_t start_offset = 0;
    for (size_t i = 0; i < len;) {
        size_t end = 0;
        int32_t t = longest_at(a, text, len, i, &end);
        if (t < 0) {
            i++;
            continue;
        }
        size_t start = i, stop = end;
        i = end; /* the automaton resumes at the match's end */
        if (!widen(&a->tok[t], text, len, start_offset, &start, &stop))
            continue;
        if (start > stop) /* an lstrip token inside the rstrip of the one before */
            return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                                "the added token \"%.*s\" lies in the white space the added token before it strips "
                                "(rstrip), and strips it too (lstrip): the library fails on this text "
                                "(\"AddedVocabulary bad split\")",
                                (int)(a->tok[t].len > 60 ? 60 : a->tok[t].len), a->tok[t].content);
        if (start_offset < start && hf_splits_push(out, text + start_offset, start - start_offset, -1, err))
            return -1;
        if (hf_splits_push(out, text + start, stop - start, a->tok[t].id, err))
            return -1;
        start_offset = stop;
    }
    if (start_offset < len)
        return hf_splits_push(out, text + start_offset, len - start_offset, -1, err);
    return 0;
}
