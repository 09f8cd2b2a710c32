/* The text stages of the tokenizer.json pipeline (hf_normalize,
 * hf_pretokenize, hf_added_split, hf_pattern_find) against the Hugging Face
 * `tokenizers` library itself: tests/tokenizer/hf_stages.js runs the
 * library (npm 0.23.2, from `make deps`) on an adversarial corpus for every
 * normalizer and pre-tokenizer kind with its options, the six real LLM
 * files' normalizers and pre-tokenizers, and added-token sets; each output
 * must be the library's, string for string. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/hf_pipe.h"

/* The library's outputs, computed once for the three tests (each runs in
 * a process of its own): build/tests/hf_stages.json, remade when the script
 * is newer. */
static json_t *reference(void)
{
    static const char path[] = "build/tests/hf_stages.json", script[] = "tests/tokenizer/hf_stages.js";
    struct stat a, b;
    if (stat(path, &a) || stat(script, &b) || a.st_mtime < b.st_mtime) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "node %s %s.tmp 1500 && mv %s.tmp %s", script, path, path, path);
        int rc = system(cmd);
        cr_assert_eq(rc, 0, "failed (%d): %s\n(the library comes from `make deps`: build/npm/node_modules/tokenizers)",
                     rc, cmd);
    }
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    cr_assert(root, "%s: %s", path, je.text);
    return root;
}

/* String i of the record's corpora (the main one, then the wide one when
 * the record has it) and the library's output for it; 0 past the end. */
static int case_at(json_t *root, json_t *rec, size_t i, const char **s, json_t **want)
{
    json_t *c = json_object_get(root, "corpus"), *w = json_object_get(root, "wide");
    json_t *wr = json_object_get(rec, "wide");
    size_t nc = json_array_size(c);
    if (i < nc) {
        *s = json_string_value(json_array_get(c, i));
        *want = json_array_get(json_object_get(rec, "results"), i);
        return 1;
    }
    if (i - nc >= json_array_size(wr))
        return 0;
    *s = json_string_value(json_array_get(w, i - nc));
    *want = json_array_get(wr, i - nc);
    return 1;
}

static char *dup_str(const char *s)
{
    char *d = strdup(s ? s : "");
    cr_assert(d);
    return d;
}

static void pattern_of(json_t *pat, hf_pattern *p)
{
    json_t *re = json_object_get(pat, "Regex"), *lit = json_object_get(pat, "String");
    p->regex = re != NULL;
    p->text = dup_str(json_string_value(re ? re : lit));
    p->len = strlen(p->text);
    px_error err = {0};
    cr_assert_eq(hf_pattern_compile(p, &err), 0, "%s: %s", p->text, err.msg);
}

static int flag(json_t *o, const char *k, int dflt)
{
    json_t *v = json_object_get(o, k);
    return v && !json_is_null(v) ? json_is_true(v) : dflt;
}

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* A normalizer config (a Sequence flattened) into v[*n...]. */
static void norm_of(json_t *c, hf_normalizer *v, size_t *n)
{
    const char *t = str(c, "type");
    if (!strcmp(t, "Sequence")) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(c, "normalizers"), i, x) norm_of(x, v, n);
        return;
    }
    hf_normalizer *z = &v[(*n)++];
    memset(z, 0, sizeof *z);
    static const char *const kinds[] = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip", "StripAccents",
                                        "Replace", "Prepend", "BertNormalizer"};
    int k = -1;
    for (int i = 0; i < 10; i++)
        if (!strcmp(t, kinds[i]))
            k = i;
    cr_assert(k >= 0, "normalizer %s", t);
    z->kind = (hf_norm_kind)k;
    z->left = flag(c, "strip_left", 1), z->right = flag(c, "strip_right", 1);
    if (z->kind == HF_NORM_REPLACE)
        pattern_of(json_object_get(c, "pattern"), &z->pattern);
    const char *content = z->kind == HF_NORM_PREPEND ? str(c, "prepend") : str(c, "content");
    z->content = dup_str(content);
    z->content_len = strlen(z->content);
    z->clean_text = flag(c, "clean_text", 1), z->handle_chinese_chars = flag(c, "handle_chinese_chars", 1);
    z->lowercase = flag(c, "lowercase", 1), z->strip_accents = flag(c, "strip_accents", z->lowercase);
}

