/* The tokenizer a contract names, giving the ids of the Hugging Face
 * `tokenizers` library (0.23.2: the fast tokenizer `transformers` uses), the
 * ids a model was trained with. Three ways to give it:
 *   tokenizer_load_hf  a tokenizer.json: the library's pipeline as the file
 *                      says it (include/parity/hf_pipe.h: added tokens,
 *                      normalizers, pre-tokenizers, BPE or WordPiece, post
 *                      processors, decoders), the files of the open LLMs
 *                      (Llama 2 and 3, Qwen 3, Gemma 3, DeepSeek V3, gpt-oss)
 *                      and BERT's; what parity does not implement is refused
 *                      naming it (parity/hf_read.h);
 *   tokenizer_load     a vocab.txt (one token per line, id = 0-based line
 *                      number) and a lowercase flag: what BertTokenizerFast
 *                      makes of them, i.e. the tokenizer.json it would save
 *                      (BertNormalizer, BertPreTokenizer, WordPiece "##" of
 *                      at most 100 characters, [CLS] ... [SEP], the specials
 *                      as added tokens), which is then read as any other;
 *   tokenizer_load_chars  a generator's character vocabulary (below).
 * BERT's character classes are the library's, probed from it
 * (src/tokenizer/hf_tables.c, tests/tokenizer/gen_tables.js), not
 * utf8proc's newer ones; tests/test_hf_agree.c holds every kind to the
 * library on tens of thousands of adversarial strings. The input is never
 * truncated: when the sequence would be longer than max_tokens the encoding
 * reports over_limit and the caller rejects the example.
 *
 * The third kind, `chars` (tokenizer_load_chars), is a generator's
 * character vocabulary (issue 15): vocab.txt has [PAD] [BOS] [EOS] [UNK] on
 * lines 1-4 exactly (ids 0-3), then one Unicode code point a line (a line
 * holding one space is the space token), none twice, no NUL, no CR at a
 * line's end, valid UTF-8; errors name vocab.txt:line. Encoding is [BOS]
 * then one id per code point of the text, [UNK] for one not in the vocab: no
 * normalization, no lowercasing, no [EOS], never truncated (over_limit as
 * above; pad_to pads with [PAD] and mask 0 as for WordPiece, though
 * generation never pads). tokenizer_decode turns generated ids back into
 * text: parity decodes, it never trusts an executor's text. */
#ifndef PARITY_TOKENIZER_H
#define PARITY_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "parity/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct px_tokenizer px_tokenizer;

typedef struct px_encoding {
    int64_t *ids;         /* n ids */
    char **pieces;        /* n strings: the vocab token for each id (the
                             tokenizer's own: it must outlive them; one
                             allocation with ids) */
    size_t n;             /* number of ids, padding included */
    size_t n_real;        /* ids before padding ([CLS] ... [SEP], or [BOS] ...): the
                             attention mask is 1 before it, 0 after */
    int over_limit;       /* 1 when n_real would exceed max_tokens */
} px_encoding;

/* Load vocab.txt. Errors: file unreadable, a required special token
 * ([PAD] [UNK] [CLS] [SEP]) missing, duplicate token (file:line). */
px_tokenizer *tokenizer_load(const char *vocab_path, int lowercase, px_error *err);
/* Load a Hugging Face tokenizer.json (parity/hf_read.h says what is read
 * and refused). Not thread-safe: a tokenizer keeps scratch buffers and a
 * cache of BPE words, so one thread uses it at a time. */
px_tokenizer *tokenizer_load_hf(const char *path, px_error *err);
/* Load a chars vocab.txt (see above). Errors: file unreadable; NUL, CR at
 * a line's end, invalid UTF-8, lines 1-4 not the specials, a later line
 * empty or of more than one code point, a duplicate (each at file:line). */
px_tokenizer *tokenizer_load_chars(const char *vocab_path, px_error *err);
/* 1 for a tokenizer of kind chars. */
int tokenizer_is_chars(const px_tokenizer *tok);
void tokenizer_free(px_tokenizer *tok);

