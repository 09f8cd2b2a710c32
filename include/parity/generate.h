/* Generation (protocol revision 4, include/parity/proto.h): the GENERATE
 * request parity sends for a generator's example, the GENERATED reply it
 * reads back, and the reference of how a token is chosen from a row of
 * logits. The executors choose exactly as gen_choose does: parity-torch
 * links this file; parity_torch.py has a copy of the algorithm, proved equal
 * by tests/test_generate.c. parity uses gen_choose and gen_top to re-check a
 * results file. C11 and libm only (no libtorch).
 *
 * Choosing (gen-spec): greedy is torch.argmax (the first NaN if any, else the
 * lowest id of the largest). sample: one splitmix64 state per example, set
 * to the seed at its start; each step draws u = (z >> 11) * 2^-53; a row
 * with a NaN, or whose largest candidate logit m is not finite, takes the
 * greedy id (the draw is still made); else the candidates are the top_k ids
 * (0: all V) by logit descending, ties lower id first, w_i = exp((l_i - m)
 * / temperature), total = their sum in candidate order, and the first
 * candidate whose running sum c has u * total < c is chosen (none, by
 * rounding: the last). */
#ifndef PARITY_GENERATE_H
#define PARITY_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include "parity/proto.h"

#ifdef __cplusplus
extern "C" {
#endif

enum px_gen_decoding { PX_GEN_GREEDY = 1, PX_GEN_SAMPLE = 2 };
enum px_gen_end { PX_GEN_END_NONE = 0 /* n_steps 0: bad shape */, PX_GEN_END_STOP = 1, PX_GEN_END_LENGTH = 2 };

typedef struct px_gen_settings {
    int decoding;       /* enum px_gen_decoding */
    double temperature; /* sample: > 0 */
    int top_k;          /* sample: >= 0, 0 = the whole vocab */
    uint64_t seed;
    int max_new_tokens; /* 1 .. PX_GEN_MAX_NEW */
    int64_t *stop_ids;
    size_t n_stop;
    int report_top;     /* R, 0 .. PX_GEN_MAX_TOP */
} px_gen_settings;

/* A whole GENERATE frame (proto_begin .. proto_end) in b: the settings, then
 * n_inputs inputs named names[i], each [1, T] with values[i][0..T). */
void gen_request_encode(px_buf *b, const px_gen_settings *s, const char *const *names,
                        const int64_t *const *values, size_t n_inputs, size_t T);

typedef struct px_gen_out {
    char *dtype;
    int ndim;
    int64_t shape[PX_MAX_DIMS];
    int64_t *ids;        /* n_steps chosen ids, a stop id included */
    size_t n_steps;
    int r;               /* ids reported per step: min(report_top, V) */
    int64_t *top_ids;    /* n_steps * r */
    double *top_logits;  /* n_steps * r */
    int end;             /* enum px_gen_end */
    double first_ms, total_ms;
} px_gen_out;

/* Reads a GENERATED payload (from its pos) sent in answer to a GENERATE
 * with settings s. 0, or -1 (out left empty) for anything malformed or
 * inconsistent with s: truncated or trailing bytes; more than PX_MAX_DIMS
 * dimensions or a negative one; n_steps > max_new_tokens; steps with an
 * output not [1, T, V >= 1]; r not min(report_top, V) or not the same at
 * every step; an id or top id outside [0, V); a top list out of its order
 * (NaN first, then descending, ties lower id) or, for greedy, a chosen id
 * that is not its first; a stop id before the last step; end stop without a
 * stop id last; end length with fewer than max_new_tokens steps; n_steps 0
 * (a bad shape) with an end other than 0, or steps with end 0; a negative or
 * non-finite time. Work and memory linear in the payload. */
int gen_reply_decode(px_buf *payload, px_gen_out *out, const px_gen_settings *s);
void gen_out_free(px_gen_out *out);

/* One splitmix64 step: advances *state, returns z. */
uint64_t gen_splitmix64(uint64_t *state);
/* The id chosen from row[0..V) (V >= 1) with settings s; a sample draws from
 * *state (greedy does not touch it). -1 when V is 0 or memory runs out. */
int64_t gen_choose(const double *row, size_t V, const px_gen_settings *s, uint64_t *state);
/* The top min(r, V) ids of row and their logits: NaN first (lower id
 * first), then logit descending, ties lower id first. */
void gen_top(const double *row, size_t V, int r, int64_t *ids, double *logits);

#ifdef __cplusplus
}
#endif
#endif
