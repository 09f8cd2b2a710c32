/* parity's tokenizer against the real Hugging Face `tokenizers` library (the
 * npm binding of the Rust library, installed by `make deps` into build/npm):
 * a generated corpus of thousands of adversarial strings
 * (tests/tokenizer/gen_corpus.js: accents, every CJK block, emoji and ZWJ
 * sequences, unassigned and private-use code points, controls, NUL, RTL
 * marks, very long words, punctuation runs, literal special tokens, case
 * mappings) is tokenized by the library (tests/tokenizer/hf_encode.js) and
 * by parity, both from a tokenizer.json and from the vocab.txt it was made
 * from (with the same lowercase flag), lowercased and cased; every string
 * must give the same ids. Inputs that cannot reach both by design are named:
 * invalid UTF-8 (no JavaScript string holds it; parity refuses it, as the
 * fixture loader does), and NUL (the library strips it and so does the
 * tokenizer, but a fixture holding NUL is refused by the fixture loader: a
 * fixture is text). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/tokenizer.h"
#include "testlib.h"

#define VOCAB "fixtures/campus-club/vocab.txt"
#define TOKENIZER_JSON "tests/data/campus-tokenizer.json"
#define MIN_STRINGS 5000

static char *dir;

static void sh(const char *cmd)
{
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "failed (%d): %s\n(the library comes from `make deps`: build/npm/node_modules/tokenizers)",
                 rc, cmd);
}

typedef struct corpus {
    char **text;
    size_t *len, n;
} corpus;

/* The corpus: one JSON string per line (NUL allowed). */
static corpus read_corpus(const char *path)
{
    corpus c = {0};
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) > 0) {
        json_error_t je;
        json_t *s = json_loadb(line, (size_t)got, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        cr_assert(json_is_string(s), "corpus line %zu is not a JSON string: %s", c.n + 1, je.text);
        c.text = realloc(c.text, (c.n + 1) * sizeof *c.text);
        c.len = realloc(c.len, (c.n + 1) * sizeof *c.len);
        c.len[c.n] = json_string_length(s);
        c.text[c.n] = malloc(c.len[c.n] + 1);
        memcpy(c.text[c.n], json_string_value(s), c.len[c.n] + 1);
        c.n++;
        json_decref(s);
    }
    free(line);
    fclose(f);
    return c;
}

static void corpus_free(corpus *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->text[i]);
    free(c->text), free(c->len);
}

/* Shown in a failure: the string with anything outside printable ASCII
 * escaped. */
static void shown(const char *s, size_t len, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < size; i++) {
        unsigned char ch = (unsigned char)s[i];
        o += (size_t)(ch >= 0x20 && ch < 0x7F ? snprintf(out + o, size - o, "%c", ch)
                                             : snprintf(out + o, size - o, "\\x%02X", ch));
    }
    out[o] = '\0';
}

/* Every line of the library's ids against parity's for the same string;
 * returns the number of strings that differ (the first ten are shown). */
static size_t compare(const corpus *c, const char *ids_path, px_tokenizer *tok, const char *what)
{
    FILE *f = fopen(ids_path, "r");
    cr_assert_not_null(f, "%s", ids_path);
    char *line = NULL;
    size_t cap = 0, bad = 0, errors = 0;
    for (size_t i = 0; i < c->n; i++) {
        cr_assert_gt(getline(&line, &cap, f), 0, "%s: %zu lines for %zu strings", ids_path, i, c->n);
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "ERROR", 5)) { /* the library refused it: say so */
            errors++;
            continue;
        }
        px_encoding enc;
        px_error err = {0};
        char mine[65536];
        size_t o = 0;
        if (tokenizer_encode(tok, c->text[i], c->len[i], 0, 0, &enc, &err)) {
            snprintf(mine, sizeof mine, "error: %s", err.msg);
        } else {
            mine[0] = '\0';
            for (size_t k = 0; k < enc.n && o + 24 < sizeof mine; k++)
                o += (size_t)snprintf(mine + o, sizeof mine - o, "%s%lld", k ? " " : "", (long long)enc.ids[k]);
            encoding_free(&enc);
        }
        if (strcmp(mine, line)) {
            if (bad++ < 10) {
                char s[600];
                shown(c->text[i], c->len[i], s, sizeof s);
                cr_log_error("%s: string %zu \"%s\"\n  library %s\n  parity  %s", what, i + 1, s, line, mine);
            }
        }
    }
    cr_expect_eq(errors, 0, "%s: the library refused %zu strings of the corpus", what, errors);
    free(line);
    fclose(f);
    return bad;
}

static corpus setup_corpus(void)
{
    dir = tl_tmpdir();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "node tests/tokenizer/gen_corpus.js > %s/corpus.jsonl", dir);
    sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/corpus.jsonl", dir);
    corpus c = read_corpus(cmd);
    cr_assert_geq(c.n, MIN_STRINGS, "the corpus has %zu strings", c.n);
    return c;
}

static void cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd))
        cr_log_warn("could not remove %s", dir);
    free(dir);
}

/* One tokenizer.json (lowercase or not): the library's ids for the corpus,
 * then parity's from that file and from the vocab.txt with the flag. */