static hf_behavior behavior_of(const char *b)
{
    static const char *const names[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
    for (int i = 0; i < 5; i++)
        if (b && !strcmp(b, names[i]))
            return (hf_behavior)i;
    return HF_ISOLATED;
}

static void pre_of(json_t *c, hf_pretok *v, size_t *n)
{
    const char *t = str(c, "type");
    if (!strcmp(t, "Sequence")) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(c, "pretokenizers"), i, x) pre_of(x, v, n);
        return;
    }
    hf_pretok *p = &v[(*n)++];
    memset(p, 0, sizeof *p);
    static const char *const kinds[] = {"Split", "ByteLevel", "Metaspace", "Digits", "Punctuation",
                                        "Whitespace", "WhitespaceSplit", "BertPreTokenizer"};
    int k = -1;
    for (int i = 0; i < 8; i++)
        if (!strcmp(t, kinds[i]))
            k = i;
    cr_assert(k >= 0, "pre-tokenizer %s", t);
    p->kind = (hf_pretok_kind)k;
    if (p->kind == HF_PRE_SPLIT)
        pattern_of(json_object_get(c, "pattern"), &p->pattern);
    p->behavior = behavior_of(str(c, "behavior"));
    p->invert = flag(c, "invert", 0);
    p->add_prefix_space = flag(c, "add_prefix_space", 1), p->use_regex = flag(c, "use_regex", 1);
    p->replacement = dup_str(str(c, "replacement"));
    p->replacement_len = strlen(p->replacement);
    const char *sch = str(c, "prepend_scheme");
    p->prepend_scheme = !sch || !strcmp(sch, "always") ? HF_PREPEND_ALWAYS
                        : !strcmp(sch, "never")         ? HF_PREPEND_NEVER
                                                        : HF_PREPEND_FIRST;
    p->split = flag(c, "split", 1);
    p->individual_digits = flag(c, "individual_digits", 0);
}

static void norms_free(hf_normalizer *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].content);
        if (v[i].kind == HF_NORM_REPLACE) {
            free(v[i].pattern.text);
            hf_pattern_free(&v[i].pattern);
        }
    }
}

static void pres_free(hf_pretok *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].replacement);
        if (v[i].kind == HF_PRE_SPLIT) {
            free(v[i].pattern.text);
            hf_pattern_free(&v[i].pattern);
        }
    }
}

