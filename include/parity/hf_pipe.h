/* The tokenizer.json pipeline of the Hugging Face `tokenizers` library
 * (0.23.2, the version the agreement tests hold parity to), in C: what
 * src/tokenizer/hf_json.c reads a file into, and the stages that
 * src/tokenizer/tokenizer.c runs in the library's order:
 *
 *   encode(text):
 *     1. added tokens with normalized: false are found in the raw text
 *        (hf_added_split: leftmost, then longest; lstrip/rstrip/single_word
 *        as the library applies them);
 *     2. each stretch between them is normalized (hf_normalize: the
 *        normalizers of the file in order, a Sequence flattened);
 *     3. added tokens with normalized: true are found in the normalized
 *        stretch (hf_added_split again, on the other set);
 *     4. each remaining stretch is split by the pre-tokenizers
 *        (hf_pretokenize: each applied to every split of the one before);
 *     5. the model turns each split into ids (hf_bpe_tokenize or
 *        hf_wordpiece_tokenize);
 *     6. the post processors add their ids around (hf_post_ids).
 *   decode(ids, skip_special_tokens):
 *     ids -> tokens (unknown ids dropped, special added tokens dropped when
 *     asked), then the decoders in order on the list of tokens, then the
 *     pieces joined (hf_decode).
 *
 * Nested Sequences are flattened when the file is read: applying a
 * Sequence's members in turn is what the library does, so the flat list is
 * the same pipeline.
 *
 * Text is UTF-8 throughout; byte-level pieces are the library's byte-to-
 * character mapping, so every piece is valid UTF-8 until the ByteLevel or
 * ByteFallback decoder turns it back into bytes. */
#ifndef PARITY_HF_PIPE_H
#define PARITY_HF_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "parity/error.h"

/* ---- buffers --------------------------------------------------------------- */

/* A growable byte string (not NUL-terminated unless said). */
typedef struct hf_buf {
    char *p;
    size_t n, cap;
} hf_buf;

int hf_buf_put(hf_buf *b, const char *s, size_t n, px_error *err);
void hf_buf_free(hf_buf *b);

/* A list of splits: each split is bytes [off, off+len) of buf. A split may
 * already be a token (id >= 0: an added token found in step 1 or 3, which
 * later stages pass through untouched), else id is -1. */
typedef struct hf_split {
    size_t off, len;
    int64_t id;
} hf_split;

typedef struct hf_splits {
    hf_buf buf;
    hf_split *v;
    size_t n, cap;
} hf_splits;

int hf_splits_push(hf_splits *s, const char *text, size_t len, int64_t id, px_error *err);
void hf_splits_clear(hf_splits *s); /* n = 0, buf.n = 0; keeps memory */
void hf_splits_free(hf_splits *s);

/* ---- the vocab and the merges ---------------------------------------------- */

/* id -> token bytes, and token bytes -> id. Built by the reader straight
 * from the file (no per-token allocation). Tokens of the model's vocab and
 * the added tokens share it: ids run 0..n-1 with no gap. */
typedef struct hf_vocab {
    char *arena;        /* every token's bytes, each NUL-terminated */
    size_t arena_len;
    uint32_t *off;      /* id -> offset in arena */
    uint32_t *len;      /* id -> bytes */
    size_t n;
    uint32_t *slots;    /* open addressing: id + 1, 0 empty */
    size_t mask;        /* slot count - 1 (a power of two) */
    size_t max_len;     /* the longest token's bytes (hf_vocab_put keeps it), so no longer
                         * piece is looked up; 0: not known, every length is tried */
} hf_vocab;

/* -1 when absent. */
int64_t hf_vocab_find(const hf_vocab *v, const char *s, size_t len);
static inline const char *hf_vocab_token(const hf_vocab *v, int64_t id)
{
    return id >= 0 && (size_t)id < v->n ? v->arena + v->off[id] : NULL;
}

