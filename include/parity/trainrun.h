/* TRAINRUN, TRAINSTEP and TRAINEND (include/parity/proto.h, revision 9):
 * a training run (kind training: an example is one run of its recipe) on
 * the wire. The request encoded; the replies decoded into the example's
 * result: its loss curve as the values ([1, n_steps]) and what the run
 * recorded beside it (px_train_out: per step the gradient norm, the
 * update's, the learning rate and the time; at the end the tensor groups).
 *
 * The decoders are strict, because what they read came from another
 * process (a backend that prints into the stream, a rank that died
 * mid-write): every count is bounded (the run's steps, PX_TRAIN_MAX_GROUPS,
 * and each array by the bytes the frame has left, before anything is
 * allocated), the steps come in order (0, 1, ...), a TRAINEND comes after
 * the last step and no other, a group's name is one of proto.h's and is
 * not repeated, its sketch is exactly PX_TRAIN_SKETCH values, timings are
 * finite and not negative, no byte is left over; a frame that breaks any
 * of it is refused whole (the result as it was), in time linear in its
 * length. It lives in the run layer (beside denoise.c) because it fills
 * results.h's types. */
#ifndef PARITY_TRAINRUN_H
#define PARITY_TRAINRUN_H

#include <stddef.h>
#include <stdint.h>

#include "parity/proto.h"
#include "parity/results.h"

typedef struct px_trainrun_req {
    uint32_t steps, batch_size, seq_len;
    uint32_t optimizer;             /* enum px_optimizer: 1 adamw, 2 sgd */
    double beta1, beta2, eps, weight_decay, momentum;
    double clip_grad_norm;          /* 0: none */
    uint64_t seed;
    const double *lr;               /* steps: recipe_lr's */
    uint32_t n_windows;
    const int64_t *windows;         /* n_windows * (seq_len + 1) ids */
} px_trainrun_req;

/* A whole TRAINRUN frame (header included) appended to b. */
void trainrun_request_encode(px_buf *b, const px_trainrun_req *q);

/* A TRAINSTEP payload p (pos at its start) appended to x's run: its step
 * must be the next one (x->train's n_steps, 0 when x->train is NULL) and
 * below steps (the run's). x->values (the loss), n_values, ndim 2 and
 * shape [1, n], x->train's per-step arrays (allocated for `steps` at the
 * first step) and x->compiled (YES when any step compiled) are filled.
 * 0, or -1 with x untouched and *why (n bytes) saying what broke. */
int trainstep_decode(px_buf *p, px_example_result *x, uint32_t steps, char *why, size_t n);

/* A TRAINEND payload p into x, after all `steps` of its steps: dtype,
 * forward_ms (the run's total_ms), and x->train's processes, startup_ms,
 * total_ms and groups. 0, or -1 with x untouched and *why. */
int trainend_decode(px_buf *p, px_example_result *x, uint32_t steps, char *why, size_t n);

/* Whether name is one of TRAINEND's group names (embed, attention, mlp,
 * norm, head, other): its index in that list, else -1. */
int trainrun_group_index(const char *name);

#endif