static char *config_name(json_t *c)
{
    char *s = json_dumps(c, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (s && strlen(s) > 160)
        strcpy(s + 150, "...");
    return s;
}

static size_t report(const char *kind, json_t *c, size_t n, size_t bad)
{
    char *name = config_name(c);
    fprintf(stderr, "%s %s: %zu strings, %zu mismatches\n", kind, name, n, bad);
    free(name);
    return bad;
}

Test(hf_text, normalizers_as_the_library)
{
    json_t *root = reference(), *rec;
    size_t r, total = 0;
    json_array_foreach(json_object_get(root, "records"), r, rec) {
        if (strcmp(str(rec, "kind"), "normalizer"))
            continue;
        hf_normalizer v[16];
        size_t n = 0, bad = 0;
        norm_of(json_object_get(rec, "config"), v, &n);
        const char *s;
        json_t *wj;
        size_t i;
        for (i = 0; case_at(root, rec, i, &s, &wj); i++) {
            const char *want = json_string_value(wj);
            hf_buf b = {0};
            px_error err = {0};
            hf_buf_put(&b, s, strlen(s), &err);
            int rc = hf_normalize(v, n, &b, &err);
            if (rc || !want || b.n != strlen(want) || memcmp(b.p, want, b.n)) {
                if (bad++ < 3) {
                    size_t d = 0, wl = want ? strlen(want) : 0;
                    while (d < b.n && d < wl && b.p[d] == want[d])
                        d++;
                    d = d > 12 ? d - 12 : 0;
                    fprintf(stderr, "  [%zu] from byte %zu: got \"%.*s\" want \"%.*s\" %s\n", i, d,
                            (int)(b.n - d < 40 ? b.n - d : 40), b.p ? b.p + d : "", (int)(wl - d < 40 ? wl - d : 40),
                            want ? want + d : "(error)", rc ? err.msg : "");
                }
            }
            hf_buf_free(&b);
        }
        total += report("normalizer", json_object_get(rec, "config"), i, bad);
        norms_free(v, n);
    }
    json_decref(root);
    cr_expect_eq(total, 0, "%zu normalizer outputs differ from the library's", total);
}

Test(hf_text, pretokenizers_as_the_library)
{
    json_t *root = reference(), *rec;
    size_t r, total = 0;
    json_array_foreach(json_object_get(root, "records"), r, rec) {
        if (strcmp(str(rec, "kind"), "pretokenizer"))
            continue;
        hf_pretok v[16];
        size_t n = 0, bad = 0;
        pre_of(json_object_get(rec, "config"), v, &n);
        const char *s;
        json_t *want;
        size_t i;
        for (i = 0; case_at(root, rec, i, &s, &want); i++) {
            hf_splits sp = {0};
            px_error err = {0};
            hf_splits_push(&sp, s, strlen(s), -1, &err);
            int rc = hf_pretokenize(v, n, &sp, 1, &err), same = !rc && json_is_array(want) && json_array_size(want) == sp.n;
            for (size_t k = 0; same && k < sp.n; k++) {
                const char *w = json_string_value(json_array_get(want, k));
                same = strlen(w) == sp.v[k].len && !memcmp(w, sp.buf.p + sp.v[k].off, sp.v[k].len);
            }
            if (!same && bad++ < 3) {
                char *ws = json_dumps(want, JSON_COMPACT);
                fprintf(stderr, "  [%zu] \"%s\": %zu pieces (%s), want %s\n", i, s, sp.n, rc ? err.msg : "", ws);
                for (size_t k = 0; k < sp.n && k < 12; k++)
                    fprintf(stderr, "    \"%.*s\"\n", (int)sp.v[k].len, sp.buf.p + sp.v[k].off);
                free(ws);
            }
            hf_splits_free(&sp);
        }
        total += report("pretokenizer", json_object_get(rec, "config"), i, bad);
        pres_free(v, n);
    }
    json_decref(root);
    cr_expect_eq(total, 0, "%zu pre-tokenizer outputs differ from the library's", total);
}

/* The library's extract_and_normalize then a WordLevel without
 * pre-tokenizer: each added token its id, each stretch one [UNK] (-1 here)
 * with its offsets; the stretches' text is compared when no normalizer
 * changes it. */
Test(hf_text, added_tokens_as_the_library)
{
    json_t *root = reference(), *rec;
    size_t r, total = 0;
    json_array_foreach(json_object_get(root, "records"), r, rec) {
        if (strcmp(str(rec, "kind"), "added"))
            continue;
        json_t *cfg = json_object_get(rec, "config"), *x;
        hf_normalizer v[4];
        size_t n = 0, k, bad = 0;
        if (!json_is_null(json_object_get(cfg, "normalizer")))
            norm_of(json_object_get(cfg, "normalizer"), v, &n);
        hf_added tok[16];
        size_t nt = 0;
        json_array_foreach(json_object_get(cfg, "tokens"), k, x) {
            tok[nt] = (hf_added){dup_str(str(x, "content")), strlen(str(x, "content")), json_integer_value(json_object_get(x, "id")),
                                 flag(x, "special", 0), flag(x, "lstrip", 0), flag(x, "rstrip", 0), flag(x, "normalized", 0),
                                 flag(x, "single_word", 0)};
            nt++;
        }
        px_error err = {0};
        hf_added_set *raw = hf_added_build(tok, nt, 0, v, n, &err), *nrm = hf_added_build(tok, nt, 1, v, n, &err);
        cr_assert(raw && nrm, "%s", err.msg);
        const char *s;
        json_t *want;
        size_t i;
        for (i = 0; case_at(root, rec, i, &s, &want); i++) {
            hf_splits a = {0}, b = {0};
            int rc = hf_added_split(raw, s, strlen(s), &a, &err);
            for (size_t j = 0; !rc && j < a.n; j++) {
                if (a.v[j].id >= 0) {
                    rc = hf_splits_push(&b, a.buf.p + a.v[j].off, a.v[j].len, a.v[j].id, &err);
                    continue;
                }
                hf_buf t = {0};
                rc = hf_buf_put(&t, a.buf.p + a.v[j].off, a.v[j].len, &err) || hf_normalize(v, n, &t, &err) ||
                     hf_added_split(nrm, t.p, t.n, &b, &err);
                hf_buf_free(&t);
            }
            int same = !rc && json_array_size(want) == b.n;
            for (size_t j = 0; same && j < b.n; j++) {
                json_t *p = json_array_get(want, j);
                const char *w = json_string_value(json_array_get(p, 1));
                same = json_integer_value(json_array_get(p, 0)) == b.v[j].id &&
                       (n || (strlen(w) == b.v[j].len && !memcmp(w, b.buf.p + b.v[j].off, b.v[j].len)));
            }
            if (!same && bad++ < 3) {
                char *ws = json_dumps(want, JSON_COMPACT);
                fprintf(stderr, "  [%zu] \"%s\": want %s, got", i, s, ws);
                for (size_t j = 0; j < b.n; j++)
                    fprintf(stderr, " [%lld \"%.*s\"]", (long long)b.v[j].id, (int)b.v[j].len, b.buf.p + b.v[j].off);
                fprintf(stderr, "\n");
                free(ws);
            }
            hf_splits_free(&a), hf_splits_free(&b);
        }
        total += report("added", cfg, i, bad);
        hf_added_free(raw), hf_added_free(nrm);
        norms_free(v, n);
        for (size_t j = 0; j < nt; j++)
            free(tok[j].content);
    }
    json_decref(root);
    cr_expect_eq(total, 0, "%zu added-token splits differ from the library's", total);
}

/* Patterns the library (Oniguruma) reads differently from PCRE2, or that
 * parity cannot translate, are refused when compiled; a catastrophic regex
 * is stopped by the match limit instead of stalling. */
Test(hf_text, regex_refusals_and_limits)
{
    static const char *const refused[] = {"\\w+", "\\bx", "[[:alpha:]]", "[a-z&&[^c]]", "\\p{Han}", "\\p{Cn}",
                                          "(?i:ss)", "a{1,2}+", "(*UTF)x", "\\S[\\S]"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        hf_pattern p = {1, (char *)refused[i], strlen(refused[i]), NULL};
        px_error err = {0};
        cr_expect_eq(hf_pattern_compile(&p, &err), -1, "%s was accepted", refused[i]);
        cr_expect(strstr(err.msg, refused[i]) != NULL, "%s: %s", refused[i], err.msg);
        hf_pattern_free(&p);
    }
    hf_pattern p = {1, "(a+)+$", 6, NULL};
    px_error err = {0};
    cr_assert_eq(hf_pattern_compile(&p, &err), 0, "%s", err.msg);
    char text[4096];
    memset(text, 'a', sizeof text - 2);
    text[sizeof text - 2] = '!', text[sizeof text - 1] = 0;
    hf_offsets o = {0};
    cr_expect_eq(hf_pattern_find(&p, text, strlen(text), &o, &err), -1);
    cr_expect(strstr(err.msg, "match limit") != NULL, "%s", err.msg);
    free(o.v);
    hf_pattern_free(&p);
}

/* Where the library panics (an lstrip token inside the white space the
 * token before strips: "AddedVocabulary bad split"), parity refuses the
 * text with a message instead of slicing backwards. */
Test(hf_text, added_overlap_the_library_panics_on_is_refused)
{
    hf_added tok[2] = {{"<e>", 3, 1, 1, 0, 1, 0, 0}, {"\n", 1, 2, 1, 1, 0, 0, 0}};
    px_error err = {0};
    hf_added_set *a = hf_added_build(tok, 2, 0, NULL, 0, &err);
    cr_assert(a, "%s", err.msg);
    hf_splits s = {0};
    cr_expect_eq(hf_added_split(a, "x<e>\n\nx", 7, &s, &err), -1);
    cr_expect(strstr(err.msg, "bad split") != NULL, "%s", err.msg);
    hf_splits_clear(&s);
    cr_expect_eq(hf_added_split(a, "x<e> y\nz", 8, &s, &err), 0, "%s", err.msg);
    cr_expect_eq(s.n, 5); /* "x", "<e> ", "y", "\n", "z" */
    cr_expect_eq(s.v[1].len, 4);
    cr_expect_eq(s.v[1].id, 1);
    hf_splits_free(&s);
    hf_added_free(a);
}

/* Two tokens with the same text (the library's automaton refuses them),
 * and a normalized token that normalizes to nothing, are refused. */
Test(hf_text, added_duplicates_refused)
{
    hf_added tok[2] = {{"ab", 2, 1, 1, 0, 0, 0, 0}, {"ab", 2, 2, 1, 0, 0, 0, 0}};
    px_error err = {0};
    cr_expect_null(hf_added_build(tok, 2, 0, NULL, 0, &err));
    cr_expect(strstr(err.msg, "same text") != NULL, "%s", err.msg);
    hf_normalizer strip = {.kind = HF_NORM_STRIP, .left = 1, .right = 1};
    hf_added sp = {" ", 1, 3, 0, 0, 0, 1, 0};
    cr_expect_null(hf_added_build(&sp, 1, 1, &strip, 1, &err));
    cr_expect(strstr(err.msg, "empty") != NULL, "%s", err.msg);
}

/* A hostile file's million added tokens: the trie is built (linear in
 * their length) and every one is found, longest first. */
Test(hf_text, a_million_added_tokens)
{
    size_t n = 1000000;
    hf_added *tok = calloc(n, sizeof *tok);
    char *arena = malloc(n * 16);
    cr_assert(tok && arena);
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(arena + i * 16, 16, "<t%zu>", i);
        tok[i] = (hf_added){arena + i * 16, (size_t)k, (int64_t)i, 1, 0, 0, 0, 0};
    }
    px_error err = {0};
    hf_added_set *a = hf_added_build(tok, n, 0, NULL, 0, &err);
    cr_assert(a, "%s", err.msg);
    hf_splits s = {0};
    const char *text = "a<t999999><t12>b<t1<t7>";
    cr_assert_eq(hf_added_split(a, text, strlen(text), &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 5); /* "a", <t999999>, <t12>, "b<t1", <t7> */
    cr_expect_eq(s.v[0].id, -1);
    cr_expect_eq(s.v[1].id, 999999);
    cr_expect_eq(s.v[2].id, 12);
    cr_expect_eq(s.v[3].id, -1);
    cr_expect_eq(s.v[3].len, 4); /* "b<t1" */
    cr_expect_eq(s.v[4].id, 7);
    hf_splits_free(&s);
    hf_added_free(a);
    free(tok), free(arena);
}

/* hf_normalize_first (in hf_normalize.c, for the lead to declare in
 * hf_pipe.h): whether the normalized text still starts at the original
 * offset 0, which Metaspace's prepend_scheme first requires: the library's
 * answer is read from which of "▁text" and "text" its encode gives. */
int hf_normalize_first(const hf_normalizer *norm, size_t n, hf_buf *text, int *at_start, px_error *err);

Test(hf_text, metaspace_first_after_normalizers_as_the_library)
{
    json_t *root = reference(), *rec;
    size_t r, total = 0;
    json_array_foreach(json_object_get(root, "records"), r, rec) {
        if (strcmp(str(rec, "kind"), "first"))
            continue;
        hf_normalizer v[8];
        size_t n = 0, bad = 0, k, count = 0;
        json_t *x;
        norm_of(json_object_get(rec, "config"), v, &n);
        json_array_foreach(json_object_get(rec, "results"), k, x) {
            json_t *want = json_array_get(x, 1);
            if (json_is_null(want))
                continue;
            const char *s = json_string_value(json_array_get(x, 0));
            hf_buf b = {0};
            px_error err = {0};
            int at = -1;
            hf_buf_put(&b, s, strlen(s), &err);
            int rc = hf_normalize_first(v, n, &b, &at, &err);
            count++;
            if (rc || at != json_integer_value(want)) {
                if (bad++ < 3)
                    fprintf(stderr, "  \"%s\": at_start %d, the library %d %s\n", s, at,
                            (int)json_integer_value(want), rc ? err.msg : "");
            }
            hf_buf_free(&b);
        }
        total += report("first", json_object_get(rec, "config"), count, bad);
        norms_free(v, n);
    }
    json_decref(root);
    cr_expect_eq(total, 0, "%zu start-of-text answers differ from the library's", total);
}
