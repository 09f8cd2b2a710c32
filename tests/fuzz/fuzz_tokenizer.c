/* libFuzzer harness: the WordPiece tokenizer, with and without lowercasing,
 * and the contract's PCRE2 cleaning rules before it, on any bytes (UTF-8 or
 * not). Vocab and rules are fixtures/campus-club's (run from the repository
 * root). Beyond "no crash, leak or hang" it checks what tokenizer.h and
 * clean.h promise: an error only for invalid UTF-8, [CLS] ... [SEP] then
 * [PAD]s to pad_to, every id in the vocab and its piece the vocab's token,
 * nothing truncated (max_tokens only sets over_limit). The chars kind
 * (fixtures/event-blurbs/vocab.txt) on the same bytes: [BOS] then one id a
 * code point, [UNK] exactly for a code point not in the vocab, and
 * tokenizer_decode of the ids giving the text back with U+FFFD for each
 * [UNK].
 *
 * The tokenizer.json pipeline (issue 26) on the same bytes, with two small
 * BPE files cut from real ones by tests/tokenizer/make_small_bpe.js:
 * tests/data/bpe-bytelevel-small.json (llama3's Split regex + ByteLevel,
 * ignore_merges) and tests/data/bpe-fallback-small.json (llama2's Prepend +
 * Replace normalizers, byte_fallback, <s> template, Replace/ByteFallback/
 * Fuse/Strip decoders). Checked: valid UTF-8 encodes (an error only for
 * invalid UTF-8, with a message), every id in the vocab, max_tokens only
 * sets over_limit (the same ids with and without it); and
 * decode(encode(s), skip_special 1) == s byte for byte (tokenizer_decode_len),
 * which the library guarantees for these two files when s holds no added
 * token's text and, for the fallback file, no U+2581 (its decoder turns it
 * into a space) — make_small_bpe.js asks the library the same on the whole
 * LLM corpus. The input's bytes are also read as ids (out of range ones
 * included) and decoded with both skip values: the text must be valid
 * UTF-8, and tokenizer_decode_special gives the same text, or refuses it
 * (with a message) exactly when it holds a NUL byte.
 *
 * The first byte of an input picks which of these seven parts runs on the
 * rest (see LLVMFuzzerTestOneInput). */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/clean.h"
#include "parity/fixture.h"
#include "parity/tokenizer.h"
#include "parity/utf8.h"

#define FIXTURE "fixtures/campus-club/fixture.yaml"
#define VOCAB "fixtures/campus-club/vocab.txt"
#define CHARS_VOCAB "fixtures/event-blurbs/vocab.txt"
#define BPE_BYTELEVEL "tests/data/bpe-bytelevel-small.json"
#define BPE_FALLBACK "tests/data/bpe-fallback-small.json"

