/* Golden tests for the BERT tokenizer against tests/data/vocab-small.txt.
 * The expected ids are the vocab line numbers (0-based) worked out by hand
 * from the rules of Hugging Face `tokenizers` (the fast BERT tokenizer, which
 * parity follows; where a test says what the library gives, the ids were
 * checked with tests/tokenizer/hf_encode.js on the equivalent tokenizer.json;
 * tests/test_hf_agree.c compares thousands of strings):
 *   0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 the 5 cafe 6 zoe 7 play 8 ##ing 9 ##s
 *   10 7 11 : 12 30 13 ##pm 14 ! 15 中 16 文 17 hello 18 world 19 ##world
 *   20 , 21 . 22 un 23 ##aff 24 ##able 25 a 26 ##a 27 $ 28 + 29 « 30 »
 *   31 οδος 32 σ 33 i 34 like 35 tea 36 Hello 37 Café */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/tokenizer.h"
#include "testlib.h"

#define VOCAB "tests/data/vocab-small.txt"
#define N(a) (sizeof(a) / sizeof((a)[0]))

static px_tokenizer *load(int lowercase)
{
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load(VOCAB, lowercase, &err);
    cr_assert_not_null(tok, "loading %s: %s", VOCAB, err.msg);
    return tok;
}

/* Encode len bytes of text (no limit, no padding) and compare the ids and
 * the space-separated pieces with the hand-worked expectation. */
static void expect_len(px_tokenizer *tok, const char *text, size_t len, const int64_t *ids,
                       size_t n, const char *pieces)
{
    px_encoding enc;
    px_error err = {0};
    cr_assert_eq(tokenizer_encode(tok, text, len, 0, 0, &enc, &err), 0, "%s", err.msg);
    cr_assert_eq(enc.n, n, "for '%s': got %zu ids, want %zu", text, enc.n, n);
    cr_assert_eq(enc.n_real, n);
    cr_assert_eq(enc.over_limit, 0);
    char joined[4096] = "";
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(enc.ids[i], ids[i], "for '%s': id %zu is %lld, want %lld", text, i,
                     (long long)enc.ids[i], (long long)ids[i]);
        strcat(joined, i ? " " : "");
        strcat(joined, enc.pieces[i]);
    }
    cr_expect_str_eq(joined, pieces);
    encoding_free(&enc);
}

static void expect(px_tokenizer *tok, const char *text, const int64_t *ids, size_t n,
                   const char *pieces)
{
    expect_len(tok, text, strlen(text), ids, n, pieces);
}

