/* BERT-style WordPiece tokenizer (the "basic" tokenizer of BERT followed by
 * greedy longest-match-first WordPiece), reading a vocab.txt (one token per
 * line, id = 0-based line number).
 *
 * Pipeline of tokenizer_encode():
 *   1. clean: drop U+0000, U+FFFD and control characters other than
 *      tab/CR/LF (every category C*: Cc, Cf, Co, Cn, as HuggingFace's
 *      _is_control; so VT, FF, NEL are dropped, not spaced); map every
 *      remaining white-space character (\s under Unicode: Z*, tab, CR, LF)
 *      to ' '
 *   2. put spaces around CJK ideographs
 *   3. if lowercase: NFD, drop non-spacing marks (Mn), lowercase (utf8proc,
 *      plus Python's final-sigma rule); otherwise NFC (as HuggingFace does)
 *   4. split on white space; split punctuation (Unicode P* and ASCII
 *      non-alphanumeric symbols) into tokens of their own (PCRE2, UCP)
 *   5. WordPiece each word: longest prefix in vocab, then "##"-prefixed
 *      continuations; a word with no full cover (or > 100 code points)
 *      becomes [UNK]
 *   6. [CLS] tokens... [SEP]; optionally [PAD] to pad_to
 * The input is never truncated: when the sequence (with [CLS]/[SEP]) would be
 * longer than max_tokens the encoding reports over_limit and the caller
 * rejects the example. */
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
    int64_t *mask;        /* attention mask: 1 for real tokens, 0 for [PAD] */
    char **pieces;        /* n strings: the vocab token for each id */
    size_t n;             /* number of ids, padding included */
    size_t n_real;        /* ids before padding ([CLS] ... [SEP]) */
    int over_limit;       /* 1 when n_real would exceed max_tokens */
} px_encoding;

/* Load vocab.txt. Errors: file unreadable, a required special token
 * ([PAD] [UNK] [CLS] [SEP]) missing, duplicate token (file:line). */
px_tokenizer *tokenizer_load(const char *vocab_path, int lowercase, px_error *err);
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

#ifdef __cplusplus
}
#endif
#endif
