/* Shared between the tokenizer.json reader's files (hf_read.c,
 * hf_read_parts.c, hf_vocab.c); not an interface of its own. */
#ifndef PARITY_HF_READ_INT_H
#define PARITY_HF_READ_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "parity/hf_read.h"

/* ---- tables (hf_vocab.c) ---- */
#define HF_NO_OFF UINT32_MAX /* off[id] of an id not yet given a token */
/* Room for up to max_ids ids and arena_cap bytes of tokens (NULs included);
 * every off[] is HF_NO_OFF, n = max_ids until hf_vocab_seal. */
int hf_vocab_alloc(hf_vocab *v, size_t max_ids, size_t arena_cap);
/* Give id the token s[0..len) (s may already lie at arena + arena_len).
 * 0; 1 when the token is already there (*other: its id); 2 when the id
 * already has a token or is out of range. The caller sized the arena. */
int hf_vocab_put(hf_vocab *v, const char *s, size_t len, uint32_t id, int64_t *other);
void hf_vocab_free(hf_vocab *v);

/* ---- reading context (hf_read.c) ---- */
typedef struct hf_rd {
    const char *path;
    const char *data;     /* the whole file */
    size_t len;
    px_error *err;
    px_hf_config *c;
    int check;            /* 1: hf_read_check (no tables) */
    size_t n_model;       /* ids of model.vocab */
    size_t n_ids;         /* model's and the added tokens' ids (check: an upper bound) */
    int mapped;           /* data is a read-only mapping of the file */
    size_t dropped;       /* pages before this offset handed back (mapped) */
} hf_rd;

/* A refusal at byte offset `at` of the file (line:col computed), or with no
 * position when at == (size_t)-1. Returns -1. */
int hf_fail(hf_rd *r, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int hf_oom(hf_rd *r);
/* Parse the byte span [at, at+len) with jansson (duplicates refused);
 * NULL with *err on a syntax error, at the span's position. */
json_t *hf_span_load(hf_rd *r, size_t at, size_t len);

/* Read data[0..len) (check: without the tables; mapped: data is a mapping
 * of the file whose pages may be handed back). */
int hf_read_run(const char *path, const char *data, size_t len, px_hf_config *out, px_error *err, int check,
                int mapped);

/* ---- the components (hf_read_parts.c): each from a jansson value whose
 * text starts at byte `at` of the file ---- */
int hf_read_normalizer(hf_rd *r, const json_t *v, size_t at);
int hf_read_pretok(hf_rd *r, const json_t *v, size_t at);
int hf_read_post(hf_rd *r, const json_t *v, size_t at);
int hf_read_decoder(hf_rd *r, const json_t *v, size_t at);
/* One element of added_tokens into c->added[c->n_added++] (room made by
 * the caller). */
int hf_read_added_one(hf_rd *r, const json_t *v, size_t at);
/* The model's fields but vocab and merges (m: the model object without
 * them); fills c->model but the tables; *unk: the unk_token (or NULL), kept
 * by the caller to look up once the vocab is read. */
int hf_read_model_fields(hf_rd *r, const json_t *m, size_t at, const char **unk);

#endif