/* BPE merges: (left id, right id) -> rank (0 first) and the merged id.
 * Open addressing with linear probing, at most 0.7 full; the slot count is
 * any number (mask + 1), a key's first slot its splitmix64 hash scaled to
 * it. Built only through hf_merges_alloc and hf_merges_put. */
typedef struct hf_merges {
    uint64_t *keys;     /* ((uint64_t)left << 32 | right) + 1; 0 empty */
    uint32_t *rank, *merged;
    size_t n, mask;     /* mask: slot count - 1 */
} hf_merges;

/* Slots for n merges; -1 when out of memory. */
int hf_merges_alloc(hf_merges *m, size_t n);
/* (a, b) -> rank, merged; a pair seen before takes the later rank, as the
 * library's HashMap collect keeps the last. At most the n allocated. */
void hf_merges_put(hf_merges *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t merged);
void hf_merges_free(hf_merges *m);
/* 1 and *rank, *merged when (a, b) merges; 0 otherwise. */
int hf_merges_find(const hf_merges *m, uint32_t a, uint32_t b, uint32_t *rank, uint32_t *merged);

/* ---- patterns (Replace, Split) -------------------------------------------- */

typedef struct hf_pattern {
    int regex;          /* 0: a literal string; 1: a regex of the library's
                           (Oniguruma) flavour, run with PCRE2 */
    char *text;         /* the literal or the regex source, NUL-terminated */
    size_t len;
    void *code;         /* pcre2_code * (regex only), JIT-compiled */
} hf_pattern;

/* Matches of p in s[0..len): each [start, end) appended to *out as pairs
 * (out->n counts size_t values, two per match), non-overlapping, left to
 * right, as the library's find_iter gives them. -1 with *err when a regex
 * exceeds its match limit (a catastrophic pattern is refused, never
 * waited on). */
typedef struct hf_offsets {
    size_t *v;
    size_t n, cap;
} hf_offsets;
int hf_pattern_find(const hf_pattern *p, const char *s, size_t len, hf_offsets *out, px_error *err);
/* Compile p->text (regex: translated from the library's flavour); -1 with
 * a message naming what cannot be translated. */
int hf_pattern_compile(hf_pattern *p, px_error *err);
/* Frees the compiled code; text belongs to whoever set it (the reader frees
 * its own in hf_pipe_free). */
void hf_pattern_free(hf_pattern *p);

/* ---- normalizers ----------------------------------------------------------- */

typedef enum hf_norm_kind {
    HF_NORM_NFC, HF_NORM_NFD, HF_NORM_NFKC, HF_NORM_NFKD,
    HF_NORM_LOWERCASE, HF_NORM_STRIP, HF_NORM_STRIP_ACCENTS,
    HF_NORM_REPLACE, HF_NORM_PREPEND, HF_NORM_BERT
} hf_norm_kind;

typedef struct hf_normalizer {
    hf_norm_kind kind;
    int left, right;                  /* Strip */
    hf_pattern pattern;               /* Replace */
    char *content;                    /* Replace: content; Prepend: prepend */
    size_t content_len;
    int clean_text, handle_chinese_chars, strip_accents, lowercase; /* Bert
                                         (strip_accents resolved: null -> lowercase) */
} hf_normalizer;

/* Run n normalizers on text (in place: *text is replaced). */
int hf_normalize(const hf_normalizer *norm, size_t n, hf_buf *text, px_error *err);
/* The same, and *at_start whether the normalized text still begins at the
 * original text's first character (a Strip, clean_text, StripAccents or
 * Replace that drops it moves the start): Metaspace's prepend_scheme first
 * prepends only then, as the library does. */
int hf_normalize_first(const hf_normalizer *norm, size_t n, hf_buf *text, int *at_start, px_error *err);

/* ---- pre-tokenizers -------------------------------------------------------- */

typedef enum hf_pretok_kind {
    HF_PRE_SPLIT, HF_PRE_BYTELEVEL, HF_PRE_METASPACE, HF_PRE_DIGITS,
    HF_PRE_PUNCTUATION, HF_PRE_WHITESPACE, HF_PRE_WHITESPACE_SPLIT, HF_PRE_BERT
} hf_pretok_kind;

