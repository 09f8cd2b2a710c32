/* A Transformers model directory (save_pretrained's: config.json,
 * *.safetensors, tokenizer.json, ...) pinned file by file: the fixture's
 * model.files maps each file's name to its sha256. The directory's
 * revision is the digest of those pins: sha256 of the lines
 * "<sha256>  <name>\n" in byte order of name, which is what
 *     LC_ALL=C sha256sum <the pinned names, sorted> | sha256sum
 * prints in the directory. Recorded as the model's sha256, so everything
 * that compares model revisions compares directories as it does files. */
#ifndef PARITY_MODELDIR_H
#define PARITY_MODELDIR_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/hash.h"

typedef struct px_model_file {
    char *name;    /* a plain file name in the directory (no '/') */
    char *sha256;  /* 64 hex digits */
    int line, col; /* the pin's place in the fixture (1-based) */
} px_model_file;

/* The digest of the pins (above); "" when out of memory. */
void modeldir_digest(const px_model_file *v, size_t n, char out[PX_SHA256_HEX]);

/* Whether a file in a model directory is one that loading could read:
 * every regular file but dot files and *.md (documentation). */
int modeldir_readable(const char *name);

/* A positive whole number of the directory's config.json (e.g.
 * max_position_embeddings, hidden_size); 0 when it is absent, not one, or
 * the file cannot be read. Read without the model's code: lint and init use
 * it where no executor here can load the model. */
long modeldir_config_long(const char *dir, const char *key);

/* Whether a tokenizer of n_ids ids (0 .. n_ids - 1, added tokens included)
 * fits the directory's config.json vocab_size, the rows of the model's
 * embedding: 0 when it does, or when the config says no vocab_size (or
 * cannot be read: the pins say why); else -1 with err (PX_ERR_MISMATCH at
 * fixture:line:col) naming the tokenizer, its largest id and vocab_size.
 * An id past the rows fails every forward that meets it ("index out of
 * range in self"), so lint and run say it before any model starts. */
int modeldir_vocab_check(const char *fixture, int line, int col, const char *dir, const char *tokenizer,
                         size_t n_ids, px_error *err);

/* Where a fixture names a model directory: its path: (where a directory
 * that is not there, or not readable, is said) and its files: (where a
 * file no pin names is said); the lines and columns are 1-based. */
typedef struct modeldir_at {
    const char *fixture;
    int path_line, path_col;
    int files_line, files_col;
} modeldir_at;

/* The directory dir against its pins: every pinned file hashes to its pin,
 * and no file loading could read is left unpinned. 0 with out the digest
 * of what is there (the pins' digest when all match), or -1 with err
 * naming the file: PX_ERR_MISMATCH at the pin's place in the fixture (a
 * wrong pin), or at files: for an unpinned file; PX_ERR_MALFORMED at
 * path: when the directory cannot be read (moved, renamed, not a
 * directory), at the pin when a pinned file cannot be. */
int modeldir_check(const modeldir_at *at, const char *dir, const px_model_file *v, size_t n,
                   char out[PX_SHA256_HEX], px_error *err);

/* The same, every problem said: each wrong pin, unreadable pinned file and
 * unpinned file is handed to report(ctx, err) as found, and -1 returned
 * when there was any (err then holds the last). A directory that cannot be
 * read, or out of memory, is -1 with *err, not reported. lint uses it. */
typedef void (*modeldir_report)(void *ctx, const px_error *err);
int modeldir_check_each(const modeldir_at *at, const char *dir, const px_model_file *v, size_t n,
                        char out[PX_SHA256_HEX], modeldir_report report, void *ctx, px_error *err);

#endif
