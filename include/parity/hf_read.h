/* A Hugging Face fast tokenizer file (tokenizer.json, written by the
 * `tokenizers` library), read into the pipeline of parity/hf_pipe.h. The
 * components parity implements are listed there; any other component and
 * an option of a known one that parity does not implement (BPE dropout,
 * say) are refused with one line naming the component and what parity does
 * read, at the line and column of the offending value. The file's
 * truncation and padding are read and checked as strictly (their keys and
 * types as the library requires them, at the offending key or value) and
 * kept in px_hf_config.limits, but never applied: parity rejects a text
 * over contract.input.max_tokens, it never cuts one, and never pads a
 * single example (sentence-transformers overrides both fields too).
 *
 * The file is read with a small validating scanner of its own, not a
 * general JSON library: model.vocab and model.merges (hundreds of thousands
 * of entries in an LLM's file) go straight into the tables, so loading takes
 * one pass and peak memory stays under twice the file's size; the small
 * components (and each added token) are parsed with jansson from their byte
 * span. Everything is refused in time linear in the file's size: nesting
 * deeper than 128 levels, duplicate keys, invalid UTF-8, lone surrogates.
 *
 * Never include this header and parity/hf_json.h in one file (both define
 * px_hf_config). */
#ifndef PARITY_HF_READ_H
#define PARITY_HF_READ_H

#include <stddef.h>
#include <stdint.h>

#include "parity/error.h"
#include "parity/hf_pipe.h"

/* The largest tokenizer.json read (gemma3's is 33 MB). */
#define PX_HF_MAX_BYTES_READ (64u << 20)

/* Read and check path; -1 with *err (PX_ERR_MALFORMED for a file parity
 * cannot read, naming the file and, where it has one, the line and column
 * in it; PX_ERR_NOT_FOUND; PX_ERR_TOO_LARGE, by its size before reading). */
int hf_read_file(const char *path, px_hf_config *out, px_error *err);
/* The same from bytes in memory (path names it in errors). */
int hf_read_buf(const char *path, const char *data, size_t len, px_hf_config *out, px_error *err);
/* Check only, without building the vocab and merges tables (what fixture
 * loading, lint and init do: tens of milliseconds for the largest file):
 * the JSON syntax of the whole file, the same refusals as hf_read_file for
 * every component and option, the vocab and merges' shape (ids in range,
 * no duplicate token or id). What needs the tables (a merge naming a token
 * not in the vocab, an added token's id against the vocab's) is left to
 * hf_read_file. 0 or -1 with *err. */
int hf_read_check(const char *path, px_error *err);
/* Frees everything hf_read_* filled (a zeroed config is fine); zeroes *c. */
void hf_pipe_free(px_hf_config *c);

#endif