static void agree(int lowercase)
{
    corpus c = setup_corpus();
    char json[300], ids[300], cmd[1200];
    snprintf(json, sizeof json, "%s/tokenizer.json", dir);
    snprintf(ids, sizeof ids, "%s/ids.txt", dir);
    if (lowercase) {
        snprintf(json, sizeof json, "%s", TOKENIZER_JSON);
    } else {
        snprintf(cmd, sizeof cmd, "node tests/tokenizer/make_tokenizer_json.js %s false > %s", VOCAB, json);
        sh(cmd);
    }
    snprintf(cmd, sizeof cmd, "node tests/tokenizer/hf_encode.js %s < %s/corpus.jsonl > %s", json, dir, ids);
    sh(cmd);
    px_error err = {0};
    px_tokenizer *from_json = tokenizer_load_hf(json, &err);
    cr_assert_not_null(from_json, "%s: %s", json, err.msg);
    px_tokenizer *from_vocab = tokenizer_load(VOCAB, lowercase, &err);
    cr_assert_not_null(from_vocab, "%s", err.msg);
    size_t a = compare(&c, ids, from_json, "tokenizer.json"), b = compare(&c, ids, from_vocab, "vocab.txt");
    cr_expect_eq(a, 0, "tokenizer.json%s: %zu of %zu strings differ from the library", lowercase ? "" : " (cased)", a,
                 c.n);
    cr_expect_eq(b, 0, "vocab.txt%s: %zu of %zu strings differ from the library", lowercase ? "" : " (cased)", b, c.n);
    /* The corpus reaches what the issue names. */
    size_t nul = 0;
    for (size_t i = 0; i < c.n; i++)
        nul += memchr(c.text[i], '\0', c.len[i]) != NULL;
    cr_expect_gt(nul, 0, "the corpus must hold NUL");
    tokenizer_free(from_json);
    tokenizer_free(from_vocab);
    corpus_free(&c);
    cleanup();
}

Test(hf_agree, lowercase_tokenizer_matches_the_library, .timeout = 600) { agree(1); }
Test(hf_agree, cased_tokenizer_matches_the_library, .timeout = 600) { agree(0); }

/* No JavaScript string holds invalid UTF-8, so the library never sees it;
 * parity refuses it (one error naming the byte), as the fixture loader
 * refuses such a fixture. */
Test(hf_agree, invalid_utf8_is_refused_not_guessed)
{
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_hf(TOKENIZER_JSON, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    static const char *const bad[] = {"\xff", "ab\xc3", "\xed\xa0\x80", "\xc0\xaf", "x\xf4\x90\x80\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        px_encoding enc;
        memset(&err, 0, sizeof err);
        cr_expect_eq(tokenizer_encode(tok, bad[i], strlen(bad[i]), 0, 0, &enc, &err), -1, "string %zu", i);
        cr_expect(strstr(err.msg, "invalid UTF-8"), "%s", err.msg);
    }
    tokenizer_free(tok);
}

/* The demo through parity itself with kind huggingface (the tokenizer.json
 * made from its vocab.txt): the same token ids and the same logits as with
 * the vocab.txt, for every example. */
Test(hf_agree, a_fixture_with_tokenizer_json_runs_as_with_vocab_txt, .timeout = 180)
{
    char fx[128];
    snprintf(fx, sizeof fx, "tests/data/.hf-demo-%d.yaml", (int)getpid());
    char *text = tl_slurp("fixtures/campus-club/fixture.yaml");
    const char *from_model = "path: model.pt", *from_tok = "      kind: wordpiece\n      vocab: vocab.txt\n";
    char *m = strstr(text, from_model), *t = strstr(text, from_tok), *l = strstr(text, "      lowercase: true\n");
    cr_assert(m && t && l && m < t && t < l, "the demo fixture's layout changed");
    char *out = malloc(strlen(text) + 400);
    sprintf(out, "%.*spath: ../../fixtures/campus-club/model.pt%.*s      kind: huggingface\n"
                 "      file: campus-tokenizer.json\n%.*s%s",
            (int)(m - text), text, (int)(t - (m + strlen(from_model))), m + strlen(from_model),
            (int)(l - (t + strlen(from_tok))), t + strlen(from_tok), l + strlen("      lowercase: true\n"));
    /* the pin follows the file: line "sha256:" after "file:" */
    char *sha = strstr(out, "      file: campus-tokenizer.json\n      sha256: \"");
    cr_assert_not_null(sha, "%s", out);
    memcpy(sha + strlen("      file: campus-tokenizer.json\n      sha256: \""),
           "e56cb739b71ca341e2dbf1f4347583b5b2054de6590a714b2f1a9ec1b2a1d47d", 64);
    tl_write(fx, out);
    free(text), free(out);
    char *d = tl_tmpdir(), a[300], b[300];
    snprintf(a, sizeof a, "%s/vocab.yaml", d);
    snprintf(b, sizeof b, "%s/json.yaml", d);
    cmd_result r1 = tl_run((const char *[]){"parity", "run", "fixtures/campus-club/fixture.yaml", "-q", "-o", a, NULL});
    cmd_result r2 = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", b, NULL});
    unlink(fx);
    cr_expect_eq(r1.status, 0, "%s", r1.err);
    cr_expect_eq(r2.status, 0, "%s", r2.err);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "diff <(grep -E 'token_ids:|values:' %s) <(grep -E 'token_ids:|values:' %s) >&2 && "
                              "[ $(grep -c 'token_ids: \\[2,' %s) -ge 12 ]", a, b, b);
    char full[1500];
    snprintf(full, sizeof full, "bash -c \"%s\"", cmd);
    cr_expect_eq(system(full), 0, "the tokenizer.json run differs from the vocab.txt run");
    tl_free(&r1), tl_free(&r2);
    unlink(a), unlink(b), rmdir(d), free(d);
}