size_t tokenizer_vocab_size(const px_tokenizer *tok);
/* -1 when absent. */
int64_t tokenizer_id(const px_tokenizer *tok, const char *token);
/* NULL when out of range. */
const char *tokenizer_token(const px_tokenizer *tok, int64_t id);

/* Encode UTF-8 text of len bytes. max_tokens 0 means no limit; pad_to 0 means
 * no padding. When over_limit is set, ids are still filled (not truncated) so
 * the caller can report the real length. Returns 0, or -1 with *err (invalid
 * UTF-8, out of memory). */
int tokenizer_encode(const px_tokenizer *tok, const char *text, size_t len,
                     size_t max_tokens, size_t pad_to, px_encoding *out,
                     px_error *err);
void encoding_free(px_encoding *enc);

/* What a tokenizer.json's "truncation" and "padding" say; parity applies
 * neither (a text over max_tokens is rejected, one example is never
 * padded). The strings are static: the library's variant names. */
typedef struct px_tok_limits {
    int truncates;                   /* 1: the file sets truncation */
    size_t truncate_at;              /* its max_length */
    const char *truncation_strategy; /* LongestFirst, OnlyFirst, OnlySecond */
    int pads;                        /* 1: the file sets padding */
    size_t pad_to;                   /* Fixed's length; 0 for BatchLongest */
    const char *padding_strategy;    /* Fixed or BatchLongest */
} px_tok_limits;
/* Fill *out (zeroed when the tokenizer is not a tokenizer.json or sets
 * neither); 1 when the file sets truncation or padding, else 0. */
int tokenizer_file_limits(const px_tokenizer *tok, px_tok_limits *out);
/* The same in words, into buf (n bytes, NUL-terminated; no command shows it
 * yet: lint does not, since max_tokens, not the file, is the contract's
 * limit), e.g.
 * "tokenizer.json truncates at 128 tokens and pads to 128: parity applies
 * neither; a text over max_tokens is rejected"; "" and 0 when it sets
 * neither, else the length written (cut to n - 1). */
size_t tokenizer_limits_describe(const px_tokenizer *tok, char *buf, size_t n);

/* Kind chars only: the text of n generated ids, malloc'd and NUL-terminated
 * UTF-8: each id's token concatenated, [PAD] [BOS] [EOS] giving nothing and
 * [UNK] giving U+FFFD. NULL with *err for an id out of the vocab (the
 * message names its index) or a tokenizer of another kind. */
char *tokenizer_decode(const px_tokenizer *tok, const int64_t *ids, size_t n, px_error *err);
/* Kinds chars and tokenizer.json: the text of n ids, malloc'd and
 * NUL-terminated UTF-8. For a tokenizer.json it is the library's
 * decode(ids, skip_special_tokens): ids outside the vocab are dropped, the
 * special added tokens too when skip_special is 1, the file's decoders turn
 * the tokens into text (bytes that are not UTF-8 become U+FFFD as the
 * library's lossy conversion makes them). For chars it is tokenizer_decode
 * (skip_special ignored). NULL with *err. */
char *tokenizer_decode_special(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special,
                               px_error *err);
/* The same, its byte length in *len; the text may hold NUL bytes (a
 * byte-fallback <0x00>, a byte-level 'Ā'), which tokenizer_decode_special
 * refuses (a text is text, as a fixture's is) rather than cut short. */
char *tokenizer_decode_len(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special, size_t *len,
                           px_error *err);

/* A generator's stop (contract.generate.stop) that is one token the
 * executor can stop on: any token of a chars vocab, an added token (special
 * or not) of a tokenizer.json or the specials of a vocab.txt. -1 for any
 * other string, which is a stop string: found in the decoded text. */
int64_t tokenizer_stop_id(const px_tokenizer *tok, const char *s);

/* The text of a generator's ids with stop strings: decode(ids[0..t),
 * skip_special) cut before the first of the n_stops strings in it, where
 * t <= n is the fewest ids whose text holds one (*stopped 1), or n when
 * none does (*stopped 0, the whole text). *n_used = t. NULL with *err. */
char *tokenizer_text_until(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special,
                           char *const *stops, size_t n_stops, size_t *n_used, int *stopped, px_error *err);

#ifdef __cplusplus
}
#endif
#endif