typedef enum hf_behavior {
    HF_REMOVED, HF_ISOLATED, HF_MERGED_WITH_PREVIOUS, HF_MERGED_WITH_NEXT, HF_CONTIGUOUS
} hf_behavior;

typedef enum hf_prepend { HF_PREPEND_ALWAYS, HF_PREPEND_NEVER, HF_PREPEND_FIRST } hf_prepend;

typedef struct hf_pretok {
    hf_pretok_kind kind;
    hf_pattern pattern;               /* Split */
    hf_behavior behavior;             /* Split, Punctuation */
    int invert;                       /* Split */
    int add_prefix_space, use_regex;  /* ByteLevel (trim_offsets: offsets only) */
    char *replacement;                /* Metaspace: UTF-8 of one character */
    size_t replacement_len;
    hf_prepend prepend_scheme;        /* Metaspace */
    int split;                        /* Metaspace */
    int individual_digits;            /* Digits */
} hf_pretok;

/* Whether cp is a word character to the library (\w: its single_word
 * added tokens and the Whitespace pre-tokenizer). */
int hf_pretok_is_word(uint32_t cp);

/* Apply n pre-tokenizers to *s (replaced by the result). Splits with
 * id >= 0 pass through untouched; empty splits are dropped as the library
 * drops them. `first` is 1 when *s is the first stretch of the text
 * (Metaspace prepend_scheme: first). */
int hf_pretokenize(const hf_pretok *pre, size_t n, hf_splits *s, int first, px_error *err);

/* ---- added tokens ---------------------------------------------------------- */

typedef struct hf_added {
    char *content;
    size_t len;
    int64_t id;
    int special, lstrip, rstrip, normalized, single_word;
} hf_added;

/* The library's AddedVocabulary: two matchers, one for normalized: false
 * tokens (run on the raw text), one for normalized: true tokens (run on the
 * normalized text, each token's content normalized as the library does it).
 * Built in time linear in the tokens' total length. */
typedef struct hf_added_set hf_added_set;

hf_added_set *hf_added_build(const hf_added *tokens, size_t n, int normalized,
                             const hf_normalizer *norm, size_t n_norm, px_error *err);
void hf_added_free(hf_added_set *a);
/* Split text[0..len) into stretches and added tokens (appended to *out,
 * stretches with id -1). */
int hf_added_split(const hf_added_set *a, const char *text, size_t len, hf_splits *out, px_error *err);

/* ---- models ---------------------------------------------------------------- */

typedef enum hf_model_kind { HF_MODEL_WORDPIECE, HF_MODEL_BPE } hf_model_kind;

typedef struct hf_model {
    hf_model_kind kind;
    int64_t unk_id;                   /* -1: none */
    char *prefix;                     /* continuing_subword_prefix ("" none) */
    size_t prefix_len;
    char *suffix;                     /* BPE end_of_word_suffix ("" none) */
    size_t suffix_len;
    size_t max_chars;                 /* WordPiece max_input_chars_per_word */
    int byte_fallback, ignore_merges, fuse_unk; /* BPE */
    hf_merges merges;                 /* BPE */
    int64_t byte_ids[256];            /* BPE byte_fallback: id of "<0xXX>", -1 absent */
} hf_model;

typedef struct hf_ids {
    int64_t *v;
    size_t n, cap;
} hf_ids;

int hf_ids_push(hf_ids *ids, int64_t id, px_error *err);
/* splitmix64's finalizer: the tables' hash of an integer key. */
uint64_t hf_mix64(uint64_t x);

/* One pre-tokenized split -> ids (appended). The BPE keeps a cache of
 * words it has seen (bounded), so the model is not const. */
typedef struct hf_bpe_cache hf_bpe_cache;
int hf_bpe_tokenize(const hf_model *m, const hf_vocab *v, hf_bpe_cache *cache,
                    const char *s, size_t len, hf_ids *out, px_error *err);
