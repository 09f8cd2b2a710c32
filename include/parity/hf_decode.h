/* The decode half of the tokenizer.json pipeline (src/tokenizer/hf_decode.c),
 * beyond hf_decode of hf_pipe.h: the decoded text with its length (a
 * ByteFallback "<0x00>" or a ByteLevel "Ā" decodes to a NUL byte, which a
 * NUL-terminated string cannot carry), and the UTF-8 helpers generators
 * need when they turn chosen ids into text. */
#ifndef PARITY_HF_DECODE_H
#define PARITY_HF_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "parity/error.h"
#include "parity/hf_pipe.h"

/* hf_decode, with the byte length of the result in *len (the result is
 * NUL-terminated too, but may hold NUL bytes). */
char *hf_decode_len(const px_hf_config *c, const int64_t *ids, size_t n, int skip_special,
                    size_t *len, px_error *err);

/* Rust's String::from_utf8_lossy: s[0..n) appended to *out with each
 * maximal invalid subpart (the Unicode "substitution of maximal subparts"
 * practice, as Rust's Utf8Chunks splits them) replaced by one U+FFFD.
 * out->p stays NUL-terminated when it grows. -1 with *err when out of
 * memory. */
int hf_utf8_lossy(const char *s, size_t n, hf_buf *out, px_error *err);

/* 1 when s[0..n) is valid UTF-8 as Rust's String::from_utf8 accepts it (no
 * surrogates, no overlong forms, nothing above U+10FFFF), else 0. */
int hf_utf8_valid(const char *s, size_t n);

/* Bytes at the end of s[0..n) that begin a UTF-8 sequence not yet complete
 * but still valid so far (0..3): what a streaming decoder holds back until
 * the next token instead of showing U+FFFD. */
size_t hf_utf8_incomplete_tail(const char *s, size_t n);

/* The byte a ByteLevel character stands for (the GPT-2 byte-to-unicode
 * table reversed: 'Ġ' U+0120 is 0x20), or -1 when cp is not in the table:
 * how a token that holds part of a character is shown as its bytes. */
int hf_bytelevel_byte(uint32_t cp);

#endif