Test(tokenizer, accents_are_stripped)
{
    px_tokenizer *tok = load(1);
    static const int64_t want[] = {2, 5, 6, 3};
    expect(tok, "Caf\xc3\xa9 Zo\xc3\xab", want, N(want), "[CLS] cafe zoe [SEP]");
    /* the same text with combining marks (NFD input) */
    expect(tok, "Cafe\xcc\x81 Zoe\xcc\x88", want, N(want), "[CLS] cafe zoe [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, cjk_chars_are_their_own_tokens)
{
    px_tokenizer *tok = load(1);
    static const int64_t a[] = {2, 15, 16, 3};
    expect(tok, "中文", a, N(a), "[CLS] 中 文 [SEP]");
    /* glued to a word, and a CJK char missing from the vocab */
    static const int64_t b[] = {2, 4, 15, 16, 1, 3};
    expect(tok, "the中文字", b, N(b), "[CLS] the 中 文 [UNK] [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, punctuation_is_split)
{
    px_tokenizer *tok = load(1);
    static const int64_t a[] = {2, 10, 11, 12, 13, 14, 3};
    expect(tok, "7:30pm!", a, N(a), "[CLS] 7 : 30 ##pm ! [SEP]");
    /* ASCII symbols count as punctuation, like Unicode P* */
    static const int64_t b[] = {2, 27, 10, 28, 12, 3};
    expect(tok, "$7+30", b, N(b), "[CLS] $ 7 + 30 [SEP]");
    static const int64_t c[] = {2, 29, 17, 30, 3};
    expect(tok, "\xc2\xabhello\xc2\xbb", c, N(c), "[CLS] « hello » [SEP]");
    static const int64_t d[] = {2, 25, 21, 25, 3};
    expect(tok, "a.a", d, N(d), "[CLS] a . a [SEP]");
    /* a non-ASCII symbol (So) is not punctuation: "a©a" stays one word */
    static const int64_t e[] = {2, 1, 3};
    expect(tok, "a\xc2\xa9" "a", e, N(e), "[CLS] [UNK] [SEP]");
    static const int64_t f[] = {2, 33, 34, 35, 20, 17, 18, 21, 3};
    expect(tok, "I like tea, hello world.", f, N(f), "[CLS] i like tea , hello world . [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, unknown_words_become_unk)
{
    px_tokenizer *tok = load(1);
    static const int64_t want[] = {2, 1, 3};
    expect(tok, "xyz", want, N(want), "[CLS] [UNK] [SEP]");
    /* "play" matches but "##x" does not: the whole word is [UNK] */
    expect(tok, "playx", want, N(want), "[CLS] [UNK] [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, wordpiece_continuations)
{
    px_tokenizer *tok = load(1);
    static const int64_t a[] = {2, 7, 8, 7, 9, 3};
    expect(tok, "playing plays", a, N(a), "[CLS] play ##ing play ##s [SEP]");
    static const int64_t b[] = {2, 22, 23, 24, 3};
    expect(tok, "unaffable", b, N(b), "[CLS] un ##aff ##able [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, control_chars_are_dropped_not_spaced)
{
    px_tokenizer *tok = load(1);
    static const int64_t want[] = {2, 17, 19, 3};
    const char *pieces = "[CLS] hello ##world [SEP]";
    expect(tok, "hel\x01lo\xe2\x80\x8bworld", want, N(want), pieces); /* Cc, Cf (U+200B) */
    expect(tok, "hello\xef\xbf\xbdworld", want, N(want), pieces);     /* U+FFFD */
    expect_len(tok, "hello\0world", 11, want, N(want), pieces);       /* U+0000 */
    expect(tok, "hello\vworld", want, N(want), pieces);               /* VT is Cc */
    expect(tok, "hello\xee\x80\x80world", want, N(want), pieces);     /* Co (U+E000) */
    tokenizer_free(tok);
}

Test(tokenizer, white_space_runs)
{
    px_tokenizer *tok = load(1);
    static const int64_t a[] = {2, 17, 18, 3};
    expect(tok, " \t hello \n\n  world\r\n\t", a, N(a), "[CLS] hello world [SEP]");
    expect(tok, "hello\xe2\x80\xa8world", a, N(a), "[CLS] hello world [SEP]"); /* U+2028 */
    static const int64_t b[] = {2, 17, 18, 4, 3};
    /* NBSP and IDEOGRAPHIC SPACE are Zs */
    expect(tok, "hello\xc2\xa0world\xe3\x80\x80the", b, N(b), "[CLS] hello world the [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, empty_text_is_cls_sep)
{
    px_tokenizer *tok = load(1);
    static const int64_t want[] = {2, 3};
    expect_len(tok, NULL, 0, want, N(want), "[CLS] [SEP]");
    expect(tok, "", want, N(want), "[CLS] [SEP]");
    expect(tok, "  \t\n ", want, N(want), "[CLS] [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, word_longer_than_100_chars_is_unk)
{
    px_tokenizer *tok = load(1);
    char word[102];
    memset(word, 'a', sizeof word);
    px_encoding enc;
    px_error err = {0};
    /* 100 chars: still WordPiece'd, as "a" then 99 "##a" */
    cr_assert_eq(tokenizer_encode(tok, word, 100, 0, 0, &enc, &err), 0, "%s", err.msg);
    cr_assert_eq(enc.n_real, 102);
    cr_expect_eq(enc.ids[1], 25);
    for (size_t i = 2; i < 101; i++)
        cr_expect_eq(enc.ids[i], 26);
    encoding_free(&enc);
    static const int64_t want[] = {2, 1, 3};
    expect_len(tok, word, 101, want, N(want), "[CLS] [UNK] [SEP]");
    tokenizer_free(tok);
}

/* The library lowercases one character at a time: no final-sigma rule (as
 * Python's str.lower() has), so "ΟΔΟΣ" is "οδοσ", not the vocab's "οδος".
 * (Hugging Face `tokenizers` 0.23.2 gives 2 1 1 21 32 3 for this text.) */
Test(tokenizer, sigma_lowercased_per_character_like_the_library)
{
    px_tokenizer *tok = load(1);
    static const int64_t want[] = {2, 1, 1, 21, 32, 3};
    expect(tok, "ΟΔΟΣ ΟΔΟΣ. Σ", want, N(want), "[CLS] [UNK] [UNK] . σ [SEP]");
    tokenizer_free(tok);
}

/* Cased, the library does not compose: "Cafe" + U+0301 is not the vocab's
 * "Café" (the library gives 2 36 17 1 3). */
Test(tokenizer, cased_keeps_case_and_does_not_compose)
{
    px_tokenizer *tok = load(0);
    static const int64_t want[] = {2, 36, 17, 1, 3};
    expect(tok, "Hello hello Cafe\xcc\x81", want, N(want), "[CLS] Hello hello [UNK] [SEP]");
    static const int64_t composed[] = {2, 37, 3};
    expect(tok, "Caf\xc3\xa9", composed, N(composed), "[CLS] Café [SEP]");
    tokenizer_free(tok);
}

/* A special token written in the text is that token, as in the library;
 * only the exact spelling, in the raw text ("[sep]" is three words). */
Test(tokenizer, literal_special_tokens_are_their_ids)
{
    px_tokenizer *tok = load(1);
    static const int64_t want[] = {2, 4, 3, 4, 1, 1, 1, 3}; /* the library's ids */
    expect(tok, "the[SEP]the [sep]", want, N(want), "[CLS] the [SEP] the [UNK] [UNK] [UNK] [SEP]");
    tokenizer_free(tok);
}

Test(tokenizer, over_limit_reported_not_truncated)
{
    px_tokenizer *tok = load(1);
    px_encoding enc;
    px_error err = {0};
    /* [CLS] the cafe [SEP] is 4 ids: exactly the limit is fine */
    cr_assert_eq(tokenizer_encode(tok, "the cafe", 8, 4, 0, &enc, &err), 0);
    cr_expect_eq(enc.over_limit, 0);
    cr_expect_eq(enc.n_real, 4);
    encoding_free(&enc);
    cr_assert_eq(tokenizer_encode(tok, "the cafe", 8, 3, 0, &enc, &err), 0);
    cr_expect_eq(enc.over_limit, 1);
    cr_assert_eq(enc.n, 4);
    cr_expect_eq(enc.n_real, 4);
    cr_expect_eq(enc.ids[0], 2);
    cr_expect_eq(enc.ids[1], 4);
    cr_expect_eq(enc.ids[2], 5);
    cr_expect_eq(enc.ids[3], 3);
    encoding_free(&enc);
    tokenizer_free(tok);
}

Test(tokenizer, padding_uses_pad_and_mask_zero)
{
    px_tokenizer *tok = load(1);
    px_encoding enc;
    px_error err = {0};
    cr_assert_eq(tokenizer_encode(tok, "the cafe", 8, 0, 7, &enc, &err), 0);
    cr_assert_eq(enc.n, 7);
    cr_expect_eq(enc.n_real, 4);
    static const int64_t ids[] = {2, 4, 5, 3, 0, 0, 0};
    for (size_t i = 0; i < 7; i++)
        cr_expect_eq(enc.ids[i], ids[i], "id %zu", i);
    cr_expect_str_eq(enc.pieces[3], "[SEP]");
    cr_expect_str_eq(enc.pieces[6], "[PAD]");
    encoding_free(&enc);
    /* pad_to below the real length pads nothing and truncates nothing */
    cr_assert_eq(tokenizer_encode(tok, "the cafe", 8, 0, 2, &enc, &err), 0);
    cr_expect_eq(enc.n, 4);
    cr_expect_eq(enc.ids[3], 3);
    encoding_free(&enc);
    tokenizer_free(tok);
}

Test(tokenizer, invalid_utf8_is_an_error)
{
    px_tokenizer *tok = load(1);
    static const char *const bad[] = {
        "ok \xff", "caf\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
    };
    for (size_t i = 0; i < N(bad); i++) {
        px_encoding enc;
        px_error err = {0};
        cr_expect_eq(tokenizer_encode(tok, bad[i], strlen(bad[i]), 0, 0, &enc, &err), -1,
                     "case %zu accepted", i);
        cr_expect_eq(err.code, PX_EXIT_USAGE);
        cr_expect(strstr(err.msg, "UTF-8"), "message: %s", err.msg);
        cr_expect_null(enc.ids);
        cr_expect_eq(enc.n, 0);
        encoding_free(&enc);
    }
    tokenizer_free(tok);
}

Test(tokenizer, vocab_lookup)
{
    px_tokenizer *tok = load(1);
    cr_expect_eq(tokenizer_vocab_size(tok), 38);
    cr_expect_eq(tokenizer_id(tok, "play"), 7);
    cr_expect_eq(tokenizer_id(tok, "##ing"), 8);
    cr_expect_eq(tokenizer_id(tok, "Café"), 37);
    cr_expect_eq(tokenizer_id(tok, "pla"), -1);
    cr_expect_eq(tokenizer_id(tok, ""), -1);
    cr_expect_str_eq(tokenizer_token(tok, 0), "[PAD]");
    cr_expect_str_eq(tokenizer_token(tok, 37), "Café");
    cr_expect_null(tokenizer_token(tok, 38));
    cr_expect_null(tokenizer_token(tok, -1));
    for (int64_t id = 0; id < 38; id++)
        cr_expect_eq(tokenizer_id(tok, tokenizer_token(tok, id)), id);
    tokenizer_free(tok);
}

/* Write text to a fresh temporary vocab file; the caller unlinks path. */
static void write_vocab(char *path, const char *text)
{
    strcpy(path, "/tmp/parity-vocab-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_neq(fd, -1);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static px_error load_failure(const char *text)
{
    char path[64];
    write_vocab(path, text);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load(path, 1, &err);
    unlink(path);
    cr_expect_null(tok);
    tokenizer_free(tok);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_str_eq(err.file, path);
    return err;
}

Test(tokenizer, vocab_missing_special_token)
{
    px_error err = load_failure("[PAD]\n[UNK]\n[CLS]\nhello\n");
    cr_expect(strstr(err.msg, "[SEP]"), "message: %s", err.msg);
}

Test(tokenizer, vocab_duplicate_token_names_line)
{
    px_error err = load_failure("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\nhello\n");
    cr_expect_eq(err.line, 7);
    cr_expect(strstr(err.msg, "hello"), "message: %s", err.msg);
    cr_expect(strstr(err.msg, "line 5"), "message: %s", err.msg);
}

Test(tokenizer, vocab_crlf_and_bad_utf8_are_errors)
{
    px_error err = load_failure("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n");
    cr_expect_eq(err.line, 1);
    err = load_failure("[PAD]\n[UNK]\n[CLS]\n[SEP]\ncaf\xc3\n");
    cr_expect_eq(err.line, 5);
    cr_expect_eq(err.col, 4);
}

Test(tokenizer, vocab_without_final_newline)
{
    char path[64];
    write_vocab(path, "[PAD]\n[UNK]\n[CLS]\n[SEP]\nlast");
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load(path, 1, &err);
    unlink(path);
    cr_assert_not_null(tok, "%s", err.msg);
    cr_expect_eq(tokenizer_vocab_size(tok), 5);
    cr_expect_eq(tokenizer_id(tok, "last"), 4);
    tokenizer_free(tok);
}

Test(tokenizer, vocab_missing_file)
{
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load("tests/data/no-such-vocab.txt", 1, &err);
    cr_expect_null(tok);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_str_eq(err.file, "tests/data/no-such-vocab.txt");
    cr_expect(strstr(err.msg, "No such file"), "message: %s", err.msg);
}

/* ---- tokenizer.json ---------------------------------------------------- */

#define HF_JSON "tests/data/campus-tokenizer.json"

/* tokenizer.json made from the demo's vocab.txt
 * (tests/tokenizer/make_tokenizer_json.js): the same vocabulary, the same
 * ids for the same text as the vocab.txt kind. */
Test(tokenizer_json, reads_the_same_vocabulary_as_vocab_txt)
{
    px_error err = {0};
    px_tokenizer *a = tokenizer_load_hf(HF_JSON, &err), *b = tokenizer_load("fixtures/campus-club/vocab.txt", 1, &err);
    cr_assert(a && b, "%s", err.msg);
    cr_assert_eq(tokenizer_vocab_size(a), tokenizer_vocab_size(b));
    for (size_t id = 0; id < tokenizer_vocab_size(a); id++)
        cr_expect_str_eq(tokenizer_token(a, (int64_t)id), tokenizer_token(b, (int64_t)id));
    const char *text = "Film club screening of Stalker on Thursday at 7pm, Café Zoë [SEP] 中文!";
    px_encoding x, y;
    cr_assert_eq(tokenizer_encode(a, text, strlen(text), 0, 0, &x, &err), 0, "%s", err.msg);
    cr_assert_eq(tokenizer_encode(b, text, strlen(text), 0, 0, &y, &err), 0, "%s", err.msg);
    cr_assert_eq(x.n, y.n);
    cr_expect_eq(memcmp(x.ids, y.ids, x.n * sizeof *x.ids), 0);
    cr_expect_eq(x.ids[0], tokenizer_id(a, "[CLS]"));
    cr_expect_eq(x.ids[x.n - 1], tokenizer_id(a, "[SEP]"));
    encoding_free(&x), encoding_free(&y);
    tokenizer_free(a), tokenizer_free(b);
}

/* The file with `from` replaced by `to` must be refused, naming the part
 * parity does not implement; at line:col for a syntax error. */
static void json_refused(const char *from, const char *to, const char *needle, int line)
{
    char *text = tl_slurp(HF_JSON);
    char *at = strstr(text, from);
    cr_assert_not_null(at, "test bug: '%s' not in %s", from, HF_JSON);
    char *changed = malloc(strlen(text) + strlen(to) + 1);
    sprintf(changed, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    char path[] = "/tmp/parity-tokjson-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, changed, strlen(changed)), (ssize_t)strlen(changed));
    close(fd);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_hf(path, &err);
    cr_expect_null(tok, "'%s' -> '%s' must be refused", from, to);
    tokenizer_free(tok);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_str_eq(err.file, path);
    cr_expect(strstr(err.msg, needle), "'%s' -> '%s': '%s' lacks '%s'", from, to, err.msg, needle);
    if (line)
        cr_expect_eq(err.line, line, "%s: line %d, want %d", err.msg, err.line, line);
    unlink(path);
    free(text), free(changed);
}

Test(tokenizer_json, what_parity_does_not_implement_is_refused)
{
    /* truncation and padding are read (never applied): malformed, refused */
    json_refused("\"truncation\": null", "\"truncation\": {\"max_length\": 128, \"strategy\": \"LongestFirst\"}",
                 "truncation needs stride", 0);
    json_refused("\"padding\": null", "\"padding\": {\"strategy\": \"BatchLongest\"}", "padding needs direction", 0);
    /* issue 26: what the library has and parity does not read, each named
     * with what parity reads, at its line */
    json_refused("\"type\": \"BertNormalizer\"", "\"type\": \"Precompiled\"",
                 "normalizer Precompiled is not implemented (parity reads NFC, NFD", 52);
    json_refused("\"type\": \"BertPreTokenizer\"", "\"type\": \"CharDelimiterSplit\"",
                 "pre_tokenizer CharDelimiterSplit is not implemented (parity reads Split, ByteLevel", 59);
    json_refused("\"type\": \"WordPiece\",\n    \"unk_token\"", "\"type\": \"Unigram\",\n    \"unk_token\"",
                 "model Unigram is not implemented (parity reads BPE and WordPiece)", 0);
    json_refused("\"type\": \"TemplateProcessing\"", "\"type\": \"Unknown\"",
                 "post_processor Unknown is not implemented (parity reads TemplateProcessing", 62);
    json_refused("\"unk_token\": \"[UNK]\"", "\"unk_token\": \"[NOPE]\"", "model.unk_token '[NOPE]' is not in model.vocab",
                 0);
    json_refused("\"lowercase\": true", "\"lowercase\": \"yes\"", "BertNormalizer.lowercase must be true or false", 0);
    json_refused("\"version\": \"1.0\",", "\"version\": \"1.0\", \"dropout\": 0.1,", "has 'dropout'", 0);
    json_refused("\"zoe\": 813", "\"zoe\": 900", "id 900 is not below the vocab's size 814", 0);
    json_refused("\"zoe\": 813", "\"zoe\": 815", "ids must run from 0 without gaps", 0);
    json_refused("\"zoe\": 813", "\"zoe\": 812", "gives id 812 to two tokens", 0);
    json_refused("\"version\": \"1.0\",", "\"version\": \"1.0\" \"x\",", "not a tokenizer.json", 2);
    json_refused("\"padding\": null,", "\"padding\": null, \"padding\": null,", "'padding' twice", 4);
}

/* ---- kind chars (generators, issue 15) --------------------------------- */

/* ids: [PAD] 0 [BOS] 1 [EOS] 2 [UNK] 3, ' ' 4, a 5, b 6, é 7, £ 8, € 9,
 * U+1F600 10 */
#define CHARS_VOCAB "[PAD]\n[BOS]\n[EOS]\n[UNK]\n \na\nb\n\xc3\xa9\n\xc2\xa3\n\xe2\x82\xac\n\xf0\x9f\x98\x80\n"

/* Write len bytes (NULs allowed) to a fresh temporary file. */
static void write_bytes(char *path, const char *bytes, size_t len)
{
    strcpy(path, "/tmp/parity-chars-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_neq(fd, -1);
    cr_assert_eq(write(fd, bytes, len), (ssize_t)len);
    close(fd);
}

static px_tokenizer *load_chars(const char *text)
{
    char path[64];
    write_bytes(path, text, strlen(text));
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_chars(path, &err);
    unlink(path);
    cr_assert_not_null(tok, "%s", err.msg);
    return tok;
}

/* The vocab of len bytes must be refused at line, with needle in the
 * message. */
static void chars_refused(const char *bytes, size_t len, int line, const char *needle)
{
    char path[64];
    write_bytes(path, bytes, len);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_chars(path, &err);
    unlink(path);
    cr_expect_null(tok, "vocab '%s' must be refused", bytes);
    tokenizer_free(tok);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_str_eq(err.file, path);
    cr_expect_eq(err.line, line, "'%s': line %d, want %d", err.msg, err.line, line);
    cr_expect(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
}

#define REFUSED(text, line, needle) chars_refused(text, sizeof(text) - 1, line, needle)

Test(tokenizer_chars, vocab_errors_name_their_line)
{
    REFUSED("", 1, "ends before line 1, which must read exactly '[PAD]'");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n", 4, "ends before line 4, which must read exactly '[UNK]'");
    REFUSED("[PAD]\n[UNK]\n[EOS]\n[BOS]\na\n", 2, "line 2 must read exactly '[BOS]'");
    /* a WordPiece vocab is not a chars vocab */
    REFUSED("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n", 2, "must read exactly '[BOS]'");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK] \na\n", 4, "must read exactly '[UNK]'");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\nab\n", 6, "holds 2 ('ab')");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\ne\xcc\x81\n", 6, "holds 2");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\n\nb\n", 6, "empty line");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\nb\n\n", 7, "empty line");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\nb\na\n", 7, "duplicate vocab token 'a' (first on line 5)");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\n \n\xc3\xa9\n \n", 7, "duplicate vocab token ' ' (first on line 5)");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\n\xc3\n", 6, "invalid UTF-8");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\n\xed\xa0\x80\n", 6, "invalid UTF-8"); /* a surrogate */
    REFUSED("[PAD]\r\n[BOS]\r\n[EOS]\r\n[UNK]\r\n", 1, "CR");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\n\r\n", 6, "CR");
    REFUSED("[PAD]\n[BOS]\n[EOS]\n[UNK]\na\n\0\n", 6, "NUL");
}

Test(tokenizer_chars, vocab_missing_file)
{
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_chars("tests/data/no-such-vocab.txt", &err);
    cr_expect_null(tok);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect_str_eq(err.file, "tests/data/no-such-vocab.txt");
}

Test(tokenizer_chars, vocab_loads_specials_and_code_points)
{
    px_tokenizer *tok = load_chars(CHARS_VOCAB);
    cr_expect(tokenizer_is_chars(tok));
    cr_expect_eq(tokenizer_vocab_size(tok), 11);
    cr_expect_eq(tokenizer_id(tok, "[PAD]"), 0);
    cr_expect_eq(tokenizer_id(tok, "[BOS]"), 1);
    cr_expect_eq(tokenizer_id(tok, "[EOS]"), 2);
    cr_expect_eq(tokenizer_id(tok, "[UNK]"), 3);
    cr_expect_eq(tokenizer_id(tok, " "), 4);
    cr_expect_eq(tokenizer_id(tok, "\xf0\x9f\x98\x80"), 10);
    cr_expect_str_eq(tokenizer_token(tok, 7), "\xc3\xa9");
    cr_expect_null(tokenizer_token(tok, 11));
    tokenizer_free(tok);
    /* no final newline: the last line still counts */
    tok = load_chars("[PAD]\n[BOS]\n[EOS]\n[UNK]\nz");
    cr_expect_eq(tokenizer_vocab_size(tok), 5);
    cr_expect_eq(tokenizer_id(tok, "z"), 4);
    tokenizer_free(tok);
    /* the specials alone are a vocab (every character then [UNK]) */
    tok = load_chars("[PAD]\n[BOS]\n[EOS]\n[UNK]\n");
    cr_expect_eq(tokenizer_vocab_size(tok), 4);
    tokenizer_free(tok);
    tok = load(1);
    cr_expect_not(tokenizer_is_chars(tok));
    tokenizer_free(tok);
}

/* Encode text with the chars vocab and compare the ids and each piece. */
static void expect_chars(px_tokenizer *tok, const char *text, const int64_t *ids, size_t n,
                         const char *const *pieces)
{
    px_encoding enc;
    px_error err = {0};
    cr_assert_eq(tokenizer_encode(tok, text, strlen(text), 0, 0, &enc, &err), 0, "%s", err.msg);
    cr_assert_eq(enc.n, n, "for '%s': got %zu ids, want %zu", text, enc.n, n);
    cr_expect_eq(enc.n_real, n);
    cr_expect_eq(enc.over_limit, 0);
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(enc.ids[i], ids[i], "for '%s': id %zu is %lld, want %lld", text, i,
                     (long long)enc.ids[i], (long long)ids[i]);
        cr_expect_str_eq(enc.pieces[i], pieces[i], "for '%s': piece %zu", text, i);
    }
    encoding_free(&enc);
}

Test(tokenizer_chars, encode_is_bos_then_one_id_per_code_point)
{
    px_tokenizer *tok = load_chars(CHARS_VOCAB);
    static const int64_t a[] = {1, 5, 6, 4, 5};
    static const char *const ap[] = {"[BOS]", "a", "b", " ", "a"};
    expect_chars(tok, "ab a", a, N(a), ap);
    /* two-, three- and four-byte code points */
    static const int64_t b[] = {1, 7, 8, 9, 10};
    static const char *const bp[] = {"[BOS]", "\xc3\xa9", "\xc2\xa3", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    expect_chars(tok, "\xc3\xa9\xc2\xa3\xe2\x82\xac\xf0\x9f\x98\x80", b, N(b), bp);
    /* the empty text is [BOS] alone */
    static const int64_t c[] = {1};
    static const char *const cp[] = {"[BOS]"};
    expect_chars(tok, "", c, N(c), cp);
    tokenizer_free(tok);
}

Test(tokenizer_chars, encode_unknown_chars_without_normalizing)
{
    px_tokenizer *tok = load_chars(CHARS_VOCAB);
    /* one [UNK] per unknown code point; no lowercasing */
    static const int64_t a[] = {1, 5, 3, 3, 6};
    static const char *const ap[] = {"[BOS]", "a", "[UNK]", "[UNK]", "b"};
    expect_chars(tok, "aAXb", a, N(a), ap);
    /* no NFC: e + U+0301 is two unknown code points, not é */
    static const int64_t b[] = {1, 3, 3, 7};
    static const char *const bp[] = {"[BOS]", "[UNK]", "[UNK]", "\xc3\xa9"};
    expect_chars(tok, "e\xcc\x81\xc3\xa9", b, N(b), bp);
    /* special tokens' text is plain text: five unknown characters */
    static const int64_t c[] = {1, 3, 3, 3, 3, 3};
    static const char *const cp[] = {"[BOS]", "[UNK]", "[UNK]", "[UNK]", "[UNK]", "[UNK]"};
    expect_chars(tok, "[EOS]", c, N(c), cp);
    /* white space is kept as it is: a tab is not the space token */
    static const int64_t d[] = {1, 5, 3, 4, 4, 5};
    static const char *const dp[] = {"[BOS]", "a", "[UNK]", " ", " ", "a"};
    expect_chars(tok, "a\t  a", d, N(d), dp);
    /* a NUL inside the text is a code point like another */
    px_encoding enc;
    px_error err = {0};
    cr_assert_eq(tokenizer_encode(tok, "a\0b", 3, 0, 0, &enc, &err), 0, "%s", err.msg);
    cr_expect_eq(enc.n, 4);
    cr_expect_eq(enc.ids[2], 3);
    encoding_free(&enc);
    /* invalid UTF-8 is an error, not [UNK] */
    cr_expect_eq(tokenizer_encode(tok, "a\xc3", 2, 0, 0, &enc, &err), -1);
    cr_expect(strstr(err.msg, "invalid UTF-8 at byte 1"), "message: %s", err.msg);
    tokenizer_free(tok);
}

Test(tokenizer_chars, encode_over_limit_and_padding)
{
    px_tokenizer *tok = load_chars(CHARS_VOCAB);
    px_encoding enc;
    px_error err = {0};
    /* [BOS] counts: "abab" is 5 ids */
    cr_assert_eq(tokenizer_encode(tok, "abab", 4, 5, 0, &enc, &err), 0, "%s", err.msg);
    cr_expect_eq(enc.over_limit, 0);
    encoding_free(&enc);
    cr_assert_eq(tokenizer_encode(tok, "abab", 4, 4, 0, &enc, &err), 0, "%s", err.msg);
    cr_expect_eq(enc.over_limit, 1);
    cr_expect_eq(enc.n, 5, "not truncated");
    cr_expect_eq(enc.ids[4], 6);
    encoding_free(&enc);
    cr_assert_eq(tokenizer_encode(tok, "\xc3\xa9", 2, 0, 4, &enc, &err), 0, "%s", err.msg);
    static const int64_t ids[] = {1, 7, 0, 0};
    cr_assert_eq(enc.n, 4);
    cr_expect_eq(enc.n_real, 2, "the attention mask: 1 for the first two");
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(enc.ids[i], ids[i]);
    cr_expect_str_eq(enc.pieces[3], "[PAD]");
    encoding_free(&enc);
    tokenizer_free(tok);
}

Test(tokenizer_chars, decode_round_trips_and_drops_specials)
{
    px_tokenizer *tok = load_chars(CHARS_VOCAB);
    const char *text = "\xc3\xa9" "ab \xc2\xa3\xe2\x82\xac \xf0\x9f\x98\x80" "a";
    px_encoding enc;
    px_error err = {0};
    cr_assert_eq(tokenizer_encode(tok, text, strlen(text), 0, 0, &enc, &err), 0, "%s", err.msg);
    char *back = tokenizer_decode(tok, enc.ids + 1, enc.n - 1, &err);
    cr_assert_not_null(back, "%s", err.msg);
    cr_expect_str_eq(back, text);
    free(back);
    /* the whole encoding, [BOS] included, decodes to the text too */
    back = tokenizer_decode(tok, enc.ids, enc.n, &err);
    cr_expect_str_eq(back, text);
    free(back);
    encoding_free(&enc);
    /* [PAD] [BOS] [EOS] give nothing, [UNK] gives U+FFFD */
    static const int64_t ids[] = {1, 5, 0, 3, 2, 6, 3};
    back = tokenizer_decode(tok, ids, N(ids), &err);
    cr_assert_not_null(back, "%s", err.msg);
    cr_expect_str_eq(back, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
    free(back);
    back = tokenizer_decode(tok, ids, 0, &err);
    cr_expect_str_eq(back, "");
    free(back);
    static const int64_t eos[] = {2};
    back = tokenizer_decode(tok, eos, 1, &err);
    cr_expect_str_eq(back, "");
    free(back);
    tokenizer_free(tok);
}

Test(tokenizer_chars, decode_refuses_ids_out_of_the_vocab)
{
    px_tokenizer *tok = load_chars(CHARS_VOCAB);
    static const int64_t past[] = {5, 6, 11}, negative[] = {-1};
    px_error err = {0};
    cr_expect_null(tokenizer_decode(tok, past, N(past), &err));
    cr_expect(strstr(err.msg, "token 2 has id 11, not in the vocab (0..10)"), "message: %s", err.msg);
    err = (px_error){0};
    cr_expect_null(tokenizer_decode(tok, negative, N(negative), &err));
    cr_expect(strstr(err.msg, "id -1"), "message: %s", err.msg);
    tokenizer_free(tok);
    /* decoding is for the chars kind only */
    tok = load(1);
    static const int64_t one[] = {4};
    err = (px_error){0};
    cr_expect_null(tokenizer_decode(tok, one, 1, &err));
    cr_expect(strstr(err.msg, "kind chars"), "message: %s", err.msg);
    tokenizer_free(tok);
}

/* The event-blurbs demo's vocab (src/tools/train_blurbs.py) covers its
 * corpus: every prompt (with the " =>" the fixture's texts end with) and
 * every blurb encodes without [UNK] and decodes back to itself. */
Test(tokenizer_chars, the_demo_vocab_covers_its_corpus)
{
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_chars("fixtures/event-blurbs/vocab.txt", &err);
    cr_assert_not_null(tok, "%s", err.msg);
    cr_expect_eq(tokenizer_id(tok, " "), 4);
    char *corpus = tl_slurp("fixtures/event-blurbs/corpus.tsv");
    size_t lines = 0;
    for (char *line = strtok(corpus, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        char *tab = strchr(line, '\t');
        cr_assert_not_null(tab, "corpus line %zu has no tab", lines + 1);
        *tab = '\0';
        char prompt[512];
        snprintf(prompt, sizeof prompt, "%s =>", line);
        const char *texts[] = {prompt, tab + 1};
        for (size_t k = 0; k < 2; k++) {
            px_encoding enc;
            cr_assert_eq(tokenizer_encode(tok, texts[k], strlen(texts[k]), 0, 0, &enc, &err), 0, "%s", err.msg);
            for (size_t i = 0; i < enc.n; i++)
                cr_expect_neq(enc.ids[i], 3, "'%s': [UNK] at %zu", texts[k], i);
            char *back = tokenizer_decode(tok, enc.ids, enc.n, &err);
            cr_expect_str_eq(back, texts[k]);
            free(back);
            encoding_free(&enc);
        }
    }
    cr_expect_geq(lines, 100);
    free(corpus);
    tokenizer_free(tok);
}
