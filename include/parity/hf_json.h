/* A Hugging Face fast tokenizer file (tokenizer.json, written by the
 * `tokenizers` library), read with jansson into what parity's WordPiece
 * needs. Only the BERT family is implemented: normalizer BertNormalizer,
 * pre_tokenizer BertPreTokenizer, model WordPiece, post_processor
 * TemplateProcessing or BertProcessing (or none), added tokens that are
 * matched literally (normalized: false, no lstrip/rstrip/single_word).
 * Anything else, and a file that sets truncation or padding (parity rejects
 * a long input, it never cuts one), is refused with a message naming the
 * field. */
#ifndef PARITY_HF_JSON_H
#define PARITY_HF_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "parity/error.h"

/* The largest tokenizer.json read (multilingual vocabularies run to tens of
 * MiB). */
#define PX_HF_MAX_BYTES (64u << 20)

typedef struct px_hf_added {
    char *content;
    size_t len;
    int64_t id;
    int special;
} px_hf_added;

typedef struct px_hf_config {
    char **tokens;          /* id -> token (model.vocab and added tokens); n */
    size_t n;
    int clean_text, handle_chinese_chars, strip_accents, lowercase;
    char *unk_token, *prefix; /* WordPiece unk_token, continuing_subword_prefix */
    size_t max_chars;       /* max_input_chars_per_word */
    px_hf_added *added;     /* matched in the raw text, longest first */
    size_t n_added;
    int64_t *before, *after; /* ids the post processor puts around the text */
    size_t n_before, n_after;
} px_hf_config;

/* Read and check path; -1 with *err (PX_EXIT_USAGE, naming the file and, for
 * a JSON syntax error, its line and column). */
int hf_json_read(const char *path, px_hf_config *out, px_error *err);
/* The same from bytes in memory (path names it in errors). */
int hf_json_parse(const char *path, const char *data, size_t len, px_hf_config *out, px_error *err);
void hf_config_free(px_hf_config *c);

#endif
