/* The wire (wire.c): the runner's frames to an executor and its answers
 * decoded, and the shape checks of an output. The lowest of the runner's
 * parts: no runner, no process, a file descriptor and a payload. */
#ifndef PARITY_WIRE_H
#define PARITY_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "parity/denoise.h"
#include "parity/fixture.h"
#include "parity/generate.h"
#include "parity/kind.h"
#include "parity/prepare.h"
#include "parity/proto.h"
#include "parity/results.h"
#include "parity/tokenizer.h"
#include "parity/trainrun.h"

/* x's detail becomes a copy of s (NULL: none). */
void wire_set_detail(px_example_result *x, const char *s);

/* The inputs of n examples stacked into [n, L], into b: each padded to the
 * longest with pad_id and attention mask 0 (n 1: the example as prepared). */
void wire_put_stack(const px_fixture *f, px_buf *pb, const px_prepared *const *xs, size_t n, int64_t pad_id);
/* One forward of n examples stacked into [n, L] (wire_put_stack), written
 * to fd: 0, or -1 when it could not be. */
int wire_send_run_stack(const px_fixture *f, int fd, const px_prepared *const *xs, size_t n, int64_t pad_id);
/* One forward of one example, as prepared. */
int wire_send_run(const px_fixture *f, int fd, const px_prepared *x);
/* An OUTPUT frame's payload into x (dtype, shape, values, forward time,
 * whether it compiled); -1 when malformed. */
int wire_decode_output(px_buf *p, px_example_result *x);
/* x's status from its output's shape (ok, empty, or bad-shape with the
 * words), by the kind's one shape rule (kind.h, also the results reader's);
 * a kind that decides a label gets x->label, the argmax; else -1. */
void wire_judge_output(const px_fixture *f, px_example_result *x, const px_shape_want *w);

/* The contract's output settings as the protocol sends them. */
px_gen_settings wire_gen_settings(const px_fixture *f, const px_prep *prep);
/* A generator's example: GENERATE with its prompt (no padding: one
 * example, its real tokens), written to fd: 0, or -1. */
int wire_send_generate(const px_fixture *f, int fd, const px_prepared *in, const px_gen_settings *gs);
/* The GENERATED reply o moved into x, the text decoded here from the ids
 * (the stop token left out; a stop string cuts it and the ids after it:
 * prep_gen_text); o is freed. */
void wire_take_generated(const px_fixture *f, px_example_result *x, px_gen_out *o, const px_tokenizer *tok);

/* An image's example as DENOISE asks it (denoise.h): its class id and seed
 * (prepare.c), contract.image's steps, guidance, size and latent_every. */
px_denoise_req wire_denoise_req(const px_fixture *f, const px_prepared *in);
/* DENOISE for it, written to fd: 0, or -1. */
int wire_send_denoise(int fd, const px_denoise_req *q);
/* A DENOISED payload into x (denoised_decode), its image's shape then
 * judged by the kind's rule (wire_judge_output); malformed: an exception
 * saying what broke, never a guess. */
void wire_take_denoised(const px_fixture *f, px_buf *p, px_example_result *x, const px_shape_want *w);

/* A training run's example as TRAINRUN asks it (trainrun.h): recipe's
 * numbers, parity's learning rate per step (recipe_lr) and the windows of
 * the data's ids (prepare.c: prep->train_ids, cut as fixture.h says: window
 * w is ids[w*seq_len .. w*seq_len + seq_len]). lr and windows are
 * malloc'd into *q (wire_trainrun_free); -1 when out of memory or the data
 * has no window for this seq_len (prepare.c refuses that before any run). */
int wire_trainrun_req(const px_recipe *rc, const px_prep *prep, px_trainrun_req *q);
void wire_trainrun_free(px_trainrun_req *q);
/* TRAINRUN for it, written to fd: 0, or -1. */
int wire_send_trainrun(int fd, const px_trainrun_req *q);

/* A READY frame's fields after its version into m (malloc'd strings; an
 * optional field's "" is NULL, not known); p->bad says when malformed. */
void wire_decode_ready(px_buf *p, px_manifest *m);
/* TRAIN (proto.h): steps SGD steps at lr on the n examples xs stacked as
 * wire_put_stack stacks them, targets[j] the index of xs[j]'s label; written
 * to fd: 0, or -1. */
int wire_send_train(const px_fixture *f, int fd, uint32_t steps, double lr, const px_prepared *const *xs, size_t n,
                    int64_t pad_id, const int64_t *targets);

#endif