hf_bpe_cache *hf_bpe_cache_new(void);
void hf_bpe_cache_free(hf_bpe_cache *c);
int hf_wordpiece_tokenize(const hf_model *m, const hf_vocab *v, const char *s, size_t len,
                          hf_ids *out, px_error *err);

/* ---- post processors ------------------------------------------------------- */

/* What the post processors add for one sequence with add_special_tokens
 * (TemplateProcessing single, BertProcessing, RobertaProcessing; ByteLevel
 * changes only offsets): ids before and after. */
typedef struct hf_post {
    int64_t *before, *after;
    size_t n_before, n_after;
} hf_post;

/* ---- decoders -------------------------------------------------------------- */

typedef enum hf_dec_kind {
    HF_DEC_BYTELEVEL, HF_DEC_METASPACE, HF_DEC_WORDPIECE, HF_DEC_REPLACE,
    HF_DEC_BYTEFALLBACK, HF_DEC_FUSE, HF_DEC_STRIP
} hf_dec_kind;

typedef struct hf_decoder {
    hf_dec_kind kind;
    char *replacement;                /* Metaspace */
    size_t replacement_len;
    hf_prepend prepend_scheme;        /* Metaspace */
    char *prefix;                     /* WordPiece */
    size_t prefix_len;
    int cleanup;                      /* WordPiece */
    hf_pattern pattern;               /* Replace */
    char *content;                    /* Replace: content; Strip: content
                                         (UTF-8 of one character) */
    size_t content_len;
    size_t start, stop;               /* Strip */
} hf_decoder;

/* The library's decode: ids (out of range dropped; special added tokens
 * dropped when skip_special) -> tokens -> decoders in order -> joined
 * (with no decoder, joined by ' '). Returns malloc'd NUL-terminated UTF-8
 * (invalid bytes replaced as Rust's String::from_utf8_lossy does) or NULL
 * with *err. */
struct px_hf_config;
char *hf_decode(const struct px_hf_config *c, const int64_t *ids, size_t n, int skip_special,
                px_error *err);

/* ---- the whole file -------------------------------------------------------- */

/* What the file's truncation and padding say. Parity applies neither (a
 * text over contract.input.max_tokens is rejected, never cut; one example
 * is never padded): they are read, checked as the library's serde structs
 * require (utils/truncation.rs, utils/padding.rs) and kept here so that
 * lint can say what the file would have done. The strings are static. */
typedef struct hf_limits {
    int truncation;                   /* 1: the file sets truncation */
    size_t trunc_max_length, trunc_stride;
    const char *trunc_strategy;       /* LongestFirst, OnlyFirst, OnlySecond */
    const char *trunc_direction;      /* Right (the default) or Left */
    int padding;                      /* 1: the file sets padding */
    const char *pad_strategy;         /* Fixed or BatchLongest */
    size_t pad_length;                /* Fixed's length; 0 for BatchLongest */
    const char *pad_direction;        /* Right or Left */
    size_t pad_multiple;              /* pad_to_multiple_of; 0 when null */
    uint64_t pad_id, pad_type_id;
} hf_limits;

typedef struct px_hf_config {
    hf_limits limits;                 /* truncation and padding, not applied */
    hf_vocab vocab;                   /* model.vocab and the added tokens */
    hf_model model;
    hf_normalizer *norm;              /* flattened; n_norm 0: none */
    size_t n_norm;
    hf_pretok *pre;
    size_t n_pre;
    hf_decoder *dec;
    size_t n_dec;                     /* 0 and has_decoder 0: none */
    int has_decoder;
    hf_post post;
    hf_added *added;                  /* as in the file */
    size_t n_added;
    hf_added_set *added_raw, *added_norm; /* matchers (NULL when empty) */
    unsigned char *special;           /* id -> 1 for a special added token
                                         (vocab.n bytes) */
} px_hf_config;

#endif