static px_tokenizer *bpe[2]; /* bytelevel, fallback */
static const char *const bpe_added[2][5] = {
    {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>", NULL},
    {"<unk>", "<s>", "</s>", "\xE2\x96\x81", NULL}, /* U+2581: the fallback file's space */
};

static px_tokenizer *toks[2]; /* lowercase off, on */
static int64_t specials[2][3]; /* toks[i]'s [CLS], [SEP], [PAD] ids: looked up once */
static px_tokenizer *chars;
static px_cleaner *cleaner;

static void die(const px_error *err)
{
    char msg[2048];
    px_error_format(err, msg, sizeof msg);
    fprintf(stderr, "fuzz_tokenizer (run it from the repository root): %s\n", msg);
    exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    px_error err = {0};
    px_fixture *f = fixture_load(FIXTURE, &err);
    if (!f)
        die(&err);
    cleaner = cleaner_new();
    for (size_t i = 0; i < f->n_rules; i++)
        if (cleaner_add(cleaner, f->rules[i].pattern, f->rules[i].replace, &err))
            die(&err);
    fixture_free(f);
    for (int lc = 0; lc < 2; lc++) {
        if (!(toks[lc] = tokenizer_load(VOCAB, lc, &err)))
            die(&err);
        specials[lc][0] = tokenizer_id(toks[lc], "[CLS]"), specials[lc][1] = tokenizer_id(toks[lc], "[SEP]");
        specials[lc][2] = tokenizer_id(toks[lc], "[PAD]");
    }
    if (!(chars = tokenizer_load_chars(CHARS_VOCAB, &err)))
        die(&err);
    if (!(bpe[0] = tokenizer_load_hf(BPE_BYTELEVEL, &err)) || !(bpe[1] = tokenizer_load_hf(BPE_FALLBACK, &err)))
        die(&err);
    return 0;
}

/* One encoding of text; returns it (to compare settings) or, on an error,
 * an empty one after checking that the error was the text's fault. */
static px_encoding encode(const px_tokenizer *tok, const char *text, size_t len, size_t max_tokens,
                          size_t pad_to)
{
    px_encoding e;
    px_error err = {0};
    int valid = utf8_invalid_at(text, len) < 0;
    if (tokenizer_encode(tok, text, len, max_tokens, pad_to, &e, &err)) {
        if (valid || err.code == 0 || !err.msg[0])
            abort(); /* valid UTF-8 must encode; an error must say why */
        memset(&e, 0, sizeof e);
        return e;
    }
    size_t vocab = tokenizer_vocab_size(tok);
    int64_t cls = specials[tok == toks[1]][0], sep = specials[tok == toks[1]][1], pad = specials[tok == toks[1]][2];
    if (!valid || e.n_real < 2 || e.n != (e.n_real > pad_to ? e.n_real : pad_to) ||
        e.ids[0] != cls || e.ids[e.n_real - 1] != sep ||
        e.over_limit != (max_tokens && e.n_real > max_tokens))
        abort();
    for (size_t i = 0; i < e.n; i++) {
        const char *piece = tokenizer_token(tok, e.ids[i]);
        if (e.ids[i] < 0 || (uint64_t)e.ids[i] >= vocab || !piece || strcmp(e.pieces[i], piece) ||
            (i >= e.n_real && e.ids[i] != pad))
            abort();
    }
    return e;
}

/* Encode with both lowercase settings under limits the input may exceed
 * (max_tokens only sets over_limit) and, when whole, with none: the same ids. */
static void encode_all(const char *text, size_t len, int whole)
{
    for (int lc = 0; lc < 2; lc++) {
        px_encoding capped = encode(toks[lc], text, len, 8, 16);
        if (whole) {
            px_encoding all = encode(toks[lc], text, len, 0, 0);
            if (all.n_real != capped.n_real ||
                (all.n_real && memcmp(all.ids, capped.ids, all.n_real * sizeof *all.ids)))
                abort();
            encoding_free(&all);
        }
        encoding_free(&capped);
    }
}

/* The chars kind: encode, check each id against its code point, decode. */
static void chars_check(const char *text, size_t len)
{
    px_encoding e;
    px_error err = {0};
    if (tokenizer_encode(chars, text, len, 4, 0, &e, &err)) {
        if (utf8_invalid_at(text, len) < 0 || !err.msg[0])
            abort();
        return;
    }
    char *want = malloc(len * 3 + 1), *w = want;
    if (!want)
        abort();
    size_t k = 1;
    for (size_t i = 0; i < len; k++) {
        size_t n = 1;
        while (i + n < len && ((unsigned char)text[i + n] & 0xC0) == 0x80)
            n++;
        if (k >= e.n_real)
            abort();
        char cp[5] = {0};
        memcpy(cp, text + i, n > 4 ? 4 : n);
        int64_t id = tokenizer_id(chars, cp);
        int known = id >= 0;
        if (n > 4 || e.ids[k] != (known ? id : 3) || strcmp(e.pieces[k], known ? cp : "[UNK]"))
            abort();
        memcpy(w, known ? text + i : "\xEF\xBF\xBD", known ? n : 3);
        w += known ? n : 3;
        i += n;
    }
    *w = '\0';
    if (e.ids[0] != 1 || k != e.n_real || e.n != e.n_real || e.over_limit != (e.n_real > 4))
        abort();
    char *back = tokenizer_decode(chars, e.ids, e.n, &err);
    if (!back || strcmp(back, want))
        abort();
    free(back);
    free(want);
    encoding_free(&e);
}

/* Encode with a BPE file; returns the ids (n = 0 and NULL on the error
 * invalid UTF-8 must give). */
static px_encoding bpe_encode(const px_tokenizer *tok, const char *text, size_t len, size_t max_tokens)
{
    px_encoding e;
    px_error err = {0};
    if (tokenizer_encode(tok, text, len, max_tokens, 0, &e, &err)) {
        if (utf8_invalid_at(text, len) < 0 || err.code == 0 || !err.msg[0])
            abort();
        memset(&e, 0, sizeof e);
        return e;
    }
    size_t vocab = tokenizer_vocab_size(tok);
    if (utf8_invalid_at(text, len) >= 0 || e.n != e.n_real || e.over_limit != (max_tokens && e.n_real > max_tokens))
        abort();
    for (size_t i = 0; i < e.n; i++)
        if (e.ids[i] < 0 || (uint64_t)e.ids[i] >= vocab)
            abort();
    return e;
}

/* memmem, not memcmp at every offset: libFuzzer hooks each memcmp, which
 * cost the BPE parts a fifth of their time. */
static int holds(const char *text, size_t len, const char *what)
{
    return memmem(text, len, what, strlen(what)) != NULL;
}

/* tokenizer_decode_len's text, checked: valid UTF-8, NUL-terminated; and
 * tokenizer_decode_special's the same, or refused (with a message) exactly
 * when the text holds NUL. */
static char *decode_checked(const px_tokenizer *tok, const int64_t *ids, size_t n_ids, int skip, size_t *len)
{
    px_error err = {0};
    char *text = tokenizer_decode_len(tok, ids, n_ids, skip, len, &err);
    if (!text || text[*len] || utf8_invalid_at(text, *len) >= 0)
        abort();
    px_error err2 = {0};
    char *plain = tokenizer_decode_special(tok, ids, n_ids, skip, &err2);
    int nul = memchr(text, '\0', *len) != NULL;
    if (nul ? plain != NULL || !err2.msg[0] : !plain || strcmp(plain, text))
        abort();
    free(plain);
    return text;
}

static void bpe_check(int k, const char *text, size_t len)
{
    px_encoding all = bpe_encode(bpe[k], text, len, 0), capped = bpe_encode(bpe[k], text, len, 4);
    if (all.n != capped.n || (all.n && memcmp(all.ids, capped.ids, all.n * sizeof *all.ids)))
        abort();
    encoding_free(&capped);
    if (!all.ids)
        return;
    int round_trip = 1;
    for (int i = 0; bpe_added[k][i]; i++)
        round_trip = round_trip && !holds(text, len, bpe_added[k][i]);
    for (int skip = 0; skip <= 1; skip++) {
        size_t n = 0;
        char *back = decode_checked(bpe[k], all.ids, all.n, skip, &n);
        if (skip && round_trip && (n != len || memcmp(back, text, len)))
            abort();
        free(back);
    }
    encoding_free(&all);
}

/* The input's bytes as ids (two bytes each, reaching past the vocab):
 * any ids decode to valid UTF-8. */
static void bpe_decode_ids(int k, const uint8_t *data, size_t size)
{
    size_t n = size / 2 > 256 ? 256 : size / 2, vocab = tokenizer_vocab_size(bpe[k]);
    int64_t ids[256];
    for (size_t i = 0; i < n; i++)
        ids[i] = (int64_t)(((size_t)data[2 * i] << 8 | data[2 * i + 1]) % (vocab + 64));
    for (int skip = 0; skip <= 1; skip++) {
        size_t len = 0;
        free(decode_checked(bpe[k], ids, n, skip, &len));
    }
}

/* The cleaner's rules, then WordPiece on what they leave (not whole: the
 * capped and uncapped ids are compared on the raw text already). */
static void clean_check(const char *text, size_t size)
{
    px_error err = {0};
    size_t len = 0;
    char *clean = cleaner_apply(cleaner, text, size, &len, &err);
    if (!clean && (utf8_invalid_at(text, size) < 0 || !err.msg[0]))
        abort(); /* the rules are bounded; only invalid UTF-8 may fail them */
    if (clean && (clean[len] || utf8_invalid_at(clean, len) >= 0))
        abort();
    if (clean)
        encode_all(clean, len, 0);
    free(clean);
}

/* Each input runs one part, chosen by its first byte (consumed; the rest is
 * the text): every part is reached with all its checks, and an input costs
 * one part's time instead of all seven (about 20 tokenizer passes), which
 * kept this harness at a few hundred inputs a second. The seeds are given
 * once per part (`make fuzz` prefixes each with every selector). */
enum { PART_BPE_BYTELEVEL, PART_BPE_FALLBACK, PART_IDS_BYTELEVEL, PART_IDS_FALLBACK, PART_WORDPIECE, PART_CHARS,
       PART_CLEAN, PART_COUNT };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    int part = data[0] % PART_COUNT;
    const char *text = (const char *)data + 1;
    size--, data++;
    switch (part) {
    case PART_BPE_BYTELEVEL:
    case PART_BPE_FALLBACK:
        bpe_check(part - PART_BPE_BYTELEVEL, text, size);
        break;
    case PART_IDS_BYTELEVEL:
    case PART_IDS_FALLBACK:
        bpe_decode_ids(part - PART_IDS_BYTELEVEL, data, size);
        break;
    case PART_WORDPIECE:
        encode_all(text, size, 1);
        break;
    case PART_CHARS:
        chars_check(text, size);
        break;
    default:
        clean_check(text, size);
        break;
    }
    return 0;
}
